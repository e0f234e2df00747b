#include "dpx/data/nonparametric.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "dpx/core/error.hpp"
#include "dpx/data/spectral.hpp"
#include "dpx/data/stationary.hpp"
#include "dpx/data/user_models.hpp"

namespace dpx::data {

void test_function::validate() const {
  core::check_finite("test_function", "amplitude", amplitude);
  if (amplitude == 0.0) core::throw_invalid("test_function", "amplitude", 0.0, "must be nonzero");
  if (shape == kind::sine &&
      !(frequency >= 1.0 && frequency == std::floor(frequency) && frequency < 1e9))
    core::throw_invalid("test_function", "frequency", frequency, "must be a positive integer");
}
double test_function::operator()(double x) const noexcept {
  switch (shape) {
    case kind::sine:
      return amplitude * std::sin(2.0 * std::numbers::pi * frequency * x);
    case kind::vee:
      return amplitude * std::abs(x - 0.5);
    case kind::bump:
      return amplitude * std::max(0.0, 1.0 - 4.0 * std::abs(x - 0.5));
  }
  return 0.0;
}
double test_function::lipschitz() const noexcept {
  switch (shape) {
    case kind::sine:
      return 2.0 * std::numbers::pi * frequency * std::abs(amplitude);
    case kind::vee:
      return std::abs(amplitude);
    case kind::bump:
      return 4.0 * std::abs(amplitude);
  }
  return 0.0;
}
double test_function::sup_norm() const noexcept {
  switch (shape) {
    case kind::sine:
      return std::abs(amplitude);
    case kind::vee:
      return 0.5 * std::abs(amplitude);
    case kind::bump:
      return std::abs(amplitude);
  }
  return 0.0;
}
test_function::kind test_function::parse(std::string_view name) {
  if (name == "sine") return kind::sine;
  if (name == "vee") return kind::vee;
  if (name == "bump") return kind::bump;
  core::throw_invalid("test_function", "function", name, "must be one of sine, vee, bump");
}
std::string_view test_function::name(kind k) noexcept {
  switch (k) {
    case kind::sine:
      return "sine";
    case kind::vee:
      return "vee";
    case kind::bump:
      return "bump";
  }
  return "?";
}

void nonparametric_options::validate() const {
  f.validate();
  core::check_positive("nonparametric", "noise_sd", noise_sd);
  core::check_open_interval("nonparametric", "phi", phi, -1.0, 1.0);
}
nonparametric::nonparametric(nonparametric_options o) : o_(o) { o_.validate(); }

void nonparametric::assemble(regression_sample& s) const {
  const std::size_t n = s.y.size();
  detail::ar1_unit_filter(std::span<double>(s.y.data(), n), o_.phi, o_.noise_sd);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i) / static_cast<double>(n);
    s.x(i) = x;
    s.f(i) = o_.f(x);
    s.y(i) += s.f(i);
  }
}
double nonparametric::log_sobolev(std::size_t n) const {
  core::check_at_least("nonparametric::log_sobolev", "n", static_cast<long long>(n), 1);
  return toeplitz_lambda_max(toeplitz_power_autocovariance(n, o_.phi, o_.noise_sd * o_.noise_sd));
}
double nonparametric::min_eigenvalue(std::size_t n) const {
  core::check_at_least("nonparametric::min_eigenvalue", "n", static_cast<long long>(n), 1);
  return toeplitz_eigen_range(toeplitz_power_autocovariance(n, o_.phi, o_.noise_sd * o_.noise_sd))
      .min;
}

}  // namespace dpx::data
