#pragma once
/// \file
/// Stationary Gaussian series with a given autocovariance, and the covariance designs of the
/// paper's simulations (Roth & Avella-Medina 2025 §7.1.3; docs/theory/dependent-data.md §8–§9):
/// Toeplitz r^{|i−j|}, equicorrelated, fractional Gaussian noise.
///
/// Sampling (stationary_gaussian): exact circulant embedding [Davies & Harte 1987; Wood & Chan
/// 1994; Dietrich & Newsam 1997]. γ(0..n−1) is embedded in the first row c of a symmetric
/// circulant of even size M = 2m, m ≥ n−1 (M a 2·3·5·7-smooth FFT size): c_j = γ(min(j, M−j)),
/// with γ(k) for k ≥ n taken from the autocovariance function when one is given and 0
/// otherwise. Its eigenvalues λ_k = Σ_j c_j e^{−2πijk/M} (one real FFT) must be ≥ 0; then with
/// W Hermitian (W_0, W_{M/2} real N(0, λ), W_k = sqrt(λ_k/2)(Z_1 + iZ_2) for 0 < k < M/2)
/// X_j = M^{−1/2} Σ_k W_k e^{2πijk/M} has Cov(X_j, X_l) = c_{j−l} exactly, from M normals and one
/// complex-to-real FFT (FFTW). Eigenvalues in [−tolerance·λ_max, 0) are rounding and set to 0;
/// a more negative one makes the embedding fail: m is doubled (up to max_embedding_doublings
/// times, when an autocovariance function is available), then the sampler falls back to
/// Cholesky (LAPACK potrf through xtensor-blas, O(n³), n ≤ max_cholesky). A covariance that is
/// not positive definite is rejected with core::invalid_argument_error naming "autocovariance".

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "dpx/data/variates.hpp"

namespace dpx::data {

/// How stationary_gaussian draws.
enum class sampling_method {
  automatic,  ///< circulant embedding, Cholesky when the embedding is not nonnegative
  circulant,  ///< circulant embedding only (throws if it fails)
  cholesky,   ///< dense Cholesky only
};

/// Options of stationary_gaussian.
struct stationary_gaussian_options {
  double mean = 0.0;  ///< μ (finite)
  sampling_method method = sampling_method::automatic;
  std::size_t max_cholesky = 6000;    ///< largest n for the O(n³) fallback
  int max_embedding_doublings = 3;    ///< retries with m doubled
  double negative_tolerance = 1e-10;  ///< relative, see file comment
  void validate() const;
};

namespace detail {
struct aligned_deleter {
  void operator()(double* p) const noexcept;
};
/// SIMD-aligned (FFTW) scratch buffer.
using aligned_buffer = std::unique_ptr<double[], aligned_deleter>;
aligned_buffer allocate_aligned(std::size_t n);
struct stationary_state;
}  // namespace detail

/// Reusable scratch memory for stationary_gaussian draws (work_size() doubles, SIMD-aligned).
/// Drawing repeatedly into one workspace avoids allocating and first-touching M + 2 doubles per
/// draw (for n = 1e7 that is 160 MB of page faults, ≈ 10% of a draw). Not shareable between
/// threads while in use; results do not depend on whether a workspace is reused.
class stationary_workspace {
 public:
  stationary_workspace() = default;
  explicit stationary_workspace(std::size_t size)
      : b_(detail::allocate_aligned(size)), size_(size) {}
  double* data() noexcept { return b_.get(); }
  const double* data() const noexcept { return b_.get(); }
  std::size_t size() const noexcept { return size_; }

 private:
  detail::aligned_buffer b_;
  std::size_t size_ = 0;
};

/// Exact sampler for N(μ1, Γ_n), Γ_n the n×n Toeplitz matrix of an autocovariance γ.
class stationary_gaussian {
 public:
  /// From γ(0..n−1) (n = autocovariance.size() ≥ 1); the embedding pads with zeros.
  explicit stationary_gaussian(std::vector<double> autocovariance,
                               stationary_gaussian_options options = {});
  /// From an autocovariance function γ(k), k ≥ 0, for a path of length n ≥ 1; the embedding
  /// uses γ(k) for k up to M/2.
  stationary_gaussian(std::size_t n,
                      const std::function<double(std::size_t)>& autocovariance,
                      stationary_gaussian_options options = {});

