#include "dpx/estimators/user_level.hpp"

#include <cmath>
#include <string>

#include "dpx/core/error.hpp"

namespace dpx::estimators {

void panel_view::validate(const char* function) const {
  if (users == 0) core::throw_invalid(function, "users", "0", "must be >= 1");
  if (times == 0) core::throw_invalid(function, "times", "0", "must be >= 1");
  if (dims == 0) core::throw_invalid(function, "dims", "0", "must be >= 1");
  core::check_size(function, "values", values.size(), users * times * dims);
  core::check_finite_span(function, "values", values);
}

std::vector<double> user_averages(const panel_view& p) {
  p.validate("user_averages");
  const std::size_t n = p.users, t = p.times, d = p.dims;
  std::vector<double> out(n * d, 0.0);
  for (std::size_t u = 0; u < n; ++u) {
    double* o = out.data() + u * d;
    const double* b = p.values.data() + u * t * d;
    for (std::size_t s = 0; s < t; ++s)
      for (std::size_t j = 0; j < d; ++j) o[j] += b[s * d + j];
    for (std::size_t j = 0; j < d; ++j) o[j] /= static_cast<double>(t);
  }
  return out;
}

std::vector<double> user_averages(std::span<const double> rows,
                                  std::size_t d,
                                  std::span<const std::size_t> offsets) {
  constexpr const char* fn = "user_averages";
  if (d == 0) core::throw_invalid(fn, "d", "0", "must be >= 1");
  if (offsets.size() < 2)
    core::throw_invalid(
        fn, "offsets", std::to_string(offsets.size()) + " entries", "must hold n + 1 >= 2 entries");
  if (offsets.front() != 0 || offsets.back() * d != rows.size())
    core::throw_invalid(
        fn, "offsets", "first/last entry", "must start at 0 and end at the number of rows");
  core::check_finite_span(fn, "rows", rows);
  const std::size_t n = offsets.size() - 1;
  std::vector<double> out(n * d, 0.0);
  for (std::size_t u = 0; u < n; ++u) {
    if (offsets[u + 1] <= offsets[u])
      core::throw_invalid(fn,
                          "offsets",
                          "user " + std::to_string(u),
                          "must be strictly increasing (every user needs a row)");
    double* o = out.data() + u * d;
    for (std::size_t r = offsets[u]; r < offsets[u + 1]; ++r)
      for (std::size_t j = 0; j < d; ++j) o[j] += rows[r * d + j];
    const double c = static_cast<double>(offsets[u + 1] - offsets[u]);
    for (std::size_t j = 0; j < d; ++j) o[j] /= c;
  }
  return out;
}

double tau_random_effects(double sigma_u2,
                          double noise_mean_variance,
                          std::size_t users,
                          double gamma) {
  constexpr const char* fn = "tau_random_effects";
  core::check_nonnegative(fn, "sigma_u2", sigma_u2);
  core::check_positive(fn, "noise_mean_variance", noise_mean_variance);
  return tau_user_mean_variance(sigma_u2 + noise_mean_variance, users, 1, gamma);
}

namespace detail {
namespace {

// In-place Cholesky A = L Lᵀ of an m×m row-major SPD matrix (lower triangle holds L).
// Returns false when a pivot is ≤ tol (numerically singular).
bool cholesky(std::vector<double>& a, std::size_t m, double tol) {
  for (std::size_t j = 0; j < m; ++j) {
    double s = a[j * m + j];
    for (std::size_t k = 0; k < j; ++k) s -= a[j * m + k] * a[j * m + k];
    if (!(s > tol)) return false;
    const double l = std::sqrt(s);
    a[j * m + j] = l;
    for (std::size_t i = j + 1; i < m; ++i) {
      double v = a[i * m + j];
      for (std::size_t k = 0; k < j; ++k) v -= a[i * m + k] * a[j * m + k];
      a[i * m + j] = v / l;
    }
  }
  return true;
}

// Solves L z = b in place (L lower triangular m×m row-major); b has `cols` columns (m×cols).
void forward(const std::vector<double>& l, std::size_t m, double* b, std::size_t cols) {
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t c = 0; c < cols; ++c) {
      double v = b[i * cols + c];
      for (std::size_t k = 0; k < i; ++k) v -= l[i * m + k] * b[k * cols + c];
      b[i * cols + c] = v / l[i * m + i];
    }
  }
}

// Solves Lᵀ z = b in place (one column).
void backward(const std::vector<double>& l, std::size_t m, double* b) {
  for (std::size_t i = m; i-- > 0;) {
    double v = b[i];
    for (std::size_t k = i + 1; k < m; ++k) v -= l[k * m + i] * b[k];
    b[i] = v / l[i * m + i];
  }
}

}  // namespace

