// The vetted xtensor 0.24 / xtensor-blas subset dpx::data uses under C++20 (style.md A.2: pad
// and tile are broken there, so every xtensor function the component uses has a test here):
// * xtensor<double,N>::from_shape, xt::zeros, data() (row-major), operator(), begin/end order
//   (row-major traversal, also for column-major results of xtensor-blas);
// * xt::linalg::cholesky (lower factor, throws on a non-PD matrix);
// * xt::linalg::eigvalsh (syevd) against closed-form eigenvalues;
// * xt::linalg::solve (gesv) for vector and matrix right-hand sides.
#include <gtest/gtest.h>

#include <stdexcept>
#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xtensor.hpp>

TEST(XtensorSubset, FromShapeZerosDataAndIndexing) {
  xt::xtensor<double, 2> a = xt::xtensor<double, 2>::from_shape({2, 3});
  ASSERT_EQ(a.shape()[0], 2u);
  ASSERT_EQ(a.shape()[1], 3u);
  for (std::size_t i = 0; i < 6; ++i) a.data()[i] = static_cast<double>(i);
  EXPECT_EQ(a(0, 2), 2.0);  // row-major storage
  EXPECT_EQ(a(1, 0), 3.0);
  std::vector<double> it(a.begin(), a.end());
  EXPECT_EQ(it, (std::vector<double>{0, 1, 2, 3, 4, 5}));
  xt::xtensor<double, 2> z = xt::zeros<double>({3, 2});
  for (double v : z) EXPECT_EQ(v, 0.0);
  EXPECT_EQ(z.size(), 6u);
  xt::xtensor<double, 1> v = xt::xtensor<double, 1>::from_shape({4});
  EXPECT_EQ(v.size(), 4u);
}

TEST(XtensorSubset, CholeskyLowerFactorAndRowMajorIteration) {
  // A = L Lᵀ with L = [[2,0,0],[1,3,0],[-1,2,1]].
  const double l[3][3] = {{2, 0, 0}, {1, 3, 0}, {-1, 2, 1}};
  xt::xtensor<double, 2> a = xt::zeros<double>({3, 3});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) a(i, j) += l[i][k] * l[j][k];
  const xt::xtensor<double, 2> c = xt::linalg::cholesky(a);
  std::vector<double> flat(c.begin(), c.end());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(c(i, j), l[i][j], 1e-14);
      EXPECT_NEAR(flat[i * 3 + j], l[i][j], 1e-14);
    }
  xt::xtensor<double, 2> bad = xt::zeros<double>({2, 2});
  bad(0, 0) = 1;
  bad(1, 1) = 1;
  bad(0, 1) = bad(1, 0) = 2;  // eigenvalues 3, -1
  EXPECT_THROW((void)xt::linalg::cholesky(bad), std::runtime_error);
}

TEST(XtensorSubset, EigvalshMatchesClosedForm) {
  // [[a,b],[b,c]] has eigenvalues (a+c)/2 ± sqrt(((a-c)/2)^2 + b^2).
  xt::xtensor<double, 2> m = xt::zeros<double>({2, 2});
  m(0, 0) = 2.0;
  m(1, 1) = -1.0;
  m(0, 1) = m(1, 0) = 1.5;
  const xt::xtensor<double, 1> w = xt::linalg::eigvalsh(m);
  const double r = std::sqrt(1.5 * 1.5 + 1.5 * 1.5);
  EXPECT_NEAR(std::min(w(0), w(1)), 0.5 - r, 1e-14);
  EXPECT_NEAR(std::max(w(0), w(1)), 0.5 + r, 1e-14);
  // Tridiagonal (2,-1) matrix of size 6: 2 - 2cos(kπ/7).
  xt::xtensor<double, 2> t = xt::zeros<double>({6, 6});
  for (std::size_t i = 0; i < 6; ++i) {
    t(i, i) = 2.0;
    if (i + 1 < 6) t(i, i + 1) = t(i + 1, i) = -1.0;
  }
  const xt::xtensor<double, 1> e = xt::linalg::eigvalsh(t);
  for (std::size_t k = 0; k < 6; ++k)
    EXPECT_NEAR(e(k), 2.0 - 2.0 * std::cos(static_cast<double>(k + 1) * M_PI / 7.0), 1e-13);
}

TEST(XtensorSubset, SolveVectorAndMatrixRhs) {
  xt::xtensor<double, 2> a = xt::zeros<double>({3, 3});
  const double av[9] = {4, 1, 0, 1, 3, 1, 0, 1, 2};
  std::copy(av, av + 9, a.data());
  xt::xtensor<double, 1> x = xt::xtensor<double, 1>::from_shape({3});
  x(0) = 1;
  x(1) = -2;
  x(2) = 0.5;
  xt::xtensor<double, 1> b = xt::zeros<double>({3});
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) b(i) += a(i, j) * x(j);
  const xt::xtensor<double, 1> s = xt::linalg::solve(a, b);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(s(i), x(i), 1e-14);
  xt::xtensor<double, 2> bm = xt::zeros<double>({3, 2});
  for (std::size_t i = 0; i < 3; ++i) {
    bm(i, 0) = b(i);
    bm(i, 1) = 2.0 * b(i);
  }
  const xt::xtensor<double, 2> sm = xt::linalg::solve(a, bm);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(sm(i, 0), x(i), 1e-14);
    EXPECT_NEAR(sm(i, 1), 2.0 * x(i), 1e-14);
  }
}
