// Properties checked (dpx::audit threshold auditor and privacy-profile estimate, exact cases):
//  * perfectly separated samples: FPR = FNR = 0 on the evaluation split, so the bound is
//    log((1 - u) / u) with u = 1 - (alpha/2)^(1/n_eval) (the Clopper–Pearson closed form);
//  * the threshold is chosen on the selection split only: samples separable on the selection
//    split but identical on the evaluation split give the bound computed by hand from the
//    evaluation counts (no leakage of the selection data into the bound);
//  * the reported counts and rates are those of the chosen test on the evaluation split;
//  * with several statistics, the informative one is chosen;
//  * delta enters as log((1 - delta - FNR_ub) / FPR_ub);
//  * privacy_profile is exact on discrete samples with known frequencies;
//  * Mironov's support test accepts every research-grade output of the input it came from;
//  * bad options and sizes throw std::invalid_argument; named specs validate their fields.
#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/audit/audit.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/laplace.hpp"

namespace {

using namespace dpx;

TEST(Auditor, SeparatedSamplesGiveTheClosedForm) {
  const std::size_t n = 1000;
  std::vector<double> s0(n, 0.0), s1(n, 1.0);
  audit::audit_options o;
  o.confidence = 0.95;
  const auto r = audit::audit_samples(s0, s1, o);
  EXPECT_EQ(r.selection_trials, 500u);
  EXPECT_EQ(r.evaluation_trials, 500u);
  EXPECT_EQ(r.false_positives, 0u);
  EXPECT_EQ(r.false_negatives, 0u);
  const double u = 1 - std::pow(0.025, 1.0 / 500);
  EXPECT_NEAR(r.fpr_upper, u, 1e-14);
  EXPECT_NEAR(r.fnr_upper, u, 1e-14);
  EXPECT_NEAR(r.epsilon_lower_bound, std::log((1 - u) / u), 1e-12);
}

TEST(Auditor, ThresholdChosenOnSelectionSplitOnly) {
  // Selection half: D gives 0, D' gives 1 (separable). Evaluation half: both sides give the
  // same pattern 0,1,0,1,... so any test has FPR + FNR = 1 there.
  const std::size_t n = 400;
  std::vector<double> s0(n), s1(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i < n / 2) {
      s0[i] = 0;
      s1[i] = 1;
    } else {
      s0[i] = s1[i] = static_cast<double>(i % 2);
    }
  }
  const auto r = audit::audit_samples(s0, s1, {});
  EXPECT_GT(r.selection_epsilon, 3.0);  // optimistic on the selection split
  // Evaluation: S = {s >= t} for t in (0, 1] catches half of each side.
  EXPECT_EQ(r.false_positives, 100u);
  EXPECT_EQ(r.false_negatives, 100u);
  const double ub = audit::clopper_pearson_upper(100, 200, 0.025);
  EXPECT_DOUBLE_EQ(r.fpr_upper, ub);
  EXPECT_EQ(r.epsilon_lower_bound, audit::epsilon_from_rates(ub, ub, 0.0));
  EXPECT_EQ(r.epsilon_lower_bound, 0.0);
}

TEST(Auditor, CountsAreThoseOfTheChosenTest) {
  auto g = rng::stream(7, 0, 0, rng::purpose::audit);
  const auto lap = mechanisms::laplace::from_scale(1.0);
  const auto p = audit::laplace_pair(lap, 20000, g);
  const auto r = audit::audit_samples(p.s0, p.s1, {});
  std::uint64_t fp = 0, fnc = 0;
  for (std::size_t i = r.selection_trials; i < r.trials; ++i) {
    const bool in0 = r.side == audit::test_side::greater_equal ? p.s0[0][i] >= r.threshold
                                                               : p.s0[0][i] <= r.threshold;
    const bool in1 = r.side == audit::test_side::greater_equal ? p.s1[0][i] >= r.threshold
                                                               : p.s1[0][i] <= r.threshold;
    fp += in0;
    fnc += !in1;
  }
  EXPECT_EQ(r.false_positives, fp);
  EXPECT_EQ(r.false_negatives, fnc);
  const double a = audit::clopper_pearson_upper(fp, r.evaluation_trials, 0.025);
  const double b = audit::clopper_pearson_upper(fnc, r.evaluation_trials, 0.025);
  EXPECT_EQ(r.epsilon_lower_bound, audit::epsilon_from_rates(a, b, 0.0));
}

