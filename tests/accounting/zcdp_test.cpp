// Properties checked (zCDP, dpx/accounting/zcdp.hpp):
// - Gaussian rho = 1/(2 s^2) (Bun & Steinke 2016 Prop 1.6); composition adds rho.
// - Bun-Steinke conversion equals rho + 2 sqrt(rho log(1/delta)) (Prop 1.3).
// - The numerical CKS conversion is tighter than Bun-Steinke, never below the exact Gaussian
//   curve (a Gaussian with rho = 1/(2s^2) attains the rho-zCDP curve's RDP), and its
//   delta(eps) / eps(delta) are safe-side inverses.
// - Unsupported events (subsampled Gaussian, approx DP) throw.
#include <gtest/gtest.h>

#include <cmath>

#include "dpx/accounting/gaussian.hpp"
#include "dpx/accounting/zcdp.hpp"

namespace acc = dpx::accounting;
namespace core = dpx::core;

TEST(Zcdp, GaussianAndComposition) {
  acc::zcdp_accountant a;
  a.compose(core::gaussian_event{2.0}, 10);
  a.compose(core::pure_dp_event{0.1}, 2);
  EXPECT_NEAR(a.rho(), 10 / 8.0 + 2 * 0.005, 1e-15);
  EXPECT_DOUBLE_EQ(acc::zcdp_gaussian_rho(2.0), 0.125);
}

TEST(Zcdp, BunSteinkeClosedForm) {
  acc::zcdp_accountant a(acc::zcdp_conversion::bun_steinke);
  a.compose(core::zcdp_event{0.5});
  EXPECT_NEAR(a.epsilon(1e-5), 0.5 + 2 * std::sqrt(0.5 * std::log(1e5)), 1e-14);
  EXPECT_NEAR(a.delta(a.epsilon(1e-5)), 1e-5, 1e-15);
}

TEST(Zcdp, NumericalTighterButValid) {
  for (double s : {0.5, 1.0, 3.0, 10.0}) {
    const double rho = acc::zcdp_gaussian_rho(s);
    for (double delta : {1e-3, 1e-5, 1e-9}) {
      const double bs = acc::zcdp_epsilon_bun_steinke(rho, delta);
      const double num = acc::zcdp_epsilon(rho, delta);
      const double exact = acc::gaussian_epsilon(delta, s);
      EXPECT_LE(num, bs);
      EXPECT_GE(num, exact * (1 - 1e-12)) << s << " " << delta;
      EXPECT_LE(acc::zcdp_delta(rho, num), delta * (1 + 1e-12));
    }
  }
}

TEST(Zcdp, Unsupported) {
  acc::zcdp_accountant a;
  EXPECT_FALSE(a.supports(core::subsampled_gaussian_event{0.1, 1.0}));
  EXPECT_THROW(a.compose(core::subsampled_gaussian_event{0.1, 1.0}), acc::unsupported_event_error);
  EXPECT_THROW(a.compose(core::approx_dp_event{1.0, 1e-5}), acc::unsupported_event_error);
  EXPECT_THROW(a.compose(core::gaussian_event{-1.0}), std::invalid_argument);
  EXPECT_TRUE(a.supports(core::laplace_event{1.0}));
}
