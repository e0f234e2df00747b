#pragma once
/// \file
/// Exact variate generators used by the dpx::data models: standard normal (Box–Muller, from
/// dpx/core/normal.hpp), Student t (Bailey's polar method), gamma (Marsaglia–Tsang) and beta. Every
/// draw comes from the generator passed in; no std:: distributions (their algorithms are
/// implementation-defined).
///
/// These samplers are for *data generation*. They are research-grade floating-point samplers
/// and must not be used to add privacy noise (dpx::mechanisms owns that).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <span>

#include "dpx/core/normal.hpp"
#include "dpx/core/rng.hpp"

namespace dpx::data {

// The standard normal samplers live in dpx::core (dpx/core/normal.hpp); dpx::data re-exports
// them under their historical names.
using rng::fill_standard_normal;
using rng::standard_normal;
namespace detail {
using rng::detail::box_muller_inplace;
using rng::detail::box_muller_pair;
using rng::detail::log_kernel;
using rng::detail::normal_chunk;
using rng::detail::sincos_2pi_kernel;
}  // namespace detail

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
