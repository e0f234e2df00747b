#include "pgd_theory.hpp"

#include <algorithm>
#include <cmath>

#include "dpx/core/error.hpp"

namespace dpx::experiments::pgd_theory {
namespace {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

/// Root of an increasing f on (lo, hi) with f(lo) < 0 < f(hi), bisected in log space down to
/// relative width 1e-15 (every bracket here is (0, positive)).
template <class F>
double bisect_increasing(F f, double lo, double hi) {
  for (int i = 0; i < 400 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = lo > 0 ? std::sqrt(lo * hi) : 0.5 * (lo + hi);
    (f(mid) < 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

double replace_one_sensitivity(double clip, std::int64_t n) {
  core::check_positive("pgd_theory::replace_one_sensitivity", "clip", clip);
  core::check_at_least("pgd_theory::replace_one_sensitivity", "n", n, 1);
  return 2.0 * clip / static_cast<double>(n);
}

double drv_total_epsilon(double eps0, std::int64_t k, double delta_slack) {
  const char* fn = "pgd_theory::drv_total_epsilon";
  core::check_nonnegative(fn, "eps0", eps0);
  core::check_at_least(fn, "k", k, 1);
  core::check_open_interval(fn, "delta_slack", delta_slack, 0.0, 1.0);
  const double kd = static_cast<double>(k);
  return std::sqrt(2 * kd * std::log(1 / delta_slack)) * eps0 + kd * eps0 * std::expm1(eps0);
}

double drv_step_epsilon(double epsilon, std::int64_t k, double delta_slack) {
  core::check_positive("pgd_theory::drv_step_epsilon", "epsilon", epsilon);
  // The first term alone reaches epsilon at hi, so the root lies in (0, hi].
  const double hi =
      epsilon / std::sqrt(2 * static_cast<double>(k) * std::log(1 / delta_slack)) * (1 + 1e-12);
  return bisect_increasing(
      [&](double e0) { return drv_total_epsilon(e0, k, delta_slack) - epsilon; }, 0.0, hi);
}

double laplace_per_coordinate_scale(
    double epsilon, double delta, std::int64_t iterations, std::int64_t d, double sensitivity) {
  const char* fn = "pgd_theory::laplace_per_coordinate_scale";
  core::check_at_least(fn, "iterations", iterations, 1);
  core::check_at_least(fn, "d", d, 1);
  core::check_positive(fn, "sensitivity", sensitivity);
  return sensitivity / drv_step_epsilon(epsilon, iterations * d, delta);
}

double laplace_l2_scale(double epsilon, double delta, std::int64_t iterations, double sensitivity) {
  const char* fn = "pgd_theory::laplace_l2_scale";
  core::check_at_least(fn, "iterations", iterations, 1);
  core::check_positive(fn, "sensitivity", sensitivity);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  const double eps_it = drv_step_epsilon(epsilon, iterations, delta / 2);
  const double delta_it = delta / (2 * static_cast<double>(iterations));
  const double c = std::sqrt(2 * std::log(1 / delta_it));
  // x^2/2 + c x - eps_it = 0: x = sqrt(c^2 + 2 eps_it) - c, written without the cancellation.
  const double x = 2 * eps_it / (std::sqrt(c * c + 2 * eps_it) + c);
  return sensitivity / x;
}

double gdp_delta(double mu, double epsilon) {
  core::check_positive("pgd_theory::gdp_delta", "mu", mu);
  return normal_cdf(-epsilon / mu + mu / 2) -
         std::exp(epsilon) * normal_cdf(-epsilon / mu - mu / 2);
}

double gdp_mu(double epsilon, double delta) {
  const char* fn = "pgd_theory::gdp_mu";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  double hi = 1;
  while (gdp_delta(hi, epsilon) < delta) hi *= 2;
  return bisect_increasing([&](double mu) { return gdp_delta(mu, epsilon) - delta; }, 0.0, hi);
}

double gdp_epsilon(double mu, double delta) {
  const char* fn = "pgd_theory::gdp_epsilon";
  core::check_positive(fn, "mu", mu);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  if (gdp_delta(mu, 0) <= delta) return 0;
  double hi = 1;
  while (gdp_delta(mu, hi) > delta) hi *= 2;
  // delta(eps) decreases in eps: bisect the increasing function delta - delta(eps).
  return bisect_increasing([&](double e) { return delta - gdp_delta(mu, e); }, 0.0, hi);
}

double gaussian_sigma(double epsilon, double delta, std::int64_t iterations, double sensitivity) {
  const char* fn = "pgd_theory::gaussian_sigma";
  core::check_at_least(fn, "iterations", iterations, 1);
  core::check_positive(fn, "sensitivity", sensitivity);
  return std::sqrt(static_cast<double>(iterations)) * sensitivity / gdp_mu(epsilon, delta);
}

double noise_scale(noise kind,
                   double epsilon,
                   double delta,
                   std::int64_t iterations,
                   std::int64_t d,
                   double sensitivity) {
  switch (kind) {
    case noise::laplace_per_coordinate:
      return laplace_per_coordinate_scale(epsilon, delta, iterations, d, sensitivity);
    case noise::laplace_l2:
      return laplace_l2_scale(epsilon, delta, iterations, sensitivity);
    case noise::gaussian:
      return gaussian_sigma(epsilon, delta, iterations, sensitivity);
  }
  core::throw_invalid("pgd_theory::noise_scale", "kind", "unknown", "is not a noise of noisy PGD");
}

double noise_variance(noise kind, double scale) {
  return kind == noise::gaussian ? scale * scale : 2 * scale * scale;
}

double quadratic_privacy_part(std::span<const double> eigenvalues,
                              double eta,
                              double variance,
                              std::int64_t iterations) {
  const char* fn = "pgd_theory::quadratic_privacy_part";
  core::check_positive(fn, "eta", eta);
  core::check_nonnegative(fn, "variance", variance);
  core::check_at_least(fn, "iterations", iterations, 1);
  const double t = static_cast<double>(iterations);
  double s = 0;
  for (const double l : eigenvalues) {
    core::check_positive(fn, "eigenvalues", l);
    const double q = 1 - eta * l;
    if (!(std::fabs(q) < 1))
      core::throw_invalid(fn, "eta", eta, "must satisfy |1 - eta lambda| < 1 for every eigenvalue");
    // sum_{j=1}^T (1 - q^j)^2 = T - 2 q (1 - q^T)/(1 - q) + q^2 (1 - q^{2T})/(1 - q^2)
    const double qt = std::pow(q, t);
    s += (t - 2 * q * (1 - qt) / (1 - q) + q * q * (1 - qt * qt) / (1 - q * q)) / l;
  }
  return variance * s / (2 * t * t);
}

double linear_ball_excess(double m_norm, double radius, double eta, std::int64_t iterations) {
  const char* fn = "pgd_theory::linear_ball_excess";
  core::check_positive(fn, "m_norm", m_norm);
  core::check_positive(fn, "radius", radius);
  core::check_positive(fn, "eta", eta);
  core::check_at_least(fn, "iterations", iterations, 1);
  const double s = eta * m_norm, t = static_cast<double>(iterations);
  // k = #{t in 1..T : t s < r}: those iterates lie inside the ball at distance t s from 0, the
  // others on the sphere.
  const double k = std::min(t, std::ceil(radius / s) - 1);
  const double sum = s * k * (k + 1) / 2 + (t - k) * radius;
  return m_norm * (radius - sum / t);
}

}  // namespace dpx::experiments::pgd_theory
