#pragma once
/// \file
/// Explicit, keyed random number generation.
///
/// * philox4x32 — Random123's Philox4x32-10 counter-based generator (Salmon et al., SC'11)
///   wrapped as a std::uniform_random_bit_generator with the exact semantics of C++26
///   std::philox4x32 (default seed 20111115, 10000th output 1955073260). Experiments obtain
///   engines only through stream(seed, cell, replication, purpose), so any replication can be
///   recomputed alone and results are bit-identical for any thread or process count.
/// * os_random — a cryptographically secure generator (OpenSSL's RAND_priv_bytes, seeded by
///   the operating system). Use it for real data releases. Philox is fast and statistically
///   excellent but not cryptographic: it is for experiments, where a fixed seed makes runs
///   reproducible. Anyone who knows the seed knows the noise, and the release then protects
///   nothing.

#include <array>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string_view>

namespace dpx::rng {

/// Philox4x32-10. Counter words 0 and 1 form the 64-bit block index that the engine
/// advances; words 2 and 3 are fixed per stream (replication, purpose). Each block yields
/// four 32-bit outputs, returned in order.
class philox4x32 {
 public:
  using result_type = std::uint32_t;
  using key_type = std::array<std::uint32_t, 2>;
  using counter_type = std::array<std::uint32_t, 4>;
  static constexpr std::uint32_t default_seed = 20111115u;
  static constexpr std::string_view algorithm_name = "Philox4x32-10 (Random123 1.14)";

  philox4x32() noexcept : philox4x32(default_seed) {}
  /// C++26 seeding: key = {seed mod 2^32, 0}, counter = 0.
  explicit philox4x32(std::uint32_t seed) noexcept : key_{seed, 0}, ctr_{0, 0, 0, 0} {}
  /// Full control of key and starting counter.
  philox4x32(key_type key, counter_type counter) noexcept : key_(key), ctr_(counter) {}

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

  result_type operator()() noexcept {
    if (idx_ == 4) refill();
    return buf_[idx_++];
  }
  /// Two consecutive outputs, the first in the low word.
  std::uint64_t next_u64() noexcept {
    const std::uint64_t lo = (*this)();
    const std::uint64_t hi = (*this)();
    return lo | (hi << 32);
  }
  /// Uniform on [0, 1) with 53 random bits: (next_u64() >> 11) * 2^-53.
  double uniform01() noexcept { return static_cast<double>(next_u64() >> 11) * 0x1p-53; }
  /// Uniform on (0, 1): ((next_u64() >> 11) + 0.5) * 2^-53; never 0 or 1 (for log/inverse CDFs).
  double uniform_open01() noexcept {
    return (static_cast<double>(next_u64() >> 11) + 0.5) * 0x1p-53;
  }

  /// Bulk fills. Each equals, bit for bit, the same number of scalar calls in sequence
  /// (fill_uniform01(x) == {uniform01(), uniform01(), ...}) and leaves the engine in the same
  /// state; whole blocks go through a SIMD kernel (AVX-512 or AVX2 when the CPU has it).
  void fill(std::span<std::uint32_t> out) noexcept;
  void fill_uniform01(std::span<double> out) noexcept;
  void fill_uniform_open01(std::span<double> out) noexcept;

  /// Skips z outputs.
  void discard(unsigned long long z) noexcept;

  key_type key() const noexcept { return key_; }
  /// Counter of the next block to be generated.
  counter_type counter() const noexcept { return ctr_; }

  friend bool operator==(const philox4x32& a, const philox4x32& b) noexcept {
    if (a.key_ != b.key_ || a.ctr_ != b.ctr_ || a.idx_ != b.idx_) return false;
    for (unsigned i = a.idx_; i < 4; ++i)
      if (a.buf_[i] != b.buf_[i]) return false;
    return true;
  }

  /// The raw bijection: 10 Philox rounds of counter under key (Random123's philox4x32).
  static counter_type block(const counter_type& counter, const key_type& key) noexcept;

