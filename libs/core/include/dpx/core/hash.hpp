#pragma once
/// \file
/// Stable 64-bit hashing for identities that must never change between runs, builds or
/// machines (experiment cell ids, data-stream keys): FNV-1a 64 over the bytes, followed by
/// the SplitMix64 finaliser for avalanche.

#include <cstdint>
#include <string>
#include <string_view>

#include "dpx/core/rng.hpp"

namespace dpx::core {

constexpr std::uint64_t fnv1a64(std::string_view s) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

/// The hash used for cell ids and stream keys.
constexpr std::uint64_t stable_hash(std::string_view s) noexcept { return rng::mix64(fnv1a64(s)); }

/// 16 lower-case hex digits.
std::string hex16(std::uint64_t h);

}  // namespace dpx::core
