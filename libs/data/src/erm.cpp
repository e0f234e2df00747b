#include "dpx/data/erm.hpp"

#include <cmath>

#include "dpx/core/error.hpp"
#include "dpx/data/spectral.hpp"
#include "dpx/data/stationary.hpp"
#include "linalg.hpp"

namespace dpx::data {

void erm_options::validate() const {
  const char* fn = "erm_options";
  core::check_at_least(fn, "n", static_cast<long long>(n), 1);
  core::check_at_least(fn, "d", static_cast<long long>(d), 1);
  core::check_at_least(fn, "k", static_cast<long long>(k), 1);
  if (k > d)
    core::throw_invalid(fn, "k", static_cast<double>(k), "must be <= d = " + std::to_string(d));
  core::check_open_interval(fn, "rho", rho, -1.0, 1.0);
  core::check_positive(fn, "signal", signal);
  core::check_nonnegative(fn, "noise_sd", noise_sd);
}

namespace detail {
void toeplitz_rows(std::span<double> x, std::size_t d, double r, row_scaling scaling) {
  const std::size_t m = x.size() / d;
  const double c = std::sqrt(1.0 - r * r);
  for (std::size_t i = 0; i < m; ++i) {
    double* row = x.data() + i * d;
    double prev = row[0];
    for (std::size_t j = 1; j < d; ++j) {
      prev = r * prev + c * row[j];
      row[j] = prev;
    }
    if (scaling != row_scaling::none) {
      double s = 0.0;
      for (std::size_t j = 0; j < d; ++j) s += row[j] * row[j];
      const double nr = std::sqrt(s);
      const double div = scaling == row_scaling::clip ? std::max(1.0, nr) : (nr > 0.0 ? nr : 1.0);
      for (std::size_t j = 0; j < d; ++j) row[j] /= div;
    }
  }
}
}  // namespace detail

erm_design::erm_design(erm_options o) : o_(o) { o_.validate(); }
xt::xtensor<double, 2> erm_design::feature_covariance() const {
  const auto a = detail::toeplitz_dense(toeplitz_power_autocovariance(o_.d, o_.rho, 1.0));
  xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({o_.d, o_.d});
  std::copy(a.begin(), a.end(), x.begin());
  return x;
}
double erm_design::feature_lambda_max() const {
  return toeplitz_lambda_max(toeplitz_power_autocovariance(o_.d, o_.rho, 1.0));
}
double erm_design::feature_lambda_min() const {
  return toeplitz_eigen_range(toeplitz_power_autocovariance(o_.d, o_.rho, 1.0)).min;
}

namespace {
void linear_predictor(const xt::xtensor<double, 2>& x,
                      const erm_sample& s,
                      std::vector<double>& eta) {
  const std::size_t m = x.shape()[0], d = x.shape()[1];
  eta.assign(m, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    double v = 0.0;
    for (std::size_t j : s.support) v += x.data()[i * d + j] * s.beta(j);
    eta[i] = v;
  }
}
}  // namespace

sparse_linear::sparse_linear(erm_options o) : erm_design(o) {}
void sparse_linear::respond(erm_sample& s) const {
  std::vector<double> eta;
  linear_predictor(s.x_train, s, eta);
  for (std::size_t i = 0; i < eta.size(); ++i) s.y_train(i) = eta[i] + o_.noise_sd * s.y_train(i);
  linear_predictor(s.x_test, s, eta);
  for (std::size_t i = 0; i < eta.size(); ++i) s.y_test(i) = eta[i] + o_.noise_sd * s.y_test(i);
}

sparse_logistic::sparse_logistic(erm_options o) : erm_design(o) {}
void sparse_logistic::respond(erm_sample& s) const {
  const double neg = o_.labels == label_encoding::zero_one ? 0.0 : -1.0;
  std::vector<double> eta;
  auto label = [&](xt::xtensor<double, 1>& y, const xt::xtensor<double, 2>& x) {
    linear_predictor(x, s, eta);
    for (std::size_t i = 0; i < eta.size(); ++i) {
      const double p = 1.0 / (1.0 + std::exp(-eta[i]));
      y(i) = y(i) < p ? 1.0 : neg;
    }
  };
  label(s.y_train, s.x_train);
  label(s.y_test, s.x_test);
}

}  // namespace dpx::data
