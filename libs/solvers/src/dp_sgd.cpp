#include "dpx/solvers/dp_sgd.hpp"

#include <cmath>
#include <cstdint>

#include "dpx/core/error.hpp"

namespace dpx::solvers {

void dp_sgd_options::validate() const {
  const char* fn = "solvers::dp_sgd_options";
  core::check_at_least(fn, "iterations", iterations, 1);
  core::check_positive(fn, "step_size", step_size);
  core::check_half_open_interval(fn, "sampling_rate", sampling_rate, 0.0, 1.0);
  core::check_positive(fn, "clip_norm", clip_norm);
  core::check_nonnegative(fn, "noise_multiplier", noise_multiplier);
  core::check_nonnegative(fn, "expected_batch_size", expected_batch_size);
  trace.validate(fn);
}

}  // namespace dpx::solvers

namespace dpx::solvers::detail {

grid_aggregate grid_aggregate::for_clip(double clip_norm) {
  core::check_positive("solvers::dp_sgd", "clip_norm", clip_norm);
  int e = 0;
  (void)std::frexp(clip_norm, &e);  // clip_norm = f 2^e, f in [1/2, 1): floor(log2 G) = e - 1
  grid_aggregate a;
  a.unit = std::ldexp(1.0, e - 1 - 30);
  a.bound = static_cast<std::int64_t>(std::floor(clip_norm / a.unit));  // exact: G / u < 2^31
  a.clip = clip_norm * (1.0 - 0x1p-30);
  return a;
}

bool grid_aggregate::add(std::span<const double> v, std::span<std::int64_t> sum) const {
  // trunc(v_j / u) is exact (u a power of two); |k_j| <= |v_j| / u < 2^32 for the clipped v
  // (a non-clipped or non-finite value fails the norm test below or is rejected here).
  rng::detail::uint128 norm2 = 0;
  const rng::detail::uint128 limit =
      static_cast<rng::detail::uint128>(bound) * static_cast<rng::detail::uint128>(bound);
  for (const double x : v) {
    const double k = std::trunc(x / unit);
    if (!(std::fabs(k) <= 0x1p40)) return false;
    const auto m = static_cast<std::uint64_t>(std::fabs(k));
    norm2 += static_cast<rng::detail::uint128>(m) * m;
    if (norm2 > limit) return false;
  }
  for (std::size_t j = 0; j < v.size(); ++j)
    sum[j] += static_cast<std::int64_t>(std::trunc(v[j] / unit));
  return true;
}

double poisson_rate_as_drawn(double q) noexcept {
  return q >= 1.0 ? 1.0 : std::ceil(q * 0x1p53) * 0x1p-53;
}

double product_rounded_up(double sigma, double x) noexcept {
  const double p = sigma * x;
  // fma gives the exact residual sigma x - p: p is below the product iff it is positive.
  return std::fma(sigma, x, -p) > 0 ? std::nextafter(p, HUGE_VAL) : p;
}

}  // namespace dpx::solvers::detail
