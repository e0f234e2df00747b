#pragma once
/// \file
/// Worst-case neighbouring pairs of the one-release estimators of dpx::estimators
/// (winsorized_mean, kv_mean, local_mean, user_mean, random_effects_mean,
/// longitudinal_regression with p = 1, priestley_chao at a point: their mean stage), and the
/// broken variants that check the audit's power. The mechanisms' pairs, sample_pair and the
/// conventions (trials, randomness) are in pairs.hpp; the histogram stage in stage_pairs.hpp;
/// the composed and multi-step estimators in composed_pairs.hpp.
///
///  * Estimators (dpx::estimators). Each of these estimators spends part of its epsilon on a
///    private interval I^ (a histogram stage) and the rest on a Laplace-noised clipped mean. The
///    pairs below make the histogram stage (almost) identical in law on D and D' and the clipped
///    means as far apart as the mean stage's sensitivity allows, so they audit the MEAN STAGE'S
///    SHARE of the budget, and that share (not the total epsilon) is the claim they are checked
///    against (audits.hpp):
///     - winsorized_mean (S1 Alg. 4) and kv_mean (Karwa–Vadhan, known sigma): n - 1 records at 0
///       and one record at -10 kappa (D) or +10 kappa (D'). The histogram stage (stable
///       histogram at (eps/2, delta)) sees bin 0 with n - 1 records and the lone record's far
///       bin; I^ = [-kappa, kappa] unless the lone record's bin is released, which has
///       probability exactly P(Lap(2/(eps_h n)) >= (2/(eps_h n)) ln(2/delta)) = delta/4 on
///       either side (mechanisms::stable_histogram's threshold). Given I^ = [-kappa, kappa] the
///       record is clipped to -kappa vs +kappa: the clipped means differ by 2 kappa / n, exactly
///       the sensitivity the mean's Laplace noise (scale 2 kappa/(n eps_m), eps_m = eps/2) is
///       calibrated for, and the mean noise is independent of the histogram noise. Hence on
///       this pair the release (estimate, I^) is (eps_m - ln(1 - delta/4), delta/4)-DP:
///       P_D(S) <= P_D(S, I^ = I0) + delta/4 <= e^eps_m L_D'(S) + delta/4 and L_D'(S) <=
///       P_D'(S) / (1 - delta/4), L the law of the estimate given I^ = I0. Statistic: the
///       estimate (a Laplace location pair: the threshold test attains e^eps_m).
///     - local_mean (S1 Alg. 8, epsilon-LDP per user): a single user (the unit of local DP),
///       x = -x_out (D) or +x_out (D'), x_out = 2hK + h + kappa + 2h: outside every histogram
///       bin, so round 1 sends the all-zero one-hot vector on BOTH sides (identical law of I^),
///       and |x| exceeds every possible |m^| + kappa, so round 2 clips x to m^ -+ kappa on the
///       two sides. Statistic: estimate - m^ (I^ is broadcast, public) = -+kappa + Lap(2
///       kappa/eps_m), eps_m = eps/2: on this pair the release is exactly eps_m-DP (delta = 0)
///       and the threshold test attains e^eps_m.
///     - user_mean (S1 Def 5.1, user-level DP: a neighbouring panel replaces ONE USER's whole
///       row of T values), d = 1: n - 1 users with all T values at 0 and one user with all T
///       values at -10 kappa (D) or +10 kappa (D'): every one of that user's T values changes,
///       which item-level DP would not cover. The estimator is winsorized_mean_hd on the n user
///       averages; d = 1 is split_budget's `single` case (no composition, no rho_c), so it is
///       the winsorized pair above on the averages (0, ..., 0, -+10 kappa): histogram stage
///       stable histogram at (eps/2, delta) over the n users (threshold 2 ln(2/delta)/(eps_h n)
///       + 1/n, noise Lap(2/(eps_h n))), the lone user's bin released with probability delta/4,
///       clipped means of the averages -+kappa/n, which differ by 2 kappa/n = the sensitivity
///       the mean noise Lap(2 kappa/(n eps_m)) is calibrated for (n = USERS, not n T records).
///       Same claim: (eps/2 - ln(1 - delta/4), delta/4). random_effects_mean (S1 Alg. 4 on
///       the averages) and longitudinal_regression with p = 1 (Alg. 5 = Alg. 4 on the per-user
///       OLS coefficients beta_u; the last user's whole response row gives beta_u = -+10 kappa)
///       have the same pair on the averages / coefficients and the same claim (tested draw for
///       draw against winsorized_mean_pair; not in audits.hpp's named audits).
///     - priestley_chao at one point x0 = i0/n (S1 Def 4.8, item level): all responses 0 except
///       y_i0 = -+Y, Y = 10 kappa / w, w = K(0)/b (the weight of observation i0 at x0): the
///       terms Z_i = y_i K((x_i - x0)/b)/b are 0 except Z_i0 = -+10 kappa (up to rounding), and
///       the estimator is Algorithm 4 on Z at the whole (eps, delta) (one point: no split),
///       kappa = 3 tau: the winsorized pair above on Z, same claim. Any other i0 with w > 0
///       gives the same pair (Y rescaled); the sensitivity 2 kappa/n is attained.
///    These pairs do not exercise the histogram stage's epsilon share; stage_pairs.hpp does
///    (counts straddling the stable histogram's threshold, so that "only bin B released" is a
///    frequent event whose likelihood ratio is exactly e^eps_h).
///  * Broken estimators (power): half_noise_estimate re-derives the estimator's noise from a
///    correct release (noise = estimate - clipped mean over the released I^; the audit knows
///    the data) and halves it. That is exactly the estimator with its mean-stage Laplace at half
///    scale (histogram stage unchanged): eps_m doubles on these pairs.

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dpx/audit/pairs.hpp"
#include "dpx/core/error.hpp"
#include "dpx/estimators/central.hpp"
#include "dpx/estimators/local.hpp"
#include "dpx/estimators/nonparametric.hpp"
#include "dpx/estimators/user_level.hpp"

