// A test double for OpenSSL's RAND_priv_bytes, loaded with LD_PRELOAD into the dpx executable by
// release_generator_cli_test.cpp: it returns the same bytes in every process (SplitMix64 of a
// counter, so no period shorter than 2^64 words that a rejection sampler could get stuck in).
// If the noise of a command comes from RAND_priv_bytes (rng::os_random) and nothing else, two
// runs under it print the same output; any other source (a Philox keyed from getrandom(2), a
// clock) makes them differ.
#include <cstddef>
#include <cstdint>

namespace {
std::uint64_t counter = 0;
std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

extern "C" int RAND_priv_bytes(unsigned char* buf, int num) {
  std::uint64_t w = 0;
  for (int i = 0; i < num; ++i) {
    if (i % 8 == 0) w = splitmix64(counter++);
    buf[i] = static_cast<unsigned char>(w >> (8 * (i % 8)));
  }
  return 1;
}
