#pragma once
/// \file
/// Float-safe Laplace and Gaussian releases: exact discrete noise on a power-of-two grid.
///
/// Mironov (2012) showed that x + Lap(b) computed in floating point is not DP: the set of
/// doubles the sum can take depends on x, so low-order bits reveal the input. The releases here
/// never add floating-point noise to x. With a grid Lambda = 2^k (chosen from the noise scale):
///   1. k_x = round_to_nearest_even(x / Lambda)   (x / Lambda is exact: a power-of-two scaling)
///   2. draw Z from an EXACT integer sampler (CKS20, discrete.hpp)
///   3. release (k_x + Z) * Lambda                (exact for |k_x + Z| < 2^53; otherwise a
///                                                 deterministic rounding = post-processing)
/// The output is a function of the integer k_x + Z only, so the guarantee is that of the
/// discrete mechanism on the rounded query, which we calibrate exactly:
///   * rounding can increase the sensitivity: for a d-dimensional query of L1 sensitivity
///     Delta_1, ||round(x/Lambda) - round(x'/Lambda)||_1 <= floor(Delta_1/Lambda) + d; for L2,
///     <= Delta_2/Lambda + sqrt(d). The noise is calibrated for these bounds, per call (d is the
///     span length), so the stated epsilon (Laplace) or rho (Gaussian) holds EXACTLY for every d.
///   * the price is a noise scale larger by a relative d Lambda / Delta (about d 2^-20 for the
///     default Laplace grid, d 2^-12 for the Gaussian grid) and outputs on the grid Lambda.
/// This is the approach of Google's library and OpenDP (discrete noise on a 2^k grid), with
/// exact samplers: CKS20's laws, sampled by the fast exact methods of detail/fast_exact.hpp
/// (a lazily refined uniform compared with exp(-gamma); for the Gaussian with sigma_Z >= 32,
/// a block proposal from an integer alias table with acceptance ~0.95; the same laws, far
/// fewer random words).
/// Default for real releases; pair it with the CSPRNG rng::os_random (docs/mechanisms.md,
/// "Generators").

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/detail/fast_exact.hpp"
#include "dpx/mechanisms/discrete.hpp"

namespace dpx::mechanisms {

namespace detail {
/// Throws (naming fn) for a value that is not finite.
[[noreturn]] void throw_off_grid(const char* fn, double x);
/// k = round(x / lambda) (half to even) as an integer, clamped to [−2^61, 2^61]; throws if x is
/// not finite. x / lambda is exact: lambda is a power of two (barring underflow). The clamp
/// (1-Lipschitz, so the sensitivity bound of the rounded query still holds) replaces an error
/// that the query value alone would trigger — a release-or-error switch on private data — and
/// leaves 2^61 of headroom for the integer noise.
inline std::int64_t to_grid(const char* fn, double x, double lambda) {
  const double r = x / lambda;
  if (!std::isfinite(r)) throw_off_grid(fn, x);
  if (!(std::fabs(r) < 0x1p61)) return r > 0 ? std::int64_t{1} << 61 : -(std::int64_t{1} << 61);
  // Round half to even: adding and subtracting 1.5 2^52 is exact rounding for |r| < 2^51;
  // doubles of magnitude >= 2^52 are integers already; between, nearbyint (libm).
  const double a = std::fabs(r);
  const double k = a < 0x1p51 ? (r + 0x1.8p52) - 0x1.8p52 : a >= 0x1p52 ? r : std::nearbyint(r);
  return static_cast<std::int64_t>(k);
}
/// Largest power of two <= scale * 2^-bits.
double grid_for_scale(double scale, int bits);

/// The release paths shared by the float-safe mechanisms (CRTP). Derived provides
/// `lambda_` (the grid), `unit_law()` (the exact integer noise law of a scalar release),
/// `dimension_law(d)` (the law of a d-dimensional release), `static draw(g, law, out)` (exact
/// integer draws) and the names `release_name`, `privatize_name` used in errors.
template <class Derived>
class grid_release {
 public:
  /// One noise draw of a scalar release (location 0): Lambda * Z.
  template <std::uniform_random_bit_generator G>
  double sample(G& g) const {
    std::int64_t z = 0;
    Derived::draw(g, self().unit_law(), std::span<std::int64_t>(&z, 1));
    return static_cast<double>(z) * self().lambda_;
  }
  /// (round(value / Lambda) + Z) * Lambda, |round(value / Lambda)| clamped to 2^61. Throws if
  /// value is not finite.
  template <std::uniform_random_bit_generator G>
  double release(double value, G& g) const {
    const double lambda = self().lambda_;
    const std::int64_t k = to_grid(Derived::release_name, value, lambda);
    std::int64_t z = 0;
    Derived::draw(g, self().unit_law(), std::span<std::int64_t>(&z, 1));
    return static_cast<double>(k + z) * lambda;
  }
  /// out[i] = noise draws of scalar releases (Lambda * Z_i).
  template <std::uniform_random_bit_generator G>
  void fill(std::span<double> out, G& g) const {
    const double lambda = self().lambda_;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): scratch, written before read
    std::array<std::int64_t, fast_chunk> z;
    for (std::size_t i = 0; i < out.size(); i += z.size()) {
      const std::size_t n = std::min(z.size(), out.size() - i);
      Derived::draw(g, self().unit_law(), std::span<std::int64_t>(z.data(), n));
      for (std::size_t j = 0; j < n; ++j) out[i + j] = static_cast<double>(z[j]) * lambda;
    }
  }
  /// The d-dimensional release in place (d = v.size(); noise calibrated for d).
  template <std::uniform_random_bit_generator G>
  void privatize(std::span<double> v, G& g) const {
    const char* fn = Derived::privatize_name;
    const double lambda = self().lambda_;
    core::check_nonempty_finite_span(fn, "v", v);
    // Every value must fit the grid before any is changed (no half-privatized vector).
    for (const double x : v) (void)to_grid(fn, x, lambda);
    const auto law = self().dimension_law(v.size());
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): scratch, written before read
    std::array<std::int64_t, fast_chunk> z;
    for (std::size_t i = 0; i < v.size(); i += z.size()) {
      const std::size_t n = std::min(z.size(), v.size() - i);
      Derived::draw(g, law, std::span<std::int64_t>(z.data(), n));
      for (std::size_t j = 0; j < n; ++j) {
        const std::int64_t k = to_grid(fn, v[i + j], lambda);
        v[i + j] = static_cast<double>(k + z[j]) * lambda;
      }
    }
  }

