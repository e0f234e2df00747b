// dpx.solvers.OnlineKernelRegression: the differentially private online kernel regressor of
// Nie & Wang 2017 (docs/theory/online-kernel.md) over numpy inputs. The C++ object is not
// thread-safe; the binding serialises calls on one object with a mutex (fit releases the GIL).
// The output contract (dpx/core/output_contract.hpp, surface OnlineKernelRegression) classifies
// every attribute and method result; each is bound through `contract`, which checks its class
// against the table, and the non-private diagnostics (predict, coefficients, centres: they read
// the training data without noise) refuse unless the learner was built with
// nonprivate_diagnostics=True or privacy="none".
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "dpx/core/output_contract.hpp"
#include "dpx/mechanisms/noise_kind.hpp"
#include "solvers_common.hpp"

namespace dpx::python {
namespace {

namespace sol = dpx::solvers;

constexpr const char* surface = "OnlineKernelRegression";

struct okr {
  sol::online_kernel_regression model;
  std::size_t dim;
  sol::kernel kernel;
  sol::online_kernel_options options;
  /// Whether the non-private diagnostics can be read: asked for, or nothing is private.
  bool diagnostics;
  std::mutex mutex;
  okr(sol::kernel k, std::size_t p, sol::online_kernel_options o, bool nonprivate_diagnostics)
      : model(k, p, o),
        dim(p),
        kernel(k),
        options(o),
        diagnostics(nonprivate_diagnostics || o.privacy == sol::kernel_privacy::none) {}
};

/// `name`, after checking that the output contract gives it class `kind` (a binding that
/// disagrees with the table fails at import, never silently).
const char* contract(const char* name, core::output_class kind) {
  if (core::classify(surface, name) != kind)
    throw std::logic_error(std::string(surface) + "." + name + " is bound as " +
                           std::string(core::to_string(kind)) + " but the output contract says " +
                           std::string(core::to_string(core::classify(surface, name))));
  return name;
}
constexpr auto as_release = core::output_class::release;
constexpr auto as_public_input = core::output_class::public_input;
constexpr auto as_diagnostic = core::output_class::nonprivate_diagnostic;

/// The non-private diagnostics of the table, "predict, coefficients, centres".
std::string diagnostic_names() {
  std::string s;
  for (const auto& f : core::output_contract())
    if (f.surface == surface && f.kind == as_diagnostic)
      s += (s.empty() ? "" : ", ") + std::string(f.field);
  return s;
}

/// Refuses a non-private diagnostic of a private learner built without the opt-in.
void require_diagnostics(const okr& r, const char* name) {
  if (r.diagnostics) return;
  core::throw_invalid(std::string(surface) + "." + name,
                      "nonprivate_diagnostics",
                      "False",
                      std::string(name) +
                          " reads the training data without noise, so it is NOT covered by the "
                          "privacy guarantee; construct the learner with "
                          "nonprivate_diagnostics=True to read it");
}

// repr: the public inputs; the diagnostics are named and labelled, never printed.
std::string okr_repr(okr& r) {
  std::int64_t steps = 0;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    steps = r.model.steps();
  }
  const auto privacy = r.options.privacy;
  std::string s = std::string(surface) + "(input_dim=" + std::to_string(r.dim) + ", kernel='" +
                  sol::to_string(r.kernel.kind) + "', privacy='" + sol::to_string(privacy) + "'";
  if (privacy != sol::kernel_privacy::none)
    s += ", epsilon=" + core::format_double(r.options.target->epsilon);
  if (privacy == sol::kernel_privacy::function_release)
    s += ", delta=" + core::format_double(r.options.target->delta);
  s += ", steps=" + std::to_string(steps);
  if (privacy == sol::kernel_privacy::none)
    return s + "; not private (privacy='none'): " + diagnostic_names() + " read the training data)";
  if (!r.diagnostics)
    return s + "; non-private diagnostics (" + diagnostic_names() +
           ") withheld: nonprivate_diagnostics=True adds them)";
  return s + "; NOT private diagnostics (nonprivate_diagnostics=True): " + diagnostic_names() +
         " read the training data without noise)";
}

std::span<const double> point(const char* fn, const okr& r, const f64_in& x) {
  if (x.ndim() != 1) core::throw_invalid(fn, "x", double(x.ndim()), "must be 1-dimensional");
  core::check_size(fn, "x", static_cast<std::size_t>(x.size()), r.dim);
  return {x.data(), r.dim};
}

// A 2-D (m x p) array of points; returns m.
std::size_t rows(const char* fn, const char* parameter, const okr& r, const f64_in& x) {
  if (x.ndim() != 2 || static_cast<std::size_t>(x.shape(1)) != r.dim)
    core::throw_invalid(
        fn, parameter, double(x.ndim()), "must be a 2-dimensional (m, input_dim) array");
  return static_cast<std::size_t>(x.shape(0));
}

const sol::online_kernel_options okr_defaults{};
const sol::kernel kernel_defaults{};

}  // namespace

