// Robustness replay of the real `dpx` executable (issue "nothing a user types crashes, hangs,
// leaks or corrupts"): every command-line defect found on f180f52, then several hundred generated
// bad inputs (blank, overflowing, NaN/inf, negative, huge, garbage bytes, unknown flags) for the
// flags of every subcommand. Every run must:
//   * finish within its CPU-time limit (a generous hang detector, not a speed assertion),
//   * exit 0, 1 or 2 (no crash or signal); the bad inputs must exit 2 (no silent acceptance),
//   * on error print exactly one line to stderr, of bounded length,
//   * never print the planted private value 123-45-6789 that the CSV inputs contain,
//   * on success print JSON without null/NaN (nonprivate `fit`'s documented null epsilon/delta
//     excepted) and without BLAS error text.
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "robustness_util.hpp"

namespace {

using dpx::test::robust::args_t;
using dpx::test::robust::kSecret;
using dpx::test::robust::RobustnessCli;

// ---- every defect of the issue in the command line, replayed -----------------------------
TEST_F(RobustnessCli, DefectsReplay) {
  // 1. private values never in messages (fit, mean, quoted, 1 MB cell, binary garbage).
  auto o = check({"fit", "--input", "secret.csv", "--target", "y"}, 2);
  EXPECT_NE(o.err.find("secret.csv: row 2 (line 3), column 'x1'"), std::string::npos) << o.err;
  check({"mean",
         "--input",
         "secret.csv",
         "--column",
         "x1",
         "--epsilon",
         "1",
         "--delta",
         "1e-6",
         "--tau",
         "1"},
        2);
  check({"fit", "--input", "secret_quoted.csv", "--target", "y"}, 2);
  check({"mean",
         "--input",
         "secret_user.csv",
         "--column",
         "x",
         "--user-column",
         "id",
         "--epsilon",
         "1",
         "--delta",
         "1e-6",
         "--tau",
         "1"},
        2);
  check({"fit", "--input", "big_cell.csv", "--target", "y"}, 2);
  check({"fit", "--input", "garbage.csv", "--target", "y"}, 2);
  write("labels.csv", "y,x1\n1,2\n-1,3\n0.123456789,4\n");
  o = check({"fit", "--input", "labels.csv", "--target", "y", "--loss", "logistic"}, 2);
  EXPECT_NE(o.err.find("row 3 (line 4), column 'y': not a class label"), std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find("0.123456789"), std::string::npos) << o.err;
  check({"mean",
         "--input",
         "garbage.csv",
         "--column",
         "x1",
         "--epsilon",
         "1",
         "--delta",
         "1e-6",
         "--tau",
         "1"},
        2);
  // 3. blank values are errors, not "not given"; integers do not saturate or wrap.
  check({"run", preset_.string(), "--shard", ""}, 2);
  check({"run", preset_.string(), "--out", ""}, 2);
  check({"sample", "--mechanism", "laplace", "--scale", "1", "--count", "2", "--seed", ""}, 2);
  check({"account",
         "--mechanism",
         "laplace",
         "--scale",
         "1",
         "--sensitivity",
         "",
         "--steps",
         "2",
         "--delta",
         "1e-5",
         "--method",
         "basic"},
        2);
  check({"fit", "--input", "bom.csv", "--target", "y", "--lambda", ""}, 2);
  check({"fit", "--input", "bom.csv", "--target", "y", "--max-iter", ""}, 2);
  check({"compose",
         "--rule",
         "advanced",
         "--epsilon0",
         "0.1",
         "--k",
         "10",
         "--delta-slack",
         "1e-5",
         "--delta0",
         ""},
        2);
  check({"generate", "ar1", "--n", "10", "--out", ""}, 2);
  check({"list", "--dir", ""}, 2);
  check({"compose",
         "--rule",
         "advanced",
         "--epsilon0",
         "0.1",
         "--k",
         "99999999999999999999",
         "--delta-slack",
         "1e-5"},
        2);
  check({"sample", "--mechanism", "laplace", "--scale", "1", "--count", "2", "--seed", "-1"}, 2);
  // ... and the same overflow no longer hangs.
  check({"compose",
         "--rule",
         "kov",
         "--epsilon0",
         "0.1",
         "--k",
         "99999999999999999999",
         "--delta-slack",
         "1e-5"},
        2);
  check({"calibrate",
         "--mechanism",
         "laplace",
         "--epsilon",
         "1",
         "--delta",
         "1e-5",
         "--method",
         "kov",
         "--steps",
         "99999999999999999999"},
        2);
  check({"fit", "--input", "bom.csv", "--target", "y", "--max-iter", "99999999999999999999"}, 2);
  check({"fit", "--input", "bom.csv", "--target", "y", "--max-iter", "10000001"}, 2);
  check({"sample", "--mechanism", "laplace", "--scale", "1", "--count", "99999999999999999999"}, 2);
  check({"sample", "--mechanism", "laplace", "--scale", "1", "--count", "10000001"}, 2);
  // 5. exit 0 is an answer: no BLAS text, no null, no inf draws.
  o = check({"fit", "--input", "bom.csv", "--target", "y", "--penalty", "l1", "--lambda", "100"},
            0);
  EXPECT_EQ(o.out.find('*'), std::string::npos) << o.out;
  check({"fit", "--input", "subnormal.csv", "--target", "y", "--penalty", "l1", "--lambda", "1"},
        0);
  check({"fit", "--input", "subnormal.csv", "--target", "y"}, 0);
  o = run({"fit", "--input", "huge_values.csv", "--target", "y"});
  EXPECT_EQ(o.code, 2) << o.err;  // the objective overflows: refused, not printed as null
  EXPECT_EQ(o.out, "");
  o = check({"compose", "--rule", "basic", "--epsilon0", "1e308", "--k", "10"}, 0);
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["epsilon"], "inf");
  EXPECT_TRUE(j.contains("epsilon_note"));
  o = check({"account",
             "--mechanism",
             "gaussian",
             "--noise-multiplier",
             "1e-300",
             "--steps",
             "10",
             "--delta",
             "1e-5",
             "--method",
             "rdp"},
            0);
  EXPECT_EQ(nlohmann::json::parse(o.out)["epsilon"], "inf");
  check({"sample", "--mechanism", "laplace", "--epsilon", "1e-308", "--count", "3"}, 2);
  check({"sample", "--mechanism", "gaussian", "--sigma", "1e305", "--count", "3"}, 2);
  // 7. C++ internals become one clear line, exit 2.
  o = check({"generate", "ar1", "--n", "-1"}, 2);
  EXPECT_EQ(o.err.find("std::"), std::string::npos) << o.err;
  o = check(
      {"audit", "--mechanism", "laplace", "--epsilon", "1", "--trials", "99999999999999999999"}, 2);
  EXPECT_EQ(o.err.find("max_size"), std::string::npos) << o.err;
  check({"audit", "--mechanism", "laplace", "--epsilon", "1", "--trials", "100000000000"}, 2);
  o = check({"run", preset_.string(), "--out", "/etc/passwd"}, 2);
  EXPECT_EQ(o.err.find("filesystem error"), std::string::npos) << o.err;
  // 8. one CSV reader: BOM + CRLF, RFC 4180 quoting, ragged rows, directory, empty files.
  check({"fit", "--input", "bom.csv", "--target", "y"}, 0);
  check({"fit", "--input", "quoted.csv", "--target", "y", "--features", "x1"}, 0);
  check({"mean",
         "--input",
         "quoted.csv",
         "--column",
         "x1",
         "--epsilon",
         "1",
         "--delta",
         "1e-6",
         "--tau",
         "1",
         "--seed",
         "1"},
        0);
  o = check({"mean",
             "--input",
             "ragged.csv",
             "--column",
             "y",
             "--epsilon",
             "1",
             "--delta",
             "1e-6",
             "--tau",
             "1"},
            2);
  EXPECT_NE(o.err.find("row 2 (line 3)"), std::string::npos) << o.err;
  o = check({"fit", "--input", "adir", "--target", "y"}, 2);
  EXPECT_NE(o.err.find("is a directory"), std::string::npos) << o.err;
  o = check({"fit", "--input", "empty.csv", "--target", "y"}, 2);
  EXPECT_NE(o.err.find("is empty"), std::string::npos) << o.err;
  o = check({"fit", "--input", "header_only.csv", "--target", "y"}, 2);
  EXPECT_NE(o.err.find("no data rows"), std::string::npos) << o.err;
  o = check({"fit", "--input", "missing.csv", "--target", "y"}, 2);
  EXPECT_NE(o.err.find("no such file"), std::string::npos) << o.err;
  // 9. minor: a newline in --time, a missing --dir, the target as a feature, --variant alone.
  check({"emit-slurm", preset_.string(), "--shards", "2", "--time", "01:00:00\n#SBATCH --x"}, 2);
  check({"list", "--dir", (dir_ / "nonexistent").string()}, 2);
  check({"fit", "--input", "bom.csv", "--target", "y", "--features", "y,x1"}, 2);
  check({"fit", "--input", "bom.csv", "--target", "y", "--features", "x1,x1"}, 2);
  check({"fit", "--input", "bom.csv", "--target", "y", "--variant", "strict"}, 2);
  check({"fit",
         "--input",
         "bom.csv",
         "--target",
         "y",
         "--variant",
         "as_published",
         "--solver",
         "noisy_pgd",
         "--epsilon",
         "1",
         "--delta",
         "1e-5"},
        2);
}

