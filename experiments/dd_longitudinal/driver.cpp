// Driver `dd_longitudinal`: private longitudinal linear regression (S1 Def 5.13, Lemmas
// 5.14–5.15, Cor 5.16; docs/theory/dependent-data.md §4.3, §8 item 3, §9 (design D7)).
//
// Data (keyed on n, T, phi, covariate_phi): n users, Y_u = X_u β + ε_u with X_u's columns
// (1, t/T, z_{u,t}), z a unit-variance AR(1) over t (covariate_phi), ε_u a stationary AR(1) over
// t (unit marginal variance, coefficient phi), β = (1, 1, 1) (dpx::data::longitudinal, p = 3).
// Estimator: longitudinal_regression — per-user OLS or weighted (GLS with the public Σ_u) β̂_u,
// then Algorithm 5 on β̂ ∈ R^{n×3} (basic composition: 8 ln(1/ρ_c) > 3 with ρ_c = δ), (ε, δ =
// 1/n²)-uDP.
// Radius (PUBLIC, from the model, never the data):
//   "exact" [R] (the preset's): τ = sqrt(2 v⋆ ln(2pn/γ)) with v⋆ = max_j Var(β̂_{u,j}) of the
//                chosen per-user estimator, exact for the design (experiments/s1_theory/
//                s1_longitudinal.hpp) — the Gaussian "sharper" radius of
//                docs/theory/dependent-data.md §4.1 transposed to β̂_u;
//   "pilot" [R]: τ = sqrt(2 v⋆ ln(2pn/γ)) with v⋆ = max_j Var(β̂_{u,j}) of the chosen per-user
//                estimator, estimated once from 4000 users simulated from the MODEL with a fixed
//                stream (base seed, model key; replication 0, purpose aux) — the Gaussian
//                "sharper" radius of docs/theory/dependent-data.md §4.1 transposed to β̂_u;
//   "lemma_5_15": τ = sqrt(2 (θ_hi/θ_lo²) σ² ln(2pn/γ)/T) [V] with σ² = λ_max(Σ_u) and θ the
//                extreme eigenvalues of the POPULATION design moment E X_uᵀX_u/T (z's Gram → 1).
//
// Metrics: sq_err ‖A − β‖²; sq_err_nonprivate ‖β̄ − β‖² (β̄ the average of the β̂_u: the
// non-private divide-and-conquer estimate); sq_err_private_tau2 ‖A − β̄_clip‖²/τ² (the Laplace
// part: exactly 3·2(2κ/(n ε_m))²/τ² ∝ n⁻² when nothing is clipped); oracle_mse tr Cov(β̂_u)/n + 2p
// b² from the cell's inputs (s1_theory: exact Cov(β̂_u), b = 36τ/(nε) at the cell's radius);
// sq_err_over_oracle; nonprivate_over_oracle ‖β̄ − β‖²/(tr Cov(β̂_u)/n); failed_coordinates;
// clipped_fraction (max over coordinates); tau; singular_users. Negative controls: sensitivity_n
// (noise for a fixed number of users), shared_effect (an error component common to all users) and
// epsilon_mislabel (noise at c·ε reported as ε), see run().
// Lemma 5.15 coverage (Roth & Avella-Medina 2025: with probability ≥ 1 − γ every user's
// coefficient vector is within τ of β in sup norm, τ = sqrt(2 (θ_hi/θ_lo²) σ² ln(2pn/γ)/T), a union
// bound over the pn coordinates): lemma_miss_over_gamma = 1{max_u ‖β̂_u − β‖_∞ > τ_cov}/γ (its mean
// is the miss probability over γ), lemma_sup_over_tau = max_u ‖β̂_u − β‖_∞/τ_cov, tau_lemma = τ_cov.
// The oracle uses only the cell's inputs: β from the generator, τ_cov from
// estimators::tau_regression with the population θ of the design and σ² = λ_max(Σ_u) (the
// lemma_5_15 radius above), never the estimator's output. coverage_radius = "user_mean" is its
// negative control: Lemma 5.2's user-mean radius sqrt(2 σ² ln(2pn/γ)/T), the design factor
// θ_hi/θ_lo² dropped.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "../dd_common/dd_common.hpp"
#include "dpx/core/hash.hpp"
#include "dpx/core/normal.hpp"
#include "dpx/data/user_models.hpp"
#include "dpx/estimators/common.hpp"
#include "dpx/estimators/user_level.hpp"
#include "s1_theory/s1_longitudinal.hpp"

