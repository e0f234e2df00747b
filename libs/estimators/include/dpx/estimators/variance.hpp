#pragma once
/// \file
/// Plug-in variance estimation (S1 Appendix G, used in §7.1.5; docs/theory/dependent-data.md §6):
///   * variance_bisection  — S1 Algorithm 10: halve σ² while the private coverage of
///                           [m̂ ± √2σ] stays ≥ 1 − γ, refining the midpoint each time;
///   * adaptive_coinpress  — S1 Algorithms 13–14, the 1-D CoinPress variance step (Biswas, Dong,
///                           Kamath, Ullman 2020) centred by the refined m̂ (not pair differences,
///                           which bias the estimate under dependence [V]);
///   * plugin_confidence_interval — the CI for μ built from a private mean and a private σ̂².
///
/// Inputs: public variance bounds σ_min² < σ_max², a public rough midpoint m̂₀ and γ. N_iter =
/// ⌈log₂(σ_max²/σ_min²)⌉ iterations of two mechanisms each; the per-mechanism budget ε′ comes
/// from split_budget over 2 N_iter mechanisms: advanced ε/sqrt(16 N_iter ln(1/ρ_c)) [V] or
/// basic ε/(2 N_iter) [R], the larger unless forced. Every step is a Laplace release, so the
/// whole procedure is (ε, 0)-DP (basic) or (ε, ρ_c)-DP (advanced), item level, central —
/// for every input (the bounds and γ are public; the data never choose the number of releases
/// beyond the accounted maximum).
///
/// Steps (x has n values):
///   Coverage(σ, m̂)       = #{i : |x_i − m̂| ≤ √2σ}/n + Lap(2/(nε′))   [V; 1/n would suffice, R]
///   RefineMidpoint(σ, m̂) = mean clip(x_i, m̂ ± √2σ) + Lap(2√2σ/(nε′)) [V]
///   RefineVariance(σ, m̂): β = sqrt(1 + 2 sqrt(ln(1/γ)) + 2 ln(1/γ)), w_i = clip((x_i − m̂)/σ, ±β),
///     z = max(0, mean w² + Lap(2β²/(nε′))) [V as printed; β²/n would suffice], σ² estimate z σ²,
///     next σ = σ sqrt(z + c_n).
/// CHOICES (documented in docs/estimators.md):
///   * γ default 0.2 [R]: at the true σ the window ±√2σ holds only 84.3% of a Gaussian, so the
///     bisection's stopping point depends strongly on γ (docs/theory/dependent-data.md §6); S1 does
///     not state γ.
///   * c_n default sqrt(1/n) + 1/(2n) [V-typo, docs/theory/dependent-data.md §10 item 10]: checked
///   against
///     twistedcubic/coin-press (cov_est_step: η = ½(2 sqrt(d/n) + d/n), U = Z + ηI), d = 1.
///   * bisection return: literal (the first σ² that FAILED coverage, or σ_max²/2^N_iter) as
///     printed, or last_passing (the smallest σ² that passed; an upper-side estimate) [R].
///   * clamp_to_bounds (default on) [R]: the released σ̂² is projected onto the public
///     [σ_min², σ_max²]. Post-processing of a private output with public constants, so the
///     privacy statement (budget, ledger, privacy_spent) is unchanged; since the estimators
///     assume σ² ∈ [σ_min², σ_max²], the projection never increases |σ̂² − σ²| for ANY
///     realisation. It removes CoinPress's σ̂² = 0 (last z clamped at 0) and the literal
///     bisection's σ_max²/2^N_iter < σ_min². Only the output is projected, not CoinPress's running
///     σ: that would change the later releases' windows, so no pointwise guarantee holds for it
///     (docs/estimators.md). Off: the published algorithms, bit for bit.
///
/// WHAT IS RELEASED: every noisy statistic above is a release — the coverage values (only their
/// pass/fail outcome is used, which the result reveals through `iterations`), every refined
/// midpoint (the last one is `midpoint`), every noisy second moment z (the last gives σ̂²) — and
/// the outputs (σ̂², m̂, `range`, `iterations`, `diag.failed`) are post-processing of them and of
/// the public inputs. `diag.clipped_fraction` is NOT private (a raw-data diagnostic).
///
/// FLOAT SAFETY: variance_options::noise (mechanisms::noise_kind) is float_safe by default:
/// every Laplace step above is float_safe_laplace's grid release of its statistic at the same
/// (ε′, sensitivity) — exactly ε′-DP (pure_dp_event in the ledger), noise scale larger by a
/// relative ≤ 2·2⁻²⁰, outputs on a power-of-two grid (docs/mechanisms.md, "Float safety") — so
/// the totals (ε, 0) / (ε, ρ_c) are unchanged. research_grade is S1's double-precision Laplace
/// exactly (laplace_event in the ledger), with the draw order below; the experiments and the
/// privacy audits pass it explicitly. One home for the switch: detail::release_mean
/// (central.hpp).

