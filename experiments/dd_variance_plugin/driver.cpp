// Driver `dd_variance_plugin`: plug-in variance estimation (S1 Appendix G, §7.1.5 Fig 5;
// docs/theory/dependent-data.md §6, §9 (design D9)).
//
// Data: X ~ N(mu 1, Σ), unit marginal variance, design iid / equi (c = phi) / ar1 (phi); keyed on
// (n, design, phi, mu). Methods: "known" — Algorithm 4 with the true marginal variance 1;
// "bisection" / "coinpress" — σ̂² from S1 Alg 10 / Alg 13–14 at (eps_var, ρ_c = 1/n²) with public
// bounds (var_min, var_max) and rough midpoint m0, then Algorithm 4 with τ = sqrt(2σ̂² ln(2n/γ))
// at (epsilon, 1/n²). Total privacy: (epsilon [+ eps_var], 1/n² [+ 1/n²]). clamp_var (default
// true) [R]: σ̂² projected onto the public [var_min, var_max] (variance_options::clamp_to_bounds,
// free post-processing); false: the published outputs (CoinPress may return σ̂² = 0).
// CI: plugin_confidence_interval at level 1 − alpha with κ = 1 (i.i.d. formula, as a user
// without a long-run variance bound would use it): under dependence it under-covers.
//
// Metrics: sq_err (A − μ)²; oracle_mse Var(X̄) + 2b²; sq_err_over_oracle;
// sq_err_over_known_oracle (A − μ)²/(Var(X̄) + 2b₁²), b₁ the Laplace scale at the true variance 1;
// var_est σ̂² (1 for known); var_sq_err (σ̂² − 1)²; covered (μ in CI); ci_length; failed (the mean
// stage's histogram failed); var_failed (variance_result::diag.failed: bisection — the first
// coverage test failed; CoinPress — the last noisy second moment was clamped at 0, so σ̂² is 0, or
// var_min with clamp_var; 0 for known).
#include <cmath>
#include <string>

#include "../dd_common/dd_common.hpp"
#include "dpx/estimators/central.hpp"
#include "dpx/estimators/variance.hpp"
#include "s1_theory/s1_theory.hpp"

