#pragma once
/// \file
/// The one root-finding / inverse-monotone toolkit of dpx. Every calibration ("the smallest
/// noise whose epsilon is <= the target"), every inverse of a composition theorem ("the
/// largest per-step epsilon that composes to <= the target") and every conversion between
/// epsilon(delta) and delta(epsilon) is a boundary search on a MONOTONE predicate, and every
/// one of them must return the FEASIBLE end of its final bracket (the safe side): the returned
/// point itself satisfies the inequality, so rounding never produces a guarantee the code does
/// not give (docs/accounting.md, "Safe side").
///
///  * bisect_smallest / bisect_largest: bisection on a predicate (robust to predicates that are
///    only monotone up to evaluation noise; the answer is always a point where ok() was seen
///    true).
///  * smallest_feasible: the same boundary for a continuous non-increasing f > 0 and a
///    target (f(x) <= target feasible), found with Illinois steps (modified regula falsi on
///    log f) safeguarded by bisection; used where f is expensive (RDP/PLD accountants).
///  * toms748_feasible: Boost.Math's TOMS 748 (Alefeld, Potra & Shi 1995) on a continuous g
///    with g(feasible end) <= 0, returning the feasible end of Boost's final bracket.
///  * minimize_golden: golden-section search of a unimodal function (the value at the best
///    point seen is returned, so a bound minimised over a free parameter stays a bound).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include <boost/math/tools/roots.hpp>

namespace dpx::core {

/// Stopping rule of a bisection: stop once hi - lo <= max(absolute, relative * |hi|) or after
/// `iterations` halvings.
struct bisect_tolerance {
  double absolute = 0.0;
  double relative = 1e-15;
  int iterations = 200;
};

/// Smallest x in [lo, hi] with ok(x), for ok monotone false...true on [lo, hi] and ok(hi)
/// true (not checked: callers establish the bracket). Returns a point where ok holds.
template <class F>
double bisect_smallest(F&& ok, double lo, double hi, bisect_tolerance t = {}) {
  for (int it = 0; it < t.iterations && hi - lo > std::max(t.absolute, t.relative * std::abs(hi));
       ++it) {
    const double mid = 0.5 * (lo + hi);
    if (ok(mid)) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

/// Largest x in [lo, hi] with ok(x), for ok monotone true...false on [lo, hi] and ok(lo) true.
/// Returns a point where ok holds.
template <class F>
double bisect_largest(F&& ok, double lo, double hi, bisect_tolerance t = {}) {
  for (int it = 0; it < t.iterations && hi - lo > std::max(t.absolute, t.relative * std::abs(hi));
       ++it) {
    const double mid = 0.5 * (lo + hi);
    if (ok(mid)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Smallest x in [lo, hi] with f(x) <= target for f > 0 continuous and non-increasing, given
/// f(lo) > target >= f(hi). Illinois (modified regula falsi) on log f - log target with a
/// bisection step every fourth iteration; stops when f(hi) is within rel_tol of the target
/// (log f(hi) >= log target - rel_tol) or the bracket is below 1e-13 relative, and returns hi,
/// which always satisfies f(hi) <= target.
template <class F>
double smallest_feasible(F&& f, double lo, double hi, double target, double rel_tol = 1e-9) {
  const double lt = std::log(target);
  auto g = [&](double x) { return std::log(f(x)) - lt; };  // > 0 infeasible, <= 0 feasible
  double glo = g(lo), ghi = g(hi);
  int side = 0;
  for (int it = 0; it < 200; ++it) {
    if (ghi >= -rel_tol || hi - lo <= 1e-13 * hi) break;
    double x;
    if (std::isfinite(glo) && std::isfinite(ghi) && glo != ghi && it % 4 != 3) {
      x = hi - ghi * (hi - lo) / (ghi - glo);
      const double w = hi - lo;
      x = std::clamp(x, lo + 1e-3 * w, hi - 1e-3 * w);
    } else {
      x = 0.5 * (lo + hi);
    }
    const double gx = g(x);
    if (gx <= 0.0) {
      hi = x;
      ghi = gx;
      if (side == -1) glo *= 0.5;
      side = -1;
    } else {
      lo = x;
      glo = gx;
      if (side == 1) ghi *= 0.5;
      side = 1;
    }
  }
  return hi;
}

/// Root of a continuous g on [lo, hi] with g(lo), g(hi) of opposite signs, by Boost.Math's
/// TOMS 748 to `bits` bits, returned from the FEASIBLE side: of the two ends of Boost's final
/// bracket, the one with g <= 0 (g <= 0 means "the inequality holds"). Works for g increasing
/// or decreasing.
template <class T, class F>
T toms748_feasible(F&& g, T lo, T hi, int bits = std::numeric_limits<T>::digits - 3) {
  std::uintmax_t iterations = 400;
  const auto r = boost::math::tools::toms748_solve(
      g, lo, hi, boost::math::tools::eps_tolerance<T>(bits), iterations);
  return g(r.first) <= T(0) ? r.first : r.second;
}

/// Golden-section search for the minimum of a unimodal f on [a, b] with `iterations` steps;
/// returns the smallest value evaluated (never an interpolated one).
template <class F>
double minimize_golden(F&& f, double a, double b, int iterations) {
  const double gr = 0.5 * (std::sqrt(5.0) - 1.0);
  double c = b - gr * (b - a), d = a + gr * (b - a);
  double fc = f(c), fd = f(d);
  for (int it = 0; it < iterations; ++it) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - gr * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + gr * (b - a);
      fd = f(d);
    }
  }
  return std::min(fc, fd);
}

}  // namespace dpx::core
