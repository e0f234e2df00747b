// Exact checks of the user-level, nonparametric and local estimators (docs/theory/dependent-data.md
// §4, §5):
//  * user averages (rectangular and ragged panels) equal brute-force means;
//  * user_mean is Algorithm 5 on the user averages with the same draws, privacy unit = user;
//  * longitudinal regression: per-user OLS equals the closed-form simple-regression slope and
//    intercept; weighted with Σ = I equals OLS; weighted with a diagonal Σ equals hand-computed
//    WLS; singular designs give β̂_u = 0 and are counted; T < p and bad Σ throw;
//  * Priestley–Chao: kernel constants (‖K‖∞ = 0.3989, L_K = 0.2420, μ₁ = 0.7979 for the Gaussian),
//    both radii equal their formulas, each point is Algorithm 4 on Z_i(x) = Y_i K((x_i − x)/b)/b
//    with the same draws, the grid's budget is split and the total reported, margin ζ;
//  * local model: bins cover [−B, B] (N = 2⌈B/(2h)⌉ + 1, the spec's B = 5, τ ≈ 5 example gives 3
//    bins), RR budget ε/2 per histogram stage (ε/4 per bit) or the literal ε/4 (3ε/4 spent),
//    per-user Laplace scale 12τ/ε, the estimate equals (Σ clip + Σ noise)/n recomputed from the
//    same stream, HD composition totals.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/estimators/local.hpp"
#include "dpx/estimators/nonparametric.hpp"
#include "dpx/estimators/user_level.hpp"
#include "test_util.hpp"

