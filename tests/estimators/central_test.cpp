// Exact (deterministic) checks of the central item-level estimators (docs/theory/dependent-data.md
// §3, §7, §11 "Deterministic"):
//  * bin-index mapping at bin edges: bins (2τk − τ, 2τk + τ] are half-open on the left;
//    huge values are clamped, not undefined;
//  * interval rules: paper (τ, 3τ), sharper (τ′, τ + 2τ′), KV (σ/2, 4σ sqrt(ln(n/β)));
//  * budget split: d = 1 single; basic (ε/d, δ/d); advanced ε/sqrt(8 d ln(1/ρ_c)); automatic picks
//    the larger ε′; ledger sums equal the totals (ε and δ, plus ρ_c when advanced);
//  * stable histogram threshold 2 ln(2/δ)/(εn) + 1/n; only occupied bins draw noise (exact count
//    of generator outputs); released bins ⊆ occupied bins;
//  * Laplace scales 12τ/(nε) (paper rule), 4κ/(nε) in general, 2κ/(|X| ε_m) for the sample split;
//  * the estimate equals X̄ + its noise draw when nothing is clipped, recomputed from a copy of
//    the same stream; with outliers it equals mean(clip(x, Î)) + draw, clipped fraction exact;
//  * failure: every bin zeroed gives m̂ = 0, Î = [−κ, κ], failed = true;
//  * validation: ε ≤ 0 or NaN, δ ∉ (0, 1), empty or non-finite data, bad shapes throw
//    core::invalid_argument_error;
//  * the radius helpers equal their closed forms (Cor 3.6, Rem 3.5, Lemma 5.2, Lemma 5.15).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/estimators/central.hpp"
#include "test_util.hpp"

namespace dpx::estimators {
namespace {

using testing::brute_bins;
using testing::counting_urbg;
using testing::normal_data;
using testing::plain_mean;
// The draw-recomputation tests below check S1's mechanism (double Laplace) exactly.
constexpr auto research = mechanisms::noise_kind::research_grade;

TEST(BinIndex, HalfOpenOnTheLeft) {
  // width 1 (τ = 1/2): bin k is (k - 1/2, k + 1/2].
  EXPECT_EQ(detail::bin_index(0.5, 1.0), 0);
  EXPECT_EQ(detail::bin_index(std::nextafter(0.5, 1.0), 1.0), 1);
  EXPECT_EQ(detail::bin_index(-0.5, 1.0), -1);
  EXPECT_EQ(detail::bin_index(-0.4375, 1.0), 0);  // (edges are exact where x/w − 1/2 is)
  EXPECT_EQ(detail::bin_index(1.5, 1.0), 1);
  EXPECT_EQ(detail::bin_index(0.0, 1.0), 0);
  // width 4 (τ = 2): bin 1 is (2, 6].
  EXPECT_EQ(detail::bin_index(2.0, 4.0), 0);
  EXPECT_EQ(detail::bin_index(6.0, 4.0), 1);
  EXPECT_EQ(detail::bin_index(2.0000001, 4.0), 1);
  // huge values clamp to ±2^53
  EXPECT_EQ(detail::bin_index(1e300, 1.0), std::int64_t{1} << 53);
  EXPECT_EQ(detail::bin_index(-1e300, 1e-10), -(std::int64_t{1} << 53));
}

TEST(OccupiedBins, AllCountingPathsAgreeWithBinIndex) {
  // widths chosen so the key range is small (vectorised path), dense, and sparse (sort path);
  // odd sizes exercise the tails.
  for (double width : {8.0, 0.7, 0.01, 1e-7}) {
    for (std::size_t n : {1u, 2u, 3u, 1001u}) {
      auto x = normal_data(n, 0.3, 2.0, 40 + n);
      if (n > 2) x[1] = 1e12 * width;  // force a wide range for the smallest widths
      std::map<std::int64_t, std::uint64_t> expect;
      for (double v : x) ++expect[detail::bin_index(v, width)];
      const auto got = detail::occupied_bins(x, width, "t", "x");
      ASSERT_EQ(got.size(), expect.size()) << width << " " << n;
      std::size_t i = 0;
      for (const auto& [k, c] : expect) {
        EXPECT_EQ(got[i].bin, k);
        EXPECT_EQ(got[i].count, c);
        ++i;
      }
    }
  }
  // edges: values exactly on bin edges are counted in the lower bin on every path
  std::vector<double> e = {0.5, 1.5, -0.5, 2.5, 2.5, 0.5, 0.0};
  const auto got = detail::occupied_bins(e, 1.0, "t", "x");
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].bin, -1);
  EXPECT_EQ(got[1].bin, 0);
  EXPECT_EQ(got[1].count, 3u);
  EXPECT_EQ(got[3].bin, 2);
  EXPECT_EQ(got[3].count, 2u);
}