namespace dpx::audit {

/// The broken variant of an estimator release (file comment): the clipped mean c over the
/// released interval r.range is recomputed from the data x, and the release's noise
/// (estimate - c) is halved: c + (estimate - c) / 2. For the mean stage's Laplace noise this is
/// exactly the same estimator with noise at half scale.
inline double half_noise_estimate(const estimators::mean_result& r, std::span<const double> x) {
  double sum = 0;
  for (double v : x) sum += std::clamp(v, r.range.lo, r.range.hi);
  const double c = sum / static_cast<double>(x.size());
  return c + 0.5 * (r.estimate - c);
}

/// half_noise_estimate for a one-coordinate release (estimate and interval of coordinate 0).
inline double half_noise_estimate(double estimate,
                                  const estimators::interval& range,
                                  std::span<const double> x) {
  estimators::mean_result r;
  r.estimate = estimate;
  r.range = range;
  return half_noise_estimate(r, x);
}

/// WinsorizedMean1D (S1 Algorithm 4, estimators::winsorized_mean): n - 1 records at 0 plus
/// one at -10 kappa (D) or +10 kappa (D'); statistic = the estimate. n >= 2. half_noise: the
/// broken variant (half_noise_estimate).
template <std::uniform_random_bit_generator G>
sample_pair winsorized_mean_pair(const estimators::winsorized_mean_options& o,
                                 std::size_t n,
                                 std::size_t trials,
                                 G& g,
                                 bool half_noise = false) {
  const char* fn = "audit::winsorized_mean_pair";
  detail::check_trials(fn, trials);
  o.validate(fn);
  if (n < 2) core::throw_invalid(fn, "n", static_cast<double>(n), "must be >= 2");
  auto p = detail::one_statistic(
      trials, "estimate", "n - 1 zeros plus one record at -10 kappa vs +10 kappa");
  std::vector<double> x(n, 0.0);
  for (int side = 0; side < 2; ++side) {
    x[n - 1] = (side == 0 ? -10.0 : 10.0) * o.rule.radius;
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::winsorized_mean(std::span<const double>(x), o, g);
      out[i] = half_noise ? half_noise_estimate(r, x) : r.estimate;
    }
  }
  return p;
}

