// The output contract of the private commands (dpx/core/output_contract.hpp; docs/cli.md,
// "Output contract"), end to end on the real executable:
// - every private command (dpx fit --solver istdp|noisy_pgd|dp_sgd, dp_sgd with and without
//   --public-size; dpx mean at item level with --tau and --variance-bound, at user level, and
//   local) runs on two neighbouring datasets (replace one row, remove one row, replace one user,
//   as the command's relation says) with the same seed: every printed key is classified, none is
//   a diagnostic, and every key outside "release" is identical;
// - positive controls (the test has power): on the same pairs a release field differs, and with
//   --nonprivate-diagnostics the diagnostics (the exact objective) differ, labelled as such;
// - the exact objective of a private fit is withheld by default: knowing the other rows and the
//   released coefficients, one private y could be solved for from it;
// - ISTDP --variant as_published prints "epsilon": null and "delta": null (it is not private);
// - the docs block is the table's rendering (DPX_WRITE_DOCS=1 rewrites it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "dpx/core/output_contract.hpp"

namespace {

namespace fs = std::filesystem;
using dpx::core::output_class;
using json = nlohmann::json;

/// A deterministic pseudo-random number in [-1, 1) (64-bit LCG, Knuth's MMIX constants): the
/// data need no statistical property, only fixed values.
struct lcg {
  std::uint64_t s;
  double next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return double(s >> 11) * 0x1.0p-52 - 1.0;
  }
};

struct row {
  double x1, x2, x3, y;
  std::string split;
};

std::vector<row> regression_rows(std::size_t train, std::size_t test) {
  lcg g{42};
  std::vector<row> rows;
  for (std::size_t i = 0; i < train + test; ++i) {
    // Rows inside the unit ball (the default public smoothness 1 holds).
    const double a = 0.5 * g.next(), b = 0.5 * g.next(), c = 0.5 * g.next();
    rows.push_back({a, b, c, 0.8 * a - 0.5 * b + 0.2 * g.next(), i < train ? "train" : "test"});
  }
  return rows;
}

void write_rows(const fs::path& p, const std::vector<row>& rows) {
  std::ofstream f(p, std::ios::binary);
  f.precision(17);
  f << "x1,x2,x3,y,split\n";
  for (const auto& r : rows)
    f << r.x1 << ',' << r.x2 << ',' << r.x3 << ',' << r.y << ',' << r.split << '\n';
}

/// The differences between two answers of one surface outside "release" (key: why), and
/// whether some release differs. Every key must be classified; a diagnostic must not appear
/// unless `diagnostics` (then inside "nonprivate_diagnostics" only).
struct comparison {
  std::vector<std::string> non_release_differences, errors;
  bool release_differs = false;
};

comparison compare(const std::string& surface, const json& a, const json& b, bool diagnostics) {
  comparison c;
  for (const json* side : {&a, &b})
    for (auto it = side->begin(); it != side->end(); ++it) {
      const std::string key = it.key();
      if (!dpx::core::is_classified(surface, key)) {
        c.errors.push_back("unclassified key '" + key + "'");
        continue;
      }
      const auto kind = dpx::core::classify(surface, key);
      if (kind == output_class::nonprivate_diagnostic) {
        if (!diagnostics) c.errors.push_back("diagnostic '" + key + "' printed without opt-in");
        if (!it->is_object() || !it->contains("note"))
          c.errors.push_back("diagnostic '" + key + "' is not a labelled object");
        else
          for (auto d = it->begin(); d != it->end(); ++d)
            if (!dpx::core::is_classified(surface, key + "." + d.key()))
              c.errors.push_back("unclassified key '" + key + "." + d.key() + "'");
      }
      if (side == &b) continue;
      const bool same = b.contains(key) && b.at(key) == *it;
      if (kind == output_class::release)
        c.release_differs = c.release_differs || !same;
      else if (!same)
        c.non_release_differences.push_back(key + ": " + it->dump() + " vs " +
                                            (b.contains(key) ? b.at(key).dump() : "absent"));
    }
  for (auto it = b.begin(); it != b.end(); ++it)
    if (!a.contains(it.key())) c.non_release_differences.push_back(it.key() + " only in one");
  return c;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

class OutputContractCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = dpx::test::fresh_test_dir("dpx_contract_"); }
  void TearDown() override { fs::remove_all(dir_); }

  json run(std::vector<std::string> args) const {
    const auto r = dpx::test::run_dpx(args, dir_);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json::parse(r.out) : json::object();
  }

  /// Runs `args` with --input d (and d') and checks the contract; returns the comparison.
  comparison check_pair(const std::string& surface,
                        const fs::path& d,
                        const fs::path& d_prime,
                        std::vector<std::string> args,
                        bool diagnostics = false) const {
    auto with = [&](const fs::path& in) {
      auto a = args;
      a.insert(a.begin() + 1, {"--input", in.string()});
      return run(a);
    };
    const json a = with(d), b = with(d_prime);
    const comparison c = compare(surface, a, b, diagnostics);
    EXPECT_TRUE(c.errors.empty()) << joined(c.errors) << a.dump();
    ++covered_;
    return c;
  }

  fs::path dir_;
  mutable int covered_ = 0;
};

