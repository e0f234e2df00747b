// Roth & Avella-Medina (2025), Lemma 5.14: per-user GLS (beta^w_u, Sigma_u known) is at least as
// efficient as per-user OLS, Cov(GLS) <= Cov(OLS) in the Loewner order. Checked on one design
// X (T = 6, p = 2: intercept and an irregular regressor) with a heteroscedastic AR(1) error
// covariance Sigma_ts = s_t s_s rho^|t - s| (rho = 0.5):
//  * EXACT: Cov(OLS) = (X'X)^-1 X' Sigma X (X'X)^-1 and Cov(GLS) = (X' Sigma^-1 X)^-1, computed
//    here (Cholesky of Sigma written in the test, not the estimator's code); both eigenvalues of
//    the difference are >= -1e-12, and here >= 0.2 (a strict ordering, so the design has power).
//  * MONTE CARLO: 20000 users with that design and errors Sigma^(1/2) z, z standard normal,
//    through detail::per_user_coefficients (OLS and weighted with Sigma): every entry of both
//    empirical covariances (known beta) lies within 5 standard errors of the exact value, and
//    along the top eigenvector v of the exact difference the mean of
//    (v'(b_OLS - beta))^2 - (v'(b_GLS - beta))^2 is > 5 se above 0 and within 5 se of v'(Cov(OLS)
//    - Cov(GLS))v. Seven z-tests at |z| <= 5 (normal approximation of means of 20000 i.i.d.
//    terms with finite fourth moments): a correct estimator fails with probability < 7 * 5.8e-7
//    < 5e-6. Fixed seed.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "dpx/estimators/user_level.hpp"
#include "test_util.hpp"

