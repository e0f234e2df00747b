// Properties checked (privacy by exact computation, no sampling):
//  * Discrete Laplace: the mechanism's pmf equals the closed form (1-r)/(1+r) r^|z| with
//    r = exp(-s/t) (computed here independently), sums to 1, and for neighbouring integer
//    inputs |x - x'| <= Delta the output pmf ratio never exceeds e^epsilon.
//  * k-ary and binary randomized response: output pmfs sum to 1 and every ratio
//    P(y|x)/P(y|x') <= e^epsilon, using the probabilities actually run (T / 2^64).
//  * Local RR histogram: for N = 4 bins, over all 2^N reports and all pairs of inputs
//    (including "outside every bin"), report probability ratios <= e^epsilon; sums to 1.
//  * Stable histogram (docs/theory/dependent-data.md §3.1, Lemma C.1), the three replace-one
//  neighbour cases:
//    (1) both records in the same bin: identical counts, identical output (same seed);
//    (2) two occupied bins change by one count: per-bin pointwise ratio of the thresholded
//        Laplace law (density and point mass at 0, Boost.Math laplace CDF) <= e^(eps/2), so
//        the joint ratio <= e^eps (delta = 0);
//    (3) a bin appears (0 -> 1 count): it is released with probability exactly delta/4
//        (<= delta/2), which is the exact hockey-stick delta of the pair given (2).
//    Discrete-Laplace variant: appearance probability r^(T-1)/(1+r) <= delta/2 (pmf summed).
//  * Exponential mechanism and permute-and-flip: for utility vectors differing by at most
//    Delta_u per coordinate, selection probability ratios <= e^epsilon (exact enumeration).
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <boost/math/distributions/laplace.hpp>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/discrete.hpp"
#include "dpx/mechanisms/histogram.hpp"
#include "dpx/mechanisms/randomized_response.hpp"
#include "dpx/mechanisms/selection.hpp"

