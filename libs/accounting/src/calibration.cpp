#include "dpx/accounting/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dpx/accounting/composition.hpp"
#include "dpx/accounting/gaussian.hpp"
#include "dpx/accounting/pld.hpp"
#include "dpx/accounting/rdp.hpp"
#include "dpx/accounting/seeds.hpp"
#include "dpx/accounting/zcdp.hpp"
#include "dpx/core/detail/log_normal.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/roots.hpp"

namespace dpx::accounting {

namespace {
using core::detail::inf;

using core::smallest_feasible;

/// Per-step (eps0, delta0) of the (subsampled) Gaussian mechanism.
epsilon_delta gaussian_step(double s, double q, double delta0) {
  // delta0 is the delta of the subsampled step; the base mechanism gets delta0 / q.
  const double base_delta = delta0 / q;
  if (!(base_delta < 1.0)) return {0.0, delta0};
  const double e = gaussian_epsilon(base_delta, s);
  if (q == 1.0) return {e, delta0};
  return {std::log1p(q * std::expm1(e)), delta0};
}

/// min over the fraction f of delta spent on the per-step deltas of rule(f).
template <class R>
double best_split(R rule) {
  double best = inf;
  double best_f = 0.5;
  for (int i = 1; i <= 19; ++i) {
    const double f = i / 20.0;
    const double v = rule(f);
    if (v < best) {
      best = v;
      best_f = f;
    }
  }
  // golden-section refinement around the best grid point
  const double a = std::max(1e-6, best_f - 1.0 / 20.0);
  const double b = std::min(1.0 - 1e-6, best_f + 1.0 / 20.0);
  return std::min(best, core::minimize_golden(rule, a, b, 30));
}

void check_common(const char* fn, double s, std::int64_t steps, double delta) {
  core::check_positive(fn, "noise_multiplier", s);
  core::check_at_least(fn, "steps", steps, 1);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
}
}  // namespace

method parse_method(const std::string& s) {
  using m = method;
  return core::parse_composition_rule(
      s, {m::basic, m::advanced, m::kov, m::rdp, m::zcdp, m::pld}, "parse_method", "method");
}

double account_gaussian(
    method m, double noise_multiplier, double sampling_rate, std::int64_t steps, double delta) {
  const char* fn = "account_gaussian";
  check_common(fn, noise_multiplier, steps, delta);
  core::check_half_open_interval(fn, "sampling_rate", sampling_rate, 0.0, 1.0);
  const double s = noise_multiplier, q = sampling_rate;
  const double t = static_cast<double>(steps);
  switch (m) {
    case method::basic: {
      const auto st = gaussian_step(s, q, delta / t);
      return t * st.epsilon;
    }
    case method::advanced: {
      const double basic = t * gaussian_step(s, q, delta / t).epsilon;
      if (steps == 1) return basic;
      const double adv = best_split([&](double f) {
        const auto st = gaussian_step(s, q, f * delta / t);
        if (!(st.epsilon > 0.0)) return inf;
        return advanced_composition(st.epsilon, st.delta, steps, (1.0 - f) * delta).epsilon;
      });
      return std::min(basic, adv);
    }
    case method::kov: {
      // Basic composition of the same per-step guarantee is also valid; the numerically
      // optimised delta split can leave KOV a hair above it (k = 1: the split cannot reach
      // f = 1), so report the smaller of the two valid bounds.
      const double basic = t * gaussian_step(s, q, delta / t).epsilon;
      return std::min(basic, best_split([&](double f) {
                        const double d0 =
                            -std::expm1(std::log1p(-f * delta) / t);  // (1-d0)^T = 1 - f delta
                        const auto st = gaussian_step(s, q, d0);
                        if (!(st.epsilon > 0.0)) return inf;
                        // 1 - delta = (1 - d0)^T (1 - slack)
                        return kov_optimal_epsilon(st.epsilon, st.delta, steps, delta);
                      }));
    }
    case method::rdp: {
      rdp_accountant acc;
      if (q == 1.0) {
        acc.compose(core::gaussian_event{s}, steps);
      } else {
        acc.compose(core::subsampled_gaussian_event{q, s}, steps);
      }
      return acc.epsilon(delta);
    }
    case method::zcdp: {
      zcdp_accountant acc;
      if (q < 1.0) throw unsupported_event_error("zcdp", "subsampled_gaussian");
      acc.compose(core::gaussian_event{s}, steps);
      return acc.epsilon(delta);
    }
    case method::pld: {
      if (q == 1.0) return gaussian_composed_epsilon(delta, s, steps);
      pld_accountant acc;
      acc.compose(core::subsampled_gaussian_event{q, s}, steps);
      return acc.epsilon(delta);
    }
    default:
      core::throw_invalid(
          fn, "method", to_string(m), "must be basic, advanced, kov, rdp, zcdp or pld");
  }
}

double account_laplace(method m, double noise_multiplier, std::int64_t steps, double delta) {
  const char* fn = "account_laplace";
  check_common(fn, noise_multiplier, steps, delta);
  const double b = noise_multiplier, t = static_cast<double>(steps);
  switch (m) {
    case method::basic:
      return core::divide_up(t, b);
    case method::advanced:
      return std::min(core::divide_up(t, b),
                      advanced_composition(1.0 / b, 0.0, steps, delta).epsilon);
    case method::kov:
      return kov_optimal_epsilon(1.0 / b, 0.0, steps, delta);
    case method::rdp:
    case method::zcdp:
    case method::pld: {
      const auto acc = make_accountant(m);
      acc->compose(core::laplace_event{b}, steps);
      return acc->epsilon(delta);
    }
    default:
      core::throw_invalid(
          fn, "method", to_string(m), "must be basic, advanced, kov, rdp, zcdp or pld");
  }
}

namespace {
/// Smallest delta in (1e-300, 1) with eps_of(delta) <= epsilon (eps_of non-increasing), from the
/// feasible side, searched on log delta.
template <class F>
double invert_delta(F eps_of, double epsilon) {
  const double lo = std::log(1e-300), hi = std::log1p(-1e-12);
  auto f = [&](double x) { return eps_of(std::exp(x)); };
  if (!(f(hi) <= epsilon)) return 1.0;
  if (f(lo) <= epsilon) return std::exp(lo);
  if (!(epsilon > 0.0)) return 1.0;
  // smallest_feasible works on f > 0 in log space; f(lo) > epsilon > 0 here.
  return std::exp(smallest_feasible(f, lo, hi, epsilon, 1e-12));
}
}  // namespace

double account_gaussian_delta(
    method m, double noise_multiplier, double sampling_rate, std::int64_t steps, double epsilon) {
  const char* fn = "account_gaussian_delta";
  core::check_nonnegative(fn, "epsilon", epsilon);
  core::check_finite(fn, "epsilon", epsilon);
  check_common(fn, noise_multiplier, steps, 0.5);
  core::check_half_open_interval(fn, "sampling_rate", sampling_rate, 0.0, 1.0);
  const double s = noise_multiplier, q = sampling_rate;
  switch (m) {
    case method::rdp: {
      rdp_accountant acc;
      if (q == 1.0) {
        acc.compose(core::gaussian_event{s}, steps);
      } else {
        acc.compose(core::subsampled_gaussian_event{q, s}, steps);
      }
      return acc.delta(epsilon);
    }
    case method::zcdp: {
      if (q < 1.0) throw unsupported_event_error("zcdp", "subsampled_gaussian");
      zcdp_accountant acc;
      acc.compose(core::gaussian_event{s}, steps);
      return acc.delta(epsilon);
    }
    case method::pld: {
      if (q == 1.0) return gaussian_composed_delta(epsilon, s, steps);
      pld_accountant acc;
      acc.compose(core::subsampled_gaussian_event{q, s}, steps);
      return acc.delta(epsilon);
    }
    default:
      return invert_delta([&](double d) { return account_gaussian(m, s, q, steps, d); }, epsilon);
  }
}

double account_laplace_delta(method m,
                             double noise_multiplier,
                             std::int64_t steps,
                             double epsilon) {
  const char* fn = "account_laplace_delta";
  core::check_nonnegative(fn, "epsilon", epsilon);
  core::check_finite(fn, "epsilon", epsilon);
  check_common(fn, noise_multiplier, steps, 0.5);
  const double b = noise_multiplier;
  switch (m) {
    case method::rdp:
    case method::zcdp:
    case method::pld: {
      const auto acc = make_accountant(m);
      acc->compose(core::laplace_event{b}, steps);
      return acc->delta(epsilon);
    }
    case method::basic:
      return epsilon >= static_cast<double>(steps) / b ? 0.0 : 1.0;  // pure DP
    default:
      return invert_delta([&](double d) { return account_laplace(m, b, steps, d); }, epsilon);
  }
}

dp_sgd_schedule dp_sgd_schedule_of(std::int64_t dataset_size,
                                   std::int64_t batch_size,
                                   double epochs) {
  const char* fn = "dp_sgd_schedule_of";
  core::check_at_least(fn, "dataset_size", dataset_size, std::int64_t{1});
  core::check_at_least(fn, "batch_size", batch_size, std::int64_t{1});
  if (batch_size > dataset_size) {
    core::throw_invalid(
        fn, "batch_size", static_cast<double>(batch_size), "must be <= dataset_size");
  }
  const double q = static_cast<double>(batch_size) / static_cast<double>(dataset_size);
  return {q, dp_sgd_steps_of(q, epochs)};
}

std::int64_t dp_sgd_steps_of(double sampling_rate, double epochs) {
  const char* fn = "dp_sgd_steps_of";
  core::check_half_open_interval(fn, "sampling_rate", sampling_rate, 0.0, 1.0);
  core::check_positive(fn, "epochs", epochs);
  const double t = std::ceil(epochs / sampling_rate - 1e-9);
  if (!(t < 1e12)) core::throw_invalid(fn, "epochs", epochs, "gives more than 1e12 steps");
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(t));
}

