// Properties checked (the `dpx account` / `dpx calibrate` / `dpx compose` commands, run as a
// subprocess from ${DPX_BINARY_DIR}/bin/dpx; skipped when the tool is not built):
// - JSON on stdout with exactly the keys of issue 4, in order, and values equal to the library's.
// - Bad input (non-positive / non-finite numbers, delta outside (0,1), sampling rate outside
//   (0,1], steps < 1, unknown method) -> exit status 2, one line on stderr naming the flag,
//   nothing on stdout.
// - The DP-SGD flags (--dataset-size --batch-size --epochs) in calibrate as in account: q = B/N,
//   T = ceil(E N / B) stated in "inputs", the sigma re-accounts to <= the target and within the
//   calibration tolerance; their bad values exit 2 naming the flag.
// - --method defaults to pld in account and calibrate, and --help says so.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../integration/cli_util.hpp"
#include "dpx/accounting/calibration.hpp"

namespace {
struct run_result {
  int status = -1;
  std::string out, err;
};

std::string dpx_path() {
  const char* env = std::getenv("DPX_BINARY_DIR");
  const std::string b = env != nullptr ? env : DPX_TEST_BINARY_DIR;
  std::string p = b + "/bin/dpx";
  std::ifstream f(p);
  return f.good() ? p : std::string{};
}

/// `dpx ARGS` (space-separated, no quoting needed here) through the integration tests' runner:
/// stdout and stderr captured in a directory of the running test's own.
run_result run(const std::string& args) {
  std::vector<std::string> argv{dpx_path()};
  std::istringstream is(args);
  for (std::string a; is >> a;) argv.push_back(a);
  const auto o = dpx::test::run_in(argv, dpx::test::fresh_test_dir("dpx_accounting_cli_"));
  return {o.code, o.out, o.err};
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}
}  // namespace

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (dpx_path().empty()) GTEST_SKIP() << "dpx tool not built (DPX_BINARY_DIR/bin/dpx)";
  }
};

TEST_F(Cli, AccountJsonKeys) {
  auto r =
      run("account --mechanism gaussian --noise-multiplier 2 --steps 10 --delta 1e-5 "
          "--method rdp");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["inputs"]["noise_multiplier"], 2.0);
  EXPECT_EQ(j["inputs"]["steps"], 10);
  EXPECT_EQ(j["mechanism"], "gaussian");
  EXPECT_EQ(j["method"], "rdp");
  EXPECT_EQ(j["delta"], 1e-5);
  const double want =
      dpx::accounting::account_gaussian(dpx::accounting::method::rdp, 2, 1, 10, 1e-5);
  EXPECT_NEAR(j["epsilon"].get<double>(), want, 1e-12 * want);
  auto all = run("account --mechanism laplace --scale 10 --steps 100 --delta 1e-5 --method all");
  ASSERT_EQ(all.status, 0) << all.err;
  const auto ja = nlohmann::json::parse(all.out);
  EXPECT_EQ(ja["results"][0]["method"], "basic");
  EXPECT_EQ(ja["results"].back()["method"], "pld");
  EXPECT_LE(ja["results"].back()["epsilon_lower"].get<double>(),
            ja["results"].back()["epsilon"].get<double>());
}

