// dpx.solvers (compiled part, continued): Frank-Wolfe on the L1 ball and DP Frank-Wolfe (Talwar,
// Thakurta & Zhang 2015; frank_wolfe.hpp), output and objective perturbation (Chaudhuri,
// Monteleoni & Sarwate 2011; Kifer, Smith & Thakurta 2012; perturbation.hpp), and their
// calibration functions, on numpy X, y. Every option's default is the C++ options struct's.
//
// Noise kind: these three draw research-grade noise only (the exponential mechanism's Gumbel
// draws and the double-precision Gaussian; docs/solvers.md). As everywhere in dpx, research-grade
// noise must be asked for by name: `noise_kind` defaults to "float_safe", which a run that draws
// noise refuses (naming noise_kind) rather than silently releasing unsafe noise.
#include <pybind11/stl.h>

#include <string>
#include <tuple>

#include "dpx/mechanisms/noise_kind.hpp"
#include "dpx/solvers/frank_wolfe.hpp"
#include "dpx/solvers/perturbation.hpp"
#include "solvers_common.hpp"

namespace dpx::python {
namespace {

namespace sol = dpx::solvers;

const sol::frank_wolfe_options fw_defaults{};
const sol::output_perturbation_options op_defaults{};
const sol::objective_perturbation_options obj_defaults{};

void require_research_grade(const char* fn, const std::string& noise_kind, bool draws_noise) {
  const auto kind = mechanisms::parse_noise_kind(noise_kind);
  if (draws_noise && kind == mechanisms::noise_kind::float_safe)
    core::throw_invalid(fn,
                        "noise_kind",
                        noise_kind,
                        "this solver draws research-grade noise only (docs/solvers.md); pass "
                        "noise_kind='research_grade' to accept it");
}

// ---- options from the Python keywords (one builder and one keyword list per solver) ----------

sol::frank_wolfe_options fw_options(std::int64_t iterations,
                                    double radius,
                                    bool private_selection,
                                    double clip_norm,
                                    double coordinate_bound,
                                    const std::string& relation,
                                    std::size_t public_size,
                                    const std::string& calibration,
                                    std::optional<double> epsilon,
                                    std::optional<double> delta,
                                    double step_epsilon) {
  sol::frank_wolfe_options o;
  o.iterations = iterations;
  o.radius = radius;
  o.private_selection = private_selection;
  o.clip_norm = clip_norm;
  o.coordinate_bound = coordinate_bound;
  set_privacy(o,
              "solvers::frank_wolfe",
              relation,
              public_size,
              target_argument("solvers::frank_wolfe", epsilon, delta));
  o.calibration = sol::parse_noise_calibration(calibration);
  o.step_epsilon = step_epsilon;
  return o;
}

auto fw_keywords() {
  const auto& d = fw_defaults;
  return std::make_tuple(py::arg("iterations") = d.iterations,
                         py::arg("radius") = d.radius,
                         py::arg("private_selection") = d.private_selection,
                         py::arg("clip_norm") = d.clip_norm,
                         py::arg("coordinate_bound") = d.coordinate_bound,
                         py::arg("relation") = relation_name(d.relation),
                         py::arg("public_size") = d.public_size,
                         py::arg("calibration") = sol::to_string(d.calibration),
                         py::arg("epsilon") = py::none(),
                         py::arg("delta") = py::none(),
                         py::arg("step_epsilon") = d.step_epsilon);
}

sol::strongly_convex_solve_options solve_options(double relative_tolerance,
                                                 std::int64_t max_iterations,
                                                 double smoothness_guess) {
  return {relative_tolerance, max_iterations, smoothness_guess};
}

sol::output_perturbation_options op_options(double regularization,
                                            double clip_norm,
                                            const std::string& relation,
                                            std::size_t public_size,
                                            const std::string& calibration,
                                            std::optional<double> epsilon,
                                            std::optional<double> delta,
                                            double noise_scale,
                                            double relative_tolerance,
                                            std::int64_t max_iterations,
                                            double smoothness_guess) {
  sol::output_perturbation_options o;
  o.regularization = regularization;
  o.clip_norm = clip_norm;
  o.calibration = sol::parse_noise_calibration(calibration);
  // epsilon / delta default to the C++ default target under tight; fixed takes none.
  const bool calibrated = o.calibration != sol::noise_calibration::fixed;
  set_privacy(o,
              "solvers::output_perturbation",
              relation,
              public_size,
              target_argument("solvers::output_perturbation",
                              epsilon,
                              delta,
                              calibrated ? op_defaults.target : std::nullopt));
  o.noise_scale = noise_scale;
  o.solve = solve_options(relative_tolerance, max_iterations, smoothness_guess);
  return o;
}

auto solve_keywords(const sol::strongly_convex_solve_options& d) {
  return std::make_tuple(py::arg("relative_tolerance") = d.relative_tolerance,
                         py::arg("max_iterations") = d.max_iterations,
                         py::arg("smoothness_guess") = d.smoothness_guess);
}

auto op_keywords() {
  const auto& d = op_defaults;
  return std::tuple_cat(std::make_tuple(py::arg("regularization") = d.regularization,
                                        py::arg("clip_norm") = d.clip_norm,
                                        py::arg("relation") = relation_name(d.relation),
                                        py::arg("public_size") = d.public_size,
                                        py::arg("calibration") = sol::to_string(d.calibration),
                                        py::arg("epsilon") = py::none(),
                                        py::arg("delta") = py::none(),
                                        py::arg("noise_scale") = d.noise_scale),
                        solve_keywords(d.solve));
}

sol::objective_perturbation_options obj_options(double regularization,
                                                double row_norm_bound,
                                                const std::string& relation,
                                                std::size_t public_size,
                                                double epsilon,
                                                double delta,
                                                double approx_fraction,
                                                double relative_tolerance,
                                                std::int64_t max_iterations,
                                                double smoothness_guess) {
  sol::objective_perturbation_options o;
  o.regularization = regularization;
  o.row_norm_bound = row_norm_bound;
  set_privacy(o, "solvers::objective_perturbation", relation, public_size, epsilon, delta);
  o.approx_fraction = approx_fraction;
  o.solve = solve_options(relative_tolerance, max_iterations, smoothness_guess);
  return o;
}

auto obj_keywords() {
  const auto& d = obj_defaults;
  return std::tuple_cat(std::make_tuple(py::arg("regularization") = d.regularization,
                                        py::arg("row_norm_bound") = d.row_norm_bound,
                                        py::arg("relation") = relation_name(d.relation),
                                        py::arg("public_size") = d.public_size,
                                        py::arg("epsilon") = d.target.epsilon,
                                        py::arg("delta") = d.target.delta,
                                        py::arg("approx_fraction") = d.approx_fraction),
                        solve_keywords(d.solve));
}

/// Frank-Wolfe's calibration (frank_wolfe_step_epsilon, frank_wolfe_utility_sensitivity).
struct fw_calibration {
  double step_epsilon = 0;         ///< eps0 of each exponential-mechanism selection
  double utility_sensitivity = 0;  ///< Delta_u
  double noise_scale = 0;          ///< Gumbel scale 2 Delta_u / eps0 in utility units
};

fw_calibration fw_calibrate(const sol::frank_wolfe_options& o, std::size_t n) {
  o.validate();
  fw_calibration c;
  c.step_epsilon = sol::frank_wolfe_step_epsilon(o);
  c.utility_sensitivity = sol::frank_wolfe_utility_sensitivity(o, n);
  if (c.step_epsilon > 0) c.noise_scale = 2.0 * c.utility_sensitivity / c.step_epsilon;
  return c;
}

/// Binds name(n, <option keywords>) -> calibrate(build(options...), n).
template <class Opt, class... T, class Cal, class... Kw>
void def_calibration(py::module_& m,
                     const char* name,
                     Opt (*build)(T...),
                     Cal calibrate,
                     std::tuple<Kw...> keywords,
                     const char* doc) {
  std::apply(
      [&](const auto&... kw) {
        m.def(
            name,
            [build, calibrate](std::size_t n, T... v) { return calibrate(build(v...), n); },
            py::arg("n"),
            kw...,
            doc);
      },
      keywords);
}

/// The extra (non-option) parameter types of a solver function, after the option keywords.
template <class... E>
struct extras {};

/// Binds name(X, y, rng, <option keywords>, <extra keywords>) -> solve(X, y, rng,
/// build(options...), extras...); `keywords` lists the option keywords then the extras'.
template <class Gen, class Opt, class... T, class... E, class Solve, class... Kw>
void def_solver(py::module_& m,
                const char* name,
                Opt (*build)(T...),
                extras<E...>,
                Solve solve,
                std::tuple<Kw...> keywords,
                const char* doc) {
  std::apply(
      [&](const auto&... kw) {
        m.def(
            name,
            [build, solve](const f64_in& x, const f64_in& y, Gen& g, T... v, E... e) {
              return solve(x, y, g, build(v...), e...);
            },
            py::arg("X"),
            py::arg("y"),
            py::arg("rng"),
            kw...,
            doc);
      },
      keywords);
}

auto loss_keywords(const char* loss) {
  return std::make_tuple(py::arg("loss") = loss, py::arg("loss_parameter") = 1.0);
}

/// Binds an output / objective perturbation solver: name(X, y, rng, <option keywords>, loss,
/// loss_parameter, noise_kind); `noisy(options)` says whether the run draws noise (then
/// noise_kind must be research_grade), `solve(loss, options, engine)` runs it.
template <class Gen, class Opt, class... T, class... Kw, class Noisy, class Solve>
void def_perturbation(py::module_& m,
                      const char* name,
                      Opt (*build)(T...),
                      std::tuple<Kw...> keywords,
                      const char* default_loss,
                      Noisy noisy,
                      Solve solve,
                      const char* doc) {
  const std::string fn = std::string("solvers::") + name;
  def_solver<Gen>(
      m,
      name,
      build,
      extras<const std::string&, double, const std::string&, bool>{},
      [fn, noisy, solve](const f64_in& x,
                         const f64_in& y,
                         Gen& g,
                         const Opt& o,
                         const std::string& loss,
                         double parameter,
                         const std::string& noise_kind,
                         bool nonprivate_diagnostics) {
        require_research_grade(fn.c_str(), noise_kind, noisy(o));
        const auto v = dataset(fn.c_str(), x, y);
        const losses::glm_loss l(parse_loss(loss), v, parameter);
        auto opt = o;
        opt.noise_kind = mechanisms::parse_noise_kind(noise_kind);
        return private_result(
            with_engine(g, gil_release_threshold, [&](auto& e) { return solve(l, opt, e); }),
            nonprivate_diagnostics);
      },
      std::tuple_cat(keywords,
                     loss_keywords(default_loss),
                     std::make_tuple(py::arg("noise_kind") = "float_safe",
                                     py::arg("nonprivate_diagnostics") = false)),
      doc);
}

/// The result classes of the calibration functions.
void bind_calibrations(py::module_& m) {
  py::class_<fw_calibration>(m, "FrankWolfeCalibration", "Calibration of DP Frank-Wolfe.")
      .def_readonly("step_epsilon",
                    &fw_calibration::step_epsilon,
                    "eps0 of each exponential-mechanism selection (0 when not private).")
      .def_readonly("utility_sensitivity",
                    &fw_calibration::utility_sensitivity,
                    "Delta_u = r ||g(D) - g(D')||_inf bound (0 when not private).")
      .def_readonly("noise_scale",
                    &fw_calibration::noise_scale,
                    "Gumbel scale 2 Delta_u / eps0 in utility units (0 when not private).");
  using pc = sol::perturbation_calibration;
  py::class_<pc>(m, "PerturbationCalibration", "Calibration of output / objective perturbation.")
      .def_readonly("sensitivity", &pc::sensitivity, "L2 sensitivity of the released minimiser.")
      .def_readonly("noise_scale", &pc::noise_scale, "sigma of the output noise.")
      .def_readonly("tolerance", &pc::tolerance, "tau, the certified gradient-norm bound.")
      .def_readonly("regularization",
                    &pc::regularization,
                    "lambda actually used (objective perturbation: lambda' >= lambda_min).")
      .def_readonly("objective_sigma",
                    &pc::objective_sigma,
                    "Objective perturbation: sigma of the linear term b (0 otherwise).")
      .def_readonly(
          "epsilon_jacobian", &pc::epsilon_jacobian, "Objective perturbation: eps_J (0 otherwise).")
      .def_readonly("epsilon_main",
                    &pc::epsilon_main,
                    "Objective perturbation: eps_1 of the perturbed minimiser (0 otherwise).")
      .def_readonly("delta_main",
                    &pc::delta_main,
                    "Objective perturbation: delta_1 of the perturbed minimiser (0 otherwise).")
      .def("__repr__", [](const pc& c) {
        const auto f = [](double x) { return core::format_double(x); };
        return "PerturbationCalibration(sensitivity=" + f(c.sensitivity) +
               ", noise_scale=" + f(c.noise_scale) + ", tolerance=" + f(c.tolerance) +
               ", regularization=" + f(c.regularization) +
               ", objective_sigma=" + f(c.objective_sigma) + ")";
      });
}

constexpr const char* fw_doc = R"doc(Frank-Wolfe on the L1 ball {||x||_1 <= radius} (Jaggi 2013)
and DP Frank-Wolfe (Talwar, Thakurta & Zhang 2015, Alg. 2; docs/solvers.md): T = iterations
steps x <- (1 - mu) x + mu v, mu = 2 / (t + 2), v the vertex +-radius e_j minimising <v, grad>
(nonprivate) or chosen by the exponential mechanism (private_selection=True).

Private selection: utility sensitivity 2 r G / n (replace-one) or r G / n_bar (add/remove, the
PUBLIC public_size) with per-example gradients clipped to clip_norm = G, or (clip_norm = 0)
with every per-example gradient's coordinates clamped to [-coordinate_bound, coordinate_bound]
(G = coordinate_bound in L_inf; exact for records inside the bound, none refused).
Per-step eps0: "tight" (zCDP of bounded-range selections), "paper" (advanced composition) or
"fixed" (step_epsilon). Events: one ExponentialMechanismDpEvent per iteration. Research-grade
noise only: a private run needs noise_kind="research_grade".
The target: epsilon and delta (default None) are required by private_selection with calibration
tight or paper, and refused (ValueError naming the option) where they would be ignored: without
private_selection (the default, NOT private) naming private_selection, and with calibration
"fixed" (step_epsilon is spent) naming calibration.
A private run withholds the non-private diagnostics (objective, trace, status, counters, time:
None) unless nonprivate_diagnostics=True (docs/cli.md, "Output contract").)doc";

constexpr const char* op_doc = R"doc(Output perturbation (Chaudhuri, Monteleoni & Sarwate 2011,
Alg. 1, Gaussian version; docs/solvers.md): the minimiser of the L2-regularised ERM with
per-example gradients clipped to clip_norm, certified to ||grad J|| <= tau (tau =
relative_tolerance * G / m), plus N(0, sigma^2 I) with sigma calibrated to the sensitivity
(2G/n + 2 tau) / lambda (replace-one) or (G/n_bar + 2 tau) / lambda (add/remove, PUBLIC
public_size). calibration "tight" (analytic Gaussian at (epsilon, delta); they default to 1 and
1e-6, the C++ options' target) or "fixed" (noise_scale; 0 = the nonprivate certified
minimiser), which takes no target: epsilon or delta with it raise ValueError naming
calibration. Event: one GaussianDpEvent. Starts at 0.
Research-grade noise only: a noisy run needs noise_kind="research_grade".
A private run withholds the non-private diagnostics (objective, trace, status, counters, time:
None) unless nonprivate_diagnostics=True (docs/cli.md, "Output contract").)doc";

