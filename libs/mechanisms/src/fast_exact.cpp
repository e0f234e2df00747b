// Fast exact samplers: the multiprecision slow path and the tables (detail/fast_exact.hpp).
#include "dpx/mechanisms/detail/fast_exact.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>

#include "dpx/core/error.hpp"

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>

namespace dpx::mechanisms::detail {

namespace {

namespace bmp = boost::multiprecision;

bmp::cpp_int to_cpp_int(u128 v) {
  bmp::cpp_int r = static_cast<std::uint64_t>(v >> 64);
  r <<= 64;
  r += static_cast<std::uint64_t>(v);
  return r;
}

/// 1: U < p surely; 0: surely not; -1: undecided with the bits known so far, for
/// p = exp(-num/den) * scale_num / scale_den and U in [v/2^B, (v+1)/2^B). p is evaluated with
/// Bits of precision and bracketed by a relative margin of 2^-margin_bits (Boost's exp at this
/// precision is accurate to a few ulps, and the rounding of num/den contributes a relative
/// gamma 2^-Bits, both far inside the margin for gamma < 2^24).
template <unsigned Bits>
int decide(const bmp::cpp_int& v,
           int b,
           const bmp::cpp_int& num,
           const bmp::cpp_int& den,
           const bmp::cpp_int& scale_num,
           const bmp::cpp_int& scale_den,
           int margin_bits) {
  using F = bmp::number<bmp::cpp_bin_float<Bits, bmp::digit_base_2>, bmp::et_off>;
  const F gamma = F(num) / F(den);
  const F p = exp(-gamma) * F(scale_num) / F(scale_den);
  const F eps = ldexp(F(1), -margin_bits);
  const auto p_lo = floor(ldexp(p * (1 - eps), b)).template convert_to<bmp::cpp_int>();
  const auto p_hi = ceil(ldexp(p * (1 + eps), b)).template convert_to<bmp::cpp_int>();
  if (v + 1 <= p_lo) return 1;
  if (v >= p_hi) return 0;
  return -1;
}

/// Extends U's known bits (v, b) by next_word() until decide() answers; 320-bit arithmetic
/// while b <= 288, then 1100-bit; throws after b > 1056 + 64 (probability < 2^-1000).
bool decide_lazily(bmp::cpp_int v,
                   int b,
                   const std::function<std::uint64_t()>& next_word,
                   const bmp::cpp_int& num,
                   const bmp::cpp_int& den,
                   const bmp::cpp_int& scale_num,
                   const bmp::cpp_int& scale_den) {
  for (;;) {
    const int c = b <= 288 ? decide<320>(v, b, num, den, scale_num, scale_den, 290)
                           : decide<1100>(v, b, num, den, scale_num, scale_den, 1060);
    if (c >= 0) return c == 1;
    if (b > 1056 + 64)
      throw std::runtime_error(
          "exact exp comparison: undecided after 1056 random bits (probability < 2^-1000)");
    v <<= 64;
    v += next_word();
    b += 64;
  }
}

}  // namespace

bool exp_neg_compare_slow(std::uint32_t head,
                          std::vector<std::uint64_t>& extra,
                          const std::function<std::uint64_t()>& next_word,
                          u128 num,
                          u128 den) {
  if (num == 0) return true;  // U < 1 always
  const bmp::cpp_int n = to_cpp_int(num), d = to_cpp_int(den), one = 1;
  for (;;) {
    const int b = 32 + 64 * static_cast<int>(extra.size());
    bmp::cpp_int v = head;
    for (const std::uint64_t x : extra) {
      v <<= 64;
      v += x;
    }
    const int c = extra.size() <= 4 ? decide<320>(v, b, n, d, one, one, 290)
                                    : decide<1100>(v, b, n, d, one, one, 1060);
    if (c >= 0) return c == 1;
    if (extra.size() >= 16)
      throw std::runtime_error(
          "exp_neg_compare_slow: undecided after 1056 random bits (probability < 2^-1000)");
    extra.push_back(next_word());
  }
}

bool block_accept_slow(std::uint64_t prefix,
                       int prefix_bits,
                       const std::function<std::uint64_t()>& next_word,
                       std::uint64_t y_abs,
                       std::uint64_t a,
                       std::uint64_t b,
                       std::uint64_t lambda,
                       std::uint64_t w,
                       int e) {
  bmp::cpp_int num = y_abs;
  num *= y_abs;
  num *= b;
  bmp::cpp_int den = a;
  den *= 2;
  // gamma < 2^24 keeps the 320-bit evaluation far inside its margin (see decide). It always
  // holds: |y| <= (K + 1 + G) c with G <= 1087 (block_tail_candidate), and of() ensures
  // c^2 b / (2a) <= 600 / (K + 1)^2 with K >= 8, so gamma <= 600 (1 + 1087/9)^2 < 2^23.2.
  if (num >= (den << 24)) throw std::logic_error("block_accept_slow: gamma >= 2^24 (unreachable)");
  bmp::cpp_int scale_num = lambda;
  scale_num <<= e;
  return decide_lazily(prefix, prefix_bits, next_word, num, den, scale_num, bmp::cpp_int(w));
}

gaussian_law gaussian_law::of(std::uint64_t a, std::uint64_t b, bool with_block) {
  gaussian_law l;
  l.a = a;
  l.b = b;
  l.t = discrete_gaussian_t(a, b);
  l.proposal = geometric_law::of(1, l.t);
  l.den = static_cast<u128>(2) * a * b * static_cast<u128>(l.t) * l.t;
  if (with_block && block_gaussian_law::usable(a, b))
    l.block = std::make_shared<const block_gaussian_law>(block_gaussian_law::of(a, b));
  return l;
}

block_gaussian_law block_gaussian_law::of(std::uint64_t a, std::uint64_t b) {
  // Largest c = 2^log2c with 64 c^2 b <= a (c <= sigma / 8; sigma >= 32 gives c >= 4, and
  // sigma < 2^24 gives c <= 2^20).
  int lc = 2;
  while (lc < 21 && (static_cast<u128>(64) << (2 * (lc + 1))) * b <= a) ++lc;
  return of(a, b, lc, default_blocks);
}

block_gaussian_law block_gaussian_law::of(std::uint64_t a,
                                          std::uint64_t b,
                                          int log2c,
                                          std::uint32_t blocks) {
  const char* fn = "block_gaussian_law::of";
  if (!usable(a, b))
    core::throw_invalid(
        fn, "a / b", static_cast<double>(a) / static_cast<double>(b), "must be >= 1024");
  if (log2c < 2 || log2c > 21) core::throw_invalid(fn, "log2c", log2c, "must be in [2, 21]");
  if (blocks < 8 || blocks >= bins) core::throw_invalid(fn, "K", blocks, "must be in [8, 255]");
  block_gaussian_law l;
  l.a = a;
  l.b = b;
  l.log2c = log2c;
  l.c = std::uint64_t{1} << log2c;
  l.K = blocks;
  l.head_bits = 23 - log2c;  // 8 index bits + 1 sign bit + log2c bits of j before it
  l.two_h = std::ldexp(1.0, l.head_bits);
  const u128 c2b = static_cast<u128>(l.c) * l.c * b;
  // Halving condition (2K+1) c^2 / (2 sigma^2) >= 0.7 > ln 2 (tail envelope, see the header).
  if (static_cast<u128>(10) * (2 * blocks + 1) * c2b < static_cast<u128>(14) * a)
    core::throw_invalid(fn, "K", blocks, "is too small for the block width (halving condition)");
  // Every table candidate has |y| <= (K + 1) c: gamma <= 600 (fast path error bound, exp
  // kernel domain).
  if (static_cast<u128>(blocks + 1) * (blocks + 1) * c2b > static_cast<u128>(1200) * a)
    core::throw_invalid(fn, "log2c", log2c, "gives gamma > 600 in the table");
  l.half_inv_var = static_cast<double>(b) / (2.0 * static_cast<double>(a));  // a, b < 2^53

  // Upper bounds u_k >= f(k c), k <= K. gamma_d = fl(fl((k c)^2) * half_inv_var) has relative
  // error <= 3.01 2^-53 and gamma <= 600, so |gamma_d - gamma| < 2^-42.2; exp_kernel is within
  // 2^-51 of libm (tested), libm within 1 ulp: f(k c) < e_k (1 + 2^-41.9). The factor
  // (1 + 2^-30) (and the roundings after it, 2^-53 each) keeps every bound on the safe side.
  std::array<double, bins> u{};
  for (std::uint32_t k = 0; k <= blocks; ++k) {
    const std::uint64_t kc = k * l.c;  // < 2^29
    const double gamma = static_cast<double>(kc * kc) * l.half_inv_var;
    u[k] = exp_kernel(-gamma) * (1.0 + 0x1p-30);
  }
  double z = 2.0 * u[blocks];
  for (std::uint32_t k = 0; k < blocks; ++k) z += u[k];
  z *= 1.0 + 0x1p-30;  // >= the exact sum of the u_k (257 roundings < 2^-44 relative)
  // lambda z <= 2^40 - 2^12: the ceilings below add at most K + 2 <= 257 and the products'
  // roundings a relative 2^-53, so W_0 = 2^40 - (the rest) >= lambda is left.
  auto lambda = static_cast<std::uint64_t>(std::floor((0x1p40 - 0x1p12) / z));
  for (;;) {
    std::uint64_t rest = 0;
    for (std::uint32_t k = 1; k <= blocks; ++k) {
      // fl(lambda u_k) >= lambda u_k (1 - 2^-53) >= lambda f(k c): an exact integer (< 2^41).
      const double wk = std::ceil(static_cast<double>(lambda) * u[k]);
      l.weight[k] = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(wk));
      rest += k < blocks ? l.weight[k] : 2 * l.weight[k];
    }
    if (rest + lambda <= total) {
      l.weight[0] = total - rest;  // >= lambda = lambda f(0): block 0 takes the slack
      break;
    }
    lambda -= (lambda >> 20) + 1;  // not reached (z is an upper bound); kept for safety
  }
  l.lambda = lambda;
  for (std::uint32_t k = 0; k <= blocks; ++k)
    l.ratio[k] = static_cast<double>(lambda) / static_cast<double>(l.weight[k]);

