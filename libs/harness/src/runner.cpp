// The experiment runner, in three steps (docs/presets.md, "Running"):
//   plan     - expand and validate the grid, select this process's blocks, lock the results
//              directory, verify the cache (blocks.cpp);
//   execute  - compute the missing blocks on the local thread pool (and remote workers);
//   finalize - merge the blocks, write tidy.csv and the analysis: the one path shared by
//              run, report and collect (scale.cpp).
#include "dpx/harness/runner.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "dpx/core/hash.hpp"
#include "dpx/harness/report_html.hpp"
#include "internal.hpp"
#include "json_io.hpp"

// OpenBLAS's thread control, resolved at load time when the process links OpenBLAS (weak:
// null otherwise).
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" int openblas_get_num_threads() __attribute__((weak));

namespace dpx::harness {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

void run_options::validate() const {
  if (shard_count == 0 || shard_index >= shard_count) {
    throw std::invalid_argument("run_options: shard " + std::to_string(shard_index) + "/" +
                                std::to_string(shard_count) +
                                " is invalid (need 0 <= index < count)");
  }
  if (force && resume) {
    throw std::invalid_argument("run_options: --force and --resume contradict each other");
  }
  if (!(progress_interval_s > 0)) {
    throw std::invalid_argument("run_options: progress_interval_s must be > 0");
  }
}

std::string to_string(run_status s) {
  switch (s) {
    case run_status::completed:
      return "completed";
    case run_status::interrupted:
      return "interrupted";
    case run_status::failed:
      return "failed";
  }
  return "unknown";
}

fs::path default_out_dir(const preset& p) { return fs::path("results") / p.name; }

std::string block_stem(std::uint32_t first, std::uint32_t last) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "reps_%06u-%06u", first, last);
  return buf;
}

std::vector<block_ref> plan_blocks(const preset& p, std::size_t n_cells) {
  std::vector<block_ref> blocks;
  for (std::size_t c = 0; c < n_cells; ++c) {
    for (std::uint32_t a = 0; a < p.replications; a += p.replication_block) {
      const std::uint32_t b = std::min(p.replications - 1, a + p.replication_block - 1);
      blocks.push_back({c, a, b});
      if (b == p.replications - 1) break;  // (also guards a + block overflowing)
    }
  }
  return blocks;
}

unsigned shard_of(const std::string& cell_id, std::uint32_t first_rep, unsigned count) {
  if (count == 0) throw std::invalid_argument("shard_of: the shard count must be >= 1");
  return static_cast<unsigned>(core::stable_hash(cell_id + "/" + std::to_string(first_rep)) %
                               count);
}

std::pair<unsigned, unsigned> parse_shard(const std::string& text) {
  const auto bad = [&]() -> std::invalid_argument {
    return std::invalid_argument("--shard " + text +
                                 " is invalid (expected i/N with 0 <= i < N, e.g. 0/4)");
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw bad();
  auto parse = [&](const std::string& s) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      throw bad();
    return static_cast<unsigned>(std::stoul(s));
  };
  const unsigned i = parse(text.substr(0, slash));
  const unsigned n = parse(text.substr(slash + 1));
  if (n == 0 || i >= n) throw bad();
  return {i, n};
}

fs::path shard_dir(unsigned index, unsigned count) {
  return fs::path("shards") / (std::to_string(index) + "-of-" + std::to_string(count));
}

namespace detail {

void count_rates(run_result& r) {
  r.rates_checked = 0;
  r.rates_passed = 0;
  for (const auto& rr : r.rates) {
    if (rr.informational) continue;
    ++r.rates_checked;
    if (rr.pass) ++r.rates_passed;
  }
}

analysis_options make_analysis_options(const preset& p, bool figures) {
  analysis_options a;
  a.base_seed = p.base_seed;
  a.figures = figures;
  a.preset_name = p.name;
  a.description = p.description;
  return a;
}

void finalize(const preset& p,
              const driver& d,
              const std::vector<cell>& cells,
              const fs::path& out,
              const finalize_options& o,
              run_result& r) {
  tidy_table tidy;
  std::error_code ec;
  if (o.reuse_tidy && fs::is_regular_file(out / "tidy.csv", ec)) {
    tidy = read_tidy_csv(out / "tidy.csv");
  } else {
    tidy = merge_blocks(p, d, cells, out, o.include, o.stop);
    write_tidy_csv(tidy, out / "tidy.csv", o.tidy_wall_time);
  }
  r.counts.failed = 0;
  for (const auto& row : tidy.rows)
    if (row.status != "ok") ++r.counts.failed;
  r.rates = write_analysis(tidy,
                           p.figures,
                           p.rates,
                           out,
                           make_analysis_options(p, o.figures),
                           &r.figures_rendered,
                           &r.figures_note);
  r.figures_failed = o.figures && !p.figures.empty() && !r.figures_rendered;
  count_rates(r);
  r.report_path = out / "report.md";
  r.status = r.counts.failed > 0 ? run_status::failed : run_status::completed;
}

}  // namespace detail

