#pragma once
// Pieces shared by the estimator binding files (estimators.cpp, estimators_support.cpp):
// numpy -> span / panel views, the interval rule and composition arguments, and the options of
// the estimators with many public constants (defaults read from the C++ options structs).
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "dpx/estimators/estimators.hpp"

namespace dpx::python {

/// The interval rule from (tau, tau_prime, rule): paper(tau); sharper(tau, tau_prime); or the
/// custom (h, kappa) (then tau and tau_prime must be None). Nothing given: the unset rule,
/// which the estimator rejects naming `rule`.
estimators::interval_rule make_rule(const char* function,
                                    std::optional<double> tau,
                                    std::optional<double> tau_prime,
                                    const std::optional<std::pair<double, double>>& rule);

/// "automatic" | "basic" | "advanced".
estimators::composition_choice parse_composition(const char* function, const std::string& s);

/// A 1-D array as a span (read in place).
std::span<const double> vector_of(const char* function, const char* parameter, const f64_in& x);
/// A 2-D (n, d) array (or a 1-D one: d = 1) as a row-major span and d.
std::pair<std::span<const double>, std::size_t> matrix_of(const char* function,
                                                          const char* parameter,
                                                          const f64_in& x);
/// An (n, T) or (n, T, d) array as a panel view.
estimators::panel_view panel_of(const char* function, const char* parameter, const f64_in& x);
/// User offsets (n + 1 values, validated by the estimator).
std::vector<std::size_t> offsets_of(
    const char* function,
    const py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>& offsets);

/// The output contract of the estimator results (dpx/core/output_contract.hpp): unless the
/// caller passed nonprivate_diagnostics=True, the raw-data counts (Diagnostics.occupied_bins and
/// clipped_fraction, LocalProjectionResult.outside and occupied,
/// RegressionResult.singular_users) are erased to withheld_count (common.hpp), read as None.
void withhold(estimators::diagnostics& d);
void withhold(estimators::mean_result& r);
void withhold(estimators::mean_hd_result& r);
void withhold(estimators::projection_result& r);
void withhold(estimators::kv_result& r);
void withhold(estimators::kv_unknown_sigma_result& r);
void withhold(estimators::local_projection_result& r);
void withhold(estimators::regression_result& r);
void withhold(estimators::priestley_chao_result& r);
void withhold(estimators::variance_result& r);
/// r, with its diagnostics withheld unless nonprivate_diagnostics.
template <class R>
R under_contract(R r, bool nonprivate_diagnostics) {
  if (!nonprivate_diagnostics) withhold(r);
  return r;
}

inline const estimators::priestley_chao_options priestley_chao_defaults{};
inline const estimators::variance_options variance_defaults{};

estimators::priestley_chao_options priestley_chao_options(double epsilon,
                                                          double delta,
                                                          double bandwidth,
                                                          const std::string& kernel,
                                                          double lipschitz,
                                                          double sup_norm,
                                                          double noise_variance_max,
                                                          double gamma,
                                                          const std::string& radius,
                                                          double slack,
                                                          const std::string& composition);
#define DPX_PRIESTLEY_CHAO_ARGS                                                                 \
  py::kw_only(),                                                                                \
      py::arg("epsilon") = priestley_chao_defaults.target.epsilon,                              \
      py::arg("delta") = priestley_chao_defaults.target.delta,                                  \
      py::arg("bandwidth") = priestley_chao_defaults.bandwidth, py::arg("kernel") = "gaussian", \
      py::arg("lipschitz") = priestley_chao_defaults.lipschitz,                                 \
      py::arg("sup_norm") = priestley_chao_defaults.sup_norm,                                   \
      py::arg("noise_variance_max") = priestley_chao_defaults.noise_variance_max,               \
      py::arg("gamma") = priestley_chao_defaults.gamma, py::arg("radius") = "lemma_4_9",        \
      py::arg("composition_slack") = priestley_chao_defaults.composition_slack,                 \
      py::arg("composition") = "automatic"

estimators::variance_options variance_options(const char* function,
                                              double epsilon,
                                              double variance_min,
                                              double variance_max,
                                              double midpoint,
                                              double gamma,
                                              const std::string& returns,
                                              double inflation,
                                              bool clamp_to_bounds,
                                              double slack,
                                              const std::string& composition);
#define DPX_VARIANCE_ARGS                                                                    \
  py::kw_only(), py::arg("epsilon") = variance_defaults.epsilon,                             \
                 py::arg("variance_min") = variance_defaults.variance_min,                   \
                 py::arg("variance_max") = variance_defaults.variance_max,                   \
                 py::arg("midpoint") = variance_defaults.midpoint,                           \
                 py::arg("gamma") = variance_defaults.gamma, py::arg("returns") = "literal", \
                 py::arg("inflation") = variance_defaults.inflation,                         \
                 py::arg("clamp_to_bounds") = variance_defaults.clamp_to_bounds,             \
                 py::arg("composition_slack") = variance_defaults.composition_slack,         \
                 py::arg("composition") = "automatic"

void bind_estimator_results(py::module_& m);
void init_estimators_support(py::module_& m);

}  // namespace dpx::python