TEST_F(Cli, AccountPldBracketDeltaAtEpsilonAndDpSgdShorthand) {
  // the issue's cell: certified bracket, below RDP, within 0.5 % of dp_accounting (0.0776)
  auto p =
      run("account --mechanism gaussian --noise-multiplier 4 --sampling-rate 0.001 "
          "--steps 10000 --delta 1e-5 --method pld");
  ASSERT_EQ(p.status, 0) << p.err;
  const auto jp = nlohmann::json::parse(p.out);
  const double up = jp["epsilon"], lo = jp["epsilon_lower"];
  EXPECT_LE(lo, up);
  EXPECT_LE(up, 0.0776 * 1.005);
  EXPECT_LE(up, 0.0862);
  EXPECT_TRUE(jp["converged"].get<bool>());
  // delta at that epsilon, for every method: an upper bound whose epsilon at it is <= eps
  for (const char* m : {"basic", "advanced", "kov", "rdp", "pld"}) {
    auto d = run(std::string("account --mechanism gaussian --noise-multiplier 1 --sampling-rate "
                             "0.01 --steps 100 --epsilon 2 --method ") +
                 m);
    ASSERT_EQ(d.status, 0) << d.err;
    const auto jd = nlohmann::json::parse(d.out);
    const double delta = jd["delta"];
    EXPECT_EQ(jd["epsilon"], 2.0);
    const double back = dpx::accounting::account_gaussian(
        dpx::accounting::parse_method(m), 1, 0.01, 100, std::min(delta, 0.999));
    EXPECT_LE(back, 2.0 * (1 + 1e-3)) << m << " " << delta;
  }
  // DP-SGD shorthand: N = 60000, B = 256, 10 epochs = q = 256/60000, T = ceil(10 * 60000/256)
  auto s =
      run("account --mechanism gaussian --noise-multiplier 1.1 --dataset-size 60000 "
          "--batch-size 256 --epochs 10 --delta 1e-5 --method rdp");
  ASSERT_EQ(s.status, 0) << s.err;
  const auto js = nlohmann::json::parse(s.out);
  EXPECT_EQ(js["inputs"]["steps"], 2344);
  EXPECT_NEAR(js["epsilon"].get<double>(),
              dpx::accounting::account_gaussian(
                  dpx::accounting::method::rdp, 1.1, 256.0 / 60000.0, 2344, 1e-5),
              1e-12);
  // issue 17 defect 4: tiny noise answers at once with the documented "inf" (docs/cli.md)
  auto t =
      run("account --mechanism gaussian --noise-multiplier 1e-200 --steps 10 --delta 1e-5 "
          "--method pld");
  ASSERT_EQ(t.status, 0) << t.err;
  const auto tj = nlohmann::json::parse(t.out);
  EXPECT_EQ(tj["epsilon"], "inf") << t.out;
  EXPECT_TRUE(tj.contains("epsilon_note")) << t.out;
}

TEST_F(Cli, CalibrateAndCompose) {
  auto g = run("calibrate --mechanism gaussian --epsilon 1 --delta 1e-5 --method analytic");
  ASSERT_EQ(g.status, 0) << g.err;
  const auto jg = nlohmann::json::parse(g.out);
  EXPECT_NEAR(jg["noise_multiplier"].get<double>(), 3.7306, 1e-4) << g.out;
  EXPECT_EQ(jg["inputs"]["epsilon"], 1.0);
  EXPECT_LE(jg["achieved"]["epsilon"].get<double>(), 1.0) << g.out;
  EXPECT_GE(jg["achieved"]["epsilon"].get<double>(), 1.0 - 1e-6) << g.out;
  auto l = run("calibrate --mechanism laplace --epsilon 2 --steps 4");
  ASSERT_EQ(l.status, 0) << l.err;
  const auto jl = nlohmann::json::parse(l.out);
  EXPECT_DOUBLE_EQ(jl["scale"].get<double>(), 2.0) << l.out;
  EXPECT_LE(jl["achieved"]["epsilon"].get<double>(), 2.0) << l.out;
  auto p =
      run("calibrate --mechanism gaussian --epsilon 2 --delta 1e-5 --steps 1000 "
          "--sampling-rate 0.01 --method pld");
  ASSERT_EQ(p.status, 0) << p.err;
  const auto jp = nlohmann::json::parse(p.out);
  EXPECT_LE(jp["achieved"]["epsilon"].get<double>(), 2.0) << p.out;
  EXPECT_GE(jp["achieved"]["epsilon"].get<double>(), 2.0 * (1 - 1e-3)) << p.out;
  auto c = run("compose --rule basic --epsilon0 0.5 --k 4 --delta-slack 1e-6");
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(c.out, "{\"schema_version\":1,\"epsilon\":2.0,\"delta\":0.0}\n");
}

