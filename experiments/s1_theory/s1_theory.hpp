#pragma once
/// \file
/// The oracles of the S1 (Roth & Avella-Medina 2025, "Differential privacy with dependent data")
/// experiments, computed from a cell's INPUTS (ε, δ, n, T, ρ, γ, the design and the neighbouring
/// relation's sensitivity) by the theorems' formulas, never from a field of an estimator's result:
/// a check against the code's own output cannot see the code's mistake. Formulas and sources:
/// docs/theory/dependent-data.md §11. Deliberately independent of dpx::estimators and dpx::data
/// (own closed forms and eigenvalue computation), so that a defect there shows up as a gap between
/// measured and predicted error.

#include <cstddef>
#include <string>
#include <vector>

namespace dpx::experiments::s1_theory {

/// λ_max of the T×T AR(1) correlation matrix (φ^{|i−j|}), |φ| < 1: one minus the smallest
/// eigenvalue of its tridiagonal inverse (1/(1−φ²))·tridiag(−φ; 1, 1+φ², …, 1+φ², 1), found
/// by Sturm-sequence bisection (exact to rounding). S1 Lemma 5.2's ρ⋆ for a Gaussian AR(1) user.
double ar1_lambda_max(double phi, std::size_t T);

/// Var of the average of T consecutive unit-variance AR(1) values:
/// (1/T²)[T + 2 Σ_{k=1}^{T−1} (T − k) φ^k] (closed form of 1ᵀΣ1/T²).
double ar1_mean_variance(double phi, std::size_t T);

/// n·Var(X̄) = 1ᵀΣ1/n of the item-level designs with unit marginal variance (dd_common's
/// design names): iid 1; ar1 (correlation φ^{|i−j|}) n·ar1_mean_variance(φ, n); equi
/// (correlation c = φ) 1 + (n − 1)c; equi_inv_n (c = 1/(n − 1)) 2; fgn (Hurst H = φ) n^{2H−1}.
double design_n_var_mean(const std::string& design, std::size_t n, double phi);

/// The sub-Gaussian radius of S1 Cor 3.6 / Lemma 5.2: τ = √(2 σ² ln(2 d n/γ)).
double radius(double sigma2, std::size_t n, std::size_t d, double gamma);

/// S1 Algorithm 4's Laplace scale for an interval of radius R_I (half-width) on n records at
/// total budget ε: the clipped mean has replace-one sensitivity 2R_I/n and is released at ε/2,
/// so b = 4 R_I/(n ε) (= 12τ/(nε) for the paper's R_I = 3τ).
double winsorized_laplace_scale(double interval_radius, std::size_t n, double epsilon);

/// S1 Algorithm 8's per-user Laplace scale (local model): each user releases clip(x_i) +
/// Lap(2R_I/ε_m) with ε_m = ε/2, so b = 4R_I/ε; the average's privacy variance is 2b²/n.
double local_laplace_scale(double interval_radius, double epsilon);

/// The no-clipping MSE of Algorithm 4/5 (d = 1), exact when nothing is clipped [S1 Lemma 4.1]:
/// Var(X̄) + 2b².
double winsorized_oracle_mse(double var_mean, double laplace_scale);

/// Inputs of the user-level mean of dd_user_level (S1 §5.1, Cor 5.4; d = 1, no group effect):
/// n users, T observations each, a unit-variance AR(1) with coefficient φ per user, budget ε
/// (user-level, replace one user), γ of the radius.
struct user_level_cell {
  std::size_t n = 0;
  std::size_t T = 0;
  double phi = 0;
  double epsilon = 0;
  double gamma = 0.1;
};

/// The theorem's prediction for the user-level mean: ρ⋆ = λ_max(Σ_u) (ar1_lambda_max),
/// τ = √(2ρ⋆ ln(2n/γ)/T) [S1 Lemma 5.2], b = 12τ/(nε) (Algorithm 4 on the user averages,
/// R_I = 3τ), MSE = Var(μ̂_u)/n + 2b² (Var(μ̂_u) = ar1_mean_variance(φ, T)).
struct user_level_prediction {
  double rho_star = 0;
  double tau = 0;
  double laplace_scale = 0;
  double mse = 0;
};
user_level_prediction user_level_oracle(const user_level_cell& c);

/// Random-effects location model (S1 Def 5.8, Lemma 5.9, Cor 5.10) with the Gaussian radius of the
/// user averages: Y_{g,u,t} = μ + U_g + ε_{u,t}, U_g ~ N(0, σ_U²), ε_u a unit-variance AR(1) in t.
/// Var(μ̂_u) = σ_U² + ar1_mean_variance(φ, T); τ = √(2 Var(μ̂_u) ln(2n/γ)); b = 12τ/(nε);
/// MSE = Var(grand mean) + 2b² with Var(grand mean) = σ_U² Σ_g n_g²/n² + ar1_mean_variance/n
/// (exact when nothing is clipped). group_sizes: the n_g (their sum is n).
struct random_effects_prediction {
  double user_mean_variance = 0;
  double grand_mean_variance = 0;
  double tau = 0;
  double laplace_scale = 0;
  double mse = 0;
};
random_effects_prediction random_effects_oracle(const std::vector<std::size_t>& group_sizes,
                                                std::size_t T,
                                                double phi,
                                                double sigma_u,
                                                double epsilon,
                                                double gamma);

}  // namespace dpx::experiments::s1_theory
