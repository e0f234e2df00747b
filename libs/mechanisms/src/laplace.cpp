#include "dpx/mechanisms/laplace.hpp"

#include "dpx/core/privacy_curves.hpp"

namespace dpx::mechanisms {

laplace laplace::calibrate(double epsilon, double l1_sensitivity, core::neighbouring relation) {
  core::check_positive("laplace::calibrate", "epsilon", epsilon);
  core::check_positive("laplace::calibrate", "l1_sensitivity", l1_sensitivity);
  // Dwork & Roth 2014, Thm. 3.6: b = Delta_1 / epsilon, rounded up (core::laplace_scale) so that
  // Delta_1 / b <= epsilon holds exactly.
  const double b = core::laplace_scale(epsilon, l1_sensitivity);
  return laplace(b, l1_sensitivity, relation);
}

laplace laplace::from_scale(double scale, double l1_sensitivity, core::neighbouring relation) {
  core::check_positive("laplace::from_scale", "scale", scale);
  core::check_positive("laplace::from_scale", "l1_sensitivity", l1_sensitivity);
  return laplace(scale, l1_sensitivity, relation);
}

}  // namespace dpx::mechanisms
