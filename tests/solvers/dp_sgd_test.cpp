// Properties checked (dpx::solvers::dp_sgd):
//  * Poisson subsampling: batch sizes over 400 steps have mean q n and variance n q (1 - q)
//    (5-sigma bounds: false-positive rate < 1e-5; a fixed-size sampler has variance 0 and fails),
//    and every example is sampled.
//  * With q = 1 and sigma = 0 one step equals theta - eta (1/n) sum_i clip_G(grad l_i) computed
//    here with an explicit per-example loop (least squares gradients (x_i^T theta - y_i) x_i).
//  * Events: one subsampled_gaussian_event{q, sigma} per step, add/remove relation; none at
//    sigma = 0.
//  * A public expected_batch_size B is the step's denominator (q = 1, sigma = 0, B = 2n against an
//    explicit loop); B = q n equals the default bit for bit; the guarantee text names the
//    convention (public B, or n treated as public).
//  * Proximal variant: a huge L1 penalty gives exactly 0.
//  * Bad options rejected naming the field.
#include <gtest/gtest.h>

#include <cmath>
#include <variant>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/dp_sgd.hpp"
#include "test_util.hpp"

namespace dpx::solvers {
namespace {

TEST(DpSgd, PoissonSamplingRateAndEvents) {
  const std::size_t n = 1000, d = 3;
  const auto s = testing::make_design(n, d, 2, 0.0, 0.5, 3);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, n, d});
  const testing::counting_loss counted{loss};
  dp_sgd_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.iterations = 400;
  o.sampling_rate = 0.05;
  o.noise_multiplier = 1.3;
  o.trace.record_objective = false;
  auto g = rng::stream(17, 0, 0, rng::purpose::noise);
  const auto r = dp_sgd(counted, prox::zero_penalty{}, std::vector<double>(d, 0.0), o, g);
  ASSERT_EQ(counted.batch_sizes.size(), 400u);
  double mean = 0, var = 0;
  for (auto b : counted.batch_sizes) mean += double(b) / 400;
  for (auto b : counted.batch_sizes) var += (double(b) - mean) * (double(b) - mean) / 399;
  const double mu = n * 0.05, v = n * 0.05 * 0.95;
  EXPECT_NEAR(mean, mu, 5 * std::sqrt(v / 400));
  EXPECT_NEAR(var, v, 5 * v * std::sqrt(2.0 / 399));
  for (int c : counted.inclusion) EXPECT_GT(c, 0);
  EXPECT_EQ(counted.values, 0);
  ASSERT_EQ(r.privacy_events.size(), 400u);
  for (const auto& e : r.privacy_events) {
    const auto& sg = std::get<core::subsampled_gaussian_event>(e);
    EXPECT_EQ(sg.sampling_rate, 0.05);
    EXPECT_EQ(sg.noise_multiplier, 1.3);
  }
  EXPECT_EQ(r.relation, core::neighbouring::add_remove);
  EXPECT_DOUBLE_EQ(r.noise_scale, 1.3 * o.clip_norm);
}

namespace {
// One full-batch least-squares step theta - eta (sum_i clip_G((x_i^T theta - y_i) x_i)) / denom,
// by an explicit per-example loop (independent of the library's gradient code); counts the
// clipped examples.
std::vector<double> clipped_step(const testing::design& s,
                                 const std::vector<double>& th0,
                                 double clip,
                                 double eta,
                                 double denom,
                                 int& clipped) {
  const std::size_t n = s.n, d = s.d;
  std::vector<double> out(th0);
  for (std::size_t i = 0; i < n; ++i) {
    double z = 0, nrm = 0;
    for (std::size_t j = 0; j < d; ++j) z += s.x[i * d + j] * th0[j];
    for (std::size_t j = 0; j < d; ++j) nrm += std::pow((z - s.y[i]) * s.x[i * d + j], 2);
    nrm = std::sqrt(nrm);
    const double c = nrm > clip ? clip / nrm : 1.0;
    clipped += nrm > clip;
    for (std::size_t j = 0; j < d; ++j) out[j] -= eta * c * (z - s.y[i]) * s.x[i * d + j] / denom;
  }
  return out;
}
}  // namespace

