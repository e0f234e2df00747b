// Extreme eigenvalues: dense LAPACK syevd and Lanczos with an FFT Toeplitz mat-vec.
#include "dpx/data/spectral.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "fft.hpp"

namespace dpx::data {

void eigen_options::validate() const {
  core::check_at_least(
      "eigen_options::validate", "max_iterations", static_cast<long long>(max_iterations), 1);
  core::check_open_interval("eigen_options::validate", "tolerance", tolerance, 0.0, 1.0);
}

std::vector<double> symmetric_eigenvalues(std::span<const double> a, std::size_t n) {
  core::check_size("symmetric_eigenvalues", "a", a.size(), n * n);
  core::check_finite_span("symmetric_eigenvalues", "a", a);
  if (n == 0) return {};
  xt::xtensor<double, 2> m = xt::zeros<double>({n, n});
  std::copy(a.begin(), a.end(), m.data());
  const xt::xtensor<double, 1> w = xt::linalg::eigvalsh(m);
  std::vector<double> out(w.begin(), w.end());
  std::sort(out.begin(), out.end());
  return out;
}

std::size_t next_fast_fft_size(std::size_t n) {
  if (n <= 1) return 1;
  for (std::size_t m = n;; ++m) {
    std::size_t r = m;
    for (std::size_t p : {2u, 3u, 5u, 7u})
      while (r % p == 0) r /= p;
    if (r == 1) return m;
  }
}

double mean_variance_constant(std::span<const double> g) {
  const std::size_t n = g.size();
  if (n == 0) return 0.0;
  double s = g[0];
  const double dn = static_cast<double>(n);
  for (std::size_t h = 1; h < n; ++h) s += 2.0 * (1.0 - static_cast<double>(h) / dn) * g[h];
  return s;
}

// ---- Toeplitz operator -------------------------------------------------------------------
struct toeplitz_operator::impl {
  std::size_t m = 0;
  std::vector<double> lambda;  // real eigenvalues of the circulant embedding, m/2+1 entries
  detail::fft_buffer real;     // m doubles
  detail::fft_buffer cplx;     // 2(m/2+1) doubles
  detail::fft_plan fwd, bwd;
};

toeplitz_operator::toeplitz_operator(std::span<const double> c) : n_(c.size()) {
  if (n_ == 0) core::throw_invalid("toeplitz_operator", "first_column.size()", 0.0, "must be >= 1");
  core::check_finite_span("toeplitz_operator", "first_column", c);
  impl_ = new impl;
  const std::size_t m = next_fast_fft_size(2 * n_);  // >= 2n-1: no wrap-around
  impl_->m = m;
  impl_->real = detail::make_fft_buffer(m);
  impl_->cplx = detail::make_fft_buffer(2 * (m / 2 + 1));
  auto* cx = reinterpret_cast<fftw_complex*>(impl_->cplx.get());
  impl_->fwd = detail::plan_r2c(m, impl_->real.get(), cx);
  impl_->bwd = detail::plan_c2r(m, cx, impl_->real.get());
  double* r = impl_->real.get();
  std::fill(r, r + m, 0.0);
  for (std::size_t j = 0; j < n_; ++j) r[j] = c[j];
  for (std::size_t j = 1; j < n_; ++j) r[m - j] = c[j];
  fftw_execute(impl_->fwd.get());
  impl_->lambda.resize(m / 2 + 1);
  for (std::size_t k = 0; k <= m / 2; ++k) impl_->lambda[k] = cx[k][0] / static_cast<double>(m);
}

toeplitz_operator::~toeplitz_operator() { delete impl_; }
std::span<const double> toeplitz_operator::embedding_eigenvalues() const noexcept {
  return impl_->lambda;
}
std::size_t toeplitz_operator::embedding_size() const noexcept { return impl_->m; }
toeplitz_operator::toeplitz_operator(toeplitz_operator&& o) noexcept : n_(o.n_), impl_(o.impl_) {
  o.impl_ = nullptr;
  o.n_ = 0;
}
toeplitz_operator& toeplitz_operator::operator=(toeplitz_operator&& o) noexcept {
  if (this != &o) {
    delete impl_;
    impl_ = o.impl_;
    n_ = o.n_;
    o.impl_ = nullptr;
    o.n_ = 0;
  }
  return *this;
}

void toeplitz_operator::apply(std::span<const double> x, std::span<double> y) {
  core::check_size("toeplitz_operator::apply", "x", x.size(), n_);
  core::check_size("toeplitz_operator::apply", "y", y.size(), n_);
  const std::size_t m = impl_->m;
  double* r = impl_->real.get();
  auto* cx = reinterpret_cast<fftw_complex*>(impl_->cplx.get());
  std::copy(x.begin(), x.end(), r);
  std::fill(r + n_, r + m, 0.0);
  fftw_execute(impl_->fwd.get());
  for (std::size_t k = 0; k <= m / 2; ++k) {
    cx[k][0] *= impl_->lambda[k];
    cx[k][1] *= impl_->lambda[k];
  }
  fftw_execute(impl_->bwd.get());
  std::copy(r, r + n_, y.begin());
}

// ---- Lanczos -----------------------------------------------------------------------------
namespace {

// Number of eigenvalues of the symmetric tridiagonal (a, b) that are < x (Sturm sequence,
// Golub & Van Loan 2013, §8.4.1).
std::size_t sturm_count(const std::vector<double>& a, const std::vector<double>& b, double x) {
  std::size_t count = 0;
  double d = 1.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double off = i == 0 ? 0.0 : b[i - 1] * b[i - 1];
    d = a[i] - x - (i == 0 ? 0.0 : off / d);
    if (d == 0.0) d = -std::numeric_limits<double>::epsilon() * (std::abs(x) + 1e-300);
    if (d < 0.0) ++count;
  }
  return count;
}

// Extreme eigenvalues of the k×k tridiagonal (a, b) by bisection.
std::pair<double, double> tridiagonal_extremes(const std::vector<double>& a,
                                               const std::vector<double>& b) {
  const std::size_t k = a.size();
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t i = 0; i < k; ++i) {
    const double r = (i > 0 ? std::abs(b[i - 1]) : 0.0) + (i + 1 < k ? std::abs(b[i]) : 0.0);
    lo = std::min(lo, a[i] - r);
    hi = std::max(hi, a[i] + r);
  }
  auto bisect = [&](bool want_max) {
    double l = lo, h = hi;
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (l + h);
      if (mid <= l || mid >= h) break;
      const std::size_t c = sturm_count(a, b, mid);
      if (want_max ? (c == k) : (c >= 1))
        h = mid;
      else
        l = mid;
    }
    return 0.5 * (l + h);
  };
  return {bisect(false), bisect(true)};
}

