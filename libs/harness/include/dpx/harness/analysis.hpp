#pragma once
/// \file
/// From tidy rows to everything a reader looks at: per-cell summaries, log-log rate fits with
/// deterministic bootstrap confidence intervals, Markdown/LaTeX tables (written by C++), figures
/// (rendered by matplotlib through /usr/bin/python3 from the CSVs) and a report.md linking them.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dpx/harness/driver.hpp"
#include "dpx/harness/results.hpp"

namespace dpx::harness {

/// A parameter filter: keep rows whose parameter `name` renders exactly as `value`.
struct row_filter {
  std::string name;
  std::string value;
};

/// One figure of a preset ([[figure]] in TOML).
struct figure_spec {
  std::string name;                 ///< file stem: figures/<name>.pdf/.png
  std::string title;                ///< optional
  std::string x;                    ///< swept parameter on the x axis
  std::string y;                    ///< metric on the y axis
  std::string statistic = "mean";   ///< "mean" or "median" of y per x
  std::vector<std::string> series;  ///< parameters that split curves
  std::vector<row_filter> where;    ///< restrict rows
  bool logx = true;
  bool logy = true;
  std::vector<double> reference_slopes;  ///< dashed reference lines with these log-log slopes
  std::string xlabel, ylabel;            ///< optional axis labels (mathtext allowed)

