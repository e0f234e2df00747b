#pragma once
// One JSON shape per command (docs/cli.md, "JSON output"; the shapes are in docs/cli-schema.json,
// which tests/integration/json_schema_cli_test.cpp checks every command's output against):
//  * the first key is "schema_version", an integer the command raises when it changes a key's
//    name, type or meaning (adding a key does not raise it);
//  * one compact line by default, indented with --pretty;
//  * numbers are finite (print_json, strict.hpp).
#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "dpx/core/output_contract.hpp"
#include "strict.hpp"

namespace dpx::cli {

/// Whether --pretty was given (one subcommand runs per process).
inline bool& pretty_json() {
  static bool pretty = false;
  return pretty;
}

/// Adds --pretty to a subcommand that prints JSON.
inline void add_pretty_flag(CLI::App& sub) {
  pretty_json() = false;
  sub.add_flag_callback(
      "--pretty", [] { pretty_json() = true; }, "Indented JSON (default: one compact line)");
}

/// Prints j (compact, or indented with --pretty) after print_json's finite check.
template <class Json>
void emit_json(const Json& j) {
  print_json(j, pretty_json() ? 2 : -1);
}

/// The JSON answer of a private command, assembled through the output contract
/// (dpx/core/output_contract.hpp): put() takes a release or a public input, diagnostic() a
/// non-private diagnostic, which is kept only when the user asked for it
/// (--nonprivate-diagnostics) and then printed inside "nonprivate_diagnostics", whose "note"
/// says it is not covered. A key the table does not classify, or classifies otherwise, is a
/// programming error (std::logic_error): nothing unclassified is ever printed.
class contract_json {
 public:
  contract_json(std::string_view surface, bool diagnostics)
      : surface_(surface), diagnostics_(diagnostics) {}

  template <class V>
  void put(const std::string& key, V&& value) {
    if (check(key) == dpx::core::output_class::nonprivate_diagnostic)
      throw std::logic_error(std::string(surface_) + ": '" + key + "' is a diagnostic");
    j_[key] = std::forward<V>(value);
  }

  template <class V>
  void diagnostic(const std::string& key, V&& value) {
    if (check("nonprivate_diagnostics." + key) != dpx::core::output_class::nonprivate_diagnostic)
      throw std::logic_error(std::string(surface_) + ": '" + key + "' is not a diagnostic");
    if (diagnostics_) d_[key] = std::forward<V>(value);
  }

  /// The answer: the releases and public inputs, then (when asked for) the diagnostics.
  nlohmann::ordered_json json() const {
    nlohmann::ordered_json out = j_;
    if (diagnostics_) {
      nlohmann::ordered_json d;
      d["note"] =
          "NOT private: computed from the data without noise and NOT covered by the printed "
          "guarantee (asked for with --nonprivate-diagnostics); never publish these";
      d.update(d_);
      out["nonprivate_diagnostics"] = d;
    }
    return out;
  }

 private:
  dpx::core::output_class check(const std::string& key) const {
    if (!dpx::core::is_classified(surface_, key))
      throw std::logic_error(std::string(surface_) + ": output field '" + key +
                             "' is not in the output contract");
    return dpx::core::classify(surface_, key);
  }

  std::string_view surface_;
  bool diagnostics_;
  nlohmann::ordered_json j_ = nlohmann::ordered_json::object(),
                         d_ = nlohmann::ordered_json::object();
};

/// The stderr line of a command whose noise comes from --seed (the output's "seeded": true says
/// the same). Philox keyed by a seed is reproducible: whoever knows or guesses the seed
/// recomputes the noise and subtracts it, so no epsilon protects such an output.
inline void warn_seeded(const char* command) {
  std::cerr << "dpx " << command
            << ": warning: --seed: seeded, reproducible noise; anyone who knows the seed can "
               "remove it, so this is NOT a private release (experiments and checks only)\n";
}

}  // namespace dpx::cli
