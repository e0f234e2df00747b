// Properties checked (the real `dpx` executable; docs/scaling.md):
// - three shards (`dpx run --shard i/3`) + `dpx collect` give a tidy.csv byte-identical to a
//   single-process run (and identical summary.csv and rates.csv); shards write no tidy.csv,
//   each writes shards/<i>-of-3/manifest.json, and collect's manifest lists the 3 shards;
// - `dpx status` reports missing shards before they run and finished ones after (JSON);
// - a shard killed with SIGKILL mid-run keeps every finished block, `dpx status` calls it
//   failed (dead pid), `--resume` computes only the rest, and collect still matches the
//   single-process run byte for byte;
// - `dpx emit-slurm` writes a script that passes `bash -n`, has the array line, single-threaded
//   BLAS and the afterok dependency; run locally with SLURM_ARRAY_TASK_ID = 0..N-1 and then
//   `--collect`, it reproduces the single-process tidy.csv;
// - collect with blocks missing writes partial results and exits 1.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;
using dpx::test::outcome;
using dpx::test::slurp;
using dpx::test::wait_exit;

const fs::path presets = DPX_INTEGRATION_PRESETS;

/// Starts argv in cwd (stdout/stderr to files) with DPX_EXPERIMENTS_DIR = presets.
pid_t spawn(const std::vector<std::string>& argv,
            const fs::path& cwd,
            const fs::path& out,
            const fs::path& err) {
  return dpx::test::spawn(argv, cwd, out, err, {{"DPX_EXPERIMENTS_DIR", presets.string()}});
}

/// Finished blocks: sidecars reps_*.json (written after the block's CSV).
std::size_t count_blocks(const fs::path& root) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("reps_", 0) == 0 && e.path().extension() == ".json") ++n;
  }
  return n;
}

class Scale : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = dpx::test::fresh_test_dir("dpx_scale_"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  outcome exec(const std::vector<std::string>& argv, dpx::test::env_list env = {}) {
    env.emplace_back("DPX_EXPERIMENTS_DIR", presets.string());
    return dpx::test::run_in(argv, dir_, env);
  }
  outcome dpx(std::vector<std::string> args) {
    args.insert(args.begin(), DPX_EXE);
    return exec(args);
  }
  nlohmann::json status_json(const std::string& preset, const std::string& out, int shards) {
    const auto s =
        dpx({"status", preset, "--out", out, "--shards", std::to_string(shards), "--json"});
    EXPECT_EQ(s.code, 0) << s.err;
    return nlohmann::json::parse(s.out);
  }
  /// The single-process reference run of a preset into dir_/single.
  std::string single(const std::string& preset) {
    const auto r =
        dpx({"run", preset, "--threads", "2", "--out", "single", "--quiet", "--no-figures"});
    EXPECT_EQ(r.code, 0) << r.err;
    return slurp(dir_ / "single" / "tidy.csv");
  }

  fs::path dir_;
};

