// Every solver options struct's default is valid (issue 19 item 3): a default-constructed
// options object passes its own validate(), so `solver(loss, penalty, x0, {}, rng)` runs.
#include <gtest/gtest.h>

// GCC 12 reports a false -Wmaybe-uninitialized inside std::variant's move constructor when it
// inlines istdp's event push_back into this file (the variant is always initialised).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <functional>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/solvers.hpp"
#include "test_util.hpp"

namespace {

using namespace dpx::solvers;
namespace rng = dpx::rng;

// `call` must throw core::invalid_argument_error naming `parameter`.
template <class F>
void expect_rejects_naming(const F& call, const std::string& parameter) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected a rejection naming " << parameter;
  } catch (const dpx::core::invalid_argument_error& e) {
    EXPECT_EQ(e.parameter(), parameter) << e.what();
  }
}

TEST(SolverOptionsDefaults, Istdp) {
  EXPECT_NO_THROW(istdp_options{}.validate());
  // The default public smoothness bound (1: least squares and logistic losses with rows of norm
  // <= 1) admits the default alpha_max = 1.
  EXPECT_EQ(istdp_options{}.public_smoothness, 1.0);
  // as_published is NOT private: with the default target it needs the explicit opt-in
  // (privacy_target_test.cpp covers the rule).
  istdp_options published;
  published.variant = istdp_variant::as_published;
  expect_rejects_naming([&] { published.validate(); }, "variant");
  published.allow_nonprivate = true;
  EXPECT_NO_THROW(published.validate());
}
// Strict ISTDP takes no theta0: the one-point overload runs on the default options and gives
// the two-point call's result bit for bit when that call's theta0 is empty; a non-empty theta0
// (which strict would not use) is refused by name, and as_published refuses the one-point call,
// naming `variant`.
TEST(SolverOptionsDefaults, StrictIstdpStartsFromOnePoint) {
  const auto s = dpx::solvers::testing::make_design(100, 4, 2, 0.3, 0.3, 5);
  const dpx::losses::glm_loss loss{dpx::losses::glm_kind::least_squares, {s.x, s.y, s.n, s.d}};
  const std::vector<double> zero(s.d, 0.0), other(s.d, 0.25);
  istdp_options o;
  o.iterations = 20;
  auto g1 = rng::stream(9, 0, 0, rng::purpose::noise);
  auto g2 = rng::stream(9, 0, 0, rng::purpose::noise);
  const auto one = istdp(loss, dpx::prox::mcp(0.05, 3.0), zero, o, g1);
  const auto empty = istdp(loss, dpx::prox::mcp(0.05, 3.0), {}, zero, o, g2);
  EXPECT_EQ(one.x, empty.x);
  EXPECT_EQ(one.privacy_events.size(), 19u);
  expect_rejects_naming([&] { (void)istdp(loss, dpx::prox::mcp(0.05, 3.0), other, zero, o, g1); },
                        "theta0");
  o.variant = istdp_variant::as_published;
  expect_rejects_naming([&] { (void)istdp(loss, dpx::prox::mcp(0.05, 3.0), zero, o, g1); },
                        "variant");
}

TEST(SolverOptionsDefaults, Pgd) { EXPECT_NO_THROW(pgd_options{}.validate()); }
TEST(SolverOptionsDefaults, Gist) { EXPECT_NO_THROW(gist_options{}.validate()); }
TEST(SolverOptionsDefaults, DpSgd) { EXPECT_NO_THROW(dp_sgd_options{}.validate()); }
TEST(SolverOptionsDefaults, OnlineKernel) { EXPECT_NO_THROW(online_kernel_options{}.validate()); }
TEST(SolverOptionsDefaults, Kernel) { EXPECT_NO_THROW(kernel{}.validate("kernel")); }
TEST(SolverOptionsDefaults, FrankWolfe) { EXPECT_NO_THROW(frank_wolfe_options{}.validate()); }
TEST(SolverOptionsDefaults, OutputPerturbation) {
  EXPECT_NO_THROW(output_perturbation_options{}.validate());
}
TEST(SolverOptionsDefaults, ObjectivePerturbation) {
  EXPECT_NO_THROW(objective_perturbation_options{}.validate());
}
TEST(SolverOptionsDefaults, StronglyConvexSolve) {
  EXPECT_NO_THROW(strongly_convex_solve_options{}.validate("strongly_convex_solve_options"));
}
// Negative control: each default test above can fail (a bad field is rejected by name).
TEST(SolverOptionsDefaults, BadFieldsAreRejectedByName) {
  const auto& rejects = expect_rejects_naming<std::function<void()>>;
  kernel k;
  k.bandwidth = 0;
  rejects([&] { k.validate("kernel"); }, "kernel.bandwidth");
  frank_wolfe_options fw;
  fw.radius = 0;
  rejects([&] { fw.validate(); }, "radius");
  output_perturbation_options out;
  out.regularization = 0;
  rejects([&] { out.validate(); }, "regularization");
  objective_perturbation_options obj;
  obj.approx_fraction = 1.0;
  rejects([&] { obj.validate(); }, "approx_fraction");
  strongly_convex_solve_options sc;
  sc.max_iterations = 0;
  rejects([&] { sc.validate("strongly_convex_solve_options"); }, "solve.max_iterations");
}
TEST(SolverOptionsDefaults, Checkpoint) {
  EXPECT_NO_THROW(checkpoint_options{}.validate("checkpoint_options"));
}

}  // namespace
