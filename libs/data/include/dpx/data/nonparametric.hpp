#pragma once
/// \file
/// Fixed-design nonparametric regression with correlated errors (Roth & Avella-Medina 2025 Def 4.7;
/// docs/theory/dependent-data.md §4.4 and §8 item 4): x_i = i/n (i = 0..n−1), Y_i = f(x_i) + ε_i
/// with ε ~ N(0, Σ_n), Σ_n = σ² φ^{|i−j|} (stationary AR(1) noise), and f from a family of
/// Lipschitz test functions with known L_f and ‖f‖_∞.

#include <cstddef>
#include <span>
#include <string_view>

#include <xtensor/xtensor.hpp>

#include "dpx/data/variates.hpp"

namespace dpx::data {

/// Lipschitz test functions on [0, 1] with exact constants.
struct test_function {
  enum class kind {
    sine,  ///< a·sin(2πkx): L_f = 2πk|a|, ‖f‖_∞ = |a| (k ≥ 1)
    vee,   ///< a·|x − 1/2|: L_f = |a|, ‖f‖_∞ = |a|/2
    bump,  ///< a·max(0, 1 − 4|x − 1/2|): L_f = 4|a|, ‖f‖_∞ = |a|
  };
  kind shape = kind::sine;  ///< which function
  double amplitude = 1.0;   ///< a (finite, ≠ 0)
  double frequency = 1.0;   ///< k for sine (a positive integer)
  void validate() const;

  double operator()(double x) const noexcept;
  double lipschitz() const noexcept;  ///< L_f
  double sup_norm() const noexcept;   ///< ‖f‖_∞ on [0, 1]
  /// "sine", "vee", "bump".
  static kind parse(std::string_view name);
  static std::string_view name(kind k) noexcept;
};

/// Options of the nonparametric regression design.
struct nonparametric_options {
  test_function f;        ///< regression function
  double noise_sd = 1.0;  ///< σ > 0 (marginal sd of ε_i)
  double phi = 0.0;       ///< AR(1) correlation of ε, |φ| < 1
  void validate() const;
};

/// One draw: design points, responses and the true function values.
struct regression_sample {
  xt::xtensor<double, 1> x;  ///< x_i = i/n
  xt::xtensor<double, 1> y;  ///< Y_i
  xt::xtensor<double, 1> f;  ///< f(x_i) (ground truth)
};

class nonparametric {
 public:
  explicit nonparametric(nonparametric_options o);
  const nonparametric_options& options() const noexcept { return o_; }

  template <std::uniform_random_bit_generator G>
  regression_sample sample(std::size_t n, G& g) const {
    regression_sample s{xt::xtensor<double, 1>::from_shape({n}),
                        xt::xtensor<double, 1>::from_shape({n}),
                        xt::xtensor<double, 1>::from_shape({n})};
    fill_standard_normal(g, std::span<double>(s.y.data(), n));
    assemble(s);
    return s;
  }
  /// Fills x and f and turns y (i.i.d. N(0,1) on entry) into responses.
  void assemble(regression_sample& s) const;

  /// σ_max² = λ_max(Σ_n): the log-Sobolev constant of the response vector.
  double log_sobolev(std::size_t n) const;
  /// σ_min² = λ_min(Σ_n) (≥ σ²(1−|φ|)/(1+|φ|)).
  double min_eigenvalue(std::size_t n) const;
  double marginal_log_sobolev() const noexcept { return o_.noise_sd * o_.noise_sd; }

 private:
  nonparametric_options o_;
};

}  // namespace dpx::data
