// Driver `dd_histogram_bounds`: the tail bounds of the stable histogram, of the private midpoint
// and of the local histogram (Roth & Avella-Medina 2025, "S1", Lemmas 3.1, 3.2, 3.4, Cor 3.6,
// D.10, 6.3; docs/theory/dependent-data.md §3.1–3.2, §5.1;
// docs/experiments/dd_histogram_bounds.md).
//
// One replication = `trials` independent trials (fresh data and noise each): the metric
// `exceed` is the fraction of trials in which the lemma's event fails, `stated` the lemma's
// probability of that event computed from the cell's INPUTS (experiments/s1_theory/
// s1_bounds.hpp), and `exceed_over_stated` their ratio, whose mean over replications a
// ratio_bound check holds <= 1 (its bootstrap interval's upper end).
//
// Studies (`study`):
//   data        Lemma 3.1 given the data: max_k |p̌_k − p̂_k| >= η with η the threshold at which
//               n (1 + e^{ε/2}/δ) e^{−εnη/2} equals q; bins of width bin_width.
//   population  Lemmas 3.1/3.2 against the population masses p_k = P(N(μ, 1) ∈ B_k), i.i.d. form
//               n (1 + e^{ε/2}/δ) e^{−εnη/4} + 2 e^{−nη²/8} = q.
//   midpoint    Lemma 3.4 / Cor 3.6: Algorithm 3 with the paper's bins (half-width τ,
//               τ = √(2 ln(2n/γ)) for the unit marginal variance) fails when |m̂ − μ| > 2τ; stated
//               probability γ + Lemma D.10's failure bound (the O(·) of Lemma 3.4 made explicit
//               by Lemma D.10's i.i.d. constants: dpx's reading).
//   local       Lemma 6.3's first term given the data: the debiased randomized-response histogram
//               (mechanisms::local_histogram at per-user ε) over the N = 2K + 1 bins of width
//               bin_width centred at 0, K = ⌈B/bin_width⌉; max_k |p̃_k − p̂_k| >= η with η at
//               which 2N exp(−nη² tanh²(ε/4)/4) = q.
// Negative controls that keep the noise: epsilon_mislabel = c (noise at c·ε, the cell and its
// bound claim ε), common_factor = h (a shared factor of variance h the bound ignores).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../dd_common/common_factor.hpp"
#include "../dd_common/dd_common.hpp"
#include "dpx/estimators/central.hpp"
#include "dpx/estimators/detail/kernels.hpp"
#include "dpx/estimators/local.hpp"
#include "dpx/mechanisms/histogram.hpp"
#include "s1_theory/s1_bounds.hpp"
#include "s1_theory/s1_theory.hpp"

