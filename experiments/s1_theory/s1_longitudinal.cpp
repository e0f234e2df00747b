// dd_longitudinal oracles from a cell's inputs (s1_longitudinal.hpp; docs/theory/
// dependent-data.md §11). Own dense linear algebra (Cholesky, Jacobi eigen-decomposition): the
// matrices are T×T with T ≤ a few dozen.
#include "s1_longitudinal.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "dpx/core/error.hpp"
#include "s1_local.hpp"
#include "s1_theory.hpp"

namespace dpx::experiments::s1_theory {

namespace {

using matrix = std::vector<double>;  // row-major, dimensions passed alongside

void require_longitudinal(bool ok, const char* parameter, double value, const char* what) {
  if (!ok) core::throw_invalid("s1_longitudinal", parameter, value, what);
}

matrix ar1_correlation(double phi, std::size_t T) {
  matrix a(T * T);
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = 0; j < T; ++j)
      a[i * T + j] = std::pow(phi, static_cast<double>(i > j ? i - j : j - i));
  return a;
}

/// Lower Cholesky factor of the SPD k×k matrix a.
matrix cholesky(const matrix& a, std::size_t k) {
  matrix l(k * k, 0.0);
  for (std::size_t j = 0; j < k; ++j) {
    double d = a[j * k + j];
    for (std::size_t m = 0; m < j; ++m) d -= l[j * k + m] * l[j * k + m];
    require_longitudinal(d > 0, "covariance", d, "must be positive definite");
    l[j * k + j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < k; ++i) {
      double s = a[i * k + j];
      for (std::size_t m = 0; m < j; ++m) s -= l[i * k + m] * l[j * k + m];
      l[i * k + j] = s / l[j * k + j];
    }
  }
  return l;
}

/// L⁻¹B for lower-triangular L (k×k) and B (k×c).
matrix lower_solve(const matrix& l, const matrix& b, std::size_t k, std::size_t c) {
  matrix x = b;
  for (std::size_t col = 0; col < c; ++col)
    for (std::size_t i = 0; i < k; ++i) {
      double s = x[i * c + col];
      for (std::size_t m = 0; m < i; ++m) s -= l[i * k + m] * x[m * c + col];
      x[i * c + col] = s / l[i * k + i];
    }
  return x;
}

/// Cyclic Jacobi: a = V diag(w) Vᵀ for the symmetric k×k a; returns w, fills v (columns).
std::vector<double> jacobi_eigen(matrix a, std::size_t k, matrix& v) {
  v.assign(k * k, 0.0);
  for (std::size_t i = 0; i < k; ++i) v[i * k + i] = 1.0;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, diag = 0;
    for (std::size_t i = 0; i < k; ++i)
      for (std::size_t j = 0; j < k; ++j) (i == j ? diag : off) += a[i * k + j] * a[i * k + j];
    if (off <= 1e-30 * diag) break;
    for (std::size_t p = 0; p + 1 < k; ++p)
      for (std::size_t q = p + 1; q < k; ++q) {
        const double apq = a[p * k + q];
        if (apq == 0.0) continue;
        const double theta = (a[q * k + q] - a[p * k + p]) / (2.0 * apq);
        const double t =
            (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1.0 / std::sqrt(t * t + 1), s = t * c;
        for (std::size_t r = 0; r < k; ++r) {  // columns p, q
          const double arp = a[r * k + p], arq = a[r * k + q];
          a[r * k + p] = c * arp - s * arq;
          a[r * k + q] = s * arp + c * arq;
        }
        for (std::size_t r = 0; r < k; ++r) {  // rows p, q
          const double apr = a[p * k + r], aqr = a[q * k + r];
          a[p * k + r] = c * apr - s * aqr;
          a[q * k + r] = s * apr + c * aqr;
        }
        for (std::size_t r = 0; r < k; ++r) {
          const double vrp = v[r * k + p], vrq = v[r * k + q];
          v[r * k + p] = c * vrp - s * vrq;
          v[r * k + q] = s * vrp + c * vrq;
        }
      }
  }
  std::vector<double> w(k);
  for (std::size_t i = 0; i < k; ++i) w[i] = a[i * k + i];
  return w;
}

/// Aᵀ B C for A (k×a), B (k×k), C (k×c): the a×c product.
matrix sandwich(const matrix& A,
                std::size_t a,
                const matrix& B,
                const matrix& C,
                std::size_t c,
                std::size_t k) {
  matrix bc(k * c, 0.0), out(a * c, 0.0);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t m = 0; m < k; ++m)
      for (std::size_t j = 0; j < c; ++j) bc[i * c + j] += B[i * k + m] * C[m * c + j];
  for (std::size_t i = 0; i < a; ++i)
    for (std::size_t m = 0; m < k; ++m)
      for (std::size_t j = 0; j < c; ++j) out[i * c + j] += A[m * a + i] * bc[m * c + j];
  return out;
}

