// Properties checked (dpx::solvers::gist, gist_working_set, quadratic_loss):
//  * Orthonormal design (X^T X / n = I): the MCP least-squares solution is the closed-form firm
//    threshold of the OLS solution z = X^T y / n (written out here, not via dpx::prox); plain
//    GIST (monotone and nonmonotone) and working-set GIST reach it to 1e-10.
//  * Correlated design (AR(1) 0.5, standardised columns): GIST and working-set GIST agree with an
//    independent cyclic coordinate-descent implementation (Breheny & Huang 2011 MCP/SCAD updates)
//    in coefficients and objective, for MCP and SCAD.
//  * Logistic + L1: working-set GIST matches plain GIST's objective.
//  * Termination status converged; trace iterations increasing with checkpoints log-spaced.
//  * quadratic_loss value/gradient against a direct evaluation.
//  * Defaults valid; each bad field rejected with its name in the message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/gist.hpp"
#include "test_util.hpp"

namespace dpx::solvers {
namespace {

using testing::make_design;

// Firm thresholding (MCP prox at step 1, gamma > 1), written independently.
double firm(double z, double lambda, double gamma) {
  const double a = std::fabs(z);
  if (a <= lambda) return 0.0;
  if (a <= gamma * lambda) return std::copysign((a - lambda) / (1.0 - 1.0 / gamma), z);
  return z;
}
// SCAD coordinate update at unit curvature (Fan & Li 2001, eq. (2.8)).
double scad_update(double z, double lambda, double a) {
  const double m = std::fabs(z);
  if (m <= 2 * lambda) return std::copysign(std::fmax(m - lambda, 0.0), z);
  if (m <= a * lambda) return ((a - 1) * z - std::copysign(a * lambda, z)) / (a - 2);
  return z;
}

// Cyclic coordinate descent for (1/2n)||y - X b||^2 + sum pen(b_j), standardised columns.
std::vector<double> coordinate_descent(const testing::design& s,
                                       double lambda,
                                       double gamma,
                                       bool use_scad) {
  const std::size_t n = s.n, d = s.d;
  std::vector<double> b(d, 0.0), r(s.y);
  for (int sweep = 0; sweep < 10000; ++sweep) {
    double change = 0;
    for (std::size_t j = 0; j < d; ++j) {
      double z = 0;
      for (std::size_t i = 0; i < n; ++i) z += s.x[i * d + j] * r[i];
      z = z / double(n) + b[j];
      const double nb = use_scad ? scad_update(z, lambda, gamma) : firm(z, lambda, gamma);
      const double delta = nb - b[j];
      if (delta != 0) {
        for (std::size_t i = 0; i < n; ++i) r[i] -= delta * s.x[i * d + j];
        b[j] = nb;
        change = std::fmax(change, std::fabs(delta));
      }
    }
    if (change < 1e-13) break;
  }
  return b;
}

template <class P>
double full_objective(const testing::design& s, const P& pen, const std::vector<double>& b) {
  double f = 0;
  for (std::size_t i = 0; i < s.n; ++i) {
    double z = 0;
    for (std::size_t j = 0; j < s.d; ++j) z += s.x[i * s.d + j] * b[j];
    f += 0.5 * (s.y[i] - z) * (s.y[i] - z);
  }
  return f / double(s.n) + pen.value(b);
}

TEST(Gist, OrthonormalDesignMcpIsFirmThresholdOfOls) {
  const std::size_t n = 120, d = 12;
  auto s = make_design(n, d, 4, 0.0, 0.5, 7);
  // Gram-Schmidt the columns, then scale to ||x_j||^2 = n.
  for (std::size_t j = 0; j < d; ++j) {
    for (std::size_t k = 0; k < j; ++k) {
      double p = 0;
      for (std::size_t i = 0; i < n; ++i) p += s.x[i * d + j] * s.x[i * d + k];
      for (std::size_t i = 0; i < n; ++i) s.x[i * d + j] -= p / double(n) * s.x[i * d + k];
    }
    double ss = 0;
    for (std::size_t i = 0; i < n; ++i) ss += s.x[i * d + j] * s.x[i * d + j];
    for (std::size_t i = 0; i < n; ++i) s.x[i * d + j] *= std::sqrt(double(n) / ss);
  }
  const double lambda = 0.3, gamma = 3.0;
  std::vector<double> expected(d);
  for (std::size_t j = 0; j < d; ++j) {
    double z = 0;
    for (std::size_t i = 0; i < n; ++i) z += s.x[i * d + j] * s.y[i];
    expected[j] = firm(z / double(n), lambda, gamma);
  }
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, n, d});
  const prox::mcp pen(lambda, gamma);
  const std::vector<double> x0(d, 0.0);
  for (int memory : {1, 5}) {
    gist_options o;
    o.memory = memory;
    const auto r = gist(loss, pen, x0, o);
    EXPECT_EQ(r.status, termination::converged) << r.message;
    for (std::size_t j = 0; j < d; ++j) EXPECT_NEAR(r.x[j], expected[j], 1e-10) << j;
  }
  const auto w = gist_working_set(loss, pen, x0, gist_options{});
  EXPECT_EQ(w.status, termination::converged) << w.message;
  for (std::size_t j = 0; j < d; ++j) EXPECT_NEAR(w.x[j], expected[j], 1e-10) << j;
}

