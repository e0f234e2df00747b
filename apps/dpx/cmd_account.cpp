// dpx account: (epsilon, delta) of T releases of the Gaussian or Laplace mechanism.
//
//   dpx account --mechanism gaussian --noise-multiplier S [--sampling-rate Q] --steps T
//               (--delta D | --epsilon E) [--method rdp|pld|zcdp|advanced|basic|kov|all]
//               [--epsilon-error R]
//   dpx account --mechanism gaussian --noise-multiplier S --dataset-size N --batch-size B
//               --epochs E ...      (DP-SGD shorthand: Q = B / N, T = ceil(E N / B))
//   dpx account --mechanism laplace --scale B [--sensitivity S] [--sampling-rate Q] --steps T ...
//   dpx account --mechanism gaussian|laplace ... --sampling without_replacement
//               --neighbouring replace_one|add_remove --dataset-size N --batch-size B
//               (--epochs E | --steps T) ...   (fixed batches of B drawn without replacement;
//               the noise is relative to the REPLACE-ONE sensitivity of the batch query, e.g.
//               2C for clipped sums; docs/accounting.md, "Subsampling")
//   dpx account --events events.json (--delta D | --epsilon E) [--method ...]
//               (heterogeneous composition; events.json is [{"kind": ..., params...,
//               "count": n}, ...] or {"events": [...]}, kinds: gaussian / laplace
//               {noise_multiplier}, subsampled_gaussian / subsampled_laplace {sampling_rate,
//               noise_multiplier}, sampled_without_replacement {noise: gaussian | laplace,
//               noise_multiplier, batch_size, dataset_size, neighbouring: replace_one |
//               add_remove},
//               randomized_response {epsilon, categories = 2}, pure_dp {epsilon}, approx_dp
//               {epsilon, delta}, discrete_pair {p, q}, discrete_laplace {scale,
//               sensitivity}, discrete_gaussian {sigma, sensitivity}, zcdp {rho},
//               exponential_mechanism {epsilon}; count defaults to 1)
//   -> {"schema_version": 2, "inputs": {...}, "mechanism": ..., "method": ..., "epsilon": ...,
//       "delta": ...} (pld adds the certified lower end "epsilon_lower" / "delta_lower", the
//       grid "discretization" and "converged")
//   -> with --method all: {"schema_version": 2, "inputs": {...}, "results": [{"method": ...,
//       "epsilon" | "delta": ...}, ...]}
//
// --method defaults to pld (dp_sgd_flags.hpp, shared with dpx calibrate).
// With --delta the output's epsilon is an upper bound at that delta; with --epsilon the
// output's delta is an upper bound at that epsilon. Without --sampling-rate there is no
// subsampling; with it, each step is Poisson subsampling with rate Q under add/remove
// neighbours. Every epsilon / delta printed is an upper bound (see docs/accounting.md); +inf
// is printed as "inf" with an epsilon_note. zcdp has no subsampling amplification: it is rejected
// with
// --sampling-rate and left out of --method all.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "dp_sgd_flags.hpp"
#include "dpx/accounting/calibration.hpp"
#include "dpx/accounting/composition.hpp"
#include "dpx/accounting/pld.hpp"
#include "dpx/accounting/subsampling.hpp"
#include "dpx/core/error.hpp"
#include "events_json.hpp"
#include "json_output.hpp"
#include "strict.hpp"

