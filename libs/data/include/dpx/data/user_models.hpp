#pragma once
/// \file
/// User-level (panel) generators: block-Toeplitz users, the random-effects location model
/// (Roth & Avella-Medina 2025 Def 5.8; docs/theory/dependent-data.md §4.2) and longitudinal linear
/// regression (Roth & Avella-Medina 2025 Def 5.13; docs/theory/dependent-data.md §4.3). Within-user
/// noise is a stationary Gaussian AR(1) with marginal variance σ² and correlation φ, i.e. Σ_u = σ²
/// φ^{|s−t|} (Toeplitz; φ = 0 gives σ² I), drawn by the exact recursion ε_0 = σ z_0, ε_t = φ
/// ε_{t−1} + σ sqrt(1−φ²) z_t. Users are independent.

#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "dpx/data/panel.hpp"
#include "dpx/data/variates.hpp"

namespace dpx::data {

namespace detail {
/// In place: i.i.d. N(0,1) z → stationary AR(1) path with marginal sd `sd` and correlation phi.
void ar1_unit_filter(std::span<double> z, double phi, double sd) noexcept;
}  // namespace detail

/// Options of the block-Toeplitz user panel (Roth & Avella-Medina 2025 §7.2, Fig 6: Σ =
/// diag(Toeplitz 0.95)).
struct block_toeplitz_options {
  std::size_t users = 100;  ///< n ≥ 1
  std::size_t times = 10;   ///< T ≥ 1
  double rho = 0.95;        ///< within-user correlation r, |r| < 1
  double variance = 1.0;    ///< σ² > 0
  double mu = 0.0;          ///< mean (finite)
  void validate() const;
};

/// X_{u,·} ~ N(μ1_T, σ² r^{|s−t|}) independently over users; panel n × T × 1.
class block_toeplitz {
 public:
  explicit block_toeplitz(block_toeplitz_options o);
  const block_toeplitz_options& options() const noexcept { return o_; }
  template <std::uniform_random_bit_generator G>
  panel sample(G& g) const {
    panel x(o_.users, o_.times, 1);
    fill_standard_normal(g, x.values());
    for (std::size_t u = 0; u < o_.users; ++u) {
      detail::ar1_unit_filter(x.user(u), o_.rho, std::sqrt(o_.variance));
      for (double& v : x.user(u)) v += o_.mu;
    }
    return x;
  }
  double mean() const noexcept { return o_.mu; }
  double variance() const noexcept { return o_.variance; }
  /// Σ_u (T×T).
  xt::xtensor<double, 2> user_covariance() const;
  /// λ_max of the block-diagonal covariance = λ_max(Σ_u) (docs/theory/dependent-data.md §8,
  /// block-diagonal row).
  double log_sobolev() const;
  double marginal_log_sobolev() const noexcept { return o_.variance; }
  /// Var(μ̂_u) = 1ᵀΣ_u1/T².
  double user_mean_variance() const;

 private:
  block_toeplitz_options o_;
};

/// Options of the random-effects location model Y_{g,u,t} = μ + U_g + ε_{u,t}.
struct random_effects_options {
  std::vector<std::size_t> group_sizes = {10, 10};  ///< n_g ≥ 1 users per group (G ≥ 1 groups)
  std::size_t times = 10;                           ///< T ≥ 1
  double mu = 0.0;                                  ///< μ (finite)
  double sigma_u = 1.0;                             ///< σ_U ≥ 0 (group-effect sd)
  double sigma = 1.0;                               ///< σ > 0 (within-user marginal sd)
  double phi = 0.0;                                 ///< within-user AR(1) correlation, |φ| < 1
  /// G groups of `per_group` users each.
  static random_effects_options balanced(std::size_t groups, std::size_t per_group);
  void validate() const;
};

/// Random-effects location model (Roth & Avella-Medina 2025 Def 5.8): U_g ~ N(0, σ_U²) once per
/// group; users are numbered consecutively group by group (group_of(u)). Returns an n × T × 1
/// panel.
class random_effects {
 public:
  explicit random_effects(random_effects_options o);
  const random_effects_options& options() const noexcept { return o_; }
  std::size_t users() const noexcept { return n_; }
  std::size_t groups() const noexcept { return o_.group_sizes.size(); }
  std::size_t group_of(std::size_t user) const;

  template <std::uniform_random_bit_generator G>
  panel sample(G& g) const {
    std::vector<double> u(groups());
    fill_standard_normal(g, u);
    panel y(n_, o_.times, 1);
    fill_standard_normal(g, y.values());
    std::size_t user = 0;
    for (std::size_t k = 0; k < groups(); ++k)
      for (std::size_t i = 0; i < o_.group_sizes[k]; ++i, ++user) {
        detail::ar1_unit_filter(y.user(user), o_.phi, o_.sigma);
        const double shift = o_.mu + o_.sigma_u * u[k];
        for (double& v : y.user(user)) v += shift;
      }
    return y;
  }

