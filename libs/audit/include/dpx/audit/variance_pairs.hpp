#pragma once
/// \file
/// Worst-case pairs of the plug-in variance estimators (estimators/variance.hpp): S1 Algorithm
/// 10 (variance_bisection) and Algorithms 13-14 (adaptive_coinpress), both with ONE iteration
/// (public bounds sigma_max^2 = 2 sigma_min^2, so N_iter = 1) and BASIC composition (forced):
/// two Laplace releases at eps' = eps/2 each, claim (eps, 0)-DP. N_iter = 1 is the only case
/// whose chain is short enough to analyse exactly: with N_iter > 1 the later windows are centred
/// at earlier noisy midpoints, and no pair below moves all 2 N_iter releases at once.
///
/// What the estimators release (variance_result): the variance, the last midpoint, the number
/// of iterations, `range` (a function of the last midpoint and public inputs), diag.failed and
/// the ledger (which steps ran). With N_iter = 1 that is, for the bisection, the coverage test's
/// outcome (pass/fail: variance sigma_max^2/2 vs sigma_max^2, diag.failed, the ledger's length)
/// and, on pass, the refined midpoint M; for CoinPress, M and z = max(0, noisy second moment)
/// (variance = z sigma_max^2). The per-step noisy statistics themselves are not released.
/// diag.clipped_fraction is documented as NOT private and is left out: published, it would give
/// the exact fraction of x outside the last window, which on the bisection pair differs
/// deterministically between D and D' (by 1/n) — no finite epsilon covers it.
///
/// Why no pair can reach the claim eps: the coverage release Coverage = #{|x - m| <= w}/n +
/// Lap(2/(n eps')) is calibrated for sensitivity 2/n, but one record moves the count by 1/n
/// (replace-one): it is (eps'/2)-DP. Likewise RefineVariance's noise Lap(2 beta^2/(n eps')) is
/// calibrated for 2 beta^2/n, but one record moves a mean of values in [0, beta^2] by at most
/// beta^2/n: (eps'/2)-DP. RefineMidpoint's Lap(2 r/(n eps')), r = sqrt(2) sigma, matches the
/// sensitivity 2r/n of a mean clipped to [m - r, m + r]: eps'-DP. So each estimator is (eps'/2
/// + eps') = (3 eps/4)-DP under basic composition with N_iter = 1 (3 N_iter eps'/2 = 3 eps/4
/// for any N_iter): the claim eps is 4/3 of the best any pair can reach, by construction.
///
///  * variance_bisection_pair: n records, m^_0 = 0, coverage half-width w = sqrt(2 sigma_max^2)
///    (as the code computes it), midpoint clip radius r = sqrt(2) sigma_max. Let c1 be the
///    largest count with c1/n <= 1 - gamma (in double arithmetic, as the test `c < 1 - gamma`
///    compares). Common records: c1 - 1 at 0 (inside the window), n - c1 at -+F (outside,
///    alternating signs; F = 100 w). The mover is at -F in D (outside: coverage (c1 - 1)/n,
///    clipped to -r) and at +w in D' (inside: coverage c1/n, clipped to min(w, r)). Both
///    coverages are at or below the threshold 1 - gamma, so "pass" is an upper-tail event on
///    both sides: P_D'(pass) = 1/2 exp(-(1 - gamma - c1/n)/b_c), P_D(pass) = P_D'(pass)
///    exp(-1/(n b_c)), b_c = 2/(n eps'): ratio exactly e^{eps'/2}. On pass, M = clipped mean +
///    Lap(b_m), b_m = 2r/(n eps'), the clipped means differing by (min(w, r) + r)/n: the
///    midpoint is a Laplace pair at (a fraction (min(w, r) + r)/(2r) = 1 - O(1e-16) of) its
///    calibrated sensitivity. The pair's exact epsilon (pure: the largest privacy loss, reached
///    on {pass, M >= c_D'}, probability 1/4 exp(-(1 - gamma - c1/n)/b_c) on D': 1/4 at
///    gamma = 0.2, n = 200, where c1/n = 160/200 = 1 - gamma exactly) is
///    variance_bisection_ceiling(o) = eps'/2 + eps' (min(w, r) + r)/(2r) = 3 eps/4. Statistic: M on
///    pass, else a sentinel below every M (a threshold above the sentinel is the event {pass, M >=
///    t}).
///  * adaptive_coinpress_pair: s = sigma_max, r = sqrt(2) s, beta = sqrt(1 + 2 sqrt(ln(1/gamma))
///    + 2 ln(1/gamma)), F = 100 beta s. Common records: n - 1 at +F (clipped to +r by
///    RefineMidpoint, to +beta by RefineVariance); the mover at -F in D (clipped to -r and
///    -beta) and at +r in D' (inside the midpoint window: clipped to +r). The midpoint centres
///    are c_D = (n - 2) r/n and c_D' = r: a Laplace pair at exactly its calibrated sensitivity
///    2r/n. Given M = m, RefineVariance's mean has centre mu_D(m) = beta^2 on D (every record
///    clipped, for |m| < F - beta s) and mu_D'(m) = ((n - 1) beta^2 + min(beta^2, ((r -
///    m)/s)^2))/n on D': the mover is near the centre of the second window exactly when M is
///    near r, which the common records make the typical case. The largest privacy loss is
///    eps' + (eps'/2)(beta^2 - ((r - m)/s)^2)/beta^2 for m >= r, z <= mu_D'(m) (z = 0 included:
///    mu_D' > 0), whose supremum at m -> r is again 3 eps'/2 = 3 eps/4
///    (adaptive_coinpress_ceiling); typical values of m - r are ~b_m = 2r/(n eps'), at which
///    the loss is 3 eps'/2 - O((b_m/s)^2) (the event {M >= r, z <= (n - 1) beta^2/n}, integrated
///    numerically in the test, has probability 0.25 on D' and log-ratio 0.74994 at eps = 1,
///    n = 200). Statistic: the exact log-likelihood ratio of the release (M, z):
///    laplace_llr(M - c_D, c_D' - c_D)/b_m + laplace_llr(mu_D(M) - z, mu_D(M) - mu_D'(M))/b_z,
///    b_z = 2 beta^2/(n eps') (z = 0, the clamp, gives the lower-tail value mu_D - mu_D').
///
/// Broken variants (power): the estimator run at 2 eps while eps is claimed (both releases
/// at twice their epsilon: the pair's ceiling is 3 eps/2 > eps). The data do not depend on eps.
/// plugin_confidence_interval is post-processing of a private mean and of sigma^2 (its
/// guarantee is their composition); it adds no release of its own and has no pair here.
///
/// Randomness: D's trials first, then D''s, from the generator passed in.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

