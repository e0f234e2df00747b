#pragma once
/// \file
/// Exact extreme eigenvalues of covariance matrices: the log-Sobolev constant of a Gaussian
/// vector N(μ, Σ) is λ_max(Σ) [Roth & Avella-Medina 2025 , Ex. A.2; docs/theory/dependent-data.md
/// §2.1], and σ_min² = λ_min(Σ) enters the nonparametric-regression constants
/// (docs/theory/dependent-data.md §4.4).
///
/// * Dense symmetric matrices: LAPACK syevd (through xtensor-blas).
/// * Symmetric Toeplitz matrices (stationary series): dense syevd up to `dense_max` rows;
///   above that, Lanczos iteration [Lanczos 1950; Golub & Van Loan 2013, §10 item 1] with an
///   O(n log n) FFT mat-vec through a circulant embedding, full reorthogonalisation while the
///   Krylov basis fits in `reorth_budget` doubles, and Sturm-sequence bisection on the
///   tridiagonal matrix. Ritz values are inner bounds (λ_min ≤ θ_min ≤ θ_max ≤ λ_max) and converge
///   to the extremes; iteration stops when each wanted extreme Ritz value θ is certified to
///   `tolerance`·|θ| (floor 32ε‖T‖) by its Ritz residual r or by the gap bound r²/δ (δ: distance
///   to the next Ritz value, once r ≤ δ/2) [Parlett 1998, §11.7], on an invariant subspace (then
///   the values are exact), when θ has not moved by `tolerance`·|θ| over the second half of a
///   run of ≥ 200 steps (long series, whose clustered top eigenvalues no affordable Krylov space
///   resolves), or at `max_iterations`. Toeplitz matrices are centrosymmetric: Lanczos runs
///   separately on symmetric and skew-symmetric vectors (near-degenerate pairs of opposite
///   parity then do not slow it down) and `iterations` is the sum. The start
///   vector mixes the smooth and the alternating half-sine (the approximate extreme
///   eigenvectors of Toeplitz matrices whose symbol peaks at frequency 0 or π) with a small
///   deterministic pseudo-random part, which makes AR-type spectra converge in a few hundred
///   steps.

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace dpx::data {

/// Extreme eigenvalues of a symmetric matrix.
struct eigen_range {
  double min = 0.0;            ///< smallest eigenvalue (Lanczos: an upper bound that converged)
  double max = 0.0;            ///< largest eigenvalue (Lanczos: a lower bound that converged)
  std::size_t iterations = 0;  ///< Lanczos steps used (0 for the dense path)
  bool dense = true;           ///< true when computed by LAPACK syevd
};

/// Options for the Toeplitz extreme-eigenvalue solver.
struct eigen_options {
  std::size_t dense_max = 1024;       ///< use dense syevd for n ≤ dense_max
  std::size_t max_iterations = 4000;  ///< Lanczos step limit (capped at n)
  double tolerance = 1e-12;           ///< relative error bound certified for the extremes
  /// Doubles kept for full reorthogonalisation (k·n ≤ budget); beyond it the plain three-term
  /// recurrence runs (loss of orthogonality creates duplicate Ritz values but does not move the
  /// extreme ones outside the spectrum [Paige 1980]).
  std::size_t reorth_budget = 1u << 21;
  bool need_min = true;  ///< false: converge on λ_max only
  void validate() const;
};

/// All eigenvalues (ascending) of the symmetric n×n row-major matrix a (LAPACK syevd).
/// Throws core::invalid_argument_error if a.size() != n² or a has non-finite entries.
std::vector<double> symmetric_eigenvalues(std::span<const double> a, std::size_t n);

/// Extreme eigenvalues of the symmetric Toeplitz matrix T_ij = first_column[|i−j|]
/// (n = first_column.size() ≥ 1).
eigen_range toeplitz_eigen_range(std::span<const double> first_column,
                                 const eigen_options& options = {});

/// λ_max of the symmetric Toeplitz matrix (converges on the top end only).
double toeplitz_lambda_max(std::span<const double> first_column);

/// Extreme eigenvalues of a symmetric linear operator of dimension n given by its mat-vec
/// y = A x (Lanczos as above on the whole space; deterministic start vector).
eigen_range lanczos_eigen_range(
    std::size_t n,
    const std::function<void(std::span<const double> x, std::span<double> y)>& matvec,
    const eigen_options& options = {});

/// y = T x for the symmetric Toeplitz T with the given first column, by FFT (O(n log n)).
/// A reusable operator: the FFT of the embedding is computed once.
class toeplitz_operator {
 public:
  explicit toeplitz_operator(std::span<const double> first_column);
  ~toeplitz_operator();
  toeplitz_operator(toeplitz_operator&&) noexcept;
  toeplitz_operator& operator=(toeplitz_operator&&) noexcept;
  toeplitz_operator(const toeplitz_operator&) = delete;
  toeplitz_operator& operator=(const toeplitz_operator&) = delete;
  std::size_t size() const noexcept { return n_; }
  /// y = T x; x and y of length size(); not thread-safe (uses internal buffers).
  void apply(std::span<const double> x, std::span<double> y);
  /// Eigenvalues of the circulant embedding (size m ≥ 2n), divided by m, k = 0..m/2: the
  /// truncated symbol Σ_{|h|<n} γ(h) e^{−iω_k h} at ω_k = 2πk/m, over m.
  std::span<const double> embedding_eigenvalues() const noexcept;
  /// m (a 2·3·5·7-smooth size ≥ 2n; may be odd).
  std::size_t embedding_size() const noexcept;

 private:
  struct impl;
  std::size_t n_ = 0;
  impl* impl_ = nullptr;
};

/// n·Var(X̄) = 1ᵀΣ1/n = γ(0) + 2 Σ_{h=1}^{n−1} (1 − h/n) γ(h) for a stationary series with
/// autocovariance γ (first_column = γ(0..n−1)): the exact statistical constant of the mean
/// (docs/theory/dependent-data.md §8, third column).
double mean_variance_constant(std::span<const double> first_column);

/// Smallest integer ≥ n whose prime factors are all in {2, 3, 5, 7} (fast FFT sizes).
std::size_t next_fast_fft_size(std::size_t n);

}  // namespace dpx::data
