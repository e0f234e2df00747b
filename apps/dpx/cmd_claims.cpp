// dpx claims: the claims ledger (experiments/claims.toml) joined with the rate results of a
// results directory: per claim its checks, verdict, control verdict and evidence
// (docs/claims.md).
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "dpx/harness/claims.hpp"
#include "dpx/harness/preset.hpp"
#include "dpx/harness/results.hpp"

namespace dpx::cli::cmd_claims {
namespace {

struct claims_options {
  std::string results = "results";
  std::string experiments;
  std::string ledger;
  std::string out;
  std::string label;
  std::string tests;
  std::string mutants;
  bool json = false;
  bool markdown = false;
  bool lint = false;
};

const bool registered = dpx::cli::register_command(
    "claims",
    "Join the claims ledger with rate results: per claim its checks, verdict and evidence",
    [](CLI::App& sub) {
      auto o = std::make_shared<claims_options>();
      sub.add_option("--results", o->results, "Results directory (default: results)");
      sub.add_option("--experiments",
                     o->experiments,
                     "Experiments directory holding the presets (default: as `dpx list`)");
      sub.add_option(
          "--ledger", o->ledger, "Ledger file (default: <experiments directory>/claims.toml)");
      sub.add_flag("--json", o->json, "JSON: {counts, claims: [...]} (docs/claims.md)");
      sub.add_flag("--markdown", o->markdown, "The Markdown page docs/claims.md");
      sub.add_option(
          "--out", o->out, "Write the output to this file (atomically) instead of stdout");
      sub.add_option("--label",
                     o->label,
                     "How the Markdown page names the results (default: the --results path)");
      sub.add_flag("--lint",
                   o->lint,
                   "Only check the ledger against the presets (unknown claim ids, claims with "
                   "neither a gated check nor a status, ...); exit 1 listing the problems");
      sub.add_option("--tests",
                     o->tests,
                     "With --lint: the tests directory; every test a checked_by_test claim "
                     "names must be defined there");
      sub.add_option("--mutants",
                     o->mutants,
                     "With --lint: the mutation catalogue; every checked_by_test claim must be "
                     "named by one of its mutants");
      return [o]() -> int {
        namespace fs = std::filesystem;
        if (o->json && o->markdown) {
          throw std::invalid_argument("--json and --markdown exclude each other");
        }
        const fs::path dir =
            o->experiments.empty() ? dpx::harness::experiments_dir() : fs::path(o->experiments);
        const fs::path ledger_path = o->ledger.empty() ? dir / "claims.toml" : fs::path(o->ledger);
        const auto ledger = dpx::harness::load_claims(ledger_path);
        const auto checks = dpx::harness::find_claim_checks(dir);
        auto problems = dpx::harness::ledger_problems(ledger, checks);
        if (o->lint) {
          if ((!o->tests.empty() || !o->mutants.empty()) && o->tests.empty())
            throw std::invalid_argument("--mutants needs --tests");
          if (!o->tests.empty()) {
            const auto more = dpx::harness::test_problems(
                ledger,
                dpx::harness::find_test_names(o->tests),
                o->mutants.empty() ? std::vector<std::string>{}
                                   : dpx::harness::find_mutant_claims(o->mutants));
            problems.insert(problems.end(), more.begin(), more.end());
          }
          for (const auto& p : problems) std::cerr << "dpx claims: " << p << "\n";
          if (problems.empty()) {
            std::cout << "ledger ok: " << ledger.claims.size() << " claims, " << checks.size()
                      << " claimed by rate checks\n";
          }
          return problems.empty() ? dpx::cli::exit_ok : dpx::cli::exit_failure;
        }
        for (const auto& p : problems) std::cerr << "dpx claims: warning: " << p << "\n";
        const auto rows = dpx::harness::join_claims(ledger, checks, o->results);
        std::string text;
        if (o->json) {
          text = dpx::harness::claims_json(rows);
        } else if (o->markdown) {
          text =
              dpx::harness::claims_markdown(ledger, rows, o->label.empty() ? o->results : o->label);
        } else {
          text = dpx::harness::claims_text(rows);
        }
        if (o->out.empty()) {
          std::cout << text;
        } else {
          dpx::harness::write_file_atomic(o->out, text);
        }
        return dpx::cli::exit_ok;
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_claims
