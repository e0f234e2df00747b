#pragma once
/// \file
/// The claims ledger (experiments/claims.toml, docs/claims.md): one row per theorem, lemma,
/// corollary and figure of the papers dpx implements and per correction of them, each either
/// verified by rate checks of the presets (a [[rate]] names it with `claim = "<id>"`) or
/// carrying the reason it cannot be measured. `dpx claims` joins the ledger with the rate
/// results of a results directory.

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "dpx/harness/analysis.hpp"

namespace dpx::harness {

/// One row of the ledger ([[claim]] in claims.toml).
struct claim {
  std::string id;         ///< "<paper>.<kind><number>", e.g. "S1.cor5.4"; paper from [papers]
  std::string source;     ///< paper and theorem/lemma/figure, e.g. "... (2025), Corollary 5.4"
  std::string statement;  ///< self-contained, in the repository's words
  std::string reason;     ///< why it is not (fully) measured; empty when checks verify it
};

/// The ledger file.
struct claims_ledger {
  std::filesystem::path path;
  std::map<std::string, std::string> papers;  ///< id prefix -> full citation ([papers])
  std::vector<claim> claims;                  ///< in file order
};

/// Loads and validates a ledger: keys [papers] and [[claim]] only; a claim needs id, source,
/// statement (non-empty strings) and may have reason; ids are unique, of the form
/// <paper>.<rest> with <paper> a key of [papers] and no spaces, commas or pipes. Throws
/// std::invalid_argument naming the file, line and key.
claims_ledger load_claims(const std::filesystem::path& path);

/// The ledger of a source tree or installation: <experiments_dir()>/claims.toml.
std::filesystem::path default_claims_path();

/// One rate check that names a claim.
struct claim_check {
  std::string preset_dir;  ///< directory name under the experiments dir
  std::string experiment;  ///< [experiment] name (results/<experiment>/)
  std::string rate;        ///< rate name
  bool informational = false;
  bool controlled = false;  ///< declares a control
};

/// Every [[rate]] claim reference of the presets under dir (<dir>/<name>/preset.toml), read
/// without driver validation: claim id -> checks. Throws std::invalid_argument for a preset
/// that is not valid TOML or whose claim key is not a string or list of strings.
std::map<std::string, std::vector<claim_check>> find_claim_checks(const std::filesystem::path& dir);

/// What is wrong with the ledger against the presets: a claim id named by a preset that the
/// ledger lacks, and a claim with neither a check nor a reason. Empty when consistent.
std::vector<std::string> ledger_problems(
    const claims_ledger& ledger, const std::map<std::string, std::vector<claim_check>>& checks);

/// One check's evidence in a results directory.
struct check_evidence {
  claim_check check;
  /// "holds" (every gated grid row passes, controls included), "fails", "informational"
  /// (reported, never gating), "no_results" (no rates.json or no row of this rate).
  std::string verdict;
  /// "fails" (every control row fails: the check has power), "passes" (some control passes:
  /// no power), "uncontrolled", "missing", "" when there are no results.
  std::string control_verdict;
  std::vector<rate_result> rows;  ///< the rate's rows (grid rows, then control rows)
  std::filesystem::path rates_json;
};

/// One claim joined with its evidence.
struct claim_status {
  claim c;
  std::vector<check_evidence> checks;
  std::string verdict;          ///< "holds" | "fails" | "not_verified"
  std::string control_verdict;  ///< worst over the gated checks (see check_evidence), or ""
  std::string reason;           ///< why not verified (the ledger's reason, or what is missing)
};

/// Joins the ledger with the checks and the rates.json files under results_dir
/// (<results_dir>/<experiment>/rates.json). A claim holds when it has gated checks with
/// results and all of them hold; it fails when any gated check fails; otherwise it is not
/// verified.
std::vector<claim_status> join_claims(const claims_ledger& ledger,
                                      const std::map<std::string, std::vector<claim_check>>& checks,
                                      const std::filesystem::path& results_dir);

/// Verdict counts {"holds", "fails", "not_verified"} -> count.
std::map<std::string, std::size_t> count_verdicts(const std::vector<claim_status>& rows);

/// JSON (docs/claims.md "Format"): {"counts": {...}, "claims": [{id, source, statement,
/// preset, check, verdict, control_verdict, evidence, reason, checks: [...]}]}.
std::string claims_json(const std::vector<claim_status>& rows);
/// Plain text for a terminal (counts first).
std::string claims_text(const std::vector<claim_status>& rows);
/// docs/claims.md content (counts at the top, one table per paper).
std::string claims_markdown(const claims_ledger& ledger,
                            const std::vector<claim_status>& rows,
                            const std::string& results_label);

}  // namespace dpx::harness
