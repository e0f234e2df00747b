#pragma once
/// \file
/// The one vocabulary of composition rules, and the budget splits that solvers and estimators
/// need without depending on dpx::accounting (docs/architecture.md): the advanced-composition
/// bound and its inverse [Dwork, Rothblum & Vadhan 2010, Thm III.3; Dwork & Roth 2014,
/// Thm 3.20 and Cor 3.21], the per-step budget of k releases, and Yuan & Peng 2023's ISTDP
/// Theorem 3.3 calibration as published (docs/theory/istdp.md).

#include <cstdint>
#include <initializer_list>
#include <string>

#include "dpx/core/privacy_curves.hpp"

namespace dpx::core {

/// Every composition rule / accounting method named anywhere in dpx. Each API accepts the
/// subset it implements (and its parser rejects the others, naming the accepted ones):
/// accounting methods (basic ... pld), approx_dp_accountant rules (basic, advanced, kov),
/// noisy-PGD Laplace rules (basic, advanced, kov, kov_optimal, pld), estimators' per-coordinate
/// splits (single, basic, advanced).
enum class composition_rule {
  single,       ///< one release: no composition
  basic,        ///< sum eps_i, sum delta_i [Dwork & Roth 2014, Thm 3.16]
  advanced,     ///< Dwork-Rothblum-Vadhan advanced composition with a delta slack
  kov,          ///< Kairouz-Oh-Viswanath 2015 Thm 3.4/3.5 bound (exact Thm 3.3 when homogeneous)
  kov_optimal,  ///< Kairouz-Oh-Viswanath 2015 Thm 3.3: exact optimal homogeneous composition
  rdp,          ///< Renyi DP [Mironov 2017] with the improved conversion
  zcdp,         ///< zero-concentrated DP [Bun & Steinke 2016]
  pld,          ///< pessimistic privacy loss distribution (tight up to discretisation)
};
/// "single", "basic", "advanced", "kov", "kov_optimal", "rdp", "zcdp", "pld".
std::string to_string(composition_rule r);
/// Parses one of `accepted` by name; otherwise throws invalid_argument_error naming `function`
/// and `parameter` and listing the accepted names ("must be basic, advanced or kov").
composition_rule parse_composition_rule(const std::string& s,
                                        std::initializer_list<composition_rule> accepted,
                                        const char* function,
                                        const char* parameter);

/// Every noise-calibration method named anywhere in dpx (the calibration counterpart of
/// composition_rule: one enum, one parser, one to_string). Each API accepts the subset it
/// implements and its parser rejects the others, naming the accepted ones:
/// accounting::calibrate_gaussian and `dpx calibrate --method` (classical, analytic, rdp, pld);
/// the private solvers' `calibration` option (paper, tight, fixed; output perturbation: tight,
/// fixed). docs/accounting.md ("Calibration") and docs/solvers.md say which is which.
enum class noise_calibration {
  /// Classical Gaussian: one release, sigma = sqrt(2 ln(1.25/delta)) / epsilon [Dwork & Roth
  /// 2014, Thm A.1] (epsilon < 1); T releases: Yuan & Peng 2023 ISTDP Thm 3.3 (the classical
  /// per-step Gaussian under advanced composition).
  classical,
  /// Exact Gaussian curve at sigma / sqrt(T) [Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022,
  /// Cor 3.3] (no subsampling).
  analytic,
  rdp,  ///< smallest sigma whose RDP epsilon [Mironov 2017] is <= the target
  pld,  ///< smallest sigma whose PLD epsilon is <= the target
  /// A solver's published calibration (ISTDP: classical, i.e. Thm 3.3; noisy PGD Laplace: its
  /// composition rule over T d releases; DP Frank-Wolfe: advanced composition of the selections).
  paper,
  /// A solver's tightest implemented calibration (research-grade Gaussian: analytic;
  /// float-safe Gaussian and DP Frank-Wolfe: zCDP; docs/solvers.md).
  tight,
  fixed,  ///< the noise scale is given directly (0 = no noise, nonprivate)
};
/// "classical", "analytic", "rdp", "pld", "paper", "tight", "fixed".
std::string to_string(noise_calibration c);
/// Parses one of `accepted` by name; otherwise throws invalid_argument_error naming `function`
/// and `parameter` and listing the accepted names ("must be paper, tight or fixed").
noise_calibration parse_noise_calibration(const std::string& s,
                                          std::initializer_list<noise_calibration> accepted,
                                          const char* function,
                                          const char* parameter);
/// Throws invalid_argument_error naming `function` and `parameter` unless c is one of
/// `accepted` (for options structs that hold a noise_calibration).
void check_noise_calibration(noise_calibration c,
                             std::initializer_list<noise_calibration> accepted,
                             const char* function,
                             const char* parameter);

/// k-fold advanced composition epsilon of (eps0, .)-DP releases with slack delta_slack
/// [Dwork, Rothblum & Vadhan 2010, Thm III.3; the form of Yuan & Peng 2023, Lemma 3.1]:
/// sqrt(2k ln(1/delta_slack)) eps0 + k eps0 (e^eps0 - 1). Unvalidated (callers validate).
double advanced_composition_epsilon(double epsilon0, std::int64_t k, double delta_slack);
/// Inverse: the largest eps0 whose k-fold advanced composition with slack delta_slack is
/// <= epsilon (bisection to the last bit, returned from the safe side). epsilon > 0, k >= 1,
/// delta_slack in (0, 1).
double advanced_per_step_epsilon(double epsilon, std::int64_t k, double delta_slack);
/// The simplified closed form eps0 = epsilon / sqrt(8 k ln(1/delta_slack)) [Dwork & Roth
/// 2014, Cor 3.21; S1 Thm 2.4 in Roth & Avella-Medina 2025], rounded down a few ulps: k
/// releases at eps0 compose to epsilon when epsilon < 1 (checked by the caller). k >= 1,
/// delta_slack in (0, 1).
double advanced_per_step_epsilon_simplified(double epsilon, std::int64_t k, double delta_slack);

/// Which advanced-composition inverse split_budget uses.
enum class advanced_form {
  exact,       ///< advanced_per_step_epsilon (largest eps0 meeting the DRV bound)
  simplified,  ///< advanced_per_step_epsilon_simplified (Dwork & Roth Cor 3.21; epsilon < 1)
};

/// Per-step (eps0, delta0) of k releases that together satisfy (total.epsilon, total.delta +
/// slack) under `rule`: single (k must be 1): total; basic: (eps/k, delta/k); advanced:
/// (eps0 of `form` with slack `slack`, delta/k). Every per-step value is rounded DOWN (safe
/// side: k of them never exceed the total). Validates epsilon > 0, delta in [0, 1),
/// k >= 1, and slack in (0, 1) for advanced; throws for any other rule.
epsilon_delta split_budget(composition_rule rule,
                           epsilon_delta total,
                           std::int64_t k,
                           double slack = 0.0,
                           advanced_form form = advanced_form::exact);

/// ISTDP Theorem 3.3 (Yuan & Peng 2023; docs/theory/istdp.md), as published.
struct istdp_calibration {
  double epsilon_step = 0;      ///< eps_k = min{eps / (2 sqrt(2T log(2/delta))), sqrt(eps/T) / 2}
  double delta_step = 0;        ///< delta_k = delta / (2T)
  double sigma = 0;             ///< (sensitivity / eps_k) sqrt(2 log(1.25 / delta_k))
  double noise_multiplier = 0;  ///< sigma / sensitivity
  /// eps_k < 1, the range where the classical Gaussian bound [Dwork & Roth 2014, Thm A.1]
  /// used by the theorem holds. When false the published calibration is NOT a valid guarantee.
  bool classical_valid = false;
};

/// ISTDP Theorem 3.3: per-iteration budget and Gaussian noise for T iterations of ISTDP with
/// gradient L2 sensitivity `sensitivity` (the paper uses 2U, U bounding ||grad L||; with
/// per-example clipping at G use 2G/n replace-one or G/n add/remove). The T-fold advanced
/// composition [DRV10] with slack delta/2 then gives (epsilon, delta)-DP:
/// sqrt(2T ln(2/delta)) eps_k + T eps_k (e^eps_k - 1) <= eps/2 + 2 T eps_k^2 <= eps when
/// eps_k <= 1. The noise is rounded up (safe side of the classical bound at the exact eps_k,
/// delta_k). epsilon > 0, delta in (0, 1), iterations >= 1, sensitivity > 0.
istdp_calibration istdp_theorem_3_3(double epsilon,
                                    double delta,
                                    std::int64_t iterations,
                                    double sensitivity);

}  // namespace dpx::core
