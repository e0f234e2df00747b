// dpx.estimators (compiled part, continued): argument conversion, the result classes, the
// public radius formulas (tau_*), the budget split and the plug-in confidence interval.
#include <pybind11/stl.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "estimators_common.hpp"

namespace dpx::python {

namespace est = dpx::estimators;

void withhold(est::diagnostics& d) {
  d.occupied_bins = withheld_count;
  d.clipped_fraction = std::numeric_limits<double>::quiet_NaN();
}
void withhold(est::mean_result& r) { withhold(r.diag); }
void withhold(est::mean_hd_result& r) {
  for (auto& d : r.diag) withhold(d);
}
void withhold(est::projection_result& r) {
  withhold(r.diag);
  r.histogram.occupied = withheld_count;
}
void withhold(est::kv_result& r) { withhold(r.mean); }
void withhold(est::kv_unknown_sigma_result& r) {
  withhold(r.mean);
  withhold(r.sigma_diag);
}
void withhold(est::local_projection_result& r) { r.outside = r.occupied = withheld_count; }
void withhold(est::regression_result& r) {
  withhold(r.fit);
  r.singular_users = withheld_count;
}
void withhold(est::priestley_chao_result& r) {
  for (auto& d : r.diag) withhold(d);
}
void withhold(est::variance_result& r) { withhold(r.diag); }

est::interval_rule make_rule(const char* function,
                             std::optional<double> tau,
                             std::optional<double> tau_prime,
                             const std::optional<std::pair<double, double>>& rule) {
  if (rule) {
    if (tau || tau_prime)
      core::throw_invalid(function, "rule", "custom", "give either tau (and tau_prime) or rule");
    return est::interval_rule::custom(rule->first, rule->second);
  }
  if (!tau) {
    if (tau_prime) core::throw_invalid(function, "tau", "None", "tau_prime needs tau");
    return {};  // unset: the estimator's validate() names `rule`
  }
  return tau_prime ? est::interval_rule::sharper(*tau, *tau_prime)
                   : est::interval_rule::paper(*tau);
}

est::composition_choice parse_composition(const char* function, const std::string& s) {
  return est::parse_composition_choice(s, function, "composition");
}

std::span<const double> vector_of(const char* function, const char* parameter, const f64_in& x) {
  if (x.ndim() != 1)
    core::throw_invalid(function, parameter, double(x.ndim()), "must be 1-dimensional");
  return {x.data(), static_cast<std::size_t>(x.size())};
}

std::pair<std::span<const double>, std::size_t> matrix_of(const char* function,
                                                          const char* parameter,
                                                          const f64_in& x) {
  if (x.ndim() != 1 && x.ndim() != 2)
    core::throw_invalid(function, parameter, double(x.ndim()), "must be an (n, d) array");
  const std::size_t d = x.ndim() == 2 ? static_cast<std::size_t>(x.shape(1)) : 1;
  return {{x.data(), static_cast<std::size_t>(x.size())}, d};
}

est::panel_view panel_of(const char* function, const char* parameter, const f64_in& x) {
  if (x.ndim() != 2 && x.ndim() != 3)
    core::throw_invalid(
        function, parameter, double(x.ndim()), "must be an (n, T) or (n, T, d) array");
  est::panel_view p;
  p.values = {x.data(), static_cast<std::size_t>(x.size())};
  p.users = static_cast<std::size_t>(x.shape(0));
  p.times = static_cast<std::size_t>(x.shape(1));
  p.dims = x.ndim() == 3 ? static_cast<std::size_t>(x.shape(2)) : 1;
  return p;
}

std::vector<std::size_t> offsets_of(
    const char* function,
    const py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>& offsets) {
  std::vector<std::size_t> out;
  out.reserve(static_cast<std::size_t>(offsets.size()));
  for (py::ssize_t i = 0; i < offsets.size(); ++i) {
    const std::int64_t v = offsets.data()[i];
    if (v < 0) core::throw_invalid(function, "offsets", double(v), "must be >= 0");
    out.push_back(static_cast<std::size_t>(v));
  }
  return out;
}

est::priestley_chao_options priestley_chao_options(double epsilon,
                                                   double delta,
                                                   double bandwidth,
                                                   const std::string& kernel,
                                                   double lipschitz,
                                                   double sup_norm,
                                                   double noise_variance_max,
                                                   double gamma,
                                                   const std::string& radius,
                                                   double slack,
                                                   const std::string& composition) {
  const char* fn = "priestley_chao";
  est::priestley_chao_options o;
  o.target.epsilon = epsilon;
  o.target.delta = delta;
  o.bandwidth = bandwidth;
  if (kernel == "box")
    o.kernel = est::kernel_kind::box;
  else if (kernel != "gaussian")
    core::throw_invalid(fn, "kernel", kernel, "must be gaussian or box");
  o.lipschitz = lipschitz;
  o.sup_norm = sup_norm;
  o.noise_variance_max = noise_variance_max;
  o.gamma = gamma;
  if (radius == "safe")
    o.radius = est::pc_radius::safe;
  else if (radius != "lemma_4_9")
    core::throw_invalid(fn, "radius", radius, "must be lemma_4_9 or safe");
  o.composition_slack = slack;
  o.choice = parse_composition(fn, composition);
  return o;
}

est::variance_options variance_options(const char* function,
                                       double epsilon,
                                       double variance_min,
                                       double variance_max,
                                       double midpoint,
                                       double gamma,
                                       const std::string& returns,
                                       double inflation,
                                       bool clamp_to_bounds,
                                       double slack,
                                       const std::string& composition) {
  est::variance_options o;
  o.epsilon = epsilon;
  o.variance_min = variance_min;
  o.variance_max = variance_max;
  o.midpoint = midpoint;
  o.gamma = gamma;
  if (returns == "last_passing")
    o.returns = est::bisection_return::last_passing;
  else if (returns != "literal")
    core::throw_invalid(function, "returns", returns, "must be literal or last_passing");
  o.inflation = inflation;
  o.clamp_to_bounds = clamp_to_bounds;
  o.composition_slack = slack;
  o.choice = parse_composition(function, composition);
  return o;
}

namespace {

py::tuple iv(const est::interval& i) { return py::make_tuple(i.lo, i.hi); }

py::array_t<double> ranges(const std::vector<est::interval>& r) {
  py::array_t<double> out({static_cast<py::ssize_t>(r.size()), py::ssize_t{2}});
  for (std::size_t i = 0; i < r.size(); ++i) {
    out.mutable_at(static_cast<py::ssize_t>(i), 0) = r[i].lo;
    out.mutable_at(static_cast<py::ssize_t>(i), 1) = r[i].hi;
  }
  return out;
}

py::array_t<double> array(const std::vector<double>& v) {
  return py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data());
}

py::list ledger(const std::vector<est::ledger_entry>& l) {
  py::list out;
  for (const auto& e : l)
    out.append(py::make_tuple(e.step, e.epsilon, e.delta, event_to_python(e.event)));
  return out;
}

// epsilon, delta, model, unit, relation and ledger of a result holding `privacy` and `ledger`.
template <class R, class Get>
void privacy_properties(py::class_<R>& c, Get get) {
  c.def_property_readonly(
      "epsilon", [get](const R& r) { return get(r).epsilon; }, "Total epsilon spent.");
  c.def_property_readonly(
      "delta",
      [get](const R& r) { return get(r).delta; },
      "Total delta spent (with the advanced-composition slack).");
  c.def_property_readonly(
      "model", [get](const R& r) { return est::to_string(get(r).model); }, "central or local.");
  c.def_property_readonly(
      "unit",
      [get](const R& r) { return core::to_string(get(r).unit); },
      "Privacy unit: item or user.");
  c.def_property_readonly(
      "relation",
      [get](const R& r) { return core::to_string(get(r).relation); },
      "Neighbouring relation (replace-one).");
}

template <class R>
void ledger_property(py::class_<R>& c) {
  c.def_property_readonly(
      "ledger",
      [](const R& r) { return ledger(r.ledger); },
      "The private steps, in order: (step, epsilon, delta, event).");
}

template <class R>
void budget_property(py::class_<R>& c) {
  c.def_readonly("budget", &R::budget, "Per-coordinate (or per-point) budget and composition.");
}

}  // namespace

