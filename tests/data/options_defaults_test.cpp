// The defaults of the dpx::data options structs are valid (issue 19 item 3; the other
// components' options are checked in tests/solvers, tests/estimators, tests/audit and
// tests/harness): each struct default-constructed passes its own validate(). var1_options has
// no meaningful default (the transition matrix is the model): its required field is rejected by
// name, never silently used. One negative control shows validate() can fail.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "dpx/data/arma.hpp"
#include "dpx/data/erm.hpp"
#include "dpx/data/iid.hpp"
#include "dpx/data/nonparametric.hpp"
#include "dpx/data/spectral.hpp"
#include "dpx/data/stationary.hpp"
#include "dpx/data/user_models.hpp"
#include "dpx/data/var1.hpp"

namespace {

namespace dd = dpx::data;

TEST(DataOptionsDefaults, Stationary) {
  EXPECT_NO_THROW(dd::stationary_gaussian_options{}.validate());
  EXPECT_NO_THROW(dd::toeplitz_options{}.validate());
  EXPECT_NO_THROW(dd::fgn_options{}.validate());
  EXPECT_NO_THROW(dd::equicorrelated_options{}.validate());
}
TEST(DataOptionsDefaults, UserModels) {
  EXPECT_NO_THROW(dd::block_toeplitz_options{}.validate());
  EXPECT_NO_THROW(dd::random_effects_options{}.validate());
  EXPECT_NO_THROW(dd::longitudinal_options{}.validate());
}
TEST(DataOptionsDefaults, Arma) {
  EXPECT_NO_THROW(dd::ar1_options{}.validate());
  EXPECT_NO_THROW(dd::arma_options{}.validate());
  EXPECT_NO_THROW(dd::ar1_t_options{}.validate());
}
TEST(DataOptionsDefaults, Erm) { EXPECT_NO_THROW(dd::erm_options{}.validate()); }
TEST(DataOptionsDefaults, Nonparametric) {
  EXPECT_NO_THROW(dd::nonparametric_options{}.validate());
}
TEST(DataOptionsDefaults, Eigen) { EXPECT_NO_THROW(dd::eigen_options{}.validate()); }
TEST(DataOptionsDefaults, Iid) {
  EXPECT_NO_THROW(dd::iid_gaussian_options{}.validate());
  EXPECT_NO_THROW(dd::iid_student_t_options{}.validate());
  EXPECT_NO_THROW(dd::iid_uniform_options{}.validate());
  EXPECT_NO_THROW(dd::iid_beta_options{}.validate());
}
TEST(DataOptionsDefaults, Var1TransitionMatrixIsRequired) {
  EXPECT_THROW(dd::var1_options{}.validate(), std::invalid_argument);
}
TEST(DataOptionsDefaults, NegativeControl) {
  dd::toeplitz_options o;
  o.rho = 1.0;  // |r| < 1 required
  EXPECT_THROW(o.validate(), std::invalid_argument);
}

}  // namespace
