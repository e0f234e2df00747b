// Panel type and user-level generators.
#include "dpx/data/user_models.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "dpx/core/error.hpp"
#include "dpx/data/spectral.hpp"
#include "dpx/data/stationary.hpp"
#include "linalg.hpp"

namespace dpx::data {

// ---- panel ----------------------------------------------------------------------------------
panel::panel(std::size_t users, std::size_t times, std::size_t dims)
    : n_(users), t_(times), d_(dims) {
  core::check_at_least("panel", "users", static_cast<long long>(users), 1);
  core::check_at_least("panel", "times", static_cast<long long>(times), 1);
  core::check_at_least("panel", "dims", static_cast<long long>(dims), 1);
  v_.assign(users * times * dims, 0.0);
}

std::vector<double> panel::user_means() const {
  std::vector<double> m(n_ * d_, 0.0);
  for (std::size_t u = 0; u < n_; ++u)
    for (std::size_t t = 0; t < t_; ++t)
      for (std::size_t j = 0; j < d_; ++j) m[u * d_ + j] += (*this)(u, t, j);
  for (double& v : m) v /= static_cast<double>(t_);
  return m;
}

namespace detail {
void ar1_unit_filter(std::span<double> z, double phi, double sd) noexcept {
  if (z.empty()) return;
  const double c = sd * std::sqrt(1.0 - phi * phi);
  double prev = sd * z[0];
  z[0] = prev;
  for (std::size_t t = 1; t < z.size(); ++t) {
    prev = phi * prev + c * z[t];
    z[t] = prev;
  }
}
}  // namespace detail

// ---- block Toeplitz ------------------------------------------------------------------------
void block_toeplitz_options::validate() const {
  const char* fn = "block_toeplitz";
  core::check_at_least(fn, "users", static_cast<long long>(users), 1);
  core::check_at_least(fn, "times", static_cast<long long>(times), 1);
  core::check_open_interval(fn, "rho", rho, -1.0, 1.0);
  core::check_positive(fn, "variance", variance);
  core::check_finite(fn, "mu", mu);
}
block_toeplitz::block_toeplitz(block_toeplitz_options o) : o_(o) { o_.validate(); }
xt::xtensor<double, 2> block_toeplitz::user_covariance() const {
  return detail::square_tensor(
      detail::toeplitz_dense(toeplitz_power_autocovariance(o_.times, o_.rho, o_.variance)),
      o_.times);
}
double block_toeplitz::log_sobolev() const {
  return toeplitz_lambda_max(toeplitz_power_autocovariance(o_.times, o_.rho, o_.variance));
}
double block_toeplitz::user_mean_variance() const {
  return mean_variance_constant(toeplitz_power_autocovariance(o_.times, o_.rho, o_.variance)) /
         static_cast<double>(o_.times);
}

// ---- random effects ------------------------------------------------------------------------
random_effects_options random_effects_options::balanced(std::size_t groups, std::size_t per_group) {
  random_effects_options o;
  o.group_sizes.assign(groups, per_group);
  return o;
}
void random_effects_options::validate() const {
  const char* fn = "random_effects";
  core::check_at_least(fn, "groups", static_cast<long long>(group_sizes.size()), 1);
  for (std::size_t g : group_sizes)
    core::check_at_least(fn, "group_sizes", static_cast<long long>(g), 1);
  core::check_at_least(fn, "times", static_cast<long long>(times), 1);
  core::check_finite(fn, "mu", mu);
  core::check_nonnegative(fn, "sigma_u", sigma_u);
  core::check_positive(fn, "sigma", sigma);
  core::check_open_interval(fn, "phi", phi, -1.0, 1.0);
}
random_effects::random_effects(random_effects_options o) : o_(std::move(o)) {
  o_.validate();
  n_ = std::accumulate(o_.group_sizes.begin(), o_.group_sizes.end(), std::size_t{0});
}
std::size_t random_effects::group_of(std::size_t user) const {
  if (user >= n_)
    core::throw_invalid("random_effects::group_of", "user", double(user), "out of range");
  std::size_t acc = 0;
  for (std::size_t g = 0; g < groups(); ++g) {
    acc += o_.group_sizes[g];
    if (user < acc) return g;
  }
  return groups() - 1;
}
xt::xtensor<double, 2> random_effects::noise_covariance() const {
  return detail::square_tensor(
      detail::toeplitz_dense(toeplitz_power_autocovariance(o_.times, o_.phi, o_.sigma * o_.sigma)),
      o_.times);
}
double random_effects::log_sobolev() const {
  const double ng =
      static_cast<double>(*std::max_element(o_.group_sizes.begin(), o_.group_sizes.end()));
  return detail::toeplitz_plus_constant_lambda_max(
      toeplitz_power_autocovariance(o_.times, o_.phi, o_.sigma * o_.sigma),
      o_.sigma_u * o_.sigma_u * ng);
}
double random_effects::log_sobolev_bound() const {
  const double ng =
      static_cast<double>(*std::max_element(o_.group_sizes.begin(), o_.group_sizes.end()));
  return o_.sigma_u * o_.sigma_u * ng * static_cast<double>(o_.times) +
         toeplitz_lambda_max(toeplitz_power_autocovariance(o_.times, o_.phi, o_.sigma * o_.sigma));
}
double random_effects::user_log_sobolev() const {
  return detail::toeplitz_plus_constant_lambda_max(
      toeplitz_power_autocovariance(o_.times, o_.phi, o_.sigma * o_.sigma),
      o_.sigma_u * o_.sigma_u);
}
double random_effects::user_mean_variance() const {
  return o_.sigma_u * o_.sigma_u + mean_variance_constant(toeplitz_power_autocovariance(
                                       o_.times, o_.phi, o_.sigma * o_.sigma)) /
                                       static_cast<double>(o_.times);
}
double random_effects::grand_mean_variance() const {
  const double T = static_cast<double>(o_.times), n = static_cast<double>(n_);
  double s = 0.0;
  for (std::size_t g : o_.group_sizes)
    s += (static_cast<double>(g) * T) * (static_cast<double>(g) * T);
  const double within = T * mean_variance_constant(toeplitz_power_autocovariance(
                                o_.times, o_.phi, o_.sigma * o_.sigma));
  return (o_.sigma_u * o_.sigma_u * s + n * within) / ((n * T) * (n * T));
}

// ---- longitudinal regression ---------------------------------------------------------------
void longitudinal_options::validate() const {
  const char* fn = "longitudinal";
  core::check_at_least(fn, "users", static_cast<long long>(users), 1);
  core::check_at_least(fn, "p", static_cast<long long>(p), 1);
  if (times < p)
    core::throw_invalid(fn,
                        "times",
                        static_cast<double>(times),
                        "must be >= p = " + std::to_string(p) + " (per-user OLS needs T >= p)");
  if (!beta.empty()) {
    core::check_size(fn, "beta", beta.size(), p);
    core::check_finite_span(fn, "beta", beta);
  }
  core::check_positive(fn, "sigma", sigma);
  core::check_open_interval(fn, "phi", phi, -1.0, 1.0);
  core::check_open_interval(fn, "covariate_phi", covariate_phi, -1.0, 1.0);
  core::check_nonnegative(fn, "random_intercept_sd", random_intercept_sd);
}
longitudinal::longitudinal(longitudinal_options o) : o_(std::move(o)) {
  o_.validate();
  beta_ = o_.beta.empty() ? std::vector<double>(o_.p, 1.0) : o_.beta;
}

void longitudinal::assemble(std::span<double> z,
                            std::span<double> e,
                            longitudinal_sample& s) const {
  const std::size_t n = o_.users, T = o_.times, p = o_.p, nz = p > 2 ? p - 2 : 0;
  core::check_size("longitudinal::assemble", "z", z.size(), n * T * nz);
  core::check_size("longitudinal::assemble", "e", e.size(), n * (T + 1));
  for (std::size_t u = 0; u < n; ++u) {
    for (std::size_t c = 0; c < nz; ++c)
      detail::ar1_unit_filter(z.subspan((u * nz + c) * T, T), o_.covariate_phi, 1.0);
    auto eu = e.subspan(u * (T + 1), T + 1);
    detail::ar1_unit_filter(eu.first(T), o_.phi, o_.sigma);
    const double b = o_.random_intercept_sd * eu[T];
    for (std::size_t t = 0; t < T; ++t) {
      s.x(u, t, 0) = 1.0;
      if (p >= 2) s.x(u, t, 1) = static_cast<double>(t + 1) / static_cast<double>(T);
      for (std::size_t c = 0; c < nz; ++c) s.x(u, t, 2 + c) = z[(u * nz + c) * T + t];
      double y = eu[t] + b;
      for (std::size_t j = 0; j < p; ++j) y += s.x(u, t, j) * beta_[j];
      s.y(u, t) = y;
    }
  }
}

xt::xtensor<double, 2> longitudinal::error_covariance() const {
  auto a =
      detail::toeplitz_dense(toeplitz_power_autocovariance(o_.times, o_.phi, o_.sigma * o_.sigma));
  const double b2 = o_.random_intercept_sd * o_.random_intercept_sd;
  for (double& v : a) v += b2;
  return detail::square_tensor(a, o_.times);
}
double longitudinal::log_sobolev() const {
  return detail::toeplitz_plus_constant_lambda_max(
      toeplitz_power_autocovariance(o_.times, o_.phi, o_.sigma * o_.sigma),
      o_.random_intercept_sd * o_.random_intercept_sd);
}
design_bounds longitudinal::bounds(const panel& x) {
  const std::size_t T = x.times(), p = x.dims();
  design_bounds b{std::numeric_limits<double>::infinity(), 0.0};
  std::vector<double> m(p * p);
  for (std::size_t u = 0; u < x.users(); ++u) {
    std::fill(m.begin(), m.end(), 0.0);
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t i = 0; i < p; ++i)
        for (std::size_t j = 0; j < p; ++j) m[i * p + j] += x(u, t, i) * x(u, t, j);
    for (double& v : m) v /= static_cast<double>(T);
    const auto ev = symmetric_eigenvalues(m, p);
    b.theta_lo = std::min(b.theta_lo, ev.front());
    b.theta_hi = std::max(b.theta_hi, ev.back());
  }
  return b;
}

}  // namespace dpx::data
