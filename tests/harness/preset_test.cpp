// Properties checked (presets and grids, docs/presets.md):
// - grid expansion counts: cartesian product, zip groups, exclude, include (duplicates dropped);
// - geometric/linear ranges: exact end points, integer rounding, deduplication;
// - [fixed] merge and driver defaults fill every declared parameter; ints given for float
//   parameters are coerced so keys do not depend on how a number was written;
// - the canonical key and cell id do not depend on key order in the TOML, and cell ids are
//   unchanged when grid values are added;
// - data_hash depends only on the driver's data_keys;
// - strict validation: unknown keys, wrong types and TOML syntax errors are rejected with
//   file:line:column; unknown drivers list the registered drivers; unknown parameters list the
//   driver's parameters; missing required parameters, unknown figure/rate metrics and
//   parameters are rejected;
// - [quick] replaces grid entries, fixed entries and replications;
// - preset discovery: find_preset by name and path, list_presets with descriptions.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "../../experiments/synthetic/synthetic.hpp"
#include "dpx/core/hash.hpp"
#include "dpx/harness/preset.hpp"

namespace {

namespace fs = std::filesystem;
namespace h = dpx::harness;

const h::driver_registrar reg_preset{
    dpx::experiments::make_synthetic_power_law("preset_test_power_law")};

h::driver make_mixed_driver() {
  h::driver d;
  d.name = "preset_test_mixed";
  d.version = "1";
  d.params = {{"n", "", std::nullopt},
              {"epsilon", "", h::param_value{1.0}},
              {"mechanism", "", h::param_value{std::string("laplace")}},
              {"clip", "", h::param_value{1.0}},
              {"step", "", h::param_value{0.1}},
              {"centered", "", h::param_value{false}},
              {"iterations", "", h::param_value{std::int64_t{10}}}};
  d.data_keys = {"n"};
  d.metric_names = {"err"};
  d.run = [](const h::cell_context&) { return h::metrics{{"err", 1.0}}; };
  return d;
}
const h::driver_registrar reg_mixed{make_mixed_driver()};

const std::string header =
    "[experiment]\n"
    "name = \"t\"\n"
    "driver = \"preset_test_mixed\"\n"
    "base_seed = 1\n"
    "replications = 4\n";

h::preset parse(const std::string& body, bool quick = false) {
  return h::parse_preset(header + body, "test.toml", quick);
}

std::string error_of(const std::string& text, bool quick = false) {
  try {
    (void)h::parse_preset(text, "test.toml", quick);
  } catch (const h::preset_error& e) {
    return e.what();
  }
  return "(no error)";
}

std::set<std::string> ids(const std::vector<h::cell>& cells) {
  std::set<std::string> s;
  for (const auto& c : cells) s.insert(c.id);
  return s;
}

TEST(Grid, ProductZipExcludeIncludeCounts) {
  const auto p = parse(
      "[grid]\n"
      "n = [10, 20]\n"
      "epsilon = [0.5, 1.0, 2.0]\n"
      "[fixed]\n"
      "iterations = 5\n");
  EXPECT_EQ(h::expand_grid(p).size(), 6u);

  const auto z = parse(
      "[grid]\n"
      "n = [10, 20]\n"
      "epsilon = [0.5, 1.0, 2.0]\n"
      "[[grid.zip]]\n"
      "clip = [1.0, 2.0, 4.0, 8.0]\n"
      "step = [0.1, 0.05, 0.025, 0.0125]\n");
  const auto zc = h::expand_grid(z);
  EXPECT_EQ(zc.size(), 24u);  // 2 x 3 x 4 (zip varies together, not 4 x 4)
  for (const auto& c : zc) {
    EXPECT_DOUBLE_EQ(c.params.get_double("clip") * c.params.get_double("step"), 0.1);
  }

  const auto e = parse(
      "[grid]\n"
      "n = [10, 20]\n"
      "epsilon = [0.5, 1.0, 2.0]\n"
      "mechanism = [\"laplace\", \"gaussian\"]\n"
      "[[grid.exclude]]\n"
      "mechanism = \"gaussian\"\n"
      "epsilon = 2.0\n"
      "[[grid.exclude]]\n"
      "n = 10\n"
      "epsilon = 0.5\n");
  // 12 cells; drop (gaussian, eps 2) x 2 n = 2 and (n 10, eps 0.5) x 2 mechanisms = 2.
  EXPECT_EQ(h::expand_grid(e).size(), 8u);

  const auto i = parse(
      "[grid]\n"
      "n = [10, 20]\n"
      "[[grid.include]]\n"
      "n = 30\n"
      "epsilon = 4\n"
      "[[grid.include]]\n"
      "n = 10\n");  // duplicates an existing cell: kept once
  const auto ic = h::expand_grid(i);
  ASSERT_EQ(ic.size(), 3u);
  EXPECT_EQ(ic[2].params.get_int("n"), 30);
  EXPECT_EQ(ic[2].params.get_double("epsilon"), 4.0);
}

TEST(Grid, SingleCellWithoutGrid) {
  const auto p = parse("[fixed]\nn = 7\n");
  const auto cells = h::expand_grid(p);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0].key,
            "centered=false;clip=1;epsilon=1;iterations=10;mechanism=laplace;n=7;step=0.1");
}

