// Driver `dd_random_effects`: the random-effects location model (S1 Def 5.8, Lemma 5.9,
// Cor 5.10, Ex 5.12; docs/theory/dependent-data.md §4.2, §9 (design D6) "random effects").
//
// Data (keyed on n, T, phi, sigma_u, grouping, group_size, mu): Y_{g,u,t} = μ + U_g + ε_{u,t},
// U_g ~ N(0, σ_U²) once per group, ε_u a stationary AR(1) over t (unit marginal variance,
// coefficient phi), users independent (dpx::data::random_effects). Grouping: "fixed_size" —
// n/group_size groups of group_size users (n_{g⋆} fixed: Cor 5.10's rate ∝ 1/n) — or "halves" —
// two groups of n/2 users (n_{g⋆} = n/2: the MSE plateaus at σ_U²/2, Ex 5.12).
// Estimator: random_effects_mean (Algorithm 4 on the user averages μ̂_u), (ε, δ = 1/n²)-uDP.
// Radius (public, from the model, never the data): "mean_variance" τ = sqrt(2 Var(μ̂_u) ln(2n/γ)),
// Var(μ̂_u) = σ_U² + 1ᵀΣ_u1/T² (tau_random_effects, docs/theory/dependent-data.md §4.1/§4.2 [R]);
// "lsi" τ = sqrt(2 ρ⋆ ln(2n/γ)/T) with ρ⋆ = λ_max(σ_U² 11ᵀ + Σ_u) (S1 Lemma 5.2, Rem 5.3).
//
// Metrics: sq_err (A − μ)²; sq_err_mean (grand mean − μ)²; oracle_mse = Var(grand mean) + 2b²
// (exact when nothing is clipped: Var(grand mean) = [σ_U² Σ_g n_g² T² + n 1ᵀΣ_u1]/(nT)²);
// sq_err_over_oracle; plateau σ_U² Σ_g n_g²/n² (the part that does not shrink with n);
// rho_joint (λ_max of all nT values: Lemma 5.9's ρ); failed; clipped_fraction; tau.
// Negative control: sensitivity_n (noise calibrated to a fixed number of users, see run()).
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "../dd_common/dd_common.hpp"
#include "dpx/data/user_models.hpp"
#include "dpx/estimators/detail/kernels.hpp"
#include "dpx/estimators/user_level.hpp"
#include "s1_theory/s1_theory.hpp"

