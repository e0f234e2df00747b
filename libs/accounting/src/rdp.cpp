#include "dpx/accounting/rdp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>
#include <vector>

#include "dpx/accounting/subsampling.hpp"
#include "dpx/core/detail/overloaded.hpp"
#include "dpx/core/error.hpp"
#include "normal.hpp"

namespace dpx::accounting {

namespace {
using core::detail::inf;

void check_alpha(const char* fn, double alpha) {
  core::check_finite(fn, "alpha", alpha);
  if (!(alpha > 1.0)) core::throw_invalid(fn, "alpha", alpha, "must be > 1");
}

/// log A_alpha for integer alpha >= 2 [MTZ19, eq. (3)]:
/// A = sum_{i=0}^{alpha} C(alpha, i) (1-q)^{alpha-i} q^i exp((i^2 - i) / (2 s^2)).
double log_a_int(double alpha, double q, double s) {
  const auto n = static_cast<std::int64_t>(alpha);
  // log k! for k <= n, kept per thread across calls: the default orders reach 4096 and every
  // event and order needs the same values (std::lgamma of the same integers: identical terms).
  thread_local std::vector<double> log_factorial;
  while (static_cast<std::int64_t>(log_factorial.size()) <= n) {
    log_factorial.push_back(std::lgamma(static_cast<double>(log_factorial.size()) + 1.0));
  }
  const double lq = std::log(q), l1q = std::log1p(-q);
  const double lga = log_factorial[static_cast<std::size_t>(n)];
  const double inv2s2 = 1.0 / (2.0 * s * s);
  double acc = -inf;
  for (std::int64_t i = 0; i <= n; ++i) {
    const double id = static_cast<double>(i);
    const double term = lga - log_factorial[static_cast<std::size_t>(i)] -
                        log_factorial[static_cast<std::size_t>(n - i)] + id * lq +
                        (alpha - id) * l1q + (id * id - id) * inv2s2;
    acc = detail::log_add(acc, term);
  }
  return acc;
}

/// log A_alpha for fractional alpha [MTZ19, Sec 3.3]: A = A0 + A1 split at
/// z0 = s^2 log(1/q - 1) + 1/2, each an infinite binomial series whose coefficients
/// C(alpha, i) change sign for i > alpha; the signs are kept (log-space add / subtract).
/// log(1/q - 1) is taken as log(1 - q) - log q: 1/q overflows for q < 1/DBL_MAX (subnormal q),
/// and z0 = inf would turn A0 into the full, divergent series.
double log_a_frac(double alpha, double q, double s) {
  double log_a0 = -inf, log_a1 = -inf;
  const double lq = std::log(q), l1q = std::log1p(-q);
  const double z0 = s * s * (l1q - lq) + 0.5;
  const double sqrt2s = std::sqrt(2.0) * s;
  const double inv2s2 = 1.0 / (2.0 * s * s);
  double log_abs_coef = 0.0;  // log |C(alpha, 0)| = 0
  int sign = 1;
  for (std::int64_t i = 0; i < 100000; ++i) {
    const double id = static_cast<double>(i);
    if (i > 0) {
      const double f = alpha - id + 1.0;  // C(a, i) = C(a, i-1) (a - i + 1) / i
      log_abs_coef += std::log(std::abs(f)) - std::log(id);
      if (f < 0) sign = -sign;
    }
    const double j = alpha - id;
    const double log_t0 = log_abs_coef + id * lq + j * l1q;
    const double log_t1 = log_abs_coef + j * lq + id * l1q;
    const double log_e0 = std::log(0.5) + detail::log_erfc((id - z0) / sqrt2s);
    const double log_e1 = std::log(0.5) + detail::log_erfc((z0 - j) / sqrt2s);
    const double log_s0 = log_t0 + (id * id - id) * inv2s2 + log_e0;
    const double log_s1 = log_t1 + (j * j - j) * inv2s2 + log_e1;
    if (sign > 0) {
      log_a0 = detail::log_add(log_a0, log_s0);
      log_a1 = detail::log_add(log_a1, log_s1);
    } else {
      log_a0 = detail::log_sub(log_a0, log_s0);
      log_a1 = detail::log_sub(log_a1, log_s1);
    }
    if (id > alpha && std::max(log_s0, log_s1) < -30.0) break;
  }
  return detail::log_add(log_a0, log_a1);
}

using core::detail::overloaded;
}  // namespace

std::vector<double> default_rdp_orders() {
  std::vector<double> o{1.01, 1.05};
  for (int i = 11; i <= 109; ++i) o.push_back(i / 10.0);
  for (int i = 11; i <= 64; ++i) o.push_back(i);
  for (double a : {72.,  80.,  96.,  112., 128., 160.,  192.,  224.,  256.,  320., 384.,
                   448., 512., 640., 768., 896., 1024., 1536., 2048., 3072., 4096.}) {
    o.push_back(a);
  }
  return o;
}

double rdp_gaussian(double alpha, double noise_multiplier) {
  check_alpha("rdp_gaussian", alpha);
  core::check_positive("rdp_gaussian", "noise_multiplier", noise_multiplier);
  return alpha / (2.0 * noise_multiplier * noise_multiplier);
}

double rdp_laplace(double alpha, double noise_multiplier) {
  check_alpha("rdp_laplace", alpha);
  core::check_positive("rdp_laplace", "noise_multiplier", noise_multiplier);
  const double b = noise_multiplier;
  const double a = std::log(alpha / (2.0 * alpha - 1.0)) + (alpha - 1.0) / b;
  const double c = std::log((alpha - 1.0) / (2.0 * alpha - 1.0)) - alpha / b;
  return std::min(detail::log_add(a, c) / (alpha - 1.0), 1.0 / b);
}

double rdp_subsampled_gaussian(double alpha, double sampling_rate, double noise_multiplier) {
  const char* fn = "rdp_subsampled_gaussian";
  check_alpha(fn, alpha);
  core::check_half_open_interval(fn, "sampling_rate", sampling_rate, 0.0, 1.0);
  core::check_positive(fn, "noise_multiplier", noise_multiplier);
  if (sampling_rate == 1.0) return alpha / (2.0 * noise_multiplier * noise_multiplier);
  const double log_a = alpha == std::floor(alpha)
                           ? log_a_int(alpha, sampling_rate, noise_multiplier)
                           : log_a_frac(alpha, sampling_rate, noise_multiplier);
  // Subsampling never increases Renyi divergence (joint quasi-convexity, van Erven & Harremoes
  // 2014, Thm 13), so the unsampled curve caps the series. It is also the answer where the series
  // is not computable: at sigma^2 below DBL_MIN, 1/(2 sigma^2) overflows and 0 * inf is NaN,
  // which std::max(0.0, NaN) would have turned into 0.
  const double unsampled = alpha / (2.0 * noise_multiplier * noise_multiplier);
  const double series = log_a / (alpha - 1.0);
  if (std::isnan(series)) return unsampled;
  return std::min(unsampled, std::max(0.0, series));
}

double rdp_pure_dp(double alpha, double epsilon) {
  check_alpha("rdp_pure_dp", alpha);
  core::check_positive("rdp_pure_dp", "epsilon", epsilon);
  return std::min(epsilon, 0.5 * alpha * epsilon * epsilon);
}

double rdp_discrete_pair(double alpha, std::span<const double> p, std::span<const double> q) {
  const char* fn = "rdp_discrete_pair";
  check_alpha(fn, alpha);
  core::check_nonempty_finite_span(fn, "p", p);
  core::check_size(fn, "q", q.size(), p.size());
  auto dir = [&](std::span<const double> a, std::span<const double> b) {
    double acc = -inf;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] <= 0.0) continue;
      if (b[i] <= 0.0) return inf;
      acc = detail::log_add(acc, alpha * std::log(a[i]) + (1.0 - alpha) * std::log(b[i]));
    }
    return std::max(0.0, acc / (alpha - 1.0));
  };
  return std::max(dir(p, q), dir(q, p));
}