TEST(Grid, Ranges) {
  const auto p = parse(
      "[grid]\n"
      "n = { geometric = [100, 100000], points = 4, integer = true }\n"
      "epsilon = { linear = [0.5, 2.0], points = 4 }\n"
      "clip = { geometric = [0.001, 1000], points = 7 }\n");
  ASSERT_EQ(p.grid.size(), 3u);
  auto axis = [&](const std::string& name) -> const std::vector<h::param_value>& {
    for (const auto& a : p.grid)
      if (a.name == name) return a.values;
    throw std::logic_error("no axis " + name);
  };
  const auto& n = axis("n");
  ASSERT_EQ(n.size(), 4u);
  EXPECT_EQ(std::get<std::int64_t>(n[0]), 100);
  EXPECT_EQ(std::get<std::int64_t>(n[1]), 1000);
  EXPECT_EQ(std::get<std::int64_t>(n[2]), 10000);
  EXPECT_EQ(std::get<std::int64_t>(n[3]), 100000);
  const auto& eps = axis("epsilon");
  EXPECT_EQ(std::get<double>(eps[0]), 0.5);
  EXPECT_EQ(std::get<double>(eps[1]), 1.0);
  EXPECT_EQ(std::get<double>(eps[3]), 2.0);
  const auto& clip = axis("clip");
  EXPECT_EQ(std::get<double>(clip.front()), 0.001);  // exact end points
  EXPECT_EQ(std::get<double>(clip.back()), 1000.0);
  EXPECT_NEAR(std::get<double>(clip[3]), 1.0, 1e-12);
  // Integer rounding that collides is deduplicated.
  const auto d = parse("[grid]\nn = { geometric = [1, 2], points = 5, integer = true }\n");
  EXPECT_EQ(d.grid[0].values.size(), 2u);
}

TEST(Grid, DefaultsFixedAndCoercion) {
  const auto a = parse("[grid]\nn = [10]\n[fixed]\nepsilon = 2\niterations = 3.0\n");
  const auto b = parse("[grid]\nn = [10]\n[fixed]\nepsilon = 2.0\niterations = 3\n");
  const auto ca = h::expand_grid(a), cb = h::expand_grid(b);
  ASSERT_EQ(ca.size(), 1u);
  EXPECT_EQ(ca[0].key, cb[0].key);
  EXPECT_TRUE(std::holds_alternative<double>(ca[0].params.at("epsilon")));
  EXPECT_TRUE(std::holds_alternative<std::int64_t>(ca[0].params.at("iterations")));
  EXPECT_EQ(ca[0].params.values().size(), 7u);  // every declared parameter resolved
  EXPECT_EQ(ca[0].params.get_string("mechanism"), "laplace");
}

