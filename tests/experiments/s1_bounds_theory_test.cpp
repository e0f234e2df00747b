// The S1 tail bounds (experiments/s1_theory/s1_bounds.hpp) against values computed by hand from
// the lemmas' formulas (Python's math module; inversions by an independent bisection), at one
// cell each: n = 1000, ε = 1, δ = 10⁻³ gives the constant n(1 + e^{1/2}/δ) = 1 649 721.2707.
#include "s1_theory/s1_bounds.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include <gtest/gtest.h>

namespace st = dpx::experiments::s1_theory;

namespace {

TEST(S1Bounds, HistogramTailBoundsAndThresholds) {
  // Lemma 3.1 given the data: 1 649 721.27 e^{−15} = 0.50465 at η = 0.03; the η of q = 0.05 is
  // (2/1000) ln(1 649 721.27/0.05) = 0.0346237.
  EXPECT_NEAR(st::histogram_data_bound(1000, 1.0, 1e-3, 0.03), 0.5046535648883899, 1e-12);
  EXPECT_NEAR(st::histogram_data_threshold(1000, 1.0, 1e-3, 0.05), 0.034623698356625196, 1e-14);
  // Against the population (i.i.d.): 1 649 721.27 e^{−25} + 2 e^{−1.25} = 0.57303 at η = 0.1;
  // bound = 0.05 at η = 0.171788 (bisection).
  EXPECT_NEAR(st::histogram_population_bound_iid(1000, 1.0, 1e-3, 0.1), 0.5730325049567805, 1e-12);
  EXPECT_NEAR(
      st::histogram_population_threshold_iid(1000, 1.0, 1e-3, 0.05), 0.17178776333886636, 1e-10);
  // Lemma D.10: e^{1/2}/δ e^{−n/8} + 2 e^{−n/128}: 8.0929e-4 (n = 1000, δ = 10⁻³) and 0.41922
  // (n = 200, δ = 0.005).
  EXPECT_NEAR(st::histogram_failure_bound(1000, 1.0, 1e-3), 0.000809290338652529, 1e-15);
  EXPECT_NEAR(st::histogram_failure_bound(200, 1.0, 0.005), 0.4192227788816653, 1e-12);
  // Φ(0.75 − 0.3) − Φ(0.25 − 0.3): the mass of bin k = 1 of width 0.5 under N(0.3, 1).
  EXPECT_NEAR(st::gaussian_bin_mass(0.3, 0.5, 1), 0.1935835855504524, 1e-13);
  EXPECT_THROW(st::histogram_data_threshold(1000, 1.0, 1e-3, 1.0), std::invalid_argument);
  EXPECT_THROW(st::histogram_data_bound(1000, 1.0, 1.0, 0.1), std::invalid_argument);
}

TEST(S1Bounds, ConcentrationRadii) {
  // Lemma 2.11 at ρ = 3, n = 200, d = 5, α = 0.05: √(6 ln 200/200) = 0.398685 and √5 times it.
  EXPECT_NEAR(st::mean_sup_radius(3.0, 200, 5, 0.05), 0.3986847388557042, 1e-14);
  EXPECT_NEAR(st::mean_l2_radius(3.0, 200, 5, 0.05), 0.8914861776731063, 1e-14);
  // Theorem 2.6 at ρ = 2, L = 1/2, α = 0.05: √(2·2·(1/4) ln 40) = 1.920646.
  EXPECT_NEAR(st::lipschitz_deviation(2.0, 0.5, 0.05), 1.9206455826398414, 1e-14);
  // Theorem C.2 with M = 1/√(2π): (4/0.2) exp(−(2/27)·2000·0.008·2π) = 0.0116668 at ρ = 1; the
  // r of q = 0.05 is 0.186725 (ρ = 1) and 0.471458 (ρ = 19) (bisection).
  const double M = 1.0 / std::sqrt(2.0 * std::numbers::pi);
  EXPECT_NEAR(st::dkw_lsi_bound(2000, 1.0, M, 0.2), 0.011666825776262376, 1e-14);
  EXPECT_NEAR(st::dkw_lsi_threshold(2000, 1.0, M, 0.05), 0.18672493389551764, 1e-10);
  EXPECT_NEAR(st::dkw_lsi_threshold(2000, 19.0, M, 0.05), 0.47145809232751434, 1e-10);
  EXPECT_THROW(st::mean_sup_radius(0.0, 200, 5, 0.05), std::invalid_argument);
}

TEST(S1Bounds, DesignLambdaMax) {
  // λ_max of (0.5^{|i−j|}) at n = 200 by numpy.linalg.eigvalsh; equi: 1 + (n − 1)c.
  EXPECT_NEAR(st::design_lambda_max("ar1", 200, 0.5), 2.9985637027601886, 1e-11);
  EXPECT_EQ(st::design_lambda_max("iid", 200, 0.0), 1.0);
  EXPECT_NEAR(st::design_lambda_max("equi", 101, 0.25), 26.0, 1e-13);
  EXPECT_EQ(st::design_lambda_max("equi_inv_n", 200, 0.0), 2.0);
  EXPECT_THROW(st::design_lambda_max("fgn", 200, 0.7), std::invalid_argument);
}

}  // namespace
