#pragma once
/// \file
/// Worst-case neighbouring pairs and distinguishing statistics for every mechanism of
/// dpx::mechanisms (Laplace, Gaussian, discrete Laplace / Gaussian, randomized response, local
/// and stable histograms, exponential mechanism and permute-and-flip, the exponential-mechanism
/// median, l2_laplace (one coordinate and spread), float_safe_gaussian, Mironov's attack on the
/// research-grade and float-safe Laplace). The one-release estimators of dpx::estimators
/// (winsorized_mean, kv_mean, local_mean, user_mean, random_effects_mean,
/// longitudinal_regression with p = 1, priestley_chao at a point: their mean stage) are in
/// estimator_pairs.hpp. The
/// estimators' histogram stage (winsorized_mean, kv_mean: alone and with the mean stage) is in
/// stage_pairs.hpp; the composed and multi-step estimators (winsorized_mean_hd, user_mean and
/// local_mean_hd with d > 1, priestley_chao on a grid, sample_split_mean,
/// kv_mean_unknown_sigma, longitudinal_regression with p > 1, local_user_mean) in
/// composed_pairs.hpp; the plug-in variance estimators (variance_bisection, adaptive_coinpress,
/// one iteration) in variance_pairs.hpp.
/// NOT covered: the variance estimators with N_iter > 1 (variance_pairs.hpp says why);
/// local_mean's round 1 as part of the estimator (it is mechanisms::local_histogram, audited
/// tight by local_histogram_pair; with one user the estimator releases only the argmax of its
/// bits); the histogram
/// stages of the user-level and Priestley–Chao estimators (the same stable histogram as
/// winsorized_mean's, on the user averages / kernel terms). Each function runs the mechanism
/// `trials` times on D and on D' and returns the statistic(s) of every output, ready for
/// audit_samples (auditor.hpp). Randomness: every draw from the generator passed in (D's trials
/// first, then D''s).
///
/// Why these pairs and statistics are worst cases (for the guarantee each mechanism claims):
///  * Laplace / Gaussian / discrete Laplace / discrete Gaussian (additive noise, location
///    family): D gives f = 0, D' gives f = Delta (the sensitivity). Every pair at distance Delta
///    is a translate of this one, and the statistic is the output itself: for Laplace the
///    likelihood ratio is monotone in y and the threshold t = Delta already attains e^eps; for
///    the Gaussian the likelihood ratio is monotone in y, so threshold tests are the
///    Neyman–Pearson optimal tests and trace the whole privacy profile.
///  * Randomized response (k-ary): inputs 0 and 1; statistic 0 / 1 / 1/2 for report 0 / 1 /
///    other, so S = {report = 0} has probability p' under D and q' under D' (ratio p'/q').
///  * Local histogram: one user in bin 0 vs bin 1; statistic b_0 - b_1 (the two flipped bits;
///    the others have the same law): S = {b_0 = 1, b_1 = 0} has ratio (pi/(1 - pi))^2 = e^eps.
///  * Stable histogram (replace-one): D has n/2 records in each of bins 0 and 1, D' moves one
///    record from bin 0 to bin 1 (both bins far above the threshold), the case of Lemma C.1
///    that carries the eps part; statistic = the Laplace log-likelihood ratio
///    clamp(y_1 - mid_1, +-h) - clamp(y_0 - mid_0, +-h), h = 1/(2n), which is monotone in the
///    exact likelihood ratio of the two released values (the optimal test). The delta part
///    (a bin appearing) has probability delta/4 and cannot raise an epsilon lower bound.
///  * Selection (exponential mechanism, permute-and-flip; general utilities, c = eps/(2 Delta_u)),
///    k candidates: D has every utility 0; D' raises candidate 0 to Delta_u and lowers every
///    other one to -Delta_u (each utility moves by <= Delta_u). Statistic: 1 if candidate 0 is
///    selected. S = {candidate 0} has P_D = 1/k and P_D' = 1/(1 + (k - 1) e^-eps) (exponential
///    mechanism) or (1 - (1 - e^-eps)^k) e^eps / k (permute-and-flip: every candidate visited
///    before 0 accepts with probability e^-eps), ratios k/(1 + (k - 1) e^-eps) and
///    e^eps (1 - (1 - e^-eps)^k), both -> e^eps as k grows (k = 50: 0.966 eps and eps - 1e-10
///    at eps = 1). Raising one utility and lowering all others is what the e^eps bound of
///    the exponential mechanism's proof needs at once (Dwork & Roth 2014, Thm. 3.10).
///  * Mironov's floating-point attack (research-grade Laplace): D gives 0, D' gives Delta;
///    statistic = 1 if the output is a double that the research-grade sampler can produce from
///    D' (exact search over its 2^53 noise values), else 0. A research-grade release of D lands
///    outside that set with probability > 1/2, which never happens under D': the bound grows
///    like log(trials). The float-safe Laplace releases grid points that are in the support of
///    both inputs, and is exactly eps-DP: the same statistic cannot break its bound.
///  * Exponential-mechanism median (mechanisms::exponential_quantile, Smith 2011: output
///    density e^{(eps/2) u(y)} / Z, u(y) = -|#{x_i < y} - n/2|), replace-one, n = 2m records
///    in [lower, upper] = [0, 1]: D has m records at 0 (one of them the mover), one at a = 1/2 and
///    m - 1 at b = 0.515; D' moves the mover to 1. Moving a record from 0 to 1 lowers every
///    rank in (0, 1) by one: u drops by 1 on (0, a) (rank m -> m - 1) and rises by 1 on (a, 1)
///    (m + 1 -> m; 2m -> 2m - 1), so the likelihood ratio is e^{-eps/2} Z_D/Z_D' on (0, a) and
///    e^{eps/2} Z_D/Z_D' on (a, 1), where Z_D = a + (b - a) e^{-eps/2} + (1 - b) e^{-m eps/2} and
///    Z_D' = a e^{-eps/2} + (b - a) + (1 - b) e^{-(m - 1) eps/2}. Most of D's mass is on (0, a),
///    where it drops, so Z_D/Z_D' -> e^{eps/2} as (b - a)/a -> 0: the event {y >= a} (a
///    threshold on the output, the statistic) has the largest ratio of the pair, e^{ceiling},
///    ceiling = eps/2 + ln(Z_D/Z_D') = 0.9698 eps at eps = 1, m = 50 (0.951-0.971 eps for eps
///    in [0.25, 4]); P_D'(y >= a) = 0.047 at eps = 1. Why not e^eps exactly: the set where u
///    rises must carry some mass on D' (here 0.015 of the width), and the pair is eps-DP.
///  * l2_laplace (L2-calibrated per-coordinate Laplace, d = 16): D -> 0, D' -> a, ||a||_2 =
///    Delta, either a = Delta e_1 (one coordinate) or a_i = Delta/sqrt(d) (spread); statistic:
///    the exact log-likelihood ratio (laplace_llr, rounding-free). The claim is the library's
///    bound (*) of l2_laplace.hpp: eps = x^2/2 + x sqrt(2 ln(1/delta)), x = Delta/b. On the
///    one-coordinate pair the release is exactly x-DP (pure): x = 0.204 at eps = 1, delta =
///    1e-5, the ceiling of any test — the calibration pays sqrt(2 ln(1/delta)) x for the
///    composition over coordinates, which a shift on one coordinate never uses. On the spread
///    pair the privacy loss is a sum of d i.i.d. terms in [-x/sqrt(d), x/sqrt(d)] (pure
///    sqrt(d) x = 0.816 at d = 16): its exact epsilon at delta = 1e-5, by convolving the
///    privacy-loss distribution, is 0.686 (tested), against the claimed 1 — the heterogeneous
///    composition bound is loose by ~30 % even here — and the events that realise it have
///    probability ~1e-5, out of reach of 10^5 trials (like the Gaussian mechanism; the
///    large-d limit is a Gaussian mechanism with mu = x, eps(1e-5) = 0.742).
///  * float_safe_gaussian: D -> 0, D' -> Delta on the grid; statistic = output (a location pair
///    with a log-concave law: threshold tests are optimal). Claim: eps at delta from rho-zCDP
///    (Bun & Steinke 2016, Prop. 1.3), like the discrete Gaussian: loose, and the events that
///    realise it are rare.

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/discrete.hpp"
#include "dpx/mechanisms/float_safe.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/histogram.hpp"
#include "dpx/mechanisms/l2_laplace.hpp"
#include "dpx/mechanisms/laplace.hpp"
#include "dpx/mechanisms/randomized_response.hpp"
#include "dpx/mechanisms/selection.hpp"

