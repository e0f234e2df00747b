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
///   magnitude, rejecting (negative, 0) as CKS20 Algorithm 2 does. Discrete Gaussian: CKS20
///   Algorithm 3 with this discrete Laplace as proposal and the fast exact Bernoulli for the
///   acceptance.

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
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
  std::array<std::uint32_t, 2 * fast_chunk> words;
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

/// The discrete Gaussian sigma^2 = a/b of CKS20 Algorithm 3 with its proposal law.
struct gaussian_law {
  std::uint64_t a = 1, b = 1, t = 1;  ///< sigma^2 = a/b, proposal scale t = floor(sigma) + 1
  geometric_law proposal;             ///< discrete Laplace of scale t (s = 1)
  u128 den = 1;                       ///< 2 a b t^2
  /// Same preconditions as discrete_gaussian() in discrete.hpp (a, b < 2^48).
  static gaussian_law of(std::uint64_t a, std::uint64_t b) {
    gaussian_law l;
    l.a = a;
    l.b = b;
    l.t = discrete_gaussian_t(a, b);
    l.proposal = geometric_law::of(1, l.t);
    l.den = static_cast<u128>(2) * a * b * static_cast<u128>(l.t) * l.t;
    return l;
  }
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
  std::array<std::int64_t, fast_chunk> y;
  std::array<double, fast_chunk> p;
  std::array<std::uint32_t, fast_chunk> acc;
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

}  // namespace dpx::mechanisms::detail
