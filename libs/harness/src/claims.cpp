// The claims ledger: parsing experiments/claims.toml, finding the rate checks that name each
// claim in the presets, and joining both with rates.json results (docs/claims.md).
#include "dpx/harness/claims.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <toml++/toml.h>

#include "dpx/harness/preset.hpp"

namespace dpx::harness {

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::invalid_argument(p.string() + ": cannot read the file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string where(const fs::path& file, const toml::source_region& s) {
  return file.string() + ":" + std::to_string(s.begin.line) + ":" + std::to_string(s.begin.column);
}

toml::table parse_toml(const fs::path& file) {
  try {
    return toml::parse(read_all(file), file.string());
  } catch (const toml::parse_error& e) {
    std::string d(e.description());
    std::replace(d.begin(), d.end(), '\n', ' ');
    throw std::invalid_argument(where(file, e.source()) + ": TOML syntax error: " + d);
  }
}

bool valid_id_char(char ch) {
  return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-';
}

}  // namespace

claims_ledger load_claims(const fs::path& path) {
  const toml::table root = parse_toml(path);
  claims_ledger out;
  out.path = path;
  for (auto&& [k, v] : root) {
    const std::string key(k.str());
    if (key != "papers" && key != "claim") {
      throw std::invalid_argument(where(path, k.source()) + ": unknown key '" + key +
                                  "' (valid keys: papers, claim)");
    }
  }
  if (const auto* papers = root.get("papers")) {
    if (!papers->is_table())
      throw std::invalid_argument(where(path, papers->source()) + ": papers must be a table");
    for (auto&& [k, v] : *papers->as_table()) {
      if (!v.is_string()) {
        throw std::invalid_argument(where(path, v.source()) + ": papers." + std::string(k.str()) +
                                    " must be a string (the citation)");
      }
      out.papers[std::string(k.str())] = v.as_string()->get();
    }
  }
  const auto* claims = root.get("claim");
  if (claims == nullptr) return out;
  if (!claims->is_array_of_tables())
    throw std::invalid_argument(where(path, claims->source()) + ": claim must be [[claim]] tables");
  std::set<std::string> ids;
  for (const auto& node : *claims->as_array()) {
    const auto& t = *node.as_table();
    claim c;
    for (auto&& [k, v] : t) {
      const std::string key(k.str());
      if (key == "tests") {
        if (!v.is_array() || v.as_array()->empty())
          throw std::invalid_argument(where(path, v.source()) +
                                      ": [[claim]].tests must be a non-empty list of test names");
        for (const auto& e : *v.as_array()) {
          if (!e.is_string() || e.as_string()->get().find('.') == std::string::npos)
            throw std::invalid_argument(where(path, e.source()) +
                                        ": [[claim]].tests entries must be \"Suite.Name\"");
          c.tests.push_back(e.as_string()->get());
        }
        continue;
      }
      std::string* field = key == "id"           ? &c.id
                           : key == "source"     ? &c.source
                           : key == "statement"  ? &c.statement
                           : key == "reason"     ? &c.reason
                           : key == "status"     ? &c.status
                           : key == "experiment" ? &c.experiment
                           : key == "restated"   ? &c.restated
                                                 : nullptr;
      if (field == nullptr) {
        throw std::invalid_argument(where(path, k.source()) + ": unknown key '" + key +
                                    "' in [[claim]] (valid keys: id, source, statement, reason, "
                                    "status, tests, experiment, restated)");
      }
      if (!v.is_string() || v.as_string()->get().empty()) {
        throw std::invalid_argument(where(path, v.source()) + ": [[claim]]." + key +
                                    " must be a non-empty string");
      }
      *field = v.as_string()->get();
    }
    const std::string named = c.id.empty() ? std::string() : "'" + c.id + "' ";
    if (!c.status.empty() && c.status != "checked_by_test" && c.status != "not_measurable" &&
        c.status != "not_yet_measured") {
      throw std::invalid_argument(where(path, t.source()) + ": [[claim]] " + named +
                                  "status must be checked_by_test, not_measurable or "
                                  "not_yet_measured");
    }
    const auto needs = [&](bool ok, const std::string& what) {
      if (!ok) throw std::invalid_argument(where(path, t.source()) + ": [[claim]] " + named + what);
    };
    needs((c.status == "checked_by_test") == !c.tests.empty(),
          "needs 'tests' exactly when status = \"checked_by_test\"");
    needs((c.status == "not_yet_measured") == !c.experiment.empty(),
          "needs 'experiment' exactly when status = \"not_yet_measured\"");
    needs(c.status != "not_measurable" || !c.reason.empty(),
          "with status = \"not_measurable\" needs 'reason'");
    needs(c.restated.empty() || c.status.empty(), "'restated' is for a gated claim (no status)");
    for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"id", &c.id},
                                     {"source", &c.source},
                                     {"statement", &c.statement}}) {
      if (value->empty()) {
        throw std::invalid_argument(where(path, t.source()) + ": [[claim]] " +
                                    (c.id.empty() ? std::string() : "'" + c.id + "' ") + "needs '" +
                                    key + "'");
      }
    }
    const auto dot = c.id.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == c.id.size() ||
        !std::all_of(c.id.begin(), c.id.end(), valid_id_char)) {
      throw std::invalid_argument(where(path, t.source()) + ": [[claim]].id '" + c.id +
                                  "' must be <paper>.<name> of letters, digits, '.', '_', '-'");
    }
    if (out.papers.count(c.id.substr(0, dot)) == 0) {
      throw std::invalid_argument(where(path, t.source()) + ": [[claim]].id '" + c.id +
                                  "': paper '" + c.id.substr(0, dot) + "' is not in [papers]");
    }
    if (!ids.insert(c.id).second) {
      throw std::invalid_argument(where(path, t.source()) + ": [[claim]].id '" + c.id +
                                  "' is declared twice");
    }
    out.claims.push_back(std::move(c));
  }
  return out;
}

