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

/// A noiseless longitudinal panel: n users × T rows of (1, t/T, z_t), z ~ N(0, 1) i.i.d. (seed),
/// and responses y = x β exactly (β of length 3), so that every user's OLS coefficient is β.
struct linear_panel {
  std::vector<double> x, y;
  linear_panel(std::size_t n, std::size_t T, const std::vector<double>& beta, std::uint64_t seed)
      : x(n * T * 3), y(n * T) {
    const auto z = normal_data(n * T, 0.0, 1.0, seed);
    for (std::size_t r = 0; r < n * T; ++r) {
      x[r * 3] = 1.0;
      x[r * 3 + 1] = static_cast<double>(r % T + 1) / static_cast<double>(T);
      x[r * 3 + 2] = z[r];
      y[r] = beta[0] + beta[1] * x[r * 3 + 1] + beta[2] * z[r];
    }
  }
};

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
