#pragma once
/// \file
/// Mean-stage pairs of the composed and multi-step estimators (the one-release estimators are in
/// pairs.hpp, the histogram stage in stage_pairs.hpp). Each pair puts ONE record far outside
/// the bulk on both sides (-10 kappa vs +10 kappa, or -P vs +P), so that every histogram the
/// estimator runs sees it only as a lone far bin (released with probability delta'/4, delta'
/// that histogram's delta: Lemma C.1's threshold) or not at all, and every mean stage clips it
/// to the two ends of its interval: each mean release is a Laplace location pair at exactly its
/// calibrated sensitivity. The claims are the composed mean-stage shares, derived below; the
/// derivation is the same as for winsorized_mean_pair (estimator_pairs.hpp): if the releases on D
/// and D' have, given that no lone bin is released (probability >= 1 - delta_sum), likelihood ratio
/// <= e^{eps_sum}, the release is (eps_sum - ln(1 - delta_sum), delta_sum)-DP on the pair.
///
///  * winsorized_mean_hd (S1 Alg. 5), d > 1 coordinates, basic composition (forced): the
///    per-coordinate budget is (eps/d, delta/d), i.e. Algorithm 4 at (eps/(2d), delta/d) +
///    eps/(2d) per coordinate. Pair: n - 1 rows of zeros and one row at -10 kappa (D) vs
///    +10 kappa (D') in EVERY coordinate. Per coordinate: the lone bin is released with
///    probability delta/(4d); otherwise I^_j = [-kappa, kappa] and the clipped means are
///    -+kappa/n, a Laplace pair at the sensitivity 2 kappa/n of the noise Lap(2 kappa/(n
///    eps/(2d))). The d mean noises are independent: on the pair the d estimates are
///    (d eps/(2d) = eps/2)-DP given no lone bin, and no lone bin with probability >= 1 - delta/4.
///    Claim: (eps/2 - ln(1 - delta/4), delta/4) (the composed mean stages; per coordinate
///    (eps/(2d) - ln(1 - delta/(4d)), delta/(4d))). Statistic: the exact log-likelihood ratio of
///    the d estimates, sum_j laplace_llr(y_j + kappa/n, 2 kappa/n) / b (pairs.hpp; monotone in
///    the product likelihood ratio). Its top value eps/2 is reached when every y_j >= kappa/n:
///    probability 2^-d on D', e^{-eps/2} 2^-d on D — the pair's ceiling is attained.
///  * user_mean with d > 1 (user level): one user's whole block of T x d values at -+10 kappa;
///    user_mean is winsorized_mean_hd on the user averages, so this is the pair above on the
///    averages (n = users), draw for draw: same claim, at user level.
///  * local_mean_hd (S1 Alg. 5 around Alg. 8, local DP), d > 1, one user at -x_out vs +x_out in
///    every coordinate (outside every bin): per coordinate the local_mean pair at eps/d; the
///    d rounds 2 compose to eps/2 exactly. Claim: (eps/2)-LDP, delta = 0.
///  * priestley_chao on a grid of J points (S1 Def 4.8, basic composition forced: (eps/J,
///    delta/J) per point): points x_j = (i0 + j)/n, j < J (i0 = n/2), all responses 0 except
///    y_i0 = -Y vs +Y, Y = 10 kappa b / min_j K((x_i0 - x_j)/b): every point's kernel term Z_i0
///    has magnitude >= 10 kappa, all others are 0. Same structure as winsorized_mean_hd with d = J:
///    claim (eps/2 - ln(1 - delta/4), delta/4), same statistic.
///  * sample_split_mean (S1 eq. (1), d = 1, paper split: histogram on the first floor(n/2) rows
///    at (eps/2, delta), mean of the other rows at eps/2; parallel: eps and eps): zeros, except
///    the LAST row (in the mean half) at -10 kappa vs +10 kappa. The histogram half is identical
///    on D and D' (identical law of I^ = [m^ +- kappa], m^ = 0 whether bin 0 is released or the
///    histogram fails), and the lone record is clipped to -kappa vs +kappa: a Laplace pair at the
///    sensitivity 2 kappa/|X| of the noise. Claim: eps_m-DP EXACTLY (delta = 0 on this pair),
///    eps_m = eps/2 (paper) or eps (parallel). Statistic: the estimate.
///  * kv_mean_unknown_sigma (Karwa–Vadhan with sigma unknown: sigma histogram (eps/3, delta/2)
///    on the floor(n/2) pair differences |x_{2i+1} - x_{2i}|, range histogram (eps/3, delta/2),
///    mean eps/3), n odd: x_{2i} = 0, x_{2i+1} = 1 for every pair and the last record x_{n-1}
///    (UNPAIRED: n odd, so the sigma histogram never sees it) at -P vs +P, P = 10 kappa(max(4,
///    sigma_fallback)), kappa(s) = 4 s sqrt(ln(n/beta)). The sigma histogram is identical on D and
///    D' (all differences 1: bin 0, sigma^ = 2^{0+2} = 4, or the fallback on failure); the range
///    histogram sees 0s and 1s (within 1 of bin 0's centre for either sigma^) and the lone
///    record's far bin, released with probability (delta/2)/4 = delta/8; otherwise |m^| <= 1 and
///    the lone record clips to m^ -+ kappa^: a Laplace pair at the calibrated sensitivity
///    2 kappa^/n. Claim: (eps/3 - ln(1 - delta/8), delta/8). Statistic: the estimate.
///  * longitudinal_regression (S1 Def 5.13, OLS) with p > 1 coefficients (user level): T = p
///    and the identity design x_t = e_t for every user, so that beta^_u = Y_u; one user's whole
///    response row at -+10 kappa. Algorithm 5 on beta^ is then the winsorized_mean_hd pair with
///    d = p on the coefficients, draw for draw (tested): claim (eps/2 - ln(1 - delta/4),
///    delta/4) at user level, attained. Not a named audit (it adds no new randomness).
///  * local_user_mean (S1 Sec. 6, local DP, user level), d > 1: one user whose whole T x d block
///    is at -+x_out (T a power of two, so the average is exactly -+x_out): the local_mean_hd
///    pair on the average, draw for draw (tested): claim (eps/2)-LDP exactly. Not a named audit.
///  Broken variants: half_noise_estimate on every mean release (estimator_pairs.hpp): the mean
///  stages at half their scale (their eps doubles), histograms unchanged.
///
/// The plug-in variance estimators (variance.hpp) have their own pairs in variance_pairs.hpp
/// (one iteration; both of their releases move; exact epsilon 3 eps/4 against the claim eps).
/// NOT covered: the composed pairs under ADVANCED composition (d > 8 ln(1/rho_c)), where the
/// per-coordinate claim eps/sqrt(8 d ln(1/rho_c)) composes to (eps, delta + rho_c) and no pair
/// of this kind approaches it with feasible trials.
///
/// Randomness: D's trials first, then D''s, from the generator passed in.

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <random>
#include <span>
#include <vector>

