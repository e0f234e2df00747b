// Properties checked (dpx::solvers::support_metrics):
//  * counts and precision / recall / F1 on hand-computed cases (exact, partial, disjoint);
//  * conventions: empty selection -> precision 1, F1 0 when nothing true is found; empty truth ->
//    recall 1;
//  * the threshold treats |x_j| <= threshold as zero; true-support order does not matter;
//  * against a brute-force set computation on random estimates;
//  * bad input (non-finite estimate, negative threshold, out-of-range or duplicate index) throws
//    invalid_argument naming the parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpx/core/rng.hpp"
#include "dpx/solvers/metrics.hpp"

namespace {

using dpx::solvers::support_metrics;

TEST(SupportMetrics, HandComputedCases) {
  const std::vector<double> x = {0.0, 1.5, 0.0, -2.0, 0.3, 0.0};
  const std::vector<std::size_t> exact = {1, 3, 4};
  auto r = support_metrics(x, exact);
  EXPECT_EQ(r.selected, 3u);
  EXPECT_EQ(r.true_positives, 3u);
  EXPECT_DOUBLE_EQ(r.precision, 1.0);
  EXPECT_DOUBLE_EQ(r.recall, 1.0);
  EXPECT_DOUBLE_EQ(r.f1, 1.0);

  const std::vector<std::size_t> partial = {0, 1, 3};  // TP {1,3}, FP {4}, FN {0}
  r = support_metrics(x, partial);
  EXPECT_EQ(r.true_positives, 2u);
  EXPECT_EQ(r.false_positives, 1u);
  EXPECT_EQ(r.false_negatives, 1u);
  EXPECT_DOUBLE_EQ(r.precision, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(r.recall, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(r.f1, 2.0 / 3.0);

  const std::vector<std::size_t> disjoint = {0, 2, 5};
  r = support_metrics(x, disjoint);
  EXPECT_DOUBLE_EQ(r.precision, 0.0);
  EXPECT_DOUBLE_EQ(r.recall, 0.0);
  EXPECT_DOUBLE_EQ(r.f1, 0.0);
}

TEST(SupportMetrics, Conventions) {
  const std::vector<double> zero(5, 0.0);
  const std::vector<std::size_t> s = {1, 2};
  auto r = support_metrics(zero, s);
  EXPECT_EQ(r.selected, 0u);
  EXPECT_DOUBLE_EQ(r.precision, 1.0);
  EXPECT_DOUBLE_EQ(r.recall, 0.0);
  EXPECT_DOUBLE_EQ(r.f1, 0.0);
  const std::vector<double> x = {0.0, 1.0, 0.0};
  r = support_metrics(x, std::vector<std::size_t>{});
  EXPECT_DOUBLE_EQ(r.precision, 0.0);
  EXPECT_DOUBLE_EQ(r.recall, 1.0);
  EXPECT_DOUBLE_EQ(r.f1, 0.0);
}

TEST(SupportMetrics, ThresholdAndOrder) {
  const std::vector<double> x = {0.05, -0.2, 0.0, 0.1};
  const std::vector<std::size_t> a = {3, 1}, b = {1, 3};
  auto r = support_metrics(x, a, 0.1);  // selected {1} only: |0.1| <= 0.1 counts as zero
  EXPECT_EQ(r.selected, 1u);
  EXPECT_DOUBLE_EQ(r.recall, 0.5);
  const auto r2 = support_metrics(x, b, 0.1);
  EXPECT_EQ(r.true_positives, r2.true_positives);
  EXPECT_DOUBLE_EQ(r.f1, r2.f1);
}

TEST(SupportMetrics, MatchesBruteForceSets) {
  auto g = dpx::rng::stream(7, 1, 0, dpx::rng::purpose::aux);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t d = 1 + dpx::rng::uniform_below(g, 30);
    std::vector<double> x(d);
    std::set<std::size_t> sel, truth;
    for (std::size_t j = 0; j < d; ++j) {
      x[j] = dpx::rng::uniform01(g) < 0.5 ? 0.0 : dpx::rng::uniform01(g) - 0.5;
      if (x[j] != 0.0) sel.insert(j);
      if (dpx::rng::uniform01(g) < 0.3) truth.insert(j);
    }
    const std::vector<std::size_t> t(truth.begin(), truth.end());
    const auto r = support_metrics(x, t);
    std::size_t tp = 0;
    for (std::size_t j : sel) tp += truth.count(j);
    ASSERT_EQ(r.selected, sel.size());
    ASSERT_EQ(r.true_positives, tp);
    ASSERT_EQ(r.false_positives, sel.size() - tp);
    ASSERT_EQ(r.false_negatives, truth.size() - tp);
    const double p = sel.empty() ? 1.0 : double(tp) / double(sel.size());
    const double rc = truth.empty() ? 1.0 : double(tp) / double(truth.size());
    ASSERT_DOUBLE_EQ(r.precision, p);
    ASSERT_DOUBLE_EQ(r.recall, rc);
    ASSERT_DOUBLE_EQ(r.f1, p + rc == 0 ? 0.0 : 2 * p * rc / (p + rc));
  }
}

TEST(SupportMetrics, BadInputThrows) {
  const std::vector<double> x = {1.0, 0.0};
  const std::vector<std::size_t> ok = {0};
  const std::vector<double> bad = {1.0, std::nan("")};
  EXPECT_THROW(support_metrics(bad, ok), std::invalid_argument);
  EXPECT_THROW(support_metrics(x, ok, -1.0), std::invalid_argument);
  EXPECT_THROW(support_metrics(x, std::vector<std::size_t>{2}), std::invalid_argument);
  EXPECT_THROW(support_metrics(x, std::vector<std::size_t>{0, 0}), std::invalid_argument);
  try {
    support_metrics(x, std::vector<std::size_t>{5});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("true_support"), std::string::npos);
  }
}

}  // namespace
