#pragma once
/// \file
/// Standard normal variates from an explicit generator: Box–Muller [Box & Muller 1958] on
/// rng::uniform_open01 draws, with dpx's own branch-free log and sincos(2πu) (fdlibm/musl
/// polynomials, < 1 ulp) so the bulk path vectorises and every ISA variant gives the same bits.
///
/// Research-grade floating-point samplers for data generation, simulations and tests. They are
/// NOT privacy noise: dpx::mechanisms owns that (its float-safe releases are exact on a grid).
/// dpx::data re-exports them (dpx/data/variates.hpp).

#include <algorithm>
#include <cstddef>
#include <random>
#include <span>

#include "dpx/core/rng.hpp"

namespace dpx::rng {

namespace detail {
/// Box–Muller [Box & Muller 1958]: from u1, u2 in (0,1), z1 = r cos(2πu2), z2 = r sin(2πu2),
/// r = sqrt(−2 ln u1). Uses dpx's own branch-free log and sincos(2πu) (fdlibm/musl
/// polynomials, < 1 ulp; tests compare with libm), so the bulk loop vectorises and the scalar
/// and bulk paths give identical bits.
void box_muller_pair(double u1, double u2, double& z1, double& z2) noexcept;
/// In place on uniforms in (0,1), split layout: with h = size/2, (u[i], u[h+i]) → (z1, z2) of
/// box_muller_pair. A trailing odd element u becomes z1 of box_muller_pair(u, extra).
void box_muller_inplace(std::span<double> u, double extra) noexcept;
/// The kernels themselves (exposed for tests): ln x for normal x > 0; sin and cos of 2πu.
double log_kernel(double x) noexcept;
void sincos_2pi_kernel(double u, double& s, double& c) noexcept;
/// Chunk length (doubles) for bulk fills: uniforms are generated and transformed in blocks
/// that stay in L1/L2.
inline constexpr std::size_t normal_chunk = 4096;
}  // namespace detail

/// One N(0,1) draw: Box–Muller from two uniform_open01 draws, returning z1 = r cos(2πu2).
template <std::uniform_random_bit_generator G>
double standard_normal(G& g) {
  const double u1 = rng::uniform_open01(g);
  const double u2 = rng::uniform_open01(g);
  double z1, z2;
  detail::box_muller_pair(u1, u2, z1, z2);
  return z1;
}

/// Fills `out` with i.i.d. N(0,1) draws. Bulk path: uniforms come from rng::fill_uniform_open01
/// (the SIMD Philox path for rng::philox4x32) and are transformed in place by Box–Muller in
/// chunks (split layout, detail::box_muller_inplace), so each pair of uniforms yields two
/// normals. Deterministic for a given generator state and out.size().
template <std::uniform_random_bit_generator G>
void fill_standard_normal(G& g, std::span<double> out) {
  std::size_t i = 0;
  const std::size_t n = out.size();
  while (i < n) {
    const std::size_t len = std::min(detail::normal_chunk, n - i);
    auto chunk = out.subspan(i, len);
    rng::fill_uniform_open01(g, chunk);
    const double extra = (len % 2 == 1) ? rng::uniform_open01(g) : 0.5;
    detail::box_muller_inplace(chunk, extra);
    i += len;
  }
}

}  // namespace dpx::rng