#include "dpx/audit/estimator_pairs.hpp"
#include "dpx/core/error.hpp"
#include "dpx/estimators/central.hpp"
#include "dpx/estimators/local.hpp"
#include "dpx/estimators/nonparametric.hpp"
#include "dpx/estimators/user_level.hpp"

namespace dpx::audit {

namespace detail {
/// sum_j laplace_llr(y_j + c, 2c) / b: the log-likelihood ratio of independent Laplace releases
/// centred at +c (D') vs -c (D), scale b.
inline double symmetric_laplace_llr(std::span<const double> y, double c, double b) {
  double s = 0;
  for (double v : y) s += laplace_llr(v + c, 2 * c);
  return s / b;
}
}  // namespace detail

/// winsorized_mean_hd (S1 Alg. 5) with d >= 2 coordinates, BASIC composition (o.choice is
/// overridden): n - 1 zero rows plus one row at -10 kappa (D) or +10 kappa (D') in every
/// coordinate; statistic = the log-likelihood ratio of the d estimates (file comment).
/// half_noise: every coordinate's noise halved (half_noise_estimate on its column).
template <std::uniform_random_bit_generator G>
sample_pair winsorized_mean_hd_pair(estimators::winsorized_mean_hd_options o,
                                    std::size_t n,
                                    std::size_t d,
                                    std::size_t trials,
                                    G& g,
                                    bool half_noise = false) {
  const char* fn = "audit::winsorized_mean_hd_pair";
  detail::check_trials(fn, trials);
  o.choice = core::composition_rule::basic;
  o.validate(fn);
  if (n < 2) core::throw_invalid(fn, "n", static_cast<double>(n), "must be >= 2");
  if (d < 2) core::throw_invalid(fn, "d", static_cast<double>(d), "must be >= 2");
  auto p = detail::one_statistic(trials,
                                 "log-likelihood ratio of the d estimates (centres -+kappa/n)",
                                 "n - 1 zero rows plus one row at -10 kappa vs +10 kappa in every "
                                 "coordinate");
  const double kappa = o.rule.radius, c = kappa / static_cast<double>(n);
  std::vector<double> x(n * d, 0.0), y(d);
  for (int side = 0; side < 2; ++side) {
    std::fill(x.end() - static_cast<std::ptrdiff_t>(d), x.end(), (side ? 10.0 : -10.0) * kappa);
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::winsorized_mean_hd(std::span<const double>(x), d, o, g);
      for (std::size_t j = 0; j < d; ++j) {
        y[j] = r.estimate[j];
        if (half_noise) {
          // column j: zeros and the lone value
          std::vector<double> col(n, 0.0);
          col[n - 1] = x[(n - 1) * d + j];
          y[j] = half_noise_estimate(r.estimate[j], r.ranges[j], col);
        }
      }
      out[i] = detail::symmetric_laplace_llr(y, c, r.noise_scale);
    }
  }
  return p;
}