  std::size_t size() const noexcept;
  /// circulant or cholesky (the method actually used).
  sampling_method method() const noexcept;
  /// M (0 for Cholesky).
  std::size_t embedding_size() const noexcept;
  /// Smallest eigenvalue of the last embedding tried, before clipping (diagnostic).
  double min_embedding_eigenvalue() const noexcept;
  const std::vector<double>& autocovariance() const noexcept;
  /// γ(h) for h < size() (invalid_argument naming "h" beyond: γ is only stored up to n−1).
  double autocovariance(std::size_t h) const;
  double autocorrelation(std::size_t h) const { return autocovariance(h) / variance(); }
  /// Covariance of (X_1..X_k), the k×k Toeplitz matrix of γ, for k ≤ size() (invalid_argument
  /// naming "n" beyond).
  xt::xtensor<double, 2> covariance(std::size_t k) const;
  /// First row of the covariance the sampler actually produces: the inverse FFT of the clipped
  /// embedding eigenvalues (circulant) or row 0 of L Lᵀ (Cholesky). Equals γ(0..n−1) up to
  /// rounding (tests check 1e-12).
  std::vector<double> implied_autocovariance() const;

  /// Scratch doubles a draw needs, and how many of them are N(0,1) draws.
  std::size_t work_size() const noexcept;
  std::size_t normals_needed() const noexcept;

  /// A workspace of work_size() doubles for sample_into.
  stationary_workspace make_workspace() const { return stationary_workspace(work_size()); }

  template <std::uniform_random_bit_generator G>
  void sample_into(std::span<double> out, G& g) const {
    auto work = make_workspace();
    sample_into(out, g, work);
  }
  /// As sample_into(out, g), in a caller-owned workspace (size ≥ work_size(), else
  /// invalid_argument naming "workspace"). Same draws, same bits.
  template <std::uniform_random_bit_generator G>
  void sample_into(std::span<double> out, G& g, stationary_workspace& work) const {
    check_workspace(work, out);
    // Normals are drawn and scaled by sqrt(λ_k) chunk by chunk while the chunk is in cache
    // (one pass over the M doubles instead of two). Chunks are multiples of normal_chunk, so
    // the normals are bit-identical to one fill_standard_normal over all of them.
    double* w = work.data();
    const std::size_t k = normals_needed();
    constexpr std::size_t chunk = 4 * detail::normal_chunk;
    for (std::size_t i = 0; i < k; i += chunk) {
      const std::size_t len = std::min(chunk, k - i);
      fill_standard_normal(g, std::span<double>(w + i, len));
      scale_normals(w, i, len);
    }
    finish(w, out);
  }
  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 1> sample(G& g) const {
    xt::xtensor<double, 1> x = xt::xtensor<double, 1>::from_shape({size()});
    sample_into(std::span<double>(x.data(), size()), g);
    return x;
  }
  /// Turns work (its first normals_needed() entries i.i.d. N(0,1); work_size() doubles,
  /// allocated by detail::allocate_aligned, overwritten) into a path in out (size()).
  void transform(double* work, std::span<double> out) const;

  double mean() const noexcept;
  double variance() const noexcept { return autocovariance().front(); }
  /// λ_max(Γ_n) (spectral.hpp).
  double log_sobolev() const;
  double marginal_log_sobolev() const noexcept { return variance(); }
  double mean_variance_constant() const;

 private:
  void check_workspace(const stationary_workspace& work, std::span<double> out) const;
  // transform = scale_normals over [0, normals_needed()) then finish.
  void scale_normals(double* work, std::size_t begin, std::size_t len) const noexcept;
  void finish(double* work, std::span<double> out) const;
  std::shared_ptr<const detail::stationary_state> s_;
};

/// The symmetric Toeplitz matrix T_ij = γ(|i−j|), n = gamma.size().
xt::xtensor<double, 2> toeplitz_covariance(std::span<const double> gamma);

/// γ(k) = variance·r^k: the Toeplitz design Σ_ij = variance·r^{|i−j|} (AR(1) covariance).
std::vector<double> toeplitz_power_autocovariance(std::size_t n, double r, double variance);
/// Fractional Gaussian noise: γ(k) = (variance/2)(|k+1|^{2H} − 2|k|^{2H} + |k−1|^{2H})
/// [Mandelbrot & Van Ness 1968], evaluated for k ≥ 2 by the equivalent cancellation-free series
/// variance·k^{2H} Σ_{m≥1} C(2H, 2m) k^{−2m}: relative error ≤ 1e-15 at every lag (the direct
/// difference loses ε·k² relative, 1e-2 at k = 10⁷).
double fgn_autocovariance(std::size_t k, double hurst, double variance) noexcept;

/// Options of the Toeplitz design.
struct toeplitz_options {
  double rho = 0.95;      ///< r, |r| < 1
  double variance = 1.0;  ///< s² (finite, > 0)
  double mu = 0.0;        ///< mean (finite)
  void validate() const;
};

/// X ~ N(μ1, s² r^{|i−j|}) sampled by circulant embedding (the AR(1) law, sampled as a general
/// stationary series; ar1 samples the same law by recursion).
class toeplitz {
 public:
  toeplitz(std::size_t n, toeplitz_options o);
  const toeplitz_options& options() const noexcept { return o_; }
  const stationary_gaussian& sampler() const noexcept { return g_; }
  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 1> sample(G& g) const {
    return g_.sample(g);
  }
  double mean() const noexcept { return o_.mu; }
  double variance() const noexcept { return o_.variance; }
  double autocorrelation(std::size_t h) const noexcept { return std::pow(o_.rho, double(h)); }
  double autocovariance(std::size_t h) const noexcept { return o_.variance * autocorrelation(h); }
  /// s² r^{|i−j|}, k×k (any k; the sampler's own length is sampler().size()).
  xt::xtensor<double, 2> covariance(std::size_t k) const;
  double long_run_variance() const noexcept;  ///< s²(1+r)/(1−r)
  double log_sobolev() const { return g_.log_sobolev(); }
  double marginal_log_sobolev() const noexcept { return o_.variance; }
  double mean_variance_constant() const { return g_.mean_variance_constant(); }