TEST(Grid, KeyIndependentOfTomlOrder) {
  const auto a = parse(
      "[grid]\nn = [10, 20]\nepsilon = [0.5, 1.0]\nmechanism = [\"laplace\", \"gaussian\"]\n"
      "[fixed]\nclip = 2.0\nstep = 0.5\n");
  const auto b = parse(
      "[fixed]\nstep = 0.5\nclip = 2.0\n"
      "[grid]\nmechanism = [\"gaussian\", \"laplace\"]\nepsilon = [1.0, 0.5]\nn = [20, 10]\n");
  EXPECT_EQ(ids(h::expand_grid(a)), ids(h::expand_grid(b)));
  for (const auto& c : h::expand_grid(a)) {
    EXPECT_EQ(c.id.size(), 16u);
    EXPECT_EQ(c.id, dpx::core::hex16(dpx::core::stable_hash(c.key)));
  }
}

TEST(Grid, IdsStableWhenAddingGridValues) {
  const auto small = parse("[grid]\nn = [10, 20]\nepsilon = [0.5]\n");
  const auto big = parse("[grid]\nn = [5, 10, 20, 40]\nepsilon = [0.5, 1.0]\n");
  const auto s = ids(h::expand_grid(small)), b = ids(h::expand_grid(big));
  EXPECT_EQ(b.size(), 8u);
  for (const auto& id : s) EXPECT_TRUE(b.count(id)) << id;
}

TEST(Grid, DataHashUsesOnlyDataKeys) {
  const auto cells = h::expand_grid(parse("[grid]\nn = [10, 20]\nepsilon = [0.5, 1.0]\n"));
  ASSERT_EQ(cells.size(), 4u);
  for (const auto& a : cells) {
    for (const auto& b : cells) {
      const bool same_n = a.params.get_int("n") == b.params.get_int("n");
      EXPECT_EQ(a.data_hash == b.data_hash, same_n);
      EXPECT_EQ(a.hash == b.hash, &a == &b);
    }
  }
}

TEST(Validation, UnknownKeyHasLocation) {
  const std::string e = error_of(header + "replicates = 5\n");
  EXPECT_NE(e.find("test.toml:6:1"), std::string::npos) << e;
  EXPECT_NE(e.find("replicates"), std::string::npos) << e;
  const std::string top = error_of(header + "[grids]\nn = [1]\n");
  EXPECT_NE(top.find("test.toml:6:"), std::string::npos) << top;
  EXPECT_NE(top.find("grids"), std::string::npos) << top;
  const std::string fig =
      error_of(header + "[fixed]\nn = 1\n[[figure]]\nx = \"n\"\ny = \"err\"\ncolour = 1\n");
  EXPECT_NE(fig.find("test.toml:11:1"), std::string::npos) << fig;
  EXPECT_NE(fig.find("colour"), std::string::npos) << fig;
  const std::string range = error_of(header + "[grid]\nn = { geometric = [1, 10], point = 3 }\n");
  EXPECT_NE(range.find("point"), std::string::npos) << range;
  EXPECT_NE(range.find("test.toml:7:"), std::string::npos) << range;
}

TEST(Validation, WrongTypesHaveLocation) {
  const std::string e = error_of(
      "[experiment]\nname = \"t\"\ndriver = \"preset_test_mixed\"\nbase_seed = 1\nreplications = "
      "\"ten\"\n");
  EXPECT_NE(e.find("test.toml:5:16"), std::string::npos) << e;
  EXPECT_NE(e.find("replications"), std::string::npos) << e;
  const std::string p = error_of(header + "[grid]\nn = [10]\nmechanism = [1, 2]\n");
  EXPECT_NE(p.find("test.toml:8:14"), std::string::npos) << p;
  EXPECT_NE(p.find("mechanism"), std::string::npos) << p;
  const std::string i = error_of(header + "[grid]\nn = [10]\niterations = [2.5]\n");
  EXPECT_NE(i.find("iterations"), std::string::npos) << i;
  EXPECT_NE(i.find("integer"), std::string::npos) << i;
}

TEST(Validation, SyntaxErrorHasLocation) {
  const std::string e = error_of(header + "[grid]\nn = [10, 20\n");
  EXPECT_NE(e.find("test.toml:7:"), std::string::npos) << e;
  EXPECT_NE(e.find("syntax"), std::string::npos) << e;
}

TEST(Validation, UnknownDriverListsDrivers) {
  const std::string e =
      error_of("[experiment]\nname = \"t\"\ndriver = \"nope\"\nbase_seed = 1\nreplications = 1\n");
  EXPECT_NE(e.find("test.toml:3:10"), std::string::npos) << e;
  EXPECT_NE(e.find("nope"), std::string::npos) << e;
  EXPECT_NE(e.find("preset_test_mixed"), std::string::npos) << e;
  EXPECT_NE(e.find("preset_test_power_law"), std::string::npos) << e;
}

