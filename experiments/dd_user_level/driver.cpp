// Driver `dd_user_level`: user-level mean (S1 §5.1, §7.2 Fig 6; docs/theory/dependent-data.md §4.1,
// §9 (design D6)) and the random-effects location model (S1 Def 5.8, Cor 5.10;
// docs/theory/dependent-data.md §4.2).
//
// Data (keyed on n, T, phi, sigma_u, groups, mu): n users × T times; user u's T-vector is
// mu + U_{g(u)} + ε_u, ε_u a stationary AR(1) with unit marginal variance and coefficient phi
// (phi = 0.95: S1's Σ = diag(Toeplitz 0.95)); U_g ~ N(0, sigma_u²) once per group, `groups`
// balanced groups (sigma_u = 0: no group effect). dpx::data::random_effects.
// Estimator: Algorithm 5 (d = 1) on the user averages, (ε, δ = 1/n²)-uDP. Radius (public):
// radius = "lsi": τ = sqrt(2 ρ⋆ ln(2n/γ)/T) with ρ⋆ = λ_max of one user's T-vector covariance
// (S1 Lemma 5.2, Rem 5.3); "mean_variance": τ = sqrt(2 Var(μ̂_u) ln(2n/γ)) (S1 §5.1, sharper
// Gaussian choice); "iid": τ = sqrt(2 ln(2n/γ)/T), i.e. ρ⋆ = 1 — the radius of an analyst who
// ignores the within-user dependence (the negative control of the φ = 0.95 checks: the claimed
// adaptation of τ to ρ⋆ is absent, so the winsorization clips the user averages); "no_T":
// τ = sqrt(2 ρ⋆ ln(2n/γ)), the radius for T = 1 (control of the 1/T checks: the privacy part no
// longer shrinks with T).
// Sampling: "panel" draws the n × T panel; "user_means" draws the n user averages directly,
// μ̂_u ~ N(μ, Var(μ̂_u)) i.i.d. (exact in law for Gaussian AR(1) users without a group effect,
// because the estimator sees the panel only through the user averages; O(n) instead of O(nT)).
//
// epsilon_mislabel = c (default 1): the estimator runs at c·ε while the cell (and its oracle)
// claims ε — the negative control "noise calibrated at c·ε reported as ε" of the level checks
// (c = √2: only √2·ε-private; c = 2: a sensitivity off by a factor 2). Not a library release.
//
// Metrics: sq_err (A − μ)²; sq_err_mean (non-private grand mean − μ)²; oracle_mse, the theorem's
// MSE for the cell's INPUTS (S1 Cor 5.4; experiments/s1_theory, docs/theory/dependent-data.md
// §11): Var(μ̂_u)/n + 2(12τ⋆/(nε))², τ⋆ = sqrt(2 ρ⋆ ln(2n/γ)/T) with ρ⋆ = λ_max of the AR(1)
// correlation, computed independently of the estimator and of dpx::data (defined for
// sigma_u = 0; NaN otherwise), whatever radius or mislabel the cell uses; sq_err_over_oracle;
// nT_sq_err (n·T·MSE); failed; clipped_fraction; tau; rho_star (dpx::data's, as the estimator
// uses it).
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "../dd_common/dd_common.hpp"
#include "dpx/data/user_models.hpp"
#include "dpx/data/variates.hpp"
#include "dpx/estimators/user_level.hpp"
#include "s1_theory/s1_theory.hpp"

