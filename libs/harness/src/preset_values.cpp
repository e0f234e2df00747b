// Preset parsing, part 1: TOML accessors with located errors and parameter values (scalars,
// [grid] axes, `where` filters). Schema: docs/presets.md.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "preset_parse.hpp"

namespace dpx::harness::preset_parse {

std::string join(const std::vector<std::string>& v, const std::string& sep) {
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
    // nan and -inf never mean anything; +inf is a value some parameters take (epsilon = inf:
    // no privacy noise, online_kernel_rate), and each driver's own checks reject it elsewhere.
    const double x = n.as_floating_point()->get();
    if (std::isnan(x) || x == -std::numeric_limits<double>::infinity()) {
      c.fail(n, "parameter '" + name + "' must not be nan or -inf");
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

}  // namespace dpx::harness::preset_parse
