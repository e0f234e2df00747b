// dpx calibrate: the noise needed for a target (epsilon, delta).
//
//   dpx calibrate --mechanism gaussian --epsilon E --delta D [--steps T] [--sampling-rate Q]
//                 --method classical|analytic|rdp|pld          -> {"noise_multiplier": ...}
//   dpx calibrate --mechanism laplace --epsilon E [--steps T --delta D
//                 --method basic|advanced|kov|pld]             -> {"scale": ...}
//
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
#include "dpx/accounting/calibration.hpp"
#include "dpx/core/error.hpp"
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
  bool have_delta = false, have_rate = false, have_method = false;
};

int run_calibrate(const calibrate_options& o) {
  namespace acc = dpx::accounting;
  namespace core = dpx::core;
  const char* fn = kFn;
  core::check_positive(fn, "--epsilon", o.epsilon);
  core::check_at_least(fn, "--steps", o.steps, 1);
  nlohmann::ordered_json j;
  if (o.mechanism == "gaussian") {
    if (!o.have_method) core::throw_invalid(fn, "--method", "(missing)", "required for gaussian");
    if (!o.have_delta) core::throw_invalid(fn, "--delta", "(missing)", "required for gaussian");
    core::check_open_interval(fn, "--delta", o.delta, 0.0, 1.0);
    if (o.have_rate)
      core::check_half_open_interval(fn, "--sampling-rate", o.sampling_rate, 0.0, 1.0);
    acc::gaussian_calibration m{};
    if (o.method == "classical" || o.method == "analytic" || o.method == "rdp" ||
        o.method == "pld") {
      m = acc::parse_gaussian_calibration(o.method);
    } else {
      core::throw_invalid(fn, "--method", o.method, "must be classical, analytic, rdp or pld");
    }
    const double q = o.have_rate ? o.sampling_rate : 1.0;
    if (q < 1.0 &&
        (m == acc::gaussian_calibration::classical || m == acc::gaussian_calibration::analytic)) {
      core::throw_invalid(fn, "--sampling-rate", q, "not supported by --method " + o.method);
    }
    if (m == acc::gaussian_calibration::classical && o.steps == 1 && !(o.epsilon < 1.0)) {
      core::throw_invalid(fn, "--epsilon", o.epsilon, "classical calibration needs epsilon < 1");
    }
    j["noise_multiplier"] = acc::calibrate_gaussian(m, o.epsilon, o.delta, o.steps, q);
  } else if (o.mechanism == "laplace") {
    if (o.have_rate)
      core::throw_invalid(fn, "--sampling-rate", o.sampling_rate, "only for gaussian");
    acc::laplace_method m = acc::laplace_method::basic;
    if (o.have_method) {
      if (o.method == "basic" || o.method == "advanced" || o.method == "kov" || o.method == "pld") {
        m = acc::parse_laplace_method(o.method);
      } else {
        core::throw_invalid(fn, "--method", o.method, "must be basic, advanced, kov or pld");
      }
    }
    if (m != acc::laplace_method::basic) {
      if (!o.have_delta)
        core::throw_invalid(fn, "--delta", "(missing)", "required for " + o.method);
    }
    if (o.have_delta) core::check_open_interval(fn, "--delta", o.delta, 0.0, 1.0);
    j["scale"] = acc::calibrate_laplace(o.epsilon, o.delta, o.steps, m);
  } else {
    core::throw_invalid(fn, "--mechanism", o.mechanism, "must be gaussian or laplace");
  }
  dpx::cli::print_json(j);
  return dpx::cli::exit_ok;
}

const bool registered = dpx::cli::register_command(
    "calibrate",
    "Noise for a target (epsilon, delta): Gaussian multiplier or Laplace scale",
    [](CLI::App& sub) {
      auto o = std::make_shared<calibrate_options>();
      sub.add_option("--mechanism", o->mechanism, "gaussian | laplace")->required();
      sub.add_option("--epsilon", o->epsilon, "target epsilon (> 0)")->required();
      auto* delta = sub.add_option("--delta", o->delta, "target delta in (0, 1)");
      sub.add_option("--steps", o->steps, "number of releases (default 1)");
      auto* rate = sub.add_option("--sampling-rate",
                                  o->sampling_rate,
                                  "Poisson sampling rate in (0, 1] (gaussian, add/remove)");
      auto* method =
          sub.add_option("--method",
                         o->method,
                         "gaussian: classical|analytic|rdp|pld; laplace: basic|advanced|kov|pld");
      return [o, delta, rate, method]() {
        o->have_delta = delta->count() > 0;
        o->have_rate = rate->count() > 0;
        o->have_method = method->count() > 0;
        return run_calibrate(*o);
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_calibrate
