// Negative-control cells of a preset's rate checks (docs/presets.md, "Controls").
#include "dpx/harness/controls.hpp"

#include <charconv>
#include <set>

namespace dpx::harness {

namespace {

/// Does the cell fall in the rate's covered subset: its where filters, and x inside fit_range?
bool covers(const rate_spec& r, const cell& c) {
  for (const auto& w : r.where) {
    const auto& values = c.params.values();
    auto it = values.find(w.name);
    if (it == values.end() || render(it->second) != w.value) return false;
  }
  if (r.fit_range) {
    const auto& values = c.params.values();
    auto it = values.find(r.x);
    if (it == values.end()) return false;
    const std::string s = render(it->second);
    double x = 0;
    const auto res = std::from_chars(s.data(), s.data() + s.size(), x);
    if (res.ec == std::errc() && (x < r.fit_range->first || x > r.fit_range->second)) return false;
  }
  return true;
}

}  // namespace

void add_control_cells(const preset& p,
                       const driver& d,
                       const std::vector<std::string>& swept,
                       std::vector<cell>& cells) {
  bool any = false;
  for (const auto& r : p.rates) any = any || !r.control.empty();
  if (!any) return;
  std::set<std::string> seen;
  const std::size_t n_grid = cells.size();
  std::vector<cell> extra;
  for (const auto& r : p.rates) {
    if (r.control.empty()) continue;
    const std::string label = control_label(r);
    for (std::size_t i = 0; i < n_grid; ++i) {
      if (!covers(r, cells[i])) continue;
      auto values = cells[i].params.values();
      for (const auto& [k, v] : r.control) values[k] = v;
      values[control_column] = label;
      cell c = make_cell(d, param_map(std::move(values)), swept);
      if (seen.insert(c.key).second) extra.push_back(std::move(c));
    }
  }
  // The marker is a resolved parameter of every cell, so the grid's own cells get new keys
  // ("control=" included) once a preset declares its first control: blocks cached before, which
  // lack the column, are then simply not found instead of failing the merge.
  for (std::size_t i = 0; i < n_grid; ++i) {
    auto values = cells[i].params.values();
    values[control_column] = std::string();
    cells[i] = make_cell(d, param_map(std::move(values)), swept);
  }
  for (auto& c : extra) cells.push_back(std::move(c));
}

}  // namespace dpx::harness
