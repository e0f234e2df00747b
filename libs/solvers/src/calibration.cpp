#include "dpx/solvers/calibration.hpp"

#include "dpx/accounting/zcdp.hpp"

#include <cmath>

#include "dpx/core/error.hpp"
#include "dpx/mechanisms/gaussian.hpp"

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

std::string to_string(noise_calibration c) {
  switch (c) {
    case noise_calibration::paper:
      return "paper";
    case noise_calibration::tight:
      return "tight";
    case noise_calibration::fixed:
      return "fixed";
  }
  return "unknown";
}
noise_calibration parse_noise_calibration(const std::string& s) {
  if (s == "paper") return noise_calibration::paper;
  if (s == "tight") return noise_calibration::tight;
  if (s == "fixed") return noise_calibration::fixed;
  core::throw_invalid(
      "solvers::parse_noise_calibration", "calibration", s, "must be paper, tight or fixed");
}

std::string to_string(laplace_composition r) {
  return r == laplace_composition::basic ? "basic" : "advanced";
}
laplace_composition parse_laplace_composition(const std::string& s) {
  if (s == "basic") return laplace_composition::basic;
  if (s == "advanced") return laplace_composition::advanced;
  core::throw_invalid("solvers::parse_laplace_composition", "rule", s, "must be basic or advanced");
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
  const double t = static_cast<double>(iterations);
  istdp_paper_calibration c;
  c.epsilon_step = std::fmin(epsilon / (2.0 * std::sqrt(2.0 * t * std::log(2.0 / delta))),
                             0.5 * std::sqrt(epsilon / t));
  c.delta_step = delta / (2.0 * t);
  if (!(c.epsilon_step < 1.0)) {
    core::throw_invalid(fn,
                        "epsilon",
                        epsilon,
                        "gives a per-iteration epsilon >= 1, outside the classical Gaussian "
                        "bound the theorem uses (use the tight calibration)");
  }
  c.sigma = sensitivity / c.epsilon_step * std::sqrt(2.0 * std::log(1.25 / c.delta_step));
  return c;
}

double gaussian_tight_multiplier(double epsilon, double delta, std::int64_t releases) {
  const char* fn = "solvers::gaussian_tight_multiplier";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_at_least(fn, "releases", releases, 1);
  const double m1 = mechanisms::gaussian::calibrate_analytic(epsilon, delta, 1.0).sigma();
  return m1 * std::sqrt(static_cast<double>(releases));
}

double drv_per_step_epsilon(double epsilon, std::int64_t k, double delta_slack) {
  const char* fn = "solvers::drv_per_step_epsilon";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_at_least(fn, "k", k, 1);
  core::check_open_interval(fn, "delta_slack", delta_slack, 0.0, 1.0);
  const double kd = static_cast<double>(k);
  const double a = std::sqrt(2.0 * kd * std::log(1.0 / delta_slack));
  const auto total = [&](double e0) { return a * e0 + kd * e0 * std::expm1(e0); };
  double lo = 0.0, hi = epsilon / a;  // total(epsilon / a) >= epsilon
  for (int i = 0; i < 200 && hi - lo > 1e-17 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (total(mid) <= epsilon ? lo : hi) = mid;
  }
  return lo;
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
  const std::int64_t k = iterations * dimension;
  double eps0;
  if (rule == laplace_composition::basic) {
    eps0 = epsilon / static_cast<double>(k);
  } else {
    core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
    eps0 = drv_per_step_epsilon(epsilon, k, delta);
  }
  return coordinate_sensitivity / eps0;
}

double laplace_l2_scale(double epsilon, double delta, double l2_sensitivity) {
  const char* fn = "solvers::laplace_l2_scale";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  const double two_l = 2.0 * std::log(1.0 / delta);
  // x* = sqrt(2L + 2 eps) - sqrt(2L) written without cancellation.
  const double x = 2.0 * epsilon / (std::sqrt(two_l + 2.0 * epsilon) + std::sqrt(two_l));
  return l2_sensitivity / x;
}

per_iteration_budget split_budget(double epsilon,
                                  double delta,
                                  std::int64_t iterations,
                                  laplace_composition rule) {
  const char* fn = "solvers::split_budget";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_at_least(fn, "iterations", iterations, 1);
  const double t = static_cast<double>(iterations);
  if (rule == laplace_composition::basic) return {epsilon / t, delta / t};
  return {drv_per_step_epsilon(epsilon, iterations, 0.5 * delta), delta / (2.0 * t)};
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