 private:
  void refill() noexcept;
  std::uint64_t block_index() const noexcept {
    return static_cast<std::uint64_t>(ctr_[0]) | (static_cast<std::uint64_t>(ctr_[1]) << 32);
  }
  void set_block_index(std::uint64_t b) noexcept {
    ctr_[0] = static_cast<std::uint32_t>(b);
    ctr_[1] = static_cast<std::uint32_t>(b >> 32);
  }
  template <int Kind>
  void fill_doubles(std::span<double> out) noexcept;

  key_type key_;
  counter_type ctr_;
  std::array<std::uint32_t, 4> buf_{};
  unsigned idx_ = 4;  // next unread word of buf_; 4 = empty
};

static_assert(std::uniform_random_bit_generator<philox4x32>);

/// What a stream is used for. Part of the counter, so purposes never share draws.
enum class purpose : std::uint32_t {
  data = 1,       ///< the dataset of a replication (keyed on data parameters only: CRN)
  noise = 2,      ///< mechanism noise
  init = 3,       ///< solver initialisation
  subsample = 4,  ///< minibatch / Poisson sampling
  bootstrap = 5,  ///< resampling in rate fits and summaries
  audit = 6,      ///< privacy auditing trials
  aux = 7,        ///< anything else a driver needs
};

/// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Key derivation for experiment streams (recorded in every manifest):
///   key64   = mix64(mix64(base_seed) ^ cell_hash), key = {low32(key64), high32(key64)}
///   counter = {block_lo, block_hi, replication, purpose}, block starting at 0.
/// Each (seed, cell, replication, purpose) thus owns 2^64 blocks of 4 outputs.
philox4x32 stream(std::uint64_t base_seed,
                  std::uint64_t cell_hash,
                  std::uint32_t replication,
                  purpose p) noexcept;
inline constexpr std::string_view stream_derivation =
    "key64 = splitmix64(splitmix64(base_seed) ^ cell_hash); key = {lo32(key64), hi32(key64)}; "
    "counter = {block_lo, block_hi, replication, purpose}";

namespace detail {
/// Incremented in a forked child (pthread_atfork), so that an os_random never hands the child
/// the bytes it had buffered for the parent.
extern std::atomic<std::uint32_t> os_random_fork_epoch;
}  // namespace detail

/// The generator for real releases: a cryptographically secure pseudo-random generator, OpenSSL's
/// RAND_priv_bytes (a NIST SP 800-90A CTR-DRBG with AES-256, seeded and reseeded from the
/// operating system; thread-safe, each thread has its own DRBG instance, reseeded in a forked
/// child). Its output cannot be predicted from earlier outputs, which is what an adversary who
/// sees many releases would exploit in a non-cryptographic generator such as Philox. Bytes are
/// fetched 8 KiB at a time (one library call costs microseconds; docs/performance.md); each word
/// is wiped from the buffer when used, the rest when the object is destroyed, and a forked child
/// discards what the parent had buffered. Not reproducible by design, not copyable (a copy would
/// repeat the noise). Throws std::runtime_error if OpenSSL cannot produce random bytes.
class os_random {
 public:
  using result_type = std::uint64_t;
  static constexpr std::string_view algorithm_name = "OpenSSL RAND_priv_bytes (CTR-DRBG, AES-256)";
  static constexpr std::size_t buffer_words = 1024;

  os_random();
  ~os_random();
  os_random(os_random&& other) noexcept;
  os_random& operator=(os_random&& other) noexcept;
  os_random(const os_random&) = delete;
  os_random& operator=(const os_random&) = delete;

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }
  result_type operator()() {
    if (idx_ == buffer_words ||
        epoch_ != detail::os_random_fork_epoch.load(std::memory_order_relaxed))
      refill();
    const result_type v = buf_[idx_];
    buf_[idx_++] = 0;  // do not keep used randomness in memory
    return v;
  }
  /// Bulk fill (the discrete samplers' word pools use it): each 64-bit output split into its
  /// low then high half, as the generic path of those pools does, from the same buffer.
  void fill(std::span<std::uint32_t> out);

