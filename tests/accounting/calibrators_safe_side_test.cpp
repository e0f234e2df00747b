// Properties checked (the safe-side contract of EVERY calibrator, issue 18; docs/accounting.md
// "Safe side"): on a dense grid (epsilon in [0.01, 30], delta in [1e-12, 1e-2], k up to 10^5),
// against tight values evaluated independently in 50-digit arithmetic (mpmath; table
// safe_side_reference.inc written by make_safe_side_reference.py, each value rounded to the safe
// double so the comparison itself has no rounding):
//  * every function that returns a noise scale from a target (epsilon, delta) -- in core,
//    mechanisms, accounting and solvers -- returns a value >= the tight one (the target holds,
//    not even rounding lets it slip) and <= the tight one (1 + 1e-9);
//  * every per-step budget split (core, solvers, estimators) returns a value <= the tight one
//    and >= the tight one (1 - 1e-9).
//  * the float-safe (discrete) Gaussian's zCDP calibration, solvers::gaussian_zcdp_multiplier.
// Searches over an accountant (RDP, subsampled PLD, Laplace PLD) have no independent reference:
// SafeSideAccountantSearches checks that the method itself certifies the returned noise and not
// noise 1e-6 smaller.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "dpx/accounting/calibration.hpp"
#include "dpx/accounting/composition.hpp"
#include "dpx/accounting/gaussian.hpp"
#include "dpx/accounting/seeds.hpp"
#include "dpx/core/composition.hpp"
#include "dpx/core/privacy_curves.hpp"
#include "dpx/estimators/common.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/l2_laplace.hpp"
#include "dpx/mechanisms/laplace.hpp"
#include "dpx/solvers/calibration.hpp"

namespace {

namespace acc = dpx::accounting;
namespace core = dpx::core;
namespace mech = dpx::mechanisms;
namespace sol = dpx::solvers;
namespace est = dpx::estimators;

enum class kind {
  gaussian,
  classical,
  istdp,
  l2_laplace,
  laplace_basic,
  laplace_drv,
  laplace_kov,
  drv_eps0,
  split_basic,
  split_simple,
  zcdp
};
struct row {
  kind k;
  double epsilon, delta;
  std::int64_t steps;
  double bound;
};
const row kRows[] = {
#include "safe_side_reference.inc"
};

std::string where(const row& r, const char* calibrator) {
  return std::string(calibrator) + " at eps=" + core::format_double(r.epsilon) +
         " delta=" + core::format_double(r.delta) + " k=" + std::to_string(r.steps);
}

// A noise scale: meets the target (>= the tight value) and is within 1e-9 of it.
void expect_noise(double v, const row& r, const char* calibrator) {
  EXPECT_GE(v, r.bound) << where(r, calibrator);
  EXPECT_LE(v, r.bound * (1 + 1e-9)) << where(r, calibrator);
}
// A per-step budget: never above the tight value, within 1e-9 of it.
void expect_budget(double v, const row& r, const char* calibrator) {
  EXPECT_LE(v, r.bound) << where(r, calibrator);
  EXPECT_GE(v, r.bound * (1 - 1e-9)) << where(r, calibrator);
}

std::size_t count(kind k) {
  std::size_t n = 0;
  for (const auto& r : kRows) n += r.k == k ? 1 : 0;
  return n;
}

}  // namespace

TEST(Calibrators, SafeSideReferenceTableCoversEveryKind) {
  for (kind k : {kind::gaussian,
                 kind::classical,
                 kind::istdp,
                 kind::l2_laplace,
                 kind::laplace_basic,
                 kind::laplace_drv,
                 kind::laplace_kov,
                 kind::drv_eps0,
                 kind::split_basic,
                 kind::split_simple,
                 kind::zcdp})
    EXPECT_GE(count(k), 30u) << static_cast<int>(k);
}

TEST(Calibrators, SafeSideAnalyticGaussian) {
  for (const auto& r : kRows) {
    if (r.k != kind::gaussian) continue;
    const double e = r.epsilon, d = r.delta;
    const auto t = r.steps;
    expect_noise(
        core::calibrate_gaussian_analytic(e, d, t), r, "core::calibrate_gaussian_analytic");
    expect_noise(acc::calibrate_gaussian(acc::gaussian_calibration::analytic, e, d, t),
                 r,
                 "accounting::calibrate_gaussian(analytic)");
    expect_noise(acc::calibrate_gaussian(acc::gaussian_calibration::pld, e, d, t),
                 r,
                 "accounting::calibrate_gaussian(pld, q = 1)");
    expect_noise(sol::gaussian_tight_multiplier(e, d, t), r, "solvers::gaussian_tight_multiplier");
    if (t == 1) {
      for (double sens : {1.0, 0.37, 3.0}) {
        const auto g = mech::gaussian::calibrate_analytic(e, d, sens);
        // What an accountant sees: the event's multiplier sigma / Delta.
        expect_noise(std::get<core::gaussian_event>(g.event()).noise_multiplier,
                     r,
                     "mechanisms::gaussian::calibrate_analytic");
      }
    }
  }
}

