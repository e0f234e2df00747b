// The exact composed-Gaussian oracles of accounting_tightness (pgd_theory: gdp_delta,
// gdp_epsilon, gaussian_sigma) against values computed with mpmath at 40 digits from Balle &
// Wang (2018), Thm. 8: delta(mu, eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
// (mp.dps = 40, ncdf, bisection for the inverses), and the inverse's round trip.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "pgd_theory.hpp"

namespace {

namespace pt = dpx::experiments::pgd_theory;

TEST(PgdTheoryGdp, DeltaEqualsMpmath) {
  EXPECT_NEAR(pt::gdp_delta(1.0, 1.0), 0.12693673750664394580, 1e-15);
  EXPECT_NEAR(pt::gdp_delta(0.5, 2.0) / 9.4391686349472337585e-6, 1.0, 1e-10);
}

TEST(PgdTheoryGdp, InversesEqualMpmath) {
  EXPECT_NEAR(pt::gdp_epsilon(1.0, 1e-5), 4.3771780956812246277, 1e-11);
  // sigma(eps = 1, delta = 1e-5, T = 1) = 1/mu* with mu* = 0.26805112321129421790.
  EXPECT_NEAR(pt::gaussian_sigma(1.0, 1e-5, 1, 1.0), 3.7306316348159418322, 1e-11);
  // T releases at sigma are one at sigma/sqrt(T): the calibrated sigma scales as sqrt(T).
  EXPECT_NEAR(pt::gaussian_sigma(1.0, 1e-5, 100, 1.0), 37.306316348159418322, 1e-10);
  EXPECT_NEAR(pt::gaussian_sigma(4.0, 1e-5, 1, 1.0), 1.0811618495202392080, 1e-11);
}

TEST(PgdTheoryGdp, EpsilonRoundTripAndMonotone) {
  for (const double mu : {0.05, 0.3, 1.0, 3.0}) {
    const double e = pt::gdp_epsilon(mu, 1e-6);
    EXPECT_NEAR(pt::gdp_delta(mu, e) / 1e-6, 1.0, 1e-8) << mu;
    EXPECT_LT(pt::gdp_delta(mu, e * 1.01), 1e-6);
    EXPECT_GT(pt::gdp_delta(mu * 1.01, e), 1e-6);
  }
  EXPECT_EQ(pt::gdp_epsilon(1e-3, 0.5), 0.0);  // delta(0) = 2 Phi(mu/2) - 1 < 0.5
  EXPECT_THROW(pt::gdp_epsilon(0.0, 1e-5), std::invalid_argument);
}

}  // namespace
