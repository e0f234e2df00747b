#pragma once
// Independent reference computations for the dpx::data tests (never the library's own code).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace dpx::data::test {

/// All eigenvalues (ascending) of a symmetric row-major n×n matrix by the cyclic Jacobi method
/// (Golub & Van Loan 2013, Alg. 8.5.3): an eigen-solver independent of LAPACK, for small n.
inline std::vector<double> jacobi_eigenvalues(std::vector<double> a, std::size_t n) {
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) off += a[i * n + j] * a[i * n + j];
    if (off < 1e-30) break;
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (std::abs(apq) < 1e-300) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
        const double t =
            (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (std::size_t k = 0; k < n; ++k) {
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (std::size_t k = 0; k < n; ++k) {
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  std::vector<double> ev(n);
  for (std::size_t i = 0; i < n; ++i) ev[i] = a[i * n + i];
  std::sort(ev.begin(), ev.end());
  return ev;
}

/// Dense symmetric Toeplitz matrix from its first column.
inline std::vector<double> dense_toeplitz(const std::vector<double>& g) {
  const std::size_t n = g.size();
  std::vector<double> a(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) a[i * n + j] = g[i > j ? i - j : j - i];
  return a;
}

/// 1ᵀA1/n for a dense n×n matrix.
inline double dense_mean_variance(const std::vector<double>& a, std::size_t n) {
  double s = 0.0;
  for (double v : a) s += v;
  return s / static_cast<double>(n);
}

inline double sample_mean(const std::vector<double>& x) {
  double s = 0.0;
  for (double v : x) s += v;
  return s / static_cast<double>(x.size());
}
inline double sample_variance(const std::vector<double>& x) {
  const double m = sample_mean(x);
  double s = 0.0;
  for (double v : x) s += (v - m) * (v - m);
  return s / static_cast<double>(x.size() - 1);
}

}  // namespace dpx::data::test