TEST_F(Scale, ThreeShardsPlusCollectEqualSingleProcess) {
  const std::string ref = single("synthetic_rate");
  ASSERT_FALSE(ref.empty());

  auto st = status_json("synthetic_rate", "sh", 3);
  ASSERT_EQ(st["shards"].size(), 3u);
  std::size_t total = 0;
  for (const auto& s : st["shards"]) {
    EXPECT_EQ(s["state"], "missing");
    total += s["blocks"].get<std::size_t>();
  }
  EXPECT_EQ(total, 15u);  // every block in exactly one shard

  for (int i = 0; i < 3; ++i) {
    const auto r = dpx({"run",
                        "synthetic_rate",
                        "--shard",
                        std::to_string(i) + "/3",
                        "--threads",
                        "1",
                        "--out",
                        "sh",
                        "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("shard " + std::to_string(i) + "/3"), std::string::npos) << r.out;
    const auto m = nlohmann::json::parse(
        slurp(dir_ / "sh" / "shards" / (std::to_string(i) + "-of-3") / "manifest.json"));
    EXPECT_EQ(m["shards"]["index"], i);
    EXPECT_EQ(m["shards"]["count"], 3);
    EXPECT_EQ(m["status"], "completed");
    if (i == 0) {
      st = status_json("synthetic_rate", "sh", 3);
      EXPECT_EQ(st["shards"][0]["state"], "finished");
      EXPECT_EQ(st["shards"][1]["state"], "missing");
    }
  }
  EXPECT_FALSE(fs::exists(dir_ / "sh" / "tidy.csv"));
  st = status_json("synthetic_rate", "sh", 3);
  for (const auto& s : st["shards"]) EXPECT_EQ(s["state"], "finished");
  EXPECT_EQ(st["blocks_done"], 15);

  const auto c = dpx({"collect", "synthetic_rate", "--out", "sh", "--no-figures", "--check"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.out.find("collected 15/15 blocks from 3 shard manifests"), std::string::npos)
      << c.out;
  EXPECT_EQ(slurp(dir_ / "sh" / "tidy.csv"), ref);
  EXPECT_EQ(slurp(dir_ / "sh" / "summary.csv"), slurp(dir_ / "single" / "summary.csv"));
  EXPECT_EQ(slurp(dir_ / "sh" / "rates.csv"), slurp(dir_ / "single" / "rates.csv"));
  const auto m = nlohmann::json::parse(slurp(dir_ / "sh" / "manifest.json"));
  EXPECT_EQ(m["shards"]["count"], 3);
  EXPECT_EQ(m["shards"]["manifests"].size(), 3u);
  EXPECT_EQ(m["status"], "completed");
  EXPECT_TRUE(status_json("synthetic_rate", "sh", 3)["collected"].get<bool>());

  // Text status names every shard.
  const auto text = dpx({"status", "synthetic_rate", "--out", "sh"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("2/3"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("finished"), std::string::npos) << text.out;
}

TEST_F(Scale, KilledShardResumesWithoutLosingBlocks) {
  // synthetic_slow: 16 blocks of 5 x 20 ms.
  const pid_t pid =
      spawn({DPX_EXE, "run", "synthetic_slow", "--shard", "0/2", "--threads", "1", "--out", "k"},
            dir_,
            dir_ / "k_out.txt",
            dir_ / "k_err.txt");
  dpx::test::wait_until([&] { return count_blocks(dir_ / "k") > 0; }, pid);
  kill(pid, SIGKILL);
  EXPECT_EQ(wait_exit(pid), 128 + SIGKILL);
  const std::size_t saved = count_blocks(dir_ / "k");
  ASSERT_GE(saved, 1u);
  const auto st = status_json("synthetic_slow", "k", 2);
  const std::size_t shard_blocks = st["shards"][0]["blocks"].get<std::size_t>();
  ASSERT_LT(saved, shard_blocks) << "the shard finished before it could be killed";
  EXPECT_EQ(st["shards"][0]["state"], "failed");  // heartbeat "running", pid dead
  EXPECT_EQ(st["shards"][0]["blocks_done"].get<std::size_t>(), saved);

  const auto resumed =
      dpx({"run", "synthetic_slow", "--shard", "0/2", "--resume", "--out", "k", "--quiet"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const auto m = nlohmann::json::parse(slurp(dir_ / "k" / "shards" / "0-of-2" / "manifest.json"));
  EXPECT_EQ(m["counts"]["cached"].get<std::size_t>(), saved);
  EXPECT_EQ(m["counts"]["computed"].get<std::size_t>(), shard_blocks - saved);
  ASSERT_EQ(dpx({"run", "synthetic_slow", "--shard", "1/2", "--out", "k", "--quiet"}).code, 0);
  ASSERT_EQ(dpx({"collect", "synthetic_slow", "--out", "k", "--no-figures"}).code, 0);
  EXPECT_EQ(slurp(dir_ / "k" / "tidy.csv"), single("synthetic_slow"));
}

TEST_F(Scale, EmitSlurmScriptRunsLocally) {
  const auto e = dpx({"emit-slurm",
                      "synthetic_rate",
                      "--shards",
                      "3",
                      "--parallelism",
                      "2",
                      "--cpus-per-task",
                      "1",
                      "--time",
                      "00:10:00",
                      "--results",
                      "slurm_out",
                      "--out",
                      "job.sbatch"});
  ASSERT_EQ(e.code, 0) << e.err;
  const std::string script = slurp(dir_ / "job.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=0-2%2\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --cpus-per-task=1\n"), std::string::npos);
  EXPECT_NE(script.find("#SBATCH --time=00:10:00\n"), std::string::npos);
  EXPECT_NE(script.find("OPENBLAS_NUM_THREADS=1"), std::string::npos);
  EXPECT_NE(script.find("OMP_NUM_THREADS=1"), std::string::npos);
  EXPECT_NE(script.find("--dependency=afterok:"), std::string::npos);
  EXPECT_NE(script.find("--shard \"${SLURM_ARRAY_TASK_ID}/${SHARDS}\""), std::string::npos);
  EXPECT_EQ(exec({"bash", "-n", "job.sbatch"}).code, 0);
  // Outside a Slurm task it refuses to run.
  EXPECT_NE(exec({"bash", "job.sbatch"}).code, 0);
  EXPECT_EQ(dpx({"emit-slurm", "synthetic_rate", "--shards", "0"}).code, 2);
  EXPECT_EQ(dpx({"emit-slurm", "synthetic_rate", "--shards", "2", "--time", "soon"}).code, 2);

  for (int i = 0; i < 3; ++i) {
    const auto r = exec({"bash", "job.sbatch"}, {{"SLURM_ARRAY_TASK_ID", std::to_string(i)}});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "slurm_out" / "tidy.csv"));
  const auto c = exec({"bash", "job.sbatch", "--collect"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(slurp(dir_ / "slurm_out" / "tidy.csv"), single("synthetic_rate"));
}

TEST_F(Scale, CollectWithMissingBlocksIsPartial) {
  ASSERT_EQ(dpx({"run", "synthetic_rate", "--shard", "1/3", "--out", "p", "--quiet"}).code, 0);
  const auto c = dpx({"collect", "synthetic_rate", "--out", "p", "--no-figures"});
  EXPECT_EQ(c.code, 1);
  EXPECT_NE(c.err.find("blocks missing"), std::string::npos) << c.err;
  EXPECT_TRUE(fs::exists(dir_ / "p" / "tidy.csv"));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "p" / "manifest.json"))["status"], "incomplete");
  EXPECT_EQ(dpx({"collect", "synthetic_rate", "--out", "nothing"}).code, 2);
  EXPECT_EQ(dpx({"run", "synthetic_rate", "--shard", "3/3"}).code, 2);
  EXPECT_EQ(dpx({"run", "synthetic_rate", "--shard", "x"}).code, 2);
}

}  // namespace
