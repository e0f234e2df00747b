// Closed forms of the pairs of pairs.hpp that are not templates.
#include "dpx/audit/pairs.hpp"

#include <cmath>

namespace dpx::audit {

quantile_pair_layout make_quantile_pair_layout(const mechanisms::quantile_options& o,
                                               std::size_t m) {
  const char* fn = "audit::make_quantile_pair_layout";
  o.validate();
  if (m < 2) core::throw_invalid(fn, "m", static_cast<double>(m), "must be >= 2");
  const double w = o.upper - o.lower, e = o.epsilon;
  quantile_pair_layout l;
  l.m = m;
  l.a = o.lower + 0.5 * w;
  l.b = l.a + 0.015 * w;
  // Ranks (records strictly below y) and utilities -|rank - m| on the three gaps:
  //   D : (lower, a): m -> 0,      (a, b): m + 1 -> -1, (b, upper): 2m -> -m
  //   D': (lower, a): m - 1 -> -1, (a, b): m -> 0,      (b, upper): 2m - 1 -> -(m - 1)
  // density e^{(eps/2) u} / Z. On (a, upper) the likelihood ratio D'/D is e^{eps/2} Z_D/Z_D',
  // on (lower, a) it is e^{-eps/2} Z_D/Z_D'.
  const double la = l.a - o.lower, lab = l.b - l.a, lb = o.upper - l.b;
  const double md = static_cast<double>(m);
  const double zd = la + lab * std::exp(-e / 2) + lb * std::exp(-md * e / 2);
  const double zd1 = la * std::exp(-e / 2) + lab + lb * std::exp(-(md - 1) * e / 2);
  l.p_d = (lab * std::exp(-e / 2) + lb * std::exp(-md * e / 2)) / zd;
  l.p_d_prime = (lab + lb * std::exp(-(md - 1) * e / 2)) / zd1;
  l.ceiling = e / 2 + std::log(zd / zd1);
  return l;
}

}  // namespace dpx::audit
