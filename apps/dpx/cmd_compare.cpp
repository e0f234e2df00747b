// dpx compare RUN_A RUN_B: differences of the summaries and rate verdicts of two results
// directories (docs/outputs.md, "Comparing two runs"). Reads only their files (summary.csv,
// rates.json, manifest.json); computes nothing new but differences.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "command.hpp"
#include "dpx/harness/results.hpp"
#include "json_output.hpp"

namespace dpx::cli::cmd_compare {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

struct compare_cli {
  std::string a, b;
  std::size_t top = 20;
  double z = 4.0;
  bool check = false;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// One summary.csv row: parameters (rendered), and the statistics dpx compare uses.
struct summary_row {
  std::string params;  // "a=1, b=x" (p_ columns in file order)
  double mean = NAN, se = NAN;
  double n_reps = 0;
};

// (cell_id, metric) -> row.
std::map<std::pair<std::string, std::string>, summary_row> read_summary(const fs::path& dir) {
  std::istringstream in(slurp(dir / "summary.csv"));
  std::string line;
  if (!std::getline(in, line))
    throw std::invalid_argument((dir / "summary.csv").string() + " is empty");
  const auto header = harness::split_csv_record(line);
  const auto col = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) {
      throw std::invalid_argument((dir / "summary.csv").string() + " has no column " + name);
    }
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t c_id = col("cell_id"), c_metric = col("metric"), c_mean = col("mean"),
                    c_se = col("se"), c_n = col("n_reps");
  std::map<std::pair<std::string, std::string>, summary_row> out;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto rec = harness::split_csv_record(line);
    if (rec.size() != header.size()) continue;
    summary_row r;
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i].rfind("p_", 0) == 0) {
        r.params += (r.params.empty() ? "" : ", ") + header[i].substr(2) + "=" + rec[i];
      }
    }
    r.mean = std::strtod(rec[c_mean].c_str(), nullptr);
    r.se = std::strtod(rec[c_se].c_str(), nullptr);
    r.n_reps = std::strtod(rec[c_n].c_str(), nullptr);
    out[{rec[c_id], rec[c_metric]}] = r;
  }
  return out;
}

