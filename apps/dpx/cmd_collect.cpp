// dpx collect: merge the blocks of sharded (or any) runs into tidy.csv + analysis, no compute.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "dpx/harness/scale.hpp"
#include "strict.hpp"

namespace dpx::cli::cmd_collect {
namespace {

namespace h = dpx::harness;

struct collect_cli {
  std::string preset;
  std::string out;
  bool quick = false;
  bool full = false;
  bool check = false;
  bool no_figures = false;
};

const bool registered = dpx::cli::register_command(
    "collect",
    "Merge whatever blocks exist (e.g. of --shard runs) into tidy.csv, summaries, rates, "
    "tables, figures and report.md (no compute)",
    [](CLI::App& sub) {
      auto o = std::make_shared<collect_cli>();
      sub.add_option("preset", o->preset, "Preset name or path to a .toml")->required();
      sub.add_option("--out", o->out, "Results directory (default results/<name>)");
      auto* q = sub.add_flag(
          "--quick", o->quick, "Merge the blocks of the [quick] grid (default: as the shards ran)");
      sub.add_flag("--full", o->full, "Merge the blocks of the full grid")->excludes(q);
      sub.add_flag("--check", o->check, "Exit 1 if a non-informational rate check fails");
      sub.add_flag("--no-figures", o->no_figures, "Skip rendering figures");
      return [o]() -> int {
        h::collect_options opts;
        opts.preset = o->preset;
        dpx::cli::check_output_dir("--out", o->out);
        opts.out_dir = o->out;
        if (o->quick) opts.quick = true;
        if (o->full) opts.quick = false;
        opts.figures = !o->no_figures;
        const h::collect_result c = h::collect_preset(opts);
        const h::run_result& r = c.run;
        std::cout << r.experiment << ": collected " << c.blocks_present << "/" << r.counts.blocks
                  << " blocks from " << c.shard_manifests << " shard manifests, " << r.counts.cells
                  << " cells, " << r.counts.failed << " failed replications; rate checks passed "
                  << r.rates_passed << "/" << r.rates_checked
                  << "; report: " << r.report_path.string() << "\n";
        if (r.figures_failed)
          std::cerr << "dpx: " << r.experiment << ": figures not rendered: " << r.figures_note
                    << "\n";
        if (c.blocks_missing > 0) {
          std::cerr << "dpx collect: " << c.blocks_missing
                    << " blocks missing (results are partial; first: " << c.first_missing
                    << "); see `dpx status " << o->preset << "`\n";
          return dpx::cli::exit_failure;
        }
        if (r.counts.failed > 0) return dpx::cli::exit_failure;
        if (o->check && !r.rates_ok()) return dpx::cli::exit_failure;
        return dpx::cli::exit_ok;
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_collect
