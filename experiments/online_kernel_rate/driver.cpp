// Driver `online_kernel_rate`: DP online kernel regression (Nie & Wang 2017;
// docs/theory/online-kernel.md) — error against the number of steps t.
//
// Target f_rho = s sum_j b_j K(c_j, .) (Gaussian kernel, bandwidth h, 5 fixed centres on [0, 1];
// s = target_scale, 1 by default), so ||f_t - f_rho||_K is computed exactly from the two
// expansions. x ~ U[0, 1], y = f_rho(x) + U(-a, a) with |y| <= M = 1. target_scale = 0 is the
// case without regularisation bias (f_rho = 0, so f_lambda = (L_K + lambda)^-1 L_K f_rho = 0 for
// every lambda): the response is pure noise independent of x and the error is the sample error
// that the martingale argument of Nie & Wang (2017, proof of Theorem 2) bounds. After t steps
// (theta, t0 = (kappa^2 + 1)^(1/theta)):
//   rkhs_error        ||f_t - f_rho||_K (nonprivate part; the same for every epsilon)
//   l2_error          root mean square of f_t - f_rho on a 200-point grid of [0, 1]
//   l2_error_private  the same for per-query private answers f_t(x) + Lap(C_t/eps) (each answer
//                     is one eps-DP release of one value; eps = inf: no noise)
//   private_noise_rms root mean square of (private answer - f_t(x)) over 1000 further answers on a
//                     grid of [0, 1] (after the 200 above, same noise stream): the measured
//                     per-query noise, expected sqrt(2) C_t / eps ~ t^-(2 theta - 1)
//                     (docs/theory/online-kernel.md)
//   private_noise_root  private_noise_rms^(1/(2 theta - 1)): expected slope -1 for every theta, so
//                     one gated rate can group the thetas (medians commute with the power)
//   approx_error      ||f_lambda - f_rho||_K at lambda = lambda_{t-1} (Nystrom, 400 nodes)
//   sample_error      ||f_t - f_lambda||_K (the rest: martingale noise and path drift)
//   error_over_approx rkhs_error / approx_error (NaN when f_rho = 0)
//   privacy_noise_sd  sqrt(2) C_t / eps, C_t = 2 kappa^2 (kappa^2 + 1) M / (t - 1 + t0)^(2 theta -
//   1) bound             Theorem 2's C_eps t^-(theta - 1/2) (without the 4/delta factor), C_eps =
//                     4(kappa^2+1) kappa M / eps + t0 ||f_rho||_K + (11/3)(kappa M +
//                     (kappa^2+1)||f_rho||_K)
// Theorem 1 measured (cells with epsilon = inf, replications r < sensitivity_replications; NaN
// elsewhere): over neighbouring sequences of the nonprivate learner that differ in ONE example at
// position j in {first, middle, last} (replace-one at any position, docs/theory/online-kernel.md),
// two replacements each — "flip" (x_j, +M) against (x_j, -M), and "move" the stream's (x_j, y_j)
// against (x_j + 1/2 mod 1, -sign(y_j) M) — both sequences run through the library's learner:
//   sens_sup          max over the pairs of sup_x |f_t(x) - f'_t(x)| (1001-point grid of [0, 1]
//                     plus the two replaced centres)
//   sens_rkhs         max over the pairs of ||f_t - f'_t||_K (exact, from the expansions)
//   sens_sup_ratio    sens_sup / C_t, C_t = 2 kappa^2 (kappa^2 + 1) M / (t - 1 + t0)^(2 theta - 1)
//                     (eq. (17) with kappa = 1, M = 1, computed here from the formula)
//   sens_rkhs_ratio   sens_rkhs / D_t, D_t = 2 eta_{t-1} kappa (kappa^2 M / lambda_{t-1} + M)
//   sens_early_ratio  the sup-norm difference of the pairs changed at the first and middle
//                     positions only, / C_t (the correction OKL.fix.any-position)
// `sensitivity_bound = "early_at_change"` (negative control of sens_early_ratio only; the bounds
// stay C_t and D_t) takes the early pairs' difference right after the changed step j,
// f_{j+1} - f'_{j+1} (= 2 M eta_j K_{x_j} for a flip), as if it reached time t without the
// contraction of the steps j+1..t that the correction's argument rests on; it is divided by the
// same C_t. The other metrics are unchanged (and so is every cell with another value). At j = 0
// the flip's difference is 2 kappa^2 M eta_0 = 2 kappa^2 M t0^-theta = 2 kappa^2 M / (kappa^2 + 1),
// so its ratio to C_t is (t - 1 + t0)^(2 theta - 1) / (kappa^2 + 1)^2, above 1 once
// t - 1 + t0 > 4^(1/(2 theta - 1)) (kappa = 1): 1024 / 16 / 5.7 at theta = 0.6 / 0.75 / 0.9.
// `sensitivity_bound = "inv_t"` (negative control) divides by the bounds with the power of t of a
// batch average's sensitivity, (t - 1 + t0)^-1, in place of (t - 1 + t0)^-(2 theta - 1) (and of
// eta_{t-1}/lambda_{t-1}, eta_{t-1}): a bound that decays too fast, which the measured
// differences (~ 2 kappa^2 M eta_{t-1}: the flip at the last position) exceed once
// (t + t0)^(1 - theta) > kappa^2 + 1.
// Data are keyed on (t, theta, h, noise): every epsilon and every target_scale sees the same
// stream (common random numbers: the same x and response noise, only f_rho differs).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/harness/driver.hpp"
#include "dpx/solvers/online_kernel.hpp"

