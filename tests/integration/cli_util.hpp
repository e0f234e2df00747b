// Shared helpers of the integration tests: run the real `dpx` executable (fork/exec) with its
// stdout and stderr captured through files, an optional working directory and extra environment.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace dpx::test {

namespace fs = std::filesystem;

using env_list = std::vector<std::pair<std::string, std::string>>;

/// The one stderr line of `dpx <command> --seed S` (the noise is reproducible: not a release).
inline std::string seeded_warning(const std::string& command) {
  return "dpx " + command +
         ": warning: --seed: seeded, reproducible noise; anyone who knows the seed can remove it, "
         "so this is NOT a private release (experiments and checks only)\n";
}

/// The whole file as bytes ("" if it cannot be read).
inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Starts argv (argv[0] looked up on PATH unless it has a '/') in cwd with stdout and stderr
/// redirected to the given files (the same file for both is fine) and env added to the
/// environment (an empty value removes the variable). Returns the child's pid.
inline pid_t spawn(const std::vector<std::string>& argv_in,
                   const fs::path& cwd,
                   const fs::path& out,
                   const fs::path& err,
                   const env_list& env = {}) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  // Child (the test process is single-threaded here): set up and exec, or exit 127.
  if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(127);
  for (const auto& [k, v] : env) {
    if (v.empty()) {
      unsetenv(k.c_str());
    } else {
      setenv(k.c_str(), v.c_str(), 1);
    }
  }
  const int fo = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int fe = out == err ? fo : open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fo < 0 || fe < 0) _exit(127);
  dup2(fo, STDOUT_FILENO);
  dup2(fe, STDERR_FILENO);
  std::vector<char*> argv;
  for (const auto& a : argv_in) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  _exit(127);
}

/// Waits for pid: its exit status, 128 + signal if it was killed, -1 on error.
inline int wait_exit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

struct outcome {
  int code = -1;
  std::string out, err;
  bool timed_out = false;  ///< run_in_bounded only: killed after its time limit
};

/// Like wait_exit, but kills pid (SIGKILL) once `limit` has passed: returns -2 then. The limit is
/// a hang detector (a bound far above any expected duration), not a speed assertion.
inline int wait_exit_bounded(pid_t pid, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0) return -1;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

/// Runs argv to completion in dir (output files dir/stdout.txt, dir/stderr.txt).
inline outcome run_in(const std::vector<std::string>& argv,
                      const fs::path& dir,
                      const env_list& env = {}) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const int code = wait_exit(spawn(argv, dir, out, err, env));
  return {code, slurp(out), slurp(err)};
}

/// Runs argv in dir with a time limit (see wait_exit_bounded); timed_out set when it was killed.
inline outcome run_in_bounded(const std::vector<std::string>& argv,
                              const fs::path& dir,
                              std::chrono::milliseconds limit,
                              const env_list& env = {}) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const int code = wait_exit_bounded(spawn(argv, dir, out, err, env), limit);
  return {code, slurp(out), slurp(err), code == -2};
}

#ifdef DPX_EXE  // defined for the integration tests; other suites use run_in with their own path
/// Runs `dpx args...` (the executable under test, DPX_EXE) to completion in dir.
inline outcome run_dpx(const std::vector<std::string>& args,
                       const fs::path& dir,
                       const env_list& env = {}) {
  std::vector<std::string> argv{DPX_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_in(argv, dir, env);
}
#endif

/// A fresh, empty directory under the test temp dir named after the running test.
inline fs::path fresh_test_dir(const std::string& prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  // Keyed by the working directory (the build tree CTest runs in) as well as the test, so two
  // build trees testing at once (e.g. two worktrees) never share or delete each other's files;
  // the name stays the same from run to run, so nothing accumulates in the temp directory.
  const std::size_t tree = std::hash<std::string>{}(fs::current_path().string());
  const fs::path dir =
      fs::path(::testing::TempDir()) / (prefix + info->test_suite_name() + "_" + info->name() +
                                        "_" + std::to_string(tree % 1000003));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace dpx::test
