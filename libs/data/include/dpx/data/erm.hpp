#pragma once
/// \file
/// ERM designs for the solvers: sparse linear and logistic regression with Toeplitz-correlated
/// Gaussian features (rows i.i.d. N(0, Σ), Σ_jk = r^{|j−k|}), a k-sparse truth β, optional row
/// scaling to ‖x‖₂ ≤ 1 and a held-out test split from the same model.
///
/// Features are drawn by the exact AR(1) recursion along each row (x_0 = z_0, x_j = r x_{j−1} +
/// sqrt(1−r²) z_j), which has covariance r^{|j−k|} — O(nd), no d×d factorisation. The truth:
/// support uniformly random of size k (partial Fisher–Yates), entries ±signal with random signs.
/// When rows are scaled, responses are generated from the scaled rows, so the model stays exact.

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "dpx/data/variates.hpp"

namespace dpx::data {

/// Row scaling of the design.
enum class row_scaling {
  none,       ///< rows as drawn
  clip,       ///< x ← x / max(1, ‖x‖₂) (projection onto the unit ball)
  normalize,  ///< x ← x / ‖x‖₂ (unit sphere)
};

/// Label encoding for logistic designs.
enum class label_encoding {
  plus_minus_one,  ///< y ∈ {−1, +1}
  zero_one,        ///< y ∈ {0, 1}
};

/// Options shared by sparse_linear and sparse_logistic.
struct erm_options {
  std::size_t n = 1000;    ///< training rows ≥ 1
  std::size_t n_test = 0;  ///< held-out rows ≥ 0
  std::size_t d = 20;      ///< features ≥ 1
  std::size_t k = 5;       ///< nonzeros of β, 1 ≤ k ≤ d
  double rho = 0.5;        ///< feature correlation r, |r| < 1
  double signal = 1.0;     ///< |β_j| on the support (finite, > 0)
  double noise_sd = 1.0;   ///< linear: response noise sd ≥ 0 (ignored for logistic)
  row_scaling scaling = row_scaling::none;
  label_encoding labels = label_encoding::plus_minus_one;  ///< logistic only
  void validate() const;
};

/// One ERM draw.
struct erm_sample {
  xt::xtensor<double, 2> x_train;    ///< n × d
  xt::xtensor<double, 1> y_train;    ///< n
  xt::xtensor<double, 2> x_test;     ///< n_test × d
  xt::xtensor<double, 1> y_test;     ///< n_test
  xt::xtensor<double, 1> beta;       ///< the k-sparse truth (length d)
  std::vector<std::size_t> support;  ///< sorted indices of the nonzeros
};

namespace detail {
/// In place on an m×d row-major block of N(0,1): rows become N(0, r^{|j−k|}), then scaled.
void toeplitz_rows(std::span<double> x, std::size_t d, double r, row_scaling scaling);
}  // namespace detail

/// Shared implementation of the two designs.
class erm_design {
 public:
  const erm_options& options() const noexcept { return o_; }
  /// Toeplitz design matrix: m × d rows i.i.d. N(0, r^{|j−k|}), scaled per options.
  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 2> features(std::size_t m, G& g) const {
    xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({m, o_.d});
    fill_standard_normal(g, std::span<double>(x.data(), m * o_.d));
    detail::toeplitz_rows(std::span<double>(x.data(), m * o_.d), o_.d, o_.rho, o_.scaling);
    return x;
  }
  /// Σ (d×d) of the unscaled features.
  xt::xtensor<double, 2> feature_covariance() const;
  /// λ_max(Σ) and λ_min(Σ) (spectral.hpp).
  double feature_lambda_max() const;
  double feature_lambda_min() const;

 protected:
  explicit erm_design(erm_options o);
  template <std::uniform_random_bit_generator G>
  void draw_truth(erm_sample& s, G& g) const {
    std::vector<std::size_t> idx(o_.d);
    for (std::size_t j = 0; j < o_.d; ++j) idx[j] = j;
    for (std::size_t j = 0; j < o_.k; ++j)
      std::swap(idx[j], idx[j + rng::uniform_below(g, o_.d - j)]);
    s.support.assign(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(o_.k));
    std::sort(s.support.begin(), s.support.end());
    s.beta = xt::xtensor<double, 1>::from_shape({o_.d});
    std::fill(s.beta.begin(), s.beta.end(), 0.0);
    for (std::size_t j : s.support) s.beta(j) = (rng::uniform01(g) < 0.5 ? -1.0 : 1.0) * o_.signal;
  }
  erm_options o_;
};

/// y = xᵀβ + noise_sd·z.
class sparse_linear : public erm_design {
 public:
  explicit sparse_linear(erm_options o);
  template <std::uniform_random_bit_generator G>
  erm_sample sample(G& g) const {
    erm_sample s;
    draw_truth(s, g);
    s.x_train = features(o_.n, g);
    s.x_test = features(o_.n_test, g);
    s.y_train = xt::xtensor<double, 1>::from_shape({o_.n});
    s.y_test = xt::xtensor<double, 1>::from_shape({o_.n_test});
    fill_standard_normal(g, std::span<double>(s.y_train.data(), o_.n));
    fill_standard_normal(g, std::span<double>(s.y_test.data(), o_.n_test));
    respond(s);
    return s;
  }
  /// y ← Xβ + noise_sd·y (y holds N(0,1) on entry).
  void respond(erm_sample& s) const;
  /// Population excess-risk floor: the noise variance.
  double noise_variance() const noexcept { return o_.noise_sd * o_.noise_sd; }
};

/// P(y = +1 | x) = 1/(1 + exp(−xᵀβ)).
class sparse_logistic : public erm_design {
 public:
  explicit sparse_logistic(erm_options o);
  template <std::uniform_random_bit_generator G>
  erm_sample sample(G& g) const {
    erm_sample s;
    draw_truth(s, g);
    s.x_train = features(o_.n, g);
    s.x_test = features(o_.n_test, g);
    s.y_train = xt::xtensor<double, 1>::from_shape({o_.n});
    s.y_test = xt::xtensor<double, 1>::from_shape({o_.n_test});
    rng::fill_uniform01(g, std::span<double>(s.y_train.data(), o_.n));
    rng::fill_uniform01(g, std::span<double>(s.y_test.data(), o_.n_test));
    respond(s);
    return s;
  }
  /// y ← label(u < σ(xᵀβ)) (y holds uniforms on entry).
  void respond(erm_sample& s) const;
};

}  // namespace dpx::data
