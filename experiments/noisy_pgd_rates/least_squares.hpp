#pragma once
// The non-degenerate private problem of `noisy_pgd_rates` (docs/experiments/noisy_pgd_rates.md,
// "A curved loss with an interior minimiser"): least squares on the L2 ball of radius r.
//
// Data (keyed on n, d): x_i uniform on the unit sphere of R^d, y_i = x_i^T w_o + e_i with
// w_o = (r/3) e_1 and e_i uniform on [-0.1, 0.1]. L(w) = (1/2n) sum (x_i^T w - y_i)^2 =
// (1/2) w^T H w - b^T w + c0, H = (1/n) sum x_i x_i^T (E H = I/d), b = (1/n) sum y_i x_i. The
// minimiser w* = H^{-1} b is interior (|w*| ~ r/3; checked) and the loss is curved in every
// direction (lambda_min(H) > 0; checked), unlike the hinge's linear piece.
// Lipschitz bound on the ball (public): |grad l_i(w)| = |x_i^T w - y_i| |x_i| <= r + r/3 + 0.1 = G,
// so per-example clipping at G is the identity and the privacy calibration (sensitivity 2G/n) is
// exact. The pgd() runs use `quadratic_piece` (gradient H w - b: O(d^2) per iteration instead
// of O(nd)); the driver checks the output against glm_loss(least_squares).
//
// Privacy part (Gaussian noise N(0, sigma^2 I) on the mean gradient, iterate average w_avg =
// (1/T) sum_{t=1}^T w_t): while the projection is inactive the iteration is linear, so the noise
// moves w_avg by -(eta/T) sum_s A_s xi_s, A_s = sum_{j=0}^{T-s} (I - eta H)^j, independent of
// the noiseless path; the cross term has mean 0 and E[noise part] = E (1/2) u^T H u is EXACTLY
//   oracle = sigma^2/(2 T^2) sum_k S_k / lambda_k,   S_k = sum_{j=1}^T (1 - q_k^j)^2,
//   q_k = 1 - eta lambda_k,
// over the eigenvalues lambda_k of H (pgd_theory::quadratic_privacy_part; sigma^2 -> 2 b^2 for
// Laplace noise, whose coordinates are i.i.d. too), with sigma the THEOREM's noise scale for the
// cell's inputs (pgd_theory), not the solver's. For eta lambda T >> 1 it tends to sigma^2
// tr(H^{-1})/(2T) = G^2 m^2 tr(H^{-1})/n^2 (m the one-step multiplier of the tight calibration,
// sigma = sqrt(T) m 2G/n), independent of T: slope -2 in n and about +2 in d (tr(H^{-1}) ~ d^2),
// i.e. far below Theorem 2's upper bound G R sqrt(d ln(1/delta))/(n eps).
#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>
#include <vector>

#include "dpx/core/rng.hpp"
#include "dpx/data/spectral.hpp"
#include "dpx/data/variates.hpp"

