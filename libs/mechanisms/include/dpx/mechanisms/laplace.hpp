#pragma once
/// \file
/// The Laplace mechanism, research-grade (plain double noise).
///
/// Definition (Dwork, McSherry, Nissim, Smith 2006; Dwork & Roth 2014, Def. 3.3): for a query
/// f with L1 sensitivity Delta_1 = max over neighbours ||f(D) - f(D')||_1, release
/// f(D) + (Y_1, ..., Y_d) with Y_i i.i.d. Lap(0, b), density exp(-|y|/b) / (2b).
/// Calibration (Dwork & Roth 2014, Thm. 3.6): b = Delta_1 / epsilon gives epsilon-DP under
/// whatever neighbouring relation Delta_1 was computed for (replace-one or add/remove).
///
/// FLOAT SAFETY: this type is RESEARCH-GRADE. The noise is a double computed by an inverse CDF,
/// and x + noise in floating point leaks x through its low-order bits (Mironov 2012, "On
/// significance of the least significant bits for differential privacy"); the guarantee above
/// holds for the idealised real-valued mechanism only. Use it for experiments (it is fast:
/// a SIMD vector fill), and float_safe_laplace (float_safe.hpp) for real releases.
///
/// Sampling: one 64-bit word w per draw (rng::detail::bits64: two 32-bit outputs of philox4x32);
/// the sign is bit 0 and the magnitude is -b ln u with u = ((w >> 12) + 1/2) 2^-52 in (0, 1)
/// (an Exp(b) variate by inversion; symmetric sign => Lap(0, b)), with dpx's own log
/// (detail/kernels.hpp). privatize()/fill() consume the same words through the engine's bulk
/// fill and produce bit-identical values to repeated sample()/release() calls, only faster.

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

class float_safe_laplace;

/// Laplace noise of scale b (research-grade double sampler). Value type; copy freely.
class laplace {
 public:
  /// b = l1_sensitivity / epsilon (Dwork & Roth 2014, Thm. 3.6): epsilon-DP for a query of
  /// that L1 sensitivity under `relation` (recorded in protects(); it does not change b).
  /// Throws core::invalid_argument_error unless epsilon and l1_sensitivity are finite and > 0.
  static laplace calibrate(double epsilon,
                           double l1_sensitivity,
                           core::neighbouring relation = core::neighbouring::replace_one);
  /// Noise-multiplier form: the noise scale b = `scale` (finite, > 0) is given directly, for a
  /// query of L1 sensitivity `l1_sensitivity` (default 1, so that `scale` is then the noise
  /// multiplier b / Delta_1 and epsilon = 1 / scale).
  static laplace from_scale(double scale,
                            double l1_sensitivity = 1.0,
                            core::neighbouring relation = core::neighbouring::replace_one);

  /// Noise scale b (> 0); the standard deviation is sqrt(2) b.
  double scale() const noexcept { return scale_; }
  /// L1 sensitivity Delta_1 the scale was calibrated for (1 for from_scale without one).
  double l1_sensitivity() const noexcept { return sensitivity_; }
  /// Privacy parameter of one release: epsilon = Delta_1 / b.
  double epsilon() const noexcept { return sensitivity_ / scale_; }
  /// Variance of one noise coordinate, 2 b^2.
  double variance() const noexcept { return 2.0 * scale_ * scale_; }

  /// One noise draw, location 0 (consumes one 64-bit word of the generator: two 32-bit outputs
  /// of a Philox stream; detail::laplace_from_bits).
  template <std::uniform_random_bit_generator G>
  double sample(G& g) const {
    return detail::laplace_from_bits(rng::detail::bits64(g), scale_);
  }
  /// value + noise. Throws if value is not finite.
  template <std::uniform_random_bit_generator G>
  double release(double value, G& g) const {
    core::check_finite("laplace::release", "value", value);
    return value + sample(g);
  }
  /// out[i] = independent noise draws (bit-identical to out.size() sample() calls).
  template <std::uniform_random_bit_generator G>
  void fill(std::span<double> out, G& g) const {
    std::uint32_t words[2 * detail::chunk_size];
    for (std::size_t i = 0; i < out.size(); i += detail::chunk_size) {
      const std::size_t m = std::min(detail::chunk_size, out.size() - i);
      detail::fill_words(g, std::span<std::uint32_t>(words, 2 * m));
      detail::laplace_from_bits(
          std::span<const std::uint32_t>(words, 2 * m), out.subspan(i, m), scale_);
    }
  }
  /// In place v[i] += noise (the vector Laplace mechanism for an L1-sensitivity-Delta_1 query;
  /// bit-identical to v[i] = release(v[i], g) in order). Throws if v is empty or not finite.
  template <std::uniform_random_bit_generator G>
  void privatize(std::span<double> v, G& g) const {
    core::check_nonempty_finite_span("laplace::privatize", "v", v);
    std::uint32_t words[2 * detail::chunk_size];
    for (std::size_t i = 0; i < v.size(); i += detail::chunk_size) {
      const std::size_t m = std::min(detail::chunk_size, v.size() - i);
      detail::fill_words(g, std::span<std::uint32_t>(words, 2 * m));
      detail::add_laplace_from_bits(
          std::span<const std::uint32_t>(words, 2 * m), v.subspan(i, m), scale_);
    }
  }

  /// The accounting event of one release: laplace_event{noise_multiplier = b / Delta_1}.
  core::privacy_event event() const { return core::laplace_event{scale_ / sensitivity_}; }
  /// Neighbouring relation (as given at calibration) and unit (item).
  core::protection protects() const noexcept { return {relation_, core::privacy_unit::item}; }

  /// The float-safe release with the same epsilon and sensitivity (float_safe.hpp).
  float_safe_laplace float_safe() const;

 private:
  laplace(double scale, double sensitivity, core::neighbouring relation) noexcept
      : scale_(scale), sensitivity_(sensitivity), relation_(relation) {}
  double scale_;
  double sensitivity_;
  core::neighbouring relation_;
};

}  // namespace dpx::mechanisms
