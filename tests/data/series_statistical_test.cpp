// Statistical checks of the dpx::data samplers (fixed seeds, so deterministic; tolerances from
// the CLT). Every check compares an estimate with the model's *independently known* value using
// |estimate − truth| ≤ z·se with z = 5 (two-sided false-positive rate 5.7e-7 per check under the
// normal approximation; with < 120 checks in this file the family-wise rate is < 1e-4).
// Properties:
// * N(0,1), Student t, gamma/beta samplers: KS distance to the Boost.Math CDF below the
//   α = 1e-6 critical value; the same test rejects N(0, 1.1²) (power);
// * AR(1), φ = 0.9: sample mean, variance, autocorrelations at lags 1–5 (Bartlett standard
//   errors) and n·Var(X̄) over replications match theory; the same battery rejects data drawn
//   with φ = 0.85 (power);
// * stationary starts (AR(1), AR(2), ARMA(1,1), VAR(1), AR(1)-t): over many replications the
//   first values have mean μ (no drift) and the stationary variance and lag-1 covariance;
//   a start at the mean (stationary_start = false) is rejected (power);
// * circulant embedding: its samples match Cholesky samples in distribution (two-sample
//   variance and KS tests on linear functionals) and the target covariance entrywise; fGn
//   n·Var(X̄) = n^{2H−1};
// * equicorrelated, random-effects and block-Toeplitz panels: Var(X̄), Var(μ̂_u) as predicted;
// * iid baselines (t, uniform, beta): mean and variance.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <functional>
#include <numeric>
#include <string>

#include "dpx/data/data.hpp"
#include "test_util.hpp"

using namespace dpx::data;
using dpx::data::test::sample_mean;
using dpx::data::test::sample_variance;

namespace {
constexpr double z = 5.0;

// Kolmogorov–Smirnov distance of a sample to a CDF.
double ks_distance(std::vector<double> x, const std::function<double(double)>& cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, (i + 1) / n - f, f - i / n});
  }
  return d;
}
// α = 1e-6 asymptotic KS critical value sqrt(ln(2/α)/(2n)).
double ks_critical(std::size_t n) { return std::sqrt(std::log(2e6) / (2.0 * double(n))); }

double two_sample_ks(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::size_t i = 0, j = 0;
  double d = 0.0;
  while (i < a.size() && j < b.size()) {
    const double v = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= v) ++i;
    while (j < b.size() && b[j] <= v) ++j;
    d = std::max(d, std::abs(double(i) / a.size() - double(j) / b.size()));
  }
  return d;
}

// Checks a long AR(1)-type path against (mean, γ(0), ρ(h) = φ^h) with Bartlett standard errors.
// Returns the number of failed checks (0 = consistent).
int ar1_battery(
    const std::vector<double>& x, double mu, double phi, double gamma0, std::string* why) {
  const double n = static_cast<double>(x.size());
  int fails = 0;
  auto check = [&](bool ok, const std::string& what) {
    if (!ok) {
      ++fails;
      if (why) *why += what + "; ";
    }
  };
  const double m = sample_mean(x);
  const double lrv = gamma0 * (1 + phi) / (1 - phi);
  check(std::abs(m - mu) <= z * std::sqrt(lrv / n), "mean");
  double c0 = 0.0;
  for (double v : x) c0 += (v - m) * (v - m);
  c0 /= n;
  // Var(γ̂0) ≈ (2/n) Σ_h γ(h)² = (2/n) γ0² (1+φ²)/(1−φ²).
  check(
      std::abs(c0 - gamma0) <= z * gamma0 * std::sqrt(2 * (1 + phi * phi) / ((1 - phi * phi) * n)),
      "variance");
  for (std::size_t h = 1; h <= 5; ++h) {
    double ch = 0.0;
    for (std::size_t t = 0; t + h < x.size(); ++t) ch += (x[t] - m) * (x[t + h] - m);
    const double r = ch / n / c0;
    // Bartlett: Var ρ̂(h) ≈ (1/n)[(1+φ²)(1−φ^{2h})/(1−φ²) − 2hφ^{2h}].
    const double p2h = std::pow(phi, 2.0 * h);
    const double var = ((1 + phi * phi) * (1 - p2h) / (1 - phi * phi) - 2.0 * h * p2h) / n;
    // Bias of the standard estimator is O(1/n): include 1/n·h slack.
    check(std::abs(r - std::pow(phi, double(h))) <= z * std::sqrt(var) + (h + 1) / n,
          "rho(" + std::to_string(h) + ")");
  }
  return fails;
}
}  // namespace

