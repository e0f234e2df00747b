// One JSON shape per command (issue 21, "every command's JSON validated against its documented
// schema"; docs/cli.md "JSON output", docs/cli-schema.json):
// - every command that prints JSON (account, calibrate, compose, audit, mean, fit, generate
//   --describe, sample --describe, status --json, compare) is run on representative inputs (each
//   optional branch of its output at least once) and its answer is checked against its entry in
//   docs/cli-schema.json: required keys present, no undocumented key, every value of the
//   documented type (enum / const too), recursively;
// - the answer is one compact line by default and the same value indented with --pretty;
// - every command of the schema is exercised, and each has --pretty in its --help;
// - negative controls: the validator rejects a missing key, an undocumented key, a wrong type
//   and a wrong enum value (so the check can fail).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const fs::path presets = DPX_INTEGRATION_PRESETS;
const fs::path schema_file = presets / ".." / ".." / ".." / "docs" / "cli-schema.json";

bool has_type(const json& v, const std::string& t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  if (t == "integer") return v.is_number_integer();
  if (t == "number") return v.is_number();
  ADD_FAILURE() << "schema names an unknown type '" << t << "'";
  return false;
}

/// The subset of JSON Schema docs/cli-schema.json uses (see its "description"). Appends one
/// message per violation, naming the path.
void validate(const json& v,
              const json& schema,
              const json& refs,
              const std::string& path,
              std::vector<std::string>& errors) {
  if (schema.contains("$ref")) {
    const std::string name = schema["$ref"];
    if (!refs.contains(name)) {
      errors.push_back(path + ": unknown $ref " + name);
      return;
    }
    validate(v, refs[name], refs, path, errors);
    return;
  }
  if (schema.contains("type")) {
    const json& t = schema["type"];
    bool ok = false;
    if (t.is_string()) {
      ok = has_type(v, t);
    } else {
      for (const auto& x : t) ok = ok || has_type(v, x);
    }
    if (!ok) {
      errors.push_back(path + ": " + v.dump() + " is not of type " + t.dump());
      return;
    }
  }
  if (schema.contains("const") && v != schema["const"])
    errors.push_back(path + ": " + v.dump() + " != " + schema["const"].dump());
  if (schema.contains("enum")) {
    bool found = false;
    for (const auto& e : schema["enum"]) found = found || e == v;
    if (!found) errors.push_back(path + ": " + v.dump() + " not in " + schema["enum"].dump());
  }
  if (v.is_object()) {
    const json props = schema.value("properties", json::object());
    for (const auto& r : schema.value("required", json::array()))
      if (!v.contains(r.get<std::string>()))
        errors.push_back(path + ": missing required key " + r.dump());
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string p = path + "." + it.key();
      if (props.contains(it.key())) {
        validate(it.value(), props[it.key()], refs, p, errors);
      } else if (schema.contains("additionalProperties") &&
                 schema["additionalProperties"].is_object()) {
        validate(it.value(), schema["additionalProperties"], refs, p, errors);
      } else {
        errors.push_back(p + ": key not documented in docs/cli-schema.json");
      }
    }
  }
  if (v.is_array() && schema.contains("items")) {
    for (std::size_t i = 0; i < v.size(); ++i)
      validate(v[i], schema["items"], refs, path + "[" + std::to_string(i) + "]", errors);
  }
}

class JsonSchemaCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = dpx::test::fresh_test_dir("dpx_json_schema_");
    std::ifstream in(schema_file);
    ASSERT_TRUE(in) << schema_file;
    doc_ = json::parse(in);
  }
  void TearDown() override { fs::remove_all(dir_); }

  dpx::test::outcome dpx(const std::vector<std::string>& args) const {
    return dpx::test::run_dpx(args, dir_, {{"DPX_EXPERIMENTS_DIR", presets.string()}});
  }

  std::vector<std::string> errors_of(const json& v, const std::string& command) const {
    std::vector<std::string> errors;
    validate(v, doc_["commands"][command]["schema"], doc_["refs"], command, errors);
    return errors;
  }

  /// Runs `dpx args` (and again with --pretty) and checks the answer against `command`'s schema.
  void check(const std::string& command, std::vector<std::string> args) {
    ASSERT_TRUE(doc_["commands"].contains(command)) << command;
    exercised_.insert(command);
    const auto r = dpx(args);
    ASSERT_EQ(r.code, 0) << command << ": " << r.err;
    ASSERT_FALSE(r.out.empty()) << command;
    // Compact: exactly one line.
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << command << ": not one line:\n" << r.out;
    const json v = json::parse(r.out);
    const auto errors = errors_of(v, command);
    for (const auto& e : errors) ADD_FAILURE() << e << "\n  in: " << r.out;
    args.push_back("--pretty");
    const auto p = dpx(args);
    ASSERT_EQ(p.code, 0) << command << " --pretty: " << p.err;
    EXPECT_GT(std::count(p.out.begin(), p.out.end(), '\n'), 2) << p.out;
    const json pv = json::parse(p.out);
    // Same keys and types (the values of seeded commands are equal; compare the key sets).
    EXPECT_TRUE(errors_of(pv, command).empty()) << p.out;
    EXPECT_EQ(pv.size(), v.size()) << command;
  }

  fs::path dir_;
  json doc_;
  std::set<std::string> exercised_;
};

