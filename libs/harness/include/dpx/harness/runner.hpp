#pragma once
/// \file
/// The experiment runner: executes a preset's cells x replications on a local thread pool in
/// cached replication blocks, merges them into tidy.csv, runs the analysis and writes the
/// manifest. Layout of the output directory and the caching rules: docs/presets.md.
///
/// Determinism: replication r of a cell draws only from rng::stream(base_seed, hash, r,
/// purpose) (driver.hpp), so tidy.csv is byte-identical for any thread count, for cached vs
/// recomputed blocks and for interrupted + resumed vs uninterrupted runs.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dpx/harness/analysis.hpp"
#include "dpx/harness/preset.hpp"
#include "dpx/harness/results.hpp"

namespace dpx::harness {

class remote_executor;

/// Options of `dpx run`.
struct run_options {
  std::string preset;             ///< preset name or path to a .toml file (see find_preset)
  bool quick = false;             ///< apply the preset's [quick] overrides
  std::filesystem::path out_dir;  ///< output directory; empty = results/<experiment name>
  unsigned threads = 0;           ///< worker threads; 0 = std::thread::hardware_concurrency()
  bool force = false;             ///< recompute every block, ignoring the cache
  bool resume = false;            ///< explicit "reuse cached blocks" (the default anyway)
  bool quiet = false;             ///< no progress lines on stderr
  bool figures = true;            ///< render figures (matplotlib) after the run
  bool tidy_wall_time = false;    ///< keep per-replication wall_s in tidy.csv (breaks the
                                  ///< byte-identity promise; block files always keep it)
  const std::atomic<bool>* stop = nullptr;  ///< when it becomes true, no new block is started
                                            ///< (in-flight blocks finish and are saved)
  double progress_interval_s = 30;          ///< seconds between progress lines off a TTY
  unsigned shard_index = 0;                 ///< with shard_count > 1: run only the blocks of shard
                             ///< shard_index (0-based, < shard_count); see shard_of()
  unsigned shard_count = 1;  ///< 1 = no sharding. A sharded run writes its blocks and
                             ///< shards/<i>-of-<N>/{manifest,progress}.json, never tidy.csv
                             ///< or the analysis (that is `dpx collect`)
  std::vector<std::string> only_cells;  ///< when non-empty: run only these cell ids (16 hex
                                        ///< digits); like a shard, no merge and no analysis
  remote_executor* remote = nullptr;    ///< extra workers serviced by the calling thread (the
                                        ///< MPI runner); null = local threads only
  /// "key=value" edits of the preset applied by run_preset(options) (`dpx run --set`;
  /// docs/presets.md, "Overrides"); the other overload takes an already edited preset.
  std::vector<std::string> overrides;

  /// Throws std::invalid_argument on inconsistent options (e.g. force with resume).
  void validate() const;
};

/// How a run ended.
enum class run_status { completed, interrupted, failed };
/// "completed", "interrupted" or "failed".
std::string to_string(run_status s);

/// What a run did.
struct run_counts {
  std::size_t cells = 0;         ///< cells in the grid
  std::size_t replications = 0;  ///< cells x replications
  std::size_t blocks = 0;        ///< replication blocks in the grid
  std::size_t cached = 0;        ///< blocks reused from the cache
  std::size_t computed = 0;      ///< blocks computed (and saved) by this run
  std::size_t corrupt = 0;       ///< cached blocks that failed verification (content hash,
                                 ///< cell, range or rows) and were recomputed (or, by
                                 ///< collect, left out), each with a warning on stderr
  std::size_t failed = 0;        ///< failed replications (rows with status "failed") in tidy.csv
};

/// Result of run_preset / report_preset.
struct run_result {
  run_status status = run_status::completed;  ///< failed = some replication failed
  std::string experiment;                     ///< [experiment] name
  std::filesystem::path out_dir;              ///< results directory
  std::filesystem::path report_path;          ///< out_dir/report.md (empty if not written)
  run_counts counts;
  std::vector<rate_result> rates;  ///< rate checks (empty when interrupted)
  std::size_t rates_checked = 0;   ///< non-informational rate results
  std::size_t rates_passed = 0;    ///< ... of which passed
  bool figures_rendered = false;
  std::string figures_note;  ///< why figures were not rendered ("" when they were)
  /// Figures were asked for and the preset declares some, but none could be rendered (e.g.
  /// matplotlib missing): the CLI says so on stderr; tables and report.md are still written.
  bool figures_failed = false;
  double wall_s = 0;  ///< wall time of the whole run

