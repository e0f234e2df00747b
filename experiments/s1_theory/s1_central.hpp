#pragma once
/// \file
/// Oracles of the central d-dimensional mean experiments (dd_central_mean and the presets that
/// share its driver) from a cell's INPUTS: Roth & Avella-Medina 2025, Algorithm 5 (Thm 4.2), the
/// sample split of eq. (1) (Thm 4.3, Cor D.7) and its user-level form (Cor 5.6). Deliberately
/// independent of dpx::estimators (own composition split and radii), so that a wrong Laplace scale,
/// budget split or radius in the library shows up as a gap between measured and predicted error.
/// Formulas: docs/theory/dependent-data.md §11.

#include <cstddef>
#include <string>

namespace dpx::experiments::s1_theory {

/// Per-coordinate ε′ of d releases at total (ε, ·) under `composition`: "advanced" S1 Thm 2.4
/// (simplified advanced composition, Dwork & Roth 2014 Cor 3.21) ε/√(8 d ln(1/ρ_c)); "basic"
/// ε/d; "automatic" the larger of the two when advanced applies (ε < 1), else basic. d = 1: ε.
double coordinate_epsilon(double epsilon,
                          std::size_t d,
                          double slack,
                          const std::string& composition);

/// Inputs of one dd_central_mean cell (d = 1 for user_split).
struct central_mean_cell {
  std::string estimator = "alg5";  ///< alg5 | split | user_split | kv
  std::size_t n = 0;               ///< rows (users for user_split)
  std::size_t d = 1;
  std::size_t T = 1;  ///< observations per user (user_split)
  double phi = 0;     ///< within-user AR(1) coefficient (user_split)
  double epsilon = 0;
  double delta = 0;    ///< total δ; also the slack ρ_c of advanced composition
  double gamma = 0.1;  ///< γ of the radius (alg5), KV's β (kv)
};

/// The theorem's prediction, for the estimator the cell claims to run (advanced composition for
/// d > 1, the T-radius for user_split), whatever a control changes.
struct central_mean_prediction {
  std::size_t hist_rows = 0;  ///< rows of the histograms (all n for alg5, n/2 for the splits)
  std::size_t mean_rows = 0;  ///< rows averaged (n for alg5, n_h = n − n/2 for the splits)
  double rho = 1;  ///< LSI constant of one averaged row's coordinate (ρ⋆/T, user_split)
  double tau = 0;  ///< radius: √(2 ln(2nd/γ)) (alg5), √(2ρ ln(4 n_h)) (splits); KV: its
                   ///< clipping radius κ = 4σ√(ln(n/β)) at the data's σ = 1
  double epsilon_coord = 0;  ///< ε′ (advanced composition; ε when d = 1)
  double laplace_scale = 0;  ///< b = 12τ/(n_m ε′) (Algorithm 4 at ε′, mean part at ε′/2);
                             ///< KV: 4κ/(nε) (sensitivity 2κ/n released at ε/2)
  double mse = 0;            ///< d·Var(row)/n_m + 2 d b²: exact when nothing is clipped
  double cor_bound = 0;      ///< Cor D.7 / 5.6 leading terms, unit constants (splits; NaN alg5)
};
central_mean_prediction central_mean_oracle(const central_mean_cell& c);

/// S1 Lemma D.10 (i.i.d. case) for a stable histogram of m values at (ε_h, δ_h): P(every bin
/// zeroed) ≤ (e^{ε_h/2}/δ_h) e^{−m ε_h/c} + 2 e^{−m/128} (c = 8 in the lemma).
double histogram_failure_bound(double eps_hist, double delta_hist, double m, double c = 8.0);

}  // namespace dpx::experiments::s1_theory