namespace dpx::estimators {
namespace {

constexpr std::size_t T = 6, p = 2;
using mat2 = std::array<double, 4>;  // row-major 2 x 2

struct design {
  std::vector<double> x = std::vector<double>(T * p);  // T x p row-major
  std::vector<double> sigma = std::vector<double>(T * T);
  std::vector<double> chol = std::vector<double>(T * T);  // lower L, L L' = Sigma
  design() {
    const double reg[T] = {0, 1, 0, 3, 1, 2}, s[T] = {1, 2, 0.5, 3, 1, 0.7};
    for (std::size_t t = 0; t < T; ++t) {
      x[t * p] = 1.0;
      x[t * p + 1] = reg[t];
      for (std::size_t u = 0; u < T; ++u)
        sigma[t * T + u] = s[t] * s[u] * std::pow(0.5, std::fabs(double(t) - double(u)));
    }
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = 0; j <= i; ++j) {
        double v = sigma[i * T + j];
        for (std::size_t k = 0; k < j; ++k) v -= chol[i * T + k] * chol[j * T + k];
        chol[i * T + j] = i == j ? std::sqrt(v) : v / chol[j * T + j];
      }
  }
};

mat2 inverse(const mat2& a) {
  const double det = a[0] * a[3] - a[1] * a[2];
  return {a[3] / det, -a[1] / det, -a[2] / det, a[0] / det};
}
mat2 product(const mat2& a, const mat2& b) {
  return {a[0] * b[0] + a[1] * b[2],
          a[0] * b[1] + a[1] * b[3],
          a[2] * b[0] + a[3] * b[2],
          a[2] * b[1] + a[3] * b[3]};
}
/// X' M X for a T x T matrix M (row-major).
mat2 quadratic(const design& d, const std::vector<double>& m) {
  mat2 r{};
  for (std::size_t a = 0; a < p; ++a)
    for (std::size_t b = 0; b < p; ++b)
      for (std::size_t t = 0; t < T; ++t)
        for (std::size_t u = 0; u < T; ++u)
          r[a * p + b] += d.x[t * p + a] * m[t * T + u] * d.x[u * p + b];
  return r;
}
/// Sigma^-1 from the Cholesky factor: columns of L^-T L^-1 by two triangular solves.
std::vector<double> sigma_inverse(const design& d) {
  std::vector<double> inv(T * T);
  for (std::size_t c = 0; c < T; ++c) {
    double z[T], w[T];
    for (std::size_t i = 0; i < T; ++i) {  // L z = e_c
      z[i] = i == c ? 1.0 : 0.0;
      for (std::size_t k = 0; k < i; ++k) z[i] -= d.chol[i * T + k] * z[k];
      z[i] /= d.chol[i * T + i];
    }
    for (std::size_t i = T; i-- > 0;) {  // L' w = z
      w[i] = z[i];
      for (std::size_t k = i + 1; k < T; ++k) w[i] -= d.chol[k * T + i] * w[k];
      w[i] /= d.chol[i * T + i];
    }
    for (std::size_t i = 0; i < T; ++i) inv[i * T + c] = w[i];
  }
  return inv;
}
struct exact_cov {
  mat2 ols, gls;
};
exact_cov exact(const design& d) {
  std::vector<double> eye(T * T, 0.0);
  for (std::size_t t = 0; t < T; ++t) eye[t * T + t] = 1.0;
  const mat2 a = inverse(quadratic(d, eye));
  return {product(product(a, quadratic(d, d.sigma)), a), inverse(quadratic(d, sigma_inverse(d)))};
}
/// Eigenvalues (ascending) of a symmetric 2 x 2 matrix.
std::array<double, 2> eigenvalues(const mat2& m) {
  const double mid = 0.5 * (m[0] + m[3]), half = std::hypot(0.5 * (m[0] - m[3]), m[1]);
  return {mid - half, mid + half};
}

TEST(LongitudinalCovariance, ExactGlsCovarianceBelowOlsInLoewnerOrder) {
  const design d;
  const auto c = exact(d);
  // Sigma = I would make the two equal: the ordering here is strict.
  const mat2 diff{
      c.ols[0] - c.gls[0], c.ols[1] - c.gls[1], c.ols[2] - c.gls[2], c.ols[3] - c.gls[3]};
  EXPECT_NEAR(diff[1], diff[2], 1e-12);
  const auto ev = eigenvalues(diff);
  EXPECT_GE(ev[0], -1e-12);
  EXPECT_GE(ev[0], 0.2);  // 0.24998 for this design (numpy: 0.2499823, 0.6589451)
  EXPECT_NEAR(ev[0], 0.2499823, 1e-6);
  EXPECT_NEAR(ev[1], 0.6589451, 1e-6);
  // Both covariances are positive definite.
  EXPECT_GT(eigenvalues(c.gls)[0], 0.0);
  EXPECT_GT(eigenvalues(c.ols)[0], 0.0);
}

TEST(LongitudinalCovariance, MonteCarloCovariancesMatchAndAreOrdered) {
  const design d;
  const auto c = exact(d);
  const std::size_t n = 20000;
  const double beta[p] = {1.0, 2.0};
  const auto z = testing::normal_data(n * T, 0.0, 1.0, 514);
  std::vector<double> x(n * T * p), y(n * T);
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t t = 0; t < T; ++t) {
      x[(u * T + t) * p] = d.x[t * p];
      x[(u * T + t) * p + 1] = d.x[t * p + 1];
      double e = 0;
      for (std::size_t k = 0; k <= t; ++k) e += d.chol[t * T + k] * z[u * T + k];
      y[u * T + t] = beta[0] * d.x[t * p] + beta[1] * d.x[t * p + 1] + e;
    }
  const panel_view xv{x, n, T, p};
  std::size_t singular = 0;
  const auto bo = detail::per_user_coefficients(xv, y, regression_weighting::ols, {}, &singular);
  const auto bg =
      detail::per_user_coefficients(xv, y, regression_weighting::weighted, d.sigma, &singular);
  ASSERT_EQ(singular, 0u);
  const auto z_score = [&](auto term, double want) {
    double s = 0, s2 = 0;
    for (std::size_t u = 0; u < n; ++u) {
      const double v = term(u);
      s += v;
      s2 += v * v;
    }
    const double mean = s / double(n), var = s2 / double(n) - mean * mean;
    return (mean - want) / std::sqrt(var / double(n));
  };
  for (const auto& [b, cov] : {std::pair{&bo, c.ols}, std::pair{&bg, c.gls}})
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t j = i; j < p; ++j) {
        const double zs = z_score(
            [&](std::size_t u) {
              return ((*b)[u * p + i] - beta[i]) * ((*b)[u * p + j] - beta[j]);
            },
            cov[i * p + j]);
        EXPECT_LE(std::fabs(zs), 5.0) << "entry " << i << j;
      }
  // Top eigenvector of the exact difference.
  const mat2 diff{
      c.ols[0] - c.gls[0], c.ols[1] - c.gls[1], c.ols[2] - c.gls[2], c.ols[3] - c.gls[3]};
  const double top = eigenvalues(diff)[1];
  double v0 = diff[1], v1 = top - diff[0];
  const double nv = std::hypot(v0, v1);
  v0 /= nv;
  v1 /= nv;
  const auto gap = [&](std::size_t u) {
    const double po = v0 * (bo[u * p] - beta[0]) + v1 * (bo[u * p + 1] - beta[1]);
    const double pg = v0 * (bg[u * p] - beta[0]) + v1 * (bg[u * p + 1] - beta[1]);
    return po * po - pg * pg;
  };
  EXPECT_GT(z_score(gap, 0.0), 5.0);  // the empirical ordering along v
  EXPECT_LE(std::fabs(z_score(gap, top)), 5.0);
}

}  // namespace
}  // namespace dpx::estimators
