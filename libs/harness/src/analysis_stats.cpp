// Statistics of the analysis: quantiles, per-cell summaries and the log-log least-squares fit.
#include <algorithm>
#include <cmath>

#include "analysis_internal.hpp"
#include "dpx/core/error.hpp"

namespace dpx::harness {

using namespace analysis_internal;

namespace {
/// Standard normal 0.975 quantile: the 95% normal interval of the mean in summary.csv.
constexpr double z975 = 1.959963984540054;
}  // namespace

namespace analysis_internal {

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double median_inplace(std::vector<double>& v) {
  const std::size_t n = v.size();
  const std::size_t h = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h), v.end());
  const double upper = v[h];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h));
  return lower + 0.5 * (upper - lower);
}

double aggregate(const std::vector<double>& v, bool median, std::vector<double>& scratch) {
  if (!median) return mean_of(v);
  scratch = v;
  return median_inplace(scratch);
}

}  // namespace analysis_internal

double quantile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return nan_v;
  if (!(p >= 0 && p <= 1)) core::throw_invalid("quantile_sorted", "p", p, "must lie in [0, 1]");
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = h - static_cast<double>(lo);
  if (frac == 0) return sorted[lo];
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

summary_stats summarize(const std::vector<double>& values, std::size_t n_failed) {
  std::vector<double> v;
  v.reserve(values.size());
  for (const double x : values) {
    if (!std::isnan(x)) v.push_back(x);
  }
  summary_stats s;
  s.n_reps = v.size();
  s.n_failed = n_failed;
  if (v.empty()) {
    s.mean = s.sd = s.se = s.median = s.q25 = s.q75 = s.ci_lo = s.ci_hi = nan_v;
    return s;
  }
  const double n = static_cast<double>(v.size());
  s.mean = mean_of(v);
  if (v.size() >= 2) {
    double ss = 0;
    for (const double x : v) ss += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(ss / (n - 1));
    s.se = s.sd / std::sqrt(n);
    s.ci_lo = s.mean - z975 * s.se;
    s.ci_hi = s.mean + z975 * s.se;
  } else {
    s.sd = s.se = s.ci_lo = s.ci_hi = nan_v;
  }
  std::sort(v.begin(), v.end());
  s.median = quantile_sorted(v, 0.5);
  s.q25 = quantile_sorted(v, 0.25);
  s.q75 = quantile_sorted(v, 0.75);
  return s;
}

loglog_fit fit_loglog(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) {
    throw core::invalid_argument_error(
        "fit_loglog",
        "y",
        std::to_string(y.size()) + " values",
        "must have as many values as x (" + std::to_string(x.size()) + ")");
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(std::isfinite(x[i]) && x[i] > 0)) {
      core::throw_invalid(
          "fit_loglog", "x[" + std::to_string(i) + "]", x[i], "must be finite and > 0");
    }
    if (!(std::isfinite(y[i]) && y[i] > 0)) {
      core::throw_invalid(
          "fit_loglog", "y[" + std::to_string(i) + "]", y[i], "must be finite and > 0");
    }
  }
  const std::size_t n = x.size();
  std::vector<double> lx(n), ly(n);
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    lx[i] = std::log(x[i]);
    ly[i] = std::log(y[i]);
    mx += lx[i];
    my += ly[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = lx[i] - mx, dy = ly[i] - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (n < 2 || !(sxx > 0)) {
    throw core::invalid_argument_error(
        "fit_loglog", "x", std::to_string(n) + " points", "needs at least 2 distinct values");
  }
  const double b = sxy / sxx;
  // R^2 = 1 - SSres/SStot = sxy^2 / (sxx syy); a constant y (syy = 0) is fitted exactly.
  const double r2 = syy > 0 ? std::min(1.0, sxy * sxy / (sxx * syy)) : 1.0;
  return {my - b * mx, b, r2};
}

}  // namespace dpx::harness
