// Preset loading and strict validation (schema: docs/presets.md).
#include "dpx/harness/preset.hpp"

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "overrides.hpp"

namespace dpx::harness {

namespace {

namespace fs = std::filesystem;

// ---- error helpers ------------------------------------------------------------------------

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

std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "table";
    case toml::node_type::array:
      return "array";
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    default:
      return "date/time";
  }
}

/// Rejects keys of tbl outside allowed; the message names the key, the table and the valid keys.
void check_keys(const ctx& c,
                const toml::table& tbl,
                const std::vector<std::string>& allowed,
                const std::string& where) {
  for (auto&& [k, v] : tbl) {
    if (std::find(allowed.begin(), allowed.end(), std::string(k.str())) == allowed.end()) {
      c.fail(k.source(),
             "unknown key '" + std::string(k.str()) + "' in " + where +
                 " (valid keys: " + join(allowed) + ")");
    }
  }
}

const toml::table& as_table(const ctx& c, const toml::node& n, const std::string& what) {
  if (!n.is_table()) c.fail(n, what + " must be a table, not " + type_name(n));
  return *n.as_table();
}

std::string get_string(const ctx& c, const toml::node& n, const std::string& what) {
  if (!n.is_string()) c.fail(n, what + " must be a string, not " + type_name(n));
  return n.as_string()->get();
}

std::int64_t get_int(const ctx& c, const toml::node& n, const std::string& what) {
  if (!n.is_integer()) c.fail(n, what + " must be an integer, not " + type_name(n));
  return n.as_integer()->get();
}

double get_number(const ctx& c, const toml::node& n, const std::string& what) {
  if (n.is_integer()) return static_cast<double>(n.as_integer()->get());
  if (n.is_floating_point()) {
    // TOML allows nan and inf; no preset number means either (docs/presets.md).
    if (!std::isfinite(n.as_floating_point()->get())) c.fail(n, what + " must be finite");
    return n.as_floating_point()->get();
  }
  c.fail(n, what + " must be a number, not " + type_name(n));
}

bool get_bool(const ctx& c, const toml::node& n, const std::string& what) {
  if (!n.is_boolean()) c.fail(n, what + " must be a boolean, not " + type_name(n));
  return n.as_boolean()->get();
}

/// A string or an array of strings.
std::vector<std::string> get_string_list(const ctx& c,
                                         const toml::node& n,
                                         const std::string& what) {
  if (n.is_string()) return {n.as_string()->get()};
  if (!n.is_array())
    c.fail(n, what + " must be a string or an array of strings, not " + type_name(n));
  std::vector<std::string> out;
  for (const auto& e : *n.as_array()) out.push_back(get_string(c, e, what + " element"));
  return out;
}

// ---- parameter values ---------------------------------------------------------------------

const param_decl* find_decl(const driver& d, const std::string& name) {
  for (const auto& p : d.params)
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> param_names(const driver& d) {
  std::vector<std::string> v;
  for (const auto& p : d.params) v.push_back(p.name);
  std::sort(v.begin(), v.end());
  return v;
}

/// Checks that name is a declared parameter of the driver.
void check_param(const ctx& c,
                 const toml::source_region& where,
                 const std::string& name,
                 const std::string& context) {
  if (find_decl(*c.drv, name) == nullptr) {
    c.fail(where,
           "unknown parameter '" + name + "' in " + context + " for driver '" + c.drv->name +
               "' (valid parameters: " + join(param_names(*c.drv)) + ")");
  }
}

/// Converts v to the type of the declared default (ints become doubles for double parameters,
/// integral doubles become ints for integer parameters); throws on incompatible types.
param_value coerce(const ctx& c,
                   const toml::source_region& where,
                   const std::string& name,
                   param_value v) {
  const param_decl* decl = find_decl(*c.drv, name);
  if (decl == nullptr || !decl->default_value) return v;
  const param_value& def = *decl->default_value;
  auto bad = [&](const std::string& expected) {
    c.fail(where,
           "parameter '" + name + "' = " + render(v) + " has the wrong type (driver '" +
               c.drv->name + "' expects " + expected + ")");
  };
  if (std::holds_alternative<double>(def)) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
    if (!std::holds_alternative<double>(v)) bad("a number");
  } else if (std::holds_alternative<std::int64_t>(def)) {
    if (const auto* d = std::get_if<double>(&v)) {
      if (std::isfinite(*d) && std::nearbyint(*d) == *d && std::fabs(*d) < 9.0e18) {
        return static_cast<std::int64_t>(*d);
      }
      bad("an integer (use integer = true on ranges)");
    }
    if (!std::holds_alternative<std::int64_t>(v)) bad("an integer");
  } else if (std::holds_alternative<std::string>(def)) {
    if (!std::holds_alternative<std::string>(v)) bad("a string");
  } else if (std::holds_alternative<bool>(def)) {
    if (!std::holds_alternative<bool>(v)) bad("a boolean");
  }
  return v;
}

