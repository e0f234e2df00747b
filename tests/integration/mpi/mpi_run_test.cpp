// Properties checked (MPI build only: -DDPX_WITH_MPI=ON, configure preset `mpi`;
// docs/scaling.md):
// - `mpirun -np 2 --oversubscribe dpx run PRESET` writes a tidy.csv (and summary.csv, rates.csv)
//   byte-identical to the single-process run; the manifest records the MPI counters and the
//   worker computed some blocks;
// - one thread per rank and two threads per rank give the same bytes;
// - a worker rank killed with SIGKILL mid-run fails the run (non-zero exit), every finished
//   block stays saved, and `mpirun ... --resume` completes the rest (cached = saved) with the
//   single-process bytes.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../cli_util.hpp"

namespace {

namespace fs = std::filesystem;
using dpx::test::slurp;
using dpx::test::wait_exit;

const fs::path presets = DPX_INTEGRATION_PRESETS;

/// Starts argv in cwd with stdout and stderr to log.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& cwd, const fs::path& log) {
  dpx::test::env_list env{{"DPX_EXPERIMENTS_DIR", presets.string()},
                          {"DPX_MPI_TEST_DIR", cwd.string()}};  // lets the test find its ranks
  // Containers: no ptrace-based single copy between ranks (unless the caller chose one).
  if (std::getenv("OMPI_MCA_btl_vader_single_copy_mechanism") == nullptr)
    env.emplace_back("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
  return dpx::test::spawn(argv, cwd, log, log, env);
}

std::vector<std::string> mpirun(int np, std::vector<std::string> args) {
  std::vector<std::string> v = {DPX_MPIEXEC, "-np", std::to_string(np), "--oversubscribe"};
  if (geteuid() == 0) v.push_back("--allow-run-as-root");
  v.push_back(DPX_EXE);
  v.insert(v.end(), args.begin(), args.end());
  return v;
}

std::size_t count_blocks(const fs::path& root) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("reps_", 0) == 0 && e.path().extension() == ".json") ++n;
  }
  return n;
}

/// Pid of the dpx process with OMPI_COMM_WORLD_RANK=rank started by this test (0 if none).
pid_t find_rank(int rank, const fs::path& dir) {
  const std::string want_rank = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  const std::string want_dir = "DPX_MPI_TEST_DIR=" + dir.string();
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string env = slurp(e.path() / "environ");
    bool r = false, d = false;
    std::size_t pos = 0;
    while (pos < env.size()) {
      const std::size_t end = env.find('\0', pos);
      const std::string item = env.substr(pos, end == std::string::npos ? end : end - pos);
      r = r || item == want_rank;
      d = d || item == want_dir;
      if (end == std::string::npos) break;
      pos = end + 1;
    }
    if (r && d && slurp(e.path() / "comm").rfind("dpx", 0) == 0) return std::stoi(name);
  }
  return 0;
}

class DpxMpi : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = dpx::test::fresh_test_dir("dpx_mpi_"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  int run(const std::vector<std::string>& argv) {
    return wait_exit(spawn(argv, dir_, dir_ / "log.txt"));
  }
  std::string log() const { return slurp(dir_ / "log.txt"); }
  fs::path dir_;
};

TEST_F(DpxMpi, TwoRanksEqualSingleProcess) {
  ASSERT_EQ(run({DPX_EXE,
                 "run",
                 "synthetic_rate",
                 "--threads",
                 "1",
                 "--out",
                 "single",
                 "--quiet",
                 "--no-figures"}),
            0)
      << log();
  ASSERT_EQ(run(mpirun(2, {"run", "synthetic_rate", "--out", "mpi", "--quiet", "--no-figures"})), 0)
      << log();
  EXPECT_NE(log().find("2 MPI ranks x 1 threads"), std::string::npos) << log();
  EXPECT_EQ(slurp(dir_ / "mpi" / "tidy.csv"), slurp(dir_ / "single" / "tidy.csv"));
  EXPECT_EQ(slurp(dir_ / "mpi" / "summary.csv"), slurp(dir_ / "single" / "summary.csv"));
  EXPECT_EQ(slurp(dir_ / "mpi" / "rates.csv"), slurp(dir_ / "single" / "rates.csv"));
  const auto m = nlohmann::json::parse(slurp(dir_ / "mpi" / "manifest.json"));
  EXPECT_EQ(m["status"], "completed");
  EXPECT_EQ(m["remote"]["ranks"], 2);
  EXPECT_GT(m["remote"]["bytes_per_block"].get<double>(), 0.0);

  ASSERT_EQ(
      run(mpirun(
          2,
          {"run", "synthetic_rate", "--threads", "2", "--out", "mpi2", "--quiet", "--no-figures"})),
      0)
      << log();
  EXPECT_EQ(slurp(dir_ / "mpi2" / "tidy.csv"), slurp(dir_ / "single" / "tidy.csv"));
}

TEST_F(DpxMpi, KilledRankFailsLoudlyAndResumes) {
  // synthetic_slow: 16 blocks of 5 x 20 ms.
  const pid_t pid = spawn(
      mpirun(2, {"run", "synthetic_slow", "--out", "k", "--no-figures"}), dir_, dir_ / "log.txt");
  pid_t worker = 0;
  // (the ranks' CPU is not mpirun's: the wait ends when mpirun exits, or at CTest's TIMEOUT)
  dpx::test::wait_until(
      [&] {
        if (worker == 0) worker = find_rank(1, dir_);
        return worker != 0 && count_blocks(dir_ / "k") >= 2;
      },
      pid);
  ASSERT_GT(worker, 0) << log();
  kill(worker, SIGKILL);
  const int code = wait_exit(pid);
  EXPECT_NE(code, 0) << log();
  const std::size_t saved = count_blocks(dir_ / "k");
  EXPECT_GE(saved, 2u);
  ASSERT_LT(saved, 16u) << "the run finished before the rank was killed";
  EXPECT_FALSE(fs::exists(dir_ / "k" / "tidy.csv"));
  EXPECT_EQ(fs::exists(dir_ / "k" / "manifest.json") &&
                nlohmann::json::parse(slurp(dir_ / "k" / "manifest.json"))["status"] == "completed",
            false);

  ASSERT_EQ(run(mpirun(
                2, {"run", "synthetic_slow", "--out", "k", "--resume", "--quiet", "--no-figures"})),
            0)
      << log();
  const auto m = nlohmann::json::parse(slurp(dir_ / "k" / "manifest.json"));
  EXPECT_GE(m["counts"]["cached"].get<std::size_t>(), saved);
  EXPECT_EQ(m["counts"]["cached"].get<std::size_t>() + m["counts"]["computed"].get<std::size_t>(),
            16u);
  ASSERT_EQ(run({DPX_EXE,
                 "run",
                 "synthetic_slow",
                 "--threads",
                 "2",
                 "--out",
                 "single",
                 "--quiet",
                 "--no-figures"}),
            0);
  EXPECT_EQ(slurp(dir_ / "k" / "tidy.csv"), slurp(dir_ / "single" / "tidy.csv"));
}

}  // namespace