std::vector<double> per_user_coefficients(const panel_view& x,
                                          std::span<const double> y,
                                          regression_weighting w,
                                          std::span<const double> covariance,
                                          std::size_t* singular) {
  constexpr const char* fn = "longitudinal_regression";
  const std::size_t n = x.users, t = x.times, p = x.dims;
  core::check_size(fn, "y", y.size(), n * t);
  core::check_finite_span(fn, "y", y);
  if (t < p)
    core::throw_invalid(fn,
                        "times",
                        std::to_string(t),
                        "must be >= p = " + std::to_string(p) + " (per-user least squares)");
  const bool weighted = w == regression_weighting::weighted;
  bool per_user_cov = false;
  std::vector<double> lcov;  // shared Cholesky factor
  if (weighted) {
    if (covariance.size() == t * t) {
      per_user_cov = false;
    } else if (covariance.size() == n * t * t) {
      per_user_cov = true;
    } else {
      core::throw_invalid(fn,
                          "error_covariance",
                          "size " + std::to_string(covariance.size()),
                          "must be T*T (shared) or n*T*T (per user) for weighted regression");
    }
    core::check_finite_span(fn, "error_covariance", covariance);
    if (!per_user_cov) {
      lcov.assign(covariance.begin(), covariance.end());
      if (!cholesky(lcov, t, 0.0))
        core::throw_invalid(fn, "error_covariance", "shared", "must be positive definite");
    }
  }
  std::vector<double> beta(n * p, 0.0);
  std::vector<double> xb(t * p), yb(t), gram(p * p), rhs(p), lc;
  std::size_t bad = 0;
  for (std::size_t u = 0; u < n; ++u) {
    const double* xu = x.values.data() + u * t * p;
    std::copy(xu, xu + t * p, xb.begin());
    std::copy(y.begin() + static_cast<std::ptrdiff_t>(u * t),
              y.begin() + static_cast<std::ptrdiff_t>((u + 1) * t),
              yb.begin());
    if (weighted) {
      // Whitening: with Σ_u = L Lᵀ, GLS is OLS on (L⁻¹X_u, L⁻¹Y_u) (Aitken 1935).
      const std::vector<double>* l = &lcov;
      if (per_user_cov) {
        lc.assign(covariance.begin() + static_cast<std::ptrdiff_t>(u * t * t),
                  covariance.begin() + static_cast<std::ptrdiff_t>((u + 1) * t * t));
        if (!cholesky(lc, t, 0.0))
          core::throw_invalid(
              fn, "error_covariance", "user " + std::to_string(u), "must be positive definite");
        l = &lc;
      }
      forward(*l, t, xb.data(), p);
      forward(*l, t, yb.data(), 1);
    }
    // Normal equations (X̃ᵀX̃) β = X̃ᵀỹ by Cholesky.
    double trace = 0;
    for (std::size_t a = 0; a < p; ++a) {
      for (std::size_t b = 0; b <= a; ++b) {
        double s = 0;
        for (std::size_t r = 0; r < t; ++r) s += xb[r * p + a] * xb[r * p + b];
        gram[a * p + b] = s;
        gram[b * p + a] = s;
      }
      trace += gram[a * p + a];
      double s = 0;
      for (std::size_t r = 0; r < t; ++r) s += xb[r * p + a] * yb[r];
      rhs[a] = s;
    }
    if (!cholesky(gram, p, 1e-12 * trace / static_cast<double>(p))) {
      ++bad;
      continue;  // β̂_u = 0: a fixed function of this user's data (privacy unaffected)
    }
    forward(gram, p, rhs.data(), 1);
    backward(gram, p, rhs.data());
    for (std::size_t a = 0; a < p; ++a) beta[u * p + a] = rhs[a];
  }
  if (singular) *singular = bad;
  return beta;
}

}  // namespace detail
}  // namespace dpx::estimators
