// Properties checked (the real `dpx` executable; docs/presets.md "Caching", "Concurrent runs"):
// - a run on a nearly full filesystem (a small tmpfs mounted by the test) stops with exit 1 and
//   one error line naming "No space left on device", leaves no temporary file and no block
//   that fails verification, and `--resume` completes once space is back with a tidy.csv
//   byte-identical to an undisturbed run (skipped with the reason when mount is not permitted);
// - SIGKILL at several points of a run (before the first block, after 3 and 9 of 16 finished
//   blocks, after every block) loses no finished block: the kill happens after N sidecars are
//   observed on disk, every block on disk then is reused by the next run, and the final
//   tidy.csv equals an undisturbed run's;
// - a second `dpx run` into a directory being written exits 2 with one line naming the lock;
// - the CLI recomputes corrupt blocks with one warning line each (an edited metric, a truncated
//   block) and removes stale temporary files, so `--resume` gives the untouched tidy.csv (on
//   f180f52 the edited metric was merged silently and the truncated block left resume stuck);
// - `points = 100000000` in a preset exits 2 at once (on f180f52 validation spun);
// - an invalid value in a real driver's preset (private_mean) exits 2 naming the cell and the
//   parameter, before any replication and without creating the results directory.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
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

std::size_t count_files(const fs::path& root, const std::string& needle, const char* ext) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find(needle) != std::string::npos &&
        (ext == nullptr || it->path().extension() == ext)) {
      ++n;
    }
  }
  return n;
}
/// Finished blocks: sidecars reps_*.json (written after the block's CSV).
std::size_t count_blocks(const fs::path& root) { return count_files(root, "reps_", ".json"); }

class Faults : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = dpx::test::fresh_test_dir("dpx_faults_"); }
  void TearDown() override {
    if (!mounted_.empty()) umount2(mounted_.c_str(), MNT_DETACH);
    if (!HasFailure()) fs::remove_all(dir_);
  }
  dpx::test::env_list env() const { return {{"DPX_EXPERIMENTS_DIR", presets.string()}}; }
  outcome dpx(std::vector<std::string> args) {
    args.insert(args.begin(), DPX_EXE);
    return dpx::test::run_in(args, dir_, env());
  }
  pid_t spawn(std::vector<std::string> args, const std::string& tag) {
    args.insert(args.begin(), DPX_EXE);
    return dpx::test::spawn(
        args, dir_, dir_ / (tag + "_out.txt"), dir_ / (tag + "_err.txt"), env());
  }
  /// Polls until pred(), or false once the child pid exits or has used its CPU budget without
  /// it (a guard against a hang, not a timing assertion).
  template <class P>
  static bool wait_for(P pred, pid_t pid) {
    return dpx::test::wait_until(pred, pid);
  }
  std::string reference(const std::string& preset) {
    const auto r =
        dpx({"run", preset, "--threads", "2", "--out", "ref", "--quiet", "--no-figures"});
    EXPECT_EQ(r.code, 0) << r.err;
    return slurp(dir_ / "ref" / "tidy.csv");
  }

  fs::path dir_;
  std::string mounted_;
};

