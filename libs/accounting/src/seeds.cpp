#include "dpx/accounting/seeds.hpp"

#include <algorithm>
#include <cmath>

#include "dpx/accounting/calibration.hpp"
#include "dpx/accounting/composition.hpp"
#include "dpx/core/error.hpp"

namespace dpx::accounting {

laplace_rule parse_laplace_rule(const std::string& s) {
  using r = laplace_rule;
  return core::parse_composition_rule(
      s, {r::basic, r::advanced, r::kov, r::kov_optimal, r::pld}, "parse_laplace_rule", "rule");
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
    case laplace_rule::advanced:
      // The same split as the noisy-PGD solver's (one home: core::split_budget).
      c.epsilon_step = core::split_budget(rule, {epsilon, 0.0}, k, delta).epsilon;
      break;
    case laplace_rule::kov:
      c.epsilon_step = kov_per_step_epsilon(epsilon, k, delta);
      break;
    case laplace_rule::kov_optimal:
      c.epsilon_step = kov_optimal_per_step_epsilon(epsilon, delta, k, 0.0);
      break;
    case laplace_rule::pld: {
      const double b = calibrate_laplace(epsilon, delta, k, laplace_method::pld);
      c.epsilon_step = 1.0 / b;
      c.scale = core::multiply_up(sensitivity, b);
      return c;
    }
    default:
      core::throw_invalid(
          fn, "rule", to_string(rule), "must be basic, advanced, kov, kov_optimal or pld");
  }
  c.scale = core::laplace_scale(c.epsilon_step, sensitivity);
  return c;
}

}  // namespace dpx::accounting
