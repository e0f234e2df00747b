#include "dpx/solvers/online_kernel.hpp"

#include <algorithm>

#include "dpx/core/error.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/common.hpp"

namespace dpx::solvers {

std::string to_string(kernel_kind k) {
  switch (k) {
    case kernel_kind::gaussian:
      return "gaussian";
    case kernel_kind::polynomial:
      return "polynomial";
    case kernel_kind::linear:
      return "linear";
  }
  return "unknown";
}
kernel_kind parse_kernel_kind(const std::string& s) {
  for (auto k : {kernel_kind::gaussian, kernel_kind::polynomial, kernel_kind::linear})
    if (to_string(k) == s) return k;
  core::throw_invalid(
      "solvers::parse_kernel_kind", "kernel", s, "must be gaussian, polynomial or linear");
}
std::string to_string(kernel_privacy p) {
  switch (p) {
    case kernel_privacy::none:
      return "none";
    case kernel_privacy::per_query:
      return "per_query";
    case kernel_privacy::function_release:
      return "function_release";
  }
  return "unknown";
}
kernel_privacy parse_kernel_privacy(const std::string& s) {
  for (auto p : {kernel_privacy::none, kernel_privacy::per_query, kernel_privacy::function_release})
    if (to_string(p) == s) return p;
  core::throw_invalid(
      "solvers::parse_kernel_privacy", "privacy", s, "must be none, per_query or function_release");
}

void kernel::validate(const char* fn) const {
  if (kind == kernel_kind::gaussian) core::check_positive(fn, "kernel.bandwidth", bandwidth);
  if (kind == kernel_kind::polynomial) {
    core::check_at_least(fn, "kernel.degree", degree, 1);
    core::check_nonnegative(fn, "kernel.offset", offset);
  }
}

double kernel::operator()(std::span<const double> a, std::span<const double> b) const noexcept {
  double s = 0;
  switch (kind) {
    case kernel_kind::gaussian:
      for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
      return std::exp(-s / (2.0 * bandwidth * bandwidth));
    case kernel_kind::polynomial:
      for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
      return std::pow(s + offset, degree);
    case kernel_kind::linear:
      for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
      return s;
  }
  return 0;
}

double kernel::kappa(double input_bound) const noexcept {
  switch (kind) {
    case kernel_kind::gaussian:
      return 1.0;
    case kernel_kind::polynomial:
      return std::pow(input_bound * input_bound + offset, 0.5 * degree);
    case kernel_kind::linear:
      return input_bound;
  }
  return 1.0;
}

void online_kernel_options::validate() const {
  const char* fn = "solvers::online_kernel_options";
  core::check_open_interval(fn, "theta", theta, 0.5, 1.0);
  core::check_nonnegative(fn, "t0", t0);
  core::check_positive(fn, "output_bound", output_bound);
  core::check_positive(fn, "input_bound", input_bound);
  if (privacy == kernel_privacy::none)
    detail::refuse_target(fn, target, "privacy", "none", "adds no noise (NOT private)");
  if (privacy == kernel_privacy::per_query)
    detail::require_target(fn, target, "per_query", /*needs_delta=*/false);
  if (privacy == kernel_privacy::function_release) {
    const auto& t = detail::require_target(fn, target, "function_release");
    // HRW 2013 (Prop. 3 / Cor. 9) calibrate with the classical Gaussian constant
    // sqrt(2 log(2/delta)) / epsilon, whose proof needs epsilon <= 1.
    if (!(t.epsilon <= 1.0))
      core::throw_invalid(fn,
                          "epsilon",
                          t.epsilon,
                          "must be <= 1 for function_release (the classical Gaussian constant "
                          "sqrt(2 log(2/delta))/epsilon of Hall, Rinaldo & Wasserman needs it)");
  }
}

online_kernel_regression::online_kernel_regression(kernel k,
                                                   std::size_t input_dim,
                                                   online_kernel_options options)
    : k_(k), p_(input_dim), o_(options) {
  const char* fn = "solvers::online_kernel_regression";
  k_.validate(fn);
  o_.validate();
  core::check_at_least(fn, "input_dim", static_cast<long long>(input_dim), 1);
  kappa_ = k_.kappa(o_.input_bound);
  const double t0_min = std::pow(kappa_ * kappa_ + 1.0, 1.0 / o_.theta);
  if (o_.t0 == 0) {
    t0_ = t0_min;
  } else {
    if (std::pow(o_.t0, o_.theta) < kappa_ * kappa_ + 1.0 * (1 - 1e-15))
      core::throw_invalid(fn, "t0", o_.t0, "must satisfy t0^theta >= kappa^2 + 1");
    t0_ = o_.t0;
  }
}

void online_kernel_regression::update(std::span<const double> x, double y) {
  const char* fn = "solvers::online_kernel_regression::update";
  core::check_size(fn, "x", x.size(), p_);
  core::check_finite_span(fn, "x", x);
  core::check_finite(fn, "y", y);
  y = std::clamp(y, -o_.output_bound, o_.output_bound);
  // kappa (and with it C_t, D_t) assumes ||x|| <= input_bound: project, so it holds for every
  // record (no record is refused, and how many were projected is not kept).
  std::vector<double> xb;
  if (bounded_inputs()) {
    xb.resize(p_);
    prox::l2_ball(o_.input_bound).apply(x, 1.0, xb);
    x = xb;
  }
  const double e = eta(t_), l = lambda(t_);
  const double residual = predict(x) - y;
  scale_ *= 1.0 - e * l;
  if (scale_ < 1e-150) {  // renormalise (never reached for the paper's schedules)
    for (double& a : a_) a *= scale_;
    scale_ = 1.0;
  }
  x_.insert(x_.end(), x.begin(), x.end());
  a_.push_back(-e * residual / scale_);
  ++t_;
}

double online_kernel_regression::predict(std::span<const double> x) const {
  core::check_size("solvers::online_kernel_regression::predict", "x", x.size(), p_);
  const std::size_t t = a_.size();
  double s = 0;
  if (k_.kind == kernel_kind::gaussian && p_ == 1) {
    const double c = -1.0 / (2.0 * k_.bandwidth * k_.bandwidth), x0 = x[0];
    for (std::size_t i = 0; i < t; ++i) {
      const double d = x_[i] - x0;
      s += a_[i] * std::exp(c * d * d);
    }
  } else {
    for (std::size_t i = 0; i < t; ++i)
      s += a_[i] * k_(std::span<const double>(x_.data() + i * p_, p_), x);
  }
  return scale_ * s;
}

void online_kernel_regression::check_query(const char* fn, std::span<const double> x) const {
  core::check_size(fn, "x", x.size(), p_);
  core::check_finite_span(fn, "x", x);
  if (!bounded_inputs()) return;
  double ss = 0;
  for (double v : x) ss += v * v;
  // |f(q)| <= sqrt(K(q, q)) ||f||_H <= kappa ||f||_H, which C_t rests on, needs ||q|| <= B.
  if (std::sqrt(ss) > o_.input_bound)
    core::throw_invalid(fn,
                        "x",
                        std::sqrt(ss),
                        "a private query point must satisfy ||x|| <= input_bound (the public "
                        "bound kappa and the sensitivity C_t rest on)");
}

double online_kernel_regression::sup_sensitivity() const noexcept {
  if (t_ == 0) return 0;
  const double k2 = kappa_ * kappa_, m = o_.output_bound;
  return 2.0 * k2 * (k2 + 1.0) * m / std::pow(double(t_ - 1) + t0_, 2.0 * o_.theta - 1.0);
}

double online_kernel_regression::rkhs_sensitivity() const noexcept {
  if (t_ == 0) return 0;
  const double k2 = kappa_ * kappa_, m = o_.output_bound;
  return 2.0 * eta(t_ - 1) * kappa_ * (k2 * m / lambda(t_ - 1) + m);
}

double online_kernel_regression::function_noise_multiplier() const noexcept {
  return std::sqrt(2.0 * std::log(2.0 / o_.target->delta)) / o_.target->epsilon;
}

std::vector<double> online_kernel_regression::coefficients() const {
  std::vector<double> c(a_);
  for (double& v : c) v *= scale_;
  return c;
}

std::vector<double> online_kernel_regression::cholesky(std::span<const double> points) const {
  const std::size_t m = points.size() / p_;
  std::vector<double> l(m * m, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j <= i; ++j)
      l[i * m + j] = k_(points.subspan(i * p_, p_), points.subspan(j * p_, p_));
  // Cholesky with a tiny jitter for numerically singular Grams (repeated or close points).
  const double jitter = 1e-10;
  for (std::size_t j = 0; j < m; ++j) {
    double d = l[j * m + j] + jitter;
    for (std::size_t k = 0; k < j; ++k) d -= l[j * m + k] * l[j * m + k];
    d = std::sqrt(std::fmax(d, 0.0));
    l[j * m + j] = d;
    for (std::size_t i = j + 1; i < m; ++i) {
      double s = l[i * m + j];
      for (std::size_t k = 0; k < j; ++k) s -= l[i * m + k] * l[j * m + k];
      l[i * m + j] = d > 0 ? s / d : 0.0;
    }
  }
  return l;
}

void online_kernel_regression::colour(const std::vector<double>& l, std::vector<double>& z) {
  const std::size_t m = z.size();
  std::vector<double> out(m, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t k = 0; k <= i; ++k) out[i] += l[i * m + k] * z[k];
  z.swap(out);
}

void online_kernel_regression::whiten(const std::vector<double>& l, std::vector<double>& z) {
  const std::size_t m = z.size();
  for (std::size_t i = 0; i < m; ++i) {
    double s = z[i];
    for (std::size_t k = 0; k < i; ++k) s -= l[i * m + k] * z[k];
    const double d = l[i * m + i];
    z[i] = d > 0 ? s / d : 0.0;
  }
}

}  // namespace dpx::solvers
