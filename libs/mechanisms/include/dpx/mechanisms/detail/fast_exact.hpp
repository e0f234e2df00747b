#pragma once
/// \file
/// Fast EXACT samplers for large-scale discrete Laplace and discrete Gaussian noise (the noise
/// behind the float-safe releases). Not part of the public API.
///
/// The CKS20 samplers (discrete.hpp) decide every Bernoulli(exp(-gamma)) with a chain of
/// rational Bernoulli draws: exact, but ~10 random integers per sample. Here the same laws are
/// sampled from one 64-bit word per discrete Laplace draw, still exactly:
///
/// * Every decision is an event {U < exp(-gamma)} with gamma = num/den rational and U a
///   uniform real in [0, 1) generated lazily. U's first bits (52 for the magnitude, 32 for an
///   acceptance) are compared with a double approximation p of exp(-gamma) whose relative
///   error is provably below 2^-44 (IEEE conversions and products, fdlibm exp < 1 ulp; see each
///   call); bounds widened by a relative 2^-40 decide unless U's prefix falls in a band of
///   probability ~2^-38 (52 bits) or ~2^-30 (32 bits). Then more bits of U are drawn and
///   compared with exp(-gamma) evaluated in 320-bit (and, if still undecided, 1100-bit)
///   floating point with a relative margin of 2^-290 (2^-1060): exp_neg_compare_slow. No
///   floating-point value ever changes which integer is returned. (After 1056 bits without a
///   decision — probability below 2^-1000 — the call throws rather than guess.)
/// * Geometric magnitude, P(M = m) = (1 - q) q^m with q = exp(-s/t), by inversion:
///   M = m  iff  q^(m+1) <= U < q^m, so P(M = m) = q^m - q^(m+1) exactly. A vectorised kernel
///   (geometric_candidates) proposes m = floor(-ln(U) t/s) and certifies both inequalities from
///   U's 52-bit prefix; uncertified words go to resolve_magnitude (exact, rare).
/// * Discrete Laplace: sign bit (bit 0 of the same word, independent of the top 52 bits) and
///   magnitude, rejecting (negative, 0) as CKS20 Algorithm 2 does.
/// * Discrete Gaussian, sigma >= 32 (every default float-safe grid): the block sampler below
///   (fill_discrete_gaussian_block) — a uniform block of width c ~ sigma/8 chosen by an
///   integer alias table over proven upper-bound weights, then one exact acceptance of
///   probability ~0.95: one 64-bit word per candidate. sigma < 32: CKS20 Algorithm 3 with the
///   discrete Laplace above as proposal and the fast exact Bernoulli for the acceptance
///   (fill_discrete_gaussian_fast). fill_discrete_gaussian_exact picks between them.

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "dpx/mechanisms/detail/kernels.hpp"
#include "dpx/mechanisms/discrete.hpp"

