// Driver `accounting_tightness`: how tight each accounting method is (issue 4, item 8).
//
// task = "account": epsilon at the given delta of `steps` releases of
//   mechanism = "gaussian"            (noise multiplier `noise` = sigma / Delta2),
//   mechanism = "subsampled_gaussian" (Poisson rate `sampling_rate`, add/remove neighbours),
//   mechanism = "laplace"             (`noise` = b / Delta1),
// under method = basic | advanced | kov | rdp | zcdp | pld (dpx::accounting::account_*).
// Every value is an upper bound on epsilon; pld is tight up to discretisation (pessimistic).
// task = "calibrate": the Gaussian noise multiplier for (epsilon, delta, steps) by method
//   rdp | pld (pld without subsampling = the exact analytic Gaussian), next to ISTDP's published
//   Theorem 3.3 calibration (Yuan & Peng 2023) for the same (epsilon, delta, T); noise_reduction is
//   sigma_ISTDP / sigma_method, the factor by which tight accounting reduces the noise.
//
// Deterministic (no randomness): one replication suffices.
// Metrics: epsilon (account: computed; calibrate: the target), noise_multiplier (account: the
// input; calibrate: the calibrated value), noise_multiplier_istdp, noise_reduction and
// istdp_valid (1 if ISTDP's eps_k < 1, the range where its classical Gaussian bound holds) —
// NaN where not applicable. Against the exact composed Gaussian (experiments/pgd_theory:
// gdp_epsilon, gaussian_sigma; Balle & Wang 2018 Thm. 8 with mu = sqrt(T)/sigma, computed from the
// cell's inputs without dpx::accounting): epsilon_over_exact (account, gaussian: the method's
// epsilon over the exact one; every accountant must report an upper bound, >= 1),
// noise_over_exact and istdp_over_exact (calibrate: the method's and ISTDP's noise multiplier
// over the smallest one that is (epsilon, delta)-DP; >= 1, and 1 for an exact calibration).
// `steps_accounted` (default 0 = steps) is the number of releases the accountant is TOLD: the
// noise-keeping negative control of those checks (composition over part of T forgotten).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "dpx/accounting/calibration.hpp"
#include "dpx/accounting/seeds.hpp"
#include "dpx/core/error.hpp"
#include "dpx/harness/driver.hpp"
#include "pgd_theory.hpp"

