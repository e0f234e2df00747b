#include "dpx/accounting/zcdp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <variant>

#include "dpx/core/detail/log_normal.hpp"
#include "dpx/core/detail/overloaded.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/roots.hpp"

namespace dpx::accounting {

namespace {
using core::detail::inf;

/// log of the CKS bound at order alpha.
double cks_log_delta(double rho, double eps, double alpha) {
  return (alpha - 1.0) * (alpha * rho - eps) + alpha * std::log1p(-1.0 / alpha) -
         std::log(alpha - 1.0);
}

double zcdp_log_delta(double rho, double eps) {
  if (rho == 0.0) return -inf;
  // d/dalpha of the exponent (without the -log(alpha-1) term) is (2alpha-1) rho - eps +
  // log(1 - 1/alpha); its root is the (near-)optimal alpha [CKS20, after Cor 13].
  double amin = 1.01, amax = (eps + 1.0) / (2.0 * rho) + 2.0;
  for (int i = 0; i < 200; ++i) {
    const double a = 0.5 * (amin + amax);
    const double d = (2.0 * a - 1.0) * rho - eps + std::log1p(-1.0 / a);
    if (d < 0) {
      amin = a;
    } else {
      amax = a;
    }
  }
  const double alpha = 0.5 * (amin + amax);
  return std::min(0.0, cks_log_delta(rho, eps, alpha));
}
}  // namespace

double zcdp_gaussian_rho(double noise_multiplier) {
  core::check_positive("zcdp_gaussian_rho", "noise_multiplier", noise_multiplier);
  return 1.0 / (2.0 * noise_multiplier * noise_multiplier);
}

double zcdp_pure_dp_rho(double epsilon) {
  core::check_positive("zcdp_pure_dp_rho", "epsilon", epsilon);
  return 0.5 * epsilon * epsilon;
}

double zcdp_epsilon_bun_steinke(double rho, double delta) {
  core::check_nonnegative("zcdp_epsilon_bun_steinke", "rho", rho);
  core::check_open_interval("zcdp_epsilon_bun_steinke", "delta", delta, 0.0, 1.0);
  return rho + 2.0 * std::sqrt(rho * std::log(1.0 / delta));
}

double zcdp_rho_bun_steinke(double epsilon, double delta) {
  core::check_nonnegative("zcdp_rho_bun_steinke", "epsilon", epsilon);
  core::check_open_interval("zcdp_rho_bun_steinke", "delta", delta, 0.0, 1.0);
  const double l = -std::log(delta);
  const double r = epsilon / (std::sqrt(l + epsilon) + std::sqrt(l));  // no cancellation
  // Safe side: about ten roundings of relative size 2^-53 each; lowering rho by 2^-48 (relative)
  // keeps the returned rho <= the exact rho*, so its conversion never exceeds epsilon, and a
  // multiplier sqrt(k / (2 rho)) computed from it stays >= the tight one after its own two
  // roundings (tests/accounting/calibrators_safe_side_test.cpp, SafeSideFloatSafeGaussianZcdp).
  return r * r * (1.0 - 0x1p-48);
}

double zcdp_delta(double rho, double epsilon) {
  core::check_nonnegative("zcdp_delta", "rho", rho);
  core::check_nonnegative("zcdp_delta", "epsilon", epsilon);
  return std::exp(zcdp_log_delta(rho, epsilon));
}

double zcdp_epsilon(double rho, double delta) {
  core::check_nonnegative("zcdp_epsilon", "rho", rho);
  core::check_open_interval("zcdp_epsilon", "delta", delta, 0.0, 1.0);
  if (rho == 0.0) return 0.0;
  const double log_target = std::log(delta);
  auto ok = [&](double e) { return zcdp_log_delta(rho, e) <= log_target; };
  double lo = 0.0;
  if (ok(lo)) return 0.0;
  double hi = zcdp_epsilon_bun_steinke(rho, delta);  // always valid, so feasible
  if (!ok(hi)) return hi;
  return core::bisect_smallest(ok, lo, hi, {0.0, 1e-15});
}

namespace {
using core::detail::overloaded;
}  // namespace

double event_rho(const core::privacy_event& e) {
  return std::visit(
      overloaded{
          [](const core::pure_dp_event& x) { return zcdp_pure_dp_rho(x.epsilon); },
          [](const core::laplace_event& x) {
            core::check_positive("zcdp", "noise_multiplier", x.noise_multiplier);
            return zcdp_pure_dp_rho(1.0 / x.noise_multiplier);
          },
          [](const core::gaussian_event& x) { return zcdp_gaussian_rho(x.noise_multiplier); },
          [](const core::discrete_laplace_event& x) {
            core::check_positive("zcdp", "scale", x.scale);
            core::check_at_least("zcdp", "sensitivity", x.sensitivity, 1);
            return zcdp_pure_dp_rho(static_cast<double>(x.sensitivity) / x.scale);
          },
          [](const core::discrete_gaussian_event& x) {
            core::check_positive("zcdp", "sigma", x.sigma);
            core::check_positive("zcdp", "sensitivity", x.sensitivity);
            return x.sensitivity * x.sensitivity / (2.0 * x.sigma * x.sigma);
          },
          [](const core::randomized_response_event& x) { return zcdp_pure_dp_rho(x.epsilon); },
          [](const core::zcdp_event& x) {
            core::check_positive("zcdp", "rho", x.rho);
            return x.rho;
          },
          [](const core::exponential_mechanism_event& x) {
            // eps-bounded range => eps^2/8-zCDP [Cesar & Rogers 2021, Lemma 3.2]
            core::check_positive("zcdp", "epsilon", x.epsilon);
            return x.epsilon * x.epsilon / 8.0;
          },
          [](const auto& other) -> double {
            throw unsupported_event_error("zcdp", core::event_name(core::privacy_event{other}));
          }},
      e);
}

bool zcdp_accountant::supports(const core::privacy_event& e) const {
  try {
    (void)event_rho(e);
    return true;
  } catch (const unsupported_event_error&) {
    return false;
  } catch (const std::invalid_argument&) {
    return true;  // supported kind, bad parameters
  }
}

void zcdp_accountant::compose(const core::privacy_event& e, std::int64_t count) {
  core::check_at_least("zcdp_accountant::compose", "count", count, 1);
  rho_ += static_cast<double>(count) * event_rho(e);
}

double zcdp_accountant::epsilon(double delta) const {
  return conversion_ == zcdp_conversion::numerical ? zcdp_epsilon(rho_, delta)
                                                   : zcdp_epsilon_bun_steinke(rho_, delta);
}

double zcdp_accountant::delta(double epsilon) const {
  core::check_nonnegative("zcdp_accountant::delta", "epsilon", epsilon);
  if (conversion_ == zcdp_conversion::numerical) return zcdp_delta(rho_, epsilon);
  // invert eps = rho + 2 sqrt(rho log(1/delta))
  if (epsilon <= rho_) return 1.0;
  const double x = (epsilon - rho_) / (2.0 * std::sqrt(rho_));
  return std::min(1.0, std::exp(-x * x));
}

}  // namespace dpx::accounting
