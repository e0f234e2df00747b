// Statistical checks of the local and user-level estimators at fixed seeds (
// docs/theory/dependent-data.md §4.1, §5, §11):
//  * local Algorithm 8: the midpoint lands within 2τ of μ (Lemma F.1) in every replication at a
//    comfortable n tanh²(ε/4), and E(A − X̄)² equals 2b²/n, b = 12τ/ε (the average of n
//    independent Laplace(b) values; power: a ±10% scale error moves the mean square by ≥ 6 se);
//  * the literal budget (RR at ε/8 per bit) gives noisier histograms than the decision (ε/4):
//    its debiased frequency error is larger on average;
//  * user-level mean on i.i.d. N(μ, 1) panels: E(A − μ)² matches the oracle 1/(nT) + 2b²
//    (b = 12τ/(nε)), i.e. the error falls with T as Cor 5.4's 1/(nT) predicts.
// False-positive rates are stated next to each assertion.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "dpx/estimators/local.hpp"
#include "dpx/estimators/user_level.hpp"
#include "test_util.hpp"

namespace dpx::estimators {
namespace {

using testing::normal_data;
using testing::plain_mean;

TEST(LocalStatistical, MidpointAndNoiseVariance) {
  const std::size_t n = 2000, reps = 2000;
  const double eps = 2.0, mu = 3.0;
  const double tau = tau_subgaussian(1.0, n, 0.1);
  local_mean_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanism
  o.epsilon = eps;
  o.rule = interval_rule::paper(tau);
  o.bound = 20.0;
  double sq = 0, b = 0;
  std::size_t used = 0;
  for (std::size_t r = 0; r < reps; ++r) {
    const auto x = normal_data(n, mu, 1.0, 20000 + r);
    auto g = rng::stream(81, 1, static_cast<std::uint32_t>(r), rng::purpose::noise);
    const auto m = local_mean(x, o, g);
    ASSERT_LE(std::abs(m.midpoint - mu), 2 * tau) << r;  // Lemma F.1: a miss is a bug here
    if (m.diag.clipped_fraction != 0.0) continue;
    b = m.noise_scale;
    const double e = m.estimate - plain_mean(x);
    sq += e * e;
    ++used;
  }
  ASSERT_GT(used, reps * 9 / 10);
  EXPECT_DOUBLE_EQ(b, 12 * tau / eps);
  // (A − X̄)² ≈ (2b²/n) χ²₁ (CLT over n = 2000 Laplace values): se of the mean is
  // sqrt(2) (2b²/n)/sqrt(used); |z| > 4.5 has FPR ≈ 7e-6.
  const double v = 2 * b * b / n;
  const double m2 = sq / static_cast<double>(used);
  EXPECT_LT(std::abs(m2 - v) / (std::sqrt(2.0) * v / std::sqrt(double(used))), 4.5);
}

TEST(LocalStatistical, LiteralBudgetIsNoisier) {
  const std::size_t n = 3000, reps = 200;
  const double tau = 1.0;
  double err_decision = 0, err_literal = 0;
  for (std::size_t r = 0; r < reps; ++r) {
    const auto x = normal_data(n, 0.0, 0.3, 30000 + r);
    auto g1 = rng::stream(82, 1, static_cast<std::uint32_t>(r), rng::purpose::noise);
    auto g2 = rng::stream(82, 2, static_cast<std::uint32_t>(r), rng::purpose::noise);
    const auto a = local_projection_interval(x, interval_rule::paper(tau), 10.0, 0.5, g1);
    const auto b = local_projection_interval(x, interval_rule::paper(tau), 10.0, 0.25, g2);
    // true frequencies: bin 0 holds (almost) everything (|x| ≤ 1 w.p. ≈ 0.9991)
    for (std::size_t k = 0; k < a.frequencies.size(); ++k) {
      const double truth = (k == a.frequencies.size() / 2) ? 1.0 : 0.0;
      err_decision += (a.frequencies[k] - truth) * (a.frequencies[k] - truth);
      err_literal += (b.frequencies[k] - truth) * (b.frequencies[k] - truth);
    }
  }
  // The debiased variance scales as 1/tanh²(ε/4): about 4× larger at half the budget. A ratio
  // below 2 over 200 × 11 bins has negligible probability (FPR < 1e-9).
  EXPECT_GT(err_literal, 2.0 * err_decision);
}

TEST(UserLevelStatistical, ErrorMatchesOracleAcrossT) {
  const std::size_t n = 300, reps = 600;
  const double eps = 1.0, delta = 1.0 / (n * n), mu = -2.0;
  for (std::size_t T : {1u, 10u, 100u}) {
    const double tau = tau_user(1.0, T, n, 1, 0.1);
    winsorized_mean_hd_options o{eps, delta, interval_rule::paper(tau)};
    o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanism
    double sq = 0, b = 0;
    for (std::size_t r = 0; r < reps; ++r) {
      const auto v = normal_data(n * T, mu, 1.0, 40000 + 1000 * T + r);
      auto g = rng::stream(83, T, static_cast<std::uint32_t>(r), rng::purpose::noise);
      const auto m = user_mean(panel_view{v, n, T, 1}, o, g);
      ASSERT_FALSE(m.diag[0].failed);
      b = m.noise_scale;
      sq += (m.estimate[0] - mu) * (m.estimate[0] - mu);
    }
    EXPECT_DOUBLE_EQ(b, 12 * tau / (n * eps));
    // MSE = 1/(nT) + 2b² when nothing is clipped. (A − μ)² = (N + L)², N ~ N(0, 1/(nT)),
    // L ~ Lap(b): Var = E(N+L)⁴ − (E(N+L)²)² = 2s⁴ + 8 s² b² + 20 b⁴ with s² = 1/(nT).
    const double s2 = 1.0 / (n * T), oracle = s2 + 2 * b * b;
    const double var = 2 * s2 * s2 + 8 * s2 * b * b + 20 * b * b * b * b;
    const double z = (sq / reps - oracle) / std::sqrt(var / reps);
    EXPECT_LT(std::abs(z), 4.5) << "T = " << T;  // FPR ≈ 7e-6 per T
  }
}

}  // namespace
}  // namespace dpx::estimators
