// Deterministic properties of the dpx::data models (closed forms computed independently):
// * AR(1): γ(h) = σ²φ^h/(1−φ²), long-run variance σ²/(1−φ)², spectral density integrates to γ(0);
// * ARMA: γ(h) equals σ² Σ_k ψ_kψ_{k+h} (independent MA(∞) sum), AR(2) Yule–Walker closed form,
//   ARMA(1,1) closed form, MA(2) closed form; long-run variance = 2π f(0);
// * ARMA start: the start covariance reproduces γ — a path's first values have the right law is
//   checked statistically; here: filter() of a unit vector equals the Cholesky column;
// * VAR(1): Γ_0 solves the Lyapunov equation and equals the Kronecker-product solve; Γ(1) = AΓ_0;
//   long-run variance (I−A)^{-1}Σ_e(I−A)^{-T};
// * samplers are deterministic given the generator and bulk normals equal scalar Box–Muller;
// * panel layout and user means; random-effects group assignment;
// * longitudinal design columns and θ bounds; nonparametric test-function constants;
// * ERM: k-sparse truth, row scaling, labels, Toeplitz feature covariance.
#include <gtest/gtest.h>

#include <numbers>
#include <xtensor-blas/xlinalg.hpp>

#include "dpx/data/data.hpp"
#include "test_util.hpp"

using namespace dpx::data;

TEST(Models, Ar1ClosedForms) {
  ar1 m({0.7, 2.0, 1.5});
  const double g0 = 2.25 / (1 - 0.49);
  EXPECT_NEAR(m.variance(), g0, 1e-14);
  EXPECT_NEAR(m.autocovariance(3), g0 * 0.343, 1e-13);
  EXPECT_NEAR(m.long_run_variance(), 2.25 / 0.09, 1e-12);
  EXPECT_NEAR(2 * std::numbers::pi * m.spectral_density(0.0), m.long_run_variance(), 1e-12);
  // ∫_{-π}^{π} f = γ(0) (midpoint rule, smooth periodic integrand: spectral accuracy).
  const int k = 4096;
  double s = 0.0;
  for (int i = 0; i < k; ++i)
    s += m.spectral_density(-std::numbers::pi + (i + 0.5) * 2 * std::numbers::pi / k);
  EXPECT_NEAR(s * 2 * std::numbers::pi / k, g0, 1e-10);
}

TEST(Models, ArmaAutocovarianceMatchesPsiSum) {
  arma m({{0.6, -0.2, 0.1}, {0.5, 0.25}, 0.0, 1.2});
  const auto psi = m.psi_weights(3000);
  for (std::size_t h : {0u, 1u, 2u, 3u, 4u, 7u, 15u}) {
    double s = 0.0;
    for (std::size_t k = 0; k + h < psi.size(); ++k) s += psi[k] * psi[k + h];
    EXPECT_NEAR(m.autocovariance(h), 1.44 * s, 1e-12) << h;
  }
  // Independent psi recursion check: ψ_1 = θ_1 + φ_1.
  EXPECT_NEAR(psi[1], 0.5 + 0.6, 1e-15);
}

