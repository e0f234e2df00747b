// Driver `dd_central_mean`: the central-model mean estimators of S1 (Roth & Avella-Medina 2025)
// whose claims no other driver measures (docs/theory/dependent-data.md §3.1, §3.4, §3.5, §4.1,
// §7; docs/experiments/dd_central_mean.md, dd_user_split.md, dd_kv_baseline.md,
// dd_failure_rate.md). One row per replication; `estimator` picks the study:
//
//   alg5        Algorithm 5 on X ∈ R^{n×d}, rows i.i.d. N(mu 1_d, I_d) (Thm 4.2): per coordinate
//               Algorithm 4 at ε′ = ε/sqrt(8 d ln(1/ρ_c)), δ/d (ρ_c = δ, composition =
//               "advanced"; "basic" is the negative control of the d-check: ε/d gives d³),
//               τ = sqrt(2 ln(2nd/γ)) (Cor 3.6 over the n·d entries).
//   split       the sample-split estimator (eq. (1), Thm 4.3, Cor D.7) on the same data: the
//               first n/2 rows give the midpoints, the other n_h = n − n/2 are clipped and
//               averaged; τ² = 2 ln(4 n_h) (the paper's τ² ≍ ρ ln(4n), ρ = 1).
//   user_split  the user-level sample split (Cor 5.6): n users, each a stationary Gaussian
//               AR(1) T-vector (unit marginal variance, coefficient phi: S1 Fig 6's Toeplitz
//               Σ_u for phi = 0.95) with mean mu. The estimator sees a user only through its
//               average, so the n averages are drawn directly, i.i.d. N(mu, v_T) with
//               v_T = 1ᵀΣ_u1/T² (exact in law; O(n) for any T). Radius τ² = 2 ρ⋆ ln(4 n_h)/T,
//               ρ⋆ = (1 + |phi|)/(1 − |phi|) ≥ λ_max(Σ_u) (docs/theory/dependent-data.md §8: a
//               valid LSI constant); radius_T = "one" uses the T = 1 radius (negative control:
//               the privacy part stops shrinking with T).
//   kv          Karwa–Vadhan with known σ (kv_sigma told to the estimator; the data have σ = 1),
//               β = γ, i.i.d. N(mu, 1), d = 1.
//   projection  the stable histogram / midpoint step alone (Algorithm 3, rule A^{3τ}_τ,
//               τ = sqrt(2 ln(2n/γ))) at its own ε (n_eps > 0: ε = n_eps/n), i.i.d. N(mu, 1).
//
// ε = epsilon (or n_eps/n), δ = 1/n² (delta_rule n2) or 1/n (delta_rule n); δ and ε use the n of
// the cell (all records). Noise: research_grade (S1's mechanisms exactly).
//
// Metrics (NaN where a metric does not apply to the estimator):
//   sq_err            ‖A − mu‖²
//   sq_err_mean       ‖X̄ − mu‖², X̄ the plain mean of the rows the estimator averages
//   sq_err_private    ‖A − X̄‖²                          the privacy part alone
//   private_shape     ‖A − X̄‖²/(τ² ln(1/ρ_c))           Thm 4.2's privacy term without its
//                     τ² ln(1/ρ_c) factor: ∝ d²/(n²ε²) (advanced composition, nothing clipped)
//   oracle_mse        d·Var(X̄) + 2 d b², b the paper's Laplace scale 12τ/(n_m ε′) with ε′ from
//                     advanced composition (d > 1) and the T-radius (user_split), or KV's scale at
//                     the data's σ = 1 — whatever the cell's composition, radius_T or kv_sigma,
//                     so that a negative control is measured against the
//                     theory's curve. Computed from the cell's INPUTS by
//                     experiments/s1_theory/s1_central (never from the estimator's result)
//   sq_err_over_oracle
//   cor_bound         the two leading terms of Cor D.7 / Cor 5.6 (S1.fix.grouping):
//                     d ρ ln(4 n_h) (1/n_h + d ln(2/δ)/(n_h² ε²)), ρ = 1 (split) or ρ⋆/T
//                     (user_split)
//   sq_err_over_bound sq_err / cor_bound
//   failed            1 if some coordinate's histogram zeroed every bin (m̂ = 0)
//   failure_bound     Lemma D.10 at the histogram's (ε_h, δ_h) of the cell's composition (from
//                     the inputs, s1_central) and row count m:
//                     (e^{ε_h/2}/δ_h) e^{−m ε_h/bound_exponent} + 2 e^{−m/128}, times the number
//                     of histograms (union bound); bound_exponent = 8 is the lemma's
//   failed_over_bound failed / failure_bound (its mean is the failure rate over the bound)
//   clipped_fraction, tau, noise_scale, epsilon_coord (ε′), epsilon_used (ε), n_eps_used (n ε)
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "../dd_common/dd_common.hpp"
#include "dpx/data/variates.hpp"
#include "dpx/estimators/central.hpp"
#include "dpx/estimators/user_level.hpp"
#include "s1_theory/s1_central.hpp"
#include "s1_theory/s1_theory.hpp"

