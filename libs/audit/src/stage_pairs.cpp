// Histogram-stage pairs of the two-stage estimators (stage_pairs.hpp): the design's counts and
// closed forms.
#include "dpx/audit/stage_pairs.hpp"

#include <algorithm>
#include <cmath>

namespace dpx::audit {

histogram_stage_design make_histogram_stage_design(double eps_h, double delta) {
  const char* fn = "audit::make_histogram_stage_design";
  core::check_positive(fn, "eps_h", eps_h);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  histogram_stage_design d;
  d.noise_scale_count = 2.0 / eps_h;
  d.threshold_count = d.noise_scale_count * std::log(2.0 / delta) + 1.0;
  if (!(d.threshold_count > 2.0) || !(d.threshold_count < 0x1p52))
    core::throw_invalid(fn,
                        "eps_h",
                        eps_h,
                        "gives a count threshold 2 ln(2/delta)/eps_h + 1 outside (2, 2^52): no "
                        "count c_B >= 1 below it by one record");
  // c_A - 1 >= T and c_B + 1 <= T: both threshold gaps on the exponential side of the tails.
  d.count_a = static_cast<std::size_t>(std::floor(d.threshold_count)) + 2;
  d.count_b = static_cast<std::size_t>(std::ceil(d.threshold_count)) - 2;
  d.n = d.count_a + d.count_b;
  const double gap = static_cast<double>(d.count_a) - static_cast<double>(d.count_b);
  d.event_probability = 0.25 * std::exp(-gap / d.noise_scale_count);
  d.event_probability_neighbour = 0.25 * std::exp(-(gap - 2.0) / d.noise_scale_count);
  return d;
}

double both_stages_ceiling(double eps_h, double eps_m, const estimators::interval_rule& rule) {
  const double k = rule.radius, h = rule.bin_half_width;
  return eps_h + eps_m * (k + std::min(h, k)) / (2.0 * k);
}

histogram_stage_positions make_histogram_stage_positions(const estimators::interval_rule& rule) {
  rule.validate("audit::make_histogram_stage_positions");
  const double w = 2.0 * rule.bin_half_width;
  histogram_stage_positions p;
  // 2hK >= kappa: bin A's records clip to -kappa under I_B = [-kappa, kappa], and bin B's top
  // edge h is >= x_A + kappa, so it clips to x_A + kappa under I_A.
  p.bin_a = -(static_cast<std::int64_t>(std::ceil(rule.radius / w)) + 1);
  p.x_a = w * static_cast<double>(p.bin_a);
  p.x_b = rule.bin_half_width;  // bins are (wk - h, wk + h]: h is bin 0's top edge
  const std::int64_t ka = estimators::detail::bin_index(p.x_a, w);
  const std::int64_t kb = estimators::detail::bin_index(p.x_b, w);
  if (ka != p.bin_a || kb != 0)
    core::throw_invalid("audit::make_histogram_stage_positions",
                        "rule.bin_half_width",
                        rule.bin_half_width,
                        "does not place h in bin 0 exactly (rounding of h / 2h)");
  return p;
}

namespace detail {
std::vector<double> histogram_stage_data(const histogram_stage_design& d,
                                         const histogram_stage_positions& p,
                                         int side) {
  const std::size_t ca = side == 0 ? d.count_a : d.count_a - 1;
  std::vector<double> x(d.n, p.x_b);
  std::fill(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(ca), p.x_a);
  return x;
}
}  // namespace detail

}  // namespace dpx::audit