TEST(Models, ArmaSpecialCasesClosedForm) {
  {  // AR(2): γ0 = (1−φ2)σ²/((1+φ2)((1−φ2)²−φ1²)), ρ1 = φ1/(1−φ2).
    const double p1 = 0.5, p2 = 0.3;
    arma m = arma::ar({p1, p2});
    EXPECT_NEAR(m.variance(), (1 - p2) / ((1 + p2) * ((1 - p2) * (1 - p2) - p1 * p1)), 1e-13);
    EXPECT_NEAR(m.autocorrelation(1), p1 / (1 - p2), 1e-13);
    EXPECT_NEAR(m.autocorrelation(2), p1 * p1 / (1 - p2) + p2, 1e-13);
  }
  {  // ARMA(1,1).
    const double f = 0.7, t = -0.4;
    arma m({{f}, {t}, 0.0, 1.0});
    EXPECT_NEAR(m.variance(), (1 + 2 * f * t + t * t) / (1 - f * f), 1e-13);
    EXPECT_NEAR(m.autocovariance(1), (1 + f * t) * (f + t) / (1 - f * f), 1e-13);
    EXPECT_NEAR(m.autocovariance(2), f * (1 + f * t) * (f + t) / (1 - f * f), 1e-13);
    EXPECT_NEAR(m.long_run_variance(), (1 + t) * (1 + t) / ((1 - f) * (1 - f)), 1e-13);
    EXPECT_NEAR(2 * std::numbers::pi * m.spectral_density(0.0), m.long_run_variance(), 1e-12);
  }
  {  // MA(2).
    arma m = arma::ma({0.4, -0.3}, 2.0);
    EXPECT_NEAR(m.variance(), 4.0 * (1 + 0.16 + 0.09), 1e-13);
    EXPECT_NEAR(m.autocovariance(1), 4.0 * (0.4 + 0.4 * -0.3), 1e-13);
    EXPECT_NEAR(m.autocovariance(2), 4.0 * -0.3, 1e-13);
    EXPECT_EQ(m.autocovariance(3), 0.0);
    EXPECT_NEAR(m.mean_variance_constant(3),
                test::dense_mean_variance(test::dense_toeplitz(m.autocovariance_vector(3)), 3),
                1e-12);
  }
}

namespace {
// Covariance of an ARMA path of length n, exactly: the path is affine in the normals, so
// filter(e_j) − filter(0) is column j of the linear map and the covariance is the columns' Gram
// matrix (μ = 0 in these tests, so filter(0) = 0).
std::vector<std::vector<double>> path_covariance(const arma& m, std::size_t n) {
  const std::size_t k = m.normals_needed(n);
  std::vector<std::vector<double>> cols;
  for (std::size_t j = 0; j < k; ++j) {
    std::vector<double> z(k, 0.0), out(n);
    z[j] = 1.0;
    m.filter(z, out);
    cols.push_back(out);
  }
  std::vector<std::vector<double>> c(n, std::vector<double>(n, 0.0));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      for (auto& col : cols) c[a][b] += col[a] * col[b];
  return c;
}
}  // namespace

TEST(Models, ArmaFilterIsLinearInNormals) {
  // The path is affine in the normals: filter(e_j) − filter(0) is column j of the linear map,
  // and for the start block it equals the Cholesky factor's column, whose Gram matrix is the
  // start covariance; check that Cov(X_0..X_{p−1}) = γ.
  arma m({{0.5, -0.25}, {0.3}, 0.0, 1.0});
  const auto cov = path_covariance(m, 2);
  EXPECT_NEAR(cov[0][0], m.autocovariance(0), 1e-12);
  EXPECT_NEAR(cov[0][1], m.autocovariance(1), 1e-12);
  EXPECT_NEAR(cov[1][1], m.autocovariance(0), 1e-12);
  // Beyond the start: n = 6 path covariance equals Toeplitz γ (affine map, exact).
  const std::size_t n2 = 6;
  const auto c2 = path_covariance(m, n2);
  for (std::size_t a = 0; a < n2; ++a)
    for (std::size_t b = 0; b < n2; ++b)
      EXPECT_NEAR(c2[a][b], m.autocovariance(a > b ? a - b : b - a), 1e-12) << a << "," << b;
}

TEST(Models, Ar1FilterCovarianceIsExact) {
  ar1 m({-0.6, 0.0, 0.8});
  const std::size_t n = 5;
  std::vector<std::vector<double>> cols;
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<double> z(n, 0.0);
    z[j] = 1.0;
    m.filter_inplace(z);
    cols.push_back(z);
  }
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      double s = 0.0;
      for (auto& c : cols) s += c[a] * c[b];
      EXPECT_NEAR(s, m.autocovariance(a > b ? a - b : b - a), 1e-13);
    }
}

namespace {
var1 make_var() {
  var1_options o;
  o.a = xt::xtensor<double, 2>::from_shape({3, 3});
  o.sigma_e = xt::xtensor<double, 2>::from_shape({3, 3});
  const double a[9] = {0.5, 0.2, 0.0, -0.3, 0.4, 0.1, 0.0, 0.25, 0.6};
  const double s[9] = {1.0, 0.2, 0.1, 0.2, 0.8, -0.1, 0.1, -0.1, 0.5};
  std::copy(a, a + 9, o.a.begin());
  std::copy(s, s + 9, o.sigma_e.begin());
  o.mu = {1.0, -1.0, 0.5};
  return var1(o);
}
}  // namespace

