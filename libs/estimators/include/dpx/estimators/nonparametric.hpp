#pragma once
/// \file
/// Private Priestley–Chao regression (S1 Def 4.7–4.8, Lemmas 4.9–4.10, Cor 4.11;
/// docs/theory/dependent-data.md §4.4): fixed design x_i = i/n (i = 0..n−1), Y_i = f(x_i) + ε_i.
///
/// At a point x: Z_i(x) = Y_i K((x_i − x)/b)/b, so the Priestley–Chao estimate is (1/n) Σ Z_i(x);
/// Algorithm 4 (d = 1, paper rule h = τ, κ = 3τ) runs on (Z_i(x))_i with the public radius τ of
/// Lemma 4.9 (or the conservative τ_safe, docs/theory/dependent-data.md §4.4/§10 item 7). One
/// response Y_i changes one Z_i: (ε, δ)-DP at item level, replace-one.
///
/// A grid of J points composes J releases (docs/theory/dependent-data.md §4.4 [R]): the TOTAL (ε,
/// δ) is split by split_budget (basic (ε/J, δ/J) or advanced (ε/sqrt(8J ln(1/ρ_c)), δ/J), the
/// larger per-point ε unless forced) and the total (ε, δ) or (ε, δ + ρ_c) is reported.
///
/// L_f, ‖f‖_∞, σ_max², b and the kernel are PUBLIC inputs; privacy never depends on them.

#include <cmath>
#include <concepts>
#include <cstddef>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dpx/estimators/central.hpp"