namespace dpx::experiments::dd_random_effects {
namespace {

using harness::cell_context;
using harness::metrics;
using harness::param_value;

metrics run(const cell_context& c) {
  const auto& p = c.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const auto T = static_cast<std::size_t>(p.get_int("T"));
  const double dn = static_cast<double>(n), mu = p.get_double("mu");
  const double eps = dd::cell_epsilon(p, dn), delta = dd::cell_delta(p, dn);
  const std::string grouping = p.get_string("grouping");
  data::random_effects_options ro;
  if (grouping == "fixed_size") {
    const auto gs = static_cast<std::size_t>(p.get_int("group_size"));
    if (gs == 0 || n % gs != 0)
      core::throw_invalid("dd_random_effects", "group_size", std::to_string(gs), "must divide n");
    ro = data::random_effects_options::balanced(n / gs, gs);
  } else if (grouping == "halves") {
    ro.group_sizes = {n / 2, n - n / 2};
  } else {
    core::throw_invalid("dd_random_effects", "grouping", grouping, "must be fixed_size or halves");
  }
  ro.times = T;
  ro.mu = mu;
  ro.sigma_u = p.get_double("sigma_u");
  ro.sigma = 1.0;
  ro.phi = p.get_double("phi");
  const data::random_effects model(ro);
  // Model constants per thread (independent of the replication).
  thread_local std::map<std::string, std::array<double, 4>> consts;
  const std::string key = std::to_string(n) + "/" + std::to_string(T) + "/" + grouping + "/" +
                          harness::render(p.at("group_size")) + "/" + harness::render(p.at("phi")) +
                          "/" + harness::render(p.at("sigma_u"));
  auto it = consts.find(key);
  if (it == consts.end()) {
    double plateau = 0;
    for (std::size_t g : ro.group_sizes) plateau += static_cast<double>(g) * static_cast<double>(g);
    plateau *= ro.sigma_u * ro.sigma_u / (dn * dn);
    it = consts
             .emplace(key,
                      std::array<double, 4>{model.user_log_sobolev(),
                                            model.user_mean_variance(),
                                            model.grand_mean_variance(),
                                            plateau})
             .first;
  }
  const auto [rho_star, user_var, grand_var, plateau] = it->second;

  const double gamma = p.get_double("gamma");
  const std::string radius = p.get_string("radius");
  double tau = 0;
  if (radius == "mean_variance") {
    tau = estimators::tau_user_mean_variance(user_var, n, 1, gamma);
  } else if (radius == "lsi") {
    tau = estimators::tau_user(rho_star, T, n, 1, gamma);
  } else {
    core::throw_invalid("dd_random_effects", "radius", radius, "must be mean_variance or lsi");
  }

  auto gd = c.stream(rng::purpose::data);
  const data::panel y = model.sample(gd);
  auto g = c.stream(rng::purpose::noise);
  const estimators::panel_view view{y.values(), n, T, 1};
  const auto r = estimators::random_effects_mean(
      view,
      {{eps, delta}, estimators::interval_rule::paper(tau), mechanisms::noise_kind::research_grade},
      g);
  // sensitivity_n = k > 0: the negative control of the oracle check — the Laplace draw rescaled
  // by n/k (noise calibrated to k users, so it no longer shrinks like 1/n; dd_common.hpp). The
  // oracle keeps the algorithm's scale.
  double estimate = r.estimate;
  if (const double f = dd::sensitivity_n_factor(p, dn); f != 1.0) {
    const std::vector<double> means = estimators::user_averages(view);
    const double clipped = estimators::detail::clipped_sum(means, r.range.lo, r.range.hi).sum / dn;
    estimate = clipped + (r.estimate - clipped) * f;
  }
  const double e = estimate - mu;
  const double gm = dd::mean_of(y.values()) - mu;
  // The theorem's MSE for the cell's inputs (s1_theory; the Gaussian radius of the user
  // averages), never from the result; NaN for radius = "lsi" (no independent ρ⋆ of σ_U²11ᵀ + Σ_u).
  const double oracle =
      radius == "mean_variance"
          ? s1_theory::random_effects_oracle(ro.group_sizes, T, ro.phi, ro.sigma_u, eps, gamma).mse
          : std::numeric_limits<double>::quiet_NaN();
  return {{"sq_err", e * e},
          {"sq_err_mean", gm * gm},
          {"oracle_mse", oracle},
          {"sq_err_over_oracle", e * e / oracle},
          {"plateau", plateau},
          {"rho_star", rho_star},
          {"failed", r.diag.failed ? 1.0 : 0.0},
          {"clipped_fraction", r.diag.clipped_fraction},
          {"tau", tau},
          {"epsilon_used", eps}};
}

harness::driver make() {
  harness::driver d;
  d.name = "dd_random_effects";
  d.version = "3";  // 3: oracle from the cell's inputs (s1_theory)
  d.description =
      "Random-effects location model (S1 Def 5.8, Cor 5.10): user-level winsorized mean";
  d.params = {
      {"n", "number of users, >= 2", std::nullopt, harness::integer_at_least(2)},
      {"T", "observations per user, >= 1", param_value{std::int64_t{10}}},
      {"grouping", "fixed_size | halves", param_value{std::string("fixed_size")}},
      {"group_size", "users per group when grouping = fixed_size", param_value{std::int64_t{10}}},
      {"sigma_u", "group-effect sd sigma_U", param_value{1.0}},
      {"phi", "within-user AR(1) coefficient", param_value{0.5}},
      {"mu", "true mean", param_value{0.0}},
      {"gamma", "gamma of the radius", param_value{0.1}, harness::open_unit_interval()},
      {"radius",
       "mean_variance (docs/theory/dependent-data.md §4.1 [R]) | lsi (S1 Lemma 5.2)",
       param_value{std::string("mean_variance")}},
      dd::sensitivity_n_param(),
  };
  const auto budget = dd::budget_params(param_value{1.0});
  d.params.insert(d.params.end(), budget.begin(), budget.end());
  d.data_keys = {"n", "T", "phi", "sigma_u", "grouping", "group_size", "mu"};
  d.metric_names = harness::metric_list(
      "sq_err sq_err_mean oracle_mse sq_err_over_oracle plateau rho_star failed clipped_fraction "
      "tau epsilon_used");
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make()};

}  // namespace
}  // namespace dpx::experiments::dd_random_effects
