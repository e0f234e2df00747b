#pragma once
/// \file
/// The "hidden common factor" negative control of the dd tail-bound checks (dd_histogram_bounds,
/// dd_concentration; docs/presets.md, "Controls"): the data keep their unit-variance Gaussian
/// marginals N(μ, 1) but carry a shared factor the bound's ρ does not know of,
/// X_i = μ + √(1 − h)(Y_i − μ) + √h W with W ~ N(0, 1) drawn once per data set. Dependence is
/// then stronger than the ρ the cell's bound is evaluated with (ρ stays the design's λ_max): a
/// tail bound that depends on ρ must fail. h = 0 leaves the design's data unchanged.

#include <cmath>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/normal.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/harness/driver.hpp"

namespace dpx::experiments::dd {

/// The data parameters of the tail-bound drivers: design (dd_common's unit-variance designs with
/// a closed-form λ_max, s1_theory::design_lambda_max), phi, mu.
inline std::vector<harness::param_decl> unit_design_params() {
  return {{"design",
           "iid | ar1 | equi | equi_inv_n (dd_common designs, unit marginal variance)",
           harness::param_value{std::string("iid")},
           harness::one_of({"iid", "ar1", "equi", "equi_inv_n"})},
          {"phi",
           "design parameter (AR(1) coefficient, correlation)",
           harness::param_value{0.0},
           harness::finite()},
          {"mu", "mean of every record", harness::param_value{0.3}, harness::finite()}};
}

inline harness::param_decl common_factor_param() {
  return {"common_factor",
          "h in [0, 1): variance of a common factor added to the data and ignored by the bound's "
          "rho (0 = honest; negative control)",
          harness::param_value{0.0},
          harness::non_negative()};
}

/// driver::validate part: common_factor < 1 (h = 1 leaves no design in the data).
inline void validate_common_factor(const harness::param_map& p) {
  const double h = p.get_double("common_factor");
  if (!(h < 1.0)) core::throw_invalid("dd driver", "common_factor", h, "must be in [0, 1)");
}

template <class G>
void add_common_factor(std::vector<double>& x, double mu, double h, G& g) {
  if (h == 0.0) return;
  const double w = std::sqrt(h) * rng::standard_normal(g), s = std::sqrt(1.0 - h);
  for (double& v : x) v = mu + s * (v - mu) + w;
}

}  // namespace dpx::experiments::dd
