// Negative controls and ratio checks of [[rate]] (docs/presets.md, "Controls" and "Ratio
// checks"). Properties checked, each against values computed independently of the harness:
// - a control that removes the effect (the toy driver's y = n^-1 becomes flat) fails the same
//   check, so the gated check passes and `dpx run --check` (run_result::rates_ok) passes;
// - a control that does not touch the effect (a constant factor on y) passes the check too:
//   "no power", the gate fails and rates_ok is false;
// - control cells are distinct cells (own keys and streams, even for a no-op override), cover
//   only the rate's where/fit_range subset, are shared by rates with equal overrides, appear in
//   tidy.csv with the control column and are left out of summary.csv;
// - ratio_flat passes on a ratio constant in x and fails on a ratio growing like x^0.5;
//   ratio_bound passes when every x's upper interval end is <= bound_constant and fails when
//   one x exceeds it or the interval reaches past it;
// - the new [[rate]] keys are validated strictly, with messages naming the key.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "dpx/harness/analysis.hpp"
#include "dpx/harness/preset.hpp"
#include "dpx/harness/runner.hpp"

namespace {

namespace fs = std::filesystem;
namespace h = dpx::harness;

// y = scale * n^-1 * (1 + 0.2 (u - 1/2)) with effect = "on", y = scale * (1 + 0.2 (u - 1/2))
// with effect = "off" (the effect is absent), u uniform from the cell's noise stream.
h::driver make_toy() {
  h::driver d;
  d.name = "controls_test_toy";
  d.version = "1";
  d.params = {{"n", "sample size", std::nullopt},
              {"effect", "on or off", h::param_value{std::string("on")}},
              {"scale", "constant factor", h::param_value{1.0}},
              {"group", "a label", h::param_value{std::string("a")}}};
  d.metric_names = {"y"};
  d.run = [](const h::cell_context& c) {
    auto g = c.stream(dpx::rng::purpose::noise);
    const double u = dpx::rng::uniform01(g);
    const double n = static_cast<double>(c.params.get_int("n"));
    const double base = c.params.get_string("effect") == "on" ? 1 / n : 1.0;
    return h::metrics{{"y", c.params.get_double("scale") * base * (1 + 0.2 * (u - 0.5))}};
  };
  return d;
}
const h::driver_registrar reg_toy{make_toy()};

const std::string header =
    "[experiment]\nname = \"toy\"\ndriver = \"controls_test_toy\"\nbase_seed = 11\n"
    "replications = 40\nreplication_block = 40\n[grid]\nn = [10, 20, 40, 80, 160]\n";

h::preset parse(const std::string& rates) { return h::parse_preset(header + rates, "toy.toml"); }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ControlsRun : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("dpx_controls_") + info->name());
    fs::remove_all(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  h::run_result run(const std::string& rates) {
    h::run_options o;
    o.out_dir = dir_;
    o.threads = 1;
    o.quiet = true;
    o.figures = false;
    return h::run_preset(parse(rates), o);
  }
  fs::path dir_;
};

const h::rate_result& find(const std::vector<h::rate_result>& rs,
                           const std::string& name,
                           bool control) {
  for (const auto& r : rs)
    if (r.rate == name && r.control == control) return r;
  throw std::runtime_error("no result " + name);
}