  // Presentation only (dpx_plot.py; docs/presets.md, [[figure]]): never changes any number.
  /// Display text for a parameter name or a rendered value in legends ("" hides a name).
  std::vector<std::pair<std::string, std::string>> labels;
  /// Series whose value (of the first series parameter) is listed come first, in this order.
  std::vector<std::string> series_order;
  /// Series value -> note, e.g. "broken: negative control": drawn apart and labelled.
  std::vector<std::pair<std::string, std::string>> marked;
  bool deterministic = false;  ///< the metric has no sampling error: no uncertainty band
  /// The metric's possible range (e.g. [0, 1] for F1): bands are clipped to it.
  std::optional<std::pair<double, double>> y_range;
  int max_series = 8;  ///< with more series the figure is split into panels of at most this
  std::string style;   ///< "paper" or "slides"; empty = paper unless `dpx report --style`
};

/// How a rate check decides pass/fail.
enum class rate_check {
  /// The expected slope lies in the slope's bootstrap CI and within the tolerance of the fit
  /// (a statistical claim about a noisy mean).
  ci_and_tolerance,
  /// |fitted - expected| <= tolerance only, the CI still reported: for a metric that is
  /// (mostly) a deterministic function of x, whose CI measures only the small sampling
  /// variation and is narrower than the metric's exact lower-order terms, so containment would
  /// test those terms rather than the rate's exponent. Use with a small tolerance, stated and
  /// justified in the preset (TOML: check = "tolerance").
  tolerance,
};

/// What a rate check tests (TOML: kind).
enum class rate_kind {
  /// The log-log slope of the statistic of y in x equals expected_slope (the default).
  slope,
  /// y is a ratio measured/oracle (or measured/bound): its log-log slope in x is 0, i.e. the
  /// measured quantity follows the predicted curve up to a constant. expected_slope is 0.
  ratio_flat,
  /// y is a ratio measured/bound: the upper end of the bootstrap interval of the statistic of
  /// y is <= bound_constant at every x of the fit range (the bound holds with its constant);
  /// with bound_lower > 0 also its lower end is >= bound_lower (a level check: measured/oracle
  /// in [bound_lower, bound_constant] when the theory gives the constant).
  ratio_bound,
  /// y is an empirical lower bound on epsilon divided by the claimed epsilon (privacy_audit's
  /// bound_ratio): each replication is one audit. The check holds when at every x of the fit
  /// range the largest value over the replications is <= bound_constant (no audit's lower bound
  /// exceeds the claim). No bootstrap: each audit is already a confidence bound, so a correct
  /// target fails a check of A audits with probability <= A (1 - audit confidence).
  audit,
};
/// "slope", "ratio_flat", "ratio_bound" or "audit".
std::string to_string(rate_kind k);

/// What a rate check is expected to show (TOML: expect).
enum class rate_expect {
  /// The claim holds: the check passes on the grid (and its negative control, if any, fails).
  holds,
  /// The claim as published is false: the grid cells are the published form, the check must
  /// FAIL on them, and the control (required) is the positive control (the strict variant, the
  /// corrected formula) that must PASS the same check.
  refuted,
};
/// "holds" or "refuted".
std::string to_string(rate_expect e);

/// The tidy-table parameter column that marks negative-control cells: "" for the preset's own
/// grid, control_label(spec) for the cells of a rate's control (docs/presets.md, "Controls").
inline constexpr const char* control_column = "control";

/// One rate check of a preset ([[rate]] in TOML).
struct rate_spec {
  std::string name;                   ///< identifier in rates.csv; defaults to "<y>_vs_<x>"
  std::string x;                      ///< swept parameter
  std::string y;                      ///< metric
  std::string statistic = "mean";     ///< aggregate of y per x before taking logs
  std::vector<std::string> group_by;  ///< one fit per distinct combination
  std::vector<row_filter> where;      ///< restrict rows
  std::optional<std::pair<double, double>> fit_range;  ///< inclusive x range for the fit
  double expected_slope = 0;
  double tolerance = 0.1;      ///< |fitted - expected| must not exceed this
  bool informational = false;  ///< reported but never gates `dpx run --check`
  rate_check check = rate_check::ci_and_tolerance;
  std::string description;  ///< one line for the tables
  rate_kind kind = rate_kind::slope;
  double bound_constant = 1;        ///< ratio_bound, audit: the largest admissible ratio
  double bound_lower = 0;           ///< ratio_bound: the smallest admissible ratio (0: none)
  std::vector<std::string> claims;  ///< ids of rows of the claims ledger (experiments/claims.toml)
  /// Negative control: parameter overrides defining a variant in which the claimed effect is
  /// absent; the same check runs on the covered cells with these overrides and must fail.
  /// Empty = no control. With expect = refuted: the positive control, which must pass.
  std::map<std::string, param_value> control;
  std::string control_description;  ///< why the check must fail (refuted: pass) on the control
  rate_expect expect = rate_expect::holds;
};

/// The value of the control column for a rate's control cells: its overrides as
/// "name=value, ..." sorted by name ("" when the rate has no control). Rates with equal
/// overrides share their control cells.
std::string control_label(const rate_spec& r);

/// Result of one rate check for one group.
struct rate_result {
  std::string rate;   ///< rate_spec::name
  std::string group;  ///< "epsilon=0.1, mechanism=laplace" ("" if none)
  std::vector<std::pair<std::string, std::string>> group_values;
  double slope = 0, intercept = 0, r2 = 0;  ///< log y = intercept + slope log x (natural logs),
                                            ///< R^2 of that fit; NaN when no fit was made
  double ci_lo = 0, ci_hi = 0;              ///< joint-bootstrap percentile interval of the slope
                                            ///< at ci_level (NaN when no fit)
  double ci_level = 0;  ///< 1 - (1 - options.confidence)/G for a rate with G groups (Bonferroni)
  double expected = 0, tolerance = 0;
  std::size_t points = 0;        ///< x values inside the fit range
  std::size_t replications = 0;  ///< replications present at every x (used in the fit)
  /// The gate: the check holds on its cells (check_pass: expected in [ci_lo, ci_hi] unless
  /// check is tolerance, and |slope - expected| <= tol; for ratio_bound value_hi <= bound and
  /// value_lo >= bound_lower when a lower bound is set; for audit value <= bound) and,
  /// for a grid row of a controlled rate, its control did not pass (control_verdict "fails").
  /// expect = refuted: the check was evaluated and FAILED on the grid (the published form) and
  /// its positive control passed (control_verdict "passes").
  bool pass = false;
  bool informational = false;
  rate_check check = rate_check::ci_and_tolerance;
  std::string note;  ///< why a fit could not be made, if so
  rate_kind kind = rate_kind::slope;
  double bound = 0;  ///< ratio_bound, audit: bound_constant (NaN otherwise)
  /// ratio_bound: largest statistic of y over the x values; audit: largest y over every
  /// replication and x (NaN otherwise)
  double value = 0;
  double value_hi = 0;     ///< ratio_bound: largest upper interval end over the x values (else NaN)
  double bound_lower = 0;  ///< ratio_bound with a lower bound: bound_lower (NaN otherwise)
  double value_lo = 0;     ///< ratio_bound with a lower bound: smallest lower interval end
  std::vector<std::string> claims;  ///< rate_spec::claims
  /// This row is the check evaluated on the rate's control cells (it never gates by itself:
  /// informational is true, and its verdict enters the main row's pass).
  bool control = false;
  std::string control_label;        ///< control_label(spec) ("" when uncontrolled)
  std::string control_description;  ///< rate_spec::control_description
  /// The check on its own cells: for a main row, whether the claim's check held on the grid;
  /// pass additionally requires that the control did not pass.
  bool check_pass = false;
  /// Main rows: "fails" (the control fails the check: the check has power), "passes" (the
  /// control passes too: no power, the gate fails), "missing" (no control cells in the table:
  /// the gate fails), "none" (the rate declares no control: "uncontrolled"). Control rows: "".
  /// expect = refuted: "passes" is required (the positive control), "fails" fails the gate.
  std::string control_verdict;
  rate_expect expect = rate_expect::holds;  ///< rate_spec::expect
  std::size_t audits = 0;  ///< audit: the number of audits (y values) inside the fit range
};

/// Whether the check could be evaluated on the row's cells (a fit or a bound was computed):
/// a refutation needs a check that was evaluated and failed, not one that could not be made.
bool check_evaluated(const rate_result& r);

struct analysis_options {
  std::uint64_t base_seed = 0;  ///< keys the bootstrap streams (deterministic CIs)
  int bootstrap = 2000;         ///< bootstrap resamples
  double confidence = 0.95;
  bool figures = true;  ///< render figures with matplotlib if available
  std::string python = "/usr/bin/python3";
  std::string preset_name;  ///< for titles and report.md
  std::string description;  ///< one paragraph for report.md