TEST(Calibrators, SafeSideFloatSafeGaussianZcdp) {
  // solvers::gaussian_zcdp_multiplier (the float-safe discrete Gaussian's calibration: k
  // releases, each 1/(2 m^2)-zCDP, converted by Bun & Steinke 2016 Prop 1.3) against the tight
  // multiplier sqrt(k / (2 rho*)) in 50 digits. The noise multiplier is the returned value; the
  // float-safe release adds noise of scale m * sensitivity (mechanisms::float_safe_gaussian).
  for (const auto& r : kRows) {
    if (r.k != kind::zcdp) continue;
    expect_noise(sol::gaussian_zcdp_multiplier(r.epsilon, r.delta, r.steps),
                 r,
                 "solvers::gaussian_zcdp_multiplier");
  }
}

TEST(Calibrators, SafeSideClassicalGaussianAndIstdp) {
  for (const auto& r : kRows) {
    const double e = r.epsilon, d = r.delta;
    if (r.k == kind::classical) {
      expect_noise(
          core::calibrate_gaussian_classical(e, d), r, "core::calibrate_gaussian_classical");
      expect_noise(acc::calibrate_gaussian(acc::gaussian_calibration::classical, e, d, 1),
                   r,
                   "accounting::calibrate_gaussian(classical)");
      for (double sens : {1.0, 0.37, 3.0}) {
        const auto g = mech::gaussian::calibrate_classical(e, d, sens);
        expect_noise(std::get<core::gaussian_event>(g.event()).noise_multiplier,
                     r,
                     "mechanisms::gaussian::calibrate_classical");
      }
    } else if (r.k == kind::istdp) {
      expect_noise(core::istdp_theorem_3_3(e, d, r.steps, 1.0).noise_multiplier,
                   r,
                   "core::istdp_theorem_3_3");
      expect_noise(acc::istdp_theorem_3_3(e, d, r.steps, 1.0).noise_multiplier,
                   r,
                   "accounting::istdp_theorem_3_3");
      // sigma >= sensitivity * multiplier exactly, so sigma / sensitivity >= the multiplier.
      expect_noise(sol::istdp_theorem_3_3(e, d, r.steps, 0.37).sigma / 0.37,
                   r,
                   "solvers::istdp_theorem_3_3");
      if (r.steps > 1)
        expect_noise(acc::calibrate_gaussian(acc::gaussian_calibration::classical, e, d, r.steps),
                     r,
                     "accounting::calibrate_gaussian(classical, steps > 1)");
    }
  }
}

TEST(Calibrators, SafeSideLaplace) {
  std::map<std::tuple<double, double, std::int64_t>, double> basic, drv;
  for (const auto& r : kRows) {
    if (r.k == kind::laplace_basic) basic[{r.epsilon, r.delta, r.steps}] = r.bound;
    if (r.k == kind::laplace_drv) drv[{r.epsilon, r.delta, r.steps}] = r.bound;
  }
  for (const auto& r : kRows) {
    const double e = r.epsilon, d = r.delta;
    const auto k = r.steps;
    if (r.k == kind::laplace_basic) {
      expect_noise(acc::calibrate_laplace(e, d, k, acc::laplace_method::basic),
                   r,
                   "accounting::calibrate_laplace(basic)");
      expect_noise(acc::noisy_pgd_laplace_scale(e, d, k, 1, 1.0, acc::laplace_rule::basic).scale,
                   r,
                   "accounting::noisy_pgd_laplace_scale(basic)");
      expect_noise(
          sol::laplace_per_coordinate_scale(e, d, k, 1, 1.0, sol::laplace_composition::basic),
          r,
          "solvers::laplace_per_coordinate_scale(basic)");
      if (k == 1) {
        expect_noise(core::laplace_scale(e), r, "core::laplace_scale");
        expect_noise(mech::laplace::calibrate(e, 1.0).scale(), r, "mechanisms::laplace::calibrate");
      }
    } else if (r.k == kind::laplace_drv) {
      expect_noise(acc::noisy_pgd_laplace_scale(e, d, k, 1, 1.0, acc::laplace_rule::advanced).scale,
                   r,
                   "accounting::noisy_pgd_laplace_scale(advanced)");
      expect_noise(
          sol::laplace_per_coordinate_scale(e, d, k, 1, 1.0, sol::laplace_composition::advanced),
          r,
          "solvers::laplace_per_coordinate_scale(advanced)");
      // calibrate_laplace(advanced) takes the better of basic and DRV (both valid).
      row best = r;
      best.bound = std::min(r.bound, basic.at({e, d, k}));
      expect_noise(acc::calibrate_laplace(e, d, k, acc::laplace_method::advanced),
                   best,
                   "accounting::calibrate_laplace(advanced)");
    } else if (r.k == kind::laplace_kov) {
      expect_noise(acc::calibrate_laplace(e, d, k, acc::laplace_method::kov),
                   r,
                   "accounting::calibrate_laplace(kov)");
      expect_noise(
          acc::noisy_pgd_laplace_scale(e, d, k, 1, 1.0, acc::laplace_rule::kov_optimal).scale,
          r,
          "accounting::noisy_pgd_laplace_scale(kov_optimal)");
    } else if (r.k == kind::l2_laplace) {
      expect_noise(core::l2_laplace_scale(e, d, 1.0), r, "core::l2_laplace_scale");
      expect_noise(acc::l2_laplace_scale(e, d, 1.0), r, "accounting::l2_laplace_scale");
      expect_noise(sol::laplace_l2_scale(e, d, 1.0), r, "solvers::laplace_l2_scale");
      expect_noise(
          mech::l2_laplace::calibrate(e, d, 1.0).scale(), r, "mechanisms::l2_laplace::calibrate");
    }
  }
  EXPECT_FALSE(drv.empty());
}

