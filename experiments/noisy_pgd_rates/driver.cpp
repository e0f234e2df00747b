// Driver `noisy_pgd_rates`: the five log-log slopes of docs/theory/noisy-pgd.md ("Rates the
// experiments must show") for PGD and noisy PGD (the PGD lecture notes [NPGD]; dpx::solvers::pgd).
//
// Data (keyed on n, d, margin): y_i = +-1 with probability 1/2 and
//   x_i = y_i a e_1 + sqrt(1 - a^2) u_i,  u_i uniform on the unit sphere of span(e_2 .. e_d),
// so ||x_i|| = 1 exactly and m = (1/n) sum y_i x_i = a e_1 + O(1/sqrt n) (a = `margin`).
// Constraint set C: the L2 ball of radius r (`radius`), w_0 = 0, so R = r bounds ||w_0 - w*||.
// Losses (G = 1 = max ||x_i||):
//  * hinge: the smoothed hinge with smoothing h = 1 - r. Every margin y x^T w lies in [-r, r] on C,
//    i.e. in the hinge's linear piece, so L(w) = 1 - h/2 - m^T w on C: L* = 1 - h/2 - r ||m|| and
//    w* = r m / ||m|| exactly, and every per-example gradient is -y_i x_i (norm 1, untouched by
//    clipping at G = 1). The driver therefore runs pgd() on `linear_piece`, whose (clipped)
//    gradient is the constant -m — O(d) per iteration instead of O(nd) — and checks at the end
//    that dpx::losses::glm_loss(smoothed_hinge, h) gives the same value at the output (to
//    1e-12 + 4e-16 n, the rounding of a mean over n examples).
//    A linear loss on a ball is the case in which Theorem 1's R G / sqrt(T) is attained (the
//    averaged iterate carries the approach transient): r / (2 sqrt T) to leading order for T >=
//    1/||m||^2.
//  * logistic: glm_loss on the same data (a curved private loss, the non-degenerate problem: the
//    excess is not a linear function of the iterate); the data are separable along e_1, so the
//    constraint is active; L* from 3000 projected-gradient steps with step 1 / L_s (L_s the
//    power-iteration smoothness; nonprivate reference). Per-example gradients have norm <= 1.
//  * least_squares: the non-degenerate problem of least_squares.hpp — other data (x_i uniform on
//    the sphere, y_i = x_i^T w_o + e_i), an INTERIOR minimiser and curvature H = (1/n) sum x x^T
//    in every direction, G = r + r/3 + 0.1; the privacy part has an exact oracle there.
//    Each replication averages 64 independent noisy runs (see `inner` in run()).
//
// Iterations: `iterations` > 0 is used as is; 0 means the tuned schedule (docs/theory/
//   noisy-pgd.md, "Rates"): T = round(c eps^2 n^2 / (d^p ln(1/delta))), p = 2 (per-coordinate
//   Laplace), p = 1 (L2 Laplace, Gaussian), c = `t_scale` (a constant: it does not change any
//   slope), and eta = R / (G sqrt T).
// Noise: dpx::solvers::pgd with clip G = 1, replace-one: `laplace_per_coordinate` (DRV advanced
// composition over T d releases, the PGD lecture notes' [NPGD] accounting), `laplace_l2`
// (L2-calibrated Laplace, DRV split over T), `gaussian` (tight), `none`.
// Oracles: every scale, variance and oracle below is the THEOREM's for the cell's inputs
// (experiments/pgd_theory: b or sigma from epsilon, delta, n, T, d and the replace-one
// sensitivity 2G/n), never a field of the solver's result, so a wrong calibration in the solver
// shows as a wrong level.
// Negative controls (`calibration_defect`; the noise stays on, one thing in its calibration is
// wrong): sensitivity_half (G/n, the add/remove sensitivity with n_bar = n: the noise halved),
// composition_basic (the releases composed by the basic theorem, k eps0 <= eps, instead of DRV's
// sqrt(k) or the exact Gaussian composition: b or sigma grows like T instead of sqrt(T)). A
// control with LESS noise than the theorem's must not be so small that the first-order term of
// noise_part (mean 0, random sign) dominates its second-order mean: then noise_part cannot be
// fitted, and the control "fails" for any implementation (measured: noise of one iteration).
//
// Metrics:
//   excess      L(w_avg) - L*
//   excess_leading  hinge without noise: excess + ||m|| r / (2T), the leading term r / (2 sqrt T)
//               up to a higher-order remainder (measured: 7e-5 relative at T = 100, 4e-6 at
//               T = 1e4); otherwise equal to excess
//   bound       docs/theory/noisy-pgd.md's bound without constants: R G / sqrt T (none), R G d
//   sqrt(ln(1/delta)) /
//               (n eps) (per-coordinate Laplace), R G sqrt(d ln(1/delta)) / (n eps) (L2 Laplace,
//               Gaussian)
//   ratio       excess / bound
//   iterations  T used;  noise_scale  b or sigma as the solver reports it;  step  eta
//   noise_scale_ratio  noise_scale over the theorem's scale for the cell (pgd_theory): 1 when the
//               solver's calibration is the theorem's (diagnostic; 0 without noise)
//   noise_part  with noise: excess minus the excess of the same run without noise (same T,
//               eta, data; deterministic), i.e. what the noise adds — the privacy part of
//               Theorem 2's bound; 0 without noise (noise = none or privacy_noise = off)
//   noise_coefficient  noise_part / (eta v), v the THEOREM's per-coordinate noise variance of the
//               gradient (sigma^2, or 2 b^2 for Laplace; pgd_theory). A diffusion model of the
//               iterate on the sphere ||w|| = r near w* (docs/experiments/noisy_pgd_rates.md)
//               predicts (d - 1)/4: the
//               d - 1 tangential angles each fluctuate with stationary variance
//               eta v / (2 r ||m||) (restoring rate eta ||m|| / r per step), and the average of
//               points on the sphere falls short of w* by ||m|| r E[theta^2] / 2 in the objective;
//               the radial coordinate adds almost nothing (the drift eta ||m|| per step exceeds its
//               noise).
//   noise_model_ratio  noise_coefficient / ((d - 1)/4): 1 where that model holds
//   noise_oracle  least_squares with noise: the exact expected privacy part of least_squares.hpp
//               (projection inactive) for the theorem's noise variance; 0 otherwise
//   noise_oracle_ratio  noise_part / noise_oracle (least_squares; 0 otherwise): 1 in expectation
//   oracle_noise_ratio  noise_oracle / noise_part (least_squares; 0 otherwise; 1e300 when the
//               noise part is <= 0): the level gate from below, as a ratio bound
//   excess_exact_ratio  hinge without noise: excess over the exact excess of PGD with Theorem 1's
//               step R/(G sqrt T) on this linear instance (pgd_theory::linear_ball_excess): 1 up
//               to rounding; 0 otherwise
//   max_norm    least_squares: the largest |w_avg| / r over the noisy runs (a diagnostic of the
//               distance to the constraint, which the oracle needs inactive; the iterates spread
//               more than their average); 0 otherwise
#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/data/variates.hpp"
#include "dpx/harness/driver.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/pgd.hpp"
#include "least_squares.hpp"
#include "pgd_theory.hpp"

