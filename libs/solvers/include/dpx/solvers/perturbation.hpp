#pragma once
/// \file
/// Output perturbation and objective perturbation for L2-regularised GLM empirical risk
/// minimisation (Chaudhuri, Monteleoni & Sarwate 2011, "Differentially private empirical risk
/// minimization", Alg. 1 and 2; Kifer, Smith & Thakurta 2012, "Private convex empirical risk
/// minimization and high-dimensional regression", Thm. 2 for the Gaussian (epsilon, delta)
/// version; docs/solvers.md). Both solve a lambda-strongly convex problem to a CERTIFIED
/// accuracy (||grad J|| <= tau), and the inexactness is paid for explicitly (below).
///
/// Normaliser: m = n (replace-one; n public) or m = n_bar = public_size (add/remove; n private).
///
/// OUTPUT PERTURBATION. theta* = argmin J(theta) = (1/m) sum_i l~_i(theta) + (lambda/2)||theta||^2,
/// where grad l~_i = clip_G(grad l_i) (per-example L2 clipping at G). For a GLM l_i(theta) =
/// f(x_i^T theta, y_i) with f convex in its first argument, clip_G(f' x_i) = clamp(f', +-G/||x_i||)
/// x_i is the gradient of a convex, G-Lipschitz function (the "Huberisation" of f), so J is a
/// lambda-strongly convex ERM with G-Lipschitz losses. Sensitivity of theta* (CMS11, Cor. 8, and
/// the same argument for add/remove): replace-one 2G / (n lambda); add/remove G / (n_bar
/// lambda). The minimiser is computed to ||grad J(theta_hat)|| <= tau (a certificate: strong
/// convexity gives ||theta_hat - theta*|| <= tau / lambda), so the released theta_hat has
/// sensitivity Delta = (G' + 2 tau) / lambda with G' = 2G / n or G / n_bar. Release:
/// theta_hat + N(0, sigma^2 I), sigma = Delta * (analytic Gaussian multiplier of Balle & Wang
/// 2018 at (epsilon, delta)): (epsilon, delta)-DP. Event: gaussian_event{sigma / Delta}.
///
/// OBJECTIVE PERTURBATION (logistic loss only: the proof needs f twice differentiable with
/// |f'| <= 1, 0 <= f'' <= 1/4, which logistic regression has; least squares is not Lipschitz and
/// Huber / smoothed hinge are not twice differentiable). Public row-norm bound ||x_i|| <= R: zeta =
/// R bounds ||grad l_i||, beta = R^2 / 4 bounds the one nonzero eigenvalue of the rank-one
/// Hessian. Rows with ||x_i|| > R are projected onto that ball inside the solver (x_i R /
/// ||x_i||), so the bound holds for every dataset; no row is refused (an error that depends on
/// one record would leak it) and the number of projected rows is not released. Draw b ~ N(0,
/// sigma^2 I) and solve
///   theta* = argmin (1/m) [sum_i l_i(theta) + b^T theta] + (lambda'/2) ||theta||^2.
/// Privacy loss at a given output (change of variables b <-> theta, as in CMS11 Thm. 9 and
/// KST12 Thm. 2): a Jacobian term |ln det ratio| <= ln(1 + beta / (m lambda')) = eps_J (matrix
/// determinant lemma; rank-one Hessians) plus a Gaussian term (||w||^2 + 2 <b, w>) / (2 sigma^2),
/// where w = grad l_z(theta) (add/remove) or grad l_z(theta) - grad l_z'(theta) (replace-one).
/// For a GLM, grad l_z(theta) is a multiple c(theta) x_z with |c| <= 1, so <b, w> involves b
/// only through its components along the FIXED directions x_z (and x_z'), each N(0, sigma^2):
/// outside an event of probability delta_1 (P(|Z| > t) <= exp(-t^2 / 2)), with
/// k = 1 (add/remove) or 2 (replace-one) directions, t = sqrt(2 ln(k / delta_1)) and
/// Delta = k zeta, the Gaussian term is <= x^2 / 2 + x t, x = Delta / sigma. So theta* is
/// (eps_1, delta_1)-DP when eps_J + x^2 / 2 + x t <= eps_1: sigma = Delta / x*,
/// x* = sqrt(t^2 + 2 eps_g) - t, eps_g = eps_1 - eps_J. lambda' = max(lambda, lambda_min) with
/// lambda_min = beta / (m (e^{eps_1 / 2} - 1)) so that eps_J <= eps_1 / 2 (CMS11 Alg. 2 raises the
/// regulariser the same way); a larger lambda leaves more of eps_1 to eps_g.
/// Inexact minimiser (Iyengar et al. 2019, "Towards practical differentially private convex
/// optimization", Approximate Minima Perturbation): theta_hat with ||grad J|| <= tau lies within
/// tau / lambda' of theta*, so releasing theta_hat + N(0, sigma_2^2 I) with sigma_2 calibrated to
/// sensitivity 2 tau / lambda' at (eps_2, delta_2) costs (eps_2, delta_2) more (basic composition):
/// eps_2 = approx_fraction * epsilon, delta_2 = approx_fraction * delta, eps_1 = epsilon - eps_2,
/// delta_1 = delta - delta_2. Events: approx_dp_event{eps_1, delta_1} and
/// gaussian_event{sigma_2 / (2 tau / lambda')}.
///
/// If the inner solver does not reach ||grad J|| <= tau within max_iterations, the run reports
/// status max_iterations, guarantee "NOT private: ...", and records no events (the certificate
/// the sensitivity relies on is missing).
///
/// FLOAT SAFETY: research-grade (the double Gaussian sampler of dpx::mechanisms::gaussian).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "dpx/core/privacy.hpp"
#include "dpx/core/privacy_curves.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/solvers/calibration.hpp"
#include "dpx/solvers/common.hpp"

