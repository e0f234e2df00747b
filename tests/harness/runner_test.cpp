// Properties checked (runner, docs/presets.md "Running"):
// - determinism: 1 and 2 worker threads give byte-identical tidy.csv, summary.csv and rates.csv;
// - cache: a second run computes 0 blocks and gives the same tidy.csv; bumping the driver
//   version recomputes every block; force recomputes every block;
// - block files: reps_<a>-<b>.csv (6-digit, inclusive) + .json sidecar with the cache key, and
//   params.json per cell;
// - a std::exception in one replication gives a row with status "failed", its message and NaN
//   metrics; the other rows are fine, the run status is failed, and a rerun recomputes only the
//   blocks with failures;
// - a non-std exception mid-block aborts the run: no partial block file and no temporary file is
//   left, the manifest says failed, and the rerun computes only the missing blocks and matches
//   an uninterrupted run byte for byte;
// - a stop request (what SIGINT sets) abandons the block in flight at its next replication,
//   keeps the finished blocks, writes the manifest with status interrupted, and resuming
//   matches an uninterrupted run byte for byte;
// - the manifest has the required provenance fields (git, build, rng, timing, counts, status);
// - rejected presets write nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "../../experiments/synthetic/synthetic.hpp"
#include "dpx/harness/runner.hpp"

namespace {

namespace fs = std::filesystem;
namespace h = dpx::harness;

const h::driver_registrar reg_power{
    dpx::experiments::make_synthetic_power_law("runner_test_power_law")};

// Throws a non-std exception at replication kill_rep of the cell with n == kill_n while armed.
std::atomic<bool> g_kill_armed{false};
h::driver make_killer() {
  h::driver d = dpx::experiments::make_synthetic_power_law("runner_test_killer");
  auto inner = d.run;
  d.run = [inner](const h::cell_context& c) {
    if (g_kill_armed.load() && c.params.get_int("n") == 20 && c.replication == 15) throw 42;
    return inner(c);
  };
  return d;
}
const h::driver_registrar reg_killer{make_killer()};

// Requests a stop (what the SIGINT handler does) at the g_stop_at-th call.
std::atomic<bool> g_stop{false};
std::atomic<int> g_calls{0};
std::atomic<int> g_stop_at{-1};
h::driver make_stopper() {
  h::driver d = dpx::experiments::make_synthetic_power_law("runner_test_stopper");
  auto inner = d.run;
  d.run = [inner](const h::cell_context& c) {
    if (g_calls.fetch_add(1) + 1 == g_stop_at.load()) g_stop.store(true);
    return inner(c);
  };
  return d;
}
const h::driver_registrar reg_stopper{make_stopper()};

h::driver make_trivial() {
  h::driver d;
  d.name = "runner_test_trivial";
  d.version = "1";
  d.params = {{"n", "", h::param_value{std::int64_t{1}}}};
  d.metric_names = {"x"};
  d.run = [](const h::cell_context& c) {
    return h::metrics{{"x", static_cast<double>(c.replication)}};
  };
  return d;
}
const h::driver_registrar reg_trivial{make_trivial()};

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("dpx_runner_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  fs::path write_preset(const std::string& name,
                        const std::string& driver,
                        const std::string& extra,
                        int replications = 20,
                        int block = 10) {
    const fs::path path = dir_ / (name + ".toml");
    std::ofstream(path) << "[experiment]\nname = \"" << name << "\"\ndriver = \"" << driver
                        << "\"\nbase_seed = 7\nreplications = " << replications
                        << "\nreplication_block = " << block << "\n[grid]\nn = [10, 20, 40]\n"
                        << "slope = [-0.5, -1.0]\n"
                        << extra;
    return path;
  }

  h::run_options options(const fs::path& preset, const std::string& out, unsigned threads = 1) {
    h::run_options o;
    o.preset = preset.string();
    o.out_dir = dir_ / out;
    o.threads = threads;
    o.quiet = true;
    o.figures = false;
    return o;
  }

  static std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  static std::size_t count_files(const fs::path& root, const std::string& needle) {
    std::size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (e.path().filename().string().find(needle) != std::string::npos) ++n;
    }
    return n;
  }

  fs::path dir_;
};