TEST_F(Faults, FullFilesystemStopsCleanlyAndResumesOnceSpaceIsBack) {
  // 5 cells x 200 replications in blocks of 10: 100 blocks of two files (>= 4 KiB each on
  // tmpfs), far more than 256 KiB.
  const fs::path preset = dir_ / "full.toml";
  std::ofstream(preset) << "[experiment]\nname = \"full\"\ndriver = \"synthetic_power_law\"\n"
                           "base_seed = 5\nreplications = 200\nreplication_block = 10\n"
                           "[grid]\nn = [10, 20, 40, 80, 160]\n";
  const fs::path mnt = dir_ / "small";
  fs::create_directories(mnt);
  if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=256k") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs (" << std::strerror(errno)
                 << "; needs root or CAP_SYS_ADMIN): run this test as root to check the "
                    "full-disk behaviour";
  }
  mounted_ = mnt.string();
  const std::string ref = reference(preset.string());
  const std::string out = (mnt / "out").string();

  const auto full =
      dpx({"run", preset.string(), "--threads", "2", "--out", out, "--quiet", "--no-figures"});
  EXPECT_EQ(full.code, 1) << full.err;
  EXPECT_NE(full.err.find("No space left on device"), std::string::npos) << full.err;
  EXPECT_EQ(std::count(full.err.begin(), full.err.end(), '\n'), 1) << full.err;
  EXPECT_EQ(count_files(mnt, ".tmp.", nullptr), 0u);
  const std::size_t saved = count_blocks(mnt);
  EXPECT_LT(saved, 100u);

  // Space is back: resume reuses every saved block (all verify) and finishes.
  ASSERT_EQ(mount("tmpfs", mnt.c_str(), "tmpfs", MS_REMOUNT, "size=16m"), 0)
      << std::strerror(errno);
  const auto resumed = dpx({"run",
                            preset.string(),
                            "--resume",
                            "--threads",
                            "2",
                            "--out",
                            out,
                            "--no-figures",
                            "--quiet"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(resumed.err.find("warning"), std::string::npos) << resumed.err;
  const auto m = nlohmann::json::parse(slurp(mnt / "out" / "manifest.json"));
  EXPECT_EQ(m["counts"]["cached"].get<std::size_t>(), saved);
  EXPECT_EQ(m["counts"]["computed"].get<std::size_t>(), 100u - saved);
  EXPECT_EQ(slurp(mnt / "out" / "tidy.csv"), ref);
}

TEST_F(Faults, SigkillAtSeveralPointsLosesNoFinishedBlock) {
  // synthetic_slow: 4 cells x 20 replications in blocks of 5 = 16 blocks of 5 x 20 ms.
  const std::string ref = reference("synthetic_slow");
  const fs::path out = dir_ / "k";
  std::size_t saved = 0;
  int attempt = 0;
  for (const std::size_t kill_after : {0u, 3u, 9u, 16u}) {
    SCOPED_TRACE("kill after " + std::to_string(kill_after) + " blocks");
    const std::string tag = "run" + std::to_string(attempt++);
    const pid_t pid = spawn({"run",
                             "synthetic_slow",
                             "--resume",
                             "--threads",
                             "2",
                             "--out",
                             "k",
                             "--quiet",
                             "--no-figures"},
                            tag);
    // kill_after = 0: as soon as the run holds its lock (before its first block).
    ASSERT_TRUE(wait_for(
        [&] {
          return kill_after == 0 ? fs::exists(out / ".dpx.lock") : count_blocks(out) >= kill_after;
        },
        pid));
    kill(pid, SIGKILL);
    const int code = wait_exit(pid);
    EXPECT_TRUE(code == 128 + SIGKILL || code == 0) << code;
    const std::size_t now = count_blocks(out);
    EXPECT_GE(now, saved);  // nothing finished earlier disappeared
    EXPECT_GE(now, kill_after);
    saved = now;
  }
  // The last resume reuses every block on disk: each one verifies.
  const auto final_run = dpx({"run",
                              "synthetic_slow",
                              "--resume",
                              "--threads",
                              "2",
                              "--out",
                              "k",
                              "--quiet",
                              "--no-figures"});
  ASSERT_EQ(final_run.code, 0) << final_run.err;
  EXPECT_EQ(final_run.err.find("warning"), std::string::npos) << final_run.err;
  const auto m = nlohmann::json::parse(slurp(out / "manifest.json"));
  EXPECT_EQ(m["counts"]["cached"].get<std::size_t>(), saved);
  EXPECT_EQ(m["counts"]["computed"].get<std::size_t>(), 16u - saved);
  EXPECT_EQ(slurp(out / "tidy.csv"), ref);
  EXPECT_EQ(count_files(out, ".tmp.", nullptr), 0u);
}

TEST_F(Faults, SecondRunIntoABusyDirectoryExits2) {
  const pid_t pid =
      spawn({"run", "synthetic_slow", "--threads", "1", "--out", "busy", "--quiet", "--no-figures"},
            "first");
  ASSERT_TRUE(wait_for([&] { return count_blocks(dir_ / "busy") >= 1; }, pid));
  const auto second = dpx({"run", "synthetic_slow", "--out", "busy", "--quiet", "--no-figures"});
  EXPECT_EQ(second.code, 2) << second.err;
  EXPECT_NE(second.err.find("is being written by another dpx process"), std::string::npos)
      << second.err;
  EXPECT_EQ(std::count(second.err.begin(), second.err.end(), '\n'), 1) << second.err;
  EXPECT_EQ(wait_exit(pid), 0);
  const auto m = nlohmann::json::parse(slurp(dir_ / "busy" / "manifest.json"));
  EXPECT_EQ(m["counts"]["computed"].get<std::size_t>(), 16u);
  EXPECT_EQ(count_files(dir_ / "busy" / "manifests", ".json", ".json"), 1u);
}

TEST_F(Faults, CorruptBlocksAreRecomputedAndTemporariesRemoved) {
  const auto first =
      dpx({"run", "synthetic_rate", "--quick", "--out", "c", "--quiet", "--no-figures"});
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string tidy = slurp(dir_ / "c" / "tidy.csv");
  std::vector<fs::path> cells;
  for (const auto& e : fs::directory_iterator(dir_ / "c" / "cells")) cells.push_back(e.path());
  std::sort(cells.begin(), cells.end());
  ASSERT_GE(cells.size(), 2u);
  // Edit one metric digit of the first data row of cell 0's block.
  const fs::path edited = cells[0] / "reps_000000-000019.csv";
  std::string text = slurp(edited);
  const std::size_t last_comma = text.find(",ok,", text.find('\n'));
  ASSERT_NE(last_comma, std::string::npos);
  std::size_t pos = text.rfind(',', text.rfind(',', last_comma - 1) - 1) + 1;  // y
  text[pos] = text[pos] == '1' ? '2' : '1';
  std::ofstream(edited, std::ios::binary | std::ios::trunc) << text;
  // Truncate cell 1's block.
  const fs::path cut = cells[1] / "reps_000000-000019.csv";
  const std::string whole = slurp(cut);
  std::ofstream(cut, std::ios::binary | std::ios::trunc) << whole.substr(0, whole.size() / 3);
  const fs::path temp = cells[0] / "reps_000000-000019.csv.tmp.4242.0";
  std::ofstream(temp) << "partial";

  const auto resumed = dpx(
      {"run", "synthetic_rate", "--quick", "--resume", "--out", "c", "--quiet", "--no-figures"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(std::count(resumed.err.begin(), resumed.err.end(), '\n'), 2) << resumed.err;
  EXPECT_NE(resumed.err.find((edited.parent_path().filename() / edited.filename()).string()),
            std::string::npos)
      << resumed.err;
  EXPECT_NE(resumed.err.find((cut.parent_path().filename() / cut.filename()).string()),
            std::string::npos)
      << resumed.err;
  EXPECT_EQ(slurp(dir_ / "c" / "tidy.csv"), tidy);
  EXPECT_FALSE(fs::exists(temp));
  const auto m = nlohmann::json::parse(slurp(dir_ / "c" / "manifest.json"));
  EXPECT_EQ(m["counts"]["computed"].get<std::size_t>(), 2u);
}

TEST_F(Faults, HugeRangeExits2AtOnce) {
  const fs::path p = dir_ / "huge.toml";
  std::ofstream(p) << "[experiment]\nname = \"huge\"\ndriver = \"synthetic_power_law\"\n"
                      "base_seed = 1\nreplications = 2\n[grid]\n"
                      "n = { geometric = [1, 1000000], points = 100000000, integer = true }\n";
  const auto r = dpx({"run", p.string(), "--out", "huge", "--quiet"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("points must be between 1 and 100000"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "huge"));
}

TEST_F(Faults, InvalidPresetValueExits2BeforeAnyReplication) {
  const fs::path src = fs::path(DPX_INTEGRATION_PRESETS).parent_path().parent_path().parent_path() /
                       "experiments" / "private_mean" / "preset.toml";
  const std::string text = slurp(src);
  ASSERT_FALSE(text.empty()) << src;
  struct mutation {
    std::string from, to, key;
  };
  const std::vector<mutation> cases = {
      {"epsilon = [0.1, 0.5, 1.0]", "epsilon = [-1.0]", "epsilon"},
      {"n = { geometric = [100, 1000000], points = 17, integer = true }", "n = [0]", "n"},
      {"n = { geometric = [100, 1000000], points = 17, integer = true }", "n = [\"abc\"]", "n"},
      {"delta = 1e-5", "delta = 2", "delta"},
      {"mechanism = [\"laplace\", \"gaussian\"]", "mechanism = [\"nope\"]", "mechanism"},
      {"distribution = \"uniform\"", "distribution = \"nope\"", "distribution"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.to);
    std::string t = text;
    const auto at = t.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    t.replace(at, c.from.size(), c.to);
    const fs::path p = dir_ / "pm.toml";
    std::ofstream(p) << t;
    // The full grid (17 x 2 x 3 cells of 2000 replications): rejected before any of it runs.
    const auto r = dpx({"run", p.string(), "--out", "pm", "--quiet"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("cell "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.key + " = "), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "pm"));
  }
}

// Every driver declares per-value checks for its size and budget parameters: a zero sample size
// or an out-of-range gamma exits 2 naming the cell and key before anything runs (issue 17
// defect 6, beyond private_mean).
TEST_F(Faults, EveryDriverRejectsAZeroSampleSizeBeforeCompute) {
  struct bad_cell {
    std::string driver, grid;
    std::string key;
  };
  const std::vector<bad_cell> cases = {
      {"noisy_pgd_rates", "n = [0]", "n"},
      {"noisy_pgd_rates", "d = [1]", "d"},
      {"noisy_pgd_rates", "noise = [\"nope\"]", "noise"},
      {"dd_user_level", "n = [0]\nT = [10]\nepsilon = [1.0]", "n"},
      {"dd_nonparametric", "n = [0]\nepsilon = [1.0]", "n"},
      {"dd_privacy_cost", "n = [100]\nepsilon = [1.0]\ngamma = [1.5]", "gamma"},
      {"dd_random_effects", "n = [1]\nT = [10]\nepsilon = [1.0]", "n"},
      {"dd_variance_plugin", "n = [100]\nmethod = [\"nope\"]", "method"},
      {"dd_local", "n = [1]", "n"},
      // The negative-control parameters (docs/presets.md, "Controls").
      {"private_mean",
       "n = [100]\nepsilon = [1.0]\nmechanism = [\"laplace\"]\n"
       "sensitivity_n = [-1]",
       "sensitivity_n"},
      {"dd_central_vs_local",
       "n = [100]\nmodel = [\"central\"]\nnoise_epsilon = [-1.0]",
       "noise_epsilon"},
      {"dd_longitudinal", "n = [100]\nT = [10]\nshared_effect = [-0.5]", "shared_effect"},
      {"dd_random_effects", "n = [100]\nsensitivity_n = [-5]", "sensitivity_n"},
      {"dd_histogram_bounds", "n = [1]\nstudy = [\"data\"]", "n"},
      {"dd_histogram_bounds", "n = [100]\nstudy = [\"data\"]\nq = [1.5]", "q"},
      {"dd_concentration", "n = [0]", "n"},
      {"dd_concentration", "n = [100]\ncommon_factor = [1.0]", "common_factor"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.driver + ": " + c.grid);
    const fs::path p = dir_ / "bad.toml";
    std::ofstream(p) << "[experiment]\nname = \"bad\"\ndriver = \"" << c.driver
                     << "\"\nbase_seed = 1\nreplications = 2\n\n[grid]\n"
                     << c.grid << "\n";
    const auto r = dpx({"run", p.string(), "--out", "bad", "--quiet"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("cell "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.key + " = "), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "bad"));
  }
}

}  // namespace
