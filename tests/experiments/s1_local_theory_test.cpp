// The dd_local and dd_longitudinal oracles (experiments/s1_theory/s1_local, s1_longitudinal)
// against values computed by hand, by closed forms of special cases, or by an independent numpy
// computation (dense eigenvalues; a Monte Carlo over the covariate), at one cell each.
#include <cmath>
#include <numbers>
#include <stdexcept>

#include <gtest/gtest.h>

#include "s1_theory/s1_local.hpp"
#include "s1_theory/s1_longitudinal.hpp"

namespace st = dpx::experiments::s1_theory;

namespace {

TEST(S1LocalTheory, UserMeanOracleAtOneCell) {
  // n = 2000, T = 1, σ_U = 0, ε = 1 (dd_local's T sweep, first cell): ρ = λ_max(1) = 1,
  // τ = √(2 ln(2·1·2000²·1)) = √(2 ln 8e6) = 5.63825364800913, b = 12τ/ε = 67.6590437761095,
  // MSE = 1/2000 + 2b²/2000 = 4.5782462046975, rate = ln(8e6)/2000 = 0.00794747604982205.
  const auto p = st::local_mean_oracle({2000, 1, 1, 0.5, 0.0, 1.0});
  EXPECT_EQ(p.rho, 1.0);
  EXPECT_NEAR(p.tau, 5.63825364800913, 1e-13);
  EXPECT_NEAR(p.laplace_scale, 67.6590437761095, 1e-11);
  EXPECT_NEAR(p.grand_mean_variance, 5e-4, 1e-18);
  EXPECT_NEAR(p.mse, 4.5782462046975, 1e-12);
  EXPECT_NEAR(p.rate, 0.00794747604982205, 1e-16);
}

TEST(S1LocalTheory, RandomEffectsOracleAtOneCell) {
  // n = 4 users in groups of 2, T = 2, φ = 0.5, σ_U = 1, ε = 1: Lemma 5.9's ρ = σ_U² n_g T +
  // λ_max([[1, .5], [.5, 1]]) = 4 + 1.5 = 5.5; τ = √(2·5.5 ln(2·2·16)/2) = 4.7826621204595;
  // b = 12τ = 57.391945445514; Var(grand mean) = (σ_U² n_g + (2 + 2·0.5)/4)/n = 2.75/4 = 0.6875;
  // MSE = 0.6875 + 2b²/4 = 1647.60520101043; rate = 5.5 ln 64/(2·4) = 2.85923211980977.
  const auto p = st::local_mean_oracle({4, 2, 2, 0.5, 1.0, 1.0});
  EXPECT_NEAR(p.rho, 5.5, 1e-13);
  EXPECT_NEAR(p.tau, 4.7826621204595, 1e-12);
  EXPECT_NEAR(p.laplace_scale, 57.391945445514, 1e-10);
  EXPECT_NEAR(p.grand_mean_variance, 0.6875, 1e-15);
  EXPECT_NEAR(p.mse, 1647.60520101043, 1e-8);
  EXPECT_NEAR(p.rate, 2.85923211980977, 1e-13);
  EXPECT_THROW(st::local_mean_oracle({5, 2, 2, 0.5, 1.0, 1.0}), std::invalid_argument);
}

TEST(S1LocalTheory, LocalRegressionOracleAtOneCell) {
  // n = 1000, T = 4, φ = 0.5, ε = 1 (dd_local's rn sweep): m1 = 5/8, m2 = 45/96, θ of
  // [[1, m1], [m1, m2]] ∪ {1}: θ_lo = 0.0552714433718522, θ_hi = 1.41347855662815;
  // σ² = λ_max(0.5^{|i−j|})_{4×4} = 2.08558230480331 (numpy.linalg.eigvalsh);
  // τ = √(2(θ_hi/θ_lo²)σ² ln(2·3·4·10⁶)/4) = 90.5492204422901; b = 4·3τ/(ε/3) = 3259.77193592244;
  // privacy MSE = 3·2b²/1000 = 63756.6784453653; rate = 9θ_hiσ² ln(2.4e7)/(θ_lo²·4·1000) =
  // 36.896225952179.
  const auto p = st::local_regression_oracle({1000, 4, 0.5, 1.0});
  EXPECT_NEAR(p.theta_lo, 0.0552714433718522, 1e-15);
  EXPECT_NEAR(p.theta_hi, 1.41347855662815, 1e-14);
  EXPECT_NEAR(p.sigma2, 2.08558230480331, 1e-13);
  EXPECT_NEAR(p.tau, 90.5492204422901, 1e-10);
  EXPECT_NEAR(p.laplace_scale, 3259.77193592244, 1e-8);
  EXPECT_NEAR(p.privacy_mse / 63756.6784453653, 1.0, 1e-13);
  EXPECT_NEAR(p.rate, 36.896225952179, 1e-10);
}

TEST(S1LocalTheory, PriestleyChaoRateAtOneCell) {
  // n = 1000, φ = 0.5, ε = 1, f = sin(2πx) (L_f = 2π, ‖f‖_∞ = 1), γ = 0.1: σ_max² = 1.5/0.5 = 3;
  // b = max((3/1000)^{1/3}, (√3/√1000)^{1/2}) = max(0.1442, 0.2340) = 0.234034731932072;
  // τ = b(2π√(2/π) + 1) + (2π/√(2π) + e^{−1/2}/√(2π) + √(2·3 ln(20000)/√(2π)))/b =
  // 33.9556013098571; rate = (bτ)²/3 · √3/√1000 = 1.15298286031397.
  const auto p =
      st::local_priestley_chao_oracle({1000, 0.5, 1.0, 2.0 * std::numbers::pi, 1.0, 0.1});
  EXPECT_NEAR(p.noise_variance_max, 3.0, 1e-15);
  EXPECT_NEAR(p.bandwidth, 0.234034731932072, 1e-15);
  EXPECT_NEAR(p.tau, 33.9556013098571, 1e-12);
  EXPECT_NEAR(p.rate, 1.15298286031397, 1e-13);
}

TEST(S1LocalTheory, CoefficientCovarianceSpecialCases) {
  // z and the errors i.i.d. N(0, 1) (φ = φ_z = 0): the classical E(XᵀX)⁻¹ of a Gaussian
  // regressor, (FᵀF)⁻¹ (1 + 1/(T − 4)) for the fixed columns and E[1/χ²_{T−2}] = 1/(T − 4) for z.
  // T = 10: FᵀF = [[10, 5.5], [5.5, 3.85]], det 8.25: 3.85/8.25·7/6 = 0.5444…, 10/8.25·7/6 =
  // 1.41414…, 1/6.
  const auto iid = st::longitudinal_coefficient_covariance({10, 0.0, 0.0, false});
  EXPECT_NEAR(iid[0], 0.5444444444444444, 1e-10);
  EXPECT_NEAR(iid[4], 1.4141414141414141, 1e-10);
  EXPECT_NEAR(iid[8], 1.0 / 6.0, 1e-10);
  // GLS with the covariate's correlation equal to the errors' (φ = φ_z = 0.5): after whitening z
  // is i.i.d., so Cov = (FᵀΣ⁻¹F)⁻¹ (T − 3)/(T − 4) and Var β̂_z = 1/(T − 4) (numpy: inv of
  // FᵀΣ⁻¹F = [[0.893617…, …], [… , 2.127659…]]).
  const auto gls = st::longitudinal_coefficient_covariance({10, 0.5, 0.5, true});
  EXPECT_NEAR(gls[0], 1.042553191489363, 1e-10);
  EXPECT_NEAR(gls[4], 2.4822695035461018, 1e-10);
  EXPECT_NEAR(gls[8], 1.0 / 6.0, 1e-10);
  EXPECT_NEAR(st::longitudinal_coefficient_covariance({5, 0.5, 0.5, true})[8], 1.0, 1e-9);
  EXPECT_THROW(st::longitudinal_coefficient_covariance({4, 0.5, 0.5, false}),
               std::invalid_argument);
}

TEST(S1LocalTheory, OlsCovarianceAgainstMonteCarlo) {
  // OLS, φ = φ_z = 0.5 (dd_longitudinal's design): numpy Monte Carlo of E[(XᵀX)⁻¹XᵀΣX(XᵀX)⁻¹]
  // over 4·10⁵ draws of z (seed 1): T = 10 diag (1.129246, 2.710938, 0.206691), T = 20
  // (0.583409, 1.565586, 0.089930); Monte Carlo relative sd ≤ 0.2% (T = 10 z: 0.3%).
  const auto a = st::longitudinal_coefficient_covariance({10, 0.5, 0.5, false});
  EXPECT_NEAR(a[0] / 1.12924564, 1.0, 0.006);
  EXPECT_NEAR(a[4] / 2.71093761, 1.0, 0.006);
  EXPECT_NEAR(a[8] / 0.20669087, 1.0, 0.01);
  const auto b = st::longitudinal_coefficient_covariance({20, 0.5, 0.5, false});
  EXPECT_NEAR(b[0] / 0.58340883, 1.0, 0.006);
  EXPECT_NEAR(b[4] / 1.56558575, 1.0, 0.006);
  EXPECT_NEAR(b[8] / 0.08992955, 1.0, 0.01);
  // Lemma 5.14: GLS ≤ OLS coordinatewise (Σ_u known).
  const auto g = st::longitudinal_coefficient_covariance({10, 0.5, 0.5, true});
  for (int j : {0, 4, 8}) EXPECT_LT(g[j], a[j]);
}

TEST(S1LocalTheory, LongitudinalOracleAtOneCell) {
  // n = 1000, T = 10, OLS, ε = 1, γ = 0.1: v⋆ = Var β̂_trend = 2.708597789 (the quadrature),
  // tr Cov = 1.128873129 + 2.708597789 + 0.2063162376 = 4.0437871556;
  // τ = √(2v⋆ ln(2·3·1000/0.1)) = 7.720137732, b = 4·3τ/(1000·ε/3) = 36τ/1000 = 0.2779249584,
  // MSE = tr/1000 + 2·3·b² = 0.4674974821.
  const auto p = st::longitudinal_oracle({{10, 0.5, 0.5, false}, 1000, 1.0, 0.1});
  EXPECT_NEAR(p.v_star, 2.708597789, 1e-8);
  EXPECT_NEAR(p.trace_cov, 4.0437871556, 1e-8);
  EXPECT_NEAR(p.tau, 7.720137732, 1e-8);
  EXPECT_NEAR(p.laplace_scale, 0.2779249584, 1e-9);
  EXPECT_NEAR(p.mse, 0.4674974821, 1e-9);
  EXPECT_GT(p.tau_lemma, p.tau);  // Lemma 5.15's radius is the cruder one
}

}  // namespace