namespace dpx::experiments::noisy_pgd_rates {
namespace {

using harness::cell_context;
using harness::metrics;

/// The smoothed hinge on its linear piece: L(w) = c0 - m^T w, gradient -m, every per-example
/// gradient of norm <= 1 (so clipping at G >= 1 is the identity). Valid only on the ball where all
/// margins are <= 1 - h (see the file comment; the driver checks the output against glm_loss).
struct linear_piece {
  std::vector<double> m;
  double c0 = 0;
  std::size_t n = 0;
  std::size_t dimension() const noexcept { return m.size(); }
  std::size_t size() const noexcept { return n; }
  double value(std::span<const double> w) const {
    double s = c0;
    for (std::size_t j = 0; j < m.size(); ++j) s -= m[j] * w[j];
    return s;
  }
  double value_and_gradient(std::span<const double> w, std::span<double> g) const {
    for (std::size_t j = 0; j < m.size(); ++j) g[j] = -m[j];
    return value(w);
  }
  void clipped_gradient(std::span<const double>, double clip, std::span<double> g) const {
    if (clip < 1.0) throw std::logic_error("linear_piece: clip < max ||x_i|| = 1");
    for (std::size_t j = 0; j < m.size(); ++j) g[j] = -m[j];
  }
  void clipped_gradient_sum(std::span<const double>,
                            std::span<const std::size_t>,
                            double,
                            std::span<double>) const {
    throw std::logic_error("linear_piece: per-batch gradients are not provided");
  }
};

metrics run(const cell_context& ctx) {
  const char* fn = "noisy_pgd_rates";
  const auto& p = ctx.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const auto d = static_cast<std::size_t>(p.get_int("d"));
  const double eps = p.get_double("epsilon"), delta = p.get_double("delta");
  const double r = p.get_double("radius"), a = p.get_double("margin");
  const double c = p.get_double("t_scale");
  const std::string noise_name = p.get_string("noise"), loss_name = p.get_string("loss");
  core::check_at_least(fn, "n", static_cast<long long>(n), 2);
  core::check_at_least(fn, "d", static_cast<long long>(d), 2);
  core::check_open_interval(fn, "radius", r, 0.0, 1.0);
  core::check_open_interval(fn, "margin", a, 0.0, 1.0);
  core::check_positive(fn, "t_scale", c);
  const auto noise = solvers::parse_pgd_noise(noise_name);
  if (loss_name != "hinge" && loss_name != "logistic" && loss_name != "least_squares")
    core::throw_invalid(fn, "loss", loss_name, "must be hinge, logistic or least_squares");
  // least_squares: independent noisy runs averaged per replication (the same data, T, eta;
  // consecutive draws of the noise stream), to tame the chi-square spread of the privacy part
  // (relative sd sqrt(2/d) for one run).
  constexpr std::int64_t inner = 64;
  const std::string switch_name = p.get_string("privacy_noise");
  if (switch_name != "on" && switch_name != "off")
    core::throw_invalid(fn, "privacy_noise", switch_name, "must be on or off");
  const bool noise_on = switch_name == "on";
  const std::string defect = p.get_string("calibration_defect");
  if (defect != "none" && noise == solvers::pgd_noise::none)
    core::throw_invalid(fn, "calibration_defect", defect, "needs noise (a control keeps it on)");

  // ---- data
  auto g = ctx.stream(rng::purpose::data);
  std::vector<double> x(n * d), y(n), z(d - 1);
  const double b_perp = std::sqrt(1 - a * a);
  for (std::size_t i = 0; i < n && loss_name != "least_squares"; ++i) {
    y[i] = rng::uniform01(g) < 0.5 ? -1.0 : 1.0;
    double nn = 0;
    do {
      data::fill_standard_normal(g, std::span<double>(z));
      nn = 0;
      for (double v : z) nn += v * v;
    } while (nn == 0);
    const double s = b_perp / std::sqrt(nn);
    x[i * d] = y[i] * a;
    for (std::size_t j = 1; j < d; ++j) x[i * d + j] = z[j - 1] * s;
  }
  quadratic_piece quad;
  if (loss_name == "least_squares") {
    least_squares_data(g, n, d, r, x, y);
    quad = make_quadratic(x, y, d, r);
  }
  const double ln = std::log(1 / delta);
  const double G = loss_name == "least_squares" ? quad.lipschitz : 1.0, R = r;

  // ---- schedule
  std::int64_t T = p.get_int("iterations");
  const bool per_coord = noise == solvers::pgd_noise::laplace_per_coordinate;
  const double nd = static_cast<double>(n), dd = static_cast<double>(d);
  if (T <= 0) {
    if (noise == solvers::pgd_noise::none)
      core::throw_invalid(fn, "iterations", double(T), "must be > 0 without noise");
    const double t = c * eps * eps * nd * nd / ((per_coord ? dd * dd : dd) * ln);
    T = std::max<std::int64_t>(1, std::llround(t));
  }
  double bound = 0;
  if (noise == solvers::pgd_noise::none)
    bound = R * G / std::sqrt(double(T));
  else if (per_coord)
    bound = R * G * dd * std::sqrt(ln) / (nd * eps);
  else
    bound = R * G * std::sqrt(dd * ln) / (nd * eps);

  solvers::pgd_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.iterations = T;
  // Theorem 1's step R/(G sqrt T) unless `step_size` > 0 fixes it (the negative control of the T
  // check: with a step that does not shrink with T the averaged iterate's excess falls like 1/T).
  const double fixed_step = p.get_double("step_size");
  if (fixed_step < 0) core::throw_invalid(fn, "step_size", fixed_step, "must be >= 0");
  o.step_size = fixed_step > 0 ? fixed_step : R / (G * std::sqrt(double(T)));
  o.output = solvers::iterate_output::average;
  o.noise = noise;
  o.trace.enabled = false;
  if (noise != solvers::pgd_noise::none) {
    o.target = core::epsilon_delta{eps, delta};  // noise none takes no target (not private)
    o.clip_norm = G;
    o.relation = core::neighbouring::replace_one;
    if (noise == solvers::pgd_noise::gaussian) {
      o.calibration = solvers::noise_calibration::tight;
    } else {
      o.calibration = solvers::noise_calibration::paper;
      o.laplace_rule = solvers::laplace_composition::advanced;
    }
  }
  // The theorem's noise for the cell's inputs (replace-one, clip G), independent of the solver.
  const auto theory_kind = noise == solvers::pgd_noise::gaussian ? pgd_theory::noise::gaussian
                           : noise == solvers::pgd_noise::laplace_l2
                               ? pgd_theory::noise::laplace_l2
                               : pgd_theory::noise::laplace_per_coordinate;
  const double theory_scale = noise == solvers::pgd_noise::none
                                  ? 0.0
                                  : pgd_theory::noise_scale(theory_kind,
                                                            eps,
                                                            delta,
                                                            T,
                                                            static_cast<std::int64_t>(d),
                                                            pgd_theory::replace_one_sensitivity(
                                                                G, static_cast<std::int64_t>(n)));
  const double theory_variance = pgd_theory::noise_variance(theory_kind, theory_scale);
  // Negative controls: the noise stays on and one thing in its calibration is wrong.
  if (defect == "sensitivity_half") {
    // G/n: the add/remove sensitivity with the public normaliser n_bar = n (the same release).
    o.relation = core::neighbouring::add_remove;
    o.public_size = n;
  } else if (defect == "composition_basic") {
    if (noise == solvers::pgd_noise::gaussian) {
      // One Gaussian release at (eps/T, delta/T), T times (basic composition).
      auto one = o;
      one.iterations = 1;
      one.target = core::epsilon_delta{eps / double(T), delta / double(T)};
      o.noise_scale = solvers::pgd_calibrate(one, n, d).noise_scale;
      o.calibration = solvers::noise_calibration::fixed;  // spends noise_scale: no target
      o.target.reset();
    } else {
      o.laplace_rule = solvers::laplace_composition::basic;  // eps0 = eps / k
    }
  } else if (defect != "none") {
    core::throw_invalid(fn, "calibration_defect", defect, "is not a known defect");
  }
  // privacy_noise = off: the same schedule (T, eta tuned as if private) without the noise, so
  // the privacy part of the excess is absent (the measurement of docs, "Gates": the total
  // excess keeps its slopes without noise).
  if (!noise_on) {
    o.noise = solvers::pgd_noise::none;
    o.target.reset();
  }
  const prox::l2_ball ball(r);
  const std::vector<double> w0(d, 0.0);
  auto noise_rng = ctx.stream(rng::purpose::noise);

  double excess = 0, noise_scale = 0, excess_leading = 0, noise_part = 0, noise_coefficient = 0;
  double oracle = 0, max_norm = 0, excess_exact_ratio = 0;
  if (loss_name == "least_squares") {
    const auto w_star = minimiser(quad);
    double ns = 0;
    for (double v : w_star) ns += v * v;
    if (!(std::sqrt(ns) < 0.75 * r)) throw std::runtime_error("noisy_pgd_rates: w* not interior");
    auto quiet = o;
    quiet.noise = solvers::pgd_noise::none;
    quiet.target.reset();
    const auto q = solvers::pgd(quad, ball, w0, quiet, noise_rng);
    const double quiet_excess = quadratic_excess(quad, q.x, w_star);
    excess = quiet_excess;
    if (o.noise != solvers::pgd_noise::none) {
      excess = 0;
      for (std::int64_t k = 0; k < inner; ++k) {
        const auto res = solvers::pgd(quad, ball, w0, o, noise_rng);
        noise_scale = res.noise_scale;
        excess += quadratic_excess(quad, res.x, w_star) / static_cast<double>(inner);
        double nw = 0;
        for (double v : res.x) nw += v * v;
        max_norm = std::max(max_norm, std::sqrt(nw) / r);
        if (k == 0) {  // the shortcut is exact: glm_loss's least squares agrees at the output
          const losses::glm_loss ls(losses::glm_kind::least_squares, {x, y, n, d});
          const double diff = ls.value(res.x) - quad.value(res.x);
          if (!(std::fabs(diff) <= 1e-12 + 4e-16 * nd))
            throw std::runtime_error("noisy_pgd_rates: quadratic shortcut disagrees with glm_loss");
        }
      }
      noise_part = excess - quiet_excess;
      noise_coefficient = noise_part / (o.step_size * theory_variance);
      oracle = pgd_theory::quadratic_privacy_part(
          hessian_eigenvalues(quad), o.step_size, theory_variance, T);
    }
    excess_leading = excess;
  } else if (loss_name == "hinge") {
    const double h = 1 - r;
    linear_piece lp;
    lp.n = n;
    lp.c0 = 1 - h / 2;
    lp.m.assign(d, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < d; ++j) lp.m[j] += y[i] * x[i * d + j] / nd;
    double mn = 0;
    for (double v : lp.m) mn += v * v;
    mn = std::sqrt(mn);
    const auto res = solvers::pgd(lp, ball, w0, o, noise_rng);
    noise_scale = res.noise_scale;
    double mw = 0;
    for (std::size_t j = 0; j < d; ++j) mw += lp.m[j] * res.x[j];
    excess = r * mn - mw;
    // The level of Theorem 1 on this instance: the exact excess of PGD with the theorem's step
    // R/(G sqrt T) (pgd_theory, from ||m||, r and T only), so a wrong step or projection moves it.
    if (o.noise == solvers::pgd_noise::none)
      excess_exact_ratio =
          excess / pgd_theory::linear_ball_excess(mn, r, R / (G * std::sqrt(double(T))), T);
    if (o.noise != solvers::pgd_noise::none) {
      // The same run without noise (deterministic): what the noise adds to the excess.
      auto quiet = o;
      quiet.noise = solvers::pgd_noise::none;
      quiet.target.reset();
      const auto ref = solvers::pgd(lp, ball, w0, quiet, noise_rng);
      double mq = 0;
      for (std::size_t j = 0; j < d; ++j) mq += lp.m[j] * ref.x[j];
      noise_part = excess - (r * mn - mq);
      noise_coefficient = noise_part / (o.step_size * theory_variance);
    }
    // Without noise the averaged iterate's excess is r/(2 sqrt T) - ||m|| r/(2T) for
    // T >= 1/||m||^2 up to a higher-order remainder: adding the O(1/T) term back isolates the
    // leading term.
    excess_leading = o.noise == solvers::pgd_noise::none && double(T) * mn * mn >= 1
                         ? excess + mn * r / (2.0 * double(T))
                         : excess;
    // The shortcut is exact: glm_loss's smoothed hinge agrees at the output.
    const losses::glm_loss hinge(losses::glm_kind::smoothed_hinge, {x, y, n, d}, h);
    const double diff = hinge.value(res.x) - lp.value(res.x);
    // Rounding of glm_loss's mean over n examples grows like n times the unit roundoff.
    if (!(std::fabs(diff) <= 1e-12 + 4e-16 * nd))
      throw std::runtime_error("noisy_pgd_rates: linear-piece shortcut disagrees with glm_loss");
  } else {
    const losses::glm_loss lg(losses::glm_kind::logistic, {x, y, n, d});
    // Reference: projected gradient with step 1 / L_s, last iterate.
    solvers::pgd_options ro;
    ro.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    ro.iterations = 3000;
    ro.step_size = 1.0 / lg.smoothness();
    ro.output = solvers::iterate_output::last;
    ro.trace.enabled = false;
    const auto ref = solvers::pgd(lg, ball, w0, ro, noise_rng);
    const auto res = solvers::pgd(lg, ball, w0, o, noise_rng);
    noise_scale = res.noise_scale;
    const double l_star = lg.value(ref.x);
    excess = lg.value(res.x) - l_star;
    // The reference is converged far below the measured excess (checked, never assumed).
    if (!(excess > 0)) throw std::runtime_error("noisy_pgd_rates: reference not converged");
    excess_leading = excess;
    if (o.noise != solvers::pgd_noise::none) {
      auto quiet = o;
      quiet.noise = solvers::pgd_noise::none;
      quiet.target.reset();
      const auto q = solvers::pgd(lg, ball, w0, quiet, noise_rng);
      noise_part = excess - (lg.value(q.x) - l_star);
      noise_coefficient = noise_part / (o.step_size * theory_variance);
    }
  }
  // The level gate from below (a ratio bound on oracle / noise part): a non-positive noise part
  // of a noisy least-squares cell is as far below its oracle as can be.
  double oracle_inverse = 0;
  if (loss_name == "least_squares" && noise != solvers::pgd_noise::none)
    oracle_inverse = noise_part > 0 ? oracle / noise_part : 1e300;
  return {{"excess", excess},
          {"excess_leading", excess_leading},
          {"bound", bound},
          {"ratio", excess / bound},
          {"iterations", double(T)},
          {"noise_scale", noise_scale},
          {"noise_scale_ratio", theory_scale > 0 ? noise_scale / theory_scale : 0.0},
          {"step", o.step_size},
          {"noise_part", noise_part},
          {"noise_coefficient", noise_coefficient},
          {"noise_model_ratio", noise_coefficient / ((dd - 1) / 4)},
          {"noise_oracle", oracle},
          {"noise_oracle_ratio", oracle > 0 ? noise_part / oracle : 0.0},
          {"oracle_noise_ratio", oracle_inverse},
          {"max_norm", max_norm},
          {"excess_exact_ratio", excess_exact_ratio}};
}

harness::driver make_driver() {
  harness::driver d;
  d.name = "noisy_pgd_rates";
  d.version = "8";
  d.description =
      "PGD / noisy PGD (the PGD lecture notes [NPGD]): excess risk against T, n, d, epsilon";
  d.params = {
      {"sweep",
       "label of the sweep a cell belongs to (T, n, d_coord, d_l2, epsilon)",
       harness::param_value{std::string("T")}},
      {"loss",
       "hinge (linear piece of the smoothed hinge), logistic, or least_squares (interior "
       "minimiser, curved: least_squares.hpp)",
       harness::param_value{std::string("hinge")},
       harness::one_of({"hinge", "logistic", "least_squares"})},
      {"noise",
       "none, laplace_per_coordinate, laplace_l2, gaussian",
       harness::param_value{std::string("none")},
       harness::one_of({"none", "laplace_per_coordinate", "laplace_l2", "gaussian"})},
      {"privacy_noise",
       "on, or off: the same tuned T and step without the noise (negative control: the privacy "
       "part of the excess is absent)",
       harness::param_value{std::string("on")},
       harness::one_of({"on", "off"})},
      {"calibration_defect",
       "negative control with the noise on: none, sensitivity_half (G/n instead of 2G/n), "
       "composition_basic (basic composition over the releases instead of DRV / exact Gaussian)",
       harness::param_value{std::string("none")},
       harness::one_of({"none", "sensitivity_half", "composition_basic"})},
      {"n", "examples", harness::param_value{std::int64_t{1000}}, harness::integer_at_least(1)},
      {"d",
       "dimension (>= 2)",
       harness::param_value{std::int64_t{4}},
       harness::integer_at_least(2)},
      {"epsilon",
       "privacy budget of the whole run",
       harness::param_value{1.0},
       harness::positive()},
      {"delta", "privacy delta", harness::param_value{1e-6}, harness::open_unit_interval()},
      {"iterations",
       "T; 0 = the tuned T of docs/theory/noisy-pgd.md",
       harness::param_value{std::int64_t{0}},
       harness::integer_at_least(0)},
      {"t_scale", "constant c in the tuned T", harness::param_value{0.1}, harness::positive()},
      {"step_size",
       "eta; 0 = Theorem 1's R/(G sqrt T) (a fixed eta > 0 is the T check's negative control)",
       harness::param_value{0.0},
       harness::non_negative()},
      {"radius",
       "radius r of the L2-ball constraint",
       harness::param_value{0.5},
       harness::positive()},
      {"margin", "a: component of every y_i x_i along e_1", harness::param_value{0.5}},
  };
  d.data_keys = {"n", "d", "margin"};
  d.metric_names = {"excess",
                    "excess_leading",
                    "bound",
                    "ratio",
                    "iterations",
                    "noise_scale",
                    "noise_scale_ratio",
                    "step",
                    "noise_part",
                    "noise_coefficient",
                    "noise_model_ratio",
                    "noise_oracle",
                    "noise_oracle_ratio",
                    "oracle_noise_ratio",
                    "max_norm",
                    "excess_exact_ratio"};
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make_driver()};

}  // namespace
}  // namespace dpx::experiments::noisy_pgd_rates
