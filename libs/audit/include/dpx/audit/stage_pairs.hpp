#pragma once
/// \file
/// Pairs that audit the HISTOGRAM STAGE of the two-stage central estimators (S1 Algorithm 4:
/// estimators::winsorized_mean; Karwa–Vadhan: estimators::kv_mean), alone and together with the
/// mean stage. The mean-stage pairs of estimator_pairs.hpp hold the private interval I^ fixed;
/// these make it move.
///
/// The stable histogram at (eps_h, delta) (S1 Alg. 2) adds Lap(2/(eps_h n)) to the frequency of
/// every occupied bin and releases a bin iff its noisy frequency is >= 2 ln(2/delta)/(eps_h n)
/// + 1/n. In COUNT units (multiply by n): noise Lap(beta), beta = 2/eps_h, and threshold T =
/// 2 ln(2/delta)/eps_h + 1, both independent of n.
///
/// Pair (replace-one): two occupied bins, B = bin 0 and A = bin -K (K = ceil(kappa/(2h)) + 1,
/// far enough that every record of A is clipped to the lower end of I_B = [-kappa, kappa] and
/// every record of B to the upper end of I_A). D has c_A records at the centre of A and c_B at
/// the top edge h of B; D' moves one record from A to B: (c_A - 1, c_B + 1), n = c_A + c_B on
/// both sides. The counts straddle the threshold: c_A = floor(T) + 2 (so c_A - 1 >= T) and
/// c_B = ceil(T) - 2 (so c_B + 1 <= T).
///
/// Event E = {only bin B is released} (diag.released_bins == 1 and midpoint == 0: the estimator
/// releases I^ and its diagnostics' released_bins, both post-processing of the histogram).
/// E = {c_B + Z_B >= T} and {c_A + Z_A < T}, Z_A, Z_B i.i.d. Lap(beta); every threshold gap is
/// on the exponential side of its tail (c_B + 1 <= T <= c_A - 1), so
///     P_D(E)  = (1/2) e^{-(T - c_B)/beta} (1/2) e^{-(c_A - T)/beta} = (1/4) e^{-(c_A - c_B)/beta}
///     P_D'(E) = (1/4) e^{-(c_A - c_B - 2)/beta},        P_D'(E) / P_D(E) = e^{2/beta} = e^{eps_h}
/// EXACTLY. (c_A - c_B = 3 unless T is an integer (4): at eps_h = 1/2, P_D(E) = e^{-3/4}/4 =
/// 0.118 and P_D'(E) = e^{-1/4}/4 = 0.195, frequent events, so the audit is cheap.) Only bins A
/// and B are occupied on either side, and the pair of noisy counts moves by (-1, +1): its
/// density ratio is at most e^{2/beta} everywhere, so no test on the histogram's release can
/// exceed eps_h on this pair, and E attains it: the audit of the histogram stage is tight.
/// Statistic (stage `histogram`): 1 on E, else 0. Claim: (eps_h, delta), the stable histogram's
/// guarantee (V Lemma C.1), of which (I^, released_bins) is post-processing.
///
/// Both stages (stage `both`): given I^ = I_B (B selected or failure, midpoint 0), the clipped
/// sums differ by clip(h) - clip(x_A) = kappa + min(h, kappa) (the moved record goes from -kappa
/// to min(h, kappa)); given I^ = I_A, by kappa. The mean's Laplace noise has scale b_m = 2
/// kappa/(n eps_m). Statistic: the estimate on E, else a sentinel below every estimate; the
/// threshold event E and {estimate >= u}, u >= the D' clipped mean mu_D', has likelihood ratio
///     e^{eps_h} * e^{eps_m (kappa + min(h, kappa)) / (2 kappa)}
/// exactly, and no event exceeds it (the histogram and mean noises are independent and each
/// bounded as above). This is the pair's ceiling, below the total eps = eps_h + eps_m because a
/// record that moves between two far bins cannot also sit at both ends of the same clipping
/// interval unless h >= kappa: paper rule (h = tau, kappa = 3 tau): eps_h + (2/3) eps_m (0.833
/// at eps = 1); kv_mean (h = sigma/2, kappa = 4 sigma sqrt(ln(n/beta)) = 10.5 sigma at n = 99,
/// beta = 0.1): eps_h + 0.524 eps_m (0.762 at eps = 1); a custom rule with h >= kappa reaches
/// eps_h + eps_m = eps. Claim: (eps, delta), the estimator's total (basic composition).
///
/// Broken variants (power): the estimator run with BOTH stages at twice their epsilon
/// (detail::winsorized_core with (2 eps_h, delta, 2 eps_m)) while the original claim is kept;
/// the pair's counts are placed for the threshold of the mechanism actually run (an audit may
/// use any pair), so the ceilings double: 2 eps_h for the histogram statistic, 2 x the above
/// for both stages.
///
/// Randomness: D's trials first, then D''s, from the generator passed in.

#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "dpx/audit/estimator_pairs.hpp"
#include "dpx/core/error.hpp"
#include "dpx/estimators/central.hpp"

