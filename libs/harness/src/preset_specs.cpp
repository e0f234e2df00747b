// Preset parsing, part 2: the [[figure]] and [[rate]] tables. Schema: docs/presets.md.
#include <algorithm>
#include <cmath>
#include <set>

#include "preset_parse.hpp"

namespace dpx::harness::preset_parse {

namespace {

// The keys a [[figure]] / [[rate]] table may have (docs/presets.md), in the order an unknown
// key's error lists them.
// clang-format off
const std::vector<std::string> kFigureKeys = {
    "name", "title", "x", "y", "statistic", "series", "where", "logx", "logy", "reference_slopes",
    "xlabel", "ylabel", "labels", "series_order", "marked", "deterministic", "y_range",
    "max_series", "style"};
const std::vector<std::string> kRateKeys = {
    "name", "x", "y", "statistic", "group_by", "where", "fit_range", "expected_slope", "tolerance",
    "informational", "check", "description", "claim", "kind", "bound_constant", "bound_lower", "control",
    "control_description", "control_replications", "expect"};
// clang-format on

/// The keys [[figure]] and [[rate]] share (name, x, y, statistic, where), parsed and checked
/// into spec; false for any other key.
template <class Spec>
bool parse_shared_key(const ctx& c,
                      const std::string& key,
                      const toml::node& v,
                      const std::string& w,
                      const std::string& what,
                      Spec& spec) {
  if (key == "name") {
    spec.name = get_string(c, v, w);
  } else if (key == "x") {
    spec.x = get_string(c, v, w);
    check_param(c, v.source(), spec.x, w);
  } else if (key == "y") {
    spec.y = get_string(c, v, w);
    check_metric(c, v, spec.y, w);
  } else if (key == "statistic") {
    spec.statistic = get_string(c, v, w);
    check_statistic(c, v, spec.statistic);
  } else if (key == "where") {
    spec.where = parse_where(c, v, what);
  } else {
    return false;
  }
  return true;
}

}  // namespace

figure_spec parse_figure(const ctx& c, const toml::table& t, std::size_t index) {
  const std::string what = "[[figure]] #" + std::to_string(index + 1);
  check_keys(c, t, kFigureKeys, what);
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
    if (parse_shared_key(c, key, v, w, what, f)) continue;
    if (key == "title")
      f.title = get_string(c, v, w);
    else if (key == "series") {
      f.series = get_string_list(c, v, w);
      for (const auto& s : f.series) check_param(c, v.source(), s, w);
    } else if (key == "logx")
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
  check_keys(c, t, kRateKeys, what);
  // ratio_flat's expected slope is 0 and ratio_bound and audit have none.
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
    if (parse_shared_key(c, key, v, w, what, r)) continue;
    if (key == "group_by") {
      r.group_by = get_string_list(c, v, w);
      for (const auto& s : r.group_by) check_param(c, v.source(), s, w);
    } else if (key == "fit_range") {
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
      else if (m == "audit")
        r.kind = rate_kind::audit;
      else
        c.fail(
            v,
            // NOLINTNEXTLINE(performance-inefficient-string-concatenation): error path
            w + " = '" + m + "' must be \"slope\", \"ratio_flat\", \"ratio_bound\" or \"audit\"");
    } else if (key == "expect") {
      const std::string m = get_string(c, v, w);
      if (m == "holds")
        r.expect = rate_expect::holds;
      else if (m == "refuted")
        r.expect = rate_expect::refuted;
      else
        // NOLINTNEXTLINE(performance-inefficient-string-concatenation): error path
        c.fail(v, w + " = '" + m + "' must be \"holds\" or \"refuted\"");
    } else if (key == "bound_constant") {
      r.bound_constant = get_number(c, v, w);
      if (!(r.bound_constant > 0) || !std::isfinite(r.bound_constant))
        c.fail(v, w + " must be finite and > 0");
    } else if (key == "bound_lower") {
      r.bound_lower = get_number(c, v, w);
      if (!(r.bound_lower > 0) || !std::isfinite(r.bound_lower))
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
  if (r.kind != rate_kind::ratio_bound && r.kind != rate_kind::audit &&
      t.contains("bound_constant"))
    c.fail(*t.get("bound_constant"),
           what + ".bound_constant needs kind = \"ratio_bound\" or \"audit\"");
  if (r.kind == rate_kind::audit && t.contains("expected_slope"))
    c.fail(*t.get("expected_slope"), what + ".expected_slope has no meaning for kind = \"audit\"");
  if (r.kind == rate_kind::audit && t.contains("statistic"))
    c.fail(*t.get("statistic"),
           what + ".statistic has no meaning for kind = \"audit\" (every audit is compared)");
  if (r.expect == rate_expect::refuted && r.control.empty())
    c.fail(t,
           what +
               ".expect = \"refuted\" needs 'control' (the positive control, which must pass "
               "the same check)");
  if (r.kind != rate_kind::ratio_bound && t.contains("bound_lower"))
    c.fail(*t.get("bound_lower"), what + ".bound_lower needs kind = \"ratio_bound\"");
  if (t.contains("bound_lower") && !(r.bound_lower < r.bound_constant))
    c.fail(*t.get("bound_lower"), what + ".bound_lower must be < bound_constant");
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

}  // namespace dpx::harness::preset_parse
