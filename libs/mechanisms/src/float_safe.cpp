#include "dpx/mechanisms/float_safe.hpp"

#include <cmath>

#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/laplace.hpp"

namespace dpx::mechanisms {

namespace detail {

void throw_off_grid(const char* fn, double x) {
  core::check_finite(fn, "value", x);
  // x finite but x / Lambda overflowed (Lambda subnormal-small): report without the value.
  core::throw_invalid(fn, "value", "(not shown)", "overflows the float-safe grid");
}

double grid_for_scale(double scale, int bits) {
  int e = 0;
  std::frexp(scale, &e);  // scale in [2^(e-1), 2^e)
  return std::ldexp(1.0, e - 1 - bits);
}

}  // namespace detail

float_safe_laplace float_safe_laplace::calibrate(double epsilon,
                                                 double l1_sensitivity,
                                                 core::neighbouring relation,
                                                 int granularity_bits) {
  const char* fn = "float_safe_laplace::calibrate";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_positive(fn, "l1_sensitivity", l1_sensitivity);
  core::check_closed_interval(fn, "granularity_bits", granularity_bits, 0, 40);
  const double b = l1_sensitivity / epsilon;
  core::check_positive(fn, "l1_sensitivity / epsilon", b);
  const double lambda = detail::grid_for_scale(b, granularity_bits);
  const double ratio = std::floor(l1_sensitivity / lambda);  // exact division by 2^k
  if (!(ratio < 0x1p60))
    core::throw_invalid(fn, "epsilon", epsilon, "is too large for the grid (Delta/Lambda >= 2^60)");
  return float_safe_laplace(
      epsilon, l1_sensitivity, lambda, static_cast<std::int64_t>(ratio), relation);
}

float_safe_gaussian::float_safe_gaussian(double sigma,
                                         double sens,
                                         double lambda,
                                         core::neighbouring rel)
    : sigma_(sigma),
      sensitivity_(sens),
      lambda_(lambda),
      relation_(rel),
      unit_(discrete_gaussian::from_sigma(1.0, 1.0)) {
  unit_ = noise_for_dimension(1);
  unit_law_ =
      detail::gaussian_law::of(unit_.variance_numerator(), unit_.variance_denominator(), true);
}

discrete_gaussian float_safe_gaussian::noise_for_dimension(std::size_t d) const {
  // Rounded query: ||round(x/L) - round(x'/L)||_2 <= Delta/L + sqrt(d) =: Delta_Z; grid noise
  // sigma_Z = sigma Delta_Z / Delta keeps Delta_Z / sigma_Z = Delta / sigma (rho unchanged).
  const double delta_z = sensitivity_ / lambda_ + std::sqrt(static_cast<double>(d));
  const double sigma_z = sigma_ * (delta_z / sensitivity_);
  // Round sigma_z up by a relative 2^-40 to absorb the three roundings above.
  return discrete_gaussian::from_sigma(sigma_z * (1.0 + 0x1p-40), delta_z, relation_);
}

float_safe_gaussian float_safe_gaussian::from_sigma(double sigma,
                                                    double l2_sensitivity,
                                                    core::neighbouring relation,
                                                    int granularity_bits) {
  const char* fn = "float_safe_gaussian::from_sigma";
  core::check_positive(fn, "sigma", sigma);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  core::check_closed_interval(fn, "granularity_bits", granularity_bits, 0, 20);
  const double lambda = detail::grid_for_scale(sigma, granularity_bits);
  if (!(sigma / l2_sensitivity <= 0x1p20) || !(sigma / l2_sensitivity >= 0x1p-20))
    core::throw_invalid(fn,
                        "sigma / l2_sensitivity",
                        sigma / l2_sensitivity,
                        "must be in [2^-20, 2^20] for the grid sampler");
  return float_safe_gaussian(sigma, l2_sensitivity, lambda, relation);
}

float_safe_gaussian float_safe_gaussian::calibrate_zcdp(double rho,
                                                        double l2_sensitivity,
                                                        core::neighbouring relation,
                                                        int granularity_bits) {
  const char* fn = "float_safe_gaussian::calibrate_zcdp";
  core::check_positive(fn, "rho", rho);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  return from_sigma(
      l2_sensitivity / std::sqrt(2.0 * rho), l2_sensitivity, relation, granularity_bits);
}

float_safe_laplace laplace::float_safe() const {
  return float_safe_laplace::calibrate(epsilon(), sensitivity_, relation_);
}

float_safe_gaussian gaussian::float_safe() const {
  return float_safe_gaussian::from_sigma(sigma_, sensitivity_, relation_);
}

}  // namespace dpx::mechanisms
