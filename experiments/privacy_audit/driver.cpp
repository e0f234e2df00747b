// Driver `privacy_audit`: one empirical privacy audit (dpx::audit) per replication.
//
// target: a mechanism / estimator audit of audit::mechanism_names() (laplace, gaussian,
// discrete_laplace, discrete_gaussian, randomized_response, stable_histogram, local_histogram,
// laplace_mironov, float_safe_laplace_mironov, exponential_mechanism, permute_and_flip,
// exponential_quantile, l2_laplace, l2_laplace_spread, float_safe_gaussian, winsorized_mean,
// kv_mean, local_mean, user_mean, priestley_chao, winsorized_mean_histogram,
// winsorized_mean_both, kv_mean_histogram, kv_mean_both, winsorized_mean_hd,
// priestley_chao_grid, sample_split_mean, kv_mean_unknown_sigma,
// user_mean_hd, local_mean_hd, variance_bisection, adaptive_coinpress) or a solver
// canary audit of audit::solver_names() (istdp_as_published, istdp_strict, noisy_pgd, dp_sgd). Each
// replication runs `trials` trials per side of the target's worst-case neighbouring pair, chooses a
// threshold test on half of them and bounds its error rates on the other half with Clopper–Pearson
// at `confidence` (auditor.hpp). `broken` halves the noise (b, sigma; randomized response,
// histograms, selection mechanisms, the median: 2 eps; estimators: the mean stage's noise; the
// histogram-stage pairs: both stages at 2 eps; solvers: ISTDP and noisy PGD calibrated for
// 8 eps, DP-SGD at sigma / 8, audits.hpp) while claiming the original guarantee. design
// (solvers): the canary pair, "sign" or "curvature" (audits.hpp).
//
// Metrics (per replication):
//   epsilon_lower_bound  the audit's bound (>= 0)
//   claimed_epsilon      the guarantee claimed for the (unbroken) target on the audited pair
//                        (the estimators: the audited stage's share, audits.hpp)
//   total_epsilon        the target's overall epsilon (= claimed_epsilon except estimators)
//   bound_ratio          epsilon_lower_bound / claimed_epsilon (> 1 = violation caught)
//   violation            1 if epsilon_lower_bound > claimed_epsilon, else 0
//   fpr_upper, fnr_upper the two Clopper–Pearson upper bounds (each at 1 - alpha/2)
#include <string>

#include "dpx/audit/audits.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/harness/driver.hpp"

namespace dpx::experiments::privacy_audit {
namespace {

using harness::cell_context;
using harness::metrics;

constexpr const char* kFn = "privacy_audit";

bool is_solver(const std::string& t) {
  for (const auto& s : audit::solver_names())
    if (s == t) return true;
  return false;
}

metrics run(const cell_context& ctx) {
  const auto& p = ctx.params;
  const std::string target = p.get_string("target");
  const std::int64_t trials = p.get_int("trials");
  const double epsilon = p.get_double("epsilon");
  const double delta = p.get_double("delta");
  const bool broken = p.get_bool("broken");
  core::check_at_least(kFn, "trials", trials, 4);
  audit::audit_options o;
  o.confidence = p.get_double("confidence");
  auto g = ctx.stream(rng::purpose::audit);
  audit::named_audit_result r;
  if (is_solver(target)) {
    audit::solver_audit_spec s;
    s.broken = broken;
    s.solver = target;
    s.target.epsilon = epsilon;
    s.target.delta = delta;
    s.iterations = p.get_int("iterations");
    s.noise_multiplier = p.get_double("dp_sgd_noise_multiplier");
    const std::string design = p.get_string("design");
    if (design == "curvature")
      s.design = audit::canary_design::curvature;
    else if (design != "sign")
      core::throw_invalid(kFn, "design", design, "must be \"sign\" or \"curvature\"");
    r = audit::audit_solver(s, static_cast<std::size_t>(trials), o, g);
  } else {
    audit::mechanism_audit_spec s;
    s.mechanism = target;
    s.epsilon = epsilon;
    s.delta = delta;
    s.broken = broken;
    r = audit::audit_mechanism(s, static_cast<std::size_t>(trials), o, g);
  }
  return {{"epsilon_lower_bound", r.audit.epsilon_lower_bound},
          {"claimed_epsilon", r.claimed_epsilon},
          {"total_epsilon", r.total_epsilon},
          {"bound_ratio", r.audit.epsilon_lower_bound / r.claimed_epsilon},
          {"violation", r.violation ? 1.0 : 0.0},
          {"fpr_upper", r.audit.fpr_upper},
          {"fnr_upper", r.audit.fnr_upper}};
}

harness::driver make_driver() {
  harness::driver d;
  d.name = "privacy_audit";
  d.version = "3";  // 3: solvers' broken variants; 2: estimator claims are the mean stage's share
  d.description =
      "Empirical lower bound on epsilon (dpx::audit) for a mechanism, estimator or private "
      "solver on its worst-case neighbouring pair";
  d.params = {
      {"target", "a name of audit::mechanism_names() or audit::solver_names()", std::nullopt},
      {"trials", "trials per side of the pair (>= 4)", std::nullopt, harness::integer_at_least(4)},
      {"epsilon",
       "claimed epsilon (calibration target), > 0",
       harness::param_value{1.0},
       harness::positive()},
      {"delta",
       "delta of the claim (Gaussian mechanisms, histograms, solvers)",
       harness::param_value{1e-5},
       harness::open_unit_interval()},
      {"broken",
       "scale the noise down while claiming the original guarantee (mechanisms, estimators: "
       "halved; solvers: calibrated for 8 eps, DP-SGD sigma / 8)",
       harness::param_value{false}},
      {"confidence",
       "confidence of the lower bound, in (0, 1)",
       harness::param_value{0.95},
       harness::open_unit_interval()},
      {"iterations",
       "solver iterations T (solver targets)",
       harness::param_value{std::int64_t{5}},
       harness::integer_at_least(1)},
      {"dp_sgd_noise_multiplier",
       "DP-SGD noise multiplier sigma (solver dp_sgd; the claim is its RDP accountant's epsilon)",
       harness::param_value{1.0},
       harness::positive()},
      {"design",
       "solver canary pair: \"sign\" (y = -Y vs +Y) or \"curvature\" (x = e_1 vs null)",
       harness::param_value{std::string("sign")},
       harness::one_of({"sign", "curvature"})},
  };
  d.data_keys = {};
  d.metric_names = {"epsilon_lower_bound",
                    "claimed_epsilon",
                    "total_epsilon",
                    "bound_ratio",
                    "violation",
                    "fpr_upper",
                    "fnr_upper"};
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make_driver()};

}  // namespace
}  // namespace dpx::experiments::privacy_audit
