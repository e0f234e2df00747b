// Properties checked (dpx::solvers::pgd, calibration.hpp):
//  * Nonprivate PGD onto an L2 ball converges to the constrained minimiser found by GIST with the
//    same projection, and the averaged iterate meets Theorem 1's bound R G / sqrt(T).
//  * Per-coordinate Laplace: basic scale b = (2G/n) T d / eps exactly; advanced (DRV) eps0
//    satisfies sqrt(2k ln(1/delta)) eps0 + k eps0 (e^eps0 - 1) = eps (to 1e-12) with k = T d.
//  * L2-calibrated Laplace: x = Delta / b solves x^2/2 + x sqrt(2 ln(1/delta_it)) = eps_it, with
//    the per-iteration budget of the rule.
//  * Gaussian: the tight sigma gives delta at eps for T composed releases (Balle-Wang formula).
//  * Events: T*d laplace events (b / Delta), T approx_dp events, T gaussian events; add/remove
//    with the public normaliser n_bar = n halves the sensitivity (G / n_bar; see
//    public_normaliser_test.cpp for n_bar != n and a brute-force check).
//  * Bad options rejected naming the field.
#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <variant>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/gist.hpp"
#include "dpx/solvers/pgd.hpp"
#include "test_util.hpp"

namespace dpx::solvers {
namespace {

TEST(Pgd, NonprivateConvergesToConstrainedMinimiserWithinTheorem1Bound) {
  const std::size_t n = 200, d = 5;
  const auto s = testing::make_design(n, d, 3, 0.2, 0.3, 4);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, n, d});
  const prox::l2_ball ball(0.5);
  const std::vector<double> w0(d, 0.0);
  gist_options go;
  go.trace.enabled = false;
  const auto ref = gist(loss, ball, w0, go);
  EXPECT_NEAR(std::sqrt(detail::dot(ref.x, ref.x)), 0.5, 1e-9);  // constraint active
  const double l_star = loss.value(ref.x);
  pgd_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.iterations = 2000;
  o.output = iterate_output::last;
  o.step_size = 1.0 / loss.smoothness();
  auto g = rng::stream(1, 0, 0, rng::purpose::noise);
  const auto last = pgd(loss, ball, w0, o, g);
  for (std::size_t j = 0; j < d; ++j) EXPECT_NEAR(last.x[j], ref.x[j], 1e-8);
  // Theorem 1: eta = R / (G sqrt T), R = diameter 1, G = sup of ||grad|| over the ball.
  double gmax = 0;
  {
    std::vector<double> grad(d), w(d);
    rng::philox4x32 u = rng::stream(2, 0, 0, rng::purpose::data);
    for (int rep = 0; rep < 2000; ++rep) {
      double nn = 0;
      for (auto& v : w) {
        v = u.uniform01() - 0.5;
        nn += v * v;
      }
      for (auto& v : w) v *= 0.5 / std::sqrt(nn);  // on the sphere, where ||grad|| is largest
      loss.value_and_gradient(w, grad);
      gmax = std::fmax(gmax, std::sqrt(detail::dot(grad, grad)));
    }
    gmax *= 1.2;
  }
  o.output = iterate_output::average;
  o.iterations = 400;
  o.step_size = 1.0 / (gmax * std::sqrt(400.0));
  const auto avg = pgd(loss, ball, w0, o, g);
  EXPECT_LE(loss.value(avg.x) - l_star, 1.0 * gmax / std::sqrt(400.0));
  EXPECT_TRUE(avg.privacy_events.empty());
}

pgd_options private_options(pgd_noise noise) {
  pgd_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.noise = noise;
  o.iterations = 20;
  o.clip_norm = 2.0;
  o.target = core::epsilon_delta{1.0, 1e-6};
  o.step_size = 0.1;
  o.calibration = noise_calibration::paper;
  o.trace.enabled = false;
  return o;
}

double balle_wang_delta(double eps, double m) {
  const boost::math::normal_distribution<double> nd;
  return boost::math::cdf(nd, 1 / (2 * m) - eps * m) -
         std::exp(eps) * boost::math::cdf(nd, -1 / (2 * m) - eps * m);
}

