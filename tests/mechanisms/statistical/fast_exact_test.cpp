// Properties checked (fast exact samplers of detail/fast_exact.hpp; fixed seeds, 10^5 draws,
// false-positive rate 1e-6 per test as in stat_util.hpp):
//  * fast Bernoulli(exp(-gamma)) for gamma in {1/3, 1, 27/10}: |z| < 5.33, and rejection of
//    exp(-1.1 gamma) and exp(-0.9 gamma) (power);
//  * fast discrete Laplace, scales 1.5 (3/2), 100 (100/1) and 1000.5 (2001/2): Pearson
//    chi-square against the exact pmf; scales x1.1 and x0.9 rejected by the same test;
//  * fast discrete Laplace at scale 3 2^20 + 7 (the float-safe regime): KS (DKW bound, valid
//    for discrete laws) against the exact CDF; x1.1 and x0.9 rejected;
//  * fast discrete Gaussian, sigma^2 = 90150.0625 (sigma = 300.25): chi-square against the
//    exact pmf; sigma x1.1 and x0.9 rejected.
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/detail/fast_exact.hpp"
#include "dpx/mechanisms/discrete.hpp"
#include "stat_util.hpp"

namespace {

using namespace dpx;
using namespace dpx::mechanisms;
constexpr std::size_t n_draws = 100000;

double fast_bernoulli_z(std::uint64_t num, std::uint64_t den, double p, std::uint64_t seed) {
  auto g = rng::stream(seed, 0, 0, rng::purpose::noise);
  detail::pooled_words<rng::philox4x32> w(g);
  const double approx = std::exp(-static_cast<double>(num) / static_cast<double>(den));
  double hits = 0;
  for (std::size_t i = 0; i < n_draws; ++i)
    hits += detail::bernoulli_exp_neg_fast(w, approx, num, den) ? 1 : 0;
  const double n = static_cast<double>(n_draws);
  return (hits - n * p) / std::sqrt(n * p * (1 - p));
}

TEST(FastExact, BernoulliExpNeg) {
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> gammas = {{1, 3}, {1, 1}, {27, 10}};
  std::uint64_t seed = 700;
  for (auto [num, den] : gammas) {
    const double gamma = static_cast<double>(num) / static_cast<double>(den);
    EXPECT_LT(std::fabs(fast_bernoulli_z(num, den, std::exp(-gamma), seed++)), 5.33) << gamma;
    EXPECT_GT(std::fabs(fast_bernoulli_z(num, den, std::exp(-1.1 * gamma), seed++)), 5.33);
    EXPECT_GT(std::fabs(fast_bernoulli_z(num, den, std::exp(-0.9 * gamma), seed++)), 5.33);
  }
}

std::vector<std::int64_t> laplace_draws(std::uint64_t s, std::uint64_t t, std::uint64_t seed) {
  auto g = rng::stream(seed, 0, 0, rng::purpose::noise);
  std::vector<std::int64_t> x(n_draws);
  detail::fill_discrete_laplace_fast(g, detail::geometric_law::of(s, t), x);
  return x;
}

TEST(FastExact, DiscreteLaplaceChiSquare) {
  struct scale {
    std::uint64_t t, s;
  };
  std::uint64_t seed = 800;
  for (const scale sc : {scale{3, 2}, scale{100, 1}, scale{2001, 2}}) {
    const auto dl = discrete_laplace::from_rational_scale(sc.t, sc.s);
    const auto pmf = [&](std::int64_t z) { return dl.pmf(z); };
    const auto lim = static_cast<std::int64_t>(8.0 * dl.scale()) + 2;
    EXPECT_TRUE(test::chi_square(laplace_draws(sc.s, sc.t, seed++), pmf, -lim, lim).accepts())
        << dl.scale();
    // Power: +-10% scale (t/s -> 11t/10s and 9t/10s).
    EXPECT_FALSE(
        test::chi_square(laplace_draws(10 * sc.s, 11 * sc.t, seed++), pmf, -lim, lim).accepts());
    EXPECT_FALSE(
        test::chi_square(laplace_draws(10 * sc.s, 9 * sc.t, seed++), pmf, -lim, lim).accepts());
  }
}

/// Exact CDF of the discrete Laplace with ratio r = exp(-s/t): P(Z <= z).
double dlap_cdf(double z, double r) {
  const double k = std::floor(z);
  if (k >= 0) return 1.0 - std::pow(r, k + 1) / (1.0 + r);
  return std::pow(r, -k) / (1.0 + r);
}

TEST(FastExact, DiscreteLaplaceLargeScaleKs) {
  const std::uint64_t t = 3 * (1ull << 20) + 7;
  const double r = std::exp(-1.0 / static_cast<double>(t));
  const auto cdf = [&](double z) { return dlap_cdf(z, r); };
  const auto as_double = [](const std::vector<std::int64_t>& v) {
    return std::vector<double>(v.begin(), v.end());
  };
  EXPECT_TRUE(test::ks_accepts(as_double(laplace_draws(1, t, 900)), cdf));
  EXPECT_FALSE(test::ks_accepts(as_double(laplace_draws(1, t + t / 10, 901)), cdf));
  EXPECT_FALSE(test::ks_accepts(as_double(laplace_draws(1, t - t / 10, 902)), cdf));
}

std::vector<std::int64_t> gaussian_draws(const discrete_gaussian& dg, std::uint64_t seed) {
  auto g = rng::stream(seed, 0, 0, rng::purpose::noise);
  std::vector<std::int64_t> x(n_draws);
  detail::fill_discrete_gaussian_fast(
      g, detail::gaussian_law::of(dg.variance_numerator(), dg.variance_denominator()), x);
  return x;
}

TEST(FastExact, DiscreteGaussianChiSquare) {
  const double sigma = 300.25;
  const auto dg = discrete_gaussian::from_sigma(sigma);
  const auto pmf = [&](std::int64_t z) { return dg.pmf(z); };
  const auto lim = static_cast<std::int64_t>(6 * sigma);
  EXPECT_TRUE(test::chi_square(gaussian_draws(dg, 1000), pmf, -lim, lim).accepts());
  EXPECT_FALSE(test::chi_square(
                   gaussian_draws(discrete_gaussian::from_sigma(1.1 * sigma), 1001), pmf, -lim, lim)
                   .accepts());
  EXPECT_FALSE(test::chi_square(
                   gaussian_draws(discrete_gaussian::from_sigma(0.9 * sigma), 1002), pmf, -lim, lim)
                   .accepts());
}

}  // namespace
