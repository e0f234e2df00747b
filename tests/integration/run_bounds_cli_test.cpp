// `dpx run` bounds (the real executable; docs/presets.md, "Limits" and "Interrupts"):
// - SIGTERM is honoured at any stage: during a long replication block, during the cache check
//   of a large grid and during grid expansion, the process exits 130 (documented) with the
//   finished work kept. The wait after the signal is bounded by the child's CPU time (30 s, a
//   hang detector far above the deadline interrupt_grace_ms = 800, never a speed assertion);
//   the time from the signal to the exit is measured outside the tests (see the report of the
//   change), not asserted;
// - a non-empty --out directory that is not dpx's is refused (exit 2, one line) and left alone,
//   for one preset and for --all;
// - --out /proc/self exits 2 with one line;
// - --set given twice for one key exits 2 with one line naming the key.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;
using dpx::test::outcome;
using dpx::test::slurp;

const fs::path presets = DPX_INTEGRATION_PRESETS;

class RunBounds : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = dpx::test::fresh_test_dir("dpx_run_bounds_"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path preset(const std::string& name, const std::string& body) const {
    const fs::path p = dir_ / (name + ".toml");
    std::ofstream(p) << "[experiment]\nname = \"" << name
                     << "\"\ndriver = \"synthetic_power_law\"\nbase_seed = 3\n"
                     << body;
    return p;
  }
  outcome run(const std::vector<std::string>& args) const {
    return dpx::test::run_dpx(args, dir_, {{"DPX_EXPERIMENTS_DIR", presets.string()}});
  }
  /// Starts `dpx run preset --out out --threads 1 --quiet --no-figures`, waits until ready()
  /// holds (or the child exits), sends SIGTERM and waits for the exit. Returns the exit code
  /// (-2: the child used 30 CPU seconds after the signal without exiting, and was killed).
  int terminate_when(const fs::path& preset_path,
                     const std::function<bool(pid_t)>& ready,
                     const std::string& stage) const {
    const pid_t pid = dpx::test::spawn({DPX_EXE,
                                        "run",
                                        preset_path.string(),
                                        "--out",
                                        "out",
                                        "--threads",
                                        "1",
                                        "--quiet",
                                        "--no-figures"},
                                       dir_,
                                       dir_ / "stdout.txt",
                                       dir_ / "stderr.txt");
    int status = 0;
    bool exited = false;
    while (!ready(pid)) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      std::this_thread::yield();
    }
    EXPECT_FALSE(exited) << stage << ": the run ended before the stage was reached";
    if (exited) return -1;
    const double cpu_before = cpu_seconds(pid);
    kill(pid, SIGTERM);
    for (;;) {
      const pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == pid) break;
      if (r < 0) return -1;
      if (cpu_seconds(pid) > cpu_before + 30) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return -2;
      }
      std::this_thread::yield();
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  }
  /// User + system CPU seconds of the running process pid (/proc/pid/stat), 0 if unreadable.
  static double cpu_seconds(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) return 0;
    std::istringstream fields(stat.substr(close + 2));
    std::string f;
    double ticks = 0;
    for (int i = 3; i <= 15 && fields >> f; ++i) {
      if (i >= 14) ticks += std::stod(f);  // utime, stime
    }
    return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  fs::path dir_;
};

TEST_F(RunBounds, SigtermDuringALongBlockExits130AndKeepsTheFinishedBlocks) {
  // One block of 300 replications of 0.2 s of busy work: 60 s, longer than the test waits.
  const fs::path p =
      preset("long_block",
             "replications = 300\nreplication_block = 300\n[grid]\nn = [10]\n[fixed]\n"
             "work_us = 200000\n");
  const int code = terminate_when(
      p, [&](pid_t) { return fs::exists(dir_ / "out" / "progress.json"); }, "a block");
  EXPECT_EQ(code, 130) << slurp(dir_ / "stderr.txt");
  const auto m = nlohmann::json::parse(slurp(dir_ / "out" / "manifest.json"));
  EXPECT_EQ(m["status"], "interrupted");
  EXPECT_EQ(m["counts"]["computed"], 0);
  EXPECT_NE(slurp(dir_ / "stderr.txt").find("interrupted"), std::string::npos);
}

TEST_F(RunBounds, SigtermDuringTheCacheCheckOfALargeGridExits130) {
  // 100000 cells: the cache check writes each cell's params.json (synced) before computing.
  const fs::path p = preset("many_cells",
                            "replications = 1\n[grid]\n"
                            "n = { linear = [1, 100000], points = 100000, integer = true }\n");
  const int code = terminate_when(
      p, [&](pid_t) { return fs::exists(dir_ / "out" / "cells"); }, "the cache check");
  EXPECT_EQ(code, 130) << slurp(dir_ / "stderr.txt");
  EXPECT_FALSE(fs::exists(dir_ / "out" / "progress.json"));  // the compute never started
}

TEST_F(RunBounds, SigtermDuringGridExpansionExits130) {
  // 1e6 cells (the grid cap) to expand and validate; nothing is written until that is done.
  const fs::path p = preset("huge_grid",
                            "replications = 1\n[grid]\n"
                            "n = { linear = [1, 1000], points = 1000, integer = true }\n"
                            "slope = { linear = [-1, -0.001], points = 1000 }\n");
  // Signalled once the child has used 0.3 CPU seconds, with nothing written yet: expanding.
  const int code = terminate_when(
      p,
      [&](pid_t pid) { return cpu_seconds(pid) >= 0.3 && !fs::exists(dir_ / "out"); },
      "grid expansion");
  EXPECT_EQ(code, 130) << slurp(dir_ / "stderr.txt");
}

TEST_F(RunBounds, ANonEmptyOutThatIsNotDpxsIsRefused) {
  const fs::path mine = dir_ / "mine";
  fs::create_directories(mine);
  std::ofstream(mine / "tidy.csv") << "my data\n";
  std::ofstream(mine / "index.html") << "my page\n";
  const fs::path p = presets / "synthetic_rate" / "preset.toml";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", p.string(), "--quick", "--out", "mine", "--quiet"},
        std::vector<std::string>{"run", "--all", "--quick", "--out", "mine", "--quiet"}}) {
    const outcome o = run(args);
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find("not a dpx results directory"), std::string::npos) << o.err;
  }
  EXPECT_EQ(slurp(mine / "tidy.csv"), "my data\n");
  EXPECT_EQ(slurp(mine / "index.html"), "my page\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(mine), fs::directory_iterator()), 2);
  // A fresh directory, then the same one again (it is dpx's now).
  for (int i = 0; i < 2; ++i) {
    const outcome o =
        run({"run", p.string(), "--quick", "--out", "fresh", "--quiet", "--no-figures"});
    EXPECT_EQ(o.code, 0) << o.err;
  }
}

TEST_F(RunBounds, OutInProcExits2WithOneLine) {
  const outcome o = run({"run",
                         (presets / "synthetic_rate" / "preset.toml").string(),
                         "--quick",
                         "--out",
                         "/proc/self",
                         "--quiet"});
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_NE(o.err.find("/proc/self"), std::string::npos) << o.err;
}

TEST_F(RunBounds, SetTwiceForOneKeyExits2NamingTheKey) {
  const outcome o = run({"run",
                         (presets / "synthetic_rate" / "preset.toml").string(),
                         "--quick",
                         "--out",
                         "o",
                         "--quiet",
                         "--set",
                         "replications=5",
                         "--set",
                         "experiment.replications=6"});
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_NE(o.err.find("experiment.replications"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("already set"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "o"));
}

}  // namespace
