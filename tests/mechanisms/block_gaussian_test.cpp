// Properties checked (the block sampler of detail/fast_exact.hpp: the exact discrete Gaussian
// behind float_safe_gaussian for sigma >= 32), by exact or independent computation:
//  * the table: block width c = the largest power of two <= sigma / 8 (64 c^2 b <= a <
//    256 c^2 b), the halving condition (2K+1) c^2 / (2 sigma^2) >= ln 2, every weight an upper
//    bound W_k >= lambda exp(-(k c)^2 / (2 sigma^2)) — checked against exp in 50-digit
//    Boost.Multiprecision, so the rounding direction is certain — and tight (W_k <= lambda
//    f(k c) (1 + 2^-28) + 1), W_0 >= lambda, and sum_{k<K} W_k + 2 W_K = 2^40 exactly; for the
//    sigma regimes of the float-safe grids (2^12 .. 2^23 grid units) and the boundary
//    sigma = 32;
//  * the integer alias table reproduces every weight exactly (integer reconstruction of
//    P(bin k) 2^40 from thresholds and aliases);
//  * the exact slow path decides U < exp(-1/2) lambda 2^e / w correctly when U agrees with it
//    on its first 160 bits, for prefixes of 14, 46 and 53 bits, against the independent
//    160-bit expansion of exp(-1/2) (Python decimal) scaled exactly by 3/4 in integers;
//  * every acceptance decision of block_accept (stage 1, 2 and, with scripted words, the slow
//    path) is consistent with the bits of U it consumed, against A(y) computed independently in
//    200-bit arithmetic, for heads at and around the cell of A;
//  * invalid parameters of the explicit constructor (tail halving condition, block width,
//    sigma < 32) throw std::invalid_argument naming the parameter;
//  * float_safe_gaussian fill / sample / privatize give the same bits in every kernel
//    instruction-set variant this CPU supports (baseline, AVX2, AVX-512F).
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/detail/fast_exact.hpp"
#include "dpx/mechanisms/detail/kernels.hpp"
#include "dpx/mechanisms/discrete.hpp"
#include "dpx/mechanisms/float_safe.hpp"

