// Properties checked (exact, no statistics): the composed-estimator pairs of composed_pairs.hpp.
//  * symmetric_laplace_llr is the log-likelihood ratio of Laplace releases centred at +c vs -c
//    (closed form: -2c/b below -c, +2c/b above c, 2y/b between; summed over coordinates).
//  * winsorized_mean_hd pair: basic composition is used (per coordinate eps/d, delta/d), the
//    mean noise is Lap(2 kappa/(n eps/(2d))) (closed form here), and with the same seed the
//    broken statistic is the LLR of the estimates with every coordinate's noise halved around
//    its clipped mean -+kappa/n (recomputed here from the correct run's estimates).
//  * user-level hd pair: its statistics equal the winsorized_mean_hd pair's on the user averages
//    (n = users), draw for draw, correct and broken.
//  * local hd pair: basic composition, per-user noise 2 kappa/(eps/(2d)), statistic = the LLR
//    of estimate_j - midpoint_j with centres -+kappa (recomputed with the same draws).
//  * Priestley–Chao grid pair: every point's kernel term of the lone response has magnitude
//    >= 10 kappa (Gaussian kernel computed here), kappa = 3 tau, basic composition (eps/J,
//    delta/J), noise scale 2 kappa/(n eps/(2J)).
//  * sample-split pair: the lone record is in the mean half; the noise is Lap(2 kappa/(|X|
//    eps/2)), |X| = n - floor(n/2); the histogram half is identical on D and D'.
//  * unknown-sigma Karwa–Vadhan pair: the pair differences |x_{2i+1} - x_{2i}| (all the sigma
//    histogram sees) are identical on D and D' (all 1; the lone record is unpaired), sigma^ = 4
//    when bin 0 is released, P >= 10 kappa(4), noise scale 2 kappa(4)/(n eps/3).
//  * The named audits' claims: (eps/2 - ln(1 - delta/4), delta/4) for the composed d = J = 4
//    central releases, eps/2 at delta 0 for the local one, eps/2 at delta 0 for the sample split,
//    (eps/3 - ln(1 - delta/8), delta/8) for the unknown-sigma mean; total_epsilon = eps.
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/audit/audits.hpp"
#include "dpx/audit/composed_pairs.hpp"
#include "dpx/core/rng.hpp"

