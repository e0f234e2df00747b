// Properties checked (detail/fast_exact.hpp, the fast exact samplers behind the float-safe
// releases):
//  * the exact slow path decides "U < exp(-num/den)" correctly when U agrees with
//    exp(-num/den) on its first 32, 96 or 160 bits, against binary expansions computed
//    independently (Python decimal, 120 digits) for gamma = 1/2, 7/3, 0.123456789;
//  * the fast comparison on 32 bits is undecided only in a band of at most 3 values around
//    exp(-gamma) 2^32, and every decision it takes agrees with the independent expansion;
//  * the slow path draws extra words only when needed and shares them across comparisons;
//  * the exp kernel (fdlibm e_exp.c) is within 2^-51 relative of libm's exp on [-708, 0]
//    (10^6 points, both ends and a dense sweep of [-40, 0]) — the fast comparisons assume
//    2^-44;
//  * the inversion kernel: every certified word (ok = 1) satisfies
//    exp(-(m+1) s/t) <= U < exp(-m s/t) for the whole 52-bit cell of U, checked in long double
//    with std::exp on long double; uncertified words are rare (< 1e-4 of 10^5 words);
//  * resolve_magnitude finds the exact magnitude from a wrong candidate (off by up to 3);
//  * to_grid rounds half to even exactly as libm nearbyint, clamps beyond ±2^61 grid steps and
//  rejects non-finite values.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/detail/fast_exact.hpp"
#include "dpx/mechanisms/detail/kernels.hpp"
#include "dpx/mechanisms/float_safe.hpp"

namespace {

using namespace dpx::mechanisms::detail;

struct expansion {
  std::uint64_t num, den;
  std::uint32_t head;  // floor(exp(-num/den) 2^32)
  std::uint64_t w1;    // next 64 bits
  std::uint64_t w2;    // next 64 bits
};

// Python: p = (Decimal(-num)/Decimal(den)).exp() at 120 digits; v = int(p * 2**160).
const std::vector<expansion> expansions = {
    {1, 2, 0x9b4597e3u, 0x7cb04ff3d675a355ull, 0x30cdd767e347bf8aull},
    {7, 3, 0x18d327a6u, 0x9b3be5a89091f41bull, 0x3ea83993a6784a0dull},
    {123456789, 1000000000, 0xe244a354u, 0x7e7cb22d1d3f7f5cull, 0x63a20d333564555full},
};

/// Supplies the given words in order (and fails the test if more are requested).
struct scripted {
  std::vector<std::uint64_t> words;
  std::size_t used = 0;
  std::uint64_t operator()() {
    EXPECT_LT(used, words.size()) << "more words requested than scripted";
    return used < words.size() ? words[used++] : 0;
  }
};

bool slow(std::uint32_t head, const expansion& e, scripted& s) {
  std::vector<std::uint64_t> extra;
  return exp_neg_compare_slow(head, extra, std::ref(s), e.num, e.den);
}

TEST(FastExact, SlowPathAgreesWithIndependentExpansion) {
  for (const auto& e : expansions) {
    // Decided on the head alone.
    scripted none;
    EXPECT_TRUE(slow(e.head - 1, e, none));
    EXPECT_FALSE(slow(e.head + 1, e, none));
    EXPECT_EQ(none.used, 0u);
    // Decided on the first extra word.
    scripted below{{e.w1 - 1}}, above{{e.w1 + 1}};
    EXPECT_TRUE(slow(e.head, e, below));
    EXPECT_FALSE(slow(e.head, e, above));
    // Agreeing on 96 bits: decided on the second extra word.
    scripted below2{{e.w1, e.w2 - 1}}, above2{{e.w1, e.w2 + 1}};
    EXPECT_TRUE(slow(e.head, e, below2));
    EXPECT_FALSE(slow(e.head, e, above2));
    EXPECT_EQ(below2.used, 2u);
    EXPECT_EQ(above2.used, 2u);
    // Agreeing on 160 bits: the next word decides (0 -> U below p, all ones -> above, since
    // p's later bits are neither all zero nor all one).
    scripted zeros{{e.w1, e.w2, 0, 0}}, ones{{e.w1, e.w2, ~0ull, ~0ull}};
    EXPECT_TRUE(slow(e.head, e, zeros));
    EXPECT_FALSE(slow(e.head, e, ones));
  }
}

TEST(FastExact, SlowPathReusesExtraWordsOfTheSameUniform) {
  const auto& e = expansions[0];
  std::vector<std::uint64_t> extra{e.w1 - 1};
  scripted none;
  // exp(-1/2) with extra bits already drawn: decided without new words; and the same U is
  // above exp(-1) (a smaller threshold) without new words either.
  EXPECT_TRUE(exp_neg_compare_slow(e.head, extra, std::ref(none), 1, 2));
  EXPECT_FALSE(exp_neg_compare_slow(e.head, extra, std::ref(none), 1, 1));
  EXPECT_EQ(none.used, 0u);
  EXPECT_EQ(extra.size(), 1u);
  EXPECT_TRUE(exp_neg_compare_slow(0, extra, std::ref(none), 0, 5));  // gamma = 0: p = 1
}

TEST(FastExact, FastComparisonBandIsNarrowAndCorrect) {
  for (const auto& e : expansions) {
    const double p = std::exp(-static_cast<double>(e.num) / static_cast<double>(e.den));
    int undecided = 0;
    for (std::int64_t d = -50; d <= 50; ++d) {
      const auto head = static_cast<std::uint32_t>(static_cast<std::int64_t>(e.head) + d);
      const int c = compare_head(head, p);
      if (c < 0) {
        ++undecided;
        EXPECT_LE(std::abs(d), 1) << d;  // the band hugs floor(p 2^32)
        continue;
      }
      // Truth from the expansion: U < p iff head < floor(p 2^32) (head = floor: undecided).
      EXPECT_EQ(c == 1, head < e.head) << d;
    }
    EXPECT_GE(undecided, 1);
    EXPECT_LE(undecided, 3);
  }
}

TEST(FastExact, ExpKernelAccuracy) {
  double worst = 0;
  const auto check = [&](double x) {
    const double ref = std::exp(x);
    const double rel = std::fabs(exp_kernel(x) - ref) / ref;
    worst = std::max(worst, rel);
  };
  for (int i = 0; i <= 1000000; ++i) check(-40.0 * i / 1000000.0);
  for (int i = 0; i <= 10000; ++i) check(-708.0 * i / 10000.0);
  check(-0.0);
  check(-1e-300);
  check(-708.0);
  EXPECT_LE(worst, 0x1p-51) << worst;
}

TEST(FastExact, InversionKernelCertifiesOnlyTrueMagnitudes) {
  // Scales 1.5 (s = 2, t = 3), 1000.5 and 2^20 + 3 (the float-safe regime).
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> laws = {
      {2, 3}, {2, 2001}, {1, (1ull << 20) + 3}};
  auto g = dpx::rng::stream(5, 0, 0, dpx::rng::purpose::noise);
  for (const auto& [s, t] : laws) {
    const auto law = geometric_law::of(s, t);
    const std::size_t n = 100000;
    std::vector<std::uint32_t> words(2 * n);
    g.fill(words);
    std::vector<double> m(n), ok(n);
    geometric_candidates(words, law.gamma, law.q, law.inv_gamma, m, ok);
    std::size_t uncertified = 0;
    const long double gam = static_cast<long double>(s) / static_cast<long double>(t);
    for (std::size_t i = 0; i < n; ++i) {
      if (ok[i] == 0) {
        ++uncertified;
        continue;
      }
      const std::uint64_t w = words[2 * i] | (static_cast<std::uint64_t>(words[2 * i + 1]) << 32);
      const long double lo = std::ldexp(static_cast<long double>(w >> 12), -52);
      const long double hi = std::ldexp(static_cast<long double>((w >> 12) + 1), -52);
      ASSERT_LE(hi, std::exp(-m[i] * gam)) << i;        // U < q^m on the whole cell
      ASSERT_GE(lo, std::exp(-(m[i] + 1) * gam)) << i;  // U >= q^(m+1)
    }
    EXPECT_LT(uncertified, n / 10000) << s << "/" << t;
  }
}

TEST(FastExact, ResolveMagnitudeFromWrongCandidates) {
  const auto law = geometric_law::of(2, 2001);
  auto g = dpx::rng::stream(6, 0, 0, dpx::rng::purpose::noise);
  for (int rep = 0; rep < 20; ++rep) {
    std::uint32_t words[2];
    g.fill(std::span<std::uint32_t>(words, 2));
    double m = 0, ok = 0;
    geometric_candidates(std::span<const std::uint32_t>(words, 2),
                         law.gamma,
                         law.q,
                         law.inv_gamma,
                         std::span<double>(&m, 1),
                         std::span<double>(&ok, 1));
    if (ok == 0) continue;
    const std::uint64_t w = words[0] | (static_cast<std::uint64_t>(words[1]) << 32);
    for (const double off : {-3.0, -1.0, 1.0, 3.0}) {
      if (m + off < 0) continue;
      EXPECT_EQ(resolve_magnitude(g, law, w, m + off), static_cast<std::uint64_t>(m));
    }
  }
}

}  // namespace

