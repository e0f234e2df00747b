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
#include "normal.hpp"

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

/// Clamps FFT round-off, truncates both tails pessimistically and trims zeros.
void truncate_tails(pld_pmf& r, double tail_mass) {
  auto& p = r.probs;
  for (double& x : p) x = x > 0.0 ? x : 0.0;
  const double half = 0.5 * tail_mass;
  std::size_t lo = 0;
  double cum = 0.0;
  while (lo + 1 < p.size() && cum + p[lo] <= half) cum += p[lo++];
  // Lower tail moved UP to the first kept grid point (larger loss: pessimistic).
  p[lo] += cum;
  std::size_t hi = p.size() - 1;
  cum = 0.0;
  while (hi > lo && cum + p[hi] <= half) cum += p[hi--];
  r.infinity_mass = std::min(1.0, r.infinity_mass + cum);  // upper tail to +inf
  p.erase(p.begin() + static_cast<std::ptrdiff_t>(hi) + 1, p.end());
  p.erase(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(lo));
  r.offset += static_cast<std::int64_t>(lo);
}

pld_pmf convolve(const pld_pmf& a, const pld_pmf& b, double tail_mass, bool square) {
  pld_pmf r;
  r.discretization = a.discretization;
  r.offset = a.offset + b.offset;
  r.infinity_mass = -std::expm1(std::log1p(-a.infinity_mass) + std::log1p(-b.infinity_mass));
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

/// PMF on the grid {i h : floor(lo/h) <= i <= ceil(hi/h)} whose delta curve interpolates the
/// exact curve `hs` at the grid points linearly in e^eps [Doroshenko et al. 2022, Alg. 1]. The
/// mass above the top point is delta(top) and goes to +inf. Requires hs(eps) = 1 - e^eps below
/// the smallest finite loss up to the lower truncation (the chord to (0, 1) covers the rest).
template <class H>
pld_pmf connect_the_dots(H hs, double eps_lo, double eps_hi, double h) {
  std::int64_t i_lo = static_cast<std::int64_t>(std::floor(eps_lo / h));
  std::int64_t i_hi = static_cast<std::int64_t>(std::ceil(eps_hi / h));
  if (i_hi <= i_lo) i_hi = i_lo + 1;
  const std::size_t n = static_cast<std::size_t>(i_hi - i_lo + 1);
  std::vector<double> d(n);
  for (std::size_t k = 0; k < n; ++k) {
    d[k] = hs(static_cast<double>(i_lo + static_cast<std::int64_t>(k)) * h);
  }
  // The exact curve is non-increasing; enforce it against round-off (raising values is safe).
  for (std::size_t k = n - 1; k-- > 0;) d[k] = std::max(d[k], d[k + 1]);
  pld_pmf r;
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
  // trim zeros at both ends
  std::size_t a = 0, b = n;
  while (a + 1 < b && r.probs[a] == 0.0) ++a;
  while (b > a + 1 && r.probs[b - 1] == 0.0) --b;
  r.probs.erase(r.probs.begin() + static_cast<std::ptrdiff_t>(b), r.probs.end());
  r.probs.erase(r.probs.begin(), r.probs.begin() + static_cast<std::ptrdiff_t>(a));
  r.offset += static_cast<std::int64_t>(a);
  return r;
}

/// Upper standard-normal quantile z with Phi(-z) = eta.
double upper_z(double eta) { return std::sqrt(2.0) * boost::math::erfc_inv(2.0 * eta); }

pld_pmf gaussian_pmf(double sigma, const pld_options& o) {
  const double mu = 1.0 / sigma;
  const double z = upper_z(o.tail_mass);
  auto hs = [mu](double e) { return std::exp(detail::log_gaussian_hockey_stick(e, mu)); };
  return connect_the_dots(hs, mu * mu / 2 - z * mu, mu * mu / 2 + z * mu, o.discretization);
}

pld_pmf laplace_pmf(double b, const pld_options& o) {
  const double e0 = 1.0 / b;
  // delta(eps) = 1 - exp((eps - 1/b)/2) on [-1/b, 1/b] (derivation in docs/accounting.md).
  auto hs = [e0](double e) {
    if (e >= e0) return 0.0;
    if (e <= -e0) return -std::expm1(e);
    return -std::expm1(0.5 * (e - e0));
  };
  return connect_the_dots(hs, -e0, e0, o.discretization);
}

/// Subsampled Gaussian, remove direction: P = (1-q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2).
/// delta(eps) = q delta_G(eps'), eps' = log((e^eps - 1 + q)/q), for eps > log(1-q); 1 - e^eps
/// below (all loss mass lies above log(1-q)).
pld_pmf subsampled_remove_pmf(double q, double s, const pld_options& o) {
  const double mu = 1.0 / s, lq = std::log(q), l1q = std::log1p(-q);
  auto hs = [=](double e) {
    if (e <= l1q) return -std::expm1(e);
    const double ep = detail::log_sub(e, l1q) - lq;
    return q * std::exp(detail::log_gaussian_hockey_stick(ep, mu));
  };
  const double z = upper_z(o.tail_mass);
  const double x = 1.0 + z * s;
  const double top = detail::log_add(l1q, lq + (2.0 * x - 1.0) / (2.0 * s * s));
  return connect_the_dots(hs, l1q, top, o.discretization);
}

/// Subsampled Gaussian, add direction: P = N(0, s^2), Q = (1-q) N(0, s^2) + q N(1, s^2).
/// delta(eps) = (1 - e^eps (1-q)) delta_G(eps''), eps'' = log q + eps - log(1 - e^eps (1-q)),
/// for eps < -log(1-q) (the largest loss); 0 above.
pld_pmf subsampled_add_pmf(double q, double s, const pld_options& o) {
  const double mu = 1.0 / s, lq = std::log(q), l1q = std::log1p(-q);
  auto hs = [=](double e) {
    if (e >= -l1q) return 0.0;
    const double lf = detail::log1mexp(e + l1q);  // log(1 - e^eps (1 - q))
    const double epp = lq + e - lf;
    return std::exp(lf + detail::log_gaussian_hockey_stick(epp, mu));
  };
  const double z = upper_z(o.tail_mass);
  const double x = z * s;
  const double bottom = -detail::log_add(l1q, lq + (2.0 * x - 1.0) / (2.0 * s * s));
  return connect_the_dots(hs, bottom, -l1q, o.discretization);
}

/// Discrete pair (P, Q): connect-the-dots on the exact curve for modest sizes, otherwise each
/// atom's loss rounded UP to the grid (pessimistic).
pld_pmf discrete_pmf(const std::vector<double>& p, const std::vector<double>& q, double h) {
  std::vector<double> loss, mass;
  double inf_mass = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] <= 0.0) continue;
    if (q[i] <= 0.0) {
      inf_mass += p[i];
      continue;
    }
    loss.push_back(std::log(p[i]) - std::log(q[i]));
    mass.push_back(p[i]);
  }
  if (loss.empty()) {
    pld_pmf r;
    r.discretization = h;
    r.probs = {0.0};
    r.infinity_mass = 1.0;
    return r;
  }
  const double lo = *std::min_element(loss.begin(), loss.end());
  const double hi = *std::max_element(loss.begin(), loss.end());
  const double grid = (hi - lo) / h + 2.0;
  if (grid * static_cast<double>(loss.size()) <= 2e7) {
    auto hs = [&](double e) {
      double d = inf_mass;
      for (std::size_t i = 0; i < loss.size(); ++i) {
        if (loss[i] > e) d += mass[i] * -std::expm1(e - loss[i]);
      }
      return d;
    };
    auto r = connect_the_dots(hs, lo, hi, h);
    // Below the smallest loss the exact curve is 1 - e^eps * sum(q over p > 0 atoms) which may
    // exceed 1 - e^eps: keep that mass at the bottom atom (already in probs[0]).
    return r;
  }
  pld_pmf r;
  r.discretization = h;
  const auto i_lo = static_cast<std::int64_t>(std::ceil(lo / h));
  const auto i_hi = static_cast<std::int64_t>(std::ceil(hi / h));
  r.offset = i_lo;
  r.probs.assign(static_cast<std::size_t>(i_hi - i_lo + 1), 0.0);
  for (std::size_t i = 0; i < loss.size(); ++i) {
    r.probs[static_cast<std::size_t>(static_cast<std::int64_t>(std::ceil(loss[i] / h)) - i_lo)] +=
        mass[i];
  }
  r.infinity_mass = inf_mass;
  return r;
}

