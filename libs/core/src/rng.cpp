#include "dpx/core/rng.hpp"

#include <Random123/philox.h>
// Random123 defines a function-like macro philox4x32(c, k) that would shadow our class.
#undef philox4x32
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>

namespace dpx::rng {

namespace {

constexpr std::uint32_t kM0 = 0xD2511F53u;  // Random123 PHILOX_M4x32_0
constexpr std::uint32_t kM1 = 0xCD9E8D57u;  // PHILOX_M4x32_1
constexpr std::uint32_t kW0 = 0x9E3779B9u;  // PHILOX_W32_0 (golden ratio)
constexpr std::uint32_t kW1 = 0xBB67AE85u;  // PHILOX_W32_1 (sqrt(3) - 1)

// Blocks per SIMD chunk: 8 lanes of AVX2 x 4 keeps all state in registers/L1. Short fills (a
// Gaussian draw in d = 4 needs 2 blocks) use a chunk of 4 or 8 lanes: the rounds run on every
// lane of the chunk, so a 2-block fill on the full chunk would do 16 times the work. Fills of at
// most kScalarBlocks blocks take the scalar calls (measured faster: bench/core).
constexpr std::size_t kChunk = 32;
constexpr std::size_t kScalarBlocks = 2;

enum kind : int { kU32 = 0, kU01 = 1, kOpen01 = 2 };

// Exact conversion of a 53-bit integer to double via two exactly representable halves, so the
// vectoriser needs only int32 -> double conversions (AVX2 has no 64-bit integer converts).
inline double to_double53(std::uint64_t v) {
  const auto hi = static_cast<std::int32_t>(v >> 26);                // 27 bits
  const auto lo = static_cast<std::int32_t>(v & ((1u << 26) - 1u));  // 26 bits
  return static_cast<double>(hi) * 0x1p26 + static_cast<double>(lo);
}

// Philox4x32-10 on nblocks (<= kChunk) consecutive counters, structure-of-arrays so that the
// 32x32->64 multiplies vectorise (vpmuludq). Output layout depends on K. W is the number of
// lanes computed (a compile-time trip count, so the rounds vectorise and unroll).
template <int K, std::size_t W>
[[gnu::always_inline]] inline void philox_chunk(std::uint32_t k0,
                                                std::uint32_t k1,
                                                std::uint64_t first,
                                                std::uint32_t w2,
                                                std::uint32_t w3,
                                                std::size_t nblocks,
                                                void* out) {
  std::uint32_t c0[W], c1[W], c2[W], c3[W];
  for (std::size_t i = 0; i < W; ++i) {
    const std::uint64_t b = first + i;
    c0[i] = static_cast<std::uint32_t>(b);
    c1[i] = static_cast<std::uint32_t>(b >> 32);
    c2[i] = w2;
    c3[i] = w3;
  }
  for (int r = 0; r < 10; ++r) {
    for (std::size_t i = 0; i < W; ++i) {
      const std::uint64_t p0 = static_cast<std::uint64_t>(kM0) * c0[i];
      const std::uint64_t p1 = static_cast<std::uint64_t>(kM1) * c2[i];
      const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1[i] ^ k0;
      const std::uint32_t n1 = static_cast<std::uint32_t>(p1);
      const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3[i] ^ k1;
      const std::uint32_t n3 = static_cast<std::uint32_t>(p0);
      c0[i] = n0;
      c1[i] = n1;
      c2[i] = n2;
      c3[i] = n3;
    }
    k0 += kW0;
    k1 += kW1;
  }
  if constexpr (K == kU32) {
    auto* o = static_cast<std::uint32_t*>(out);
    for (std::size_t i = 0; i < nblocks; ++i) {
      o[4 * i] = c0[i];
      o[4 * i + 1] = c1[i];
      o[4 * i + 2] = c2[i];
      o[4 * i + 3] = c3[i];
    }
  } else {
    auto* o = static_cast<double*>(out);
    const double off = (K == kOpen01) ? 0.5 : 0.0;
    for (std::size_t i = 0; i < nblocks; ++i) {
      const std::uint64_t a =
          (static_cast<std::uint64_t>(c0[i]) | (std::uint64_t{c1[i]} << 32)) >> 11;
      const std::uint64_t b =
          (static_cast<std::uint64_t>(c2[i]) | (std::uint64_t{c3[i]} << 32)) >> 11;
      o[2 * i] = (to_double53(a) + off) * 0x1p-53;
      o[2 * i + 1] = (to_double53(b) + off) * 0x1p-53;
    }
  }
}

// Three compiled paths: the x86-64 baseline, and AVX2 and AVX-512 versions of the same source
// (compiled with target attributes), chosen at run time from the CPU unless a test pins one
// (detail::set_simd_path). AVX-512 roughly doubles the bulk fill (16 lanes of 32-bit state).
// Integer arithmetic is exact and the double conversion above is exact, so both produce the same
// bits; tests/core checks each path against the scalar Random123 path.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__)
#define DPX_HAVE_AVX2_PATH 1
#endif

template <int K, class T>
[[gnu::always_inline]] inline void philox_blocks(std::uint32_t k0,
                                                 std::uint32_t k1,
                                                 std::uint64_t first,
                                                 std::uint32_t w2,
                                                 std::uint32_t w3,
                                                 std::size_t nblocks,
                                                 T* out) {
  constexpr std::size_t per_block = (K == kU32) ? 4 : 2;
  while (nblocks > 0) {
    const std::size_t m = std::min(nblocks, kChunk);
    if (m <= 4)
      philox_chunk<K, 4>(k0, k1, first, w2, w3, m, out);
    else if (m <= 8)
      philox_chunk<K, 8>(k0, k1, first, w2, w3, m, out);
    else
      philox_chunk<K, kChunk>(k0, k1, first, w2, w3, m, out);
    first += m;
    nblocks -= m;
    out += per_block * m;
  }
}

template <int K, class T>
void blocks_baseline(std::uint32_t k0,
                     std::uint32_t k1,
                     std::uint64_t first,
                     std::uint32_t w2,
                     std::uint32_t w3,
                     std::size_t n,
                     T* out) {
  philox_blocks<K>(k0, k1, first, w2, w3, n, out);
}

#ifdef DPX_HAVE_AVX2_PATH
template <int K, class T>
[[gnu::target("avx512f,avx512vl,avx512dq,avx512bw")]] void blocks_avx512(std::uint32_t k0,
                                                                         std::uint32_t k1,
                                                                         std::uint64_t first,
                                                                         std::uint32_t w2,
                                                                         std::uint32_t w3,
                                                                         std::size_t n,
                                                                         T* out) {
  philox_blocks<K>(k0, k1, first, w2, w3, n, out);
}
template <int K, class T>
[[gnu::target("avx2")]] void blocks_avx2(std::uint32_t k0,
                                         std::uint32_t k1,
                                         std::uint64_t first,
                                         std::uint32_t w2,
                                         std::uint32_t w3,
                                         std::size_t n,
                                         T* out) {
  philox_blocks<K>(k0, k1, first, w2, w3, n, out);
}
#endif

std::atomic<int> g_simd_path{static_cast<int>(detail::simd_path::automatic)};

bool avx2_supported() noexcept {
#ifdef DPX_HAVE_AVX2_PATH
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
#else
  return false;
#endif
}

bool avx512_supported() noexcept {
#ifdef DPX_HAVE_AVX2_PATH
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
  return yes;
#else
  return false;
#endif
}

// The path the bulk fills take: the pinned one if this CPU has it, else the best one below it
// (automatic = the best the CPU has).
detail::simd_path chosen_path() noexcept {
  using detail::simd_path;
  const auto p = static_cast<simd_path>(g_simd_path.load(std::memory_order_relaxed));
  if (p == simd_path::baseline) return simd_path::baseline;
  if ((p == simd_path::automatic || p == simd_path::avx512) && avx512_supported())
    return simd_path::avx512;
  if (avx2_supported()) return simd_path::avx2;
  return simd_path::baseline;
}

template <int K, class T>
void blocks(std::uint32_t k0,
            std::uint32_t k1,
            std::uint64_t first,
            std::uint32_t w2,
            std::uint32_t w3,
            std::size_t n,
            T* out) {
#ifdef DPX_HAVE_AVX2_PATH
  switch (chosen_path()) {
    case detail::simd_path::avx512:
      blocks_avx512<K>(k0, k1, first, w2, w3, n, out);
      return;
    case detail::simd_path::avx2:
      blocks_avx2<K>(k0, k1, first, w2, w3, n, out);
      return;
    default:
      break;
  }
#endif
  blocks_baseline<K>(k0, k1, first, w2, w3, n, out);
}

}  // namespace

namespace detail {
void set_simd_path(simd_path p) noexcept {
  g_simd_path.store(static_cast<int>(p), std::memory_order_relaxed);
}
simd_path active_simd_path() noexcept { return chosen_path(); }
bool simd_path_available(simd_path p) noexcept {
  switch (p) {
    case simd_path::avx2:
      return avx2_supported();
    case simd_path::avx512:
      return avx512_supported();
    default:
      return true;
  }
}
}  // namespace detail

philox4x32::counter_type philox4x32::block(const counter_type& counter,
                                           const key_type& key) noexcept {
  r123::Philox4x32 g;
  r123::Philox4x32::ctr_type c = {{counter[0], counter[1], counter[2], counter[3]}};
  r123::Philox4x32::key_type k = {{key[0], key[1]}};
  const auto y = g(c, k);
  return {y[0], y[1], y[2], y[3]};
}

void philox4x32::refill() noexcept {
  const counter_type y = block(ctr_, key_);
  std::copy(y.begin(), y.end(), buf_.begin());
  idx_ = 0;
  set_block_index(block_index() + 1);
}

void philox4x32::discard(unsigned long long z) noexcept {
  const unsigned long long avail = 4 - idx_;
  if (z <= avail) {
    idx_ += static_cast<unsigned>(z);
    return;
  }
  z -= avail;
  idx_ = 4;
  set_block_index(block_index() + z / 4);
  const auto rest = static_cast<unsigned>(z % 4);
  if (rest != 0) {
    refill();
    idx_ = rest;
  }
}

void philox4x32::fill(std::span<std::uint32_t> out) noexcept {
  std::size_t i = 0;
  while (i < out.size() && idx_ != 4) out[i++] = (*this)();
  const std::size_t nblocks = (out.size() - i) / 4;
  if (nblocks > kScalarBlocks) {
    blocks<kU32>(key_[0], key_[1], block_index(), ctr_[2], ctr_[3], nblocks, out.data() + i);
    set_block_index(block_index() + nblocks);
    i += 4 * nblocks;
  }
  while (i < out.size()) out[i++] = (*this)();
}

template <int Kind>
void philox4x32::fill_doubles(std::span<double> out) noexcept {
  auto scalar = [this]() { return Kind == kU01 ? uniform01() : uniform_open01(); };
  std::size_t i = 0;
  // Drain a partly used block first so the bulk path starts on a block boundary; an odd word
  // left over (idx_ == 1 or 3) is consumed exactly as the scalar calls would.
  while (i < out.size() && idx_ != 4) out[i++] = scalar();
  const std::size_t nblocks = (out.size() - i) / 2;
  if (nblocks > kScalarBlocks) {
    if constexpr (Kind == kU01) {
      blocks<kU01>(key_[0], key_[1], block_index(), ctr_[2], ctr_[3], nblocks, out.data() + i);
    } else {
      blocks<kOpen01>(key_[0], key_[1], block_index(), ctr_[2], ctr_[3], nblocks, out.data() + i);
    }
    set_block_index(block_index() + nblocks);
    i += 2 * nblocks;
  }
  while (i < out.size()) out[i++] = scalar();
}

void philox4x32::fill_uniform01(std::span<double> out) noexcept { fill_doubles<kU01>(out); }
void philox4x32::fill_uniform_open01(std::span<double> out) noexcept { fill_doubles<kOpen01>(out); }

philox4x32 stream(std::uint64_t base_seed,
                  std::uint64_t cell_hash,
                  std::uint32_t replication,
                  purpose p) noexcept {
  const std::uint64_t k = mix64(mix64(base_seed) ^ cell_hash);
  return philox4x32({static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(k >> 32)},
                    {0, 0, replication, static_cast<std::uint32_t>(p)});
}

namespace detail {
std::atomic<std::uint32_t> os_random_fork_epoch{0};
}  // namespace detail

namespace {
// A child of fork() starts with copies of every os_random buffer: bumping the epoch makes each
// one refill before its next draw, so parent and child never release the same noise.
// (OpenSSL reseeds its own DRBGs in the child.)
void bump_fork_epoch() noexcept {
  detail::os_random_fork_epoch.fetch_add(1, std::memory_order_relaxed);
}

void register_fork_handler() {
  static const bool registered = [] {
    if (pthread_atfork(nullptr, nullptr, bump_fork_epoch) != 0)
      throw std::runtime_error("os_random: pthread_atfork failed");
    return true;
  }();
  (void)registered;
}

void csprng_bytes(void* out, std::size_t n) {
  // RAND_priv_bytes: the DRBG instance OpenSSL keeps for secret values (noise is one).
  while (n > 0) {
    const std::size_t m = std::min<std::size_t>(n, 1u << 30);
    if (RAND_priv_bytes(static_cast<unsigned char*>(out), static_cast<int>(m)) != 1)
      throw std::runtime_error("os_random: OpenSSL RAND_priv_bytes failed (no entropy source?)");
    out = static_cast<unsigned char*>(out) + m;
    n -= m;
  }
}
}  // namespace

os_random::os_random() : buf_(std::make_unique<result_type[]>(buffer_words)) {
  register_fork_handler();
  epoch_ = detail::os_random_fork_epoch.load(std::memory_order_relaxed);
}

os_random::~os_random() {
  if (buf_) OPENSSL_cleanse(buf_.get(), buffer_words * sizeof(result_type));
}

os_random::os_random(os_random&& other) noexcept
    : buf_(std::move(other.buf_)), idx_(other.idx_), epoch_(other.epoch_) {
  // The moved-from object refills (a fresh buffer) if it is used again.
  other.buf_ = nullptr;
  other.idx_ = buffer_words;
}

os_random& os_random::operator=(os_random&& other) noexcept {
  if (this != &other) {
    if (buf_) OPENSSL_cleanse(buf_.get(), buffer_words * sizeof(result_type));
    buf_ = std::move(other.buf_);
    idx_ = other.idx_;
    epoch_ = other.epoch_;
    other.buf_ = nullptr;
    other.idx_ = buffer_words;
  }
  return *this;
}

void os_random::refill() {
  if (!buf_) buf_ = std::make_unique<result_type[]>(buffer_words);
  epoch_ = detail::os_random_fork_epoch.load(std::memory_order_relaxed);
  csprng_bytes(buf_.get(), buffer_words * sizeof(result_type));
  idx_ = 0;
}

void os_random::fill(std::span<std::uint32_t> out) {
  std::size_t i = 0;
  while (i < out.size()) {
    if (idx_ == buffer_words ||
        epoch_ != detail::os_random_fork_epoch.load(std::memory_order_relaxed))
      refill();
    // Whole words, two 32-bit outputs each (low half first, as detail::bits64 splits them);
    // an odd last output discards the high half.
    const std::size_t words = std::min((out.size() - i + 1) / 2, buffer_words - idx_);
    for (std::size_t w = 0; w < words; ++w) {
      const result_type v = buf_[idx_ + w];
      out[i++] = static_cast<std::uint32_t>(v);
      if (i < out.size()) out[i++] = static_cast<std::uint32_t>(v >> 32);
    }
    OPENSSL_cleanse(buf_.get() + idx_, words * sizeof(result_type));
    idx_ += words;
  }
}

}  // namespace dpx::rng
