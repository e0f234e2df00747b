// dpx.estimators (compiled part): the result types and the estimator functions of
// dpx::estimators on numpy input (a C-contiguous float64 array is read in place; other inputs
// are converted once). Central model: projection interval, winsorized mean (1-D and d-D),
// sample-split mean, Karwa-Vadhan baselines; local model: projection interval, mean (1-D, d-D,
// user level); dependent data: user-level and random-effects means, longitudinal regression,
// Priestley-Chao regression, plug-in variance estimators. Every default is the C++ options
// struct's own. Radius helpers and the budget split: estimators_support.cpp.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "dpx/core/error.hpp"
#include "dpx/estimators/estimators.hpp"
#include "dpx/mechanisms/noise_kind.hpp"
#include "estimators_common.hpp"

namespace dpx::python {
namespace {

namespace est = dpx::estimators;

const est::local_mean_options local_defaults{};
const est::winsorized_mean_hd_options hd_defaults{};
const est::kv_mean_options kv_defaults{};
const est::kv_unknown_sigma_options kvu_defaults{};

// The keyword arguments shared by the estimators that take an interval rule.
#define DPX_RULE_ARGS py::kw_only(), py::arg("tau_prime") = py::none(), py::arg("rule") = py::none()
#define DPX_COMPOSITION_ARGS \
  py::arg("composition_slack") = 0.0, py::arg("composition") = "automatic"
// The noise kind of every estimator with a noise choice (the C++ options' `noise`, float_safe by
// default; docs/estimators.md, "Noise kind").
#define DPX_NOISE_ARG py::arg("noise") = "float_safe", DPX_DIAGNOSTICS_ARG
// The output contract's switch (dpx/core/output_contract.hpp): the raw-data diagnostics are
// withheld (None) unless it is True.
#define DPX_DIAGNOSTICS_ARG py::arg("nonprivate_diagnostics") = false
// The (epsilon, delta, tau, rng, tau_prime, rule) signature and keywords of every central mean
// binding; with (composition_slack, composition) those of the Algorithm 5 based ones
// (winsorized_mean_hd, sample_split_mean, user_mean, user_mean_ragged, longitudinal_regression),
// and their options.
#define DPX_MEAN_PARAMS                                            \
  double epsilon, double delta, std::optional<double> tau, Gen &g, \
      std::optional<double> tau_prime, const std::optional<std::pair<double, double>>&rule
#define DPX_MEAN_ARGS \
  py::arg("epsilon"), py::arg("delta"), py::arg("tau"), py::arg("rng"), DPX_RULE_ARGS
// The positional arguments of the Karwa-Vadhan bindings (kv_mean, kv_mean_unknown_sigma).
#define DPX_KV_ARGS \
  py::arg("x"), py::arg("epsilon"), py::arg("delta"), py::arg("rng"), py::kw_only()
#define DPX_HD_PARAMS DPX_MEAN_PARAMS, double slack, const std::string &composition
#define DPX_HD_ARGS DPX_MEAN_ARGS, DPX_COMPOSITION_ARGS
#define DPX_HD_OPTIONS(fn) \
  hd_options(fn, epsilon, delta, tau, tau_prime, rule, slack, composition, noise)
// The same for the local-model Algorithm 5 bindings (local_mean_hd, local_user_mean).
#define DPX_LOCAL_HD_PARAMS                                                                 \
  double epsilon, std::optional<double> tau, double bound, Gen &g,                          \
      std::optional<double> tau_prime, const std::optional<std::pair<double, double>>&rule, \
      bool literal_budget, double slack, const std::string &composition
#define DPX_LOCAL_HD_ARGS                                                              \
  py::arg("epsilon"), py::arg("tau"), py::arg("bound"), py::arg("rng"), DPX_RULE_ARGS, \
      py::arg("literal_budget") = local_defaults.literal_budget, DPX_COMPOSITION_ARGS
#define DPX_LOCAL_HD_OPTIONS(fn) \
  local_options(fn, epsilon, tau, bound, tau_prime, rule, literal_budget, slack, composition, noise)

est::winsorized_mean_hd_options hd_options(const char* fn,
                                           double epsilon,
                                           double delta,
                                           std::optional<double> tau,
                                           std::optional<double> tau_prime,
                                           const std::optional<std::pair<double, double>>& rule,
                                           double slack,
                                           const std::string& composition,
                                           const std::string& noise) {
  est::winsorized_mean_hd_options o;
  o.target.epsilon = epsilon;
  o.target.delta = delta;
  o.rule = make_rule(fn, tau, tau_prime, rule);
  o.composition_slack = slack;
  o.choice = parse_composition(fn, composition);
  o.noise = mechanisms::parse_noise_kind(noise);
  return o;
}

est::local_mean_options local_options(const char* fn,
                                      double epsilon,
                                      std::optional<double> tau,
                                      double bound,
                                      std::optional<double> tau_prime,
                                      const std::optional<std::pair<double, double>>& rule,
                                      bool literal_budget,
                                      double slack,
                                      const std::string& composition,
                                      const std::string& noise) {
  est::local_mean_options o;
  o.epsilon = epsilon;
  o.rule = make_rule(fn, tau, tau_prime, rule);
  o.bound = bound;
  o.literal_budget = literal_budget;
  o.composition_slack = slack;
  o.choice = parse_composition(fn, composition);
  o.noise = mechanisms::parse_noise_kind(noise);
  return o;
}

// variance_bisection and adaptive_coinpress: the same arguments (variance_options) and shape;
// `estimator` calls one of them on (span, options, engine).
template <class Gen, class Estimator>
void def_variance(py::module_& m, const char* name, Estimator estimator, const char* doc) {
  m.def(
      name,
      [name, estimator](const f64_in& x,
                        Gen& g,
                        double epsilon,
                        double variance_min,
                        double variance_max,
                        double midpoint,
                        double gamma,
                        const std::string& returns,
                        double inflation,
                        bool clamp_to_bounds,
                        double slack,
                        const std::string& composition,
                        const std::string& noise,
                        bool nonprivate_diagnostics) {
        auto o = variance_options(name,
                                  epsilon,
                                  variance_min,
                                  variance_max,
                                  midpoint,
                                  gamma,
                                  returns,
                                  inflation,
                                  clamp_to_bounds,
                                  slack,
                                  composition);
        o.noise = mechanisms::parse_noise_kind(noise);
        const auto s = vector_of(name, "x", x);
        return under_contract(with_engine(g, s.size(), [&](auto& e) { return estimator(s, o, e); }),
                              nonprivate_diagnostics);
      },
      py::arg("x"),
      py::arg("rng"),
      DPX_VARIANCE_ARGS,
      DPX_NOISE_ARG,
      doc);
}

}  // namespace

void init_estimators(py::module_& m) {
  bind_estimator_results(m);
  init_estimators_support(m);

  for_each_generator([&]<class Gen>() {
    // ---- central, item level ---------------------------------------------------------------
    m.def(
        "projection_interval",
        [](const f64_in& x,
           DPX_MEAN_PARAMS,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          const auto r = make_rule("projection_interval", tau, tau_prime, rule);
          const auto s = vector_of("projection_interval", "x", x);
          const auto kind = mechanisms::parse_noise_kind(noise);
          return under_contract(
              with_engine(
                  g,
                  s.size(),
                  [&](auto& e) { return est::projection_interval(s, r, epsilon, delta, e, kind); }),
              nonprivate_diagnostics);
        },
        py::arg("x"),
        DPX_MEAN_ARGS,
        DPX_NOISE_ARG,
        "S1 Algorithm 3 (ProjectionInterval): stable histogram over bins of half-width h at "
        "(epsilon, delta), m-hat = 2h k-hat, interval m-hat +- kappa. (epsilon, delta)-DP, "
        "replace-one, item level. Rule: paper (h = tau, kappa = 3 tau); with tau_prime the "
        "sharper rule (h = tau', kappa = tau + 2 tau'); rule=(h, kappa) any custom rule.");
    m.def(
        "winsorized_mean",
        [](const f64_in& x,
           DPX_MEAN_PARAMS,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          est::winsorized_mean_options o{
              epsilon, delta, make_rule("winsorized_mean", tau, tau_prime, rule)};
          o.noise = mechanisms::parse_noise_kind(noise);
          const auto s = vector_of("winsorized_mean", "x", x);
          return under_contract(
              with_engine(g, s.size(), [&](auto& e) { return est::winsorized_mean(s, o, e); }),
              nonprivate_diagnostics);
        },
        py::arg("x"),
        DPX_MEAN_ARGS,
        DPX_NOISE_ARG,
        "(epsilon, delta)-DP winsorized mean under replace-one (S1 Algorithm 4: "
        "ProjectionInterval at epsilon/2, clipped mean + Lap(4 kappa/(n epsilon))); "
        "`dpx mean --tau`. Rule as projection_interval. noise: 'float_safe' (default, exact "
        "discrete noise) or 'research_grade' (`dpx mean --research-grade`).");
    m.def(
        "winsorized_mean_hd",
        [](const f64_in& x, DPX_HD_PARAMS, const std::string& noise, bool nonprivate_diagnostics) {
          const char* fn = "winsorized_mean_hd";
          const auto o = DPX_HD_OPTIONS(fn);
          const auto [s, d] = matrix_of(fn, "X", x);
          return under_contract(
              with_engine(
                  g, s.size(), [&](auto& e) { return est::winsorized_mean_hd(s, d, o, e); }),
              nonprivate_diagnostics);
        },
        py::arg("X"),
        DPX_HD_ARGS,
        DPX_NOISE_ARG,
        "S1 Algorithm 5 (WinsorizedMeanHD) on the rows of the (n, d) array X: Algorithm 4 per "
        "coordinate at (epsilon', delta') from split_budget (basic or advanced, the larger "
        "epsilon' unless composition forces one; composition_slack rho_c, 0 = delta). "
        "(epsilon, delta)- or (epsilon, delta + rho_c)-DP, item level (a record is a row).");
    m.def(
        "sample_split_mean",
        [](const f64_in& x,
           DPX_HD_PARAMS,
           bool parallel,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          const char* fn = "sample_split_mean";
          est::sample_split_options o;
          o.base = DPX_HD_OPTIONS(fn);
          o.parallel = parallel;
          const auto [s, d] = matrix_of(fn, "X", x);
          return under_contract(
              with_engine(g, s.size(), [&](auto& e) { return est::sample_split_mean(s, d, o, e); }),
              nonprivate_diagnostics);
        },
        py::arg("X"),
        DPX_HD_ARGS,
        py::arg("parallel") = false,
        DPX_NOISE_ARG,
        "Sample-split estimator (S1 eq. (1), Thm 4.3): the first floor(N/2) rows choose the "
        "intervals, the others are clipped and averaged. parallel=False: the paper's epsilon'/2 "
        "+ epsilon'/2; True: parallel composition over the disjoint halves. A 1-D x is one "
        "coordinate.");
    m.def(
        "kv_mean",
        [](const f64_in& x,
           double epsilon,
           double delta,
           Gen& g,
           double sigma,
           double beta,
           double alpha,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          est::kv_mean_options o;
          o.target.epsilon = epsilon;
          o.target.delta = delta;
          o.sigma = sigma;
          o.beta = beta;
          o.alpha = alpha;
          o.noise = mechanisms::parse_noise_kind(noise);
          const auto s = vector_of("kv_mean", "x", x);
          return under_contract(
              with_engine(g, s.size(), [&](auto& e) { return est::kv_mean(s, o, e); }),
              nonprivate_diagnostics);
        },
        DPX_KV_ARGS,
        py::arg("sigma") = kv_defaults.sigma,
        py::arg("beta") = kv_defaults.beta,
        py::arg("alpha") = kv_defaults.alpha,
        DPX_NOISE_ARG,
        "Karwa & Vadhan 2018 baseline with known sigma (Alg 1 range by stable histogram, Alg 4 "
        "mean and (1 - alpha) confidence interval for i.i.d. N(mu, sigma^2) data). "
        "(epsilon, delta)-DP, replace-one, item level.");
    m.def(
        "kv_mean_unknown_sigma",
        [](const f64_in& x,
           double epsilon,
           double delta,
           Gen& g,
           double beta,
           double alpha,
           double sigma_fallback,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          est::kv_unknown_sigma_options o;
          o.noise = mechanisms::parse_noise_kind(noise);
          o.target.epsilon = epsilon;
          o.target.delta = delta;
          o.beta = beta;
          o.alpha = alpha;
          o.sigma_fallback = sigma_fallback;
          const auto s = vector_of("kv_mean_unknown_sigma", "x", x);
          return under_contract(
              with_engine(
                  g, s.size(), [&](auto& e) { return est::kv_mean_unknown_sigma(s, o, e); }),
              nonprivate_diagnostics);
        },
        DPX_KV_ARGS,
        py::arg("beta") = kvu_defaults.beta,
        py::arg("alpha") = kvu_defaults.alpha,
        py::arg("sigma_fallback") = kvu_defaults.sigma_fallback,
        DPX_NOISE_ARG,
        "Karwa & Vadhan 2018 baseline with unknown sigma: sigma histogram of pair differences "
        "(Alg 2), range (Alg 1) and mean (Alg 4), epsilon/3 each, delta/2 per histogram. "
        "(epsilon, delta)-DP, replace-one, item level.");

    // ---- local model -------------------------------------------------------------------------
    m.def(
        "local_projection_interval",
        [](const f64_in& x,
           double epsilon,
           std::optional<double> tau,
           double bound,
           Gen& g,
           std::optional<double> tau_prime,
           const std::optional<std::pair<double, double>>& rule,
           bool nonprivate_diagnostics) {
          const auto r = make_rule("local_projection_interval", tau, tau_prime, rule);
          const auto s = vector_of("local_projection_interval", "x", x);
          return under_contract(
              with_engine(
                  g,
                  s.size(),
                  [&](auto& e) { return est::local_projection_interval(s, r, bound, epsilon, e); }),
              nonprivate_diagnostics);
        },
        py::arg("x"),
        py::arg("epsilon"),
        py::arg("tau"),
        py::arg("bound"),
        py::arg("rng"),
        DPX_RULE_ARGS,
        DPX_DIAGNOSTICS_ARG,
        "S1 Algorithm 7 (local projection interval): randomized-response histogram at "
        "epsilon/2 per bit over bins covering [-bound, bound]; epsilon-LDP.");
    m.def(
        "local_mean",
        [](const f64_in& x,
           double epsilon,
           std::optional<double> tau,
           double bound,
           Gen& g,
           std::optional<double> tau_prime,
           const std::optional<std::pair<double, double>>& rule,
           bool literal_budget,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          const char* fn = "local_mean";
          const auto o = local_options(
              fn, epsilon, tau, bound, tau_prime, rule, literal_budget, 0.0, "automatic", noise);
          const auto s = vector_of(fn, "x", x);
          return under_contract(
              with_engine(g, s.size(), [&](auto& e) { return est::local_mean(s, o, e); }),
              nonprivate_diagnostics);
        },
        py::arg("x"),
        py::arg("epsilon"),
        py::arg("tau"),
        py::arg("bound"),
        py::arg("rng"),
        DPX_RULE_ARGS,
        py::arg("literal_budget") = local_defaults.literal_budget,
        DPX_NOISE_ARG,
        "epsilon-LDP mean (S1 Algorithm 8) with the public bound |mu| <= bound; "
        "`dpx mean --local`. literal_budget: RR at epsilon/8 per bit as printed (3 epsilon/4 "
        "spent).");
    m.def(
        "local_mean_hd",
        [](const f64_in& x,
           DPX_LOCAL_HD_PARAMS,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          const char* fn = "local_mean_hd";
          const auto o = DPX_LOCAL_HD_OPTIONS(fn);
          const auto [s, d] = matrix_of(fn, "X", x);
          return under_contract(
              with_engine(g, s.size(), [&](auto& e) { return est::local_mean_hd(s, d, o, e); }),
              nonprivate_diagnostics);
        },
        py::arg("X"),
        DPX_LOCAL_HD_ARGS,
        DPX_NOISE_ARG,
        "Algorithm 5 around Algorithm 8 on the rows of X (local model): epsilon-LDP (basic) or "
        "(epsilon, rho_c)-LDP (advanced; composition_slack 0 = 1e-6).");
    m.def(
        "local_user_mean",
        [](const f64_in& panel,
           DPX_LOCAL_HD_PARAMS,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          const char* fn = "local_user_mean";
          const auto o = DPX_LOCAL_HD_OPTIONS(fn);
          const auto p = panel_of(fn, "panel", panel);
          return under_contract(
              with_engine(
                  g, p.values.size(), [&](auto& e) { return est::local_user_mean(p, o, e); }),
              nonprivate_diagnostics);
        },
        py::arg("panel"),
        DPX_LOCAL_HD_ARGS,
        DPX_NOISE_ARG,
        "Local user-level mean (S1 Thm 6.5): each user averages its (T, d) block of the (n, T) "
        "or (n, T, d) panel and runs local_mean_hd's protocol. Privacy unit: user.");

    // ---- user level and dependent data -------------------------------------------------------
    m.def(
        "user_mean",
        [](const f64_in& panel,
           DPX_HD_PARAMS,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          const char* fn = "user_mean";
          const auto o = DPX_HD_OPTIONS(fn);
          const auto p = panel_of(fn, "panel", panel);
          return under_contract(
              with_engine(g, p.values.size(), [&](auto& e) { return est::user_mean(p, o, e); }),
              nonprivate_diagnostics);
        },
        py::arg("panel"),
        DPX_HD_ARGS,
        DPX_NOISE_ARG,
        "User-level mean (S1 Def 5.1, Cor 5.4): Algorithm 5 on the user averages of the (n, T) "
        "or (n, T, d) panel (tau: tau_user or tau_user_mean_variance). (epsilon, delta)-uDP, "
        "replace-one user.");
    m.def(
        "user_mean_ragged",
        [](const f64_in& rows,
           const py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>& offsets,
           DPX_HD_PARAMS,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          const char* fn = "user_mean_ragged";
          const auto o = DPX_HD_OPTIONS(fn);
          const auto [s, d] = matrix_of(fn, "rows", rows);
          const auto off = offsets_of(fn, offsets);
          return under_contract(
              with_engine(g, s.size(), [&](auto& e) { return est::user_mean(s, d, off, o, e); }),
              nonprivate_diagnostics);
        },
        py::arg("rows"),
        py::arg("offsets"),
        DPX_HD_ARGS,
        DPX_NOISE_ARG,
        "User-level mean of a ragged panel: rows (R,) or (R, d); user u owns rows "
        "offsets[u]:offsets[u+1] (n + 1 increasing offsets from 0 to R). tau must not be chosen "
        "from the row counts (a user's row count is part of its record). `dpx mean "
        "--user-column` groups rows this way (users in order of first appearance).");
    m.def(
        "random_effects_mean",
        [](const f64_in& panel,
           DPX_MEAN_PARAMS,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          const char* fn = "random_effects_mean";
          const est::winsorized_mean_options o{epsilon,
                                               delta,
                                               make_rule(fn, tau, tau_prime, rule),
                                               mechanisms::parse_noise_kind(noise)};
          const auto p = panel_of(fn, "panel", panel);
          return under_contract(
              with_engine(
                  g, p.values.size(), [&](auto& e) { return est::random_effects_mean(p, o, e); }),
              nonprivate_diagnostics);
        },
        py::arg("panel"),
        DPX_MEAN_ARGS,
        DPX_NOISE_ARG,
        "Random-effects location estimate (S1 Def 5.8, Cor 5.10) on an (n, T) panel "
        "(tau: tau_random_effects). (epsilon, delta)-uDP.");
    m.def(
        "longitudinal_regression",
        [](const f64_in& x,
           const f64_in& y,
           DPX_HD_PARAMS,
           const std::string& weighting,
           const std::optional<f64_in>& error_covariance,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          const char* fn = "longitudinal_regression";
          est::longitudinal_options o;
          o.base = DPX_HD_OPTIONS(fn);
          if (weighting == "weighted")
            o.weighting = est::regression_weighting::weighted;
          else if (weighting != "ols")
            core::throw_invalid(fn, "weighting", weighting, "must be ols or weighted");
          if (error_covariance)
            o.error_covariance = {error_covariance->data(),
                                  static_cast<std::size_t>(error_covariance->size())};
          if (x.ndim() != 3)
            core::throw_invalid(fn, "X", double(x.ndim()), "must be an (n, T, p) array");
          const auto p = panel_of(fn, "X", x);
          core::check_size(fn, "y", static_cast<std::size_t>(y.size()), p.users * p.times);
          const std::span<const double> ys(y.data(), static_cast<std::size_t>(y.size()));
          return under_contract(
              with_engine(g,
                          p.values.size(),
                          [&](auto& e) { return est::longitudinal_regression(p, ys, o, e); }),
              nonprivate_diagnostics);
        },
        py::arg("X"),
        py::arg("y"),
        DPX_HD_ARGS,
        py::arg("weighting") = "ols",
        py::arg("error_covariance") = py::none(),
        DPX_NOISE_ARG,
        "Private longitudinal regression (S1 Def 5.13, Cor 5.16): per-user OLS (or weighted GLS "
        "with the public error covariance, (T, T) shared or (n, T, T)) on the (n, T, p) designs "
        "X and (n, T) responses y, then Algorithm 5 on the per-user coefficients "
        "(tau: tau_regression). (epsilon, delta)-uDP.");
    m.def(
        "priestley_chao",
        [](const f64_in& y,
           const f64_in& points,
           Gen& g,
           double epsilon,
           double delta,
           double bandwidth,
           const std::string& kernel,
           double lipschitz,
           double sup_norm,
           double noise_variance_max,
           double gamma,
           const std::string& radius,
           double slack,
           const std::string& composition,
           const std::string& noise,
           bool nonprivate_diagnostics) {
          const char* fn = "priestley_chao";
          auto o = priestley_chao_options(epsilon,
                                          delta,
                                          bandwidth,
                                          kernel,
                                          lipschitz,
                                          sup_norm,
                                          noise_variance_max,
                                          gamma,
                                          radius,
                                          slack,
                                          composition);
          o.noise = mechanisms::parse_noise_kind(noise);
          const auto ys = vector_of(fn, "y", y);
          const auto ps = vector_of(fn, "points", points);
          return under_contract(
              with_engine(g,
                          ys.size() * ps.size(),
                          [&](auto& e) { return est::priestley_chao(ys, ps, o, e); }),
              nonprivate_diagnostics);
        },
        py::arg("y"),
        py::arg("points"),
        py::arg("rng"),
        DPX_PRIESTLEY_CHAO_ARGS,
        DPX_NOISE_ARG,
        "Private Priestley-Chao regression (S1 Def 4.7-4.8, Cor 4.11) of the responses y at the "
        "fixed design x_i = i/n, at the public points; the TOTAL (epsilon, delta) is split over "
        "the points (split_budget). kernel 'gaussian' or 'box'; radius 'lemma_4_9' (as printed) "
        "or 'safe'; lipschitz, sup_norm, noise_variance_max and gamma are PUBLIC bounds that set "
        "tau (priestley_chao_tau). (epsilon, delta)- or (epsilon, delta + rho_c)-DP, item level.");

    // ---- plug-in variance --------------------------------------------------------------------
    def_variance<Gen>(
        m,
        "variance_bisection",
        [](auto x, const auto& o, auto& e) { return est::variance_bisection(x, o, e); },
        "S1 Algorithm 10 (VarianceBisection): halve sigma^2 from the public variance_max while "
        "the private coverage of [m +- sqrt(2) sigma] stays >= 1 - gamma, refining m. returns "
        "'literal' (as printed) or 'last_passing'; clamp_to_bounds projects the output onto "
        "[variance_min, variance_max] (post-processing). (epsilon, 0)-DP (basic) or "
        "(epsilon, rho_c)-DP (advanced), item level. noise: 'float_safe' (default: every step "
        "released by the float-safe Laplace, pure-DP ledger events) or 'research_grade' (S1's "
        "double Laplace).");
    def_variance<Gen>(
        m,
        "adaptive_coinpress",
        [](auto x, const auto& o, auto& e) { return est::adaptive_coinpress(x, o, e); },
        "S1 Algorithms 13-14 (1-D CoinPress variance step, Biswas et al. 2020) centred by the "
        "refined midpoint; inflation c_n < 0 means sqrt(1/n) + 1/(2n). Options, noise and "
        "guarantee as variance_bisection ('returns' is unused).");
  });
}

}  // namespace dpx::python
