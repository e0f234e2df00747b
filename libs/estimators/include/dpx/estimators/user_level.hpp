#pragma once
/// \file
/// User-level estimators in the central model (S1 §5; docs/theory/dependent-data.md §4.1–§4.3):
///   * user_mean               — Algorithm 5 on the user averages μ̂_u (S1 Def 5.1, Cor 5.4);
///   * user_sample_split_mean  — the sample-split estimator on the user averages (S1 Cor 5.6);
///   * random_effects_mean     — the same estimator for the random-effects location model
///                               (S1 Def 5.8, Cor 5.10), with its radius helper;
///   * longitudinal_regression — "divide and conquer": per-user OLS (or weighted/GLS) β̂_u, then
///                               Algorithm 5 on β̂ ∈ R^{n×p} (S1 Def 5.13, Lemmas 5.14–5.15).
///
/// Neighbouring relation: replace-one USER (S1 Def 2.1, user level): a record is user u's
/// whole block (X_u, and Y_u for regression). Each user contributes exactly one row to
/// Algorithm 5 (μ̂_u or β̂_u, a function of that user's data only), so the result is
/// (ε, δ)-uDP (basic / d = 1) or (ε, δ + ρ_c)-uDP (advanced). The number of users n is public.
/// With ragged panels (users with different numbers of rows), the row count of each user is
/// part of that user's record; the estimator stays uDP because each user still contributes one
/// averaged row, but the radius τ must then be chosen without looking at the row counts.
///
/// Panels are passed as row-major views (user, time, coordinate) — dpx::data::panel's layout —
/// so this header does not depend on dpx::data.

#include <concepts>
#include <cstddef>
#include <random>
#include <span>
#include <vector>

#include "dpx/estimators/central.hpp"