TEST(StableRelease, BitIdenticalToMechanismsReleaseBins) {
  auto x = normal_data(3000, 1.0, 3.0, 50);
  const double width = 1.3;
  std::vector<std::int64_t> keys(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) keys[i] = detail::bin_index(x[i], width);
  const auto g0 = rng::stream(8, 8, 8, rng::purpose::noise);
  auto g1 = g0, g2 = g0;
  const auto ref =
      mechanisms::stable_histogram::calibrate(0.3, 1e-4, mechanisms::histogram_noise::laplace)
          .release_bins(keys, g1);
  const auto got = detail::stable_release(
      detail::occupied_bins(x, width, "t", "x"), x.size(), 0.3, 1e-4, research, g2);
  EXPECT_EQ(got.bins, ref.bins);
  EXPECT_EQ(got.values, ref.values);
  EXPECT_EQ(got.occupied, ref.occupied);
  EXPECT_EQ(got.threshold, ref.threshold);
  EXPECT_TRUE(g1 == g2);
  EXPECT_GT(got.bins.size(), 3u);
}

// The float-safe histogram (the default) is the mechanisms' discrete_laplace variant, draw for
// draw: exact integer noise on the counts, values (c + Z)/n.
TEST(StableRelease, FloatSafeBitIdenticalToDiscreteReleaseBins) {
  auto x = normal_data(3000, 1.0, 3.0, 50);
  const double width = 1.3;
  std::vector<std::int64_t> keys(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) keys[i] = detail::bin_index(x[i], width);
  const auto g0 = rng::stream(8, 8, 9, rng::purpose::noise);
  auto g1 = g0, g2 = g0;
  const auto ref = mechanisms::stable_histogram::calibrate(
                       0.3, 1e-4, mechanisms::histogram_noise::discrete_laplace)
                       .release_bins(keys, g1);
  const auto got = detail::stable_release(detail::occupied_bins(x, width, "t", "x"),
                                          x.size(),
                                          0.3,
                                          1e-4,
                                          mechanisms::noise_kind::float_safe,
                                          g2);
  EXPECT_EQ(got.bins, ref.bins);
  EXPECT_EQ(got.values, ref.values);
  EXPECT_EQ(got.threshold, ref.threshold);
  EXPECT_TRUE(g1 == g2);
  EXPECT_GT(got.bins.size(), 3u);
  for (const double v : got.values)  // every released value is an integer count times 1/n
    EXPECT_EQ(v, std::round(v * 3000.0) * (1.0 / 3000.0)) << v;
}

// Default options release with float-safe noise: the estimate lies on the float-safe grid
// Lambda = 2^(floor(log2 b) - 20), b = 2 kappa / (n eps/2) (computed here from the definition
// in docs/mechanisms.md, not by the library), the mean's ledger event is pure_dp (exact epsilon),
// the research-grade estimate from the same stream differs and is off that grid.
TEST(WinsorizedMean, DefaultIsFloatSafe) {
  const std::size_t n = 1000;
  const double eps = 0.8, delta = 1e-6;
  auto x = normal_data(n, -3.0, 1.0, 2);
  const double tau = tau_subgaussian(1.0, n, 0.1);
  const winsorized_mean_options o{eps, delta, interval_rule::paper(tau)};
  EXPECT_EQ(o.noise, mechanisms::noise_kind::float_safe);
  const auto g0 = rng::stream(9, 9, 3, rng::purpose::noise);
  auto g = g0, gr = g0;
  const auto r = winsorized_mean(x, o, g);
  auto orr = o;
  orr.noise = research;
  const auto rr = winsorized_mean(x, orr, gr);
  const double b = 2.0 * (3.0 * tau) / (0.5 * eps * static_cast<double>(n));
  const double lambda = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(b))) - 20);
  const double k = r.estimate / lambda;
  EXPECT_EQ(k, std::round(k)) << r.estimate;
  const double kr = rr.estimate / lambda;
  EXPECT_NE(kr, std::round(kr)) << rr.estimate;
  EXPECT_NE(r.estimate, rr.estimate);
  EXPECT_GE(r.noise_scale, b);  // the float-safe scale is never below the continuous one
  EXPECT_LE(r.noise_scale, b * (1 + 4.0 * std::ldexp(1.0, -20)));
  EXPECT_NEAR(r.estimate, plain_mean(x), 40 * b);  // P(|Lap(b)| > 40 b) = e^-40
  ASSERT_EQ(r.ledger.size(), 2u);
  EXPECT_EQ(core::event_name(r.ledger[1].event), "pure_dp");
  EXPECT_EQ(r.privacy.epsilon, eps);
  EXPECT_EQ(r.privacy.delta, delta);
}