void bind_estimator_results(py::module_& m) {
  py::class_<est::diagnostics>(m,
                               "Diagnostics",
                               "Per-release diagnostics. occupied_bins and clipped_fraction are "
                               "functions of the raw data: NOT private, never publish them; None "
                               "unless the estimator was called with nonprivate_diagnostics=True.")
      .def_property_readonly(
          "occupied_bins",
          [](const est::diagnostics& d) { return count_or_none(d.occupied_bins); },
          "Bins holding >= 1 point (NOT private; None unless nonprivate_diagnostics=True).")
      .def_readonly("released_bins", &est::diagnostics::released_bins, "Bins released (private).")
      .def_property_readonly(
          "clipped_fraction",
          [](const est::diagnostics& d) -> std::optional<double> {
            if (d.occupied_bins == withheld_count) return std::nullopt;
            return d.clipped_fraction;
          },
          "Fraction of points outside the interval (NOT private; None unless "
          "nonprivate_diagnostics=True).")
      .def_readonly("failed", &est::diagnostics::failed, "Every bin zeroed (private).");

  py::class_<est::coordinate_budget>(
      m, "CoordinateBudget", "Per-coordinate (epsilon, delta) of d releases and the rule used.")
      .def_readonly("epsilon", &est::coordinate_budget::epsilon, "epsilon per coordinate.")
      .def_readonly("delta", &est::coordinate_budget::delta, "delta per coordinate.")
      .def_property_readonly(
          "kind",
          [](const est::coordinate_budget& b) { return est::to_string(b.kind); },
          "single, basic or advanced.")
      .def_readonly("total_epsilon", &est::coordinate_budget::total_epsilon, "Total epsilon.")
      .def_readonly("total_delta",
                    &est::coordinate_budget::total_delta,
                    "Total delta (plus rho_c when advanced).");

  py::class_<est::mean_result> mean(m, "MeanResult", "Result of a one-dimensional private mean.");
  mean.def_readonly("estimate", &est::mean_result::estimate, "The private mean.")
      .def_property_readonly(
          "clip_range",
          [](const est::mean_result& r) { return iv(r.range); },
          "The clipping range used (lo, hi) (private; not a confidence interval).")
      .def_readonly("midpoint", &est::mean_result::midpoint, "The private midpoint m-hat.")
      .def_readonly("n", &est::mean_result::n, "Number of records averaged.")
      .def_readonly(
          "noise_scale", &est::mean_result::noise_scale, "Laplace scale b of the mean release.")
      .def_readonly("diagnostics", &est::mean_result::diag, "Diagnostics (see Diagnostics).")
      .def_property_readonly(
          "failed",
          [](const est::mean_result& r) { return r.diag.failed; },
          "Every histogram bin was zeroed (midpoint 0 used; private).");
  privacy_properties(mean, [](const est::mean_result& r) { return r.privacy; });
  ledger_property(mean);

  py::class_<est::mean_hd_result> hd(m, "MeanHDResult", "Result of a d-dimensional private mean.");
  hd.def_property_readonly(
        "estimate",
        [](const est::mean_hd_result& r) { return array(r.estimate); },
        "d private coordinates.")
      .def_property_readonly(
          "clip_ranges",
          [](const est::mean_hd_result& r) { return ranges(r.ranges); },
          "(d, 2) array of the clipping intervals (an L-infinity box; private).")
      .def_readonly("diagnostics", &est::mean_hd_result::diag, "Per coordinate.")
      .def_readonly("n", &est::mean_hd_result::n, "Records (rows, or users).")
      .def_readonly("d", &est::mean_hd_result::d, "Dimension.")
      .def_readonly("failed_coordinates",
                    &est::mean_hd_result::failed_coordinates,
                    "Coordinates whose histogram zeroed every bin (private).")
      .def_readonly("noise_scale",
                    &est::mean_hd_result::noise_scale,
                    "Laplace scale per coordinate of the mean release.");
  budget_property(hd);
  privacy_properties(hd, [](const est::mean_hd_result& r) { return r.privacy; });
  ledger_property(hd);

  py::class_<est::projection_result> proj(m, "ProjectionResult", "Result of projection_interval.");
  proj.def_property_readonly(
          "range",
          [](const est::projection_result& r) { return iv(r.range); },
          "(m-hat - kappa, m-hat + kappa).")
      .def_readonly(
          "midpoint", &est::projection_result::midpoint, "m-hat = 2h k-hat (0 on failure).")
      .def_readonly("selected_bin", &est::projection_result::selected_bin, "k-hat.")
      .def_readonly("threshold", &est::projection_result::threshold, "Frequency threshold used.")
      .def_property_readonly(
          "bins",
          [](const est::projection_result& r) {
            return py::array_t<std::int64_t>(static_cast<py::ssize_t>(r.histogram.bins.size()),
                                             r.histogram.bins.data());
          },
          "Indices k of the released bins (private).")
      .def_property_readonly(
          "frequencies",
          [](const est::projection_result& r) { return array(r.histogram.values); },
          "Released frequencies of those bins (private).")
      .def_readonly("n", &est::projection_result::n, "Observations.")
      .def_readonly("diagnostics", &est::projection_result::diag, "Diagnostics.");
  privacy_properties(proj, [](const est::projection_result& r) { return r.privacy; });
  ledger_property(proj);

  py::class_<est::kv_result>(m, "KVResult", "Result of kv_mean.")
      .def_readonly("mean", &est::kv_result::mean, "The private mean (a MeanResult).")
      .def_property_readonly(
          "confidence",
          [](const est::kv_result& r) { return iv(r.confidence); },
          "(1 - alpha) confidence interval for mu (i.i.d. Gaussian data).");
  py::class_<est::kv_unknown_sigma_result>(
      m, "KVUnknownSigmaResult", "Result of kv_mean_unknown_sigma.")
      .def_readonly("mean", &est::kv_unknown_sigma_result::mean, "The private mean (a MeanResult).")
      .def_readonly("sigma_hat",
                    &est::kv_unknown_sigma_result::sigma_hat,
                    "sigma-hat = 2^(j+2) or the fallback.")
      .def_readonly(
          "sigma_bin", &est::kv_unknown_sigma_result::sigma_bin, "The released dyadic bin j.")
      .def_readonly(
          "sigma_diagnostics", &est::kv_unknown_sigma_result::sigma_diag, "The sigma histogram.")
      .def_property_readonly(
          "confidence",
          [](const est::kv_unknown_sigma_result& r) { return iv(r.confidence); },
          "(1 - alpha) confidence interval for mu (conservative).");

  py::class_<est::local_projection_result>(
      m, "LocalProjectionResult", "Result of local_projection_interval.")
      .def_property_readonly(
          "range",
          [](const est::local_projection_result& r) { return iv(r.range); },
          "(m-hat +- kappa).")
      .def_readonly("midpoint", &est::local_projection_result::midpoint, "m-hat = 2h k-hat.")
      .def_readonly(
          "selected_bin", &est::local_projection_result::selected_bin, "k-hat in [-K, K].")
      .def_property_readonly(
          "frequencies",
          [](const est::local_projection_result& r) { return array(r.frequencies); },
          "Debiased frequencies of bins k = -K..K (private).")
      .def_property_readonly(
          "outside",
          [](const est::local_projection_result& r) { return count_or_none(r.outside); },
          "Users outside every bin (NOT private; None unless nonprivate_diagnostics=True).")
      .def_property_readonly(
          "occupied",
          [](const est::local_projection_result& r) { return count_or_none(r.occupied); },
          "Occupied bins (NOT private; None unless nonprivate_diagnostics=True).");

  py::class_<est::regression_result>(m, "RegressionResult", "Result of longitudinal_regression.")
      .def_readonly(
          "fit", &est::regression_result::fit, "The private coefficients (a MeanHDResult).")
      .def_property_readonly(
          "coefficients",
          [](const est::regression_result& r) { return array(r.fit.estimate); },
          "The private beta (p values).")
      .def_property_readonly(
          "singular_users",
          [](const est::regression_result& r) { return count_or_none(r.singular_users); },
          "Users whose normal matrix was singular (NOT private; None unless "
          "nonprivate_diagnostics=True).");

  py::class_<est::priestley_chao_result> pc(m, "PriestleyChaoResult", "Result of priestley_chao.");
  pc.def_property_readonly(
        "points",
        [](const est::priestley_chao_result& r) { return array(r.points); },
        "Evaluation points.")
      .def_property_readonly(
          "estimate",
          [](const est::priestley_chao_result& r) { return array(r.estimate); },
          "Private f-hat at each point.")
      .def_property_readonly(
          "clip_ranges",
          [](const est::priestley_chao_result& r) { return ranges(r.ranges); },
          "(J, 2) clipping intervals.")
      .def_readonly("diagnostics", &est::priestley_chao_result::diag, "Per point.")
      .def_property_readonly(
          "interior",
          [](const est::priestley_chao_result& r) {
            return std::vector<bool>(r.interior.begin(), r.interior.end());
          },
          "Whether each point is in [zeta, 1 - zeta] (where Cor 4.11's rate applies).")
      .def_readonly("n", &est::priestley_chao_result::n, "Observations.")
      .def_readonly("tau", &est::priestley_chao_result::tau, "The radius used.")
      .def_readonly(
          "noise_scale", &est::priestley_chao_result::noise_scale, "Laplace scale per point.");
  budget_property(pc);
  privacy_properties(pc, [](const est::priestley_chao_result& r) { return r.privacy; });
  ledger_property(pc);

  py::class_<est::variance_result> var(
      m, "VarianceResult", "Result of a plug-in variance estimator.");
  var.def_readonly("variance", &est::variance_result::variance, "The private sigma-hat^2.")
      .def_readonly(
          "midpoint", &est::variance_result::midpoint, "The last refined midpoint (private).")
      .def_readonly("iterations", &est::variance_result::iterations, "Iterations run.")
      .def_property_readonly(
          "range",
          [](const est::variance_result& r) { return iv(r.range); },
          "Window of the last release that touched the data (private).")
      .def_readonly("diagnostics", &est::variance_result::diag, "Diagnostics.");
  budget_property(var);
  privacy_properties(var, [](const est::variance_result& r) { return r.privacy; });
  ledger_property(var);
}

