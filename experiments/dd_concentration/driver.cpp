// Driver `dd_concentration`: the concentration claims of Roth & Avella-Medina 2025 ("S1") about
// the data model, on the Gaussian designs of dd_common with ρ = λ_max(Σ) (LSI(λ_max) for
// N(μ1, Σ), Example A.2; docs/theory/dependent-data.md §2; docs/experiments/dd_concentration.md).
//
// One replication = `trials` independent data sets, each d independent columns of n records of
// the design. Per claim the metric is (fraction of trials in which the claimed event fails) /
// (its stated probability), the thresholds computed from the cell's INPUTS
// (experiments/s1_theory/s1_bounds.hpp):
//   sup_over_alpha      Lemma 2.11: ‖X̄ − μ‖_∞ > √(2ρ ln(2d/α)/n)
//   l2_over_alpha       Lemma 2.11: ‖X̄ − μ‖_2 > √(2dρ ln(2d/α)/n)
//   mean_over_alpha     Theorem 2.6, f = X̄ of column 1 (L = 1/√n): |f − μ| >= √(2ρL² ln(2/α))
//   clipped_over_alpha  Theorem 2.6, f = (1/n) Σ clip(x_i − μ, −1, 1) of column 1 (nonlinear,
//                       L = 1/√n; E f = 0 because the law is symmetric about μ)
//   dkw_over_q          Theorem C.2: sup_x |Φ(x − μ) − F_n(x)| >= r of column 1, r at which
//                       (4/r) exp(−(2/27) n r³/(ρM²)) = q, M = 1/√(2π) (the N(μ, 1) density's
//                       maximum); r >= 1 means the bound is vacuous (dkw_radius reports r)
// Negative control: common_factor = h (a shared factor of variance h that ρ ignores).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "../dd_common/common_factor.hpp"
#include "../dd_common/dd_common.hpp"
#include "s1_theory/s1_bounds.hpp"

namespace dpx::experiments::dd_concentration {
namespace {

using harness::cell_context;
using harness::metrics;
using harness::param_value;

/// sup_x |Φ(x − μ) − F_n(x)| of x (sorted in place): the largest gap at the jumps.
double ks_distance(std::vector<double>& x, double mu) {
  std::sort(x.begin(), x.end());
  const double dn = static_cast<double>(x.size());
  double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = 0.5 * std::erfc(-(x[i] - mu) / std::numbers::sqrt2);
    s = std::max({s, static_cast<double>(i + 1) / dn - f, f - static_cast<double>(i) / dn});
  }
  return s;
}

metrics run(const cell_context& c) {
  const auto& p = c.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const auto d = static_cast<std::size_t>(p.get_int("d"));
  const auto trials = static_cast<std::size_t>(p.get_int("trials"));
  const double dn = static_cast<double>(n), mu = p.get_double("mu");
  const double alpha = p.get_double("alpha"), q = p.get_double("q");
  const double h = p.get_double("common_factor"), phi = p.get_double("phi");
  const std::string design = p.get_string("design");

  const double rho = s1_theory::design_lambda_max(design, n, phi);
  const double r_sup = s1_theory::mean_sup_radius(rho, n, d, alpha);
  const double r_l2 = s1_theory::mean_l2_radius(rho, n, d, alpha);
  const double t_f = s1_theory::lipschitz_deviation(rho, 1.0 / std::sqrt(dn), alpha);
  const double r_dkw =
      s1_theory::dkw_lsi_threshold(n, rho, 1.0 / std::sqrt(2.0 * std::numbers::pi), q);

  auto g = c.stream(rng::purpose::data);
  std::size_t e_sup = 0, e_l2 = 0, e_mean = 0, e_clip = 0, e_dkw = 0;
  for (std::size_t t = 0; t < trials; ++t) {
    double sup = 0, l2 = 0, dev_mean = 0, dev_clip = 0, ks = 0;
    for (std::size_t j = 0; j < d; ++j) {
      auto x = dd::gaussian_design(design, n, phi, mu, g, nullptr);
      dd::add_common_factor(x, mu, h, g);
      const double e = dd::mean_of(x) - mu;
      sup = std::max(sup, std::fabs(e));
      l2 += e * e;
      if (j == 0) {
        dev_mean = std::fabs(e);
        double s = 0;
        for (const double v : x) s += std::clamp(v - mu, -1.0, 1.0);
        dev_clip = std::fabs(s / dn);
        ks = ks_distance(x, mu);
      }
    }
    e_sup += sup > r_sup;
    e_l2 += std::sqrt(l2) > r_l2;
    e_mean += dev_mean >= t_f;
    e_clip += dev_clip >= t_f;
    e_dkw += ks >= r_dkw;
  }
  const double k = static_cast<double>(trials);
  return {{"sup_over_alpha", static_cast<double>(e_sup) / k / alpha},
          {"l2_over_alpha", static_cast<double>(e_l2) / k / alpha},
          {"mean_over_alpha", static_cast<double>(e_mean) / k / alpha},
          {"clipped_over_alpha", static_cast<double>(e_clip) / k / alpha},
          {"dkw_over_q", static_cast<double>(e_dkw) / k / q},
          {"rho", rho},
          {"sup_radius", r_sup},
          {"deviation_t", t_f},
          {"dkw_radius", r_dkw}};
}

harness::driver make() {
  harness::driver d;
  d.name = "dd_concentration";
  d.version = "1";
  d.description =
      "S1 Lemma 2.11, Theorem 2.6, Theorem C.2: exceedance frequencies of the mean's, a "
      "Lipschitz function's and the empirical CDF's deviation over the stated probability";
  d.params = {
      {"n", "records per column, >= 2", std::nullopt, harness::integer_at_least(2)},
      {"d",
       "independent columns (Lemma 2.11's dimension)",
       param_value{std::int64_t{5}},
       harness::integer_at_least(1)},
      {"alpha",
       "stated probability of Lemma 2.11 and Theorem 2.6",
       param_value{0.05},
       harness::open_unit_interval()},
      {"q",
       "stated probability at which Theorem C.2's radius r is set",
       param_value{0.05},
       harness::open_unit_interval()},
      {"trials",
       "independent data sets per replication",
       param_value{std::int64_t{100}},
       harness::integer_at_least(1)},
      dd::common_factor_param(),
  };
  const auto data = dd::unit_design_params();
  d.params.insert(d.params.end(), data.begin(), data.end());
  d.data_keys = {"n", "d", "design", "phi", "mu", "common_factor", "trials"};
  d.metric_names = harness::metric_list(
      "sup_over_alpha l2_over_alpha mean_over_alpha clipped_over_alpha dkw_over_q rho "
      "sup_radius deviation_t dkw_radius");
  d.run = run;
  d.validate = dd::validate_common_factor;
  return d;
}

const harness::driver_registrar registrar{make()};

}  // namespace
}  // namespace dpx::experiments::dd_concentration
