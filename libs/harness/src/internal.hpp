#pragma once
// Internals of the runner shared between runner.cpp, manifest.cpp and progress.cpp.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "dpx/harness/runner.hpp"

namespace dpx::harness::detail {

/// UTC time as "2026-11-22T01:24:39Z".
std::string utc_iso(std::chrono::system_clock::time_point t);
/// UTC time as "20261122T012439Z" (file names).
std::string utc_compact(std::chrono::system_clock::time_point t);
/// User + system CPU seconds of this process.
double process_cpu_seconds();
/// Host name, or "unknown".
std::string host_name();

/// Whole file as a string ("" when it cannot be read).
std::string read_text(const std::filesystem::path& path);
/// s on one line (control characters become spaces), cut to max_len characters plus "...".
std::string one_line(std::string s, std::size_t max_len = 400);
/// out/cells/<cell id>.
std::filesystem::path cell_dir(const std::filesystem::path& out, const cell& c);
/// out/cells/<cell id>/reps_<first>-<last><ext> (ext ".csv" or ".json").
std::filesystem::path block_file(const std::filesystem::path& out,
                                 const cell& c,
                                 const block_ref& b,
                                 const char* ext);
/// The cache key of a block: everything that determines its content.
std::string cache_key(const preset& p, const driver& d, const cell& c, const block_ref& b);
/// Parameter names of a cell (sorted) and their rendered values, in the same order.
std::vector<std::string> param_names_of(const cell& c);
std::vector<std::string> rendered_params(const cell& c);

/// What is on disk for one block.
enum class block_state {
  missing,       ///< no sidecar (never written, or a crash between the CSV and the sidecar)
  stale,         ///< sidecar of an older computation (cache key differs, or no content hash)
  corrupt,       ///< fails verification: content hash, cell, range or rows (see reason)
  ok,            ///< verified, no failed replication
  has_failures,  ///< verified, some failed replications (retried by run, merged by collect)
};
struct block_check {
  block_state state = block_state::missing;
  std::string reason;  ///< why a block is corrupt (one line, no data values), else empty
};
/// Verifies a block on disk by content (blocks.cpp); with rows non-null and a verified block,
/// stores its rows there.
block_check inspect_block(const std::filesystem::path& out,
                          const preset& p,
                          const driver& d,
                          const cell& c,
                          const block_ref& b,
                          tidy_table* rows = nullptr);
/// inspect_block(...).state.
block_state check_block(const std::filesystem::path& out,
                        const preset& p,
                        const driver& d,
                        const cell& c,
                        const block_ref& b);
/// Writes a block's CSV, then its sidecar (each atomically): a block counts as present only
/// when its sidecar exists, so a crash between the two leaves a block that is recomputed.
void write_block(const std::filesystem::path& out,
                 const cell& c,
                 const block_ref& b,
                 const block_payload& pl);

/// Reads the blocks of the grid (all, or those with include[k] true for plan block k) into
/// one table sorted by (cell_id, rep), verifying each like inspect_block. Throws
/// std::invalid_argument naming the first missing, stale or corrupt block.
tidy_table merge_blocks(const preset& p,
                        const driver& d,
                        const std::vector<cell>& cells,
                        const std::filesystem::path& out,
                        const std::vector<bool>* include = nullptr,
                        const std::atomic<bool>* stop = nullptr);

/// The file dpx creates first in every results directory it writes (the lock of dir_lock): it
/// marks the directory as dpx's.
inline constexpr const char* lock_file_name = ".dpx.lock";

/// Throws std::invalid_argument unless dir is absent, an empty directory or a dpx results
/// directory (it holds lock_file_name): results never overwrite a user's own files.
void check_results_dir(const std::filesystem::path& dir);

/// Exclusive or shared lock of a results directory (flock on <dir>/.dpx.lock), held for the
/// object's lifetime. Throws std::invalid_argument (exit 2) when another process holds a
/// conflicting lock (a run never waits, it says which directory is busy), when dir fails
/// check_results_dir or when no file can be created in it.
class dir_lock {
 public:
  enum class mode { exclusive, shared };
  dir_lock(const std::filesystem::path& dir, mode m);
  ~dir_lock();
  dir_lock(const dir_lock&) = delete;
  dir_lock& operator=(const dir_lock&) = delete;

