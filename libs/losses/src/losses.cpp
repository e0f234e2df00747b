#include "dpx/losses/losses.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "dpx/core/error.hpp"

namespace dpx::losses {

namespace {
// y = alpha · X v (transpose = false: the n margins) or y = alpha · Xᵀ v (transpose = true: a
// d-vector, the gradient from per-example weights v) for the row-major n×d design x.
void design_gemv(const double* x,
                 std::size_t rows,
                 std::size_t cols,
                 bool transpose,
                 double alpha,
                 const double* v,
                 double* y) {
  cblas_dgemv(CblasRowMajor,
              transpose ? CblasTrans : CblasNoTrans,
              static_cast<int>(rows),
              static_cast<int>(cols),
              alpha,
              x,
              static_cast<int>(cols),
              v,
              1,
              0.0,
              y,
              1);
}
}  // namespace

void dataset_view::validate(const char* function) const {
  core::check_at_least(function, "rows", static_cast<long long>(rows), 1);
  core::check_at_least(function, "cols", static_cast<long long>(cols), 1);
  core::check_size(function, "x", x.size(), rows * cols);
  core::check_size(function, "y", y.size(), rows);
  core::check_finite_span(function, "x", x);
  core::check_finite_span(function, "y", y);
}

std::string to_string(glm_kind k) {
  switch (k) {
    case glm_kind::least_squares:
      return "least_squares";
    case glm_kind::logistic:
      return "logistic";
    case glm_kind::huber:
      return "huber";
    case glm_kind::smoothed_hinge:
      return "smoothed_hinge";
  }
  return "unknown";
}

namespace {
// log(1 + exp(t)) without overflow.
inline double log1pexp(double t) {
  return t > 0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t));
}
// 1 / (1 + exp(-t)) without overflow.
inline double sigmoid(double t) {
  if (t >= 0) return 1.0 / (1.0 + std::exp(-t));
  const double e = std::exp(t);
  return e / (1.0 + e);
}
}  // namespace

glm_loss::glm_loss(glm_kind kind, dataset_view data, double parameter)
    : kind_(kind), data_(data), parameter_(parameter) {
  const char* fn = "losses::glm_loss";
  data_.validate(fn);
  labels_.assign(data.y.begin(), data.y.end());
  if (kind == glm_kind::huber || kind == glm_kind::smoothed_hinge) {
    core::check_positive(fn, kind == glm_kind::huber ? "delta" : "smoothing", parameter);
  }
  if (kind == glm_kind::logistic || kind == glm_kind::smoothed_hinge) {
    bool zero_one = true, pm_one = true;
    for (double v : labels_) {
      zero_one = zero_one && (v == 0.0 || v == 1.0);
      pm_one = pm_one && (v == -1.0 || v == 1.0);
    }
    if (!zero_one && !pm_one) {
      for (std::size_t i = 0; i < labels_.size(); ++i) {
        if (labels_[i] != 0 && labels_[i] != 1 && labels_[i] != -1) {
          // The label itself is data (possibly private): named by index, never quoted.
          core::throw_invalid(fn,
                              "y[" + std::to_string(i) + "]",
                              "(not a class label)",
                              "labels must be in {0, 1} or {-1, +1}");
        }
      }
      core::throw_invalid(fn, "y", "mixed", "labels must be all in {0, 1} or all in {-1, +1}");
    }
    if (zero_one && !pm_one) {
      for (double& v : labels_) v = v == 1.0 ? 1.0 : -1.0;
    }
  }
  z_.resize(data.rows);
  r_.resize(data.rows);
}

double glm_loss::f(double z, double y) const noexcept {
  switch (kind_) {
    case glm_kind::least_squares:
      return 0.5 * (z - y) * (z - y);
    case glm_kind::logistic:
      return log1pexp(-y * z);
    case glm_kind::huber: {
      const double r = std::fabs(z - y), d = parameter_;
      return r <= d ? 0.5 * r * r : d * (r - 0.5 * d);
    }
    case glm_kind::smoothed_hinge: {
      const double m = y * z, h = parameter_;
      if (m >= 1) return 0.0;
      if (m <= 1 - h) return 1 - m - 0.5 * h;
      return (1 - m) * (1 - m) / (2 * h);
    }
  }
  return 0;
}

double glm_loss::f_prime(double z, double y) const noexcept {
  switch (kind_) {
    case glm_kind::least_squares:
      return z - y;
    case glm_kind::logistic:
      return -y * sigmoid(-y * z);
    case glm_kind::huber:
      return std::clamp(z - y, -parameter_, parameter_);
    case glm_kind::smoothed_hinge: {
      const double m = y * z, h = parameter_;
      if (m >= 1) return 0.0;
      if (m <= 1 - h) return -y;
      return -y * (1 - m) / h;
    }
  }
  return 0;
}

double glm_loss::curvature_bound() const noexcept {
  switch (kind_) {
    case glm_kind::least_squares:
    case glm_kind::huber:
      return 1.0;
    case glm_kind::logistic:
      return 0.25;
    case glm_kind::smoothed_hinge:
      return 1.0 / parameter_;
  }
  return 1.0;
}

double glm_loss::derivative_bound() const noexcept {
  switch (kind_) {
    case glm_kind::least_squares:
      return std::numeric_limits<double>::infinity();
    case glm_kind::logistic:
    case glm_kind::smoothed_hinge:
      return 1.0;
    case glm_kind::huber:
      return parameter_;
  }
  return 1.0;
}

void glm_loss::margins(std::span<const double> theta) const {
  core::check_size("losses::glm_loss", "theta", theta.size(), data_.cols);
  design_gemv(data_.x.data(), data_.rows, data_.cols, false, 1.0, theta.data(), z_.data());
}