/// A TOML scalar as a parameter value.
param_value scalar(const ctx& c, const toml::node& n, const std::string& name) {
  param_value v;
  if (n.is_integer()) {
    v = n.as_integer()->get();
  } else if (n.is_floating_point()) {
    if (!std::isfinite(n.as_floating_point()->get())) {
      c.fail(n, "parameter '" + name + "' must be finite (not nan or inf)");
    }
    v = n.as_floating_point()->get();
  } else if (n.is_string()) {
    v = n.as_string()->get();
  } else if (n.is_boolean()) {
    v = n.as_boolean()->get();
  } else {
    c.fail(n,
           "parameter '" + name + "' must be an integer, float, string or boolean, not " +
               type_name(n));
  }
  return coerce(c, n.source(), name, std::move(v));
}

/// A [grid] entry: a list, a geometric/linear range table, or a scalar (one value).
std::vector<param_value> axis_values(const ctx& c, const toml::node& n, const std::string& name) {
  std::vector<param_value> out;
  if (n.is_array()) {
    for (const auto& e : *n.as_array()) out.push_back(scalar(c, e, name));
    if (out.empty()) c.fail(n, "grid parameter '" + name + "' has an empty list");
  } else if (n.is_table()) {
    const auto& t = *n.as_table();
    check_keys(c, t, {"geometric", "linear", "points", "integer"}, "range of '" + name + "'");
    const bool geometric = t.contains("geometric");
    if (geometric == t.contains("linear")) {
      c.fail(
          n,
          "range of '" + name + "' needs exactly one of geometric = [lo, hi] or linear = [lo, hi]");
    }
    const toml::node& ends = *t.get(geometric ? "geometric" : "linear");
    if (!ends.is_array() || ends.as_array()->size() != 2) {
      c.fail(ends, std::string(geometric ? "geometric" : "linear") + " must be [lo, hi]");
    }
    const double lo = get_number(c, *ends.as_array()->get(0), "range bound");
    const double hi = get_number(c, *ends.as_array()->get(1), "range bound");
    if (!t.contains("points")) c.fail(n, "range of '" + name + "' needs points = <count>");
    const std::int64_t k = get_int(c, *t.get("points"), "points");
    if (k < 1 || k > max_range_points) {
      c.fail(*t.get("points"), "points must be between 1 and " + std::to_string(max_range_points));
    }
    const bool integer = t.contains("integer") && get_bool(c, *t.get("integer"), "integer");
    if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi || (geometric && lo <= 0)) {
      c.fail(ends,
             "range of '" + name + "' needs finite bounds with " +
                 (geometric ? "0 < lo <= hi" : "lo <= hi"));
    }
    if (k == 1 && lo != hi) c.fail(*t.get("points"), "points = 1 needs lo == hi");
    std::set<param_value> seen;  // O(k log k) de-duplication (integer = true repeats values)
    for (std::int64_t i = 0; i < k; ++i) {
      double x;
      if (i == 0) {
        x = lo;
      } else if (i == k - 1) {
        x = hi;  // exact end points
      } else {
        const double t01 = static_cast<double>(i) / static_cast<double>(k - 1);
        x = geometric ? std::exp(std::log(lo) + t01 * (std::log(hi) - std::log(lo)))
                      : lo + t01 * (hi - lo);
      }
      param_value v =
          integer ? param_value{static_cast<std::int64_t>(std::llround(x))} : param_value{x};
      v = coerce(c, n.source(), name, std::move(v));
      if (seen.insert(v).second) out.push_back(std::move(v));
    }
  } else {
    out.push_back(scalar(c, n, name));
  }
  return out;
}

