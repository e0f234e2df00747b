// Properties checked (the block sampler of detail/fast_exact.hpp, the exact discrete Gaussian
// behind float_safe_gaussian for sigma >= 32; fixed seeds, 10^5 draws per test unless stated,
// false-positive rate 1e-6 per test as in stat_util.hpp):
//  * block sampler, sigma in {32 (c = 4, the boundary), 63.9, 4097.0002 (the default float-safe
//    grid), 12345.6}: Pearson chi-square against the EXACT pmf (discrete_gaussian::pmf); sigma
//    x1.1 and x0.9 rejected by the same test (power, both directions);
//  * sigma ~2^20 (granularity 20) and 7.5e6: chi-square on 200 cells of width sigma/20
//    against the normal CDF with continuity correction (for sigma >= 2^10 the exact cell
//    masses differ from it by < 1e-9 absolute: Euler–Maclaurin, |f'| / 12 per cell end, and
//    the discrete normaliser equals sigma sqrt(2 pi) to 1e-800); x1.1 and x0.9 rejected;
//  * the tail bin forced (sigma = 110, c = 32, K = 8, so ~2% of proposals are tail
//    candidates): chi-square against the exact pmf, and the number of draws with |y| >= K c
//    against its exact probability (|z| < 5.33); x1.1 / x0.9 rejected;
//  * the slow path forced (fast_level 0: every acceptance decided in 320-bit arithmetic,
//    10^4 draws, x1.1 / x0.9 rejected) and stage 2 forced (fast_level 1, 10^5 draws): the same
//    chi-square;
//  * below sigma = 32 the dispatch keeps CKS20 Algorithm 3: sigma 0.8, 1, 31.9 (+-10% power)
//    and float-safe grids of granularity 0 and 3 (sigma_Z ~2 and ~17) against the exact pmf;
//  * float_safe_gaussian fill, sample and privatize (d = 10^5, and d = 100 x 1000 calls, which
//    takes the CKS20 path): grid values against the exact pmf of noise_for_dimension(d), with
//    x1.1 / x0.9 power.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>
#include <boost/math/distributions/normal.hpp>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/detail/fast_exact.hpp"
#include "dpx/mechanisms/discrete.hpp"
#include "dpx/mechanisms/float_safe.hpp"
#include "stat_util.hpp"

namespace {

using namespace dpx;
using namespace dpx::mechanisms;
using detail::block_gaussian_law;
constexpr std::size_t n_draws = 100000;

std::vector<std::int64_t> block_draws(const block_gaussian_law& law,
                                      std::uint64_t seed,
                                      std::size_t n = n_draws) {
  auto g = rng::stream(seed, 0, 0, rng::purpose::noise);
  std::vector<std::int64_t> x(n);
  detail::fill_discrete_gaussian_block(g, law, x);
  return x;
}

block_gaussian_law law_of(const discrete_gaussian& dg) {
  return block_gaussian_law::of(dg.variance_numerator(), dg.variance_denominator());
}

/// Draws of dg by the float-safe dispatch (block sampler for sigma >= 32, else CKS20
/// Algorithm 3): the power checks' wrong samplers may fall below 32.
std::vector<std::int64_t> exact_draws(const discrete_gaussian& dg, std::uint64_t seed) {
  auto g = rng::stream(seed, 0, 0, rng::purpose::noise);
  std::vector<std::int64_t> x(n_draws);
  detail::fill_discrete_gaussian_exact(
      g, detail::gaussian_law::of(dg.variance_numerator(), dg.variance_denominator(), true), x);
  return x;
}

bool exact_chi_square_accepts(const std::vector<std::int64_t>& x, const discrete_gaussian& dg) {
  const auto lim = static_cast<std::int64_t>(6 * dg.sigma()) + 1;
  return test::chi_square(
             x, [&](std::int64_t z) { return dg.pmf(z); }, -lim, lim)
      .accepts();
}

TEST(BlockGaussian, ChiSquareAgainstExactPmf) {
  std::uint64_t seed = 3000;
  for (const double sigma : {32.0, 63.9, 4097.0002, 12345.6}) {
    SCOPED_TRACE(sigma);
    const auto dg = discrete_gaussian::from_sigma(sigma);
    ASSERT_TRUE(block_gaussian_law::usable(dg.variance_numerator(), dg.variance_denominator()));
    EXPECT_TRUE(exact_chi_square_accepts(block_draws(law_of(dg), seed++), dg));
    EXPECT_FALSE(exact_chi_square_accepts(
        exact_draws(discrete_gaussian::from_sigma(1.1 * sigma), seed++), dg));
    EXPECT_FALSE(exact_chi_square_accepts(
        exact_draws(discrete_gaussian::from_sigma(0.9 * sigma), seed++), dg));
  }
}

/// Chi-square on cells of width sigma/20 over [-5 sigma, 5 sigma) plus two end cells, expected
/// masses from the normal CDF with continuity correction (see the header comment).
bool binned_chi_square_accepts(const std::vector<std::int64_t>& x, double sigma) {
  const boost::math::normal_distribution<double> nd(0.0, sigma);
  const double w = sigma / 20;
  std::vector<std::int64_t> edges;  // integer cell starts
  for (int i = -100; i <= 100; ++i) edges.push_back(static_cast<std::int64_t>(std::floor(i * w)));
  const std::size_t cells = edges.size() + 1;
  std::vector<double> obs(cells, 0.0), expect(cells, 0.0);
  for (const auto v : x) {
    const auto it = std::upper_bound(edges.begin(), edges.end(), v);
    obs[static_cast<std::size_t>(it - edges.begin())] += 1;
  }
  // Cell i covers [edges[i-1], edges[i] - 1]; cell 0 (-inf, edges[0] - 1], last [edges.back(),
  // inf).
  const auto cdf_below = [&](std::int64_t e) {  // P(Z <= e - 1) = Phi(e - 1/2)
    return boost::math::cdf(nd, static_cast<double>(e) - 0.5);
  };
  double prev = 0.0;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const double c = cdf_below(edges[i]);
    expect[i] = c - prev;
    prev = c;
  }
  expect.back() = 1.0 - prev;
  test::chi2_result r;
  const double n = static_cast<double>(x.size());
  for (std::size_t i = 0; i < cells; ++i) {
    const double e = expect[i] * n;
    r.statistic += (obs[i] - e) * (obs[i] - e) / e;
  }
  r.cells = static_cast<int>(cells);
  const boost::math::chi_squared_distribution<double> chi(static_cast<double>(cells - 1));
  r.critical = boost::math::quantile(boost::math::complement(chi, test::alpha));
  return r.accepts();
}

