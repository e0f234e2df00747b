// Properties checked (dpx::solvers::frank_wolfe; docs/solvers.md, DP Frank–Wolfe):
//  * Nonprivate Frank–Wolfe on the L1 ball meets Jaggi 2013 Thm. 1, L(theta_T) - L* <=
//    2 Gamma / (T + 2) with Gamma <= L_s (2r)^2, against the constrained optimum found
//    independently by GIST with the L1-ball projection; iterates stay in the ball.
//  * Noiseless limit: the private selection at eps0 = 1e9 reproduces the nonprivate iterates.
//  * Calibration: tight eps0 solves rho + 2 sqrt(rho ln(1/delta)) = epsilon with
//    rho = T eps0^2 / 8 (closed form), and dpx::accounting's zCDP accountant (CKS conversion)
//    reports epsilon <= target for the run's own events; paper eps0 meets the DRV equation.
//  * Utility sensitivity: 2 r G / n (replace-one), r G / n_bar (add/remove).
//  * Selection law (chi-square, fixed seeds, FPR 1e-3): with T = 1 from 0 the output is the
//    selected vertex, whose frequencies over 20000 seeds match softmax(eps0 u / (2 Delta_u))
//    computed from the per-example gradients clamped to coordinate_bound by hand (some are).
//  * coordinate_bound mode: every per-example gradient is clamped to the public L_inf bound
//    before averaging; a record whose gradient is (-10, -0.1, 10) gives, draw for draw over 200
//    seeds, the release of one whose gradient is (-1, -0.1, 1) (the clamp done by hand).
//  * Bad options rejected naming the field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <variant>
#include <vector>

#include "dpx/accounting/calibration.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/calibration.hpp"
#include "dpx/solvers/frank_wolfe.hpp"
#include "dpx/solvers/gist.hpp"
#include "test_util.hpp"

namespace dpx::solvers {
namespace {

TEST(FrankWolfe, NonprivateMeetsJaggiBoundAgainstGistOnL1Ball) {
  const std::size_t n = 300, d = 8;
  const auto s = testing::make_design(n, d, 3, 0.3, 0.2, 11);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, n, d});
  const double r = 1.5;  // ||beta||_1 = 3: the constraint is active
  gist_options go;
  go.trace.enabled = false;
  go.tol = 1e-14;
  go.stationarity_tol = 1e-12;
  const std::vector<double> zero(d, 0.0);
  const auto ref = gist(loss, prox::l1_ball(r), zero, go);
  const double l_star = loss.value(ref.x);
  const double ls = loss.smoothness();
  for (std::int64_t t : {10, 100, 1000}) {
    frank_wolfe_options o;
    o.noise_kind = mechanisms::noise_kind::research_grade;
    o.iterations = t;
    o.radius = r;
    o.trace.enabled = false;
    auto g = rng::stream(1, 0, 0, rng::purpose::noise);
    const auto res = frank_wolfe(loss, zero, o, g);
    double l1 = 0;
    for (double v : res.x) l1 += std::fabs(v);
    EXPECT_LE(l1, r * (1 + 1e-12));
    const double gap = loss.value(res.x) - l_star;
    EXPECT_GE(gap, -1e-10);
    EXPECT_LE(gap, 2.0 * ls * 4.0 * r * r / (double(t) + 2.0)) << "T = " << t;
    EXPECT_TRUE(res.privacy_events.empty());
  }
}

TEST(FrankWolfe, HugeEpsilonReproducesNonprivateIterates) {
  const std::size_t n = 200, d = 6;
  const auto s = testing::make_design(n, d, 2, 0.2, 0.3, 12);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, n, d});
  const std::vector<double> zero(d, 0.0);
  frank_wolfe_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;
  o.iterations = 50;
  o.radius = 1.0;
  o.trace.enabled = false;
  auto g0 = rng::stream(2, 0, 0, rng::purpose::noise);
  const auto ref = frank_wolfe(loss, zero, o, g0);
  o.private_selection = true;
  o.clip_norm = 1e6;  // no clipping
  o.calibration = noise_calibration::fixed;
  o.step_epsilon = 1e9;
  auto g1 = rng::stream(3, 0, 0, rng::purpose::noise);
  const auto priv = frank_wolfe(loss, zero, o, g1);
  for (std::size_t j = 0; j < d; ++j) EXPECT_NEAR(priv.x[j], ref.x[j], 1e-12);
  EXPECT_EQ(priv.privacy_events.size(), 50u);
}