TEST_F(ControlsRun, ControlThatRemovesTheEffectFailsSoTheGatePasses) {
  const auto res =
      run("[[rate]]\nname = \"y_n\"\nx = \"n\"\ny = \"y\"\nexpected_slope = -1\ntolerance = 0.1\n"
          "claim = \"toy.claim\"\ncontrol = { effect = \"off\" }\n"
          "control_description = \"effect off: y is flat in n\"\n");
  const auto& main = find(res.rates, "y_n", false);
  const auto& ctrl = find(res.rates, "y_n", true);
  EXPECT_TRUE(main.check_pass);
  EXPECT_FALSE(ctrl.check_pass);
  // The control's slope is 0 up to noise (|slope| < 0.1: y's spread is +-10% at every n).
  EXPECT_LT(std::fabs(ctrl.slope), 0.1);
  EXPECT_EQ(main.control_verdict, "fails");
  EXPECT_TRUE(main.pass);
  EXPECT_TRUE(ctrl.informational);
  EXPECT_EQ(main.claims, std::vector<std::string>{"toy.claim"});
  EXPECT_EQ(res.rates_checked, 1u);
  EXPECT_TRUE(res.rates_ok());
  // 5 grid cells + 5 control cells; tidy.csv marks the control rows, summary.csv has none.
  EXPECT_EQ(res.counts.cells, 10u);
  const std::string tidy = slurp(dir_ / "tidy.csv");
  EXPECT_NE(tidy.find("p_control"), std::string::npos);
  EXPECT_NE(tidy.find("effect=off"), std::string::npos);
  const std::string summary = slurp(dir_ / "summary.csv");
  EXPECT_EQ(summary.find("p_control"), std::string::npos);
  EXPECT_EQ(summary.find(",off,"), std::string::npos);
  const std::string md = slurp(dir_ / "rates.md");
  EXPECT_NE(md.find("y_n [control]"), std::string::npos);
  EXPECT_NE(md.find("fails (has power)"), std::string::npos);
  EXPECT_NE(md.find("effect off: y is flat in n"), std::string::npos);
  EXPECT_NE(slurp(dir_ / "rates.tex").find("Control"), std::string::npos);
  EXPECT_NE(slurp(dir_ / "report.md").find("negative-control cells"), std::string::npos);
  // rates.json round-trips the verdicts.
  const auto back = h::read_rates_json(dir_ / "rates.json");
  ASSERT_EQ(back.size(), res.rates.size());
  EXPECT_EQ(find(back, "y_n", false).control_verdict, "fails");
  EXPECT_TRUE(find(back, "y_n", false).pass);
}

TEST_F(ControlsRun, ControlWithoutEffectMeansNoPowerAndFailsTheGate) {
  // scale = 2 multiplies y by a constant: the slope in n is still -1, so the control passes.
  const auto res =
      run("[[rate]]\nname = \"y_n\"\nx = \"n\"\ny = \"y\"\nexpected_slope = -1\ntolerance = 0.1\n"
          "control = { scale = 2.0 }\n");
  const auto& main = find(res.rates, "y_n", false);
  const auto& ctrl = find(res.rates, "y_n", true);
  EXPECT_TRUE(main.check_pass);
  EXPECT_TRUE(ctrl.check_pass);
  EXPECT_EQ(main.control_verdict, "passes");
  EXPECT_FALSE(main.pass);
  EXPECT_FALSE(res.rates_ok());
  EXPECT_NE(slurp(dir_ / "rates.md").find("FAIL (no power)"), std::string::npos);
}

TEST_F(ControlsRun, UncontrolledGatedCheckIsReportedAsSuch) {
  const auto res =
      run("[[rate]]\nname = \"y_n\"\nx = \"n\"\ny = \"y\"\nexpected_slope = -1\ntolerance = 0.1\n");
  EXPECT_EQ(res.rates.size(), 1u);
  EXPECT_EQ(res.rates[0].control_verdict, "none");
  EXPECT_TRUE(res.rates[0].pass);
  EXPECT_EQ(res.counts.cells, 5u);
  EXPECT_EQ(slurp(dir_ / "tidy.csv").find("p_control"), std::string::npos);
}

