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

/// Declared parameter of a driver (for validation and defaults).
struct param_decl {
  std::string name;
  std::string description;
  std::optional<param_value> default_value;  ///< nullopt = required
};

struct driver {
  std::string name;
  std::string version;  ///< bump when results change meaning (invalidates cache)
  std::string description;
  std::vector<param_decl> params;         ///< every parameter the driver accepts
  std::vector<std::string> data_keys;     ///< parameters that define the data (CRN key)
  std::vector<std::string> metric_names;  ///< the metrics run() returns, in order
  std::function<metrics(const cell_context&)> run;
};

/// Global driver registry (filled by static registration in the dpx tool and tests).
void register_driver(driver d);
const driver* find_driver(const std::string& name);
std::vector<std::string> driver_names();

/// Static registration helper: `const dpx::harness::driver_registrar reg{make_my_driver()};`
struct driver_registrar {
  explicit driver_registrar(driver d) { register_driver(std::move(d)); }
};

}  // namespace dpx::harness
