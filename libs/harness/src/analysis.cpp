// Analysis of the tidy table: per-cell summaries, log-log rate fits with a deterministic joint
// bootstrap, Markdown/LaTeX/CSV tables, figures through matplotlib, and report.md.
// Output formats are documented in docs/outputs.md.
#include "dpx/harness/analysis.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "dpx/core/error.hpp"
#include "dpx/core/hash.hpp"
#include "dpx/core/rng.hpp"
#include "figure_style.hpp"

namespace dpx::harness {

namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
/// Standard normal 0.975 quantile: the 95% normal interval of the mean in summary.csv.
constexpr double z975 = 1.959963984540054;

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

/// Parses a whole string as a double (no surrounding junk).
bool parse_number(const std::string& s, double& out) {
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

/// Numeric-aware ordering of rendered parameter values: numbers (numerically) before other
/// strings (lexicographically); ties between equal numbers broken by the text.
bool value_less(const std::string& a, const std::string& b) {
  double x = 0, y = 0;
  const bool na = parse_number(a, x), nb = parse_number(b, y);
  if (na && nb) {
    if (x != y) return x < y;
    return a < b;
  }
  if (na != nb) return na;
  return a < b;
}

struct values_less {
  bool operator()(const std::vector<std::string>& a, const std::vector<std::string>& b) const {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (value_less(a[i], b[i])) return true;
      if (value_less(b[i], a[i])) return false;
    }
    return a.size() < b.size();
  }
};

void check_statistic(const std::string& where, const std::string& statistic) {
  if (statistic != "mean" && statistic != "median") {
    throw core::invalid_argument_error(where, "statistic", statistic, "must be mean or median");
  }
}

void check_param(const std::string& where,
                 const std::string& field,
                 const std::string& name,
                 const std::vector<std::string>& params) {
  if (std::find(params.begin(), params.end(), name) == params.end()) {
    throw core::invalid_argument_error(
        where, field, name, "is not a parameter of the experiment; have: " + join(params, ", "));
  }
}

void check_metric(const std::string& where,
                  const std::string& field,
                  const std::string& name,
                  const std::vector<std::string>& metrics) {
  if (std::find(metrics.begin(), metrics.end(), name) == metrics.end()) {
    throw core::invalid_argument_error(
        where, field, name, "is not a metric of the driver; have: " + join(metrics, ", "));
  }
}

std::string rate_name(const rate_spec& r) { return r.name.empty() ? r.y + "_vs_" + r.x : r.name; }

/// Does the row pass every filter? (filter indices resolved beforehand)
bool row_matches(const tidy_row& row,
                 const std::vector<std::pair<std::size_t, std::string>>& filters) {
  for (const auto& [i, v] : filters) {
    if (row.params[i] != v) return false;
  }
  return true;
}

std::vector<std::pair<std::size_t, std::string>> resolve_filters(
    const tidy_table& t, const std::vector<row_filter>& where) {
  std::vector<std::pair<std::size_t, std::string>> out;
  out.reserve(where.size());
  for (const auto& f : where) out.emplace_back(t.param_index(f.name), f.value);
  return out;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x;
  return s / static_cast<double>(v.size());
}

/// Median of v (reorders v): exact selection, equal to the type-7 quantile at 1/2.
double median_inplace(std::vector<double>& v) {
  const std::size_t n = v.size();
  const std::size_t h = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h), v.end());
  const double upper = v[h];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h));
  return lower + 0.5 * (upper - lower);
}

double aggregate(const std::vector<double>& v, bool median, std::vector<double>& scratch) {
  if (!median) return mean_of(v);
  scratch = v;
  return median_inplace(scratch);
}

/// Fixed-point rendering for human tables ("%.*f"); "n/a" for NaN.
std::string fixed(double x, int digits) {
  if (std::isnan(x)) return "n/a";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  std::string s = buf;
  if (s.find_first_not_of("-0.") == std::string::npos && s[0] == '-') s.erase(0, 1);  // no "-0.000"
  return s;
}

/// 6 significant digits, no trailing zeros ("0.05", not "0.050000000000000044").
std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string verdict(const rate_result& r) {
  if (r.informational) return r.pass ? "info (pass)" : "info (fail)";
  return r.pass ? "pass" : "FAIL";
}

std::string latex_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '\\':
        out += "\\textbackslash{}";
        break;
      case '&':
        out += "\\&";
        break;
      case '%':
        out += "\\%";
        break;
      case '$':
        out += "\\$";
        break;
      case '#':
        out += "\\#";
        break;
      case '_':
        out += "\\_";
        break;
      case '{':
        out += "\\{";
        break;
      case '}':
        out += "\\}";
        break;
      case '~':
        out += "\\textasciitilde{}";
        break;
      case '^':
        out += "\\textasciicircum{}";
        break;
      case '<':
        out += "\\textless{}";
        break;
      case '>':
        out += "\\textgreater{}";
        break;
      case '|':
        out += "\\textbar{}";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// Markdown table cells: pipes escaped, line breaks removed.
