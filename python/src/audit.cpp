// dpx.audit (compiled part): the black-box threshold auditor of dpx::audit on numpy samples of a
// scalar statistic of the mechanism's output on D (s0) and on its neighbour D' (s1), and the
// Clopper-Pearson bounds it is built on.
#include <pybind11/stl.h>

#include "common.hpp"
#include "dpx/audit/auditor.hpp"

namespace dpx::python {
namespace {

namespace au = dpx::audit;

}  // namespace

void init_audit(py::module_& m) {
  py::class_<au::audit_result>(m, "AuditResult", "Result of one audit (dpx::audit).")
      .def_readonly("epsilon_lower_bound",
                    &au::audit_result::epsilon_lower_bound,
                    "Lower bound on epsilon, valid with probability >= confidence.")
      .def_readonly("confidence", &au::audit_result::confidence, "1 - alpha.")
      .def_readonly("delta", &au::audit_result::delta, "delta used in the bound.")
      .def_readonly("trials", &au::audit_result::trials, "Trials per side.")
      .def_readonly("evaluation_trials",
                    &au::audit_result::evaluation_trials,
                    "Trials per side used for the counts.")
      .def_readonly("threshold", &au::audit_result::threshold, "Chosen threshold t.")
      .def_property_readonly(
          "side",
          [](const au::audit_result& r) { return au::to_string(r.side); },
          "Rejection side of the chosen test.")
      .def_readonly("fpr", &au::audit_result::fpr, "Evaluation false-positive rate.")
      .def_readonly("fnr", &au::audit_result::fnr, "Evaluation false-negative rate.")
      .def_readonly("fpr_upper",
                    &au::audit_result::fpr_upper,
                    "Clopper-Pearson upper bound on the FPR (level 1 - alpha/2).")
      .def_readonly("fnr_upper",
                    &au::audit_result::fnr_upper,
                    "Clopper-Pearson upper bound on the FNR (level 1 - alpha/2).");

  m.def(
      "audit_samples",
      [](const f64_in& s0,
         const f64_in& s1,
         double confidence,
         double delta,
         double selection_fraction,
         std::size_t max_thresholds) {
        au::audit_options o;
        o.confidence = confidence;
        o.delta = delta;
        o.selection_fraction = selection_fraction;
        o.max_thresholds = max_thresholds;
        std::span<const double> a(s0.data(), static_cast<std::size_t>(s0.size()));
        std::span<const double> b(s1.data(), static_cast<std::size_t>(s1.size()));
        py::gil_scoped_release unlocked;
        return au::audit_samples(a, b, o);
      },
      py::arg("s0"),
      py::arg("s1"),
      py::arg("confidence") = 0.95,
      py::arg("delta") = 0.0,
      py::arg("selection_fraction") = 0.5,
      py::arg("max_thresholds") = 256,
      "Lower bound on epsilon from i.i.d. samples of a statistic on D (s0) and D' (s1): a "
      "threshold test chosen on a held-out split, Clopper-Pearson bounds on the rest.");
  m.def("clopper_pearson_upper",
        &au::clopper_pearson_upper,
        py::arg("k"),
        py::arg("n"),
        py::arg("alpha"),
        "One-sided upper confidence bound (level 1 - alpha) for k / n.");
  m.def("clopper_pearson_lower",
        &au::clopper_pearson_lower,
        py::arg("k"),
        py::arg("n"),
        py::arg("alpha"),
        "One-sided lower confidence bound (level 1 - alpha) for k / n.");
  m.def("epsilon_from_rates",
        &au::epsilon_from_rates,
        py::arg("fpr"),
        py::arg("fnr"),
        py::arg("delta"),
        "max of log((1 - delta - fnr) / fpr) and log((1 - delta - fpr) / fnr), floored at 0.");
}

}  // namespace dpx::python
