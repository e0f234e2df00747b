// Driver `dd_nonparametric`: private Priestley–Chao regression at a point (S1 Def 4.7–4.8,
// Lemma 4.9, Cor 4.11; docs/theory/dependent-data.md §4.4, §9 (design D8)).
//
// Data (keyed on n, phi, function, amplitude): fixed design x_i = i/n, Y_i = f(x_i) + ε_i,
// ε a stationary AR(1) with unit marginal variance and coefficient phi (dpx::data::nonparametric).
// Estimator: priestley_chao at the single point x0 with the whole (ε, δ = 1/n²), Gaussian or box
// kernel (`kernel`; the box kernel K = ½1{|u| ≤ 1} of Lemma D.14 with L_K := 1),
// bandwidth b of Cor 4.11 with unit constants, b = (σ_max²/n)^{1/3} ∨ (σ_max/(nε))^{1/2}, and
// the radius τ of Lemma 4.9 (as printed). PUBLIC constants: L_f and ‖f‖_∞ of the test function and
// σ_max² = (1 + |φ|)/(1 − |φ|), the spectral bound on λ_max(Σ_n) (docs/theory/dependent-data.md §8)
// — never the data.
//
// Metrics:
//   sq_err               (A − f(x0))², the private estimator's squared error;
//   sq_err_stat          (A − ξ − f(x0))²: the estimator minus its own Laplace draw ξ (the clipped
//                        Priestley–Chao mean; equal to the non-private estimate when nothing is
//                        clipped) — the statistical part, b² + σ²/(nb) ∝ n^{−2/3};
//   sq_err_private_tau2  ξ²/τ² = Lap(12/(nε))²: exactly 288/(nε)² in expectation (τ of the
//                        theory, below);
//   mse_np_exact         the exact non-private MSE at the theory's b: bias² + wᵀΣ_n w
//                        (w_i = K_i/(nb)), computed in O(n) (no Monte Carlo);
//   oracle_mse           mse_np_exact + 2(12τ/(nε))² (the [R] oracle: exact when nothing clipped).
//                        mse_np_exact, τ and b come from the cell's INPUTS by
//                        experiments/s1_theory/s1_nonparametric (own kernel, test function and
//                        design; never the estimator's result or dpx::data's constants);
//   abs_private_over_scale |ξ|/b_L with b_L = 12τ/(nε) of the theory: exactly 1 in expectation
//                        (E|Lap(b)| = b; relative sd 1, against √5 for ξ²), the level of the
//                        Laplace scale alone;
//   sq_err_over_oracle, failed, clipped_fraction, bandwidth, tau, epsilon_used.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "../dd_common/dd_common.hpp"
#include "dpx/data/nonparametric.hpp"
#include "dpx/estimators/nonparametric.hpp"
#include "s1_theory/s1_nonparametric.hpp"