TEST(FrankWolfe, TightCalibrationClosedFormAndAccountant) {
  for (double eps : {0.1, 1.0, 8.0}) {
    for (std::int64_t t : {1, 30, 500}) {
      frank_wolfe_options o;
      o.noise_kind = mechanisms::noise_kind::research_grade;
      o.private_selection = true;
      o.clip_norm = 1.0;
      o.iterations = t;
      o.target = core::epsilon_delta{eps, 1e-6};
      const double e0 = frank_wolfe_step_epsilon(o);
      const double rho = double(t) * e0 * e0 / 8.0, l = std::log(1e6);
      EXPECT_NEAR(rho + 2.0 * std::sqrt(rho * l), eps, 1e-10 * eps);
      auto acc = accounting::make_accountant(accounting::method::zcdp);
      acc->compose(core::exponential_mechanism_event{e0}, t);
      EXPECT_LE(acc->epsilon(1e-6), eps * (1 + 1e-9));
      o.calibration = noise_calibration::paper;
      const double p0 = frank_wolfe_step_epsilon(o);
      const double k = double(t);
      EXPECT_LE(std::sqrt(2 * k * l) * p0 + k * p0 * std::expm1(p0), eps * (1 + 1e-9));
      EXPECT_LT(p0, e0);  // advanced composition is looser than the zCDP route
    }
  }
}

TEST(FrankWolfe, UtilitySensitivityClosedForm) {
  frank_wolfe_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;
  o.private_selection = true;
  o.radius = 3.0;
  o.clip_norm = 0.5;
  EXPECT_DOUBLE_EQ(frank_wolfe_utility_sensitivity(o, 100), 2.0 * 3.0 * 0.5 / 100.0);
  o.relation = core::neighbouring::add_remove;
  o.public_size = 400;
  EXPECT_DOUBLE_EQ(frank_wolfe_utility_sensitivity(o, 100), 3.0 * 0.5 / 400.0);
  o.clip_norm = 0;
  o.coordinate_bound = 0.1;
  EXPECT_DOUBLE_EQ(frank_wolfe_utility_sensitivity(o, 100), 3.0 * 0.1 / 400.0);
}

TEST(FrankWolfe, CoordinateBoundClampsPerExampleGradients) {
  // Least squares at theta = 0: grad l_i = -y_i x_i. A record with gradient (-10, -0.1, 10)
  // outside the public L_inf bound 1 must act exactly like one with gradient (-1, -0.1, 1):
  // one private selection, the same seed, the same output.
  const std::size_t n = 20, d = 3;
  std::vector<double> x_far(n * d), x_near, y(n);
  for (std::size_t i = 0; i < n; ++i) {  // |y_i x_ij| <= 0.15: inside the bound
    y[i] = 0.5 * std::cos(double(i));
    for (std::size_t j = 0; j < d; ++j) x_far[i * d + j] = 0.3 * std::sin(double(i + 2 * j));
  }
  x_near = x_far;
  const double far[3] = {10.0, 0.1, -10.0}, near[3] = {1.0, 0.1, -1.0};
  for (std::size_t j = 0; j < d; ++j) {
    x_far[j] = far[j];
    x_near[j] = near[j];
  }
  y[0] = 1.0;
  const losses::glm_loss lf(losses::glm_kind::least_squares, {x_far, y, n, d});
  const losses::glm_loss ln(losses::glm_kind::least_squares, {x_near, y, n, d});
  frank_wolfe_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;
  o.iterations = 1;
  o.private_selection = true;
  o.coordinate_bound = 1.0;
  o.calibration = noise_calibration::fixed;
  o.step_epsilon = 2.0;
  o.trace.enabled = false;
  const std::vector<double> zero(d, 0.0);
  for (std::uint64_t rep = 0; rep < 200; ++rep) {
    auto g1 = rng::stream(78, 0, rep, rng::purpose::noise);
    auto g2 = rng::stream(78, 0, rep, rng::purpose::noise);
    ASSERT_EQ(frank_wolfe(lf, zero, o, g1).x, frank_wolfe(ln, zero, o, g2).x) << rep;
  }
}