namespace dpx::mechanisms::detail {

/// Exact slow path: is U < exp(-num/den)? U's first 32 bits are `head`, its next bits are the
/// 64-bit words in `extra` (shared by successive comparisons of the same U), extended with
/// next_word() as needed. den >= 1.
bool exp_neg_compare_slow(std::uint32_t head,
                          std::vector<std::uint64_t>& extra,
                          const std::function<std::uint64_t()>& next_word,
                          u128 num,
                          u128 den);

/// Relative margin of the fast comparison (the approximation error is < 2^-44).
inline constexpr double fast_margin = 0x1p-40;

/// Decides U < p from U's first 32 bits `head`, given p_approx within a relative 2^-44 of p:
/// 1 (surely less), 0 (surely not), -1 (undecided: use exp_neg_compare_slow).
inline int compare_head(std::uint32_t head, double p_approx) noexcept {
  const double scaled = p_approx * 0x1p32;  // exact (power of two)
  const double h = static_cast<double>(head);
  if (h + 1.0 <= scaled * (1.0 - fast_margin)) return 1;  // U < (head+1)/2^32 <= p
  if (h >= scaled * (1.0 + fast_margin)) return 0;        // U >= head/2^32 >= p
  return -1;
}

/// Exact Bernoulli(exp(-num/den)) for num/den <= 30 with a double approximation p_approx of
/// exp(-num/den) (relative error < 2^-44).
/// The slow path for one comparison of a fresh uniform (kept out of line: rare).
template <class W>
[[gnu::noinline, gnu::cold]] bool compare_slow_once(W& w, std::uint32_t u, u128 num, u128 den) {
  std::vector<std::uint64_t> extra;
  return exp_neg_compare_slow(
      u, extra, [&w] { return w.next64(); }, num, den);
}

template <class W>
bool bernoulli_exp_neg_fast(W& w, double p_approx, u128 num, u128 den) {
  const std::uint32_t u = w.next32();
  const int c = compare_head(u, p_approx);
  if (c >= 0) return c == 1;
  return compare_slow_once(w, u, num, den);
}

/// The geometric law P(M = m) = (1 - q) q^m, q = exp(-s/t), in the form the inversion kernel
/// (geometric_candidates, kernels.hpp) needs.
struct geometric_law {
  std::uint64_t s = 1, t = 1;
  double gamma = 1;      ///< s/t (relative error <= 3 2^-53)
  double q = 0;          ///< exp(-gamma) (libm, <= 1 ulp)
  double inv_gamma = 1;  ///< t/s (only for the candidate: any error is caught by the check)
  /// The fast method needs scale t/s >= 1 (then m gamma <= -ln U + gamma <= 38 < 708).
  static bool usable(std::uint64_t s, std::uint64_t t) noexcept { return s >= 1 && t >= s; }
  static geometric_law of(std::uint64_t s, std::uint64_t t) noexcept {
    geometric_law l;
    l.s = s;
    l.t = t;
    l.gamma = static_cast<double>(s) / static_cast<double>(t);
    l.q = std::exp(-l.gamma);
    l.inv_gamma = static_cast<double>(t) / static_cast<double>(s);
    return l;
  }
};

/// 64-bit words straight from a generator, for the slow paths.
template <std::uniform_random_bit_generator G>
struct generator_words {
  G& g;
  std::uint64_t next64() { return rng::detail::bits64(g); }
  std::uint32_t next32() { return static_cast<std::uint32_t>(rng::detail::bits64(g) >> 32); }
};

/// The exact magnitude for word w when the kernel could not decide: U's first 52 bits are
/// w's top 52 bits, its later bits fresh words of g; m is moved from the candidate until
/// exp(-(m+1) s/t) <= U < exp(-m s/t) holds exactly (out of line: rare).
template <std::uniform_random_bit_generator G>
[[gnu::noinline, gnu::cold]] std::uint64_t resolve_magnitude(G& g,
                                                             const geometric_law& law,
                                                             std::uint64_t w,
                                                             double candidate) {
  const auto head = static_cast<std::uint32_t>(w >> 32);
  std::vector<std::uint64_t> extra{(((w >> 12) & 0xFFFFFull) << 44) |
                                   (rng::detail::bits64(g) >> 20)};
  const std::function<std::uint64_t()> next = [&g] { return rng::detail::bits64(g); };
  const auto less = [&](std::uint64_t m) {  // U < exp(-m s/t)
    return exp_neg_compare_slow(head, extra, next, static_cast<u128>(m) * law.s, law.t);
  };
  std::uint64_t m =
      candidate >= 0 && candidate < 0x1p62 ? static_cast<std::uint64_t>(candidate) : 0;
  while (m > 0 && !less(m)) --m;
  while (less(m + 1)) ++m;
  return m;
}

/// Proposals per round of the chunked samplers.
inline constexpr std::size_t fast_chunk = 256;

/// words <- 32-bit outputs of g (the same sequence as fill_words); a few words are drawn one
/// 64-bit word at a time, since a bulk fill has a fixed cost that dominates scalar draws.
template <std::uniform_random_bit_generator G>
void draw_words(G& g, std::span<std::uint32_t> words) {
  if (words.size() > 32 || words.size() % 2 != 0) {
    fill_words(g, words);
    return;
  }
  for (std::size_t i = 0; i < words.size(); i += 2) {
    const std::uint64_t w = rng::detail::bits64(g);
    words[i] = static_cast<std::uint32_t>(w);
    words[i + 1] = static_cast<std::uint32_t>(w >> 32);
  }
}

/// out[i] = exact discrete Laplace draws, P(z) ∝ exp(-|z| s/t): sign from bit 0 of a word and
/// the magnitude by inversion of the word's top 52 bits (CKS20 Algorithm 2's rejection of
/// (negative, 0): such a slot is redrawn from fresh words).
template <std::uniform_random_bit_generator G>
void fill_discrete_laplace_fast(G& g, const geometric_law& law, std::span<std::int64_t> out) {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): scratch, written before read
  std::array<std::uint32_t, 2 * fast_chunk> words;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): scratch, written before read
  std::array<double, fast_chunk> m, ok;
  for (std::size_t done = 0; done < out.size();) {
    const std::size_t n = std::min(fast_chunk, out.size() - done);
    draw_words(g, std::span<std::uint32_t>(words.data(), 2 * n));
    geometric_candidates(std::span<const std::uint32_t>(words.data(), 2 * n),
                         law.gamma,
                         law.q,
                         law.inv_gamma,
                         std::span<double>(m.data(), n),
                         std::span<double>(ok.data(), n));
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t w = words[2 * i] | (static_cast<std::uint64_t>(words[2 * i + 1]) << 32);
      const std::uint64_t mag =
          ok[i] != 0 ? static_cast<std::uint64_t>(m[i]) : resolve_magnitude(g, law, w, m[i]);
      const bool negative = (w & 1) != 0;
      if (negative && mag == 0) {
        fill_discrete_laplace_fast(g, law, out.subspan(done + i, 1));  // redraw (rare)
        continue;
      }
      out[done + i] = negative ? -static_cast<std::int64_t>(mag) : static_cast<std::int64_t>(mag);
    }
    done += n;
  }
}

