#pragma once
// Internal dense linear-algebra helpers for dpx::data (LAPACK through xtensor-blas).
#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include <xtensor/xtensor.hpp>

namespace dpx::data::detail {

/// Lower Cholesky factor (row-major n×n, upper part zero) of the symmetric row-major a, or an
/// empty vector when a is not (numerically) positive definite (LAPACK potrf).
std::vector<double> cholesky_lower(std::span<const double> a, std::size_t n);

/// Lower factor L with L Lᵀ = a for a symmetric positive SEMI-definite row-major a (small n):
/// Cholesky that sets a column to zero where the pivot is ≤ tol = 1e-12 n max_i a_ii (its
/// remaining entries must then vanish to the same tolerance). Empty when a is not PSD within
/// that tolerance or the reconstruction misses a by more than 1e-10 max_i a_ii.
std::vector<double> cholesky_lower_semidefinite(std::span<const double> a, std::size_t n);

/// Dense row-major symmetric Toeplitz matrix with first column g.
std::vector<double> toeplitz_dense(std::span<const double> g);

/// λ_max(T + c 11ᵀ) for the symmetric Toeplitz T with first column g and c ≥ 0: dense syevd for
/// small sizes, Lanczos with an FFT mat-vec otherwise.
double toeplitz_plus_constant_lambda_max(std::span<const double> g, double c);

/// The row-major n×n matrix a (n² entries) as an xtensor.
inline xt::xtensor<double, 2> square_tensor(const std::vector<double>& a, std::size_t n) {
  xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({n, n});
  std::copy(a.begin(), a.end(), x.begin());
  return x;
}

}  // namespace dpx::data::detail
