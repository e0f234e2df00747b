// dd_local oracles from a cell's inputs (s1_local.hpp; docs/theory/dependent-data.md §11).
#include "s1_local.hpp"

#include <algorithm>
#include <cmath>

#include "dpx/core/error.hpp"
#include "s1_nonparametric.hpp"
#include "s1_theory.hpp"

namespace dpx::experiments::s1_theory {

namespace {

void require_local(bool ok, const char* parameter, double value, const char* what) {
  if (!ok) core::throw_invalid("s1_local", parameter, value, what);
}

}  // namespace

double random_effects_joint_rho(std::size_t group_size, std::size_t T, double phi, double sigma_u) {
  require_local(group_size >= 1, "group_size", 0.0, "must be >= 1");
  return sigma_u * sigma_u * static_cast<double>(group_size) * static_cast<double>(T) +
         ar1_lambda_max(phi, T);
}

double local_user_radius(double rho, std::size_t T, std::size_t n, std::size_t d, double epsilon) {
  require_local(rho > 0, "rho", rho, "must be > 0");
  require_local(T >= 1 && n >= 1 && d >= 1, "T", static_cast<double>(T), "T, n and d must be >= 1");
  const double dT = static_cast<double>(T), dn = static_cast<double>(n);
  const double arg = 2.0 * static_cast<double>(d) * dT * dn * dn * epsilon * epsilon;
  require_local(arg > 2.0 * static_cast<double>(d), "epsilon", epsilon, "must give T n eps^2 > 1");
  return std::sqrt(2.0 * rho * std::log(arg) / dT);
}

local_mean_prediction local_mean_oracle(const local_mean_cell& c) {
  require_local(c.n >= 1 && c.n % c.group_size == 0, "group_size", 0.0, "must divide n");
  require_local(c.epsilon > 0, "epsilon", c.epsilon, "must be > 0");
  const double dn = static_cast<double>(c.n), dT = static_cast<double>(c.T);
  local_mean_prediction p;
  p.rho = random_effects_joint_rho(c.group_size, c.T, c.phi, c.sigma_u);
  p.tau = local_user_radius(p.rho, c.T, c.n, 1, c.epsilon);
  p.laplace_scale = local_laplace_scale(3.0 * p.tau, c.epsilon);
  p.grand_mean_variance =
      (c.sigma_u * c.sigma_u * static_cast<double>(c.group_size) + ar1_mean_variance(c.phi, c.T)) /
      dn;
  p.mse = p.grand_mean_variance + 2.0 * p.laplace_scale * p.laplace_scale / dn;
  p.rate = p.rho * std::log(2.0 * dT * dn * dn * c.epsilon * c.epsilon) /
           (dT * dn * c.epsilon * c.epsilon);
  return p;
}

design_theta longitudinal_design_theta(std::size_t T) {
  require_local(T >= 1, "T", 0.0, "must be >= 1");
  const double dT = static_cast<double>(T);
  // m1 = mean of t/T = (T + 1)/(2T); m2 = mean of (t/T)² = (T + 1)(2T + 1)/(6T²).
  const double m1 = (dT + 1.0) / (2.0 * dT), m2 = (dT + 1.0) * (2.0 * dT + 1.0) / (6.0 * dT * dT);
  const double half_tr = 0.5 * (1.0 + m2), det = m2 - m1 * m1;
  const double disc = std::sqrt(std::max(0.0, half_tr * half_tr - det));
  return {std::min(half_tr - disc, 1.0), std::max(half_tr + disc, 1.0)};
}

local_regression_prediction local_regression_oracle(const local_regression_cell& c) {
  constexpr std::size_t kP = 3;
  require_local(c.T >= kP, "T", static_cast<double>(c.T), "must be >= 3");
  require_local(c.epsilon > 0, "epsilon", c.epsilon, "must be > 0");
  const double dn = static_cast<double>(c.n), dT = static_cast<double>(c.T), dp = kP;
  local_regression_prediction p;
  const design_theta th = longitudinal_design_theta(c.T);
  p.theta_lo = th.lo;
  p.theta_hi = th.hi;
  p.sigma2 = ar1_lambda_max(c.phi, c.T);
  p.tau =
      local_user_radius(p.theta_hi / (p.theta_lo * p.theta_lo) * p.sigma2, c.T, c.n, kP, c.epsilon);
  p.laplace_scale = local_laplace_scale(3.0 * p.tau, c.epsilon / dp);
  p.privacy_mse = dp * 2.0 * p.laplace_scale * p.laplace_scale / dn;
  p.rate = dp * dp * p.theta_hi * p.sigma2 *
           std::log(2.0 * dp * dT * dn * dn * c.epsilon * c.epsilon) /
           (p.theta_lo * p.theta_lo * dT * dn * c.epsilon * c.epsilon);
  return p;
}

local_priestley_chao_prediction local_priestley_chao_oracle(const local_priestley_chao_cell& c) {
  require_local(c.n >= 1, "n", 0.0, "must be >= 1");
  require_local(c.epsilon > 0, "epsilon", c.epsilon, "must be > 0");
  require_local(std::fabs(c.phi) < 1, "phi", c.phi, "must be in (-1, 1)");
  require_local(c.gamma > 0 && c.gamma < 1, "gamma", c.gamma, "must be in (0, 1)");
  const double dn = static_cast<double>(c.n);
  local_priestley_chao_prediction p;
  p.noise_variance_max = (1.0 + std::fabs(c.phi)) / (1.0 - std::fabs(c.phi));
  const double s2 = p.noise_variance_max, sm = std::sqrt(s2);
  p.bandwidth = std::max(std::cbrt(s2 / dn), std::sqrt(sm / (std::sqrt(dn) * c.epsilon)));
  const double b = p.bandwidth;
  p.tau = pc_radius(pc_kernel_named("gaussian"), b, c.lipschitz, c.sup_norm, s2, c.n, c.gamma);
  p.rate = (b * p.tau) * (b * p.tau) / s2 * sm / (std::sqrt(dn) * c.epsilon);
  return p;
}

}  // namespace dpx::experiments::s1_theory
