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

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

const fs::path presets = DPX_INTEGRATION_PRESETS;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

pid_t spawn(const std::vector<std::string>& argv_in, const fs::path& cwd, const fs::path& log) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  if (chdir(cwd.c_str()) != 0) _exit(127);
  setenv("DPX_EXPERIMENTS_DIR", presets.c_str(), 1);
  setenv("DPX_MPI_TEST_DIR", cwd.c_str(), 1);  // lets the test find its own ranks
  // Containers: no ptrace-based single copy between ranks.
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
  const int fo = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fo < 0) _exit(127);
  dup2(fo, STDOUT_FILENO);
  dup2(fo, STDERR_FILENO);
  std::vector<char*> argv;
  for (const auto& a : argv_in) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  _exit(127);
}

int wait_exit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
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
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("dpx_mpi_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
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
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while ((worker == 0 || count_blocks(dir_ / "k") < 2) &&
         std::chrono::steady_clock::now() < deadline) {
    if (worker == 0) worker = find_rank(1, dir_);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
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
