#pragma once
/// \file
/// Experiment presets (experiments/<name>/preset.toml, schema in docs/presets.md): strict
/// loading and validation against the named driver, grid expansion into cells, and preset
/// discovery.
///
/// Grid expansion order (docs/presets.md): cartesian product of [grid] x each [[grid.zip]]
/// group -> drop [[grid.exclude]] matches -> add [[grid.include]] cells -> merge [fixed] ->
/// fill driver defaults. A cell is identified by a hash of its fully resolved parameters, never
/// by its position, so ids survive reordering the preset and adding grid values.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpx/harness/analysis.hpp"
#include "dpx/harness/driver.hpp"

namespace dpx::harness {

/// A rejected preset. The message is one line, starting "<file>:<line>:<column>: " whenever
/// the problem has a source location.
class preset_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Parameter name -> value (sorted by name).
using param_assignment = std::map<std::string, param_value>;

/// One swept parameter of [grid] with its values in preset order (ranges: ascending).
struct grid_axis {
  std::string name;
  std::vector<param_value> values;
};

/// One [[grid.zip]] group: parameters varied together. rows[i][j] is the value of names[j] in
/// the i-th combination.
struct zip_group {
  std::vector<std::string> names;
  std::vector<std::vector<param_value>> rows;
};

/// A loaded, validated preset (with [quick] already applied when loaded with quick = true).
struct preset {
  std::filesystem::path path;      ///< the file it was loaded from
  std::string text;                ///< the file's bytes (hashed into the manifest)
  std::string name;                ///< [experiment] name: [A-Za-z0-9_.-]+, names results/<name>/
  std::string description;         ///< [experiment] description (one line in `dpx list`)
  std::string driver;              ///< registered driver name
  std::uint64_t base_seed = 0;     ///< keys every random stream
  std::uint32_t replications = 1;  ///< replications per cell, >= 1
  std::uint32_t replication_block = 1;    ///< replications per cached block, >= 1
  bool quick = false;                     ///< [quick] overrides applied
  std::vector<std::string> overrides;     ///< command-line "key=value" overrides applied
                                          ///< (`--set`; docs/presets.md), in order
  std::vector<grid_axis> grid;            ///< swept parameters, sorted by name
  std::vector<zip_group> zips;            ///< [[grid.zip]] groups
  std::vector<param_assignment> exclude;  ///< [[grid.exclude]]: drop cells matching all entries
  std::vector<param_assignment> include;  ///< [[grid.include]]: extra cells (before [fixed])
  param_assignment fixed;                 ///< [fixed]
  std::vector<figure_spec> figures;       ///< [[figure]]
  std::vector<rate_spec> rates;           ///< [[rate]]
};

/// One fully resolved cell of the grid.
struct cell {
  param_map params;             ///< every parameter the driver declares, resolved
  std::string key;              ///< "a=1;b=x;..." sorted by name, values rendered with render()
  std::uint64_t hash = 0;       ///< core::stable_hash(key)
  std::string id;               ///< core::hex16(hash): directory name cells/<id>/
  std::uint64_t data_hash = 0;  ///< stable_hash("<driver>|" + key restricted to data_keys)
  std::string slug;             ///< readable "n=1000_eps=0.5" of the swept parameters
};

/// Loads and validates a preset file (see docs/presets.md). Throws preset_error (a
/// std::invalid_argument) with file:line:column for syntax errors, unknown keys, wrong types,
/// unknown drivers (listing the registered ones), unknown parameters (listing the driver's),
/// missing required parameters and figure/rate fields naming unknown parameters or metrics.
/// With quick = true the [quick] table's overrides are applied. overrides ("key=value", the
/// `--set` of `dpx run`) edit the parsed TOML before any validation, so their values are typed
/// and checked exactly as in the file (docs/presets.md, "Overrides"); errors name the override.
preset load_preset(const std::filesystem::path& path,
                   bool quick = false,
                   const std::vector<std::string>& overrides = {});

/// Same, from text (path is used for messages only).
preset parse_preset(const std::string& text,
                    const std::filesystem::path& path,
                    bool quick = false,
                    const std::vector<std::string>& overrides = {});

/// Most cells a grid may have (the product of its axes, before de-duplication): a larger grid
/// is a typo (e.g. points = 100000000), rejected before it is built.
inline constexpr std::size_t max_grid_cells = 1'000'000;
/// Most points of one geometric/linear range.
inline constexpr std::int64_t max_range_points = 100'000;
/// Most replication blocks of one run (cells × ceil(replications / replication_block)): each is
/// a file pair and a cache check, so replication_block = 1 with 1e8 replications is refused
/// before anything is planned.
inline constexpr std::size_t max_run_blocks = 1'000'000;
/// Largest estimated memory of one run's merged results (run_memory_estimate): the analysis
/// holds every replication's row at once.
inline constexpr std::size_t max_run_memory_bytes = std::size_t{4} << 30;

/// Estimated bytes of the merged results of a run of cells: per replication, one tidy row
/// (its fixed part, its rendered parameters and its metrics) and its line of tidy.csv.
std::size_t run_memory_estimate(const preset& p, const std::vector<cell>& cells);

/// Expands the grid into cells (see the file comment for the order). Duplicate cells (same
/// key) are kept once, at their first position. Validates every cell's parameters with
/// validate_params (driver.hpp) before returning. Throws preset_error naming the cell and the
/// parameter if a value is invalid, if a cell lacks a required parameter, if the grid has
/// more than max_grid_cells cells or if it is empty, and (naming replications and
/// replication_block) if the run would have more than max_run_blocks blocks or its results an
/// estimated size above max_run_memory_bytes.
std::vector<cell> expand_grid(const preset& p);

/// Builds the cell for one resolved parameter set (used by expand_grid; exposed for tests).
/// swept lists the parameters that make up the slug.
cell make_cell(const driver& d, param_map params, const std::vector<std::string>& swept);

/// The directory searched for presets by name: $DPX_EXPERIMENTS_DIR, else ./experiments if it
/// holds at least one <name>/preset.toml, else <exe dir>/../share/dpx/experiments, else the
/// source tree's experiments/.
std::filesystem::path experiments_dir();

/// Resolves a PRESET argument: an existing file path (or anything ending in .toml) is used as
/// is; otherwise <experiments_dir()>/<arg>/preset.toml. Throws preset_error listing the
/// available presets when not found.
std::filesystem::path find_preset(const std::string& arg);

/// One entry of `dpx list`.
struct preset_info {
  std::string name;         ///< directory name under the experiments dir
  std::string description;  ///< [experiment] description, or "(invalid preset: ...)"
  std::filesystem::path path;
};

/// Every <dir>/<name>/preset.toml, sorted by name. Only [experiment] is read (no validation).
std::vector<preset_info> list_presets(const std::filesystem::path& dir);

}  // namespace dpx::harness
