#pragma once
/// \file
/// Experiment drivers: a registered C++ function mapping (resolved parameters, RNG streams) to
/// one row of metrics. Presets name a driver; the runner calls it once per (cell, replication).
///
/// A driver must draw randomness only from cell_context::stream(...): that is what makes every
/// replication recomputable alone and results independent of threads, shards and order.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "dpx/core/rng.hpp"

namespace dpx::harness {

/// A resolved parameter value (TOML integer, float, string or boolean).
using param_value = std::variant<std::int64_t, double, std::string, bool>;

/// Canonical rendering used in cell keys, CSV columns and filters: integers in decimal,
/// doubles shortest round-trip (std::to_chars), booleans "true"/"false", strings verbatim.
std::string render(const param_value& v);

/// Resolved parameters of one cell, sorted by name.
class param_map {
 public:
  param_map() = default;
  explicit param_map(std::map<std::string, param_value> values) : values_(std::move(values)) {}

  bool contains(const std::string& name) const { return values_.count(name) != 0; }
  /// Typed access; throws std::invalid_argument naming the parameter when absent or of the
  /// wrong type. get_double accepts integers too.
  double get_double(const std::string& name) const;
  std::int64_t get_int(const std::string& name) const;
  std::string get_string(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  const param_value& at(const std::string& name) const;
  const std::map<std::string, param_value>& values() const noexcept { return values_; }
  void set(const std::string& name, param_value v) { values_[name] = std::move(v); }

 private:
  std::map<std::string, param_value> values_;
};

/// Everything a driver may use for one replication.
struct cell_context {
  const param_map& params;
  std::uint64_t cell_hash;  ///< hash of the full resolved parameter key
  std::uint64_t data_hash;  ///< hash of the driver's data_keys only (common random numbers)
  std::uint32_t replication;
  std::uint64_t base_seed;

  /// Engine for one purpose. purpose::data is keyed on data_hash, so every mechanism and every
  /// epsilon sees the same dataset in replication r; every other purpose on cell_hash.
  rng::philox4x32 stream(rng::purpose p) const {
    return rng::stream(base_seed, p == rng::purpose::data ? data_hash : cell_hash, replication, p);
  }
};

/// One row of metrics, in a fixed order (the first row's order defines the columns).
using metrics = std::vector<std::pair<std::string, double>>;

/// Check of one parameter value: throws std::invalid_argument saying what is wrong (the
/// caller adds the cell and the parameter name). Built by the helpers below.
using param_check = std::function<void(const param_value&)>;

/// Declared parameter of a driver (for validation and defaults).
struct param_decl {
  std::string name;
  std::string description;
  std::optional<param_value> default_value;  ///< nullopt = required
  /// Optional value check, run for every cell when the grid is expanded (before any
  /// replication). Independently of it, a parameter with a default must have the default's
  /// type (an integer default accepts integral numbers, a double default any number).
  param_check check = {};
};

/// Value checks for param_decl::check. Each accepts integers and doubles where numbers are
/// meant and rejects NaN.
param_check integer_at_least(std::int64_t lo);         ///< integral number >= lo
param_check finite();                                  ///< finite number
param_check positive();                                ///< number > 0 and finite
param_check non_negative();                            ///< number >= 0 and finite
param_check open_unit_interval();                      ///< number in (0, 1)
param_check one_of(std::vector<std::string> allowed);  ///< string among allowed

/// A driver's metric columns from one whitespace-separated list, in order:
/// `d.metric_names = harness::metric_list("sq_err oracle_mse tau");`. The names are declared
/// once per driver (the runner checks that run() returns exactly these, in this order; one
/// line of names instead of one line per name keeps the drivers' registrations from repeating
/// each other's shape). Throws std::invalid_argument naming `metric_names` for an empty list, a
/// name outside [A-Za-z0-9_] or a repeated name.
std::vector<std::string> metric_list(std::string_view names);

struct driver {
  std::string name;
  std::string version;  ///< bump when results change meaning (invalidates cache)
  std::string description;
  std::vector<param_decl> params;         ///< every parameter the driver accepts
  std::vector<std::string> data_keys;     ///< parameters that define the data (CRN key)
  std::vector<std::string> metric_names;  ///< the metrics run() returns, in order
  std::function<metrics(const cell_context&)> run;
  /// Optional whole-cell check (relations between parameters, or parsing the driver's own
  /// configuration without running it). Throws std::invalid_argument naming the parameter.
  std::function<void(const param_map&)> validate = {};
};

/// Validates one cell's parameters against the driver, before anything runs: every declared
/// parameter's default type and check, then driver.validate. Throws std::invalid_argument
/// "<parameter>: <problem>" for the first problem (expand_grid adds the cell).
void validate_params(const driver& d, const param_map& params);

/// Global driver registry (filled by static registration in the dpx tool and tests).
void register_driver(driver d);
const driver* find_driver(const std::string& name);
std::vector<std::string> driver_names();

/// Static registration helper: `const dpx::harness::driver_registrar reg{make_my_driver()};`
struct driver_registrar {
  explicit driver_registrar(driver d) { register_driver(std::move(d)); }
};

}  // namespace dpx::harness
