// Properties checked (exact discrete samplers and discrete mechanisms, fixed seeds, 10^5 draws
// each, Pearson chi-square against EXACT pmfs, false-positive rate 1e-6 per test):
//  * CKS20 Bernoulli(exp(-gamma)) for rational gamma in {1/3, 1, 27/10}: |z| < 5.33 (two-sided
//    normal test, alpha ~ 1e-7) and rejection of exp(-1.1 gamma) and exp(-0.9 gamma).
//  * Discrete Laplace (scale 3.5, rational) and discrete Gaussian (sigma = 10 and sigma = 0.8),
//    scalar and vector paths; power: samplers with scale/sigma off by +10% and -10% are
//    rejected by the same test against the nominal pmf.
//  * k-ary randomized response (k = 4) output distribution, and rejection at epsilon +-10%.
//  * Exponential mechanism (Gumbel) and permute-and-flip selections against their exact
//    selection probabilities; rejection of the exponential mechanism and of permute-and-flip
//    at epsilon +10% and -10% against their nominal pmfs.
//  * Estimators: RR and local-histogram debiased estimates are unbiased (mean of 400
//    replications within 5.5 standard errors, using the exact variance formulas); the
//    stable histogram's released values minus p^ are Lap(2/(eps n)) (KS) when the threshold
//    does not bind; scales x1.1 and x0.9 are rejected on the same noise.
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>
#include <boost/math/distributions/laplace.hpp>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/discrete.hpp"
#include "dpx/mechanisms/histogram.hpp"
#include "dpx/mechanisms/randomized_response.hpp"
#include "dpx/mechanisms/selection.hpp"
#include "stat_util.hpp"

