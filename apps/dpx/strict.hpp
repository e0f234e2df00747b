#pragma once
// Shared input and output rules of every dpx subcommand (docs/cli.md, "Input and output rules").
//
//  * Strict flags: harden(app) gives every option of every subcommand a check that runs before
//    CLI11 converts the value: an empty string, a control byte (newline, tab, ...) or a value
//    longer than max_value_bytes is an error; an integer option takes only plain decimal digits
//    (with '-' for signed ones) inside the range of a 64-bit integer — no saturation, no
//    wrap-around of "-1" into an unsigned; a floating-point option takes one finite decimal
//    number ("nan", "inf" and overflowing values such as "1e999" are errors). Errors name the
//    flag, never repeat its value, and exit 2.
//  * Bounds on work: the limits below turn impossible requests into errors instead of hangs.
//  * Finite output: print_json() refuses a non-finite number anywhere in a command's JSON answer
//    (nlohmann would print it as null); "epsilon" = +inf is the one documented exception, printed
//    as the string "inf" next to "epsilon_note" saying why (an infinite epsilon is a valid, if
//    useless, upper bound: composition overflowed the largest double).
//  * Messages: one_line_message() is the rule main.cpp applies to every error line.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "dpx/core/csv.hpp"

namespace dpx::cli {

/// Longest accepted option value in bytes (paths, names, numbers).
inline constexpr std::size_t max_value_bytes = 4096;
/// Longest error line (bytes, before the "dpx <cmd>: error: " prefix).
inline constexpr std::size_t max_message_bytes = 1000;
/// Iteration budget bound of the solvers (`dpx fit --max-iter`).
inline constexpr std::int64_t max_iterations = 10'000'000;
/// Most trials per input of `dpx audit --trials` (two arrays of doubles each: ~160 MB).
inline constexpr std::int64_t max_audit_trials = 10'000'000;
/// Most draws `dpx sample --count` prints (about 250 MB of text).
inline constexpr std::int64_t max_sample_count = 10'000'000;

/// --max-input-bytes and --max-rows of a command reading a CSV --input (docs/cli.md, "Input
/// bounds"): they set limits (defaults dpx::core::default_max_input_bytes / _rows) and name
/// themselves in the reader's messages.
void add_input_limit_options(CLI::App& sub, dpx::core::csv_limits& limits);

/// Installs the strict option checks on every option of app's subcommands (recursively).
void harden(CLI::App& app);

/// Strict parsers for values read outside CLI11 (same rules as harden's checks). They return an
/// empty string on success, else the reason (without the value).
std::string check_integer_text(std::string_view s, bool is_unsigned);
std::string check_number_text(std::string_view s);
std::string check_plain_text(std::string_view s);

/// Throws std::invalid_argument naming flag if value > bound ("<flag> must be <= bound (why)").
void check_bound(const char* flag, std::int64_t value, std::int64_t bound, const char* why);

/// An output directory flag: empty means "not given"; otherwise the path must not exist yet or
/// be a directory (e.g. `--out /etc/passwd` is refused before anything runs).
void check_output_dir(const char* flag, const std::string& path);
/// An input directory flag: the path must be an existing directory.
void check_input_dir(const char* flag, const std::string& path);

/// " (did you mean 'fit'?)" for a mistyped subcommand, or " (did you mean --lambda?)" for a
/// mistyped flag of the chosen subcommand (edit distance <= 2); "" when nothing is close.
std::string did_you_mean(const CLI::App& app,
                         const CLI::App* chosen,
                         const std::vector<std::string>& args);

/// The message as one line of at most max_message_bytes bytes: control bytes and invalid
/// bytes become '?', runs of whitespace collapse, a longer message is cut and ends in "...".
std::string one_line_message(std::string_view msg);

/// Writes j (one line, or indented) to stdout after checking every number is finite; see above.
/// Throws std::invalid_argument naming the first non-finite field.
void print_json(const nlohmann::ordered_json& j, int indent = -1);
void print_json(const nlohmann::json& j, int indent = -1);

}  // namespace dpx::cli
