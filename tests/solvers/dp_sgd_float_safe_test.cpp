// Float-safe DP-SGD (dp_sgd_options::noise_kind = float_safe; docs/theory/float-safe-dp-sgd.md):
//  * the exact integer aggregate: the grid u and bound K for several clip norms; every
//    clipped, truncated vector has exact integer norm <= K (brute force over random directions
//    and lengths, norms in 128-bit integers here); a vector above the bound is refused;
//  * events: one subsampled_gaussian_event{q', sigma} per step with q' the inclusion
//    probability of u01 < q (counted here from the definition of u01), sensitivity K u <= G and
//    noise sd >= sigma K u; the PLD epsilon of the float-safe run equals the research-grade
//    calibration target (amplification kept);
//  * the noise actually drawn: with zero gradients and q = 1, one step's iterate is -eta/n times
//    the noise: KS against N(0, (sigma G)^2) over 200,000 coordinates (false-positive rate 1e-6,
//    DKW), with power against sd 1.05 sigma G and against the sd without the clip norm.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <variant>
#include <vector>

#include <boost/math/distributions/normal.hpp>

#include "dpx/accounting/calibration.hpp"
#include "dpx/accounting/pld.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/dp_sgd.hpp"
#include "test_util.hpp"

namespace dpx::solvers {
namespace {

__extension__ using u128 = unsigned __int128;

TEST(DpSgdFloatSafe, GridAggregateBoundIsExact) {
  rng::philox4x32 gen(5);
  for (const double clip : {1.0, 2.5, 1e-3, 7.3e5, 0.7}) {
    const auto a = detail::grid_aggregate::for_clip(clip);
    int e = 0;
    EXPECT_EQ(std::frexp(a.unit, &e), 0.5) << "unit is a power of two";
    EXPECT_GE(a.bound, std::int64_t{1} << 30);
    EXPECT_LT(a.bound, std::int64_t{1} << 31);
    EXPECT_LE(static_cast<double>(a.bound) * a.unit, clip);
    EXPECT_GT(static_cast<double>(a.bound + 1) * a.unit, clip);
    EXPECT_LT(a.clip, clip);
    const u128 k2 = static_cast<u128>(a.bound) * static_cast<u128>(a.bound);
    for (int trial = 0; trial < 2000; ++trial) {
      const std::size_t d = 1 + gen() % 40;
      std::vector<double> v(d);
      double nrm = 0;
      for (double& x : v) {
        x = rng::uniform01(gen) - 0.5;
        nrm += x * x;
      }
      nrm = std::sqrt(nrm);
      // Clipped to a.clip as a loss would (and, every 4th trial, to exactly the clip norm G).
      const double target = trial % 4 == 0 ? clip : a.clip;
      for (double& x : v) x *= target / nrm;
      std::vector<std::int64_t> sum(d, 0);
      const bool added = a.add(v, sum);
      u128 n2 = 0;
      for (const auto k : sum)
        n2 += static_cast<u128>(k < 0 ? -k : k) * static_cast<u128>(k < 0 ? -k : k);
      EXPECT_LE(n2, k2) << "clip " << clip << " trial " << trial;
      if (trial % 4 != 0) {
        EXPECT_TRUE(added) << "a vector clipped to G (1 - 2^-30) is kept";
      }
      if (added) {
        for (std::size_t j = 0; j < d; ++j) {
          EXPECT_EQ(sum[j], static_cast<std::int64_t>(std::trunc(v[j] / a.unit)));
        }
      }
    }
    // Above the bound: refused, the sum unchanged.
    std::vector<double> big{clip * (1 + 0x1p-20), 0.0};
    std::vector<std::int64_t> sum{3, 4};
    EXPECT_FALSE(a.add(big, sum));
    EXPECT_EQ(sum, (std::vector<std::int64_t>{3, 4}));
  }
}

TEST(DpSgdFloatSafe, RateAsDrawnByCounting) {
  // u01 = m 2^-53, m in [0, 2^53): #{m : m 2^-53 < q} = ceil(q 2^53) (m < q 2^53 <=> m <=
  // ceil(q 2^53) - 1 for integer m). Checked against the smallest m with m 2^-53 >= q found by
  // bisection on m.
  for (const double q : {0.1, 0.01, 1e-4, 0.5, 0.75, 1.0 / 3.0, 1.0}) {
    std::uint64_t lo = 0, hi = std::uint64_t{1} << 53;  // smallest m with m 2^-53 >= q
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (static_cast<double>(mid) * 0x1p-53 >= q)
        hi = mid;
      else
        lo = mid + 1;
    }
    const double count_rate = static_cast<double>(lo) * 0x1p-53;
    EXPECT_EQ(detail::poisson_rate_as_drawn(q), q >= 1 ? 1.0 : count_rate) << q;
    EXPECT_GE(detail::poisson_rate_as_drawn(q), q);
    EXPECT_LT(detail::poisson_rate_as_drawn(q) - q, 0x1p-53);
  }
}

TEST(DpSgdFloatSafe, EventsAreTheSubsampledGaussianAndKeepAmplification) {
  const auto s = testing::make_design(400, 4, 2, 0.3, 0.3, 11);
  const losses::glm_loss loss(losses::glm_kind::least_squares, {s.x, s.y, s.n, s.d});
  dp_sgd_options o;  // float_safe by default
  ASSERT_EQ(o.noise_kind, mechanisms::noise_kind::float_safe);
  o.iterations = 300;
  o.sampling_rate = 0.05;
  o.clip_norm = 2.5;
  o.trace.enabled = false;
  const double eps = 1.0, delta = 1e-5;
  o.noise_multiplier = accounting::calibrate_gaussian(accounting::gaussian_calibration::pld,
                                                      eps,
                                                      delta,
                                                      o.iterations,
                                                      detail::poisson_rate_as_drawn(0.05));
  auto g = rng::stream(3, 0, 0, rng::purpose::noise);
  const auto r = dp_sgd(loss, prox::zero_penalty{}, std::vector<double>(s.d, 0.0), o, g);
  ASSERT_EQ(r.privacy_events.size(), 300u);
  for (const auto& run : r.privacy_events.runs()) {
    const auto& e = std::get<core::subsampled_gaussian_event>(run.event);
    EXPECT_EQ(e.sampling_rate, std::ceil(0.05 * 0x1p53) * 0x1p-53);
    EXPECT_EQ(e.noise_multiplier, o.noise_multiplier);
  }
  EXPECT_LE(r.sensitivity, 2.5);
  EXPECT_GE(r.sensitivity, 2.5 * (1 - 0x1p-29));
  EXPECT_GE(r.noise_scale, o.noise_multiplier * r.sensitivity);
  EXPECT_NE(r.guarantee.find("float-safe"), std::string::npos) << r.guarantee;
  accounting::pld_accountant acc;
  for (const auto& run : r.privacy_events.runs()) acc.compose(run.event, run.count);
  const double got = acc.epsilon(delta);
  EXPECT_LE(got, eps * (1 + 1e-9));
  EXPECT_GT(got, 0.95 * eps) << "amplified: about the target, far below zCDP without it";
}

TEST(DpSgdFloatSafe, NoiseDrawnIsGaussianWithSdSigmaG) {
  // Zero gradients (y = 0 at theta0 = 0), q = 1, eta = 1, one step: theta_1 = -(noisy sum)/n.
  const std::size_t n = 10, d = 100;
  std::vector<double> x(n * d), y(n, 0.0);
  rng::philox4x32 gx(8);
  for (double& v : x) v = rng::uniform01(gx) - 0.5;
  const losses::glm_loss loss(losses::glm_kind::least_squares, {x, y, n, d});
  dp_sgd_options o;
  o.iterations = 1;
  o.sampling_rate = 1.0;
  o.step_size = 1.0;
  o.clip_norm = 2.5;
  o.noise_multiplier = 1.7;
  o.trace.enabled = false;
  std::vector<double> noise;
  noise.reserve(200000);
  for (std::uint64_t seed = 0; noise.size() < 200000; ++seed) {
    auto g = rng::stream(seed, 0, 0, rng::purpose::noise);
    const auto r = dp_sgd(loss, prox::zero_penalty{}, std::vector<double>(d, 0.0), o, g);
    for (const double t : r.x) noise.push_back(-t * static_cast<double>(n));
  }
  const auto ks = [&](double sd) {
    const boost::math::normal_distribution<double> nd(0.0, sd);
    return testing::ks_distance(noise, [&](double v) { return boost::math::cdf(nd, v); });
  };
  const double crit = std::sqrt(std::log(2.0 / 1e-6) / (2.0 * static_cast<double>(noise.size())));
  EXPECT_LE(ks(1.7 * 2.5), crit);
  EXPECT_GT(ks(1.05 * 1.7 * 2.5), crit) << "power: 5 % too much noise";
  EXPECT_GT(ks(1.7), crit) << "power: noise not scaled by the clip norm";
}

}  // namespace
}  // namespace dpx::solvers
