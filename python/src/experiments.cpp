// dpx.experiments (compiled part): run_preset of the experiment harness (dpx::harness), the same
// call `dpx run` makes, with every experiment driver linked in. The run releases the GIL; the
// drivers run on the harness's worker threads with OpenBLAS pinned to one thread (as the CLI).
// Ctrl-C: Python's handler only sets a flag, so an in-process run is not interrupted (the
// harness stops between blocks only through run_options::stop, which this binding leaves unset).
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "common.hpp"
#include "dpx/harness/preset.hpp"
#include "dpx/harness/runner.hpp"

namespace dpx::python {

void init_experiments(py::module_& m) {
  m.def(
      "list_presets",
      [] {
        py::dict out;
        for (const auto& p : harness::list_presets(harness::experiments_dir()))
          out[py::str(p.name)] = p.description;
        return out;
      },
      "Preset name -> description in the experiments directory `dpx list` reads "
      "($DPX_EXPERIMENTS_DIR, ./experiments, the installed share/dpx/experiments, or the source "
      "tree's).");
  m.def(
      "run_preset",
      [](const std::string& preset,
         bool quick,
         const std::string& out,
         unsigned threads,
         bool force,
         bool figures,
         bool quiet,
         const std::vector<std::string>& overrides) {
        harness::run_options o;
        o.preset = preset;
        o.quick = quick;
        o.out_dir = out;
        o.threads = threads;
        o.force = force;
        o.figures = figures;
        o.quiet = quiet;
        o.overrides = overrides;
        harness::run_result r;
        {
          py::gil_scoped_release unlocked;
          const single_threaded_blas_scope blas;
          r = harness::run_preset(o);
        }
        py::dict d;
        d["status"] = harness::to_string(r.status);
        d["experiment"] = r.experiment;
        d["out_dir"] = r.out_dir.string();
        d["report_path"] = r.report_path.string();
        d["cells"] = r.counts.cells;
        d["replications"] = r.counts.replications;
        d["blocks"] = r.counts.blocks;
        d["computed"] = r.counts.computed;
        d["cached"] = r.counts.cached;
        d["failed"] = r.counts.failed;
        d["rates_checked"] = r.rates_checked;
        d["rates_passed"] = r.rates_passed;
        d["figures_rendered"] = r.figures_rendered;
        d["figures_note"] = r.figures_note;
        d["wall_s"] = r.wall_s;
        return d;
      },
      py::arg("preset"),
      py::arg("quick") = false,
      py::arg("out") = "",
      py::arg("threads") = 0,
      py::arg("force") = false,
      py::arg("figures") = true,
      py::arg("quiet") = true,
      py::arg("overrides") = std::vector<std::string>{},
      "dpx::harness::run_preset (what `dpx run` calls): runs the preset in this process with "
      "the GIL released and returns a summary dict (status, experiment, out_dir, counts, "
      "rates_checked, rates_passed, figures_rendered, ...). out '' = results/<name>; threads 0 "
      "= all cores; overrides are `--set key=value` edits.");
}

}  // namespace dpx::python
