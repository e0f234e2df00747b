// The PLD accountant: ledger, automatic grid, certified bracket (docs/accounting.md, "Privacy
// loss distributions" and "The certified bracket").
#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

#include "dpx/accounting/composition.hpp"
#include "dpx/accounting/gaussian.hpp"
#include "dpx/accounting/pld.hpp"
#include "dpx/accounting/rdp.hpp"
#include "dpx/accounting/subsampling.hpp"
#include "dpx/core/detail/log_normal.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/privacy_curves.hpp"
#include "pld_internal.hpp"

namespace dpx::accounting {

namespace {
using core::detail::inf;
using detail::overloaded;

/// Rough variance of one event's privacy loss (only steers the first grid; the bracket decides).
double loss_variance(const core::privacy_event& e) {
  return std::visit(
      overloaded{[](const core::gaussian_event& x) {
                   return 1.0 / (x.noise_multiplier * x.noise_multiplier);
                 },
                 [](const core::laplace_event& x) {
                   return 1.0 / (x.noise_multiplier * x.noise_multiplier);
                 },
                 [](const core::subsampled_gaussian_event& x) {
                   // Spread of the bulk of the loss, ~ q / sigma (its variance q^2 (e^{1/sigma^2} -
                   // 1) is dominated, for small sigma, by a heavy tail that needs no fine grid).
                   const double r = x.sampling_rate / x.noise_multiplier;
                   return r * r;
                 },
                 [](const core::subsampled_laplace_event& x) {
                   const double r = x.sampling_rate / x.noise_multiplier;
                   return r * r;
                 },
                 [](const core::sampled_without_replacement_event& x) {
                   const double r = static_cast<double>(x.batch_size) /
                                    static_cast<double>(x.dataset_size) / x.noise_multiplier;
                   return r * r;
                 },
                 [](const core::pure_dp_event& x) { return x.epsilon * x.epsilon; },
                 [](const core::approx_dp_event& x) { return x.epsilon * x.epsilon; },
                 [](const core::randomized_response_event& x) { return x.epsilon * x.epsilon; },
                 [](const core::exponential_mechanism_event& x) { return x.epsilon * x.epsilon; },
                 [](const core::discrete_pair_event& x) {
                   double v = 0.0;
                   for (std::size_t i = 0; i < x.p.size(); ++i) {
                     if (x.p[i] > 0.0 && x.q[i] > 0.0) {
                       const double l = std::log(x.p[i] / x.q[i]);
                       v += x.p[i] * l * l;
                     }
                   }
                   return v;
                 },
                 [](const auto&) { return 1.0; }},
      e);
}

/// The loss value at which the event's PLD has an atom that a grid should hit (0: none): the
/// Laplace pair's atoms at +-1/b, the pure / approximate DP and randomized-response pairs'
/// atoms at +-epsilon. A grid through it discretises those atoms exactly.
double grid_anchor(const core::privacy_event& e) {
  // Fixed batches are accounted as their Poisson pair (poisson_equivalent): the same atoms.
  if (const auto* w = std::get_if<core::sampled_without_replacement_event>(&e)) {
    return grid_anchor(poisson_equivalent(*w));
  }
  return std::visit(
      overloaded{
          [](const core::laplace_event& x) { return core::divide_up(1.0, x.noise_multiplier); },
          [](const core::pure_dp_event& x) { return x.epsilon; },
          [](const core::approx_dp_event& x) { return x.epsilon; },
          [](const core::randomized_response_event& x) { return x.epsilon; },
          [](const core::exponential_mechanism_event& x) { return x.epsilon; },
          [](const core::subsampled_laplace_event& x) {
            // The remove direction's top atom log(1 + q (e^{1/b} - 1)), the image of the Laplace
            // atom at 1/b (pld_subsampled.cpp computes it with the same expression).
            if (x.sampling_rate == 1.0) return core::divide_up(1.0, x.noise_multiplier);
            return std::log1p(x.sampling_rate * std::expm1(1.0 / x.noise_multiplier));
          },
          [](const auto&) { return 0.0; }},
      e);
}
}  // namespace

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
                               [](const core::subsampled_laplace_event&) { return true; },
                               [](const core::sampled_without_replacement_event&) { return true; },
                               [](const auto&) { return false; }},
                    e);
}