TEST(Models, Var1LyapunovMatchesKroneckerSolve) {
  const var1 v = make_var();
  const auto& a = v.options().a;
  const auto& se = v.options().sigma_e;
  const auto& g = v.stationary_covariance();
  const std::size_t d = 3;
  // Residual of Γ = AΓAᵀ + Σ_e.
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) {
      double s = se(i, j);
      for (std::size_t k = 0; k < d; ++k)
        for (std::size_t l = 0; l < d; ++l) s += a(i, k) * g(k, l) * a(j, l);
      EXPECT_NEAR(g(i, j), s, 1e-13);
    }
  // (I − A⊗A) vec Γ = vec Σ_e by dense solve.
  xt::xtensor<double, 2> k = xt::zeros<double>({d * d, d * d});
  xt::xtensor<double, 1> rhs = xt::zeros<double>({d * d});
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) {
      rhs(i * d + j) = se(i, j);
      for (std::size_t p = 0; p < d; ++p)
        for (std::size_t q = 0; q < d; ++q)
          k(i * d + j, p * d + q) = (i == p && j == q ? 1.0 : 0.0) - a(i, p) * a(j, q);
    }
  const xt::xtensor<double, 1> sol = xt::linalg::solve(k, rhs);
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) EXPECT_NEAR(g(i, j), sol(i * d + j), 1e-12);
  // Γ(1) = AΓ0.
  const auto g1 = v.autocovariance(1);
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) {
      double s = 0.0;
      for (std::size_t l = 0; l < d; ++l) s += a(i, l) * g(l, j);
      EXPECT_NEAR(g1(i, j), s, 1e-13);
    }
  // Long-run variance: (I−A) Ω (I−A)ᵀ = Σ_e.
  const auto om = v.long_run_variance();
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) {
      double s = 0.0;
      for (std::size_t p = 0; p < d; ++p)
        for (std::size_t q = 0; q < d; ++q)
          s += ((i == p) - a(i, p)) * om(p, q) * ((j == q) - a(j, q));
      EXPECT_NEAR(s, se(i, j), 1e-12);
    }
}

TEST(Models, SamplersAreDeterministicAndBulkEqualsScalar) {
  // Kernels against libm.
  for (double x : {1e-300, 2.2e-16, 1e-5, 0.3, 0.5, 0.7071, 0.9999999, 1.0 - 1e-16}) {
    EXPECT_NEAR(detail::log_kernel(x), std::log(x), 4.5e-16 * std::abs(std::log(x))) << x;
  }
  dpx::rng::philox4x32 gk(99);
  for (int i = 0; i < 100000; ++i) {
    const double u = gk.uniform01();
    double s, c;
    detail::sincos_2pi_kernel(u, s, c);
    // Reference in long double: 2πu in double would itself be off by up to 7e-16.
    ASSERT_NEAR(s, double(std::sin(2.0L * std::numbers::pi_v<long double> * u)), 2.5e-16) << u;
    ASSERT_NEAR(c, double(std::cos(2.0L * std::numbers::pi_v<long double> * u)), 2.5e-16) << u;
    const double x = gk.uniform_open01();
    ASSERT_NEAR(detail::log_kernel(x), std::log(x), 4.5e-16 * std::abs(std::log(x)) + 1e-300) << x;
  }
  // Bulk fill of 9 values: pairs (u[i], u[4+i]) then the odd last one with one extra uniform.
  dpx::rng::philox4x32 g1(11), g2(11);
  std::vector<double> bulk(9);
  fill_standard_normal(g1, bulk);
  std::vector<double> u(10);
  for (auto& v : u) v = dpx::rng::uniform_open01(g2);
  for (std::size_t i = 0; i < 4; ++i) {
    double z1, z2;
    detail::box_muller_pair(u[i], u[4 + i], z1, z2);
    EXPECT_EQ(bulk[i], z1);
    EXPECT_EQ(bulk[4 + i], z2);
    const double r = std::sqrt(-2 * std::log(u[i]));
    EXPECT_NEAR(z1, r * std::cos(2 * std::numbers::pi * u[4 + i]), 1e-14);
  }
  double z1, z2;
  detail::box_muller_pair(u[8], u[9], z1, z2);
  EXPECT_EQ(bulk[8], z1);
  EXPECT_EQ(g1(), g2());  // same number of uniforms consumed
  dpx::rng::philox4x32 g3(12), g4(12);
  double a1, a2;
  const double s0 = standard_normal(g3);
  const double v1 = dpx::rng::uniform_open01(g4), v2 = dpx::rng::uniform_open01(g4);
  detail::box_muller_pair(v1, v2, a1, a2);
  EXPECT_EQ(s0, a1);
  auto a = dpx::rng::stream(5, 9, 1, dpx::rng::purpose::data);
  auto b = dpx::rng::stream(5, 9, 1, dpx::rng::purpose::data);
  toeplitz t(100, {0.9, 1.0, 0.0});
  const auto x = t.sample(a), y = t.sample(b);
  for (std::size_t i = 0; i < 100; ++i) EXPECT_EQ(x(i), y(i));
  arma m({{0.3}, {0.2}, 0.0, 1.0});
  const auto p = m.sample(50, a), q = m.sample(50, b);
  for (std::size_t i = 0; i < 50; ++i) EXPECT_EQ(p(i), q(i));
}

