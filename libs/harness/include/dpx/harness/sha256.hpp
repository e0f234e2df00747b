#pragma once
/// \file
/// SHA-256 (FIPS 180-4) for provenance hashes in manifests (the preset file's digest). Small
/// and dependency-free; not constant-time and not meant for secrets.

#include <string>
#include <string_view>

namespace dpx::harness::detail {

/// Lower-case hex SHA-256 digest of the bytes of s (FIPS 180-4, section 6.2).
std::string sha256_hex(std::string_view s);

}  // namespace dpx::harness::detail
