#include "dpx/accounting/pld.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <variant>

#include <boost/math/special_functions/erf.hpp>

#include "dpx/accounting/gaussian.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/roots.hpp"
#include "normal.hpp"
#include "pld_internal.hpp"

namespace dpx::accounting {

namespace {
constexpr double inf = std::numeric_limits<double>::infinity();

// ---- FFT convolution ------------------------------------------------------------------------

/// FFTW's planner is not thread-safe (fftw_execute is): plans are made under this mutex.
std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

/// Smallest n' >= n of the form 2^a or 3 * 2^a (few distinct sizes, so cached plans are reused).
std::size_t fft_size(std::size_t n) {
  std::size_t p2 = 1;
  while (p2 < n) p2 <<= 1;
  const std::size_t p3 = 3 * (p2 / 4);
  return p3 >= n && p3 > 0 ? p3 : p2;
}

/// FFTW plans for one size, created once (FFTW_ESTIMATE) and executed on fresh, equally aligned
/// (fftw_malloc) arrays with the new-array execute interface.
struct fft_plans {
  fftw_plan fwd;
  fftw_plan inv;
};

/// Process-lifetime plan cache; destroys its plans at exit (so leak checkers see no leak).
struct plan_cache {
  std::map<std::size_t, fft_plans> plans;
  plan_cache() = default;
  plan_cache(const plan_cache&) = delete;
  plan_cache& operator=(const plan_cache&) = delete;
  ~plan_cache() {
    for (auto& [n, p] : plans) {
      fftw_destroy_plan(p.fwd);
      fftw_destroy_plan(p.inv);
    }
  }
};

const fft_plans& plans_for(std::size_t n) {
  static plan_cache storage;
  auto& cache = storage.plans;
  std::lock_guard<std::mutex> lock(fftw_planner_mutex());
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  double* r = fftw_alloc_real(n);
  fftw_complex* c = fftw_alloc_complex(n / 2 + 1);
  const int ni = static_cast<int>(n);
  fft_plans p{fftw_plan_dft_r2c_1d(ni, r, c, FFTW_ESTIMATE),
              fftw_plan_dft_c2r_1d(ni, c, r, FFTW_ESTIMATE)};
  fftw_free(r);
  fftw_free(c);
  return cache.emplace(n, p).first->second;
}

struct fft_buffers {
  std::size_t n;
  double* real;
  fftw_complex* spec;
  fftw_complex* spec2;
  const fft_plans& plans;
  explicit fft_buffers(std::size_t size, bool two) : n(size), plans(plans_for(size)) {
    real = fftw_alloc_real(n);
    spec = fftw_alloc_complex(n / 2 + 1);
    spec2 = two ? fftw_alloc_complex(n / 2 + 1) : nullptr;
  }
  ~fft_buffers() {
    fftw_free(real);
    fftw_free(spec);
    if (spec2) fftw_free(spec2);
  }
  fft_buffers(const fft_buffers&) = delete;
  fft_buffers& operator=(const fft_buffers&) = delete;
  void load(const std::vector<double>& x) {
    std::copy(x.begin(), x.end(), real);
    std::fill(real + x.size(), real + n, 0.0);
  }
  void forward(fftw_complex* out) { fftw_execute_dft_r2c(plans.fwd, real, out); }
  void inverse() { fftw_execute_dft_c2r(plans.inv, spec, real); }
};

/// Clamps FFT round-off, truncates both tails and trims zeros. Pessimistic: the lower tail
/// moves UP to the first kept grid point, the upper tail to +inf. Optimistic: both are dropped
/// (removing mass only lowers the delta curve).
void truncate_tails(pld_pmf& r, double tail_mass) {
  auto& p = r.probs;
  for (double& x : p) x = x > 0.0 ? x : 0.0;
  const bool pess = r.bound == pld_bound::pessimistic;
  const double half = 0.5 * tail_mass;
  std::size_t lo = 0;
  double cum = 0.0;
  while (lo + 1 < p.size() && cum + p[lo] <= half) cum += p[lo++];
  if (pess) p[lo] += cum;
  std::size_t hi = p.size() - 1;
  cum = 0.0;
  while (hi > lo && cum + p[hi] <= half) cum += p[hi--];
  if (pess) r.infinity_mass = std::min(1.0, r.infinity_mass + cum);
  p.erase(p.begin() + static_cast<std::ptrdiff_t>(hi) + 1, p.end());
  p.erase(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(lo));
  r.offset += static_cast<std::int64_t>(lo);
}

/// Total mass (finite part plus +inf) of a PMF; 1 for pessimistic PMFs up to rounding.
double total_mass(const pld_pmf& a) {
  return std::accumulate(a.probs.begin(), a.probs.end(), 0.0) + a.infinity_mass;
}

/// Mass at +inf of the composition: a pair has infinite loss when either loss is infinite,
/// i.e. a_inf M_b + b_inf M_a - a_inf b_inf (M = total mass; 1 - (1-a)(1-b) when M = 1).
double composed_infinity_mass(const pld_pmf& a, const pld_pmf& b) {
  if (a.bound == pld_bound::pessimistic) {
    return -std::expm1(std::log1p(-a.infinity_mass) + std::log1p(-b.infinity_mass));
  }
  return a.infinity_mass * total_mass(b) + b.infinity_mass * total_mass(a) -
         a.infinity_mass * b.infinity_mass;
}

pld_pmf convolve(const pld_pmf& a, const pld_pmf& b, double tail_mass, bool square) {
  pld_pmf r;
  r.discretization = a.discretization;
  r.offset = a.offset + b.offset;
  r.bound = a.bound;
  r.error_mass = a.error_mass + b.error_mass;
  r.infinity_mass = composed_infinity_mass(a, b);
  const std::size_t n = a.probs.size() + b.probs.size() - 1;
  if (a.probs.size() * b.probs.size() <= 4096) {
    r.probs.assign(n, 0.0);
    for (std::size_t i = 0; i < a.probs.size(); ++i) {
      for (std::size_t j = 0; j < b.probs.size(); ++j) r.probs[i + j] += a.probs[i] * b.probs[j];
    }
  } else {
    fft_buffers f(fft_size(n), !square);
    f.load(a.probs);
    f.forward(f.spec);
    const std::size_t m = f.n / 2 + 1;
    if (square) {
      for (std::size_t k = 0; k < m; ++k) {
        const double re = f.spec[k][0], im = f.spec[k][1];
        f.spec[k][0] = re * re - im * im;
        f.spec[k][1] = 2.0 * re * im;
      }
    } else {
      f.load(b.probs);
      f.forward(f.spec2);
      for (std::size_t k = 0; k < m; ++k) {
        const double re = f.spec[k][0] * f.spec2[k][0] - f.spec[k][1] * f.spec2[k][1];
        const double im = f.spec[k][0] * f.spec2[k][1] + f.spec[k][1] * f.spec2[k][0];
        f.spec[k][0] = re;
        f.spec[k][1] = im;
      }
    }
    f.inverse();
    const double scale = 1.0 / static_cast<double>(f.n);
    r.probs.resize(n);
    for (std::size_t i = 0; i < n; ++i) r.probs[i] = f.real[i] * scale;
  }
  truncate_tails(r, tail_mass);
  return r;
}

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
  for (std::size_t k = 0; k < n; ++k) u[k] = std::exp(static_cast<ld>(k) * h);
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
  for (std::size_t k = 0; k < n; ++k) {
    d[k] = hs(static_cast<double>(i_lo + static_cast<std::int64_t>(k)) * h);
  }
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
  auto hs = [mu](double e) { return std::exp(detail::log_gaussian_hockey_stick(e, mu)); };
  return connect_the_dots(hs, mu * mu / 2 - z * mu, mu * mu / 2 + z * mu, g);
}

pld_pmf laplace_pmf(double b, const grid_spec& g) {
  const double e0 = 1.0 / b;
  // delta(eps) = 1 - exp((eps - 1/b)/2) on [-1/b, 1/b] (derivation in docs/accounting.md).
  auto hs = [e0](double e) {
    if (e >= e0) return 0.0;
    if (e <= -e0) return -std::expm1(e);
    return -std::expm1(0.5 * (e - e0));
  };
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
    return q * std::exp(detail::log_gaussian_hockey_stick(ep, mu));
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
    return std::exp(lf + detail::log_gaussian_hockey_stick(epp, mu));
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
void check_pld_pair(const char* fn, const std::vector<double>& p, const std::vector<double>& q) {
  core::check_nonempty_finite_span(fn, "p", p);
  core::check_size(fn, "q", q.size(), p.size());
  core::check_finite_span(fn, "q", q);
  double sp = 0, sq = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    core::check_nonnegative(fn, "p[i]", p[i]);
    core::check_nonnegative(fn, "q[i]", q[i]);
    sp += p[i];
    sq += q[i];
  }
  if (std::abs(sp - 1.0) > 1e-9) core::throw_invalid(fn, "p", sp, "must sum to 1");
  if (std::abs(sq - 1.0) > 1e-9) core::throw_invalid(fn, "q", sq, "must sum to 1");
}

}  // namespace detail

