// Properties checked (dpx::prox):
//  * Scalar prox of every separable penalty (L1, squared L2, elastic net, MCP, SCAD, capped L1)
//    equals brute-force minimisation of (t - u)^2/2 + s phi(t) on a fine grid, for steps below,
//    equal to and above the concavity (nonconvex cases included): the objective at dpx's answer
//    is never worse than the grid minimum (up to grid resolution) and the answers agree.
//  * MCP with step >= gamma hard-thresholds at lambda sqrt(s gamma) (not at s lambda, the bug in
//    several ports); Yuan & Peng 2023's closed form differs from the true prox when s != 1.
//  * Moreau identity v = prox_f(v) + prox_{f*}(v) for L1 (f* = indicator of the l_inf ball) and
//    for the L2 ball (f* = r||.||_2, block soft thresholding).
//  * Subgradient optimality of the L1 and elastic-net prox.
//  * Projections: onto the simplex and L1 ball match an independent sort-based algorithm
//    (Duchi et al. 2008, Fig. 1) and satisfy KKT; all projections are idempotent, feasible and
//    non-expansive on random pairs.
//  * Bad parameters throw invalid_argument_error naming the parameter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/prox/prox.hpp"

namespace dpx::prox {
namespace {

// Brute-force argmin over a grid of spacing h on [-R, R], refined once around the best point.
double brute_force_argmin(const std::function<double(double)>& phi, double u, double s) {
  auto h_of = [&](double t) { return 0.5 * (t - u) * (t - u) + s * phi(t); };
  double best = 0, best_h = h_of(0.0);
  const double R = std::fabs(u) + 1.0;
  for (int pass = 0; pass < 2; ++pass) {
    const double lo = pass == 0 ? -R : best - 1e-3;
    const double hi = pass == 0 ? R : best + 1e-3;
    const int m = 20000;  // pass 0: spacing ~3e-4; pass 1: ~1e-7 (objective error ~1e-14)
    for (int i = 0; i <= m; ++i) {
      const double t = lo + (hi - lo) * i / m;
      const double h = h_of(t);
      if (h < best_h - 1e-15) {
        best_h = h;
        best = t;
      }
    }
  }
  return best;
}

template <class P>
void expect_matches_brute_force(const P& p, double s, const char* name) {
  const auto phi = [&](double t) { return p.penalty(t); };
  for (double u = -3.0; u <= 3.0; u += 0.0625) {
    const double x = p.prox(u, s);
    const double b = brute_force_argmin(phi, u, s);
    const double hx = 0.5 * (x - u) * (x - u) + s * p.penalty(x);
    const double hb = 0.5 * (b - u) * (b - u) + s * p.penalty(b);
    // dpx's answer must be at least as good as the grid's best (grid spacing ~1e-8 after
    // refinement; objective error O(h^2)), and the same point unless the two are tied.
    EXPECT_LE(hx, hb + 1e-12) << name << " u=" << u << " s=" << s;
    if (std::fabs(hx - hb) > 1e-9) {
      EXPECT_NEAR(x, b, 1e-6) << name << " u=" << u << " s=" << s;
    }
  }
}

TEST(SeparableProx, MatchesBruteForceConvex) {
  for (double s : {0.3, 1.0, 2.5}) {
    expect_matches_brute_force(l1_norm(0.7), s, "l1");
    expect_matches_brute_force(squared_l2(1.3), s, "l2sq");
    expect_matches_brute_force(elastic_net(0.5, 0.8), s, "enet");
  }
}

TEST(SeparableProx, MatchesBruteForceMcpBelowAtAboveGamma) {
  const mcp p(0.6, 2.0);
  for (double s : {0.5, 1.0, 1.999, 2.0, 2.001, 3.0, 7.0}) expect_matches_brute_force(p, s, "mcp");
}

TEST(SeparableProx, MatchesBruteForceScadConvexAndNonconvex) {
  const scad p(0.5, 3.7);
  for (double s : {0.5, 1.0, 2.6, 2.7, 2.8, 5.0}) expect_matches_brute_force(p, s, "scad");
}

TEST(SeparableProx, MatchesBruteForceCappedL1) {
  const capped_l1 p(0.8, 0.5);
  for (double s : {0.2, 1.0, 3.0}) expect_matches_brute_force(p, s, "capped");
}

TEST(Mcp, HardThresholdAtLambdaSqrtStepGamma) {
  const double lambda = 1.0, gamma = 2.0, s = 4.0;  // s >= gamma: hard threshold at sqrt(8)
  const mcp p(lambda, gamma);
  const double thr = lambda * std::sqrt(s * gamma);
  EXPECT_EQ(p.prox(thr - 1e-9, s), 0.0);
  EXPECT_EQ(p.prox(thr + 1e-9, s), thr + 1e-9);
  EXPECT_EQ(p.prox(-(thr + 1e-9), s), -(thr + 1e-9));
  // The buggy threshold s * lambda = 4 > sqrt(8): at u = 3.5 the true prox keeps u.
  EXPECT_EQ(p.prox(3.5, s), 3.5);
}

// The ISTDP paper's shrinkage-thresholding function (Yuan & Peng 2023 [ISTDP], the MCP prox;
// docs/theory/istdp.md, "The MCP proximal operator"), transcribed literally (step gamma, concavity
// alpha): h1 = (t-s)^2/2 + lambda gamma |t| - t^2/(2 alpha) on |t| <= alpha lambda,
// h2 = (t-s)^2/2 + alpha (lambda gamma)^2 / 2 on |t| >= alpha lambda. It is the prox of
// phi(.; gamma lambda, alpha), not of gamma phi(.; lambda, alpha).
double istdp_paper_threshold(double s, double gamma, double lambda, double alpha) {
  const double a = std::fabs(s);
  auto h1 = [&](double t) {
    return 0.5 * (t - a) * (t - a) + lambda * gamma * t - t * t / (2 * alpha);
  };
  double z = 0;
  for (double t :
       {0.0,
        alpha * lambda,
        std::min(alpha * lambda, std::max(0.0, alpha * (a - gamma * lambda) / (alpha - 1)))}) {
    if (h1(t) < h1(z)) z = t;
  }
  const double t2 = std::max(alpha * lambda, a);
  const double h2 = 0.5 * (t2 - a) * (t2 - a) + alpha * (lambda * gamma) * (lambda * gamma) / 2;
  return std::copysign(h1(z) <= h2 ? z : t2, s);
}

TEST(Mcp, SeedClosedFormIsWrongForStepNotOne) {
  const double lambda = 1.0, alpha = 3.0;
  const mcp p(lambda, alpha);
  // Step 1: the seed's form is right.
  for (double u = -4; u <= 4; u += 0.125)
    EXPECT_NEAR(istdp_paper_threshold(u, 1.0, lambda, alpha), p.prox(u, 1.0), 1e-12);
  // Step 0.5, u = 1: true prox (1 - 0.5)/(1 - 0.5/3) = 0.6; the seed's form gives 0.75.
  EXPECT_NEAR(p.prox(1.0, 0.5), 0.6, 1e-15);
  EXPECT_NEAR(istdp_paper_threshold(1.0, 0.5, lambda, alpha), 0.75, 1e-15);
  const auto phi = [&](double t) { return p.penalty(t); };
  EXPECT_NEAR(brute_force_argmin(phi, 1.0, 0.5), 0.6, 1e-6);
}

TEST(Moreau, L1AndL2Ball) {
  auto g = rng::stream(5, 0, 0, rng::purpose::aux);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> v(7), a(7), b(7);
    for (double& x : v) x = 6 * rng::uniform01(g) - 3;
    // f = lambda||.||_1, f* = indicator{||y||_inf <= lambda}: prox_{f*} = clamp.
    const double lambda = 0.9;
    l1_norm(lambda).apply(v, 1.0, a);
    for (std::size_t j = 0; j < v.size(); ++j) {
      EXPECT_NEAR(a[j] + std::clamp(v[j], -lambda, lambda), v[j], 1e-15);
    }
    // f = indicator of the L2 ball radius r, f* = r||.||_2 whose prox is block soft thresholding.
    const double r = 1.5;
    l2_ball(r).apply(v, 1.0, a);
    double norm = 0;
    for (double x : v) norm += x * x;
    norm = std::sqrt(norm);
    for (std::size_t j = 0; j < v.size(); ++j) {
      const double bst = norm > r ? v[j] * (1 - r / norm) : 0.0;
      EXPECT_NEAR(a[j] + bst, v[j], 1e-14);
    }
  }
}

TEST(Optimality, L1AndElasticNetSubgradient) {
  const double s = 0.7, l1 = 0.4, l2 = 0.3;
  const elastic_net en(l1, l2);
  for (double u = -2; u <= 2; u += 0.01) {
    const double x = en.prox(u, s);
    // (u - x)/s in d(l1|x| + l2 x^2/2) = l1 sign(x) + l2 x  (x != 0),  [-l1, l1]  (x == 0)
    const double g = (u - x) / s;
    if (x != 0) {
      EXPECT_NEAR(g, l1 * (x > 0 ? 1 : -1) + l2 * x, 1e-12);
    } else {
      EXPECT_LE(std::fabs(g), l1 + 1e-12);
    }
  }
}

// Duchi, Shalev-Shwartz, Singer, Chandra (2008), Figure 1: sort-based simplex projection.
std::vector<double> duchi_simplex(const std::vector<double>& v, double z) {
  std::vector<double> mu(v);
  std::sort(mu.begin(), mu.end(), std::greater<>());
  double cum = 0, theta = 0;
  for (std::size_t j = 0; j < mu.size(); ++j) {
    cum += mu[j];
    const double t = (cum - z) / static_cast<double>(j + 1);
    if (mu[j] - t > 0) theta = t;
  }
  std::vector<double> w(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) w[i] = std::max(v[i] - theta, 0.0);
  return w;
}

TEST(Projection, SimplexAndL1BallMatchSortBasedReference) {
  auto g = rng::stream(6, 0, 0, rng::purpose::aux);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t d = 1 + rng::uniform_below(g, 40);
    std::vector<double> v(d), out(d);
    for (double& x : v) x = 4 * rng::uniform01(g) - 2;
    const double z = 0.1 + 2 * rng::uniform01(g);
    simplex(z).apply(v, 1.0, out);
    const auto ref = duchi_simplex(v, z);
    double sum = 0;
    for (std::size_t i = 0; i < d; ++i) {
      EXPECT_NEAR(out[i], ref[i], 1e-12);
      EXPECT_GE(out[i], 0.0);
      sum += out[i];
    }
    EXPECT_NEAR(sum, z, 1e-12);
    // L1 ball: reference via |v| onto the simplex when outside.
    l1_ball(z).apply(v, 1.0, out);
    double n1 = 0;
    for (double x : v) n1 += std::fabs(x);
    std::vector<double> mag(d);
    for (std::size_t i = 0; i < d; ++i) mag[i] = std::fabs(v[i]);
    const auto refm = duchi_simplex(mag, z);
    for (std::size_t i = 0; i < d; ++i) {
      const double expect = n1 <= z ? v[i] : std::copysign(refm[i], v[i]);
      EXPECT_NEAR(out[i], expect, 1e-12);
    }
  }
}

