// Robustness replay, second part (issue "nothing a user types crashes, hangs, leaks or
// corrupts", "Done when"): about 300+ bad inputs beyond robustness_cli_test.cpp, in new
// categories, each run through the real `dpx` with the invariants of robustness_util.hpp (no
// crash or signal, no hang, one bounded error line, the planted value 123-45-6789 never printed,
// exit 0 only with finite JSON / text):
//   * extreme but well-formed values (0, subnormal, 1e308, int64 limits) for every numeric flag
//     of every computing subcommand: a finite answer or exit 2, never a hang;
//   * every accounting method against extreme mechanisms (tiny / huge noise, huge step counts);
//   * malformed `dpx account --events` files (syntax, types per key, counts, the planted value in
//     every string position): exit 2 naming --events, never echoing the file;
//   * CSVs with the planted value in every cell position (quoted, padded, CRLF): an error naming
//     the row and column when the command reads that column, an answer when it does not;
//   (presets and interrupted runs: robustness_runs_cli_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "robustness_util.hpp"

namespace {

namespace fs = std::filesystem;
using dpx::test::robust::args_t;
using dpx::test::robust::kAnswerOrRefusal;
using dpx::test::robust::kSecret;
using dpx::test::robust::RobustnessCli;

/// Replaces the value after `flag` in base (or appends flag value).
args_t with(args_t a, const std::string& flag, const std::string& value) {
  for (std::size_t i = 1; i + 1 < a.size(); ++i) {
    if (a[i] == flag) {
      a[i + 1] = value;
      return a;
    }
  }
  a.push_back(flag);
  a.push_back(value);
  return a;
}

// ---- extreme, well-formed values for every numeric flag ------------------------------------
TEST_F(RobustnessCli, ExtremeWellFormedValuesGiveAnAnswerOrExit2) {
  const std::vector<std::string> reals = {
      "0", "-0", "4.9e-324", "1e-308", "1e-30", "0.999999999999", "1e30", "1e308", "-1e308"};
  const std::vector<std::string> ints = {
      "0", "2", "1000000000000", "9223372036854775807", "-9223372036854775808"};
  struct command_case {
    args_t base;
    std::vector<std::string> real_flags, int_flags;
  };
  const std::vector<command_case> cases = {
      {{"compose", "--rule", "kov", "--epsilon0", "0.1", "--k", "10", "--delta-slack", "1e-5"},
       {"--epsilon0", "--delta0", "--delta-slack"},
       {"--k"}},
      {{"compose", "--rule", "advanced", "--epsilon0", "0.1", "--k", "10", "--delta-slack", "1e-5"},
       {"--epsilon0"},
       {"--k"}},
      {{"compose",
        "--rule",
        "kov-bound",
        "--epsilon0",
        "0.1",
        "--k",
        "10",
        "--delta-slack",
        "1e-5"},
       {"--epsilon0", "--delta-slack"},
       {"--k"}},
      {{"calibrate",
        "--mechanism",
        "laplace",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
        "--method",
        "kov",
        "--steps",
        "10"},
       {"--epsilon", "--delta"},
       {"--steps"}},
      {{"calibrate",
        "--mechanism",
        "gaussian",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
        "--method",
        "rdp",
        "--steps",
        "10",
        "--sampling-rate",
        "0.1"},
       // (--delta and --steps: see KnownPldHangs below.)
       {"--epsilon", "--sampling-rate"},
       {}},
      {{"account",
        "--mechanism",
        "laplace",
        "--scale",
        "1",
        "--steps",
        "10",
        "--delta",
        "1e-5",
        "--method",
        "advanced"},
       {"--scale", "--sensitivity", "--delta"},
       {"--steps"}},
      {{"account",
        "--mechanism",
        "gaussian",
        "--noise-multiplier",
        "1",
        "--dataset-size",
        "1000",
        "--batch-size",
        "10",
        "--epochs",
        "1",
        "--epsilon",
        "1",
        "--method",
        "rdp"},
       {"--noise-multiplier", "--epochs", "--epsilon"},
       {"--dataset-size", "--batch-size"}},
      {{"sample",
        "--mechanism",
        "gaussian",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
        "--count",
        "3",
        "--seed",
        "1"},
       {"--epsilon", "--delta", "--sensitivity"},
       {"--count"}},
      {{"sample",
        "--mechanism",
        "randomized_response",
        "--epsilon",
        "1",
        "--categories",
        "3",
        "--count",
        "3",
        "--seed",
        "1"},
       {"--epsilon"},
       {"--categories"}},
      {{"audit",
        "--mechanism",
        "gaussian",
        "--noise-multiplier",
        "1",
        "--epsilon",
        "5",
        "--delta",
        "1e-5",
        "--trials",
        "1000",
        "--seed",
        "1"},
       {"--noise-multiplier", "--epsilon", "--delta", "--confidence"},
       {"--trials"}},
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
        "1",
        "--seed",
        "1"},
       {"--epsilon", "--delta", "--tau", "--gamma"},
       {}},
      {{"mean",
        "--input",
        "mean.csv",
        "--column",
        "x",
        "--epsilon",
        "1",
        "--local",
        "--bound",
        "5",
        "--seed",
        "1"},
       {"--bound"},
       {}},
      {{"fit", "--input", "bom.csv", "--target", "y", "--penalty", "l1", "--lambda", "0.1"},
       {"--lambda", "--tol"},
       {"--max-iter"}},
      {{"fit",
        "--input",
        "bom.csv",
        "--target",
        "y",
        "--solver",
        "noisy_pgd",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
        "--max-iter",
        "20",
        "--seed",
        "1"},
       {"--epsilon", "--delta", "--clip", "--smoothness"},
       {}},
      {{"generate", "ar1", "--n", "5"}, {"--phi", "--mu", "--innovation-sd"}, {"--n"}},
      {{"generate", "sparse_linear", "--n", "5", "--d", "3", "--k", "2"},
       {"--rho", "--signal", "--noise-sd"},
       {"--d", "--k", "--n-test"}},
  };
  for (const auto& c : cases) {
    for (const auto& f : c.real_flags) {
      for (const auto& v : reals) check(with(c.base, f, v), kAnswerOrRefusal);
    }
    for (const auto& f : c.int_flags) {
      for (const auto& v : ints) check(with(c.base, f, v), kAnswerOrRefusal);
    }
  }
  std::cout << "extreme values: " << runs_ << " invocations\n";
}

