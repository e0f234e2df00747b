#pragma once
/// \file
/// Local-model regression estimators (S1 §6, Cor 6.7 and Cor 6.10; docs/theory/dependent-data.md
/// §5.3), built on the local protocol of local.hpp (S1 Algorithm 8: round 1 randomized-response
/// histogram bits, the server broadcasts Î = [m̂ ± κ]; round 2 each user sends clip(v, Î) +
/// Lap(2κ/ε_m)):
///   * local_longitudinal_regression — every user computes β̂_u from their own (X_u, Y_u) (OLS or
///     weighted, exactly as longitudinal_regression) and runs the protocol on each of the p
///     coordinates of β̂_u (Algorithm 5 around Algorithm 8, per-coordinate ε′ from split_budget).
///     Neighbouring: replace-one USER (a user's whole (X_u, Y_u) may change); each user releases
///     p × (RR bits of the 2K + 1 bins, one noisy clipped coefficient). ε-LDP (basic, or p = 1) or
///     (ε, ρ_c)-LDP (advanced) per user. S1 Cor 6.10 with the radius tau_regression.
///   * local_priestley_chao — fixed design x_i = i/n (public); observation i is user i, holding
///     only Y_i. For each public evaluation point x the user computes Z_i(x) = Y_i K((x_i − x)/b)/b
///     and runs the protocol on it (bins cover [−‖f‖_∞, ‖f‖_∞]; radius τ of Lemma 4.9 or τ_safe);
///     the server averages. Neighbouring: replace-one item = user (Y_i may change arbitrarily);
///     per point the user releases RR bits and clip(Z_i(x), Î) + Lap(2κ/ε_m) (sensitivity 2κ
///     after clipping). J points compose per user: ε-LDP (basic / J = 1) or (ε, ρ_c)-LDP
///     (advanced). S1 Cor 6.7 with the bandwidth local_priestley_chao_bandwidth.
///
/// Privacy never depends on the data model: τ, B, b, L_f, ‖f‖_∞, σ_max² are PUBLIC inputs.
/// Noise: `noise` float_safe (default; each user's report is float_safe_laplace's grid release,
/// exactly ε_m-LDP) or research_grade (double Laplace, S1 Algorithm 8 exactly); the RR bits are
/// exact either way. Draw order: coordinate by coordinate (point by point), each as local_mean
/// (the RR bits, then one Laplace draw per user in user order).

#include <concepts>
#include <cstddef>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dpx/estimators/local.hpp"
#include "dpx/estimators/nonparametric.hpp"
#include "dpx/estimators/user_level.hpp"

