#pragma once
/// \file
/// Compiled data passes behind the estimator templates (not part of the public API): the bin
/// keys of the stable histogram and the clipped sum. They touch the data; the
/// header templates only add noise to their (small) outputs.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace dpx::estimators::detail {

/// Bin index of x for bins (w k − w/2, w k + w/2], k ∈ Z (width w = 2h, centre w k):
///   k(x) = ⌈x/w − 1/2⌉   (docs/theory/dependent-data.md §3.2 [R]).
/// It is a fixed, monotone function of x alone (IEEE division and subtraction are monotone), so
/// the partition is data-independent, as the stable histogram's privacy proof requires. Indices
/// are clamped to ±2^53 (the two extreme bins then absorb everything beyond: still a fixed
/// partition).
std::int64_t bin_index(double x, double width) noexcept;

/// keys[i] = bin_index(x[i], width) for every i, checking that x is finite (throws
/// core::invalid_argument_error naming `function`, `parameter`[i] and the first bad value).
/// keys.size() == x.size(). The keys feed mechanisms::stable_histogram::release_bins.
void compute_keys(std::span<const double> x,
                  double width,
                  std::span<std::int64_t> keys,
                  std::string_view function,
                  std::string_view parameter);

/// One occupied bin.
struct bin_count {
  std::int64_t bin;     ///< k
  std::uint64_t count;  ///< #{i : x_i in bin k} ≥ 1
};

/// Every occupied bin of x (checked finite: throws core::invalid_argument_error naming
/// `function`, `parameter`[i] and the first bad value), sorted by bin index, with the same keys
/// as compute_keys. One min/max pass, then one counting pass into a dense array when the key
/// range is at most n + 4096 wide, otherwise a sort of the keys. Empty bins never appear.
std::vector<bin_count> occupied_bins(std::span<const double> x,
                                     double width,
                                     std::string_view function,
                                     std::string_view parameter);

/// Sum of clip(x_i, lo, hi) and the number of clipped points, in one pass (fixed accumulation
/// order: 4 interleaved partial sums, combined as (s0 + s1) + (s2 + s3)).
struct clip_result {
  double sum = 0.0;         ///< Σ clip(x_i, lo, hi)
  std::size_t clipped = 0;  ///< #{i : x_i < lo or x_i > hi}
};
clip_result clipped_sum(std::span<const double> x, double lo, double hi) noexcept;

/// Copies column j of a row-major n×d matrix into out (size n).
void copy_column(std::span<const double> matrix,
                 std::size_t d,
                 std::size_t j,
                 std::span<double> out) noexcept;

}  // namespace dpx::estimators::detail
