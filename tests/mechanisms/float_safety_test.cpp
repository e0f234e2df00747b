// Properties checked (Mironov 2012 floating-point attack):
//  * Research-grade Laplace leaks: for neighbouring inputs 0 and 1 (sensitivity 1), most
//    outputs of M(0) are doubles that M(1) can never produce. We decide "possible under input
//    1" exactly as Mironov argues: the noise takes only 2^53 values f_j (sorted), and
//    fl(1 + f_j) is monotone in j, so a binary search over j finds whether some j gives y. An
//    attacker answering "input was 0" whenever y is impossible under 1 is right on > 50% of M(0)
//    outputs and never wrong on M(1) outputs: the mechanism is not epsilon-DP for any epsilon.
//  * The float-safe Laplace and Gaussian do not leak: every output is a multiple of the grid
//    Lambda, both inputs give it positive probability, and the exact pmf ratio is <= e^eps
//    (Laplace) — no output is impossible under the other input.
//  * Float-safe Gaussian (its claim is rho-zCDP, not a pointwise ratio bound): besides the
//    support argument above, the Renyi divergence of order alpha between the grid noise laws
//    of neighbouring inputs — the discrete Gaussian sampled (its exact rational variance) and
//    the same law shifted by the largest rounded-query difference Delta/Lambda + 1 — is
//    computed by direct summation in long double and is <= alpha rho for every alpha tested
//    (rho-zCDP, Bun & Steinke 2016 Def. 1.1). Power: the naive grid noise sigma/Lambda (no
//    allowance for the rounding of the query) exceeds alpha rho by a factor (1 + Lambda/Delta)^2
//    and is rejected by the same check.
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/float_safe.hpp"
#include "dpx/mechanisms/laplace.hpp"

