// `dpx mean` end to end (the real executable, fork/exec; apps/dpx/cmd_mean.cpp, issue 7):
// - the JSON output has exactly the keys {"schema_version", "estimate", "clip_range", "epsilon",
//   "delta", "level", "model", "failed", "n", "noise", "seeded", "noise_note"}, with the privacy
//   actually
//   spent (central item level, user level with
//   --user-column, local with --local --bound);
// - the released interval is the paper rule's [2τk̂ ± 3τ] around the data's bin, and the estimate
//   is within a Laplace tail bound of the sample mean (probability of a false failure ≤ 1e-6 per
//   check, fixed seeds);
// - bad input (missing column, non-numeric cell with its line, NaN, ε ≤ 0, δ ∉ (0, 1), a
//   user-level --variance-bound without the public --rows-per-user, --local without --bound)
//   exits 2 with
//   exactly one line on stderr naming the problem; `--delta -1` reports the range, not
//   "required";
// - δ ≥ 1/n prints a warning on stderr and still releases;
// - --seed is never silent: one warning line on stderr and "seeded": true; without it the noise
//   comes from the CSPRNG ("seeded": false, no warning, two runs differ).
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;

struct outcome {
  int status = -1;
  std::string out, err;
};

using dpx::test::slurp;

class MeanCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("dpx_mean_cli_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  /// `dpx mean --input <csv> --column x <rest>`.
  outcome mean_of(const fs::path& csv, std::vector<std::string> rest) const {
    const std::vector<std::string> head{"--input", csv.string(), "--column", "x"};
    rest.insert(rest.begin(), head.begin(), head.end());
    return run(rest);
  }

  /// Runs `dpx mean <args>` and returns its exit status, stdout and stderr.
  outcome run(const std::vector<std::string>& args) const {
    std::vector<std::string> all{"mean"};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = dpx::test::run_dpx(all, dir_);
    return {r.code, r.out, r.err};
  }

  fs::path dir_;
};

/// n rows "id,x,label" with x = centre + a deterministic spread in [−0.5, 0.5] (mean = centre
/// exactly: the offsets are symmetric), `per_user` rows per user id.
std::string panel_csv(std::size_t n, double centre, std::size_t per_user) {
  std::ostringstream s;
  s << "id,x,label\n";
  for (std::size_t i = 0; i < n; ++i) {
    const double off = (i % 2 == 0 ? 1.0 : -1.0) * 0.5 * static_cast<double>((i / 2) % 5) / 4.0;
    s << "u" << i / per_user << "," << centre + off << ",\"a, b\"\n";
  }
  return s.str();
}

const std::set<std::string> expected_keys = {"schema_version",
                                             "estimate",
                                             "clip_range",
                                             "epsilon",
                                             "delta",
                                             "level",
                                             "model",
                                             "failed",
                                             "n",
                                             "noise",
                                             "seeded",
                                             "noise_note"};

std::set<std::string> keys_of(const nlohmann::json& j) {
  std::set<std::string> k;
  for (auto it = j.begin(); it != j.end(); ++it) k.insert(it.key());
  return k;
}

/// Exactly one line on stderr (one '\n', at the end) that contains every needle.
void expect_one_line_error(const outcome& o, const std::vector<std::string>& needles) {
  EXPECT_EQ(o.status, 2) << o.err;
  EXPECT_TRUE(o.out.empty()) << o.out;
  ASSERT_FALSE(o.err.empty());
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_EQ(o.err.back(), '\n');
  for (const auto& s : needles) EXPECT_NE(o.err.find(s), std::string::npos) << s << " | " << o.err;
}

