// The plug-in variance estimators' noise kind (docs/estimators.md, "Noise kind"; issue 21,
// "safe by default"):
//  * variance_options::noise defaults to float_safe, and every ledger entry of a default run is
//    a pure_dp_event of exactly the per-release ε′ (research_grade: laplace_event);
//  * draw for draw, the default variance_bisection and adaptive_coinpress equal reference
//    implementations written here from S1 Algorithm 10 and Algorithms 13–14 in which every
//    Laplace step is mechanisms::laplace::calibrate(ε′, Δ).float_safe().release(statistic, g)
//    with the printed sensitivities Δ (coverage 2/n, midpoint 2√2σ/n, second moment 2β²/n), on
//    the same generator in the same order (same outputs, same generator state afterwards);
//    the kernels (coverage fraction, clipped sums) are the library's, checked against brute
//    force in variance_test.cpp;
//  * every released midpoint lies on the float-safe grid Λ = 2^(⌊log₂ b⌋ − 20), b = Δ/ε′
//    (computed here from the definition in docs/mechanisms.md), and the research-grade run on
//    the same stream differs (the published double-Laplace algorithms are checked bit for bit
//    in variance_clamp_test.cpp).
// Deterministic: no false-positive rate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "dpx/core/privacy.hpp"
#include "dpx/estimators/variance.hpp"
#include "dpx/mechanisms/float_safe.hpp"
#include "test_util.hpp"

