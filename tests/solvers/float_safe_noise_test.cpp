// The private solvers' default noise is float-safe (issue 21, "safe by default"; docs/solvers.md
// "Noise kind"):
// - ISTDP and noisy PGD (Gaussian, tight) draw float_safe_gaussian noise and report one
//   zcdp_event per release; an independent zCDP accountant with Bun & Steinke's conversion
//   gives exactly the target epsilon (the calibration inverts that conversion), the numerical
//   (CKS) conversion at most the target, and twice the releases exceed it (power);
// - (DP-SGD's float-safe steps: dp_sgd_float_safe_test.cpp);
// - per-coordinate Laplace reports pure_dp events of eps0 = Delta / b; the continuous-only
//   calibrations (ISTDP Theorem 3.3, L2-calibrated Laplace) are refused with float_safe, naming
//   noise_kind;
// - the same seed gives different iterates with research_grade (a different noise law).
// Deterministic: no false-positive rate.
#include <gtest/gtest.h>

#include <cmath>
#include <variant>
#include <vector>

#include "dpx/accounting/zcdp.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/calibration.hpp"
#include "dpx/solvers/istdp.hpp"
#include "dpx/solvers/pgd.hpp"
#include "test_util.hpp"

namespace dpx::solvers {
namespace {

struct problem {
  testing::design s = testing::make_design(200, 5, 2, 0.3, 0.3, 17);
  losses::glm_loss loss{losses::glm_kind::least_squares, {s.x, s.y, s.n, s.d}};
};

double zcdp_epsilon_of(const core::event_log& events,
                       double delta,
                       accounting::zcdp_conversion c,
                       int repeat = 1) {
  accounting::zcdp_accountant acc(c);
  for (int r = 0; r < repeat; ++r)
    for (const auto& run : events.runs()) acc.compose(run.event, run.count);
  return acc.epsilon(delta);
}

void expect_all_zcdp(const core::event_log& events) {
  for (const auto& run : events.runs()) EXPECT_EQ(core::event_name(run.event), "zcdp");
}

istdp_options strict_istdp() {
  istdp_options o;
  o.iterations = 40;
  o.public_smoothness = 10.0;
  o.alpha_max = 0.1;
  o.alpha_min = 1e-3;
  o.clip_norm = 2.0;
  o.target = core::epsilon_delta{1.0, 1e-5};
  o.trace.enabled = false;
  return o;
}

TEST(FloatSafeNoise, IstdpDefaultIsFloatSafeAndAccountedByZcdp) {
  problem p;
  const std::vector<double> zero(p.s.d, 0.0);
  const auto o = strict_istdp();
  ASSERT_EQ(o.noise_kind, mechanisms::noise_kind::float_safe);
  auto g = rng::stream(3, 0, 0, rng::purpose::noise);
  const auto r = istdp(p.loss, prox::mcp(0.05, 3.0), zero, o, g);
  ASSERT_EQ(r.privacy_events.size(), 39u);
  expect_all_zcdp(r.privacy_events);
  const double bs =
      zcdp_epsilon_of(r.privacy_events, o.target->delta, accounting::zcdp_conversion::bun_steinke);
  EXPECT_NEAR(bs, o.target->epsilon, 1e-9);
  EXPECT_LE(
      zcdp_epsilon_of(r.privacy_events, o.target->delta, accounting::zcdp_conversion::numerical),
      o.target->epsilon);
  EXPECT_GT(zcdp_epsilon_of(
                r.privacy_events, o.target->delta, accounting::zcdp_conversion::bun_steinke, 2),
            1.3 * o.target->epsilon);
  EXPECT_NE(r.guarantee.find("zCDP"), std::string::npos) << r.guarantee;
  // The research-grade run from the same stream draws a different law.
  auto orr = o;
  orr.noise_kind = mechanisms::noise_kind::research_grade;
  auto g2 = rng::stream(3, 0, 0, rng::purpose::noise);
  const auto rr = istdp(p.loss, prox::mcp(0.05, 3.0), zero, orr, g2);
  EXPECT_NE(r.x, rr.x);
  EXPECT_EQ(core::event_name(rr.privacy_events.runs().front().event), "gaussian");
  EXPECT_GT(r.noise_scale, rr.noise_scale);  // zCDP needs more noise than the exact curve
}

TEST(FloatSafeNoise, IstdpPaperCalibrationNeedsResearchGrade) {
  auto o = strict_istdp();
  o.calibration = noise_calibration::paper;
  try {
    o.validate();
    FAIL() << "float_safe with Theorem 3.3 accepted";
  } catch (const core::invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("noise_kind"), std::string::npos) << e.what();
  }
  o.noise_kind = mechanisms::noise_kind::research_grade;
  EXPECT_NO_THROW(o.validate());
}

TEST(FloatSafeNoise, NoisyPgdGaussianAndPerCoordinateLaplace) {
  problem p;
  const std::vector<double> zero(p.s.d, 0.0);
  pgd_options o;
  o.noise = pgd_noise::gaussian;
  o.iterations = 30;
  o.clip_norm = 1.0;
  o.target = core::epsilon_delta{1.0, 1e-6};
  o.step_size = 0.1;
  o.trace.enabled = false;
  auto g = rng::stream(5, 0, 0, rng::purpose::noise);
  auto r = pgd(p.loss, prox::l2_ball(1.0), zero, o, g);
  ASSERT_EQ(r.privacy_events.size(), 30u);
  expect_all_zcdp(r.privacy_events);
  EXPECT_NEAR(
      zcdp_epsilon_of(r.privacy_events, o.target->delta, accounting::zcdp_conversion::bun_steinke),
      o.target->epsilon,
      1e-9);
  // Per-coordinate Laplace: T d pure releases of eps0 = Delta / b (exact for the grid release).
  o.noise = pgd_noise::laplace_per_coordinate;
  o.calibration = noise_calibration::paper;
  o.laplace_rule = laplace_composition::basic;
  r = pgd(p.loss, prox::l2_ball(1.0), zero, o, g);
  ASSERT_EQ(r.privacy_events.size(), 30u * p.s.d);
  double total = 0;
  for (const auto& run : r.privacy_events.runs()) {
    ASSERT_EQ(core::event_name(run.event), "pure_dp");
    total += std::get<core::pure_dp_event>(run.event).epsilon * static_cast<double>(run.count);
  }
  EXPECT_NEAR(total, o.target->epsilon, 1e-12);  // basic composition of eps / (T d) each
  // L2-calibrated Laplace is the continuous law's argument: refused, naming noise_kind.
  o.noise = pgd_noise::laplace_l2;
  EXPECT_THROW(o.validate(), core::invalid_argument_error);
  o.noise_kind = mechanisms::noise_kind::research_grade;
  EXPECT_NO_THROW(o.validate());
}

}  // namespace
}  // namespace dpx::solvers
