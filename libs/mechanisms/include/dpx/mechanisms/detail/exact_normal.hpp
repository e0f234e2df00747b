#pragma once
/// \file
/// Exact sampling of round(t + a N), N ~ N(0, 1), for dyadic t and a > 0: the noise of the
/// rounded Gaussian mechanism (rounded_gaussian.hpp). Not part of the public API.
///
/// N is drawn by Karney's Algorithm N (C. F. F. Karney, "Sampling exactly from the normal
/// distribution", ACM TOMS 42(1), 2016): N = s (k + x) with k >= 0 an integer and x a uniform
/// real in [0, 1) whose binary digits are drawn lazily (a "u-rand"). Every decision compares
/// random digits with random digits or with exact constants (1/2, integers), never with a
/// floating-point approximation of a transcendental function, so the law of N is exactly the
/// standard normal:
///   N1. k <- 0; while Bernoulli(exp(-1/2)): k <- k + 1           (P(k) ∝ exp(-k/2))
///   N2. accept with probability exp(-k (k - 1) / 2)               (k (k - 1) Bernoulli(e^-1/2))
///   N3. x <- u-rand; accept with probability exp(-x (2k + x) / 2)  (Algorithm B, k + 1 times)
///   N4. s <- random sign; N = s (k + x).                          Otherwise restart at N1.
/// P(k, x) ∝ exp(-k^2/2 - k x - x^2/2) = exp(-(k + x)^2 / 2) on [k, k + 1): half-normal.
/// Bernoulli(exp(-1/2)) and Algorithm B are von Neumann's method: for a chain of uniforms
/// y_0 = c > z_1 > z_2 > ... (each link also passing an independent Bernoulli(p)), the chain
/// length n has P(n >= j) = (c p)^j / j!, so P(n even) = exp(-c p).
///
/// The rounding J = floor(t + a N + 1/2) then reads as many digits of x as it needs: for an
/// x-prefix of b bits the values t + a s (k + x) fill an interval; when the interval lies in one
/// cell [j - 1/2, j + 1/2), J = j for every completion of x. A double-precision test with a
/// rigorous error bound decides from 32 bits of x except with probability ~2^-19 (for
/// a ~ 2^12); otherwise exact integer arithmetic (exact_normal.cpp) refines x 64 bits at a time.
/// Since x's undrawn digits are uniform given everything decided so far (Karney's point), J has
/// exactly the law of round(t + a N). A tie (t + a N exactly a half-integer) has probability 0.

#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>

#include "dpx/core/rng.hpp"

namespace dpx::mechanisms::detail {

/// A uniform real in [0, 1) with lazily drawn digits, 64 at a time (most significant first).
class lazy_uniform {
 public:
  /// 1024 digits; needing more (two uniforms equal on 1024 bits, or a rounding undecided after
  /// 1024 bits) has probability below 2^-1000, and throws rather than guess.
  static constexpr std::size_t max_words = 16;

  void reset() noexcept { n_ = 0; }
  std::size_t words() const noexcept { return n_; }
  /// Word i (0 = the 64 most significant digits), drawn from g when not yet drawn.
  template <std::uniform_random_bit_generator G>
  std::uint64_t word(std::size_t i, G& g) {
    while (n_ <= i) {
      if (n_ == max_words) throw_exhausted();
      w_[n_++] = rng::detail::bits64(g);
    }
    return w_[i];
  }
  /// word(i, g) for a type-erased generator (next(gen) returns 64 random bits).
  std::uint64_t word(std::size_t i, std::uint64_t (*next)(void*), void* gen) {
    while (n_ <= i) {
      if (n_ == max_words) throw_exhausted();
      w_[n_++] = next(gen);
    }
    return w_[i];
  }
  /// Word i, which must have been drawn.
  std::uint64_t drawn(std::size_t i) const noexcept { return w_[i]; }

 private:
  [[noreturn]] static void throw_exhausted();
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): words beyond n_ are never read
  std::array<std::uint64_t, max_words> w_;
  std::size_t n_ = 0;
};

/// a < b for two lazy uniforms (digits drawn until they differ).
template <std::uniform_random_bit_generator G>
bool less(lazy_uniform& a, lazy_uniform& b, G& g) {
  for (std::size_t i = 0;; ++i) {
    const std::uint64_t x = a.word(i, g), y = b.word(i, g);
    if (x != y) return x < y;
  }
}

