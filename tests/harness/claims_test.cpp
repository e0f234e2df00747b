// The claims ledger (docs/claims.md). Properties checked:
// - load_claims accepts the documented keys and rejects unknown keys, missing fields, bad or
//   duplicate ids and ids of papers not in [papers], naming the key;
// - find_claim_checks reads claim ids (string or list) from presets without drivers, with the
//   rate's default name;
// - ledger_problems reports a preset's unknown claim id, a claim with no gated check and no
//   status, a status on a gated claim and `restated` without a gate, and nothing for a
//   consistent ledger; load_claims enforces status/tests/experiment/reason pairs;
// - join_claims: holds (control fails), fails (no power), not_yet_measured / not_measurable /
//   checked_by_test from the ledger status, no_results, refuted (a refutation check that
//   reproduces) and holds_restated; the counts cover every verdict and the Markdown page puts
//   them first with one evidence line per check;
// - test_problems: a named test that no TEST macro defines, a checked_by_test claim without a
//   killing mutant.
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
    "status = \"not_yet_measured\"\nexperiment = \"a sweep of n\"\n"
    "[[claim]]\nid = \"P.d\"\nsource = \"P, Lemma d\"\nstatement = \"d\"\nreason = \"a bound\"\n"
    "status = \"not_measurable\"\n"
    "[[claim]]\nid = \"P.e\"\nsource = \"P, Thm e\"\nstatement = \"e holds\"\n"
    "[[claim]]\nid = \"P.g\"\nsource = \"P, Thm g\"\nstatement = \"g holds\"\n"
    "[[claim]]\nid = \"P.h\"\nsource = \"P, Fig h\"\nstatement = \"h falls like 1/n\"\n"
    "restated = \"MSE / oracle flat; the literal slope is rh_literal\"\n"
    "[[claim]]\nid = \"P.k\"\nsource = \"P, Def k\"\nstatement = \"k\"\n"
    "status = \"checked_by_test\"\ntests = [\"Suite.KHolds\"]\n"
    "[[claim]]\nid = \"P.fix.g\"\nsource = \"P, proof of Thm g\"\nstatement = \"g fails\"\n";

const std::string preset_text =
    "[experiment]\nname = \"expt\"\ndriver = \"whatever\"\n"
    "[[rate]]\nname = \"ra\"\nx = \"n\"\ny = \"err\"\nexpected_slope = -1\nclaim = \"P.a\"\n"
    "control = { noise = \"off\" }\n"
    "[[rate]]\nname = \"rb\"\nx = \"n\"\ny = \"err\"\nexpected_slope = -1\nclaim = [\"P.b\"]\n"
    "[[rate]]\nx = \"n\"\ny = \"err\"\nexpected_slope = 0\ninformational = true\n"
    "claim = \"P.c\"\n"
    "[[rate]]\nname = \"re\"\nx = \"n\"\ny = \"err\"\nexpected_slope = -1\nclaim = \"P.e\"\n"
    "[[rate]]\nname = \"rg\"\nx = \"n\"\ny = \"err\"\nexpected_slope = -1\n"
    "claim = [\"P.g\", \"P.fix.g\"]\n"
    "expect = \"refuted\"\ncontrol = { variant = \"strict\" }\n"
    "[[rate]]\nname = \"rh\"\nx = \"n\"\ny = \"ratio\"\nexpected_slope = 0\nclaim = \"P.h\"\n"
    "[[rate]]\nname = \"rh_literal\"\nx = \"n\"\ny = \"err\"\nexpected_slope = -1\n"
    "informational = true\nclaim = \"P.h\"\n";

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

h::claim bare(const std::string& id) {
  h::claim c;
  c.id = id;
  c.source = "P, Thm";
  c.statement = "s";
  return c;
}

