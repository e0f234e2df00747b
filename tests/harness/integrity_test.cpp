// Properties checked (runner and collect, docs/presets.md "Caching" and "Concurrent runs"):
// - a cached block is reused only when it verifies by content: an edited metric, another
//   cell's block copied in (CSV alone, or CSV with its sidecar), a truncated, empty or garbage
//   CSV and a garbage sidecar are each recomputed with one warning line, never merged, and the
//   resumed tidy.csv equals the untouched run byte for byte (on f180f52 the edited metric and
//   the copied block were merged silently and the truncated/empty/garbage block left the run
//   stuck);
// - report never merges a corrupt block; collect leaves it out and counts it as missing;
// - a second run into a directory that a run is writing fails at once (std::invalid_argument)
//   and writes nothing; temporary files of interrupted runs are removed at start;
// - validation before compute: an invalid parameter value in any cell rejects the preset
//   (preset_error naming the cell and the parameter) before any replication runs and before
//   anything is written; a huge range (points = 100000000) or grid is rejected at once.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "../../experiments/synthetic/synthetic.hpp"
#include "dpx/harness/runner.hpp"
#include "dpx/harness/scale.hpp"

namespace {

namespace fs = std::filesystem;
namespace h = dpx::harness;

const h::driver_registrar reg_power{
    dpx::experiments::make_synthetic_power_law("integrity_test_power_law")};

// Counts replications; with g_nested set, replication 0 of the first call starts a second run
// into the same directory and records what it threw.
std::atomic<int> g_calls{0};
h::run_options* g_nested = nullptr;
std::string g_nested_error;
h::driver make_counting() {
  h::driver d = dpx::experiments::make_synthetic_power_law("integrity_test_counting");
  auto inner = d.run;
  d.run = [inner](const h::cell_context& c) {
    if (g_calls.fetch_add(1) == 0 && g_nested != nullptr) {
      try {
        h::run_preset(*g_nested);
        g_nested_error = "(no error)";
      } catch (const std::invalid_argument& e) {
        g_nested_error = e.what();
      }
    }
    return inner(c);
  };
  return d;
}
const h::driver_registrar reg_counting{make_counting()};

// Declares the checks of a typical DP driver (what private_mean declares).
h::driver make_checked() {
  h::driver d = dpx::experiments::make_synthetic_power_law("integrity_test_checked");
  d.params.push_back({"epsilon", "privacy parameter", h::param_value{1.0}, h::positive()});
  d.params.push_back({"delta", "delta", h::param_value{1e-5}, h::open_unit_interval()});
  d.params.push_back({"m", "a count", h::param_value{std::int64_t{5}}, h::integer_at_least(1)});
  d.params.push_back({"mechanism",
                      "laplace or gaussian",
                      h::param_value{std::string("laplace")},
                      h::one_of({"laplace", "gaussian"})});
  auto inner = d.run;
  d.run = [inner](const h::cell_context& c) {
    g_calls.fetch_add(1);
    return inner(c);
  };
  return d;
}
const h::driver_registrar reg_checked{make_checked()};

class Integrity : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("dpx_integrity_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    g_calls = 0;
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  fs::path write_preset(const std::string& driver,
                        const std::string& grid = "n = [10, 20, 40]\n",
                        const std::string& name = "integ") {
    const fs::path path = dir_ / (name + ".toml");
    std::ofstream(path) << "[experiment]\nname = \"" << name << "\"\ndriver = \"" << driver
                        << "\"\nbase_seed = 3\nreplications = 20\nreplication_block = 10\n"
                        << "[grid]\n"
                        << grid;
    return path;
  }
  h::run_options options(const fs::path& preset, const std::string& out = "out") {
    h::run_options o;
    o.preset = preset.string();
    o.out_dir = dir_ / out;
    o.threads = 2;
    o.quiet = true;
    o.figures = false;
    return o;
  }
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static void put(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
  }
  // The two cells' directories (sorted ids) below out/cells.
  std::vector<fs::path> cell_dirs(const std::string& out = "out") const {
    std::vector<fs::path> v;
    for (const auto& e : fs::directory_iterator(dir_ / out / "cells")) v.push_back(e.path());
    std::sort(v.begin(), v.end());
    return v;
  }

  // Runs, corrupts block reps_000010-000019 of the first cell with `corrupt`, resumes, and
  // checks that exactly that block is recomputed with one warning and tidy.csv is unchanged.
  template <class F>
  void expect_recomputed(F corrupt, const std::string& reason_part) {
    const auto preset = write_preset("integrity_test_power_law");
    auto o = options(preset);
    ASSERT_EQ(h::run_preset(o).status, h::run_status::completed);
    const std::string tidy = slurp(dir_ / "out" / "tidy.csv");
    const auto cells = cell_dirs();
    corrupt(cells);
    o.resume = true;
    ::testing::internal::CaptureStderr();
    const auto r = h::run_preset(o);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(r.status, h::run_status::completed);
    EXPECT_EQ(r.counts.corrupt, 1u);
    EXPECT_EQ(r.counts.computed, 1u);
    EXPECT_EQ(r.counts.cached, 5u);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("warning"), std::string::npos) << err;
    EXPECT_NE(err.find("reps_000010-000019.csv"), std::string::npos) << err;
    EXPECT_NE(err.find(reason_part), std::string::npos) << err;
    EXPECT_EQ(slurp(dir_ / "out" / "tidy.csv"), tidy);
    // A third run reuses everything: the recomputed block verifies.
    const auto again = h::run_preset(o);
    EXPECT_EQ(again.counts.computed, 0u);
    EXPECT_EQ(again.counts.corrupt, 0u);
  }