TEST(Projection, LargeSimplexKkt) {
  // KKT for the simplex projection: x = max(v - tau, 0) with sum x = z, a single tau.
  auto g = rng::stream(7, 0, 0, rng::purpose::aux);
  std::vector<double> v(100000), out(100000);
  for (double& x : v) x = rng::uniform01(g);
  simplex(10.0).apply(v, 1.0, out);
  double tau = std::numeric_limits<double>::quiet_NaN(), sum = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    sum += out[i];
    if (out[i] > 0) {
      if (std::isnan(tau)) tau = v[i] - out[i];
      EXPECT_NEAR(v[i] - out[i], tau, 1e-12);
    }
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (out[i] == 0) {
      EXPECT_LE(v[i], tau + 1e-12);
    }
  }
  EXPECT_NEAR(sum, 10.0, 1e-9);
}

template <class P>
void expect_projection_properties(const P& p, rng::philox4x32& g, double spread) {
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<double> a(9), b(9), pa(9), pb(9), ppa(9);
    for (double& x : a) x = spread * (2 * rng::uniform01(g) - 1);
    for (double& x : b) x = spread * (2 * rng::uniform01(g) - 1);
    p.apply(a, 1.0, pa);
    p.apply(b, 0.3, pb);  // the step does not matter for an indicator
    p.apply(pa, 1.0, ppa);
    EXPECT_EQ(p.value(pa), 0.0);
    double dab = 0, dp = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(ppa[i], pa[i], 1e-12);  // idempotent
      dab += (a[i] - b[i]) * (a[i] - b[i]);
      dp += (pa[i] - pb[i]) * (pa[i] - pb[i]);
    }
    EXPECT_LE(std::sqrt(dp), std::sqrt(dab) + 1e-12);  // non-expansive
  }
}

