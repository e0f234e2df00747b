#include "dpx/estimators/local.hpp"

#include <cmath>

#include "dpx/core/error.hpp"

namespace dpx::estimators {

void local_mean_options::validate(const char* function) const {
  core::check_positive(function, "epsilon", epsilon);
  rule.validate(function);
  core::check_positive(function, "bound", bound);
  if (composition_slack != 0.0)
    core::check_open_interval(function, "composition_slack", composition_slack, 0.0, 1.0);
  if (bins() > (std::size_t{1} << 24))
    core::throw_invalid(
        function, "bound", bound, "gives more than 2^24 local histogram bins (B/(2h) too large)");
}

std::size_t local_mean_options::bins() const {
  const double k = std::ceil(bound / (2.0 * rule.bin_half_width));
  if (!(k < 0x1p40)) return std::size_t{1} << 41;
  return 2 * static_cast<std::size_t>(k) + 1;
}

namespace detail {
std::vector<std::int64_t> local_bins(std::span<const double> x, double width, std::int64_t K) {
  std::vector<std::int64_t> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::int64_t k = bin_index(x[i], width);
    out[i] = (k < -K || k > K) ? -1 : k + K;
  }
  return out;
}
}  // namespace detail

}  // namespace dpx::estimators