std::string md_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string latex_num(double x, int digits) {
  if (std::isnan(x)) return "--";
  return "$" + fixed(x, digits) + "$";
}

// ---- subprocesses --------------------------------------------------------------------------

/// Runs argv with stdin from /dev/null and stdout+stderr appended to log (or /dev/null when
/// empty). Returns the exit status (127 when it could not be started; 128+signal if killed).
int run_process(const std::vector<std::string>& argv, const std::string& log, std::string* error) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  const std::string out = log.empty() ? std::string("/dev/null") : log;
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  // posix_spawnp: a bare interpreter name ("python3") is looked up in PATH.
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    if (error) *error = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return 127;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      if (error) *error = std::string("waitpid failed: ") + std::strerror(errno);
      return 127;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 127;
}

std::string tail_of_file(const std::filesystem::path& p, std::size_t max_lines) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  const std::size_t from = lines.size() > max_lines ? lines.size() - max_lines : 0;
  std::string s;
  for (std::size_t i = from; i < lines.size(); ++i) s += (s.empty() ? "" : " / ") + lines[i];
  return s;
}

}  // namespace

// ---- statistics ----------------------------------------------------------------------------

double quantile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return nan_v;
  if (!(p >= 0 && p <= 1)) core::throw_invalid("quantile_sorted", "p", p, "must lie in [0, 1]");
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = h - static_cast<double>(lo);
  if (frac == 0) return sorted[lo];
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

summary_stats summarize(const std::vector<double>& values, std::size_t n_failed) {
  std::vector<double> v;
  v.reserve(values.size());
  for (const double x : values) {
    if (!std::isnan(x)) v.push_back(x);
  }
  summary_stats s;
  s.n_reps = v.size();
  s.n_failed = n_failed;
  if (v.empty()) {
    s.mean = s.sd = s.se = s.median = s.q25 = s.q75 = s.ci_lo = s.ci_hi = nan_v;
    return s;
  }
  const double n = static_cast<double>(v.size());
  s.mean = mean_of(v);
  if (v.size() >= 2) {
    double ss = 0;
    for (const double x : v) ss += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(ss / (n - 1));
    s.se = s.sd / std::sqrt(n);
    s.ci_lo = s.mean - z975 * s.se;
    s.ci_hi = s.mean + z975 * s.se;
  } else {
    s.sd = s.se = s.ci_lo = s.ci_hi = nan_v;
  }
  std::sort(v.begin(), v.end());
  s.median = quantile_sorted(v, 0.5);
  s.q25 = quantile_sorted(v, 0.25);
  s.q75 = quantile_sorted(v, 0.75);
  return s;
}

loglog_fit fit_loglog(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) {
    throw core::invalid_argument_error(
        "fit_loglog",
        "y",
        std::to_string(y.size()) + " values",
        "must have as many values as x (" + std::to_string(x.size()) + ")");
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(std::isfinite(x[i]) && x[i] > 0)) {
      core::throw_invalid(
          "fit_loglog", "x[" + std::to_string(i) + "]", x[i], "must be finite and > 0");
    }
    if (!(std::isfinite(y[i]) && y[i] > 0)) {
      core::throw_invalid(
          "fit_loglog", "y[" + std::to_string(i) + "]", y[i], "must be finite and > 0");
    }
  }
  const std::size_t n = x.size();
  std::vector<double> lx(n), ly(n);
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    lx[i] = std::log(x[i]);
    ly[i] = std::log(y[i]);
    mx += lx[i];
    my += ly[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = lx[i] - mx, dy = ly[i] - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (n < 2 || !(sxx > 0)) {
    throw core::invalid_argument_error(
        "fit_loglog", "x", std::to_string(n) + " points", "needs at least 2 distinct values");
  }
  const double b = sxy / sxx;
  // R^2 = 1 - SSres/SStot = sxy^2 / (sxx syy); a constant y (syy = 0) is fitted exactly.
  const double r2 = syy > 0 ? std::min(1.0, sxy * sxy / (sxx * syy)) : 1.0;
  return {my - b * mx, b, r2};
}

// ---- validation ----------------------------------------------------------------------------

