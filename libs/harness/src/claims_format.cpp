// Output of `dpx claims`: JSON, plain text and docs/claims.md (docs/claims.md, "Format").
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "dpx/harness/claims.hpp"

namespace dpx::harness {

namespace {

using json = nlohmann::ordered_json;

std::string num(double x) {
  if (std::isnan(x)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", x);
  return buf;
}

json number_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

/// One rate row as evidence: "eps=0.1: slope -1.012 [-1.05, -0.98] vs -1 (pass)".
std::string evidence_line(const rate_result& r) {
  std::string s = r.group.empty() ? std::string() : r.group + ": ";
  if (r.kind == rate_kind::audit) {
    s += "largest audit ratio " + num(r.value) + " over " + std::to_string(r.audits) +
         " audits vs <= " + num(r.bound);
  } else if (r.kind == rate_kind::ratio_bound) {
    if (std::isfinite(r.bound_lower))
      s += "max ratio " + num(r.value) + " (interval ends " + num(r.value_lo) + ", " +
           num(r.value_hi) + ") vs in [" + num(r.bound_lower) + ", " + num(r.bound) + "]";
    else
      s += "max ratio " + num(r.value) + " (upper " + num(r.value_hi) + ") vs <= " + num(r.bound);
  } else {
    s += "slope " + num(r.slope) + " [" + num(r.ci_lo) + ", " + num(r.ci_hi) + "] vs " +
         num(r.expected);
  }
  if (r.control) return "control " + s + (r.check_pass ? " (passes)" : " (fails)");
  const std::string verdict = r.informational ? (r.pass ? " (info: pass)" : " (info: fail)")
                                              : (r.pass ? " (pass)" : " (FAIL)");
  return s + verdict + (r.note.empty() ? "" : " [" + r.note + "]");
}

/// How far a row is from failing its check, for picking a check's worst group: |fitted -
/// expected| / tolerance for a slope, value_hi / bound (or bound_lower / value_lo) for a
/// ratio bound; failing rows rank above every passing one.
double closeness(const rate_result& r) {
  double c = 0;
  if (r.kind == rate_kind::audit) {
    c = r.bound > 0 ? r.value / r.bound : 0;
  } else if (r.kind == rate_kind::ratio_bound) {
    c = r.bound > 0 ? r.value_hi / r.bound : 0;
    if (std::isfinite(r.bound_lower) && r.value_lo > 0) c = std::max(c, r.bound_lower / r.value_lo);
  } else {
    c = r.tolerance > 0 ? std::abs(r.slope - r.expected) / r.tolerance : 0;
  }
  if (!std::isfinite(c)) c = 1e300;
  return r.check_pass ? c : 1e300 + c;
}

/// One line per check (docs/claims.md): verdict, the number of groups, the worst group's
/// evidence and the control's result; every row is on the experiment's page (rates.md).
std::string check_line(const check_evidence& ev) {
  const std::string name = "`" + ev.check.preset_dir + "/" + ev.check.rate + "`";
  if (ev.verdict == "no_results") return name + ": no results";
  std::vector<const rate_result*> grid, ctrl;
  for (const auto& r : ev.rows) (r.control ? ctrl : grid).push_back(&r);
  const rate_result* worst = grid.front();
  for (const auto* r : grid)
    if (closeness(*r) > closeness(*worst)) worst = r;
  std::size_t held = 0;
  for (const auto* r : grid) held += r->check_pass ? 1 : 0;
  std::string s = name + " " + ev.verdict + " (" + std::to_string(held) + "/" +
                  std::to_string(grid.size()) +
                  (ev.check.refutation ? " groups pass the check as "
                                         "published; worst: "
                                       : " groups pass; worst: ");
  rate_result shown = *worst;
  shown.informational = true;  // the verdict is already stated
  std::string line = evidence_line(shown);
  const auto tag = line.rfind(" (info: ");
  if (tag != std::string::npos) line = line.substr(0, tag) + line.substr(line.find(')', tag) + 1);
  s += line + ")";
  if (!ctrl.empty()) {
    std::size_t failed = 0;
    for (const auto* r : ctrl) failed += r->check_pass ? 0 : 1;
    s += ev.check.refutation
             ? "; positive control passes in " + std::to_string(ctrl.size() - failed) + "/" +
                   std::to_string(ctrl.size())
             : "; control fails in " + std::to_string(failed) + "/" + std::to_string(ctrl.size());
  } else if (ev.verdict != "informational") {
    s += "; " + (ev.control_verdict.empty() ? std::string("no control") : ev.control_verdict);
  }
  return s;
}

json row_json(const rate_result& r) {
  json j;
  j["group"] = r.group;
  j["control"] = r.control;
  j["kind"] = to_string(r.kind);
  if (r.kind == rate_kind::audit) {
    j["value"] = number_or_null(r.value);
    j["bound"] = number_or_null(r.bound);
    j["audits"] = r.audits;
  } else if (r.kind == rate_kind::ratio_bound) {
    j["value"] = number_or_null(r.value);
    j["value_hi"] = number_or_null(r.value_hi);
    j["bound"] = number_or_null(r.bound);
    if (std::isfinite(r.bound_lower)) {
      j["value_lo"] = number_or_null(r.value_lo);
      j["bound_lower"] = number_or_null(r.bound_lower);
    }
  } else {
    j["slope"] = number_or_null(r.slope);
    j["ci"] = json::array({number_or_null(r.ci_lo), number_or_null(r.ci_hi)});
    j["expected"] = number_or_null(r.expected);
    j["tolerance"] = number_or_null(r.tolerance);
  }
  j["pass"] = r.pass;
  j["check_pass"] = r.check_pass;
  if (!r.note.empty()) j["note"] = r.note;
  return j;
}

std::string md(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string check_name(const claim_check& c) { return c.preset_dir + "/" + c.rate; }

}  // namespace

/// "holds 36, holds_restated 5, ..." (zeros omitted except holds and fails).
static std::string counts_text(const std::vector<claim_status>& rows, const std::string& sep) {
  const auto n = count_verdicts(rows);
  std::string out;
  for (const auto& v : verdict_names()) {
    if (n.at(v) == 0 && v != "holds" && v != "fails") continue;
    out += (out.empty() ? "" : "," + sep) + v + " " + std::to_string(n.at(v));
  }
  return out;
}

std::string claims_json(const std::vector<claim_status>& rows) {
  json j;
  j["counts"] = json::object();
  for (const auto& [k, v] : count_verdicts(rows)) j["counts"][k] = v;
  j["claims"] = json::array();
  for (const auto& s : rows) {
    json c;
    c["id"] = s.c.id;
    c["source"] = s.c.source;
    c["statement"] = s.c.statement;
    c["preset"] = json::array();
    c["check"] = json::array();
    for (const auto& ev : s.checks) {
      c["preset"].push_back(ev.check.preset_dir);
      c["check"].push_back(ev.check.rate);
    }
    c["verdict"] = s.verdict;
    c["status"] = s.c.status;
    c["tests"] = s.c.tests;
    if (!s.c.experiment.empty()) c["experiment"] = s.c.experiment;
    if (!s.c.restated.empty()) c["restated"] = s.c.restated;
    c["control_verdict"] = s.control_verdict;
    c["evidence"] = json::array();
    for (const auto& ev : s.checks)
      for (const auto& r : ev.rows) {
        json e = row_json(r);
        e["check"] = check_name(ev.check);
        c["evidence"].push_back(e);
      }
    c["reason"] = s.reason;
    c["checks"] = json::array();
    for (const auto& ev : s.checks) {
      json e;
      e["preset"] = ev.check.preset_dir;
      e["experiment"] = ev.check.experiment;
      e["check"] = ev.check.rate;
      e["expect"] = ev.check.refutation ? "refuted" : "holds";
      e["verdict"] = ev.verdict;
      e["control_verdict"] = ev.control_verdict;
      e["results"] = ev.rates_json.string();
      c["checks"].push_back(e);
    }
    j["claims"].push_back(c);
  }
  return j.dump(2) + "\n";
}

std::string claims_text(const std::vector<claim_status>& rows) {
  std::string out =
      "claims: " + std::to_string(rows.size()) + " (" + counts_text(rows, " ") + ")\n";
  for (const auto& s : rows) {
    out += "\n" + s.c.id + "  " + s.verdict +
           (s.control_verdict.empty() ? "" : "  (control: " + s.control_verdict + ")") + "\n";
    out += "  source: " + s.c.source + "\n";
    out += "  statement: " + s.c.statement + "\n";
    for (const auto& ev : s.checks) {
      out += "  check " + check_name(ev.check) + ": " + ev.verdict +
             (ev.control_verdict.empty() ? "" : " (control: " + ev.control_verdict + ")") + "\n";
      for (const auto& r : ev.rows) out += "    " + evidence_line(r) + "\n";
    }
    if (!s.reason.empty()) out += "  reason: " + s.reason + "\n";
  }
  return out;
}

std::string claims_markdown(const claims_ledger& ledger,
                            const std::vector<claim_status>& rows,
                            const std::string& results_label) {
  const auto n = count_verdicts(rows);
  std::string out =
      std::string("# Claims ledger\n\n") +
      "<!-- Generated by dpx claims from experiments/claims.toml and a results directory; do "
      "not edit by hand. -->\n\n";
  out += "**" + std::to_string(rows.size()) + " claims** (results: " + results_label + "):\n\n";
  out += "| verdict | claims | meaning |\n|---|---|---|\n";
  const std::map<std::string, std::string> meaning{
      {"holds",
       "every gated check that names it passes and its control (which keeps the noise "
       "and breaks the claimed effect) fails"},
      {"holds_restated",
       "as holds, but the gate restates the claim; the literal claim's "
       "(informational) result is printed beside it"},
      {"refuted",
       "the claim as published fails an expected-failure check, and a positive "
       "control (the corrected or strict form) passes the same check"},
      {"checked_by_test",
       "no rate can measure it; the named tests would fail if it were "
       "false, shown by a killing mutant (docs/mutation.md)"},
      {"not_measurable", "no experiment on dpx's output can decide it (reason given)"},
      {"not_yet_measured", "measurable, not measured yet (the experiment that would is named)"},
      {"fails",
       "a gated check fails (the claim is contradicted, or its refutation did not "
       "reproduce): CI fails"},
      {"no_results", "gated checks exist but the results directory has none of their rows"}};
  for (const auto& v : verdict_names())
    out += "| `" + v + "` | " + std::to_string(n.at(v)) + " | " + meaning.at(v) + " |\n";
  out +=
      "\nOne row per theorem, lemma, corollary and figure of the papers dpx implements, and per "
      "correction the documentation makes to them. Every oracle a gated check uses is computed "
      "from the cell's inputs by the theorem's formula (experiments/pgd_theory, "
      "experiments/s1_theory), never from the result under test. The evidence column has one "
      "line per check: its verdict, how many groups pass, the worst group and the control; "
      "every group is on the experiment's page (docs/experiments/). The control column is the "
      "worst over the gated checks: `fails` (the check has power), `uncontrolled`, `missing`, "
      "`passes` (no power: the check fails). Regenerate with `scripts/run.sh --full` (which "
      "refreshes docs/results/full) or `dpx claims --results docs/results/full --label "
      "docs/results/full --markdown --out docs/claims.md`.\n\n";
  out += "Papers:\n\n";
  for (const auto& [k, v] : ledger.papers) out += "- `" + k + "`: " + md(v) + "\n";
  std::string paper;
  for (const auto& s : rows) {
    const std::string p = s.c.id.substr(0, s.c.id.find('.'));
    if (p != paper) {
      paper = p;
      auto it = ledger.papers.find(p);
      out += "\n## " + p + (it == ledger.papers.end() ? "" : ": " + md(it->second)) + "\n\n";
      out += "| id | source | statement | verdict | control | evidence or reason |\n";
      out += "|---|---|---|---|---|---|\n";
    }
    std::string evidence;
    for (const auto& ev : s.checks)
      evidence += (evidence.empty() ? "" : "<br>") + md(check_line(ev));
    if (!s.reason.empty()) evidence += (evidence.empty() ? "" : "<br>") + md(s.reason);
    out += "| " + s.c.id + " | " + md(s.c.source) + " | " + md(s.c.statement) + " | " + s.verdict +
           " | " + (s.control_verdict.empty() ? "—" : s.control_verdict) + " | " + evidence +
           " |\n";
  }
  out +=
      "\n## Format\n\n"
      "`experiments/claims.toml` has a `[papers]` table (id prefix → citation) and one "
      "`[[claim]]` per row with `id` (`<paper>.<kind><number>`, e.g. `S1.cor5.4`; `fix.<topic>` "
      "for a correction), `source`, `statement` (the paper's claim; for a refuted claim, its own "
      "wording) and optionally `reason`, `restated` (why the gate restates the claim), and — for "
      "a claim no gate decides — `status`: `checked_by_test` with `tests = [\"Suite.Name\", "
      "...]`, `not_measurable` with `reason`, or `not_yet_measured` with `experiment`. A preset's "
      "`[[rate]]` names the claims it verifies with `claim = \"<id>\"` or a list; "
      "`expect = \"refuted\"` makes it an expected-failure check with a positive control "
      "([presets.md](presets.md), \"Refutations\"). The CTest test `claims_ledger` (`dpx claims "
      "--lint --tests tests --mutants tests/mutation/mutants.toml`) fails when a preset names an "
      "id the ledger lacks, a claim has neither a gated check nor a status, a status sits on a "
      "gated claim, a named test does not exist, or a checked_by_test claim has no killing "
      "mutant in the catalogue. The CTest test `claims_page` regenerates this page from "
      "docs/results/full and fails when it differs.\n\n"
      "`dpx claims [--results DIR] [--json | --markdown] [--out FILE]` joins the ledger with "
      "`DIR/<experiment>/rates.json` (default `results/`). `--json` prints "
      "`{counts: {holds, holds_restated, refuted, checked_by_test, not_measurable, "
      "not_yet_measured, fails, no_results}, claims: [...]}` with, per claim, `id`, `source`, "
      "`statement`, `preset` and `check` (lists, aligned), `verdict`, `status`, `tests`, "
      "`control_verdict`, `evidence` (per rate row: `check`, `group`, `control`, `kind`, "
      "`slope`, `ci`, `expected`, `tolerance` — or `value`, `value_hi`, `bound` for a ratio "
      "bound — `pass`, `check_pass`, `note`), `reason`, and `checks` (per check: `preset`, "
      "`experiment`, `check`, `expect` (`holds` | `refuted`), `verdict` (`holds` | `refuted` | "
      "`fails` | `informational` | `no_results`), `control_verdict`, `results`). Without "
      "`--json` or `--markdown` it prints the same as text, counts first.\n";
  return out;
}

}  // namespace dpx::harness