double dot(std::span<const double> x, std::span<const double> y) {
  double s = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

}  // namespace

namespace {
// Lanczos as documented; `extra` (empty or n values) is added to the start vector before
// normalisation.
eigen_range lanczos_impl(
    std::size_t n,
    const std::function<void(std::span<const double>, std::span<double>)>& matvec,
    const eigen_options& options,
    std::span<const double> extra);
}  // namespace

eigen_range lanczos_eigen_range(
    std::size_t n,
    const std::function<void(std::span<const double>, std::span<double>)>& matvec,
    const eigen_options& options) {
  return lanczos_impl(n, matvec, options, {});
}

namespace {
eigen_range lanczos_impl(
    std::size_t n,
    const std::function<void(std::span<const double>, std::span<double>)>& matvec,
    const eigen_options& options,
    std::span<const double> extra) {
  options.validate();
  if (n == 0) core::throw_invalid("lanczos_eigen_range", "n", 0.0, "must be >= 1");
  const std::size_t kmax = std::min(n, options.max_iterations);
  const bool full = n * (kmax + 1) <= options.reorth_budget;
  std::vector<double> basis(full ? n * (kmax + 1) : 2 * n);
  auto q = [&](std::size_t j) {
    return std::span<double>(basis).subspan((full ? j : j % 2) * n, n);
  };
  // Deterministic start vector with weight on smooth, alternating and generic directions, so
  // that both ends of Toeplitz spectra (positive or negative correlation) are reached early.
  {
    rng::philox4x32 g(0x5eed1234u);
    auto q0 = q(0);
    const double w = 3.141592653589793 / static_cast<double>(n + 1);
    for (std::size_t i = 0; i < n; ++i) {
      const double sn = std::sin(w * static_cast<double>(i + 1));
      q0[i] = sn * (1.0 + ((i % 2 == 0) ? 0.5 : -0.5)) + 1e-3 * (2.0 * g.uniform01() - 1.0);
      if (!extra.empty()) q0[i] += extra[i];
    }
    const double nr = std::sqrt(dot(q0, q0));
    for (double& v : q0) v /= nr;
  }
  std::vector<double> alpha, beta, w(n);
  eigen_range out;
  out.dense = false;
  std::vector<std::pair<double, double>> history;
  for (std::size_t j = 0; j < kmax; ++j) {
    auto qj = q(j);
    matvec(qj, w);
    if (j > 0) {
      auto qp = q(j - 1);
      const double bp = beta[j - 1];
      for (std::size_t i = 0; i < n; ++i) w[i] -= bp * qp[i];
    }
    const double a = dot(qj, w);
    for (std::size_t i = 0; i < n; ++i) w[i] -= a * qj[i];
    if (full) {
      for (int pass = 0; pass < 2; ++pass)
        for (std::size_t l = 0; l <= j; ++l) {
          auto ql = q(l);
          const double c = dot(ql, w);
          for (std::size_t i = 0; i < n; ++i) w[i] -= c * ql[i];
        }
    }
    alpha.push_back(a);
    const double b = std::sqrt(dot(w, w));
    const double scale = std::max(std::abs(a), beta.empty() ? 0.0 : beta.back());
    const bool invariant = b <= 1e-13 * std::max(scale, 1e-300) || j + 1 == n;
    out.iterations = j + 1;
    if (invariant || (j + 1) % 5 == 0 || j + 1 == kmax) {
      auto ext = tridiagonal_extremes(alpha, beta);
      out.min = ext.first;
      out.max = ext.second;
      history.push_back(ext);
      if (invariant) break;
      if (history.size() >= 5) {
        const auto& old = history[history.size() - 5];
        const double s = std::max(std::abs(ext.first), std::abs(ext.second));
        if (std::abs(ext.second - old.second) <= options.tolerance * s &&
            (!options.need_min || std::abs(ext.first - old.first) <= options.tolerance * s))
          break;
      }
    }
    beta.push_back(b);
    auto qn = q(j + 1);
    for (std::size_t i = 0; i < n; ++i) qn[i] = w[i] / b;
  }
  return out;
}
}  // namespace

