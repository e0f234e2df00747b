// Properties checked (the real `dpx` executable, `dpx audit`, docs/audit.md):
// - the JSON output starts with the keys epsilon_lower_bound, claimed_epsilon, confidence,
//   trials, violation, in that order (after schema_version), with the claim, confidence and trials
//   asked for;
// - a correct Laplace mechanism is not reported in violation and a --broken one (scale b/2,
//   true epsilon 2) is, at a fixed seed (20000 trials per side: the broken bound is ~1.9);
// - the same seed gives byte-identical output;
// - bad or conflicting flags (unknown mechanism, unknown flag, trials < 4, epsilon <= 0,
//   --delta on a pure-DP mechanism, --scale on the Gaussian, --scale with --epsilon, missing
//   --mechanism) exit 2 with exactly one line on stderr and nothing on stdout.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;

dpx::test::outcome run_audit_cli(const std::vector<std::string>& args) {
  const fs::path dir = dpx::test::fresh_test_dir("dpx_audit_cli_");
  std::vector<std::string> all{"audit"};
  all.insert(all.end(), args.begin(), args.end());
  auto o = dpx::test::run_dpx(all, dir);
  fs::remove_all(dir);
  return o;
}

std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n' ? 1 : 0;
  return n + (!s.empty() && s.back() != '\n' ? 1 : 0);
}

TEST(AuditCli, JsonKeysComeFirstInOrder) {
  const auto r = run_audit_cli(
      {"--mechanism", "laplace", "--epsilon", "1", "--trials", "20000", "--seed", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::ordered_json::parse(r.out);
  const std::vector<std::string> first = {"schema_version",
                                          "epsilon_lower_bound",
                                          "claimed_epsilon",
                                          "confidence",
                                          "trials",
                                          "violation"};
  ASSERT_GE(j.size(), first.size());
  std::size_t i = 0;
  for (auto it = j.begin(); i < first.size(); ++it, ++i) EXPECT_EQ(it.key(), first[i]);
  EXPECT_DOUBLE_EQ(j["claimed_epsilon"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["confidence"].get<double>(), 0.95);
  EXPECT_EQ(j["trials"].get<long>(), 20000);
  const double lb = j["epsilon_lower_bound"].get<double>();
  EXPECT_GE(lb, 0.0);
  EXPECT_LE(lb, 1.0);  // P(lb > 1) <= 0.05 for this tight test; fixed seed
  EXPECT_FALSE(j["violation"].get<bool>());
  EXPECT_EQ(j["mechanism"].get<std::string>(), "laplace");
  EXPECT_FALSE(j["broken"].get<bool>());
  EXPECT_EQ(j["delta"].get<double>(), 0.0);
}

TEST(AuditCli, BrokenLaplaceIsAViolation) {
  const auto r = run_audit_cli({"--mechanism",
                                "laplace",
                                "--scale",
                                "2",
                                "--sensitivity",
                                "2",
                                "--trials",
                                "20000",
                                "--broken",
                                "--seed",
                                "4"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::ordered_json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["claimed_epsilon"].get<double>(), 1.0);  // Delta / b
  EXPECT_GT(j["epsilon_lower_bound"].get<double>(), 1.0);
  EXPECT_TRUE(j["violation"].get<bool>());
  EXPECT_TRUE(j["broken"].get<bool>());
}

TEST(AuditCli, FixedSeedIsReproducible) {
  const std::vector<std::string> args = {
      "--mechanism", "randomized_response", "--epsilon", "0.5", "--trials", "5000", "--seed", "9"};
  const auto a = run_audit_cli(args), b = run_audit_cli(args);
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
}

TEST(AuditCli, BadFlagsExitTwoWithOneLine) {
  const std::vector<std::vector<std::string>> bad = {
      {"--mechanism", "nope", "--epsilon", "1"},
      {"--mechanism", "laplace", "--epsilon", "1", "--bogus"},
      {"--mechanism", "laplace", "--epsilon", "1", "--trials", "2"},
      {"--mechanism", "laplace", "--epsilon", "-1"},
      {"--mechanism", "laplace", "--epsilon", "1", "--delta", "1e-5"},
      {"--mechanism", "gaussian", "--scale", "1"},
      {"--mechanism", "laplace", "--scale", "1", "--epsilon", "1"},
      {"--mechanism", "gaussian", "--epsilon", "1", "--delta", "2"},
      {"--mechanism", "discrete_laplace", "--epsilon", "1", "--sensitivity", "1.5"},
      {"--epsilon", "1"},
  };
  for (const auto& args : bad) {
    std::string cmd;
    for (const auto& a : args) cmd += a + " ";
    const auto r = run_audit_cli(args);
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_EQ(lines(r.err), 1u) << cmd << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << cmd;
  }
}

}  // namespace