TEST(BlockGaussian, LargeSigmaBinnedChiSquare) {
  const auto fs20 = float_safe_gaussian::from_sigma(1.0, 1.0, core::neighbouring::replace_one, 20);
  std::uint64_t seed = 3100;
  for (const auto& dg : {fs20.noise_for_dimension(1), discrete_gaussian::from_sigma(7.5e6)}) {
    const double sigma = dg.sigma();
    SCOPED_TRACE(sigma);
    EXPECT_TRUE(binned_chi_square_accepts(block_draws(law_of(dg), seed++), sigma));
    EXPECT_FALSE(binned_chi_square_accepts(
        block_draws(law_of(discrete_gaussian::from_sigma(1.1 * sigma)), seed++), sigma));
    EXPECT_FALSE(binned_chi_square_accepts(
        block_draws(law_of(discrete_gaussian::from_sigma(0.9 * sigma)), seed++), sigma));
  }
}

TEST(BlockGaussian, ForcedTailMatchesExactPmf) {
  // sigma = 110: c = 32, K = 8 (the smallest K the halving condition allows): tail bin for
  // |y| >= 256 (y >= 256 or y <= -257), exact mass ~2%.
  const auto dg = discrete_gaussian::from_rational_variance(12100, 1);
  const auto law = block_gaussian_law::of(12100, 1, 5, 8);
  const auto x = block_draws(law, 3200);
  EXPECT_TRUE(exact_chi_square_accepts(x, dg));
  double tail_p = 0;
  for (std::int64_t z = 256; z < 2000; ++z) tail_p += dg.pmf(z) + dg.pmf(-z - 1);
  const double n = static_cast<double>(x.size());
  const auto tail_n = static_cast<double>(
      std::count_if(x.begin(), x.end(), [](std::int64_t v) { return v >= 256 || v <= -257; }));
  EXPECT_GT(tail_n, 1500.0);  // the tail path really runs
  EXPECT_LT(std::fabs(tail_n - n * tail_p) / std::sqrt(n * tail_p * (1 - tail_p)), 5.33);
  // Power: +-10% sigma with the same forced-tail parameters.
  EXPECT_FALSE(exact_chi_square_accepts(block_draws(block_gaussian_law::of(14641, 1, 6, 8), 3201),
                                        dg));  // sigma 121 (c = 64: halving condition)
  EXPECT_FALSE(exact_chi_square_accepts(block_draws(block_gaussian_law::of(9801, 1, 5, 8), 3202),
                                        dg));  // sigma 99
}

TEST(BlockGaussian, ForcedSlowPathsGiveTheSameLaw) {
  const auto dg = discrete_gaussian::from_sigma(4097.0002);
  auto law = law_of(dg);
  law.fast_level = 1;  // every acceptance through stage 2 (32 more bits)
  EXPECT_TRUE(exact_chi_square_accepts(block_draws(law, 3300), dg));
  const auto small = discrete_gaussian::from_sigma(40.5);
  auto slow_law = law_of(small);
  slow_law.fast_level = 0;
  EXPECT_TRUE(exact_chi_square_accepts(block_draws(slow_law, 3301, 10000), small));
  EXPECT_FALSE(exact_chi_square_accepts(block_draws(slow_law, 3302, 10000),
                                        discrete_gaussian::from_sigma(40.5 * 1.1)));
  EXPECT_FALSE(exact_chi_square_accepts(block_draws(slow_law, 3303, 10000),
                                        discrete_gaussian::from_sigma(40.5 * 0.9)));
}