  fs::path dir_;
};

const char* kBlock = "reps_000010-000019";

TEST_F(Integrity, EditedMetricIsRecomputed) {
  expect_recomputed(
      [](const std::vector<fs::path>& cells) {
        const fs::path csv = cells[0] / (std::string(kBlock) + ".csv");
        std::string text = slurp(csv);
        // Change the first digit of the y metric in the first data row.
        std::size_t line2 = text.find('\n') + 1;
        std::size_t pos = line2;
        for (int commas = 0; commas < 7; ++pos)
          if (text[pos] == ',') ++commas;  // cell_id + 5 params + rep
        text[pos] = text[pos] == '1' ? '2' : '1';
        put(csv, text);
      },
      "SHA-256");
}

TEST_F(Integrity, AnotherCellsBlockCopiedInIsRecomputed) {
  expect_recomputed(
      [](const std::vector<fs::path>& cells) {
        fs::copy_file(cells[1] / (std::string(kBlock) + ".csv"),
                      cells[0] / (std::string(kBlock) + ".csv"),
                      fs::copy_options::overwrite_existing);
      },
      "SHA-256");
}

TEST_F(Integrity, AnotherCellsBlockWithSidecarCopiedInIsRecomputed) {
  expect_recomputed(
      [](const std::vector<fs::path>& cells) {
        for (const char* ext : {".csv", ".json"}) {
          fs::copy_file(cells[1] / (std::string(kBlock) + ext),
                        cells[0] / (std::string(kBlock) + ext),
                        fs::copy_options::overwrite_existing);
        }
      },
      "another cell");
}

TEST_F(Integrity, CsvWithRowsOfAnotherCellAndMatchingHashIsRecomputed) {
  // Even a consistent forgery (rows of another cell, hash recomputed into the sidecar) is
  // caught by the row check.
  expect_recomputed(
      [](const std::vector<fs::path>& cells) {
        const std::string text = slurp(cells[1] / (std::string(kBlock) + ".csv"));
        put(cells[0] / (std::string(kBlock) + ".csv"), text);
        const fs::path side = cells[0] / (std::string(kBlock) + ".json");
        auto j = nlohmann::json::parse(slurp(side));
        j["content_sha256"] = nlohmann::json::parse(
            slurp(cells[1] / (std::string(kBlock) + ".json")))["content_sha256"];
        put(side, j.dump(2));
      },
      "another cell");
}

TEST_F(Integrity, TruncatedBlockIsRecomputed) {
  expect_recomputed(
      [](const std::vector<fs::path>& cells) {
        const fs::path csv = cells[0] / (std::string(kBlock) + ".csv");
        const std::string text = slurp(csv);
        put(csv, text.substr(0, text.size() / 2));
      },
      "SHA-256");
}

