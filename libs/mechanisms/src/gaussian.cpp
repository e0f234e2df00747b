// Gaussian calibration: classical (Dwork & Roth 2014, Thm. A.1) and analytic (Balle & Wang
// 2018, Thm. 8), both from dpx::core's privacy curves (dpx/core/privacy_curves.hpp: the one home
// of the Gaussian curve, safe side included).
#include "dpx/mechanisms/gaussian.hpp"

#include <cmath>

#include "dpx/core/privacy_curves.hpp"

namespace dpx::mechanisms {

double gaussian_delta_for_epsilon(double epsilon, double noise_multiplier) {
  core::check_nonnegative("gaussian_delta_for_epsilon", "epsilon", epsilon);
  core::check_positive("gaussian_delta_for_epsilon", "noise_multiplier", noise_multiplier);
  return core::gaussian_delta(epsilon, noise_multiplier);
}

gaussian gaussian::calibrate_classical(double epsilon,
                                       double delta,
                                       double l2_sensitivity,
                                       core::neighbouring relation) {
  const char* fn = "gaussian::calibrate_classical";
  core::check_positive(fn, "epsilon", epsilon);
  if (!(epsilon < 1.0))
    core::throw_invalid(fn,
                        "epsilon",
                        epsilon,
                        "must be < 1: the classical bound (Dwork & Roth 2014, Thm. A.1) holds "
                        "only for epsilon < 1; use gaussian::calibrate_analytic");
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  // Dwork & Roth 2014, Thm. A.1: sigma = Delta_2 sqrt(2 ln(1.25 / delta)) / epsilon.
  const double sigma =
      core::multiply_up(l2_sensitivity, core::calibrate_gaussian_classical(epsilon, delta));
  core::check_positive(fn, "resulting sigma", sigma);
  return gaussian(sigma, l2_sensitivity, relation);
}

gaussian gaussian::calibrate_analytic(double epsilon,
                                      double delta,
                                      double l2_sensitivity,
                                      core::neighbouring relation) {
  const char* fn = "gaussian::calibrate_analytic";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  // sigma >= Delta_2 m exactly (multiply_up), so the event's sigma / Delta_2 is >= m: the
  // accountants see a multiplier that meets the target.
  const double sigma =
      core::multiply_up(l2_sensitivity, core::calibrate_gaussian_analytic(epsilon, delta));
  core::check_positive(fn, "resulting sigma", sigma);
  return gaussian(sigma, l2_sensitivity, relation);
}

gaussian gaussian::from_sigma(double sigma, double l2_sensitivity, core::neighbouring relation) {
  core::check_positive("gaussian::from_sigma", "sigma", sigma);
  core::check_positive("gaussian::from_sigma", "l2_sensitivity", l2_sensitivity);
  return gaussian(sigma, l2_sensitivity, relation);
}

}  // namespace dpx::mechanisms
