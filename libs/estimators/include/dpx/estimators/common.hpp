#pragma once
/// \file
/// Vocabulary shared by every dpx::estimators estimator: what was spent (privacy_spent, the
/// ledger), the interval used, diagnostics, the interval rule A^κ_h of S1 §7.1.2, the budget
/// split over coordinates (S1 Thm 2.4 and docs/theory/dependent-data.md §3.4), and the public
/// radius formulas τ of S1 (Cor 3.6, Rem 3.5, Lemma 5.2, Lemma 5.15).
///
/// Tags used in these docs (docs/references.md, "Shorthand"): [V] as published in S1 (Roth &
/// Avella-Medina 2025, arXiv 2511.18583v2), [KV-impl] Karwa–Vadhan implementation detail, [R] our
/// reconstruction or design decision (listed with its reason in docs/theory/dependent-data.md §10).
///
/// PRIVACY NEVER DEPENDS ON THE DATA MODEL. Every estimator clips or thresholds, so its
/// guarantee holds for all inputs. τ, ρ, σ bounds, B, L_f, θ_lo/θ_hi and the other model
/// constants are PUBLIC inputs: they must be fixed without looking at the data. They only
/// affect accuracy (docs/theory/dependent-data.md §1).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dpx/core/composition.hpp"
#include "dpx/core/privacy.hpp"

namespace dpx::estimators {

/// Where the randomisation happens.
enum class trust_model {
  central,  ///< a trusted curator sees the data and releases the estimate
  local,    ///< every user randomises their own data (S1 Def 6.1)
};
/// "central" or "local".
std::string to_string(trust_model m);

/// How per-coordinate (or per-point) releases were composed, in dpx's one composition-rule
/// enum (dpx/core/composition.hpp): single (one release, d = 1: no composition), basic (d
/// releases at (ε/d, δ/d): (ε, δ) in total, S1 Thm 2.4) or advanced (d releases at
/// (ε/sqrt(8 d ln(1/ρ_c)), δ/d): (ε, δ + ρ_c), S1 Thm 2.4). to_string gives "single", "basic",
/// "advanced".
using composition = core::composition_rule;
using core::to_string;

/// Which composition to use for d > 1 coordinates (or grid points), in dpx's one
/// composition-rule enum: composition::basic (always basic), composition::advanced (always
/// advanced; needs ε < 1 and ρ_c ∈ (0, 1)), or std::nullopt = automatic (the one giving the
/// larger per-coordinate ε, docs/theory/dependent-data.md §3.4 [R]; ties: basic). Other rules
/// are rejected (split_budget names `choice`).
using composition_choice = std::optional<core::composition_rule>;
/// Parses "automatic" (std::nullopt), "basic" or "advanced"; otherwise throws
/// core::invalid_argument_error naming `function` and `parameter`.
composition_choice parse_composition_choice(const std::string& s,
                                            const char* function = "parse_composition_choice",
                                            const char* parameter = "composition");
/// "automatic" for std::nullopt, else core::to_string of the rule.
std::string to_string(const composition_choice& c);

/// The privacy actually spent by one estimator call: an (epsilon, delta) guarantee under
/// `relation` for records of `unit`, in the `model` trust model.
struct privacy_spent {
  double epsilon = 0.0;  ///< total ε (≥ 0)
  double delta = 0.0;    ///< total δ, including the composition slack ρ_c when advanced
  core::privacy_unit unit = core::privacy_unit::item;  ///< item or user level
  trust_model model = trust_model::central;            ///< central or local
  core::neighbouring relation =
      core::neighbouring::replace_one;  ///< always replace-one (S1 Def 2.1)
};

/// One private step of an estimator, in execution order.
struct ledger_entry {
  std::string step;           ///< e.g. "histogram", "clipped_mean", "histogram[2]"
  double epsilon = 0.0;       ///< ε of this step
  double delta = 0.0;         ///< δ of this step
  core::privacy_event event;  ///< its most precise description (laplace_event, approx_dp_event…)
};

/// A closed interval [lo, hi].
struct interval {
  double lo = 0.0;  ///< lower end
  double hi = 0.0;  ///< upper end (≥ lo)
  double midpoint() const noexcept { return 0.5 * (lo + hi); }
  double length() const noexcept { return hi - lo; }
  bool contains(double x) const noexcept { return lo <= x && x <= hi; }
};

/// Per-release diagnostics. NOT ALL OF THEM ARE PRIVATE: occupied_bins and clipped_fraction are
/// functions of the raw data (for experiments and debugging; never publish them).
/// released_bins and failed are post-processing of the private histogram (safe to publish).
struct diagnostics {
  std::size_t occupied_bins = 0;  ///< bins holding ≥ 1 point (NOT private)
  std::size_t released_bins = 0;  ///< bins that passed the stable-histogram threshold (private)
  double clipped_fraction = 0.0;  ///< fraction of points outside the interval (NOT private)
  bool failed = false;            ///< every bin zeroed: midpoint 0 used (S1 Alg 3; private)
};

/// The interval rule A^κ_h of S1 §7.1.2: histogram bins of half-width h (bins
/// (2hk − h, 2hk + h], width 2h) and the released interval [m̂ − κ, m̂ + κ].
/// Algorithm 3 is paper(τ) = (h = τ, κ = 3τ); the sharper variant of S1 §7.1.2/Rem 3.5 is
/// sharper(τ, τ′) = (h = τ′, κ = τ + 2τ′) [V, constants R]. Both numbers must be public.
/// A required input of every estimator that takes one: the default {0, 0} means "not set" and
/// validate() rejects it naming `rule` (τ depends on the data's public concentration bound, so
/// no default can be valid).
struct interval_rule {
  double bin_half_width = 0.0;  ///< h > 0 (finite)
  double radius = 0.0;          ///< κ > 0 (finite): half-width of the released interval

