// Named mechanism and estimator audits (audits.hpp); the solver audits are in solver_audits.cpp.
#include "dpx/audit/audits.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "audits_internal.hpp"
#include "dpx/accounting/gaussian.hpp"
#include "dpx/accounting/rdp.hpp"
#include "dpx/accounting/zcdp.hpp"
#include "dpx/audit/composed_pairs.hpp"
#include "dpx/audit/estimator_pairs.hpp"
#include "dpx/audit/stage_pairs.hpp"
#include "dpx/audit/variance_pairs.hpp"
#include "dpx/core/error.hpp"
#include "dpx/estimators/central.hpp"
#include "dpx/estimators/local.hpp"
#include "dpx/estimators/nonparametric.hpp"
#include "dpx/estimators/user_level.hpp"

namespace dpx::audit {

using namespace audits_internal;

namespace {

constexpr const char* kMech = "audit::audit_mechanism";
// Dimension of the l2_laplace pairs.
constexpr std::size_t kL2Dimension = 16;
// Half the number of records of the exponential_quantile pair (n = 100).
constexpr std::size_t kQuantileHalf = 50;
// Coordinates of winsorized_mean_hd / points of priestley_chao_grid.
constexpr std::size_t kComposedReleases = 4;

std::int64_t integer_sensitivity(double s) {
  if (s != std::floor(s) || s < 1 || s > 0x1p52)
    core::throw_invalid(kMech, "sensitivity", s, "must be a positive integer for this mechanism");
  return static_cast<std::int64_t>(s);
}

}  // namespace

std::vector<std::string> mechanism_names() {
  return {"laplace",
          "gaussian",
          "discrete_laplace",
          "discrete_gaussian",
          "randomized_response",
          "stable_histogram",
          "local_histogram",
          "laplace_mironov",
          "float_safe_laplace_mironov",
          "exponential_mechanism",
          "permute_and_flip",
          "winsorized_mean",
          "kv_mean",
          "local_mean",
          "user_mean",
          "priestley_chao",
          "winsorized_mean_histogram",
          "winsorized_mean_both",
          "kv_mean_histogram",
          "kv_mean_both",
          "l2_laplace",
          "l2_laplace_spread",
          "float_safe_gaussian",
          "winsorized_mean_hd",
          "priestley_chao_grid",
          "sample_split_mean",
          "kv_mean_unknown_sigma",
          "exponential_quantile",
          "user_mean_hd",
          "local_mean_hd",
          "variance_bisection",
          "adaptive_coinpress"};
}

void mechanism_audit_spec::validate() const {
  const char* fn = "audit::mechanism_audit_spec";
  if (!is_one_of(mechanism, mechanism_names()))
    core::throw_invalid(fn, "mechanism", mechanism, "unknown (see audit::mechanism_names())");
  if (epsilon) core::check_positive(fn, "epsilon", *epsilon);
  if (scale) core::check_positive(fn, "scale", *scale);
  if (noise_multiplier) core::check_positive(fn, "noise_multiplier", *noise_multiplier);
  core::check_positive(fn, "sensitivity", sensitivity);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_at_least(fn, "categories", categories, 2);
  core::check_at_least(fn, "bins", bins, 2);
  core::check_at_least(fn, "candidates", candidates, 2);
  const int given = (epsilon ? 1 : 0) + (scale ? 1 : 0) + (noise_multiplier ? 1 : 0);
  if (given > 1)
    core::throw_invalid(
        fn, "epsilon", "several", "give only one of epsilon, scale, noise_multiplier");
  const bool uses_scale = mechanism == "laplace" || mechanism == "discrete_laplace";
  const bool uses_mult = mechanism == "gaussian" || mechanism == "discrete_gaussian";
  if (scale && !uses_scale)
    core::throw_invalid(fn, "scale", *scale, "is not a parameter of mechanism " + mechanism);
  if (noise_multiplier && !uses_mult)
    core::throw_invalid(
        fn, "noise_multiplier", *noise_multiplier, "is not a parameter of mechanism " + mechanism);
}

named_audit_result audit_mechanism(const mechanism_audit_spec& spec,
                                   std::size_t trials,
                                   const audit_options& options,
                                   rng::philox4x32& g) {
  spec.validate();
  options.validate();
  if (trials < 4) core::throw_invalid(kMech, "trials", static_cast<double>(trials), "must be >= 4");
  const std::string& m = spec.mechanism;
  const double eps = spec.epsilon.value_or(1.0);
  const double sens = spec.sensitivity;
  const double half = spec.broken ? 0.5 : 1.0;   // noise factor of the broken variant
  const double emult = spec.broken ? 2.0 : 1.0;  // epsilon factor of the broken variant
  if (m == "laplace") {
    const auto claim = spec.scale ? mechanisms::laplace::from_scale(*spec.scale, sens)
                                  : mechanisms::laplace::calibrate(eps, sens);
    const auto run = mechanisms::laplace::from_scale(claim.scale() * half, sens);
    return finish(laplace_pair(run, trials, g),
                  claim.epsilon(),
                  0,
                  "epsilon-DP (Laplace, b = " + core::format_double(claim.scale()) + ")",
                  options);
  }
  if (m == "gaussian") {
    double sigma = 0, claimed = 0;
    if (spec.noise_multiplier) {
      sigma = *spec.noise_multiplier * sens;
      claimed = accounting::gaussian_epsilon(spec.delta, *spec.noise_multiplier);
    } else {
      sigma = mechanisms::gaussian::calibrate_analytic(eps, spec.delta, sens).sigma();
      claimed = eps;
    }
    const auto run = mechanisms::gaussian::from_sigma(sigma * half, sens);
    return finish(gaussian_pair(run, trials, g),
                  claimed,
                  spec.delta,
                  eps_words(claimed, spec.delta) +
                      " (Gaussian, sigma = " + core::format_double(sigma) + "; Balle & Wang 2018)",
                  options);
  }
  if (m == "discrete_laplace") {
    const std::int64_t is = integer_sensitivity(sens);
    const auto claim = spec.scale ? mechanisms::discrete_laplace::from_scale(*spec.scale, is)
                                  : mechanisms::discrete_laplace::calibrate(eps, is);
    const auto run =
        spec.broken ? mechanisms::discrete_laplace::from_scale(claim.scale() / 2, is) : claim;
    return finish(discrete_pair(run, is, trials, g),
                  claim.epsilon(),
                  0,
                  "epsilon-DP (discrete Laplace, scale " + core::format_double(claim.scale()) + ")",
                  options);
  }
  if (m == "discrete_gaussian") {
    const std::int64_t is = integer_sensitivity(sens);
    double sigma = 0, claimed = 0;
    if (spec.noise_multiplier) {
      sigma = *spec.noise_multiplier * sens;
      // The audit claims the Bun & Steinke 2016 Prop. 1.3 conversion (accounting/zcdp.hpp); the
      // tighter numerical conversion is accounting::zcdp_epsilon.
      claimed = accounting::zcdp_epsilon_bun_steinke(
          accounting::zcdp_gaussian_rho(*spec.noise_multiplier), spec.delta);
    } else {
      sigma = sens / std::sqrt(2 * accounting::zcdp_rho_bun_steinke(eps, spec.delta));
      claimed = eps;
    }
    const auto run = mechanisms::discrete_gaussian::from_sigma(sigma * half, sens);
    return finish(discrete_pair(run, is, trials, g),
                  claimed,
                  spec.delta,
                  eps_words(claimed, spec.delta) + " (discrete Gaussian, sigma = " +
                      core::format_double(sigma) + ", from rho-zCDP; CKS20 Thm. 14)",
                  options);
  }
  if (m == "randomized_response") {
    const auto run = mechanisms::randomized_response::calibrate(eps * emult, spec.categories);
    return finish(randomized_response_pair(run, trials, g),
                  eps,
                  0,
                  "epsilon-LDP (k = " + std::to_string(spec.categories) + ")",
                  options);
  }
  if (m == "local_histogram") {
    const auto run = mechanisms::local_histogram::calibrate(eps * emult, spec.bins);
    return finish(local_histogram_pair(run, trials, g),
                  eps,
                  0,
                  "epsilon-LDP (" + std::to_string(spec.bins) + " bins)",
                  options);
  }
  if (m == "stable_histogram") {
    // The research-grade Laplace variant, named: the audit's n bound below is its threshold's.
    const auto run = mechanisms::stable_histogram::calibrate(
        eps * emult, spec.delta, mechanisms::histogram_noise::laplace);
    // Both bins must stay far above the threshold (2 ln(2/delta)/eps + 1)/n: n/2 - 1 >= twice
    // the threshold count needs n >= 8 ln(2/delta)/eps + 6; raise n to the next even size.
    auto n = static_cast<std::size_t>(std::ceil(8 * std::log(2 / spec.delta) / (eps * emult) + 8));
    n = std::max(spec.records, n + (n % 2));
    return finish(stable_histogram_pair(run, n, trials, g),
                  eps,
                  spec.delta,
                  eps_words(eps, spec.delta) + " (replace-one, n = " + std::to_string(n) + ")",
                  options);
  }
  if (m == "exponential_mechanism" || m == "permute_and_flip") {
    // General (non-monotone) utilities of sensitivity `sens`; best ratio of this pair
    // (pairs.hpp): k / (1 + (k - 1) e^-eps) or e^eps (1 - (1 - e^-eps)^k).
    const auto k = static_cast<std::size_t>(spec.candidates);
    const std::string words = "epsilon-DP (" + m + ", k = " + std::to_string(k) +
                              " candidates, utility sensitivity " + core::format_double(sens) + ")";
    if (m == "exponential_mechanism") {
      const auto run = mechanisms::exponential_mechanism::calibrate(eps * emult, sens);
      return finish(selection_pair(run, sens, k, trials, g), eps, 0, words, options);
    }
    const auto run = mechanisms::permute_and_flip::calibrate(eps * emult, sens);
    return finish(selection_pair(run, sens, k, trials, g), eps, 0, words, options);
  }
  if (m == "laplace_mironov") {
    const auto lap = mechanisms::laplace::calibrate(eps, sens);
    return finish(mironov_pair(lap, trials, g),
                  eps,
                  0,
                  "epsilon-DP claimed (research-grade double Laplace)",
                  options);
  }
  if (m == "float_safe_laplace_mironov") {
    const auto fs = mechanisms::float_safe_laplace::calibrate(eps, sens);
    return finish(mironov_pair(fs, trials, g), eps, 0, "epsilon-DP (float-safe Laplace)", options);
  }
  if (m == "exponential_quantile") {
    // Median of n = 2 kQuantileHalf records in [0, 1] (pairs.hpp): the pair's ceiling is
    // eps/2 + ln(Z_D/Z_D') (0.970 eps at eps = 1).
    mechanisms::quantile_options o;
    o.epsilon = eps * emult;
    return finish(exponential_quantile_pair(o, kQuantileHalf, trials, g),
                  eps,
                  0,
                  "epsilon-DP (exponential-mechanism median, Smith 2011, n = " +
                      std::to_string(2 * kQuantileHalf) + " in [0, 1])",
                  options);
  }
  if (m == "l2_laplace" || m == "l2_laplace_spread") {
    // d = kL2Dimension coordinates; claim: the library's (eps, delta) bound (*) of l2_laplace.hpp.
    const auto claim = mechanisms::l2_laplace::calibrate(eps, spec.delta, sens);
    // Broken: calibrated for Delta/2, i.e. half the scale, on the pair at distance Delta.
    const auto run = mechanisms::l2_laplace::calibrate(eps, spec.delta, sens * half);
    const bool spread = m == "l2_laplace_spread";
    return finish(l2_laplace_pair(run, sens, kL2Dimension, spread, trials, g),
                  claim.epsilon(),
                  spec.delta,
                  eps_words(claim.epsilon(), spec.delta) + " (L2-calibrated Laplace, b = " +
                      core::format_double(claim.scale()) + ", d = " + std::to_string(kL2Dimension) +
                      "; heterogeneous advanced composition)",
                  options);
  }
  if (m == "float_safe_gaussian") {
    const double sigma = sens / std::sqrt(2 * accounting::zcdp_rho_bun_steinke(eps, spec.delta));
    const auto run = mechanisms::float_safe_gaussian::from_sigma(sigma * half, sens);
    return finish(float_safe_gaussian_pair(run, trials, g),
                  eps,
                  spec.delta,
                  eps_words(eps, spec.delta) + " (float-safe Gaussian, sigma = " +
                      core::format_double(sigma) + ", from rho-zCDP)",
                  options);
  }
  // Histogram-stage pairs (stage_pairs.hpp): counts straddling the stable histogram's
  // threshold. `histogram`: claim (eps/2, delta), the stable histogram's guarantee; `both`:
  // claim (eps, delta), the estimator's total. broken: both stages at 2x their epsilon.
  if (m == "winsorized_mean_histogram" || m == "winsorized_mean_both" || m == "kv_mean_histogram" ||
      m == "kv_mean_both") {
    const bool hist = m.ends_with("_histogram");
    const auto stage = hist ? estimator_stage::histogram : estimator_stage::both;
    const double claim = hist ? 0.5 * eps : eps;
    const auto design = make_histogram_stage_design(0.5 * eps * emult, spec.delta);
    const std::string tail =
        ", n = " + std::to_string(design.n) + "); the pair audits " +
        (hist ? "the histogram stage: its (eps/2, delta)" : "both stages: the total (eps, delta)");
    if (m.starts_with("winsorized_mean")) {
      estimators::winsorized_mean_options o;
      o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
      o.target.epsilon = eps;
      o.target.delta = spec.delta;
      o.rule = estimators::interval_rule::paper(1.0);
      return finish(winsorized_mean_stage_pair(o, stage, trials, g, spec.broken),
                    claim,
                    spec.delta,
                    eps_words(eps, spec.delta) + " (S1 Algorithm 4, tau = 1" + tail,
                    options,
                    eps);
    }
    estimators::kv_mean_options o;
    o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.target.epsilon = eps;
    o.target.delta = spec.delta;
    o.sigma = 1.0;
    o.beta = 0.1;
    return finish(kv_mean_stage_pair(o, stage, trials, g, spec.broken),
                  claim,
                  spec.delta,
                  eps_words(eps, spec.delta) + " (Karwa-Vadhan, known sigma = 1, beta = 0.1" + tail,
                  options,
                  eps);
  }
  // Plug-in variance estimators (variance_pairs.hpp): N_iter = 1, basic composition, claim the
  // total (eps, 0); the pairs' exact epsilon is 3 eps/4 (the coverage / RefineVariance noise is
  // calibrated for twice its sensitivity). broken: run at 2 eps.
  if (m == "variance_bisection" || m == "adaptive_coinpress") {
    estimators::variance_options o;
    o.epsilon = eps;
    o.variance_max = 2.0;  // sigma_min^2 = 1: N_iter = 1
    const bool bis = m == "variance_bisection";
    const double ceiling = bis ? variance_bisection_ceiling(o) : adaptive_coinpress_ceiling(o);
    const std::string words =
        "epsilon-DP (" + std::string(bis ? "S1 Algorithm 10" : "S1 Algorithms 13-14") +
        ", sigma^2 in [1, 2]: N_iter = 1, basic composition, gamma = 0.2, n = " +
        std::to_string(spec.records) + "); the pair's exact epsilon is " +
        core::format_double(ceiling) + " (3 eps/4: the " + (bis ? "coverage" : "RefineVariance") +
        " noise is calibrated for twice its sensitivity)";
    return finish(bis ? variance_bisection_pair(o, spec.records, trials, g, spec.broken)
                      : adaptive_coinpress_pair(o, spec.records, trials, g, spec.broken),
                  eps,
                  0,
                  words,
                  options,
                  eps);
  }
  // Estimators: the pairs audit the mean stage's share eps_m = eps/2 (estimator_pairs.hpp). Central
  // ones: (eps_m - ln(1 - delta/4), delta/4) on the pair, delta/4 being the probability that the
  // lone record's bin is released by the stable histogram (the only way I^ can differ).
  const double eps_m = 0.5 * eps;
  const double central_claim = eps_m - std::log1p(-0.25 * spec.delta);
  const std::string share = "; the pair audits the mean stage's share: (" +
                            core::format_double(eps_m) + " - ln(1 - delta/4), delta/4)-DP";
  if (m == "winsorized_mean") {
    estimators::winsorized_mean_options o;
    o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.target.epsilon = eps;
    o.target.delta = spec.delta;
    o.rule = estimators::interval_rule::paper(1.0);
    return finish(winsorized_mean_pair(o, spec.records, trials, g, spec.broken),
                  central_claim,
                  0.25 * spec.delta,
                  eps_words(eps, spec.delta) + " (S1 Algorithm 4, tau = 1, n = " +
                      std::to_string(spec.records) + ")" + share,
                  options,
                  eps);
  }
  if (m == "kv_mean") {
    estimators::kv_mean_options o;
    o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.target.epsilon = eps;
    o.target.delta = spec.delta;
    o.sigma = 1.0;
    o.beta = 0.1;
    return finish(kv_mean_pair(o, spec.records, trials, g, spec.broken),
                  central_claim,
                  0.25 * spec.delta,
                  eps_words(eps, spec.delta) + " (Karwa-Vadhan, known sigma = 1, beta = 0.1, n = " +
                      std::to_string(spec.records) + ")" + share,
                  options,
                  eps);
  }
  if (m == "user_mean") {
    // User level: each of the n = records users contributes a row of kUserTimes values; d = 1
    // (split_budget's single case: the same (eps/2, delta) + eps/2 stages as winsorized_mean).
    constexpr std::size_t kUserTimes = 4;
    estimators::winsorized_mean_hd_options o;
    o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.target.epsilon = eps;
    o.target.delta = spec.delta;
    o.rule = estimators::interval_rule::paper(1.0);
    return finish(user_mean_pair(o, spec.records, kUserTimes, trials, g, spec.broken),
                  central_claim,
                  0.25 * spec.delta,
                  eps_words(eps, spec.delta) +
                      " at USER level (S1 Def 5.1, tau = 1, n = " + std::to_string(spec.records) +
                      " users x T = " + std::to_string(kUserTimes) + ", d = 1)" + share,
                  options,
                  eps);
  }
  if (m == "priestley_chao") {
    estimators::priestley_chao_options o;              // b = 0.1, Gaussian kernel, Lemma 4.9 radius
    o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.target.epsilon = eps;
    o.target.delta = spec.delta;
    return finish(priestley_chao_pair(o, spec.records, trials, g, spec.broken),
                  central_claim,
                  0.25 * spec.delta,
                  eps_words(eps, spec.delta) + " (S1 Def 4.8 at one point x0 = " +
                      core::format_double(static_cast<double>(priestley_chao_index(spec.records)) /
                                          static_cast<double>(spec.records)) +
                      ", b = 0.1, Gaussian kernel, n = " + std::to_string(spec.records) + ")" +
                      share,
                  options,
                  eps);
  }
  // Composed and multi-step estimators (composed_pairs.hpp).
  if (m == "local_mean_hd") {
    // One user, d = kComposedReleases coordinates, basic composition: eps/2-LDP on the pair.
    estimators::local_mean_options o;
    o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.epsilon = eps;
    o.rule = estimators::interval_rule::paper(1.0);
    o.bound = 10.0;
    return finish(
        local_mean_hd_pair(o, kComposedReleases, trials, g, spec.broken),
        eps_m,
        0,
        "epsilon-LDP (S1 Algorithm 5 around Algorithm 8, d = " + std::to_string(kComposedReleases) +
            ", basic composition, tau = 1, B = 10, one user); the pair audits the "
            "composed mean stages: " +
            core::format_double(eps_m) + "-LDP",
        options,
        eps);
  }
  if (m == "user_mean_hd") {
    // User level, d = kComposedReleases coordinates, T = 4 values per user, basic composition.
    constexpr std::size_t kUserTimes = 4;
    estimators::winsorized_mean_hd_options o;
    o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.target.epsilon = eps;
    o.target.delta = spec.delta;
    o.rule = estimators::interval_rule::paper(1.0);
    const std::string k = std::to_string(kComposedReleases);
    return finish(
        user_mean_hd_pair(o, spec.records, kUserTimes, kComposedReleases, trials, g, spec.broken),
        central_claim,
        0.25 * spec.delta,
        eps_words(eps, spec.delta) + " at USER level (S1 Def 5.1, d = " + k +
            ", basic composition, tau = 1, n = " + std::to_string(spec.records) +
            " users x T = " + std::to_string(kUserTimes) + "); the pair audits the " + k +
            " composed mean stages: (" + core::format_double(eps_m) +
            " - ln(1 - delta/4), delta/4)-DP",
        options,
        eps);
  }
  if (m == "winsorized_mean_hd" || m == "priestley_chao_grid") {
    // d = J = kComposedReleases releases, basic composition (eps/d, delta/d) each: the composed
    // mean stages, (eps/2 - ln(1 - delta/4), delta/4) on the pair.
    const std::string k = std::to_string(kComposedReleases);
    if (m == "winsorized_mean_hd") {
      estimators::winsorized_mean_hd_options o;
      o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
      o.target.epsilon = eps;
      o.target.delta = spec.delta;
      o.rule = estimators::interval_rule::paper(1.0);
      return finish(
          winsorized_mean_hd_pair(o, spec.records, kComposedReleases, trials, g, spec.broken),
          central_claim,
          0.25 * spec.delta,
          eps_words(eps, spec.delta) + " (S1 Algorithm 5, d = " + k +
              ", basic composition, tau = 1, n = " + std::to_string(spec.records) +
              "); the pair audits the " + k + " composed mean stages: (" +
              core::format_double(eps_m) + " - ln(1 - delta/4), delta/4)-DP",
          options,
          eps);
    }
    estimators::priestley_chao_options o;
    o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.target.epsilon = eps;
    o.target.delta = spec.delta;
    return finish(
        priestley_chao_grid_pair(o, spec.records, kComposedReleases, trials, g, spec.broken),
        central_claim,
        0.25 * spec.delta,
        eps_words(eps, spec.delta) + " (S1 Def 4.8 on a grid of J = " + k +
            " points, basic composition, b = 0.1, Gaussian kernel, n = " +
            std::to_string(spec.records) + "); the pair audits the " + k +
            " composed mean stages: (" + core::format_double(eps_m) +
            " - ln(1 - delta/4), delta/4)-DP",
        options,
        eps);
  }
  if (m == "sample_split_mean") {
    estimators::sample_split_options o;  // paper split: eps/2 histogram, eps/2 mean (d = 1)
    o.base.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.base.target.epsilon = eps;
    o.base.target.delta = spec.delta;
    o.base.rule = estimators::interval_rule::paper(1.0);
    return finish(sample_split_mean_pair(o, spec.records, trials, g, spec.broken),
                  eps_m,
                  0,
                  eps_words(eps, spec.delta) + " (S1 eq. (1), d = 1, paper split, tau = 1, n = " +
                      std::to_string(spec.records) + "); the pair audits the mean stage: exactly " +
                      core::format_double(eps_m) + "-DP on it",
                  options,
                  eps);
  }
  if (m == "kv_mean_unknown_sigma") {
    estimators::kv_unknown_sigma_options o;
    o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
    o.target.epsilon = eps;
    o.target.delta = spec.delta;
    o.beta = 0.1;
    const std::size_t n = 2 * spec.records + 1;  // odd: the lone record is unpaired
    const double e3 = eps / 3;
    return finish(kv_mean_unknown_sigma_pair(o, n, trials, g, spec.broken),
                  e3 - std::log1p(-0.125 * spec.delta),
                  0.125 * spec.delta,
                  eps_words(eps, spec.delta) + " (Karwa-Vadhan, sigma unknown, beta = 0.1, n = " +
                      std::to_string(n) + "); the pair audits the mean stage: (" +
                      core::format_double(e3) + " - ln(1 - delta/8), delta/8)-DP",
                  options,
                  eps);
  }
  // local_mean: the histogram stage is identical in law on the pair: exactly eps_m-LDP.
  estimators::local_mean_options o;
  o.noise = mechanisms::noise_kind::research_grade;  // the papers' mechanisms
  o.epsilon = eps;
  o.rule = estimators::interval_rule::paper(1.0);
  o.bound = 10.0;
  return finish(local_mean_pair(o, trials, g, spec.broken),
                eps_m,
                0,
                "epsilon-LDP (S1 Algorithm 8, tau = 1, B = 10, one user); the pair audits the "
                "mean stage's share: " +
                    core::format_double(eps_m) + "-LDP",
                options,
                eps);
}

}  // namespace dpx::audit
