// Privacy-loss PMFs of the events dpx accounts (docs/accounting.md): connect-the-dots
// discretisation of each privacy-loss curve and privacy_loss_distribution::from_event.
#include "dpx/accounting/pld.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <variant>

#include <boost/math/special_functions/erf.hpp>

#include "dpx/accounting/gaussian.hpp"
#include "dpx/core/error.hpp"
#include "normal.hpp"
#include "pld_internal.hpp"

namespace dpx::accounting {

namespace {

// ---- connect-the-dots discretisation ----------------------------------------------------------

/// Grid and rounding direction of one discretisation.
struct grid_spec {
  double h;
  pld_bound bound;
  std::int64_t max_points;
};

grid_spec spec_of(const pld_options& o, pld_bound bound) {
  return {o.discretization > 0.0 ? o.discretization : pld_options::default_discretization,
          bound,
          o.max_grid_points};
}

/// Optimistic grid measure from the exact curve values d[k] = delta(eps_k), eps_k = (i_lo+k) h
/// (docs/accounting.md, "The certified bracket"). With x = e^eps the exact curve D is convex and
/// non-increasing, D >= 1 - m x (m = Q(supp P)) and D >= d_inf (the mass at +inf). On
/// [x_k, x_{k+1}] the chord exceeds D by at most (x_{k+1} - x_k)(D'(x_{k+1}) - D'(x_k)) / 4
/// (concavity of chord - D), and the neighbouring chord slopes bound those derivatives
/// (s_{k-1} <= D'(x_k), D'(x_{k+1}) <= s_{k+1}; s_{-1} = -m, s_{n-1} = 0). Lowering every value
/// by that bound, flooring by the valid lower bounds and taking the lower convex hull gives a
/// convex, non-increasing piecewise-linear curve with kinks on the grid that is <= D: the curve
/// of a nonnegative measure (kink at x_k = p_k e^{-l_k}), continued by 1 - m x to the left and by
/// its value at the top point (<= d_inf) to the right.
pld_pmf lower_dots(
    const std::vector<double>& d, std::int64_t i_lo, double h, double m, double d_inf) {
  using ld = long double;
  const std::size_t n = d.size();
  pld_pmf r;
  r.discretization = h;
  r.offset = i_lo;
  r.bound = pld_bound::optimistic;
  if (static_cast<double>(n) * h > 11000.0 || n < 3) {
    r.probs = {0.0};  // trivial (valid) lower bound: the zero measure
    return r;
  }
  const ld ehm1 = std::expm1(static_cast<ld>(h)), eh = std::exp(static_cast<ld>(h));
  const ld x0 = std::exp(static_cast<ld>(i_lo) * h);
  std::vector<ld> u(n), s(n - 1);
  // u[k] = e^{k h} from two tables (e^{j h}, j < 256, and e^{256 m h}): a relative error of a
  // few long-double ulps (~1e-19, far inside the 1e-14 margin below) for n / 256 + 256 calls
  // of exp instead of n.
  {
    constexpr std::size_t kb = 256;
    std::vector<ld> fine(std::min(n, kb)), coarse(n / kb + 1);
    for (std::size_t j = 0; j < fine.size(); ++j) fine[j] = std::exp(static_cast<ld>(j) * h);
    for (std::size_t m = 0; m < coarse.size(); ++m)
      coarse[m] = std::exp(static_cast<ld>(m * kb) * h);
    for (std::size_t k = 0; k < n; ++k) u[k] = coarse[k / kb] * fine[k % kb];
  }
  // chord slopes in units of 1 / x0
  for (std::size_t k = 0; k + 1 < n; ++k) s[k] = (static_cast<ld>(d[k + 1]) - d[k]) / (u[k] * ehm1);
  auto slope = [&](std::ptrdiff_t k) -> ld {
    if (k < 0) return -static_cast<ld>(m) * x0;
    if (k >= static_cast<std::ptrdiff_t>(n) - 1) return 0.0L;
    return s[static_cast<std::size_t>(k)];
  };
  auto excess = [&](std::size_t k) {  // bound on chord - D on [x_k, x_{k+1}]
    const auto kk = static_cast<std::ptrdiff_t>(k);
    return std::max(0.0L, u[k] * ehm1 * (slope(kk + 1) - slope(kk - 1)) / 4);
  };
  const ld v0 = std::max(0.0L, 1.0L - static_cast<ld>(m) * x0);
  const ld vinf = std::clamp(static_cast<ld>(d_inf), 0.0L, v0);
  std::vector<ld> v(n);
  v[0] = v0;
  v[n - 1] = vinf;
  for (std::size_t k = 1; k + 1 < n; ++k) {
    const ld c = std::max(excess(k - 1), excess(k));
    const ld val = static_cast<ld>(d[k]) * (1.0L - 1e-14L) - c;
    const ld floor = std::max(1.0L - static_cast<ld>(m) * x0 * u[k], vinf);
    v[k] = std::max(val, floor);
  }
  // Flooring the TOP point at d_inf instead of lowering it can lift the last segments above D
  // where D reaches d_inf at an off-grid kink (the top atom of the Laplace PLD: the "lower"
  // epsilon then exceeded the exact one). On [x_k, x_{k+1}], D >= max(lowered chord, d_inf),
  // whose kink is where the lowered chord meets d_inf; where the segment is above d_inf there,
  // its left end is lowered so that it passes through that point (the left end stays >= d_inf,
  // and lowering a left end keeps the segment to its left below D). The bottom of the support
  // (floor 1 - m x) is left as it was: lowering there would cut the left continuation.
  for (std::size_t k = n - 1; k-- > 0;) {
    const ld ua = u[k], ub = u[k + 1], e = excess(k);
    const ld la = static_cast<ld>(d[k]) * (1.0L - 1e-14L) - e;
    const ld lb = static_cast<ld>(d[k + 1]) * (1.0L - 1e-14L) - e;
    if (!(lb < vinf && la > vinf)) continue;
    const ld x = ua + (vinf - la) * (ub - ua) / (lb - la);
    if (1.0L - static_cast<ld>(m) * x0 * x > vinf) continue;
    const ld t = (x - ua) / (ub - ua);
    if (v[k] + (v[k + 1] - v[k]) * t > vinf)
      v[k] = std::max(vinf, (vinf - v[k + 1] * t) / (1.0L - t));
  }
  // The bottom of the support likewise: where the bottom atom of the loss sits between two grid
  // points, D >= max(lowered chord, 1 - m x) on that segment, and the segment through v[k] (on
  // or below 1 - m x) and v[k+1] can pass above the kink of that maximum (the approximate-DP
  // pair's atom at -eps: the "lower" delta exceeded the exact one just above -eps). Where it
  // does, the RIGHT end is lowered so that the segment passes through the kink (lowering an
  // interior point only lowers its two segments and moves mass between neighbouring grid
  // points: the total mass and the left continuation stay, so nothing is lost per step that
  // would compound over a composition; lowering the left end instead would lower everything
  // to its left). The top point, which carries the mass at +inf, stays and the left end is
  // solved for instead.
  for (std::size_t k = 0; k + 1 < n; ++k) {
    const ld ua = u[k], ub = u[k + 1], e = excess(k);
    const ld ca = static_cast<ld>(d[k]) * (1.0L - 1e-14L) - e;
    const ld cb = static_cast<ld>(d[k + 1]) * (1.0L - 1e-14L) - e;
    const ld fa = 1.0L - static_cast<ld>(m) * x0 * ua, fb = 1.0L - static_cast<ld>(m) * x0 * ub;
    if (!((ca - fa) * (cb - fb) < 0)) continue;  // no crossing of chord and floor inside
    const ld t = (ca - fa) / ((ca - fa) - (cb - fb));
    const ld f = std::max(fa + (fb - fa) * t, vinf);  // the maximum at the crossing
    const ld over = v[k] + (v[k + 1] - v[k]) * t - f;
    if (!(over > 0)) continue;
    if (k + 2 == n) {
      v[k] = (f - v[k + 1] * t) / (1.0L - t);
    } else {
      v[k + 1] = (f - v[k] * (1.0L - t)) / t;
    }
  }
  // The hull's first segment may not fall faster than the left continuation 1 - m x (a
  // measure's curve has slope >= -Q(supp P) >= -m; a steeper one would need a negative mass at
  // the first point, whose clamping to 0 RAISED the curve): where lowered points made it so, the
  // first point is lowered until every chord from it is at least as flat as -m (lowering is
  // safe, and the left continuation moves down with it).
  for (std::size_t k = 1; k < n; ++k) {
    v[0] = std::min(v[0], v[k] + static_cast<ld>(m) * x0 * (u[k] - u[0]));
  }
  // lower convex hull (monotone chain on increasing u)
  std::vector<std::size_t> hull;
  hull.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    while (hull.size() >= 2) {
      const std::size_t a = hull[hull.size() - 2], b = hull.back();
      const ld cross = (u[b] - u[a]) * (v[k] - v[a]) - (v[b] - v[a]) * (u[k] - u[a]);
      if (cross > 0) break;
      hull.pop_back();
    }
    hull.push_back(k);
  }
  std::vector<ld> w(n);
  for (std::size_t j = 0; j + 1 < hull.size(); ++j) {
    const std::size_t a = hull[j], b = hull[j + 1];
    for (std::size_t k = a; k < b; ++k) w[k] = v[a] + (v[b] - v[a]) * (u[k] - u[a]) / (u[b] - u[a]);
  }
  w[n - 1] = v[n - 1];
  // masses: p_k = x_k (slope_k - slope_{k-1}) = g_k - e^h g_{k-1}, g_k = (w_{k+1} - w_k)/(e^h-1)
  r.probs.assign(n, 0.0);
  ld g_prev = -static_cast<ld>(m) * x0 / eh;  // x_{-1} * slope_{-1}
  for (std::size_t k = 0; k < n; ++k) {
    const ld g = k + 1 < n ? (w[k + 1] - w[k]) / ehm1 : 0.0L;
    const ld p = g - eh * g_prev;
    r.probs[k] = p > 0 ? static_cast<double>(p) : 0.0;
    g_prev = g;
  }
  r.infinity_mass = static_cast<double>(vinf);
  return r;
}

/// PMF on the grid {i h : floor(lo/h) <= i <= ceil(hi/h)}. Pessimistic: its delta curve
/// interpolates the exact curve `hs` at the grid points linearly in e^eps [Doroshenko et al.
/// 2022, Alg. 1], the mass above the top point is delta(top) and goes to +inf; requires
/// hs(eps) = 1 - e^eps below the smallest finite loss up to the lower truncation (the chord to
/// (0, 1) covers the rest). Optimistic: lower_dots, with the grid extended down to -log m so
/// that the left continuation 1 - m x stays >= 0; `hs` must be exact there too.
template <class H>
pld_pmf connect_the_dots(
    H hs, double eps_lo, double eps_hi, const grid_spec& g, double m = 1.0, double d_inf = 0.0) {
  const double h = g.h;
  const bool pess = g.bound == pld_bound::pessimistic;
  if (!pess && std::isfinite(eps_lo)) eps_lo = std::min(eps_lo, -std::log(m) - h);
  const double range = eps_hi - eps_lo;
  if (!std::isfinite(range) || !(range / h + 3.0 < static_cast<double>(g.max_points))) {
    throw pld_grid_error(range);
  }
  std::int64_t i_lo = static_cast<std::int64_t>(std::floor(eps_lo / h));
  std::int64_t i_hi = static_cast<std::int64_t>(std::ceil(eps_hi / h));
  if (i_hi <= i_lo) i_hi = i_lo + 1;
  const std::size_t n = static_cast<std::size_t>(i_hi - i_lo + 1);
  std::vector<double> d(n);
  auto eval = [&](std::size_t k) {
    d[k] = hs(static_cast<double>(i_lo + static_cast<std::int64_t>(k)) * h);
  };
  for (std::size_t k = 0; k < n; ++k) eval(k);
  pld_pmf r;
  if (pess) {
    // The exact curve is non-increasing; enforce it against round-off (raising values is safe).
    for (std::size_t k = n - 1; k-- > 0;) d[k] = std::max(d[k], d[k + 1]);
    r.discretization = h;
    r.offset = i_lo;
    r.infinity_mass = d[n - 1];
    r.probs.assign(n, 0.0);
    const long double em = std::exp(-static_cast<long double>(h));
    const long double one_minus = -std::expm1(-static_cast<long double>(h));
    long double c = 0.0L, sum = 0.0L;
    for (std::size_t k = n - 1; k-- > 0;) {
      long double p = (static_cast<long double>(d[k]) - d[k + 1]) / one_minus - c;
      if (p < 0) p = 0;
      r.probs[k + 1] = static_cast<double>(p);
      sum += p;
      c = em * (c + p);
    }
    r.probs[0] = static_cast<double>(std::max(0.0L, 1.0L - r.infinity_mass - sum));
  } else {
    // Lowering values is safe here.
    for (std::size_t k = 0; k + 1 < n; ++k) d[k + 1] = std::min(d[k + 1], d[k]);
    r = lower_dots(d, i_lo, h, m, d_inf);
  }
  // trim zeros at both ends
  std::size_t a = 0, b = r.probs.size();
  while (a + 1 < b && r.probs[a] == 0.0) ++a;
  while (b > a + 1 && r.probs[b - 1] == 0.0) --b;
  r.probs.erase(r.probs.begin() + static_cast<std::ptrdiff_t>(b), r.probs.end());
  r.probs.erase(r.probs.begin(), r.probs.begin() + static_cast<std::ptrdiff_t>(a));
  r.offset += static_cast<std::int64_t>(a);
  return r;
}

/// Upper standard-normal quantile z with Phi(-z) = eta.
double upper_z(double eta) { return std::sqrt(2.0) * boost::math::erfc_inv(2.0 * eta); }

pld_pmf gaussian_pmf(double sigma, const grid_spec& g, double tail_mass) {
  const double mu = 1.0 / sigma;
  const double z = upper_z(tail_mass);
  auto hs = [mu](double e) { return detail::gaussian_hockey_stick_fast(e, mu); };
  return connect_the_dots(hs, mu * mu / 2 - z * mu, mu * mu / 2 + z * mu, g);
}

pld_pmf laplace_pmf(double b, const grid_spec& g) {
  const double e0 = 1.0 / b;
  auto hs = [b](double e) { return detail::laplace_hockey_stick(e, b); };
  return connect_the_dots(hs, -e0, e0, g);
}

/// Subsampled Gaussian, remove direction: P = (1-q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2).
/// delta(eps) = q delta_G(eps'), eps' = log((e^eps - 1 + q)/q), for eps > log(1-q); 1 - e^eps
/// below (all loss mass lies above log(1-q)).
pld_pmf subsampled_remove_pmf(double q, double s, const grid_spec& g, double tail_mass) {
  const double mu = 1.0 / s, lq = std::log(q), l1q = std::log1p(-q);
  auto hs = [=](double e) {
    if (e <= l1q) return -std::expm1(e);
    const double ep = detail::log_sub(e, l1q) - lq;
    return q * detail::gaussian_hockey_stick_fast(ep, mu);
  };
  const double z = upper_z(tail_mass);
  const double x = 1.0 + z * s;
  const double top = detail::log_add(l1q, lq + (2.0 * x - 1.0) / (2.0 * s * s));
  return connect_the_dots(hs, l1q, top, g);
}

/// Subsampled Gaussian, add direction: P = N(0, s^2), Q = (1-q) N(0, s^2) + q N(1, s^2).
/// delta(eps) = (1 - e^eps (1-q)) delta_G(eps''), eps'' = log q + eps - log(1 - e^eps (1-q)),
/// for eps < -log(1-q) (the largest loss); 0 above.
pld_pmf subsampled_add_pmf(double q, double s, const grid_spec& g, double tail_mass) {
  const double mu = 1.0 / s, lq = std::log(q), l1q = std::log1p(-q);
  auto hs = [=](double e) {
    if (e >= -l1q) return 0.0;
    const double lf = detail::log1mexp(e + l1q);  // log(1 - e^eps (1 - q))
    const double epp = lq + e - lf;
    return std::exp(lf) * detail::gaussian_hockey_stick_fast(epp, mu);
  };
  const double z = upper_z(tail_mass);
  const double x = z * s;
  const double bottom = -detail::log_add(l1q, lq + (2.0 * x - 1.0) / (2.0 * s * s));
  return connect_the_dots(hs, bottom, -l1q, g);
}

/// Discrete pair (P, Q): connect-the-dots on the exact curve for modest sizes, otherwise each
/// atom's loss rounded UP to the grid (pessimistic) or DOWN (optimistic; first order in h).
pld_pmf discrete_pmf(const std::vector<double>& p,
                     const std::vector<double>& q,
                     const grid_spec& g) {
  const double h = g.h;
  std::vector<double> loss, mass;
  double inf_mass = 0.0, m = 0.0;  // m = Q(supp P)
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] <= 0.0) continue;
    if (q[i] <= 0.0) {
      inf_mass += p[i];
      continue;
    }
    loss.push_back(std::log(p[i]) - std::log(q[i]));
    mass.push_back(p[i]);
    m += q[i];
  }
  if (loss.empty()) {
    pld_pmf r;
    r.discretization = h;
    r.bound = g.bound;
    r.probs = {0.0};
    r.infinity_mass = 1.0;
    return r;
  }
  const double lo = *std::min_element(loss.begin(), loss.end());
  const double hi = *std::max_element(loss.begin(), loss.end());
  const double grid = (hi - lo) / h + 2.0;
  if (grid * static_cast<double>(loss.size()) <= 2e7) {
    // Below the smallest loss the exact curve is 1 - e^eps m (m <= 1); the pessimistic
    // construction keeps that mass at the bottom atom (probs[0]), the optimistic one uses it.
    auto hs = [&](double e) {
      if (e <= lo) return std::max(0.0, 1.0 - std::exp(e) * m);
      double d = inf_mass;
      for (std::size_t i = 0; i < loss.size(); ++i) {
        if (loss[i] > e) d += mass[i] * -std::expm1(e - loss[i]);
      }
      return d;
    };
    return connect_the_dots(hs, lo, hi, g, std::min(1.0, m), inf_mass);
  }
  const bool pess = g.bound == pld_bound::pessimistic;
  auto index = [&](double l) {
    return static_cast<std::int64_t>(pess ? std::ceil(l / h) : std::floor(l / h));
  };
  pld_pmf r;
  r.discretization = h;
  r.bound = g.bound;
  const std::int64_t i_lo = index(lo), i_hi = index(hi);
  r.offset = i_lo;
  r.probs.assign(static_cast<std::size_t>(i_hi - i_lo + 1), 0.0);
  for (std::size_t i = 0; i < loss.size(); ++i) {
    r.probs[static_cast<std::size_t>(index(loss[i]) - i_lo)] += mass[i];
  }
  r.infinity_mass = inf_mass;
  return r;
}

}  // namespace

