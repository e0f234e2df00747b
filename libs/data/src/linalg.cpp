#include "linalg.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xtensor.hpp>

#include "dpx/data/spectral.hpp"

namespace dpx::data::detail {

std::vector<double> cholesky_lower(std::span<const double> a, std::size_t n) {
  if (n == 0) return {};
  xt::xtensor<double, 2> m = xt::xtensor<double, 2>::from_shape({n, n});
  std::copy(a.begin(), a.end(), m.data());
  try {
    const xt::xtensor<double, 2> l = xt::linalg::cholesky(m);
    std::vector<double> out(l.begin(), l.end());
    for (std::size_t i = 0; i < n; ++i)
      if (!(out[i * n + i] > 0.0) || !std::isfinite(out[i * n + i])) return {};
    return out;
  } catch (const std::runtime_error&) {
    return {};
  }
}

std::vector<double> cholesky_lower_semidefinite(std::span<const double> a, std::size_t n) {
  if (n == 0) return {};
  double scale = 0.0;
  for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(a[i * n + i]));
  if (!(scale > 0.0) || !std::isfinite(scale)) return {};
  const double tol = 1e-12 * static_cast<double>(n) * scale;
  std::vector<double> l(n * n, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= l[j * n + k] * l[j * n + k];
    if (d < -tol) return {};
    const bool zero = d <= tol;
    if (!zero) l[j * n + j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < n; ++i) {
      double v = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) v -= l[i * n + k] * l[j * n + k];
      if (zero) {
        if (std::abs(v) > std::sqrt(tol * scale)) return {};  // not PSD: a nonzero off-pivot
      } else {
        l[i * n + j] = v / l[j * n + j];
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      double v = 0.0;
      for (std::size_t k = 0; k <= j; ++k) v += l[i * n + k] * l[j * n + k];
      if (std::abs(v - a[i * n + j]) > 1e-10 * scale) return {};
    }
  return l;
}

std::vector<double> toeplitz_dense(std::span<const double> g) {
  const std::size_t n = g.size();
  std::vector<double> a(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) a[i * n + j] = g[i > j ? i - j : j - i];
  return a;
}

double toeplitz_plus_constant_lambda_max(std::span<const double> g, double c) {
  const std::size_t n = g.size();
  eigen_options opt;
  opt.need_min = false;
  if (n <= opt.dense_max) {
    auto a = toeplitz_dense(g);
    for (double& v : a) v += c;
    return symmetric_eigenvalues(a, n).back();
  }
  toeplitz_operator op(g);
  return lanczos_eigen_range(
             n,
             [&](std::span<const double> x, std::span<double> y) {
               op.apply(x, y);
               double s = 0.0;
               for (double v : x) s += v;
               for (double& v : y) v += c * s;
             },
             opt)
      .max;
}

}  // namespace dpx::data::detail
