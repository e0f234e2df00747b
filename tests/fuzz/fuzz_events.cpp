// libFuzzer target: the events file of `dpx account --events FILE` (apps/dpx/events_json.hpp)
// and its composition by every accountant. Any text either parses into an event log or is
// rejected with std::invalid_argument; a parsed log is composed by each method that supports
// all its events, which either rejects a parameter (std::invalid_argument) or returns an
// epsilon / delta that is not NaN and lies in [0, inf] / [0, 1]. Anything else escaping (or a
// crash, a sanitizer report, a hang) is a failure. Error lines obey the CLI's message rule.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "dpx/accounting/calibration.hpp"
#include "events_json.hpp"
#include "strict.hpp"

namespace {
void check_message(const char* what) {
  const std::string line = dpx::cli::one_line_message(what);
  if (line.size() > dpx::cli::max_message_bytes + 3) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace acc = dpx::accounting;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  dpx::core::event_log log;
  try {
    log = dpx::cli::parse_events_json(text, "fuzz.json");
  } catch (const std::invalid_argument& e) {
    check_message(e.what());
    return 0;
  }
  if (log.empty() || log.size() > static_cast<std::size_t>(dpx::cli::max_event_releases)) {
    std::abort();  // the parser promises a nonempty log within the release bound
  }
  // pld is left out: its grids are sized by the events' parameters (bounded by its own
  // checks, but slow under the sanitizers); the CLI replay tests cover it.
  for (const auto m : {acc::method::basic,
                       acc::method::advanced,
                       acc::method::kov,
                       acc::method::rdp,
                       acc::method::zcdp}) {
    auto a = acc::make_accountant(m, 1e-3);
    bool ok = true;
    for (const auto& r : log.runs()) ok = ok && a->supports(r.event);
    if (!ok) continue;
    try {
      a->compose(log);
      const double eps = a->epsilon(1e-5);
      if (std::isnan(eps) || eps < 0.0) std::abort();
      const double delta = a->delta(1.0);
      if (std::isnan(delta) || delta < 0.0 || delta > 1.0) std::abort();
    } catch (const std::invalid_argument& e) {
      check_message(e.what());
    }
  }
  return 0;
}
