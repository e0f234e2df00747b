// Grid expansion and cell identity (docs/presets.md, "Cells").
#include <algorithm>
#include <limits>
#include <set>

#include "dpx/core/hash.hpp"
#include "dpx/harness/controls.hpp"
#include "dpx/harness/preset.hpp"
#include "dpx/harness/results.hpp"

namespace dpx::harness {

cell make_cell(const driver& d, param_map params, const std::vector<std::string>& swept) {
  cell c;
  std::string data_key;
  for (const auto& [name, value] : params.values()) {
    const std::string item = name + "=" + render(value);
    c.key += (c.key.empty() ? "" : ";") + item;
    if (std::find(d.data_keys.begin(), d.data_keys.end(), name) != d.data_keys.end()) {
      data_key += (data_key.empty() ? "" : ";") + item;
    }
    if (std::find(swept.begin(), swept.end(), name) != swept.end()) {
      c.slug += (c.slug.empty() ? "" : "_") + item;
    }
  }
  c.hash = core::stable_hash(c.key);
  c.id = core::hex16(c.hash);
  c.data_hash = core::stable_hash(d.name + "|" + data_key);
  c.params = std::move(params);
  return c;
}

std::size_t run_memory_estimate(const preset& p, const std::vector<cell>& cells) {
  std::size_t total = 0;
  const driver* d = find_driver(p.driver);
  const std::size_t metrics = d == nullptr ? 0 : d->metric_names.size();
  constexpr std::size_t most = std::numeric_limits<std::size_t>::max();
  for (const cell& c : cells) {
    // A row: the struct, one std::string per parameter (plus its heap text past the small-string
    // buffer), one double per metric; its CSV line: id, replication, values, metrics (25 bytes
    // each at most: shortest round trip) and separators.
    std::size_t row = sizeof(tidy_row) + metrics * (sizeof(double) + 26) + 48;
    for (const auto& [_, v] : c.params.values()) {
      const std::size_t len = render(v).size();
      row += sizeof(std::string) + (len > 15 ? len + 1 : 0) + len + 1;
    }
    const std::size_t add = row * p.replications;
    total = total > most - add ? most : total + add;
  }
  return total;
}

namespace {

/// Refuses a run too large to plan or to hold (max_run_blocks, max_run_memory_bytes).
void check_run_size(const preset& p, const std::vector<cell>& cells) {
  const std::size_t per_cell =
      (static_cast<std::size_t>(p.replications) + p.replication_block - 1) / p.replication_block;
  const std::string where =
      p.quick ? " ([experiment] or [quick], or --set)" : " ([experiment] or --set)";
  if (per_cell > max_run_blocks / cells.size()) {
    // At most 1e6 cells x 1e8 blocks: the product fits in 64 bits.
    throw preset_error(
        p.path.string() + ": the run has " + std::to_string(cells.size() * per_cell) + " blocks (" +
        std::to_string(cells.size()) + " cells x " + std::to_string(per_cell) +
        " = replications / replication_block), more than " + std::to_string(max_run_blocks) +
        ": raise replication_block or lower replications" + where);
  }
  const std::size_t bytes = run_memory_estimate(p, cells);
  if (bytes > max_run_memory_bytes) {
    throw preset_error(p.path.string() + ": the results of " + std::to_string(cells.size()) +
                       " cells x " + std::to_string(p.replications) +
                       " replications would take about " + std::to_string(bytes >> 20) +
                       " MiB, more than " + std::to_string(max_run_memory_bytes >> 20) +
                       " MiB: lower replications or the number of cells" + where);
  }
}

}  // namespace

std::vector<cell> expand_grid(const preset& p) {
  const driver* d = find_driver(p.driver);
  if (d == nullptr) throw preset_error(p.path.string() + ": unknown driver '" + p.driver + "'");

  // 0. Bound the grid before building it: the product of the axis lengths, zip lengths and
  // includes, computed without overflow.
  {
    std::size_t total = 1;
    const auto times = [&](std::size_t k) {
      total = (k != 0 && total > max_grid_cells / k) ? max_grid_cells + 1 : total * k;
    };
    for (const auto& axis : p.grid) times(axis.values.size());
    for (const auto& zip : p.zips) times(zip.rows.size());
    if (total <= max_grid_cells) total += p.include.size();
    if (total > max_grid_cells) {
      throw preset_error(p.path.string() + ": the grid has more than " +
                         std::to_string(max_grid_cells) +
                         " cells (the product of its axes); split the preset or use fewer "
                         "points");
    }
  }
  // 1. Cartesian product of [grid] axes and zip groups (first axis outermost).
  std::vector<param_assignment> cells{param_assignment{}};
  for (const auto& axis : p.grid) {
    std::vector<param_assignment> next;
    next.reserve(cells.size() * axis.values.size());
    for (const auto& base : cells) {
      for (const auto& v : axis.values) {
        auto a = base;
        a[axis.name] = v;
        next.push_back(std::move(a));
      }
    }
    cells = std::move(next);
  }
  for (const auto& zip : p.zips) {
    std::vector<param_assignment> next;
    for (const auto& base : cells) {
      for (const auto& row : zip.rows) {
        auto a = base;
        for (std::size_t j = 0; j < zip.names.size(); ++j) a[zip.names[j]] = row[j];
        next.push_back(std::move(a));
      }
    }
    cells = std::move(next);
  }
  // 2. Drop cells matching every entry of some exclude table (values compared as rendered).
  auto matches = [](const param_assignment& cellv, const param_assignment& ex) {
    for (const auto& [k, v] : ex) {
      auto it = cellv.find(k);
      if (it == cellv.end() || render(it->second) != render(v)) return false;
    }
    return true;
  };
  std::erase_if(cells, [&](const param_assignment& a) {
    return std::any_of(
        p.exclude.begin(), p.exclude.end(), [&](const auto& ex) { return matches(a, ex); });
  });
  // 3. Add include cells.
  for (const auto& inc : p.include) cells.push_back(inc);

  std::vector<std::string> swept;
  for (const auto& a : p.grid) swept.push_back(a.name);
  for (const auto& z : p.zips) swept.insert(swept.end(), z.names.begin(), z.names.end());
  for (const auto& inc : p.include)
    for (const auto& [k, _] : inc)
      if (std::find(swept.begin(), swept.end(), k) == swept.end()) swept.push_back(k);

  // 4. Merge [fixed] (values already set by an include win), 5. fill defaults.
  std::vector<cell> out;
  std::set<std::string> seen;
  for (auto& a : cells) {
    for (const auto& [k, v] : p.fixed) a.emplace(k, v);
    for (const auto& decl : d->params) {
      if (a.count(decl.name) != 0) continue;
      if (!decl.default_value) {
        throw preset_error(p.path.string() + ": a cell lacks required parameter '" + decl.name +
                           "' of driver '" + d->name +
                           "' (set it in [grid], [fixed] or every [[grid.include]])");
      }
      a[decl.name] = *decl.default_value;
    }
    cell c = make_cell(*d, param_map(std::move(a)), swept);
    if (!seen.insert(c.key).second) continue;
    // Validation before compute: a bad value stops the run here (exit 2), naming the cell.
    try {
      validate_params(*d, c.params);
    } catch (const std::invalid_argument& e) {
      throw preset_error(p.path.string() + ": cell " + c.id + " (" +
                         (c.slug.empty() ? c.key : c.slug) + "): " + e.what());
    }
    out.push_back(std::move(c));
  }
  add_control_cells(p, *d, swept, out);  // negative controls of the rate checks
  if (out.empty())
    throw preset_error(p.path.string() + ": the grid is empty (everything excluded)");
  check_run_size(p, out);
  return out;
}

}  // namespace dpx::harness