// ---- dpx fit ------------------------------------------------------------------------------

struct fit_case {
  std::string name;
  std::vector<std::string> flags;
  bool add_remove = false;
};

std::vector<fit_case> fit_cases() {
  const std::vector<std::string> common{
      "--target", "y", "--epsilon", "0.1", "--delta", "1e-5", "--seed", "11", "--max-iter", "30"};
  auto with = [&](std::vector<std::string> extra) {
    auto v = common;
    v.insert(v.end(), extra.begin(), extra.end());
    return v;
  };
  return {
      {"istdp", with({"--solver", "istdp", "--penalty", "mcp", "--lambda", "0.05"})},
      {"noisy_pgd", with({"--solver", "noisy_pgd", "--penalty", "l1", "--lambda", "0.01"})},
      {"noisy_pgd_research", with({"--solver", "noisy_pgd", "--research-grade", "--intercept"})},
      {"dp_sgd", with({"--solver", "dp_sgd"})},
      {"dp_sgd_public_size", with({"--solver", "dp_sgd", "--public-size", "100"}), true},
  };
}

TEST_F(OutputContractCli, PrivateFitPrintsNothingOutsideItsGuaranteeOnNeighbours) {
  auto rows = regression_rows(100, 20);
  write_rows(dir_ / "d.csv", rows);
  auto replaced = rows;  // replace one training row
  replaced[3] = {0.4, -0.3, 0.1, -2.5, "train"};
  write_rows(dir_ / "replace.csv", replaced);
  auto removed = rows;  // remove one training row
  removed.erase(removed.begin() + 3);
  write_rows(dir_ / "remove.csv", removed);
  for (const auto& fc : fit_cases()) {
    SCOPED_TRACE(fc.name);
    std::vector<std::string> args{"fit"};
    args.insert(args.end(), fc.flags.begin(), fc.flags.end());
    const fs::path other = dir_ / (fc.add_remove ? "remove.csv" : "replace.csv");
    const auto c = check_pair("dpx fit", dir_ / "d.csv", other, args);
    EXPECT_TRUE(c.non_release_differences.empty()) << joined(c.non_release_differences);
    // Power: the neighbours differ in what the command sees (the same noise, other data).
    EXPECT_TRUE(c.release_differs);

    // Positive control: the diagnostics, when asked for, do differ, and only inside the
    // labelled object.
    auto diag = args;
    diag.push_back("--nonprivate-diagnostics");
    const auto cd = check_pair("dpx fit", dir_ / "d.csv", other, diag, true);
    ASSERT_EQ(cd.non_release_differences.size(), 1u) << joined(cd.non_release_differences);
    EXPECT_EQ(cd.non_release_differences[0].rfind("nonprivate_diagnostics:", 0), 0u)
        << cd.non_release_differences[0];
  }
  std::cout << "dpx fit: " << covered_ << " runs over neighbouring pairs\n";
}

