// Properties checked (dpx::core::event_log, the release list of solvers):
//  * identical consecutive releases merge into one run; a different event starts a new run;
//  * size() counts releases, operator[] and iteration give the i-th release in order, exactly as
//    the plain list of releases (compared with a std::vector built alongside);
//  * append(e, k) equals k push_back(e); append with k <= 0 does nothing.
//  * merge(e, k) (the accountants' order-free log) adds to the run holding an identical event
//    anywhere: alternating events give one run each, counts add up, size() and operator[]
//    stay consistent with the runs; merge with k <= 0 throws.
#include <gtest/gtest.h>

#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"

namespace dpx::core {
namespace {

TEST(EventLog, RunsMergeAndReadAsTheListOfReleases) {
  event_log log;
  std::vector<privacy_event> plain;
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(log.begin(), log.end());
  auto add = [&](const privacy_event& e, int k) {
    for (int i = 0; i < k; ++i) {
      log.push_back(e);
      plain.push_back(e);
    }
  };
  add(laplace_event{2.0}, 3);
  add(laplace_event{2.5}, 1);
  add(gaussian_event{1.0}, 2);
  add(gaussian_event{1.0}, 2);  // merges with the previous run
  add(discrete_pair_event{{0.5, 0.5}, {0.4, 0.6}}, 1);
  add(laplace_event{2.0}, 1);  // equal to the first run but not consecutive: a new run
  ASSERT_EQ(log.size(), plain.size());
  ASSERT_EQ(log.runs().size(), 5u);
  EXPECT_EQ(log.runs()[0].count, 3);
  EXPECT_EQ(log.runs()[2].count, 4);
  for (std::size_t i = 0; i < plain.size(); ++i) EXPECT_TRUE(log[i] == plain[i]) << i;
  std::size_t i = 0;
  for (const auto& e : log) {
    ASSERT_LT(i, plain.size());
    EXPECT_TRUE(e == plain[i]) << i;
    ++i;
  }
  EXPECT_EQ(i, plain.size());
}

TEST(EventLog, AppendEqualsRepeatedPushBack) {
  event_log a, b;
  a.append(gaussian_event{3.0}, 1000000);
  for (int i = 0; i < 1000; ++i) b.push_back(gaussian_event{3.0});
  b.append(gaussian_event{3.0}, 999000);
  EXPECT_EQ(a.size(), 1000000u);
  EXPECT_EQ(b.size(), a.size());
  EXPECT_EQ(a.runs().size(), 1u);
  EXPECT_EQ(b.runs().size(), 1u);
  a.append(laplace_event{1.0}, 0);
  a.append(laplace_event{1.0}, -3);
  EXPECT_EQ(a.size(), 1000000u);
  EXPECT_EQ(a.runs().size(), 1u);
  EXPECT_TRUE(std::get<gaussian_event>(a[999999]) == gaussian_event{3.0});
}

TEST(EventLog, MergeKeepsOneRunPerDistinctEvent) {
  event_log log;
  for (int i = 0; i < 1000; ++i) {
    log.merge(laplace_event{2.0}, 1);
    log.merge(gaussian_event{1.5}, 2);
  }
  log.merge(discrete_pair_event{{0.5, 0.5}, {0.4, 0.6}}, 3);
  log.merge(laplace_event{2.0}, 5);
  ASSERT_EQ(log.runs().size(), 3u);
  EXPECT_EQ(log.runs()[0].count, 1005);
  EXPECT_EQ(log.runs()[1].count, 2000);
  EXPECT_EQ(log.runs()[2].count, 3);
  EXPECT_EQ(log.size(), 3008u);
  // operator[] follows the runs: first 1005 Laplace, then 2000 Gaussian, then the pair.
  EXPECT_TRUE(log[1004] == privacy_event{laplace_event{2.0}});
  EXPECT_TRUE(log[1005] == privacy_event{gaussian_event{1.5}});
  EXPECT_TRUE(log[3004] == privacy_event{gaussian_event{1.5}});
  EXPECT_TRUE(log[3005] == (privacy_event{discrete_pair_event{{0.5, 0.5}, {0.4, 0.6}}}));
  EXPECT_THROW(log.merge(laplace_event{2.0}, 0), invalid_argument_error);
}

}  // namespace
}  // namespace dpx::core
