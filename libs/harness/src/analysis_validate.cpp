// Validation of figure and rate specs against the table's parameters and metrics.
#include <algorithm>
#include <cmath>
#include <set>

#include "analysis_internal.hpp"
#include "dpx/core/error.hpp"

namespace dpx::harness {

using namespace analysis_internal;

namespace {

void check_statistic(const std::string& where, const std::string& statistic) {
  if (statistic != "mean" && statistic != "median") {
    throw core::invalid_argument_error(where, "statistic", statistic, "must be mean or median");
  }
}

void check_param(const std::string& where,
                 const std::string& field,
                 const std::string& name,
                 const std::vector<std::string>& params) {
  if (std::find(params.begin(), params.end(), name) == params.end()) {
    throw core::invalid_argument_error(
        where, field, name, "is not a parameter of the experiment; have: " + join(params, ", "));
  }
}

void check_metric(const std::string& where,
                  const std::string& field,
                  const std::string& name,
                  const std::vector<std::string>& metrics) {
  if (std::find(metrics.begin(), metrics.end(), name) == metrics.end()) {
    throw core::invalid_argument_error(
        where, field, name, "is not a metric of the driver; have: " + join(metrics, ", "));
  }
}

}  // namespace

void validate_specs(const std::vector<figure_spec>& figures,
                    const std::vector<rate_spec>& rates,
                    const std::vector<std::string>& params,
                    const std::vector<std::string>& metrics) {
  std::set<std::string> names;
  for (const auto& f : figures) {
    const std::string where = "figure '" + f.name + "'";
    if (f.name.empty() || f.name.find_first_of("/\\") != std::string::npos) {
      throw core::invalid_argument_error(
          "figure", "name", f.name, "must be a non-empty file stem without slashes");
    }
    if (!names.insert(f.name).second) {
      throw core::invalid_argument_error("figure", "name", f.name, "is declared twice");
    }
    check_param(where, "x", f.x, params);
    check_metric(where, "y", f.y, metrics);
    check_statistic(where, f.statistic);
    for (const auto& s : f.series) {
      check_param(where, "series", s, params);
      if (s == f.x) throw core::invalid_argument_error(where, "series", s, "must differ from x");
    }
    for (const auto& w : f.where) check_param(where, "where", w.name, params);
    for (const double k : f.reference_slopes) core::check_finite(where, "reference_slopes", k);
  }
  std::set<std::string> rate_names;
  for (const auto& r : rates) {
    const std::string name = rate_name(r);
    const std::string where = "rate '" + name + "'";
    if (!rate_names.insert(name).second) {
      throw core::invalid_argument_error("rate", "name", name, "is declared twice");
    }
    check_param(where, "x", r.x, params);
    check_metric(where, "y", r.y, metrics);
    check_statistic(where, r.statistic);
    for (const auto& g : r.group_by) {
      check_param(where, "group_by", g, params);
      if (g == r.x) throw core::invalid_argument_error(where, "group_by", g, "must differ from x");
    }
    for (const auto& w : r.where) check_param(where, "where", w.name, params);
    core::check_finite(where, "expected_slope", r.expected_slope);
    if (r.kind == rate_kind::ratio_flat && r.expected_slope != 0) {
      throw core::invalid_argument_error(where,
                                         "expected_slope",
                                         format_number(r.expected_slope),
                                         "must be 0 for kind = ratio_flat (the ratio is flat)");
    }
    if (r.kind == rate_kind::audit && r.bound_lower != 0) {
      throw core::invalid_argument_error(
          where, "bound_lower", format_number(r.bound_lower), "needs kind = ratio_bound");
    }
    if (r.expect == rate_expect::refuted && r.control.empty()) {
      throw core::invalid_argument_error(
          where, "control", "", "is required with expect = refuted (the positive control)");
    }
    if (r.kind == rate_kind::ratio_bound || r.kind == rate_kind::audit) {
      if (!(std::isfinite(r.bound_constant) && r.bound_constant > 0)) {
        throw core::invalid_argument_error(
            where, "bound_constant", format_number(r.bound_constant), "must be finite and > 0");
      }
      if (!(std::isfinite(r.bound_lower) && r.bound_lower >= 0 &&
            r.bound_lower < r.bound_constant)) {
        throw core::invalid_argument_error(where,
                                           "bound_lower",
                                           format_number(r.bound_lower),
                                           "must be finite, >= 0 and < bound_constant");
      }
    }
    for (const auto& [k, v] : r.control) {
      if (k == control_column) {
        throw core::invalid_argument_error(
            where, "control", k, "is reserved for the control marker column");
      }
      check_param(where, "control", k, params);
      if (k == r.x) {
        throw core::invalid_argument_error(
            where, "control", k, "must not override x (the control sweeps the same x values)");
      }
    }
    for (const auto& c : r.claims) {
      if (c.empty() || c.find_first_of(" \t,|") != std::string::npos) {
        throw core::invalid_argument_error(
            where, "claim", c, "must be a non-empty ledger id without spaces, commas or pipes");
      }
    }
    core::check_nonnegative(where, "tolerance", r.tolerance);
    if (r.fit_range) {
      if (std::isnan(r.fit_range->first) || std::isnan(r.fit_range->second) ||
          r.fit_range->first > r.fit_range->second) {
        throw core::invalid_argument_error(where,
                                           "fit_range",
                                           "[" + format_number(r.fit_range->first) + ", " +
                                               format_number(r.fit_range->second) + "]",
                                           "must satisfy lo <= hi");
      }
    }
  }
}

}  // namespace dpx::harness
