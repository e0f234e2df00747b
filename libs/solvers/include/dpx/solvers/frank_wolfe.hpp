#pragma once
/// \file
/// Frank–Wolfe on the L1 ball and its differentially private version (Talwar, Thakurta & Zhang
/// 2015, "Nearly optimal private LASSO", Algorithm 2 with the selection of Algorithm 1 done by
/// the exponential mechanism; docs/solvers.md).
///
/// Problem: min L(theta) over C = {theta : ||theta||_1 <= r}. C is the convex hull of its 2d
/// vertices S = {+-r e_j}. From theta_0 in C, for t = 0 ... T-1:
///   g_t = grad L(theta_t) (see the sensitivity below for what exactly is released);
///   v_t = argmin_{v in S} <v, g_t>         (nonprivate), or
///   v_t = EM over S with utility u(v) = -<v, g_t>   (private: exponential mechanism, sampled
///         exactly as report-noisy-max with Gumbel noise, mechanisms::exponential_mechanism);
///   theta_{t+1} = (1 - mu_t) theta_t + mu_t v_t,  mu_t = 2 / (t + 2).
/// Output theta_T (always in C). The nonprivate method has L(theta_T) - L* <= 2 Gamma / (T + 2)
/// with Gamma the curvature constant of L over C (Jaggi 2013, Thm. 1); TTZ15 Thm. 3.4 bounds the
/// private excess risk by Gamma^{1/3} (L_inf r)^{2/3} / (n eps)^{2/3} times logarithmic factors
/// in n, d and 1/delta, with T of order (n eps)^{2/3}.
///
/// Privacy (the only data access is the T selections; theta_{t+1} depends on the data only
/// through v_0 ... v_t, so the output is post-processing):
///  * Utility sensitivity Delta_u = max |u_v(D) - u_v(D')| = r ||g(D) - g(D')||_inf, with
///    - clipping (clip_norm = G > 0): per-example gradients clipped to L2 norm G (so their
///      L_inf norm is <= G); replace-one: g = clipped mean, n public, Delta_u = 2 r G / n;
///      add/remove: g = (sum of clipped gradients) / n_bar for the PUBLIC normaliser n_bar =
///      public_size, Delta_u = r G / n_bar;
///    - coordinate_bound (L_inf > 0, clip_norm = 0): TTZ15's bound sup_z ||grad l(theta; z)||_inf
///      <= L_inf (the L_1-Lipschitz constant: Lipschitz w.r.t. the L1 norm). The private
///      selection makes it hold for every record: each per-example gradient is projected onto
///      the L_inf ball (coordinates clamped to [-L_inf, L_inf]) before averaging, so records
///      inside the bound give the exact gradient and no record is refused; the number of
///      clamped gradients is not released. Needs per-example gradients (example_gradient, as
///      glm_loss has). replace-one: 2 r L_inf / n; add/remove: r L_inf / n_bar.
///  * Each selection is the exponential mechanism with per-step eps0 (P(v) prop. to
///    exp(eps0 u(v) / (2 Delta_u))): eps0-DP (McSherry & Talwar 2007) and eps0-bounded-range,
///    hence (eps0^2 / 8)-zCDP (Cesar & Rogers 2021, Lemma 3.2). Events: one
///    exponential_mechanism_event{eps0} per iteration.
///  * Per-step eps0 from (epsilon, delta) over T selections (frank_wolfe_step_epsilon):
///    - paper: advanced composition (Dwork, Rothblum & Vadhan 2010, the composition TTZ15's
///      Thm. 3.1 proof uses; drv_per_step_epsilon with slack delta);
///    - tight: zCDP composition, rho = T eps0^2 / 8, and Bun & Steinke 2016, Prop. 1.3
///      (rho-zCDP => (rho + 2 sqrt(rho ln(1/delta)), delta)-DP): eps0 = sqrt(8 rho / T) with
///      sqrt(rho) = sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)) (about 2x larger eps0 than
///      advanced composition at the same (epsilon, delta));
///    - fixed: eps0 = step_epsilon (e.g. from a tighter numerical accountant in dpx::accounting,
///      which reads the events).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/privacy_curves.hpp"
#include "dpx/mechanisms/selection.hpp"
#include "dpx/solvers/calibration.hpp"
#include "dpx/solvers/common.hpp"

