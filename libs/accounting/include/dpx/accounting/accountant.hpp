#pragma once
/// \file
/// The accountant interface shared by every accounting method. Accountants keep the events they
/// composed in a core::event_log built with merge() (repeated identical events are one run).
///
/// An accountant consumes privacy events (dpx/core/privacy.hpp, emitted by dpx::mechanisms and
/// the solvers) and answers "what (epsilon, delta) does the composition satisfy?". All
/// accountants here compose ADAPTIVELY (each event may be chosen after seeing earlier outputs)
/// and report upper bounds on the privacy loss (never estimates). An event an accountant
/// cannot interpret is rejected with unsupported_event_error: there is no silent fallback.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "dpx/core/privacy.hpp"
#include "dpx/core/privacy_curves.hpp"

namespace dpx::accounting {

/// An (epsilon, delta) pair: dpx's one (epsilon, delta) type (dpx/core/privacy_curves.hpp).
using core::epsilon_delta;

/// Thrown by accountant::compose for an event the accountant cannot interpret.
/// Derives from std::invalid_argument (the dpx tool reports it as a usage error, exit 2).
class unsupported_event_error : public std::invalid_argument {
 public:
  unsupported_event_error(const std::string& accountant, const std::string& event);
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
