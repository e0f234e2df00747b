// The subcommand registry and the CLI11 application's subcommands (shared by main.cpp and the
// command-line fuzz target tests/fuzz/fuzz_cli.cpp).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "command.hpp"
#include "strict.hpp"

namespace dpx::cli {

namespace {
std::vector<command>& registry() {
  static std::vector<command> r;
  return r;
}
}  // namespace

bool register_command(std::string name, std::string description, setup_fn setup) {
  registry().push_back({std::move(name), std::move(description), std::move(setup)});
  return true;
}

const std::vector<command>& commands() { return registry(); }

void add_commands(CLI::App& app, std::map<CLI::App*, action>& actions) {
  auto cmds = commands();
  std::sort(cmds.begin(), cmds.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const auto& c : cmds) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    actions[sub] = c.setup(*sub);
  }
  harden(app);  // strict values for every flag of every subcommand
}

}  // namespace dpx::cli
