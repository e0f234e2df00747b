// Properties checked (research-grade noise kernels, detail/kernels.hpp):
//  * log_kernel is within 1 ulp of std::log on 10^6 random normal inputs and on edge values
//    (powers of two, values next to 1, the smallest uniform 2^-54).
//  * sincos_2pi_kernel is within 2^-52 (absolute) of sin/cos(2 pi u) computed in long double.
//  * Bit identity: laplace::fill / privatize (SIMD clone chosen at load time) equal repeated
//    scalar sample() / release() calls, for philox4x32 (bulk fill path) and for a generic URBG
//    (std::mt19937_64, scalar uniform path), at sizes that exercise chunk and tail handling.
//  * The Gaussian vector kernel equals the scalar Box–Muller pair function element by element.
//  * Every instruction-set variant of the vector loops that this CPU supports (baseline, AVX2,
//    AVX-512F; forced in turn with set_kernel_isa) passes the bit-identity checks above, and
//    exp_neg_kernel / geometric_candidates give identical bits in every variant (exp_neg_kernel
//    also equal to the scalar exp_kernel).
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/laplace.hpp"

namespace {

using namespace dpx;
namespace detail = dpx::mechanisms::detail;

// Runs f once per kernel variant the CPU supports, then restores the best one.
template <class F>
void for_each_isa(F f) {
  const auto best = detail::best_kernel_isa();
  for (int i = 0; i <= static_cast<int>(best); ++i) {
    detail::set_kernel_isa(static_cast<detail::kernel_isa>(i));
    ASSERT_EQ(detail::active_kernel_isa(), static_cast<detail::kernel_isa>(i));
    SCOPED_TRACE("kernel_isa " + std::to_string(i));
    f();
  }
  detail::set_kernel_isa(best);
}

double ulp_distance(double a, double b) {
  const double ulp =
      std::nextafter(std::fabs(b), std::numeric_limits<double>::infinity()) - std::fabs(b);
  return std::fabs(a - b) / ulp;
}

TEST(Kernels, LogWithinOneUlp) {
  std::mt19937_64 e(12345);
  double worst = 0.0;
  for (int i = 0; i < 1000000; ++i) {
    const double m = 1.0 + static_cast<double>(e() >> 11) * 0x1p-53;
    const double x = std::ldexp(m, static_cast<int>(e() % 120) - 100);
    worst = std::max(worst, ulp_distance(detail::log_kernel(x), std::log(x)));
  }
  EXPECT_LE(worst, 1.0);
  for (double x : {1.0,
                   2.0,
                   0.5,
                   0x1p-54,
                   0x1p-53,
                   1.0 - 0x1p-53,
                   1.0 + 0x1p-52,
                   0.75,
                   1.5,
                   std::sqrt(2.0),
                   1e-300,
                   1e300}) {
    EXPECT_LE(ulp_distance(detail::log_kernel(x), std::log(x)), 1.0) << x;
  }
  EXPECT_EQ(detail::log_kernel(1.0), 0.0);
}

TEST(Kernels, SinCosTwoPiAccurate) {
  std::mt19937_64 e(777);
  const long double two_pi = 6.283185307179586476925286766559005768L;
  double worst = 0.0;
  for (int i = 0; i < 1000000; ++i) {
    const double u = static_cast<double>(e() >> 11) * 0x1p-53;
    double s, c;
    detail::sincos_2pi_kernel(u, s, c);
    const long double a = two_pi * static_cast<long double>(u);
    worst = std::max({worst,
                      std::fabs(s - static_cast<double>(std::sin(a))),
                      std::fabs(c - static_cast<double>(std::cos(a)))});
  }
  EXPECT_LE(worst, 0x1p-52);
}

template <class G>
void check_laplace_bit_identity(G g1, G g2, std::size_t n) {
  const auto lap = mechanisms::laplace::calibrate(0.7, 2.0);
  std::vector<double> vec(n);
  lap.fill(vec, g1);
  for (std::size_t i = 0; i < n; ++i) {
    const double s = lap.sample(g2);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(vec[i]), std::bit_cast<std::uint64_t>(s))
        << "n=" << n << " i=" << i;
  }
  // privatize == release in sequence.
  std::vector<double> data(n), expect(n);
  for (std::size_t i = 0; i < n; ++i) data[i] = expect[i] = 0.25 * static_cast<double>(i) - 3.0;
  lap.privatize(data, g1);
  for (std::size_t i = 0; i < n; ++i) expect[i] = lap.release(expect[i], g2);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(std::bit_cast<std::uint64_t>(data[i]), std::bit_cast<std::uint64_t>(expect[i]));
}

TEST(Kernels, LaplaceVectorFillEqualsScalarDrawsPhilox) {
  for_each_isa([] {
    for (std::size_t n : {1u, 2u, 3u, 7u, 511u, 512u, 513u, 1500u, 4096u}) {
      check_laplace_bit_identity(
          rng::stream(5, 1, 2, rng::purpose::noise), rng::stream(5, 1, 2, rng::purpose::noise), n);
    }
  });
}