namespace dpx::experiments::online_kernel_rate {
namespace {

using harness::cell_context;
using harness::metrics;

constexpr double kCentres[5] = {0.1, 0.3, 0.5, 0.7, 0.9};
constexpr double kWeights[5] = {0.5, -0.4, 0.45, -0.35, 0.3};

/// The measured sensitivity of the nonprivate learner at t (see the file comment).
struct sensitivity {
  double sup = 0, rkhs = 0, sup_early = 0;
};

/// sup and RKHS norm of f_A - f_B, two learners that saw the same examples except at index j.
/// Coefficients before j are bit-identical (same raw coefficients, same data-independent scale),
/// so only the terms from j on are summed.
template <class Kernel>
std::pair<double, double> difference_norms(const solvers::online_kernel_regression& a,
                                           const solvers::online_kernel_regression& b,
                                           std::size_t j,
                                           const Kernel& K) {
  const auto ca = a.coefficients(), cb = b.coefficients();
  const auto &xa = a.centres(), &xb = b.centres();
  std::vector<double> z, d;  // the difference's centres and coefficients
  for (std::size_t i = j; i < ca.size(); ++i) {
    if (xa[i] == xb[i]) {
      z.push_back(xa[i]);
      d.push_back(ca[i] - cb[i]);
    } else {
      z.insert(z.end(), {xa[i], xb[i]});
      d.insert(d.end(), {ca[i], -cb[i]});
    }
  }
  double norm2 = 0;
  for (std::size_t u = 0; u < z.size(); ++u) {
    double row = 0;
    for (std::size_t v = 0; v < u; ++v) row += d[v] * K(z[u], z[v]);
    norm2 += d[u] * (2 * row + d[u] * K(z[u], z[u]));
  }
  std::vector<double> pts(1001);
  for (std::size_t g = 0; g < pts.size(); ++g) pts[g] = double(g) / 1000.0;
  pts.insert(pts.end(), {xa[j], xb[j]});
  double sup = 0;
  for (const double x : pts) {
    double v = 0;
    for (std::size_t u = 0; u < z.size(); ++u) v += d[u] * K(z[u], x);
    sup = std::fmax(sup, std::fabs(v));
  }
  return {sup, std::sqrt(std::fmax(norm2, 0.0))};
}

template <class Kernel>
sensitivity measure_sensitivity(const solvers::online_kernel_regression& empty,
                                const std::vector<double>& xs,
                                const std::vector<double>& ys,
                                const Kernel& K,
                                bool early_at_change) {
  const std::size_t t = xs.size();
  const double m = 1.0;  // M: responses are clamped to [-1, 1]
  std::vector<std::size_t> positions{0, t / 2, t - 1};
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  const auto feed = [&](solvers::online_kernel_regression& f, std::size_t from) {
    double x[1];
    for (std::size_t s = from; s < t; ++s) {
      x[0] = xs[s];
      f.update(x, ys[s]);
    }
  };
  auto base = empty;
  std::vector<solvers::online_kernel_regression> prefix;  // f_j for each position j
  double x[1];
  for (std::size_t s = 0, next = 0; s < t; ++s) {
    if (next < positions.size() && positions[next] == s) {
      prefix.push_back(base);
      ++next;
    }
    x[0] = xs[s];
    base.update(x, ys[s]);
  }
  sensitivity out;
  for (std::size_t k = 0; k < positions.size(); ++k) {
    const std::size_t j = positions[k];
    auto hi = prefix[k], lo = prefix[k], moved = prefix[k];
    x[0] = xs[j];
    hi.update(x, m);
    lo.update(x, -m);
    x[0] = std::fmod(xs[j] + 0.5, 1.0);
    moved.update(x, ys[j] >= 0 ? -m : m);
    if (early_at_change && j + 1 < t) {  // negative control: the difference before contraction
      auto kept = prefix[k];
      x[0] = xs[j];
      kept.update(x, ys[j]);
      for (const auto& [a, b] : {std::pair{&hi, &lo}, std::pair{&kept, &moved}})
        out.sup_early = std::fmax(out.sup_early, difference_norms(*a, *b, j, K).first);
    }
    feed(hi, j + 1);
    feed(lo, j + 1);
    feed(moved, j + 1);
    for (const auto& [a, b] : {std::pair{&hi, &lo}, std::pair{&base, &moved}}) {
      const auto [sup, rkhs] = difference_norms(*a, *b, j, K);
      out.sup = std::fmax(out.sup, sup);
      out.rkhs = std::fmax(out.rkhs, rkhs);
      if (j + 1 < t && !early_at_change) out.sup_early = std::fmax(out.sup_early, sup);
    }
  }
  return out;
}

metrics run(const cell_context& ctx) {
  const auto& p = ctx.params;
  const std::int64_t t = p.get_int("t");
  const double theta = p.get_double("theta");
  const double eps = p.get_double("epsilon");
  const double h = p.get_double("bandwidth");
  const double a = p.get_double("noise");
  core::check_at_least("online_kernel_rate", "t", t, 1);
  core::check_closed_interval("online_kernel_rate", "noise", a, 0.0, 0.25);
  const double scale = p.get_double("target_scale");
  // sup |f_rho| = 0.34 on [0, 1] at s = 1 and a <= 0.25: s <= 1 keeps |y| <= M = 1.
  core::check_closed_interval("online_kernel_rate", "target_scale", scale, 0.0, 1.0);
  double weights[5];
  for (int j = 0; j < 5; ++j) weights[j] = scale * kWeights[j];
  const solvers::kernel k{solvers::kernel_kind::gaussian, h};
  const auto K = [&](double u, double v) { return std::exp(-(u - v) * (u - v) / (2 * h * h)); };
  const auto f_rho = [&](double x) {
    double s = 0;
    for (int j = 0; j < 5; ++j) s += weights[j] * K(kCentres[j], x);
    return s;
  };
  double norm_rho2 = 0;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) norm_rho2 += weights[i] * weights[j] * K(kCentres[i], kCentres[j]);
  solvers::online_kernel_options o;
  o.theta = theta;
  o.output_bound = 1.0;
  o.privacy =
      std::isfinite(eps) ? solvers::kernel_privacy::per_query : solvers::kernel_privacy::none;
  if (std::isfinite(eps)) o.target = core::epsilon_delta{eps, 1e-5};  // delta unused per query
  o.noise_kind = mechanisms::noise_kind::research_grade;              // the paper's mechanism
  solvers::online_kernel_regression f(k, 1, o);
  auto data = ctx.stream(rng::purpose::data);
  std::vector<double> data_x(static_cast<std::size_t>(t)), data_y(data_x.size());
  double x[1];
  for (std::size_t s = 0; s < data_x.size(); ++s) {
    data_x[s] = data.uniform01();
    data_y[s] = f_rho(data_x[s]) + a * (2 * data.uniform01() - 1);
    x[0] = data_x[s];
    f.update(x, data_y[s]);
  }
  // Theorem 1, measured on the nonprivate learner (epsilon = inf cells only: it does not depend
  // on epsilon) in the first sensitivity_replications replications.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  sensitivity sens{nan, nan, nan};
  double c_bound = nan, d_bound = nan;
  if (!std::isfinite(eps) && ctx.replication < p.get_int("sensitivity_replications")) {
    solvers::online_kernel_options on = o;
    on.privacy = solvers::kernel_privacy::none;
    sens = measure_sensitivity(solvers::online_kernel_regression(k, 1, on),
                               data_x,
                               data_y,
                               K,
                               p.get_string("sensitivity_bound") == "early_at_change");
    const double kappa = 1.0, m = 1.0, base = double(t) - 1.0 + f.t0();
    const bool control = p.get_string("sensitivity_bound") == "inv_t";
    const double eta = std::pow(base, -theta), lambda = std::pow(base, -(1.0 - theta));
    c_bound = 2 * kappa * kappa * (kappa * kappa + 1) * m *
              (control ? 1.0 / base : std::pow(base, -(2 * theta - 1)));
    d_bound = control ? 2 * kappa * (kappa * kappa + 1) * m / base
                      : 2 * eta * kappa * (kappa * kappa * m / lambda + m);
  }
  // ||f_t - f_rho||_K^2 = c^T K_xx c - 2 c^T K_xc b + b^T K_cc b.
  const auto c = f.coefficients();
  const auto& xs = f.centres();
  double quad = 0, cross = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    double row = 0;
    for (std::size_t j = 0; j < i; ++j) row += c[j] * K(xs[i], xs[j]);
    quad += c[i] * (2 * row + c[i]);
    for (int j = 0; j < 5; ++j) cross += c[i] * weights[j] * K(xs[i], kCentres[j]);
  }
  const double rkhs = std::sqrt(std::fmax(quad - 2 * cross + norm_rho2, 0.0));
  // The regularisation path f_lambda = (L_K + lambda)^{-1} L_K f_rho at the lambda of the last
  // step, by Nystrom on the midpoint rule of U[0, 1] (N points; the integrand is smooth on the
  // scale h = 0.2 >> 1/N): f_lambda = sum_i alpha_i K(g_i, .) with (K_GG + N lambda I) alpha =
  // f_rho(G). Splits the error into approximation ||f_lambda - f_rho||_K (the bias the paper's
  // proof drops: E B_t = -eta_t lambda_t f_rho is not a martingale difference) and the rest.
  const int nq = 400;
  const double lam = t > 0 ? f.lambda(t - 1) : f.lambda(0);
  std::vector<double> gq(nq), kq(std::size_t(nq) * nq), alpha(nq);
  for (int i = 0; i < nq; ++i) gq[i] = (i + 0.5) / nq;
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nq; ++j)
      kq[std::size_t(i) * nq + j] = K(gq[i], gq[j]) + (i == j ? nq * lam : 0.0);
  for (int j = 0; j < nq; ++j) {  // Cholesky in place (lower), SPD: N lambda > 0 on the diagonal
    double dj = kq[std::size_t(j) * nq + j];
    for (int k2 = 0; k2 < j; ++k2)
      dj -= kq[std::size_t(j) * nq + k2] * kq[std::size_t(j) * nq + k2];
    dj = std::sqrt(dj);
    kq[std::size_t(j) * nq + j] = dj;
    for (int i = j + 1; i < nq; ++i) {
      double v = kq[std::size_t(i) * nq + j];
      for (int k2 = 0; k2 < j; ++k2)
        v -= kq[std::size_t(i) * nq + k2] * kq[std::size_t(j) * nq + k2];
      kq[std::size_t(i) * nq + j] = v / dj;
    }
  }
  for (int i = 0; i < nq; ++i) {  // forward
    double v = f_rho(gq[i]);
    for (int k2 = 0; k2 < i; ++k2) v -= kq[std::size_t(i) * nq + k2] * alpha[k2];
    alpha[i] = v / kq[std::size_t(i) * nq + i];
  }
  for (int i = nq - 1; i >= 0; --i) {  // backward
    double v = alpha[i];
    for (int k2 = i + 1; k2 < nq; ++k2) v -= kq[std::size_t(k2) * nq + i] * alpha[k2];
    alpha[i] = v / kq[std::size_t(i) * nq + i];
  }
  double aka = 0, akb = 0, akc = 0;  // alpha^T K alpha, alpha^T K_Gc b, alpha^T K_Gx c
  for (int i = 0; i < nq; ++i) {
    double row = 0;
    for (int j = 0; j < nq; ++j) row += K(gq[i], gq[j]) * alpha[j];
    aka += alpha[i] * row;
    for (int j = 0; j < 5; ++j) akb += alpha[i] * K(gq[i], kCentres[j]) * weights[j];
    double rx = 0;
    for (std::size_t j = 0; j < c.size(); ++j) rx += K(gq[i], xs[j]) * c[j];
    akc += alpha[i] * rx;
  }
  const double approx = std::sqrt(std::fmax(aka - 2 * akb + norm_rho2, 0.0));
  const double sample = std::sqrt(std::fmax(quad - 2 * akc + aka, 0.0));
  auto noise = ctx.stream(rng::purpose::noise);
  double l2 = 0, l2p = 0, noise2 = 0;
  const int grid = 200;
  for (int g = 0; g < grid; ++g) {
    x[0] = (g + 0.5) / grid;
    const double truth = f_rho(x[0]);
    const double v = f.predict(x);
    const double vp = std::isfinite(eps) ? f.predict_private(x, noise) : v;
    l2 += (v - truth) * (v - truth) / grid;
    l2p += (vp - truth) * (vp - truth) / grid;
  }
  // The measured per-query noise from 1000 further answers (the RMS of 200 Laplace draws has a
  // relative sd of 7.9% per replication; 1000 draws: 3.5%).
  const int noise_answers = 1000;
  if (std::isfinite(eps)) {
    for (int g = 0; g < noise_answers; ++g) {
      x[0] = (g + 0.5) / noise_answers;
      const double v = f.predict(x);
      const double vp = f.predict_private(x, noise);
      noise2 += (vp - v) * (vp - v) / noise_answers;
    }
  }
  const double kappa = 1.0, m = 1.0, t0 = f.t0(), norm_rho = std::sqrt(norm_rho2);
  const double c_eps = (std::isfinite(eps) ? 4 * (kappa * kappa + 1) * kappa * m / eps : 0.0) +
                       t0 * norm_rho + 11.0 / 3.0 * (kappa * m + (kappa * kappa + 1) * norm_rho);
  return {
      {"rkhs_error", rkhs},
      {"l2_error", std::sqrt(l2)},
      {"l2_error_private", std::sqrt(l2p)},
      {"privacy_noise_sd", std::isfinite(eps) ? std::sqrt(2.0) * f.sup_sensitivity() / eps : 0.0},
      {"private_noise_rms", std::sqrt(noise2)},
      {"private_noise_root", std::pow(std::sqrt(noise2), 1.0 / (2 * theta - 1))},
      {"approx_error", approx},
      {"sample_error", sample},
      {"error_over_approx", approx > 0 ? rkhs / approx : nan},
      {"bound", c_eps * std::pow(double(t), -(theta - 0.5))},
      {"sens_sup", sens.sup},
      {"sens_rkhs", sens.rkhs},
      {"sens_sup_ratio", sens.sup / c_bound},
      {"sens_rkhs_ratio", sens.rkhs / d_bound},
      {"sens_early_ratio", sens.sup_early / c_bound}};
}