void check_pair(const char* fn, const std::vector<double>& p, const std::vector<double>& q) {
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

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;
}  // namespace

// ---- pld_pmf queries ------------------------------------------------------------------------

double pld_pmf::delta(double epsilon) const {
  core::check_finite("pld_pmf::delta", "epsilon", epsilon);
  double d = infinity_mass;
  for (std::size_t i = probs.size(); i-- > 0;) {
    const double l = static_cast<double>(offset + static_cast<std::int64_t>(i)) * discretization;
    if (l <= epsilon) break;
    d += probs[i] * -std::expm1(epsilon - l);
  }
  return std::min(1.0, d);
}

double pld_pmf::epsilon(double delta) const {
  core::check_open_interval("pld_pmf::epsilon", "delta", delta, 0.0, 1.0);
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
      const double e = lj + std::log((infinity_mass + s - delta) / w);
      return std::max(0.0, std::min(e, lj));
    }
    w *= eh;
  }
  return 0.0;
}

pld_pmf compose(const pld_pmf& a, const pld_pmf& b, double tail_mass) {
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
  double lo = best_ll - std::log(2.0), hi = best_ll + std::log(2.0);
  const double gr = 0.5 * (std::sqrt(5.0) - 1.0);
  double c = hi - gr * (hi - lo), d = lo + gr * (hi - lo);
  double fc = bound(c), fd = bound(d);
  for (int it = 0; it < 20; ++it) {
    if (better(fc, fd)) {
      hi = d;
      d = c;
      fd = fc;
      c = hi - gr * (hi - lo);
      fc = bound(c);
    } else {
      lo = c;
      c = d;
      fc = fd;
      d = lo + gr * (hi - lo);
      fd = bound(d);
    }
  }
  for (double v : {fc, fd}) {
    if (better(v, best)) best = v;
  }
  return best;
}

