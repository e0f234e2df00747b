#pragma once
/// \file
/// The oracles of the `noisy_pgd_rates` experiment (docs/theory/noisy-pgd.md, "Oracles of the
/// experiment"), computed from a cell's INPUTS only (epsilon, delta, n, T, d, the clip G and the
/// neighbouring relation) and from the theorems' formulas, never from a field of a solver's
/// result and without calling dpx's own calibration code: a check of the code against its own
/// output cannot see the code's mistake. Each function is a closed form or a bisection written
/// from the paper's formula; tests/experiments/pgd_theory_test.cpp compares each with a value
/// computed by hand (or with mpmath) at one cell.

#include <cstdint>
#include <span>

namespace dpx::experiments::pgd_theory {

/// L2 (and per-coordinate) sensitivity of the released clipped mean gradient
/// (1/n) sum_i clip_G(g_i) under replace-one: one example changes one clipped gradient, each of
/// norm <= G, so the mean moves by at most 2G/n ([NPGD], "sensitivity 2G/n (replace-one)").
double replace_one_sensitivity(double clip, std::int64_t n);

/// Advanced composition (Dwork, Rothblum & Vadhan 2010, Thm. III.3; Dwork & Roth 2014,
/// Thm. 3.20): k adaptive eps0-DP releases are (eps, delta_slack)-DP with
/// eps = sqrt(2 k ln(1/delta_slack)) eps0 + k eps0 (e^eps0 - 1).
double drv_total_epsilon(double eps0, std::int64_t k, double delta_slack);

/// The eps0 at which drv_total_epsilon equals `epsilon` (the formula is increasing in eps0;
/// bisection to relative 1e-15).
double drv_step_epsilon(double epsilon, std::int64_t k, double delta_slack);

/// Per-coordinate Laplace noisy PGD ([NPGD]; docs/theory/noisy-pgd.md): T d releases of
/// per-coordinate sensitivity Delta composed by DRV with slack delta: b = Delta / eps0,
/// eps0 = drv_step_epsilon(epsilon, T d, delta).
double laplace_per_coordinate_scale(
    double epsilon, double delta, std::int64_t iterations, std::int64_t d, double sensitivity);

/// L2-calibrated Laplace ([NPGD] Thm. 3, rigorous Kairouz-Oh-Viswanath form): per iteration
/// (eps_it, delta_it) = (drv_step_epsilon(epsilon, T, delta/2), delta/(2T)) (T iterations by DRV
/// with slack delta/2, plus T delta_it = delta/2), and b = Delta / x with x the positive root of
/// x^2/2 + x sqrt(2 ln(1/delta_it)) = eps_it.
double laplace_l2_scale(double epsilon, double delta, std::int64_t iterations, double sensitivity);

/// delta(eps) of mu-GDP (Dong, Roth & Su 2022, Cor. 2.13; Balle & Wang 2018, Thm. 8 for one
/// Gaussian release with Delta/sigma = mu): Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2).
double gdp_delta(double mu, double epsilon);

/// The mu with gdp_delta(mu, epsilon) = delta (increasing in mu; bisection to relative 1e-15).
double gdp_mu(double epsilon, double delta);

/// The exact epsilon of mu-GDP at delta: the eps >= 0 with gdp_delta(mu, eps) = delta
/// (decreasing in eps; 0 when gdp_delta(mu, 0) <= delta). T Gaussian releases at noise
/// multiplier sigma (sensitivity 1) have mu = sqrt(T)/sigma: the oracle accounting_tightness
/// holds every accountant to.
double gdp_epsilon(double mu, double delta);

/// Gaussian noisy PGD with tight accounting: T releases with Delta/sigma each compose to
/// mu = sqrt(T) Delta / sigma -GDP exactly (Dong, Roth & Su 2022, Cor. 3.3), so the smallest
/// sigma giving (epsilon, delta)-DP is sqrt(T) Delta / gdp_mu(epsilon, delta).
double gaussian_sigma(double epsilon, double delta, std::int64_t iterations, double sensitivity);

/// The three noises of noisy PGD.
enum class noise { laplace_per_coordinate, laplace_l2, gaussian };

/// The theorem's noise scale (b for Laplace, sigma for Gaussian) of a cell.
double noise_scale(noise kind,
                   double epsilon,
                   double delta,
                   std::int64_t iterations,
                   std::int64_t d,
                   double sensitivity);

/// Per-coordinate variance of the gradient noise: 2 b^2 (Laplace) or sigma^2 (Gaussian).
double noise_variance(noise kind, double scale);

/// The exact expected privacy part of noisy PGD on a quadratic with Hessian eigenvalues
/// lambda_k > 0, projection inactive, averaged iterate (1/T) sum_{t=1}^T w_t, step eta, i.i.d.
/// zero-mean gradient noise of per-coordinate variance v (docs/experiments/noisy_pgd_rates.md,
/// "The exact oracle"): v/(2 T^2) sum_k S_k/lambda_k, S_k = sum_{j=1}^T (1 - (1 - eta
/// lambda_k)^j)^2. Needs |1 - eta lambda_k| < 1.
double quadratic_privacy_part(std::span<const double> eigenvalues,
                              double eta,
                              double variance,
                              std::int64_t iterations);

/// Nonprivate PGD on a linear objective L(w) = c - m^T w over the L2 ball of radius r, from
/// w_0 = 0 with step eta: the iterates stay on the ray of m, w_t = min(t eta ||m||, r) m/||m||,
/// so the averaged iterate (1/T) sum_{t=1}^T w_t has the exact excess
/// ||m|| (r - (1/T) sum_t min(t eta ||m||, r)) (docs/experiments/noisy_pgd_rates.md, "Level of
/// the hinge checks"). With eta = R/(G sqrt T) it is r/(2 sqrt T) - ||m|| r/(2T) + O(T^-3/2):
/// the case in which Lecture 10 Theorem 1's R G/sqrt(T) is attained up to the factor 1/2.
double linear_ball_excess(double m_norm, double radius, double eta, std::int64_t iterations);

}  // namespace dpx::experiments::pgd_theory
