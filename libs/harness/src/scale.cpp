// Scaling out: collect (merge shard blocks), status (per-shard state), Slurm scripts.
#include "dpx/harness/scale.hpp"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "dpx/harness/report_html.hpp"
#include "internal.hpp"
#include "json_io.hpp"

namespace dpx::harness {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

/// Shard manifests under out/shards/<i>-of-<N>/manifest.json: (index, count, path).
struct shard_entry {
  unsigned index = 0, count = 1;
  fs::path dir;
};

std::vector<shard_entry> list_shard_dirs(const fs::path& out) {
  std::vector<shard_entry> list;
  std::error_code ec;
  if (!fs::is_directory(out / "shards", ec)) return list;
  static const std::regex name_re("([0-9]+)-of-([0-9]+)");
  for (const auto& e : fs::directory_iterator(out / "shards", ec)) {
    std::smatch m;
    const std::string name = e.path().filename().string();
    if (!e.is_directory() || !std::regex_match(name, m, name_re)) continue;
    shard_entry s;
    s.index = static_cast<unsigned>(std::stoul(m[1].str()));
    s.count = static_cast<unsigned>(std::stoul(m[2].str()));
    s.dir = e.path();
    if (s.count >= 1 && s.index < s.count) list.push_back(s);
  }
  std::sort(list.begin(), list.end(), [](const shard_entry& a, const shard_entry& b) {
    return a.count != b.count ? a.count < b.count : a.index < b.index;
  });
  return list;
}

/// The quick flag recorded by the shards (first manifest found), else by manifest.json.
bool recorded_quick(const fs::path& out) {
  for (const auto& s : list_shard_dirs(out)) {
    if (const auto m = detail::read_json_file(s.dir / "manifest.json"))
      return m->value("quick", false);
  }
  if (const auto m = detail::read_json_file(out / "manifest.json")) return m->value("quick", false);
  return false;
}

/// Seconds since a "YYYY-MM-DDTHH:MM:SSZ" time; nullopt if it does not parse.
std::optional<double> age_of(const std::string& utc) {
  std::tm tm{};
  std::istringstream in(utc);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
  if (in.fail()) return std::nullopt;
  const std::time_t t = timegm(&tm);
  const auto then = std::chrono::system_clock::from_time_t(t);
  return std::chrono::duration<double>(std::chrono::system_clock::now() - then).count();
}

}  // namespace

