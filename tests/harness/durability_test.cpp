// write_file_atomic makes its rename durable: after the rename it fsyncs the directory that
// holds the file (fsync(2): syncing a file does not sync the directory entry that names it).
//
// The test interposes fsync (this executable's definition is the one the harness library's
// calls resolve to) and records which inodes were synced, then forwards to the system call.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <set>
#include <utility>

#include "dpx/harness/results.hpp"

namespace {
std::mutex g_mutex;
std::set<std::pair<dev_t, ino_t>> g_synced_dirs;
}  // namespace

extern "C" int fsync(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    const std::lock_guard lock(g_mutex);
    g_synced_dirs.insert({st.st_dev, st.st_ino});
  }
  return static_cast<int>(::syscall(SYS_fsync, fd));
}

namespace {

namespace fs = std::filesystem;

bool synced(const fs::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return false;
  const std::lock_guard lock(g_mutex);
  return g_synced_dirs.count({st.st_dev, st.st_ino}) != 0;
}

TEST(Durability, AtomicWriteSyncsTheDirectoryOfTheFile) {
  const fs::path dir = fs::path(::testing::TempDir()) / "dpx_durability_test" / "sub";
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir);
  {
    const std::lock_guard lock(g_mutex);
    g_synced_dirs.clear();
  }
  dpx::harness::write_file_atomic(dir / "a.txt", "hello\n");
  EXPECT_TRUE(synced(dir)) << "the directory holding the renamed file was not fsynced";
  fs::remove_all(dir.parent_path());
}

}  // namespace
