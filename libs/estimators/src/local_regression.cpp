#include "dpx/estimators/local_regression.hpp"

#include <algorithm>
#include <cmath>

#include "dpx/core/error.hpp"

namespace dpx::estimators {

void local_priestley_chao_options::validate() const {
  constexpr const char* fn = "local_priestley_chao";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_positive(fn, "bandwidth", bandwidth);
  core::check_nonnegative(fn, "lipschitz", lipschitz);
  core::check_positive(fn, "sup_norm", sup_norm);
  core::check_positive(fn, "noise_variance_max", noise_variance_max);
  core::check_open_interval(fn, "gamma", gamma, 0.0, 1.0);
  if (composition_slack != 0.0)
    core::check_open_interval(fn, "composition_slack", composition_slack, 0.0, 1.0);
}

double local_priestley_chao_bandwidth(double noise_variance_max, std::size_t n, double epsilon) {
  constexpr const char* fn = "local_priestley_chao_bandwidth";
  core::check_positive(fn, "noise_variance_max", noise_variance_max);
  core::check_positive(fn, "epsilon", epsilon);
  if (n == 0) core::throw_invalid(fn, "n", "0", "must be >= 1");
  const double dn = static_cast<double>(n);
  return std::max(std::cbrt(noise_variance_max / dn),
                  std::sqrt(std::sqrt(noise_variance_max) / (std::sqrt(dn) * epsilon)));
}

}  // namespace dpx::estimators