double rdp_randomized_response(double alpha, double epsilon, std::int64_t categories) {
  core::check_positive("rdp_randomized_response", "epsilon", epsilon);
  core::check_at_least("rdp_randomized_response", "categories", categories, 2);
  // Only the two outputs that differ between neighbours matter; the others cancel.
  const double k = static_cast<double>(categories);
  const double z = std::exp(epsilon) + k - 1.0;
  const double hi = std::exp(epsilon) / z, lo = 1.0 / z, rest = 1.0 - hi - lo;
  std::vector<double> p{hi, lo}, q{lo, hi};
  if (rest > 0) {
    p.push_back(rest);
    q.push_back(rest);
  }
  return rdp_discrete_pair(alpha, p, q);
}

double event_rdp(const core::privacy_event& e, double alpha) {
  return std::visit(
      overloaded{
          [&](const core::pure_dp_event& x) { return rdp_pure_dp(alpha, x.epsilon); },
          [&](const core::approx_dp_event&) -> double {
            throw unsupported_event_error("rdp", "approx_dp");
          },
          [&](const core::laplace_event& x) { return rdp_laplace(alpha, x.noise_multiplier); },
          [&](const core::gaussian_event& x) { return rdp_gaussian(alpha, x.noise_multiplier); },
          [&](const core::subsampled_gaussian_event& x) {
            return rdp_subsampled_gaussian(alpha, x.sampling_rate, x.noise_multiplier);
          },
          [&](const core::discrete_laplace_event& x) {
            core::check_positive("rdp", "scale", x.scale);
            core::check_at_least("rdp", "sensitivity", x.sensitivity, 1);
            return rdp_pure_dp(alpha, static_cast<double>(x.sensitivity) / x.scale);
          },
          [&](const core::discrete_gaussian_event& x) {
            core::check_positive("rdp", "sigma", x.sigma);
            core::check_positive("rdp", "sensitivity", x.sensitivity);
            return alpha * x.sensitivity * x.sensitivity / (2.0 * x.sigma * x.sigma);
          },
          [&](const core::randomized_response_event& x) {
            return rdp_randomized_response(alpha, x.epsilon, x.categories);
          },
          [&](const core::zcdp_event& x) {
            core::check_positive("rdp", "rho", x.rho);
            return alpha * x.rho;
          },
          [&](const core::discrete_pair_event& x) { return rdp_discrete_pair(alpha, x.p, x.q); },
          [&](const core::exponential_mechanism_event& x) {
            // eps-DP and eps-bounded-range => (eps^2/8)-zCDP [Cesar & Rogers 2021, Lemma 3.2]
            core::check_positive("rdp", "epsilon", x.epsilon);
            return std::min(x.epsilon, alpha * x.epsilon * x.epsilon / 8.0);
          },
          [&](const core::subsampled_laplace_event& x) {
            return rdp_subsampled_laplace(alpha, x.sampling_rate, x.noise_multiplier);
          },
          [&](const core::sampled_without_replacement_event& x) {
            return rdp_sampled_without_replacement(alpha, x);
          },
          [&](const auto& other) -> double {
            throw unsupported_event_error("rdp", core::event_name(core::privacy_event{other}));
          }},
      e);
}