TEST(Projection, IdempotentFeasibleNonExpansive) {
  auto g = rng::stream(8, 0, 0, rng::purpose::aux);
  expect_projection_properties(l2_ball(1.0), g, 3.0);
  expect_projection_properties(box(-0.5, 0.25), g, 3.0);
  expect_projection_properties(simplex(1.0), g, 3.0);
  expect_projection_properties(l1_ball(1.0), g, 3.0);
}

TEST(Projection, InPlaceAliasing) {
  std::vector<double> v{3, -4, 0.5};
  l1_ball(1.0).apply(v, 1.0, v);
  EXPECT_NEAR(std::fabs(v[0]) + std::fabs(v[1]) + std::fabs(v[2]), 1.0, 1e-12);
  std::vector<double> w{3, 4};
  l2_ball(1.0).apply(w, 1.0, w);
  EXPECT_NEAR(w[0], 0.6, 1e-15);
  EXPECT_NEAR(w[1], 0.8, 1e-15);
  EXPECT_EQ(l2_ball(1.0).value(std::vector<double>{2, 0}), std::numeric_limits<double>::infinity());
}

TEST(Validation, BadParametersNamed) {
  EXPECT_THROW(mcp(0.5, 1.0), core::invalid_argument_error);
  EXPECT_THROW(mcp(-1, 3), core::invalid_argument_error);
  EXPECT_THROW(scad(0.5, 2.0), core::invalid_argument_error);
  EXPECT_THROW(l1_norm(std::nan("")), core::invalid_argument_error);
  EXPECT_THROW(l2_ball(0), core::invalid_argument_error);
  EXPECT_THROW(box(1, 1), core::invalid_argument_error);
  EXPECT_THROW(simplex(-1), core::invalid_argument_error);
  try {
    mcp(0.5, 0.9);
    FAIL();
  } catch (const core::invalid_argument_error& e) {
    EXPECT_EQ(e.parameter(), "gamma");
  }
  std::vector<double> v{1, 2}, out(3);
  EXPECT_THROW(l1_norm(1).apply(v, 1.0, out), core::invalid_argument_error);
  out.resize(2);
  EXPECT_THROW(l1_norm(1).apply(v, 0.0, out), core::invalid_argument_error);
}

}  // namespace
}  // namespace dpx::prox
