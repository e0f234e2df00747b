// Properties checked (the papers' published calibrations, dpx/accounting/seeds.hpp):
// - ISTDP Thm 3.3 (Yuan & Peng 2023; docs/theory/istdp.md): eps_k, delta_k, sigma equal the
// formulas
//   by hand, and T-fold advanced composition (slack delta/2) of the per-step
//   (eps_k, delta_k) classical Gaussians is <= (eps, delta).
// - Noisy-PGD Laplace scale (the PGD lecture notes [NPGD]; docs/theory/noisy-pgd.md): b = Delta /
// eps0 with eps0
//   from each rule; the rules order basic >= advanced and kov_optimal <= kov bound; re-composing
//   eps0 under the rule gives <= eps.
// - L2-calibrated Laplace solves Delta^2/(2b^2) + (Delta/b) sqrt(2 log(1/delta)) = eps.
#include <gtest/gtest.h>

#include <cmath>

#include "dpx/accounting/composition.hpp"
#include "dpx/accounting/seeds.hpp"

namespace acc = dpx::accounting;

TEST(Istdp, Theorem33Formulas) {
  const double eps = 1.0, delta = 1e-5, u = 0.5;
  const std::int64_t t = 200;
  const auto c = acc::istdp_theorem_3_3(eps, delta, t, 2 * u);
  const double ek =
      std::min(eps / (2 * std::sqrt(2 * t * std::log(2 / delta))), 0.5 * std::sqrt(eps / t));
  EXPECT_DOUBLE_EQ(c.epsilon_step, ek);
  EXPECT_DOUBLE_EQ(c.delta_step, delta / (2 * t));
  EXPECT_NEAR(
      c.sigma, (2 * u / ek) * std::sqrt(2 * std::log(1.25 / c.delta_step)), 1e-12 * c.sigma);
  EXPECT_TRUE(c.classical_valid);
  const auto comp = acc::advanced_composition(c.epsilon_step, c.delta_step, t, delta / 2);
  EXPECT_LE(comp.epsilon, eps);
  EXPECT_LE(comp.delta, delta * (1 + 1e-12));
}

TEST(NoisyPgd, LaplaceScalesPerRule) {
  const double eps = 1.0, delta = 1e-5, sens = 2.0 / 1000;
  const std::int64_t t = 50, d = 20;
  const auto basic = acc::noisy_pgd_laplace_scale(eps, delta, t, d, sens, acc::laplace_rule::basic);
  const auto adv =
      acc::noisy_pgd_laplace_scale(eps, delta, t, d, sens, acc::laplace_rule::advanced);
  const auto kov = acc::noisy_pgd_laplace_scale(eps, delta, t, d, sens, acc::laplace_rule::kov);
  const auto opt =
      acc::noisy_pgd_laplace_scale(eps, delta, t, d, sens, acc::laplace_rule::kov_optimal);
  EXPECT_EQ(basic.releases, 1000);
  EXPECT_DOUBLE_EQ(basic.scale, sens * 1000 / eps);
  EXPECT_LT(adv.scale, basic.scale);
  EXPECT_LE(opt.scale, kov.scale);
  EXPECT_LE(kov.scale, adv.scale);
  EXPECT_LE(acc::advanced_composition(adv.epsilon_step, 0, 1000, delta).epsilon, eps);
  EXPECT_LE(acc::kov_optimal_epsilon(opt.epsilon_step, 0, 1000, delta), eps);
  EXPECT_NEAR(adv.scale, sens / adv.epsilon_step, 1e-15);
}

TEST(NoisyPgd, L2CalibratedLaplace) {
  const double eps = 0.7, delta = 1e-6, sens = 0.01;
  const double b = acc::l2_laplace_scale(eps, delta, sens);
  const double x = sens / b;
  EXPECT_NEAR(x * x / 2 + x * std::sqrt(2 * std::log(1 / delta)), eps, 1e-14);
}

TEST(Seeds, BadInput) {
  EXPECT_THROW(acc::istdp_theorem_3_3(0.0, 1e-5, 10, 1.0), std::invalid_argument);
  EXPECT_THROW(acc::noisy_pgd_laplace_scale(1.0, 1e-5, 0, 1, 1.0, acc::laplace_rule::basic),
               std::invalid_argument);
  EXPECT_THROW(acc::l2_laplace_scale(1.0, 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(acc::parse_laplace_rule("moments"), std::invalid_argument);
}