namespace dpx::experiments::dd_user_level {
namespace {

using harness::cell_context;
using harness::metrics;
using harness::param_value;

metrics run(const cell_context& c) {
  const auto& p = c.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const auto T = static_cast<std::size_t>(p.get_int("T"));
  const auto groups = static_cast<std::size_t>(p.get_int("groups"));
  const double dn = static_cast<double>(n), mu = p.get_double("mu");
  const double eps = dd::cell_epsilon(p, dn), delta = dd::cell_delta(p, dn);
  if (groups == 0 || n % groups != 0)
    core::throw_invalid("dd_user_level", "groups", std::to_string(groups), "must divide n");
  data::random_effects_options ro = data::random_effects_options::balanced(groups, n / groups);
  ro.times = T;
  ro.mu = mu;
  ro.sigma_u = p.get_double("sigma_u");
  ro.sigma = 1.0;
  ro.phi = p.get_double("phi");
  // Model constants are cached per thread (they do not depend on the replication).
  thread_local std::map<std::string, std::array<double, 3>> consts;
  const std::string key = std::to_string(n) + "/" + std::to_string(T) + "/" +
                          std::to_string(groups) + "/" + harness::render(p.at("phi")) + "/" +
                          harness::render(p.at("sigma_u"));
  const data::random_effects model(ro);
  auto it = consts.find(key);
  if (it == consts.end())
    it = consts
             .emplace(key,
                      std::array<double, 3>{model.user_log_sobolev(),
                                            model.user_mean_variance(),
                                            model.grand_mean_variance()})
             .first;
  const auto [rho_star, user_var, grand_var] = it->second;

  auto gd = c.stream(rng::purpose::data);
  const std::string sampling = p.get_string("sampling");
  std::vector<double> values;
  std::size_t view_times = T;
  if (sampling == "panel") {
    const data::panel y = model.sample(gd);
    values.assign(y.values().begin(), y.values().end());
  } else if (sampling == "user_means") {
    if (ro.sigma_u != 0.0)
      core::throw_invalid("dd_user_level", "sampling", sampling, "requires sigma_u = 0");
    values.resize(n);
    data::fill_standard_normal(gd, std::span<double>(values));
    const double sd = std::sqrt(user_var);
    for (double& v : values) v = mu + sd * v;
    view_times = 1;  // the panel of user averages: one row per user
  } else {
    core::throw_invalid("dd_user_level", "sampling", sampling, "must be panel or user_means");
  }
  const double gamma = p.get_double("gamma");
  const std::string radius = p.get_string("radius");
  double tau = 0;
  if (radius == "lsi") {
    tau = estimators::tau_user(rho_star, T, n, 1, gamma);
  } else if (radius == "iid") {
    tau = estimators::tau_user(1.0, T, n, 1, gamma);
  } else if (radius == "no_T") {
    tau = estimators::tau_user(rho_star, 1, n, 1, gamma);
  } else if (radius == "mean_variance") {
    tau = estimators::tau_user_mean_variance(user_var, n, 1, gamma);
  } else {
    core::throw_invalid(
        "dd_user_level", "radius", radius, "must be lsi, mean_variance, iid or no_T");
  }
  auto g = c.stream(rng::purpose::noise);
  const estimators::panel_view view{values, n, view_times, 1};
  const double eps_run = eps * p.get_double("epsilon_mislabel");
  estimators::winsorized_mean_hd_options o{{eps_run, delta}, estimators::interval_rule::paper(tau)};
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms exactly
  const auto r = estimators::user_mean(view, o, g);
  const double e = r.estimate[0] - mu;
  const double gm = dd::mean_of(values);
  // The theorem's MSE for the cell's inputs (S1 Cor 5.4 at the LSI radius; s1_theory), never
  // from the result: a control (radius, mislabelled ε) is measured against the same curve.
  // Cached per thread and cell inputs (the eigenvalue bisection is O(T) per step).
  thread_local std::map<std::tuple<std::size_t, std::size_t, double, double, double>, double>
      oracles;
  double oracle = std::numeric_limits<double>::quiet_NaN();
  if (ro.sigma_u == 0.0) {
    auto [o_it, fresh] = oracles.try_emplace({n, T, ro.phi, eps, gamma}, 0.0);
    if (fresh) o_it->second = s1_theory::user_level_oracle({n, T, ro.phi, eps, gamma}).mse;
    oracle = o_it->second;
  }
  return {{"sq_err", e * e},
          {"sq_err_mean", (gm - mu) * (gm - mu)},
          {"oracle_mse", oracle},
          {"sq_err_over_oracle", e * e / oracle},
          {"nT_sq_err", dn * static_cast<double>(T) * e * e},
          {"failed", r.diag[0].failed ? 1.0 : 0.0},
          {"clipped_fraction", r.diag[0].clipped_fraction},
          {"tau", tau},
          {"rho_star", rho_star},
          {"epsilon_used", eps}};
}

harness::driver make() {
  harness::driver d;
  d.name = "dd_user_level";
  d.version = "3";  // 3: oracle from the cell's inputs (s1_theory), epsilon_mislabel
  d.description =
      "User-level winsorized mean (S1 Alg 5 on user averages), AR(1) users, random effects";
  d.params = {
      {"n", "number of users, >= 1", std::nullopt, harness::integer_at_least(1)},
      {"T", "observations per user, >= 1", std::nullopt},
      {"phi", "within-user AR(1) coefficient (0.95: S1 Fig 6)", param_value{0.95}},
      {"sigma_u", "group-effect sd sigma_U (0: no random effect)", param_value{0.0}},
      {"groups", "number of balanced groups (must divide n)", param_value{std::int64_t{1}}},
      {"mu", "true mean", param_value{0.0}},
      {"gamma", "gamma of the radius", param_value{0.1}, harness::open_unit_interval()},
      {"radius",
       "lsi (S1 Lemma 5.2) | mean_variance (Gaussian Var(user mean)) | iid (rho* = 1: "
       "dependence ignored, negative control) | no_T (tau of T = 1: no 1/T, negative control)",
       param_value{std::string("lsi")}},
      {"panel",
       "label of the figure panel a cell belongs to (left, right)",
       param_value{std::string("left")}},
      {"sampling",
       "panel (draw n x T) | user_means (draw the user averages, exact for Gaussian users "
       "without group effect)",
       param_value{std::string("panel")}},
  };
  const auto budget = dd::budget_params(std::nullopt);
  d.params.insert(d.params.end(), budget.begin(), budget.end());
  d.params.push_back(dd::epsilon_mislabel_param());
  d.data_keys = {"n", "T", "phi", "sigma_u", "groups", "mu"};
  d.metric_names = harness::metric_list(
      "sq_err sq_err_mean oracle_mse sq_err_over_oracle nT_sq_err failed clipped_fraction tau "
      "rho_star epsilon_used");
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make()};

}  // namespace
}  // namespace dpx::experiments::dd_user_level
