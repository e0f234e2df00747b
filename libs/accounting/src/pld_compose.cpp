// The composition of privacy-loss PMFs (docs/accounting.md): FFT convolution of two PMFs,
// and self-composition in one FFT pass (z -> z^count) or by repeated squaring.
#include "dpx/accounting/pld.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <variant>
#include <vector>

#include "dpx/accounting/gaussian.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/roots.hpp"
#include "normal.hpp"
#include "pld_internal.hpp"

namespace dpx::accounting {

namespace {
using core::detail::inf;

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

/// FFTW's double and long-double (extended precision) interfaces, for one plan cache.
struct fftw_double {
  using real = double;
  using complex = fftw_complex;
  using plan = fftw_plan;
  static real* alloc_real(std::size_t n) { return fftw_alloc_real(n); }
  static complex* alloc_complex(std::size_t n) { return fftw_alloc_complex(n); }
  static plan r2c(int n, real* r, complex* c) {
    return fftw_plan_dft_r2c_1d(n, r, c, FFTW_ESTIMATE);
  }
  static plan c2r(int n, complex* c, real* r) {
    return fftw_plan_dft_c2r_1d(n, c, r, FFTW_ESTIMATE);
  }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static void free(void* p) { fftw_free(p); }
};
struct fftw_long {
  using real = long double;
  using complex = fftwl_complex;
  using plan = fftwl_plan;
  static real* alloc_real(std::size_t n) { return fftwl_alloc_real(n); }
  static complex* alloc_complex(std::size_t n) { return fftwl_alloc_complex(n); }
  static plan r2c(int n, real* r, complex* c) {
    return fftwl_plan_dft_r2c_1d(n, r, c, FFTW_ESTIMATE);
  }
  static plan c2r(int n, complex* c, real* r) {
    return fftwl_plan_dft_c2r_1d(n, c, r, FFTW_ESTIMATE);
  }
  static void destroy(plan p) { fftwl_destroy_plan(p); }
  static void free(void* p) { fftwl_free(p); }
};

/// FFTW plans for one size, created once (FFTW_ESTIMATE) and executed on fresh, equally aligned
/// (fftw_malloc) arrays with the new-array execute interface.
template <class F>
struct fft_plans_of {
  typename F::plan fwd;
  typename F::plan inv;
};
using fft_plans = fft_plans_of<fftw_double>;

/// Process-lifetime plan cache per precision (so a refinement that revisits a size does not
/// plan again); destroys its plans at exit (so leak checkers see no leak).
template <class F>
struct plan_cache {
  std::map<std::size_t, fft_plans_of<F>> plans;
  plan_cache() = default;
  plan_cache(const plan_cache&) = delete;
  plan_cache& operator=(const plan_cache&) = delete;
  ~plan_cache() {
    for (auto& [n, p] : plans) {
      F::destroy(p.fwd);
      F::destroy(p.inv);
    }
  }
};

template <class F>
const fft_plans_of<F>& cached_plans(std::size_t n) {
  static plan_cache<F> storage;
  auto& cache = storage.plans;
  std::lock_guard<std::mutex> lock(fftw_planner_mutex());
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  auto* r = F::alloc_real(n);
  auto* c = F::alloc_complex(n / 2 + 1);
  const int ni = static_cast<int>(n);
  fft_plans_of<F> p{F::r2c(ni, r, c), F::c2r(ni, c, r)};
  F::free(r);
  F::free(c);
  return cache.emplace(n, p).first->second;
}
const fft_plans& plans_for(std::size_t n) { return cached_plans<fftw_double>(n); }
const fft_plans_of<fftw_long>& plans_for_l(std::size_t n) { return cached_plans<fftw_long>(n); }

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

}  // namespace

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

/// log sum_i p_i e^{lambda l_i} over masses p_i at losses l_i = (first + i stride) h, by Horner's
/// rule in the direction in which the powers of e^{-|lambda| stride h} shrink (no overflow, all
/// terms >= 0), plus a margin covering its rounding (and `extra` more, for masses that were
/// themselves rounded sums), so that it is an upper bound on the true log MGF. R is the working
/// precision: the margin is multiplied by the composition count in the Chernoff bound, so large
/// counts need long double (unit roundoff 2^-64) to keep the window narrow.
template <class R>
double log_mgf_upper(const std::vector<double>& p,
                     std::int64_t first,
                     std::int64_t stride,
                     double h_,
                     double lambda,
                     double extra = 0.0) {
  const std::size_t n = p.size();
  const R h = h_;
  const R w = std::exp(-std::abs(static_cast<R>(lambda)) * (static_cast<R>(stride) * h));
  // Horner's rule on four interleaved chains (independent, so the latency of one chain's
  // multiply-add overlaps the others'), combined at the end: sum_r w^(3-r) chain_r. Each term is
  // still rounded at most n + 2 times (the margin below).
  const R w2 = w * w, w4 = w2 * w2;
  R c[4] = {0, 0, 0, 0};
  // Position k of the sequence (0 = highest power) is element i = k of p for lambda > 0 and
  // i = n - 1 - k otherwise; the sequence is padded in front with zeros to a multiple of 4.
  const std::size_t pad = (4 - n % 4) % 4;
  auto at = [&](std::size_t k) -> R {  // k counts from the padded front
    if (k < pad) return 0;
    const std::size_t j = k - pad;
    return lambda > 0.0 ? p[j] : p[n - 1 - j];
  };
  const std::size_t total = n + pad;
  for (std::size_t k = 0; k < total; k += 4) {
    c[0] = c[0] * w4 + at(k);
    c[1] = c[1] * w4 + at(k + 1);
    c[2] = c[2] * w4 + at(k + 2);
    c[3] = c[3] * w4 + at(k + 3);
  }
  R s = ((c[0] * w + c[1]) * w + c[2]) * w + c[3];
  R anchor;            // loss of the term with factor 1
  if (lambda > 0.0) {  // sum p_i w^{n-1-i}
    anchor = static_cast<R>(first + (static_cast<std::int64_t>(n) - 1) * stride) * h;
  } else {
    anchor = static_cast<R>(first) * h;  // sum p_i w^i
  }
  if (!(s > 0)) return -inf;
  const R shift = static_cast<R>(lambda) * anchor;
  const R ls = std::log(s);
  // n + 2 roundings of relative size u in the nonnegative sum and in w^n (relative error of
  // exp(-|lambda| h) included), plus the roundings of the shift, the log and the final sum.
  const R u = std::numeric_limits<R>::epsilon();
  const R margin = 4 * static_cast<R>(n + 2) * u + 4 * u * (std::abs(shift) + std::abs(ls) + 1) +
                   static_cast<R>(extra);
  // Round the result up to double: the next double above the long-double value.
  const double r = static_cast<double>(shift + ls + margin);
  return std::nextafter(r, inf);
}

template <class R>
double log_mgf_upper(const pld_pmf& a, double lambda) {
  return log_mgf_upper<R>(a.probs, a.offset, 1, a.discretization, lambda);
}

/// A part's finite masses summed in blocks of `block` grid points, each block's mass placed at
/// its top (`up`, for lambda > 0) or bottom index: e^{lambda l} of every member is at most that
/// of the placed point, so the log MGF of the blocks bounds the part's from above at ~1/block of
/// the cost (looser by at most |lambda| block h). Used only to find the octave of lambda.
struct coarse_part {
  std::vector<double> mass;
  std::int64_t first;
  std::int64_t stride;
  double extra;  // rounding of the block sums (relative, at most 2 block u)
};
coarse_part coarsen(const pld_pmf& a, std::int64_t block, bool up) {
  coarse_part c;
  const std::size_t n = a.probs.size(), b = static_cast<std::size_t>(block);
  c.mass.assign((n + b - 1) / b, 0.0);
  for (std::size_t i = 0; i < n; ++i) c.mass[i / b] += a.probs[i];
  c.first = a.offset + (up ? block - 1 : 0);
  c.stride = block;
  c.extra = 2.0 * static_cast<double>(block) * std::numeric_limits<double>::epsilon();
  return c;
}

/// Chernoff bound on the sum S of count_i copies of each part's finite part: mass{S > s} <=
/// e^{-lambda s} prod_i M_i(lambda)^count_i for every lambda > 0 (mass{S < s} likewise for lambda <
/// 0), so the loss beyond which at most tau remains is (count log M(lambda) - log tau) / lambda for
/// ANY lambda and ANY upper bound on the M_i: the search over lambda only tightens the window,
/// it does not affect validity. Returns the best such loss for the given sign of lambda (+inf /
/// -inf when no lambda helps).
double chernoff_loss(const std::vector<pld_part>& parts, double tau, double sign) {
  const double ltau = std::log(tau);
  // Double precision when its rounding margin, times count, is negligible (< 1e-6 nats / lambda).
  bool wide = false;
  for (const auto& [a, count] : parts) {
    wide = wide ||
           static_cast<double>(count) * static_cast<double>(a->probs.size() + 2) * 0x1p-50 > 1e-6;
  }
  // Block-summed parts for the octave scan: the scan only brackets the minimiser (about 20
  // evaluations), so it runs on bounds ~block times cheaper; the golden-section refinement and
  // the returned value use the exact sums.
  constexpr std::int64_t block = 64;
  std::vector<coarse_part> coarse;
  for (const auto& [a, count] : parts) {
    if (a->probs.size() < 16 * static_cast<std::size_t>(block)) {
      coarse.clear();
      break;
    }
    coarse.push_back(coarsen(*a, block, sign > 0));
  }
  auto bound_with = [&](double log_lambda, bool use_coarse) {
    const double lambda = sign * std::exp(log_lambda);
    double sum = 0.0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const auto& [a, count] = parts[i];
      double lm;
      if (use_coarse) {
        const auto& c = coarse[i];
        lm = wide ? log_mgf_upper<long double>(
                        c.mass, c.first, c.stride, a->discretization, lambda, c.extra)
                  : log_mgf_upper<double>(
                        c.mass, c.first, c.stride, a->discretization, lambda, c.extra);
      } else {
        lm = wide ? log_mgf_upper<long double>(*a, lambda) : log_mgf_upper<double>(*a, lambda);
      }
      if (!std::isfinite(lm)) return sign * inf;
      sum += static_cast<double>(count) * lm;
    }
    // Round the sum up: its relative rounding is below 2^-50 per part.
    sum += std::abs(sum) * 0x1p-50 * static_cast<double>(parts.size());
    return (sum - ltau) / lambda;
  };
  auto bound = [&](double log_lambda) { return bound_with(log_lambda, false); };
  const bool scan_coarse = !coarse.empty();
  // The bound is quasi-convex in lambda; scan octaves, then golden-section in log lambda.
  auto better = [&](double x, double y) { return sign > 0 ? x < y : x > y; };
  // Quasi-convexity also ends the scan two octaves past a finite minimum.
  double best = sign * inf, best_ll = 0.0;
  int best_k = -15;
  for (int k = -14; k <= 16 && (!std::isfinite(best) || k <= best_k + 2); ++k) {
    const double ll = k * std::log(2.0);
    const double v = bound_with(ll, scan_coarse);
    if (better(v, best)) {
      best = v;
      best_ll = ll;
      best_k = k;
    }
  }
  if (!std::isfinite(best)) {
    if (!scan_coarse) return best;
    // The coarse sums can overflow where the exact ones do not: scan exactly.
    for (int k = -14; k <= 16 && (!std::isfinite(best) || k <= best_k + 2); ++k) {
      const double ll = k * std::log(2.0);
      const double v = bound(ll);
      if (better(v, best)) {
        best = v;
        best_ll = ll;
        best_k = k;
      }
    }
    if (!std::isfinite(best)) return best;
  } else if (scan_coarse) {
    best = bound(best_ll);  // the exact value at the chosen octave
  }
  // Golden section minimises sign * bound (the same steps for either sign).
  const double g = core::minimize_golden([&](double ll) { return sign * bound(ll); },
                                         best_ll - std::log(2.0),
                                         best_ll + std::log(2.0),
                                         14);
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

/// FFTW's double and long-double interfaces behind one name.
template <class R>
struct fftw_api;
template <>
struct fftw_api<double> {
  using cpx = fftw_complex;
  static double* real(std::size_t n) { return fftw_alloc_real(n); }
  static cpx* complex(std::size_t n) { return fftw_alloc_complex(n); }
  static void free(void* p) { fftw_free(p); }
  static void forward(std::size_t n, double* r, cpx* c) {
    fftw_execute_dft_r2c(plans_for(n).fwd, r, c);
  }
  static void inverse(std::size_t n, cpx* c, double* r) {
    fftw_execute_dft_c2r(plans_for(n).inv, c, r);
  }
};
template <>
struct fftw_api<long double> {
  using cpx = fftwl_complex;
  static long double* real(std::size_t n) { return fftwl_alloc_real(n); }
  static cpx* complex(std::size_t n) { return fftwl_alloc_complex(n); }
  static void free(void* p) { fftwl_free(p); }
  static void forward(std::size_t n, long double* r, cpx* c) {
    fftwl_execute_dft_r2c(plans_for_l(n).fwd, r, c);
  }
  static void inverse(std::size_t n, cpx* c, long double* r) {
    fftwl_execute_dft_c2r(plans_for_l(n).inv, c, r);
  }
};

/// Circular (length n) convolution of count_i copies of every part (part i's index j placed at
/// bin j mod n, relative to its own offset): per part one forward FFT and a pointwise count-th
/// power, the spectra multiplied, one inverse FFT (normalised). The power multiplies the
/// relative rounding error of the low-frequency coefficients by count, which puts a noise floor
/// of roughly count * 2^-52 * (mass scale) under every grid point; in extended precision (R =
/// long double, 2^-64) that floor is 2^12 times lower.
template <class R>
std::vector<double> circular_product(const std::vector<pld_part>& parts, std::size_t n) {
  using api = fftw_api<R>;
  const std::size_t m = n / 2 + 1;
  R* r = api::real(n);
  auto* c = api::complex(m);
  auto* acc = api::complex(m);
  // Bins of the running product that are still non-negligible. A bin whose product has
  // modulus below 1e-140 (the threshold of complex_power) is set to 0 and skipped by the
  // later parts: every factor has modulus <= 1 (+ rounding), so it would stay below 1e-140, and
  // it moves each grid point of the inverse transform by less than 2e-140 / n, far under the
  // FFT noise floor. With many distinct parts most bins die after the first few, so the
  // pointwise powers (the latency-bound part of the pass) run on a small set.
  std::vector<std::size_t> live(m);
  std::iota(live.begin(), live.end(), std::size_t{0});
  auto negligible = [](const R& re, const R& im) { return re * re + im * im < R(1e-280); };
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const auto& [a, count] = parts[p];
    const auto& probs = a->probs;
    if (probs.size() <= n) {  // the usual case: one copy and zeros, without a second pass
      std::copy(probs.begin(), probs.end(), r);
      std::fill(r + probs.size(), r + n, R(0));
    } else {
      std::fill(r, r + n, R(0));
      for (std::size_t j = 0; j < probs.size(); ++j) r[j % n] += probs[j];
    }
    api::forward(n, r, p == 0 ? acc : c);
    std::size_t kept = 0;
    for (const std::size_t k : live) {
      if (p == 0) {
        complex_power(acc[k][0], acc[k][1], count);
      } else {
        complex_power(c[k][0], c[k][1], count);
        const R re = acc[k][0] * c[k][0] - acc[k][1] * c[k][1];
        acc[k][1] = acc[k][0] * c[k][1] + acc[k][1] * c[k][0];
        acc[k][0] = re;
      }
      if (negligible(acc[k][0], acc[k][1])) {
        acc[k][0] = acc[k][1] = R(0);
      } else {
        live[kept++] = k;
      }
    }
    live.resize(kept);
  }
  api::inverse(n, acc, r);
  const R scale = R(1) / static_cast<R>(n);
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(r[i] * scale);
  api::free(r);
  api::free(c);
  api::free(acc);
  return x;
}

}  // namespace

