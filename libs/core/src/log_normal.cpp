#include "dpx/core/detail/log_normal.hpp"

#include <boost/math/special_functions/erf.hpp>

namespace dpx::core::detail {

namespace {
constexpr double sqrt_half = 0.70710678118654752440;
constexpr double inv_sqrt_pi = 0.56418958354775628695;

/// Boost.Math's erfc with its default policy (double arguments evaluated in long double) or,
/// for the bulk evaluations of the PLD discretisation, in double (a few ulps, ~3x faster).
template <bool Fast>
double erfc_of(double x) {
  if constexpr (Fast) {
    using no_promotion =
        boost::math::policies::policy<boost::math::policies::promote_double<false>>;
    return boost::math::erfc(x, no_promotion());
  } else {
    return boost::math::erfc(x);
  }
}

template <bool Fast>
double erfcx_impl(double x) {
  if (x < 25.0) {
    // exp(x^2) with x^2 split exactly into hi + lo (error-free product via fma) so the
    // exponential keeps full relative accuracy even for x^2 ~ 600.
    const double hi = x * x;
    const double lo = std::fma(x, x, -hi);
    return std::exp(hi) * (1.0 + lo) * erfc_of<Fast>(x);
  }
  // Asymptotic series erfcx(x) = 1/(x sqrt(pi)) sum_n (-1)^n (2n-1)!! / (2x^2)^n
  // (Abramowitz & Stegun 7.1.23); for x >= 25 twelve terms are exact to double precision.
  const double r = 1.0 / (2.0 * x * x);
  double term = 1.0, sum = 1.0;
  for (int n = 1; n <= 12; ++n) {
    term *= -(2.0 * n - 1.0) * r;
    sum += term;
  }
  return inv_sqrt_pi / x * sum;
}

template <bool Fast>
double hockey_stick_impl(double epsilon, double mu) {
  const double u = epsilon / mu - mu / 2.0;
  const double v = epsilon / mu + mu / 2.0;
  if (u > 0.0) {
    // delta = phi(u) (R(u) - R(v)), R the Mills ratio; R(x) = sqrt(pi/2) erfcx(x/sqrt2), so
    // delta = exp(-u^2/2) (erfcx(u/sqrt2) - erfcx(v/sqrt2)) / 2.
    const double d = erfcx_impl<Fast>(u * sqrt_half) - erfcx_impl<Fast>(v * sqrt_half);
    if (!(d > 0.0)) return -inf;
    return -0.5 * u * u + std::log(0.5 * d);
  }
  // u <= 0: Phi(-u) >= 1/2, no cancellation beyond a fixed factor.
  const double first = 0.5 * erfc_of<Fast>(u * sqrt_half);
  double second;
  if (v > 0.0) {
    second = std::exp(epsilon - 0.5 * v * v) * 0.5 * erfcx_impl<Fast>(v * sqrt_half);
  } else {
    second = std::exp(epsilon) * 0.5 * erfc_of<Fast>(v * sqrt_half);
  }
  const double d = first - second;
  return d > 0.0 ? std::log(d) : -inf;
}
}  // namespace

double erfcx(double x) { return erfcx_impl<false>(x); }

double log_gaussian_hockey_stick(double epsilon, double mu) {
  return hockey_stick_impl<false>(epsilon, mu);
}

double log_gaussian_hockey_stick_fast(double epsilon, double mu) {
  return hockey_stick_impl<true>(epsilon, mu);
}

double log_erfc(double x) {
  if (x < 0.5) return std::log(boost::math::erfc(x));
  return std::log(erfcx(x)) - x * x;
}

double log_ndtr(double x) {
  if (x >= 0.0) return std::log1p(-0.5 * boost::math::erfc(x * sqrt_half));
  const double t = -x * sqrt_half;
  return std::log(0.5 * erfcx(t)) - t * t;
}

double ndtr_upper(double x) { return 0.5 * boost::math::erfc(x * sqrt_half); }

}  // namespace dpx::core::detail