std::unique_ptr<accountant> make_accountant(method m, double epsilon_error) {
  const char* fn = "make_accountant";
  switch (m) {
    case method::basic:
      return std::make_unique<approx_dp_accountant>(composition_rule::basic);
    case method::advanced:
      return std::make_unique<approx_dp_accountant>(composition_rule::advanced);
    case method::kov:
      return std::make_unique<approx_dp_accountant>(composition_rule::kov);
    case method::rdp:
      return std::make_unique<rdp_accountant>();
    case method::zcdp:
      return std::make_unique<zcdp_accountant>();
    case method::pld: {
      pld_options o;
      o.epsilon_error = epsilon_error;
      return std::make_unique<pld_accountant>(o);
    }
    default:
      core::throw_invalid(
          fn, "method", to_string(m), "must be basic, advanced, kov, rdp, zcdp or pld");
  }
}

gaussian_calibration parse_gaussian_calibration(const std::string& s) {
  using c = gaussian_calibration;
  return core::parse_noise_calibration(
      s, {c::classical, c::analytic, c::rdp, c::pld}, "parse_gaussian_calibration", "method");
}

double calibrate_gaussian(gaussian_calibration m,
                          double epsilon,
                          double delta,
                          std::int64_t steps,
                          double sampling_rate) {
  const char* fn = "calibrate_gaussian";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  core::check_at_least(fn, "steps", steps, 1);
  core::check_half_open_interval(fn, "sampling_rate", sampling_rate, 0.0, 1.0);
  const double q = sampling_rate;
  switch (m) {
    case gaussian_calibration::classical:
      if (q < 1.0) {
        core::throw_invalid(fn, "sampling_rate", q, "the classical calibration has no subsampling");
      }
      if (steps == 1) return calibrate_gaussian_classical(epsilon, delta);
      {
        // Dwork & Roth Thm A.1 (the per-step classical Gaussian) needs eps_step < 1, as for
        // steps = 1; beyond it the multiplier is not proven to give the guarantee.
        const auto c = istdp_theorem_3_3(epsilon, delta, steps, 1.0);
        if (!c.classical_valid)
          core::throw_invalid(fn,
                              "epsilon",
                              epsilon,
                              "the classical calibration needs a per-step epsilon < 1 (here " +
                                  core::format_double(c.epsilon_step) +
                                  "); use the analytic, rdp or pld calibration");
        return c.noise_multiplier;
      }
    case gaussian_calibration::analytic:
      if (q < 1.0) {
        core::throw_invalid(fn, "sampling_rate", q, "the analytic calibration has no subsampling");
      }
      return calibrate_gaussian_analytic(epsilon, delta, steps);
    case gaussian_calibration::rdp:
    case gaussian_calibration::pld: {
      const method mm = m == gaussian_calibration::rdp ? method::rdp : method::pld;
      if (mm == method::pld && q == 1.0) return calibrate_gaussian_analytic(epsilon, delta, steps);
      // Bracket: for pld start from the RDP answer (PLD <= RDP, so it is feasible).
      double hi = mm == method::pld
                      ? calibrate_gaussian(gaussian_calibration::rdp, epsilon, delta, steps, q)
                      : 1.0;
      // PLD: one grid for the whole search (the automatic grid at the starting sigma), so that
      // every evaluation is one pessimistic PLD on the same grid (no refinement, no optimistic
      // side), FFT plans and window sizes are shared, and eps(sigma) is a monotone function of
      // sigma on a fixed grid rather than jumping between grids. Every value is an upper bound.
      pld_options grid;
      if (mm == method::pld) {
        pld_accountant probe;
        probe.compose(core::subsampled_gaussian_event{q, hi}, steps);
        grid.discretization = probe.upper_discretization();
      }
      auto f = [&](double s) {
        if (mm == method::rdp) return account_gaussian(mm, s, q, steps, delta);
        pld_accountant acc(grid);
        acc.compose(core::subsampled_gaussian_event{q, s}, steps);
        return acc.epsilon(delta);
      };
      while (!(f(hi) <= epsilon)) {
        hi *= 2.0;
        // RDP's epsilon has a floor (log(1/delta) / (alpha_max - 1), and the steps' share) that
        // no noise removes: refuse instead of doubling forever.
        if (!(hi < 1e150)) {
          core::throw_invalid(
              fn, "epsilon", epsilon, "is not reachable by this method at this delta and steps");
        }
      }
      // PLD needs at most ~20% less noise than RDP here; a narrow bracket also avoids
      // evaluating the PLD at tiny sigma (wide, slow loss distributions).
      const double shrink = mm == method::pld ? 0.85 : 0.5;
      double lo = hi * shrink;
      while (f(lo) <= epsilon) {
        hi = lo;
        lo *= shrink;
        if (lo < 1e-6) return hi;
      }
      return smallest_feasible(f, lo, hi, epsilon);
    }
    default:
      core::throw_invalid(fn, "method", to_string(m), "must be classical, analytic, rdp or pld");
  }
}

