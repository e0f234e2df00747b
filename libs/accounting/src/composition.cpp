#include "dpx/accounting/composition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>
#include <vector>

#include "dpx/accounting/subsampling.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/roots.hpp"
#include "normal.hpp"

namespace dpx::accounting {

namespace {
using core::detail::inf;

/// Bisection to 1e-15 (absolute below 1, relative above).
constexpr core::bisect_tolerance tol15{1e-15, 1e-15};

void check_k(const char* fn, std::int64_t k) { core::check_at_least(fn, "k", k, 1); }
/// The optimal-composition sums take O(sqrt k) terms per evaluation (see kov_log_s).
void check_kov_k(const char* fn, std::int64_t k) {
  check_k(fn, k);
  if (k > kov_optimal_max_k) {
    core::throw_invalid(fn,
                        "k",
                        std::to_string(k),
                        "must be <= " + std::to_string(kov_optimal_max_k) +
                            " for the optimal composition (the closed-form bound has no limit)");
  }
}
void check_delta0(const char* fn, double d) {
  if (!(d >= 0.0 && d < 1.0)) core::throw_invalid(fn, "delta0", d, "must lie in [0, 1)");
}

/// eps (e^eps - 1)/(e^eps + 1) = eps tanh(eps/2).
double kov_first(double eps) { return eps * std::tanh(0.5 * eps); }

double kov_eps_from_sums(double sum_eps, double sum_first, double sum_sq, double delta_slack) {
  const double a = sum_first + std::sqrt(2.0 * sum_sq *
                                         std::log(std::exp(1.0) + std::sqrt(sum_sq) / delta_slack));
  const double b = sum_first + std::sqrt(2.0 * sum_sq * std::log(1.0 / delta_slack));
  return std::min({sum_eps, a, b});
}
}  // namespace

epsilon_delta basic_composition(double epsilon0, double delta0, std::int64_t k) {
  const char* fn = "basic_composition";
  core::check_positive(fn, "epsilon0", epsilon0);
  check_delta0(fn, delta0);
  check_k(fn, k);
  return {static_cast<double>(k) * epsilon0, std::min(1.0, static_cast<double>(k) * delta0)};
}

epsilon_delta basic_per_step(double epsilon, double delta, std::int64_t k) {
  const char* fn = "basic_per_step";
  core::check_positive(fn, "epsilon", epsilon);
  if (!(delta >= 0.0 && delta < 1.0)) core::throw_invalid(fn, "delta", delta, "must lie in [0, 1)");
  check_k(fn, k);
  return core::split_budget(composition_rule::basic, {epsilon, delta}, k);
}

epsilon_delta advanced_composition(double epsilon0,
                                   double delta0,
                                   std::int64_t k,
                                   double delta_slack) {
  const char* fn = "advanced_composition";
  core::check_positive(fn, "epsilon0", epsilon0);
  check_delta0(fn, delta0);
  check_k(fn, k);
  core::check_open_interval(fn, "delta_slack", delta_slack, 0.0, 1.0);
  const double kd = static_cast<double>(k);
  return {core::advanced_composition_epsilon(epsilon0, k, delta_slack),
          std::min(1.0, kd * delta0 + delta_slack)};
}

epsilon_delta kov_composition(std::span<const double> epsilons,
                              std::span<const double> deltas,
                              double delta_slack) {
  const char* fn = "kov_composition";
  core::check_nonempty_finite_span(fn, "epsilons", epsilons);
  core::check_size(fn, "deltas", deltas.size(), epsilons.size());
  core::check_half_open_interval(fn, "delta_slack", delta_slack, 0.0, 1.0);
  double sum_eps = 0, sum_first = 0, sum_sq = 0, log_keep = std::log1p(-delta_slack);
  for (std::size_t i = 0; i < epsilons.size(); ++i) {
    core::check_positive(fn, "epsilons[i]", epsilons[i]);
    check_delta0(fn, deltas[i]);
    sum_eps += epsilons[i];
    sum_first += kov_first(epsilons[i]);
    sum_sq += epsilons[i] * epsilons[i];
    log_keep += std::log1p(-deltas[i]);
  }
  return {kov_eps_from_sums(sum_eps, sum_first, sum_sq, delta_slack), -std::expm1(log_keep)};
}

epsilon_delta kov_composition(double epsilon0, double delta0, std::int64_t k, double delta_slack) {
  const char* fn = "kov_composition";
  core::check_positive(fn, "epsilon0", epsilon0);
  check_delta0(fn, delta0);
  check_k(fn, k);
  core::check_half_open_interval(fn, "delta_slack", delta_slack, 0.0, 1.0);
  const double kd = static_cast<double>(k);
  return {kov_eps_from_sums(
              kd * epsilon0, kd * kov_first(epsilon0), kd * epsilon0 * epsilon0, delta_slack),
          -std::expm1(kd * std::log1p(-delta0) + std::log1p(-delta_slack))};
}

double kov_per_step_epsilon(double epsilon, std::int64_t k, double delta_slack) {
  const char* fn = "kov_per_step_epsilon";
  core::check_positive(fn, "epsilon", epsilon);
  check_k(fn, k);
  core::check_half_open_interval(fn, "delta_slack", delta_slack, 0.0, 1.0);
  const double kd = static_cast<double>(k);
  auto g = [&](double e0) {
    return kov_eps_from_sums(kd * e0, kd * kov_first(e0), kd * e0 * e0, delta_slack);
  };
  const double lo = epsilon / kd;
  const double hi = epsilon / std::min(kd, std::sqrt(2.0 * kd)) * (1.0 + 1e-12);
  if (g(hi) <= epsilon) return hi;
  return core::bisect_largest([&](double e0) { return g(e0) <= epsilon; }, lo, hi, tol15);
}

namespace {
/// log S(eps) of the optimal composition theorem (see header), log space, in O(sqrt k) terms.
/// S = sum_l w_l with w_l = Binom(l; k, p) (1 - e^{x_l}), p = e^eps0 / (1 + e^eps0) and
/// x_l = eps + (k - 2l) eps0 (the terms with x_l < 0, i.e. l > (k + eps/eps0) / 2). log w_l is
/// concave in l (log C(k, l) is, and log(1 - e^x) is concave in x, x linear in l), so the terms
/// rise to one mode and fall after it: the mode is found by ternary search and the sum runs
/// outward from it on each side until a term is below e^-50 of the sum (about 10 binomial
/// standard deviations, O(sqrt k) terms). The terms left out on a side are bounded by the
/// geometric series of the last ratio (log-concavity: later ratios are no larger) and added,
/// so the truncation never lowers S (never lowers delta).
double kov_log_s(double eps0, std::int64_t k, double eps) {
  const double kd = static_cast<double>(k);
  const double lmin_real = 0.5 * (kd + eps / eps0);
  if (!(lmin_real < kd)) return -inf;  // no term with x_l < 0 (also catches eps = +inf)
  std::int64_t l0 = static_cast<std::int64_t>(std::floor(lmin_real)) + 1;
  if (l0 < 0) l0 = 0;
  const double lgk = std::lgamma(kd + 1.0);
  auto term = [&](std::int64_t l) {
    const double ld = static_cast<double>(l);
    const double x = eps + (kd - 2.0 * ld) * eps0;  // log of the ratio of the two exponentials
    if (!(x < 0.0)) return -inf;
    return lgk - std::lgamma(ld + 1.0) - std::lgamma(kd - ld + 1.0) + ld * eps0 +
           detail::log1mexp(x);
  };
  // Ternary search for the mode of the concave log w_l on [l0, k].
  std::int64_t a = l0, b = k;
  while (b - a > 2) {
    const std::int64_t m1 = a + (b - a) / 3, m2 = b - (b - a) / 3;
    if (term(m1) < term(m2)) {
      a = m1 + 1;
    } else {
      b = m2;
    }
  }
  std::int64_t mode = a;
  for (std::int64_t l = a + 1; l <= b; ++l) {
    if (term(l) > term(mode)) mode = l;
  }
  const double top = term(mode);
  if (top == -inf) return -inf;
  double acc = top;
  // Sums one side (step +1 or -1) from the mode, then adds the bound on the terms left out.
  auto side = [&](std::int64_t step) {
    double prev = top;
    for (std::int64_t l = mode + step; l >= l0 && l <= k; l += step) {
      const double t = term(l);
      if (t == -inf) return;
      acc = detail::log_add(acc, t);
      if (t < acc - 50.0) {
        const double log_r = t - prev;  // log of the last ratio, < 0 past the mode
        if (log_r < 0.0) acc = detail::log_add(acc, t + log_r - detail::log1mexp(log_r));
        return;
      }
      prev = t;
    }
  };
  side(+1);
  side(-1);
  // log(1 + e^eps0) = softplus(eps0)
  const double softplus = eps0 + std::log1p(std::exp(-eps0));
  return acc - kd * softplus;
}
double kov_delta_unchecked(double eps0, double delta0, std::int64_t k, double eps) {
  // S is a probability-weighted sum of terms in [0, 1], so S <= 1; near 1 (epsilon far below
  // the composition's privacy loss) the safe-side tail bound and rounding can exceed it by ulps
  // (found by fuzz_events: k = 5000, eps0 = 1/2.2, eps = 1 gave delta = 1 + 1.8e-12). Capping at
  // 1 keeps delta an upper bound and a probability.
  const double log_s = kov_log_s(eps0, k, eps);
  const double s = std::min(1.0, std::exp(log_s));
  if (delta0 == 0.0) return s;
  return -std::expm1(static_cast<double>(k) * std::log1p(-delta0) + std::log1p(-s));
}
}  // namespace

double kov_optimal_delta(double epsilon0, double delta0, std::int64_t k, double epsilon) {
  const char* fn = "kov_optimal_delta";
  core::check_positive(fn, "epsilon0", epsilon0);
  check_delta0(fn, delta0);
  check_kov_k(fn, k);
  core::check_nonnegative(fn, "epsilon", epsilon);
  return kov_delta_unchecked(epsilon0, delta0, k, epsilon);
}

double kov_optimal_epsilon(double epsilon0, double delta0, std::int64_t k, double delta) {
  const char* fn = "kov_optimal_epsilon";
  core::check_positive(fn, "epsilon0", epsilon0);
  check_delta0(fn, delta0);
  check_kov_k(fn, k);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  const double top = static_cast<double>(k) * epsilon0;
  if (kov_delta_unchecked(epsilon0, delta0, k, top) > delta) return inf;
  // Safe side of the double evaluation, as in kov_optimal_per_step_epsilon.
  const double target = delta * (1.0 - 1e-10);
  if (kov_delta_unchecked(epsilon0, delta0, k, 0.0) <= target) return 0.0;
  return core::bisect_smallest(
      [&](double e) { return kov_delta_unchecked(epsilon0, delta0, k, e) <= target; },
      0.0,
      top,
      tol15);
}

double kov_optimal_per_step_epsilon(double epsilon, double delta, std::int64_t k, double delta0) {
  const char* fn = "kov_optimal_per_step_epsilon";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  check_kov_k(fn, k);
  check_delta0(fn, delta0);
  const double kd = static_cast<double>(k);
  if (-std::expm1(kd * std::log1p(-delta0)) > delta) {
    core::throw_invalid(fn, "delta0", delta0, "too large: k-fold composition exceeds delta");
  }
  // kov_delta_unchecked is a log-sum-exp of lgamma terms in double: its relative error stays
  // far below 1e-10 for k <= 1e5, so comparing with delta (1 - 1e-10) keeps the answer on the
  // safe side of the exact optimal delta (tested against 50-digit references).
  const double target = delta * (1.0 - 1e-10);
  auto ok = [&](double e0) { return kov_delta_unchecked(e0, delta0, k, epsilon) <= target; };
  double lo = epsilon / kd;  // feasible: S(k eps0) = 0
  double hi = epsilon;
  while (ok(hi)) {
    lo = hi;
    hi *= 2.0;
    if (hi > 1e6) return lo;
  }
  return core::bisect_largest(ok, lo, hi, tol15);
}

// ---- accountant -----------------------------------------------------------------------------

approx_dp_accountant::approx_dp_accountant(composition_rule rule) : rule_(rule) {
  if (rule != composition_rule::basic && rule != composition_rule::advanced &&
      rule != composition_rule::kov)
    core::throw_invalid(
        "approx_dp_accountant", "rule", to_string(rule), "must be basic, advanced or kov");
}

epsilon_delta amplify_poisson(double epsilon, double delta, double q) {
  const char* fn = "amplify_poisson";
  core::check_nonnegative(fn, "epsilon", epsilon);
  if (!(delta >= 0.0 && delta <= 1.0))
    core::throw_invalid(fn, "delta", delta, "must lie in [0, 1]");
  core::check_half_open_interval(fn, "q", q, 0.0, 1.0);
  // log1p(q expm1(eps)): exact for small eps and q; +inf only if eps is.
  return {std::isfinite(epsilon) ? std::log1p(q * std::expm1(epsilon)) : epsilon, q * delta};
}

epsilon_delta amplify_without_replacement(double epsilon,
                                          double delta,
                                          std::int64_t batch,
                                          std::int64_t n) {
  const char* fn = "amplify_without_replacement";
  core::check_at_least(fn, "batch", batch, std::int64_t{1});
  if (n < batch) core::throw_invalid(fn, "n", static_cast<double>(n), "must be >= batch");
  return amplify_poisson(epsilon, delta, static_cast<double>(batch) / static_cast<double>(n));
}

composition_rule parse_composition_rule(const std::string& s) {
  using r = composition_rule;
  return core::parse_composition_rule(
      s, {r::basic, r::advanced, r::kov}, "parse_composition_rule", "rule");
}

namespace {
/// The (eps, delta)-DP description of an event, or false.
bool event_eps_delta(const core::privacy_event& e, double& eps, double& delta) {
  delta = 0.0;
  if (auto* p = std::get_if<core::pure_dp_event>(&e)) {
    eps = p->epsilon;
  } else if (auto* a = std::get_if<core::approx_dp_event>(&e)) {
    eps = a->epsilon;
    delta = a->delta;
  } else if (auto* l = std::get_if<core::laplace_event>(&e)) {
    eps = 1.0 / l->noise_multiplier;  // Dwork & Roth 2014, Thm 3.6
  } else if (auto* r = std::get_if<core::randomized_response_event>(&e)) {
    eps = r->epsilon;
  } else if (auto* x = std::get_if<core::exponential_mechanism_event>(&e)) {
    eps = x->epsilon;  // McSherry & Talwar 2007
  } else if (auto* d = std::get_if<core::discrete_laplace_event>(&e)) {
    eps = static_cast<double>(d->sensitivity) / d->scale;  // Ghosh, Roughgarden & Sundararajan
  } else if (auto* sl = std::get_if<core::subsampled_laplace_event>(&e)) {
    // Poisson, add/remove: Balle, Barthe & Gaboardi 2018, Thm 8
    if (!(sl->noise_multiplier > 0.0) || !(sl->sampling_rate > 0.0 && sl->sampling_rate <= 1.0)) {
      eps = 0.0;  // rejected by compose's positivity check
    } else {
      eps = amplify_poisson(1.0 / sl->noise_multiplier, 0.0, sl->sampling_rate).epsilon;
    }
  } else if (auto* w = std::get_if<core::sampled_without_replacement_event>(&e)) {
    // Laplace on fixed batches: pure (1/b)-DP under substitution on batches, amplified by
    // log(1 + g (e^eps - 1)) (replace-one: Balle et al. 2018, Thm 9; add/remove: the Poisson
    // structure of subsampling.hpp, Thm 8's bound). The Gaussian has no pure-DP description.
    if (w->noise != core::noise_family::laplace) return false;
    const double g = without_replacement_probability(*w);
    eps = amplify_poisson(1.0 / w->noise_multiplier, 0.0, g).epsilon;
  } else {
    return false;
  }
  return true;
}
}  // namespace

bool approx_dp_accountant::supports(const core::privacy_event& e) const {
  double a, b;
  return event_eps_delta(e, a, b);
}

void approx_dp_accountant::compose(const core::privacy_event& e, std::int64_t count) {
  double eps, delta;
  if (!event_eps_delta(e, eps, delta)) throw unsupported_event_error(name(), core::event_name(e));
  const char* fn = "approx_dp_accountant::compose";
  core::check_positive(fn, "epsilon", eps);
  check_delta0(fn, delta);
  ledger_.merge(e, count);
}

namespace {
struct sums {
  double eps = 0, first = 0, sq = 0, expm = 0, delta = 0, log_keep = 0;
};
}  // namespace

double approx_dp_accountant::epsilon(double delta) const {
  core::check_open_interval("approx_dp_accountant::epsilon", "delta", delta, 0.0, 1.0);
  if (ledger_.empty()) return 0.0;
  sums s;
  for (const auto& [e, n] : ledger_.runs()) {
    double eps = 0, d = 0;
    event_eps_delta(e, eps, d);
    const double nd = static_cast<double>(n);
    s.eps += nd * eps;
    s.first += nd * kov_first(eps);
    s.sq += nd * eps * eps;
    s.expm += nd * eps * std::expm1(eps);
    s.delta += nd * d;
    s.log_keep += nd * std::log1p(-d);
  }
  // NOLINTNEXTLINE(bugprone-narrowing-conversions): clang-tidy 14 false positive (double to double)
  const double basic = delta >= s.delta ? s.eps : inf;
  if (rule_ == composition_rule::basic) return basic;
  if (rule_ == composition_rule::advanced) {
    const double slack = delta - s.delta;
    if (!(slack > 0.0)) return basic;
    return std::min(basic, std::sqrt(2.0 * s.sq * std::log(1.0 / slack)) + s.expm);
  }
  // kov (the exact optimum for one kind of event, up to kov_optimal_max_k of them)
  if (ledger_.runs().size() == 1 && ledger_.runs()[0].count <= kov_optimal_max_k) {
    double eps = 0, d = 0;
    event_eps_delta(ledger_.runs()[0].event, eps, d);
    return kov_optimal_epsilon(eps, d, ledger_.runs()[0].count, delta);
  }
  // 1 - delta = (1 - slack) prod(1 - delta_i)  =>  slack = 1 - (1 - delta) / prod(1 - delta_i)
  const double slack = -std::expm1(std::log1p(-delta) - s.log_keep);
  if (!(slack > 0.0)) return basic;
  return std::min(basic, kov_eps_from_sums(s.eps, s.first, s.sq, std::min(slack, 1.0)));
}

double approx_dp_accountant::delta(double epsilon) const {
  core::check_nonnegative("approx_dp_accountant::delta", "epsilon", epsilon);
  if (ledger_.empty()) return 0.0;
  if (rule_ == composition_rule::kov && ledger_.runs().size() == 1 &&
      ledger_.runs()[0].count <= kov_optimal_max_k) {
    double eps = 0, d = 0;
    event_eps_delta(ledger_.runs()[0].event, eps, d);
    return kov_optimal_delta(eps, d, ledger_.runs()[0].count, epsilon);
  }
  // epsilon(delta) is non-increasing: smallest delta with epsilon(delta) <= epsilon, bisected in
  // log(delta) and returned from the safe side.
  auto ok = [&](double log_d) { return this->epsilon(std::exp(log_d)) <= epsilon; };
  const double hi0 = std::log(0.999999999);
  if (!ok(hi0)) return 1.0;
  double lo = -700.0;
  if (ok(lo)) return std::exp(lo);
  return std::exp(core::bisect_smallest(ok, lo, hi0, tol15));
}

}  // namespace dpx::accounting