TEST(IntervalRule, Constants) {
  const auto p = interval_rule::paper(2.0);
  EXPECT_EQ(p.bin_half_width, 2.0);
  EXPECT_EQ(p.radius, 6.0);
  const auto s = interval_rule::sharper(3.0, 1.5);
  EXPECT_EQ(s.bin_half_width, 1.5);
  EXPECT_EQ(s.radius, 6.0);
  EXPECT_THROW(interval_rule::paper(0.0), core::invalid_argument_error);
  EXPECT_THROW(interval_rule::custom(1.0, -1.0), core::invalid_argument_error);
  EXPECT_THROW(interval_rule::sharper(1.0, std::nan("")), core::invalid_argument_error);
}

TEST(SplitBudget, SingleBasicAdvanced) {
  const auto s = split_budget(0.7, 1e-5, 1, 1e-5);
  EXPECT_EQ(s.kind, composition::single);
  EXPECT_EQ(s.epsilon, 0.7);
  EXPECT_EQ(s.delta, 1e-5);
  // d = 10 < 8 ln(1/ρ_c) = 92: basic wins
  const auto b = split_budget(0.5, 1e-5, 10, 1e-5);
  EXPECT_EQ(b.kind, composition::basic);
  EXPECT_DOUBLE_EQ(b.epsilon * 10, 0.5);
  EXPECT_DOUBLE_EQ(b.delta * 10, 1e-5);
  EXPECT_EQ(b.total_delta, 1e-5);
  // d = 1000 > 92: advanced wins
  const auto a = split_budget(0.5, 1e-5, 1000, 1e-5);
  EXPECT_EQ(a.kind, composition::advanced);
  // Rounded down a few ulps (safe side; exact checks: Calibrators.SafeSideBudgetSplits).
  const double simplified = 0.5 / std::sqrt(8.0 * 1000 * std::log(1e5));
  EXPECT_LE(a.epsilon, simplified);
  EXPECT_NEAR(a.epsilon, simplified, 1e-14 * simplified);
  EXPECT_DOUBLE_EQ(a.delta, 1e-8);
  EXPECT_DOUBLE_EQ(a.total_delta, 1e-5 + 1e-5);
  EXPECT_EQ(a.total_epsilon, 0.5);
  // forced choices; advanced needs ε < 1; automatic falls back to basic for ε >= 1
  EXPECT_EQ(split_budget(0.5, 1e-5, 1000, 1e-5, core::composition_rule::basic).kind,
            composition::basic);
  EXPECT_EQ(split_budget(0.5, 1e-5, 2, 1e-5, core::composition_rule::advanced).kind,
            composition::advanced);
  EXPECT_THROW(split_budget(1.5, 1e-5, 1000, 1e-5, core::composition_rule::advanced),
               core::invalid_argument_error);
  EXPECT_EQ(split_budget(1.5, 1e-5, 100000, 1e-5).kind, composition::basic);
  EXPECT_THROW(split_budget(0.0, 1e-5, 2, 1e-5), core::invalid_argument_error);
  EXPECT_THROW(split_budget(0.5, 1.0, 2, 1e-5), core::invalid_argument_error);
  EXPECT_THROW(split_budget(0.5, 1e-5, 0, 1e-5), core::invalid_argument_error);
  EXPECT_EQ(split_budget(0.5, 0.0, 4, 1e-5).delta, 0.0);  // pure (local) releases
}

