#pragma once
/// \file
/// Exact discrete samplers in integer arithmetic (Canonne, Kamath, Steinke 2020, "The discrete
/// Gaussian for differential privacy", NeurIPS; arXiv:2004.00010, Algorithms 1–3), and the
/// discrete Laplace and discrete Gaussian mechanisms on integer-valued queries.
///
/// Every sampler here consumes only uniformly random integers (drawn with exact rejection,
/// Lemire 2019) and compares integers: no floating-point value influences which integer is
/// returned, so the output distribution is EXACTLY the stated pmf (given a uniform generator).
/// This is what makes the float-safe releases (float_safe.hpp) immune to Mironov's attack.
///
/// Randomness: sample(g) draws 64-bit words directly from g (fresh 32-bit halves are split
/// from them); fill()/privatize() use a buffered word pool filled in bulk, so a vector fill
/// is NOT the same sequence as repeated sample() calls (both are exact in distribution).

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/rng.hpp"

namespace dpx::mechanisms {

namespace detail {

using u128 = rng::detail::uint128;

/// 64-bit words straight from a generator (no buffering), with 32-bit halves.
template <std::uniform_random_bit_generator G>
class direct_words {
 public:
  explicit direct_words(G& g) noexcept : g_(g) {}
  std::uint64_t next64() { return rng::detail::bits64(g_); }
  std::uint32_t next32() {
    if (have_half_) {
      have_half_ = false;
      return half_;
    }
    const std::uint64_t w = next64();
    half_ = static_cast<std::uint32_t>(w >> 32);
    have_half_ = true;
    return static_cast<std::uint32_t>(w);
  }

 private:
  G& g_;
  std::uint32_t half_ = 0;
  bool have_half_ = false;
};

/// Buffered words: refilled 256 words at a time through the generator's bulk fill when it has
/// one (rng::philox4x32::fill), so the per-word cost is that of the SIMD kernel.
template <std::uniform_random_bit_generator G>
class pooled_words {
 public:
  explicit pooled_words(G& g) noexcept : g_(g) {}
  pooled_words(const pooled_words&) = delete;
  pooled_words& operator=(const pooled_words&) = delete;
  std::uint64_t next64() {
    if (end_ - p_ < 2) refill();
    const std::uint64_t lo = p_[0];
    const std::uint64_t hi = p_[1];
    p_ += 2;
    return lo | (hi << 32);
  }
  std::uint32_t next32() {
    if (p_ == end_) refill();
    return *p_++;
  }

