#include "linalg.hpp"

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