namespace {

using namespace dpx;
using namespace dpx::mechanisms;
namespace bmp = boost::multiprecision;
using detail::block_gaussian_law;
using detail::u128;

double exp_kernel_neg(double gamma) {
  double x = gamma;
  detail::exp_neg_kernel(std::span<double>(&x, 1));  // the kernel the sampler uses
  return x;
}

struct variance {
  std::uint64_t a, b;
  const char* what;
};

variance of(const discrete_gaussian& dg, const char* what) {
  return {dg.variance_numerator(), dg.variance_denominator(), what};
}

std::vector<variance> regimes() {
  return {
      of(discrete_gaussian::from_sigma(32.0), "sigma 32 (boundary, c = 4)"),
      of(discrete_gaussian::from_sigma(63.9), "sigma 63.9"),
      of(float_safe_gaussian::from_sigma(1.0).noise_for_dimension(1), "float-safe sigma 1"),
      of(float_safe_gaussian::from_sigma(1.0).noise_for_dimension(1000), "float-safe d 1000"),
      of(float_safe_gaussian::from_sigma(3.0, 1e-3).noise_for_dimension(1), "sigma/Delta 3000"),
      of(float_safe_gaussian::from_sigma(1.0, 0x1p-20).noise_for_dimension(1), "sigma/Delta 2^20"),
      of(float_safe_gaussian::from_sigma(1.0, 1.0, core::neighbouring::replace_one, 20)
             .noise_for_dimension(1),
         "granularity 20"),
      of(discrete_gaussian::from_sigma(8.3e6), "sigma 8.3e6"),
  };
}

TEST(BlockGaussian, TableWeightsAreProvenUpperBounds) {
  using F = bmp::cpp_bin_float_50;
  for (const auto& v : regimes()) {
    SCOPED_TRACE(v.what);
    ASSERT_TRUE(block_gaussian_law::usable(v.a, v.b));
    const auto law = block_gaussian_law::of(v.a, v.b);
    const u128 c2b = static_cast<u128>(law.c) * law.c * v.b;
    EXPECT_EQ(law.c, std::uint64_t{1} << law.log2c);
    EXPECT_LE(64 * c2b, v.a);   // c <= sigma / 8
    EXPECT_GT(256 * c2b, v.a);  // 2c > sigma / 8
    EXPECT_EQ(law.K, 255u);
    EXPECT_EQ(law.head_bits, 23 - law.log2c);
    // Halving condition against ln 2 itself (50 digits).
    const F sigma2 = F(v.a) / F(v.b);
    const F cc = F(law.c);
    EXPECT_GE(F(2 * law.K + 1) * cc * cc / (2 * sigma2), log(F(2)));
    std::uint64_t sum = 0;
    for (std::uint32_t k = 0; k <= law.K; ++k) {
      const F kc = F(static_cast<std::uint64_t>(k) * law.c);
      const F bound = F(law.lambda) * exp(-kc * kc / (2 * sigma2));  // lambda f(k c)
      const F w = F(law.weight[k]);
      EXPECT_GE(w, bound) << k;  // upper bound (rounding direction certain at 50 digits)
      if (k > 0) {
        EXPECT_LE(w, bound * (1 + ldexp(F(1), -28)) + 1) << k;  // and tight
      }
      sum += k < law.K ? law.weight[k] : 2 * law.weight[k];
      EXPECT_EQ(law.ratio[k], static_cast<double>(law.lambda) / static_cast<double>(law.weight[k]));
    }
    EXPECT_GE(law.weight[0], law.lambda);
    EXPECT_LE(law.weight[0], law.lambda + law.lambda / (1u << 20));  // little slack in block 0
    EXPECT_EQ(sum, block_gaussian_law::total);
    for (std::size_t k = law.K + 1; k < block_gaussian_law::bins; ++k) EXPECT_EQ(law.weight[k], 0u);
  }
}

TEST(BlockGaussian, AliasTableReproducesTheWeightsExactly) {
  for (const auto& v : regimes()) {
    SCOPED_TRACE(v.what);
    const auto law = block_gaussian_law::of(v.a, v.b);
    std::vector<std::uint64_t> mass(block_gaussian_law::bins, 0);
    for (std::size_t i = 0; i < block_gaussian_law::bins; ++i) {
      ASSERT_LE(law.threshold[i], block_gaussian_law::capacity);
      ASSERT_LT(law.alias[i], block_gaussian_law::bins);
      mass[i] += law.threshold[i];
      mass[law.alias[i]] += block_gaussian_law::capacity - law.threshold[i];
    }
    for (std::uint32_t k = 0; k < block_gaussian_law::bins; ++k) {
      const std::uint64_t want = k < law.K ? law.weight[k] : k == law.K ? 2 * law.weight[k] : 0;
      EXPECT_EQ(mass[k], want) << k;
    }
  }
}

// 160-bit expansion of exp(-1/2) (Python: int(Decimal(-0.5).exp() * 2**160), 120 digits), as in
// fast_exact_test.cpp.
bmp::cpp_int exp_half_160() {
  bmp::cpp_int v = 0x9b4597e3u;
  v <<= 64;
  v += 0x7cb04ff3d675a355ull;
  v <<= 64;
  v += 0x30cdd767e347bf8aull;
  return v;
}

/// U's bits: the 160-bit value u followed by 256 bits of filler; hands out the first
/// prefix_bits as the prefix and the rest 64 bits at a time.
struct bit_source {
  bmp::cpp_int bits;  // 416 bits
  int total = 416;
  int pos = 0;
  std::uint64_t take(int n) {
    const bmp::cpp_int mask = (bmp::cpp_int(1) << n) - 1;
    pos += n;
    EXPECT_LE(pos, total) << "more bits requested than scripted";
    return static_cast<std::uint64_t>((bits >> (total - pos)) & mask);
  }
};

bool slow_decides(const bmp::cpp_int& u160,
                  bool filler_ones,
                  int prefix_bits,
                  std::uint64_t lambda,
                  std::uint64_t w,
                  int e) {
  bit_source src;
  src.bits = u160 << 256;
  if (filler_ones) src.bits += (bmp::cpp_int(1) << 256) - 1;
  const std::uint64_t prefix = src.take(prefix_bits);
  // y = 1, a = 1, b = 1: gamma = 1/2.
  return detail::block_accept_slow(
      prefix, prefix_bits, [&src] { return src.take(64); }, 1, 1, 1, lambda, w, e);
}

TEST(BlockGaussian, SlowPathAgreesWithIndependentExpansion) {
  const bmp::cpp_int v = exp_half_160();  // floor(exp(-1/2) 2^160); its fraction is not tiny
  // 3/4 exp(-1/2) 2^160 lies in [3v/4, 3v/4 + 3/4), so with v3 = floor(3v/4) in
  // [v3, v3 + 1.5): U in cell v3 - 1 is below it, U in cell v3 + 2 above.
  const bmp::cpp_int v3 = (3 * v) / 4;
  for (const int pb : {14, 46, 53}) {
    SCOPED_TRACE(pb);
    for (const bool ones : {false, true}) {
      // p = exp(-1/2): U in cell v - 1 is below p, cell v + 1 above.
      EXPECT_TRUE(slow_decides(v - 1, ones, pb, 1, 1, 0));
      EXPECT_FALSE(slow_decides(v + 1, ones, pb, 1, 1, 0));
      // p = 3/4 exp(-1/2) as lambda 2^e / w = 3/4 and = 3 2^5 / 128.
      EXPECT_TRUE(slow_decides(v3 - 1, ones, pb, 3, 4, 0));
      EXPECT_FALSE(slow_decides(v3 + 2, ones, pb, 3, 4, 0));
      EXPECT_TRUE(slow_decides(v3 - 1, ones, pb, 3, 128, 5));
      EXPECT_FALSE(slow_decides(v3 + 2, ones, pb, 3, 128, 5));
      // Cell v itself: decided by the filler bits only beyond bit 160 (p's bits 161.. are
      // neither all zeros nor all ones): zeros -> below, ones -> above.
      EXPECT_EQ(slow_decides(v, ones, pb, 1, 1, 0), !ones);
    }
  }
}

/// A 64-bit engine that records its outputs (U's later bits in block_accept); the first
/// output can be scripted.
struct recording_engine {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  std::mt19937_64 e;
  std::vector<std::uint64_t> used;
  bool scripted = false;
  std::uint64_t first = 0;
  result_type operator()() {
    const std::uint64_t x = scripted && used.empty() ? first : e();
    used.push_back(x);
    return x;
  }
};

TEST(BlockGaussian, EveryAcceptanceDecisionIsConsistentWithHighPrecision) {
  // For candidates of the default float-safe law, U's head at and around the cell of A(y) =
  // exp(-y^2 b / (2a)) lambda / W_k (so stages 2 and 3 run), and a scripted stage-2 word in
  // the cell of A at h + 32 bits (so stage 3, the slow path, runs): block_accept's answer must
  // agree with the cell [V, V + 1) 2^-B of the bits it consumed, against A computed
  // independently in 200-bit arithmetic.
  using F = bmp::number<bmp::cpp_bin_float<200, bmp::digit_base_2>, bmp::et_off>;
  const auto dg = float_safe_gaussian::from_sigma(1.0).noise_for_dimension(1);
  const auto law = block_gaussian_law::of(dg.variance_numerator(), dg.variance_denominator());
  const int h = law.head_bits;
  std::mt19937_64 pick(2024);
  int stage3 = 0;
  for (int rep = 0; rep < 300; ++rep) {
    const auto k = static_cast<std::uint32_t>(pick() % 64);  // blocks out to ~8 sigma
    const std::uint64_t m = k * law.c + pick() % law.c;
    const std::uint64_t ay = m + (pick() & 1);
    const F gamma = F(ay) * F(ay) * F(law.b) / (2 * F(law.a));
    const F a_true = exp(-gamma) * F(law.lambda) / F(law.weight[k]);
    ASSERT_LE(a_true, 1);  // the envelope: an acceptance probability
    // p_approx exactly as fill_discrete_gaussian_block computes it.
    const auto d = static_cast<double>(ay);
    const double p_approx = exp_kernel_neg(d * d * law.half_inv_var) * law.ratio[k];
    const auto cell = static_cast<std::int64_t>(floor(ldexp(a_true, h)).convert_to<double>());
    for (std::int64_t dh = -2; dh <= 3; ++dh) {
      const std::int64_t head = cell + (dh == 3 ? 0 : dh);
      if (head < 0 || head >= (std::int64_t{1} << h)) continue;
      recording_engine g;
      g.e.seed(pick());
      if (dh == 3) {  // stage-2 bits in A's cell at h + 32 bits: stage 3 must run
        const auto c2 = floor(ldexp(a_true, h + 32)).convert_to<bmp::cpp_int>();
        g.scripted = true;
        g.first = (static_cast<std::uint64_t>(c2 & 0xFFFFFFFFu) << 32) | (pick() >> 32);
      }
      const bool acc = detail::block_accept(
          g, law, static_cast<std::uint32_t>(head), p_approx, ay, law.weight[k], 0);
      bmp::cpp_int v = head;
      int bits = h;
      for (std::size_t i = 0; i < g.used.size(); ++i) {
        v = i == 0 ? (v << 32) + (g.used[0] >> 32) : (v << 64) + g.used[i];
        bits += i == 0 ? 32 : 64;
      }
      if (g.used.size() > 1) ++stage3;
      const F scaled = ldexp(a_true, bits);
      if (acc) {
        EXPECT_LE(F(v + 1), scaled) << rep << " " << dh;  // the whole cell is below A
      } else {
        EXPECT_GE(F(v), scaled) << rep << " " << dh;  // the whole cell is at or above A
      }
    }
  }
  EXPECT_GE(stage3, 250);  // the scripted words really reach the slow path
}

template <class F>
void expect_invalid_naming(F f, const std::string& parameter) {
  try {
    f();
    ADD_FAILURE() << "no exception for " << parameter;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(parameter), std::string::npos) << e.what();
  }
}

