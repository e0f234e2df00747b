#pragma once
/// \file
/// The Gaussian mechanism, research-grade (plain double noise), with classical and analytic
/// calibration.
///
/// Definition: for a query f with L2 sensitivity Delta_2 = max over neighbours
/// ||f(D) - f(D')||_2, release f(D) + N(0, sigma^2 I).
///  * Classical calibration (Dwork & Roth 2014, Thm. A.1): sigma = Delta_2 sqrt(2 ln(1.25/delta))
///    / epsilon gives (epsilon, delta)-DP for epsilon in (0, 1) only; larger epsilon is rejected
///    (use the analytic calibration).
///  * Analytic calibration (Balle & Wang 2018, "Improving the Gaussian mechanism for
///    differential privacy", Thm. 8 and Algorithm 1): the smallest sigma with
///      Phi(Delta/(2 sigma) - epsilon sigma/Delta) - e^epsilon Phi(-Delta/(2 sigma) - epsilon
///      sigma/Delta) <= delta,
///    exact (equality), valid for every epsilon > 0.
/// Either holds under the neighbouring relation Delta_2 was computed for.
///
/// FLOAT SAFETY: RESEARCH-GRADE (Box–Muller in double; the low-order bits of x + noise leak x,
/// Mironov 2012). For real releases use float_safe_gaussian (float_safe.hpp).
///
/// Sampling: Box–Muller with dpx's own branch-free log/sin/cos (detail/kernels.hpp) on
/// u = ((w >> 12) + 1/2) 2^-52 from 64-bit words w; sample() consumes two words and returns the
/// cosine half; fill()/privatize() use both halves of each pair (same kernel, bit-identical
/// arithmetic), so they consume one word per value.

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/detail/kernels.hpp"

namespace dpx::mechanisms {

class float_safe_gaussian;

/// Privacy profile of the Gaussian mechanism with noise multiplier m = sigma / Delta_2
/// (Balle & Wang 2018, Thm. 8): delta(epsilon) = Phi(1/(2m) - epsilon m) - e^epsilon
/// Phi(-1/(2m) - epsilon m). epsilon >= 0, m > 0 (validated).
double gaussian_delta_for_epsilon(double epsilon, double noise_multiplier);

/// Gaussian noise N(0, sigma^2) (research-grade double sampler). Value type; copy freely.
class gaussian {
 public:
  /// sigma = Delta_2 sqrt(2 ln(1.25/delta)) / epsilon (Dwork & Roth 2014, Thm. A.1).
  /// Requires epsilon in (0, 1) (the theorem's hypothesis; otherwise the error message points
  /// to calibrate_analytic), delta in (0, 1), l2_sensitivity finite and > 0.
  static gaussian calibrate_classical(
      double epsilon,
      double delta,
      double l2_sensitivity,
      core::neighbouring relation = core::neighbouring::replace_one);
  /// Smallest sigma giving (epsilon, delta)-DP (Balle & Wang 2018, Thm. 8): Delta_2 times
  /// core::calibrate_gaussian_analytic, returned from the safe side (delta(epsilon) <= delta
  /// holds at the returned sigma, evaluation error included; within 1e-9 relative of the tight
  /// sigma; tested by Calibrators.SafeSide* against 50-digit references).
  /// Requires epsilon finite and > 0, delta in (0, 1), l2_sensitivity finite and > 0.
  static gaussian calibrate_analytic(double epsilon,
                                     double delta,
                                     double l2_sensitivity,
                                     core::neighbouring relation = core::neighbouring::replace_one);
  /// Noise given directly: standard deviation sigma (finite, > 0) for a query of L2 sensitivity
  /// l2_sensitivity (default 1, so that sigma is then the noise multiplier).
  static gaussian from_sigma(double sigma,
                             double l2_sensitivity = 1.0,
                             core::neighbouring relation = core::neighbouring::replace_one);

  /// Standard deviation sigma (> 0).
  double sigma() const noexcept { return sigma_; }
  /// L2 sensitivity Delta_2 the noise was calibrated for.
  double l2_sensitivity() const noexcept { return sensitivity_; }
  /// sigma / Delta_2.
  double noise_multiplier() const noexcept { return sigma_ / sensitivity_; }
  /// delta(epsilon) of one release (Balle & Wang 2018, Thm. 8).
  double delta_for_epsilon(double epsilon) const {
    return gaussian_delta_for_epsilon(epsilon, noise_multiplier());
  }

  /// One noise draw, location 0 (two uniforms, cosine half of Box–Muller).
  template <std::uniform_random_bit_generator G>
  double sample(G& g) const {
    const std::uint64_t w1 = rng::detail::bits64(g);
    const std::uint64_t w2 = rng::detail::bits64(g);
    double z1, z2;
    detail::gaussian_from_bits_pair(w1, w2, sigma_, z1, z2);
    return z1;
  }
  /// value + noise. Throws if value is not finite.
  template <std::uniform_random_bit_generator G>
  double release(double value, G& g) const {
    core::check_finite("gaussian::release", "value", value);
    return value + sample(g);
  }
  /// out[i] = independent noise draws (both Box–Muller halves used; one 64-bit word each).
  template <std::uniform_random_bit_generator G>
  void fill(std::span<double> out, G& g) const {
    std::uint32_t words[2 * detail::chunk_size];
    for (std::size_t i = 0; i + 1 < out.size(); i += detail::chunk_size) {
      const std::size_t m = std::min(detail::chunk_size, (out.size() - i) & ~std::size_t{1});
      detail::fill_words(g, std::span<std::uint32_t>(words, 2 * m));
      detail::gaussian_from_bits_split(
          std::span<const std::uint32_t>(words, 2 * m), out.subspan(i, m), sigma_);
    }
    if (out.size() % 2 == 1) out.back() = sample(g);
  }
  /// In place v[i] += noise (the vector Gaussian mechanism for an L2-sensitivity query).
  /// Throws if v is empty or not finite.
  template <std::uniform_random_bit_generator G>
  void privatize(std::span<double> v, G& g) const {
    core::check_nonempty_finite_span("gaussian::privatize", "v", v);
    std::uint32_t words[2 * detail::chunk_size];
    for (std::size_t i = 0; i + 1 < v.size(); i += detail::chunk_size) {
      const std::size_t m = std::min(detail::chunk_size, (v.size() - i) & ~std::size_t{1});
      detail::fill_words(g, std::span<std::uint32_t>(words, 2 * m));
      detail::add_gaussian_from_bits_split(
          std::span<const std::uint32_t>(words, 2 * m), v.subspan(i, m), sigma_);
    }
    if (v.size() % 2 == 1) v.back() += sample(g);
  }

  /// The accounting event: gaussian_event{noise_multiplier = sigma / Delta_2}.
  core::privacy_event event() const { return core::gaussian_event{sigma_ / sensitivity_}; }
  /// Neighbouring relation (as given at calibration) and unit (item).
  core::protection protects() const noexcept { return {relation_, core::privacy_unit::item}; }

  /// The float-safe release with the same sigma and sensitivity (float_safe.hpp).
  float_safe_gaussian float_safe() const;

 private:
  gaussian(double sigma, double sensitivity, core::neighbouring relation) noexcept
      : sigma_(sigma), sensitivity_(sensitivity), relation_(relation) {}
  double sigma_;
  double sensitivity_;
  core::neighbouring relation_;
};

}  // namespace dpx::mechanisms