void pld_accountant::compose(const core::privacy_event& e, std::int64_t count) {
  if (!supports(e)) throw unsupported_event_error("pld", core::event_name(e));
  core::check_at_least("pld_accountant::compose", "count", count, 1);
  // Validate parameters now (cheap checks only; the PLD itself is built lazily).
  std::visit(
      overloaded{
          [](const core::gaussian_event& x) {
            core::check_positive("pld", "noise_multiplier", x.noise_multiplier);
          },
          [](const core::laplace_event& x) {
            core::check_positive("pld", "noise_multiplier", x.noise_multiplier);
          },
          [](const core::subsampled_gaussian_event& x) {
            core::check_half_open_interval("pld", "sampling_rate", x.sampling_rate, 0.0, 1.0);
            core::check_positive("pld", "noise_multiplier", x.noise_multiplier);
          },
          [](const core::discrete_pair_event& x) { detail::check_pld_pair("pld", x.p, x.q); },
          [](const core::subsampled_laplace_event& x) {
            core::check_half_open_interval("pld", "sampling_rate", x.sampling_rate, 0.0, 1.0);
            core::check_positive("pld", "noise_multiplier", x.noise_multiplier);
          },
          [](const core::sampled_without_replacement_event& x) {
            (void)without_replacement_probability(x);
          },
          [](const auto&) {}},
      e);
  ledger_.merge(e, count);
  upper_.valid = lower_.valid = false;
}

double pld_accountant::loss_scale() const {
  double var = 0.0, count = 0.0;
  for (const auto& [e, n] : ledger_.runs()) {
    const double w = options_.gaussian_fast_path && std::holds_alternative<core::gaussian_event>(e)
                         ? 1.0
                         : static_cast<double>(n);
    var += w * loss_variance(e);
    count += w;
  }
  if (!(count > 0.0) || !(var > 0.0)) return 0.0;
  return var / count;
}

namespace {
/// The largest grid <= h through `anchor` (h itself when anchor is 0).
double aligned(double h, double anchor) {
  if (!(anchor > 0.0) || !(anchor < 1e6 * h)) return h;
  return anchor / std::ceil(anchor / h * (1.0 - 1e-12));
}
/// The atom spacing of the ledger's one distinct non-fast-path kind, 0 when there are several
/// (or none): a single kind with atoms is put on the grid.
double single_kind_anchor(const core::event_log& ledger, bool gaussian_fast_path) {
  double anchor = 0.0;
  int kinds = 0;
  for (const auto& [e, n] : ledger.runs()) {
    if (gaussian_fast_path && std::holds_alternative<core::gaussian_event>(e)) continue;
    ++kinds;
    anchor = grid_anchor(e);
  }
  return kinds == 1 ? anchor : 0.0;
}
}  // namespace

double pld_accountant::upper_discretization() const {
  if (options_.discretization > 0.0) return options_.discretization;
  // Connect-the-dots raises the composed loss's spread by ~h^2 / 6 per step: the upper bound's
  // relative error is ~ h^2 / (12 v) for a per-step loss variance v (the same model as
  // initial_grid). Target: a tenth of epsilon_error, and never coarser than the cap.
  const double v = loss_scale();
  double h = v > 0.0 ? std::sqrt(12.0 * 0.1 * options_.epsilon_error * v)
                     : pld_options::default_discretization;
  h = std::clamp(h, 1e-8, pld_options::max_automatic_discretization);
  // One distinct non-Gaussian kind with atoms: put them on the grid.
  return aligned(h, single_kind_anchor(ledger_, options_.gaussian_fast_path));
}

double pld_accountant::initial_grid() const {
  if (options_.discretization > 0.0) return options_.discretization;
  // Connect-the-dots splits each step's mass between neighbouring grid points, inflating the
  // per-step loss variance by about h^2 / 6; over the composition that is a relative error of
  // ~ (h^2 / 6) / mean variance in the composed loss (and in epsilon). Aim at 1/8 of the target
  // (the optimistic side is a few times looser than the pessimistic one).
  const double v = loss_scale();
  if (!(v > 0.0)) return pld_options::default_discretization;
  const double h = std::sqrt(6.0 * options_.epsilon_error / 8.0 * v);
  return std::clamp(h, 1e-8, 5e-3);
}