TEST(Calibrators, SafeSideBudgetSplits) {
  for (const auto& r : kRows) {
    const double e = r.epsilon, d = r.delta;
    const auto k = r.steps;
    if (r.k == kind::drv_eps0) {
      expect_budget(core::advanced_per_step_epsilon(e, k, d), r, "core::advanced_per_step_epsilon");
      expect_budget(sol::drv_per_step_epsilon(e, k, d), r, "solvers::drv_per_step_epsilon");
      expect_budget(core::split_budget(core::composition_rule::advanced, {e, 0.0}, k, d).epsilon,
                    r,
                    "core::split_budget(advanced)");
    } else if (r.k == kind::split_basic) {
      expect_budget(core::split_budget(core::composition_rule::basic, {e, d}, k).epsilon,
                    r,
                    "core::split_budget(basic)");
      expect_budget(sol::split_budget(e, d, k, sol::laplace_composition::basic).epsilon,
                    r,
                    "solvers::split_budget(basic)");
      expect_budget(
          est::split_budget(e, d, static_cast<std::size_t>(k), d, core::composition_rule::basic)
              .epsilon,
          r,
          "estimators::split_budget(basic)");
    } else if (r.k == kind::split_simple) {
      expect_budget(core::advanced_per_step_epsilon_simplified(e, k, d),
                    r,
                    "core::advanced_per_step_epsilon_simplified");
      expect_budget(est::split_budget(
                        e, 0.0, static_cast<std::size_t>(k), d, core::composition_rule::advanced)
                        .epsilon,
                    r,
                    "estimators::split_budget(advanced)");
    }
  }
}

TEST(Calibrators, SafeSideAccountantSearches) {
  // No independent reference exists for these (the accountant IS the curve): the method must
  // certify the returned noise, and not noise 1e-6 smaller (the search stops within 1e-9 in
  // log epsilon of the target).
  struct pt {
    double epsilon, delta, q;
    std::int64_t steps;
  };
  for (const pt& p :
       {pt{1.0, 1e-5, 0.01, 1000}, pt{0.3, 1e-6, 0.05, 100}, pt{4.0, 1e-8, 0.1, 50}}) {
    for (auto m : {acc::gaussian_calibration::rdp, acc::gaussian_calibration::pld}) {
      const acc::method am =
          m == acc::gaussian_calibration::rdp ? acc::method::rdp : acc::method::pld;
      const double s = acc::calibrate_gaussian(m, p.epsilon, p.delta, p.steps, p.q);
      EXPECT_LE(acc::account_gaussian(am, s, p.q, p.steps, p.delta), p.epsilon);
      EXPECT_GT(acc::account_gaussian(am, s * (1 - 1e-6), p.q, p.steps, p.delta), p.epsilon);
    }
  }
  for (double e : {0.5, 2.0}) {
    const double b = acc::calibrate_laplace(e, 1e-6, 20, acc::laplace_method::pld);
    EXPECT_LE(acc::account_laplace(acc::method::pld, b, 20, 1e-6), e);
    EXPECT_GT(acc::account_laplace(acc::method::pld, b * (1 - 1e-6), 20, 1e-6), e);
  }
}
