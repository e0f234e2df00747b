// Properties checked (deterministic parts of the histograms, selection and estimators):
//  * bin_grid index at bin edges: bins are (c - w/2, c + w/2] (docs/theory/dependent-data.md §3.2,
//  §11).
//  * count_bins: the dense path and the sort path (far-apart keys) agree with a brute-force
//    count; only occupied bins appear (sorted), so zero-count bins are never noised.
//  * threshold = 2 ln(2/delta)/(eps n) + 1/n; the release never contains a value below it and
//    only contains occupied bins; argmax picks the smallest index on ties.
//  * Randomized-response estimators are exactly unbiased on expected counts; the binary
//    estimator's variance formula matches the k = 2 generalized formula.
//  * Local histogram: debiasing expected report counts returns the true frequencies.
//  * Exponential-mechanism probabilities equal the closed-form softmax; the quantile
//    log-weights follow Smith (2011).
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/histogram.hpp"
#include "dpx/mechanisms/randomized_response.hpp"
#include "dpx/mechanisms/selection.hpp"

namespace {

using namespace dpx;
using namespace dpx::mechanisms;

TEST(Histogram, BinIndexAtEdges) {
  const bin_grid g{2.0, 0.0};  // bins (2k - 1, 2k + 1]
  EXPECT_EQ(g.index(1.0), 0);
  EXPECT_EQ(g.index(std::nextafter(1.0, 2.0)), 1);
  EXPECT_EQ(g.index(-1.0), -1);
  EXPECT_EQ(g.index(std::nextafter(-1.0, 0.0)), 0);
  EXPECT_EQ(g.index(0.0), 0);
  EXPECT_EQ(g.index(3.0), 1);
  EXPECT_EQ(g.index(-3.5), -2);
  const bin_grid h{0.5, 10.0};
  EXPECT_EQ(h.index(10.25), 0);
  EXPECT_EQ(h.index(10.26), 1);
  std::vector<double> x = {1.0, 1.0000001, -1.0, 0.0};
  std::vector<std::int64_t> k(4);
  stable_histogram::bin_indices(x, g, k);
  EXPECT_EQ(k, (std::vector<std::int64_t>{0, 1, -1, 0}));
  // Far records are clamped into the extreme bins ±2^62, never an exception (which one record
  // could trigger, and whose message would quote it).
  const std::vector<double> far = {1e300, -1e300, 0x1p63, -0x1p63, 3.0};
  std::vector<std::int64_t> kf(far.size());
  stable_histogram::bin_indices(far, g, kf);
  const std::int64_t top = std::int64_t{1} << 62;
  EXPECT_EQ(kf, (std::vector<std::int64_t>{top, -top, top, -top, 1}));
  auto rg = rng::stream(12, 0, 0, rng::purpose::noise);
  std::vector<double> data(200, 0.5);
  data.push_back(1e300);
  const auto rel = stable_histogram::calibrate(1.0, 1e-6).release(data, g, rg);
  std::int64_t mode = -1;
  ASSERT_TRUE(rel.argmax(mode));
  EXPECT_EQ(mode, 0);
}

TEST(Histogram, CountBinsDenseAndSparseAgreeWithBruteForce) {
  std::vector<std::vector<std::int64_t>> cases = {
      {3, 3, 1, -2, 3, 1},
      {0, 1000000000000ll, -5, 0, 1000000000000ll, -4000000000000000000ll},
      {7}};
  for (const auto& keys : cases) {
    std::map<std::int64_t, std::uint64_t> brute;
    for (auto k : keys) ++brute[k];
    std::vector<std::int64_t> bins;
    std::vector<std::uint64_t> counts;
    stable_histogram::count_bins(keys, bins, counts);
    ASSERT_EQ(bins.size(), brute.size());
    std::size_t i = 0;
    for (const auto& [k, c] : brute) {
      EXPECT_EQ(bins[i], k);
      EXPECT_EQ(counts[i], c);
      ++i;
    }
  }
}

TEST(Histogram, ReleaseOnlyOccupiedBinsAboveThreshold) {
  const auto sh = stable_histogram::calibrate(2.0, 1e-6, histogram_noise::laplace);
  EXPECT_DOUBLE_EQ(sh.threshold(100), 2.0 / (2.0 * 100) * std::log(2.0 / 1e-6) + 0.01);
  std::vector<double> x;
  for (int i = 0; i < 80; ++i) x.push_back(0.1);
  for (int i = 0; i < 20; ++i) x.push_back(10.0);
  x.push_back(1000.0);  // a lone far point: never released at this threshold? (random)
  auto g = rng::stream(11, 0, 0, rng::purpose::noise);
  for (int rep = 0; rep < 50; ++rep) {
    const auto h = sh.release(x, bin_grid{1.0, 0.0}, g);
    EXPECT_EQ(h.occupied, 3u);
    EXPECT_EQ(h.n, x.size());
    for (std::size_t i = 0; i < h.bins.size(); ++i) {
      EXPECT_TRUE(h.bins[i] == 0 || h.bins[i] == 10 || h.bins[i] == 1000);
      EXPECT_GE(h.values[i], h.threshold);
      if (i > 0) {
        EXPECT_LT(h.bins[i - 1], h.bins[i]);
      }
    }
    std::int64_t k;
    ASSERT_TRUE(h.argmax(k));
    EXPECT_EQ(k, 0);
  }
  sparse_histogram tie{{-3, 4}, {0.5, 0.5}, 2, 10, 0.1};
  std::int64_t k;
  ASSERT_TRUE(tie.argmax(k));
  EXPECT_EQ(k, -3);
  sparse_histogram none;
  EXPECT_FALSE(none.argmax(k));
}

// The default is the float-safe variant (exact integer noise on counts); the research-grade
// double Laplace is only drawn when named. Its count threshold is the smallest T with
// P(1 + Z >= T) = r^(T-1) / (1 + r) <= delta / 2, from the discrete Laplace tail
// P(Z >= m) = r^m / (1 + r) (r = exp(-1/tau); computed here from the pmf, not the formula).
TEST(Histogram, DefaultNoiseIsFloatSafeDiscreteLaplace) {
  for (const double eps : {0.5, 1.0, 3.0})
    for (const double delta : {1e-9, 1e-5, 0.1}) {
      const auto sh = stable_histogram::calibrate(eps, delta);
      ASSERT_EQ(sh.noise(), histogram_noise::discrete_laplace);
      const auto dl = sh.count_noise();
      const double tau = dl.scale();
      EXPECT_GE(tau, 2.0 / eps);
      EXPECT_DOUBLE_EQ(sh.noise_scale(1000), tau / 1000.0);
      const std::int64_t T = sh.count_threshold();
      EXPECT_DOUBLE_EQ(sh.threshold(1000), static_cast<double>(T) / 1000.0);
      // Tail sums of the pmf: passing at T is within delta/2, at T - 1 it is not (T minimal).
      auto tail = [&](std::int64_t from) {
        long double p = 0.0L;
        for (std::int64_t z = from; z < from + 200000; ++z) p += dl.pmf(z);
        return static_cast<double>(p);
      };
      EXPECT_LE(tail(T - 1), delta / 2.0) << eps << " " << delta;
      EXPECT_GT(tail(T - 2) * (1.0 + std::exp(-1.0 / tau)), delta / 2.0) << eps << " " << delta;
    }
  std::vector<double> x(300, 0.5);
  for (int i = 0; i < 40; ++i) x.push_back(3.5);
  auto g = rng::stream(13, 0, 0, rng::purpose::noise);
  const auto h = stable_histogram::calibrate(1.0, 1e-6).release(x, bin_grid{1.0, 0.0}, g);
  ASSERT_FALSE(h.values.empty());
  for (double v : h.values) EXPECT_NEAR(v * 340.0, std::round(v * 340.0), 1e-9) << v;  // c / n
  EXPECT_EQ(stable_histogram::calibrate(1.0, 1e-6, histogram_noise::laplace).noise(),
            histogram_noise::laplace);
}

TEST(Histogram, DiscreteVariantCountsOnGrid) {
  const auto sh = stable_histogram::calibrate(1.0, 1e-6, histogram_noise::discrete_laplace);
  std::vector<double> x(500, 2.0);
  auto g = rng::stream(12, 0, 0, rng::purpose::noise);
  const auto h = sh.release(x, bin_grid{1.0, 0.0}, g);
  ASSERT_EQ(h.bins.size(), 1u);
  const double c = h.values[0] * 500.0;
  EXPECT_NEAR(c, std::round(c), 1e-9);
  EXPECT_GE(std::round(c), static_cast<double>(sh.count_threshold()));
}

TEST(Estimators, RandomizedResponseUnbiasedOnExpectedCounts) {
  const auto rr = randomized_response::calibrate(1.3, 4);
  const std::vector<double> f = {0.1, 0.2, 0.3, 0.4};
  const double p = rr.truth_probability(), q = rr.other_probability();
  EXPECT_NEAR(p + 3 * q, 1.0, 1e-15);
  // Expected counts n (f_j (p - q) + q) with n = 2^40 (integers up to rounding 1e-12).
  const double n = 0x1p40;
  std::vector<std::uint64_t> counts;
  for (double fj : f)
    counts.push_back(static_cast<std::uint64_t>(std::llround(n * (fj * (p - q) + q))));
  const auto est = rr.estimate_frequencies(counts);
  for (std::size_t j = 0; j < 4; ++j) EXPECT_NEAR(est[j], f[j], 1e-10);
  const auto b = binary_randomized_response::calibrate(0.9);
  const auto r2 = randomized_response::calibrate(0.9, 2);
  EXPECT_DOUBLE_EQ(b.estimator_variance(0.3, 1000), r2.estimator_variance(0.3, 1000));
  const double pi = b.truth_probability();
  const double lam = 0.3 * (2 * pi - 1) + 1 - pi;
  EXPECT_NEAR(b.estimator_variance(0.3, 1000),
              lam * (1 - lam) / (1000 * (2 * pi - 1) * (2 * pi - 1)),
              1e-15);
  const auto ones = static_cast<std::uint64_t>(std::llround(n * lam));
  EXPECT_NEAR(b.estimate_proportion(ones, static_cast<std::uint64_t>(n)), 0.3, 1e-10);
}

TEST(Estimators, LocalHistogramDebiasing) {
  const auto lh = local_histogram::calibrate(2.0, 3);
  const double pi = lh.keep_probability();
  const std::vector<double> f = {0.5, 0.3, 0.0};  // 0.2 outside all bins
  const double n = 0x1p40;
  std::vector<std::uint64_t> ones;
  for (double fk : f)
    ones.push_back(static_cast<std::uint64_t>(std::llround(n * (fk * pi + (1 - fk) * (1 - pi)))));
  const auto est = lh.estimate(ones, static_cast<std::uint64_t>(n));
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(est[k], f[k], 1e-10);
}

TEST(Selection, ExponentialProbabilitiesClosedForm) {
  const std::vector<double> u = {1.0, 2.0, 0.5};
  const auto em = exponential_mechanism::calibrate(2.0, 1.0);
  const auto p = em.probabilities(u);
  double z = 0;
  for (double x : u) z += std::exp(x);  // eps / (2 Delta) = 1
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(p[i], std::exp(u[i]) / z, 1e-15);
  const auto mono = exponential_mechanism::calibrate(2.0, 1.0, true);
  EXPECT_EQ(mono.inverse_temperature(), 2.0);
}

TEST(Selection, QuantileLogWeights) {
  quantile_options o;
  o.lower = 0.0;
  o.upper = 10.0;
  o.quantile = 0.5;
  o.epsilon = 1.0;
  const std::vector<double> data = {3.0, 1.0, 12.0, 5.0};
  const auto z = detail::quantile_support(data, o);
  EXPECT_EQ(z, (std::vector<double>{0.0, 1.0, 3.0, 5.0, 10.0, 10.0}));
  const auto lw = detail::quantile_log_weights(z, 0.5, 1.0);
  ASSERT_EQ(lw.size(), 5u);
  EXPECT_NEAR(lw[0], std::log(1.0) - 1.0, 1e-15);              // u_0 = -|0 - 2|
  EXPECT_NEAR(lw[2], std::log(2.0), 1e-15);                    // u_2 = 0
  EXPECT_EQ(lw[4], -std::numeric_limits<double>::infinity());  // empty gap
  auto g = rng::stream(13, 0, 0, rng::purpose::noise);
  for (int i = 0; i < 100; ++i) {
    const double q = exponential_quantile(data, o, g);
    EXPECT_GE(q, 0.0);
    EXPECT_LE(q, 10.0);
  }
}

}  // namespace