TEST_F(Cli, BadInputExitTwoNothingOnStdout) {
  const std::pair<const char*, const char*> cases[] = {
      {"account --mechanism gaussian --noise-multiplier -1 --steps 10 --delta 1e-5 --method rdp",
       "--noise-multiplier"},
      {"account --mechanism gaussian --noise-multiplier 1 --steps 10 --delta 1.5 --method rdp",
       "--delta"},
      {"account --mechanism gaussian --noise-multiplier 1 --sampling-rate 0 --steps 10 "
       "--delta 1e-5 --method rdp",
       "--sampling-rate"},
      {"account --mechanism gaussian --noise-multiplier 1 --steps 0 --delta 1e-5 --method rdp",
       "--steps"},
      {"account --mechanism gaussian --noise-multiplier nan --steps 3 --delta 1e-5 --method rdp",
       "--noise-multiplier"},
      {"account --mechanism gaussian --noise-multiplier 1 --steps 3 --delta 1e-5 --method moments",
       "--method"},
      {"calibrate --mechanism gaussian --epsilon inf --delta 1e-5 --method pld", "--epsilon"},
      {"calibrate --mechanism gaussian --epsilon 1 --delta 1e-5 --method magic", "--method"},
      {"compose --rule advanced --epsilon0 0.1 --k 10 --delta-slack 0", "--delta-slack"},
      {"compose --rule kov --epsilon0 -0.1 --k 10 --delta-slack 1e-6", "--epsilon0"},
  };
  for (const auto& [args, flag] : cases) {
    auto r = run(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_TRUE(r.out.empty()) << args << " -> " << r.out;
    EXPECT_EQ(lines(r.err), 1) << args << " -> " << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << " -> " << r.err;
  }
}

TEST_F(Cli, ErrorMessageNamesFlagOnceWithItsRealRange) {
  // main.cpp prefixes "dpx <command>: error: "; the message must not repeat it, and --delta0
  // must be reported as given (not negated) with its range [0, 1).
  auto c = run("compose --rule kov --epsilon0 0.1 --delta0 1 --k 3 --delta-slack 1e-6");
  EXPECT_EQ(c.status, 2);
  EXPECT_TRUE(c.out.empty()) << c.out;
  EXPECT_EQ(c.err, "dpx compose: error: --delta0 = 1 is invalid (must lie in [0, 1))\n");
  auto a = run(
      "account --mechanism gaussian --noise-multiplier -1 --steps 10 --delta 1e-5 --method rdp");
  EXPECT_EQ(a.status, 2);
  EXPECT_EQ(a.err.rfind("dpx account: error: --noise-multiplier = -1 is invalid", 0), 0u) << a.err;
  auto k = run("calibrate --mechanism gaussian --epsilon -2 --delta 1e-5 --method pld");
  EXPECT_EQ(k.status, 2);
  EXPECT_EQ(k.err.rfind("dpx calibrate: error: --epsilon = -2 is invalid", 0), 0u) << k.err;
}

TEST_F(Cli, EventsFileOneKindEqualsHomogeneousCall) {
  const auto dir = dpx::test::fresh_test_dir("dpx_accounting_events_");
  const auto one = (dir / "one.json").string();
  std::ofstream(one) << R"({"events": [{"kind": "subsampled_gaussian", "sampling_rate": 0.01,
                          "noise_multiplier": 1.0, "count": 1000}]})";
  for (const char* m : {"rdp", "pld"}) {
    auto f = run("account --events " + one + " --delta 1e-5 --method " + m);
    auto h = run(std::string("account --mechanism gaussian --noise-multiplier 1 --sampling-rate "
                             "0.01 --steps 1000 --delta 1e-5 --method ") +
                 m);
    ASSERT_EQ(f.status, 0) << f.err;
    ASSERT_EQ(h.status, 0) << h.err;
    EXPECT_EQ(nlohmann::json::parse(f.out)["epsilon"], nlohmann::json::parse(h.out)["epsilon"]);
  }
  // heterogeneous: every kind PLD takes; methods that cannot take them all say so
  const auto mix = (dir / "mix.json").string();
  std::ofstream(mix) << R"([{"kind": "gaussian", "noise_multiplier": 20, "count": 100},
    {"kind": "laplace", "noise_multiplier": 50, "count": 30},
    {"kind": "subsampled_gaussian", "sampling_rate": 0.01, "noise_multiplier": 1.0, "count": 1000},
    {"kind": "randomized_response", "epsilon": 0.5},
    {"kind": "pure_dp", "epsilon": 0.1, "count": 5},
    {"kind": "approx_dp", "epsilon": 0.1, "delta": 1e-8, "count": 5},
    {"kind": "discrete_pair", "p": [0.5, 0.5], "q": [0.4, 0.6]}])";
  auto a = run("account --events " + mix + " --delta 1e-5 --method all");
  ASSERT_EQ(a.status, 0) << a.err;
  const auto ja = nlohmann::json::parse(a.out);
  EXPECT_EQ(ja["inputs"]["releases"], 1142);
  EXPECT_TRUE(ja["results"][3]["unsupported"].get<bool>());  // rdp: no approx_dp events
  const auto& pld = ja["results"][5];
  EXPECT_LE(pld["epsilon_lower"].get<double>(), pld["epsilon"].get<double>());
  // the same events without the approx-DP one: PLD <= RDP
  const auto mix2 = (dir / "mix2.json").string();
  std::ofstream(mix2) << R"([{"kind": "gaussian", "noise_multiplier": 20, "count": 100},
    {"kind": "laplace", "noise_multiplier": 50, "count": 30},
    {"kind": "subsampled_gaussian", "sampling_rate": 0.01, "noise_multiplier": 1.0, "count": 1000}])";
  auto p =
      nlohmann::json::parse(run("account --events " + mix2 + " --delta 1e-5 --method pld").out);
  auto r =
      nlohmann::json::parse(run("account --events " + mix2 + " --delta 1e-5 --method rdp").out);
  EXPECT_LT(p["epsilon"].get<double>(), r["epsilon"].get<double>());
  // bad files: one line on stderr, exit 2
  const auto bad = (dir / "bad.json").string();
  std::ofstream(bad) << R"([{"kind": "gaussian"}])";
  auto b = run("account --events " + bad + " --delta 1e-5 --method pld");
  EXPECT_EQ(b.status, 2);
  EXPECT_NE(b.err.find("--events"), std::string::npos) << b.err;
  EXPECT_TRUE(b.out.empty());
}

