// Command-line overrides of preset keys (overrides.hpp; docs/presets.md, "Overrides").
#include "overrides.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "dpx/harness/preset.hpp"

namespace dpx::harness::detail {
namespace {

[[noreturn]] void fail(const std::string& set, const std::string& msg) {
  throw preset_error("--set " + set + ": " + msg);
}

bool is_index(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; });
}

std::vector<std::string> split_path(const std::string& key, const std::string& set) {
  std::vector<std::string> parts;
  std::string cur;
  for (char ch : key) {
    if (ch == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  parts.push_back(cur);
  for (const auto& p : parts) {
    if (p.empty()) fail(set, "empty component in key '" + key + "'");
  }
  return parts;
}

// A bare word (letters, digits, _ . -) that TOML cannot read as a value becomes a string, so
// that --set mechanism=laplace works without shell-quoted quotes.
bool bare_word(const std::string& v) {
  return !v.empty() && std::isalpha(static_cast<unsigned char>(v[0])) != 0 &&
         std::all_of(v.begin(), v.end(), [](unsigned char ch) {
           return std::isalnum(ch) != 0 || ch == '_' || ch == '.' || ch == '-';
         });
}

// The value as a TOML node whose source is "--set <key>".
toml::node_view<toml::node> parse_value(toml::table& holder,
                                        const std::string& key,
                                        const std::string& value,
                                        const std::string& set) {
  const std::string source = "--set " + key;
  try {
    holder = toml::parse("v = " + value + "\n", source);
  } catch (const toml::parse_error& e) {
    if (!bare_word(value)) {
      std::string d(e.description());
      std::replace(d.begin(), d.end(), '\n', ' ');
      fail(set, "value is not a TOML value (" + d + "; strings need quotes: key='\"text\"')");
    }
    holder = toml::parse("v = \"" + value + "\"\n", source);
  }
  if (holder.size() != 1) fail(set, "expected one value after '='");
  return holder["v"];
}

void erase_from_quick(toml::table& root, const std::string& name) {
  if (auto* q = root["quick"].as_table()) q->erase(name);
}

/// Applies one override and returns the key it set, as resolved: a bare name gets its table,
/// and grid.X / fixed.X both name parameter X (one home; see below).
std::string apply_one(toml::table& root, const std::string& set) {
  const auto eq = set.find('=');
  if (eq == std::string::npos || eq == 0) fail(set, "expected key=value");
  std::string key = set.substr(0, eq);
  const std::string value = set.substr(eq + 1);
  key.erase(key.find_last_not_of(" \t") + 1);
  std::vector<std::string> path = split_path(key, set);
  if (path.size() == 1 && !root.contains(path[0])) {
    // A bare name: the first of [experiment], [grid], [fixed] that has it.
    bool found = false;
    for (const char* t : {"experiment", "grid", "fixed"}) {
      const auto* tbl = root[t].as_table();
      if (tbl != nullptr && tbl->contains(path[0])) {
        path.insert(path.begin(), t);
        found = true;
        break;
      }
    }
    if (!found) {
      fail(set,
           "'" + key +
               "' is not a key of [experiment], [grid] or [fixed]; to add a parameter write "
               "grid." +
               key + " or fixed." + key);
    }
  }

  toml::table holder;
  toml::node_view<toml::node> v = parse_value(holder, key, value, set);

  // Walk to the parent (creating missing tables) and assign the last component.
  toml::node* cur = &root;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    const std::string& part = path[i];
    if (auto* tbl = cur->as_table()) {
      if (!tbl->contains(part)) tbl->insert(part, toml::table{});
      cur = tbl->get(part);
    } else if (auto* arr = cur->as_array(); arr != nullptr && is_index(part)) {
      const auto idx = std::stoul(part);
      if (idx >= arr->size()) {
        fail(set,
             "index " + part + " is past the end (" + std::to_string(arr->size()) + " elements)");
      }
      cur = arr->get(idx);
    } else {
      fail(set, "'" + part + "' does not lead to a table");
    }
  }
  const std::string& last = path.back();
  // Moved, not copied: a toml++ copy drops the source region that names the override in
  // validation errors.
  if (auto* tbl = cur->as_table()) {
    v.node()->visit([&](auto& n) { tbl->insert_or_assign(last, std::move(n)); });
  } else if (auto* arr = cur->as_array(); arr != nullptr && is_index(last)) {
    const auto idx = std::stoul(last);
    if (idx >= arr->size()) fail(set, "index " + last + " is past the end");
    v.node()->visit([&](auto& n) {
      arr->replace(arr->begin() + static_cast<std::ptrdiff_t>(idx), std::move(n));
    });
  } else {
    fail(set, "'" + key + "' does not lead to a table");
  }

  // One home per parameter, and the command line wins over [quick].
  if (path.size() == 2) {
    if (path[0] == "grid") {
      if (auto* f = root["fixed"].as_table()) f->erase(last);
      erase_from_quick(root, last);
    } else if (path[0] == "fixed") {
      if (auto* g = root["grid"].as_table()) g->erase(last);
      erase_from_quick(root, last);
    } else if (path[0] == "experiment" && (last == "replications" || last == "replication_block")) {
      erase_from_quick(root, last);
    }
  }
  if (path.size() == 2 && (path[0] == "grid" || path[0] == "fixed")) return "grid/fixed." + last;
  std::string resolved;
  for (const auto& part : path) resolved += (resolved.empty() ? "" : ".") + part;
  return resolved;
}

}  // namespace

void apply_overrides(toml::table& root, const std::vector<std::string>& sets) {
  // A key given twice would be last-wins silently: a typo in a long command line, or a
  // script's default and the user's value, with no sign of which one ran.
  std::vector<std::pair<std::string, std::string>> seen;  // resolved key, its --set
  for (const auto& s : sets) {
    const std::string key = apply_one(root, s);
    for (const auto& [k, first] : seen) {
      if (k == key) {
        const std::string name = key.rfind("grid/fixed.", 0) == 0 ? key.substr(11) : key;
        fail(s, "key '" + name + "' is already set by --set " + first + " (give each key once)");
      }
    }
    seen.emplace_back(key, s);
  }
}

}  // namespace dpx::harness::detail
