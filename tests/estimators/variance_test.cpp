// Exact checks of the plug-in variance estimators (docs/theory/dependent-data.md §6):
//  * N_iter = ⌈log₂(σ_max²/σ_min²)⌉ and the per-release budget: basic ε/(2N_iter) when it beats
//    advanced ε/sqrt(16 N_iter ln(1/ρ_c)), advanced otherwise; the ledger never exceeds 2N_iter
//    releases and its ε sum never exceeds the total (basic);
//  * coverage fraction and clipped second moment equal brute-force values;
//  * bisection: last_passing = 2 × literal whenever the loop stopped on a failed coverage;
//  * the default CoinPress inflation is sqrt(1/n) + 1/(2n) (checked via an explicit c_n run
//    drawing the same values);
//  * the plug-in CI half-width is z_{1−α/4} sqrt(κσ̂²/n) + b ln(2/α);
//  * validation of the bounds, γ and ε;
//  * the result carries the interval used (bisection: the last coverage window [m̂ ± √(2σ²)];
//    CoinPress: the last clipping window [m̂ ± βσ], β = sqrt(1 + 2 sqrt(ln(1/γ)) + 2 ln(1/γ)))
//    and diagnostics: clipped_fraction recounted by brute force; failed when the first coverage
//    test at the public σ_max² fails (bisection) or σ̂² = 0 (CoinPress, published output:
//    clamp_to_bounds off; the clamped mode is covered by variance_clamp_test.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "dpx/core/error.hpp"
#include "dpx/estimators/variance.hpp"
#include "test_util.hpp"