TEST(Models, PanelLayoutAndGroups) {
  panel p(3, 4, 2);
  for (std::size_t u = 0; u < 3; ++u)
    for (std::size_t t = 0; t < 4; ++t)
      for (std::size_t j = 0; j < 2; ++j) p(u, t, j) = 100.0 * u + 10.0 * t + j;
  EXPECT_EQ(p.user(1)[0], 100.0);
  EXPECT_EQ(p.user(1)[3], 111.0);
  const auto m = p.user_means();
  EXPECT_DOUBLE_EQ(m[2 * 2 + 1], 200.0 + 15.0 + 1.0);
  random_effects_options o;
  o.group_sizes = {2, 3, 1};
  random_effects r(o);
  EXPECT_EQ(r.users(), 6u);
  EXPECT_EQ(r.group_of(0), 0u);
  EXPECT_EQ(r.group_of(2), 1u);
  EXPECT_EQ(r.group_of(5), 2u);
  dpx::rng::philox4x32 g(1);
  const panel y = r.sample(g);
  EXPECT_EQ(y.users(), 6u);
  EXPECT_EQ(y.times(), o.times);
}

TEST(Models, LongitudinalDesign) {
  longitudinal_options o;
  o.users = 20;
  o.times = 8;
  o.p = 4;
  o.sigma = 1e-9;  // (nearly) noiseless: Y = Xβ
  o.phi = 0.0;
  o.beta = {1.0, -2.0, 0.5, 3.0};
  longitudinal l(o);
  dpx::rng::philox4x32 g(4);
  const auto s = l.sample(g);
  for (std::size_t u = 0; u < 20; ++u)
    for (std::size_t t = 0; t < 8; ++t) {
      EXPECT_EQ(s.x(u, t, 0), 1.0);
      EXPECT_DOUBLE_EQ(s.x(u, t, 1), (t + 1) / 8.0);
      double y = 0.0;
      for (std::size_t j = 0; j < 4; ++j) y += s.x(u, t, j) * o.beta[j];
      EXPECT_NEAR(s.y(u, t), y, 1e-7);
    }
  const auto b = longitudinal::bounds(s.x);
  EXPECT_GT(b.theta_lo, 0.0);
  EXPECT_GE(b.theta_hi, b.theta_lo);
  // θ_hi ≥ the (1,1) entry's Rayleigh quotient = 1.
  EXPECT_GE(b.theta_hi, 1.0);
}

