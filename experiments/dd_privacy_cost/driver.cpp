// Driver `dd_privacy_cost`: the cost of privacy at small n (S1 §7.1.1, Fig 1;
// docs/theory/dependent-data.md §9 row 1, §9 (design D1)/D4), also used by `dd_dependence_cost`
// (design, phi).
//
// Data: X ~ N(mu 1, Σ), unit marginal variance: design "iid" (Σ = I), "ar1" (Toeplitz
// phi^{|i−j|}), "equi" (correlation phi), "equi_inv_n" (c = 1/(n−1)), "fgn" (Hurst phi).
// Keyed on (n, design, phi, mu, mu_position): every estimator and ε sees the same data in
// replication r.
// Position of μ on the histogram's bin grid (bins (2hk − h, 2hk + h], h the rule's bin half-width;
// docs/experiments/dd_privacy_cost.md, "μ off the bin centres"): mu_position "given" (μ = mu;
// mu = 0 is a bin centre, the easiest case: the top bin holds almost all the mass), "edge"
// (μ = the right edge of the bin holding mu: the mass splits between two bins, the worst case
// of the histogram step) or "random" (μ = mu + U·2h, U ~ U[0, 1) drawn per replication from the
// data stream: a uniformly random position on the grid). Estimator: S1 Algorithm 4 with τ from the
// MARGINAL constant (ρ_i = 1, S1 Rem 3.5, as in the paper's simulations): rule "paper" A^{3τ}_τ
// with τ = sqrt(2 ln(2n/γ)), or "sharper" A^{τ+2τ′}_{τ′}, "custom" A^{κ}_{h} (κ = radius_factor·τ,
// h = τ or τ′: S1 Fig 2's heuristic radii), or "kv" (Karwa–Vadhan, σ = 1, β = γ) for comparison. ε
// = epsilon (fixed) or epsilon/√n (inv_sqrt_n: S1's c/√n, c = epsilon), δ = 1/n² (delta_rule n2) or
// 1/n.
//
// Metrics per replication:
//   sq_err              (A − μ)²                   the estimator's squared error
//   sq_err_mean         (X̄ − μ)²                   non-private baseline
//   sq_err_mean_noise   (X̄ + ξ′ − μ)², ξ′ ~ Lap(b) independent, b the estimator's scale (S1's
//                       "X̄ + ξ": the non-private mean plus the same Laplace noise)
//   sq_err_private      (A − X̄)²                   privacy error alone
//   sq_err_private_tau2 (A − X̄)²/τ²                privacy error per τ²: exactly ∝ n^{-2} ε^{-2}
//                                                  when nothing is clipped (rate check −2)
//   oracle_mse          n·Var(X̄)/n + 2b²           the [R] oracle Var(X̄) + 288τ²/(n²ε²), from
//                                                  the cell's inputs (experiments/s1_theory:
//                                                  closed-form n·Var(X̄), b = 4R_I/(nε) of the
//                                                  rule's R_I at the claimed ε; NaN for kv)
//   sq_err_over_oracle  sq_err / oracle_mse         tracks the oracle: slope 0 in n
//   abs_private_over_scale |A − X̄|/b               the release's Laplace draw (when nothing is
//                                                  clipped) over the theory's scale b (inputs):
//                                                  1 in expectation (E|Lap(b)| = b), relative
//                                                  sd 1; NaN for kv
//   failed              1 if every histogram bin was zeroed (m̂ = 0)
//   clipped_fraction    fraction of points outside Î
//   epsilon_used, tau, lambda_max, n_var_mean      the cell's ε, τ, λ_max(Σ), n·Var(X̄)
//   n_sq_err, n_oracle_mse                        n × (A − μ)², n × oracle (plateau plots, D3)
//   lsi_bound_mse, n_lsi_bound_mse                λ_max/n + 2b², the prediction from the
//                                                  log-Sobolev constant (Var X̄ ≤ λ_max/n), and n×
// epsilon_mislabel = c: the estimator runs at c·ε, the cell and its oracle claim ε (negative
// control of the level checks; dd_common.hpp).
#include <cmath>
#include <limits>
#include <string>

#include "../dd_common/dd_common.hpp"
#include "dpx/estimators/central.hpp"
#include "dpx/mechanisms/laplace.hpp"
#include "s1_theory/s1_theory.hpp"