TEST_F(Claims, StatusKeysAreValidated) {
  const std::string c = "[[claim]]\nid = \"P.a\"\nsource = \"x\"\nstatement = \"y\"\n";
  expect_rejected(papers + c + "status = \"maybe\"\n", "status must be checked_by_test");
  expect_rejected(papers + c + "status = \"checked_by_test\"\n", "needs 'tests'");
  expect_rejected(papers + c + "tests = [\"S.T\"]\n", "needs 'tests'");
  expect_rejected(papers + c + "status = \"checked_by_test\"\ntests = [\"NoDot\"]\n",
                  "\"Suite.Name\"");
  expect_rejected(papers + c + "status = \"not_yet_measured\"\n", "needs 'experiment'");
  expect_rejected(papers + c + "status = \"not_measurable\"\n", "needs 'reason'");
  expect_rejected(papers + c + "status = \"not_measurable\"\nreason = \"r\"\nrestated = \"x\"\n",
                  "'restated' is for a gated claim");
  const auto ok = h::load_claims(
      write("ok.toml", papers + c + "status = \"checked_by_test\"\ntests = [\"S.T\", \"S.U\"]\n"));
  EXPECT_EQ(ok.claims[0].tests, (std::vector<std::string>{"S.T", "S.U"}));
}

TEST_F(Claims, TestNamesAndMutantsAreFound) {
  write("tests/a/x_test.cpp",
        "TEST(Suite, KHolds) {}\nTEST_F(Fixture, Other) {}\nTYPED_TEST(Typed, No) {}\n"
        "TEST_P(Param, Case) {}\n");
  const auto names = h::find_test_names(dir_ / "tests");
  EXPECT_EQ(names, (std::vector<std::string>{"Fixture.Other", "Param.Case", "Suite.KHolds"}));
  const auto mutants = h::find_mutant_claims(
      write("mutants.toml", "[[mutant]]\nid = \"m1\"\nclaim = \"P.k\"\n[[mutant]]\nid = \"m2\"\n"));
  EXPECT_EQ(mutants, (std::vector<std::string>{"P.k"}));
  const auto ledger = h::load_claims(write("claims.toml", ledger_text));
  EXPECT_TRUE(h::test_problems(ledger, names, mutants).empty());
  // A missing test, and a checked_by_test claim no mutant demonstrates.
  const auto p1 = h::test_problems(ledger, {"Suite.Other"}, {"P.z"});
  ASSERT_EQ(p1.size(), 2u);
  EXPECT_NE(p1[0].find("names test 'Suite.KHolds'"), std::string::npos) << p1[0];
  EXPECT_NE(p1[1].find("no mutant"), std::string::npos) << p1[1];
}

