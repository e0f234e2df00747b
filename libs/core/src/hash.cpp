#include "dpx/core/hash.hpp"

namespace dpx::core {

std::string hex16(std::uint64_t h) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[static_cast<std::size_t>(i)] = digits[h & 0xf];
    h >>= 4;
  }
  return s;
}

}  // namespace dpx::core
