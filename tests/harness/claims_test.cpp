// The claims ledger (docs/claims.md). Properties checked:
// - load_claims accepts the documented keys and rejects unknown keys, missing fields, bad or
//   duplicate ids and ids of papers not in [papers], naming the key;
// - find_claim_checks reads claim ids (string or list) from presets without drivers, with the
//   rate's default name;
// - ledger_problems reports a preset's unknown claim id and a claim with neither check nor
//   reason, and nothing for a consistent ledger;
// - join_claims: a gated check whose rows pass and whose control fails -> holds (control
//   fails); a no-power row -> fails (control passes); only informational -> not_verified with
//   a reason; no results -> not_verified naming the preset; the counts add up and the
//   Markdown page puts them first.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "dpx/harness/analysis.hpp"
#include "dpx/harness/claims.hpp"
#include "dpx/harness/results.hpp"

namespace {

namespace fs = std::filesystem;
namespace h = dpx::harness;

class Claims : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("dpx_claims_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path write(const std::string& rel, const std::string& text) {
    const fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
  void expect_rejected(const std::string& text, const std::string& needle) {
    const fs::path p = write("bad.toml", text);
    try {
      h::load_claims(p);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
  fs::path dir_;
};

const std::string papers = "[papers]\nP = \"A paper\"\n";

TEST_F(Claims, LoadValidatesKeysAndIds) {
  const auto ledger = h::load_claims(
      write("ok.toml",
            papers + "[[claim]]\nid = \"P.thm1\"\nsource = \"P, Theorem 1\"\nstatement = \"s\"\n"
                     "[[claim]]\nid = \"P.fig2\"\nsource = \"P, Figure 2\"\nstatement = \"t\"\n"
                     "reason = \"r\"\n"));
  ASSERT_EQ(ledger.claims.size(), 2u);
  EXPECT_EQ(ledger.claims[1].reason, "r");
  EXPECT_EQ(ledger.papers.at("P"), "A paper");
  const std::string c = "[[claim]]\nsource = \"x\"\nstatement = \"y\"\n";
  expect_rejected(papers + c + "id = \"P.a\"\nextra = 1\n", "unknown key 'extra'");
  expect_rejected(papers + "[[claim]]\nid = \"P.a\"\nsource = \"x\"\n", "needs 'statement'");
  expect_rejected(papers + c + "id = \"Pa\"\n", "must be <paper>.<name>");
  expect_rejected(papers + c + "id = \"P.a b\"\n", "must be <paper>.<name>");
  expect_rejected(papers + c + "id = \"Q.a\"\n", "paper 'Q' is not in [papers]");
  expect_rejected(papers + c + "id = \"P.a\"\n" + c + "id = \"P.a\"\n", "declared twice");
  expect_rejected(papers + c + "id = 3\n", "[[claim]].id must be a non-empty string");
  expect_rejected("other = 1\n", "unknown key 'other'");
}

const std::string ledger_text =
    papers +
    "[[claim]]\nid = \"P.a\"\nsource = \"P, Thm a\"\nstatement = \"a holds\"\n"
    "[[claim]]\nid = \"P.b\"\nsource = \"P, Thm b\"\nstatement = \"b holds\"\n"
    "[[claim]]\nid = \"P.c\"\nsource = \"P, Thm c\"\nstatement = \"c holds\"\n"
    "[[claim]]\nid = \"P.d\"\nsource = \"P, Lemma d\"\nstatement = \"d\"\nreason = \"a bound\"\n"
    "[[claim]]\nid = \"P.e\"\nsource = \"P, Thm e\"\nstatement = \"e holds\"\n";

const std::string preset_text =
    "[experiment]\nname = \"expt\"\ndriver = \"whatever\"\n"
    "[[rate]]\nname = \"ra\"\nx = \"n\"\ny = \"err\"\nexpected_slope = -1\nclaim = \"P.a\"\n"
    "control = { noise = \"off\" }\n"
    "[[rate]]\nname = \"rb\"\nx = \"n\"\ny = \"err\"\nexpected_slope = -1\nclaim = [\"P.b\"]\n"
    "[[rate]]\nx = \"n\"\ny = \"err\"\nexpected_slope = 0\ninformational = true\n"
    "claim = \"P.c\"\n"
    "[[rate]]\nname = \"re\"\nx = \"n\"\ny = \"err\"\nexpected_slope = -1\nclaim = \"P.e\"\n";

h::rate_result row(const std::string& rate, bool pass, bool check_pass, const std::string& cv) {
  h::rate_result r;
  r.rate = rate;
  r.slope = -1.01;
  r.ci_lo = -1.05;
  r.ci_hi = -0.97;
  r.expected = -1;
  r.tolerance = 0.1;
  r.pass = pass;
  r.check_pass = check_pass;
  r.control_verdict = cv;
  return r;
}

TEST_F(Claims, ChecksProblemsAndJoin) {
  write("experiments/one/preset.toml", preset_text);
  const auto ledger = h::load_claims(write("experiments/claims.toml", ledger_text));
  const auto checks = h::find_claim_checks(dir_ / "experiments");
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_TRUE(checks.at("P.a")[0].controlled);
  EXPECT_EQ(checks.at("P.c")[0].rate, "err_vs_n");
  EXPECT_TRUE(checks.at("P.c")[0].informational);
  EXPECT_EQ(checks.at("P.b")[0].experiment, "expt");
  EXPECT_TRUE(h::ledger_problems(ledger, checks).empty());

  // An unknown id and a claim with neither check nor reason.
  write("experiments/two/preset.toml",
        "[experiment]\nname = \"two\"\n[[rate]]\nname = \"rz\"\nx = \"n\"\ny = \"e\"\n"
        "expected_slope = 1\nclaim = \"P.zzz\"\n");
  auto ledger2 = ledger;
  ledger2.claims.push_back({"P.f", "P, Thm f", "f", ""});
  const auto problems = h::ledger_problems(ledger2, h::find_claim_checks(dir_ / "experiments"));
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("names claim 'P.zzz'"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("'P.f' has neither a check"), std::string::npos) << problems[1];

  // Results: ra holds with a failing control; rb has no power; err_vs_n informational; re
  // has no row.
  std::vector<h::rate_result> rs;
  rs.push_back(row("ra", true, true, "fails"));
  auto ctrl = row("ra", false, false, "");
  ctrl.control = true;
  ctrl.informational = true;
  ctrl.slope = 0.01;
  rs.push_back(ctrl);
  rs.push_back(row("rb", false, true, "passes"));
  auto info = row("err_vs_n", false, false, "none");
  info.informational = true;
  rs.push_back(info);
  fs::create_directories(dir_ / "results" / "expt");
  h::write_file_atomic(dir_ / "results" / "expt" / "rates.json", h::rates_json(rs));
  const auto joined = h::join_claims(ledger, checks, dir_ / "results");
  ASSERT_EQ(joined.size(), 5u);
  EXPECT_EQ(joined[0].verdict, "holds");
  EXPECT_EQ(joined[0].control_verdict, "fails");
  ASSERT_EQ(joined[0].checks.size(), 1u);
  EXPECT_EQ(joined[0].checks[0].rows.size(), 2u);
  EXPECT_EQ(joined[1].verdict, "fails");
  EXPECT_EQ(joined[1].control_verdict, "passes");
  EXPECT_EQ(joined[2].verdict, "not_verified");
  EXPECT_NE(joined[2].reason.find("informational"), std::string::npos);
  EXPECT_EQ(joined[3].verdict, "not_verified");
  EXPECT_EQ(joined[3].reason, "a bound");
  EXPECT_EQ(joined[4].verdict, "not_verified");  // rates.json has no row of "re"
  const auto n = h::count_verdicts(joined);
  EXPECT_EQ(n.at("holds"), 1u);
  EXPECT_EQ(n.at("fails"), 1u);
  EXPECT_EQ(n.at("not_verified"), 3u);
  const std::string md = h::claims_markdown(ledger, joined, "results");
  EXPECT_LT(md.find("5 claims: 1 hold, 1 fail, 3 not verified"), md.find("| P.a |"));
  const std::string js = h::claims_json(joined);
  EXPECT_NE(js.find("\"control_verdict\": \"passes\""), std::string::npos);
  EXPECT_NE(h::claims_text(joined).find("claims: 5 (holds 1, fails 1, not_verified 3)"),
            std::string::npos);

  // Without any results every claim is not verified, naming the preset to run.
  const auto none = h::join_claims(ledger, checks, dir_ / "nothing");
  EXPECT_EQ(none[0].verdict, "not_verified");
  EXPECT_NE(none[0].reason.find("run the presets: one"), std::string::npos) << none[0].reason;
}

}  // namespace
