#pragma once
/// \file
/// Ready-made audits by name: a mechanism (or estimator) with its claimed guarantee, or a
/// private solver on a small canary design; each runs the worst-case pair of pairs.hpp /
/// estimator_pairs.hpp (or the canary pair below) and the held-out threshold auditor of
/// auditor.hpp, and compares the lower bound with the claim. Used by `dpx audit` and the
/// `privacy_audit` experiment.
///
/// Solver canary design (replace-one unless noted; least squares, d = 2): n - 1 "base" rows
/// x = (0, 1), y = 0, and one canary row x = (1, 0) with y = -Y in D and y = +Y in D' (Y =
/// canary_response, large, so the canary's per-example gradient is always clipped to norm G and
/// points along -+e_1: the two clipped averages differ by exactly 2G/n, the replace-one
/// sensitivity). DP-SGD is add/remove: D = the base rows alone, D' = base rows + canary y = +Y.
/// Second design, `canary_design::curvature` (isolates the step-size channel): the canary row is
/// x = (1, 0), y = 0 in D and the null row x = (0, 0), y = 0 in D' (replace-one; add/remove for
/// DP-SGD: D' = base rows alone). Its gradient theta_0 e_1 is small (unclipped while
/// |theta_0| < G), so the releases differ by at most G/n, but D's objective has curvature 1/n
/// along e_1 and D''s has none: ISTDP as published sees this through its BB step and line search.
/// Statistics (the auditor picks one on the selection split): theta_T[0] (the final iterate's
/// projection on the canary direction; monotone in the loss on the canary) and
/// ||theta_T - theta_start||^2 (sensitive to a data-dependent step size).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dpx/audit/auditor.hpp"
#include "dpx/audit/pairs.hpp"
#include "dpx/core/privacy_curves.hpp"
#include "dpx/core/rng.hpp"