void validate_specs(const std::vector<figure_spec>& figures,
                    const std::vector<rate_spec>& rates,
                    const std::vector<std::string>& params,
                    const std::vector<std::string>& metrics) {
  std::set<std::string> names;
  for (const auto& f : figures) {
    const std::string where = "figure '" + f.name + "'";
    if (f.name.empty() || f.name.find_first_of("/\\") != std::string::npos) {
      throw core::invalid_argument_error(
          "figure", "name", f.name, "must be a non-empty file stem without slashes");
    }
    if (!names.insert(f.name).second) {
      throw core::invalid_argument_error("figure", "name", f.name, "is declared twice");
    }
    check_param(where, "x", f.x, params);
    check_metric(where, "y", f.y, metrics);
    check_statistic(where, f.statistic);
    for (const auto& s : f.series) {
      check_param(where, "series", s, params);
      if (s == f.x) throw core::invalid_argument_error(where, "series", s, "must differ from x");
    }
    for (const auto& w : f.where) check_param(where, "where", w.name, params);
    for (const double k : f.reference_slopes) core::check_finite(where, "reference_slopes", k);
  }
  std::set<std::string> rate_names;
  for (const auto& r : rates) {
    const std::string name = rate_name(r);
    const std::string where = "rate '" + name + "'";
    if (!rate_names.insert(name).second) {
      throw core::invalid_argument_error("rate", "name", name, "is declared twice");
    }
    check_param(where, "x", r.x, params);
    check_metric(where, "y", r.y, metrics);
    check_statistic(where, r.statistic);
    for (const auto& g : r.group_by) {
      check_param(where, "group_by", g, params);
      if (g == r.x) throw core::invalid_argument_error(where, "group_by", g, "must differ from x");
    }
    for (const auto& w : r.where) check_param(where, "where", w.name, params);
    core::check_finite(where, "expected_slope", r.expected_slope);
    core::check_nonnegative(where, "tolerance", r.tolerance);
    if (r.fit_range) {
      if (std::isnan(r.fit_range->first) || std::isnan(r.fit_range->second) ||
          r.fit_range->first > r.fit_range->second) {
        throw core::invalid_argument_error(where,
                                           "fit_range",
                                           "[" + format_number(r.fit_range->first) + ", " +
                                               format_number(r.fit_range->second) + "]",
                                           "must satisfy lo <= hi");
      }
    }
  }
}

// ---- rate fits -----------------------------------------------------------------------------

