#pragma once
// Internals shared by the preset files (preset.cpp: parse_preset / load_preset;
// preset_values.cpp: TOML accessors and parameter values; preset_specs.cpp: [[figure]] and
// [[rate]] tables; preset_discovery.cpp: finding presets). Not installed.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "dpx/harness/preset.hpp"

namespace dpx::harness::preset_parse {

namespace fs = std::filesystem;

/// Where a value came from (file:line:column or "--set <key>") and the driver being checked;
/// every error names its source.
struct ctx {
  std::string file;
  const driver* drv = nullptr;

  std::string loc(const toml::source_region& s) const {
    // A value from a command-line override carries the source "--set <key>".
    if (s.path && s.path->rfind("--set ", 0) == 0) return *s.path;
    return file + ":" + std::to_string(s.begin.line) + ":" + std::to_string(s.begin.column);
  }
  [[noreturn]] void fail(const toml::source_region& s, const std::string& msg) const {
    throw preset_error(loc(s) + ": " + msg);
  }
  [[noreturn]] void fail(const toml::node& n, const std::string& msg) const {
    fail(n.source(), msg);
  }
  [[noreturn]] void fail_file(const std::string& msg) const {
    throw preset_error(file + ": " + msg);
  }
};

std::string join(const std::vector<std::string>& v, const std::string& sep = ", ");
std::string type_name(const toml::node& n);
/// Rejects keys of tbl outside allowed; the message names the key, the table and the valid keys.
void check_keys(const ctx& c,
                const toml::table& tbl,
                const std::vector<std::string>& allowed,
                const std::string& where);
const toml::table& as_table(const ctx& c, const toml::node& n, const std::string& what);
std::string get_string(const ctx& c, const toml::node& n, const std::string& what);
std::int64_t get_int(const ctx& c, const toml::node& n, const std::string& what);
double get_number(const ctx& c, const toml::node& n, const std::string& what);
bool get_bool(const ctx& c, const toml::node& n, const std::string& what);
/// A string or an array of strings.
std::vector<std::string> get_string_list(const ctx& c,
                                         const toml::node& n,
                                         const std::string& what);

const param_decl* find_decl(const driver& d, const std::string& name);
std::vector<std::string> param_names(const driver& d);
/// Checks that name is a declared parameter of the driver.
void check_param(const ctx& c,
                 const toml::source_region& where,
                 const std::string& name,
                 const std::string& context);
/// Converts v to the type of the declared default (ints become doubles for double parameters,
/// integral doubles become ints for integer parameters); throws on incompatible types.
param_value coerce(const ctx& c,
                   const toml::source_region& where,
                   const std::string& name,
                   param_value v);
/// A TOML scalar as a parameter value.
param_value scalar(const ctx& c, const toml::node& n, const std::string& name);
/// A [grid] entry: a list, a geometric/linear range table, or a scalar (one value).
std::vector<param_value> axis_values(const ctx& c, const toml::node& n, const std::string& name);
std::vector<row_filter> parse_where(const ctx& c, const toml::node& n, const std::string& what);
void check_metric(const ctx& c,
                  const toml::node& n,
                  const std::string& name,
                  const std::string& what);
void check_statistic(const ctx& c, const toml::node& n, const std::string& s);

/// One [[figure]] / [[rate]] table (index counts from 0; messages count from 1).
figure_spec parse_figure(const ctx& c, const toml::table& t, std::size_t index);
rate_spec parse_rate(const ctx& c, const toml::table& t, std::size_t index);

/// Experiment names: [A-Za-z0-9_.-]+, not "." or "..".
bool valid_name(const std::string& s);
/// The whole preset file; preset_error when it cannot be read.
std::string read_file(const fs::path& path);

}  // namespace dpx::harness::preset_parse
