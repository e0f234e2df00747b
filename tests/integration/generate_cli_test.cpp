// `dpx generate` end to end (the real executable, docs/data.md "dpx generate"):
// * ar1 CSV: header `x`, exactly n rows of finite numbers, the same file for the same seed and a
//   different one for another seed; without --out the CSV goes to stdout;
// * ar1 --describe: the keys mean, variance, long_run_variance, autocorrelation (lags 1–5),
//   log_sobolev, against closed forms for φ = 0.9, σ = 1: variance 1/(1−φ²), long-run variance
//   σ²/(1−φ)² = 100, ρ(h) = φ^h, and log_sobolev = λ_max of the n×n AR(1) covariance, computed
//   here independently as 1/λ_min of its tridiagonal inverse (Sturm bisection);
// * panels in long format: random_effects `user,group,t,y` and block_toeplitz `user,t,x` with
//   n·T rows in user-major order;
// * bad input exits 2 with one line on stderr naming the parameter: --phi 1, an unknown model,
//   a parameter the model does not take.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;

using dpx::test::slurp;

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep)) out.push_back(item);
  return out;
}

// Number of eigenvalues < x of the symmetric tridiagonal (d, e) (Sturm sequence count).
std::size_t sturm_count(const std::vector<double>& d, const std::vector<double>& e, double x) {
  std::size_t c = 0;
  double q = d[0] - x;
  if (q < 0) ++c;
  for (std::size_t i = 1; i < d.size(); ++i) {
    if (q == 0.0) q = 1e-300;
    q = d[i] - x - e[i - 1] * e[i - 1] / q;
    if (q < 0) ++c;
  }
  return c;
}

// λ_max of the stationary AR(1) covariance Σ_ij = σ²φ^{|i−j|}/(1−φ²), n×n: Σ⁻¹ = σ⁻²·tridiag
// with diagonal (1, 1+φ², …, 1+φ², 1) and off-diagonal −φ (Gaussian Markov chain), so
// λ_max(Σ) = 1/λ_min(Σ⁻¹), found by bisection to full precision.
double ar1_lambda_max(double phi, double sigma, std::size_t n) {
  std::vector<double> d(n, (1.0 + phi * phi) / (sigma * sigma)), e(n - 1, -phi / (sigma * sigma));
  d.front() = d.back() = 1.0 / (sigma * sigma);
  double lo = 0.0, hi = (1.0 + std::abs(phi)) * (1.0 + std::abs(phi)) / (sigma * sigma);
  for (int it = 0; it < 200 && hi - lo > 1e-16 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (sturm_count(d, e, mid) >= 1 ? hi : lo) = mid;
  }
  return 1.0 / (0.5 * (lo + hi));
}

using result = dpx::test::outcome;

