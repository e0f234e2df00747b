// dpx mean: a differentially private mean of one CSV column (dpx::estimators;
// docs/theory/dependent-data.md; docs/estimators.md).
//
//   dpx mean --input FILE.csv --column X --epsilon E --delta D (--tau T | --variance-bound V
//            [--gamma G]) [--user-column ID [--rows-per-user T]] [--local --bound B] [--seed S]
//
// Item level, central: S1 Algorithm 4 (WinsorizedMean1D) with the paper rule (bins of
// half-width τ, interval m̂ ± 3τ); τ = --tau, or τ = sqrt(2 V ln(2n/γ)) [S1 Cor 3.6] from a
// PUBLIC variance (or log-Sobolev) bound V. User level (--user-column): rows grouped by user,
// Algorithm 5 (d = 1) on the user averages; with --variance-bound the number of rows per user
// is the PUBLIC --rows-per-user T (τ = sqrt(2 V ln(2n/γ)/T), S1 Lemma 5.2), never read from
// the data: a user's row count is part of that user's record, so τ (or a refusal) must not
// depend on it. Users may have any number of rows (each contributes one average). Local (--local):
// S1 Algorithm 8 with the public bound |μ| ≤ B, ε-LDP (δ = 0 spent).
//
// Noise: float-safe by default (exact discrete Laplace on the histogram counts and
// float_safe_laplace's grid release of the mean; docs/mechanisms.md, "Float safety"), the
// research-grade double Laplace of S1 only with --research-grade; "noise" in the output says which.
//
// Output (docs/cli-schema.json): one JSON object {"schema_version", "estimate", "clip_range",
// "epsilon", "delta", "level", "model", "failed", "n", "noise", "seeded", "noise_note"} — only
// private quantities (and the public n). Without --seed the noise comes from rng::os_random (a
// CSPRNG: a real release); with --seed it is reproducible Philox (experiments only: anyone who
// knows the seed knows the noise), "seeded" is true and a warning goes to stderr. Bad input: one
// line on stderr, exit 2.
#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.hpp"
#include "dpx/core/csv.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/estimators/central.hpp"
#include "dpx/estimators/local.hpp"
#include "dpx/estimators/user_level.hpp"
#include "json_output.hpp"
#include "strict.hpp"

