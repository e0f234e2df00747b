#include "dpx/core/privacy_curves.hpp"

#include <cmath>
#include <limits>

#include "dpx/core/detail/log_normal.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/roots.hpp"

namespace dpx::core {

namespace {
constexpr double inf = std::numeric_limits<double>::infinity();

/// delta(eps) of multiplier 1/mu, inflated by its evaluation-error bound, <= the target (in
/// log space): the safe-side test of every Gaussian search.
bool gaussian_ok(double epsilon, double mu, double log_target) {
  return detail::log_gaussian_hockey_stick(epsilon, mu) +
             std::log1p(detail::gaussian_hockey_stick_rel_error(epsilon, mu)) <=
         log_target;
}
}  // namespace

double divide_up(double a, double b) {
  const double q = a / b;
  // q b - a is computed exactly up to one rounding, which cannot change its sign.
  return std::fma(q, b, -a) < 0.0 ? std::nextafter(q, inf) : q;
}

double divide_down(double a, double b) {
  const double q = a / b;
  return std::fma(q, b, -a) > 0.0 ? std::nextafter(q, -inf) : q;
}

double multiply_up(double a, double b) {
  const double p = a * b;
  return std::fma(a, b, -p) > 0.0 ? std::nextafter(p, inf) : p;
}

double round_up(double x, int ulps) {
  for (int i = 0; i < ulps; ++i) x = std::nextafter(x, inf);
  return x;
}

double round_down(double x, int ulps) {
  for (int i = 0; i < ulps; ++i) x = std::nextafter(x, -inf);
  return x;
}

double laplace_scale(double epsilon, double l1_sensitivity) {
  const char* fn = "laplace_scale";
  check_positive(fn, "epsilon", epsilon);
  check_positive(fn, "l1_sensitivity", l1_sensitivity);
  const double b = divide_up(l1_sensitivity, epsilon);
  check_positive(fn, "l1_sensitivity / epsilon", b);
  return b;
}

double gaussian_log_delta(double epsilon, double noise_multiplier) {
  const char* fn = "gaussian_delta";
  check_finite(fn, "epsilon", epsilon);
  check_positive(fn, "noise_multiplier", noise_multiplier);
  return detail::log_gaussian_hockey_stick(epsilon, 1.0 / noise_multiplier);
}

double gaussian_delta(double epsilon, double noise_multiplier) {
  return std::exp(gaussian_log_delta(epsilon, noise_multiplier));
}

double gaussian_epsilon(double delta, double noise_multiplier) {
  const char* fn = "gaussian_epsilon";
  check_open_interval(fn, "delta", delta, 0.0, 1.0);
  check_positive(fn, "noise_multiplier", noise_multiplier);
  const double mu = 1.0 / noise_multiplier;
  const double log_target = std::log(delta);
  auto ok = [&](double e) { return gaussian_ok(e, mu, log_target); };
  if (ok(0.0)) return 0.0;
  double lo = 0.0, hi = 1.0;
  while (!ok(hi)) {
    lo = hi;
    hi *= 2.0;
    // Beyond 1e300 nats (noise multiplier ~1e-150 or smaller) the exact epsilon is not
    // representable: +inf is the honest upper bound (and bounds the work).
    if (hi > 1e300) return inf;
  }
  return bisect_smallest(ok, lo, hi, {0.0, 4e-16});
}

double calibrate_gaussian_analytic(double epsilon, double delta, std::int64_t steps) {
  const char* fn = "calibrate_gaussian_analytic";
  check_positive(fn, "epsilon", epsilon);
  check_open_interval(fn, "delta", delta, 0.0, 1.0);
  check_at_least(fn, "steps", steps, 1);
  const double root_t = std::sqrt(static_cast<double>(steps));
  const double log_target = std::log(delta);
  // The test is evaluated at exactly the sigma that is returned (sigma / sqrt(T) inside, as
  // the accountants compute it).
  auto ok = [&](double log_s) {
    return gaussian_ok(epsilon, 1.0 / (std::exp(log_s) / root_t), log_target);
  };
  double lo = std::log(1e-3), hi = 0.0;
  while (ok(lo)) {
    hi = lo;
    lo -= 4.0;
  }
  while (!ok(hi)) {
    lo = hi;
    hi += 2.0;
  }
  return std::exp(bisect_smallest(ok, lo, hi, {1e-15, 0.0}));
}

double calibrate_gaussian_classical(double epsilon, double delta) {
  const char* fn = "calibrate_gaussian_classical";
  check_open_interval(fn, "epsilon", epsilon, 0.0, 1.0);
  check_open_interval(fn, "delta", delta, 0.0, 1.0);
  // log, division, product, sqrt and division: five roundings of <= 1 ulp each.
  return round_up(std::sqrt(2.0 * std::log(1.25 / delta)) / epsilon, 6);
}

double l2_laplace_epsilon(double scale, double delta, double l2_sensitivity) {
  const char* fn = "l2_laplace_epsilon";
  check_positive(fn, "scale", scale);
  check_open_interval(fn, "delta", delta, 0.0, 1.0);
  check_positive(fn, "l2_sensitivity", l2_sensitivity);
  const double x = l2_sensitivity / scale;
  return x * x / 2.0 + x * std::sqrt(-2.0 * std::log(delta));
}

double l2_laplace_scale(double epsilon, double delta, double l2_sensitivity) {
  const char* fn = "l2_laplace_scale";
  check_positive(fn, "epsilon", epsilon);
  check_open_interval(fn, "delta", delta, 0.0, 1.0);
  check_positive(fn, "l2_sensitivity", l2_sensitivity);
  // Positive root of x^2/2 + c x - eps = 0 in the cancellation-free form; -log(delta) keeps
  // full relative accuracy for delta near 1 (log(1/delta) would not).
  const double c = std::sqrt(-2.0 * std::log(delta));
  const double x = 2.0 * epsilon / (c + std::sqrt(c * c + 2.0 * epsilon));
  // About ten roundings of <= 1 ulp each (log, sqrt twice, products, sums, divisions).
  return round_up(l2_sensitivity / x, 12);
}

}  // namespace dpx::core
