// The law of the float-safe (default) plug-in variance releases (docs/estimators.md, "Noise
// kind"), on designs where every released statistic has a known centre, N_iter = 1
// (σ_min² = σ_max²/2), basic composition: ε′ = ε/2 per release.
//  * CoinPress on n records all at F = 10⁴ (far outside every window, m̂₀ = 0, σ = σ_max = 1):
//    RefineMidpoint's clipped mean is exactly √2σ, so m̂ − √2 ~ Lap(b_m), b_m = 2√2σ/(nε′);
//    every clipped (x − m̂)/σ sits at β, so z − β² ~ Lap(b_z), b_z = 2β²/(nε′) (z > 0: b_z ≪ β²).
//    20 000 runs; KS distance of each against the Laplace CDF of the CONTINUOUS scale, critical
//    value from the DKW inequality (stat_util.hpp) at α = 1e-6 each (FPR ≤ 2e-6; the grid,
//    2⁻²⁰ b, and the float-safe scale, ≤ 2·2⁻²⁰ b larger, move the CDF by < 1e-5, far below
//    the critical value 0.018). Power: a scale off by 10% moves the CDF by 0.017 at its worst
//    point, a location off by 0.1 b by 0.05: the checks |mean|/b < 0.05 and mean |·|/b within
//    ±4% (sd 1/sqrt(20 000) = 0.7% of b: FPR ≈ 1e-8) catch both with probability ≈ 1.
//  * Bisection on n = 20 records at 0 (coverage exactly 1, threshold 1 − γ = 0.8, ε = 1):
//    the coverage release passes with probability 1 − ½ exp(−0.2/b_c), b_c = 2/(nε′) = 0.2,
//    i.e. fails with probability ½e⁻¹ = 0.1839; 20 000 runs, |z| < 5 (FPR 6e-7); a 10% scale
//    error moves it by 0.017 = 6 sd (power ≈ 0.85 at 5 sd, ≈ 1 for larger errors).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../mechanisms/statistical/stat_util.hpp"
#include "dpx/estimators/variance.hpp"

namespace dpx::estimators {
namespace {

double laplace_cdf(double x, double b) {
  return x < 0 ? 0.5 * std::exp(x / b) : 1.0 - 0.5 * std::exp(-x / b);
}

void expect_laplace(const std::vector<double>& u, double b, const char* what) {
  double m = 0.0, a = 0.0;
  for (const double v : u) {
    m += v;
    a += std::abs(v);
  }
  m /= static_cast<double>(u.size());
  a /= static_cast<double>(u.size());
  EXPECT_LT(std::abs(m) / b, 0.05) << what;
  EXPECT_NEAR(a / b, 1.0, 0.04) << what;
  const double d = test::ks_statistic(u, [b](double x) { return laplace_cdf(x, b); });
  EXPECT_LE(d, test::ks_critical(u.size())) << what;
}

TEST(PluginVarianceNoiseStatistical, FloatSafeCoinPressReleasesAreLaplace) {
  const std::size_t n = 50, runs = 20000;
  const std::vector<double> x(n, 1e4);
  variance_options o;
  ASSERT_EQ(o.noise, mechanisms::noise_kind::float_safe);
  o.epsilon = 1.0;
  o.variance_max = 1.0;
  o.variance_min = 0.5;
  o.midpoint = 0.0;
  o.clamp_to_bounds = false;
  ASSERT_EQ(o.iterations(), 1u);
  const double e = 0.5, nd = static_cast<double>(n);
  const double lg = std::log(5.0), b2 = 1.0 + 2.0 * std::sqrt(lg) + 2.0 * lg;  // β², γ = 0.2
  const double bm = 2.0 * std::sqrt(2.0) / (nd * e), bz = 2.0 * b2 / (nd * e);
  std::vector<double> um(runs), uz(runs);
  auto g = rng::stream(70, 0, 0, rng::purpose::noise);
  for (std::size_t i = 0; i < runs; ++i) {
    const auto r = adaptive_coinpress(x, o, g);
    ASSERT_FALSE(r.diag.failed);
    um[i] = r.midpoint - std::sqrt(2.0);
    uz[i] = r.variance - b2;  // σ̂² = z σ² with σ = 1
  }
  expect_laplace(um, bm, "midpoint");
  expect_laplace(uz, bz, "second moment");
}

TEST(PluginVarianceNoiseStatistical, FloatSafeCoverageFailureRateIsTheLaplaceTail) {
  const std::size_t n = 20, runs = 20000;
  const std::vector<double> x(n, 0.0);
  variance_options o;
  o.epsilon = 1.0;
  o.variance_max = 1.0;
  o.variance_min = 0.5;
  o.midpoint = 0.0;
  ASSERT_EQ(o.iterations(), 1u);
  std::size_t failed = 0;
  auto g = rng::stream(71, 0, 0, rng::purpose::noise);
  for (std::size_t i = 0; i < runs; ++i) failed += variance_bisection(x, o, g).diag.failed;
  const double p = 0.5 * std::exp(-1.0), f = static_cast<double>(failed) / runs;
  EXPECT_NEAR(f, p, 5.0 * std::sqrt(p * (1 - p) / runs));
}

}  // namespace
}  // namespace dpx::estimators