namespace {

struct x_point {
  double x = 0;
  std::map<std::uint32_t, double> by_rep;  ///< replication -> y (ok rows, y not NaN)
  std::set<std::string> cells;
};

/// Fits one group; fills slope, intercept, r2, CI, points, replications, pass, note.
void fit_group(const rate_spec& spec,
               const std::map<double, x_point>& points,
               const analysis_options& options,
               rate_result& res) {
  res.slope = res.intercept = res.r2 = res.ci_lo = res.ci_hi = nan_v;
  res.pass = false;
  std::vector<const x_point*> in;
  for (const auto& [x, p] : points) {
    if (spec.fit_range && (x < spec.fit_range->first || x > spec.fit_range->second)) continue;
    in.push_back(&p);
  }
  res.points = in.size();
  for (const x_point* p : in) {
    if (p->cells.size() > 1) {
      res.note = "x = " + format_number(p->x) + " matches " + std::to_string(p->cells.size()) +
                 " cells; add the parameters that differ to group_by or where";
      return;
    }
  }
  if (in.size() < 3) {
    res.note = "only " + std::to_string(in.size()) +
               " x values inside the fit range (need >= 3; >= 5 log-spaced recommended)";
    return;
  }
  // Replications present at every x (rows are matched by rep).
  std::vector<std::uint32_t> reps;
  for (const auto& [rep, _] : in.front()->by_rep) {
    bool everywhere = true;
    for (const x_point* p : in) everywhere = everywhere && p->by_rep.count(rep) != 0;
    if (everywhere) reps.push_back(rep);
  }
  std::size_t max_reps = 0;
  for (const x_point* p : in) max_reps = std::max(max_reps, p->by_rep.size());
  res.replications = reps.size();
  if (reps.empty()) {
    res.note = "no replication is present (ok, y not NaN) at every x";
    return;
  }
  std::string note;
  // One replication: a deterministic quantity (e.g. an accountant's epsilon). Resampling it is
  // the identity, so the interval has zero width and the check reduces to the tolerance.
  if (reps.size() == 1) note = "one replication: deterministic values, zero-width interval";
  if (reps.size() < max_reps) {
    note = std::to_string(max_reps - reps.size()) + " replications missing at some x were left out";
  }
  const std::size_t m = reps.size();
  const std::size_t np = in.size();
  const bool median = spec.statistic == "median";
  std::vector<std::vector<double>> v(np, std::vector<double>(m));
  std::vector<double> xs(np), agg(np), scratch;
  for (std::size_t p = 0; p < np; ++p) {
    xs[p] = in[p]->x;
    for (std::size_t i = 0; i < m; ++i) v[p][i] = in[p]->by_rep.at(reps[i]);
    agg[p] = aggregate(v[p], median, scratch);
    if (!(std::isfinite(xs[p]) && xs[p] > 0)) {
      res.note = "x = " + format_number(xs[p]) + " is not positive (cannot take logs)";
      return;
    }
    if (!(std::isfinite(agg[p]) && agg[p] > 0)) {
      res.note = spec.statistic + " of " + spec.y + " at x = " + format_number(xs[p]) + " is " +
                 format_number(agg[p]) + " (must be finite and > 0 to take logs)";
      return;
    }
  }
  const loglog_fit fit = fit_loglog(xs, agg);
  res.slope = fit.slope;
  res.intercept = fit.intercept;
  res.r2 = fit.r2;

  // Joint bootstrap over replication indices: the same multiset of replications at every x.
  std::vector<double> lxc(np);
  double mlx = 0;
  for (std::size_t p = 0; p < np; ++p) mlx += std::log(xs[p]);
  mlx /= static_cast<double>(np);
  double sxx = 0;
  for (std::size_t p = 0; p < np; ++p) {
    lxc[p] = std::log(xs[p]) - mlx;
    sxx += lxc[p] * lxc[p];
  }
  auto g = rng::stream(
      options.base_seed, core::stable_hash(res.rate + "|" + res.group), 0, rng::purpose::bootstrap);
  const auto nb = static_cast<std::size_t>(options.bootstrap);
  std::vector<double> slopes;
  slopes.reserve(nb);
  // A resample is represented by the multiplicity of each replication (same at every x).
  // The mean is then sum_i cnt_i v_i / m; the median is found by walking each x's values in
  // sorted order until half the multiset is passed (exact order statistics, O(m) per x).
  std::vector<std::uint32_t> cnt(m);
  std::vector<std::vector<std::uint32_t>> order(median ? np : 0);
  for (std::size_t p = 0; p < order.size(); ++p) {
    order[p].resize(m);
    std::iota(order[p].begin(), order[p].end(), 0u);
    std::stable_sort(order[p].begin(), order[p].end(), [&](std::uint32_t a, std::uint32_t b) {
      return v[p][a] < v[p][b];
    });
  }
  const std::size_t h = m / 2;  // 0-based index of the upper middle order statistic
  std::size_t dropped = 0;
  for (std::size_t b = 0; b < nb; ++b) {
    std::fill(cnt.begin(), cnt.end(), 0u);
    for (std::size_t i = 0; i < m; ++i) ++cnt[rng::uniform_below(g, m)];
    double sxy = 0;
    bool ok = true;
    for (std::size_t p = 0; p < np && ok; ++p) {
      double s = 0;
      if (median) {
        // lower = order statistic h-1 (only needed for even m), upper = order statistic h.
        double lower = nan_v, upper = nan_v;
        std::size_t seen = 0;
        for (const std::uint32_t i : order[p]) {
          if (cnt[i] == 0) continue;
          const std::size_t before = seen;
          seen += cnt[i];
          if (h >= 1 && before <= h - 1 && h - 1 < seen) lower = v[p][i];
          if (before <= h && h < seen) {
            upper = v[p][i];
            break;
          }
        }
        s = (m % 2 == 1) ? upper : lower + 0.5 * (upper - lower);
      } else {
        const std::vector<double>& vp = v[p];
        for (std::size_t i = 0; i < m; ++i) s += static_cast<double>(cnt[i]) * vp[i];
        s /= static_cast<double>(m);
      }
      if (!(std::isfinite(s) && s > 0)) {
        ok = false;
        break;
      }
      sxy += lxc[p] * std::log(s);
    }
    if (!ok) {
      ++dropped;
      continue;
    }
    slopes.push_back(sxy / sxx);
  }
  if (dropped > 0) {
    note += std::string(note.empty() ? "" : "; ") + std::to_string(dropped) + " of " +
            std::to_string(nb) +
            " bootstrap resamples had a non-positive aggregate and were left out";
  }
  if (slopes.size() * 2 < nb || slopes.empty()) {
    res.note = note + std::string(note.empty() ? "" : "; ") + "too few valid bootstrap resamples";
    return;
  }
  std::sort(slopes.begin(), slopes.end());
  // res.ci_level was set by fit_rates: confidence adjusted for the rate's number of groups.
  const double alpha = 1 - res.ci_level;
  res.ci_lo = quantile_sorted(slopes, alpha / 2);
  res.ci_hi = quantile_sorted(slopes, 1 - alpha / 2);
  // The containment test allows 1e-9 of rounding slack: with noiseless or perfectly
  // correlated data every bootstrap slope equals the fitted one up to the last few bits.
  constexpr double slack = 1e-9;
  const bool within_tolerance = std::fabs(res.slope - res.expected) <= res.tolerance + slack;
  // A degenerate interval (one replication, or replications whose resampling never moves the
  // slope, e.g. deterministic values): the slope carries no sampling error, so the check is the
  // tolerance alone (containment would otherwise demand the exact slope to 1e-9).
  const bool degenerate = m == 1 || res.ci_hi - res.ci_lo <= slack;
  res.pass = degenerate || spec.check == rate_check::tolerance
                 ? within_tolerance
                 : res.ci_lo - slack <= res.expected && res.expected <= res.ci_hi + slack &&
                       within_tolerance;
  res.note = note;
}

}  // namespace