namespace dpx::experiments::dd_nonparametric {
namespace {

using harness::cell_context;
using harness::metrics;
using harness::param_value;

metrics run(const cell_context& c) {
  const auto& p = c.params;
  const auto n = static_cast<std::size_t>(p.get_int("n"));
  const double dn = static_cast<double>(n), phi = p.get_double("phi"), x0 = p.get_double("x0");
  const double eps = dd::cell_epsilon(p, dn), delta = dd::cell_delta(p, dn);
  data::nonparametric_options mo;
  mo.f.shape = data::test_function::parse(p.get_string("function"));
  mo.f.amplitude = p.get_double("amplitude");
  mo.noise_sd = 1.0;
  mo.phi = phi;
  const data::nonparametric model(mo);

  estimators::priestley_chao_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // S1's mechanisms exactly
  o.target.epsilon = eps;
  o.target.delta = delta;
  o.lipschitz = mo.f.lipschitz();
  o.sup_norm = mo.f.sup_norm();
  o.noise_variance_max = (1.0 + std::abs(phi)) / (1.0 - std::abs(phi));  // spectral bound (§8)
  o.gamma = p.get_double("gamma");
  // `bandwidth` > 0 fixes b for every n: the negative control of the -2/3 check (the bias b² no
  // longer shrinks, so the statistical part stops falling).
  const double fixed_b = p.get_double("bandwidth");
  if (fixed_b < 0) core::throw_invalid("dd_nonparametric", "bandwidth", fixed_b, "must be >= 0");
  o.bandwidth =
      fixed_b > 0 ? fixed_b : estimators::priestley_chao_bandwidth(o.noise_variance_max, n, eps);
  const std::string kernel = p.get_string("kernel");
  if (kernel == "box") {
    o.kernel = estimators::kernel_kind::box;
  } else if (kernel != "gaussian") {
    core::throw_invalid("dd_nonparametric", "kernel", kernel, "must be gaussian or box");
  }
  const std::string radius = p.get_string("radius");
  if (radius == "safe") {
    o.radius = estimators::pc_radius::safe;
  } else if (radius != "lemma_4_9") {
    core::throw_invalid("dd_nonparametric", "radius", radius, "must be lemma_4_9 or safe");
  }

  // The theory's prediction from the cell's inputs (s1_nonparametric; an O(n) sum, cached per
  // thread and cell).
  thread_local std::map<std::uint64_t, s1_theory::pc_prediction> cache;
  auto it = cache.find(c.cell_hash);
  if (it == cache.end()) {
    s1_theory::pc_cell pc;
    pc.n = n;
    pc.phi = phi;
    pc.function = p.get_string("function");
    pc.amplitude = p.get_double("amplitude");
    pc.x0 = x0;
    pc.epsilon = eps;
    pc.gamma = o.gamma;
    pc.kernel = kernel;
    pc.bandwidth = fixed_b;
    it = cache.emplace(c.cell_hash, s1_theory::pc_oracle(pc)).first;
  }
  const s1_theory::pc_prediction& theory = it->second;
  const double np_mse = theory.mse_np;

  auto gd = c.stream(rng::purpose::data);
  const data::regression_sample s = model.sample(n, gd);
  const std::span<const double> y(s.y.data(), n);
  auto g = c.stream(rng::purpose::noise);
  const double pts[1] = {x0};
  const auto r = estimators::priestley_chao(y, pts, o, g);

  // The clipped Priestley–Chao mean (the estimate minus its Laplace draw), recomputed from the
  // released interval with the library's own terms and clipping pass.
  std::vector<double> z(n);
  estimators::detail::priestley_chao_terms(y, x0, o.bandwidth, o.kernel, z);
  const auto cs = estimators::detail::clipped_sum(z, r.ranges[0].lo, r.ranges[0].hi);
  const double clipped_mean = cs.sum / dn;
  const double fx = mo.f(x0);
  double xi = r.estimate[0] - clipped_mean;
  // `sensitivity_n` > 0: the negative control of tracks_oracle — the Laplace noise calibrated to
  // the sensitivity of a sample of that fixed size instead of n (the same draw rescaled by
  // n / sensitivity_n), so the privacy error no longer shrinks like 1/n. Not a private release of
  // the library; it exists only to show that the oracle check can fail.
  xi *= dd::sensitivity_n_factor(p, dn);
  const double estimate = clipped_mean + xi;
  const double e = estimate - fx, es = clipped_mean - fx;
  const double oracle = theory.mse;
  return {{"sq_err", e * e},
          {"sq_err_stat", es * es},
          {"sq_err_private_tau2", xi * xi / (theory.tau * theory.tau)},
          {"mse_np_exact", np_mse},
          {"oracle_mse", oracle},
          {"sq_err_over_oracle", e * e / oracle},
          {"abs_private_over_scale", std::abs(xi) / theory.laplace_scale},
          {"failed", r.diag[0].failed ? 1.0 : 0.0},
          {"clipped_fraction", r.diag[0].clipped_fraction},
          {"bandwidth", o.bandwidth},
          {"tau", r.tau},
          {"epsilon_used", eps}};
}

harness::driver make() {
  harness::driver d;
  d.name = "dd_nonparametric";
  d.version = "3";
  d.description =
      "Private Priestley-Chao at a point (S1 Cor 4.11), AR(1) noise, Cor 4.11 bandwidth";
  d.params = {
      {"n", "sample size, >= 1", std::nullopt, harness::integer_at_least(1)},
      {"phi", "AR(1) coefficient of the noise", param_value{0.0}},
      {"function", "sine | vee | bump", param_value{std::string("vee")}},
      {"amplitude", "amplitude a of the test function", param_value{1.0}},
      {"x0", "evaluation point (interior)", param_value{0.5}},
      {"gamma", "gamma of the radius", param_value{0.1}, harness::open_unit_interval()},
      {"radius",
       "lemma_4_9 (as printed) | safe (docs/theory/dependent-data.md §4.4)",
       param_value{std::string("lemma_4_9")}},
      {"bandwidth", "b; 0 = Cor 4.11's (a fixed b > 0 is a negative control)", param_value{0.0}},
      {"kernel",
       "gaussian | box (S1 Lemma D.14)",
       param_value{std::string("gaussian")},
       harness::one_of({"gaussian", "box"})},
      dd::sensitivity_n_param(),
  };
  const auto budget = dd::budget_params(std::nullopt);
  d.params.insert(d.params.end(), budget.begin(), budget.end());
  d.data_keys = {"n", "phi", "function", "amplitude"};
  d.metric_names = {"sq_err",
                    "sq_err_stat",
                    "sq_err_private_tau2",
                    "mse_np_exact",
                    "oracle_mse",
                    "sq_err_over_oracle",
                    "abs_private_over_scale",
                    "failed",
                    "clipped_fraction",
                    "bandwidth",
                    "tau",
                    "epsilon_used"};
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make()};

}  // namespace
}  // namespace dpx::experiments::dd_nonparametric
