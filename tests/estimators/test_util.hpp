#pragma once
// Shared helpers of the estimator tests: a counting URBG wrapper, exact normal draws, brute-force
// bin sets and sample means computed independently of the library.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <set>
#include <span>
#include <vector>

#include "dpx/core/rng.hpp"

namespace dpx::estimators::testing {

/// Wraps philox4x32 and counts 32-bit outputs.
struct counting_urbg {
  using result_type = std::uint32_t;
  rng::philox4x32 g;
  std::uint64_t calls = 0;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return 0xFFFFFFFFu; }
  result_type operator()() {
    ++calls;
    return g();
  }
};

/// N(mu, s^2) draws by Box–Muller with libm (independent of dpx's samplers).
inline std::vector<double> normal_data(std::size_t n, double mu, double s, std::uint64_t seed) {
  rng::philox4x32 g = rng::stream(seed, 7, 0, rng::purpose::data);
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u1 = rng::uniform_open01(g), u2 = rng::uniform_open01(g);
    x[i] = mu + s * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  return x;
}

inline double plain_mean(std::span<const double> x) {
  long double s = 0;
  for (double v : x) s += v;
  return static_cast<double>(s / static_cast<long double>(x.size()));
}

/// Occupied bins for bins (w k - w/2, w k + w/2], by a direct scan of the bin edges.
inline std::set<std::int64_t> brute_bins(std::span<const double> x, double w) {
  std::set<std::int64_t> s;
  for (double v : x) {
    auto k = static_cast<std::int64_t>(std::floor(v / w));
    while (!(w * static_cast<double>(k) - w / 2 < v)) --k;
    while (!(v <= w * static_cast<double>(k) + w / 2)) ++k;
    s.insert(k);
  }
  return s;
}

}  // namespace dpx::estimators::testing
