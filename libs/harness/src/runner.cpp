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
#include <functional>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "dpx/core/hash.hpp"
#include "dpx/harness/report_html.hpp"
#include "internal.hpp"

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

std::string cache_key(const preset& p, const driver& d, const cell& c, const block_ref& u) {
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

block_state check_block(
    const fs::path& out, const preset& p, const driver& d, const cell& c, const block_ref& b) {
  const std::string stem = block_stem(b.first, b.last);
  const fs::path csv = cell_dir(out, c) / (stem + ".csv");
  const fs::path sidecar = cell_dir(out, c) / (stem + ".json");
  std::error_code ec;
  if (!fs::is_regular_file(csv, ec) || !fs::is_regular_file(sidecar, ec)) {
    return block_state::missing;
  }
  try {
    const json j = json::parse(read_text(sidecar));
    if (j.at("cache_key").get<std::string>() != cache_key(p, d, c, b)) return block_state::stale;
    return j.at("failed").get<std::size_t>() == 0 ? block_state::ok : block_state::has_failures;
  } catch (const std::exception&) {
    return block_state::missing;
  }
}

}  // namespace detail

namespace {

using detail::cache_key;
using detail::cell_dir;
using detail::read_text;

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

/// Writes a block's CSV, then its sidecar (each atomically): a block counts as present only
/// when both exist, so a crash between the two leaves a block that is recomputed.
void write_block(const fs::path& out, const cell& c, const block_ref& b, const block_payload& pl) {
  const fs::path dir = cell_dir(out, c);
  const std::string stem = block_stem(b.first, b.last);
  const auto t0 = std::chrono::steady_clock::now();
  write_file_atomic(dir / (stem + ".csv"), pl.csv);
  json side = json::parse(pl.sidecar);
  side["write_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_file_atomic(dir / (stem + ".json"), side.dump(2) + "\n");
}

}  // namespace

block_payload compute_block_payload(
    const preset& p, const driver& d, const cell& c, const block_ref& u, std::size_t block_index) {
  using clock = std::chrono::steady_clock;
  const auto block_start = clock::now();
  tidy_table t;
  t.param_names = param_names_of(c);
  t.metric_names = d.metric_names;
  const std::vector<std::string> params = rendered_params(c);
  t.rows.reserve(u.last - u.first + 1);
  block_payload out;
  out.block = block_index;
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
        std::string msg = "driver returned metrics (" + got;
        msg += "), declared (" + want + ")";
        throw std::runtime_error(msg);
      }
      row.metrics.reserve(m.size());
      for (const auto& [_, v] : m) row.metrics.push_back(v);
    } catch (const std::exception& e) {
      row.status = "failed";
      row.message = one_line(e.what());
      row.metrics.assign(d.metric_names.size(), std::numeric_limits<double>::quiet_NaN());
      ++out.failed;
    }
    row.wall_s = std::chrono::duration<double>(clock::now() - t0).count();
    out.rep_wall_s += row.wall_s;
    t.rows.push_back(std::move(row));
    if (r == u.last) break;
  }
  out.reps = t.rows.size();
  out.wall_s = std::chrono::duration<double>(clock::now() - block_start).count();
  out.csv = format_tidy_csv(t, /*include_wall_time=*/true);
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
  side["failed"] = out.failed;
  side["wall_s"] = out.wall_s;
  out.sidecar = side.dump(2) + "\n";
  return out;
}