namespace dpx::experiments::dd_longitudinal {
namespace {

using harness::cell_context;
using harness::metrics;
using harness::param_value;

constexpr std::size_t kP = 3;
constexpr std::size_t kPilotUsers = 4000;

struct model_constants {
  double v_star = 0;      ///< max_j Var(β̂_{u,j}) (pilot)
  double trace_cov = 0;   ///< tr Cov(β̂_u) (pilot)
  double tau_lemma2 = 0;  ///< Lemma 5.15 τ² · T / ln(2pn/γ) / 2, i.e. (θ_hi/θ_lo²) σ²
};

data::longitudinal make_model(std::size_t n, std::size_t T, double phi, double cphi) {
  data::longitudinal_options o;
  o.users = n;
  o.times = T;
  o.p = kP;
  o.sigma = 1.0;
  o.phi = phi;
  o.covariate_phi = cphi;
  return data::longitudinal(o);
}

model_constants constants_for(const cell_context& c,
                              std::size_t T,
                              double phi,
                              double cphi,
                              estimators::regression_weighting w,
                              const std::vector<double>& cov,
                              bool with_pilot) {
  model_constants k;
  const auto [lo, hi] = dd::longitudinal_population_theta(T);
  k.tau_lemma2 = (hi / (lo * lo)) * make_model(kPilotUsers, T, phi, cphi).log_sobolev();
  if (!with_pilot) return k;
  const data::longitudinal pilot_model = make_model(kPilotUsers, T, phi, cphi);
  const std::string key = "dd_longitudinal pilot|" + std::to_string(T) + "|" +
                          harness::render(param_value{phi}) + "|" +
                          harness::render(param_value{cphi}) + "|" +
                          (w == estimators::regression_weighting::ols ? "ols" : "weighted");
  auto g = rng::stream(c.base_seed, core::stable_hash(key), 0, rng::purpose::aux);
  const auto s = pilot_model.sample(g);
  std::size_t singular = 0;
  const estimators::panel_view xv{s.x.values(), kPilotUsers, T, kP};
  const auto b = estimators::detail::per_user_coefficients(xv, s.y.values(), w, cov, &singular);
  for (std::size_t j = 0; j < kP; ++j) {
    double m = 0, q = 0;
    for (std::size_t u = 0; u < kPilotUsers; ++u) m += b[u * kP + j];
    m /= static_cast<double>(kPilotUsers);
    for (std::size_t u = 0; u < kPilotUsers; ++u) q += (b[u * kP + j] - m) * (b[u * kP + j] - m);
    q /= static_cast<double>(kPilotUsers - 1);
    k.v_star = std::max(k.v_star, q);
    k.trace_cov += q;
  }
  return k;
}

metrics run(const cell_context& c) {
  const auto& p = c.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const auto T = static_cast<std::size_t>(p.get_int("T"));
  const double dn = static_cast<double>(n), phi = p.get_double("phi");
  const double cphi = p.get_double("covariate_phi");
  const double eps = dd::cell_epsilon(p, dn), delta = dd::cell_delta(p, dn);
  const std::string ws = p.get_string("weighting");
  estimators::regression_weighting w = estimators::regression_weighting::ols;
  if (ws == "weighted") {
    w = estimators::regression_weighting::weighted;
  } else if (ws != "ols") {
    core::throw_invalid("dd_longitudinal", "weighting", ws, "must be ols or weighted");
  }
  const data::longitudinal model = make_model(n, T, phi, cphi);
  // Σ_u is public (the model's): the weighted estimator's input.
  thread_local std::map<std::string, std::vector<double>> covs;
  const std::string ckey = std::to_string(T) + "/" + harness::render(p.at("phi"));
  auto cit = covs.find(ckey);
  if (cit == covs.end()) {
    const auto a = model.error_covariance();
    cit = covs.emplace(ckey, std::vector<double>(a.begin(), a.end())).first;
  }
  const std::vector<double>& cov = cit->second;
  thread_local std::map<std::string, model_constants> consts;
  const std::string radius = p.get_string("radius");
  const std::string key =
      ckey + "/" + harness::render(p.at("covariate_phi")) + "/" + ws + "/" + radius;
  auto it = consts.find(key);
  if (it == consts.end())
    it = consts.emplace(key, constants_for(c, T, phi, cphi, w, cov, radius == "pilot")).first;
  const model_constants k = it->second;
  // The theorem's prediction for the cell's inputs (s1_theory: the exact Cov(β̂_u) of the design,
  // never the pilot or the result's noise scale).
  thread_local std::map<std::string, s1_theory::longitudinal_prediction> oracles;
  auto [o_it, fresh] =
      oracles.try_emplace(key + "/" + std::to_string(n) + "/" + harness::render(p.at("epsilon")) +
                          "/" + harness::render(p.at("gamma")));
  if (fresh)
    o_it->second = s1_theory::longitudinal_oracle(
        {{T, phi, cphi, w == estimators::regression_weighting::weighted},
         n,
         eps,
         p.get_double("gamma")});
  const s1_theory::longitudinal_prediction& pred = o_it->second;

  const double gamma = p.get_double("gamma");
  const double lg = std::log(2.0 * static_cast<double>(kP) * dn / gamma);
  double tau = 0;
  if (radius == "exact") {
    tau = std::sqrt(2.0 * pred.v_star * lg);
  } else if (radius == "pilot") {
    tau = std::sqrt(2.0 * k.v_star * lg);
  } else if (radius == "lemma_5_15") {
    tau = std::sqrt(2.0 * k.tau_lemma2 * lg / static_cast<double>(T));
  } else {
    core::throw_invalid("dd_longitudinal", "radius", radius, "must be exact, pilot or lemma_5_15");
  }

  auto gd = c.stream(rng::purpose::data);
  auto s = model.sample(gd);
  // shared_effect = s > 0: the negative control of the statistical-rate checks — an error
  // component s·W, W ~ N(0, 1), common to every user and time (users no longer independent, as
  // Cor 5.16 assumes). The intercept absorbs it in every per-user fit, so the divide-and-conquer
  // error keeps s² whatever n is.
  if (const double shared = p.get_double("shared_effect"); shared > 0) {
    auto gw = c.stream(rng::purpose::aux);
    const double w = shared * rng::standard_normal(gw);
    for (double& v : s.y.values()) v += w;
  }
  const estimators::panel_view xv{s.x.values(), n, T, kP};
  estimators::longitudinal_options o;
  o.base.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms exactly
  o.base.target.epsilon = eps * p.get_double("epsilon_mislabel");
  o.base.target.delta = delta;
  o.base.rule = estimators::interval_rule::paper(tau);
  o.weighting = w;
  if (w == estimators::regression_weighting::weighted) o.error_covariance = cov;
  auto g = c.stream(rng::purpose::noise);
  const auto r = estimators::longitudinal_regression(xv, s.y.values(), o, g);

  std::size_t singular = 0;
  const double sens_factor = dd::sensitivity_n_factor(p, dn);
  const auto bu = estimators::detail::per_user_coefficients(xv, s.y.values(), w, cov, &singular);
  const auto& beta = model.beta();
  double se = 0, sn = 0, sp = 0, clipped = 0;
  std::size_t failed = 0;
  std::vector<double> col(n);
  for (std::size_t j = 0; j < kP; ++j) {
    estimators::detail::copy_column(bu, kP, j, col);
    const double bar = dd::mean_of(col);
    const auto cs = estimators::detail::clipped_sum(col, r.fit.ranges[j].lo, r.fit.ranges[j].hi);
    // sensitivity_n > 0: the negative control of tracks_oracle — the Laplace draw rescaled by
    // n / sensitivity_n (noise calibrated to a fixed sample size, so it no longer shrinks like
    // 1/n). Not a release of the library; it exists only to show that the check can fail.
    const double xi = (r.fit.estimate[j] - cs.sum / dn) * sens_factor;
    const double est = cs.sum / dn + xi;
    se += (est - beta[j]) * (est - beta[j]);
    sn += (bar - beta[j]) * (bar - beta[j]);
    sp += xi * xi;
    clipped = std::max(clipped, r.fit.diag[j].clipped_fraction);
    failed += r.fit.diag[j].failed ? 1 : 0;
  }
  // Lemma 5.15's event: all n users' per-user coefficients within τ_cov of β in sup norm.
  const auto [th_lo, th_hi] = dd::longitudinal_population_theta(T);
  const double sigma2 = model.log_sobolev();  // λ_max(Σ_u)
  const std::string cr = p.get_string("coverage_radius");
  double tau_cov = 0;
  if (cr == "lemma_5_15") {
    tau_cov = estimators::tau_regression(th_lo, th_hi, sigma2, kP, n, T, gamma);
  } else if (cr == "user_mean") {
    tau_cov = estimators::tau_regression(1.0, 1.0, sigma2, kP, n, T, gamma);
  } else {
    core::throw_invalid(
        "dd_longitudinal", "coverage_radius", cr, "must be lemma_5_15 or user_mean");
  }
  double sup_dev = 0;
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t j = 0; j < kP; ++j)
      sup_dev = std::max(sup_dev, std::abs(bu[u * kP + j] - beta[j]));
  const double miss = sup_dev > tau_cov ? 1.0 : 0.0;
  const double oracle = radius == "lemma_5_15" ? pred.mse_lemma : pred.mse;
  const double stat_oracle = pred.trace_cov / dn;
  return {{"sq_err", se},
          {"sq_err_nonprivate", sn},
          {"nonprivate_over_oracle", sn / stat_oracle},
          {"sq_err_private_tau2", sp / (tau * tau)},
          {"oracle_mse", oracle},
          {"sq_err_over_oracle", se / oracle},
          {"failed_coordinates", static_cast<double>(failed)},
          {"clipped_fraction", clipped},
          {"tau", tau},
          {"singular_users", static_cast<double>(singular)},
          {"epsilon_used", eps},
          {"lemma_miss_over_gamma", miss / gamma},
          {"lemma_sup_over_tau", sup_dev / tau_cov},
          {"tau_lemma", tau_cov}};
}

harness::driver make() {
  harness::driver d;
  d.name = "dd_longitudinal";
  d.version = "5";  // 5: Lemma 5.15 coverage metrics; 4: exact radius and oracle from the inputs
  d.description =
      "Private longitudinal regression (S1 Def 5.13, Cor 5.16): per-user OLS/GLS, then Alg 5";
  d.params = {
      {"n", "number of users, >= 1", std::nullopt, harness::integer_at_least(1)},
      {"T", "observations per user, >= 3", std::nullopt},
      {"weighting",
       "ols | weighted (GLS with the public Sigma_u)",
       param_value{std::string("ols")}},
      {"phi", "AR(1) coefficient of the errors over t", param_value{0.5}},
      {"covariate_phi", "AR(1) coefficient of the covariate z over t", param_value{0.5}},
      {"gamma", "gamma of the radius", param_value{0.1}, harness::open_unit_interval()},
      {"radius",
       "exact (R, the exact max Var(beta_u,j)) | pilot (R, estimated) | lemma_5_15 (V)",
       param_value{std::string("exact")}},
      dd::sensitivity_n_param(),
      {"shared_effect",
       "sd of an error component common to all users (0; > 0: negative control)",
       param_value{0.0},
       harness::non_negative()},
      {"coverage_radius",
       "radius of the Lemma 5.15 coverage metrics: lemma_5_15 | user_mean (negative control: "
       "the design factor theta_hi/theta_lo^2 dropped)",
       param_value{std::string("lemma_5_15")}},
  };
  const auto budget = dd::budget_params(param_value{1.0});
  d.params.insert(d.params.end(), budget.begin(), budget.end());
  d.params.push_back(dd::epsilon_mislabel_param());
  d.data_keys = {"n", "T", "phi", "covariate_phi"};
  d.metric_names = harness::metric_list(
      "sq_err sq_err_nonprivate nonprivate_over_oracle sq_err_private_tau2 oracle_mse "
      "sq_err_over_oracle "
      "failed_coordinates clipped_fraction tau singular_users epsilon_used lemma_miss_over_gamma "
      "lemma_sup_over_tau tau_lemma");
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make()};

}  // namespace
}  // namespace dpx::experiments::dd_longitudinal