namespace dpx::estimators {

/// Options of local_longitudinal_regression.
struct local_longitudinal_options {
  /// Total ε per user over the p coordinates, the rule (paper: tau_regression with
  /// local_user_gamma), the public bound B ≥ ‖β‖_∞, composition and noise kind.
  local_mean_options base;
  regression_weighting weighting = regression_weighting::ols;  ///< OLS or weighted (GLS)
  /// weighted only: Σ_u as T×T (shared) or n·T×T (one per user), row-major, SPD, public.
  std::span<const double> error_covariance;
  void validate(const char* function) const { base.validate(function); }
};

/// Private longitudinal regression in the local model (S1 Def 5.13, Cor 6.10): per-user β̂_u
/// computed by the user, then local_mean_hd's protocol on β̂ ∈ R^{n×p}. Needs T ≥ p. x: designs,
/// n × T × p panel; y: responses, n·T values (user-major). result.fit.privacy: unit user, model
/// local, total (ε, 0) or (ε, ρ_c).
template <std::uniform_random_bit_generator G>
regression_result local_longitudinal_regression(const panel_view& x,
                                                std::span<const double> y,
                                                const local_longitudinal_options& o,
                                                G& g) {
  constexpr const char* fn = "local_longitudinal_regression";
  x.validate(fn);
  o.validate(fn);
  regression_result r;
  const std::vector<double> beta =
      detail::per_user_coefficients(x, y, o.weighting, o.error_covariance, &r.singular_users);
  r.fit = local_mean_hd(beta, x.dims, o.base, g);
  r.fit.privacy.unit = core::privacy_unit::user;
  return r;
}

/// Options of local_priestley_chao. Defaults are valid.
struct local_priestley_chao_options {
  double epsilon = 1.0;    ///< TOTAL ε > 0 per user over all evaluation points
  double bandwidth = 0.1;  ///< b > 0 (Cor 6.7: local_priestley_chao_bandwidth)
  kernel_kind kernel = kernel_kind::gaussian;
  double lipschitz = 1.0;  ///< L_f ≥ 0 (public bound)
  double sup_norm = 1.0;  ///< ‖f‖_∞ > 0 (public bound; the bins cover [−‖f‖_∞, ‖f‖_∞])
  double noise_variance_max = 1.0;  ///< σ_max² > 0 (public bound on λ_max(Σ_n))
  double gamma = 0.1;               ///< γ ∈ (0, 1) of the (τ, γ)-concentration
  pc_radius radius = pc_radius::lemma_4_9;
  bool literal_budget = false;               ///< as local_mean_options (docs/theory §10 item 5)
  double composition_slack = 0.0;            ///< ρ_c ∈ (0, 1) for a grid (0: 1e-6)
  composition_choice choice = std::nullopt;  ///< nullopt: automatic
  /// float_safe (default) or research_grade, see the file comment.
  mechanisms::noise_kind noise = mechanisms::noise_kind::float_safe;
  void validate() const;
};

/// Bandwidth of S1 Cor 6.7 with unit constants: b = (σ_max²/n)^{1/3} ∨ (σ_max/(√n ε))^{1/2}
/// (the local analogue of Cor 4.11's (σ_max/(nε))^{1/2}: the privacy variance of the average is
/// ∝ τ²/(nε²) with τ ∝ 1/b, balanced against the bias² b²). σ_max² > 0, n ≥ 1, ε > 0.
double local_priestley_chao_bandwidth(double noise_variance_max, std::size_t n, double epsilon);

/// Local private Priestley–Chao at the public points (J ≥ 1) from the n ≥ 1 responses at
/// x_i = i/n. result.noise_scale is the Laplace scale of ONE user's report at one point
/// (2κ/ε_m = 12τ/ε_m), so the average's privacy variance is 2 noise_scale²/n (research_grade).
template <std::uniform_random_bit_generator G>
priestley_chao_result local_priestley_chao(std::span<const double> y,
                                           std::span<const double> points,
                                           const local_priestley_chao_options& o,
                                           G& g) {
  constexpr const char* fn = "local_priestley_chao";
  o.validate();
  core::check_nonempty_finite_span(fn, "y", y);
  core::check_nonempty_finite_span(fn, "points", points);
  const std::size_t n = y.size();
  priestley_chao_result r;
  r.n = n;
  r.points.assign(points.begin(), points.end());
  r.tau = priestley_chao_tau(
      o.kernel, o.bandwidth, o.lipschitz, o.sup_norm, o.noise_variance_max, o.gamma, o.radius, n);
  const double slack = o.composition_slack > 0.0 ? o.composition_slack : 1e-6;
  r.budget = split_budget(o.epsilon, 0.0, points.size(), slack, o.choice);
  const interval_rule rule = interval_rule::paper(r.tau);
  double spent = 0.0;  // per point (ε′, or 3ε′/4 with the literal budget)
  detail::priestley_chao_points(
      y, points, o.bandwidth, o.kernel, r, [&](std::span<const double> z) {
        mean_result m =
            detail::local_core(z, rule, o.sup_norm, r.budget.epsilon, o.literal_budget, o.noise, g);
        spent = m.privacy.epsilon;
        return m;
      });
  r.privacy = {r.budget.total_epsilon * (spent / r.budget.epsilon),
               r.budget.total_delta,
               core::privacy_unit::item,
               trust_model::local,
               core::neighbouring::replace_one};
  return r;
}

}  // namespace dpx::estimators
