#pragma once
/// \file
/// The tail bounds of Roth & Avella-Medina (2025) ("S1") that the dd_histogram_bounds and
/// dd_concentration experiments gate, computed from a cell's INPUTS (n, ε, δ, ρ, M, d, α, η) by
/// the lemma's formula, never from an estimator's result (docs/theory/dependent-data.md §11).
/// Each `*_bound` is the stated probability of exceeding a threshold; each `*_threshold` inverts
/// a bound: the threshold at which the stated probability equals q.

#include <cstddef>
#include <string>

namespace dpx::experiments::s1_theory {

/// λ_max(Σ) of the unit-variance item-level designs of dd_common (ρ of Example A.2 for
/// N(μ1, Σ)): iid 1; ar1 ar1_lambda_max(φ, n); equi 1 + (n − 1)φ; equi_inv_n 2.
double design_lambda_max(const std::string& design, std::size_t n, double phi);

/// S1 Lemma 3.1 (given the data; Karwa & Vadhan 2018 Lemma 2.3): the stable histogram's
/// P(max_k |p̌_k − p̂_k| ≥ η) ≤ n (1 + e^{ε/2}/δ) e^{−εnη/2}.
double histogram_data_bound(std::size_t n, double epsilon, double delta, double eta);
/// The η at which histogram_data_bound equals q: (2/(εn)) ln(n (1 + e^{ε/2}/δ)/q).
double histogram_data_threshold(std::size_t n, double epsilon, double delta, double q);

/// S1 Lemma 3.1 / 3.2 against the population bin masses, i.i.d. case (Lemma C.3):
/// P(max_k |p̌_k − p_k| ≥ η) ≤ n (1 + e^{ε/2}/δ) e^{−εnη/4} + 2 e^{−nη²/8} (the proof's
/// constant, not the statement's (1 + e^ε)/δ; §10 item 3).
double histogram_population_bound_iid(std::size_t n, double epsilon, double delta, double eta);
/// The η at which histogram_population_bound_iid equals q (bisection: the bound decreases in η).
double histogram_population_threshold_iid(std::size_t n, double epsilon, double delta, double q);

/// p_k = P(X ∈ B_k) for X ~ N(μ, 1) and dpx's bins B_k = (w(k − 1/2), w(k + 1/2)] of width w
/// (docs/theory/dependent-data.md §3.2): the population bin mass of Lemma 3.1 for every design
/// of dd_common (unit-variance Gaussian marginals, so the average marginal CDF is Φ(x − μ)).
double gaussian_bin_mass(double mu, double width, long long k);

/// S1 Lemma D.10 (i.i.d.): P(every bin of the stable histogram zeroed) ≤ (e^{ε/2}/δ) e^{−nε/8}
/// + 2 e^{−n/128}.
double histogram_failure_bound(std::size_t n, double epsilon, double delta);

/// S1 Lemma 6.3's first term (the randomized-response noise given the data): the debiased local
/// histogram over N bins at per-user budget ε has P(max_k |p̃_k − p̂_k| >= η) <=
/// 2N exp(−nη² tanh²(ε/4)/4).
double local_histogram_data_bound(std::size_t n, std::size_t bins, double epsilon, double eta);
/// The η at which local_histogram_data_bound equals q: (2/tanh(ε/4)) √(ln(2N/q)/n).
double local_histogram_data_threshold(std::size_t n, std::size_t bins, double epsilon, double q);

/// S1 Lemma 2.11: ‖X̄ − μ‖_∞ ≤ √(2ρ ln(2d/α)/n) with probability ≥ 1 − α.
double mean_sup_radius(double rho, std::size_t n, std::size_t d, double alpha);
/// S1 Lemma 2.11: ‖X̄ − μ‖_2 ≤ √(2dρ ln(2d/α)/n) with probability ≥ 1 − α.
double mean_l2_radius(double rho, std::size_t n, std::size_t d, double alpha);

/// S1 Theorem 2.6: the t at which 2 exp(−t²/(2ρL²)) = α, i.e. √(2ρL² ln(2/α)).
double lipschitz_deviation(double rho, double lipschitz, double alpha);

/// S1 Theorem C.2 (after Bobkov & Götze 2010): P(sup_x |F̄(x) − F̂_n(x)| ≥ r) ≤
/// (4/r) exp(−(2/27) n r³/(ρM²)).
double dkw_lsi_bound(std::size_t n, double rho, double lipschitz_cdf, double r);
/// The r at which dkw_lsi_bound equals q (bisection: the bound decreases in r). A value >= 1
/// means the bound says nothing (a CDF error never reaches 1).
double dkw_lsi_threshold(std::size_t n, double rho, double lipschitz_cdf, double q);

}  // namespace dpx::experiments::s1_theory