TEST(ControlCells, CoverTheCheckedSubsetWithDistinctKeysAndAreShared) {
  const h::preset p = parse(
      "group = [\"a\", \"b\"]\n"
      "[[rate]]\nname = \"r1\"\nx = \"n\"\ny = \"y\"\nexpected_slope = -1\nwhere = { group = "
      "\"a\" }\nfit_range = [20, 80]\ncontrol = { scale = 1.0 }\n"
      "[[rate]]\nname = \"r2\"\nx = \"n\"\ny = \"y\"\nexpected_slope = -1\nwhere = { group = "
      "\"a\" }\ncontrol = { scale = 1.0 }\n");
  const auto cells = h::expand_grid(p);
  // 10 grid cells; r1 covers group a with n in [20, 80] (3 cells), r2 all of group a (5
  // cells, 3 of them r1's): 5 distinct control cells although scale = 1 is the default.
  ASSERT_EQ(cells.size(), 15u);
  std::set<std::string> keys;
  std::size_t control = 0;
  for (const auto& c : cells) {
    keys.insert(c.key);
    const std::string mark = c.params.get_string("control");
    if (!mark.empty()) {
      ++control;
      EXPECT_EQ(mark, "scale=1");
      EXPECT_EQ(c.params.get_string("group"), "a");
    }
  }
  EXPECT_EQ(control, 5u);
  EXPECT_EQ(keys.size(), 15u);
}

// A tidy table with one row per (x, rep) and the given y(x, rep).
template <class F>
h::tidy_table table(const std::vector<double>& xs, int reps, F y) {
  h::tidy_table t;
  t.param_names = {"x"};
  t.metric_names = {"y"};
  for (const double x : xs) {
    for (int r = 0; r < reps; ++r) {
      h::tidy_row row;
      row.cell_id = "cell" + h::format_number(x);
      row.rep = static_cast<std::uint32_t>(r);
      row.params = {h::format_number(x)};
      row.metrics = {y(x, r)};
      t.rows.push_back(row);
    }
  }
  h::sort_rows(t);
  return t;
}

h::rate_spec ratio_spec(h::rate_kind kind) {
  h::rate_spec s;
  s.name = "ratio";
  s.x = "x";
  s.y = "y";
  s.kind = kind;
  s.tolerance = 0.1;
  return s;
}

TEST(RatioChecks, FlatPassesOnAConstantRatioAndFailsOnAGrowingOne) {
  h::analysis_options o;
  o.bootstrap = 500;
  const std::vector<double> xs{1, 2, 4, 8, 16};
  // measured/oracle = 3 (1 +- 5%): log-log slope 0 up to noise.
  const auto flat =
      table(xs, 30, [](double, int r) { return 3 * (1 + 0.05 * ((r % 2) ? 1 : -1)); });
  auto res = h::fit_rates(flat, {ratio_spec(h::rate_kind::ratio_flat)}, o);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_NEAR(res[0].slope, 0, 1e-12);  // the same two values at every x: slope exactly 0
  EXPECT_TRUE(res[0].pass);
  // measured/oracle = sqrt(x): the theory misses a factor x^0.5; slope 0.5 exactly.
  const auto grow = table(xs, 30, [](double x, int) { return std::sqrt(x); });
  res = h::fit_rates(grow, {ratio_spec(h::rate_kind::ratio_flat)}, o);
  EXPECT_NEAR(res[0].slope, 0.5, 1e-12);
  EXPECT_FALSE(res[0].pass);
}