namespace dpx::audit {

/// Statistics of the trials on the two sides of a neighbouring pair.
struct sample_pair {
  /// s0[j][i]: statistic j of trial i on D. Every statistic has `trials` entries.
  std::vector<std::vector<double>> s0;
  /// s1[j][i]: statistic j of trial i on D'.
  std::vector<std::vector<double>> s1;
  /// Names of the statistics (same order).
  std::vector<std::string> statistics;
  /// The pair (D, D') in words.
  std::string pair;
};

namespace detail {
inline sample_pair one_statistic(std::size_t trials, std::string stat, std::string pair) {
  sample_pair p;
  p.s0.assign(1, std::vector<double>(trials));
  p.s1.assign(1, std::vector<double>(trials));
  p.statistics = {std::move(stat)};
  p.pair = std::move(pair);
  return p;
}
inline void check_trials(const char* fn, std::size_t trials) {
  if (trials < 2) core::throw_invalid(fn, "trials", static_cast<double>(trials), "must be >= 2");
}
/// Whether the research-grade Laplace release of x with scale b (laplace.hpp's sampler: noise
/// = laplace_from_bits(w, b), 2^53 distinct values indexed by j) can output y: a monotone
/// binary search over j, then a scan of the neighbourhood (exact, Mironov 2012, Sec. 3).
bool research_laplace_can_output(double y, double x, double b);
}  // namespace detail

/// Laplace (research-grade): D -> 0, D' -> Delta_1 (= m.l1_sensitivity()); statistic = output.
/// Uses the vector privatize path.
template <std::uniform_random_bit_generator G>
sample_pair laplace_pair(const mechanisms::laplace& m, std::size_t trials, G& g) {
  detail::check_trials("audit::laplace_pair", trials);
  auto p = detail::one_statistic(trials, "output", "f(D) = 0, f(D') = Delta_1");
  std::fill(p.s0[0].begin(), p.s0[0].end(), 0.0);
  std::fill(p.s1[0].begin(), p.s1[0].end(), m.l1_sensitivity());
  m.privatize(p.s0[0], g);
  m.privatize(p.s1[0], g);
  return p;
}

/// Gaussian (research-grade): D -> 0, D' -> Delta_2; statistic = output (vector path).
template <std::uniform_random_bit_generator G>
sample_pair gaussian_pair(const mechanisms::gaussian& m, std::size_t trials, G& g) {
  detail::check_trials("audit::gaussian_pair", trials);
  auto p = detail::one_statistic(trials, "output", "f(D) = 0, f(D') = Delta_2");
  std::fill(p.s0[0].begin(), p.s0[0].end(), 0.0);
  std::fill(p.s1[0].begin(), p.s1[0].end(), m.l2_sensitivity());
  m.privatize(p.s0[0], g);
  m.privatize(p.s1[0], g);
  return p;
}

/// Discrete Laplace or discrete Gaussian (exact integer samplers): D -> 0, D' -> Delta (an
/// integer, >= 1); statistic = output.
template <class Discrete, std::uniform_random_bit_generator G>
requires std::same_as<Discrete, mechanisms::discrete_laplace> ||
    std::same_as<Discrete, mechanisms::discrete_gaussian>
        sample_pair
        discrete_pair(const Discrete& m, std::int64_t sensitivity, std::size_t trials, G& g) {
  detail::check_trials("audit::discrete_pair", trials);
  if (sensitivity < 1)
    core::throw_invalid("audit::discrete_pair",
                        "sensitivity",
                        static_cast<double>(sensitivity),
                        "must be an integer >= 1");
  auto p = detail::one_statistic(trials, "output", "f(D) = 0, f(D') = Delta");
  std::vector<std::int64_t> v(trials);
  for (int side = 0; side < 2; ++side) {
    std::fill(v.begin(), v.end(), side == 0 ? std::int64_t{0} : sensitivity);
    m.privatize(std::span<std::int64_t>(v), g);
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) out[i] = static_cast<double>(v[i]);
  }
  return p;
}