/// z^count for a complex z (binary powering; products of moduli <= 1 cannot overflow, and a
/// base that has become negligible makes the whole power negligible).
void complex_power(double& re, double& im, std::int64_t count) {
  double rr = 1.0, ri = 0.0, br = re, bi = im;
  while (true) {
    if (count & 1) {
      const double t = rr * br - ri * bi;
      ri = rr * bi + ri * br;
      rr = t;
    }
    count >>= 1;
    if (count == 0) break;
    const double t = br * br - bi * bi;
    bi = 2.0 * br * bi;
    br = t;
    if (br * br + bi * bi < 1e-280) {  // |base|^(>= 1 more factor) < 1e-140: negligible
      rr = ri = 0.0;
      break;
    }
  }
  re = rr;
  im = ri;
}

}  // namespace

pld_pmf self_compose(const pld_pmf& a, std::int64_t count, double tail_mass) {
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
  fft_buffers f(fft_size(static_cast<std::size_t>(hi - lo + 1)), false);
  const auto big_n = static_cast<std::int64_t>(f.n);
  std::fill(f.real, f.real + f.n, 0.0);
  for (std::int64_t j = 0; j < n; ++j) f.real[j % big_n] += a.probs[static_cast<std::size_t>(j)];
  f.forward(f.spec);
  const std::size_t m = f.n / 2 + 1;
  for (std::size_t k = 0; k < m; ++k) complex_power(f.spec[k][0], f.spec[k][1], count);
  f.inverse();
  // Bin b of the circular result holds the sums with sum of 0-based indices J = b (mod N); the
  // true grid index is count * offset + J, so window slot s (index lo + s) is bin
  // (lo - count * offset + s) mod N.
  const std::int64_t shift = ((lo - support_lo) % big_n + big_n) % big_n;
  pld_pmf r;
  r.discretization = h;
  r.offset = lo;
  r.probs.resize(f.n);
  const double scale = 1.0 / static_cast<double>(f.n);
  for (std::int64_t s = 0; s < big_n; ++s) {
    r.probs[static_cast<std::size_t>(s)] = f.real[(shift + s) % big_n] * scale;
  }
  const bool lost_above = lo + big_n - 1 < support_hi;
  r.infinity_mass = -std::expm1(static_cast<double>(count) * std::log1p(-a.infinity_mass));
  if (lost_above) r.infinity_mass = std::min(1.0, r.infinity_mass + tau);
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
  core::check_positive(fn, "discretization", discretization);
  if (discretization > 1.0)
    core::throw_invalid(fn, "discretization", discretization, "must be <= 1");
  core::check_half_open_interval(fn, "tail_mass", tail_mass, 0.0, 1e-3);
}

