// write_analysis: every analysis output of a results directory and report.md
// (docs/outputs.md). The pieces live in analysis_*.cpp: statistics, validation, rate fits,
// tables, figures, escaping and subprocesses.
#include "dpx/harness/analysis.hpp"

#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis_internal.hpp"

namespace dpx::harness {

using namespace analysis_internal;

std::vector<rate_result> write_analysis(const tidy_table& t,
                                        const std::vector<figure_spec>& figures,
                                        const std::vector<rate_spec>& rates,
                                        const std::filesystem::path& out_dir,
                                        const analysis_options& options,
                                        bool* figures_rendered,
                                        std::string* figures_note) {
  namespace fs = std::filesystem;
  if (figures_rendered) *figures_rendered = false;
  if (figures_note) figures_note->clear();
  validate_specs(figures, rates, t.param_names, t.metric_names);
  fs::create_directories(out_dir);

  std::vector<rate_result> results = fit_rates(t, rates, options);
  // Summaries and figures show the preset's own grid; control cells are only in tidy.csv and
  // the rate tables (docs/presets.md, "Controls").
  const tidy_table grid = rows_with_control(t, "");
  write_file_atomic(out_dir / "summary.csv", summary_csv(grid));
  write_file_atomic(out_dir / "rates.csv", rates_csv(results));
  write_file_atomic(out_dir / "rates.md", rates_markdown(results, options.confidence));
  write_file_atomic(out_dir / "rates.tex", rates_latex(results, options.confidence));
  write_file_atomic(out_dir / "rates.json", rates_json(results));

  std::string figure_status;  // why figures were not rendered ("" when they were)
  const bool rendered = render_figures(figures, rates, results, out_dir, options, &figure_status);
  if (figures_rendered) *figures_rendered = rendered;
  if (figures_note) *figures_note = figure_status;

  // report.md
  std::set<std::string> cell_ids;
  std::size_t failed = 0;
  std::map<std::string, std::size_t> failure_messages;
  std::set<std::string> control_ids;
  for (const auto& row : t.rows) {
    if (t.has_param(control_column) && !row.params[t.param_index(control_column)].empty()) {
      control_ids.insert(row.cell_id);
    }
    cell_ids.insert(row.cell_id);
    if (row.status != "ok") {
      ++failed;
      ++failure_messages[row.message];
    }
  }
  std::string md =
      "# " + (options.preset_name.empty() ? std::string("dpx experiment") : options.preset_name) +
      "\n\n";
  if (!options.description.empty()) md += options.description + "\n\n";
  md += "- cells: " + std::to_string(cell_ids.size() - control_ids.size());
  if (!control_ids.empty()) {
    md += " (+ " + std::to_string(control_ids.size()) + " negative-control cells)";
  }
  md += "\n";
  md += "- replications: " + std::to_string(t.rows.size()) + "\n";
  md += "- failed replications: " + std::to_string(failed) + "\n";
  if (!failure_messages.empty()) {
    md += "\nFailure messages (count):\n\n";
    std::size_t shown = 0;
    for (const auto& [msg, count] : failure_messages) {
      if (++shown > 10) {
        md += "- ... (" + std::to_string(failure_messages.size() - 10) + " more)\n";
        break;
      }
      md += "- " + std::to_string(count) + " × " + (msg.empty() ? "(no message)" : msg) + "\n";
    }
  }
  md += "\n## Rates\n\n";
  if (results.empty()) {
    md += "The preset declares no rate checks.\n";
  } else {
    md +=
        "Each check fits log(statistic of y) = a + b log(x) by least squares over the fit "
        "range; intervals are joint bootstrap percentile "
        "intervals over replications (" +
        std::to_string(options.bootstrap) +
        " resamples). A check passes when the expected slope lies in the interval and the "
        "fitted slope is within the tolerance of it.\n\n";
    md += rates_markdown(results, options.confidence);
  }
  md += "\n## Figures\n\n";
  if (rendered) {
    for (const auto& f : figures) {
      const std::string title = f.title.empty() ? f.name : f.title;
      md += "### ";
      md += title;
      md += "\n\n![";
      md += title;
      md += "](figures/" + f.name + ".png)\n\n[PDF](figures/" + f.name + ".pdf)\n\n";
    }
  } else {
    md += "Figures were not rendered: " + figure_status + ".";
    if (!figures.empty()) {
      md +=
          " The figure specification is in [figures/figures.json](figures/figures.json); "
          "render it with `/usr/bin/python3 dpx_plot.py figures/figures.json`.";
    }
    md += "\n";
  }
  md +=
      "\n## Files\n\n"
      "- [tidy.csv](tidy.csv): one row per (cell, replication)\n"
      "- [summary.csv](summary.csv): per cell and metric statistics\n"
      "- [rates.csv](rates.csv), [rates.json](rates.json), [rates.md](rates.md), "
      "[rates.tex](rates.tex): rate checks\n";
  if (!figures.empty())
    md += "- [figures/figures.json](figures/figures.json): figure specification\n";
  write_file_atomic(out_dir / "report.md", md);
  return results;
}

}  // namespace dpx::harness
