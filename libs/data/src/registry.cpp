#include "dpx/data/registry.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "dpx/core/error.hpp"
#include "models.hpp"

namespace dpx::data {
namespace {

std::string number_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

}  // namespace

// ---- the list -------------------------------------------------------------------------------
// Explicit, not self-registering: dpx_data is a static library, and a linker drops object files
// nobody references, so a static registrar in a model's file would silently vanish.
const std::vector<model_entry>& models() {
  static const std::vector<model_entry> list = [] {
    std::vector<model_entry> v;
    for (auto* make : {&model_defs::iid_gaussian_model,
                       &model_defs::student_t_model,
                       &model_defs::uniform_model,
                       &model_defs::beta_model,
                       &model_defs::ar1_model,
                       &model_defs::ar1_t_model,
                       &model_defs::arp_model,
                       &model_defs::ma_model,
                       &model_defs::arma_model,
                       &model_defs::var1_model,
                       &model_defs::toeplitz_model,
                       &model_defs::equicorrelated_model,
                       &model_defs::fgn_model,
                       &model_defs::block_toeplitz_model,
                       &model_defs::random_effects_model,
                       &model_defs::longitudinal_model,
                       &model_defs::nonparametric_model,
                       &model_defs::sparse_linear_model,
                       &model_defs::sparse_logistic_model})
      v.push_back(make());
    return v;
  }();
  return list;
}

std::string model_names() {
  std::string s;
  for (const auto& m : models()) s += (s.empty() ? "" : ", ") + m.name;
  return s;
}

const model_entry& find_model(std::string_view name) {
  for (const auto& m : models())
    if (m.name == name) return m;
  core::throw_invalid("generate", "model", std::string(name), "unknown (" + model_names() + ")");
}

const param_spec* model_entry::find_param(std::string_view n) const noexcept {
  for (const auto& p : params)
    if (p.name == n) return &p;
  return nullptr;
}

// ---- ranges and specs -----------------------------------------------------------------------
bool param_range::contains(double x) const noexcept {
  if (std::isnan(x)) return false;
  const bool above = lo_open ? x > lo : x >= lo;
  const bool below = hi_open ? x < hi : x <= hi;
  return above && below;
}

std::string param_range::text() const {
  return (lo_open ? "(" : "[") + number_text(lo) + ", " + number_text(hi) + (hi_open ? ")" : "]");
}

std::string param_spec::default_text() const {
  return default_value.empty() ? "<" + default_note + ">" : default_value;
}

std::string param_spec::range_text() const {
  switch (type) {
    case param_type::choice: {
      std::string s;
      for (const auto& c : choices) s += (s.empty() ? "" : "|") + c;
      return "one of " + s;
    }
    case param_type::real_list:
      return "entries in " + range.text();
    default:
      return range.text();
  }
}

// ---- values ---------------------------------------------------------------------------------
param_values::param_values(const model_entry& model, naming names) : model_(&model), names_(names) {
  for (const auto& s : model.params)
    if (!s.default_value.empty() || s.type != param_type::real_list)
      assign(s, s.default_value);
    else
      values_[s.name] = std::vector<double>{};
}

param_values::param_values(const model_entry& model,
                           const std::map<std::string, std::string>& given,
                           naming names)
    : param_values(model, names) {
  for (const auto& [k, text] : given) {
    const param_spec* s = model.find_param(k);
    if (!s) core::throw_invalid(fn(), label(k), text, "is not a parameter of model " + model.name);
    assign(*s, text);
  }
}

std::string param_values::fn() const {
  return names_ == naming::cli ? "generate" : "dpx::data::" + model_->name;
}

std::string param_values::label(std::string_view name) const {
  std::string s(name);
  if (names_ == naming::plain) return s;
  for (char& c : s)
    if (c == '_') c = '-';
  return "--" + s;
}

const param_spec& param_values::spec(std::string_view name) const {
  const param_spec* s = model_->find_param(name);
  if (!s)
    core::throw_invalid(fn(), label(name), 0.0, "is not a parameter of model " + model_->name);
  return *s;
}

void param_values::assign(const param_spec& s, const std::string& text) {
  auto parse_real = [&](std::string_view t) {
    double v = 0.0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || p != t.data() + t.size())
      core::throw_invalid(fn(), label(s.name), text, "must be a number");
    return v;
  };
  value v;
  switch (s.type) {
    case param_type::real:
      v = parse_real(text);
      break;
    case param_type::count: {
      unsigned long long c = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), c);
      if (text.empty() || ec != std::errc() || p != text.data() + text.size())
        core::throw_invalid(fn(), label(s.name), text, "must be a non-negative integer");
      v = static_cast<std::size_t>(c);
      break;
    }
    case param_type::real_list: {
      std::vector<double> out;
      std::stringstream ss(text);
      std::string item;
      while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(parse_real(item));
      if (out.empty())
        core::throw_invalid(fn(), label(s.name), text, "must list at least one number");
      v = std::move(out);
      break;
    }
    case param_type::choice:
      v = text;
      break;
  }
  check(s, v);
  values_[s.name] = std::move(v);
}

void param_values::check(const param_spec& s, const value& v) const {
  auto in_range = [&](double x) {
    if (!s.range.contains(x))
      core::throw_invalid(fn(), label(s.name), x, "must be in " + s.range.text());
  };
  if (const auto* d = std::get_if<double>(&v)) in_range(*d);
  if (const auto* c = std::get_if<std::size_t>(&v)) in_range(static_cast<double>(*c));
  if (const auto* l = std::get_if<std::vector<double>>(&v))
    for (double x : *l) in_range(x);
  if (const auto* w = std::get_if<std::string>(&v)) {
    for (const auto& c : s.choices)
      if (c == *w) return;
    core::throw_invalid(fn(), label(s.name), *w, "must be " + s.range_text());
  }
}

param_values& param_values::set(std::string_view name, double x) {
  const param_spec& s = spec(name);
  if (s.type != param_type::real) core::throw_invalid(fn(), label(name), x, "is not a real");
  check(s, x);
  values_[s.name] = x;
  return *this;
}
param_values& param_values::set(std::string_view name, std::vector<double> x) {
  const param_spec& s = spec(name);
  if (s.type != param_type::real_list) core::throw_invalid(fn(), label(name), 0.0, "is not a list");
  check(s, x);
  values_[s.name] = std::move(x);
  return *this;
}
param_values& param_values::set_choice(std::string_view name, std::string x) {
  const param_spec& s = spec(name);
  if (s.type != param_type::choice) core::throw_invalid(fn(), label(name), x, "is not a choice");
  check(s, x);
  values_[s.name] = std::move(x);
  return *this;
}

double param_values::real(std::string_view name) const {
  return std::get<double>(values_.find(spec(name).name)->second);
}
std::size_t param_values::count(std::string_view name) const {
  return std::get<std::size_t>(values_.find(spec(name).name)->second);
}
const std::vector<double>& param_values::list(std::string_view name) const {
  return std::get<std::vector<double>>(values_.find(spec(name).name)->second);
}
const std::string& param_values::choice(std::string_view name) const {
  return std::get<std::string>(values_.find(spec(name).name)->second);
}

// ---- descriptions ---------------------------------------------------------------------------
description& description::add(std::string key, description_value v) {
  for (auto& [k, old] : items)
    if (k == key) {
      old = std::move(v);
      return *this;
    }
  items.emplace_back(std::move(key), std::move(v));
  return *this;
}

const description_value* description::find(std::string_view key) const {
  for (const auto& [k, v] : items)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace dpx::data
