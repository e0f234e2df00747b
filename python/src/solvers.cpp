// dpx.solvers (compiled part): GIST (nonprivate reference) and DP-SGD on numpy X (n x d,
// C-contiguous float64 rows: viewed without a copy; other layouts are converted once) and y.
// The result carries the iterate, the log-spaced trace and the privacy events of the run
// (dpx/solvers.py turns them into a dpx.accounting event).
#include <pybind11/stl.h>

#include <string>
#include <variant>
#include <vector>

#include "common.hpp"
#include "dpx/core/error.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/mechanisms/noise_kind.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/solvers.hpp"

namespace dpx::python {
namespace {

namespace sol = dpx::solvers;
using f64_in = py::array_t<double, py::array::c_style | py::array::forcecast>;

losses::glm_kind parse_loss(const std::string& s) {
  if (s == "least_squares") return losses::glm_kind::least_squares;
  if (s == "logistic") return losses::glm_kind::logistic;
  if (s == "huber") return losses::glm_kind::huber;
  if (s == "smoothed_hinge") return losses::glm_kind::smoothed_hinge;
  core::throw_invalid(
      "solvers", "loss", s, "must be least_squares, logistic, huber or smoothed_hinge");
}

using penalty_t = std::variant<prox::zero_penalty, prox::l1_norm>;
penalty_t parse_penalty(const std::string& s, double lam) {
  if (s == "none") return prox::zero_penalty{};
  if (s == "l1") return prox::l1_norm(lam);
  core::throw_invalid("solvers", "penalty", s, "must be none or l1");
}

// The dataset view over X (n x d) and y (n); arrays are kept alive by the caller.
losses::dataset_view view(const f64_in& x, const f64_in& y) {
  if (x.ndim() != 2) core::throw_invalid("solvers", "X", double(x.ndim()), "must be 2-dimensional");
  const auto n = static_cast<std::size_t>(x.shape(0)), d = static_cast<std::size_t>(x.shape(1));
  core::check_size("solvers", "y", static_cast<std::size_t>(y.size()), n);
  return {{x.data(), n * d}, {y.data(), n}, n, d};
}

std::vector<double> start(const std::optional<f64_in>& theta0, std::size_t d) {
  if (!theta0) return std::vector<double>(d, 0.0);
  core::check_size("solvers", "theta0", static_cast<std::size_t>(theta0->size()), d);
  return {theta0->data(), theta0->data() + d};
}

}  // namespace

void init_solvers(py::module_& m) {
  py::class_<sol::solve_result>(m, "SolveResult", "Result of a solver run (dpx::solvers).")
      .def_property_readonly(
          "x",
          [](const sol::solve_result& r) {
            return py::array_t<double>(static_cast<py::ssize_t>(r.x.size()), r.x.data());
          },
          "The returned iterate (coefficients), a new float64 array.")
      .def_property_readonly(
          "status",
          [](const sol::solve_result& r) { return sol::to_string(r.status); },
          "converged, max_iterations, line_search_failed or diverged.")
      .def_readonly("message", &sol::solve_result::message, "How the run ended, in words.")
      .def_readonly("iterations", &sol::solve_result::iterations, "Iterations performed.")
      .def_readonly("objective",
                    &sol::solve_result::objective,
                    "F(x) on the exact data (NaN if not computed; NOT private).")
      .def_readonly("seconds", &sol::solve_result::seconds, "Solve time.")
      .def_readonly("gradient_evaluations",
                    &sol::solve_result::gradient_evaluations,
                    "Full or batch gradient computations.")
      .def_property_readonly(
          "trace",
          [](const sol::solve_result& r) {
            const auto n = static_cast<py::ssize_t>(r.trace.size());
            py::array_t<std::int64_t> it(n);
            py::array_t<double> obj(n), step(n), sec(n);
            for (py::ssize_t i = 0; i < n; ++i) {
              const auto& t = r.trace[static_cast<std::size_t>(i)];
              it.mutable_at(i) = t.iteration;
              obj.mutable_at(i) = t.objective;
              step.mutable_at(i) = t.step;
              sec.mutable_at(i) = t.seconds;
            }
            py::dict d;
            d["iteration"] = it;
            d["objective"] = obj;
            d["step"] = step;
            d["seconds"] = sec;
            return d;
          },
          "Log-spaced checkpoints as a dict of arrays (iteration, objective, step, seconds); "
          "pandas.DataFrame(result.trace) makes a table.")
      .def_property_readonly(
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
      .def_readonly(
          "guarantee", &sol::solve_result::guarantee, "What the output guarantees, in words.");

  m.def(
      "gist",
      [](const f64_in& x,
         const f64_in& y,
         const std::string& loss,
         const std::string& penalty,
         double lam,
         double parameter,
         std::int64_t max_iterations,
         double tol,
         const std::optional<f64_in>& theta0) {
        const auto v = view(x, y);
        const losses::glm_loss l(parse_loss(loss), v, parameter);
        const auto pen = parse_penalty(penalty, lam);
        const auto th0 = start(theta0, v.cols);
        sol::gist_options o;
        o.max_iterations = max_iterations;
        o.tol = tol;
        py::gil_scoped_release unlocked;
        return std::visit([&](const auto& p) { return sol::gist(l, p, th0, o); }, pen);
      },
      py::arg("X"),
      py::arg("y"),
      py::arg("loss") = "least_squares",
      py::arg("penalty") = "none",
      py::arg("lam") = 0.0,
      py::arg("loss_parameter") = 1.0,
      py::arg("max_iterations") = 100000,
      py::arg("tol") = 1e-12,
      py::arg("theta0") = py::none(),
      "Nonprivate GIST (Gong et al. 2013) to tolerance: the reference solution.");

  for_each_generator([&]<class Gen>() {
    m.def(
        "dp_sgd",
        [](const f64_in& x,
           const f64_in& y,
           Gen& g,
           const std::string& loss,
           const std::string& penalty,
           double lam,
           double parameter,
           std::int64_t iterations,
           double step_size,
           double sampling_rate,
           double clip_norm,
           double noise_multiplier,
           double expected_batch_size,
           const std::optional<f64_in>& theta0,
           const std::string& noise) {
          const auto v = view(x, y);
          const losses::glm_loss l(parse_loss(loss), v, parameter);
          const auto pen = parse_penalty(penalty, lam);
          const auto th0 = start(theta0, v.cols);
          sol::dp_sgd_options o;
          o.iterations = iterations;
          o.step_size = step_size;
          o.sampling_rate = sampling_rate;
          o.clip_norm = clip_norm;
          o.noise_multiplier = noise_multiplier;
          o.expected_batch_size = expected_batch_size;
          o.noise_kind = mechanisms::parse_noise_kind(noise);
          return with_engine(g, gil_release_threshold, [&](auto& e) {
            return std::visit(
                [&](const auto& p) {
                  // Penalty on all d coordinates, as `dpx fit` without an intercept.
                  const sol::partially_penalized<std::decay_t<decltype(p)>> pp{p, v.cols};
                  return sol::dp_sgd(l, pp, th0, o, e);
                },
                pen);
          });
        },
        py::arg("X"),
        py::arg("y"),
        py::arg("rng"),
        py::arg("loss") = "least_squares",
        py::arg("penalty") = "none",
        py::arg("lam") = 0.0,
        py::arg("loss_parameter") = 1.0,
        py::arg("iterations") = 1000,
        py::arg("step_size") = 0.1,
        py::arg("sampling_rate") = 0.01,
        py::arg("clip_norm") = 1.0,
        py::arg("noise_multiplier") = 1.0,
        py::arg("expected_batch_size") = 0.0,
        py::arg("theta0") = py::none(),
        py::arg("noise") = "float_safe",
        "DP-SGD / proximal DP-SGD (Abadi et al. 2016): Poisson subsampling with rate q, "
        "per-example gradients clipped to clip_norm, Gaussian noise noise_multiplier * "
        "clip_norm on the batch sum (add/remove neighbours). noise: 'float_safe' (default: "
        "exact discrete Gaussian, one zCDP event per step, no subsampling amplification) or "
        "'research_grade' (continuous Gaussian, subsampled-Gaussian events).");
  });
}

}  // namespace dpx::python