double glm_loss::value(std::span<const double> theta) const {
  margins(theta);
  double s = 0;
  for (std::size_t i = 0; i < data_.rows; ++i) s += f(z_[i], labels_[i]);
  return s / static_cast<double>(data_.rows);
}

double glm_loss::value_and_gradient(std::span<const double> theta, std::span<double> grad) const {
  core::check_size("losses::glm_loss::value_and_gradient", "grad", grad.size(), data_.cols);
  margins(theta);
  double s = 0;
  for (std::size_t i = 0; i < data_.rows; ++i) {
    s += f(z_[i], labels_[i]);
    r_[i] = f_prime(z_[i], labels_[i]);
  }
  const double inv_n = 1.0 / static_cast<double>(data_.rows);
  design_gemv(data_.x.data(), data_.rows, data_.cols, true, inv_n, r_.data(), grad.data());
  return s * inv_n;
}

double glm_loss::max_row_norm() const {
  if (row_norms_.empty()) {
    row_norms_.resize(data_.rows);
    for (std::size_t i = 0; i < data_.rows; ++i) {
      row_norms_[i] = cblas_dnrm2(static_cast<int>(data_.cols), data_.x.data() + i * data_.cols, 1);
    }
  }
  return *std::max_element(row_norms_.begin(), row_norms_.end());
}

double glm_loss::clipped_gradient(std::span<const double> theta,
                                  double clip_norm,
                                  std::span<double> grad) const {
  const char* fn = "losses::glm_loss::clipped_gradient";
  core::check_positive(fn, "clip_norm", clip_norm);
  core::check_size(fn, "grad", grad.size(), data_.cols);
  max_row_norm();  // fills row_norms_
  margins(theta);
  std::size_t clipped = 0;
  for (std::size_t i = 0; i < data_.rows; ++i) {
    const double g = f_prime(z_[i], labels_[i]);
    const double norm = std::fabs(g) * row_norms_[i];
    double c = 1.0;
    if (norm > clip_norm) {
      c = clip_norm / norm;
      ++clipped;
    }
    r_[i] = g * c;
  }
  const double inv_n = 1.0 / static_cast<double>(data_.rows);
  design_gemv(data_.x.data(), data_.rows, data_.cols, true, inv_n, r_.data(), grad.data());
  return static_cast<double>(clipped) * inv_n;
}

std::size_t glm_loss::clipped_gradient_sum(std::span<const double> theta,
                                           std::span<const std::size_t> batch,
                                           double clip_norm,
                                           std::span<double> grad_sum) const {
  const char* fn = "losses::glm_loss::clipped_gradient_sum";
  core::check_positive(fn, "clip_norm", clip_norm);
  core::check_size(fn, "grad_sum", grad_sum.size(), data_.cols);
  core::check_size(fn, "theta", theta.size(), data_.cols);
  max_row_norm();
  std::fill(grad_sum.begin(), grad_sum.end(), 0.0);
  std::size_t clipped = 0;
  const int d = static_cast<int>(data_.cols);
  for (std::size_t i : batch) {
    if (i >= data_.rows)
      core::throw_invalid(fn, "batch index", static_cast<double>(i), "must be < rows");
    const double* xi = data_.x.data() + i * data_.cols;
    const double z = cblas_ddot(d, xi, 1, theta.data(), 1);
    const double g = f_prime(z, labels_[i]);
    const double norm = std::fabs(g) * row_norms_[i];
    double c = 1.0;
    if (norm > clip_norm) {
      c = clip_norm / norm;
      ++clipped;
    }
    cblas_daxpy(d, g * c, xi, 1, grad_sum.data(), 1);
  }
  return clipped;
}

void glm_loss::example_gradient(std::span<const double> theta,
                                std::size_t i,
                                std::span<double> out) const {
  const char* fn = "losses::glm_loss::example_gradient";
  core::check_size(fn, "theta", theta.size(), data_.cols);
  core::check_size(fn, "out", out.size(), data_.cols);
  if (i >= data_.rows) core::throw_invalid(fn, "i", static_cast<double>(i), "must be < rows");
  const double* xi = data_.x.data() + i * data_.cols;
  const double g =
      f_prime(cblas_ddot(static_cast<int>(data_.cols), xi, 1, theta.data(), 1), labels_[i]);
  for (std::size_t j = 0; j < data_.cols; ++j) out[j] = g * xi[j];
}

double gram_lambda_max(const dataset_view& data, double tol, int max_iterations) {
  data.validate("losses::gram_lambda_max");
  const int n = static_cast<int>(data.rows), d = static_cast<int>(data.cols);
  std::vector<double> v(data.cols, 1.0 / std::sqrt(static_cast<double>(data.cols))), xv(data.rows),
      w(data.cols);
  double lambda = 0;
  for (int it = 0; it < max_iterations; ++it) {
    design_gemv(data.x.data(), data.rows, data.cols, false, 1.0, v.data(), xv.data());
    design_gemv(data.x.data(), data.rows, data.cols, true, 1.0 / n, xv.data(), w.data());
    const double norm = cblas_dnrm2(d, w.data(), 1);
    if (norm == 0) return 0.0;
    const double prev = lambda;
    lambda = norm;  // ||A v|| with ||v|| = 1 converges to lambda_max for PSD A
    for (int j = 0; j < d; ++j) v[j] = w[j] / norm;
    if (it > 0 && std::fabs(lambda - prev) <= tol * lambda) break;
  }
  return lambda;
}

double glm_loss::smoothness(double tol, int max_iterations) const {
  return curvature_bound() * gram_lambda_max(data_, tol, max_iterations);
}

}  // namespace dpx::losses
