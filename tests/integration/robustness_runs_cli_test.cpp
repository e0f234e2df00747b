// Robustness replay, third part (see robustness_more_cli_test.cpp; invariants in
// robustness_util.hpp), for the experiment runner:
//   * presets with a value of the wrong type (or out of range, nan, inf) for every key:
//     `dpx run`, `status` and `emit-slurm` exit 2 before anything runs (preset values are
//     configuration, not private data: messages may quote them);
//   * interrupted runs (SIGINT) whose blocks are then damaged in ten different ways: `--resume`
//     never merges a damaged block and ends with the undisturbed tidy.csv.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "robustness_util.hpp"

namespace {

namespace fs = std::filesystem;
using dpx::test::robust::args_t;
using dpx::test::robust::kSecret;
using dpx::test::robust::RobustnessCli;

void put_file(const fs::path& f, const std::string& text) {
  std::ofstream(f, std::ios::binary | std::ios::trunc) << text;
}

// ---- presets: a bad value for every key ----------------------------------------------------
TEST_F(RobustnessCli, PresetWithABadValueForEveryKeyExits2BeforeRunning) {
  const std::string text = dpx::test::slurp(preset_);
  ASSERT_FALSE(text.empty());
  // key line prefix -> replacement values that are invalid there.
  const std::vector<std::pair<std::string, std::vector<std::string>>> keys = {
      {"name = \"synthetic_rate\"", {"name = 3", "name = \"\"", "name = \"../x\"", "name = []"}},
      {"driver = ", {"driver = 1", "driver = \"nope\"", "driver = \"\"", "driver = [\"a\"]"}},
      {"base_seed = ",
       {"base_seed = \"abc\"", "base_seed = -1", "base_seed = 1.5", "base_seed = true"}},
      {"replications = 60",
       {"replications = 0",
        "replications = -5",
        "replications = \"60\"",
        "replications = 6e1",
        "replications = 9223372036854775807"}},
      {"replication_block = ",
       {"replication_block = 0",
        "replication_block = -1",
        "replication_block = \"x\"",
        "replication_block = 1.5"}},
      {"n = ",
       {"n = \"abc\"",
        "n = []",
        "n = [0]",
        "n = [-100]",
        "n = [nan]",
        "n = [inf]",

        "n = [true]",
        "n = { geometric = [100, 10], points = 5, integer = true }",
        "n = { geometric = [0, 100], points = 5, integer = true }",
        "n = { geometric = [100, 1000], points = -1, integer = true }",
        "n = { geometric = [\"abc\", 1000], points = 5 }",
        "n = { nope = 1 }"}},
      {"slope = ",
       {"slope = \"x\"",
        "slope = []",
        "slope = [nan]",
        "slope = [inf]",
        "slope = [[1]]",
        "slope = [true]"}},
      {"noise = ",
       {"noise = \"abc\"",
        "noise = -1",
        "noise = nan",
        "noise = inf",
        "noise = []",
        "noise = true"}},
      {"reference_slopes = ", {"reference_slopes = \"x\"", "reference_slopes = [nan]"}},
      {"expected_slope = ",
       {"expected_slope = \"x\"", "expected_slope = nan", "expected_slope = inf"}},
      {"tolerance = ", {"tolerance = -0.1", "tolerance = nan", "tolerance = \"x\""}},
      {"statistic = ", {"statistic = \"nope\"", "statistic = 3"}},
  };
  int mutations = 0;
  for (const auto& [prefix, values] : keys) {
    const auto at = text.find("\n" + prefix) + 1;  // at the start of a line
    ASSERT_NE(at, 0u) << prefix;
    const auto end = text.find('\n', at);
    for (const auto& v : values) {
      std::string t = text;
      t.replace(at, end - at, v);
      const std::string name = "p" + std::to_string(mutations++) + ".toml";
      write(name, t);
      SCOPED_TRACE(v);
      check({"run", name, "--quick", "--out", "r_" + name, "--quiet", "--no-figures"}, 2);
      EXPECT_FALSE(fs::exists(dir_ / ("r_" + name) / "tidy.csv")) << v;
      check({"status", name, "--out", "r_" + name}, 2);
      check({"emit-slurm", name, "--shards", "2", "--out", "s_" + name + ".sh"}, 2);
    }
  }
  std::cout << "preset mutations: " << mutations << ", " << runs_ << " invocations\n";
}

// ---- interrupted runs, then damaged blocks -------------------------------------------------
TEST_F(RobustnessCli, InterruptedRunsWithDamagedBlocksResumeToTheUndisturbedResult) {
  const std::string p = preset_.string();
  const args_t run_args = {"run", p, "--out", "clean", "--quiet", "--no-figures"};
  ASSERT_EQ(check(run_args, 0).code, 0);
  const std::string tidy = dpx::test::slurp(dir_ / "clean" / "tidy.csv");
  ASSERT_FALSE(tidy.empty());
  std::vector<fs::path> cells;
  for (const auto& e : fs::directory_iterator(dir_ / "clean" / "cells")) cells.push_back(e.path());
  std::sort(cells.begin(), cells.end());
  ASSERT_GE(cells.size(), 2u);
  const std::string b0 = "reps_000000-000019", b1 = "reps_000020-000039";
  ASSERT_TRUE(fs::exists(cells[0] / (b0 + ".csv")));
  ASSERT_TRUE(fs::exists(cells[0] / (b1 + ".csv")));
  using damage = void (*)(
      const fs::path& cell, const fs::path& other, const std::string& b0, const std::string& b1);
  const std::vector<std::pair<const char*, damage>> damages = {
      {"empty block",
       [](const fs::path& c, const fs::path&, const std::string& a, const std::string&) {
         put_file(c / (a + ".csv"), "");
       }},
      {"garbage block with the planted value",
       [](const fs::path& c, const fs::path&, const std::string& a, const std::string&) {
         put_file(c / (a + ".csv"), std::string("\x01\xff") + kSecret + "\n,,,\n");
       }},
      {"another cell's block copied in",
       [](const fs::path& c, const fs::path& o, const std::string& a, const std::string&) {
         fs::copy_file(o / (a + ".csv"), c / (a + ".csv"), fs::copy_options::overwrite_existing);
         fs::copy_file(o / (a + ".json"), c / (a + ".json"), fs::copy_options::overwrite_existing);
       }},
      {"the cell's other block under this name",
       [](const fs::path& c, const fs::path&, const std::string& a, const std::string& b) {
         fs::copy_file(c / (b + ".csv"), c / (a + ".csv"), fs::copy_options::overwrite_existing);
       }},
      {"rows duplicated",
       [](const fs::path& c, const fs::path&, const std::string& a, const std::string&) {
         const std::string t = dpx::test::slurp(c / (a + ".csv"));
         put_file(c / (a + ".csv"), t + t.substr(t.find('\n') + 1));
       }},
      {"sidecar deleted",
       [](const fs::path& c, const fs::path&, const std::string& a, const std::string&) {
         fs::remove(c / (a + ".json"));
       }},
      {"sidecar garbage",
       [](const fs::path& c, const fs::path&, const std::string& a, const std::string&) {
         put_file(c / (a + ".json"), "{\"x\": " + kSecret);
       }},
      {"sidecar hash edited",
       [](const fs::path& c, const fs::path&, const std::string& a, const std::string&) {
         auto j = nlohmann::json::parse(dpx::test::slurp(c / (a + ".json")));
         for (auto& [k, v] : j.items()) {
           if (v.is_string() && v.template get<std::string>().size() == 64)
             v = std::string(64, '0');
         }
         put_file(c / (a + ".json"), j.dump());
       }},
      {"block replaced by a directory",
       [](const fs::path& c, const fs::path&, const std::string& a, const std::string&) {
         fs::remove(c / (a + ".csv"));
         fs::create_directories(c / (a + ".csv"));
       }},
      {"block deleted, sidecar kept",
       [](const fs::path& c, const fs::path&, const std::string& a, const std::string&) {
         fs::remove(c / (a + ".csv"));
       }},
  };
  int k = 0;
  for (const auto& [what, hurt] : damages) {
    SCOPED_TRACE(what);
    const std::string out = "d" + std::to_string(k++);
    const args_t a = {"run", p, "--out", out, "--quiet", "--no-figures"};
    // Interrupt a run (SIGINT) once its results directory exists, put the undisturbed blocks of
    // the first two cells in place, damage them, and resume.
    args_t argv{DPX_EXE};
    argv.insert(argv.end(), a.begin(), a.end());
    const pid_t pid = dpx::test::spawn(argv, dir_, dir_ / "o.txt", dir_ / "e.txt");
    dpx::test::wait_until([&] { return fs::exists(dir_ / out / "cells"); }, pid);
    kill(pid, SIGINT);
    const int code = dpx::test::wait_exit_bounded(pid, 60);
    EXPECT_TRUE(code == 0 || code == 1 || code == 128 + SIGINT) << code;
    std::vector<fs::path> c2;
    for (std::size_t i = 0; i < 2; ++i) {
      c2.push_back(dir_ / out / "cells" / cells[i].filename());
      fs::create_directories(c2.back());
      fs::copy(
          cells[i], c2.back(), fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    }
    hurt(c2[0], c2[1], b0, b1);
    args_t resume = a;
    resume.push_back("--resume");
    const auto o = check(resume, 0);
    EXPECT_EQ(dpx::test::slurp(dir_ / out / "tidy.csv"), tidy) << o.err;
    EXPECT_EQ(o.err.find(kSecret), std::string::npos);
  }
  std::cout << "damaged blocks: " << damages.size() << " kinds, " << runs_ << " invocations\n";
}

}  // namespace