rdp_epsilon_result rdp_to_epsilon(std::span<const double> orders,
                                  std::span<const double> rdp,
                                  double delta,
                                  rdp_conversion rule) {
  const char* fn = "rdp_to_epsilon";
  core::check_size(fn, "rdp", rdp.size(), orders.size());
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  rdp_epsilon_result best{inf, 0.0};
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double a = orders[i], r = rdp[i];
    if (!(r >= 0.0)) core::throw_invalid(fn, "rdp", r, "must be >= 0");
    double eps;
    if (rule == rdp_conversion::classical) {
      eps = r - std::log(delta) / (a - 1.0);
    } else {
      if (delta * delta + std::expm1(-r) > 0.0) {
        // KL bound: delta <= sqrt(1 - e^{-KL}) and KL <= r  ->  eps = 0 suffices.
        eps = 0.0;
      } else if (a > 1.01) {
        eps = r + std::log1p(-1.0 / a) - (std::log(delta) + std::log(a)) / (a - 1.0);
      } else {
        eps = inf;  // the bound is numerically unstable as alpha -> 1 and never useful there
      }
    }
    eps = std::max(0.0, eps);
    if (eps < best.epsilon) best = {eps, a};
  }
  return best;
}

rdp_delta_result rdp_to_delta(std::span<const double> orders,
                              std::span<const double> rdp,
                              double epsilon,
                              rdp_conversion rule) {
  const char* fn = "rdp_to_delta";
  core::check_size(fn, "rdp", rdp.size(), orders.size());
  core::check_nonnegative(fn, "epsilon", epsilon);
  double best_log = 0.0, best_order = 0.0;
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double a = orders[i], r = rdp[i];
    double log_d;
    if (rule == rdp_conversion::classical) {
      log_d = (a - 1.0) * (r - epsilon);
    } else {
      log_d = r == 0.0 ? -inf : 0.5 * detail::log1mexp(-r);
      if (a > 1.01) {
        log_d = std::min(log_d, (a - 1.0) * (r - epsilon + std::log1p(-1.0 / a)) - std::log(a));
      }
    }
    if (log_d < best_log) {
      best_log = log_d;
      best_order = a;
    }
  }
  return {std::exp(best_log), best_order};
}

