#pragma once
/// \file
/// Compiled transform kernels behind the research-grade samplers (not part of the public API).
///
/// The random words come from the engine's bulk fill (philox4x32::fill of raw 32-bit words,
/// see fill_words); these kernels turn them into noise (the *_from_uniform variants take
/// uniforms instead and are kept for tests and callers that already hold uniforms). They use dpx's
/// own branch-free log/sin/cos (fdlibm/musl polynomials) rather than libm, so that
///   * the loops vectorise (AVX-512F, AVX2 and x86-64 baseline variants, the best one chosen at
///     run time, see kernel_isa), and
///   * the scalar path (one draw) and every vector variant produce the SAME bits: the arithmetic is
///     plain IEEE add/mul/div/sqrt with -ffp-contract=off, so lane width cannot change results.
/// tests/mechanisms checks the bit identity and the accuracy of log/sin/cos against libm.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>

#include "dpx/core/rng.hpp"

namespace dpx::mechanisms::detail {

/// Uniforms are processed in chunks of this many doubles (stack buffer in the templates).
inline constexpr std::size_t chunk_size = 512;

/// Instruction-set variants of the vector loops below, compiled from the same source (GCC on
/// x86-64; elsewhere only the baseline). All give the same bits (IEEE add/mul/div/sqrt,
/// -ffp-contract=off); tests check every variant the CPU supports against the scalar functions.
enum class kernel_isa { baseline = 0, avx2 = 1, avx512 = 2 };
/// The best variant this CPU supports (detected once).
kernel_isa best_kernel_isa() noexcept;
/// The variant in use (default: best_kernel_isa()).
kernel_isa active_kernel_isa() noexcept;
/// Forces a variant (for tests; clamped to best_kernel_isa()). Process-wide.
void set_kernel_isa(kernel_isa isa) noexcept;

/// ln(x) for normal, finite x > 0 (fdlibm e_log.c polynomial, one formula, branch-free).
/// Max error about 1 ulp (tested against std::log). Not for 0, negatives, subnormals, inf, NaN.
double log_kernel(double x) noexcept;
/// exp(x) for x in [-708, 0] (fdlibm e_exp.c, branch-free; error < 1 ulp, tested <= 2^-51).
double exp_kernel(double x) noexcept;
/// In place x[i] <- exp(-x[i]) for x[i] in [0, 708].
void exp_neg_kernel(std::span<double> x) noexcept;
/// Geometric magnitude by inversion (fast_exact.hpp): for 64-bit word i (halves of words),
/// U in [V, V + 1) 2^-52 with V = w >> 12; m[i] = floor(-ln(U_mid) / gamma) (a candidate) and
/// ok[i] = 1 iff m gamma < 40 and exp(-(m+1) gamma) <= U < exp(-m gamma) is certain given gamma's,
/// q's and the kernels' error bounds (relative margin 2^-40), else 0. gamma = s/t, q = exp(-gamma)
/// (libm), inv_gamma = t/s. words.size() == 2 m.size(), ok.size() == m.size().
void geometric_candidates(std::span<const std::uint32_t> words,
                          double gamma,
                          double q,
                          double inv_gamma,
                          std::span<double> m,
                          std::span<double> ok) noexcept;
/// sin(2 pi u) and cos(2 pi u) for u in [0, 1] (exact quadrant reduction in u, musl kernels).
void sincos_2pi_kernel(double u, double& s, double& c) noexcept;

/// Laplace(0, b) from one uniform u in (0, 1) by the inverse CDF:
///   u < 1/2: b ln(2u);  u >= 1/2: -b ln(2 - 2u)   (2u and 2 - 2u are exact).
double laplace_from_uniform(double u, double b) noexcept;
/// In place: u[i] <- laplace_from_uniform(u[i], b) (bit-identical to the scalar function).
void laplace_from_uniform(std::span<double> u, double b) noexcept;
/// out[i] += laplace_from_uniform(u[i], b); u and out have the same size.
void add_laplace_from_uniform(std::span<const double> u, std::span<double> out, double b) noexcept;

/// Box–Muller (Box & Muller 1958): from u1, u2 in (0, 1),
///   z1 = sigma sqrt(-2 ln u1) cos(2 pi u2),  z2 = sigma sqrt(-2 ln u1) sin(2 pi u2).
void gaussian_from_uniform_pair(
    double u1, double u2, double sigma, double& z1, double& z2) noexcept;
/// Split layout: for i < m = u.size() / 2, (u[i], u[m + i]) -> (z1, z2) stored in place at
/// (u[i], u[m + i]). u.size() must be even.
void gaussian_from_uniform_split(std::span<double> u, double sigma) noexcept;
/// Same, adding the noise to out (out.size() == u.size(), even): out[i] += z1, out[m + i] += z2.
void add_gaussian_from_uniform_split(std::span<const double> u,
                                     std::span<double> out,
                                     double sigma) noexcept;

// ---- word-based samplers (the production paths of laplace/gaussian) ----------------------
// Each draw consumes 64-bit words w = rng::detail::bits64(g) (for philox4x32: two consecutive
// 32-bit outputs, low first). u(w) = ((w >> 12) + 1/2) 2^-52 in (0, 1) (52 random bits).

/// Laplace(0, b) from one word: sign from bit 0, magnitude -b ln u(w) (Exp(b)).
double laplace_from_bits(std::uint64_t w, double b) noexcept;
/// out[i] = laplace_from_bits(word i, b); words.size() == 2 out.size() (32-bit halves, low
/// first, as the engine's bulk fill produces them).
void laplace_from_bits(std::span<const std::uint32_t> words,
                       std::span<double> out,
                       double b) noexcept;
/// out[i] += laplace_from_bits(word i, b).
void add_laplace_from_bits(std::span<const std::uint32_t> words,
                           std::span<double> out,
                           double b) noexcept;
/// Box–Muller on u(w1), u(w2).
void gaussian_from_bits_pair(
    std::uint64_t w1, std::uint64_t w2, double sigma, double& z1, double& z2) noexcept;
/// Split layout, out.size() = 2m even, words.size() = 2 out.size(): pair i uses words i and
/// m + i; z1 -> out[i], z2 -> out[m + i].
void gaussian_from_bits_split(std::span<const std::uint32_t> words,
                              std::span<double> out,
                              double sigma) noexcept;
void add_gaussian_from_bits_split(std::span<const std::uint32_t> words,
                                  std::span<double> out,
                                  double sigma) noexcept;

/// Fills words with 32-bit outputs of g in sequence (bulk fill when the engine has one; the
/// same values as repeated g() calls for 32-bit engines, or the halves of bits64(g) otherwise).
template <std::uniform_random_bit_generator G>
void fill_words(G& g, std::span<std::uint32_t> words) {
  if constexpr (requires { g.fill(words); }) {
    g.fill(words);
  } else {
    for (std::size_t i = 0; i + 1 < words.size(); i += 2) {
      const std::uint64_t w = rng::detail::bits64(g);
      words[i] = static_cast<std::uint32_t>(w);
      words[i + 1] = static_cast<std::uint32_t>(w >> 32);
    }
  }
}

}  // namespace dpx::mechanisms::detail