namespace dpx::experiments::dd_central_mean {
namespace {

using harness::cell_context;
using harness::metrics;
using harness::param_value;

constexpr const char* kFn = "dd_central_mean";
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

namespace st = s1_theory;

/// i.i.d. N(mu, 1) values.
std::vector<double> normal_values(std::size_t count, double mu, rng::philox4x32& g) {
  std::vector<double> x(count);
  data::fill_standard_normal(g, std::span<double>(x));
  for (double& v : x) v += mu;
  return x;
}

/// Column j of the rows [a, b) of an n×d row-major matrix.
std::vector<double> column(
    const std::vector<double>& x, std::size_t d, std::size_t j, std::size_t a, std::size_t b) {
  std::vector<double> c;
  c.reserve(b - a);
  for (std::size_t i = a; i < b; ++i) c.push_back(x[i * d + j]);
  return c;
}

metrics run(const cell_context& c) {
  const auto& p = c.params;
  const std::string est = p.get_string("estimator");
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const auto d = static_cast<std::size_t>(p.get_int("d"));
  const auto T = static_cast<std::size_t>(p.get_int("T"));
  const double dn = static_cast<double>(n), dd_ = static_cast<double>(d);
  const double mu = p.get_double("mu"), gamma = p.get_double("gamma");
  const double n_eps = p.get_double("n_eps");
  const double eps = n_eps > 0.0 ? n_eps / dn : dd::cell_epsilon(p, dn);
  const double delta = dd::cell_delta(p, dn);
  const double phi = p.get_double("phi");
  if (!(std::fabs(phi) < 1.0)) core::throw_invalid(kFn, "phi", phi, "must be in (-1, 1)");
  if (d != 1 && (est == "user_split" || est == "kv" || est == "projection"))
    core::throw_invalid(kFn, "d", std::to_string(d), "must be 1 for " + est);
  if (n < 2) core::throw_invalid(kFn, "n", std::to_string(n), "must be >= 2");
  const double sens = dd::sensitivity_n_factor(p, dn);
  const double bexp = p.get_double("bound_exponent");
  auto gd = c.stream(rng::purpose::data);
  auto g = c.stream(rng::purpose::noise);

  // Every estimator fills these; NaN stays where a metric does not apply.
  std::vector<double> estimate;  // A (after the sensitivity_n control)
  std::vector<double> xbar;      // plain mean of the averaged rows, per coordinate
  double tau = nan, b = nan, eps_coord = eps;
  double rho_c = delta, bound = nan, fail_bound = nan, clipped = 0.0;
  const std::string composition = p.get_string("composition");
  // The theorem's prediction from the cell's inputs (s1_central): oracle MSE and Cor D.7 bound.
  st::central_mean_prediction theory;
  if (est != "projection") {
    st::central_mean_cell cell;
    cell.estimator = est;
    cell.n = n;
    cell.d = d;
    cell.T = T;
    cell.phi = phi;
    cell.epsilon = eps;
    cell.delta = delta;
    cell.gamma = gamma;
    theory = st::central_mean_oracle(cell);
  }
  bool failed = false;
  std::size_t mean_rows = n;

  if (est == "alg5" || est == "split" || est == "user_split") {
    std::vector<double> x;
    std::size_t hist_rows = n;
    double rho = 1.0;  // LSI constant of one averaged row's coordinates
    if (est == "user_split") {
      // User averages drawn directly: exact in law (see the file comment).
      const double var_row = st::ar1_mean_variance(phi, T);
      x = normal_values(n, 0.0, gd);
      const double sd = std::sqrt(var_row);
      for (double& v : x) v = mu + sd * v;
      const double rho_star = (1.0 + std::fabs(phi)) / (1.0 - std::fabs(phi));
      const std::string rt = p.get_string("radius_T");
      if (rt != "T" && rt != "one") core::throw_invalid(kFn, "radius_T", rt, "must be T or one");
      rho = rho_star / static_cast<double>(T);
      const double rho_radius = rt == "T" ? rho : rho_star;
      hist_rows = n / 2;
      mean_rows = n - hist_rows;
      tau = estimators::tau_subgaussian(rho_radius, mean_rows, 0.5);  // sqrt(2 ρ ln(4 n_h))
    } else {
      x = normal_values(n * d, mu, gd);
      if (est == "split") {
        hist_rows = n / 2;
        mean_rows = n - hist_rows;
        tau = estimators::tau_subgaussian(1.0, mean_rows, 0.5);
      } else {
        tau = estimators::tau_subgaussian(1.0, n * d, gamma);
      }
    }
    estimators::winsorized_mean_hd_options o{{eps, delta}, estimators::interval_rule::paper(tau)};
    o.choice = estimators::parse_composition_choice(composition, kFn, "composition");
    o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms exactly
    estimators::mean_hd_result r;
    if (est == "alg5") {
      r = estimators::winsorized_mean_hd(x, d, o, g);
    } else if (est == "split") {
      r = estimators::sample_split_mean(x, d, {o, false}, g);
    } else {
      r = estimators::user_sample_split_mean({x, n, 1, 1}, {o, false}, g);
    }
    rho_c = o.slack();
    eps_coord = r.budget.epsilon;
    b = r.noise_scale;
    // Each coordinate's histogram runs at ε′/2 (Algorithm 4's and eq. (1)'s split), δ/d, ε′ of
    // the cell's composition (computed from the inputs).
    fail_bound =
        dd_ * st::histogram_failure_bound(0.5 * st::coordinate_epsilon(eps, d, rho_c, composition),
                                          delta / dd_,
                                          static_cast<double>(hist_rows),
                                          bexp);
    failed = r.failed_coordinates > 0;
    const double nh = static_cast<double>(mean_rows);
    bound = theory.cor_bound;
    for (std::size_t j = 0; j < d; ++j) {
      const auto col = column(x, d, j, n - mean_rows, n);
      const double m = dd::mean_of(col);
      const double cm =
          estimators::detail::clipped_sum(col, r.ranges[j].lo, r.ranges[j].hi).sum / nh;
      xbar.push_back(m);
      estimate.push_back(cm + (r.estimate[j] - cm) * sens);
      clipped += r.diag[j].clipped_fraction / dd_;
    }
  } else if (est == "kv" || est == "projection") {
    const auto x = normal_values(n, mu, gd);
    if (est == "kv") {
      estimators::kv_mean_options o;
      o.noise = mechanisms::noise_kind::research_grade;
      o.target = {eps, delta};
      o.sigma = p.get_double("kv_sigma");
      o.beta = gamma;
      const auto r = estimators::kv_mean(x, o, g).mean;
      const double m = dd::mean_of(x);
      const double cm = estimators::detail::clipped_sum(x, r.range.lo, r.range.hi).sum / dn;
      xbar.push_back(m);
      estimate.push_back(cm + (r.estimate - cm) * sens);
      b = r.noise_scale;
      tau = 0.5 * o.sigma;  // KV's bin half-width
      failed = r.diag.failed;
      clipped = r.diag.clipped_fraction;
      fail_bound = st::histogram_failure_bound(0.5 * eps, delta, dn, bexp);
    } else {
      tau = estimators::tau_subgaussian(1.0, n, gamma);
      const auto r = estimators::projection_interval(x,
                                                     estimators::interval_rule::paper(tau),
                                                     eps,
                                                     delta,
                                                     g,
                                                     mechanisms::noise_kind::research_grade);
      failed = r.diag.failed;
      fail_bound = st::histogram_failure_bound(eps, delta, dn, bexp);
      estimate.push_back(r.midpoint);
      xbar.push_back(dd::mean_of(x));
    }
  } else {
    core::throw_invalid(kFn, "estimator", est, "must be alg5, split, user_split, kv or projection");
  }

  double se = 0.0, sm = 0.0, sp = 0.0;
  for (std::size_t j = 0; j < estimate.size(); ++j) {
    se += (estimate[j] - mu) * (estimate[j] - mu);
    sm += (xbar[j] - mu) * (xbar[j] - mu);
    sp += (estimate[j] - xbar[j]) * (estimate[j] - xbar[j]);
  }
  const bool mean_release = est != "projection";
  const double oracle = mean_release ? theory.mse : nan;
  const double fo = failed ? 1.0 : 0.0;
  return {{"sq_err", se},
          {"sq_err_mean", mean_release ? sm : nan},
          {"sq_err_private", mean_release ? sp : nan},
          {"private_shape", mean_release ? sp / (tau * tau * std::log(1.0 / rho_c)) : nan},
          {"oracle_mse", oracle},
          {"sq_err_over_oracle", se / oracle},
          {"cor_bound", bound},
          {"sq_err_over_bound", se / bound},
          {"failed", fo},
          {"failure_bound", fail_bound},
          {"failed_over_bound", fo / fail_bound},
          {"clipped_fraction", mean_release ? clipped : nan},
          {"tau", tau},
          {"noise_scale", b},
          {"epsilon_coord", eps_coord},
          {"epsilon_used", eps},
          {"n_eps_used", dn * eps}};
}

harness::driver make() {
  harness::driver d;
  d.name = kFn;
  d.version = "2";
  d.description =
      "S1 central means: Alg 5 (d > 1), sample split (item and user level), KV baseline, "
      "stable-histogram failure";
  d.params = {
      {"estimator",
       "alg5 | split | user_split | kv | projection",
       std::nullopt,
       harness::one_of({"alg5", "split", "user_split", "kv", "projection"})},
      {"n",
       "records (rows, or users for user_split), >= 2",
       std::nullopt,
       harness::integer_at_least(2)},
      {"d",
       "dimension (1 for user_split, kv, projection)",
       param_value{std::int64_t{1}},
       harness::integer_at_least(1)},
      {"T",
       "observations per user (user_split)",
       param_value{std::int64_t{1}},
       harness::integer_at_least(1)},
      {"phi",
       "within-user AR(1) coefficient (user_split; 0.95: S1 Fig 6)",
       param_value{0.95},
       harness::finite()},
      {"mu", "true mean of every coordinate", param_value{0.5}, harness::finite()},
      {"gamma",
       "gamma of tau = sqrt(2 ln(2nd/gamma)) (alg5, projection) and KV's beta",
       param_value{0.1},
       harness::open_unit_interval()},
      {"composition",
       "advanced (S1 Alg 5) | basic (eps/d: negative control) | automatic (the larger eps')",
       param_value{std::string("advanced")},
       harness::one_of({"advanced", "basic", "automatic"})},
      {"radius_T",
       "user_split radius: T (tau^2 = 2 rho* ln(4 n_h)/T) | one (the T = 1 radius: negative "
       "control)",
       param_value{std::string("T")},
       harness::one_of({"T", "one"})},
      {"kv_sigma",
       "sigma told to Karwa-Vadhan (data sigma = 1; other values: negative control)",
       param_value{1.0},
       harness::positive()},
      {"n_eps",
       "> 0: eps = n_eps/n (projection: the histogram's own budget); 0: epsilon",
       param_value{0.0},
       harness::non_negative()},
      {"bound_exponent",
       "c of Lemma D.10's e^{-n eps/c} (8: the lemma; smaller: a sharper, false bound, "
       "negative control)",
       param_value{8.0},
       harness::positive()},
      dd::sensitivity_n_param(),
  };
  const auto budget = dd::budget_params(param_value{0.5});
  d.params.insert(d.params.end(), budget.begin(), budget.end());
  d.data_keys = {"n", "d", "T", "phi", "mu"};
  d.metric_names = {"sq_err",
                    "sq_err_mean",
                    "sq_err_private",
                    "private_shape",
                    "oracle_mse",
                    "sq_err_over_oracle",
                    "cor_bound",
                    "sq_err_over_bound",
                    "failed",
                    "failure_bound",
                    "failed_over_bound",
                    "clipped_fraction",
                    "tau",
                    "noise_scale",
                    "epsilon_coord",
                    "epsilon_used",
                    "n_eps_used"};
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make()};

}  // namespace
}  // namespace dpx::experiments::dd_central_mean
