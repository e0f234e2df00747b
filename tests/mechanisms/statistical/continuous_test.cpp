// Properties checked (distribution of the continuous-valued samplers, fixed seeds):
//  * Research-grade Laplace (scalar sample() and vector fill()) and Gaussian (scalar and
//    vector, both Box–Muller halves) pass a one-sample KS test against Boost.Math's laplace /
//    normal CDF with 10^5 draws. False-positive rate <= 1e-6 per test (DKW–Massart bound).
//  * Power, both directions: the SAME test rejects the same sampler run with its scale off by
//    +10% and by -10% (separate draws at 1.1 b and 0.9 b tested against the nominal CDF).
//  * Float-safe Laplace and Gaussian (exact discrete noise on a grid of 2^-20 b / 2^-12 sigma)
//    pass the same KS test against the continuous law with their effective scale (the grid
//    moves the CDF by at most half a grid step, ~1e-4 of the KS critical value) and fail it
//    at +-10%.
//  * The L2-calibrated Laplace draws Lap(b) per coordinate; its draws are rejected against
//    Lap(1.1 b) and Lap(0.9 b).
#include <cmath>
#include <vector>

#include <gtest/gtest.h>
#include <boost/math/distributions/laplace.hpp>
#include <boost/math/distributions/normal.hpp>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/float_safe.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/l2_laplace.hpp"
#include "dpx/mechanisms/laplace.hpp"
#include "stat_util.hpp"

namespace {

using namespace dpx;
using namespace dpx::mechanisms;
constexpr std::size_t n_draws = 100000;

auto laplace_cdf(double b) {
  return [d = boost::math::laplace_distribution<double>(0.0, b)](double x) { return cdf(d, x); };
}
auto normal_cdf(double s) {
  return [d = boost::math::normal_distribution<double>(0.0, s)](double x) { return cdf(d, x); };
}

template <class M>
std::vector<double> scalar_draws(const M& m, std::uint64_t seed) {
  auto g = rng::stream(seed, 0, 0, rng::purpose::noise);
  std::vector<double> x(n_draws);
  for (double& v : x) v = m.sample(g);
  return x;
}
template <class M>
std::vector<double> vector_draws(const M& m, std::uint64_t seed) {
  auto g = rng::stream(seed, 0, 0, rng::purpose::noise);
  std::vector<double> x(n_draws);
  m.fill(x, g);
  return x;
}

TEST(Continuous, LaplaceScalarAndVector) {
  const double b = 2.5;
  const auto cdf = laplace_cdf(b);
  EXPECT_TRUE(test::ks_accepts(scalar_draws(laplace::from_scale(b), 1), cdf));
  EXPECT_TRUE(test::ks_accepts(vector_draws(laplace::from_scale(b), 2), cdf));
  // privatize adds the same law.
  auto g = rng::stream(3, 0, 0, rng::purpose::noise);
  std::vector<double> v(n_draws, 4.0);
  laplace::from_scale(b).privatize(v, g);
  for (double& x : v) x -= 4.0;
  EXPECT_TRUE(test::ks_accepts(v, cdf));
}

TEST(Continuous, LaplacePowerBothDirections) {
  const double b = 2.5;
  const auto cdf = laplace_cdf(b);
  EXPECT_FALSE(test::ks_accepts(scalar_draws(laplace::from_scale(1.1 * b), 4), cdf));
  EXPECT_FALSE(test::ks_accepts(scalar_draws(laplace::from_scale(0.9 * b), 5), cdf));
  EXPECT_FALSE(test::ks_accepts(vector_draws(laplace::from_scale(1.1 * b), 6), cdf));
  EXPECT_FALSE(test::ks_accepts(vector_draws(laplace::from_scale(0.9 * b), 7), cdf));
}

TEST(Continuous, GaussianScalarAndVector) {
  const double s = 0.7;
  const auto cdf = normal_cdf(s);
  EXPECT_TRUE(test::ks_accepts(scalar_draws(gaussian::from_sigma(s), 8), cdf));
  const auto v = vector_draws(gaussian::from_sigma(s), 9);
  EXPECT_TRUE(test::ks_accepts(v, cdf));
  // Each Box–Muller half separately (first and second half of each 512-chunk).
  std::vector<double> cos_half, sin_half;
  for (std::size_t i = 0; i < v.size(); ++i)
    ((i % 512) < 256 ? cos_half : sin_half).push_back(v[i]);
  EXPECT_TRUE(test::ks_accepts(cos_half, cdf));
  EXPECT_TRUE(test::ks_accepts(sin_half, cdf));
}

TEST(Continuous, GaussianPowerBothDirections) {
  const double s = 0.7;
  const auto cdf = normal_cdf(s);
  EXPECT_FALSE(test::ks_accepts(scalar_draws(gaussian::from_sigma(1.1 * s), 10), cdf));
  EXPECT_FALSE(test::ks_accepts(scalar_draws(gaussian::from_sigma(0.9 * s), 11), cdf));
  EXPECT_FALSE(test::ks_accepts(vector_draws(gaussian::from_sigma(1.1 * s), 12), cdf));
  EXPECT_FALSE(test::ks_accepts(vector_draws(gaussian::from_sigma(0.9 * s), 13), cdf));
}

TEST(Continuous, FloatSafeLaplace) {
  const auto fs = float_safe_laplace::calibrate(0.5, 1.0);  // b = 2
  const auto cdf = laplace_cdf(fs.scale());
  EXPECT_TRUE(test::ks_accepts(scalar_draws(fs, 14), cdf));
  EXPECT_TRUE(test::ks_accepts(vector_draws(fs, 15), cdf));
  EXPECT_FALSE(
      test::ks_accepts(vector_draws(float_safe_laplace::calibrate(0.5 / 1.1, 1.0), 16), cdf));
  EXPECT_FALSE(
      test::ks_accepts(vector_draws(float_safe_laplace::calibrate(0.5 / 0.9, 1.0), 17), cdf));
}

TEST(Continuous, FloatSafeGaussian) {
  const auto fs = float_safe_gaussian::from_sigma(1.3, 1.0);
  // Effective sigma of a scalar release: Lambda * sigma_Z (sigma_Z slightly above sigma/Lambda).
  const double eff = fs.granularity() * fs.noise_for_dimension(1).sigma();
  EXPECT_NEAR(eff / 1.3, 1.0, 1e-3);
  const auto cdf = normal_cdf(eff);
  EXPECT_TRUE(test::ks_accepts(scalar_draws(fs, 18), cdf));
  EXPECT_TRUE(test::ks_accepts(vector_draws(fs, 19), cdf));
  EXPECT_FALSE(test::ks_accepts(vector_draws(float_safe_gaussian::from_sigma(1.3 * 1.1), 20), cdf));
  EXPECT_FALSE(test::ks_accepts(vector_draws(float_safe_gaussian::from_sigma(1.3 * 0.9), 21), cdf));
}

TEST(Continuous, L2LaplacePerCoordinate) {
  const auto m = l2_laplace::calibrate(1.0, 1e-6, 1.0);
  const auto draws = vector_draws(m, 22);
  EXPECT_TRUE(test::ks_accepts(draws, laplace_cdf(m.scale())));
  // Power in both directions: the same draws are rejected against scales off by +-10%.
  EXPECT_FALSE(test::ks_accepts(draws, laplace_cdf(1.1 * m.scale())));
  EXPECT_FALSE(test::ks_accepts(draws, laplace_cdf(0.9 * m.scale())));
}

}  // namespace