#include "dpx/audit/pairs.hpp"
#include "dpx/core/error.hpp"
#include "dpx/estimators/variance.hpp"

namespace dpx::audit {

/// The data of variance_bisection_pair (file comment), from the options the pair runs with.
struct bisection_pair_design {
  std::size_t n = 0;
  std::size_t inside = 0;  ///< c1: D''s count in the coverage window (c1/n <= 1 - gamma)
  double window = 0;       ///< w = sqrt(2 sigma_max^2), the coverage half-width
  double clip = 0;         ///< r = sqrt(2) sigma_max, the midpoint clip radius
  double far = 0;          ///< F = 100 w
  std::vector<double> d0;  ///< D
  std::vector<double> d1;  ///< D' (only the last record differs)
};

/// The data of adaptive_coinpress_pair (file comment).
struct coinpress_pair_design {
  std::size_t n = 0;
  double sigma = 0;  ///< s = sigma_max
  double clip = 0;   ///< r = sqrt(2) s, the midpoint clip radius
  double beta = 0;   ///< RefineVariance's clipping level
  double far = 0;    ///< F = 100 beta s
  std::vector<double> d0;
  std::vector<double> d1;
};

namespace detail {
/// The options the variance pairs run with: sigma_min^2 = sigma_max^2/2 (N_iter = 1), basic
/// composition, m^_0 = 0, epsilon scaled by f (2 for the broken variants).
inline estimators::variance_options variance_pair_options(estimators::variance_options o,
                                                          double f = 1.0) {
  o.variance_min = 0.5 * o.variance_max;
  o.choice = core::composition_rule::basic;
  o.midpoint = 0.0;
  o.epsilon *= f;
  // The statistics read the RELEASED (m, z): z = sigma^2-hat / sigma_max^2 needs the published,
  // unprojected output (the projection onto [sigma_min^2, sigma_max^2] is post-processing).
  o.clamp_to_bounds = false;
  // The exact likelihood ratios (coinpress_llr) are the continuous Laplace's: the papers'
  // mechanisms.
  o.noise = mechanisms::noise_kind::research_grade;
  return o;
}
}  // namespace detail

inline bisection_pair_design make_bisection_pair_design(const estimators::variance_options& o,
                                                        std::size_t n) {
  const char* fn = "audit::make_bisection_pair_design";
  o.validate(fn);
  if (n < 2) core::throw_invalid(fn, "n", static_cast<double>(n), "must be >= 2");
  bisection_pair_design d;
  d.n = n;
  const double nd = static_cast<double>(n), thr = 1.0 - o.gamma;
  std::size_t c1 = 0;
  while (c1 < n && static_cast<double>(c1 + 1) / nd <= thr) ++c1;
  if (c1 < 1 || c1 > n - 1)
    core::throw_invalid(fn, "n", nd, "gives no count c1 in [1, n - 1] with c1/n <= 1 - gamma");
  d.inside = c1;
  d.window = std::sqrt(2.0 * o.variance_max);
  d.clip = std::sqrt(2.0) * std::sqrt(o.variance_max);
  d.far = 100.0 * d.window;
  d.d0.assign(n, 0.0);
  for (std::size_t i = c1 - 1; i + 1 < n; ++i)
    d.d0[i] = ((i - (c1 - 1)) % 2 == 0 ? 1.0 : -1.0) * d.far;
  d.d1 = d.d0;
  d.d0[n - 1] = -d.far;
  d.d1[n - 1] = d.window;
  return d;
}

inline coinpress_pair_design make_coinpress_pair_design(const estimators::variance_options& o,
                                                        std::size_t n) {
  const char* fn = "audit::make_coinpress_pair_design";
  o.validate(fn);
  if (n < 2) core::throw_invalid(fn, "n", static_cast<double>(n), "must be >= 2");
  coinpress_pair_design d;
  d.n = n;
  d.sigma = std::sqrt(o.variance_max);
  d.clip = std::sqrt(2.0) * d.sigma;  // as refine_midpoint computes r
  const double lg = std::log(1.0 / o.gamma);
  d.beta = std::sqrt(1.0 + 2.0 * std::sqrt(lg) + 2.0 * lg);  // as adaptive_coinpress
  d.far = 100.0 * d.beta * d.sigma;
  d.d0.assign(n, d.far);
  d.d1 = d.d0;
  d.d0[n - 1] = -d.far;
  d.d1[n - 1] = d.clip;
  return d;
}

/// The pair's exact epsilon (file comment): eps'/2 + eps' (min(w, r) + r)/(2r), eps' = eps/2.
inline double variance_bisection_ceiling(const estimators::variance_options& o) {
  o.validate("audit::variance_bisection_ceiling");
  const double w = std::sqrt(2.0 * o.variance_max), r = std::sqrt(2.0) * std::sqrt(o.variance_max);
  const double e = 0.5 * o.epsilon;
  return 0.5 * e + e * (std::min(w, r) + r) / (2.0 * r);
}

/// The supremum of the CoinPress pair's privacy loss: 3 eps'/2 = 3 eps/4 (file comment).
inline double adaptive_coinpress_ceiling(const estimators::variance_options& o) {
  return 0.75 * o.epsilon;
}

/// variance_bisection with N_iter = 1 (sigma_min^2 := sigma_max^2/2), basic composition, m^_0 =
/// 0 (o's other fields kept); statistic = the midpoint on pass, else a sentinel (file comment).
/// broken: run at 2 eps. n >= 2 with some c1 in [1, n - 1] (c1/n <= 1 - gamma).
template <std::uniform_random_bit_generator G>
sample_pair variance_bisection_pair(const estimators::variance_options& o,
                                    std::size_t n,
                                    std::size_t trials,
                                    G& g,
                                    bool broken = false) {
  const char* fn = "audit::variance_bisection_pair";
  detail::check_trials(fn, trials);
  const auto run_o = detail::variance_pair_options(o, broken ? 2.0 : 1.0);
  const auto d = make_bisection_pair_design(run_o, n);
  auto p = detail::one_statistic(trials,
                                 "refined midpoint if the coverage test passed, else a sentinel",
                                 "c1 - 1 records at 0 and n - c1 at -+F, plus one at -F (outside "
                                 "the coverage window) vs +w (inside): coverage (c1 - 1)/n vs "
                                 "c1/n <= 1 - gamma");
  for (int side = 0; side < 2; ++side) {
    const std::span<const double> x(side == 0 ? d.d0 : d.d1);
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::variance_bisection(x, run_o, g);
      out[i] = r.diag.failed ? -std::numeric_limits<double>::max() : r.midpoint;
    }
  }
  return p;
}