TEST_F(OutputContractCli, PrivateFitWithholdsTheObjectiveByDefault) {
  // From the objective at epsilon = 0.1, the other rows and the released coefficients, one
  // private y is a root of a quadratic (least squares): it must not be printed by default.
  write_rows(dir_ / "d.csv", regression_rows(100, 20));
  for (const auto& fc : fit_cases()) {
    SCOPED_TRACE(fc.name);
    std::vector<std::string> args{"fit", "--input", (dir_ / "d.csv").string()};
    args.insert(args.end(), fc.flags.begin(), fc.flags.end());
    const json j = run(args);
    for (const char* key :
         {"objective", "test_loss", "n_test", "iterations", "converged", "seconds"})
      EXPECT_FALSE(j.contains(key)) << key << " in " << j.dump();
    EXPECT_FALSE(j.contains("nonprivate_diagnostics"));
    // n_train: public under replace-one (printed), private under add/remove with a public size
    // (only the public size is printed).
    EXPECT_EQ(j.contains("n_train"), !fc.add_remove) << j.dump();
    if (fc.add_remove) {
      EXPECT_EQ(j["dp_sgd"]["public_size"], 100);
    } else {
      EXPECT_EQ(j["n_train"], 100);
    }
    EXPECT_NE(j["guarantee"].get<std::string>().find("(epsilon, delta)-DP"), std::string::npos);

    args.push_back("--nonprivate-diagnostics");
    const json d = run(args);
    ASSERT_TRUE(d.contains("nonprivate_diagnostics")) << d.dump();
    const json& nd = d["nonprivate_diagnostics"];
    EXPECT_NE(nd["note"].get<std::string>().find("NOT private"), std::string::npos);
    for (const char* key :
         {"objective", "iterations", "converged", "n_train", "n_test", "test_loss", "seconds"})
      EXPECT_TRUE(nd.contains(key)) << key << " missing from " << nd.dump();
    EXPECT_EQ(nd["n_train"], 100);
    EXPECT_EQ(nd["n_test"], 20);
    // Everything else is the default answer (same seed).
    json rest = d;
    rest.erase("nonprivate_diagnostics");
    EXPECT_EQ(rest, j);
  }
}