/// The radius kappa = 4 sigma sqrt(ln(n / beta)) that estimators::kv_mean uses for n records.
inline double kv_radius(const estimators::kv_mean_options& o, std::size_t n) {
  return 4.0 * o.sigma * std::sqrt(std::log(static_cast<double>(n) / o.beta));
}

/// Karwa–Vadhan mean with known sigma (estimators::kv_mean): n - 1 records at 0 plus one at
/// -10 kappa (D) or +10 kappa (D'), kappa = kv_radius(o, n); statistic = the estimate. n >= 2
/// and n > beta (kappa > 0). half_noise: the broken variant (half_noise_estimate).
template <std::uniform_random_bit_generator G>
sample_pair kv_mean_pair(const estimators::kv_mean_options& o,
                         std::size_t n,
                         std::size_t trials,
                         G& g,
                         bool half_noise = false) {
  const char* fn = "audit::kv_mean_pair";
  detail::check_trials(fn, trials);
  o.validate();
  if (n < 2) core::throw_invalid(fn, "n", static_cast<double>(n), "must be >= 2");
  auto p = detail::one_statistic(
      trials, "estimate", "n - 1 zeros plus one record at -10 kappa vs +10 kappa");
  std::vector<double> x(n, 0.0);
  const double kappa = kv_radius(o, n);
  for (int side = 0; side < 2; ++side) {
    x[n - 1] = (side == 0 ? -10.0 : 10.0) * kappa;
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::kv_mean(std::span<const double>(x), o, g).mean;
      out[i] = half_noise ? half_noise_estimate(r, x) : r.estimate;
    }
  }
  return p;
}

/// The input magnitude x_out of local_mean_pair (file comment): outside every bin of the local
/// histogram and beyond every |m^| + kappa.
inline double local_mean_outside(const estimators::local_mean_options& o) {
  const double h = o.rule.bin_half_width;
  const double K = std::ceil(o.bound / (2.0 * h));  // local_projection_core's K
  return 2.0 * h * K + h + o.rule.radius + 2.0 * h;
}

/// Local mean (estimators::local_mean, S1 Alg. 8), one user: x = -x_out (D) vs +x_out (D');
/// statistic = estimate - m^ (the broadcast interval's midpoint). half_noise: the broken
/// variant (half_noise_estimate).
template <std::uniform_random_bit_generator G>
sample_pair local_mean_pair(const estimators::local_mean_options& o,
                            std::size_t trials,
                            G& g,
                            bool half_noise = false) {
  const char* fn = "audit::local_mean_pair";
  detail::check_trials(fn, trials);
  o.validate(fn);
  auto p = detail::one_statistic(trials,
                                 "estimate - midpoint of the broadcast interval",
                                 "one user, x = -x_out vs +x_out (outside every bin)");
  const double xo = local_mean_outside(o);
  for (int side = 0; side < 2; ++side) {
    const double x[1] = {side == 0 ? -xo : xo};
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::local_mean(std::span<const double>(x, 1), o, g);
      out[i] = (half_noise ? half_noise_estimate(r, x) : r.estimate) - r.midpoint;
    }
  }
  return p;
}