TEST(Auditor, PicksTheInformativeStatistic) {
  const std::size_t n = 600;
  std::vector<std::vector<double>> s0(2, std::vector<double>(n)), s1(2, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    s0[0][i] = s1[0][i] = static_cast<double>(i % 3);  // useless
    s0[1][i] = 0;
    s1[1][i] = 5;  // separating
  }
  const auto r = audit::audit_samples(s0, s1, {});
  EXPECT_EQ(r.statistic, 1u);
  EXPECT_GT(r.epsilon_lower_bound, 4.0);
}

TEST(Auditor, DeltaEntersTheBound) {
  const std::size_t n = 2000;
  std::vector<double> s0(n, 0.0), s1(n, 1.0);
  audit::audit_options o;
  o.delta = 0.1;
  const auto r = audit::audit_samples(s0, s1, o);
  EXPECT_NEAR(r.epsilon_lower_bound, std::log((1 - 0.1 - r.fnr_upper) / r.fpr_upper), 1e-12);
}

TEST(Auditor, BadInputsThrow) {
  std::vector<double> a(10, 0.0), b(9, 0.0), c(10, 0.0);
  EXPECT_THROW(audit::audit_samples(a, b, {}), std::invalid_argument);
  c[3] = std::nan("");
  EXPECT_THROW(audit::audit_samples(a, c, {}), std::invalid_argument);
  audit::audit_options o;
  o.confidence = 1.0;
  EXPECT_THROW(audit::audit_samples(a, a, o), std::invalid_argument);
  o = {};
  o.selection_fraction = 0.0;
  EXPECT_THROW(audit::audit_samples(a, a, o), std::invalid_argument);
  o = {};
  o.delta = -0.1;
  EXPECT_THROW(audit::audit_samples(a, a, o), std::invalid_argument);
  std::vector<double> one(1, 0.0);
  EXPECT_THROW(audit::audit_samples(one, one, {}), std::invalid_argument);
}

TEST(PrivacyProfile, ExactOnDiscreteSamples) {
  // P = (1/2, 1/2), Q = (1/4, 3/4) on {0, 1}.
  std::vector<double> s0, s1;
  for (int i = 0; i < 400; ++i) {
    s0.push_back(i % 2);
    s1.push_back(i % 4 == 0 ? 0.0 : 1.0);
  }
  const std::vector<double> eps = {0.0, 0.2, std::log(2.0), 1.0};
  const auto d = audit::privacy_profile(s0, s1, eps);
  ASSERT_EQ(d.size(), eps.size());
  for (std::size_t i = 0; i < eps.size(); ++i) {
    const double w = std::exp(eps[i]);
    const double pq = std::max(0.0, 0.5 - w * 0.25) + std::max(0.0, 0.5 - w * 0.75);
    const double qp = std::max(0.0, 0.25 - w * 0.5) + std::max(0.0, 0.75 - w * 0.5);
    EXPECT_NEAR(d[i], std::max(pq, qp), 1e-15) << eps[i];
  }
  EXPECT_NEAR(d[0], 0.25, 1e-15);  // total variation
  const std::vector<double> bad = {-1.0};
  EXPECT_THROW(audit::privacy_profile(s0, s1, bad), std::invalid_argument);
}

TEST(Mironov, SupportTestAcceptsGenuineOutputs) {
  const auto lap = mechanisms::laplace::from_scale(2.0);
  auto g = rng::stream(3, 0, 0, rng::purpose::audit);
  for (int i = 0; i < 500; ++i) {
    const double y = lap.release(1.0, g);
    EXPECT_TRUE(audit::detail::research_laplace_can_output(y, 1.0, 2.0)) << y;
  }
}

TEST(NamedAudits, SpecsValidate) {
  audit::mechanism_audit_spec s;
  s.mechanism = "nope";
  EXPECT_THROW(s.validate(), std::invalid_argument);
  s.mechanism = "gaussian";
  s.scale = 1.0;
  EXPECT_THROW(s.validate(), std::invalid_argument);
  s = {};
  s.epsilon = 1.0;
  s.scale = 1.0;
  EXPECT_THROW(s.validate(), std::invalid_argument);
  audit::solver_audit_spec t;
  t.solver = "gist";
  EXPECT_THROW(t.validate(), std::invalid_argument);
  t = {};
  t.iterations = 1;
  EXPECT_THROW(t.validate(), std::invalid_argument);
}

}  // namespace
