#pragma once
/// \file
/// Noise calibration used by the private solvers: the published formulas of Yuan & Peng 2023
/// Theorem 3.3 and [NPGD] (reproduced exactly; docs/theory/istdp.md, docs/theory/noisy-pgd.md) and
/// tight replacements. All functions validate their arguments and throw
/// core::invalid_argument_error naming the function, parameter and value.
///
/// "Tight" Gaussian calibration: k adaptive Gaussian releases with noise multiplier m (sigma /
/// L2 sensitivity) have exactly the privacy profile of ONE Gaussian release with multiplier
/// m / sqrt(k) (Dong, Roth & Su 2022, Cor. 3.3), and the exact (epsilon, delta) of one Gaussian
/// release is Balle & Wang 2018, Thm. 8. So the smallest m giving (epsilon, delta)-DP over k
/// releases is sqrt(k) * m_1(epsilon, delta) with m_1 the analytic Gaussian calibration. This is
/// exact (what RDP and PLD accountants approximate from above).

#include <cstdint>
#include <string>

#include "dpx/core/composition.hpp"
#include "dpx/core/privacy_curves.hpp"

namespace dpx::solvers {

/// Where the L2 sensitivity of a released (average) gradient comes from.
enum class sensitivity_mode {
  gradient_bound,  ///< the paper's Delta = 2U, U a public bound on ||grad L(theta; D)||
  clipping,  ///< per-example gradients clipped to norm G: 2G/n replace-one, G/n_bar add/remove
             ///< (public n_bar)
};
std::string to_string(sensitivity_mode m);
sensitivity_mode parse_sensitivity_mode(const std::string& s);

/// How the noise level of a private solver is chosen: dpx's one calibration-method enum
/// (core::noise_calibration), of which the solvers accept paper (the seed's own calibration:
/// ISTDP Thm. 3.3 with advanced composition; noisy PGD Laplace: the chosen composition rule over
/// T*d releases), tight (exact Gaussian composition, see the file comment; zCDP for float-safe
/// noise) and fixed (the noise scale is given directly; 0 = no noise, nonprivate); validate()
/// rejects the others. to_string is core's.
using noise_calibration = core::noise_calibration;
/// core::parse_noise_calibration restricted to paper, tight, fixed (parameter "calibration").
noise_calibration parse_noise_calibration(const std::string& s);

/// ISTDP Theorem 3.3 (Yuan & Peng 2023), as published (dpx::core::istdp_theorem_3_3, the one
/// home of the formula; the noise is rounded up to the safe side).
struct istdp_paper_calibration {
  double epsilon_step = 0;  ///< eps_k = min{eps / (2 sqrt(2T log(2/delta))), sqrt(eps/T) / 2}
  double delta_step = 0;    ///< delta_k = delta / (2T)
  double sigma = 0;         ///< (sensitivity / eps_k) sqrt(2 log(1.25 / delta_k))
};
/// epsilon > 0, delta in (0, 1), iterations T >= 1, sensitivity > 0. Throws if eps_k >= 1 (the
/// classical Gaussian bound used by the theorem, Dwork & Roth 2014 Thm. A.1, needs eps_k < 1).
istdp_paper_calibration istdp_theorem_3_3(double epsilon,
                                          double delta,
                                          std::int64_t iterations,
                                          double sensitivity);

/// Smallest Gaussian noise multiplier m = sigma / Delta_2 such that `releases` adaptive
/// Gaussian releases are (epsilon, delta)-DP (exact; see the file comment):
/// core::calibrate_gaussian_analytic(epsilon, delta, releases), safe side included.
double gaussian_tight_multiplier(double epsilon, double delta, std::int64_t releases);

/// Inverse of advanced composition (Dwork, Rothblum & Vadhan 2010, Thm. III.3; Dwork & Roth
/// 2014, Thm. 3.20): the largest eps0 with sqrt(2k ln(1/delta_slack)) eps0 + k eps0 (e^eps0 - 1)
/// <= epsilon (core::advanced_per_step_epsilon: bisection, the returned value satisfies the
/// inequality).
double drv_per_step_epsilon(double epsilon, std::int64_t k, double delta_slack);

/// Rule splitting a budget over the releases of noisy PGD with Laplace noise: basic
/// (eps0 = eps / k, pure DP, delta unused) or advanced (DRV with delta0 = 0 and slack delta
/// per coordinate, see drv_per_step_epsilon), of dpx's one composition-rule enum.
using laplace_composition = core::composition_rule;
using core::to_string;
/// Parses basic | advanced.
laplace_composition parse_laplace_composition(const std::string& s);

/// Per-coordinate Laplace for noisy PGD (docs/theory/noisy-pgd.md): k = iterations *
/// dimension releases, each of sensitivity `coordinate_sensitivity`; returns the scale
/// b = coordinate_sensitivity / eps0 with eps0 from `rule`.
double laplace_per_coordinate_scale(double epsilon,
                                    double delta,
                                    std::int64_t iterations,
                                    std::int64_t dimension,
                                    double coordinate_sensitivity,
                                    laplace_composition rule);

/// L2-calibrated Laplace (the PGD lecture notes [NPGD], Thm. 3, rigorous form via Kairouz, Oh &
/// Viswanath 2015, Thm. 3.5 over the coordinates, with eps_i (e^eps_i - 1)/(e^eps_i + 1) <= eps_i^2
/// / 2): Lap(b) on every coordinate of a query of L2 sensitivity Delta is (epsilon, delta)-DP when
/// x^2/2 + x sqrt(2 ln(1/delta)) <= epsilon, x = Delta / b. Returns the smallest b:
/// b = Delta / x*, x* = sqrt(2L + 2 eps) - sqrt(2L), L = ln(1/delta).
double laplace_l2_scale(double epsilon, double delta, double l2_sensitivity);

/// Per-iteration (epsilon, delta) of noisy PGD with L2-calibrated Laplace over T iterations:
/// basic: (eps/T, delta/T); advanced: DRV with slack delta/2, delta_it = delta / (2T)
/// (core::split_budget).
using per_iteration_budget = core::epsilon_delta;
per_iteration_budget split_budget(double epsilon,
                                  double delta,
                                  std::int64_t iterations,
                                  laplace_composition rule);

/// Gaussian noise multiplier m = sigma / Delta_2 for `releases` adaptive FLOAT-SAFE Gaussian
/// releases (mechanisms::float_safe_gaussian, each exactly rho-zCDP with rho = 1/(2 m^2), CKS20
/// Thm. 14): the composition is (releases / (2 m^2))-zCDP (Bun & Steinke 2016, Lemma 2.3), and
/// (epsilon, delta)-DP when that is <= rho* = zcdp_rho_bun_steinke(epsilon, delta) (Prop. 1.3),
/// so m = sqrt(releases / (2 rho*)). Larger than gaussian_tight_multiplier (the discrete law has
/// no analytic (epsilon, delta) curve; zCDP is what is proved for it).
double gaussian_zcdp_multiplier(double epsilon, double delta, std::int64_t releases);

}  // namespace dpx::solvers
