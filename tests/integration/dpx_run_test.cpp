// Properties checked (the real `dpx` executable, docs/presets.md §6-§10):
// - `dpx run <preset> --threads 1` and `--threads 2` write byte-identical tidy.csv;
// - a run interrupted with SIGINT exits 130, keeps the finished blocks, leaves no *.tmp.* file,
//   records status "interrupted"; `dpx run --resume` then completes it, and its tidy.csv is
//   byte-identical to an uninterrupted run's;
// - a bad preset exits 2 with exactly one line on stderr and creates no output directory;
// - `dpx run --check` exits 1 when a rate check fails and 0 when it passes;
// - `dpx list` lists the presets of DPX_EXPERIMENTS_DIR with their descriptions;
// - `dpx run --all --out DIR` runs every preset into DIR/<name>;
// - `dpx report` rebuilds the report from the block files without computing.
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

/// Starts dpx with args in cwd, stdout/stderr to files, DPX_EXPERIMENTS_DIR = presets.
pid_t spawn_dpx(const std::vector<std::string>& args,
                const fs::path& cwd,
                const fs::path& out,
                const fs::path& err) {
  std::vector<std::string> argv{DPX_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  return dpx::test::spawn(argv, cwd, out, err, {{"DPX_EXPERIMENTS_DIR", presets.string()}});
}

class DpxRun : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = dpx::test::fresh_test_dir("dpx_integration_"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  outcome run(const std::vector<std::string>& args, dpx::test::env_list env = {}) {
    env.emplace_back("DPX_EXPERIMENTS_DIR", presets.string());
    return dpx::test::run_dpx(args, dir_, env);
  }

  static std::size_t count_files(const fs::path& root, const std::string& needle) {
    std::size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(root, ec)) {
      if (e.path().filename().string().find(needle) != std::string::npos) ++n;
    }
    return n;
  }

  fs::path dir_;
};