  double mean() const noexcept { return o_.mu; }
  /// σ_U² + σ².
  double variance() const noexcept { return o_.sigma_u * o_.sigma_u + o_.sigma * o_.sigma; }
  /// Σ_u = σ² φ^{|s−t|} (T×T, within-user noise only).
  xt::xtensor<double, 2> noise_covariance() const;
  /// Exact λ_max of the covariance of all nT values: λ_max(Σ_u + σ_U² n_{g⋆} 11ᵀ), since each
  /// group block is σ_U² 11ᵀ + I ⊗ Σ_u (its eigenvectors split into the user-average direction
  /// and its complement).
  double log_sobolev() const;
  /// Lemma 5.9 bound max_g σ_U² n_g T + λ_max(Σ_u) (Roth & Avella-Medina 2025 uses σ² for
  /// λ_max(Σ_u) ≤ σ²-bounds).
  double log_sobolev_bound() const;
  /// ρ_i = σ_U² + σ².
  double marginal_log_sobolev() const noexcept { return variance(); }
  /// λ_max of one user's T-vector covariance σ_U² 11ᵀ + Σ_u (the ρ⋆ of Roth & Avella-Medina 2025
  /// Rem 5.3).
  double user_log_sobolev() const;
  /// Var(μ̂_u) = σ_U² + 1ᵀΣ_u1/T².
  double user_mean_variance() const;
  /// Var(Ȳ) over all nT values = [σ_U² Σ_g (n_g T)² + n 1ᵀΣ_u1]/(nT)².
  double grand_mean_variance() const;

 private:
  random_effects_options o_;
  std::size_t n_ = 0;
};

/// Options of the longitudinal linear regression Y_u = X_u β + ε_u (docs/theory/dependent-data.md
/// §8 item 3 design).
struct longitudinal_options {
  std::size_t users = 100;           ///< n ≥ 1
  std::size_t times = 10;            ///< T ≥ p
  std::size_t p = 3;                 ///< p ≥ 1 columns: 1, t/T, then p−2 covariates z
  std::vector<double> beta;          ///< length p (empty: β = (1, …, 1))
  double sigma = 1.0;                ///< error marginal sd σ > 0
  double phi = 0.5;                  ///< error AR(1) correlation over t, |φ| < 1
  double covariate_phi = 0.0;        ///< each covariate z is a unit-variance AR(1) over t, |·| < 1
  double random_intercept_sd = 0.0;  ///< σ_b ≥ 0: optional per-user random intercept in ε_u
  void validate() const;
};

/// One longitudinal draw: designs X (n × T × p) and responses Y (n × T × 1).
struct longitudinal_sample {
  panel x;  ///< designs X_u (T × p)
  panel y;  ///< responses Y_u (T × 1)
};

/// Extreme eigenvalues over users of M̂_u = X_uᵀX_u/T (θ_lo, θ_hi of Roth & Avella-Medina 2025
/// Lemma 5.15).
struct design_bounds {
  double theta_lo = 0.0;  ///< min_u λ_min(M̂_u)
  double theta_hi = 0.0;  ///< max_u λ_max(M̂_u)
};

/// Longitudinal linear regression (Roth & Avella-Medina 2025 Def 5.13). Columns of X_u: intercept
/// 1, trend t/T, and p − 2 covariates z_{u,t} (each a unit-variance AR(1) over t with
/// covariate_phi). ε_u ~ N(0, Σ_u), Σ_u = σ² φ^{|s−t|} + σ_b² 11ᵀ, independent across users.
class longitudinal {
 public:
  explicit longitudinal(longitudinal_options o);
  const longitudinal_options& options() const noexcept { return o_; }
  const std::vector<double>& beta() const noexcept { return beta_; }

  template <std::uniform_random_bit_generator G>
  longitudinal_sample sample(G& g) const {
    longitudinal_sample s{panel(o_.users, o_.times, o_.p), panel(o_.users, o_.times, 1)};
    const std::size_t nz = o_.p > 2 ? o_.p - 2 : 0;
    std::vector<double> z(o_.users * o_.times * nz), e(o_.users * (o_.times + 1));
    fill_standard_normal(g, z);
    fill_standard_normal(g, e);
    assemble(z, e, s);
    return s;
  }
  /// Builds the sample from i.i.d. N(0,1) blocks z (n·T·(p−2)) and e (n·(T+1)).
  void assemble(std::span<double> z, std::span<double> e, longitudinal_sample& s) const;

  /// Σ_u (T×T), the same for every user.
  xt::xtensor<double, 2> error_covariance() const;
  /// λ_max(Σ_u): the joint log-Sobolev constant of the responses given the designs.
  double log_sobolev() const;
  /// ρ_i = σ² + σ_b².
  double marginal_log_sobolev() const noexcept {
    return o_.sigma * o_.sigma + o_.random_intercept_sd * o_.random_intercept_sd;
  }
  /// θ_lo, θ_hi of a drawn design (LAPACK syevd per user).
  static design_bounds bounds(const panel& x);

 private:
  longitudinal_options o_;
  std::vector<double> beta_;
};

}  // namespace dpx::data
