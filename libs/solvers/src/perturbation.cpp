#include "dpx/solvers/perturbation.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "dpx/core/error.hpp"
#include "dpx/prox/prox.hpp"

namespace dpx::solvers {

namespace {

double norm2(std::span<const double> v) { return std::sqrt(detail::dot(v, v)); }

// The normaliser m of the file comment: n (replace-one) or the public n_bar (add/remove).
double normaliser(core::neighbouring rel, std::size_t public_size, std::size_t n) {
  return rel == core::neighbouring::add_remove ? static_cast<double>(public_size)
                                               : static_cast<double>(n);
}

}  // namespace

void strongly_convex_solve_options::validate(const char* fn) const {
  core::check_positive(fn, "solve.relative_tolerance", relative_tolerance);
  core::check_at_least(fn, "solve.max_iterations", max_iterations, 1);
  core::check_positive(fn, "solve.smoothness_guess", smoothness_guess);
}

void output_perturbation_options::validate() const {
  const char* fn = "solvers::output_perturbation_options";
  core::check_positive(fn, "regularization", regularization);
  core::check_positive(fn, "clip_norm", clip_norm);
  switch (calibration) {
    case noise_calibration::tight:
      detail::require_target(fn, target, "tight");
      break;
    case noise_calibration::fixed:
      core::check_nonnegative(fn, "noise_scale", noise_scale);
      detail::refuse_target(fn,
                            target,
                            "calibration",
                            "fixed",
                            noise_scale > 0 ? "spends noise_scale, not a target (its guarantee is "
                                              "privacy_events)"
                                            : "with noise_scale 0 releases the exact minimiser, "
                                              "so the fit is NOT differentially private");
      break;
    default:
      core::throw_invalid(fn,
                          "calibration",
                          core::to_string(calibration),
                          "output perturbation supports tight (analytic Gaussian) or fixed");
  }
  detail::check_public_size(fn, relation, public_size);
  solve.validate(fn);
}

perturbation_calibration output_perturbation_calibrate(const output_perturbation_options& o,
                                                       std::size_t n) {
  o.validate();
  core::check_at_least("solvers::output_perturbation", "n", static_cast<std::int64_t>(n), 1);
  perturbation_calibration c;
  const double m = normaliser(o.relation, o.public_size, n);
  // One record moves the data term's gradient by at most 2G/n (replace-one) or G/n_bar.
  const double per_record =
      (o.relation == core::neighbouring::replace_one ? 2.0 : 1.0) * o.clip_norm / m;
  c.regularization = o.regularization;
  c.tolerance = o.solve.relative_tolerance * o.clip_norm / m;
  c.sensitivity = (per_record + 2.0 * c.tolerance) / o.regularization;
  c.noise_scale =
      o.calibration == noise_calibration::fixed
          ? o.noise_scale
          : c.sensitivity * gaussian_tight_multiplier(o.target->epsilon, o.target->delta, 1);
  return c;
}

void objective_perturbation_options::validate() const {
  const char* fn = "solvers::objective_perturbation_options";
  core::check_positive(fn, "regularization", regularization);
  core::check_positive(fn, "row_norm_bound", row_norm_bound);
  core::check_positive(fn, "epsilon", target.epsilon);
  core::check_open_interval(fn, "delta", target.delta, 0.0, 1.0);
  core::check_open_interval(fn, "approx_fraction", approx_fraction, 0.0, 1.0);
  detail::check_public_size(fn, relation, public_size);
  solve.validate(fn);
}

perturbation_calibration objective_perturbation_calibrate(const objective_perturbation_options& o,
                                                          std::size_t n) {
  o.validate();
  core::check_at_least("solvers::objective_perturbation", "n", static_cast<std::int64_t>(n), 1);
  perturbation_calibration c;
  const double m = normaliser(o.relation, o.public_size, n);
  const double zeta = o.row_norm_bound;                           // |f'| <= 1 for logistic
  const double beta = o.row_norm_bound * o.row_norm_bound / 4.0;  // f'' <= 1/4
  const double eps2 = o.approx_fraction * o.target.epsilon,
               delta2 = o.approx_fraction * o.target.delta;
  c.epsilon_main = o.target.epsilon - eps2;
  c.delta_main = o.target.delta - delta2;
  const double lambda_min = beta / (m * std::expm1(c.epsilon_main / 2.0));
  c.regularization = std::max(o.regularization, lambda_min);
  c.epsilon_jacobian = std::log1p(beta / (m * c.regularization));
  const double eps_g = c.epsilon_main - c.epsilon_jacobian;  // >= eps_1 / 2 > 0
  const bool replace = o.relation == core::neighbouring::replace_one;
  const double k = replace ? 2.0 : 1.0;
  const double t = std::sqrt(2.0 * std::log(k / c.delta_main));
  const double x = std::sqrt(t * t + 2.0 * eps_g) - t;  // solves x^2/2 + x t = eps_g
  c.objective_sigma = k * zeta / x;
  c.tolerance = o.solve.relative_tolerance * zeta / m;
  c.sensitivity = 2.0 * c.tolerance / c.regularization;
  c.noise_scale = c.sensitivity * gaussian_tight_multiplier(eps2, delta2, 1);
  return c;
}

namespace detail {

strongly_convex_outcome minimise_strongly_convex(
    const std::function<void(std::span<const double>, std::span<double>)>& gradient,
    std::vector<double>& x,
    double lambda,
    double tau,
    const strongly_convex_solve_options& o) {
  const std::size_t d = x.size();
  strongly_convex_outcome out;
  std::vector<double> g(d), y(x), x_prev(x), best(x);
  double big_l = o.smoothness_guess;
  gradient(x, g);
  double gn = norm2(g), best_gn = gn;
  std::int64_t k = 0;
  while (gn > tau && k < o.max_iterations) {
    // Nesterov's constant-momentum scheme for mu-strongly convex, (L + lambda)-smooth J.
    const double lt = big_l + lambda;
    const double q = std::sqrt(lambda / lt);
    const double mom = (1.0 - q) / (1.0 + q);
    gradient(y, g);
    ++k;
    x_prev.swap(x);
    for (std::size_t j = 0; j < d; ++j) x[j] = y[j] - g[j] / lt;
    for (std::size_t j = 0; j < d; ++j) y[j] = x[j] + mom * (x[j] - x_prev[j]);
    gradient(x, g);
    gn = norm2(g);
    if (!std::isfinite(gn) || gn > 1e3 * best_gn) {
      // The smoothness estimate was too small: restart from the best point with 2L.
      big_l *= 2.0;
      x = best;
      y = best;
      gradient(x, g);
      gn = norm2(g);
      continue;
    }
    if (gn < best_gn) {
      best_gn = gn;
      best = x;
    }
  }
  if (best_gn < gn) {
    x = best;
    gn = best_gn;
  }
  out.gradient_norm = gn;
  out.iterations = k;
  out.certified = gn <= tau;
  return out;
}

void output_perturbation_gradient(const losses::glm_loss& loss,
                                  const output_perturbation_options& o,
                                  std::span<const double> theta,
                                  std::span<double> grad) {
  loss.clipped_gradient(theta, o.clip_norm, grad);
  if (o.relation == core::neighbouring::add_remove)
    apply_public_normaliser(grad, loss.size(), o.public_size);
  for (std::size_t j = 0; j < grad.size(); ++j) grad[j] += o.regularization * theta[j];
}

}  // namespace detail

namespace {

solve_result finish(std::vector<double> x,
                    const detail::strongly_convex_outcome& s,
                    detail::stopwatch& clock) {
  solve_result r;
  r.x = std::move(x);
  r.iterations = s.iterations;
  r.gradient_evaluations = 2 * s.iterations + 1;
  if (s.certified) {
    r.status = termination::converged;
    r.message = "certified: ||grad J|| <= tau";
  } else if (!std::isfinite(s.gradient_norm)) {
    r.status = termination::diverged;
    r.message = "non-finite gradient";
  } else {
    r.status = termination::max_iterations;
    r.message = "||grad J|| > tau after max_iterations";
  }
  r.guarantee = s.certified ? "nonprivate (no noise added yet)"
                            : "NOT private: the minimiser was not certified (||grad J|| > tau)";
  r.seconds = clock.elapsed();
  return r;
}

}  // namespace

solve_result output_perturbation_minimiser(const losses::glm_loss& loss,
                                           const output_perturbation_options& o) {
  const auto cal = output_perturbation_calibrate(o, loss.size());
  detail::stopwatch clock;
  std::vector<double> x(loss.dimension(), 0.0);
  const auto s = detail::minimise_strongly_convex(
      [&](std::span<const double> th, std::span<double> g) {
        detail::output_perturbation_gradient(loss, o, th, g);
      },
      x,
      o.regularization,
      cal.tolerance,
      o.solve);
  return finish(std::move(x), s, clock);
}

solve_result objective_perturbation_minimiser(const losses::glm_loss& loss,
                                              const objective_perturbation_options& o,
                                              std::span<const double> b) {
  const char* fn = "solvers::objective_perturbation";
  const auto cal = objective_perturbation_calibrate(o, loss.size());
  if (loss.kind() != losses::glm_kind::logistic)
    core::throw_invalid(fn,
                        "loss",
                        losses::to_string(loss.kind()),
                        "objective perturbation needs a twice-differentiable Lipschitz loss: "
                        "logistic");
  core::check_size(fn, "b", b.size(), loss.dimension());
  // zeta = R and beta = R^2 / 4 bound every row's gradient and Hessian only for ||x_i|| <= R:
  // rows beyond it are projected onto that ball (x_i * R / ||x_i||), so the analysis holds for
  // every dataset. Refusing such a row instead would make whether the call errors depend on one
  // record. Copying only when some row exceeds R changes no output (the projection is the
  // identity otherwise); how many rows were projected is not released.
  std::vector<double> projected;
  std::optional<losses::glm_loss> projected_loss;
  if (loss.max_row_norm() > o.row_norm_bound) {
    const auto& v = loss.data();
    projected.assign(v.x.begin(), v.x.end());
    const prox::l2_ball ball(o.row_norm_bound);
    for (std::size_t i = 0; i < v.rows; ++i) {
      const std::span<double> row(projected.data() + i * v.cols, v.cols);
      ball.apply(row, 1.0, row);
    }
    projected_loss.emplace(
        loss.kind(), losses::dataset_view{projected, v.y, v.rows, v.cols}, loss.parameter());
  }
  const losses::glm_loss& data_loss = projected_loss ? *projected_loss : loss;
  detail::stopwatch clock;
  const std::size_t n = loss.size();
  const double m = normaliser(o.relation, o.public_size, n);
  std::vector<double> x(loss.dimension(), 0.0);
  const auto s = detail::minimise_strongly_convex(
      [&](std::span<const double> th, std::span<double> g) {
        data_loss.value_and_gradient(th, g);  // mean gradient; (1/m) sum = mean * n / m
        if (o.relation == core::neighbouring::add_remove)
          detail::apply_public_normaliser(g, n, o.public_size);
        for (std::size_t j = 0; j < g.size(); ++j) g[j] += b[j] / m + cal.regularization * th[j];
      },
      x,
      cal.regularization,
      cal.tolerance,
      o.solve);
  return finish(std::move(x), s, clock);
}

}  // namespace dpx::solvers
