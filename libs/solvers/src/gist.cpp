#include "dpx/solvers/gist.hpp"

#include <cblas.h>

#include "dpx/core/error.hpp"

namespace dpx::solvers {

void gist_options::validate() const {
  const char* fn = "solvers::gist_options";
  core::check_at_least(fn, "max_iterations", max_iterations, 1);
  core::check_nonnegative(fn, "tol", tol);
  core::check_nonnegative(fn, "stationarity_tol", stationarity_tol);
  core::check_at_least(fn, "memory", memory, 1);
  core::check_open_interval(fn, "sigma", sigma, 0.0, 1.0);
  core::check_finite(fn, "eta", eta);
  if (!(eta > 1.0)) core::throw_invalid(fn, "eta", eta, "must be > 1");
  core::check_positive(fn, "t_min", t_min);
  core::check_positive(fn, "t_max", t_max);
  core::check_positive(fn, "t_initial", t_initial);
  if (!(t_min <= t_initial && t_initial <= t_max))
    core::throw_invalid(fn, "t_initial", t_initial, "must lie in [t_min, t_max]");
  core::check_at_least(fn, "max_line_search", max_line_search, 1);
  core::check_at_least(fn, "working_set_initial", working_set_initial, 1);
  trace.validate(fn);
}

quadratic_loss::quadratic_loss(std::vector<double> gram, std::vector<double> linear, double c0)
    : g_(std::move(gram)), c_(std::move(linear)), c0_(c0), gb_(c_.size()) {
  const char* fn = "solvers::quadratic_loss";
  core::check_size(fn, "gram", g_.size(), c_.size() * c_.size());
  core::check_finite_span(fn, "gram", g_);
  core::check_finite_span(fn, "linear", c_);
  core::check_finite(fn, "constant", c0_);
}

double quadratic_loss::value(std::span<const double> b) const {
  std::vector<double> tmp(c_.size());
  return value_and_gradient(b, tmp);
}

double quadratic_loss::value_and_gradient(std::span<const double> b, std::span<double> grad) const {
  const std::size_t w = c_.size();
  core::check_size("solvers::quadratic_loss", "b", b.size(), w);
  core::check_size("solvers::quadratic_loss", "grad", grad.size(), w);
  double quad = 0, lin = 0;
  for (std::size_t i = 0; i < w; ++i) {
    const double* row = g_.data() + i * w;
    double s = 0;
    for (std::size_t j = 0; j < w; ++j) s += row[j] * b[j];
    quad += s * b[i];
    lin += c_[i] * b[i];
    grad[i] = s - c_[i];
  }
  return 0.5 * quad - lin + c0_;
}

namespace detail {

void build_restricted(const losses::glm_loss& loss,
                      std::span<const std::size_t> cols,
                      restricted_problem& out) {
  const auto& data = loss.data();
  const std::size_t n = data.rows, d = data.cols, w = cols.size();
  out.xw.resize(n * w);
  for (std::size_t i = 0; i < n; ++i) {
    const double* row = data.x.data() + i * d;
    double* dst = out.xw.data() + i * w;
    for (std::size_t k = 0; k < w; ++k) dst[k] = row[cols[k]];
  }
  if (loss.kind() != losses::glm_kind::least_squares) return;
  const double inv_n = 1.0 / static_cast<double>(n);
  out.gram.assign(w * w, 0.0);
  out.linear.assign(w, 0.0);
  double yy = 0;
  for (double v : data.y) yy += v * v;
  out.constant = 0.5 * yy * inv_n;
  // An empty working set (every coordinate at zero, e.g. a large lambda) has no Gram block: BLAS
  // rejects a leading dimension of 0 (it prints "** On entry to DSYRK parameter number 7 had an
  // illegal value" on stdout), so skip the calls.
  if (w == 0) return;
  cblas_dsyrk(CblasRowMajor,
              CblasUpper,
              CblasTrans,
              static_cast<int>(w),
              static_cast<int>(n),
              inv_n,
              out.xw.data(),
              static_cast<int>(w),
              0.0,
              out.gram.data(),
              static_cast<int>(w));
  for (std::size_t i = 0; i < w; ++i)
    for (std::size_t j = 0; j < i; ++j) out.gram[i * w + j] = out.gram[j * w + i];
  cblas_dgemv(CblasRowMajor,
              CblasTrans,
              static_cast<int>(n),
              static_cast<int>(w),
              inv_n,
              out.xw.data(),
              static_cast<int>(w),
              data.y.data(),
              1,
              0.0,
              out.linear.data(),
              1);
}

}  // namespace detail
}  // namespace dpx::solvers
