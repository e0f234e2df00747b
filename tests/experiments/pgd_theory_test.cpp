// The oracles of noisy_pgd_rates (experiments/pgd_theory) against values computed by hand at
// one cell of the preset each, and dpx's noisy-PGD calibration against the oracles.
//
// Hand values: mpmath at 40 digits (drv: findroot of sqrt(2k ln(1/delta)) e0 + k e0 (e^e0 - 1)
// = eps; GDP: bisection of Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = delta), then
// b = Delta/eps0, b = Delta/x, sigma = sqrt(T) Delta/mu; the quadratic oracle by hand.
#include "pgd_theory.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "dpx/solvers/pgd.hpp"

namespace pt = dpx::experiments::pgd_theory;

namespace {

constexpr double delta = 1e-6;
constexpr double G_ls = 0.5 + 0.5 / 3 + 0.1;  // least_squares.hpp's Lipschitz bound, r = 0.5

TEST(PgdTheory, ReplaceOneSensitivityIsTwoGOverN) {
  EXPECT_DOUBLE_EQ(pt::replace_one_sensitivity(1.0, 16000), 2.0 / 16000);
  EXPECT_THROW(pt::replace_one_sensitivity(1.0, 0), std::invalid_argument);
}

TEST(PgdTheory, DrvStepEpsilonMatchesHandValueAndInvertsTheFormula) {
  // Cell `n`, n = 16000, d = 4, T = 115812: k = T d = 463248 releases.
  const std::int64_t k = 115812 * 4;
  const double e0 = pt::drv_step_epsilon(1.0, k, delta);
  EXPECT_NEAR(e0, 0.0002700634070954009848, 1e-13 * e0);
  EXPECT_NEAR(pt::drv_total_epsilon(e0, k, delta), 1.0, 1e-13);
}

TEST(PgdTheory, LaplacePerCoordinateScaleAtCellN16000) {
  const double b = pt::laplace_per_coordinate_scale(
      1.0, delta, 115812, 4, pt::replace_one_sensitivity(1.0, 16000));
  EXPECT_NEAR(b, 0.4628542657607931578, 1e-12 * b);
}

TEST(PgdTheory, LaplaceL2ScaleAtCellDl2N30000) {
  // Cell `d_l2`, laplace_l2, n = 30000, d = 4, T = 20358 (eps_it = 0.0012590641272546294,
  // delta_it = delta / (2T), x = 1.8012190361757031e-4).
  const double b = pt::laplace_l2_scale(1.0, delta, 20358, pt::replace_one_sensitivity(1.0, 30000));
  EXPECT_NEAR(b, 0.3701197096395973717, 1e-12 * b);
}

TEST(PgdTheory, GaussianSigmaAtCellDlsN8000) {
  // Cell `d_ls`, n = 8000, d = 8, T = 115812, G = r + r/3 + 0.1: mu(1, 1e-6) = 0.23670438066343571.
  EXPECT_NEAR(pt::gdp_mu(1.0, delta), 0.2367043806634357096, 1e-13);
  const double s = pt::gaussian_sigma(1.0, delta, 115812, pt::replace_one_sensitivity(G_ls, 8000));
  EXPECT_NEAR(s, 0.2755605705928405125, 1e-12 * s);
  EXPECT_NEAR(pt::gdp_delta(pt::gdp_mu(1.0, delta), 1.0), delta, 1e-12 * delta);
}

TEST(PgdTheory, NoiseVarianceIsTwoBSquaredForLaplace) {
  EXPECT_DOUBLE_EQ(pt::noise_variance(pt::noise::laplace_per_coordinate, 0.5), 0.5);
  EXPECT_DOUBLE_EQ(pt::noise_variance(pt::noise::laplace_l2, 0.5), 0.5);
  EXPECT_DOUBLE_EQ(pt::noise_variance(pt::noise::gaussian, 0.5), 0.25);
}

TEST(PgdTheory, QuadraticPrivacyPartMatchesTheSumByHand) {
  // lambda = {1, 1/2}, eta = 0.1, T = 3, v = 1: q = 0.9 gives S = 0.01 + 0.0361 + 0.073441 =
  // 0.119541; q = 0.95 gives S = 0.0025 + 0.00950625 + 0.020341890625 = 0.032348140625;
  // (0.119541 / 1 + 0.032348140625 / 0.5) / (2 * 9) = 0.18423728125 / 18.
  const std::vector<double> lambda{1.0, 0.5};
  EXPECT_NEAR(pt::quadratic_privacy_part(lambda, 0.1, 1.0, 3), 0.18423728125 / 18, 1e-15);
  // Linear in the variance.
  EXPECT_NEAR(pt::quadratic_privacy_part(lambda, 0.1, 2.5, 3), 2.5 * 0.18423728125 / 18, 1e-15);
  EXPECT_THROW(pt::quadratic_privacy_part(lambda, 2.5, 1.0, 3), std::invalid_argument);
}

TEST(PgdTheory, LinearBallExcessMatchesHandValues) {
  // ||m|| = 0.5, r = 0.5, eta = 0.3: t eta ||m|| = 0.15, 0.30, 0.45, then r; T = 4 averages
  // (0.15 + 0.30 + 0.45 + 0.5)/4 = 0.35, excess 0.5 (0.5 - 0.35) = 0.075.
  EXPECT_NEAR(pt::linear_ball_excess(0.5, 0.5, 0.3, 4), 0.075, 1e-15);
  // T = 2: no iterate reaches the sphere, average 0.225, excess 0.5 * 0.275.
  EXPECT_NEAR(pt::linear_ball_excess(0.5, 0.5, 0.3, 2), 0.1375, 1e-15);
  // An iterate exactly on the sphere (2 * 0.25 = r): 0.25, 0.5, 0.5 -> excess 1/12.
  EXPECT_NEAR(pt::linear_ball_excess(1.0, 0.5, 0.25, 3), 1.0 / 12, 1e-15);
  // Theorem 1's step R/(G sqrt T) at T = 1e4 (||m|| = r = 0.5, G = 1): s = 0.0025, 199 iterates
  // inside, sum 49.75 + 9801 * 0.5 = 4950.25, excess 0.5 (0.5 - 0.495025) = 0.0024875
  // = r/(2 sqrt T) - ||m|| r/(2T).
  EXPECT_NEAR(pt::linear_ball_excess(0.5, 0.5, 0.005, 10000), 0.0024875, 1e-15);
  EXPECT_THROW(pt::linear_ball_excess(0.0, 0.5, 0.3, 4), std::invalid_argument);
}

// dpx's calibration (solvers::pgd_calibrate, the code the experiment runs) equals the oracles
// at the preset's cells: replace-one, per-example clip G, research-grade noise.
dpx::solvers::pgd_options options(dpx::solvers::pgd_noise noise, double clip, std::int64_t T) {
  dpx::solvers::pgd_options o;
  o.noise = noise;
  o.noise_kind = dpx::mechanisms::noise_kind::research_grade;
  o.iterations = T;
  o.step_size = 0.1;
  o.clip_norm = clip;
  o.relation = dpx::core::neighbouring::replace_one;
  o.target = dpx::core::epsilon_delta{1.0, delta};
  if (noise == dpx::solvers::pgd_noise::gaussian) {
    o.calibration = dpx::solvers::noise_calibration::tight;
  } else {
    o.calibration = dpx::solvers::noise_calibration::paper;
    o.laplace_rule = dpx::solvers::laplace_composition::advanced;
  }
  return o;
}

TEST(PgdTheory, SolverCalibrationEqualsTheOracles) {
  using dpx::solvers::pgd_noise;
  const auto lap = dpx::solvers::pgd_calibrate(
      options(pgd_noise::laplace_per_coordinate, 1.0, 115812), 16000, 4);
  EXPECT_NEAR(lap.noise_scale, 0.4628542657607931578, 1e-9 * lap.noise_scale);
  const auto l2 = dpx::solvers::pgd_calibrate(options(pgd_noise::laplace_l2, 1.0, 20358), 30000, 4);
  EXPECT_NEAR(l2.noise_scale, 0.3701197096395973717, 1e-9 * l2.noise_scale);
  const auto gau = dpx::solvers::pgd_calibrate(options(pgd_noise::gaussian, G_ls, 115812), 8000, 8);
  EXPECT_NEAR(gau.noise_scale, 0.2755605705928405125, 1e-9 * gau.noise_scale);
}

}  // namespace