namespace dpx::cli::cmd_mean {
namespace {

namespace est = dpx::estimators;

struct mean_options {
  std::string input, column, user_column;
  double epsilon = 0;
  std::optional<double> delta;  // required centrally; with --local validated if given, unused
  std::optional<double> tau, variance_bound, bound;
  std::optional<long long> rows_per_user;  // public T (user level with --variance-bound)
  double gamma = 0.1;
  bool local = false;
  bool research_grade = false;
  std::optional<std::uint64_t> seed;
  dpx::core::csv_limits limits;  // --max-input-bytes, --max-rows
};

[[noreturn]] void fail(const std::string& msg) { throw std::invalid_argument(msg); }

struct table {
  std::vector<double> values;
  std::vector<std::string> users;  // empty without --user-column
};

// Only the value column (and the user column) are read, with the dpx::core CSV reader.
table read_csv(const mean_options& o) {
  dpx::core::csv_columns cols{{o.column}, {}};
  if (!o.user_column.empty()) cols.text.push_back(o.user_column);
  auto t = dpx::core::read_csv_file(o.input, cols, o.limits);
  table out;
  out.values = std::move(t.numeric[0]);
  if (!o.user_column.empty()) out.users = std::move(t.text[0]);
  return out;
}

// Groups rows by user id (order of first appearance): rows reordered user by user + offsets.
void group_users(const table& t, std::vector<double>& rows, std::vector<std::size_t>& offsets) {
  std::map<std::string, std::size_t> index;
  std::vector<std::vector<double>> per;
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    auto [it, fresh] = index.try_emplace(t.users[i], per.size());
    if (fresh) per.emplace_back();
    per[it->second].push_back(t.values[i]);
  }
  offsets.assign(1, 0);
  for (const auto& u : per) {
    rows.insert(rows.end(), u.begin(), u.end());
    offsets.push_back(rows.size());
  }
}

int run_mean(const mean_options& o) {
  // One-line messages naming the flag (main.cpp prefixes "dpx mean: error: ").
  auto positive = [](const char* flag, double v) {
    if (!(std::isfinite(v) && v > 0))
      fail(std::string(flag) + " = " + dpx::core::format_double(v) +
           " is invalid (must be finite and > 0)");
  };
  auto open01 = [](const char* flag, double v) {
    if (!(v > 0 && v < 1))
      fail(std::string(flag) + " = " + dpx::core::format_double(v) +
           " is invalid (must lie in (0, 1))");
  };
  positive("--epsilon", o.epsilon);
  if (!o.local && !o.delta) fail("--delta is required (central model)");
  if (o.delta) open01("--delta", *o.delta);
  if (o.tau.has_value() == o.variance_bound.has_value())
    fail("give exactly one of --tau and --variance-bound");
  if (o.tau) positive("--tau", *o.tau);
  if (o.variance_bound) positive("--variance-bound", *o.variance_bound);
  open01("--gamma", o.gamma);
  if (o.local && !o.bound) fail("--local needs --bound B (a public bound |mean| <= B)");
  if (!o.local && o.bound) fail("--bound is only used with --local");
  if (o.bound) positive("--bound", *o.bound);
  const bool user_radius = !o.user_column.empty() && o.variance_bound.has_value();
  if (o.rows_per_user && !user_radius)
    fail("--rows-per-user is only used with --user-column and --variance-bound");
  if (user_radius && !o.rows_per_user)
    fail(
        "--rows-per-user T is required with --user-column and --variance-bound: the radius "
        "needs a PUBLIC number of rows per user (a user's row count is part of its record)");
  if (o.rows_per_user && *o.rows_per_user < 1)
    fail("--rows-per-user = " + std::to_string(*o.rows_per_user) + " is invalid (must be >= 1)");

  const table t = read_csv(o);
  const bool user = !o.user_column.empty();
  std::vector<double> data;  // one value per record (item) or per-user averages
  std::size_t n = 0;
  double tau = 0;
  if (!user) {
    data = t.values;
    n = data.size();
    tau = o.tau ? *o.tau : est::tau_subgaussian(*o.variance_bound, n, o.gamma);
  } else {
    std::vector<double> rows;
    std::vector<std::size_t> offsets;
    group_users(t, rows, offsets);
    n = offsets.size() - 1;
    if (o.variance_bound) {
      tau = est::tau_user(
          *o.variance_bound, static_cast<std::size_t>(*o.rows_per_user), n, 1, o.gamma);
    } else {
      tau = *o.tau;
    }
    data = est::user_averages(rows, 1, offsets);
  }
  if (!o.local && *o.delta >= 1.0 / static_cast<double>(n))
    std::cerr << "dpx mean: warning: delta = " << dpx::core::format_double(*o.delta)
              << " >= 1/n = " << dpx::core::format_double(1.0 / static_cast<double>(n))
              << " (n = " << n << (user ? " users" : " rows")
              << "): such a delta permits releasing a record outright\n";

  const auto noise = o.research_grade ? dpx::mechanisms::noise_kind::research_grade
                                      : dpx::mechanisms::noise_kind::float_safe;
  auto run = [&](auto& g) {
    est::mean_result r;
    if (o.local) {
      est::local_mean_options lo{o.epsilon, est::interval_rule::paper(tau), *o.bound};
      lo.noise = noise;
      r = est::local_mean(data, lo, g);
    } else {
      est::winsorized_mean_options co{{o.epsilon, *o.delta}, est::interval_rule::paper(tau)};
      co.noise = noise;
      r = est::winsorized_mean(data, co, g);
    }
    return r;
  };
  est::mean_result r;
  if (o.seed) {
    auto g = dpx::rng::stream(*o.seed, 0, 0, dpx::rng::purpose::noise);
    r = run(g);
  } else {
    dpx::rng::os_random g;  // the CSPRNG: a real release
    r = run(g);
  }
  if (user) r.privacy.unit = dpx::core::privacy_unit::user;

  // The fields and their classes are the output contract's (docs/cli.md, "Output contract"):
  // releases and public inputs only; the estimator's raw-data diagnostics (occupied bins,
  // clipped fraction) are never printed.
  dpx::cli::contract_json j("dpx mean", false);
  j.put("schema_version", 1);
  j.put("estimate", r.estimate);
  j.put("clip_range", std::vector<double>{r.range.lo, r.range.hi});  // Î (private), not a CI
  j.put("epsilon", r.privacy.epsilon);
  j.put("delta", r.privacy.delta);
  j.put("level", dpx::core::to_string(r.privacy.unit));
  j.put("model", est::to_string(r.privacy.model));
  j.put("failed", r.diag.failed);
  j.put("n", n);
  j.put("noise", dpx::mechanisms::to_string(noise));
  j.put("seeded", o.seed.has_value());  // true: reproducible noise, not a private release
  j.put("noise_note",
        o.research_grade
            ? "research-grade double-precision Laplace noise (--research-grade): S1's mechanism "
              "exactly, for experiments; NOT safe for real data (floating-point attacks, Mironov "
              "2012)"
        : o.local
            ? "float-safe: every user's report is exact discrete Laplace noise on a power-of-two "
              "grid (docs/mechanisms.md); same epsilon"
            : "float-safe: exact discrete Laplace noise on the histogram counts and a power-of-two "
              "grid for the mean (docs/mechanisms.md); same epsilon and delta");
  dpx::cli::emit_json(j.json());
  if (o.seed) dpx::cli::warn_seeded("mean");  // after the output: an error stays one line
  return dpx::cli::exit_ok;
}

const bool registered = dpx::cli::register_command(
    "mean",
    "Differentially private mean of a CSV column (item or user level, central or local)",
    [](CLI::App& sub) {
      auto o = std::make_shared<mean_options>();
      sub.add_option("--input", o->input, "CSV file with a header line ('-': standard input)")
          ->required();
      dpx::cli::add_input_limit_options(sub, o->limits);
      sub.add_option("--column", o->column, "Column to average")->required();
      sub.add_option("--epsilon", o->epsilon, "Total privacy budget epsilon > 0")->required();
      sub.add_option_function<double>(
          "--delta",
          [o](double v) { o->delta = v; },
          "delta in (0, 1) for the stable histogram (central; ignored with --local)");
      auto* tau = sub.add_option_function<double>(
          "--tau",
          [o](double v) { o->tau = v; },
          "Public concentration radius tau (of rows, or of user averages with --user-column)");
      auto* vb = sub.add_option_function<double>(
          "--variance-bound",
          [o](double v) { o->variance_bound = v; },
          "Public variance / log-Sobolev bound V: tau = sqrt(2 V ln(2n/gamma) [/T])");
      tau->excludes(vb);
      sub.add_option("--gamma", o->gamma, "gamma in (0, 1) for --variance-bound (default 0.1)");
      sub.add_option("--user-column",
                     o->user_column,
                     "Column identifying users: user-level privacy over each user's rows");
      sub.add_option_function<long long>(
          "--rows-per-user",
          [o](long long v) { o->rows_per_user = v; },
          "Public number of rows per user T for --variance-bound with --user-column (tau = "
          "sqrt(2 V ln(2n/gamma)/T)); never read from the data");
      sub.add_flag("--local", o->local, "Local model (S1 Algorithm 8; needs --bound)");
      sub.add_flag("--research-grade",
                   o->research_grade,
                   "Double-precision Laplace noise (S1's mechanisms exactly; experiments only). "
                   "Default: float-safe exact discrete noise");
      dpx::cli::add_pretty_flag(sub);
      sub.add_option_function<double>(
          "--bound", [o](double v) { o->bound = v; }, "Public bound B on |mean| (local model)");
      sub.add_option_function<std::uint64_t>(
          "--seed",
          [o](std::uint64_t s) { o->seed = s; },
          "Fixed seed: reproducible noise, NOT a private release (experiments only; default: the "
          "CSPRNG rng::os_random)");
      return [o]() -> int { return run_mean(*o); };
    });

}  // namespace
}  // namespace dpx::cli::cmd_mean
