// Properties checked (exact, no statistics): the estimator pairs of pairs.hpp and their claims.
//  * half_noise_estimate halves exactly the noise of a release: c + (estimate - c)/2 with c the
//    clipped mean over the released interval, computed here by hand.
//  * The broken pairs consume the same draws as the correct ones (the wrapper only rescales the
//    released noise): with the same seed, every broken statistic is the correct one with its
//    noise halved around the known clipped value (-+kappa/n central, -+kappa local).
//  * The local pair's input is outside every histogram bin and beyond every |m^| + kappa, so
//    every statistic is -+kappa + noise.
//  * The user-level pair is user level and attains the calibrated sensitivity: the lone user's
//    whole row (all T values) differs between D and D', its average is -+10 kappa, the
//    release is reported at user level with n = USERS, and its Laplace scale is 2 kappa/(n
//    eps_m) with n the number of users (not n T rows): the clipped means -+kappa/n differ by
//    exactly the sensitivity the noise is calibrated for. Same for Priestley–Chao at a point:
//    Z_i0 = -+10 kappa with kappa = 3 tau, tau from Lemma 4.9's closed form computed here, and
//    scale 2 kappa/(n eps/2). The broken variants halve the same draws around -+kappa/n.
//    random_effects_mean and longitudinal_regression (p = 1) pairs reproduce the winsorized
//    pair draw for draw (they are Alg. 4 on the user averages / per-user coefficients).
//  * The claims: mean stage's share eps/2 - ln(1 - delta/4) at delta/4 (central), eps/2 at 0
//    (local), total_epsilon = eps; closed forms computed here.
#include <cmath>
#include <numbers>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/audit/audits.hpp"
#include "dpx/audit/estimator_pairs.hpp"
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
  wo.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  wo.target.epsilon = 1.0;
  wo.target.delta = 1e-5;
  wo.rule = estimators::interval_rule::paper(1.0);
  estimators::kv_mean_options ko;
  ko.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  ko.target.epsilon = 1.0;
  ko.target.delta = 1e-5;
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
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
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

TEST(EstimatorPairs, UserMeanPairChangesOneWholeUserAndAttainsTheCalibratedSensitivity) {
  const std::size_t users = 40, times = 6, trials = 200;
  estimators::winsorized_mean_hd_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  o.target.epsilon = 0.8;
  o.target.delta = 1e-5;
  o.rule = estimators::interval_rule::paper(0.5);  // kappa = 1.5
  const double kappa = 1.5;
  // The pair's panels (as user_mean_pair builds them): only the last user's row differs, in
  // every one of its T values.
  std::vector<double> d0(users * times, 0.0), d1(users * times, 0.0);
  for (std::size_t t = 0; t < times; ++t) {
    d0[(users - 1) * times + t] = -10 * kappa;
    d1[(users - 1) * times + t] = 10 * kappa;
  }
  std::size_t differing = 0;
  for (std::size_t i = 0; i < d0.size(); ++i) differing += d0[i] != d1[i] ? 1 : 0;
  EXPECT_EQ(differing, times);
  auto g = rng::stream(9, 0, 0, rng::purpose::audit);
  for (const auto* panel : {&d0, &d1}) {
    const estimators::panel_view v{*panel, users, times, 1};
    const auto avg = estimators::user_averages(v);
    EXPECT_DOUBLE_EQ(avg.back(), panel == &d0 ? -10 * kappa : 10 * kappa);
    const auto r = estimators::user_mean(v, o, g);
    EXPECT_EQ(r.n, users);
    EXPECT_EQ(r.privacy.unit, core::privacy_unit::user);
    EXPECT_EQ(r.budget.kind, estimators::composition::single);
    EXPECT_DOUBLE_EQ(r.privacy.epsilon, 0.8);
    // sensitivity of the clipped mean over n users, at eps_m = eps/2: 2 kappa/n / 0.4
    EXPECT_DOUBLE_EQ(r.noise_scale, 2 * kappa / users / 0.4);
  }
  // The broken variant halves the same draws around the clipped mean -+kappa/n (I^ = [-kappa,
  // kappa] except with probability delta/4 per trial).
  auto g1 = rng::stream(10, 0, 0, rng::purpose::audit);
  auto g2 = rng::stream(10, 0, 0, rng::purpose::audit);
  auto g3 = rng::stream(10, 0, 0, rng::purpose::audit);
  const auto ok = audit::user_mean_pair(o, users, times, trials, g1, false);
  const auto br = audit::user_mean_pair(o, users, times, trials, g2, true);
  // d = 1 has no composition: the user-level pair is the winsorized pair (S1 Alg. 4 at the same
  // (eps, delta, rule)) on the user averages, draw for draw, so the winsorized claim applies.
  const auto wz = audit::winsorized_mean_pair(
      {0.8, 1e-5, o.rule, mechanisms::noise_kind::research_grade}, users, trials, g3, false);
  EXPECT_EQ(ok.s0[0], wz.s0[0]);
  EXPECT_EQ(ok.s1[0], wz.s1[0]);
  for (int side = 0; side < 2; ++side) {
    const double c = (side == 0 ? -kappa : kappa) / static_cast<double>(users);
    const auto& a = side == 0 ? ok.s0[0] : ok.s1[0];
    const auto& b = side == 0 ? br.s0[0] : br.s1[0];
    for (std::size_t i = 0; i < trials; ++i)
      EXPECT_NEAR(b[i] - c, 0.5 * (a[i] - c), 1e-12) << side << " " << i;
  }
}