TEST(RatioChecks, BoundPassesBelowTheConstantAndFailsAboveOrWhenUncertain) {
  h::analysis_options o;
  o.bootstrap = 500;
  const std::vector<double> xs{1, 2, 4};
  auto spec = ratio_spec(h::rate_kind::ratio_bound);
  spec.bound_constant = 1;
  // Deterministic ratios 0.5, 0.6, 0.7: max 0.7, interval of zero width.
  const auto below = table(xs, 10, [](double x, int) { return 0.4 + 0.1 * std::log2(x) + 0.1; });
  auto res = h::fit_rates(below, {spec}, o);
  EXPECT_NEAR(res[0].value, 0.7, 1e-12);
  EXPECT_NEAR(res[0].value_hi, 0.7, 1e-12);
  EXPECT_TRUE(res[0].pass);
  // One x at 1.2: fails.
  const auto above = table(xs, 10, [](double x, int) { return x == 4 ? 1.2 : 0.5; });
  res = h::fit_rates(above, {spec}, o);
  EXPECT_NEAR(res[0].value, 1.2, 1e-12);
  EXPECT_FALSE(res[0].pass);
  // Mean 0.98 with values 0.88/1.08 (se = 0.1 / sqrt(40) ~ 0.016): the upper end of the 95%
  // interval is ~ 0.98 + 1.96 * 0.016 = 1.011 > 1, so the bound is not established.
  const auto close = table(xs, 40, [](double, int r) { return (r % 2) ? 1.08 : 0.88; });
  res = h::fit_rates(close, {spec}, o);
  EXPECT_NEAR(res[0].value, 0.98, 1e-12);
  EXPECT_GT(res[0].value_hi, 1.0);
  EXPECT_FALSE(res[0].pass);
  // The same with bound_constant = 1.1 passes (upper end ~ 1.01 < 1.1).
  spec.bound_constant = 1.1;
  res = h::fit_rates(close, {spec}, o);
  EXPECT_LT(res[0].value_hi, 1.05);
  EXPECT_TRUE(res[0].pass);
}

TEST(RatioChecks, LevelBandNeedsTheWholeIntervalInsideIt) {
  h::analysis_options o;
  o.bootstrap = 500;
  const std::vector<double> xs{1, 2, 4};
  auto spec = ratio_spec(h::rate_kind::ratio_bound);
  spec.bound_constant = 1.1;
  spec.bound_lower = 0.9;
  // Mean 1.0 with values 0.95/1.05 (se = 0.05 / sqrt(40) ~ 0.008): interval ~ [0.984, 1.016].
  const auto level = table(xs, 40, [](double, int r) { return (r % 2) ? 1.05 : 0.95; });
  auto res = h::fit_rates(level, {spec}, o);
  EXPECT_NEAR(res[0].bound_lower, 0.9, 1e-12);
  EXPECT_GT(res[0].value_lo, 0.95);
  EXPECT_LT(res[0].value_lo, 1.0);
  EXPECT_TRUE(res[0].pass);
  // One x at 0.55 (noise at sqrt(2) eps labelled eps halves the privacy MSE): below the band.
  // Without the lower bound the same table passes, which is why the level needs both ends.
  const auto low = table(
      xs, 40, [](double x, int r) { return (x == 2 ? 0.55 : 1.0) + ((r % 2) ? 0.05 : -0.05); });
  res = h::fit_rates(low, {spec}, o);
  EXPECT_LT(res[0].value_lo, 0.6);
  EXPECT_FALSE(res[0].pass);
  auto upper_only = spec;
  upper_only.bound_lower = 0;
  res = h::fit_rates(low, {upper_only}, o);
  EXPECT_TRUE(std::isnan(res[0].value_lo));
  EXPECT_TRUE(res[0].pass);
  // Mean 0.92 with values 0.72/1.12 (se ~ 0.2 / sqrt(40) = 0.032): the lower end ~ 0.86 < 0.9,
  // the level is not established although the statistic is inside the band.
  const auto wide = table(xs, 40, [](double, int r) { return (r % 2) ? 1.12 : 0.72; });
  res = h::fit_rates(wide, {spec}, o);
  EXPECT_LT(res[0].value_lo, 0.9);
  EXPECT_FALSE(res[0].pass);
}

