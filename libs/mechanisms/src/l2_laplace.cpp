#include "dpx/mechanisms/l2_laplace.hpp"

#include <cmath>

#include "dpx/core/privacy_curves.hpp"

namespace dpx::mechanisms {

l2_laplace l2_laplace::calibrate(double epsilon,
                                 double delta,
                                 double l2_sensitivity,
                                 core::neighbouring relation) {
  const char* fn = "l2_laplace::calibrate";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  // The smallest b meeting the bound (*) (one home: dpx/core/privacy_curves.hpp).
  const double b = core::l2_laplace_scale(epsilon, delta, l2_sensitivity);
  // The scale is stored as a noise of "sensitivity" Delta_2 so laplace::event() is not used.
  return l2_laplace(
      laplace::from_scale(b, l2_sensitivity, relation), epsilon, delta, l2_sensitivity);
}

double l2_laplace::epsilon_bound(double scale, double delta, double l2_sensitivity) {
  const char* fn = "l2_laplace::epsilon_bound";
  core::check_positive(fn, "scale", scale);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  return core::l2_laplace_epsilon(scale, delta, l2_sensitivity);
}

double l2_laplace::epsilon_heterogeneous(std::span<const double> difference,
                                         double scale,
                                         double delta) {
  const char* fn = "l2_laplace::epsilon_heterogeneous";
  core::check_nonempty_finite_span(fn, "difference", difference);
  core::check_positive(fn, "scale", scale);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  double first = 0.0, sq = 0.0;
  for (double a : difference) {
    const double e = std::fabs(a) / scale;
    first += e * std::tanh(e / 2.0);  // e (e^e - 1) / (e^e + 1)
    sq += e * e;
  }
  return first + std::sqrt(2.0 * std::log(1.0 / delta) * sq);
}

}  // namespace dpx::mechanisms