  // Walker/Vose alias table in integers: bin i keeps itself with probability threshold[i] /
  // 2^32 and goes to alias[i] otherwise; each bin carries exactly 2^32 units of weight, so
  // P(k) = (threshold[k] + sum over i with alias[i] = k of (2^32 - threshold[i])) / 2^40 =
  // W_k / 2^40 exactly (tail bin: 2 W_K).
  std::array<std::uint64_t, bins> wt{};
  for (std::uint32_t k = 0; k < blocks; ++k) wt[k] = l.weight[k];
  wt[blocks] = 2 * l.weight[blocks];
  std::vector<std::uint32_t> small, large;
  for (std::uint32_t i = 0; i < bins; ++i) (wt[i] < capacity ? small : large).push_back(i);
  while (!small.empty() && !large.empty()) {
    const std::uint32_t s = small.back(), g = large.back();
    small.pop_back();
    l.threshold[s] = wt[s];
    l.alias[s] = g;
    wt[g] -= capacity - wt[s];
    if (wt[g] < capacity) {
      large.pop_back();
      small.push_back(g);
    }
  }
  // The weights sum to bins * capacity exactly, so what is left has exactly the capacity.
  for (const auto& rest : {small, large}) {
    for (const std::uint32_t i : rest) {
      if (wt[i] != capacity) throw std::logic_error("block_gaussian_law: alias table mass");
      l.threshold[i] = capacity;
      l.alias[i] = i;
    }
  }
  return l;
}

}  // namespace dpx::mechanisms::detail