namespace {

using detail::cell_dir;
using detail::read_text;

using detail::param_json;

void write_params_json(const fs::path& dir, const preset& p, const cell& c) {
  json j;
  j["cell_id"] = c.id;
  j["slug"] = c.slug;
  j["key"] = c.key;
  j["experiment"] = p.name;
  j["driver"] = p.driver;
  json params = json::object();
  for (const auto& [k, v] : c.params.values()) params[k] = param_json(v);
  j["params"] = params;
  const std::string text = j.dump(2) + "\n";
  if (read_text(dir / "params.json") != text) write_file_atomic(dir / "params.json", text);
}

// ---- plan ---------------------------------------------------------------------------------

/// What this process will do: the grid, its blocks, and the blocks left to compute.
struct run_plan {
  const driver* d = nullptr;
  std::vector<cell> cells;
  std::vector<block_ref> units;   ///< every block of the grid (plan_blocks)
  bool sharded = false;           ///< --shard i/N with N > 1
  bool partial = false;           ///< sharded or --only: no merge, no analysis
  std::vector<std::size_t> mine;  ///< the blocks this process is responsible for
  std::vector<std::size_t> todo;  ///< ... of which not (validly) cached
  std::size_t reps_to_compute = 0;
  fs::path out, own_dir;  ///< results directory; own_dir = out or out/shards/<i>-of-<N>
  unsigned threads = 1;
};

/// Indices of the cells --only selects (all when it is empty); throws naming an unknown id.
std::vector<bool> select_cells(const preset& p,
                               const std::vector<cell>& cells,
                               const std::vector<std::string>& only) {
  std::vector<bool> selected(cells.size(), true);
  if (only.empty()) return selected;
  std::vector<bool> found(only.size(), false);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const auto it = std::find(only.begin(), only.end(), cells[c].id);
    selected[c] = it != only.end();
    if (selected[c]) found[static_cast<std::size_t>(it - only.begin())] = true;
  }
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (!found[i]) {
      throw std::invalid_argument("--only " + only[i] + ": no cell of '" + p.name +
                                  "' has this id (see cells in manifest.json)");
    }
  }
  return selected;
}

/// Everything that can reject the preset happens before anything is written.
run_plan plan_run(const preset& p, const run_options& o) {
  run_plan plan;
  plan.d = find_driver(p.driver);
  if (plan.d == nullptr) {
    throw preset_error(p.path.string() + ": unknown driver '" + p.driver + "'");
  }
  plan.cells = expand_grid(p);  // validates every cell's parameters
  plan.units = plan_blocks(p, plan.cells.size());
  plan.sharded = o.shard_count > 1;
  plan.partial = plan.sharded || !o.only_cells.empty();
  const std::vector<bool> selected = select_cells(p, plan.cells, o.only_cells);
  for (std::size_t k = 0; k < plan.units.size(); ++k) {
    const block_ref& u = plan.units[k];
    if (!selected[u.cell_index]) continue;
    if (plan.sharded &&
        shard_of(plan.cells[u.cell_index].id, u.first, o.shard_count) != o.shard_index) {
      continue;
    }
    plan.mine.push_back(k);
  }
  plan.out = o.out_dir.empty() ? default_out_dir(p) : o.out_dir;
  plan.own_dir = plan.sharded ? plan.out / shard_dir(o.shard_index, o.shard_count) : plan.out;
  plan.threads = o.threads != 0 ? o.threads : std::thread::hardware_concurrency();
  if (plan.threads == 0) plan.threads = 1;
  return plan;
}