struct block_gaussian_law;

/// The discrete Gaussian sigma^2 = a/b of CKS20 Algorithm 3 with its proposal law.
struct gaussian_law {
  std::uint64_t a = 1, b = 1, t = 1;  ///< sigma^2 = a/b, proposal scale t = floor(sigma) + 1
  geometric_law proposal;             ///< discrete Laplace of scale t (s = 1)
  u128 den = 1;                       ///< 2 a b t^2
  /// The block sampler's tables when sigma >= 32 (block_gaussian_law::usable), else null.
  std::shared_ptr<const block_gaussian_law> block;
  /// Same preconditions as discrete_gaussian() in discrete.hpp (a, b < 2^48).
  /// with_block: also build the block sampler's tables if usable.
  static gaussian_law of(std::uint64_t a, std::uint64_t b, bool with_block = false);
};

/// |Y| t b - a in absolute value, exactly (u128), for the acceptance of proposal y.
inline u128 gaussian_diff(const gaussian_law& law, std::int64_t y) noexcept {
  const u128 ay = y < 0 ? static_cast<u128>(-(y + 1)) + 1 : static_cast<u128>(y);
  const u128 ytb = ay * law.t * law.b;
  return ytb > law.a ? ytb - law.a : law.a - ytb;
}

/// out[i] = exact discrete Gaussian draws (CKS20 Algorithm 3): proposals from
/// fill_discrete_laplace_fast, each accepted with probability exp(-gamma),
/// gamma = (|Y| t b - a)^2 / (2 a b t^2), by the fast exact Bernoulli.
template <std::uniform_random_bit_generator G>
void fill_discrete_gaussian_fast(G& g, const gaussian_law& law, std::span<std::int64_t> out) {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): scratch, written before read
  std::array<std::int64_t, fast_chunk> y;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): scratch, written before read
  std::array<double, fast_chunk> p;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): scratch, written before read
  std::array<std::uint32_t, fast_chunk> acc;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): scratch, written before read
  std::array<std::uint8_t, fast_chunk> kind;  // 0 fast, 1 CKS20 chain (gamma > 30), 2 far tail
  const double inv_den = 1.0 / static_cast<double>(law.den);
  generator_words<G> gw{g};
  std::size_t done = 0;
  while (done < out.size()) {
    const std::size_t n = std::min(fast_chunk, std::max<std::size_t>(4, 2 * (out.size() - done)));
    fill_discrete_laplace_fast(g, law.proposal, std::span<std::int64_t>(y.data(), n));
    for (std::size_t i = 0; i < n; ++i) {
      // |Y| t b - a in 64-bit arithmetic when it fits (the float-safe grids), else 128-bit.
      const std::uint64_t ay =
          y[i] < 0 ? static_cast<std::uint64_t>(-(y[i] + 1)) + 1 : static_cast<std::uint64_t>(y[i]);
      std::uint64_t ytb = 0, diff = 0;
      if (!__builtin_mul_overflow(ay, law.t, &ytb) && !__builtin_mul_overflow(ytb, law.b, &ytb)) {
        diff = ytb > law.a ? ytb - law.a : law.a - ytb;
      } else {
        const u128 d = gaussian_diff(law, y[i]);
        if (d >= (static_cast<u128>(1) << 64)) {
          kind[i] = 2;
          p[i] = 0;
          continue;
        }
        diff = static_cast<std::uint64_t>(d);
      }
      // gamma: (double)diff, (double)den and 1/den correctly rounded, two products: relative
      // error <= 6 2^-53; for gamma <= 30 the absolute error is < 2^-45.5, and the exp kernel
      // is < 1 ulp, so p is within a relative 2^-45 of exp(-gamma).
      const auto d = static_cast<double>(diff);
      const double gamma = d * d * inv_den;
      kind[i] = gamma > 30.0 ? 1 : 0;
      p[i] = gamma > 30.0 ? 0.0 : gamma;
    }
    exp_neg_kernel(std::span<double>(p.data(), n));
    draw_words(g, std::span<std::uint32_t>(acc.data(), n));
    for (std::size_t i = 0; i < n && done < out.size(); ++i) {
      bool accept = false;
      if (kind[i] == 0) {
        const int c = compare_head(acc[i], p[i]);
        if (c >= 0) {
          accept = c == 1;
        } else {
          const u128 d = gaussian_diff(law, y[i]);
          accept = compare_slow_once(gw, acc[i], d * d, law.den);
        }
      } else if (kind[i] == 1) {
        const u128 d = gaussian_diff(law, y[i]);
        accept = bernoulli_exp_neg128(gw, d * d, law.den);  // exact chain, acceptance < 1e-13
      } else {
        // Exponent > 2^27: as discrete_gaussian() in discrete.hpp (reject; deviation from the
        // exact law < exp(-2^27) in total variation).
        bool all = true;
        for (std::uint32_t k = 0; k < (1u << 27) && all; ++k) all = bernoulli_exp_neg_one(gw);
      }
      if (accept) out[done++] = y[i];
    }
  }
}

