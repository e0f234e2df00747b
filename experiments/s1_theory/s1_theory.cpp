// S1 oracles from a cell's inputs (s1_theory.hpp; docs/theory/dependent-data.md §11).
#include "s1_theory.hpp"

#include <cmath>
#include <vector>

#include "dpx/core/error.hpp"

namespace dpx::experiments::s1_theory {

namespace {

void require(bool ok, const char* parameter, double value, const char* what) {
  if (!ok) core::throw_invalid("s1_theory", parameter, value, what);
}

/// Number of eigenvalues < x of the symmetric tridiagonal matrix (diag a, off-diagonal e):
/// the sign changes of the Sturm sequence (LDLᵀ pivots of A − xI).
std::size_t count_below(const std::vector<double>& a, double e, double x) {
  std::size_t count = 0;
  double q = 1.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double off = i == 0 ? 0.0 : e * e / q;
    q = a[i] - x - off;
    if (q == 0.0) q = -1e-300;  // a pivot exactly at 0 counts as negative (x is an eigenvalue)
    if (q < 0) ++count;
  }
  return count;
}

}  // namespace

double ar1_lambda_max(double phi, std::size_t T) {
  require(std::fabs(phi) < 1.0, "phi", phi, "must be in (-1, 1)");
  require(T >= 1, "T", 0.0, "must be >= 1");
  if (T == 1 || phi == 0.0) return 1.0;
  // Σ⁻¹ = (1/(1−φ²)) tridiag(−φ; 1, 1+φ², …, 1+φ², 1): λ_max(Σ) = (1−φ²)/λ_min(tridiag).
  std::vector<double> a(T, 1.0 + phi * phi);
  a.front() = a.back() = 1.0;
  // Gershgorin: λ_min(tridiag) ∈ [0, 1 + φ² + 2|φ|]; the matrix is positive definite.
  double lo = 0.0, hi = (1.0 + std::fabs(phi)) * (1.0 + std::fabs(phi));
  for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (count_below(a, -phi, mid) >= 1)
      hi = mid;
    else
      lo = mid;
  }
  return (1.0 - phi * phi) / (0.5 * (lo + hi));
}

double ar1_mean_variance(double phi, std::size_t T) {
  require(std::fabs(phi) < 1.0, "phi", phi, "must be in (-1, 1)");
  require(T >= 1, "T", 0.0, "must be >= 1");
  const double dT = static_cast<double>(T);
  // The terms decay like |phi|^k: once the tail bound 2 T |phi|^k / (1 - |phi|) is below
  // rounding the rest is dropped, so T = 1e10 (dd_user_split) costs O(log(eps)/log|phi|), not T.
  double s = dT, pk = 1.0;
  const double tail = 2.0 * dT / (1.0 - std::fabs(phi));
  for (std::size_t k = 1; k < T; ++k) {
    pk *= phi;
    s += 2.0 * (dT - static_cast<double>(k)) * pk;
    if (std::fabs(pk) * tail <= 1e-17 * std::fabs(s)) break;
  }
  return s / (dT * dT);
}

double design_n_var_mean(const std::string& design, std::size_t n, double phi) {
  require(n >= 1, "n", 0.0, "must be >= 1");
  const double dn = static_cast<double>(n);
  if (design == "iid") return 1.0;
  if (design == "ar1") return dn * ar1_mean_variance(phi, n);
  if (design == "equi") return 1.0 + (dn - 1.0) * phi;
  if (design == "equi_inv_n") return n > 1 ? 2.0 : 1.0;
  if (design == "fgn") return std::pow(dn, 2.0 * phi - 1.0);
  core::throw_invalid("s1_theory", "design", design, "must be iid, ar1, equi, equi_inv_n or fgn");
}

double radius(double sigma2, std::size_t n, std::size_t d, double gamma) {
  require(sigma2 > 0, "sigma2", sigma2, "must be > 0");
  require(n >= 1, "n", 0.0, "must be >= 1");
  require(d >= 1, "d", 0.0, "must be >= 1");
  require(gamma > 0 && gamma < 1, "gamma", gamma, "must be in (0, 1)");
  return std::sqrt(2.0 * sigma2 *
                   std::log(2.0 * static_cast<double>(d) * static_cast<double>(n) / gamma));
}

double winsorized_laplace_scale(double interval_radius, std::size_t n, double epsilon) {
  require(interval_radius > 0, "interval_radius", interval_radius, "must be > 0");
  require(n >= 1, "n", 0.0, "must be >= 1");
  require(epsilon > 0, "epsilon", epsilon, "must be > 0");
  return 4.0 * interval_radius / (static_cast<double>(n) * epsilon);
}

double local_laplace_scale(double interval_radius, double epsilon) {
  return winsorized_laplace_scale(interval_radius, 1, epsilon);
}

double winsorized_oracle_mse(double var_mean, double laplace_scale) {
  return var_mean + 2.0 * laplace_scale * laplace_scale;
}

user_level_prediction user_level_oracle(const user_level_cell& c) {
  require(c.T >= 1, "T", 0.0, "must be >= 1");
  user_level_prediction p;
  p.rho_star = ar1_lambda_max(c.phi, c.T);
  p.tau = radius(p.rho_star / static_cast<double>(c.T), c.n, 1, c.gamma);
  p.laplace_scale = winsorized_laplace_scale(3.0 * p.tau, c.n, c.epsilon);
  p.mse = winsorized_oracle_mse(ar1_mean_variance(c.phi, c.T) / static_cast<double>(c.n),
                                p.laplace_scale);
  return p;
}

random_effects_prediction random_effects_oracle(const std::vector<std::size_t>& group_sizes,
                                                std::size_t T,
                                                double phi,
                                                double sigma_u,
                                                double epsilon,
                                                double gamma) {
  std::size_t n = 0;
  double sum_sq = 0;
  for (const std::size_t g : group_sizes) {
    n += g;
    sum_sq += static_cast<double>(g) * static_cast<double>(g);
  }
  require(n >= 1, "group_sizes", 0.0, "must sum to >= 1");
  const double dn = static_cast<double>(n), within = ar1_mean_variance(phi, T);
  random_effects_prediction p;
  p.user_mean_variance = sigma_u * sigma_u + within;
  p.grand_mean_variance = sigma_u * sigma_u * sum_sq / (dn * dn) + within / dn;
  p.tau = radius(p.user_mean_variance, n, 1, gamma);
  p.laplace_scale = winsorized_laplace_scale(3.0 * p.tau, n, epsilon);
  p.mse = winsorized_oracle_mse(p.grand_mean_variance, p.laplace_scale);
  return p;
}

}  // namespace dpx::experiments::s1_theory
