#pragma once
/// \file
/// Exact variate generators used by the dpx::data models: standard normal (Box–Muller), Student
/// t (Bailey's polar method), gamma (Marsaglia–Tsang) and beta. Every draw comes from the
/// generator passed in; no std:: distributions (their algorithms are implementation-defined).
///
/// These samplers are for *data generation*. They are research-grade floating-point samplers
/// and must not be used to add privacy noise (dpx::mechanisms owns that).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <span>

#include "dpx/core/rng.hpp"

namespace dpx::data {

namespace detail {
/// Box–Muller [Box & Muller 1958]: from u1, u2 in (0,1), z1 = r cos(2πu2), z2 = r sin(2πu2),
/// r = sqrt(−2 ln u1). Uses dpx::data's own branch-free log and sincos(2πu) (fdlibm/musl
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

/// Student t with nu > 0 degrees of freedom, by Bailey's polar method [Bailey 1994, Math. Comp.
/// 62, "Polar generation of random variates with the t-distribution"]: (U,V) uniform on the unit
/// disc, W = U²+V², T = U·sqrt(nu (W^{-2/nu} − 1)/W). Exact.
template <std::uniform_random_bit_generator G>
double student_t(G& g, double nu) {
  for (;;) {
    const double u = 2.0 * rng::uniform_open01(g) - 1.0;
    const double v = 2.0 * rng::uniform_open01(g) - 1.0;
    const double w = u * u + v * v;
    if (w >= 1.0 || w == 0.0) continue;
    return u * std::sqrt(nu * (std::pow(w, -2.0 / nu) - 1.0) / w);
  }
}

/// Gamma(shape, 1), shape > 0, by Marsaglia & Tsang (2000, ACM TOMS 26(3), "A simple method for
/// generating gamma variables"); shape < 1 via Gamma(shape+1)·U^{1/shape} (their §6). Exact.
template <std::uniform_random_bit_generator G>
double gamma(G& g, double shape) {
  if (shape < 1.0) {
    const double x = gamma(g, shape + 1.0);
    return x * std::pow(rng::uniform_open01(g), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double z, v;
    do {
      z = standard_normal(g);
      v = 1.0 + c * z;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = rng::uniform_open01(g);
    if (u < 1.0 - 0.0331 * (z * z) * (z * z)) return d * v;
    if (std::log(u) < 0.5 * z * z + d * (1.0 - v + std::log(v))) return d * v;
  }
}

/// Beta(a, b), a, b > 0: X/(X+Y) with X ~ Gamma(a), Y ~ Gamma(b) (independent). Exact.
template <std::uniform_random_bit_generator G>
double beta(G& g, double a, double b) {
  const double x = gamma(g, a);
  const double y = gamma(g, b);
  return x / (x + y);
}

}  // namespace dpx::data
