// Properties checked (dpx's one vocabulary of calibration methods and composition choices:
// core::noise_calibration, core::composition_rule, estimators::composition_choice):
// - every calibration method has one distinct name, and the one parser reads it back;
// - each API accepts only its subset and the error lists that subset (accounting: classical,
//   analytic, rdp, pld; solvers: paper, tight, fixed), both when parsing and when an options
//   struct or calibrate_gaussian is handed a method of the other subset;
// - an estimator's composition choice is std::optional<composition_rule>: "automatic" is
//   std::nullopt, rules other than basic / advanced are refused, and the automatic split picks
//   the larger per-coordinate epsilon (checked against the closed forms eps/d and
//   eps / sqrt(8 d ln(1/rho)), Dwork & Roth 2014 Cor 3.21).
// - options structs hold their (epsilon, delta) target in one core::epsilon_delta.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "dpx/accounting/calibration.hpp"
#include "dpx/core/composition.hpp"
#include "dpx/estimators/common.hpp"
#include "dpx/solvers/frank_wolfe.hpp"
#include "dpx/solvers/istdp.hpp"
#include "dpx/solvers/perturbation.hpp"
#include "dpx/solvers/pgd.hpp"

namespace {

namespace core = dpx::core;
namespace acc = dpx::accounting;
namespace sol = dpx::solvers;
namespace est = dpx::estimators;
using nc = core::noise_calibration;
using rule = core::composition_rule;

// The message of the invalid_argument thrown by f ("" when nothing is thrown).
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Vocabulary, EveryCalibrationMethodHasOneNameThatParsesBack) {
  const auto all = {nc::classical, nc::analytic, nc::rdp, nc::pld, nc::paper, nc::tight, nc::fixed};
  std::set<std::string> names;
  for (const nc c : all) {
    const std::string s = core::to_string(c);
    names.insert(s);
    EXPECT_EQ(core::parse_noise_calibration(s, all, "test", "method"), c) << s;
  }
  EXPECT_EQ(names.size(), all.size());
  EXPECT_EQ(core::to_string(nc::analytic), "analytic");
  EXPECT_EQ(core::to_string(nc::tight), "tight");
}

TEST(Vocabulary, EachApiParsesItsOwnSubsetAndNamesIt) {
  EXPECT_EQ(acc::parse_gaussian_calibration("pld"), nc::pld);
  EXPECT_EQ(sol::parse_noise_calibration("paper"), nc::paper);
  const std::string a = message_of([] { acc::parse_gaussian_calibration("tight"); });
  EXPECT_NE(a.find("method"), std::string::npos) << a;
  EXPECT_NE(a.find("must be classical, analytic, rdp or pld"), std::string::npos) << a;
  const std::string s = message_of([] { sol::parse_noise_calibration("analytic"); });
  EXPECT_NE(s.find("calibration"), std::string::npos) << s;
  EXPECT_NE(s.find("must be paper, tight or fixed"), std::string::npos) << s;
}

TEST(Vocabulary, SolversAndCalibrateGaussianRefuseTheOtherSubset) {
  for (const nc c : {nc::classical, nc::analytic, nc::rdp, nc::pld}) {
    sol::istdp_options io;
    io.calibration = c;
    EXPECT_NE(message_of([&] { io.validate(); }).find("calibration"), std::string::npos);
    sol::pgd_options po;
    po.calibration = c;
    EXPECT_NE(message_of([&] { po.validate(); }).find("must be paper, tight or fixed"),
              std::string::npos);
    sol::frank_wolfe_options fo;
    fo.calibration = c;
    EXPECT_NE(message_of([&] { fo.validate(); }).find("calibration"), std::string::npos);
    sol::output_perturbation_options oo;
    oo.calibration = c;
    EXPECT_NE(message_of([&] { oo.validate(); }).find("calibration"), std::string::npos);
  }
  for (const nc c : {nc::paper, nc::tight, nc::fixed}) {
    const std::string m = message_of([&] { acc::calibrate_gaussian(c, 1.0, 1e-5, 10); });
    EXPECT_NE(m.find("must be classical, analytic, rdp or pld"), std::string::npos) << m;
  }
  // The accepted members still work (defaults are valid).
  EXPECT_NO_THROW(sol::istdp_options{}.validate());
  EXPECT_NO_THROW(sol::pgd_options{}.validate());
  EXPECT_GT(acc::calibrate_gaussian(nc::analytic, 1.0, 1e-5, 10), 0.0);
}

TEST(Vocabulary, CompositionChoiceIsAnOptionalRule) {
  EXPECT_EQ(est::parse_composition_choice("automatic"), std::nullopt);
  EXPECT_EQ(est::parse_composition_choice("basic"), rule::basic);
  EXPECT_EQ(est::parse_composition_choice("advanced"), rule::advanced);
  for (const std::string s : {"automatic", "basic", "advanced"})
    EXPECT_EQ(est::to_string(est::parse_composition_choice(s)), s);
  const std::string m =
      message_of([] { est::parse_composition_choice("kov", "f", "composition"); });
  EXPECT_NE(m.find("must be automatic, basic or advanced"), std::string::npos) << m;
  EXPECT_THROW(est::split_budget(0.5, 1e-5, 10, 1e-5, rule::kov), std::invalid_argument);
  EXPECT_THROW(est::split_budget(0.5, 1e-5, 10, 1e-5, rule::pld), std::invalid_argument);
}

TEST(Vocabulary, AutomaticChoiceTakesTheLargerPerCoordinateEpsilon) {
  const double eps = 0.5, delta = 1e-5, rho = 1e-5;
  for (const std::size_t d : {2u, 10u, 100u, 1000u, 100000u}) {
    const double dd = static_cast<double>(d);
    const double basic = eps / dd;
    const double advanced = eps / std::sqrt(8.0 * dd * std::log(1.0 / rho));
    const est::coordinate_budget b = est::split_budget(eps, delta, d, rho, std::nullopt);
    if (advanced > basic) {
      EXPECT_EQ(b.kind, rule::advanced) << d;
      EXPECT_NEAR(b.epsilon, advanced, 1e-12 * advanced) << d;
      EXPECT_LE(b.epsilon, advanced) << d;  // rounded down: the safe side
    } else {
      EXPECT_EQ(b.kind, rule::basic) << d;
      EXPECT_NEAR(b.epsilon, basic, 1e-12 * basic) << d;
    }
  }
}

TEST(Vocabulary, OptionsHoldOneEpsilonDeltaTarget) {
  sol::istdp_options o;
  ASSERT_TRUE(o.target.has_value());
  EXPECT_EQ(o.target->epsilon, 1.0);
  EXPECT_EQ(o.target->delta, 1e-5);
  o.target = acc::epsilon_delta{0.5, 1e-6};
  EXPECT_NO_THROW(o.validate());
  o.target->delta = 1.0;
  const std::string m = message_of([&] { o.validate(); });
  EXPECT_NE(m.find("delta"), std::string::npos) << m;
  // The same type (pgd has no target by default: its default noise is none).
  const std::optional<acc::epsilon_delta> same = sol::pgd_options{}.target;
  EXPECT_FALSE(same.has_value());
}

}  // namespace