// ---- pld_pmf queries ------------------------------------------------------------------------

double pld_pmf::delta(double epsilon) const {
  core::check_finite("pld_pmf::delta", "epsilon", epsilon);
  double d = infinity_mass;
  for (std::size_t i = probs.size(); i-- > 0;) {
    const double l = static_cast<double>(offset + static_cast<std::int64_t>(i)) * discretization;
    if (l <= epsilon) break;
    d += probs[i] * -std::expm1(epsilon - l);
  }
  return std::clamp(d - error_mass, 0.0, 1.0);
}

double pld_pmf::epsilon(double delta) const {
  core::check_open_interval("pld_pmf::epsilon", "delta", delta, 0.0, 1.0);
  delta += error_mass;  // optimistic: the stored curve may exceed the valid one by error_mass
  if (delta >= 1.0) return 0.0;
  if (infinity_mass >= delta) return inf;
  const double h = discretization;
  const double eh = std::exp(-h);
  // Walk down the grid keeping S = sum_{i>=j} p_i and W = sum_{i>=j} p_i e^{-(l_i - l_j)}.
  double s = 0.0, w = 0.0;
  for (std::size_t j = probs.size(); j-- > 0;) {
    s += probs[j];
    w += probs[j];
    const double lj = static_cast<double>(offset + static_cast<std::int64_t>(j)) * h;
    // delta at l_{j-1} (or below all atoms: the same segment extends to -inf).
    const double d_below = infinity_mass + s - eh * w;
    if (d_below > delta || j == 0) {
      // On [l_{j-1}, l_j]: delta(eps) = inf + S - e^{eps - l_j} W = target.
      if (w <= 0.0) return std::max(0.0, lj);
      if (infinity_mass + s - delta <= 0.0) return 0.0;  // sub-probability (optimistic) PMF
      const double e = lj + std::log((infinity_mass + s - delta) / w);
      return std::max(0.0, std::min(e, lj));
    }
    w *= eh;
  }
  return 0.0;
}