TEST(EstimatorPairs, RandomEffectsAndRegressionPairsAreTheWinsorizedPairOnTheUserRows) {
  // random_effects_mean is Alg. 4 on the user averages and longitudinal_regression with p = 1
  // is Alg. 5 = Alg. 4 on the per-user coefficients: on these pairs (averages / beta_u = 0, ...,
  // 0, -+10 kappa) both must reproduce winsorized_mean_pair draw for draw, correct and broken.
  const std::size_t users = 30, times = 5, trials = 100;
  const auto rule = estimators::interval_rule::paper(2.0);  // kappa = 6
  const estimators::winsorized_mean_options wo{
      0.7, 1e-4, rule, mechanisms::noise_kind::research_grade};
  estimators::winsorized_mean_hd_options ho;
  ho.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  ho.target.epsilon = 0.7;
  ho.target.delta = 1e-4;
  ho.rule = rule;
  // the regression pair's lone user: x_t = (t + 1)/T, y_t = 60 x_t -> beta_u = 60 (rounding)
  std::vector<double> x(times), y(times);
  for (std::size_t t = 0; t < times; ++t) {
    x[t] = (t + 1.0) / times;
    y[t] = 60 * x[t];
  }
  const auto beta = estimators::detail::per_user_coefficients(
      {x, 1, times, 1}, y, estimators::regression_weighting::ols, {}, nullptr);
  EXPECT_NEAR(beta[0], 60.0, 1e-12);
  for (bool broken : {false, true}) {
    auto g0 = rng::stream(13, 0, 0, rng::purpose::audit);
    auto g1 = rng::stream(13, 0, 0, rng::purpose::audit);
    auto g2 = rng::stream(13, 0, 0, rng::purpose::audit);
    const auto wz = audit::winsorized_mean_pair(wo, users, trials, g0, broken);
    const auto re = audit::random_effects_mean_pair(wo, users, times, trials, g1, broken);
    const auto lr = audit::longitudinal_regression_pair(ho, users, times, trials, g2, broken);
    for (int side = 0; side < 2; ++side) {
      const auto& a = side == 0 ? wz.s0[0] : wz.s1[0];
      const auto& b = side == 0 ? re.s0[0] : re.s1[0];
      const auto& c = side == 0 ? lr.s0[0] : lr.s1[0];
      EXPECT_EQ(a, b) << broken << " " << side;
      for (std::size_t i = 0; i < trials; ++i)
        EXPECT_NEAR(c[i], a[i], 1e-12) << broken << " " << side << " " << i;
    }
  }
  auto g = rng::stream(14, 0, 0, rng::purpose::audit);
  EXPECT_THROW(audit::random_effects_mean_pair(wo, 1, 4, 10, g), std::invalid_argument);
  EXPECT_THROW(audit::longitudinal_regression_pair(ho, 10, 0, 10, g), std::invalid_argument);
}