  /// True when every non-informational rate check passed.
  bool rates_ok() const noexcept { return rates_passed == rates_checked; }
};

/// Pins OpenBLAS (when the process uses it) to one thread and returns the thread count it then
/// reports (-1 without OpenBLAS). Replications are the unit of parallelism: a multi-threaded BLAS
/// would oversubscribe the cores and change reduction order, hence the last bits of results.
/// Setting OPENBLAS_NUM_THREADS from main() is too late for that (OpenBLAS reads it when the
/// library is loaded), so run_preset and the dpx tool call this.
int single_threaded_blas() noexcept;

/// Default output directory of a preset: results/<name> (relative to the working directory).
std::filesystem::path default_out_dir(const preset& p);

/// Runs a preset (loads it with find_preset + load_preset; nothing is written if it is
/// rejected, including when a cell's parameters are invalid: expand_grid validates them).
/// A cached block is reused unless force only when it verifies: its sidecar names this cell
/// and replication range with the expected cache key, the CSV bytes match the SHA-256 the
/// sidecar records, and every row is a replication of this cell in that range; a block that
/// fails is recomputed with a one-line warning on stderr (counts.corrupt). Blocks containing
/// failed replications are always recomputed. The results directory is locked for the run
/// (flock on <out>/.dpx.lock: exclusive, or shared by the shards of a sharded run, each also
/// locking its shard directory); a conflicting run throws std::invalid_argument at once
/// instead of waiting. An unsharded run first removes temporary files (*.tmp.<pid>.<n>) left
/// by interrupted runs. Per-replication std::exceptions
/// become rows with status "failed" (the run continues, status failed); any other exception
/// thrown by a driver aborts the run after in-flight blocks are saved and is rethrown.
run_result run_preset(const run_options& options);
/// Same with an already loaded preset (options.preset and options.quick are ignored).
run_result run_preset(const preset& p, const run_options& options);

/// Options of `dpx report`.
struct report_options {
  std::string preset;             ///< preset name or path
  std::filesystem::path out_dir;  ///< empty = results/<experiment name>
  std::optional<bool> quick;      ///< grid to merge blocks of; default: manifest's flag
  /// "key=value" edits of the preset (`--set`); default: those recorded in manifest.json
  std::optional<std::vector<std::string>> overrides;
  bool figures = true;
};

/// Recomputes summaries, rates, tables, figures and report.md from existing results without
/// running any replication: reads tidy.csv, or merges the block files of the grid when
/// tidy.csv is absent (throws std::invalid_argument naming the first missing or corrupt
/// block). Holds the results directory's exclusive lock.
run_result report_preset(const report_options& options);

/// Prepares dir to hold the results directories of several presets (`dpx run --all --out DIR`):
/// refuses, with std::invalid_argument, a non-empty directory that is not dpx's (one without
/// the .dpx.lock file dpx creates first in every directory it writes, and none of whose
/// subdirectories has it either; the runner applies the same rule, without the subdirectories,
/// to every results directory), then marks dir as dpx's.
void claim_results_dir(const std::filesystem::path& dir);

/// Milliseconds an interrupted run may take to stop computing (interrupt_guard): with the exit
/// itself, an interrupt is honoured within a second.
inline constexpr unsigned interrupt_grace_ms = 800;

/// Installs SIGINT/SIGTERM handlers (and a SIGALRM handler) for its lifetime. The first signal
/// sets flag() (pass it as run_options::stop), prints a note and arms a deadline: unless the
/// runner has stopped computing within interrupt_grace_ms (it reads the flag before every
/// replication and in its planning and merge loops), the process exits with status 130 then. A
/// second signal terminates the process at once with status 130 (every file is written
/// atomically, so nothing is corrupted). For command-line programs: the deadline ends the
/// process.
class interrupt_guard {
 public:
  interrupt_guard();
  ~interrupt_guard();
  interrupt_guard(const interrupt_guard&) = delete;
  interrupt_guard& operator=(const interrupt_guard&) = delete;
  const std::atomic<bool>& flag() const noexcept;
};

/// Block file stem "reps_<first>-<last>" (6-digit zero padded, last inclusive).
std::string block_stem(std::uint32_t first, std::uint32_t last);

// ---- blocks, shards and remote workers ----------------------------------------------------

/// One replication block: replications [first, last] (inclusive) of cells[cell_index].
struct block_ref {
  std::size_t cell_index = 0;  ///< index into expand_grid(p)
  std::uint32_t first = 0;     ///< first replication
  std::uint32_t last = 0;      ///< last replication (inclusive)
};

/// Every block of a grid, in plan order: cells in expand_grid order, replications ascending in
/// steps of p.replication_block. Block k of this list is "block index k" in remote messages.
std::vector<block_ref> plan_blocks(const preset& p, std::size_t n_cells);

/// Shard of a block: core::stable_hash(cell_id + "/" + decimal first replication) mod count.
/// A pure function of the cell id and the block's first replication (hence of the block
/// index first / replication_block): independent of the grid order, of other cells and of the
/// machine. Throws std::invalid_argument when count == 0.
unsigned shard_of(const std::string& cell_id, std::uint32_t first_rep, unsigned count);

/// Parses "i/N" (0 <= i < N, N >= 1); throws std::invalid_argument naming the text otherwise.
std::pair<unsigned, unsigned> parse_shard(const std::string& text);

/// Directory of shard i of N below a results directory: "shards/<i>-of-<N>".
std::filesystem::path shard_dir(unsigned index, unsigned count);

/// A computed block, ready to be written (what a remote worker sends back).
struct block_payload {
  std::size_t block = 0;   ///< index into plan_blocks()
  std::string csv;         ///< block CSV text (tidy layout, wall times kept)
  std::string sidecar;     ///< sidecar JSON text (cache key, ranges, counts, timings)
  std::size_t reps = 0;    ///< replications in the block
  std::size_t failed = 0;  ///< failed replications in the block
  double wall_s = 0;       ///< wall time of the whole block
  double rep_wall_s = 0;   ///< sum of per-replication wall times
  /// stop was raised before the block's last replication: the block is incomplete (csv and
  /// sidecar empty) and must not be delivered.
  bool abandoned = false;
};

/// Runs the replications of one block without writing anything. Per-replication
/// std::exceptions become failed rows; other exceptions propagate. With stop non-null, stop is
/// read before every replication and a raised stop abandons the block (an interrupt is
/// honoured within one replication, not one block).
block_payload compute_block_payload(const preset& p,
                                    const driver& d,
                                    const cell& c,
                                    const block_ref& b,
                                    std::size_t block_index,
                                    const std::atomic<bool>* stop = nullptr);

/// The work source run_preset hands to a remote_executor. Thread-compatible: call it only from
/// the thread that called run_preset (inside remote_executor::poll).
class block_dispatcher {
 public:
  virtual ~block_dispatcher() = default;
  /// Next block index to compute, or nullopt when none is left or the run is stopping.
  virtual std::optional<std::size_t> take() = 0;
  /// Writes a block computed elsewhere (atomically, like a local one) and counts it.
  virtual void deliver(const block_payload& b) = 0;
  /// A remote worker failed fatally: stop handing out blocks; run_preset throws
  /// std::runtime_error(message) once every worker has stopped.
  virtual void fail(const std::string& message) = 0;
};

/// Remote workers (e.g. MPI ranks) that run_preset services from its calling thread while its
/// local thread pool computes.
class remote_executor {
 public:
  virtual ~remote_executor() = default;
  /// Handles pending messages (may sleep about a millisecond when there are none). Returns
  /// true once every remote worker has been told to stop and no remote block is in flight.
  virtual bool poll(block_dispatcher& d) = 0;
  /// Named counters recorded in manifest.json under "remote" (e.g. ranks, bytes received).
  virtual std::vector<std::pair<std::string, double>> stats() const = 0;
};

}  // namespace dpx::harness
