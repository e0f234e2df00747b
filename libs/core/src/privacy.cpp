#include "dpx/core/privacy.hpp"

#include "dpx/core/detail/overloaded.hpp"
#include "dpx/core/error.hpp"

namespace dpx::core {

std::string to_string(neighbouring n) {
  return n == neighbouring::replace_one ? "replace-one" : "add/remove";
}

std::string to_string(privacy_unit u) { return u == privacy_unit::item ? "item" : "user"; }

void event_log::merge(const privacy_event& e, std::int64_t count) {
  check_at_least("event_log::merge", "count", count, 1);
  for (std::size_t r = 0; r < runs_.size(); ++r) {
    if (runs_[r].event == e) {
      runs_[r].count += count;
      for (std::size_t j = r + 1; j < starts_.size(); ++j)
        starts_[j] += static_cast<std::size_t>(count);
      size_ += static_cast<std::size_t>(count);
      return;
    }
  }
  append(e, count);
}

namespace {
using detail::overloaded;
}  // namespace

std::string event_name(const privacy_event& e) {
  return std::visit(
      overloaded{
          [](const pure_dp_event&) { return "pure_dp"; },
          [](const approx_dp_event&) { return "approx_dp"; },
          [](const laplace_event&) { return "laplace"; },
          [](const gaussian_event&) { return "gaussian"; },
          [](const subsampled_gaussian_event&) { return "subsampled_gaussian"; },
          [](const discrete_laplace_event&) { return "discrete_laplace"; },
          [](const discrete_gaussian_event&) { return "discrete_gaussian"; },
          [](const randomized_response_event&) { return "randomized_response"; },
          [](const zcdp_event&) { return "zcdp"; },
          [](const discrete_pair_event&) { return "discrete_pair"; },
          [](const exponential_mechanism_event&) { return "exponential_mechanism"; },
          [](const subsampled_laplace_event&) { return "subsampled_laplace"; },
          [](const sampled_without_replacement_event&) { return "sampled_without_replacement"; }},
      e);
}

}  // namespace dpx::core
