#pragma once
// Internals shared by the analysis files (analysis_*.cpp): formatting, filters, aggregates and
// the subprocess runner used for figures. Not installed.

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "dpx/harness/analysis.hpp"
#include "dpx/harness/results.hpp"

namespace dpx::harness::analysis_internal {

inline constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

std::string join(const std::vector<std::string>& v, const std::string& sep);

/// Parses a whole string as a double (no surrounding junk).
bool parse_number(const std::string& s, double& out);

/// Numeric-aware ordering of rendered parameter values: numbers (numerically) before other
/// strings (lexicographically); ties between equal numbers broken by the text.
bool value_less(const std::string& a, const std::string& b);

struct values_less {
  bool operator()(const std::vector<std::string>& a, const std::vector<std::string>& b) const;
};

/// The rate's name, defaulting to "<y>_vs_<x>".
std::string rate_name(const rate_spec& r);

/// Parameter filters resolved to column indices.
using resolved_filters = std::vector<std::pair<std::size_t, std::string>>;
resolved_filters resolve_filters(const tidy_table& t, const std::vector<row_filter>& where);
/// Does the row pass every filter?
bool row_matches(const tidy_row& row, const resolved_filters& filters);

/// The rows of t whose control column (control_column) equals label, without that column:
/// label "" gives the preset's own grid. A table without the column is all grid.
tidy_table rows_with_control(const tidy_table& t, const std::string& label);

// ---- statistics helpers (analysis_stats.cpp) ----
double mean_of(const std::vector<double>& v);
/// Median of v (reorders v): exact selection, equal to the type-7 quantile at 1/2.
double median_inplace(std::vector<double>& v);
/// Mean, or median (using scratch) of v.
double aggregate(const std::vector<double>& v, bool median, std::vector<double>& scratch);

// ---- escaping and number formatting (analysis_escape.cpp) ----
/// Fixed-point rendering for human tables ("%.*f"); "n/a" for NaN.
std::string fixed(double x, int digits);
/// 6 significant digits, no trailing zeros ("0.05", not "0.050000000000000044").
std::string short_number(double v);
/// One substitution of a character escaper: the character `from` becomes the text `to`.
struct char_escape {
  char from;
  const char* to;
};
/// s with every character listed in table replaced by its text (the others copied): the one
/// home of the LaTeX, Markdown and HTML escapers.
std::string escape_chars(const std::string& s, std::initializer_list<char_escape> table);
/// LaTeX text: the ten special characters and <, >, | as commands.
std::string latex_escape(const std::string& s);
/// Markdown table cells: pipes escaped, line breaks removed.
std::string md_escape(const std::string& s);
/// "$x$" with fixed digits, "--" for NaN.
std::string latex_num(double x, int digits);

// ---- subprocesses (analysis_process.cpp) ----
/// Runs argv with stdin from /dev/null and stdout+stderr appended to log (or /dev/null when
/// empty). Returns the exit status (127 when it could not be started; 128+signal if killed).
int run_process(const std::vector<std::string>& argv, const std::string& log, std::string* error);
/// The last max_lines non-empty lines of a file joined by " / ".
std::string tail_of_file(const std::filesystem::path& p, std::size_t max_lines);

// ---- figures (analysis_figures.cpp) ----
/// Writes figures/figures.json (when there are figures) and renders them with dpx_plot.py.
/// Returns whether they were rendered; *status says why not ("" when they were).
bool render_figures(const std::vector<figure_spec>& figures,
                    const std::vector<rate_spec>& rates,
                    const std::vector<rate_result>& results,
                    const std::filesystem::path& out_dir,
                    const analysis_options& options,
                    std::string* status);

}  // namespace dpx::harness::analysis_internal