TEST(Statistical, NormalStudentBetaSamplersKs) {
  auto g = dpx::rng::stream(1, 2, 0, dpx::rng::purpose::data);
  const std::size_t n = 200000;
  std::vector<double> x(n);
  fill_standard_normal(g, x);
  boost::math::normal_distribution<> nd;
  EXPECT_LT(ks_distance(x, [&](double v) { return cdf(nd, v); }), ks_critical(n));
  // Power: a 10% scale error is rejected.
  std::vector<double> y = x;
  for (double& v : y) v *= 1.1;
  EXPECT_GT(ks_distance(y, [&](double v) { return cdf(nd, v); }), ks_critical(n));
  // Scalar path.
  std::vector<double> s(50000);
  for (double& v : s) v = standard_normal(g);
  EXPECT_LT(ks_distance(s, [&](double v) { return cdf(nd, v); }), ks_critical(s.size()));
  for (double nu : {1.0, 3.0, 30.0}) {
    std::vector<double> t(50000);
    for (double& v : t) v = student_t(g, nu);
    boost::math::students_t_distribution<> td(nu);
    EXPECT_LT(ks_distance(t, [&](double v) { return cdf(td, v); }), ks_critical(t.size())) << nu;
  }
  for (auto [a, b] : {std::pair{2.0, 5.0}, std::pair{0.5, 0.5}, std::pair{1.0, 1.0}}) {
    std::vector<double> t(50000);
    for (double& v : t) v = beta(g, a, b);
    boost::math::beta_distribution<> bd(a, b);
    EXPECT_LT(ks_distance(t, [&](double v) { return cdf(bd, v); }), ks_critical(t.size()))
        << a << "," << b;
  }
}

TEST(Statistical, Ar1MomentsAndPower) {
  const std::size_t n = 1 << 20;
  const double phi = 0.9, mu = 2.0, sd = 1.0;
  ar1 m({phi, mu, sd});
  auto g = dpx::rng::stream(3, 1, 0, dpx::rng::purpose::data);
  const auto x = m.sample(n, g);
  std::vector<double> v(x.begin(), x.end());
  std::string why;
  EXPECT_EQ(ar1_battery(v, mu, phi, m.variance(), &why), 0) << why;
  // Power: φ = 0.85 data (same σ_e) fails the φ = 0.9 battery.
  ar1 wrong({0.85, mu, sd});
  const auto w = wrong.sample(n, g);
  std::vector<double> wv(w.begin(), w.end());
  EXPECT_GE(ar1_battery(wv, mu, phi, m.variance(), nullptr), 3);
  // Even with the variance matched (σ_e rescaled so γ(0) agrees) the autocorrelations reject.
  ar1 wrong2({0.85, mu, std::sqrt(m.variance() * (1 - 0.85 * 0.85))});
  const auto w2 = wrong2.sample(n, g);
  std::vector<double> wv2(w2.begin(), w2.end());
  EXPECT_GE(ar1_battery(wv2, mu, phi, m.variance(), nullptr), 3);
}

TEST(Statistical, Ar1LongRunVarianceOverReplications) {
  // n·Var(X̄) over R independent paths: the sample variance of R means has relative sd
  // sqrt(2/(R−1)) (chi-square); compare with the exact 1ᵀΓ1/n (= 98.2 at φ = 0.9, n = 2000).
  const std::size_t n = 2000, reps = 2000;
  auto battery = [&](double phi_data) {
    ar1 m({phi_data, 0.0, 1.0});
    auto g = dpx::rng::stream(4, 7, 0, dpx::rng::purpose::data);
    std::vector<double> path(n), means(reps);
    for (std::size_t r = 0; r < reps; ++r) {
      m.sample_into(path, g);
      means[r] = sample_mean(path);
    }
    return double(n) * sample_variance(means);
  };
  ar1 truth({0.9, 0.0, 1.0});
  const double target = truth.mean_variance_constant(n);
  const double tol = z * target * std::sqrt(2.0 / (reps - 1));
  EXPECT_NEAR(battery(0.9), target, tol);
  EXPECT_NEAR(target, truth.long_run_variance(), 0.02 * truth.long_run_variance());
  EXPECT_GT(std::abs(battery(0.85) - target), tol);  // power
}