TEST_F(RunnerTest, DeterministicAcrossThreadCounts) {
  const auto preset = write_preset(
      "det",
      "runner_test_power_law",
      "[[rate]]\nx = \"n\"\ny = \"y\"\ngroup_by = [\"slope\"]\nexpected_slope = -0.5\n");
  const auto r1 = h::run_preset(options(preset, "t1", 1));
  const auto r2 = h::run_preset(options(preset, "t2", 2));
  EXPECT_EQ(r1.status, h::run_status::completed);
  EXPECT_EQ(r1.counts.cells, 6u);
  EXPECT_EQ(r1.counts.replications, 120u);
  EXPECT_EQ(r1.counts.blocks, 12u);
  EXPECT_EQ(r1.counts.computed, 12u);
  EXPECT_EQ(r1.counts.cached, 0u);
  for (const char* f : {"tidy.csv", "summary.csv", "rates.csv"}) {
    const std::string a = slurp(dir_ / "t1" / f), b = slurp(dir_ / "t2" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_EQ(a, b) << f;
  }
  // Header and row count of tidy.csv; replications differ; wall_s zeroed.
  const auto t = h::read_tidy_csv(dir_ / "t1" / "tidy.csv");
  EXPECT_EQ(t.rows.size(), 120u);
  EXPECT_EQ(t.metric_names, (std::vector<std::string>{"y", "log_y"}));
  EXPECT_EQ(t.param_names.front(), "fail_rep");
  EXPECT_NE(t.rows[0].metrics[0], t.rows[1].metrics[0]);
  for (const auto& row : t.rows) EXPECT_EQ(row.wall_s, 0.0);
  // Block files, sidecars and params.json.
  const auto& c0 = t.rows.front().cell_id;
  EXPECT_TRUE(fs::exists(dir_ / "t1" / "cells" / c0 / "reps_000000-000009.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "t1" / "cells" / c0 / "reps_000010-000019.json"));
  const auto params = nlohmann::json::parse(slurp(dir_ / "t1" / "cells" / c0 / "params.json"));
  EXPECT_EQ(params["cell_id"], c0);
  EXPECT_TRUE(params["params"].contains("n"));
  EXPECT_EQ(count_files(dir_, ".tmp."), 0u);
  ASSERT_EQ(r1.rates.size(), 2u);  // one fit per slope group
}

TEST_F(RunnerTest, CacheReuseVersionBumpAndForce) {
  const auto preset = write_preset("cache", "runner_test_power_law", "");
  auto o = options(preset, "out", 2);
  const auto first = h::run_preset(o);
  const std::string tidy = slurp(dir_ / "out" / "tidy.csv");
  const auto second = h::run_preset(o);
  EXPECT_EQ(second.counts.computed, 0u);
  EXPECT_EQ(second.counts.cached, 12u);
  EXPECT_EQ(slurp(dir_ / "out" / "tidy.csv"), tidy);

  // Bumping the driver version invalidates every block. (The registry holds non-const drivers;
  // tests may change a version in place.)
  auto* d = const_cast<h::driver*>(h::find_driver("runner_test_power_law"));
  d->version = "2";
  const auto bumped = h::run_preset(o);
  d->version = "1";
  EXPECT_EQ(bumped.counts.computed, 12u);
  EXPECT_EQ(bumped.counts.cached, 0u);
  EXPECT_EQ(slurp(dir_ / "out" / "tidy.csv"), tidy);  // same semantics here, same numbers

  o.force = true;
  const auto forced = h::run_preset(o);
  EXPECT_EQ(forced.counts.computed, 12u);
  EXPECT_EQ(slurp(dir_ / "out" / "tidy.csv"), tidy);

  // Adding grid values reuses the existing cells' blocks.
  std::string text = slurp(preset);
  text.replace(text.find("n = [10, 20, 40]"), 16, "n = [10, 20, 40, 80]");
  std::ofstream(preset) << text;
  o.force = false;
  const auto grown = h::run_preset(o);
  EXPECT_EQ(grown.counts.cached, 12u);
  EXPECT_EQ(grown.counts.computed, 4u);
}

TEST_F(RunnerTest, FailedReplicationBecomesFailedRow) {
  const auto preset = write_preset("fail", "runner_test_power_law", "[fixed]\nfail_rep = 3\n");
  auto o = options(preset, "out", 2);
  const auto r = h::run_preset(o);
  EXPECT_EQ(r.status, h::run_status::failed);
  EXPECT_EQ(r.counts.failed, 6u);
  const auto t = h::read_tidy_csv(dir_ / "out" / "tidy.csv");
  ASSERT_EQ(t.rows.size(), 120u);
  for (const auto& row : t.rows) {
    if (row.rep == 3) {
      EXPECT_EQ(row.status, "failed");
      EXPECT_NE(row.message.find("injected failure at replication 3"), std::string::npos);
      EXPECT_TRUE(std::isnan(row.metrics[0]));
    } else {
      EXPECT_EQ(row.status, "ok");
      EXPECT_TRUE(std::isfinite(row.metrics[0]) && row.metrics[0] > 0);
    }
  }
  const auto manifest = nlohmann::json::parse(slurp(dir_ / "out" / "manifest.json"));
  EXPECT_EQ(manifest["status"], "failed");
  EXPECT_EQ(manifest["counts"]["failed"], 6);
  // Blocks with failures are retried; the others come from the cache.
  const auto again = h::run_preset(o);
  EXPECT_EQ(again.counts.computed, 6u);
  EXPECT_EQ(again.counts.cached, 6u);
}

TEST_F(RunnerTest, FatalExceptionLeavesNoPartialBlockAndResumes) {
  const auto preset = write_preset("kill", "runner_test_killer", "[fixed]\nslope = -0.5\n");
  // The grid above sweeps slope too; use a preset without it.
  std::string text = slurp(preset);
  text.replace(text.find("slope = [-0.5, -1.0]\n"), 21, "");
  std::ofstream(preset) << text;

  auto o = options(preset, "out", 1);
  g_kill_armed = true;
  EXPECT_THROW((void)h::run_preset(o), int);
  g_kill_armed = false;
  const auto killed = h::load_preset(preset);
  const auto cells = h::expand_grid(killed);
  ASSERT_EQ(cells.size(), 3u);
  const fs::path cell20 = dir_ / "out" / "cells" / cells[1].id;
  ASSERT_EQ(cells[1].params.get_int("n"), 20);
  EXPECT_TRUE(fs::exists(cell20 / "reps_000000-000009.csv"));
  EXPECT_FALSE(fs::exists(cell20 / "reps_000010-000019.csv"));
  EXPECT_FALSE(fs::exists(cell20 / "reps_000010-000019.json"));
  EXPECT_EQ(count_files(dir_, ".tmp."), 0u);
  EXPECT_FALSE(fs::exists(dir_ / "out" / "tidy.csv"));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "out" / "manifest.json"))["status"], "failed");

  const auto resumed = h::run_preset(o);
  EXPECT_EQ(resumed.status, h::run_status::completed);
  EXPECT_EQ(resumed.counts.cached, 3u);
  EXPECT_EQ(resumed.counts.computed, 3u);
  const auto clean = h::run_preset(options(preset, "clean", 2));
  EXPECT_EQ(clean.counts.computed, 6u);
  EXPECT_EQ(slurp(dir_ / "out" / "tidy.csv"), slurp(dir_ / "clean" / "tidy.csv"));
}