TEST(Gist, AgreesWithIndependentCoordinateDescentOnCorrelatedDesign) {
  const std::size_t n = 400, d = 40;
  const auto s = make_design(n, d, 6, 0.5, 0.5, 11);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, n, d});
  const std::vector<double> x0(d, 0.0);
  for (bool use_scad : {false, true}) {
    const double lambda = 0.1, gamma = use_scad ? 3.7 : 3.0;
    const auto cd = coordinate_descent(s, lambda, gamma, use_scad);
    const auto check = [&](const auto& pen) {
      const double f_cd = full_objective(s, pen, cd);
      const auto r = gist(loss, pen, x0, gist_options{});
      const auto w = gist_working_set(loss, pen, x0, gist_options{});
      EXPECT_EQ(r.status, termination::converged) << r.message;
      EXPECT_EQ(w.status, termination::converged) << w.message;
      EXPECT_NEAR(r.objective, f_cd, 1e-11 * f_cd);
      EXPECT_NEAR(w.objective, f_cd, 1e-11 * f_cd);
      EXPECT_NEAR(full_objective(s, pen, w.x), w.objective, 1e-12 * f_cd);
      for (std::size_t j = 0; j < d; ++j) {
        EXPECT_NEAR(r.x[j], cd[j], 1e-7) << j;
        EXPECT_NEAR(w.x[j], cd[j], 1e-7) << j;
      }
    };
    if (use_scad)
      check(prox::scad(lambda, gamma));
    else
      check(prox::mcp(lambda, gamma));
  }
}

TEST(Gist, WorkingSetMatchesPlainGistOnLogisticL1) {
  const std::size_t n = 300, d = 30;
  const auto s = make_design(n, d, 4, 0.3, 0.0, 5, true);
  const losses::glm_loss loss(losses::glm_kind::logistic, {s.x, s.y, n, d});
  const prox::l1_norm pen(0.03);
  const std::vector<double> x0(d, 0.0);
  const auto r = gist(loss, pen, x0, gist_options{});
  const auto w = gist_working_set(loss, pen, x0, gist_options{});
  EXPECT_EQ(r.status, termination::converged);
  EXPECT_EQ(w.status, termination::converged);
  EXPECT_NEAR(r.objective, w.objective, 1e-10 * r.objective);
  for (std::size_t j = 0; j < d; ++j) EXPECT_NEAR(r.x[j], w.x[j], 1e-5);
}

