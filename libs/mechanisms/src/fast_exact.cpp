// Fast exact samplers: the multiprecision slow path and the tables (detail/fast_exact.hpp).
#include "dpx/mechanisms/detail/fast_exact.hpp"

#include <bit>
#include <stdexcept>

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

/// 1: U < exp(-num/den) surely; 0: surely not; -1: undecided with the bits known so far.
/// U is in [V/2^B, (V+1)/2^B) with V = head.extra (B = 32 + 64 |extra|); exp(-num/den) is
/// evaluated with Bits of precision and bracketed by a relative margin of 2^-margin_bits
/// (Boost's exp at this precision is accurate to a few ulps, far inside the margin).
template <unsigned Bits>
int decide(std::uint32_t head,
           const std::vector<std::uint64_t>& extra,
           u128 num,
           u128 den,
           int margin_bits) {
  using F = bmp::number<bmp::cpp_bin_float<Bits, bmp::digit_base_2>, bmp::et_off>;
  const F gamma = F(to_cpp_int(num)) / F(to_cpp_int(den));
  const F p = exp(-gamma);
  const F eps = ldexp(F(1), -margin_bits);
  const int b = 32 + 64 * static_cast<int>(extra.size());
  bmp::cpp_int v = head;
  for (const std::uint64_t x : extra) {
    v <<= 64;
    v += x;
  }
  const auto p_lo = floor(ldexp(p * (1 - eps), b)).template convert_to<bmp::cpp_int>();
  const auto p_hi = ceil(ldexp(p * (1 + eps), b)).template convert_to<bmp::cpp_int>();
  if (v + 1 <= p_lo) return 1;
  if (v >= p_hi) return 0;
  return -1;
}

}  // namespace

bool exp_neg_compare_slow(std::uint32_t head,
                          std::vector<std::uint64_t>& extra,
                          const std::function<std::uint64_t()>& next_word,
                          u128 num,
                          u128 den) {
  if (num == 0) return true;  // U < 1 always
  for (;;) {
    const int c = extra.size() <= 4 ? decide<320>(head, extra, num, den, 290)
                                    : decide<1100>(head, extra, num, den, 1060);
    if (c >= 0) return c == 1;
    if (extra.size() >= 16)
      throw std::runtime_error(
          "exp_neg_compare_slow: undecided after 1056 random bits (probability < 2^-1000)");
    extra.push_back(next_word());
  }
}

}  // namespace dpx::mechanisms::detail
