// dpx.solvers (compiled part, continued): ISTDP (Yuan & Peng 2023, published and strict
// variants; docs/theory/istdp.md) and (noisy) projected gradient descent
// (docs/theory/noisy-pgd.md) on numpy X, y. The defaults of every option are the C++ options
// structs' own (read from them here, never restated).
#include <pybind11/stl.h>

#include <string>

#include "dpx/mechanisms/noise_kind.hpp"
#include "solvers_common.hpp"

namespace dpx::python {
namespace {

namespace sol = dpx::solvers;

sol::iterate_output parse_output(const char* fn, const std::string& s) {
  if (s == "average") return sol::iterate_output::average;
  if (s == "last") return sol::iterate_output::last;
  core::throw_invalid(fn, "output", s, "must be average or last");
}

const sol::istdp_options istdp_defaults{};
const sol::pgd_options pgd_defaults{};

}  // namespace

void init_solvers_private(py::module_& m) {
  for_each_generator([&]<class Gen>() {
    m.def(
        "istdp",
        [](const f64_in& x,
           const f64_in& y,
           Gen& g,
           const std::string& loss,
           const py::object& penalty,
           double lam,
           std::optional<double> gamma,
           double parameter,
           const std::string& variant,
           std::int64_t iterations,
           double eta,
           double beta,
           double alpha_min,
           double alpha_max,
           std::int64_t max_backtracks,
           double public_smoothness,
           const std::string& sensitivity,
           double gradient_bound,
           double clip_norm,
           const std::string& relation,
           std::size_t public_size,
           const std::string& calibration,
           std::optional<double> epsilon,
           std::optional<double> delta,
           bool allow_nonprivate,
           double sigma,
           bool trace,
           bool record_objective,
           const std::optional<f64_in>& theta0,
           const std::optional<f64_in>& theta1,
           std::size_t unpenalized,
           const std::string& noise_kind,
           bool nonprivate_diagnostics) {
          const char* fn = "solvers::istdp";
          const auto v = dataset(fn, x, y);
          const losses::glm_loss l(parse_loss(loss), v, parameter);
          const auto pen = penalty_argument(penalty, lam, gamma);
          sol::istdp_options o;
          o.noise_kind = mechanisms::parse_noise_kind(noise_kind);
          o.variant = sol::parse_istdp_variant(variant);
          o.iterations = iterations;
          o.eta = eta;
          o.beta = beta;
          o.alpha_min = alpha_min;
          o.alpha_max = alpha_max;
          o.max_backtracks = max_backtracks;
          o.public_smoothness = public_smoothness;
          o.sensitivity = sol::parse_sensitivity_mode(sensitivity);
          o.gradient_bound = gradient_bound;
          o.clip_norm = clip_norm;
          o.calibration = sol::parse_noise_calibration(calibration);
          // epsilon / delta default to the C++ default target where the calibration spends one
          // (tight, paper); calibration fixed has none, and refuses a given one.
          const bool calibrated = o.calibration != sol::noise_calibration::fixed;
          set_privacy(o,
                      fn,
                      relation,
                      public_size,
                      target_argument(
                          fn, epsilon, delta, calibrated ? istdp_defaults.target : std::nullopt));
          o.allow_nonprivate = allow_nonprivate;
          o.sigma = sigma;
          o.trace.enabled = trace;
          o.trace.record_objective = record_objective;
          // strict starts from theta1 alone: a theta0 would be silently ignored, so it is refused.
          // as_published needs it (the first BB step uses theta0 and theta1).
          const bool strict = o.variant == sol::istdp_variant::strict;
          if (strict && theta0)
            core::throw_invalid(
                fn, "theta0", "given", "is only used by variant as_published (strict ignores it)");
          if (!strict && !theta0)
            core::throw_invalid(
                fn, "theta0", "None", "is required by variant as_published (theta0 != theta1)");
          const std::vector<double> th0 =
              strict ? std::vector<double>{} : start_point(fn, "theta0", theta0, v.cols);
          const auto th1 = start_point(fn, "theta1", theta1, v.cols);
          return private_result(
              with_engine(g,
                          gil_release_threshold,
                          [&](auto& e) {
                            return with_penalty(pen, v.cols, unpenalized, [&](const auto& p) {
                              return strict ? sol::istdp(l, p, th1, o, e)
                                            : sol::istdp(l, p, th0, th1, o, e);
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
        py::arg("variant") = sol::to_string(istdp_defaults.variant),
        py::arg("iterations") = istdp_defaults.iterations,
        py::arg("eta") = istdp_defaults.eta,
        py::arg("beta") = istdp_defaults.beta,
        py::arg("alpha_min") = istdp_defaults.alpha_min,
        py::arg("alpha_max") = istdp_defaults.alpha_max,
        py::arg("max_backtracks") = istdp_defaults.max_backtracks,
        py::arg("public_smoothness") = istdp_defaults.public_smoothness,
        py::arg("sensitivity") = sol::to_string(istdp_defaults.sensitivity),
        py::arg("gradient_bound") = istdp_defaults.gradient_bound,
        py::arg("clip_norm") = istdp_defaults.clip_norm,
        py::arg("relation") = relation_name(istdp_defaults.relation),
        py::arg("public_size") = istdp_defaults.public_size,
        py::arg("calibration") = sol::to_string(istdp_defaults.calibration),
        py::arg("epsilon") = py::none(),
        py::arg("delta") = py::none(),
        py::arg("allow_nonprivate") = istdp_defaults.allow_nonprivate,
        py::arg("sigma") = istdp_defaults.sigma,
        py::arg("trace") = true,
        py::arg("record_objective") = true,
        py::arg("theta0") = py::none(),
        py::arg("theta1") = py::none(),
        py::arg("unpenalized") = 0,
        py::arg("noise_kind") = "float_safe",
        py::arg("nonprivate_diagnostics") = false,
        R"doc(ISTDP (Yuan & Peng 2023, Algorithm 1; docs/theory/istdp.md): T - 1 noisy-gradient
proximal steps with Barzilai-Borwein step sizes, T = iterations.

variant="strict" (default) is private by construction: the BB step uses the noisy gradients,
alpha_max <= 1 / public_smoothness, no line search; it starts from theta1 alone (passing theta0
raises ValueError). variant="as_published" is the paper's algorithm (BB step and line search on
the EXACT gradients and objective): its output is NOT differentially private (result.guarantee
says so) and it needs theta0 != theta1. With an (epsilon, delta) target (calibration tight or
paper) it raises ValueError naming variant unless allow_nonprivate=True: the explicit opt-in to a
NOT private fit whose target calibrates only the noisy gradients.
Sensitivity: "clipping" (per-example gradients clipped to clip_norm; 2G/n replace-one, G/n_bar
add/remove with the PUBLIC public_size) or "gradient_bound" (2U, U = gradient_bound).
Calibration: "tight" (exact composition of the T - 1 Gaussian releases to (epsilon, delta);
epsilon and delta default to 1 and 1e-5, the C++ options' target), "paper" (Theorem 3.3) or
"fixed" (sigma; 0 = noiseless, NOT private), which spends sigma and takes no target: passing
epsilon or delta with it raises ValueError naming calibration. Events: one GaussianDpEvent per
release. Same inputs and seed as `dpx fit --solver istdp` -> bit-identical coefficients.
A private run withholds the non-private diagnostics (objective, trace, status, counters, time:
None) unless nonprivate_diagnostics=True (docs/cli.md, "Output contract").)doc");

    m.def(
        "pgd",
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
           const std::string& output,
           const std::string& noise,
           double clip_norm,
           const std::string& relation,
           std::size_t public_size,
           const std::string& calibration,
           const std::string& laplace_rule,
           std::optional<double> epsilon,
           std::optional<double> delta,
           double noise_scale,
           bool trace,
           bool record_objective,
           const std::optional<f64_in>& w0,
           std::size_t unpenalized,
           const std::string& noise_kind,
           bool nonprivate_diagnostics) {
          const char* fn = "solvers::pgd";
          const auto v = dataset(fn, x, y);
          const losses::glm_loss l(parse_loss(loss), v, parameter);
          const auto pen = penalty_argument(penalty, lam, gamma);
          sol::pgd_options o;
          o.noise_kind = mechanisms::parse_noise_kind(noise_kind);
          o.iterations = iterations;
          o.step_size = step_size;
          o.output = parse_output(fn, output);
          o.noise = sol::parse_pgd_noise(noise);
          o.clip_norm = clip_norm;
          set_privacy(o, fn, relation, public_size, target_argument(fn, epsilon, delta));
          o.calibration = sol::parse_noise_calibration(calibration);
          o.laplace_rule = sol::parse_laplace_composition(laplace_rule);
          o.noise_scale = noise_scale;
          o.trace.enabled = trace;
          o.trace.record_objective = record_objective;
          const auto start = start_point(fn, "w0", w0, v.cols);
          return private_result(with_engine(g,
                                            gil_release_threshold,
                                            [&](auto& e) {
                                              return with_penalty(
                                                  pen, v.cols, unpenalized, [&](const auto& p) {
                                                    return sol::pgd(l, p, start, o, e);
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
        py::arg("iterations") = pgd_defaults.iterations,
        py::arg("step_size") = pgd_defaults.step_size,
        py::arg("output") = "average",
        py::arg("noise") = sol::to_string(pgd_defaults.noise),
        py::arg("clip_norm") = pgd_defaults.clip_norm,
        py::arg("relation") = relation_name(pgd_defaults.relation),
        py::arg("public_size") = pgd_defaults.public_size,
        py::arg("calibration") = sol::to_string(pgd_defaults.calibration),
        py::arg("laplace_rule") = sol::to_string(pgd_defaults.laplace_rule),
        py::arg("epsilon") = py::none(),
        py::arg("delta") = py::none(),
        py::arg("noise_scale") = pgd_defaults.noise_scale,
        py::arg("trace") = true,
        py::arg("record_objective") = true,
        py::arg("w0") = py::none(),
        py::arg("unpenalized") = 0,
        py::arg("noise_kind") = "float_safe",
        py::arg("nonprivate_diagnostics") = false,
        R"doc((Noisy) projected gradient descent (docs/theory/noisy-pgd.md): w_t = P(w_{t-1} - eta g_t)
with P the penalty's prox or a constraint set's projection (Penalty.l2_ball, box, simplex,
l1_ball); output the average of w_1..w_T (Theorem 1) or the last iterate.

noise: "none" (default; clip_norm 0 = exact gradient), "gaussian" (tight or fixed sigma; one
GaussianDpEvent per iteration), "laplace_per_coordinate" (T d releases, laplace_rule basic or
advanced; one LaplaceDpEvent per coordinate release) or "laplace_l2" (one EpsilonDeltaDpEvent per
iteration). The default is the NONPRIVATE fit, with no target: a private fit names its noise and
its target, e.g. noise="gaussian", epsilon=1, delta=1e-5 (calibration tight or paper need both;
basic per-coordinate Laplace needs epsilon only). Passing epsilon or delta with noise="none"
raises ValueError naming noise (it would silently be nonprivate), and with calibration="fixed"
(noise_scale is spent; result.privacy_events is the guarantee) naming calibration. Per-example gradients clipped to clip_norm: 2G/n replace-one, G/n_bar add/remove
with the PUBLIC public_size. Same inputs and seed as `dpx fit --solver noisy_pgd` (gaussian,
output last, step 1 / smoothness) -> bit-identical coefficients. A noisy run withholds the
non-private diagnostics (objective, trace, status, counters, time: None) unless
nonprivate_diagnostics=True (docs/cli.md, "Output contract").)doc");
  });
}

}  // namespace dpx::python
