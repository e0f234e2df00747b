// Every estimator options struct's default is valid (issue 19 item 3). The interval rule is a
// required public input with no valid default (its τ comes from the data's concentration bound):
// the options that take one reject the default naming `rule`, and validate once it is set.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/estimators/estimators.hpp"

namespace {

using namespace dpx::estimators;

// `o` without a rule is rejected naming `rule`; with one it validates.
template <class O, class F>
void expect_rule_required(O o, F validate) {
  try {
    validate(o);
    ADD_FAILURE() << "accepted an unset rule";
  } catch (const dpx::core::invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("rule"), std::string::npos) << e.what();
  }
  if constexpr (requires { o.rule; })
    o.rule = interval_rule::paper(1.0);
  else
    o.base.rule = interval_rule::paper(1.0);
  EXPECT_NO_THROW(validate(o));
}

TEST(EstimatorOptionsDefaults, WinsorizedMean) {
  expect_rule_required(winsorized_mean_options{}, [](const auto& o) { o.validate(); });
}
TEST(EstimatorOptionsDefaults, WinsorizedMeanHd) {
  expect_rule_required(winsorized_mean_hd_options{}, [](const auto& o) { o.validate(); });
}
TEST(EstimatorOptionsDefaults, SampleSplit) {
  expect_rule_required(sample_split_options{}, [](const auto& o) { o.validate(); });
}
TEST(EstimatorOptionsDefaults, KvMean) { EXPECT_NO_THROW(kv_mean_options{}.validate()); }
TEST(EstimatorOptionsDefaults, KvUnknownSigma) {
  EXPECT_NO_THROW(kv_unknown_sigma_options{}.validate());
}
TEST(EstimatorOptionsDefaults, LocalMean) {
  expect_rule_required(local_mean_options{}, [](const auto& o) { o.validate("local_mean"); });
}
TEST(EstimatorOptionsDefaults, PriestleyChao) {
  EXPECT_NO_THROW(priestley_chao_options{}.validate());
}
// longitudinal_options has no validate() of its own: its defaults (OLS, no covariance) are
// checked by running longitudinal_regression on a small panel (4 users, T = 3, design (1, t)).
TEST(EstimatorOptionsDefaults, Longitudinal) {
  std::vector<double> x, y;
  for (int u = 0; u < 4; ++u) {
    for (int t = 0; t < 3; ++t) {
      x.insert(x.end(), {1.0, double(t)});
      y.push_back(1.0 + 0.5 * t + 0.01 * (u - t));
    }
  }
  const panel_view xv{x, 4, 3, 2};
  expect_rule_required(longitudinal_options{}, [&](const auto& o) {
    auto g = dpx::rng::stream(1, 0, 0, dpx::rng::purpose::noise);
    const auto fit = longitudinal_regression(xv, y, o, g);
    EXPECT_EQ(fit.fit.estimate.size(), 2u);
  });
}
TEST(EstimatorOptionsDefaults, Variance) {
  EXPECT_NO_THROW(variance_options{}.validate("variance"));
}

}  // namespace
