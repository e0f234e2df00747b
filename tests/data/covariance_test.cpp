// covariance(n) and autocovariance(h) of the i.i.d. baselines and the stationary designs, each
// against an independent computation:
// * i.i.d.: sd²·I (Student t with ν ≤ 2: +∞ on the diagonal only);
// * Toeplitz: s²·r^{|i−j|} by std::pow;
// * fGn: increments of fractional Brownian motion, Cov(B(s), B(t)) = s²/2 (s^{2H} + t^{2H} −
//   |t−s|^{2H}) [Mandelbrot & Van Ness 1968], differenced four ways (not the library's
//   second-difference formula);
// * equicorrelated: from the construction X = μ + s(√c W + √(1−c) Z);
// * stationary_gaussian: Σ_j col_j col_jᵀ over the transform of every unit normal (the
//   covariance the sampler really produces) equals covariance(n); bad h / n name the parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/data/data.hpp"

using namespace dpx::data;

TEST(Covariance, IidIsVarianceTimesIdentity) {
  const std::size_t n = 7;
  const iid_gaussian g({1.0, 1.5});
  const iid_uniform u({-1.0, 3.0});
  const iid_beta b({2.0, 3.0});
  const iid_student_t t({5.0, 0.0, 2.0});
  const auto cg = g.covariance(n), cu = u.covariance(n), cb = b.covariance(n), ct = t.covariance(n);
  ASSERT_EQ(cg.shape()[0], n);
  ASSERT_EQ(cg.shape()[1], n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double d = i == j ? 1.0 : 0.0;
      EXPECT_DOUBLE_EQ(cg(i, j), 2.25 * d);
      EXPECT_DOUBLE_EQ(cu(i, j), 16.0 / 12.0 * d);
      EXPECT_DOUBLE_EQ(cb(i, j), 6.0 / (25.0 * 6.0) * d);  // ab/((a+b)²(a+b+1))
      EXPECT_DOUBLE_EQ(ct(i, j), 4.0 * 5.0 / 3.0 * d);     // scale²ν/(ν−2)
    }
  EXPECT_DOUBLE_EQ(g.autocovariance(0), 2.25);
  EXPECT_DOUBLE_EQ(g.autocovariance(3), 0.0);
  const iid_student_t heavy({1.5, 0.0, 1.0});
  const auto ch = heavy.covariance(3);
  EXPECT_TRUE(std::isinf(ch(1, 1)));
  EXPECT_EQ(ch(0, 1), 0.0);
}

TEST(Covariance, ToeplitzIsPowerLaw) {
  const toeplitz t(50, {-0.8, 2.5, 1.0});
  for (std::size_t k : {1u, 5u, 80u}) {  // any k, also beyond the sampler's own length
    const auto c = t.covariance(k);
    ASSERT_EQ(c.shape()[0], k);
    for (std::size_t i = 0; i < k; ++i)
      for (std::size_t j = 0; j < k; ++j)
        EXPECT_NEAR(c(i, j), 2.5 * std::pow(-0.8, std::abs(double(i) - double(j))), 1e-14);
  }
  EXPECT_NEAR(t.autocovariance(3), 2.5 * -0.512, 1e-15);
}

TEST(Covariance, FgnIsIncrementsOfFractionalBrownianMotion) {
  for (double h : {0.2, 0.5, 0.75, 0.95}) {
    const double s2 = 1.7;
    const fgn f(40, {h, s2, 0.0});
    auto fbm = [&](double s, double t) {
      return 0.5 * s2 *
             (std::pow(s, 2 * h) + std::pow(t, 2 * h) - std::pow(std::abs(t - s), 2 * h));
    };
    const std::size_t k = 30;
    const auto c = f.covariance(k);
    for (std::size_t i = 0; i < k; ++i)
      for (std::size_t j = 0; j < k; ++j) {
        const double a = double(i), b = double(j);
        const double want = fbm(a + 1, b + 1) - fbm(a + 1, b) - fbm(a, b + 1) + fbm(a, b);
        EXPECT_NEAR(c(i, j), want, 1e-12) << "H " << h << " (" << i << "," << j << ")";
      }
    EXPECT_NEAR(f.autocovariance(0), s2, 1e-15);
  }
}