std::shared_ptr<const privacy_loss_distribution> pld_accountant::single(
    const core::privacy_event& e, double h, double tail, pld_bound bound) const {
  for (const auto& c : cache_) {
    if (c.h == h && c.tail == tail && c.bound == bound && c.event == e) return c.pld;
  }
  pld_options o = options_;
  o.discretization = h;
  o.tail_mass = tail;
  auto p = std::make_shared<const privacy_loss_distribution>(
      privacy_loss_distribution::from_event(e, o, bound));
  // Bounded: the PMFs of the current grids of both directions (refinements add grids).
  if (cache_.size() >= 4 * ledger_.runs().size() + 8) cache_.erase(cache_.begin());
  cache_.push_back({e, h, tail, bound, p});
  return p;
}

void pld_accountant::build(pld_bound bound, double h, bool extended, double tail) const {
  side& out = bound == pld_bound::pessimistic ? upper_ : lower_;
  if (out.valid && out.h == h && out.tail == tail && (out.extended || !extended)) return;
  out.valid = false;
  out.pld.reset();
  std::vector<std::shared_ptr<const privacy_loss_distribution>> keep;
  std::vector<pld_part> remove, add;
  bool asymmetric = false;
  double inv_var = 0.0;  // sum count / sigma^2 over Gaussian events (fast path)
  for (const auto& [e, n] : ledger_.runs()) {
    if (options_.gaussian_fast_path) {
      if (const auto* g = std::get_if<core::gaussian_event>(&e)) {
        inv_var += static_cast<double>(n) / (g->noise_multiplier * g->noise_multiplier);
        continue;
      }
    }
    // Each copy's own truncation (mass above its top grid point, sent to +inf or dropped) is
    // tail / n, so the n copies together lose at most ~tail.
    keep.push_back(single(e, h, tail / static_cast<double>(n), bound));
    remove.emplace_back(&keep.back()->remove_pmf(), n);
    add.emplace_back(&keep.back()->add_pmf(), n);
    asymmetric = asymmetric || !keep.back()->symmetric();
  }
  gaussian_multiplier_ = 0.0;
  if (inv_var > 0.0) {
    const double s = 1.0 / std::sqrt(inv_var);
    // inv_var overflowed (noise multiplier ~1e-155 or smaller): no finite epsilon is
    // representable, the bracket is [0, +inf].
    if (!(s > 0.0)) throw pld_grid_error(inf);
    if (!remove.empty()) {
      // Exact combination of all Gaussians, discretised once and composed with the rest.
      keep.push_back(single(core::gaussian_event{s}, h, tail, bound));
      remove.emplace_back(&keep.back()->remove_pmf(), 1);
      add.emplace_back(&keep.back()->add_pmf(), 1);
    } else {
      gaussian_multiplier_ = s;
    }
  }
  if (!remove.empty()) {
    // All distinct events in one pass: one forward FFT per part and direction, the pointwise
    // count-th powers multiplied, one inverse FFT (compose_parts).
    auto compose = [&](const std::vector<pld_part>& parts) {
      if (parts.size() == 1) {
        return parts[0].second == 1 ? *parts[0].first
                                    : self_compose(*parts[0].first,
                                                   parts[0].second,
                                                   tail,
                                                   extended,
                                                   options_.max_grid_points);
      }
      return compose_parts(parts, tail, extended, options_.max_grid_points);
    };
    pld_pmf r = compose(remove);
    std::shared_ptr<const pld_pmf> a;
    if (asymmetric) a = std::make_shared<const pld_pmf>(compose(add));
    out.pld = std::make_shared<const privacy_loss_distribution>(std::move(r), std::move(a));
  }
  out.h = h;
  out.tail = tail;
  out.extended = extended;
  out.valid = true;
}

bool pld_accountant::needs_extended(double delta) const {
  // One-pass self-composition leaves a noise floor of ~count * 2^-52 under the grid points
  // (see circular_power); below delta / 100 it cannot move the answer.
  // All parts are powered in one pass: their counts add up in the rounding of the product.
  double total = 0.0;
  for (const auto& [e, n] : ledger_.runs()) {
    const bool fast =
        options_.gaussian_fast_path && std::holds_alternative<core::gaussian_event>(e);
    total += fast ? 1.0 : static_cast<double>(n);
  }
  return total * 0x1p-52 > 1e-2 * delta;
}

double pld_accountant::resolution_floor() const {
  double total = 0.0, distinct = 0.0;
  for (const auto& [e, n] : ledger_.runs()) {
    if (options_.gaussian_fast_path && std::holds_alternative<core::gaussian_event>(e)) continue;
    total += static_cast<double>(n);
    distinct += 1.0;
  }
  if (distinct == 0.0) return 0.0;  // all-Gaussian closed form: no FFT
  return 8.0 * (total * 0x1p-64 + (distinct - 1.0) * 0x1p-52);
}

