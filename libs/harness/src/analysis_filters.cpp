// Shared analysis helpers: joining, number parsing, numeric-aware ordering of rendered
// parameter values and row filters.
#include <algorithm>
#include <charconv>

#include "analysis_internal.hpp"

namespace dpx::harness::analysis_internal {

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

bool parse_number(const std::string& s, double& out) {
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

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

bool values_less::operator()(const std::vector<std::string>& a,
                             const std::vector<std::string>& b) const {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (value_less(a[i], b[i])) return true;
    if (value_less(b[i], a[i])) return false;
  }
  return a.size() < b.size();
}

std::string rate_name(const rate_spec& r) { return r.name.empty() ? r.y + "_vs_" + r.x : r.name; }

bool row_matches(const tidy_row& row, const resolved_filters& filters) {
  for (const auto& [i, v] : filters) {
    if (row.params[i] != v) return false;
  }
  return true;
}

resolved_filters resolve_filters(const tidy_table& t, const std::vector<row_filter>& where) {
  resolved_filters out;
  out.reserve(where.size());
  for (const auto& f : where) out.emplace_back(t.param_index(f.name), f.value);
  return out;
}

tidy_table rows_with_control(const tidy_table& t, const std::string& label) {
  if (!t.has_param(control_column)) return label.empty() ? t : tidy_table{};
  const std::size_t ci = t.param_index(control_column);
  tidy_table out;
  out.metric_names = t.metric_names;
  for (std::size_t i = 0; i < t.param_names.size(); ++i) {
    if (i != ci) out.param_names.push_back(t.param_names[i]);
  }
  for (const auto& row : t.rows) {
    if (row.params[ci] != label) continue;
    tidy_row r = row;
    r.params.erase(r.params.begin() + static_cast<std::ptrdiff_t>(ci));
    out.rows.push_back(std::move(r));
  }
  return out;
}

}  // namespace dpx::harness::analysis_internal