TEST_F(DpxRun, ThreadCountDoesNotChangeTidy) {
  const auto a =
      run({"run", "synthetic_rate", "--threads", "1", "--out", "t1", "--quiet", "--no-figures"});
  ASSERT_EQ(a.code, 0) << a.err;
  const auto b =
      run({"run", "synthetic_rate", "--threads", "2", "--out", "t2", "--quiet", "--no-figures"});
  ASSERT_EQ(b.code, 0) << b.err;
  const std::string t1 = slurp(dir_ / "t1" / "tidy.csv");
  EXPECT_EQ(std::count(t1.begin(), t1.end(), '\n'), 1 + 5 * 60);
  EXPECT_EQ(t1, slurp(dir_ / "t2" / "tidy.csv"));
  EXPECT_TRUE(a.err.empty()) << a.err;  // --quiet
  EXPECT_NE(a.out.find("rate checks passed 1/1"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("report.md"), std::string::npos) << a.out;
  EXPECT_TRUE(fs::exists(dir_ / "t1" / "report.md"));
  const auto m = nlohmann::json::parse(slurp(dir_ / "t1" / "manifest.json"));
  EXPECT_EQ(m["status"], "completed");
  EXPECT_EQ(m["counts"]["blocks"], 15);
  EXPECT_EQ(m["env"]["OPENBLAS_NUM_THREADS"], "1");

  // A rerun reuses every block; report rebuilds from blocks without tidy.csv.
  const auto c = run({"run", "synthetic_rate", "--out", "t1", "--no-figures"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.out.find("blocks 0 computed + 15 cached"), std::string::npos) << c.out;
  EXPECT_FALSE(c.err.empty());  // progress line (off a TTY: one final line)
  fs::remove(dir_ / "t1" / "tidy.csv");
  const auto r = run({"report", "synthetic_rate", "--out", "t1", "--no-figures", "--check"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(dir_ / "t1" / "tidy.csv"), t1);
}

// The done-when of the foundation issue on the real private-mean driver (Laplace and Gaussian
// mechanisms from dpx::mechanisms, data from Boost.Random on keyed streams): 1 and 2 threads
// give byte-identical tidy.csv. A small grid of the shipped preset's design keeps it fast.
TEST_F(DpxRun, PrivateMeanThreadCountDoesNotChangeTidy) {
  std::ofstream(dir_ / "pm.toml") << R"([experiment]
name = "private_mean_small"
driver = "private_mean"
base_seed = 20261122
replications = 40
replication_block = 10
[grid]
n = { geometric = [100, 10000], points = 3, integer = true }
mechanism = ["laplace", "gaussian"]
epsilon = [0.1, 0.5]
distribution = ["uniform", "beta"]
[fixed]
delta = 1e-5
beta_a = 2.0
beta_b = 5.0
)";
  const std::string preset = (dir_ / "pm.toml").string();
  const auto a = run({"run", preset, "--threads", "1", "--out", "t1", "--quiet", "--no-figures"});
  ASSERT_EQ(a.code, 0) << a.err;
  const auto b = run({"run", preset, "--threads", "2", "--out", "t2", "--quiet", "--no-figures"});
  ASSERT_EQ(b.code, 0) << b.err;
  const std::string t1 = slurp(dir_ / "t1" / "tidy.csv");
  EXPECT_EQ(std::count(t1.begin(), t1.end(), '\n'), 1 + 3 * 2 * 2 * 2 * 40);
  EXPECT_EQ(t1, slurp(dir_ / "t2" / "tidy.csv"));
  EXPECT_EQ(t1.find(",failed"), std::string::npos);
}

// Without matplotlib (simulated by a module named matplotlib that fails to import, first on
// PYTHONPATH) every table and report.md is still written, the run succeeds, and stderr says
// why the figures are missing.
TEST_F(DpxRun, MissingMatplotlibStillWritesTablesAndSaysSo) {
  fs::create_directories(dir_ / "fake" / "matplotlib");
  std::ofstream(dir_ / "fake" / "matplotlib" / "__init__.py")
      << "raise ImportError('no matplotlib here')\n";
  const auto r = run({"run", "synthetic_rate", "--quick", "--threads", "1", "--out", "nm"},
                     {{"PYTHONPATH", (dir_ / "fake").string()}});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* f : {"tidy.csv",
                        "summary.csv",
                        "rates.csv",
                        "rates.md",
                        "rates.tex",
                        "report.md",
                        "manifest.json"}) {
    EXPECT_TRUE(fs::exists(dir_ / "nm" / f)) << f;
  }
  EXPECT_FALSE(fs::exists(dir_ / "nm" / "figures" / "y_vs_n.png"));
  EXPECT_NE(r.err.find("figures not rendered"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("matplotlib"), std::string::npos) << r.err;
  EXPECT_NE(slurp(dir_ / "nm" / "report.md").find("matplotlib"), std::string::npos);
}

TEST_F(DpxRun, InterruptThenResumeMatchesUninterrupted) {
  const pid_t pid =
      spawn_dpx({"run", "synthetic_slow", "--threads", "1", "--out", "int", "--no-figures"},
                dir_,
                dir_ / "int_out.txt",
                dir_ / "int_err.txt");
  // Wait until at least one block is saved (or the run ends), then interrupt.
  dpx::test::wait_until([&] { return count_files(dir_ / "int", "reps_") > 0; }, pid);
  ASSERT_GT(count_files(dir_ / "int", "reps_"), 0u);
  kill(pid, SIGINT);
  const int code = wait_exit(pid);
  EXPECT_EQ(code, 130) << slurp(dir_ / "int_err.txt");
  const std::size_t saved = count_files(dir_ / "int", ".csv");
  EXPECT_GE(saved, 1u);
  EXPECT_LT(saved, 16u);
  EXPECT_EQ(count_files(dir_, ".tmp."), 0u);
  EXPECT_FALSE(fs::exists(dir_ / "int" / "tidy.csv"));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "int" / "manifest.json"))["status"], "interrupted");
  EXPECT_NE(slurp(dir_ / "int_err.txt").find("interrupted"), std::string::npos);

  const auto resumed = run({"run",
                            "synthetic_slow",
                            "--threads",
                            "2",
                            "--out",
                            "int",
                            "--resume",
                            "--quiet",
                            "--no-figures"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const auto m = nlohmann::json::parse(slurp(dir_ / "int" / "manifest.json"));
  EXPECT_EQ(m["counts"]["cached"].get<std::size_t>(), saved);
  EXPECT_EQ(m["counts"]["computed"].get<std::size_t>(), 16 - saved);
  const auto clean =
      run({"run", "synthetic_slow", "--threads", "2", "--out", "clean", "--quiet", "--no-figures"});
  ASSERT_EQ(clean.code, 0) << clean.err;
  EXPECT_EQ(slurp(dir_ / "int" / "tidy.csv"), slurp(dir_ / "clean" / "tidy.csv"));
}

TEST_F(DpxRun, BadPresetExits2WithOneLine) {
  std::ofstream(dir_ / "bad.toml")
      << "[experiment]\nname = \"bad\"\ndriver = \"synthetic_power_law\"\n"
         "base_seed = 1\nreplications = 2\ncolour = \"red\"\n[fixed]\nn = 10\n";
  const auto r = run({"run", (dir_ / "bad.toml").string(), "--out", "bad_out"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("bad.toml:6:1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("colour"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(fs::exists(dir_ / "bad_out"));
  EXPECT_FALSE(fs::exists(dir_ / "results"));

  std::ofstream(dir_ / "driver.toml")
      << "[experiment]\nname = \"d\"\ndriver = \"nope\"\nbase_seed = 1\nreplications = 2\n";
  const auto d = run({"run", (dir_ / "driver.toml").string()});
  EXPECT_EQ(d.code, 2);
  EXPECT_EQ(std::count(d.err.begin(), d.err.end(), '\n'), 1) << d.err;
  EXPECT_NE(d.err.find("synthetic_power_law"), std::string::npos) << d.err;
  EXPECT_FALSE(fs::exists(dir_ / "results"));

  const auto unknown = run({"run", "no_such_preset"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("synthetic_rate"), std::string::npos) << unknown.err;
  EXPECT_EQ(run({"run", "synthetic_rate", "--force", "--resume"}).code, 2);
  EXPECT_EQ(run({"run"}).code, 2);
  EXPECT_FALSE(fs::exists(dir_ / "results"));
}

// Every command's error line names the command once: "dpx <cmd>: error: <message>", even when
// the command's own message starts with its name.
TEST_F(DpxRun, ErrorLinesNameTheCommandOnce) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"audit", "--mechanism", "laplace", "--scale", "-1"},
        std::vector<std::string>{
            "sample", "--mechanism", "laplace", "--scale", "-1", "--count", "3"},
        std::vector<std::string>{"run", "no_such_preset"}}) {
    const auto r = run(args);
    EXPECT_EQ(r.code, 2) << args[0];
    const std::string head = "dpx " + args[0] + ": error: ";
    EXPECT_EQ(r.err.rfind(head, 0), 0u) << r.err;
    EXPECT_EQ(r.err.find(args[0] + ": ", head.size()), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// BLAS runs single-threaded inside replications even when OPENBLAS_NUM_THREADS is not set
// (OpenBLAS reads the variable when it loads, before main: dpx pins it through its API); the
// manifest records the thread count BLAS reports.
TEST_F(DpxRun, BlasIsSingleThreadedWithoutTheEnvironment) {
  const auto r = run({"run", "synthetic_rate", "--quick", "--out", "b", "--quiet", "--no-figures"},
                     {{"OPENBLAS_NUM_THREADS", ""}, {"OMP_NUM_THREADS", ""}});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto m = nlohmann::json::parse(slurp(dir_ / "b" / "manifest.json"));
  EXPECT_EQ(m["env"]["blas_threads"], 1) << m["env"];
}

TEST_F(DpxRun, CheckFailsOnWrongRate) {
  const auto wrong = run({"run", "synthetic_wrong_rate", "--check", "--quiet", "--no-figures"});
  EXPECT_EQ(wrong.code, 1) << wrong.err;
  EXPECT_NE(wrong.out.find("rate checks passed 0/1"), std::string::npos) << wrong.out;
  EXPECT_TRUE(fs::exists(dir_ / "results" / "synthetic_wrong_rate" / "tidy.csv"));
  // Without --check the same run is a success (the rate is reported, not enforced).
  EXPECT_EQ(run({"run", "synthetic_wrong_rate", "--quiet", "--no-figures"}).code, 0);
  const auto right =
      run({"run", "synthetic_rate", "--quick", "--check", "--quiet", "--no-figures"});
  EXPECT_EQ(right.code, 0) << right.err;
  EXPECT_EQ(
      nlohmann::json::parse(slurp(dir_ / "results" / "synthetic_rate" / "manifest.json"))["quick"],
      true);
}

TEST_F(DpxRun, ListAndAll) {
  const auto l = run({"list"});
  ASSERT_EQ(l.code, 0) << l.err;
  EXPECT_NE(l.out.find("synthetic_rate"), std::string::npos) << l.out;
  EXPECT_NE(l.out.find("synthetic power law n^-0.5"), std::string::npos) << l.out;
  EXPECT_NE(l.out.find("synthetic_slow"), std::string::npos) << l.out;

  const auto all =
      run({"run", "--all", "--quick", "--out", "all", "--threads", "2", "--quiet", "--no-figures"});
  ASSERT_EQ(all.code, 0) << all.err;
  for (const char* name : {"synthetic_rate", "synthetic_slow", "synthetic_wrong_rate"}) {
    EXPECT_TRUE(fs::exists(dir_ / "all" / name / "tidy.csv")) << name;
  }
  // One index.html over every preset of DIR, each linked to its report.
  const std::string index = slurp(dir_ / "all" / "index.html");
  for (const char* name : {"synthetic_rate", "synthetic_slow", "synthetic_wrong_rate"}) {
    EXPECT_NE(index.find(std::string("href=\"") + name + "/report.html\""), std::string::npos)
        << name << "\n"
        << index;
  }
}

}  // namespace