#include <cmath>
#include <concepts>
#include <cstddef>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dpx/estimators/central.hpp"
#include "dpx/mechanisms/noise_kind.hpp"

namespace dpx::estimators {

/// What variance_bisection returns.
enum class bisection_return {
  literal,       ///< σ_max² after the loop, as printed in S1 Alg 10
  last_passing,  ///< the last σ² whose coverage passed (σ_max² if none) [R]
};

/// Options of the plug-in variance estimators.
struct variance_options {
  double epsilon = 1.0;          ///< total ε > 0 of the variance stage
  double composition_slack = 0;  ///< ρ_c ∈ (0, 1); 0: 1e-6. Advanced composition adds it to δ
  composition_choice choice = std::nullopt;  ///< std::nullopt = automatic (see composition_choice)
  double variance_min = 0.1;                 ///< σ_min² > 0 (public)
  double variance_max = 1e4;                 ///< σ_max² > σ_min² (public)
  double midpoint = 0.0;  ///< m̂₀, public rough midpoint (|μ − m̂₀| ≲ √2 σ_max)
  double gamma = 0.2;     ///< γ ∈ (0, 1): coverage target 1 − γ / tail level of β
  bisection_return returns = bisection_return::literal;
  double inflation = -1.0;  ///< c_n ≥ 0; negative: sqrt(1/n) + 1/(2n)
  /// [R] Project the released σ̂² onto [σ_min², σ_max²] (free post-processing, file comment);
  /// false: the published output (CoinPress may return 0, the literal bisection σ_max²/2^N_iter).
  bool clamp_to_bounds = true;
  /// float_safe (default: float_safe_laplace releases, see the file comment) or research_grade
  /// (S1's double Laplace, bit for bit the published algorithms).
  mechanisms::noise_kind noise = mechanisms::noise_kind::float_safe;
  void validate(const char* function) const;
  /// N_iter = ⌈log₂(σ_max²/σ_min²)⌉ (≥ 1).
  std::size_t iterations() const;
};

/// Result of a plug-in variance estimator.
struct variance_result {
  double variance = 0.0;  ///< the private σ̂² (in [σ_min², σ_max²] with clamp_to_bounds)
  double midpoint = 0.0;  ///< the last refined (private) midpoint m̂
  std::size_t iterations = 0;  ///< iterations actually run (≤ N_iter)
  /// The window of the LAST release that touched the data: bisection, the last coverage window
  /// [m̂ ± √2σ]; CoinPress, the last clipping window [m̂ ± βσ] of RefineVariance. Public
  /// function of private outputs and public inputs (safe to publish).
  interval range;
  /// No histogram here: occupied_bins = released_bins = 0. clipped_fraction = fraction of x
  /// outside `range` (NOT private). failed (private, post-processing): bisection — the very
  /// first coverage test, at the public σ_max² and m̂₀, failed, so σ̂² = σ_max² carries no
  /// information (the public bounds or m̂₀ do not fit the data); CoinPress — the last noisy
  /// second moment was clamped to 0, so σ̂² = 0 (σ_min² with clamp_to_bounds: the output is
  /// then the public floor and still carries no information, hence still flagged).
  diagnostics diag;
  coordinate_budget budget;  ///< per-mechanism ε′ and the composition used (2 N_iter releases)
  privacy_spent privacy;     ///< (ε, 0) or (ε, ρ_c), item level, central
  std::vector<ledger_entry> ledger;  ///< the releases actually made, in order
};

namespace detail {
/// Fraction of x in [m̂ − r, m̂ + r].
double coverage_fraction(std::span<const double> x, double m, double r) noexcept;
/// mean of clip((x_i − m)/s, ±b)².
double clipped_second_moment(std::span<const double> x, double m, double s, double b) noexcept;
/// Budget over 2 N_iter Laplace releases.
coordinate_budget variance_budget(const variance_options& o);
/// The released σ̂²: v projected onto [σ_min², σ_max²] when o.clamp_to_bounds, else v.
double released_variance(const variance_options& o, double v) noexcept;

/// One Laplace step: `value` (L1 sensitivity `sensitivity`) released at ε′ = eps by the noise
/// `kind` (research_grade: value + Lap(sensitivity/eps), one draw; float_safe: float_safe_laplace's
/// grid release), the ledger entry `step` appended. detail::release_mean is the one home of the
/// switch.
template <std::uniform_random_bit_generator G>
double laplace_step(double value,
                    double sensitivity,
                    double eps,
                    mechanisms::noise_kind kind,
                    const char* step,
                    G& g,
                    std::vector<ledger_entry>& ledger) {
  double released = 0.0, scale = 0.0;
  release_mean(value, sensitivity, eps, kind, step, g, released, scale, ledger);
  return released;
}

/// RefineMidpoint(σ, m̂) = mean clip(x_i, m̂ ± √2σ) + Lap(2√2σ/(nε′)) [V], by the noise `kind`.
template <std::uniform_random_bit_generator G>
double refine_midpoint(std::span<const double> x,
                       double eps,
                       double sigma,
                       double m,
                       mechanisms::noise_kind kind,
                       G& g,
                       std::vector<ledger_entry>& ledger) {
  const double n = static_cast<double>(x.size());
  const double r = std::sqrt(2.0) * sigma;
  const clip_result c = clipped_sum(x, m - r, m + r);
  return laplace_step(c.sum / n, 2.0 * r / n, eps, kind, "refine_midpoint", g, ledger);
}
}  // namespace detail

/// S1 Algorithm 10 (VarianceBisection). Draw order per iteration: coverage draw, then (if it
/// passed) the midpoint draw.
template <std::uniform_random_bit_generator G>
variance_result variance_bisection(std::span<const double> x, const variance_options& o, G& g) {
  constexpr const char* fn = "variance_bisection";
  o.validate(fn);
  core::check_nonempty_finite_span(fn, "x", x);
  variance_result r;
  r.budget = detail::variance_budget(o);
  const double e = r.budget.epsilon, n = static_cast<double>(x.size());
  double v = o.variance_max, m = o.midpoint, last_pass = o.variance_max;
  const std::size_t iters = o.iterations();
  bool passed_any = false;
  double last_m = m, last_w = 0.0;
  for (std::size_t t = 0; t < iters; ++t) {
    ++r.iterations;
    last_m = m;
    last_w = std::sqrt(2.0 * v);
    r.range = {m - last_w, m + last_w};
    const double c = detail::laplace_step(
        detail::coverage_fraction(x, m, last_w), 2.0 / n, e, o.noise, "coverage", g, r.ledger);
    if (c < 1.0 - o.gamma) break;
    passed_any = true;
    last_pass = v;
    m = detail::refine_midpoint(x, e, std::sqrt(v), m, o.noise, g, r.ledger);
    v *= 0.5;
  }
  r.diag.clipped_fraction = 1.0 - detail::coverage_fraction(x, last_m, last_w);
  r.diag.failed = !passed_any;
  r.variance = detail::released_variance(o, o.returns == bisection_return::literal ? v : last_pass);
  r.midpoint = m;
  r.privacy = {r.budget.total_epsilon,
               r.budget.total_delta,
               core::privacy_unit::item,
               trust_model::central,
               core::neighbouring::replace_one};
  return r;
}

/// S1 Algorithms 13–14 (AdaptiveCoinPress, 1-D). Draw order per iteration: midpoint draw, then
/// the second-moment draw.
template <std::uniform_random_bit_generator G>
variance_result adaptive_coinpress(std::span<const double> x, const variance_options& o, G& g) {
  constexpr const char* fn = "adaptive_coinpress";
  o.validate(fn);
  core::check_nonempty_finite_span(fn, "x", x);
  variance_result r;
  r.budget = detail::variance_budget(o);
  const double e = r.budget.epsilon, n = static_cast<double>(x.size());
  const double lg = std::log(1.0 / o.gamma);
  const double beta = std::sqrt(1.0 + 2.0 * std::sqrt(lg) + 2.0 * lg);
  const double cn = o.inflation >= 0.0 ? o.inflation : std::sqrt(1.0 / n) + 0.5 / n;
  double s = std::sqrt(o.variance_max), m = o.midpoint, var = o.variance_max;
  double last_m = m, last_w = 0.0;
  for (std::size_t t = 0; t < o.iterations(); ++t) {
    ++r.iterations;
    m = detail::refine_midpoint(x, e, s, m, o.noise, g, r.ledger);
    last_m = m;
    last_w = beta * s;
    r.range = {m - last_w, m + last_w};
    const double z = std::max(0.0,
                              detail::laplace_step(detail::clipped_second_moment(x, m, s, beta),
                                                   2.0 * beta * beta / n,
                                                   e,
                                                   o.noise,
                                                   "refine_variance",
                                                   g,
                                                   r.ledger));
    var = z * s * s;
    r.diag.failed = z == 0.0;
    s *= std::sqrt(z + cn);
  }
  r.diag.clipped_fraction = 1.0 - detail::coverage_fraction(x, last_m, last_w);
  r.variance = detail::released_variance(o, var);
  r.midpoint = m;
  r.privacy = {r.budget.total_epsilon,
               r.budget.total_delta,
               core::privacy_unit::item,
               trust_model::central,
               core::neighbouring::replace_one};
  return r;
}

/// Plug-in (1 − α) confidence interval for μ around a private mean (KV Alg 4 form,
/// docs/theory/dependent-data.md §7): estimate ± (z_{1−α/4} sqrt(κ σ̂²/n) + b ln(2/α)), α split
/// equally between the sampling term and the Laplace term (b = mean.noise_scale). κ ≥ 1 is a PUBLIC
/// long-run variance factor (n Var(X̄)/σ²; 1 for i.i.d. data): with dependent data and κ = 1 the
/// interval under-covers.
interval plugin_confidence_interval(const mean_result& mean,
                                    double variance,
                                    double alpha,
                                    double long_run_factor = 1.0);

}  // namespace dpx::estimators
