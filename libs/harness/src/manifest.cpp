// manifest.json: provenance of a run (fields: docs/presets.md, "manifest.json").
#include <gnu/libc-version.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <array>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>

#include <toml++/toml.h>
#include <nlohmann/json.hpp>

#if __has_include(<boost/version.hpp>)
#include <boost/version.hpp>
#endif
#if __has_include(<xtensor/xtensor_config.hpp>)
#include <xtensor/xtensor_config.hpp>
#endif
#if __has_include(<xtensor-blas/xblas_config.hpp>)
#include <xtensor-blas/xblas_config.hpp>
#endif

#include "dpx/core/rng.hpp"
#include "dpx/harness/sha256.hpp"
#include "internal.hpp"
#include "json_io.hpp"

// OpenBLAS reports its build configuration; declared weak so the harness does not link BLAS
// itself (the symbol resolves when the executable links OpenBLAS, e.g. the dpx tool).
extern "C" char* openblas_get_config() __attribute__((weak));
extern "C" int openblas_get_num_threads() __attribute__((weak));

namespace dpx::harness::detail {

namespace {

using json = nlohmann::ordered_json;

std::string time_format(std::chrono::system_clock::time_point t, const char* fmt) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}

/// Runs a shell command and returns its stdout without the trailing newline; nullopt on
/// failure (non-zero status or no output for commands that must print).
std::optional<std::string> command_output(const std::string& cmd) {
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return std::nullopt;
  std::string out;
  std::array<char, 512> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) out.append(buf.data(), n);
  const int rc = pclose(f);
  if (rc != 0) return std::nullopt;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

json git_info() {
  const std::string dir = shell_quote(DPX_SOURCE_DIR);
  json g;
  const auto commit = command_output("git -C " + dir + " rev-parse HEAD 2>/dev/null");
  const auto status = command_output("git -C " + dir + " status --porcelain 2>/dev/null");
  const auto describe = command_output("git -C " + dir + " describe --always --dirty 2>/dev/null");
  g["commit"] = commit && !commit->empty() ? *commit : "unknown";
  if (status) {
    g["dirty"] = !status->empty();
  } else {
    g["dirty"] = "unknown";
  }
  g["describe"] = describe && !describe->empty() ? *describe : "unknown";
  g["source"] = "queried at run time with git in DPX_SOURCE_DIR";
  return g;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto s = line.substr(colon + 1);
        while (!s.empty() && s.front() == ' ') s.erase(s.begin());
        return s;
      }
    }
  }
  return "unknown";
}

json env_value(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? json(nullptr) : json(v);
}

}  // namespace

std::string utc_iso(std::chrono::system_clock::time_point t) {
  return time_format(t, "%Y-%m-%dT%H:%M:%SZ");
}

std::string utc_compact(std::chrono::system_clock::time_point t) {
  return time_format(t, "%Y%m%dT%H%M%SZ");
}