namespace dpx::experiments::dd_variance_plugin {
namespace {

using harness::cell_context;
using harness::metrics;
using harness::param_value;

metrics run(const cell_context& c) {
  const auto& p = c.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const double dn = static_cast<double>(n), mu = p.get_double("mu");
  const double eps = p.get_double("epsilon"), delta = 1.0 / (dn * dn);
  auto gd = c.stream(rng::purpose::data);
  dd::design_info info;
  const auto x = dd::gaussian_design(p.get_string("design"), n, p.get_double("phi"), mu, gd, &info);
  auto g = c.stream(rng::purpose::noise);
  const std::string method = p.get_string("method");
  // "known": the marginal variance the analyst plugs in, `known_variance` (1 = the truth; a much
  // smaller value is the negative control of the oracle check: τ too small, the data clipped).
  double var = p.get_double("known_variance");
  core::check_positive("dd_variance_plugin", "known_variance", var);
  bool var_failed = false;
  if (method != "known") {
    estimators::variance_options vo;
    vo.epsilon = p.get_double("eps_var");
    vo.composition_slack = delta;
    vo.variance_min = p.get_double("var_min");
    vo.variance_max = p.get_double("var_max");
    vo.midpoint = p.get_double("m0");
    vo.gamma = p.get_double("gamma_var");
    vo.clamp_to_bounds = p.get_bool("clamp_var");
    vo.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    estimators::variance_result vr;
    if (method == "bisection") {
      vr = estimators::variance_bisection(x, vo, g);
    } else if (method == "coinpress") {
      vr = estimators::adaptive_coinpress(x, vo, g);
    } else {
      core::throw_invalid(
          "dd_variance_plugin", "method", method, "must be known, bisection or coinpress");
    }
    var = vr.variance;
    var_failed = vr.diag.failed;
  }
  // With clamp_var = false a zero variance estimate is possible (z clipped at 0); keep τ
  // positive.
  const double v = std::max(var, 1e-12);
  const double tau = estimators::tau_subgaussian(v, n, p.get_double("gamma"));
  const auto r = estimators::winsorized_mean(
      x,
      {{eps, delta}, estimators::interval_rule::paper(tau), mechanisms::noise_kind::research_grade},
      g);
  const auto ci = estimators::plugin_confidence_interval(r, v, p.get_double("alpha"));
  const double e = r.estimate - mu;
  // The [R] oracle Var(X̄) + 2b² from the cell's inputs and the variance the mean stage was given
  // (s1_theory, never the mean release's own scale): b = 12τ(v)/(nε), v = known_variance or the
  // plug-in's released estimate; closed-form n·Var(X̄) of the design.
  const double gamma = p.get_double("gamma");
  const double var_mean =
      s1_theory::design_n_var_mean(p.get_string("design"), n, p.get_double("phi")) / dn;
  const double oracle = s1_theory::winsorized_oracle_mse(
      var_mean,
      s1_theory::winsorized_laplace_scale(3.0 * s1_theory::radius(v, n, 1, gamma), n, eps));
  // The known-variance oracle: the same with b at the TRUE marginal variance 1, the curve S1
  // Fig 5's plug-ins are compared against (a plug-in that matches it loses nothing by not
  // knowing σ²).
  const double known_oracle = s1_theory::winsorized_oracle_mse(
      var_mean,
      s1_theory::winsorized_laplace_scale(3.0 * s1_theory::radius(1.0, n, 1, gamma), n, eps));
  return {{"sq_err", e * e},
          {"oracle_mse", oracle},
          {"sq_err_over_oracle", e * e / oracle},
          {"sq_err_over_known_oracle", e * e / known_oracle},
          {"var_est", var},
          {"var_sq_err", (var - 1.0) * (var - 1.0)},
          {"covered", ci.contains(mu) ? 1.0 : 0.0},
          {"ci_length", ci.length()},
          {"failed", r.diag.failed ? 1.0 : 0.0},
          {"var_failed", var_failed ? 1.0 : 0.0}};
}

harness::driver make() {
  harness::driver d;
  d.name = "dd_variance_plugin";
  d.version = "5";  // 2: clamp_var, var_failed; 3: oracle, known_variance; 4: known oracle;
                    // 5: oracles from the cell's inputs (s1_theory)
  d.description = "Plug-in variance (S1 Alg 10, Alg 13-14) then the winsorized mean and its CI";
  d.params = {
      {"n", "sample size", std::nullopt, harness::integer_at_least(1)},
      {"method",
       "known | bisection | coinpress",
       std::nullopt,
       harness::one_of({"known", "bisection", "coinpress"})},
      {"known_variance",
       "variance plugged in by method known (1 = the truth; smaller: negative control)",
       param_value{1.0}},
      {"design", "iid | equi | ar1", param_value{std::string("iid")}},
      {"phi", "equicorrelation c or AR(1) coefficient", param_value{0.0}},
      {"mu", "true mean (S1: 100)", param_value{100.0}},
      {"epsilon", "epsilon of the mean", param_value{1.0}},
      {"eps_var", "epsilon of the variance stage", param_value{1.0}},
      {"var_min", "public lower variance bound", param_value{0.1}},
      {"var_max", "public upper variance bound", param_value{1e4}},
      {"m0", "public rough midpoint", param_value{0.0}},
      {"gamma_var",
       "gamma of the variance procedures (default 0.2, docs/theory/dependent-data.md §6)",
       param_value{0.2}},
      {"gamma", "gamma of tau", param_value{0.1}, harness::open_unit_interval()},
      {"alpha", "CI level 1 - alpha", param_value{0.05}},
      {"clamp_var",
       "project the private variance onto [var_min, var_max] (free post-processing); false: the "
       "published outputs",
       param_value{true}},
  };
  d.data_keys = {"n", "design", "phi", "mu"};
  d.metric_names = harness::metric_list(
      "sq_err oracle_mse sq_err_over_oracle sq_err_over_known_oracle var_est var_sq_err covered "
      "ci_length failed var_failed");
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make()};

}  // namespace
}  // namespace dpx::experiments::dd_variance_plugin
