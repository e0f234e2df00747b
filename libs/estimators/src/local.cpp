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

double local_user_gamma(std::size_t times, std::size_t users, double epsilon) {
  constexpr const char* fn = "local_user_gamma";
  if (times == 0) core::throw_invalid(fn, "times", "0", "must be >= 1");
  if (users == 0) core::throw_invalid(fn, "users", "0", "must be >= 1");
  core::check_positive(fn, "epsilon", epsilon);
  const double t = static_cast<double>(times) * static_cast<double>(users) * epsilon * epsilon;
  if (!(t > 1.0))
    core::throw_invalid(fn, "epsilon", epsilon, "must give T n eps^2 > 1 (gamma < 1)");
  return 1.0 / t;
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
