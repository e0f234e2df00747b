// Circulant embedding (Davies–Harte / Wood–Chan) and its Cholesky fallback:
// * the covariance the sampler implies (inverse FFT of the clipped embedding eigenvalues)
//   equals the target autocovariance to 1e-12 (Toeplitz 0.9, fGn H = 0.75 and 0.3, ARMA, n = 2);
// * the embedding size is even, 7-smooth and ≥ 2(n−1);
// * a valid covariance whose minimal embedding has a negative eigenvalue (γ = 1, .5, −.3, −.4)
//   falls back to Cholesky, which reproduces γ; forcing `circulant` throws naming the
//   autocovariance, and so does a fallback beyond max_cholesky;
// * the path is exactly linear in the normals: E[XXᵀ] computed from the transform of unit
//   vectors equals the Toeplitz matrix (deterministic covariance check of the whole pipeline).
#include <gtest/gtest.h>

#include "dpx/core/error.hpp"
#include "dpx/data/data.hpp"

using namespace dpx::data;

namespace {
void expect_implied_equals_target(const stationary_gaussian& s) {
  const auto implied = s.implied_autocovariance();
  const auto& target = s.autocovariance();
  ASSERT_EQ(implied.size(), target.size());
  for (std::size_t k = 0; k < target.size(); ++k)
    ASSERT_NEAR(implied[k], target[k], 1e-12 * target[0]) << "lag " << k;
}
}  // namespace

TEST(Circulant, ImpliedCovarianceEqualsTarget) {
  {
    toeplitz t(1000, {0.9, 1.0, 0.0});
    EXPECT_EQ(t.sampler().method(), sampling_method::circulant);
    const std::size_t m = t.sampler().embedding_size();
    EXPECT_EQ(m % 2, 0u);
    EXPECT_GE(m, 2u * 999u);
    EXPECT_EQ(m, 2000u);  // 2·999 = 1998 → next even 7-smooth is 2000
    expect_implied_equals_target(t.sampler());
  }
  for (double h : {0.75, 0.3, 0.5}) {
    fgn f(1000, {h, 2.0, 0.0});
    EXPECT_EQ(f.sampler().method(), sampling_method::circulant) << h;
    expect_implied_equals_target(f.sampler());
  }
  {
    arma a({{0.6, 0.2}, {-0.4}, 0.0, 1.0});
    stationary_gaussian s(a.autocovariance_vector(500));
    expect_implied_equals_target(s);
  }
  {
    stationary_gaussian s(std::vector<double>{2.0, -1.0});
    expect_implied_equals_target(s);
  }
}

TEST(Circulant, CholeskyFallbackAndErrors) {
  const std::vector<double> g{1.0, 0.5, -0.3, -0.4};  // PD (λ_min ≈ 0.032), embedding min −0.2
  stationary_gaussian s(g);
  EXPECT_EQ(s.method(), sampling_method::cholesky);
  EXPECT_NEAR(s.min_embedding_eigenvalue(), -0.2, 1e-12);
  expect_implied_equals_target(s);
  stationary_gaussian_options force;
  force.method = sampling_method::circulant;
  try {
    stationary_gaussian bad(g, force);
    ADD_FAILURE() << "forced circulant should throw";
  } catch (const dpx::core::invalid_argument_error& e) {
    EXPECT_EQ(e.parameter(), "autocovariance");
  }
  stationary_gaussian_options small;
  small.max_cholesky = 3;
  EXPECT_THROW(stationary_gaussian(g, small), dpx::core::invalid_argument_error);
  // Samples from the fallback are exact: transform of unit vectors gives L, L Lᵀ = Γ.
  const std::size_t n = g.size();
  std::vector<std::vector<double>> cols;
  for (std::size_t j = 0; j < s.normals_needed(); ++j) {
    auto w = detail::allocate_aligned(s.work_size());
    for (std::size_t i = 0; i < s.work_size(); ++i) w[i] = (i == j) ? 1.0 : 0.0;
    std::vector<double> out(n);
    s.transform(w.get(), out);
    cols.push_back(out);
  }
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      double c = 0.0;
      for (auto& v : cols) c += v[a] * v[b];
      EXPECT_NEAR(c, g[a > b ? a - b : b - a], 1e-13);
    }
}

TEST(Circulant, TransformIsExactlyTheTargetCovariance) {
  // Push every unit normal through the circulant transform: Σ_j col_j col_jᵀ = Γ exactly.
  toeplitz t(12, {-0.7, 1.5, 0.0});
  const auto& s = t.sampler();
  ASSERT_EQ(s.method(), sampling_method::circulant);
  const std::size_t n = 12;
  std::vector<double> cov(n * n, 0.0);
  for (std::size_t j = 0; j < s.normals_needed(); ++j) {
    auto w = detail::allocate_aligned(s.work_size());
    for (std::size_t i = 0; i < s.work_size(); ++i) w[i] = (i == j) ? 1.0 : 0.0;
    std::vector<double> out(n);
    s.transform(w.get(), out);
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b) cov[a * n + b] += out[a] * out[b];
  }
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      EXPECT_NEAR(cov[a * n + b], 1.5 * std::pow(-0.7, std::abs(double(a) - double(b))), 1e-13);
}
