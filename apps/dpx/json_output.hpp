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

/// The stderr line of a command whose noise comes from --seed (the output's "seeded": true says
/// the same). Philox keyed by a seed is reproducible: whoever knows or guesses the seed
/// recomputes the noise and subtracts it, so no epsilon protects such an output.
inline void warn_seeded(const char* command) {
  std::cerr << "dpx " << command
            << ": warning: --seed: seeded, reproducible noise; anyone who knows the seed can "
               "remove it, so this is NOT a private release (experiments and checks only)\n";
}

}  // namespace dpx::cli
