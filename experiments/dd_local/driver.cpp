// Driver `dd_local`: the local-model user-level claims of Roth & Avella-Medina (2025) §6
// (docs/theory/dependent-data.md §5.3; docs/experiments/dd_local.md).
//
// model = "mean" (Thm 6.5, Cor 6.6, 6.8, 6.9): the random-effects panel Y_{g,u,t} = μ + U_g +
// ε_{u,t} (dpx::data::random_effects; σ_U = 0 gives independent users, the user-level mean of Thm
// 6.5), n users in groups of `group_size`, T observations each, ε_u a stationary AR(1) over t
// (unit marginal variance, coefficient phi). Estimator: local_random_effects_mean (= the local
// user-level mean, d = 1), ε-LDP per user, public bound B = `bound`. Radius (public, from the
// model): Thm 6.5's τ = sqrt(2ρ ln(2dTn²ε²)/T^a) (γ = 1/(Tnε²), local_user_gamma; a =
// tau_time_power, 1 in the theorem) with ρ per `radius`:
//   "joint"    — Lemma 5.9's ρ = max_g σ_U² n_g T + λ_max(Σ_u) (what Cor 6.9 plugs in; for σ_U = 0
//                the user-level ρ = λ_max(Σ_u) of Thm 6.5);
//   "per_user" — Rem 5.3's per-user constant λ_max(σ_U² 11ᵀ + Σ_u) (the group size n_g drops out);
//   "no_groups"— λ_max(Σ_u): the group effect ignored (a negative control).
// Theory curve (rate): the privacy term of Thm 6.5 / Cor 6.6, 6.8, 6.9 (d = 1) with its log kept
// exactly, rate = ρ ln(2Tn²ε²)/(T n ε²), ρ = Lemma 5.9's joint constant, so that
// sq_err_over_rate is flat in n, T, ε and n_g when the estimator attains the corollaries. The
// statistical term ρ/(nT) is left out: its constant is not the privacy term's (the MSE's privacy
// part is 576 ρ ln(·)/(Tnε²), ≥ 99% of the MSE here), so a unit-constant sum of the two is not
// the error's shape (docs/experiments/dd_local.md, 2026-11-26).
//
// model = "regression" (Cor 6.10): dpx::data::longitudinal, p = 3 columns (1, t/T, z_t; z i.i.d.
// N(0, 1)), β = (1, 1, 1), errors a stationary AR(1) over t (phi); local_longitudinal_regression
// (per-user OLS, then the protocol per coordinate, basic composition ε/3), radius Lemma 5.15's
// τ² = 2(θ_hi/θ_lo²)σ² ln(2pn/γ)/T with γ = 1/(Tnε²), θ of the population design moment and
// σ² = λ_max(Σ_u); rate = Cor 6.10's privacy term p²θ_hiσ² ln(2pTn²ε²)/(θ_lo² T n ε²) (with basic
// composition the MSE carries p³ instead of p², a constant at p = 3).
//
// model = "nonparametric" (Cor 6.7): Y_i = f(i/n) + ε_i, f = sin(2πx), ε a stationary AR(1)
// (dpx::data::nonparametric); local_priestley_chao at x0 with the bandwidth of Cor 6.7
// (local_priestley_chao_bandwidth; bandwidth_rule = "central" uses Cor 4.11's, a control).
// rate = λ σ_max/(√n ε), λ = (b τ)²/σ_max² the Lemma 4.9 constant at the claimed (local) b (it
// holds the ln(2n/γ) that Cor 6.7's ⪅ hides): the square of Cor 6.7's privacy term sqrt(σ_max/(√n
// ε)); the bias term (σ_max²/n)^{1/3} is ~0 at x0 = 0.5 (f'' = 0 there) and below 3% of the MSE at
// these n.
//
// Metrics: sq_err (A − truth)²; rate; sq_err_over_rate; oracle_mse (the clipping-free MSE of the
// claimed cell from its inputs, experiments/s1_theory/s1_local.hpp: Var(grand mean) + 2b²/n,
// b = 12τ/ε, for "mean"; the privacy part p·2b²/n, b = 36τ/ε, for "regression"; not computed for
// "nonparametric": 0); sq_err_over_oracle; sq_err_private (A − clipped mean)²; clipped_fraction;
// midpoint_miss (|m̂ − truth| > 2τ); tau; bins.
// Negative controls (not releases of the library; they exist to show a check can fail):
// epsilon_mislabel = c (the protocol at c·ε, the cell and its oracle claim ε), noise_epsilon = e
// (the protocol at ε = e whatever the cell's ε), noise = "off" (the users' Laplace draws removed;
// not used as a control: it removes the noise) or "central" (their average rescaled by 1/√n: the
// central model's 2(12τ/(nε))²), tau_time_power = 0 (radius without the 1/T of Thm 6.5),
// radius = "per_user" / "no_groups", bandwidth_rule = "central".
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "../dd_common/dd_common.hpp"
#include "dpx/data/nonparametric.hpp"
#include "dpx/data/user_models.hpp"
#include "dpx/estimators/common.hpp"
#include "dpx/estimators/detail/kernels.hpp"
#include "dpx/estimators/local.hpp"
#include "dpx/estimators/local_regression.hpp"
#include "s1_theory/s1_local.hpp"

