// Properties checked (dpx::solvers output / objective perturbation; docs/solvers.md):
//  * Noiseless limits: the certified minimisers equal the regularised optimum found
//    independently by GIST (logistic + squared_l2, clipping inactive), to the certificate's
//    accuracy tau / lambda; objective perturbation with b = 0 gives the same point.
//  * Sensitivity, brute force: removing one row moves the output-perturbation minimiser by at
//    most G / (n_bar lambda) (add/remove) and replacing one by at most 2G / (n lambda)
//    (CMS11 Cor. 8), and the bound is not vacuous (the moves are within a factor 20 of it).
//  * Calibration closed forms: output sigma = Delta m with Balle-Wang delta(eps, m) = delta;
//    objective: eps_J = ln(1 + beta / (m lambda')), x = Delta / sigma solves
//    eps_J + x^2/2 + x t = eps_1, lambda' raised to beta / (m (e^{eps_1/2} - 1)).
//  * Noise level (fixed seeds; FPR ~1e-6): (released - minimiser)^2 / sigma^2 averages 1 within
//    5 standard errors over 2000 x 5 coordinates.
//  * Events; objective perturbation rejects non-logistic losses.
//  * Rows above the public bound R are projected, not refused: the release on data with rows
//    beyond R equals, draw for draw, the release on the same data with those rows scaled to
//    norm R by hand (and rows inside R are left alone).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/frank_wolfe.hpp"
#include "dpx/solvers/gist.hpp"
#include "dpx/solvers/perturbation.hpp"
#include "test_util.hpp"

