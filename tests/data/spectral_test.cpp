// Log-Sobolev constants and the eigenvalue machinery:
// * symmetric_eigenvalues (LAPACK syevd) equals an independent Jacobi eigen-solver;
// * toeplitz_operator (FFT mat-vec) equals the dense product;
// * toeplitz_eigen_range: dense path and Lanczos path (dense_max = 0) both equal brute-force
//   (Jacobi) extremes for small n; Lanczos equals dense syevd at n = 700, and for an AR(2)
//   whose spectral density peaks inside (0, π) at n = 400; at n = 1e5 it is within 1e-8 of
//   the closed-form limit 2π sup f in < 500 steps;
// * AR(1) with unit marginal variance, φ = 0.95: λ_max ≈ 38.9 at n = 1000 and ≈ 39.0 at n = 5000
//   (docs/theory/dependent-data.md §8 table), below the limit (1+φ)/(1−φ) = 39, increasing in n;
// * model log_sobolev equals brute-force λ_max (ar1, arma, toeplitz, fgn, equicorrelated, var1,
//   random_effects, longitudinal, nonparametric) for small n;
// * mean_variance_constant equals 1ᵀΣ1/n; next_fast_fft_size is 7-smooth and minimal.
#include <gtest/gtest.h>

#include "dpx/data/data.hpp"
#include "test_util.hpp"

using namespace dpx::data;
using dpx::data::test::dense_toeplitz;
using dpx::data::test::jacobi_eigenvalues;

namespace {
std::vector<double> ar1_acvf(std::size_t n, double phi) {
  std::vector<double> g(n);
  for (std::size_t k = 0; k < n; ++k) g[k] = std::pow(phi, double(k));
  return g;
}
}  // namespace

TEST(Spectral, SyevdMatchesJacobi) {
  dpx::rng::philox4x32 g(7);
  const std::size_t n = 25;
  std::vector<double> a(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) a[i * n + j] = a[j * n + i] = 2.0 * g.uniform01() - 1.0;
  const auto e1 = symmetric_eigenvalues(a, n);
  const auto e2 = jacobi_eigenvalues(a, n);
  for (std::size_t i = 0; i < n; ++i) EXPECT_NEAR(e1[i], e2[i], 1e-12);
}

TEST(Spectral, ToeplitzOperatorMatchesDense) {
  dpx::rng::philox4x32 g(3);
  for (std::size_t n : {1u, 2u, 7u, 100u, 257u}) {
    std::vector<double> c(n), x(n), y(n);
    for (auto& v : c) v = g.uniform01() - 0.3;
    for (auto& v : x) v = g.uniform01() - 0.5;
    toeplitz_operator op(c);
    op.apply(x, y);
    const auto a = dense_toeplitz(c);
    for (std::size_t i = 0; i < n; ++i) {
      double s = 0.0;
      for (std::size_t j = 0; j < n; ++j) s += a[i * n + j] * x[j];
      EXPECT_NEAR(y[i], s, 1e-12) << "n=" << n << " i=" << i;
    }
  }
}

TEST(Spectral, DenseAndLanczosEqualBruteForce) {
  for (double phi : {0.95, 0.5, -0.7}) {
    for (std::size_t n : {5u, 40u}) {
      const auto c = ar1_acvf(n, phi);
      const auto ref = jacobi_eigenvalues(dense_toeplitz(c), n);
      const auto dense = toeplitz_eigen_range(c);
      EXPECT_TRUE(dense.dense);
      EXPECT_NEAR(dense.max, ref.back(), 1e-12 * ref.back());
      EXPECT_NEAR(dense.min, ref.front(), 1e-12 * ref.back());
      eigen_options lo;
      lo.dense_max = 0;
      const auto lan = toeplitz_eigen_range(c, lo);
      EXPECT_FALSE(lan.dense);
      EXPECT_NEAR(lan.max, ref.back(), 1e-10 * ref.back()) << phi << " " << n;
      EXPECT_NEAR(lan.min, ref.front(), 1e-10 * ref.back()) << phi << " " << n;
    }
  }
}

TEST(Spectral, LanczosEqualsSyevdAtModerateN) {
  const std::size_t n = 700;
  // fGn-like long-memory covariance (spectrum with a singularity: a hard case).
  std::vector<double> c(n);
  for (std::size_t k = 0; k < n; ++k) c[k] = fgn_autocovariance(k, 0.8, 1.0);
  const auto dense = toeplitz_eigen_range(c);
  eigen_options lo;
  lo.dense_max = 0;
  const auto lan = toeplitz_eigen_range(c, lo);
  EXPECT_NEAR(lan.max, dense.max, 1e-9 * dense.max);
  EXPECT_NEAR(lan.min, dense.min, 1e-9 * dense.max);
}