 private:
  static constexpr std::size_t n32 = 512;
  void refill() {
    // Words left over (at most one, from next64) are discarded: they are unused uniform
    // words, so skipping them leaves the remaining stream uniform and independent.
    if constexpr (requires(G & x, std::span<std::uint32_t> s) { x.fill(s); }) {
      g_.fill(std::span<std::uint32_t>(buf_));
    } else {
      for (std::size_t j = 0; j < n32; j += 2) {
        const std::uint64_t w = rng::detail::bits64(g_);
        buf_[j] = static_cast<std::uint32_t>(w);
        buf_[j + 1] = static_cast<std::uint32_t>(w >> 32);
      }
    }
    p_ = buf_.data();
  }
  G& g_;
  std::array<std::uint32_t, n32> buf_{};
  const std::uint32_t* p_ = buf_.data() + n32;
  const std::uint32_t* end_ = buf_.data() + n32;
};

/// Uniform on {0, ..., n - 1}, 1 <= n < 2^32 (Lemire 2019, exact rejection of the biased zone).
template <class W>
std::uint32_t uniform_below32(W& w, std::uint32_t n) {
  std::uint64_t m = static_cast<std::uint64_t>(w.next32()) * n;
  auto l = static_cast<std::uint32_t>(m);
  if (l < n) {
    const std::uint32_t t = (0u - n) % n;
    while (l < t) {
      m = static_cast<std::uint64_t>(w.next32()) * n;
      l = static_cast<std::uint32_t>(m);
    }
  }
  return static_cast<std::uint32_t>(m >> 32);
}

/// Uniform on {0, ..., n - 1}, 1 <= n (64-bit Lemire).
template <class W>
std::uint64_t uniform_below64(W& w, std::uint64_t n) {
  if (n <= std::numeric_limits<std::uint32_t>::max())
    return uniform_below32(w, static_cast<std::uint32_t>(n));
  u128 m = static_cast<u128>(w.next64()) * n;
  auto l = static_cast<std::uint64_t>(m);
  if (l < n) {
    const std::uint64_t t = (0 - n) % n;
    while (l < t) {
      m = static_cast<u128>(w.next64()) * n;
      l = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

/// Uniform on {0, ..., n - 1} for 128-bit n >= 1 (masked rejection).
template <class W>
u128 uniform_below128(W& w, u128 n) {
  if (n <= std::numeric_limits<std::uint64_t>::max())
    return uniform_below64(w, static_cast<std::uint64_t>(n));
  const auto hi_n = static_cast<std::uint64_t>(n >> 64);
  const int hi_bits = 64 - std::countl_zero(hi_n);  // n >= 2^64, so hi_n >= 1
  const std::uint64_t mask = hi_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << hi_bits) - 1;
  for (;;) {
    const u128 r = (static_cast<u128>(w.next64() & mask) << 64) | w.next64();
    if (r < n) return r;
  }
}

/// Bernoulli(num / den), 0 <= num <= den, den >= 1.
template <class W>
bool bernoulli_ratio(W& w, std::uint64_t num, std::uint64_t den) {
  return uniform_below64(w, den) < num;
}

/// Bernoulli(exp(-num/den)) for 0 <= num <= den (CKS20 Algorithm 1, gamma in [0, 1]):
/// K = 1; while Bernoulli(gamma / K): K++; return K odd.
template <class W>
bool bernoulli_exp_neg_unit(W& w, std::uint64_t num, std::uint64_t den) {
  std::uint64_t k = 1;
  for (;;) {
    bool a;
    std::uint64_t dk;
    if (!__builtin_mul_overflow(den, k, &dk)) {
      a = uniform_below64(w, dk) < num;  // Bernoulli(num / (den k))
    } else {  // product of independent Bernoulli(num/den) and Bernoulli(1/k): same law
      a = bernoulli_ratio(w, num, den) && uniform_below64(w, k) == 0;
    }
    if (!a) break;
    ++k;
  }
  return (k & 1) == 1;
}

/// Bernoulli(exp(-1)) (CKS20 Algorithm 1 with gamma = 1; Bernoulli(1/1) needs no draw).
template <class W>
bool bernoulli_exp_neg_one(W& w) {
  std::uint32_t k = 2;
  while (uniform_below32(w, k) == 0) ++k;
  return (k & 1) == 1;
}

/// Bernoulli(exp(-num/den)) for any num >= 0, den >= 1 (CKS20 Algorithm 1: floor(gamma)
/// Bernoulli(exp(-1)) trials, then the fractional part).
template <class W>
bool bernoulli_exp_neg(W& w, std::uint64_t num, std::uint64_t den) {
  const std::uint64_t q = num / den;
  for (std::uint64_t i = 0; i < q; ++i)
    if (!bernoulli_exp_neg_one(w)) return false;
  return bernoulli_exp_neg_unit(w, num % den, den);
}

/// 128-bit version of bernoulli_exp_neg.
template <class W>
bool bernoulli_exp_neg128(W& w, u128 num, u128 den) {
  if (num <= std::numeric_limits<std::uint64_t>::max() &&
      den <= std::numeric_limits<std::uint64_t>::max())
    return bernoulli_exp_neg(w, static_cast<std::uint64_t>(num), static_cast<std::uint64_t>(den));
  const u128 q = num / den;
  for (u128 i = 0; i < q; ++i)
    if (!bernoulli_exp_neg_one(w)) return false;
  const u128 r = num % den;
  std::uint64_t k = 1;
  for (;;) {
    // Bernoulli(r / (den k)) as Bernoulli(r / den) AND Bernoulli(1 / k) (independent).
    const bool a = uniform_below128(w, den) < r && uniform_below64(w, k) == 0;
    if (!a) break;
    ++k;
  }
  return (k & 1) == 1;
}

/// Discrete Laplace with scale t/s: P(z) proportional to exp(-|z| s / t), z in Z
/// (CKS20 Algorithm 2). s, t >= 1 and t < 2^62.
template <class W>
std::int64_t discrete_laplace(W& w, std::uint64_t s, std::uint64_t t) {
  for (;;) {
    const std::uint64_t u = uniform_below64(w, t);
    if (!bernoulli_exp_neg_unit(w, u, t)) continue;  // D ~ Bernoulli(exp(-U/t))
    std::uint64_t v = 0;
    while (bernoulli_exp_neg_one(w)) ++v;  // V ~ Geometric(1 - e^-1)
    const std::uint64_t x = u + t * v;
    const std::uint64_t y = (s & (s - 1)) == 0 ? x >> std::countr_zero(s) : x / s;
    const bool b = (w.next32() & 1u) != 0;  // sign
    if (b && y == 0) continue;
    return b ? -static_cast<std::int64_t>(y) : static_cast<std::int64_t>(y);
  }
}

/// Discrete Gaussian with sigma^2 = a / b: P(z) proportional to exp(-z^2 / (2 sigma^2))
/// (CKS20 Algorithm 3): t = floor(sigma) + 1; repeat Y ~ DLap(t), accept with probability
/// exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)) = exp(-(|Y| t b - a)^2 / (2 a b t^2)).
/// Preconditions (enforced by the factories): 1 <= a < 2^48, 1 <= b < 2^48, so that
/// den = 2 a b t^2 < 2^101 and |Y| t b fits in 128 bits.
template <class W>
std::int64_t discrete_gaussian(W& w, std::uint64_t a, std::uint64_t b, std::uint64_t t) {
  const u128 den = static_cast<u128>(2) * a * b * static_cast<u128>(t) * t;
  for (;;) {
    const std::int64_t y = discrete_laplace(w, 1, t);
    const u128 ay = y < 0 ? static_cast<u128>(-(y + 1)) + 1 : static_cast<u128>(y);
    const u128 ytb = ay * t * b;
    const u128 diff = ytb > a ? ytb - a : a - ytb;
    if (diff >= (static_cast<u128>(1) << 64)) {
      // Exponent diff^2 / den > 2^128 / 2^101 = 2^27: acceptance needs at least 2^27
      // consecutive Bernoulli(exp(-1)) successes. We run those trials and reject if they all
      // succeed, so the law deviates from the exact one by less than exp(-2^27) in total
      // variation (the only place in this file that is not exact).
      bool all = true;
      for (std::uint32_t i = 0; i < (1u << 27) && all; ++i) all = bernoulli_exp_neg_one(w);
      continue;
    }
    if (bernoulli_exp_neg128(w, diff * diff, den)) return y;
  }
}

/// floor(sqrt(a / b)) + 1 in exact integer arithmetic.
std::uint64_t discrete_gaussian_t(std::uint64_t a, std::uint64_t b);

}  // namespace detail

/// Discrete Laplace (two-sided geometric) noise on the integers, exact:
/// P(z) = (1 - r) / (1 + r) * r^|z| with r = exp(-1 / scale), scale = t / s a rational number.
/// Mechanism: for an integer query of sensitivity Delta (|f(D) - f(D')| <= Delta, or the L1
/// norm for vectors), f(D) + Z is (Delta / scale)-DP (Ghosh, Roughgarden, Sundararajan 2012;
/// CKS20 Sec. 2.1), under the neighbouring relation Delta was computed for.
class discrete_laplace {
 public:
  /// Smallest convenient rational scale t/s >= sensitivity / epsilon (s a power of two with
  /// t/s within a relative 2^-30 of it), so the release is epsilon'-DP with epsilon' <= epsilon.
  static discrete_laplace calibrate(double epsilon,
                                    std::int64_t sensitivity,
                                    core::neighbouring relation = core::neighbouring::replace_one);
  /// Exact rational scale t / s (t, s >= 1, t < 2^62); sensitivity for the event (default 1).
  static discrete_laplace from_rational_scale(std::uint64_t t,
                                              std::uint64_t s,
                                              std::int64_t sensitivity = 1);
  /// Scale given as a double (> 0), represented exactly or rounded up to the rational t/s.
  static discrete_laplace from_scale(double scale, std::int64_t sensitivity = 1);

  /// scale = t / s (as a double; the exact value is scale_numerator() / scale_denominator()).
  double scale() const noexcept { return static_cast<double>(t_) / static_cast<double>(s_); }
  std::uint64_t scale_numerator() const noexcept { return t_; }
  std::uint64_t scale_denominator() const noexcept { return s_; }
  /// Integer sensitivity the mechanism protects.
  std::int64_t sensitivity() const noexcept { return sensitivity_; }
  /// epsilon = sensitivity / scale.
  double epsilon() const noexcept { return static_cast<double>(sensitivity_) / scale(); }
  /// Exact pmf P(Z = z) (evaluated in double).
  double pmf(std::int64_t z) const;
  /// Variance 2 r / (1 - r)^2, r = exp(-1/scale).
  double variance() const;

  template <std::uniform_random_bit_generator G>
  std::int64_t sample(G& g) const {
    detail::direct_words<G> w(g);
    return detail::discrete_laplace(w, s_, t_);
  }
  template <std::uniform_random_bit_generator G>
  std::int64_t release(std::int64_t value, G& g) const {
    return value + sample(g);
  }
  template <std::uniform_random_bit_generator G>
  void fill(std::span<std::int64_t> out, G& g) const {
    detail::pooled_words<G> w(g);
    for (auto& z : out) z = detail::discrete_laplace(w, s_, t_);
  }
  /// v[i] += Z_i. Throws if v is empty.
  template <std::uniform_random_bit_generator G>
  void privatize(std::span<std::int64_t> v, G& g) const {
    if (v.empty())
      core::throw_invalid("discrete_laplace::privatize", "v", "empty", "must be non-empty");
    detail::pooled_words<G> w(g);
    for (auto& z : v) z += detail::discrete_laplace(w, s_, t_);
  }

  /// discrete_laplace_event{scale, sensitivity}.
  core::privacy_event event() const { return core::discrete_laplace_event{scale(), sensitivity_}; }
  core::protection protects() const noexcept { return {relation_, core::privacy_unit::item}; }

 private:
  discrete_laplace(std::uint64_t t, std::uint64_t s, std::int64_t sens, core::neighbouring rel)
      : t_(t), s_(s), sensitivity_(sens), relation_(rel) {}
  std::uint64_t t_, s_;
  std::int64_t sensitivity_;
  core::neighbouring relation_;
};

/// Discrete Gaussian noise on the integers, exact: P(z) proportional to exp(-z^2 / (2 sigma^2)),
/// sigma^2 = a / b rational (CKS20 Algorithm 3).
/// Mechanism (CKS20 Thm. 14): for an integer query of L2 sensitivity Delta, f(D) + Z is
/// (Delta^2 / (2 sigma^2))-zCDP; its exact (epsilon, delta) curve is CKS20 Thm. 7 (the
/// accounting library evaluates discrete_gaussian_event).
class discrete_gaussian {
 public:
  /// sigma given as a double in [2^-10, 2^23]: sigma^2 is represented exactly when it is
  /// a dyadic rational a / 2^k with a < 2^25, otherwise rounded UP to one (relative < 2^-23, so
  /// the noise is never smaller than requested).
  static discrete_gaussian from_sigma(
      double sigma,
      double l2_sensitivity = 1.0,
      core::neighbouring relation = core::neighbouring::replace_one);
  /// Exact rational variance parameter sigma^2 = a / b (a, b >= 1, a / b <= 2^80, a, b < 2^62).
  static discrete_gaussian from_rational_variance(std::uint64_t a,
                                                  std::uint64_t b,
                                                  double l2_sensitivity = 1.0);
  /// sigma = Delta / sqrt(2 rho) (CKS20 Thm. 14): rho-zCDP for an integer query of L2
  /// sensitivity Delta (rounded up as in from_sigma).
  static discrete_gaussian calibrate_zcdp(
      double rho,
      double l2_sensitivity,
      core::neighbouring relation = core::neighbouring::replace_one);

  /// sigma = sqrt(a / b).
  double sigma() const noexcept {
    return std::sqrt(static_cast<double>(a_) / static_cast<double>(b_));
  }
  std::uint64_t variance_numerator() const noexcept { return a_; }
  std::uint64_t variance_denominator() const noexcept { return b_; }
  double l2_sensitivity() const noexcept { return sensitivity_; }
  /// rho = Delta^2 / (2 sigma^2).
  double rho() const noexcept {
    return sensitivity_ * sensitivity_ * static_cast<double>(b_) / (2.0 * static_cast<double>(a_));
  }
  /// Exact pmf (normalising constant summed to double precision).
  double pmf(std::int64_t z) const;

  template <std::uniform_random_bit_generator G>
  std::int64_t sample(G& g) const {
    detail::direct_words<G> w(g);
    return detail::discrete_gaussian(w, a_, b_, t_);
  }
  template <std::uniform_random_bit_generator G>
  std::int64_t release(std::int64_t value, G& g) const {
    return value + sample(g);
  }
  template <std::uniform_random_bit_generator G>
  void fill(std::span<std::int64_t> out, G& g) const {
    detail::pooled_words<G> w(g);
    for (auto& z : out) z = detail::discrete_gaussian(w, a_, b_, t_);
  }
  /// v[i] += Z_i. Throws if v is empty.
  template <std::uniform_random_bit_generator G>
  void privatize(std::span<std::int64_t> v, G& g) const {
    if (v.empty())
      core::throw_invalid("discrete_gaussian::privatize", "v", "empty", "must be non-empty");
    detail::pooled_words<G> w(g);
    for (auto& z : v) z += detail::discrete_gaussian(w, a_, b_, t_);
  }

  /// discrete_gaussian_event{sigma, sensitivity}.
  core::privacy_event event() const { return core::discrete_gaussian_event{sigma(), sensitivity_}; }
  core::protection protects() const noexcept { return {relation_, core::privacy_unit::item}; }

 private:
  discrete_gaussian(std::uint64_t a, std::uint64_t b, double sens, core::neighbouring rel);
  std::uint64_t a_, b_, t_;
  double sensitivity_;
  core::neighbouring relation_;
};

}  // namespace dpx::mechanisms
