#pragma once
// One named audit (audits.hpp) at a fixed seed, as the statistical audit tests run it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dpx/audit/audits.hpp"
#include "dpx/core/rng.hpp"

namespace dpx::audit::testing {

inline named_audit_result run_named(const std::string& name,
                                    bool broken,
                                    std::size_t trials,
                                    double confidence,
                                    std::uint64_t seed) {
  mechanism_audit_spec s;
  s.mechanism = name;
  s.broken = broken;
  audit_options o;
  o.confidence = confidence;
  auto g = rng::stream(seed, 0, 0, rng::purpose::audit);
  return audit_mechanism(s, trials, o, g);
}

}  // namespace dpx::audit::testing
