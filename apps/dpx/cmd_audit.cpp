// dpx audit --mechanism laplace|gaussian|discrete_laplace|discrete_gaussian|randomized_response
//           [--scale B | --noise-multiplier S | --epsilon E] [--sensitivity S] [--delta D]
//           [--trials N] [--confidence C] [--categories K] [--broken] [--seed S]
//
// Empirical lower bound on epsilon (dpx::audit): N trials of the mechanism on each input of its
// worst-case neighbouring pair, a threshold test chosen on half of the trials, Clopper–Pearson
// bounds on the other half (docs/audit.md). Prints
//   {"epsilon_lower_bound": ..., "claimed_epsilon": ..., "confidence": ..., "trials": ...,
//    "violation": false, ...details}
// --broken halves the noise (b, sigma; randomized response: runs at 2 epsilon) while claiming
// the original guarantee, to show the auditor's power. The trials use Philox, not the CSPRNG:
// an audit releases nothing about any data (its inputs are the mechanism's public worst-case
// pair), it needs millions of fast draws, and only their statistical quality matters. Without
// --seed the stream is rng::stream(K, 0, 0, purpose::audit) with K drawn from rng::os_random
// (a fresh run each time); with it K = S (reproducible).
// --delta is the delta of the Gaussian mechanisms' (epsilon, delta) claim. It is refused for
// the pure-DP mechanisms (laplace, discrete_laplace, randomized_response): their claim is
// epsilon-DP, i.e. delta = 0, and an audit against (epsilon, delta > 0) could only report a
// smaller bound (log((1 - delta - FNR)/FPR) decreases in delta) without testing anything more,
// so accepting it would silently weaken the audit.
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "dpx/audit/audits.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "json_output.hpp"
#include "strict.hpp"

