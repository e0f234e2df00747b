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
  /// For a claim no gated check decides: "checked_by_test" (the named tests would fail if the
  /// claim were false, shown by a killing mutant), "not_measurable" (reason says why) or
  /// "not_yet_measured" (experiment says what would measure it). Empty for a gated claim.
  std::string status;
  std::vector<std::string> tests;  ///< checked_by_test: GoogleTest names "Suite.Name"
  std::string experiment;          ///< not_yet_measured: the experiment that would measure it
  /// The gate is a restatement of the claim (e.g. "MSE / oracle flat" for "MSE falls like
  /// 1/T"): why, and which informational check carries the literal claim. A claim whose gated
  /// checks hold is then "holds_restated", not "holds".
  std::string restated;
};

/// The verdicts of the ledger, in the order docs/claims.md counts them: holds, holds_restated,
/// refuted, checked_by_test, not_measurable, not_yet_measured, fails (a gated check failed:
/// the claim is contradicted or its refutation did not reproduce), no_results.
const std::vector<std::string>& verdict_names();

/// The ledger file.
struct claims_ledger {
  std::filesystem::path path;
  std::map<std::string, std::string> papers;  ///< id prefix -> full citation ([papers])
  std::vector<claim> claims;                  ///< in file order
};

/// Loads and validates a ledger: keys [papers] and [[claim]] only; a claim needs id, source,
/// statement (non-empty strings) and may have reason, status, tests (list of "Suite.Name"),
/// experiment and restated; status is checked_by_test (needs tests), not_measurable (needs
/// reason) or not_yet_measured (needs experiment); tests and experiment need their status; ids
/// are unique, of the form <paper>.<rest> with <paper> a key of [papers] and no spaces, commas
/// or pipes. Throws std::invalid_argument naming the file, line and key.
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
  bool refutation = false;  ///< expect = "refuted": the published form must fail the check
};

/// Every [[rate]] claim reference of the presets under dir (<dir>/<name>/preset.toml), read
/// without driver validation: claim id -> checks. Throws std::invalid_argument for a preset
/// that is not valid TOML or whose claim key is not a string or list of strings.
std::map<std::string, std::vector<claim_check>> find_claim_checks(const std::filesystem::path& dir);

/// What is wrong with the ledger against the presets: a claim id named by a preset that the
/// ledger lacks; a claim with no gated check and no status (every claim is decided by a gate,
/// or says why not); a status on a claim that has a gated check; `restated` on a claim with no
/// gated check. Empty when consistent.
std::vector<std::string> ledger_problems(
    const claims_ledger& ledger, const std::map<std::string, std::vector<claim_check>>& checks);

/// The GoogleTest names ("Suite.Name") defined under dir: TEST, TEST_F and TEST_P macros of
/// every .cpp file (TEST_P names are "Suite.Name" without the instantiation prefix).
std::vector<std::string> find_test_names(const std::filesystem::path& dir);

/// The claims demonstrated by killing mutants: the `claim` keys of the [[mutant]] tables of a
/// mutation catalogue (tests/mutation/mutants.toml). Throws std::invalid_argument for a file
/// that is not valid TOML.
std::vector<std::string> find_mutant_claims(const std::filesystem::path& catalogue);

/// ledger_problems plus: a checked_by_test claim naming a test that is not in test_names, or
/// that no mutant of mutant_claims demonstrates (skipped when mutant_claims is empty).
std::vector<std::string> test_problems(const claims_ledger& ledger,
                                       const std::vector<std::string>& test_names,
                                       const std::vector<std::string>& mutant_claims);

/// One check's evidence in a results directory.
struct check_evidence {
  claim_check check;
  /// "holds" (every gated grid row passes, controls included), "refuted" (a refutation check
  /// whose published form fails and whose positive control passes), "fails", "informational"
  /// (reported, never gating), "no_results" (no rates.json or no row of this rate).
  std::string verdict;
  /// "fails" (every control row fails: the check has power), "passes" (some control passes:
  /// no power; for a refutation, the positive control passes as required), "uncontrolled",
  /// "missing", "" when there are no results.
  std::string control_verdict;
  std::vector<rate_result> rows;  ///< the rate's rows (grid rows, then control rows)
  std::filesystem::path rates_json;
};

/// One claim joined with its evidence.
struct claim_status {
  claim c;
  std::vector<check_evidence> checks;
  std::string verdict;          ///< one of verdict_names()
  std::string control_verdict;  ///< worst over the gated checks (see check_evidence), or ""
  std::string reason;           ///< the ledger's reason, or what is missing
};

/// Joins the ledger with the checks and the rates.json files under results_dir
/// (<results_dir>/<experiment>/rates.json). Verdict: "fails" when any gated check fails
/// (including a refutation that did not reproduce); else "refuted" when a refutation check
/// reproduces (for a correction, id "<paper>.fix.<topic>", a reproduced refutation confirms it:
/// it counts as holding); else "holds" (or "holds_restated" when the claim has `restated`) when a
/// gated check holds; else the ledger's status when it has one; else "no_results" (gated checks
/// without results, or only informational checks and no status).
std::vector<claim_status> join_claims(const claims_ledger& ledger,
                                      const std::map<std::string, std::vector<claim_check>>& checks,
                                      const std::filesystem::path& results_dir);

/// Verdict counts: every name of verdict_names() -> count (zeros included).
std::map<std::string, std::size_t> count_verdicts(const std::vector<claim_status>& rows);

/// JSON (docs/claims.md "Format"): {"counts": {...}, "claims": [{id, source, statement,
/// preset, check, verdict, control_verdict, evidence, reason, checks: [...]}]}.
std::string claims_json(const std::vector<claim_status>& rows);
/// Plain text for a terminal (counts first).
std::string claims_text(const std::vector<claim_status>& rows);
/// docs/claims.md content (counts at the top, one table per paper, one evidence line per
/// check: its verdict, number of groups, the worst group and the control).
std::string claims_markdown(const claims_ledger& ledger,
                            const std::vector<claim_status>& rows,
                            const std::string& results_label);

}  // namespace dpx::harness
