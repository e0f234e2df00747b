#pragma once
/// \file
/// Projected gradient descent and noisy projected gradient descent (the PGD lecture notes [NPGD];
/// docs/theory/noisy-pgd.md).
///
/// w_0 given; for t = 1 ... T: g_t = grad L(w_{t-1}) (+ noise); w_t = P(w_{t-1} - eta g_t), P any
/// dpx::prox::proximal_operator applied with step eta (a projection Pi_C for indicators of convex
/// sets: l2_ball, box, l1_ball, simplex; a penalty gives proximal gradient). Output: the average
/// (1/T) sum_{t=1}^T w_t (Theorem 1 of the PGD lecture notes [NPGD]) or the last iterate.
/// Nonprivate PGD with eta = R / (G sqrt(T)) has L(w_avg) - L* <= R G / sqrt(T) (Theorem 1).
///
/// Noise (per-example gradients clipped to G; L2 and per-coordinate sensitivity of one release):
///  * replace-one: the release is the clipped MEAN (1/n) sum_i clip_G(g_i); n is public (it is the
///    same on D and D'), sensitivity 2G/n.
///  * add/remove: n is private (D' = D u {z} has n + 1 rows), so the mean is NOT released: the
///    release is (sum_i clip_G(g_i)) / n_bar for the PUBLIC normaliser n_bar =
///    options.public_size (required), sensitivity G/n_bar, and the noise scale depends on n_bar
///    only. (Dividing by the private n instead gives ||mean_D - mean_D'|| up to 2G/(n+1) > G/n
///    and a data-dependent noise scale: the G/n of docs/theory/noisy-pgd.md holds only with a
///    public normaliser.) With n_bar = n the release equals the mean bit for bit.
///  * laplace_per_coordinate: g + Lap(b)^d; T*d adaptive releases, each eps0 = Delta / b; b from
///    the composition rule (basic: eps0 = eps / (T d); advanced: DRV over k = T d with slack
///    delta); events: one laplace_event{b / Delta} per coordinate release (T*d events). For other
///    rules (KOV optimal, exact PLD; dpx::accounting) compute b there and pass it with
///    calibration = fixed.
///  * laplace_l2: L2-calibrated Laplace (lecture Thm. 3, rigorous KOV form; calibration.hpp):
///    per-iteration (eps_it, delta_it) from the rule, b = laplace_l2_scale(eps_it, delta_it,
///    Delta_2); events: one approx_dp_event{eps_it, delta_it} per iteration.
///  * gaussian: g + N(0, sigma^2 I); tight calibration (exact composition, calibration.hpp) or
///    fixed sigma; events: one gaussian_event{sigma / Delta_2} per iteration (T-fold composition is
///    rho-zCDP with rho = T Delta^2 / (2 sigma^2), Bun & Steinke 2016).
/// Each release is the gradient at a point computed from earlier releases only, so the output
/// (any iterate or average) is post-processing: (eps, delta)-DP under the configured relation.

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
#include "dpx/mechanisms/laplace.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/calibration.hpp"
#include "dpx/solvers/common.hpp"

