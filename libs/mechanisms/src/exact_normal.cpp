// Exact rounding of t + a N (detail/exact_normal.hpp): the multiprecision slow path.
#include "dpx/mechanisms/detail/exact_normal.hpp"

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <boost/multiprecision/cpp_int.hpp>

namespace dpx::mechanisms::detail {

namespace {
namespace bmp = boost::multiprecision;

// d = m 2^e exactly (m an integer with |m| < 2^53).
struct dyadic {
  std::int64_t m = 0;
  int e = 0;
};
dyadic split(double d) {
  int e = 0;
  const double f = std::frexp(d, &e);  // d = f 2^e, 0.5 <= |f| < 1 (or f = 0)
  return {static_cast<std::int64_t>(std::ldexp(f, 53)), e - 53};
}

// v 2^shift for shift >= 0.
bmp::cpp_int scaled(const bmp::cpp_int& v, int shift) { return v << shift; }

// floor(n / 2^f) and ceil(n / 2^f), f >= 0, for signed n (cpp_int's / truncates toward 0).
bmp::cpp_int floor_pow2(const bmp::cpp_int& n, int f) {
  const bmp::cpp_int d = bmp::cpp_int(1) << f;
  bmp::cpp_int q = n / d;
  if (n < 0 && q * d != n) --q;
  return q;
}
bmp::cpp_int ceil_pow2(const bmp::cpp_int& n, int f) { return -floor_pow2(-n, f); }
}  // namespace

void lazy_uniform::throw_exhausted() {
  throw std::runtime_error(
      "mechanisms: exact normal sampler needed more than 1024 random digits (probability below "
      "2^-1000); refusing to guess");
}

std::int64_t round_normal_exact(
    double t, double a, exact_normal& n, std::uint64_t (*next_word)(void*), void* gen) {
  const dyadic td = split(t), ad = split(a);
  bmp::cpp_int prefix = n.x.word(0, next_word, gen);  // x in [P 2^-b, (P + 1) 2^-b)
  for (std::size_t w = 1;; ++w) {
    const int b = static_cast<int>(64 * w);
    // Common scale 2^F making t 2^F, a y 2^F and 1/2 2^F integers.
    const int f = std::max({-td.e, b - ad.e, 1});
    const bmp::cpp_int tf = scaled(bmp::cpp_int(td.m), td.e + f);
    const bmp::cpp_int y_lo = (bmp::cpp_int(n.k) << b) + prefix, y_hi = y_lo + 1;
    const int ash = ad.e - b + f;  // >= 0 by the choice of f
    const bmp::cpp_int ay_lo = scaled(bmp::cpp_int(ad.m) * y_lo, ash);
    const bmp::cpp_int ay_hi = scaled(bmp::cpp_int(ad.m) * y_hi, ash);
    const bmp::cpp_int half = bmp::cpp_int(1) << (f - 1);
    bmp::cpp_int c_lo, c_hi;
    if (!n.negative) {  // values in [t + a y_lo, t + a y_hi)
      c_lo = floor_pow2(tf + ay_lo + half, f);
      c_hi = ceil_pow2(tf + ay_hi + half, f) - 1;
    } else {  // values in (t - a y_hi, t - a y_lo]
      c_lo = floor_pow2(tf - ay_hi + half, f);
      c_hi = floor_pow2(tf - ay_lo + half, f);
    }
    if (c_lo == c_hi) return static_cast<std::int64_t>(c_lo);
    prefix = (prefix << 64) + n.x.word(w, next_word, gen);
  }
}

}  // namespace dpx::mechanisms::detail
