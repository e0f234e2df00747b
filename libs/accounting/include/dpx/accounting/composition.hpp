#pragma once
/// \file
/// Approximate-DP composition theorems, each with its inverse (the per-step budget that meets
/// a target), and an accountant that applies them to pure / approximate-DP events.
///
/// All rules hold for k-fold ADAPTIVE composition of mechanisms that are each
/// (epsilon0, delta0)-DP with respect to the same neighbouring relation. They are upper bounds;
/// `kov_optimal_*` is the exact optimum over all (epsilon0, delta0)-DP mechanisms
/// (Kairouz, Oh & Viswanath 2015, Thm 3.3), the other rules are looser.

#include <cstdint>
#include <span>
#include <string>

#include "dpx/accounting/accountant.hpp"
#include "dpx/core/composition.hpp"

namespace dpx::accounting {

// ---- basic composition [Dwork & Roth 2014, Thm 3.16] ----------------------------------------

/// k-fold basic composition: (k epsilon0, k delta0). epsilon0 > 0, delta0 in [0, 1), k >= 1.
epsilon_delta basic_composition(double epsilon0, double delta0, std::int64_t k);
/// Inverse: the per-step (epsilon / k, delta / k). delta may be 0 (pure DP).
epsilon_delta basic_per_step(double epsilon, double delta, std::int64_t k);

// ---- advanced composition [Dwork, Rothblum & Vadhan 2010, Thm III.3; Dwork & Roth Thm 3.20] --

/// (sqrt(2k ln(1/delta_slack)) eps0 + k eps0 (e^eps0 - 1), k delta0 + delta_slack)
/// (the form used in Yuan & Peng 2023, Lemma 3.1). delta_slack in (0, 1).
epsilon_delta advanced_composition(double epsilon0,
                                   double delta0,
                                   std::int64_t k,
                                   double delta_slack);
/// Inverse: the largest epsilon0 whose k-fold advanced composition with slack delta_slack is
/// <= epsilon (bisection, returned from the safe side). One home in dpx::core (the solvers use
/// it too).
using core::advanced_per_step_epsilon;

// ---- Kairouz-Oh-Viswanath bounds ----------------------------------------------------------

/// Heterogeneous composition bound of Kairouz, Oh & Viswanath 2015, Thm 3.5: for
/// (eps_i, delta_i)-DP mechanisms and delta_slack in (0, 1],
///   eps = min{ sum eps_i,
///              sum eps_i (e^eps_i - 1)/(e^eps_i + 1) + sqrt(2 sum eps_i^2 log(e + sqrt(sum
///              eps_i^2)/delta_slack)),
///              sum eps_i (e^eps_i - 1)/(e^eps_i + 1) + sqrt(2 sum eps_i^2 log(1/delta_slack)) },
///   delta = 1 - (1 - delta_slack) prod (1 - delta_i).
/// epsilons and deltas have equal length (>= 1).
epsilon_delta kov_composition(std::span<const double> epsilons,
                              std::span<const double> deltas,
                              double delta_slack);
/// Homogeneous form (Thm 3.4) of kov_composition.
epsilon_delta kov_composition(double epsilon0, double delta0, std::int64_t k, double delta_slack);
/// Inverse of the homogeneous Thm 3.4 bound: largest epsilon0 with eps <= epsilon.
double kov_per_step_epsilon(double epsilon, std::int64_t k, double delta_slack);

/// Largest k the kov_optimal_* functions take (they throw std::invalid_argument above it).
inline constexpr std::int64_t kov_optimal_max_k = 10'000'000;

/// Optimal homogeneous composition [Kairouz, Oh & Viswanath 2015, Thm 3.3, in the closed form
/// of Murtagh & Vadhan 2016, Thm 1.5]: the k-fold composition of (eps0, delta0)-DP mechanisms
/// is (eps, delta)-DP iff delta >= 1 - (1 - delta0)^k (1 - S(eps)), with
///   S(eps) = (1 + e^eps0)^-k sum_{l=0}^{k} C(k, l) max(0, e^{l eps0} - e^eps e^{(k-l) eps0}).
/// Evaluated in log space (log-sum-exp over the O(sqrt k) terms around the largest one, the
/// rest bounded from above, so truncation never lowers delta), finite for any eps; k is at most
/// kov_optimal_max_k (beyond it the log-binomial coefficients lose precision;
/// kov_composition, Thm 3.4, has no limit). This returns that optimal delta for eps >= 0.
double kov_optimal_delta(double epsilon0, double delta0, std::int64_t k, double epsilon);
/// Smallest eps >= 0 with kov_optimal_delta(eps) <= delta (bisection, safe side: the returned eps
/// satisfies the inequality). Returns +inf if even eps = k eps0 does not reach delta
/// (i.e. delta < 1 - (1 - delta0)^k).
double kov_optimal_epsilon(double epsilon0, double delta0, std::int64_t k, double delta);
/// Inverse: the largest eps0 such that k-fold composition of (eps0, delta0)-DP mechanisms is
/// (epsilon, delta)-DP under the optimal theorem (bisection, safe side).
double kov_optimal_per_step_epsilon(double epsilon, double delta, std::int64_t k, double delta0);

// ---- accountant over pure / approximate-DP events ----------------------------------------

/// Amplification by subsampling of an (epsilon, delta)-DP mechanism run on the sample
/// [Balle, Barthe & Gaboardi 2018]. Poisson sampling with rate q, add/remove neighbours
/// (Thm 8): (log(1 + q (e^eps - 1)), q delta). q in (0, 1].
epsilon_delta amplify_poisson(double epsilon, double delta, double q);
/// Sampling a fixed-size batch of m of the n records without replacement, replace-one
/// (substitution) neighbours, the mechanism being (epsilon, delta)-DP under substitution on
/// batches (Thm 9): (log(1 + (m/n)(e^eps - 1)), (m/n) delta). 1 <= m <= n. (Under add/remove
/// neighbours a fixed batch size is not well defined; use Poisson sampling there.)
epsilon_delta amplify_without_replacement(double epsilon,
                                          double delta,
                                          std::int64_t batch,
                                          std::int64_t n);

/// dpx's one enum of composition rules (dpx/core/composition.hpp). An approx_dp_accountant
/// applies basic (sum eps_i, sum delta_i), advanced (DRV, heterogeneous form:
/// sqrt(2 ln(1/d') sum eps_i^2) + sum eps_i(e^eps_i - 1)) or kov (KOV Thm 3.5 bound; the
/// exact optimal Thm 3.3 when all events are identical, at most kov_optimal_max_k of them).
using core::composition_rule;
using core::to_string;
/// Parses "basic" | "advanced" | "kov"; throws core::invalid_argument_error otherwise.
composition_rule parse_composition_rule(const std::string& s);

/// Accountant for events with an (eps, delta)-DP description: pure_dp, approx_dp, laplace
/// (1/noise_multiplier-DP), randomized_response (eps-DP), discrete_laplace (sensitivity/scale
/// -DP). Gaussian-type and zCDP events are rejected (they have no single (eps, delta) pair; use
/// the RDP, zCDP or PLD accountants).
class approx_dp_accountant final : public accountant {
 public:
  /// rule: basic, advanced or kov (throws core::invalid_argument_error otherwise).
  explicit approx_dp_accountant(composition_rule rule);
  std::string name() const override { return to_string(rule_); }
  bool supports(const core::privacy_event& e) const override;
  using accountant::compose;  // compose(const core::event_log&)
  void compose(const core::privacy_event& e, std::int64_t count = 1) override;
  /// +inf when delta is below the sum of the events' own deltas (no finite guarantee).
  double epsilon(double delta) const override;
  double delta(double epsilon) const override;

 private:
  composition_rule rule_;
  core::event_log ledger_;  // merged: one run per distinct event
};

}  // namespace dpx::accounting