TEST(Spectral, LanczosInteriorSpectralPeak) {
  // AR(2) φ = (0.5, −0.2), σ = 1: |φ(e^{−iω})|² = 1.29 − 1.2 cos ω + 0.4 cos 2ω is minimal at
  // cos ω = 0.75 (value 0.44), so 2π f peaks strictly inside (0, π) at 1/0.44. λ_max(Γ_n)
  // increases to it (Cauchy interlacing) with gap ≈ ½|F''|(π/n)² ≈ 2e-9 at n = 1e5.
  const double sup = 1.0 / 0.44;
  const arma m({{0.5, -0.2}, {}, 0.0, 1.0});
  eigen_options lo;
  lo.dense_max = 0;
  const auto c400 = m.autocovariance_vector(400);
  const auto dense = toeplitz_eigen_range(c400);
  const auto lan = toeplitz_eigen_range(c400, lo);
  EXPECT_NEAR(lan.max, dense.max, 1e-9 * dense.max);
  EXPECT_NEAR(lan.min, dense.min, 1e-9 * dense.max);
  // n = 1e5 (Lanczos): within 1e-8 of the limit (the start vector modulated at the peak
  // frequency; the smooth/alternating start alone stopped at the 4000-step cap 1e-7 below).
  lo.need_min = false;
  const auto big = toeplitz_eigen_range(m.autocovariance_vector(100000), lo);
  EXPECT_LE(big.max, sup * (1 + 1e-12));
  EXPECT_GT(big.max, sup - 1e-8);
  EXPECT_GE(big.max, dense.max);
  EXPECT_LT(big.iterations, 500u);
}

TEST(Spectral, Ar1LimitTable) {
  // docs/theory/dependent-data.md §8: λ_max = 38.9 (n = 1000), 39.0 (n = 5000); limit (1+φ)/(1−φ)
  // = 39.
  const double phi = 0.95, limit = (1 + phi) / (1 - phi);
  ar1 m({phi, 0.0, std::sqrt(1 - phi * phi)});  // unit marginal variance
  const double l100 = m.log_sobolev(100), l1000 = m.log_sobolev(1000), l5000 = m.log_sobolev(5000);
  EXPECT_NEAR(l100, 32.5, 0.06);
  EXPECT_NEAR(l1000, 38.9, 0.06);
  EXPECT_NEAR(l5000, 39.0, 0.06);
  EXPECT_LT(l100, l1000);
  EXPECT_LT(l1000, l5000);
  EXPECT_LT(l5000, limit);
  EXPECT_NEAR(m.log_sobolev_bound(), limit, 1e-12);
  // n·Var(X̄) column of the same table.
  EXPECT_NEAR(m.mean_variance_constant(100), 31.4, 0.06);
  EXPECT_NEAR(m.mean_variance_constant(1000), 38.2, 0.06);
  EXPECT_NEAR(m.mean_variance_constant(5000), 38.8, 0.06);
  // Dense and Lanczos agree at n = 1000.
  eigen_options lo;
  lo.dense_max = 0;
  EXPECT_NEAR(toeplitz_eigen_range(m.autocovariance_vector(1000), lo).max, l1000, 1e-9 * l1000);
}