TEST(Kernels, LaplaceVectorFillEqualsScalarDrawsGenericEngine) {
  for_each_isa([] {
    for (std::size_t n : {1u, 5u, 600u, 2000u}) {
      check_laplace_bit_identity(std::mt19937_64(99), std::mt19937_64(99), n);
    }
  });
}

void check_gaussian_bit_identity();

TEST(Kernels, GaussianVectorKernelEqualsScalarPair) { for_each_isa(check_gaussian_bit_identity); }

TEST(Kernels, ExactSamplerKernelsIdenticalInEveryVariant) {
  auto g = rng::stream(10, 0, 0, rng::purpose::noise);
  std::vector<std::uint32_t> words(2 * 1000);
  g.fill(words);
  std::vector<double> args(1000);
  for (std::size_t i = 0; i < args.size(); ++i) args[i] = 30.0 * static_cast<double>(i) / 999.0;
  std::vector<double> m_ref, ok_ref;
  for_each_isa([&] {
    std::vector<double> e = args;
    detail::exp_neg_kernel(e);
    for (std::size_t i = 0; i < e.size(); ++i)
      ASSERT_EQ(std::bit_cast<std::uint64_t>(e[i]),
                std::bit_cast<std::uint64_t>(detail::exp_kernel(-args[i])));
    const double gamma = 1.0 / 37.0;
    std::vector<double> m(1000), ok(1000);
    detail::geometric_candidates(words, gamma, std::exp(-gamma), 37.0, m, ok);
    if (m_ref.empty()) {
      m_ref = m;
      ok_ref = ok;
    }
    for (std::size_t i = 0; i < m.size(); ++i) {
      ASSERT_EQ(std::bit_cast<std::uint64_t>(m[i]), std::bit_cast<std::uint64_t>(m_ref[i]));
      ASSERT_EQ(ok[i], ok_ref[i]);
    }
  });
}

void check_gaussian_bit_identity() {
  auto g = rng::stream(8, 0, 0, rng::purpose::noise);
  std::vector<double> u(2 * 1000);
  g.fill_uniform_open01(u);
  std::vector<double> v = u;
  detail::gaussian_from_uniform_split(v, 1.7);
  for (std::size_t i = 0; i < 1000; ++i) {
    double z1, z2;
    detail::gaussian_from_uniform_pair(u[i], u[1000 + i], 1.7, z1, z2);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(v[i]), std::bit_cast<std::uint64_t>(z1));
    ASSERT_EQ(std::bit_cast<std::uint64_t>(v[1000 + i]), std::bit_cast<std::uint64_t>(z2));
  }
  // Word-based production kernels: split vector kernel == scalar pair function, and the
  // scalar sampler returns the cosine half of the pair made from the next two words.
  std::vector<std::uint32_t> words(4 * 700);
  g.fill(words);
  std::vector<double> out(2 * 700);
  detail::gaussian_from_bits_split(words, out, 0.9);
  auto word = [&](std::size_t i) {
    return static_cast<std::uint64_t>(words[2 * i]) |
           (static_cast<std::uint64_t>(words[2 * i + 1]) << 32);
  };
  for (std::size_t i = 0; i < 700; ++i) {
    double z1, z2;
    detail::gaussian_from_bits_pair(word(i), word(700 + i), 0.9, z1, z2);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(out[i]), std::bit_cast<std::uint64_t>(z1));
    ASSERT_EQ(std::bit_cast<std::uint64_t>(out[700 + i]), std::bit_cast<std::uint64_t>(z2));
  }
  auto g1 = rng::stream(9, 0, 0, rng::purpose::noise);
  auto g2 = rng::stream(9, 0, 0, rng::purpose::noise);
  const auto ga = mechanisms::gaussian::from_sigma(2.5);
  const double a = ga.sample(g1);
  const std::uint64_t w1 = g2.next_u64(), w2 = g2.next_u64();
  double z1, z2;
  detail::gaussian_from_bits_pair(w1, w2, 2.5, z1, z2);
  EXPECT_EQ(a, z1);
}

TEST(Kernels, LaplaceFromBitsIsSymmetricInversion) {
  // bit 0 = 1 gives +b(-ln u), bit 0 = 0 gives its negative; u = ((w >> 12) + 1/2) 2^-52.
  const std::uint64_t w = (std::uint64_t{0x123456789abcd} << 12) | 1u;
  const double u = (static_cast<double>(w >> 12) + 0.5) * 0x1p-52;
  EXPECT_EQ(detail::laplace_from_bits(w, 2.0), -2.0 * detail::log_kernel(u));
  EXPECT_EQ(detail::laplace_from_bits(w ^ 1u, 2.0), 2.0 * detail::log_kernel(u));
  // Extremes: u = 2^-53 gives the largest magnitude 53 ln 2 b; u just below 1 gives ~0.
  EXPECT_NEAR(detail::laplace_from_bits(1u, 1.0), 53.0 * std::log(2.0), 1e-12);
  EXPECT_LT(std::fabs(detail::laplace_from_bits(~std::uint64_t{0}, 1.0)), 1e-15);
}

}  // namespace
