#include "dpx/accounting/gaussian.hpp"

#include <cmath>
#include <limits>

#include "dpx/core/error.hpp"
#include "normal.hpp"

namespace dpx::accounting {

double gaussian_log_delta(double epsilon, double noise_multiplier) {
  const char* fn = "gaussian_delta";
  core::check_finite(fn, "epsilon", epsilon);
  core::check_positive(fn, "noise_multiplier", noise_multiplier);
  return detail::log_gaussian_hockey_stick(epsilon, 1.0 / noise_multiplier);
}

double gaussian_delta(double epsilon, double noise_multiplier) {
  return std::exp(gaussian_log_delta(epsilon, noise_multiplier));
}

double gaussian_epsilon(double delta, double noise_multiplier) {
  const char* fn = "gaussian_epsilon";
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_positive(fn, "noise_multiplier", noise_multiplier);
  const double mu = 1.0 / noise_multiplier;
  const double log_target = std::log(delta);
  auto ok = [&](double e) {
    return detail::log_gaussian_hockey_stick(e, mu) +
               std::log1p(detail::gaussian_hockey_stick_rel_error(e, mu)) <=
           log_target;
  };
  if (ok(0.0)) return 0.0;
  double lo = 0.0, hi = 1.0;
  while (!ok(hi)) {
    lo = hi;
    hi *= 2.0;
    // Beyond 1e300 nats (noise multiplier ~1e-150 or smaller) the exact epsilon is not
    // representable: +inf is the honest upper bound (and bounds the work).
    if (hi > 1e300) return std::numeric_limits<double>::infinity();
  }
  for (int it = 0; it < 200 && hi - lo > 4e-16 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (ok(mid)) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

double gaussian_composed_epsilon(double delta, double noise_multiplier, std::int64_t steps) {
  core::check_at_least("gaussian_composed_epsilon", "steps", steps, 1);
  core::check_positive("gaussian_composed_epsilon", "noise_multiplier", noise_multiplier);
  return gaussian_epsilon(delta, noise_multiplier / std::sqrt(static_cast<double>(steps)));
}

double gaussian_composed_delta(double epsilon, double noise_multiplier, std::int64_t steps) {
  core::check_at_least("gaussian_composed_delta", "steps", steps, 1);
  core::check_positive("gaussian_composed_delta", "noise_multiplier", noise_multiplier);
  return gaussian_delta(epsilon, noise_multiplier / std::sqrt(static_cast<double>(steps)));
}

double calibrate_gaussian_analytic(double epsilon, double delta, std::int64_t steps) {
  const char* fn = "calibrate_gaussian_analytic";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_at_least(fn, "steps", steps, 1);
  const double root_t = std::sqrt(static_cast<double>(steps));
  const double log_target = std::log(delta);
  // The test is evaluated at exactly the sigma that is returned (sigma / sqrt(T) inside).
  auto ok = [&](double log_s) {
    const double mu = 1.0 / (std::exp(log_s) / root_t);  // as gaussian_composed_* compute it
    return detail::log_gaussian_hockey_stick(epsilon, mu) +
               std::log1p(detail::gaussian_hockey_stick_rel_error(epsilon, mu)) <=
           log_target;
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
  for (int it = 0; it < 200 && hi - lo > 1e-15; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (ok(mid)) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return std::exp(hi);
}

double calibrate_gaussian_classical(double epsilon, double delta) {
  const char* fn = "calibrate_gaussian_classical";
  core::check_open_interval(fn, "epsilon", epsilon, 0.0, 1.0);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  return std::sqrt(2.0 * std::log(1.25 / delta)) / epsilon;
}

}  // namespace dpx::accounting