void init_estimators_support(py::module_& m) {
  m.def("tau_subgaussian",
        &est::tau_subgaussian,
        py::arg("variance_bound"),
        py::arg("n"),
        py::arg("gamma"),
        "tau = sqrt(2 V ln(2n/gamma)) from a PUBLIC variance (or log-Sobolev) bound V "
        "(S1 Cor 3.6).");
  m.def("tau_prime",
        &est::tau_prime,
        py::arg("variance_bound"),
        py::arg("gamma"),
        "tau' = sqrt(2 V ln(2/gamma)), the per-observation radius of the sharper rule "
        "(S1 Rem 3.5; needs gamma < 1/4).");
  m.def("tau_user",
        &est::tau_user,
        py::arg("rho_star"),
        py::arg("times"),
        py::arg("users"),
        py::arg("d"),
        py::arg("gamma"),
        "User-level radius sqrt(2 rho* ln(2dn/gamma)/T) (S1 Lemma 5.2 / Cor 5.4).");
  m.def("tau_user_mean_variance",
        &est::tau_user_mean_variance,
        py::arg("user_mean_variance"),
        py::arg("users"),
        py::arg("d"),
        py::arg("gamma"),
        "Sharper Gaussian user-level radius sqrt(2 v ln(2dn/gamma)), v = max_u Var(user mean).");
  m.def("tau_regression",
        &est::tau_regression,
        py::arg("theta_lo"),
        py::arg("theta_hi"),
        py::arg("sigma2"),
        py::arg("p"),
        py::arg("users"),
        py::arg("times"),
        py::arg("gamma"),
        "Longitudinal-regression radius sqrt(2 (theta_hi/theta_lo^2) sigma^2 ln(2pn/gamma)/T) "
        "(S1 Lemma 5.15).");
  m.def("tau_random_effects",
        &est::tau_random_effects,
        py::arg("sigma_u2"),
        py::arg("noise_mean_variance"),
        py::arg("users"),
        py::arg("gamma"),
        "Random-effects radius sqrt(2 (sigma_U^2 + v_noise) ln(2n/gamma)) (S1 Def 5.8).");
  m.def(
      "split_budget",
      [](double epsilon,
         double delta,
         std::size_t d,
         double slack,
         const std::string& composition) {
        return est::split_budget(
            epsilon, delta, d, slack, parse_composition("split_budget", composition));
      },
      py::arg("epsilon"),
      py::arg("delta"),
      py::arg("d"),
      py::arg("composition_slack"),
      py::arg("composition") = "automatic",
      "(epsilon, delta) over d releases (S1 Thm 2.4): basic (eps/d, delta/d) or advanced "
      "(eps/sqrt(8 d ln(1/rho_c)), delta/d), the larger per-coordinate epsilon unless forced.");
  m.def(
      "priestley_chao_tau",
      [](std::size_t n,
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
         const std::string& composition) {
        const auto o = priestley_chao_options(epsilon,
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
        o.validate();
        return est::priestley_chao_tau(o, n);
      },
      py::arg("n"),
      DPX_PRIESTLEY_CHAO_ARGS,
      "The public radius tau of priestley_chao for n observations (Lemma 4.9 or tau_safe).");
  m.def("priestley_chao_bandwidth",
        &est::priestley_chao_bandwidth,
        py::arg("noise_variance_max"),
        py::arg("n"),
        py::arg("epsilon"),
        "Bandwidth of Cor 4.11 with unit constants: (s2/n)^(1/3) v (s/(n eps))^(1/2).");
  m.def("priestley_chao_margin",
        &est::priestley_chao_margin,
        py::arg("bandwidth"),
        "Interior margin zeta = b sqrt(2 ln(2/b)) (S1 Lemma 4.9).");
  m.def(
      "plugin_confidence_interval",
      [](const est::mean_result& mean, double variance, double alpha, double long_run_factor) {
        return iv(est::plugin_confidence_interval(mean, variance, alpha, long_run_factor));
      },
      py::arg("mean"),
      py::arg("variance"),
      py::arg("alpha"),
      py::arg("long_run_factor") = 1.0,
      "Plug-in (1 - alpha) CI for mu: estimate +- (z_{1-alpha/4} sqrt(kappa var/n) + "
      "b ln(2/alpha)); kappa >= 1 a PUBLIC long-run variance factor (1 for i.i.d. data).");
  m.def(
      "user_averages",
      [](const f64_in& panel) {
        const auto p = panel_of("user_averages", "panel", panel);
        p.validate("user_averages");
        const auto v = est::user_averages(p);
        py::array_t<double> out(
            {static_cast<py::ssize_t>(p.users), static_cast<py::ssize_t>(p.dims)});
        std::copy(v.begin(), v.end(), out.mutable_data());
        return out;
      },
      py::arg("panel"),
      "Per-user averages (n, d) of an (n, T) or (n, T, d) panel (S1 Def 5.1; not private).");
}

}  // namespace dpx::python