double process_cpu_seconds() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string manifest_json(const manifest_input& in) {
  const preset& p = *in.p;
  json m;
  m["schema_version"] = 1;
  m["experiment"] = p.name;
  m["description"] = p.description;
  m["driver"] = {{"name", in.drv->name}, {"version", in.drv->version}};

  json resolved = json::array();
  for (const auto& c : *in.cells) {
    json params = json::object();
    for (const auto& [k, v] : c.params.values()) params[k] = param_json(v);
    resolved.push_back({{"cell_id", c.id}, {"slug", c.slug}, {"params", params}});
  }
  m["preset"] = {{"path", p.path.string()},
                 {"sha256", sha256_hex(p.text)},
                 {"text", p.text},
                 {"replications", p.replications},
                 {"replication_block", p.replication_block},
                 {"resolved", resolved}};
  m["quick"] = p.quick;
  m["overrides"] = p.overrides;  // `--set key=value`, applied in order to the preset text
  m["git"] = git_info();
  m["build"] = {{"compiler", DPX_CXX_COMPILER},
                {"flags", DPX_CXX_FLAGS},
                {"target_flags", DPX_TARGET_FLAGS},
                {"build_type", DPX_BUILD_TYPE},
                {"cmake_version", DPX_CMAKE_VERSION}};
  json deps;
#ifdef XTENSOR_VERSION_MAJOR
  deps["xtensor"] = std::to_string(XTENSOR_VERSION_MAJOR) + "." +
                    std::to_string(XTENSOR_VERSION_MINOR) + "." +
                    std::to_string(XTENSOR_VERSION_PATCH);
#endif
#ifdef XTENSOR_BLAS_VERSION_MAJOR
  deps["xtensor-blas"] = std::to_string(XTENSOR_BLAS_VERSION_MAJOR) + "." +
                         std::to_string(XTENSOR_BLAS_VERSION_MINOR) + "." +
                         std::to_string(XTENSOR_BLAS_VERSION_PATCH);
#endif
#ifdef BOOST_LIB_VERSION
  deps["boost"] = BOOST_LIB_VERSION;
#endif
  deps["toml++"] = std::to_string(TOML_LIB_MAJOR) + "." + std::to_string(TOML_LIB_MINOR) + "." +
                   std::to_string(TOML_LIB_PATCH);
  deps["nlohmann_json"] = std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                          std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                          std::to_string(NLOHMANN_JSON_VERSION_PATCH);
  if (openblas_get_config != nullptr) deps["openblas"] = openblas_get_config();
  m["deps"] = deps;

  utsname u{};
  const bool have_uname = uname(&u) == 0;
  m["host"] = {{"hostname", host_name()},
               {"cpu_model", cpu_model()},
               {"cores", std::thread::hardware_concurrency()},
               {"kernel",
                have_uname ? std::string(u.sysname) + " " + u.release + " " + u.machine
                           : std::string("unknown")},
               {"glibc", gnu_get_libc_version()}};
  m["env"] = {
      {"OPENBLAS_NUM_THREADS", env_value("OPENBLAS_NUM_THREADS")},
      {"blas_threads", openblas_get_num_threads != nullptr ? openblas_get_num_threads() : -1},
      {"OMP_NUM_THREADS", env_value("OMP_NUM_THREADS")},
      {"SLURM_JOB_ID", env_value("SLURM_JOB_ID")},
      {"SLURM_ARRAY_TASK_ID", env_value("SLURM_ARRAY_TASK_ID")}};
  m["rng"] = {{"algorithm", std::string(rng::philox4x32::algorithm_name)},
              {"derivation", std::string(rng::stream_derivation)},
              {"data_stream",
               "purpose data keyed on data_hash = stable_hash(driver + \"|\" + key of data_keys)"},
              {"base_seed", p.base_seed}};
  m["threads"] = in.threads;
  m["timing"] = {{"start_utc", in.start_utc},
                 {"end_utc", in.end_utc},
                 {"wall_s", in.wall_s},
                 {"cpu_s", in.cpu_s},
                 {"replications_computed", in.replications_computed},
                 {"replication_wall_s_total", in.replication_wall_s},
                 {"replication_wall_s_mean",
                  in.replications_computed > 0
                      ? in.replication_wall_s / static_cast<double>(in.replications_computed)
                      : 0.0},
                 {"max_block_s", in.max_block_s}};
  m["counts"] = {{"cells", in.counts.cells},
                 {"replications", in.counts.replications},
                 {"blocks", in.counts.blocks},
                 {"cached", in.counts.cached},
                 {"computed", in.counts.computed},
                 {"failed", in.counts.failed}};
  if (in.shard_count > 1 && in.shards_json.empty()) {
    m["shards"] = {{"index", in.shard_index}, {"count", in.shard_count}};
  } else if (!in.shards_json.empty()) {
    // collect: the merged shard manifests.
    m["shards"] = {
        {"index", nullptr}, {"count", in.shard_count}, {"manifests", json::parse(in.shards_json)}};
  } else {
    m["shards"] = {{"index", 0}, {"count", 1}};
  }
  if (!in.remote_json.empty()) m["remote"] = json::parse(in.remote_json);
  m["status"] = in.status_text.empty() ? to_string(in.status) : in.status_text;
  if (!in.error.empty()) m["error"] = in.error;
  if (in.rates != nullptr) {
    json list = json::array();
    for (const auto& r : *in.rates) {
      list.push_back({{"rate", r.rate},
                      {"group", r.group},
                      {"slope", r.slope},
                      {"ci", {r.ci_lo, r.ci_hi}},
                      {"ci_level", r.ci_level},
                      {"expected", r.expected},
                      {"pass", r.pass},
                      {"informational", r.informational}});
    }
    m["rates"] = {{"checked", in.rates_checked},
                  {"passed", in.rates_passed},
                  {"failed", in.rates_checked - in.rates_passed},
                  {"results", list}};
  } else {
    m["rates"] = nullptr;
  }
  return m.dump(2) + "\n";
}

}  // namespace dpx::harness::detail
