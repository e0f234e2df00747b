// dpx: command-line front end. Subcommands register themselves (command.hpp).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.hpp"
#include "dpx/harness/runner.hpp"
#include "strict.hpp"

namespace {
/// The message without a leading "dpx <cmd>: " or "<cmd>: " that repeats `where` (some
/// commands name themselves in their messages; the error line already starts with it).
std::string without_prefix(std::string msg, const std::string& where) {
  for (const std::string& p : {where + ": ", where.substr(where.find(' ') + 1) + ": "}) {
    if (where != "dpx" && msg.rfind(p, 0) == 0) return msg.substr(p.size());
  }
  return msg;
}

/// The one place error lines are written: "dpx <cmd>: error: <message>", the message reduced to
/// one line of bounded length (strict.hpp one_line_message), then the exit code.
int report(const std::string& where, const std::string& msg, int code) {
  std::cerr << where << ": error: " << dpx::cli::one_line_message(without_prefix(msg, where))
            << "\n";
  return code;
}
}  // namespace

int main(int argc, char** argv) {
  // Replications are the unit of parallelism: BLAS must stay single-threaded inside them
  // (reproducible reductions, no oversubscription). Set before OpenBLAS initialises.
  // The variable reaches child processes (numpy under matplotlib); OpenBLAS itself read it when
  // it was loaded, before main, so it is also pinned through its API.
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  dpx::harness::single_threaded_blas();

  CLI::App app{
      "dpx: differential privacy for optimization and statistics, with a reproducible "
      "experiment harness.",
      "dpx"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("dpx ") + DPX_VERSION);

  std::map<CLI::App*, dpx::cli::action> actions;
  dpx::cli::add_commands(app, actions);  // every subcommand, with strict flags (strict.hpp)

  std::string where = "dpx";
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      const CLI::App* chosen = nullptr;
      for (auto* sub : app.get_subcommands()) {
        where = "dpx " + sub->get_name();
        chosen = sub;
      }
      std::vector<std::string> args(argv + 1, argv + argc);
      return report(where,
                    std::string(e.what()) + dpx::cli::did_you_mean(app, chosen, args),
                    dpx::cli::exit_usage);
    }
    for (auto* sub : app.get_subcommands()) {
      where = "dpx " + sub->get_name();
      return actions.at(sub)();
    }
    return dpx::cli::exit_usage;
  } catch (const std::invalid_argument& e) {
    return report(where, e.what(), dpx::cli::exit_usage);
  } catch (const std::bad_array_new_length&) {
    return report(where,
                  "a size or count given on the command line or in the input is too large",
                  dpx::cli::exit_usage);
  } catch (const std::bad_alloc&) {
    return report(where,
                  "out of memory: a size or count given on the command line or in the input is "
                  "too large",
                  dpx::cli::exit_usage);
  } catch (const std::length_error&) {
    return report(where,
                  "a size or count given on the command line or in the input is too large",
                  dpx::cli::exit_usage);
  } catch (const std::filesystem::filesystem_error& e) {
    // std's text ("filesystem error: ...") names the call; say what failed on which path.
    std::string msg = "cannot use '" + e.path1().string() + "': " + e.code().message();
    return report(where, msg, dpx::cli::exit_usage);
  } catch (const std::exception& e) {
    return report(where, e.what(), dpx::cli::exit_failure);
  }
}
