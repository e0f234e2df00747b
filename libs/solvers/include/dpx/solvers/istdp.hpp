#pragma once
/// \file
/// ISTDP: differentially private iterative shrinkage-thresholding with BB steps (Yuan &
/// Peng 2023, Algorithm 1), with the corrections of docs/theory/istdp.md.
///
/// Problem: min F(theta) = L(theta; D) + R(theta), L smooth (average loss), R any proximal
/// operator (the paper: MCP). Paper notation: theta^0 != theta^1 given; for k = 1 ... T-1:
///   1. g^k = grad L(theta^k; D); xi^k = g^k + N(0, sigma^2 I)             (the private release)
///   2. BB step alpha = s^T s / s^T y, s = theta^k - theta^{k-1}, y = g^k - g^{k-1}, clipped to
///      [alpha_min, alpha_max]; alpha_max when s^T y <= 0 (PDF and text before eq. (3); the
///      transcription's s^T s / y^T y is a transcription error);
///   3. theta_hat = prox_{alpha R}(theta^k - alpha xi^k); accept when
///      F(theta^k) - F(theta_hat) >= (beta alpha / 2) ||theta_hat - theta^k||^2, else alpha <- eta
///      alpha and repeat;
///   4. theta^{k+1} = theta_hat.      Output theta^T.
/// The solver runs T - 1 updates (T = options.iterations); result.iterations = T - 1 and trace
/// iteration k holds theta^{k+1}.
///
/// Variants:
///  * as_published: exactly the above. Steps 2 and 3 use the EXACT gradients g^k, g^{k-1} and the
///    EXACT objective F(.; D): the output is NOT (epsilon, delta)-DP (docs/theory/istdp.md, the
///    leak); only the sequence of noisy gradients xi^k is. For reproducing the paper. If a line
///    search hits max_backtracks (possible with noise: the algorithm as printed would loop
///    forever), the iteration keeps theta^{k+1} = theta^k and result.line_search_failures counts
///    it.
///  * strict: private by construction. The BB step uses the noisy gradients
///    (y = xi^k - xi^{k-1}; post-processing), with alpha_max <= 1 / L_s for a PUBLIC smoothness
///    bound L_s (options.public_smoothness, never computed from the data); the first update uses
///    alpha_max; the clipped step is accepted without a line search; there is no theta^0. The
///    only data access is the T - 1 gradient releases. The output is (epsilon, delta)-DP under the
///    configured neighbouring relation (with the gradient_bound sensitivity, the released average
///    gradient is projected onto the ball of radius U so that 2U bounds its sensitivity by
///    construction).
///
/// Sensitivity of one release (L2): gradient_bound: 2U (the paper; U a public bound on ||grad L||;
/// 2U is the diameter of the U-ball the release lies in, so it involves no n and holds for either
/// relation; reported as replace-one as in the paper); clipping: per-example gradients clipped to
/// G, and
///  * replace-one: the release is the clipped mean (1/n) sum_i clip_G(g_i), n public, 2G/n;
///  * add/remove: n is private, so the release is (sum_i clip_G(g_i)) / n_bar for the PUBLIC
///    normaliser n_bar = options.public_size (required), sensitivity G/n_bar (the published G/n
///    holds only with a public normaliser: dividing by the private n gives ||mean_D - mean_D'||
///    up to 2G/(n+1) > G/n and a noise scale that depends on n; docs/theory/noisy-pgd.md,
///    "Sensitivity and the public normaliser"). n_bar = n releases the mean bit for bit.
/// Calibration: paper = Thm. 3.3 (per-step (eps_k, delta_k), classical Gaussian, advanced
/// composition over T steps); tight = exact composition of the T - 1 Gaussian releases
/// (calibration.hpp); fixed = options.sigma (0 = noiseless). Events: one gaussian_event
/// {sigma / sensitivity} per release (none when sigma = 0).

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/privacy_curves.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/calibration.hpp"
#include "dpx/solvers/common.hpp"

