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

// Eigenvalue number idx (0-based, ascending) of the k×k tridiagonal (a, b) by bisection on
// Sturm counts, started from `guess` (the same Ritz value a few Lanczos steps earlier, which by
// Cauchy interlacing is within the small distance it has moved since; NaN: none): an expanding
// search brackets it, then bisection runs to the last bit or, when `ref` is finite, until the
// bracket is ≤ 1e-3 of its distance to `ref`. Returns the midpoint of the final bracket
// (end = 0), its upper (end > 0) or its lower end (end < 0).
double tridiagonal_eigenvalue(const std::vector<double>& a,
                              const std::vector<double>& b,
                              std::size_t idx,
                              double guess,
                              double ref = std::numeric_limits<double>::quiet_NaN(),
                              int end = 0) {
  const std::size_t k = a.size();
  double glo = std::numeric_limits<double>::infinity(), ghi = -glo;
  for (std::size_t i = 0; i < k; ++i) {
    const double r = (i > 0 ? std::abs(b[i - 1]) : 0.0) + (i + 1 < k ? std::abs(b[i]) : 0.0);
    glo = std::min(glo, a[i] - r);
    ghi = std::max(ghi, a[i] + r);
  }
  // Sturm count ≥ idx + 1 at x  ⇔  eigenvalue idx < x.
  auto above = [&](double x) { return sturm_count(a, b, x) >= idx + 1; };
  double l = glo, h = ghi;
  if (std::isfinite(guess) && guess > glo && guess < ghi) {
    double step = 1e-15 * std::max(std::abs(guess), ghi - glo);
    if (above(guess)) {
      h = guess;
      for (double x = guess - step; x > glo; step *= 16.0, x = guess - step) {
        if (!above(x)) {
          l = x;
          break;
        }
        h = x;
      }
    } else {
      l = guess;
      for (double x = guess + step; x < ghi; step *= 16.0, x = guess + step) {
        if (above(x)) {
          h = x;
          break;
        }
        l = x;
      }
    }
  }
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (l + h);
    if (mid <= l || mid >= h) break;
    if (std::isfinite(ref) && h - l <= 1e-3 * std::min(std::abs(ref - l), std::abs(ref - h))) break;
    if (above(mid))
      h = mid;
    else
      l = mid;
  }
  return end > 0 ? h : end < 0 ? l : 0.5 * (l + h);
}

// Residual bound of the Ritz pair of the k×k tridiagonal T = (a, b) at its extreme Ritz value
// theta (top end if `top`), when the Lanczos recurrence continues with β_k = `next_beta`.
// With the Ritz vector s (unit, by inverse iteration) and exact Lanczos vectors Q,
// ‖A Q s − θ Q s‖² = ‖(T − θ)s‖² + (β_k s_k)², so some eigenvalue of A lies within the returned
// value of θ [Parlett 1998, Thm 4.5.1 and §13.2]; for the extreme Ritz value that eigenvalue is
// the extreme one of A once the residual is below the gap. Inverse iteration uses the shift
// θ ± δ just outside the Ritz spectrum, where T − shift is definite and the LDLᵀ recurrence
// without pivoting is stable.
double ritz_residual(const std::vector<double>& a,
                     const std::vector<double>& b,
                     double theta,
                     bool top,
                     double next_beta) {
  const std::size_t k = a.size();
  double tnorm = 0.0;
  for (std::size_t i = 0; i < k; ++i)
    tnorm = std::max(
        tnorm,
        std::abs(a[i]) + (i > 0 ? std::abs(b[i - 1]) : 0.0) + (i + 1 < k ? std::abs(b[i]) : 0.0));
  const double delta = 64.0 * std::numeric_limits<double>::epsilon() * std::max(tnorm, 1e-300);
  const double shift = top ? theta + delta : theta - delta;
  std::vector<double> d(k), x(k, 1.0);
  d[0] = a[0] - shift;
  for (std::size_t i = 1; i < k; ++i) {
    d[i] = a[i] - shift - b[i - 1] * b[i - 1] / d[i - 1];
    // Definiteness keeps the sign; guard against an exact zero from rounding.
    if (d[i] == 0.0 || (top ? d[i] > 0.0 : d[i] < 0.0)) d[i] = top ? -delta : delta;
  }
  if (d[0] == 0.0 || (top ? d[0] > 0.0 : d[0] < 0.0)) d[0] = top ? -delta : delta;
  for (int pass = 0; pass < 3; ++pass) {
    // Solve (T − shift) y = x via T − shift = L D Lᵀ, L unit lower bidiagonal, l_i = b_i/d_i.
    for (std::size_t i = 1; i < k; ++i) x[i] -= b[i - 1] / d[i - 1] * x[i - 1];
    for (std::size_t i = 0; i < k; ++i) x[i] /= d[i];
    for (std::size_t i = k - 1; i-- > 0;) x[i] -= b[i] / d[i] * x[i + 1];
    double nr = 0.0;
    for (double v : x) nr = std::max(nr, std::abs(v));
    for (double& v : x) v /= nr;
  }
  double nr2 = 0.0;
  for (double v : x) nr2 += v * v;
  const double inv = 1.0 / std::sqrt(nr2);
  double res2 = 0.0;
  for (std::size_t i = 0; i < k; ++i) {
    double r = (a[i] - theta) * x[i];
    if (i > 0) r += b[i - 1] * x[i - 1];
    if (i + 1 < k) r += b[i] * x[i + 1];
    res2 += r * r;
  }
  const double last = next_beta * x[k - 1];
  return std::sqrt(res2 + last * last) * inv;
}