TEST_F(JsonSchemaCli, ValidatorCanFail) {
  json ok = {{"schema_version", 1}, {"epsilon", 1.0}, {"delta", 0.0}};
  EXPECT_TRUE(errors_of(ok, "compose").empty());
  json missing = ok;
  missing.erase("delta");
  EXPECT_EQ(errors_of(missing, "compose").size(), 1u);
  json extra = ok;
  extra["eps"] = 1.0;
  EXPECT_EQ(errors_of(extra, "compose").size(), 1u);
  json wrong = ok;
  wrong["delta"] = "0";
  EXPECT_EQ(errors_of(wrong, "compose").size(), 1u);
  json version = ok;
  version["schema_version"] = 2;
  EXPECT_EQ(errors_of(version, "compose").size(), 1u);
  json noise = {{"schema_version", 1},
                {"estimate", 0.0},
                {"clip_range", {0.0, 1.0}},
                {"epsilon", 1.0},
                {"delta", 1e-6},
                {"level", "item"},
                {"model", "central"},
                {"failed", false},
                {"n", 10},
                {"noise", "float_safe"},
                {"seeded", false},
                {"noise_note", ""}};
  EXPECT_TRUE(errors_of(noise, "mean").empty());
  noise["noise"] = "double";
  EXPECT_EQ(errors_of(noise, "mean").size(), 1u);
  noise["n"] = 1.5;  // an integer key given a fraction
  EXPECT_EQ(errors_of(noise, "mean").size(), 2u);
}

