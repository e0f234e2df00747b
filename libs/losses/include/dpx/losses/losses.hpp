#pragma once
/// \file
/// Empirical risks of generalized linear models, L(theta) = (1/n) sum_i f(x_i^T theta, y_i),
/// evaluated through BLAS: z = X theta (one GEMV), then the gradient (1/n) X^T f'(z, y) (a second
/// GEMV) — no per-row loops over features.
///
/// Per-example gradients of a GLM are f'(z_i, y_i) x_i, so clipping each to L2 norm G (for a
/// bounded sensitivity, as DP-SGD and the private solvers need) scales the scalar f'_i by
/// min(1, G / (|f'_i| ||x_i||)) and the clipped average is still one GEMV. With clipping at G, the
/// average gradient has replace-one L2 sensitivity 2G/n and add/remove sensitivity G/n.
///
/// Conventions (match `dpx fit`): least squares f = (z - y)^2 / 2; logistic
/// f = log(1 + exp(-y z)) with y in {-1, +1} (0/1 labels are mapped to -1/+1 at construction);
/// Huber with threshold delta on the residual z - y; smoothed hinge (quadratically smoothed,
/// Rennie & Srebro 2005) with smoothing h on the margin y z, y in {-1, +1}.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace dpx::losses {

/// Row-major design matrix X (rows x cols) and response y (rows), non-owning. The viewed memory
/// must outlive the loss object.
struct dataset_view {
  std::span<const double> x;  ///< rows * cols values, row i at x[i * cols, (i + 1) * cols)
  std::span<const double> y;  ///< rows values
  std::size_t rows = 0;
  std::size_t cols = 0;
  /// Throws invalid_argument_error on mismatched sizes, empty data or non-finite values.
  void validate(const char* function) const;
};

enum class glm_kind { least_squares, logistic, huber, smoothed_hinge };

std::string to_string(glm_kind k);

/// A GLM empirical risk over a dataset. Holds scratch buffers: use one object per thread.
class glm_loss {
 public:
  /// `parameter` is Huber's delta or the hinge smoothing h (> 0); ignored otherwise.
  /// For logistic and smoothed hinge, labels must be in {0, 1} or {-1, +1}.
  glm_loss(glm_kind kind, dataset_view data, double parameter = 1.0);

  glm_kind kind() const noexcept { return kind_; }
  /// The viewed data (labels as given, before any {0, 1} -> {-1, +1} mapping).
  const dataset_view& data() const noexcept { return data_; }
  /// Huber's delta or the hinge smoothing h (as given to the constructor).
  double parameter() const noexcept { return parameter_; }
  std::size_t size() const noexcept { return data_.rows; }
  std::size_t dimension() const noexcept { return data_.cols; }

  /// L(theta).
  double value(std::span<const double> theta) const;
  /// Writes grad L(theta) into grad and returns L(theta) (two GEMV passes).
  double value_and_gradient(std::span<const double> theta, std::span<double> grad) const;
  /// Average of per-example gradients each clipped to L2 norm clip_norm (> 0), and returns the
  /// fraction of examples that were clipped. Replace-one L2 sensitivity of the result:
  /// 2 clip_norm / n.
  double clipped_gradient(std::span<const double> theta,
                          double clip_norm,
                          std::span<double> grad) const;
  /// Clipped gradient summed over the examples in `batch` (indices), NOT averaged: the DP-SGD
  /// numerator. Returns the number of clipped examples.
  std::size_t clipped_gradient_sum(std::span<const double> theta,
                                   std::span<const std::size_t> batch,
                                   double clip_norm,
                                   std::span<double> grad_sum) const;
  /// Per-example gradient of example i (unclipped) into out (size cols).
  void example_gradient(std::span<const double> theta, std::size_t i, std::span<double> out) const;

  /// Upper bound on sup f'' (curvature of f in z): 1 (least squares, Huber), 1/4 (logistic),
  /// 1/h (smoothed hinge).
  double curvature_bound() const noexcept;
  /// Bound on |f'| over all z when one exists (logistic, Huber: delta, hinge: 1); +inf for least
  /// squares, whose per-example gradients are unbounded without clipping.
  double derivative_bound() const noexcept;
  /// Smoothness constant of L: curvature_bound() * lambda_max(X^T X / n), lambda_max by power
  /// iteration (relative change < tol, deterministic start vector). Data-dependent: computing it
  /// from private data is NOT private; private solvers must use a public bound instead.
  double smoothness(double tol = 1e-10, int max_iterations = 1000) const;
  /// max_i ||x_i||_2 (data-dependent; see smoothness()).
  double max_row_norm() const;

  /// Scalar pieces, exposed for tests and fused solvers.
  double f(double z, double y) const noexcept;
  double f_prime(double z, double y) const noexcept;

 private:
  void margins(std::span<const double> theta) const;  // z_ = X theta

  glm_kind kind_;
  dataset_view data_;
  double parameter_;
  std::vector<double> labels_;  // y, or mapped to {-1, +1} for classification
  mutable std::vector<double> z_, r_;
  mutable std::vector<double> row_norms_;  // lazily computed
};

/// lambda_max(X^T X / n) by power iteration using two GEMVs per step.
double gram_lambda_max(const dataset_view& data, double tol = 1e-10, int max_iterations = 1000);

}  // namespace dpx::losses
