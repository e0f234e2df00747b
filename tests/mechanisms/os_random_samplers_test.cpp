// Every sampler runs on rng::os_random, the generator of real releases (they are templates over
// the generator; os_random is a 64-bit URBG without the Philox bulk paths, so the generic word
// paths run). os_random cannot be seeded, so these checks are randomized; each states its
// false-positive rate:
//  * float-safe outputs lie on the grid, integer samplers give integers; draws are not all equal
//    (probability of n equal draws of a law with max pmf p: p^(n-1), below 1e-100 here);
//  * the sample mean of N draws is within 6 standard errors of 0 (sd from the closed-form
//    variance; false-positive rate ~2e-9 each by the central limit theorem). A sampler that
//    ignored the sign bit, or drew from the wrong scale by a factor 2 in the mean, fails it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/discrete.hpp"
#include "dpx/mechanisms/float_safe.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/laplace.hpp"
#include "dpx/mechanisms/randomized_response.hpp"

namespace dpx::mechanisms {
namespace {

constexpr std::size_t kN = 20000;

// |mean| <= 6 sd / sqrt(N) and at least two distinct values.
void expect_centred(std::span<const double> x, double sd) {
  double m = 0;
  for (double v : x) m += v;
  m /= static_cast<double>(x.size());
  EXPECT_LE(std::abs(m), 6 * sd / std::sqrt(static_cast<double>(x.size())));
  EXPECT_GT(std::set<double>(x.begin(), x.end()).size(), 1u);
}

TEST(OsRandomSamplers, FloatSafeLaplaceOnTheGrid) {
  rng::os_random g;
  const auto fs = float_safe_laplace::calibrate(1.0, 1.0);
  std::vector<double> x(kN);
  fs.fill(x, g);
  for (double v : x) ASSERT_EQ(std::fmod(v, fs.granularity()), 0.0);
  expect_centred(x, std::sqrt(2.0) * fs.scale());
  const double r = fs.release(3.0, g);
  EXPECT_EQ(std::fmod(r, fs.granularity()), 0.0);
  std::vector<double> v{1.0, 2.0, 3.0};
  fs.privatize(v, g);
  for (double y : v) EXPECT_TRUE(std::isfinite(y));
}

TEST(OsRandomSamplers, FloatSafeGaussianOnTheGrid) {
  rng::os_random g;
  const auto fs = float_safe_gaussian::from_sigma(2.0);
  std::vector<double> x(kN);
  fs.fill(x, g);
  for (double v : x) ASSERT_EQ(std::fmod(v, fs.granularity()), 0.0);
  expect_centred(x, 2.0 * 1.01);  // the grid law's sigma exceeds 2 by a relative ~2^-12
  EXPECT_TRUE(std::isfinite(fs.release(1.0, g)));
}

TEST(OsRandomSamplers, DiscreteLaplaceAndGaussian) {
  rng::os_random g;
  const auto dl = discrete_laplace::from_scale(5.0);
  std::vector<std::int64_t> z(kN);
  dl.fill(z, g);
  std::vector<double> x(z.begin(), z.end());
  expect_centred(x, std::sqrt(dl.variance()));
  (void)dl.sample(g);
  const auto dg = discrete_gaussian::from_sigma(3.0);
  dg.fill(z, g);
  x.assign(z.begin(), z.end());
  expect_centred(x, 3.0);  // a discrete Gaussian's variance is below sigma^2 (CKS20 Prop. 19)
  (void)dg.sample(g);
}

TEST(OsRandomSamplers, ResearchGradeAndRandomizedResponse) {
  rng::os_random g;
  std::vector<double> x(kN);
  laplace::from_scale(1.0).fill(x, g);
  expect_centred(x, std::sqrt(2.0));
  gaussian::from_sigma(1.0).fill(x, g);
  expect_centred(x, 1.0);
  const auto rr = randomized_response::calibrate(1.0, 3);
  std::set<std::int64_t> seen;
  for (int i = 0; i < 200; ++i) seen.insert(rr.randomize(0, g));
  EXPECT_EQ(seen.size(), 3u);  // P(a category never appears in 200) < 3 (1 - 0.21)^200 ~ 1e-20
}

}  // namespace
}  // namespace dpx::mechanisms
