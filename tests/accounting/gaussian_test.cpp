// Properties checked (analytic Gaussian, dpx/accounting/gaussian.hpp):
// - delta(eps) equals an independent 50-digit evaluation of Balle & Wang 2018 Thm 8
//   (Boost.Multiprecision cpp_bin_float_50 + Boost.Math erfc) over moderate and extreme
//   arguments, including eps > 709 where e^eps overflows a double (log-space evaluation).
// - eps(delta) is the safe-side inverse; T Gaussians at sigma equal one at sigma/sqrt(T).
// - Calibration is conservative: the returned sigma re-evaluated in 50-digit arithmetic gives
//   delta <= target, including delta = 1e-10 (where the authors' code can return sigma too
//   small), and is within 1e-9 relative of the exact root.
// - Reference value sigma = 3.7306 for (eps, delta) = (1, 1e-5): the root of Balle & Wang 2018
//   Thm 8 computed independently (not a number quoted from the paper); the classical Dwork &
//   Roth 2014 Thm A.1 calibration is the closed form sqrt(2 ln(1.25/delta)) / eps (eps < 1 only).
// - Monotonicity in sigma, steps and delta; bad input throws.
#include <gtest/gtest.h>

#include <boost/math/special_functions/erf.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>

#include "dpx/accounting/gaussian.hpp"

namespace acc = dpx::accounting;
using big = boost::multiprecision::cpp_bin_float_50;

namespace {
big phi_big(const big& x) {
  return boost::math::erfc(-x / boost::multiprecision::sqrt(big(2))) / 2;
}
/// delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) in 50 digits.
big delta_big(double eps, double sigma) {
  const big mu = big(1) / big(sigma);
  const big e = big(eps);
  return phi_big(mu / 2 - e / mu) - boost::multiprecision::exp(e) * phi_big(-mu / 2 - e / mu);
}
}  // namespace

TEST(GaussianDelta, MatchesMultiprecision) {
  for (double sigma : {0.3, 1.0, 2.0, 10.0}) {
    for (double eps : {0.0, 0.1, 1.0, 3.0, 8.0}) {
      const big ref = delta_big(eps, sigma);
      if (ref < big(1e-250)) continue;
      const double got = acc::gaussian_delta(eps, sigma);
      EXPECT_NEAR(got / ref.convert_to<double>(), 1.0, 1e-11) << sigma << " " << eps;
    }
  }
}

TEST(GaussianDelta, ExtremeEpsilonInLogSpace) {
  // eps > 709: e^eps overflows a double; a noise multiplier of 0.025 (mu = 40) puts the
  // delta = 1e-5 epsilon near 970. Compare log delta with the 50-digit value.
  for (double eps : {750.0, 900.0, 1000.0}) {
    const big ref = delta_big(eps, 0.025);
    const double log_ref = boost::multiprecision::log(ref).convert_to<double>();
    const double got = acc::gaussian_log_delta(eps, 0.025);
    EXPECT_NEAR(got, log_ref, 1e-9 * std::abs(log_ref)) << eps;
  }
  const double e = acc::gaussian_epsilon(1e-5, 0.025);
  EXPECT_GT(e, 709.0);
  EXPECT_TRUE(std::isfinite(e));
  EXPECT_LE(delta_big(e, 0.025), big(1e-5));
  EXPECT_GT(delta_big(e * (1 - 1e-9), 0.025), big(1e-5));
}

TEST(GaussianEpsilon, SafeSideInverseAndComposition) {
  for (double sigma : {0.5, 1.0, 4.0}) {
    for (double delta : {1e-3, 1e-5, 1e-10}) {
      const double e = acc::gaussian_epsilon(delta, sigma);
      EXPECT_LE(delta_big(e, sigma), big(delta) * (1 + 1e-12));
      EXPECT_NEAR(acc::gaussian_delta(e, sigma) / delta, 1.0, 1e-9);
    }
  }
  EXPECT_DOUBLE_EQ(acc::gaussian_composed_epsilon(1e-5, 10.0, 100),
                   acc::gaussian_epsilon(1e-5, 1.0));
}

TEST(GaussianCalibration, ConservativeAtTinyDelta) {
  for (double eps : {0.1, 1.0, 10.0}) {
    for (double delta : {1e-5, 1e-10}) {
      const double s = acc::calibrate_gaussian_analytic(eps, delta);
      EXPECT_LE(delta_big(eps, s), big(delta)) << eps << " " << delta;
      EXPECT_GT(delta_big(eps, s * (1 - 1e-9)), big(delta)) << eps << " " << delta;
    }
  }
  // T steps: sigma / sqrt(T) is the single-step answer
  const double s100 = acc::calibrate_gaussian_analytic(2.0, 1e-6, 100);
  EXPECT_LE(delta_big(2.0, s100 / 10.0), big(1e-6) * (1 + 1e-12));
  EXPECT_NEAR(s100 / 10.0, acc::calibrate_gaussian_analytic(2.0, 1e-6), 1e-9 * s100);
}

TEST(GaussianCalibration, PublishedValues) {
  EXPECT_NEAR(acc::calibrate_gaussian_analytic(1.0, 1e-5), 3.7306, 5e-4);
  // Rounded up by a few ulps (the safe side of the closed form), never below it.
  const double classical = 2 * std::sqrt(2 * std::log(1.25e5));
  EXPECT_GE(acc::calibrate_gaussian_classical(0.5, 1e-5), classical);
  EXPECT_NEAR(acc::calibrate_gaussian_classical(0.5, 1e-5), classical, 1e-13);
  EXPECT_LT(acc::calibrate_gaussian_analytic(0.5, 1e-5),
            acc::calibrate_gaussian_classical(0.5, 1e-5));
}

TEST(GaussianEpsilon, Monotonicity) {
  double prev = 1e300;
  for (double s : {0.5, 1.0, 2.0, 4.0}) {
    const double e = acc::gaussian_epsilon(1e-5, s);
    EXPECT_LT(e, prev);
    prev = e;
  }
  EXPECT_LT(acc::gaussian_composed_epsilon(1e-5, 2.0, 10),
            acc::gaussian_composed_epsilon(1e-5, 2.0, 11));
  EXPECT_GT(acc::gaussian_epsilon(1e-6, 2.0), acc::gaussian_epsilon(1e-5, 2.0));
}

TEST(Gaussian, RejectsBadInput) {
  EXPECT_THROW(acc::gaussian_epsilon(0.0, 1.0), std::invalid_argument);
  EXPECT_THROW(acc::gaussian_epsilon(1e-5, -1.0), std::invalid_argument);
  EXPECT_THROW(acc::calibrate_gaussian_analytic(1.0, 1e-5, 0), std::invalid_argument);
  EXPECT_THROW(acc::calibrate_gaussian_classical(1.5, 1e-5), std::invalid_argument);
  EXPECT_THROW(acc::gaussian_delta(std::nan(""), 1.0), std::invalid_argument);
}
