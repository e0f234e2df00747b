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

#include "dpx/core/privacy_curves.hpp"

namespace dpx::accounting {

// The Gaussian curve and its calibrations live once, in dpx::core (mechanisms and solvers use
// them too); see dpx/core/privacy_curves.hpp for their contracts (safe side included).
using core::calibrate_gaussian_analytic;
using core::calibrate_gaussian_classical;
using core::gaussian_delta;
using core::gaussian_epsilon;
using core::gaussian_log_delta;

/// T-fold composition: gaussian_epsilon(delta, noise_multiplier / sqrt(steps)).
double gaussian_composed_epsilon(double delta, double noise_multiplier, std::int64_t steps);
double gaussian_composed_delta(double epsilon, double noise_multiplier, std::int64_t steps);

}  // namespace dpx::accounting