namespace {
// Over R replications of short paths: mean of x_t is μ and Var(x_t), Cov(x_0, x_1) are γ(0),
// γ(1). Returns number of failures.
template <class Draw>
int start_battery(Draw draw, std::size_t reps, double mu, double g0, double g1) {
  std::vector<double> x0(reps), x1(reps), x4(reps);
  for (std::size_t r = 0; r < reps; ++r) {
    const std::vector<double> p = draw();
    x0[r] = p[0];
    x1[r] = p[1];
    x4[r] = p[4];
  }
  int fails = 0;
  const double R = double(reps);
  for (const auto* v : {&x0, &x1, &x4}) {
    if (std::abs(sample_mean(*v) - mu) > z * std::sqrt(g0 / R)) ++fails;
    if (std::abs(sample_variance(*v) - g0) > z * g0 * std::sqrt(2.0 / (R - 1))) ++fails;
  }
  double c = 0.0;
  const double m0 = sample_mean(x0), m1 = sample_mean(x1);
  for (std::size_t r = 0; r < reps; ++r) c += (x0[r] - m0) * (x1[r] - m1);
  c /= R - 1;
  if (std::abs(c - g1) > z * std::sqrt((g0 * g0 + g1 * g1) / R)) ++fails;
  return fails;
}
}  // namespace

TEST(Statistical, StationaryStarts) {
  const std::size_t reps = 40000;
  auto g = dpx::rng::stream(5, 1, 0, dpx::rng::purpose::data);
  {
    ar1 m({0.95, 3.0, 0.5});
    auto draw = [&] {
      auto x = m.sample(6, g);
      return std::vector<double>(x.begin(), x.end());
    };
    EXPECT_EQ(start_battery(draw, reps, 3.0, m.variance(), m.autocovariance(1)), 0);
    ar1_options bad{0.95, 3.0, 0.5, false};  // started at the mean: not stationary
    ar1 mb(bad);
    auto drawb = [&] {
      auto x = mb.sample(6, g);
      return std::vector<double>(x.begin(), x.end());
    };
    EXPECT_GE(start_battery(drawb, reps, 3.0, m.variance(), m.autocovariance(1)), 3);
  }
  {
    arma m({{1.2, -0.5}, {}, -1.0, 1.0});
    auto draw = [&] {
      auto x = m.sample(6, g);
      return std::vector<double>(x.begin(), x.end());
    };
    EXPECT_EQ(start_battery(draw, reps, -1.0, m.variance(), m.autocovariance(1)), 0);
  }
  {
    arma m({{0.7}, {0.6}, 0.5, 2.0});
    auto draw = [&] {
      auto x = m.sample(6, g);
      return std::vector<double>(x.begin(), x.end());
    };
    EXPECT_EQ(start_battery(draw, reps, 0.5, m.variance(), m.autocovariance(1)), 0);
  }
  {
    arma m = arma::ma({0.8, 0.4, -0.3}, 1.0, 0.0);
    auto draw = [&] {
      auto x = m.sample(6, g);
      return std::vector<double>(x.begin(), x.end());
    };
    EXPECT_EQ(start_battery(draw, reps, 0.0, m.variance(), m.autocovariance(1)), 0);
  }
  {
    var1_options o;
    o.a = xt::zeros<double>({2, 2});
    o.sigma_e = xt::zeros<double>({2, 2});
    o.a(0, 0) = 0.8;
    o.a(0, 1) = 0.3;
    o.a(1, 0) = -0.2;
    o.a(1, 1) = 0.5;
    o.sigma_e(0, 0) = 1.0;
    o.sigma_e(1, 1) = 2.0;
    o.sigma_e(0, 1) = o.sigma_e(1, 0) = 0.4;
    o.mu = {1.0, -2.0};
    var1 v(o);
    const auto g0 = v.stationary_covariance();
    const auto g1 = v.autocovariance(1);
    for (std::size_t c = 0; c < 2; ++c) {
      auto draw = [&] {
        auto x = v.sample(6, g);
        std::vector<double> p(6);
        for (std::size_t t = 0; t < 6; ++t) p[t] = x(t, c);
        return p;
      };
      EXPECT_EQ(start_battery(draw, reps, o.mu[c], g0(c, c), g1(c, c)), 0) << c;
    }
  }
  {
    ar1_t m({0.8, 1.0, 1.0, 8.0});
    // Variance of a t-driven variance estimate: kurtosis enlarges it; use R·(κ−1) with the
    // stationary kurtosis bounded by the innovation kurtosis 3 + 6/(ν−4) = 4.5: se² ≤ 3.5 g0²/R.
    std::vector<double> x0(reps);
    for (auto& v : x0) v = m.sample(1, g)(0);
    EXPECT_NEAR(sample_mean(x0), 1.0, z * std::sqrt(m.variance() / reps));
    EXPECT_NEAR(sample_variance(x0), m.variance(), z * m.variance() * std::sqrt(3.5 / reps));
  }
}