collect_result collect_preset(const collect_options& options) {
  using clock = std::chrono::steady_clock;
  const auto wall_start = clock::now();
  const auto utc_start = std::chrono::system_clock::now();
  const double cpu_start = detail::process_cpu_seconds();
  const fs::path path = find_preset(options.preset);
  const preset probe = load_preset(path, false);
  const fs::path out = options.out_dir.empty() ? default_out_dir(probe) : options.out_dir;
  std::error_code ec;
  if (!fs::is_directory(out, ec)) {
    throw std::invalid_argument("no results for '" + probe.name + "' in " + out.string() +
                                " (run it, or its shards, first)");
  }
  const bool quick = options.quick ? *options.quick : recorded_quick(out);
  const preset p = quick ? load_preset(path, true) : probe;
  const driver* d = find_driver(p.driver);
  if (d == nullptr) throw preset_error(p.path.string() + ": unknown driver '" + p.driver + "'");
  const std::vector<cell> cells = expand_grid(p);
  const std::vector<block_ref> plan = plan_blocks(p, cells.size());

  const detail::dir_lock lock(out, detail::dir_lock::mode::exclusive);
  detail::remove_stale_temporaries(out);
  collect_result cr;
  std::vector<bool> present(plan.size(), false);
  for (std::size_t k = 0; k < plan.size(); ++k) {
    const block_ref& b = plan[k];
    const cell& c = cells[b.cell_index];
    const detail::block_check chk = detail::inspect_block(out, p, *d, c, b);
    present[k] =
        chk.state == detail::block_state::ok || chk.state == detail::block_state::has_failures;
    if (chk.state == detail::block_state::corrupt) {
      ++cr.run.counts.corrupt;
      std::cerr << "dpx: warning: " << detail::block_file(out, c, b, ".csv").string() << ": "
                << chk.reason << "; left out (rerun its shard to recompute it)\n";
    }
    if (present[k]) {
      ++cr.blocks_present;
    } else {
      ++cr.blocks_missing;
      if (cr.first_missing.empty())
        cr.first_missing = detail::block_file(out, c, b, ".csv").string();
    }
  }
  if (cr.blocks_present == 0) {
    throw std::invalid_argument("collect: no block of '" + p.name + "'" +
                                (quick ? " (quick grid)" : "") + " in " + out.string() +
                                " (first expected: " + cr.first_missing + ")");
  }

  run_result& r = cr.run;
  r.experiment = p.name;
  r.out_dir = out;
  r.counts.cells = cells.size();
  r.counts.replications = cells.size() * p.replications;
  r.counts.blocks = plan.size();
  r.counts.cached = cr.blocks_present;
  detail::finalize_options fo;
  fo.figures = options.figures;
  fo.include = &present;
  detail::finalize(p, *d, cells, out, fo, r);
  const bool complete = cr.blocks_missing == 0;
  if (!complete) r.status = run_status::interrupted;

  // Shard manifests of this grid's shard count(s), summarised.
  json shards = json::array();
  unsigned count = 1;
  double compute_cpu = 0, compute_wall_max = 0;
  std::size_t reps_computed = 0;
  double rep_wall = 0, max_block = 0;
  for (const auto& s : list_shard_dirs(out)) {
    const auto m = detail::read_json_file(s.dir / "manifest.json");
    if (!m || m->value("quick", false) != quick) continue;
    if (m->value("experiment", std::string()) != p.name) continue;
    ++cr.shard_manifests;
    count = std::max(count, s.count);
    const json& t = (*m)["timing"];
    const json& c = (*m)["counts"];
    compute_cpu += t.value("cpu_s", 0.0);
    compute_wall_max = std::max(compute_wall_max, t.value("wall_s", 0.0));
    reps_computed += t.value("replications_computed", std::size_t{0});
    rep_wall += t.value("replication_wall_s_total", 0.0);
    max_block = std::max(max_block, t.value("max_block_s", 0.0));
    shards.push_back({{"index", s.index},
                      {"count", s.count},
                      {"status", m->value("status", std::string("unknown"))},
                      {"host", (*m)["host"].value("hostname", std::string("unknown"))},
                      {"threads", m->value("threads", 0u)},
                      {"start_utc", t.value("start_utc", std::string())},
                      {"end_utc", t.value("end_utc", std::string())},
                      {"wall_s", t.value("wall_s", 0.0)},
                      {"cpu_s", t.value("cpu_s", 0.0)},
                      {"blocks", c.value("blocks", std::size_t{0})},
                      {"computed", c.value("computed", std::size_t{0})},
                      {"cached", c.value("cached", std::size_t{0})},
                      {"failed", c.value("failed", std::size_t{0})}});
  }

  detail::manifest_input mi;
  mi.p = &p;
  mi.cells = &cells;
  mi.drv = d;
  mi.threads = 0;
  mi.start_utc = detail::utc_iso(utc_start);
  mi.end_utc = detail::utc_iso(std::chrono::system_clock::now());
  mi.wall_s = std::chrono::duration<double>(clock::now() - wall_start).count();
  mi.cpu_s = detail::process_cpu_seconds() - cpu_start;
  mi.replications_computed = reps_computed;
  mi.replication_wall_s = rep_wall;
  mi.max_block_s = max_block;
  mi.counts = r.counts;
  mi.status = r.status;
  if (!complete) mi.status_text = "incomplete";
  mi.rates = &r.rates;
  mi.rates_checked = r.rates_checked;
  mi.rates_passed = r.rates_passed;
  if (cr.shard_manifests > 0) {
    mi.shard_count = count;
    mi.shards_json = shards.dump();
  }
  json remote = {{"collected_by", "dpx collect"},
                 {"blocks_present", cr.blocks_present},
                 {"blocks_missing", cr.blocks_missing},
                 {"shards_cpu_s_total", compute_cpu},
                 {"shards_wall_s_max", compute_wall_max}};
  mi.remote_json = remote.dump();
  const std::string text = detail::manifest_json(mi);
  write_file_atomic(out / "manifest.json", text);
  fs::create_directories(out / "manifests");
  write_file_atomic(out / "manifests" / (detail::utc_compact(utc_start) + "-collect.json"), text);
  write_html_reports(out, options.out_dir.empty());  // report.html, index.html, provenance
  r.wall_s = mi.wall_s;
  return cr;
}

