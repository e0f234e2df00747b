// The exact rounding of t + a N (detail/exact_normal.hpp) and the rounded Gaussian mechanism:
// deterministic checks with scripted random words against an independent 600-bit evaluation.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <boost/multiprecision/cpp_bin_float.hpp>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/detail/exact_normal.hpp"
#include "dpx/mechanisms/rounded_gaussian.hpp"

namespace {
namespace det = dpx::mechanisms::detail;
using big = boost::multiprecision::number<boost::multiprecision::cpp_bin_float<600>>;

// A URBG that returns scripted 64-bit words, then throws.
struct scripted {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  std::vector<std::uint64_t> words;
  std::size_t used = 0;
  result_type operator()() {
    if (used == words.size()) throw std::out_of_range("scripted generator exhausted");
    return words[used++];
  }
};

// The normal sign (k + x) with x's digits = the given words (drawn through g as needed).
det::exact_normal normal_of(bool negative, std::uint64_t k) {
  det::exact_normal n;
  n.negative = negative;
  n.k = k;
  return n;
}

// floor(t + a s (k + x) + 1/2) with x = 0.w0 w1 ... (the words; later digits 0), in 600 bits.
long long reference(
    double t, double a, bool negative, std::uint64_t k, const std::vector<std::uint64_t>& w) {
  big x = 0, scale = 1;
  for (const auto word : w) {
    scale /= big(18446744073709551616.0);  // 2^64
    x += big(word) * scale;
  }
  const big v = big(t) + (negative ? -1 : 1) * big(a) * (big(k) + x);
  return static_cast<long long>(floor(v + big(0.5)));
}

TEST(ExactRounding, HalfIntegerBoundaryNeedsExactlyTheDigitsThatDecideIt) {
  // t + a x with t = 1/2, a = 1, k = 0: x's first word 0 puts every value in [1/2, 1/2 + 2^-64)
  // -> cell 1, decided by one word. With the sign negative the values are in (1/2 - 2^-64, 1/2],
  // which straddle the boundary: the second word decides (0 ... 01 -> below 1/2 -> cell 0).
  for (const bool negative : {false, true}) {
    scripted g{{0, 1}};
    auto n = normal_of(negative, 0);
    const auto j = det::round_normal(0.5, 1.0, n, g);
    EXPECT_EQ(j, negative ? 0 : 1);
    EXPECT_EQ(g.used, negative ? 2u : 1u) << "digits read";
  }
  // x = 0 on all 1024 digits leaves the negative case undecided: the sampler throws.
  scripted zeros{std::vector<std::uint64_t>(det::lazy_uniform::max_words, 0)};
  auto n = normal_of(true, 0);
  EXPECT_THROW(det::round_normal(0.5, 1.0, n, zeros), std::runtime_error);
}

TEST(ExactRounding, AgreesWith600BitArithmeticNearAndFarFromBoundaries) {
  // Random (t, a, k, digits), half of them placed within 2^-70 of a half-integer so that the
  // fast path must hand over to the exact path, which reads the second or third word.
  dpx::rng::philox4x32 gen(20261202);
  int slow = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const bool negative = (trial % 2) != 0;
    const std::uint64_t k = gen() % 6;
    const bool near = trial % 4 >= 2;
    const int ea = static_cast<int>(gen() % 20) - 4;
    const double a = near ? std::ldexp(1.0, ea) : std::ldexp(1.0 + dpx::rng::uniform01(gen), ea);
    std::vector<std::uint64_t> w{dpx::rng::detail::bits64(gen),
                                 dpx::rng::detail::bits64(gen),
                                 dpx::rng::detail::bits64(gen)};
    double t = std::ldexp(dpx::rng::uniform01(gen) - 0.5, static_cast<int>(gen() % 30));
    if (near) {
      // t = (j + 1/2) - s a (k + x0), x0 = x's first 44 digits (the rest of word 0 cleared):
      // exact in double, so t + s a (k + x) = j + 1/2 + s a (x - x0), within a 2^-44 of the
      // boundary: the fast path cannot decide, and for s = -1 neither can the first word.
      w[0] &= ~std::uint64_t{0xFFFFF};
      const double j = std::floor(std::ldexp(dpx::rng::uniform01(gen) - 0.5, 6));
      const big x0 = big(w[0]) / big(18446744073709551616.0);
      const big target = big(j) + big(0.5) - (negative ? -1 : 1) * big(a) * (big(k) + x0);
      t = static_cast<double>(target);
      ASSERT_EQ(big(t), target) << "trial " << trial;
    }
    scripted g{w};
    auto n = normal_of(negative, k);
    long long got = 0;
    ASSERT_NO_THROW(got = det::round_normal(t, a, n, g)) << "trial " << trial;
    // Three words decide unless the value is within 2^-192 a of a half-integer (never here).
    EXPECT_EQ(got, reference(t, a, negative, k, w))
        << "trial " << trial << " t " << t << " a " << a;
    if (g.used > 1) ++slow;
  }
  EXPECT_GT(slow, 500) << "the exact path must have been exercised";
}

TEST(RoundedGaussian, GridEventsAndValidation) {
  const auto m =
      dpx::mechanisms::rounded_gaussian::from_sigma(3.0, 0.5, dpx::core::neighbouring::add_remove);
  EXPECT_EQ(m.granularity(), std::ldexp(1.0, 1 - 12));  // floor(log2 3) = 1
  EXPECT_EQ(m.event(), dpx::core::privacy_event(dpx::core::gaussian_event{6.0}));
  dpx::rng::philox4x32 g(7);
  for (const double x : {0.0, 1e-300, -2.5, 12345.678, 1e300}) {
    const double y = m.release(x, g);
    EXPECT_EQ(std::fmod(y, m.granularity()), 0.0) << x;
  }
  std::vector<double> v{1.0, std::nan("")};
  EXPECT_THROW(m.privatize(v, g), std::invalid_argument);
  EXPECT_THROW(dpx::mechanisms::rounded_gaussian::from_sigma(-1.0), std::invalid_argument);
  EXPECT_THROW(dpx::mechanisms::rounded_gaussian::from_sigma(1.0, 0.0), std::invalid_argument);
  try {
    (void)dpx::mechanisms::rounded_gaussian::from_sigma(
        1.0, 1.0, dpx::core::neighbouring::replace_one, 31);
    ADD_FAILURE() << "granularity_bits 31 accepted";
  } catch (const dpx::core::invalid_argument_error& e) {
    EXPECT_EQ(e.parameter(), "granularity_bits");
  }
  // The integer-query path is the same release as the double path on the same values.
  const std::vector<std::int64_t> s{3, -7, 1 << 20};
  std::vector<double> a(3), b{3 * 0x1p-10, -7 * 0x1p-10, 0x1p10};
  dpx::rng::philox4x32 g1(9), g2(9);
  m.privatize_grid(s, 0x1p-10, a, g1);
  m.privatize(b, g2);
  EXPECT_EQ(a, b);
}

}  // namespace