namespace detail {
/// The panels of the user-level pairs: users - 1 users with every value 0 plus one user with
/// all `times` values at -10 kappa (D) or +10 kappa (D'). statistic(view, averages) gives one
/// trial's statistic; `averages` holds the user averages when need_averages (the broken
/// variants), else is empty. D's trials first, then D''s.
template <class Statistic>
sample_pair lone_user_pair(const char* fn,
                           std::size_t users,
                           std::size_t times,
                           double kappa,
                           std::size_t trials,
                           bool need_averages,
                           Statistic statistic) {
  if (users < 2) core::throw_invalid(fn, "users", static_cast<double>(users), "must be >= 2");
  if (times < 1) core::throw_invalid(fn, "times", static_cast<double>(times), "must be >= 1");
  auto p = one_statistic(trials,
                         "estimate",
                         "n - 1 users at 0 plus one user's whole row (T values) at -10 kappa vs "
                         "+10 kappa");
  std::vector<double> panel(users * times, 0.0);
  const estimators::panel_view view{panel, users, times, 1};
  for (int side = 0; side < 2; ++side) {
    std::fill(panel.end() - static_cast<std::ptrdiff_t>(times),
              panel.end(),
              (side == 0 ? -10.0 : 10.0) * kappa);
    const std::vector<double> avg =
        need_averages ? estimators::user_averages(view) : std::vector<double>{};
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) out[i] = statistic(view, avg);
  }
  return p;
}
}  // namespace detail

/// User-level mean (estimators::user_mean, d = 1) on a users x times panel: n - 1 users with
/// every value 0 plus one user with all `times` values at -10 kappa (D) or +10 kappa (D'),
/// kappa = o.rule.radius; statistic = the estimate. users >= 2, times >= 1. half_noise: the
/// broken variant (half_noise_estimate on the user averages).
template <std::uniform_random_bit_generator G>
sample_pair user_mean_pair(const estimators::winsorized_mean_hd_options& o,
                           std::size_t users,
                           std::size_t times,
                           std::size_t trials,
                           G& g,
                           bool half_noise = false) {
  const char* fn = "audit::user_mean_pair";
  detail::check_trials(fn, trials);
  o.validate(fn);
  return detail::lone_user_pair(
      fn, users, times, o.rule.radius, trials, half_noise, [&](const auto& view, const auto& avg) {
        const auto r = estimators::user_mean(view, o, g);
        return half_noise ? half_noise_estimate(r.estimate[0], r.ranges[0], avg) : r.estimate[0];
      });
}

/// Random-effects location estimate (estimators::random_effects_mean: S1 Alg. 4 on the user
/// averages, user level): the panels of user_mean_pair (n - 1 users at 0, one user's whole row
/// at -10 kappa vs +10 kappa); statistic = the estimate. The same pair as winsorized_mean_pair
/// on the averages, draw for draw, hence the same claim. users >= 2, times >= 1.
template <std::uniform_random_bit_generator G>
sample_pair random_effects_mean_pair(const estimators::winsorized_mean_options& o,
                                     std::size_t users,
                                     std::size_t times,
                                     std::size_t trials,
                                     G& g,
                                     bool half_noise = false) {
  const char* fn = "audit::random_effects_mean_pair";
  detail::check_trials(fn, trials);
  o.validate(fn);
  return detail::lone_user_pair(
      fn, users, times, o.rule.radius, trials, half_noise, [&](const auto& view, const auto& avg) {
        const auto r = estimators::random_effects_mean(view, o, g);
        return half_noise ? half_noise_estimate(r, avg) : r.estimate;
      });
}