namespace dpx::experiments::dd_local {
namespace {

using harness::cell_context;
using harness::metrics;
using harness::param_value;

constexpr const char* kName = "dd_local";

// The users' noise under the `noise` control: factor applied to (estimate − clipped mean).
double noise_factor(const std::string& noise, double n) {
  if (noise == "local") return 1.0;
  if (noise == "off") return 0.0;
  if (noise == "central") return 1.0 / std::sqrt(n);
  core::throw_invalid(kName, "noise", noise, "must be local, off or central");
}

// The ε the users' protocol runs at: the cell's ε, times epsilon_mislabel (noise at c·ε reported
// as ε), or noise_epsilon > 0 whatever the cell claims (noise that does not follow ε). Negative
// controls only: the radius, the ledger and the oracle keep the cell's ε.
double run_epsilon(const harness::param_map& p, double eps) {
  const double fixed = p.get_double("noise_epsilon");
  return (fixed > 0 ? fixed : eps) * p.get_double("epsilon_mislabel");
}

metrics run_mean(const cell_context& c) {
  const auto& p = c.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const auto T = static_cast<std::size_t>(p.get_int("T"));
  const auto gs = static_cast<std::size_t>(p.get_int("group_size"));
  const double dn = static_cast<double>(n), dT = static_cast<double>(T), mu = p.get_double("mu");
  const double eps = dd::cell_epsilon(p, dn);
  const double eps_run = run_epsilon(p, eps);
  if (n % gs != 0) core::throw_invalid(kName, "group_size", std::to_string(gs), "must divide n");
  data::random_effects_options ro = data::random_effects_options::balanced(n / gs, gs);
  ro.times = T;
  ro.mu = mu;
  ro.sigma_u = p.get_double("sigma_u");
  ro.sigma = 1.0;
  ro.phi = p.get_double("phi");
  const data::random_effects model(ro);
  // The radius's constants per thread (the library's, as the estimator is run): Lemma 5.9's
  // joint ρ, Rem 5.3's per-user ρ, λ_max(Σ_u).
  thread_local std::map<std::string, std::array<double, 3>> consts;
  const std::string key = std::to_string(n) + "/" + std::to_string(T) + "/" + std::to_string(gs) +
                          "/" + harness::render(p.at("phi")) + "/" +
                          harness::render(p.at("sigma_u"));
  auto it = consts.find(key);
  if (it == consts.end()) {
    const double joint = model.log_sobolev_bound();
    const double su2 = ro.sigma_u * ro.sigma_u;
    it = consts
             .emplace(
                 key,
                 std::array<double, 3>{
                     joint, model.user_log_sobolev(), joint - su2 * static_cast<double>(gs) * dT})
             .first;
  }
  const auto [rho_joint, rho_user, rho_noise] = it->second;
  const std::string radius = p.get_string("radius");
  double rho = rho_joint;
  if (radius == "per_user") {
    rho = rho_user;
  } else if (radius == "no_groups") {
    rho = rho_noise;
  } else if (radius != "joint") {
    core::throw_invalid(kName, "radius", radius, "must be joint, per_user or no_groups");
  }
  const double gamma = estimators::local_user_gamma(T, n, eps);
  // Thm 6.5: τ² = 2ρ ln(2dn/γ)/T = 2ρ ln(2Tn²ε²)/T; tau_time_power a ≠ 1 gives 2ρ ln(·)/T^a.
  const double a = p.get_double("tau_time_power");
  const double tau = estimators::tau_user(rho, T, n, 1, gamma) * std::sqrt(std::pow(dT, 1.0 - a));

  estimators::local_mean_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // S1 Algorithm 8 exactly
  o.epsilon = eps_run;
  o.rule = estimators::interval_rule::paper(tau);
  o.bound = p.get_double("bound");
  auto gd = c.stream(rng::purpose::data);
  const data::panel y = model.sample(gd);
  auto g = c.stream(rng::purpose::noise);
  const estimators::panel_view view{y.values(), n, T, 1};
  const auto r = estimators::local_random_effects_mean(view, o, g);
  const std::vector<double> avg = estimators::user_averages(view);
  const double clipped = estimators::detail::clipped_sum(avg, r.range.lo, r.range.hi).sum / dn;
  const double estimate =
      clipped + (r.estimate - clipped) * noise_factor(p.get_string("noise"), dn);

  const double e = estimate - mu, q = estimate - clipped;
  // The theorem's curve and MSE for the cell's INPUTS (s1_theory, never the result's noise scale
  // nor dpx::data's constants): a control is measured against the claimed cell's prediction.
  thread_local std::map<std::string, s1_theory::local_mean_prediction> oracles;
  auto [o_it, fresh] = oracles.try_emplace(key + "/" + harness::render(p.at("epsilon")));
  if (fresh) o_it->second = s1_theory::local_mean_oracle({n, T, gs, ro.phi, ro.sigma_u, eps});
  const double rate = o_it->second.rate, oracle = o_it->second.mse;
  return {{"sq_err", e * e},
          {"rate", rate},
          {"sq_err_over_rate", e * e / rate},
          {"oracle_mse", oracle},
          {"sq_err_over_oracle", e * e / oracle},
          {"sq_err_private", q * q},
          {"clipped_fraction", r.diag.clipped_fraction},
          {"midpoint_miss", std::abs(r.midpoint - mu) > 2.0 * tau ? 1.0 : 0.0},
          {"tau", tau},
          {"bins", static_cast<double>(r.diag.released_bins)}};
}

metrics run_regression(const cell_context& c) {
  const auto& p = c.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const auto T = static_cast<std::size_t>(p.get_int("T"));
  constexpr std::size_t kP = 3;
  const double dn = static_cast<double>(n), dT = static_cast<double>(T);
  const double eps = dd::cell_epsilon(p, dn);
  const double eps_run = run_epsilon(p, eps);
  data::longitudinal_options lo;
  lo.users = n;
  lo.times = T;
  lo.p = kP;
  lo.sigma = 1.0;
  lo.phi = p.get_double("phi");
  const data::longitudinal model(lo);
  thread_local std::map<std::string, double> sigma2s;  // λ_max(Σ_u), per (T, phi)
  const std::string key = std::to_string(T) + "/" + harness::render(p.at("phi"));
  auto it = sigma2s.find(key);
  if (it == sigma2s.end()) it = sigma2s.emplace(key, model.log_sobolev()).first;
  const double sigma2 = it->second;
  const auto [theta_lo, theta_hi] = dd::longitudinal_population_theta(T);
  // Lemma 5.15's radius with Thm 6.5's γ = 1/(Tnε²): τ² = 2(θ_hi/θ_lo²)σ² ln(2pTn²ε²)/T^a.
  const double gamma = estimators::local_user_gamma(T, n, eps);
  const double a = p.get_double("tau_time_power");
  const double tau = estimators::tau_regression(theta_lo, theta_hi, sigma2, kP, n, T, gamma) *
                     std::sqrt(std::pow(dT, 1.0 - a));
  estimators::local_longitudinal_options o;
  o.base.noise = mechanisms::noise_kind::research_grade;
  o.base.epsilon = eps_run;
  o.base.rule = estimators::interval_rule::paper(tau);
  o.base.bound = p.get_double("bound");
  auto gd = c.stream(rng::purpose::data);
  const auto s = model.sample(gd);
  const estimators::panel_view xv{s.x.values(), n, T, kP};
  auto g = c.stream(rng::purpose::noise);
  const auto r = estimators::local_longitudinal_regression(xv, s.y.values(), o, g);
  std::size_t singular = 0;
  const auto bu = estimators::detail::per_user_coefficients(
      xv, s.y.values(), estimators::regression_weighting::ols, {}, &singular);
  const double f = noise_factor(p.get_string("noise"), dn);
  double se = 0, sp = 0, clipped = 0, miss = 0;
  std::vector<double> col(n);
  for (std::size_t j = 0; j < kP; ++j) {
    estimators::detail::copy_column(bu, kP, j, col);
    const double cm =
        estimators::detail::clipped_sum(col, r.fit.ranges[j].lo, r.fit.ranges[j].hi).sum / dn;
    const double est = cm + (r.fit.estimate[j] - cm) * f;
    se += (est - model.beta()[j]) * (est - model.beta()[j]);
    sp += (est - cm) * (est - cm);
    clipped = std::max(clipped, r.fit.diag[j].clipped_fraction);
    if (std::abs(r.fit.ranges[j].midpoint() - model.beta()[j]) > 2.0 * tau) miss = 1.0;
  }
  // Cor 6.10's privacy term with the log kept exactly, p² θ_hi σ² ln(2pTn²ε²)/(θ_lo² T n ε²), and
  // the privacy MSE p·2b²/n of the protocol at ε/p, from the cell's inputs (s1_theory).
  thread_local std::map<std::string, s1_theory::local_regression_prediction> oracles;
  auto [o_it, fresh] =
      oracles.try_emplace(std::to_string(n) + "/" + key + "/" + harness::render(p.at("epsilon")));
  if (fresh) o_it->second = s1_theory::local_regression_oracle({n, T, lo.phi, eps});
  const double rate = o_it->second.rate, oracle = o_it->second.privacy_mse;
  return {{"sq_err", se},
          {"rate", rate},
          {"sq_err_over_rate", se / rate},
          {"oracle_mse", oracle},
          {"sq_err_over_oracle", se / oracle},
          {"sq_err_private", sp},
          {"clipped_fraction", clipped},
          {"midpoint_miss", miss},
          {"tau", tau},
          {"bins", static_cast<double>(r.fit.diag[0].released_bins)}};
}

metrics run_nonparametric(const cell_context& c) {
  const auto& p = c.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const double dn = static_cast<double>(n), phi = p.get_double("phi"), x0 = p.get_double("x0");
  const double eps = dd::cell_epsilon(p, dn);
  data::nonparametric_options mo;  // f(x) = sin(2πx): L_f = 2π, ‖f‖_∞ = 1
  mo.noise_sd = 1.0;
  mo.phi = phi;
  const data::nonparametric model(mo);
  estimators::local_priestley_chao_options o;
  o.noise = mechanisms::noise_kind::research_grade;
  o.epsilon = run_epsilon(p, eps);
  o.lipschitz = mo.f.lipschitz();
  o.sup_norm = mo.f.sup_norm();
  o.noise_variance_max = (1.0 + std::abs(phi)) / (1.0 - std::abs(phi));  // spectral bound (§8)
  o.gamma = 0.1;
  const std::string rule = p.get_string("bandwidth_rule");
  if (rule == "local") {
    o.bandwidth = estimators::local_priestley_chao_bandwidth(o.noise_variance_max, n, eps);
  } else if (rule == "central") {
    o.bandwidth = estimators::priestley_chao_bandwidth(o.noise_variance_max, n, eps);
  } else {
    core::throw_invalid(kName, "bandwidth_rule", rule, "must be local or central");
  }
  auto gd = c.stream(rng::purpose::data);
  const data::regression_sample s = model.sample(n, gd);
  const std::span<const double> y(s.y.data(), n);
  auto g = c.stream(rng::purpose::noise);
  const double pts[1] = {x0};
  const auto r = estimators::local_priestley_chao(y, pts, o, g);
  std::vector<double> z(n);
  estimators::detail::priestley_chao_terms(y, x0, o.bandwidth, o.kernel, z);
  const double clipped =
      estimators::detail::clipped_sum(z, r.ranges[0].lo, r.ranges[0].hi).sum / dn;
  const double estimate =
      clipped + (r.estimate[0] - clipped) * noise_factor(p.get_string("noise"), dn);
  const double truth = mo.f(x0);
  const double e = estimate - truth, q = estimate - clipped;
  // Cor 6.7's curve for the claimed cell (local bandwidth, Lemma 4.9's radius) from its inputs
  // (s1_theory), never the result's τ: the central-bandwidth control is measured against it.
  const double rate =
      s1_theory::local_priestley_chao_oracle({n, phi, eps, o.lipschitz, o.sup_norm, o.gamma}).rate;
  return {{"sq_err", e * e},
          {"rate", rate},
          {"sq_err_over_rate", e * e / rate},
          {"oracle_mse", 0.0},
          {"sq_err_over_oracle", 0.0},
          {"sq_err_private", q * q},
          {"clipped_fraction", r.diag[0].clipped_fraction},
          {"midpoint_miss", std::abs(r.ranges[0].midpoint() - truth) > 2.0 * r.tau ? 1.0 : 0.0},
          {"tau", r.tau},
          {"bins", static_cast<double>(r.diag[0].released_bins)}};
}

metrics run(const cell_context& c) {
  const std::string model = c.params.get_string("model");
  if (model == "mean") return run_mean(c);
  if (model == "regression") return run_regression(c);
  if (model == "nonparametric") return run_nonparametric(c);
  core::throw_invalid(kName, "model", model, "must be mean, regression or nonparametric");
}

harness::driver make() {
  harness::driver d;
  d.name = kName;
  // 3: rate and oracle from the cell's inputs (s1_theory), the regression's oracle,
  // epsilon_mislabel, noise_epsilon.
  d.version = "3";
  d.description =
      "Local model, user level (S1 Thm 6.5, Cor 6.6-6.10): local user mean, random effects, "
      "longitudinal regression, Priestley-Chao";
  d.params = {
      {"model",
       "mean | regression | nonparametric",
       param_value{std::string("mean")},
       harness::one_of({"mean", "regression", "nonparametric"})},
      {"sweep",
       "label of the cell's sweep (no effect on the computation)",
       param_value{std::string("")}},
      {"n", "users, >= 2", std::nullopt, harness::integer_at_least(2)},
      {"T",
       "observations per user, >= 1",
       param_value{std::int64_t{1}},
       harness::integer_at_least(1)},
      {"group_size",
       "users per group n_g (must divide n)",
       param_value{std::int64_t{1}},
       harness::integer_at_least(1)},
      {"sigma_u",
       "group-effect sd sigma_U (0: independent users)",
       param_value{0.0},
       harness::non_negative()},
      {"phi",
       "AR(1) coefficient of the noise over t (mean) or i (nonparametric)",
       param_value{0.5}},
      {"mu", "true mean (mean model)", param_value{1.0}},
      {"bound", "public bound B on |mu| (mean model)", param_value{10.0}, harness::positive()},
      {"x0", "evaluation point (nonparametric)", param_value{0.5}},
      {"radius",
       "joint (Lemma 5.9, Cor 6.9) | per_user (Rem 5.3) | no_groups (control)",
       param_value{std::string("joint")},
       harness::one_of({"joint", "per_user", "no_groups"})},
      {"tau_time_power",
       "a in tau^2 = 2 rho ln(2Tn^2eps^2)/T^a (Thm 6.5: 1; 0 is a control)",
       param_value{1.0},
       harness::non_negative()},
      {"noise",
       "local | off | central (controls: the users' noise removed, or scaled to the central "
       "model's)",
       param_value{std::string("local")},
       harness::one_of({"local", "off", "central"})},
      {"bandwidth_rule",
       "local (Cor 6.7) | central (Cor 4.11, a control)",
       param_value{std::string("local")},
       harness::one_of({"local", "central"})},
  };
  const auto budget = dd::budget_params(param_value{1.0}, false);
  d.params.insert(d.params.end(), budget.begin(), budget.end());
  d.params.push_back(dd::epsilon_mislabel_param());
  d.params.push_back({"noise_epsilon",
                      "0 = the cell's eps; e > 0: the users' protocol runs at eps = e whatever the "
                      "cell claims (negative control)",
                      param_value{0.0},
                      harness::non_negative()});
  d.data_keys = {"model", "n", "T", "group_size", "sigma_u", "phi", "mu"};
  d.metric_names = {"sq_err",
                    "rate",
                    "sq_err_over_rate",
                    "oracle_mse",
                    "sq_err_over_oracle",
                    "sq_err_private",
                    "clipped_fraction",
                    "midpoint_miss",
                    "tau",
                    "bins"};
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make()};

}  // namespace
}  // namespace dpx::experiments::dd_local
