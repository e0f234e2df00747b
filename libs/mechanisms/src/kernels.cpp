// Vectorisable transforms for the research-grade samplers. See detail/kernels.hpp.
//
// Everything here is IEEE add/sub/mul/div/sqrt plus integer bit manipulation, compiled with
// -ffp-contract=off (project flag), so the AVX-512, AVX2 and baseline variants and the scalar
// functions return identical bits for identical inputs.
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>

#include "dpx/mechanisms/detail/kernels.hpp"

// Three compiled variants of every loop (AVX-512F, AVX2, x86-64 baseline) from the same source,
// dispatched at run time (best supported by the CPU; tests force each one in turn to check
// that all give the same bits as the scalar functions). GCC on x86-64 only; elsewhere, and
// under ASan, the baseline alone.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__)
#define DPX_MECH_MULTI_ISA 1
#define DPX_KERNEL_VARIANTS(name, body, params, args)                        \
  namespace {                                                                \
  [[gnu::target("avx512f")]] void name##_avx512_##body params { body args; } \
  [[gnu::target("avx2")]] void name##_avx2_##body params { body args; }      \
  void name##_base_##body params { body args; }                              \
  }                                                                          \
  void name params noexcept {                                                \
    switch (active_kernel_isa()) {                                           \
      case kernel_isa::avx512:                                               \
        name##_avx512_##body args;                                           \
        return;                                                              \
      case kernel_isa::avx2:                                                 \
        name##_avx2_##body args;                                             \
        return;                                                              \
      default:                                                               \
        name##_base_##body args;                                             \
    }                                                                        \
  }
#else
#define DPX_MECH_MULTI_ISA 0
#define DPX_KERNEL_VARIANTS(name, body, params, args) \
  void name params noexcept { body args; }
#endif

// This file is compiled with -fno-math-errno (sqrt without an errno branch), -fno-trapping-math
// (floor as an instruction) and the dynamic
// vectoriser cost model (libs/mechanisms/CMakeLists.txt); neither changes any result.
#if defined(__GNUC__) && !defined(__clang__)
#define DPX_VECTOR_LOOP _Pragma("GCC ivdep")
#else
#define DPX_VECTOR_LOOP
#endif

