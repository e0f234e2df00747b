#include "dpx/solvers/common.hpp"

#include <sstream>

#include "dpx/core/error.hpp"

namespace dpx::solvers {

std::string to_string(termination t) {
  switch (t) {
    case termination::converged:
      return "converged";
    case termination::max_iterations:
      return "max_iterations";
    case termination::line_search_failed:
      return "line_search_failed";
    case termination::diverged:
      return "diverged";
  }
  return "unknown";
}

void checkpoint_options::validate(const char* function) const {
  core::check_at_least(function, "trace.per_decade", per_decade, 1);
}

bool checkpoint_options::is_checkpoint(std::int64_t k) const noexcept {
  if (!enabled) return false;
  if (k <= 10) return true;
  const double p = static_cast<double>(per_decade);
  return std::floor(p * std::log10(static_cast<double>(k))) >
         std::floor(p * std::log10(static_cast<double>(k - 1)));
}

bool solve_result::usable() const noexcept {
  return status != termination::diverged && !x.empty() && detail::all_finite(x);
}

std::string solve_result::brief_report() const {
  std::ostringstream os;
  os.precision(17);
  os << to_string(status) << ": " << iterations << " iterations, objective " << objective << ", "
     << seconds << " s";
  if (!privacy_events.empty()) os << ", " << privacy_events.size() << " private releases";
  os << " (" << message << ")";
  return os.str();
}

}  // namespace dpx::solvers
