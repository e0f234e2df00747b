// Every component has an umbrella header dpx/<c>/<c>.hpp that compiles on its own and exposes
// the component's API (docs/architecture.md, component table). data's is checked in
// tests/data/registry_test.cpp and harness's in tests/harness/umbrella_test.cpp.
#include <gtest/gtest.h>

#include "dpx/accounting/accounting.hpp"
#include "dpx/audit/audit.hpp"
#include "dpx/core/core.hpp"
#include "dpx/estimators/estimators.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/mechanisms/mechanisms.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/solvers.hpp"

TEST(UmbrellaHeaders, ExposeEachComponent) {
  auto g = dpx::rng::stream(1, 2, 3, dpx::rng::purpose::noise);  // core
  (void)g;
  dpx::accounting::rdp_accountant rdp;  // accounting
  rdp.compose(dpx::core::gaussian_event{1.0}, 1);
  EXPECT_GT(rdp.epsilon(1e-5), 0.0);
  EXPECT_NO_THROW(dpx::solvers::pgd_options{}.validate());          // solvers
  EXPECT_NO_THROW(dpx::estimators::kv_mean_options{}.validate());   // estimators
  EXPECT_NO_THROW(dpx::mechanisms::quantile_options{}.validate());  // mechanisms
  EXPECT_NO_THROW(dpx::audit::audit_options{}.validate());          // audit
}