 private:
  void refill();
  std::unique_ptr<result_type[]> buf_;
  std::size_t idx_ = buffer_words;
  std::uint32_t epoch_ = 0;
};
static_assert(std::uniform_random_bit_generator<os_random>);

namespace detail {
/// The compiled paths of the bulk fills (fill, fill_uniform01, fill_uniform_open01): the x86-64
/// baseline and, on x86-64 GCC builds, AVX2 and AVX-512 (F, VL, DQ, BW) versions of the same
/// source. All give the same bits (exact integer arithmetic); `automatic` takes the best one the
/// CPU has.
enum class simd_path { automatic, baseline, avx2, avx512 };
/// Pins the path (for tests and benchmarks; set it before filling, not while other threads
/// fill). A path the build or CPU lacks falls back to the baseline.
void set_simd_path(simd_path p) noexcept;
/// The path the bulk fills take now (baseline or avx2).
simd_path active_simd_path() noexcept;
/// Whether this build on this CPU has the path.
bool simd_path_available(simd_path p) noexcept;

__extension__ using uint128 = unsigned __int128;  // GCC/Clang extension; -Wpedantic-clean
/// 64 uniformly random bits from any URBG.
template <std::uniform_random_bit_generator G>
std::uint64_t bits64(G& g) {
  using R = typename G::result_type;
  if constexpr (G::min() == 0 && G::max() == std::numeric_limits<std::uint64_t>::max()) {
    return static_cast<std::uint64_t>(g());
  } else if constexpr (G::min() == 0 && G::max() == std::numeric_limits<std::uint32_t>::max()) {
    const std::uint64_t lo = static_cast<std::uint32_t>(g());
    const std::uint64_t hi = static_cast<std::uint32_t>(g());
    return lo | (hi << 32);
  } else {
    static_assert(sizeof(R) == 0, "dpx samplers need a URBG with a full 32- or 64-bit range");
    return 0;
  }
}
}  // namespace detail

/// Uniform on [0, 1) with 53 random bits, from any full-range URBG.
template <std::uniform_random_bit_generator G>
double uniform01(G& g) {
  if constexpr (requires { g.uniform01(); }) {
    return g.uniform01();
  } else {
    return static_cast<double>(detail::bits64(g) >> 11) * 0x1p-53;
  }
}

/// Uniform on (0, 1) with 53 random bits; never returns 0 or 1.
template <std::uniform_random_bit_generator G>
double uniform_open01(G& g) {
  if constexpr (requires { g.uniform_open01(); }) {
    return g.uniform_open01();
  } else {
    return (static_cast<double>(detail::bits64(g) >> 11) + 0.5) * 0x1p-53;
  }
}

/// Fills out with uniform01 draws (bulk SIMD path for philox4x32).
template <std::uniform_random_bit_generator G>
void fill_uniform01(G& g, std::span<double> out) {
  if constexpr (requires { g.fill_uniform01(out); }) {
    g.fill_uniform01(out);
  } else {
    for (double& x : out) x = uniform01(g);
  }
}

/// Fills out with uniform_open01 draws.
template <std::uniform_random_bit_generator G>
void fill_uniform_open01(G& g, std::span<double> out) {
  if constexpr (requires { g.fill_uniform_open01(out); }) {
    g.fill_uniform_open01(out);
  } else {
    for (double& x : out) x = uniform_open01(g);
  }
}

/// Uniform integer in [0, n) without modulo bias (Lemire 2019, exact rejection). n >= 1.
template <std::uniform_random_bit_generator G>
std::uint64_t uniform_below(G& g, std::uint64_t n) {
  // 128-bit multiply-shift with rejection of the biased low region.
  detail::uint128 m = static_cast<detail::uint128>(detail::bits64(g)) * n;
  auto lo = static_cast<std::uint64_t>(m);
  if (lo < n) {
    const std::uint64_t t = (0 - n) % n;
    while (lo < t) {
      m = static_cast<detail::uint128>(detail::bits64(g)) * n;
      lo = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

}  // namespace dpx::rng