std::vector<row_filter> parse_where(const ctx& c, const toml::node& n, const std::string& what) {
  const auto& t = as_table(c, n, what + ".where");
  std::vector<row_filter> out;
  for (auto&& [k, v] : t) {
    const std::string name(k.str());
    check_param(c, k.source(), name, what + ".where");
    out.push_back({name, render(scalar(c, v, name))});
  }
  return out;
}

void check_metric(const ctx& c,
                  const toml::node& n,
                  const std::string& name,
                  const std::string& what) {
  const auto& m = c.drv->metric_names;
  if (std::find(m.begin(), m.end(), name) == m.end()) {
    c.fail(n,
           "unknown metric '" + name + "' in " + what + " for driver '" + c.drv->name +
               "' (valid metrics: " + join(m) + ")");
  }
}

void check_statistic(const ctx& c, const toml::node& n, const std::string& s) {
  if (s != "mean" && s != "median")
    c.fail(n, "statistic must be \"mean\" or \"median\", not \"" + s + "\"");
}

figure_spec parse_figure(const ctx& c, const toml::table& t, std::size_t index) {
  const std::string what = "[[figure]] #" + std::to_string(index + 1);
  check_keys(c,
             t,
             {"name",
              "title",
              "x",
              "y",
              "statistic",
              "series",
              "where",
              "logx",
              "logy",
              "reference_slopes",
              "xlabel",
              "ylabel",
              "labels",
              "series_order",
              "marked",
              "deterministic",
              "y_range",
              "max_series",
              "style"},
             what);
  figure_spec f;
  // An inline table of string -> string (labels, marked).
  const auto string_map = [&](const toml::node& v, const std::string& w) {
    std::vector<std::pair<std::string, std::string>> out;
    for (auto&& [mk, mv] : as_table(c, v, w)) {
      out.emplace_back(std::string(mk.str()), get_string(c, mv, w + "." + std::string(mk.str())));
    }
    return out;
  };
  for (const char* req : {"x", "y"}) {
    if (!t.contains(req)) c.fail(t, what + " needs '" + req + "'");
  }
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    std::string w = what;
    w += ".";
    w += key;
    if (key == "name")
      f.name = get_string(c, v, w);
    else if (key == "title")
      f.title = get_string(c, v, w);
    else if (key == "x") {
      f.x = get_string(c, v, w);
      check_param(c, v.source(), f.x, w);
    } else if (key == "y") {
      f.y = get_string(c, v, w);
      check_metric(c, v, f.y, w);
    } else if (key == "statistic") {
      f.statistic = get_string(c, v, w);
      check_statistic(c, v, f.statistic);
    } else if (key == "series") {
      f.series = get_string_list(c, v, w);
      for (const auto& s : f.series) check_param(c, v.source(), s, w);
    } else if (key == "where")
      f.where = parse_where(c, v, what);
    else if (key == "logx")
      f.logx = get_bool(c, v, w);
    else if (key == "logy")
      f.logy = get_bool(c, v, w);
    else if (key == "reference_slopes") {
      if (!v.is_array()) c.fail(v, w + " must be an array of numbers");
      for (const auto& e : *v.as_array()) f.reference_slopes.push_back(get_number(c, e, w));
    } else if (key == "xlabel")
      f.xlabel = get_string(c, v, w);
    else if (key == "ylabel")
      f.ylabel = get_string(c, v, w);
    else if (key == "labels")
      f.labels = string_map(v, w);
    else if (key == "marked")
      f.marked = string_map(v, w);
    else if (key == "series_order")
      f.series_order = get_string_list(c, v, w);
    else if (key == "deterministic")
      f.deterministic = get_bool(c, v, w);
    else if (key == "y_range") {
      const auto* a = v.as_array();
      if (a == nullptr || a->size() != 2) c.fail(v, w + " must be [lo, hi]");
      const double lo = get_number(c, *a->get(0), w);
      const double hi = get_number(c, *a->get(1), w);
      if (!(lo < hi)) c.fail(v, w + " needs lo < hi");
      f.y_range = std::pair{lo, hi};
    } else if (key == "max_series") {
      const auto m = get_int(c, v, w);
      if (m < 1 || m > 64) c.fail(v, w + " must be in [1, 64]");
      f.max_series = static_cast<int>(m);
    } else if (key == "style") {
      f.style = get_string(c, v, w);
      if (f.style != "paper" && f.style != "slides")
        c.fail(v, w + " must be \"paper\" or \"slides\"");
    }
  }
  if (f.name.empty()) f.name = f.y + "_vs_" + f.x;
  return f;
}