pld_pmf compose(const pld_pmf& a, const pld_pmf& b, double tail_mass) {
  if (a.bound != b.bound) {
    core::throw_invalid("pld compose", "bound", 0.0, "both PLDs must be rounded the same way");
  }
  if (a.discretization != b.discretization) {
    core::throw_invalid("pld compose",
                        "discretization",
                        b.discretization,
                        "must equal the other PLD's discretization");
  }
  return convolve(a, b, tail_mass, false);
}

namespace {

/// log sum_i p_i e^{lambda l_i} (l_i = (offset + i) h) of the finite part, by Horner's rule in
/// the direction in which the powers of e^{-|lambda| h} shrink (no overflow, all terms >= 0),
/// plus a margin covering its rounding, so that it is an upper bound on the true log MGF.
double log_mgf_upper(const pld_pmf& a, double lambda) {
  const auto& p = a.probs;
  const std::size_t n = p.size();
  const double h = a.discretization;
  const double w = std::exp(-std::abs(lambda) * h);
  double s = 0.0;
  double anchor;  // loss of the term with factor 1
  if (lambda > 0.0) {
    for (std::size_t i = 0; i < n; ++i) s = s * w + p[i];  // sum p_i w^{n-1-i}
    anchor = static_cast<double>(a.offset + static_cast<std::int64_t>(n) - 1) * h;
  } else {
    for (std::size_t i = n; i-- > 0;) s = s * w + p[i];  // sum p_i w^i
    anchor = static_cast<double>(a.offset) * h;
  }
  if (!(s > 0.0)) return -inf;
  const double shift = lambda * anchor;
  // n + 2 roundings of relative size 2^-53 in the nonnegative sum and in w^n, plus the
  // rounding of the shift and the log.
  return shift + std::log(s) + 4.0 * static_cast<double>(n + 2) * 0x1p-52 +
         1e-12 * (std::abs(shift) + 1.0);
}

/// Chernoff bound on the count-fold sum S of the finite part: mass{S > s} <= e^{-lambda s}
/// M(lambda)^count for every lambda > 0 (mass{S < s} likewise for lambda < 0), so the loss beyond
/// which at most tau remains is (count log M(lambda) - log tau) / lambda for ANY lambda: the
/// search over lambda only tightens the window, it does not affect validity. Returns the best
/// such loss for the given sign of lambda (+inf / -inf when no lambda helps).
double chernoff_loss(const pld_pmf& a, std::int64_t count, double tau, double sign) {
  const double t = static_cast<double>(count), ltau = std::log(tau);
  auto bound = [&](double log_lambda) {
    const double lambda = sign * std::exp(log_lambda);
    const double lm = log_mgf_upper(a, lambda);
    if (!std::isfinite(lm)) return sign * inf;
    return (t * lm - ltau) / lambda;
  };
  // The bound is quasi-convex in lambda; scan octaves, then golden-section in log lambda.
  auto better = [&](double x, double y) { return sign > 0 ? x < y : x > y; };
  double best = sign * inf, best_ll = 0.0;
  for (int k = -14; k <= 16; ++k) {
    const double ll = k * std::log(2.0);
    const double v = bound(ll);
    if (better(v, best)) {
      best = v;
      best_ll = ll;
    }
  }
  if (!std::isfinite(best)) return best;
  // Golden section minimises sign * bound (the same steps for either sign).
  const double g = core::minimize_golden([&](double ll) { return sign * bound(ll); },
                                         best_ll - std::log(2.0),
                                         best_ll + std::log(2.0),
                                         20);
  if (better(sign * g, best)) best = sign * g;
  return best;
}

/// z^count for a complex z (binary powering; products of moduli <= 1 cannot overflow, and a
/// base that has become negligible makes the whole power negligible).
template <class R>
void complex_power(R& re, R& im, std::int64_t count) {
  R rr = 1, ri = 0, br = re, bi = im;
  while (true) {
    if (count & 1) {
      const R t = rr * br - ri * bi;
      ri = rr * bi + ri * br;
      rr = t;
    }
    count >>= 1;
    if (count == 0) break;
    const R t = br * br - bi * bi;
    bi = 2 * br * bi;
    br = t;
    if (br * br + bi * bi < R(1e-280)) {  // |base|^(>= 1 more factor) < 1e-140: negligible
      rr = ri = 0;
      break;
    }
  }
  re = rr;
  im = ri;
}

/// In-place circular count-th convolution power of x (length N) by one forward FFT, a
/// pointwise power and one inverse FFT (normalised). The power multiplies the relative
/// rounding error of the low-frequency coefficients by count, which puts a noise floor of
/// roughly count * 2^-52 * (mass scale) under every grid point; in extended precision
/// (`extended`, FFTW long double, 2^-64) that floor is 2^12 times lower.
void circular_power(std::vector<double>& x, std::int64_t count, bool extended) {
  const std::size_t n = x.size();
  if (!extended) {
    fft_buffers f(n, false);
    f.load(x);
    f.forward(f.spec);
    for (std::size_t k = 0; k < n / 2 + 1; ++k) complex_power(f.spec[k][0], f.spec[k][1], count);
    f.inverse();
    const double scale = 1.0 / static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = f.real[i] * scale;
    return;
  }
  long double* r = fftwl_alloc_real(n);
  fftwl_complex* c = fftwl_alloc_complex(n / 2 + 1);
  fftwl_plan fwd, inv;
  {
    // Planned per call (FFTW_ESTIMATE is cheap): extended precision is the rare path.
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    const int ni = static_cast<int>(n);
    fwd = fftwl_plan_dft_r2c_1d(ni, r, c, FFTW_ESTIMATE);
    inv = fftwl_plan_dft_c2r_1d(ni, c, r, FFTW_ESTIMATE);
  }
  for (std::size_t i = 0; i < n; ++i) r[i] = x[i];
  fftwl_execute(fwd);
  for (std::size_t k = 0; k < n / 2 + 1; ++k) complex_power(c[k][0], c[k][1], count);
  fftwl_execute(inv);
  const long double scale = 1.0L / static_cast<long double>(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(r[i] * scale);
  {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    fftwl_destroy_plan(fwd);
    fftwl_destroy_plan(inv);
  }
  fftwl_free(r);
  fftwl_free(c);
}

}  // namespace

pld_pmf self_compose(const pld_pmf& a, std::int64_t count, double tail_mass, bool extended) {
  core::check_at_least("pld self_compose", "count", count, 1);
  if (count == 1 || a.probs.size() <= 1) return self_compose_by_squaring(a, count, tail_mass);
  // One pass, as dp_accounting does: one forward FFT, z -> z^count pointwise, one inverse FFT, on
  // a circular window [lo, lo + N) chosen by Chernoff bounds so that at most tau of the T-fold
  // mass lies above it and at most tau below it. Validity of the circular (aliased) result:
  //   * in-window indices receive their exact mass plus aliased copies of out-of-window mass
  //     (nonnegative extra mass only raises delta(eps): pessimistic);
  //   * mass below the window (<= tau) reappears at higher losses (pessimistic);
  //   * mass above the window (<= tau) reappears at LOWER losses, so tau is added to the mass
  //     at +infinity, which covers it.
  const double tau = 0.5 * tail_mass;
  const double h = a.discretization;
  const auto n = static_cast<std::int64_t>(a.probs.size());
  const std::int64_t support_lo = count * a.offset;
  const std::int64_t support_hi = count * (a.offset + n - 1);
  std::int64_t lo = support_lo, hi = support_hi;
  const double up = chernoff_loss(a, count, tau, 1.0);
  const double down = chernoff_loss(a, count, tau, -1.0);
  if (std::isfinite(up) && up / h < static_cast<double>(support_hi)) {
    hi = std::max(support_lo, static_cast<std::int64_t>(std::ceil(up / h)));
  }
  if (std::isfinite(down) && down / h > static_cast<double>(support_lo)) {
    lo = std::min(hi, static_cast<std::int64_t>(std::floor(down / h)));
  }
  std::vector<double> x(fft_size(static_cast<std::size_t>(hi - lo + 1)), 0.0);
  const auto big_n = static_cast<std::int64_t>(x.size());
  for (std::int64_t j = 0; j < n; ++j)
    x[static_cast<std::size_t>(j % big_n)] += a.probs[static_cast<std::size_t>(j)];
  circular_power(x, count, extended);
  // Bin b of the circular result holds the sums with sum of 0-based indices J = b (mod N); the
  // true grid index is count * offset + J, so window slot s (index lo + s) is bin
  // (lo - count * offset + s) mod N.
  const std::int64_t shift = ((lo - support_lo) % big_n + big_n) % big_n;
  pld_pmf r;
  r.discretization = h;
  r.offset = lo;
  r.probs.resize(x.size());
  for (std::int64_t s = 0; s < big_n; ++s) {
    r.probs[static_cast<std::size_t>(s)] = x[static_cast<std::size_t>((shift + s) % big_n)];
  }
  const bool lost_above = lo + big_n - 1 < support_hi;
  const double t = static_cast<double>(count);
  r.bound = a.bound;
  if (a.bound == pld_bound::pessimistic) {
    r.infinity_mass = -std::expm1(t * std::log1p(-a.infinity_mass));
    if (lost_above) r.infinity_mass = std::min(1.0, r.infinity_mass + tau);
  } else {
    // M^T - (M - inf)^T for total mass M <= 1. Mass folded down from above the window only
    // lowers the curve; mass folded up from below (<= tau) is recorded as error.
    const double mt = total_mass(a);
    r.infinity_mass =
        mt > 0.0 ? std::exp(t * std::log(mt)) * -std::expm1(t * std::log1p(-a.infinity_mass / mt))
                 : 0.0;
    r.error_mass = t * a.error_mass + (lo > support_lo ? tau : 0.0);
  }
  truncate_tails(r, tail_mass);
  return r;
}

pld_pmf self_compose_by_squaring(const pld_pmf& a, std::int64_t count, double tail_mass) {
  core::check_at_least("pld self_compose_by_squaring", "count", count, 1);
  pld_pmf base = a;
  bool have = false;
  pld_pmf result;
  while (count > 0) {
    if (count & 1) {
      result = have ? convolve(result, base, tail_mass, false) : base;
      have = true;
    }
    count >>= 1;
    if (count > 0) base = convolve(base, base, tail_mass, true);
  }
  return result;
}

// ---- privacy_loss_distribution ---------------------------------------------------------------

void pld_options::validate() const {
  const char* fn = "pld_options::validate";
  core::check_nonnegative(fn, "discretization", discretization);
  if (discretization > 1.0)
    core::throw_invalid(fn, "discretization", discretization, "must be <= 1");
  core::check_half_open_interval(fn, "tail_mass", tail_mass, 0.0, 1e-3);
  core::check_positive(fn, "epsilon_error", epsilon_error);
  if (epsilon_error >= 1.0) core::throw_invalid(fn, "epsilon_error", epsilon_error, "must be < 1");
  core::check_nonnegative(fn, "epsilon_error_absolute", epsilon_error_absolute);
  core::check_at_least(fn, "max_grid_points", max_grid_points, std::int64_t{1024});
}

pld_grid_error::pld_grid_error(double r)
    : std::invalid_argument("pld: the privacy-loss support (" + std::to_string(r) +
                            " nats) does not fit the grid limit (max_grid_points)"),
      range(r) {}

privacy_loss_distribution::privacy_loss_distribution(pld_pmf remove,
                                                     std::shared_ptr<const pld_pmf> add)
    : remove_(std::move(remove)), add_(std::move(add)) {}

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
          [&](const auto& other) -> privacy_loss_distribution {
            throw unsupported_event_error("pld", core::event_name(core::privacy_event{other}));
          }},
      e);
}

privacy_loss_distribution privacy_loss_distribution::compose(const privacy_loss_distribution& other,
                                                             double tail_mass) const {
  pld_pmf r = accounting::compose(remove_, other.remove_, tail_mass);
  if (symmetric() && other.symmetric()) return {std::move(r), nullptr};
  return {std::move(r),
          std::make_shared<pld_pmf>(accounting::compose(add_pmf(), other.add_pmf(), tail_mass))};
}

privacy_loss_distribution privacy_loss_distribution::self_compose(std::int64_t count,
                                                                  double tail_mass,
                                                                  bool extended) const {
  pld_pmf r = accounting::self_compose(remove_, count, tail_mass, extended);
  if (symmetric()) return {std::move(r), nullptr};
  return {std::move(r),
          std::make_shared<pld_pmf>(accounting::self_compose(*add_, count, tail_mass, extended))};
}

double privacy_loss_distribution::epsilon(double delta) const {
  const double e = remove_.epsilon(delta);
  return add_ ? std::max(e, add_->epsilon(delta)) : e;
}

double privacy_loss_distribution::delta(double epsilon) const {
  const double d = remove_.delta(epsilon);
  return add_ ? std::max(d, add_->delta(epsilon)) : d;
}

}  // namespace dpx::accounting
