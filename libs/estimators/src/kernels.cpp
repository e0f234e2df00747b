#include "dpx/estimators/detail/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "dpx/core/error.hpp"

namespace dpx::estimators::detail {

namespace {
constexpr double kIndexLimit = 0x1p53;
constexpr std::size_t kSmallRange = 16;  // vectorised counting below this many bins

// GCC vector extension (SSE2 on the x86-64 baseline; no -march flags needed).
using v2d = double __attribute__((vector_size(16)));
inline v2d load2(const double* p) noexcept {
  v2d v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

[[noreturn]] void throw_first_nonfinite(std::span<const double> x,
                                        std::string_view function,
                                        std::string_view parameter) {
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]))
      core::throw_invalid(
          function, std::string(parameter) + "[" + std::to_string(i) + "]", x[i], "must be finite");
  core::throw_invalid(function, parameter, "?", "must be finite");
}
}  // namespace

namespace {
// ceil(x/width − 1/2) clamped to ±2^53, without a libm call: for |y| ≤ 2^53 the truncation t
// is exact and ceil(y) = t + (t < y). NaN maps to −2^53 (callers reject NaN first; this only
// avoids undefined behaviour in the conversion).
inline std::int64_t key(double x, double width) noexcept {
  double y = x / width - 0.5;
  y = y >= -kIndexLimit ? (y <= kIndexLimit ? y : kIndexLimit) : -kIndexLimit;
  const auto t = static_cast<std::int64_t>(y);
  return t + static_cast<std::int64_t>(static_cast<double>(t) < y);
}
}  // namespace

std::int64_t bin_index(double x, double width) noexcept { return key(x, width); }

void compute_keys(std::span<const double> x,
                  double width,
                  std::span<std::int64_t> keys,
                  std::string_view function,
                  std::string_view parameter) {
  constexpr double big = std::numeric_limits<double>::max();
  bool finite = true;
  for (std::size_t i = 0; i < x.size(); ++i) {
    finite &= std::fabs(x[i]) <= big;  // false for NaN and ±inf
    keys[i] = key(x[i], width);
  }
  if (!finite) throw_first_nonfinite(x, function, parameter);
}

