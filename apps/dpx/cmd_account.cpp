// dpx account: (epsilon, delta) of T releases of the Gaussian or Laplace mechanism.
//
//   dpx account --mechanism gaussian --noise-multiplier S [--sampling-rate Q] --steps T
//               --delta D --method rdp|pld|zcdp|advanced|basic|kov|all
//   dpx account --mechanism laplace --scale B [--sensitivity S] --steps T --delta D --method ...
//   -> {"mechanism": ..., "method": ..., "epsilon": ..., "delta": ...}
//   -> with --method all: {"results": [{"method": ..., "epsilon": ...}, ...]}
//
// Without --sampling-rate there is no subsampling; with it, each step is Poisson subsampling
// with rate Q under add/remove neighbours. Every epsilon is an upper bound (see
// docs/accounting.md). zcdp has no subsampling amplification: it is rejected with
// --sampling-rate and left out of --method all.
#include <cstdint>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "dpx/accounting/calibration.hpp"
#include "dpx/core/error.hpp"
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
  std::string method;
  bool have_noise = false, have_rate = false, have_scale = false, have_sensitivity = false;
};

int run_account(const account_options& o) {
  namespace acc = dpx::accounting;
  namespace core = dpx::core;
  const char* fn = kFn;
  core::check_at_least(fn, "--steps", o.steps, 1);
  core::check_open_interval(fn, "--delta", o.delta, 0.0, 1.0);
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
  std::vector<std::pair<std::string, double>> results;
  if (o.mechanism == "gaussian") {
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
      if (mm == acc::method::zcdp && o.have_rate) {
        if (all) continue;
        core::throw_invalid(fn,
                            "--method",
                            "zcdp",
                            "zCDP has no amplification by subsampling; omit --sampling-rate");
      }
      results.emplace_back(acc::to_string(mm),
                           acc::account_gaussian(mm, o.noise_multiplier, q, o.steps, o.delta));
    }
  } else if (o.mechanism == "laplace") {
    if (!o.have_scale) core::throw_invalid(fn, "--scale", "(missing)", "required");
    if (o.have_noise) {
      core::throw_invalid(fn, "--noise-multiplier", o.noise_multiplier, "only for gaussian");
    }
    if (o.have_rate)
      core::throw_invalid(fn, "--sampling-rate", o.sampling_rate, "only for gaussian");
    core::check_positive(fn, "--scale", o.scale);
    core::check_positive(fn, "--sensitivity", o.sensitivity);
    const double b = o.scale / o.sensitivity;
    core::check_positive(fn, "--scale", b);
    for (auto mm : methods) {
      results.emplace_back(acc::to_string(mm), acc::account_laplace(mm, b, o.steps, o.delta));
    }
  } else {
    core::throw_invalid(fn, "--mechanism", o.mechanism, "must be gaussian or laplace");
  }
  nlohmann::ordered_json j;
  if (all) {
    j["results"] = nlohmann::ordered_json::array();
    for (const auto& [name, eps] : results) {
      nlohmann::ordered_json r;
      r["method"] = name;
      r["epsilon"] = eps;
      j["results"].push_back(r);
    }
  } else {
    j["mechanism"] = o.mechanism;
    j["method"] = results.front().first;
    j["epsilon"] = results.front().second;
    j["delta"] = o.delta;
  }
  dpx::cli::print_json(j);
  return dpx::cli::exit_ok;
}

const bool registered = dpx::cli::register_command(
    "account",
    "Epsilon of T Gaussian (optionally Poisson-subsampled) or Laplace releases",
    [](CLI::App& sub) {
      auto o = std::make_shared<account_options>();
      sub.add_option("--mechanism", o->mechanism, "gaussian | laplace")->required();
      auto* noise =
          sub.add_option("--noise-multiplier", o->noise_multiplier, "gaussian sigma / Delta2");
      auto* rate = sub.add_option(
          "--sampling-rate", o->sampling_rate, "Poisson sampling rate in (0, 1] (add/remove)");
      auto* scale = sub.add_option("--scale", o->scale, "laplace scale b");
      auto* sens = sub.add_option("--sensitivity", o->sensitivity, "laplace L1 sensitivity");
      sub.add_option("--steps", o->steps, "number of releases (>= 1)")->required();
      sub.add_option("--delta", o->delta, "target delta in (0, 1)")->required();
      sub.add_option("--method", o->method, "rdp | pld | zcdp | advanced | basic | kov | all")
          ->required();
      return [o, noise, rate, scale, sens]() {
        o->have_noise = noise->count() > 0;
        o->have_rate = rate->count() > 0;
        o->have_scale = scale->count() > 0;
        o->have_sensitivity = sens->count() > 0;
        return run_account(*o);
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_account