namespace dpx::solvers {

/// Which ISTDP (see the file comment).
enum class istdp_variant { as_published, strict };
std::string to_string(istdp_variant v);
istdp_variant parse_istdp_variant(const std::string& s);

/// Options of istdp().
struct istdp_options {
  std::int64_t iterations = 100;  ///< T of the paper (T - 1 updates and releases), >= 2
  istdp_variant variant = istdp_variant::strict;
  double eta = 0.5;                  ///< backtracking factor, in (0, 1) (as_published)
  double beta = 0.5;                 ///< acceptance constant, in (0, 1) (as_published)
  double alpha_min = 1e-4;           ///< step clip, 0 < alpha_min < alpha_max
  double alpha_max = 1.0;            ///< strict: must be <= 1 / public_smoothness
  std::int64_t max_backtracks = 60;  ///< as_published: line-search trial cap, >= 1
  /// strict: a public upper bound L_s on the smoothness of L, > 0. The default 1 bounds dpx's
  /// least-squares (L = λ_max(XᵀX/n) ≤ max ||x_i||²) and logistic (L ≤ max ||x_i||² / 4) losses
  /// when the rows have norm ≤ 1 (data scaled by clipping or normalising). It only sets the
  /// step (alpha_max ≤ 1/L_s); privacy does not depend on it.
  double public_smoothness = 1.0;
  sensitivity_mode sensitivity = sensitivity_mode::clipping;
  double gradient_bound = 0;  ///< U (> 0) for sensitivity_mode::gradient_bound
  double clip_norm = 1.0;     ///< G (> 0) for sensitivity_mode::clipping
  /// Neighbouring relation (clipping mode; gradient_bound is replace-one as in the paper).
  core::neighbouring relation = core::neighbouring::replace_one;
  /// n_bar, a PUBLIC normaliser for add/remove (clipping mode): the released gradient is
  /// (sum_i clip_G(g_i)) / n_bar and its sensitivity G / n_bar. Required (> 0) with add/remove,
  /// because the dataset size n is private under add/remove (use the public design size, e.g. n
  /// itself when it is published); ignored under replace-one (n is public there) and with
  /// gradient_bound (2U does not involve n).
  std::size_t public_size = 0;
  noise_calibration calibration = noise_calibration::tight;
  /// (epsilon, delta) target of calibration paper / tight (required there): epsilon > 0, delta
  /// in (0, 1). Refused with calibration fixed (reset it: sigma is spent instead, and sigma 0 is
  /// NOT private), naming calibration: no run ignores a target it was given (docs/solvers.md,
  /// "Privacy targets").
  std::optional<core::epsilon_delta> target = core::epsilon_delta{1.0, 1e-5};
  /// as_published is NOT private whatever its noise: a target then calibrates only its noisy
  /// gradient releases, and is refused (naming variant) unless this explicit opt-in is set.
  /// Only used by as_published (set with strict, it is refused).
  bool allow_nonprivate = false;
  double sigma = 0.0;  ///< noise sd for calibration::fixed, >= 0
  /// float_safe (default): float_safe_gaussian releases, zcdp_event{rho} each; calibration tight
  /// then uses gaussian_zcdp_multiplier (paper is refused: Thm. 3.3 is the continuous
  /// Gaussian's). research_grade: the paper's Gaussian mechanism in doubles (experiments).
  mechanisms::noise_kind noise_kind = mechanisms::noise_kind::float_safe;
  checkpoint_options trace;
  /// Throws core::invalid_argument_error naming the field.
  void validate() const;
};

/// Sensitivity (L2) of one gradient release for these options and n examples (under add/remove
/// with clipping: G / o.public_size, independent of n; throws when public_size is 0 there).
double istdp_sensitivity(const istdp_options& o, std::size_t n);
/// Noise sd sigma the options imply for n examples (0 for fixed with sigma 0).
double istdp_sigma(const istdp_options& o, std::size_t n);

/// ISTDP from (theta0, theta1): the published algorithm's start (theta0 != theta1: its first BB
/// step uses both). strict starts from theta1 alone and takes no theta0: call the overload
/// without it; here strict accepts only an EMPTY theta0 (for callers that choose the variant at
/// run time) and throws naming `theta0` for a non-empty one, which it would not use.
/// Loss: clippable_loss (a smooth_loss suffices with sensitivity_mode::gradient_bound). Noise
/// from `rng`.
template <smooth_loss Loss, prox::proximal_operator Penalty, std::uniform_random_bit_generator G>
solve_result istdp(const Loss& loss,
                   const Penalty& penalty,
                   std::span<const double> theta0,
                   std::span<const double> theta1,
                   const istdp_options& options,
                   G& rng);

/// Strict ISTDP from theta1 alone (throws naming `variant` for as_published, which needs theta0).
template <smooth_loss Loss, prox::proximal_operator Penalty, std::uniform_random_bit_generator G>
solve_result istdp(const Loss& loss,
                   const Penalty& penalty,
                   std::span<const double> theta1,
                   const istdp_options& options,
                   G& rng) {
  if (options.variant != istdp_variant::strict)
    core::throw_invalid("solvers::istdp",
                        "variant",
                        to_string(options.variant),
                        "needs theta0: call istdp(loss, penalty, theta0, theta1, options, rng)");
  return istdp(loss, penalty, std::span<const double>(), theta1, options, rng);
}

// ================================ implementation ==========================================

namespace detail {
std::size_t loss_size_or_zero(const auto& loss) {
  if constexpr (requires { loss.size(); })
    return static_cast<std::size_t>(loss.size());
  else
    return 0;
}
/// The released gradient before noise: clipped average (clipping) or the exact gradient
/// (gradient_bound; projected onto the U-ball when `project`).
/// Under add/remove (clipping) the clipped sum is divided by the public n_bar, not by n.
template <class Loss>
void istdp_gradient(const Loss& loss,
                    const istdp_options& o,
                    std::span<const double> theta,
                    std::span<double> g,
                    bool project) {
  if (o.sensitivity == sensitivity_mode::clipping) {
    if constexpr (clippable_loss<Loss>) {
      loss.clipped_gradient(theta, o.clip_norm, g);
      if (o.relation == core::neighbouring::add_remove)
        apply_public_normaliser(g, static_cast<std::size_t>(loss.size()), o.public_size);
    } else {
      core::throw_invalid("solvers::istdp",
                          "sensitivity",
                          "clipping",
                          "needs a loss with clipped per-example gradients");
    }
  } else {
    loss.value_and_gradient(theta, g);
    if (project) {
      double nrm = std::sqrt(detail::dot(g, g));
      if (nrm > o.gradient_bound)
        for (double& v : g) v *= o.gradient_bound / nrm;
    }
  }
}
}  // namespace detail

template <smooth_loss Loss, prox::proximal_operator Penalty, std::uniform_random_bit_generator G>
solve_result istdp(const Loss& loss,
                   const Penalty& penalty,
                   std::span<const double> theta0,
                   std::span<const double> theta1,
                   const istdp_options& options,
                   G& rng) {
  const char* fn = "solvers::istdp";
  options.validate();
  const std::size_t d = loss.dimension();
  const bool published = options.variant == istdp_variant::as_published;
  if (!published && !theta0.empty())
    core::throw_invalid(fn,
                        "theta0",
                        "(given)",
                        "strict ISTDP starts from theta1 alone and does not use theta0: pass an "
                        "empty theta0 or call istdp(loss, penalty, theta1, options, rng)");
  if (published) core::check_size(fn, "theta0", theta0.size(), d);
  core::check_size(fn, "theta1", theta1.size(), d);
  core::check_finite_span(fn, "theta0", theta0);
  core::check_finite_span(fn, "theta1", theta1);
  if (published && detail::squared_distance(theta0, theta1) == 0)
    core::throw_invalid(fn, "theta0", "theta1", "as_published needs theta0 != theta1");
  const std::size_t n = detail::loss_size_or_zero(loss);
  if (options.sensitivity == sensitivity_mode::clipping && n == 0)
    core::throw_invalid(fn, "sensitivity", "clipping", "needs a loss with size()");

  detail::stopwatch clock;
  solve_result r;
  r.sensitivity = istdp_sensitivity(options, n);
  r.noise_scale = istdp_sigma(options, n);
  r.relation = options.sensitivity == sensitivity_mode::clipping ? options.relation
                                                                 : core::neighbouring::replace_one;
  if (options.calibration != noise_calibration::fixed) {
    r.epsilon_target = options.target->epsilon;
    r.delta_target = options.target->delta;
  }
  const double sigma = r.noise_scale;
  const bool noisy = sigma > 0;
  const std::string rel = core::to_string(r.relation);
  if (!noisy)
    r.guarantee = "nonprivate (sigma = 0)";
  else if (published)
    r.guarantee =
        "NOT private: only the noisy gradients are Gaussian releases; the BB step and line search "
        "use exact gradients and objective values (docs/theory/istdp.md, the leak)";
  else if (options.calibration == noise_calibration::fixed)
    r.guarantee = "private by construction: " + std::to_string(options.iterations - 1) +
                  " Gaussian releases (see privacy_events) under " + rel;
  else
    r.guarantee = "(epsilon, delta)-DP under " + rel + " (" + to_string(options.calibration) +
                  " calibration" +
                  (options.noise_kind == mechanisms::noise_kind::float_safe
                       ? ", float-safe Gaussian accounted by zCDP"
                       : "") +
                  ")";
  if (noisy && options.sensitivity == sensitivity_mode::clipping &&
      options.relation == core::neighbouring::add_remove)
    r.guarantee += "; released gradient = sum of clipped per-example gradients / PUBLIC n_bar = " +
                   std::to_string(options.public_size);

  const detail::gaussian_release noise(options.noise_kind,
                                       noisy ? sigma : 1.0,
                                       noisy ? r.sensitivity : 1.0,
                                       core::neighbouring::replace_one);
  const auto objective = [&](std::span<const double> th) {
    return loss.value(th) + penalty.value(th);
  };

  std::vector<double> th(theta1.begin(), theta1.end()), th_prev(theta0.begin(), theta0.end());
  std::vector<double> g(d), g_prev(d), xi(d), xi_prev(d), u(d), th_hat(d);
  bool have_prev = published;  // strict: no release before theta^1
  double f = 0;
  if (published) {
    detail::istdp_gradient(loss, options, th_prev, g_prev, false);  // g^0 (exact)
    f = objective(th);                                              // F(theta^1)
    r.gradient_evaluations = 1;
    r.objective_evaluations = 1;
  }
  if (options.trace.enabled)
    detail::record(r, options.trace, clock, 0, std::nan(""), 0, [&] { return objective(th); });
  r.status = termination::max_iterations;
  r.message = "ran T - 1 = " + std::to_string(options.iterations - 1) + " updates";
  const std::int64_t updates = options.iterations - 1;
  for (std::int64_t k = 1; k <= updates; ++k) {
    // 1. gradient release
    detail::istdp_gradient(loss, options, th, g, !published);
    ++r.gradient_evaluations;
    std::copy(g.begin(), g.end(), xi.begin());
    if (noisy) {
      noise.privatize(xi, rng);
      r.privacy_events.push_back(noise.event());
    }
    // 2. BB step
    double alpha = options.alpha_max;
    if (have_prev) {
      const std::span<const double> yk = published ? std::span<const double>(g) : xi;
      const std::span<const double> yp = published ? std::span<const double>(g_prev) : xi_prev;
      double ss = 0, sy = 0;
      for (std::size_t j = 0; j < d; ++j) {
        const double s = th[j] - th_prev[j];
        ss += s * s;
        sy += s * (yk[j] - yp[j]);
      }
      if (sy > 0) alpha = std::clamp(ss / sy, options.alpha_min, options.alpha_max);
    }
    // 3. prox step (+ line search for as_published)
    std::int64_t trials = 0;
    bool accepted = false;
    double f_hat = 0;
    while (true) {
      ++trials;
      for (std::size_t j = 0; j < d; ++j) u[j] = th[j] - alpha * xi[j];
      penalty.apply(u, alpha, th_hat);
      if (!published) {
        accepted = true;
        break;
      }
      f_hat = objective(th_hat);
      ++r.objective_evaluations;
      if (f - f_hat >= 0.5 * options.beta * alpha * detail::squared_distance(th_hat, th)) {
        accepted = true;
        break;
      }
      if (trials >= options.max_backtracks) break;
      alpha *= options.eta;
    }
    r.line_search_trials += trials;
    r.max_line_search_trials = std::max(r.max_line_search_trials, trials);
    // 4. update
    th_prev = th;
    g_prev.swap(g);
    xi_prev.swap(xi);
    have_prev = true;
    if (accepted) {
      th.swap(th_hat);
      f = f_hat;
    } else {
      ++r.line_search_failures;  // keep theta^{k+1} = theta^k
    }
    r.iterations = k;
    if (!detail::all_finite(th)) {
      r.status = termination::diverged;
      r.message = "non-finite iterate";
      break;
    }
    if (options.trace.is_checkpoint(k) || k == updates)
      detail::record(
          r, options.trace, clock, k, alpha, trials, [&] { return published ? f : objective(th); });
  }
  if (r.line_search_failures > 0 && r.status != termination::diverged) {
    r.status = termination::line_search_failed;
    r.message = std::to_string(r.line_search_failures) +
                " line searches hit max_backtracks (those iterations kept theta^k)";
  }
  r.x = std::move(th);
  if (published)
    r.objective = f;
  else if (options.trace.record_objective)
    r.objective = clock.exclude([&] { return objective(r.x); });
  r.seconds = clock.elapsed();
  return r;
}

}  // namespace dpx::solvers