namespace dpx::experiments::noisy_pgd_rates {

/// Least squares as the quadratic (1/2) w^T H w - b^T w + c0, gradient H w - b. Per-example
/// gradients have norm <= lipschitz on the ball of radius `radius` (file comment), so clipping
/// at clip >= lipschitz is the identity; the iterates pgd() evaluates lie in that ball.
struct quadratic_piece {
  std::vector<double> h, b;  // H (d x d row-major) and b
  double c0 = 0, radius = 0, lipschitz = 0;
  std::size_t n = 0;
  std::size_t dimension() const noexcept { return b.size(); }
  std::size_t size() const noexcept { return n; }
  double value_and_gradient(std::span<const double> w, std::span<double> g) const {
    const std::size_t d = b.size();
    double s = c0;
    for (std::size_t i = 0; i < d; ++i) {
      double hw = 0;
      for (std::size_t j = 0; j < d; ++j) hw += h[i * d + j] * w[j];
      g[i] = hw - b[i];
      s += 0.5 * w[i] * hw - b[i] * w[i];
    }
    return s;
  }
  double value(std::span<const double> w) const {
    std::vector<double> g(b.size());
    return value_and_gradient(w, g);
  }
  void clipped_gradient(std::span<const double> w, double clip, std::span<double> g) const {
    if (clip < lipschitz) throw std::logic_error("quadratic_piece: clip below the Lipschitz bound");
    double nw = 0;
    for (double v : w) nw += v * v;
    if (nw > radius * radius * (1 + 1e-12))
      throw std::logic_error("quadratic_piece: gradient outside the ball");
    value_and_gradient(w, g);
  }
  void clipped_gradient_sum(std::span<const double>,
                            std::span<const std::size_t>,
                            double,
                            std::span<double>) const {
    throw std::logic_error("quadratic_piece: per-batch gradients are not provided");
  }
};

/// The data of the file comment (x: n x d row-major, y).
inline void least_squares_data(rng::philox4x32& g,
                               std::size_t n,
                               std::size_t d,
                               double r,
                               std::vector<double>& x,
                               std::vector<double>& y) {
  x.assign(n * d, 0.0);
  y.assign(n, 0.0);
  std::vector<double> z(d);
  for (std::size_t i = 0; i < n; ++i) {
    double nn = 0;
    do {
      data::fill_standard_normal(g, std::span<double>(z));
      nn = 0;
      for (double v : z) nn += v * v;
    } while (nn == 0);
    const double s = 1 / std::sqrt(nn);
    for (std::size_t j = 0; j < d; ++j) x[i * d + j] = z[j] * s;
    y[i] = x[i * d] * r / 3 + 0.2 * (rng::uniform01(g) - 0.5);
  }
}

/// H, b, c0 of the data; radius and the public Lipschitz bound G = r + r/3 + 0.1.
inline quadratic_piece make_quadratic(const std::vector<double>& x,
                                      const std::vector<double>& y,
                                      std::size_t d,
                                      double r) {
  quadratic_piece q;
  q.n = y.size();
  q.h.assign(d * d, 0.0);
  q.b.assign(d, 0.0);
  const double inv = 1.0 / static_cast<double>(q.n);
  for (std::size_t i = 0; i < q.n; ++i) {
    const double* xi = &x[i * d];
    for (std::size_t a = 0; a < d; ++a) {
      q.b[a] += y[i] * xi[a] * inv;
      for (std::size_t c = 0; c < d; ++c) q.h[a * d + c] += xi[a] * xi[c] * inv;
    }
    q.c0 += 0.5 * y[i] * y[i] * inv;
  }
  q.radius = r;
  q.lipschitz = r + r / 3 + 0.1;
  return q;
}

/// w* = H^{-1} b (Cholesky; H is positive definite for n >> d, checked).
inline std::vector<double> minimiser(const quadratic_piece& q) {
  const std::size_t d = q.b.size();
  std::vector<double> l(q.h), w(q.b);
  for (std::size_t j = 0; j < d; ++j) {
    double s = l[j * d + j];
    for (std::size_t k = 0; k < j; ++k) s -= l[j * d + k] * l[j * d + k];
    if (!(s > 0)) throw std::runtime_error("noisy_pgd_rates: H is not positive definite");
    l[j * d + j] = std::sqrt(s);
    for (std::size_t i = j + 1; i < d; ++i) {
      double t = l[i * d + j];
      for (std::size_t k = 0; k < j; ++k) t -= l[i * d + k] * l[j * d + k];
      l[i * d + j] = t / l[j * d + j];
    }
  }
  for (std::size_t i = 0; i < d; ++i) {  // L z = b
    for (std::size_t k = 0; k < i; ++k) w[i] -= l[i * d + k] * w[k];
    w[i] /= l[i * d + i];
  }
  for (std::size_t i = d; i-- > 0;) {  // L^T w = z
    for (std::size_t k = i + 1; k < d; ++k) w[i] -= l[k * d + i] * w[k];
    w[i] /= l[i * d + i];
  }
  return w;
}

/// (1/2) (w - w*)^T H (w - w*): the excess L(w) - L* without cancellation.
inline double quadratic_excess(const quadratic_piece& q,
                               std::span<const double> w,
                               const std::vector<double>& w_star) {
  const std::size_t d = q.b.size();
  double s = 0;
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j)
      s += (w[i] - w_star[i]) * q.h[i * d + j] * (w[j] - w_star[j]);
  return 0.5 * s;
}

/// The eigenvalues of H (all > 0: checked), for the exact privacy part of the file comment
/// (pgd_theory::quadratic_privacy_part).
inline std::vector<double> hessian_eigenvalues(const quadratic_piece& q) {
  auto lambda = data::symmetric_eigenvalues(q.h, q.b.size());
  for (const double l : lambda)
    if (!(l > 0)) throw std::runtime_error("noisy_pgd_rates: H is singular");
  return lambda;
}

}  // namespace dpx::experiments::noisy_pgd_rates
