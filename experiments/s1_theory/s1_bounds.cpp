// S1 tail bounds from a cell's inputs (s1_bounds.hpp; docs/theory/dependent-data.md §11).
#include "s1_bounds.hpp"

#include <cmath>
#include <functional>

#include "dpx/core/error.hpp"
#include "s1_theory.hpp"

namespace dpx::experiments::s1_theory {

namespace {

void require(bool ok, const char* parameter, double value, const char* what) {
  if (!ok) core::throw_invalid("s1_bounds", parameter, value, what);
}

void require_budget(std::size_t n, double epsilon, double delta) {
  require(n >= 1, "n", 0.0, "must be >= 1");
  require(epsilon > 0, "epsilon", epsilon, "must be > 0");
  require(delta > 0 && delta < 1, "delta", delta, "must be in (0, 1)");
}

void require_level(double q, const char* parameter) {
  require(q > 0 && q < 1, parameter, q, "must be in (0, 1)");
}

/// The x > 0 at which the decreasing f equals q: bracket by doubling, then bisect to rounding.
double invert_decreasing(const std::function<double(double)>& f, double q, double start) {
  double lo = start, hi = start;
  while (f(lo) < q) lo *= 0.5;
  while (f(hi) > q) hi *= 2.0;
  for (int it = 0; it < 200 && hi - lo > 1e-14 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) > q ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

/// n (1 + e^{ε/2}/δ), the first term's constant of Lemmas 3.1/3.2 (the proof's).
double histogram_constant(std::size_t n, double epsilon, double delta) {
  return static_cast<double>(n) * (1.0 + std::exp(0.5 * epsilon) / delta);
}

}  // namespace

double design_lambda_max(const std::string& design, std::size_t n, double phi) {
  require(n >= 1, "n", 0.0, "must be >= 1");
  if (design == "iid") return 1.0;
  if (design == "ar1") return ar1_lambda_max(phi, n);
  if (design == "equi") return 1.0 + (static_cast<double>(n) - 1.0) * phi;
  if (design == "equi_inv_n") return n > 1 ? 2.0 : 1.0;
  core::throw_invalid("s1_bounds", "design", design, "must be iid, ar1, equi or equi_inv_n");
}

double histogram_data_bound(std::size_t n, double epsilon, double delta, double eta) {
  require_budget(n, epsilon, delta);
  return histogram_constant(n, epsilon, delta) *
         std::exp(-0.5 * epsilon * static_cast<double>(n) * eta);
}

double histogram_data_threshold(std::size_t n, double epsilon, double delta, double q) {
  require_budget(n, epsilon, delta);
  require_level(q, "q");
  return 2.0 / (epsilon * static_cast<double>(n)) *
         std::log(histogram_constant(n, epsilon, delta) / q);
}

double histogram_population_bound_iid(std::size_t n, double epsilon, double delta, double eta) {
  require_budget(n, epsilon, delta);
  const double dn = static_cast<double>(n);
  return histogram_constant(n, epsilon, delta) * std::exp(-0.25 * epsilon * dn * eta) +
         2.0 * std::exp(-dn * eta * eta / 8.0);
}

double histogram_population_threshold_iid(std::size_t n, double epsilon, double delta, double q) {
  require_budget(n, epsilon, delta);
  require_level(q, "q");
  return invert_decreasing(
      [&](double eta) { return histogram_population_bound_iid(n, epsilon, delta, eta); }, q, 0.1);
}

double gaussian_bin_mass(double mu, double width, long long k) {
  require(width > 0, "width", width, "must be > 0");
  const auto cdf = [&](double x) { return 0.5 * std::erfc(-(x - mu) / std::sqrt(2.0)); };
  const double dk = static_cast<double>(k);
  return cdf(width * (dk + 0.5)) - cdf(width * (dk - 0.5));
}

double histogram_failure_bound(std::size_t n, double epsilon, double delta) {
  require_budget(n, epsilon, delta);
  const double dn = static_cast<double>(n);
  return std::exp(0.5 * epsilon) / delta * std::exp(-dn * epsilon / 8.0) +
         2.0 * std::exp(-dn / 128.0);
}

double local_histogram_data_bound(std::size_t n, std::size_t bins, double epsilon, double eta) {
  require(n >= 1, "n", 0.0, "must be >= 1");
  require(bins >= 1, "bins", 0.0, "must be >= 1");
  require(epsilon > 0, "epsilon", epsilon, "must be > 0");
  const double th = std::tanh(0.25 * epsilon);
  return 2.0 * static_cast<double>(bins) *
         std::exp(-static_cast<double>(n) * eta * eta * th * th / 4.0);
}

double local_histogram_data_threshold(std::size_t n, std::size_t bins, double epsilon, double q) {
  require(n >= 1, "n", 0.0, "must be >= 1");
  require(bins >= 1, "bins", 0.0, "must be >= 1");
  require(epsilon > 0, "epsilon", epsilon, "must be > 0");
  require_level(q, "q");
  return 2.0 / std::tanh(0.25 * epsilon) *
         std::sqrt(std::log(2.0 * static_cast<double>(bins) / q) / static_cast<double>(n));
}

double mean_sup_radius(double rho, std::size_t n, std::size_t d, double alpha) {
  require(rho > 0, "rho", rho, "must be > 0");
  require(n >= 1, "n", 0.0, "must be >= 1");
  require(d >= 1, "d", 0.0, "must be >= 1");
  require_level(alpha, "alpha");
  return std::sqrt(2.0 * rho * std::log(2.0 * static_cast<double>(d) / alpha) /
                   static_cast<double>(n));
}

double mean_l2_radius(double rho, std::size_t n, std::size_t d, double alpha) {
  return std::sqrt(static_cast<double>(d)) * mean_sup_radius(rho, n, d, alpha);
}

double lipschitz_deviation(double rho, double lipschitz, double alpha) {
  require(rho > 0, "rho", rho, "must be > 0");
  require(lipschitz > 0, "lipschitz", lipschitz, "must be > 0");
  require_level(alpha, "alpha");
  return std::sqrt(2.0 * rho * lipschitz * lipschitz * std::log(2.0 / alpha));
}

double dkw_lsi_bound(std::size_t n, double rho, double lipschitz_cdf, double r) {
  require(n >= 1, "n", 0.0, "must be >= 1");
  require(rho > 0, "rho", rho, "must be > 0");
  require(lipschitz_cdf > 0, "lipschitz_cdf", lipschitz_cdf, "must be > 0");
  require(r > 0, "r", r, "must be > 0");
  return 4.0 / r *
         std::exp(-2.0 / 27.0 * static_cast<double>(n) * r * r * r /
                  (rho * lipschitz_cdf * lipschitz_cdf));
}

double dkw_lsi_threshold(std::size_t n, double rho, double lipschitz_cdf, double q) {
  require_level(q, "q");
  return invert_decreasing(
      [&](double r) { return dkw_lsi_bound(n, rho, lipschitz_cdf, r); }, q, 0.5);
}

}  // namespace dpx::experiments::s1_theory
