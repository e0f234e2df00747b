// Output of `dpx claims`: JSON, plain text and docs/claims.md (docs/claims.md, "Format").
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
  if (r.kind == rate_kind::ratio_bound) {
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

json row_json(const rate_result& r) {
  json j;
  j["group"] = r.group;
  j["control"] = r.control;
  j["kind"] = to_string(r.kind);
  if (r.kind == rate_kind::ratio_bound) {
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
  const auto n = count_verdicts(rows);
  std::string out = "claims: " + std::to_string(rows.size()) + " (holds " +
                    std::to_string(n.at("holds")) + ", fails " + std::to_string(n.at("fails")) +
                    ", not_verified " + std::to_string(n.at("not_verified")) + ")\n";
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
  out += "**" + std::to_string(rows.size()) + " claims: " + std::to_string(n.at("holds")) +
         " hold, " + std::to_string(n.at("fails")) + " fail, " +
         std::to_string(n.at("not_verified")) + " not verified** (results: " + results_label +
         ").\n\n";
  out +=
      "One row per theorem, lemma, corollary and figure of the papers dpx implements, and per "
      "correction the documentation makes to them. A claim **holds** when every gated rate "
      "check that names it (`claim = \"<id>\"` in a preset's `[[rate]]`) passes, negative "
      "control included ([presets.md](presets.md), \"Controls\"); it **fails** when one of them "
      "fails; otherwise it is **not verified**, with the reason. The control column is the "
      "worst over the gated checks: `fails` (the check has power), `uncontrolled`, `missing`, "
      "`passes` (no power: the check fails). Regenerate with `scripts/run.sh --full` or "
      "`dpx claims --results results --markdown --out docs/claims.md`.\n\n";
  out += "Papers:\n\n";
  for (const auto& [k, v] : ledger.papers) out += "- `" + k + "`: " + md(v) + "\n";
  std::string paper;
  for (const auto& s : rows) {
    const std::string p = s.c.id.substr(0, s.c.id.find('.'));
    if (p != paper) {
      paper = p;
      auto it = ledger.papers.find(p);
      out += "\n## " + p + (it == ledger.papers.end() ? "" : ": " + md(it->second)) + "\n\n";
      out += "| id | source | statement | checks | verdict | control | evidence or reason |\n";
      out += "|---|---|---|---|---|---|---|\n";
    }
    std::string checks, evidence;
    for (const auto& ev : s.checks) {
      checks += (checks.empty() ? "" : "<br>") + ("`" + check_name(ev.check) + "`");
      for (const auto& r : ev.rows) {
        evidence += (evidence.empty() ? "" : "<br>") + md(evidence_line(r));
      }
    }
    if (!s.reason.empty()) evidence += (evidence.empty() ? "" : "<br>") + md(s.reason);
    out += "| " + s.c.id + " | " + md(s.c.source) + " | " + md(s.c.statement) + " | " +
           (checks.empty() ? "—" : checks) + " | " + s.verdict + " | " +
           (s.control_verdict.empty() ? "—" : s.control_verdict) + " | " + evidence + " |\n";
  }
  out +=
      "\n## Format\n\n"
      "`experiments/claims.toml` has a `[papers]` table (id prefix → citation) and one "
      "`[[claim]]` per row with `id` (`<paper>.<kind><number>`, e.g. `S1.cor5.4`; `fix.<topic>` "
      "for a correction), `source`, `statement` and optionally `reason`. A preset's `[[rate]]` "
      "names the claims it verifies with `claim = \"<id>\"` or a list. The CTest test "
      "`claims_ledger` (`dpx claims --lint`) fails when a preset names an id the ledger lacks "
      "or a claim has neither a check nor a reason.\n\n"
      "`dpx claims [--results DIR] [--json | --markdown] [--out FILE]` joins the ledger with "
      "`DIR/<experiment>/rates.json` (default `results/`). `--json` prints "
      "`{counts: {holds, fails, not_verified}, claims: [...]}` with, per claim, `id`, `source`, "
      "`statement`, `preset` and `check` (lists, aligned), `verdict` (`holds` | `fails` | "
      "`not_verified`), `control_verdict`, `evidence` (per rate row: `check`, `group`, "
      "`control`, `kind`, `slope`, `ci`, `expected`, `tolerance` — or `value`, `value_hi`, "
      "`bound` for a ratio bound — `pass`, `check_pass`, `note`), `reason`, and `checks` (per "
      "check: `preset`, `experiment`, `check`, `verdict` (`holds` | `fails` | `informational` "
      "| `no_results`), `control_verdict`, `results`). Without `--json` or `--markdown` it "
      "prints the same as text, counts first.\n";
  return out;
}

}  // namespace dpx::harness