/// Bernoulli(exp(-1/2)) (Karney's Algorithm H): von Neumann's chain started at c = 1/2.
template <std::uniform_random_bit_generator G>
bool bernoulli_exp_minus_half(G& g) {
  lazy_uniform buf[2];
  lazy_uniform* y = nullptr;  // nullptr: the exact constant 1/2
  for (int n = 0;; ++n) {
    lazy_uniform& z = buf[n % 2];
    z.reset();
    // z < 1/2 iff its first digit is 0 (z's other digits cannot make it reach 1/2).
    const bool below = y == nullptr ? (z.word(0, g) >> 63) == 0 : less(z, *y, g);
    if (!below) return n % 2 == 0;
    y = &z;
  }
}

/// Karney's Algorithm B: true with probability exp(-x (2k + x) / (2k + 2)). The chain starts at
/// y = x itself (the same digits: extending y extends x); each link passes Bernoulli(p) with
/// p = (2k + x)/(2k + 2): f uniform in [0, 2k + 2), then f < 2k, or f = 2k and r < x.
template <std::uniform_random_bit_generator G>
bool karney_b(std::uint64_t k, lazy_uniform& x, G& g) {
  lazy_uniform buf[2], r;
  lazy_uniform* y = &x;
  for (int n = 0;; ++n) {
    lazy_uniform& z = buf[n % 2];
    z.reset();
    if (!less(z, *y, g)) return n % 2 == 0;
    const std::uint64_t f = rng::uniform_below(g, 2 * k + 2);
    bool pass = f < 2 * k;
    if (f == 2 * k) {
      r.reset();
      pass = less(r, x, g);
    }
    if (!pass) return n % 2 == 0;
    y = &z;
  }
}

/// One exact standard normal N = sign (k + x).
struct exact_normal {
  bool negative = false;
  std::uint64_t k = 0;
  lazy_uniform x;
};

/// Karney's Algorithm N (steps N1-N4 of the file comment).
template <std::uniform_random_bit_generator G>
void draw_exact_normal(G& g, exact_normal& out) {
  for (;;) {
    std::uint64_t k = 0;
    while (bernoulli_exp_minus_half(g)) ++k;
    bool ok = true;
    for (std::uint64_t i = 0; ok && i < k * (k - (k > 0 ? 1 : 0)); ++i)
      ok = bernoulli_exp_minus_half(g);
    if (!ok) continue;
    out.x.reset();
    for (std::uint64_t j = 0; ok && j <= k; ++j) ok = karney_b(k, out.x, g);
    if (!ok) continue;
    out.k = k;
    out.negative = (rng::detail::bits64(g) >> 63) != 0;
    return;
  }
}

/// The exact slow path of round_normal: refines n.x until t + a N lies in one cell (t, a
/// finite doubles, a > 0).
std::int64_t round_normal_exact(
    double t, double a, exact_normal& n, std::uint64_t (*next_word)(void*), void* gen);

/// floor(t + a N + 1/2) for the drawn normal n (see the file comment), reading more digits of
/// n.x from g as needed. |t| and a (k + 1) must be below 2^52 (callers check).
template <std::uniform_random_bit_generator G>
std::int64_t round_normal(double t, double a, exact_normal& n, G& g) {
  // Fast path: x in [P 2^-32, (P + 1) 2^-32) from its first 32 digits; y = k + P 2^-32 is exact
  // for k < 2^20. Each of a*y, t +- (.) and the final bounds rounds once (relative 2^-53 of a
  // magnitude <= M = |t| + a (k + 1) + 1), so err = 2^-49 M covers them with room to spare.
  const std::uint64_t p = n.x.word(0, g) >> 32;
  if (n.k < (1u << 20)) {
    const double y_lo = static_cast<double>(n.k) + static_cast<double>(p) * 0x1p-32;
    const double y_hi = y_lo + 0x1p-32;
    const double s = n.negative ? -1.0 : 1.0;
    const double v1 = t + s * (a * y_lo), v2 = t + s * (a * y_hi);
    const double lo = std::fmin(v1, v2), hi = std::fmax(v1, v2);
    const double err = (std::fabs(t) + a * (static_cast<double>(n.k) + 1.0) + 1.0) * 0x1p-49;
    const double c = std::floor(lo + 0.5);
    if (lo - err >= c - 0.5 && hi + err < c + 0.5) return static_cast<std::int64_t>(c);
  }
  return round_normal_exact(
      t, a, n, [](void* gen) { return rng::detail::bits64(*static_cast<G*>(gen)); }, &g);
}

}  // namespace dpx::mechanisms::detail