std::vector<bin_count> occupied_bins(std::span<const double> x,
                                     double width,
                                     std::string_view function,
                                     std::string_view parameter) {
  const std::size_t n = x.size();
  std::vector<bin_count> out;
  if (n == 0) return out;
  // Pass 1: min, max and finiteness (|v| <= DBL_MAX is false for NaN and ±inf).
  constexpr double big = std::numeric_limits<double>::max();
  const v2d vbig = {big, big}, nbig = {-big, -big};
  v2d vlo = {x[0], x[0]}, vhi = vlo, bad = {0.0, 0.0};
  std::size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const v2d v = load2(x.data() + i);
    vlo = v < vlo ? v : vlo;
    vhi = v > vhi ? v : vhi;
    // NaN fails both comparisons; ±inf fails one.
    bad += (v <= vbig ? 0.0 : 1.0) + (v >= nbig ? 0.0 : 1.0);
  }
  double lo = vlo[0] < vlo[1] ? vlo[0] : vlo[1];
  double hi = vhi[0] > vhi[1] ? vhi[0] : vhi[1];
  bool finite = bad[0] == 0.0 && bad[1] == 0.0;
  for (; i < n; ++i) {
    const double v = x[i];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    finite &= std::fabs(v) <= big;
  }
  if (!finite) throw_first_nonfinite(x, function, parameter);
  // key() is monotone in x, so [key(lo), key(hi)] holds every key.
  const std::int64_t kmin = key(lo, width);
  const auto range = static_cast<std::uint64_t>(key(hi, width) - kmin);
  if (range < kSmallRange) {
    // Pass 2, few bins (the usual case): key(x) ≥ k ⟺ y > k − 1 for y = clamp(x/w − 1/2), the
    // same y as key() computes, so counting y > kmin + b − 1 for b = 1..range gives the tail
    // counts #{key ≥ kmin + b} exactly, with vectorisable compares.
    const std::size_t r = static_cast<std::size_t>(range);
    v2d tail[kSmallRange] = {};
    v2d edge[kSmallRange];
    for (std::size_t b = 1; b <= r; ++b) {
      const double e = static_cast<double>(kmin + static_cast<std::int64_t>(b) - 1);
      edge[b] = v2d{e, e};
    }
    const v2d vw = {width, width}, half = {0.5, 0.5}, one = {1.0, 1.0}, zero = {0.0, 0.0};
    const v2d lim = {kIndexLimit, kIndexLimit}, nlim = {-kIndexLimit, -kIndexLimit};
    std::size_t j = 0;
    for (; j + 2 <= n; j += 2) {
      v2d y = load2(x.data() + j) / vw - half;
      y = y >= nlim ? (y <= lim ? y : lim) : nlim;
      for (std::size_t b = 1; b <= r; ++b) tail[b] += y > edge[b] ? one : zero;
    }
    std::uint64_t ge[kSmallRange + 1] = {};  // ge[b] = #{key ≥ kmin + b}
    ge[0] = n;
    for (std::size_t b = 1; b <= r; ++b)
      ge[b] = static_cast<std::uint64_t>(tail[b][0] + tail[b][1]);
    for (; j < n; ++j) {
      const auto k = static_cast<std::size_t>(key(x[j], width) - kmin);
      for (std::size_t b = 1; b <= k; ++b) ++ge[b];
    }
    for (std::size_t b = 0; b <= r; ++b) {
      const std::uint64_t c = ge[b] - (b < r ? ge[b + 1] : 0);
      if (c != 0) out.push_back({kmin + static_cast<std::int64_t>(b), c});
    }
    return out;
  }
  if (range <= static_cast<std::uint64_t>(n) + 4096u) {
    // Pass 2: dense counts over [kmin, kmax].
    std::vector<std::uint64_t> counts(range + 1, 0);
    for (std::size_t i = 0; i < n; ++i) ++counts[static_cast<std::size_t>(key(x[i], width) - kmin)];
    for (std::size_t k = 0; k <= range; ++k)
      if (counts[k] != 0) out.push_back({kmin + static_cast<std::int64_t>(k), counts[k]});
    return out;
  }
  // Wide spread: sort the keys and run-length encode them.
  std::vector<std::int64_t> ks(n);
  for (std::size_t i = 0; i < n; ++i) ks[i] = key(x[i], width);
  std::sort(ks.begin(), ks.end());
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && ks[j] == ks[i]) ++j;
    out.push_back({ks[i], static_cast<std::uint64_t>(j - i)});
    i = j;
  }
  return out;
}

clip_result clipped_sum(std::span<const double> x, double lo, double hi) noexcept {
  // Two 2-lane vectors = 4 interleaved partial sums: lane l accumulates x[i + l], i ≡ 0 mod 4,
  // the tail continues lane by lane; combined as (s0 + s1) + (s2 + s3). Counts are accumulated
  // as doubles (exact below 2^53). Plain IEEE compare/select/add: the result does not depend on
  // the vector width.
  const std::size_t n = x.size();
  const v2d vlo = {lo, lo}, vhi = {hi, hi}, one = {1.0, 1.0}, zero = {0.0, 0.0};
  v2d s01 = zero, s23 = zero, c01 = zero, c23 = zero;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v2d a = load2(x.data() + i), b = load2(x.data() + i + 2);
    const v2d ca = a < vlo ? vlo : a, cb = b < vlo ? vlo : b;
    s01 += ca > vhi ? vhi : ca;
    s23 += cb > vhi ? vhi : cb;
    c01 += (a < vlo ? one : zero) + (a > vhi ? one : zero);
    c23 += (b < vlo ? one : zero) + (b > vhi ? one : zero);
  }
  double s[4] = {s01[0], s01[1], s23[0], s23[1]};
  double c[4] = {c01[0], c01[1], c23[0], c23[1]};
  for (std::size_t l = 0; i < n; ++i, ++l) {
    const double v = x[i];
    const double a = v < lo ? lo : v;
    s[l] += a > hi ? hi : a;
    c[l] += (v < lo ? 1.0 : 0.0) + (v > hi ? 1.0 : 0.0);
  }
  return {(s[0] + s[1]) + (s[2] + s[3]), static_cast<std::size_t>((c[0] + c[1]) + (c[2] + c[3]))};
}

void copy_column(std::span<const double> matrix,
                 std::size_t d,
                 std::size_t j,
                 std::span<double> out) noexcept {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = matrix[i * d + j];
}

}  // namespace dpx::estimators::detail