namespace dpx::estimators {
namespace {

using testing::normal_data;

TEST(PluginVariance, BudgetAndIterations) {
  variance_options o;
  o.variance_min = 0.1;
  o.variance_max = 1e4;
  EXPECT_EQ(o.iterations(), 17u);
  o.composition_slack = 1e-6;
  const auto b = detail::variance_budget(o);
  // 34 releases < 8 ln(1e6) = 110.5: basic wins
  EXPECT_EQ(b.kind, composition::basic);
  EXPECT_DOUBLE_EQ(b.epsilon, 1.0 / 34);
  o.variance_max = 0.1 * std::pow(2.0, 100);  // 200 releases > 110.5: advanced
  o.epsilon = 0.5;
  const auto a = detail::variance_budget(o);
  EXPECT_EQ(a.kind, composition::advanced);
  // Rounded down a few ulps (safe side; exact checks: Calibrators.SafeSideBudgetSplits).
  EXPECT_LE(a.epsilon, 0.5 / std::sqrt(16.0 * 100 * std::log(1e6)));
  EXPECT_NEAR(a.epsilon, 0.5 / std::sqrt(16.0 * 100 * std::log(1e6)), 1e-16);
  EXPECT_DOUBLE_EQ(a.total_delta, 1e-6);
  o.variance_max = 0.1;
  EXPECT_THROW(o.validate("t"), core::invalid_argument_error);
  o.variance_max = 1.0;
  o.gamma = 1.0;
  EXPECT_THROW(o.validate("t"), core::invalid_argument_error);
}

TEST(PluginVariance, KernelsMatchBruteForce) {
  const std::vector<double> x = {-3, -1, 0, 0.5, 2, 10};
  EXPECT_DOUBLE_EQ(detail::coverage_fraction(x, 0.0, 2.0), 4.0 / 6);
  double s = 0;
  for (double v : x) {
    const double w = std::min(std::max((v - 1.0) / 2.0, -1.5), 1.5);
    s += w * w;
  }
  EXPECT_DOUBLE_EQ(detail::clipped_second_moment(x, 1.0, 2.0, 1.5), s / 6);
}

TEST(PluginVariance, BisectionReturnsAndLedger) {
  const auto x = normal_data(4000, 100.0, 1.0, 90);
  variance_options o;
  o.midpoint = 0.0;
  o.variance_min = 0.1;
  o.variance_max = 1e4;
  const auto g0 = rng::stream(9, 9, 9, rng::purpose::noise);
  auto g1 = g0, g2 = g0;
  const auto lit = variance_bisection(x, o, g1);
  o.returns = bisection_return::last_passing;
  const auto last = variance_bisection(x, o, g2);
  ASSERT_LT(lit.iterations, o.iterations());  // stopped on a failed coverage
  EXPECT_DOUBLE_EQ(last.variance, 2 * lit.variance);
  EXPECT_EQ(lit.ledger.size(), 2 * lit.iterations - 1);
  double se = 0;
  for (const auto& e : lit.ledger) se += e.epsilon;
  EXPECT_LE(se, o.epsilon + 1e-15);
  EXPECT_EQ(lit.privacy.epsilon, 1.0);
  EXPECT_EQ(lit.privacy.delta, 0.0);
  EXPECT_NEAR(lit.midpoint, 100.0, 0.5);
}

// Where the bisection stops (S1 Algorithm 10's window +- sqrt(2 v) holds 84.3 % of N(m, 1) at
// v = 1, 68.3 % at v = 1/2 and 95.4 % at v = 2): with negligible noise (eps = 100) and v
// halving from 16, the coverage test 1 - gamma fails first at v = 1/2 for the default gamma =
// 0.2 and at v = 1 for gamma = 0.05; the literal return is that first failing v.
TEST(PluginVariance, BisectionStopsWhereTheCoverageWindowFallsBelowOneMinusGamma) {
  const auto x = normal_data(20000, 0.0, 1.0, 92);
  variance_options o;
  EXPECT_EQ(o.gamma, 0.2);
  o.epsilon = 100.0;
  o.midpoint = 0.0;
  o.variance_min = 1.0 / 64;
  o.variance_max = 16.0;
  auto g1 = rng::stream(9, 9, 11, rng::purpose::noise);
  EXPECT_EQ(variance_bisection(x, o, g1).variance, 0.5);
  o.gamma = 0.05;
  auto g2 = rng::stream(9, 9, 11, rng::purpose::noise);
  EXPECT_EQ(variance_bisection(x, o, g2).variance, 1.0);
}

TEST(PluginVariance, CoinPressDefaultInflation) {
  const auto x = normal_data(2500, 5.0, 2.0, 91);
  variance_options o;
  o.variance_min = 0.01;
  o.variance_max = 100;
  const auto g0 = rng::stream(9, 9, 10, rng::purpose::noise);
  auto g1 = g0, g2 = g0;
  const auto a = adaptive_coinpress(x, o, g1);
  o.inflation = std::sqrt(1.0 / 2500) + 0.5 / 2500;
  const auto b = adaptive_coinpress(x, o, g2);
  EXPECT_EQ(a.variance, b.variance);
  EXPECT_EQ(a.iterations, o.iterations());
  EXPECT_EQ(a.ledger.size(), 2 * o.iterations());
  // The last noisy second moment z has Laplace scale 2β²·28/2500 = 0.151 (ε′ = 1/28), and σ̂² ≈
  // 4z: σ̂² − 4 ≈ 4 Lap(0.151) (sd 0.86) plus sampling (sd 0.11). Until 2026-11-26 this read
  // EXPECT_NEAR(a.variance, 4.0, 0.8), about 1 sd of the noise, which held for this seed's
  // research-grade draws only; with the float-safe default the draws differ (σ̂² = 5.02).
  // P(|Lap(b)| > 8b) = e^-8 = 3.4e-4 (FPR): tolerance 4·8·0.151 + 5·0.11 < 5.5.
  EXPECT_NEAR(a.variance, 4.0, 5.5);
}

double outside_fraction(const std::vector<double>& x, const interval& r) {
  std::size_t c = 0;
  for (double v : x) c += (v < r.lo || v > r.hi);
  return static_cast<double>(c) / static_cast<double>(x.size());
}

TEST(PluginVariance, ResultCarriesIntervalAndDiagnostics) {
  const auto x = normal_data(4000, 100.0, 1.0, 92);
  variance_options o;
  o.midpoint = 0.0;
  o.variance_min = 0.1;
  o.variance_max = 1e4;
  auto g = rng::stream(9, 9, 11, rng::purpose::noise);
  const auto b = variance_bisection(x, o, g);
  ASSERT_LT(b.iterations, o.iterations());  // stopped on a failed coverage at σ² = b.variance
  EXPECT_FALSE(b.diag.failed);
  EXPECT_NEAR(b.range.lo, b.midpoint - std::sqrt(2.0 * b.variance), 1e-12);
  EXPECT_NEAR(b.range.hi, b.midpoint + std::sqrt(2.0 * b.variance), 1e-12);
  // It failed coverage 1 − γ = 0.8 there: (noisy) more than 20% of the data lie outside.
  EXPECT_NEAR(b.diag.clipped_fraction, outside_fraction(x, b.range), 1e-15);
  EXPECT_GT(b.diag.clipped_fraction, 0.1);
  EXPECT_EQ(b.diag.occupied_bins, 0u);

  // Public inputs that do not fit the data: m̂₀ = 10⁶ with σ_max² = 1 — no window ever covers.
  variance_options far = o;
  far.midpoint = 1e6;
  far.variance_max = 1.0;
  far.variance_min = 0.01;
  const auto f = variance_bisection(x, far, g);
  EXPECT_TRUE(f.diag.failed);
  EXPECT_EQ(f.iterations, 1u);
  EXPECT_EQ(f.variance, 1.0);
  EXPECT_DOUBLE_EQ(f.range.lo, 1e6 - std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(f.diag.clipped_fraction, 1.0);

  // CoinPress: the window is centred on the final m̂ with half-width βσ_last, and σ̂² = z σ_last²
  // with z the noisy clipped second moment (β = 2.599259 for γ = 0.2). At the fixed point
  // σ_last² = 0.983σ²/(1 − c_n) (E min(Z², β²) = 0.983), so z ≈ 1 − c_n ≈ 0.995; with n = 40 000
  // its Laplace scale is 2β²·34/n = 0.0115 and its sampling sd 0.007, so |z − 1| < 0.3 fails
  // with probability < 1e-10.
  const double beta = std::sqrt(1.0 + 2.0 * std::sqrt(std::log(5.0)) + 2.0 * std::log(5.0));
  EXPECT_NEAR(beta, 2.599259, 1e-6);
  const auto x40 = normal_data(40000, 100.0, 1.0, 93);
  const auto c = adaptive_coinpress(x40, o, g);
  EXPECT_NEAR(c.range.midpoint(), c.midpoint, 1e-9);
  const double s_last = 0.5 * c.range.length() / beta;
  EXPECT_GT(c.variance / (s_last * s_last), 0.7);
  EXPECT_LT(c.variance / (s_last * s_last), 1.3);
  EXPECT_NEAR(c.diag.clipped_fraction, outside_fraction(x40, c.range), 1e-15);
  EXPECT_LT(c.diag.clipped_fraction, 0.05);  // P(|Z| > 2.6) ≈ 0.0093 (binomial sd 0.0005)
  EXPECT_FALSE(c.diag.failed);

  // failed ⇔ σ̂² = 0 (published output, no projection onto the bounds): at a tiny ε the last
  // noisy second moment is clamped to 0 about half the time (its Laplace scale 2β²/(nε′) ≈ 5·10⁴
  // dwarfs the moment), so 40 seeds show both cases (probability that one is missing: 2·2^−40).
  variance_options tiny = o;
  tiny.epsilon = 0.01;
  tiny.clamp_to_bounds = false;
  const std::vector<double> small(x.begin(), x.begin() + 10);
  std::size_t failures = 0;
  for (std::uint64_t s = 0; s < 40; ++s) {
    auto gs = rng::stream(9, 10, s, rng::purpose::noise);
    const auto t = adaptive_coinpress(small, tiny, gs);
    EXPECT_EQ(t.diag.failed, t.variance == 0.0) << s;
    failures += t.diag.failed;
  }
  EXPECT_GT(failures, 0u);
  EXPECT_LT(failures, 40u);
}

TEST(PluginVariance, ConfidenceIntervalHalfWidth) {
  mean_result m;
  m.estimate = 1.0;
  m.n = 400;
  m.noise_scale = 0.01;
  const auto ci = plugin_confidence_interval(m, 4.0, 0.1, 2.0);
  // z_{1 − 0.025} = 1.959963984540054
  const double half = 1.959963984540054 * std::sqrt(2.0 * 4.0 / 400) + 0.01 * std::log(20.0);
  EXPECT_NEAR(ci.hi - 1.0, half, 1e-12);
  EXPECT_NEAR(1.0 - ci.lo, half, 1e-12);
  EXPECT_THROW(plugin_confidence_interval(m, -1.0, 0.1), core::invalid_argument_error);
}

}  // namespace
}  // namespace dpx::estimators
