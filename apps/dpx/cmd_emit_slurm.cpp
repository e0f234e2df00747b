// dpx emit-slurm: an sbatch job-array script over deterministic shards + a dependent collect.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "dpx/harness/scale.hpp"
#include "strict.hpp"

namespace dpx::cli::cmd_emit_slurm {
namespace {

namespace fs = std::filesystem;
namespace h = dpx::harness;

struct emit_cli {
  std::string preset;
  unsigned shards = 0;
  unsigned parallelism = 0;
  unsigned cpus = 1;
  std::string time = "01:00:00";
  std::string partition;
  std::string out_dir;
  std::string file;
  bool quick = false;
};

const bool registered = dpx::cli::register_command(
    "emit-slurm",
    "Write an sbatch script: a job array over N shards and a dependent collect job",
    [](CLI::App& sub) {
      auto o = std::make_shared<emit_cli>();
      sub.add_option("preset", o->preset, "Preset name or path to a .toml")->required();
      sub.add_option("--shards", o->shards, "Number of shards N (array tasks 0..N-1)")
          ->required()
          ->check(CLI::Range(1u, 1000000u));
      sub.add_option("--parallelism", o->parallelism, "At most K tasks at once (--array=...%K)")
          ->check(CLI::Range(1u, 1000000u));
      sub.add_option("--cpus-per-task", o->cpus, "CPUs per task = dpx run --threads (default 1)")
          ->check(CLI::Range(1u, 4096u));
      sub.add_option("--time", o->time, "Time limit per task, HH:MM:SS (default 01:00:00)");
      sub.add_option("--partition", o->partition, "Slurm partition (default: the site's)");
      sub.add_option("--results", o->out_dir, "Results directory (default results/<name>)");
      sub.add_option("--out", o->file, "Script file to write (default: stdout)");
      sub.add_flag("--quick", o->quick, "Run the preset's [quick] grid");
      return [o]() -> int {
        dpx::cli::check_output_dir("--results", o->out_dir);
        h::slurm_options s;
        s.preset_path = fs::absolute(h::find_preset(o->preset)).lexically_normal();
        const h::preset p = h::load_preset(s.preset_path, o->quick);
        (void)h::expand_grid(p);
        s.experiment = p.name;
        s.workdir = fs::current_path();
        s.out_dir = fs::absolute(o->out_dir.empty() ? h::default_out_dir(p) : fs::path(o->out_dir))
                        .lexically_normal();
        std::error_code ec;
        s.dpx = fs::read_symlink("/proc/self/exe", ec);
        if (ec) throw std::runtime_error("emit-slurm: cannot find the dpx executable");
        s.shards = o->shards;
        s.parallelism = o->parallelism;
        s.cpus_per_task = o->cpus;
        s.time = o->time;
        s.partition = o->partition;
        s.quick = o->quick;
        const std::string text = h::slurm_script(s);
        if (o->file.empty()) {
          std::cout << text;
        } else {
          h::write_file_atomic(o->file, text);
          fs::permissions(o->file,
                          fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                          fs::perm_options::add);
          std::cerr << "dpx emit-slurm: wrote " << o->file << "; submit with: bash " << o->file
                    << " --submit\n";
        }
        return dpx::cli::exit_ok;
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_emit_slurm