// A key repeated inside one object is refused (nlohmann alone keeps the last one: a mis-merged
// ledger {"count": 3, "count": 1} would account one release instead of three, or four). The
// control without the repetition is accepted, so the refusal is the duplicate's.
TEST_F(Cli, EventsFileWithARepeatedKeyIsRefused) {
  const auto dir = dpx::test::fresh_test_dir("dpx_accounting_events_dup_");
  const std::vector<std::string> repeated = {
      R"([{"kind": "pure_dp", "epsilon": 1, "count": 3, "count": 1}])",
      R"([{"kind": "pure_dp", "epsilon": 1, "epsilon": 0.1}])",
      R"([{"kind": "pure_dp", "kind": "pure_dp", "epsilon": 1}])",
      R"({"events": [{"kind": "pure_dp", "epsilon": 1, "count": 3}],
          "events": [{"kind": "pure_dp", "epsilon": 1}]})",
  };
  int i = 0;
  for (const auto& text : repeated) {
    const auto f = (dir / ("dup" + std::to_string(i++) + ".json")).string();
    std::ofstream(f) << text;
    const auto r = run("account --events " + f + " --delta 1e-5 --method basic");
    EXPECT_EQ(r.status, 2) << text << "\n" << r.out;
    EXPECT_NE(r.err.find("repeats a key"), std::string::npos) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // The same keys in different objects are fine: pure_dp epsilon 1 three times + once = 4.
  const auto ok = (dir / "ok.json").string();
  std::ofstream(ok) << R"([{"kind": "pure_dp", "epsilon": 1, "count": 3},
                           {"kind": "pure_dp", "epsilon": 1, "count": 1}])";
  const auto r = run("account --events " + ok + " --delta 1e-5 --method basic");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["inputs"]["releases"], 4);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(r.out)["epsilon"].get<double>(), 4.0);
}

TEST_F(Cli, SubsampledLaplaceAndWithoutReplacement) {
  // Poisson-subsampled Laplace: rdp and pld (the others need a pure-DP description: basic,
  // advanced and kov use Balle et al.'s amplified epsilon); PLD <= RDP.
  auto l =
      run("account --mechanism laplace --scale 2 --sampling-rate 0.05 --steps 200 --delta 1e-6 "
          "--method all");
  ASSERT_EQ(l.status, 0) << l.err;
  const auto jl = nlohmann::json::parse(l.out);
  EXPECT_EQ(jl["inputs"]["sampling"], "poisson");
  double pld = -1, rdp = -1;
  for (const auto& r : jl["results"]) {
    if (r["method"] == "pld") pld = r["epsilon"].get<double>();
    if (r["method"] == "rdp") rdp = r["epsilon"].get<double>();
  }
  ASSERT_GT(pld, 0);
  EXPECT_LT(pld, rdp);
  // fixed-size batches, both relations, inputs echoed; events file with one kind equals it
  const auto dir = dpx::test::fresh_test_dir("dpx_accounting_wor_");
  for (const char* rel : {"replace_one", "add_remove"}) {
    auto w =
        run(std::string("account --mechanism gaussian --noise-multiplier 1.2 --sampling "
                        "without_replacement --neighbouring ") +
            rel + " --dataset-size 1000 --batch-size 20 --steps 300 --delta 1e-5 --method pld");
    ASSERT_EQ(w.status, 0) << w.err;
    const auto jw = nlohmann::json::parse(w.out);
    EXPECT_EQ(jw["inputs"]["neighbouring"], rel);
    EXPECT_EQ(jw["inputs"]["batch_size"], 20);
    const auto f = (dir / (std::string(rel) + ".json")).string();
    std::ofstream(f) << R"([{"kind": "sampled_without_replacement", "noise": "gaussian",
      "noise_multiplier": 1.2, "batch_size": 20, "dataset_size": 1000, "neighbouring": ")"
                     << rel << R"(", "count": 300}])";
    auto e = run("account --events " + f + " --delta 1e-5 --method pld");
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_EQ(nlohmann::json::parse(e.out)["epsilon"], jw["epsilon"]);
  }
  // replace-one without fixed batches is refused; a batch above the dataset too
  auto bad =
      run("account --mechanism gaussian --noise-multiplier 1 --sampling-rate 0.1 --steps 10 "
          "--neighbouring replace_one --delta 1e-5 --method pld");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--neighbouring"), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty());
  auto big =
      run("account --mechanism gaussian --noise-multiplier 1 --sampling without_replacement "
          "--dataset-size 10 --batch-size 11 --steps 5 --delta 1e-5 --method pld");
  EXPECT_EQ(big.status, 2);
  EXPECT_NE(big.err.find("--batch-size"), std::string::npos) << big.err;
}