TEST(Statistical, CirculantMatchesCholeskyAndTarget) {
  const std::size_t n = 16, reps = 20000;
  std::vector<double> acvf(n);
  for (std::size_t k = 0; k < n; ++k) acvf[k] = fgn_autocovariance(k, 0.8, 1.0);
  stationary_gaussian circ(acvf);
  ASSERT_EQ(circ.method(), sampling_method::circulant);
  stationary_gaussian_options co;
  co.method = sampling_method::cholesky;
  stationary_gaussian chol(acvf, co);
  ASSERT_EQ(chol.method(), sampling_method::cholesky);
  auto g = dpx::rng::stream(6, 1, 0, dpx::rng::purpose::data);
  std::vector<double> sc(reps), sh(reps), dc(reps), dh(reps);
  std::vector<double> cov(n * n, 0.0);
  for (std::size_t r = 0; r < reps; ++r) {
    const auto a = circ.sample(g), b = chol.sample(g);
    double s1 = 0, s2 = 0;
    for (std::size_t i = 0; i < n; ++i) s1 += a(i), s2 += b(i);
    sc[r] = s1;
    sh[r] = s2;
    dc[r] = a(0) - a(n - 1);
    dh[r] = b(0) - b(n - 1);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) cov[i * n + j] += a(i) * a(j);
  }
  const double R = reps;
  // Two-sample variance test: log(s1²/s2²) has sd ≈ sqrt(2/R + 2/R).
  EXPECT_LT(std::abs(std::log(sample_variance(sc) / sample_variance(sh))), z * std::sqrt(4.0 / R));
  EXPECT_LT(std::abs(std::log(sample_variance(dc) / sample_variance(dh))), z * std::sqrt(4.0 / R));
  // Two-sample KS at α = 1e-6: c(α)·sqrt(2/R).
  EXPECT_LT(two_sample_ks(sc, sh), std::sqrt(std::log(2e6) / 2.0) * std::sqrt(2.0 / R));
  // Var of the sum equals 1ᵀΓ1 = n^{2H} (fGn self-similarity).
  EXPECT_NEAR(sample_variance(sc),
              std::pow(double(n), 1.6),
              z * std::pow(double(n), 1.6) * std::sqrt(2.0 / R));
  // Entrywise covariance (mean 0): se(Ĉ_ij) = sqrt((C_ii C_jj + C_ij²)/R).
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double c = acvf[i > j ? i - j : j - i];
      EXPECT_NEAR(cov[i * n + j] / R, c, z * std::sqrt((1.0 + c * c) / R)) << i << "," << j;
    }
}