class DpxGenerate : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = dpx::test::fresh_test_dir("dpx_generate_"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  result run(const std::vector<std::string>& args) {
    std::vector<std::string> all{"generate"};
    all.insert(all.end(), args.begin(), args.end());
    return dpx::test::run_dpx(all, dir_);
  }

  // Exit 2, exactly one line on stderr, containing every needle.
  void expect_usage_error(const std::vector<std::string>& args,
                          const std::vector<std::string>& needles) {
    const auto r = run(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    for (const auto& s : needles) EXPECT_NE(r.err.find(s), std::string::npos) << s << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }

  fs::path dir_;
};

TEST_F(DpxGenerate, Ar1CsvHeaderRowsAndSeed) {
  const std::vector<std::string> base{"ar1", "--phi", "0.9", "--innovation-sd", "1", "--n", "2000"};
  auto with = [&](std::vector<std::string> extra) {
    auto a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const auto r = run(with({"--seed", "3", "--out", "a.csv"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string a = slurp(dir_ / "a.csv");
  const auto rows = lines_of(a);
  ASSERT_EQ(rows.size(), 2001u);
  EXPECT_EQ(rows[0], "x");
  double sum = 0.0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    std::size_t pos = 0;
    const double v = std::stod(rows[i], &pos);
    ASSERT_EQ(pos, rows[i].size()) << rows[i];
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
  }
  // Mean 0, n·Var(X̄) ≤ LRV = 100: |X̄| < 5·sqrt(100/2000) (z = 5, false-positive rate < 1e-6).
  EXPECT_LT(std::abs(sum / 2000.0), 5.0 * std::sqrt(100.0 / 2000.0));

  ASSERT_EQ(run(with({"--seed", "3", "--out", "b.csv"})).code, 0);
  EXPECT_EQ(slurp(dir_ / "b.csv"), a);
  ASSERT_EQ(run(with({"--seed", "4", "--out", "c.csv"})).code, 0);
  EXPECT_NE(slurp(dir_ / "c.csv"), a);
  const auto s = run(with({"--seed", "3"}));  // CSV to stdout
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(s.out, a);
}

TEST_F(DpxGenerate, Ar1DescribeMatchesClosedForms) {
  const std::size_t n = 1000;
  const auto r =
      run({"ar1", "--phi", "0.9", "--innovation-sd", "1", "--n", std::to_string(n), "--describe"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"], "ar1");
  EXPECT_EQ(j["n"], n);
  EXPECT_DOUBLE_EQ(j["parameters"]["phi"].get<double>(), 0.9);
  EXPECT_EQ(j["mean"].get<double>(), 0.0);
  EXPECT_NEAR(j["variance"].get<double>(), 1.0 / (1.0 - 0.81), 1e-12);
  EXPECT_NEAR(j["long_run_variance"].get<double>(), 100.0, 1e-10);
  ASSERT_EQ(j["autocorrelation"].size(), 5u);
  for (int h = 1; h <= 5; ++h)
    EXPECT_NEAR(j["autocorrelation"][h - 1].get<double>(), std::pow(0.9, h), 1e-14) << h;
  const double lmax = ar1_lambda_max(0.9, 1.0, n);
  EXPECT_GT(lmax, 99.0);  // approaches σ²/(1−φ)² = 100 from below
  EXPECT_LT(lmax, 100.0);
  EXPECT_NEAR(j["log_sobolev"].get<double>(), lmax, 1e-9 * lmax);
  EXPECT_NEAR(j["marginal_log_sobolev"].get<double>(), 1.0 / 0.19, 1e-12);
}

TEST_F(DpxGenerate, PanelsAreLongFormat) {
  {
    const auto r =
        run({"random_effects", "--groups", "3", "--times", "4", "--n", "7", "--out", "re.csv"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto rows = lines_of(slurp(dir_ / "re.csv"));
    ASSERT_EQ(rows.size(), 1u + 7u * 4u);
    EXPECT_EQ(rows[0], "user,group,t,y");
    for (std::size_t i = 1; i < rows.size(); ++i) {
      const auto f = split(rows[i], ',');
      ASSERT_EQ(f.size(), 4u) << rows[i];
      EXPECT_EQ(f[0], std::to_string((i - 1) / 4));
      EXPECT_EQ(f[2], std::to_string((i - 1) % 4));
      EXPECT_LT(std::stoul(f[1]), 3u);
    }
  }
  {
    const auto r =
        run({"block_toeplitz", "--times", "5", "--rho", "0.5", "--n", "3", "--out", "bt.csv"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto rows = lines_of(slurp(dir_ / "bt.csv"));
    ASSERT_EQ(rows.size(), 1u + 3u * 5u);
    EXPECT_EQ(rows[0], "user,t,x");
    EXPECT_EQ(rows.back().substr(0, 4), "2,4,");
  }
}

TEST_F(DpxGenerate, DescribeOfRegressionModels) {
  {
    const auto r =
        run({"nonparametric", "--noise-sd", "2", "--phi", "0.5", "--n", "50", "--describe"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_NEAR(j["variance"].get<double>(), 4.0, 1e-15);
    EXPECT_NEAR(j["autocorrelation"][2].get<double>(), 0.125, 1e-15);
  }
  {
    // Var(y_ut | X) = σ² + τ² (AR(1) error with marginal sd σ plus a random intercept τ).
    const auto r = run(
        {"longitudinal", "--sigma", "2", "--random-intercept-sd", "1.5", "--n", "4", "--describe"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NEAR(nlohmann::json::parse(r.out)["variance"].get<double>(), 4.0 + 2.25, 1e-14);
  }
  {
    const auto r = run({"sparse_logistic", "--labels", "01", "--n", "20", "--describe"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto par = nlohmann::json::parse(r.out)["parameters"];
    EXPECT_EQ(par["labels"], "01");
    EXPECT_FALSE(par.contains("noise_sd"));
  }
}

// Quantities that exist only in part: panel lags must be < T (null beyond), correlations need a
// finite variance (Student t with ν ≤ 2: null), the ERM λ's belong to the rows before scaling,
// and VAR(1) reports the per-coordinate constant next to the whole-vector one.
TEST_F(DpxGenerate, DescribeSaysWhatEachConstantIs) {
  {
    // Random effects, T = 3: corr(y_ut, y_u,t+h) = (σ_U² + σ²φ^h)/(σ_U² + σ²) for h = 1, 2.
    const auto r = run({"random_effects",
                        "--times",
                        "3",
                        "--sigma-u",
                        "1",
                        "--sigma",
                        "1",
                        "--phi",
                        "0.5",
                        "--n",
                        "10",
                        "--describe"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto ac = nlohmann::json::parse(r.out)["autocorrelation"];
    ASSERT_EQ(ac.size(), 5u);
    EXPECT_NEAR(ac[0].get<double>(), 0.75, 1e-15);
    EXPECT_NEAR(ac[1].get<double>(), 0.625, 1e-15);
    for (std::size_t h = 2; h < 5; ++h) EXPECT_TRUE(ac[h].is_null()) << h;
  }
  {
    const auto r =
        run({"block_toeplitz", "--times", "2", "--rho", "0.5", "--n", "3", "--describe"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto ac = nlohmann::json::parse(r.out)["autocorrelation"];
    EXPECT_NEAR(ac[0].get<double>(), 0.5, 1e-15);
    for (std::size_t h = 1; h < 5; ++h) EXPECT_TRUE(ac[h].is_null()) << h;
  }
  for (const std::vector<std::string>& m :
       {std::vector<std::string>{"student_t", "--nu", "2"},
        std::vector<std::string>{"ar1_t", "--nu", "1.5", "--phi", "0.5"}}) {
    std::vector<std::string> args = m;
    args.insert(args.end(), {"--n", "10", "--describe"});
    const auto r = run(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["variance"], "inf") << m[0];
    for (const auto& v : j["autocorrelation"]) EXPECT_TRUE(v.is_null()) << m[0];
  }
  {
    const auto none = nlohmann::json::parse(run({"sparse_linear", "--n", "50", "--describe"}).out);
    EXPECT_EQ(none["feature_covariance"], "r^|j-k|");
    const auto clip = nlohmann::json::parse(
        run({"sparse_linear", "--scaling", "clip", "--n", "50", "--describe"}).out);
    EXPECT_EQ(clip["feature_covariance"], "r^|j-k| (rows before scaling)");
  }
  {
    // Default VAR(1), n = 20: the whole 2n-vector's λ_max bounds the per-coordinate one from
    // above and by at most d = 2 times it.
    const auto j = nlohmann::json::parse(run({"var1", "--n", "20", "--describe"}).out);
    const double whole = j["log_sobolev"].get<double>(), coord = j["coordinate_log_sobolev"];
    EXPECT_GE(whole, coord);
    EXPECT_LE(whole, 2.0 * coord);
    EXPECT_GE(coord, j["marginal_log_sobolev"].get<double>());
  }
}

TEST_F(DpxGenerate, BadParametersExitTwoNamingThem) {
  expect_usage_error({"ar1", "--phi", "1", "--n", "10"}, {"phi", "1"});
  expect_usage_error({"ar1", "--phi", "-1.5", "--n", "10", "--describe"}, {"phi"});
  expect_usage_error({"no_such_model", "--n", "10"}, {"model", "no_such_model"});
  expect_usage_error({"ar1", "--rho", "0.5", "--n", "10"}, {"--rho"});
  expect_usage_error({"toeplitz", "--rho", "0.5", "--n", "0"}, {"--n"});
}

// Issue 17: a negative or overflowing --n is a usage error naming --n (was
// std::bad_array_new_length, exit 1); an empty --out is an error (was: stdout); a scale whose
// draws overflow is refused before anything is written (was: every value inf, exit 0); empty and
// negative values of every other flag are refused.
TEST_F(DpxGenerate, HostileValuesExitTwoNamingTheFlag) {
  expect_usage_error({"ar1", "--n", "-1"}, {"--n"});
  expect_usage_error({"ar1", "--n", "99999999999999999999"}, {"--n"});
  expect_usage_error({"ar1", "--n", "10000000000"}, {"--n"});
  expect_usage_error({"ar1", "--n", ""}, {"--n"});
  expect_usage_error({"ar1", "--n", "10", "--out", ""}, {"--out"});
  expect_usage_error({"ar1", "--n", "10", "--seed", "-1"}, {"--seed"});
  expect_usage_error({"ar1", "--n", "10", "--seed", ""}, {"--seed"});
  expect_usage_error({"ar1", "--n", "10", "--innovation-sd", "1e308"}, {"--innovation-sd"});
  expect_usage_error({"ar1", "--n", "10", "--phi", ""}, {"--phi"});
  expect_usage_error({"arp", "--n", "10", "--phi", ","}, {"--phi"});
  expect_usage_error({"block_toeplitz", "--n", "10", "--times", "-3"}, {"--times"});
  EXPECT_FALSE(fs::exists(dir_ / "x.csv"));
  expect_usage_error({"ar1", "--n", "10", "--mu", "inf", "--out", (dir_ / "x.csv").string()},
                     {"--mu"});
  EXPECT_FALSE(fs::exists(dir_ / "x.csv"));
}

// Issue 21: `generate --help` lists every model's parameters with defaults and ranges (phi's
// default 0.5 is visible), `generate MODEL --help` that model's only.
TEST_F(DpxGenerate, HelpListsParametersDefaultsAndRanges) {
  const auto all = run({"--help"});
  EXPECT_EQ(all.code, 0) << all.err;
  for (const char* needle : {"iid_gaussian:",
                             "sparse_logistic:",
                             "--phi (default 0.5; (-1, 1))",
                             "--hurst (default 0.75; (0, 1))",
                             "--sigma-e (default <identity"})
    EXPECT_NE(all.out.find(needle), std::string::npos) << needle << "\n" << all.out;
  const auto one = run({"ar1", "--help"});
  EXPECT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("Parameters of model ar1"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("--innovation-sd (default 1; (0, 1e+150])"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("--hurst"), std::string::npos) << one.out;
}

}  // namespace
