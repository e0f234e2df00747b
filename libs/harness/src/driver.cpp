#include "dpx/harness/driver.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>

#include "dpx/core/error.hpp"

namespace dpx::harness {

std::string render(const param_value& v) {
  struct visitor {
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return core::format_double(d); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
  };
  return std::visit(visitor{}, v);
}

const param_value& param_map::at(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    std::string known;
    for (const auto& [k, _] : values_) known += (known.empty() ? "" : ", ") + k;
    throw core::invalid_argument_error(
        "param_map", name, "(missing)", "parameter required by the driver; have: " + known);
  }
  return it->second;
}

double param_map::get_double(const std::string& name) const {
  const auto& v = at(name);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  throw core::invalid_argument_error("param_map", name, render(v), "must be a number");
}

std::int64_t param_map::get_int(const std::string& name) const {
  const auto& v = at(name);
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) {
    // Accept integral doubles (geometric grids produce doubles such as 1e4).
    if (*d == static_cast<double>(static_cast<std::int64_t>(*d)))
      return static_cast<std::int64_t>(*d);
  }
  throw core::invalid_argument_error("param_map", name, render(v), "must be an integer");
}

std::string param_map::get_string(const std::string& name) const {
  const auto& v = at(name);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  throw core::invalid_argument_error("param_map", name, render(v), "must be a string");
}

bool param_map::get_bool(const std::string& name) const {
  const auto& v = at(name);
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  throw core::invalid_argument_error("param_map", name, render(v), "must be a boolean");
}

namespace {

/// The value as a double, or nullopt when it is not a number.
std::optional<double> number_of(const param_value& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  return std::nullopt;
}

[[noreturn]] void reject(const param_value& v, const std::string& what) {
  const bool is_string = std::holds_alternative<std::string>(v);
  std::string shown = render(v);
  if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
  throw std::invalid_argument("= " + (is_string ? "\"" + shown + "\"" : shown) + " " + what);
}

double need_number(const param_value& v) {
  const auto x = number_of(v);
  if (!x) reject(v, "is not a number");
  if (std::isnan(*x)) reject(v, "is not a number");
  return *x;
}

/// The type a declared default implies: integers accept integral doubles (geometric grids
/// produce them), doubles accept integers.
void check_type(const param_value& def, const param_value& v) {
  if (std::holds_alternative<std::int64_t>(def)) {
    const auto x = number_of(v);
    if (!x || !(std::abs(*x) < 9.2e18) || *x != std::trunc(*x)) reject(v, "must be an integer");
  } else if (std::holds_alternative<double>(def)) {
    if (!number_of(v)) reject(v, "must be a number");
  } else if (std::holds_alternative<std::string>(def)) {
    if (!std::holds_alternative<std::string>(v)) reject(v, "must be a string");
  } else if (!std::holds_alternative<bool>(v)) {
    reject(v, "must be true or false");
  }
}

}  // namespace

param_check integer_at_least(std::int64_t lo) {
  return [lo](const param_value& v) {
    const double x = need_number(v);
    if (!(std::abs(x) < 9.2e18) || x != std::trunc(x)) reject(v, "must be an integer");
    if (x < static_cast<double>(lo)) reject(v, "must be >= " + std::to_string(lo));
  };
}

param_check finite() {
  return [](const param_value& v) {
    if (!std::isfinite(need_number(v))) reject(v, "must be finite");
  };
}

param_check positive() {
  return [](const param_value& v) {
    const double x = need_number(v);
    if (!(x > 0) || !std::isfinite(x)) reject(v, "must be > 0 and finite");
  };
}

param_check non_negative() {
  return [](const param_value& v) {
    const double x = need_number(v);
    if (!(x >= 0) || !std::isfinite(x)) reject(v, "must be >= 0 and finite");
  };
}

param_check open_unit_interval() {
  return [](const param_value& v) {
    const double x = need_number(v);
    if (!(x > 0 && x < 1)) reject(v, "must be in (0, 1)");
  };
}

param_check one_of(std::vector<std::string> allowed) {
  return [allowed = std::move(allowed)](const param_value& v) {
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + ("\"" + a + "\"");
    const auto* s = std::get_if<std::string>(&v);
    if (s == nullptr || std::find(allowed.begin(), allowed.end(), *s) == allowed.end()) {
      reject(v, "must be one of " + list);
    }
  };
}

std::vector<std::string> metric_list(std::string_view names) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < names.size()) {
    if (std::isspace(static_cast<unsigned char>(names[i])) != 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < names.size() && std::isspace(static_cast<unsigned char>(names[j])) == 0) ++j;
    std::string name(names.substr(i, j - i));
    for (const char c : name) {
      if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_')
        throw core::invalid_argument_error(
            "harness::metric_list", "metric_names", name, "names use only [A-Za-z0-9_]");
    }
    if (std::find(out.begin(), out.end(), name) != out.end())
      throw core::invalid_argument_error(
          "harness::metric_list", "metric_names", name, "is listed twice");
    out.push_back(std::move(name));
    i = j;
  }
  if (out.empty())
    throw core::invalid_argument_error(
        "harness::metric_list", "metric_names", "(empty)", "needs at least one name");
  return out;
}

void validate_params(const driver& d, const param_map& params) {
  for (const auto& decl : d.params) {
    if (!params.contains(decl.name)) continue;  // expand_grid reports missing required ones
    const param_value& v = params.at(decl.name);
    try {
      if (decl.default_value) check_type(*decl.default_value, v);
      if (decl.check) decl.check(v);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(decl.name + " " + e.what());
    }
  }
  if (d.validate) d.validate(params);
}

namespace {
std::vector<driver>& drivers() {
  static std::vector<driver> d;
  return d;
}
}  // namespace

void register_driver(driver d) {
  if (find_driver(d.name) != nullptr) {
    throw std::logic_error("driver registered twice: " + d.name);
  }
  drivers().push_back(std::move(d));
}

const driver* find_driver(const std::string& name) {
  for (const auto& d : drivers())
    if (d.name == name) return &d;
  return nullptr;
}

std::vector<std::string> driver_names() {
  std::vector<std::string> names;
  for (const auto& d : drivers()) names.push_back(d.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace dpx::harness