namespace dpx::estimators {
namespace {

using testing::normal_data;

// The float-safe release of the Laplace mechanism calibrated at (ε′, Δ) (laplace::float_safe():
// float_safe_laplace with that mechanism's ε and Δ).
double fs_release(double value, double eps, double sensitivity, rng::philox4x32& g) {
  return mechanisms::laplace::calibrate(eps, sensitivity).float_safe().release(value, g);
}

double fs_midpoint(
    const std::vector<double>& x, double eps, double sigma, double m, rng::philox4x32& g) {
  const double n = static_cast<double>(x.size()), r = std::sqrt(2.0) * sigma;
  const auto c = detail::clipped_sum(x, m - r, m + r);
  return fs_release(c.sum / n, eps, 2.0 * r / n, g);
}

struct ref_out {
  double variance;
  double midpoint;
  std::size_t iterations;
};

// S1 Alg 10 with float-safe releases (clamp_to_bounds off).
ref_out ref_bisection(const std::vector<double>& x, const variance_options& o, rng::philox4x32& g) {
  const double e = detail::variance_budget(o).epsilon, n = static_cast<double>(x.size());
  double v = o.variance_max, pass = o.variance_max, m = o.midpoint;
  std::size_t it = 0;
  for (std::size_t t = 0; t < o.iterations(); ++t) {
    ++it;
    const double cov = detail::coverage_fraction(x, m, std::sqrt(2.0 * v));
    if (fs_release(cov, e, 2.0 / n, g) < 1.0 - o.gamma) break;
    pass = v;
    m = fs_midpoint(x, e, std::sqrt(v), m, g);
    v *= 0.5;
  }
  return {o.returns == bisection_return::literal ? v : pass, m, it};
}

// S1 Algs 13–14 with float-safe releases (clamp_to_bounds off, default c_n).
ref_out ref_coinpress(const std::vector<double>& x, const variance_options& o, rng::philox4x32& g) {
  const double e = detail::variance_budget(o).epsilon, n = static_cast<double>(x.size());
  const double lg = std::log(1.0 / o.gamma);
  const double b = std::sqrt(1.0 + 2.0 * std::sqrt(lg) + 2.0 * lg);
  const double cn = std::sqrt(1.0 / n) + 0.5 / n;
  double s = std::sqrt(o.variance_max), m = o.midpoint, out = o.variance_max;
  for (std::size_t t = 0; t < o.iterations(); ++t) {
    m = fs_midpoint(x, e, s, m, g);
    const double z =
        std::max(0.0, fs_release(detail::clipped_second_moment(x, m, s, b), e, 2.0 * b * b / n, g));
    out = z * s * s;
    s *= std::sqrt(z + cn);
  }
  return {out, m, o.iterations()};
}

void expect_events(const variance_result& r, const char* name, double eps) {
  ASSERT_FALSE(r.ledger.empty());
  for (const auto& e : r.ledger) {
    EXPECT_EQ(core::event_name(e.event), name) << e.step;
    EXPECT_EQ(e.epsilon, eps) << e.step;
    // The event's ε is the mechanism's Δ/(Δ/ε′): ε′ up to rounding.
    if (const auto* p = std::get_if<core::pure_dp_event>(&e.event)) {
      EXPECT_NEAR(p->epsilon, eps, 4e-16 * eps);
    }
  }
}

TEST(PluginVarianceNoise, DefaultIsFloatSafeDrawForDraw) {
  std::size_t stopped = 0, compared = 0;
  for (const double sigma : {0.5, 3.0}) {
    for (const std::size_t n : {40u, 2000u}) {
      const auto x = normal_data(n, 10.0, sigma, 500 + n);
      variance_options o;
      ASSERT_EQ(o.noise, mechanisms::noise_kind::float_safe);
      o.variance_min = 0.05;
      o.variance_max = 400.0;
      o.midpoint = 8.0;
      o.clamp_to_bounds = false;
      const double e = detail::variance_budget(o).epsilon;
      for (std::uint64_t s = 0; s < 6; ++s) {
        for (const auto ret : {bisection_return::literal, bisection_return::last_passing}) {
          o.returns = ret;
          const auto g0 = rng::stream(60, n, s, rng::purpose::noise);
          auto g = g0, gr = g0;
          const auto r = variance_bisection(x, o, g);
          const auto ref = ref_bisection(x, o, gr);
          EXPECT_EQ(r.variance, ref.variance) << n << " " << s;
          EXPECT_EQ(r.midpoint, ref.midpoint) << n << " " << s;
          EXPECT_EQ(r.iterations, ref.iterations) << n << " " << s;
          EXPECT_TRUE(g == gr) << "the reference must consume the same draws";
          expect_events(r, "pure_dp", e);
          stopped += r.iterations < o.iterations();
          ++compared;
        }
        const auto g0 = rng::stream(61, n, s, rng::purpose::noise);
        auto g = g0, gr = g0;
        const auto c = adaptive_coinpress(x, o, g);
        const auto ref = ref_coinpress(x, o, gr);
        EXPECT_EQ(c.variance, ref.variance) << n << " " << s;
        EXPECT_EQ(c.midpoint, ref.midpoint) << n << " " << s;
        EXPECT_TRUE(g == gr);
        expect_events(c, "pure_dp", e);
        ASSERT_EQ(c.ledger.size(), 2 * o.iterations());
      }
    }
  }
  EXPECT_GT(stopped, 0u);  // runs that stopped on a failed coverage test are included
  EXPECT_GT(compared, stopped);
}

TEST(PluginVarianceNoise, MidpointOnTheGridAndResearchGradeDiffers) {
  const std::size_t n = 1000;
  const auto x = normal_data(n, 3.0, 1.0, 77);
  variance_options o;
  o.variance_min = 0.5;
  o.variance_max = 1.0;  // N_iter = 1: the midpoint's σ is sqrt(σ_max²) = 1
  o.midpoint = 3.0;      // the window 3 ± √2 holds 84% of the data: clipped mean ≈ 3
  const double e = detail::variance_budget(o).epsilon;
  // The midpoint's b = 2√2σ/(nε′); its grid Λ = 2^(⌊log₂ b⌋ − 20) (docs/mechanisms.md).
  const double b = 2.0 * std::sqrt(2.0) / (static_cast<double>(n) * e);
  const double lambda = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(b))) - 20);
  const auto g0 = rng::stream(62, 0, 0, rng::purpose::noise);
  auto g = g0, g2 = g0;
  const auto r = adaptive_coinpress(x, o, g);
  const double k = r.midpoint / lambda;
  EXPECT_EQ(k, std::round(k)) << r.midpoint;
  auto orr = o;
  orr.noise = mechanisms::noise_kind::research_grade;
  const auto rr = adaptive_coinpress(x, orr, g2);
  const double kr = rr.midpoint / lambda;
  EXPECT_NE(kr, std::round(kr)) << rr.midpoint;
  EXPECT_NE(r.midpoint, rr.midpoint);
  expect_events(rr, "laplace", e);
  EXPECT_EQ(r.privacy.epsilon, rr.privacy.epsilon);
  EXPECT_EQ(r.privacy.delta, rr.privacy.delta);
  EXPECT_NEAR(r.midpoint, 3.0, 40 * b + 0.2);  // sampling sd 0.03; P(|Lap(b)| > 40b) = e^-40
}

}  // namespace
}  // namespace dpx::estimators