void rdp_options::validate() const {
  const char* fn = "rdp_options::validate";
  core::check_nonempty_finite_span(fn, "orders", orders);
  for (double a : orders) check_alpha(fn, a);
}

rdp_accountant::rdp_accountant(rdp_options options) : options_(std::move(options)) {
  options_.validate();
}

bool rdp_accountant::supports(const core::privacy_event& e) const {
  return std::visit(overloaded{[](const core::approx_dp_event&) { return false; },
                               [](const core::pure_dp_event&) { return true; },
                               [](const core::laplace_event&) { return true; },
                               [](const core::gaussian_event&) { return true; },
                               [](const core::subsampled_gaussian_event&) { return true; },
                               [](const core::discrete_laplace_event&) { return true; },
                               [](const core::discrete_gaussian_event&) { return true; },
                               [](const core::randomized_response_event&) { return true; },
                               [](const core::zcdp_event&) { return true; },
                               [](const core::discrete_pair_event&) { return true; },
                               [](const core::exponential_mechanism_event&) { return true; },
                               [](const core::subsampled_laplace_event&) { return true; },
                               [](const core::sampled_without_replacement_event&) { return true; },
                               [](const auto&) { return false; }},
                    e);
}

void rdp_accountant::compose(const core::privacy_event& e, std::int64_t count) {
  if (!supports(e)) throw unsupported_event_error("rdp", core::event_name(e));
  // Validate now (cheap: one order) so bad parameters fail at compose time.
  (void)event_rdp(e, 2.0);
  ledger_.merge(e, count);
}

std::vector<double> rdp_accountant::rdp() const {
  const auto& entries = ledger_.runs();
  while (per_event_.size() < entries.size()) {
    const auto& e = entries[per_event_.size()].event;
    std::vector<double> r(options_.orders.size());
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = event_rdp(e, options_.orders[i]);
    per_event_.push_back(std::move(r));
  }
  std::vector<double> total(options_.orders.size(), 0.0);
  for (std::size_t j = 0; j < entries.size(); ++j) {
    const double n = static_cast<double>(entries[j].count);
    for (std::size_t i = 0; i < total.size(); ++i) total[i] += n * per_event_[j][i];
  }
  return total;
}

rdp_epsilon_result rdp_accountant::epsilon_and_order(double delta) const {
  const auto r = rdp();
  return rdp_to_epsilon(options_.orders, r, delta, options_.conversion);
}

double rdp_accountant::epsilon(double delta) const { return epsilon_and_order(delta).epsilon; }

double rdp_accountant::delta(double epsilon) const {
  const auto r = rdp();
  return rdp_to_delta(options_.orders, r, epsilon, options_.conversion).delta;
}

}  // namespace dpx::accounting
