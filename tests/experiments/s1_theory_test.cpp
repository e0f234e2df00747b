// The S1 oracles (experiments/s1_theory) against values computed by hand or by an independent
// dense eigen-solver (numpy.linalg.eigvalsh on the T×T matrix φ^{|i−j|}), at one cell each.
#include "s1_theory/s1_theory.hpp"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace st = dpx::experiments::s1_theory;

namespace {

TEST(S1Theory, Ar1LambdaMaxClosedFormsAndDenseSolver) {
  // T = 2: eigenvalues 1 ± φ. T = 3: 1 − φ² and (2 + φ² ± φ√(φ² + 8))/2.
  EXPECT_NEAR(st::ar1_lambda_max(0.95, 2), 1.95, 1e-13);
  const double phi = 0.6;
  EXPECT_NEAR(
      st::ar1_lambda_max(phi, 3), (2 + phi * phi + phi * std::sqrt(phi * phi + 8)) / 2, 1e-13);
  EXPECT_EQ(st::ar1_lambda_max(0.0, 50), 1.0);
  EXPECT_EQ(st::ar1_lambda_max(0.95, 1), 1.0);
  // Dense solver: T = 10, 100, 1000 at φ = 0.95 (S1 Fig 6's Toeplitz 0.95 users).
  EXPECT_NEAR(st::ar1_lambda_max(0.95, 10), 8.514163264404404, 1e-11);
  EXPECT_NEAR(st::ar1_lambda_max(0.95, 100), 32.478530390001, 1e-10);
  EXPECT_NEAR(st::ar1_lambda_max(0.95, 1000), 38.86496452579033, 1e-9);
  EXPECT_THROW(st::ar1_lambda_max(1.0, 5), std::invalid_argument);
}

TEST(S1Theory, MeanVariancesOfTheDesigns) {
  // 1ᵀΣ1/T² at T = 2: (2 + 2φ)/4; T = 100, φ = 0.95 from the dense matrix.
  EXPECT_NEAR(st::ar1_mean_variance(0.95, 2), 0.975, 1e-15);
  EXPECT_NEAR(st::ar1_mean_variance(0.95, 100), 0.3144499602207452, 1e-14);
  EXPECT_NEAR(st::ar1_mean_variance(0.0, 7), 1.0 / 7.0, 1e-15);
  // T = 1e10 (dd_user_split's longest users): the closed form (1 + phi)/((1 - phi) T)
  // - 2 phi (1 - phi^T)/((1 - phi)^2 T^2) with phi^T = 0, i.e. 3.9e-9 - 7.6e-18.
  EXPECT_NEAR(st::ar1_mean_variance(0.95, 10000000000u) / (3.9e-9 - 7.6e-18), 1.0, 1e-12);
  EXPECT_NEAR(
      st::ar1_mean_variance(-0.5, 10000000000u) / (1.0 / 3.0 / 1e10 + 2.0 * 0.5 / (2.25 * 1e20)),
      1.0,
      1e-12);
  // n·Var(X̄): ar1 n = 50, φ = 0.5 (dense sum 2.92); equi 1 + (n − 1)c; equi_inv_n 2;
  // fgn n^{2H−1}; iid 1.
  EXPECT_NEAR(st::design_n_var_mean("ar1", 50, 0.5), 2.92, 1e-12);
  EXPECT_NEAR(st::design_n_var_mean("equi", 100, 0.25), 25.75, 1e-12);
  EXPECT_EQ(st::design_n_var_mean("equi_inv_n", 100, 0.0), 2.0);
  EXPECT_NEAR(st::design_n_var_mean("fgn", 1024, 0.75), 32.0, 1e-12);
  EXPECT_EQ(st::design_n_var_mean("iid", 100, 0.0), 1.0);
  EXPECT_THROW(st::design_n_var_mean("garch", 10, 0.0), std::invalid_argument);
}

TEST(S1Theory, WinsorizedMeanScaleAndOracle) {
  // Paper rule at n = 200, ε = 0.5, γ = 0.1, σ² = 1: τ = √(2 ln 4000) = 4.072849037247029,
  // b = 12τ/(nε) = 0.48874188446964356 (R_I = 3τ, sensitivity 6τ/n at ε/2).
  const double tau = st::radius(1.0, 200, 1, 0.1);
  EXPECT_NEAR(tau, 4.072849037247029, 1e-14);
  EXPECT_NEAR(st::winsorized_laplace_scale(3 * tau, 200, 0.5), 0.48874188446964356, 1e-15);
  EXPECT_NEAR(st::winsorized_oracle_mse(0.01, 0.5), 0.51, 1e-15);
  // Local (Algorithm 8): per-user Lap(2R_I/(ε/2)) = 12τ/ε at R_I = 3τ; ε = 0.5: 24τ.
  EXPECT_NEAR(st::local_laplace_scale(3 * tau, 0.5), 24 * 4.072849037247029, 1e-12);
}

TEST(S1Theory, UserLevelOracleAtOneCell) {
  // n = 1000 users, T = 100, φ = 0.95, ε = 1, γ = 0.1: ρ⋆ = 32.478530390001 (dense),
  // τ = √(2ρ⋆ ln(20000)/100) = 2.536338784319008, b = 12τ/1000 = 0.030436065411828098,
  // MSE = 0.3144499602207452/1000 + 2b² = 0.0021671581157269026.
  const auto p = st::user_level_oracle({1000, 100, 0.95, 1.0, 0.1});
  EXPECT_NEAR(p.rho_star, 32.478530390001, 1e-10);
  EXPECT_NEAR(p.tau, 2.536338784319008, 1e-12);
  EXPECT_NEAR(p.laplace_scale, 0.030436065411828098, 1e-14);
  EXPECT_NEAR(p.mse, 0.0021671581157269026, 1e-15);
}

TEST(S1Theory, RandomEffectsOracleAtOneCell) {
  // Groups {2, 2} (n = 4), T = 2, φ = 0.5, σ_U = 1, ε = 1, γ = 0.1: Var within = (2 + 2·0.5)/4 =
  // 0.75, Var(μ̂_u) = 1.75, Var(grand mean) = (4 + 4)/16 + 0.75/4 = 0.6875,
  // τ = √(2·1.75 ln 80) = 3.916260106448317, b = 12τ/4 = 11.748780319344952,
  // MSE = 0.6875 + 2b² = 276.7551779844546.
  const auto p = st::random_effects_oracle({2, 2}, 2, 0.5, 1.0, 1.0, 0.1);
  EXPECT_NEAR(p.user_mean_variance, 1.75, 1e-15);
  EXPECT_NEAR(p.grand_mean_variance, 0.6875, 1e-15);
  EXPECT_NEAR(p.tau, 3.916260106448317, 1e-14);
  EXPECT_NEAR(p.laplace_scale, 11.748780319344952, 1e-13);
  EXPECT_NEAR(p.mse, 276.7551779844546, 1e-11);
}

}  // namespace
