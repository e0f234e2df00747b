// Properties checked (dpx::rng):
//  * Philox4x32-10 known answer: C++26 [rand.eng.philox] requires the 10000th output of a
//    default-constructed philox4x32 to be 1955073260.
//  * The engine equals Random123's raw philox4x32 bijection block by block.
//  * Bulk fills equal the scalar stream bit for bit, for every starting offset within a block
//    and every length, and leave the engine in the same state — on each compiled path this CPU
//    can run (x86-64 baseline, AVX2, AVX-512; pinned one at a time), not only the one it picks.
//  * discard(z) equals z calls.
//  * Keyed streams: identical keys give identical streams; any change of seed, cell,
//    replication or purpose gives a different stream; streams do not depend on thread count.
//  * uniform01 in [0,1), uniform_open01 in (0,1), 53-bit resolution; mean and variance.
//  * uniform_below is unbiased (chi-square on n = 3) and in range.
//  * os_random: every bit varies, no repeats, bulk fill, not copyable, a forked child does not
//    reuse the parent's buffer.
#include <Random123/philox.h>
// Random123 defines a function-like macro philox4x32(c, k) that would shadow our class.
#undef philox4x32
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <set>
#include <thread>
#include <type_traits>
#include <vector>

#include "dpx/core/rng.hpp"