// Named per command so that the unity build (apps/dpx/CMakeLists.txt) keeps each file's
// internal names apart.
namespace dpx::cli::cmd_account {
namespace {

constexpr const char* kFn = "dpx account";

struct account_options {
  std::string mechanism;
  double noise_multiplier = 0;
  double sampling_rate = 1;
  double scale = 0;
  double sensitivity = 1;
  std::int64_t steps = 0;
  double delta = 0;
  double epsilon = 0;
  double epsilon_error = 1e-3;
  dpx::cli::dp_sgd_flags sgd;  // --dataset-size, --batch-size, --epochs
  std::string method = dpx::cli::default_method;
  bool have_noise = false, have_rate = false, have_scale = false, have_sensitivity = false;
  bool have_delta = false, have_epsilon = false, have_steps = false;
  bool have_epsilon_error = false;
  std::string events;
  bool have_events = false;
  std::string sampling;      // "" (poisson) | poisson | without_replacement
  std::string neighbouring;  // "" (add_remove) | add_remove | replace_one
};

/// Parses a --neighbouring / events-file relation name.
dpx::core::neighbouring parse_relation(const std::string& flag, const std::string& s) {
  if (s.empty() || s == "add_remove") return dpx::core::neighbouring::add_remove;
  if (s == "replace_one") return dpx::core::neighbouring::replace_one;
  dpx::core::throw_invalid(kFn, flag, s, "must be add_remove or replace_one");
}

/// A JSON number; print_json() turns an epsilon of +inf into the documented "inf" with a note
/// and refuses any other non-finite value (docs/cli.md, "Input and output rules").
nlohmann::ordered_json num(double x) { return nlohmann::ordered_json(x); }

/// dpx account --events: heterogeneous composition of a release log by each method.
int run_events(const account_options& o) {
  namespace acc = dpx::accounting;
  namespace core = dpx::core;
  const char* fn = kFn;
  for (bool given : {o.have_noise,
                     o.have_rate,
                     o.have_scale,
                     o.have_sensitivity,
                     o.have_steps,
                     o.sgd.any(),
                     !o.sampling.empty(),
                     !o.neighbouring.empty(),
                     !o.mechanism.empty()}) {
    if (given) core::throw_invalid(fn, "--events", o.events, "takes no mechanism flags");
  }
  if (o.have_delta == o.have_epsilon) {
    core::throw_invalid(fn, "--delta", "(missing)", "give exactly one of --delta and --epsilon");
  }
  if (o.have_delta) core::check_open_interval(fn, "--delta", o.delta, 0.0, 1.0);
  if (o.have_epsilon) {
    core::check_nonnegative(fn, "--epsilon", o.epsilon);
    core::check_finite(fn, "--epsilon", o.epsilon);
  }
  const auto log = dpx::cli::read_events_file(o.events);
  std::vector<acc::method> methods;
  if (o.method == "all") {
    methods = {acc::method::basic,
               acc::method::advanced,
               acc::method::kov,
               acc::method::rdp,
               acc::method::zcdp,
               acc::method::pld};
  } else {
    methods = {acc::parse_method(o.method)};
  }
  nlohmann::ordered_json j, results = nlohmann::ordered_json::array();
  j["schema_version"] = 2;
  nlohmann::ordered_json in;
  in["events"] = o.events;
  in["releases"] = log.size();
  in["distinct_runs"] = log.runs().size();
  in[o.have_delta ? "delta" : "epsilon"] = o.have_delta ? o.delta : o.epsilon;
  in["method"] = o.method;
  in["epsilon_error"] = o.epsilon_error;
  j["inputs"] = in;
  const char* key = o.have_delta ? "epsilon" : "delta";
  for (const auto m : methods) {
    auto a = acc::make_accountant(m, o.epsilon_error);
    bool ok = true;
    for (const auto& r : log.runs()) ok = ok && a->supports(r.event);
    nlohmann::ordered_json r;
    r["method"] = acc::to_string(m);
    if (!ok) {
      if (methods.size() == 1) {
        core::throw_invalid(fn, "--method", o.method, "does not support every event in the file");
      }
      r[key] = nullptr;
      r["unsupported"] = true;
      results.push_back(r);
      continue;
    }
    a->compose(log);
    if (auto* p = dynamic_cast<acc::pld_accountant*>(a.get())) {
      const auto b = o.have_delta ? p->epsilon_bracket(o.delta) : p->delta_bracket(o.epsilon);
      r[key] = num(b.upper);
      r[std::string(key) + "_lower"] = num(b.lower);
      r["discretization"] = b.discretization;
      r["converged"] = b.converged;
    } else {
      r[key] = num(o.have_delta ? a->epsilon(o.delta) : a->delta(o.epsilon));
    }
    results.push_back(r);
  }
  if (methods.size() == 1) {
    for (auto& [k, v] : results[0].items()) j[k] = v;
    j[o.have_delta ? "delta" : "epsilon"] = o.have_delta ? o.delta : o.epsilon;
  } else {
    j["results"] = results;
  }
  dpx::cli::emit_json(j);
  return dpx::cli::exit_ok;
}

int run_account(account_options o) {
  namespace acc = dpx::accounting;
  namespace core = dpx::core;
  const char* fn = kFn;
  if (o.have_events) return run_events(o);
  if (o.mechanism.empty()) core::throw_invalid(fn, "--mechanism", "(missing)", "required");
  const bool wor = o.sampling == "without_replacement";
  if (!o.sampling.empty() && o.sampling != "poisson" && !wor) {
    core::throw_invalid(fn, "--sampling", o.sampling, "must be poisson or without_replacement");
  }
  const core::neighbouring relation = parse_relation("--neighbouring", o.neighbouring);
  if (relation == core::neighbouring::replace_one && !wor) {
    core::throw_invalid(fn,
                        "--neighbouring",
                        o.neighbouring,
                        "replace_one needs --sampling without_replacement (Poisson sampling is "
                        "accounted under add/remove)");
  }
  if (wor) {
    if (o.have_rate) {
      core::throw_invalid(fn, "--sampling-rate", o.sampling_rate, "not with without_replacement");
    }
    if (!o.sgd.have_dataset() || !o.sgd.have_batch() || o.sgd.have_epochs() == o.have_steps) {
      core::throw_invalid(fn,
                          "--sampling",
                          o.sampling,
                          "without_replacement needs --dataset-size, --batch-size and one of "
                          "--epochs and --steps");
    }
    dpx::cli::check_dataset_and_batch(fn, o.sgd);
    if (o.sgd.have_epochs()) {
      dpx::cli::check_epochs(fn, o.sgd);
      o.steps = acc::dp_sgd_schedule_of(o.sgd.dataset_size, o.sgd.batch_size, o.sgd.epochs).steps;
    }
  } else if (o.sgd.any()) {
    const auto sch = dpx::cli::poisson_schedule(fn, o.sgd, o.have_steps, o.have_rate);
    o.steps = sch.steps;
    o.sampling_rate = sch.sampling_rate;
    o.have_rate = sch.sampling_rate < 1.0;
  } else if (!o.have_steps) {
    core::throw_invalid(
        fn, "--steps", "(missing)", "required (or --dataset-size/--batch-size/--epochs)");
  }
  core::check_at_least(fn, "--steps", o.steps, 1);
  if (o.have_delta == o.have_epsilon) {
    core::throw_invalid(fn, "--delta", "(missing)", "give exactly one of --delta and --epsilon");
  }
  if (o.have_delta) core::check_open_interval(fn, "--delta", o.delta, 0.0, 1.0);
  if (o.have_epsilon) {
    core::check_nonnegative(fn, "--epsilon", o.epsilon);
    core::check_finite(fn, "--epsilon", o.epsilon);
  }
  if (o.have_epsilon_error)
    core::check_open_interval(fn, "--epsilon-error", o.epsilon_error, 0.0, 1.0);
  const bool all = o.method == "all";
  acc::method m{};
  if (!all) {
    if (o.method == "basic" || o.method == "advanced" || o.method == "kov" || o.method == "rdp" ||
        o.method == "zcdp" || o.method == "pld") {
      m = acc::parse_method(o.method);
    } else {
      core::throw_invalid(
          fn, "--method", o.method, "must be rdp, pld, zcdp, advanced, basic, kov or all");
    }
  }
  if (all || m == acc::method::kov) {
    dpx::cli::check_bound("--steps",
                          o.steps,
                          acc::kov_optimal_max_k,
                          "method kov sums O(sqrt steps) terms; rdp has no limit");
  }
  std::vector<acc::method> methods;
  if (all) {
    methods = {acc::method::basic,
               acc::method::advanced,
               acc::method::kov,
               acc::method::rdp,
               acc::method::zcdp,
               acc::method::pld};
  } else {
    methods = {m};
  }
  // One entry per method: the bound (epsilon at --delta, or delta at --epsilon) and, for pld,
  // the certified bracket.
  struct row {
    std::string method;
    double value = 0;
    bool bracket = false;
    acc::pld_bracket b;
  };
  std::vector<row> results;
  acc::pld_options po;
  po.epsilon_error = o.epsilon_error;
  auto pld_row = [&](const core::privacy_event& e) {
    acc::pld_accountant a(po);
    a.compose(e, o.steps);
    row r{"pld", 0, true, o.have_delta ? a.epsilon_bracket(o.delta) : a.delta_bracket(o.epsilon)};
    r.value = r.b.upper;
    return r;
  };
  // Subsampled Laplace and fixed-size batches: the event's accountant for each method.
  const bool laplace_rate = o.mechanism == "laplace" && o.have_rate && o.sampling_rate < 1.0;
  if (wor || laplace_rate) {
    double s = 0;
    if (o.mechanism == "gaussian") {
      if (!o.have_noise) core::throw_invalid(fn, "--noise-multiplier", "(missing)", "required");
      if (o.have_scale) core::throw_invalid(fn, "--scale", o.scale, "only for laplace");
      core::check_positive(fn, "--noise-multiplier", o.noise_multiplier);
      s = o.noise_multiplier;
    } else if (o.mechanism == "laplace") {
      if (!o.have_scale) core::throw_invalid(fn, "--scale", "(missing)", "required");
      if (o.have_noise) {
        core::throw_invalid(fn, "--noise-multiplier", o.noise_multiplier, "only for gaussian");
      }
      core::check_positive(fn, "--scale", o.scale);
      core::check_positive(fn, "--sensitivity", o.sensitivity);
      s = o.scale / o.sensitivity;
      core::check_positive(fn, "--scale", s);
    } else {
      core::throw_invalid(fn, "--mechanism", o.mechanism, "must be gaussian or laplace");
    }
    core::privacy_event ev;
    if (wor) {
      ev = core::sampled_without_replacement_event{
          o.mechanism == "gaussian" ? core::noise_family::gaussian : core::noise_family::laplace,
          s,
          o.sgd.batch_size,
          o.sgd.dataset_size,
          relation};
    } else {
      core::check_half_open_interval(fn, "--sampling-rate", o.sampling_rate, 0.0, 1.0);
      ev = core::subsampled_laplace_event{o.sampling_rate, s};
    }
    for (auto mm : methods) {
      if (mm == acc::method::pld) {
        results.push_back(pld_row(ev));
        continue;
      }
      auto a = acc::make_accountant(mm, o.epsilon_error);
      if (!a->supports(ev)) {
        if (all) continue;
        core::throw_invalid(fn,
                            "--method",
                            o.method,
                            "does not support this subsampled mechanism (use rdp or pld)");
      }
      a->compose(ev, o.steps);
      results.push_back({acc::to_string(mm),
                         o.have_delta ? a->epsilon(o.delta) : a->delta(o.epsilon),
                         false,
                         {}});
    }
  } else if (o.mechanism == "gaussian") {
    if (!o.have_noise) core::throw_invalid(fn, "--noise-multiplier", "(missing)", "required");
    if (o.have_scale) core::throw_invalid(fn, "--scale", o.scale, "only for --mechanism laplace");
    if (o.have_sensitivity) {
      core::throw_invalid(fn, "--sensitivity", o.sensitivity, "only for --mechanism laplace");
    }
    core::check_positive(fn, "--noise-multiplier", o.noise_multiplier);
    if (o.have_rate)
      core::check_half_open_interval(fn, "--sampling-rate", o.sampling_rate, 0.0, 1.0);
    const double q = o.have_rate ? o.sampling_rate : 1.0;
    for (auto mm : methods) {
      if (mm == acc::method::zcdp && q < 1.0) {
        if (all) continue;
        core::throw_invalid(fn,
                            "--method",
                            "zcdp",
                            "zCDP has no amplification by subsampling; omit --sampling-rate");
      }
      if (mm == acc::method::pld && q < 1.0) {
        results.push_back(pld_row(core::subsampled_gaussian_event{q, o.noise_multiplier}));
        continue;
      }
      const double v =
          o.have_delta ? acc::account_gaussian(mm, o.noise_multiplier, q, o.steps, o.delta)
                       : acc::account_gaussian_delta(mm, o.noise_multiplier, q, o.steps, o.epsilon);
      // pld without subsampling is the exact closed form: the bracket is a point.
      // (+inf: beyond 1e300, e.g. noise multiplier 1e-200; the lower end is then only 0.)
      const bool fin = std::isfinite(v);
      results.push_back(
          {acc::to_string(mm), v, mm == acc::method::pld, {fin ? v : 0.0, v, 0.0, fin}});
    }
  } else if (o.mechanism == "laplace") {
    if (!o.have_scale) core::throw_invalid(fn, "--scale", "(missing)", "required");
    if (o.have_noise) {
      core::throw_invalid(fn, "--noise-multiplier", o.noise_multiplier, "only for gaussian");
    }
    // --sampling-rate 1 (no subsampling) falls through to the plain Laplace accounting.
    core::check_positive(fn, "--scale", o.scale);
    core::check_positive(fn, "--sensitivity", o.sensitivity);
    const double b = o.scale / o.sensitivity;
    core::check_positive(fn, "--scale", b);
    for (auto mm : methods) {
      if (mm == acc::method::pld) {
        results.push_back(pld_row(core::laplace_event{b}));
        continue;
      }
      const double v = o.have_delta ? acc::account_laplace(mm, b, o.steps, o.delta)
                                    : acc::account_laplace_delta(mm, b, o.steps, o.epsilon);
      results.push_back({acc::to_string(mm), v, false, {}});
    }
  } else {
    core::throw_invalid(fn, "--mechanism", o.mechanism, "must be gaussian or laplace");
  }
  nlohmann::ordered_json in;
  in["mechanism"] = o.mechanism;
  if (o.mechanism == "gaussian") {
    in["noise_multiplier"] = o.noise_multiplier;
  } else {
    in["scale"] = o.scale;
    in["sensitivity"] = o.sensitivity;
  }
  if (!wor) in["sampling_rate"] = o.have_rate ? o.sampling_rate : 1.0;
  in["sampling"] = wor ? "without_replacement" : "poisson";
  in["neighbouring"] = relation == core::neighbouring::replace_one ? "replace_one" : "add_remove";
  if (o.sgd.any()) {
    in["dataset_size"] = o.sgd.dataset_size;
    in["batch_size"] = o.sgd.batch_size;
    if (o.sgd.have_epochs()) in["epochs"] = o.sgd.epochs;
  }
  in["steps"] = o.steps;
  in[o.have_delta ? "delta" : "epsilon"] = o.have_delta ? o.delta : o.epsilon;
  in["method"] = o.method;
  in["epsilon_error"] = o.epsilon_error;
  const char* key = o.have_delta ? "epsilon" : "delta";
  const std::string lower_key = std::string(key) + "_lower";
  auto fill = [&](nlohmann::ordered_json& r, const row& x) {
    r[key] = num(x.value);
    if (x.bracket) {
      r[lower_key] = num(x.b.lower);
      r["discretization"] = x.b.discretization;
      r["converged"] = x.b.converged;
    }
  };
  nlohmann::ordered_json j;
  j["schema_version"] = 2;
  j["inputs"] = in;
  if (all) {
    j["results"] = nlohmann::ordered_json::array();
    for (const auto& x : results) {
      nlohmann::ordered_json r;
      r["method"] = x.method;
      fill(r, x);
      j["results"].push_back(r);
    }
  } else {
    j["mechanism"] = o.mechanism;
    j["method"] = results.front().method;
    if (o.have_delta) {
      fill(j, results.front());
      j["delta"] = o.delta;
    } else {
      j["epsilon"] = o.epsilon;
      fill(j, results.front());
    }
  }
  dpx::cli::emit_json(j);
  return dpx::cli::exit_ok;
}

const bool registered = dpx::cli::register_command(
    "account",
    "Epsilon of T Gaussian or Laplace releases (optionally subsampled: Poisson or fixed batches)",
    [](CLI::App& sub) {
      auto o = std::make_shared<account_options>();
      dpx::cli::add_pretty_flag(sub);
      sub.add_option("--mechanism", o->mechanism, "gaussian | laplace");
      auto* events = sub.add_option(
          "--events", o->events, "JSON file of events with counts (heterogeneous composition)");
      auto* noise =
          sub.add_option("--noise-multiplier", o->noise_multiplier, "gaussian sigma / Delta2");
      auto* rate = sub.add_option(
          "--sampling-rate", o->sampling_rate, "Poisson sampling rate in (0, 1] (add/remove)");
      auto* scale = sub.add_option("--scale", o->scale, "laplace scale b");
      auto* sens = sub.add_option("--sensitivity", o->sensitivity, "laplace L1 sensitivity");
      auto* steps = sub.add_option("--steps", o->steps, "number of releases (>= 1)");
      auto* delta = sub.add_option("--delta", o->delta, "report epsilon at this delta in (0, 1)");
      auto* eps = sub.add_option("--epsilon", o->epsilon, "report delta at this epsilon (>= 0)");
      auto* err = sub.add_option(
          "--epsilon-error", o->epsilon_error, "pld: relative width of the bracket (default 1e-3)");
      dpx::cli::add_dp_sgd_options(sub, o->sgd);
      sub.add_option("--sampling",
                     o->sampling,
                     "poisson (default) | without_replacement (fixed batches of --batch-size)");
      sub.add_option("--neighbouring",
                     o->neighbouring,
                     "add_remove (default) | replace_one (without_replacement only)");
      sub.add_option("--method",
                     o->method,
                     dpx::cli::method_help("rdp | pld | zcdp | advanced | basic | kov | all"));
      return [o, noise, rate, scale, sens, steps, delta, eps, err, events]() {
        o->have_events = events->count() > 0;
        o->have_noise = noise->count() > 0;
        o->have_rate = rate->count() > 0;
        o->have_scale = scale->count() > 0;
        o->have_sensitivity = sens->count() > 0;
        o->have_steps = steps->count() > 0;
        o->have_delta = delta->count() > 0;
        o->have_epsilon = eps->count() > 0;
        o->have_epsilon_error = err->count() > 0;
        return run_account(*o);
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_account