std::vector<rate_result> fit_rates(const tidy_table& t,
                                   const std::vector<rate_spec>& rates,
                                   const analysis_options& options) {
  if (options.bootstrap < 1) {
    core::throw_invalid(
        "fit_rates", "options.bootstrap", static_cast<double>(options.bootstrap), "must be >= 1");
  }
  core::check_open_interval("fit_rates", "options.confidence", options.confidence, 0, 1);
  validate_specs({}, rates, t.param_names, t.metric_names);
  std::vector<rate_result> out;
  for (const auto& spec : rates) {
    const std::size_t xi = t.param_index(spec.x);
    const std::size_t yi = t.metric_index(spec.y);
    std::vector<std::size_t> gi;
    for (const auto& g : spec.group_by) gi.push_back(t.param_index(g));
    const auto filters = resolve_filters(t, spec.where);
    const std::string name = rate_name(spec);

    std::map<std::vector<std::string>, std::map<double, x_point>, values_less> groups;
    std::map<std::vector<std::string>, std::string, values_less> bad_x;
    for (const auto& row : t.rows) {
      if (!row_matches(row, filters)) continue;
      std::vector<std::string> key;
      key.reserve(gi.size());
      for (const std::size_t i : gi) key.push_back(row.params[i]);
      auto& pts = groups[key];  // a group exists even when all its rows failed
      if (row.status != "ok" || std::isnan(row.metrics[yi])) continue;
      double x = 0;
      if (!parse_number(row.params[xi], x)) {
        bad_x[key] = row.params[xi];
        continue;
      }
      auto& pt = pts[x];
      pt.x = x;
      pt.by_rep[row.rep] = row.metrics[yi];
      pt.cells.insert(row.cell_id);
    }
    if (groups.empty()) {
      rate_result r;
      r.rate = name;
      r.expected = spec.expected_slope;
      r.tolerance = spec.tolerance;
      r.informational = spec.informational;
      r.check = spec.check;
      r.ci_level = options.confidence;
      r.slope = r.intercept = r.r2 = r.ci_lo = r.ci_hi = nan_v;
      r.note = "no rows match the rate's where filters";
      out.push_back(std::move(r));
      continue;
    }
    // Bonferroni over the rate's groups: a rate passes only if every group does, so each
    // group's interval is at level 1 - alpha/G and a correct rate falsely fails with
    // probability <= alpha (per group alpha would give 1 - (1 - alpha)^G, ~34% for G = 8).
    const double group_level = 1 - (1 - options.confidence) / static_cast<double>(groups.size());
    for (const auto& [key, pts] : groups) {
      rate_result r;
      r.rate = name;
      r.ci_level = group_level;
      std::vector<std::string> parts;
      for (std::size_t k = 0; k < key.size(); ++k) {
        r.group_values.emplace_back(spec.group_by[k], key[k]);
        parts.push_back(spec.group_by[k] + "=" + key[k]);
      }
      r.group = join(parts, ", ");
      r.expected = spec.expected_slope;
      r.tolerance = spec.tolerance;
      r.informational = spec.informational;
      r.check = spec.check;
      if (auto it = bad_x.find(key); it != bad_x.end()) {
        r.slope = r.intercept = r.r2 = r.ci_lo = r.ci_hi = nan_v;
        r.note = spec.x + " = '" + it->second + "' is not a number";
      } else {
        fit_group(spec, pts, options, r);
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

// ---- tables --------------------------------------------------------------------------------

std::string summary_csv(const tidy_table& t) {
  struct cell {
    const tidy_row* first = nullptr;
    std::vector<std::vector<double>> values;  // per metric, ok rows
    std::size_t failed = 0;
  };
  std::map<std::string, cell> cells;
  for (const auto& row : t.rows) {
    auto& c = cells[row.cell_id];
    if (!c.first) {
      c.first = &row;
      c.values.resize(t.metric_names.size());
    }
    if (row.status != "ok") {
      ++c.failed;
      continue;
    }
    for (std::size_t j = 0; j < t.metric_names.size(); ++j) c.values[j].push_back(row.metrics[j]);
  }
  std::string out = "cell_id";
  for (const auto& p : t.param_names) out += "," + csv_field("p_" + p);
  out += ",metric,n_reps,n_failed,mean,sd,se,median,q25,q75,ci_lo,ci_hi\n";
  for (const auto& [id, c] : cells) {
    std::string prefix = csv_field(id);
    for (const auto& v : c.first->params) prefix += "," + csv_field(v);
    for (std::size_t j = 0; j < t.metric_names.size(); ++j) {
      const summary_stats s = summarize(c.values[j], c.failed);
      out += prefix + "," + csv_field(t.metric_names[j]) + "," + std::to_string(s.n_reps) + "," +
             std::to_string(s.n_failed);
      for (const double x : {s.mean, s.sd, s.se, s.median, s.q25, s.q75, s.ci_lo, s.ci_hi}) {
        out += "," + format_number(x);
      }
      out += '\n';
    }
  }
  return out;
}

std::string rates_csv(const std::vector<rate_result>& results) {
  std::string out =
      "rate,group,slope,ci_lo,ci_hi,ci_level,r2,intercept,expected,tolerance,points,replications,"
      "pass,"
      "informational,note\n";
  for (const auto& r : results) {
    out += csv_field(r.rate) + "," + csv_field(r.group) + "," + format_number(r.slope) + "," +
           format_number(r.ci_lo) + "," + format_number(r.ci_hi) + "," + format_number(r.ci_level) +
           "," + format_number(r.r2) + "," + format_number(r.intercept) + "," +
           format_number(r.expected) + "," + format_number(r.tolerance) + "," +
           std::to_string(r.points) + "," + std::to_string(r.replications) + "," +
           (r.pass ? "true" : "false") + "," + (r.informational ? "true" : "false") + "," +
           csv_field(r.note) + "\n";
  }
  return out;
}

std::string rates_markdown(const std::vector<rate_result>& results, double confidence) {
  std::string out =
      "| rate | group | expected | fitted [CI] | R² | points | result |\n"
      "|---|---|---:|---|---:|---:|---|\n";
  std::vector<std::string> notes;
  bool any_tolerance = false;
  for (const auto& r : results) {
    std::string result = verdict(r);
    if (r.check == rate_check::tolerance) {
      result += " (±" + short_number(r.tolerance) + ")";
      any_tolerance = true;
    }
    if (!r.note.empty()) {
      notes.push_back(r.note);
      result += " [" + std::to_string(notes.size()) + "]";
    }
    out += "| " + md_escape(r.rate) + " | " + (r.group.empty() ? "(all)" : md_escape(r.group)) +
           " | " + fixed(r.expected, 3) + " | " + fixed(r.slope, 3) + " [" + fixed(r.ci_lo, 3) +
           ", " + fixed(r.ci_hi, 3) + "] | " + fixed(r.r2, 3) + " | " + std::to_string(r.points) +
           " | " + result + " |\n";
  }
  out += "\nCI: joint-bootstrap percentile interval of the slope at level 1 − " +
         short_number(1 - confidence) +
         "/G for a rate with G groups (Bonferroni: a correct rate falsely fails with probability "
         "at most " +
         short_number(1 - confidence) +
         "). A check passes when the expected slope is inside the CI and within the tolerance "
         "of the fit.\n";
  if (any_tolerance) {
    out +=
        "A result marked (±tol) is judged by the tolerance alone (check = \"tolerance\"): its "
        "metric is (mostly) deterministic in x, so its CI is narrower than the metric's exact "
        "lower-order terms and containment would test those terms, not the exponent.\n";
  }
  if (!notes.empty()) {
    out += "\nNotes:\n\n";
    for (std::size_t i = 0; i < notes.size(); ++i) {
      out += std::to_string(i + 1) + ". " + md_escape(notes[i]) + "\n";
    }
  }
  return out;
}

std::string rates_latex(const std::vector<rate_result>& results, double confidence) {
  std::string out =
      "\\begin{tabular}{llrlrrl}\n"
      "\\toprule\n"
      "Rate & Group & Expected & Fitted [CI] & $R^2$ & Points & Result \\\\\n"
      "\\midrule\n";
  for (const auto& r : results) {
    std::string fitted = std::isnan(r.slope)
                             ? std::string("--")
                             : latex_num(r.slope, 3) + " [" + latex_num(r.ci_lo, 3) + ", " +
                                   latex_num(r.ci_hi, 3) + "]";
    out += latex_escape(r.rate) + " & " + latex_escape(r.group) + " & " + latex_num(r.expected, 3) +
           " & " + fitted + " & " + latex_num(r.r2, 3) + " & " + std::to_string(r.points) + " & " +
           latex_escape(verdict(r)) + " \\\\\n";
  }
  out += "\\bottomrule\n\\end{tabular}\n";
  out += "% CI: joint-bootstrap percentile interval at level 1 - " + short_number(1 - confidence) +
         "/G for a rate with G groups (Bonferroni).\n";
  return out;
}

// ---- figures -------------------------------------------------------------------------------

std::filesystem::path find_plot_script() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* env = std::getenv("DPX_PLOT_SCRIPT"); env && *env) {
    if (fs::is_regular_file(env, ec)) return fs::path(env);
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path() / ".." / "share" / "dpx" / "dpx_plot.py";
    if (fs::is_regular_file(installed, ec)) return installed.lexically_normal();
  }
#ifdef DPX_SOURCE_DIR
  fs::path source = fs::path(DPX_SOURCE_DIR) / "libs" / "harness" / "python" / "dpx_plot.py";
  if (fs::is_regular_file(source, ec)) return source;
#endif
  return {};
}

namespace {

/// figures/figures.json: the specs, relative paths to the CSVs and the fitted-slope
/// annotations matched to each curve.
std::string figures_json(const std::vector<figure_spec>& figures,
                         const std::vector<rate_spec>& rates,
                         const std::vector<rate_result>& results,
                         double confidence) {
  using json = nlohmann::ordered_json;
  json j;
  j["schema_version"] = 1;
  j["summary"] = "../summary.csv";
  j["rates"] = "../rates.csv";
  j["output_dir"] = ".";
  j["confidence"] = confidence;
  j["figures"] = json::array();
  for (const auto& f : figures) {
    json jf;
    jf["name"] = f.name;
    jf["title"] = f.title;
    jf["x"] = f.x;
    jf["y"] = f.y;
    jf["statistic"] = f.statistic;
    jf["series"] = f.series;
    jf["where"] = json::object();
    for (const auto& w : f.where) jf["where"][w.name] = w.value;
    jf["logx"] = f.logx;
    jf["logy"] = f.logy;
    jf["reference_slopes"] = f.reference_slopes;
    jf["xlabel"] = f.xlabel;
    jf["ylabel"] = f.ylabel;
    detail::add_presentation(jf, f);  // labels, order, marks, bands, panels, style
    // A rate result annotates the curves it fitted: same x, y and statistic, and every group
    // value and rate filter is pinned by the curve (a series value or a figure filter).
    jf["annotations"] = json::array();
    for (std::size_t ri = 0; ri < rates.size(); ++ri) {
      const rate_spec& spec = rates[ri];
      if (spec.x != f.x || spec.y != f.y || spec.statistic != f.statistic) continue;
      std::map<std::string, std::string> pinned_by_figure;
      for (const auto& w : f.where) pinned_by_figure[w.name] = w.value;
      bool compatible = true;
      for (const auto& w : spec.where) {
        const bool in_series = std::count(f.series.begin(), f.series.end(), w.name) != 0;
        auto it = pinned_by_figure.find(w.name);
        if (it != pinned_by_figure.end() ? it->second != w.value : !in_series) compatible = false;
      }
      if (!compatible) continue;
      for (const auto& r : results) {
        if (r.rate != rate_name(spec) || std::isnan(r.slope)) continue;
        json series = json::object();
        bool ok = true;
        for (const auto& [name, value] : r.group_values) {
          if (std::count(f.series.begin(), f.series.end(), name) != 0) {
            series[name] = value;
          } else if (auto it = pinned_by_figure.find(name);
                     it == pinned_by_figure.end() || it->second != value) {
            ok = false;
          }
        }
        for (const auto& w : spec.where) {
          if (std::count(f.series.begin(), f.series.end(), w.name) != 0) series[w.name] = w.value;
        }
        if (!ok) continue;
        json a;
        a["rate"] = r.rate;
        a["group"] = r.group;
        a["series"] = series;
        a["slope"] = r.slope;
        a["ci_lo"] = r.ci_lo;
        a["ci_hi"] = r.ci_hi;
        a["expected"] = r.expected;
        a["pass"] = r.pass;
        jf["annotations"].push_back(a);
      }
    }
    j["figures"].push_back(jf);
  }
  return j.dump(2) + "\n";
}

}  // namespace

// ---- write_analysis ------------------------------------------------------------------------

std::vector<rate_result> write_analysis(const tidy_table& t,
                                        const std::vector<figure_spec>& figures,
                                        const std::vector<rate_spec>& rates,
                                        const std::filesystem::path& out_dir,
                                        const analysis_options& options,
                                        bool* figures_rendered,
                                        std::string* figures_note) {
  namespace fs = std::filesystem;
  if (figures_rendered) *figures_rendered = false;
  if (figures_note) figures_note->clear();
  validate_specs(figures, rates, t.param_names, t.metric_names);
  fs::create_directories(out_dir);

  std::vector<rate_result> results = fit_rates(t, rates, options);
  write_file_atomic(out_dir / "summary.csv", summary_csv(t));
  write_file_atomic(out_dir / "rates.csv", rates_csv(results));
  write_file_atomic(out_dir / "rates.md", rates_markdown(results, options.confidence));
  write_file_atomic(out_dir / "rates.tex", rates_latex(results, options.confidence));
  {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& r : results) {
      nlohmann::ordered_json jr;
      jr["rate"] = r.rate;
      jr["group"] = r.group;
      jr["group_values"] = nlohmann::ordered_json::object();
      for (const auto& [k, v] : r.group_values) jr["group_values"][k] = v;
      for (const auto& [k, v] : {std::pair<const char*, double>{"slope", r.slope},
                                 {"ci_lo", r.ci_lo},
                                 {"ci_hi", r.ci_hi},
                                 {"ci_level", r.ci_level},
                                 {"r2", r.r2},
                                 {"intercept", r.intercept},
                                 {"expected", r.expected},
                                 {"tolerance", r.tolerance}}) {
        if (std::isfinite(v)) {
          jr[k] = v;
        } else {
          jr[k] = nullptr;
        }
      }
      jr["points"] = r.points;
      jr["replications"] = r.replications;
      jr["pass"] = r.pass;
      jr["informational"] = r.informational;
      jr["check"] = r.check == rate_check::tolerance ? "tolerance" : "ci";
      jr["note"] = r.note;
      j.push_back(jr);
    }
    write_file_atomic(out_dir / "rates.json", j.dump(2) + "\n");
  }

  // Figures: figures.json is always written (so they can be rendered later by hand).
  std::string figure_status;  // why figures were not rendered ("" when they were)
  bool rendered = false;
  if (!figures.empty()) {
    write_file_atomic(out_dir / "figures" / "figures.json",
                      figures_json(figures, rates, results, options.confidence));
  }
  if (figures.empty()) {
    figure_status = "the preset declares no figures";
  } else if (!options.figures) {
    figure_status = "figure rendering was disabled";
  } else {
    const fs::path script = find_plot_script();
    std::error_code ec;
    std::string err;
    if (script.empty()) {
      figure_status =
          "dpx_plot.py was not found (set DPX_PLOT_SCRIPT, or install dpx so that "
          "share/dpx/dpx_plot.py sits next to bin/)";
    } else if (options.python.empty() || (options.python.find('/') != std::string::npos &&
                                          ::access(options.python.c_str(), X_OK) != 0)) {
      figure_status =
          "the Python interpreter " + options.python + " does not exist or is not executable";
    } else if (run_process({options.python, "-c", "import matplotlib"}, "", &err) != 0) {
      figure_status = options.python + " cannot import matplotlib (install python3-matplotlib)" +
                      (err.empty() ? "" : ": " + err);
    } else {
      const fs::path log = out_dir / "figures" / "plot.log";
      const int rc = run_process(
          {options.python, script.string(), (out_dir / "figures" / "figures.json").string()},
          log.string(),
          &err);
      if (rc != 0) {
        figure_status = "dpx_plot.py exited with status " + std::to_string(rc) +
                        (err.empty() ? "" : " (" + err + ")") +
                        "; see figures/plot.log: " + tail_of_file(log, 3);
      } else {
        std::vector<std::string> missing;
        for (const auto& f : figures) {
          for (const char* ext : {".pdf", ".png"}) {
            if (!fs::is_regular_file(out_dir / "figures" / (f.name + ext), ec)) {
              missing.push_back("figures/" + f.name + ext);
            }
          }
        }
        if (missing.empty()) {
          rendered = true;
        } else {
          figure_status = "dpx_plot.py did not produce " + join(missing, ", ");
        }
      }
    }
  }
  if (figures_rendered) *figures_rendered = rendered;
  if (figures_note) *figures_note = figure_status;

  // report.md
  std::set<std::string> cell_ids;
  std::size_t failed = 0;
  std::map<std::string, std::size_t> failure_messages;
  for (const auto& row : t.rows) {
    cell_ids.insert(row.cell_id);
    if (row.status != "ok") {
      ++failed;
      ++failure_messages[row.message];
    }
  }
  std::string md =
      "# " + (options.preset_name.empty() ? std::string("dpx experiment") : options.preset_name) +
      "\n\n";
  if (!options.description.empty()) md += options.description + "\n\n";
  md += "- cells: " + std::to_string(cell_ids.size()) + "\n";
  md += "- replications: " + std::to_string(t.rows.size()) + "\n";
  md += "- failed replications: " + std::to_string(failed) + "\n";
  if (!failure_messages.empty()) {
    md += "\nFailure messages (count):\n\n";
    std::size_t shown = 0;
    for (const auto& [msg, count] : failure_messages) {
      if (++shown > 10) {
        md += "- ... (" + std::to_string(failure_messages.size() - 10) + " more)\n";
        break;
      }
      md += "- " + std::to_string(count) + " × " + (msg.empty() ? "(no message)" : msg) + "\n";
    }
  }
  md += "\n## Rates\n\n";
  if (results.empty()) {
    md += "The preset declares no rate checks.\n";
  } else {
    md +=
        "Each check fits log(statistic of y) = a + b log(x) by least squares over the fit "
        "range; intervals are joint bootstrap percentile "
        "intervals over replications (" +
        std::to_string(options.bootstrap) +
        " resamples). A check passes when the expected slope lies in the interval and the "
        "fitted slope is within the tolerance of it.\n\n";
    md += rates_markdown(results, options.confidence);
  }
  md += "\n## Figures\n\n";
  if (rendered) {
    for (const auto& f : figures) {
      const std::string title = f.title.empty() ? f.name : f.title;
      md += "### ";
      md += title;
      md += "\n\n![";
      md += title;
      md += "](figures/" + f.name + ".png)\n\n[PDF](figures/" + f.name + ".pdf)\n\n";
    }
  } else {
    md += "Figures were not rendered: " + figure_status + ".";
    if (!figures.empty()) {
      md +=
          " The figure specification is in [figures/figures.json](figures/figures.json); "
          "render it with `/usr/bin/python3 dpx_plot.py figures/figures.json`.";
    }
    md += "\n";
  }
  md +=
      "\n## Files\n\n"
      "- [tidy.csv](tidy.csv): one row per (cell, replication)\n"
      "- [summary.csv](summary.csv): per cell and metric statistics\n"
      "- [rates.csv](rates.csv), [rates.json](rates.json), [rates.md](rates.md), "
      "[rates.tex](rates.tex): rate checks\n";
  if (!figures.empty())
    md += "- [figures/figures.json](figures/figures.json): figure specification\n";
  write_file_atomic(out_dir / "report.md", md);
  return results;
}

}  // namespace dpx::harness