 private:
  int fd_ = -1;
};

/// Thrown by the runner's loops when run_options::stop is raised (caught by run_preset).
struct run_interrupted {};

/// The runner has stopped computing after an interrupt and only records it: cancels the
/// deadline an interrupt_guard armed (signals.cpp). A no-op without a guard or a signal.
void acknowledge_interrupt() noexcept;

/// Removes the temporary files ("<name>.tmp.<pid>.<n>", write_file_atomic) an interrupted run
/// left below dir; returns how many. Call only while holding dir's exclusive lock.
std::size_t remove_stale_temporaries(const std::filesystem::path& dir);

/// Merges the blocks (all, or include[k]), writes tidy.csv and the analysis (summaries, rates,
/// tables, figures, report.md) and fills r's failed count, rates, figure flags and report
/// path: the one finalize path of run, report and collect.
struct finalize_options {
  bool figures = true;
  bool tidy_wall_time = false;
  const std::vector<bool>* include = nullptr;
  bool reuse_tidy = false;  ///< read an existing tidy.csv instead of merging (report)
  const std::atomic<bool>* stop = nullptr;  ///< raised: throw run_interrupted (merge loop)
};
void finalize(const preset& p,
              const driver& d,
              const std::vector<cell>& cells,
              const std::filesystem::path& out,
              const finalize_options& o,
              run_result& r);

/// Fills rates_checked / rates_passed from rates.
void count_rates(run_result& r);
/// Analysis options of a preset.
analysis_options make_analysis_options(const preset& p, bool figures);

/// Everything the manifest records about one run.
struct manifest_input {
  const preset* p = nullptr;
  const std::vector<cell>* cells = nullptr;
  const driver* drv = nullptr;
  unsigned threads = 0;
  std::string start_utc, end_utc;
  double wall_s = 0, cpu_s = 0;
  run_counts counts;
  run_status status = run_status::completed;
  const std::vector<rate_result>* rates = nullptr;  ///< null when no analysis was run
  std::size_t rates_checked = 0, rates_passed = 0;
  double replication_wall_s = 0;  ///< sum of wall time of computed replications
  std::size_t replications_computed = 0;
  double max_block_s = 0;  ///< slowest computed block
  std::string error;       ///< fatal error message, if any
  unsigned shard_index = 0, shard_count = 1;
  std::string status_text;  ///< overrides to_string(status) when non-empty (e.g. "incomplete")
  std::string shards_json;  ///< JSON array of merged shard manifests (collect), or empty
  std::string remote_json;  ///< JSON object of remote executor counters, or empty
};

/// manifest.json content (nlohmann ordered_json, 2-space indent, trailing newline).
std::string manifest_json(const manifest_input& in);

/// Progress on stderr (rewritten line on a TTY, a plain line every interval otherwise) and the
/// progress.json heartbeat. block_done is thread-safe; tick/finish are called by the main
/// thread only.
class progress_reporter {
 public:
  progress_reporter(std::string experiment,
                    std::filesystem::path heartbeat_path,
                    std::size_t blocks_total,
                    std::size_t blocks_cached,
                    std::size_t reps_to_compute,
                    unsigned threads,
                    bool quiet,
                    double interval_s,
                    std::string start_utc);
  void block_done(std::size_t reps, std::size_t failed, double seconds);
  void tick();
  /// Prints the final progress line (end of the compute phase).
  void compute_done();
  /// Final heartbeat with the run's status.
  void finish(const std::string& status);

 private:
  void print(bool final_line);
  void heartbeat(const std::string& status);

  std::string experiment_;
  std::filesystem::path heartbeat_;
  std::size_t blocks_total_, blocks_cached_, reps_to_compute_;
  unsigned threads_;
  bool quiet_, tty_;
  double interval_s_;
  std::string start_utc_;
  std::chrono::steady_clock::time_point start_, last_print_, last_heartbeat_;
  std::mutex mutex_;
  std::size_t blocks_done_ = 0, reps_done_ = 0, failed_ = 0;
  double ema_block_s_ = 0;
  bool printed_ = false;
};

}  // namespace dpx::harness::detail