laplace_method parse_laplace_method(const std::string& s) {
  using m = laplace_method;
  return core::parse_composition_rule(
      s, {m::basic, m::advanced, m::kov, m::pld}, "parse_laplace_method", "method");
}

double calibrate_laplace(double epsilon, double delta, std::int64_t steps, laplace_method m) {
  const char* fn = "calibrate_laplace";
  core::check_positive(fn, "epsilon", epsilon);
  core::check_at_least(fn, "steps", steps, 1);
  if (m != laplace_method::basic) core::check_open_interval(fn, "delta", delta, 0.0, 1.0);
  const double t = static_cast<double>(steps);
  // b = 1/eps0, rounded up so that 1/b <= eps0 still holds.
  auto up = [](double eps0) { return core::laplace_scale(eps0); };
  switch (m) {
    case laplace_method::basic:
      return core::divide_up(t, epsilon);
    case laplace_method::advanced:
      return up(std::max(epsilon / t, advanced_per_step_epsilon(epsilon, steps, delta)));
    case laplace_method::kov:
      return up(kov_optimal_per_step_epsilon(epsilon, delta, steps, 0.0));
    case laplace_method::pld: {
      auto f = [&](double b) { return account_laplace(method::pld, b, steps, delta); };
      // The KOV-optimal scale is feasible for the exact composition; PLD (pessimistic) may be
      // slightly above, so grow until feasible.
      // (Beyond kov_optimal_max_k steps, start from the advanced-composition scale instead.)
      double hi = up(steps <= kov_optimal_max_k
                         ? kov_optimal_per_step_epsilon(epsilon, delta, steps, 0.0)
                         : std::max(epsilon / t, advanced_per_step_epsilon(epsilon, steps, delta)));
      while (!(f(hi) <= epsilon)) hi *= 1.05;
      double lo = hi * 0.85;
      while (f(lo) <= epsilon) {
        hi = lo;
        lo *= 0.85;
      }
      return smallest_feasible(f, lo, hi, epsilon);
    }
    default:
      core::throw_invalid(fn, "method", to_string(m), "must be basic, advanced, kov or pld");
  }
}

}  // namespace dpx::accounting
