#pragma once
// Independent reference for the accounting tests: the hockey-stick divergence of a k-fold
// product of discrete output distributions, by enumerating every output sequence.
#include <cmath>
#include <cstddef>
#include <vector>

namespace dpx::accounting::testing {

/// δ(ε) = Σ_o max(0, P^k(o) − e^ε Q^k(o)) over all m^k output sequences o (long double sums).
inline double brute_force_delta(const std::vector<double>& p,
                                const std::vector<double>& q,
                                int k,
                                double eps) {
  const std::size_t m = p.size();
  std::size_t total = 1;
  for (int i = 0; i < k; ++i) total *= m;
  long double d = 0;
  for (std::size_t code = 0; code < total; ++code) {
    long double pp = 1, qq = 1;
    std::size_t c = code;
    for (int i = 0; i < k; ++i) {
      pp *= p[c % m];
      qq *= q[c % m];
      c /= m;
    }
    const long double v = pp - std::exp(static_cast<long double>(eps)) * qq;
    if (v > 0) d += v;
  }
  return static_cast<double>(d);
}

}  // namespace dpx::accounting::testing