eigen_range toeplitz_eigen_range(std::span<const double> c, const eigen_options& options) {
  options.validate();
  const std::size_t n = c.size();
  if (n == 0)
    core::throw_invalid("toeplitz_eigen_range", "first_column.size()", 0.0, "must be >= 1");
  core::check_finite_span("toeplitz_eigen_range", "first_column", c);
  if (n <= options.dense_max) {
    std::vector<double> a(n * n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) a[i * n + j] = c[i > j ? i - j : j - i];
    const auto ev = symmetric_eigenvalues(a, n);
    return {ev.front(), ev.back(), 0, true};
  }
  toeplitz_operator op(c);
  // When the symbol (the embedding eigenvalues: the spectral density sampled at ω_k = 2πk/m)
  // peaks strictly inside (0, π), the extreme eigenvectors are approximately half-sine
  // envelopes modulated at that frequency, which the smooth/alternating start vector barely
  // contains: Lanczos then needed thousands of steps (AR(2) φ = (0.5, −0.2), n = 1e5: 4000
  // steps, 9 s). Adding the modulated vectors (both phases) makes it converge like the
  // AR(1) case. Peaks at 0 or π add nothing (start vector and results unchanged).
  std::vector<double> extra;
  {
    const auto lam = op.embedding_eigenvalues();
    const std::size_t last = lam.size() - 1;
    std::size_t kmax = 0, kmin = 0;
    for (std::size_t k = 1; k <= last; ++k) {
      if (lam[k] > lam[kmax]) kmax = k;
      if (lam[k] < lam[kmin]) kmin = k;
    }
    std::vector<double> omegas;
    const double two_pi_over_m = 2.0 * 3.141592653589793 / static_cast<double>(op.embedding_size());
    if (kmax > 0 && kmax < last) omegas.push_back(two_pi_over_m * static_cast<double>(kmax));
    if (options.need_min && kmin > 0 && kmin < last)
      omegas.push_back(two_pi_over_m * static_cast<double>(kmin));
    if (!omegas.empty()) {
      extra.assign(n, 0.0);
      const double w = 3.141592653589793 / static_cast<double>(n + 1);
      const double mid = 0.5 * static_cast<double>(n - 1);
      for (std::size_t i = 0; i < n; ++i) {
        const double env = std::sin(w * static_cast<double>(i + 1));
        for (double om : omegas) {
          const double t = om * (static_cast<double>(i) - mid);
          extra[i] += env * (std::cos(t) + std::sin(t));
        }
      }
    }
  }
  return lanczos_impl(
      n, [&](std::span<const double> x, std::span<double> y) { op.apply(x, y); }, options, extra);
}

double toeplitz_lambda_max(std::span<const double> c) {
  eigen_options o;
  o.need_min = false;
  return toeplitz_eigen_range(c, o).max;
}

}  // namespace dpx::data
