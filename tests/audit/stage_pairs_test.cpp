// Properties checked (exact, no statistics): the histogram-stage pairs of stage_pairs.hpp.
//  * The design's count threshold and noise scale are the stable histogram's (mechanisms::
//    stable_histogram's frequency threshold and scale times n), and the counts straddle the
//    threshold by one record on each side: c_A - 1 >= T >= c_B + 1, c_B >= 1, n = c_A + c_B.
//  * P_D(E) and P_D'(E), E = {c_B + Z_B >= T, c_A + Z_A < T}, Z ~ Lap(2/eps_h), computed here
//    by numerical integration of the Laplace density (composite Simpson, independent of the
//    closed form e^{-(c_A - c_B)/beta}/4), agree to 1e-9, and their ratio is e^{eps_h}.
//  * The positions: bin A's centre is in bin -K, bin B's top edge h in bin 0 (detail::bin_index
//    of the estimators); under I_B = [-kappa, kappa] A's records clip to -kappa and h stays h
//    (paper rule) or clips to kappa (h > kappa); under I_A, h clips to x_A + kappa. So the D and
//    D' clipped means under I_B differ by (kappa + min(h, kappa))/n, computed here with
//    std::clamp, and both_stages_ceiling is eps_h + eps_m (kappa + min(h, kappa))/(2 kappa)
//    (paper rule at eps = 1: 0.5 + 0.5 * 4/6 = 0.8333...).
//  * The data: D and D' differ in exactly one record (A's centre -> B's top edge).
//  * The statistic: 1 / the estimate exactly on {released_bins == 1, midpoint 0, not failed}.
//  * The named audits' claims: (eps/2, delta) for the histogram stage, (eps, delta) for both.
//  * l2_laplace pairs: the statistic is the exact Laplace log-likelihood ratio (recomputed here
//    from the noise drawn with the same seed); the claim (the library's bound) is valid and
//    loose on both pairs: one coordinate is exactly x-DP (x = Delta/b = 0.204 < claim 1); the
//    spread pair's exact epsilon at delta = 1e-5, bracketed here by convolving its privacy-loss
//    distribution (cells rounded up / down), is 0.6863-0.6864 < 1.
//  * float_safe_gaussian pair: outputs on the grid.
//  * Exponential-mechanism median pair: P(y >= a) on D and D' and the ceiling from the closed
//    form match a brute-force density (ranks counted from the data on 2000 cells), and the
//    ceiling is 0.969755 at eps = 1 (computed independently, m = 50), <= eps.
#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/audit/audits.hpp"
#include "dpx/audit/stage_pairs.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/histogram.hpp"