TEST_F(Integrity, EmptyBlockIsRecomputed) {
  expect_recomputed(
      [](const std::vector<fs::path>& cells) {
        put(cells[0] / (std::string(kBlock) + ".csv"), "");
      },
      "SHA-256");
}

TEST_F(Integrity, GarbageBlockIsRecomputed) {
  expect_recomputed(
      [](const std::vector<fs::path>& cells) {
        std::string garbage;
        for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919) & 0xff);
        put(cells[0] / (std::string(kBlock) + ".csv"), garbage);
      },
      "SHA-256");
}

TEST_F(Integrity, GarbageSidecarIsRecomputed) {
  expect_recomputed(
      [](const std::vector<fs::path>& cells) {
        put(cells[0] / (std::string(kBlock) + ".json"), "\x01\x02{{not json");
      },
      "not valid JSON");
}

TEST_F(Integrity, ReportNeverMergesACorruptBlock) {
  const auto preset = write_preset("integrity_test_power_law");
  ASSERT_EQ(h::run_preset(options(preset)).status, h::run_status::completed);
  fs::remove(dir_ / "out" / "tidy.csv");
  put(cell_dirs()[0] / (std::string(kBlock) + ".csv"), "cell_id\n");
  h::report_options ro;
  ro.preset = preset.string();
  ro.out_dir = dir_ / "out";
  ro.figures = false;
  try {
    h::report_preset(ro);
    FAIL() << "report merged a corrupt block";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("corrupt"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "out" / "tidy.csv"));
}

TEST_F(Integrity, CollectLeavesACorruptBlockOut) {
  const auto preset = write_preset("integrity_test_power_law");
  ASSERT_EQ(h::run_preset(options(preset)).status, h::run_status::completed);
  const fs::path csv = cell_dirs()[0] / (std::string(kBlock) + ".csv");
  put(csv, slurp(csv) + slurp(csv));  // duplicated rows
  h::collect_options co;
  co.preset = preset.string();
  co.out_dir = dir_ / "out";
  co.figures = false;
  ::testing::internal::CaptureStderr();
  const auto cr = h::collect_preset(co);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(cr.blocks_missing, 1u);
  EXPECT_EQ(cr.run.counts.corrupt, 1u);
  EXPECT_EQ(cr.run.status, h::run_status::interrupted);
  EXPECT_NE(err.find("left out"), std::string::npos) << err;
  EXPECT_EQ(h::read_tidy_csv(dir_ / "out" / "tidy.csv").rows.size(), 50u);  // 60 - 10
}

TEST_F(Integrity, SecondRunIntoALockedDirectoryFailsAtOnce) {
  const auto preset = write_preset("integrity_test_counting");
  auto o = options(preset);
  o.threads = 1;
  auto nested = o;
  g_nested = &nested;
  g_nested_error.clear();
  const auto r = h::run_preset(o);
  g_nested = nullptr;
  EXPECT_EQ(r.status, h::run_status::completed);
  EXPECT_NE(g_nested_error.find("is being written by another dpx process"), std::string::npos)
      << g_nested_error;
  EXPECT_EQ(g_calls.load(), 60);  // the nested run computed nothing
  // Released at the end: a later run gets the lock.
  EXPECT_EQ(h::run_preset(o).counts.computed, 0u);
}

TEST_F(Integrity, ShardsShareTheDirectoryButNotAShard) {
  const auto preset = write_preset("integrity_test_counting");
  auto o = options(preset);
  o.threads = 1;
  o.shard_index = 0;
  o.shard_count = 2;
  auto other_shard = o;
  other_shard.shard_index = 1;
  g_nested = &other_shard;
  g_nested_error.clear();
  h::run_preset(o);
  EXPECT_EQ(g_nested_error, "(no error)");  // shard 1 ran while shard 0 was running
  auto same_shard = o;
  same_shard.force = true;
  g_calls = 0;
  g_nested = &same_shard;
  g_nested_error.clear();
  o.force = true;
  h::run_preset(o);
  g_nested = nullptr;
  EXPECT_NE(g_nested_error.find("being written"), std::string::npos) << g_nested_error;
}

