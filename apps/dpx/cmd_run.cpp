// dpx run: run one preset (or every preset with --all) through the harness.
#include <iostream>
#include <memory>
#include <stdexcept>

#include "command.hpp"
#include "dpx/harness/runner.hpp"

namespace {

namespace fs = std::filesystem;
namespace h = dpx::harness;

struct run_cli {
  std::string preset;
  bool all = false;
  bool quick = false;
  std::string out;
  unsigned threads = 0;
  bool resume = false;
  bool force = false;
  bool check = false;
  bool quiet = false;
  bool no_figures = false;
};

void print_summary(const h::run_result& r) {
  std::cout << r.experiment << ": " << r.counts.cells << " cells, " << r.counts.replications
            << " replications, blocks " << r.counts.computed << " computed + " << r.counts.cached
            << " cached, " << r.counts.failed << " failed replications; rate checks passed "
            << r.rates_passed << "/" << r.rates_checked << "; report: " << r.report_path.string()
            << "\n";
}

const bool registered = dpx::cli::register_command(
    "run", "Run an experiment preset (cached, resumable, multi-threaded)", [](CLI::App& sub) {
      auto o = std::make_shared<run_cli>();
      sub.add_option(
          "preset", o->preset, "Preset name (experiments/<name>/preset.toml) or path to a .toml");
      sub.add_flag("--all", o->all, "Run every preset of the experiments directory");
      sub.add_flag("--quick",
                   o->quick,
                   "Apply the preset's [quick] overrides (small grid, few replications)");
      sub.add_option(
          "--out",
          o->out,
          "Output directory (default results/<name>); with --all, results go to DIR/<name>");
      sub.add_option("--threads", o->threads, "Worker threads (default: hardware concurrency)")
          ->check(CLI::Range(1u, 4096u));
      sub.add_flag("--resume", o->resume, "Reuse valid cached blocks (the default; explicit form)");
      sub.add_flag("--force", o->force, "Recompute every block, ignoring the cache");
      sub.add_flag("--check", o->check, "Exit 1 if a non-informational rate check fails");
      sub.add_flag("--quiet", o->quiet, "No progress output on stderr");
      sub.add_flag("--no-figures",
                   o->no_figures,
                   "Skip rendering figures (tables and report still written)");
      return [o]() -> int {
        if (o->all == !o->preset.empty()) {
          throw std::invalid_argument("give exactly one of PRESET or --all");
        }
        h::run_options opts;
        opts.quick = o->quick;
        opts.threads = o->threads;
        opts.resume = o->resume;
        opts.force = o->force;
        opts.quiet = o->quiet;
        opts.figures = !o->no_figures;
        opts.validate();

        // Load and expand every preset first: a rejected preset writes nothing.
        std::vector<h::preset> presets;
        if (o->all) {
          const fs::path dir = h::experiments_dir();
          for (const auto& info : h::list_presets(dir))
            presets.push_back(h::load_preset(info.path, o->quick));
          if (presets.empty()) throw std::invalid_argument("no presets in " + dir.string());
        } else {
          presets.push_back(h::load_preset(h::find_preset(o->preset), o->quick));
        }
        for (const auto& p : presets) (void)h::expand_grid(p);

        h::interrupt_guard guard;
        opts.stop = &guard.flag();
        int status = dpx::cli::exit_ok;
        for (const auto& p : presets) {
          if (o->all) {
            opts.out_dir = o->out.empty() ? fs::path() : fs::path(o->out) / p.name;
          } else {
            opts.out_dir = o->out;
          }
          const h::run_result r = h::run_preset(p, opts);
          if (r.status == h::run_status::interrupted) {
            std::cerr << "dpx run: " << r.experiment << " interrupted: " << r.counts.computed
                      << " blocks computed and saved, " << r.counts.cached << " cached, of "
                      << r.counts.blocks << "; rerun (e.g. with --resume) to continue. Results in "
                      << r.out_dir.string() << "\n";
            return dpx::cli::exit_interrupted;
          }
          print_summary(r);
          if (r.counts.failed > 0) status = dpx::cli::exit_failure;
          if (o->check && !r.rates_ok()) status = dpx::cli::exit_failure;
        }
        return status;
      };
    });

}  // namespace
