#include "dpx/solvers/calibration.hpp"

#include "dpx/accounting/zcdp.hpp"

#include <cmath>

#include "dpx/core/composition.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/privacy_curves.hpp"

namespace dpx::solvers {

std::string to_string(sensitivity_mode m) {
  return m == sensitivity_mode::gradient_bound ? "gradient_bound" : "clipping";
}
sensitivity_mode parse_sensitivity_mode(const std::string& s) {
  if (s == "gradient_bound") return sensitivity_mode::gradient_bound;
  if (s == "clipping") return sensitivity_mode::clipping;
  core::throw_invalid(
      "solvers::parse_sensitivity_mode", "mode", s, "must be gradient_bound or clipping");
}

noise_calibration parse_noise_calibration(const std::string& s) {
  using c = noise_calibration;
  return core::parse_noise_calibration(
      s, {c::paper, c::tight, c::fixed}, "solvers::parse_noise_calibration", "calibration");
}

laplace_composition parse_laplace_composition(const std::string& s) {
  using r = laplace_composition;
  return core::parse_composition_rule(
      s, {r::basic, r::advanced}, "solvers::parse_laplace_composition", "rule");
}

istdp_paper_calibration istdp_theorem_3_3(double epsilon,
                                          double delta,
                                          std::int64_t iterations,
                                          double sensitivity) {
  const char* fn = "solvers::istdp_theorem_3_3";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_at_least(fn, "iterations", iterations, 1);
  core::check_positive(fn, "sensitivity", sensitivity);
  const core::istdp_calibration k =
      core::istdp_theorem_3_3(epsilon, delta, iterations, sensitivity);
  if (!k.classical_valid) {
    core::throw_invalid(fn,
                        "epsilon",
                        epsilon,
                        "gives a per-iteration epsilon >= 1, outside the classical Gaussian "
                        "bound the theorem uses (use the tight calibration)");
  }
  return {k.epsilon_step, k.delta_step, k.sigma};
}

double gaussian_tight_multiplier(double epsilon, double delta, std::int64_t releases) {
  const char* fn = "solvers::gaussian_tight_multiplier";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_at_least(fn, "releases", releases, 1);
  return core::calibrate_gaussian_analytic(epsilon, delta, releases);
}

double drv_per_step_epsilon(double epsilon, std::int64_t k, double delta_slack) {
  const char* fn = "solvers::drv_per_step_epsilon";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_at_least(fn, "k", k, 1);
  core::check_open_interval(fn, "delta_slack", delta_slack, 0.0, 1.0);
  return core::advanced_per_step_epsilon(epsilon, k, delta_slack);
}

double laplace_per_coordinate_scale(double epsilon,
                                    double delta,
                                    std::int64_t iterations,
                                    std::int64_t dimension,
                                    double coordinate_sensitivity,
                                    laplace_composition rule) {
  const char* fn = "solvers::laplace_per_coordinate_scale";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_at_least(fn, "iterations", iterations, 1);
  core::check_at_least(fn, "dimension", dimension, 1);
  core::check_positive(fn, "coordinate_sensitivity", coordinate_sensitivity);
  if (rule != laplace_composition::basic) core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  const auto per_step = core::split_budget(rule, {epsilon, 0.0}, iterations * dimension, delta);
  return core::laplace_scale(per_step.epsilon, coordinate_sensitivity);
}

double laplace_l2_scale(double epsilon, double delta, double l2_sensitivity) {
  return core::l2_laplace_scale(epsilon, delta, l2_sensitivity);
}

per_iteration_budget split_budget(double epsilon,
                                  double delta,
                                  std::int64_t iterations,
                                  laplace_composition rule) {
  const char* fn = "solvers::split_budget";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_at_least(fn, "iterations", iterations, 1);
  if (rule == laplace_composition::basic)
    return core::split_budget(rule, {epsilon, delta}, iterations);
  return core::split_budget(rule, {epsilon, 0.5 * delta}, iterations, 0.5 * delta);
}

double gaussian_zcdp_multiplier(double epsilon, double delta, std::int64_t releases) {
  const char* fn = "solvers::gaussian_zcdp_multiplier";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_at_least(fn, "releases", releases, 1);
  const double rho = accounting::zcdp_rho_bun_steinke(epsilon, delta);
  return std::sqrt(static_cast<double>(releases) / (2.0 * rho));
}

}  // namespace dpx::solvers