/// With the directory locked: params.json per touched cell, then the cache check. A block
/// that fails verification is recomputed, with one warning line on stderr.
void check_cache(const preset& p, const run_options& o, run_plan& plan, run_counts& counts) {
  std::vector<bool> touched(plan.cells.size(), false);
  for (const std::size_t k : plan.mine) touched[plan.units[k].cell_index] = true;
  const auto stopped = [&] { return o.stop != nullptr && o.stop->load(std::memory_order_relaxed); };
  for (std::size_t c = 0; c < plan.cells.size(); ++c) {
    if (!touched[c]) continue;
    if (stopped()) throw detail::run_interrupted{};
    fs::create_directories(cell_dir(plan.out, plan.cells[c]));
    write_params_json(cell_dir(plan.out, plan.cells[c]), p, plan.cells[c]);
  }
  for (const std::size_t k : plan.mine) {
    if (stopped()) throw detail::run_interrupted{};
    const block_ref& u = plan.units[k];
    const cell& c = plan.cells[u.cell_index];
    bool cached = false;
    if (!o.force) {
      const detail::block_check chk = detail::inspect_block(plan.out, p, *plan.d, c, u);
      cached = chk.state == detail::block_state::ok;
      if (chk.state == detail::block_state::corrupt) {
        ++counts.corrupt;
        std::cerr << "dpx: warning: " << detail::block_file(plan.out, c, u, ".csv").string() << ": "
                  << chk.reason << "; recomputing it\n";
      }
    }
    if (cached) {
      ++counts.cached;
    } else {
      plan.todo.push_back(k);
      plan.reps_to_compute += u.last - u.first + 1;
    }
  }
}

// ---- execute ------------------------------------------------------------------------------

/// Work source shared by the local pool and the remote executor. No lock is held around
/// driver calls.
class block_pool : public block_dispatcher {
 public:
  block_pool(const preset& p,
             const run_plan& plan,
             const run_options& o,
             detail::progress_reporter& pr)
      : p_(p), plan_(plan), options_(o), progress_(pr) {}

  std::optional<std::size_t> take() override {
    if (stop_requested()) return std::nullopt;
    const std::size_t k = next_.fetch_add(1, std::memory_order_relaxed);
    if (k >= plan_.todo.size()) return std::nullopt;
    return plan_.todo[k];
  }
  void deliver(const block_payload& b) override {
    if (b.block >= plan_.units.size()) throw std::runtime_error("remote block index out of range");
    const block_ref& u = plan_.units[b.block];
    detail::write_block(plan_.out, plan_.cells[u.cell_index], u, b);
    progress_.block_done(b.reps, b.failed, b.wall_s);
    std::lock_guard lock(mutex);
    ++computed;
    reps_computed += b.reps;
    failed_computed += b.failed;
    rep_wall += b.rep_wall_s;
    max_block = std::max(max_block, b.wall_s);
  }
  void fail(const std::string& message) override {
    set_fatal(std::make_exception_ptr(std::runtime_error(message)));
  }
  void set_fatal(std::exception_ptr e) {
    std::lock_guard lock(mutex);
    if (!fatal) fatal = std::move(e);
    abort_.store(true);
  }
  /// Computes blocks until none is left (a local worker thread).
  void work() {
    try {
      while (const auto k = take()) {
        const block_ref& u = plan_.units[*k];
        const block_payload b =
            compute_block_payload(p_, *plan_.d, plan_.cells[u.cell_index], u, *k, options_.stop);
        if (b.abandoned) return;  // interrupted inside the block: nothing to write
        deliver(b);
      }
    } catch (...) {
      set_fatal(std::current_exception());
    }
  }

  std::mutex mutex;  // guards the fields below
  std::exception_ptr fatal;
  std::size_t computed = 0, reps_computed = 0, failed_computed = 0;
  double rep_wall = 0, max_block = 0;

 private:
  bool stop_requested() const {
    return abort_.load(std::memory_order_relaxed) ||
           (options_.stop != nullptr && options_.stop->load(std::memory_order_relaxed));
  }
  const preset& p_;
  const run_plan& plan_;
  const run_options& options_;
  detail::progress_reporter& progress_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> abort_{false};
};

