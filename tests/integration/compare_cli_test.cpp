// `dpx compare RUN_A RUN_B` on results of the real dpx executable:
// - a run against itself: every summary identical, no verdict changed, --check exits 0;
// - the same grid with another seed: the same cells, none identical; each listed difference
//   equals mean_b - mean_a read independently from the two summary.csv files, and its z is
//   that difference over sqrt(se_a^2 + se_b^2);
// - a run whose rate check fails against one where it passes (slope -0.25 vs -0.5): the
//   verdict change is reported and --check exits 1;
// - a missing directory exits 2.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;
using dpx::test::outcome;
using dpx::test::slurp;
using json = nlohmann::json;

const fs::path presets = DPX_INTEGRATION_PRESETS;

// (cell_id, metric) -> {mean, se}, parsed here (no quoted fields in these files).
std::map<std::pair<std::string, std::string>, std::pair<double, double>> summary(
    const fs::path& p) {
  std::istringstream in(slurp(p));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  for (std::istringstream h(line); std::getline(h, line, ',');) header.push_back(line);
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> out;
  std::string row;
  while (std::getline(in, row)) {
    std::vector<std::string> f;
    for (std::istringstream r(row); std::getline(r, line, ',');) f.push_back(line);
    std::map<std::string, std::string> m;
    for (std::size_t i = 0; i < header.size() && i < f.size(); ++i) m[header[i]] = f[i];
    out[{m["cell_id"], m["metric"]}] = {std::stod(m["mean"]), std::stod(m["se"])};
  }
  return out;
}

class Compare : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = dpx::test::fresh_test_dir("dpx_compare_"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  outcome run(const std::vector<std::string>& args) {
    return dpx::test::run_dpx(args, dir_, {{"DPX_EXPERIMENTS_DIR", presets.string()}});
  }
  void run_ok(const std::string& out, const std::vector<std::string>& sets) {
    std::vector<std::string> args = {
        "run", "synthetic_rate", "--out", out, "--quiet", "--no-figures", "--threads", "2"};
    for (const auto& s : sets) {
      args.push_back("--set");
      args.push_back(s);
    }
    const outcome o = run(args);
    ASSERT_EQ(o.code, 0) << o.err;
  }
  fs::path dir_;
};

TEST_F(Compare, SummariesAndVerdicts) {
  run_ok("a", {});
  run_ok("b", {"base_seed=12"});
  run_ok("c", {"slope=-0.25"});

  const outcome same = run({"compare", "a", "a", "--check"});
  ASSERT_EQ(same.code, 0) << same.err;
  const json s = json::parse(same.out);
  EXPECT_EQ(s["schema_version"], 1);
  EXPECT_EQ(s["rates_changed"], 0);
  EXPECT_EQ(s["summary"]["common"], s["summary"]["identical"]);
  EXPECT_GT(s["summary"]["common"].get<int>(), 0);

  const outcome seed = run({"compare", "a", "b", "--top", "1000"});
  ASSERT_EQ(seed.code, 0) << seed.err;
  const json d = json::parse(seed.out);
  const auto sa = summary(dir_ / "a" / "summary.csv");
  const auto sb = summary(dir_ / "b" / "summary.csv");
  EXPECT_EQ(d["summary"]["common"].get<std::size_t>(), sa.size());
  EXPECT_EQ(d["summary"]["only_in_a"], 0);
  EXPECT_EQ(d["b"]["overrides"][0], "base_seed=12");
  std::size_t checked = 0;
  for (const auto& e : d["summary"]["largest_differences"]) {
    const auto key = std::pair{e["cell_id"].get<std::string>(), e["metric"].get<std::string>()};
    const auto [ma, sea] = sa.at(key);
    const auto [mb, seb] = sb.at(key);
    EXPECT_DOUBLE_EQ(e["difference"].get<double>(), mb - ma);
    if (e["z"].is_number()) {
      EXPECT_NEAR(e["z"].get<double>(), (mb - ma) / std::sqrt(sea * sea + seb * seb), 1e-12);
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);

  const outcome verdict = run({"compare", "a", "c", "--check"});
  EXPECT_EQ(verdict.code, 1) << verdict.err;
  const json v = json::parse(verdict.out);
  EXPECT_EQ(v["rates_changed"], 1);
  EXPECT_EQ(v["rates"][0]["a"]["verdict"], "pass");
  EXPECT_EQ(v["rates"][0]["b"]["verdict"], "fail");
  EXPECT_TRUE(v["rates"][0]["verdict_changed"].get<bool>());

  const outcome missing = run({"compare", "a", "no_such_dir"});
  EXPECT_EQ(missing.code, 2);
}

}  // namespace