namespace {

using namespace dpx;

TEST(ComposedPairs, SymmetricLaplaceLogLikelihoodRatio) {
  const double c = 0.5, b = 2.0;
  const std::vector<double> y = {-3.0, -0.5, 0.25, 0.5, 7.0};
  double expect = 0;
  for (double v : y) {
    // log(e^{-|v - c|/b} / e^{-|v + c|/b})
    expect += (std::fabs(v + c) - std::fabs(v - c)) / b;
  }
  EXPECT_NEAR(audit::detail::symmetric_laplace_llr(y, c, b), expect, 1e-15);
  EXPECT_EQ(audit::detail::symmetric_laplace_llr(std::vector<double>{-3.0, -0.6}, c, b), -1.0);
  EXPECT_EQ(audit::detail::symmetric_laplace_llr(std::vector<double>{3.0, 0.5}, c, b), 1.0);
}

TEST(ComposedPairs, WinsorizedMeanHdUsesBasicCompositionAndHalvesTheNoise) {
  const std::size_t n = 50, d = 4, trials = 100;
  estimators::winsorized_mean_hd_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  o.target.epsilon = 1.0;
  o.target.delta = 1e-5;
  o.rule = estimators::interval_rule::paper(1.0);
  const double kappa = 3.0;
  std::vector<double> x(n * d, 0.0);
  std::fill(x.end() - d, x.end(), 30.0);
  o.choice = estimators::composition_choice::basic;
  auto g0 = rng::stream(2, 0, 0, rng::purpose::audit);
  const auto r = estimators::winsorized_mean_hd(std::span<const double>(x), d, o, g0);
  EXPECT_DOUBLE_EQ(r.budget.epsilon, 1.0 / d);
  EXPECT_DOUBLE_EQ(r.budget.delta, 1e-5 / d);
  EXPECT_NEAR(r.noise_scale, 2 * kappa / (n * 0.5 / d), 1e-12);
  // the pair overrides an automatic / advanced choice
  o.choice = estimators::composition_choice::automatic;
  auto g1 = rng::stream(5, 0, 0, rng::purpose::audit);
  auto g2 = rng::stream(5, 0, 0, rng::purpose::audit);
  auto g3 = rng::stream(5, 0, 0, rng::purpose::audit);
  const auto ok = audit::winsorized_mean_hd_pair(o, n, d, trials, g1, false);
  const auto br = audit::winsorized_mean_hd_pair(o, n, d, trials, g2, true);
  // recompute: the same draws, estimates from the estimator itself
  o.choice = estimators::composition_choice::basic;
  const double c = kappa / n, b = 2 * kappa / (n * 0.5 / d);
  for (int side = 0; side < 2; ++side) {
    std::fill(x.end() - d, x.end(), side ? 30.0 : -30.0);
    for (std::size_t i = 0; i < trials; ++i) {
      const auto e = estimators::winsorized_mean_hd(std::span<const double>(x), d, o, g3);
      std::vector<double> y(d), yh(d);
      for (std::size_t j = 0; j < d; ++j) {
        ASSERT_DOUBLE_EQ(e.ranges[j].lo, -kappa);  // no lone bin released at delta = 1e-5 here
        const double centre = side ? c : -c;
        y[j] = e.estimate[j];
        yh[j] = centre + 0.5 * (e.estimate[j] - centre);
      }
      double llr = 0, llrh = 0;
      for (std::size_t j = 0; j < d; ++j) {
        llr += (std::fabs(y[j] + c) - std::fabs(y[j] - c)) / b;
        llrh += (std::fabs(yh[j] + c) - std::fabs(yh[j] - c)) / b;
      }
      EXPECT_NEAR((side ? ok.s1 : ok.s0)[0][i], llr, 1e-9);
      EXPECT_NEAR((side ? br.s1 : br.s0)[0][i], llrh, 1e-9);
    }
  }
}

TEST(ComposedPairs, UserMeanHdIsTheHdPairOnTheUserAverages) {
  // user_mean = winsorized_mean_hd on the user averages, and the lone user's average is
  // -+10 kappa in every coordinate: the same statistics as winsorized_mean_hd_pair with
  // n = users, draw for draw (correct and broken), whatever T.
  const std::size_t users = 30, times = 3, d = 3, trials = 50;
  estimators::winsorized_mean_hd_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  o.target.epsilon = 1.0;
  o.target.delta = 1e-5;
  o.rule = estimators::interval_rule::paper(1.0);
  for (const bool broken : {false, true}) {
    auto g1 = rng::stream(12, 0, 0, rng::purpose::audit);
    auto g2 = rng::stream(12, 0, 0, rng::purpose::audit);
    const auto u = audit::user_mean_hd_pair(o, users, times, d, trials, g1, broken);
    const auto w = audit::winsorized_mean_hd_pair(o, users, d, trials, g2, broken);
    for (std::size_t i = 0; i < trials; ++i) {
      EXPECT_NEAR(u.s0[0][i], w.s0[0][i], 1e-12) << broken << " " << i;
      EXPECT_NEAR(u.s1[0][i], w.s1[0][i], 1e-12) << broken << " " << i;
    }
  }
}

TEST(ComposedPairs, LocalMeanHdIsExactlyALaplacePairPerCoordinate) {
  // One user outside every bin in every coordinate: basic composition (eps/d per coordinate),
  // per-user noise Lap(2 kappa/(eps/(2d))), and estimate_j - midpoint_j = -+kappa + noise: the
  // statistic is the LLR of those values with centres -+kappa (recomputed here with the same
  // draws).
  const std::size_t d = 4, trials = 50;
  estimators::local_mean_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  o.epsilon = 1.0;
  o.rule = estimators::interval_rule::paper(1.0);
  o.bound = 10.0;
  const double kappa = 3.0, xo = audit::local_mean_outside(o);
  EXPECT_GT(xo, 10.0 + 1.0 + kappa);  // beyond the last bin's edge (2hK + h) and |m^| + kappa
  auto g1 = rng::stream(13, 0, 0, rng::purpose::audit);
  auto g2 = rng::stream(13, 0, 0, rng::purpose::audit);
  const auto p = audit::local_mean_hd_pair(o, d, trials, g1);
  o.choice = estimators::composition_choice::basic;
  const double b = 2 * kappa / (0.5 / d);
  for (int side = 0; side < 2; ++side) {
    const std::vector<double> x(d, side ? xo : -xo);
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::local_mean_hd(std::span<const double>(x), d, o, g2);
      EXPECT_DOUBLE_EQ(r.budget.epsilon, 1.0 / d);
      EXPECT_NEAR(r.noise_scale, b, 1e-12 * b);
      double llr = 0;
      for (std::size_t j = 0; j < d; ++j) {
        const double y = r.estimate[j] - 0.5 * (r.ranges[j].lo + r.ranges[j].hi);
        llr += (std::fabs(y + kappa) - std::fabs(y - kappa)) / b;
      }
      EXPECT_NEAR((side ? p.s1 : p.s0)[0][i], llr, 1e-9);
    }
  }
}