TEST(Gist, WorkingSetUnpenalizedInterceptIsFree) {
  // Intercept column of ones stored last: with a huge lambda all slopes are 0 and the intercept
  // is the mean of y.
  const std::size_t n = 50, d = 3;
  auto s = make_design(n, d, 2, 0.0, 0.5, 3);
  std::vector<double> x(n * (d + 1));
  double ybar = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) x[i * (d + 1) + j] = s.x[i * d + j];
    x[i * (d + 1) + d] = 1.0;
    s.y[i] += 3.0;
    ybar += s.y[i] / double(n);
  }
  const losses::glm_loss loss(losses::glm_kind::least_squares, {x, s.y, n, d + 1});
  const auto w =
      gist_working_set(loss, prox::l1_norm(100.0), std::vector<double>(d + 1, 0.0), {}, 1);
  EXPECT_EQ(w.status, termination::converged);
  for (std::size_t j = 0; j < d; ++j) EXPECT_EQ(w.x[j], 0.0);
  EXPECT_NEAR(w.x[d], ybar, 1e-10);
}

TEST(Gist, TraceIsLogSpacedAndMonotoneSearchDecreases) {
  const auto s = make_design(200, 20, 3, 0.5, 0.5, 2);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, 200, 20});
  gist_options o;
  o.memory = 1;
  o.max_iterations = 300;
  o.tol = 0;
  o.stationarity_tol = 0;
  const auto r = gist(loss, prox::mcp(0.05, 3.0), std::vector<double>(20, 0.0), o);
  ASSERT_GE(r.trace.size(), 12u);
  EXPECT_EQ(r.trace.front().iteration, 0);
  for (std::size_t i = 1; i < r.trace.size(); ++i) {
    EXPECT_GT(r.trace[i].iteration, r.trace[i - 1].iteration);
    EXPECT_LE(r.trace[i].objective, r.trace[i - 1].objective);  // monotone search
  }
  EXPECT_LE(r.trace.size(), 40u);  // 10 + 10 per decade + last
  EXPECT_EQ(r.trace.back().iteration, r.iterations);
}

TEST(QuadraticLoss, ValueAndGradientMatchDirectEvaluation) {
  const std::vector<double> g{2, 1, 1, 3}, c{1, -1};
  const quadratic_loss q(g, c, 0.5);
  const std::vector<double> b{0.3, -0.7};
  std::vector<double> grad(2);
  const double v = q.value_and_gradient(b, grad);
  const double direct = 0.5 * (2 * 0.09 + 2 * 1 * 0.3 * -0.7 + 3 * 0.49) - (0.3 + 0.7) + 0.5;
  EXPECT_NEAR(v, direct, 1e-15);
  EXPECT_NEAR(grad[0], 2 * 0.3 + 1 * -0.7 - 1, 1e-15);
  EXPECT_NEAR(grad[1], 1 * 0.3 + 3 * -0.7 + 1, 1e-15);
  EXPECT_EQ(q.value(b), v);
}

void expect_rejects(const gist_options& o, const std::string& field) {
  try {
    o.validate();
    ADD_FAILURE() << "accepted bad " << field;
  } catch (const core::invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(GistOptions, DefaultsValidAndBadFieldsNamed) {
  EXPECT_NO_THROW(gist_options{}.validate());
  gist_options o;
  o.max_iterations = 0;
  expect_rejects(o, "max_iterations");
  o = {};
  o.tol = -1;
  expect_rejects(o, "tol");
  o = {};
  o.sigma = 1.5;
  expect_rejects(o, "sigma");
  o = {};
  o.eta = 1.0;
  expect_rejects(o, "eta");
  o = {};
  o.memory = 0;
  expect_rejects(o, "memory");
  o = {};
  o.t_initial = 1e40;
  expect_rejects(o, "t_initial");
  o = {};
  o.trace.per_decade = 0;
  expect_rejects(o, "per_decade");
  const auto s = make_design(10, 2, 1, 0.0, 0.1, 1);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, 10, 2});
  EXPECT_THROW(gist(loss, prox::l1_norm(0.1), std::vector<double>(3, 0.0), gist_options{}),
               core::invalid_argument_error);
}

}  // namespace
}  // namespace dpx::solvers