namespace detail {

tidy_table merge_blocks(const preset& p,
                        const driver& d,
                        const std::vector<cell>& cells,
                        const fs::path& out,
                        const std::vector<bool>* include) {
  tidy_table all;
  all.param_names = param_names_of(cells.front());
  all.metric_names = d.metric_names;
  // Blocks in (cell_id, first replication) order, so the rows arrive sorted.
  const std::vector<block_ref> plan = plan_blocks(p, cells.size());
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < plan.size(); ++k)
    if (include == nullptr || (*include)[k]) order.push_back(k);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return cells[plan[a].cell_index].id < cells[plan[b].cell_index].id;
  });
  all.rows.reserve(static_cast<std::size_t>(p.replications) * cells.size());
  for (const std::size_t k : order) {
    const block_ref& u = plan[k];
    const cell& c = cells[u.cell_index];
    const fs::path csv = cell_dir(out, c) / (block_stem(u.first, u.last) + ".csv");
    std::error_code ec;
    if (!fs::is_regular_file(csv, ec)) {
      throw std::invalid_argument("missing block " + csv.string() + " (run the preset first)");
    }
    tidy_table t = read_tidy_csv(csv);
    if (t.param_names != all.param_names || t.metric_names != all.metric_names ||
        t.rows.size() != static_cast<std::size_t>(u.last) - u.first + 1) {
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

}  // namespace detail

using detail::count_rates;
using detail::make_analysis_options;
using detail::merge_blocks;

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

  // Everything that can reject the preset happens before anything is written.
  const driver* d = find_driver(p.driver);
  if (d == nullptr) throw preset_error(p.path.string() + ": unknown driver '" + p.driver + "'");
  const std::vector<cell> cells = expand_grid(p);
  const std::vector<block_ref> units = plan_blocks(p, cells.size());
  const bool sharded = options.shard_count > 1;
  const bool partial = sharded || !options.only_cells.empty();
  std::vector<bool> cell_selected(cells.size(), true);
  if (!options.only_cells.empty()) {
    std::vector<bool> found(options.only_cells.size(), false);
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const auto it = std::find(options.only_cells.begin(), options.only_cells.end(), cells[c].id);
      cell_selected[c] = it != options.only_cells.end();
      if (cell_selected[c]) found[static_cast<std::size_t>(it - options.only_cells.begin())] = true;
    }
    for (std::size_t i = 0; i < found.size(); ++i) {
      if (!found[i]) {
        throw std::invalid_argument("--only " + options.only_cells[i] + ": no cell of '" + p.name +
                                    "' has this id (see cells in manifest.json)");
      }
    }
  }
  // The blocks this process is responsible for (all of them unless sharded or filtered).
  std::vector<std::size_t> mine;
  for (std::size_t k = 0; k < units.size(); ++k) {
    const block_ref& u = units[k];
    if (!cell_selected[u.cell_index]) continue;
    if (sharded &&
        shard_of(cells[u.cell_index].id, u.first, options.shard_count) != options.shard_index) {
      continue;
    }
    mine.push_back(k);
  }

  run_result result;
  result.experiment = p.name;
  result.out_dir = options.out_dir.empty() ? default_out_dir(p) : options.out_dir;
  const fs::path& out = result.out_dir;
  result.counts.cells = cells.size();
  result.counts.replications = cells.size() * p.replications;
  result.counts.blocks = mine.size();

  fs::create_directories(out);
  const fs::path own_dir =
      sharded ? out / shard_dir(options.shard_index, options.shard_count) : out;
  fs::create_directories(own_dir);
  {
    std::vector<bool> touched(cells.size(), false);
    for (const std::size_t k : mine) touched[units[k].cell_index] = true;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (!touched[c]) continue;
      fs::create_directories(cell_dir(out, cells[c]));
      write_params_json(cell_dir(out, cells[c]), p, cells[c]);
    }
  }

  // Cache check (main thread, before any work is handed out).
  std::vector<std::size_t> todo;
  std::size_t reps_to_compute = 0;
  for (const std::size_t i : mine) {
    const block_ref& u = units[i];
    const bool cached = !options.force && detail::check_block(out, p, *d, cells[u.cell_index], u) ==
                                              detail::block_state::ok;
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
                                     own_dir / "progress.json",
                                     mine.size(),
                                     result.counts.cached,
                                     reps_to_compute,
                                     threads,
                                     options.quiet,
                                     options.progress_interval_s,
                                     detail::utc_iso(utc_start));

  // Work source shared by the local pool and the remote executor. No lock is held around
  // driver calls.
  struct state : block_dispatcher {
    const std::vector<std::size_t>* todo = nullptr;
    const run_options* options = nullptr;
    std::atomic<std::size_t> next{0};
    std::atomic<bool> abort{false};
    std::mutex mutex;  // guards the fields below
    std::exception_ptr fatal;
    std::size_t computed = 0, reps_computed = 0, failed_computed = 0;
    double rep_wall = 0, max_block = 0;
    std::function<void(const block_payload&)> write;
    detail::progress_reporter* progress = nullptr;

    bool stop_requested() const {
      return abort.load(std::memory_order_relaxed) ||
             (options->stop != nullptr && options->stop->load(std::memory_order_relaxed));
    }
    std::optional<std::size_t> take() override {
      if (stop_requested()) return std::nullopt;
      const std::size_t k = next.fetch_add(1, std::memory_order_relaxed);
      if (k >= todo->size()) return std::nullopt;
      return (*todo)[k];
    }
    void record(const block_payload& b) {
      progress->block_done(b.reps, b.failed, b.wall_s);
      std::lock_guard lock(mutex);
      ++computed;
      reps_computed += b.reps;
      failed_computed += b.failed;
      rep_wall += b.rep_wall_s;
      max_block = std::max(max_block, b.wall_s);
    }
    void deliver(const block_payload& b) override {
      write(b);
      record(b);
    }
    void fail(const std::string& message) override {
      std::lock_guard lock(mutex);
      if (!fatal) fatal = std::make_exception_ptr(std::runtime_error(message));
      abort.store(true);
    }
  } st;
  st.todo = &todo;
  st.options = &options;
  st.progress = &progress;
  st.write = [&](const block_payload& b) {
    if (b.block >= units.size()) throw std::runtime_error("remote block index out of range");
    write_block(out, cells[units[b.block].cell_index], units[b.block], b);
  };

  std::condition_variable cv;
  unsigned finished = 0;  // guarded by st.mutex
  auto worker = [&] {
    try {
      while (const auto k = st.take()) {
        const block_ref& u = units[*k];
        const block_payload b = compute_block_payload(p, *d, cells[u.cell_index], u, *k);
        st.deliver(b);
      }
    } catch (...) {
      std::lock_guard lock(st.mutex);
      if (!st.fatal) st.fatal = std::current_exception();
      st.abort.store(true);
    }
    std::lock_guard lock(st.mutex);
    ++finished;
    cv.notify_all();
  };
  std::vector<std::thread> pool;
  pool.reserve(n_workers);
  for (unsigned i = 0; i < n_workers; ++i) pool.emplace_back(worker);
  {
    bool remote_done = options.remote == nullptr;
    std::unique_lock lock(st.mutex);
    while (finished < n_workers || !remote_done) {
      if (remote_done) cv.wait_for(lock, std::chrono::milliseconds(100));
      lock.unlock();
      if (!remote_done) {
        try {
          remote_done = options.remote->poll(st);
        } catch (...) {
          // The transport itself failed: stop local work and report it after the pool ends.
          std::lock_guard g(st.mutex);
          if (!st.fatal) st.fatal = std::current_exception();
          st.abort.store(true);
          remote_done = true;
        }
      }
      progress.tick();
      lock.lock();
    }
  }
  for (auto& t : pool) t.join();
  progress.compute_done();
  result.counts.computed = st.computed;

  const bool interrupted = !st.fatal && st.computed + result.counts.cached < mine.size();
  detail::manifest_input mi;
  mi.p = &p;
  mi.cells = &cells;
  mi.drv = d;
  mi.threads = threads;
  mi.start_utc = detail::utc_iso(utc_start);
  mi.replication_wall_s = st.rep_wall;
  mi.replications_computed = st.reps_computed;
  mi.max_block_s = st.max_block;
  mi.shard_index = options.shard_index;
  mi.shard_count = options.shard_count;
  if (options.remote != nullptr) {
    json r = json::object();
    for (const auto& [k, v] : options.remote->stats()) r[k] = v;
    mi.remote_json = r.dump();
  }
  auto write_manifest = [&] {
    mi.end_utc = detail::utc_iso(std::chrono::system_clock::now());
    mi.wall_s = std::chrono::duration<double>(clock::now() - wall_start).count();
    mi.cpu_s = detail::process_cpu_seconds() - cpu_start;
    mi.counts = result.counts;
    const std::string text = detail::manifest_json(mi);
    write_file_atomic(own_dir / "manifest.json", text);
    fs::create_directories(out / "manifests");
    std::string stem = detail::utc_compact(utc_start);
    if (sharded) {
      stem += "-shard-" + std::to_string(options.shard_index) + "-of-" +
              std::to_string(options.shard_count);
    }
    write_file_atomic(out / "manifests" / (stem + ".json"), text);
  };

  if (st.fatal || interrupted || partial) {
    result.status = st.fatal                 ? run_status::failed
                    : interrupted            ? run_status::interrupted
                    : st.failed_computed > 0 ? run_status::failed
                                             : run_status::completed;
    result.counts.failed = st.failed_computed;
    mi.status = result.status;
    if (st.fatal) {
      try {
        std::rethrow_exception(st.fatal);
      } catch (const std::exception& e) {
        mi.error = one_line(e.what());
      } catch (...) {
        mi.error = "a driver threw a non-standard exception";
      }
    }
    progress.finish(to_string(result.status));
    if (!options.only_cells.empty() && !sharded) {
      // A filtered run must not replace the manifest of the full results: history only.
      fs::create_directories(out / "manifests");
      mi.end_utc = detail::utc_iso(std::chrono::system_clock::now());
      mi.wall_s = std::chrono::duration<double>(clock::now() - wall_start).count();
      mi.cpu_s = detail::process_cpu_seconds() - cpu_start;
      mi.counts = result.counts;
      write_file_atomic(out / "manifests" / (detail::utc_compact(utc_start) + "-only.json"),
                        detail::manifest_json(mi));
    } else {
      write_manifest();
    }
    result.wall_s = mi.wall_s;
    if (st.fatal) std::rethrow_exception(st.fatal);
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
                                &result.figures_rendered,
                                &result.figures_note);
  result.figures_failed = options.figures && !p.figures.empty() && !result.figures_rendered;
  count_rates(result);
  result.report_path = out / "report.md";
  result.status = result.counts.failed > 0 ? run_status::failed : run_status::completed;
  mi.status = result.status;
  mi.rates = &result.rates;
  mi.rates_checked = result.rates_checked;
  mi.rates_passed = result.rates_passed;
  progress.finish(to_string(result.status));
  write_manifest();
  write_html_reports(out, options.out_dir.empty());  // report.html, index.html, provenance
  result.wall_s = mi.wall_s;
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
  result.counts.blocks = plan_blocks(p, cells.size()).size();
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
                                &result.figures_rendered,
                                &result.figures_note);
  result.figures_failed = options.figures && !p.figures.empty() && !result.figures_rendered;
  count_rates(result);
  write_html_reports(out, options.out_dir.empty());  // report.html, index.html, provenance
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