// A subnormal sampling rate took 10-18 s of CPU (and so could exceed a wall-clock limit on a
// loaded machine): 1/q overflowed in the fractional-order RDP series. Now it answers like
// q = 1e-300; the bound is on the child's CPU time (getrusage), never on wall time.
TEST_F(RobustnessCli, SubnormalSamplingRateAnswersWithinACpuBudget) {
  for (const char* q : {"4.9e-324", "1e-310", "1e-300", "1e-200"}) {
    const auto o = check({"calibrate",
                          "--mechanism",
                          "gaussian",
                          "--epsilon",
                          "1",
                          "--delta",
                          "1e-5",
                          "--method",
                          "rdp",
                          "--steps",
                          "10",
                          "--sampling-rate",
                          q},
                         0);
    EXPECT_LT(o.cpu_seconds, 2.0) << q;  // generous: about 0.05 s of CPU
    const auto j = nlohmann::json::parse(o.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << o.out;
    EXPECT_LE(j["achieved"]["epsilon"].get<double>(), 1.0) << o.out;
  }
}

// ---- every accounting method against extreme mechanisms ------------------------------------
TEST_F(RobustnessCli, EveryAccountingMethodOnExtremeMechanisms) {
  const std::vector<args_t> mechanisms = {
      {"--mechanism", "gaussian", "--noise-multiplier", "1e-300"},
      {"--mechanism", "gaussian", "--noise-multiplier", "1e300"},
      {"--mechanism", "gaussian", "--noise-multiplier", "1", "--sampling-rate", "1e-300"},
      {"--mechanism", "gaussian", "--noise-multiplier", "0.01", "--sampling-rate", "0.5"},
      {"--mechanism", "laplace", "--scale", "1e-300"},
      {"--mechanism", "laplace", "--scale", "1e300", "--sensitivity", "1e-300"},
  };
  const std::vector<args_t> tails = {{"--steps", "1", "--delta", "1e-300"},
                                     {"--steps", "10000000", "--delta", "1e-5"},
                                     {"--steps", "9223372036854775807", "--delta", "0.5"},
                                     {"--steps", "10", "--epsilon", "1e300"},
                                     {"--steps", "10", "--epsilon", "0"}};
  for (const char* method : {"basic", "advanced", "kov", "rdp", "zcdp", "pld", "all"}) {
    for (const auto& m : mechanisms) {
      for (const auto& t : tails) {
        args_t a{"account"};
        a.insert(a.end(), m.begin(), m.end());
        a.insert(a.end(), t.begin(), t.end());
        a.push_back("--method");
        a.push_back(method);
        check(a, kAnswerOrRefusal);
      }
    }
  }
  std::cout << "accounting extremes: " << runs_ << " invocations\n";
}

// Found by the tests above (each ran for minutes before the fix): the PLD accountant's FFT
// work had no bound. Now every long PLD computation is bounded: calibrate --method rdp no
// longer re-accounts by PLD; a delta below the FFT composition's floating-point resolution
// (about 8 T 2^-64) and a count-fold composition whose window exceeds max_grid_points are
// refused naming the parameter (exit 2); epsilon queries truncate at most delta / 1000 of the
// tails (so delta 1e-16 gets a finite, converged answer instead of +inf after six useless
// refinements). The CPU-time limit of check() (kLimit) is the hang detector.
TEST_F(RobustnessCli, KnownPldHangs) {
  // calibrate's "achieved" re-accounting at delta 1e-30 / 1e-308, or 10^12 steps: an answer.
  for (const char* d : {"1e-30", "1e-308"}) {
    const auto o = check({"calibrate",
                          "--mechanism",
                          "gaussian",
                          "--epsilon",
                          "1",
                          "--delta",
                          d,
                          "--method",
                          "rdp",
                          "--steps",
                          "10",
                          "--sampling-rate",
                          "0.1"},
                         0);
    EXPECT_NE(o.out.find("\"noise_multiplier\""), std::string::npos) << o.out;
  }
  check({"calibrate",
         "--mechanism",
         "gaussian",
         "--epsilon",
         "1",
         "--delta",
         "1e-5",
         "--method",
         "rdp",
         "--steps",
         "1000000000000",
         "--sampling-rate",
         "0.1"},
        0);
  // The same requests by PLD, and PLD accounting beyond its resolution: exit 2 naming the
  // parameter (delta below the floor; a count whose window does not fit the grid limit).
  auto refused = [&](const args_t& a, const std::string& param) {
    const auto o = check(a, 2);
    EXPECT_NE(o.err.find(param), std::string::npos) << show(a) << "\n" << o.err;
  };
  for (const char* d : {"1e-30", "1e-308"}) {
    refused({"calibrate",
             "--mechanism",
             "gaussian",
             "--epsilon",
             "1",
             "--delta",
             d,
             "--method",
             "pld",
             "--steps",
             "10",
             "--sampling-rate",
             "0.1"},
            "delta");
    refused({"account",
             "--mechanism",
             "laplace",
             "--scale",
             "1",
             "--steps",
             "10",
             "--delta",
             d,
             "--method",
             "pld"},
            "delta");
  }
  args_t most_steps = {"account",
                       "--mechanism",
                       "gaussian",
                       "--noise-multiplier",
                       "1",
                       "--sampling-rate",
                       "0.1",
                       "--steps",
                       "9223372036854775807",
                       "--delta",
                       "0.5",
                       "--method",
                       "pld"};
  refused(most_steps, "delta");
  // At rate 1e-300 sampling alone makes those steps (0, 9.3e-282)-DP: epsilon 0, exactly.
  const auto rare = check(with(most_steps, "--sampling-rate", "1e-300"), 0);
  EXPECT_NE(rare.out.find("\"epsilon\":0.0"), std::string::npos) << rare.out;
  for (const char* q : {"--delta", "--epsilon"}) {
    refused({"account",
             "--mechanism",
             "gaussian",
             "--noise-multiplier",
             "1000",
             "--sampling-rate",
             "0.1",
             "--steps",
             "1000000000000",
             q,
             "1e-5",
             "--method",
             "pld"},
            "count");
  }
  // delta 1e-16 at T = 10: within the resolution, a finite converged bracket.
  const auto o = check({"account",
                        "--mechanism",
                        "gaussian",
                        "--noise-multiplier",
                        "2.5",
                        "--sampling-rate",
                        "0.1",
                        "--steps",
                        "10",
                        "--delta",
                        "1e-16",
                        "--method",
                        "pld"},
                       0);
  const auto j = nlohmann::json::parse(o.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << o.out;
  EXPECT_TRUE(j["epsilon"].is_number()) << o.out;
  EXPECT_TRUE(j["converged"].get<bool>()) << o.out;
}

// ---- malformed `dpx account --events` files ------------------------------------------------
TEST_F(RobustnessCli, MalformedEventsFilesExit2WithoutEchoingTheFile) {
  const std::string s = kSecret;
  const std::vector<std::string> bad = {
      "",
      " ",
      "null",
      "[]",
      "{}",
      "{\"events\": []}",
      "{\"events\": {}}",
      "[1, 2]",
      "\"" + s + "\"",
      "[\"" + s + "\"]",
      "[{\"kind\": \"" + s + "\"}]",
      "[{\"kind\": \"gaussian\", \"" + s + "\": 1, \"noise_multiplier\": 1}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": \"" + s + "\"}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": 1, \"count\": \"" + s + "\"}]",
      "{\"events\": [{\"kind\": \"pure_dp\", \"epsilon\": 1}], \"note\": \"" + s + "\"}",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": 1}" + s + "]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": NaN}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": Infinity}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": 1e400}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": -1}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": 0}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": null}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": [1]}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": true}]",
      "[{\"kind\": \"gaussian\"}]",
      "[{\"kind\": 3, \"noise_multiplier\": 1}]",
      "[{\"noise_multiplier\": 1}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": 1, \"count\": 0}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": 1, \"count\": -1}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": 1, \"count\": 1.5}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": 1, \"count\": 9223372036854775808}]",
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": 1, \"count\": 18446744073709551615}]",
      "[{\"kind\": \"pure_dp\", \"epsilon\": 1, \"count\": 9007199254740992},"
      " {\"kind\": \"pure_dp\", \"epsilon\": 1, \"count\": 1}]",
      "[{\"kind\": \"subsampled_gaussian\", \"sampling_rate\": 0, \"noise_multiplier\": 1}]",
      "[{\"kind\": \"subsampled_gaussian\", \"sampling_rate\": 1.5, \"noise_multiplier\": 1}]",
      "[{\"kind\": \"approx_dp\", \"epsilon\": 1, \"delta\": 1}]",
      "[{\"kind\": \"randomized_response\", \"epsilon\": 1, \"categories\": 1}]",
      "[{\"kind\": \"randomized_response\", \"epsilon\": 1, \"categories\": 2.5}]",
      "[{\"kind\": \"discrete_pair\", \"p\": [0.5, 0.5], \"q\": [1]}]",
      "[{\"kind\": \"discrete_pair\", \"p\": [0.5, 0.6], \"q\": [0.5, 0.5]}]",
      "[{\"kind\": \"discrete_pair\", \"p\": [], \"q\": []}]",
      "[{\"kind\": \"discrete_pair\", \"p\": [1.5, -0.5], \"q\": [0.5, 0.5]}]",
      "[{\"kind\": \"discrete_pair\", \"p\": [\"" + s + "\"], \"q\": [1]}]",
      "[{\"kind\": \"discrete_laplace\", \"scale\": 1, \"sensitivity\": 0}]",
      "[{\"kind\": \"discrete_gaussian\", \"sigma\": 1, \"sensitivity\": -1}]",
      "[{\"kind\": \"zcdp\", \"rho\": -0.1}]",
      "[{\"kind\": \"exponential_mechanism\", \"epsilon\": 0}]",
      "[{\"kind\": \"pure_dp\", \"epsilon\": 1}",
      "[{\"kind\": \"pure_dp\", \"epsilon\": 1},]",
      std::string("[{\"kind\": \"pure_dp\", \"epsilon\": 1}]\0", 33),
      std::string(2000, '[') + std::string(2000, ']'),
      "[{\"kind\": \"pure_dp\", \"epsilon\": 1}] [1]",
      "[{\"kind\": \"pure_dp\", \"epsilon\": 1, \"epsilon\": 2}, 7]",
  };
  int i = 0;
  for (const auto& text : bad) {
    const std::string name = "ev" + std::to_string(i++) + ".json";
    write(name, text);
    for (const char* method : {"pld", "all"}) {
      const auto o = check({"account", "--events", name, "--delta", "1e-5", "--method", method}, 2);
      EXPECT_NE(o.err.find("--events"), std::string::npos) << name << ": " << o.err;
    }
  }
  // The events flag itself: a directory, a missing file, a file that is not text.
  check({"account", "--events", "adir", "--delta", "1e-5", "--method", "rdp"}, 2);
  check({"account", "--events", "nope.json", "--delta", "1e-5", "--method", "rdp"}, 2);
  check({"account", "--events", "garbage.csv", "--delta", "1e-5", "--method", "rdp"}, 2);
  // Well-formed but extreme logs: an answer (finite or the documented "inf") or exit 2.
  const std::vector<std::string> extreme = {
      "\xEF\xBB\xBF[{\"kind\": \"pure_dp\", \"epsilon\": 1}]",  // a BOM, as for CSV files
      "[{\"kind\": \"gaussian\", \"noise_multiplier\": 1e-300, \"count\": 9007199254740992}]",
      "[{\"kind\": \"laplace\", \"noise_multiplier\": 1e300, \"count\": 9007199254740992}]",
      "[{\"kind\": \"pure_dp\", \"epsilon\": 1e-300, \"count\": 20000000}]",
      "[{\"kind\": \"zcdp\", \"rho\": 1e300}, {\"kind\": \"pure_dp\", \"epsilon\": 1e300}]",
      "[{\"kind\": \"subsampled_gaussian\", \"sampling_rate\": 4.9e-324, \"noise_multiplier\": "
      "1e-300, \"count\": 1000000}]",
      "[{\"kind\": \"randomized_response\", \"epsilon\": 700, \"categories\": "
      "9007199254740992}]",
      "[{\"kind\": \"discrete_laplace\", \"scale\": 1e-300, \"sensitivity\": 9007199254740992}]",
      "[{\"kind\": \"discrete_gaussian\", \"sigma\": 1e300, \"sensitivity\": 1e-300}]",
  };
  for (const auto& text : extreme) {
    const std::string name = "ev" + std::to_string(i++) + ".json";
    write(name, text);
    for (const char* method : {"basic", "kov", "rdp", "pld", "all"}) {
      check({"account", "--events", name, "--delta", "1e-5", "--method", method}, kAnswerOrRefusal);
    }
  }
  std::cout << "events files: " << runs_ << " invocations\n";
}

