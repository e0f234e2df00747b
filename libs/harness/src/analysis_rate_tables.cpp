// The rate tables: rates.csv, rates.json, rates.md and rates.tex (docs/outputs.md), with the
// negative-control verdicts (docs/presets.md, "Controls").
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis_internal.hpp"
#include "dpx/core/error.hpp"

namespace dpx::harness {

using namespace analysis_internal;

namespace {

bool refuted(const rate_result& r) { return r.expect == rate_expect::refuted; }

std::string verdict(const rate_result& r) {
  if (r.control) return r.check_pass ? "passes" : "fails";
  if (refuted(r)) {
    // The check on the published form must fail and the positive control must pass.
    const std::string v = r.pass ? "refuted (reproduced)" : "refutation NOT reproduced";
    if (r.informational) return "info: " + v;
    if (r.pass) return v;
    if (!check_evaluated(r)) return "FAIL: " + v + " (no check on the published form)";
    if (r.check_pass) return "FAIL: " + v + " (the published form passes)";
    return "FAIL: " + v + " (positive control " +
           (r.control_verdict == "missing" ? std::string("missing") : "fails") + ")";
  }
  if (r.informational) return r.pass ? "info (pass)" : "info (fail)";
  if (r.pass) return "pass";
  if (r.check_pass && r.control_verdict == "passes") return "FAIL (no power)";
  if (r.check_pass && r.control_verdict == "missing") return "FAIL (control missing)";
  return "FAIL";
}

/// The control column of the human tables.
std::string control_cell(const rate_result& r) {
  if (r.control && refuted(r)) return "(this is the positive control: " + r.control_label + ")";
  if (r.control) return "(this is the control: " + r.control_label + ")";
  if (refuted(r)) {
    if (r.control_verdict == "passes") return "positive control passes";
    if (r.control_verdict == "fails") return "positive control FAILS";
    if (r.control_verdict == "missing") return "positive control missing (rerun)";
    return "no positive control";
  }
  if (r.control_verdict == "fails") return "fails (has power)";
  if (r.control_verdict == "passes") return "PASSES (no power)";
  if (r.control_verdict == "missing") return "missing (rerun)";
  return r.informational ? "none" : "none (uncontrolled)";
}

std::string rate_cell(const rate_result& r) { return r.control ? r.rate + " [control]" : r.rate; }

std::string expected_cell(const rate_result& r) {
  if (r.kind == rate_kind::audit) return "every audit ≤ " + short_number(r.bound);
  if (r.kind == rate_kind::ratio_bound && std::isfinite(r.bound_lower))
    return "in [" + short_number(r.bound_lower) + ", " + short_number(r.bound) + "]";
  if (r.kind == rate_kind::ratio_bound) return "≤ " + short_number(r.bound);
  return fixed(r.expected, 3);
}

/// audit: the largest ratio over the audits and their number.
std::string audit_cell(const rate_result& r, const std::string& value) {
  return "max " + value + " over " + std::to_string(r.audits) + " audits";
}

std::string fitted_cell(const rate_result& r) {
  if (r.kind == rate_kind::audit) return audit_cell(r, fixed(r.value, 3));
  if (r.kind == rate_kind::ratio_bound) {
    if (std::isfinite(r.bound_lower))
      return "max " + fixed(r.value, 3) + " [lower " + fixed(r.value_lo, 3) + ", upper " +
             fixed(r.value_hi, 3) + "]";
    return "max " + fixed(r.value, 3) + " [upper " + fixed(r.value_hi, 3) + "]";
  }
  return fixed(r.slope, 3) + " [" + fixed(r.ci_lo, 3) + ", " + fixed(r.ci_hi, 3) + "]";
}

double json_number(const nlohmann::ordered_json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return nan_v;
  return j.at(key).get<double>();
}

}  // namespace

std::string rates_csv(const std::vector<rate_result>& results) {
  std::string out =
      "rate,group,slope,ci_lo,ci_hi,ci_level,r2,intercept,expected,tolerance,points,replications,"
      "pass,informational,note,kind,bound,value,value_hi,check_pass,control,control_label,"
      "control_verdict,claims,bound_lower,value_lo,expect,audits\n";
  for (const auto& r : results) {
    out += csv_field(r.rate) + "," + csv_field(r.group) + "," + format_number(r.slope) + "," +
           format_number(r.ci_lo) + "," + format_number(r.ci_hi) + "," + format_number(r.ci_level) +
           "," + format_number(r.r2) + "," + format_number(r.intercept) + "," +
           format_number(r.expected) + "," + format_number(r.tolerance) + "," +
           std::to_string(r.points) + "," + std::to_string(r.replications) + "," +
           (r.pass ? "true" : "false") + "," + (r.informational ? "true" : "false") + "," +
           csv_field(r.note) + "," + to_string(r.kind) + "," + format_number(r.bound) + "," +
           format_number(r.value) + "," + format_number(r.value_hi) + "," +
           (r.check_pass ? "true" : "false") + "," + (r.control ? "true" : "false") + "," +
           csv_field(r.control_label) + "," + csv_field(r.control_verdict) + "," +
           csv_field(join(r.claims, " ")) + "," + format_number(r.bound_lower) + "," +
           format_number(r.value_lo) + "," + to_string(r.expect) + "," + std::to_string(r.audits) +
           "\n";
  }
  return out;
}

std::string rates_json(const std::vector<rate_result>& results) {
  using json = nlohmann::ordered_json;
  json j = json::array();
  for (const auto& r : results) {
    json jr;
    jr["rate"] = r.rate;
    jr["group"] = r.group;
    jr["group_values"] = json::object();
    for (const auto& [k, v] : r.group_values) jr["group_values"][k] = v;
    for (const auto& [k, v] : {std::pair<const char*, double>{"slope", r.slope},
                               {"ci_lo", r.ci_lo},
                               {"ci_hi", r.ci_hi},
                               {"ci_level", r.ci_level},
                               {"r2", r.r2},
                               {"intercept", r.intercept},
                               {"expected", r.expected},
                               {"tolerance", r.tolerance},
                               {"bound", r.bound},
                               {"value", r.value},
                               {"value_hi", r.value_hi},
                               {"bound_lower", r.bound_lower},
                               {"value_lo", r.value_lo}}) {
      if (std::isfinite(v)) {
        jr[k] = v;
      } else {
        jr[k] = nullptr;
      }
    }
    jr["points"] = r.points;
    jr["replications"] = r.replications;
    jr["pass"] = r.pass;
    jr["informational"] = r.informational;
    jr["check"] = r.check == rate_check::tolerance ? "tolerance" : "ci";
    jr["note"] = r.note;
    jr["kind"] = to_string(r.kind);
    jr["claims"] = r.claims;
    jr["check_pass"] = r.check_pass;
    jr["control"] = r.control;
    jr["control_label"] = r.control_label;
    jr["control_description"] = r.control_description;
    jr["control_verdict"] = r.control_verdict;
    // Written only where they apply, so that older readers and files stay unchanged.
    if (refuted(r)) jr["expect"] = to_string(r.expect);
    if (r.kind == rate_kind::audit) jr["audits"] = r.audits;
    j.push_back(jr);
  }
  return j.dump(2) + "\n";
}

std::vector<rate_result> read_rates_json(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw core::invalid_argument_error("read_rates_json", "path", path.string(), "cannot be read");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  std::vector<rate_result> out;
  try {
    const auto j = nlohmann::ordered_json::parse(ss.str());
    for (const auto& jr : j) {
      rate_result r;
      r.rate = jr.at("rate").get<std::string>();
      r.group = jr.value("group", "");
      if (jr.contains("group_values")) {
        for (const auto& [k, v] : jr.at("group_values").items())
          r.group_values.emplace_back(k, v.get<std::string>());
      }
      r.slope = json_number(jr, "slope");
      r.ci_lo = json_number(jr, "ci_lo");
      r.ci_hi = json_number(jr, "ci_hi");
      r.ci_level = json_number(jr, "ci_level");
      r.r2 = json_number(jr, "r2");
      r.intercept = json_number(jr, "intercept");
      r.expected = json_number(jr, "expected");
      r.tolerance = json_number(jr, "tolerance");
      r.bound = json_number(jr, "bound");
      r.value = json_number(jr, "value");
      r.value_hi = json_number(jr, "value_hi");
      r.bound_lower = json_number(jr, "bound_lower");
      r.value_lo = json_number(jr, "value_lo");
      r.points = jr.value("points", std::size_t{0});
      r.replications = jr.value("replications", std::size_t{0});
      r.pass = jr.value("pass", false);
      r.informational = jr.value("informational", false);
      r.check = jr.value("check", "ci") == "tolerance" ? rate_check::tolerance
                                                       : rate_check::ci_and_tolerance;
      r.note = jr.value("note", "");
      const std::string kind = jr.value("kind", "slope");
      r.kind = kind == "ratio_flat"    ? rate_kind::ratio_flat
               : kind == "ratio_bound" ? rate_kind::ratio_bound
               : kind == "audit"       ? rate_kind::audit
                                       : rate_kind::slope;
      const std::string expect = jr.value("expect", "holds");
      if (expect != "holds" && expect != "refuted")
        throw core::invalid_argument_error(
            "read_rates_json", "expect", expect, "must be \"holds\" or \"refuted\"");
      r.expect = expect == "refuted" ? rate_expect::refuted : rate_expect::holds;
      r.audits = jr.value("audits", std::size_t{0});
      if (jr.contains("claims")) r.claims = jr.at("claims").get<std::vector<std::string>>();
      // Results written before controls existed: the check is the verdict, no control.
      r.check_pass = jr.value("check_pass", r.pass);
      r.control = jr.value("control", false);
      r.control_label = jr.value("control_label", "");
      r.control_description = jr.value("control_description", "");
      r.control_verdict = jr.value("control_verdict", r.control ? "" : "none");
      out.push_back(std::move(r));
    }
  } catch (const nlohmann::json::exception& e) {
    throw core::invalid_argument_error(
        "read_rates_json", "path", path.string(), std::string("is not a rates.json: ") + e.what());
  }
  return out;
}

std::string rates_markdown(const std::vector<rate_result>& results, double confidence) {
  bool any_control = false;
  for (const auto& r : results) any_control = any_control || !r.control_label.empty();
  std::string out = any_control
                        ? "| rate | group | expected | fitted [CI] | R² | points | result | "
                          "control |\n|---|---|---:|---|---:|---:|---|---|\n"
                        : "| rate | group | expected | fitted [CI] | R² | points | result "
                          "|\n|---|---|---:|---|---:|---:|---|\n";
  std::vector<std::string> notes;
  std::vector<std::string> controls;  // "label: description", once per label
  bool any_tolerance = false, any_bound = false, any_audit = false, any_refuted = false;
  for (const auto& r : results) {
    std::string result = verdict(r);
    if (r.check == rate_check::tolerance && r.kind != rate_kind::ratio_bound) {
      result += " (±" + short_number(r.tolerance) + ")";
      any_tolerance = true;
    }
    any_bound = any_bound || r.kind == rate_kind::ratio_bound;
    any_audit = any_audit || r.kind == rate_kind::audit;
    any_refuted = any_refuted || refuted(r);
    if (!r.note.empty()) {
      notes.push_back(r.note);
      result += " [" + std::to_string(notes.size()) + "]";
    }
    out += "| " + md_escape(rate_cell(r)) + " | " +
           (r.group.empty() ? "(all)" : md_escape(r.group)) + " | " + expected_cell(r) + " | " +
           fitted_cell(r) + " | " + fixed(r.r2, 3) + " | " + std::to_string(r.points) + " | " +
           result + " |";
    if (any_control) out += " " + md_escape(control_cell(r)) + " |";
    out += "\n";
    if (r.control) {
      const std::string c = "`" + r.rate + "`: " + r.control_label +
                            (r.control_description.empty() ? "" : " — " + r.control_description);
      if (controls.empty() || controls.back() != c) controls.push_back(c);
    }
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
  if (any_bound) {
    out +=
        "A ratio_bound check (expected ≤ c) passes when the upper end of the bootstrap interval "
        "of the ratio's statistic is ≤ c at every x; fitted shows the largest statistic and the "
        "largest upper end over x. With a lower bound (expected in [l, c]) the lower end of "
        "the interval must also be ≥ l at every x (the level of measured/oracle), and fitted "
        "adds the smallest lower end.\n";
  }
  if (any_audit) {
    out +=
        "An audit check (expected: every audit ≤ c) passes when no audit's empirical lower "
        "bound on epsilon, divided by the claimed epsilon, exceeds c at any x; fitted shows the "
        "largest ratio and the number of audits. Each audit is a lower bound at the driver's "
        "confidence, so a correct target fails a check of A audits with probability at most "
        "A (1 − confidence).\n";
  }
  if (any_refuted) {
    out +=
        "A refutation (expect = \"refuted\") runs the check on the claim as published and "
        "must FAIL there, while its positive control (the strict variant or the corrected "
        "form, the [control] row) must pass the same check: \"refuted (reproduced)\".\n";
  }
  if (any_control) {
    out +=
        "\nNegative controls: each [control] row runs the same check on the covered cells with "
        "the parameter overrides below, a variant in which the claimed effect is absent. A "
        "gated check passes only if its control fails; a check whose control passes too has "
        "no power and fails (\"FAIL (no power)\"). A gated check without a control is "
        "\"uncontrolled\".\n\n";
    for (const auto& c : controls) out += "- " + md_escape(c) + "\n";
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
  bool any_control = false;
  for (const auto& r : results) any_control = any_control || !r.control_label.empty();
  std::string out = any_control ? "\\begin{tabular}{llrlrrll}\n" : "\\begin{tabular}{llrlrrl}\n";
  out += "\\toprule\nRate & Group & Expected & Fitted [CI] & $R^2$ & Points & Result";
  out += any_control ? " & Control \\\\\n" : " \\\\\n";
  out += "\\midrule\n";
  for (const auto& r : results) {
    std::string fitted;
    if (r.kind == rate_kind::audit) {
      fitted = audit_cell(r, latex_num(r.value, 3));
    } else if (r.kind == rate_kind::ratio_bound && std::isfinite(r.bound_lower)) {
      fitted = "max " + latex_num(r.value, 3) + " [lower " + latex_num(r.value_lo, 3) + ", upper " +
               latex_num(r.value_hi, 3) + "]";
    } else if (r.kind == rate_kind::ratio_bound) {
      fitted = "max " + latex_num(r.value, 3) + " [upper " + latex_num(r.value_hi, 3) + "]";
    } else if (std::isnan(r.slope)) {
      fitted = "--";
    } else {
      fitted =
          latex_num(r.slope, 3) + " [" + latex_num(r.ci_lo, 3) + ", " + latex_num(r.ci_hi, 3) + "]";
    }
    const std::string expected =
        r.kind == rate_kind::audit         ? "every audit $\\le " + short_number(r.bound) + "$"
        : r.kind != rate_kind::ratio_bound ? latex_num(r.expected, 3)
        : std::isfinite(r.bound_lower)
            ? "$[" + short_number(r.bound_lower) + ", " + short_number(r.bound) + "]$"
            : "$\\le " + short_number(r.bound) + "$";
    out += latex_escape(rate_cell(r));
    for (const std::string& cell : {latex_escape(r.group),
                                    expected,
                                    fitted,
                                    latex_num(r.r2, 3),
                                    std::to_string(r.points),
                                    latex_escape(verdict(r))}) {
      out += " & ";
      out += cell;
    }
    if (any_control) out += " & " + latex_escape(control_cell(r));
    out += " \\\\\n";
  }
  out += "\\bottomrule\n\\end{tabular}\n";
  out += "% CI: joint-bootstrap percentile interval at level 1 - " + short_number(1 - confidence) +
         "/G for a rate with G groups (Bonferroni).";
  if (any_control) out += " A gated check passes only if its negative control fails.";
  out += "\n";
  return out;
}

}  // namespace dpx::harness
