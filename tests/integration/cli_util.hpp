// Shared helpers of the integration tests: run the real `dpx` executable (fork/exec) with its
// stdout and stderr captured through files, an optional working directory and extra environment.
//
// No helper here reads a clock: a loaded machine must not fail a correct build. A bounded run is
// limited in CPU seconds (RLIMIT_CPU, enforced by the kernel on the child alone), and a wait for
// a child to reach some point ends when it gets there, exits, or has used its CPU budget. A child
// blocked forever without using CPU is left to CTest's per-test TIMEOUT, the only wall-clock
// limit (a safety net hundreds of seconds beyond any run, tests/lint/wallclock_lint.py).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
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
/// cpu_limit_s > 0 limits the child to that many CPU seconds (RLIMIT_CPU: SIGXCPU, then SIGKILL
/// one second later; no core file).
inline pid_t spawn(const std::vector<std::string>& argv_in,
                   const fs::path& cwd,
                   const fs::path& out,
                   const fs::path& err,
                   const env_list& env = {},
                   long cpu_limit_s = 0) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  // Child (the test process is single-threaded here): set up and exec, or exit 127.
  if (cpu_limit_s > 0) {
    const rlimit cpu{static_cast<rlim_t>(cpu_limit_s), static_cast<rlim_t>(cpu_limit_s + 1)};
    const rlimit core{0, 0};
    if (setrlimit(RLIMIT_CPU, &cpu) != 0 || setrlimit(RLIMIT_CORE, &core) != 0) _exit(127);
  }
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

struct outcome {
  int code = -1;
  std::string out, err;
  bool timed_out = false;  ///< run_in_bounded only: killed at its CPU-time limit
  double cpu_seconds = 0;  ///< run_in_bounded only: the child's user + system CPU time
};

/// The exit status of a wait: its exit code, 128 + signal if it was killed, -1 otherwise.
inline int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

/// CPU seconds (user + system, its threads and its waited-for children) used so far by the
/// running process pid, from /proc/pid/stat; -1 if it cannot be read.
inline double cpu_seconds_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return -1;
  std::istringstream fields(stat.substr(close + 2));
  std::string f;
  double ticks = 0;
  for (int i = 3; i <= 17 && fields >> f; ++i) {
    if (i >= 14) ticks += std::stod(f);  // utime, stime, cutime, cstime (fields 14-17)
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

/// True once the child pid has exited (it is left to be reaped by wait_exit).
inline bool has_exited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
         info.si_pid == pid;
}

/// Polls pred() until it holds (true) or the child pid exits or has used cpu_limit_s CPU
/// seconds without it holding (false): a hang detector that a loaded machine cannot trip.
template <class P>
bool wait_until(P&& pred, pid_t pid, double cpu_limit_s = 120) {
  while (!pred()) {
    if (has_exited(pid) || cpu_seconds_of(pid) > cpu_limit_s) return pred();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

/// Waits for pid: its exit status, 128 + signal if it was killed, -1 on error.
inline int wait_exit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return exit_code_of(status);
}

/// Like wait_exit, but kills pid (SIGKILL) once it has used cpu_limit_s CPU seconds without
/// exiting: returns -2 then. The limit is a hang detector, not a speed assertion.
inline int wait_exit_bounded(pid_t pid, double cpu_limit_s) {
  if (!wait_until([&] { return has_exited(pid); }, pid, cpu_limit_s)) {
    kill(pid, SIGKILL);
    wait_exit(pid);
    return -2;
  }
  return wait_exit(pid);
}

/// Runs argv to completion in dir (output files dir/stdout.txt, dir/stderr.txt).
inline outcome run_in(const std::vector<std::string>& argv,
                      const fs::path& dir,
                      const env_list& env = {}) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const int code = wait_exit(spawn(argv, dir, out, err, env));
  return {code, slurp(out), slurp(err)};
}

/// Runs argv in dir limited to cpu_limit_s CPU seconds (a hang detector far above any expected
/// run, not a speed assertion): timed_out is set when the kernel stopped it at the limit, and
/// cpu_seconds is the CPU time it used.
inline outcome run_in_bounded(const std::vector<std::string>& argv,
                              const fs::path& dir,
                              long cpu_limit_s,
                              const env_list& env = {}) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const pid_t pid = spawn(argv, dir, out, err, env, cpu_limit_s);
  int status = 0;
  rusage ru{};
  const int code = wait4(pid, &status, 0, &ru) == pid ? exit_code_of(status) : -1;
  const auto sec = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * t.tv_usec;
  };
  const double cpu = sec(ru.ru_utime) + sec(ru.ru_stime);
  const bool killed = code == 128 + SIGXCPU || (code == 128 + SIGKILL && cpu >= cpu_limit_s);
  return {code, slurp(out), slurp(err), killed, cpu};
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
