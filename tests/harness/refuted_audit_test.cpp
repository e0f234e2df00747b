// Refutations (expect = "refuted") and audit checks (kind = "audit") of [[rate]]
// (docs/presets.md, "Refutations" and "Audit checks"). Properties, on synthetic tidy tables
// whose verdicts follow from the numbers written into them:
// - refuted: the check must fail on the published form and the positive control must pass:
//   published fails + control passes -> pass; published passes -> not pass; control fails ->
//   not pass; control cells missing -> not pass; a check that cannot be evaluated refutes
//   nothing;
// - audit: passes when every audit (replication) at every x is <= bound_constant, fails when a
//   single audit exceeds it; value = the largest ratio, audits = their number; with a negative
//   control (noise scaled down) the gate passes only when the control violates;
// - rates.json carries "expect" and "audits" and reads older files without them;
// - the parser names the key it rejects.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "dpx/harness/analysis.hpp"
#include "dpx/harness/preset.hpp"

namespace {

namespace fs = std::filesystem;
namespace h = dpx::harness;

// A table with parameters (control, x, variant) and one row per (label, x, rep):
// y(label, x, rep) for the grid (control "") and, when with_control, for the control cells
// (control "variant=strict", variant "strict").
template <class F>
h::tidy_table table(const std::vector<double>& xs, int reps, bool with_control, F y) {
  h::tidy_table t;
  t.param_names = {"control", "variant", "x"};
  t.metric_names = {"y"};
  for (const bool ctrl : {false, true}) {
    if (ctrl && !with_control) continue;
    for (const double x : xs) {
      for (int r = 0; r < reps; ++r) {
        h::tidy_row row;
        const std::string variant = ctrl ? "strict" : "published";
        row.cell_id = variant + h::format_number(x);
        row.rep = static_cast<std::uint32_t>(r);
        row.params = {ctrl ? "variant=strict" : "", variant, h::format_number(x)};
        row.metrics = {y(ctrl, x, r)};
        t.rows.push_back(row);
      }
    }
  }
  h::sort_rows(t);
  return t;
}

h::rate_spec audit_spec(bool refuted) {
  h::rate_spec s;
  s.name = "audit";
  s.x = "x";
  s.y = "y";
  s.kind = h::rate_kind::audit;
  s.where = {{"variant", "published"}};
  s.control["variant"] = std::string("strict");
  if (refuted) s.expect = h::rate_expect::refuted;
  return s;
}

h::analysis_options opts() {
  h::analysis_options o;
  o.bootstrap = 200;
  return o;
}

const h::rate_result& main_row(const std::vector<h::rate_result>& rs) {
  for (const auto& r : rs)
    if (!r.control) return r;
  throw std::runtime_error("no main row");
}

const std::vector<double> kXs{1000, 10000};

TEST(Refuted, PublishedFailsAndPositiveControlPassesIsAReproducedRefutation) {
  // Published: an audit bound of 7 x the claim at 1e4 trials; strict: 0.3 x the claim.
  const auto t = table(
      kXs, 3, true, [](bool ctrl, double x, int) { return ctrl ? 0.3 : (x > 5000 ? 7.0 : 0.8); });
  const auto res = h::fit_rates(t, {audit_spec(true)}, opts());
  ASSERT_EQ(res.size(), 2u);
  const auto& m = main_row(res);
  EXPECT_EQ(m.expect, h::rate_expect::refuted);
  EXPECT_FALSE(m.check_pass);
  EXPECT_NEAR(m.value, 7.0, 0);
  EXPECT_EQ(m.control_verdict, "passes");
  EXPECT_TRUE(m.pass);
  const std::string md = h::rates_markdown(res);
  EXPECT_NE(md.find("refuted (reproduced)"), std::string::npos) << md;
  EXPECT_NE(md.find("positive control passes"), std::string::npos) << md;
  EXPECT_NE(md.find("(this is the positive control: variant=strict)"), std::string::npos) << md;
}

TEST(Refuted, PublishedFormThatPassesIsNotARefutation) {
  const auto t = table(kXs, 3, true, [](bool, double, int) { return 0.5; });
  const auto res = h::fit_rates(t, {audit_spec(true)}, opts());
  const auto& m = main_row(res);
  EXPECT_TRUE(m.check_pass);
  EXPECT_EQ(m.control_verdict, "passes");
  EXPECT_FALSE(m.pass);
  EXPECT_NE(h::rates_markdown(res).find("refutation NOT reproduced (the published form passes)"),
            std::string::npos);
}

TEST(Refuted, PositiveControlThatFailsIsNotARefutation) {
  // Both violate: the check cannot tell the published form from its correction.
  const auto t = table(kXs, 3, true, [](bool ctrl, double, int) { return ctrl ? 2.0 : 7.0; });
  const auto res = h::fit_rates(t, {audit_spec(true)}, opts());
  const auto& m = main_row(res);
  EXPECT_FALSE(m.check_pass);
  EXPECT_EQ(m.control_verdict, "fails");
  EXPECT_FALSE(m.pass);
  const std::string md = h::rates_markdown(res);
  EXPECT_NE(md.find("positive control FAILS"), std::string::npos) << md;
}

TEST(Refuted, MissingPositiveControlCellsIsNotARefutation) {
  const auto t = table(kXs, 3, false, [](bool, double, int) { return 7.0; });
  const auto res = h::fit_rates(t, {audit_spec(true)}, opts());
  ASSERT_EQ(res.size(), 1u);
  EXPECT_FALSE(res[0].check_pass);
  EXPECT_EQ(res[0].control_verdict, "missing");
  EXPECT_FALSE(res[0].pass);
}

TEST(Refuted, ACheckThatCannotBeEvaluatedRefutesNothing) {
  // Slope kind: the published form has two x values (a fit needs three), so check_pass is
  // false without any evidence against the claim; the positive control fits y = 1/x exactly.
  const auto t = table({1, 2, 4}, 4, true, [](bool ctrl, double x, int r) {
    return ctrl || x < 3 ? (1 / x) * (1 + 0.01 * r) : NAN;
  });
  h::rate_spec s = audit_spec(true);
  s.kind = h::rate_kind::slope;
  s.expected_slope = -1;
  const auto res = h::fit_rates(t, {s}, opts());
  const auto& m = main_row(res);
  EXPECT_FALSE(h::check_evaluated(m));
  EXPECT_EQ(m.control_verdict, "passes");
  EXPECT_FALSE(m.pass);
  // With the published form present at every x and a wrong slope (y = 1/sqrt(x)): reproduced.
  const auto t2 = table({1, 2, 4}, 4, true, [](bool ctrl, double x, int r) {
    return (ctrl ? 1 / x : 1 / std::sqrt(x)) * (1 + 0.01 * r);
  });
  const auto res2 = h::fit_rates(t2, {s}, opts());
  EXPECT_TRUE(h::check_evaluated(main_row(res2)));
  EXPECT_FALSE(main_row(res2).check_pass);
  EXPECT_TRUE(main_row(res2).pass);
}

TEST(Refuted, RatesJsonCarriesExpectAndOldFilesReadAsHolds) {
  const auto t = table(kXs, 3, true, [](bool ctrl, double, int) { return ctrl ? 0.3 : 7.0; });
  const auto res = h::fit_rates(t, {audit_spec(true)}, opts());
  const fs::path dir = fs::temp_directory_path() / "dpx_refuted_audit_test";
  fs::create_directories(dir);
  { std::ofstream(dir / "rates.json") << h::rates_json(res); }
  const std::string j = h::rates_json(res);
  EXPECT_NE(j.find("\"expect\": \"refuted\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"audits\": 6"), std::string::npos) << j;
  const auto back = h::read_rates_json(dir / "rates.json");
  ASSERT_EQ(back.size(), res.size());
  EXPECT_EQ(back[0].expect, h::rate_expect::refuted);
  EXPECT_EQ(back[0].kind, h::rate_kind::audit);
  EXPECT_EQ(back[0].audits, 6u);
  EXPECT_TRUE(back[0].pass);
  // A file written before expect existed: every row holds.
  { std::ofstream(dir / "old.json") << R"([{"rate": "r", "pass": true, "kind": "slope"}])"; }
  const auto old = h::read_rates_json(dir / "old.json");
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].expect, h::rate_expect::holds);
  EXPECT_EQ(old[0].audits, 0u);
  fs::remove_all(dir);
}