// Safe by default (issue 21): without --research-grade the release is float-safe — the estimate
// lies on the grid Lambda = 2^(floor(log2 b) - 20) of the mean's Laplace scale b = 4 kappa/(n eps)
// = 0.18 (Lambda = 2^-23, from docs/mechanisms.md's definition), and "noise" says float_safe;
// with --research-grade the same seed gives a double-Laplace estimate off that grid and "noise"
// says research_grade. (A continuous draw lands on the 2^-23 grid with probability ~0.)
TEST_F(MeanCli, FloatSafeByDefaultResearchGradeOnRequest) {
  const auto csv = write("d.csv", panel_csv(200, 5.0, 1));
  const std::vector<std::string> flags{
      "--epsilon", "1", "--delta", "1e-6", "--tau", "3", "--seed", "7"};
  const outcome safe = mean_of(csv, flags);
  ASSERT_EQ(safe.status, 0) << safe.err;
  auto rflags = flags;
  rflags.push_back("--research-grade");
  const outcome research = mean_of(csv, rflags);
  ASSERT_EQ(research.status, 0) << research.err;
  const auto js = nlohmann::json::parse(safe.out), jr = nlohmann::json::parse(research.out);
  EXPECT_EQ(js["noise"], "float_safe");
  EXPECT_EQ(jr["noise"], "research_grade");
  EXPECT_NE(jr["noise_note"].get<std::string>().find("NOT safe for real data"), std::string::npos);
  const double lambda = std::ldexp(1.0, -23);
  const double ks = js["estimate"].get<double>() / lambda;
  const double kr = jr["estimate"].get<double>() / lambda;
  EXPECT_EQ(ks, std::round(ks)) << js["estimate"];
  EXPECT_NE(kr, std::round(kr)) << jr["estimate"];
  EXPECT_EQ(js["epsilon"], jr["epsilon"]);  // the same guarantee either way
  EXPECT_EQ(js["delta"], jr["delta"]);
  // Local model: the noise kind is reported and --research-grade changes the draw.
  const outcome local =
      mean_of(csv, {"--epsilon", "1", "--tau", "3", "--local", "--bound", "10", "--seed", "7"});
  const outcome local_r = mean_of(csv,
                                  {"--epsilon",
                                   "1",
                                   "--tau",
                                   "3",
                                   "--local",
                                   "--bound",
                                   "10",
                                   "--seed",
                                   "7",
                                   "--research-grade"});
  ASSERT_EQ(local.status, 0) << local.err;
  ASSERT_EQ(local_r.status, 0) << local_r.err;
  const auto jl = nlohmann::json::parse(local.out), jlr = nlohmann::json::parse(local_r.out);
  EXPECT_EQ(jl["noise"], "float_safe");
  EXPECT_EQ(jlr["noise"], "research_grade");
  EXPECT_NE(jl["estimate"], jlr["estimate"]);
}

