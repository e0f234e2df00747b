// dpx._dpx: the compiled half of the dpx Python package (python/dpx wraps it).
#include "common.hpp"

PYBIND11_MODULE(_dpx, m) {
  namespace dp = dpx::python;
  m.doc() = "Compiled dpx bindings (use the dpx package, not this module directly).";
  dp::init_errors(m);
  dp::init_core(m);
  dp::init_events(m);
  auto mech = m.def_submodule("mechanisms", "Noise-adding mechanisms (dpx::mechanisms).");
  dp::init_mechanisms(mech);
  dp::init_histograms(mech);
  auto data = m.def_submodule("data", "Dataset generators (dpx::data).");
  dp::init_data(data);
  dp::init_data_registry(data);
  auto acc = m.def_submodule("accounting", "Privacy accountants (dpx::accounting).");
  dp::init_accounting(acc);
  auto solvers = m.def_submodule("solvers", "Solvers (dpx::solvers).");
  dp::init_solvers(solvers);
  auto estimators = m.def_submodule("estimators", "Private estimators (dpx::estimators).");
  dp::init_estimators(estimators);
  auto audit = m.def_submodule("audit", "Privacy auditing (dpx::audit).");
  dp::init_audit(audit);
  auto experiments = m.def_submodule("experiments", "The experiment harness (dpx::harness).");
  dp::init_experiments(experiments);
  auto bench = m.def_submodule("_bench", "C++ timings for bench/python (not public API).");
  dp::init_bench(bench);
}
