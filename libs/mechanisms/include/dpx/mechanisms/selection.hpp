#pragma once
/// \file
/// Private selection: the exponential mechanism (as report-noisy-max with Gumbel noise),
/// permute-and-flip, and the exponential-mechanism quantile.
///
/// Utilities u_r (finite doubles) with sensitivity Delta_u = max over neighbours and r of
/// |u_r(D) - u_r(D')| (under the relation given at calibration).
///  * Exponential mechanism (McSherry & Talwar 2007, Thm. 6; Dwork & Roth 2014, Thm. 3.10):
///    P(r) proportional to exp(eps u_r / (2 Delta_u)) is eps-DP; for MONOTONE utilities (all
///    move in the same direction between neighbours) exp(eps u_r / Delta_u) is eps-DP
///    (Dwork & Roth 2014, remark after Thm. 3.10). Sampled exactly in real arithmetic by the
///    Gumbel-max trick: argmax_r c u_r + G_r with G_r i.i.d. standard Gumbel.
///  * Permute-and-flip (McKenna & Sheldon 2020, Alg. 1): visit candidates in a uniformly random
///    order and stop at r with probability exp(c (u_r - u*)), u* = max utility. eps-DP with the
///    same c, never worse in expected utility than the exponential mechanism.
///  * Quantile (Smith 2011): the exponential mechanism over the n + 1 gaps between sorted,
///    clamped data, weight (gap length) exp(eps u_i / 2), u_i = -|i - q n| (rank utility,
///    sensitivity 1 under replace-one), then a uniform point in the chosen gap. eps-DP.
/// FLOAT SAFETY: research-grade (the Gumbel/Bernoulli draws use double log/exp; the rounding
/// perturbs selection probabilities by relative errors of order 1e-16, not bounded formally).

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/rng.hpp"

namespace dpx::mechanisms {

/// A standard Gumbel draw -ln(-ln U), U uniform on (0, 1).
template <std::uniform_random_bit_generator G>
double gumbel(G& g) {
  return -std::log(-std::log(rng::uniform_open01(g)));
}

/// The exponential mechanism / report-noisy-max with Gumbel noise.
class exponential_mechanism {
 public:
  /// epsilon and utility_sensitivity finite and > 0; monotone: see file comment.
  static exponential_mechanism calibrate(
      double epsilon,
      double utility_sensitivity,
      bool monotone = false,
      core::neighbouring relation = core::neighbouring::replace_one);

  double epsilon() const noexcept { return epsilon_; }
  double utility_sensitivity() const noexcept { return sensitivity_; }
  /// c = eps / (2 Delta_u), or eps / Delta_u for monotone utilities.
  double inverse_temperature() const noexcept {
    return monotone_ ? epsilon_ / sensitivity_ : epsilon_ / (2.0 * sensitivity_);
  }
  /// Selection probabilities (softmax of c u, computed stably in long double).
  std::vector<double> probabilities(std::span<const double> utilities) const;

  /// Index of the selected candidate. utilities non-empty and finite.
  template <std::uniform_random_bit_generator G>
  std::size_t select(std::span<const double> utilities, G& g) const {
    core::check_nonempty_finite_span("exponential_mechanism::select", "utilities", utilities);
    const double c = inverse_temperature();
    std::size_t best = 0;
    double best_score = -std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < utilities.size(); ++r) {
      const double s = c * utilities[r] + gumbel(g);
      if (s > best_score) {
        best_score = s;
        best = r;
      }
    }
    return best;
  }

  /// exponential_mechanism_event{epsilon}.
  core::privacy_event event() const { return core::exponential_mechanism_event{epsilon_}; }
  core::protection protects() const noexcept { return {relation_, core::privacy_unit::item}; }

 private:
  exponential_mechanism(double eps, double sens, bool mono, core::neighbouring rel)
      : epsilon_(eps), sensitivity_(sens), monotone_(mono), relation_(rel) {}
  double epsilon_, sensitivity_;
  bool monotone_;
  core::neighbouring relation_;
};

