#pragma once
// Helpers shared by the solvers tests: designs built independently of dpx::data, and an
// instrumented loss wrapper that counts every access to the data.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"

namespace dpx::solvers::testing {

inline double std_normal(rng::philox4x32& g) {
  const double u1 = g.uniform_open01(), u2 = g.uniform_open01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

/// n x d row-major Gaussian design with AR(1) column correlation r, columns standardised to
/// ||x_j||^2 / n = 1; y = X beta + noise_sd * z with beta_j = +-1 on the first k coordinates.
struct design {
  std::size_t n, d;
  std::vector<double> x, y, beta;
};
inline design make_design(std::size_t n,
                          std::size_t d,
                          std::size_t k,
                          double r,
                          double noise_sd,
                          std::uint64_t seed,
                          bool logistic = false) {
  rng::philox4x32 g = rng::stream(seed, 1, 0, rng::purpose::data);
  design s{n, d, std::vector<double>(n * d), std::vector<double>(n), std::vector<double>(d, 0.0)};
  for (std::size_t i = 0; i < n; ++i) {
    double prev = std_normal(g);
    s.x[i * d] = prev;
    for (std::size_t j = 1; j < d; ++j) {
      prev = r * prev + std::sqrt(1 - r * r) * std_normal(g);
      s.x[i * d + j] = prev;
    }
  }
  for (std::size_t j = 0; j < d; ++j) {
    double ss = 0;
    for (std::size_t i = 0; i < n; ++i) ss += s.x[i * d + j] * s.x[i * d + j];
    const double f = std::sqrt(double(n) / ss);
    for (std::size_t i = 0; i < n; ++i) s.x[i * d + j] *= f;
  }
  for (std::size_t j = 0; j < k; ++j) s.beta[j] = (j % 2 == 0) ? 1.0 : -1.0;
  for (std::size_t i = 0; i < n; ++i) {
    double z = 0;
    for (std::size_t j = 0; j < d; ++j) z += s.x[i * d + j] * s.beta[j];
    if (logistic)
      s.y[i] = g.uniform01() < 1.0 / (1.0 + std::exp(-z)) ? 1.0 : -1.0;
    else
      s.y[i] = z + noise_sd * std_normal(g);
  }
  return s;
}

/// Counts every call that reads the data, forwarding to a glm_loss.
struct counting_loss {
  explicit counting_loss(const losses::glm_loss& l) : inner(l) {}
  const losses::glm_loss& inner;
  mutable int values = 0, gradients = 0, clipped = 0, clipped_sums = 0;
  mutable std::vector<std::size_t> batch_sizes;
  mutable std::vector<int> inclusion;
  std::size_t dimension() const { return inner.dimension(); }
  std::size_t size() const { return inner.size(); }
  double value(std::span<const double> t) const {
    ++values;
    return inner.value(t);
  }
  double value_and_gradient(std::span<const double> t, std::span<double> g) const {
    ++gradients;
    return inner.value_and_gradient(t, g);
  }
  double clipped_gradient(std::span<const double> t, double c, std::span<double> g) const {
    ++clipped;
    return inner.clipped_gradient(t, c, g);
  }
  std::size_t clipped_gradient_sum(std::span<const double> t,
                                   std::span<const std::size_t> b,
                                   double c,
                                   std::span<double> g) const {
    ++clipped_sums;
    batch_sizes.push_back(b.size());
    if (inclusion.empty()) inclusion.assign(inner.size(), 0);
    for (std::size_t i : b) ++inclusion[i];
    return inner.clipped_gradient_sum(t, b, c, g);
  }
};

/// Kolmogorov-Smirnov distance sup |F_n - F| of the sample x from the CDF cdf.
template <class Cdf>
double ks_distance(std::vector<double> x, Cdf cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, static_cast<double>(i + 1) / n - f, f - static_cast<double>(i) / n});
  }
  return d;
}

}  // namespace dpx::solvers::testing