TEST(RadiusHelpers, ClosedForms) {
  EXPECT_DOUBLE_EQ(tau_subgaussian(2.0, 100, 0.1), std::sqrt(4.0 * std::log(2000.0)));
  EXPECT_DOUBLE_EQ(tau_prime(1.0, 0.1), std::sqrt(2.0 * std::log(20.0)));
  EXPECT_DOUBLE_EQ(tau_user(3.0, 10, 50, 2, 0.1), std::sqrt(6.0 * std::log(2000.0) / 10.0));
  EXPECT_DOUBLE_EQ(tau_user_mean_variance(0.5, 50, 1, 0.1), std::sqrt(std::log(1000.0)));
  EXPECT_DOUBLE_EQ(tau_regression(0.5, 2.0, 1.0, 3, 100, 20, 0.1),
                   std::sqrt(2.0 * (2.0 / 0.25) * std::log(6000.0) / 20.0));
  EXPECT_THROW(tau_subgaussian(1.0, 0, 0.1), core::invalid_argument_error);
  EXPECT_THROW(tau_prime(1.0, 1.0), core::invalid_argument_error);
  EXPECT_THROW(tau_regression(2.0, 1.0, 1.0, 3, 100, 20, 0.1), core::invalid_argument_error);
}

TEST(ProjectionInterval, ThresholdSelectionAndLedger) {
  const std::size_t n = 4000;
  auto x = normal_data(n, 10.0, 1.0, 1);
  const double tau = tau_subgaussian(1.0, n, 0.1);
  auto g = rng::stream(5, 1, 0, rng::purpose::noise);
  const auto r = projection_interval(x, interval_rule::paper(tau), 1.0, 1e-6, g, research);
  EXPECT_DOUBLE_EQ(r.threshold, 2.0 * std::log(2.0 / 1e-6) / (1.0 * n) + 1.0 / n);
  EXPECT_FALSE(r.diag.failed);
  EXPECT_EQ(r.diag.occupied_bins, brute_bins(x, 2 * tau).size());
  const auto occ = brute_bins(x, 2 * tau);
  for (auto k : r.histogram.bins) EXPECT_TRUE(occ.count(k)) << k;  // released ⊆ occupied
  EXPECT_EQ(r.diag.released_bins, r.histogram.bins.size());
  EXPECT_DOUBLE_EQ(r.midpoint, 2 * tau * static_cast<double>(r.selected_bin));
  EXPECT_DOUBLE_EQ(r.range.lo, r.midpoint - 3 * tau);
  EXPECT_DOUBLE_EQ(r.range.hi, r.midpoint + 3 * tau);
  EXPECT_LE(std::abs(r.midpoint - 10.0), 2 * tau);
  ASSERT_EQ(r.ledger.size(), 1u);
  EXPECT_EQ(r.privacy.epsilon, 1.0);
  EXPECT_EQ(r.privacy.delta, 1e-6);
  EXPECT_EQ(r.privacy.unit, core::privacy_unit::item);
  EXPECT_EQ(r.privacy.model, trust_model::central);
}

TEST(ProjectionInterval, FailureGivesZeroMidpoint) {
  // n = 3, ε = 0.1: count threshold 1 + 2 ln(2/δ)/ε ≈ 300 is unreachable by noise w.h.p.
  const std::vector<double> x = {100.0, 100.1, 99.9};
  auto g = rng::stream(5, 2, 0, rng::purpose::noise);
  const auto r = projection_interval(x, interval_rule::paper(1.0), 0.1, 1e-6, g, research);
  EXPECT_TRUE(r.diag.failed);
  EXPECT_EQ(r.midpoint, 0.0);
  EXPECT_EQ(r.range.lo, -3.0);
  EXPECT_EQ(r.range.hi, 3.0);
  EXPECT_EQ(r.diag.occupied_bins, 1u);
  EXPECT_EQ(r.diag.released_bins, 0u);
}

