#include "dpx/estimators/variance.hpp"

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cmath>

#include "dpx/core/error.hpp"

namespace dpx::estimators {

void variance_options::validate(const char* function) const {
  core::check_positive(function, "epsilon", epsilon);
  if (composition_slack != 0.0)
    core::check_open_interval(function, "composition_slack", composition_slack, 0.0, 1.0);
  core::check_positive(function, "variance_min", variance_min);
  core::check_positive(function, "variance_max", variance_max);
  if (!(variance_max > variance_min))
    core::throw_invalid(function, "variance_max", variance_max, "must exceed variance_min");
  core::check_finite(function, "midpoint", midpoint);
  core::check_open_interval(function, "gamma", gamma, 0.0, 1.0);
  if (!std::isfinite(inflation))
    core::throw_invalid(function, "inflation", inflation, "must be finite");
}

std::size_t variance_options::iterations() const {
  const double k = std::ceil(std::log2(variance_max / variance_min));
  return k < 1.0 ? 1 : static_cast<std::size_t>(k);
}

namespace detail {

double coverage_fraction(std::span<const double> x, double m, double r) noexcept {
  std::size_t c = 0;
  for (double v : x) c += std::abs(v - m) <= r;
  return static_cast<double>(c) / static_cast<double>(x.size());
}

double clipped_second_moment(std::span<const double> x, double m, double s, double b) noexcept {
  double acc = 0;
  for (double v : x) {
    double w = (v - m) / s;
    w = w < -b ? -b : (w > b ? b : w);
    acc += w * w;
  }
  return acc / static_cast<double>(x.size());
}

coordinate_budget variance_budget(const variance_options& o) {
  const double slack = o.composition_slack > 0.0 ? o.composition_slack : 1e-6;
  return split_budget(o.epsilon, 0.0, 2 * o.iterations(), slack, o.choice);
}

double released_variance(const variance_options& o, double v) noexcept {
  // validate() guarantees σ_min² < σ_max², so std::clamp's precondition holds.
  return o.clamp_to_bounds ? std::clamp(v, o.variance_min, o.variance_max) : v;
}

}  // namespace detail

interval plugin_confidence_interval(const mean_result& mean,
                                    double variance,
                                    double alpha,
                                    double long_run_factor) {
  constexpr const char* fn = "plugin_confidence_interval";
  core::check_nonnegative(fn, "variance", variance);
  core::check_open_interval(fn, "alpha", alpha, 0.0, 1.0);
  core::check_positive(fn, "long_run_factor", long_run_factor);
  if (mean.n == 0) core::throw_invalid(fn, "mean.n", "0", "must be >= 1");
  const boost::math::normal_distribution<double> z01(0.0, 1.0);
  const double z = boost::math::quantile(boost::math::complement(z01, alpha / 4.0));
  const double half = z * std::sqrt(long_run_factor * variance / static_cast<double>(mean.n)) +
                      mean.noise_scale * std::log(2.0 / alpha);
  return {mean.estimate - half, mean.estimate + half};
}

}  // namespace dpx::estimators
