#pragma once
/// \file
/// Amplification by subsampling beyond the Poisson-subsampled Gaussian: RDP of the
/// Poisson-subsampled Laplace mechanism and of fixed-size batches drawn without replacement,
/// under replace-one and add/remove neighbours (docs/accounting.md, "Subsampling"). The PLDs of
/// the same events are built by privacy_loss_distribution::from_event.
///
/// Reductions used throughout (docs/accounting.md derives them):
/// * Without replacement, replace-one (batch m of n, gamma = m/n): the output laws are
///   (1-gamma) A + gamma B vs (1-gamma) A + gamma B' with every pair of components neighbours
///   under substitution on batches [Balle, Barthe & Gaboardi 2018, Thm 9]; its trade-off curve
///   is C_gamma(f) = min{f_gamma, f_gamma^-1}** [Dong, Roth & Su 2022, Thm 4.2] with
///   f_gamma = gamma f + (1-gamma) Id, whose PLD is the symmetrisation of the Poisson "remove"
///   PLD with rate gamma.
/// * Without replacement, add/remove (D' = D + {x}, batches of m from each): coupling a batch of
///   D' that contains x with a batch of D that replaces x by a uniform other record gives
///   exactly the Poisson structure (gamma P + (1-gamma) Q, Q) with gamma = m / |D'| and (P, Q)
///   the substitution pair on batches, so the Poisson dominating pairs (both directions) apply
///   with that gamma [Zhu, Dong & Wang 2022, dominating pairs of Poisson subsampling; equivalently
///   the trade-off curve of (gamma P + (1-gamma) Q, Q) is gamma f + (1-gamma) Id, Dong, Roth & Su
///   2022, Sec. 4].
/// In both cases the base mechanism is analysed under substitution on batches: the event's
/// noise_multiplier is relative to the replace-one sensitivity of the batch query.

#include "dpx/core/privacy.hpp"

namespace dpx::accounting {

/// gamma = batch_size / dataset_size after validating the event (batch >= 1, dataset >= batch,
/// noise_multiplier > 0 and finite).
double without_replacement_probability(const core::sampled_without_replacement_event& e);

/// The Poisson-structured event with rate gamma that the add/remove reduction above yields
/// (subsampled_gaussian_event or subsampled_laplace_event with the same noise multiplier).
core::privacy_event poisson_equivalent(const core::sampled_without_replacement_event& e);

/// RDP of a Poisson-subsampled mechanism with base RDP curve eps(.) (add/remove, both
/// directions), integer alpha >= 2: the general upper bound of [Zhu & Wang 2019, "Poisson
/// subsampled Renyi differential privacy", ICML; stated there to be optimal up to
/// log(3)/(alpha-1)]. (Earlier cited as "Thm 6" from memory; the theorem number is not
/// re-verified. The formula is checked against the exact divergences of the subsampled Laplace
/// pair, both directions, by quadrature: tests/accounting/subsampled_pld_test.cpp.)
///   1/(alpha-1) log( (1-g)^{alpha-1} (alpha g - g + 1) + C(alpha,2) g^2 (1-g)^{alpha-2}
///                    e^{eps(2)} + 3 sum_{l=3}^{alpha} C(alpha,l) (1-g)^{alpha-l} g^l
///                    e^{(l-1) eps(l)} ),
/// capped by the base curve eps(alpha). For the Laplace base the same sum WITHOUT the factor 3
/// (Zhu & Wang's exact formula for Laplace) equals the exact D_alpha(P || Q) to 1e-16 on that
/// grid, with D_alpha(Q || P) below it; it is not used here, since the add direction's dominance
/// is only checked numerically. Fractional alpha: the cumulant (alpha-1) eps(alpha) is
/// convex in alpha, so the integer bounds are interpolated linearly in it [Wang, Balle &
/// Kasiviswanathan 2019, Cor 10].
/// This function: base = Laplace with b = noise_multiplier (rdp_laplace).
double rdp_subsampled_laplace(double alpha, double sampling_rate, double noise_multiplier);

/// RDP of sampling without replacement then Gaussian / Laplace. replace_one: the general bound
/// of [Wang, Balle & Kasiviswanathan 2019, Thm 9] for integer alpha >= 2,
///   1/(alpha-1) log( 1 + g^2 C(alpha,2) min{4 (e^{eps(2)} - 1), e^{eps(2)} min{2, (e^{eps(inf)}
///                    - 1)^2}} + sum_{j=3}^{alpha} g^j C(alpha,j) e^{(j-1) eps(j)}
///                    min{2, (e^{eps(inf)} - 1)^j} ),
/// capped by eps(alpha) and interpolated as above for fractional alpha. add_remove: the RDP of
/// poisson_equivalent(e) (rdp_subsampled_gaussian [Mironov, Talwar & Zhang 2019] or
/// rdp_subsampled_laplace).
double rdp_sampled_without_replacement(double alpha,
                                       const core::sampled_without_replacement_event& e);

}  // namespace dpx::accounting
