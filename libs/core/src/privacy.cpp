#include "dpx/core/privacy.hpp"

#include <cmath>

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

void check_event(std::string_view fn, const privacy_event& e) {
  std::visit(
      overloaded{
          [&](const pure_dp_event& x) { check_positive(fn, "epsilon", x.epsilon); },
          [&](const approx_dp_event& x) {
            check_positive(fn, "epsilon", x.epsilon);
            if (!(x.delta >= 0.0 && x.delta < 1.0))
              throw_invalid(fn, "delta", x.delta, "must lie in [0, 1)");
          },
          [&](const laplace_event& x) {
            check_positive(fn, "noise_multiplier", x.noise_multiplier);
          },
          [&](const gaussian_event& x) {
            check_positive(fn, "noise_multiplier", x.noise_multiplier);
          },
          [&](const subsampled_gaussian_event& x) {
            check_half_open_interval(fn, "sampling_rate", x.sampling_rate, 0.0, 1.0);
            check_positive(fn, "noise_multiplier", x.noise_multiplier);
          },
          [&](const subsampled_laplace_event& x) {
            check_half_open_interval(fn, "sampling_rate", x.sampling_rate, 0.0, 1.0);
            check_positive(fn, "noise_multiplier", x.noise_multiplier);
          },
          [&](const sampled_without_replacement_event& x) {
            check_positive(fn, "noise_multiplier", x.noise_multiplier);
            check_at_least(fn, "batch_size", x.batch_size, 1);
            if (x.dataset_size < x.batch_size)
              throw_invalid(
                  fn, "dataset_size", static_cast<double>(x.dataset_size), "must be >= batch_size");
          },
          [&](const discrete_laplace_event& x) {
            check_positive(fn, "scale", x.scale);
            check_at_least(fn, "sensitivity", x.sensitivity, 1);
          },
          [&](const discrete_gaussian_event& x) {
            check_positive(fn, "sigma", x.sigma);
            check_positive(fn, "sensitivity", x.sensitivity);
          },
          [&](const randomized_response_event& x) {
            check_positive(fn, "epsilon", x.epsilon);
            check_at_least(fn, "categories", x.categories, 2);
          },
          [&](const zcdp_event& x) { check_positive(fn, "rho", x.rho); },
          [&](const discrete_pair_event& x) {
            check_nonempty_finite_span(fn, "p", x.p);
            if (x.q.size() != x.p.size())
              throw_invalid(fn, "q", static_cast<double>(x.q.size()), "must be as long as p");
            check_finite_span(fn, "q", x.q);
            for (const auto* v : {&x.p, &x.q}) {
              const char* name = v == &x.p ? "p" : "q";
              double sum = 0.0;
              for (double y : *v) {
                check_nonnegative(fn, name, y);
                sum += y;
              }
              if (!(std::abs(sum - 1.0) <= 1e-9)) throw_invalid(fn, name, sum, "must sum to 1");
            }
          },
          [&](const exponential_mechanism_event& x) { check_positive(fn, "epsilon", x.epsilon); }},
      e);
}

}  // namespace dpx::core