TEST(WinsorizedMean, EqualsMeanPlusRecomputedDrawWhenNothingClipped) {
  const std::size_t n = 1000;
  const double eps = 0.8, delta = 1e-6;
  auto x = normal_data(n, -3.0, 1.0, 2);
  const double tau = tau_subgaussian(1.0, n, 0.1);
  const auto g0 = rng::stream(9, 9, 3, rng::purpose::noise);
  auto g = g0;
  const auto r = winsorized_mean(x, {eps, delta, interval_rule::paper(tau), research}, g);
  ASSERT_FALSE(r.diag.failed);
  ASSERT_EQ(r.diag.clipped_fraction, 0.0);
  EXPECT_NEAR(r.noise_scale, 12.0 * tau / (n * eps), 1e-15 * r.noise_scale);
  // Recompute: one Laplace(2/((ε/2) n)) per occupied bin, then the mean's Laplace draw.
  const std::size_t occ = brute_bins(x, 2 * tau).size();
  EXPECT_EQ(r.diag.occupied_bins, occ);
  auto g2 = g0;
  for (std::size_t i = 0; i < occ; ++i)
    (void)mechanisms::laplace::from_scale(2.0 / (0.5 * eps * n)).sample(g2);
  const double z = mechanisms::laplace::from_scale(r.noise_scale).sample(g2);
  EXPECT_NEAR(r.estimate, plain_mean(x) + z, 1e-12);
  EXPECT_TRUE(g2 == g);  // the estimator consumed exactly these draws
  // ledger: ε/2 + ε/2 = ε, δ + 0 = δ
  ASSERT_EQ(r.ledger.size(), 2u);
  EXPECT_DOUBLE_EQ(r.ledger[0].epsilon + r.ledger[1].epsilon, eps);
  EXPECT_DOUBLE_EQ(r.ledger[0].delta + r.ledger[1].delta, delta);
  EXPECT_EQ(r.privacy.epsilon, eps);
  EXPECT_EQ(r.privacy.delta, delta);
  EXPECT_EQ(core::event_name(r.ledger[1].event), "laplace");
  EXPECT_DOUBLE_EQ(std::get<core::laplace_event>(r.ledger[1].event).noise_multiplier, 2.0 / eps);
}

TEST(WinsorizedMean, DrawsOnlyForOccupiedBins) {
  // Two far-apart clusters occupy exactly 2 bins among infinitely many: 2 + 1 Laplace draws,
  // each one rng::uniform_open01 = two 32-bit outputs.
  std::vector<double> x(500, 0.1);
  for (std::size_t i = 0; i < 50; ++i) x[i] = 1e6;
  counting_urbg g{rng::stream(1, 2, 3, rng::purpose::noise)};
  const auto r = winsorized_mean(x, {1.0, 1e-6, interval_rule::paper(1.0), research}, g);
  EXPECT_EQ(r.diag.occupied_bins, 2u);
  EXPECT_EQ(g.calls, 2u * 3u);
}

TEST(WinsorizedMean, ClipsToTheIntervalExactly) {
  auto x = normal_data(2000, 0.0, 1.0, 3);
  for (std::size_t i = 0; i < 20; ++i) x[i] = (i % 2 ? 1e3 : -1e3);
  const double tau = 2.0;
  const auto g0 = rng::stream(4, 4, 4, rng::purpose::noise);
  auto g = g0;
  const auto r = winsorized_mean(x, {1.0, 1e-6, interval_rule::sharper(tau, 1.0), research}, g);
  ASSERT_FALSE(r.diag.failed);
  EXPECT_DOUBLE_EQ(r.range.hi - r.range.lo, 2.0 * (tau + 2.0));
  EXPECT_NEAR(r.noise_scale, 4.0 * (tau + 2.0) / (2000 * 1.0), 1e-16);
  long double s = 0;
  std::size_t clipped = 0;
  for (double v : x) {
    s += std::min(std::max(v, r.range.lo), r.range.hi);
    clipped += (v < r.range.lo || v > r.range.hi);
  }
  EXPECT_EQ(r.diag.clipped_fraction, static_cast<double>(clipped) / 2000);
  EXPECT_GE(clipped, 20u);
  auto g2 = g0;
  for (std::size_t i = 0; i < r.diag.occupied_bins; ++i)
    (void)mechanisms::laplace::from_scale(2.0 / (0.5 * 2000)).sample(g2);
  const double z = mechanisms::laplace::from_scale(r.noise_scale).sample(g2);
  EXPECT_NEAR(r.estimate, static_cast<double>(s / 2000) + z, 1e-12);
}

