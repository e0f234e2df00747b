// libFuzzer target: the preset parser and grid expansion (docs/presets.md). Any text either
// gives a preset whose grid expands, or is rejected with a std::invalid_argument (preset_error);
// anything else escaping (or a crash, a sanitizer report, a hang) is a failure.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "dpx/harness/preset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto p = dpx::harness::parse_preset(text, "fuzz.toml", size % 2 == 1);
    (void)dpx::harness::expand_grid(p);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