// ---- DP-SGD flags and --method's default (dp_sgd_flags.hpp, shared by account and calibrate)

namespace {
/// The --help line of `flag` (CLI11 prints each option with its description on one line).
std::string help_line(const std::string& help, const std::string& flag) {
  std::istringstream is(help);
  for (std::string line; std::getline(is, line);) {
    const auto at = line.find(flag);
    if (at != std::string::npos && line.find_first_not_of(' ') == at) return line;
  }
  return {};
}
}  // namespace

// dpx calibrate --dataset-size N --batch-size B --epochs E: q = B / N and T = ceil(E N / B)
// (here 256 / 60000 and ceil(1171.875) = 1172, written out), stated in "inputs"; the returned
// sigma re-accounted by the library and by `dpx account` with the same DP-SGD flags gives
// epsilon <= the target and within the calibration's tolerance (1e-3 relative) of it; the
// answer is the one of --sampling-rate q --steps T.
TEST_F(Cli, CalibrateTakesTheDpSgdFlags) {
  namespace acc = dpx::accounting;
  const double q = 256.0 / 60000.0;
  const std::int64_t t = 1172;
  for (const char* m : {"pld", "rdp"}) {
    SCOPED_TRACE(m);
    const std::string sgd = " --dataset-size 60000 --batch-size 256 --epochs 5";
    auto r = run(std::string("calibrate --mechanism gaussian --epsilon 3 --delta 1e-5") + sgd +
                 " --method " + m);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["inputs"]["dataset_size"], 60000);
    EXPECT_EQ(j["inputs"]["batch_size"], 256);
    EXPECT_EQ(j["inputs"]["epochs"], 5.0);
    EXPECT_EQ(j["inputs"]["sampling_rate"].get<double>(), q) << r.out;
    EXPECT_EQ(j["inputs"]["steps"].get<std::int64_t>(), t) << r.out;
    const double s = j["noise_multiplier"].get<double>();
    const double e = acc::account_gaussian(acc::parse_method(m), s, q, t, 1e-5);
    EXPECT_LE(e, 3.0);
    EXPECT_GE(e, 3.0 * (1 - 1e-3));
    EXPECT_EQ(j["achieved"]["epsilon"].get<double>(), e);
    auto a = run("account --mechanism gaussian --noise-multiplier " + j["noise_multiplier"].dump() +
                 sgd + " --delta 1e-5 --method " + m);
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_LE(nlohmann::json::parse(a.out)["epsilon"].get<double>(), 3.0) << a.out;
    auto same = run(std::string("calibrate --mechanism gaussian --epsilon 3 --delta 1e-5 ") +
                    "--sampling-rate " + nlohmann::json(q).dump() + " --steps 1172 --method " + m);
    ASSERT_EQ(same.status, 0) << same.err;
    EXPECT_EQ(nlohmann::json::parse(same.out)["noise_multiplier"].get<double>(), s);
  }
}