TEST(WinsorizedMean, Validation) {
  const std::vector<double> x = {1.0, 2.0};
  auto g = rng::stream(1, 1, 1, rng::purpose::noise);
  const auto rule = interval_rule::paper(1.0);
  EXPECT_THROW(winsorized_mean(x, {0.0, 1e-6, rule}, g), core::invalid_argument_error);
  EXPECT_THROW(winsorized_mean(x, {std::nan(""), 1e-6, rule}, g), core::invalid_argument_error);
  EXPECT_THROW(winsorized_mean(x, {1.0, 0.0, rule}, g), core::invalid_argument_error);
  EXPECT_THROW(winsorized_mean(x, {1.0, 1.0, rule}, g), core::invalid_argument_error);
  EXPECT_THROW(winsorized_mean(x, {1.0, 1e-6, interval_rule{}}, g), core::invalid_argument_error);
  EXPECT_THROW(winsorized_mean(std::span<const double>(), {1.0, 1e-6, rule}, g),
               core::invalid_argument_error);
  const std::vector<double> bad = {1.0, std::numeric_limits<double>::infinity()};
  try {
    winsorized_mean(bad, {1.0, 1e-6, rule}, g);
    FAIL();
  } catch (const core::invalid_argument_error& e) {
    EXPECT_EQ(e.parameter(), "x[1]");
  }
  const std::vector<double> nan = {std::nan(""), 1.0};
  EXPECT_THROW(winsorized_mean(nan, {1.0, 1e-6, rule}, g), core::invalid_argument_error);
}

TEST(WinsorizedMeanHD, PerCoordinateDrawsAndBudget) {
  const std::size_t n = 1500, d = 3;
  std::vector<double> x(n * d);
  for (std::size_t j = 0; j < d; ++j) {
    auto c = normal_data(n, 5.0 * static_cast<double>(j), 1.0, 10 + j);
    for (std::size_t i = 0; i < n; ++i) x[i * d + j] = c[i];
  }
  const double tau = tau_subgaussian(1.0, n, 0.1), eps = 0.9, delta = 1e-6;
  const auto g0 = rng::stream(2, 2, 2, rng::purpose::noise);
  auto g = g0;
  winsorized_mean_hd_options ho{eps, delta, interval_rule::paper(tau)};
  ho.noise = research;
  const auto r = winsorized_mean_hd(x, d, ho, g);
  EXPECT_EQ(r.budget.kind, composition::basic);  // d = 3 < 8 ln(1/δ)
  EXPECT_DOUBLE_EQ(r.budget.epsilon, eps / 3);
  EXPECT_DOUBLE_EQ(r.noise_scale, 12.0 * tau / (n * (eps / 3)));
  double se = 0, sd = 0;
  for (const auto& l : r.ledger) {
    se += l.epsilon;
    sd += l.delta;
  }
  EXPECT_NEAR(se, eps, 1e-15);
  EXPECT_NEAR(sd, delta, 1e-21);
  EXPECT_EQ(r.privacy.epsilon, eps);
  EXPECT_EQ(r.privacy.delta, delta);
  auto g2 = g0;
  for (std::size_t j = 0; j < d; ++j) {
    std::vector<double> col(n);
    for (std::size_t i = 0; i < n; ++i) col[i] = x[i * d + j];
    ASSERT_EQ(r.diag[j].clipped_fraction, 0.0);
    ASSERT_EQ(r.diag[j].occupied_bins, brute_bins(col, 2 * tau).size());
    for (std::size_t i = 0; i < r.diag[j].occupied_bins; ++i)
      (void)mechanisms::laplace::from_scale(2.0 / (0.5 * (eps / 3) * n)).sample(g2);
    const double z = mechanisms::laplace::from_scale(r.noise_scale).sample(g2);
    EXPECT_NEAR(r.estimate[j], plain_mean(col) + z, 1e-12) << j;
  }
  // advanced: total δ + ρ_c, ledger per coordinate sums to ε′
  auto g3 = g0;
  winsorized_mean_hd_options o{
      0.5, delta, interval_rule::paper(tau), 1e-3, core::composition_rule::advanced};
  const auto a = winsorized_mean_hd(x, d, o, g3);
  EXPECT_EQ(a.budget.kind, composition::advanced);
  EXPECT_DOUBLE_EQ(a.privacy.delta, delta + 1e-3);
  EXPECT_NEAR(a.ledger[0].epsilon + a.ledger[1].epsilon,
              0.5 / std::sqrt(8.0 * 3 * std::log(1e3)),
              1e-15);  // rounded down a few ulps (safe side)
  EXPECT_THROW(winsorized_mean_hd(std::span<const double>(x).first(10), d, o, g3),
               core::invalid_argument_error);
  EXPECT_THROW(winsorized_mean_hd(x, 0, o, g3), core::invalid_argument_error);
}