TEST(Spectral, ModelConstantsEqualBruteForce) {
  const std::size_t n = 30;
  auto lmax = [&](const std::vector<double>& a, std::size_t m) {
    return jacobi_eigenvalues(a, m).back();
  };
  {
    arma m({{0.5, -0.3}, {0.4}, 0.0, 1.3});
    EXPECT_NEAR(m.log_sobolev(n), lmax(dense_toeplitz(m.autocovariance_vector(n)), n), 1e-10);
    EXPECT_LE(m.log_sobolev(n), m.log_sobolev_bound() * (1 + 1e-12));
  }
  {
    toeplitz t(n, {0.8, 2.0, 1.0});
    EXPECT_NEAR(t.log_sobolev(), lmax(dense_toeplitz(ar1_acvf(n, 0.8)), n) * 2.0, 1e-10);
  }
  {
    fgn f(n, {0.7, 1.0, 0.0});
    std::vector<double> c(n);
    for (std::size_t k = 0; k < n; ++k) c[k] = fgn_autocovariance(k, 0.7, 1.0);
    EXPECT_NEAR(f.log_sobolev(), lmax(dense_toeplitz(c), n), 1e-10);
    EXPECT_NEAR(f.mean_variance_constant(), test::dense_mean_variance(dense_toeplitz(c), n), 1e-10);
  }
  {
    equicorrelated e({0.25, 2.0, 0.0});
    std::vector<double> a(n * n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) a[i * n + j] = 2.0 * (i == j ? 1.0 : 0.25);
    EXPECT_NEAR(e.log_sobolev(n), lmax(a, n), 1e-10);
  }
  {
    var1_options o;
    o.a = xt::xtensor<double, 2>::from_shape({2, 2});
    o.sigma_e = xt::xtensor<double, 2>::from_shape({2, 2});
    o.a(0, 0) = 0.5;
    o.a(0, 1) = 0.2;
    o.a(1, 0) = -0.1;
    o.a(1, 1) = 0.7;
    o.sigma_e(0, 0) = 1.0;
    o.sigma_e(0, 1) = o.sigma_e(1, 0) = 0.3;
    o.sigma_e(1, 1) = 0.5;
    var1 v(o);
    const auto c = v.covariance(15);
    std::vector<double> a(c.begin(), c.end());
    EXPECT_NEAR(v.log_sobolev(15), lmax(a, 30), 1e-10);
    // Lanczos path (nd > 768) equals dense syevd on the explicit covariance.
    const auto big = v.covariance(400);
    const auto ev = symmetric_eigenvalues(std::span<const double>(big.data(), big.size()), 800);
    EXPECT_NEAR(v.log_sobolev(400), ev.back(), 1e-9 * ev.back());
  }
  {
    random_effects_options o;
    o.group_sizes = {3, 2};
    o.times = 4;
    o.sigma_u = 0.7;
    o.sigma = 1.2;
    o.phi = 0.6;
    random_effects r(o);
    // Full 20×20 covariance.
    const std::size_t N = 20;
    std::vector<double> a(N * N, 0.0);
    for (std::size_t u = 0; u < 5; ++u)
      for (std::size_t v = 0; v < 5; ++v)
        for (std::size_t s = 0; s < 4; ++s)
          for (std::size_t t = 0; t < 4; ++t) {
            double c = 0.0;
            if (r.group_of(u) == r.group_of(v)) c += 0.49;
            if (u == v) c += 1.44 * std::pow(0.6, std::abs(double(s) - double(t)));
            a[(u * 4 + s) * N + v * 4 + t] = c;
          }
    EXPECT_NEAR(r.log_sobolev(), lmax(a, N), 1e-10);
    EXPECT_GE(r.log_sobolev_bound(), r.log_sobolev());
    std::vector<double> user(16);
    for (std::size_t i = 0; i < 16; ++i) user[i] = a[(i / 4) * N + (i % 4)];
    EXPECT_NEAR(r.user_log_sobolev(), lmax(user, 4), 1e-10);
    EXPECT_NEAR(r.user_mean_variance(), test::dense_mean_variance(user, 4) / 4.0, 1e-12);
    EXPECT_NEAR(r.grand_mean_variance(), test::dense_mean_variance(a, N) / N, 1e-12);
  }
  {
    longitudinal_options o;
    o.times = 12;
    o.phi = 0.4;
    o.sigma = 1.5;
    o.random_intercept_sd = 0.5;
    longitudinal l(o);
    const auto c = l.error_covariance();
    std::vector<double> a(c.begin(), c.end());
    EXPECT_NEAR(a[0 * 12 + 3], 2.25 * std::pow(0.4, 3) + 0.25, 1e-14);
    EXPECT_NEAR(l.log_sobolev(), lmax(a, 12), 1e-10);
  }
  {
    nonparametric np({test_function{}, 0.8, 0.5});
    const auto a = dense_toeplitz(ar1_acvf(n, 0.5));
    const auto ev = jacobi_eigenvalues(a, n);
    EXPECT_NEAR(np.log_sobolev(n), 0.64 * ev.back(), 1e-10);
    EXPECT_NEAR(np.min_eigenvalue(n), 0.64 * ev.front(), 1e-10);
    EXPECT_GE(np.min_eigenvalue(n), 0.64 * (1 - 0.5) / (1 + 0.5));
  }
}

TEST(Spectral, LargeNLanczosIsConsistent) {
  // Toeplitz 0.9 at n = 20000 (Lanczos): between the n = 700 dense value and the limit.
  ar1 m({0.9, 0.0, std::sqrt(1 - 0.81)});
  const double big = m.log_sobolev(20000), small = m.log_sobolev(700);
  EXPECT_GT(big, small);
  EXPECT_LE(big, 19.0 + 1e-9);
  EXPECT_NEAR(big, 19.0, 1e-3);
}

TEST(Spectral, MeanVarianceConstantAndFftSizes) {
  const auto c = ar1_acvf(50, 0.6);
  EXPECT_NEAR(mean_variance_constant(c), test::dense_mean_variance(dense_toeplitz(c), 50), 1e-12);
  for (std::size_t n : {1u, 2u, 11u, 13u, 97u, 1000u, 1999999u}) {
    const std::size_t m = next_fast_fft_size(n);
    EXPECT_GE(m, n);
    std::size_t r = m;
    for (std::size_t p : {2u, 3u, 5u, 7u})
      while (r % p == 0) r /= p;
    EXPECT_EQ(r, 1u);
    for (std::size_t k = n; k < m; ++k) {
      std::size_t q = k;
      for (std::size_t p : {2u, 3u, 5u, 7u})
        while (q % p == 0) q /= p;
      EXPECT_NE(q, 1u);
    }
  }
}
