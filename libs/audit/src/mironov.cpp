// Exact support test of the research-grade Laplace release (Mironov 2012's attack statistic).
#include <cstdint>

#include "dpx/audit/pairs.hpp"
#include "dpx/mechanisms/detail/kernels.hpp"

namespace dpx::audit::detail {

namespace {

// Output of the research-grade release of x for the j-th noise value in increasing order. The
// sampler (laplace.hpp) uses a 64-bit word w: sign = bit 0, u = ((w >> 12) + 1/2) 2^-52, so the
// noise takes 2^53 values: j < 2^52 is the negative branch b ln(u_j) (w = j << 12, bit 0 clear),
// j >= 2^52 the positive branch -b ln(u_k), k = 2^53 - 1 - j (bit 0 set). Bits 1..11 of w do not
// matter.
double output_for(std::uint64_t j, double x, double b) {
  const std::uint64_t half = std::uint64_t{1} << 52;
  const std::uint64_t w = j < half ? (j << 12) : (((2 * half - 1 - j) << 12) | 1u);
  return x + mechanisms::detail::laplace_from_bits(w, b);
}

}  // namespace

bool research_laplace_can_output(double y, double x, double b) {
  // fl(x + noise_j) is non-decreasing in j (the noise is increasing in j and rounding is
  // monotone), so a binary search finds the first j with output >= y; the scan of a few
  // neighbours guards against a non-monotone step of the faithful (not correctly rounded) log.
  const std::uint64_t top = (std::uint64_t{1} << 53) - 1;
  std::uint64_t lo = 0, hi = top;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (output_for(mid, x, b) < y)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (std::uint64_t k = lo >= 3 ? lo - 3 : 0; k <= lo + 3 && k <= top; ++k)
    if (output_for(k, x, b) == y) return true;
  return false;
}

}  // namespace dpx::audit::detail