namespace dpx::estimators {
namespace {

using testing::normal_data;

TEST(UserLevel, AveragesRectangularAndRagged) {
  const std::vector<double> v = {1,
                                 10,
                                 2,
                                 20,
                                 3,
                                 30,  // user 0: T = 3, d = 2
                                 4,
                                 40,
                                 6,
                                 60,
                                 8,
                                 80};  // user 1
  const auto a = user_averages(panel_view{v, 2, 3, 2});
  ASSERT_EQ(a.size(), 4u);
  EXPECT_DOUBLE_EQ(a[0], 2.0);
  EXPECT_DOUBLE_EQ(a[1], 20.0);
  EXPECT_DOUBLE_EQ(a[2], 6.0);
  EXPECT_DOUBLE_EQ(a[3], 60.0);
  const std::vector<std::size_t> off = {0, 1, 6};  // ragged: 1 row, 5 rows
  const auto r = user_averages(std::span<const double>(v), 2, off);
  EXPECT_DOUBLE_EQ(r[0], 1.0);
  EXPECT_DOUBLE_EQ(r[1], 10.0);
  EXPECT_DOUBLE_EQ(r[2], (2 + 3 + 4 + 6 + 8) / 5.0);
  const std::vector<std::size_t> bad = {0, 3, 3, 6};
  EXPECT_THROW(user_averages(std::span<const double>(v), 2, bad), core::invalid_argument_error);
  EXPECT_THROW(user_averages(panel_view{v, 2, 2, 2}), core::invalid_argument_error);
}

TEST(UserLevel, UserMeanIsAlgorithm5OnAverages) {
  const std::size_t n = 400, T = 5;
  auto v = normal_data(n * T, 3.0, 1.0, 60);
  const double tau = tau_user(1.0, T, n, 1, 0.1);
  winsorized_mean_hd_options o{0.5, 1e-6, interval_rule::paper(tau)};
  o.noise = mechanisms::noise_kind::research_grade;  // recomputed draws
  const auto g0 = rng::stream(1, 1, 1, rng::purpose::noise);
  auto g1 = g0, g2 = g0;
  const auto r = user_mean(panel_view{v, n, T, 1}, o, g1);
  const auto avg = user_averages(panel_view{v, n, T, 1});
  const auto ref = winsorized_mean_hd(avg, 1, o, g2);
  EXPECT_EQ(r.estimate, ref.estimate);
  EXPECT_EQ(r.n, n);
  EXPECT_EQ(r.privacy.unit, core::privacy_unit::user);
  EXPECT_EQ(r.privacy.epsilon, 0.5);
  EXPECT_NEAR(r.noise_scale, 12 * tau / (n * 0.5), 1e-15);
  // random effects wrapper: the same on d = 1
  auto g3 = g0;
  const auto re = random_effects_mean(
      panel_view{v, n, T, 1}, {0.5, 1e-6, interval_rule::paper(tau), o.noise}, g3);
  EXPECT_EQ(re.estimate, ref.estimate[0]);
  EXPECT_EQ(re.privacy.unit, core::privacy_unit::user);
  EXPECT_DOUBLE_EQ(tau_random_effects(0.5, 0.25, 100, 0.1), std::sqrt(1.5 * std::log(2000.0)));
}

TEST(Longitudinal, PerUserOlsWlsAndSingular) {
  // user 0: y = 1 + 2t exactly; user 1: noisy; user 2: constant regressor (singular).
  const std::size_t n = 3, T = 4, p = 2;
  std::vector<double> x(n * T * p), y(n * T);
  const double y1[4] = {0.3, 1.9, 2.2, 4.1};
  for (std::size_t t = 0; t < T; ++t) {
    const double tt = static_cast<double>(t);
    for (std::size_t u = 0; u < n; ++u) {
      x[(u * T + t) * p] = 1.0;
      x[(u * T + t) * p + 1] = u == 2 ? 1.0 : tt;
    }
    y[t] = 1.0 + 2.0 * tt;
    y[T + t] = y1[t];
    y[2 * T + t] = 5.0;
  }
  std::size_t singular = 0;
  const panel_view xv{x, n, T, p};
  const auto b = detail::per_user_coefficients(xv, y, regression_weighting::ols, {}, &singular);
  EXPECT_NEAR(b[0], 1.0, 1e-12);
  EXPECT_NEAR(b[1], 2.0, 1e-12);
  // simple regression on t = 0..3: slope = Σ(t − 1.5)(y − ȳ)/Σ(t − 1.5)², intercept ȳ − 1.5 slope
  double ybar = (0.3 + 1.9 + 2.2 + 4.1) / 4, sxy = 0, sxx = 0;
  for (int t = 0; t < 4; ++t) {
    sxy += (t - 1.5) * (y1[t] - ybar);
    sxx += (t - 1.5) * (t - 1.5);
  }
  EXPECT_NEAR(b[3], sxy / sxx, 1e-12);
  EXPECT_NEAR(b[2], ybar - 1.5 * sxy / sxx, 1e-12);
  EXPECT_EQ(singular, 1u);
  EXPECT_EQ(b[4], 0.0);
  EXPECT_EQ(b[5], 0.0);
  // weighted with Σ = I equals OLS
  std::vector<double> eye(T * T, 0.0);
  for (std::size_t t = 0; t < T; ++t) eye[t * T + t] = 1.0;
  const auto w = detail::per_user_coefficients(xv, y, regression_weighting::weighted, eye, nullptr);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(w[i], b[i], 1e-12);
  // diagonal Σ = diag(1, 4, 1, 4): WLS with weights (1, 1/4, 1, 1/4) by hand for user 1
  std::vector<double> dg(T * T, 0.0);
  const double wt[4] = {1, 0.25, 1, 0.25};
  for (std::size_t t = 0; t < T; ++t) dg[t * T + t] = 1.0 / wt[t];
  const auto wl = detail::per_user_coefficients(xv, y, regression_weighting::weighted, dg, nullptr);
  double sw = 0, swt = 0, swy = 0;
  for (int t = 0; t < 4; ++t) {
    sw += wt[t];
    swt += wt[t] * t;
    swy += wt[t] * y1[t];
  }
  const double tb = swt / sw, yb = swy / sw;
  double nume = 0, deno = 0;
  for (int t = 0; t < 4; ++t) {
    nume += wt[t] * (t - tb) * (y1[t] - yb);
    deno += wt[t] * (t - tb) * (t - tb);
  }
  EXPECT_NEAR(wl[3], nume / deno, 1e-12);
  EXPECT_NEAR(wl[2], yb - tb * nume / deno, 1e-12);
  // errors
  std::vector<double> notpd(T * T, 1.0);
  EXPECT_THROW(detail::per_user_coefficients(xv, y, regression_weighting::weighted, notpd, nullptr),
               core::invalid_argument_error);
  EXPECT_THROW(detail::per_user_coefficients(xv, y, regression_weighting::weighted, {}, nullptr),
               core::invalid_argument_error);
  EXPECT_THROW(detail::per_user_coefficients(
                   panel_view{x, n * 4, 1, 2}, y, regression_weighting::ols, {}, nullptr),
               core::invalid_argument_error);
  // the private fit is Algorithm 5 on β̂ with the same draws; user level
  longitudinal_options o;
  o.base.noise = mechanisms::noise_kind::research_grade;  // recomputed draws
  o.base = {0.5, 1e-6, interval_rule::paper(3.0)};
  const auto g0 = rng::stream(2, 2, 2, rng::purpose::noise);
  auto g1 = g0, g2 = g0;
  const auto fit = longitudinal_regression(xv, y, o, g1);
  const auto ref = winsorized_mean_hd(b, p, o.base, g2);
  EXPECT_EQ(fit.fit.estimate, ref.estimate);
  EXPECT_EQ(fit.singular_users, 1u);
  EXPECT_EQ(fit.fit.privacy.unit, core::privacy_unit::user);
}

TEST(PriestleyChao, ConstantsRadiiAndPoints) {
  const auto k = constants(kernel_kind::gaussian);
  EXPECT_NEAR(k.sup, 0.3989422804014327, 1e-15);
  EXPECT_NEAR(k.lipschitz, 0.24197072451914337, 1e-15);
  EXPECT_NEAR(k.mu1, 0.7978845608028654, 1e-15);
  EXPECT_EQ(kernel_value(kernel_kind::box, 1.0), 0.5);
  EXPECT_EQ(kernel_value(kernel_kind::box, 1.0000001), 0.0);
  priestley_chao_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // recomputed draws
  o.bandwidth = 0.1;
  o.lipschitz = 2 * M_PI;
  o.sup_norm = 1.0;
  o.noise_variance_max = 2.0;
  o.gamma = 0.1;
  const std::size_t n = 500;
  const double l = std::log(2.0 * n / 0.1);
  EXPECT_NEAR(priestley_chao_tau(o, n),
              0.1 * (2 * M_PI * k.mu1 + 1) +
                  (2 * M_PI * k.sup + k.lipschitz + std::sqrt(2 * 2.0 * k.sup * l)) / 0.1,
              1e-12);
  o.radius = pc_radius::safe;
  EXPECT_NEAR(priestley_chao_tau(o, n),
              1.0 * (1 + k.sup / 0.1) + std::sqrt(2.0) * k.sup * std::sqrt(2 * l) / 0.1,
              1e-12);
  EXPECT_NEAR(priestley_chao_margin(0.1), 0.1 * std::sqrt(2 * std::log(20.0)), 1e-15);
  EXPECT_NEAR(priestley_chao_bandwidth(1.0, 1000, 1.0), std::max(0.1, std::sqrt(1e-3)), 1e-15);
  // grid of 3 points: basic split (ε/3, δ/3), each point Algorithm 4 on Z(x)
  auto y = normal_data(n, 0.0, 1.0, 70);
  for (std::size_t i = 0; i < n; ++i) y[i] += std::sin(2 * M_PI * i / double(n));
  o.target.epsilon = 0.9;
  o.target.delta = 1e-6;
  const std::vector<double> pts = {0.25, 0.5, 0.75};
  const auto g0 = rng::stream(3, 3, 3, rng::purpose::noise);
  auto g1 = g0, g2 = g0;
  const auto r = priestley_chao(y, pts, o, g1);
  EXPECT_EQ(r.budget.kind, composition::basic);
  EXPECT_DOUBLE_EQ(r.privacy.epsilon, 0.9);
  EXPECT_DOUBLE_EQ(r.privacy.delta, 1e-6);
  double se = 0;
  for (const auto& e : r.ledger) se += e.epsilon;
  EXPECT_NEAR(se, 0.9, 1e-15);
  for (std::size_t j = 0; j < 3; ++j) {
    std::vector<double> z(n);
    for (std::size_t i = 0; i < n; ++i)
      z[i] = y[i] * kernel_value(kernel_kind::gaussian, (i / double(n) - pts[j]) / 0.1) / 0.1;
    const auto m = winsorized_mean(
        z,
        {0.3, 1e-6 / 3, interval_rule::paper(r.tau), mechanisms::noise_kind::research_grade},
        g2);
    EXPECT_NEAR(r.estimate[j], m.estimate, 1e-12) << j;
    EXPECT_TRUE(r.interior[j]);
  }
  EXPECT_NEAR(r.noise_scale, 12 * r.tau / (n * 0.3), 1e-15);
}

TEST(Local, BinsBudgetAndRecomputedEstimate) {
  local_mean_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // recomputed draws
  o.epsilon = 2.0;
  o.rule = interval_rule::paper(5.0);
  o.bound = 5.0;
  EXPECT_EQ(o.bins(), 3u);  // K = ⌈5/10⌉ = 1: bins −1, 0, 1 cover [−15, 15] ⊇ [−5, 5]
  o.rule = interval_rule::paper(1.0);
  o.bound = 10.0;
  EXPECT_EQ(o.bins(), 11u);
  const std::size_t n = 3000;
  auto x = normal_data(n, 2.0, 1.0, 80);
  for (bool literal : {false, true}) {
    o.literal_budget = literal;
    const auto g0 = rng::stream(4, 4, literal, rng::purpose::noise);
    auto g = g0;
    const auto r = local_mean(x, o, g);
    const double eh = literal ? 0.5 : 1.0;
    EXPECT_EQ(r.ledger[0].epsilon, eh);
    EXPECT_EQ(r.ledger[1].epsilon, 1.0);
    EXPECT_DOUBLE_EQ(r.privacy.epsilon, eh + 1.0);
    EXPECT_EQ(r.privacy.model, trust_model::local);
    EXPECT_EQ(r.privacy.delta, 0.0);
    EXPECT_DOUBLE_EQ(r.noise_scale, 12.0 * 1.0 / 2.0);
    // recompute: RR reports, then n Laplace draws in user order
    auto g2 = g0;
    std::vector<std::int64_t> keys(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto k = detail::bin_index(x[i], 2.0);
      keys[i] = (k < -5 || k > 5) ? -1 : k + 5;
    }
    const auto h = mechanisms::local_histogram::calibrate(eh, 11);
    const auto freq = h.estimate(h.report_counts(keys, g2), n);
    std::size_t best = 0;
    for (std::size_t i = 1; i < freq.size(); ++i)
      if (freq[i] > freq[best]) best = i;
    const double m = 2.0 * (static_cast<double>(best) - 5);
    EXPECT_EQ(r.midpoint, m);
    // Diagnostics: occupied_bins counts the bins holding ≥ 1 user (here 4–6 of the 11: the data
    // span ≈ [−1.5, 5.5]); RR reports on all 11 bins (released_bins).
    std::set<std::int64_t> occ;
    for (auto k : keys)
      if (k >= 0) occ.insert(k);
    EXPECT_EQ(r.diag.occupied_bins, occ.size());
    EXPECT_LT(r.diag.occupied_bins, 11u);
    EXPECT_EQ(r.diag.released_bins, 11u);
    std::size_t clipped = 0;
    for (double v : x) clipped += (v < m - 3 || v > m + 3);
    EXPECT_DOUBLE_EQ(r.diag.clipped_fraction, static_cast<double>(clipped) / n);
    std::vector<double> noise(n);
    mechanisms::laplace::from_scale(6.0).fill(noise, g2);
    long double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += std::min(std::max(x[i], m - 3), m + 3) + noise[i];
    EXPECT_NEAR(r.estimate, static_cast<double>(s / n), 1e-11);
  }
  // HD: basic over d = 2 (ε/2 each), totals
  std::vector<double> x2(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    x2[2 * i] = x[i];
    x2[2 * i + 1] = -x[i];
  }
  o.literal_budget = false;
  auto g = rng::stream(4, 4, 9, rng::purpose::noise);
  const auto hd = local_mean_hd(x2, 2, o, g);
  EXPECT_EQ(hd.budget.kind, composition::basic);
  EXPECT_DOUBLE_EQ(hd.privacy.epsilon, 2.0);
  EXPECT_EQ(hd.ledger.size(), 4u);
  EXPECT_NEAR(hd.estimate[0], -hd.estimate[1], 1.0);
  EXPECT_THROW(local_mean(x, {0.0, interval_rule::paper(1.0), 1.0}, g),
               core::invalid_argument_error);
  EXPECT_THROW(local_mean(x, {1.0, interval_rule::paper(1e-9), 1e9}, g),
               core::invalid_argument_error);
}

}  // namespace
}  // namespace dpx::estimators
