// VAR(1): Lyapunov equation by doubling, exact stationary start, block-Toeplitz theory.
#include "dpx/data/var1.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor-blas/xlinalg.hpp>

#include "dpx/core/error.hpp"
#include "dpx/data/spectral.hpp"
#include "linalg.hpp"

namespace dpx::data {

namespace {
using mat = std::vector<double>;  // row-major d×d

mat matmul(const mat& a, const mat& b, std::size_t d) {
  mat c(d * d, 0.0);
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t k = 0; k < d; ++k) {
      const double aik = a[i * d + k];
      for (std::size_t j = 0; j < d; ++j) c[i * d + j] += aik * b[k * d + j];
    }
  return c;
}
mat transpose(const mat& a, std::size_t d) {
  mat t(d * d);
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) t[j * d + i] = a[i * d + j];
  return t;
}
double frob(const mat& a) {
  double s = 0.0;
  for (double v : a) s += v * v;
  return std::sqrt(s);
}
mat to_mat(const xt::xtensor<double, 2>& x) {
  mat m(x.size());
  std::copy(x.begin(), x.end(), m.begin());
  return m;
}
}  // namespace

void var1_options::validate() const {
  const char* fn = "var1";
  if (a.dimension() != 2 || a.shape()[0] != a.shape()[1] || a.shape()[0] == 0)
    core::throw_invalid(
        fn, "a", static_cast<double>(a.shape()[0]), "must be a square d×d matrix, d >= 1");
  const std::size_t d = a.shape()[0];
  core::check_size(fn, "sigma_e", sigma_e.shape()[0], d);
  core::check_size(fn, "sigma_e", sigma_e.shape()[1], d);
  core::check_finite_span(fn, "a", std::span<const double>(a.data(), a.size()));
  core::check_finite_span(fn, "sigma_e", std::span<const double>(sigma_e.data(), sigma_e.size()));
  if (!mu.empty()) {
    core::check_size(fn, "mu", mu.size(), d);
    core::check_finite_span(fn, "mu", mu);
  }
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (std::abs(sigma_e(i, j) - sigma_e(j, i)) >
          1e-12 * std::max(std::abs(sigma_e(i, j)), std::abs(sigma_e(j, i))) + 1e-300)
        core::throw_invalid(fn, "sigma_e", sigma_e(i, j), "must be symmetric");
}

var1::var1(var1_options o) : o_(std::move(o)) {
  o_.validate();
  d_ = o_.a.shape()[0];
  const std::size_t d = d_;
  if (o_.mu.empty()) o_.mu.assign(d, 0.0);
  const mat se = to_mat(o_.sigma_e);
  const mat le = detail::cholesky_lower(se, d);
  if (le.empty()) core::throw_invalid("var1", "sigma_e", se[0], "must be positive definite");
  // Smith's doubling: G_{k+1} = G_k + B_k G_k B_kᵀ, B_{k+1} = B_k², converging to
  // sum_j A^j Sigma_e (A^j)ᵀ iff rho(A) < 1.
  mat g = se, b = to_mat(o_.a);
  bool converged = false;
  for (int it = 0; it < 70; ++it) {
    const mat inc = matmul(matmul(b, g, d), transpose(b, d), d);
    for (std::size_t i = 0; i < d * d; ++i) g[i] += inc[i];
    b = matmul(b, b, d);
    const double nb = frob(b), ng = frob(g), ni = frob(inc);
    if (!std::isfinite(nb) || !std::isfinite(ng) || nb > 1e150) break;
    if (ni <= 1e-17 * ng && nb <= 0.5) {
      converged = true;
      break;
    }
  }
  if (!converged)
    core::throw_invalid(
        "var1", "a", o_.a(0, 0), "must have spectral radius < 1 (the Lyapunov iteration diverged)");
  gamma0_ = detail::square_tensor(g, d);
  // Symmetrise rounding.
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const double v = 0.5 * (gamma0_(i, j) + gamma0_(j, i));
      gamma0_(i, j) = gamma0_(j, i) = v;
    }
  const mat lg = detail::cholesky_lower(to_mat(gamma0_), d);
  if (lg.empty())
    core::throw_invalid("var1", "sigma_e", se[0], "stationary covariance not positive definite");
  chol_gamma0_ = detail::square_tensor(lg, d);
  chol_sigma_e_ = detail::square_tensor(le, d);
}

void var1::filter_inplace(std::span<double> z) const {
  const std::size_t d = d_;
  if (z.size() % d != 0)
    core::throw_invalid(
        "var1::filter_inplace", "z.size()", double(z.size()), "must be a multiple of d");
  const std::size_t n = z.size() / d;
  if (n == 0) return;
  std::vector<double> prev(d), cur(d);
  for (std::size_t i = 0; i < d; ++i) {
    double v = 0.0;
    for (std::size_t j = 0; j <= i; ++j) v += chol_gamma0_(i, j) * z[j];
    prev[i] = v;
  }
  for (std::size_t i = 0; i < d; ++i) z[i] = o_.mu[i] + prev[i];
  for (std::size_t t = 1; t < n; ++t) {
    double* zt = z.data() + t * d;
    for (std::size_t i = 0; i < d; ++i) {
      double v = 0.0;
      for (std::size_t j = 0; j < d; ++j) v += o_.a(i, j) * prev[j];
      for (std::size_t j = 0; j <= i; ++j) v += chol_sigma_e_(i, j) * zt[j];
      cur[i] = v;
    }
    for (std::size_t i = 0; i < d; ++i) zt[i] = o_.mu[i] + cur[i];
    std::swap(prev, cur);
  }
}

