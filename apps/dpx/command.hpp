#pragma once
// Subcommand registry of the dpx tool. Each subcommand lives in its own cmd_<name>.cpp and
// registers itself at static-initialisation time:
//
//   static const bool registered = dpx::cli::register_command(
//       "sample", "Print noise draws from a mechanism", [](CLI::App& sub) {
//         auto opts = std::make_shared<sample_options>();
//         sub.add_option("--count", opts->count, "...")->required();
//         return [opts]() -> int { ...; return 0; };   // runs after a successful parse
//       });
//
// Error policy (main.cpp): a std::invalid_argument escaping an action (or a CLI11 parse error)
// prints one line "dpx <command>: error: <message>" to stderr and exits 2; any other exception
// prints one line and exits 1. Actions print results to stdout only on success.

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dpx::cli {

using action = std::function<int()>;
using setup_fn = std::function<action(CLI::App& sub)>;

struct command {
  std::string name;
  std::string description;
  setup_fn setup;
};

bool register_command(std::string name, std::string description, setup_fn setup);
const std::vector<command>& commands();
/// Adds every registered command to app (sorted by name), their actions to `actions`, and the
/// strict flag checks (strict.hpp).
void add_commands(CLI::App& app, std::map<CLI::App*, action>& actions);

/// Exit codes.
inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;  // e.g. a failed rate check with --check, failed rows
inline constexpr int exit_usage = 2;    // bad flags or bad input
inline constexpr int exit_interrupted = 130;

}  // namespace dpx::cli
