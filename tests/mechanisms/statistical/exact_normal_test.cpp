// Laws of Karney's exact normal and of the exactly rounded Gaussian (detail/exact_normal.hpp,
// rounded_gaussian.hpp) against Boost.Math's normal CDF. False-positive rate per check: 1e-6
// (stat_util.hpp); every law check has a power check that must reject a nearby wrong law.
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>
#include <boost/math/distributions/normal.hpp>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/detail/exact_normal.hpp"
#include "dpx/mechanisms/discrete.hpp"
#include "dpx/mechanisms/rounded_gaussian.hpp"
#include "stat_util.hpp"

namespace {
namespace det = dpx::mechanisms::detail;
constexpr std::size_t kDraws = 200000;

double phi(double x) { return boost::math::cdf(boost::math::normal_distribution<double>(), x); }

TEST(ExactNormal, StandardNormalByKs) {
  // N = s (k + x) with x to its first 53 digits (the midpoint of the remaining interval).
  dpx::rng::philox4x32 g(31);
  std::vector<double> x(kDraws);
  det::exact_normal n;
  for (double& v : x) {
    det::draw_exact_normal(g, n);
    const double u = (static_cast<double>(n.x.word(0, g) >> 11) + 0.5) * 0x1p-53;
    v = (n.negative ? -1.0 : 1.0) * (static_cast<double>(n.k) + u);
  }
  EXPECT_TRUE(dpx::test::ks_accepts(x, phi));
  // Power: sd 1.05 and a shift of 0.02 are rejected.
  EXPECT_FALSE(dpx::test::ks_accepts(x, [](double v) { return phi(v / 1.05); }));
  EXPECT_FALSE(dpx::test::ks_accepts(x, [](double v) { return phi(v - 0.02); }));
}

// P(round(t + a N) = j) = Phi((j + 1/2 - t)/a) - Phi((j - 1/2 - t)/a).
double rounded_pmf(std::int64_t j, double t, double a) {
  const double hi = (static_cast<double>(j) + 0.5 - t) / a,
               lo = (static_cast<double>(j) - 0.5 - t) / a;
  // Upper tail for accuracy on the right.
  return lo > 0 ? phi(-lo) - phi(-hi) : phi(hi) - phi(lo);
}

std::vector<std::int64_t> rounded_draws(double t, double a, std::uint32_t seed) {
  dpx::rng::philox4x32 g(seed);
  det::exact_normal n;
  std::vector<std::int64_t> out(kDraws);
  for (auto& j : out) {
    det::draw_exact_normal(g, n);
    j = det::round_normal(t, a, n, g);
  }
  return out;
}

TEST(ExactNormal, RoundedLawByChiSquare) {
  struct cell {
    double t, a;
  };
  std::uint32_t seed = 40;
  for (const cell c : {cell{0.3, 0.7},
                       cell{-2.25, 1.5},
                       cell{0.5, 0.1},
                       cell{1e6 + 0.25, 3.3},
                       cell{-0.5, 4096.5}}) {
    const auto x = rounded_draws(c.t, c.a, seed++);
    const auto lo = static_cast<std::int64_t>(std::floor(c.t - 6 * c.a)) - 1;
    const auto hi = static_cast<std::int64_t>(std::ceil(c.t + 6 * c.a)) + 1;
    const auto r = dpx::test::chi_square(
        x, [&](std::int64_t j) { return rounded_pmf(j, c.t, c.a); }, lo, hi);
    EXPECT_TRUE(r.accepts()) << "t " << c.t << " a " << c.a << ": " << r.statistic << " > "
                             << r.critical;
  }
  // Power: at t = 0, a = 0.7 the rounded law is not CKS20's discrete Gaussian of the same sigma
  // (the noise of float_safe_gaussian); at t = 0.3 a shift of t by 0.05 is seen.
  const auto z = rounded_draws(0.0, 0.7, 50);
  const auto dg = dpx::mechanisms::discrete_gaussian::from_sigma(0.7, 1.0);
  EXPECT_TRUE(dpx::test::chi_square(
                  z, [&](std::int64_t j) { return rounded_pmf(j, 0.0, 0.7); }, -6, 6)
                  .accepts());
  EXPECT_FALSE(dpx::test::chi_square(
                   z, [&](std::int64_t j) { return dg.pmf(j); }, -6, 6)
                   .accepts());
  const auto x = rounded_draws(0.3, 0.7, 51);
  EXPECT_FALSE(dpx::test::chi_square(
                   x, [&](std::int64_t j) { return rounded_pmf(j, 0.35, 0.7); }, -6, 6)
                   .accepts());
}

TEST(RoundedGaussian, ReleaseIsTheRoundedContinuousGaussian) {
  // granularity_bits 0: sigma / Lambda in [1, 2), where rounding is visible.
  const auto m = dpx::mechanisms::rounded_gaussian::from_sigma(
      1.5, 1.0, dpx::core::neighbouring::replace_one, 0);
  ASSERT_EQ(m.granularity(), 1.0);
  dpx::rng::philox4x32 g(60);
  std::vector<std::int64_t> x(kDraws);
  for (auto& j : x) j = static_cast<std::int64_t>(m.release(0.4, g));
  EXPECT_TRUE(dpx::test::chi_square(
                  x, [](std::int64_t j) { return rounded_pmf(j, 0.4, 1.5); }, -9, 9)
                  .accepts());
  EXPECT_FALSE(dpx::test::chi_square(
                   x, [](std::int64_t j) { return rounded_pmf(j, 0.4, 1.6); }, -9, 9)
                   .accepts());
}

}  // namespace