status_result status_preset(const status_options& options) {
  const fs::path path = find_preset(options.preset);
  const preset probe = load_preset(path, false);
  const fs::path out = options.out_dir.empty() ? default_out_dir(probe) : options.out_dir;
  status_result sr;
  sr.experiment = probe.name;
  sr.out_dir = out;
  sr.quick = options.quick ? *options.quick : recorded_quick(out);
  const preset p = sr.quick ? load_preset(path, true) : probe;
  const driver* d = find_driver(p.driver);
  if (d == nullptr) throw preset_error(p.path.string() + ": unknown driver '" + p.driver + "'");
  const std::vector<cell> cells = expand_grid(p);
  const std::vector<block_ref> plan = plan_blocks(p, cells.size());
  sr.blocks = plan.size();

  unsigned count = options.shards;
  if (count == 0) {
    count = 1;
    for (const auto& s : list_shard_dirs(out)) {
      // The largest shard count whose heartbeat or manifest records this grid.
      const auto h = detail::read_json_file(s.dir / "manifest.json");
      if (h && h->value("quick", false) != sr.quick) continue;
      count = std::max(count, s.count);
    }
  }
  sr.shards.resize(count);
  for (unsigned i = 0; i < count; ++i) {
    sr.shards[i].index = i;
    sr.shards[i].count = count;
  }
  auto newest_block = fs::file_time_type::min();
  for (const auto& b : plan) {
    const cell& c = cells[b.cell_index];
    shard_state& s = sr.shards[shard_of(c.id, b.first, count)];
    ++s.blocks;
    const auto st = detail::check_block(out, p, *d, c, b);
    if (st == detail::block_state::ok) {
      ++s.blocks_done;
      ++sr.blocks_done;
    } else if (st == detail::block_state::has_failures) {
      ++s.blocks_failed;
    }
    std::error_code ec;
    const auto t =
        fs::last_write_time(detail::cell_dir(out, c) / (block_stem(b.first, b.last) + ".csv"), ec);
    if (!ec) newest_block = std::max(newest_block, t);
  }
  for (auto& s : sr.shards) {
    const fs::path dir = count > 1 ? out / shard_dir(s.index, count) : out;
    if (const auto h = detail::read_json_file(dir / "progress.json")) {
      s.heartbeat_status = h->value("status", std::string());
      s.host = h->value("host", std::string());
      s.pid = h->value("pid", 0LL);
      if (const auto age = age_of(h->value("updated_utc", std::string()))) {
        s.heartbeat_age_s = std::max(0.0, *age);
      }
    }
    bool fresh = s.heartbeat_age_s >= 0 && s.heartbeat_age_s < options.running_age_s;
    // On this host a dead pid settles it at once (no need to wait for the heartbeat to age).
    if (fresh && s.pid > 0 && s.host == detail::host_name() &&
        ::kill(static_cast<pid_t>(s.pid), 0) != 0 && errno == ESRCH) {
      fresh = false;
    }
    if (s.heartbeat_status == "running" && fresh) {
      s.state = "running";
    } else if (s.blocks_done == s.blocks) {
      s.state = "finished";
      if (!s.heartbeat_status.empty() && s.heartbeat_status != to_string(run_status::completed))
        s.note = "every block is complete and valid; the heartbeat's '" + s.heartbeat_status +
                 "' is from an earlier attempt (or a failure after the blocks were written)";
    } else if (s.blocks_failed > 0 || !s.heartbeat_status.empty()) {
      // failed/interrupted heartbeat, or "running" but stale: the process is gone.
      s.state = "failed";
    } else {
      s.state = "missing";
    }
  }
  std::error_code ec;
  const auto tidy_time = fs::last_write_time(out / "tidy.csv", ec);
  sr.collected = !ec && sr.blocks_done == sr.blocks && tidy_time >= newest_block;
  return sr;
}

std::string status_json(const status_result& s) {
  json j;
  j["experiment"] = s.experiment;
  j["out_dir"] = s.out_dir.string();
  j["quick"] = s.quick;
  j["blocks"] = s.blocks;
  j["blocks_done"] = s.blocks_done;
  j["collected"] = s.collected;
  json list = json::array();
  for (const auto& x : s.shards) {
    list.push_back(
        {{"index", x.index},
         {"count", x.count},
         {"state", x.state},
         {"blocks", x.blocks},
         {"blocks_done", x.blocks_done},
         {"blocks_failed", x.blocks_failed},
         {"heartbeat_status", x.heartbeat_status},
         {"heartbeat_age_s", x.heartbeat_age_s < 0 ? json(nullptr) : json(x.heartbeat_age_s)},
         {"host", x.host},
         {"pid", x.pid},
         {"note", x.note}});
  }
  j["shards"] = list;
  return j.dump(2) + "\n";
}

void slurm_options::validate() const {
  auto need_abs = [](const fs::path& p, const char* what) {
    if (!p.is_absolute()) {
      throw std::invalid_argument(std::string("emit-slurm: ") + what + " '" + p.string() +
                                  "' must be an absolute path");
    }
  };
  need_abs(preset_path, "preset path");
  need_abs(out_dir, "output directory");
  need_abs(workdir, "working directory");
  need_abs(dpx, "dpx executable");
  if (shards == 0) throw std::invalid_argument("emit-slurm: --shards must be >= 1");
  if (cpus_per_task == 0) throw std::invalid_argument("emit-slurm: --cpus-per-task must be >= 1");
  static const std::regex time_re("([0-9]+-)?[0-9]{1,3}:[0-5][0-9]:[0-5][0-9]");
  if (!std::regex_match(time, time_re)) {
    throw std::invalid_argument("emit-slurm: --time " + time +
                                " is invalid (expected HH:MM:SS or D-HH:MM:SS)");
  }
  static const std::regex name_re("[A-Za-z0-9_.-]*");
  if (!std::regex_match(partition, name_re) || !std::regex_match(experiment, name_re)) {
    throw std::invalid_argument(
        "emit-slurm: partition and experiment names must match "
        "[A-Za-z0-9_.-]*");
  }
}