namespace dpx::rng {
namespace {

void bulk_u32_equals_scalar();
void bulk_doubles_equal_scalar();

TEST(Philox, Cxx26KnownAnswer) {
  philox4x32 g;
  for (int i = 0; i < 9999; ++i) g();
  EXPECT_EQ(g(), 1955073260u);
}

TEST(Philox, MatchesRandom123Blocks) {
  philox4x32 g({0xdeadbeefu, 0x12345678u}, {5, 0, 7, 2});
  r123::Philox4x32 ref;
  for (std::uint32_t b = 5; b < 50; ++b) {
    auto y = ref({{b, 0, 7, 2}}, {{0xdeadbeefu, 0x12345678u}});
    for (int j = 0; j < 4; ++j) EXPECT_EQ(g(), y[j]);
  }
}

TEST(Philox, CounterCarriesIntoSecondWord) {
  philox4x32 g({1, 2}, {0xffffffffu, 0, 3, 4});
  for (int j = 0; j < 4; ++j) g();
  EXPECT_EQ(g.counter()[0], 0u);
  EXPECT_EQ(g.counter()[1], 1u);
  auto y = philox4x32::block({0, 1, 3, 4}, {1, 2});
  EXPECT_EQ(g(), y[0]);
}

// Runs body once per compiled SIMD path this machine can execute, pinned, then restores the
// automatic choice. Reports which paths ran.
template <class Body>
void for_each_simd_path(Body body) {
  using detail::simd_path;
  int ran = 0;
  for (simd_path p : {simd_path::baseline, simd_path::avx2, simd_path::avx512}) {
    if (!detail::simd_path_available(p)) continue;
    detail::set_simd_path(p);
    ASSERT_EQ(detail::active_simd_path(), p);
    SCOPED_TRACE(p == simd_path::baseline ? "baseline path"
                 : p == simd_path::avx2   ? "avx2 path"
                                          : "avx512 path");
    body();
    ++ran;
  }
  detail::set_simd_path(simd_path::automatic);
  EXPECT_GE(ran, 1);
}

TEST(Philox, SimdPathsCanBePinned) {
  using detail::simd_path;
  EXPECT_TRUE(detail::simd_path_available(simd_path::baseline));
  detail::set_simd_path(simd_path::baseline);
  EXPECT_EQ(detail::active_simd_path(), simd_path::baseline);
  detail::set_simd_path(simd_path::automatic);
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw")) {
    EXPECT_EQ(detail::active_simd_path(), simd_path::avx512);
    detail::set_simd_path(simd_path::avx2);
    EXPECT_EQ(detail::active_simd_path(), simd_path::avx2);
    detail::set_simd_path(simd_path::automatic);
  } else if (__builtin_cpu_supports("avx2")) {
    EXPECT_EQ(detail::active_simd_path(), simd_path::avx2);
  }
#endif
}

TEST(Philox, BulkU32EqualsScalarForEveryOffsetAndLength) {
  for_each_simd_path([] { bulk_u32_equals_scalar(); });
}

void bulk_u32_equals_scalar() {
  for (unsigned offset = 0; offset < 4; ++offset) {
    // 8, 16, 20 words: 2, 4, 5 blocks (the narrow and the wide chunk); 140: a full chunk then
    // a narrow tail of 3 blocks.
    for (std::size_t len : {0u, 1u, 3u, 4u, 5u, 8u, 16u, 20u, 127u, 128u, 129u, 140u, 1000u}) {
      philox4x32 a = stream(1, 2, 3, purpose::noise);
      a.discard(offset);
      philox4x32 b = a;
      std::vector<std::uint32_t> bulk(len);
      a.fill(bulk);
      for (std::size_t i = 0; i < len; ++i) ASSERT_EQ(bulk[i], b()) << offset << " " << i;
      EXPECT_TRUE(a == b);
      EXPECT_EQ(a(), b());
    }
  }
}

TEST(Philox, BulkDoublesEqualScalarForEveryOffsetAndLength) {
  for_each_simd_path([] { bulk_doubles_equal_scalar(); });
}

void bulk_doubles_equal_scalar() {
  for (unsigned offset = 0; offset < 4; ++offset) {
    // 4, 8, 10 doubles: 2, 4, 5 blocks; 72: a full chunk then a narrow tail of 4 blocks.
    for (std::size_t len : {0u, 1u, 2u, 3u, 4u, 8u, 10u, 63u, 64u, 65u, 72u, 64u * 33u + 1u}) {
      philox4x32 a = stream(9, 8, 7, purpose::data);
      a.discard(offset);
      philox4x32 b = a;
      std::vector<double> bulk(len);
      a.fill_uniform01(bulk);
      for (std::size_t i = 0; i < len; ++i) ASSERT_EQ(bulk[i], b.uniform01()) << offset << " " << i;
      EXPECT_TRUE(a == b);
      a.fill_uniform_open01(bulk);
      for (std::size_t i = 0; i < len; ++i) ASSERT_EQ(bulk[i], b.uniform_open01());
      EXPECT_TRUE(a == b);
    }
  }
}

TEST(Philox, DiscardEqualsCalls) {
  for (unsigned long long z : {0ull, 1ull, 3ull, 4ull, 5ull, 17ull, 1000ull}) {
    for (unsigned pre = 0; pre < 4; ++pre) {
      philox4x32 a(42), b(42);
      for (unsigned i = 0; i < pre; ++i) {
        a();
        b();
      }
      a.discard(z);
      for (unsigned long long i = 0; i < z; ++i) b();
      EXPECT_EQ(a(), b()) << z << " " << pre;
    }
  }
}

TEST(Streams, SameKeySameStreamAnyChangeDiffers) {
  auto first = [](philox4x32 g) {
    std::vector<std::uint32_t> v(8);
    g.fill(v);
    return v;
  };
  const auto base = first(stream(1, 2, 3, purpose::data));
  EXPECT_EQ(base, first(stream(1, 2, 3, purpose::data)));
  std::set<std::vector<std::uint32_t>> seen{base};
  seen.insert(first(stream(2, 2, 3, purpose::data)));
  seen.insert(first(stream(1, 3, 3, purpose::data)));
  seen.insert(first(stream(1, 2, 4, purpose::data)));
  seen.insert(first(stream(1, 2, 3, purpose::noise)));
  EXPECT_EQ(seen.size(), 5u);
}

TEST(Streams, IndependentOfThreadCount) {
  // Replication r computed on its own thread equals replication r computed serially.
  constexpr int reps = 8;
  std::vector<double> serial(reps), threaded(reps);
  for (int r = 0; r < reps; ++r) serial[r] = stream(7, 11, r, purpose::noise).uniform01();
  std::vector<std::thread> ts;
  for (int r = 0; r < reps; ++r)
    ts.emplace_back([&, r] { threaded[r] = stream(7, 11, r, purpose::noise).uniform01(); });
  for (auto& t : ts) t.join();
  EXPECT_EQ(serial, threaded);
}

TEST(Uniform, RangeAndResolution) {
  // uniform01 = k * 2^-53 with k < 2^53; uniform_open01 = (k + 1/2) * 2^-53.
  philox4x32 g(3);
  for (int i = 0; i < 100000; ++i) {
    const double u = g.uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    const double k = u * 0x1p53;
    ASSERT_EQ(k, std::floor(k));
    const double v = g.uniform_open01();
    ASSERT_GT(v, 0.0);
    ASSERT_LT(v, 1.0);
  }
}

TEST(Uniform, MomentsWithinClt) {
  // n = 10^6 draws: mean has sd 1/sqrt(12 n) = 2.9e-4; 6 sd gives a false-positive rate
  // < 2e-9. The variance estimate has sd ~ sqrt(1/180 n) = 7.5e-5; 6 sd likewise.
  philox4x32 g = stream(123, 0, 0, purpose::aux);
  std::vector<double> u(1000000);
  g.fill_uniform01(u);
  double m = 0, v = 0;
  for (double x : u) m += x;
  m /= static_cast<double>(u.size());
  for (double x : u) v += (x - m) * (x - m);
  v /= static_cast<double>(u.size());
  EXPECT_NEAR(m, 0.5, 6 * 2.9e-4);
  EXPECT_NEAR(v, 1.0 / 12, 6 * 7.5e-5);
}

TEST(Uniform, UniformBelowUnbiased) {
  // Chi-square with 2 df on 3 cells, 3e5 draws: threshold 27.6 gives false-positive rate 1e-6.
  philox4x32 g(99);
  std::array<double, 3> c{};
  const int n = 300000;
  for (int i = 0; i < n; ++i) {
    const auto k = uniform_below(g, 3);
    ASSERT_LT(k, 3u);
    c[k] += 1;
  }
  double chi2 = 0;
  for (double x : c) chi2 += (x - n / 3.0) * (x - n / 3.0) / (n / 3.0);
  EXPECT_LT(chi2, 27.6);
}

// os_random is a CSPRNG: no test can show that (its security is OpenSSL's, NIST SP 800-90A).
// These check only what a broken wrapper would get wrong: every bit takes both values (a bit
// stuck at 0 or 1 passes by chance with probability 2 * 2^-n per bit over n words), no output
// repeats (a pair of equal 64-bit words among 3000: probability < 3000^2 / 2^65 ~ 2.4e-13),
// across the refill boundary of the 1024-word buffer.
TEST(OsRandom, EveryBitVariesAndNoWordRepeats) {
  os_random os;
  std::set<std::uint64_t> s;
  std::uint64_t any = 0, all = ~std::uint64_t{0};
  const int n = 3 * static_cast<int>(os_random::buffer_words) - 72;
  for (int i = 0; i < n; ++i) {
    const auto x = os();
    s.insert(x);
    any |= x;
    all &= x;
  }
  EXPECT_EQ(s.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(any, ~std::uint64_t{0});
  EXPECT_EQ(all, 0u);
  const double u = uniform01(os);
  EXPECT_GE(u, 0.0);
  EXPECT_LT(u, 1.0);
  // Two generators never share a buffer.
  os_random a, b;
  EXPECT_NE(a(), b());
}

TEST(OsRandom, BulkFillVariesAndIsNotCopyable) {
  static_assert(!std::is_copy_constructible_v<os_random>, "a copy would repeat the noise");
  static_assert(std::is_nothrow_move_constructible_v<os_random>);
  os_random os;
  (void)os();                                                     // start mid-buffer
  std::vector<std::uint32_t> w(2 * os_random::buffer_words + 3);  // crosses two refills, odd
  os.fill(w);
  std::uint32_t any = 0, all = ~std::uint32_t{0};
  for (auto x : w) {
    any |= x;
    all &= x;
  }
  EXPECT_EQ(any, ~std::uint32_t{0});
  EXPECT_EQ(all, 0u);
  EXPECT_EQ(std::set<std::uint32_t>(w.begin(), w.end()).size(), w.size());  // P(fail) < 1e-3
  os_random moved(std::move(os));
  EXPECT_NE(moved(), moved());
}

// A forked child must not draw the bytes its parent had buffered (it would release the same
// noise as the parent): both draw the next word after the fork; equal words mean the buffer was
// shared (by chance: 2^-64).
TEST(OsRandom, ForkedChildDoesNotRepeatTheParentsBuffer) {
  os_random os;
  (void)os();  // the buffer now holds 1023 unused words
  int fd[2];
  ASSERT_EQ(pipe(fd), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::uint64_t x = os();
    const bool ok = write(fd[1], &x, sizeof x) == static_cast<ssize_t>(sizeof x);
    _exit(ok ? 0 : 1);
  }
  const std::uint64_t mine = os();
  std::uint64_t child = 0;
  ASSERT_EQ(read(fd[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  close(fd[0]);
  close(fd[1]);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_NE(mine, child);
}

}  // namespace
}  // namespace dpx::rng