namespace dpx::audit {

/// Which part of the release a histogram-stage pair audits (file comment).
enum class estimator_stage {
  histogram,  ///< statistic 1{only bin B released}; claim (eps_h, delta)
  both,       ///< statistic: the estimate on that event, else a sentinel; claim (eps, delta)
};

/// The counts of the histogram-stage pair for a stable histogram at (eps_h, delta), in count
/// units, and the exact probabilities of the event E (file comment).
struct histogram_stage_design {
  double threshold_count = 0;              ///< T = 2 ln(2/delta)/eps_h + 1
  double noise_scale_count = 0;            ///< beta = 2/eps_h
  std::size_t count_a = 0;                 ///< c_A (D): floor(T) + 2
  std::size_t count_b = 0;                 ///< c_B (D): ceil(T) - 2
  std::size_t n = 0;                       ///< c_A + c_B
  double event_probability = 0;            ///< P_D(E) = e^{-(c_A - c_B)/beta} / 4
  double event_probability_neighbour = 0;  ///< P_D'(E) = e^{-(c_A - c_B - 2)/beta} / 4
};

/// The design at (eps_h > 0, delta in (0, 1)). Throws core::invalid_argument_error if T <= 2
/// (c_B would be < 1).
histogram_stage_design make_histogram_stage_design(double eps_h, double delta);

/// The best epsilon any test can reach on the both-stages pair: eps_h + eps_m (kappa + min(h,
/// kappa)) / (2 kappa) (file comment).
double both_stages_ceiling(double eps_h, double eps_m, const estimators::interval_rule& rule);

/// The record positions of the pair for a rule: bin A's index -K, its centre x_A = -2hK and
/// bin B's top edge x_B = h (bin 0).
struct histogram_stage_positions {
  std::int64_t bin_a = 0;
  double x_a = 0;
  double x_b = 0;
};
histogram_stage_positions make_histogram_stage_positions(const estimators::interval_rule& rule);

namespace detail {
/// D's records (side 0) or D''s (side 1) of the pair.
std::vector<double> histogram_stage_data(const histogram_stage_design& d,
                                         const histogram_stage_positions& p,
                                         int side);

/// The statistic of one release (file comment).
inline double histogram_stage_statistic(const estimators::mean_result& r, estimator_stage stage) {
  const bool only_b = r.diag.released_bins == 1 && !r.diag.failed && r.midpoint == 0.0;
  if (stage == estimator_stage::histogram) return only_b ? 1.0 : 0.0;
  return only_b ? r.estimate : -std::numeric_limits<double>::max();
}

/// The pair for a rule chosen from n (rule_for(n)) and a release run(x, rule) -> mean_result;
/// eps_h is the histogram epsilon of the mechanism actually run (it places the counts).
template <class RuleFor, class Run>
sample_pair histogram_stage_pair(double eps_h,
                                 double delta,
                                 estimator_stage stage,
                                 std::size_t trials,
                                 RuleFor rule_for,
                                 Run run) {
  const histogram_stage_design d = make_histogram_stage_design(eps_h, delta);
  const estimators::interval_rule rule = rule_for(d.n);
  const histogram_stage_positions pos = make_histogram_stage_positions(rule);
  auto p = one_statistic(trials,
                         stage == estimator_stage::histogram
                             ? "1 if only bin B (= 0) is released"
                             : "estimate if only bin B (= 0) is released, else a sentinel",
                         "c_A records at bin A's centre, c_B at bin B's top edge vs one record "
                         "moved from A to B (counts straddle the stable histogram's threshold)");
  for (int side = 0; side < 2; ++side) {
    const std::vector<double> x = histogram_stage_data(d, pos, side);
    auto& out = side == 0 ? p.s0[0] : p.s1[0];
    for (std::size_t i = 0; i < trials; ++i)
      out[i] = histogram_stage_statistic(run(std::span<const double>(x), rule), stage);
  }
  return p;
}
}  // namespace detail

/// The histogram-stage pair of estimators::winsorized_mean (file comment). broken: both stages
/// at twice their epsilon (counts placed for the broken histogram's threshold).
template <std::uniform_random_bit_generator G>
sample_pair winsorized_mean_stage_pair(const estimators::winsorized_mean_options& o,
                                       estimator_stage stage,
                                       std::size_t trials,
                                       G& g,
                                       bool broken = false) {
  const char* fn = "audit::winsorized_mean_stage_pair";
  detail::check_trials(fn, trials);
  o.validate(fn);
  const double f = broken ? 2.0 : 1.0;
  return detail::histogram_stage_pair(
      f * 0.5 * o.target.epsilon,
      o.target.delta,
      stage,
      trials,
      [&](std::size_t) { return o.rule; },
      [&](std::span<const double> x, const estimators::interval_rule& rule) {
        if (!broken) return estimators::winsorized_mean(x, o, g);
        return estimators::detail::winsorized_core(
            x, rule, o.target.epsilon, o.target.delta, o.target.epsilon, o.noise, g, fn, "x");
      });
}

/// The histogram-stage pair of estimators::kv_mean (rule h = sigma/2, kappa = kv_radius at the
/// pair's n; file comment). broken: both stages at twice their epsilon.
template <std::uniform_random_bit_generator G>
sample_pair kv_mean_stage_pair(const estimators::kv_mean_options& o,
                               estimator_stage stage,
                               std::size_t trials,
                               G& g,
                               bool broken = false) {
  const char* fn = "audit::kv_mean_stage_pair";
  detail::check_trials(fn, trials);
  o.validate();
  const double f = broken ? 2.0 : 1.0;
  return detail::histogram_stage_pair(
      f * 0.5 * o.target.epsilon,
      o.target.delta,
      stage,
      trials,
      [&](std::size_t n) {
        if (static_cast<double>(n) <= o.beta)
          core::throw_invalid(fn, "beta", o.beta, "must be below the pair's n (kappa > 0)");
        return estimators::interval_rule{0.5 * o.sigma, kv_radius(o, n)};
      },
      [&](std::span<const double> x, const estimators::interval_rule& rule) {
        if (!broken) return estimators::kv_mean(x, o, g).mean;
        return estimators::detail::winsorized_core(
            x, rule, o.target.epsilon, o.target.delta, o.target.epsilon, o.noise, g, fn, "x");
      });
}

}  // namespace dpx::audit