pld_pmf self_compose(const pld_pmf& a,
                     std::int64_t count,
                     double tail_mass,
                     bool extended,
                     std::int64_t max_grid_points) {
  core::check_at_least("pld self_compose", "count", count, 1);
  core::check_at_least("pld self_compose", "max_grid_points", max_grid_points, std::int64_t{2});
  if (count == 1 || a.probs.size() <= 1) return self_compose_by_squaring(a, count, tail_mass);
  return compose_parts({{&a, count}}, tail_mass, extended, max_grid_points);
}

pld_pmf compose_parts(const std::vector<pld_part>& parts,
                      double tail_mass,
                      bool extended,
                      std::int64_t max_grid_points) {
  const char* fn = "pld compose_parts";
  if (parts.empty()) core::throw_invalid(fn, "parts", 0.0, "must not be empty");
  core::check_at_least(fn, "max_grid_points", max_grid_points, std::int64_t{2});
  const pld_pmf& first = *parts.front().first;
  for (const auto& [p, count] : parts) {
    core::check_at_least(fn, "count", count, 1);
    if (p->bound != first.bound) {
      core::throw_invalid(fn, "bound", 0.0, "all PLDs must be rounded the same way");
    }
    if (p->discretization != first.discretization) {
      core::throw_invalid(
          fn, "discretization", p->discretization, "must equal the other PLDs' discretization");
    }
  }
  // One pass, as dp_accounting does for one event, for all parts at once: per part one forward
  // FFT and z -> z^count pointwise, the spectra multiplied, one inverse FFT, on a circular
  // window [lo, lo + N) chosen by Chernoff bounds so that at most tau of the composed mass lies
  // above it and at most tau below it. Validity of the circular (aliased) result:
  //   * in-window indices receive their exact mass plus aliased copies of out-of-window mass
  //     (nonnegative extra mass only raises delta(eps): pessimistic);
  //   * mass below the window (<= tau) reappears at higher losses (pessimistic);
  //   * mass above the window (<= tau) reappears at LOWER losses, so tau is added to the mass
  //     at +infinity, which covers it.
  // Sharing one window avoids the intermediate windows, truncations and pairwise convolutions
  // of composing the parts one by one.
  const double tau = 0.5 * tail_mass;
  const double h = first.discretization;
  // Support of the sum (in long double: count * offset may exceed 2^63 before refusal).
  long double support_lo = 0, support_hi = 0;
  for (const auto& [p, count] : parts) {
    const auto t = static_cast<long double>(count);
    support_lo += t * static_cast<long double>(p->offset);
    support_hi +=
        t * static_cast<long double>(p->offset + static_cast<std::int64_t>(p->probs.size()) - 1);
  }
  long double lo = support_lo, hi = support_hi;
  const double up = chernoff_loss(parts, tau, 1.0);
  const double down = chernoff_loss(parts, tau, -1.0);
  if (std::isfinite(up) && up / h < support_hi) {
    hi = std::max(support_lo, std::ceil(static_cast<long double>(up) / h));
  }
  if (std::isfinite(down) && down / h > support_lo) {
    lo = std::min(hi, std::floor(static_cast<long double>(down) / h));
  }
  // Bound the work: a window wider than max_grid_points is refused (the accountant coarsens
  // the grid or refuses the count), never allocated (10^12 steps: 10^9 points).
  if (hi - lo + 1 > static_cast<long double>(max_grid_points)) {
    std::int64_t most = 0;
    for (const auto& part : parts) most = std::max(most, part.second);
    throw pld_grid_error(static_cast<double>((hi - lo) * h), most);
  }
  const std::size_t big = fft_size(static_cast<std::size_t>(hi - lo + 1));
  const auto big_n = static_cast<std::int64_t>(big);
  const std::vector<double> x =
      extended ? circular_product<long double>(parts, big) : circular_product<double>(parts, big);
  // Bin b of the circular result holds the sums with sum of 0-based indices J = b (mod N); the
  // true grid index is support_lo + J, so window slot s (index lo + s) is bin
  // (lo - support_lo + s) mod N.
  const auto lo_i = static_cast<std::int64_t>(lo);
  const auto shift = static_cast<std::int64_t>(
      std::fmod(std::fmod(lo - support_lo, static_cast<long double>(big_n)) + big_n,
                static_cast<long double>(big_n)));
  pld_pmf r;
  r.discretization = h;
  r.offset = lo_i;
  r.probs.resize(big);
  // slot s <- bin (shift + s) mod N, as two contiguous copies
  const auto cut = static_cast<std::ptrdiff_t>(big_n - shift);
  std::copy(x.begin() + shift, x.end(), r.probs.begin());
  std::copy(x.begin(), x.begin() + shift, r.probs.begin() + cut);
  const bool lost_above = lo + big_n - 1 < support_hi;
  r.bound = first.bound;
  if (first.bound == pld_bound::pessimistic) {
    double log_keep = 0.0;  // log prod (1 - inf_i)^count_i
    for (const auto& [p, count] : parts) {
      log_keep += static_cast<double>(count) * std::log1p(-p->infinity_mass);
    }
    r.infinity_mass = -std::expm1(log_keep);
    if (lost_above) r.infinity_mass = std::min(1.0, r.infinity_mass + tau);
  } else {
    // prod M_i^T_i - prod (M_i - inf_i)^T_i for total masses M_i <= 1. Mass folded down from
    // above the window only lowers the curve; mass folded up from below (<= tau) is recorded
    // as error.
    double log_all = 0.0, log_finite = 0.0, err = 0.0;
    bool empty = false;  // a part with no mass: the composition has none either
    for (const auto& [p, count] : parts) {
      const double t = static_cast<double>(count), mt = total_mass(*p);
      err += t * p->error_mass;
      if (!(mt > 0.0)) {
        empty = true;
        continue;
      }
      log_all += t * std::log(mt);
      log_finite += t * std::log1p(-p->infinity_mass / mt);
    }
    r.infinity_mass = empty ? 0.0 : std::exp(log_all) * -std::expm1(log_finite);
    r.error_mass = err + (lo > support_lo ? tau : 0.0);
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

}  // namespace dpx::accounting