 private:
  const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
};
}  // namespace detail

/// Float-safe Laplace mechanism (discrete Laplace on the grid Lambda = 2^(floor(log2 b) -
/// granularity_bits), b = Delta_1 / epsilon). Guarantee: epsilon-DP, exactly, for a query of L1
/// sensitivity Delta_1 under the stated neighbouring relation, for every dimension d.
class float_safe_laplace : public detail::grid_release<float_safe_laplace> {
 public:
  /// Default grid: 2^-20 of the noise scale (output resolution ~1e-6 b).
  static constexpr int default_granularity_bits = 20;

  /// epsilon and l1_sensitivity finite and > 0; granularity_bits in [0, 40].
  static float_safe_laplace calibrate(double epsilon,
                                      double l1_sensitivity,
                                      core::neighbouring relation = core::neighbouring::replace_one,
                                      int granularity_bits = default_granularity_bits);

  double epsilon() const noexcept { return epsilon_; }
  double l1_sensitivity() const noexcept { return sensitivity_; }
  /// The grid Lambda (a power of two); every output is an integer multiple of it.
  double granularity() const noexcept { return lambda_; }
  /// Integer sensitivity of the rounded d-dimensional query: floor(Delta_1 / Lambda) + d.
  std::int64_t grid_sensitivity(std::size_t d = 1) const noexcept {
    return base_sensitivity_ + static_cast<std::int64_t>(d);
  }
  /// The exact integer noise law used for a d-dimensional release (scale in grid units).
  discrete_laplace noise_for_dimension(std::size_t d = 1) const {
    return discrete_laplace::calibrate(epsilon_, grid_sensitivity(d), relation_);
  }
  /// Effective noise scale of a scalar release, in value units (Lambda * grid scale >= b).
  double scale() const noexcept { return lambda_ * unit_.scale(); }

  using grid_release::fill;
  using grid_release::privatize;
  using grid_release::release;
  using grid_release::sample;

  /// pure_dp_event{epsilon} (exact for every dimension, see above).
  core::privacy_event event() const { return core::pure_dp_event{epsilon_}; }
  core::protection protects() const noexcept { return {relation_, core::privacy_unit::item}; }

