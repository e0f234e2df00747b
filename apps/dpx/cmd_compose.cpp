// dpx compose: approximate-DP composition theorems for k adaptive (eps0, delta0)-DP releases.
//
//   dpx compose --rule basic|advanced|kov|kov-bound --epsilon0 E0 [--delta0 D0] --k K
//               [--delta-slack DS]
//   -> {"epsilon": ..., "delta": ...}
//
// basic: (k eps0, k delta0) (the slack is not used). advanced: Dwork-Rothblum-Vadhan with
// slack DS. kov: the exact optimal composition of Kairouz-Oh-Viswanath 2015 (Thm 3.3) at total
// delta = 1 - (1 - delta0)^k (1 - DS). kov-bound: their closed-form bound (Thm 3.4).
#include <cstdint>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "dpx/accounting/composition.hpp"
#include "dpx/core/error.hpp"
#include "json_output.hpp"
#include "strict.hpp"

namespace dpx::cli::cmd_compose {
namespace {

constexpr const char* kFn = "dpx compose";

struct compose_options {
  std::string rule;
  double epsilon0 = 0;
  double delta0 = 0;
  std::int64_t k = 0;
  double delta_slack = -1;
  bool have_slack = false;
};

int run_compose(const compose_options& o) {
  namespace acc = dpx::accounting;
  namespace core = dpx::core;
  const char* fn = kFn;
  core::check_positive(fn, "--epsilon0", o.epsilon0);
  if (!(o.delta0 >= 0.0 && o.delta0 < 1.0)) {
    core::throw_invalid(fn, "--delta0", o.delta0, "must lie in [0, 1)");
  }
  core::check_at_least(fn, "--k", o.k, 1);
  if (o.rule != "basic") {
    if (!o.have_slack) {
      core::throw_invalid(fn, "--delta-slack", "(missing)", "required for rule " + o.rule);
    }
    core::check_open_interval(fn, "--delta-slack", o.delta_slack, 0.0, 1.0);
  } else if (o.have_slack) {
    core::check_open_interval(fn, "--delta-slack", o.delta_slack, 0.0, 1.0);
  }
  acc::epsilon_delta r;
  if (o.rule == "basic") {
    r = acc::basic_composition(o.epsilon0, o.delta0, o.k);
  } else if (o.rule == "advanced") {
    r = acc::advanced_composition(o.epsilon0, o.delta0, o.k, o.delta_slack);
  } else if (o.rule == "kov") {
    dpx::cli::check_bound("--k",
                          o.k,
                          acc::kov_optimal_max_k,
                          "the optimal composition sums O(sqrt k) terms; kov-bound has no limit");
    const double total =
        -std::expm1(static_cast<double>(o.k) * std::log1p(-o.delta0) + std::log1p(-o.delta_slack));
    r = {acc::kov_optimal_epsilon(o.epsilon0, o.delta0, o.k, total), total};
  } else if (o.rule == "kov-bound") {
    r = acc::kov_composition(o.epsilon0, o.delta0, o.k, o.delta_slack);
  } else {
    core::throw_invalid(fn, "--rule", o.rule, "must be basic, advanced, kov or kov-bound");
  }
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["epsilon"] = r.epsilon;
  j["delta"] = r.delta;
  dpx::cli::emit_json(j);
  return dpx::cli::exit_ok;
}

const bool registered = dpx::cli::register_command(
    "compose",
    "Compose k adaptive (eps0, delta0)-DP releases (basic, advanced, KOV optimal / bound)",
    [](CLI::App& sub) {
      auto o = std::make_shared<compose_options>();
      dpx::cli::add_pretty_flag(sub);
      sub.add_option("--rule", o->rule, "basic | advanced | kov (optimal) | kov-bound")->required();
      sub.add_option("--epsilon0", o->epsilon0, "per-release epsilon (> 0)")->required();
      sub.add_option("--delta0", o->delta0, "per-release delta in [0, 1) (default 0)");
      sub.add_option("--k", o->k, "number of releases (>= 1)")->required();
      auto* slack = sub.add_option("--delta-slack", o->delta_slack, "slack delta' in (0, 1)");
      return [o, slack]() {
        o->have_slack = slack->count() > 0;
        return run_compose(*o);
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_compose