/// User-level mean (estimators::user_mean) with d >= 2 coordinates, BASIC composition (o.choice
/// overridden), USER level: users - 1 users with every value 0 and one user whose whole block
/// of times x d values is at -10 kappa (D) or +10 kappa (D'). user_mean is winsorized_mean_hd on
/// the user averages, and the lone user's average is -+10 kappa in every coordinate: the
/// winsorized_mean_hd pair on the averages, draw for draw (n = users), same claim (eps/2 - ln(1
/// - delta/4), delta/4) at user level, same statistic. half_noise: every coordinate's noise
/// halved.
template <std::uniform_random_bit_generator G>
sample_pair user_mean_hd_pair(estimators::winsorized_mean_hd_options o,
                              std::size_t users,
                              std::size_t times,
                              std::size_t d,
                              std::size_t trials,
                              G& g,
                              bool half_noise = false) {
  const char* fn = "audit::user_mean_hd_pair";
  detail::check_trials(fn, trials);
  o.choice = core::composition_rule::basic;
  o.validate(fn);
  if (users < 2) core::throw_invalid(fn, "users", static_cast<double>(users), "must be >= 2");
  if (times < 1) core::throw_invalid(fn, "times", static_cast<double>(times), "must be >= 1");
  if (d < 2) core::throw_invalid(fn, "d", static_cast<double>(d), "must be >= 2");
  auto p = detail::one_statistic(trials,
                                 "log-likelihood ratio of the d estimates (centres -+kappa/n)",
                                 "n - 1 users at 0 plus one user's whole block (T x d values) at "
                                 "-10 kappa vs +10 kappa");
  const double kappa = o.rule.radius, c = kappa / static_cast<double>(users);
  std::vector<double> panel(users * times * d, 0.0), y(d), col(users, 0.0);
  const estimators::panel_view view{panel, users, times, d};
  for (int side = 0; side < 2; ++side) {
    const double v = (side ? 10.0 : -10.0) * kappa;
    std::fill(panel.end() - static_cast<std::ptrdiff_t>(times * d), panel.end(), v);
    col[users - 1] = v;  // every coordinate's column of user averages: zeros and v
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::user_mean(view, o, g);
      for (std::size_t j = 0; j < d; ++j)
        y[j] = half_noise ? half_noise_estimate(r.estimate[j], r.ranges[j], col) : r.estimate[j];
      out[i] = detail::symmetric_laplace_llr(y, c, r.noise_scale);
    }
  }
  return p;
}