namespace dpx::experiments::dd_histogram_bounds {
namespace {

using harness::cell_context;
using harness::metrics;
using harness::param_value;

/// max_k |p̌_k − p̂_k| over the occupied bins (empty bins release exactly 0 = p̂_k), and
/// max_k |p̌_k − p_k| over every bin within 12 of μ and every occupied bin.
struct errors {
  double data = 0, population = 0;
};

errors max_bin_errors(const std::vector<estimators::detail::bin_count>& occ,
                      const mechanisms::sparse_histogram& h,
                      std::size_t n,
                      double mu,
                      double width) {
  errors e;
  const double inv_n = 1.0 / static_cast<double>(n);
  auto released = [&](std::int64_t k) {
    const auto it = std::lower_bound(h.bins.begin(), h.bins.end(), k);
    return it != h.bins.end() && *it == k ? h.values[static_cast<std::size_t>(it - h.bins.begin())]
                                          : 0.0;
  };
  for (const auto& b : occ)
    e.data = std::max(e.data, std::fabs(released(b.bin) - static_cast<double>(b.count) * inv_n));
  const auto lo = static_cast<std::int64_t>(std::floor((mu - 12.0) / width)) - 1;
  const auto hi = static_cast<std::int64_t>(std::ceil((mu + 12.0) / width)) + 1;
  for (std::int64_t k = lo; k <= hi; ++k)
    e.population =
        std::max(e.population, std::fabs(released(k) - s1_theory::gaussian_bin_mass(mu, width, k)));
  for (const auto& b : occ)  // an occupied bin outside [lo, hi] (mass below 1e-30)
    if (b.bin < lo || b.bin > hi)
      e.population =
          std::max(e.population,
                   std::fabs(released(b.bin) - s1_theory::gaussian_bin_mass(mu, width, b.bin)));
  return e;
}

metrics run(const cell_context& c) {
  const auto& p = c.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const double dn = static_cast<double>(n), mu = p.get_double("mu");
  const double eps = dd::cell_epsilon(p, dn), delta = dd::cell_delta(p, dn);
  const double eps_run = eps * p.get_double("epsilon_mislabel");
  const double q = p.get_double("q"), gamma = p.get_double("gamma");
  const double h = p.get_double("common_factor");
  const std::string study = p.get_string("study"), design = p.get_string("design");
  const double phi = p.get_double("phi");
  const auto kind = p.get_string("noise") == "laplace" ? mechanisms::noise_kind::research_grade
                                                       : mechanisms::noise_kind::float_safe;
  const auto trials = static_cast<std::size_t>(p.get_int("trials"));

  double stated = 0, threshold = 0, width = p.get_double("bin_width");
  if (study == "data") {
    stated = q;
    threshold = s1_theory::histogram_data_threshold(n, eps, delta, q);
  } else if (study == "population") {
    stated = q;
    threshold = s1_theory::histogram_population_threshold_iid(n, eps, delta, q);
  } else if (study == "local") {
    stated = q;
  } else {
    const double tau = s1_theory::radius(1.0, n, 1, gamma);
    width = 2.0 * tau;
    threshold = 2.0 * tau;
    stated = std::min(1.0, gamma + s1_theory::histogram_failure_bound(n, eps, delta));
  }

  // Lemma 6.3's bins: k = −K..K, width w, covering [−B, B] (docs/theory/dependent-data.md §5.1).
  const auto K = static_cast<std::int64_t>(std::ceil(p.get_double("B") / width));
  const auto N = static_cast<std::size_t>(2 * K + 1);
  if (study == "local") threshold = s1_theory::local_histogram_data_threshold(n, N, eps, q);
  const auto rr = mechanisms::local_histogram::calibrate(eps_run, static_cast<std::int64_t>(N));

  auto gd = c.stream(rng::purpose::data);
  auto g = c.stream(rng::purpose::noise);
  std::size_t exceed = 0;
  double err_sum = 0;
  for (std::size_t t = 0; t < trials; ++t) {
    auto x = dd::gaussian_design(design, n, phi, mu, gd, nullptr);
    dd::add_common_factor(x, mu, h, gd);
    double err = 0;
    if (study == "midpoint") {
      const auto r = estimators::projection_interval(
          x, estimators::interval_rule::paper(0.5 * width), eps_run, delta, g, kind);
      err = std::fabs(r.midpoint - mu);
    } else if (study == "local") {
      const auto keys = estimators::detail::local_bins(x, width, K);
      const auto est = rr.estimate(rr.report_counts(keys, g), n);
      std::vector<double> freq(N, 0.0);
      for (const auto k : keys)
        if (k >= 0) freq[static_cast<std::size_t>(k)] += 1.0 / dn;
      for (std::size_t k = 0; k < N; ++k) err = std::max(err, std::fabs(est[k] - freq[k]));
    } else {
      const auto occ = estimators::detail::occupied_bins(x, width, "dd_histogram_bounds", "x");
      const auto hist = estimators::detail::stable_release(occ, n, eps_run, delta, kind, g);
      const errors e = max_bin_errors(occ, hist, n, mu, width);
      err = study == "data" ? e.data : e.population;
    }
    err_sum += err;
    // Lemma 3.1's events are "error >= η"; Lemma 3.4's success is |m̂ − μ| <= 2τ.
    if (study == "midpoint" ? err > threshold : err >= threshold) ++exceed;
  }
  const double rate = static_cast<double>(exceed) / static_cast<double>(trials);
  return {{"exceed", rate},
          {"stated", stated},
          {"exceed_over_stated", rate / stated},
          {"threshold", threshold},
          {"mean_error", err_sum / static_cast<double>(trials)},
          {"epsilon_used", eps}};
}

harness::driver make() {
  harness::driver d;
  d.name = "dd_histogram_bounds";
  d.version = "1";
  d.description =
      "S1 Lemmas 3.1/3.2/3.4/6.3: exceedance frequency of the stable and the local histogram's "
      "max-bin error and of the midpoint's 2 tau error over the lemma's stated probability";
  d.params = {
      {"study",
       "data (Lemma 3.1 given the data) | population (Lemmas 3.1/3.2, i.i.d. form) | midpoint "
       "(Lemma 3.4 / Cor 3.6) | local (Lemma 6.3 given the data)",
       std::nullopt,
       harness::one_of({"data", "population", "midpoint", "local"})},
      {"n", "records, >= 2", std::nullopt, harness::integer_at_least(2)},
      {"bin_width",
       "bin width of the data/population studies",
       param_value{0.5},
       harness::positive()},
      {"B",
       "public bound |mu| <= B of the local bins (local)",
       param_value{5.0},
       harness::positive()},
      {"q",
       "stated probability at which the threshold eta is set (data, population, local)",
       param_value{0.05},
       harness::open_unit_interval()},
      {"gamma",
       "gamma of tau = sqrt(2 ln(2n/gamma)) (midpoint)",
       param_value{0.1},
       harness::open_unit_interval()},
      {"trials",
       "independent trials per replication",
       param_value{std::int64_t{200}},
       harness::integer_at_least(1)},
      {"noise",
       "float_safe (the library's default: discrete Laplace on counts) | laplace (Algorithm 2's "
       "continuous noise, research grade)",
       param_value{std::string("float_safe")},
       harness::one_of({"float_safe", "laplace"})},
      dd::epsilon_mislabel_param(),
      dd::common_factor_param(),
  };
  const auto data = dd::unit_design_params();
  d.params.insert(d.params.end(), data.begin(), data.end());
  const auto budget = dd::budget_params(param_value{1.0});
  d.params.insert(d.params.end(), budget.begin(), budget.end());
  d.data_keys = {"n", "design", "phi", "mu", "common_factor", "trials"};
  d.metric_names =
      harness::metric_list("exceed stated exceed_over_stated threshold mean_error epsilon_used");
  d.run = run;
  d.validate = dd::validate_common_factor;
  return d;
}

const harness::driver_registrar registrar{make()};

}  // namespace
}  // namespace dpx::experiments::dd_histogram_bounds