 private:
  toeplitz_options o_;
  stationary_gaussian g_;
};

/// Options of fractional Gaussian noise.
struct fgn_options {
  double hurst = 0.75;    ///< H ∈ (0, 1)
  double variance = 1.0;  ///< finite, > 0
  double mu = 0.0;        ///< finite
  void validate() const;
};

/// Fractional Gaussian noise of length n by circulant embedding (the minimal embedding is
/// nonnegative for every H ∈ (0,1): Craigmile 2003, J. Time Ser. Anal. 24).
class fgn {
 public:
  fgn(std::size_t n, fgn_options o);
  const fgn_options& options() const noexcept { return o_; }
  const stationary_gaussian& sampler() const noexcept { return g_; }
  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 1> sample(G& g) const {
    return g_.sample(g);
  }
  double mean() const noexcept { return o_.mu; }
  double variance() const noexcept { return o_.variance; }
  double autocorrelation(std::size_t h) const noexcept {
    return fgn_autocovariance(h, o_.hurst, 1.0);
  }
  double autocovariance(std::size_t h) const noexcept {
    return fgn_autocovariance(h, o_.hurst, o_.variance);
  }
  /// k×k Toeplitz matrix of fgn_autocovariance (any k).
  xt::xtensor<double, 2> covariance(std::size_t k) const;
  /// +∞ for H > 1/2 (long memory), variance for H = 1/2, 0 for H < 1/2.
  double long_run_variance() const noexcept;
  double log_sobolev() const { return g_.log_sobolev(); }
  double marginal_log_sobolev() const noexcept { return o_.variance; }
  /// n·Var(X̄) = variance·n^{2H−1} exactly (self-similarity).
  double mean_variance_constant() const noexcept;

 private:
  fgn_options o_;
  stationary_gaussian g_;
};

/// Options of the equicorrelated design s²((1−c)I + c11ᵀ).
struct equicorrelated_options {
  double correlation = 0.25;  ///< c ∈ [0, 1)
  double variance = 1.0;      ///< s² (finite, > 0)
  double mu = 0.0;            ///< finite
  void validate() const;
};

/// X_i = μ + s(√c W + √(1−c) Z_i) with W, Z_i i.i.d. N(0,1) (docs/theory/dependent-data.md §8).
/// λ_max = s²(1+(n−1)c), λ_min = s²(1−c), n·Var(X̄) = s²(1+(n−1)c).
class equicorrelated {
 public:
  explicit equicorrelated(equicorrelated_options o);
  const equicorrelated_options& options() const noexcept { return o_; }
  template <std::uniform_random_bit_generator G>
  void sample_into(std::span<double> out, G& g) const {
    const double w = standard_normal(g);
    fill_standard_normal(g, out);
    const double s = std::sqrt(o_.variance);
    const double a = s * std::sqrt(o_.correlation) * w;
    const double b = s * std::sqrt(1.0 - o_.correlation);
    for (double& x : out) x = o_.mu + a + b * x;
  }
  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 1> sample(std::size_t n, G& g) const {
    xt::xtensor<double, 1> x = xt::xtensor<double, 1>::from_shape({n});
    sample_into(std::span<double>(x.data(), n), g);
    return x;
  }
  double mean() const noexcept { return o_.mu; }
  double variance() const noexcept { return o_.variance; }
  double autocorrelation(std::size_t h) const noexcept { return h == 0 ? 1.0 : o_.correlation; }
  double autocovariance(std::size_t h) const noexcept { return o_.variance * autocorrelation(h); }
  /// s²((1−c)I + c11ᵀ), n×n.
  xt::xtensor<double, 2> covariance(std::size_t n) const;
  /// +∞ when c > 0 (n·Var(X̄) grows linearly), s² when c = 0.
  double long_run_variance() const noexcept;
  double log_sobolev(std::size_t n) const noexcept;
  double marginal_log_sobolev() const noexcept { return o_.variance; }
  double mean_variance_constant(std::size_t n) const noexcept { return log_sobolev(n); }

 private:
  equicorrelated_options o_;
};

}  // namespace dpx::data
