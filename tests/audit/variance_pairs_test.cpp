// Properties checked (exact, no statistics): the plug-in variance pairs of variance_pairs.hpp and
// the two user-level composed pairs added to composed_pairs.hpp.
//  * Bisection design: N_iter = 1, basic composition (eps' = eps/2); the coverage counts
//    (counted here) are c1 - 1 (D) and c1 (D') with c1/n <= 1 - gamma < (c1 + 1)/n; only the last
//    record differs; it clips to -r (D) and +w (D') in the midpoint window.
//  * Bisection probabilities and ceiling against a numerical integration (Simpson) of the
//    Laplace density: P(pass) on both sides, and the log-ratio of P(pass, M >= c_D') — the
//    pair's largest privacy loss — equals 3 eps/4 and variance_bisection_ceiling.
//  * Bisection statistic: the refined midpoint on pass, the sentinel on fail (same draws).
//  * CoinPress: the statistic equals the log-likelihood ratio computed here from the Laplace
//    densities and closed-form centres (not the library's clipped_second_moment), on the same
//    draws; the event {M >= r, z <= (n - 1) beta^2/n}, integrated numerically, has
//    log-ratio in (0.7499, 0.75] at eps = 1 (the ceiling 3 eps/4 is nearly attained by a
//    frequent event: P_D' = 0.25).
//  * longitudinal_regression with p = 4 (identity design) reproduces the winsorized_mean_hd
//    pair draw for draw, and local_user_mean (T = 4) the local_mean_hd pair, correct and broken.
//  * The named audits claim the total (eps, 0).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/audit/audits.hpp"
#include "dpx/audit/composed_pairs.hpp"
#include "dpx/audit/variance_pairs.hpp"
#include "dpx/core/rng.hpp"

