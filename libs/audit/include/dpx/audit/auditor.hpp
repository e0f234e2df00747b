#pragma once
/// \file
/// Black-box privacy auditing from samples: Clopper–Pearson bounds, the threshold auditor with
/// held-out threshold selection, and a histogram estimate of the hockey-stick divergence
/// (privacy profile) of low-dimensional outputs.
///
/// Setting. A mechanism M is run `trials` times on each of two neighbouring inputs D and D'; a
/// scalar statistic s(.) of each output is recorded (s0 from M(D), s1 from M(D')). For any
/// rejection set S, (epsilon, delta)-DP implies both
///     P(M(D') in S) <= e^eps P(M(D) in S) + delta   and
///     P(M(D) in S^c) <= e^eps P(M(D') in S^c) + delta
/// (Dwork & Roth 2014, Def. 2.4 applied to S and S^c, with D and D' swapped). Writing
/// FPR = P(M(D) in S) and FNR = P(M(D') not in S) (the errors of the test "guess D' iff in S"):
///     eps >= log((1 - delta - FNR) / FPR)    and    eps >= log((1 - delta - FPR) / FNR)
/// (Kairouz, Oh, Viswanath 2015, Thm. 2.1; Jagielski, Ullman, Oprea 2020, "Auditing
/// differentially private machine learning", Sec. 3; Nasr et al. 2021). Both expressions are
/// decreasing in FPR and FNR, so replacing the two rates by upper confidence bounds gives lower
/// bounds on eps.
///
/// Confidence (the union bound). The auditor computes ONE-SIDED Clopper–Pearson upper bounds
/// FPR_ub and FNR_ub, each at level 1 - alpha/2 (alpha = 1 - confidence). By the union bound both
/// hold simultaneously with probability >= 1 - alpha, and on that event BOTH directions above are
/// valid lower bounds at once, so their maximum is a valid lower bound at confidence 1 - alpha:
/// the two directions need no further split because they use the same two upper bounds.
///
/// Held-out selection. The rejection set S = {s >= t} or {s <= t} (and, with several candidate
/// statistics, which statistic) is chosen on a SELECTION split (the first selection_fraction of
/// each side's trials), and the rates are counted on the remaining EVALUATION split only. The
/// trials are i.i.d., so S is independent of the evaluation counts, which are then exact
/// binomials: the Clopper–Pearson bounds hold for the chosen S without any correction for
/// the search over thresholds. Each candidate is scored on the selection split by its bound at
/// the simultaneous level alpha/m (m = number of candidate tests, Bonferroni), which stops the
/// search from picking tail thresholds whose few selection counts look extreme by chance; this
/// only affects which test is chosen (and so the power), never the validity.
///
/// Guarantee of the output: for a mechanism that IS (eps, delta)-DP for the pair audited,
/// P(epsilon_lower_bound > eps) <= alpha = 1 - confidence (over the trials' randomness).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dpx::audit {

// ---------------------------------------------------------------------------------------------
// Clopper–Pearson bounds (Clopper & Pearson 1934), through Boost.Math's inverse regularised
// incomplete beta function: the exact binomial tail inversion.

/// One-sided upper confidence bound for a binomial proportion p from k successes in n trials:
/// the largest p with P(Bin(n, p) <= k) >= alpha, i.e. the (1 - alpha) quantile of
/// Beta(k + 1, n - k) (= 1 when k = n). P(p <= upper) >= 1 - alpha.
/// Requires n >= 1, k <= n, alpha in (0, 1) (core::invalid_argument_error otherwise).
double clopper_pearson_upper(std::uint64_t k, std::uint64_t n, double alpha);
/// One-sided lower bound: the alpha quantile of Beta(k, n - k + 1) (= 0 when k = 0).
/// P(p >= lower) >= 1 - alpha.
double clopper_pearson_lower(std::uint64_t k, std::uint64_t n, double alpha);

/// A two-sided interval [lower, upper].
struct interval {
  double lower = 0;  ///< lower end, in [0, 1]
  double upper = 1;  ///< upper end, in [0, 1]
};
/// Two-sided Clopper–Pearson interval at confidence 1 - alpha (alpha/2 in each tail).
interval clopper_pearson_interval(std::uint64_t k, std::uint64_t n, double alpha);

/// max over both directions of log((1 - delta - fnr) / fpr) and log((1 - delta - fpr) / fnr),
/// floored at 0 (no evidence). A direction whose numerator is <= 0 contributes 0; a zero
/// denominator with a positive numerator gives +infinity. fpr, fnr in [0, 1], delta in [0, 1).
double epsilon_from_rates(double fpr, double fnr, double delta);

