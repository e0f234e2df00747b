// Smoke test of the privacy_audit preset (experiments/privacy_audit/preset.toml) through the
// harness, without running it:
//  * it loads and validates against its driver in the full and the quick form (the quick form
//    only changes the replications: same cells);
//  * its grid expands to cells that cover every audit target (audit::mechanism_names() and
//    audit::solver_names()), the solvers on both canary designs, and no target beyond its trial
//    budget (solvers 1e4; slow pairs 1e5); the grid itself has no broken cells (they are the
//    audit checks' control cells);
//  * every target has a gated audit check (kind = "audit"); the two published claims that the
//    audits refute (laplace_mironov, istdp_as_published) are expect = "refuted" with their
//    positive controls; every other target's trials-sweep check has the broken variant as
//    negative control, except the few whose broken variant stays below the claim at the
//    preset's confidence (listed in the preset);
//  * the driver runs one small audit (1000 trials per side, eps = 1) of every target and
//    returns its declared metrics, consistently (bound_ratio, violation).
#include <algorithm>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "dpx/audit/audits.hpp"
#include "dpx/harness/driver.hpp"
#include "dpx/harness/preset.hpp"

namespace {

using namespace dpx;

bool is_solver(const std::string& t) {
  const auto s = audit::solver_names();
  return std::find(s.begin(), s.end(), t) != s.end();
}
bool is_attack(const std::string& t) { return t.find("mironov") != std::string::npos; }
// Broken variants that do not exceed the claim at the preset's confidence (preset comment):
// their checks are uncontrolled, so the grid has no broken cells of them.
const std::set<std::string> kNoPower = {
    "discrete_gaussian", "winsorized_mean_hd", "priestley_chao_grid", "l2_laplace_spread"};

TEST(PrivacyAuditPreset, LoadsInBothForms) {
  const auto full = harness::load_preset(DPX_PRIVACY_AUDIT_PRESET, false);
  const auto quick = harness::load_preset(DPX_PRIVACY_AUDIT_PRESET, true);
  EXPECT_EQ(full.name, "privacy_audit");
  EXPECT_EQ(full.driver, "privacy_audit");
  EXPECT_EQ(full.replications, 5u);
  EXPECT_EQ(quick.replications, 1u);
  const auto a = harness::expand_grid(full), b = harness::expand_grid(quick);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].key, b[i].key);
}

TEST(PrivacyAuditPreset, GridCoversEveryTarget) {
  const auto cells = harness::expand_grid(harness::load_preset(DPX_PRIVACY_AUDIT_PRESET, true));
  std::set<std::string> seen;
  std::set<std::pair<std::string, bool>> seen_broken;
  std::set<std::pair<std::string, std::string>> seen_design;
  for (const auto& c : cells) {
    const auto t = c.params.get_string("target");
    const bool broken = c.params.get_bool("broken");
    const auto trials = c.params.get_int("trials");
    seen.insert(t);
    seen_broken.insert({t, broken});
    // Broken cells are the audit checks' control cells only.
    if (broken) {
      EXPECT_EQ(c.params.get_string("control"), "broken=true") << c.key;
    }
    EXPECT_GE(trials, 1000) << c.key;
    if (is_solver(t)) {
      if (broken) {
        EXPECT_EQ(c.params.get_string("design"), "sign") << c.key;
      }
      EXPECT_LE(trials, 10000) << c.key;
      seen_design.insert({t, c.params.get_string("design")});
    } else {
      if (is_attack(t)) {
        EXPECT_FALSE(broken) << c.key;
      }
      const bool slow =
          is_attack(t) || t == "stable_histogram" || t == "winsorized_mean" || t == "kv_mean" ||
          t == "local_mean" || t == "user_mean" || t == "priestley_chao" ||
          t == "exponential_mechanism" || t == "permute_and_flip" ||
          t == "winsorized_mean_histogram" || t == "kv_mean_histogram" || t.ends_with("_both") ||
          t.starts_with("l2_laplace") || t == "winsorized_mean_hd" || t == "priestley_chao_grid" ||
          t == "sample_split_mean" || t == "kv_mean_unknown_sigma" || t == "exponential_quantile" ||
          t == "user_mean_hd" || t == "local_mean_hd" || t == "variance_bisection" ||
          t == "adaptive_coinpress";
      EXPECT_LE(trials, slow ? 100000 : 1000000) << c.key;
    }
  }
  for (const auto& m : audit::mechanism_names()) {
    EXPECT_TRUE(seen.count(m)) << m;
    EXPECT_TRUE(seen_broken.count({m, false})) << m;
    if (!is_attack(m) && kNoPower.count(m) == 0) {
      EXPECT_TRUE(seen_broken.count({m, true})) << m;
    }
  }
  for (const auto& s : audit::solver_names()) {
    if (s != "istdp_as_published") {
      EXPECT_TRUE(seen_broken.count({s, true})) << s;
    }
    EXPECT_TRUE(seen_design.count({s, "sign"})) << s;
    EXPECT_TRUE(seen_design.count({s, "curvature"})) << s;
  }
}

