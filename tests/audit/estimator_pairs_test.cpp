// Properties checked (exact, no statistics): the estimator pairs of pairs.hpp and their claims.
//  * half_noise_estimate halves exactly the noise of a release: c + (estimate - c)/2 with c the
//    clipped mean over the released interval, computed here by hand.
//  * The broken pairs consume the same draws as the correct ones (the wrapper only rescales the
//    released noise): with the same seed, every broken statistic is the correct one with its
//    noise halved around the known clipped value (-+kappa/n central, -+kappa local).
//  * The local pair's input is outside every histogram bin and beyond every |m^| + kappa, so
//    every statistic is -+kappa + noise.
//  * The claims: mean stage's share eps/2 - ln(1 - delta/4) at delta/4 (central), eps/2 at 0
//    (local), total_epsilon = eps; closed forms computed here.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/audit/audits.hpp"
#include "dpx/audit/pairs.hpp"
#include "dpx/core/rng.hpp"

namespace {

using namespace dpx;

TEST(EstimatorPairs, HalfNoiseEstimateHalvesTheNoiseAroundTheClippedMean) {
  estimators::mean_result r;
  r.range = {-1.0, 3.0};
  const std::vector<double> x = {-5.0, 0.0, 2.0, 10.0};  // clipped: -1, 0, 2, 3 -> mean 1
  r.estimate = 1.0 + 0.75;
  EXPECT_DOUBLE_EQ(audit::half_noise_estimate(r, x), 1.0 + 0.375);
  r.estimate = 1.0 - 2.5;
  EXPECT_DOUBLE_EQ(audit::half_noise_estimate(r, x), 1.0 - 1.25);
}

TEST(EstimatorPairs, BrokenCentralPairsHalveTheSameDraws) {
  const std::size_t n = 50, trials = 200;
  estimators::winsorized_mean_options wo;
  wo.epsilon = 1.0;
  wo.delta = 1e-5;
  wo.rule = estimators::interval_rule::paper(1.0);
  estimators::kv_mean_options ko;
  ko.epsilon = 1.0;
  ko.delta = 1e-5;
  for (int which = 0; which < 2; ++which) {
    const double kappa = which == 0 ? wo.rule.radius : audit::kv_radius(ko, n);
    EXPECT_DOUBLE_EQ(audit::kv_radius(ko, n), 4.0 * std::sqrt(std::log(n / 0.1)));
    auto g1 = rng::stream(5, 0, 0, rng::purpose::audit);
    auto g2 = rng::stream(5, 0, 0, rng::purpose::audit);
    const auto ok = which == 0 ? audit::winsorized_mean_pair(wo, n, trials, g1, false)
                               : audit::kv_mean_pair(ko, n, trials, g1, false);
    const auto br = which == 0 ? audit::winsorized_mean_pair(wo, n, trials, g2, true)
                               : audit::kv_mean_pair(ko, n, trials, g2, true);
    for (int side = 0; side < 2; ++side) {
      // I^ = [-kappa, kappa] except with probability delta/4 = 2.5e-6 per trial
      const double c = (side == 0 ? -kappa : kappa) / static_cast<double>(n);
      const auto& a = side == 0 ? ok.s0[0] : ok.s1[0];
      const auto& b = side == 0 ? br.s0[0] : br.s1[0];
      for (std::size_t i = 0; i < trials; ++i)
        EXPECT_NEAR(b[i] - c, 0.5 * (a[i] - c), 1e-12) << which << " " << side << " " << i;
    }
  }
}

TEST(EstimatorPairs, LocalPairClipsToTheIntervalEndsAndHalvesTheSameDraws) {
  estimators::local_mean_options o;
  o.epsilon = 1.0;
  o.rule = estimators::interval_rule::paper(1.0);  // h = 1, kappa = 3
  o.bound = 10.0;                                  // K = 5: bins cover (-11, 11]
  const double xo = audit::local_mean_outside(o);
  EXPECT_GT(xo, 11.0);        // outside every bin
  EXPECT_GE(xo, 10.0 + 3.0);  // beyond every |m^| + kappa (|m^| <= 2hK = 10)
  EXPECT_DOUBLE_EQ(xo, 10 + 1 + 3 + 2);
  const std::size_t trials = 500;
  auto g1 = rng::stream(6, 0, 0, rng::purpose::audit);
  auto g2 = rng::stream(6, 0, 0, rng::purpose::audit);
  const auto ok = audit::local_mean_pair(o, trials, g1, false);
  const auto br = audit::local_mean_pair(o, trials, g2, true);
  for (int side = 0; side < 2; ++side) {
    const double c = side == 0 ? -3.0 : 3.0;  // clip(x, m^ -+ 3) - m^
    const auto& a = side == 0 ? ok.s0[0] : ok.s1[0];
    const auto& b = side == 0 ? br.s0[0] : br.s1[0];
    for (std::size_t i = 0; i < trials; ++i)
      EXPECT_NEAR(b[i] - c, 0.5 * (a[i] - c), 1e-9) << side << " " << i;
  }
}

TEST(EstimatorPairs, ClaimsAreTheMeanStageShare) {
  for (const char* name : {"winsorized_mean", "kv_mean", "local_mean"}) {
    for (double eps : {0.5, 2.0}) {
      audit::mechanism_audit_spec s;
      s.mechanism = name;
      s.epsilon = eps;
      s.delta = 1e-3;
      s.records = 20;
      auto g = rng::stream(7, 0, 0, rng::purpose::audit);
      const auto r = audit::audit_mechanism(s, 8, {}, g);
      EXPECT_DOUBLE_EQ(r.total_epsilon, eps) << name;
      if (std::string(name) == "local_mean") {
        EXPECT_DOUBLE_EQ(r.claimed_epsilon, eps / 2);
        EXPECT_EQ(r.claimed_delta, 0.0);
      } else {
        EXPECT_DOUBLE_EQ(r.claimed_epsilon, eps / 2 - std::log(1 - 1e-3 / 4)) << name;
        EXPECT_DOUBLE_EQ(r.claimed_delta, 1e-3 / 4) << name;
      }
      EXPECT_EQ(r.audit.delta, r.claimed_delta) << name;
    }
  }
}

TEST(EstimatorPairs, Validation) {
  estimators::winsorized_mean_options wo;
  wo.rule = estimators::interval_rule::paper(1.0);
  auto g = rng::stream(8, 0, 0, rng::purpose::audit);
  EXPECT_THROW(audit::winsorized_mean_pair(wo, 1, 10, g), std::invalid_argument);
  EXPECT_THROW(audit::winsorized_mean_pair(wo, 10, 1, g), std::invalid_argument);
  estimators::kv_mean_options ko;
  EXPECT_THROW(audit::kv_mean_pair(ko, 1, 10, g), std::invalid_argument);
  ko.sigma = -1;
  EXPECT_THROW(audit::kv_mean_pair(ko, 10, 10, g), std::invalid_argument);
  estimators::local_mean_options lo;
  EXPECT_THROW(audit::local_mean_pair(lo, 10, g), std::invalid_argument);  // rule unset
}

}  // namespace
