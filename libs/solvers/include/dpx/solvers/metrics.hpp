#pragma once
/// \file
/// Support-recovery metrics for sparse estimation experiments (ISTDP, proximal DP solvers):
/// how well the nonzero pattern of an estimate matches a known true support.

#include <cstddef>
#include <span>

namespace dpx::solvers {

/// Support recovery of an estimate against the true support S*.
/// Selected set S = {j : |estimate_j| > threshold}.
struct support_recovery {
  std::size_t selected = 0;         ///< |S|
  std::size_t true_positives = 0;   ///< |S ∩ S*|
  std::size_t false_positives = 0;  ///< |S \ S*|
  std::size_t false_negatives = 0;  ///< |S* \ S|
  /// |S ∩ S*| / |S|; 1 when S is empty (no false discovery: the convention FDP = 0 for an empty
  /// selection), in [0, 1].
  double precision = 1;
  /// |S ∩ S*| / |S*|; 1 when S* is empty, in [0, 1].
  double recall = 1;
  /// Harmonic mean 2PR / (P + R); 0 when P + R = 0, in [0, 1].
  double f1 = 1;
};

/// Support recovery of `estimate` against `true_support` (indices into estimate, each
/// < estimate.size(), no duplicates, any order). threshold >= 0 (finite): coordinates with
/// |estimate_j| <= threshold count as zero (0 = exact zeros, as produced by thresholding
/// proximal operators). Throws core::invalid_argument_error on non-finite estimates, a bad
/// threshold, or out-of-range / duplicate indices.
support_recovery support_metrics(std::span<const double> estimate,
                                 std::span<const std::size_t> true_support,
                                 double threshold = 0.0);

}  // namespace dpx::solvers
