#include "dpx/estimators/central.hpp"

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace dpx::estimators {

void winsorized_mean_options::validate(const char* function) const {
  core::check_positive(function, "epsilon", target.epsilon);
  core::check_open_interval(function, "delta", target.delta, 0.0, 1.0);
  rule.validate(function);
}

void winsorized_mean_hd_options::validate(const char* function) const {
  core::check_positive(function, "epsilon", target.epsilon);
  core::check_open_interval(function, "delta", target.delta, 0.0, 1.0);
  rule.validate(function);
  if (composition_slack != 0.0)
    core::check_open_interval(function, "composition_slack", composition_slack, 0.0, 1.0);
}

void kv_mean_options::validate() const {
  constexpr const char* fn = "kv_mean";
  core::check_positive(fn, "epsilon", target.epsilon);
  core::check_open_interval(fn, "delta", target.delta, 0.0, 1.0);
  core::check_positive(fn, "sigma", sigma);
  core::check_open_interval(fn, "beta", beta, 0.0, 1.0);
  core::check_open_interval(fn, "alpha", alpha, 0.0, 1.0);
}

void kv_unknown_sigma_options::validate() const {
  constexpr const char* fn = "kv_mean_unknown_sigma";
  core::check_positive(fn, "epsilon", target.epsilon);
  core::check_open_interval(fn, "delta", target.delta, 0.0, 1.0);
  core::check_open_interval(fn, "beta", beta, 0.0, 1.0);
  core::check_open_interval(fn, "alpha", alpha, 0.0, 1.0);
  core::check_positive(fn, "sigma_fallback", sigma_fallback);
}

namespace detail {

std::int64_t dyadic_index(double d) noexcept {
  // d = f·2^e with f ∈ [1/2, 1) (frexp, exact), so 2^{e−1} ≤ d < 2^e and ⌊log₂ d⌋ = e − 1.
  // Zero and subnormals (< 2^-1022) share the bottom bin −1075 (below every normal bin); an
  // overflowed difference (+inf) gets the top bin 1024.
  if (!(d >= 0x1p-1022)) return -1075;
  if (std::isinf(d)) return 1024;  // overflowed difference of two finite values: top bin
  int e = 0;
  (void)std::frexp(d, &e);
  return static_cast<std::int64_t>(e) - 1;
}

std::vector<bin_count> pair_difference_bins(std::span<const double> x) {
  const std::size_t m = x.size() / 2;
  std::vector<std::int64_t> keys(m);
  for (std::size_t i = 0; i < m; ++i) keys[i] = dyadic_index(std::abs(x[2 * i + 1] - x[2 * i]));
  std::sort(keys.begin(), keys.end());
  std::vector<bin_count> out;
  for (std::size_t i = 0; i < m;) {
    std::size_t k = i;
    while (k < m && keys[k] == keys[i]) ++k;
    out.push_back({keys[i], static_cast<std::uint64_t>(k - i)});
    i = k;
  }
  return out;
}

void check_matrix(const char* function,
                  std::span<const double> x,
                  std::size_t d,
                  std::size_t min_rows) {
  if (d == 0) core::throw_invalid(function, "d", "0", "must be >= 1");
  if (x.size() % d != 0)
    core::throw_invalid(function,
                        "x",
                        "size " + std::to_string(x.size()),
                        "must be a multiple of d = " + std::to_string(d) + " (n×d row-major)");
  if (x.size() / d < min_rows)
    core::throw_invalid(function,
                        "x",
                        std::to_string(x.size() / d) + " rows",
                        "must have at least " + std::to_string(min_rows) + " rows");
  core::check_finite_span(function, "x", x);
}

interval kv_confidence(double estimate,
                       const kv_mean_options& o,
                       std::size_t n,
                       double noise_scale) {
  // P(|N(0,1)| > z_{1-a0/2}) = a0 and P(|Lap(b)| > b ln(1/a1)) = a1, a0 = a1 = alpha/2.
  const double a0 = 0.5 * o.alpha, a1 = 0.5 * o.alpha;
  const boost::math::normal_distribution<double> z01(0.0, 1.0);
  const double z = boost::math::quantile(boost::math::complement(z01, 0.5 * a0));
  const double half =
      o.sigma * z / std::sqrt(static_cast<double>(n)) + noise_scale * std::log(1.0 / a1);
  return {estimate - half, estimate + half};
}

}  // namespace detail
}  // namespace dpx::estimators
