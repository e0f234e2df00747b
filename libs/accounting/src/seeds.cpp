#include "dpx/accounting/seeds.hpp"

#include <algorithm>
#include <cmath>

#include "dpx/accounting/calibration.hpp"
#include "dpx/accounting/composition.hpp"
#include "dpx/core/error.hpp"

namespace dpx::accounting {

istdp_calibration istdp_theorem_3_3(double epsilon,
                                    double delta,
                                    std::int64_t iterations,
                                    double sensitivity) {
  const char* fn = "istdp_theorem_3_3";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_at_least(fn, "iterations", iterations, 1);
  core::check_positive(fn, "sensitivity", sensitivity);
  const double t = static_cast<double>(iterations);
  istdp_calibration c;
  c.epsilon_step = std::min(epsilon / (2.0 * std::sqrt(2.0 * t * std::log(2.0 / delta))),
                            0.5 * std::sqrt(epsilon / t));
  c.delta_step = delta / (2.0 * t);
  c.noise_multiplier = std::sqrt(2.0 * std::log(1.25 / c.delta_step)) / c.epsilon_step;
  c.sigma = sensitivity * c.noise_multiplier;
  c.classical_valid = c.epsilon_step < 1.0;
  return c;
}

std::string to_string(laplace_rule r) {
  switch (r) {
    case laplace_rule::basic:
      return "basic";
    case laplace_rule::advanced:
      return "advanced";
    case laplace_rule::kov:
      return "kov";
    case laplace_rule::kov_optimal:
      return "kov_optimal";
    case laplace_rule::pld:
      return "pld";
  }
  return "?";
}

laplace_rule parse_laplace_rule(const std::string& s) {
  if (s == "basic") return laplace_rule::basic;
  if (s == "advanced") return laplace_rule::advanced;
  if (s == "kov") return laplace_rule::kov;
  if (s == "kov_optimal") return laplace_rule::kov_optimal;
  if (s == "pld") return laplace_rule::pld;
  core::throw_invalid(
      "parse_laplace_rule", "rule", s, "must be basic, advanced, kov, kov_optimal or pld");
}

noisy_pgd_laplace_calibration noisy_pgd_laplace_scale(double epsilon,
                                                      double delta,
                                                      std::int64_t iterations,
                                                      std::int64_t dimension,
                                                      double sensitivity,
                                                      laplace_rule rule) {
  const char* fn = "noisy_pgd_laplace_scale";
  core::check_positive(fn, "epsilon", epsilon);
  if (rule != laplace_rule::basic) core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_at_least(fn, "iterations", iterations, 1);
  core::check_at_least(fn, "dimension", dimension, 1);
  core::check_positive(fn, "sensitivity", sensitivity);
  noisy_pgd_laplace_calibration c;
  c.rule = rule;
  c.releases = iterations * dimension;
  const std::int64_t k = c.releases;
  switch (rule) {
    case laplace_rule::basic:
      c.epsilon_step = epsilon / static_cast<double>(k);
      break;
    case laplace_rule::advanced:
      c.epsilon_step = advanced_per_step_epsilon(epsilon, k, delta);
      break;
    case laplace_rule::kov:
      c.epsilon_step = kov_per_step_epsilon(epsilon, k, delta);
      break;
    case laplace_rule::kov_optimal:
      c.epsilon_step = kov_optimal_per_step_epsilon(epsilon, delta, k, 0.0);
      break;
    case laplace_rule::pld:
      c.epsilon_step = 1.0 / calibrate_laplace(epsilon, delta, k, laplace_method::pld);
      break;
  }
  c.scale = sensitivity / c.epsilon_step;
  return c;
}

double l2_laplace_scale(double epsilon, double delta, double l2_sensitivity) {
  const char* fn = "l2_laplace_scale";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  const double two_l = 2.0 * std::log(1.0 / delta);
  const double x = 2.0 * epsilon / (std::sqrt(two_l) + std::sqrt(two_l + 2.0 * epsilon));
  return l2_sensitivity / x;
}

}  // namespace dpx::accounting