/// Runs the pool's blocks on min(threads, todo) local threads while servicing the remote
/// executor (if any) from this thread.
void execute(block_pool& pool,
             const run_plan& plan,
             const run_options& o,
             detail::progress_reporter& progress) {
  const auto n_workers =
      static_cast<unsigned>(std::min<std::size_t>(plan.threads, plan.todo.size()));
  std::condition_variable cv;
  unsigned finished = 0;  // guarded by pool.mutex
  std::vector<std::thread> threads;
  threads.reserve(n_workers);
  for (unsigned i = 0; i < n_workers; ++i) {
    threads.emplace_back([&] {
      pool.work();
      std::lock_guard lock(pool.mutex);
      ++finished;
      cv.notify_all();
    });
  }
  {
    bool remote_done = o.remote == nullptr;
    std::unique_lock lock(pool.mutex);
    while (finished < n_workers || !remote_done) {
      if (remote_done) cv.wait_for(lock, std::chrono::milliseconds(100));
      lock.unlock();
      if (!remote_done) {
        try {
          remote_done = o.remote->poll(pool);
        } catch (...) {
          // The transport itself failed: stop local work and report it after the pool ends.
          pool.set_fatal(std::current_exception());
          remote_done = true;
        }
      }
      progress.tick();
      lock.lock();
    }
  }
  for (auto& t : threads) t.join();
  progress.compute_done();
}

}  // namespace

run_result run_preset(const run_options& options) {
  options.validate();
  const preset p = load_preset(find_preset(options.preset), options.quick, options.overrides);
  return run_preset(p, options);
}

int single_threaded_blas() noexcept {
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  return openblas_get_num_threads != nullptr ? openblas_get_num_threads() : -1;
}

run_result run_preset(const preset& p, const run_options& options) {
  options.validate();
  single_threaded_blas();
  using clock = std::chrono::steady_clock;
  const auto wall_start = clock::now();
  const auto utc_start = std::chrono::system_clock::now();
  const double cpu_start = detail::process_cpu_seconds();

  // 1. Plan.
  run_plan plan = plan_run(p, options);
  run_result result;
  result.experiment = p.name;
  result.out_dir = plan.out;
  const fs::path& out = plan.out;
  result.counts.cells = plan.cells.size();
  result.counts.replications = plan.cells.size() * p.replications;
  result.counts.blocks = plan.mine.size();

  // One writer per results directory (shards: one per shard, sharing the directory).
  using lock_mode = detail::dir_lock::mode;
  const detail::dir_lock dir_lock(out, plan.sharded ? lock_mode::shared : lock_mode::exclusive);
  std::optional<detail::dir_lock> shard_lock;
  if (plan.sharded) shard_lock.emplace(plan.own_dir, lock_mode::exclusive);
  if (!plan.sharded) detail::remove_stale_temporaries(out);
  try {
    check_cache(p, options, plan, result.counts);
  } catch (const detail::run_interrupted&) {
    // Stopped while planning: nothing was computed; the next run checks the cache again.
    detail::acknowledge_interrupt();
    result.status = run_status::interrupted;
    return result;
  }

  // 2. Execute.
  detail::progress_reporter progress(p.name,
                                     plan.own_dir / "progress.json",
                                     plan.mine.size(),
                                     result.counts.cached,
                                     plan.reps_to_compute,
                                     plan.threads,
                                     options.quiet,
                                     options.progress_interval_s,
                                     detail::utc_iso(utc_start));
  block_pool pool(p, plan, options, progress);
  execute(pool, plan, options, progress);
  result.counts.computed = pool.computed;

  const bool interrupted = !pool.fatal && pool.computed + result.counts.cached < plan.mine.size();
  if (interrupted) detail::acknowledge_interrupt();
  detail::manifest_input mi;
  mi.p = &p;
  mi.cells = &plan.cells;
  mi.drv = plan.d;
  mi.threads = plan.threads;
  mi.start_utc = detail::utc_iso(utc_start);
  mi.replication_wall_s = pool.rep_wall;
  mi.replications_computed = pool.reps_computed;
  mi.max_block_s = pool.max_block;
  mi.shard_index = options.shard_index;
  mi.shard_count = options.shard_count;
  if (options.remote != nullptr) {
    json r = json::object();
    for (const auto& [k, v] : options.remote->stats()) r[k] = v;
    mi.remote_json = r.dump();
  }
  // The manifest of this process (own_dir/manifest.json) plus its copy in manifests/; a
  // filtered (--only) run records history only, never replacing the full results' manifest.
  auto write_manifest = [&](bool history_only) {
    mi.end_utc = detail::utc_iso(std::chrono::system_clock::now());
    mi.wall_s = std::chrono::duration<double>(clock::now() - wall_start).count();
    mi.cpu_s = detail::process_cpu_seconds() - cpu_start;
    mi.counts = result.counts;
    mi.status = result.status;
    const std::string text = detail::manifest_json(mi);
    if (!history_only) write_file_atomic(plan.own_dir / "manifest.json", text);
    fs::create_directories(out / "manifests");
    std::string stem = detail::utc_compact(utc_start);
    if (plan.sharded) {
      stem += "-shard-" + std::to_string(options.shard_index) + "-of-" +
              std::to_string(options.shard_count);
    } else if (history_only) {
      stem += "-only";
    }
    write_file_atomic(out / "manifests" / (stem + ".json"), text);
    result.wall_s = mi.wall_s;
  };

  if (pool.fatal || interrupted || plan.partial) {
    result.status = pool.fatal                 ? run_status::failed
                    : interrupted              ? run_status::interrupted
                    : pool.failed_computed > 0 ? run_status::failed
                                               : run_status::completed;
    result.counts.failed = pool.failed_computed;
    if (pool.fatal) {
      try {
        std::rethrow_exception(pool.fatal);
      } catch (const std::exception& e) {
        mi.error = detail::one_line(e.what());
      } catch (...) {
        mi.error = "a driver threw a non-standard exception";
      }
    }
    progress.finish(to_string(result.status));
    try {
      write_manifest(!options.only_cells.empty() && !plan.sharded);
    } catch (const std::exception&) {
      // E.g. the disk that stopped the run is still full: report the first error.
      if (!pool.fatal) throw;
    }
    if (pool.fatal) std::rethrow_exception(pool.fatal);
    return result;
  }

  // 3. Finalize: merge, analyse, record.
  detail::finalize_options fo;
  fo.figures = options.figures;
  fo.tidy_wall_time = options.tidy_wall_time;
  fo.stop = options.stop;
  try {
    detail::finalize(p, *plan.d, plan.cells, out, fo, result);
  } catch (const detail::run_interrupted&) {
    // Every block is saved; the merge and the analysis are redone by the next run or report.
    detail::acknowledge_interrupt();
    result.status = run_status::interrupted;
    progress.finish(to_string(result.status));
    write_manifest(false);
    return result;
  }
  mi.rates = &result.rates;
  mi.rates_checked = result.rates_checked;
  mi.rates_passed = result.rates_passed;
  progress.finish(to_string(result.status));
  write_manifest(false);
  write_html_reports(out, options.out_dir.empty());  // report.html, index.html, provenance
  return result;
}

