#include "dpx/mechanisms/discrete.hpp"

#include <cmath>
#include <numbers>

namespace dpx::mechanisms {

namespace detail {

std::uint64_t discrete_gaussian_t(std::uint64_t a, std::uint64_t b) {
  // f = floor(sqrt(a / b)): largest f with f^2 b <= a.
  auto f = static_cast<std::uint64_t>(
      std::floor(std::sqrt(static_cast<long double>(a) / static_cast<long double>(b))));
  while (static_cast<u128>(f + 1) * (f + 1) * b <= a) ++f;
  while (f > 0 && static_cast<u128>(f) * f * b > a) --f;
  return f + 1;
}

}  // namespace detail

namespace {

// Rational t / s >= tau with s = 2^k and t ~ 2^30 (or t = ceil(tau) + 1 for large tau).
// `exact` means tau is the exact target (no rounding to absorb).
std::pair<std::uint64_t, std::uint64_t> rational_at_least(const char* fn,
                                                          const char* what,
                                                          double tau,
                                                          bool exact) {
  core::check_positive(fn, what, tau);
  if (!(tau >= 0x1p-32) || !(tau < 0x1p61))
    core::throw_invalid(fn, what, tau, "must be in [2^-32, 2^61) for the exact sampler");
  int e = 0;
  std::frexp(tau, &e);  // tau in [2^(e-1), 2^e)
  const int k = std::max(0, 30 - e);
  const double scaled = std::ldexp(tau, k);  // exact
  double t = std::ceil(scaled);
  if (!exact) t += 1.0;  // absorb the rounding of tau itself (relative <= 2^-53)
  std::uint64_t s = std::uint64_t{1} << k;
  auto ti = static_cast<std::uint64_t>(t);
  while (s > 1 && (ti % 2 == 0)) {  // reduce common powers of two
    ti /= 2;
    s /= 2;
  }
  return {ti, s};
}

}  // namespace

discrete_laplace discrete_laplace::calibrate(double epsilon,
                                             std::int64_t sensitivity,
                                             core::neighbouring relation) {
  const char* fn = "discrete_laplace::calibrate";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_at_least(fn, "sensitivity", sensitivity, 1);
  const auto [t, s] = rational_at_least(
      fn, "sensitivity / epsilon", static_cast<double>(sensitivity) / epsilon, false);
  return discrete_laplace(t, s, sensitivity, relation);
}

discrete_laplace discrete_laplace::from_rational_scale(std::uint64_t t,
                                                       std::uint64_t s,
                                                       std::int64_t sensitivity) {
  const char* fn = "discrete_laplace::from_rational_scale";
  core::check_at_least(fn, "t", static_cast<long long>(std::min<std::uint64_t>(t, 1ull << 62)), 1);
  core::check_at_least(fn, "s", static_cast<long long>(std::min<std::uint64_t>(s, 1ull << 62)), 1);
  if (t >= (std::uint64_t{1} << 62))
    core::throw_invalid(fn, "t", static_cast<double>(t), "must be < 2^62");
  core::check_at_least(fn, "sensitivity", sensitivity, 1);
  return discrete_laplace(t, s, sensitivity, core::neighbouring::replace_one);
}

discrete_laplace discrete_laplace::from_scale(double scale, std::int64_t sensitivity) {
  const char* fn = "discrete_laplace::from_scale";
  core::check_at_least(fn, "sensitivity", sensitivity, 1);
  const auto [t, s] = rational_at_least(fn, "scale", scale, true);
  return discrete_laplace(t, s, sensitivity, core::neighbouring::replace_one);
}

double discrete_laplace::pmf(std::int64_t z) const {
  const long double tau = static_cast<long double>(t_) / static_cast<long double>(s_);
  const long double az = z < 0 ? -static_cast<long double>(z) : static_cast<long double>(z);
  // (1 - r) / (1 + r) = tanh(1 / (2 tau)), r = exp(-1 / tau).
  return static_cast<double>(std::tanh(0.5L / tau) * std::exp(-az / tau));
}

double discrete_laplace::variance() const {
  const long double tau = static_cast<long double>(t_) / static_cast<long double>(s_);
  const long double r = std::exp(-1.0L / tau);
  const long double om = -std::expm1(-1.0L / tau);
  return static_cast<double>(2.0L * r / (om * om));
}

// ---- discrete Gaussian -------------------------------------------------------------------

discrete_gaussian::discrete_gaussian(std::uint64_t a,
                                     std::uint64_t b,
                                     double sens,
                                     core::neighbouring rel)
    : a_(a), b_(b), t_(detail::discrete_gaussian_t(a, b)), sensitivity_(sens), relation_(rel) {}

discrete_gaussian discrete_gaussian::from_rational_variance(std::uint64_t a,
                                                            std::uint64_t b,
                                                            double l2_sensitivity) {
  const char* fn = "discrete_gaussian::from_rational_variance";
  if (a < 1 || a >= (std::uint64_t{1} << 48))
    core::throw_invalid(fn, "a", static_cast<double>(a), "must be in [1, 2^48)");
  if (b < 1 || b >= (std::uint64_t{1} << 48))
    core::throw_invalid(fn, "b", static_cast<double>(b), "must be in [1, 2^48)");
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  return discrete_gaussian(a, b, l2_sensitivity, core::neighbouring::replace_one);
}

discrete_gaussian discrete_gaussian::from_sigma(double sigma,
                                                double l2_sensitivity,
                                                core::neighbouring relation) {
  const char* fn = "discrete_gaussian::from_sigma";
  core::check_positive(fn, "sigma", sigma);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  if (!(sigma >= 0x1p-10) || !(sigma <= 0x1p23))
    core::throw_invalid(fn, "sigma", sigma, "must be in [2^-10, 2^23] for the exact sampler");
  // sigma^2 = a / b with b = 2^k and a about 2^24 (b = 1 once sigma^2 >= 2^24): exact when
  // sigma^2 is such a dyadic rational (e.g. sigma = 10 gives a = 100, b = 1), otherwise
  // rounded UP (relative change < 2^-23), so the noise is never smaller than requested. Keeping
  // a small keeps the sampler in 64-bit arithmetic (den = 2 a b t^2 < 2^64 for sigma <= 2^13).
  const double v = sigma * sigma;
  const bool exact = std::fma(sigma, sigma, -v) == 0.0;
  int e = 0;
  std::frexp(v, &e);  // v in [2^(e-1), 2^e)
  const int k = std::max(0, 24 - e);
  const long double scaled = std::ldexp(static_cast<long double>(v), k);
  long double ac = std::ceil(scaled);
  if (!exact || ac != scaled) ac += 1.0L;  // strictly above sigma^2 when not exact
  auto a = static_cast<std::uint64_t>(ac);
  std::uint64_t b = std::uint64_t{1} << k;
  while (b > 1 && a % 2 == 0) {
    a /= 2;
    b /= 2;
  }
  if (a >= (std::uint64_t{1} << 48) || b >= (std::uint64_t{1} << 48))
    core::throw_invalid(fn, "sigma", sigma, "cannot be represented (internal range)");
  return discrete_gaussian(a, b, l2_sensitivity, relation);
}

discrete_gaussian discrete_gaussian::calibrate_zcdp(double rho,
                                                    double l2_sensitivity,
                                                    core::neighbouring relation) {
  const char* fn = "discrete_gaussian::calibrate_zcdp";
  core::check_positive(fn, "rho", rho);
  core::check_positive(fn, "l2_sensitivity", l2_sensitivity);
  // CKS20 Thm. 14: rho = Delta^2 / (2 sigma^2).
  return from_sigma(l2_sensitivity / std::sqrt(2.0 * rho), l2_sensitivity, relation);
}

double discrete_gaussian::pmf(std::int64_t z) const {
  const long double s2 = static_cast<long double>(a_) / static_cast<long double>(b_);
  const long double sigma = std::sqrt(s2);
  long double norm = 0.0L;
  if (sigma < 10.0L) {
    const auto m = static_cast<std::int64_t>(40.0L * sigma + 10.0L);
    for (std::int64_t k = -m; k <= m; ++k)
      norm += std::exp(-static_cast<long double>(k) * k / (2.0L * s2));
  } else {
    // Poisson summation: sum_k exp(-k^2/(2 s2)) = sigma sqrt(2 pi) (1 + 2 sum_j
    // exp(-2 pi^2 s2 j^2)); the correction is < 1e-800 for sigma >= 10.
    norm = sigma * std::sqrt(2.0L * std::numbers::pi_v<long double>);
  }
  const long double zz = static_cast<long double>(z);
  return static_cast<double>(std::exp(-zz * zz / (2.0L * s2)) / norm);
}

}  // namespace dpx::mechanisms
