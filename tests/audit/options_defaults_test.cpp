// The defaults of the accounting, mechanisms and audit options structs are valid (issue 19
// item 3; the solver and estimator ones are in tests/solvers and tests/estimators). Each struct
// default-constructed passes its own validate().
#include <gtest/gtest.h>

#include "dpx/accounting/pld.hpp"
#include "dpx/accounting/rdp.hpp"
#include "dpx/audit/auditor.hpp"
#include "dpx/audit/audits.hpp"
#include "dpx/mechanisms/selection.hpp"

namespace {

TEST(OtherOptionsDefaults, RdpOptions) {
  EXPECT_NO_THROW(dpx::accounting::rdp_options{}.validate());
}
TEST(OtherOptionsDefaults, PldOptions) {
  EXPECT_NO_THROW(dpx::accounting::pld_options{}.validate());
}
TEST(OtherOptionsDefaults, QuantileOptions) {
  EXPECT_NO_THROW(dpx::mechanisms::quantile_options{}.validate());
}
TEST(OtherOptionsDefaults, AuditOptions) {
  EXPECT_NO_THROW(dpx::audit::audit_options{}.validate());
}
TEST(OtherOptionsDefaults, ProfileOptions) {
  EXPECT_NO_THROW(dpx::audit::profile_options{}.validate());
}
TEST(OtherOptionsDefaults, MechanismAuditSpec) {
  EXPECT_NO_THROW(dpx::audit::mechanism_audit_spec{}.validate());
}
TEST(OtherOptionsDefaults, SolverAuditSpec) {
  EXPECT_NO_THROW(dpx::audit::solver_audit_spec{}.validate());
}

}  // namespace
