// dpx calibrate: the noise needed for a target (epsilon, delta).
//
//   dpx calibrate --mechanism gaussian --epsilon E --delta D [--steps T] [--sampling-rate Q]
//                 [--method classical|analytic|rdp|pld]
//     -> {"schema_version": 2, "inputs": {...}, "noise_multiplier": ...,
//         "achieved": {"method": ..., "epsilon": ..., "delta": ...}}
//   dpx calibrate --mechanism gaussian --epsilon E --delta D --dataset-size N --batch-size B
//                 --epochs E' [--method rdp|pld]   (DP-SGD shorthand, as in dpx account:
//                 Q = B / N, T = ceil(E' N / B); "inputs" states sampling_rate Q and steps T)
//   dpx calibrate --mechanism laplace --epsilon E [--steps T --delta D
//                 --method basic|advanced|kov|pld]             -> {..., "scale": ..., ...}
//
// --method defaults to pld (dp_sgd_flags.hpp, shared with dpx account); a Laplace calibration
// without --delta has no delta for pld to spend and defaults to basic (pure DP).
//
// "achieved" re-accounts the returned noise with the stated method (analytic: the exact
// Gaussian curve; classical: the published theorem's guarantee, i.e. the target, with the
// exact epsilon of the same noise beside it as "epsilon_exact").
// noise_multiplier is sigma per unit L2 sensitivity, scale is b per unit L1 sensitivity. Every
// answer is conservative: re-accounted with the same method it gives epsilon <= E.
// classical with T > 1 is ISTDP's published Theorem 3.3 calibration (advanced composition of
// classical Gaussians); with T = 1 it is Dwork & Roth Thm A.1 (E < 1).
#include <cstdint>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "dp_sgd_flags.hpp"
#include "dpx/accounting/calibration.hpp"
#include "dpx/accounting/composition.hpp"
#include "dpx/core/composition.hpp"
#include "dpx/core/error.hpp"
#include "json_output.hpp"
#include "strict.hpp"

