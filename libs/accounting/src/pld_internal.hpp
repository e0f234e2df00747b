#pragma once
// Internal helpers shared by pld.cpp, pld_accountant.cpp and pld_subsampled.cpp (not installed).
#include <functional>
#include <vector>

#include "dpx/accounting/pld.hpp"
#include "dpx/core/detail/overloaded.hpp"

namespace dpx::accounting::detail {

/// Validates a discrete pair (P, Q): same nonempty size, finite, nonnegative, each sums to 1.
void check_pld_pair(const char* fn, const std::vector<double>& p, const std::vector<double>& q);

/// PMF of one direction from its exact delta curve `hs` (connect-the-dots in pld.cpp, at the
/// grid of `o`, in the direction `bound`); hs(eps) = 1 - e^eps below eps_lo, and the mass above
/// eps_hi goes to +inf (pessimistic) or is dropped (optimistic).
pld_pmf pmf_from_curve(const std::function<double(double)>& hs,
                       double eps_lo,
                       double eps_hi,
                       const pld_options& o,
                       pld_bound bound);

/// Hockey-stick divergence of the Laplace pair Lap(0, b) vs Lap(1, b) (either order; the pair
/// is symmetric): 1 - e^{(eps - 1/b)/2} on [-1/b, 1/b], 0 above, 1 - e^eps below
/// (docs/accounting.md, "Privacy loss distributions").
double laplace_hockey_stick(double epsilon, double b);

/// PLDs of the events of dpx/accounting/subsampling.hpp (pld_subsampled.cpp).
privacy_loss_distribution subsampled_laplace_pld(const core::subsampled_laplace_event& e,
                                                 const pld_options& o,
                                                 pld_bound bound);
privacy_loss_distribution without_replacement_pld(const core::sampled_without_replacement_event& e,
                                                  const pld_options& o,
                                                  pld_bound bound);

/// std::visit helper (dpx/core/detail/overloaded.hpp).
using core::detail::overloaded;

}  // namespace dpx::accounting::detail