TEST(FrankWolfe, FirstSelectionFollowsExponentialMechanismLaw) {
  const std::size_t n = 50, d = 3;
  const auto s = testing::make_design(n, d, 2, 0.0, 0.5, 13);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, n, d});
  const std::vector<double> zero(d, 0.0);
  frank_wolfe_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;
  o.iterations = 1;
  o.radius = 2.0;
  o.private_selection = true;
  o.coordinate_bound = 5.0;  // per-example gradients clamped to [-5, 5] coordinate-wise
  o.calibration = noise_calibration::fixed;
  o.step_epsilon = 0.5;
  o.trace.enabled = false;
  // Independent law: the per-example gradients at 0 are -y_i x_i; their coordinates clamped to
  // [-5, 5] and averaged give g; u(+r e_j) = -r g_j, u(-r e_j) = r g_j.
  std::vector<double> grad(d, 0.0);
  int clamped = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j) {
      const double gij = -s.x[i * d + j] * s.y[i];
      clamped += std::fabs(gij) > o.coordinate_bound;
      grad[j] += std::clamp(gij, -o.coordinate_bound, o.coordinate_bound) / double(n);
    }
  EXPECT_GT(clamped, 0);  // the design exercises the clamp
  const double du = 2.0 * o.radius * o.coordinate_bound / double(n);
  std::vector<double> p(2 * d);
  double z = 0;
  for (std::size_t j = 0; j < d; ++j) {
    p[2 * j] = std::exp(o.step_epsilon * (-o.radius * grad[j]) / (2 * du));
    p[2 * j + 1] = std::exp(o.step_epsilon * (o.radius * grad[j]) / (2 * du));
    z += p[2 * j] + p[2 * j + 1];
  }
  for (double& v : p) v /= z;
  const int reps = 20000;
  std::vector<double> count(2 * d, 0.0);
  for (int rep = 0; rep < reps; ++rep) {
    auto g = rng::stream(77, 0, static_cast<std::uint64_t>(rep), rng::purpose::noise);
    const auto res = frank_wolfe(loss, zero, o, g);
    for (std::size_t j = 0; j < d; ++j) {
      if (res.x[j] > 0) count[2 * j] += 1;
      if (res.x[j] < 0) count[2 * j + 1] += 1;
    }
  }
  double chi2 = 0;
  for (std::size_t c = 0; c < 2 * d; ++c) {
    ASSERT_GT(p[c] * reps, 20.0);  // the law is non-degenerate (test has power)
    chi2 += (count[c] - reps * p[c]) * (count[c] - reps * p[c]) / (reps * p[c]);
  }
  EXPECT_LT(chi2, 20.515);  // chi-square(5) 0.999 quantile: FPR 1e-3
}

TEST(FrankWolfe, RejectsBadOptions) {
  const std::size_t n = 20, d = 3;
  const auto s = testing::make_design(n, d, 1, 0.0, 0.5, 14);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, n, d});
  auto g = rng::stream(1, 0, 0, rng::purpose::noise);
  const std::vector<double> zero(d, 0.0), far{2.0, 0.0, 0.0};
  frank_wolfe_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;
  o.radius = -1;
  EXPECT_THROW(frank_wolfe(loss, zero, o, g), core::invalid_argument_error);
  o.radius = 1;
  EXPECT_THROW(frank_wolfe(loss, far, o, g), core::invalid_argument_error);
  o.private_selection = true;  // neither clip_norm nor coordinate_bound
  o.target = core::epsilon_delta{1.0, 1e-6};
  EXPECT_THROW(frank_wolfe(loss, zero, o, g), core::invalid_argument_error);
  o.clip_norm = 1;
  o.relation = core::neighbouring::add_remove;  // no public_size
  EXPECT_THROW(frank_wolfe(loss, zero, o, g), core::invalid_argument_error);
  o.public_size = n;
  o.target->delta = 0;
  EXPECT_THROW(frank_wolfe(loss, zero, o, g), core::invalid_argument_error);
  frank_wolfe_options ok;
  ok.noise_kind = mechanisms::noise_kind::research_grade;
  EXPECT_NO_THROW(ok.validate());
}

}  // namespace
}  // namespace dpx::solvers