TEST_F(Integrity, StaleTemporaryFilesAreRemovedAtStart) {
  const auto preset = write_preset("integrity_test_power_law");
  ASSERT_EQ(h::run_preset(options(preset)).status, h::run_status::completed);
  const fs::path t1 = cell_dirs()[0] / (std::string(kBlock) + ".csv.tmp.12345.0");
  const fs::path t2 = dir_ / "out" / "tidy.csv.tmp.99.7";
  const fs::path keep = dir_ / "out" / "notes.tmp.txt";
  put(t1, "partial");
  put(t2, "partial");
  put(keep, "mine");
  ASSERT_EQ(h::run_preset(options(preset)).counts.computed, 0u);
  EXPECT_FALSE(fs::exists(t1));
  EXPECT_FALSE(fs::exists(t2));
  EXPECT_TRUE(fs::exists(keep));
}

// ---- validation before compute ------------------------------------------------------------

struct bad_value {
  const char* grid;      // [grid] line
  const char* key;       // parameter the error must name
  bool by_type = false;  // a type error: load_preset names file:line:column instead of a cell
};

TEST_F(Integrity, InvalidValuesAreRejectedBeforeAnyReplication) {
  const bad_value cases[] = {
      {"epsilon = [1.0, -1.0]\n", "epsilon"},
      {"m = [0]\n", "m"},
      {"m = [\"abc\"]\n", "m", true},
      {"m = [2.5]\n", "m", true},
      {"delta = [2.0]\n", "delta"},
      {"delta = [0.0]\n", "delta"},
      {"mechanism = [\"laplace\", \"nope\"]\n", "mechanism"},
      {"mechanism = [1]\n", "mechanism", true},
      {"noise = [-0.5]\n", "noise"},
      {"n = [10, 0]\n", "n"},
      {"n = [\"abc\"]\n", "n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.grid);
    const std::string grid =
        std::string(c.grid) + (std::string(c.grid).rfind("n =", 0) == 0 ? "" : "n = [10]\n");
    const auto preset = write_preset("integrity_test_checked", grid);
    g_calls = 0;
    try {
      h::run_preset(options(preset));
      FAIL() << "accepted";
    } catch (const h::preset_error& e) {
      const std::string msg = e.what();
      if (c.by_type) {
        EXPECT_NE(msg.find("parameter '" + std::string(c.key) + "'"), std::string::npos) << msg;
      } else {
        EXPECT_NE(msg.find("cell "), std::string::npos) << msg;
        EXPECT_NE(msg.find(std::string(c.key) + " = "), std::string::npos) << msg;
      }
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    EXPECT_EQ(g_calls.load(), 0);
    EXPECT_FALSE(fs::exists(dir_ / "out"));
  }
}

TEST_F(Integrity, ValidValuesPass) {
  const auto preset =
      write_preset("integrity_test_checked",
                   "n = [10, 20]\nepsilon = [0.5, 2]\nm = [1, 3.0]\nmechanism = [\"gaussian\"]\n");
  EXPECT_EQ(h::run_preset(options(preset)).status, h::run_status::completed);
}

TEST_F(Integrity, HugeRangesAndGridsAreRejectedAtOnce) {
  // On f180f52 the first spun in quadratic de-duplication.
  const auto p1 =
      write_preset("integrity_test_power_law",
                   "n = { geometric = [1, 1000000], points = 100000000, integer = true }\n",
                   "huge");
  EXPECT_THROW(h::load_preset(p1), h::preset_error);
  // 1000 x 1000 x 2 cells: each axis is fine, the product is not.
  const auto p2 = write_preset("integrity_test_power_law",
                               "n = { linear = [1, 1000], points = 1000 }\n"
                               "slope = { linear = [-2, -1], points = 1000 }\n"
                               "noise = [0.1, 0.2]\n",
                               "wide");
  try {
    h::expand_grid(h::load_preset(p2));
    FAIL() << "accepted a grid of 2e6 cells";
  } catch (const h::preset_error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 1000000 cells"), std::string::npos) << e.what();
  }
  // A large range that is allowed de-duplicates in O(k log k): 1e5 integer points over a
  // narrow range collapse to the distinct values.
  const auto p3 = write_preset("integrity_test_power_law",
                               "n = { geometric = [1, 1000], points = 100000, integer = true }\n",
                               "dedup");
  EXPECT_EQ(h::load_preset(p3).grid.front().values.size(), 1000u);
}

}  // namespace
