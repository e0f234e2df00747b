// Statistical checks of the local user-level and regression estimators at fixed seeds (S1 §6,
// Cor 6.7, 6.9, 6.10; docs/theory/dependent-data.md §5.3), against closed forms computed here:
//  * local Priestley–Chao: on a fixed sample, E(A − clipped PC mean)² = 2b²/n with b = 12τ/ε
//    (the average of n independent Lap(b) reports), the clipped PC mean recomputed by the test
//    from its own kernel; power: a ±10% scale error moves the mean square by ≥ 9 se;
//  * local longitudinal regression: unbiased for β when every user's OLS is β (nothing clipped),
//    with both noise kinds (float_safe's grid release is unbiased up to its 2^-20 grid);
//  * local random-effects mean: E(A − mean of user averages)² = 2b²/n.
// False-positive rates are stated next to each assertion.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "dpx/estimators/local.hpp"
#include "dpx/estimators/local_regression.hpp"
#include "test_util.hpp"

namespace dpx::estimators {
namespace {

using testing::normal_data;

// (A − c)² with A − c the mean of n i.i.d. Lap(b): mean 2b²/n; for n ≥ 500 the mean is close to
// Gaussian, so (A − c)² ≈ (2b²/n) χ²₁ with sd √2 · 2b²/n. Returns the z-score of the average.
double noise_z(double sum_sq, std::size_t reps, double b, std::size_t n) {
  const double v = 2 * b * b / static_cast<double>(n);
  return (sum_sq / static_cast<double>(reps) - v) / (std::sqrt(2.0) * v / std::sqrt(double(reps)));
}

TEST(LocalPriestleyChaoStatistical, NoiseVarianceOfTheAverage) {
  const std::size_t n = 1000, reps = 1500;
  auto e = normal_data(n, 0.0, 0.3, 51);
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i)
    y[i] = std::sin(2 * std::numbers::pi * static_cast<double>(i) / n) + e[i];
  local_priestley_chao_options o;
  o.epsilon = 1.0;
  o.bandwidth = local_priestley_chao_bandwidth(0.09, n, 1.0);
  o.lipschitz = 2 * std::numbers::pi;
  o.noise_variance_max = 0.09;
  o.noise = mechanisms::noise_kind::research_grade;  // S1 Algorithm 8 exactly
  const double x0 = 0.4, pts[1] = {x0};
  double sq = 0, b = 0;
  for (std::size_t r = 0; r < reps; ++r) {
    auto g = rng::stream(94, 1, static_cast<std::uint32_t>(r), rng::purpose::noise);
    const auto m = local_priestley_chao(y, pts, o, g);
    // Clipped PC mean by the test's own kernel.
    double c = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double u = (static_cast<double>(i) / n - x0) / o.bandwidth;
      const double zi =
          y[i] * std::exp(-0.5 * u * u) / std::sqrt(2 * std::numbers::pi) / o.bandwidth;
      c += std::clamp(zi, m.ranges[0].lo, m.ranges[0].hi);
    }
    c /= static_cast<double>(n);
    b = m.noise_scale;
    sq += (m.estimate[0] - c) * (m.estimate[0] - c);
  }
  auto g0 = rng::stream(94, 9, 0, rng::purpose::noise);
  const double tau = local_priestley_chao(y, pts, o, g0).tau;  // checked exactly in the unit test
  EXPECT_NEAR(b, 12 * tau, 1e-9 * b);                          // one point: 2κ/(ε/2) = 12τ/ε
  EXPECT_LT(std::abs(noise_z(sq, reps, b, n)), 4.5);           // FPR ≈ 7e-6
}

TEST(LocalRegressionStatistical, LongitudinalUnbiasedBothNoiseKinds) {
  const std::size_t n = 500, T = 6, p = 3, reps = 400;
  const std::vector<double> beta = {0.3, 1.2, -0.8};  // away from the bin edges (2τk ± τ)
  const testing::linear_panel lp(n, T, beta, 52);
  const std::vector<double>& x = lp.x;
  const std::vector<double>& y = lp.y;
  for (auto kind : {mechanisms::noise_kind::research_grade, mechanisms::noise_kind::float_safe}) {
    local_longitudinal_options o;
    o.base.epsilon = 3.0;
    o.base.rule = interval_rule::paper(0.5);
    o.base.bound = 4.0;
    o.base.noise = kind;
    std::vector<double> sum(p, 0.0);
    double b = 0;
    for (std::size_t r = 0; r < reps; ++r) {
      auto g = rng::stream(
          95, static_cast<std::uint64_t>(kind), static_cast<std::uint32_t>(r), rng::purpose::noise);
      const auto f = local_longitudinal_regression(panel_view{x, n, T, p}, y, o, g);
      for (std::size_t j = 0; j < p; ++j) {
        ASSERT_EQ(f.fit.diag[j].clipped_fraction, 0.0) << j << " " << f.fit.ranges[j].lo;
        sum[j] += f.fit.estimate[j] - beta[j];
      }
      b = f.fit.noise_scale;
    }
    // Mean of reps averages of n Lap(b): sd b sqrt(2/(n reps)); |z| < 4.5 per coordinate,
    // FPR ≈ 7e-6 × 6. Power: se ≈ 0.06 (b = 12τ/ε′ = 6), so a bias of 0.27 fails, and a missed
    // bin (a centre off by 2τ = 1) is ≥ 16 se.
    for (std::size_t j = 0; j < p; ++j) {
      const double se = b * std::sqrt(2.0 / (double(n) * double(reps)));
      EXPECT_LT(std::abs(sum[j] / reps) / se, 4.5) << "coordinate " << j;
    }
  }
}

TEST(LocalRandomEffectsStatistical, NoiseVarianceOfTheAverage) {
  const std::size_t n = 800, T = 4, reps = 1500;
  const double eps = 2.0, tau = 1.5;
  const auto v = normal_data(n * T, -1.0, 1.0, 53);
  double mean_avg = 0;
  for (double w : v) mean_avg += w;
  mean_avg /= static_cast<double>(n * T);  // nothing is clipped: |μ̂_u + 1| < 2 ≪ 3τ
  local_mean_options o;
  o.epsilon = eps;
  o.rule = interval_rule::paper(tau);
  o.bound = 5.0;
  o.noise = mechanisms::noise_kind::research_grade;
  double sq = 0, b = 0;
  for (std::size_t r = 0; r < reps; ++r) {
    auto g = rng::stream(96, 1, static_cast<std::uint32_t>(r), rng::purpose::noise);
    const auto m = local_random_effects_mean(panel_view{v, n, T, 1}, o, g);
    ASSERT_EQ(m.diag.clipped_fraction, 0.0);
    b = m.noise_scale;
    sq += (m.estimate - mean_avg) * (m.estimate - mean_avg);
  }
  EXPECT_DOUBLE_EQ(b, 12 * tau / eps);
  EXPECT_LT(std::abs(noise_z(sq, reps, b, n)), 4.5);  // FPR ≈ 7e-6
}

}  // namespace
}  // namespace dpx::estimators