harness::driver make_driver() {
  harness::driver d;
  d.name = "online_kernel_rate";
  d.version = "6";
  d.description =
      "DP online kernel regression (Nie & Wang 2017): RKHS and L2 error against t, per-query "
      "Laplace";
  d.params = {
      {"t", "number of online steps (>= 1)", std::nullopt, harness::integer_at_least(1)},
      {"theta", "step exponent in (1/2, 1)", std::nullopt},
      {"epsilon", "per-query epsilon (> 0; inf = nonprivate)", std::nullopt},
      {"bandwidth", "Gaussian kernel bandwidth", harness::param_value{0.2}, harness::positive()},
      {"noise",
       "response noise half-width a (y = f + U(-a, a)), <= 0.25",
       harness::param_value{0.2}},
      {"sensitivity_bound",
       "theorem (eq. (17)'s C_t, Lemma 2's D_t) | inv_t (negative control: power of t -1) | "
       "early_at_change (negative control of sens_early_ratio: the early pairs' difference right "
       "after the changed step, without the contraction, over C_t)",
       harness::param_value{std::string("theorem")},
       harness::one_of({"theorem", "inv_t", "early_at_change"})},
      {"target_scale",
       "scale s of the target f_rho = s sum_j b_j K(c_j, .), in [0, 1]; 0: f_rho = 0, no "
       "regularisation bias (positive control of Theorem 2's rate)",
       harness::param_value{1.0}},
      {"sensitivity_replications",
       "replications (epsilon = inf cells) that measure Theorem 1's sensitivity; NaN in others",
       harness::param_value{std::int64_t{4}},
       harness::integer_at_least(0)},
  };
  d.data_keys = {"t", "theta", "bandwidth", "noise"};
  d.metric_names = harness::metric_list(
      "rkhs_error l2_error l2_error_private privacy_noise_sd private_noise_rms private_noise_root "
      "approx_error sample_error error_over_approx bound sens_sup sens_rkhs sens_sup_ratio "
      "sens_rkhs_ratio "
      "sens_early_ratio");
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make_driver()};

}  // namespace
}  // namespace dpx::experiments::online_kernel_rate