// `dpx generate sparse_linear` output (split,y,x1..xd) feeds `dpx fit` directly: the model is
// fitted on the train rows and the held-out loss reported for the test rows.
TEST_F(RobustnessCli, GenerateThenFitHonoursSplit) {
  check({"generate",
         "sparse_linear",
         "--n",
         "200",
         "--n_test",
         "50",
         "--d",
         "4",
         "--k",
         "2",
         "--seed",
         "3",
         "--out",
         "sl.csv"},
        0);
  auto o = check(
      {"fit", "--input", "sl.csv", "--target", "y", "--penalty", "l1", "--lambda", "0.01"}, 0);
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["n_train"], 200);
  EXPECT_EQ(j["n_test"], 50);
  ASSERT_TRUE(j.contains("test_loss"));
  // Noise sd 1: the held-out least-squares loss (1/2) mean (y - x b)^2 is near 1/2.
  EXPECT_GT(j["test_loss"].get<double>(), 0.2);
  EXPECT_LT(j["test_loss"].get<double>(), 1.5);
  EXPECT_EQ(j["coefficients"].size(), 4u);
  o = check({"fit",
             "--input",
             "sl.csv",
             "--target",
             "y",
             "--solver",
             "noisy_pgd",
             "--epsilon",
             "1",
             "--delta",
             "1e-5",
             "--seed",
             "2",
             "--max-iter",
             "50",
             "--nonprivate-diagnostics"},
            0);
  // A private fit's held-out loss is a non-private diagnostic (docs/cli.md, "Output contract").
  EXPECT_TRUE(nlohmann::json::parse(o.out)["nonprivate_diagnostics"].contains("test_loss"));
  o = check({"fit",
             "--input",
             "sl.csv",
             "--target",
             "y",
             "--solver",
             "dp_sgd",
             "--epsilon",
             "1",
             "--delta",
             "1e-5",
             "--seed",
             "2",
             "--max-iter",
             "20",
             "--public-size",
             "200"},
            0);
  j = nlohmann::json::parse(o.out);
  ASSERT_TRUE(j.contains("dp_sgd")) << o.out;
  EXPECT_EQ(j["dp_sgd"]["steps"], 20);
  EXPECT_EQ(j["dp_sgd"]["public_size"], 200);
  EXPECT_DOUBLE_EQ(j["dp_sgd"]["sampling_rate"].get<double>(), 1.0);  // min(1, 256/200)
  EXPECT_GT(j["dp_sgd"]["noise_multiplier"].get<double>(), 0.0);
  write("badsplit.csv", "split,y,x1\ntrain,1,2\n" + kSecret + ",2,3\n");
  o = check({"fit", "--input", "badsplit.csv", "--target", "y"}, 2);
  EXPECT_NE(o.err.find("row 2 (line 3), column 'split'"), std::string::npos) << o.err;
  check({"fit", "--input", "sl.csv", "--target", "y", "--features", "split,x1"}, 2);
  check({"fit", "--input", "bom.csv", "--target", "y", "--split-column", "nope"}, 2);
}

