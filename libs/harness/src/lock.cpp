// Results-directory locks and the removal of temporary files left by interrupted runs
// (docs/presets.md, "Concurrent runs").
//
// flock(2) locks belong to the open file description, so they are released when the process
// exits for any reason (including SIGKILL): a lock is never stale. A full run, `report` and
// `collect` hold an exclusive lock of the results directory; the shards of a sharded run hold
// it shared (they write disjoint blocks) plus an exclusive lock of their own shards/<i>-of-<N>/.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>
#include <stdexcept>
#include <system_error>

#include "internal.hpp"

namespace dpx::harness::detail {

namespace fs = std::filesystem;

dir_lock::dir_lock(const fs::path& dir, mode m) {
  check_results_dir(dir);
  fs::create_directories(dir);
  const fs::path path = dir / lock_file_name;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    // The directory given cannot hold results (read-only, /proc, ...): a usage error.
    throw std::invalid_argument("results directory " + dir.string() +
                                ": cannot create files in it (" + std::strerror(errno) + ")");
  }
  const int op = (m == mode::exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
  int rc;
  do {
    rc = ::flock(fd_, op);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK) {
      throw std::invalid_argument(
          "results directory " + dir.string() + " is being written by another dpx process (lock " +
          path.string() + "); wait for it to finish or choose another --out");
    }
    throw std::system_error(err, std::generic_category(), "cannot lock " + path.string());
  }
}

void check_results_dir(const fs::path& dir) {
  std::error_code ec;
  const auto st = fs::symlink_status(dir, ec);
  if (ec || !fs::exists(st)) return;  // created by the caller
  if (!fs::is_directory(fs::status(dir, ec))) {
    throw std::invalid_argument("results directory " + dir.string() +
                                " exists and is not a directory");
  }
  if (fs::exists(dir / lock_file_name, ec)) return;  // written by dpx before
  if (fs::is_empty(dir, ec) && !ec) return;
  throw std::invalid_argument(
      "results directory " + dir.string() +
      " is not empty and is not a dpx results directory (it has no " + lock_file_name +
      "): dpx would overwrite files of the same names there; choose a new or empty directory");
}

dir_lock::~dir_lock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

std::size_t remove_stale_temporaries(const fs::path& dir) {
  // write_file_atomic's names: "<target>.tmp.<pid>.<counter>".
  static const std::regex temp_name(R"(.+\.tmp\.[0-9]+\.[0-9]+)");
  std::size_t removed = 0;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return 0;
  std::vector<fs::path> doomed;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec) && std::regex_match(it->path().filename().string(), temp_name)) {
      doomed.push_back(it->path());
    }
  }
  for (const auto& p : doomed)
    if (fs::remove(p, ec)) ++removed;
  return removed;
}

}  // namespace dpx::harness::detail

namespace dpx::harness {

void claim_results_dir(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  // A folder of results directories written before folders were claimed (`--all --out
  // results` of earlier versions) holds dpx results directories: it is dpx's as well.
  bool holds_results = false;
  std::error_code ec;
  if (fs::is_directory(dir, ec) && !fs::exists(dir / detail::lock_file_name, ec)) {
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
      if (it->is_directory(ec) && fs::exists(it->path() / detail::lock_file_name, ec)) {
        holds_results = true;
        break;
      }
    }
  }
  if (!holds_results) detail::check_results_dir(dir);
  fs::create_directories(dir);
  const fs::path path = dir / detail::lock_file_name;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw std::invalid_argument("results directory " + dir.string() +
                                ": cannot create files in it (" + std::strerror(errno) + ")");
  }
  ::close(fd);
}

}  // namespace dpx::harness
