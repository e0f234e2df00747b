// Properties checked (dpx::audit Clopper–Pearson bounds and the rate-to-epsilon formula):
//  * one-sided upper/lower bounds equal the Beta quantiles computed independently with
//    boost::math::beta_distribution (quantile / complement), over a grid of (k, n, alpha);
//  * closed forms: k = 0 gives upper = 1 - alpha^(1/n), k = n gives lower = alpha^(1/n);
//    the extreme cases k = n (upper = 1) and k = 0 (lower = 0);
//  * published table values: the exact two-sided 95% interval for 5/10 is [0.1871, 0.8129]
//    and for 0/10 the one-sided 95% upper bound is 0.2589 (rule of three: 0/1000 -> ~0.002991);
//  * the defining tail equations hold: P(Bin(n, upper) <= k) = alpha (computed by summing the
//    binomial pmf with boost::math::binomial_distribution);
//  * epsilon_from_rates: closed forms, both directions, zero and infinite cases;
//  * bad arguments throw std::invalid_argument.
#include <cmath>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>
#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/binomial.hpp>

#include "dpx/audit/auditor.hpp"

namespace {

using namespace dpx;

TEST(ClopperPearson, MatchesBoostBetaQuantiles) {
  for (std::uint64_t n : {1ull, 2ull, 7ull, 50ull, 1000ull, 500000ull}) {
    for (std::uint64_t k : {0ull, 1ull, 3ull, 25ull, 999ull, 250000ull}) {
      if (k > n) continue;
      for (double alpha : {0.5, 0.05, 0.025, 1e-3, 1e-6}) {
        const double up = audit::clopper_pearson_upper(k, n, alpha);
        const double lo = audit::clopper_pearson_lower(k, n, alpha);
        const double kd = static_cast<double>(k), nd = static_cast<double>(n);
        const double up_ref = k == n
                                  ? 1.0
                                  : boost::math::quantile(boost::math::complement(
                                        boost::math::beta_distribution<>(kd + 1, nd - kd), alpha));
        const double lo_ref =
            k == 0
                ? 0.0
                : boost::math::quantile(boost::math::beta_distribution<>(kd, nd - kd + 1), alpha);
        EXPECT_NEAR(up, up_ref, 1e-12 * std::max(1.0, up_ref)) << k << "/" << n << " " << alpha;
        EXPECT_NEAR(lo, lo_ref, 1e-12 * std::max(1.0, lo_ref)) << k << "/" << n << " " << alpha;
        EXPECT_LE(lo, kd / nd);
        EXPECT_GE(up, kd / nd);
      }
    }
  }
}

TEST(ClopperPearson, ClosedFormsAtTheEnds) {
  for (std::uint64_t n : {1ull, 10ull, 1000ull, 100000ull})
    for (double alpha : {0.05, 0.01, 1e-4}) {
      const double nd = static_cast<double>(n);
      EXPECT_NEAR(audit::clopper_pearson_upper(0, n, alpha), 1 - std::pow(alpha, 1 / nd), 1e-13);
      EXPECT_NEAR(audit::clopper_pearson_lower(n, n, alpha), std::pow(alpha, 1 / nd), 1e-13);
      EXPECT_EQ(audit::clopper_pearson_upper(n, n, alpha), 1.0);
      EXPECT_EQ(audit::clopper_pearson_lower(0, n, alpha), 0.0);
    }
}

TEST(ClopperPearson, PublishedTableValues) {
  // Exact (Clopper–Pearson) 95% interval for 5 successes in 10 trials: 0.1871 - 0.8129.
  const auto i = audit::clopper_pearson_interval(5, 10, 0.05);
  EXPECT_NEAR(i.lower, 0.1871, 5e-5);
  EXPECT_NEAR(i.upper, 0.8129, 5e-5);
  // 0/10, one-sided 95%: 0.2589; 0/1000: 0.002991 ("rule of three" ~ 3/n).
  EXPECT_NEAR(audit::clopper_pearson_upper(0, 10, 0.05), 0.2589, 5e-5);
  EXPECT_NEAR(audit::clopper_pearson_upper(0, 1000, 0.05), 0.002991, 5e-7);
  // 1/20 two-sided 95%: 0.0013 - 0.2487 (standard table).
  const auto j = audit::clopper_pearson_interval(1, 20, 0.05);
  EXPECT_NEAR(j.lower, 0.0013, 5e-5);
  EXPECT_NEAR(j.upper, 0.2487, 5e-5);
}

TEST(ClopperPearson, TailEquationsHold) {
  for (std::uint64_t n : {20ull, 300ull})
    for (std::uint64_t k : {1ull, 7ull, 19ull}) {
      const double alpha = 0.05;
      const double up = audit::clopper_pearson_upper(k, n, alpha);
      const double lo = audit::clopper_pearson_lower(k, n, alpha);
      const double kd = static_cast<double>(k), nd = static_cast<double>(n);
      EXPECT_NEAR(boost::math::cdf(boost::math::binomial_distribution<>(nd, up), kd), alpha, 1e-10);
      EXPECT_NEAR(boost::math::cdf(boost::math::complement(
                      boost::math::binomial_distribution<>(nd, lo), kd - 1)),
                  alpha,
                  1e-10);
    }
}

TEST(ClopperPearson, BadArgumentsThrow) {
  EXPECT_THROW(audit::clopper_pearson_upper(1, 0, 0.05), std::invalid_argument);
  EXPECT_THROW(audit::clopper_pearson_upper(5, 4, 0.05), std::invalid_argument);
  EXPECT_THROW(audit::clopper_pearson_lower(1, 4, 0.0), std::invalid_argument);
  EXPECT_THROW(audit::clopper_pearson_lower(1, 4, 1.0), std::invalid_argument);
  EXPECT_THROW(audit::clopper_pearson_interval(1, 4, std::nan("")), std::invalid_argument);
}

TEST(EpsilonFromRates, ClosedForms) {
  // direction 1: log((1 - delta - fnr) / fpr); direction 2: log((1 - delta - fpr) / fnr).
  EXPECT_NEAR(audit::epsilon_from_rates(0.1, 0.2, 0.0), std::log(0.8 / 0.1), 1e-15);
  EXPECT_NEAR(audit::epsilon_from_rates(0.3, 0.01, 0.0), std::log(0.7 / 0.01), 1e-15);
  EXPECT_NEAR(audit::epsilon_from_rates(0.1, 0.2, 0.05), std::log(0.75 / 0.1), 1e-15);
  EXPECT_EQ(audit::epsilon_from_rates(0.5, 0.5, 0.0), 0.0);  // coin flip: no evidence
  EXPECT_EQ(audit::epsilon_from_rates(0.7, 0.7, 0.0), 0.0);  // worse than chance: floored at 0
  EXPECT_EQ(audit::epsilon_from_rates(0.0, 0.5, 0.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(audit::epsilon_from_rates(0.0, 1.0, 0.0), 0.0);  // numerators 0 and 1 - fpr over 1
  EXPECT_THROW(audit::epsilon_from_rates(-0.1, 0.5, 0.0), std::invalid_argument);
  EXPECT_THROW(audit::epsilon_from_rates(0.1, 0.5, 1.0), std::invalid_argument);
}

}  // namespace
