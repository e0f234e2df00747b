// Properties checked (fixed-seed audits of the histogram-stage, composed-estimator, L2-Laplace
// and float-safe Gaussian pairs; each audit's statement is "P(lower bound > true epsilon) <= 1 -
// confidence", auditor.hpp; the validity of every named audit against its claim is in
// audit_statistical_test.cpp):
//  * THE EVENT OF THE HISTOGRAM-STAGE PAIR, on the estimators themselves: over 2 x 10^4 runs of
//    winsorized_mean and kv_mean on each side of the pair (eps = 1, delta = 1e-5), the frequency
//    of E = {only bin B released} is within 5 sd of the closed form (P_D(E) = e^{-3/4}/4 =
//    0.118, P_D'(E) = e^{-1/4}/4 = 0.195; independently integrated in stage_pairs_test.cpp):
//    false-positive rate 6e-7 per check; a miscalibrated threshold (one count off) would move
//    P_D(E) by a factor e^{-1/4}, 25 sd away.
//  * VALIDITY AGAINST THE PAIR'S EXACT CEILING (stronger than the claim, confidence 0.99): the
//    both-stages audits stay below eps_h + eps_m (kappa + min(h, kappa))/(2 kappa) (0.833
//    winsorized, 0.762 Karwa–Vadhan at eps = 1); the one-coordinate L2-Laplace audit stays below
//    Delta/b (the pair is exactly (Delta/b)-DP: 0.204 at eps = 1, delta = 1e-5).
//  * TIGHTNESS (confidence 0.95, 4-5 x 10^4 trials): the histogram-stage audits reach >= 0.8 of
//    eps_h (the event attains e^{eps_h} exactly; measured 0.90-0.93 of it at 10^5), the
//    both-stages audits >= 0.8 of their ceiling and above eps_h AND above eps_m (so they
//    measure the two stages together: no single stage can reach that far on the pair), the
//    sample-split and unknown-sigma Karwa–Vadhan means >= 0.8 of their mean-stage claims (the
//    composed local mean, d = 4: >= 0.6, its event having probability 2^-4), the
//    one-coordinate L2-Laplace >= 0.8 Delta/b.
//  * THE FULL EPSILON: with a wide-bin rule (h = 4 >= kappa = 2) the both-stages pair's ceiling
//    is eps_h + eps_m = eps; 5 x 10^4 trials: <= eps at confidence 0.99, >= 0.85 eps at 0.95
//    (measured 0.953): the total claim of S1 Alg. 4 is tight.
//  * POWER (confidence 0.95): the broken variants (both stages at 2 eps for the histogram-stage
//    pairs; mean noise halved for the composed estimators) exceed their claims; the
//    one-coordinate L2-Laplace at half scale exceeds the pair's exact value Delta/b (it does
//    NOT exceed the library's claim, which is ~5x loose on this pair: documented, not tested).
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "dpx/audit/audits.hpp"
#include "dpx/audit/stage_pairs.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/l2_laplace.hpp"
#include "dpx/mechanisms/selection.hpp"

#include "named_audit_run.hpp"

