// Exact checks of the local user-level and regression estimators (S1 §6, Thm 6.5, Cor 6.7,
// 6.9, 6.10; docs/theory/dependent-data.md §5.3): Thm 6.5's γ and radius against a hand
// computation, the protocols against the item-level local_mean/local_mean_hd run on inputs the
// test builds itself (same generator state: bit-identical), the privacy records (unit, model,
// total ε, ledger), the radius and bandwidth of the local Priestley–Chao against their formulas,
// and input validation naming the parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/estimators/local.hpp"
#include "dpx/estimators/local_regression.hpp"
#include "test_util.hpp"

namespace dpx::estimators {
namespace {

using testing::normal_data;

template <class F>
void expect_invalid_naming(F f, const std::string& name) {
  try {
    f();
    ADD_FAILURE() << "no exception, expected one naming " << name;
  } catch (const core::invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

TEST(LocalUserLevel, GammaAndRadiusOfTheorem65) {
  const std::size_t T = 16, n = 2000;
  const double eps = 0.7, rho = 3.0;
  const double gamma = local_user_gamma(T, n, eps);
  EXPECT_DOUBLE_EQ(gamma, 1.0 / (16.0 * 2000.0 * 0.49));
  // τ² = 2ρ ln(2dTn²ε²)/T (d = 1), computed by hand.
  const double want = std::sqrt(2.0 * rho * std::log(2.0 * 16.0 * 2000.0 * 2000.0 * 0.49) / 16.0);
  EXPECT_NEAR(tau_user(rho, T, n, 1, gamma), want, 1e-12 * want);
  expect_invalid_naming([] { local_user_gamma(1, 1, 0.5); }, "epsilon");  // T n ε² = 0.25
  expect_invalid_naming([] { local_user_gamma(0, 10, 1.0); }, "times");
  expect_invalid_naming([] { local_user_gamma(10, 0, 1.0); }, "users");
}

TEST(LocalUserLevel, RandomEffectsIsLocalMeanOnUserAverages) {
  const std::size_t n = 400, T = 5;
  const auto v = normal_data(n * T, 2.0, 1.0, 901);
  std::vector<double> avg(n, 0.0);
  for (std::size_t u = 0; u < n; ++u) {
    for (std::size_t t = 0; t < T; ++t) avg[u] += v[u * T + t];
    avg[u] /= static_cast<double>(T);
  }
  local_mean_options o;
  o.epsilon = 1.5;
  o.rule = interval_rule::paper(1.0);
  o.bound = 8.0;
  for (auto kind : {mechanisms::noise_kind::float_safe, mechanisms::noise_kind::research_grade}) {
    o.noise = kind;
    auto g1 = rng::stream(91, 1, 0, rng::purpose::noise);
    auto g2 = rng::stream(91, 1, 0, rng::purpose::noise);
    const mean_result a = local_random_effects_mean(panel_view{v, n, T, 1}, o, g1);
    const mean_result b = local_mean(avg, o, g2);
    EXPECT_EQ(a.estimate, b.estimate);
    EXPECT_EQ(a.midpoint, b.midpoint);
    EXPECT_EQ(a.privacy.unit, core::privacy_unit::user);
    EXPECT_EQ(a.privacy.model, trust_model::local);
    EXPECT_DOUBLE_EQ(a.privacy.epsilon, 1.5);
    EXPECT_EQ(a.privacy.delta, 0.0);
  }
  expect_invalid_naming(
      [&] {
        auto g = rng::stream(91, 2, 0, rng::purpose::noise);
        local_random_effects_mean(panel_view{v, n / 2, T, 2}, o, g);
      },
      "dims");
}

// Designs X_u = (1, t/T, z_t) and noiseless responses Y_u = X_u β: every user's OLS is β, so the
// release is local_mean_hd on n identical rows β (built here), draw for draw.
TEST(LocalRegression, LongitudinalIsLocalMeanHdOnPerUserCoefficients) {
  const std::size_t n = 300, T = 8, p = 3;
  const std::vector<double> beta = {1.0, -2.0, 0.3};  // away from the bin edges (2τk ± τ)
  const testing::linear_panel lp(n, T, beta, 902);
  const std::vector<double>& x = lp.x;
  const std::vector<double>& y = lp.y;
  std::vector<double> rows(n * p);
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t j = 0; j < p; ++j) rows[u * p + j] = beta[j];
  local_longitudinal_options o;
  o.base.epsilon = 3.0;
  o.base.rule = interval_rule::paper(0.5);
  o.base.bound = 4.0;
  o.base.noise = mechanisms::noise_kind::research_grade;
  auto g1 = rng::stream(92, 1, 0, rng::purpose::noise);
  auto g2 = rng::stream(92, 1, 0, rng::purpose::noise);
  const regression_result a = local_longitudinal_regression(panel_view{x, n, T, p}, y, o, g1);
  const mean_hd_result b = local_mean_hd(rows, p, o.base, g2);
  ASSERT_EQ(a.fit.estimate.size(), p);
  EXPECT_EQ(a.singular_users, 0u);
  for (std::size_t j = 0; j < p; ++j) {
    // Per-user OLS reproduces β to rounding; the bins and the clipped values agree.
    EXPECT_NEAR(a.fit.estimate[j], b.estimate[j], 1e-9) << j;
    EXPECT_EQ(a.fit.ranges[j].lo, b.ranges[j].lo) << j;
  }
  EXPECT_EQ(a.fit.privacy.unit, core::privacy_unit::user);
  EXPECT_EQ(a.fit.privacy.model, trust_model::local);
  EXPECT_EQ(a.fit.budget.kind, composition::basic);  // p = 3 < 8 ln(1/ρ_c)
  EXPECT_DOUBLE_EQ(a.fit.budget.epsilon, 1.0);
  EXPECT_DOUBLE_EQ(a.fit.privacy.epsilon, 3.0);
  EXPECT_EQ(a.fit.ledger.size(), 2 * p);  // RR histogram + clipped value per coordinate
  expect_invalid_naming(
      [&] {
        auto g = rng::stream(92, 2, 0, rng::purpose::noise);
        local_longitudinal_options bad = o;
        bad.base.rule = {};
        local_longitudinal_regression(panel_view{x, n, T, p}, y, bad, g);
      },
      "rule");
}

TEST(LocalPriestleyChao, BandwidthRadiusBudgetAndValidation) {
  EXPECT_NO_THROW(local_priestley_chao_options{}.validate());
  // Cor 6.7: b = (σ²/n)^{1/3} ∨ (σ/(√n ε))^{1/2}.
  EXPECT_DOUBLE_EQ(local_priestley_chao_bandwidth(4.0, 10000, 0.5),
                   std::max(std::cbrt(4.0 / 1e4), std::sqrt(2.0 / (100.0 * 0.5))));
  EXPECT_DOUBLE_EQ(local_priestley_chao_bandwidth(1.0, 8, 100.0), 0.5);  // (1/8)^{1/3}
  const std::size_t n = 500;
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i)
    y[i] = std::sin(2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n));
  local_priestley_chao_options o;
  o.epsilon = 2.0;
  o.bandwidth = 0.2;
  o.lipschitz = 2 * std::numbers::pi;
  o.noise_variance_max = 1.0;
  o.noise = mechanisms::noise_kind::research_grade;
  const double pts[2] = {0.3, 0.6};
  auto g = rng::stream(93, 1, 0, rng::purpose::noise);
  const priestley_chao_result r = local_priestley_chao(y, pts, o, g);
  // Lemma 4.9 by hand, Gaussian kernel: ‖K‖ = 1/√(2π), L_K = 1/√(2πe), μ₁ = √(2/π).
  const double s2pi = std::sqrt(2 * std::numbers::pi), b = 0.2, lf = 2 * std::numbers::pi;
  const double tau = b * (lf * std::sqrt(2 / std::numbers::pi) + 1.0) +
                     (lf / s2pi + 1.0 / (s2pi * std::sqrt(std::numbers::e)) +
                      std::sqrt(2.0 * (1.0 / s2pi) * std::log(2.0 * n / 0.1))) /
                         b;
  EXPECT_NEAR(r.tau, tau, 1e-12 * tau);
  // Two points, basic composition: ε/2 per point, half of it for the clipped value, so one
  // user's Laplace scale at a point is 2κ/(ε/4) = 6τ·4/ε.
  EXPECT_EQ(r.budget.kind, composition::basic);
  EXPECT_DOUBLE_EQ(r.budget.epsilon, 1.0);
  EXPECT_NEAR(r.noise_scale, 6.0 * tau / 0.5, 1e-12 * tau);
  EXPECT_DOUBLE_EQ(r.privacy.epsilon, 2.0);
  EXPECT_EQ(r.privacy.model, trust_model::local);
  EXPECT_EQ(r.ledger.size(), 4u);
  EXPECT_EQ(r.ledger[2].step, "rr_histogram[1]");
  local_priestley_chao_options bad = o;
  bad.bandwidth = 0.0;
  expect_invalid_naming([&] { bad.validate(); }, "bandwidth");
  bad = o;
  bad.sup_norm = 0.0;
  expect_invalid_naming([&] { bad.validate(); }, "sup_norm");
  expect_invalid_naming([] { local_priestley_chao_bandwidth(1.0, 0, 1.0); }, "n");
}

}  // namespace
}  // namespace dpx::estimators