namespace dpx::solvers {

/// Options of frank_wolfe(). The defaults are valid (nonprivate Frank–Wolfe on the unit L1 ball).
struct frank_wolfe_options {
  std::int64_t iterations = 100;   ///< T >= 1
  double radius = 1.0;             ///< r > 0 of the L1 ball
  bool private_selection = false;  ///< true: exponential mechanism (needs the privacy fields)
  /// Per-example L2 clipping norm G (> 0 for the clipping sensitivity); 0 = exact gradients.
  double clip_norm = 0.0;
  /// Public L_inf bound on per-example gradients (used only when clip_norm == 0): with
  /// private_selection every per-example gradient is clamped to it (see the file comment).
  double coordinate_bound = 0.0;
  core::neighbouring relation = core::neighbouring::replace_one;
  std::size_t public_size = 0;  ///< n_bar (> 0) for add/remove, see the file comment
  noise_calibration calibration = noise_calibration::tight;
  /// (epsilon, delta) target of private_selection with calibration paper / tight (required
  /// there): epsilon > 0, delta in (0, 1). None by default. Refused, naming the option, without
  /// private_selection (NOT private) or with calibration fixed (step_epsilon is spent instead):
  /// no run ignores a target it was given (docs/solvers.md, "Privacy targets").
  std::optional<core::epsilon_delta> target;
  double step_epsilon = 0.0;  ///< eps0 > 0 (fixed)
  checkpoint_options trace;
  /// Safe by default: the private selection (Gumbel report-noisy-max in double precision) has
  /// no float-safe form, so private_selection refuses float_safe (naming noise_kind);
  /// research_grade accepts it.
  mechanisms::noise_kind noise_kind = mechanisms::noise_kind::float_safe;
  /// Throws core::invalid_argument_error naming the field.
  void validate() const;
};

/// Per-step eps0 of the private selections (see the file comment); 0 when not private.
double frank_wolfe_step_epsilon(const frank_wolfe_options& o);

/// Utility sensitivity Delta_u for n examples (see the file comment); 0 when not private.
double frank_wolfe_utility_sensitivity(const frank_wolfe_options& o, std::size_t n);

/// Frank–Wolfe / DP Frank–Wolfe from x0 (||x0||_1 <= radius). Loss: clippable_loss when
/// clip_norm > 0, and a loss with size() when private (for n).
template <smooth_loss Loss, std::uniform_random_bit_generator G>
solve_result frank_wolfe(const Loss& loss,
                         std::span<const double> x0,
                         const frank_wolfe_options& options,
                         G& rng);

// ================================ implementation ==========================================

namespace detail {
/// A loss whose per-example gradients can be read one at a time.
template <class L>
concept per_example_loss = clippable_loss<L> &&
    requires(const L& l, std::span<const double> theta, std::size_t i, std::span<double> out) {
  l.example_gradient(theta, i, out);
};

/// (1/n) sum_i clamp(grad l_i(theta), -b, b) coordinate-wise: the per-example gradients
/// projected onto the L_inf ball of radius b, so one record moves the mean by <= 2b/n in L_inf.
template <per_example_loss Loss>
void coordinate_clamped_gradient(const Loss& loss,
                                 std::span<const double> theta,
                                 double b,
                                 std::span<double> grad,
                                 std::span<double> scratch) {
  std::fill(grad.begin(), grad.end(), 0.0);
  const std::size_t n = loss.size();
  for (std::size_t i = 0; i < n; ++i) {
    loss.example_gradient(theta, i, scratch);
    for (std::size_t j = 0; j < grad.size(); ++j) grad[j] += std::clamp(scratch[j], -b, b);
  }
  for (double& v : grad) v /= static_cast<double>(n);
}
}  // namespace detail

template <smooth_loss Loss, std::uniform_random_bit_generator G>
solve_result frank_wolfe(const Loss& loss,
                         std::span<const double> x0,
                         const frank_wolfe_options& options,
                         G& rng) {
  const char* fn = "solvers::frank_wolfe";
  options.validate();
  const std::size_t d = loss.dimension();
  core::check_size(fn, "x0", x0.size(), d);
  core::check_finite_span(fn, "x0", x0);
  double l1 = 0;
  for (double v : x0) l1 += std::fabs(v);
  if (l1 > options.radius * (1 + 1e-12))
    core::throw_invalid(fn, "x0", l1, "||x0||_1 must be <= radius");
  std::size_t n = 0;
  if constexpr (clippable_loss<Loss>) n = loss.size();
  if ((options.clip_norm > 0 || options.private_selection) && n == 0)
    core::throw_invalid(fn, "loss", 0.0, "clipping and private selection need a clippable loss");
  const bool priv = options.private_selection;
  if (priv) detail::require_research_grade(fn, options.noise_kind);
  const bool clamp_coordinates = priv && !(options.clip_norm > 0);
  if constexpr (!detail::per_example_loss<Loss>) {
    if (clamp_coordinates)
      core::throw_invalid(fn,
                          "coordinate_bound",
                          options.coordinate_bound,
                          "needs a loss with per-example gradients (example_gradient)");
  }
  const double eps0 = frank_wolfe_step_epsilon(options);
  const double du = frank_wolfe_utility_sensitivity(options, n);
  detail::stopwatch clock;
  solve_result r;
  r.relation = options.relation;
  r.sensitivity = du;
  if (priv) {
    r.noise_scale = 2.0 * du / eps0;  // Gumbel scale in utility units
    if (options.calibration != noise_calibration::fixed) {
      r.epsilon_target = options.target->epsilon;
      r.delta_target = options.target->delta;
    }
    r.guarantee =
        "(epsilon, delta)-DP under " + core::to_string(options.relation) +
        (options.clip_norm > 0 ? "" : " (per-example gradients clamped to the public L_inf bound)");
  }
  std::vector<double> x(x0.begin(), x0.end()), g(d), u(2 * d), scratch(d);
  const auto objective = [&] { return loss.value(x); };
  if (options.trace.enabled) detail::record(r, options.trace, clock, 0, std::nan(""), 0, objective);
  std::optional<mechanisms::exponential_mechanism> em;
  if (priv) em = mechanisms::exponential_mechanism::calibrate(eps0, du, false, options.relation);
  const double rad = options.radius;
  for (std::int64_t t = 0; t < options.iterations; ++t) {
    if constexpr (clippable_loss<Loss>) {
      if (options.clip_norm > 0) {
        loss.clipped_gradient(x, options.clip_norm, g);
      } else if (clamp_coordinates) {
        if constexpr (detail::per_example_loss<Loss>)
          detail::coordinate_clamped_gradient(loss, x, options.coordinate_bound, g, scratch);
      } else {
        loss.value_and_gradient(x, g);
      }
      if (priv && options.relation == core::neighbouring::add_remove)
        detail::apply_public_normaliser(g, n, options.public_size);
    } else {
      loss.value_and_gradient(x, g);
    }
    ++r.gradient_evaluations;
    std::size_t pick = 0;
    if (priv) {
      // Candidate 2j is +r e_j (<v, g> = r g_j), candidate 2j + 1 is -r e_j.
      for (std::size_t j = 0; j < d; ++j) {
        u[2 * j] = -rad * g[j];
        u[2 * j + 1] = rad * g[j];
      }
      pick = em->select(u, rng);
      r.privacy_events.push_back(em->event());
    } else {
      std::size_t jmax = 0;
      for (std::size_t j = 1; j < d; ++j)
        if (std::fabs(g[j]) > std::fabs(g[jmax])) jmax = j;
      pick = 2 * jmax + (g[jmax] > 0 ? 1 : 0);
    }
    const double mu = 2.0 / (static_cast<double>(t) + 2.0);
    for (double& v : x) v *= 1.0 - mu;
    const std::size_t j = pick / 2;
    x[j] += mu * (pick % 2 == 0 ? rad : -rad);
    r.iterations = t + 1;
    if (options.trace.enabled &&
        (options.trace.is_checkpoint(t + 1) || t + 1 == options.iterations))
      detail::record(r, options.trace, clock, t + 1, mu, 0, objective);
  }
  if (!detail::all_finite(x)) {
    r.status = termination::diverged;
    r.message = "non-finite iterate";
  } else {
    r.status = termination::max_iterations;
    r.message = "iteration budget reached";
  }
  r.x = std::move(x);
  r.objective = options.trace.record_objective ? loss.value(r.x) : std::nan("");
  r.seconds = clock.elapsed();
  return r;
}

}  // namespace dpx::solvers
