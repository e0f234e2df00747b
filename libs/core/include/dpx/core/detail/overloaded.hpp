#pragma once
/// \file
/// The std::visit helper: overloaded{[](const A&) {...}, [](const B&) {...}} (one home for the
/// sources that visit privacy events). Internal: not part of the API.

namespace dpx::core::detail {

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

}  // namespace dpx::core::detail