namespace detail {
double laplace_hockey_stick(double e, double b) {
  // delta(eps) = 1 - exp((eps - 1/b)/2) on [-1/b, 1/b] (derivation in docs/accounting.md).
  const double e0 = 1.0 / b;
  if (e >= e0) return 0.0;
  if (e <= -e0) return -std::expm1(e);
  return -std::expm1(0.5 * (e - e0));
}

pld_pmf pmf_from_curve(const std::function<double(double)>& hs,
                       double eps_lo,
                       double eps_hi,
                       const pld_options& o,
                       pld_bound bound) {
  return connect_the_dots(hs, eps_lo, eps_hi, spec_of(o, bound));
}
}  // namespace detail

privacy_loss_distribution privacy_loss_distribution::from_event(const core::privacy_event& e,
                                                                const pld_options& o,
                                                                pld_bound bound) {
  o.validate();
  const grid_spec g = spec_of(o, bound);
  const char* fn = "privacy_loss_distribution::from_event";
  auto sym = [](pld_pmf p) { return privacy_loss_distribution(std::move(p), nullptr); };
  auto pair = [&](const std::vector<double>& p, const std::vector<double>& q) {
    return privacy_loss_distribution(discrete_pmf(p, q, g),
                                     std::make_shared<pld_pmf>(discrete_pmf(q, p, g)));
  };
  auto pure = [&](double eps) {
    const double hi = 1.0 / (1.0 + std::exp(-eps)), lo = 1.0 / (1.0 + std::exp(eps));
    return sym(discrete_pmf({hi, lo}, {lo, hi}, g));
  };
  return std::visit(
      detail::overloaded{
          [&](const core::pure_dp_event& x) {
            core::check_positive(fn, "epsilon", x.epsilon);
            return pure(x.epsilon);
          },
          [&](const core::approx_dp_event& x) {
            core::check_positive(fn, "epsilon", x.epsilon);
            if (!(x.delta >= 0.0 && x.delta < 1.0)) {
              core::throw_invalid(fn, "delta", x.delta, "must lie in [0, 1)");
            }
            const double a = (1.0 - x.delta) / (1.0 + std::exp(-x.epsilon));
            const double b = (1.0 - x.delta) / (1.0 + std::exp(x.epsilon));
            return sym(discrete_pmf({x.delta, a, b, 0.0}, {0.0, b, a, x.delta}, g));
          },
          [&](const core::laplace_event& x) {
            core::check_positive(fn, "noise_multiplier", x.noise_multiplier);
            return sym(laplace_pmf(x.noise_multiplier, g));
          },
          [&](const core::gaussian_event& x) {
            core::check_positive(fn, "noise_multiplier", x.noise_multiplier);
            return sym(gaussian_pmf(x.noise_multiplier, g, o.tail_mass));
          },
          [&](const core::subsampled_gaussian_event& x) {
            core::check_half_open_interval(fn, "sampling_rate", x.sampling_rate, 0.0, 1.0);
            core::check_positive(fn, "noise_multiplier", x.noise_multiplier);
            if (x.sampling_rate == 1.0)
              return sym(gaussian_pmf(x.noise_multiplier, g, o.tail_mass));
            return privacy_loss_distribution(
                subsampled_remove_pmf(x.sampling_rate, x.noise_multiplier, g, o.tail_mass),
                std::make_shared<pld_pmf>(
                    subsampled_add_pmf(x.sampling_rate, x.noise_multiplier, g, o.tail_mass)));
          },
          [&](const core::randomized_response_event& x) {
            core::check_positive(fn, "epsilon", x.epsilon);
            core::check_at_least(fn, "categories", x.categories, 2);
            const double k = static_cast<double>(x.categories);
            const double z = std::exp(x.epsilon) + k - 1.0;
            const double hi = std::exp(x.epsilon) / z, lo = 1.0 / z;
            return sym(discrete_pmf({hi, lo, 1.0 - hi - lo}, {lo, hi, 1.0 - hi - lo}, g));
          },
          [&](const core::discrete_pair_event& x) {
            detail::check_pld_pair(fn, x.p, x.q);
            return pair(x.p, x.q);
          },
          [&](const core::exponential_mechanism_event& x) {
            // eps-DP: dominated by the randomized-response pair (valid, not bounded-range tight).
            core::check_positive(fn, "epsilon", x.epsilon);
            return pure(x.epsilon);
          },
          [&](const core::subsampled_laplace_event& x) {
            return detail::subsampled_laplace_pld(x, o, bound);
          },
          [&](const core::sampled_without_replacement_event& x) {
            return detail::without_replacement_pld(x, o, bound);
          },
          [&](const auto& other) -> privacy_loss_distribution {
            throw unsupported_event_error("pld", core::event_name(core::privacy_event{other}));
          }},
      e);
}

}  // namespace dpx::accounting
