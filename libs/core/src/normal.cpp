// Box–Muller transform (dpx/core/normal.hpp) with dpx's own branch-free log and sincos(2πu) so the
// bulk loop vectorises (AVX-512F, AVX2 and baseline clones, chosen at load time). Only IEEE
// add/mul/div/sqrt and exact bit manipulation are used, with -ffp-contract=off, so every clone
// and the scalar path give identical bits.
#include <bit>
#include <cmath>
#include <cstdint>

#include "dpx/core/normal.hpp"

namespace dpx::rng::detail {

namespace {

// ln(x) for normal finite x > 0: the fdlibm/musl e_log.c reduction x = 2^k (1+f),
// sqrt(2)/2 ≤ 1+f < sqrt(2), and the minimax polynomial in s = f/(2+f) (error < 1 ulp).
inline double log_poly(double x) noexcept {
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  constexpr double lg1 = 6.666666666666735130e-01, lg2 = 3.999999999940941908e-01,
                   lg3 = 2.857142874366239149e-01, lg4 = 2.222219843214978396e-01,
                   lg5 = 1.818357216161805012e-01, lg6 = 1.531383769920937332e-01,
                   lg7 = 1.479819860511658591e-01;
  std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  std::uint32_t hx = static_cast<std::uint32_t>(bits >> 32);
  hx += 0x3ff00000u - 0x3fe6a09eu;
  const int k = static_cast<int>(hx >> 20) - 0x3ff;
  hx = (hx & 0x000fffffu) + 0x3fe6a09eu;
  bits = (static_cast<std::uint64_t>(hx) << 32) | (bits & 0xffffffffu);
  const double f = std::bit_cast<double>(bits) - 1.0;
  const double hfsq = 0.5 * f * f;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;
  const double t1 = w * (lg2 + w * (lg4 + w * lg6));
  const double t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)));
  const double r = t2 + t1;
  const double dk = static_cast<double>(k);
  return s * (hfsq + r) + dk * ln2_lo - hfsq + f + dk * ln2_hi;
}

// sin(2πu), cos(2πu) for u in [0, 1]: v = 4u = q + r exactly (q = nearest integer, |r| ≤ 1/2),
// x = rπ/2 ∈ [−π/4, π/4], fdlibm/musl kernels __sin/__cos, then the quadrant rotation.
inline void sincos_2pi(double u, double& so, double& co) noexcept {
  constexpr double s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03,
                   s3 = -1.98412698298579493134e-04, s4 = 2.75573137070700676789e-06,
                   s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10;
  constexpr double c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03,
                   c3 = 2.48015872894767294178e-05, c4 = -2.75573143513906633035e-07,
                   c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11;
  constexpr double half_pi = 1.57079632679489661923;
  const double v = 4.0 * u;
  // Quadrant round(v) = floor(v + 1/2) for v >= 0 (ties up is fine: either quadrant is exact).
  const double qd =
      static_cast<double>(static_cast<int>(v + 0.5));  // NOLINT(bugprone-incorrect-roundings)
  const double x = (v - qd) * half_pi;
  const double z = x * x;
  const double w = z * z;
  const double rs = s2 + z * (s3 + z * s4) + z * w * (s5 + z * s6);
  const double sn = x + z * x * (s1 + z * rs);
  const double rc = z * (c1 + z * (c2 + z * c3)) + w * w * (c4 + z * (c5 + z * c6));
  const double hz = 0.5 * z;
  const double wc = 1.0 - hz;
  const double cs = wc + (((1.0 - wc) - hz) + z * rc);
  const int q = static_cast<int>(qd) & 3;
  // q = 0: (sn, cs); 1: (cs, −sn); 2: (−sn, −cs); 3: (−cs, sn).
  const double a = (q & 1) ? cs : sn;
  const double b = (q & 1) ? sn : cs;
  so = (q & 2) ? -a : a;
  co = ((q + 1) & 2) ? -b : b;
}

}  // namespace

double log_kernel(double x) noexcept { return log_poly(x); }
void sincos_2pi_kernel(double u, double& s, double& c) noexcept { sincos_2pi(u, s, c); }

void box_muller_pair(double u1, double u2, double& z1, double& z2) noexcept {
  const double r = std::sqrt(-2.0 * log_poly(u1));
  double s, c;
  sincos_2pi(u2, s, c);
  z1 = r * c;
  z2 = r * s;
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void box_muller_inplace(
    std::span<double> u, double extra) noexcept {
  // Split layout within the span: (u[i], u[h + i]) → (r cos, r sin) stored in place, so the
  // loop has unit stride (vectorises); h = size/2.
  const std::size_t h = u.size() / 2;
  double* a = u.data();
  double* b = u.data() + h;
  for (std::size_t i = 0; i < h; ++i) {
    const double r = std::sqrt(-2.0 * log_poly(a[i]));
    double s, c;
    sincos_2pi(b[i], s, c);
    a[i] = r * c;
    b[i] = r * s;
  }
  if (u.size() % 2 == 1) {
    double z1, z2;
    box_muller_pair(u.back(), extra, z1, z2);
    u.back() = z1;
  }
}

}  // namespace dpx::rng::detail
