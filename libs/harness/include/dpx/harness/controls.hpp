#pragma once
/// \file
/// Negative-control cells (docs/presets.md, "Controls"). A [[rate]] with `control = {...}`
/// adds, for every grid cell its check covers (its where filters and fit_range), a cell with
/// the overrides applied and the control column set to control_label(rate). Those cells run
/// with the same stream scheme (their keys include the label, so they are distinct cells with
/// their own streams) and the same check is fitted on them (fit_rates).

#include <string>
#include <vector>

#include "dpx/harness/preset.hpp"

namespace dpx::harness {

/// When p has any control: sets the control column to "" in the grid's own cells (which changes
/// their keys and ids: the marker is a resolved parameter like any other) and appends the
/// control cells of p's rates to cells (the expanded grid of p). Control cells shared by
/// several rates (equal overrides) are added once. Presets without controls are unchanged.
void add_control_cells(const preset& p,
                       const driver& d,
                       const std::vector<std::string>& swept,
                       std::vector<cell>& cells);

}  // namespace dpx::harness
