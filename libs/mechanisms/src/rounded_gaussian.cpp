// The rounded Gaussian mechanism (rounded_gaussian.hpp): calibration and validation.
#include "dpx/mechanisms/rounded_gaussian.hpp"

#include <cmath>

#include "dpx/core/error.hpp"

namespace dpx::mechanisms {

rounded_gaussian rounded_gaussian::from_sigma(double sigma,
                                              double l2_sensitivity,
                                              core::neighbouring relation,
                                              int granularity_bits) {
  const char* fn = "rounded_gaussian::from_sigma";
  core::check_positive(fn, "sigma", sigma);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  core::check_closed_interval(fn, "granularity_bits", granularity_bits, 0, 30);
  if (!(sigma >= 0x1p-900 && sigma <= 0x1p900))
    core::throw_invalid(fn, "sigma", sigma, "must be in [2^-900, 2^900]");
  // sigma = f 2^e with f in [1/2, 1): floor(log2 sigma) = e - 1, so sigma / Lambda is in
  // [2^bits, 2^(bits + 1)).
  int e = 0;
  (void)std::frexp(sigma, &e);
  const double lambda = std::ldexp(1.0, e - 1 - granularity_bits);
  return rounded_gaussian(sigma, l2_sensitivity, lambda, relation);
}

}  // namespace dpx::mechanisms
