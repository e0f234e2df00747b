// Properties checked (the real `dpx sample` executable, issue 3 §9):
// - `--describe` prints one JSON object with the documented keys for every mechanism, and the
//   calibrated values are right: Laplace b = Delta/epsilon, classical Gaussian sigma =
//   Delta sqrt(2 ln(1.25/delta))/epsilon (Dwork & Roth Thm. A.1), analytic Gaussian sigma for
//   (1, 1e-5) against a 50-digit mpmath reference (1e-10 relative), randomized response
//   p = e^eps / (e^eps + k - 1);
// - `--count N` prints exactly N lines; every line parses completely and re-prints to the same
//   text by the shortest round-trip form (so no precision is lost); a fixed --seed reproduces
//   the output byte for byte; float-safe draws are integer multiples of the described grid,
//   discrete draws are integers;
// - bad input (non-positive / NaN epsilon, delta outside (0, 1), negative count, unknown
//   mechanism, --float-safe with a discrete mechanism or randomized response, --calibration
//   with laplace or with --sigma, --categories outside randomized response, ...) exits 2 with
//   exactly one line on stderr that names the offending flag or parameter, and nothing on
//   stdout.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;

using dpx::test::outcome;

/// Runs `dpx sample <args>` (fork/exec, stdout and stderr captured through files).
outcome sample(const std::vector<std::string>& args) {
  const fs::path dir = dpx::test::fresh_test_dir("dpx_sample_cli_");
  std::vector<std::string> all{"sample"};
  all.insert(all.end(), args.begin(), args.end());
  auto r = dpx::test::run_dpx(all, dir);
  fs::remove_all(dir);
  return r;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

nlohmann::ordered_json describe(const std::vector<std::string>& args) {
  auto a = args;
  a.push_back("--describe");
  const auto r = sample(a);
  EXPECT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::ordered_json::parse(r.out);
  // docs/cli-schema.json: schema_version first (checked there); the keys below are the rest.
  EXPECT_EQ(j.begin().key(), "schema_version");
  j.erase("schema_version");
  return j;
}

std::vector<std::string> keys(const nlohmann::ordered_json& j) {
  std::vector<std::string> k;
  for (auto it = j.begin(); it != j.end(); ++it) k.push_back(it.key());
  return k;
}

using strings = std::vector<std::string>;

TEST(SampleCli, DescribeKeysAndValues) {
  const auto lap = describe({"--mechanism", "laplace", "--epsilon", "0.5", "--sensitivity", "2"});
  EXPECT_EQ(keys(lap),
            (strings{"mechanism", "scale", "epsilon", "sensitivity", "float_safe", "seeded"}));
  EXPECT_EQ(lap["mechanism"], "laplace");
  EXPECT_EQ(lap["scale"].get<double>(), 4.0);
  EXPECT_EQ(lap["float_safe"], false);
  EXPECT_EQ(lap["seeded"], false);

  const auto fsl = describe({"--mechanism", "laplace", "--scale", "3", "--float-safe"});
  EXPECT_EQ(keys(fsl),
            (strings{"mechanism",
                     "scale",
                     "epsilon",
                     "sensitivity",
                     "float_safe",
                     "granularity",
                     "requested_scale",
                     "seeded"}));
  EXPECT_EQ(fsl["float_safe"], true);
  EXPECT_GE(fsl["scale"].get<double>(), 3.0);  // rounded up, never below the request
  const double lam = fsl["granularity"].get<double>();
  EXPECT_EQ(lam, std::exp2(std::round(std::log2(lam))));  // a power of two

  const auto cls = describe({"--mechanism",
                             "gaussian",
                             "--epsilon",
                             "0.5",
                             "--delta",
                             "1e-5",
                             "--calibration",
                             "classical"});
  EXPECT_EQ(keys(cls),
            (strings{"mechanism",
                     "calibration",
                     "epsilon",
                     "delta",
                     "sigma",
                     "sensitivity",
                     "noise_multiplier",
                     "float_safe",
                     "seeded"}));
  // Rounded up by a few ulps (safe side, docs/accounting.md "Safe side"), never below.
  const double classical = std::sqrt(2.0 * std::log(1.25 / 1e-5)) / 0.5;
  EXPECT_GE(cls["sigma"].get<double>(), classical);
  EXPECT_NEAR(cls["sigma"].get<double>(), classical, 1e-14 * classical);

  const auto ana = describe({"--mechanism", "gaussian", "--epsilon", "1", "--delta", "1e-5"});
  EXPECT_EQ(ana["calibration"], "analytic");  // the default
  // mpmath, 50 digits: Balle & Wang 2018 Thm. 8 with equality at (1, 1e-5), Delta = 1.
  EXPECT_NEAR(ana["sigma"].get<double>() / 3.730631634815941832249823, 1.0, 1e-10);

  const auto fsg = describe({"--mechanism", "gaussian", "--sigma", "2", "--float-safe"});
  EXPECT_EQ(keys(fsg),
            (strings{"mechanism",
                     "sigma",
                     "sensitivity",
                     "noise_multiplier",
                     "float_safe",
                     "granularity",
                     "rho",
                     "seeded"}));
  EXPECT_DOUBLE_EQ(fsg["rho"].get<double>(), 1.0 / 8.0);  // Delta^2 / (2 sigma^2)

  // Calibrated by (epsilon, delta): the float-safe release is only proven rho-zCDP, so the
  // printed epsilon is what rho gives at delta — above the continuous target 1 (the analytic
  // curve is exact for the continuous Gaussian, any zCDP conversion is an upper bound on it) and
  // at most Bun & Steinke's rho + 2 sqrt(rho ln(1/delta)) — and the target is kept apart.
  const auto fse =
      describe({"--mechanism", "gaussian", "--epsilon", "1", "--delta", "1e-5", "--float-safe"});
  const double rho = fse["rho"].get<double>();
  const double m = fse["noise_multiplier"].get<double>();
  EXPECT_NEAR(rho, 1.0 / (2.0 * m * m), 1e-15);
  EXPECT_DOUBLE_EQ(fse["epsilon_calibrated"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(fse["delta"].get<double>(), 1e-5);
  const double eps = fse["epsilon"].get<double>();
  EXPECT_GT(eps, 1.0);
  EXPECT_LE(eps, rho + 2.0 * std::sqrt(rho * std::log(1e5)));

  const auto dl = describe({"--mechanism", "discrete_laplace", "--scale", "2.5"});
  EXPECT_EQ(keys(dl),
            (strings{"mechanism",
                     "scale",
                     "scale_rational",
                     "epsilon",
                     "sensitivity",
                     "float_safe",
                     "seeded"}));
  const auto dg = describe({"--mechanism", "discrete_gaussian", "--sigma", "10"});
  EXPECT_EQ(
      keys(dg),
      (strings{
          "mechanism", "sigma", "sigma2_rational", "sensitivity", "rho", "float_safe", "seeded"}));
  EXPECT_EQ(dg["sigma2_rational"], nlohmann::ordered_json::array({100, 1}));

  const auto rr = describe(
      {"--mechanism", "randomized_response", "--epsilon", "1", "--categories", "4", "--seed", "3"});
  EXPECT_EQ(keys(rr),
            (strings{"mechanism",
                     "epsilon",
                     "categories",
                     "truth_probability",
                     "other_probability",
                     "seeded"}));
  EXPECT_NEAR(rr["truth_probability"].get<double>(), std::exp(1.0) / (std::exp(1.0) + 3.0), 1e-15);
  EXPECT_EQ(rr["seeded"], true);
}

// Every line is a complete number whose shortest round-trip rendering is the line itself.
void expect_round_trip_lines(const std::string& text, std::size_t n, double grid = 0.0) {
  const auto ls = lines(text);
  ASSERT_EQ(ls.size(), n);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  for (const auto& l : ls) {
    double x = 0.0;
    const auto r = std::from_chars(l.data(), l.data() + l.size(), x);
    ASSERT_EQ(r.ec, std::errc{}) << l;
    ASSERT_EQ(r.ptr, l.data() + l.size()) << l;
    ASSERT_TRUE(std::isfinite(x)) << l;
    char buf[64];
    const auto w = std::to_chars(buf, buf + sizeof buf, x);
    ASSERT_EQ(std::string(buf, w.ptr), l);
    if (grid > 0.0) {
      ASSERT_EQ(x / grid, std::nearbyint(x / grid)) << l;
    }
  }
}

TEST(SampleCli, CountLinesRoundTripAndSeed) {
  const strings lap = {
      "--mechanism", "laplace", "--scale", "1.7", "--count", "5000", "--seed", "11"};
  const auto a = sample(lap);
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.err, dpx::test::seeded_warning("sample"));  // seeded draws are never silent
  expect_round_trip_lines(a.out, 5000);
  EXPECT_EQ(sample(lap).out, a.out);  // same seed, same bytes
  auto other = lap;
  other.back() = "12";
  EXPECT_NE(sample(other).out, a.out);

  const auto g = sample({"--mechanism", "gaussian", "--sigma", "0.3", "--count", "4097"});
  ASSERT_EQ(g.code, 0) << g.err;  // odd count across the 4096 chunk; the CSPRNG
  EXPECT_TRUE(g.err.empty()) << g.err;
  expect_round_trip_lines(g.out, 4097);

  const double lam =
      describe({"--mechanism", "gaussian", "--sigma", "2", "--float-safe"})["granularity"]
          .get<double>();
  const auto fs = sample({"--mechanism",
                          "gaussian",
                          "--sigma",
                          "2",
                          "--float-safe",
                          "--count",
                          "3000",
                          "--seed",
                          "5"});
  ASSERT_EQ(fs.code, 0) << fs.err;
  expect_round_trip_lines(fs.out, 3000, lam);

  const auto z = sample(
      {"--mechanism", "discrete_gaussian", "--sigma", "10", "--count", "2000", "--seed", "5"});
  ASSERT_EQ(z.code, 0) << z.err;
  expect_round_trip_lines(z.out, 2000, 1.0);  // integers

  const auto rr = sample({"--mechanism",
                          "randomized_response",
                          "--epsilon",
                          "1",
                          "--categories",
                          "3",
                          "--count",
                          "1000",
                          "--seed",
                          "5"});
  ASSERT_EQ(rr.code, 0) << rr.err;
  for (const auto& l : lines(rr.out)) EXPECT_TRUE(l == "0" || l == "1" || l == "2") << l;
  EXPECT_EQ(lines(rr.out).size(), 1000u);

  const auto none = sample({"--mechanism", "laplace", "--scale", "1", "--count", "0"});
  EXPECT_EQ(none.code, 0);
  EXPECT_TRUE(none.out.empty());
}

TEST(SampleCli, BadInputExitsTwoWithOneLineNamingTheFlag) {
  struct bad {
    strings args;
    std::string names;  // must appear in the error line
  };
  const std::vector<bad> cases = {
      {{"--mechanism", "laplace", "--epsilon", "0", "--count", "3"}, "epsilon"},
      {{"--mechanism", "laplace", "--epsilon", "nan", "--count", "3"}, "epsilon"},
      {{"--mechanism", "laplace", "--epsilon", "-1", "--count", "3"}, "epsilon"},
      {{"--mechanism", "laplace", "--scale", "1", "--sensitivity", "0", "--count", "3"},
       "sensitivity"},
      {{"--mechanism", "gaussian", "--epsilon", "1", "--delta", "1.5", "--count", "3"}, "delta"},
      {{"--mechanism", "gaussian", "--epsilon", "1", "--delta", "0", "--count", "3"}, "delta"},
      {{"--mechanism", "gaussian", "--epsilon", "1", "--count", "3"}, "--delta"},
      {{"--mechanism",
        "gaussian",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
        "--calibration",
        "classical",
        "--count",
        "3"},
       "epsilon"},  // classical needs epsilon < 1
      {{"--mechanism",
        "gaussian",
        "--epsilon",
        "0.5",
        "--delta",
        "1e-5",
        "--calibration",
        "tight",
        "--count",
        "3"},
       "--calibration"},
      {{"--mechanism", "laplace", "--scale", "1", "--count", "-1"}, "--count"},
      {{"--mechanism", "laplace", "--scale", "1"}, "--count"},
      {{"--mechanism", "cauchy", "--scale", "1", "--count", "3"}, "--mechanism"},
      {{"--mechanism", "laplace", "--scale", "1", "--sigma", "1", "--count", "3"}, "--sigma"},
      {{"--mechanism", "laplace", "--scale", "1", "--count", "3", "--bogus"}, "--bogus"},
      // Flags that do not apply are errors, never silently ignored.
      {{"--mechanism", "discrete_laplace", "--scale", "2", "--float-safe", "--count", "3"},
       "--float-safe"},
      {{"--mechanism", "discrete_gaussian", "--sigma", "2", "--float-safe", "--count", "3"},
       "--float-safe"},
      {{"--mechanism", "randomized_response", "--epsilon", "1", "--float-safe", "--count", "3"},
       "--float-safe"},
      {{"--mechanism", "laplace", "--epsilon", "1", "--calibration", "classical", "--count", "3"},
       "--calibration"},
      {{"--mechanism", "laplace", "--epsilon", "1", "--calibration", "analytic", "--describe"},
       "--calibration"},
      {{"--mechanism", "gaussian", "--sigma", "1", "--calibration", "analytic", "--count", "3"},
       "--calibration"},
      {{"--mechanism",
        "discrete_gaussian",
        "--sigma",
        "1",
        "--calibration",
        "analytic",
        "--count",
        "3"},
       "--calibration"},
      {{"--mechanism", "laplace", "--scale", "1", "--categories", "3", "--count", "3"},
       "--categories"},
      {{"--mechanism",
        "randomized_response",
        "--epsilon",
        "1",
        "--categories",
        "1",
        "--count",
        "3"},
       "categories"},
  };
  for (const auto& c : cases) {
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    const auto r = sample(c.args);
    EXPECT_EQ(r.code, 2) << joined;
    EXPECT_TRUE(r.out.empty()) << joined << "\n" << r.out;
    ASSERT_FALSE(r.err.empty()) << joined;
    EXPECT_EQ(r.err.back(), '\n') << joined;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << joined << "\n" << r.err;
    EXPECT_NE(r.err.find(c.names), std::string::npos) << joined << "\n" << r.err;
  }
}

}  // namespace