TEST_F(RunnerTest, StopRequestSavesInFlightBlockAndResumes) {
  const auto preset = write_preset("stop", "runner_test_stopper", "");
  auto o = options(preset, "out", 1);
  o.stop = &g_stop;
  g_stop = false;
  g_calls = 0;
  g_stop_at = 15;  // inside the second block
  const auto r = h::run_preset(o);
  g_stop_at = -1;
  EXPECT_EQ(r.status, h::run_status::interrupted);
  EXPECT_EQ(r.counts.computed, 1u);                   // the first block; the one in flight
  EXPECT_EQ(count_files(dir_ / "out", "reps_"), 2u);  // is abandoned: 1 csv + 1 json
  EXPECT_FALSE(fs::exists(dir_ / "out" / "tidy.csv"));
  const auto m = nlohmann::json::parse(slurp(dir_ / "out" / "manifest.json"));
  EXPECT_EQ(m["status"], "interrupted");
  EXPECT_EQ(m["counts"]["computed"], 1);

  g_stop = false;
  o.resume = true;
  const auto resumed = h::run_preset(o);
  EXPECT_EQ(resumed.status, h::run_status::completed);
  EXPECT_EQ(resumed.counts.cached, 1u);
  EXPECT_EQ(resumed.counts.computed, 11u);
  (void)h::run_preset(options(preset, "clean", 2));
  EXPECT_EQ(slurp(dir_ / "out" / "tidy.csv"), slurp(dir_ / "clean" / "tidy.csv"));
}

