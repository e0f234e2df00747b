// libFuzzer target: argument parsing of every dpx subcommand (CLI11 plus the strict flag checks
// of apps/dpx/strict.hpp), without running the commands. The input is a NUL-separated argument
// list. A parse either succeeds or throws CLI::ParseError; the error line main.cpp would print
// (one_line_message) is one line without control bytes and of bounded length.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "command.hpp"
#include "strict.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args;
  std::string cur;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += static_cast<char>(data[i]);
    }
  }
  args.push_back(cur);
  if (args.size() > 64) return 0;
  CLI::App app{"dpx", "dpx"};
  app.require_subcommand(1);
  std::map<CLI::App*, dpx::cli::action> actions;
  dpx::cli::add_commands(app, actions);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them reversed
  std::string message;
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    message = e.what();
  }
  const std::string line = dpx::cli::one_line_message(message);
  if (line.size() > dpx::cli::max_message_bytes + 3) std::abort();
  for (char c : line) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) std::abort();
  }
  return 0;
}