TEST(AuditCheck, PassesWhenNoAuditExceedsTheClaimAndFailsOnOne) {
  h::rate_spec s = audit_spec(false);
  s.control.clear();
  // Ratios 0.1 * (rep + 1) * x / 1e4 <= 1: the largest is 0.5 (rep 4 at x = 1e4).
  const auto below =
      table(kXs, 5, false, [](bool, double x, int r) { return 0.1 * (r + 1) * x / 10000; });
  auto res = h::fit_rates(below, {s}, opts());
  ASSERT_EQ(res.size(), 1u);
  EXPECT_TRUE(res[0].pass);
  EXPECT_NEAR(res[0].value, 0.5, 1e-15);
  EXPECT_EQ(res[0].audits, 10u);
  EXPECT_EQ(res[0].control_verdict, "none");
  // Exactly at the claim still holds (the bound is "<= claim").
  const auto at = table(kXs, 5, false, [](bool, double, int) { return 1.0; });
  EXPECT_TRUE(h::fit_rates(at, {s}, opts())[0].pass);
  // One replication of ten above the claim (a mean of 0.6 would pass a ratio_bound check).
  const auto one =
      table(kXs, 5, false, [](bool, double x, int r) { return x < 5000 && r == 2 ? 1.01 : 0.5; });
  res = h::fit_rates(one, {s}, opts());
  EXPECT_FALSE(res[0].pass);
  EXPECT_NEAR(res[0].value, 1.01, 1e-15);
  const std::string md = h::rates_markdown(res);
  EXPECT_NE(md.find("every audit ≤ 1"), std::string::npos) << md;
  EXPECT_NE(md.find("max 1.010 over 10 audits"), std::string::npos) << md;
  // A bound_constant other than 1 (e.g. the pair's exact epsilon / the claim).
  s.bound_constant = 1.02;
  EXPECT_TRUE(h::fit_rates(one, {s}, opts())[0].pass);
  // fit_range restricts the audits compared.
  s.bound_constant = 1;
  s.fit_range = std::pair{5000.0, 20000.0};
  res = h::fit_rates(one, {s}, opts());
  EXPECT_TRUE(res[0].pass);
  EXPECT_EQ(res[0].audits, 5u);
}

