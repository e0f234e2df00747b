// `dpx run PRESET --set key=value` (docs/presets.md, "Overrides"), on the real dpx executable:
// - a run with overrides of [grid], [fixed], [experiment] (bare name), [quick]-shadowed keys and
//   a [[rate]] field writes tidy.csv, summary.csv and rates.json byte-identical to a run of the
//   preset file edited by hand (an independent route: text edits, no --set), and report.md
//   identical up to its provenance section, which lists the overrides;
// - the manifest records the overrides in order, and `dpx report` reuses them;
// - an override the file would reject (wrong type, out-of-range count, unknown key, bad TOML)
//   exits 2 with one line naming the override and creates no output directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;
using dpx::test::outcome;
using dpx::test::slurp;

const fs::path presets = DPX_INTEGRATION_PRESETS;

std::string replace_line(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string without_provenance(const std::string& md) {
  return md.substr(0, md.find("## Provenance"));
}

class Overrides : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = dpx::test::fresh_test_dir("dpx_overrides_"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  outcome run(const std::vector<std::string>& args) {
    return dpx::test::run_dpx(args, dir_, {{"DPX_EXPERIMENTS_DIR", presets.string()}});
  }
  fs::path dir_;
};

TEST_F(Overrides, SetRunEqualsEditedFileRunBitForBit) {
  const fs::path original = presets / "synthetic_rate" / "preset.toml";
  // --quick with overrides of keys that [quick] also sets: the command line wins.
  const std::vector<std::string> sets = {"--set",
                                         "grid.n={ geometric = [100, 10000], points = 4, "
                                         "integer = true }",
                                         "--set",
                                         "replications=30",
                                         "--set",
                                         "noise=0.2",
                                         "--set",
                                         "experiment.base_seed=12",
                                         "--set",
                                         "rate.0.tolerance=0.15"};
  std::vector<std::string> args = {"run",
                                   original.string(),
                                   "--quick",
                                   "--out",
                                   "set",
                                   "--quiet",
                                   "--no-figures",
                                   "--threads",
                                   "2"};
  args.insert(args.end(), sets.begin(), sets.end());
  const outcome a = run(args);
  ASSERT_EQ(a.code, 0) << a.err;

  std::string text = slurp(original);
  text = replace_line(text,
                      "n = { geometric = [100, 100000], points = 5, integer = true }",
                      "n = { geometric = [100, 10000], points = 4, integer = true }");
  text = replace_line(text, "replications = 60", "replications = 30");
  text = replace_line(text, "[quick]\nreplications = 20\n", "");
  text = replace_line(text, "noise = 0.3", "noise = 0.2");
  text = replace_line(text, "base_seed = 11", "base_seed = 12");
  text = replace_line(text, "tolerance = 0.1", "tolerance = 0.15");
  const fs::path edited = dir_ / "edited.toml";
  std::ofstream(edited) << text;
  const outcome b = run({"run",
                         edited.string(),
                         "--quick",
                         "--out",
                         "file",
                         "--quiet",
                         "--no-figures",
                         "--threads",
                         "1"});
  ASSERT_EQ(b.code, 0) << b.err;

  const std::string tidy = slurp(dir_ / "set" / "tidy.csv");
  EXPECT_EQ(std::count(tidy.begin(), tidy.end(), '\n'), 1 + 4 * 30);
  for (const char* f : {"tidy.csv", "summary.csv", "rates.json", "rates.csv"}) {
    EXPECT_EQ(slurp(dir_ / "set" / f), slurp(dir_ / "file" / f)) << f;
  }
  EXPECT_EQ(without_provenance(slurp(dir_ / "set" / "report.md")),
            without_provenance(slurp(dir_ / "file" / "report.md")));
  EXPECT_NE(slurp(dir_ / "set" / "rates.json").find("\"tolerance\": 0.15"), std::string::npos);

  const auto m = nlohmann::json::parse(slurp(dir_ / "set" / "manifest.json"));
  const std::vector<std::string> recorded = m.at("overrides");
  ASSERT_EQ(recorded.size(), 5u);
  EXPECT_EQ(recorded[1], "replications=30");
  EXPECT_EQ(recorded[4], "rate.0.tolerance=0.15");
  EXPECT_TRUE(
      nlohmann::json::parse(slurp(dir_ / "file" / "manifest.json")).at("overrides").empty());
  EXPECT_NE(slurp(dir_ / "set" / "report.md").find("| overrides (--set) | grid.n="),
            std::string::npos);

  // dpx report merges the blocks of the overridden grid (it reads the overrides back).
  fs::remove(dir_ / "set" / "tidy.csv");
  const outcome r = run({"report", original.string(), "--out", "set", "--no-figures"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(dir_ / "set" / "tidy.csv"), slurp(dir_ / "file" / "tidy.csv"));
}

TEST_F(Overrides, InvalidOverrideExitsTwoBeforeAnyCompute) {
  struct bad {
    std::string set;
    std::string expect;  // in the one-line message
  };
  for (const bad& b : {bad{"replications=0", "--set replications"},
                       bad{"experiment.replications=\"many\"", "--set experiment.replications"},
                       bad{"grid.n=[100, 1000", "not a TOML value"},
                       bad{"no_such_key=1", "not a key of [experiment], [grid] or [fixed]"},
                       bad{"fixed.no_such_param=1", "no_such_param"},
                       bad{"rate.3.tolerance=1", "past the end"},
                       bad{"noise", "expected key=value"}}) {
    const outcome o = run({"run", "synthetic_rate", "--out", "bad", "--set", b.set});
    EXPECT_EQ(o.code, 2) << b.set << ": " << o.err;
    EXPECT_NE(o.err.find(b.expect), std::string::npos) << b.set << ": " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_FALSE(fs::exists(dir_ / "bad")) << b.set;
  }
}

}  // namespace
