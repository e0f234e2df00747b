// Properties checked (approximate-DP composition, dpx/accounting/composition.hpp):
// - basic and advanced (DRV) composition equal their closed forms; inverses round-trip and are
//   on the safe side; monotone in k and epsilon0.
// - KOV optimal composition (Thm 3.3) equals a brute-force evaluation of the hockey-stick
//   divergence of the k-fold product of its dominating pair (2-point for pure DP, 4-point for
//   (eps0, delta0)) for small k, for several eps.
// - KOV optimal at k = 1000, eps0 = 0.5 is finite and nonzero (a public float64 reference
//   returns 0), and equals 193.5 at delta = 1e-6 (the exact optimal composition; prv_accountant's
//   pure-DP bound, built on an RDP curve that is too low near alpha = 1, gives 188.1 there).
// - KOV optimal is <= the KOV Thm 3.4 bound <= basic; the heterogeneous Thm 3.5 form reduces
//   to the homogeneous one; the optimal per-step inverse round-trips.
// - approx_dp_accountant: rules, merging, unsupported events, bad parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "brute_force.hpp"
#include "dpx/accounting/composition.hpp"

namespace acc = dpx::accounting;
namespace core = dpx::core;

using dpx::accounting::testing::brute_force_delta;

TEST(BasicComposition, ClosedFormAndInverse) {
  auto r = acc::basic_composition(0.1, 1e-6, 10);
  EXPECT_DOUBLE_EQ(r.epsilon, 1.0);
  EXPECT_DOUBLE_EQ(r.delta, 1e-5);
  auto s = acc::basic_per_step(1.0, 1e-5, 10);
  EXPECT_DOUBLE_EQ(s.epsilon, 0.1);
  EXPECT_DOUBLE_EQ(s.delta, 1e-6);
}

TEST(AdvancedComposition, ClosedForm) {
  // Dwork, Rothblum & Vadhan 2010 Thm III.3 / Yuan & Peng 2023 Lemma 3.1, by hand:
  const double e0 = 0.01, k = 1000, ds = 1e-5;
  const double want = std::sqrt(2 * k * std::log(1 / ds)) * e0 + k * e0 * (std::exp(e0) - 1);
  auto r = acc::advanced_composition(e0, 1e-8, 1000, ds);
  EXPECT_NEAR(r.epsilon, want, 1e-14 * want);
  EXPECT_NEAR(r.delta, 1000 * 1e-8 + ds, 1e-18);
}

TEST(AdvancedComposition, InverseRoundTripSafeSide) {
  for (double eps : {0.1, 1.0, 5.0}) {
    for (std::int64_t k : {1, 10, 10000}) {
      const double e0 = acc::advanced_per_step_epsilon(eps, k, 1e-6);
      const double back = acc::advanced_composition(e0, 0.0, k, 1e-6).epsilon;
      EXPECT_LE(back, eps);
      EXPECT_GT(back, eps * (1 - 1e-9));
    }
  }
}

TEST(AdvancedComposition, MonotoneInKAndEpsilon0) {
  double prev = 0;
  for (std::int64_t k = 1; k < 5000; k *= 3) {
    const double e = acc::advanced_composition(0.05, 0, k, 1e-5).epsilon;
    EXPECT_GT(e, prev);
    prev = e;
  }
  EXPECT_LT(acc::advanced_composition(0.05, 0, 10, 1e-5).epsilon,
            acc::advanced_composition(0.06, 0, 10, 1e-5).epsilon);
}

TEST(KovOptimal, PureDpMatchesBruteForce) {
  for (double e0 : {0.1, 0.5, 1.3}) {
    const double a = std::exp(e0) / (1 + std::exp(e0)), b = 1 / (1 + std::exp(e0));
    for (int k : {1, 2, 5, 10}) {
      for (double eps : {0.0, 0.3 * e0, e0, 2.5 * e0}) {
        const double bf = brute_force_delta({a, b}, {b, a}, k, eps);
        const double kov = acc::kov_optimal_delta(e0, 0.0, k, eps);
        EXPECT_NEAR(kov, bf, 1e-13 + 1e-11 * bf) << "e0=" << e0 << " k=" << k << " eps=" << eps;
      }
    }
  }
}