TEST(Statistical, FgnAndEquicorrelatedMeanVariance) {
  auto g = dpx::rng::stream(7, 1, 0, dpx::rng::purpose::data);
  const std::size_t reps = 4000;
  {
    const std::size_t n = 1000;
    fgn f(n, {0.75, 1.0, 0.0});
    std::vector<double> means(reps);
    for (auto& m : means) {
      const auto x = f.sample(g);
      m = std::accumulate(x.begin(), x.end(), 0.0) / n;
    }
    const double target = f.mean_variance_constant();
    EXPECT_NEAR(std::pow(double(n), 0.5), target, 1e-9 * target);
    EXPECT_NEAR(n * sample_variance(means), target, z * target * std::sqrt(2.0 / (reps - 1)));
  }
  {
    const std::size_t n = 200;
    equicorrelated e({0.25, 2.0, 1.0});
    std::vector<double> means(reps);
    for (auto& m : means) {
      const auto x = e.sample(n, g);
      m = std::accumulate(x.begin(), x.end(), 0.0) / n;
    }
    const double target = e.mean_variance_constant(n);
    EXPECT_NEAR(n * sample_variance(means), target, z * target * std::sqrt(2.0 / (reps - 1)));
    EXPECT_NEAR(sample_mean(means), 1.0, z * std::sqrt(target / n / reps));
  }
}

TEST(Statistical, PanelsUserMeansAndGrandMean) {
  auto g = dpx::rng::stream(8, 1, 0, dpx::rng::purpose::data);
  const std::size_t reps = 3000;
  random_effects_options o;
  o.group_sizes = {5, 3, 2};
  o.times = 20;
  o.mu = 4.0;
  o.sigma_u = 0.8;
  o.sigma = 1.5;
  o.phi = 0.7;
  random_effects re(o);
  std::vector<double> grand(reps), first_user(reps), x0(reps);
  for (std::size_t r = 0; r < reps; ++r) {
    const panel y = re.sample(g);
    const auto m = y.user_means();
    first_user[r] = m[0];
    grand[r] = std::accumulate(m.begin(), m.end(), 0.0) / m.size();
    x0[r] = y(9, 0);
  }
  const double R = reps;
  EXPECT_NEAR(sample_variance(first_user),
              re.user_mean_variance(),
              z * re.user_mean_variance() * std::sqrt(2.0 / (R - 1)));
  EXPECT_NEAR(sample_variance(grand),
              re.grand_mean_variance(),
              z * re.grand_mean_variance() * std::sqrt(2.0 / (R - 1)));
  EXPECT_NEAR(sample_mean(grand), 4.0, z * std::sqrt(re.grand_mean_variance() / R));
  EXPECT_NEAR(sample_variance(x0), re.variance(), z * re.variance() * std::sqrt(2.0 / (R - 1)));
  block_toeplitz bt({50, 30, 0.95, 1.0, 0.0});
  std::vector<double> um;
  for (std::size_t r = 0; r < 60; ++r) {
    const auto m = bt.sample(g).user_means();
    um.insert(um.end(), m.begin(), m.end());
  }
  EXPECT_NEAR(sample_variance(um),
              bt.user_mean_variance(),
              z * bt.user_mean_variance() * std::sqrt(2.0 / (um.size() - 1)));
}

TEST(Statistical, IidBaselines) {
  auto g = dpx::rng::stream(9, 1, 0, dpx::rng::purpose::data);
  const std::size_t n = 200000;
  {
    iid_student_t t({10.0, 1.0, 2.0});
    const auto x = t.sample(n, g);
    std::vector<double> v(x.begin(), x.end());
    EXPECT_NEAR(sample_mean(v), 1.0, z * std::sqrt(t.variance() / n));
    // Kurtosis of t_10 is 3 + 6/6 = 4: se(s²) = σ² sqrt((κ−1)/n).
    EXPECT_NEAR(sample_variance(v), t.variance(), z * t.variance() * std::sqrt(3.0 / n));
  }
  {
    iid_uniform u({-1.0, 3.0});
    const auto x = u.sample(n, g);
    std::vector<double> v(x.begin(), x.end());
    EXPECT_NEAR(sample_mean(v), 1.0, z * std::sqrt(u.variance() / n));
    EXPECT_NEAR(sample_variance(v), u.variance(), z * u.variance() * std::sqrt(0.8 / n));
    EXPECT_GE(*std::min_element(v.begin(), v.end()), -1.0);
    EXPECT_LT(*std::max_element(v.begin(), v.end()), 3.0);
  }
  {
    iid_beta b({2.0, 3.0});
    const auto x = b.sample(n, g);
    std::vector<double> v(x.begin(), x.end());
    EXPECT_NEAR(sample_mean(v), 0.4, z * std::sqrt(b.variance() / n));
    EXPECT_NEAR(sample_variance(v), 0.04, z * 0.04 * std::sqrt(2.0 / n));
  }
}