// ---- Block sampler: the discrete Gaussian for sigma >= 32 (the float-safe grids) -----------
//
// Law: P(y) = f(y) / sum_z f(z), f(y) = exp(-y^2 / (2 sigma^2)), sigma^2 = a/b, y in Z.
//
// Proposal (acceptance ~0.95 instead of CKS20's ~0.76, and one 64-bit word per candidate):
// block width c = 2^log2c (default: the largest power of two <= sigma/8), blocks
// k = 0 .. K-1 and a tail bin. Integer weights W_0..W_K and an integer lambda with
//   W_k >= lambda f(k c)   (k >= 1: f rounded up with a proven margin; W_0 >= lambda f(0)),
//   sum_{k<K} W_k + 2 W_K = 2^40 = 256 bins * 2^32 EXACTLY (W_0 takes the slack),
// so an integer Walker alias table over 256 bins of capacity 2^32 draws bin k with probability
// exactly W_k / 2^40 (tail bin: 2 W_K / 2^40) from 8 index bits and a 32-bit threshold R:
// bin i is kept iff R < threshold[i], else alias[i] (integers only).
// Candidate: m = k c + j (j uniform on [0, c), log2c bits), sign bit s; y = m if s = 0, else
// y = -(m + 1) (every integer exactly once, 0 only as (k, j, s) = (0, 0, 0)). Tail bin: k = K + G
// with P(G = g) = 2^-(g+1) (trailing zeros of fresh words). Accept with probability
//   A(y) = f(y) lambda 2^G / W_k   (G = 0 outside the tail; W_k := W_K in the tail).
// A(y) <= 1: |y| >= k c so f(y) <= f(k c) <= W_k / lambda; in the tail
// f((i+1) c) / f(i c) = exp(-(2i+1) c^2 / (2 sigma^2)) <= 1/2 for i >= K (the "halving
// condition" (2K+1) c^2 / (2 sigma^2) >= 0.7 > ln 2, checked in integers), so
// f((K+G) c) <= 2^-G f(K c). Then P(propose y and accept) = f(y) lambda / (2^41 c) for EVERY
// y (block: W_k/2^40 * 1/2 * 1/c * A; tail: 2 W_K/2^40 * 2^-(G+1) * 1/2 * 1/c * A): the output
// law is exactly P(y). The weights only have to be upper bounds, so no rounding of theirs can
// bias the law; the acceptance event {U < A(y)} is decided exactly:
//   stage 1: U's first h = 23 - log2c bits (the rest of the candidate word) against a double
//     approximation of A(y) (relative error < 2^-41, see block_accept) widened by 2^-36;
//   stage 2 (probability ~2^-h): 32 more bits of U, the same comparison;
//   stage 3 (probability ~2^-35): more bits, A(y) in 320/1100-bit arithmetic
//     (block_accept_slow, margin 2^-290 / 2^-1060).
// No floating-point value decides an output.

