#pragma once
/// \file
/// Scaling out (docs/scaling.md): merging the blocks of sharded runs (`dpx collect`), the
/// state of every shard (`dpx status`) and Slurm job-array scripts (`dpx emit-slurm`).
///
/// A sharded run (`dpx run PRESET --shard i/N`) computes only the blocks b with
/// shard_of(cell_id, b.first, N) == i (runner.hpp) and writes them, plus
/// shards/<i>-of-<N>/{manifest,progress}.json, into the common results directory. collect
/// merges whatever blocks exist, without computing, into the same tidy.csv (byte for byte),
/// summary.csv, rates, tables, figures and report.md as a single-process run.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "dpx/harness/runner.hpp"

namespace dpx::harness {

/// Options of `dpx collect`.
struct collect_options {
  std::string preset;             ///< preset name or path to a .toml
  std::filesystem::path out_dir;  ///< results directory; empty = results/<experiment name>
  std::optional<bool> quick;      ///< grid to merge; default: the shards' (or manifest's) flag
  bool figures = true;            ///< render figures (matplotlib)
};

/// Result of collect_preset.
struct collect_result {
  run_result run;                   ///< counts, rates and report path of the merged results
  std::size_t blocks_present = 0;   ///< blocks of the grid found with a matching cache key
  std::size_t blocks_missing = 0;   ///< blocks absent, or present with a stale cache key
  std::string first_missing;        ///< path of the first missing block (empty if none)
  std::size_t shard_manifests = 0;  ///< shards/<i>-of-<N>/manifest.json files merged
};

/// Merges every block of the grid whose CSV and sidecar exist with the expected cache key
/// (blocks with failed replications included, as in a single-process run) into tidy.csv, then
/// writes the analysis and manifest.json (with the shard manifests summarised under
/// "shards"). Never runs a replication. With blocks missing the outputs cover what exists,
/// run.status is interrupted and manifest.json says "incomplete". Throws std::invalid_argument
/// when the results directory does not exist or holds no block at all.
collect_result collect_preset(const collect_options& options);

/// State of one shard (or of the single-process run when shard count is 1).
struct shard_state {
  unsigned index = 0;             ///< shard index i
  unsigned count = 1;             ///< shard count N
  std::string state;              ///< "finished", "running", "missing" or "failed"
  std::size_t blocks = 0;         ///< blocks assigned to the shard
  std::size_t blocks_done = 0;    ///< present with a matching key and no failed replication
  std::size_t blocks_failed = 0;  ///< present with failed replications
  std::string heartbeat_status;   ///< progress.json status ("" when there is no heartbeat)
  double heartbeat_age_s = -1;    ///< seconds since the heartbeat was updated (-1: none)
  std::string host;               ///< from the heartbeat
  long long pid = 0;              ///< from the heartbeat
  /// Why the heartbeat disagrees with the state, "" when it does not: the state comes from the
  /// blocks on disk (one source); a finished shard whose heartbeat says "failed" or
  /// "interrupted" (an earlier attempt, or a failure after the blocks were written) says so here.
  std::string note;
};

/// Options of `dpx status`.
struct status_options {
  std::string preset;             ///< preset name or path
  std::filesystem::path out_dir;  ///< empty = results/<experiment name>
  std::optional<bool> quick;      ///< grid; default: as recorded by the shards
  unsigned shards = 0;            ///< shard count; 0 = inferred from shards/<i>-of-<N>/ (1 if none)
  double running_age_s = 60;      ///< a heartbeat younger than this means running
};

/// Status of every shard of a preset's results.
struct status_result {
  std::string experiment;           ///< preset name
  std::filesystem::path out_dir;    ///< results directory
  bool quick = false;               ///< grid examined
  std::size_t blocks = 0;           ///< blocks in the grid
  std::size_t blocks_done = 0;      ///< done over all shards
  std::vector<shard_state> shards;  ///< one per shard, by index
  bool collected = false;           ///< tidy.csv exists and is newer than every block file
};

/// Classification (per shard): finished = every block done; running = heartbeat status
/// "running" updated less than running_age_s ago (and, when the heartbeat's host is this host,
/// its pid alive); failed = a block with failed replications,
/// or a heartbeat saying failed/interrupted, or a stale "running" heartbeat (a dead process);
/// missing = no heartbeat and blocks missing (never started here). Every block present and valid
/// makes a shard finished whatever its (not running) heartbeat says; shard_state::note then
/// explains a heartbeat that disagrees.
status_result status_preset(const status_options& options);

/// status_result as JSON text (nlohmann ordered_json, 2-space indent, trailing newline).
std::string status_json(const status_result& s);

/// Options of `dpx emit-slurm`.
struct slurm_options {
  std::filesystem::path preset_path;  ///< absolute path of the preset file
  std::string experiment;             ///< preset name (job names, log names)
  std::filesystem::path out_dir;      ///< absolute results directory
  std::filesystem::path workdir;      ///< absolute working directory of the jobs
  std::filesystem::path dpx;          ///< absolute path of the dpx executable
  unsigned shards = 1;                ///< array size N (tasks 0..N-1), >= 1
  unsigned parallelism = 0;           ///< at most K tasks at once (%K); 0 = no throttle
  unsigned cpus_per_task = 1;         ///< --cpus-per-task and dpx run --threads
  std::string time = "01:00:00";      ///< --time of each array task, [D-]HH:MM:SS
  std::string partition;              ///< --partition (empty = site default)
  bool quick = false;                 ///< pass --quick to run and collect

  /// Throws std::invalid_argument on bad values (shards 0, relative paths, bad time).
  void validate() const;
};

/// The sbatch script (bash). Submitted with `bash SCRIPT --submit` it submits itself as the job
/// array and a collect job with --dependency=afterok:<array job id>; under Slurm each task runs
/// `dpx run PRESET --shard $SLURM_ARRAY_TASK_ID/N`; `bash SCRIPT --collect` runs the collect
/// step. Outside Slurm, SLURM_ARRAY_TASK_ID=i bash SCRIPT runs shard i locally.
std::string slurm_script(const slurm_options& options);

}  // namespace dpx::harness
