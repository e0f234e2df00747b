// Gaussian calibration: classical (Dwork & Roth 2014, Thm. A.1) and analytic (Balle & Wang
// 2018, Algorithm 1), in long double with Boost.Math's normal CDF and TOMS 748.
#include "dpx/mechanisms/gaussian.hpp"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/tools/roots.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace dpx::mechanisms {

namespace {

using real = long double;

real phi(real x) {
  static const boost::math::normal_distribution<real> nd(0.0L, 1.0L);
  return boost::math::cdf(nd, x);
}

// e^eps * Phi(-y) without overflow of e^eps for large eps (Phi(-y) is tiny there).
real exp_times_phi_neg(real eps, real y) {
  const real p = phi(-y);
  if (p == 0.0L) return 0.0L;
  return std::exp(eps + std::log(p));
}

// Root of a monotone function on [lo, hi] (f(lo) and f(hi) of opposite signs) to full
// long double precision.
template <class F>
real solve(F f, real lo, real hi) {
  std::uintmax_t iterations = 400;
  const auto r = boost::math::tools::toms748_solve(
      f,
      lo,
      hi,
      boost::math::tools::eps_tolerance<real>(std::numeric_limits<real>::digits - 3),
      iterations);
  return (r.first + r.second) / 2;
}

}  // namespace

double gaussian_delta_for_epsilon(double epsilon, double noise_multiplier) {
  core::check_nonnegative("gaussian_delta_for_epsilon", "epsilon", epsilon);
  core::check_positive("gaussian_delta_for_epsilon", "noise_multiplier", noise_multiplier);
  // Balle & Wang 2018, Thm. 8 with Delta = 1, sigma = m.
  const real m = noise_multiplier;
  const real e = epsilon;
  const real a = 1.0L / (2.0L * m);
  const real b = e * m;
  const real d = phi(a - b) - exp_times_phi_neg(e, a + b);
  return static_cast<double>(d < 0.0L ? 0.0L : d);
}

gaussian gaussian::calibrate_classical(double epsilon,
                                       double delta,
                                       double l2_sensitivity,
                                       core::neighbouring relation) {
  const char* fn = "gaussian::calibrate_classical";
  core::check_positive(fn, "epsilon", epsilon);
  if (!(epsilon < 1.0))
    core::throw_invalid(fn,
                        "epsilon",
                        epsilon,
                        "must be < 1: the classical bound (Dwork & Roth 2014, Thm. A.1) holds "
                        "only for epsilon < 1; use gaussian::calibrate_analytic");
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  // Dwork & Roth 2014, Thm. A.1: sigma = Delta_2 sqrt(2 ln(1.25 / delta)) / epsilon.
  const double sigma = l2_sensitivity * std::sqrt(2.0 * std::log(1.25 / delta)) / epsilon;
  core::check_positive(fn, "resulting sigma", sigma);
  return gaussian(sigma, l2_sensitivity, relation);
}

gaussian gaussian::calibrate_analytic(double epsilon,
                                      double delta,
                                      double l2_sensitivity,
                                      core::neighbouring relation) {
  const char* fn = "gaussian::calibrate_analytic";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  const real eps = epsilon;
  const real del = delta;
  // Balle & Wang 2018, Algorithm 1. delta_0 = Phi(0) - e^eps Phi(-sqrt(2 eps)) is the privacy
  // profile at sigma = Delta / sqrt(2 eps) (alpha = 1).
  const real delta0 = 0.5L - exp_times_phi_neg(eps, std::sqrt(2.0L * eps));
  real alpha;
  if (del >= delta0) {
    // B+(v) = Phi(sqrt(eps v)) - e^eps Phi(-sqrt(eps (v + 2))), increasing in v;
    // v* = sup{v >= 0 : B+(v) <= delta}; alpha = sqrt(1 + v/2) - sqrt(v/2).
    auto bplus = [&](real v) {
      return phi(std::sqrt(eps * v)) - exp_times_phi_neg(eps, std::sqrt(eps * (v + 2.0L))) - del;
    };
    real hi = 1.0L;
    while (bplus(hi) <= 0.0L) hi *= 2.0L;
    const real v = (bplus(0.0L) >= 0.0L) ? 0.0L : solve(bplus, 0.0L, hi);
    // sqrt(1 + v/2) - sqrt(v/2) = 1 / (sqrt(1 + v/2) + sqrt(v/2)), without cancellation.
    alpha = 1.0L / (std::sqrt(1.0L + v / 2.0L) + std::sqrt(v / 2.0L));
  } else {
    // B-(u) = Phi(-sqrt(eps u)) - e^eps Phi(-sqrt(eps (u + 2))), decreasing in u;
    // u* = inf{u >= 0 : B-(u) <= delta}; alpha = sqrt(1 + u/2) + sqrt(u/2).
    auto bminus = [&](real u) {
      return phi(-std::sqrt(eps * u)) - exp_times_phi_neg(eps, std::sqrt(eps * (u + 2.0L))) - del;
    };
    real hi = 1.0L;
    while (bminus(hi) > 0.0L) hi *= 2.0L;
    const real u = solve(bminus, 0.0L, hi);
    alpha = std::sqrt(1.0L + u / 2.0L) + std::sqrt(u / 2.0L);
  }
  // sigma = alpha Delta / sqrt(2 eps).
  double sigma =
      static_cast<double>(alpha * static_cast<real>(l2_sensitivity) / std::sqrt(2.0L * eps));
  core::check_positive(fn, "resulting sigma", sigma);
  // Safe side: the root solver returns a bracket midpoint, which may sit on the infeasible side
  // (delta(eps) above the target by ~1e-13 relative). Re-evaluate the returned sigma itself and
  // raise it until delta(eps) <= delta (1 - 1e-12); the margin covers the evaluation's own
  // rounding and costs ~1e-13 relative in sigma.
  const double target = delta * (1.0 - 1e-12);
  double step = 0x1p-52;
  for (int it = 0; it < 80 && gaussian_delta_for_epsilon(epsilon, sigma / l2_sensitivity) > target;
       ++it) {
    sigma *= 1.0 + step;
    step *= 2.0;
  }
  return gaussian(sigma, l2_sensitivity, relation);
}

gaussian gaussian::from_sigma(double sigma, double l2_sensitivity, core::neighbouring relation) {
  core::check_positive("gaussian::from_sigma", "sigma", sigma);
  core::check_positive("gaussian::from_sigma", "l2_sensitivity", l2_sensitivity);
  return gaussian(sigma, l2_sensitivity, relation);
}

}  // namespace dpx::mechanisms
