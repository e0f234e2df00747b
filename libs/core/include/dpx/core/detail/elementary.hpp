#pragma once
/// \file
/// dpx's own elementary-function kernels: ln x, sin/cos(2 pi u) and e^x on the domains the
/// samplers need, from the fdlibm polynomials (e_log.c, e_exp.c: Sun Microsystems 1993; the
/// sin/cos kernels as in musl's __sin.c / __cos.c), written branch-free with only IEEE
/// add/sub/mul/div and exact bit manipulation so that loops calling them vectorise (AVX-512,
/// AVX2, baseline) and every variant and the scalar call return identical bits (the project
/// compiles with -ffp-contract=off). The one home of these kernels: rng::standard_normal
/// (core/src/normal.cpp) and the research-grade samplers of dpx::mechanisms
/// (mechanisms/src/kernels.cpp) both call them. Accuracy (< 1 ulp, fdlibm's bound) is checked
/// against libm in tests/mechanisms/kernels_test.cpp and tests/data/models_test.cpp.
/// Internal: not part of the API.

#include <bit>
#include <cmath>
#include <cstdint>

namespace dpx::core::detail {

// ---- ln(x): fdlibm e_log.c (Sun Microsystems 1993), the "hfsq" formula for every input ----
inline constexpr double ln2_hi = 0x1.62e42feep-1;        // 6.93147180369123816490e-01
inline constexpr double ln2_lo = 0x1.a39ef35793c76p-33;  // 1.90821492927058770002e-10
inline constexpr double lg1 = 0x1.5555555555593p-1;
inline constexpr double lg2 = 0x1.999999997fa04p-2;
inline constexpr double lg3 = 0x1.2492494229359p-2;
inline constexpr double lg4 = 0x1.c71c51d8e78afp-3;
inline constexpr double lg5 = 0x1.7466496cb03dep-3;
inline constexpr double lg6 = 0x1.39a09d078c69fp-3;
inline constexpr double lg7 = 0x1.2f112df3e5244p-3;

[[gnu::always_inline]] inline double log_positive(double x) noexcept {
  std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  std::uint64_t hx = bits >> 32;
  std::uint64_t k = hx >> 20;  // biased exponent (x is positive and normal)
  hx &= 0xfffffu;
  // i = 0x100000 when the mantissa is >= sqrt(2) (roughly): then normalise to [sqrt2/2, sqrt2).
  const std::uint64_t i = (hx + 0x95f64u) & 0x100000u;
  bits = ((hx | (i ^ 0x3ff00000u)) << 32) | (bits & 0xffffffffu);
  k += i >> 20;
  const double f = std::bit_cast<double>(bits) - 1.0;
  // Exact integer -> double without a 64-bit convert (AVX2 has none): (2^52 + k) - 2^52.
  const double dk = (std::bit_cast<double>(0x4330000000000000ull | k) - 0x1p52) - 1023.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;
  const double t1 = w * (lg2 + w * (lg4 + w * lg6));
  const double t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)));
  const double r = t2 + t1;
  const double hfsq = 0.5 * f * f;
  return dk * ln2_hi - ((hfsq - (s * (hfsq + r) + dk * ln2_lo)) - f);
}

// ---- sin/cos kernels on [-pi/4, pi/4]: musl __sin.c / __cos.c (FreeBSD), tail y = 0 --------
inline constexpr double s1 = -1.66666666666666324348e-01;
inline constexpr double s2 = 8.33333333332248946124e-03;
inline constexpr double s3 = -1.98412698298579493134e-04;
inline constexpr double s4 = 2.75573137070700676789e-06;
inline constexpr double s5 = -2.50507602534068634195e-08;
inline constexpr double s6 = 1.58969099521155010221e-10;
inline constexpr double c1 = 4.16666666666666019037e-02;
inline constexpr double c2 = -1.38888888888741095749e-03;
inline constexpr double c3 = 2.48015872894767294178e-05;
inline constexpr double c4 = -2.75573143513906633035e-07;
inline constexpr double c5 = 2.08757232129817482790e-09;
inline constexpr double c6 = -1.13596475577881948265e-11;
inline constexpr double two_pi = 6.28318530717958647693;

[[gnu::always_inline]] inline void sincos_2pi(double u, double& sn, double& cs) noexcept {
  // Quadrant q = round(4u); r = u - q/4 is exact (both are multiples of 2^-55 and |r| <= 1/8),
  // so the only rounding in the reduction is x = 2 pi r.
  const double t = 4.0 * u + 0.5;
  const auto qi = static_cast<std::int32_t>(t);  // t >= 0.5, truncation = floor
  const double q = static_cast<double>(qi);
  const double r = u - 0.25 * q;
  const double x = two_pi * r;
  const double z = x * x;
  const double w = z * z;
  const double rs = s2 + z * (s3 + z * s4) + z * w * (s5 + z * s6);
  const double sk = x + (z * x) * (s1 + z * rs);
  const double rc = z * (c1 + z * (c2 + z * c3)) + w * w * (c4 + z * (c5 + z * c6));
  const double hz = 0.5 * z;
  const double w1 = 1.0 - hz;
  const double ck = w1 + (((1.0 - w1) - hz) + (z * rc));
  // sin(q pi/2 + x), cos(q pi/2 + x) by quadrant: swap for odd q, signs from q and q + 1.
  const bool odd = (qi & 1) != 0;
  const double a = odd ? ck : sk;
  const double b = odd ? sk : ck;
  sn = (qi & 2) != 0 ? -a : a;
  cs = ((qi + 1) & 2) != 0 ? -b : b;
}

// ---- exp(x) for x in [-708, 0]: fdlibm e_exp.c (Sun Microsystems 1993), branch-free -------
// Error < 1 ulp (fdlibm's bound); tests/mechanisms checks <= 2^-51 relative against libm.
inline constexpr double exp_invln2 = 1.44269504088896338700e+00;
inline constexpr double exp_p1 = 1.66666666666666019037e-01;
inline constexpr double exp_p2 = -2.77777777770155933842e-03;
inline constexpr double exp_p3 = 6.61375632143793436117e-05;
inline constexpr double exp_p4 = -1.65339022054652515390e-06;
inline constexpr double exp_p5 = 4.13813679705723846039e-08;

[[gnu::always_inline]] inline double exp_nonpositive(double x) noexcept {
  // k = round(x / ln 2), |k| <= 1022 on the domain; |r| <= ln2 / 2 as in fdlibm.
  const double kr = std::floor(x * exp_invln2 + 0.5);
  const double shifter = 0x1.8p52;    // kr + 1.5 2^52 holds k in its low mantissa bits
  const double hi = x - kr * ln2_hi;  // exact: ln2_hi has 32 trailing zero bits, |k| < 2^11
  const double lo = kr * ln2_lo;
  const double r = hi - lo;
  const double t = r * r;
  const double c = r - t * (exp_p1 + t * (exp_p2 + t * (exp_p3 + t * (exp_p4 + t * exp_p5))));
  const double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  // 2^k from the bits: (k + 1023) << 52, with k read off kr + 1.5 2^52.
  const auto kbits = static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(kr + shifter) -
                                               std::bit_cast<std::uint64_t>(shifter));
  const double two_k = std::bit_cast<double>(static_cast<std::uint64_t>(kbits + 1023) << 52);
  return y * two_k;
}

}  // namespace dpx::core::detail
