// dpx generate MODEL [--param value ...] --n N [--seed S] [--out FILE.csv] [--describe]
//
// Draws a dataset from a registered dpx::data model (dpx/data/registry.hpp) as CSV (header row;
// panels in long format user,t,...), and/or prints the model's theoretical quantities as JSON
// (--describe). Model parameters are `--name value` pairs after the model name (dashes or
// underscores); lists are comma-separated (`--phi 0.5,-0.2`). The registry owns every model's
// parameter names, defaults and ranges; `generate --help` and `generate MODEL --help` print them.
// An unknown parameter, an empty or unparsable value or one outside its range is a one-line
// error naming the parameter (exit 2). A model whose parameters would make a drawn value
// overflow is refused (exit 2) before anything is written.
//
// Randomness: the generator is rng::stream(seed, stable_hash("dpx generate <model>"), 0,
// purpose::data), so a (model, seed) pair always gives the same data.
#include <charconv>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/hash.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/data/registry.hpp"
#include "dpx/harness/results.hpp"
#include "json_output.hpp"

namespace dpx::cli::cmd_generate {
namespace {

using json = nlohmann::ordered_json;
namespace data = dpx::data;
namespace core = dpx::core;

constexpr const char* kFn = "generate";
/// Largest --n: a series of 1e9 doubles is already 8 GB; larger requests are refused, not tried.
constexpr unsigned long long kMaxN = 1000000000ULL;

// JSON number; +inf/-inf become the strings "inf"/"-inf" and NaN (unknown) becomes null.
json num(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json to_json(const data::description_value& v) {
  return std::visit(
      [](const auto& x) -> json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, double>) {
          return num(x);
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          json a = json::array();
          for (double e : x) a.push_back(num(e));
          return a;
        } else if constexpr (std::is_same_v<T, std::vector<std::vector<double>>>) {
          json a = json::array();
          for (const auto& row : x) {
            json r = json::array();
            for (double e : row) r.push_back(num(e));
            a.push_back(r);
          }
          return a;
        } else {
          return x;
        }
      },
      v);
}

json to_json(const data::description& d) {
  json j = json::object();
  for (const auto& [k, v] : d.items) j[k] = to_json(v);
  return j;
}

// Strict unsigned integer: digits only, no sign, no overflow.
unsigned long long parse_unsigned(const std::string& flag, const std::string& s) {
  unsigned long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size())
    core::throw_invalid(kFn, flag, s, "must be a non-negative integer below 2^64");
  return v;
}

// ---- model parameters: --key value pairs left over by CLI11 -------------------------------
std::map<std::string, std::string> model_arguments(const std::vector<std::string>& args) {
  std::map<std::string, std::string> values;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string k = args[i];
    if (k.rfind("--", 0) != 0)
      core::throw_invalid(kFn, "argument", k, "expected --parameter value");
    k = k.substr(2);
    std::string v;
    if (auto eq = k.find('='); eq != std::string::npos) {
      v = k.substr(eq + 1);
      k = k.substr(0, eq);
    } else {
      if (i + 1 >= args.size()) core::throw_invalid(kFn, "--" + k, "", "is missing its value");
      v = args[++i];
    }
    std::string dashed = k;
    for (char& c : k)
      if (c == '-') c = '_';
    if (values.count(k)) core::throw_invalid(kFn, "--" + dashed, v, "is given twice");
    values[k] = v;
  }
  return values;
}

// ---- CSV ----------------------------------------------------------------------------------
// Buffers the whole table: nothing reaches stdout or the file unless the draw completes and
// every value is finite.
class csv_writer final : public data::table_sink {
 public:
  explicit csv_writer(std::string model) : model_(std::move(model)) {}
  void header(const std::vector<std::string>& cols) override {
    for (std::size_t i = 0; i < cols.size(); ++i) {
      if (i) buf_ += ',';
      buf_ += cols[i];
    }
    buf_ += '\n';
  }
  void real(double v) override {
    if (!std::isfinite(v))
      core::throw_invalid(kFn,
                          "model " + model_,
                          "",
                          "drew a non-finite value in row " + std::to_string(rows_ + 1) +
                              ": its parameters exceed double precision");
    sep();
    char tmp[32];
    auto [p, ec] = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, p);
  }
  void index(std::size_t v) override {
    sep();
    buf_ += std::to_string(v);
  }
  void word(std::string_view s) override {
    sep();
    buf_ += s;
  }
  void end_row() override {
    buf_ += '\n';
    first_ = true;
    ++rows_;
  }
  const std::string& text() const noexcept { return buf_; }

 private:
  void sep() {
    if (!first_) buf_ += ',';
    first_ = false;
  }
  std::string model_;
  std::string buf_;
  bool first_ = true;
  std::size_t rows_ = 0;
};

