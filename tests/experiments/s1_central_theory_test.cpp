// The central d-dimensional mean oracles (experiments/s1_theory/s1_central) against values
// computed by hand (the arithmetic in each comment; evaluated independently in Python) at one
// cell each.
#include "s1_theory/s1_central.hpp"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace st = dpx::experiments::s1_theory;

namespace {

TEST(S1CentralTheory, CoordinateEpsilon) {
  // Advanced (S1 Thm 2.4): ε/√(8 d ln(1/ρ_c)) = 0.9/√(128 ln 8000) = 0.9/33.9170 = 0.0265354.
  EXPECT_NEAR(st::coordinate_epsilon(0.9, 16, 1.0 / 8000, "advanced"), 0.02653538530607235, 1e-15);
  EXPECT_DOUBLE_EQ(st::coordinate_epsilon(0.9, 16, 1.0 / 8000, "basic"), 0.9 / 16);
  // Automatic: the larger, here basic (0.05625 > 0.02654); ε ≥ 1: basic.
  EXPECT_DOUBLE_EQ(st::coordinate_epsilon(0.9, 16, 1.0 / 8000, "automatic"), 0.9 / 16);
  EXPECT_DOUBLE_EQ(st::coordinate_epsilon(2.0, 4, 1e-6, "automatic"), 0.5);
  EXPECT_DOUBLE_EQ(st::coordinate_epsilon(0.9, 1, 1e-6, "advanced"), 0.9);
  EXPECT_THROW(st::coordinate_epsilon(1.5, 4, 1e-6, "advanced"), std::invalid_argument);
  EXPECT_THROW(st::coordinate_epsilon(0.5, 4, 1e-6, "parallel"), std::invalid_argument);
}

TEST(S1CentralTheory, Algorithm5Oracle) {
  // n = 8000, d = 16, ε = 0.9, δ = 1/n, γ = 0.1: τ = √(2 ln(2·16·8000/0.1)) = √(2·14.75552)
  // = 5.432406; ε′ = 0.0265354 (above); b = 12τ/(n ε′) = 65.18887/212.2831 = 0.3070846;
  // MSE = d/n + 2 d b² = 0.002 + 32·0.0943010 = 3.019631.
  st::central_mean_cell c;
  c.estimator = "alg5";
  c.n = 8000;
  c.d = 16;
  c.epsilon = 0.9;
  c.delta = 1.0 / 8000;
  c.gamma = 0.1;
  const auto p = st::central_mean_oracle(c);
  EXPECT_EQ(p.mean_rows, 8000u);
  EXPECT_NEAR(p.tau, 5.432406062962478, 1e-12);
  EXPECT_NEAR(p.laplace_scale, 0.3070846343647775, 1e-13);
  EXPECT_NEAR(p.mse, 3.019631125214371, 1e-11);
  EXPECT_TRUE(std::isnan(p.cor_bound));
}

TEST(S1CentralTheory, SampleSplitOracleAndCorD7) {
  // n = 16000, d = 4, ε = 0.9, δ = 1/n: n_h = 8000, τ = √(2 ln(4·8000)) = √(2·10.37349) = 4.554886;
  // ε′ = 0.9/√(32 ln 16000) = 0.9/17.60038 = 0.0511355; b = 12τ/(n_h ε′) = 0.1336124;
  // MSE = 4/8000 + 8 b² = 0.0005 + 0.1428181 = 0.1433181.
  // Cor D.7 (unit constants): ln(4 n_h)(d/n_h + d² ln(2/δ)/(n_h² ε²))
  // = 10.37349·(0.0005 + 16·10.37349/(6.4e7·0.81)) = 10.37349·0.000503202 = 0.00521996.
  st::central_mean_cell c;
  c.estimator = "split";
  c.n = 16000;
  c.d = 4;
  c.epsilon = 0.9;
  c.delta = 1.0 / 16000;
  const auto p = st::central_mean_oracle(c);
  EXPECT_EQ(p.hist_rows, 8000u);
  EXPECT_EQ(p.mean_rows, 8000u);
  EXPECT_NEAR(p.tau, 4.554885548898428, 1e-12);
  EXPECT_NEAR(p.epsilon_coord, 0.05113545503601564, 1e-15);
  EXPECT_NEAR(p.laplace_scale, 0.1336123501499206, 1e-13);
  EXPECT_NEAR(p.mse, 0.14331808090067988, 1e-12);
  EXPECT_NEAR(p.cor_bound, 0.005219958343760841, 1e-15);
}

TEST(S1CentralTheory, UserSplitOracle) {
  // n = 1000 users, T = 10, φ = 0.5, ε = 1, δ = 1e-6: ρ = ρ⋆/T = 3/10, n_h = 500,
  // τ = √(2·0.3·ln 2000) = 2.135542, b = 12τ/500 = 0.05125302;
  // Var(μ̂_u) = (10 + 2 Σ_{k=1}^{9} (10 − k) 0.5^k)/100 = 26.00390625/100;
  // MSE = 0.2600390625/500 + 2b² = 0.000520078 + 0.00525374 = 0.00577382.
  st::central_mean_cell c;
  c.estimator = "user_split";
  c.n = 1000;
  c.T = 10;
  c.phi = 0.5;
  c.epsilon = 1.0;
  c.delta = 1e-6;
  const auto p = st::central_mean_oracle(c);
  EXPECT_NEAR(p.rho, 0.3, 1e-15);
  EXPECT_NEAR(p.tau, 2.135542431263132, 1e-12);
  EXPECT_NEAR(p.laplace_scale, 0.05125301835031516, 1e-14);
  EXPECT_NEAR(p.mse, 0.005773821905035486, 1e-14);
  EXPECT_NEAR(p.cor_bound, 0.004692876146472533, 1e-14);
  c.d = 2;
  EXPECT_THROW(st::central_mean_oracle(c), std::invalid_argument);
}

TEST(S1CentralTheory, KarwaVadhanOracle) {
  // n = 1000, ε = 0.5, β = 0.1, σ = 1: κ = 4√(ln 10⁴) = 12.13942, b = 4κ/(nε) = 0.09711534,
  // MSE = 1/n + 2b² = 0.001 + 0.01886278 = 0.01986278.
  st::central_mean_cell c;
  c.estimator = "kv";
  c.n = 1000;
  c.epsilon = 0.5;
  c.delta = 1e-6;
  c.gamma = 0.1;
  const auto p = st::central_mean_oracle(c);
  EXPECT_NEAR(p.tau, 12.139417035081172, 1e-12);
  EXPECT_NEAR(p.laplace_scale, 0.09711533628064938, 1e-14);
  EXPECT_NEAR(p.mse, 0.019862777081807226, 1e-14);
}

TEST(S1CentralTheory, HistogramFailureBound) {
  // Lemma D.10 at ε_h = 0.1, δ_h = 1e-4, m = 5000, c = 8:
  // e^{0.05}/1e-4 · e^{−62.5} + 2e^{−39.0625} = 10512.7·7.0e-28 + 2.1e-17 = 2.16971e-17.
  EXPECT_NEAR(st::histogram_failure_bound(0.1, 1e-4, 5000, 8) / 2.1697112837165945e-17, 1.0, 1e-12);
  EXPECT_THROW(st::histogram_failure_bound(0.0, 1e-4, 10), std::invalid_argument);
}

}  // namespace
