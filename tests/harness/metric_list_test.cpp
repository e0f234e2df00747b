// harness::metric_list: a driver's metric columns from one whitespace-separated list. Checked
// against hand-written lists (the expected vectors below), not against the function's output.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/harness/driver.hpp"

using dpx::harness::metric_list;

TEST(MetricList, SplitsOnAnyWhitespaceInOrder) {
  EXPECT_EQ(metric_list("sq_err oracle_mse tau"),
            (std::vector<std::string>{"sq_err", "oracle_mse", "tau"}));
  EXPECT_EQ(metric_list("  a\tb\n  nT_sq_err  "),
            (std::vector<std::string>{"a", "b", "nT_sq_err"}));
  // Adjacent literals (as clang-format splits a long list) join into one list.
  EXPECT_EQ(metric_list("x y "
                        "z"),
            (std::vector<std::string>{"x", "y", "z"}));
}

TEST(MetricList, RejectsEmptyRepeatedAndMalformedNamesNamingTheParameter) {
  for (const char* bad : {"", "   ", "a b a", "sq-err", "a,b"}) {
    try {
      (void)metric_list(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const dpx::core::invalid_argument_error& e) {
      EXPECT_EQ(e.parameter(), "metric_names") << bad;
    }
  }
}