namespace dpx::experiments::dd_privacy_cost {
namespace {

using harness::cell_context;
using harness::metrics;
using harness::param_value;

/// The offset of μ from `mu` (mu_position; see the header comment). h is the bin half-width of
/// the cell's rule: τ′ for "sharper" and for "custom" with bin = tau_prime, otherwise τ (KV's
/// bins have width σ = 1, so h = 1/2).
double mu_shift(const harness::param_map& p,
                const std::string& rule,
                double tau,
                double gamma,
                rng::philox4x32& gd) {
  const std::string pos = p.get_string("mu_position");
  if (pos == "given") return 0.0;
  double h = tau;
  if (rule == "sharper" || (rule == "custom" && p.get_string("bin") == "tau_prime"))
    h = estimators::tau_prime(1.0, gamma);
  if (rule == "kv") h = 0.5;
  if (pos == "edge") {  // the right edge 2hk + h of the bin (2hk − h, 2hk + h] holding mu
    const double mu = p.get_double("mu");
    return 2.0 * h * std::ceil(mu / (2.0 * h) - 0.5) + h - mu;
  }
  return 2.0 * h * rng::uniform01(gd);  // "random"
}

metrics run(const cell_context& c) {
  const auto& p = c.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const double dn = static_cast<double>(n);
  const double gamma = p.get_double("gamma");
  const double eps = dd::cell_epsilon(p, dn), delta = dd::cell_delta(p, dn);
  const std::string rule_name = p.get_string("rule");
  const double tau = estimators::tau_subgaussian(1.0, n, gamma);
  auto gd = c.stream(rng::purpose::data);
  const double mu = p.get_double("mu") + mu_shift(p, rule_name, tau, gamma, gd);
  dd::design_info info;
  auto x = dd::gaussian_design(p.get_string("design"), n, p.get_double("phi"), 0.0, gd, &info);
  for (double& v : x) v += mu;  // a location family: N(mu 1, Σ) = N(0, Σ) + mu
  const double xbar = dd::mean_of(x);

  auto g = c.stream(rng::purpose::noise);
  const double eps_run = eps * p.get_double("epsilon_mislabel");
  estimators::mean_result r;
  if (rule_name == "kv") {
    estimators::kv_mean_options o;
    o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms exactly
    o.target.epsilon = eps_run;
    o.target.delta = delta;
    o.sigma = 1.0;
    o.beta = gamma;
    r = estimators::kv_mean(x, o, g).mean;
  } else {
    estimators::interval_rule rule;
    if (rule_name == "paper") {
      rule = estimators::interval_rule::paper(tau);
    } else if (rule_name == "sharper") {
      rule = estimators::interval_rule::sharper(tau, estimators::tau_prime(1.0, gamma));
    } else if (rule_name == "custom") {
      // A^{κ}_{h} of S1 Fig 2: κ = radius_factor·τ, h = τ or τ′ (bin = "tau" | "tau_prime").
      const std::string bin = p.get_string("bin");
      const double h = bin == "tau" ? tau : estimators::tau_prime(1.0, gamma);
      if (bin != "tau" && bin != "tau_prime")
        core::throw_invalid("dd_privacy_cost", "bin", bin, "must be tau or tau_prime");
      rule = estimators::interval_rule::custom(h, p.get_double("radius_factor") * tau);
    } else {
      core::throw_invalid(
          "dd_privacy_cost", "rule", rule_name, "must be paper, sharper, custom or kv");
    }
    r = estimators::winsorized_mean(
        x, {{eps_run, delta}, rule, mechanisms::noise_kind::research_grade}, g);
  }
  // The theorem's Laplace scale and MSE for the cell's inputs (S1 Alg 4, Lemma 4.1;
  // s1_theory), never the result's: b = 4R_I/(nε) for the rule's interval radius R_I at the
  // claimed ε (the paper's 3τ; sharper τ + 2τ′; custom radius_factor·τ). KV has no such
  // oracle here (NaN).
  const double tau_t = s1_theory::radius(1.0, n, 1, gamma);
  double r_interval = std::numeric_limits<double>::quiet_NaN();
  if (rule_name == "paper") r_interval = 3.0 * tau_t;
  if (rule_name == "sharper") r_interval = tau_t + 2.0 * s1_theory::radius(1.0, 1, 1, gamma);
  if (rule_name == "custom") r_interval = p.get_double("radius_factor") * tau_t;
  const double b = rule_name == "kv" ? std::numeric_limits<double>::quiet_NaN()
                                     : s1_theory::winsorized_laplace_scale(r_interval, n, eps);
  const double n_var_mean =
      s1_theory::design_n_var_mean(p.get_string("design"), n, p.get_double("phi"));
  auto ga = c.stream(rng::purpose::aux);
  const double xi =
      mechanisms::laplace::from_scale(rule_name == "kv" ? r.noise_scale : b).sample(ga);
  const double oracle = s1_theory::winsorized_oracle_mse(n_var_mean / dn, b);
  // The LSI prediction: Cov(X) ⪯ λ_max I gives Var(X̄) ≤ λ_max/n (S1 Cor 2.10).
  const double lsi = s1_theory::winsorized_oracle_mse(info.lambda_max / dn, b);
  const double e = r.estimate - mu;
  const double priv = (r.estimate - xbar) * (r.estimate - xbar);
  return {{"sq_err", e * e},
          {"sq_err_mean", (xbar - mu) * (xbar - mu)},
          {"sq_err_mean_noise", (xbar + xi - mu) * (xbar + xi - mu)},
          {"sq_err_private", priv},
          {"sq_err_private_tau2", priv / (tau * tau)},
          {"oracle_mse", oracle},
          {"sq_err_over_oracle", e * e / oracle},
          {"abs_private_over_scale", std::fabs(r.estimate - xbar) / b},
          {"failed", r.diag.failed ? 1.0 : 0.0},
          {"clipped_fraction", r.diag.clipped_fraction},
          {"epsilon_used", eps},
          {"tau", tau},
          {"lambda_max", info.lambda_max},
          {"n_var_mean", n_var_mean},
          {"n_sq_err", dn * e * e},
          {"n_oracle_mse", dn * oracle},
          {"lsi_bound_mse", lsi},
          {"n_lsi_bound_mse", dn * lsi}};
}

harness::driver make() {
  harness::driver d;
  d.name = "dd_privacy_cost";
  d.version = "4";  // 2: mu_position, panel; 3: oracle from the inputs, epsilon_mislabel
  d.description =
      "Winsorized mean (S1 Alg 4) on Gaussian item-level designs: error, oracle, failure rate";
  d.params = {
      {"n", "sample size, >= 1", std::nullopt, harness::integer_at_least(1)},
      {"design", "iid | ar1 | equi | equi_inv_n | fgn", param_value{std::string("iid")}},
      {"phi", "AR(1) coefficient, equicorrelation c, or Hurst H", param_value{0.0}},
      {"mu", "true mean (S1 leaves it unstated; failure gives m = 0)", param_value{0.0}},
      {"mu_position",
       "given (mu) | edge (the edge of the bin holding mu) | random (mu + U 2h, U ~ U[0,1))",
       param_value{std::string("given")},
       harness::one_of({"given", "edge", "random"})},
      {"panel",
       "label of the figure panel a cell belongs to (no effect on the computation)",
       param_value{std::string("")}},
      {"gamma",
       "gamma of tau = sqrt(2 ln(2n/gamma)) (and tau', KV beta)",
       param_value{0.1},
       harness::open_unit_interval()},
      {"rule",
       "paper (3tau, tau) | sharper (tau+2tau', tau') | custom | kv",
       param_value{std::string("paper")}},
      {"radius_factor",
       "custom rule: interval radius kappa = radius_factor * tau",
       param_value{3.0}},
      {"bin", "custom rule: bin half-width tau | tau_prime", param_value{std::string("tau")}},
  };
  const auto budget = dd::budget_params(std::nullopt);
  d.params.insert(d.params.end(), budget.begin(), budget.end());
  d.params.push_back(dd::epsilon_mislabel_param());
  d.data_keys = {"n", "design", "phi", "mu", "mu_position"};
  d.metric_names = harness::metric_list(
      "sq_err sq_err_mean sq_err_mean_noise sq_err_private sq_err_private_tau2 oracle_mse "
      "sq_err_over_oracle abs_private_over_scale failed clipped_fraction epsilon_used tau "
      "lambda_max n_var_mean "
      "n_sq_err n_oracle_mse lsi_bound_mse n_lsi_bound_mse");
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make()};

}  // namespace
}  // namespace dpx::experiments::dd_privacy_cost
