// The gated checks of the central-mean presets (dd_central_mean, dd_user_split; docs/experiments/
// dd_central_mean.md, dd_user_split.md) that ControlsSmoke does not run (it runs one check per
// preset): each passes on a reduced quick grid and its negative control fails, through the real
// `dpx run --quick`. The reduced grids keep the quick form's cells of the checks (same seeds,
// same replications), so each case reproduces the quick run's rows of those checks exactly.
// About 15 s CPU in total.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;
using dpx::test::fresh_test_dir;
using dpx::test::run_dpx;
using dpx::test::slurp;

struct checks_case {
  std::string name;                ///< test name
  std::string preset;              ///< under experiments/
  std::vector<std::string> sets;   ///< `--set` overrides of the reduced grid
  std::vector<std::string> rates;  ///< the gated, controlled checks asserted
};

const std::vector<checks_case>& cases() {
  static const std::vector<checks_case> t = {
      // d in {2, 4, 8, 16} at n = 16000, both estimators (18 cells with the controls).
      {"central_d_checks",
       "dd_central_mean",
       {"grid.n=[16000]"},
       {"alg5_privacy_vs_d", "split_tracks_rate_vs_d"}},
      // The sample split at d = 16, the quick form's three n (n = 8000 is excluded for it).
      {"central_split_n",
       "dd_central_mean",
       {"grid.estimator=split", "grid.d=[16]"},
       {"split_tracks_rate_vs_n"}},
      // Both checks of Cor 5.6 (the whole quick form: about 1 s).
      {"user_split", "dd_user_split", {}, {"error_1_over_T", "failure_term_does_not_shrink"}},
  };
  return t;
}

// Readable test parameters in gtest's and CTest's output (instead of the struct's bytes).
void PrintTo(const checks_case& c, std::ostream* os) { *os << c.preset << " / " << c.name; }

class CentralChecks : public ::testing::TestWithParam<checks_case> {};

TEST_P(CentralChecks, PassAndControlsFail) {
  const checks_case& c = GetParam();
  const fs::path preset = fs::path(DPX_TEST_SOURCE_DIR) / "experiments" / c.preset / "preset.toml";
  const fs::path dir = fresh_test_dir("central_checks_");
  std::vector<std::string> args{"run",
                                preset.string(),
                                "--quick",
                                "--out",
                                (dir / "out").string(),
                                "--threads",
                                "1",
                                "--quiet",
                                "--no-figures"};
  for (const auto& s : c.sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  const auto r = run_dpx(args, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = nlohmann::json::parse(slurp(dir / "out" / "rates.json"));
  for (const auto& rate : c.rates) {
    std::size_t checks = 0, controls = 0;
    for (const auto& row : rows) {
      if (row.at("rate") != rate) continue;
      const std::string group = row.at("group").get<std::string>();
      if (row.at("control").get<bool>()) {
        ++controls;
        EXPECT_FALSE(row.at("check_pass").get<bool>())
            << rate << " [control] group '" << group << "' passes: slope " << row.at("slope");
      } else {
        ++checks;
        EXPECT_TRUE(row.at("check_pass").get<bool>())
            << rate << " group '" << group << "' fails: slope " << row.at("slope") << " ["
            << row.at("ci_lo") << ", " << row.at("ci_hi") << "]";
        EXPECT_EQ(row.at("control_verdict"), "fails") << rate << " " << group;
        EXPECT_TRUE(row.at("pass").get<bool>()) << rate << " " << group;
      }
    }
    EXPECT_GE(checks, 1u) << "no row of " << rate;
    EXPECT_GE(controls, 1u) << "no control row of " << rate;
  }
}

INSTANTIATE_TEST_SUITE_P(Presets,
                         CentralChecks,
                         ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<checks_case>& i) {
                           return i.param.name;
                         });

}  // namespace