/// Exact slow path of the block sampler: is U < exp(-y^2 b / (2a)) lambda 2^e / w? U's first
/// prefix_bits (<= 64) bits are `prefix`, its later bits come from next_word(), 64 at a time.
/// y^2 b / (2a) must be below 2^24 (always, see block_gaussian_law).
bool block_accept_slow(std::uint64_t prefix,
                       int prefix_bits,
                       const std::function<std::uint64_t()>& next_word,
                       std::uint64_t y_abs,
                       std::uint64_t a,
                       std::uint64_t b,
                       std::uint64_t lambda,
                       std::uint64_t w,
                       int e);

/// The block sampler's constants (see above); built by of() in exact integer arithmetic.
struct block_gaussian_law {
  static constexpr int index_bits = 8;
  static constexpr std::size_t bins = std::size_t{1} << index_bits;
  static constexpr std::uint64_t capacity = std::uint64_t{1} << 32;  ///< per bin
  static constexpr std::uint64_t total = bins * capacity;            ///< 2^40
  static constexpr std::uint32_t default_blocks = 255;
  /// Relative margin of the fast comparisons (the approximation error is < 2^-41).
  static constexpr double margin = 0x1p-36;

  std::uint64_t a = 1, b = 1;  ///< sigma^2 = a / b
  int log2c = 2;
  std::uint64_t c = 4;  ///< block width
  std::uint32_t K = 0;  ///< blocks 0..K-1 in the table; bin K is the tail
  int head_bits = 0;    ///< h = 23 - log2c: acceptance bits left in the candidate word
  double two_h = 1;     ///< 2^h
  std::uint64_t lambda = 0;
  double half_inv_var = 0;                      ///< b / (2a), correctly rounded
  std::array<std::uint64_t, bins> weight{};     ///< W_k, k <= K (0 beyond)
  std::array<std::uint64_t, bins> threshold{};  ///< alias thresholds in [0, 2^32]
  std::array<std::uint32_t, bins> alias{};
  std::array<double, bins> ratio{};  ///< lambda / W_k (correctly rounded), k <= K
  /// Test hook: 2 = normal; 1 = skip stage 1; 0 = decide every acceptance by the slow path.
  int fast_level = 2;

  /// The block sampler is used for sigma >= 32 (a >= 1024 b); a, b < 2^48.
  static bool usable(std::uint64_t a, std::uint64_t b) noexcept {
    return b >= 1 && a / b >= 1024 && a < (std::uint64_t{1} << 48) && b < (std::uint64_t{1} << 48);
  }
  /// Default parameters: c = largest power of two <= sigma / 8, K = 255.
  static block_gaussian_law of(std::uint64_t a, std::uint64_t b);
  /// Explicit block width 2^log2c and K blocks (tests force the tail with a small K). Throws
  /// std::invalid_argument unless usable(a, b), 2 <= log2c <= 21, 8 <= K <= 255, the halving
  /// condition 10 (2K+1) c^2 b >= 14 a holds, and (K+1)^2 c^2 b <= 1200 a (gamma <= 600).
  static block_gaussian_law of(std::uint64_t a, std::uint64_t b, int log2c, std::uint32_t K);
};

