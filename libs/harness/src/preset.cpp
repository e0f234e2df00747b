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
#include "preset_parse.hpp"

namespace dpx::harness {

namespace preset_parse {

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

}  // namespace preset_parse

using namespace preset_parse;

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

}  // namespace dpx::harness
