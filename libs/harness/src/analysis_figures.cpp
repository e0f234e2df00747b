// Figures: figures/figures.json (specs, CSV paths and fitted-slope annotations) rendered by
// dpx_plot.py through matplotlib (docs/outputs.md, "Figures").
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "analysis_internal.hpp"
#include "figure_style.hpp"

namespace dpx::harness {

using namespace analysis_internal;

std::filesystem::path find_plot_script() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* env = std::getenv("DPX_PLOT_SCRIPT"); env && *env) {
    if (fs::is_regular_file(env, ec)) return fs::path(env);
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path() / ".." / "share" / "dpx" / "dpx_plot.py";
    if (fs::is_regular_file(installed, ec)) return installed.lexically_normal();
  }
#ifdef DPX_SOURCE_DIR
  fs::path source = fs::path(DPX_SOURCE_DIR) / "libs" / "harness" / "python" / "dpx_plot.py";
  if (fs::is_regular_file(source, ec)) return source;
#endif
  return {};
}

namespace {

/// figures/figures.json: the specs, relative paths to the CSVs and the fitted-slope
/// annotations matched to each curve.
std::string figures_json(const std::vector<figure_spec>& figures,
                         const std::vector<rate_spec>& rates,
                         const std::vector<rate_result>& results,
                         double confidence) {
  using json = nlohmann::ordered_json;
  json j;
  j["schema_version"] = 1;
  j["summary"] = "../summary.csv";
  j["rates"] = "../rates.csv";
  j["output_dir"] = ".";
  j["confidence"] = confidence;
  j["figures"] = json::array();
  for (const auto& f : figures) {
    json jf;
    jf["name"] = f.name;
    jf["title"] = f.title;
    jf["x"] = f.x;
    jf["y"] = f.y;
    jf["statistic"] = f.statistic;
    jf["series"] = f.series;
    jf["where"] = json::object();
    for (const auto& w : f.where) jf["where"][w.name] = w.value;
    jf["logx"] = f.logx;
    jf["logy"] = f.logy;
    jf["reference_slopes"] = f.reference_slopes;
    jf["xlabel"] = f.xlabel;
    jf["ylabel"] = f.ylabel;
    detail::add_presentation(jf, f);  // labels, order, marks, bands, panels, style
    // A rate result annotates the curves it fitted: same x, y and statistic, and every group
    // value and rate filter is pinned by the curve (a series value or a figure filter).
    jf["annotations"] = json::array();
    for (std::size_t ri = 0; ri < rates.size(); ++ri) {
      const rate_spec& spec = rates[ri];
      if (spec.x != f.x || spec.y != f.y || spec.statistic != f.statistic) continue;
      std::map<std::string, std::string> pinned_by_figure;
      for (const auto& w : f.where) pinned_by_figure[w.name] = w.value;
      bool compatible = true;
      for (const auto& w : spec.where) {
        const bool in_series = std::count(f.series.begin(), f.series.end(), w.name) != 0;
        auto it = pinned_by_figure.find(w.name);
        if (it != pinned_by_figure.end() ? it->second != w.value : !in_series) compatible = false;
      }
      if (!compatible) continue;
      for (const auto& r : results) {
        if (r.rate != rate_name(spec) || r.control || std::isnan(r.slope)) continue;
        json series = json::object();
        bool ok = true;
        for (const auto& [name, value] : r.group_values) {
          if (std::count(f.series.begin(), f.series.end(), name) != 0) {
            series[name] = value;
          } else if (auto it = pinned_by_figure.find(name);
                     it == pinned_by_figure.end() || it->second != value) {
            ok = false;
          }
        }
        for (const auto& w : spec.where) {
          if (std::count(f.series.begin(), f.series.end(), w.name) != 0) series[w.name] = w.value;
        }
        if (!ok) continue;
        json a;
        a["rate"] = r.rate;
        a["group"] = r.group;
        a["series"] = series;
        a["slope"] = r.slope;
        a["ci_lo"] = r.ci_lo;
        a["ci_hi"] = r.ci_hi;
        a["expected"] = r.expected;
        a["pass"] = r.pass;
        jf["annotations"].push_back(a);
      }
    }
    j["figures"].push_back(jf);
  }
  return j.dump(2) + "\n";
}

/// Whether `python` can import matplotlib, asked once per interpreter and process: the probe
/// costs a full matplotlib import (about a second on a loaded 2-core machine), and
/// `dpx run --all` renders figures for every preset. On failure, *err gets the probe's stderr.
bool can_import_matplotlib(const std::string& python, std::string* err) {
  static std::mutex m;
  static std::map<std::string, std::pair<bool, std::string>> known;
  const std::lock_guard<std::mutex> lock(m);
  auto it = known.find(python);
  if (it == known.end()) {
    std::string e;
    const bool ok = run_process({python, "-c", "import matplotlib"}, "", &e) == 0;
    it = known.emplace(python, std::make_pair(ok, e)).first;
  }
  *err = it->second.second;
  return it->second.first;
}

}  // namespace

namespace analysis_internal {

bool render_figures(const std::vector<figure_spec>& figures,
                    const std::vector<rate_spec>& rates,
                    const std::vector<rate_result>& results,
                    const std::filesystem::path& out_dir,
                    const analysis_options& options,
                    std::string* status) {
  namespace fs = std::filesystem;
  std::string status_text;  // why figures were not rendered ("" when they were)
  bool rendered = false;
  // Figures: figures.json is always written (so they can be rendered later by hand).
  if (!figures.empty()) {
    write_file_atomic(out_dir / "figures" / "figures.json",
                      figures_json(figures, rates, results, options.confidence));
  }
  if (figures.empty()) {
    status_text = "the preset declares no figures";
  } else if (!options.figures) {
    status_text = "figure rendering was disabled";
  } else {
    const fs::path script = find_plot_script();
    std::error_code ec;
    std::string err;
    if (script.empty()) {
      status_text =
          "dpx_plot.py was not found (set DPX_PLOT_SCRIPT, or install dpx so that "
          "share/dpx/dpx_plot.py sits next to bin/)";
    } else if (options.python.empty() || (options.python.find('/') != std::string::npos &&
                                          ::access(options.python.c_str(), X_OK) != 0)) {
      status_text =
          "the Python interpreter " + options.python + " does not exist or is not executable";
    } else if (!can_import_matplotlib(options.python, &err)) {
      status_text = options.python + " cannot import matplotlib (install python3-matplotlib)" +
                    (err.empty() ? "" : ": " + err);
    } else {
      const fs::path log = out_dir / "figures" / "plot.log";
      const int rc = run_process(
          {options.python, script.string(), (out_dir / "figures" / "figures.json").string()},
          log.string(),
          &err);
      if (rc != 0) {
        status_text = "dpx_plot.py exited with status " + std::to_string(rc) +
                      (err.empty() ? "" : " (" + err + ")") +
                      "; see figures/plot.log: " + tail_of_file(log, 3);
      } else {
        std::vector<std::string> missing;
        for (const auto& f : figures) {
          for (const char* ext : {".pdf", ".png"}) {
            if (!fs::is_regular_file(out_dir / "figures" / (f.name + ext), ec)) {
              missing.push_back("figures/" + f.name + ext);
            }
          }
        }
        if (missing.empty()) {
          rendered = true;
        } else {
          status_text = "dpx_plot.py did not produce " + join(missing, ", ");
        }
      }
    }
  }
  if (status) *status = status_text;
  return rendered;
}

}  // namespace analysis_internal

}  // namespace dpx::harness
