// The exact (eps, delta) of composed Gaussian releases (gaussian_composition.hpp): Balle & Wang
// (2018), Thm. 8, with mu = sqrt(T)/sigma (Dong, Roth & Su 2022, Cor. 2.5).
#include "gaussian_composition.hpp"

#include <cmath>

#include "dpx/core/error.hpp"

namespace dpx::experiments::pgd_theory {
namespace {

/// log Phi(x): erfc for moderate x; below -30 the asymptotic series of the Mills ratio
/// (Abramowitz & Stegun 26.2.12), where erfc would underflow.
double log_phi(double x) {
  if (x > -30) return std::log(0.5 * std::erfc(-x / std::sqrt(2.0)));
  const double x2 = x * x;
  const double series = 1 - 1 / x2 + 3 / (x2 * x2) - 15 / (x2 * x2 * x2);
  return -0.5 * x2 - std::log(-x) - 0.5 * std::log(2 * M_PI) + std::log(series);
}

}  // namespace

double gaussian_delta(double mu, double epsilon) {
  const char* fn = "pgd_theory::gaussian_delta";
  core::check_positive(fn, "mu", mu);
  core::check_nonnegative(fn, "epsilon", epsilon);
  const double a = -epsilon / mu + mu / 2;
  const double b = -epsilon / mu - mu / 2;
  return std::exp(log_phi(a)) - std::exp(epsilon + log_phi(b));
}

double gaussian_epsilon(double mu, double delta) {
  const char* fn = "pgd_theory::gaussian_epsilon";
  core::check_positive(fn, "mu", mu);
  core::check_open_interval(fn, "delta", delta, 0, 1);
  if (gaussian_delta(mu, 0) <= delta) return 0;
  double lo = 0, hi = 1;
  while (gaussian_delta(mu, hi) > delta) hi *= 2;  // delta(eps) decreases to 0
  while (hi - lo > 1e-13 * hi) {
    const double mid = 0.5 * (lo + hi);
    (gaussian_delta(mu, mid) > delta ? lo : hi) = mid;
  }
  return hi;
}

double gaussian_composition_sigma(double epsilon, double delta, std::int64_t steps) {
  const char* fn = "pgd_theory::gaussian_composition_sigma";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0, 1);
  if (steps < 1) core::throw_invalid(fn, "steps", static_cast<double>(steps), "must be >= 1");
  // delta(mu) at fixed eps increases with mu: find the largest mu with delta(mu) <= delta.
  double lo = 0, hi = 1;
  while (gaussian_delta(hi, epsilon) <= delta) hi *= 2;
  while (hi - lo > 1e-13 * hi) {
    const double mid = 0.5 * (lo + hi);
    (gaussian_delta(mid, epsilon) <= delta ? lo : hi) = mid;
  }
  return std::sqrt(static_cast<double>(steps)) / lo;
}

}  // namespace dpx::experiments::pgd_theory