rate_spec parse_rate(const ctx& c, const toml::table& t, std::size_t index) {
  const std::string what = "[[rate]] #" + std::to_string(index + 1);
  check_keys(c,
             t,
             {"name",
              "x",
              "y",
              "statistic",
              "group_by",
              "where",
              "fit_range",
              "expected_slope",
              "tolerance",
              "informational",
              "check",
              "description",
              "claim",
              "kind",
              "bound_constant",
              "control",
              "control_description",
              "control_replications"},
             what);
  // ratio_flat's expected slope is 0 and ratio_bound has none.
  const bool ratio = t.contains("kind") && t.get("kind")->is_string() &&
                     t.get("kind")->as_string()->get() != "slope";
  for (const char* req : {"x", "y", "expected_slope"}) {
    if (ratio && std::string(req) == "expected_slope") continue;
    if (!t.contains(req)) c.fail(t, what + " needs '" + req + "'");
  }
  rate_spec r;
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    std::string w = what;
    w += ".";
    w += key;
    if (key == "name")
      r.name = get_string(c, v, w);
    else if (key == "x") {
      r.x = get_string(c, v, w);
      check_param(c, v.source(), r.x, w);
    } else if (key == "y") {
      r.y = get_string(c, v, w);
      check_metric(c, v, r.y, w);
    } else if (key == "statistic") {
      r.statistic = get_string(c, v, w);
      check_statistic(c, v, r.statistic);
    } else if (key == "group_by") {
      r.group_by = get_string_list(c, v, w);
      for (const auto& s : r.group_by) check_param(c, v.source(), s, w);
    } else if (key == "where")
      r.where = parse_where(c, v, what);
    else if (key == "fit_range") {
      if (!v.is_array() || v.as_array()->size() != 2) c.fail(v, w + " must be [lo, hi]");
      const double lo = get_number(c, *v.as_array()->get(0), w);
      const double hi = get_number(c, *v.as_array()->get(1), w);
      if (!(lo < hi)) c.fail(v, w + " needs lo < hi");
      r.fit_range = std::pair{lo, hi};
    } else if (key == "expected_slope") {
      r.expected_slope = get_number(c, v, w);
      if (!std::isfinite(r.expected_slope)) c.fail(v, w + " must be finite");
    } else if (key == "tolerance") {
      r.tolerance = get_number(c, v, w);
      if (!(r.tolerance > 0) || !std::isfinite(r.tolerance))
        c.fail(v, w + " must be finite and > 0");
    } else if (key == "informational")
      r.informational = get_bool(c, v, w);
    else if (key == "check") {
      const std::string m = get_string(c, v, w);
      if (m == "ci")
        r.check = rate_check::ci_and_tolerance;
      else if (m == "tolerance")
        r.check = rate_check::tolerance;
      else
        // NOLINTNEXTLINE(performance-inefficient-string-concatenation): error path
        c.fail(v, w + " = '" + m + "' must be \"ci\" or \"tolerance\"");
    } else if (key == "description")
      r.description = get_string(c, v, w);
    else if (key == "claim")
      r.claims = get_string_list(c, v, w);
    else if (key == "kind") {
      const std::string m = get_string(c, v, w);
      if (m == "slope")
        r.kind = rate_kind::slope;
      else if (m == "ratio_flat")
        r.kind = rate_kind::ratio_flat;
      else if (m == "ratio_bound")
        r.kind = rate_kind::ratio_bound;
      else
        // NOLINTNEXTLINE(performance-inefficient-string-concatenation): error path
        c.fail(v, w + " = '" + m + "' must be \"slope\", \"ratio_flat\" or \"ratio_bound\"");
    } else if (key == "bound_constant") {
      r.bound_constant = get_number(c, v, w);
      if (!(r.bound_constant > 0) || !std::isfinite(r.bound_constant))
        c.fail(v, w + " must be finite and > 0");
    } else if (key == "control") {
      if (!v.is_table())
        c.fail(v, w + " must be a table of parameter overrides, e.g. { noise = \"off\" }");
      for (auto&& [ck, cv] : *v.as_table()) {
        const std::string name(ck.str());
        check_param(c, ck.source(), name, w);
        if (cv.is_array() || cv.is_table()) c.fail(cv, w + "." + name + " must be a scalar");
        r.control[name] = scalar(c, cv, name);
      }
      if (r.control.empty()) c.fail(v, w + " is empty (omit it for an uncontrolled check)");
    } else if (key == "control_description")
      r.control_description = get_string(c, v, w);
    else if (key == "control_replications") {
      // Control cells run the preset's replications: the runner plans one replication count
      // for every cell. Refusing the key keeps the preset from promising what is not done.
      (void)get_int(c, v, w);
      c.fail(v,
             w + " is not supported yet: control cells run the preset's replications (remove "
                 "the key)");
    }
  }
  if (r.name.empty()) r.name = r.y + "_vs_" + r.x;
  if (r.kind == rate_kind::ratio_flat && t.contains("expected_slope") && r.expected_slope != 0)
    c.fail(*t.get("expected_slope"), what + ".expected_slope must be 0 for kind = \"ratio_flat\"");
  if (r.kind != rate_kind::ratio_bound && t.contains("bound_constant"))
    c.fail(*t.get("bound_constant"), what + ".bound_constant needs kind = \"ratio_bound\"");
  if (r.control.empty() && t.contains("control_description"))
    c.fail(*t.get("control_description"), what + ".control_description needs 'control'");
  if (r.control.count(r.x) != 0)
    c.fail(*t.get("control"), what + ".control." + r.x + " must not override x");
  if (find_decl(*c.drv, control_column) != nullptr && !r.control.empty())
    c.fail(t,
           what + ": driver '" + c.drv->name + "' declares a parameter named '" + control_column +
               "', which controls need for their marker column");
  return r;
}

