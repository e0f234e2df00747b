#include "dpx/solvers/frank_wolfe.hpp"

#include <cmath>

#include "dpx/core/error.hpp"

namespace dpx::solvers {

void frank_wolfe_options::validate() const {
  const char* fn = "solvers::frank_wolfe_options";
  core::check_at_least(fn, "iterations", iterations, 1);
  core::check_positive(fn, "radius", radius);
  core::check_nonnegative(fn, "clip_norm", clip_norm);
  core::check_nonnegative(fn, "coordinate_bound", coordinate_bound);
  core::check_noise_calibration(
      calibration,
      {noise_calibration::paper, noise_calibration::tight, noise_calibration::fixed},
      fn,
      "calibration");
  if (private_selection) {
    if (!(clip_norm > 0) && !(coordinate_bound > 0))
      core::throw_invalid(fn,
                          "clip_norm",
                          clip_norm,
                          "private selection needs clip_norm > 0 or a coordinate_bound > 0");
    if (calibration == noise_calibration::fixed) {
      core::check_positive(fn, "step_epsilon", step_epsilon);
      detail::refuse_target(fn,
                            target,
                            "calibration",
                            "fixed",
                            "spends step_epsilon per selection, not a target (its guarantee is "
                            "privacy_events)");
    } else {
      detail::require_target(fn, target, core::to_string(calibration));
    }
    detail::check_public_size(fn, relation, public_size);
  } else {
    detail::refuse_target(fn,
                          target,
                          "private_selection",
                          "false",
                          "selects the exact best vertex, so the fit is NOT differentially private "
                          "(set private_selection for DP Frank-Wolfe)");
  }
  trace.validate(fn);
}

double frank_wolfe_step_epsilon(const frank_wolfe_options& o) {
  o.validate();  // a calibrated run's target is present from here on
  if (!o.private_selection) return 0.0;
  switch (o.calibration) {
    case noise_calibration::fixed:
      return o.step_epsilon;
    case noise_calibration::paper:
      // Advanced composition of T eps0-DP selections with slack delta (TTZ15, Thm. 3.1's proof).
      return drv_per_step_epsilon(o.target->epsilon, o.iterations, o.target->delta);
    case noise_calibration::tight: {
      // T selections, each (eps0^2 / 8)-zCDP (bounded range, Cesar & Rogers 2021, Lemma 3.2);
      // rho-zCDP => (rho + 2 sqrt(rho L), delta)-DP, L = ln(1/delta) (Bun & Steinke 2016,
      // Prop. 1.3); solve rho + 2 sqrt(rho L) = epsilon for sqrt(rho).
      const double l = std::log(1.0 / o.target->delta);
      const double sqrt_rho = std::sqrt(l + o.target->epsilon) - std::sqrt(l);
      return std::sqrt(8.0 / static_cast<double>(o.iterations)) * sqrt_rho;
    }
    default:  // rejected by validate()
      break;
  }
  return 0.0;
}

double frank_wolfe_utility_sensitivity(const frank_wolfe_options& o, std::size_t n) {
  if (!o.private_selection) return 0.0;
  const double b = o.clip_norm > 0 ? o.clip_norm : o.coordinate_bound;
  if (o.relation == core::neighbouring::replace_one) {
    core::check_at_least("solvers::frank_wolfe", "n", static_cast<std::int64_t>(n), 1);
    return 2.0 * o.radius * b / static_cast<double>(n);
  }
  return o.radius * b / static_cast<double>(o.public_size);
}

}  // namespace dpx::solvers