 private:
  friend class detail::grid_release<float_safe_laplace>;
  static constexpr const char* release_name = "float_safe_laplace::release";
  static constexpr const char* privatize_name = "float_safe_laplace::privatize";
  const discrete_laplace& unit_law() const noexcept { return unit_; }
  discrete_laplace dimension_law(std::size_t d) const { return noise_for_dimension(d); }
  float_safe_laplace(
      double eps, double sens, double lambda, std::int64_t base, core::neighbouring rel)
      : epsilon_(eps),
        sensitivity_(sens),
        lambda_(lambda),
        base_sensitivity_(base),
        relation_(rel),
        unit_(discrete_laplace::calibrate(eps, base + 1, rel)) {}
  /// Exact discrete Laplace draws of law dl: the fast exact method (detail/fast_exact.hpp)
  /// when the scale is >= 1 (always, for the default grids), else CKS20 Algorithm 2.
  template <std::uniform_random_bit_generator G>
  static void draw(G& g, const discrete_laplace& dl, std::span<std::int64_t> out) {
    const std::uint64_t s = dl.scale_denominator(), t = dl.scale_numerator();
    if (detail::geometric_law::usable(s, t)) {
      detail::fill_discrete_laplace_fast(g, detail::geometric_law::of(s, t), out);
    } else {
      detail::pooled_words<G> w(g);
      for (auto& z : out) z = detail::discrete_laplace(w, s, t);
    }
  }
  double epsilon_, sensitivity_, lambda_;
  std::int64_t base_sensitivity_;  // floor(Delta_1 / Lambda)
  core::neighbouring relation_;
  discrete_laplace unit_;  // noise law of a scalar release
};

/// Float-safe Gaussian mechanism (discrete Gaussian on the grid Lambda = 2^(floor(log2 sigma)
/// - granularity_bits)). For a d-dimensional query of L2 sensitivity Delta_2 the grid noise
/// has sigma_Z = sigma (Delta_2/Lambda + sqrt(d)) / Delta_2 (rounded up), so the release is
/// rho-zCDP with rho = Delta_2^2 / (2 sigma^2) EXACTLY (CKS20 Thm. 14 on the rounded query),
/// the same rho as the continuous Gaussian with this sigma. (epsilon, delta) follows from rho
/// (Bun & Steinke 2016, Prop. 1.3) — slightly looser than the analytic continuous curve.
class float_safe_gaussian : public detail::grid_release<float_safe_gaussian> {
 public:
  /// Default grid: 2^-12 of sigma (keeps the exact sampler in 64-bit arithmetic).
  static constexpr int default_granularity_bits = 12;

  /// Same sigma as a calibrated continuous gaussian: sigma, l2_sensitivity finite and > 0,
  /// granularity_bits in [0, 20].
  static float_safe_gaussian from_sigma(
      double sigma,
      double l2_sensitivity = 1.0,
      core::neighbouring relation = core::neighbouring::replace_one,
      int granularity_bits = default_granularity_bits);
  /// sigma = Delta_2 / sqrt(2 rho) (rho-zCDP, Bun & Steinke 2016, Prop. 1.6).
  static float_safe_gaussian calibrate_zcdp(
      double rho,
      double l2_sensitivity,
      core::neighbouring relation = core::neighbouring::replace_one,
      int granularity_bits = default_granularity_bits);

  double sigma() const noexcept { return sigma_; }
  double l2_sensitivity() const noexcept { return sensitivity_; }
  double granularity() const noexcept { return lambda_; }
  /// rho = Delta_2^2 / (2 sigma^2).
  double rho() const noexcept { return sensitivity_ * sensitivity_ / (2.0 * sigma_ * sigma_); }
  /// The exact integer noise law of a d-dimensional release (sigma in grid units).
  discrete_gaussian noise_for_dimension(std::size_t d = 1) const;

  using grid_release::fill;
  using grid_release::privatize;
  using grid_release::release;
  using grid_release::sample;

  /// zcdp_event{rho} (exact for every dimension, see above).
  core::privacy_event event() const { return core::zcdp_event{rho()}; }
  core::protection protects() const noexcept { return {relation_, core::privacy_unit::item}; }

 private:
  friend class detail::grid_release<float_safe_gaussian>;
  static constexpr const char* release_name = "float_safe_gaussian::release";
  static constexpr const char* privatize_name = "float_safe_gaussian::privatize";
  const detail::gaussian_law& unit_law() const noexcept { return unit_law_; }
  /// The block sampler's table costs a few microseconds to build: worth it from ~100 values on;
  /// short vectors use CKS20 Algorithm 3 (the same exact law).
  detail::gaussian_law dimension_law(std::size_t d) const {
    const auto dg = noise_for_dimension(d);
    return detail::gaussian_law::of(dg.variance_numerator(), dg.variance_denominator(), d >= 128);
  }
  float_safe_gaussian(double sigma, double sens, double lambda, core::neighbouring rel);
  /// Exact discrete Gaussian draws (detail/fast_exact.hpp): the block sampler for
  /// sigma_Z >= 32 (every default grid), else CKS20 Algorithm 3 by the fast exact method.
  template <std::uniform_random_bit_generator G>
  static void draw(G& g, const detail::gaussian_law& law, std::span<std::int64_t> out) {
    detail::fill_discrete_gaussian_exact(g, law, out);
  }
  double sigma_, sensitivity_, lambda_;
  core::neighbouring relation_;
  discrete_gaussian unit_;           // noise law of a scalar release
  detail::gaussian_law unit_law_{};  // its sampling constants
};

}  // namespace dpx::mechanisms