TEST(DpSgd, FullBatchNoiselessStepIsClippedGradientStep) {
  const std::size_t n = 50, d = 4;
  const auto s = testing::make_design(n, d, 2, 0.3, 1.0, 9);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, n, d});
  const std::vector<double> th0{0.1, -0.2, 0.3, 0.0};
  dp_sgd_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.iterations = 1;
  o.sampling_rate = 1.0;
  o.noise_multiplier = 0.0;
  o.clip_norm = 0.7;
  o.step_size = 0.5;
  auto g = rng::stream(1, 0, 0, rng::purpose::noise);
  const auto r = dp_sgd(loss, prox::zero_penalty{}, th0, o, g);
  int clipped = 0;
  const auto expected = clipped_step(s, th0, 0.7, 0.5, double(n), clipped);
  EXPECT_GT(clipped, 5);  // clipping is exercised
  for (std::size_t j = 0; j < d; ++j) EXPECT_NEAR(r.x[j], expected[j], 1e-14);
  EXPECT_TRUE(r.privacy_events.empty());
}

TEST(DpSgd, PublicExpectedBatchSizeIsTheDenominator) {
  // q = 1, sigma = 0, B = expected_batch_size = 2n: one step is theta - eta (sum_i clip_G(g_i)) /
  // (2n), computed here with an explicit per-example loop (least squares, (x_i^T th - y_i) x_i).
  const std::size_t n = 30, d = 3;
  const auto s = testing::make_design(n, d, 2, 0.1, 1.0, 12);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, n, d});
  const std::vector<double> th0{0.2, 0.1, -0.3};
  dp_sgd_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.iterations = 1;
  o.sampling_rate = 1.0;
  o.noise_multiplier = 0.0;
  o.clip_norm = 0.6;
  o.step_size = 0.5;
  o.expected_batch_size = 2.0 * n;
  auto g = rng::stream(2, 0, 0, rng::purpose::noise);
  const auto r = dp_sgd(loss, prox::zero_penalty{}, th0, o, g);
  int clipped = 0;
  const auto expected = clipped_step(s, th0, 0.6, 0.5, 2.0 * n, clipped);
  EXPECT_GT(clipped, 3);
  for (std::size_t j = 0; j < d; ++j) EXPECT_NEAR(r.x[j], expected[j], 1e-14);
  // B = q n reproduces the default (q n from loss.size()) bit for bit.
  o.expected_batch_size = 1.0 * n;
  auto g1 = rng::stream(2, 0, 0, rng::purpose::noise);
  const auto r_set = dp_sgd(loss, prox::zero_penalty{}, th0, o, g1);
  o.expected_batch_size = 0;
  auto g2 = rng::stream(2, 0, 0, rng::purpose::noise);
  const auto r_default = dp_sgd(loss, prox::zero_penalty{}, th0, o, g2);
  for (std::size_t j = 0; j < d; ++j) EXPECT_EQ(r_set.x[j], r_default.x[j]);
  // The guarantee text states which denominator convention the run used.
  o.noise_multiplier = 1.0;
  auto g3 = rng::stream(3, 0, 0, rng::purpose::noise);
  const auto r_n = dp_sgd(loss, prox::zero_penalty{}, th0, o, g3);
  EXPECT_NE(r_n.guarantee.find("treated as PUBLIC"), std::string::npos) << r_n.guarantee;
  o.expected_batch_size = 25;
  const auto r_b = dp_sgd(loss, prox::zero_penalty{}, th0, o, g3);
  EXPECT_NE(r_b.guarantee.find("PUBLIC expected batch size 25"), std::string::npos)
      << r_b.guarantee;
}

TEST(DpSgd, ProximalVariantWithHugeL1IsZero) {
  const auto s = testing::make_design(100, 5, 2, 0.0, 0.5, 2);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, 100, 5});
  dp_sgd_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.iterations = 30;
  o.sampling_rate = 0.2;
  o.schedule = step_schedule::inverse_sqrt;
  auto g = rng::stream(4, 0, 0, rng::purpose::noise);
  const auto r = dp_sgd(loss, prox::l1_norm(1e6), std::vector<double>(5, 0.0), o, g);
  for (double v : r.x) EXPECT_EQ(v, 0.0);
}

TEST(DpSgdOptions, BadFieldsNamed) {
  const auto check = [](const dp_sgd_options& o, const std::string& field) {
    try {
      o.validate();
      ADD_FAILURE() << field;
    } catch (const core::invalid_argument_error& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  EXPECT_NO_THROW(dp_sgd_options{}.validate());
  dp_sgd_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.sampling_rate = 0;
  check(o, "sampling_rate");
  o = {};
  o.sampling_rate = 1.5;
  check(o, "sampling_rate");
  o = {};
  o.clip_norm = 0;
  check(o, "clip_norm");
  o = {};
  o.noise_multiplier = -1;
  check(o, "noise_multiplier");
  o = {};
  o.iterations = 0;
  check(o, "iterations");
  o = {};
  o.expected_batch_size = -1;
  check(o, "expected_batch_size");
}

}  // namespace
}  // namespace dpx::solvers
