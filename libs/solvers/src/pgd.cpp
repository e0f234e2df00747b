#include "dpx/solvers/pgd.hpp"

#include "dpx/core/error.hpp"

namespace dpx::solvers {

std::string to_string(pgd_noise n) {
  switch (n) {
    case pgd_noise::none:
      return "none";
    case pgd_noise::laplace_per_coordinate:
      return "laplace_per_coordinate";
    case pgd_noise::laplace_l2:
      return "laplace_l2";
    case pgd_noise::gaussian:
      return "gaussian";
  }
  return "unknown";
}
pgd_noise parse_pgd_noise(const std::string& s) {
  for (auto n : {pgd_noise::none,
                 pgd_noise::laplace_per_coordinate,
                 pgd_noise::laplace_l2,
                 pgd_noise::gaussian})
    if (to_string(n) == s) return n;
  core::throw_invalid("solvers::parse_pgd_noise",
                      "noise",
                      s,
                      "must be none, laplace_per_coordinate, laplace_l2 or gaussian");
}

void pgd_options::validate() const {
  const char* fn = "solvers::pgd_options";
  core::check_at_least(fn, "iterations", iterations, 1);
  core::check_positive(fn, "step_size", step_size);
  core::check_nonnegative(fn, "clip_norm", clip_norm);
  core::check_noise_calibration(
      calibration,
      {noise_calibration::paper, noise_calibration::tight, noise_calibration::fixed},
      fn,
      "calibration");
  if (noise == pgd_noise::none) {
    detail::refuse_target(
        fn,
        target,
        "noise",
        "none",
        "adds no noise, so the fit is NOT differentially private (choose "
        "noise gaussian, laplace_per_coordinate or laplace_l2 for a private fit)");
  } else {
    core::check_positive(fn, "clip_norm", clip_norm);
    if (calibration == noise_calibration::fixed) {
      core::check_positive(fn, "noise_scale", noise_scale);
      if (noise == pgd_noise::laplace_l2)
        core::throw_invalid(
            fn, "calibration", "fixed", "laplace_l2 needs a calibrated budget (paper or tight)");
      detail::refuse_target(fn,
                            target,
                            "calibration",
                            "fixed",
                            "spends noise_scale, not a target (its guarantee is privacy_events)");
    } else {
      const bool pure =
          noise == pgd_noise::laplace_per_coordinate && laplace_rule == laplace_composition::basic;
      detail::require_target(fn, target, core::to_string(calibration), !pure);
    }
    detail::check_public_size(fn, relation, public_size);
  }
  if (noise == pgd_noise::laplace_l2 && noise_kind == mechanisms::noise_kind::float_safe)
    core::throw_invalid(
        fn,
        "noise_kind",
        "float_safe",
        "laplace_l2's calibration (KOV over coordinates) is the continuous "
        "Laplace's: use research_grade noise, or gaussian / laplace_per_coordinate");
  trace.validate(fn);
}

pgd_calibration pgd_calibrate(const pgd_options& o, std::size_t n, std::size_t d) {
  o.validate();  // a calibrated run's target is present from here on
  pgd_calibration c;
  if (o.noise == pgd_noise::none || n == 0) return c;
  if (o.relation == core::neighbouring::replace_one) {
    c.sensitivity = 2.0 * o.clip_norm / static_cast<double>(n);
  } else {
    // add/remove: (sum of clipped gradients) / n_bar changes by one clipped gradient / n_bar.
    if (o.public_size == 0)
      core::throw_invalid("solvers::pgd_calibrate",
                          "public_size",
                          0.0,
                          "add/remove needs a PUBLIC normaliser n_bar > 0 (n is private)");
    c.sensitivity = o.clip_norm / static_cast<double>(o.public_size);
  }
  const bool fixed = o.calibration == noise_calibration::fixed;
  switch (o.noise) {
    case pgd_noise::none:
      break;
    case pgd_noise::laplace_per_coordinate:
      c.noise_scale = fixed ? o.noise_scale
                            : laplace_per_coordinate_scale(o.target->epsilon,
                                                           o.target->delta,
                                                           o.iterations,
                                                           static_cast<std::int64_t>(d),
                                                           c.sensitivity,
                                                           o.laplace_rule);
      c.step_epsilon = c.sensitivity / c.noise_scale;
      break;
    case pgd_noise::laplace_l2: {
      const auto b = split_budget(o.target->epsilon, o.target->delta, o.iterations, o.laplace_rule);
      c.step_epsilon = b.epsilon;
      c.step_delta = b.delta;
      c.noise_scale = laplace_l2_scale(b.epsilon, b.delta, c.sensitivity);
      break;
    }
    case pgd_noise::gaussian:
      c.noise_scale =
          fixed ? o.noise_scale
                // Rounded up: the events' sigma / sensitivity stays >= the calibrated multiplier.
                : core::multiply_up(c.sensitivity,
                                    o.noise_kind == mechanisms::noise_kind::float_safe
                                        ? gaussian_zcdp_multiplier(
                                              o.target->epsilon, o.target->delta, o.iterations)
                                        : gaussian_tight_multiplier(
                                              o.target->epsilon, o.target->delta, o.iterations));
      break;
  }
  return c;
}

}  // namespace dpx::solvers
