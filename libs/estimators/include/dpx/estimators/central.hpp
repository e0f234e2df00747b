#pragma once
/// \file
/// Central-model, item-level estimators of S1 (Roth & Avella-Medina 2025) §3–§4 and the
/// Karwa–Vadhan baseline (docs/theory/dependent-data.md §3, §7):
///   * projection_interval — S1 Algorithm 3 (stable histogram, Algorithm 2, then argmax);
///   * winsorized_mean     — S1 Algorithm 4 (incl. the sharper τ + 2τ′ variant via interval_rule);
///   * winsorized_mean_hd  — S1 Algorithm 5 (basic or advanced composition,
///   docs/theory/dependent-data.md §3.4);
///   * sample_split_mean   — S1 eq. (1) / Thm 4.3 (optionally with parallel composition, §3.5);
///   * kv_mean             — Karwa–Vadhan (2018) Alg 1 + Alg 4 with known σ
///   (docs/theory/dependent-data.md §7);
///   * kv_mean_unknown_sigma — Karwa–Vadhan Alg 2 (private σ range from pair differences) +
///                           Alg 1 + Alg 4 with σ unknown (docs/theory/dependent-data.md §7).
///
/// Neighbouring relation: replace-one (S1 Def 2.1), a record = one row (item level). n is public.
/// Every estimator is (ε, δ)-DP FOR EVERY INPUT: the bins, the radius κ and τ are public and
/// fixed before seeing the data; the model constants only affect accuracy.
///
/// Stable histogram: mechanisms::stable_histogram (S1 Algorithm 2 [V]): occupied bins only get
/// p̂_k + Lap(2/(ε_h n)); a bin is released iff that is ≥ 2 ln(2/δ)/(ε_h n) + 1/n
/// (docs/theory/dependent-data.md §10 item 2: ln(2/δ)); empty bins output exactly 0 with no draw.
/// Privacy [V Lemma C.1]: (ε_h, δ). The bin keys are computed here (detail::bin_index, clamped to
/// ±2^53 so any finite input is accepted).
///
/// NOISE DRAW ORDER (documented so that tests can recompute the draws from the same stream):
/// one rng::uniform_open01 per occupied bin in increasing bin index (mechanisms::laplace of
/// scale 2/(ε_h n), drawn by laplace::fill), then one for the mean (mechanisms::laplace of scale
/// 2κ/(n ε_m)); HD versions repeat this per coordinate j = 0..d−1.
///
/// FLOAT SAFETY: every options struct has `noise` (mechanisms::noise_kind), float_safe by
/// default: the stable histogram draws exact discrete Laplace noise on the integer counts
/// (mechanisms::histogram_noise::discrete_laplace: scale >= 2/ε, count threshold
/// ⌈1 + scale ln(2/δ)⌉, the same (ε, δ)) and the mean is released by float_safe_laplace (exactly
/// ε-DP, output on a power-of-two grid, noise scale larger by a relative <= 2·2^-20).
/// noise_kind::research_grade is S1's mechanism exactly (double Laplace, see
/// mechanisms/laplace.hpp) with the draw order below; experiments pass it explicitly.
/// Float-safe draw order: the histogram's exact integer draws (occupied bins in increasing
/// order), then the mean's.

#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/privacy_curves.hpp"
#include "dpx/estimators/common.hpp"
#include "dpx/estimators/detail/kernels.hpp"
#include "dpx/mechanisms/float_safe.hpp"
#include "dpx/mechanisms/histogram.hpp"
#include "dpx/mechanisms/laplace.hpp"
#include "dpx/mechanisms/noise_kind.hpp"

