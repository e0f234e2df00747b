#include "dpx/mechanisms/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dpx::mechanisms {

void bin_grid::validate() const {
  core::check_positive("bin_grid::validate", "width", width);
  core::check_finite("bin_grid::validate", "origin", origin);
}

bool sparse_histogram::argmax(std::int64_t& k) const {
  if (bins.empty()) return false;
  std::size_t best = 0;
  for (std::size_t i = 1; i < bins.size(); ++i)
    if (values[i] > values[best]) best = i;  // strict: ties keep the smallest k (sorted)
  k = bins[best];
  return true;
}

stable_histogram stable_histogram::calibrate(double epsilon, double delta, histogram_noise noise) {
  const char* fn = "stable_histogram::calibrate";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  return stable_histogram(epsilon, delta, noise);
}

double stable_histogram::noise_scale(std::size_t n) const {
  core::check_at_least("stable_histogram::noise_scale", "n", static_cast<long long>(n), 1);
  if (noise_ == histogram_noise::discrete_laplace)
    return count_noise().scale() / static_cast<double>(n);
  return 2.0 / (epsilon_ * static_cast<double>(n));
}

double stable_histogram::threshold(std::size_t n) const {
  core::check_at_least("stable_histogram::threshold", "n", static_cast<long long>(n), 1);
  const double dn = static_cast<double>(n);
  if (noise_ == histogram_noise::discrete_laplace)
    return static_cast<double>(count_threshold()) / dn;
  // Roth & Avella-Medina 2025, Algorithm 2 step 3 (docs/theory/dependent-data.md §3.1; §10 item
  // 2: ln(2/delta), not Lemma D.9's ln(1/delta)).
  return 2.0 / (epsilon_ * dn) * std::log(2.0 / delta_) + 1.0 / dn;
}

discrete_laplace stable_histogram::count_noise() const {
  // Counts: two bins change by 1 each under replace-one, L1 sensitivity 2: scale >= 2/eps.
  return discrete_laplace::calibrate(epsilon_, 2, core::neighbouring::replace_one);
}

std::int64_t stable_histogram::count_threshold() const {
  // Z discrete Laplace of scale tau: P(Z = z) = ((1 - r)/(1 + r)) r^|z|, r = exp(-1/tau)
  // (Canonne, Kamath & Steinke 2020, discrete Laplace), so for m >= 1
  // P(Z >= m) = ((1 - r)/(1 + r)) sum_{z >= m} r^z = r^m / (1 + r). A bin that appears has
  // count 1 and passes with P(1 + Z >= T) = r^(T-1) / (1 + r); T - 1 >= tau ln(2/delta) makes
  // it <= (delta/2) / (1 + r) < delta/2, the delta term of the three-case proof (Karwa & Vadhan
  // 2018, Lemma 2.3). tau is the exact rational scale the sampler draws with (count_noise()).
  const auto dl = count_noise();
  const long double tau = static_cast<long double>(dl.scale_numerator()) /
                          static_cast<long double>(dl.scale_denominator());
  const long double t = 1.0L + tau * std::log(2.0L / static_cast<long double>(delta_));
  return static_cast<std::int64_t>(std::ceil(t * (1.0L + 1e-15L)));  // round up, with margin
}

void stable_histogram::bin_indices(std::span<const double> x,
                                   const bin_grid& grid,
                                   std::span<std::int64_t> keys) {
  core::check_size("stable_histogram::bin_indices", "keys", keys.size(), x.size());
  const double o = grid.origin, w = grid.width;
  // Indices beyond ±2^62 are clamped to ±2^62: a fixed map of each record on its own, so a far
  // record lands in an extreme bin like any other. (An exception here would be a release-or-
  // error switch controlled by one record, and its message would quote that record.)
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double c =
        bin_grid::index_of_t((x[i] - o) / w);  // docs/theory/dependent-data.md §3.2 bin index
    keys[i] = static_cast<std::int64_t>(std::clamp(c, -0x1p62, 0x1p62));
  }
}