fs::path default_claims_path() { return experiments_dir() / "claims.toml"; }

std::map<std::string, std::vector<claim_check>> find_claim_checks(const fs::path& dir) {
  std::map<std::string, std::vector<claim_check>> out;
  for (const auto& info : list_presets(dir)) {
    const toml::table root = parse_toml(info.path);
    const std::string experiment = root["experiment"]["name"].value_or(info.name);
    const auto* rates = root.get("rate");
    if (rates == nullptr || !rates->is_array_of_tables()) continue;
    for (const auto& node : *rates->as_array()) {
      const auto& t = *node.as_table();
      const auto* cl = t.get("claim");
      if (cl == nullptr) continue;
      std::vector<std::string> ids;
      if (cl->is_string()) {
        ids.push_back(cl->as_string()->get());
      } else if (cl->is_array()) {
        for (const auto& e : *cl->as_array()) {
          if (!e.is_string())
            throw std::invalid_argument(where(info.path, e.source()) + ": claim must be strings");
          ids.push_back(e.as_string()->get());
        }
      } else {
        throw std::invalid_argument(where(info.path, cl->source()) +
                                    ": claim must be a string or a list of strings");
      }
      claim_check ch;
      ch.preset_dir = info.name;
      ch.experiment = experiment;
      ch.rate = t["name"].value_or(t["y"].value_or(std::string()) + "_vs_" +
                                   t["x"].value_or(std::string()));
      ch.informational = t["informational"].value_or(false);
      ch.controlled = t.contains("control");
      ch.refutation = t["expect"].value_or(std::string("holds")) == "refuted";
      for (const auto& id : ids) out[id].push_back(ch);
    }
  }
  return out;
}

std::vector<std::string> ledger_problems(
    const claims_ledger& ledger, const std::map<std::string, std::vector<claim_check>>& checks) {
  std::vector<std::string> out;
  std::set<std::string> ids;
  for (const auto& c : ledger.claims) ids.insert(c.id);
  for (const auto& [id, list] : checks) {
    if (ids.count(id) != 0) continue;
    for (const auto& ch : list) {
      out.push_back("experiments/" + ch.preset_dir + "/preset.toml: rate '" + ch.rate +
                    "' names claim '" + id + "', which " + ledger.path.string() + " lacks");
    }
  }
  for (const auto& c : ledger.claims) {
    bool gated = false;
    if (auto it = checks.find(c.id); it != checks.end())
      for (const auto& ch : it->second) gated = gated || !ch.informational;
    const std::string claim_name = ledger.path.string() + ": claim '" + c.id + "'";
    if (!gated && c.status.empty()) {
      out.push_back(claim_name +
                    " has no gated check and no status (checked_by_test, not_measurable or "
                    "not_yet_measured)");
    }
    if (gated && !c.status.empty()) {
      out.push_back(claim_name + " has a gated check and status '" + c.status +
                    "' (a status is for a claim no gate decides)");
    }
    if (!gated && !c.restated.empty())
      out.push_back(claim_name + " is 'restated' but has no gated check");
  }
  return out;
}