  /// Throws core::invalid_argument_error naming the field (bootstrap >= 1, confidence in
  /// (0, 1)); fit_rates calls it.
  void validate() const;
};

/// Fits every rate spec to the tidy rows (failed rows excluded). Replications are resampled
/// jointly across x (the same replication indices for every x), which respects common random
/// numbers; the bootstrap stream is rng::stream(base_seed, stable_hash(rate + group), 0,
/// purpose::bootstrap) (rate + "|control|" + group for control rows).
///
/// When the table has a control column, the main rows are fitted on its "" rows only, and for
/// every rate with a control the same check is fitted on the rows labelled control_label(spec)
/// (where filters on overridden parameters take the override's value). Control rows follow
/// their rate's rows; a main row's pass = check_pass and its control did not pass (the control
/// row of the same group, else every control row of the rate). For expect = refuted:
/// pass = the check was evaluated, check_pass is false and the control passed.
std::vector<rate_result> fit_rates(const tidy_table& t,
                                   const std::vector<rate_spec>& rates,
                                   const analysis_options& options);

/// OLS fit of log y = a + b log x. Returns {a, b, r2}. Needs >= 2 distinct positive x and y.
struct loglog_fit {
  double intercept, slope, r2;
};
loglog_fit fit_loglog(const std::vector<double>& x, const std::vector<double>& y);

/// Checks figure and rate specs against the table's columns before anything runs: x, group_by,
/// series and where name parameters, y names a metric, statistic is "mean" or "median",
/// tolerance >= 0, fit_range lo <= hi, x is not also a group_by/series parameter. Throws
/// std::invalid_argument naming the spec and the valid names.
void validate_specs(const std::vector<figure_spec>& figures,
                    const std::vector<rate_spec>& rates,
                    const std::vector<std::string>& param_names,
                    const std::vector<std::string>& metric_names);

/// Summary statistics of one metric in one cell (a row of summary.csv).
struct summary_stats {
  std::size_t n_reps = 0;               ///< values used: ok rows whose value is not NaN
  std::size_t n_failed = 0;             ///< rows with status "failed"
  double mean = 0, sd = 0, se = 0;      ///< sd with the n-1 denominator; se = sd / sqrt(n)
  double median = 0, q25 = 0, q75 = 0;  ///< type-7 (linear interpolation) quantiles
  double ci_lo = 0, ci_hi = 0;          ///< mean -/+ 1.959964 se (normal 95% CI of the mean)
};
/// Statistics of values (NaN entries are skipped); every statistic is NaN when no value is
/// left, sd/se/ci are NaN with a single value.
summary_stats summarize(const std::vector<double>& values, std::size_t n_failed = 0);
/// Type-7 quantile (Hyndman & Fan 1996; R's default, numpy's "linear") of sorted data,
/// p in [0, 1]. NaN for empty input.
double quantile_sorted(const std::vector<double>& sorted, double p);

/// summary.csv content (long layout, one row per cell x metric; see docs/outputs.md).
std::string summary_csv(const tidy_table& t);
/// rates.csv content.
std::string rates_csv(const std::vector<rate_result>& results);
/// rates.json content: one object per rate_result (docs/outputs.md).
std::string rates_json(const std::vector<rate_result>& results);
/// Reads a rates.json written by rates_json (or by a dpx without controls: then check_pass =
/// pass and control_verdict = "none"). Throws std::invalid_argument naming the file.
std::vector<rate_result> read_rates_json(const std::filesystem::path& path);
/// rates.md content: a Markdown pipe table plus notes.
std::string rates_markdown(const std::vector<rate_result>& results, double confidence = 0.95);
/// rates.tex content: a LaTeX booktabs tabular (needs \usepackage{booktabs}).
std::string rates_latex(const std::vector<rate_result>& results, double confidence = 0.95);

/// Locates dpx_plot.py: $DPX_PLOT_SCRIPT, else <dir of the executable>/../share/dpx/dpx_plot.py
/// (installed layout), else the source tree's libs/harness/python/dpx_plot.py. Empty path if
/// none exists.
std::filesystem::path find_plot_script();

/// Writes summary.csv, rates.csv, rates.json, rates.md, rates.tex, figures/figures.json,
/// figures/<name>.pdf/.png (if enabled and matplotlib is present) and report.md into out_dir,
/// all atomically (docs/outputs.md). Throws std::invalid_argument on bad specs
/// (validate_specs); never throws because plotting failed (report.md says why). Returns the rate
/// results. Sets *figures_rendered (if given) to whether figures were produced, and *figures_note
/// (if given) to why not ("" when they were).
std::vector<rate_result> write_analysis(const tidy_table& t,
                                        const std::vector<figure_spec>& figures,
                                        const std::vector<rate_spec>& rates,
                                        const std::filesystem::path& out_dir,
                                        const analysis_options& options,
                                        bool* figures_rendered = nullptr,
                                        std::string* figures_note = nullptr);

}  // namespace dpx::harness
