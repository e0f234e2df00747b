// RDP amplification by subsampling for Laplace and for fixed-size batches (dpx/accounting/
// subsampling.hpp; docs/accounting.md, "Subsampling").
#include "dpx/accounting/subsampling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include "dpx/accounting/rdp.hpp"
#include "dpx/core/error.hpp"
#include "normal.hpp"

namespace dpx::accounting {

namespace {
using core::detail::inf;

double log_choose(double n, double k) {
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
}

/// Base mechanism's RDP curve at integer orders and its limit eps(inf).
struct base_curve {
  std::function<double(double)> rdp;
  double eps_inf;
};

base_curve base_of(core::noise_family f, double s) {
  if (f == core::noise_family::gaussian) {
    return {[s](double a) { return rdp_gaussian(a, s); }, inf};
  }
  return {[s](double a) { return rdp_laplace(a, s); }, 1.0 / s};
}

/// Applies an integer-order bound at any alpha > 1: exact at integers, interpolated linearly in
/// the cumulant (alpha - 1) eps(alpha) between floor and ceiling otherwise (the cumulant is 0
/// at alpha = 1) [Wang, Balle & Kasiviswanathan 2019, Cor 10].
template <class F>
double at_order(double alpha, F integer_bound) {
  const double lo = std::floor(alpha), hi = std::ceil(alpha);
  if (lo == hi) return integer_bound(alpha);
  const double t = alpha - lo;
  const double k_lo = lo < 2.0 ? 0.0 : (lo - 1.0) * integer_bound(lo);
  const double k_hi = (hi - 1.0) * integer_bound(hi);
  return ((1.0 - t) * k_lo + t * k_hi) / (alpha - 1.0);
}

/// The general upper bound of [Zhu & Wang 2019] at integer alpha >= 2 (see the header).
double zhu_wang_poisson(double alpha, double g, const base_curve& b) {
  const double base = b.rdp(alpha);
  if (g == 1.0) return base;
  const double lg = std::log(g), l1g = std::log1p(-g);
  double acc = (alpha - 1.0) * l1g + std::log1p(g * (alpha - 1.0));
  acc = detail::log_add(acc, log_choose(alpha, 2.0) + 2.0 * lg + (alpha - 2.0) * l1g + b.rdp(2.0));
  const auto n = static_cast<std::int64_t>(alpha);
  for (std::int64_t l = 3; l <= n; ++l) {
    const double ld = static_cast<double>(l);
    acc = detail::log_add(acc,
                          std::log(3.0) + log_choose(alpha, ld) + (alpha - ld) * l1g + ld * lg +
                              (ld - 1.0) * b.rdp(ld));
  }
  return std::min(base, acc / (alpha - 1.0));
}

/// [Wang, Balle & Kasiviswanathan 2019, Thm 9] at integer alpha >= 2 (see the header).
double wbk_without_replacement(double alpha, double g, const base_curve& b) {
  const double base = b.rdp(alpha);
  if (g == 1.0) return base;
  const double lg = std::log(g);
  // log(e^{eps(inf)} - 1), +inf for the Gaussian
  const double lm = std::isfinite(b.eps_inf) ? std::log(std::expm1(b.eps_inf)) : inf;
  const double e2 = b.rdp(2.0);
  const double t2 =
      std::min(std::log(4.0) + std::log(std::expm1(e2)), e2 + std::min(std::log(2.0), 2.0 * lm));
  double acc = detail::log_add(0.0, 2.0 * lg + log_choose(alpha, 2.0) + t2);
  const auto n = static_cast<std::int64_t>(alpha);
  for (std::int64_t j = 3; j <= n; ++j) {
    const double jd = static_cast<double>(j);
    acc = detail::log_add(acc,
                          jd * lg + log_choose(alpha, jd) + (jd - 1.0) * b.rdp(jd) +
                              std::min(std::log(2.0), jd * lm));
  }
  return std::min(base, acc / (alpha - 1.0));
}

void check_order(const char* fn, double alpha) {
  core::check_finite(fn, "alpha", alpha);
  if (!(alpha > 1.0)) core::throw_invalid(fn, "alpha", alpha, "must be > 1");
}
}  // namespace

double without_replacement_probability(const core::sampled_without_replacement_event& e) {
  const char* fn = "sampled_without_replacement";
  core::check_positive(fn, "noise_multiplier", e.noise_multiplier);
  core::check_finite(fn, "noise_multiplier", e.noise_multiplier);
  core::check_at_least(fn, "batch_size", e.batch_size, std::int64_t{1});
  if (e.dataset_size < e.batch_size) {
    core::throw_invalid(
        fn, "dataset_size", static_cast<double>(e.dataset_size), "must be >= batch_size");
  }
  return static_cast<double>(e.batch_size) / static_cast<double>(e.dataset_size);
}

core::privacy_event poisson_equivalent(const core::sampled_without_replacement_event& e) {
  const double g = without_replacement_probability(e);
  if (e.noise == core::noise_family::gaussian) {
    return core::subsampled_gaussian_event{g, e.noise_multiplier};
  }
  return core::subsampled_laplace_event{g, e.noise_multiplier};
}

double rdp_subsampled_laplace(double alpha, double sampling_rate, double noise_multiplier) {
  const char* fn = "rdp_subsampled_laplace";
  check_order(fn, alpha);
  core::check_half_open_interval(fn, "sampling_rate", sampling_rate, 0.0, 1.0);
  core::check_positive(fn, "noise_multiplier", noise_multiplier);
  const base_curve b = base_of(core::noise_family::laplace, noise_multiplier);
  return at_order(alpha, [&](double a) { return zhu_wang_poisson(a, sampling_rate, b); });
}

double rdp_sampled_without_replacement(double alpha,
                                       const core::sampled_without_replacement_event& e) {
  const char* fn = "rdp_sampled_without_replacement";
  check_order(fn, alpha);
  const double g = without_replacement_probability(e);
  if (e.relation == core::neighbouring::add_remove) {
    if (e.noise == core::noise_family::gaussian) {
      return rdp_subsampled_gaussian(alpha, g, e.noise_multiplier);
    }
    return rdp_subsampled_laplace(alpha, g, e.noise_multiplier);
  }
  const base_curve b = base_of(e.noise, e.noise_multiplier);
  return at_order(alpha, [&](double a) { return wbk_without_replacement(a, g, b); });
}

}  // namespace dpx::accounting
