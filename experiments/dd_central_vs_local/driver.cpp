// Driver `dd_central_vs_local`: central (S1 Algorithm 4) against local (S1 Algorithm 8) private
// means (S1 §7.1.4, Fig 4; docs/theory/dependent-data.md §5, §9 (design D2)).
//
// Data: i.i.d. N(mu, 1), keyed on (n, mu). ε = epsilon (fixed), epsilon/√n, or epsilon·n^{−ω}
// (power, design D2). Central: (ε, 1/n²)-DP, rule A^{3τ}_τ. Local: ε-LDP two-round protocol,
// public bound B = `bound`, histogram stage ε/2 (RR at ε/4 per bit; `literal_budget` gives the
// printed ε/8). τ = sqrt(2 ln(2n/γ)) in both.
//
// Metrics: sq_err (A − μ)²; sq_err_tau2 (A − μ)²/τ² (the total error per τ², free of the ln n in
// τ²: S1 Fig 4's flatness is checked on it); sq_err_private (A − X̄)²; sq_err_private_tau2 (A −
// X̄)²/τ² — when nothing is clipped exactly 2(12/(nε))² centrally and 2(12/ε)²/n locally, so its
// slope in n is 2ω − 2 (central) and 2ω − 1 (local); oracle_mse 1/n + 2b² (central) or 1/n + 2b²/n
// (local), b from the cell's inputs (experiments/s1_theory); sq_err_over_oracle;
// abs_private_over_scale |A − X̄|/b (central: the Laplace draw, when nothing is clipped, over the
// theory's scale; 1 in expectation, relative sd 1; NaN locally); failed (central
// only); clipped_fraction; epsilon_used. Negative controls: sensitivity_n and noise_epsilon rescale
// the noise draw (see run()).
#include <cmath>
#include <limits>
#include <string>

#include "../dd_common/dd_common.hpp"
#include "dpx/estimators/central.hpp"
#include "dpx/estimators/detail/kernels.hpp"
#include "dpx/estimators/local.hpp"
#include "s1_theory/s1_theory.hpp"

namespace dpx::experiments::dd_central_vs_local {
namespace {

using harness::cell_context;
using harness::metrics;
using harness::param_value;

metrics run(const cell_context& c) {
  const auto& p = c.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const double dn = static_cast<double>(n), mu = p.get_double("mu");
  const double eps = dd::cell_epsilon(p, dn);
  auto gd = c.stream(rng::purpose::data);
  const auto x = dd::gaussian_design("iid", n, 0.0, mu, gd, nullptr);
  const double xbar = dd::mean_of(x);
  const double tau = estimators::tau_subgaussian(1.0, n, p.get_double("gamma"));
  const auto rule = estimators::interval_rule::paper(tau);
  auto g = c.stream(rng::purpose::noise);
  const std::string model = p.get_string("model");
  estimators::mean_result r;
  if (model == "central") {
    r = estimators::winsorized_mean(
        x, {{eps, 1.0 / (dn * dn)}, rule, mechanisms::noise_kind::research_grade}, g);
  } else if (model == "local") {
    estimators::local_mean_options o;
    o.noise = mechanisms::noise_kind::research_grade;  // S1 Algorithm 8 exactly
    o.epsilon = eps;
    o.rule = rule;
    o.bound = p.get_double("bound");
    o.literal_budget = p.get_bool("literal_budget");
    r = estimators::local_mean(x, o, g);
  } else {
    core::throw_invalid("dd_central_vs_local", "model", model, "must be central or local");
  }
  // Negative controls (docs/presets.md, "Controls"): the release's noise draw rescaled so that
  // its variance is that for sensitivity_n records (central sd ∝ 1/n; local: an average of n
  // per-user draws, sd ∝ 1/√n) and/or for budget noise_epsilon (sd ∝ 1/ε) instead of the cell's
  // — noise that does not shrink as the theorem says. Not a release of the library.
  double factor = dd::sensitivity_n_factor(p, dn, model == "central" ? 1.0 : 0.5);
  const double noise_eps = p.get_double("noise_epsilon");
  if (noise_eps > 0) factor *= eps / noise_eps;
  if (factor != 1.0) {
    const double clipped = estimators::detail::clipped_sum(x, r.range.lo, r.range.hi).sum / dn;
    r.estimate = clipped + (r.estimate - clipped) * factor;
  }
  const bool central = model == "central";
  const double e = r.estimate - mu, d = r.estimate - xbar;
  // The theorem's MSE for the cell's inputs (S1 Lemma 4.1 / Thm 6.4; s1_theory), never the
  // release's own scale: 1/n + 2b² (central, b = 12τ/(nε)) or 1/n + 2b²/n (local, per-user
  // b = 12τ/ε); the histogram stage does not enter (literal_budget changes only it).
  const double r_interval = 3.0 * s1_theory::radius(1.0, n, 1, p.get_double("gamma"));
  const double b = model == "central" ? s1_theory::winsorized_laplace_scale(r_interval, n, eps)
                                      : s1_theory::local_laplace_scale(r_interval, eps);
  const double oracle = 1.0 / dn + 2.0 * b * b / (model == "central" ? 1.0 : dn);
  return {{"sq_err", e * e},
          {"sq_err_private", d * d},
          {"sq_err_private_tau2", d * d / (tau * tau)},
          {"sq_err_tau2", e * e / (tau * tau)},
          {"oracle_mse", oracle},
          {"sq_err_over_oracle", e * e / oracle},
          {"abs_private_over_scale",
           central ? std::fabs(d) / b : std::numeric_limits<double>::quiet_NaN()},
          {"failed", r.diag.failed ? 1.0 : 0.0},
          {"clipped_fraction", r.diag.clipped_fraction},
          {"epsilon_used", eps}};
}

harness::driver make() {
  harness::driver d;
  d.name = "dd_central_vs_local";
  d.version = "5";  // 4: oracle from the cell's inputs (s1_theory)
  d.description = "Central (S1 Alg 4) vs local (S1 Alg 8) winsorized means on i.i.d. N(mu, 1)";
  d.params = {
      {"n", "sample size (users), >= 1", std::nullopt, harness::integer_at_least(1)},
      {"model", "central | local", std::nullopt},
      {"bound", "public bound B on |mu| (local model)", param_value{10.0}},
      {"literal_budget",
       "local: RR at eps/8 per bit (printed chain, docs/theory/dependent-data.md §10 item 5)",
       param_value{false}},
      {"mu", "true mean", param_value{0.0}},
      {"gamma",
       "gamma of tau = sqrt(2 ln(2n/gamma))",
       param_value{0.1},
       harness::open_unit_interval()},
      dd::sensitivity_n_param(),
      {"noise_epsilon",
       "0 = noise for the cell's eps; > 0: noise calibrated to that eps (negative control)",
       param_value{0.0},
       harness::non_negative()},
  };
  const auto budget = dd::budget_params(param_value{1.0}, false);
  d.params.insert(d.params.end(), budget.begin(), budget.end());
  d.data_keys = {"n", "mu"};
  d.metric_names = harness::metric_list(
      "sq_err sq_err_private sq_err_private_tau2 sq_err_tau2 oracle_mse sq_err_over_oracle "
      "abs_private_over_scale "
      "failed clipped_fraction epsilon_used");
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make()};

}  // namespace
}  // namespace dpx::experiments::dd_central_vs_local
