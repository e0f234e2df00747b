#pragma once
/// \file
/// L2-calibrated per-coordinate Laplace (docs/theory/noisy-pgd.md, "the PGD lecture notes' [NPGD]
/// Theorem 3").
///
/// For a vector query f: D -> R^d with L2 sensitivity Delta (||f(D) - f(D')||_2 <= Delta),
/// add Lap(b) to every coordinate. Coordinate i alone is (|a_i| / b)-DP where a = f(D) - f(D'),
/// sum a_i^2 <= Delta^2; heterogeneous advanced composition (Kairouz, Oh, Viswanath 2015,
/// Thm. 3.5 in its heterogeneous form) over the d coordinates gives, for any delta in (0, 1),
///   eps_total <= sum eps_i (e^eps_i - 1)/(e^eps_i + 1) + sqrt(2 ln(1/delta) sum eps_i^2)
///             <= Delta^2 / (2 b^2) + (Delta / b) sqrt(2 ln(1/delta))          (*)
/// using x tanh(x/2) <= x^2/2. The library uses the bound (*) (the rigorous form; the PGD lecture
/// notes' [NPGD] informal version has 2 eps_i^2 in the first term) and solves it for the SMALLEST b
/// with equality: with x = Delta / b and c = sqrt(2 ln(1/delta)), x^2/2 + c x = eps, so
///   x = 2 eps / (c + sqrt(c^2 + 2 eps)),   b = Delta / x.
/// The release is (eps, delta)-DP with no dependence on d. Research-grade noise (laplace.hpp).

#include <concepts>
#include <span>

#include "dpx/core/privacy.hpp"
#include "dpx/mechanisms/laplace.hpp"

namespace dpx::mechanisms {

/// Per-coordinate Laplace calibrated to an L2 sensitivity.
class l2_laplace {
 public:
  /// epsilon finite > 0, delta in (0, 1), l2_sensitivity finite > 0.
  static l2_laplace calibrate(double epsilon,
                              double delta,
                              double l2_sensitivity,
                              core::neighbouring relation = core::neighbouring::replace_one);
  /// The bound (*) for a given scale: Delta^2/(2 b^2) + (Delta/b) sqrt(2 ln(1/delta)).
  static double epsilon_bound(double scale, double delta, double l2_sensitivity);
  /// The sharper heterogeneous-composition value for a known difference vector a:
  /// sum eps_i tanh(eps_i / 2) + sqrt(2 ln(1/delta) sum eps_i^2), eps_i = |a_i| / b.
  static double epsilon_heterogeneous(std::span<const double> difference,
                                      double scale,
                                      double delta);

  double scale() const noexcept { return noise_.scale(); }
  double epsilon() const noexcept { return epsilon_; }
  double delta() const noexcept { return delta_; }
  double l2_sensitivity() const noexcept { return sensitivity_; }

  template <std::uniform_random_bit_generator G>
  double sample(G& g) const {
    return noise_.sample(g);
  }
  template <std::uniform_random_bit_generator G>
  void fill(std::span<double> out, G& g) const {
    noise_.fill(out, g);
  }
  /// v[i] += Lap(b) for every coordinate. Throws if v is empty or not finite.
  template <std::uniform_random_bit_generator G>
  void privatize(std::span<double> v, G& g) const {
    noise_.privatize(v, g);
  }

  /// approx_dp_event{epsilon, delta} (the whole d-dimensional release).
  core::privacy_event event() const { return core::approx_dp_event{epsilon_, delta_}; }
  core::protection protects() const noexcept { return noise_.protects(); }

 private:
  l2_laplace(laplace noise, double eps, double delta, double sens)
      : noise_(noise), epsilon_(eps), delta_(delta), sensitivity_(sens) {}
  laplace noise_;
  double epsilon_, delta_, sensitivity_;
};

}  // namespace dpx::mechanisms