TEST_F(Cli, DpSgdFlagsBadInputExitTwoNamingTheFlag) {
  const std::string g = "calibrate --mechanism gaussian --epsilon 3 --delta 1e-5 ";
  const std::string a = "account --mechanism gaussian --noise-multiplier 1 --delta 1e-5 ";
  const std::pair<std::string, const char*> cases[] = {
      {g + "--dataset-size 100 --batch-size 10", "--dataset-size"},
      {g + "--epochs 2", "--dataset-size"},
      {g + "--dataset-size 0 --batch-size 1 --epochs 1", "--dataset-size"},
      {g + "--dataset-size 100 --batch-size 200 --epochs 1", "--batch-size"},
      {g + "--dataset-size 100 --batch-size 0 --epochs 1", "--batch-size"},
      {g + "--dataset-size 100 --batch-size 10 --epochs 0", "--epochs"},
      {g + "--dataset-size 100 --batch-size 10 --epochs -1", "--epochs"},
      {g + "--dataset-size 1 --batch-size 1 --epochs 1e13", "--epochs"},
      {g + "--dataset-size 100 --batch-size 10 --epochs 1 --steps 10", "--steps"},
      {g + "--dataset-size 100 --batch-size 10 --epochs 1 --sampling-rate 0.1", "--sampling-rate"},
      {g + "--dataset-size 100 --batch-size 10 --epochs 1 --method analytic", "--method"},
      {"calibrate --mechanism laplace --epsilon 1 --dataset-size 100 --batch-size 10 --epochs 1",
       "--dataset-size"},
      {a + "--dataset-size 100 --batch-size 10", "--dataset-size"},
      {a + "--dataset-size 100 --batch-size 200 --epochs 1", "--batch-size"},
      {a + "--dataset-size 100 --batch-size 10 --epochs 0", "--epochs"},
      {a + "--dataset-size 100 --batch-size 10 --epochs 1 --steps 3", "--steps"},
  };
  for (const auto& [args, flag] : cases) {
    auto r = run(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_TRUE(r.out.empty()) << args << " -> " << r.out;
    EXPECT_EQ(lines(r.err), 1) << args << " -> " << r.err;
    // "<flag> = <value> is invalid (...)": the flag's own check, not CLI11's unknown-option error
    EXPECT_NE(r.err.find(std::string(flag) + " = "), std::string::npos) << args << " -> " << r.err;
    EXPECT_NE(r.err.find("is invalid"), std::string::npos) << args << " -> " << r.err;
  }
}

// --method: one default, pld, in every command that has the flag, shown in --help; omitting it
// gives the answer of --method pld. calibrate --help lists the DP-SGD flags.
TEST_F(Cli, MethodDefaultsToPldAndHelpSaysSo) {
  for (const char* cmd : {"account", "calibrate"}) {
    auto h = run(std::string(cmd) + " --help");
    ASSERT_EQ(h.status, 0) << h.err;
    const std::string line = help_line(h.out, "--method");
    EXPECT_NE(line.find("(default pld"), std::string::npos) << cmd << ": " << h.out;
    for (const char* f : {"--dataset-size", "--batch-size", "--epochs"})
      EXPECT_FALSE(help_line(h.out, f).empty()) << cmd << " --help lacks " << f << ": " << h.out;
  }
  const std::string acc =
      "account --mechanism gaussian --noise-multiplier 1 --sampling-rate 0.01 --steps 100 "
      "--delta 1e-5";
  auto a0 = run(acc), a1 = run(acc + " --method pld");
  ASSERT_EQ(a0.status, 0) << a0.err;
  EXPECT_EQ(a0.out, a1.out);
  EXPECT_EQ(nlohmann::json::parse(a0.out)["method"], "pld");
  const std::string cal =
      "calibrate --mechanism gaussian --epsilon 2 --delta 1e-5 --sampling-rate 0.01 --steps 100";
  auto c0 = run(cal), c1 = run(cal + " --method pld");
  ASSERT_EQ(c0.status, 0) << c0.err;
  EXPECT_EQ(c0.out, c1.out);
  EXPECT_EQ(nlohmann::json::parse(c0.out)["inputs"]["method"], "pld");
  // Laplace with --delta: pld too; without --delta (nothing for pld to spend): basic.
  auto l0 = run("calibrate --mechanism laplace --epsilon 2 --steps 4 --delta 1e-5");
  auto l1 = run("calibrate --mechanism laplace --epsilon 2 --steps 4 --delta 1e-5 --method pld");
  ASSERT_EQ(l0.status, 0) << l0.err;
  EXPECT_EQ(l0.out, l1.out);
  auto lb = run("calibrate --mechanism laplace --epsilon 2 --steps 4");
  ASSERT_EQ(lb.status, 0) << lb.err;
  EXPECT_EQ(nlohmann::json::parse(lb.out)["achieved"]["method"], "basic");
}