namespace {

using namespace dpx;
using namespace dpx::mechanisms;
constexpr std::size_t n_draws = 100000;

double bernoulli_z(std::uint64_t num, std::uint64_t den, double p, std::uint64_t seed) {
  auto g = rng::stream(seed, 0, 0, rng::purpose::noise);
  detail::direct_words<rng::philox4x32> w(g);
  double hits = 0;
  for (std::size_t i = 0; i < n_draws; ++i) hits += detail::bernoulli_exp_neg(w, num, den) ? 1 : 0;
  const double n = static_cast<double>(n_draws);
  return (hits - n * p) / std::sqrt(n * p * (1 - p));
}

TEST(Discrete, BernoulliExpNeg) {
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> gammas = {{1, 3}, {1, 1}, {27, 10}};
  std::uint64_t seed = 100;
  for (auto [num, den] : gammas) {
    const double gamma = static_cast<double>(num) / static_cast<double>(den);
    EXPECT_LT(std::fabs(bernoulli_z(num, den, std::exp(-gamma), seed++)), 5.33) << gamma;
    EXPECT_GT(std::fabs(bernoulli_z(num, den, std::exp(-1.1 * gamma), seed++)), 5.33) << gamma;
    EXPECT_GT(std::fabs(bernoulli_z(num, den, std::exp(-0.9 * gamma), seed++)), 5.33) << gamma;
  }
}

template <class M>
std::vector<std::int64_t> draws(const M& m, std::uint64_t seed, bool vector_path) {
  auto g = rng::stream(seed, 0, 0, rng::purpose::noise);
  std::vector<std::int64_t> x(n_draws);
  if (vector_path)
    m.fill(x, g);
  else
    for (auto& v : x) v = m.sample(g);
  return x;
}

TEST(Discrete, DiscreteLaplace) {
  const auto dl = discrete_laplace::from_scale(3.5);
  auto pmf = [&](std::int64_t z) { return dl.pmf(z); };
  for (bool vec : {false, true}) {
    EXPECT_TRUE(test::chi_square(draws(dl, 200 + vec, vec), pmf, -40, 40).accepts());
    EXPECT_FALSE(test::chi_square(
                     draws(discrete_laplace::from_scale(3.5 * 1.1), 202 + vec, vec), pmf, -40, 40)
                     .accepts());
    EXPECT_FALSE(test::chi_square(
                     draws(discrete_laplace::from_scale(3.5 * 0.9), 204 + vec, vec), pmf, -40, 40)
                     .accepts());
  }
  const auto x = draws(dl, 206, true);
  double m2 = 0;
  for (auto v : x) m2 += static_cast<double>(v) * static_cast<double>(v);
  EXPECT_NEAR(m2 / n_draws / dl.variance(), 1.0, 0.03);
}

TEST(Discrete, DiscreteGaussian) {
  for (double sigma : {10.0, 0.8}) {
    const auto dg = discrete_gaussian::from_sigma(sigma);
    auto pmf = [&](std::int64_t z) { return dg.pmf(z); };
    const auto lim = static_cast<std::int64_t>(6 * sigma + 3);
    for (bool vec : {false, true}) {
      const auto r = test::chi_square(draws(dg, 300 + vec, vec), pmf, -lim, lim);
      EXPECT_TRUE(r.accepts()) << sigma << " " << r.statistic << " > " << r.critical;
      EXPECT_FALSE(
          test::chi_square(
              draws(discrete_gaussian::from_sigma(sigma * 1.1), 302 + vec, vec), pmf, -lim, lim)
              .accepts());
      EXPECT_FALSE(
          test::chi_square(
              draws(discrete_gaussian::from_sigma(sigma * 0.9), 304 + vec, vec), pmf, -lim, lim)
              .accepts());
    }
  }
}

std::vector<std::int64_t> rr_draws(double eps, std::uint64_t seed) {
  const auto rr = randomized_response::calibrate(eps, 4);
  auto g = rng::stream(seed, 0, 0, rng::purpose::noise);
  std::vector<std::int64_t> x(n_draws);
  for (auto& v : x) v = rr.randomize(1, g);
  return x;
}

TEST(Discrete, RandomizedResponse) {
  const auto rr = randomized_response::calibrate(1.2, 4);
  auto pmf = [&](std::int64_t y) { return (y < 0 || y > 3) ? 0.0 : rr.pmf(y, 1); };
  EXPECT_TRUE(test::chi_square(rr_draws(1.2, 400), pmf, 0, 3).accepts());
  EXPECT_FALSE(test::chi_square(rr_draws(1.2 * 1.1, 401), pmf, 0, 3).accepts());
  EXPECT_FALSE(test::chi_square(rr_draws(1.2 * 0.9, 402), pmf, 0, 3).accepts());
}

template <class Sel>
std::vector<std::int64_t> selections(const Sel& s,
                                     const std::vector<double>& u,
                                     std::uint64_t seed) {
  auto g = rng::stream(seed, 0, 0, rng::purpose::noise);
  std::vector<std::int64_t> x(n_draws);
  for (auto& v : x) v = static_cast<std::int64_t>(s.select(u, g));
  return x;
}

TEST(Discrete, Selection) {
  const std::vector<double> u = {0.0, 1.0, 2.5, 2.0, -1.0};
  const auto em = exponential_mechanism::calibrate(1.5, 1.0);
  const auto pe = em.probabilities(u);
  auto pmf_e = [&](std::int64_t k) {
    return (k < 0 || k > 4) ? 0.0 : pe[static_cast<std::size_t>(k)];
  };
  EXPECT_TRUE(test::chi_square(selections(em, u, 500), pmf_e, 0, 4).accepts());
  EXPECT_FALSE(
      test::chi_square(selections(exponential_mechanism::calibrate(1.65, 1.0), u, 501), pmf_e, 0, 4)
          .accepts());
  EXPECT_FALSE(
      test::chi_square(selections(exponential_mechanism::calibrate(1.35, 1.0), u, 502), pmf_e, 0, 4)
          .accepts());
  const auto pf = permute_and_flip::calibrate(1.5, 1.0);
  const auto pp = pf.probabilities(u);
  auto pmf_p = [&](std::int64_t k) {
    return (k < 0 || k > 4) ? 0.0 : pp[static_cast<std::size_t>(k)];
  };
  EXPECT_TRUE(test::chi_square(selections(pf, u, 503), pmf_p, 0, 4).accepts());
  EXPECT_FALSE(test::chi_square(selections(em, u, 504), pmf_p, 0, 4).accepts());  // PF != EM
  // Power in both directions: permute-and-flip run at epsilon +10% and -10% is rejected
  // against the nominal pmf.
  EXPECT_FALSE(
      test::chi_square(selections(permute_and_flip::calibrate(1.65, 1.0), u, 505), pmf_p, 0, 4)
          .accepts());
  EXPECT_FALSE(
      test::chi_square(selections(permute_and_flip::calibrate(1.35, 1.0), u, 506), pmf_p, 0, 4)
          .accepts());
}

TEST(Estimators, RandomizedResponseUnbiased) {
  const auto rr = randomized_response::calibrate(0.8, 3);
  const std::vector<std::int64_t> truth_counts = {500, 300, 200};
  const std::uint64_t n = 1000;
  auto g = rng::stream(600, 0, 0, rng::purpose::noise);
  const int reps = 400;
  std::vector<double> mean(3, 0.0);
  for (int r = 0; r < reps; ++r) {
    std::vector<std::uint64_t> counts(3, 0);
    for (std::int64_t x = 0; x < 3; ++x)
      for (std::int64_t i = 0; i < truth_counts[x]; ++i) ++counts[rr.randomize(x, g)];
    const auto f = rr.estimate_frequencies(counts);
    for (int j = 0; j < 3; ++j) mean[j] += f[j] / reps;
  }
  for (int j = 0; j < 3; ++j) {
    const double f = static_cast<double>(truth_counts[j]) / n;
    // Finite-population variance <= the i.i.d.-sampling formula (sum of Bernoulli variances).
    const double se = std::sqrt(rr.estimator_variance(f, n) / reps);
    EXPECT_LT(std::fabs(mean[j] - f), 5.5 * se) << j;
  }
}

TEST(Estimators, LocalHistogramUnbiased) {
  const auto lh = local_histogram::calibrate(1.5, 4);
  std::vector<std::int64_t> users;
  for (int i = 0; i < 400; ++i) users.push_back(0);
  for (int i = 0; i < 300; ++i) users.push_back(2);
  for (int i = 0; i < 300; ++i) users.push_back(-1);
  const std::vector<double> f = {0.4, 0.0, 0.3, 0.0};
  auto g = rng::stream(601, 0, 0, rng::purpose::noise);
  const int reps = 400;
  std::vector<double> mean(4, 0.0);
  for (int r = 0; r < reps; ++r) {
    const auto est = lh.estimate(lh.report_counts(users, g), users.size());
    for (int k = 0; k < 4; ++k) mean[k] += est[k] / reps;
  }
  for (int k = 0; k < 4; ++k) {
    const double se = std::sqrt(lh.estimator_variance(f[k], users.size()) / reps);
    EXPECT_LT(std::fabs(mean[k] - f[k]), 5.5 * se) << k;
  }
}

TEST(Estimators, StableHistogramNoiseIsLaplace) {
  const double eps = 1.0;
  const auto sh = stable_histogram::calibrate(eps, 1e-6, histogram_noise::laplace);
  std::vector<std::int64_t> keys;
  for (std::int64_t b = 0; b < 200; ++b)
    for (int i = 0; i < 500; ++i) keys.push_back(b * 7 - 300);
  const double n = static_cast<double>(keys.size());
  const double p_hat = 500.0 / n;
  auto g = rng::stream(602, 0, 0, rng::purpose::noise);
  std::vector<double> noise;
  while (noise.size() < n_draws) {
    const auto h = sh.release_bins(keys, g);
    ASSERT_EQ(h.bins.size(), 200u);  // threshold ~1.5e-4 << p^ = 5e-3
    for (double v : h.values) noise.push_back(v - p_hat);
  }
  const boost::math::laplace_distribution<double> d(0.0, sh.noise_scale(keys.size()));
  EXPECT_TRUE(test::ks_accepts(noise, [&](double x) { return cdf(d, x); }));
  // Power in both directions: the same noise is rejected against Laplace scales off by +10%
  // and by -10%.
  const boost::math::laplace_distribution<double> d_wrong(0.0, 1.1 * sh.noise_scale(keys.size()));
  EXPECT_FALSE(test::ks_accepts(noise, [&](double x) { return cdf(d_wrong, x); }));
  const boost::math::laplace_distribution<double> d_low(0.0, 0.9 * sh.noise_scale(keys.size()));
  EXPECT_FALSE(test::ks_accepts(noise, [&](double x) { return cdf(d_low, x); }));
}

}  // namespace