// ---------------------------------------------------------------------------------------------
// The threshold auditor.

/// Which side of the threshold is the rejection set S ("guess D'").
enum class test_side {
  greater_equal,  ///< S = {s >= t}
  less_equal,     ///< S = {s <= t}
};
std::string to_string(test_side s);

/// Options of the auditor.
struct audit_options {
  /// Confidence 1 - alpha of the lower bound, in (0, 1).
  double confidence = 0.95;
  /// delta of the (epsilon, delta) claim being audited, in [0, 1).
  double delta = 0.0;
  /// Fraction of each side's trials used to choose the test (statistic, threshold, side);
  /// the rest evaluate it. In (0, 1); both splits must be non-empty.
  double selection_fraction = 0.5;
  /// Maximum number of candidate thresholds per statistic (pooled selection quantiles; all
  /// distinct values when there are fewer), >= 1.
  std::size_t max_thresholds = 256;
  /// Throws core::invalid_argument_error naming the field.
  void validate() const;
};

/// Result of one audit.
struct audit_result {
  /// Lower bound on epsilon at confidence `confidence` (>= 0; +inf when FPR_ub or FNR_ub is 0,
  /// which Clopper–Pearson never gives for n >= 1).
  double epsilon_lower_bound = 0;
  double confidence = 0.95;           ///< 1 - alpha
  double delta = 0;                   ///< delta used in the bound
  std::size_t trials = 0;             ///< trials per side (selection + evaluation)
  std::size_t selection_trials = 0;   ///< per side, used to choose the test
  std::size_t evaluation_trials = 0;  ///< per side, used for the counts below
  std::size_t statistic = 0;          ///< index of the chosen statistic (multi-statistic audits)
  double threshold = 0;               ///< chosen threshold t
  test_side side = test_side::greater_equal;  ///< chosen rejection side
  std::uint64_t false_positives = 0;          ///< evaluation trials of D inside S
  std::uint64_t false_negatives = 0;          ///< evaluation trials of D' outside S
  double fpr = 0;                             ///< false_positives / evaluation_trials
  double fnr = 0;                             ///< false_negatives / evaluation_trials
  double fpr_upper = 1;                       ///< Clopper–Pearson upper bound at 1 - alpha/2
  double fnr_upper = 1;                       ///< Clopper–Pearson upper bound at 1 - alpha/2
  /// The chosen test's selection score: its bound on the selection split with Clopper–Pearson
  /// at the simultaneous level alpha/m over the m candidate tests (a diagnostic only).
  double selection_epsilon = 0;
};

/// Audits from one statistic: s0[i] from M(D), s1[i] from M(D') (equal, >= 2 sizes; finite).
audit_result audit_samples(std::span<const double> s0,
                           std::span<const double> s1,
                           const audit_options& options = {});

/// Audits from several candidate statistics of the same trials: s0[j][i] is statistic j of
/// trial i of M(D). The statistic is chosen on the selection split like the threshold.
audit_result audit_samples(const std::vector<std::vector<double>>& s0,
                           const std::vector<std::vector<double>>& s1,
                           const audit_options& options = {});

// ---------------------------------------------------------------------------------------------
// Privacy-profile (hockey-stick divergence) estimate for 1-D outputs.

/// Options of the histogram estimator.
struct profile_options {
  /// Number of bins (>= 1): equal-mass bins of the pooled sample (edges at pooled quantiles);
  /// when the pooled sample has at most `bins` distinct values, one bin per value (exact for
  /// discrete outputs).
  std::size_t bins = 64;
  void validate() const;
};

/// Plug-in estimate of the privacy profile delta(eps) = max(H_eps(P||Q), H_eps(Q||P)),
/// H_eps(P||Q) = sum_b max(0, P(b) - e^eps Q(b)) over the bins (the hockey-stick divergence of
/// the binned outputs; Balle, Barthe, Gaboardi 2018, Thm. 1 characterises (eps, delta)-DP by it).
/// P, Q are the empirical bin frequencies of s0 and s1. What it estimates: binning is
/// post-processing, so the binned divergence is <= the true one; the plug-in is biased UPWARD
/// by sampling noise (by about sqrt(bins / trials)). It is an estimate, not a confidence bound:
/// use audit_samples for a rigorous lower bound. One value per entry of `epsilons` (>= 0).
std::vector<double> privacy_profile(std::span<const double> s0,
                                    std::span<const double> s1,
                                    std::span<const double> epsilons,
                                    const profile_options& options = {});

}  // namespace dpx::audit
