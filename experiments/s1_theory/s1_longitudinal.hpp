#pragma once
/// \file
/// Oracles of the dd_longitudinal experiments (S1 §5.3: Def 5.13, Lemmas 5.14–5.15, Cor 5.16),
/// from a cell's INPUTS only (n, T, φ, the covariate's φ_z, the weighting, ε, δ, γ): the exact
/// covariance of the per-user OLS / GLS coefficients for the design X_u = (1, t/T, z_u), the
/// radius, Algorithm 5's Laplace scale and the no-clipping MSE. Independent of dpx::estimators
/// and dpx::data (own linear algebra; docs/theory/dependent-data.md §11).

#include <array>
#include <cstddef>

namespace dpx::experiments::s1_theory {

/// The per-user design of dd_longitudinal: T observations, columns (1, t/T, z_t), t = 1..T, z a
/// stationary unit-variance Gaussian AR(1) in t (coefficient covariate_phi), errors a stationary
/// unit-variance Gaussian AR(1) (phi) independent of z; weighting OLS or GLS (known Σ_u).
struct longitudinal_design {
  std::size_t T = 5;
  double phi = 0;
  double covariate_phi = 0;
  bool gls = false;
};

/// E over z of Cov(β̂_u | z), i.e. Cov(β̂_u) (β̂_u is conditionally unbiased), row-major 3×3.
/// Closed form up to one-dimensional integrals (docs/theory/dependent-data.md §11): with
/// F = (1, t/T) = Q₁R, M = I − Q₁Q₁ᵀ = Q₂Q₂ᵀ, u = Q₁ᵀz, v = Q₂ᵀz, u = Bv + r (B = C₁₂C₂₂⁻¹,
/// r ⟂ v, Cov r = W), FWL gives β̂_z − β_z = vᵀQ₂ᵀε/vᵀv and β̂_F − β_F = R⁻¹(Q₁ᵀε − u(β̂_z − β_z)),
/// so Cov = E of R⁻¹[Σ₁₁ − Σ₁₂G₁Bᵀ − BG₁Σ₂₁ + BG₃Bᵀ + g₀W]R⁻ᵀ, Var β̂_z = g₀, with
/// G₁ = E vvᵀ/vᵀv, g₀ = E vᵀΣ₂₂v/(vᵀv)², G₃ = E vvᵀ vᵀΣ₂₂v/(vᵀv)²; 1/q^k = ∫
/// s^{k−1}e^{−sq}ds/(k−1)! turns each into ∫₀^∞ of Gaussian moments under N(0, C₂₂(I + 2sC₂₂)⁻¹)
/// (trapezoid in ln s). GLS is OLS on the data whitened by Σ_u = LLᵀ (F → L⁻¹F, C → L⁻¹CL⁻ᵀ, Σ →
/// I). Needs T ≥ 5 (the z coefficient's variance E[1/χ²_{T−2}]-like is infinite at T ≤ 4).
std::array<double, 9> longitudinal_coefficient_covariance(const longitudinal_design& d);

/// A dd_longitudinal cell: the design, n users, (ε, δ) user-level, γ of the radius.
struct longitudinal_cell {
  longitudinal_design design;
  std::size_t n = 0;
  double epsilon = 1;
  double gamma = 0.1;
};

/// The theorem's prediction for per-user OLS/GLS then Algorithm 5 (p = 3 coordinates at ε/3,
/// basic composition: S1 Thm 2.4's advanced form needs ε < 1): v⋆ = max_j Cov_jj, the exact
/// Gaussian radius τ = √(2v⋆ ln(2pn/γ)) ("exact"; §4.1's sharper radius transposed to β̂_u),
/// Lemma 5.15's τ = √(2(θ_hi/θ_lo²)σ² ln(2pn/γ)/T), Laplace b = 4·3τ/(n ε/3) per coordinate, MSE
/// = tr Cov/n + 2p b² (Cor 5.16's two terms, exact when nothing is clipped) at the exact radius.
struct longitudinal_prediction {
  double v_star = 0;
  double trace_cov = 0;
  double tau = 0;            ///< exact Gaussian radius
  double tau_lemma = 0;      ///< Lemma 5.15's radius
  double laplace_scale = 0;  ///< at the exact radius
  double mse = 0;            ///< at the exact radius
  double mse_lemma = 0;      ///< at Lemma 5.15's radius
};
longitudinal_prediction longitudinal_oracle(const longitudinal_cell& c);

}  // namespace dpx::experiments::s1_theory