TEST(RatioChecks, ControlMissingFromTheTableFailsTheGate) {
  h::analysis_options o;
  o.bootstrap = 200;
  auto t = table({1, 2, 4}, 5, [](double x, int) { return 1 / x; });
  t.param_names.push_back("control");
  for (auto& row : t.rows) row.params.push_back("");
  h::rate_spec s;
  s.name = "r";
  s.x = "x";
  s.y = "y";
  s.expected_slope = -1;
  s.control["x2"] = std::string("off");  // not a parameter of the table
  EXPECT_THROW(h::fit_rates(t, {s}, o), std::invalid_argument);
  // With an overridable parameter column but no row labelled "x2=off".
  auto t2 = table({1, 2, 4}, 5, [](double x, int) { return 1 / x; });
  t2.param_names = {"control", "x", "x2"};
  for (auto& row : t2.rows) row.params = {"", row.params[0], "on"};
  const auto res = h::fit_rates(t2, {s}, o);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_TRUE(res[0].check_pass);
  EXPECT_EQ(res[0].control_verdict, "missing");
  EXPECT_FALSE(res[0].pass);
}

void expect_rejected(const std::string& rate, const std::string& needle) {
  try {
    parse(rate);
    ADD_FAILURE() << "accepted: " << rate;
  } catch (const h::preset_error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(ControlSyntax, NewRateKeysAreValidatedNamingTheKey) {
  const std::string base = "[[rate]]\nx = \"n\"\ny = \"y\"\n";
  expect_rejected(base + "expected_slope = -1\ncontrol = \"off\"\n", ".control must be a table");
  expect_rejected(base + "expected_slope = -1\ncontrol = { nosuch = 1 }\n", "nosuch");
  expect_rejected(base + "expected_slope = -1\ncontrol = { n = 5 }\n", "must not override x");
  expect_rejected(base + "expected_slope = -1\ncontrol = { effect = 3 }\n", "effect");
  expect_rejected(base + "expected_slope = -1\ncontrol = {}\n", "is empty");
  expect_rejected(base +
                      "expected_slope = -1\ncontrol = { effect = \"off\" }\n"
                      "control_replications = 10\n",
                  "control_replications");
  expect_rejected(base + "expected_slope = -1\ncontrol_description = \"x\"\n", "needs 'control'");
  expect_rejected(base + "expected_slope = -1\nkind = \"curve\"\n", ".kind = 'curve'");
  expect_rejected(base + "kind = \"ratio_flat\"\nexpected_slope = 1\n", "must be 0");
  expect_rejected(base + "expected_slope = -1\nbound_constant = 2\n", "needs kind");
  expect_rejected(base + "kind = \"ratio_bound\"\nbound_constant = -1\n", "bound_constant");
  expect_rejected(base + "expected_slope = -1\nbound_lower = 0.5\n", "needs kind");
  expect_rejected(base + "kind = \"ratio_bound\"\nbound_lower = 0\n", "bound_lower");
  expect_rejected(base + "kind = \"ratio_bound\"\nbound_lower = 1.5\n", "< bound_constant");
  expect_rejected(base + "expected_slope = -1\nclaim = 3\n", ".claim");
  // Accepted forms: claim as a string or a list; ratio kinds without expected_slope.
  const auto p = parse(base +
                       "expected_slope = -1\nclaim = [\"a.1\", \"b.2\"]\n"
                       "[[rate]]\nname = \"f\"\nx = \"n\"\ny = \"y\"\nkind = "
                       "\"ratio_flat\"\n[[rate]]\nname = \"b\"\nx = \"n\"\ny = \"y\"\n"
                       "kind = \"ratio_bound\"\nbound_constant = 2.5\nbound_lower = 0.5\n");
  ASSERT_EQ(p.rates.size(), 3u);
  EXPECT_EQ(p.rates[0].claims, (std::vector<std::string>{"a.1", "b.2"}));
  EXPECT_EQ(p.rates[1].kind, h::rate_kind::ratio_flat);
  EXPECT_EQ(p.rates[1].expected_slope, 0);
  EXPECT_EQ(p.rates[2].kind, h::rate_kind::ratio_bound);
  EXPECT_EQ(p.rates[2].bound_constant, 2.5);
  EXPECT_EQ(p.rates[2].bound_lower, 0.5);
}

}  // namespace
