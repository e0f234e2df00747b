// The PLD accountant: ledger, automatic grid, certified bracket (docs/accounting.md, "Privacy
// loss distributions" and "The certified bracket").
#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

#include "dpx/accounting/gaussian.hpp"
#include "dpx/accounting/pld.hpp"
#include "dpx/accounting/subsampling.hpp"
#include "dpx/core/error.hpp"
#include "pld_internal.hpp"

namespace dpx::accounting {

namespace {
constexpr double inf = std::numeric_limits<double>::infinity();
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
  built_ = false;
}

double pld_accountant::initial_grid() const {
  if (options_.discretization > 0.0) return options_.discretization;
  // Connect-the-dots splits each step's mass between neighbouring grid points, inflating the
  // per-step loss variance by about h^2 / 6; over the composition that is a relative error of
  // ~ (h^2 / 6) / mean variance in the composed loss (and in epsilon). Aim at 1/8 of the target
  // (the optimistic side is a few times looser than the pessimistic one).
  double var = 0.0, count = 0.0;
  for (const auto& [e, n] : ledger_.runs()) {
    const double w = options_.gaussian_fast_path && std::holds_alternative<core::gaussian_event>(e)
                         ? 1.0
                         : static_cast<double>(n);
    var += w * loss_variance(e);
    count += w;
  }
  if (!(count > 0.0) || !(var > 0.0)) return pld_options::default_discretization;
  const double h = std::sqrt(6.0 * options_.epsilon_error / 8.0 * var / count);
  return std::clamp(h, 1e-8, 5e-3);
}

void pld_accountant::build(double h, bool extended) const {
  if (built_ && h == h_ && (extended_ || !extended)) return;
  built_ = false;
  upper_.reset();
  lower_.reset();
  gaussian_multiplier_ = 0.0;
  pld_options o = options_;
  o.discretization = h;
  for (const pld_bound bound : {pld_bound::pessimistic, pld_bound::optimistic}) {
    std::shared_ptr<const privacy_loss_distribution> composed;
    double inv_var = 0.0;  // sum count / sigma^2 over Gaussian events (fast path)
    for (const auto& [e, n] : ledger_.runs()) {
      if (options_.gaussian_fast_path) {
        if (const auto* g = std::get_if<core::gaussian_event>(&e)) {
          inv_var += static_cast<double>(n) / (g->noise_multiplier * g->noise_multiplier);
          continue;
        }
      }
      // Each copy's own truncation (mass above its top grid point, sent to +inf or dropped) is
      // tail_mass / n, so the n copies together lose at most ~tail_mass.
      pld_options one_o = o;
      one_o.tail_mass = o.tail_mass / static_cast<double>(n);
      auto one = privacy_loss_distribution::from_event(e, one_o, bound);
      auto many = n == 1 ? one : one.self_compose(n, o.tail_mass, extended);
      composed =
          composed
              ? std::make_shared<privacy_loss_distribution>(composed->compose(many, o.tail_mass))
              : std::make_shared<privacy_loss_distribution>(std::move(many));
    }
    if (inv_var > 0.0) {
      const double s = 1.0 / std::sqrt(inv_var);
      // inv_var overflowed (noise multiplier ~1e-155 or smaller): no finite epsilon is
      // representable, the bracket is [0, +inf].
      if (!(s > 0.0)) throw pld_grid_error(inf);
      if (composed) {
        // Exact combination of all Gaussians, discretised once and composed with the rest.
        auto g = privacy_loss_distribution::from_event(core::gaussian_event{s}, o, bound);
        composed = std::make_shared<privacy_loss_distribution>(composed->compose(g, o.tail_mass));
      } else {
        gaussian_multiplier_ = s;
      }
    }
    (bound == pld_bound::pessimistic ? upper_ : lower_) = composed;
  }
  h_ = h;
  extended_ = extended;
  built_ = true;
}

bool pld_accountant::needs_extended(double delta) const {
  // One-pass self-composition leaves a noise floor of ~count * 2^-52 under the grid points
  // (see circular_power); below delta / 100 it cannot move the answer.
  std::int64_t most = 0;
  for (const auto& [e, n] : ledger_.runs()) most = std::max(most, n);
  return static_cast<double>(most) * 0x1p-52 > 1e-2 * delta;
}

template <class Query>
pld_bracket pld_accountant::refine(Query query, bool epsilon_query, double delta) const {
  if (ledger_.empty()) return {0.0, 0.0, 0.0, true};
  const double h0 = built_ ? h_ : initial_grid();
  bool extended = needs_extended(delta);
  try {
    build(h0, extended);
  } catch (const pld_grid_error& e) {
    // Coarsen to the finest grid that holds the widest support (any grid gives valid bounds).
    const double h1 = 1.01 * e.range / static_cast<double>(options_.max_grid_points - 16);
    if (!(h1 > h0 && h1 <= 1.0)) throw;  // no grid fits: the caller reports [0, +inf]
    build(h1, extended);
  }
  if (!upper_) {  // all-Gaussian ledger with the fast path: exact closed form
    const double v = query(nullptr);
    if (!std::isfinite(v)) return {0.0, v, 0.0, false};  // epsilon beyond 1e300: no lower end
    return {v, v, 0.0, true};
  }
  const bool fixed = options_.discretization > 0.0;
  double h = h_;
  pld_bracket last{0.0, inf, 0.0, false};
  for (int it = 0;; ++it) {
    pld_bracket b{query(lower_.get()), query(upper_.get()), h, true};
    if (!epsilon_query && !extended && needs_extended(b.upper)) {
      extended = true;  // delta query: the answer turned out small; redo in long double
      build(h, true);
      continue;
    }
    b.lower = std::min(b.lower, b.upper);
    const double gap = b.upper - b.lower;
    const double tol =
        epsilon_query ? std::max(options_.epsilon_error * b.upper, options_.epsilon_error_absolute)
                      : options_.epsilon_error * b.upper + 1e-14;
    if (b.upper == b.lower || (std::isfinite(gap) && gap <= tol)) return b;
    b.converged = false;
    if (fixed || it >= 6) return b;
    last = b;
    const double factor =
        std::isfinite(gap) ? std::clamp(0.7 * std::sqrt(tol / gap), 1.0 / 16.0, 0.5) : 0.25;
    try {
      build(h * factor, extended);
    } catch (const pld_grid_error&) {
      build(h, extended);  // the finer grid does not fit: keep the last bracket
      return last;
    }
    h = h_;
  }
}

namespace {
/// Runs `f`; when no grid fits the loss support (wider than max_grid_points nats, e.g. noise
/// multiplier 1e-200) returns `unrepresentable`: the trivial bracket, never a wrong bound.
template <class F>
pld_bracket with_grid_fallback(F f, const pld_bracket& unrepresentable) {
  try {
    return f();
  } catch (const pld_grid_error&) {
    return unrepresentable;
  }
}
}  // namespace

pld_bracket pld_accountant::epsilon_bracket(double delta) const {
  core::check_open_interval("pld_accountant::epsilon", "delta", delta, 0.0, 1.0);
  auto q = [&](const privacy_loss_distribution* d) {
    return d ? d->epsilon(delta) : gaussian_epsilon(delta, gaussian_multiplier_);
  };
  return with_grid_fallback([&] { return refine(q, true, delta); }, {0.0, inf, 0.0, false});
}

pld_bracket pld_accountant::delta_bracket(double epsilon) const {
  core::check_nonnegative("pld_accountant::delta", "epsilon", epsilon);
  auto q = [&](const privacy_loss_distribution* d) {
    return d ? d->delta(epsilon) : gaussian_delta(epsilon, gaussian_multiplier_);
  };
  return with_grid_fallback([&] { return refine(q, false, 1.0); }, {0.0, 1.0, 0.0, false});
}

double pld_accountant::epsilon(double delta) const { return epsilon_bracket(delta).upper; }

double pld_accountant::delta(double epsilon) const { return delta_bracket(epsilon).upper; }

}  // namespace dpx::accounting
