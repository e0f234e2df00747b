#include "dpx/accounting/gaussian.hpp"

#include <cmath>

#include "dpx/core/error.hpp"

namespace dpx::accounting {

double gaussian_composed_epsilon(double delta, double noise_multiplier, std::int64_t steps) {
  core::check_at_least("gaussian_composed_epsilon", "steps", steps, 1);
  core::check_positive("gaussian_composed_epsilon", "noise_multiplier", noise_multiplier);
  return gaussian_epsilon(delta, noise_multiplier / std::sqrt(static_cast<double>(steps)));
}

double gaussian_composed_delta(double epsilon, double noise_multiplier, std::int64_t steps) {
  core::check_at_least("gaussian_composed_delta", "steps", steps, 1);
  core::check_positive("gaussian_composed_delta", "noise_multiplier", noise_multiplier);
  return gaussian_delta(epsilon, noise_multiplier / std::sqrt(static_cast<double>(steps)));
}

}  // namespace dpx::accounting
