// summary.csv: per cell and metric statistics (docs/outputs.md).
#include <cmath>
#include <map>

#include "analysis_internal.hpp"

namespace dpx::harness {

using namespace analysis_internal;

std::string summary_csv(const tidy_table& t) {
  struct cell {
    const tidy_row* first = nullptr;
    std::vector<std::vector<double>> values;  // per metric, ok rows
    std::size_t failed = 0;
  };
  std::map<std::string, cell> cells;
  for (const auto& row : t.rows) {
    auto& c = cells[row.cell_id];
    if (!c.first) {
      c.first = &row;
      c.values.resize(t.metric_names.size());
    }
    if (row.status != "ok") {
      ++c.failed;
      continue;
    }
    for (std::size_t j = 0; j < t.metric_names.size(); ++j) c.values[j].push_back(row.metrics[j]);
  }
  std::string out = "cell_id";
  for (const auto& p : t.param_names) out += "," + csv_field("p_" + p);
  out += ",metric,n_reps,n_failed,mean,sd,se,median,q25,q75,ci_lo,ci_hi\n";
  for (const auto& [id, c] : cells) {
    std::string prefix = csv_field(id);
    for (const auto& v : c.first->params) prefix += "," + csv_field(v);
    for (std::size_t j = 0; j < t.metric_names.size(); ++j) {
      const summary_stats s = summarize(c.values[j], c.failed);
      out += prefix + "," + csv_field(t.metric_names[j]) + "," + std::to_string(s.n_reps) + "," +
             std::to_string(s.n_failed);
      for (const double x : {s.mean, s.sd, s.se, s.median, s.q25, s.q75, s.ci_lo, s.ci_hi}) {
        out += "," + format_number(x);
      }
      out += '\n';
    }
  }
  return out;
}

}  // namespace dpx::harness