namespace dpx::estimators {

// ---- results -----------------------------------------------------------------------------

/// Result of projection_interval (S1 Algorithm 3).
struct projection_result {
  interval range;                 ///< Î = [m̂ − κ, m̂ + κ]
  double midpoint = 0.0;          ///< m̂ = 2h k̂ (0 on failure)
  std::int64_t selected_bin = 0;  ///< k̂ = argmax_k p̃_k, smallest k on ties [R] (0 on failure)
  double threshold = 0.0;         ///< proportion-form threshold 2 ln(2/δ)/(ε n) + 1/n
  /// The released (private) bins and frequencies — except histogram.occupied, an exact count
  /// that is NOT private (see mechanisms::sparse_histogram).
  mechanisms::sparse_histogram histogram;
  std::size_t n = 0;                 ///< number of observations
  diagnostics diag;                  ///< bins; clipped_fraction is not computed here (0)
  privacy_spent privacy;             ///< (ε, δ), item level, central
  std::vector<ledger_entry> ledger;  ///< one "histogram" entry
};

/// Result of a one-dimensional private mean (winsorized_mean, kv_mean, local/user variants).
struct mean_result {
  double estimate = 0.0;     ///< the private mean
  interval range;            ///< the clipping interval used, Î
  double midpoint = 0.0;     ///< m̂
  std::size_t n = 0;         ///< number of records averaged
  double noise_scale = 0.0;  ///< Laplace scale b of the mean release (4κ/(nε) centrally)
  diagnostics diag;       ///< see diagnostics (clipped_fraction and occupied_bins are NOT private)
  privacy_spent privacy;  ///< total spent
  std::vector<ledger_entry> ledger;  ///< the private steps, in order
};

/// Result of a d-dimensional private mean (winsorized_mean_hd, sample_split_mean, user level).
struct mean_hd_result {
  std::vector<double> estimate;        ///< d private coordinates
  std::vector<interval> ranges;        ///< d clipping intervals (an L∞ box)
  std::vector<diagnostics> diag;       ///< per coordinate (see diagnostics for what is private)
  std::size_t n = 0;                   ///< number of records (rows)
  std::size_t d = 0;                   ///< dimension
  std::size_t failed_coordinates = 0;  ///< coordinates whose histogram zeroed every bin
  double noise_scale = 0.0;            ///< Laplace scale per coordinate of the mean release
  coordinate_budget budget;            ///< per-coordinate (ε′, δ′) and the composition used
  privacy_spent privacy;  ///< total spent: (ε, δ) basic/single, (ε, δ + ρ_c) advanced
  std::vector<ledger_entry> ledger;  ///< per-coordinate steps, in order
};

// ---- options -----------------------------------------------------------------------------

/// Options of winsorized_mean (S1 Algorithm 4).
struct winsorized_mean_options {
  /// Total (ε, δ): ε > 0, ε/2 histogram and ε/2 clipped mean; δ ∈ (0, 1), all of it to the
  /// histogram [V].
  core::epsilon_delta target{1.0, 1e-6};
  interval_rule rule;  ///< A^κ_h: paper(τ) (default choice of S1), sharper(τ, τ′), custom
  /// float_safe (default: exact discrete noise, see the file comment) or research_grade.
  mechanisms::noise_kind noise = mechanisms::noise_kind::float_safe;
  /// Throws core::invalid_argument_error naming `function`.
  void validate(const char* function = "winsorized_mean") const;
};

/// Options of winsorized_mean_hd (S1 Algorithm 5) and of the d-dimensional estimators built on it.
struct winsorized_mean_hd_options {
  /// Total (ε, δ): ε > 0 (advanced composition needs ε < 1); δ ∈ (0, 1), δ/d per coordinate.
  core::epsilon_delta target{0.5, 1e-6};
  interval_rule rule;  ///< the same public rule for every coordinate
  /// ρ_c ∈ (0, 1), the advanced-composition slack; 0 means ρ_c = δ (S1 Cor D.7,
  /// docs/theory/dependent-data.md §3.4).
  double composition_slack = 0.0;
  composition_choice choice =
      composition_choice::automatic;  ///< docs/theory/dependent-data.md §3.4 [R]
  /// float_safe (default: exact discrete noise, see the file comment) or research_grade.
  mechanisms::noise_kind noise = mechanisms::noise_kind::float_safe;
  void validate(const char* function = "winsorized_mean_hd") const;
  /// ρ_c actually used.
  double slack() const noexcept {
    return composition_slack > 0.0 ? composition_slack : target.delta;
  }
};

/// Options of sample_split_mean (S1 eq. (1), Thm 4.3; docs/theory/dependent-data.md §3.5).
struct sample_split_options {
  winsorized_mean_hd_options base;  ///< ε, δ, rule (paper: τ² ≍ ρ ln(4n)), composition
  /// false: the paper's version, ε′/2 on the first half's histogram and ε′/2 on the second
  /// half's mean (docs/theory/dependent-data.md §3.5 [V]). true: parallel composition [R] — the
  /// halves are disjoint, so each gets the full per-coordinate ε′ and the total is unchanged.
  bool parallel = false;
  void validate() const { base.validate("sample_split_mean"); }
};

/// Options of kv_mean (Karwa & Vadhan 2018, Alg 1 + Alg 4, known σ; docs/theory/dependent-data.md
/// §7 [KV-impl]).
struct kv_mean_options {
  /// Total (ε, δ): ε > 0, ε/2 range (histogram) and ε/2 mean [KV-impl, equal split]; δ ∈ (0, 1)
  /// for the stable histogram (replaces the bound R on |μ|).
  core::epsilon_delta target{1.0, 1e-6};
  double sigma = 1.0;  ///< public standard deviation σ > 0: bins of width σ centred at jσ
  double beta = 0.1;  ///< range failure probability β ∈ (0, 1): radius 4σ sqrt(ln(n/β)) [R default]
  double alpha = 0.05;  ///< CI level 1 − α, α ∈ (0, 1), split α₀ = α₁ = α/2 [R]
  /// float_safe (default: exact discrete noise, see the file comment) or research_grade.
  mechanisms::noise_kind noise = mechanisms::noise_kind::float_safe;
  void validate() const;
};

/// Result of kv_mean: the mean plus KV's confidence interval
/// estimate ± (σ z_{1−α₀/2}/√n + b ln(1/α₁)), b the Laplace scale (docs/theory/dependent-data.md
/// §7, KV Alg 4).
struct kv_result {
  mean_result mean;     ///< the private mean (range, diagnostics, privacy)
  interval confidence;  ///< the (1 − α) confidence interval for μ (i.i.d. N(μ, σ²) data)
};

/// Options of kv_mean_unknown_sigma (Karwa & Vadhan 2018, Alg 2 + Alg 1 + Alg 4 with σ unknown;
/// docs/theory/dependent-data.md §7 [KV-impl]). Budget [KV-impl, equal split over the private
/// steps]: ε/3 for the σ histogram, ε/3 for the range histogram, ε/3 for the mean; δ/2 for each
/// histogram.
struct kv_unknown_sigma_options {
  /// Total (ε, δ): ε > 0 (ε/3 per step); δ ∈ (0, 1) (δ/2 per histogram; replaces KV's bounds
  /// σ_min, σ_max, R).
  core::epsilon_delta target{1.0, 1e-6};
  double beta = 0.1;    ///< range failure probability β ∈ (0, 1): radius 4σ̂ sqrt(ln(n/β))
  double alpha = 0.05;  ///< CI level 1 − α, α ∈ (0, 1), split α/2 + α/2 [R]
  /// Public σ used when the σ histogram releases no bin (failure; diag flag sigma_failed). > 0.
  double sigma_fallback = 1.0;
  /// float_safe (default: exact discrete noise, see the file comment) or research_grade.
  mechanisms::noise_kind noise = mechanisms::noise_kind::float_safe;
  void validate() const;
};

/// Result of kv_mean_unknown_sigma.
struct kv_unknown_sigma_result {
  mean_result mean;  ///< the private mean (range, diagnostics of the range histogram, privacy)
  double sigma_hat = 0.0;  ///< σ̂ = 2^{ĵ+2} (KV Alg 2 [KV-impl]), or sigma_fallback
  std::int64_t sigma_bin = 0;  ///< ĵ: the released dyadic bin [2^ĵ, 2^{ĵ+1}) of |x_{2i+1} − x_{2i}|
  diagnostics sigma_diag;  ///< the σ histogram: occupied/released bins, failed (private flag)
  interval confidence;  ///< estimate ± (σ̂ z_{1−α/4}/√n + b ln(2/α)) (conservative, [R])
};

// ---- implementation helpers ----------------------------------------------------------------

namespace detail {

/// mechanisms::stable_histogram (S1 Algorithm 2) applied to precomputed occupied-bin counts:
/// the calibration (noise scale 2/(εn), threshold 2 ln(2/δ)/(εn) + 1/n; or the discrete
/// variant's integer law and count threshold) comes from mechanisms::stable_histogram, and the
/// draws and comparisons are exactly those of its release_bins: research_grade = laplace noise,
/// one laplace::fill over the occupied bins in increasing order, release p̂_k + Z_k iff ≥ t;
/// float_safe = histogram_noise::discrete_laplace, one exact draw per occupied bin in increasing
/// order, release (c_k + Z_k)/n iff c_k + Z_k ≥ T. Done here so that the counts come from one
/// counting pass over the data instead of an n-element key array (tests check bit-identity with
/// release_bins).
template <std::uniform_random_bit_generator G>
mechanisms::sparse_histogram stable_release(const std::vector<bin_count>& occupied,
                                            std::size_t n,
                                            double epsilon,
                                            double delta,
                                            mechanisms::noise_kind kind,
                                            G& g) {
  const bool exact = kind == mechanisms::noise_kind::float_safe;
  const auto sh = mechanisms::stable_histogram::calibrate(
      epsilon,
      delta,
      exact ? mechanisms::histogram_noise::discrete_laplace : mechanisms::histogram_noise::laplace);
  mechanisms::sparse_histogram h;
  h.n = n;
  h.occupied = occupied.size();
  h.threshold = sh.threshold(n);
  if (exact) {
    const auto dl = sh.count_noise();
    const std::int64_t thr = sh.count_threshold();
    mechanisms::detail::pooled_words<G> w(g);
    const double inv_n = 1.0 / static_cast<double>(n);
    for (const bin_count& b : occupied) {
      const std::int64_t c =
          static_cast<std::int64_t>(b.count) +
          mechanisms::detail::discrete_laplace(w, dl.scale_denominator(), dl.scale_numerator());
      if (c >= thr) {
        h.bins.push_back(b.bin);
        h.values.push_back(static_cast<double>(c) * inv_n);
      }
    }
    return h;
  }
  std::vector<double> noise(occupied.size());
  mechanisms::laplace::from_scale(sh.noise_scale(n)).fill(noise, g);
  const double inv_n = 1.0 / static_cast<double>(n);
  for (std::size_t i = 0; i < occupied.size(); ++i) {
    const double v = static_cast<double>(occupied[i].count) * inv_n + noise[i];
    if (v >= h.threshold) {
      h.bins.push_back(occupied[i].bin);
      h.values.push_back(v);
    }
  }
  return h;
}

/// Algorithm 3 on validated x; fills everything except privacy/ledger.
template <std::uniform_random_bit_generator G>
projection_result projection_core(std::span<const double> x,
                                  const interval_rule& rule,
                                  double epsilon,
                                  double delta,
                                  mechanisms::noise_kind kind,
                                  G& g,
                                  const char* function,
                                  const char* parameter) {
  const double width = 2.0 * rule.bin_half_width;
  projection_result r;
  r.histogram = stable_release(
      occupied_bins(x, width, function, parameter), x.size(), epsilon, delta, kind, g);
  std::int64_t k = 0;
  const bool any = r.histogram.argmax(k);
  r.n = x.size();
  r.diag.occupied_bins = r.histogram.occupied;
  r.diag.released_bins = r.histogram.bins.size();
  r.diag.failed = !any;
  r.selected_bin = any ? k : 0;
  r.midpoint = any ? width * static_cast<double>(k) : 0.0;
  r.range = {r.midpoint - rule.radius, r.midpoint + rule.radius};
  r.threshold = r.histogram.threshold;
  return r;
}

/// The clipped mean m (sensitivity 2κ/n) released at ε_m: m + Lap(2κ/(n ε_m)) (research_grade)
/// or float_safe_laplace's grid release (float_safe). Sets estimate, noise_scale and the ledger.
template <std::uniform_random_bit_generator G>
void release_mean(double m,
                  double sensitivity,
                  double eps_mean,
                  mechanisms::noise_kind kind,
                  const char* step,
                  G& g,
                  double& estimate,
                  double& noise_scale,
                  std::vector<ledger_entry>& ledger) {
  const auto lap = mechanisms::laplace::calibrate(eps_mean, sensitivity);
  if (kind == mechanisms::noise_kind::float_safe) {
    const auto fs = lap.float_safe();
    estimate = fs.release(m, g);
    noise_scale = fs.scale();
    ledger.push_back({step, eps_mean, 0.0, fs.event()});
  } else {
    estimate = m + lap.sample(g);
    noise_scale = lap.scale();
    ledger.push_back({step, eps_mean, 0.0, lap.event()});
  }
}

/// Algorithm 4 on validated x with (ε_h, δ) for the histogram and ε_m for the mean.
template <std::uniform_random_bit_generator G>
mean_result winsorized_core(std::span<const double> x,
                            const interval_rule& rule,
                            double eps_hist,
                            double delta,
                            double eps_mean,
                            mechanisms::noise_kind kind,
                            G& g,
                            const char* function,
                            const char* parameter) {
  const projection_result p =
      projection_core(x, rule, eps_hist, delta, kind, g, function, parameter);
  const double n = static_cast<double>(x.size());
  const clip_result c = clipped_sum(x, p.range.lo, p.range.hi);
  mean_result r;
  r.ledger.push_back({"histogram", eps_hist, delta, core::approx_dp_event{eps_hist, delta}});
  release_mean(c.sum / n,
               2.0 * rule.radius / n,
               eps_mean,
               kind,
               "clipped_mean",
               g,
               r.estimate,
               r.noise_scale,
               r.ledger);
  r.range = p.range;
  r.midpoint = p.midpoint;
  r.n = x.size();
  r.diag = p.diag;
  r.diag.clipped_fraction = static_cast<double>(c.clipped) / n;
  return r;
}

/// Shared d-dimensional loop: each column j gets Algorithm 4 at the per-coordinate budget;
/// `hist_rows`/`mean_rows` select the rows used for the histogram and the mean (sample split).
template <std::uniform_random_bit_generator G>
mean_hd_result hd_core(std::span<const double> x,
                       std::size_t d,
                       std::size_t hist_begin,
                       std::size_t hist_end,
                       std::size_t mean_begin,
                       std::size_t mean_end,
                       const interval_rule& rule,
                       const coordinate_budget& budget,
                       double eps_hist,
                       double eps_mean,
                       mechanisms::noise_kind kind,
                       G& g,
                       const char* function) {
  mean_hd_result r;
  r.d = d;
  r.n = x.size() / d;
  r.budget = budget;
  std::vector<double> hcol(hist_end - hist_begin), mcol(mean_end - mean_begin);
  const auto rows = [&](std::size_t a, std::size_t b) { return x.subspan(a * d, (b - a) * d); };
  const double nm = static_cast<double>(mcol.size());
  for (std::size_t j = 0; j < d; ++j) {
    copy_column(rows(hist_begin, hist_end), d, j, hcol);
    const projection_result p =
        projection_core(hcol, rule, eps_hist, budget.delta, kind, g, function, "x");
    copy_column(rows(mean_begin, mean_end), d, j, mcol);
    const clip_result c = clipped_sum(mcol, p.range.lo, p.range.hi);
    const std::string idx = "[" + std::to_string(j) + "]";
    r.ledger.push_back(
        {"histogram" + idx, eps_hist, budget.delta, core::approx_dp_event{eps_hist, budget.delta}});
    double estimate = 0.0;
    release_mean(c.sum / nm,
                 2.0 * rule.radius / nm,
                 eps_mean,
                 kind,
                 ("clipped_mean" + idx).c_str(),
                 g,
                 estimate,
                 r.noise_scale,
                 r.ledger);
    r.estimate.push_back(estimate);
    r.ranges.push_back(p.range);
    diagnostics dg = p.diag;
    dg.clipped_fraction = static_cast<double>(c.clipped) / nm;
    r.failed_coordinates += dg.failed ? 1 : 0;
    r.diag.push_back(dg);
  }
  r.privacy = {budget.total_epsilon,
               budget.total_delta,
               core::privacy_unit::item,
               trust_model::central,
               core::neighbouring::replace_one};
  return r;
}

/// KV Alg 2's dyadic bin of a pair difference d ≥ 0: j = ⌊log₂ d⌋ (exact, from frexp: bin
/// [2^j, 2^{j+1})); d = 0 and subnormals go to the bottom bin −1075. A fixed partition of [0, ∞).
std::int64_t dyadic_index(double d) noexcept;
/// Occupied dyadic bins of |x_{2i+1} − x_{2i}|, i < ⌊n/2⌋ (sorted by bin, counts ≥ 1); x finite.
std::vector<bin_count> pair_difference_bins(std::span<const double> x);

/// Throws unless x is a finite n×d row-major matrix (d ≥ 1) with n ≥ min_rows.
void check_matrix(const char* function,
                  std::span<const double> x,
                  std::size_t d,
                  std::size_t min_rows);

/// KV Alg 4 confidence interval: estimate ± (σ z_{1−α/4}/√n + b ln(2/α)) (α₀ = α₁ = α/2).
interval kv_confidence(double estimate,
                       const kv_mean_options& o,
                       std::size_t n,
                       double noise_scale);

}  // namespace detail

// ---- estimators ----------------------------------------------------------------------------

/// S1 Algorithm 3 (ProjectionInterval) with the rule A^κ_h: stable histogram over bins
/// (2hk − h, 2hk + h] at (ε, δ), k̂ = argmax (smallest k on ties [R]), m̂ = 2h k̂, Î = [m̂ ± κ].
/// If every bin is zeroed, m̂ = 0 and diag.failed = true [V]. Releases Î (and m̂):
/// (ε, δ)-DP, item level [V Lemma C.1 + post-processing]. Guarantee [V Lemma 3.4]: under
/// (τ, γ)_∞-concentration around x0, |m̂ − x0| ≤ 2τ (paper rule) with high probability.
template <std::uniform_random_bit_generator G>
projection_result projection_interval(
    std::span<const double> x,
    const interval_rule& rule,
    double epsilon,
    double delta,
    G& g,
    mechanisms::noise_kind kind = mechanisms::noise_kind::float_safe) {
  constexpr const char* fn = "projection_interval";
  rule.validate(fn);
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  if (x.empty()) core::throw_invalid(fn, "x", "empty", "must hold at least one value");
  projection_result r = detail::projection_core(x, rule, epsilon, delta, kind, g, fn, "x");
  r.privacy = {epsilon,
               delta,
               core::privacy_unit::item,
               trust_model::central,
               core::neighbouring::replace_one};
  r.ledger.push_back({"histogram", epsilon, delta, core::approx_dp_event{epsilon, delta}});
  return r;
}

/// S1 Algorithm 4 (WinsorizedMean1D): Î = ProjectionInterval(x, rule, ε/2, δ), then
/// (1/n) Σ clip(x_i, Î) + Lap(0, 4κ/(nε)) (sensitivity 2κ/n at ε/2; κ = 3τ gives the paper's
/// 12τ/(nε)). Releases the estimate and Î: (ε, δ)-DP at item level by basic composition [V].
/// Utility [V Lemma 4.1]: w.p. ≥ 1 − γ − O((n/δ)e^{−κnε} ∨ e^{−κ′n}) nothing is clipped and
/// the output is X̄ + Lap(4κ/(nε)). Cost: one min/max pass, one counting pass, one clipping pass.
template <std::uniform_random_bit_generator G>
mean_result winsorized_mean(std::span<const double> x, const winsorized_mean_options& o, G& g) {
  constexpr const char* fn = "winsorized_mean";
  o.validate(fn);
  if (x.empty()) core::throw_invalid(fn, "x", "empty", "must hold at least one value");
  mean_result r = detail::winsorized_core(x,
                                          o.rule,
                                          0.5 * o.target.epsilon,
                                          o.target.delta,
                                          0.5 * o.target.epsilon,
                                          o.noise,
                                          g,
                                          fn,
                                          "x");
  r.privacy = {o.target.epsilon,
               o.target.delta,
               core::privacy_unit::item,
               trust_model::central,
               core::neighbouring::replace_one};
  return r;
}

/// S1 Algorithm 5 (WinsorizedMeanHD) on the n×d row-major matrix x: Algorithm 4 on every
/// column at (ε′, δ′) from split_budget (d = 1: Algorithm 4 itself; basic (ε/d, δ/d) or advanced
/// (ε/sqrt(8 d ln(1/ρ_c)), δ/d), whichever gives the larger ε′ unless forced;
/// docs/theory/dependent-data.md §3.4). Clipping is to an L∞ box. Privacy: (ε, δ) (basic) or (ε, δ
/// + ρ_c) (advanced), item level (a record is a row). Utility [V Thm 4.2].
template <std::uniform_random_bit_generator G>
mean_hd_result winsorized_mean_hd(std::span<const double> x,
                                  std::size_t d,
                                  const winsorized_mean_hd_options& o,
                                  G& g) {
  constexpr const char* fn = "winsorized_mean_hd";
  o.validate(fn);
  detail::check_matrix(fn, x, d, 1);
  const coordinate_budget b =
      split_budget(o.target.epsilon, o.target.delta, d, o.slack(), o.choice);
  const std::size_t n = x.size() / d;
  return detail::hd_core(
      x, d, 0, n, 0, n, o.rule, b, 0.5 * b.epsilon, 0.5 * b.epsilon, o.noise, g, fn);
}

/// Sample-split estimator (S1 eq. (1), Thm 4.3, Cor D.7; docs/theory/dependent-data.md §3.5): with
/// N ≥ 2 rows, the first ⌊N/2⌋ rows Z give m̂_j (Algorithm 3 per coordinate) and the other rows X
/// are clipped to Π_j [m̂_j ± κ], averaged and noised with Lap(2κ/(|X| ε_m)). Paper version: ε_h =
/// ε_m = ε′/2; parallel: ε_h = ε_m = ε′ [R]. Per-coordinate (ε′, δ′) as in winsorized_mean_hd.
/// Privacy: (ε, δ) or (ε, δ + ρ_c), item level. The paper's radius: τ² ≍ ρ ln(4n).
template <std::uniform_random_bit_generator G>
mean_hd_result sample_split_mean(std::span<const double> x,
                                 std::size_t d,
                                 const sample_split_options& o,
                                 G& g) {
  constexpr const char* fn = "sample_split_mean";
  o.validate();
  detail::check_matrix(fn, x, d, 2);
  const winsorized_mean_hd_options& b0 = o.base;
  const coordinate_budget b =
      split_budget(b0.target.epsilon, b0.target.delta, d, b0.slack(), b0.choice);
  const std::size_t n = x.size() / d;
  const std::size_t half = n / 2;
  const double e = o.parallel ? b.epsilon : 0.5 * b.epsilon;
  return detail::hd_core(x, d, 0, half, half, n, b0.rule, b, e, e, b0.noise, g, fn);
}

/// Karwa–Vadhan baseline with known σ (docs/theory/dependent-data.md §7 [KV-impl]): the
/// stable-histogram range of KV Alg 1 (bins of width σ centred at jσ, i.e. h = σ/2, at (ε/2, δ);
/// the stable histogram removes KV's bound R on |μ|), the range [σ l̂ ± 4σ sqrt(ln(n/β))], then KV
/// Alg 4: clamp, mean, Lap((b − a)/(n ε/2)). (ε, δ)-DP item level. The CI assumes i.i.d. N(μ, σ²)
/// data.
template <std::uniform_random_bit_generator G>
kv_result kv_mean(std::span<const double> x, const kv_mean_options& o, G& g) {
  constexpr const char* fn = "kv_mean";
  o.validate();
  if (x.empty()) core::throw_invalid(fn, "x", "empty", "must hold at least one value");
  const double n = static_cast<double>(x.size());
  const interval_rule rule{0.5 * o.sigma, 4.0 * o.sigma * std::sqrt(std::log(n / o.beta))};
  kv_result r;
  r.mean = detail::winsorized_core(
      x, rule, 0.5 * o.target.epsilon, o.target.delta, 0.5 * o.target.epsilon, o.noise, g, fn, "x");
  r.mean.privacy = {o.target.epsilon,
                    o.target.delta,
                    core::privacy_unit::item,
                    trust_model::central,
                    core::neighbouring::replace_one};
  r.confidence = detail::kv_confidence(r.mean.estimate, o, x.size(), r.mean.noise_scale);
  return r;
}

/// Karwa–Vadhan baseline with UNKNOWN σ (docs/theory/dependent-data.md §7 [KV-impl]), three private
/// steps on n ≥ 2 i.i.d.-intended values, each a function of the data through a fixed partition:
///  1. KV Alg 2 (σ range): the m = ⌊n/2⌋ pair differences |x_{2i+1} − x_{2i}| (replace-one
///     changes at most one of them) in dyadic bins [2^j, 2^{j+1}), stable histogram at
///     (ε/3, δ/2) (S1 Alg 2 instead of KV's bounded range j ∈ [log₂σ_min − 2, log₂σ_max + 2]),
///     ĵ = argmax (smallest on ties), σ̂ = 2^{ĵ+2} — an upper-side estimate: for Gaussian data
///     the modal bin gives σ ≤ σ̂ ≤ 8σ with high probability. No bin released: σ̂ = sigma_fallback.
///  2. KV Alg 1 (range) with σ̂: bins of width σ̂ centred at jσ̂ at (ε/3, δ/2), radius
///     κ = 4σ̂ sqrt(ln(n/β)).
///  3. KV Alg 4: clamp to [m̂ ± κ], mean + Lap(2κ/(n ε/3)) (replace-one sensitivity 2κ/n).
/// Privacy: (ε/3, δ/2) + (ε/3, δ/2) + (ε/3, 0) = (ε, δ), item level, replace-one, by basic
/// composition — σ̂ and m̂ are post-processing of the first two releases. The CI uses σ̂ in place
/// of σ (no fourth, noisy-variance step: conservative since σ̂ ≥ σ w.h.p.; KV's t-quantile
/// variant is not implemented). Draw order: σ-histogram draws (one per occupied dyadic bin, in
/// increasing bin order), range-histogram draws, the mean draw.
template <std::uniform_random_bit_generator G>
kv_unknown_sigma_result kv_mean_unknown_sigma(std::span<const double> x,
                                              const kv_unknown_sigma_options& o,
                                              G& g) {
  constexpr const char* fn = "kv_mean_unknown_sigma";
  o.validate();
  if (x.size() < 2)
    core::throw_invalid(fn, "x", std::to_string(x.size()) + " values", "must hold at least 2");
  core::check_finite_span(fn, "x", x);
  const double e3 = o.target.epsilon / 3.0, d2 = 0.5 * o.target.delta;
  const std::size_t m = x.size() / 2;
  kv_unknown_sigma_result r;
  const mechanisms::sparse_histogram h =
      detail::stable_release(detail::pair_difference_bins(x), m, e3, d2, o.noise, g);
  std::int64_t j = 0;
  const bool any = h.argmax(j);
  r.sigma_diag.occupied_bins = h.occupied;
  r.sigma_diag.released_bins = h.bins.size();
  r.sigma_diag.failed = !any;
  r.sigma_bin = any ? j : 0;
  r.sigma_hat = any ? std::ldexp(1.0, static_cast<int>(j) + 2) : o.sigma_fallback;
  const double n = static_cast<double>(x.size());
  const interval_rule rule{0.5 * r.sigma_hat, 4.0 * r.sigma_hat * std::sqrt(std::log(n / o.beta))};
  r.mean = detail::winsorized_core(x, rule, e3, d2, e3, o.noise, g, fn, "x");
  r.mean.ledger.insert(r.mean.ledger.begin(),
                       {"sigma_histogram", e3, d2, core::approx_dp_event{e3, d2}});
  r.mean.privacy = {o.target.epsilon,
                    o.target.delta,
                    core::privacy_unit::item,
                    trust_model::central,
                    core::neighbouring::replace_one};
  kv_mean_options ko;
  ko.sigma = r.sigma_hat;
  ko.alpha = o.alpha;
  ko.noise = o.noise;
  r.confidence = detail::kv_confidence(r.mean.estimate, ko, x.size(), r.mean.noise_scale);
  return r;
}

}  // namespace dpx::estimators