template <class Query>
pld_bracket pld_accountant::refine(Query query,
                                   bool epsilon_query,
                                   double delta,
                                   bool want_lower) const {
  if (ledger_.empty()) return {0.0, 0.0, 0.0, true};
  // Epsilon queries truncate at most delta / 1000 of the tails (the truncated mass sits at
  // +inf in the pessimistic PLD, so a tail_mass near delta would make the upper bound +inf or
  // loose whatever the grid); delta queries use tail_mass.
  const double tail = epsilon_query ? std::max(std::min(options_.tail_mass, 1e-3 * delta), 1e-300)
                                    : options_.tail_mass;
  bool extended = needs_extended(delta);
  // Builds one side at hh, coarsening to the finest grid that holds the widest support when hh
  // does not fit (any grid gives valid bounds); returns the grid used.
  auto build_fit = [&](pld_bound bound, double hh) {
    try {
      build(bound, hh, extended, tail);
    } catch (const pld_grid_error& e) {
      const double h1 = 1.01 * e.range / static_cast<double>(options_.max_grid_points - 16);
      if (!(h1 > hh && h1 <= 1.0)) throw;  // no grid fits: the caller reports [0, +inf]
      build(bound, h1, extended, tail);
      return h1;
    }
    return hh;
  };
  // The pessimistic side, on its own grid (upper_discretization: finer than the bracket's first
  // grid where the loss scale is large, since the reported upper bound is the product).
  double h_upper = build_fit(pld_bound::pessimistic, upper_discretization());
  if (!upper_.pld) {  // all-Gaussian ledger with the fast path: exact closed form
    const double v = query(nullptr);
    if (!std::isfinite(v)) return {0.0, v, 0.0, false};  // epsilon beyond 1e300: no lower end
    return {v, v, 0.0, true};
  }
  double upper = query(upper_.pld.get());
  if (!epsilon_query && !extended && needs_extended(upper)) {
    extended = true;  // delta query: the answer turned out small; redo in long double
    h_upper = build_fit(pld_bound::pessimistic, h_upper);
    upper = query(upper_.pld.get());
  }
  if (!want_lower) return {0.0, upper, h_upper, true};
  const bool fixed = options_.discretization > 0.0;
  // Every grid gives certified bounds, so the bracket keeps the best end seen at any grid: a
  // refinement rebuilds the optimistic side (the looser one: its chord correction is first
  // order in h at atoms off the grid), and the pessimistic one only once the optimistic grid
  // is finer than the pessimistic one.
  const double anchor = fixed ? 0.0 : single_kind_anchor(ledger_, options_.gaussian_fast_path);
  double h = build_fit(pld_bound::optimistic, aligned(initial_grid(), anchor));
  double lower = query(lower_.pld.get());
  auto tol_of = [&]() {
    return epsilon_query ? std::max(options_.epsilon_error * upper, options_.epsilon_error_absolute)
                         : options_.epsilon_error * upper + 1e-14;
  };
  auto bracket = [&](bool converged) {
    return pld_bracket{std::min(lower, upper), upper, h_upper, converged};
  };
  auto met = [&]() {
    if (upper == lower) return true;
    const double gap = upper - std::min(lower, upper);
    return std::isfinite(gap) && gap <= tol_of();
  };
  for (int it = 0;; ++it) {
    if (met()) return bracket(true);
    // +inf upper end: the mass at +inf (events' own, or truncated tails) reaches delta, which
    // no finer grid changes.
    if (fixed || it >= 6 || !std::isfinite(upper)) return bracket(false);
    const double gap = upper - std::min(lower, upper);
    // Gap ~ h (first order, the worst case of the optimistic side): aim just under the target.
    const double factor = std::clamp(0.8 * tol_of() / gap, 1.0 / 16.0, 0.5);
    const double h_next = aligned(h * factor, anchor);
    try {
      build(pld_bound::optimistic, h_next, extended, tail);
      lower = std::max(lower, query(lower_.pld.get()));
      h = h_next;
      if (met()) return bracket(true);
      if (h_next < h_upper) {
        build(pld_bound::pessimistic, h_next, extended, tail);
        const double u = query(upper_.pld.get());
        if (u <= upper) {
          upper = u;
          h_upper = h_next;
        }
      }
    } catch (const pld_grid_error&) {
      return bracket(false);  // the finer grid does not fit: keep the best bracket
    }
  }
}

