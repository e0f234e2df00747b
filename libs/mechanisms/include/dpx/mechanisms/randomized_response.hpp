#pragma once
/// \file
/// Randomized response (local model): binary (Warner 1965) and k-ary / generalized RR
/// (Kairouz, Oh, Viswanath 2014; Wang, Blocki, Li, Jha 2017, "Locally differentially private
/// protocols for frequency estimation", Sec. 4.1 "direct encoding"), with unbiased frequency
/// estimators and their variances.
///
/// Mechanism: each user reports their true category x in {0, ..., k-1} with probability p and
/// each other category with probability q = (1 - p) / (k - 1), where ideally
/// p = e^eps / (e^eps + k - 1). Any two inputs give output pmfs with ratio p / q <= e^eps:
/// epsilon-LDP (every pair of inputs is "neighbouring"; protection unit = one user's value).
///
/// Exactness: the truth probability actually used is p' = T / 2^64 with T = floor(p 2^64) minus
/// a safety margin of 2^12 (so p' < p and the realised ratio p'/q' < e^eps); the other
/// categories are chosen by exact uniform integers. truth_probability() returns p' and the
/// estimators debias with p', so they are exactly unbiased for the mechanism as run.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/rng.hpp"

namespace dpx::mechanisms {

/// k-ary (generalized) randomized response. k = 2 is Warner's binary RR.
class randomized_response {
 public:
  /// epsilon finite and > 0; categories >= 2.
  static randomized_response calibrate(double epsilon, std::int64_t categories);

  double epsilon() const noexcept { return epsilon_; }
  std::int64_t categories() const noexcept { return k_; }
  /// p' = probability of reporting the true category (as run; slightly below the ideal p).
  double truth_probability() const noexcept { return static_cast<double>(threshold_) * 0x1p-64; }
  /// q' = (1 - p') / (k - 1), the probability of each particular other category.
  double other_probability() const noexcept;
  /// Exact output pmf P(report = y | input = x) of the mechanism as run.
  double pmf(std::int64_t y, std::int64_t x) const;

  /// Randomize one value x in [0, k). Throws if x is out of range.
  template <std::uniform_random_bit_generator G>
  std::int64_t randomize(std::int64_t x, G& g) const {
    check_category("randomized_response::randomize", x);
    return randomize_unchecked(x, g);
  }
  /// Randomize every value in place.
  template <std::uniform_random_bit_generator G>
  void privatize(std::span<std::int64_t> xs, G& g) const {
    if (xs.empty())
      core::throw_invalid("randomized_response::privatize", "xs", "empty", "must be non-empty");
    for (const auto x : xs) check_category("randomized_response::privatize", x);
    for (auto& x : xs) x = randomize_unchecked(x, g);
  }

  /// Unbiased frequency estimates from the counts of reports per category (Wang et al. 2017,
  /// Thm. 2): f_j = (c_j / n - q') / (p' - q'). counts.size() == k, n = sum of counts >= 1.
  std::vector<double> estimate_frequencies(std::span<const std::uint64_t> counts) const;
  /// Exact variance of the estimator f_j when the true frequency is f and there are n reports:
  /// lambda (1 - lambda) / (n (p' - q')^2), lambda = f (p' - q') + q' (Wang et al. 2017, Thm. 2).
  double estimator_variance(double true_frequency, std::uint64_t n) const;

  /// randomized_response_event{epsilon, k}.
  core::privacy_event event() const { return core::randomized_response_event{epsilon_, k_}; }
  /// Local model: every pair of inputs of one user (recorded as replace-one, unit user).
  core::protection protects() const noexcept {
    return {core::neighbouring::replace_one, core::privacy_unit::user};
  }

 private:
  randomized_response(double eps, std::int64_t k, std::uint64_t thr)
      : epsilon_(eps), k_(k), threshold_(thr) {}
  void check_category(const char* fn, std::int64_t x) const;
  template <std::uniform_random_bit_generator G>
  std::int64_t randomize_unchecked(std::int64_t x, G& g) const {
    if (rng::detail::bits64(g) < threshold_) return x;
    const auto j =
        static_cast<std::int64_t>(rng::uniform_below(g, static_cast<std::uint64_t>(k_ - 1)));
    return j < x ? j : j + 1;
  }
  double epsilon_;
  std::int64_t k_;
  std::uint64_t threshold_;  // p' = threshold_ / 2^64
};

/// Binary randomized response (Warner 1965): report the true bit with probability
/// pi = e^eps / (1 + e^eps) (as run: pi' slightly below), else its complement. epsilon-LDP.
class binary_randomized_response {
 public:
  static binary_randomized_response calibrate(double epsilon);

  double epsilon() const noexcept { return rr_.epsilon(); }
  /// pi' (as run).
  double truth_probability() const noexcept { return rr_.truth_probability(); }

  template <std::uniform_random_bit_generator G>
  bool randomize(bool x, G& g) const {
    return rr_.randomize(x ? 1 : 0, g) == 1;
  }
  /// Unbiased estimate of the proportion of ones: (ones/n - (1 - pi')) / (2 pi' - 1). n >= 1.
  double estimate_proportion(std::uint64_t ones, std::uint64_t n) const;
  /// Exact variance of that estimator for true proportion p and n reports:
  /// lambda (1 - lambda) / (n (2 pi' - 1)^2), lambda = p (2 pi' - 1) + 1 - pi'.
  double estimator_variance(double true_proportion, std::uint64_t n) const;
  /// Unbiased estimate of that variance from the data: lambda^ (1 - lambda^) / ((n - 1)(2pi'-1)^2).
  double estimated_variance(std::uint64_t ones, std::uint64_t n) const;

  core::privacy_event event() const { return rr_.event(); }
  core::protection protects() const noexcept { return rr_.protects(); }

 private:
  explicit binary_randomized_response(randomized_response rr) : rr_(rr) {}
  randomized_response rr_;
};

}  // namespace dpx::mechanisms