namespace dpx::solvers {
namespace {

// Rows scaled to norm <= 1 (so logistic gradients are bounded by 1).
testing::design unit_rows(std::size_t n, std::size_t d, std::uint64_t seed) {
  auto s = testing::make_design(n, d, 2, 0.2, 0.0, seed, true);
  for (std::size_t i = 0; i < n; ++i) {
    double nn = 0;
    for (std::size_t j = 0; j < d; ++j) nn += s.x[i * d + j] * s.x[i * d + j];
    for (std::size_t j = 0; j < d; ++j) s.x[i * d + j] /= std::sqrt(nn);
  }
  return s;
}

std::vector<double> gist_ridge(const losses::glm_loss& loss, double lambda) {
  gist_options go;
  go.trace.enabled = false;
  go.tol = 0;
  go.stationarity_tol = 1e-13;
  go.max_iterations = 100000;
  return gist(loss, prox::squared_l2(lambda), std::vector<double>(loss.dimension(), 0.0), go).x;
}

TEST(OutputPerturbation, MinimiserEqualsIndependentRegularisedOptimum) {
  const std::size_t n = 400, d = 5;
  const auto s = unit_rows(n, d, 21);
  const losses::glm_loss loss(losses::glm_kind::logistic, {s.x, s.y, n, d});
  output_perturbation_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;
  o.regularization = 0.05;
  o.clip_norm = 2.0;  // logistic |f'| ||x|| <= 1: clipping inactive
  const auto ref = gist_ridge(loss, o.regularization);
  const auto m = output_perturbation_minimiser(loss, o);
  ASSERT_EQ(m.status, termination::converged) << m.message;
  const double tau = output_perturbation_calibrate(o, n).tolerance;
  EXPECT_LE(std::sqrt(detail::squared_distance(m.x, ref)), tau / o.regularization + 1e-9);
  objective_perturbation_options oo;
  oo.noise_kind = mechanisms::noise_kind::research_grade;
  oo.regularization = 0.05;
  oo.target.epsilon = 50;  // lambda_min = (1/4) / (n (e^{24.75} - 1)) << lambda: lambda' = lambda
  const std::vector<double> b(d, 0.0);
  const auto om = objective_perturbation_minimiser(loss, oo, b);
  ASSERT_EQ(om.status, termination::converged);
  const auto oc = objective_perturbation_calibrate(oo, n);
  EXPECT_LE(std::sqrt(detail::squared_distance(om.x, ref)),
            oc.tolerance / oc.regularization + 1e-9);
}

TEST(OutputPerturbation, BruteForceSensitivityWithinCms11Bound) {
  const std::size_t n = 200, d = 4;
  const auto s = unit_rows(n + 1, d, 22);
  const double lambda = 0.02, clip = 0.3;  // clipping active for many rows
  const losses::glm_loss full(losses::glm_kind::logistic, {s.x, s.y, n + 1, d});
  const std::span<const double> xs(s.x.data(), n * d), ys(s.y.data(), n);
  const losses::glm_loss less(losses::glm_kind::logistic, {xs, ys, n, d});
  output_perturbation_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;
  o.regularization = lambda;
  o.clip_norm = clip;
  o.relation = core::neighbouring::add_remove;
  o.public_size = n;
  o.solve.relative_tolerance = 1e-8;
  const auto a = output_perturbation_minimiser(full, o), b = output_perturbation_minimiser(less, o);
  const double move = std::sqrt(detail::squared_distance(a.x, b.x));
  const double bound = clip / (double(n) * lambda);
  EXPECT_LE(move, bound * (1 + 1e-6));
  EXPECT_GT(move, bound / 20);
  // Replace-one: swap the last row of `less` for row n.
  std::vector<double> x2(s.x.begin(), s.x.begin() + long(n * d)),
      y2(s.y.begin(), s.y.begin() + long(n));
  for (std::size_t j = 0; j < d; ++j) x2[(n - 1) * d + j] = s.x[n * d + j];
  y2[n - 1] = -s.y[n];
  const losses::glm_loss swapped(losses::glm_kind::logistic, {x2, y2, n, d});
  o.relation = core::neighbouring::replace_one;
  const auto c = output_perturbation_minimiser(less, o),
             e = output_perturbation_minimiser(swapped, o);
  const double move2 = std::sqrt(detail::squared_distance(c.x, e.x));
  EXPECT_LE(move2, 2 * bound * (1 + 1e-6));
  EXPECT_GT(move2, 2 * bound / 20);
}

TEST(OutputPerturbation, CalibrationAndNoiseLevel) {
  const std::size_t n = 300, d = 5;
  const auto s = unit_rows(n, d, 23);
  const losses::glm_loss loss(losses::glm_kind::logistic, {s.x, s.y, n, d});
  output_perturbation_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;
  o.regularization = 0.1;
  o.clip_norm = 1.0;
  o.target->epsilon = 0.7;
  o.target->delta = 1e-5;
  const auto cal = output_perturbation_calibrate(o, n);
  EXPECT_NEAR(cal.sensitivity, (2.0 / n + 2 * cal.tolerance) / 0.1, 1e-15);
  EXPECT_NEAR(
      mechanisms::gaussian_delta_for_epsilon(0.7, cal.noise_scale / cal.sensitivity), 1e-5, 1e-9);
  const auto m = output_perturbation_minimiser(loss, o);
  double ss = 0;
  const int reps = 2000;
  for (int rep = 0; rep < reps; ++rep) {
    auto g = rng::stream(31, 0, static_cast<std::uint64_t>(rep), rng::purpose::noise);
    const auto r = output_perturbation(loss, o, g);
    ASSERT_EQ(r.privacy_events.size(), 1u);
    for (std::size_t j = 0; j < d; ++j) ss += (r.x[j] - m.x[j]) * (r.x[j] - m.x[j]);
  }
  const double ratio = ss / (reps * d * cal.noise_scale * cal.noise_scale);
  EXPECT_NEAR(ratio, 1.0, 5.0 * std::sqrt(2.0 / (reps * d)));
  o.relation = core::neighbouring::add_remove;
  o.public_size = 600;
  const auto c2 = output_perturbation_calibrate(o, n);
  EXPECT_NEAR(c2.sensitivity, (1.0 / 600 + 2 * c2.tolerance) / 0.1, 1e-15);
}

TEST(ObjectivePerturbation, CalibrationClosedForm) {
  for (auto rel : {core::neighbouring::replace_one, core::neighbouring::add_remove}) {
    for (double eps : {0.1, 1.0, 5.0}) {
      objective_perturbation_options o;
      o.noise_kind = mechanisms::noise_kind::research_grade;
      o.relation = rel;
      o.public_size = 1000;
      o.target.epsilon = eps;
      o.target.delta = 1e-5;
      o.regularization = 1e-6;  // below lambda_min: raised
      const std::size_t n = 1000;
      const auto c = objective_perturbation_calibrate(o, n);
      const double e1 = 0.99 * eps, d1 = 0.99e-5, beta = 0.25;
      EXPECT_NEAR(c.epsilon_main, e1, 1e-12);
      EXPECT_NEAR(c.regularization, beta / (n * std::expm1(e1 / 2)), 1e-15);
      EXPECT_NEAR(c.epsilon_jacobian, e1 / 2, 1e-12);
      const double k = rel == core::neighbouring::replace_one ? 2.0 : 1.0;
      const double t = std::sqrt(2 * std::log(k / d1)), x = k * 1.0 / c.objective_sigma;
      EXPECT_NEAR(c.epsilon_jacobian + x * x / 2 + x * t, e1, 1e-10);
      o.regularization = 1.0;  // above lambda_min: kept, more budget for the Gaussian part
      const auto c2 = objective_perturbation_calibrate(o, n);
      EXPECT_EQ(c2.regularization, 1.0);
      EXPECT_LT(c2.objective_sigma, c.objective_sigma);
    }
  }
}

TEST(ObjectivePerturbation, RowsAboveTheBoundAreProjected) {
  const std::size_t n = 50, d = 3;
  const auto s = unit_rows(n, d, 25);
  std::vector<double> wide(s.x), projected(s.x);
  const double r_bound = 0.5;
  for (std::size_t i = 0; i < n; ++i) {
    double ss = 0;
    for (std::size_t j = 0; j < d; ++j) ss += s.x[i * d + j] * s.x[i * d + j];
    // Rows 3k + 1 strictly inside the ball (left alone); the others (norm 1 or 7) outside it.
    const double w = i % 3 == 1 ? 0.3 : (i % 3 == 0 ? 7.0 : 1.0);
    for (std::size_t j = 0; j < d; ++j) {
      wide[i * d + j] = w * s.x[i * d + j];
      projected[i * d + j] =
          i % 3 == 1 ? wide[i * d + j] : r_bound * s.x[i * d + j] / std::sqrt(ss);
    }
  }
  objective_perturbation_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;
  o.row_norm_bound = r_bound;
  const losses::glm_loss lw(losses::glm_kind::logistic, {wide, s.y, n, d});
  const losses::glm_loss lp(losses::glm_kind::logistic, {projected, s.y, n, d});
  ASSERT_GT(lw.max_row_norm(), 3 * r_bound);
  auto g1 = rng::stream(9, 0, 0, rng::purpose::noise);
  auto g2 = rng::stream(9, 0, 0, rng::purpose::noise);
  const auto a = objective_perturbation(lw, o, g1);
  const auto b = objective_perturbation(lp, o, g2);
  ASSERT_EQ(a.status, termination::converged);
  ASSERT_EQ(b.status, termination::converged);
  ASSERT_EQ(a.x.size(), d);
  for (std::size_t j = 0; j < d; ++j) EXPECT_NEAR(a.x[j], b.x[j], 1e-12) << j;
  EXPECT_EQ(a.privacy_events.size(), 2u);
}

TEST(ObjectivePerturbation, EventsAndRejections) {
  const std::size_t n = 200, d = 4;
  const auto s = unit_rows(n, d, 24);
  const losses::glm_loss loss(losses::glm_kind::logistic, {s.x, s.y, n, d});
  objective_perturbation_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;
  o.target.epsilon = 1;
  auto g = rng::stream(5, 0, 0, rng::purpose::noise);
  const auto r = objective_perturbation(loss, o, g);
  ASSERT_EQ(r.status, termination::converged);
  ASSERT_EQ(r.privacy_events.size(), 2u);
  const auto cal = objective_perturbation_calibrate(o, n);
  EXPECT_EQ(std::get<core::approx_dp_event>(r.privacy_events[0]).epsilon, cal.epsilon_main);
  const losses::glm_loss ls(losses::glm_kind::least_squares, {s.x, s.y, n, d});
  EXPECT_THROW(objective_perturbation(ls, o, g), core::invalid_argument_error);
  o.row_norm_bound = 1;
  o.approx_fraction = 1.5;
  EXPECT_THROW(objective_perturbation(loss, o, g), core::invalid_argument_error);
  output_perturbation_options op;
  op.noise_kind = mechanisms::noise_kind::research_grade;
  EXPECT_NO_THROW(op.validate());
  op.calibration = noise_calibration::paper;
  EXPECT_THROW(op.validate(), core::invalid_argument_error);
  objective_perturbation_options ok;
  ok.noise_kind = mechanisms::noise_kind::research_grade;
  EXPECT_NO_THROW(ok.validate());
}

// Safe by default: these solvers have research-grade noise only, so the float-safe default
// refuses every run that draws noise, naming noise_kind; a run that draws none is unaffected.
TEST(SolverNoiseKind, FloatSafeDefaultRefusesResearchGradeOnlySolvers) {
  const std::size_t n = 200, d = 4;
  const auto s = unit_rows(n, d, 24);
  const losses::glm_loss loss(losses::glm_kind::logistic, {s.x, s.y, n, d});
  auto g = rng::stream(5, 0, 0, rng::purpose::noise);
  const auto refused_naming_noise_kind = [](auto&& call) {
    try {
      call();
    } catch (const core::invalid_argument_error& e) {
      return std::string(e.what()).find("noise_kind") != std::string::npos;
    }
    return false;
  };
  output_perturbation_options op;  // defaults: tight calibration (noisy), float_safe
  EXPECT_TRUE(refused_naming_noise_kind([&] { (void)output_perturbation(loss, op, g); }));
  op.calibration = noise_calibration::fixed;  // noise_scale 0: the nonprivate minimiser
  op.target.reset();                          // which takes no target
  EXPECT_NO_THROW((void)output_perturbation(loss, op, g));
  const objective_perturbation_options ob;
  EXPECT_TRUE(refused_naming_noise_kind([&] { (void)objective_perturbation(loss, ob, g); }));
  frank_wolfe_options fw;
  fw.private_selection = true;
  fw.coordinate_bound = 1.0;
  fw.target = core::epsilon_delta{1.0, 1e-6};
  const std::vector<double> zero(d, 0.0);
  EXPECT_TRUE(refused_naming_noise_kind([&] { (void)frank_wolfe(loss, zero, fw, g); }));
  fw.private_selection = false;
  fw.target.reset();
  EXPECT_NO_THROW((void)frank_wolfe(loss, zero, fw, g));
}

}  // namespace
}  // namespace dpx::solvers