namespace detail {
/// b times the log-likelihood ratio of Lap(a, b) against Lap(0, b) at y, a >= 0, in the
/// piecewise form -a (y <= 0), 2y - a (0 < y < a), a (y >= a). Not |y| - |y - a|: in floating
/// point that expression leaves rounding residues on the two flat pieces whose pattern differs
/// between y = fl(0 + z) and y = fl(a + z) (the research-grade noise is not a lattice: Mironov
/// 2012), and a threshold test on those residues separates D from D' (measured: a "bound" of
/// 6.2 at eps = 1, 10^5 trials, for the one-coordinate pair). The pairs here audit the
/// composition bound of the mathematical mechanism; the floating-point leak is Mironov's attack
/// (mironov_pair). The middle piece is monotone in y, so it adds nothing beyond y itself.
inline double laplace_llr(double y, double a) noexcept {
  if (y <= 0) return -a;
  if (y >= a) return a;
  return 2 * y - a;
}
}  // namespace detail

/// Float-safe Gaussian (discrete Gaussian on the grid Lambda): D -> 0, D' -> Delta_2
/// (= m.l2_sensitivity(); the release rounds its input to the grid, so choose Delta_2 a
/// multiple of Lambda, e.g. a power of two >= Lambda); statistic = the scalar release. Location
/// family on the grid with a log-concave noise law: the likelihood ratio is monotone in y,
/// threshold tests are optimal.
template <std::uniform_random_bit_generator G>
sample_pair float_safe_gaussian_pair(const mechanisms::float_safe_gaussian& m,
                                     std::size_t trials,
                                     G& g) {
  detail::check_trials("audit::float_safe_gaussian_pair", trials);
  auto p = detail::one_statistic(trials, "output", "f(D) = 0, f(D') = Delta_2 (on the grid)");
  const double d = m.l2_sensitivity();
  for (double& y : p.s0[0]) y = m.release(0.0, g);
  for (double& y : p.s1[0]) y = m.release(d, g);
  return p;
}

