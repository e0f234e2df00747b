// The experiment runner: blocks on a thread pool, block cache, merge, analysis, manifest.
#include "dpx/harness/runner.hpp"

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <exception>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "dpx/core/hash.hpp"
#include "internal.hpp"

namespace dpx::harness {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

void run_options::validate() const {
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

namespace {

/// One unit of work: replications [first, last] of one cell.
struct unit {
  std::size_t cell_index;
  std::uint32_t first, last;
};

std::vector<unit> make_units(const preset& p, std::size_t n_cells) {
  std::vector<unit> units;
  for (std::size_t c = 0; c < n_cells; ++c) {
    for (std::uint32_t a = 0; a < p.replications; a += p.replication_block) {
      const std::uint32_t b = std::min(p.replications - 1, a + p.replication_block - 1);
      units.push_back({c, a, b});
    }
  }
  return units;
}

/// The cache key of a block: everything that determines its content.
std::string cache_key(const preset& p, const driver& d, const cell& c, const unit& u) {
  const std::string material = c.key + "|driver=" + d.name + "|version=" + d.version +
                               "|reps=" + std::to_string(u.first) + "-" + std::to_string(u.last) +
                               "|base_seed=" + std::to_string(p.base_seed) +
                               "|rng=" + std::string(rng::philox4x32::algorithm_name) + "|" +
                               std::string(rng::stream_derivation);
  return core::hex16(core::stable_hash(material));
}

fs::path cell_dir(const fs::path& out, const cell& c) { return out / "cells" / c.id; }

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// True when the block's CSV exists and its sidecar holds the expected key and no failures.
bool block_cached(const fs::path& csv, const fs::path& sidecar, const std::string& key) {
  std::error_code ec;
  if (!fs::is_regular_file(csv, ec) || !fs::is_regular_file(sidecar, ec)) return false;
  try {
    const json j = json::parse(read_text(sidecar));
    return j.at("cache_key").get<std::string>() == key && j.at("failed").get<std::size_t>() == 0;
  } catch (const std::exception&) {
    return false;
  }
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  return s;
}

json param_json(const param_value& v) {
  return std::visit([](const auto& x) { return json(x); }, v);
}

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

std::vector<std::string> param_names_of(const cell& c) {
  std::vector<std::string> names;
  for (const auto& [k, _] : c.params.values()) names.push_back(k);
  return names;
}

std::vector<std::string> rendered_params(const cell& c) {
  std::vector<std::string> vals;
  for (const auto& [_, v] : c.params.values()) vals.push_back(render(v));
  return vals;
}

/// Statistics of one computed block.
struct block_stats {
  std::size_t failed = 0;
  double wall_s = 0;      // whole block
  double rep_wall_s = 0;  // sum over replications
  double write_s = 0;     // writing the block CSV
};

/// Runs one block and writes its CSV and sidecar atomically. Non-std exceptions propagate.
block_stats compute_block(
    const preset& p, const driver& d, const cell& c, const unit& u, const fs::path& out) {
  using clock = std::chrono::steady_clock;
  const auto block_start = clock::now();
  tidy_table t;
  t.param_names = param_names_of(c);
  t.metric_names = d.metric_names;
  const std::vector<std::string> params = rendered_params(c);
  t.rows.reserve(u.last - u.first + 1);
  block_stats stats;
  for (std::uint32_t r = u.first;; ++r) {
    tidy_row row;
    row.cell_id = c.id;
    row.rep = r;
    row.params = params;
    const cell_context ctx{c.params, c.hash, c.data_hash, r, p.base_seed};
    const auto t0 = clock::now();
    try {
      metrics m = d.run(ctx);
      bool names_ok = m.size() == d.metric_names.size();
      for (std::size_t i = 0; names_ok && i < m.size(); ++i)
        names_ok = m[i].first == d.metric_names[i];
      if (!names_ok) {
        std::string got;
        for (const auto& [k, _] : m) got += (got.empty() ? "" : ", ") + k;
        std::string want;
        for (const auto& k : d.metric_names) want += (want.empty() ? "" : ", ") + k;
        throw std::runtime_error("driver returned metrics (" + got + "), declared (" + want + ")");
      }
      row.metrics.reserve(m.size());
      for (const auto& [_, v] : m) row.metrics.push_back(v);
    } catch (const std::exception& e) {
      row.status = "failed";
      row.message = one_line(e.what());
      row.metrics.assign(d.metric_names.size(), std::numeric_limits<double>::quiet_NaN());
      ++stats.failed;
    }
    row.wall_s = std::chrono::duration<double>(clock::now() - t0).count();
    stats.rep_wall_s += row.wall_s;
    t.rows.push_back(std::move(row));
    if (r == u.last) break;
  }
  stats.wall_s = std::chrono::duration<double>(clock::now() - block_start).count();

  const fs::path dir = cell_dir(out, c);
  const std::string stem = block_stem(u.first, u.last);
  const auto write_start = clock::now();
  write_tidy_csv(t, dir / (stem + ".csv"), /*include_wall_time=*/true);
  stats.write_s = std::chrono::duration<double>(clock::now() - write_start).count();
  json side;
  side["cache_key"] = cache_key(p, d, c, u);
  side["cell_id"] = c.id;
  side["cell_key"] = c.key;
  side["driver"] = d.name;
  side["driver_version"] = d.version;
  side["first_rep"] = u.first;
  side["last_rep"] = u.last;
  side["base_seed"] = p.base_seed;
  side["rng_algorithm"] = std::string(rng::philox4x32::algorithm_name);
  side["rng_derivation"] = std::string(rng::stream_derivation);
  side["rows"] = t.rows.size();
  side["failed"] = stats.failed;
  side["wall_s"] = stats.wall_s;
  side["write_s"] = stats.write_s;
  write_file_atomic(dir / (stem + ".json"), side.dump(2) + "\n");
  return stats;
}

/// Reads every block of the grid into one table (sorted by (cell_id, rep)). Throws
/// std::invalid_argument naming the first missing or inconsistent block.
tidy_table merge_blocks(const preset& p,
                        const driver& d,
                        const std::vector<cell>& cells,
                        const fs::path& out) {
  tidy_table all;
  all.param_names = param_names_of(cells.front());
  all.metric_names = d.metric_names;
  // Blocks in (cell_id, first replication) order, so the rows arrive sorted.
  std::vector<unit> units = make_units(p, cells.size());
  std::stable_sort(units.begin(), units.end(), [&](const unit& a, const unit& b) {
    return cells[a.cell_index].id < cells[b.cell_index].id;
  });
  all.rows.reserve(static_cast<std::size_t>(p.replications) * cells.size());
  for (const unit& u : units) {
    const cell& c = cells[u.cell_index];
    const fs::path csv = cell_dir(out, c) / (block_stem(u.first, u.last) + ".csv");
    std::error_code ec;
    if (!fs::is_regular_file(csv, ec)) {
      throw std::invalid_argument("missing block " + csv.string() + " (run the preset first)");
    }
    tidy_table t = read_tidy_csv(csv);
    if (t.param_names != all.param_names || t.metric_names != all.metric_names ||
        t.rows.size() != static_cast<std::size_t>(u.last - u.first + 1)) {
      throw std::invalid_argument("block " + csv.string() +
                                  " does not match the preset (columns or row count differ)");
    }
    for (auto& row : t.rows) all.rows.push_back(std::move(row));
  }
  const bool sorted =
      std::is_sorted(all.rows.begin(), all.rows.end(), [](const tidy_row& a, const tidy_row& b) {
        return a.cell_id != b.cell_id ? a.cell_id < b.cell_id : a.rep < b.rep;
      });
  if (!sorted) sort_rows(all);
  return all;
}

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

}  // namespace

run_result run_preset(const run_options& options) {
  options.validate();
  const preset p = load_preset(find_preset(options.preset), options.quick);
  return run_preset(p, options);
}

run_result run_preset(const preset& p, const run_options& options) {
  options.validate();
  using clock = std::chrono::steady_clock;
  const auto wall_start = clock::now();
  const auto utc_start = std::chrono::system_clock::now();
  const double cpu_start = detail::process_cpu_seconds();

  // Everything that can reject the preset happens before anything is written.
  const driver* d = find_driver(p.driver);
  if (d == nullptr) throw preset_error(p.path.string() + ": unknown driver '" + p.driver + "'");
  const std::vector<cell> cells = expand_grid(p);
  const std::vector<unit> units = make_units(p, cells.size());

  run_result result;
  result.experiment = p.name;
  result.out_dir = options.out_dir.empty() ? default_out_dir(p) : options.out_dir;
  const fs::path& out = result.out_dir;
  result.counts.cells = cells.size();
  result.counts.replications = cells.size() * p.replications;
  result.counts.blocks = units.size();

  fs::create_directories(out);
  for (const auto& c : cells) {
    fs::create_directories(cell_dir(out, c));
    write_params_json(cell_dir(out, c), p, c);
  }

  // Cache check (main thread, before any work is handed out).
  std::vector<std::size_t> todo;
  std::size_t reps_to_compute = 0;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const unit& u = units[i];
    const cell& c = cells[u.cell_index];
    const std::string stem = block_stem(u.first, u.last);
    const bool cached = !options.force && block_cached(cell_dir(out, c) / (stem + ".csv"),
                                                       cell_dir(out, c) / (stem + ".json"),
                                                       cache_key(p, *d, c, u));
    if (cached) {
      ++result.counts.cached;
    } else {
      todo.push_back(i);
      reps_to_compute += u.last - u.first + 1;
    }
  }

  unsigned threads = options.threads != 0 ? options.threads : std::thread::hardware_concurrency();
  if (threads == 0) threads = 1;
  const unsigned n_workers = static_cast<unsigned>(std::min<std::size_t>(threads, todo.size()));

  detail::progress_reporter progress(p.name,
                                     out / "progress.json",
                                     units.size(),
                                     result.counts.cached,
                                     reps_to_compute,
                                     threads,
                                     options.quiet,
                                     options.progress_interval_s,
                                     detail::utc_iso(utc_start));

  // Worker pool: each worker takes the next block index; no lock is held around driver calls.
  std::atomic<std::size_t> next{0};
  std::atomic<bool> abort{false};
  std::mutex mutex;  // guards the fields below
  std::condition_variable cv;
  unsigned finished = 0;
  std::exception_ptr fatal;
  std::size_t computed = 0, reps_computed = 0;
  double rep_wall = 0, max_block = 0;
  auto stop_requested = [&] {
    return abort.load(std::memory_order_relaxed) ||
           (options.stop != nullptr && options.stop->load(std::memory_order_relaxed));
  };
  auto worker = [&] {
    try {
      while (!stop_requested()) {
        const std::size_t k = next.fetch_add(1, std::memory_order_relaxed);
        if (k >= todo.size()) break;
        const unit& u = units[todo[k]];
        const block_stats s = compute_block(p, *d, cells[u.cell_index], u, out);
        const std::size_t n = u.last - u.first + 1;
        progress.block_done(n, s.failed, s.wall_s);
        std::lock_guard lock(mutex);
        ++computed;
        reps_computed += n;
        rep_wall += s.rep_wall_s;
        max_block = std::max(max_block, s.wall_s);
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!fatal) fatal = std::current_exception();
      abort.store(true);
    }
    std::lock_guard lock(mutex);
    ++finished;
    cv.notify_all();
  };
  std::vector<std::thread> pool;
  pool.reserve(n_workers);
  for (unsigned i = 0; i < n_workers; ++i) pool.emplace_back(worker);
  {
    std::unique_lock lock(mutex);
    while (finished < n_workers) {
      cv.wait_for(lock, std::chrono::milliseconds(100));
      lock.unlock();
      progress.tick();
      lock.lock();
    }
  }
  for (auto& t : pool) t.join();
  progress.compute_done();
  result.counts.computed = computed;

  const bool interrupted = !fatal && computed + result.counts.cached < units.size();
  detail::manifest_input mi;
  mi.p = &p;
  mi.cells = &cells;
  mi.drv = d;
  mi.threads = threads;
  mi.start_utc = detail::utc_iso(utc_start);
  mi.replication_wall_s = rep_wall;
  mi.replications_computed = reps_computed;
  mi.max_block_s = max_block;
  auto write_manifest = [&] {
    mi.end_utc = detail::utc_iso(std::chrono::system_clock::now());
    mi.wall_s = std::chrono::duration<double>(clock::now() - wall_start).count();
    mi.cpu_s = detail::process_cpu_seconds() - cpu_start;
    mi.counts = result.counts;
    const std::string text = detail::manifest_json(mi);
    write_file_atomic(out / "manifest.json", text);
    fs::create_directories(out / "manifests");
    write_file_atomic(out / "manifests" / (detail::utc_compact(utc_start) + ".json"), text);
  };

  if (fatal || interrupted) {
    result.status = fatal ? run_status::failed : run_status::interrupted;
    mi.status = result.status;
    if (fatal) {
      try {
        std::rethrow_exception(fatal);
      } catch (const std::exception& e) {
        mi.error = one_line(e.what());
      } catch (...) {
        mi.error = "a driver threw a non-standard exception";
      }
    }
    progress.finish(to_string(result.status));
    write_manifest();
    result.wall_s = mi.wall_s;
    if (fatal) std::rethrow_exception(fatal);
    return result;
  }

  // Merge, analyse, record.
  const tidy_table tidy = merge_blocks(p, *d, cells, out);
  for (const auto& row : tidy.rows)
    if (row.status != "ok") ++result.counts.failed;
  write_tidy_csv(tidy, out / "tidy.csv", options.tidy_wall_time);
  result.rates = write_analysis(tidy,
                                p.figures,
                                p.rates,
                                out,
                                make_analysis_options(p, options.figures),
                                &result.figures_rendered);
  count_rates(result);
  result.report_path = out / "report.md";
  result.status = result.counts.failed > 0 ? run_status::failed : run_status::completed;
  mi.status = result.status;
  mi.rates = &result.rates;
  mi.rates_checked = result.rates_checked;
  mi.rates_passed = result.rates_passed;
  progress.finish(to_string(result.status));
  write_manifest();
  result.wall_s = mi.wall_s;
  return result;
}

run_result report_preset(const report_options& options) {
  const fs::path path = find_preset(options.preset);
  // Which grid? The caller's choice, else the quick flag of the last run's manifest.
  bool quick = false;
  preset probe = load_preset(path, false);
  const fs::path out = options.out_dir.empty() ? default_out_dir(probe) : options.out_dir;
  if (options.quick) {
    quick = *options.quick;
  } else {
    try {
      const json m = json::parse(read_text(out / "manifest.json"));
      quick = m.value("quick", false);
    } catch (const std::exception&) {
      quick = false;
    }
  }
  const preset p = quick ? load_preset(path, true) : probe;
  const driver* d = find_driver(p.driver);
  const std::vector<cell> cells = expand_grid(p);

  std::error_code ec;
  if (!fs::is_directory(out, ec)) {
    throw std::invalid_argument("no results for '" + p.name + "' in " + out.string() +
                                " (run it first)");
  }
  run_result result;
  result.experiment = p.name;
  result.out_dir = out;
  result.counts.cells = cells.size();
  result.counts.replications = cells.size() * p.replications;
  result.counts.blocks = make_units(p, cells.size()).size();
  result.counts.cached = result.counts.blocks;
  tidy_table tidy;
  if (fs::is_regular_file(out / "tidy.csv", ec)) {
    tidy = read_tidy_csv(out / "tidy.csv");
  } else {
    tidy = merge_blocks(p, *d, cells, out);
    write_tidy_csv(tidy, out / "tidy.csv", false);
  }
  for (const auto& row : tidy.rows)
    if (row.status != "ok") ++result.counts.failed;
  result.rates = write_analysis(tidy,
                                p.figures,
                                p.rates,
                                out,
                                make_analysis_options(p, options.figures),
                                &result.figures_rendered);
  count_rates(result);
  result.report_path = out / "report.md";
  result.status = result.counts.failed > 0 ? run_status::failed : run_status::completed;
  return result;
}

// ---- signals ------------------------------------------------------------------------------

namespace {
std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signals = 0;
struct sigaction g_old_int {
}, g_old_term{};

extern "C" void on_signal(int) {
  g_signals = g_signals + 1;
  if (g_signals >= 2) _exit(130);
  g_stop.store(true);
  static const char msg[] =
      "\ndpx: interrupted: finishing the blocks in flight (press Ctrl-C again to exit now)\n";
  const ssize_t rc = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)rc;
}
static_assert(std::atomic<bool>::is_always_lock_free);
}  // namespace

interrupt_guard::interrupt_guard() {
  g_stop.store(false);
  g_signals = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

interrupt_guard::~interrupt_guard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

const std::atomic<bool>& interrupt_guard::flag() const noexcept { return g_stop; }

}  // namespace dpx::harness
