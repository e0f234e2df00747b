#pragma once
// The presentation fields of a figure spec in figures/figures.json (read by dpx_plot.py).

#include <nlohmann/json.hpp>

#include "dpx/harness/analysis.hpp"

namespace dpx::harness::detail {

/// Adds labels, series_order, marked, deterministic, y_range, max_series and style to jf
/// (docs/outputs.md, "Figures").
void add_presentation(nlohmann::ordered_json& jf, const figure_spec& f);

}  // namespace dpx::harness::detail
