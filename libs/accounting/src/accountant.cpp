#include "dpx/accounting/accountant.hpp"

#include <variant>

#include "dpx/core/error.hpp"

namespace dpx::accounting {

unsupported_event_error::unsupported_event_error(const std::string& accountant,
                                                 const std::string& event)
    : std::invalid_argument(accountant + " accountant: unsupported event '" + event +
                            "' (use an accountant that supports it; no fallback is applied)") {}

namespace {
template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;
}  // namespace

bool same_event(const core::privacy_event& a, const core::privacy_event& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      overloaded{
          [&](const core::pure_dp_event& x) {
            return x.epsilon == std::get<core::pure_dp_event>(b).epsilon;
          },
          [&](const core::approx_dp_event& x) {
            const auto& y = std::get<core::approx_dp_event>(b);
            return x.epsilon == y.epsilon && x.delta == y.delta;
          },
          [&](const core::laplace_event& x) {
            return x.noise_multiplier == std::get<core::laplace_event>(b).noise_multiplier;
          },
          [&](const core::gaussian_event& x) {
            return x.noise_multiplier == std::get<core::gaussian_event>(b).noise_multiplier;
          },
          [&](const core::subsampled_gaussian_event& x) {
            const auto& y = std::get<core::subsampled_gaussian_event>(b);
            return x.sampling_rate == y.sampling_rate && x.noise_multiplier == y.noise_multiplier;
          },
          [&](const core::discrete_laplace_event& x) {
            const auto& y = std::get<core::discrete_laplace_event>(b);
            return x.scale == y.scale && x.sensitivity == y.sensitivity;
          },
          [&](const core::discrete_gaussian_event& x) {
            const auto& y = std::get<core::discrete_gaussian_event>(b);
            return x.sigma == y.sigma && x.sensitivity == y.sensitivity;
          },
          [&](const core::randomized_response_event& x) {
            const auto& y = std::get<core::randomized_response_event>(b);
            return x.epsilon == y.epsilon && x.categories == y.categories;
          },
          [&](const core::zcdp_event& x) { return x.rho == std::get<core::zcdp_event>(b).rho; },
          [&](const core::discrete_pair_event& x) {
            const auto& y = std::get<core::discrete_pair_event>(b);
            return x.p == y.p && x.q == y.q;
          },
          [&](const core::exponential_mechanism_event& x) {
            return x.epsilon == std::get<core::exponential_mechanism_event>(b).epsilon;
          },
          [&](const core::subsampled_laplace_event& x) {
            return x == std::get<core::subsampled_laplace_event>(b);
          },
          [&](const core::sampled_without_replacement_event& x) {
            return x == std::get<core::sampled_without_replacement_event>(b);
          },
          // Event kinds added later merge only when identical by this function: never, until
          // listed here (correct, merely slower).
          [](const auto&) { return false; }},
      a);
}

void event_ledger::add(const core::privacy_event& e, std::int64_t count) {
  core::check_at_least("accountant::compose", "count", count, 1);
  for (auto& [ev, n] : entries_) {
    if (same_event(ev, e)) {
      n += count;
      return;
    }
  }
  entries_.emplace_back(e, count);
}

void accountant::compose(const core::event_log& log) {
  for (const auto& r : log.runs()) compose(r.event, r.count);
}

}  // namespace dpx::accounting