namespace {
/// Runs `f`; when no grid fits the loss support (wider than max_grid_points nats, e.g. noise
/// multiplier 1e-200) returns `unrepresentable`: the trivial bracket, never a wrong bound.
/// When instead the window of a count-fold self-composition does not fit at any grid (e.g.
/// 10^12 steps: the composed loss spreads over thousands of nats while one step needs a far
/// finer grid), the request is refused naming the count: the trivial bracket [0, +inf] would
/// look like an answer about the mechanism when it is a limit of the method.
template <class F>
pld_bracket with_grid_fallback(F f, const pld_bracket& unrepresentable) {
  try {
    return f();
  } catch (const pld_grid_error& e) {
    if (e.count > 0) {
      core::throw_invalid("pld_accountant",
                          "count",
                          static_cast<double>(e.count),
                          "its PLD composition does not fit max_grid_points grid points; use rdp");
    }
    return unrepresentable;
  }
}
}  // namespace

namespace {
/// delta at epsilon = 0 of the ledger from sampling alone: a step that includes the differing
/// record with probability p (Poisson rate, or B/N for fixed batches) is (0, p)-DP (TV <= p),
/// and T such steps compose to (0, 1 - prod (1 - p_i))-DP [Kairouz, Oh & Viswanath 2015, Thm 3.3
/// at epsilon = 0]. 1 (no bound) when an event is not subsampled.
double sampling_only_delta(const core::event_log& ledger) {
  double log_keep = 0.0;  // log prod (1 - p_i)^{n_i}
  for (const auto& [e, n] : ledger.runs()) {
    const double p = std::visit(
        overloaded{[](const core::subsampled_gaussian_event& x) { return x.sampling_rate; },
                   [](const core::subsampled_laplace_event& x) { return x.sampling_rate; },
                   [](const core::sampled_without_replacement_event& x) {
                     return without_replacement_probability(x);
                   },
                   [](const auto&) { return 1.0; }},
        e);
    log_keep += static_cast<double>(n) * std::log1p(-p);
  }
  return -std::expm1(log_keep);
}
}  // namespace

namespace {
/// A single Laplace release (b = noise multiplier): its curve 1 - e^{(eps - 1/b)/2} on
/// [-1/b, 1/b] (docs/accounting.md) inverts in closed form, eps = 1/b + 2 log(1 - delta)
/// (clamped at 0), and is evaluated on the safe side (1/b rounded up, the logarithm rounded
/// toward 0, the sum rounded up).
double laplace_single_epsilon(double delta, double b) {
  const double e0 = core::divide_up(1.0, b);
  const double l = core::round_up(2.0 * std::log1p(-delta), 4);  // <= 0, moved toward 0
  return std::max(0.0, core::round_up(e0 + std::min(l, 0.0), 2));
}
double laplace_single_delta(double epsilon, double b) {
  const double e0 = core::divide_up(1.0, b);
  if (epsilon >= e0) return 0.0;
  return std::min(1.0, core::round_up(detail::laplace_hockey_stick(epsilon, 1.0 / e0), 4));
}
/// The single Laplace release of a ledger (nullptr otherwise).
const core::laplace_event* single_laplace(const core::event_log& ledger) {
  if (ledger.runs().size() != 1 || ledger.runs()[0].count != 1) return nullptr;
  return std::get_if<core::laplace_event>(&ledger.runs()[0].event);
}
/// min(PLD upper bound, RDP upper bound) when RDP takes every event: both are upper bounds on
/// the same quantity, so the smaller is one too.
template <class F>
double with_rdp(const core::event_log& ledger, double pld_upper, F rdp_query) {
  rdp_accountant r;
  for (const auto& [e, n] : ledger.runs()) {
    if (!r.supports(e)) return pld_upper;
  }
  try {
    r.compose(ledger);
    const double v = rdp_query(r);
    // Only a finite positive RDP value is taken (0 or NaN would signal a conversion that broke
    // down, e.g. at noise multipliers near the floating-point range; such a value is no bound).
    return v > 0.0 && v < pld_upper ? v : pld_upper;
  } catch (const std::invalid_argument&) {
    return pld_upper;  // an RDP bound that cannot be formed here leaves the PLD one
  }
}
/// min(upper bound, optimal pure / approximate-DP composition) when every event has an (eps,
/// delta)-DP description (Laplace, randomized response, pure DP, subsampled Laplace, ...): the
/// composition theorem of Kairouz, Oh & Viswanath 2015 (Thm 3.3, exact for one kind of event;
/// Thm 3.5 otherwise) is an upper bound on the same quantity, and the exact answer for binary
/// randomized response, where the PLD carries grid error. Rounded up a few ulps (the bound is
/// evaluated in floating point).
template <class F>
double with_pure(const core::event_log& ledger, double upper, F query) {
  approx_dp_accountant a(composition_rule::kov);
  for (const auto& [e, n] : ledger.runs()) {
    if (!a.supports(e)) return upper;
  }
  try {
    a.compose(ledger);
    const double v = core::round_up(query(a), 4);
    return v >= 0.0 && v < upper ? v : upper;
  } catch (const std::invalid_argument&) {
    return upper;
  }
}
}  // namespace

