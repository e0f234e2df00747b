#pragma once
// Internal helpers shared by pld.cpp and pld_accountant.cpp (not installed).
#include <vector>

namespace dpx::accounting::detail {

/// Validates a discrete pair (P, Q): same nonempty size, finite, nonnegative, each sums to 1.
void check_pld_pair(const char* fn, const std::vector<double>& p, const std::vector<double>& q);

/// std::visit helper.
template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

}  // namespace dpx::accounting::detail