TEST(EstimatorPairs, PriestleyChaoPairPutsTheLoneTermAtTenKappaAndHalvesTheSameDraws) {
  const std::size_t n = 100, trials = 200;
  estimators::priestley_chao_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  o.target.epsilon = 1.0;
  o.target.delta = 1e-5;
  // Lemma 4.9 with b = 0.1, L_f = ||f|| = sigma^2 = 1, gamma = 0.1, Gaussian kernel:
  // tau = b (mu1 + 1) + (sup + L_K + sqrt(2 sup ln(2n/gamma)))/b.
  const double sup = 1 / std::sqrt(2 * std::numbers::pi);
  const double lk = sup / std::sqrt(std::numbers::e), mu1 = std::sqrt(2 / std::numbers::pi);
  const double tau =
      0.1 * (mu1 + 1) + (sup + lk + std::sqrt(2 * sup * std::log(2 * 100 / 0.1))) / 0.1;
  const double kappa = 3 * tau;
  const std::size_t i0 = audit::priestley_chao_index(n);
  EXPECT_EQ(i0, 50u);
  // y_i0 = 10 kappa b / K(0): Z_i0 = y_i0 K(0)/b = 10 kappa; every other Z_i = 0.
  std::vector<double> y(n, 0.0), z(n);
  y[i0] = 10 * kappa * 0.1 / sup;
  estimators::detail::priestley_chao_terms(y, 0.5, 0.1, estimators::kernel_kind::gaussian, z);
  EXPECT_NEAR(z[i0], 10 * kappa, 1e-9 * kappa);
  auto g = rng::stream(11, 0, 0, rng::purpose::audit);
  const double x0 = 0.5;
  const auto r = estimators::priestley_chao(y, std::span<const double>(&x0, 1), o, g);
  EXPECT_NEAR(r.tau, tau, 1e-12 * tau);
  EXPECT_NEAR(r.noise_scale, 2 * kappa / n / 0.5, 1e-12 * kappa);  // eps_m = eps/2, one point
  auto g1 = rng::stream(12, 0, 0, rng::purpose::audit);
  auto g2 = rng::stream(12, 0, 0, rng::purpose::audit);
  const auto ok = audit::priestley_chao_pair(o, n, trials, g1, false);
  const auto br = audit::priestley_chao_pair(o, n, trials, g2, true);
  for (int side = 0; side < 2; ++side) {
    const double c = (side == 0 ? -kappa : kappa) / static_cast<double>(n);
    const auto& a = side == 0 ? ok.s0[0] : ok.s1[0];
    const auto& b = side == 0 ? br.s0[0] : br.s1[0];
    for (std::size_t i = 0; i < trials; ++i)
      EXPECT_NEAR(b[i] - c, 0.5 * (a[i] - c), 1e-12) << side << " " << i;
  }
}

TEST(EstimatorPairs, ClaimsAreTheMeanStageShare) {
  for (const char* name :
       {"winsorized_mean", "kv_mean", "local_mean", "user_mean", "priestley_chao"}) {
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
  wo.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  wo.rule = estimators::interval_rule::paper(1.0);
  auto g = rng::stream(8, 0, 0, rng::purpose::audit);
  EXPECT_THROW(audit::winsorized_mean_pair(wo, 1, 10, g), std::invalid_argument);
  EXPECT_THROW(audit::winsorized_mean_pair(wo, 10, 1, g), std::invalid_argument);
  estimators::kv_mean_options ko;
  ko.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  EXPECT_THROW(audit::kv_mean_pair(ko, 1, 10, g), std::invalid_argument);
  ko.sigma = -1;
  EXPECT_THROW(audit::kv_mean_pair(ko, 10, 10, g), std::invalid_argument);
  estimators::local_mean_options lo;
  lo.noise = mechanisms::noise_kind::research_grade;                       // S1's mechanisms
  EXPECT_THROW(audit::local_mean_pair(lo, 10, g), std::invalid_argument);  // rule unset
  estimators::winsorized_mean_hd_options uo;
  uo.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  uo.rule = estimators::interval_rule::paper(1.0);
  EXPECT_THROW(audit::user_mean_pair(uo, 1, 4, 10, g), std::invalid_argument);   // users
  EXPECT_THROW(audit::user_mean_pair(uo, 10, 0, 10, g), std::invalid_argument);  // times
  EXPECT_THROW(audit::user_mean_pair(uo, 10, 4, 1, g), std::invalid_argument);   // trials
  EXPECT_THROW(audit::user_mean_pair({}, 10, 4, 10, g), std::invalid_argument);  // rule unset
  estimators::priestley_chao_options po;
  po.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  EXPECT_THROW(audit::priestley_chao_pair(po, 1, 10, g), std::invalid_argument);
  po.bandwidth = 0;
  EXPECT_THROW(audit::priestley_chao_pair(po, 10, 10, g), std::invalid_argument);
}

}  // namespace
