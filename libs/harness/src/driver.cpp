#include "dpx/harness/driver.hpp"

#include <algorithm>
#include <memory>
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
