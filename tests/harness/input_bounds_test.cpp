// Bounds on what one run may ask for and where it may write (docs/presets.md, "Limits"):
// - `--set` given twice for one key (by any of its spellings) is an error naming the key;
// - a TOML key repeated in a preset is an error (toml++ refuses a redefinition);
// - a run with more than max_run_blocks blocks, or whose results would exceed
//   max_run_memory_bytes, is refused by expand_grid naming replications / replication_block,
//   before any block is planned;
// - a stop request is read before every replication: the block in flight is abandoned, no
//   replication runs after the request, and resuming matches an uninterrupted run;
// - a results directory that is not empty and not dpx's (no .dpx.lock) is refused and left
//   untouched; an empty directory and a dpx results directory are used.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../../experiments/synthetic/synthetic.hpp"
#include "dpx/harness/runner.hpp"

namespace {

namespace fs = std::filesystem;
namespace h = dpx::harness;

const h::driver_registrar reg_power{
    dpx::experiments::make_synthetic_power_law("input_bounds_power_law")};

// Raises g_stop at the g_stop_at-th replication (what the SIGINT handler does) and counts calls.
std::atomic<bool> g_stop{false};
std::atomic<int> g_calls{0};
std::atomic<int> g_stop_at{-1};
h::driver make_stopper() {
  h::driver d = dpx::experiments::make_synthetic_power_law("input_bounds_stopper");
  auto inner = d.run;
  d.run = [inner](const h::cell_context& c) {
    if (g_calls.fetch_add(1) + 1 == g_stop_at.load()) g_stop.store(true);
    return inner(c);
  };
  return d;
}
const h::driver_registrar reg_stopper{make_stopper()};

std::string preset_text(const std::string& driver,
                        long long replications,
                        long long block,
                        const std::string& extra = "") {
  return "[experiment]\nname = \"b\"\ndriver = \"" + driver + "\"\nbase_seed = 1\n" +
         "replications = " + std::to_string(replications) +
         "\nreplication_block = " + std::to_string(block) + "\n[grid]\nn = [10, 20]\n" + extra;
}

std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    (void)h::expand_grid(h::parse_preset(text, "b.toml", false, sets));
  } catch (const h::preset_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(InputBounds, SetGivenTwiceForOneKeyIsAnError) {
  const std::string text = preset_text("input_bounds_power_law", 4, 2, "[fixed]\nslope = -1\n");
  EXPECT_EQ(error_of(text, {"grid.n=[1]", "replications=3", "slope=-0.5"}), "(no error)");
  const std::vector<std::vector<std::string>> twice = {
      {"replications=3", "replications=4"},
      {"replications=3", "experiment.replications=4"},
      {"grid.n=[1]", "n=[2]"},
      {"grid.n=[1]", "fixed.n=2"},
      {"slope=-0.5", "fixed.slope=-2"},
  };
  for (const auto& sets : twice) {
    const std::string m = error_of(text, sets);
    EXPECT_NE(m.find("--set " + sets[1]), std::string::npos) << m;
    EXPECT_NE(m.find("is already set by --set " + sets[0]), std::string::npos) << m;
  }
  EXPECT_NE(error_of(text, {"n=[1]", "n=[2]"}).find("key 'n'"), std::string::npos);
}

TEST(InputBounds, RepeatedTomlKeysAreRefused) {
  const std::string m =
      error_of(preset_text("input_bounds_power_law", 4, 2, "[fixed]\nslope = -1\nslope = -2\n"));
  EXPECT_NE(m.find("slope"), std::string::npos) << m;
  EXPECT_NE(m.find("TOML syntax error"), std::string::npos) << m;
}

TEST(InputBounds, TooManyBlocksAreRefusedNamingTheKeys) {
  // Each count within [1, 1e8]: 2 cells x 1e8 blocks of one replication.
  const std::string m = error_of(preset_text("input_bounds_power_law", 100000000, 1));
  EXPECT_NE(m.find("200000000 blocks"), std::string::npos) << m;
  EXPECT_NE(m.find("replication_block"), std::string::npos) << m;
  // At the cap: 2 cells x 500000 blocks is planned.
  EXPECT_EQ(error_of(preset_text("input_bounds_power_law", 500000, 1)), "(no error)");
  EXPECT_NE(error_of(preset_text("input_bounds_power_law", 500001, 1)).find("blocks"),
            std::string::npos);
  // The [quick] counts are bounded too.
  const std::string q = preset_text(
      "input_bounds_power_law", 4, 2, "[quick]\nreplications = 100000000\nreplication_block = 1\n");
  try {
    (void)h::expand_grid(h::parse_preset(q, "b.toml", true));
    ADD_FAILURE() << "the quick grid was not bounded";
  } catch (const h::preset_error& e) {
    EXPECT_NE(std::string(e.what()).find("[quick]"), std::string::npos) << e.what();
  }
}

TEST(InputBounds, ResultsTooLargeForMemoryAreRefused) {
  // 2 cells x 1e8 replications in blocks of 1e6: 200 blocks, but 2e8 rows of results (each
  // row is at least sizeof(tidy_row) bytes, so far above max_run_memory_bytes).
  const std::string m = error_of(preset_text("input_bounds_power_law", 100000000, 1000000));
  EXPECT_NE(m.find("MiB"), std::string::npos) << m;
  EXPECT_NE(m.find("replications"), std::string::npos) << m;
  const h::preset p = h::parse_preset(preset_text("input_bounds_power_law", 1000, 100), "b.toml");
  const auto cells = h::expand_grid(p);
  EXPECT_GE(h::run_memory_estimate(p, cells), 2u * 1000u * sizeof(h::tidy_row));
  EXPECT_LT(h::run_memory_estimate(p, cells), h::max_run_memory_bytes);
}

class InputBoundsRun : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("dpx_input_bounds_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  h::run_options options(const std::string& driver, const std::string& out) {
    const fs::path path = dir_ / "p.toml";
    std::ofstream(path) << preset_text(driver, 20, 10);
    h::run_options o;
    o.preset = path.string();
    o.out_dir = dir_ / out;
    o.threads = 1;
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
  fs::path dir_;
};

TEST_F(InputBoundsRun, StopIsReadBeforeEveryReplication) {
  auto o = options("input_bounds_stopper", "out");
  o.stop = &g_stop;
  g_stop = false;
  g_calls = 0;
  g_stop_at = 15;  // the fifth replication of the second block (blocks of 10)
  const auto r = h::run_preset(o);
  g_stop_at = -1;
  EXPECT_EQ(r.status, h::run_status::interrupted);
  EXPECT_EQ(g_calls.load(), 15);  // no replication after the request
  EXPECT_EQ(r.counts.computed, 1u);
  g_stop = false;
  const auto resumed = h::run_preset(o);
  EXPECT_EQ(resumed.status, h::run_status::completed);
  EXPECT_EQ(resumed.counts.cached, 1u);
  EXPECT_EQ(resumed.counts.computed, 3u);
  (void)h::run_preset(options("input_bounds_stopper", "clean"));
  EXPECT_EQ(slurp(dir_ / "out" / "tidy.csv"), slurp(dir_ / "clean" / "tidy.csv"));
}

TEST_F(InputBoundsRun, ANonEmptyDirectoryThatIsNotDpxsIsRefusedAndLeftAlone) {
  fs::create_directories(dir_ / "mine");
  std::ofstream(dir_ / "mine" / "tidy.csv") << "my own file\n";
  std::ofstream(dir_ / "mine" / "report.md") << "my notes\n";
  try {
    (void)h::run_preset(options("input_bounds_power_law", "mine"));
    ADD_FAILURE() << "a user's directory was written";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a dpx results directory"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(slurp(dir_ / "mine" / "tidy.csv"), "my own file\n");
  EXPECT_EQ(slurp(dir_ / "mine" / "report.md"), "my notes\n");
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir_ / "mine")) entries += e.exists() ? 1 : 0;
  EXPECT_EQ(entries, 2u);
  // An empty directory is used, and a dpx results directory is used again.
  fs::create_directories(dir_ / "empty");
  EXPECT_EQ(h::run_preset(options("input_bounds_power_law", "empty")).status,
            h::run_status::completed);
  EXPECT_EQ(h::run_preset(options("input_bounds_power_law", "empty")).status,
            h::run_status::completed);
  // A directory claimed for several presets (dpx run --all --out DIR) is dpx's afterwards.
  h::claim_results_dir(dir_ / "all");
  std::ofstream(dir_ / "all" / "index.html") << "x";
  EXPECT_NO_THROW(h::claim_results_dir(dir_ / "all"));
  EXPECT_THROW(h::claim_results_dir(dir_ / "mine"), std::invalid_argument);
  // A folder of results directories of earlier versions (no .dpx.lock of its own) is dpx's.
  fs::create_directories(dir_ / "old" / "preset_a");
  std::ofstream(dir_ / "old" / "preset_a" / ".dpx.lock").flush();
  std::ofstream(dir_ / "old" / "index.html") << "x";
  EXPECT_NO_THROW(h::claim_results_dir(dir_ / "old"));
  EXPECT_TRUE(fs::exists(dir_ / "old" / ".dpx.lock"));
}

}  // namespace