// ---- help ---------------------------------------------------------------------------------
std::string model_help(const data::model_entry& m) {
  std::ostringstream os;
  os << "  " << m.name << ": " << m.summary << "\n    n = " << m.size << "; columns " << m.columns
     << "\n";
  for (const auto& p : m.params) {
    std::string flag = p.name;
    for (char& c : flag)
      if (c == '_') c = '-';
    os << "    --" << flag << " (default " << p.default_text() << "; " << p.range_text() << ")  "
       << p.description << "\n";
  }
  return os.str();
}

std::string models_help(const std::string& model) {
  for (const auto& m : data::models())
    if (m.name == model) return "Parameters of model " + model + ":\n" + model_help(m);
  std::string s = "Models and their parameters (dpx generate MODEL --help for one):\n";
  for (const auto& m : data::models()) s += model_help(m);
  return s;
}

struct generate_options {
  std::string model;
  std::string n;
  std::string seed = "1";
  std::string out;
  bool describe = false;
};

const bool registered = dpx::cli::register_command(
    "generate",
    "Draw a dataset from a dpx::data model as CSV; --describe prints its theory as JSON",
    [](CLI::App& sub) {
      auto o = std::make_shared<generate_options>();
      dpx::cli::add_pretty_flag(sub);
      sub.add_option("model", o->model, "model name (" + data::model_names() + ")")->required();
      auto* n_opt = sub.add_option(
          "--n", o->n, "sample size (series length, users for panels, training rows)");
      n_opt->required();
      sub.add_option("--seed", o->seed, "base seed of the data stream (default 1)");
      auto* out_opt =
          sub.add_option("--out", o->out, "write the CSV here (default: stdout unless --describe)");
      sub.add_flag("--describe", o->describe, "print the model's theoretical quantities as JSON");
      sub.footer([o] { return models_help(o->model); });
      sub.allow_extras();
      return [o, &sub, out_opt]() -> int {
        const auto n = parse_unsigned("--n", o->n);
        if (n == 0 || n > kMaxN)
          core::throw_invalid(kFn, "--n", o->n, "must be in [1, 1000000000]");
        const std::uint64_t seed = parse_unsigned("--seed", o->seed);
        if (out_opt->count() > 0 && o->out.empty())
          core::throw_invalid(kFn, "--out", "", "must name a file");
        const data::model_entry& model = data::find_model(o->model);
        const data::param_values params(
            model, model_arguments(sub.remaining()), data::param_values::naming::cli);
        auto g = dpx::rng::stream(
            seed, core::stable_hash("dpx generate " + o->model), 0, dpx::rng::purpose::data);
        const data::realization r = model.realize(params, n, o->describe, g);
        const bool write_csv = !o->out.empty() || !o->describe;
        csv_writer w(model.name);
        if (write_csv) r.write(w);
        if (!o->out.empty()) {
          dpx::harness::write_file_atomic(o->out, w.text());
        } else if (write_csv) {
          std::cout.write(w.text().data(), static_cast<std::streamsize>(w.text().size()));
        }
        if (o->describe) {
          nlohmann::ordered_json j;
          j["schema_version"] = 1;
          j["model"] = o->model;
          j["n"] = n;
          j["seed"] = seed;
          j["parameters"] = to_json(r.parameters);
          for (const auto& [k, v] : r.theory.items) j[k] = to_json(v);
          dpx::cli::emit_json(j);
        }
        return dpx::cli::exit_ok;
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_generate