namespace {

check_evidence evaluate(const claim_check& ch, const fs::path& results_dir) {
  check_evidence ev;
  ev.check = ch;
  ev.rates_json = results_dir / ch.experiment / "rates.json";
  std::error_code ec;
  if (!fs::is_regular_file(ev.rates_json, ec)) {
    ev.verdict = "no_results";
    return ev;
  }
  for (auto& r : read_rates_json(ev.rates_json)) {
    if (r.rate == ch.rate) ev.rows.push_back(std::move(r));
  }
  std::vector<const rate_result*> grid;
  for (const auto& r : ev.rows)
    if (!r.control) grid.push_back(&r);
  if (grid.empty()) {
    ev.verdict = "no_results";
    return ev;
  }
  // The results decide whether the check gates (a rates.json may predate a preset edit).
  bool informational = true;
  for (const auto* r : grid) informational = informational && r->informational;
  bool all_pass = true;
  for (const auto* r : grid) all_pass = all_pass && r->pass;
  ev.verdict = informational   ? "informational"
               : !all_pass     ? "fails"
               : ch.refutation ? "refuted"
                               : "holds";
  std::string cv = "fails";
  for (const auto* r : grid) {
    if (r->control_verdict == "passes") {
      cv = "passes";
    } else if (r->control_verdict == "missing" && cv != "passes") {
      cv = "missing";
    } else if ((r->control_verdict == "none" || r->control_verdict.empty()) && cv == "fails") {
      cv = "uncontrolled";
    }
  }
  ev.control_verdict = cv;
  return ev;
}

}  // namespace

std::vector<claim_status> join_claims(const claims_ledger& ledger,
                                      const std::map<std::string, std::vector<claim_check>>& checks,
                                      const fs::path& results_dir) {
  std::vector<claim_status> out;
  for (const auto& c : ledger.claims) {
    claim_status s;
    s.c = c;
    if (auto it = checks.find(c.id); it != checks.end()) {
      for (const auto& ch : it->second) s.checks.push_back(evaluate(ch, results_dir));
    }
    bool any_fail = false, any_hold = false, any_refuted = false, any_gated = false;
    int control_rank = -1;  // worst control verdict over the gated checks
    const std::vector<std::string> ranks{"fails", "uncontrolled", "missing", "passes"};
    // A correction ("<paper>.fix.<topic>") predicts that the published form fails: a refutation
    // that reproduces confirms it.
    const bool correction = c.id.find(".fix.") != std::string::npos;
    for (const auto& ev : s.checks) {
      any_gated = any_gated || !ev.check.informational;
      any_fail = any_fail || ev.verdict == "fails";
      any_hold = any_hold || ev.verdict == "holds" || (correction && ev.verdict == "refuted");
      any_refuted = any_refuted || (!correction && ev.verdict == "refuted");
      // A refutation's positive control must pass: it does not enter the power ranking.
      if (ev.verdict == "holds" || (ev.verdict == "fails" && !ev.check.refutation)) {
        const auto r = std::find(ranks.begin(), ranks.end(), ev.control_verdict) - ranks.begin();
        control_rank = std::max(control_rank, static_cast<int>(r));
      }
    }
    s.verdict = any_fail      ? "fails"
                : any_refuted ? "refuted"
                : any_hold    ? (c.restated.empty() ? "holds" : "holds_restated")
                : !c.status.empty() && !any_gated ? c.status
                                                  : "no_results";
    if (control_rank >= 0 && control_rank < static_cast<int>(ranks.size()))
      s.control_verdict = ranks[static_cast<std::size_t>(control_rank)];
    s.reason = c.reason;
    if (s.verdict == "no_results") {
      std::string p;
      for (const auto& ev : s.checks)
        if (!ev.check.informational) p += (p.empty() ? "" : ", ") + ev.check.preset_dir;
      s.reason = "no results in " + results_dir.string() + " (run the presets: " + p + ")";
    } else if (s.verdict == "checked_by_test") {
      std::string t;
      for (const auto& name : c.tests) t += (t.empty() ? "" : ", ") + name;
      s.reason = "tests: " + t + (c.reason.empty() ? "" : ". " + c.reason);
    } else if (s.verdict == "not_yet_measured") {
      s.reason =
          "would be measured by: " + c.experiment + (c.reason.empty() ? "" : ". " + c.reason);
    } else if (s.verdict == "holds_restated") {
      s.reason = "restated: " + c.restated + (c.reason.empty() ? "" : ". " + c.reason);
    }
    out.push_back(std::move(s));
  }
  return out;
}