/// Cov(β̂) of OLS on y = Fβ_F + zβ_z + e with F (T×2) fixed, z ~ N(0, C), e ~ N(0, S) (see the
/// header for the derivation).
std::array<double, 9> ols_covariance(const matrix& F,
                                     const matrix& C,
                                     const matrix& S,
                                     std::size_t T) {
  constexpr std::size_t q = 2;
  const std::size_t m = T - q;
  // Q₁R = F (Gram–Schmidt), Q₂ an orthonormal basis of the complement (eigenvectors of M with
  // eigenvalue 1).
  matrix Q1(T * q), R(q * q, 0.0);
  for (std::size_t j = 0; j < q; ++j) {
    std::vector<double> col(T);
    for (std::size_t t = 0; t < T; ++t) col[t] = F[t * q + j];
    for (std::size_t i = 0; i < j; ++i) {
      double d = 0;
      for (std::size_t t = 0; t < T; ++t) d += Q1[t * q + i] * F[t * q + j];
      R[i * q + j] = d;
      for (std::size_t t = 0; t < T; ++t) col[t] -= d * Q1[t * q + i];
    }
    double nn = 0;
    for (const double x : col) nn += x * x;
    R[j * q + j] = std::sqrt(nn);
    for (std::size_t t = 0; t < T; ++t) Q1[t * q + j] = col[t] / R[j * q + j];
  }
  matrix M(T * T), V;
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = 0; j < T; ++j)
      M[i * T + j] = (i == j ? 1.0 : 0.0) - Q1[i * q] * Q1[j * q] - Q1[i * q + 1] * Q1[j * q + 1];
  const std::vector<double> mw = jacobi_eigen(M, T, V);
  matrix Q2(T * m);
  std::size_t c2 = 0;
  for (std::size_t k = 0; k < T; ++k) {
    if (mw[k] < 0.5) continue;
    for (std::size_t t = 0; t < T; ++t) Q2[t * m + c2] = V[t * T + k];
    ++c2;
  }
  require_longitudinal(c2 == m, "T", static_cast<double>(T), "design of rank < 2");
  const matrix C11 = sandwich(Q1, q, C, Q1, q, T), C12 = sandwich(Q1, q, C, Q2, m, T);
  const matrix C22 = sandwich(Q2, m, C, Q2, m, T);
  const matrix S11 = sandwich(Q1, q, S, Q1, q, T), S12 = sandwich(Q1, q, S, Q2, m, T);
  const matrix S22 = sandwich(Q2, m, S, Q2, m, T);
  // C₂₂ = UΛUᵀ; everything below in the eigenbasis of C₂₂ (where the tilted covariance
  // C₂₂(I + 2sC₂₂)⁻¹ is diagonal).
  matrix U;
  const std::vector<double> lam = jacobi_eigen(C22, m, U);
  const matrix St = sandwich(U, m, S22, U, m, m);
  matrix Bt(q * m, 0.0), S12t(q * m, 0.0), Wm = C11;  // B U = C₁₂ U Λ⁻¹, Σ₁₂U
  for (std::size_t a = 0; a < q; ++a)
    for (std::size_t i = 0; i < m; ++i) {
      double cu = 0, su = 0;
      for (std::size_t k = 0; k < m; ++k) {
        cu += C12[a * m + k] * U[k * m + i];
        su += S12[a * m + k] * U[k * m + i];
      }
      Bt[a * m + i] = cu / lam[i];
      S12t[a * m + i] = su;
    }
  for (std::size_t a = 0; a < q; ++a)  // W = C₁₁ − (C₁₂U)Λ⁻¹(C₁₂U)ᵀ
    for (std::size_t b = 0; b < q; ++b)
      for (std::size_t i = 0; i < m; ++i) Wm[a * q + b] -= Bt[a * m + i] * Bt[b * m + i] * lam[i];
  // Integrals over s = eˣ (trapezoid in x: the integrands are analytic in a strip of width π, so
  // the rule converges geometrically; tails decay like e^{−x/2} or faster for m ≥ 3).
  std::vector<double> g1(m, 0.0), g3d(m, 0.0);
  matrix g3(m * m, 0.0);
  double g0 = 0;
  const double h = 0.05;
  std::vector<double> w(m);
  for (double x = -50.0; x <= 110.0; x += h) {
    const double s = std::exp(x);
    double logd = 0, t = 0;
    for (std::size_t i = 0; i < m; ++i) {
      logd += std::log1p(2.0 * s * lam[i]);
      w[i] = lam[i] / (1.0 + 2.0 * s * lam[i]);
      t += St[i * m + i] * w[i];
    }
    const double D = std::exp(-0.5 * logd), ds = s * h;  // ds = eˣ dx
    for (std::size_t i = 0; i < m; ++i) {
      g1[i] += D * w[i] * ds;
      g3d[i] += s * D * w[i] * t * ds;
      for (std::size_t j = 0; j < m; ++j) g3[i * m + j] += 2.0 * s * D * w[i] * w[j] * ds;
    }
    g0 += s * D * t * ds;
  }
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < m; ++j)
      g3[i * m + j] = g3[i * m + j] * St[i * m + j] + (i == j ? g3d[i] : 0.0);
  // Inner = Σ₁₁ − Σ̃₁₂G₁B̃ᵀ − B̃G₁Σ̃₁₂ᵀ + B̃G₃B̃ᵀ + g₀W (2×2), then R⁻¹ Inner R⁻ᵀ.
  double inner[q * q];
  for (std::size_t a = 0; a < q; ++a)
    for (std::size_t b = 0; b < q; ++b) {
      double v = S11[a * q + b] + g0 * Wm[a * q + b];
      for (std::size_t i = 0; i < m; ++i) {
        v -= g1[i] * (S12t[a * m + i] * Bt[b * m + i] + Bt[a * m + i] * S12t[b * m + i]);
        for (std::size_t j = 0; j < m; ++j) v += Bt[a * m + i] * g3[i * m + j] * Bt[b * m + j];
      }
      inner[a * q + b] = v;
    }
  const double r00 = R[0], r01 = R[1], r11 = R[3];
  const double ri[q * q] = {1.0 / r00, -r01 / (r00 * r11), 0.0, 1.0 / r11};  // R⁻¹
  std::array<double, 9> cov{};
  for (std::size_t a = 0; a < q; ++a)
    for (std::size_t b = 0; b < q; ++b) {
      double v = 0;
      for (std::size_t k = 0; k < q; ++k)
        for (std::size_t l = 0; l < q; ++l) v += ri[a * q + k] * inner[k * q + l] * ri[b * q + l];
      cov[a * 3 + b] = v;
    }
  cov[8] = g0;
  // Cross terms Cov(β̂_F, β̂_z) are not needed by the oracles (diagonal and trace): left 0.
  return cov;
}

}  // namespace

