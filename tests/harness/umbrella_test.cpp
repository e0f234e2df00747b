// dpx/harness/harness.hpp compiles on its own and exposes the harness API.
#include <gtest/gtest.h>

#include "dpx/harness/harness.hpp"

TEST(HarnessUmbrella, ExposesTheHarness) {
  EXPECT_EQ(dpx::harness::format_number(0.5), "0.5");
  EXPECT_FALSE(dpx::harness::run_options{}.quick);
}
