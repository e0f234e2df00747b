// The exact composed-Gaussian oracle of accounting_tightness (gaussian_composition.hpp) against
// values computed with mpmath at 40 digits from Balle & Wang (2018), Thm. 8:
//   delta(mu, eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
// (mp.dps = 40; ncdf; bisection for the inverses), and the properties the checks rely on.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "gaussian_composition.hpp"

namespace {

namespace pt = dpx::experiments::pgd_theory;

TEST(GaussianComposition, DeltaEqualsMpmath) {
  EXPECT_NEAR(pt::gaussian_delta(1.0, 1.0), 0.12693673750664394580, 1e-15);
  EXPECT_NEAR(pt::gaussian_delta(0.5, 2.0) / 9.4391686349472337585e-6, 1.0, 1e-10);
  // Deep tail (mu = 0.5, eps = 16: both Phi arguments below -30, where erfc underflows and the
  // asymptotic branch is used; the two terms cancel to about 2 digits): mpmath 2.4566757e-223.
  EXPECT_NEAR(pt::gaussian_delta(0.5, 16.0) / 2.4566757241160500585e-223, 1.0, 1e-6);
}

TEST(GaussianComposition, InversesEqualMpmath) {
  EXPECT_NEAR(pt::gaussian_epsilon(1.0, 1e-5), 4.3771780956812246277, 1e-11);
  // sigma(eps = 1, delta = 1e-5, T = 1) = 1/mu* with mu* = 0.26805112321129421790.
  EXPECT_NEAR(pt::gaussian_composition_sigma(1.0, 1e-5, 1), 3.7306316348159418322, 1e-11);
  // T releases at sigma are one at sigma/sqrt(T): the calibrated sigma scales as sqrt(T).
  EXPECT_NEAR(pt::gaussian_composition_sigma(1.0, 1e-5, 100), 37.306316348159418322, 1e-10);
  EXPECT_NEAR(pt::gaussian_composition_sigma(4.0, 1e-5, 1), 1.0811618495202392080, 1e-11);
}

TEST(GaussianComposition, RoundTripAndMonotone) {
  for (const double mu : {0.05, 0.3, 1.0, 3.0}) {
    const double e = pt::gaussian_epsilon(mu, 1e-6);
    EXPECT_NEAR(pt::gaussian_delta(mu, e) / 1e-6, 1.0, 1e-8) << mu;
    EXPECT_LT(pt::gaussian_delta(mu, e * 1.01), 1e-6);
    EXPECT_GT(pt::gaussian_delta(mu * 1.01, e), 1e-6);
  }
  EXPECT_THROW(pt::gaussian_delta(0.0, 1.0), std::invalid_argument);
  EXPECT_THROW(pt::gaussian_composition_sigma(1.0, 1e-5, 0), std::invalid_argument);
}

}  // namespace
