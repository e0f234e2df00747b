// Properties checked (the `dpx account` / `dpx calibrate` / `dpx compose` commands, run as a
// subprocess from ${DPX_BINARY_DIR}/bin/dpx; skipped when the tool is not built):
// - JSON on stdout with exactly the keys of issue 4, in order, and values equal to the library's.
// - Bad input (non-positive / non-finite numbers, delta outside (0,1), sampling rate outside
//   (0,1], steps < 1, unknown method) -> exit status 2, one line on stderr naming the flag,
//   nothing on stdout.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../integration/cli_util.hpp"
#include "dpx/accounting/calibration.hpp"

namespace {
struct run_result {
  int status = -1;
  std::string out, err;
};

std::string dpx_path() {
  const char* env = std::getenv("DPX_BINARY_DIR");
  const std::string b = env != nullptr ? env : DPX_TEST_BINARY_DIR;
  std::string p = b + "/bin/dpx";
  std::ifstream f(p);
  return f.good() ? p : std::string{};
}

/// `dpx ARGS` (space-separated, no quoting needed here) through the integration tests' runner:
/// stdout and stderr captured in a directory of the running test's own.
run_result run(const std::string& args) {
  std::vector<std::string> argv{dpx_path()};
  std::istringstream is(args);
  for (std::string a; is >> a;) argv.push_back(a);
  const auto o = dpx::test::run_in(argv, dpx::test::fresh_test_dir("dpx_accounting_cli_"));
  return {o.code, o.out, o.err};
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}
}  // namespace

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (dpx_path().empty()) GTEST_SKIP() << "dpx tool not built (DPX_BINARY_DIR/bin/dpx)";
  }
};

TEST_F(Cli, AccountJsonKeys) {
  auto r =
      run("account --mechanism gaussian --noise-multiplier 2 --steps 10 --delta 1e-5 "
          "--method rdp");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"mechanism\":\"gaussian\",\"method\":\"rdp\",\"epsilon\":", 0), 0u)
      << r.out;
  EXPECT_NE(r.out.find(",\"delta\":1e-05}"), std::string::npos) << r.out;
  const double want =
      dpx::accounting::account_gaussian(dpx::accounting::method::rdp, 2, 1, 10, 1e-5);
  EXPECT_NEAR(std::stod(r.out.substr(r.out.find("\"epsilon\":") + 10)), want, 1e-12 * want);
  auto all = run("account --mechanism laplace --scale 10 --steps 100 --delta 1e-5 --method all");
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(all.out.rfind("{\"results\":[{\"method\":\"basic\",\"epsilon\":", 0), 0u) << all.out;
}

TEST_F(Cli, CalibrateAndCompose) {
  auto g = run("calibrate --mechanism gaussian --epsilon 1 --delta 1e-5 --method analytic");
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_EQ(g.out.rfind("{\"noise_multiplier\":3.73", 0), 0u) << g.out;
  auto l = run("calibrate --mechanism laplace --epsilon 2 --steps 4");
  ASSERT_EQ(l.status, 0) << l.err;
  EXPECT_EQ(l.out.rfind("{\"scale\":2", 0), 0u) << l.out;
  auto c = run("compose --rule basic --epsilon0 0.5 --k 4 --delta-slack 1e-6");
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(c.out, "{\"epsilon\":2.0,\"delta\":0.0}\n");
}

TEST_F(Cli, BadInputExitTwoNothingOnStdout) {
  const std::pair<const char*, const char*> cases[] = {
      {"account --mechanism gaussian --noise-multiplier -1 --steps 10 --delta 1e-5 --method rdp",
       "--noise-multiplier"},
      {"account --mechanism gaussian --noise-multiplier 1 --steps 10 --delta 1.5 --method rdp",
       "--delta"},
      {"account --mechanism gaussian --noise-multiplier 1 --sampling-rate 0 --steps 10 "
       "--delta 1e-5 --method rdp",
       "--sampling-rate"},
      {"account --mechanism gaussian --noise-multiplier 1 --steps 0 --delta 1e-5 --method rdp",
       "--steps"},
      {"account --mechanism gaussian --noise-multiplier nan --steps 3 --delta 1e-5 --method rdp",
       "--noise-multiplier"},
      {"account --mechanism gaussian --noise-multiplier 1 --steps 3 --delta 1e-5 --method moments",
       "--method"},
      {"calibrate --mechanism gaussian --epsilon inf --delta 1e-5 --method pld", "--epsilon"},
      {"calibrate --mechanism gaussian --epsilon 1 --delta 1e-5 --method magic", "--method"},
      {"compose --rule advanced --epsilon0 0.1 --k 10 --delta-slack 0", "--delta-slack"},
      {"compose --rule kov --epsilon0 -0.1 --k 10 --delta-slack 1e-6", "--epsilon0"},
  };
  for (const auto& [args, flag] : cases) {
    auto r = run(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_TRUE(r.out.empty()) << args << " -> " << r.out;
    EXPECT_EQ(lines(r.err), 1) << args << " -> " << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << " -> " << r.err;
  }
}

TEST_F(Cli, ErrorMessageNamesFlagOnceWithItsRealRange) {
  // main.cpp prefixes "dpx <command>: error: "; the message must not repeat it, and --delta0
  // must be reported as given (not negated) with its range [0, 1).
  auto c = run("compose --rule kov --epsilon0 0.1 --delta0 1 --k 3 --delta-slack 1e-6");
  EXPECT_EQ(c.status, 2);
  EXPECT_TRUE(c.out.empty()) << c.out;
  EXPECT_EQ(c.err, "dpx compose: error: --delta0 = 1 is invalid (must lie in [0, 1))\n");
  auto a = run(
      "account --mechanism gaussian --noise-multiplier -1 --steps 10 --delta 1e-5 --method rdp");
  EXPECT_EQ(a.status, 2);
  EXPECT_EQ(a.err.rfind("dpx account: error: --noise-multiplier = -1 is invalid", 0), 0u) << a.err;
  auto k = run("calibrate --mechanism gaussian --epsilon -2 --delta 1e-5 --method pld");
  EXPECT_EQ(k.status, 2);
  EXPECT_EQ(k.err.rfind("dpx calibrate: error: --epsilon = -2 is invalid", 0), 0u) << k.err;
}
