// dpx.data (compiled part, continued): the registry of dpx::data models (dpx/data/registry.hpp),
// the one list `dpx generate` reads. registry() describes every model (name, summary, columns,
// parameters with type, default, range and description); realize() draws one dataset into numpy
// columns (real -> float64, index -> int64, word -> str) with its resolved parameters and exact
// theory, exactly as `dpx generate MODEL --describe` (same parsing and range checks of the
// parameter values, same messages with plain parameter names, same stream).
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "common.hpp"
#include "dpx/core/error.hpp"
#include "dpx/data/registry.hpp"

namespace dpx::python {
namespace {

namespace data = dpx::data;

const char* type_name(data::param_type t) {
  switch (t) {
    case data::param_type::real:
      return "real";
    case data::param_type::count:
      return "count";
    case data::param_type::real_list:
      return "real_list";
    case data::param_type::choice:
      return "choice";
  }
  return "real";
}

py::dict model_info(const data::model_entry& m) {
  py::dict d;
  d["name"] = m.name;
  d["summary"] = m.summary;
  d["size"] = m.size;
  d["columns"] = m.columns;
  py::list params;
  for (const auto& p : m.params) {
    py::dict q;
    q["name"] = p.name;
    q["type"] = type_name(p.type);
    q["default"] = p.default_value;
    q["default_text"] = p.default_text();
    q["range"] = p.range_text();
    q["description"] = p.description;
    q["choices"] = p.choices;
    params.append(q);
  }
  d["params"] = params;
  return d;
}

py::object to_python(const data::description_value& v) {
  return std::visit([](const auto& x) -> py::object { return py::cast(x); }, v);
}

py::dict to_python(const data::description& d) {
  py::dict out;
  for (const auto& [k, v] : d.items) out[py::str(k)] = to_python(v);
  return out;
}

// Collects the generated table column by column (the kind of each column is set by its first
// value). Non-finite reals are refused as `dpx generate` refuses them.
class column_sink final : public data::table_sink {
 public:
  explicit column_sink(std::string model) : model_(std::move(model)) {}
  using column = std::variant<std::monostate,
                              std::vector<double>,
                              std::vector<std::int64_t>,
                              std::vector<std::string>>;
  void header(const std::vector<std::string>& names) override {
    names_ = names;
    cols_.assign(names.size(), std::monostate{});
  }
  void real(double v) override {
    if (!std::isfinite(v))
      core::throw_invalid("data.generate",
                          "model " + model_,
                          "",
                          "drew a non-finite value in row " + std::to_string(rows_ + 1) +
                              ": its parameters exceed double precision");
    slot<std::vector<double>>().push_back(v);
  }
  void index(std::size_t v) override {
    slot<std::vector<std::int64_t>>().push_back(static_cast<std::int64_t>(v));
  }
  void word(std::string_view v) override { slot<std::vector<std::string>>().emplace_back(v); }
  void end_row() override {
    at_ = 0;
    ++rows_;
  }
  py::dict columns() {
    py::dict out;
    for (std::size_t j = 0; j < names_.size(); ++j) {
      std::visit(
          [&](auto& c) {
            using C = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<C, std::vector<double>>) {
              auto a = aligned_array(c.size());
              std::copy(c.begin(), c.end(), a.mutable_data());
              out[py::str(names_[j])] = a;
            } else if constexpr (std::is_same_v<C, std::vector<std::int64_t>>) {
              out[py::str(names_[j])] =
                  py::array_t<std::int64_t>(static_cast<py::ssize_t>(c.size()), c.data());
            } else if constexpr (std::is_same_v<C, std::vector<std::string>>) {
              out[py::str(names_[j])] = py::module_::import("numpy").attr("array")(py::cast(c));
            } else {
              out[py::str(names_[j])] = py::array_t<double>(0);
            }
          },
          cols_[j]);
    }
    return out;
  }

 private:
  template <class V>
  V& slot() {
    if (at_ >= cols_.size())
      core::throw_invalid("data.generate", "model " + model_, "", "wrote more values than columns");
    column& c = cols_[at_++];
    if (std::holds_alternative<std::monostate>(c)) c = V{};
    if (!std::holds_alternative<V>(c))
      core::throw_invalid("data.generate", "model " + model_, "", "changed a column's type");
    return std::get<V>(c);
  }
  std::string model_;
  std::vector<std::string> names_;
  std::vector<column> cols_;
  std::size_t at_ = 0, rows_ = 0;
};

}  // namespace

void init_data_registry(py::module_& m) {
  m.def(
      "registry",
      [] {
        py::list out;
        for (const auto& e : data::models()) out.append(model_info(e));
        return out;
      },
      "Every registered model (the order of `dpx generate --help`) as a dict: name, summary, "
      "size (what n counts), columns and params (name, type, default, default_text, range, "
      "description, choices).");
  m.def(
      "realize",
      [](const std::string& name,
         std::uint64_t n,
         const std::map<std::string, std::string>& params,
         philox_gen& g,
         bool describe) {
        if (n == 0 || n > 1000000000ULL)
          core::throw_invalid("data.generate", "n", double(n), "must be in [1, 1000000000]");
        const data::model_entry& model = data::find_model(name);
        const data::param_values values(model, params, data::param_values::naming::plain);
        column_sink sink(model.name);
        data::realization r;
        {
          py::gil_scoped_release unlocked;
          std::lock_guard<std::mutex> lock(g.mutex);
          const single_threaded_blas_scope blas;
          r = model.realize(values, static_cast<std::size_t>(n), describe, g.engine);
          r.write(sink);
        }
        return py::make_tuple(sink.columns(), to_python(r.parameters), to_python(r.theory));
      },
      py::arg("name"),
      py::arg("n"),
      py::arg("params"),
      py::arg("rng"),
      py::arg("describe") = true,
      "Draws model `name` with n (series length, users or rows) from rng; params maps "
      "parameter names to their text as `dpx generate` reads it. Returns (columns, parameters, "
      "theory): numpy columns by name, the resolved parameters and the exact theory (costly "
      "quantities only with describe).");
}

}  // namespace dpx::python
