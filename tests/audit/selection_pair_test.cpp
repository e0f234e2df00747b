// Properties checked (exact): the selection pair of pairs.hpp (utilities 0 vs (Delta_u,
// -Delta_u, ..., -Delta_u)) attains the closed-form ratios its documentation states, computed
// here independently and compared with the mechanisms' own exact selection probabilities
// (exponential_mechanism::probabilities: a softmax; permute_and_flip::probabilities: a sum over
// all k! orders, k <= 8):
//   exponential mechanism: P_D(0) = 1/k, P_D'(0) = 1/(1 + (k - 1) e^-eps);
//   permute-and-flip:      P_D(0) = 1/k, P_D'(0) = (1 - (1 - e^-eps)^k) e^eps / k.
// Also: the pair's statistic is the indicator of candidate 0, and bad k throws.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/audit/pairs.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/selection.hpp"

namespace {

using namespace dpx;

std::vector<double> utilities(std::size_t k, double du, bool d_prime) {
  std::vector<double> u(k, 0.0);
  if (d_prime)
    for (std::size_t r = 0; r < k; ++r) u[r] = r == 0 ? du : -du;
  return u;
}

TEST(SelectionPair, ExponentialMechanismRatioMatchesTheClosedForm) {
  for (double eps : {0.5, 1.0, 2.0}) {
    for (std::size_t k : {2u, 8u, 50u}) {
      const auto m = mechanisms::exponential_mechanism::calibrate(eps, 3.0);
      const auto p0 = m.probabilities(utilities(k, 3.0, false));
      const auto p1 = m.probabilities(utilities(k, 3.0, true));
      EXPECT_NEAR(p0[0], 1.0 / static_cast<double>(k), 1e-12);
      EXPECT_NEAR(p1[0], 1.0 / (1.0 + static_cast<double>(k - 1) * std::exp(-eps)), 1e-12);
    }
  }
}

TEST(SelectionPair, PermuteAndFlipRatioMatchesTheClosedForm) {
  for (double eps : {0.5, 1.0, 2.0}) {
    for (std::size_t k : {2u, 5u, 8u}) {
      const auto m = mechanisms::permute_and_flip::calibrate(eps, 0.5);
      const auto p0 = m.probabilities(utilities(k, 0.5, false));
      const auto p1 = m.probabilities(utilities(k, 0.5, true));
      const double kd = static_cast<double>(k);
      EXPECT_NEAR(p0[0], 1.0 / kd, 1e-12);
      EXPECT_NEAR(p1[0], (1.0 - std::pow(1.0 - std::exp(-eps), kd)) * std::exp(eps) / kd, 1e-12);
    }
  }
}

TEST(SelectionPair, StatisticIsTheIndicatorOfCandidateZero) {
  // With eps huge, D' always selects candidate 0 (the others have weight ~e^-eps).
  const auto m = mechanisms::exponential_mechanism::calibrate(200.0, 1.0);
  auto g = rng::stream(3, 0, 0, rng::purpose::audit);
  const auto p = audit::selection_pair(m, 1.0, 4, 100, g);
  for (double v : p.s1[0]) EXPECT_EQ(v, 1.0);
  for (double v : p.s0[0]) EXPECT_TRUE(v == 0.0 || v == 1.0);
  EXPECT_THROW(audit::selection_pair(m, 1.0, 1, 100, g), std::invalid_argument);
  EXPECT_THROW(audit::selection_pair(m, 0.0, 4, 100, g), std::invalid_argument);
}

}  // namespace