namespace {

using namespace dpx;

// Composite Simpson rule on [a, b] with 2k intervals.
double simpson(const std::function<double(double)>& f, double a, double b, int k = 20000) {
  const double h = (b - a) / (2 * k);
  double s = f(a) + f(b);
  for (int i = 1; i < 2 * k; ++i) s += (i % 2 ? 4.0 : 2.0) * f(a + i * h);
  return s * h / 3;
}
double laplace_density(double y, double c, double b) {
  return std::exp(-std::fabs(y - c) / b) / (2 * b);
}
// P(c + Z >= t), Z ~ Lap(b), by integrating the density up to max(t, c) + 60 b, split at the
// kink c (the mass beyond is e^{-60}/2).
double upper_tail(double t, double c, double b) {
  auto f = [&](double y) { return laplace_density(y, c, b); };
  if (t >= c) return simpson(f, t, t + 60 * b);
  return simpson(f, t, c) + simpson(f, c, c + 60 * b);
}

estimators::variance_options base_options(double eps = 1.0) {
  estimators::variance_options o;
  o.epsilon = eps;
  o.variance_max = 2.0;
  return o;
}

TEST(VariancePairs, BisectionDesignStraddlesTheCoverageThreshold) {
  const auto o = audit::detail::variance_pair_options(base_options());
  EXPECT_EQ(o.iterations(), 1u);
  EXPECT_EQ(o.variance_min, 1.0);
  const auto b = estimators::detail::variance_budget(o);
  EXPECT_DOUBLE_EQ(b.epsilon, 0.5);  // basic over 2 releases
  for (std::size_t n : {100u, 200u, 37u}) {
    const auto d = audit::make_bisection_pair_design(o, n);
    const double w = 2.0, thr = 1.0 - o.gamma;
    auto count = [&](const std::vector<double>& x) {
      std::size_t c = 0;
      for (double v : x) c += std::fabs(v) <= w;
      return c;
    };
    EXPECT_EQ(count(d.d0) + 1, d.inside) << n;
    EXPECT_EQ(count(d.d1), d.inside) << n;
    EXPECT_LE(static_cast<double>(d.inside) / static_cast<double>(n), thr) << n;
    EXPECT_GT(static_cast<double>(d.inside + 1) / static_cast<double>(n), thr) << n;
    for (std::size_t i = 0; i + 1 < n; ++i) EXPECT_EQ(d.d0[i], d.d1[i]);
    EXPECT_EQ(std::clamp(d.d0[n - 1], -d.clip, d.clip), -d.clip);
    EXPECT_EQ(std::clamp(d.d1[n - 1], -d.clip, d.clip), w);
    EXPECT_NEAR(d.clip, 2.0, 1e-15);
  }
  // n = 200, gamma = 0.2: 160/200 and 1 - 0.2 are the same double, so c1 = 160 and D''s coverage
  // sits exactly at the threshold (P_D'(pass) = 1/2)
  EXPECT_EQ(160.0 / 200.0, 1.0 - 0.2);
  EXPECT_EQ(audit::make_bisection_pair_design(o, 200).inside, 160u);
}

TEST(VariancePairs, BisectionCeilingMatchesNumericalIntegration) {
  for (double eps : {0.5, 1.0, 2.0}) {
    const auto o = audit::detail::variance_pair_options(base_options(eps));
    const std::size_t n = 200;
    const auto d = audit::make_bisection_pair_design(o, n);
    const double nd = static_cast<double>(n), e = eps / 2, thr = 1.0 - o.gamma;
    const double bc = 2.0 / (nd * e), bm = 2.0 * d.clip / (nd * e);
    const double f1 = static_cast<double>(d.inside) / nd, f0 = f1 - 1.0 / nd;
    const double p1 = upper_tail(thr, f1, bc), p0 = upper_tail(thr, f0, bc);
    EXPECT_NEAR(p1, 0.5 * std::exp(-(thr - f1) / bc), 1e-9);
    EXPECT_NEAR(std::log(p1 / p0), e / 2, 1e-7);
    // midpoint centres: common records clip to 0 or -+r
    double common = 0;
    for (std::size_t i = 0; i + 1 < n; ++i) common += std::clamp(d.d0[i], -d.clip, d.clip);
    const double c0 = (common - d.clip) / nd, c1 = (common + 2.0) / nd;
    const double q1 = upper_tail(c1, c1, bm), q0 = upper_tail(c1, c0, bm);
    const double best = std::log(p1 * q1 / (p0 * q0));
    EXPECT_NEAR(best, 0.75 * eps, 1e-7) << eps;
    EXPECT_NEAR(audit::variance_bisection_ceiling(base_options(eps)), best, 1e-7) << eps;
  }
}

TEST(VariancePairs, BisectionStatisticIsTheMidpointOnPass) {
  const std::size_t n = 200, trials = 300;
  const auto o = audit::detail::variance_pair_options(base_options());
  const auto d = audit::make_bisection_pair_design(o, n);
  auto g1 = rng::stream(5, 0, 0, rng::purpose::audit);
  auto g2 = rng::stream(5, 0, 0, rng::purpose::audit);
  const auto p = audit::variance_bisection_pair(base_options(), n, trials, g1);
  int passes = 0;
  for (int side = 0; side < 2; ++side)
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = estimators::variance_bisection(side ? d.d1 : d.d0, o, g2);
      const double s = (side ? p.s1 : p.s0)[0][i];
      if (r.variance == 1.0) {  // passed: sigma^2 halved
        ++passes;
        EXPECT_EQ(s, r.midpoint);
      } else {
        EXPECT_EQ(r.variance, 2.0);
        EXPECT_EQ(s, -std::numeric_limits<double>::max());
      }
    }
  EXPECT_GT(passes, 100);
  EXPECT_LT(passes, 500);
}

TEST(VariancePairs, CoinPressStatisticIsTheExactLogLikelihoodRatio) {
  const std::size_t n = 200, trials = 300;
  const auto o = audit::detail::variance_pair_options(base_options());
  const auto d = audit::make_coinpress_pair_design(o, n);
  const double nd = static_cast<double>(n), e = 0.5, s = std::sqrt(2.0), r = 2.0;
  const double lg = std::log(5.0), b2 = 1 + 2 * std::sqrt(lg) + 2 * lg;
  EXPECT_NEAR(d.beta * d.beta, b2, 1e-12);
  EXPECT_NEAR(d.clip, r, 1e-15);
  const double bm = 2 * r / (nd * e), bz = 2 * b2 / (nd * e);
  const double cd0 = (nd - 2) * r / nd, cd1 = r;
  auto g1 = rng::stream(6, 0, 0, rng::purpose::audit);
  auto g2 = rng::stream(6, 0, 0, rng::purpose::audit);
  const auto p = audit::adaptive_coinpress_pair(base_options(), n, trials, g1);
  int zero = 0;
  for (int side = 0; side < 2; ++side)
    for (std::size_t i = 0; i < trials; ++i) {
      const auto res = estimators::adaptive_coinpress(side ? d.d1 : d.d0, o, g2);
      const double m = res.midpoint, z = res.variance / 2.0;
      const double mu0 = b2;  // every record clipped on D
      const double u = (r - m) / s;
      const double mu1 = ((nd - 1) * b2 + std::min(b2, u * u)) / nd;
      double llr = std::log(laplace_density(m, cd1, bm) / laplace_density(m, cd0, bm));
      if (z > 0) {
        llr += std::log(laplace_density(z, mu1, bz) / laplace_density(z, mu0, bz));
      } else {
        ++zero;  // clamped: P(W <= 0) = 1/2 e^{-mu/b}
        llr += (mu0 - mu1) / bz;
      }
      EXPECT_NEAR((side ? p.s1 : p.s0)[0][i], llr, 1e-6) << side << " " << i;
    }
  EXPECT_LT(zero, 5);  // the centres are ~beta^2, far above 0
}