namespace dpx::audit {

/// Mechanism audits by name (mechanism_names() lists them).
struct mechanism_audit_spec {
  /// laplace, gaussian, discrete_laplace, discrete_gaussian, randomized_response,
  /// stable_histogram, local_histogram, laplace_mironov (research-grade Laplace under Mironov's
  /// attack), float_safe_laplace_mironov (the same attack on the float-safe Laplace),
  /// exponential_mechanism, permute_and_flip (selection_pair, k = candidates),
  /// exponential_quantile (the median of n = 100 records in [0, 1], pairs.hpp), l2_laplace and
  /// l2_laplace_spread (d = 16, shift on one coordinate / spread; claim: the library's (eps,
  /// delta) bound), float_safe_gaussian (claim from rho-zCDP),
  /// winsorized_mean, kv_mean, local_mean, user_mean, priestley_chao
  /// (estimators::winsorized_mean, kv_mean, local_mean, user_mean (user level, d = 1, T = 4
  /// values per user), priestley_chao at one point; their pairs audit the mean stage's share
  /// of epsilon, estimator_pairs.hpp), winsorized_mean_histogram, kv_mean_histogram (the histogram
  /// stage: claim (eps/2, delta)), winsorized_mean_both, kv_mean_both (both stages: claim
  /// (eps, delta); stage_pairs.hpp), winsorized_mean_hd and user_mean_hd (d = 4; user level
  /// for the latter, T = 4), local_mean_hd (d = 4, one user), priestley_chao_grid (J = 4
  /// points), sample_split_mean, kv_mean_unknown_sigma (their composed mean stages;
  /// composed_pairs.hpp), variance_bisection, adaptive_coinpress (the plug-in variance
  /// estimators with N_iter = 1: claim the total (eps, 0); the pairs' exact epsilon is 3 eps/4,
  /// variance_pairs.hpp).
  std::string mechanism = "laplace";
  /// Claimed epsilon (> 0), used when neither scale nor noise_multiplier is given.
  std::optional<double> epsilon;
  /// Noise scale b (laplace, discrete_laplace; > 0): claimed epsilon = sensitivity / b.
  std::optional<double> scale;
  /// sigma / Delta (gaussian, discrete_gaussian; > 0): claimed epsilon at `delta` from the
  /// exact profile (Balle & Wang 2018, Thm. 8) or, for the discrete Gaussian, from its zCDP
  /// guarantee rho = 1/(2 m^2) (Bun & Steinke 2016, Prop. 1.3: eps = rho + 2 sqrt(rho
  /// ln(1/delta))).
  std::optional<double> noise_multiplier;
  /// Sensitivity Delta (> 0; an integer for the discrete mechanisms).
  double sensitivity = 1.0;
  /// delta of the calibration for gaussian, discrete_gaussian, float_safe_gaussian, l2_laplace*,
  /// stable_histogram and the central estimators (in (0, 1)); pure-DP mechanisms (laplace,
  /// discrete_laplace, randomized_response, local_histogram, the selection mechanisms and the
  /// median, the attacks, local_mean, local_mean_hd) are audited with delta = 0, and so is
  /// sample_split_mean (exactly eps/2-DP on its pair).
  double delta = 1e-5;
  /// Broken variant: the noise scale (b or sigma) is halved (randomized response and the
  /// histograms and the selection mechanisms and the median: run at 2 epsilon; the estimators:
  /// their mean-stage noise halved by half_noise_estimate, pairs.hpp; the histogram-stage pairs:
  /// both stages at 2 epsilon, stage_pairs.hpp; the variance estimators: run at 2 epsilon,
  /// variance_pairs.hpp) while the ORIGINAL guarantee is claimed. The
  /// attack mechanisms ignore it.
  bool broken = false;
  std::int64_t categories = 2;   ///< randomized_response: k >= 2
  std::int64_t bins = 4;         ///< local_histogram: number of bins >= 2
  std::int64_t candidates = 50;  ///< exponential_mechanism, permute_and_flip: k >= 2
  /// stable_histogram / winsorized_mean / kv_mean / priestley_chao / winsorized_mean_hd /
  /// priestley_chao_grid / sample_split_mean / variance_bisection / adaptive_coinpress: n;
  /// user_mean, user_mean_hd: the number of users;
  /// kv_mean_unknown_sigma: n = 2 records + 1 (odd). Not used by local_mean (one user) and the
  /// histogram-stage pairs (n is set by the threshold). The stable histogram raises it to the
  /// smallest even n >= 8 ln(2/delta)/eps + 8 so that both audited bins stay far above the
  /// threshold.
  std::size_t records = 200;
  /// Throws core::invalid_argument_error naming the field.
  void validate() const;
};

/// Result of a named audit.
struct named_audit_result {
  audit_result audit;  ///< the auditor's result (bound, counts, chosen test)
  /// The epsilon the audit checks: the guarantee claimed for the (unbroken) mechanism on the
  /// audited pair. Equal to total_epsilon except for the estimators, whose pairs audit the
  /// mean stage's share (winsorized_mean, kv_mean, user_mean, priestley_chao and the composed
  /// winsorized_mean_hd, user_mean_hd, priestley_chao_grid: eps/2 - ln(1 - delta/4); local_mean,
  /// local_mean_hd, sample_split_mean: eps/2; kv_mean_unknown_sigma: eps/3 - ln(1 - delta/8)) or
  /// the histogram stage's (winsorized_mean_histogram, kv_mean_histogram: eps/2); the *_both pairs
  /// and the variance estimators check the total eps.
  double claimed_epsilon = 0;
  double claimed_delta = 0;  ///< delta of that claim (0 for pure DP), used in the bound
  double total_epsilon = 0;  ///< the target's overall epsilon guarantee
  bool violation = false;    ///< audit.epsilon_lower_bound > claimed_epsilon
  std::string pair;          ///< the neighbouring pair in words
  std::string statistic;     ///< the chosen statistic's name
  std::string guarantee;     ///< what is claimed, in words
};

/// Names accepted by mechanism_audit_spec::mechanism.
std::vector<std::string> mechanism_names();

/// Runs `trials` trials per side (>= 4) and audits at options.confidence (options.delta is
/// replaced by the claim's delta). Randomness from g.
named_audit_result audit_mechanism(const mechanism_audit_spec& spec,
                                   std::size_t trials,
                                   const audit_options& options,
                                   rng::philox4x32& g);

/// Which canary pair (file comment).
enum class canary_design {
  sign,       ///< canary y = -Y vs +Y (always clipped): the gradient-release channel at 2G/n
  curvature,  ///< canary x = e_1, y = 0 vs a null row: the step-size (curvature) channel
};

/// Private solvers audited on the canary design (file comment).
struct solver_audit_spec {
  canary_design design = canary_design::sign;  ///< which pair
  /// istdp_as_published, istdp_strict, noisy_pgd (Gaussian, tight calibration, last iterate),
  /// dp_sgd.
  std::string solver = "istdp_strict";
  std::size_t records = 10;     ///< n (rows of D for replace-one), >= 2
  std::int64_t iterations = 5;  ///< T (ISTDP: T - 1 releases; PGD, DP-SGD: T steps), >= 2
  /// Calibration target (ISTDP, noisy PGD): epsilon > 0; delta in (0, 1), also the claim's delta.
  core::epsilon_delta target{1.0, 1e-5};
  double clip_norm = 1.0;          ///< G > 0
  double canary_response = 100.0;  ///< Y > 0
  double step_size = 0.5;          ///< noisy PGD and DP-SGD step, > 0
  double sampling_rate = 0.5;      ///< DP-SGD q in (0, 1]
  double noise_multiplier = 1.0;   ///< DP-SGD sigma > 0 (claim: RDP accountant at delta)
  /// Broken variant (a negative control for the audit): the noise is scaled down while the
  /// ORIGINAL guarantee is claimed: ISTDP and noisy PGD calibrate their noise for
  /// broken_factor * epsilon (noise at 8 eps reported as eps), DP-SGD runs at
  /// noise_multiplier / broken_factor. solver_claimed_epsilon ignores it.
  bool broken = false;
  static constexpr double broken_factor = 8;
  void validate() const;
};

/// Names accepted by solver_audit_spec::solver.
std::vector<std::string> solver_names();

/// The canary pair's statistics for a solver (`trials` runs on each side).
sample_pair solver_pair(const solver_audit_spec& spec, std::size_t trials, rng::philox4x32& g);

/// Claimed epsilon at spec.target.delta: the calibration target for ISTDP (both variants: the
/// published variant CLAIMS it, docs/theory/istdp.md, the leak) and noisy PGD; for DP-SGD the RDP
/// accountant's epsilon of its subsampled-Gaussian events.
double solver_claimed_epsilon(const solver_audit_spec& spec);

/// solver_pair + audit_samples (options.delta replaced by spec.target.delta) + the claim.
named_audit_result audit_solver(const solver_audit_spec& spec,
                                std::size_t trials,
                                const audit_options& options,
                                rng::philox4x32& g);

}  // namespace dpx::audit