  /// Algorithm 3: h = τ, κ = 3τ.
  static interval_rule paper(double tau);
  /// The sharper variant A^{τ+2τ′}_{τ′}: h = τ′, κ = τ + 2τ′.
  static interval_rule sharper(double tau, double tau_prime);
  /// Any A^κ_h (e.g. the heuristic radii 1τ, 0.5τ, 0.2τ of S1 Fig 2).
  static interval_rule custom(double bin_half_width, double radius);
  /// Throws core::invalid_argument_error naming `rule` when not set, else unless both are
  /// finite and > 0.
  void validate(const char* function = "interval_rule") const;
};

/// Per-coordinate budget for d releases that together satisfy (ε, δ) (basic) or (ε, δ + ρ_c)
/// (advanced), S1 Thm 2.4 as used in Algorithm 5.
struct coordinate_budget {
  double epsilon = 0.0;                    ///< ε per coordinate (ε/d or ε/sqrt(8 d ln(1/ρ_c)))
  double delta = 0.0;                      ///< δ per coordinate (δ/d)
  composition kind = composition::single;  ///< which rule produced it
  double total_epsilon = 0.0;              ///< ε
  double total_delta = 0.0;                ///< δ, plus ρ_c when advanced
};

/// Splits (ε, δ) over d ≥ 1 coordinates. d = 1: single (ε, δ) (docs/theory/dependent-data.md §3.4:
/// call Algorithm 4 directly). d > 1: basic gives ε/d; advanced gives ε/sqrt(8 d ln(1/ρ_c)) and
/// needs ε < 1 and ρ_c ∈ (0, 1) (S1 Thm 2.4's conditions); automatic takes the larger
/// per-coordinate ε (advanced wins only when d > 8 ln(1/ρ_c)) and basic when advanced is not
/// applicable. δ = 0 is allowed (pure releases, e.g. the local model). Throws on invalid input.
coordinate_budget split_budget(double epsilon,
                               double delta,
                               std::size_t d,
                               double composition_slack,
                               composition_choice choice = std::nullopt);

// ---- public radius formulas (utility only; privacy never depends on them) ----------------

/// τ = sqrt(2 σ² ln(2n/γ)): the (τ, γ)_∞-concentration radius of n σ²-sub-Gaussian (or LSI(σ²))
/// observations [V Cor 3.6]. σ² > 0, n ≥ 1, γ ∈ (0, 1).
double tau_subgaussian(double sigma2, std::size_t n, double gamma);
/// τ′ = sqrt(2 σ² ln(2/γ)): the per-observation radius of the sharper variant [V Rem 3.5,
/// §7.1.2; constants R]; its guarantee needs γ < 1/4. σ² > 0, γ ∈ (0, 1).
double tau_prime(double sigma2, double gamma);
/// User-level radius τ = sqrt(2 ρ⋆ ln(2dn/γ)/T) [V Lemma 5.2 / Cor 5.4], ρ⋆ the largest
/// per-user marginal LSI constant of a user's T-vector (Gaussian: max_u λ_max(Σ_u)).
double tau_user(double rho_star, std::size_t times, std::size_t users, std::size_t d, double gamma);
/// Sharper Gaussian user-level radius τ = sqrt(2 v ln(2dn/γ)) with v = max_u Var(μ̂_u) =
/// max_u 1ᵀΣ_u1/T² (docs/theory/dependent-data.md §4.1 [R]).
double tau_user_mean_variance(double user_mean_variance,
                              std::size_t users,
                              std::size_t d,
                              double gamma);
/// Longitudinal-regression radius τ = sqrt(2 (θ_hi/θ_lo²) σ² ln(2pn/γ)/T) [V Lemma 5.15; the
/// paper prints 2dn for 2pn].
double tau_regression(double theta_lo,
                      double theta_hi,
                      double sigma2,
                      std::size_t p,
                      std::size_t users,
                      std::size_t times,
                      double gamma);

}  // namespace dpx::estimators
