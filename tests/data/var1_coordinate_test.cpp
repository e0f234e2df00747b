// var1::coordinate_log_sobolev (docs/theory/dependent-data.md §2.2 Assumption 2.8(a): max_j
// λ_max(Cov(X_{·j}))) against independent dense eigenvalues:
// - a diagonal VAR(1) is d independent AR(1) series: coordinate j's covariance is the explicit
//   Toeplitz matrix σ_j²/(1 − a_j²) a_j^{|s−t|}, built here entry by entry;
// - a coupled VAR(1): the n×n block of coordinate j taken out of the full nd×nd covariance;
// - the whole-vector constant log_sobolev(n) lies between it and d times it, and the gap can be
//   almost d (Σ_e with correlation 0.95 between the two innovations).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <xtensor-blas/xlinalg.hpp>

#include "dpx/data/data.hpp"

using namespace dpx::data;

namespace {

double dense_lambda_max(const xt::xtensor<double, 2>& m) {
  const xt::xtensor<double, 1> ev = xt::linalg::eigvalsh(m);
  return xt::amax(ev)();
}

var1 make(std::size_t d, const std::vector<double>& a, const std::vector<double>& s) {
  var1_options o;
  o.a = xt::xtensor<double, 2>::from_shape({d, d});
  o.sigma_e = xt::xtensor<double, 2>::from_shape({d, d});
  std::copy(a.begin(), a.end(), o.a.begin());
  std::copy(s.begin(), s.end(), o.sigma_e.begin());
  o.mu.assign(d, 0.0);
  return var1(o);
}

}  // namespace

TEST(Var1Coordinate, DiagonalVarIsIndependentAr1Series) {
  // Coordinates: AR(1) with a = 0.9, σ² = 1 and a = −0.5, σ² = 4.
  const var1 v = make(2, {0.9, 0.0, 0.0, -0.5}, {1.0, 0.0, 0.0, 4.0});
  for (std::size_t n : {1u, 2u, 7u, 60u, 400u}) {
    double want = 0.0;
    for (const auto& [a, s2] : {std::pair{0.9, 1.0}, std::pair{-0.5, 4.0}}) {
      xt::xtensor<double, 2> t = xt::zeros<double>({n, n});
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
          t(i, j) = s2 / (1.0 - a * a) * std::pow(a, double(i > j ? i - j : j - i));
      want = std::max(want, dense_lambda_max(t));
    }
    EXPECT_NEAR(v.coordinate_log_sobolev(n), want, 1e-12 * want) << n;
  }
}

TEST(Var1Coordinate, CoupledVarMatchesTheCoordinateBlockOfTheFullCovariance) {
  const var1 v = make(3,
                      {0.5, 0.2, 0.0, -0.3, 0.4, 0.1, 0.0, 0.25, 0.6},
                      {1.0, 0.2, 0.1, 0.2, 0.8, -0.1, 0.1, -0.1, 0.5});
  const std::size_t n = 40, d = 3;
  const auto c = v.covariance(n);  // time-major nd×nd
  double want = 0.0;
  for (std::size_t j = 0; j < d; ++j) {
    xt::xtensor<double, 2> b = xt::zeros<double>({n, n});
    for (std::size_t s = 0; s < n; ++s)
      for (std::size_t t = 0; t < n; ++t) b(s, t) = c(s * d + j, t * d + j);
    want = std::max(want, dense_lambda_max(b));
  }
  const double got = v.coordinate_log_sobolev(n);
  EXPECT_NEAR(got, want, 1e-12 * want);
  const double whole = v.log_sobolev(n);
  EXPECT_GE(whole, got * (1 - 1e-12));
  EXPECT_LE(whole, 3.0 * got);
}

TEST(Var1Coordinate, CorrelatedInnovationsMakeTheWholeVectorConstantNearlyDTimesLarger) {
  // A = ½ I, Σ_e with correlation 0.95: each coordinate is AR(1) (φ = ½, variance 4/3), but the
  // two move together, so λ_max of the 2n-vector is ≈ 1.95 times the per-coordinate one.
  const var1 v = make(2, {0.5, 0.0, 0.0, 0.5}, {1.0, 0.95, 0.95, 1.0});
  const std::size_t n = 20;
  xt::xtensor<double, 2> t = xt::zeros<double>({n, n});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      t(i, j) = 1.0 / 0.75 * std::pow(0.5, double(i > j ? i - j : j - i));
  const double per = dense_lambda_max(t);
  EXPECT_NEAR(v.coordinate_log_sobolev(n), per, 1e-12 * per);
  EXPECT_NEAR(v.log_sobolev(n) / per, 1.95, 1e-12);
}