namespace dpx::solvers {

/// Options shared by the inner strongly convex solve.
struct strongly_convex_solve_options {
  /// tau as a multiple of the per-record gradient scale (G / m for output perturbation, zeta / m
  /// for objective perturbation), > 0: the inexactness costs 2 tau / lambda of sensitivity.
  double relative_tolerance = 1e-4;
  std::int64_t max_iterations = 20000;  ///< >= 1
  /// Initial smoothness estimate of the data term (> 0) for the accelerated gradient step
  /// 1 / (L + lambda). It affects speed only (L is doubled whenever the gradient norm grows
  /// by 1e3 over its best value); privacy rests on the certificate ||grad J|| <= tau alone.
  double smoothness_guess = 1.0;
  void validate(const char* fn) const;
};

/// Options of output_perturbation(). Defaults valid: lambda 0.1, G = 1, replace-one,
/// (1, 1e-6)-DP.
struct output_perturbation_options {
  double regularization = 0.1;  ///< lambda > 0
  double clip_norm = 1.0;       ///< G > 0
  core::neighbouring relation = core::neighbouring::replace_one;
  std::size_t public_size = 0;                               ///< n_bar (> 0) for add/remove
  noise_calibration calibration = noise_calibration::tight;  ///< tight (analytic) or fixed
  /// (epsilon, delta) target of calibration tight (required there): epsilon > 0, delta in
  /// (0, 1). Refused with calibration fixed (reset it: noise_scale is spent instead, and 0 is the
  /// NOT private theta_hat), naming calibration (docs/solvers.md, "Privacy targets").
  std::optional<core::epsilon_delta> target = core::epsilon_delta{1.0, 1e-6};
  double noise_scale = 0.0;  ///< sigma > 0 (fixed), or 0 with fixed = nonprivate theta_hat
  strongly_convex_solve_options solve;
  /// Safe by default: this solver has no float-safe noise, so a run that draws noise refuses
  /// float_safe (naming noise_kind); research_grade accepts the double Gaussian sampler.
  mechanisms::noise_kind noise_kind = mechanisms::noise_kind::float_safe;
  void validate() const;
};

/// Sensitivity (with the 2 tau / lambda term) and sigma of output perturbation for n rows.
struct perturbation_calibration {
  double sensitivity = 0;       ///< L2 sensitivity of the released minimiser
  double noise_scale = 0;       ///< sigma of the output noise
  double tolerance = 0;         ///< tau, the certified gradient-norm bound
  double regularization = 0;    ///< lambda actually used (objective perturbation: lambda')
  double objective_sigma = 0;   ///< objective perturbation: sigma of b (0 otherwise)
  double epsilon_jacobian = 0;  ///< objective perturbation: eps_J
  double epsilon_main = 0, delta_main = 0;  ///< objective perturbation: (eps_1, delta_1)
};
perturbation_calibration output_perturbation_calibrate(const output_perturbation_options& o,
                                                       std::size_t n);

/// Options of objective_perturbation(). Defaults valid.
struct objective_perturbation_options {
  double regularization = 0.1;  ///< lambda > 0 (raised to lambda_min when smaller)
  double row_norm_bound = 1.0;  ///< public R > 0; rows with ||x_i|| > R are projected onto it
  core::neighbouring relation = core::neighbouring::replace_one;
  std::size_t public_size = 0;            ///< n_bar (> 0) for add/remove
  core::epsilon_delta target{1.0, 1e-6};  ///< epsilon > 0, delta in (0, 1)
  double approx_fraction = 0.01;  ///< share of (epsilon, delta) for the inexact minimiser, (0, 1)
  strongly_convex_solve_options solve;
  /// Safe by default: no float-safe noise exists here, so float_safe is refused when the solver
  /// runs (naming noise_kind); research_grade accepts the double Gaussian sampler.
  mechanisms::noise_kind noise_kind = mechanisms::noise_kind::float_safe;
  void validate() const;
};
perturbation_calibration objective_perturbation_calibrate(const objective_perturbation_options& o,
                                                          std::size_t n);

namespace detail {
/// Accelerated gradient descent (constant momentum for a lambda-strongly convex function, with
/// restarts doubling the smoothness estimate when the gradient norm blows up) on a gradient
/// oracle, until ||grad J|| <= tau. Returns the final gradient norm; x is updated in place.
struct strongly_convex_outcome {
  double gradient_norm = 0;
  std::int64_t iterations = 0;
  bool certified = false;
};
strongly_convex_outcome minimise_strongly_convex(
    const std::function<void(std::span<const double>, std::span<double>)>& gradient,
    std::vector<double>& x,
    double lambda,
    double tau,
    const strongly_convex_solve_options& o);

/// Gradient of the output-perturbation objective J (see the file comment).
void output_perturbation_gradient(const losses::glm_loss& loss,
                                  const output_perturbation_options& o,
                                  std::span<const double> theta,
                                  std::span<double> grad);
}  // namespace detail

/// The nonprivate part of output perturbation: theta_hat with its certificate (no noise, no
/// events). Exposed so tests and experiments can compare with the noisy release.
solve_result output_perturbation_minimiser(const losses::glm_loss& loss,
                                           const output_perturbation_options& o);

/// Output perturbation (see the file comment). Starts the inner solve at 0.
template <std::uniform_random_bit_generator G>
solve_result output_perturbation(const losses::glm_loss& loss,
                                 const output_perturbation_options& o,
                                 G& rng) {
  solve_result r = output_perturbation_minimiser(loss, o);
  if (r.status != termination::converged) return r;
  const auto cal = output_perturbation_calibrate(o, loss.size());
  r.relation = o.relation;
  r.sensitivity = cal.sensitivity;
  r.noise_scale = cal.noise_scale;
  if (cal.noise_scale > 0) {
    detail::require_research_grade("solvers::output_perturbation", o.noise_kind);
    const auto noise =
        mechanisms::gaussian::from_sigma(cal.noise_scale, cal.sensitivity, o.relation);
    noise.privatize(r.x, rng);
    r.privacy_events.push_back(noise.event());
    if (o.calibration == noise_calibration::tight) {
      r.epsilon_target = o.target->epsilon;
      r.delta_target = o.target->delta;
      r.guarantee = "(epsilon, delta)-DP under " + core::to_string(o.relation);
    } else {
      r.guarantee =
          "private: see privacy_events (fixed noise scale) under " + core::to_string(o.relation);
    }
  }
  return r;
}

/// The objective-perturbation solve for a GIVEN linear term b (length d; no output noise): the
/// certified minimiser of (1/m)[sum_i l_i + b^T theta] + (lambda'/2)||theta||^2, the rows
/// projected onto ||x_i|| <= R (file comment). Exposed for
/// tests (b = 0 is the nonprivate regularised optimum).
solve_result objective_perturbation_minimiser(const losses::glm_loss& loss,
                                              const objective_perturbation_options& o,
                                              std::span<const double> b);

/// Objective perturbation (see the file comment). loss must be logistic.
template <std::uniform_random_bit_generator G>
solve_result objective_perturbation(const losses::glm_loss& loss,
                                    const objective_perturbation_options& o,
                                    G& rng) {
  o.validate();
  detail::require_research_grade("solvers::objective_perturbation", o.noise_kind);
  const auto cal = objective_perturbation_calibrate(o, loss.size());
  std::vector<double> b(loss.dimension(), 0.0);
  mechanisms::gaussian::from_sigma(cal.objective_sigma).fill(b, rng);
  solve_result r = objective_perturbation_minimiser(loss, o, b);
  if (r.status != termination::converged) {
    r.guarantee = "NOT private: the minimiser was not certified (||grad J|| > tau)";
    return r;
  }
  const auto out = mechanisms::gaussian::from_sigma(
      cal.noise_scale, 2.0 * cal.tolerance / cal.regularization, o.relation);
  out.privatize(r.x, rng);
  r.relation = o.relation;
  r.sensitivity = 2.0 * cal.tolerance / cal.regularization;
  r.noise_scale = cal.objective_sigma;
  r.privacy_events.push_back(core::approx_dp_event{cal.epsilon_main, cal.delta_main});
  r.privacy_events.push_back(out.event());
  r.epsilon_target = o.target.epsilon;
  r.delta_target = o.target.delta;
  r.guarantee = "(epsilon, delta)-DP under " + core::to_string(o.relation) +
                " (rows projected onto the public norm bound)";
  return r;
}

}  // namespace dpx::solvers