namespace dpx::experiments::accounting_tightness {
namespace {

using harness::cell_context;
using harness::metrics;

constexpr const char* kFn = "accounting_tightness";
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

metrics run(const cell_context& ctx) {
  const auto& p = ctx.params;
  const std::string task = p.get_string("task");
  const std::string mechanism = p.get_string("mechanism");
  const std::string method = p.get_string("method");
  const std::int64_t steps = p.get_int("steps");
  const std::int64_t told =
      p.get_int("steps_accounted") > 0 ? std::min(p.get_int("steps_accounted"), steps) : steps;
  const double noise = p.get_double("noise");
  const double q = p.get_double("sampling_rate");
  const double delta = p.get_double("delta");
  const double epsilon = p.get_double("epsilon");
  if (task == "account") {
    const auto m = accounting::parse_method(method);
    double eps;
    if (mechanism == "gaussian") {
      eps = accounting::account_gaussian(m, noise, 1.0, told, delta);
    } else if (mechanism == "subsampled_gaussian") {
      eps = accounting::account_gaussian(m, noise, q, told, delta);
    } else if (mechanism == "laplace") {
      eps = accounting::account_laplace(m, noise, told, delta);
    } else {
      core::throw_invalid(
          kFn, "mechanism", mechanism, "must be gaussian, subsampled_gaussian or laplace");
    }
    const double exact =
        mechanism == "gaussian"
            ? pgd_theory::gdp_epsilon(std::sqrt(static_cast<double>(steps)) / noise, delta)
            : nan;
    return {{"epsilon", eps},
            {"noise_multiplier", noise},
            {"noise_multiplier_istdp", nan},
            {"noise_reduction", nan},
            {"istdp_valid", nan},
            {"epsilon_over_exact", exact > 0 ? eps / exact : nan},
            {"noise_over_exact", nan},
            {"istdp_over_exact", nan}};
  }
  if (task != "calibrate") core::throw_invalid(kFn, "task", task, "must be account or calibrate");
  if (mechanism != "gaussian") {
    core::throw_invalid(kFn, "mechanism", mechanism, "calibrate compares Gaussian calibrations");
  }
  const auto istdp = accounting::istdp_theorem_3_3(epsilon, delta, steps, 1.0);
  double s;
  const double exact_sigma = pgd_theory::gaussian_sigma(epsilon, delta, steps, 1.0);
  if (method == "rdp") {
    s = accounting::calibrate_gaussian(accounting::gaussian_calibration::rdp, epsilon, delta, told);
  } else if (method == "pld" || method == "analytic") {
    s = accounting::calibrate_gaussian(accounting::gaussian_calibration::pld, epsilon, delta, told);
  } else if (method == "istdp") {
    s = istdp.noise_multiplier;  // the negative control of the noise_sqrt_t check
  } else {
    core::throw_invalid(kFn, "method", method, "calibrate: must be rdp, pld, analytic or istdp");
  }
  return {{"epsilon", epsilon},
          {"noise_multiplier", s},
          {"noise_multiplier_istdp", istdp.noise_multiplier},
          {"noise_reduction", istdp.noise_multiplier / s},
          {"istdp_valid", istdp.classical_valid ? 1.0 : 0.0},
          {"epsilon_over_exact", nan},
          {"noise_over_exact", s / exact_sigma},
          {"istdp_over_exact", istdp.noise_multiplier / exact_sigma}};
}

harness::driver make_driver() {
  harness::driver d;
  d.name = "accounting_tightness";
  d.version = "3";
  d.description =
      "Epsilon against steps under basic/advanced/KOV/RDP/zCDP/PLD accounting, and the noise "
      "reduction of tight calibration over ISTDP's published Theorem 3.3";
  d.params = {
      {"task",
       "\"account\" or \"calibrate\"",
       harness::param_value{std::string("account")},
       harness::one_of({"account", "calibrate"})},
      {"mechanism",
       "gaussian | subsampled_gaussian | laplace",
       std::nullopt,
       harness::one_of({"gaussian", "subsampled_gaussian", "laplace"})},
      {"method",
       "basic | advanced | kov | rdp | zcdp | pld (calibrate: rdp | pld | istdp)",
       std::nullopt},
      {"steps", "number of releases T (>= 1)", std::nullopt, harness::integer_at_least(1)},
      {"noise",
       "Gaussian sigma/Delta2 or Laplace b/Delta1 (account)",
       harness::param_value{10.0},
       harness::positive()},
      {"sampling_rate", "Poisson rate q (subsampled_gaussian)", harness::param_value{0.01}},
      {"delta", "delta in (0, 1)", harness::param_value{1e-5}, harness::open_unit_interval()},
      {"epsilon", "target epsilon (calibrate)", harness::param_value{1.0}, harness::positive()},
      {"steps_accounted",
       "releases the accountant is told (0 = steps; a smaller value is the negative control: "
       "composition over part of T forgotten)",
       harness::param_value{std::int64_t{0}},
       harness::integer_at_least(0)},
  };
  d.data_keys = {};
  d.metric_names = {"epsilon",
                    "noise_multiplier",
                    "noise_multiplier_istdp",
                    "noise_reduction",
                    "istdp_valid",
                    "epsilon_over_exact",
                    "noise_over_exact",
                    "istdp_over_exact"};
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make_driver()};

}  // namespace
}  // namespace dpx::experiments::accounting_tightness