TEST(AuditCheck, BrokenControlMustViolate) {
  // The control (noise scaled down) violates at the larger x: the check has power.
  const auto power = table(
      kXs, 3, true, [](bool ctrl, double x, int) { return ctrl ? (x > 5000 ? 1.9 : 0.9) : 0.6; });
  auto res = h::fit_rates(power, {audit_spec(false)}, opts());
  EXPECT_TRUE(main_row(res).check_pass);
  EXPECT_EQ(main_row(res).control_verdict, "fails");
  EXPECT_TRUE(main_row(res).pass);
  // A control whose audits never exceed the claim: no power, the gate fails.
  const auto weak = table(kXs, 3, true, [](bool ctrl, double, int) { return ctrl ? 0.9 : 0.6; });
  res = h::fit_rates(weak, {audit_spec(false)}, opts());
  EXPECT_EQ(main_row(res).control_verdict, "passes");
  EXPECT_FALSE(main_row(res).pass);
}

// Parser: a toy driver with the parameters the [[rate]] tables below name.
h::driver make_toy() {
  h::driver d;
  d.name = "refuted_audit_test_toy";
  d.version = "1";
  d.params = {{"trials", "trials", std::nullopt},
              {"variant", "published or strict", h::param_value{std::string("published")}}};
  d.metric_names = {"bound_ratio"};
  d.run = [](const h::cell_context&) { return h::metrics{{"bound_ratio", 0.5}}; };
  return d;
}
const h::driver_registrar reg_toy{make_toy()};

h::preset parse(const std::string& rates) {
  return h::parse_preset(
      "[experiment]\nname = \"toy\"\ndriver = \"refuted_audit_test_toy\"\nbase_seed = 1\n"
      "replications = 2\nreplication_block = 2\n[grid]\ntrials = [1000, 10000]\n" +
          rates,
      "toy.toml");
}

void expect_rejected(const std::string& rate, const std::string& needle) {
  try {
    parse(rate);
    ADD_FAILURE() << "accepted: " << rate;
  } catch (const h::preset_error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(RefutedAuditSyntax, KeysAreValidatedNamingTheKey) {
  const std::string base = "[[rate]]\nx = \"trials\"\ny = \"bound_ratio\"\nkind = \"audit\"\n";
  expect_rejected(base + "expect = \"maybe\"\n",
                  ".expect = 'maybe' must be \"holds\" or \"refuted\"");
  expect_rejected(base + "expect = \"refuted\"\n", ".expect = \"refuted\" needs 'control'");
  expect_rejected(base + "expected_slope = 0\n", ".expected_slope has no meaning");
  expect_rejected(base + "statistic = \"mean\"\n", ".statistic has no meaning");
  expect_rejected(base + "bound_lower = 0.5\n", "bound_lower needs kind");
  expect_rejected(base + "bound_constant = 0\n", "bound_constant");
  const auto p = parse(base +
                       "bound_constant = 1.5\nexpect = \"refuted\"\n"
                       "control = { variant = \"strict\" }\nwhere = { variant = \"published\" }\n"
                       "[[rate]]\nname = \"h\"\nx = \"trials\"\ny = \"bound_ratio\"\n"
                       "kind = \"audit\"\nexpect = \"holds\"\n");
  ASSERT_EQ(p.rates.size(), 2u);
  EXPECT_EQ(p.rates[0].kind, h::rate_kind::audit);
  EXPECT_EQ(p.rates[0].expect, h::rate_expect::refuted);
  EXPECT_EQ(p.rates[0].bound_constant, 1.5);
  EXPECT_EQ(p.rates[1].expect, h::rate_expect::holds);
  EXPECT_EQ(p.rates[1].bound_constant, 1);
}

}  // namespace