/// Longitudinal regression (estimators::longitudinal_regression, OLS, p = 1, user level) on the
/// public design x_{u,t} = (t + 1)/T for every user: responses 0 for n - 1 users (beta_u = 0)
/// and y_{u,t} = -+10 kappa x_{u,t} for the last user (its whole response row changes; beta_u =
/// -+10 kappa up to rounding); statistic = the estimate. p = 1 is split_budget's single case:
/// S1 Alg. 4 on the beta_u, i.e. the winsorized pair on the per-user coefficients, same claim.
/// users >= 2, times >= 1. half_noise: half_noise_estimate on the per-user coefficients.
template <std::uniform_random_bit_generator G>
sample_pair longitudinal_regression_pair(const estimators::winsorized_mean_hd_options& o,
                                         std::size_t users,
                                         std::size_t times,
                                         std::size_t trials,
                                         G& g,
                                         bool half_noise = false) {
  const char* fn = "audit::longitudinal_regression_pair";
  detail::check_trials(fn, trials);
  o.validate(fn);
  if (users < 2) core::throw_invalid(fn, "users", static_cast<double>(users), "must be >= 2");
  if (times < 1) core::throw_invalid(fn, "times", static_cast<double>(times), "must be >= 1");
  auto p = detail::one_statistic(trials,
                                 "estimate",
                                 "p = 1, x_t = (t + 1)/T; n - 1 users with y = 0 plus one user's "
                                 "whole response row y_t = -10 kappa x_t vs +10 kappa x_t");
  std::vector<double> x(users * times), y(users * times, 0.0);
  for (std::size_t u = 0; u < users; ++u)
    for (std::size_t t = 0; t < times; ++t)
      x[u * times + t] = static_cast<double>(t + 1) / static_cast<double>(times);
  const estimators::panel_view view{x, users, times, 1};
  estimators::longitudinal_options lo;
  lo.base = o;
  for (int side = 0; side < 2; ++side) {
    const double s = (side == 0 ? -10.0 : 10.0) * o.rule.radius;
    for (std::size_t t = 0; t < times; ++t)
      y[(users - 1) * times + t] = s * x[(users - 1) * times + t];
    const std::vector<double> beta =
        half_noise ? estimators::detail::per_user_coefficients(
                         view, y, estimators::regression_weighting::ols, {}, nullptr)
                   : std::vector<double>{};
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::longitudinal_regression(view, y, lo, g).fit;
      out[i] = half_noise ? half_noise_estimate(r.estimate[0], r.ranges[0], beta) : r.estimate[0];
    }
  }
  return p;
}

/// The observation index i0 = n/2 and point x0 = i0/n of priestley_chao_pair.
inline std::size_t priestley_chao_index(std::size_t n) { return n / 2; }

/// Priestley–Chao at the single point x0 = i0/n (estimators::priestley_chao, one point, the
/// whole (eps, delta)): every response 0 except y_i0 = -Y (D) or +Y (D'), Y = 10 kappa b /
/// K(0), kappa = 3 priestley_chao_tau(o, n), i0 = priestley_chao_index(n); statistic = the
/// estimate. n >= 2. half_noise: the broken variant (half_noise_estimate on the terms Z_i).
template <std::uniform_random_bit_generator G>
sample_pair priestley_chao_pair(const estimators::priestley_chao_options& o,
                                std::size_t n,
                                std::size_t trials,
                                G& g,
                                bool half_noise = false) {
  const char* fn = "audit::priestley_chao_pair";
  detail::check_trials(fn, trials);
  o.validate();
  if (n < 2) core::throw_invalid(fn, "n", static_cast<double>(n), "must be >= 2");
  auto p =
      detail::one_statistic(trials,
                            "estimate at x0",
                            "responses 0 except y_i0 = -Y vs +Y (Z_i0 = -+10 kappa at x0 = i0/n)");
  const std::size_t i0 = priestley_chao_index(n);
  const double x0[1] = {static_cast<double>(i0) / static_cast<double>(n)};
  const double kappa = 3.0 * estimators::priestley_chao_tau(o, n);
  const double big = 10.0 * kappa * o.bandwidth / estimators::kernel_value(o.kernel, 0.0);
  std::vector<double> y(n, 0.0), z(n);
  for (int side = 0; side < 2; ++side) {
    y[i0] = side == 0 ? -big : big;
    if (half_noise) estimators::detail::priestley_chao_terms(y, x0[0], o.bandwidth, o.kernel, z);
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::priestley_chao(
          std::span<const double>(y), std::span<const double>(x0, 1), o, g);
      out[i] = half_noise ? half_noise_estimate(r.estimate[0], r.ranges[0], z) : r.estimate[0];
    }
  }
  return p;
}

}  // namespace dpx::audit