TEST(BlockGaussian, ExplicitParametersAreValidated) {
  // sigma = 110 (a = 12100, b = 1): c = 32, K = 8 satisfies the halving condition
  // (10 * 17 * 1024 = 174080 >= 14 * 12100 = 169400); c = 16 does not.
  EXPECT_NO_THROW((void)block_gaussian_law::of(12100, 1, 5, 8));
  expect_invalid_naming([] { (void)block_gaussian_law::of(12100, 1, 4, 8); }, "K");
  expect_invalid_naming([] { (void)block_gaussian_law::of(12100, 1, 5, 7); }, "K");
  expect_invalid_naming([] { (void)block_gaussian_law::of(12100, 1, 1, 8); }, "log2c");
  expect_invalid_naming([] { (void)block_gaussian_law::of(12100, 1, 22, 8); }, "log2c");
  expect_invalid_naming([] { (void)block_gaussian_law::of(12100, 1, 12, 8); }, "log2c");  // gamma
  expect_invalid_naming([] { (void)block_gaussian_law::of(1023, 1, 2, 255); }, "a / b");
  EXPECT_FALSE(block_gaussian_law::usable(1023, 1));
  EXPECT_TRUE(block_gaussian_law::usable(1024, 1));
}

TEST(BlockGaussian, FloatSafeOutputIdenticalInEveryKernelVariant) {
  const auto best = detail::best_kernel_isa();
  const auto fs = float_safe_gaussian::from_sigma(1.0);
  std::vector<double> ref_fill, ref_scalar, ref_priv;
  for (int i = 0; i <= static_cast<int>(best); ++i) {
    detail::set_kernel_isa(static_cast<detail::kernel_isa>(i));
    SCOPED_TRACE("kernel_isa " + std::to_string(i));
    auto g = rng::stream(77, 0, 0, rng::purpose::noise);
    std::vector<double> fill(5001), scalar(300), priv(777, 0.25);
    fs.fill(fill, g);
    for (double& x : scalar) x = fs.sample(g);
    fs.privatize(priv, g);
    if (i == 0) {
      ref_fill = fill;
      ref_scalar = scalar;
      ref_priv = priv;
    } else {
      EXPECT_EQ(fill, ref_fill);
      EXPECT_EQ(scalar, ref_scalar);
      EXPECT_EQ(priv, ref_priv);
    }
  }
  detail::set_kernel_isa(best);
}

}  // namespace
