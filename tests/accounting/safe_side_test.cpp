// Properties checked (the safe-side contract of the analytic Gaussian calibrators, issue 18):
// on a dense (epsilon, delta) grid, epsilon in [0.01, 50], delta in [1e-12, 1e-3], each
// calibrator's returned sigma is >= the tight sigma evaluated independently in 50-digit
// arithmetic (mpmath, table in gaussian_sigma_reference.inc), i.e. delta(eps) <= delta is never
// violated, not even by rounding, and it is within 1e-9 relative of the tight value.
// Calibrators: dpx::accounting::calibrate_gaussian_analytic (and calibrate_gaussian with the
// analytic and pld methods at q = 1) and dpx::mechanisms::gaussian::calibrate_analytic.
#include <gtest/gtest.h>

#include "dpx/accounting/calibration.hpp"
#include "dpx/accounting/gaussian.hpp"
#include "dpx/mechanisms/gaussian.hpp"

namespace acc = dpx::accounting;

namespace {
struct row {
  double epsilon, delta, sigma;
};
const row kRows[] = {
#include "gaussian_sigma_reference.inc"
};
}  // namespace

TEST(SafeSide, AnalyticGaussianCalibratorsOnDenseGrid) {
  for (const auto& r : kRows) {
    const std::string where = std::to_string(r.epsilon) + " " + std::to_string(r.delta);
    const double a = acc::calibrate_gaussian_analytic(r.epsilon, r.delta);
    const double m = dpx::mechanisms::gaussian::calibrate_analytic(r.epsilon, r.delta, 1.0).sigma();
    const double p = acc::calibrate_gaussian(acc::gaussian_calibration::pld, r.epsilon, r.delta);
    for (double s : {a, m, p}) {
      EXPECT_GE(s, r.sigma) << where;
      EXPECT_LE(s, r.sigma * (1 + 1e-9)) << where;
    }
  }
}
