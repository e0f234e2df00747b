#pragma once
// Internals shared by audits.cpp (mechanisms and estimators) and solver_audits.cpp. Not
// installed.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "dpx/audit/audits.hpp"
#include "dpx/core/error.hpp"

namespace dpx::audit::audits_internal {

inline bool is_one_of(const std::string& s, const std::vector<std::string>& v) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// The named result of one audited pair against its claimed (epsilon, delta); total_epsilon
/// (when >= 0) is the whole budget when the claim is one stage's share.
inline named_audit_result finish(sample_pair p,
                                 double claimed_epsilon,
                                 double claimed_delta,
                                 std::string guarantee,
                                 const audit_options& options,
                                 double total_epsilon = -1) {
  audit_options o = options;
  o.delta = claimed_delta;
  named_audit_result r;
  r.audit = audit_samples(p.s0, p.s1, o);
  r.claimed_epsilon = claimed_epsilon;
  r.claimed_delta = claimed_delta;
  r.total_epsilon = total_epsilon < 0 ? claimed_epsilon : total_epsilon;
  r.violation = r.audit.epsilon_lower_bound > claimed_epsilon;
  r.pair = p.pair;
  r.statistic = p.statistics.at(r.audit.statistic);
  r.guarantee = std::move(guarantee);
  return r;
}

inline std::string eps_words(double e, double d) {
  return "(" + core::format_double(e) + ", " + core::format_double(d) + ")-DP";
}

}  // namespace dpx::audit::audits_internal
