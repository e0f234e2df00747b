// Box–Muller transform (dpx/core/normal.hpp) with dpx's own branch-free log and sincos(2πu)
// (dpx/core/detail/elementary.hpp, shared with the mechanisms' samplers) so the bulk loop
// vectorises (AVX-512F, AVX2 and baseline clones, chosen at load time). Only IEEE
// add/mul/div/sqrt and exact bit manipulation are used, with -ffp-contract=off, so every clone
// and the scalar path give identical bits.
#include <bit>
#include <cmath>
#include <cstdint>

#include "dpx/core/detail/elementary.hpp"
#include "dpx/core/normal.hpp"

namespace dpx::rng::detail {

using core::detail::log_positive;
using core::detail::sincos_2pi;

double log_kernel(double x) noexcept { return log_positive(x); }
void sincos_2pi_kernel(double u, double& s, double& c) noexcept { sincos_2pi(u, s, c); }

void box_muller_pair(double u1, double u2, double& z1, double& z2) noexcept {
  const double r = std::sqrt(-2.0 * log_positive(u1));
  double s, c;
  sincos_2pi(u2, s, c);
  z1 = r * c;
  z2 = r * s;
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void box_muller_inplace(
    std::span<double> u, double extra) noexcept {
  // Split layout within the span: (u[i], u[h + i]) → (r cos, r sin) stored in place, so the
  // loop has unit stride (vectorises); h = size/2.
  const std::size_t h = u.size() / 2;
  double* a = u.data();
  double* b = u.data() + h;
  for (std::size_t i = 0; i < h; ++i) {
    const double r = std::sqrt(-2.0 * log_positive(a[i]));
    double s, c;
    sincos_2pi(b[i], s, c);
    a[i] = r * c;
    b[i] = r * s;
  }
  if (u.size() % 2 == 1) {
    double z1, z2;
    box_muller_pair(u.back(), extra, z1, z2);
    u.back() = z1;
  }
}

}  // namespace dpx::rng::detail