namespace {

using namespace dpx;
using namespace dpx::mechanisms;

TEST(PrivacyExact, DiscreteLaplacePmfRatio) {
  for (double eps : {0.1, 0.5, 1.0, 2.0})
    for (std::int64_t sens : {1, 3}) {
      const auto dl = discrete_laplace::calibrate(eps, sens);
      const long double tau = static_cast<long double>(dl.scale_numerator()) /
                              static_cast<long double>(dl.scale_denominator());
      const long double r = std::exp(-1.0L / tau);
      long double total = 0.0L;
      const std::int64_t m = static_cast<std::int64_t>(60.0L * tau) + 50;
      for (std::int64_t z = -m; z <= m; ++z) {
        const long double closed = (1.0L - r) / (1.0L + r) * std::pow(r, std::llabs(z));
        EXPECT_NEAR(dl.pmf(z) / static_cast<double>(closed), 1.0, 1e-12);
        total += closed;
      }
      EXPECT_NEAR(static_cast<double>(total), 1.0, 1e-12);
      double worst = 0.0;
      for (std::int64_t y = -200; y <= 200; ++y)
        for (std::int64_t shift = -sens; shift <= sens; ++shift)
          worst = std::max(worst, dl.pmf(y) / dl.pmf(y - shift));
      EXPECT_LE(worst, std::exp(eps) * (1.0 + 1e-12)) << eps << " " << sens;
      EXPECT_GT(worst, std::exp(eps) * (1.0 - 1e-6));  // tight: the scale is not wasteful
    }
}

TEST(PrivacyExact, RandomizedResponseRatios) {
  for (double eps : {0.1, 1.0, 3.0, 10.0})
    for (std::int64_t k : {2, 3, 10}) {
      const auto rr = randomized_response::calibrate(eps, k);
      double worst = 0.0;
      for (std::int64_t x = 0; x < k; ++x) {
        long double total = 0.0L;
        for (std::int64_t y = 0; y < k; ++y) {
          total += rr.pmf(y, x);
          for (std::int64_t x2 = 0; x2 < k; ++x2)
            worst = std::max(worst, rr.pmf(y, x) / rr.pmf(y, x2));
        }
        EXPECT_NEAR(static_cast<double>(total), 1.0, 1e-12);
      }
      EXPECT_LE(worst, std::exp(eps)) << eps << " " << k;
      EXPECT_GT(worst, std::exp(eps) * (1.0 - 1e-9));
    }
  const auto b = binary_randomized_response::calibrate(1.0);
  const double pi = b.truth_probability();
  EXPECT_LE(pi / (1.0 - pi), std::exp(1.0));
  EXPECT_NEAR(pi, std::exp(1.0) / (1.0 + std::exp(1.0)), 1e-15);
}

TEST(PrivacyExact, LocalHistogramReportRatios) {
  for (double eps : {0.5, 2.0, 6.0}) {
    const std::int64_t n_bins = 4;
    const auto lh = local_histogram::calibrate(eps, n_bins);
    double worst = 0.0;
    for (std::int64_t x = -1; x < n_bins; ++x) {
      long double total = 0.0L;
      for (unsigned mask = 0; mask < (1u << n_bins); ++mask) {
        std::vector<std::uint8_t> rep(n_bins);
        for (std::int64_t j = 0; j < n_bins; ++j) rep[j] = (mask >> j) & 1u;
        const double p = lh.report_probability(rep, x);
        total += p;
        for (std::int64_t x2 = -1; x2 < n_bins; ++x2)
          worst = std::max(worst, p / lh.report_probability(rep, x2));
      }
      EXPECT_NEAR(static_cast<double>(total), 1.0, 1e-12);
    }
    EXPECT_LE(worst, std::exp(eps) * (1.0 + 1e-12)) << eps;
    EXPECT_GT(worst, std::exp(eps) * (1.0 - 1e-9));
    // 2 pi - 1 = tanh(eps / 4) (docs/theory/dependent-data.md §5.1).
    EXPECT_NEAR(2.0 * lh.keep_probability() - 1.0, std::tanh(eps / 4.0), 1e-15);
  }
}

TEST(PrivacyExact, StableHistogramSameBinCase) {
  // Case 1: D and D' differ in one record that stays in the same bin.
  const auto sh = stable_histogram::calibrate(1.0, 1e-6, histogram_noise::laplace);
  const bin_grid grid{2.0, 0.0};
  std::vector<double> d = {0.1, 0.2, 5.0, 5.3, 5.4, -7.0, 0.9};
  std::vector<double> d2 = d;
  d2[1] = -0.8;  // bin 0 = (-1, 1], unchanged
  std::vector<std::int64_t> k1(d.size()), k2(d.size()), b1, b2;
  std::vector<std::uint64_t> c1, c2;
  stable_histogram::bin_indices(d, grid, k1);
  stable_histogram::bin_indices(d2, grid, k2);
  stable_histogram::count_bins(k1, b1, c1);
  stable_histogram::count_bins(k2, b2, c2);
  EXPECT_EQ(b1, b2);
  EXPECT_EQ(c1, c2);
  auto g1 = rng::stream(3, 0, 0, rng::purpose::noise), g2 = g1;
  const auto h1 = sh.release(d, grid, g1), h2 = sh.release(d2, grid, g2);
  EXPECT_EQ(h1.bins, h2.bins);
  EXPECT_EQ(h1.values, h2.values);
}

// Thresholded Laplace law of one bin with count c (frequencies, n records).
struct bin_law {
  double loc, b, t;
  double mass_zero() const {  // P(c/n + xi < t)
    return boost::math::cdf(boost::math::laplace_distribution<double>(loc, b), t);
  }
  double density(double y) const {  // y >= t
    return boost::math::pdf(boost::math::laplace_distribution<double>(loc, b), y);
  }
};

TEST(PrivacyExact, StableHistogramOccupiedBinsCase) {
  for (double eps : {0.3, 1.0, 3.0})
    for (std::size_t n : {10u, 1000u}) {
      const auto sh = stable_histogram::calibrate(eps, 1e-5, histogram_noise::laplace);
      const double b = sh.noise_scale(n), t = sh.threshold(n), dn = static_cast<double>(n);
      EXPECT_DOUBLE_EQ(b, 2.0 / (eps * dn));
      EXPECT_DOUBLE_EQ(t, 2.0 / (eps * dn) * std::log(2.0 / 1e-5) + 1.0 / dn);
      double worst = 0.0;
      for (std::int64_t c = 1; c <= 30; ++c) {  // bin count c vs c + 1 (both occupied)
        const bin_law p{static_cast<double>(c) / dn, b, t},
            q{static_cast<double>(c + 1) / dn, b, t};
        worst = std::max({worst, p.mass_zero() / q.mass_zero(), q.mass_zero() / p.mass_zero()});
        for (int i = 0; i <= 400; ++i) {
          const double y =
              t + (static_cast<double>(i) / 100.0) * (static_cast<double>(c) + 5.0) / dn;
          worst = std::max({worst, p.density(y) / q.density(y), q.density(y) / p.density(y)});
        }
      }
      // Per bin <= e^(eps/2); two bins change, so the joint pointwise ratio is <= e^eps.
      EXPECT_LE(worst, std::exp(eps / 2.0) * (1.0 + 1e-9)) << eps << " " << n;
      EXPECT_LE(worst * worst, std::exp(eps) * (1.0 + 1e-9));
    }
}

TEST(PrivacyExact, StableHistogramAppearingBinDeltaTerm) {
  for (double eps : {0.3, 1.0, 3.0})
    for (double delta : {1e-9, 1e-6, 1e-3})
      for (std::size_t n : {5u, 100u, 100000u}) {
        const auto sh = stable_histogram::calibrate(eps, delta, histogram_noise::laplace);
        const double dn = static_cast<double>(n);
        const bin_law one{1.0 / dn, sh.noise_scale(n), sh.threshold(n)};
        // P(released | count 1) (exact complement, no cancellation); 0 under count 0.
        const double appear = boost::math::cdf(boost::math::complement(
            boost::math::laplace_distribution<double>(one.loc, one.b), one.t));
        EXPECT_NEAR(appear / (delta / 4.0), 1.0, 1e-6) << eps << " " << delta << " " << n;
        EXPECT_LE(appear, delta / 2.0);
        // A bin that disappears and one that appears (record moves to a new bin from a bin it
        // was alone in): delta of the pair is the appearance probability of the new bin.
        EXPECT_LE(appear, delta);
      }
}

TEST(PrivacyExact, StableHistogramDiscreteVariantDeltaTerm) {
  for (double eps : {0.5, 1.0, 2.0})
    for (double delta : {1e-8, 1e-4}) {
      const auto sh = stable_histogram::calibrate(eps, delta, histogram_noise::discrete_laplace);
      const auto dl = sh.count_noise();
      const std::int64_t thr = sh.count_threshold();
      long double appear = 0.0L;  // P(1 + Z >= T) = sum_{z >= T - 1} pmf(z)
      for (std::int64_t z = thr - 1; z < thr + 4000; ++z) appear += dl.pmf(z);
      EXPECT_LE(static_cast<double>(appear), delta / 2.0) << eps << " " << delta;
      // Per-bin count noise ratio e^(1/tau) <= e^(eps/2).
      EXPECT_LE(dl.pmf(0) / dl.pmf(1), std::exp(eps / 2.0) * (1.0 + 1e-12));
    }
}

TEST(PrivacyExact, SelectionRatios) {
  std::mt19937_64 e(4);
  std::uniform_real_distribution<double> unif(-3.0, 3.0);
  for (double eps : {0.5, 2.0})
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<double> u(5), v(5);
      for (std::size_t i = 0; i < 5; ++i) {
        u[i] = unif(e);
        v[i] = u[i] + (unif(e) / 3.0);  // |u - v|_inf <= 1 = Delta_u
      }
      const auto em = exponential_mechanism::calibrate(eps, 1.0);
      const auto pf = permute_and_flip::calibrate(eps, 1.0);
      const auto pu = em.probabilities(u), pv = em.probabilities(v);
      const auto fu = pf.probabilities(u), fv = pf.probabilities(v);
      double su = 0, sf = 0;
      for (std::size_t i = 0; i < 5; ++i) {
        EXPECT_LE(pu[i] / pv[i], std::exp(eps) * (1 + 1e-12));
        EXPECT_LE(fu[i] / fv[i], std::exp(eps) * (1 + 1e-12));
        su += pu[i];
        sf += fu[i];
      }
      EXPECT_NEAR(su, 1.0, 1e-12);
      EXPECT_NEAR(sf, 1.0, 1e-12);
    }
}

}  // namespace