TEST(ComposedPairs, PriestleyChaoGridTermsAreFarAtEveryPoint) {
  const std::size_t n = 200, J = 4;
  estimators::priestley_chao_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  o.target.epsilon = 1.0;
  o.target.delta = 1e-5;
  const double kappa = 3 * estimators::priestley_chao_tau(o, n);
  const auto pts = audit::priestley_chao_grid_points(n, J);
  ASSERT_EQ(pts.size(), J);
  const double xi0 = 100.0 / 200.0, bw = o.bandwidth;
  double kmin = 1e300;
  for (double x : pts) {
    const double u = (xi0 - x) / bw;
    kmin = std::min(kmin, std::exp(-u * u / 2) / std::sqrt(2 * std::numbers::pi));
  }
  const double big = 10 * kappa * bw / kmin;  // the pair's Y
  for (double x : pts) {
    const double u = (xi0 - x) / bw;
    const double zterm = big * std::exp(-u * u / 2) / std::sqrt(2 * std::numbers::pi) / bw;
    EXPECT_GE(zterm, 10 * kappa * (1 - 1e-12)) << x;
  }
  // the estimator's budget and noise scale on a J-point grid, basic composition
  o.choice = estimators::composition_choice::basic;
  std::vector<double> y(n, 0.0);
  y[100] = big;
  auto g = rng::stream(6, 0, 0, rng::purpose::audit);
  const auto r = estimators::priestley_chao(std::span<const double>(y), pts, o, g);
  EXPECT_DOUBLE_EQ(r.budget.epsilon, 1.0 / J);
  EXPECT_NEAR(r.noise_scale, 2 * kappa / (n * 0.5 / J), 1e-9 * r.noise_scale);
  for (std::size_t j = 0; j < J; ++j) EXPECT_DOUBLE_EQ(r.ranges[j].hi, kappa);  // bin 0 wins
}

TEST(ComposedPairs, SampleSplitLoneRecordIsInTheMeanHalf) {
  const std::size_t n = 201;
  estimators::sample_split_options o;
  o.base.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  o.base.target.epsilon = 1.0;
  o.base.target.delta = 1e-5;
  o.base.rule = estimators::interval_rule::paper(1.0);
  std::vector<double> x(n, 0.0);
  x.back() = 30.0;
  EXPECT_GE(n - 1, n / 2);  // index n - 1 is a mean row
  auto g = rng::stream(7, 0, 0, rng::purpose::audit);
  const auto r = estimators::sample_split_mean(std::span<const double>(x), 1, o, g);
  EXPECT_NEAR(r.noise_scale, 2 * 3.0 / ((n - n / 2) * 0.5), 1e-12);
  EXPECT_DOUBLE_EQ(r.ranges[0].hi, 3.0);
}

TEST(ComposedPairs, UnknownSigmaPairHidesTheLoneRecordFromTheSigmaHistogram) {
  const std::size_t n = 401;
  estimators::kv_unknown_sigma_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  o.target.epsilon = 1.0;
  o.target.delta = 1e-5;
  const double kappa4 = 4 * 4.0 * std::sqrt(std::log(n / 0.1));
  const double big = audit::kv_unknown_sigma_outside(o, n);
  EXPECT_DOUBLE_EQ(big, 10 * kappa4);
  auto g = rng::stream(8, 0, 0, rng::purpose::audit);
  const auto p = audit::kv_mean_unknown_sigma_pair(o, n, 2, g);
  ASSERT_EQ(p.s0[0].size(), 2u);
  std::vector<double> x(n, 0.0);
  for (std::size_t i = 1; i + 1 < n; i += 2) x[i] = 1.0;
  for (const double last : {-big, big}) {
    x.back() = last;
    for (std::size_t i = 0; i + 1 < n; i += 2) EXPECT_EQ(std::fabs(x[i + 1] - x[i]), 1.0);
    auto g2 = rng::stream(9, 0, 0, rng::purpose::audit);
    const auto r = estimators::kv_mean_unknown_sigma(std::span<const double>(x), o, g2);
    EXPECT_EQ(r.sigma_hat, 4.0);
    EXPECT_NEAR(r.mean.noise_scale, 2 * kappa4 / (n * (1.0 / 3)), 1e-9 * r.mean.noise_scale);
    EXPECT_NEAR(r.mean.range.hi, kappa4, 1e-9 * kappa4);
  }
  EXPECT_THROW((void)audit::kv_mean_unknown_sigma_pair(o, 400, 2, g), std::invalid_argument);
}

TEST(ComposedPairs, NamedAuditClaims) {
  const double eps = 1.5, delta = 1e-4;
  const struct {
    const char* name;
    double claim, claim_delta;
  } cases[] = {
      {"winsorized_mean_hd", eps / 2 - std::log1p(-delta / 4), delta / 4},
      {"user_mean_hd", eps / 2 - std::log1p(-delta / 4), delta / 4},
      {"local_mean_hd", eps / 2, 0.0},
      {"priestley_chao_grid", eps / 2 - std::log1p(-delta / 4), delta / 4},
      {"sample_split_mean", eps / 2, 0.0},
      {"kv_mean_unknown_sigma", eps / 3 - std::log1p(-delta / 8), delta / 8},
  };
  for (const auto& c : cases) {
    audit::mechanism_audit_spec s;
    s.mechanism = c.name;
    s.epsilon = eps;
    s.delta = delta;
    s.records = 40;
    auto g = rng::stream(3, 0, 0, rng::purpose::audit);
    const auto r = audit::audit_mechanism(s, 100, {}, g);
    EXPECT_DOUBLE_EQ(r.claimed_epsilon, c.claim) << c.name;
    EXPECT_DOUBLE_EQ(r.claimed_delta, c.claim_delta) << c.name;
    EXPECT_DOUBLE_EQ(r.total_epsilon, eps) << c.name;
  }
}

}  // namespace