TEST(VariancePairs, CoinPressCeilingIsNearlyAttainedByAFrequentEvent) {
  const double eps = 1.0, e = eps / 2, nd = 200, r = 2.0, s = std::sqrt(2.0);
  const double lg = std::log(5.0), b2 = 1 + 2 * std::sqrt(lg) + 2 * lg;
  const double bm = 2 * r / (nd * e), bz = 2 * b2 / (nd * e);
  const double cd0 = (nd - 2) * r / nd, q = (nd - 1) * b2 / nd;
  auto cdf = [&](double x, double mu) {  // P(mu + W <= x), x <= mu
    return 0.5 * std::exp(-(mu - x) / bz);
  };
  auto mu1 = [&](double m) {
    const double u = (r - m) / s;
    return ((nd - 1) * b2 + std::min(b2, u * u)) / nd;
  };
  const double p1 =
      simpson([&](double m) { return laplace_density(m, r, bm) * cdf(q, mu1(m)); }, r, r + 60 * bm);
  const double p0 =
      simpson([&](double m) { return laplace_density(m, cd0, bm) * cdf(q, b2); }, r, r + 60 * bm);
  const double ratio = std::log(p1 / p0);
  EXPECT_GT(p1, 0.249);      // 0.249985
  EXPECT_GT(ratio, 0.7499);  // 0.749941 (midpoint-rule check at 2e5 cells: same digits)
  EXPECT_LE(ratio, 0.75 + 1e-9);
  EXPECT_DOUBLE_EQ(audit::adaptive_coinpress_ceiling(base_options(eps)), 0.75);
}

TEST(ComposedPairs, LongitudinalRegressionHdIsTheWinsorizedHdPairOnTheCoefficients) {
  const std::size_t users = 50, p = 4, trials = 200;
  estimators::winsorized_mean_hd_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  o.target.epsilon = 1.0;
  o.target.delta = 1e-5;
  o.rule = estimators::interval_rule::paper(1.0);
  for (bool broken : {false, true}) {
    auto g1 = rng::stream(8, 0, 0, rng::purpose::audit);
    auto g2 = rng::stream(8, 0, 0, rng::purpose::audit);
    const auto a = audit::longitudinal_regression_hd_pair(o, users, p, trials, g1, broken);
    const auto b = audit::winsorized_mean_hd_pair(o, users, p, trials, g2, broken);
    EXPECT_EQ(a.s0, b.s0) << broken;
    EXPECT_EQ(a.s1, b.s1) << broken;
  }
}

TEST(ComposedPairs, LocalUserMeanHdIsTheLocalHdPairOnTheAverage) {
  const std::size_t d = 4, trials = 200;
  estimators::local_mean_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms
  o.epsilon = 1.0;
  o.rule = estimators::interval_rule::paper(1.0);
  o.bound = 10.0;
  for (bool broken : {false, true}) {
    auto g1 = rng::stream(9, 0, 0, rng::purpose::audit);
    auto g2 = rng::stream(9, 0, 0, rng::purpose::audit);
    const auto a = audit::local_user_mean_hd_pair(o, 4, d, trials, g1, broken);
    const auto b = audit::local_mean_hd_pair(o, d, trials, g2, broken);
    EXPECT_EQ(a.s0, b.s0) << broken;
    EXPECT_EQ(a.s1, b.s1) << broken;
  }
  auto g = rng::stream(9, 0, 0, rng::purpose::audit);
  EXPECT_THROW(audit::local_user_mean_hd_pair(o, 3, d, trials, g), std::invalid_argument);
}

TEST(VariancePairs, NamedAuditsClaimTheTotalEpsilon) {
  for (const char* name : {"variance_bisection", "adaptive_coinpress"}) {
    audit::mechanism_audit_spec s;
    s.mechanism = name;
    s.epsilon = 0.8;
    auto g = rng::stream(10, 0, 0, rng::purpose::audit);
    const auto r = audit::audit_mechanism(s, 100, {}, g);
    EXPECT_DOUBLE_EQ(r.claimed_epsilon, 0.8) << name;
    EXPECT_DOUBLE_EQ(r.total_epsilon, 0.8) << name;
    EXPECT_EQ(r.claimed_delta, 0.0) << name;
  }
}

}  // namespace