pld_bracket pld_accountant::epsilon_query(double delta, bool want_lower) const {
  core::check_open_interval("pld_accountant::epsilon", "delta", delta, 0.0, 1.0);
  // Tiny sampling rates (e.g. q T <= delta at q = 1e-300): epsilon = 0 is exact, and the grid
  // the loss's heavy tail would need costs seconds per query.
  if (!ledger_.empty() && sampling_only_delta(ledger_) <= delta) return {0.0, 0.0, 0.0, true};
  const double floor = resolution_floor();
  if (delta < floor) {
    core::throw_invalid("pld_accountant::epsilon",
                        "delta",
                        delta,
                        "is below the floating-point resolution of the PLD composition (" +
                            core::format_double(floor) + " for these step counts); use rdp");
  }
  if (const auto* l = single_laplace(ledger_)) {
    const double v = laplace_single_epsilon(delta, l->noise_multiplier);
    return {v, v, 0.0, true};
  }
  auto q = [&](const privacy_loss_distribution* d) {
    return d ? d->epsilon(delta) : gaussian_epsilon(delta, gaussian_multiplier_);
  };
  auto b = with_grid_fallback([&] { return refine(q, true, delta, want_lower); },
                              {0.0, inf, 0.0, false});
  if (b.discretization > 0.0) {
    b.upper = with_rdp(ledger_, b.upper, [&](const rdp_accountant& r) { return r.epsilon(delta); });
    b.upper = with_pure(
        ledger_, b.upper, [&](const approx_dp_accountant& a) { return a.epsilon(delta); });
    b.lower = std::min(b.lower, b.upper);
  }
  return b;
}

pld_bracket pld_accountant::delta_query(double epsilon, bool want_lower) const {
  core::check_nonnegative("pld_accountant::delta", "epsilon", epsilon);
  // delta(epsilon) <= delta(0) <= the sampling-only delta: below the bracket's absolute
  // accuracy target (1e-14) it is the answer, certified, without the FFT.
  if (!ledger_.empty()) {
    const double d = sampling_only_delta(ledger_);
    if (d <= 1e-14) return {0.0, d, 0.0, true};
  }
  if (const auto* l = single_laplace(ledger_)) {
    const double v = laplace_single_delta(epsilon, l->noise_multiplier);
    return {v, v, 0.0, true};
  }
  auto q = [&](const privacy_loss_distribution* d) {
    return d ? d->delta(epsilon) : gaussian_delta(epsilon, gaussian_multiplier_);
  };
  auto b =
      with_grid_fallback([&] { return refine(q, false, 1.0, want_lower); }, {0.0, 1.0, 0.0, false});
  if (b.discretization > 0.0) {
    b.upper = with_rdp(ledger_, b.upper, [&](const rdp_accountant& r) { return r.delta(epsilon); });
    b.upper = with_pure(
        ledger_, b.upper, [&](const approx_dp_accountant& a) { return a.delta(epsilon); });
    b.lower = std::min(b.lower, b.upper);
  }
  return b;
}

pld_bracket pld_accountant::epsilon_bracket(double delta) const {
  return epsilon_query(delta, true);
}
pld_bracket pld_accountant::delta_bracket(double epsilon) const {
  return delta_query(epsilon, true);
}
double pld_accountant::epsilon(double delta) const { return epsilon_query(delta, false).upper; }
double pld_accountant::delta(double epsilon) const { return delta_query(epsilon, false).upper; }

}  // namespace dpx::accounting