namespace {

using namespace dpx;

// P(c + Z >= T) for Z ~ Lap(beta), by composite Simpson on the density over [T - c, T - c + 60
// beta] (the tail beyond is e^-60 / 2) when T - c >= 0, else 1 - the integral over
// (-60 beta + (T - c), T - c).
double release_probability(double c, double T, double beta) {
  const auto dens = [beta](double z) { return std::exp(-std::fabs(z) / beta) / (2 * beta); };
  const auto simpson = [&](double a, double b) {
    const int m = 20000;
    const double h = (b - a) / m;
    double s = dens(a) + dens(b);
    for (int i = 1; i < m; ++i) s += (i % 2 ? 4 : 2) * dens(a + i * h);
    return s * h / 3;
  };
  const double s = T - c;
  if (s >= 0) return simpson(s, s + 60 * beta);
  return 1 - simpson(s - 60 * beta, s);
}

TEST(StagePairs, DesignStraddlesTheStableHistogramThreshold) {
  for (const double eps_h : {0.125, 0.25, 0.5, 1.0, 2.0}) {
    for (const double delta : {1e-5, 1e-3, 0.2}) {
      const auto d = audit::make_histogram_stage_design(eps_h, delta);
      const auto sh = mechanisms::stable_histogram::calibrate(
          eps_h, delta, mechanisms::histogram_noise::laplace);
      const double n = static_cast<double>(d.n);
      EXPECT_NEAR(d.threshold_count, sh.threshold(d.n) * n, 1e-9 * n);
      EXPECT_NEAR(d.noise_scale_count, sh.noise_scale(d.n) * n, 1e-12 * n);
      EXPECT_EQ(d.n, d.count_a + d.count_b);
      EXPECT_GE(d.count_b, 1u);
      EXPECT_GE(static_cast<double>(d.count_a) - 1, d.threshold_count);
      EXPECT_LE(static_cast<double>(d.count_b) + 1, d.threshold_count);
      EXPECT_LE(d.count_a - d.count_b, 4u);
      const double T = d.threshold_count, beta = 2 / eps_h;
      const double ca = static_cast<double>(d.count_a), cb = static_cast<double>(d.count_b);
      const double pd = release_probability(cb, T, beta) * (1 - release_probability(ca, T, beta));
      const double pd1 =
          release_probability(cb + 1, T, beta) * (1 - release_probability(ca - 1, T, beta));
      EXPECT_NEAR(d.event_probability, pd, 1e-9) << eps_h << " " << delta;
      EXPECT_NEAR(d.event_probability_neighbour, pd1, 1e-9) << eps_h << " " << delta;
      EXPECT_NEAR(std::log(pd1 / pd), eps_h, 1e-7) << eps_h << " " << delta;
    }
  }
  // eps = 1 (eps_h = 1/2), delta = 1e-5: T = 4 ln(2e5) + 1 = 49.83, counts (51, 48).
  const auto d = audit::make_histogram_stage_design(0.5, 1e-5);
  EXPECT_EQ(d.count_a, 51u);
  EXPECT_EQ(d.count_b, 48u);
  EXPECT_NEAR(d.event_probability, 0.25 * std::exp(-0.75), 1e-15);
  EXPECT_NEAR(d.event_probability_neighbour, 0.25 * std::exp(-0.25), 1e-15);
  EXPECT_THROW((void)audit::make_histogram_stage_design(50.0, 0.5), std::invalid_argument);
  EXPECT_THROW((void)audit::make_histogram_stage_design(0.0, 1e-5), std::invalid_argument);
}

TEST(StagePairs, PositionsAndClippedMeansGiveTheCeiling) {
  const estimators::interval_rule rules[] = {estimators::interval_rule::paper(1.0),
                                             estimators::interval_rule{0.5, 10.5},
                                             estimators::interval_rule::custom(4.0, 2.0)};
  for (const auto& rule : rules) {
    const double h = rule.bin_half_width, k = rule.radius, w = 2 * h;
    const auto p = audit::make_histogram_stage_positions(rule);
    EXPECT_EQ(std::ceil(p.x_a / w - 0.5), static_cast<double>(p.bin_a));  // bins (wk-h, wk+h]
    EXPECT_EQ(std::ceil(p.x_b / w - 0.5), 0.0);
    EXPECT_LE(p.x_a, -k);         // A clips to -kappa under I_B
    EXPECT_GE(p.x_b, p.x_a + k);  // B clips to x_A + kappa under I_A
    const auto d = audit::make_histogram_stage_design(0.5, 1e-5);
    const auto x0 = audit::detail::histogram_stage_data(d, p, 0);
    const auto x1 = audit::detail::histogram_stage_data(d, p, 1);
    ASSERT_EQ(x0.size(), d.n);
    ASSERT_EQ(x1.size(), d.n);
    int differ = 0;
    for (std::size_t i = 0; i < d.n; ++i) differ += x0[i] != x1[i] ? 1 : 0;
    EXPECT_EQ(differ, 1);
    EXPECT_EQ(std::count(x0.begin(), x0.end(), p.x_a), static_cast<long>(d.count_a));
    EXPECT_EQ(std::count(x1.begin(), x1.end(), p.x_b), static_cast<long>(d.count_b + 1));
    double s0 = 0, s1 = 0;
    for (std::size_t i = 0; i < d.n; ++i) {
      s0 += std::clamp(x0[i], -k, k);
      s1 += std::clamp(x1[i], -k, k);
    }
    EXPECT_NEAR(s1 - s0, k + std::min(h, k), 1e-12 * d.n * k);
    // eps_m times (shift / sensitivity 2 kappa) on top of eps_h
    EXPECT_NEAR(audit::both_stages_ceiling(0.5, 0.5, rule), 0.5 + 0.5 * (s1 - s0) / (2 * k), 1e-12);
  }
  EXPECT_NEAR(audit::both_stages_ceiling(0.5, 0.5, estimators::interval_rule::paper(1.0)),
              0.5 + 1.0 / 3,
              1e-15);
  EXPECT_DOUBLE_EQ(
      audit::both_stages_ceiling(0.5, 0.5, estimators::interval_rule::custom(4.0, 2.0)), 1.0);
}

TEST(StagePairs, StatisticIsTheOnlyBinBEvent) {
  estimators::mean_result r;
  r.estimate = 0.25;
  r.midpoint = 0.0;
  r.diag.released_bins = 1;
  using audit::estimator_stage;
  EXPECT_EQ(audit::detail::histogram_stage_statistic(r, estimator_stage::histogram), 1.0);
  EXPECT_EQ(audit::detail::histogram_stage_statistic(r, estimator_stage::both), 0.25);
  for (int c = 0; c < 3; ++c) {
    auto q = r;
    if (c == 0) q.diag.released_bins = 2;  // both bins released
    if (c == 1) q.midpoint = -6.0;         // bin A selected
    if (c == 2) {                          // failure (midpoint 0, nothing released)
      q.diag.released_bins = 0;
      q.diag.failed = true;
    }
    EXPECT_EQ(audit::detail::histogram_stage_statistic(q, estimator_stage::histogram), 0.0);
    EXPECT_LT(audit::detail::histogram_stage_statistic(q, estimator_stage::both), -1e300);
  }
}

TEST(StagePairs, NamedAuditClaims) {
  for (const char* name :
       {"winsorized_mean_histogram", "kv_mean_histogram", "winsorized_mean_both", "kv_mean_both"}) {
    audit::mechanism_audit_spec s;
    s.mechanism = name;
    s.epsilon = 2.0;
    s.delta = 1e-4;
    auto g = rng::stream(3, 0, 0, rng::purpose::audit);
    const auto r = audit::audit_mechanism(s, 200, {}, g);
    const bool hist = std::string(name).find("histogram") != std::string::npos;
    EXPECT_DOUBLE_EQ(r.claimed_epsilon, hist ? 1.0 : 2.0) << name;
    EXPECT_DOUBLE_EQ(r.claimed_delta, 1e-4) << name;
    EXPECT_DOUBLE_EQ(r.total_epsilon, 2.0) << name;
  }
}

TEST(StagePairs, L2LaplaceStatisticIsTheExactLogLikelihoodRatio) {
  const auto m = mechanisms::l2_laplace::calibrate(1.0, 1e-5, 1.0);
  const std::size_t d = 4, trials = 50;
  for (const bool spread : {false, true}) {
    auto g1 = rng::stream(9, 0, 0, rng::purpose::audit);
    auto g2 = rng::stream(9, 0, 0, rng::purpose::audit);
    const auto p = audit::l2_laplace_pair(m, 1.0, d, spread, trials, g1);
    std::vector<double> a(d, spread ? 0.5 : 0.0);  // 1/sqrt(4)
    if (!spread) a[0] = 1.0;
    for (int side = 0; side < 2; ++side)
      for (std::size_t i = 0; i < trials; ++i) {
        std::vector<double> z(d);
        m.fill(z, g2);  // the same draws as privatize (laplace::fill = privatize's noise)
        double llr = 0;
        for (std::size_t j = 0; j < d; ++j) {
          const double y = (side ? a[j] : 0.0) + z[j];
          // log of e^{-|y - a|/b} / e^{-|y|/b}, up to rounding
          llr += (std::fabs(y) - std::fabs(y - a[j])) / m.scale();
        }
        EXPECT_NEAR((side ? p.s1 : p.s0)[0][i], llr, 1e-9) << side << " " << i;
      }
  }
}

// Exact epsilon at delta of the spread L2-Laplace pair (d coordinates, a_i = Delta/sqrt(d)):
// the privacy loss of one coordinate under D' is -s (prob e^{-s}/2), +s (prob 1/2), or
// uniform-ish in between (density e^{-(s-L)/2}/4), s = x/sqrt(d), x = Delta/b; its d-fold
// convolution on a grid of step 2s/N, the continuous part's cells rounded UP (round_up) or
// DOWN, brackets delta(eps) = E[(1 - e^{eps - L})_+]; bisection for delta = target.
double spread_pair_epsilon(double x, int d, double target, bool round_up) {
  const int N = 200;
  const double s = x / std::sqrt(static_cast<double>(d)), h = 2 * s / N;
  std::vector<double> p(N + 1, 0.0);
  p[0] += 0.5 * std::exp(-s);
  p[N] += 0.5;
  for (int k = 0; k < N; ++k) {
    const double a = -s + k * h, b = a + h;
    p[round_up ? k + 1 : k] += 0.5 * (std::exp(-(s - b) / 2) - std::exp(-(s - a) / 2));
  }
  std::vector<double> q = {1.0};
  for (int i = 0; i < d; ++i) {
    std::vector<double> r(q.size() + N, 0.0);
    for (std::size_t u = 0; u < q.size(); ++u)
      for (int v = 0; v <= N; ++v) r[u + v] += q[u] * p[v];
    q = std::move(r);
  }
  const auto delta = [&](double e) {
    double t = 0;
    for (std::size_t u = 0; u < q.size(); ++u) {
      const double l = -d * s + static_cast<double>(u) * h;
      t += q[u] * std::max(0.0, 1 - std::exp(e - l));
    }
    return t;
  };
  double lo = 0, hi = d * s;
  for (int it = 0; it < 60; ++it) {
    const double m = 0.5 * (lo + hi);
    (delta(m) > target ? lo : hi) = m;
  }
  return lo;
}

TEST(StagePairs, L2LaplaceClaimIsValidAndLooseOnBothPairs) {
  const auto m = mechanisms::l2_laplace::calibrate(1.0, 1e-5, 1.0);
  const double x = 1.0 / m.scale();
  const double c = std::sqrt(2 * std::log(1e5));
  EXPECT_NEAR(x, 2.0 / (c + std::sqrt(c * c + 2)), 1e-12);  // l2_laplace.hpp's closed form
  // one coordinate: exactly x-DP (pure), far below the claim
  EXPECT_LT(x, 0.25 * m.epsilon());
  // spread over 16 coordinates: bracketed exact epsilon at delta = 1e-5
  const double up = spread_pair_epsilon(x, 16, 1e-5, true);
  const double down = spread_pair_epsilon(x, 16, 1e-5, false);
  EXPECT_NEAR(up, 0.6864, 5e-4);
  EXPECT_NEAR(down, 0.6863, 5e-4);
  EXPECT_LT(up, m.epsilon());          // the claim is valid on the pair ...
  EXPECT_LT(up, 0.75 * m.epsilon());   // ... and ~30 % loose
  EXPECT_LT(up, std::sqrt(16.0) * x);  // below the pure sqrt(d) x = 0.816
}

TEST(StagePairs, FloatSafeGaussianPairIsOnTheGrid) {
  const auto m = mechanisms::float_safe_gaussian::from_sigma(3.0, 1.0);
  auto g = rng::stream(4, 0, 0, rng::purpose::audit);
  const auto p = audit::float_safe_gaussian_pair(m, 200, g);
  for (int side = 0; side < 2; ++side)
    for (double y : (side ? p.s1 : p.s0)[0]) {
      const double k = y / m.granularity();
      EXPECT_EQ(k, std::round(k));
    }
}

// The exponential-mechanism median's density on D, brute force: ranks counted from the data
// at the midpoint of each of `cells` equal cells of [0, 1] (the layout's breakpoints a, b are
// cell boundaries for cells = 2000), weight e^{(eps/2)(-|rank - n/2|)}.
double quantile_mass_above(const std::vector<double>& data, double eps, double a) {
  const int cells = 2000;
  double above = 0, total = 0;
  const double n = static_cast<double>(data.size());
  for (int c = 0; c < cells; ++c) {
    const double y = (c + 0.5) / cells;
    double rank = 0;
    for (double v : data) rank += v < y ? 1 : 0;
    const double w = std::exp(-0.5 * eps * std::fabs(rank - n / 2));
    total += w;
    if (y >= a) above += w;
  }
  return above / total;
}

TEST(StagePairs, QuantileLayoutMatchesABruteForceDensity) {
  for (const double eps : {0.25, 1.0, 4.0}) {
    mechanisms::quantile_options o;
    o.epsilon = eps;
    const std::size_t m = 50;
    const auto l = audit::make_quantile_pair_layout(o, m);
    EXPECT_DOUBLE_EQ(l.a, 0.5);
    EXPECT_NEAR(l.b, 0.515, 1e-15);
    std::vector<double> d0(2 * m, 0.0);
    d0[m] = l.a;
    std::fill(d0.begin() + m + 1, d0.end(), l.b);
    auto d1 = d0;
    d1[0] = 1.0;  // the mover
    const double p0 = quantile_mass_above(d0, eps, l.a), p1 = quantile_mass_above(d1, eps, l.a);
    EXPECT_NEAR(l.p_d, p0, 1e-9) << eps;
    EXPECT_NEAR(l.p_d_prime, p1, 1e-9) << eps;
    // the ceiling is the likelihood ratio of {y >= a} (every y >= a has the same ratio)
    EXPECT_NEAR(l.ceiling, std::log(p1 / p0), 1e-9) << eps;
    EXPECT_LE(l.ceiling, eps);
  }
  mechanisms::quantile_options o;
  const auto l = audit::make_quantile_pair_layout(o, 50);
  EXPECT_NEAR(l.ceiling, 0.969755, 1e-6);  // eps = 1 (m = 50)
}

}  // namespace