/// L2-calibrated per-coordinate Laplace (mechanisms::l2_laplace) on a d-dimensional query:
/// D -> 0, D' -> a with ||a||_2 = Delta_2 (= `l2_sensitivity`, normally m.l2_sensitivity(); the
/// broken variant passes a mechanism calibrated for a smaller one): spread = false puts the
/// whole shift on coordinate 0 (a = Delta e_1), spread = true spreads it evenly (a_i =
/// Delta/sqrt(d)). Statistic: the exact log-likelihood ratio of the release,
/// sum_i (|y_i| - |y_i - a_i|) / b, in the rounding-free form detail::laplace_llr
/// (Neyman–Pearson: threshold tests on it are the optimal tests of the pair). Uses the vector
/// privatize path, d draws per trial. d >= 1.
template <std::uniform_random_bit_generator G>
sample_pair l2_laplace_pair(const mechanisms::l2_laplace& m,
                            double l2_sensitivity,
                            std::size_t d,
                            bool spread,
                            std::size_t trials,
                            G& g) {
  const char* fn = "audit::l2_laplace_pair";
  detail::check_trials(fn, trials);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  if (d < 1) core::throw_invalid(fn, "d", static_cast<double>(d), "must be >= 1");
  auto p = detail::one_statistic(
      trials,
      "Laplace log-likelihood ratio sum_i (|y_i| - |y_i - a_i|)/b (piecewise form)",
      spread ? "f(D) = 0, f(D') = (Delta/sqrt(d)) (1, ..., 1)" : "f(D) = 0, f(D') = Delta e_1");
  std::vector<double> a(d, 0.0);
  if (spread)
    std::fill(a.begin(), a.end(), l2_sensitivity / std::sqrt(static_cast<double>(d)));
  else
    a[0] = l2_sensitivity;
  const double inv_b = 1.0 / m.scale();
  std::vector<double> y(d);
  for (int side = 0; side < 2; ++side) {
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      for (std::size_t j = 0; j < d; ++j) y[j] = side == 0 ? 0.0 : a[j];
      m.privatize(std::span<double>(y), g);
      double llr = 0;
      for (std::size_t j = 0; j < d; ++j) llr += detail::laplace_llr(y[j], a[j]);
      out[i] = llr * inv_b;
    }
  }
  return p;
}

/// k-ary randomized response: inputs 0 (D) and 1 (D'); statistic 0 / 1 / 0.5 for report
/// 0 / 1 / other (vector privatize path).
template <std::uniform_random_bit_generator G>
sample_pair randomized_response_pair(const mechanisms::randomized_response& m,
                                     std::size_t trials,
                                     G& g) {
  detail::check_trials("audit::randomized_response_pair", trials);
  auto p = detail::one_statistic(trials, "report 0 / 1 / other -> 0 / 1 / 0.5", "x = 0, x' = 1");
  std::vector<std::int64_t> v(trials);
  for (int side = 0; side < 2; ++side) {
    std::fill(v.begin(), v.end(), side);
    m.privatize(std::span<std::int64_t>(v), g);
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) out[i] = v[i] == 0 ? 0.0 : v[i] == 1 ? 1.0 : 0.5;
  }
  return p;
}

