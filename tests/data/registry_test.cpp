// The model registry (dpx/data/registry.hpp): it lists every model, each model's defaults
// validate, generate finite rows of the declared shape and describe; ranges are enforced; the
// Gaussian-vector hook draws the same values as the generator.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/data/data.hpp"  // the umbrella header includes the registry

namespace {

using namespace dpx::data;

// Collects a generated table.
struct table final : table_sink {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows{{}};
  std::vector<std::string> words;
  void header(const std::vector<std::string>& c) override { columns = c; }
  void real(double v) override { rows.back().push_back(v); }
  void index(std::size_t v) override { rows.back().push_back(static_cast<double>(v)); }
  void word(std::string_view w) override {
    words.emplace_back(w);
    rows.back().push_back(0.0);
  }
  void end_row() override { rows.emplace_back(); }
  std::size_t size() const { return rows.size() - 1; }
};

dpx::rng::philox4x32 gen(std::uint64_t seed = 7) {
  return dpx::rng::stream(seed, 1, 0, dpx::rng::purpose::data);
}

TEST(DataRegistry, ListsEveryModelOnce) {
  // The catalogue of docs/data.md, written out independently of the registry.
  const std::set<std::string> expected = {"iid_gaussian",
                                          "student_t",
                                          "uniform",
                                          "beta",
                                          "ar1",
                                          "ar1_t",
                                          "arp",
                                          "ma",
                                          "arma",
                                          "var1",
                                          "toeplitz",
                                          "equicorrelated",
                                          "fgn",
                                          "block_toeplitz",
                                          "random_effects",
                                          "longitudinal",
                                          "nonparametric",
                                          "sparse_linear",
                                          "sparse_logistic"};
  std::set<std::string> listed;
  for (const auto& m : models()) EXPECT_TRUE(listed.insert(m.name).second) << m.name;
  EXPECT_EQ(listed, expected);
  for (const auto& name : expected) EXPECT_EQ(find_model(name).name, name);
  EXPECT_THROW(find_model("nope"), dpx::core::invalid_argument_error);
}

TEST(DataRegistry, EveryModelDeclaresItsParameters) {
  for (const auto& m : models()) {
    EXPECT_FALSE(m.summary.empty()) << m.name;
    EXPECT_FALSE(m.size.empty()) << m.name;
    EXPECT_FALSE(m.columns.empty()) << m.name;
    EXPECT_TRUE(m.realize) << m.name;
    std::set<std::string> names;
    for (const auto& p : m.params) {
      EXPECT_TRUE(names.insert(p.name).second) << m.name << "." << p.name;
      EXPECT_FALSE(p.description.empty()) << m.name << "." << p.name;
      // A derived default says how it is derived; a choice lists its choices.
      if (p.default_value.empty()) {
        EXPECT_FALSE(p.default_note.empty()) << m.name << "." << p.name;
      }
      if (p.type == param_type::choice) {
        EXPECT_FALSE(p.choices.empty()) << m.name;
      }
    }
  }
}

TEST(DataRegistry, DefaultsValidateGenerateAndDescribe) {
  for (const auto& m : models()) {
    SCOPED_TRACE(m.name);
    const param_values p(m);  // throws if a default is outside its own range
    constexpr std::size_t n = 40;
    auto g = gen();
    const realization r = m.realize(p, n, true, g);
    EXPECT_FALSE(r.parameters.items.empty());
    EXPECT_FALSE(r.theory.items.empty());
    table t;
    r.write(t);
    ASSERT_FALSE(t.columns.empty());
    ASSERT_GE(t.size(), n);  // panels write n users × T rows
    for (std::size_t i = 0; i < t.size(); ++i) {
      ASSERT_EQ(t.rows[i].size(), t.columns.size()) << "row " << i;
      for (double v : t.rows[i]) ASSERT_TRUE(std::isfinite(v)) << "row " << i;
    }
    // Every resolved parameter the user can set is echoed (derived defaults filled in).
    for (const auto& s : m.params) {
      EXPECT_NE(r.parameters.find(s.name), nullptr) << s.name;
    }
  }
}

TEST(DataRegistry, SameSeedSameTable) {
  for (const auto& m : models()) {
    SCOPED_TRACE(m.name);
    const param_values p(m);
    auto g1 = gen(3), g2 = gen(3), g3 = gen(4);
    table a, b, c;
    m.realize(p, 25, false, g1).write(a);
    m.realize(p, 25, false, g2).write(b);
    m.realize(p, 25, false, g3).write(c);
    EXPECT_EQ(a.rows, b.rows);
    EXPECT_NE(a.rows, c.rows);
  }
}

TEST(DataRegistry, RangesAndNamesAreEnforced) {
  const auto& ar1 = find_model("ar1");
  EXPECT_THROW(param_values(ar1, {{"phi", "1"}}), dpx::core::invalid_argument_error);
  EXPECT_THROW(param_values(ar1, {{"phi", ""}}), dpx::core::invalid_argument_error);
  EXPECT_THROW(param_values(ar1, {{"phi", "0.5x"}}), dpx::core::invalid_argument_error);
  EXPECT_THROW(param_values(ar1, {{"innovation_sd", "1e308"}}), dpx::core::invalid_argument_error);
  EXPECT_THROW(param_values(ar1, {{"innovation_sd", "nan"}}), dpx::core::invalid_argument_error);
  EXPECT_THROW(param_values(ar1, {{"theta", "0.5"}}), dpx::core::invalid_argument_error);
  EXPECT_EQ(param_values(ar1, {{"phi", "-0.25"}}).real("phi"), -0.25);
  EXPECT_EQ(param_values(ar1).real("phi"), 0.5);  // the default --help shows
  try {
    param_values(ar1, {{"innovation_sd", "-1"}}, param_values::naming::cli);
    FAIL() << "accepted a negative sd";
  } catch (const dpx::core::invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("--innovation-sd"), std::string::npos) << e.what();
  }
  const auto& bt = find_model("block_toeplitz");
  EXPECT_THROW(param_values(bt, {{"times", "-1"}}), dpx::core::invalid_argument_error);
  EXPECT_THROW(param_values(bt, {{"times", "0"}}), dpx::core::invalid_argument_error);
  const auto& np = find_model("nonparametric");
  EXPECT_THROW(param_values(np, {{"function", "cosine"}}), dpx::core::invalid_argument_error);
  EXPECT_EQ(param_values(np, {{"function", "vee"}}).choice("function"), "vee");
  // Every finite range bound is enforced: just outside it is refused, the bound itself only
  // when closed.
  for (const auto& m : models())
    for (const auto& s : m.params) {
      if (s.type != param_type::real) continue;
      SCOPED_TRACE(m.name + "." + s.name);
      const double below = s.range.lo - (std::abs(s.range.lo) * 1e-3 + 1e-3);
      EXPECT_THROW(param_values(m).set(s.name, below), dpx::core::invalid_argument_error);
      EXPECT_EQ(s.range.contains(s.range.lo), !s.range.lo_open);
      EXPECT_EQ(s.range.contains(s.range.hi), !s.range.hi_open);
    }
}

TEST(DataRegistry, GaussianVectorsDrawWhatTheGeneratorDraws) {
  std::size_t with_vector = 0;
  for (const auto& m : models()) {
    if (!m.vector) continue;
    SCOPED_TRACE(m.name);
    ++with_vector;
    param_values p(m);
    p.set("mu", 1.5);
    constexpr std::size_t n = 64;
    auto g1 = gen(11), g2 = gen(11);
    table t;
    const auto r = m.realize(p, n, true, g1);
    r.write(t);
    const auto v = m.vector(p, n);
    ASSERT_EQ(v->size(), n);
    std::vector<double> x(n);
    v->sample_into(x, g2);
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(x[i], t.rows[i][0]) << i;
    EXPECT_EQ(v->log_sobolev(), std::get<double>(*r.theory.find("log_sobolev")));
    EXPECT_EQ(v->mean_variance_constant(),
              std::get<double>(*r.theory.find("mean_variance_constant")));
  }
  EXPECT_EQ(with_vector, 4u);  // iid_gaussian, toeplitz, equicorrelated, fgn
}

}  // namespace