void init_online_kernel(py::module_& m) {
  py::class_<okr> c(m, "OnlineKernelRegression", R"doc(
Online kernel regression (Nie & Wang 2017; docs/theory/online-kernel.md):
f_{t+1} = f_t - eta_t [(f_t(x_t) - y_t) K_{x_t} + lambda_t f_t], eta_t = (t + t0)^-theta,
lambda_t = (t + t0)^-(1 - theta), responses clamped to [-M, M] (M = output_bound).
kernel="linear" / "polynomial": kappa comes from the public input_bound B, so training inputs
with ||x|| > B are projected onto the ball ||x|| <= B (no row is refused or counted) and
predict_private refuses (ValueError) a query point with ||x|| > B; release_function accepts any
points. kernel="gaussian" has kappa = 1 everywhere and uses no input bound.

privacy="per_query": predict_private(x) = f_t(x) + Lap(C_t / epsilon) (one answer is
epsilon-DP under replace-one; every answer is a new event). privacy="function_release":
release_function(points) = f_t + c D_t Z at the points, Z a Gaussian process with covariance K
(Hall, Rinaldo & Wasserman 2013), (epsilon, delta)-DP for the function on any finite set of
points (epsilon <= 1). privacy="none": predict only (nonprivate; epsilon or delta with it
raise ValueError naming privacy: a target is refused, not ignored). epsilon (and, for
function_release, delta) are required by the private modes (default None). noise_kind="float_safe" (default: the
float-safe Laplace release, PureDpEvent; function_release: the whitened values by the float-safe
Gaussian, ZCdpEvent) or "research_grade" (the paper's double-precision noise, LaplaceDpEvent /
GaussianDpEvent); docs/solvers.md, "Noise kind".

predict, coefficients and centres read the training data without noise (NOT private): for a
private learner (per_query, function_release) they raise ValueError unless it was constructed
with nonprivate_diagnostics=True (docs/cli.md, "Output contract").)doc");
  c.def(py::init([](std::size_t input_dim,
                    const std::string& kernel,
                    double bandwidth,
                    int degree,
                    double offset,
                    double theta,
                    double t0,
                    double output_bound,
                    double input_bound,
                    const std::string& privacy,
                    std::optional<double> epsilon,
                    std::optional<double> delta,
                    const std::string& noise_kind,
                    bool nonprivate_diagnostics) {
          sol::kernel k;
          k.kind = sol::parse_kernel_kind(kernel);
          k.bandwidth = bandwidth;
          k.degree = degree;
          k.offset = offset;
          sol::online_kernel_options o;
          o.theta = theta;
          o.t0 = t0;
          o.output_bound = output_bound;
          o.input_bound = input_bound;
          o.privacy = sol::parse_kernel_privacy(privacy);
          o.target = target_argument("solvers::online_kernel_options", epsilon, delta);
          o.noise_kind = mechanisms::parse_noise_kind(noise_kind);
          return std::make_unique<okr>(k, input_dim, o, nonprivate_diagnostics);
        }),
        py::arg("input_dim"),
        py::arg("kernel") = sol::to_string(kernel_defaults.kind),
        py::arg("bandwidth") = kernel_defaults.bandwidth,
        py::arg("degree") = kernel_defaults.degree,
        py::arg("offset") = kernel_defaults.offset,
        py::arg("theta") = okr_defaults.theta,
        py::arg("t0") = okr_defaults.t0,
        py::arg("output_bound") = okr_defaults.output_bound,
        py::arg("input_bound") = okr_defaults.input_bound,
        py::arg("privacy") = sol::to_string(okr_defaults.privacy),
        py::arg("epsilon") = py::none(),
        py::arg("delta") = py::none(),
        py::arg("noise_kind") = "float_safe",
        py::arg("nonprivate_diagnostics") = false);
  c.def("__repr__", &okr_repr);
  c.def_property_readonly(
      contract("nonprivate_diagnostics", as_public_input),
      [](const okr& r) { return r.diagnostics; },
      "Whether predict, coefficients and centres can be read (nonprivate_diagnostics=True, or "
      "privacy=\"none\").");
  c.def(
      "update",
      [](okr& r, const f64_in& x, double y) {
        const auto s = point("OnlineKernelRegression.update", r, x);
        std::lock_guard<std::mutex> lock(r.mutex);
        r.model.update(s, y);
      },
      py::arg("x"),
      py::arg("y"),
      "One step with the example (x, y).");
  c.def(
      "fit",
      [](okr& r, const f64_in& x, const f64_in& y) {
        const char* fn = "OnlineKernelRegression.fit";
        const std::size_t n = rows(fn, "X", r, x);
        core::check_size(fn, "y", static_cast<std::size_t>(y.size()), n);
        py::gil_scoped_release unlocked;
        std::lock_guard<std::mutex> lock(r.mutex);
        for (std::size_t i = 0; i < n; ++i)
          r.model.update({x.data() + i * r.dim, r.dim}, y.data()[i]);
      },
      py::arg("X"),
      py::arg("y"),
      "update() on every row of X in order (GIL released).");
  c.def(
      contract("predict", as_diagnostic),
      [](okr& r, const f64_in& x) -> py::object {
        const char* fn = "OnlineKernelRegression.predict";
        require_diagnostics(r, "predict");
        if (x.ndim() == 1) {
          const auto s = point(fn, r, x);
          std::lock_guard<std::mutex> lock(r.mutex);
          return py::float_(r.model.predict(s));
        }
        const std::size_t m = rows(fn, "x", r, x);
        auto out = aligned_array(m);
        double* o = out.mutable_data();
        {
          py::gil_scoped_release unlocked;
          std::lock_guard<std::mutex> lock(r.mutex);
          for (std::size_t i = 0; i < m; ++i) o[i] = r.model.predict({x.data() + i * r.dim, r.dim});
        }
        return py::object(std::move(out));
      },
      py::arg("x"),
      "f_t(x) (NOT private; ValueError unless nonprivate_diagnostics=True or privacy=\"none\"): "
      "a float for one point, an array for an (m, input_dim) array.");
  for_each_generator([&]<class Gen>() {
    c.def(
        contract("predict_private", as_release),
        [](okr& r, const f64_in& x, Gen& g) {
          const auto s = point("OnlineKernelRegression.predict_private", r, x);
          return with_engine(g, 0, [&](auto& e) {
            std::lock_guard<std::mutex> lock(r.mutex);
            return r.model.predict_private(s, e);
          });
        },
        py::arg("x"),
        py::arg("rng"),
        "per_query: f_t(x) + Lap(C_t / epsilon); appends a PureDpEvent (float_safe) or a "
        "LaplaceDpEvent (research_grade). Linear / polynomial kernels: ValueError when "
        "||x|| > input_bound.");
    c.def(
        contract("release_function", as_release),
        [](okr& r, const f64_in& points, Gen& g) {
          const std::size_t m =
              rows("OnlineKernelRegression.release_function", "points", r, points);
          const std::span<const double> s(points.data(), m * r.dim);
          const auto v = with_engine(g, gil_release_threshold, [&](auto& e) {
            std::lock_guard<std::mutex> lock(r.mutex);
            return r.model.release_function(s, e);
          });
          auto out = aligned_array(m);
          std::copy(v.begin(), v.end(), out.mutable_data());
          return out;
        },
        py::arg("points"),
        py::arg("rng"),
        "function_release: f_t + c D_t Z at the (m, input_dim) points, Z ~ GP(0, K) drawn "
        "jointly; appends a GaussianDpEvent.");
  });
  c.def_property_readonly(
      contract("steps", as_public_input),
      [](const okr& r) { return r.model.steps(); },
      "Examples seen, t.");
  c.def_property_readonly(
      contract("t0", as_public_input), [](const okr& r) { return r.model.t0(); }, "t0 used.");
  c.def_property_readonly(
      contract("kappa", as_public_input),
      [](const okr& r) { return r.model.kappa(); },
      "sup sqrt(K(x, x)) over the inputs.");
  c.def(
      contract("eta", as_public_input),
      [](const okr& r, std::int64_t t) { return r.model.eta(t); },
      py::arg("t"),
      "eta_t.");
  c.def(
      contract("lam", as_public_input),
      [](const okr& r, std::int64_t t) { return r.model.lambda(t); },
      py::arg("t"),
      "lambda_t.");
  c.def_property_readonly(
      contract("sup_sensitivity", as_public_input),
      [](const okr& r) { return r.model.sup_sensitivity(); },
      "C_t of the current f_t (0 at t = 0; paper eq. (17)).");
  c.def_property_readonly(
      contract("rkhs_sensitivity", as_public_input),
      [](const okr& r) { return r.model.rkhs_sensitivity(); },
      "D_t of the current f_t (0 at t = 0).");
  c.def_property_readonly(
      contract("function_noise_multiplier", as_public_input),
      [](const okr& r) { return r.model.function_noise_multiplier(); },
      "c = sqrt(2 log(2 / delta)) / epsilon of function_release.");
  c.def_property_readonly(
      contract("coefficients", as_diagnostic),
      [](okr& r) {
        require_diagnostics(r, "coefficients");
        std::lock_guard<std::mutex> lock(r.mutex);
        const auto v = r.model.coefficients();
        return py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data());
      },
      "Effective coefficients c_i of f_t = sum_i c_i K(x_i, .) (NOT private; ValueError unless "
      "nonprivate_diagnostics=True or privacy=\"none\").");
  c.def_property_readonly(
      contract("centres", as_diagnostic),
      [](okr& r) {
        require_diagnostics(r, "centres");
        std::lock_guard<std::mutex> lock(r.mutex);
        const auto& v = r.model.centres();
        const auto t = static_cast<py::ssize_t>(v.size() / r.dim);
        py::array_t<double> out({t, static_cast<py::ssize_t>(r.dim)});
        std::copy(v.begin(), v.end(), out.mutable_data());
        return out;
      },
      "Centres x_i (the training inputs, projected onto the input ball) as a (t, input_dim) "
      "array (NOT private; ValueError unless nonprivate_diagnostics=True or "
      "privacy=\"none\").");
  c.def_property_readonly(
      contract("privacy_events", as_public_input),
      [](const okr& r) {
        py::list out;
        for (const auto& e : r.model.privacy_events())
          out.append(py::make_tuple(event_to_python(e), 1));
        return out;
      },
      "Releases made so far as (event, count) pairs (as SolveResult.privacy_events).");
}

}  // namespace dpx::python