// Four independent partial sums: the reorthogonalisation is dominated by these dot products, and
// a single accumulator serialises them on the add latency (no vectorisation without
// reassociation).
double dot(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = x.size(), n4 = n - n % 4;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  for (std::size_t i = 0; i < n4; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
  }
  for (std::size_t i = n4; i < n; ++i) s0 += x[i] * y[i];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace

namespace {
// Lanczos as documented; `extra` (empty or n values) is added to the start vector before
// normalisation.
eigen_range lanczos_impl(
    std::size_t n,
    const std::function<void(std::span<const double>, std::span<double>)>& matvec,
    const eigen_options& options,
    std::span<const double> extra,
    int parity);
}  // namespace

eigen_range lanczos_eigen_range(
    std::size_t n,
    const std::function<void(std::span<const double>, std::span<double>)>& matvec,
    const eigen_options& options) {
  return lanczos_impl(n, matvec, options, {}, 0);
}

namespace {
eigen_range lanczos_impl(
    std::size_t n,
    const std::function<void(std::span<const double>, std::span<double>)>& matvec,
    const eigen_options& options,
    std::span<const double> extra,
    int parity) {
  options.validate();
  if (n == 0) core::throw_invalid("lanczos_eigen_range", "n", 0.0, "must be >= 1");
  const std::size_t kmax = std::min(n, options.max_iterations);
  const bool full = n * (kmax + 1) <= options.reorth_budget;
  std::vector<double> basis(full ? n * (kmax + 1) : 2 * n);
  auto q = [&](std::size_t j) {
    return std::span<double>(basis).subspan((full ? j : j % 2) * n, n);
  };
  // parity = ±1: restrict to vectors with x[n−1−i] = ±x[i] (an invariant subspace of a
  // centrosymmetric A); re-projecting every step keeps rounding from leaking across.
  auto project = [&](std::span<double> x) {
    if (parity == 0) return;
    for (std::size_t i = 0; i < n / 2; ++i) {
      const double v = 0.5 * (x[i] + parity * x[n - 1 - i]);
      x[i] = v;
      x[n - 1 - i] = parity * v;
    }
    if (n % 2 == 1 && parity < 0) x[n / 2] = 0.0;
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
    project(q0);
    const double nr = std::sqrt(dot(q0, q0));
    for (double& v : q0) v /= nr;
  }
  std::vector<double> alpha, beta, w(n);
  eigen_range out;
  out.dense = false;
  std::vector<std::pair<double, double>> history;  // (θ_min, θ_max) every 5 steps
  // Second-smallest / second-largest Ritz values at the last check (bisection warm starts).
  double next_min = std::numeric_limits<double>::quiet_NaN(), next_max = next_min;
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
    project(w);
    alpha.push_back(a);
    const double b = std::sqrt(dot(w, w));
    const double scale = std::max(std::abs(a), beta.empty() ? 0.0 : beta.back());
    const bool invariant = b <= 1e-13 * std::max(scale, 1e-300) || j + 1 == n;
    out.iterations = j + 1;
    if (invariant || (j + 1) % 5 == 0 || j + 1 == kmax) {
      const std::size_t k = alpha.size();
      const double nan = std::numeric_limits<double>::quiet_NaN();
      out.min = tridiagonal_eigenvalue(alpha, beta, 0, history.empty() ? nan : out.min);
      out.max = tridiagonal_eigenvalue(alpha, beta, k - 1, history.empty() ? nan : out.max);
      if (invariant) break;
      // Converged when the error bound of each wanted extreme Ritz value θ is ≤ tolerance·|θ|:
      // the residual r of its Ritz pair (an eigenvalue lies within r), or, once r is below
      // half the gap δ to the next Ritz value, the gap bound r²/δ [Parlett 1998, Thm 11.7.1;
      // Kato–Temple]. A stagnation rule ("no change over 20 steps") stopped 1e-8 short for
      // spectra peaking inside (0, π), where θ_max creeps up slowly. The floor 32ε·‖T‖ is the
      // attainable accuracy in floating point.
      const double s = std::max(std::abs(out.min), std::abs(out.max));
      const double floor = 32.0 * std::numeric_limits<double>::epsilon() * s;
      history.emplace_back(out.min, out.max);
      auto converged = [&](bool top) {
        const double theta = top ? out.max : out.min;
        const double target = std::max(options.tolerance * std::abs(theta), floor);
        // Fallback for long series (n ≳ 1e4), whose extreme eigenvalues are clustered within
        // O(1/n²) so that no affordable Krylov space resolves the gap and neither bound below
        // can certify: unchanged (to `tolerance`) over the whole second half of the run, at
        // least 200 steps. Stagnation over a short fixed window is what failed.
        if (history.size() >= 40) {
          const auto& half = history[history.size() / 2 - 1];
          if (std::abs(theta - (top ? half.second : half.first)) <= target) return true;
        }
        const double r = ritz_residual(alpha, beta, theta, top, b);
        if (r <= target) return true;
        if (k < 2) return false;
        // The gap need only be known to 0.1%; the bracket end nearer θ under-estimates it.
        double& next = top ? next_max : next_min;
        next = tridiagonal_eigenvalue(alpha, beta, top ? k - 2 : 1, next, theta, top ? 1 : -1);
        const double gap = std::abs(theta - next);
        return r <= 0.5 * gap && r * r / gap <= target;
      };
      if (converged(true) && (!options.need_min || converged(false))) break;
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
  // A symmetric Toeplitz T commutes with the exchange matrix J, so its eigenvectors can be
  // chosen symmetric (Jx = x) or skew-symmetric (Jx = −x) [Cantoni & Butler 1976], and the
  // extremes are the extremes of T on the two subspaces. Eigenvalues of the two parities
  // interleave and, for spectra peaking inside (0, π), come in near-degenerate pairs (MA(2)
  // θ = (0.4, −0.3), n = 1025: λ1 − λ2 ≈ 2e-8 relative) that Lanczos on the whole space
  // resolves only after ~n steps; on each subspace the pair is split and the gap is ~100×
  // larger.
  auto mv = [&](std::span<const double> x, std::span<double> y) { op.apply(x, y); };
  if (n < 2) return lanczos_impl(n, mv, options, extra, 0);
  const auto even = lanczos_impl(n, mv, options, extra, 1);
  const auto odd = lanczos_impl(n, mv, options, extra, -1);
  return {std::min(even.min, odd.min),
          std::max(even.max, odd.max),
          even.iterations + odd.iterations,
          false};
}

double toeplitz_lambda_max(std::span<const double> c) {
  eigen_options o;
  o.need_min = false;
  return toeplitz_eigen_range(c, o).max;
}

}  // namespace dpx::data