TEST(KovOptimal, ApproxDpMatchesBruteForce) {
  const double e0 = 0.4, d0 = 1e-3;
  const double a = (1 - d0) * std::exp(e0) / (1 + std::exp(e0)), b = (1 - d0) / (1 + std::exp(e0));
  const std::vector<double> p{d0, a, b, 0.0}, q{0.0, b, a, d0};
  for (int k : {1, 3, 5}) {
    for (double eps : {0.0, 0.5, 1.1}) {
      const double bf = brute_force_delta(p, q, k, eps);
      EXPECT_NEAR(acc::kov_optimal_delta(e0, d0, k, eps), bf, 1e-13 + 1e-11 * bf);
    }
  }
}

TEST(KovOptimal, LargeKFiniteAndPublishedValue) {
  // The exact optimal composition (KOV 2015, Thm 3.3) of 1000 0.5-DP mechanisms is 193.5 at
  // delta = 1e-6; a float64 implementation of Thm 3.3 (rrogers386/DPComposition) overflows
  // near k = 1000 and returns 0.
  const double d = acc::kov_optimal_delta(0.5, 0.0, 1000, 150.0);
  EXPECT_GT(d, 0.0);
  EXPECT_TRUE(std::isfinite(d));
  const double e = acc::kov_optimal_epsilon(0.5, 0.0, 1000, 1e-6);
  EXPECT_NEAR(e, 193.5, 0.05);
  EXPECT_LE(acc::kov_optimal_delta(0.5, 0.0, 1000, e), 1e-6);
  // k = 10^4 is also finite and strictly below basic composition.
  const double e4 = acc::kov_optimal_epsilon(0.1, 0.0, 10000, 1e-5);
  EXPECT_TRUE(std::isfinite(e4));
  EXPECT_GT(e4, 0.0);
  EXPECT_LT(e4, 1000.0);
}

TEST(KovOptimal, DeltaIsAProbabilityWhereTheLossDominates) {
  // Regression (fuzz_events): k = 5000 Laplace steps of multiplier 2.2 at eps = 1 returned
  // delta = 1 + 1.8e-12. Where eps is far below the composed loss, delta is 1 up to rounding
  // and must never exceed it; brute force agrees at small k (delta = 1 - P[loss <= eps]).
  EXPECT_LE(acc::kov_optimal_delta(1.0 / 2.2, 0.0, 5000, 1.0), 1.0);
  EXPECT_GT(acc::kov_optimal_delta(1.0 / 2.2, 0.0, 5000, 1.0), 1.0 - 1e-9);
  for (std::int64_t k : {100, 1000, 5000, 20000, 100000}) {
    for (double e0 : {0.05, 0.3, 0.4545, 1.0, 3.0}) {
      for (double eps : {0.0, 0.1, 1.0, 10.0}) {
        const double d = acc::kov_optimal_delta(e0, 0.0, k, eps);
        EXPECT_TRUE(d >= 0.0 && d <= 1.0)
            << "k=" << k << " e0=" << e0 << " eps=" << eps << " d=" << d;
        const double da = acc::kov_optimal_delta(e0, 1e-6, k, eps);
        EXPECT_TRUE(da >= d && da <= 1.0) << "k=" << k << " e0=" << e0 << " eps=" << eps;
      }
    }
  }
}

TEST(KovOptimal, BelowBoundsAndInverse) {
  for (std::int64_t k : {1, 10, 100, 1000}) {
    const double opt = acc::kov_optimal_epsilon(0.1, 0.0, k, 1e-5);
    const double bound = acc::kov_composition(0.1, 0.0, k, 1e-5).epsilon;
    EXPECT_LE(opt, bound * (1 + 1e-12)) << k;
    EXPECT_LE(bound, 0.1 * static_cast<double>(k) * (1 + 1e-12));
    // Thm 3.4's third term is <= DRV: eps tanh(eps/2) <= eps (e^eps - 1), same sqrt term.
    EXPECT_LE(bound, acc::advanced_composition(0.1, 0.0, k, 1e-5).epsilon * (1 + 1e-12));
  }
  const double e0 = acc::kov_optimal_per_step_epsilon(2.0, 1e-5, 500, 0.0);
  const double back = acc::kov_optimal_epsilon(e0, 0.0, 500, 1e-5);
  EXPECT_LE(back, 2.0);
  EXPECT_GT(back, 2.0 * (1 - 1e-6));
  EXPECT_LE(acc::kov_optimal_delta(e0, 0.0, 500, 2.0), 1e-5);
}