// ---- generated bad inputs for every flag of every subcommand ------------------------------
enum class kind { number, integer, text, free, path_in, path_out };

struct flag_case {
  std::string flag;
  kind k;
};

struct command_case {
  args_t base;  // a valid invocation (fast)
  std::vector<flag_case> flags;
};

std::vector<std::string> bad_values(kind k) {
  const std::vector<std::string> common = {
      "", " ", "\n", std::string("\x01\xff\xfe", 3), "1\n2", std::string(5000, '9')};
  std::vector<std::string> v = common;
  switch (k) {
    case kind::number:
      for (const char* s :
           {"nan", "inf", "-inf", "1e999", "-1e999", "abc", "1,5", "0x10", "1e-400", "--", "-1"})
        v.push_back(s);
      break;
    case kind::integer:
      for (const char* s : {"99999999999999999999",
                            "-99999999999999999999",
                            "1.5",
                            "1e3",
                            "abc",
                            "nan",
                            "0x10",
                            "-1"})
        v.push_back(s);
      break;
    case kind::text:
      v.push_back("nope");
      break;
    case kind::free:
      break;
    case kind::path_in:
      v.push_back("no/such/file.csv");
      break;
    case kind::path_out:
      v.push_back("/etc/passwd/x");
      break;
  }
  return v;
}