privacy_loss_distribution::privacy_loss_distribution(pld_pmf remove,
                                                     std::shared_ptr<const pld_pmf> add)
    : remove_(std::move(remove)), add_(std::move(add)) {}

privacy_loss_distribution privacy_loss_distribution::from_event(const core::privacy_event& e,
                                                                const pld_options& o) {
  o.validate();
  const char* fn = "privacy_loss_distribution::from_event";
  auto sym = [](pld_pmf p) { return privacy_loss_distribution(std::move(p), nullptr); };
  auto pair = [&](const std::vector<double>& p, const std::vector<double>& q) {
    return privacy_loss_distribution(
        discrete_pmf(p, q, o.discretization),
        std::make_shared<pld_pmf>(discrete_pmf(q, p, o.discretization)));
  };
  auto pure = [&](double eps) {
    const double hi = 1.0 / (1.0 + std::exp(-eps)), lo = 1.0 / (1.0 + std::exp(eps));
    return sym(discrete_pmf({hi, lo}, {lo, hi}, o.discretization));
  };
  return std::visit(
      overloaded{
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
            return sym(discrete_pmf({x.delta, a, b, 0.0}, {0.0, b, a, x.delta}, o.discretization));
          },
          [&](const core::laplace_event& x) {
            core::check_positive(fn, "noise_multiplier", x.noise_multiplier);
            return sym(laplace_pmf(x.noise_multiplier, o));
          },
          [&](const core::gaussian_event& x) {
            core::check_positive(fn, "noise_multiplier", x.noise_multiplier);
            return sym(gaussian_pmf(x.noise_multiplier, o));
          },
          [&](const core::subsampled_gaussian_event& x) {
            core::check_half_open_interval(fn, "sampling_rate", x.sampling_rate, 0.0, 1.0);
            core::check_positive(fn, "noise_multiplier", x.noise_multiplier);
            if (x.sampling_rate == 1.0) return sym(gaussian_pmf(x.noise_multiplier, o));
            return privacy_loss_distribution(
                subsampled_remove_pmf(x.sampling_rate, x.noise_multiplier, o),
                std::make_shared<pld_pmf>(
                    subsampled_add_pmf(x.sampling_rate, x.noise_multiplier, o)));
          },
          [&](const core::randomized_response_event& x) {
            core::check_positive(fn, "epsilon", x.epsilon);
            core::check_at_least(fn, "categories", x.categories, 2);
            const double k = static_cast<double>(x.categories);
            const double z = std::exp(x.epsilon) + k - 1.0;
            const double hi = std::exp(x.epsilon) / z, lo = 1.0 / z;
            return sym(
                discrete_pmf({hi, lo, 1.0 - hi - lo}, {lo, hi, 1.0 - hi - lo}, o.discretization));
          },
          [&](const core::discrete_pair_event& x) {
            check_pair(fn, x.p, x.q);
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
                                                                  double tail_mass) const {
  pld_pmf r = accounting::self_compose(remove_, count, tail_mass);
  if (symmetric()) return {std::move(r), nullptr};
  return {std::move(r),
          std::make_shared<pld_pmf>(accounting::self_compose(*add_, count, tail_mass))};
}

double privacy_loss_distribution::epsilon(double delta) const {
  const double e = remove_.epsilon(delta);
  return add_ ? std::max(e, add_->epsilon(delta)) : e;
}

double privacy_loss_distribution::delta(double epsilon) const {
  const double d = remove_.delta(epsilon);
  return add_ ? std::max(d, add_->delta(epsilon)) : d;
}

// ---- accountant -------------------------------------------------------------------------------

pld_accountant::pld_accountant(pld_options options) : options_(options) { options_.validate(); }

bool pld_accountant::supports(const core::privacy_event& e) const {
  return std::visit(overloaded{[](const core::pure_dp_event&) { return true; },
                               [](const core::approx_dp_event&) { return true; },
                               [](const core::laplace_event&) { return true; },
                               [](const core::gaussian_event&) { return true; },
                               [](const core::subsampled_gaussian_event&) { return true; },
                               [](const core::randomized_response_event&) { return true; },
                               [](const core::discrete_pair_event&) { return true; },
                               [](const core::exponential_mechanism_event&) { return true; },
                               [](const auto&) { return false; }},
                    e);
}

void pld_accountant::compose(const core::privacy_event& e, std::int64_t count) {
  if (!supports(e)) throw unsupported_event_error("pld", core::event_name(e));
  core::check_at_least("pld_accountant::compose", "count", count, 1);
  // Validate parameters now (cheap checks only; the PLD itself is built lazily).
  std::visit(overloaded{[](const core::gaussian_event& x) {
                          core::check_positive("pld", "noise_multiplier", x.noise_multiplier);
                        },
                        [](const core::laplace_event& x) {
                          core::check_positive("pld", "noise_multiplier", x.noise_multiplier);
                        },
                        [](const core::subsampled_gaussian_event& x) {
                          core::check_half_open_interval(
                              "pld", "sampling_rate", x.sampling_rate, 0.0, 1.0);
                          core::check_positive("pld", "noise_multiplier", x.noise_multiplier);
                        },
                        [](const core::discrete_pair_event& x) { check_pair("pld", x.p, x.q); },
                        [](const auto&) {}},
             e);
  ledger_.add(e, count);
  built_ = false;
}

void pld_accountant::build() const {
  if (built_) return;
  composed_.reset();
  gaussian_multiplier_ = 0.0;
  double inv_var = 0.0;  // sum count / sigma^2 over Gaussian events (fast path)
  for (const auto& [e, n] : ledger_.entries()) {
    if (options_.gaussian_fast_path) {
      if (auto* g = std::get_if<core::gaussian_event>(&e)) {
        inv_var += static_cast<double>(n) / (g->noise_multiplier * g->noise_multiplier);
        continue;
      }
    }
    auto one = privacy_loss_distribution::from_event(e, options_);
    auto many = n == 1 ? one : one.self_compose(n, options_.tail_mass);
    composed_ = composed_ ? std::make_shared<privacy_loss_distribution>(
                                composed_->compose(many, options_.tail_mass))
                          : std::make_shared<privacy_loss_distribution>(std::move(many));
  }
  if (inv_var > 0.0) {
    const double s = 1.0 / std::sqrt(inv_var);
    if (composed_) {
      // Exact combination of all Gaussians, discretised once and composed with the rest.
      auto g = privacy_loss_distribution::from_event(core::gaussian_event{s}, options_);
      composed_ =
          std::make_shared<privacy_loss_distribution>(composed_->compose(g, options_.tail_mass));
    } else {
      gaussian_multiplier_ = s;
    }
  }
  built_ = true;
}

double pld_accountant::epsilon(double delta) const {
  core::check_open_interval("pld_accountant::epsilon", "delta", delta, 0.0, 1.0);
  build();
  if (composed_) return composed_->epsilon(delta);
  if (gaussian_multiplier_ > 0.0) return gaussian_epsilon(delta, gaussian_multiplier_);
  return 0.0;
}

double pld_accountant::delta(double epsilon) const {
  core::check_nonnegative("pld_accountant::delta", "epsilon", epsilon);
  build();
  if (composed_) return composed_->delta(epsilon);
  if (gaussian_multiplier_ > 0.0) return gaussian_delta(epsilon, gaussian_multiplier_);
  return 0.0;
}

}  // namespace dpx::accounting