namespace dpx::estimators {

/// Read-only view of an n × T × d panel, row-major (user, time, coordinate): user u's T×d block
/// is values[u·T·d, (u+1)·T·d). dpx::data::panel p converts as
/// {p.values(), p.users(), p.times(), p.dims()}.
struct panel_view {
  std::span<const double> values;  ///< n·T·d finite values
  std::size_t users = 0;           ///< n ≥ 1
  std::size_t times = 0;           ///< T ≥ 1
  std::size_t dims = 1;            ///< d ≥ 1
  /// Throws core::invalid_argument_error unless the sizes match and the values are finite.
  void validate(const char* function) const;
};

/// μ̂_u = (1/T) Σ_t X_{u,t,·} for every user: an n×d row-major matrix (S1 Def 5.1).
std::vector<double> user_averages(const panel_view& p);
/// Ragged version: rows is R×d row-major, user u owns rows [offsets[u], offsets[u+1]) (each
/// non-empty); offsets has n + 1 increasing entries starting at 0 and ending at R.
std::vector<double> user_averages(std::span<const double> rows,
                                  std::size_t d,
                                  std::span<const std::size_t> offsets);

/// User-level mean (S1 Def 5.1, Lemma 5.2, Cor 5.4): Algorithm 5 on the user averages, with the
/// user-level radius (tau_user: τ = sqrt(2ρ⋆ ln(2dn/γ)/T), or tau_user_mean_variance).
/// (ε, δ)-uDP or (ε, δ + ρ_c)-uDP; result.n = number of users; privacy.unit = user.
template <std::uniform_random_bit_generator G>
mean_hd_result user_mean(const panel_view& p, const winsorized_mean_hd_options& o, G& g) {
  p.validate("user_mean");
  const std::vector<double> avg = user_averages(p);
  mean_hd_result r = winsorized_mean_hd(avg, p.dims, o, g);
  r.privacy.unit = core::privacy_unit::user;
  return r;
}

/// User-level mean of a ragged panel (users with different row counts; see the file comment on
/// choosing τ). Same guarantee as user_mean.
template <std::uniform_random_bit_generator G>
mean_hd_result user_mean(std::span<const double> rows,
                         std::size_t d,
                         std::span<const std::size_t> offsets,
                         const winsorized_mean_hd_options& o,
                         G& g) {
  const std::vector<double> avg = user_averages(rows, d, offsets);
  mean_hd_result r = winsorized_mean_hd(avg, d, o, g);
  r.privacy.unit = core::privacy_unit::user;
  return r;
}

/// User-level sample-split mean (S1 Cor 5.6 with Remarks 5.5 and 5.7; docs/theory/dependent-data.md
/// §3.5, §4.1): sample_split_mean on the user averages μ̂_u — the first ⌊n/2⌋ users give the
/// midpoints (Algorithm 3 per coordinate), the other users' averages are clipped to
/// Π_j [m̂_j ± κ], averaged and released with Lap(2κ/(|X| ε_m)) per coordinate. Each user is one
/// row of one half, so the guarantee of sample_split_mean holds at user level: (ε, δ)-uDP (basic /
/// d = 1) or (ε, δ + ρ_c)-uDP (advanced), replace-one user; result.n = number of users. The
/// paper's radius: τ² ≍ ρ⋆ ln(4n)/T. Needs n ≥ 2 users.
template <std::uniform_random_bit_generator G>
mean_hd_result user_sample_split_mean(const panel_view& p, const sample_split_options& o, G& g) {
  p.validate("user_sample_split_mean");
  const std::vector<double> avg = user_averages(p);
  mean_hd_result r = sample_split_mean(avg, p.dims, o, g);
  r.privacy.unit = core::privacy_unit::user;
  return r;
}

/// Radius for the random-effects location model (S1 Def 5.8; docs/theory/dependent-data.md §4.2
/// with the sharper Gaussian choice of §4.1 [R]): μ̂_u ~ N(μ, σ_U² + 1ᵀΣ_u1/T²), so τ = sqrt(2 (σ_U²
/// + v_noise) ln(2n/γ)) with v_noise = max_u 1ᵀΣ_u1/T² (≤ λ_max(Σ_u)/T). The rate of Cor 5.10 is
/// driven by the joint constant ρ = max_g σ_U² n_g T + σ², not by τ.
double tau_random_effects(double sigma_u2,
                          double noise_mean_variance,
                          std::size_t users,
                          double gamma);

/// Random-effects location estimate (S1 Def 5.8, Lemma 5.9, Cor 5.10): the user-level mean of
/// §4.1 applied to μ̂_u = (1/T) Σ_t Y_{g(u),u,t}. (ε, δ)-uDP (d = 1).
template <std::uniform_random_bit_generator G>
mean_result random_effects_mean(const panel_view& p, const winsorized_mean_options& o, G& g) {
  if (p.dims != 1)
    core::throw_invalid("random_effects_mean", "dims", std::to_string(p.dims), "must be 1");
  p.validate("random_effects_mean");
  const std::vector<double> avg = user_averages(p);
  mean_result r = winsorized_mean(avg, o, g);
  r.privacy.unit = core::privacy_unit::user;
  return r;
}

/// Per-user estimator of the longitudinal regression.
enum class regression_weighting {
  ols,       ///< β̂_u = (X_uᵀX_u)⁻¹X_uᵀY_u (S1 Def 5.13)
  weighted,  ///< β̂^w_u = (X_uᵀΣ_u⁻¹X_u)⁻¹X_uᵀΣ_u⁻¹Y_u with Σ_u known and public (S1 Lemma 5.14)
};

/// Options of longitudinal_regression.
struct longitudinal_options {
  /// ε, δ, ρ_c, composition and the rule; the paper's radius is tau_regression (Lemma 5.15).
  winsorized_mean_hd_options base;
  regression_weighting weighting = regression_weighting::ols;  ///< OLS or weighted (GLS)
  /// weighted only: Σ_u as T×T (shared by every user) or n·T×T (one per user), row-major,
  /// symmetric positive definite, public. Not owned: must outlive the call.
  std::span<const double> error_covariance;
};

/// Result of longitudinal_regression.
struct regression_result {
  mean_hd_result fit;  ///< the private β (p coordinates), budget and diagnostics
  std::size_t singular_users =
      0;  ///< users whose normal matrix was singular (β̂_u := 0; NOT private)
};

namespace detail {
/// Per-user β̂_u (n×p row-major) from designs x (n×T×p) and responses y (n·T); users with a
/// numerically singular normal matrix get β̂_u = 0 (counted in *singular).
std::vector<double> per_user_coefficients(const panel_view& x,
                                          std::span<const double> y,
                                          regression_weighting w,
                                          std::span<const double> covariance,
                                          std::size_t* singular);
}  // namespace detail

/// Private longitudinal linear regression (S1 Def 5.13, Cor 5.16): per-user β̂_u (OLS or
/// weighted), then Algorithm 5 on β̂ ∈ R^{n×p}. Needs T ≥ p. (ε, δ)- or (ε, δ + ρ_c)-uDP: each
/// user's β̂_u depends on that user's (X_u, Y_u) only, including the singular fallback β̂_u = 0.
/// x: designs, n × T × p panel; y: responses, n·T values (user-major).
template <std::uniform_random_bit_generator G>
regression_result longitudinal_regression(const panel_view& x,
                                          std::span<const double> y,
                                          const longitudinal_options& o,
                                          G& g) {
  constexpr const char* fn = "longitudinal_regression";
  x.validate(fn);
  o.base.validate(fn);
  regression_result r;
  const std::vector<double> beta =
      detail::per_user_coefficients(x, y, o.weighting, o.error_covariance, &r.singular_users);
  r.fit = winsorized_mean_hd(beta, x.dims, o.base, g);
  r.fit.privacy.unit = core::privacy_unit::user;
  return r;
}

}  // namespace dpx::estimators