namespace {
TEST(FastExact, ToGridRoundsHalfToEvenLikeNearbyint) {
  // to_grid's add-and-subtract rounding against libm's nearbyint (round half to even) on
  // ties, values near 2^51 and 2^52, negatives, and random magnitudes; lambda = 2^-20.
  const double lambda = 0x1p-20;
  std::vector<double> r = {0.5,
                           1.5,
                           2.5,
                           -0.5,
                           -1.5,
                           -2.5,
                           0.49,
                           0.51,
                           1e6 + 0.5,
                           0x1p51 - 0.5,
                           0x1p51,
                           0x1p51 + 0.5,
                           0x1p52 - 0.5,
                           0x1p52,
                           0x1p52 + 1,
                           -0x1p51 - 0.5,
                           -0x1p52 + 0.5,
                           0};
  auto g = dpx::rng::stream(9, 0, 0, dpx::rng::purpose::noise);
  for (int i = 0; i < 10000; ++i) {
    const double u = dpx::rng::uniform01(g);
    r.push_back((u - 0.5) * std::ldexp(1.0, static_cast<int>(u * 61)));
  }
  for (const double v : r) {
    EXPECT_EQ(to_grid("t", v * lambda, lambda), static_cast<std::int64_t>(std::nearbyint(v))) << v;
  }
  // Beyond ±2^61 grid steps the value is clamped (1-Lipschitz; never a data-triggered error).
  const std::int64_t cap = std::int64_t{1} << 61;
  EXPECT_EQ(to_grid("t", 0x1p62 * lambda, lambda), cap);
  EXPECT_EQ(to_grid("t", -0x1p70 * lambda, lambda), -cap);
  EXPECT_EQ(to_grid("t", 1e300, lambda), cap);
  EXPECT_EQ(to_grid("t", (0x1p61 - 1024) * lambda, lambda), cap - 1024);
  EXPECT_THROW((void)to_grid("t", HUGE_VAL, lambda), std::invalid_argument);
  EXPECT_THROW((void)to_grid("t", std::nan(""), lambda), std::invalid_argument);
}
}  // namespace
