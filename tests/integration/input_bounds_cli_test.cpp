// Bounds on the CSV input of `dpx mean` and `dpx fit` (the real executable; docs/cli.md, "Input
// bounds"):
// - a file without a header line is refused without printing any of its first record;
// - a FIFO or a device named by --input is refused at once (exit 2, one line), never read;
// - `--input -` reads standard input: the same answer as the file with the same seed;
// - --max-input-bytes and --max-rows bound a file and standard input alike, and the message
//   names the flag that raises the bound.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;
using dpx::test::outcome;

class InputBounds : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = dpx::test::fresh_test_dir("dpx_input_bounds_"); }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }
  /// dpx args... (a read that never ends is caught by CTest's time limit of the suite).
  outcome run(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{DPX_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    return dpx::test::run_in(argv, dir_);
  }
  /// `dpx args... < file` through /bin/sh (the runner has no stdin redirection of its own).
  outcome run_stdin(const std::vector<std::string>& args, const fs::path& file) const {
    std::string cmd = "exec '" + std::string(DPX_EXE) + "'";
    for (const auto& a : args) cmd += " '" + a + "'";
    cmd += " < '" + file.string() + "'";
    return dpx::test::run_in({"/bin/sh", "-c", cmd}, dir_);
  }
  fs::path dir_;
};

void expect_refusal(const outcome& o, const std::vector<std::string>& needles) {
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_TRUE(o.out.empty()) << o.out;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  for (const auto& s : needles) EXPECT_NE(o.err.find(s), std::string::npos) << s << " | " << o.err;
}

const std::vector<std::string> mean_args = {
    "--column", "x", "--epsilon", "1", "--delta", "1e-6", "--tau", "1", "--seed", "3"};

std::vector<std::string> mean_with(const std::string& input, std::vector<std::string> extra = {}) {
  std::vector<std::string> a{"mean", "--input", input};
  a.insert(a.end(), mean_args.begin(), mean_args.end());
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST_F(InputBounds, AHeaderlessFileIsRefusedWithoutEchoingItsFirstRecord) {
  const auto nh = write("nh.csv", "987654321.125,123-45-6789,Alice Smith\n1.5,2,3\n");
  const std::vector<outcome> runs = {
      run(mean_with(nh.string())),
      run({"fit", "--input", nh.string(), "--target", "x"}),
  };
  for (const auto& o : runs) {
    expect_refusal(o, {"column 'x'", "no such column", "header"});
    for (const char* cell : {"987654321", "123-45-6789", "Alice"})
      EXPECT_EQ(o.err.find(cell), std::string::npos) << o.err;
  }
}

TEST_F(InputBounds, FifosAndDevicesAreRefusedNotRead) {
  const fs::path fifo = dir_ / "data.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No writer ever opens the FIFO: reading it would block for ever.
  expect_refusal(run(mean_with(fifo.string())), {"not a regular file", "'-'"});
  expect_refusal(run({"fit", "--input", fifo.string(), "--target", "y"}), {"not a regular file"});
  if (fs::exists("/dev/urandom"))
    expect_refusal(run(mean_with("/dev/urandom")), {"/dev/urandom", "not a regular file"});
}

TEST_F(InputBounds, StandardInputGivesTheFilesAnswer) {
  std::string text = "x\n";
  for (int i = 0; i < 200; ++i) text += std::to_string(i % 7) + "\n";
  const auto file = write("d.csv", text);
  const outcome from_file = run(mean_with(file.string()));
  ASSERT_EQ(from_file.code, 0) << from_file.err;
  const outcome from_stdin = run_stdin(mean_with("-"), file);
  ASSERT_EQ(from_stdin.code, 0) << from_stdin.err;
  EXPECT_EQ(from_stdin.out, from_file.out);

  std::string fit_text = "y,a\n";
  for (int i = 0; i < 50; ++i)
    fit_text += std::to_string(i % 5) + "," + std::to_string(i % 3) + "\n";
  const auto fit_file = write("f.csv", fit_text);
  const outcome fit_a = run({"fit", "--input", fit_file.string(), "--target", "y"});
  const outcome fit_b = run_stdin({"fit", "--input", "-", "--target", "y"}, fit_file);
  ASSERT_EQ(fit_a.code, 0) << fit_a.err;
  ASSERT_EQ(fit_b.code, 0) << fit_b.err;
  // Equal up to the solve time.
  auto without_seconds = [](std::string s) {
    const auto at = s.find("\"seconds\":");
    if (at != std::string::npos) s.erase(at, s.find_first_of(",}", at) - at);
    return s;
  };
  EXPECT_EQ(without_seconds(fit_b.out), without_seconds(fit_a.out));
}

TEST_F(InputBounds, SizeAndRowLimitsAreEnforcedAndRaisable) {
  const auto file = write("d.csv", "x\n1\n2\n3\n4\n");  // 10 bytes, 4 rows
  expect_refusal(run(mean_with(file.string(), {"--max-input-bytes", "9"})),
                 {"larger than 9 bytes", "--max-input-bytes"});
  expect_refusal(run_stdin(mean_with("-", {"--max-input-bytes", "9"}), file),
                 {"<stdin>", "larger than 9 bytes"});
  expect_refusal(run(mean_with(file.string(), {"--max-rows", "3"})),
                 {"more than 3 data rows", "--max-rows"});
  const auto two = write("two.csv", "y,a\n1,2\n3,4\n5,6\n7,9\n");
  expect_refusal(run({"fit", "--input", two.string(), "--target", "y", "--max-rows", "3"}),
                 {"more than 3 data rows", "--max-rows"});
  expect_refusal(run({"fit", "--input", two.string(), "--target", "y", "--max-input-bytes", "8"}),
                 {"larger than 8 bytes"});
  EXPECT_EQ(run(mean_with(file.string(), {"--max-input-bytes", "10", "--max-rows", "4"})).code, 0);
  expect_refusal(run(mean_with(file.string(), {"--max-rows", "0"})), {"--max-rows"});
}

}  // namespace
