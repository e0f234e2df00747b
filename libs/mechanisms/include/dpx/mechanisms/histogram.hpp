#pragma once
/// \file
/// Private histograms:
///  * stable_histogram — the thresholded ("stability-based") histogram over unbounded bins of
///    docs/theory/dependent-data.md §3.1 (Roth & Avella-Medina 2025, Algorithm 2 and Lemma C.1;
///    after Karwa & Vadhan 2018, Lemma 2.3). Central model, replace-one neighbours.
///  * local_histogram — the local randomized-response histogram with debiasing of §5.1
///    (Roth & Avella-Medina 2025, Algorithm 7, Lemma 6.3).

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/discrete.hpp"
#include "dpx/mechanisms/laplace.hpp"

namespace dpx::mechanisms {

/// Equal-width bins B_k = (origin + (k - 1/2) width, origin + (k + 1/2) width], k in Z
/// (half-open on the left, centre origin + k width): docs/theory/dependent-data.md §3.2 with width
/// = 2 tau, origin 0.
struct bin_grid {
  double width = 1.0;   ///< bin width (finite, > 0)
  double origin = 0.0;  ///< centre of bin 0 (finite)
  /// k(x) = ceil(t - 1/2) with t = (x - origin) / width (docs/theory/dependent-data.md §3.2),
  /// evaluated so that the half-open edges are exact in t: the first guess is corrected by exact
  /// comparisons with k -+ 1/2 (t - 1/2 alone can round across an edge). x must be finite, |t| <
  /// 2^51.
  std::int64_t index(double x) const {
    return static_cast<std::int64_t>(index_of_t((x - origin) / width));
  }
  /// The edge-exact ceil(t - 1/2) on a double t.
  static double index_of_t(double t) {
    double k = std::ceil(t - 0.5);
    k = (t <= k - 0.5) ? k - 1.0 : k;
    k = (t > k + 0.5) ? k + 1.0 : k;
    return k;
  }
  /// Centre of bin k.
  double centre(std::int64_t k) const { return origin + static_cast<double>(k) * width; }
  /// Throws unless width > 0 and both fields are finite.
  void validate() const;
};

/// Sparse output of a stable histogram: the released bins in increasing order of index.
struct sparse_histogram {
  std::vector<std::int64_t> bins;  ///< indices k of bins with a non-zero release
  std::vector<double> values;      ///< released frequencies p~_k (>= threshold), same order
  /// Number of occupied bins: NOT private (an exact count of the data's distinct bins; only
  /// these bins are noised). Do not publish it with the release.
  std::size_t occupied = 0;
  std::size_t n = 0;       ///< number of records
  double threshold = 0.0;  ///< frequency threshold t used
  /// argmax_k p~_k (ties: smallest k, docs/theory/dependent-data.md §3.2); false if nothing was
  /// released (failure).
  bool argmax(std::int64_t& k) const;
};

/// How the stable histogram's noise is drawn.
enum class histogram_noise {
  /// Algorithm 2 exactly: Lap(0, 2/(eps n)) on frequencies, threshold 2 ln(2/delta)/(eps n) + 1/n.
  /// Research-grade double noise (fast; NOT float-safe, see laplace.hpp): ask for it by name.
  laplace,
  /// Float-safe (the default): exact discrete Laplace of scale tau >= 2/eps on the integer
  /// COUNTS (discrete.hpp), count threshold T = ceil(1 + tau ln(2/delta)); release (c + Z) / n
  /// when c + Z >= T. Same three-case proof: an appearing bin passes with probability
  /// r^(T-1) / (1 + r) <= delta / 2 (r = e^(-1/tau); see count_threshold()).
  discrete_laplace,
};

/// The stable histogram (docs/theory/dependent-data.md §3.1): for each occupied bin k (c_k > 0),
/// release the noisy count if it passes the threshold, else 0; empty bins release exactly 0 and
/// draw no noise. (eps, delta)-DP under replace-one neighbours (Lemma C.1): same bin -> output
/// unchanged; two occupied bins change by one count each (L1 sensitivity 2); a bin that appears
/// (or vanishes) passes the threshold with probability <= delta/2.
///  * discrete_laplace (default, float-safe): c_k + Z, Z exact discrete Laplace of scale
///    tau >= 2/eps, released as (c_k + Z)/n when c_k + Z >= T (count_threshold()).
///  * laplace (research-grade, Algorithm 2 as printed): p^_k + Lap(0, 2/(eps n)) released when
///    >= t = (2/(eps n)) ln(2/delta) + 1/n; an appearing bin passes with probability
///    (1/2) exp(-ln(2/delta)) = delta/4.
class stable_histogram {
 public:
  /// epsilon finite > 0, delta in (0, 1). The default noise is the float-safe discrete Laplace
  /// on counts; histogram_noise::laplace (double noise) is the explicit research-grade choice.
  static stable_histogram calibrate(double epsilon,
                                    double delta,
                                    histogram_noise noise = histogram_noise::discrete_laplace);