TEST(BlockGaussian, SmallSigmaKeepsCks20AndItsLaw) {
  // Below sigma = 32 the dispatch keeps CKS20 Algorithm 3 (fill_discrete_gaussian_fast).
  std::uint64_t seed = 3500;
  for (const double sigma : {0.8, 1.0, 31.9}) {
    SCOPED_TRACE(sigma);
    const auto dg = discrete_gaussian::from_sigma(sigma);
    const auto law =
        detail::gaussian_law::of(dg.variance_numerator(), dg.variance_denominator(), true);
    EXPECT_EQ(law.block, nullptr);
    const auto lim = static_cast<std::int64_t>(8 * sigma) + 3;
    const auto pmf = [&](std::int64_t z) { return dg.pmf(z); };
    EXPECT_TRUE(test::chi_square(exact_draws(dg, seed++), pmf, -lim, lim).accepts());
    EXPECT_FALSE(
        test::chi_square(
            exact_draws(discrete_gaussian::from_sigma(1.1 * sigma), seed++), pmf, -lim, lim)
            .accepts());
    EXPECT_FALSE(
        test::chi_square(
            exact_draws(discrete_gaussian::from_sigma(0.9 * sigma), seed++), pmf, -lim, lim)
            .accepts());
  }
  // Coarse float-safe grids: granularity 0 (sigma_Z ~ 2) and 3 (sigma_Z ~ 17) use CKS20.
  for (const int bits : {0, 3}) {
    const auto fs =
        float_safe_gaussian::from_sigma(1.0, 1.0, core::neighbouring::replace_one, bits);
    const auto unit = fs.noise_for_dimension(1);
    EXPECT_LT(unit.sigma(), 32.0);
    auto g = rng::stream(seed++, 0, 0, rng::purpose::noise);
    std::vector<double> v(n_draws);
    fs.fill(v, g);
    std::vector<std::int64_t> k(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      k[i] = static_cast<std::int64_t>(v[i] / fs.granularity());
    const auto lim = static_cast<std::int64_t>(8 * unit.sigma()) + 3;
    EXPECT_TRUE(test::chi_square(
                    k, [&](std::int64_t z) { return unit.pmf(z); }, -lim, lim)
                    .accepts())
        << bits;
  }
}

/// Grid values k = y / Lambda of float_safe_gaussian draws (noise only).
std::vector<std::int64_t> to_grid_units(const std::vector<double>& v, double lambda) {
  std::vector<std::int64_t> k(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) k[i] = static_cast<std::int64_t>(v[i] / lambda);
  return k;
}

TEST(BlockGaussian, FloatSafeFillSamplePrivatizeMatchExactPmf) {
  const auto fs = float_safe_gaussian::from_sigma(1.0);
  const double lambda = fs.granularity();
  const auto unit = fs.noise_for_dimension(1);
  auto g = rng::stream(3400, 0, 0, rng::purpose::noise);
  std::vector<double> v(n_draws);
  fs.fill(v, g);
  EXPECT_TRUE(exact_chi_square_accepts(to_grid_units(v, lambda), unit));
  for (double& x : v) x = fs.sample(g);
  EXPECT_TRUE(exact_chi_square_accepts(to_grid_units(v, lambda), unit));
  std::fill(v.begin(), v.end(), 0.0);
  fs.privatize(v, g);  // noise for d = 10^5: sigma_Z = sigma (Delta/Lambda + sqrt(d)) / Delta
  const auto wide = fs.noise_for_dimension(v.size());
  EXPECT_TRUE(exact_chi_square_accepts(to_grid_units(v, lambda), wide));
  // Short vectors (d < 128) use CKS20 Algorithm 3: d = 100, 1000 calls.
  std::vector<std::int64_t> short_k;
  std::vector<double> s(100);
  for (int rep = 0; rep < 1000; ++rep) {
    std::fill(s.begin(), s.end(), 0.0);
    fs.privatize(s, g);
    for (const auto z : to_grid_units(s, lambda)) short_k.push_back(z);
  }
  EXPECT_TRUE(exact_chi_square_accepts(short_k, fs.noise_for_dimension(100)));
  // Power: the d = 10^5 draws against the d = 1 law (sigma ratio 1.077) and 1.1x / 0.9x.
  EXPECT_FALSE(exact_chi_square_accepts(to_grid_units(v, lambda), unit));
  fs.fill(v, g);
  const auto k = to_grid_units(v, lambda);
  EXPECT_FALSE(exact_chi_square_accepts(k, discrete_gaussian::from_sigma(1.1 * unit.sigma())));
  EXPECT_FALSE(exact_chi_square_accepts(k, discrete_gaussian::from_sigma(0.9 * unit.sigma())));
}

}  // namespace