namespace dpx::cli::cmd_audit {
namespace {

using json = nlohmann::ordered_json;
namespace core = dpx::core;
namespace rng = dpx::rng;
namespace audit = dpx::audit;

constexpr const char* kFn = "audit";

struct audit_cli_options {
  std::string mechanism;
  std::optional<double> scale, noise_multiplier, epsilon, delta;
  double sensitivity = 1.0;
  long long trials = 100000;
  double confidence = 0.95;
  long long categories = 2;
  bool broken = false;
  std::optional<std::uint64_t> seed;
};

int run(const audit_cli_options& o) {
  const std::string& m = o.mechanism;
  if (m != "laplace" && m != "gaussian" && m != "discrete_laplace" && m != "discrete_gaussian" &&
      m != "randomized_response")
    core::throw_invalid(kFn,
                        "--mechanism",
                        m,
                        "must be laplace, gaussian, discrete_laplace, discrete_gaussian or "
                        "randomized_response");
  const bool scale_mech = m == "laplace" || m == "discrete_laplace";
  const bool gauss_mech = m == "gaussian" || m == "discrete_gaussian";
  if (o.scale && !scale_mech)
    core::throw_invalid(kFn, "--scale", *o.scale, "is not a parameter of --mechanism " + m);
  if (o.noise_multiplier && !gauss_mech)
    core::throw_invalid(
        kFn, "--noise-multiplier", *o.noise_multiplier, "is not a parameter of --mechanism " + m);
  if (o.delta && !gauss_mech)
    core::throw_invalid(kFn,
                        "--delta",
                        *o.delta,
                        "applies to gaussian and discrete_gaussian only: " + m +
                            " is pure DP (its claim has delta = 0)");
  if (o.scale && o.epsilon)
    core::throw_invalid(kFn, "--scale", *o.scale, "cannot be combined with --epsilon");
  if (o.noise_multiplier && o.epsilon)
    core::throw_invalid(
        kFn, "--noise-multiplier", *o.noise_multiplier, "cannot be combined with --epsilon");
  if (!o.scale && !o.noise_multiplier && !o.epsilon)
    core::throw_invalid(kFn,
                        "--epsilon",
                        "missing",
                        scale_mech   ? "give --scale or --epsilon"
                        : gauss_mech ? "give --noise-multiplier or --epsilon"
                                     : "is required");
  if (o.scale) core::check_positive(kFn, "--scale", *o.scale);
  if (o.noise_multiplier) core::check_positive(kFn, "--noise-multiplier", *o.noise_multiplier);
  if (o.epsilon) core::check_positive(kFn, "--epsilon", *o.epsilon);
  if (o.delta) core::check_open_interval(kFn, "--delta", *o.delta, 0.0, 1.0);
  core::check_positive(kFn, "--sensitivity", o.sensitivity);
  if ((m == "discrete_laplace" || m == "discrete_gaussian") &&
      (o.sensitivity != static_cast<double>(static_cast<long long>(o.sensitivity))))
    core::throw_invalid(kFn, "--sensitivity", o.sensitivity, "must be an integer for " + m);
  if (m == "randomized_response" && o.sensitivity != 1.0)
    core::throw_invalid(kFn, "--sensitivity", o.sensitivity, "is not a parameter of " + m);
  core::check_at_least(kFn, "--trials", o.trials, 4);
  dpx::cli::check_bound("--trials", o.trials, dpx::cli::max_audit_trials, "memory cap");
  core::check_open_interval(kFn, "--confidence", o.confidence, 0.0, 1.0);
  core::check_at_least(kFn, "--categories", o.categories, 2);

  audit::mechanism_audit_spec spec;
  spec.mechanism = m;
  spec.epsilon = o.epsilon;
  spec.scale = o.scale;
  spec.noise_multiplier = o.noise_multiplier;
  spec.sensitivity = o.sensitivity;
  spec.delta = o.delta.value_or(1e-5);
  spec.broken = o.broken;
  spec.categories = o.categories;
  audit::audit_options opts;
  opts.confidence = o.confidence;

  rng::philox4x32 g = rng::stream(o.seed ? *o.seed : rng::os_random{}(), 0, 0, rng::purpose::audit);
  const auto r = audit::audit_mechanism(spec, static_cast<std::size_t>(o.trials), opts, g);
  json j;
  j["schema_version"] = 1;
  j["epsilon_lower_bound"] = r.audit.epsilon_lower_bound;
  j["claimed_epsilon"] = r.claimed_epsilon;
  j["confidence"] = r.audit.confidence;
  j["trials"] = r.audit.trials;
  j["violation"] = r.violation;
  j["mechanism"] = m;
  j["broken"] = o.broken;
  j["delta"] = r.claimed_delta;
  j["guarantee"] = r.guarantee;
  j["pair"] = r.pair;
  j["statistic"] = r.statistic;
  j["threshold"] = r.audit.threshold;
  j["side"] = audit::to_string(r.audit.side);
  j["selection_trials"] = r.audit.selection_trials;
  j["evaluation_trials"] = r.audit.evaluation_trials;
  j["false_positive_rate"] = r.audit.fpr;
  j["false_negative_rate"] = r.audit.fnr;
  j["false_positive_rate_upper"] = r.audit.fpr_upper;
  j["false_negative_rate_upper"] = r.audit.fnr_upper;
  dpx::cli::emit_json(j);
  return dpx::cli::exit_ok;
}

const bool registered = dpx::cli::register_command(
    "audit",
    "Empirical lower bound on a mechanism's epsilon (Clopper-Pearson, held-out threshold)",
    [](CLI::App& sub) {
      auto o = std::make_shared<audit_cli_options>();
      dpx::cli::add_pretty_flag(sub);
      sub.add_option("--mechanism",
                     o->mechanism,
                     "laplace|gaussian|discrete_laplace|discrete_gaussian|randomized_response")
          ->required();
      sub.add_option("--scale", o->scale, "noise scale b (laplace, discrete_laplace)");
      sub.add_option("--noise-multiplier",
                     o->noise_multiplier,
                     "sigma / sensitivity (gaussian, discrete_gaussian)");
      sub.add_option("--epsilon", o->epsilon, "claimed epsilon (calibrates the mechanism)");
      sub.add_option("--sensitivity", o->sensitivity, "sensitivity (default 1)");
      sub.add_option("--delta",
                     o->delta,
                     "delta of the (epsilon, delta) claim, gaussian and discrete_gaussian only "
                     "(default 1e-5); refused for the pure-DP mechanisms, whose claim has "
                     "delta = 0 (a delta > 0 could only lower the bound)");
      sub.add_option("--trials", o->trials, "trials per input (default 100000)");
      sub.add_option("--confidence", o->confidence, "confidence of the bound (default 0.95)");
      sub.add_option("--categories", o->categories, "randomized_response: k (default 2)");
      sub.add_flag("--broken", o->broken, "halve the noise while claiming the original epsilon");
      sub.add_option("--seed", o->seed, "seed (experiments only; default: OS entropy)");
      return [o]() -> int { return run(*o); };
    });

}  // namespace
}  // namespace dpx::cli::cmd_audit
