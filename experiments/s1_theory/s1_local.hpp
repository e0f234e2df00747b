#pragma once
/// \file
/// Oracles of the dd_local experiments (S1 §6, local model), from a cell's INPUTS only (ε, n, T,
/// group size, φ, σ_U): the theorem's radius, Algorithm 8's per-user Laplace scale and the exact
/// no-clipping MSE. Independent of dpx::estimators and dpx::data (docs/theory/dependent-data.md
/// §11).

#include <cstddef>

namespace dpx::experiments::s1_theory {

/// Lemma 5.9's joint log-Sobolev constant of a balanced random-effects panel (groups of
/// `group_size` users, T unit-variance AR(1) observations each): ρ = σ_U² n_g T + λ_max(Σ_u)
/// (Weyl's bound on λ_max(σ_U² 11ᵀ + I ⊗ Σ_u)); σ_U = 0 gives Thm 6.5's ρ = λ_max(Σ_u).
double random_effects_joint_rho(std::size_t group_size, std::size_t T, double phi, double sigma_u);

/// Thm 6.5's radius with γ = 1/(T n ε²) (Cor 6.6): τ = √(2ρ ln(2 d T n² ε²)/T).
double local_user_radius(double rho, std::size_t T, std::size_t n, std::size_t d, double epsilon);

/// A dd_local "mean" cell: n users in groups of `group_size`, T observations each, Y = μ + U_g +
/// ε_{u,t}, ε_u a unit-variance AR(1) (φ), U_g ~ N(0, σ_U²), user-level ε-LDP.
struct local_mean_cell {
  std::size_t n = 0;
  std::size_t T = 1;
  std::size_t group_size = 1;
  double phi = 0;
  double sigma_u = 0;
  double epsilon = 1;
};

/// The theorem's prediction for Algorithm 8 on the user averages with the Thm 6.5 radius at
/// Lemma 5.9's ρ: τ = local_user_radius(ρ, T, n, 1, ε), per-user Laplace b = 4·3τ/ε (R_I = 3τ,
/// released at ε/2), MSE = Var(grand mean) + 2b²/n (exact when nothing is clipped and the
/// histogram's bin is right), Var(grand mean) = σ_U² n_g/n + Var_AR(1)(T)/n; rate = Cor 6.6/6.8/
/// 6.9's privacy term ρ ln(2Tn²ε²)/(Tnε²).
struct local_mean_prediction {
  double rho = 0;
  double tau = 0;
  double laplace_scale = 0;  ///< per user
  double grand_mean_variance = 0;
  double mse = 0;
  double rate = 0;
};
local_mean_prediction local_mean_oracle(const local_mean_cell& c);

/// The extreme eigenvalues (θ_lo, θ_hi) of the population design moment E X_uᵀX_u/T of the
/// longitudinal design X_u = (1, t/T, z_t), t = 1..T, z unit-variance and independent of t:
/// the 2×2 block [[1, m1], [m1, m2]] (m1, m2 the means of t/T and (t/T)²) and the eigenvalue 1 of
/// z [S1 Lemma 5.15's θ].
struct design_theta {
  double lo = 0;
  double hi = 0;
};
design_theta longitudinal_design_theta(std::size_t T);

/// A dd_local "regression" cell (Cor 6.10): p = 3 columns (1, t/T, z), errors a unit-variance
/// AR(1) (φ), n users, T ≥ 3, user-level ε-LDP.
struct local_regression_cell {
  std::size_t n = 0;
  std::size_t T = 3;
  double phi = 0;
  double epsilon = 1;
};

/// Lemma 5.15's radius with Thm 6.5's γ = 1/(Tnε²): τ² = 2(θ_hi/θ_lo²)σ² ln(2pTn²ε²)/T,
/// σ² = λ_max(Σ_u); the protocol per coordinate at ε/p (basic composition, the local Algorithm 5
/// at ε ≥ 1), so b = 4·3τ/(ε/p) per user and coordinate and the privacy MSE is p·2b²/n, exact
/// when nothing is clipped (the statistical part tr Cov(β̂_u)/n is not included: at these cells
/// it is < 1e-4 of it, and infinite without clipping at T = 4, where E[1/χ²_2] diverges).
/// rate = Cor 6.10's privacy term p²θ_hiσ² ln(2pTn²ε²)/(θ_lo² T n ε²).
struct local_regression_prediction {
  double theta_lo = 0;
  double theta_hi = 0;
  double sigma2 = 0;
  double tau = 0;
  double laplace_scale = 0;  ///< per user and coordinate
  double privacy_mse = 0;
  double rate = 0;
};
local_regression_prediction local_regression_oracle(const local_regression_cell& c);

}  // namespace dpx::experiments::s1_theory

namespace dpx::experiments::s1_theory {

/// A dd_local "nonparametric" cell (Cor 6.7): Y_i = f(i/n) + e_i, e a stationary AR(1) (φ, unit
/// variance), f with Lipschitz constant L_f and sup norm ‖f‖_∞, the Gaussian kernel, γ of the
/// radius, ε-LDP per item.
struct local_priestley_chao_cell {
  std::size_t n = 0;
  double phi = 0;
  double epsilon = 1;
  double lipschitz = 0;
  double sup_norm = 1;
  double gamma = 0.1;
};

/// σ_max² = (1 + |φ|)/(1 − |φ|) (the AR(1) spectral bound); Cor 6.7's bandwidth b =
/// (σ_max²/n)^{1/3} ∨ (σ_max/(√n ε))^{1/2}; Lemma 4.9's radius as printed for the Gaussian kernel
/// (‖K‖_∞ = 1/√(2π), L_K = 1/√(2πe), μ₁ = √(2/π)): τ = b(L_f μ₁ + ‖f‖_∞) + (L_f‖K‖_∞ + ‖f‖_∞L_K +
/// √(2σ_max²‖K‖_∞ ln(2n/γ)))/b; rate = the square of Cor 6.7's privacy term with Lemma 4.9's
/// constant, (bτ)²/σ_max² · σ_max/(√n ε).
struct local_priestley_chao_prediction {
  double noise_variance_max = 0;
  double bandwidth = 0;
  double tau = 0;
  double rate = 0;
};
local_priestley_chao_prediction local_priestley_chao_oracle(const local_priestley_chao_cell& c);

}  // namespace dpx::experiments::s1_theory