TEST_F(Claims, ChecksProblemsAndJoin) {
  write("experiments/one/preset.toml", preset_text);
  const auto ledger = h::load_claims(write("experiments/claims.toml", ledger_text));
  const auto checks = h::find_claim_checks(dir_ / "experiments");
  ASSERT_EQ(checks.size(), 7u);
  EXPECT_TRUE(checks.at("P.a")[0].controlled);
  EXPECT_EQ(checks.at("P.c")[0].rate, "err_vs_n");
  EXPECT_TRUE(checks.at("P.c")[0].informational);
  EXPECT_EQ(checks.at("P.b")[0].experiment, "expt");
  EXPECT_TRUE(checks.at("P.g")[0].refutation);
  EXPECT_FALSE(checks.at("P.a")[0].refutation);
  EXPECT_TRUE(h::ledger_problems(ledger, checks).empty());

  // An unknown id; a claim with no gated check and no status; a status on a gated claim; a
  // restated claim with no gate.
  write("experiments/two/preset.toml",
        "[experiment]\nname = \"two\"\n[[rate]]\nname = \"rz\"\nx = \"n\"\ny = \"e\"\n"
        "expected_slope = 1\nclaim = \"P.zzz\"\n");
  auto ledger2 = ledger;
  ledger2.claims.push_back(bare("P.f"));
  auto gated_with_status = bare("P.a2");
  ledger2.claims.push_back(gated_with_status);
  ledger2.claims.back().id = "P.a";  // duplicates P.a's checks, with a status
  ledger2.claims.back().status = "not_measurable";
  auto restated = bare("P.r");
  restated.restated = "x";
  restated.status = "not_measurable";
  ledger2.claims.push_back(restated);
  const auto problems = h::ledger_problems(ledger2, h::find_claim_checks(dir_ / "experiments"));
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_NE(problems[0].find("names claim 'P.zzz'"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("'P.f' has no gated check and no status"), std::string::npos)
      << problems[1];
  EXPECT_NE(problems[2].find("'P.a' has a gated check and status"), std::string::npos)
      << problems[2];
  EXPECT_NE(problems[3].find("'P.r' is 'restated' but has no gated check"), std::string::npos)
      << problems[3];

  // Results: ra holds with a failing control; rb has no power; err_vs_n informational; re
  // has no row; rg is a refutation that reproduces; rh holds (restated) beside its literal
  // informational check.
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
  rs.push_back(row("rg", true, false, "passes"));
  auto positive = row("rg", true, true, "");
  positive.control = true;
  positive.informational = true;
  rs.push_back(positive);
  rs.push_back(row("rh", true, true, "none"));
  auto literal = row("rh_literal", false, false, "none");
  literal.informational = true;
  rs.push_back(literal);
  fs::create_directories(dir_ / "results" / "expt");
  h::write_file_atomic(dir_ / "results" / "expt" / "rates.json", h::rates_json(rs));
  const auto joined = h::join_claims(ledger, checks, dir_ / "results");
  ASSERT_EQ(joined.size(), 9u);
  EXPECT_EQ(joined[0].verdict, "holds");
  EXPECT_EQ(joined[0].control_verdict, "fails");
  ASSERT_EQ(joined[0].checks.size(), 1u);
  EXPECT_EQ(joined[0].checks[0].rows.size(), 2u);
  EXPECT_EQ(joined[1].verdict, "fails");
  EXPECT_EQ(joined[1].control_verdict, "passes");
  EXPECT_EQ(joined[2].verdict, "not_yet_measured");
  EXPECT_NE(joined[2].reason.find("a sweep of n"), std::string::npos) << joined[2].reason;
  EXPECT_EQ(joined[3].verdict, "not_measurable");
  EXPECT_EQ(joined[3].reason, "a bound");
  EXPECT_EQ(joined[4].verdict, "no_results");  // rates.json has no row of "re"
  EXPECT_EQ(joined[5].verdict, "refuted");
  EXPECT_EQ(joined[5].checks[0].verdict, "refuted");
  EXPECT_EQ(joined[6].verdict, "holds_restated");
  EXPECT_NE(joined[6].reason.find("restated: MSE / oracle flat"), std::string::npos);
  EXPECT_EQ(joined[7].verdict, "checked_by_test");
  EXPECT_NE(joined[7].reason.find("Suite.KHolds"), std::string::npos);
  EXPECT_EQ(joined[8].verdict, "holds");  // a correction confirmed by the refutation
  const auto n = h::count_verdicts(joined);
  EXPECT_EQ(n.size(), h::verdict_names().size());
  for (const auto& [v, k] : std::map<std::string, std::size_t>{{"holds", 2},
                                                               {"holds_restated", 1},
                                                               {"refuted", 1},
                                                               {"checked_by_test", 1},
                                                               {"not_measurable", 1},
                                                               {"not_yet_measured", 1},
                                                               {"fails", 1},
                                                               {"no_results", 1}})
    EXPECT_EQ(n.at(v), k) << v;
  const std::string md = h::claims_markdown(ledger, joined, "results");
  EXPECT_LT(md.find("| `refuted` | 1 |"), md.find("| P.a |"));
  // One evidence line per check: the refutation's names the positive control.
  EXPECT_NE(md.find("`one/rg` refuted (0/1 groups pass the check as published"), std::string::npos);
  EXPECT_NE(md.find("positive control passes in 1/1"), std::string::npos);
  EXPECT_NE(md.find("`one/ra` holds (1/1 groups pass; worst: slope -1.010"), std::string::npos);
  EXPECT_NE(md.find("control fails in 1/1"), std::string::npos);
  const std::string js = h::claims_json(joined);
  EXPECT_NE(js.find("\"control_verdict\": \"passes\""), std::string::npos);
  EXPECT_NE(js.find("\"refuted\": 1"), std::string::npos);
  EXPECT_NE(js.find("\"expect\": \"refuted\""), std::string::npos);
  EXPECT_NE(h::claims_text(joined).find("claims: 9 (holds 2, holds_restated 1, refuted 1,"),
            std::string::npos)
      << h::claims_text(joined);

  // Without any results every gated claim has no results, naming the preset to run; a claim
  // with a status keeps it.
  const auto none = h::join_claims(ledger, checks, dir_ / "nothing");
  EXPECT_EQ(none[0].verdict, "no_results");
  EXPECT_NE(none[0].reason.find("run the presets: one"), std::string::npos) << none[0].reason;
  EXPECT_EQ(none[3].verdict, "not_measurable");
}

}  // namespace
