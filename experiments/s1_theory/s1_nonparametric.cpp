// Priestley–Chao oracles from a cell's inputs (s1_nonparametric.hpp;
// docs/theory/dependent-data.md §11).
#include "s1_nonparametric.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "dpx/core/error.hpp"

namespace dpx::experiments::s1_theory {

namespace {
void require(bool ok, const char* parameter, double value, const char* what) {
  if (!ok) core::throw_invalid("s1_nonparametric", parameter, value, what);
}
}  // namespace

double pc_kernel::operator()(double u) const {
  if (box) return std::fabs(u) <= 1.0 ? 0.5 : 0.0;
  return std::exp(-0.5 * u * u) / std::sqrt(2.0 * std::numbers::pi);
}

pc_kernel pc_kernel_named(const std::string& kernel) {
  if (kernel == "box") return {0.5, 1.0, 0.5, true};
  if (kernel == "gaussian") {
    const double s2pi = std::sqrt(2.0 * std::numbers::pi);
    return {1.0 / s2pi,
            1.0 / (s2pi * std::sqrt(std::numbers::e)),
            std::sqrt(2.0 / std::numbers::pi),
            false};
  }
  core::throw_invalid("s1_nonparametric", "kernel", kernel, "must be gaussian or box");
}

double pc_function::operator()(double x) const {
  if (shape == "vee") return amplitude * std::fabs(x - 0.5);
  if (shape == "sine") return amplitude * std::sin(2.0 * std::numbers::pi * x);
  if (shape == "bump") return amplitude * std::max(0.0, 1.0 - 4.0 * std::fabs(x - 0.5));
  core::throw_invalid("s1_nonparametric", "function", shape, "must be vee, sine or bump");
}

double pc_function::lipschitz() const {
  const double a = std::fabs(amplitude);
  if (shape == "vee") return a;
  if (shape == "sine") return 2.0 * std::numbers::pi * a;
  if (shape == "bump") return 4.0 * a;
  core::throw_invalid("s1_nonparametric", "function", shape, "must be vee, sine or bump");
}

double pc_function::sup_norm() const {
  const double a = std::fabs(amplitude);
  if (shape == "vee") return 0.5 * a;
  if (shape == "sine" || shape == "bump") return a;
  core::throw_invalid("s1_nonparametric", "function", shape, "must be vee, sine or bump");
}

double pc_exact_np_mse(
    const pc_function& f, const pc_kernel& k, std::size_t n, double phi, double x0, double b) {
  require(n >= 1, "n", 0.0, "must be >= 1");
  require(b > 0, "bandwidth", b, "must be > 0");
  require(std::fabs(phi) < 1.0, "phi", phi, "must be in (-1, 1)");
  const double dn = static_cast<double>(n);
  std::vector<double> w(n);
  double mean = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double xi = static_cast<double>(i) / dn;
    w[i] = k((xi - x0) / b) / (b * dn);
    mean += w[i] * f(xi);
  }
  const double bias = mean - f(x0);
  double q = 0, s = 0;
  for (std::size_t i = n; i-- > 0;) {
    q += w[i] * w[i] + 2.0 * w[i] * s;
    s = phi * (w[i] + s);
  }
  return bias * bias + q;
}

double pc_radius(const pc_kernel& k,
                 double bandwidth,
                 double lipschitz,
                 double sup_norm,
                 double sigma2,
                 std::size_t n,
                 double gamma) {
  const double b = bandwidth, dn = static_cast<double>(n);
  return b * (lipschitz * k.mu1 + sup_norm) +
         (lipschitz * k.sup + sup_norm * k.lipschitz +
          std::sqrt(2.0 * sigma2 * k.sup * std::log(2.0 * dn / gamma))) /
             b;
}

pc_prediction pc_oracle(const pc_cell& c) {
  require(c.n >= 1, "n", 0.0, "must be >= 1");
  require(c.epsilon > 0, "epsilon", c.epsilon, "must be > 0");
  require(c.gamma > 0 && c.gamma < 1, "gamma", c.gamma, "must be in (0, 1)");
  require(std::fabs(c.phi) < 1.0, "phi", c.phi, "must be in (-1, 1)");
  const pc_kernel k = pc_kernel_named(c.kernel);
  const pc_function f{c.function, c.amplitude};
  const double dn = static_cast<double>(c.n);
  pc_prediction p;
  p.sigma2_max = (1.0 + std::fabs(c.phi)) / (1.0 - std::fabs(c.phi));
  p.bandwidth = c.bandwidth > 0 ? c.bandwidth
                                : std::max(std::cbrt(p.sigma2_max / dn),
                                           std::sqrt(std::sqrt(p.sigma2_max) / (dn * c.epsilon)));
  const double b = p.bandwidth, lf = f.lipschitz(), fs = f.sup_norm();
  p.tau = pc_radius(k, b, lf, fs, p.sigma2_max, c.n, c.gamma);
  // Algorithm 4 on Z_i: sensitivity 2·3τ/n released at ε/2.
  p.laplace_scale = 12.0 * p.tau / (dn * c.epsilon);
  p.mse_np = pc_exact_np_mse(f, k, c.n, c.phi, c.x0, b);
  p.mse = p.mse_np + 2.0 * p.laplace_scale * p.laplace_scale;
  return p;
}

}  // namespace dpx::experiments::s1_theory
