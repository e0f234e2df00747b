#include "dpx/mechanisms/laplace.hpp"

namespace dpx::mechanisms {

laplace laplace::calibrate(double epsilon, double l1_sensitivity, core::neighbouring relation) {
  core::check_positive("laplace::calibrate", "epsilon", epsilon);
  core::check_positive("laplace::calibrate", "l1_sensitivity", l1_sensitivity);
  // Dwork & Roth 2014, Thm. 3.6: b = Delta_1 / epsilon.
  const double b = l1_sensitivity / epsilon;
  core::check_positive("laplace::calibrate", "l1_sensitivity / epsilon", b);
  return laplace(b, l1_sensitivity, relation);
}

laplace laplace::from_scale(double scale, double l1_sensitivity, core::neighbouring relation) {
  core::check_positive("laplace::from_scale", "scale", scale);
  core::check_positive("laplace::from_scale", "l1_sensitivity", l1_sensitivity);
  return laplace(scale, l1_sensitivity, relation);
}

}  // namespace dpx::mechanisms
