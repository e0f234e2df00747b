// Tables: summary.csv, rates.csv, rates.md and rates.tex (docs/outputs.md).
#include <cmath>
#include <map>

#include "analysis_internal.hpp"

namespace dpx::harness {

using namespace analysis_internal;

namespace {

std::string verdict(const rate_result& r) {
  if (r.informational) return r.pass ? "info (pass)" : "info (fail)";
  return r.pass ? "pass" : "FAIL";
}

}  // namespace

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

std::string rates_csv(const std::vector<rate_result>& results) {
  std::string out =
      "rate,group,slope,ci_lo,ci_hi,ci_level,r2,intercept,expected,tolerance,points,replications,"
      "pass,"
      "informational,note\n";
  for (const auto& r : results) {
    out += csv_field(r.rate) + "," + csv_field(r.group) + "," + format_number(r.slope) + "," +
           format_number(r.ci_lo) + "," + format_number(r.ci_hi) + "," + format_number(r.ci_level) +
           "," + format_number(r.r2) + "," + format_number(r.intercept) + "," +
           format_number(r.expected) + "," + format_number(r.tolerance) + "," +
           std::to_string(r.points) + "," + std::to_string(r.replications) + "," +
           (r.pass ? "true" : "false") + "," + (r.informational ? "true" : "false") + "," +
           csv_field(r.note) + "\n";
  }
  return out;
}

std::string rates_markdown(const std::vector<rate_result>& results, double confidence) {
  std::string out =
      "| rate | group | expected | fitted [CI] | R² | points | result |\n"
      "|---|---|---:|---|---:|---:|---|\n";
  std::vector<std::string> notes;
  bool any_tolerance = false;
  for (const auto& r : results) {
    std::string result = verdict(r);
    if (r.check == rate_check::tolerance) {
      result += " (±" + short_number(r.tolerance) + ")";
      any_tolerance = true;
    }
    if (!r.note.empty()) {
      notes.push_back(r.note);
      result += " [" + std::to_string(notes.size()) + "]";
    }
    out += "| " + md_escape(r.rate) + " | " + (r.group.empty() ? "(all)" : md_escape(r.group)) +
           " | " + fixed(r.expected, 3) + " | " + fixed(r.slope, 3) + " [" + fixed(r.ci_lo, 3) +
           ", " + fixed(r.ci_hi, 3) + "] | " + fixed(r.r2, 3) + " | " + std::to_string(r.points) +
           " | " + result + " |\n";
  }
  out += "\nCI: joint-bootstrap percentile interval of the slope at level 1 − " +
         short_number(1 - confidence) +
         "/G for a rate with G groups (Bonferroni: a correct rate falsely fails with probability "
         "at most " +
         short_number(1 - confidence) +
         "). A check passes when the expected slope is inside the CI and within the tolerance "
         "of the fit.\n";
  if (any_tolerance) {
    out +=
        "A result marked (±tol) is judged by the tolerance alone (check = \"tolerance\"): its "
        "metric is (mostly) deterministic in x, so its CI is narrower than the metric's exact "
        "lower-order terms and containment would test those terms, not the exponent.\n";
  }
  if (!notes.empty()) {
    out += "\nNotes:\n\n";
    for (std::size_t i = 0; i < notes.size(); ++i) {
      out += std::to_string(i + 1) + ". " + md_escape(notes[i]) + "\n";
    }
  }
  return out;
}

std::string rates_latex(const std::vector<rate_result>& results, double confidence) {
  std::string out =
      "\\begin{tabular}{llrlrrl}\n"
      "\\toprule\n"
      "Rate & Group & Expected & Fitted [CI] & $R^2$ & Points & Result \\\\\n"
      "\\midrule\n";
  for (const auto& r : results) {
    std::string fitted = std::isnan(r.slope)
                             ? std::string("--")
                             : latex_num(r.slope, 3) + " [" + latex_num(r.ci_lo, 3) + ", " +
                                   latex_num(r.ci_hi, 3) + "]";
    out += latex_escape(r.rate) + " & " + latex_escape(r.group) + " & " + latex_num(r.expected, 3) +
           " & " + fitted + " & " + latex_num(r.r2, 3) + " & " + std::to_string(r.points) + " & " +
           latex_escape(verdict(r)) + " \\\\\n";
  }
  out += "\\bottomrule\n\\end{tabular}\n";
  out += "% CI: joint-bootstrap percentile interval at level 1 - " + short_number(1 - confidence) +
         "/G for a rate with G groups (Bonferroni).\n";
  return out;
}

}  // namespace dpx::harness
