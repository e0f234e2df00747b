#include "dpx/mechanisms/randomized_response.hpp"

#include <cmath>
#include <string>

namespace dpx::mechanisms {

namespace {
// T = floor(p 2^64) - 2^12 with p = e^eps / (e^eps + k - 1) = 1 / (1 + (k - 1) e^-eps),
// evaluated in long double (relative error ~1e-19, i.e. a few units of 2^-64 at most).
std::uint64_t truth_threshold(double epsilon, std::int64_t k) {
  const long double p = 1.0L / (1.0L + static_cast<long double>(k - 1) *
                                           std::exp(-static_cast<long double>(epsilon)));
  const long double scaled = std::ldexp(p, 64);
  if (scaled >= 0x1p64L - 8192.0L) return ~std::uint64_t{0} - 8192;
  const auto t = static_cast<std::uint64_t>(std::floor(scaled));
  return t > 4096 ? t - 4096 : 0;
}
}  // namespace

randomized_response randomized_response::calibrate(double epsilon, std::int64_t categories) {
  const char* fn = "randomized_response::calibrate";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_at_least(fn, "categories", categories, 2);
  return randomized_response(epsilon, categories, truth_threshold(epsilon, categories));
}

double randomized_response::other_probability() const noexcept {
  // (1 - p') / (k - 1), with 1 - p' = (2^64 - T) / 2^64 computed exactly in integers.
  const std::uint64_t rest = (~threshold_) + 1;  // 2^64 - T (T >= 1)
  return static_cast<double>(rest) * 0x1p-64 / static_cast<double>(k_ - 1);
}

void randomized_response::check_category(const char* fn, std::int64_t x) const {
  if (x < 0 || x >= k_)
    core::throw_invalid(
        fn, "x", std::to_string(x), "must be a category in [0, " + std::to_string(k_) + ")");
}

double randomized_response::pmf(std::int64_t y, std::int64_t x) const {
  check_category("randomized_response::pmf", x);
  check_category("randomized_response::pmf", y);
  return y == x ? truth_probability() : other_probability();
}

std::vector<double> randomized_response::estimate_frequencies(
    std::span<const std::uint64_t> counts) const {
  const char* fn = "randomized_response::estimate_frequencies";
  core::check_size(fn, "counts", counts.size(), static_cast<std::size_t>(k_));
  std::uint64_t n = 0;
  for (auto c : counts) n += c;
  if (n == 0) core::throw_invalid(fn, "counts", "all zero", "must contain at least one report");
  const double p = truth_probability(), q = other_probability();
  std::vector<double> f(counts.size());
  for (std::size_t j = 0; j < counts.size(); ++j)
    f[j] = (static_cast<double>(counts[j]) / static_cast<double>(n) - q) / (p - q);
  return f;
}

double randomized_response::estimator_variance(double true_frequency, std::uint64_t n) const {
  const char* fn = "randomized_response::estimator_variance";
  core::check_closed_interval(fn, "true_frequency", true_frequency, 0.0, 1.0);
  core::check_at_least(fn, "n", static_cast<long long>(n), 1);
  const double p = truth_probability(), q = other_probability();
  const double lambda = true_frequency * (p - q) + q;
  return lambda * (1.0 - lambda) / (static_cast<double>(n) * (p - q) * (p - q));
}

binary_randomized_response binary_randomized_response::calibrate(double epsilon) {
  core::check_positive("binary_randomized_response::calibrate", "epsilon", epsilon);
  return binary_randomized_response(randomized_response::calibrate(epsilon, 2));
}

double binary_randomized_response::estimate_proportion(std::uint64_t ones, std::uint64_t n) const {
  const char* fn = "binary_randomized_response::estimate_proportion";
  core::check_at_least(fn, "n", static_cast<long long>(n), 1);
  if (ones > n) core::throw_invalid(fn, "ones", static_cast<double>(ones), "must be <= n");
  const double pi = truth_probability();
  return (static_cast<double>(ones) / static_cast<double>(n) - (1.0 - pi)) / (2.0 * pi - 1.0);
}

double binary_randomized_response::estimator_variance(double true_proportion,
                                                      std::uint64_t n) const {
  return rr_.estimator_variance(true_proportion, n);
}

double binary_randomized_response::estimated_variance(std::uint64_t ones, std::uint64_t n) const {
  const char* fn = "binary_randomized_response::estimated_variance";
  core::check_at_least(fn, "n", static_cast<long long>(n), 2);
  if (ones > n) core::throw_invalid(fn, "ones", static_cast<double>(ones), "must be <= n");
  const double pi = truth_probability();
  const double lam = static_cast<double>(ones) / static_cast<double>(n);
  return lam * (1.0 - lam) / (static_cast<double>(n - 1) * (2.0 * pi - 1.0) * (2.0 * pi - 1.0));
}

}  // namespace dpx::mechanisms
