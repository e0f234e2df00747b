// The claims ledger: parsing experiments/claims.toml, finding the rate checks that name each
// claim in the presets, and joining both with rates.json results (docs/claims.md).
#include "dpx/harness/claims.hpp"

#include <algorithm>
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
      std::string* field = key == "id"          ? &c.id
                           : key == "source"    ? &c.source
                           : key == "statement" ? &c.statement
                           : key == "reason"    ? &c.reason
                                                : nullptr;
      if (field == nullptr) {
        throw std::invalid_argument(where(path, k.source()) + ": unknown key '" + key +
                                    "' in [[claim]] (valid keys: id, source, statement, reason)");
      }
      if (!v.is_string() || v.as_string()->get().empty()) {
        throw std::invalid_argument(where(path, v.source()) + ": [[claim]]." + key +
                                    " must be a non-empty string");
      }
      *field = v.as_string()->get();
    }
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
    if (c.reason.empty() && checks.count(c.id) == 0) {
      out.push_back(ledger.path.string() + ": claim '" + c.id +
                    "' has neither a check (no preset's [[rate]] names it) nor a reason");
    }
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
  ev.verdict = informational ? "informational" : (all_pass ? "holds" : "fails");
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
    bool any_fail = false, any_hold = false, any_results = false, any_info = false;
    int control_rank = -1;  // worst control verdict over the gated checks
    const std::vector<std::string> ranks{"fails", "uncontrolled", "missing", "passes"};
    for (const auto& ev : s.checks) {
      any_results = any_results || ev.verdict != "no_results";
      any_info = any_info || ev.verdict == "informational";
      any_fail = any_fail || ev.verdict == "fails";
      any_hold = any_hold || ev.verdict == "holds";
      if (ev.verdict == "holds" || ev.verdict == "fails") {
        const auto r = std::find(ranks.begin(), ranks.end(), ev.control_verdict) - ranks.begin();
        control_rank = std::max(control_rank, static_cast<int>(r));
      }
    }
    s.verdict = any_fail ? "fails" : (any_hold ? "holds" : "not_verified");
    if (control_rank >= 0 && control_rank < static_cast<int>(ranks.size()))
      s.control_verdict = ranks[static_cast<std::size_t>(control_rank)];
    if (s.verdict == "not_verified") {
      if (!c.reason.empty()) {
        s.reason = c.reason;
      } else if (s.checks.empty()) {
        s.reason = "no check names this claim";
      } else if (!any_results) {
        s.reason = "no results in " + results_dir.string() + " (run the presets: " + [&] {
          std::string p;
          for (const auto& ev : s.checks) p += (p.empty() ? "" : ", ") + ev.check.preset_dir;
          return p;
        }() + ")";
      } else if (any_info) {
        s.reason = "only informational checks (reported, never gating)";
      }
    } else {
      s.reason = c.reason;  // a partly measured claim keeps its caveat
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::map<std::string, std::size_t> count_verdicts(const std::vector<claim_status>& rows) {
  std::map<std::string, std::size_t> n{{"holds", 0}, {"fails", 0}, {"not_verified", 0}};
  for (const auto& r : rows) ++n[r.verdict];
  return n;
}

}  // namespace dpx::harness