TEST(Covariance, EquicorrelatedFromConstruction) {
  const equicorrelated e({0.3, 2.0, -1.0});
  const std::size_t n = 6;
  const auto c = e.covariance(n);
  // X_i = μ + s(√c W + √(1−c) Z_i): Cov(X_i, X_j) = s²(c + (1−c)[i = j]).
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      EXPECT_NEAR(c(i, j), 2.0 * (0.3 + (i == j ? 0.7 : 0.0)), 1e-15);
  EXPECT_NEAR(e.autocovariance(4), 0.6, 1e-15);
  EXPECT_NEAR(e.autocovariance(0), 2.0, 1e-15);
}

TEST(Covariance, StationaryGaussianEqualsTheSamplersCovariance) {
  // Circulant (ARMA(1,1) γ) and Cholesky (the fallback example of circulant_test.cpp).
  const arma a({{0.6}, {0.3}, 0.0, 1.0});
  const std::vector<stationary_gaussian> samplers{stationary_gaussian(a.autocovariance_vector(9)),
                                                  stationary_gaussian({1.0, 0.5, -0.3, -0.4})};
  for (const auto& s : samplers) {
    const std::size_t n = s.size();
    std::vector<double> cov(n * n, 0.0);
    for (std::size_t j = 0; j < s.normals_needed(); ++j) {
      auto w = detail::allocate_aligned(s.work_size());
      for (std::size_t i = 0; i < s.work_size(); ++i) w[i] = (i == j) ? 1.0 : 0.0;
      std::vector<double> out(n);
      s.transform(w.get(), out);
      for (std::size_t p = 0; p < n; ++p)
        for (std::size_t q = 0; q < n; ++q) cov[p * n + q] += out[p] * out[q];
    }
    const auto c = s.covariance(n);
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t q = 0; q < n; ++q) EXPECT_NEAR(c(p, q), cov[p * n + q], 1e-13);
    const auto lead = s.covariance(2);
    EXPECT_EQ(lead.shape()[0], 2u);
    EXPECT_EQ(lead(1, 0), c(1, 0));
    EXPECT_EQ(s.autocovariance(n - 1), c(n - 1, 0));
    try {
      (void)s.covariance(n + 1);
      ADD_FAILURE() << "covariance(n + 1) should throw";
    } catch (const dpx::core::invalid_argument_error& e) {
      EXPECT_EQ(e.parameter(), "n");
    }
    try {
      (void)s.autocovariance(n);
      ADD_FAILURE() << "autocovariance(n) should throw";
    } catch (const dpx::core::invalid_argument_error& e) {
      EXPECT_EQ(e.parameter(), "h");
    }
  }
}

TEST(Covariance, WorkspaceDrawsAreIdenticalAndChecked) {
  // sample_into (normals drawn and scaled chunk by chunk) gives the same bits as one
  // fill_standard_normal over all normals followed by transform, with or without a reused
  // workspace (n = 20000: M = 40000 normals span several chunks); a too-small workspace is
  // rejected naming "workspace".
  const std::size_t n = 20000;
  const toeplitz t(n, {0.9, 1.0, 0.0});
  const auto& s = t.sampler();
  ASSERT_GT(s.normals_needed(), 2 * 4 * detail::normal_chunk);
  auto g1 = dpx::rng::stream(3, 1, 0, dpx::rng::purpose::data);
  auto g2 = g1, g3 = g1;
  std::vector<double> a(n), b(n), c(n);
  auto work = s.make_workspace();
  for (int rep = 0; rep < 2; ++rep) {
    s.sample_into(a, g1);
    s.sample_into(b, g2, work);
    auto w = detail::allocate_aligned(s.work_size());
    fill_standard_normal(g3, std::span<double>(w.get(), s.normals_needed()));
    s.transform(w.get(), c);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(a[i], b[i]) << rep << " " << i;
      ASSERT_EQ(a[i], c[i]) << rep << " " << i;
    }
  }
  stationary_workspace small(10);
  try {
    s.sample_into(b, g2, small);
    ADD_FAILURE() << "small workspace should throw";
  } catch (const dpx::core::invalid_argument_error& e) {
    EXPECT_EQ(e.parameter(), "workspace");
  }
}