bool valid_name(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.';
  });
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw preset_error(path.string() + ": cannot read preset file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

preset parse_preset(const std::string& text,
                    const fs::path& path,
                    bool quick,
                    const std::vector<std::string>& overrides) {
  ctx c;
  c.file = path.string();
  toml::table root;
  try {
    root = toml::parse(text, c.file);
  } catch (const toml::parse_error& e) {
    std::string d(e.description());
    std::replace(d.begin(), d.end(), '\n', ' ');
    c.fail(e.source(), "TOML syntax error: " + d);
  }
  detail::apply_overrides(root, overrides);  // `--set key=value`, validated like the file
  check_keys(c, root, {"experiment", "grid", "fixed", "quick", "figure", "rate"}, "the preset");

  preset p;
  p.path = path;
  p.text = text;
  p.quick = quick;
  p.overrides = overrides;

  // [experiment]
  if (!root.contains("experiment")) c.fail_file("missing [experiment] table");
  const auto& exp = as_table(c, *root.get("experiment"), "[experiment]");
  check_keys(c,
             exp,
             {"name", "description", "driver", "base_seed", "replications", "replication_block"},
             "[experiment]");
  for (const char* req : {"name", "driver", "base_seed", "replications"}) {
    if (!exp.contains(req))
      c.fail(*root.get("experiment"), std::string("[experiment] needs '") + req + "'");
  }
  p.name = get_string(c, *exp.get("name"), "experiment.name");
  if (!valid_name(p.name)) c.fail(*exp.get("name"), "experiment.name must match [A-Za-z0-9_.-]+");
  if (exp.contains("description"))
    p.description = get_string(c, *exp.get("description"), "experiment.description");
  p.driver = get_string(c, *exp.get("driver"), "experiment.driver");
  c.drv = find_driver(p.driver);
  if (c.drv == nullptr) {
    c.fail(*exp.get("driver"),
           "unknown driver '" + p.driver + "' (registered drivers: " + join(driver_names()) + ")");
  }
  if (c.drv->metric_names.empty()) {
    c.fail(*exp.get("driver"), "driver '" + p.driver + "' declares no metric_names");
  }
  for (const auto& k : c.drv->data_keys) {
    if (find_decl(*c.drv, k) == nullptr) {
      c.fail(*exp.get("driver"), "driver '" + p.driver + "' lists undeclared data key '" + k + "'");
    }
  }
  const std::int64_t seed = get_int(c, *exp.get("base_seed"), "experiment.base_seed");
  if (seed < 0) c.fail(*exp.get("base_seed"), "experiment.base_seed must be >= 0");
  p.base_seed = static_cast<std::uint64_t>(seed);
  auto count = [&](const toml::node& n, const std::string& what) {
    const std::int64_t v = get_int(c, n, what);
    if (v < 1 || v > 100000000) c.fail(n, what + " must be in [1, 1e8]");
    return static_cast<std::uint32_t>(v);
  };
  p.replications = count(*exp.get("replications"), "experiment.replications");
  p.replication_block = exp.contains("replication_block")
                            ? count(*exp.get("replication_block"), "experiment.replication_block")
                            : p.replications;

  // [grid]
  std::set<std::string> swept;
  auto claim_swept =
      [&](const toml::source_region& where, const std::string& name, const std::string& context) {
        check_param(c, where, name, context);
        if (!swept.insert(name).second) c.fail(where, "parameter '" + name + "' is swept twice");
      };
  if (root.contains("grid")) {
    const auto& grid = as_table(c, *root.get("grid"), "[grid]");
    for (auto&& [k, v] : grid) {
      const std::string name(k.str());
      if (name == "zip" || name == "exclude" || name == "include") {
        if (!v.is_array_of_tables())
          // NOLINTNEXTLINE(performance-inefficient-string-concatenation): error path
          c.fail(v, "grid." + name + " must be an array of tables ([[grid." + name + "]])");
        continue;
      }
      claim_swept(k.source(), name, "[grid]");
      p.grid.push_back({name, axis_values(c, v, name)});
    }
    if (grid.contains("zip")) {
      for (const auto& zn : *grid.get("zip")->as_array()) {
        const auto& zt = *zn.as_table();
        zip_group g;
        std::size_t len = 0;
        std::vector<std::vector<param_value>> cols;
        for (auto&& [k, v] : zt) {
          const std::string name(k.str());
          claim_swept(k.source(), name, "[[grid.zip]]");
          if (!v.is_array()) c.fail(v, "[[grid.zip]] entry '" + name + "' must be a list");
          std::vector<param_value> col;
          for (const auto& e : *v.as_array()) col.push_back(scalar(c, e, name));
          if (col.empty()) c.fail(v, "[[grid.zip]] entry '" + name + "' is empty");
          if (!g.names.empty() && col.size() != len) {
            c.fail(v,
                   "[[grid.zip]] lists must have equal lengths ('" + name + "' has " +
                       std::to_string(col.size()) + ", expected " + std::to_string(len) + ")");
          }
          len = col.size();
          g.names.push_back(name);
          cols.push_back(std::move(col));
        }
        if (g.names.empty()) c.fail(zn, "empty [[grid.zip]]");
        for (std::size_t i = 0; i < len; ++i) {
          std::vector<param_value> row;
          row.reserve(cols.size());
          for (const auto& col : cols) row.push_back(col[i]);
          g.rows.push_back(std::move(row));
        }
        p.zips.push_back(std::move(g));
      }
    }
    if (grid.contains("exclude")) {
      for (const auto& en : *grid.get("exclude")->as_array()) {
        param_assignment a;
        for (auto&& [k, v] : *en.as_table()) {
          const std::string name(k.str());
          check_param(c, k.source(), name, "[[grid.exclude]]");
          if (swept.count(name) == 0) {
            c.fail(k.source(), "[[grid.exclude]] key '" + name + "' is not a swept parameter");
          }
          a[name] = scalar(c, v, name);
        }
        if (a.empty()) c.fail(en, "empty [[grid.exclude]]");
        p.exclude.push_back(std::move(a));
      }
    }
    if (grid.contains("include")) {
      for (const auto& in : *grid.get("include")->as_array()) {
        param_assignment a;
        for (auto&& [k, v] : *in.as_table()) {
          const std::string name(k.str());
          check_param(c, k.source(), name, "[[grid.include]]");
          a[name] = scalar(c, v, name);
        }
        if (a.empty()) c.fail(in, "empty [[grid.include]]");
        p.include.push_back(std::move(a));
      }
    }
  }

  // [fixed]
  if (root.contains("fixed")) {
    for (auto&& [k, v] : as_table(c, *root.get("fixed"), "[fixed]")) {
      const std::string name(k.str());
      check_param(c, k.source(), name, "[fixed]");
      if (swept.count(name) != 0)
        c.fail(k.source(), "parameter '" + name + "' is both swept and in [fixed]");
      if (v.is_array() || v.is_table()) {
        c.fail(v, "[fixed] parameter '" + name + "' must be a scalar (sweep lists in [grid])");
      }
      p.fixed[name] = scalar(c, v, name);
    }
  }

  // [quick]: always validated, applied only when quick.
  if (root.contains("quick")) {
    const auto& q = as_table(c, *root.get("quick"), "[quick]");
    bool block_set = false;
    for (auto&& [k, v] : q) {
      const std::string name(k.str());
      if (name == "replications") {
        const auto r = count(v, "quick.replications");
        if (quick) p.replications = r;
      } else if (name == "replication_block") {
        const auto r = count(v, "quick.replication_block");
        if (quick) p.replication_block = r;
        block_set = true;
      } else if (p.fixed.count(name) != 0) {
        if (v.is_array() || v.is_table())
          c.fail(v, "[quick] '" + name + "' replaces a [fixed] value and must be a scalar");
        auto val = scalar(c, v, name);
        if (quick) p.fixed[name] = std::move(val);
      } else {
        auto it = std::find_if(
            p.grid.begin(), p.grid.end(), [&](const grid_axis& a) { return a.name == name; });
        if (it == p.grid.end()) {
          check_param(c, k.source(), name, "[quick]");
          c.fail(k.source(),
                 "[quick] key '" + name +
                     "' is neither replications, replication_block, a [grid] parameter nor a "
                     "[fixed] parameter");
        }
        auto vals = axis_values(c, v, name);
        if (quick) it->values = std::move(vals);
      }
    }
    if (quick && !block_set) p.replication_block = std::min(p.replication_block, p.replications);
  }

  // Every required parameter must be set somewhere.
  for (const auto& d : c.drv->params) {
    if (d.default_value) continue;
    if (swept.count(d.name) != 0 || p.fixed.count(d.name) != 0) continue;
    c.fail_file("missing required parameter '" + d.name + "' of driver '" + p.driver +
                "' (no default; set it in [grid] or [fixed])");
  }

  // [[figure]] and [[rate]]
  auto tables = [&](const char* key) -> const toml::array* {
    if (!root.contains(key)) return nullptr;
    const toml::node& n = *root.get(key);
    if (!n.is_array_of_tables())
      c.fail(n, std::string(key) + " must be an array of tables ([[" + key + "]])");
    return n.as_array();
  };
  if (const auto* figs = tables("figure")) {
    std::set<std::string> names;
    for (std::size_t i = 0; i < figs->size(); ++i) {
      p.figures.push_back(parse_figure(c, *figs->get(i)->as_table(), i));
      if (!names.insert(p.figures.back().name).second) {
        c.fail(*figs->get(i), "duplicate figure name '" + p.figures.back().name + "'");
      }
      if (!valid_name(p.figures.back().name))
        c.fail(*figs->get(i), "figure name must match [A-Za-z0-9_.-]+");
    }
  }
  if (const auto* rates = tables("rate")) {
    std::set<std::string> names;
    for (std::size_t i = 0; i < rates->size(); ++i) {
      p.rates.push_back(parse_rate(c, *rates->get(i)->as_table(), i));
      if (!names.insert(p.rates.back().name).second) {
        c.fail(*rates->get(i), "duplicate rate name '" + p.rates.back().name + "'");
      }
    }
  }
  return p;
}

preset load_preset(const fs::path& path, bool quick, const std::vector<std::string>& overrides) {
  return parse_preset(read_file(path), path, quick, overrides);
}

// ---- discovery ----------------------------------------------------------------------------

namespace {
bool has_presets(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory(ec) && fs::is_regular_file(e.path() / "preset.toml", ec)) return true;
  }
  return false;
}
}  // namespace

