#pragma once
/// \file
/// The rounded Gaussian mechanism: float-safe Gaussian noise whose privacy is EXACTLY that of
/// the continuous Gaussian mechanism, so every Gaussian accountant applies to it unchanged —
/// including Poisson-subsampling amplification (RDP, PLD), which the discrete Gaussian of
/// float_safe.hpp has no proved dominating pair for.
///
/// Release, for a grid Lambda = 2^k (chosen from sigma):
///     M(x) = Lambda * round(x / Lambda + (sigma / Lambda) N),   N ~ N(0, I) drawn EXACTLY
/// (Karney 2016, detail/exact_normal.hpp) and the rounding decided exactly. M is
/// round_Lambda(x + sigma N): a fixed map applied to the output of the continuous Gaussian
/// mechanism x + sigma N, i.e. post-processing (Dwork & Roth 2014, Prop. 2.1), so M satisfies
/// every guarantee the Gaussian mechanism with noise multiplier sigma / Delta_2 has — its
/// privacy profile (Balle & Wang 2018, Thm. 8), RDP, zCDP, f-DP — and so does any composition
/// or subsampling of M (apply the same map after the subsampled Gaussian mechanism). This is
/// Mironov's (2012) snapping idea without the noise ever being a floating-point number: the
/// output is a function of the exact real x / Lambda + (sigma / Lambda) N, and the set of
/// possible outputs (Lambda Z) does not depend on x.
///
/// Assumption (as for every Gaussian release): Delta_2 bounds the change of the x actually
/// passed in. For a floating-point sum of clipped vectors use privatize_grid with an exact
/// integer aggregate (dp_sgd does), whose sensitivity is exact.
/// Costs: ~0.2-0.5 us per coordinate (Karney's sampler; docs/performance.md) against ~10 ns for
/// research-grade Box–Muller; outputs on the grid Lambda ~ sigma 2^-12.

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/detail/exact_normal.hpp"

namespace dpx::mechanisms {

/// Float-safe Gaussian release with the continuous Gaussian's exact privacy (see the file).
/// Value type; copy freely.
class rounded_gaussian {
 public:
  /// Default grid: Lambda = 2^(floor(log2 sigma) - 12), so sigma / Lambda is in [2^12, 2^13).
  static constexpr int default_granularity_bits = 12;

  /// sigma and l2_sensitivity finite and > 0; granularity_bits in [0, 30].
  static rounded_gaussian from_sigma(double sigma,
                                     double l2_sensitivity = 1.0,
                                     core::neighbouring relation = core::neighbouring::replace_one,
                                     int granularity_bits = default_granularity_bits);

  double sigma() const noexcept { return sigma_; }
  double l2_sensitivity() const noexcept { return sensitivity_; }
  core::neighbouring relation() const noexcept { return relation_; }
  /// The grid Lambda (a power of two); every output is an integer multiple of it.
  double granularity() const noexcept { return lambda_; }
  /// gaussian_event{sigma / Delta_2}: exactly the continuous Gaussian's event.
  core::privacy_event event() const { return core::gaussian_event{sigma_ / sensitivity_}; }

  /// Lambda round(value / Lambda + (sigma / Lambda) N). Throws if value is not finite. |value /
  /// Lambda| is clamped to 2^50 first (1-Lipschitz: the sensitivity bound still holds), which
  /// keeps every output an exact double.
  template <std::uniform_random_bit_generator G>
  double release(double value, G& g) const;
  /// release() of each coordinate of v, in place (every value checked before any changes).
  template <std::uniform_random_bit_generator G>
  void privatize(std::span<double> v, G& g) const;
  /// The release of an exact integer query: out[j] = Lambda round(s[j] unit / Lambda + (sigma /
  /// Lambda) N_j). unit is a power of two (the grid of s); Delta_2 is in the units of s unit.
  template <std::uniform_random_bit_generator G>
  void privatize_grid(std::span<const std::int64_t> s,
                      double unit,
                      std::span<double> out,
                      G& g) const;

 private:
  rounded_gaussian(double sigma, double sensitivity, double lambda, core::neighbouring relation)
      : sigma_(sigma),
        sensitivity_(sensitivity),
        lambda_(lambda),
        scale_(sigma / lambda),
        relation_(relation) {}
  // t = value / Lambda, clamped to |t| <= 2^50.
  static double clamp_units(double t) noexcept { return std::clamp(t, -0x1p50, 0x1p50); }
  template <std::uniform_random_bit_generator G>
  double draw(double t, G& g) const {
    detail::exact_normal n;
    detail::draw_exact_normal(g, n);
    return static_cast<double>(detail::round_normal(clamp_units(t), scale_, n, g)) * lambda_;
  }

  double sigma_, sensitivity_, lambda_, scale_;
  core::neighbouring relation_;
};

template <std::uniform_random_bit_generator G>
double rounded_gaussian::release(double value, G& g) const {
  core::check_finite("rounded_gaussian::release", "value", value);
  return draw(value / lambda_, g);
}

template <std::uniform_random_bit_generator G>
void rounded_gaussian::privatize(std::span<double> v, G& g) const {
  core::check_nonempty_finite_span("rounded_gaussian::privatize", "v", v);
  for (double& x : v) x = draw(x / lambda_, g);
}

template <std::uniform_random_bit_generator G>
void rounded_gaussian::privatize_grid(std::span<const std::int64_t> s,
                                      double unit,
                                      std::span<double> out,
                                      G& g) const {
  const char* fn = "rounded_gaussian::privatize_grid";
  core::check_positive(fn, "unit", unit);
  int e = 0;
  if (std::frexp(unit, &e) != 0.5) core::throw_invalid(fn, "unit", unit, "must be a power of two");
  core::check_size(fn, "out", out.size(), s.size());
  // s[j] unit / Lambda = s[j] 2^(log2 unit - log2 Lambda): exact while |s[j]| < 2^53 (the clamp
  // at 2^50 grid units applies to the product).
  const double ratio = unit / lambda_;
  for (std::size_t j = 0; j < s.size(); ++j) {
    const auto sj = std::clamp<std::int64_t>(s[j], -(std::int64_t{1} << 53), std::int64_t{1} << 53);
    out[j] = draw(static_cast<double>(sj) * ratio, g);
  }
}

}  // namespace dpx::mechanisms