TEST(Models, TestFunctionConstants) {
  for (auto k : {test_function::kind::sine, test_function::kind::vee, test_function::kind::bump}) {
    test_function f{k, -1.5, 2.0};
    double lip = 0.0, sup = 0.0;
    const int m = 200000;
    for (int i = 0; i <= m; ++i) {
      const double x = double(i) / m;
      sup = std::max(sup, std::abs(f(x)));
      if (i > 0) lip = std::max(lip, std::abs(f(x) - f(x - 1.0 / m)) * m);
    }
    EXPECT_NEAR(sup, f.sup_norm(), 1e-6);
    EXPECT_NEAR(lip, f.lipschitz(), 1e-3 * f.lipschitz());
    EXPECT_EQ(test_function::parse(test_function::name(k)), k);
  }
}

TEST(Models, ErmDesigns) {
  erm_options o;
  o.n = 500;
  o.n_test = 100;
  o.d = 30;
  o.k = 4;
  o.signal = 0.7;
  o.scaling = row_scaling::clip;
  sparse_linear lin(o);
  dpx::rng::philox4x32 g(8);
  const auto s = lin.sample(g);
  EXPECT_EQ(s.support.size(), 4u);
  int nz = 0;
  for (std::size_t j = 0; j < 30; ++j)
    if (s.beta(j) != 0.0) {
      ++nz;
      EXPECT_EQ(std::abs(s.beta(j)), 0.7);
    }
  EXPECT_EQ(nz, 4);
  EXPECT_EQ(s.x_train.shape()[0], 500u);
  EXPECT_EQ(s.x_test.shape()[0], 100u);
  for (std::size_t i = 0; i < 500; ++i) {
    double r = 0.0;
    for (std::size_t j = 0; j < 30; ++j) r += s.x_train(i, j) * s.x_train(i, j);
    EXPECT_LE(r, 1.0 + 1e-12);
  }
  o.scaling = row_scaling::normalize;
  o.labels = label_encoding::zero_one;
  sparse_logistic lg(o);
  const auto t = lg.sample(g);
  for (std::size_t i = 0; i < 500; ++i) {
    double r = 0.0;
    for (std::size_t j = 0; j < 30; ++j) r += t.x_train(i, j) * t.x_train(i, j);
    EXPECT_NEAR(r, 1.0, 1e-12);
    EXPECT_TRUE(t.y_train(i) == 0.0 || t.y_train(i) == 1.0);
  }
  const auto c = lin.feature_covariance();
  EXPECT_NEAR(c(3, 7), std::pow(0.5, 4), 1e-15);
  std::vector<double> cv(c.begin(), c.end());
  const auto ev = test::jacobi_eigenvalues(cv, 30);
  EXPECT_NEAR(lin.feature_lambda_max(), ev.back(), 1e-12);
  EXPECT_NEAR(lin.feature_lambda_min(), ev.front(), 1e-12);
  EXPECT_LT(ev.back(), (1 + 0.5) / (1 - 0.5));
}

// AR and MA factors that cancel make the start block's covariance singular (X_0 = e_0 for
// φ = 0.5, θ = −0.5). The model is still a valid stationary process: a semidefinite factor is
// used, and the path covariance (from the affine map's columns, exact) equals that of the
// reduced model: white noise σ² I, and for (1 − 0.5B)(1 − 0.3B) X = (1 − 0.5B) e the AR(1)
// with φ = 0.3, σ² 0.3^|h| / (1 − 0.09).
TEST(Models, ArmaWithCancellingFactorsIsTheReducedModel) {
  struct reduced {
    arma_options o;
    double phi;  // of the equivalent AR(1) (0: white noise)
  };
  for (const auto& c :
       {reduced{{{0.5}, {-0.5}, 0.0, 2.0}, 0.0}, reduced{{{0.8, -0.15}, {-0.5}, 0.0, 1.5}, 0.3}}) {
    const arma m(c.o);
    const double s2 = c.o.innovation_sd * c.o.innovation_sd;
    const std::size_t n = 6;
    const auto cov = path_covariance(m, n);
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b) {
        const double h = double(a > b ? a - b : b - a);
        const double want = s2 * std::pow(c.phi, h) / (1.0 - c.phi * c.phi);
        EXPECT_NEAR(cov[a][b], want, 1e-12 * s2) << c.phi << " " << a << " " << b;
        EXPECT_NEAR(m.autocovariance(std::size_t(h)), want, 1e-12 * s2);
      }
  }
}