run_result report_preset(const report_options& options) {
  const fs::path path = find_preset(options.preset);
  // Which grid? The caller's choice, else the quick flag of the last run's manifest.
  bool quick = false;
  std::vector<std::string> overrides = options.overrides.value_or(std::vector<std::string>{});
  preset probe = load_preset(path, false, overrides);
  const fs::path out = options.out_dir.empty() ? default_out_dir(probe) : options.out_dir;
  json m;
  try {
    m = json::parse(read_text(out / "manifest.json"));
  } catch (const std::exception&) {
    m = json::object();
  }
  quick = options.quick ? *options.quick : m.is_object() && m.value("quick", false);
  // The grid of the last run: its --set overrides unless the caller gives others.
  if (!options.overrides && m.is_object() && m.contains("overrides") && m["overrides"].is_array() &&
      !m["overrides"].empty()) {
    overrides = m["overrides"].get<std::vector<std::string>>();
    probe = load_preset(path, false, overrides);
  }
  const preset p = quick ? load_preset(path, true, overrides) : probe;
  const driver* d = find_driver(p.driver);
  if (d == nullptr) throw preset_error(p.path.string() + ": unknown driver '" + p.driver + "'");
  const std::vector<cell> cells = expand_grid(p);

  std::error_code ec;
  if (!fs::is_directory(out, ec)) {
    throw std::invalid_argument("no results for '" + p.name + "' in " + out.string() +
                                " (run it first)");
  }
  const detail::dir_lock lock(out, detail::dir_lock::mode::exclusive);
  run_result result;
  result.experiment = p.name;
  result.out_dir = out;
  result.counts.cells = cells.size();
  result.counts.replications = cells.size() * p.replications;
  result.counts.blocks = plan_blocks(p, cells.size()).size();
  result.counts.cached = result.counts.blocks;
  detail::finalize_options fo;
  fo.figures = options.figures;
  fo.reuse_tidy = true;
  detail::finalize(p, *d, cells, out, fo, result);
  write_html_reports(out, options.out_dir.empty());  // report.html, index.html, provenance
  return result;
}

}  // namespace dpx::harness