  double epsilon() const noexcept { return epsilon_; }
  double delta() const noexcept { return delta_; }
  histogram_noise noise() const noexcept { return noise_; }
  /// Noise scale in frequency units: 2 / (eps n) (laplace), or tau / n for the discrete Laplace
  /// of scale tau on counts (count_noise()).
  double noise_scale(std::size_t n) const;
  /// Frequency threshold t = (2/(eps n)) ln(2/delta) + 1/n (laplace noise), or T / n.
  double threshold(std::size_t n) const;
  /// Integer noise law and count threshold of the discrete_laplace variant.
  discrete_laplace count_noise() const;
  std::int64_t count_threshold() const;

  /// Release from bin indices, one per record (n = keys.size() >= 1).
  template <std::uniform_random_bit_generator G>
  sparse_histogram release_bins(std::span<const std::int64_t> keys, G& g) const {
    if (keys.empty())
      core::throw_invalid("stable_histogram::release", "data", "empty", "must be non-empty");
    sparse_histogram h;
    std::vector<std::uint64_t> counts;
    count_bins(keys, h.bins, counts);
    h.n = keys.size();
    h.occupied = h.bins.size();
    h.threshold = threshold(h.n);
    const double inv_n = 1.0 / static_cast<double>(h.n);
    std::size_t out = 0;
    if (noise_ == histogram_noise::laplace) {
      h.values.resize(h.bins.size());
      laplace::from_scale(noise_scale(h.n)).fill(h.values, g);
      for (std::size_t i = 0; i < h.bins.size(); ++i) {
        const double v = static_cast<double>(counts[i]) * inv_n + h.values[i];
        if (v >= h.threshold) {
          h.bins[out] = h.bins[i];
          h.values[out++] = v;
        }
      }
    } else {
      const auto dl = count_noise();
      const std::int64_t thr = count_threshold();
      h.values.resize(h.bins.size());
      detail::pooled_words<G> w(g);
      for (std::size_t i = 0; i < h.bins.size(); ++i) {
        const std::int64_t c =
            static_cast<std::int64_t>(counts[i]) +
            detail::discrete_laplace(w, dl.scale_denominator(), dl.scale_numerator());
        if (c >= thr) {
          h.bins[out] = h.bins[i];
          h.values[out++] = static_cast<double>(c) * inv_n;
        }
      }
    }
    h.bins.resize(out);
    h.values.resize(out);
    return h;
  }
  /// Release from data and a bin grid (n = x.size() >= 1, x finite).
  template <std::uniform_random_bit_generator G>
  sparse_histogram release(std::span<const double> x, const bin_grid& grid, G& g) const {
    core::check_nonempty_finite_span("stable_histogram::release", "x", x);
    grid.validate();
    std::vector<std::int64_t> keys(x.size());
    bin_indices(x, grid, keys);
    return release_bins(keys, g);
  }

  /// approx_dp_event{epsilon, delta}.
  core::privacy_event event() const { return core::approx_dp_event{epsilon_, delta_}; }
  core::protection protects() const noexcept {
    return {core::neighbouring::replace_one, core::privacy_unit::item};
  }

  /// Counts of the distinct keys (sorted): dense counting when the key range is small
  /// (<= 4 n + 1024), otherwise a sort. Public for tests.
  static void count_bins(std::span<const std::int64_t> keys,
                         std::vector<std::int64_t>& bins,
                         std::vector<std::uint64_t>& counts);
  /// keys[i] = grid.index(x[i]) clamped to [−2^62, 2^62] (vectorised; never throws on data).
  static void bin_indices(std::span<const double> x,
                          const bin_grid& grid,
                          std::span<std::int64_t> keys);

