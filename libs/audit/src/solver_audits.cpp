// Named solver audits (audits.hpp): canary pairs for ISTDP, noisy PGD and DP-SGD.
#include <cmath>
#include <string>
#include <vector>

#include "audits_internal.hpp"
#include "dpx/accounting/gaussian.hpp"
#include "dpx/accounting/rdp.hpp"
#include "dpx/audit/audits.hpp"
#include "dpx/core/error.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/dp_sgd.hpp"
#include "dpx/solvers/istdp.hpp"
#include "dpx/solvers/pgd.hpp"

namespace dpx::audit {

using namespace audits_internal;

std::vector<std::string> solver_names() {
  return {"istdp_as_published", "istdp_strict", "noisy_pgd", "dp_sgd", "dp_sgd_float_safe"};
}

void solver_audit_spec::validate() const {
  const char* fn = "audit::solver_audit_spec";
  if (!is_one_of(solver, solver_names()))
    core::throw_invalid(fn, "solver", solver, "unknown (see audit::solver_names())");
  core::check_at_least(fn, "records", static_cast<long long>(records), 2);
  core::check_at_least(fn, "iterations", iterations, 2);
  core::check_positive(fn, "epsilon", target.epsilon);
  core::check_open_interval(fn, "delta", target.delta, 0.0, 1.0);
  core::check_positive(fn, "clip_norm", clip_norm);
  core::check_positive(fn, "canary_response", canary_response);
  core::check_positive(fn, "step_size", step_size);
  core::check_half_open_interval(fn, "sampling_rate", sampling_rate, 0.0, 1.0);
  core::check_positive(fn, "noise_multiplier", noise_multiplier);
}

namespace {

// DP-SGD (add/remove): research-grade noise, or the float-safe default (exact integer aggregate,
// exactly rounded Gaussian; docs/theory/float-safe-dp-sgd.md).
bool is_dp_sgd(const solver_audit_spec& s) {
  return s.solver == "dp_sgd" || s.solver == "dp_sgd_float_safe";
}

struct canary_data {
  std::vector<double> x, y;
  std::size_t rows = 0;
};

// side 0: D, side 1: D' (see audits.hpp).
canary_data make_canary(const solver_audit_spec& s, int side) {
  canary_data d;
  const bool add_remove = is_dp_sgd(s);
  const std::size_t base = s.records - 1;
  const bool with_canary = !add_remove || side == 1;
  d.rows = base + (with_canary ? 1 : 0);
  for (std::size_t i = 0; i < base; ++i) {
    d.x.insert(d.x.end(), {0.0, 1.0});
    d.y.push_back(0.0);
  }
  if (s.design == canary_design::curvature) {
    // D: canary x = e_1, y = 0; D': the null row (replace-one) or nothing (add/remove).
    const bool canary = side == 0;
    if (canary || !add_remove) {
      d.x.insert(d.x.end(), {canary ? 1.0 : 0.0, 0.0});
      d.y.push_back(0.0);
      d.rows = base + 1;
    } else {
      d.rows = base;
    }
    return d;
  }
  if (with_canary) {
    d.x.insert(d.x.end(), {1.0, 0.0});
    d.y.push_back(side == 0 ? -s.canary_response : s.canary_response);
  }
  return d;
}

/// The calibration target the solver runs at: broken calibrates for broken_factor * epsilon
/// (less noise) while the claim stays spec.target (audits.hpp).
core::epsilon_delta broken_target(const solver_audit_spec& s) {
  if (!s.broken) return s.target;
  return {s.target.epsilon * solver_audit_spec::broken_factor, s.target.delta};
}

solvers::istdp_options istdp_opts(const solver_audit_spec& s) {
  solvers::istdp_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.iterations = s.iterations;
  o.variant = s.solver == "istdp_as_published" ? solvers::istdp_variant::as_published
                                               : solvers::istdp_variant::strict;
  o.public_smoothness = 1.0;  // least squares with ||x|| <= 1
  o.alpha_max = 1.0;
  o.sensitivity = solvers::sensitivity_mode::clipping;
  o.clip_norm = s.clip_norm;
  o.relation = core::neighbouring::replace_one;
  o.calibration = solvers::noise_calibration::tight;
  o.target = broken_target(s);
  // as_published is NOT private (its step selection reads the data): auditing it at the noise
  // the target calibrates is the point (the audit shows the leak), an explicit opt-in.
  o.allow_nonprivate = o.variant == solvers::istdp_variant::as_published;
  o.trace.enabled = false;
  return o;
}

solvers::pgd_options pgd_opts(const solver_audit_spec& s) {
  solvers::pgd_options o;
  o.noise_kind = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.iterations = s.iterations;
  o.step_size = s.step_size;
  o.output = solvers::iterate_output::last;
  o.noise = solvers::pgd_noise::gaussian;
  o.clip_norm = s.clip_norm;
  o.relation = core::neighbouring::replace_one;
  o.calibration = solvers::noise_calibration::tight;
  o.target = broken_target(s);
  o.trace.enabled = false;
  return o;
}

solvers::dp_sgd_options sgd_opts(const solver_audit_spec& s) {
  solvers::dp_sgd_options o;
  o.noise_kind = s.solver == "dp_sgd_float_safe" ? mechanisms::noise_kind::float_safe
                                                 : mechanisms::noise_kind::research_grade;
  o.iterations = s.iterations;
  o.step_size = s.step_size;
  o.sampling_rate = s.sampling_rate;
  o.clip_norm = s.clip_norm;
  o.noise_multiplier =
      s.broken ? s.noise_multiplier / solver_audit_spec::broken_factor : s.noise_multiplier;
  // A public denominator, the same on both sides of the add/remove pair (the default q * n
  // would read each side's own n, which the subsampled-Gaussian accounting does not cover).
  o.expected_batch_size = s.sampling_rate * static_cast<double>(s.records);
  o.output = solvers::iterate_output::last;
  o.trace.enabled = false;
  return o;
}

const double kTheta0[2] = {0.0, 0.0};
const double kTheta1[2] = {0.1, 0.1};  // ISTDP's theta^1 (theta^0 != theta^1 for as_published)

solvers::solve_result run_solver(const solver_audit_spec& s,
                                 const losses::glm_loss& loss,
                                 rng::philox4x32& g) {
  const prox::zero_penalty none;
  const std::span<const double> t0(kTheta0, 2), t1(kTheta1, 2);
  if (s.solver == "istdp_strict") return solvers::istdp(loss, none, t1, istdp_opts(s), g);
  if (s.solver == "istdp_as_published") return solvers::istdp(loss, none, t0, t1, istdp_opts(s), g);
  if (s.solver == "noisy_pgd") return solvers::pgd(loss, none, t1, pgd_opts(s), g);
  return solvers::dp_sgd(loss, none, t1, sgd_opts(s), g);
}

}  // namespace

sample_pair solver_pair(const solver_audit_spec& spec, std::size_t trials, rng::philox4x32& g) {
  spec.validate();
  detail::check_trials("audit::solver_pair", trials);
  sample_pair p;
  p.statistics = {"theta_T[0] (projection on the canary direction)", "||theta_T - theta_start||^2"};
  if (spec.design == canary_design::curvature)
    p.pair = is_dp_sgd(spec) ? "add/remove: base rows + canary (x = e_1, y = 0) vs base rows"
                             : "replace-one: canary (x = e_1, y = 0) vs null row";
  else
    p.pair = is_dp_sgd(spec) ? "add/remove: base rows vs base rows + canary (x = e_1, y = +Y)"
                             : "replace-one: canary (x = e_1) with y = -Y vs y = +Y";
  p.s0.assign(2, std::vector<double>(trials));
  p.s1.assign(2, std::vector<double>(trials));
  for (int side = 0; side < 2; ++side) {
    const canary_data d = make_canary(spec, side);
    const losses::glm_loss loss(losses::glm_kind::least_squares,
                                losses::dataset_view{d.x, d.y, d.rows, 2});
    auto& out = side == 0 ? p.s0 : p.s1;
    for (std::size_t i = 0; i < trials; ++i) {
      const auto r = run_solver(spec, loss, g);
      const double a = r.x[0] - kTheta1[0], b = r.x[1] - kTheta1[1];
      // a non-finite iterate (divergence) is mapped to a large finite value
      out[0][i] = std::isfinite(r.x[0]) ? r.x[0] : 1e300;
      out[1][i] = std::isfinite(a * a + b * b) ? a * a + b * b : 1e300;
    }
  }
  return p;
}

double solver_claimed_epsilon(const solver_audit_spec& spec) {
  spec.validate();
  if (!is_dp_sgd(spec)) return spec.target.epsilon;
  // The events the run emits (float-safe: at the inclusion probability as drawn).
  const double q = spec.solver == "dp_sgd"
                       ? spec.sampling_rate
                       : solvers::detail::poisson_rate_as_drawn(spec.sampling_rate);
  accounting::rdp_accountant acc;
  acc.compose(core::subsampled_gaussian_event{q, spec.noise_multiplier}, spec.iterations);
  return acc.epsilon(spec.target.delta);
}

named_audit_result audit_solver(const solver_audit_spec& spec,
                                std::size_t trials,
                                const audit_options& options,
                                rng::philox4x32& g) {
  options.validate();
  const double claimed = solver_claimed_epsilon(spec);
  std::string guarantee =
      spec.solver == "istdp_as_published"
          ? eps_words(claimed, spec.target.delta) +
                " CLAIMED by the paper (Thm. 3.3); docs/theory/istdp.md, the leak: not private"
      : is_dp_sgd(spec)
          ? eps_words(claimed, spec.target.delta) + " (RDP accountant, add/remove)"
          : eps_words(claimed, spec.target.delta) + " (tight Gaussian calibration, replace-one)";
  if (spec.broken) guarantee += "; BROKEN: noise scaled down by the broken factor 8, claim kept";
  return finish(
      solver_pair(spec, trials, g), claimed, spec.target.delta, std::move(guarantee), options);
}

}  // namespace dpx::audit
