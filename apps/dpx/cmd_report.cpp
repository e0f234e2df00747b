// dpx report: summaries, rate checks, tables, figures and report.md from existing results.
#include <cstdlib>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "dpx/harness/runner.hpp"
#include "strict.hpp"

namespace dpx::cli::cmd_report {
namespace {

namespace h = dpx::harness;

struct report_cli {
  std::string preset;
  std::string out;
  bool quick = false;
  bool full = false;
  bool check = false;
  bool no_figures = false;
  std::vector<std::string> set;  // --set key=value; default: the overrides in manifest.json
  std::string style;             // --style paper|slides (dpx_plot.py reads DPX_PLOT_STYLE)
};

const bool registered = dpx::cli::register_command(
    "report",
    "Write tables, rate checks, figures and report.md from existing results (no compute)",
    [](CLI::App& sub) {
      auto o = std::make_shared<report_cli>();
      sub.add_option("preset", o->preset, "Preset name or path to a .toml")->required();
      sub.add_option("--out", o->out, "Results directory (default results/<name>)");
      auto* q = sub.add_flag("--quick",
                             o->quick,
                             "Merge the blocks of the [quick] grid (default: as in manifest.json)");
      sub.add_flag("--full", o->full, "Merge the blocks of the full grid")->excludes(q);
      sub.add_flag("--check", o->check, "Exit 1 if a non-informational rate check fails");
      sub.add_flag("--no-figures", o->no_figures, "Skip rendering figures");
      auto* set = sub.add_option("--set",
                                 o->set,
                                 "Override a preset key as `dpx run --set` did (default: the "
                                 "overrides recorded in manifest.json)")
                      ->take_all()
                      ->allow_extra_args(false);
      sub.add_option("--style", o->style, "Figure style for every figure: paper or slides")
          ->check(CLI::IsMember({"paper", "slides"}));
      return [o, set]() -> int {
        if (!o->style.empty()) setenv("DPX_PLOT_STYLE", o->style.c_str(), 1);
        h::report_options opts;
        opts.preset = o->preset;
        dpx::cli::check_output_dir("--out", o->out);
        opts.out_dir = o->out;
        if (o->quick) opts.quick = true;
        if (o->full) opts.quick = false;
        opts.figures = !o->no_figures;
        if (set->count() > 0) opts.overrides = o->set;
        const h::run_result r = h::report_preset(opts);
        std::cout << r.experiment << ": " << r.counts.cells << " cells, " << r.counts.failed
                  << " failed replications; rate checks passed " << r.rates_passed << "/"
                  << r.rates_checked << "; report: " << r.report_path.string() << "\n";
        if (r.figures_failed)
          std::cerr << "dpx: " << r.experiment << ": figures not rendered: " << r.figures_note
                    << "\n";
        if (o->check && !r.rates_ok()) return dpx::cli::exit_failure;
        return dpx::cli::exit_ok;
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_report