json read_json_file(const fs::path& p) {
  if (!fs::is_regular_file(p)) return nullptr;
  json j = json::parse(slurp(p), nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

json run_info(const fs::path& dir) {
  const json m = read_json_file(dir / "manifest.json");
  json r = {{"dir", dir.string()}};
  if (m.is_object()) {
    r["experiment"] = m.value("experiment", "");
    r["commit"] = m.contains("git") ? m["git"].value("describe", "") : "";
    r["end_utc"] = m.contains("timing") ? m["timing"].value("end_utc", "") : "";
    r["quick"] = m.value("quick", false);
    r["overrides"] = m.value("overrides", json::array());
  }
  return r;
}

std::string verdict(const json& r) {
  if (r.value("informational", false)) return r.value("pass", false) ? "info-pass" : "info-fail";
  return r.value("pass", false) ? "pass" : "fail";
}

json value_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json compare_rates(const fs::path& a, const fs::path& b, std::size_t& changed) {
  const json ra = read_json_file(a / "rates.json");
  const json rb = read_json_file(b / "rates.json");
  std::vector<std::pair<std::string, std::string>> keys;
  std::map<std::pair<std::string, std::string>, std::pair<json, json>> by;
  for (const auto& [side, list] : {std::pair{0, &ra}, std::pair{1, &rb}}) {
    if (!list->is_array()) continue;
    for (const auto& r : *list) {
      const std::pair k{r.value("rate", ""), r.value("group", "")};
      if (!by.count(k)) keys.push_back(k);
      (side == 0 ? by[k].first : by[k].second) = r;
    }
  }
  json out = json::array();
  changed = 0;
  for (const auto& k : keys) {
    const auto& [x, y] = by[k];
    json e = {{"rate", k.first}, {"group", k.second}};
    const auto side = [](const json& r) -> json {
      if (r.is_null()) return nullptr;
      return {{"slope", r.value("slope", json(nullptr))},
              {"ci", {r.value("ci_lo", json(nullptr)), r.value("ci_hi", json(nullptr))}},
              {"expected", r.value("expected", json(nullptr))},
              {"verdict", verdict(r)}};
    };
    e["a"] = side(x);
    e["b"] = side(y);
    const bool both = !x.is_null() && !y.is_null();
    const bool differs = !both || verdict(x) != verdict(y);
    if (differs) ++changed;
    e["verdict_changed"] = differs;
    if (both && x["slope"].is_number() && y["slope"].is_number()) {
      e["slope_change"] = y["slope"].get<double>() - x["slope"].get<double>();
    }
    out.push_back(e);
  }
  return out;
}

json compare_summaries(const fs::path& a, const fs::path& b, std::size_t top, double zmax) {
  const auto sa = read_summary(a);
  const auto sb = read_summary(b);
  std::size_t only_a = 0, only_b = 0, identical = 0, common = 0, beyond = 0;
  struct diff {
    double z;
    json row;
  };
  std::vector<diff> diffs;
  for (const auto& [k, ra] : sa) {
    const auto it = sb.find(k);
    if (it == sb.end()) {
      ++only_a;
      continue;
    }
    ++common;
    const summary_row& rb = it->second;
    if (ra.mean == rb.mean || (std::isnan(ra.mean) && std::isnan(rb.mean))) {
      ++identical;
      continue;
    }
    // Difference in units of its standard error (independent runs); infinite when both
    // standard errors are zero (deterministic metrics), NaN when undefined.
    const double se = std::sqrt(ra.se * ra.se + rb.se * rb.se);
    const double d = rb.mean - ra.mean;
    const double z = se > 0 ? d / se : (d != 0 ? INFINITY : 0.0);
    if (!(std::fabs(z) <= zmax)) ++beyond;
    diffs.push_back({std::isnan(z) ? INFINITY : std::fabs(z),
                     {{"cell_id", k.first},
                      {"params", ra.params},
                      {"metric", k.second},
                      {"mean_a", value_or_null(ra.mean)},
                      {"mean_b", value_or_null(rb.mean)},
                      {"difference", value_or_null(d)},
                      {"relative", value_or_null(ra.mean != 0 ? d / std::fabs(ra.mean) : NAN)},
                      {"z", value_or_null(z)}}});
  }
  for (const auto& [k, rb] : sb) {
    if (!sa.count(k)) ++only_b;
  }
  std::stable_sort(
      diffs.begin(), diffs.end(), [](const diff& x, const diff& y) { return x.z > y.z; });
  json largest = json::array();
  for (std::size_t i = 0; i < diffs.size() && i < top; ++i) largest.push_back(diffs[i].row);
  return {{"common", common},
          {"identical", identical},
          {"different", common - identical},
          {"beyond_z", beyond},
          {"z_threshold", zmax},
          {"only_in_a", only_a},
          {"only_in_b", only_b},
          {"largest_differences", largest}};
}

const bool registered = dpx::cli::register_command(
    "compare",
    "Differences of summaries and rate verdicts between two results directories",
    [](CLI::App& sub) {
      auto o = std::make_shared<compare_cli>();
      sub.add_option("run_a", o->a, "First results directory (e.g. results/private_mean)")
          ->required()
          ->check(CLI::ExistingDirectory);
      sub.add_option("run_b", o->b, "Second results directory")
          ->required()
          ->check(CLI::ExistingDirectory);
      sub.add_option("--top", o->top, "How many of the largest summary differences to list")
          ->capture_default_str();
      sub.add_option("--z", o->z, "Count summary differences beyond this many standard errors")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
      sub.add_flag("--check", o->check, "Exit 1 if a rate verdict differs or a rate is missing");
      dpx::cli::add_pretty_flag(sub);
      return [o]() -> int {
        std::size_t changed = 0;
        json j;
        j["schema_version"] = 1;
        j["a"] = run_info(o->a);
        j["b"] = run_info(o->b);
        j["rates"] = compare_rates(o->a, o->b, changed);
        j["rates_changed"] = changed;
        j["summary"] = compare_summaries(o->a, o->b, o->top, o->z);
        dpx::cli::emit_json(j);
        return o->check && changed > 0 ? dpx::cli::exit_failure : dpx::cli::exit_ok;
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_compare