/// Acceptance of a candidate: U < A with A ~ p_approx (relative error < 2^-41), U's first
/// law.head_bits bits = head. Stage 2 draws one fresh word (its top 32 bits extend U), stage
/// 3 goes to block_accept_slow with lambda 2^e / w and |y| = y_abs.
template <std::uniform_random_bit_generator G>
bool block_accept(G& g,
                  const block_gaussian_law& law,
                  std::uint32_t head,
                  double p_approx,
                  std::uint64_t y_abs,
                  std::uint64_t w,
                  int e) {
  constexpr double lo = 1.0 - block_gaussian_law::margin, hi = 1.0 + block_gaussian_law::margin;
  const int h = law.head_bits;
  std::uint64_t prefix = head;
  int bits = h;
  if (law.fast_level >= 2) {
    // U in [head, head + 1) 2^-h; both bounds exact doubles (h <= 21).
    const double s = p_approx * law.two_h;  // exact (power of two)
    const auto hd = static_cast<double>(head);
    if (hd + 1.0 <= s * lo) return true;
    if (hd >= s * hi) return false;
  }
  if (law.fast_level >= 1) {
    prefix = (prefix << 32) | (rng::detail::bits64(g) >> 32);
    bits += 32;                                        // <= 53: prefix is an exact double
    const double s = p_approx * (law.two_h * 0x1p32);  // exact
    const auto hd = static_cast<double>(prefix);
    if (hd + 1.0 <= s * lo) return true;
    if (hd >= s * hi) return false;
  }
  return block_accept_slow(
      prefix, bits, [&g] { return rng::detail::bits64(g); }, y_abs, law.a, law.b, law.lambda, w, e);
}

/// A candidate from the tail bin (rare: probability < e^-100 with the default parameters):
/// G, then y, then the acceptance; returns true and sets y if accepted.
template <std::uniform_random_bit_generator G>
[[gnu::noinline, gnu::cold]] bool block_tail_candidate(G& g,
                                                       const block_gaussian_law& law,
                                                       std::uint64_t j,
                                                       bool negative,
                                                       std::uint32_t head,
                                                       std::int64_t& y) {
  int gexp = 0;  // P(G = g) = 2^-(g+1): trailing zeros of uniform words
  for (;;) {
    const std::uint64_t x = rng::detail::bits64(g);
    if (x != 0) {
      gexp += std::countr_zero(x);
      break;
    }
    gexp += 64;
    if (gexp > 1024)  // probability 2^-1024 (the slow path's policy: throw, never guess)
      throw std::runtime_error("block discrete Gaussian: tail index beyond 1024 (p < 2^-1000)");
  }
  const std::uint64_t m = (law.K + static_cast<std::uint64_t>(gexp)) * law.c + j;  // < 2^32
  const std::uint64_t ay = m + (negative ? 1 : 0);
  y = negative ? -static_cast<std::int64_t>(ay) : static_cast<std::int64_t>(ay);
  const auto d = static_cast<double>(ay);
  const double gamma = d * d * law.half_inv_var;
  double p = -1.0;  // -1: go to the slow path directly
  if (gamma <= 700.0) {
    // Same error analysis as the table blocks (gamma <= 700: |gamma error| < 2^-41.5);
    // ldexp is exact unless it overflows (then the slow path decides).
    const double r = std::ldexp(law.ratio[law.K], gexp);
    if (std::isfinite(r)) p = exp_kernel(-gamma) * r;
  }
  if (p < 0) {
    return block_accept_slow(
        head,
        law.head_bits,
        [&g] { return rng::detail::bits64(g); },
        ay,
        law.a,
        law.b,
        law.lambda,
        law.weight[law.K],
        gexp);
  }
  return block_accept(g, law, head, p, ay, law.weight[law.K], gexp);
}