TEST_F(OutputContractCli, DiagnosticsFlagIsRefusedForTheNonprivateSolver) {
  write_rows(dir_ / "d.csv", regression_rows(50, 0));
  const auto r = dpx::test::run_dpx(
      {"fit", "--input", (dir_ / "d.csv").string(), "--target", "y", "--nonprivate-diagnostics"},
      dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--nonprivate-diagnostics"), std::string::npos) << r.err;
}

TEST_F(OutputContractCli, AsPublishedIstdpPrintsNoEpsilon) {
  write_rows(dir_ / "d.csv", regression_rows(100, 0));
  const json j = run({"fit",       "--input",   (dir_ / "d.csv").string(),
                      "--target",  "y",         "--solver",
                      "istdp",     "--variant", "as_published",
                      "--penalty", "mcp",       "--lambda",
                      "0.05",      "--epsilon", "1",
                      "--delta",   "1e-5",      "--max-iter",
                      "20",        "--seed",    "7"});
  EXPECT_TRUE(j["epsilon"].is_null()) << j.dump();
  EXPECT_TRUE(j["delta"].is_null()) << j.dump();
  EXPECT_NE(j["guarantee"].get<std::string>().find("NOT private"), std::string::npos);
}

// ---- dpx mean -----------------------------------------------------------------------------

TEST_F(OutputContractCli, MeanPrintsNothingOutsideItsGuaranteeOnNeighbours) {
  lcg g{7};
  std::vector<double> x;
  std::vector<int> user;
  for (int i = 0; i < 400; ++i) {
    x.push_back(2.0 + g.next());
    user.push_back(i % 80);  // 80 users, 5 rows each
  }
  auto write = [&](const fs::path& p, const std::vector<double>& v, const std::vector<int>& u) {
    std::ofstream f(p, std::ios::binary);
    f.precision(17);
    f << "x,user\n";
    for (std::size_t i = 0; i < v.size(); ++i) f << v[i] << ",u" << u[i] << '\n';
  };
  write(dir_ / "d.csv", x, user);
  auto xr = x;
  xr[5] = 40.0;  // replace one row (of user u5)
  write(dir_ / "row.csv", xr, user);
  // Replace user u5: all its rows changed, and it has 3 rows instead of 5.
  std::vector<double> xu;
  std::vector<int> uu;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (user[i] != 5) {
      xu.push_back(x[i]);
      uu.push_back(user[i]);
    }
  for (int k = 0; k < 3; ++k) {
    xu.push_back(-30.0);
    uu.push_back(5);
  }
  write(dir_ / "user.csv", xu, uu);

  const std::vector<std::string> base{"mean", "--column", "x", "--epsilon", "1", "--seed", "5"};
  struct mean_case {
    std::string name, other;
    std::vector<std::string> flags;
  };
  const std::vector<mean_case> cases{
      {"item_tau", "row.csv", {"--delta", "1e-6", "--tau", "1"}},
      {"item_variance_bound", "row.csv", {"--delta", "1e-6", "--variance-bound", "0.5"}},
      {"item_research_grade", "row.csv", {"--delta", "1e-6", "--tau", "1", "--research-grade"}},
      {"user_tau", "user.csv", {"--delta", "1e-6", "--tau", "1", "--user-column", "user"}},
      {"user_variance_bound",
       "user.csv",
       {"--delta",
        "1e-6",
        "--variance-bound",
        "0.5",
        "--user-column",
        "user",
        "--rows-per-user",
        "5"}},
      {"local", "row.csv", {"--tau", "1", "--local", "--bound", "4"}},
  };
  for (const auto& mc : cases) {
    SCOPED_TRACE(mc.name);
    auto args = base;
    args.insert(args.end(), mc.flags.begin(), mc.flags.end());
    const auto c = check_pair("dpx mean", dir_ / "d.csv", dir_ / mc.other, args);
    EXPECT_TRUE(c.non_release_differences.empty()) << joined(c.non_release_differences);
    EXPECT_TRUE(c.release_differs);  // power: the same noise on other data
  }
  std::cout << "dpx mean: " << covered_ << " runs over neighbouring pairs\n";
}

// Positive control of the comparison itself: an answer that echoes a data statistic outside
// "release" (the exact objective at top level, as dpx fit printed it) is caught.
TEST(OutputContractCompare, CatchesADataStatisticOutsideTheRelease) {
  const json a = {{"schema_version", 1}, {"coefficients", {0.1}}, {"objective", 0.25}};
  const json b = {{"schema_version", 1}, {"coefficients", {0.2}}, {"objective", 0.31}};
  const auto c = compare("dpx fit", a, b, false);
  EXPECT_FALSE(c.errors.empty());  // "objective" is not a top-level key of the contract
  const json n1 = {{"schema_version", 1}, {"n_train", 100}};
  const json n2 = {{"schema_version", 1}, {"n_train", 99}};
  EXPECT_EQ(compare("dpx fit", n1, n2, false).non_release_differences.size(), 1u);
}

// ---- the docs block ------------------------------------------------------------------------

TEST(OutputContractDocs, CliMdHoldsTheGeneratedTable) {
  const fs::path md = fs::path(DPX_TEST_SOURCE_DIR) / "docs" / "cli.md";
  std::string text = dpx::test::slurp(md);
  const std::string begin(dpx::core::output_contract_begin), end(dpx::core::output_contract_end);
  const auto b = text.find(begin);
  const auto e = text.find(end);
  ASSERT_NE(b, std::string::npos) << "docs/cli.md has no output contract block";
  ASSERT_NE(e, std::string::npos);
  const std::string block = text.substr(b, e + end.size() + 1 - b);
  const std::string want = dpx::core::output_contract_markdown();
  if (block != want && std::getenv("DPX_WRITE_DOCS") != nullptr) {
    text.replace(b, block.size(), want);
    std::ofstream(md, std::ios::binary) << text;
    GTEST_SKIP() << "rewrote " << md;
  }
  EXPECT_EQ(block, want) << "regenerate with DPX_WRITE_DOCS=1 ctest -R OutputContractDocs";
}

}  // namespace