fs::path experiments_dir() {
  if (const char* env = std::getenv("DPX_EXPERIMENTS_DIR"); env != nullptr && *env != '\0')
    return env;
  if (has_presets("experiments")) return "experiments";
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path share = exe.parent_path().parent_path() / "share" / "dpx" / "experiments";
    if (has_presets(share)) return share;
  }
  return fs::path(DPX_SOURCE_DIR) / "experiments";
}

fs::path find_preset(const std::string& arg) {
  std::error_code ec;
  fs::path as_path(arg);
  if (fs::is_regular_file(as_path, ec)) return as_path;
  if (as_path.extension() == ".toml" || arg.find('/') != std::string::npos) {
    throw preset_error(arg + ": no such preset file");
  }
  const fs::path dir = experiments_dir();
  fs::path candidate = dir / arg / "preset.toml";
  if (fs::is_regular_file(candidate, ec)) return candidate;
  std::vector<std::string> names;
  for (const auto& info : list_presets(dir)) names.push_back(info.name);
  throw preset_error("unknown preset '" + arg + "' (presets in " + dir.string() + ": " +
                     (names.empty() ? std::string("none") : join(names)) + ")");
}

std::vector<preset_info> list_presets(const fs::path& dir) {
  std::vector<preset_info> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const fs::path file = e.path() / "preset.toml";
    if (!fs::is_regular_file(file, ec)) continue;
    preset_info info;
    info.name = e.path().filename().string();
    info.path = file;
    try {
      const toml::table t = toml::parse(read_file(file), file.string());
      info.description = t["experiment"]["description"].value_or(std::string{});
    } catch (const std::exception& ex) {
      std::string m = ex.what();
      std::replace(m.begin(), m.end(), '\n', ' ');
      info.description = "(invalid preset: " + m + ")";
    }
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace dpx::harness
