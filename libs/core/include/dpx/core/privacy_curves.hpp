#pragma once
/// \file
/// The privacy curves and noise calibrations that mechanisms, solvers and estimators need. They
/// live here, once, because those components may not depend on dpx::accounting
/// (docs/architecture.md); dpx::accounting re-exports them under its own names.
///
/// SAFE-SIDE CONTRACT (docs/accounting.md, "Safe side"; tested by Calibrators.SafeSide* on a
/// dense grid against 50-digit references): every calibrator returns a noise level that meets
/// its target exactly -- never above, not even by rounding -- and is within 1e-9 relative of
/// the tight value. Closed forms are rounded UP by more than the rounding error of the few IEEE
/// operations that compute them (a few ulps, < 1e-14 relative); searches return the feasible
/// end of their final bracket (dpx/core/roots.hpp).
///
/// Units: a noise multiplier is the noise scale per unit of sensitivity (Gaussian sigma /
/// Delta_2, Laplace b / Delta_1).

#include <cstdint>

namespace dpx::core {

/// An (epsilon, delta) pair: a privacy target or guarantee. The one (epsilon, delta) type of
/// dpx (accounting::epsilon_delta is this type; options structs hold their target in it).
struct epsilon_delta {
  double epsilon = 0.0;  ///< privacy-loss bound, >= 0 (may be +inf)
  double delta = 0.0;    ///< failure probability, in [0, 1]
};

// ---- rounding helpers --------------------------------------------------------------------

/// The smallest double >= a / b (exact: the residual of the rounded quotient is computed with
/// one fma, whose sign is exact). a >= 0, b > 0 finite.
double divide_up(double a, double b);
/// The largest double <= a / b (exact, as divide_up): the safe side of a per-step budget.
double divide_down(double a, double b);
/// The smallest double >= a * b (exact, as divide_up). a, b >= 0 finite.
double multiply_up(double a, double b);
/// x moved up by `ulps` units in the last place: the safe side of a closed form whose few
/// IEEE operations (each <= 1 ulp, log and sqrt included) err by fewer than `ulps` ulps.
double round_up(double x, int ulps);
/// x moved down by `ulps` ulps (the safe side of a closed-form per-step budget).
double round_down(double x, int ulps);

// ---- Laplace [Dwork & Roth 2014, Thm 3.6] ----------------------------------------------------

/// Laplace scale b = l1_sensitivity / epsilon, rounded up (divide_up) so that
/// l1_sensitivity / b <= epsilon holds exactly. epsilon > 0, l1_sensitivity > 0.
double laplace_scale(double epsilon, double l1_sensitivity = 1.0);

// ---- Gaussian [Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022, Cor 3.3] ---------------------

/// delta(eps) = Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s) for noise multiplier s: the
/// exact (tight) delta of the Gaussian mechanism at any finite epsilon (negative allowed, as a
/// hockey-stick divergence). Computed in log space with erfc-based Mills ratios: no overflow
/// for eps > 709, no cancellation in the tail.
double gaussian_delta(double epsilon, double noise_multiplier);
/// log of gaussian_delta (-inf when delta underflows to 0 in log space too).
double gaussian_log_delta(double epsilon, double noise_multiplier);
/// Smallest epsilon >= 0 with gaussian_delta(epsilon) <= delta, returned from the safe side
/// (the returned epsilon satisfies the inequality, evaluation error included). delta in (0, 1).
double gaussian_epsilon(double delta, double noise_multiplier);
/// Analytic Gaussian calibration: the smallest noise multiplier s (bisected on log s and
/// returned from the SAFE side, the test evaluated at s / sqrt(steps) exactly as the
/// accountants compute it) such that `steps` adaptive Gaussian releases with multiplier s are
/// (epsilon, delta)-DP: T Gaussian releases compose exactly to one with multiplier
/// s / sqrt(T) [Dong, Roth & Su 2022, Cor 3.3]. epsilon > 0 (any size), delta in (0, 1),
/// steps >= 1.
double calibrate_gaussian_analytic(double epsilon, double delta, std::int64_t steps = 1);
/// Classical calibration s = sqrt(2 ln(1.25/delta)) / epsilon [Dwork & Roth 2014, Thm A.1]
/// (rounded up); valid only for epsilon in (0, 1) (throws otherwise) and one release.
double calibrate_gaussian_classical(double epsilon, double delta);

// ---- L2-calibrated per-coordinate Laplace ------------------------------------------------------

/// The epsilon bound of Lap(b) on every coordinate of a query of L2 sensitivity Delta:
/// x^2/2 + x sqrt(2 ln(1/delta)), x = Delta / b [Kairouz, Oh & Viswanath 2015, Thm 3.5 over
/// the coordinates, eps_i = |a_i| / b with sum a_i^2 <= Delta^2, and
/// eps_i (e^eps_i - 1)/(e^eps_i + 1) <= eps_i^2 / 2; the rigorous form of the PGD lecture
/// notes' [NPGD] Thm 3]. scale > 0, delta in (0, 1), l2_sensitivity > 0.
double l2_laplace_epsilon(double scale, double delta, double l2_sensitivity);
/// The smallest b with l2_laplace_epsilon(b) <= epsilon: b = Delta / x*,
/// x* = 2 eps / (c + sqrt(c^2 + 2 eps)), c = sqrt(2 ln(1/delta)) (rounded up).
double l2_laplace_scale(double epsilon, double delta, double l2_sensitivity);

}  // namespace dpx::core
