#pragma once
// Command-line overrides of preset keys (`dpx run PRESET --set key=value`), applied to the
// parsed TOML table before the preset's normal validation (docs/presets.md, "Overrides").

#include <string>
#include <vector>

#include <toml++/toml.h>

namespace dpx::harness::detail {

/// Applies each "key=value" of sets, in order, to root. key is a dotted path from the root
/// (experiment.replications, grid.epsilon, fixed.delta, rate.0.tolerance: array elements by
/// index) or a bare name looked up in [experiment], then [grid], then [fixed]. value is a TOML
/// value (1e-5, [0.1, 1], "laplace", { geometric = [100, 1e4], points = 5 }); a bare word that
/// is not a TOML value (laplace) is taken as a string. Setting grid.X removes fixed.X and the
/// reverse (a parameter lives in one table); setting experiment.replications,
/// experiment.replication_block, grid.X or fixed.X also removes that key from [quick], so the
/// command line wins over the quick form. The new values carry the source "--set <key>", so
/// validation errors name the override. Throws preset_error naming the override when the text
/// is not key=value, the value does not parse or the path does not lead to a table.
void apply_overrides(toml::table& root, const std::vector<std::string>& sets);

}  // namespace dpx::harness::detail