TEST(KovBound, HeterogeneousReducesToHomogeneous) {
  std::vector<double> eps(50, 0.2), del(50, 1e-7);
  auto het = acc::kov_composition(eps, del, 1e-5);
  auto hom = acc::kov_composition(0.2, 1e-7, 50, 1e-5);
  EXPECT_NEAR(het.epsilon, hom.epsilon, 1e-12 * hom.epsilon);
  EXPECT_NEAR(het.delta, hom.delta, 1e-15);
  // Closed form of the third term by hand (eps_i tanh(eps_i/2) = eps_i(e^eps_i-1)/(e^eps_i+1)).
  const double first = 50 * 0.2 * (std::exp(0.2) - 1) / (std::exp(0.2) + 1);
  const double third = first + std::sqrt(2 * 50 * 0.04 * std::log(1e5));
  EXPECT_LE(hom.epsilon, third * (1 + 1e-12));
}

TEST(KovBound, InverseRoundTrip) {
  const double e0 = acc::kov_per_step_epsilon(1.0, 1000, 1e-6);
  const double back = acc::kov_composition(e0, 0.0, 1000, 1e-6).epsilon;
  EXPECT_LE(back, 1.0);
  EXPECT_GT(back, 1.0 - 1e-9);
}

TEST(ApproxDpAccountant, RulesAndMerging) {
  acc::approx_dp_accountant basic(acc::composition_rule::basic);
  acc::approx_dp_accountant adv(acc::composition_rule::advanced);
  acc::approx_dp_accountant kov(acc::composition_rule::kov);
  for (acc::accountant* a : {static_cast<acc::accountant*>(&basic),
                             static_cast<acc::accountant*>(&adv),
                             static_cast<acc::accountant*>(&kov)}) {
    for (int i = 0; i < 100; ++i) a->compose(core::laplace_event{10.0});  // 0.1-DP each
  }
  EXPECT_NEAR(basic.epsilon(1e-5), 10.0, 1e-12);
  EXPECT_NEAR(adv.epsilon(1e-5),
              std::min(10.0, acc::advanced_composition(0.1, 0, 100, 1e-5).epsilon),
              1e-12);
  EXPECT_NEAR(kov.epsilon(1e-5), acc::kov_optimal_epsilon(0.1, 0, 100, 1e-5), 1e-12);
  EXPECT_LE(kov.epsilon(1e-5), adv.epsilon(1e-5));
  // delta(epsilon) inverts epsilon(delta) on the safe side
  const double e = adv.epsilon(1e-6);
  EXPECT_LE(adv.delta(e), 1e-6 * (1 + 1e-6));
  EXPECT_LE(adv.epsilon(adv.delta(e)), e * (1 + 1e-9));
  // heterogeneous: mixing events uses Thm 3.5, never worse than basic
  kov.compose(core::pure_dp_event{0.5}, 3);
  EXPECT_LE(kov.epsilon(1e-5), 11.5 + 1e-12);
  // basic with approx events: no finite guarantee below the summed delta
  basic.compose(core::approx_dp_event{0.1, 1e-6}, 10);
  EXPECT_TRUE(std::isinf(basic.epsilon(1e-6)));
  EXPECT_NEAR(basic.epsilon(2e-5), 11.0, 1e-12);
}

TEST(ApproxDpAccountant, RejectsUnsupportedAndBadInput) {
  acc::approx_dp_accountant a(acc::composition_rule::advanced);
  EXPECT_FALSE(a.supports(core::gaussian_event{1.0}));
  EXPECT_THROW(a.compose(core::gaussian_event{1.0}), acc::unsupported_event_error);
  EXPECT_THROW(a.compose(core::zcdp_event{0.1}), acc::unsupported_event_error);
  EXPECT_THROW(a.compose(core::pure_dp_event{-1.0}), std::invalid_argument);
  EXPECT_THROW(a.compose(core::pure_dp_event{1.0}, 0), std::invalid_argument);
  EXPECT_THROW(a.epsilon(0.0), std::invalid_argument);
  EXPECT_THROW(acc::advanced_composition(0.1, 0, 10, 1.0), std::invalid_argument);
  EXPECT_THROW(acc::basic_composition(std::nan(""), 0, 10), std::invalid_argument);
  EXPECT_THROW(acc::kov_optimal_epsilon(0.1, 0, 0, 1e-5), std::invalid_argument);
  EXPECT_THROW(acc::parse_composition_rule("strong"), std::invalid_argument);
}