std::array<double, 9> longitudinal_coefficient_covariance(const longitudinal_design& d) {
  require_longitudinal(d.T >= 5, "T", static_cast<double>(d.T), "must be >= 5 (finite covariance)");
  require_longitudinal(std::fabs(d.phi) < 1 && std::fabs(d.covariate_phi) < 1,
                       "phi",
                       d.phi,
                       "phi and covariate_phi must be in (-1, 1)");
  const std::size_t T = d.T;
  matrix F(T * 2);
  for (std::size_t t = 0; t < T; ++t) {
    F[t * 2] = 1.0;
    F[t * 2 + 1] = static_cast<double>(t + 1) / static_cast<double>(T);
  }
  const matrix C = ar1_correlation(d.covariate_phi, T), S = ar1_correlation(d.phi, T);
  if (!d.gls) return ols_covariance(F, C, S, T);
  // GLS = OLS on the data whitened by L⁻¹ (Σ_u = LLᵀ): F → L⁻¹F, C → L⁻¹CL⁻ᵀ, Σ → I.
  const matrix L = cholesky(S, T);
  const matrix Fw = lower_solve(L, F, T, 2);
  const matrix LC = lower_solve(L, C, T, T);  // L⁻¹C
  matrix LCt(T * T);
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = 0; j < T; ++j) LCt[i * T + j] = LC[j * T + i];
  const matrix Cw = lower_solve(L, LCt, T, T);  // L⁻¹(L⁻¹C)ᵀ = L⁻¹CL⁻ᵀ
  matrix I(T * T, 0.0);
  for (std::size_t i = 0; i < T; ++i) I[i * T + i] = 1.0;
  return ols_covariance(Fw, Cw, I, T);
}

longitudinal_prediction longitudinal_oracle(const longitudinal_cell& c) {
  constexpr std::size_t kP = 3;
  require_longitudinal(c.n >= 1, "n", 0.0, "must be >= 1");
  require_longitudinal(c.epsilon > 0, "epsilon", c.epsilon, "must be > 0");
  const auto cov = longitudinal_coefficient_covariance(c.design);
  longitudinal_prediction p;
  p.v_star = std::max({cov[0], cov[4], cov[8]});
  p.trace_cov = cov[0] + cov[4] + cov[8];
  p.tau = radius(p.v_star, c.n, kP, c.gamma);
  const design_theta th = longitudinal_design_theta(c.design.T);
  p.tau_lemma = radius(th.hi / (th.lo * th.lo) * ar1_lambda_max(c.design.phi, c.design.T) /
                           static_cast<double>(c.design.T),
                       c.n,
                       kP,
                       c.gamma);
  const double dn = static_cast<double>(c.n), eps_j = c.epsilon / static_cast<double>(kP);
  p.laplace_scale = winsorized_laplace_scale(3.0 * p.tau, c.n, eps_j);
  p.mse = p.trace_cov / dn + 2.0 * kP * p.laplace_scale * p.laplace_scale;
  const double bl = winsorized_laplace_scale(3.0 * p.tau_lemma, c.n, eps_j);
  p.mse_lemma = p.trace_cov / dn + 2.0 * kP * bl * bl;
  return p;
}

}  // namespace dpx::experiments::s1_theory
