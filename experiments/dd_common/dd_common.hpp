#pragma once
/// \file
/// Helpers shared by the dependent-data experiment drivers (experiments/dd_*; spec
/// shared/spec/dependent-data.md §8–§9). Header-only; included by each dd_* driver.cpp.

#include <cmath>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/data/stationary.hpp"
#include "dpx/data/variates.hpp"
#include "dpx/harness/driver.hpp"

namespace dpx::experiments::dd {

/// Privacy budget of a cell: ε = epsilon (eps_scaling = "fixed") or ε = epsilon/√n
/// ("inv_sqrt_n": S1 Fig 1's c/√n with c = epsilon; spec §10.4 runs c = 1 and c = 3) or
/// ε = epsilon·n^{−omega} ("power", design D2).
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
                 "n2 (delta = 1/n^2, S1) | n (1/n)",
                 harness::param_value{std::string("n2")},
                 harness::one_of({"n2", "n"})});
  return v;
}

/// δ of a cell: "n2" → 1/n² (S1 §7.1), "n" → 1/n, otherwise the number given.
inline double cell_delta(const harness::param_map& p, double n) {
  const std::string s = p.get_string("delta_rule");
  if (s == "n2") return 1.0 / (n * n);
  if (s == "n") return 1.0 / n;
  core::throw_invalid("dd driver", "delta_rule", s, "must be n2 or n");
}

inline double mean_of(std::span<const double> x) {
  double s[4] = {0, 0, 0, 0};
  for (std::size_t i = 0; i < x.size(); ++i) s[i % 4] += x[i];
  return ((s[0] + s[1]) + (s[2] + s[3])) / static_cast<double>(x.size());
}

/// Item-level Gaussian designs of S1 §7.1.3 / spec §9.2 D3 with unit marginal variance:
/// "iid", "ar1" (Toeplitz phi^{|i−j|}, circulant embedding), "equi" (correlation c),
/// "equi_inv_n" (c = 1/(n−1): λ_max = 2), "fgn" (Hurst H = phi). Returns X ~ N(mu 1, Σ) and
/// fills the three constants of spec §8 (λ_max, marginal ρ_i = 1, n·Var(X̄)).
struct design_info {
  double lambda_max = 1.0;     ///< ρ_joint = λ_max(Σ)
  double mean_variance = 1.0;  ///< n·Var(X̄) = 1ᵀΣ1/n
};

inline std::vector<double> gaussian_design(const std::string& design,
                                           std::size_t n,
                                           double phi,
                                           double mu,
                                           rng::philox4x32& g,
                                           design_info* info) {
  std::vector<double> x(n);
  design_info di;
  if (design == "iid") {
    data::fill_standard_normal(g, std::span<double>(x));
    for (double& v : x) v += mu;
  } else if (design == "ar1") {
    // Samplers are cached per thread and (n, phi): the circulant embedding and λ_max are
    // computed once, not per replication (sample_into is const).
    thread_local std::map<std::pair<std::size_t, double>, std::shared_ptr<data::toeplitz>> cache;
    auto& t = cache[{n, phi}];
    if (!t) t = std::make_shared<data::toeplitz>(n, data::toeplitz_options{phi, 1.0, 0.0});
    t->sampler().sample_into(std::span<double>(x), g);
    for (double& v : x) v += mu;
    if (info) {
      thread_local std::map<std::pair<std::size_t, double>, design_info> infos;
      auto it = infos.find({n, phi});
      if (it == infos.end())
        it = infos
                 .emplace(std::make_pair(n, phi),
                          design_info{t->log_sobolev(), t->mean_variance_constant()})
                 .first;
      di = it->second;
    }
  } else if (design == "equi" || design == "equi_inv_n") {
    const double c = design == "equi" ? phi : (n > 1 ? 1.0 / static_cast<double>(n - 1) : 0.0);
    data::equicorrelated e({c, 1.0, mu});
    e.sample_into(std::span<double>(x), g);
    di.lambda_max = e.log_sobolev(n);
    di.mean_variance = e.mean_variance_constant(n);
  } else if (design == "fgn") {
    thread_local std::map<std::pair<std::size_t, double>, std::shared_ptr<data::fgn>> cache;
    auto& f = cache[{n, phi}];
    if (!f) f = std::make_shared<data::fgn>(n, data::fgn_options{phi, 1.0, 0.0});
    f->sampler().sample_into(std::span<double>(x), g);
    for (double& v : x) v += mu;
    if (info) {
      thread_local std::map<std::pair<std::size_t, double>, design_info> infos;
      auto it = infos.find({n, phi});
      if (it == infos.end())
        it = infos
                 .emplace(std::make_pair(n, phi),
                          design_info{f->log_sobolev(), f->mean_variance_constant()})
                 .first;
      di = it->second;
    }
  } else {
    core::throw_invalid("dd driver", "design", design, "must be iid, ar1, equi, equi_inv_n or fgn");
  }
  if (info) *info = di;
  return x;
}

}  // namespace dpx::experiments::dd