TEST_F(RunnerTest, ManifestFields) {
  const auto preset = write_preset("manifest", "runner_test_power_law", "");
  (void)h::run_preset(options(preset, "out", 2));
  const auto m = nlohmann::json::parse(slurp(dir_ / "out" / "manifest.json"));
  EXPECT_EQ(m["schema_version"], 1);
  EXPECT_EQ(m["experiment"], "manifest");
  EXPECT_EQ(m["driver"]["name"], "runner_test_power_law");
  EXPECT_EQ(m["driver"]["version"], "1");
  EXPECT_EQ(m["preset"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(m["preset"]["text"], slurp(preset));
  EXPECT_EQ(m["preset"]["resolved"].size(), 6u);
  EXPECT_EQ(m["quick"], false);
  for (const char* k : {"commit", "dirty", "describe"}) EXPECT_TRUE(m["git"].contains(k)) << k;
  for (const char* k : {"compiler", "flags", "target_flags", "build_type", "cmake_version"})
    EXPECT_TRUE(m["build"].contains(k)) << k;
  // The reproducibility flag every dpx target compiles with is recorded.
  EXPECT_NE(m["build"]["target_flags"].get<std::string>().find("-ffp-contract=off"),
            std::string::npos);
  for (const char* k : {"toml++", "nlohmann_json"}) EXPECT_TRUE(m["deps"].contains(k)) << k;
  for (const char* k : {"hostname", "cpu_model", "cores", "kernel", "glibc"})
    EXPECT_TRUE(m["host"].contains(k)) << k;
  EXPECT_TRUE(m["env"].contains("OPENBLAS_NUM_THREADS"));
  EXPECT_EQ(m["rng"]["algorithm"], std::string(dpx::rng::philox4x32::algorithm_name));
  EXPECT_EQ(m["rng"]["derivation"], std::string(dpx::rng::stream_derivation));
  EXPECT_EQ(m["rng"]["base_seed"], 7);
  EXPECT_EQ(m["threads"], 2);
  for (const char* k : {"start_utc", "end_utc", "wall_s", "cpu_s"})
    EXPECT_TRUE(m["timing"].contains(k)) << k;
  EXPECT_EQ(m["counts"]["cells"], 6);
  EXPECT_EQ(m["counts"]["replications"], 120);
  EXPECT_EQ(m["counts"]["blocks"], 12);
  EXPECT_EQ(m["status"], "completed");
  EXPECT_TRUE(m["rates"].contains("passed"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "progress.json"));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "out" / "progress.json"))["status"], "completed");
}

TEST_F(RunnerTest, RejectedPresetWritesNothing) {
  const fs::path path = dir_ / "bad.toml";
  std::ofstream(path)
      << "[experiment]\nname = \"bad\"\ndriver = \"runner_test_power_law\"\nbase_seed = 1\n"
         "replications = 2\n[grid]\nn = [1]\nsigma = [1.0]\n";
  auto o = options(path, "out");
  EXPECT_THROW((void)h::run_preset(o), std::invalid_argument);
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  o.force = true;
  o.resume = true;
  EXPECT_THROW((void)h::run_preset(o), std::invalid_argument);
}

TEST_F(RunnerTest, ReportFromBlocksWithoutTidy) {
  const auto preset = write_preset("report", "runner_test_power_law", "");
  (void)h::run_preset(options(preset, "out", 2));
  const std::string tidy = slurp(dir_ / "out" / "tidy.csv");
  fs::remove(dir_ / "out" / "tidy.csv");
  h::report_options ro;
  ro.preset = preset.string();
  ro.out_dir = dir_ / "out";
  ro.figures = false;
  const auto r = h::report_preset(ro);
  EXPECT_EQ(r.counts.cells, 6u);
  EXPECT_EQ(slurp(dir_ / "out" / "tidy.csv"), tidy);
  EXPECT_TRUE(fs::exists(dir_ / "out" / "report.md"));
  ro.out_dir = dir_ / "nothing";
  EXPECT_THROW((void)h::report_preset(ro), std::invalid_argument);
}

TEST_F(RunnerTest, TrivialReplicationThroughput) {
  // Reports (does not assert: no wall-clock assertions) the per-replication overhead.
  const fs::path path = dir_ / "fast.toml";
  std::ofstream(path)
      << "[experiment]\nname = \"fast\"\ndriver = \"runner_test_trivial\"\nbase_seed = 1\n"
         "replications = 100000\nreplication_block = 50000\n";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = h::run_preset(options(path, "out", 1));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.counts.replications, 100000u);
  double block_s = 0;  // replications + writing the block CSV, summed over blocks
  for (const auto& e : fs::recursive_directory_iterator(dir_ / "out" / "cells")) {
    if (e.path().extension() != ".json" || e.path().filename() == "params.json") continue;
    const auto j = nlohmann::json::parse(slurp(e.path()));
    block_s += j["wall_s"].get<double>() + j["write_s"].get<double>();
  }
  std::cout << "[ perf     ] 100000 trivial replications: blocks (compute + CSV) "
            << 100000 / block_s << " reps/s; whole run (incl. merge, tidy.csv, analysis) "
            << 100000 / s << " reps/s\n";
}

}  // namespace