TEST(SampleSplit, HalvesAndParallelBudget) {
  const std::size_t n = 3001;  // Z = first 1500 rows, X = last 1501
  auto x = normal_data(n, 1.0, 1.0, 20);
  for (std::size_t i = 0; i < 1500; ++i) x[i] += 0.5;  // mark the first half
  const double tau = tau_subgaussian(1.0, n, 0.1), eps = 0.6, delta = 1e-6;
  for (bool parallel : {false, true}) {
    const auto g0 = rng::stream(3, 3, parallel, rng::purpose::noise);
    auto g = g0;
    sample_split_options o{{eps, delta, interval_rule::paper(tau)}, parallel};
    o.base.noise = research;
    const auto r = sample_split_mean(x, 1, o, g);
    const double em = parallel ? eps : eps / 2;
    EXPECT_DOUBLE_EQ(r.noise_scale, 2.0 * 3 * tau / (1501 * em));
    EXPECT_EQ(r.privacy.epsilon, eps);
    EXPECT_EQ(r.privacy.delta, delta);
    std::span<const double> z(x.data(), 1500), rest(x.data() + 1500, 1501);
    EXPECT_EQ(r.diag[0].occupied_bins, brute_bins(z, 2 * tau).size());
    ASSERT_EQ(r.diag[0].clipped_fraction, 0.0);
    auto g2 = g0;
    for (std::size_t i = 0; i < r.diag[0].occupied_bins; ++i)
      (void)mechanisms::laplace::from_scale(2.0 / (em * 1500)).sample(g2);
    const double noise = mechanisms::laplace::from_scale(r.noise_scale).sample(g2);
    EXPECT_NEAR(r.estimate[0], plain_mean(rest) + noise, 1e-12);
  }
  auto g = rng::stream(3, 3, 9, rng::purpose::noise);
  EXPECT_THROW(sample_split_mean(std::span<const double>(x).first(1),
                                 1,
                                 {{eps, delta, interval_rule::paper(tau)}, false},
                                 g),
               core::invalid_argument_error);
}

TEST(KarwaVadhan, RuleScaleAndConfidenceInterval) {
  const std::size_t n = 2000;
  auto x = normal_data(n, 7.0, 2.0, 30);
  const auto g0 = rng::stream(6, 6, 6, rng::purpose::noise);
  auto g = g0;
  kv_mean_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // recomputed draws
  o.target.epsilon = 1.0;
  o.target.delta = 1e-6;
  o.sigma = 2.0;
  o.beta = 0.1;
  o.alpha = 0.05;
  const auto r = kv_mean(x, o, g);
  const double R = 4.0 * 2.0 * std::sqrt(std::log(n / 0.1));
  EXPECT_DOUBLE_EQ(r.mean.range.hi - r.mean.range.lo, 2 * R);
  EXPECT_EQ(std::fmod(r.mean.midpoint, 2.0), 0.0);  // bins of width σ centred at jσ
  EXPECT_EQ(r.mean.diag.occupied_bins, brute_bins(x, 2.0).size());
  EXPECT_NEAR(r.mean.noise_scale, 2 * R / (n * 0.5), 1e-15);
  // half-width σ z_{1-α/4}/√n + b ln(2/α); z_{0.9875} = 2.241402727604945
  const double half =
      2.0 * 2.241402727604945 / std::sqrt(2000.0) + r.mean.noise_scale * std::log(40.0);
  EXPECT_NEAR(r.confidence.hi - r.mean.estimate, half, 1e-12);
  EXPECT_NEAR(r.mean.estimate - r.confidence.lo, half, 1e-12);
  EXPECT_TRUE(r.confidence.contains(7.0));
}

}  // namespace
}  // namespace dpx::estimators