TEST_F(JsonSchemaCli, EveryCommandMatchesItsSchema) {
  // Accounting.
  check("account",
        {"account",
         "--mechanism",
         "gaussian",
         "--noise-multiplier",
         "1",
         "--steps",
         "10",
         "--delta",
         "1e-5",
         "--method",
         "rdp"});
  check("account",
        {"account",
         "--mechanism",
         "gaussian",
         "--noise-multiplier",
         "1",
         "--sampling-rate",
         "0.01",
         "--steps",
         "100",
         "--delta",
         "1e-5",
         "--method",
         "pld"});
  check("account",
        {"account",
         "--mechanism",
         "laplace",
         "--scale",
         "2",
         "--steps",
         "3",
         "--epsilon",
         "1",
         "--method",
         "kov"});
  std::ofstream(dir_ / "events.json")
      << R"([{"kind": "gaussian", "noise_multiplier": 2, "count": 3},
             {"kind": "pure_dp", "epsilon": 0.1}])";
  check("account", {"account", "--events", "events.json", "--delta", "1e-5", "--method", "rdp"});
  check("account_all",
        {"account",
         "--mechanism",
         "gaussian",
         "--noise-multiplier",
         "1",
         "--steps",
         "10",
         "--epsilon",
         "2",
         "--method",
         "all"});
  check("account_all",
        {"account",
         "--mechanism",
         "laplace",
         "--scale",
         "2",
         "--steps",
         "3",
         "--delta",
         "1e-5",
         "--method",
         "all"});
  check("calibrate",
        {"calibrate",
         "--mechanism",
         "gaussian",
         "--epsilon",
         "1",
         "--delta",
         "1e-5",
         "--method",
         "analytic"});
  check("calibrate",
        {"calibrate",
         "--mechanism",
         "gaussian",
         "--epsilon",
         "0.5",
         "--delta",
         "1e-5",
         "--method",
         "classical"});
  check("calibrate",
        {"calibrate",
         "--mechanism",
         "gaussian",
         "--epsilon",
         "1",
         "--delta",
         "1e-5",
         "--steps",
         "50",
         "--sampling-rate",
         "0.02",
         "--method",
         "rdp"});
  check("calibrate", {"calibrate", "--mechanism", "laplace", "--epsilon", "1"});
  check("calibrate",
        {"calibrate",
         "--mechanism",
         "gaussian",
         "--epsilon",
         "3",
         "--delta",
         "1e-5",
         "--dataset-size",
         "1000",
         "--batch-size",
         "50",
         "--epochs",
         "2"});
  check(
      "compose",
      {"compose", "--rule", "advanced", "--epsilon0", "0.1", "--k", "10", "--delta-slack", "1e-5"});
  check("compose", {"compose", "--rule", "basic", "--epsilon0", "1e308", "--k", "10"});  // "inf"
  // Audits.
  check("audit",
        {"audit", "--mechanism", "laplace", "--epsilon", "1", "--trials", "2000", "--seed", "1"});
  check("audit",
        {"audit",
         "--mechanism",
         "gaussian",
         "--noise-multiplier",
         "1",
         "--delta",
         "1e-5",
         "--trials",
         "2000",
         "--seed",
         "1"});
  check("audit",
        {"audit",
         "--mechanism",
         "randomized_response",
         "--epsilon",
         "1",
         "--trials",
         "2000",
         "--seed",
         "1",
         "--broken"});
  // Noise descriptions.
  check("sample", {"sample", "--mechanism", "laplace", "--epsilon", "1", "--describe"});
  check("sample",
        {"sample", "--mechanism", "laplace", "--scale", "3", "--float-safe", "--describe"});
  check("sample",
        {"sample",
         "--mechanism",
         "gaussian",
         "--epsilon",
         "1",
         "--delta",
         "1e-5",
         "--float-safe",
         "--describe"});
  check("sample", {"sample", "--mechanism", "gaussian", "--sigma", "2", "--describe"});
  check("sample", {"sample", "--mechanism", "discrete_laplace", "--scale", "2", "--describe"});
  check("sample", {"sample", "--mechanism", "discrete_gaussian", "--sigma", "2", "--describe"});
  check("sample",
        {"sample",
         "--mechanism",
         "randomized_response",
         "--epsilon",
         "1",
         "--categories",
         "3",
         "--describe"});
  // Data: generate, then mean and fit on it.
  check("generate", {"generate", "ar1", "--phi", "0.5", "--n", "10", "--describe"});
  check("generate", {"generate", "var1", "--n", "5", "--describe"});
  check("generate", {"generate", "sparse_linear", "--n", "10", "--n-test", "5", "--describe"});
  ASSERT_EQ(dpx({"generate", "ar1", "--n", "300", "--seed", "4", "--out", "ar.csv"}).code, 0);
  ASSERT_EQ(dpx({"generate",
                 "sparse_linear",
                 "--n",
                 "300",
                 "--n-test",
                 "50",
                 "--seed",
                 "4",
                 "--out",
                 "sl.csv"})
                .code,
            0);
  check("mean",
        {"mean",
         "--input",
         "ar.csv",
         "--column",
         "x",
         "--epsilon",
         "1",
         "--delta",
         "1e-6",
         "--tau",
         "3",
         "--seed",
         "1"});
  check("mean",
        {"mean",
         "--input",
         "ar.csv",
         "--column",
         "x",
         "--epsilon",
         "1",
         "--delta",
         "1e-6",
         "--tau",
         "3",
         "--seed",
         "1",
         "--research-grade"});
  check("mean",
        {"mean",
         "--input",
         "ar.csv",
         "--column",
         "x",
         "--epsilon",
         "1",
         "--tau",
         "3",
         "--local",
         "--bound",
         "5",
         "--seed",
         "1"});
  check("fit", {"fit", "--input", "sl.csv", "--target", "y", "--penalty", "l1", "--lambda", "0.1"});
  check("fit",
        {"fit",
         "--input",
         "sl.csv",
         "--target",
         "y",
         "--solver",
         "istdp",
         "--epsilon",
         "1",
         "--delta",
         "1e-5",
         "--max-iter",
         "20",
         "--seed",
         "1"});
  check("fit",
        {"fit",
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
         "--max-iter",
         "20",
         "--seed",
         "1",
         "--research-grade"});
  check("fit",
        {"fit",
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
         "--max-iter",
         "20",
         "--seed",
         "1",
         "--public-size",
         "300"});
  check("fit",
        {"fit",
         "--input",
         "sl.csv",
         "--target",
         "y",
         "--solver",
         "istdp",
         "--epsilon",
         "1",
         "--delta",
         "1e-5",
         "--max-iter",
         "20",
         "--seed",
         "1",
         "--nonprivate-diagnostics"});
  // Results: run twice, then status and compare.
  const std::vector<std::string> run{
      "run", "synthetic_rate", "--quick", "--quiet", "--threads", "1", "--no-figures", "--out"};
  auto a = run, b = run;
  a.push_back("A");
  b.insert(b.end(), {"B", "--set", "base_seed=5"});
  ASSERT_EQ(dpx(a).code, 0);
  ASSERT_EQ(dpx(b).code, 0);
  check("status", {"status", "synthetic_rate", "--out", "A", "--json"});
  check("compare", {"compare", "A", "B", "--top", "2"});

  // Every documented command was exercised and offers --pretty.
  for (auto it = doc_["commands"].begin(); it != doc_["commands"].end(); ++it) {
    EXPECT_TRUE(exercised_.count(it.key())) << it.key() << " has a schema but no test run";
    const std::string name = it.key().substr(0, it.key().find('_'));
    const auto help = dpx({name, "--help"});
    EXPECT_NE(help.out.find("--pretty"), std::string::npos) << name;
  }
}

}  // namespace