constexpr const char* obj_doc = R"doc(Objective perturbation for logistic regression (Chaudhuri,
Monteleoni & Sarwate 2011, Alg. 2; Kifer, Smith & Thakurta 2012, Thm. 2; docs/solvers.md):
minimise (1/m)[sum_i l_i + b^T theta] + (lambda'/2)||theta||^2 with b ~ N(0, sigma^2 I),
lambda' = max(regularization, lambda_min), rows with norm above the PUBLIC row_norm_bound
projected onto it (no row is refused; the count is not released);
the inexact minimiser is paid for by a small Gaussian output release (Iyengar et al. 2019) with
approx_fraction of (epsilon, delta). Events: EpsilonDeltaDpEvent(eps_1, delta_1) and one
GaussianDpEvent. Research-grade noise only: needs noise_kind="research_grade".
A private run withholds the non-private diagnostics (objective, trace, status, counters, time:
None) unless nonprivate_diagnostics=True (docs/cli.md, "Output contract").)doc";

}  // namespace

void init_solvers_convex(py::module_& m) {
  bind_calibrations(m);
  def_calibration(m,
                  "frank_wolfe_calibrate",
                  &fw_options,
                  &fw_calibrate,
                  fw_keywords(),
                  "The per-step eps0, the utility sensitivity and the Gumbel scale of dpx.solvers."
                  "frank_wolfe with these options for n rows (frank_wolfe_step_epsilon, "
                  "frank_wolfe_utility_sensitivity).");
  def_calibration(m,
                  "output_perturbation_calibrate",
                  &op_options,
                  &sol::output_perturbation_calibrate,
                  op_keywords(),
                  "Sensitivity (with the 2 tau / lambda term), tau and sigma of "
                  "dpx.solvers.output_perturbation with these options for n rows.");
  def_calibration(m,
                  "objective_perturbation_calibrate",
                  &obj_options,
                  &sol::objective_perturbation_calibrate,
                  obj_keywords(),
                  "lambda', eps_J, (eps_1, delta_1), the sigma of b and of the output release of "
                  "dpx.solvers.objective_perturbation with these options for n rows.");

  for_each_generator([&]<class Gen>() {
    def_solver<Gen>(
        m,
        "frank_wolfe",
        &fw_options,
        extras<const std::string&,
               double,
               bool,
               bool,
               const std::optional<f64_in>&,
               const std::string&,
               bool>{},
        [](const f64_in& x,
           const f64_in& y,
           Gen& g,
           const sol::frank_wolfe_options& o,
           const std::string& loss,
           double parameter,
           bool trace,
           bool record_objective,
           const std::optional<f64_in>& x0,
           const std::string& noise_kind,
           bool nonprivate_diagnostics) {
          const char* fn = "solvers::frank_wolfe";
          require_research_grade(fn, noise_kind, o.private_selection);
          const auto v = dataset(fn, x, y);
          const losses::glm_loss l(parse_loss(loss), v, parameter);
          const auto start = start_point(fn, "x0", x0, v.cols);
          auto opt = o;
          opt.noise_kind = mechanisms::parse_noise_kind(noise_kind);
          opt.trace.enabled = trace;
          opt.trace.record_objective = record_objective;
          return private_result(
              with_engine(g,
                          gil_release_threshold,
                          [&](auto& e) { return sol::frank_wolfe(l, start, opt, e); }),
              nonprivate_diagnostics);
        },
        std::tuple_cat(fw_keywords(),
                       loss_keywords("least_squares"),
                       std::make_tuple(py::arg("trace") = true,
                                       py::arg("record_objective") = true,
                                       py::arg("x0") = py::none(),
                                       py::arg("noise_kind") = "float_safe",
                                       py::arg("nonprivate_diagnostics") = false)),
        fw_doc);
    def_perturbation<Gen>(
        m,
        "output_perturbation",
        &op_options,
        op_keywords(),
        "least_squares",
        [](const sol::output_perturbation_options& o) {
          return o.calibration != sol::noise_calibration::fixed || o.noise_scale > 0;
        },
        [](const auto& l, const auto& o, auto& e) { return sol::output_perturbation(l, o, e); },
        op_doc);
    def_perturbation<Gen>(
        m,
        "objective_perturbation",
        &obj_options,
        obj_keywords(),
        "logistic",
        [](const sol::objective_perturbation_options&) { return true; },
        [](const auto& l, const auto& o, auto& e) { return sol::objective_perturbation(l, o, e); },
        obj_doc);
  });
}

}  // namespace dpx::python