TEST(Pgd, NoiseScalesAndEventsMatchCalibrationFormulas) {
  const std::size_t n = 100, d = 4;
  const auto s = testing::make_design(n, d, 2, 0.0, 0.3, 8);
  const losses::glm_loss loss(losses::glm_kind::logistic, {s.x, std::vector<double>(n, 1.0), n, d});
  (void)s;
  const prox::l2_ball ball(1.0);
  const std::vector<double> w0(d, 0.0);
  auto g = rng::stream(5, 0, 0, rng::purpose::noise);
  const double delta_coord = 2 * 2.0 / n;
  // per-coordinate, basic
  auto o = private_options(pgd_noise::laplace_per_coordinate);
  o.laplace_rule = laplace_composition::basic;
  auto r = pgd(loss, ball, w0, o, g);
  EXPECT_DOUBLE_EQ(r.noise_scale, delta_coord * 20 * 4 / 1.0);
  ASSERT_EQ(r.privacy_events.size(), 80u);
  EXPECT_DOUBLE_EQ(std::get<core::laplace_event>(r.privacy_events[0]).noise_multiplier,
                   r.noise_scale / delta_coord);
  EXPECT_EQ(r.delta_target, 0.0);
  // per-coordinate, advanced (DRV over k = 80)
  o.laplace_rule = laplace_composition::advanced;
  r = pgd(loss, ball, w0, o, g);
  const double e0 = delta_coord / r.noise_scale, k = 80;
  EXPECT_NEAR(std::sqrt(2 * k * std::log(1 / 1e-6)) * e0 + k * e0 * std::expm1(e0), 1.0, 1e-12);
  // L2 Laplace, advanced split: eps_it from DRV over T = 20 with slack delta/2
  o.noise = pgd_noise::laplace_l2;
  r = pgd(loss, ball, w0, o, g);
  ASSERT_EQ(r.privacy_events.size(), 20u);
  const auto ev = std::get<core::approx_dp_event>(r.privacy_events[0]);
  EXPECT_DOUBLE_EQ(ev.delta, 1e-6 / 40);
  EXPECT_NEAR(std::sqrt(2 * 20 * std::log(2 / 1e-6)) * ev.epsilon +
                  20 * ev.epsilon * std::expm1(ev.epsilon),
              1.0,
              1e-12);
  const double x = r.sensitivity / r.noise_scale;
  EXPECT_NEAR(x * x / 2 + x * std::sqrt(2 * std::log(1 / ev.delta)), ev.epsilon, 1e-13);
  // Gaussian, tight, add/remove with the public normaliser n_bar = n: sensitivity G / n_bar
  o.noise = pgd_noise::gaussian;
  o.calibration = noise_calibration::tight;
  o.relation = core::neighbouring::add_remove;
  o.public_size = n;
  r = pgd(loss, ball, w0, o, g);
  EXPECT_DOUBLE_EQ(r.sensitivity, 2.0 / n);
  EXPECT_NE(r.guarantee.find("PUBLIC normaliser n_bar = 100"), std::string::npos) << r.guarantee;
  ASSERT_EQ(r.privacy_events.size(), 20u);
  const double m = std::get<core::gaussian_event>(r.privacy_events[0]).noise_multiplier;
  EXPECT_DOUBLE_EQ(m, r.noise_scale / r.sensitivity);
  EXPECT_NEAR(balle_wang_delta(1.0, m / std::sqrt(20.0)), 1e-6, 1e-12);
}

TEST(PgdOptions, BadFieldsNamed) {
  const auto check = [](const pgd_options& o, const std::string& field) {
    try {
      o.validate();
      ADD_FAILURE() << field;
    } catch (const core::invalid_argument_error& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  EXPECT_NO_THROW(pgd_options{}.validate());
  auto o = private_options(pgd_noise::gaussian);
  o.clip_norm = 0;
  check(o, "clip_norm");
  o = private_options(pgd_noise::gaussian);
  o.target->epsilon = 0;
  check(o, "epsilon");
  o = private_options(pgd_noise::gaussian);
  o.step_size = -1;
  check(o, "step_size");
  o = private_options(pgd_noise::laplace_l2);
  o.calibration = noise_calibration::fixed;
  o.noise_scale = 1;
  check(o, "calibration");
  o = private_options(pgd_noise::gaussian);
  o.target->delta = 0;
  check(o, "delta");
  EXPECT_THROW(parse_pgd_noise("cauchy"), core::invalid_argument_error);
}

}  // namespace
}  // namespace dpx::solvers