namespace {
/// Single-quoted for bash.
std::string sq(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
}  // namespace

std::string slurm_script(const slurm_options& o) {
  o.validate();
  const std::string n = std::to_string(o.shards);
  const std::string quick = o.quick ? " --quick" : "";
  std::string array = "0-" + std::to_string(o.shards - 1);
  if (o.parallelism > 0) array += "%" + std::to_string(o.parallelism);
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# dpx: " << o.experiment << " as a Slurm job array of " << n
    << " deterministic shards (docs/scaling.md).\n"
    << "# Generated by `dpx emit-slurm`; edit the #SBATCH lines for your site.\n"
    << "#\n"
    << "#   bash "
    << "THIS_SCRIPT --submit     submit the array, then `dpx collect` with\n"
    << "#                                --dependency=afterok:<array job id>\n"
    << "#   sbatch THIS_SCRIPT             submit the array only; later:\n"
    << "#   bash THIS_SCRIPT --collect     merge the blocks (no compute) into tidy.csv, report\n"
    << "#   SLURM_ARRAY_TASK_ID=i bash THIS_SCRIPT   run shard i here (no Slurm needed)\n"
    << "#\n"
    << "# Shard i computes the blocks b with stable_hash(cell_id/b.first) mod " << n << " == i;\n"
    << "# a rerun of a task reuses its finished blocks (the cache), so resubmitting failed\n"
    << "# tasks (sbatch --array=<ids> THIS_SCRIPT) completes the run.\n"
    << "#SBATCH --job-name=dpx-" << o.experiment << "\n"
    << "#SBATCH --array=" << array << "\n"
    << "#SBATCH --ntasks=1\n"
    << "#SBATCH --cpus-per-task=" << o.cpus_per_task << "\n"
    << "#SBATCH --time=" << o.time << "\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  s << "#SBATCH --chdir=" << o.workdir.string() << "\n"
    << "#SBATCH --output=dpx-" << o.experiment << "-%A_%a.out\n"
    << "set -euo pipefail\n"
    << "DPX=${DPX:-" << sq(o.dpx.string()) << "}\n"
    << "PRESET=" << sq(o.preset_path.string()) << "\n"
    << "OUT=" << sq(o.out_dir.string()) << "\n"
    << "SHARDS=" << n << "\n"
    << "# Replications are the unit of parallelism: BLAS and OpenMP stay single-threaded.\n"
    << "export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1\n"
    << "case \"${1:-}\" in\n"
    << "  --submit)\n"
    << "    script=$(readlink -f \"$0\")\n"
    << "    cd " << sq(o.workdir.string()) << "\n"
    << "    jid=$(sbatch --parsable \"$script\")\n"
    << "    jid=${jid%%;*}\n"
    << "    cid=$(sbatch --parsable --dependency=afterok:\"$jid\" --job-name=dpx-" << o.experiment
    << "-collect \\\n"
    << "      --ntasks=1 --cpus-per-task=1 --time=" << o.time << " --output=dpx-" << o.experiment
    << "-collect-%j.out \\\n"
    << "      --wrap \"$(printf '%q ' \"$DPX\" collect \"$PRESET\" --out \"$OUT\"" << quick
    << ")\")\n"
    << "    echo \"submitted array job $jid ($SHARDS shards) and collect job $cid\"\n"
    << "    exit 0 ;;\n"
    << "  --collect)\n"
    << "    exec \"$DPX\" collect \"$PRESET\" --out \"$OUT\"" << quick << " ;;\n"
    << "  \"\") ;;\n"
    << "  *) echo \"usage: $0 [--submit|--collect]\" >&2; exit 2 ;;\n"
    << "esac\n"
    << ": \"${SLURM_ARRAY_TASK_ID:?not in a Slurm array task (use --submit, or set "
       "SLURM_ARRAY_TASK_ID)}\"\n"
    << "exec \"$DPX\" run \"$PRESET\" --out \"$OUT\"" << quick
    << " --shard \"${SLURM_ARRAY_TASK_ID}/${SHARDS}\" \\\n"
    << "  --threads \"${SLURM_CPUS_PER_TASK:-" << o.cpus_per_task << "}\"\n";
  return s.str();
}

}  // namespace dpx::harness
