// Properties checked (amplification by subsampling, composition.hpp; Balle, Barthe & Gaboardi
// 2018, Thms 8 and 9):
// - Sampling without replacement (batch m of n, replace-one neighbours) against brute force:
//   the base mechanism is the batch sum plus two-sided geometric noise (eps0-DP under
//   substitution); the exact output law of the subsampled mechanism is a hypergeometric mixture.
//   Over every pair of neighbouring datasets (c ones vs c + 1 ones) the worst log-ratio is
//   <= log(1 + (m/n)(e^eps0 - 1)), with equality for m = 1 (the bound is attained).
// - T = 2 compositions of that subsampled mechanism: the brute-force delta(eps) of the product
//   law is <= the exact optimal composition of two eps'-DP steps (PLD of pure_dp events).
// - Poisson amplification of (eps, delta) matches its closed form; bad input throws.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "dpx/accounting/composition.hpp"
#include "dpx/accounting/pld.hpp"

namespace acc = dpx::accounting;

namespace {
/// Output law of (sum of a WOR batch of m from n records with c ones) + two-sided geometric
/// noise with parameter a = e^-eps0, on y in [lo, hi] (the ratio is constant beyond).
std::vector<long double> output_law(int n, int c, int m, double eps0, int lo, int hi) {
  const long double a = std::exp(-static_cast<long double>(eps0));
  auto choose = [](int nn, int k) -> long double {
    if (k < 0 || k > nn) return 0.0L;
    return std::exp(std::lgamma(nn + 1.0L) - std::lgamma(k + 1.0L) - std::lgamma(nn - k + 1.0L));
  };
  std::vector<long double> p(static_cast<std::size_t>(hi - lo + 1), 0.0L);
  for (int k = 0; k <= m; ++k) {
    const long double h = choose(c, k) * choose(n - c, m - k) / choose(n, m);
    if (h == 0.0L) continue;
    for (int y = lo; y <= hi; ++y) {
      p[static_cast<std::size_t>(y - lo)] +=
          h * (1 - a) / (1 + a) * std::pow(a, static_cast<long double>(std::abs(y - k)));
    }
  }
  return p;
}
}  // namespace

TEST(Subsampling, WithoutReplacementAgainstBruteForce) {
  for (int n : {5, 8}) {
    for (int m : {1, 2, 3}) {
      for (double eps0 : {0.3, 1.0, 2.5}) {
        const double bound = acc::amplify_without_replacement(eps0, 0.0, m, n).epsilon;
        double worst = 0.0;
        for (int c = 0; c + 1 <= n; ++c) {
          const auto p = output_law(n, c, m, eps0, -6, m + 6);
          const auto q = output_law(n, c + 1, m, eps0, -6, m + 6);
          for (std::size_t i = 0; i < p.size(); ++i) {
            worst = std::max(worst, static_cast<double>(std::abs(std::log(p[i] / q[i]))));
          }
        }
        EXPECT_LE(worst, bound * (1 + 1e-12)) << n << " " << m << " " << eps0;
        if (m == 1) {
          EXPECT_NEAR(worst, bound, 1e-12 * bound) << n << " " << eps0;
        }
      }
    }
  }
}

TEST(Subsampling, WithoutReplacementTwoStepsBelowOptimalComposition) {
  const int n = 6, m = 2;
  const double eps0 = 1.0;
  const double e1 = acc::amplify_without_replacement(eps0, 0.0, m, n).epsilon;
  acc::pld_accountant pld;
  pld.compose(dpx::core::pure_dp_event{e1}, 2);
  for (int c = 0; c + 1 <= n; ++c) {
    const auto p = output_law(n, c, m, eps0, -12, m + 12);
    const auto q = output_law(n, c + 1, m, eps0, -12, m + 12);
    for (double eps : {0.0, 0.3, 0.8, 1.2}) {
      long double d_pq = 0, d_qp = 0;
      const long double ee = std::exp(static_cast<long double>(eps));
      for (std::size_t i = 0; i < p.size(); ++i) {
        for (std::size_t j = 0; j < p.size(); ++j) {
          d_pq += std::max(0.0L, p[i] * p[j] - ee * q[i] * q[j]);
          d_qp += std::max(0.0L, q[i] * q[j] - ee * p[i] * p[j]);
        }
      }
      const double brute = static_cast<double>(std::max(d_pq, d_qp));
      EXPECT_LE(brute, pld.delta(eps) + 1e-12) << c << " " << eps;
    }
  }
}

TEST(Subsampling, PoissonClosedFormAndBadInput) {
  const auto r = acc::amplify_poisson(1.0, 1e-6, 0.01);
  EXPECT_NEAR(r.epsilon, std::log(1 + 0.01 * (std::exp(1.0) - 1)), 1e-15);
  EXPECT_DOUBLE_EQ(r.delta, 1e-8);
  EXPECT_DOUBLE_EQ(acc::amplify_poisson(0.7, 0.0, 1.0).epsilon, 0.7);
  EXPECT_THROW(acc::amplify_poisson(1.0, 0.0, 0.0), std::invalid_argument);
  EXPECT_THROW(acc::amplify_without_replacement(1.0, 0.0, 5, 4), std::invalid_argument);
}