/// out[i] = exact discrete Gaussian draws by the block sampler (see above). Per candidate one
/// 64-bit word w (two 32-bit outputs, low first): R = low half (alias threshold); high half:
/// bits 31..24 bin index, bit 23 sign, the next log2c bits j, the low h bits U's head.
template <std::uniform_random_bit_generator G>
void fill_discrete_gaussian_block(G& g,
                                  const block_gaussian_law& law,
                                  std::span<std::int64_t> out) {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): scratch, written before read
  std::array<std::uint32_t, 2 * fast_chunk> words;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): scratch, written before read
  std::array<double, fast_chunk> p;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): scratch, written before read
  std::array<std::int64_t, fast_chunk> y;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): scratch, written before read
  std::array<std::uint32_t, fast_chunk> blk;
  const int h = law.head_bits;
  const std::uint32_t jmask = static_cast<std::uint32_t>(law.c - 1);
  const std::uint32_t hmask = (std::uint32_t{1} << h) - 1;
  const double hiv = law.half_inv_var;
  const double two_h = law.two_h;
  std::size_t done = 0;
  while (done < out.size()) {
    // Enough candidates for the remaining outputs at acceptance >= 0.9, in one bulk draw
    // (a scalar draw takes one candidate per round: acceptance ~0.95).
    const std::size_t left = out.size() - done;
    const std::size_t n = left <= 4 ? left : std::min(fast_chunk, left + left / 8 + 2);
    draw_words(g, std::span<std::uint32_t>(words.data(), 2 * n));
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t r = words[2 * i], top = words[2 * i + 1];
      const std::uint32_t idx = top >> 24;
      const std::uint32_t k = r < law.threshold[idx] ? idx : law.alias[idx];
      const std::uint64_t m = static_cast<std::uint64_t>(k) * law.c + ((top >> h) & jmask);
      const std::uint64_t neg = (top >> 23) & 1;
      const std::uint64_t ay = m + neg;  // |y| <= (K + 1) c
      y[i] = neg != 0 ? -static_cast<std::int64_t>(ay) : static_cast<std::int64_t>(ay);
      blk[i] = k;
      // gamma = y^2 b / (2a): three roundings (y^2, b/(2a), product) -> relative error
      // <= 3.01 2^-53; gamma <= 600 (checked by of()) -> absolute error < 2^-42.2.
      const auto d = static_cast<double>(ay);
      p[i] = d * d * hiv;
    }
    // exp(-gamma) (fdlibm kernel, relative error < 2^-51 against libm, itself < 1 ulp): with
    // the gamma error, < 2^-42 relative; times lambda / W_k (two more roundings): A(y) is
    // approximated within a relative 2^-41.9 < 2^-36 = the comparison margin.
    exp_neg_kernel(std::span<double>(p.data(), n));
    for (std::size_t i = 0; i < n && done < out.size(); ++i) {
      const std::uint32_t top = words[2 * i + 1];
      const std::uint32_t k = blk[i];
      bool accept = false;
      if (k == law.K) {
        std::int64_t yt = 0;
        accept = block_tail_candidate(
            g, law, (top >> h) & jmask, ((top >> 23) & 1) != 0, top & hmask, yt);
        y[i] = yt;
      } else {
        const double a_approx = p[i] * law.ratio[k];
        const std::uint32_t head = top & hmask;
        // Stage 1 inline (the common case); block_accept repeats it for undecided heads.
        const double s = a_approx * two_h;  // exact (power of two)
        const auto hd = static_cast<double>(head);
        if (law.fast_level >= 2 && hd + 1.0 <= s * (1.0 - block_gaussian_law::margin)) {
          accept = true;
        } else if (law.fast_level >= 2 && hd >= s * (1.0 + block_gaussian_law::margin)) {
          accept = false;
        } else {
          const std::int64_t v = y[i];
          const std::uint64_t ay =
              v < 0 ? static_cast<std::uint64_t>(-v) : static_cast<std::uint64_t>(v);
          accept = block_accept(g, law, head, a_approx, ay, law.weight[k], 0);
        }
      }
      if (accept) out[done++] = y[i];
    }
  }
}

/// The discrete Gaussian of law: the block sampler when law.block is set (sigma >= 32), else
/// CKS20 Algorithm 3 (fill_discrete_gaussian_fast).
template <std::uniform_random_bit_generator G>
void fill_discrete_gaussian_exact(G& g, const gaussian_law& law, std::span<std::int64_t> out) {
  if (law.block)
    fill_discrete_gaussian_block(g, *law.block, out);
  else
    fill_discrete_gaussian_fast(g, law, out);
}

}  // namespace dpx::mechanisms::detail