namespace dpx::solvers {

/// Which noise noisy PGD adds to each gradient.
enum class pgd_noise { none, laplace_per_coordinate, laplace_l2, gaussian };
std::string to_string(pgd_noise n);
pgd_noise parse_pgd_noise(const std::string& s);

/// Which iterate a solver returns.
enum class iterate_output {
  average,  ///< (1/T) sum_{t=1}^T w_t
  last,     ///< w_T
};

/// Options of pgd().
struct pgd_options {
  std::int64_t iterations = 1000;  ///< T, >= 1
  double step_size = 0.1;          ///< eta, > 0 (Thm. 1: R / (G sqrt(T)))
  iterate_output output = iterate_output::average;
  pgd_noise noise = pgd_noise::none;
  /// Per-example clipping norm G (> 0; required with noise). 0 with noise none = exact gradient.
  double clip_norm = 0.0;
  core::neighbouring relation = core::neighbouring::replace_one;
  /// n_bar, a PUBLIC normaliser for add/remove: the released gradient is
  /// (sum_i clip_G(g_i)) / n_bar and its sensitivity G / n_bar. Required (> 0) with add/remove and
  /// noise, because the dataset size n is private under add/remove (use the public design size,
  /// e.g. n itself when it is published); ignored under replace-one (n is public there).
  std::size_t public_size = 0;
  /// tight (Gaussian) / paper (Laplace: the composition rule below) / fixed (noise_scale).
  noise_calibration calibration = noise_calibration::tight;
  laplace_composition laplace_rule = laplace_composition::advanced;
  /// (epsilon, delta) target of the calibrated noise (paper / tight, where it is required):
  /// epsilon > 0, delta in (0, 1) (delta is unused by basic Laplace). None by default, like the
  /// noise. A target with noise none (a NOT private fit) or with calibration fixed (the guarantee
  /// is then the events of noise_scale) is refused, naming noise or calibration: no run ignores
  /// a target it was given (docs/solvers.md, "Privacy targets").
  std::optional<core::epsilon_delta> target;
  double noise_scale = 0;  ///< fixed: b (Laplace) or sigma (Gaussian), > 0
  /// float_safe (default): gaussian -> float_safe_gaussian (zcdp_event{rho} per iteration; tight
  /// calibration by gaussian_zcdp_multiplier), laplace_per_coordinate -> float_safe_laplace per
  /// coordinate (pure_dp_event{Delta/b} each), laplace_l2 refused (its KOV argument is the
  /// continuous Laplace's). research_grade: the double mechanisms (experiments).
  mechanisms::noise_kind noise_kind = mechanisms::noise_kind::float_safe;
  checkpoint_options trace;
  /// Throws core::invalid_argument_error naming the field.
  void validate() const;
};

/// Noise calibration of noisy PGD for n examples and dimension d (under add/remove the
/// sensitivity uses o.public_size, not n; throws when it is 0 there).
struct pgd_calibration {
  double sensitivity = 0;   ///< per-coordinate (Laplace per coordinate) or L2 sensitivity
  double noise_scale = 0;   ///< b or sigma (0 = no noise)
  double step_epsilon = 0;  ///< eps0 (per coordinate) or eps_it (L2 Laplace); 0 otherwise
  double step_delta = 0;    ///< delta_it (L2 Laplace); 0 otherwise
};
pgd_calibration pgd_calibrate(const pgd_options& o, std::size_t n, std::size_t d);

/// PGD / noisy PGD from w0. Loss: clippable_loss when clip_norm > 0.
template <smooth_loss Loss, prox::proximal_operator Projection, std::uniform_random_bit_generator G>
solve_result pgd(const Loss& loss,
                 const Projection& projection,
                 std::span<const double> w0,
                 const pgd_options& options,
                 G& rng);

// ================================ implementation ==========================================

template <smooth_loss Loss, prox::proximal_operator Projection, std::uniform_random_bit_generator G>
solve_result pgd(const Loss& loss,
                 const Projection& projection,
                 std::span<const double> w0,
                 const pgd_options& options,
                 G& rng) {
  const char* fn = "solvers::pgd";
  options.validate();
  const std::size_t d = loss.dimension();
  core::check_size(fn, "w0", w0.size(), d);
  core::check_finite_span(fn, "w0", w0);
  std::size_t n = 0;
  if constexpr (clippable_loss<Loss>) n = loss.size();
  if (options.clip_norm > 0 && n == 0)
    core::throw_invalid(fn, "clip_norm", options.clip_norm, "needs a clippable loss");
  const pgd_calibration cal = pgd_calibrate(options, n, d);
  detail::stopwatch clock;
  solve_result r;
  r.sensitivity = cal.sensitivity;
  r.noise_scale = cal.noise_scale;
  r.relation = options.relation;
  const bool noisy = options.noise != pgd_noise::none;
  if (noisy && options.calibration != noise_calibration::fixed) {
    r.epsilon_target = options.target->epsilon;
    r.delta_target = options.noise == pgd_noise::laplace_per_coordinate &&
                             options.laplace_rule == laplace_composition::basic
                         ? 0.0
                         : options.target->delta;
    r.guarantee = "(epsilon, delta)-DP under " + core::to_string(options.relation);
  } else if (noisy) {
    r.guarantee = "private: see privacy_events (fixed noise scale) under " +
                  core::to_string(options.relation);
  }
  // Under add/remove the released gradient is divided by the public n_bar, not by n (private).
  const bool public_normaliser = options.relation == core::neighbouring::add_remove &&
                                 options.clip_norm > 0 && options.public_size > 0;
  if (noisy && public_normaliser)
    r.guarantee += " with the PUBLIC normaliser n_bar = " + std::to_string(options.public_size) +
                   " (release = sum of clipped per-example gradients / n_bar)";
  const auto lap =
      mechanisms::laplace::from_scale(noisy ? cal.noise_scale : 1.0, noisy ? cal.sensitivity : 1.0);
  const detail::gaussian_release gau(options.noise_kind,
                                     noisy ? cal.noise_scale : 1.0,
                                     noisy ? cal.sensitivity : 1.0,
                                     core::neighbouring::replace_one);
  const bool safe = options.noise_kind == mechanisms::noise_kind::float_safe;
  const auto safe_lap = lap.float_safe();  // per-coordinate scalar releases (float_safe)
  const double eta = options.step_size;
  std::vector<double> w(w0.begin(), w0.end()), g(d), u(d), avg(d, 0.0);
  const bool averaging = options.output == iterate_output::average;
  const auto objective = [&](std::span<const double> x) {
    return loss.value(x) + projection.value(x);
  };
  if (options.trace.enabled)
    detail::record(r, options.trace, clock, 0, eta, 1, [&] { return objective(w); });
  r.status = termination::max_iterations;
  r.message = "ran T iterations";
  for (std::int64_t t = 1; t <= options.iterations; ++t) {
    if (options.clip_norm > 0) {
      if constexpr (clippable_loss<Loss>) loss.clipped_gradient(w, options.clip_norm, g);
      if (public_normaliser) detail::apply_public_normaliser(g, n, options.public_size);
    } else {
      loss.value_and_gradient(w, g);
    }
    ++r.gradient_evaluations;
    switch (options.noise) {
      case pgd_noise::none:
        break;
      case pgd_noise::laplace_per_coordinate:
        if (safe) {
          for (double& v : g) v = safe_lap.release(v, rng);
          r.privacy_events.append(safe_lap.event(), static_cast<std::int64_t>(d));
        } else {
          lap.privatize(g, rng);
          r.privacy_events.append(lap.event(), static_cast<std::int64_t>(d));
        }
        break;
      case pgd_noise::laplace_l2:
        lap.privatize(g, rng);
        r.privacy_events.push_back(core::approx_dp_event{cal.step_epsilon, cal.step_delta});
        break;
      case pgd_noise::gaussian:
        gau.privatize(g, rng);
        r.privacy_events.push_back(gau.event());
        break;
    }
    for (std::size_t j = 0; j < d; ++j) u[j] = w[j] - eta * g[j];
    projection.apply(u, eta, w);
    if (!detail::end_averaged_iteration(
            r, options.trace, clock, t, options.iterations, eta, 1, w, avg, averaging, objective))
      break;
  }
  detail::finish_averaged(r, options.trace, clock, w, avg, averaging, objective);
  return r;
}

}  // namespace dpx::solvers