TEST_F(RobustnessCli, GeneratedBadInputsForEveryFlag) {
  const std::string p = preset_.string();
  const std::vector<command_case> cases = {
      {{"fit", "--input", "bom.csv", "--target", "y"},
       {{"--input", kind::path_in},
        {"--target", kind::text},
        {"--features", kind::text},
        {"--loss", kind::text},
        {"--penalty", kind::text},
        {"--lambda", kind::number},
        {"--gamma", kind::number},
        {"--solver", kind::text},
        {"--variant", kind::text},
        {"--epsilon", kind::number},
        {"--delta", kind::number},
        {"--clip", kind::number},
        {"--smoothness", kind::number},
        {"--max-iter", kind::integer},
        {"--public-size", kind::integer},
        {"--tol", kind::number},
        {"--seed", kind::integer},
        {"--split-column", kind::text}}},
      {{"mean",
        "--input",
        "mean.csv",
        "--column",
        "x",
        "--epsilon",
        "1",
        "--delta",
        "1e-6",
        "--tau",
        "1"},
       {{"--input", kind::path_in},
        {"--column", kind::text},
        {"--epsilon", kind::number},
        {"--delta", kind::number},
        {"--tau", kind::number},
        {"--gamma", kind::number},
        {"--user-column", kind::text},
        {"--rows-per-user", kind::integer},
        {"--bound", kind::number},
        {"--seed", kind::integer}}},
      {{"sample", "--mechanism", "laplace", "--scale", "1", "--count", "3", "--seed", "1"},
       {{"--mechanism", kind::text},
        {"--scale", kind::number},
        {"--sigma", kind::number},
        {"--epsilon", kind::number},
        {"--delta", kind::number},
        {"--sensitivity", kind::number},
        {"--calibration", kind::text},
        {"--categories", kind::integer},
        {"--count", kind::integer},
        {"--seed", kind::integer}}},
      {{"compose", "--rule", "advanced", "--epsilon0", "0.1", "--k", "10", "--delta-slack", "1e-5"},
       {{"--rule", kind::text},
        {"--epsilon0", kind::number},
        {"--delta0", kind::number},
        {"--k", kind::integer},
        {"--delta-slack", kind::number}}},
      {{"calibrate",
        "--mechanism",
        "gaussian",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
        "--method",
        "rdp"},
       {{"--mechanism", kind::text},
        {"--epsilon", kind::number},
        {"--delta", kind::number},
        {"--steps", kind::integer},
        {"--sampling-rate", kind::number},
        {"--method", kind::text}}},
      {{"account",
        "--mechanism",
        "gaussian",
        "--noise-multiplier",
        "1",
        "--steps",
        "10",
        "--delta",
        "1e-5",
        "--method",
        "rdp"},
       {{"--mechanism", kind::text},
        {"--noise-multiplier", kind::number},
        {"--sampling-rate", kind::number},
        {"--steps", kind::integer},
        {"--delta", kind::number},
        {"--method", kind::text}}},
      {{"audit", "--mechanism", "laplace", "--epsilon", "1", "--trials", "1000", "--seed", "1"},
       {{"--mechanism", kind::text},
        {"--scale", kind::number},
        {"--epsilon", kind::number},
        {"--sensitivity", kind::number},
        {"--trials", kind::integer},
        {"--confidence", kind::number},
        {"--categories", kind::integer},
        {"--seed", kind::integer}}},
      {{"generate", "ar1", "--n", "5"},
       {{"--n", kind::integer}, {"--seed", kind::integer}, {"--out", kind::path_out}}},
      {{"emit-slurm", p, "--shards", "2"},
       {{"--shards", kind::integer},
        {"--parallelism", kind::integer},
        {"--cpus-per-task", kind::integer},
        {"--time", kind::text},
        {"--partition", kind::free},
        {"--results", kind::path_out},
        {"--out", kind::path_out}}},
      {{"status", p, "--out", "no_results_here"},
       {{"--out", kind::path_out}, {"--shards", kind::integer}}},
      {{"list"}, {{"--dir", kind::path_in}}},
  };
  std::set<std::string> commands_seen;
  for (const auto& c : cases) {
    commands_seen.insert(c.base.front());
    for (const auto& f : c.flags) {
      for (const auto& v : bad_values(f.k)) {
        args_t a = c.base;
        bool replaced = false;
        for (std::size_t i = 1; i + 1 < a.size(); ++i) {
          if (a[i] == f.flag) {
            a[i + 1] = v;
            replaced = true;
          }
        }
        if (!replaced) {
          a.push_back(f.flag);
          a.push_back(v);
        }
        check(a, 2);
      }
    }
  }
  // An unknown flag, a flag without its value and a stray positional, for every subcommand.
  for (const char* cmd : {"account",
                          "audit",
                          "calibrate",
                          "collect",
                          "compose",
                          "emit-slurm",
                          "fit",
                          "generate",
                          "list",
                          "mean",
                          "report",
                          "run",
                          "sample",
                          "status"}) {
    check({cmd, "--no-such-flag", "1"}, 2);
    check({cmd, "--no-such-flag"}, 2);
  }
  check({"no-such-command"}, 2);
  // Close misspellings get a suggestion.
  auto o = check({"fti"}, 2);
  EXPECT_NE(o.err.find("did you mean 'fit'?"), std::string::npos) << o.err;
  o = check({"fit", "--input", "bom.csv", "--target", "y", "--lamda", "1"}, 2);
  EXPECT_NE(o.err.find("did you mean --lambda?"), std::string::npos) << o.err;
  check({}, 2);
  EXPECT_GE(runs_, 300);
  std::cout << "robustness: " << runs_ << " invocations\n";
}

}  // namespace