TEST_F(MeanCli, CentralItemLevelJson) {
  // 200 rows around 5 with τ = 3: bins (6k − 3, 6k + 3], the data sit in k = 1 (centre 6), so the
  // paper rule releases Î = [6 − 9, 6 + 9]; nothing is clipped and the estimate is the mean 5
  // plus Lap(4κ/(nε)) = Lap(4·9/200) — |ξ| > 14 b has probability e^{−14} < 1e-6.
  const auto csv = write("d.csv", panel_csv(200, 5.0, 1));
  const outcome o =
      mean_of(csv, {"--epsilon", "1", "--delta", "1e-6", "--tau", "3", "--seed", "7"});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.err, dpx::test::seeded_warning("mean"));  // and no other warning
  EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 1);
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(keys_of(j), expected_keys);
  EXPECT_EQ(j["level"], "item");
  EXPECT_EQ(j["model"], "central");
  EXPECT_EQ(j["failed"], false);
  EXPECT_EQ(j["n"], 200);
  EXPECT_DOUBLE_EQ(j["epsilon"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["delta"].get<double>(), 1e-6);
  ASSERT_TRUE(j["clip_range"].is_array());
  ASSERT_EQ(j["clip_range"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["clip_range"][0].get<double>(), -3.0);
  EXPECT_DOUBLE_EQ(j["clip_range"][1].get<double>(), 15.0);
  EXPECT_LT(std::abs(j["estimate"].get<double>() - 5.0), 14.0 * 4.0 * 9.0 / 200.0);
  // Same seed, same release; another seed, another noise draw.
  const outcome again =
      mean_of(csv, {"--epsilon", "1", "--delta", "1e-6", "--tau", "3", "--seed", "7"});
  EXPECT_EQ(again.out, o.out);
  const outcome other =
      mean_of(csv, {"--epsilon", "1", "--delta", "1e-6", "--tau", "3", "--seed", "8"});
  ASSERT_EQ(other.status, 0) << other.err;
  EXPECT_NE(nlohmann::json::parse(other.out)["estimate"], j["estimate"]);
}

TEST_F(MeanCli, UserLevelGroupsRowsByUser) {
  // 300 rows, 3 per user: n = 100 users, user-level privacy. With --variance-bound V = 1 and
  // the public T = 3, τ = sqrt(2 ln(2·100/0.1)/3) = 2.2537 (S1 Lemma 5.2), so the interval has
  // length 6τ.
  const auto csv = write("p.csv", panel_csv(300, 5.0, 3));
  const std::vector<std::string> user_v = {
      "--user-column", "id", "--epsilon", "1", "--delta", "1e-6", "--variance-bound", "1"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = user_v;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const outcome o = mean_of(csv, with({"--rows-per-user", "3", "--seed", "3"}));
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(keys_of(j), expected_keys);
  EXPECT_EQ(j["level"], "user");
  EXPECT_EQ(j["model"], "central");
  EXPECT_EQ(j["n"], 100);
  EXPECT_DOUBLE_EQ(j["epsilon"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["delta"].get<double>(), 1e-6);
  const double tau = std::sqrt(2.0 * std::log(2.0 * 100 / 0.1) / 3.0);
  EXPECT_NEAR(j["clip_range"][1].get<double>() - j["clip_range"][0].get<double>(), 6.0 * tau, 1e-9);

  // T is never read from the data (a user's row count is part of its record): without the
  // public --rows-per-user the radius is refused on balanced data too, and a non-positive T is
  // named.
  expect_one_line_error(mean_of(csv, user_v), {"--rows-per-user", "required", "PUBLIC"});
  expect_one_line_error(mean_of(csv, with({"--rows-per-user", "0"})), {"--rows-per-user", "0"});
  expect_one_line_error(
      mean_of(
          csv,
          {"--epsilon", "1", "--delta", "1e-6", "--variance-bound", "1", "--rows-per-user", "3"}),
      {"--rows-per-user", "only used"});
  // One user with an extra row: the release is the same function of the public T (τ from
  // T = 3, interval length 6τ as above) ...
  const auto uneven = write("u.csv", panel_csv(300, 5.0, 3) + "u0,5.0,x\n");
  const outcome rag = mean_of(uneven, with({"--rows-per-user", "3", "--seed", "3"}));
  ASSERT_EQ(rag.status, 0) << rag.err;
  const auto jr = nlohmann::json::parse(rag.out);
  EXPECT_EQ(jr["n"], 100);
  EXPECT_NEAR(
      jr["clip_range"][1].get<double>() - jr["clip_range"][0].get<double>(), 6.0 * tau, 1e-9);
  // ... and ragged users are also accepted with a public --tau (each contributes one average).
  const outcome ok = mean_of(
      uneven,
      {"--user-column", "id", "--epsilon", "1", "--delta", "1e-6", "--tau", "2", "--seed", "3"});
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(nlohmann::json::parse(ok.out)["n"], 100);
}

TEST_F(MeanCli, LocalModel) {
  const auto csv = write("d.csv", panel_csv(400, 1.0, 1));
  const outcome o =
      mean_of(csv, {"--epsilon", "2", "--local", "--bound", "10", "--tau", "2", "--seed", "5"});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.err, dpx::test::seeded_warning("mean"));  // no δ warning: local spends δ = 0
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(keys_of(j), expected_keys);
  EXPECT_EQ(j["model"], "local");
  EXPECT_EQ(j["level"], "item");
  EXPECT_EQ(j["n"], 400);
  EXPECT_DOUBLE_EQ(j["epsilon"].get<double>(), 2.0);  // ε/2 histogram stage + ε/2 values
  EXPECT_DOUBLE_EQ(j["delta"].get<double>(), 0.0);
  EXPECT_EQ(j["failed"], false);  // Algorithm 9 has no failure branch
  EXPECT_NEAR(j["clip_range"][1].get<double>() - j["clip_range"][0].get<double>(), 12.0, 1e-12);

  const outcome user = mean_of(
      csv, {"--user-column", "id", "--epsilon", "2", "--local", "--bound", "10", "--tau", "2"});
  ASSERT_EQ(user.status, 0) << user.err;
  const auto ju = nlohmann::json::parse(user.out);
  EXPECT_EQ(ju["model"], "local");
  EXPECT_EQ(ju["level"], "user");

  expect_one_line_error(mean_of(csv, {"--epsilon", "2", "--local", "--tau", "2"}),
                        {"--local needs --bound"});
}

TEST_F(MeanCli, BadInputExitsTwoWithOneLine) {
  const auto good = write("g.csv", "x,y\n1,2\n3,4\n5,6\n");
  const std::vector<std::string> base = {"--input", good.string(), "--epsilon", "1", "--tau", "1"};
  auto with = [&](std::vector<std::string> extra, std::vector<std::string> args) {
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  // Missing column: names it and counts the header's fields (never lists them: without a
  // header line they are data).
  expect_one_line_error(run(with({"--column", "z", "--delta", "1e-6"}, base)),
                        {"column 'z'", "no such column", "2 fields"});
  // Non-numeric cell: its data row, line (header = line 1) and column, never the value.
  const auto text = write("t.csv", "x\n1\n2\nabc\n4\n");
  const outcome bad = mean_of(text, {"--epsilon", "1", "--delta", "1e-6", "--tau", "1"});
  expect_one_line_error(bad, {"row 3 (line 4), column 'x'", "not a finite number"});
  EXPECT_EQ(bad.err.find("abc"), std::string::npos) << bad.err;
  // NaN cell (and inf): not finite, with the line.
  const auto nan = write("n.csv", "x\n1\nnan\n");
  expect_one_line_error(mean_of(nan, {"--epsilon", "1", "--delta", "1e-6", "--tau", "1"}),
                        {"line 3", "not a finite number"});
  const auto inf = write("i.csv", "x\n1\n2\n-inf\n");
  expect_one_line_error(mean_of(inf, {"--epsilon", "1", "--delta", "1e-6", "--tau", "1"}),
                        {"line 4", "not a finite number"});
  // ε ≤ 0.
  for (const char* e : {"0", "-1"})
    expect_one_line_error(mean_of(good, {"--epsilon", e, "--delta", "1e-6", "--tau", "1"}),
                          {"--epsilon", "> 0"});
  // δ ∉ (0, 1), including −1 (once the internal "unset" sentinel, reported as "required").
  for (const char* d : {"0", "1", "1.5", "-1", "-0.5"}) {
    const outcome o = run(with({"--column", "x", "--delta", d}, base));
    expect_one_line_error(o, {"--delta", "(0, 1)"});
    EXPECT_EQ(o.err.find("required"), std::string::npos) << o.err;
  }
  // δ missing in the central model.
  expect_one_line_error(run(with({"--column", "x"}, base)), {"--delta is required"});
}

TEST_F(MeanCli, DeltaAtLeastOneOverNWarns) {
  // n = 3 rows and δ = 0.5 ≥ 1/3: released, with a warning on stderr.
  const auto csv = write("g.csv", "x\n1\n2\n3\n");
  const outcome o = mean_of(csv, {"--epsilon", "1", "--delta", "0.5", "--tau", "1", "--seed", "1"});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.err.find("warning"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("1/n"), std::string::npos) << o.err;
  EXPECT_EQ(keys_of(nlohmann::json::parse(o.out)), expected_keys);
  // δ < 1/n: no warning.
  const outcome quiet =
      mean_of(csv, {"--epsilon", "1", "--delta", "0.1", "--tau", "1", "--seed", "1"});
  ASSERT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_EQ(quiet.err, dpx::test::seeded_warning("mean"));
}

// A seeded release is reproducible, so anyone who knows the seed can remove the noise: it must
// say so, on stderr and in the JSON. Without --seed the noise comes from the CSPRNG: no warning,
// "seeded": false, and two runs differ (equal float-safe estimates on the 2^-23 grid of a Laplace
// scale 0.18 by chance: below 1e-5).
TEST_F(MeanCli, SeedIsNeverSilent) {
  const auto csv = write("d.csv", panel_csv(200, 5.0, 1));
  const std::vector<std::string> flags{"--epsilon", "1", "--delta", "1e-6", "--tau", "3"};
  for (const std::vector<std::string>& s :
       {std::vector<std::string>{"--epsilon", "1", "--delta", "1e-6", "--tau", "3", "--seed", "7"},
        std::vector<std::string>{
            "--epsilon", "1", "--tau", "3", "--local", "--bound", "10", "--seed", "7"}}) {
    const outcome seeded = mean_of(csv, s);
    ASSERT_EQ(seeded.status, 0) << seeded.err;
    EXPECT_EQ(seeded.err, dpx::test::seeded_warning("mean"));
    EXPECT_EQ(nlohmann::json::parse(seeded.out)["seeded"], true);
  }
  const outcome a = mean_of(csv, flags), b = mean_of(csv, flags);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_TRUE(a.err.empty()) << a.err;
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja["seeded"], false);
  EXPECT_EQ(keys_of(ja), expected_keys);
  EXPECT_NE(ja["estimate"], jb["estimate"]);
}

}  // namespace