/// Local mean with d >= 2 coordinates (estimators::local_mean_hd, S1 Alg. 5 around Alg. 8),
/// BASIC composition (o.choice overridden), one user (the unit of local DP): x = -x_out (D) or
/// +x_out (D') in every coordinate, x_out = local_mean_outside(o). Per coordinate this is
/// local_mean_pair at eps/d: round 1 sends the all-zero one-hot vector on both sides, round 2
/// clips to m^_j -+ kappa; the d rounds 2 compose to d (eps/(2d)) = eps/2 EXACTLY (pure LDP,
/// delta = 0) on the pair. Statistic: the log-likelihood ratio of the d values estimate_j -
/// m^_j (centres -+kappa, scale the per-user noise). half_noise: every coordinate's noise
/// halved.
template <std::uniform_random_bit_generator G>
sample_pair local_mean_hd_pair(estimators::local_mean_options o,
                               std::size_t d,
                               std::size_t trials,
                               G& g,
                               bool half_noise = false) {
  const char* fn = "audit::local_mean_hd_pair";
  detail::check_trials(fn, trials);
  o.choice = core::composition_rule::basic;
  o.validate(fn);
  if (d < 2) core::throw_invalid(fn, "d", static_cast<double>(d), "must be >= 2");
  auto p = detail::one_statistic(trials,
                                 "log-likelihood ratio of the d values estimate - midpoint "
                                 "(centres -+kappa)",
                                 "one user, x = -x_out vs +x_out in every coordinate");
  const double xo = local_mean_outside(o), kappa = o.rule.radius;
  std::vector<double> x(d), y(d);
  for (int side = 0; side < 2; ++side) {
    std::fill(x.begin(), x.end(), side ? xo : -xo);
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::local_mean_hd(std::span<const double>(x), d, o, g);
      for (std::size_t j = 0; j < d; ++j) {
        const double est =
            half_noise
                ? half_noise_estimate(r.estimate[j], r.ranges[j], std::span<const double>(&x[j], 1))
                : r.estimate[j];
        y[j] = est - 0.5 * (r.ranges[j].lo + r.ranges[j].hi);
      }
      out[i] = detail::symmetric_laplace_llr(y, kappa, r.noise_scale);
    }
  }
  return p;
}

/// longitudinal_regression (S1 Def 5.13, OLS) with p >= 2 coefficients, BASIC composition
/// (o.choice overridden), USER level: T = p times with the identity design x_{u,t} = e_t for every
/// user, so that the per-user OLS coefficients are the responses themselves, beta^_u = Y_u; users
/// - 1 users with Y = 0 and one user whose whole response row is at -10 kappa (D) or +10 kappa
/// (D') in every coordinate. Algorithm 5 then runs on beta^ = (0, ..., 0, -+10 kappa 1_p): the
/// winsorized_mean_hd pair on the coefficients with d = p (n = users), draw for draw (tested):
/// claim (eps/2 - ln(1 - delta/4), delta/4) for the p composed mean stages at user level (per
/// coefficient (eps/(2p) - ln(1 - delta/(4p)), delta/(4p))), ceiling the same (attained, top
/// value probability 2^-p on D'); statistic the log-likelihood ratio of the p estimates.
/// half_noise: every coefficient's noise halved.
template <std::uniform_random_bit_generator G>
sample_pair longitudinal_regression_hd_pair(estimators::winsorized_mean_hd_options o,
                                            std::size_t users,
                                            std::size_t p,
                                            std::size_t trials,
                                            G& g,
                                            bool half_noise = false) {
  const char* fn = "audit::longitudinal_regression_hd_pair";
  detail::check_trials(fn, trials);
  o.choice = core::composition_rule::basic;
  o.validate(fn);
  if (users < 2) core::throw_invalid(fn, "users", static_cast<double>(users), "must be >= 2");
  if (p < 2) core::throw_invalid(fn, "p", static_cast<double>(p), "must be >= 2");
  auto out_pair = detail::one_statistic(
      trials,
      "log-likelihood ratio of the p coefficient estimates (centres -+kappa/n)",
      "T = p, design x_t = e_t; n - 1 users with Y = 0 plus one user's whole response row at "
      "-10 kappa vs +10 kappa");
  const double kappa = o.rule.radius, c = kappa / static_cast<double>(users);
  const std::size_t T = p;
  std::vector<double> x(users * T * p, 0.0), y(users * T, 0.0), est(p), col(users, 0.0);
  for (std::size_t u = 0; u < users; ++u)
    for (std::size_t t = 0; t < T; ++t) x[(u * T + t) * p + t] = 1.0;
  const estimators::panel_view view{x, users, T, p};
  estimators::longitudinal_options lo;
  lo.base = o;
  for (int side = 0; side < 2; ++side) {
    const double v = (side ? 10.0 : -10.0) * kappa;
    std::fill(y.end() - static_cast<std::ptrdiff_t>(T), y.end(), v);
    col[users - 1] = v;  // every coefficient's column of beta^: zeros and v
    auto& out = side == 0 ? out_pair.s0[0] : out_pair.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::longitudinal_regression(view, y, lo, g).fit;
      for (std::size_t j = 0; j < p; ++j)
        est[j] = half_noise ? half_noise_estimate(r.estimate[j], r.ranges[j], col) : r.estimate[j];
      out[i] = detail::symmetric_laplace_llr(est, c, r.noise_scale);
    }
  }
  return out_pair;
}

