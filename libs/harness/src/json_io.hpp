#pragma once
// JSON helpers shared by the harness sources (manifest, runner, report, scale).

#include <filesystem>
#include <optional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "dpx/harness/driver.hpp"
#include "internal.hpp"

namespace dpx::harness::detail {

/// A parameter value as JSON: integer, double, string or bool as held.
inline nlohmann::ordered_json param_json(const param_value& v) {
  return std::visit([](const auto& x) { return nlohmann::ordered_json(x); }, v);
}

/// The parsed JSON file, or nullopt when it is absent, empty or malformed.
inline std::optional<nlohmann::ordered_json> read_json_file(const std::filesystem::path& path) {
  const std::string text = read_text(path);
  if (text.empty()) return std::nullopt;
  auto j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

}  // namespace dpx::harness::detail