namespace {

using namespace dpx;

using audit::testing::run_named;

TEST(StageAudit, EventFrequencyMatchesTheClosedForm) {
  const std::size_t trials = 20000;
  const auto d = audit::make_histogram_stage_design(0.5, 1e-5);
  for (int which = 0; which < 2; ++which) {
    auto g = rng::stream(101, 0, 0, rng::purpose::audit);
    audit::sample_pair p;
    if (which == 0) {
      estimators::winsorized_mean_options o{1.0, 1e-5, estimators::interval_rule::paper(1.0)};
      o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
      p = audit::winsorized_mean_stage_pair(o, audit::estimator_stage::histogram, trials, g);
    } else {
      estimators::kv_mean_options o;
      o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
      o.target.epsilon = 1.0;
      o.target.delta = 1e-5;
      p = audit::kv_mean_stage_pair(o, audit::estimator_stage::histogram, trials, g);
    }
    for (int side = 0; side < 2; ++side) {
      double k = 0;
      for (double v : (side ? p.s1 : p.s0)[0]) k += v;
      const double q = side ? d.event_probability_neighbour : d.event_probability;
      const double sd = std::sqrt(q * (1 - q) / trials);
      EXPECT_NEAR(k / trials, q, 5 * sd) << which << " side " << side;
    }
  }
}

TEST(StageAudit, QuantileEventFrequencyValidityTightnessPower) {
  // The exponential-mechanism median's pair: P(y >= a) on each side within 5 sd of the closed
  // form (brute-forced in stage_pairs_test.cpp); the audit below the pair's ceiling 0.970 at
  // confidence 0.99, >= 0.8 of it at 0.95; at 2 eps (broken) above eps.
  mechanisms::quantile_options o;
  const auto l = audit::make_quantile_pair_layout(o, 50);
  const std::size_t trials = 20000;
  auto g = rng::stream(141, 0, 0, rng::purpose::audit);
  const auto p = audit::exponential_quantile_pair(o, 50, trials, g);
  for (int side = 0; side < 2; ++side) {
    double k = 0;
    for (double v : (side ? p.s1 : p.s0)[0]) k += v >= l.a ? 1 : 0;
    const double q = side ? l.p_d_prime : l.p_d;
    EXPECT_NEAR(k / trials, q, 5 * std::sqrt(q * (1 - q) / trials)) << side;
  }
  const auto v = run_named("exponential_quantile", false, 20000, 0.99, 141);
  EXPECT_LE(v.audit.epsilon_lower_bound, l.ceiling);
  const auto t = run_named("exponential_quantile", false, 50000, 0.95, 142);
  EXPECT_GE(t.audit.epsilon_lower_bound, 0.8 * l.ceiling);
  const auto b = run_named("exponential_quantile", true, 20000, 0.95, 143);
  EXPECT_GT(b.audit.epsilon_lower_bound, b.claimed_epsilon);
}

TEST(StageAudit, BothStagesStayBelowThePairsExactCeiling) {
  const double ceil_w = audit::both_stages_ceiling(0.5, 0.5, estimators::interval_rule::paper(1.0));
  const auto d = audit::make_histogram_stage_design(0.5, 1e-5);
  estimators::kv_mean_options ko;
  ko.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  const double ceil_kv = audit::both_stages_ceiling(
      0.5, 0.5, estimators::interval_rule{0.5, audit::kv_radius(ko, d.n)});
  EXPECT_NEAR(ceil_w, 0.5 + 0.5 * 4.0 / 6.0, 1e-12);
  EXPECT_NEAR(ceil_kv, 0.762, 5e-4);
  const auto w = run_named("winsorized_mean_both", false, 20000, 0.99, 111);
  const auto k = run_named("kv_mean_both", false, 20000, 0.99, 111);
  EXPECT_LE(w.audit.epsilon_lower_bound, ceil_w);
  EXPECT_LE(k.audit.epsilon_lower_bound, ceil_kv);
  // L2 Laplace, one coordinate: exactly (Delta/b)-DP on the pair
  const auto m = mechanisms::l2_laplace::calibrate(1.0, 1e-5, 1.0);
  const auto l2 = run_named("l2_laplace", false, 100000, 0.99, 111);
  EXPECT_NEAR(1.0 / m.scale(), 0.2041, 1e-4);
  EXPECT_LE(l2.audit.epsilon_lower_bound, 1.0 / m.scale());
}

TEST(StageAudit, TightAgainstTheirClaimsOrCeilings) {
  // 5 x 10^4 trials (a run of these n = 99 pairs costs ~1 us): at 2 x 10^4 the evaluation
  // split's Clopper–Pearson slack leaves the bounds within a few hundredths of 0.8 x.
  for (const char* name : {"winsorized_mean_histogram", "kv_mean_histogram"}) {
    const auto r = run_named(name, false, 50000, 0.95, 121);
    EXPECT_DOUBLE_EQ(r.claimed_epsilon, 0.5) << name;
    EXPECT_GE(r.audit.epsilon_lower_bound, 0.8 * r.claimed_epsilon) << name;
  }
  const auto d = audit::make_histogram_stage_design(0.5, 1e-5);
  estimators::kv_mean_options ko;
  ko.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  const struct {
    const char* name;
    double ceiling;
  } both[] = {{"winsorized_mean_both",
               audit::both_stages_ceiling(0.5, 0.5, estimators::interval_rule::paper(1.0))},
              {"kv_mean_both",
               audit::both_stages_ceiling(
                   0.5, 0.5, estimators::interval_rule{0.5, audit::kv_radius(ko, d.n)})}};
  for (const auto& c : both) {
    const auto r = run_named(c.name, false, 50000, 0.95, 121);
    EXPECT_DOUBLE_EQ(r.claimed_epsilon, 1.0) << c.name;
    EXPECT_GE(r.audit.epsilon_lower_bound, 0.8 * c.ceiling) << c.name;
    EXPECT_GT(r.audit.epsilon_lower_bound, 0.5) << c.name;  // beyond either stage alone
  }
  for (const char* name : {"sample_split_mean", "kv_mean_unknown_sigma"}) {
    const auto r = run_named(name, false, 40000, 0.95, 121);
    EXPECT_GE(r.audit.epsilon_lower_bound, 0.8 * r.claimed_epsilon) << name;
  }
  // The composed local pair's bound-carrying event (all four values in their tails) has
  // probability 2^-4 on D', so the Clopper–Pearson slack is larger: >= 0.6 of eps/2 at 4 x 10^4
  // trials (measured 0.385 = 0.77; a pair reaching only one coordinate's eps/8, or the two
  // rounds of one coordinate, eps/4, would fail).
  const auto lh = run_named("local_mean_hd", false, 40000, 0.95, 121);
  EXPECT_GE(lh.audit.epsilon_lower_bound, 0.6 * lh.claimed_epsilon);
  const auto m = mechanisms::l2_laplace::calibrate(1.0, 1e-5, 1.0);
  const auto l2 = run_named("l2_laplace", false, 100000, 0.95, 121);
  EXPECT_GE(l2.audit.epsilon_lower_bound, 0.8 / m.scale());
}

TEST(StageAudit, WideBinRuleMakesBothStagesReachTheTotalEpsilon) {
  // With h >= kappa (custom rule h = 4, kappa = 2) the moved record goes from -kappa to +kappa
  // under I_B: the pair's ceiling is eps_h + eps_m = eps, the estimator's total claim. The audit
  // of the two stages together stays below eps (confidence 0.99) and reaches >= 0.85 eps with
  // 5 x 10^4 trials (confidence 0.95): the basic-composition claim of S1 Alg. 4 is tight.
  estimators::winsorized_mean_options o{1.0, 1e-5, estimators::interval_rule::custom(4.0, 2.0)};
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  EXPECT_DOUBLE_EQ(audit::both_stages_ceiling(0.5, 0.5, o.rule), 1.0);
  for (const double confidence : {0.99, 0.95}) {
    auto g = rng::stream(confidence > 0.98 ? 151 : 152, 0, 0, rng::purpose::audit);
    const auto p = audit::winsorized_mean_stage_pair(o, audit::estimator_stage::both, 50000, g);
    audit::audit_options ao;
    ao.confidence = confidence;
    ao.delta = 1e-5;
    const double lb = audit::audit_samples(p.s0, p.s1, ao).epsilon_lower_bound;
    if (confidence > 0.98)
      EXPECT_LE(lb, 1.0);
    else
      EXPECT_GE(lb, 0.85);
  }
}

TEST(StageAudit, BrokenVariantsAreCaught) {
  for (const char* name : {"winsorized_mean_histogram",
                           "kv_mean_histogram",
                           "winsorized_mean_both",
                           "kv_mean_both",
                           "sample_split_mean",
                           "kv_mean_unknown_sigma",
                           "winsorized_mean_hd",
                           "priestley_chao_grid",
                           "user_mean_hd",
                           "local_mean_hd"}) {
    const std::string s = name;
    const bool slow =
        s == "winsorized_mean_hd" || s == "priestley_chao_grid" || s == "user_mean_hd";
    const auto r = run_named(name, true, slow ? 10000 : 20000, 0.95, 131);
    EXPECT_GT(r.audit.epsilon_lower_bound, r.claimed_epsilon) << name;
    EXPECT_TRUE(r.violation) << name;
  }
  // L2 Laplace at half scale: above the pair's exact value Delta/b of the correct mechanism
  const auto m = mechanisms::l2_laplace::calibrate(1.0, 1e-5, 1.0);
  const auto l2 = run_named("l2_laplace", true, 100000, 0.95, 131);
  EXPECT_GT(l2.audit.epsilon_lower_bound, 1.0 / m.scale());
}

}  // namespace
