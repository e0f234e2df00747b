// Vectorisable transforms for the research-grade samplers. See detail/kernels.hpp.
//
// Everything here is IEEE add/sub/mul/div/sqrt plus integer bit manipulation, compiled with
// -ffp-contract=off (project flag), so the AVX-512, AVX2 and baseline variants and the scalar
// functions return identical bits for identical inputs.
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>

#include "dpx/core/detail/elementary.hpp"
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

using core::detail::exp_nonpositive;
using core::detail::log_positive;
using core::detail::sincos_2pi;

[[gnu::always_inline]] inline double laplace_impl(double u, double b) {
  // m = 2u for u < 1/2 and 2 - 2u otherwise (both exact); the sign of the result is that of
  // u - 1/2 and its magnitude -b ln(m) (branch-free so that the loop vectorises).
  const double lo = 2.0 * u;
  const double hi = 2.0 - 2.0 * u;
  const double m = lo < hi ? lo : hi;
  return std::copysign(b * log_positive(m), u - 0.5);
}

[[gnu::always_inline]] inline void gauss_impl(
    double u1, double u2, double sigma, double& z1, double& z2) {
  const double rad = sigma * std::sqrt(-2.0 * log_positive(u1));
  double sn, cs;
  sincos_2pi(u2, sn, cs);
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
  const double l = b * log_positive(open01_from_bits(w));  // <= 0
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

double log_kernel(double x) noexcept { return log_positive(x); }

double exp_kernel(double x) noexcept { return exp_nonpositive(x); }

[[gnu::always_inline]] inline void exp_neg_kernel_body0(std::span<double> x) {
  double* p = x.data();
  const std::size_t n = x.size();
  DPX_VECTOR_LOOP
  for (std::size_t i = 0; i < n; ++i) p[i] = exp_nonpositive(-p[i]);
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
    const double mc = std::floor(-log_positive(u_mid) * inv_gamma);  // candidate (any error ok)
    // arg <= 40 is required for the error bound (abs. error of arg <= 40 * 4 2^-53 < 2^-45.7);
    // the true magnitude has arg <= -ln U <= 36.8 since U >= 2^-53.
    const double arg = mc * gamma;
    const double arg_c = arg < 40.0 ? arg : 40.0;
    const double pm = exp_nonpositive(-arg_c);
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

void sincos_2pi_kernel(double u, double& s, double& c) noexcept { sincos_2pi(u, s, c); }

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