TEST(Validation, UnknownParameterListsParameters) {
  const std::string e = error_of(header + "[grid]\nn = [1]\neps = [1.0]\n");
  EXPECT_NE(e.find("test.toml:8:1"), std::string::npos) << e;
  EXPECT_NE(e.find("'eps'"), std::string::npos) << e;
  EXPECT_NE(e.find("epsilon"), std::string::npos) << e;
  EXPECT_NE(e.find("iterations"), std::string::npos) << e;
  EXPECT_NE(error_of(header + "[fixed]\nn = 1\nfoo = 2\n").find("'foo'"), std::string::npos);
}

TEST(Validation, OtherRejections) {
  // Missing required parameter n.
  EXPECT_NE(error_of(header + "[grid]\nepsilon = [1.0]\n").find("required parameter 'n'"),
            std::string::npos);
  // Swept and fixed at once.
  EXPECT_NE(error_of(header + "[grid]\nn = [1]\n[fixed]\nn = 2\n").find("both swept"),
            std::string::npos);
  // Zip lists of unequal length.
  EXPECT_NE(error_of(header + "[grid]\nn = [1]\n[[grid.zip]]\nclip = [1.0, 2.0]\nstep = [0.1]\n")
                .find("equal lengths"),
            std::string::npos);
  // Exclude on a parameter that is not swept.
  EXPECT_NE(
      error_of(header + "[grid]\nn = [1]\n[[grid.exclude]]\nclip = 1.0\n").find("not a swept"),
      std::string::npos);
  // Figure and rate fields must name known parameters / metrics.
  const std::string base = header + "[grid]\nn = [1, 2]\n";
  const std::string fy = error_of(base + "[[figure]]\nx = \"n\"\ny = \"error\"\n");
  EXPECT_NE(fy.find("unknown metric 'error'"), std::string::npos) << fy;
  EXPECT_NE(fy.find("err"), std::string::npos) << fy;
  const std::string rx =
      error_of(base + "[[rate]]\nx = \"size\"\ny = \"err\"\nexpected_slope = -1\n");
  EXPECT_NE(rx.find("unknown parameter 'size'"), std::string::npos) << rx;
  const std::string rg = error_of(
      base + "[[rate]]\nx = \"n\"\ny = \"err\"\nexpected_slope = -1\ngroup_by = [\"mech\"]\n");
  EXPECT_NE(rg.find("'mech'"), std::string::npos) << rg;
  EXPECT_NE(error_of(base + "[[rate]]\nx = \"n\"\ny = \"err\"\n").find("expected_slope"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[[figure]]\nx = \"n\"\ny = \"err\"\nstatistic = \"mode\"\n")
                .find("statistic"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[quick]\nepsilon = [1.0]\n").find("neither"), std::string::npos);
  EXPECT_NE(error_of(base + "[quick]\nreplication = 2\n").find("'replication'"), std::string::npos);
}

TEST(Validation, FigureAndRateParsed) {
  const auto p = parse(
      "[grid]\nn = [1, 2]\nmechanism = [\"a\", \"b\"]\n"
      "[[figure]]\nx = \"n\"\ny = \"err\"\nseries = \"mechanism\"\nwhere = { epsilon = 1 }\n"
      "reference_slopes = [-0.5]\nlogy = false\n"
      "[[rate]]\nname = \"r\"\nx = \"n\"\ny = \"err\"\nstatistic = \"median\"\ngroup_by = "
      "[\"mechanism\"]\n"
      "fit_range = [1, 2]\nexpected_slope = -0.5\ntolerance = 0.2\ninformational = true\n");
  ASSERT_EQ(p.figures.size(), 1u);
  EXPECT_EQ(p.figures[0].name, "err_vs_n");
  EXPECT_EQ(p.figures[0].series, std::vector<std::string>{"mechanism"});
  ASSERT_EQ(p.figures[0].where.size(), 1u);
  EXPECT_EQ(p.figures[0].where[0].value, "1");  // rendered as the double parameter 1.0
  EXPECT_FALSE(p.figures[0].logy);
  ASSERT_EQ(p.rates.size(), 1u);
  EXPECT_EQ(p.rates[0].name, "r");
  EXPECT_EQ(p.rates[0].statistic, "median");
  ASSERT_TRUE(p.rates[0].fit_range.has_value());
  EXPECT_EQ(p.rates[0].fit_range->second, 2.0);
  EXPECT_TRUE(p.rates[0].informational);
  EXPECT_EQ(p.rates[0].tolerance, 0.2);
  EXPECT_EQ(p.rates[0].check, dpx::harness::rate_check::ci_and_tolerance);
}

TEST(Validation, RateCheckModeParsedAndValidated) {
  const std::string base =
      "[grid]\nn = [1, 2]\n[[rate]]\nx = \"n\"\ny = \"err\"\nexpected_slope = -0.5\n";
  EXPECT_EQ(parse(base + "check = \"tolerance\"\n").rates[0].check,
            dpx::harness::rate_check::tolerance);
  EXPECT_EQ(parse(base + "check = \"ci\"\n").rates[0].check,
            dpx::harness::rate_check::ci_and_tolerance);
  const std::string e = error_of(header + base + "check = \"loose\"\n");
  EXPECT_NE(e.find("check"), std::string::npos) << e;
  EXPECT_NE(e.find("loose"), std::string::npos) << e;
}

TEST(Quick, OverridesGridFixedAndReplications) {
  const std::string body =
      "replication_block = 2\n"
      "[grid]\nn = [10, 20, 40, 80]\nepsilon = [0.5, 1.0]\n"
      "[fixed]\nclip = 3.0\n"
      "[quick]\nreplications = 2\nn = [10, 20]\nclip = 1.5\n";
  const auto full = parse(body, false);
  const auto quick = parse(body, true);
  EXPECT_EQ(full.replications, 4u);
  EXPECT_EQ(h::expand_grid(full).size(), 8u);
  EXPECT_FALSE(full.quick);
  EXPECT_TRUE(quick.quick);
  EXPECT_EQ(quick.replications, 2u);
  EXPECT_EQ(quick.replication_block, 2u);
  const auto qc = h::expand_grid(quick);
  EXPECT_EQ(qc.size(), 4u);
  for (const auto& c : qc) EXPECT_EQ(c.params.get_double("clip"), 1.5);
  // replication_block is capped at the quick replications when not overridden.
  const auto capped =
      parse("replication_block = 4\n[fixed]\nn = 1\n[quick]\nreplications = 3\n", true);
  EXPECT_EQ(capped.replication_block, 3u);
}

TEST(Discovery, FindAndListPresets) {
  const fs::path dir = fs::path(::testing::TempDir()) / "dpx_preset_discovery";
  fs::remove_all(dir);
  fs::create_directories(dir / "alpha");
  fs::create_directories(dir / "beta");
  fs::create_directories(dir / "empty");
  std::ofstream(dir / "alpha" / "preset.toml")
      << "[experiment]\nname = \"alpha\"\ndescription = \"first one\"\n";
  std::ofstream(dir / "beta" / "preset.toml") << "[experiment\n";
  const auto list = h::list_presets(dir);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].name, "alpha");
  EXPECT_EQ(list[0].description, "first one");
  EXPECT_EQ(list[1].name, "beta");
  EXPECT_NE(list[1].description.find("invalid"), std::string::npos);

  setenv("DPX_EXPERIMENTS_DIR", dir.c_str(), 1);
  EXPECT_EQ(h::experiments_dir(), dir);
  EXPECT_EQ(h::find_preset("alpha"), dir / "alpha" / "preset.toml");
  EXPECT_EQ(h::find_preset((dir / "alpha" / "preset.toml").string()),
            dir / "alpha" / "preset.toml");
  try {
    (void)h::find_preset("gamma");
    ADD_FAILURE() << "no error";
  } catch (const h::preset_error& e) {
    EXPECT_NE(std::string(e.what()).find("alpha, beta"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)h::find_preset("missing.toml"), std::invalid_argument);
  unsetenv("DPX_EXPERIMENTS_DIR");
  fs::remove_all(dir);
}

}  // namespace
