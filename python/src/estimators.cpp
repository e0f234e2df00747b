// dpx.estimators (compiled part): the one-dimensional private means of dpx::estimators
// (winsorized mean, S1 Algorithm 4; local-model mean, S1 Algorithm 8) on numpy input (a
// C-contiguous float64 vector is read in place; other inputs are converted once), and the
// public radius tau from a variance / log-Sobolev bound.
#include <pybind11/stl.h>

#include <string>

#include "common.hpp"
#include "dpx/estimators/central.hpp"
#include "dpx/estimators/common.hpp"
#include "dpx/estimators/local.hpp"
#include "dpx/mechanisms/noise_kind.hpp"

namespace dpx::python {
namespace {

namespace est = dpx::estimators;
using f64_in = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::span<const double> span_of(const f64_in& x) {
  return {x.data(), static_cast<std::size_t>(x.size())};
}

}  // namespace

void init_estimators(py::module_& m) {
  py::class_<est::mean_result>(m, "MeanResult", "Result of a one-dimensional private mean.")
      .def_readonly("estimate", &est::mean_result::estimate, "The private mean.")
      .def_property_readonly(
          "clip_range",
          [](const est::mean_result& r) { return py::make_tuple(r.range.lo, r.range.hi); },
          "The clipping range used (lo, hi) (private; not a confidence interval).")
      .def_readonly("midpoint", &est::mean_result::midpoint, "The private midpoint m-hat.")
      .def_readonly("n", &est::mean_result::n, "Number of records averaged.")
      .def_readonly(
          "noise_scale", &est::mean_result::noise_scale, "Laplace scale b of the mean release.")
      .def_property_readonly(
          "failed",
          [](const est::mean_result& r) { return r.diag.failed; },
          "Every histogram bin was zeroed (midpoint 0 used; private).")
      .def_property_readonly(
          "epsilon",
          [](const est::mean_result& r) { return r.privacy.epsilon; },
          "Total epsilon spent.")
      .def_property_readonly(
          "delta", [](const est::mean_result& r) { return r.privacy.delta; }, "Total delta spent.")
      .def_property_readonly(
          "model",
          [](const est::mean_result& r) {
            return std::string(r.privacy.model == est::trust_model::local ? "local" : "central");
          },
          "central or local.")
      .def_property_readonly(
          "ledger",
          [](const est::mean_result& r) {
            py::list out;
            for (const auto& e : r.ledger)
              out.append(py::make_tuple(e.step, e.epsilon, e.delta, event_to_python(e.event)));
            return out;
          },
          "The private steps, in order: (step, epsilon, delta, event).");

  m.def("tau_subgaussian",
        &est::tau_subgaussian,
        py::arg("variance_bound"),
        py::arg("n"),
        py::arg("gamma"),
        "tau = sqrt(2 V ln(2n/gamma)) from a PUBLIC variance (or log-Sobolev) bound V "
        "(S1 Cor. 3.6).");
  for_each_generator([&]<class Gen>() {
    m.def(
        "winsorized_mean",
        [](const f64_in& x,
           double epsilon,
           double delta,
           double tau,
           Gen& g,
           const std::string& noise) {
          est::winsorized_mean_options o{epsilon, delta, est::interval_rule::paper(tau)};
          o.noise = mechanisms::parse_noise_kind(noise);
          const auto s = span_of(x);
          return with_engine(g, s.size(), [&](auto& e) { return est::winsorized_mean(s, o, e); });
        },
        py::arg("x"),
        py::arg("epsilon"),
        py::arg("delta"),
        py::arg("tau"),
        py::arg("rng"),
        py::arg("noise") = "float_safe",
        "(epsilon, delta)-DP winsorized mean under replace-one (S1 Algorithm 4, paper rule: "
        "bins of half-width tau, interval m-hat +- 3 tau); `dpx mean --tau`. noise: "
        "'float_safe' (default: exact discrete noise) or 'research_grade' (double Laplace, "
        "`--research-grade`).");
    m.def(
        "local_mean",
        [](const f64_in& x,
           double epsilon,
           double tau,
           double bound,
           Gen& g,
           const std::string& noise) {
          est::local_mean_options o;
          o.noise = mechanisms::parse_noise_kind(noise);
          o.epsilon = epsilon;
          o.rule = est::interval_rule::paper(tau);
          o.bound = bound;
          const auto s = span_of(x);
          return with_engine(g, s.size(), [&](auto& e) { return est::local_mean(s, o, e); });
        },
        py::arg("x"),
        py::arg("epsilon"),
        py::arg("tau"),
        py::arg("bound"),
        py::arg("rng"),
        py::arg("noise") = "float_safe",
        "epsilon-LDP mean (S1 Algorithm 8) with the public bound |mu| <= bound; "
        "`dpx mean --local`.");
  });
}

}  // namespace dpx::python