/// Permute-and-flip (McKenna & Sheldon 2020).
class permute_and_flip {
 public:
  static permute_and_flip calibrate(double epsilon,
                                    double utility_sensitivity,
                                    bool monotone = false,
                                    core::neighbouring relation = core::neighbouring::replace_one);

  double epsilon() const noexcept { return epsilon_; }
  double inverse_temperature() const noexcept {
    return monotone_ ? epsilon_ / sensitivity_ : epsilon_ / (2.0 * sensitivity_);
  }
  /// Exact selection probabilities by summing over all orders (k <= 8 candidates; for tests).
  std::vector<double> probabilities(std::span<const double> utilities) const;

  template <std::uniform_random_bit_generator G>
  std::size_t select(std::span<const double> utilities, G& g) const {
    core::check_nonempty_finite_span("permute_and_flip::select", "utilities", utilities);
    const double c = inverse_temperature();
    const double top = *std::max_element(utilities.begin(), utilities.end());
    std::vector<std::size_t> order(utilities.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = 0; i < order.size(); ++i) {
      // Lazy Fisher–Yates: position i gets a uniform pick among the remaining candidates.
      const std::size_t j = i + static_cast<std::size_t>(rng::uniform_below(g, order.size() - i));
      std::swap(order[i], order[j]);
      const std::size_t r = order[i];
      if (utilities[r] == top || rng::uniform01(g) < std::exp(c * (utilities[r] - top))) return r;
    }
    return order.back();  // unreachable: the maximiser accepts with probability 1
  }

  /// pure_dp_event{epsilon}.
  core::privacy_event event() const { return core::pure_dp_event{epsilon_}; }
  core::protection protects() const noexcept { return {relation_, core::privacy_unit::item}; }

 private:
  permute_and_flip(double eps, double sens, bool mono, core::neighbouring rel)
      : epsilon_(eps), sensitivity_(sens), monotone_(mono), relation_(rel) {}
  double epsilon_, sensitivity_;
  bool monotone_;
  core::neighbouring relation_;
};

/// Options of exponential_quantile.
struct quantile_options {
  double quantile = 0.5;  ///< q in [0, 1]
  double lower = 0.0;     ///< public lower bound (data are clamped to [lower, upper])
  double upper = 1.0;     ///< public upper bound (> lower)
  double epsilon = 1.0;   ///< privacy parameter (> 0)
  /// Throws unless 0 <= q <= 1, lower < upper (finite), epsilon finite > 0.
  void validate() const;
};

namespace detail {
/// Log-weights of the n + 1 gaps (Smith 2011) of sorted clamped data z (size n + 2 with the
/// bounds at both ends): log(z_{i+1} - z_i) + eps u_i / 2, u_i = -|i - q n|.
std::vector<double> quantile_log_weights(std::span<const double> z, double q, double eps);
/// Sorted, clamped data with the bounds prepended/appended.
std::vector<double> quantile_support(std::span<const double> data, const quantile_options& o);
}  // namespace detail

/// The eps-DP exponential-mechanism quantile (Smith 2011). data non-empty and finite.
template <std::uniform_random_bit_generator G>
double exponential_quantile(std::span<const double> data, const quantile_options& o, G& g) {
  core::check_nonempty_finite_span("exponential_quantile", "data", data);
  o.validate();
  const std::vector<double> z = detail::quantile_support(data, o);
  const std::vector<double> lw = detail::quantile_log_weights(z, o.quantile, o.epsilon);
  std::size_t best = 0;
  double best_score = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < lw.size(); ++i) {
    if (lw[i] == -std::numeric_limits<double>::infinity()) continue;  // empty gap
    const double s = lw[i] + gumbel(g);
    if (s > best_score) {
      best_score = s;
      best = i;
    }
  }
  if (best_score == -std::numeric_limits<double>::infinity()) return z.front();  // all gaps empty
  return z[best] + rng::uniform01(g) * (z[best + 1] - z[best]);
}

}  // namespace dpx::mechanisms