/// local_user_mean (S1 Sec. 6: every user averages their T x d block locally, then the
/// local_mean_hd protocol), d >= 2, BASIC composition (o.choice overridden), USER level, one
/// user (the unit of local DP) whose whole block is at -x_out (D) or +x_out (D'), x_out =
/// local_mean_outside(o); T a power of two so that the average is exactly -+x_out. The
/// local_mean_hd pair on the average, draw for draw (tested): claim (eps/2)-LDP exactly at user
/// level, ceiling the same; same statistic. half_noise: every coordinate's noise halved.
template <std::uniform_random_bit_generator G>
sample_pair local_user_mean_hd_pair(estimators::local_mean_options o,
                                    std::size_t times,
                                    std::size_t d,
                                    std::size_t trials,
                                    G& g,
                                    bool half_noise = false) {
  const char* fn = "audit::local_user_mean_hd_pair";
  detail::check_trials(fn, trials);
  o.choice = core::composition_rule::basic;
  o.validate(fn);
  if (times < 1 || (times & (times - 1)) != 0)
    core::throw_invalid(fn, "times", static_cast<double>(times), "must be a power of two");
  if (d < 2) core::throw_invalid(fn, "d", static_cast<double>(d), "must be >= 2");
  auto p = detail::one_statistic(trials,
                                 "log-likelihood ratio of the d values estimate - midpoint "
                                 "(centres -+kappa)",
                                 "one user, whole T x d block at -x_out vs +x_out");
  const double xo = local_mean_outside(o), kappa = o.rule.radius;
  std::vector<double> panel(times * d), y(d);
  const estimators::panel_view view{panel, 1, times, d};
  for (int side = 0; side < 2; ++side) {
    const double v = side ? xo : -xo;
    std::fill(panel.begin(), panel.end(), v);
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::local_user_mean(view, o, g);
      for (std::size_t j = 0; j < d; ++j) {
        const double est =
            half_noise
                ? half_noise_estimate(r.estimate[j], r.ranges[j], std::span<const double>(&v, 1))
                : r.estimate[j];
        y[j] = est - 0.5 * (r.ranges[j].lo + r.ranges[j].hi);
      }
      out[i] = detail::symmetric_laplace_llr(y, kappa, r.noise_scale);
    }
  }
  return p;
}

/// The points x_j = (n/2 + j)/n, j < J, of priestley_chao_grid_pair.
inline std::vector<double> priestley_chao_grid_points(std::size_t n, std::size_t J) {
  std::vector<double> x(J);
  for (std::size_t j = 0; j < J; ++j)
    x[j] = static_cast<double>(priestley_chao_index(n) + j) / static_cast<double>(n);
  return x;
}

/// priestley_chao on the grid priestley_chao_grid_points(n, J), J >= 2, BASIC composition
/// (o.choice overridden): responses 0 except y_i0 = -Y (D) or +Y (D'), Y = 10 kappa b / min_j
/// K((x_i0 - x_j)/b), kappa = 3 tau, i0 = n/2; statistic = the log-likelihood ratio of the J
/// estimates (file comment). n >= 2 J. half_noise: every point's noise halved.
template <std::uniform_random_bit_generator G>
sample_pair priestley_chao_grid_pair(estimators::priestley_chao_options o,
                                     std::size_t n,
                                     std::size_t J,
                                     std::size_t trials,
                                     G& g,
                                     bool half_noise = false) {
  const char* fn = "audit::priestley_chao_grid_pair";
  detail::check_trials(fn, trials);
  o.choice = core::composition_rule::basic;
  o.validate();
  if (J < 2) core::throw_invalid(fn, "J", static_cast<double>(J), "must be >= 2");
  if (n < 2 * J) core::throw_invalid(fn, "n", static_cast<double>(n), "must be >= 2 J");
  auto p = detail::one_statistic(trials,
                                 "log-likelihood ratio of the J estimates (centres -+kappa/n)",
                                 "responses 0 except y_i0 = -Y vs +Y (|Z_i0(x_j)| >= 10 kappa at "
                                 "every point x_j)");
  const std::size_t i0 = priestley_chao_index(n);
  const std::vector<double> pts = priestley_chao_grid_points(n, J);
  const double kappa = 3.0 * estimators::priestley_chao_tau(o, n);
  const double xi0 = static_cast<double>(i0) / static_cast<double>(n);
  double kmin = estimators::kernel_value(o.kernel, 0.0);
  for (double x : pts)
    kmin = std::min(kmin, estimators::kernel_value(o.kernel, (xi0 - x) / o.bandwidth));
  if (!(kmin > 0))
    core::throw_invalid(fn, "bandwidth", o.bandwidth, "gives a zero kernel weight at a point");
  const double big = 10.0 * kappa * o.bandwidth / kmin;
  const double c = kappa / static_cast<double>(n);
  std::vector<double> y(n, 0.0), est(J);
  std::vector<std::vector<double>> z(J, std::vector<double>(n));
  for (int side = 0; side < 2; ++side) {
    y[i0] = side == 0 ? -big : big;
    if (half_noise)
      for (std::size_t j = 0; j < J; ++j)
        estimators::detail::priestley_chao_terms(y, pts[j], o.bandwidth, o.kernel, z[j]);
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::priestley_chao(
          std::span<const double>(y), std::span<const double>(pts), o, g);
      for (std::size_t j = 0; j < J; ++j)
        est[j] = half_noise ? half_noise_estimate(r.estimate[j], r.ranges[j], z[j]) : r.estimate[j];
      out[i] = detail::symmetric_laplace_llr(est, c, r.noise_scale);
    }
  }
  return p;
}

