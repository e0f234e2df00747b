#include "dpx/accounting/accountant.hpp"

#include "dpx/core/error.hpp"

namespace dpx::accounting {

unsupported_event_error::unsupported_event_error(const std::string& accountant,
                                                 const std::string& event)
    : std::invalid_argument(accountant + " accountant: unsupported event '" + event +
                            "' (use an accountant that supports it; no fallback is applied)") {}

void accountant::compose(const core::event_log& log) {
  for (const auto& r : log.runs()) compose(r.event, r.count);
}

}  // namespace dpx::accounting
