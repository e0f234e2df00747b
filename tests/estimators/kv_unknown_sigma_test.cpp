// Exact and fixed-seed checks of the Karwa–Vadhan baseline with unknown σ (
// docs/theory/dependent-data.md §7, KV Alg 2 + Alg 1 + Alg 4; kv_mean_unknown_sigma):
//  * the dyadic bin index is ⌊log₂ d⌋ exactly (powers of two open their bin, the value just
//    below stays in the previous one), zero/subnormals share the bottom bin, +inf the top bin —
//    checked against brute-force doubling;
//  * the σ histogram counts the ⌊n/2⌋ pair differences |x_{2i+1} − x_{2i}| (the odd last value is
//    unused), one entry per occupied dyadic bin, brute-force recount;
//  * budget split: three ledger steps (ε/3, δ/2), (ε/3, δ/2), (ε/3, 0) summing to (ε, δ);
//  * σ̂ = 2^{ĵ+2}, the range rule (σ̂/2, 4σ̂ sqrt(ln(n/β))), the mean's Laplace scale
//    2κ/(n ε/3) (replace-one sensitivity 2κ/n), the CI half-width σ̂ z_{1−α/4}/√n + b ln(2/α);
//  * the estimate equals X̄ + its noise draw when nothing is clipped, recomputed from a copy of the
//    stream (one draw per occupied σ bin, one per occupied range bin, then the mean draw);
//  * σ̂ failure (tiny n ε): sigma_fallback is used and flagged;
//  * accuracy at fixed seeds: for Gaussian data with σ ∈ {0.01, 1, 300}, σ ≤ σ̂ ≤ 8σ and
//    |estimate − μ| ≤ 5σ/√n + b ln(10⁶) (a bound failing with probability < 1e-5 per case);
//  * validation: bad ε, δ, β, α, fallback, fewer than 2 values, NaN throw.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/estimators/central.hpp"
#include "test_util.hpp"