namespace dpx::estimators {

/// Kernel K of the Priestley–Chao estimator.
enum class kernel_kind {
  gaussian,  ///< K(u) = exp(−u²/2)/√(2π)
  box,       ///< K(u) = ½ 1{|u| ≤ 1} (S1 Lemma D.14, with L_K := 1)
};

/// Constants of a kernel (docs/theory/dependent-data.md §4.4 [R, computed]).
struct kernel_constants {
  double sup = 0.0;        ///< ‖K‖_∞ (Gaussian 1/√(2π), box 1/2)
  double lipschitz = 0.0;  ///< L_K (Gaussian 1/√(2πe), box 1 by convention)
  double mu1 = 0.0;        ///< μ₁(K) = ∫|s|K(s)ds (Gaussian √(2/π), box 1/2)
};
kernel_constants constants(kernel_kind k) noexcept;
/// K(u).
double kernel_value(kernel_kind k, double u) noexcept;

/// Which public radius τ to use.
enum class pc_radius {
  lemma_4_9,  ///< τ = b(L_f μ₁ + ‖f‖_∞) + (1/b)(L_f‖K‖_∞ + ‖f‖_∞L_K + sqrt(2σ_max²‖K‖_∞ ln(2n/γ)))
              ///< [V, as printed]
  safe,  ///< τ_safe = ‖f‖_∞(1 + ‖K‖_∞/b) + σ_max‖K‖_∞ sqrt(2 ln(2n/γ))/b [R,
         ///< docs/theory/dependent-data.md §4.4]
};

/// Options of priestley_chao.
struct priestley_chao_options {
  core::epsilon_delta target{1.0, 1e-6};  ///< TOTAL (ε > 0, δ ∈ (0, 1)) over all points
  double bandwidth = 0.1;                 ///< b > 0
  kernel_kind kernel = kernel_kind::gaussian;
  double lipschitz = 1.0;           ///< L_f ≥ 0 (public bound)
  double sup_norm = 1.0;            ///< ‖f‖_∞ ≥ 0 (public bound)
  double noise_variance_max = 1.0;  ///< σ_max² > 0 (public bound on λ_max(Σ_n))
  double gamma = 0.1;               ///< γ ∈ (0, 1) of the (τ, γ)-concentration
  pc_radius radius = pc_radius::lemma_4_9;
  double composition_slack = 0.0;  ///< ρ_c for a grid (0: ρ_c = δ)
  composition_choice choice = composition_choice::automatic;
  /// float_safe (default: exact discrete noise, as winsorized_mean) or research_grade.
  mechanisms::noise_kind noise = mechanisms::noise_kind::float_safe;
  void validate() const;
};

/// Public radius τ for n observations (Lemma 4.9 or τ_safe).
double priestley_chao_tau(const priestley_chao_options& o, std::size_t n);
/// Bandwidth of Cor 4.11 with unit constants [R]: b = (σ_max²/n)^{1/3} ∨ (σ_max/(nε))^{1/2}.
double priestley_chao_bandwidth(double noise_variance_max, std::size_t n, double epsilon);
/// Interior margin ζ = b sqrt(2 ln(2/b)) (S1 Lemma 4.9: the rate holds for x ∈ [ζ, 1 − ζ]).
double priestley_chao_margin(double bandwidth);

/// Result of priestley_chao on J points.
struct priestley_chao_result {
  std::vector<double> points;        ///< evaluation points x (as given)
  std::vector<double> estimate;      ///< private f̂(x) per point
  std::vector<interval> ranges;      ///< clipping interval per point
  std::vector<diagnostics> diag;     ///< per point (see diagnostics for what is private)
  std::vector<bool> interior;        ///< x ∈ [ζ, 1 − ζ] (where Cor 4.11's rate applies)
  std::size_t n = 0;                 ///< number of observations
  double tau = 0.0;                  ///< the radius used
  double noise_scale = 0.0;          ///< Laplace scale per point, 12τ/(n ε_point)
  coordinate_budget budget;          ///< per-point budget and composition
  privacy_spent privacy;             ///< total (item level, central)
  std::vector<ledger_entry> ledger;  ///< per-point steps in order
};

namespace detail {
/// z[i] = y[i] K((i/n − x)/b)/b.
void priestley_chao_terms(
    std::span<const double> y, double x, double bandwidth, kernel_kind k, std::span<double> z);
}  // namespace detail

/// Private Priestley–Chao at the public points (J ≥ 1; one point is the "at a point" case with
/// the whole (ε, δ)). y: the n ≥ 1 responses at x_i = i/n. Draw order: point by point, each as
/// winsorized_mean (histogram draws, then the mean draw).
template <std::uniform_random_bit_generator G>
priestley_chao_result priestley_chao(std::span<const double> y,
                                     std::span<const double> points,
                                     const priestley_chao_options& o,
                                     G& g) {
  constexpr const char* fn = "priestley_chao";
  o.validate();
  core::check_nonempty_finite_span(fn, "y", y);
  core::check_nonempty_finite_span(fn, "points", points);
  const std::size_t n = y.size();
  priestley_chao_result r;
  r.n = n;
  r.points.assign(points.begin(), points.end());
  r.tau = priestley_chao_tau(o, n);
  const double slack = o.composition_slack > 0.0 ? o.composition_slack : o.target.delta;
  r.budget = split_budget(o.target.epsilon, o.target.delta, points.size(), slack, o.choice);
  const interval_rule rule = interval_rule::paper(r.tau);
  const double zeta = priestley_chao_margin(o.bandwidth);
  std::vector<double> z(n);
  for (std::size_t j = 0; j < points.size(); ++j) {
    detail::priestley_chao_terms(y, points[j], o.bandwidth, o.kernel, z);
    mean_result m = detail::winsorized_core(z,
                                            rule,
                                            0.5 * r.budget.epsilon,
                                            r.budget.delta,
                                            0.5 * r.budget.epsilon,
                                            o.noise,
                                            g,
                                            fn,
                                            "z");
    r.estimate.push_back(m.estimate);
    r.ranges.push_back(m.range);
    r.diag.push_back(m.diag);
    r.interior.push_back(points[j] >= zeta && points[j] <= 1.0 - zeta);
    r.noise_scale = m.noise_scale;
    for (auto& e : m.ledger) {
      e.step += "[" + std::to_string(j) + "]";
      r.ledger.push_back(std::move(e));
    }
  }
  r.privacy = {r.budget.total_epsilon,
               r.budget.total_delta,
               core::privacy_unit::item,
               trust_model::central,
               core::neighbouring::replace_one};
  return r;
}

}  // namespace dpx::estimators
