// Bad parameters throw core::invalid_argument_error naming the parameter:
// |φ| ≥ 1 and NaN (ar1, ar1_t, toeplitz, random effects), non-stationary AR(p), negative or zero
// variances / scales, T < p in longitudinal regression, non-positive-definite covariances
// (stationary_gaussian autocovariance, VAR(1) Σ_e), VAR(1) with spectral radius ≥ 1, k > d,
// Hurst outside (0,1), equicorrelation outside [0,1), bad test functions.
#include <gtest/gtest.h>

#include <limits>

#include "dpx/core/error.hpp"
#include "dpx/data/data.hpp"

using namespace dpx::data;
using dpx::core::invalid_argument_error;

namespace {
template <class F>
void expect_names(F&& f, const std::string& parameter) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one naming " << parameter;
  } catch (const invalid_argument_error& e) {
    // Span checks name the element ("phi[1]"), size checks the size ("beta.size()").
    EXPECT_EQ(e.parameter().rfind(parameter, 0), 0u) << e.parameter() << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(parameter), std::string::npos) << e.what();
  }
}
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST(Validation, ArCoefficients) {
  expect_names([] { ar1({1.0}); }, "phi");
  expect_names([] { ar1({-1.0}); }, "phi");
  expect_names([] { ar1({kNaN}); }, "phi");
  expect_names([] { ar1({0.5, 0.0, -1.0}); }, "innovation_sd");
  expect_names([] { ar1_t({1.2}); }, "phi");
  expect_names([] { ar1_t({0.5, 0.0, 1.0, 0.0}); }, "nu");
  expect_names([] { arma::ar({0.8, 0.3}); }, "phi");   // φ1+φ2 > 1: not causal
  expect_names([] { arma::ar({0.0, -1.0}); }, "phi");  // root on the unit circle
  expect_names([] { arma::ar({0.5, kNaN}); }, "phi");
  expect_names([] { arma::ma({0.5, std::numeric_limits<double>::infinity()}); }, "theta");
  EXPECT_NO_THROW(arma::ar({0.5, 0.3}));
  EXPECT_NO_THROW(arma::ar({1.8, -0.9}));  // complex roots, modulus 1/sqrt(0.9)
}

TEST(Validation, NegativeVariances) {
  expect_names([] { iid_gaussian({0.0, -1.0}); }, "sd");
  expect_names([] { iid_student_t({5.0, 0.0, 0.0}); }, "scale");
  expect_names([] { iid_uniform({1.0, 1.0}); }, "hi");
  expect_names([] { iid_beta({-1.0, 1.0}); }, "a");
  expect_names([] { toeplitz(10, {0.5, -2.0}); }, "variance");
  expect_names([] { toeplitz(10, {1.5, 1.0}); }, "rho");
  expect_names([] { fgn(10, {1.0, 1.0}); }, "hurst");
  expect_names([] { equicorrelated({-0.1, 1.0}); }, "correlation");
  expect_names([] { equicorrelated({1.0, 1.0}); }, "correlation");
  random_effects_options r;
  r.sigma_u = -1.0;
  expect_names([&] { random_effects{r}; }, "sigma_u");
  r.sigma_u = 1.0;
  r.phi = 1.0;
  expect_names([&] { random_effects{r}; }, "phi");
  r.phi = 0.0;
  r.group_sizes = {};
  expect_names([&] { random_effects{r}; }, "groups");
  nonparametric_options np;
  np.noise_sd = 0.0;
  expect_names([&] { nonparametric{np}; }, "noise_sd");
  np.noise_sd = 1.0;
  np.f.frequency = 1.5;
  expect_names([&] { nonparametric{np}; }, "frequency");
}

TEST(Validation, RegressionNeedsTAtLeastP) {
  longitudinal_options o;
  o.p = 5;
  o.times = 4;
  expect_names([&] { longitudinal{o}; }, "times");
  o.times = 5;
  EXPECT_NO_THROW(longitudinal{o});
  o.beta = {1.0, 2.0};
  expect_names([&] { longitudinal{o}; }, "beta.size()");
  erm_options e;
  e.d = 3;
  e.k = 4;
  expect_names([&] { sparse_linear{e}; }, "k");
}

TEST(Validation, NonPositiveDefiniteCovariances) {
  // γ = (1, 2): |γ(1)| > γ(0) is no covariance.
  expect_names([] { stationary_gaussian({1.0, 2.0}); }, "autocovariance");
  expect_names([] { stationary_gaussian({-1.0, 0.0}); }, "autocovariance");
  stationary_gaussian_options c;
  c.method = sampling_method::cholesky;
  expect_names(
      [&] {
        stationary_gaussian({1.0, 1.0, 1.0, 1.0}, c);
      },
      "autocovariance");  // singular
  var1_options v;
  v.a = xt::zeros<double>({2, 2});
  v.sigma_e = xt::zeros<double>({2, 2});
  v.sigma_e(0, 0) = 1.0;
  v.sigma_e(1, 1) = 1.0;
  v.sigma_e(0, 1) = v.sigma_e(1, 0) = 1.5;
  expect_names([&] { var1{v}; }, "sigma_e");
  v.sigma_e(0, 1) = v.sigma_e(1, 0) = 0.0;
  v.a(0, 0) = 1.0;  // unit root
  expect_names([&] { var1{v}; }, "a");
  v.a(0, 0) = 0.9;
  v.a(0, 1) = 5.0;  // non-normal but eigenvalues 0.9, 0: stationary
  EXPECT_NO_THROW(var1{v});
  v.a(1, 0) = 0.5;  // eigenvalues of [[0.9,5],[0.5,0]] have modulus > 1
  expect_names([&] { var1{v}; }, "a");
}