namespace {

using namespace dpx;

// Output of the research-grade release of `x` for the j-th possible noise value in increasing
// order: the sampler uses word w with u = ((w >> 12) + 1/2) 2^-52 and sign bit 0, so the noise
// takes 2^53 values; j < 2^52 is the negative branch b ln(u_j), j >= 2^52 the positive branch
// -b ln(u_k) with k = 2^53 - 1 - j (bits 1..11 of w do not matter).
double output_for(std::uint64_t j, double x, double b) {
  const std::uint64_t half = std::uint64_t{1} << 52;
  const std::uint64_t w = j < half ? (j << 12) : (((2 * half - 1 - j) << 12) | 1u);
  return x + mechanisms::detail::laplace_from_bits(w, b);
}

// Whether some k in [0, 2^53) gives output y for input x (monotone search, then a small
// neighbourhood scan for robustness against non-monotone rounding).
bool possible(double y, double x, double b) {
  std::uint64_t lo = 0, hi = (std::uint64_t{1} << 53) - 1;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (output_for(mid, x, b) < y)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (std::uint64_t k = lo >= 3 ? lo - 3 : 0; k <= lo + 3 && k < (std::uint64_t{1} << 53); ++k)
    if (output_for(k, x, b) == y) return true;
  return false;
}

TEST(FloatSafety, ResearchGradeLaplaceLeaksThroughLowOrderBits) {
  const auto lap = mechanisms::laplace::calibrate(1.0, 1.0);  // b = 1
  auto g = rng::stream(2012, 0, 0, rng::purpose::audit);
  const int trials = 2000;
  int impossible_under_1 = 0, false_alarms = 0;
  for (int i = 0; i < trials; ++i) {
    const double y0 = lap.release(0.0, g);
    if (!possible(y0, 1.0, lap.scale())) ++impossible_under_1;
    const double y1 = lap.release(1.0, g);
    EXPECT_TRUE(possible(y1, 1.0, lap.scale()));  // sanity: the search finds real outputs
    if (!possible(y1, 1.0, lap.scale())) ++false_alarms;
  }
  // Mironov: a large fraction of M(0)'s outputs cannot come from M(1).
  EXPECT_GT(impossible_under_1, trials / 2) << impossible_under_1;
  EXPECT_EQ(false_alarms, 0);
}

TEST(FloatSafety, FloatSafeLaplaceHasNoImpossibleOutputs) {
  const double eps = 1.0;
  const auto fs = mechanisms::float_safe_laplace::calibrate(eps, 1.0);
  const double lambda = fs.granularity();
  const auto noise = fs.noise_for_dimension(1);
  const auto k1 = static_cast<std::int64_t>(std::nearbyint(1.0 / lambda));
  auto g = rng::stream(2012, 0, 0, rng::purpose::audit);
  double worst = 0.0;
  for (int i = 0; i < 20000; ++i) {
    const double y = fs.release(0.0, g);
    const double k = y / lambda;
    ASSERT_EQ(k, std::nearbyint(k));               // on the grid
    const auto z0 = static_cast<std::int64_t>(k);  // noise under input 0
    const std::int64_t z1 = z0 - k1;               // noise needed under input 1
    const double p0 = noise.pmf(z0), p1 = noise.pmf(z1);
    ASSERT_GT(p1, 0.0);  // possible under the neighbour
    worst = std::max({worst, p0 / p1, p1 / p0});
  }
  EXPECT_LE(worst, std::exp(eps) * (1.0 + 1e-12));
}

TEST(FloatSafety, FloatSafeGaussianHasNoImpossibleOutputs) {
  const auto fs = mechanisms::float_safe_gaussian::from_sigma(2.0, 1.0);
  const double lambda = fs.granularity();
  const auto noise = fs.noise_for_dimension(1);
  const auto k1 = static_cast<std::int64_t>(std::nearbyint(1.0 / lambda));
  auto g = rng::stream(2014, 0, 0, rng::purpose::audit);
  for (int i = 0; i < 20000; ++i) {
    const double y = fs.release(0.0, g);
    const double k = y / lambda;
    ASSERT_EQ(k, std::nearbyint(k));  // on the grid
    const auto z0 = static_cast<std::int64_t>(k);
    ASSERT_GT(noise.pmf(z0), 0.0);
    ASSERT_GT(noise.pmf(z0 - k1), 0.0);  // possible under the neighbouring input 1
  }
}

// D_alpha(N_Z(0, v) || N_Z(s, v)) by direct summation. Both laws have the same normaliser
// (integer shift), so D = ln(sum_z exp(-(alpha z^2 + (1 - alpha)(z - s)^2) / 2v) /
// sum_z exp(-z^2 / 2v)) / (alpha - 1); the numerator's terms are a Gaussian centred at
// (1 - alpha) s, the denominator's at 0, so |z| <= 12 sqrt(v) + |alpha - 1| |s| + |s| holds all
// the mass but a relative e^-72 of each sum.
long double renyi_shifted_discrete_gaussian(long double v, std::int64_t s, long double alpha) {
  const auto lim = static_cast<std::int64_t>(12.0L * std::sqrt(v) +
                                             (std::fabs(alpha - 1.0L) + 1.0L) * std::abs(s)) +
                   1;
  long double num = 0.0L, den = 0.0L;
  for (std::int64_t z = -lim; z <= lim; ++z) {
    const auto zl = static_cast<long double>(z), d = static_cast<long double>(z - s);
    num += std::exp(-(alpha * zl * zl + (1.0L - alpha) * d * d) / (2.0L * v));
    den += std::exp(-zl * zl / (2.0L * v));
  }
  return std::log(num / den) / (alpha - 1.0L);
}

TEST(FloatSafety, FloatSafeGaussianRenyiDivergenceWithinClaimedRho) {
  for (double sigma : {0.75, 2.0}) {
    const auto fs = mechanisms::float_safe_gaussian::from_sigma(sigma, 1.0);
    const double lambda = fs.granularity();
    const auto noise = fs.noise_for_dimension(1);
    const long double v = static_cast<long double>(noise.variance_numerator()) /
                          static_cast<long double>(noise.variance_denominator());
    // Largest |round(x/Lambda) - round(x'/Lambda)| for |x - x'| <= Delta = 1.
    const auto shift = static_cast<std::int64_t>(1.0 / lambda) + 1;
    const long double rho = fs.rho();
    // Naive grid noise: sigma / Lambda in grid units, as if the query were not rounded.
    const long double v_naive = (sigma / lambda) * (sigma / lambda);
    for (long double alpha : {1.5L, 2.0L, 8.0L}) {
      const long double d = renyi_shifted_discrete_gaussian(v, shift, alpha);
      // The sampled law has D_alpha = alpha rho (1 - ~2^-39); summation error < 1e-14.
      EXPECT_LE(d, alpha * rho * (1.0L + 1e-12L)) << sigma << " " << static_cast<double>(alpha);
      EXPECT_GT(d, alpha * rho * (1.0L - 1e-6L));  // tight, not vacuous
      const long double d_naive = renyi_shifted_discrete_gaussian(v_naive, shift, alpha);
      EXPECT_GT(d_naive, alpha * rho * (1.0L + 1e-4L)) << "power, " << sigma;
    }
  }
}

TEST(FloatSafety, FloatSafeGaussianOutputsOnGrid) {
  const auto fs = mechanisms::float_safe_gaussian::from_sigma(2.0, 1.0);
  const double lambda = fs.granularity();
  auto g = rng::stream(2013, 0, 0, rng::purpose::audit);
  std::vector<double> v(1000, 0.3);
  fs.privatize(v, g);
  for (double y : v) {
    const double k = y / lambda;
    EXPECT_EQ(k, std::nearbyint(k));
  }
  for (int i = 0; i < 1000; ++i) {
    const double y = fs.release(1.0, g);
    EXPECT_EQ(y / lambda, std::nearbyint(y / lambda));
  }
}

}  // namespace