namespace detail {
/// The exact log-likelihood ratio (D' against D) of a CoinPress release (m, z) on the pair,
/// eps_run the per-release epsilon of the run.
inline double coinpress_llr(const coinpress_pair_design& d, double eps_run, double m, double z) {
  const double n = static_cast<double>(d.n), b2 = d.beta * d.beta;
  const double cd0 = (n - 2.0) * d.clip / n, cd1 = d.clip;
  const double bm = 2.0 * d.clip / (n * eps_run), bz = 2.0 * b2 / (n * eps_run);
  const double mu0 = estimators::detail::clipped_second_moment(d.d0, m, d.sigma, d.beta);
  const double mu1 = estimators::detail::clipped_second_moment(d.d1, m, d.sigma, d.beta);
  // mu1 <= mu0 up to rounding (the mover's clipped square is <= beta^2 on D', = beta^2 on D)
  const double gap = std::max(0.0, mu0 - mu1);
  return laplace_llr(m - cd0, cd1 - cd0) / bm + laplace_llr(mu0 - z, gap) / bz;
}
}  // namespace detail

/// adaptive_coinpress with N_iter = 1 (sigma_min^2 := sigma_max^2/2), basic composition, m^_0 =
/// 0; statistic = the exact log-likelihood ratio of (M, z) (file comment). broken: run at 2 eps
/// (the statistic uses the run's scales). n >= 2.
template <std::uniform_random_bit_generator G>
sample_pair adaptive_coinpress_pair(const estimators::variance_options& o,
                                    std::size_t n,
                                    std::size_t trials,
                                    G& g,
                                    bool broken = false) {
  const char* fn = "audit::adaptive_coinpress_pair";
  detail::check_trials(fn, trials);
  const auto run_o = detail::variance_pair_options(o, broken ? 2.0 : 1.0);
  const auto d = make_coinpress_pair_design(run_o, n);
  const double e = 0.5 * run_o.epsilon;  // basic over 2 releases
  const double s2 = d.sigma * d.sigma;
  auto p = detail::one_statistic(trials,
                                 "log-likelihood ratio of (midpoint, second moment)",
                                 "n - 1 records at +F, plus one at -F vs +r (the midpoint "
                                 "window's edge, near the second window's centre)");
  for (int side = 0; side < 2; ++side) {
    const std::span<const double> x(side == 0 ? d.d0 : d.d1);
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::adaptive_coinpress(x, run_o, g);
      const double z = r.diag.failed ? 0.0 : r.variance / s2;
      out[i] = detail::coinpress_llr(d, e, r.midpoint, z);
    }
  }
  return p;
}

}  // namespace dpx::audit
