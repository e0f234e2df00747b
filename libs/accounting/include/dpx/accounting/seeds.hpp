#pragma once
/// \file
/// The published (looser) calibrations of Yuan & Peng 2023 (ISTDP, Theorem 3.3) and of the PGD
/// lecture notes [NPGD] (docs/references.md), reproduced exactly so experiments can run them as
/// published, next to the tight calibrations of the accountants.

#include <cstdint>
#include <string>

#include "dpx/core/composition.hpp"
#include "dpx/core/privacy_curves.hpp"

namespace dpx::accounting {

// ISTDP Theorem 3.3 (Yuan & Peng 2023; docs/theory/istdp.md), as published: one home in
// dpx::core (the ISTDP solver uses it too).
using core::istdp_calibration;
using core::istdp_theorem_3_3;

/// Composition rule used to split a budget over the T*d coordinate releases of noisy PGD with
/// per-coordinate Laplace noise (the PGD lecture notes [NPGD]; docs/theory/noisy-pgd.md).
/// Accepted: basic (eps0 = eps / k, pure DP, delta unused); advanced (DRV with delta0 = 0,
/// slack delta: sqrt(2k ln(1/delta)) eps0 + k eps0(e^eps0-1)); kov (Kairouz-Oh-Viswanath
/// Thm 3.4 bound with slack delta); kov_optimal (KOV Thm 3.3, exact optimal composition of
/// eps0-DP releases); pld (privacy-loss distribution of k Laplace releases, pessimistic).
using laplace_rule = core::composition_rule;
using core::to_string;
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

/// L2-calibrated Laplace (the PGD lecture notes [NPGD], Theorem 3, rigorous form): one home in
/// dpx::core (dpx/core/privacy_curves.hpp), used by mechanisms::l2_laplace and the solvers.
using core::l2_laplace_scale;

}  // namespace dpx::accounting
