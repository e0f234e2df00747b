#pragma once
/// \file
/// Gaussian VAR(1): X_t − μ = A(X_{t−1} − μ) + e_t, e_t i.i.d. N(0, Σ_e), X_t ∈ R^d.
///
/// Stationary iff the spectral radius of A is < 1 [Lütkepohl 2005, §2.1.1]. The stationary
/// covariance Γ_0 solves the discrete Lyapunov equation Γ_0 = A Γ_0 Aᵀ + Σ_e [Lütkepohl 2005,
/// eq. (2.1.39)]; dpx solves it by Smith's doubling iteration Γ ← Γ + B Γ Bᵀ, B ← B² (which
/// diverges exactly when ρ(A) ≥ 1). Γ(h) = Cov(X_{t+h}, X_t) = A^h Γ_0 and the long-run variance
/// is (I − A)^{−1} Σ_e (I − A)^{−T}. Samples start with X_0 ~ N(μ, Γ_0): no burn-in.

#include <cstddef>
#include <span>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "dpx/data/variates.hpp"

namespace dpx::data {

/// Options of var1.
struct var1_options {
  xt::xtensor<double, 2> a;        ///< d×d transition matrix, spectral radius < 1
  xt::xtensor<double, 2> sigma_e;  ///< d×d innovation covariance, symmetric positive definite
  std::vector<double> mu;          ///< mean (length d; empty means 0)
  void validate() const;
};

/// Gaussian VAR(1). sample(n) returns an n×d array (row t = X_t).
class var1 {
 public:
  explicit var1(var1_options o);
  const var1_options& options() const noexcept { return o_; }
  std::size_t dim() const noexcept { return d_; }

  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 2> sample(std::size_t n, G& g) const {
    xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({n, d_});
    fill_standard_normal(g, std::span<double>(x.data(), n * d_));
    filter_inplace(std::span<double>(x.data(), n * d_));
    return x;
  }
  /// Turns n·d i.i.d. N(0,1) values (row-major n×d) into the path, in place.
  void filter_inplace(std::span<double> z) const;

  /// Γ_0 (d×d).
  const xt::xtensor<double, 2>& stationary_covariance() const noexcept { return gamma0_; }
  /// Γ(h) = A^h Γ_0.
  xt::xtensor<double, 2> autocovariance(std::size_t h) const;
  /// (I − A)^{−1} Σ_e (I − A)^{−T}.
  xt::xtensor<double, 2> long_run_variance() const;
  /// μ (length d).
  std::vector<double> mean() const;
  /// λ_max of the covariance of the whole nd-vector (X_0..X_{n−1}): dense syevd for nd ≤
  /// eigen_options::dense_max (1024), else Lanczos with an exact O(n d²) block-Toeplitz mat-vec
  /// (forward/backward recursions). An upper bound on coordinate_log_sobolev(n), up to d times it.
  double log_sobolev(std::size_t n) const;
  /// max_j λ_max(Cov(X_{0j}, …, X_{n−1,j})): the per-coordinate constant of
  /// docs/theory/dependent-data.md §2.2 Assumption 2.8(a), which the coordinate-wise estimators
  /// (Algorithm 5 per column) use. Each coordinate is a stationary Gaussian series with
  /// autocovariance γ_jj(h) = (A^h Γ_0)_jj; its λ_max is toeplitz_lambda_max of that first column
  /// (O(n d³) to build the columns).
  double coordinate_log_sobolev(std::size_t n) const;
  /// max_i (Γ_0)_ii.
  double marginal_log_sobolev() const;
  /// The nd×nd covariance (time-major), for small n.
  xt::xtensor<double, 2> covariance(std::size_t n) const;

 private:
  var1_options o_;
  std::size_t d_ = 0;
  xt::xtensor<double, 2> gamma0_, chol_gamma0_, chol_sigma_e_;
};

}  // namespace dpx::data