namespace dpx::mechanisms::detail {

namespace {

kernel_isa detect_kernel_isa() noexcept {
#if DPX_MECH_MULTI_ISA
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return kernel_isa::avx512;
  if (__builtin_cpu_supports("avx2")) return kernel_isa::avx2;
#endif
  return kernel_isa::baseline;
}

std::atomic<kernel_isa> active_isa{best_kernel_isa()};

}  // namespace

kernel_isa best_kernel_isa() noexcept {
  static const kernel_isa best = detect_kernel_isa();
  return best;
}

kernel_isa active_kernel_isa() noexcept { return active_isa.load(std::memory_order_relaxed); }

void set_kernel_isa(kernel_isa isa) noexcept {
  active_isa.store(isa <= best_kernel_isa() ? isa : best_kernel_isa(), std::memory_order_relaxed);
}

namespace {

// ---- ln(x): fdlibm e_log.c (Sun Microsystems 1993), the "hfsq" formula for every input ----
constexpr double ln2_hi = 0x1.62e42feep-1;        // 6.93147180369123816490e-01
constexpr double ln2_lo = 0x1.a39ef35793c76p-33;  // 1.90821492927058770002e-10
constexpr double lg1 = 0x1.5555555555593p-1;
constexpr double lg2 = 0x1.999999997fa04p-2;
constexpr double lg3 = 0x1.2492494229359p-2;
constexpr double lg4 = 0x1.c71c51d8e78afp-3;
constexpr double lg5 = 0x1.7466496cb03dep-3;
constexpr double lg6 = 0x1.39a09d078c69fp-3;
constexpr double lg7 = 0x1.2f112df3e5244p-3;

[[gnu::always_inline]] inline double log_impl(double x) {
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
constexpr double s1 = -1.66666666666666324348e-01;
constexpr double s2 = 8.33333333332248946124e-03;
constexpr double s3 = -1.98412698298579493134e-04;
constexpr double s4 = 2.75573137070700676789e-06;
constexpr double s5 = -2.50507602534068634195e-08;
constexpr double s6 = 1.58969099521155010221e-10;
constexpr double c1 = 4.16666666666666019037e-02;
constexpr double c2 = -1.38888888888741095749e-03;
constexpr double c3 = 2.48015872894767294178e-05;
constexpr double c4 = -2.75573143513906633035e-07;
constexpr double c5 = 2.08757232129817482790e-09;
constexpr double c6 = -1.13596475577881948265e-11;
constexpr double two_pi = 6.28318530717958647693;

[[gnu::always_inline]] inline void sincos_2pi_impl(double u, double& sn, double& cs) {
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
constexpr double exp_invln2 = 1.44269504088896338700e+00;
constexpr double exp_p1 = 1.66666666666666019037e-01;
constexpr double exp_p2 = -2.77777777770155933842e-03;
constexpr double exp_p3 = 6.61375632143793436117e-05;
constexpr double exp_p4 = -1.65339022054652515390e-06;
constexpr double exp_p5 = 4.13813679705723846039e-08;

[[gnu::always_inline]] inline double exp_impl(double x) {
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

[[gnu::always_inline]] inline double laplace_impl(double u, double b) {
  // m = 2u for u < 1/2 and 2 - 2u otherwise (both exact); the sign of the result is that of
  // u - 1/2 and its magnitude -b ln(m) (branch-free so that the loop vectorises).
  const double lo = 2.0 * u;
  const double hi = 2.0 - 2.0 * u;
  const double m = lo < hi ? lo : hi;
  return std::copysign(b * log_impl(m), u - 0.5);
}

[[gnu::always_inline]] inline void gauss_impl(
    double u1, double u2, double sigma, double& z1, double& z2) {
  const double rad = sigma * std::sqrt(-2.0 * log_impl(u1));
  double sn, cs;
  sincos_2pi_impl(u2, sn, cs);
  z1 = rad * cs;
  z2 = rad * sn;
}

// Open uniform from the top 52 bits of a word: ((w >> 12) + 1/2) 2^-52 in (0, 1), built with
// the exponent trick (1 + k 2^-52) - 1 + 2^-53 — exact, and no integer -> double convert.
[[gnu::always_inline]] inline double open01_from_bits(std::uint64_t w) {
  const double one_k = std::bit_cast<double>(0x3ff0000000000000ull | (w >> 12));
  return (one_k - 1.0) + 0x1p-53;
}

// Laplace from one 64-bit word: bit 0 is the sign, the top 52 bits give u in (0, 1) and the
// magnitude -b ln(u) ~ Exp(b): x = (bit0 ? +1 : -1) * b * (-ln u).
[[gnu::always_inline]] inline double laplace_bits_impl(std::uint64_t w, double b) {
  const double l = b * log_impl(open01_from_bits(w));  // <= 0
  return std::bit_cast<double>(std::bit_cast<std::uint64_t>(l) ^ (w << 63));
}

[[gnu::always_inline]] inline std::uint64_t word_at(const std::uint32_t* p, std::size_t i) {
  return static_cast<std::uint64_t>(p[2 * i]) | (static_cast<std::uint64_t>(p[2 * i + 1]) << 32);
}

}  // namespace

double laplace_from_bits(std::uint64_t w, double b) noexcept { return laplace_bits_impl(w, b); }

[[gnu::always_inline]] inline void laplace_from_bits_body0(std::span<const std::uint32_t> words,
                                                           std::span<double> out,
                                                           double b) {
  const std::uint32_t* p = words.data();
  double* o = out.data();
  const std::size_t n = out.size();
  DPX_VECTOR_LOOP
  for (std::size_t i = 0; i < n; ++i) o[i] = laplace_bits_impl(word_at(p, i), b);
}
DPX_KERNEL_VARIANTS(laplace_from_bits,
                    laplace_from_bits_body0,
                    (std::span<const std::uint32_t> words, std::span<double> out, double b),
                    (words, out, b))

[[gnu::always_inline]] inline void add_laplace_from_bits_body0(std::span<const std::uint32_t> words,
                                                               std::span<double> out,
                                                               double b) {
  const std::uint32_t* p = words.data();
  double* o = out.data();
  const std::size_t n = out.size();
  DPX_VECTOR_LOOP
  for (std::size_t i = 0; i < n; ++i) o[i] = o[i] + laplace_bits_impl(word_at(p, i), b);
}
DPX_KERNEL_VARIANTS(add_laplace_from_bits,
                    add_laplace_from_bits_body0,
                    (std::span<const std::uint32_t> words, std::span<double> out, double b),
                    (words, out, b))

void gaussian_from_bits_pair(
    std::uint64_t w1, std::uint64_t w2, double sigma, double& z1, double& z2) noexcept {
  gauss_impl(open01_from_bits(w1), open01_from_bits(w2), sigma, z1, z2);
}

[[gnu::always_inline]] inline void gaussian_from_bits_split_body0(
    std::span<const std::uint32_t> words, std::span<double> out, double sigma) {
  const std::size_t m = out.size() / 2;
  const std::uint32_t* p = words.data();
  double* a = out.data();
  double* b = out.data() + m;
  DPX_VECTOR_LOOP
  for (std::size_t i = 0; i < m; ++i) {
    double z1, z2;
    gauss_impl(open01_from_bits(word_at(p, i)), open01_from_bits(word_at(p, m + i)), sigma, z1, z2);
    a[i] = z1;
    b[i] = z2;
  }
}
DPX_KERNEL_VARIANTS(gaussian_from_bits_split,
                    gaussian_from_bits_split_body0,
                    (std::span<const std::uint32_t> words, std::span<double> out, double sigma),
                    (words, out, sigma))

[[gnu::always_inline]] inline void add_gaussian_from_bits_split_body0(
    std::span<const std::uint32_t> words, std::span<double> out, double sigma) {
  const std::size_t m = out.size() / 2;
  const std::uint32_t* p = words.data();
  double* a = out.data();
  double* b = out.data() + m;
  DPX_VECTOR_LOOP
  for (std::size_t i = 0; i < m; ++i) {
    double z1, z2;
    gauss_impl(open01_from_bits(word_at(p, i)), open01_from_bits(word_at(p, m + i)), sigma, z1, z2);
    a[i] = a[i] + z1;
    b[i] = b[i] + z2;
  }
}
DPX_KERNEL_VARIANTS(add_gaussian_from_bits_split,
                    add_gaussian_from_bits_split_body0,
                    (std::span<const std::uint32_t> words, std::span<double> out, double sigma),
                    (words, out, sigma))

double log_kernel(double x) noexcept { return log_impl(x); }

double exp_kernel(double x) noexcept { return exp_impl(x); }

[[gnu::always_inline]] inline void exp_neg_kernel_body0(std::span<double> x) {
  double* p = x.data();
  const std::size_t n = x.size();
  DPX_VECTOR_LOOP
  for (std::size_t i = 0; i < n; ++i) p[i] = exp_impl(-p[i]);
}
DPX_KERNEL_VARIANTS(exp_neg_kernel, exp_neg_kernel_body0, (std::span<double> x), (x))

[[gnu::always_inline]] inline void geometric_candidates_body0(std::span<const std::uint32_t> words,
                                                              double gamma,
                                                              double q,
                                                              double inv_gamma,
                                                              std::span<double> m,
                                                              std::span<double> ok) {
  const std::uint32_t* p = words.data();
  double* mo = m.data();
  double* oo = ok.data();
  const std::size_t n = m.size();
  constexpr double lo_factor = 1.0 - 0x1p-40, hi_factor = 1.0 + 0x1p-40;
  DPX_VECTOR_LOOP
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t w = word_at(p, i);
    // V = top 52 bits, exactly, without an integer -> double convert.
    const double v = std::bit_cast<double>(0x4330000000000000ull | (w >> 12)) - 0x1p52;
    const double u_mid = (v + 0.5) * 0x1p-52;
    const double mc = std::floor(-log_impl(u_mid) * inv_gamma);  // candidate (any error ok)
    // arg <= 40 is required for the error bound (abs. error of arg <= 40 * 4 2^-53 < 2^-45.7);
    // the true magnitude has arg <= -ln U <= 36.8 since U >= 2^-53.
    const double arg = mc * gamma;
    const double arg_c = arg < 40.0 ? arg : 40.0;
    const double pm = exp_impl(-arg_c);
    const double pm1 = pm * q;
    // U in [v, v + 1) 2^-52: decided iff U < p_m and U >= p_(m+1) beyond the 2^-40 margin.
    // (Bitwise & on the comparisons: no branches, so the loop vectorises.)
    const bool decided =
        ((v + 1.0) * 0x1p-52 <= pm * lo_factor) & (v * 0x1p-52 >= pm1 * hi_factor) & (arg < 40.0);
    mo[i] = mc;
    oo[i] = decided ? 1.0 : 0.0;
  }
}
DPX_KERNEL_VARIANTS(geometric_candidates,
                    geometric_candidates_body0,
                    (std::span<const std::uint32_t> words,
                     double gamma,
                     double q,
                     double inv_gamma,
                     std::span<double> m,
                     std::span<double> ok),
                    (words, gamma, q, inv_gamma, m, ok))

void sincos_2pi_kernel(double u, double& s, double& c) noexcept { sincos_2pi_impl(u, s, c); }

double laplace_from_uniform(double u, double b) noexcept { return laplace_impl(u, b); }

[[gnu::always_inline]] inline void laplace_from_uniform_body0(std::span<double> u, double b) {
  double* p = u.data();
  const std::size_t n = u.size();
  DPX_VECTOR_LOOP
  for (std::size_t i = 0; i < n; ++i) p[i] = laplace_impl(p[i], b);
}
DPX_KERNEL_VARIANTS(laplace_from_uniform,
                    laplace_from_uniform_body0,
                    (std::span<double> u, double b),
                    (u, b))

[[gnu::always_inline]] inline void add_laplace_from_uniform_body0(std::span<const double> u,
                                                                  std::span<double> out,
                                                                  double b) {
  const double* p = u.data();
  double* o = out.data();
  const std::size_t n = u.size();
  DPX_VECTOR_LOOP
  for (std::size_t i = 0; i < n; ++i) o[i] = o[i] + laplace_impl(p[i], b);
}
DPX_KERNEL_VARIANTS(add_laplace_from_uniform,
                    add_laplace_from_uniform_body0,
                    (std::span<const double> u, std::span<double> out, double b),
                    (u, out, b))

void gaussian_from_uniform_pair(
    double u1, double u2, double sigma, double& z1, double& z2) noexcept {
  gauss_impl(u1, u2, sigma, z1, z2);
}

[[gnu::always_inline]] inline void gaussian_from_uniform_split_body0(std::span<double> u,
                                                                     double sigma) {
  const std::size_t m = u.size() / 2;
  double* a = u.data();
  double* b = u.data() + m;
  DPX_VECTOR_LOOP
  for (std::size_t i = 0; i < m; ++i) {
    double z1, z2;
    gauss_impl(a[i], b[i], sigma, z1, z2);
    a[i] = z1;
    b[i] = z2;
  }
}
DPX_KERNEL_VARIANTS(gaussian_from_uniform_split,
                    gaussian_from_uniform_split_body0,
                    (std::span<double> u, double sigma),
                    (u, sigma))

[[gnu::always_inline]] inline void add_gaussian_from_uniform_split_body0(std::span<const double> u,
                                                                         std::span<double> out,
                                                                         double sigma) {
  const std::size_t m = u.size() / 2;
  const double* a = u.data();
  const double* b = u.data() + m;
  double* oa = out.data();
  double* ob = out.data() + m;
  DPX_VECTOR_LOOP
  for (std::size_t i = 0; i < m; ++i) {
    double z1, z2;
    gauss_impl(a[i], b[i], sigma, z1, z2);
    oa[i] = oa[i] + z1;
    ob[i] = ob[i] + z2;
  }
}
DPX_KERNEL_VARIANTS(add_gaussian_from_uniform_split,
                    add_gaussian_from_uniform_split_body0,
                    (std::span<const double> u, std::span<double> out, double sigma),
                    (u, out, sigma))

}  // namespace dpx::mechanisms::detail