namespace dpx::estimators {
namespace {

using testing::brute_bins;
using testing::normal_data;
using testing::plain_mean;

std::int64_t brute_dyadic(double d) {
  // smallest j with d < 2^{j+1}, by doubling/halving in exact binary arithmetic
  std::int64_t j = 0;
  double lo = 1.0;
  while (d >= 2 * lo) {
    lo *= 2;
    ++j;
  }
  while (d < lo) {
    lo /= 2;
    --j;
  }
  return j;
}

TEST(KvUnknownSigma, DyadicIndexIsFloorLog2) {
  for (double d : {1.0, 2.0, 0.5, 0.75, 3.999, 4.0, 1e-300, 1e300, 12345.678, 0x1p-1022}) {
    EXPECT_EQ(detail::dyadic_index(d), brute_dyadic(d)) << d;
  }
  EXPECT_EQ(detail::dyadic_index(1.0), 0);
  EXPECT_EQ(detail::dyadic_index(std::nextafter(1.0, 0.0)), -1);
  EXPECT_EQ(detail::dyadic_index(2.0), 1);
  EXPECT_EQ(detail::dyadic_index(std::nextafter(2.0, 0.0)), 0);
  EXPECT_EQ(detail::dyadic_index(0.0), -1075);
  EXPECT_EQ(detail::dyadic_index(0x1p-1030), -1075);
  EXPECT_EQ(detail::dyadic_index(std::numeric_limits<double>::infinity()), 1024);
}

TEST(KvUnknownSigma, PairDifferenceBinsRecount) {
  const std::vector<double> x = {0.0, 1.5, 2.0, 2.25, -1.0, 3.0, 7.0, 7.0, 100.0};  // odd n
  const auto b = detail::pair_difference_bins(x);
  // pairs: 1.5 → 0, 0.25 → −2, 4 → 2, 0 → −1075; the last value 100 is unused
  std::map<std::int64_t, std::uint64_t> want = {{-1075, 1}, {-2, 1}, {0, 1}, {2, 1}};
  ASSERT_EQ(b.size(), want.size());
  for (const auto& bc : b) EXPECT_EQ(want.at(bc.bin), bc.count);
  for (std::size_t i = 1; i < b.size(); ++i) EXPECT_LT(b[i - 1].bin, b[i].bin);
}

TEST(KvUnknownSigma, BudgetScalesAndRecomputedDraw) {
  const std::size_t n = 4001;
  const double eps = 0.9, delta = 1e-7, mu = 5.0, sigma = 1.0;
  const auto x = normal_data(n, mu, sigma, 41);
  kv_unknown_sigma_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // recomputed draws
  o.target.epsilon = eps;
  o.target.delta = delta;
  o.beta = 0.05;
  o.alpha = 0.1;
  const auto g0 = rng::stream(3, 4, 5, rng::purpose::noise);
  auto g = g0;
  const auto r = kv_mean_unknown_sigma(x, o, g);
  ASSERT_FALSE(r.sigma_diag.failed);
  ASSERT_FALSE(r.mean.diag.failed);
  ASSERT_EQ(r.mean.diag.clipped_fraction, 0.0);
  // ledger
  ASSERT_EQ(r.mean.ledger.size(), 3u);
  EXPECT_EQ(r.mean.ledger[0].step, "sigma_histogram");
  EXPECT_EQ(r.mean.ledger[1].step, "histogram");
  EXPECT_EQ(r.mean.ledger[2].step, "clipped_mean");
  for (const auto& e : r.mean.ledger) EXPECT_DOUBLE_EQ(e.epsilon, eps / 3);
  EXPECT_DOUBLE_EQ(r.mean.ledger[0].delta, delta / 2);
  EXPECT_DOUBLE_EQ(r.mean.ledger[1].delta, delta / 2);
  EXPECT_EQ(r.mean.ledger[2].delta, 0.0);
  EXPECT_DOUBLE_EQ(r.mean.ledger[0].epsilon + r.mean.ledger[1].epsilon + r.mean.ledger[2].epsilon,
                   eps);
  EXPECT_DOUBLE_EQ(r.mean.ledger[0].delta + r.mean.ledger[1].delta + r.mean.ledger[2].delta, delta);
  EXPECT_EQ(r.mean.privacy.epsilon, eps);
  EXPECT_EQ(r.mean.privacy.delta, delta);
  // σ̂, rule and scales
  EXPECT_EQ(r.sigma_hat, std::ldexp(1.0, static_cast<int>(r.sigma_bin) + 2));
  const double kappa = 4.0 * r.sigma_hat * std::sqrt(std::log(n / 0.05));
  EXPECT_DOUBLE_EQ(r.mean.range.hi - r.mean.range.lo, 2 * kappa);
  EXPECT_EQ(std::fmod(r.mean.midpoint, r.sigma_hat), 0.0);
  EXPECT_NEAR(r.mean.noise_scale, 2 * kappa / (n * eps / 3), 1e-15 * r.mean.noise_scale);
  // Laplace noise multiplier of the mean step: scale / sensitivity = 1/(ε/3)
  EXPECT_DOUBLE_EQ(std::get<core::laplace_event>(r.mean.ledger[2].event).noise_multiplier,
                   3.0 / eps);
  // recompute the draws
  std::vector<double> pd;
  for (std::size_t i = 0; i + 1 < n; i += 2) pd.push_back(std::abs(x[i + 1] - x[i]));
  std::map<std::int64_t, int> occ_sigma;
  for (double d : pd) occ_sigma[brute_dyadic(d)]++;
  EXPECT_EQ(r.sigma_diag.occupied_bins, occ_sigma.size());
  const std::size_t occ_range = brute_bins(x, r.sigma_hat).size();
  EXPECT_EQ(r.mean.diag.occupied_bins, occ_range);
  auto g2 = g0;
  const double m = static_cast<double>(n / 2);
  for (std::size_t i = 0; i < occ_sigma.size(); ++i)
    (void)mechanisms::laplace::from_scale(2.0 / (eps / 3 * m)).sample(g2);
  for (std::size_t i = 0; i < occ_range; ++i)
    (void)mechanisms::laplace::from_scale(2.0 / (eps / 3 * n)).sample(g2);
  const double z = mechanisms::laplace::from_scale(r.mean.noise_scale).sample(g2);
  EXPECT_NEAR(r.mean.estimate, plain_mean(x) + z, 1e-12);
  EXPECT_TRUE(g2 == g);
  // CI: σ̂ z_{1−α/4}/√n + b ln(2/α), z_{0.975} = 1.959963984540054
  const double half =
      r.sigma_hat * 1.959963984540054 / std::sqrt(double(n)) + r.mean.noise_scale * std::log(20.0);
  EXPECT_NEAR(r.confidence.hi - r.mean.estimate, half, 1e-12);
  EXPECT_NEAR(r.mean.estimate - r.confidence.lo, half, 1e-12);
}

TEST(KvUnknownSigma, AccuracyAtFixedSeeds) {
  for (double sigma : {0.01, 1.0, 300.0}) {
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      const std::size_t n = 20000;
      const double mu = -40.0 * sigma;
      const auto x = normal_data(n, mu, sigma, 100 + seed);
      auto g = rng::stream(77, seed, 0, rng::purpose::noise);
      kv_unknown_sigma_options o;
      o.noise = mechanisms::noise_kind::research_grade;  // recomputed draws
      o.noise = mechanisms::noise_kind::research_grade;  // recomputed draws
      o.noise = mechanisms::noise_kind::research_grade;  // recomputed draws
      o.target.epsilon = 0.5;
      o.target.delta = 1.0 / (double(n) * n);
      const auto r = kv_mean_unknown_sigma(x, o, g);
      ASSERT_FALSE(r.sigma_diag.failed);
      EXPECT_GE(r.sigma_hat, sigma) << sigma << " " << seed;
      EXPECT_LE(r.sigma_hat, 8 * sigma) << sigma << " " << seed;
      const double bound = 5 * sigma / std::sqrt(double(n)) + r.mean.noise_scale * std::log(1e6);
      EXPECT_LE(std::abs(r.mean.estimate - mu), bound) << sigma << " " << seed;
    }
  }
}

TEST(KvUnknownSigma, FailureUsesFallback) {
  // n = 20, ε = 0.1: the σ histogram's count threshold 1 + 2 ln(2/δ)/(ε/3) ≈ 1000 > 10 pairs.
  const auto x = normal_data(20, 0.0, 1.0, 5);
  auto g = rng::stream(1, 1, 1, rng::purpose::noise);
  kv_unknown_sigma_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // recomputed draws
  o.target.epsilon = 0.1;
  o.target.delta = 1e-4;
  o.sigma_fallback = 2.5;
  const auto r = kv_mean_unknown_sigma(x, o, g);
  EXPECT_TRUE(r.sigma_diag.failed);
  EXPECT_EQ(r.sigma_diag.released_bins, 0u);
  EXPECT_EQ(r.sigma_hat, 2.5);
  EXPECT_EQ(r.mean.privacy.epsilon, 0.1);  // the full budget is still spent and reported
}

TEST(KvUnknownSigma, Validation) {
  const std::vector<double> x = {1.0, 2.0, 3.0};
  auto g = rng::stream(1, 1, 1, rng::purpose::noise);
  auto bad = [&](auto mutate) {
    kv_unknown_sigma_options o;
    o.noise = mechanisms::noise_kind::research_grade;  // recomputed draws
    o.noise = mechanisms::noise_kind::research_grade;  // recomputed draws
    mutate(o);
    EXPECT_THROW((void)kv_mean_unknown_sigma(x, o, g), core::invalid_argument_error);
  };
  bad([](auto& o) { o.target.epsilon = 0; });
  bad([](auto& o) { o.target.epsilon = std::nan(""); });
  bad([](auto& o) { o.target.delta = 1.0; });
  bad([](auto& o) { o.beta = 0.0; });
  bad([](auto& o) { o.alpha = 1.5; });
  bad([](auto& o) { o.sigma_fallback = -1; });
  const std::vector<double> one = {1.0}, nan = {1.0, std::nan("")};
  EXPECT_THROW((void)kv_mean_unknown_sigma(one, {}, g), core::invalid_argument_error);
  EXPECT_THROW((void)kv_mean_unknown_sigma(nan, {}, g), core::invalid_argument_error);
}

}  // namespace
}  // namespace dpx::estimators
