#pragma once
/// \file
/// Helpers shared by the dependent-data experiment drivers (experiments/dd_*;
/// docs/theory/dependent-data.md §8–§9). Header-only; included by each dd_* driver.cpp.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/data/registry.hpp"
#include "dpx/harness/driver.hpp"

namespace dpx::experiments::dd {

/// Privacy budget of a cell: ε = epsilon (eps_scaling = "fixed") or ε = epsilon/√n
/// ("inv_sqrt_n": Roth & Avella-Medina 2025 Fig 1's c/√n with c = epsilon;
/// docs/theory/dependent-data.md §10 item 4 runs c = 1 and c = 3) or ε = epsilon·n^{−omega}
/// ("power", design D2).
inline double cell_epsilon(const harness::param_map& p, double n) {
  const std::string s = p.get_string("eps_scaling");
  const double e = p.get_double("epsilon");
  if (s == "fixed") return e;
  if (s == "inv_sqrt_n") return e / std::sqrt(n);
  if (s == "power") return e * std::pow(n, -p.get_double("omega"));
  core::throw_invalid("dd driver", "eps_scaling", s, "must be fixed, inv_sqrt_n or power");
}

/// The parameters cell_epsilon (and, with_delta_rule, cell_delta) read, declared once for every
/// dd driver: epsilon (default as given; nullopt = required), eps_scaling, omega, delta_rule.
inline std::vector<harness::param_decl> budget_params(std::optional<harness::param_value> epsilon,
                                                      bool with_delta_rule = true) {
  std::vector<harness::param_decl> v = {
      {"epsilon",
       "epsilon (fixed), or the constant c of c/sqrt(n) or c n^-omega",
       epsilon,
       harness::positive()},
      {"eps_scaling",
       "fixed | inv_sqrt_n | power",
       harness::param_value{std::string("fixed")},
       harness::one_of({"fixed", "inv_sqrt_n", "power"})},
      {"omega",
       "exponent of eps = c n^-omega (eps_scaling = power)",
       harness::param_value{0.0},
       harness::non_negative()}};
  if (with_delta_rule)
    v.push_back({"delta_rule",
                 "n2 (delta = 1/n^2, Roth & Avella-Medina 2025) | n (1/n)",
                 harness::param_value{std::string("n2")},
                 harness::one_of({"n2", "n"})});
  return v;
}

/// δ of a cell: "n2" → 1/n² (Roth & Avella-Medina 2025 §7.1), "n" → 1/n, otherwise the number
/// given.
inline double cell_delta(const harness::param_map& p, double n) {
  const std::string s = p.get_string("delta_rule");
  if (s == "n2") return 1.0 / (n * n);
  if (s == "n") return 1.0 / n;
  core::throw_invalid("dd driver", "delta_rule", s, "must be n2 or n");
}

/// The negative-control parameter of the dd drivers' oracle checks (docs/presets.md,
/// "Controls"): `sensitivity_n` = 0 (default) leaves the algorithm's noise alone; k > 0 rescales
/// the privacy noise of the release to its size for a sample of k records instead of n (noise
/// calibrated to a fixed sample size), so the privacy error stops shrinking with n. Such a
/// release is not one of the library's: the parameter exists only to show that a check can fail.
inline harness::param_decl sensitivity_n_param() {
  return {"sensitivity_n",
          "0 = noise for the cell's n; k > 0: noise calibrated to k records (negative control)",
          harness::param_value{std::int64_t{0}},
          harness::integer_at_least(0)};
}

/// The negative-control parameter "noise calibrated at c·ε reported as ε" of the dd drivers'
/// level checks (docs/presets.md, "Controls"): `epsilon_mislabel` = c (default 1) runs the
/// estimator at c·ε while the cell, its ledger and its oracle claim ε (c = √2: the release is
/// only √2·ε-private; c = 2: a sensitivity off by a factor 2). Not a release of the library's.
inline harness::param_decl epsilon_mislabel_param() {
  return {"epsilon_mislabel",
          "c: the estimator runs at c*eps while the cell claims eps (1 = honest; negative control)",
          harness::param_value{1.0},
          harness::positive()};
}

/// The factor that turns the release's noise draw into the control's: (n/k)^power for
/// sensitivity_n = k > 0 (power 1 when the noise sd is ∝ 1/n, as for a central mean; 1/2 for a
/// local mean, whose noise is an average of n per-user draws), 1 when k = 0.
inline double sensitivity_n_factor(const harness::param_map& p, double n, double power = 1.0) {
  const auto k = p.get_int("sensitivity_n");
  return k > 0 ? std::pow(n / static_cast<double>(k), power) : 1.0;
}

/// Extreme eigenvalues (θ_lo, θ_hi) of the POPULATION design moment E X_uᵀX_u/T of
/// dpx::data::longitudinal with p = 3 columns (1, t/T, z_t), z unit-variance and independent of t:
/// [[1, m1, 0], [m1, m2, 0], [0, 0, 1]], m1 = mean t/T, m2 = mean (t/T)², t = 1..T (Roth &
/// Avella-Medina 2025 Lemma 5.15's θ, public because it is the model's, never the data's).
inline std::pair<double, double> longitudinal_population_theta(std::size_t T) {
  double m1 = 0, m2 = 0;
  for (std::size_t t = 1; t <= T; ++t) {
    const double v = static_cast<double>(t) / static_cast<double>(T);
    m1 += v;
    m2 += v * v;
  }
  m1 /= static_cast<double>(T);
  m2 /= static_cast<double>(T);
  const double tr = 1.0 + m2, det = m2 - m1 * m1;
  const double disc = std::sqrt(std::max(0.0, tr * tr / 4.0 - det));
  return {std::min(tr / 2.0 - disc, 1.0), std::max(tr / 2.0 + disc, 1.0)};
}

inline double mean_of(std::span<const double> x) {
  double s[4] = {0, 0, 0, 0};
  for (std::size_t i = 0; i < x.size(); ++i) s[i % 4] += x[i];
  return ((s[0] + s[1]) + (s[2] + s[3])) / static_cast<double>(x.size());
}

/// Item-level Gaussian designs of the dependent-data paper's simulations (docs/theory/
/// docs/theory/dependent-data.md, "Designs") with unit marginal variance, each a registered
/// dpx::data model (dpx/data/registry.hpp) with one parameter set from the preset's `phi`: "iid"
/// (iid_gaussian), "ar1" (toeplitz, rho = phi: correlation phi^{|i−j|}, circulant embedding),
/// "equi" (equicorrelated, correlation = phi), "equi_inv_n" (equicorrelated, correlation 1/(n−1):
/// λ_max = 2), "fgn" (fgn, hurst = phi). Returns X ~ N(mu 1, Σ) and fills the two constants of the
/// theory (λ_max, n·Var(X̄)); the marginal ρ_i is 1.
struct design_info {
  double lambda_max = 1.0;     ///< ρ_joint = λ_max(Σ)
  double mean_variance = 1.0;  ///< n·Var(X̄) = 1ᵀΣ1/n
};

/// The registered model and its parameters behind a design name (throws naming `design`).
inline data::param_values design_params(const std::string& design,
                                        std::size_t n,
                                        double phi,
                                        double mu) {
  struct row {
    const char* design;
    const char* model;
    const char* parameter;  // set to phi; nullptr: none
  };
  static constexpr row table[] = {{"iid", "iid_gaussian", nullptr},
                                  {"ar1", "toeplitz", "rho"},
                                  {"equi", "equicorrelated", "correlation"},
                                  {"equi_inv_n", "equicorrelated", nullptr},
                                  {"fgn", "fgn", "hurst"}};
  for (const auto& r : table) {
    if (design != r.design) continue;
    data::param_values p(data::find_model(r.model));
    p.set("mu", mu);
    if (r.parameter) p.set(r.parameter, phi);
    if (design == "equi_inv_n")
      p.set("correlation", n > 1 ? 1.0 / static_cast<double>(n - 1) : 0.0);
    return p;
  }
  core::throw_invalid("dd driver", "design", design, "must be iid, ar1, equi, equi_inv_n or fgn");
}

inline std::vector<double> gaussian_design(const std::string& design,
                                           std::size_t n,
                                           double phi,
                                           double mu,
                                           rng::philox4x32& g,
                                           design_info* info) {
  // A design's sampler (circulant embedding, λ_max) is built once per thread and (design, n,
  // phi, mu), not per replication; its constants are computed on first request.
  struct cached {
    std::shared_ptr<const data::gaussian_vector> v;
    std::optional<design_info> info;
  };
  thread_local std::map<std::tuple<std::string, std::size_t, double, double>, cached> cache;
  auto& c = cache[{design, n, phi, mu}];
  if (!c.v) {
    const auto p = design_params(design, n, phi, mu);
    c.v = p.model().vector(p, n);
  }
  std::vector<double> x(n);
  c.v->sample_into(std::span<double>(x), g);
  if (info) {
    if (!c.info) c.info = design_info{c.v->log_sobolev(), c.v->mean_variance_constant()};
    *info = *c.info;
  }
  return x;
}

}  // namespace dpx::experiments::dd
