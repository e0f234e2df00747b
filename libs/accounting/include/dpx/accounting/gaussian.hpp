#pragma once
/// \file
/// Exact (epsilon, delta) of the Gaussian mechanism and of its T-fold composition, and noise
/// calibration: the analytic Gaussian mechanism [Balle & Wang 2018, Thm 8] and the classical
/// calibration [Dwork & Roth 2014, Thm A.1].
///
/// Units: noise_multiplier = sigma / Delta2 (Gaussian standard deviation per unit of L2
/// sensitivity). The guarantee holds for whichever neighbouring relation Delta2 was computed
/// under. T-fold adaptive composition of Gaussian mechanisms with multipliers sigma_i is
/// exactly (same tradeoff curve) one Gaussian mechanism with multiplier
/// (sum_i sigma_i^-2)^-1/2 [Dong, Roth & Su 2022, Cor 3.3], i.e. sigma / sqrt(T) when equal.

#include <cstdint>

namespace dpx::accounting {

/// delta(eps) = Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s) for noise multiplier s: the
/// exact (tight) delta of the Gaussian mechanism at any finite epsilon (negative allowed, as a
/// hockey-stick divergence). Computed in log space with Boost.Math erfc-based Mills ratios:
/// no overflow for eps > 709, no cancellation in the tail.
double gaussian_delta(double epsilon, double noise_multiplier);
/// log of gaussian_delta (-inf when delta underflows to 0 in log space too).
double gaussian_log_delta(double epsilon, double noise_multiplier);
/// Smallest epsilon >= 0 with gaussian_delta(epsilon) <= delta, returned from the safe side
/// (the returned epsilon satisfies the inequality). delta in (0, 1).
double gaussian_epsilon(double delta, double noise_multiplier);
/// T-fold composition: gaussian_epsilon(delta, noise_multiplier / sqrt(steps)).
double gaussian_composed_epsilon(double delta, double noise_multiplier, std::int64_t steps);
double gaussian_composed_delta(double epsilon, double noise_multiplier, std::int64_t steps);

/// Analytic Gaussian calibration: the smallest noise multiplier s (bisected on log s and
/// returned from the SAFE side) such that `steps` adaptive Gaussian releases with multiplier s
/// are (epsilon, delta)-DP. epsilon > 0 (any size), delta in (0, 1), steps >= 1.
double calibrate_gaussian_analytic(double epsilon, double delta, std::int64_t steps = 1);

/// Classical calibration s = sqrt(2 ln(1.25/delta)) / epsilon [Dwork & Roth 2014, Thm A.1];
/// valid only for epsilon in (0, 1) (throws otherwise) and one release.
double calibrate_gaussian_classical(double epsilon, double delta);

}  // namespace dpx::accounting
