#pragma once
/// \file
/// The seeds' own (looser) calibrations, reproduced exactly so experiments can run them as
/// published, next to the tight calibrations of the accountants.

#include <cstdint>
#include <string>

namespace dpx::accounting {

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
/// per-example clipping at G use 2G/n replace-one or G/n add/remove — spec item 2). The
/// T-fold advanced composition [DRV10] with slack delta/2 then gives (epsilon, delta)-DP:
/// sqrt(2T ln(2/delta)) eps_k + T eps_k (e^eps_k - 1) <= eps/2 + 2 T eps_k^2 <= eps when
/// eps_k <= 1. epsilon > 0, delta in (0, 1), iterations >= 1, sensitivity > 0.
istdp_calibration istdp_theorem_3_3(double epsilon,
                                    double delta,
                                    std::int64_t iterations,
                                    double sensitivity);

/// Composition rule used to split a budget over the T*d coordinate releases of noisy PGD with
/// per-coordinate Laplace noise (the PGD lecture notes [NPGD]; docs/theory/noisy-pgd.md).
enum class laplace_rule {
  basic,        ///< eps0 = eps / k (pure DP, delta unused)
  advanced,     ///< DRV with delta0 = 0, slack delta: sqrt(2k ln(1/delta)) eps0 + k eps0(e^eps0-1)
  kov,          ///< Kairouz-Oh-Viswanath Thm 3.4 bound with slack delta
  kov_optimal,  ///< Kairouz-Oh-Viswanath Thm 3.3 exact optimal composition of eps0-DP releases
  pld,          ///< exact privacy-loss distribution of k Laplace releases (pessimistic PLD)
};
std::string to_string(laplace_rule r);
/// Parses basic | advanced | kov | kov_optimal | pld.
laplace_rule parse_laplace_rule(const std::string& s);

/// Result of the noisy-PGD Laplace calibration.
struct noisy_pgd_laplace_calibration {
  laplace_rule rule = laplace_rule::basic;  ///< which theorem was used
  std::int64_t releases = 0;                ///< k = iterations * dimension
  double epsilon_step = 0;                  ///< eps0 of one coordinate release (Delta / b)
  double scale = 0;                         ///< Laplace scale b = sensitivity / eps0
};

/// Per-coordinate Laplace scale for noisy PGD: k = iterations * dimension adaptive releases,
/// each coordinate of sensitivity `sensitivity` (2G/n replace-one in the PGD lecture notes [NPGD]),
/// total (epsilon, delta)-DP under `rule`. delta is ignored by `basic` (pure DP).
noisy_pgd_laplace_calibration noisy_pgd_laplace_scale(double epsilon,
                                                      double delta,
                                                      std::int64_t iterations,
                                                      std::int64_t dimension,
                                                      double sensitivity,
                                                      laplace_rule rule);

/// L2-calibrated Laplace (the PGD lecture notes [NPGD], Theorem 3, rigorous form): adding Lap(b) to
/// each coordinate of a vector query of L2 sensitivity Delta is (epsilon, delta)-DP when Delta^2/(2
/// b^2) + (Delta/b) sqrt(2 log(1/delta)) <= epsilon, by Kairouz-Oh-Viswanath 2015 Thm 3.5 over the
/// coordinates (eps_i = |a_i|/b, sum a_i^2 <= Delta^2) with eps_i (e^eps_i - 1)/(e^eps_i + 1) <=
/// eps_i^2 / 2. Returns the smallest such b: b = Delta / x, x = 2 eps / (sqrt(2L) + sqrt(2L + 2
/// eps)), L = log(1/delta).
double l2_laplace_scale(double epsilon, double delta, double l2_sensitivity);

}  // namespace dpx::accounting
