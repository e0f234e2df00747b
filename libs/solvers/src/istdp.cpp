#include "dpx/solvers/istdp.hpp"

#include "dpx/core/error.hpp"

namespace dpx::solvers {

std::string to_string(istdp_variant v) {
  return v == istdp_variant::as_published ? "as_published" : "strict";
}
istdp_variant parse_istdp_variant(const std::string& s) {
  if (s == "as_published") return istdp_variant::as_published;
  if (s == "strict") return istdp_variant::strict;
  core::throw_invalid(
      "solvers::parse_istdp_variant", "variant", s, "must be as_published or strict");
}

void istdp_options::validate() const {
  const char* fn = "solvers::istdp_options";
  core::check_at_least(fn, "iterations", iterations, 2);
  core::check_open_interval(fn, "eta", eta, 0.0, 1.0);
  core::check_open_interval(fn, "beta", beta, 0.0, 1.0);
  core::check_positive(fn, "alpha_min", alpha_min);
  core::check_positive(fn, "alpha_max", alpha_max);
  if (!(alpha_min < alpha_max))
    core::throw_invalid(fn, "alpha_min", alpha_min, "must be < alpha_max");
  core::check_at_least(fn, "max_backtracks", max_backtracks, 1);
  if (variant == istdp_variant::strict) {
    if (!(public_smoothness > 0) || !std::isfinite(public_smoothness))
      core::throw_invalid(fn,
                          "public_smoothness",
                          public_smoothness,
                          "strict needs a public smoothness bound L_s > 0");
    if (alpha_max * public_smoothness > 1.0)
      core::throw_invalid(
          fn, "alpha_max", alpha_max, "strict needs alpha_max <= 1 / public_smoothness");
  }
  if (sensitivity == sensitivity_mode::gradient_bound) {
    core::check_positive(fn, "gradient_bound", gradient_bound);
  } else {
    core::check_positive(fn, "clip_norm", clip_norm);
    detail::check_public_size(fn, relation, public_size);
  }
  core::check_noise_calibration(
      calibration,
      {noise_calibration::paper, noise_calibration::tight, noise_calibration::fixed},
      fn,
      "calibration");
  if (calibration == noise_calibration::fixed) {
    core::check_nonnegative(fn, "sigma", sigma);
    detail::refuse_target(fn,
                          target,
                          "calibration",
                          "fixed",
                          sigma > 0 ? "spends sigma, not a target (its guarantee is privacy_events)"
                                    : "with sigma 0 adds no noise, so the fit is NOT "
                                      "differentially private");
  } else {
    detail::require_target(fn, target, core::to_string(calibration));
  }
  if (variant == istdp_variant::as_published) {
    if (!allow_nonprivate)
      detail::refuse_target(fn,
                            target,
                            "variant",
                            "as_published",
                            "is NOT differentially private (its BB step and line search read the "
                            "exact gradients and objective; docs/theory/istdp.md): a target would "
                            "calibrate only its noisy gradients. Use variant strict, or set "
                            "allow_nonprivate to run the published algorithm with it");
  } else if (allow_nonprivate) {
    core::throw_invalid(fn, "allow_nonprivate", "true", "is only used by variant as_published");
  }
  if (calibration == noise_calibration::paper && noise_kind == mechanisms::noise_kind::float_safe)
    core::throw_invalid(fn,
                        "noise_kind",
                        "float_safe",
                        "paper calibration (Thm. 3.3) is the continuous Gaussian's: use tight "
                        "calibration or research_grade noise");
  trace.validate(fn);
}

double istdp_sensitivity(const istdp_options& o, std::size_t n) {
  if (o.sensitivity == sensitivity_mode::gradient_bound) return 2.0 * o.gradient_bound;
  if (o.relation == core::neighbouring::add_remove) {
    // (sum of clipped gradients) / n_bar changes by one clipped gradient / n_bar; n is private.
    if (o.public_size == 0)
      core::throw_invalid("solvers::istdp_sensitivity",
                          "public_size",
                          0.0,
                          "add/remove needs a PUBLIC normaliser n_bar > 0 (n is private)");
    return o.clip_norm / static_cast<double>(o.public_size);
  }
  if (n == 0) return 0.0;
  return 2.0 * o.clip_norm / static_cast<double>(n);
}

double istdp_sigma(const istdp_options& o, std::size_t n) {
  o.validate();  // a calibrated run's target is present from here on
  switch (o.calibration) {
    case noise_calibration::fixed:
      return o.sigma;
    case noise_calibration::paper:
      return istdp_theorem_3_3(
                 o.target->epsilon, o.target->delta, o.iterations, istdp_sensitivity(o, n))
          .sigma;
    case noise_calibration::tight:
      // Rounded up: sigma / sensitivity (the events' multiplier) stays >= the calibrated one.
      return core::multiply_up(
          istdp_sensitivity(o, n),
          o.noise_kind == mechanisms::noise_kind::float_safe
              ? gaussian_zcdp_multiplier(o.target->epsilon, o.target->delta, o.iterations - 1)
              : gaussian_tight_multiplier(o.target->epsilon, o.target->delta, o.iterations - 1));
    default:  // rejected by validate()
      break;
  }
  return 0;
}

}  // namespace dpx::solvers