// The where filter value of a rate for a parameter ("" when absent).
std::string where_of(const harness::rate_spec& r, const std::string& name) {
  for (const auto& w : r.where)
    if (w.name == name) return w.value;
  return "";
}

TEST(PrivacyAuditPreset, EveryTargetHasAGatedAuditCheckWithItsControl) {
  const auto p = harness::load_preset(DPX_PRIVACY_AUDIT_PRESET, true);
  auto targets = audit::mechanism_names();
  for (const auto& s : audit::solver_names()) targets.push_back(s);
  for (const auto& t : targets) {
    const harness::rate_spec* main = nullptr;
    for (const auto& r : p.rates) {
      if (r.kind == harness::rate_kind::audit && !r.informational && r.x == "trials" &&
          where_of(r, "target") == t && where_of(r, "design") != "curvature")
        main = &r;
    }
    ASSERT_NE(main, nullptr) << t << ": no gated audit check on the trials sweep";
    EXPECT_EQ(main->y, "bound_ratio") << t;
    if (t == "laplace_mironov" || t == "istdp_as_published") {
      EXPECT_EQ(main->expect, harness::rate_expect::refuted) << t;
      ASSERT_EQ(main->control.count("target"), 1u) << t;
      EXPECT_EQ(harness::render(main->control.at("target")),
                t == "laplace_mironov" ? "float_safe_laplace_mironov" : "istdp_strict");
      continue;
    }
    EXPECT_EQ(main->expect, harness::rate_expect::holds) << t;
    if (t == "float_safe_laplace_mironov") {
      EXPECT_EQ(harness::render(main->control.at("target")), "laplace_mironov");
    } else if (kNoPower.count(t) != 0) {
      EXPECT_TRUE(main->control.empty()) << t;
    } else {
      ASSERT_EQ(main->control.count("broken"), 1u) << t;
      EXPECT_EQ(harness::render(main->control.at("broken")), "true") << t;
    }
  }
}

TEST(PrivacyAuditPreset, DriverRunsASmallAuditOfEveryTarget) {
  const auto cells = harness::expand_grid(harness::load_preset(DPX_PRIVACY_AUDIT_PRESET, true));
  const harness::driver* d = harness::find_driver("privacy_audit");
  ASSERT_NE(d, nullptr);
  int ran = 0;
  for (const auto& c : cells) {
    if (c.params.get_int("trials") != 1000 || c.params.get_double("epsilon") != 1.0) continue;
    const harness::cell_context ctx{c.params, c.hash, c.data_hash, 0, 20261122};
    const auto m = d->run(ctx);
    ASSERT_EQ(m.size(), d->metric_names.size()) << c.key;
    for (std::size_t i = 0; i < m.size(); ++i) EXPECT_EQ(m[i].first, d->metric_names[i]);
    const double lb = m[0].second, claimed = m[1].second, ratio = m[3].second;
    EXPECT_GE(lb, 0.0) << c.key;
    EXPECT_GT(claimed, 0.0) << c.key;
    EXPECT_DOUBLE_EQ(ratio, lb / claimed) << c.key;
    EXPECT_EQ(m[4].second, lb > claimed ? 1.0 : 0.0) << c.key;
    ++ran;
  }
  EXPECT_GE(ran, static_cast<int>(audit::mechanism_names().size() + audit::solver_names().size()));
}

}  // namespace