/// Local randomized-response histogram: one user in bin 0 (D) or bin 1 (D'); statistic
/// b_0 - b_1 (needs bins() >= 2).
template <std::uniform_random_bit_generator G>
sample_pair local_histogram_pair(const mechanisms::local_histogram& m, std::size_t trials, G& g) {
  detail::check_trials("audit::local_histogram_pair", trials);
  if (m.bins() < 2)
    core::throw_invalid(
        "audit::local_histogram_pair", "bins", static_cast<double>(m.bins()), "must be >= 2");
  auto p = detail::one_statistic(trials, "b_0 - b_1", "user in bin 0, user in bin 1");
  std::vector<std::uint8_t> bits(static_cast<std::size_t>(m.bins()));
  for (int side = 0; side < 2; ++side) {
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      m.randomize(side, bits, g);
      out[i] = static_cast<double>(bits[0]) - static_cast<double>(bits[1]);
    }
  }
  return p;
}

/// Selection mechanism (mechanisms::exponential_mechanism or permute_and_flip, general
/// utilities) on k >= 2 candidates: utilities all 0 (D) vs (Delta_u, -Delta_u, ..., -Delta_u)
/// (D'), Delta_u = utility_sensitivity; statistic 1 if candidate 0 is selected, else 0.
template <class Selection, std::uniform_random_bit_generator G>
requires std::same_as<Selection, mechanisms::exponential_mechanism> ||
    std::same_as<Selection, mechanisms::permute_and_flip>
        sample_pair selection_pair(const Selection& m,
                                   double utility_sensitivity,
                                   std::size_t k,
                                   std::size_t trials,
                                   G& g) {
  const char* fn = "audit::selection_pair";
  detail::check_trials(fn, trials);
  if (k < 2) core::throw_invalid(fn, "k", static_cast<double>(k), "must be >= 2");
  core::check_positive(fn, "utility_sensitivity", utility_sensitivity);
  auto p = detail::one_statistic(
      trials, "candidate 0 selected (0/1)", "utilities 0 vs (Delta_u, -Delta_u, ..., -Delta_u)");
  std::vector<double> u(k);
  for (int side = 0; side < 2; ++side) {
    for (std::size_t r = 0; r < k; ++r)
      u[r] = side == 0 ? 0.0 : (r == 0 ? utility_sensitivity : -utility_sensitivity);
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i)
      out[i] = m.select(std::span<const double>(u), g) == 0 ? 1.0 : 0.0;
  }
  return p;
}

/// The layout of exponential_quantile_pair on [lower, upper] (width W): the median's target
/// rank m = n/2 (n = 2m records, q = 1/2); gap points a = lower + W/2 and b = a + 0.015 W.
struct quantile_pair_layout {
  std::size_t m = 0;    ///< half the number of records
  double a = 0, b = 0;  ///< the two interior positions
  /// P_D(y >= a), P_D'(y >= a) and the pair's ceiling eps/2 + ln(Z_D/Z_D') (pairs.hpp comment)
  double p_d = 0, p_d_prime = 0, ceiling = 0;
};
/// The layout and closed forms for eps > 0, m >= 2 and the options' bounds.
quantile_pair_layout make_quantile_pair_layout(const mechanisms::quantile_options& o,
                                               std::size_t m);

/// Exponential-mechanism median (mechanisms::exponential_quantile, Smith 2011; o.quantile is
/// overridden to 1/2) on n = 2m records: D has m records at `lower` (one of them the mover), one
/// at a and m - 1 at b; D' moves the mover from `lower` to `upper`. Statistic: the output.
template <std::uniform_random_bit_generator G>
sample_pair exponential_quantile_pair(mechanisms::quantile_options o,
                                      std::size_t m,
                                      std::size_t trials,
                                      G& g) {
  detail::check_trials("audit::exponential_quantile_pair", trials);
  o.quantile = 0.5;
  const quantile_pair_layout l = make_quantile_pair_layout(o, m);
  auto p = detail::one_statistic(trials,
                                 "output",
                                 "m records at lower, one at a, m - 1 at b vs one of those at "
                                 "lower moved to upper (median, n = 2m)");
  std::vector<double> x(2 * m);
  for (int side = 0; side < 2; ++side) {
    std::fill(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(m), o.lower);
    x[m] = l.a;
    std::fill(x.begin() + static_cast<std::ptrdiff_t>(m) + 1, x.end(), l.b);
    if (side == 1) x[0] = o.upper;  // the mover
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i)
      out[i] = mechanisms::exponential_quantile(std::span<const double>(x), o, g);
  }
  return p;
}

