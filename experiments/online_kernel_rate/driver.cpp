// Driver `online_kernel_rate`: DP online kernel regression (seed 004, Nie & Wang 2017; spec
// shared/spec/online-kernel.md) — error against the number of steps t.
//
// Target f_rho = sum_j b_j K(c_j, .) (Gaussian kernel, bandwidth h, 5 fixed centres on [0, 1]), so
// ||f_t - f_rho||_K is computed exactly from the two expansions. x ~ U[0, 1], y = f_rho(x) + U(-a,
// a) with |y| <= M = 1. After t steps (theta, t0 = (kappa^2 + 1)^(1/theta)):
//   rkhs_error        ||f_t - f_rho||_K (nonprivate part; the same for every epsilon)
//   l2_error          root mean square of f_t - f_rho on a 200-point grid of [0, 1]
//   l2_error_private  the same for per-query private answers f_t(x) + Lap(C_t/eps) (each answer
//                     is one eps-DP release of one value; eps = inf: no noise)
//   privacy_noise_sd  sqrt(2) C_t / eps, C_t = 2 kappa^2 (kappa^2 + 1) M / (t - 1 + t0)^(2 theta -
//   1) bound             Theorem 2's C_eps t^-(theta - 1/2) (without the 4/delta factor), C_eps =
//                     4(kappa^2+1) kappa M / eps + t0 ||f_rho||_K + (11/3)(kappa M +
//                     (kappa^2+1)||f_rho||_K)
// Data are keyed on (t, theta, h, noise): every epsilon sees the same stream (common random
// numbers).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/harness/driver.hpp"
#include "dpx/solvers/online_kernel.hpp"

namespace dpx::experiments {
namespace {

using harness::cell_context;
using harness::metrics;

constexpr double kCentres[5] = {0.1, 0.3, 0.5, 0.7, 0.9};
constexpr double kWeights[5] = {0.5, -0.4, 0.45, -0.35, 0.3};

metrics run(const cell_context& ctx) {
  const auto& p = ctx.params;
  const std::int64_t t = p.get_int("t");
  const double theta = p.get_double("theta");
  const double eps = p.get_double("epsilon");
  const double h = p.get_double("bandwidth");
  const double a = p.get_double("noise");
  core::check_at_least("online_kernel_rate", "t", t, 1);
  core::check_closed_interval("online_kernel_rate", "noise", a, 0.0, 0.25);
  const solvers::kernel k{solvers::kernel_kind::gaussian, h};
  const auto K = [&](double u, double v) { return std::exp(-(u - v) * (u - v) / (2 * h * h)); };
  const auto f_rho = [&](double x) {
    double s = 0;
    for (int j = 0; j < 5; ++j) s += kWeights[j] * K(kCentres[j], x);
    return s;
  };
  double norm_rho2 = 0;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      norm_rho2 += kWeights[i] * kWeights[j] * K(kCentres[i], kCentres[j]);
  solvers::online_kernel_options o;
  o.theta = theta;
  o.output_bound = 1.0;
  o.privacy =
      std::isfinite(eps) ? solvers::kernel_privacy::per_query : solvers::kernel_privacy::none;
  o.epsilon = std::isfinite(eps) ? eps : 1.0;
  solvers::online_kernel_regression f(k, 1, o);
  auto data = ctx.stream(rng::purpose::data);
  double x[1];
  for (std::int64_t s = 0; s < t; ++s) {
    x[0] = data.uniform01();
    f.update(x, f_rho(x[0]) + a * (2 * data.uniform01() - 1));
  }
  // ||f_t - f_rho||_K^2 = c^T K_xx c - 2 c^T K_xc b + b^T K_cc b.
  const auto c = f.coefficients();
  const auto& xs = f.centres();
  double quad = 0, cross = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    double row = 0;
    for (std::size_t j = 0; j < i; ++j) row += c[j] * K(xs[i], xs[j]);
    quad += c[i] * (2 * row + c[i]);
    for (int j = 0; j < 5; ++j) cross += c[i] * kWeights[j] * K(xs[i], kCentres[j]);
  }
  const double rkhs = std::sqrt(std::fmax(quad - 2 * cross + norm_rho2, 0.0));
  auto noise = ctx.stream(rng::purpose::noise);
  double l2 = 0, l2p = 0;
  const int grid = 200;
  for (int g = 0; g < grid; ++g) {
    x[0] = (g + 0.5) / grid;
    const double truth = f_rho(x[0]);
    const double v = f.predict(x);
    const double vp = std::isfinite(eps) ? f.predict_private(x, noise) : v;
    l2 += (v - truth) * (v - truth) / grid;
    l2p += (vp - truth) * (vp - truth) / grid;
  }
  const double kappa = 1.0, m = 1.0, t0 = f.t0(), norm_rho = std::sqrt(norm_rho2);
  const double c_eps = (std::isfinite(eps) ? 4 * (kappa * kappa + 1) * kappa * m / eps : 0.0) +
                       t0 * norm_rho + 11.0 / 3.0 * (kappa * m + (kappa * kappa + 1) * norm_rho);
  return {
      {"rkhs_error", rkhs},
      {"l2_error", std::sqrt(l2)},
      {"l2_error_private", std::sqrt(l2p)},
      {"privacy_noise_sd", std::isfinite(eps) ? std::sqrt(2.0) * f.sup_sensitivity() / eps : 0.0},
      {"bound", c_eps * std::pow(double(t), -(theta - 0.5))}};
}

harness::driver make_driver() {
  harness::driver d;
  d.name = "online_kernel_rate";
  d.version = "1";
  d.description =
      "DP online kernel regression (seed 004): RKHS and L2 error against t, per-query Laplace";
  d.params = {
      {"t", "number of online steps (>= 1)", std::nullopt},
      {"theta", "step exponent in (1/2, 1)", std::nullopt},
      {"epsilon", "per-query epsilon (> 0; inf = nonprivate)", std::nullopt},
      {"bandwidth", "Gaussian kernel bandwidth", harness::param_value{0.2}},
      {"noise",
       "response noise half-width a (y = f + U(-a, a)), <= 0.25",
       harness::param_value{0.2}},
  };
  d.data_keys = {"t", "theta", "bandwidth", "noise"};
  d.metric_names = {"rkhs_error", "l2_error", "l2_error_private", "privacy_noise_sd", "bound"};
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make_driver()};

}  // namespace
}  // namespace dpx::experiments
