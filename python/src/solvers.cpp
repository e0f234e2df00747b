// dpx.solvers (compiled part): the result type, the Penalty value type, and the nonprivate GIST
// solvers and DP-SGD on numpy X (n x d, C-contiguous float64 rows: viewed without a copy; other
// layouts are converted once) and y. ISTDP and noisy PGD: solvers_private.cpp; the online kernel
// regressor: online_kernel.cpp. The result carries the iterate, the log-spaced trace and the
// privacy events of the run (dpx/solvers.py turns them into a dpx.accounting event).
#include <pybind11/stl.h>

#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/output_contract.hpp"
#include "dpx/mechanisms/noise_kind.hpp"
#include "solvers_common.hpp"

namespace dpx::python {

namespace sol = dpx::solvers;

losses::glm_kind parse_loss(const std::string& s) {
  if (s == "least_squares") return losses::glm_kind::least_squares;
  if (s == "logistic") return losses::glm_kind::logistic;
  if (s == "huber") return losses::glm_kind::huber;
  if (s == "smoothed_hinge") return losses::glm_kind::smoothed_hinge;
  core::throw_invalid(
      "solvers", "loss", s, "must be least_squares, logistic, huber or smoothed_hinge");
}

core::neighbouring parse_relation(const char* function, const std::string& s) {
  if (s == "replace_one" || s == "replace-one") return core::neighbouring::replace_one;
  if (s == "add_remove" || s == "add/remove") return core::neighbouring::add_remove;
  core::throw_invalid(function, "relation", s, "must be replace_one or add_remove");
}

std::string relation_name(core::neighbouring n) {
  return n == core::neighbouring::replace_one ? "replace_one" : "add_remove";
}

namespace {
// The instance attribute that marks a result whose diagnostics were withheld.
constexpr const char* withheld_key = "_dpx_nonprivate_diagnostics_withheld";
}  // namespace

py::object private_result(sol::solve_result r, bool nonprivate_diagnostics) {
  const bool withhold = !nonprivate_diagnostics && !r.privacy_events.empty();
  if (withhold) {
    // Erased, not only hidden: the object holds no statistic of the data beyond the release.
    r.message.clear();
    r.iterations = 0;
    r.objective = std::numeric_limits<double>::quiet_NaN();
    r.trace.clear();
    r.line_search_trials = r.max_line_search_trials = r.line_search_failures = 0;
    r.gradient_evaluations = r.objective_evaluations = 0;
    r.seconds = 0;
  }
  py::object o = py::cast(std::move(r));
  if (withhold) o.attr("__dict__")[withheld_key] = true;
  return o;
}

losses::dataset_view dataset(const char* function, const f64_in& x, const f64_in& y) {
  if (x.ndim() != 2) core::throw_invalid(function, "X", double(x.ndim()), "must be 2-dimensional");
  const auto n = static_cast<std::size_t>(x.shape(0)), d = static_cast<std::size_t>(x.shape(1));
  core::check_size(function, "y", static_cast<std::size_t>(y.size()), n);
  return {{x.data(), n * d}, {y.data(), n}, n, d};
}

std::optional<core::epsilon_delta> target_argument(
    const char* function,
    std::optional<double> epsilon,
    std::optional<double> delta,
    const std::optional<core::epsilon_delta>& fallback) {
  if (!epsilon && delta && !fallback)
    core::throw_invalid(function, "delta", *delta, "is only used with epsilon (pass both)");
  if (!epsilon && !delta && !fallback) return std::nullopt;
  return core::epsilon_delta{epsilon.value_or(fallback ? fallback->epsilon : 0.0),
                             delta.value_or(fallback ? fallback->delta : 0.0)};
}

std::vector<double> start_point(const char* function,
                                const char* parameter,
                                const std::optional<f64_in>& v,
                                std::size_t d) {
  if (!v) return std::vector<double>(d, 0.0);
  core::check_size(function, parameter, static_cast<std::size_t>(v->size()), d);
  return {v->data(), v->data() + d};
}

penalty_spec penalty_spec::from_name(const std::string& s,
                                     double lam,
                                     std::optional<double> gamma) {
  // As `dpx fit --penalty` (apps/dpx/cmd_fit.cpp): MCP gamma 3, SCAD gamma 3.7 by default.
  if (gamma && s != "mcp" && s != "scad")
    core::throw_invalid("solvers", "gamma", *gamma, "is only used with penalty mcp or scad");
  const std::string args = "(lam=" + core::format_double(lam);
  if (s == "none") return {prox::zero_penalty{}, "none"};
  if (s == "l1") return {prox::l1_norm(lam), "l1" + args + ")"};
  if (s == "mcp") {
    const double g = gamma.value_or(3.0);
    return {prox::mcp(lam, g), "mcp" + args + ", gamma=" + core::format_double(g) + ")"};
  }
  if (s == "scad") {
    const double g = gamma.value_or(3.7);
    return {prox::scad(lam, g), "scad" + args + ", gamma=" + core::format_double(g) + ")"};
  }
  core::throw_invalid(
      "solvers", "penalty", s, "must be none, l1, mcp, scad or a dpx.solvers.Penalty");
}

penalty_spec penalty_argument(py::handle penalty, double lam, std::optional<double> gamma) {
  if (py::isinstance<penalty_spec>(penalty)) {
    if (lam != 0.0 || gamma)
      core::throw_invalid("solvers",
                          "lam",
                          lam,
                          "lam and gamma are only used with a penalty name; a Penalty carries "
                          "its own parameters");
    return penalty.cast<penalty_spec>();
  }
  if (py::isinstance<py::str>(penalty))
    return penalty_spec::from_name(penalty.cast<std::string>(), lam, gamma);
  core::throw_invalid("solvers",
                      "penalty",
                      std::string(py::str(py::type::of(penalty).attr("__name__"))),
                      "must be a penalty name or a dpx.solvers.Penalty");
}

namespace {

// Binds Penalty.name(<parameters>) -> P(parameters...), named "name(p1=..., p2=...)" for repr.
// Every parameter is a double; `args` are their py::arg (with defaults where there are some).
template <class P, class... Arg>
void def_penalty(py::class_<penalty_spec>& c, const char* name, const char* doc, Arg... args) {
  const std::array<const char*, sizeof...(Arg)> names{args.name...};
  const auto label = [name, names](std::initializer_list<double> values) {
    std::string s = std::string(name) + "(";
    std::size_t i = 0;
    for (double v : values) {
      s += std::string(i ? ", " : "") + names[i] + "=" + core::format_double(v);
      ++i;
    }
    return s + ")";
  };
  if constexpr (sizeof...(Arg) == 1) {
    c.def_static(
        name,
        [label](double a) {
          return penalty_spec{P(a), label({a})};
        },
        args...,
        doc);
  } else {
    static_assert(sizeof...(Arg) == 2);
    c.def_static(
        name,
        [label](double a, double b) {
          return penalty_spec{P(a, b), label({a, b})};
        },
        args...,
        doc);
  }
}

void bind_penalty(py::module_& m) {
  py::class_<penalty_spec> c(m, "Penalty", R"doc(
A penalty R or the indicator of a constraint set C (dpx::prox), for the solvers' ``penalty``
argument. Build one with the static constructors (``Penalty.l1(0.1)``, ``Penalty.mcp(0.1, 3)``,
``Penalty.l2_ball(1.0)``, ...). Separable penalties apply to the first d - ``unpenalized``
coordinates; constraint sets to all of them. Nonconvex penalties (MCP, SCAD, capped L1) break
prox ties toward 0, as ncvreg does.)doc");
  c.def_static(
      "none",
      [] {
        return penalty_spec{prox::zero_penalty{}, "none"};
      },
      "R = 0 (unpenalised).");
  def_penalty<prox::l1_norm>(
      c, "l1", "R(x) = lam ||x||_1, lam >= 0 (prox: soft thresholding).", py::arg("lam"));
  def_penalty<prox::squared_l2>(
      c, "squared_l2", "R(x) = (lam / 2) ||x||_2^2, lam >= 0 (ridge).", py::arg("lam"));
  def_penalty<prox::elastic_net>(
      c, "elastic_net", "R(x) = l1 ||x||_1 + (l2 / 2) ||x||_2^2.", py::arg("l1"), py::arg("l2"));
  def_penalty<prox::mcp>(c,
                         "mcp",
                         "MCP (Zhang 2010): lam|t| - t^2/(2 gamma) for |t| <= gamma lam, gamma "
                         "lam^2/2 beyond; lam > 0, gamma > 1.",
                         py::arg("lam"),
                         py::arg("gamma") = 3.0);
  def_penalty<prox::scad>(c,
                          "scad",
                          "SCAD (Fan & Li 2001); lam > 0, gamma > 2.",
                          py::arg("lam"),
                          py::arg("gamma") = 3.7);
  def_penalty<prox::capped_l1>(c,
                               "capped_l1",
                               "Capped L1 (Zhang 2010b): lam min(|t|, theta); lam >= 0, theta > 0.",
                               py::arg("lam"),
                               py::arg("theta"));
  def_penalty<prox::l2_ball>(c,
                             "l2_ball",
                             "Indicator of {||x||_2 <= radius} (projection x min(1, r / ||x||)).",
                             py::arg("radius"));
  def_penalty<prox::box>(
      c,
      "box",
      "Indicator of [lower, upper]^d (projection: clamp); infinite bounds allowed.",
      py::arg("lower"),
      py::arg("upper"));
  def_penalty<prox::simplex>(c,
                             "simplex",
                             "Indicator of {x >= 0 : sum x = total} (Condat 2016 projection).",
                             py::arg("total") = 1.0);
  def_penalty<prox::l1_ball>(c, "l1_ball", "Indicator of {||x||_1 <= radius}.", py::arg("radius"));
  c.def(
       "value",
       [](const penalty_spec& p, const f64_in& x) {
         const std::span<const double> s(x.data(), static_cast<std::size_t>(x.size()));
         return std::visit([&](const auto& q) { return q.value(s); }, p.value);
       },
       py::arg("x"),
       "R(x) (+inf outside a constraint set).")
      .def(
          "prox",
          [](const penalty_spec& p, const f64_in& v, double step) {
            const std::span<const double> s(v.data(), static_cast<std::size_t>(v.size()));
            auto out = empty_like(v);
            std::span<double> o(out.mutable_data(), s.size());
            std::visit([&](const auto& q) { q.apply(s, step, o); }, p.value);
            return out;
          },
          py::arg("v"),
          py::arg("step"),
          "prox_{step R}(v) = argmin_x R(x) + ||x - v||^2 / (2 step) (a projection for a set).")
      .def_property_readonly(
          "separable",
          [](const penalty_spec& p) {
            return std::visit(
                [](const auto& q) { return prox::separable_penalty<std::decay_t<decltype(q)>>; },
                p.value);
          },
          "True for coordinate-wise penalties (these honour the solvers' `unpenalized`).")
      .def("__repr__", [](const penalty_spec& p) { return "Penalty." + p.name; });
}

bool withheld(const py::object& self) {
  return py::hasattr(self, "__dict__") && self.attr("__dict__").contains(withheld_key);
}

// A diagnostic attribute (classified so in the output contract): None when withheld.
template <class F>
void diagnostic(py::class_<sol::solve_result>& c, const char* name, F get, const char* doc) {
  if (core::classify("SolveResult", name) != core::output_class::nonprivate_diagnostic)
    throw std::logic_error(std::string("SolveResult.") + name + " is not a diagnostic");
  c.def_property_readonly(
      name,
      [get](const py::object& self) -> py::object {
        if (withheld(self)) return py::none();
        auto v = get(self.cast<const sol::solve_result&>());
        if constexpr (std::is_base_of_v<py::object, decltype(v)>) {
          return v;
        } else {
          return py::cast(std::move(v));
        }
      },
      doc);
}

// repr: the release and the public inputs; the diagnostics (brief_report) only when present,
// and labelled. A run without releases (nonprivate) is all diagnostics: brief_report.
std::string result_repr(const py::object& self) {
  const auto& r = self.cast<const sol::solve_result&>();
  if (r.privacy_events.empty() && !withheld(self)) return r.brief_report();
  std::string s = "SolveResult(x=" + std::string(py::repr(self.attr("x"))) +
                  ", guarantee=" + std::string(py::repr(py::str(r.guarantee))) +
                  ", noise_scale=" + core::format_double(r.noise_scale);
  if (r.epsilon_target > 0)
    s += ", epsilon_target=" + core::format_double(r.epsilon_target) +
         ", delta_target=" + core::format_double(r.delta_target);
  if (withheld(self))
    return s + "; non-private diagnostics withheld: nonprivate_diagnostics=True adds them)";
  return s + "; NOT private diagnostics (nonprivate_diagnostics=True): " + r.brief_report() + ")";
}

void bind_result(py::module_& m) {
  py::class_<sol::solve_result> c(m,
                                  "SolveResult",
                                  "Result of a solver run (dpx::solvers). For a private run the "
                                  "non-private diagnostics (status, message, iterations, "
                                  "objective, seconds, the counters, trace) are None unless the "
                                  "solver was called with nonprivate_diagnostics=True "
                                  "(docs/cli.md, \"Output contract\").",
                                  py::dynamic_attr());
  c.def_property_readonly(
      "x",
      [](const sol::solve_result& r) {
        return py::array_t<double>(static_cast<py::ssize_t>(r.x.size()), r.x.data());
      },
      "The returned iterate (coefficients), a new float64 array.");
  c.def_property_readonly(
      "nonprivate_diagnostics",
      [](const py::object& self) { return !withheld(self); },
      "Whether the non-private diagnostics are present (always for a nonprivate run).");
  diagnostic(
      c,
      "status",
      [](const sol::solve_result& r) { return sol::to_string(r.status); },
      "converged, max_iterations, line_search_failed or diverged (NOT private).");
  diagnostic(
      c,
      "message",
      [](const sol::solve_result& r) { return r.message; },
      "How the run ended, in words (NOT private).");
  diagnostic(
      c,
      "iterations",
      [](const sol::solve_result& r) { return r.iterations; },
      "Iterations performed (NOT private).");
  diagnostic(
      c,
      "objective",
      [](const sol::solve_result& r) { return r.objective; },
      "F(x) on the exact data (NaN if not computed; NOT private).");
  diagnostic(
      c,
      "seconds",
      [](const sol::solve_result& r) { return r.seconds; },
      "Solve time (NOT private).");
  diagnostic(
      c,
      "gradient_evaluations",
      [](const sol::solve_result& r) { return r.gradient_evaluations; },
      "Full or batch gradient computations (NOT private).");
  diagnostic(
      c,
      "objective_evaluations",
      [](const sol::solve_result& r) { return r.objective_evaluations; },
      "Objective evaluations by the algorithm itself (NOT private).");
  diagnostic(
      c,
      "line_search_trials",
      [](const sol::solve_result& r) { return r.line_search_trials; },
      "Total over the run (NOT private).");
  diagnostic(
      c,
      "max_line_search_trials",
      [](const sol::solve_result& r) { return r.max_line_search_trials; },
      "Largest number of trials in one iteration (NOT private).");
  diagnostic(
      c,
      "line_search_failures",
      [](const sol::solve_result& r) { return r.line_search_failures; },
      "Iterations whose line search hit its trial cap (NOT private).");
  diagnostic(
      c,
      "trace",
      [](const sol::solve_result& r) {
        const auto n = static_cast<py::ssize_t>(r.trace.size());
        py::array_t<std::int64_t> it(n), trials(n);
        py::array_t<double> obj(n), step(n), sec(n);
        for (py::ssize_t i = 0; i < n; ++i) {
          const auto& t = r.trace[static_cast<std::size_t>(i)];
          it.mutable_at(i) = t.iteration;
          obj.mutable_at(i) = t.objective;
          step.mutable_at(i) = t.step;
          trials.mutable_at(i) = t.line_search_trials;
          sec.mutable_at(i) = t.seconds;
        }
        py::dict d;
        d["iteration"] = it;
        d["objective"] = obj;
        d["step"] = step;
        d["line_search_trials"] = trials;
        d["seconds"] = sec;
        return d;
      },
      "Log-spaced checkpoints as a dict of arrays (iteration, objective, step, "
      "line_search_trials, seconds); pandas.DataFrame(result.trace) makes a table (NOT "
      "private).");
  c.def_property_readonly(
       "privacy_events",
       [](const sol::solve_result& r) {
         py::list out;
         for (const auto& run : r.privacy_events.runs())
           out.append(py::make_tuple(event_to_python(run.event), run.count));
         return out;
       },
       "The run's releases as (event, count) pairs, in order (empty when nonprivate).")
      .def_property_readonly(
          "relation",
          [](const sol::solve_result& r) { return core::to_string(r.relation); },
          "Neighbouring relation of the events' sensitivities.")
      .def_readonly("sensitivity", &sol::solve_result::sensitivity, "Sensitivity of one release.")
      .def_readonly("noise_scale",
                    &sol::solve_result::noise_scale,
                    "sigma (Gaussian) or b (Laplace) used; 0 = no noise.")
      .def_readonly("epsilon_target",
                    &sol::solve_result::epsilon_target,
                    "The epsilon the calibration aimed at (0 = none).")
      .def_readonly("delta_target",
                    &sol::solve_result::delta_target,
                    "The delta the calibration aimed at (0 = none).")
      .def_readonly(
          "guarantee", &sol::solve_result::guarantee, "What the output guarantees, in words.")
      .def("usable",
           &sol::solve_result::usable,
           "True when x is finite and the run did not diverge.")
      .def("__repr__", &result_repr);
}

}  // namespace

void init_solvers(py::module_& m) {
  bind_penalty(m);
  bind_result(m);

  m.def(
      "gist",
      [](const f64_in& x,
         const f64_in& y,
         const std::string& loss,
         const py::object& penalty,
         double lam,
         std::optional<double> gamma,
         double parameter,
         std::int64_t max_iterations,
         double tol,
         double stationarity_tol,
         int memory,
         bool trace,
         const std::optional<f64_in>& theta0,
         std::size_t unpenalized) {
        const auto v = dataset("solvers::gist", x, y);
        const losses::glm_loss l(parse_loss(loss), v, parameter);
        const auto pen = penalty_argument(penalty, lam, gamma);
        const auto th0 = start_point("solvers::gist", "theta0", theta0, v.cols);
        sol::gist_options o;
        o.max_iterations = max_iterations;
        o.tol = tol;
        o.stationarity_tol = stationarity_tol;
        o.memory = memory;
        o.trace.enabled = trace;
        py::gil_scoped_release unlocked;
        return with_penalty(
            pen, v.cols, unpenalized, [&](const auto& p) { return sol::gist(l, p, th0, o); });
      },
      py::arg("X"),
      py::arg("y"),
      py::arg("loss") = "least_squares",
      py::arg("penalty") = "none",
      py::arg("lam") = 0.0,
      py::arg("gamma") = py::none(),
      py::arg("loss_parameter") = 1.0,
      py::arg("max_iterations") = 100000,
      py::arg("tol") = 1e-12,
      py::arg("stationarity_tol") = 1e-10,
      py::arg("memory") = 5,
      py::arg("trace") = true,
      py::arg("theta0") = py::none(),
      py::arg("unpenalized") = 0,
      "Nonprivate GIST (Gong et al. 2013, Algorithm 1; nonmonotone line search with memory m) "
      "to tolerance: the reference solution. Any Penalty.");

  m.def(
      "gist_working_set",
      [](const f64_in& x,
         const f64_in& y,
         const std::string& loss,
         const py::object& penalty,
         double lam,
         std::optional<double> gamma,
         double parameter,
         std::int64_t max_iterations,
         double tol,
         std::optional<double> stationarity_tol,
         bool trace,
         const std::optional<f64_in>& theta0,
         std::size_t unpenalized) {
        const char* fn = "solvers::gist_working_set";
        const auto v = dataset(fn, x, y);
        const losses::glm_loss l(parse_loss(loss), v, parameter);
        const auto pen = penalty_argument(penalty, lam, gamma);
        const auto th0 = start_point(fn, "theta0", theta0, v.cols);
        sol::gist_options o;
        o.max_iterations = max_iterations;
        o.tol = tol;
        o.stationarity_tol = stationarity_tol.value_or(100 * tol);
        o.trace.enabled = trace;
        py::gil_scoped_release unlocked;
        return std::visit(
            [&](const auto& raw) -> sol::solve_result {
              using P = std::decay_t<decltype(raw)>;
              if constexpr (prox::separable_penalty<P>) {
                return sol::gist_working_set(l, raw, th0, o, unpenalized);
              } else {
                core::throw_invalid(
                    fn, "penalty", pen.name, "must be separable (not a constraint set)");
              }
            },
            pen.value);
      },
      py::arg("X"),
      py::arg("y"),
      py::arg("loss") = "least_squares",
      py::arg("penalty") = "none",
      py::arg("lam") = 0.0,
      py::arg("gamma") = py::none(),
      py::arg("loss_parameter") = 1.0,
      py::arg("max_iterations") = 100000,
      py::arg("tol") = 1e-12,
      py::arg("stationarity_tol") = py::none(),
      py::arg("trace") = false,
      py::arg("theta0") = py::none(),
      py::arg("unpenalized") = 0,
      "Working-set GIST for a GLM with a separable penalty (as celer / skglm): the solver of "
      "`dpx fit` without --epsilon (stationarity_tol defaults to 100 tol, as there). The last "
      "`unpenalized` coordinates (an intercept column stored last) are not penalised.");

  for_each_generator([&]<class Gen>() {
    m.def(
        "dp_sgd",
        [](const f64_in& x,
           const f64_in& y,
           Gen& g,
           const std::string& loss,
           const py::object& penalty,
           double lam,
           std::optional<double> gamma,
           double parameter,
           std::int64_t iterations,
           double step_size,
           const std::string& schedule,
           double sampling_rate,
           double clip_norm,
           double noise_multiplier,
           double expected_batch_size,
           const std::string& output,
           bool trace,
           bool record_objective,
           const std::optional<f64_in>& theta0,
           std::size_t unpenalized,
           const std::string& noise_kind,
           bool nonprivate_diagnostics) {
          const char* fn = "solvers::dp_sgd";
          const auto v = dataset(fn, x, y);
          const losses::glm_loss l(parse_loss(loss), v, parameter);
          const auto pen = penalty_argument(penalty, lam, gamma);
          const auto th0 = start_point(fn, "theta0", theta0, v.cols);
          sol::dp_sgd_options o;
          o.noise_kind = mechanisms::parse_noise_kind(noise_kind);
          o.iterations = iterations;
          o.step_size = step_size;
          if (schedule == "inverse_sqrt")
            o.schedule = sol::step_schedule::inverse_sqrt;
          else if (schedule != "constant")
            core::throw_invalid(fn, "schedule", schedule, "must be constant or inverse_sqrt");
          o.sampling_rate = sampling_rate;
          o.clip_norm = clip_norm;
          o.noise_multiplier = noise_multiplier;
          o.expected_batch_size = expected_batch_size;
          if (output == "average")
            o.output = sol::iterate_output::average;
          else if (output != "last")
            core::throw_invalid(fn, "output", output, "must be last or average");
          o.trace.enabled = trace;
          o.trace.record_objective = record_objective;
          return private_result(with_engine(g,
                                            gil_release_threshold,
                                            [&](auto& e) {
                                              return with_penalty(
                                                  pen, v.cols, unpenalized, [&](const auto& p) {
                                                    return sol::dp_sgd(l, p, th0, o, e);
                                                  });
                                            }),
                                nonprivate_diagnostics);
        },
        py::arg("X"),
        py::arg("y"),
        py::arg("rng"),
        py::arg("loss") = "least_squares",
        py::arg("penalty") = "none",
        py::arg("lam") = 0.0,
        py::arg("gamma") = py::none(),
        py::arg("loss_parameter") = 1.0,
        py::arg("iterations") = 1000,
        py::arg("step_size") = 0.1,
        py::arg("schedule") = "constant",
        py::arg("sampling_rate") = 0.01,
        py::arg("clip_norm") = 1.0,
        py::arg("noise_multiplier") = 1.0,
        py::arg("expected_batch_size") = 0.0,
        py::arg("output") = "last",
        py::arg("trace") = true,
        py::arg("record_objective") = true,
        py::arg("theta0") = py::none(),
        py::arg("unpenalized") = 0,
        py::arg("noise_kind") = "float_safe",
        py::arg("nonprivate_diagnostics") = false,
        "DP-SGD / proximal DP-SGD (Abadi et al. 2016): Poisson subsampling with rate q, "
        "per-example gradients clipped to clip_norm, Gaussian noise noise_multiplier * "
        "clip_norm on the batch sum, divided by expected_batch_size (0: q n, treating n as "
        "public) (add/remove neighbours). noise_kind 'float_safe' (default): each clipped gradient "
        "is truncated to a 2^-30 G grid and summed exactly in integers, and the sum gets the "
        "exactly rounded continuous Gaussian (docs/theory/float-safe-dp-sgd.md); "
        "'research_grade': double-precision noise on the floating-point sum. Events (both): one "
        "PoissonSampledGaussianDpEvent per step (float-safe: at the inclusion probability as "
        "drawn, ceil(q 2^53) 2^-53). The "
        "non-private diagnostics (objective, trace, status, counters, time) are withheld (None) "
        "unless nonprivate_diagnostics=True (docs/cli.md, \"Output contract\").");
  });

  init_solvers_private(m);
  init_solvers_convex(m);
  init_online_kernel(m);
}

}  // namespace dpx::python