 private:
  stable_histogram(double eps, double delta, histogram_noise noise)
      : epsilon_(eps), delta_(delta), noise_(noise) {}
  double epsilon_, delta_;
  histogram_noise noise_;
};

/// Local randomized-response histogram over N bins (docs/theory/dependent-data.md §5.1, Algorithm
/// 7): user i one-hot encodes its bin (all zeros if outside every bin) and flips EACH bit
/// independently by binary RR at budget epsilon/2 (keep with probability pi = e^(eps/2) / (1 +
/// e^(eps/2))); changing x_i changes at most two bits, so each user's report is epsilon-LDP. The
/// server averages and debiases: p~_k = (mean_k - (1 - pi)) / (2 pi - 1) (2 pi - 1 = tanh(eps/4)).
/// As run, pi' = T / 2^64 < pi (see randomized_response.hpp); estimates debias with pi'.
class local_histogram {
 public:
  /// epsilon finite > 0 (total per user), bins >= 1.
  static local_histogram calibrate(double epsilon, std::int64_t bins);

  double epsilon() const noexcept { return epsilon_; }
  std::int64_t bins() const noexcept { return bins_; }
  /// pi' (per-bit keep probability, as run).
  double keep_probability() const noexcept { return static_cast<double>(keep_) * 0x1p-64; }
  /// Exact probability of a whole report (bits) given the user's bin (-1 = outside all bins).
  double report_probability(std::span<const std::uint8_t> report, std::int64_t bin) const;

  /// One user's report: bits[j] in {0,1}, bits.size() == bins(); bin in [-1, bins) (-1: none).
  template <std::uniform_random_bit_generator G>
  void randomize(std::int64_t bin, std::span<std::uint8_t> bits, G& g) const {
    check_bin("local_histogram::randomize", bin);
    core::check_size(
        "local_histogram::randomize", "bits", bits.size(), static_cast<std::size_t>(bins_));
    for (std::int64_t j = 0; j < bins_; ++j) {
      const bool truth = (j == bin);
      const bool keep = rng::detail::bits64(g) < keep_;
      bits[static_cast<std::size_t>(j)] = static_cast<std::uint8_t>(keep ? truth : !truth);
    }
  }
  /// Simulates all users (bins_of_users[i] in [-1, bins)) and returns the number of reported
  /// ones per bin (the server's sufficient statistic). O(n bins) random words.
  template <std::uniform_random_bit_generator G>
  std::vector<std::uint64_t> report_counts(std::span<const std::int64_t> bins_of_users,
                                           G& g) const {
    if (bins_of_users.empty())
      core::throw_invalid(
          "local_histogram::report_counts", "bins_of_users", "empty", "must be non-empty");
    for (auto b : bins_of_users) check_bin("local_histogram::report_counts", b);
    std::vector<std::uint64_t> ones(static_cast<std::size_t>(bins_), 0);
    detail::pooled_words<G> w(g);
    for (auto b : bins_of_users)
      for (std::int64_t j = 0; j < bins_; ++j) {
        const bool keep = w.next64() < keep_;
        ones[static_cast<std::size_t>(j)] += static_cast<std::uint64_t>(keep == (j == b));
      }
    return ones;
  }
  /// Debiased frequency estimates from reported-one counts and n users (unbiased).
  std::vector<double> estimate(std::span<const std::uint64_t> ones, std::uint64_t n) const;
  /// Exact variance of one estimate when the bin's true frequency is p, with n users:
  /// lambda (1 - lambda) / (n (2 pi' - 1)^2), lambda = p (2 pi' - 1) + 1 - pi'.
  double estimator_variance(double p, std::uint64_t n) const;

  /// pure_dp_event{epsilon} (local: per user report).
  core::privacy_event event() const { return core::pure_dp_event{epsilon_}; }
  core::protection protects() const noexcept {
    return {core::neighbouring::replace_one, core::privacy_unit::user};
  }

 private:
  local_histogram(double eps, std::int64_t bins, std::uint64_t keep)
      : epsilon_(eps), bins_(bins), keep_(keep) {}
  void check_bin(const char* fn, std::int64_t b) const;
  double epsilon_;
  std::int64_t bins_;
  std::uint64_t keep_;  // pi' = keep_ / 2^64
};

}  // namespace dpx::mechanisms