void stable_histogram::count_bins(std::span<const std::int64_t> keys,
                                  std::vector<std::int64_t>& bins,
                                  std::vector<std::uint64_t>& counts) {
  bins.clear();
  counts.clear();
  if (keys.empty()) return;
  const auto [mn_it, mx_it] = std::minmax_element(keys.begin(), keys.end());
  const std::int64_t mn = *mn_it, mx = *mx_it;
  const auto range = static_cast<std::uint64_t>(mx) - static_cast<std::uint64_t>(mn);
  if (range <= 4 * static_cast<std::uint64_t>(keys.size()) + 1024) {
    std::vector<std::uint32_t> dense(range + 1, 0);
    if (keys.size() < std::numeric_limits<std::uint32_t>::max()) {
      for (auto k : keys) ++dense[static_cast<std::uint64_t>(k) - static_cast<std::uint64_t>(mn)];
      for (std::uint64_t j = 0; j <= range; ++j)
        if (dense[j] != 0) {
          bins.push_back(static_cast<std::int64_t>(static_cast<std::uint64_t>(mn) + j));
          counts.push_back(dense[j]);
        }
      return;
    }
  }
  std::vector<std::int64_t> sorted(keys.begin(), keys.end());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    bins.push_back(sorted[i]);
    counts.push_back(j - i);
    i = j;
  }
}

// ---- local histogram ----------------------------------------------------------------------

local_histogram local_histogram::calibrate(double epsilon, std::int64_t bins) {
  const char* fn = "local_histogram::calibrate";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_at_least(fn, "bins", bins, 1);
  // pi = e^(eps/2) / (1 + e^(eps/2)) = 1 / (1 + e^(-eps/2)); as run pi' = T / 2^64 with
  // T = floor(pi 2^64) - 2^12 < pi 2^64 (so each bit is at most eps/2-LDP).
  const long double pi = 1.0L / (1.0L + std::exp(-static_cast<long double>(epsilon) / 2.0L));
  const long double scaled = std::ldexp(pi, 64);
  std::uint64_t t;
  if (scaled >= 0x1p64L - 8192.0L)
    t = ~std::uint64_t{0} - 8192;
  else
    t = static_cast<std::uint64_t>(std::floor(scaled)) - 4096;
  return local_histogram(epsilon, bins, t);
}

void local_histogram::check_bin(const char* fn, std::int64_t b) const {
  if (b < -1 || b >= bins_)
    core::throw_invalid(fn,
                        "bin",
                        std::to_string(b),
                        "must be -1 (outside all bins) or in [0, " + std::to_string(bins_) + ")");
}

double local_histogram::report_probability(std::span<const std::uint8_t> report,
                                           std::int64_t bin) const {
  check_bin("local_histogram::report_probability", bin);
  core::check_size("local_histogram::report_probability",
                   "report",
                   report.size(),
                   static_cast<std::size_t>(bins_));
  const long double pi = static_cast<long double>(keep_) * 0x1p-64L;
  long double p = 1.0L;
  for (std::int64_t j = 0; j < bins_; ++j) {
    const bool truth = (j == bin);
    p *= (report[static_cast<std::size_t>(j)] != 0) == truth ? pi : 1.0L - pi;
  }
  return static_cast<double>(p);
}

std::vector<double> local_histogram::estimate(std::span<const std::uint64_t> ones,
                                              std::uint64_t n) const {
  const char* fn = "local_histogram::estimate";
  core::check_size(fn, "ones", ones.size(), static_cast<std::size_t>(bins_));
  core::check_at_least(fn, "n", static_cast<long long>(n), 1);
  const double pi = keep_probability();
  std::vector<double> est(ones.size());
  for (std::size_t k = 0; k < ones.size(); ++k) {
    if (ones[k] > n) core::throw_invalid(fn, "ones", static_cast<double>(ones[k]), "must be <= n");
    est[k] =
        (static_cast<double>(ones[k]) / static_cast<double>(n) - (1.0 - pi)) / (2.0 * pi - 1.0);
  }
  return est;
}

double local_histogram::estimator_variance(double p, std::uint64_t n) const {
  const char* fn = "local_histogram::estimator_variance";
  core::check_closed_interval(fn, "p", p, 0.0, 1.0);
  core::check_at_least(fn, "n", static_cast<long long>(n), 1);
  const double pi = keep_probability();
  const double lambda = p * (2.0 * pi - 1.0) + 1.0 - pi;
  return lambda * (1.0 - lambda) / (static_cast<double>(n) * (2.0 * pi - 1.0) * (2.0 * pi - 1.0));
}

}  // namespace dpx::mechanisms
