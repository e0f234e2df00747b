// dpx.accounting (compiled part): the accountants behind one Python class, and the one-call
// account / calibrate functions. Thin on purpose: the Python layer (dpx/accounting.py) gives
// the dp_accounting-style classes, composite events and the DP-SGD shorthand.
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "dpx/accounting/accountant.hpp"
#include "dpx/accounting/calibration.hpp"
#include "dpx/accounting/composition.hpp"
#include "dpx/accounting/pld.hpp"
#include "dpx/accounting/rdp.hpp"
#include "dpx/accounting/zcdp.hpp"
#include "dpx/core/error.hpp"

namespace dpx::python {
namespace {

namespace acc = dpx::accounting;

// One accountant with a lock: compose and the conversions release the GIL (a PLD composition
// can take seconds), so concurrent Python threads are serialised here.
struct accountant_box {
  std::unique_ptr<acc::accountant> impl;
  std::mutex mutex;

  template <class F>
  auto locked(F&& f) {
    py::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> lock(mutex);
    return f(*impl);
  }
};

std::unique_ptr<acc::accountant> make(const std::string& kind,
                                      double discretization,
                                      double epsilon_error,
                                      double tail_mass,
                                      bool gaussian_fast_path,
                                      std::optional<std::vector<double>> orders,
                                      const std::string& conversion) {
  if (kind == "pld") {
    acc::pld_options o;
    o.discretization = discretization;
    o.epsilon_error = epsilon_error;
    o.tail_mass = tail_mass;
    o.gaussian_fast_path = gaussian_fast_path;
    return std::make_unique<acc::pld_accountant>(o);
  }
  if (kind == "rdp") {
    acc::rdp_options o;
    if (orders) o.orders = *orders;
    if (conversion == "classical")
      o.conversion = acc::rdp_conversion::classical;
    else if (conversion != "improved" && !conversion.empty())
      core::throw_invalid(
          "RdpAccountant", "conversion", conversion, "must be improved or classical");
    return std::make_unique<acc::rdp_accountant>(o);
  }
  if (kind == "zcdp") {
    auto c = acc::zcdp_conversion::numerical;
    if (conversion == "bun_steinke")
      c = acc::zcdp_conversion::bun_steinke;
    else if (conversion != "numerical" && !conversion.empty())
      core::throw_invalid(
          "ZCdpAccountant", "conversion", conversion, "must be numerical or bun_steinke");
    return std::make_unique<acc::zcdp_accountant>(c);
  }
  return std::make_unique<acc::approx_dp_accountant>(acc::parse_composition_rule(kind));
}

// The certified bracket of a PLD accountant's answer as (lower, upper).
template <class F>
py::tuple bracket(accountant_box& b, const char* fn, F&& query) {
  const acc::pld_bracket r = b.locked([&](acc::accountant& a) {
    auto* p = dynamic_cast<acc::pld_accountant*>(&a);
    if (p == nullptr) core::throw_invalid(fn, "accountant", a.name(), "must be pld");
    return query(*p);
  });
  return py::make_tuple(r.lower, r.upper);
}

}  // namespace

void init_accounting(py::module_& m) {
  py::class_<accountant_box>(m, "Accountant", R"doc(
An adaptive-composition accountant. All answers are upper bounds on the privacy loss.
kind: "pld", "rdp", "zcdp", or an approximate-DP rule "basic", "advanced", "kov".)doc")
      .def(py::init([](const std::string& kind,
                       double discretization,
                       double epsilon_error,
                       double tail_mass,
                       bool gaussian_fast_path,
                       std::optional<std::vector<double>> orders,
                       const std::string& conversion) {
             auto b = std::make_unique<accountant_box>();
             b->impl = make(kind,
                            discretization,
                            epsilon_error,
                            tail_mass,
                            gaussian_fast_path,
                            std::move(orders),
                            conversion);
             return b;
           }),
           py::arg("kind"),
           py::arg("discretization") = 0.0,
           py::arg("epsilon_error") = 1e-3,
           py::arg("tail_mass") = 1e-15,
           py::arg("gaussian_fast_path") = true,
           py::arg("orders") = py::none(),
           py::arg("conversion") = "")
      .def_property_readonly(
          "name", [](accountant_box& b) { return b.impl->name(); }, "Method name.")
      .def(
          "supports",
          [](accountant_box& b, py::handle e) { return b.impl->supports(event_from_python(e)); },
          py::arg("event"),
          "Whether compose() accepts this (single, non-composite) event.")
      .def(
          "_compose",
          [](accountant_box& b, py::handle e, std::int64_t count) {
            const auto ev = event_from_python(e);
            core::check_at_least("compose", "count", count, 1);
            b.locked([&](acc::accountant& a) { a.compose(ev, count); });
          },
          py::arg("event"),
          py::arg("count") = 1)
      .def(
          "get_epsilon",
          [](accountant_box& b, double delta) {
            return b.locked([&](acc::accountant& a) { return a.epsilon(delta); });
          },
          py::arg("delta"),
          "Smallest certified epsilon at this delta (may be inf).")
      .def(
          "get_delta",
          [](accountant_box& b, double epsilon) {
            return b.locked([&](acc::accountant& a) { return a.delta(epsilon); });
          },
          py::arg("epsilon"),
          "Certified delta at this epsilon.")
      .def(
          "get_epsilon_bracket",
          [](accountant_box& b, double delta) {
            return bracket(b, "get_epsilon_bracket", [&](acc::pld_accountant& p) {
              return p.epsilon_bracket(delta);
            });
          },
          py::arg("delta"),
          "PLD only: (lower, upper), certified bounds on the composition's exact epsilon at "
          "delta (lower from the optimistic PLD, upper = get_epsilon(delta)).")
      .def(
          "get_delta_bracket",
          [](accountant_box& b, double epsilon) {
            return bracket(b, "get_delta_bracket", [&](acc::pld_accountant& p) {
              return p.delta_bracket(epsilon);
            });
          },
          py::arg("epsilon"),
          "PLD only: (lower, upper), certified bounds on the exact delta at epsilon.")
      .def_property_readonly(
          "rho",
          [](accountant_box& b) -> py::object {
            if (auto* z = dynamic_cast<acc::zcdp_accountant*>(b.impl.get()))
              return py::float_(z->rho());
            return py::none();
          },
          "The composed rho (zCDP accountant; None otherwise).");

  m.def(
      "account_gaussian",
      [](const std::string& method, double s, double q, std::int64_t steps, double delta) {
        const auto mm = acc::parse_method(method);
        py::gil_scoped_release unlocked;
        return acc::account_gaussian(mm, s, q, steps, delta);
      },
      py::arg("method"),
      py::arg("noise_multiplier"),
      py::arg("sampling_rate"),
      py::arg("steps"),
      py::arg("delta"),
      "epsilon of steps (Poisson-subsampled) Gaussian releases (the `dpx account` "
      "computation).");
  m.def(
      "account_laplace",
      [](const std::string& method, double b, std::int64_t steps, double delta) {
        const auto mm = acc::parse_method(method);
        py::gil_scoped_release unlocked;
        return acc::account_laplace(mm, b, steps, delta);
      },
      py::arg("method"),
      py::arg("noise_multiplier"),
      py::arg("steps"),
      py::arg("delta"));
  m.def(
      "calibrate_gaussian",
      [](const std::string& method, double eps, double delta, std::int64_t steps, double q) {
        const auto mm = acc::parse_gaussian_calibration(method);
        py::gil_scoped_release unlocked;
        return acc::calibrate_gaussian(mm, eps, delta, steps, q);
      },
      py::arg("method"),
      py::arg("epsilon"),
      py::arg("delta"),
      py::arg("steps") = 1,
      py::arg("sampling_rate") = 1.0);
  m.def(
      "dp_sgd_schedule",
      [](std::int64_t n, std::int64_t b, double epochs) {
        const auto s = acc::dp_sgd_schedule_of(n, b, epochs);
        return py::make_tuple(s.sampling_rate, s.steps);
      },
      py::arg("dataset_size"),
      py::arg("batch_size"),
      py::arg("epochs"),
      "(sampling_rate, steps) = (B / N, ceil(epochs N / B)) of DP-SGD.");
  m.def("dp_sgd_steps",
        &acc::dp_sgd_steps_of,
        py::arg("sampling_rate"),
        py::arg("epochs"),
        "ceil(epochs / sampling_rate): the steps of `epochs` passes at this Poisson rate.");
  m.def(
      "calibrate_laplace",
      [](const std::string& method, double eps, double delta, std::int64_t steps) {
        const auto mm = acc::parse_laplace_method(method);
        py::gil_scoped_release unlocked;
        return acc::calibrate_laplace(eps, delta, steps, mm);
      },
      py::arg("method"),
      py::arg("epsilon"),
      py::arg("delta"),
      py::arg("steps") = 1);
}

}  // namespace dpx::python
