#pragma once
/// \file
/// The accountant interface shared by every accounting method, and the event ledger that
/// merges repeated identical events.
///
/// An accountant consumes privacy events (dpx/core/privacy.hpp, emitted by dpx::mechanisms and
/// the solvers) and answers "what (epsilon, delta) does the composition satisfy?". All
/// accountants here compose ADAPTIVELY (each event may be chosen after seeing earlier outputs)
/// and report upper bounds on the privacy loss (never estimates). An event an accountant
/// cannot interpret is rejected with unsupported_event_error: there is no silent fallback.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dpx/core/privacy.hpp"

namespace dpx::accounting {

/// An (epsilon, delta) pair.
struct epsilon_delta {
  double epsilon = 0.0;  ///< privacy-loss bound, >= 0 (may be +inf)
  double delta = 0.0;    ///< failure probability, in [0, 1]
};

/// Thrown by accountant::compose for an event the accountant cannot interpret.
/// Derives from std::invalid_argument (the dpx tool reports it as a usage error, exit 2).
class unsupported_event_error : public std::invalid_argument {
 public:
  unsupported_event_error(const std::string& accountant, const std::string& event);
};

/// Two events are identical (same kind, bitwise-equal parameters).
bool same_event(const core::privacy_event& a, const core::privacy_event& b);

/// Run-length list of composed events: compose(e, n) merges with an existing identical event,
/// so 10^4 single-step compose calls cost one entry (PLD: one self-composition, one FFT pass).
class event_ledger {
 public:
  /// Adds `count` (>= 1) copies of `e`, merging with an identical earlier event.
  void add(const core::privacy_event& e, std::int64_t count);
  /// Distinct events with their multiplicities, in order of first appearance.
  const std::vector<std::pair<core::privacy_event, std::int64_t>>& entries() const noexcept {
    return entries_;
  }
  bool empty() const noexcept { return entries_.empty(); }

 private:
  std::vector<std::pair<core::privacy_event, std::int64_t>> entries_;
};

/// Abstract accountant: compose(event, count) / epsilon(delta) / delta(epsilon).
class accountant {
 public:
  virtual ~accountant() = default;
  /// Short method name ("rdp", "zcdp", "pld", "basic", "advanced", "kov").
  virtual std::string name() const = 0;
  /// Whether compose() accepts this event.
  virtual bool supports(const core::privacy_event& e) const = 0;
  /// Composes `count` >= 1 adaptive repetitions of `e`. Throws unsupported_event_error for an
  /// event the accountant cannot interpret, core::invalid_argument_error for bad parameters.
  virtual void compose(const core::privacy_event& e, std::int64_t count = 1) = 0;
  /// Composes every run of a release log (core::event_log, as emitted by mechanisms and
  /// solvers) in order: one call per run of identical releases.
  void compose(const core::event_log& log);
  /// Smallest epsilon (an upper bound) such that the composition is (epsilon, delta)-DP;
  /// delta in (0, 1). May be +inf when no finite epsilon is certified.
  virtual double epsilon(double delta) const = 0;
  /// delta (an upper bound) such that the composition is (epsilon, delta)-DP; epsilon >= 0.
  virtual double delta(double epsilon) const = 0;
};

}  // namespace dpx::accounting
