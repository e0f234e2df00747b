#include "dpx/solvers/metrics.hpp"

#include <cmath>
#include <vector>

#include "dpx/core/error.hpp"

namespace dpx::solvers {

support_recovery support_metrics(std::span<const double> estimate,
                                 std::span<const std::size_t> true_support,
                                 double threshold) {
  const char* fn = "solvers::support_metrics";
  core::check_finite_span(fn, "estimate", estimate);
  core::check_finite(fn, "threshold", threshold);
  core::check_nonnegative(fn, "threshold", threshold);
  std::vector<char> in_truth(estimate.size(), 0);
  for (std::size_t j : true_support) {
    if (j >= estimate.size())
      core::throw_invalid(fn, "true_support", double(j), "index out of range");
    if (in_truth[j]) core::throw_invalid(fn, "true_support", double(j), "duplicate index");
    in_truth[j] = 1;
  }
  support_recovery r;
  for (std::size_t j = 0; j < estimate.size(); ++j) {
    const bool sel = std::fabs(estimate[j]) > threshold;
    r.selected += sel;
    if (sel && in_truth[j]) ++r.true_positives;
    if (sel && !in_truth[j]) ++r.false_positives;
    if (!sel && in_truth[j]) ++r.false_negatives;
  }
  r.precision = r.selected == 0 ? 1.0 : double(r.true_positives) / double(r.selected);
  r.recall = true_support.empty() ? 1.0 : double(r.true_positives) / double(true_support.size());
  const double s = r.precision + r.recall;
  r.f1 = s == 0 ? 0.0 : 2 * r.precision * r.recall / s;
  return r;
}

}  // namespace dpx::solvers