xt::xtensor<double, 2> var1::autocovariance(std::size_t h) const {
  mat g = to_mat(gamma0_);
  const mat a = to_mat(o_.a);
  for (std::size_t k = 0; k < h; ++k) g = matmul(a, g, d_);
  return detail::square_tensor(g, d_);
}

xt::xtensor<double, 2> var1::long_run_variance() const {
  const std::size_t d = d_;
  xt::xtensor<double, 2> ima = xt::xtensor<double, 2>::from_shape({d, d});
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) ima(i, j) = (i == j ? 1.0 : 0.0) - o_.a(i, j);
  // Y = (I − A)^{-1} Σ_e; Ω = Y (I − A)^{-T} = ((I − A)^{-1} Yᵀ)ᵀ.
  const xt::xtensor<double, 2> y = xt::linalg::solve(ima, o_.sigma_e);
  xt::xtensor<double, 2> yt = xt::xtensor<double, 2>::from_shape({d, d});
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) yt(i, j) = y(j, i);
  const xt::xtensor<double, 2> w = xt::linalg::solve(ima, yt);
  xt::xtensor<double, 2> out = xt::xtensor<double, 2>::from_shape({d, d});
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) out(i, j) = 0.5 * (w(j, i) + w(i, j));
  return out;
}

std::vector<double> var1::mean() const { return o_.mu; }

double var1::marginal_log_sobolev() const {
  double m = 0.0;
  for (std::size_t i = 0; i < d_; ++i) m = std::max(m, gamma0_(i, i));
  return m;
}

xt::xtensor<double, 2> var1::covariance(std::size_t n) const {
  const std::size_t d = d_, nd = n * d;
  xt::xtensor<double, 2> c = xt::xtensor<double, 2>::from_shape({nd, nd});
  const mat a = to_mat(o_.a);
  mat g = to_mat(gamma0_);  // Γ(h) = A^h Γ0
  for (std::size_t h = 0; h < n; ++h) {
    for (std::size_t t = h; t < n; ++t) {
      const std::size_t s = t - h;
      for (std::size_t i = 0; i < d; ++i)
        for (std::size_t j = 0; j < d; ++j) {
          c(t * d + i, s * d + j) = g[i * d + j];
          c(s * d + j, t * d + i) = g[i * d + j];
        }
    }
    g = matmul(a, g, d);
  }
  return c;
}

double var1::coordinate_log_sobolev(std::size_t n) const {
  core::check_at_least("var1::coordinate_log_sobolev", "n", static_cast<long long>(n), 1);
  const std::size_t d = d_;
  const mat a = to_mat(o_.a);
  mat g = to_mat(gamma0_), next(d * d);
  std::vector<std::vector<double>> col(d, std::vector<double>(n));
  for (std::size_t h = 0; h < n; ++h) {
    for (std::size_t j = 0; j < d; ++j) col[j][h] = g[j * d + j];
    if (h + 1 == n) break;
    for (std::size_t i = 0; i < d; ++i)  // Γ(h+1) = A Γ(h)
      for (std::size_t k = 0; k < d; ++k) {
        double s = 0.0;
        for (std::size_t l = 0; l < d; ++l) s += a[i * d + l] * g[l * d + k];
        next[i * d + k] = s;
      }
    g.swap(next);
  }
  double best = 0.0;
  for (std::size_t j = 0; j < d; ++j) best = std::max(best, toeplitz_lambda_max(col[j]));
  return best;
}

double var1::log_sobolev(std::size_t n) const {
  core::check_at_least("var1::log_sobolev", "n", static_cast<long long>(n), 1);
  const std::size_t d = d_, nd = n * d;
  eigen_options opt;
  opt.need_min = false;
  if (nd <= opt.dense_max) {
    const auto c = covariance(n);
    return symmetric_eigenvalues(std::span<const double>(c.data(), c.size()), nd).back();
  }
  const mat a = to_mat(o_.a), g0 = to_mat(gamma0_);
  auto mv = [&](std::span<const double> x, std::span<double> y) {
    // y_t = u_t + Γ0 v_t with u_t = A u_{t−1} + Γ0 x_t and v_t = Aᵀ(v_{t+1} + x_{t+1}).
    std::vector<double> u(d, 0.0), tmp(d), v(d, 0.0);
    for (std::size_t t = 0; t < n; ++t) {
      for (std::size_t i = 0; i < d; ++i) {
        double s = 0.0;
        for (std::size_t j = 0; j < d; ++j) s += a[i * d + j] * u[j] + g0[i * d + j] * x[t * d + j];
        tmp[i] = s;
      }
      u = tmp;
      for (std::size_t i = 0; i < d; ++i) y[t * d + i] = u[i];
    }
    for (std::size_t t = n; t-- > 0;) {
      if (t + 1 < n) {
        for (std::size_t i = 0; i < d; ++i) {
          double s = 0.0;
          for (std::size_t j = 0; j < d; ++j) s += a[j * d + i] * (v[j] + x[(t + 1) * d + j]);
          tmp[i] = s;
        }
        v = tmp;
      }
      for (std::size_t i = 0; i < d; ++i) {
        double s = 0.0;
        for (std::size_t j = 0; j < d; ++j) s += g0[i * d + j] * v[j];
        y[t * d + i] += s;
      }
    }
  };
  return lanczos_eigen_range(nd, mv, opt).max;
}

}  // namespace dpx::data