/// sample_split_mean (d = 1): zeros except the last row (in the mean half) at -10 kappa (D) or
/// +10 kappa (D'); statistic = the estimate. n >= 4. half_noise: the mean's noise halved.
template <std::uniform_random_bit_generator G>
sample_pair sample_split_mean_pair(const estimators::sample_split_options& o,
                                   std::size_t n,
                                   std::size_t trials,
                                   G& g,
                                   bool half_noise = false) {
  const char* fn = "audit::sample_split_mean_pair";
  detail::check_trials(fn, trials);
  o.validate();
  if (n < 4) core::throw_invalid(fn, "n", static_cast<double>(n), "must be >= 4");
  auto p = detail::one_statistic(
      trials, "estimate", "zeros, except the last row (mean half) at -10 kappa vs +10 kappa");
  std::vector<double> x(n, 0.0);
  const std::size_t half = n / 2;
  for (int side = 0; side < 2; ++side) {
    x[n - 1] = (side ? 10.0 : -10.0) * o.base.rule.radius;
    const std::span<const double> mean_rows(x.data() + half, n - half);
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::sample_split_mean(std::span<const double>(x), 1, o, g);
      out[i] =
          half_noise ? half_noise_estimate(r.estimate[0], r.ranges[0], mean_rows) : r.estimate[0];
    }
  }
  return p;
}

/// The lone record's magnitude P of kv_mean_unknown_sigma_pair: 10 kappa(max(4,
/// sigma_fallback)), kappa(s) = 4 s sqrt(ln(n/beta)).
inline double kv_unknown_sigma_outside(const estimators::kv_unknown_sigma_options& o,
                                       std::size_t n) {
  const double s = std::max(4.0, o.sigma_fallback);
  return 10.0 * 4.0 * s * std::sqrt(std::log(static_cast<double>(n) / o.beta));
}

/// kv_mean_unknown_sigma, n odd >= 3: x_{2i} = 0, x_{2i+1} = 1, and the unpaired last record at
/// -P (D) or +P (D'), P = kv_unknown_sigma_outside(o, n); statistic = the estimate (file
/// comment). half_noise: the mean's noise halved.
template <std::uniform_random_bit_generator G>
sample_pair kv_mean_unknown_sigma_pair(const estimators::kv_unknown_sigma_options& o,
                                       std::size_t n,
                                       std::size_t trials,
                                       G& g,
                                       bool half_noise = false) {
  const char* fn = "audit::kv_mean_unknown_sigma_pair";
  detail::check_trials(fn, trials);
  o.validate();
  if (n < 3 || n % 2 == 0) core::throw_invalid(fn, "n", static_cast<double>(n), "must be odd >= 3");
  if (static_cast<double>(n) <= o.beta)
    core::throw_invalid(fn, "n", static_cast<double>(n), "must exceed beta");
  auto p = detail::one_statistic(
      trials, "estimate", "pairs (0, 1) plus an unpaired last record at -P vs +P");
  std::vector<double> x(n, 0.0);
  for (std::size_t i = 1; i + 1 < n; i += 2) x[i] = 1.0;
  const double big = kv_unknown_sigma_outside(o, n);
  for (int side = 0; side < 2; ++side) {
    x[n - 1] = side ? big : -big;
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::kv_mean_unknown_sigma(std::span<const double>(x), o, g);
      out[i] = half_noise ? half_noise_estimate(r.mean, x) : r.mean.estimate;
    }
  }
  return p;
}

}  // namespace dpx::audit
