#pragma once
/// \file
/// The registry of dpx::data models: the one list of the models the library can generate by
/// name. Each entry declares the model's name, its parameters (type, default, valid range,
/// description), its generator (rows written to a `table_sink`) and its exact theory (the
/// quantities `dpx generate MODEL --describe` prints). `dpx generate`, its `--help`, the
/// dependent-data experiment drivers and the tests all read this list; nothing else names the
/// models.
///
/// Adding a model (docs/data.md, "Adding a model"): write `libs/data/src/model_<name>.cpp`
/// defining `model_entry <name>_model()` and add one line to the list in
/// `libs/data/src/registry.cpp`. The test `data_registry_test` then checks that the defaults
/// validate, generate finite rows and describe.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "dpx/core/rng.hpp"

namespace dpx::data {

/// How a parameter's value is written and read.
enum class param_type {
  real,       ///< a double
  count,      ///< a non-negative integer
  real_list,  ///< comma-separated doubles ("0.5,-0.2"); the range applies to each entry
  choice,     ///< one word out of `choices`
};

/// The valid values of a real or count parameter (of each entry of a list): lo ≤ x ≤ hi, with
/// strict inequalities where `lo_open` / `hi_open`.
struct param_range {
  double lo = -1e150;
  double hi = 1e150;
  bool lo_open = false;
  bool hi_open = false;
  bool contains(double x) const noexcept;
  std::string text() const;  ///< "(-1, 1)", "[1, 1e+09]", ...
};

/// Location parameters: finite and small enough that location + noise stays finite.
inline constexpr param_range any_location{-1e150, 1e150, false, false};
/// Scale parameters (standard deviations): > 0 and ≤ 1e150 so that variances (scale²) and the
/// generated values stay finite (`generate ar1 --innovation-sd 1e308` would print only inf).
inline constexpr param_range positive_scale{0.0, 1e150, true, false};
inline constexpr param_range nonnegative_scale{0.0, 1e150, false, false};
/// A correlation of a stationary model: |r| < 1.
inline constexpr param_range open_unit{-1.0, 1.0, true, true};

/// One parameter of a model.
struct param_spec {
  std::string name;  ///< snake_case; the CLI flag is --name with '-' for '_'
  param_type type = param_type::real;
  std::string default_value;  ///< text, parsed like a user's value; "" = derived (see note)
  param_range range{};        ///< for real, count and each entry of real_list
  std::string description;
  std::vector<std::string> choices = {};  ///< for param_type::choice
  std::string default_note = {};          ///< how an empty default is derived ("identity (d x d)")
  std::string default_text() const;       ///< default_value, or "<default_note>" when derived
  std::string range_text() const;         ///< range.text(), "one of a|b|c", or "entries in ..."
};

struct model_entry;

/// The parameter values of one model, parsed and range-checked against its specs. Values not
/// given take the declared default. Errors name the parameter as the caller spells it: `--phi`
/// (cli naming) or `phi` (plain naming); they quote the value the user typed (a parameter, not
/// private data).
class param_values {
 public:
  enum class naming { plain, cli };
  /// The defaults of `model`.
  explicit param_values(const model_entry& model, naming names = naming::plain);
  /// `given` maps parameter names (snake_case) to the text the user typed; an unknown name, an
  /// unparsable value or one outside its range throws invalid_argument_error.
  param_values(const model_entry& model,
               const std::map<std::string, std::string>& given,
               naming names = naming::plain);

  /// Sets a value (range-checked); for callers holding typed values (experiment drivers).
  param_values& set(std::string_view name, double value);
  param_values& set(std::string_view name, std::vector<double> value);
  param_values& set_choice(std::string_view name, std::string value);

  double real(std::string_view name) const;
  std::size_t count(std::string_view name) const;
  const std::vector<double>& list(std::string_view name) const;  ///< empty = derived default
  const std::string& choice(std::string_view name) const;
  const model_entry& model() const noexcept { return *model_; }
  /// The parameter's name in errors: "--innovation-sd" (cli) or "innovation_sd" (plain).
  std::string label(std::string_view name) const;

 private:
  std::string fn() const;
  using value = std::variant<double, std::size_t, std::vector<double>, std::string>;
  const param_spec& spec(std::string_view name) const;
  void assign(const param_spec& s, const std::string& text);
  void check(const param_spec& s, const value& v) const;
  const model_entry* model_;
  naming names_;
  std::map<std::string, value, std::less<>> values_;
};

/// A value in a model's description: a number (NaN = unknown, ±inf allowed), a count, a word,
/// a list, an index list or a matrix (rows).
using description_value = std::variant<double,
                                       std::size_t,
                                       std::string,
                                       std::vector<double>,
                                       std::vector<std::size_t>,
                                       std::vector<std::vector<double>>>;
/// Ordered (key, value) pairs; keys are unique (add() replaces an existing key in place).
struct description {
  std::vector<std::pair<std::string, description_value>> items;
  description& add(std::string key, description_value v);
  const description_value* find(std::string_view key) const;
};

/// Receives a generated table row by row (the CLI writes CSV; tests collect).
class table_sink {
 public:
  virtual ~table_sink() = default;
  virtual void header(const std::vector<std::string>& columns) = 0;
  virtual void real(double v) = 0;
  virtual void index(std::size_t v) = 0;
  virtual void word(std::string_view v) = 0;
  virtual void end_row() = 0;
};

/// One draw of a model: its resolved parameters, its theory and the writer of its rows.
struct realization {
  description parameters;  ///< resolved parameter values (derived defaults filled in)
  description theory;      ///< exact theoretical quantities (costly ones only when describing)
  /// Draws the data (from the generator given to realize) and writes it. Models whose theory
  /// depends on the draw (the ERM support, the longitudinal design's bounds) draw in realize.
  std::function<void(table_sink&)> write;
};

/// A model that is a Gaussian vector of length n with a reusable sampler (circulant embedding,
/// factorisations computed once): the dependent-data drivers draw replications from it.
class gaussian_vector {
 public:
  virtual ~gaussian_vector() = default;
  virtual std::size_t size() const noexcept = 0;
  virtual void sample_into(std::span<double> out, rng::philox4x32& g) const = 0;
  virtual double log_sobolev() const = 0;             ///< λ_max(Σ)
  virtual double mean_variance_constant() const = 0;  ///< n·Var(X̄) = 1ᵀΣ1/n
};

/// A registered model.
struct model_entry {
  std::string name;
  std::string summary;  ///< one line: the law
  std::string size;     ///< what n is ("series length", "users", "training rows")
  std::string columns;  ///< the CSV columns written
  std::vector<param_spec> params;
  using realize_fn = std::function<realization(
      const param_values&, std::size_t n, bool describe, rng::philox4x32& g)>;
  /// The draw for n ≥ 1 (`describe` = compute the costly theoretical quantities too). The
  /// returned writer draws from `g`, which must outlive it.
  realize_fn realize = {};
  /// Set for Gaussian vector models only.
  std::function<std::shared_ptr<const gaussian_vector>(const param_values&, std::size_t n)> vector =
      {};
  const param_spec* find_param(std::string_view name) const noexcept;
};

/// Every registered model, in the order `generate --help` lists them.
const std::vector<model_entry>& models();
/// The model called `name`; throws invalid_argument_error listing the known names otherwise.
const model_entry& find_model(std::string_view name);
/// "iid_gaussian, student_t, ..." (for messages and help).
std::string model_names();

}  // namespace dpx::data