// ---- CSVs with the planted value in every cell ---------------------------------------------
TEST_F(RobustnessCli, PlantedValueInEveryCsvCellIsNeverPrinted) {
  const std::vector<std::string> header = {"split", "id", "y", "x1", "x2", "unused"};
  const std::vector<std::vector<std::string>> rows = {{"train", "1", "1", "2", "3", "a"},
                                                      {"train", "2", "2", "3", "5", "b"},
                                                      {"test", "3", "3", "1", "1", "c"},
                                                      {"train", "4", "4", "2", "2", "d"}};
  const std::vector<std::string> forms = {
      kSecret, "\"" + kSecret + "\"", " " + kSecret + " ", "\"1," + kSecret + "\""};
  int n = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t c = 0; c < header.size(); ++c) {
      for (std::size_t f = 0; f < forms.size(); ++f) {
        std::string csv;
        for (std::size_t k = 0; k < header.size(); ++k) csv += (k ? "," : "") + header[k];
        csv += f == 3 ? "\r\n" : "\n";
        for (std::size_t i = 0; i < rows.size(); ++i) {
          for (std::size_t k = 0; k < header.size(); ++k) {
            csv += (k ? "," : "") + (i == r && k == c ? forms[f] : rows[i][k]);
          }
          csv += f == 3 ? "\r\n" : "\n";
        }
        const std::string name = "planted" + std::to_string(n++) + ".csv";
        write(name, csv);
        const std::string where = "row " + std::to_string(r + 1) + " (line " +
                                  std::to_string(r + 2) + "), column '" + header[c] + "'";
        // fit reads split, y, x1 (not id, x2, unused).
        const bool fit_reads = header[c] == "split" || header[c] == "y" || header[c] == "x1";
        auto o = check({"fit",
                        "--input",
                        name,
                        "--target",
                        "y",
                        "--features",
                        "x1",
                        "--split-column",
                        "split"},
                       fit_reads ? 2 : 0);
        if (fit_reads) {
          EXPECT_NE(o.err.find(where), std::string::npos) << o.err;
        }
        // mean (user level) reads x2 and id: any id text is a user key, so only x2 fails.
        const bool mean_fails = header[c] == "x2";
        o = check({"mean",
                   "--input",
                   name,
                   "--column",
                   "x2",
                   "--user-column",
                   "id",
                   "--epsilon",
                   "1",
                   "--delta",
                   "1e-6",
                   "--tau",
                   "1",
                   "--seed",
                   "1"},
                  mean_fails ? 2 : 0);
        if (mean_fails) {
          EXPECT_NE(o.err.find(where), std::string::npos) << o.err;
        }
      }
    }
  }
  std::cout << "planted CSV cells: " << n << " files, " << runs_ << " invocations\n";
}

}  // namespace
