#pragma once
/// \file
/// Numerical helpers of the privacy curves (dpx/core/privacy_curves.hpp) and the accountants:
/// the standard normal distribution in log space and the scaled complementary error function
/// erfcx(x) = exp(x^2) erfc(x), built on Boost.Math erfc.
#include <cmath>
#include <limits>

namespace dpx::core::detail {

inline constexpr double inf = std::numeric_limits<double>::infinity();

/// erfcx(x) = exp(x^2) erfc(x), relative accuracy ~1e-15 for every finite x > -26.
double erfcx(double x);
/// log(erfc(x)) without underflow for large x.
double log_erfc(double x);
/// log Phi(x), Phi the standard normal CDF (no underflow for x -> -inf).
double log_ndtr(double x);
/// Phi(-x) = 1 - Phi(x) (upper tail) in linear space.
double ndtr_upper(double x);
/// log(exp(a) + exp(b)).
inline double log_add(double a, double b) {
  if (a == -inf) return b;
  if (b == -inf) return a;
  const double m = a > b ? a : b;
  return m + std::log1p(std::exp(-(a > b ? a - b : b - a)));
}
/// log(exp(a) - exp(b)), requires a >= b (returns -inf if a == b).
inline double log_sub(double a, double b) {
  if (b == -inf) return a;
  if (b >= a) return -inf;
  return a + std::log(-std::expm1(b - a));
}
/// log(1 - exp(x)) for x <= 0.
inline double log1mexp(double x) {
  return x > -0.6931471805599453 ? std::log(-std::expm1(x)) : std::log1p(-std::exp(x));
}

/// Hockey-stick divergence of the Gaussian pair N(0,1) vs N(mu,1) at epsilon (any real):
/// delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)   [Balle & Wang 2018, Thm 8],
/// evaluated without overflow for eps > 709 and without cancellation in the tail, via
/// e^eps phi(v) = phi(u) (u = eps/mu - mu/2, v = eps/mu + mu/2) and Mills ratios (erfcx).
/// Returns log(delta) (-inf when delta == 0).
double log_gaussian_hockey_stick(double epsilon, double mu);
/// The same with Boost's erfc evaluated in double instead of long double (a few ulps more
/// rounding, well inside gaussian_hockey_stick_rel_error; ~3x faster): for the PLD
/// discretisation, which evaluates the curve at every grid point.
double log_gaussian_hockey_stick_fast(double epsilon, double mu);
/// exp(log_gaussian_hockey_stick_fast(eps, mu)) up to a few ulps, without the log / exp round
/// trip (0 where delta underflows): the PLD discretisation's per-grid-point curve.
double gaussian_hockey_stick_fast(double epsilon, double mu);

/// Bound on the relative error of exp(log_gaussian_hockey_stick(eps, mu)): the Mills-ratio
/// difference cancels by a factor ~ u/mu (u = eps/mu - mu/2) in the tail. Searches compare
/// delta(eps) * (1 + this) against targets so that answers stay on the safe side.
inline double gaussian_hockey_stick_rel_error(double epsilon, double mu) {
  const double u = epsilon / mu - mu / 2.0;
  return 1e-12 + 4e-15 * (u > 0.0 ? u / mu : 0.0);
}

}  // namespace dpx::core::detail