namespace dpx::cli::cmd_calibrate {
namespace {

constexpr const char* kFn = "dpx calibrate";

struct calibrate_options {
  std::string mechanism;
  double epsilon = 0;
  double delta = 0;
  std::int64_t steps = 1;
  double sampling_rate = 1;
  std::string method;
  dpx::cli::dp_sgd_flags sgd;  // --dataset-size, --batch-size, --epochs
  bool have_delta = false, have_rate = false, have_method = false, have_steps = false;
};

int run_calibrate(calibrate_options o) {
  namespace acc = dpx::accounting;
  namespace core = dpx::core;
  const char* fn = kFn;
  core::check_positive(fn, "--epsilon", o.epsilon);
  if (!o.have_method) {
    o.method = o.mechanism == "laplace" && !o.have_delta ? "basic" : dpx::cli::default_method;
  }
  if (o.sgd.any()) {
    if (o.mechanism != "gaussian")
      core::throw_invalid(fn, "--dataset-size", "(given)", "only for --mechanism gaussian");
    const auto sch = dpx::cli::poisson_schedule(fn, o.sgd, o.have_steps, o.have_rate);
    o.steps = sch.steps;
    o.sampling_rate = sch.sampling_rate;
    o.have_rate = true;
  }
  core::check_at_least(fn, "--steps", o.steps, 1);
  nlohmann::ordered_json j, in, achieved;
  j["schema_version"] = 2;
  in["mechanism"] = o.mechanism;
  in["epsilon"] = o.epsilon;
  if (o.have_delta) in["delta"] = o.delta;
  if (o.sgd.any()) {
    in["dataset_size"] = o.sgd.dataset_size;
    in["batch_size"] = o.sgd.batch_size;
    in["epochs"] = o.sgd.epochs;
  }
  in["steps"] = o.steps;
  if (o.have_rate) in["sampling_rate"] = o.sampling_rate;
  in["method"] = o.method;
  j["inputs"] = in;
  if (o.mechanism == "gaussian") {
    if (!o.have_delta) core::throw_invalid(fn, "--delta", "(missing)", "required for gaussian");
    core::check_open_interval(fn, "--delta", o.delta, 0.0, 1.0);
    if (o.have_rate)
      core::check_half_open_interval(fn, "--sampling-rate", o.sampling_rate, 0.0, 1.0);
    using cal = acc::gaussian_calibration;
    const cal m = core::parse_noise_calibration(
        o.method, {cal::classical, cal::analytic, cal::rdp, cal::pld}, fn, "--method");
    const double q = o.have_rate ? o.sampling_rate : 1.0;
    if (q < 1.0 &&
        (m == acc::gaussian_calibration::classical || m == acc::gaussian_calibration::analytic)) {
      // (With the DP-SGD flags the rate is derived: the method is what to change.)
      if (o.sgd.any())
        core::throw_invalid(fn, "--method", o.method, "has no subsampling (use rdp or pld)");
      core::throw_invalid(fn, "--sampling-rate", q, "not supported by --method " + o.method);
    }
    if (m == acc::gaussian_calibration::classical && o.steps == 1 && !(o.epsilon < 1.0)) {
      core::throw_invalid(fn, "--epsilon", o.epsilon, "classical calibration needs epsilon < 1");
    }
    const double s = acc::calibrate_gaussian(m, o.epsilon, o.delta, o.steps, q);
    j["noise_multiplier"] = s;
    achieved["method"] = o.method;
    // rdp re-accounts by RDP only (a PLD re-check at delta 1e-30 or 10^12 steps is beyond
    // the PLD's resolution and was the slow part of the call).
    auto exact = [&] { return acc::account_gaussian(acc::method::pld, s, q, o.steps, o.delta); };
    switch (m) {
      case acc::gaussian_calibration::classical:
        achieved["epsilon"] = o.epsilon;  // the theorem's guarantee
        achieved["epsilon_exact"] = exact();
        break;
      case acc::gaussian_calibration::rdp:
        achieved["epsilon"] = acc::account_gaussian(acc::method::rdp, s, q, o.steps, o.delta);
        break;
      default:
        achieved["epsilon"] = exact();
    }
    achieved["delta"] = o.delta;
  } else if (o.mechanism == "laplace") {
    if (o.have_rate)
      core::throw_invalid(fn, "--sampling-rate", o.sampling_rate, "only for gaussian");
    acc::laplace_method m = acc::laplace_method::basic;
    if (o.method == "basic" || o.method == "advanced" || o.method == "kov" || o.method == "pld") {
      m = acc::parse_laplace_method(o.method);
    } else {
      core::throw_invalid(fn, "--method", o.method, "must be basic, advanced, kov or pld");
    }
    if (m == acc::laplace_method::kov) {
      dpx::cli::check_bound(
          "--steps",
          o.steps,
          acc::kov_optimal_max_k,
          "the optimal composition sums O(sqrt steps) terms; advanced has no limit");
    }
    if (m != acc::laplace_method::basic) {
      if (!o.have_delta)
        core::throw_invalid(fn, "--delta", "(missing)", "required for " + o.method);
    }
    if (o.have_delta) core::check_open_interval(fn, "--delta", o.delta, 0.0, 1.0);
    const double b = acc::calibrate_laplace(o.epsilon, o.delta, o.steps, m);
    j["scale"] = b;
    const char* name = m == acc::laplace_method::basic      ? "basic"
                       : m == acc::laplace_method::advanced ? "advanced"
                       : m == acc::laplace_method::kov      ? "kov"
                                                            : "pld";
    achieved["method"] = name;
    const double d = o.have_delta ? o.delta : 0.5;  // basic: pure DP, delta unused
    achieved["epsilon"] = acc::account_laplace(acc::parse_method(name), b, o.steps, d);
    achieved["delta"] = m == acc::laplace_method::basic ? 0.0 : o.delta;
  } else {
    core::throw_invalid(fn, "--mechanism", o.mechanism, "must be gaussian or laplace");
  }
  j["achieved"] = achieved;
  dpx::cli::emit_json(j);
  return dpx::cli::exit_ok;
}

const bool registered = dpx::cli::register_command(
    "calibrate",
    "Noise for a target (epsilon, delta): Gaussian multiplier or Laplace scale",
    [](CLI::App& sub) {
      auto o = std::make_shared<calibrate_options>();
      dpx::cli::add_pretty_flag(sub);
      sub.add_option("--mechanism", o->mechanism, "gaussian | laplace")->required();
      sub.add_option("--epsilon", o->epsilon, "target epsilon (> 0)")->required();
      auto* delta = sub.add_option("--delta", o->delta, "target delta in (0, 1)");
      auto* steps = sub.add_option("--steps", o->steps, "number of releases (default 1)");
      auto* rate = sub.add_option("--sampling-rate",
                                  o->sampling_rate,
                                  "Poisson sampling rate in (0, 1] (gaussian, add/remove)");
      dpx::cli::add_dp_sgd_options(sub, o->sgd);
      auto* method = sub.add_option(
          "--method",
          o->method,
          dpx::cli::method_help(
              "gaussian: classical|analytic|rdp|pld; laplace: basic|advanced|kov|pld",
              "; laplace without --delta: basic"));
      return [o, delta, rate, method, steps]() {
        o->have_delta = delta->count() > 0;
        o->have_rate = rate->count() > 0;
        o->have_method = method->count() > 0;
        o->have_steps = steps->count() > 0;
        return run_calibrate(*o);
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_calibrate
