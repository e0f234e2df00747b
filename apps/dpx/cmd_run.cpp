// dpx run: run one preset (or every preset with --all) through the harness.
#include <iostream>
#include <memory>
#include <stdexcept>

#include "command.hpp"
#include "dpx/harness/report_html.hpp"
#include "dpx/harness/results.hpp"
#include "dpx/harness/runner.hpp"
#include "strict.hpp"
#ifdef DPX_WITH_MPI
#include "mpi_run.hpp"
#endif

namespace dpx::cli::cmd_run {
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
  std::string shard;
  std::vector<std::string> only;
  std::vector<std::string> set;  // --set key=value (docs/presets.md, "Overrides")
};

void print_summary(const h::run_result& r) {
  std::cout << r.experiment << ": " << r.counts.cells << " cells, " << r.counts.replications
            << " replications, blocks " << r.counts.computed << " computed + " << r.counts.cached
            << " cached, " << r.counts.failed << " failed replications; rate checks passed "
            << r.rates_passed << "/" << r.rates_checked << "; report: " << r.report_path.string()
            << "\n";
  if (r.figures_failed) {
    std::cerr << "dpx: " << r.experiment << ": figures not rendered: " << r.figures_note << "\n";
  }
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
      sub.add_option("--shard",
                     o->shard,
                     "Run only shard i of N (i/N, 0-based): the blocks with "
                     "stable_hash(cell_id/first_rep) mod N == i; merge with `dpx collect`");
      sub.add_option(
          "--only", o->only, "Run only these cell ids (16 hex digits; no merge, no analysis)");
      sub.add_option("--set",
                     o->set,
                     "Override a preset key, typed and validated as in the file (repeatable): "
                     "--set grid.epsilon=[0.1,1] --set replications=200")
          ->take_all()
          ->allow_extra_args(false);
      return [o]() -> int {
        if (o->all == !o->preset.empty()) {
          throw std::invalid_argument("give exactly one of PRESET or --all");
        }
        if (o->all && (!o->shard.empty() || !o->only.empty())) {
          throw std::invalid_argument("--shard and --only need a single PRESET, not --all");
        }
        dpx::cli::check_output_dir("--out", o->out);
        h::run_options opts;
        opts.quick = o->quick;
        opts.threads = o->threads;
        opts.resume = o->resume;
        opts.force = o->force;
        opts.quiet = o->quiet;
        opts.figures = !o->no_figures;
        if (!o->shard.empty()) {
          const auto [i, n] = h::parse_shard(o->shard);
          opts.shard_index = i;
          opts.shard_count = n;
        }
        opts.only_cells = o->only;
        opts.validate();
        // From here on SIGINT/SIGTERM stop the run within a second at any stage (loading and
        // expanding the presets included): runner.hpp, interrupt_guard.
        h::interrupt_guard guard;
        opts.stop = &guard.flag();

        // Load and expand every preset first: a rejected preset writes nothing.
        std::vector<h::preset> presets;
        if (o->all) {
          const fs::path dir = h::experiments_dir();
          for (const auto& info : h::list_presets(dir))
            presets.push_back(h::load_preset(info.path, o->quick, o->set));
          if (presets.empty()) throw std::invalid_argument("no presets in " + dir.string());
        } else {
          presets.push_back(h::load_preset(h::find_preset(o->preset), o->quick, o->set));
        }
        for (const auto& p : presets) (void)h::expand_grid(p);
#ifdef DPX_WITH_MPI
        // Under mpirun (more than one rank): rank 0 schedules blocks, the others compute.
        if (dpx::cli::mpi_launched()) {
          if (o->all || opts.shard_count > 1 || !opts.only_cells.empty()) {
            throw std::invalid_argument("under mpirun, give one PRESET without --shard/--only");
          }
          opts.out_dir = o->out;
          return dpx::cli::run_mpi(presets.front(), opts, o->threads != 0, o->check);
        }
#endif
        // DIR/index.html is written below: DIR must be empty or dpx's (as each DIR/<name>).
        if (o->all && !o->out.empty()) h::claim_results_dir(o->out);
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
          if (opts.shard_count > 1 || !opts.only_cells.empty()) {
            std::cout << r.experiment;
            if (opts.shard_count > 1)
              std::cout << " shard " << opts.shard_index << "/" << opts.shard_count;
            std::cout << ": blocks " << r.counts.computed << " computed + " << r.counts.cached
                      << " cached of " << r.counts.blocks << ", " << r.counts.failed
                      << " failed replications; merge with: dpx collect " << o->preset << "\n";
            if (r.counts.failed > 0) status = dpx::cli::exit_failure;
            continue;
          }
          print_summary(r);
          if (r.counts.failed > 0) status = dpx::cli::exit_failure;
          if (o->check && !r.rates_ok()) status = dpx::cli::exit_failure;
        }
        // With --all --out DIR the presets go to DIR/<name>; the runner writes index.html only
        // next to the default results/<name>, so the index over DIR is written here.
        if (o->all && !o->out.empty())
          h::write_file_atomic(fs::path(o->out) / "index.html", h::index_html(o->out));
        return status;
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_run