/// Stable histogram (replace-one): D has n/2 records in bin 0 and n - n/2 in bin 1; D' moves
/// one record from bin 0 to bin 1. Statistic: the clamped Laplace log-likelihood ratio (see the
/// file comment; for the discrete_laplace noise variant the same clamp on the released counts).
/// n even, >= 4 and large enough that both bins pass the threshold (checked: n/2 - 1 >=
/// 2 x threshold count).
template <std::uniform_random_bit_generator G>
sample_pair stable_histogram_pair(const mechanisms::stable_histogram& m,
                                  std::size_t n,
                                  std::size_t trials,
                                  G& g) {
  const char* fn = "audit::stable_histogram_pair";
  detail::check_trials(fn, trials);
  if (n < 4 || n % 2 != 0)
    core::throw_invalid(fn, "n", static_cast<double>(n), "must be even >= 4");
  const std::size_t half = n / 2;  // n is even
  if (static_cast<double>(half - 1) / static_cast<double>(n) < 2 * m.threshold(n))
    core::throw_invalid(fn,
                        "n",
                        static_cast<double>(n),
                        "too small: the two bins must be far above the release threshold");
  auto p = detail::one_statistic(trials,
                                 "clamped Laplace log-likelihood ratio",
                                 "counts (n/2, n/2) vs (n/2 - 1, n/2 + 1) in bins 0, 1");
  const double inv_n = 1.0 / static_cast<double>(n);
  const double c0 = static_cast<double>(half) * inv_n;
  const double h = 0.5 * inv_n;
  const double mid0 = c0 - h, mid1 = c0 + h;  // midpoints between D and D' frequencies
  std::vector<std::int64_t> keys(n);
  for (int side = 0; side < 2; ++side) {
    const std::size_t in0 = n / 2 - static_cast<std::size_t>(side);
    for (std::size_t i = 0; i < n; ++i) keys[i] = i < in0 ? 0 : 1;
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = m.release_bins(std::span<const std::int64_t>(keys), g);
      double y0 = 0, y1 = 0;
      for (std::size_t b = 0; b < r.bins.size(); ++b) (r.bins[b] == 0 ? y0 : y1) = r.values[b];
      out[i] = std::clamp(y1 - mid1, -h, h) - std::clamp(y0 - mid0, -h, h);
    }
  }
  return p;
}

/// Mironov's attack on the research-grade Laplace: D -> 0, D' -> Delta_1; statistic = 1 if the
/// release is a double the research-grade sampler (scale m.scale()) can produce from D', else 0.
template <std::uniform_random_bit_generator G>
sample_pair mironov_pair(const mechanisms::laplace& m, std::size_t trials, G& g) {
  detail::check_trials("audit::mironov_pair", trials);
  auto p =
      detail::one_statistic(trials, "output reachable from D' (0/1)", "f(D) = 0, f(D') = Delta_1");
  const double d = m.l1_sensitivity(), b = m.scale();
  for (int side = 0; side < 2; ++side) {
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    std::fill(out.begin(), out.end(), side == 0 ? 0.0 : d);
    m.privatize(out, g);
    for (double& y : out) y = detail::research_laplace_can_output(y, d, b) ? 1.0 : 0.0;
  }
  return p;
}

/// The same attack statistic (reachability under the research-grade sampler of scale
/// m.scale()) applied to the float-safe Laplace release.
template <std::uniform_random_bit_generator G>
sample_pair mironov_pair(const mechanisms::float_safe_laplace& m, std::size_t trials, G& g) {
  detail::check_trials("audit::mironov_pair", trials);
  auto p = detail::one_statistic(trials,
                                 "output reachable from D' by the research-grade sampler",
                                 "f(D) = 0, f(D') = Delta_1");
  const double d = m.l1_sensitivity(), b = m.scale();
  for (int side = 0; side < 2; ++side) {
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    const double x = side == 0 ? 0.0 : d;
    for (double& y : out)
      y = detail::research_laplace_can_output(m.release(x, g), d, b) ? 1.0 : 0.0;
  }
  return p;
}

}  // namespace dpx::audit