const std::vector<std::string>& verdict_names() {
  static const std::vector<std::string> names{"holds",
                                              "holds_restated",
                                              "refuted",
                                              "checked_by_test",
                                              "not_measurable",
                                              "not_yet_measured",
                                              "fails",
                                              "no_results"};
  return names;
}

std::map<std::string, std::size_t> count_verdicts(const std::vector<claim_status>& rows) {
  std::map<std::string, std::size_t> n;
  for (const auto& v : verdict_names()) n[v] = 0;
  for (const auto& r : rows) ++n[r.verdict];
  return n;
}

std::vector<std::string> find_test_names(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file() || it->path().extension() != ".cpp") continue;
    const std::string text = read_all(it->path());
    for (const std::string macro : {"TEST(", "TEST_F(", "TEST_P("}) {
      for (auto pos = text.find(macro); pos != std::string::npos; pos = text.find(macro, pos + 1)) {
        if (pos > 0 &&
            (std::isalnum(static_cast<unsigned char>(text[pos - 1])) || text[pos - 1] == '_'))
          continue;  // e.g. TYPED_TEST(
        const auto close = text.find(')', pos);
        if (close == std::string::npos) continue;
        std::string args = text.substr(pos + macro.size(), close - pos - macro.size());
        std::string suite, name;
        const auto comma = args.find(',');
        if (comma == std::string::npos) continue;
        for (const char ch : args.substr(0, comma))
          if (!std::isspace(static_cast<unsigned char>(ch))) suite += ch;
        for (const char ch : args.substr(comma + 1))
          if (!std::isspace(static_cast<unsigned char>(ch))) name += ch;
        if (!suite.empty() && !name.empty() &&
            std::all_of(suite.begin(), suite.end(), valid_id_char) &&
            std::all_of(name.begin(), name.end(), valid_id_char))
          names.insert(suite + "." + name);
      }
    }
  }
  return {names.begin(), names.end()};
}

std::vector<std::string> find_mutant_claims(const fs::path& catalogue) {
  const toml::table root = parse_toml(catalogue);
  std::set<std::string> out;
  if (const auto* mutants = root.get("mutant"); mutants != nullptr && mutants->is_array()) {
    for (const auto& node : *mutants->as_array()) {
      if (!node.is_table()) continue;
      const auto* cl = node.as_table()->get("claim");
      if (cl == nullptr) continue;
      if (cl->is_string()) out.insert(cl->as_string()->get());
      if (cl->is_array())
        for (const auto& e : *cl->as_array())
          if (e.is_string()) out.insert(e.as_string()->get());
    }
  }
  return {out.begin(), out.end()};
}

std::vector<std::string> test_problems(const claims_ledger& ledger,
                                       const std::vector<std::string>& test_names,
                                       const std::vector<std::string>& mutant_claims) {
  const std::set<std::string> tests(test_names.begin(), test_names.end());
  const std::set<std::string> demonstrated(mutant_claims.begin(), mutant_claims.end());
  std::vector<std::string> out;
  for (const auto& c : ledger.claims) {
    for (const auto& t : c.tests) {
      if (tests.count(t) == 0)
        out.push_back(ledger.path.string() + ": claim '" + c.id + "' names test '" + t +
                      "', which no TEST/TEST_F/TEST_P under the tests directory defines");
    }
    if (c.status == "checked_by_test" && !mutant_claims.empty() && demonstrated.count(c.id) == 0)
      out.push_back(ledger.path.string() + ": claim '" + c.id +
                    "' is checked_by_test but no mutant of the mutation catalogue names it");
  }
  return out;
}

}  // namespace dpx::harness
