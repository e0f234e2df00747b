// Properties checked (dpx::core validation): every check accepts valid values, rejects invalid
// ones (NaN, infinities, bounds) with invalid_argument_error (a std::invalid_argument) whose
// message names the function, the parameter and the value.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/hash.hpp"

namespace dpx::core {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Check, PositiveRejectsNonPositiveAndNonFinite) {
  EXPECT_NO_THROW(check_positive("f", "epsilon", 0.5));
  for (double x : {0.0, -1.0, nan, inf, -inf})
    EXPECT_THROW(check_positive("f", "epsilon", x), invalid_argument_error) << x;
  EXPECT_EQ(message_of([] { check_positive("laplace::calibrate", "epsilon", -1.0); }),
            "laplace::calibrate: epsilon = -1 is invalid (must be finite and > 0)");
}

TEST(Check, OpenIntervalForDelta) {
  EXPECT_NO_THROW(check_open_interval("f", "delta", 1e-6, 0, 1));
  for (double x : {0.0, 1.0, -0.1, 1.5, nan})
    EXPECT_THROW(check_open_interval("f", "delta", x, 0, 1), std::invalid_argument) << x;
  EXPECT_EQ(message_of([] { check_open_interval("g", "delta", 1.0, 0, 1); }),
            "g: delta = 1 is invalid (must lie in (0, 1))");
}

TEST(Check, ClosedAndHalfOpenIntervals) {
  EXPECT_NO_THROW(check_closed_interval("f", "p", 0.0, 0, 1));
  EXPECT_NO_THROW(check_closed_interval("f", "p", 1.0, 0, 1));
  EXPECT_THROW(check_closed_interval("f", "p", nan, 0, 1), invalid_argument_error);
  EXPECT_NO_THROW(check_half_open_interval("f", "q", 1.0, 0, 1));
  EXPECT_THROW(check_half_open_interval("f", "q", 0.0, 0, 1), invalid_argument_error);
}

TEST(Check, SpansNameTheBadElement) {
  std::vector<double> ok{1, 2, 3}, bad{1, nan, 3};
  EXPECT_NO_THROW(check_finite_span("f", "data", ok));
  try {
    check_finite_span("mean", "data", bad);
    FAIL();
  } catch (const invalid_argument_error& e) {
    EXPECT_EQ(e.parameter(), "data[1]");
    EXPECT_EQ(e.value(), "nan");
    EXPECT_EQ(e.function(), "mean");
  }
  EXPECT_THROW(check_nonempty_finite_span("f", "data", std::vector<double>{}),
               invalid_argument_error);
}

TEST(Check, SizesAndCounts) {
  EXPECT_NO_THROW(check_size("f", "x", 3, 3));
  EXPECT_EQ(message_of([] { check_size("f", "x", 2, 3); }),
            "f: x.size() = 2 is invalid (must equal 3)");
  EXPECT_THROW(check_at_least("f", "steps", 0, 1), invalid_argument_error);
  EXPECT_NO_THROW(check_at_least("f", "steps", 1, 1));
}

TEST(Hash, StableKnownValues) {
  // FNV-1a 64 reference values (Fowler/Noll/Vo test vectors).
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
  EXPECT_EQ(hex16(0x0123456789abcdefull), "0123456789abcdef");
  EXPECT_NE(stable_hash("n=10"), stable_hash("n=100"));
}

TEST(Format, ShortestRoundTrip) {
  EXPECT_EQ(format_double(0.1), "0.1");
  EXPECT_EQ(format_double(1e-6), "1e-06");
  EXPECT_EQ(format_double(nan), "nan");
  EXPECT_EQ(format_double(-inf), "-inf");
}

}  // namespace
}  // namespace dpx::core
