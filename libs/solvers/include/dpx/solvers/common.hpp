#pragma once
/// \file
/// Vocabulary shared by every dpx solver: the loss concepts the solvers are written against,
/// the trace recorded at log-spaced checkpoints in ONE run, the termination status, and the
/// result struct (iterate, trace, status + message, and the privacy events the run consumed, so
/// that any accountant in dpx::accounting can report its (epsilon, delta)).
///
/// Conventions: the problem is min_theta F(theta) = L(theta) + R(theta), L a smooth empirical
/// risk (dpx::losses::glm_loss or any type meeting smooth_loss), R a penalty or the indicator of
/// a constraint set given by a dpx::prox::proximal_operator. A "step" is the proximal step size
/// s in prox_{s R}(theta - s grad L(theta)) (units of 1 / curvature).

#include <chrono>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/privacy_curves.hpp"
#include "dpx/mechanisms/float_safe.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/noise_kind.hpp"

namespace dpx::solvers {

/// A differentiable objective: dimension(), value(theta) and value_and_gradient(theta, grad)
/// (returns the value and writes the gradient). dpx::losses::glm_loss models it.
template <class L>
concept smooth_loss = requires(const L& l, std::span<const double> theta, std::span<double> grad) {
  { l.dimension() } -> std::convertible_to<std::size_t>;
  { l.value(theta) } -> std::convertible_to<double>;
  { l.value_and_gradient(theta, grad) } -> std::convertible_to<double>;
};

/// An empirical risk over n examples with clipped per-example gradients (for bounded
/// sensitivity): size(), clipped_gradient(theta, G, grad) (the average of per-example gradients
/// each clipped to L2 norm G) and clipped_gradient_sum(theta, batch, G, grad_sum) (the sum over
/// a batch of indices). dpx::losses::glm_loss models it.
template <class L>
concept clippable_loss = smooth_loss<L> && requires(const L& l,
                                                    std::span<const double> theta,
                                                    double clip,
                                                    std::span<const std::size_t> batch,
                                                    std::span<double> grad) {
  { l.size() } -> std::convertible_to<std::size_t>;
  l.clipped_gradient(theta, clip, grad);
  l.clipped_gradient_sum(theta, batch, clip, grad);
};

/// How a run ended (algorithm outcomes are reported here, never thrown).
enum class termination {
  converged,           ///< the stopping test held (nonprivate solvers only)
  max_iterations,      ///< ran the iteration budget (the normal end of every private solver)
  line_search_failed,  ///< a backtracking search hit its trial cap (see the solver's docs)
  diverged,            ///< the iterate or objective became non-finite
};
std::string to_string(termination t);

/// Which iterations are recorded in the trace: every iteration up to 10, then the first
/// iteration of each of `per_decade` log-spaced bins per decade (k with
/// floor(per_decade log10 k) > floor(per_decade log10 (k - 1))), plus the last iteration.
/// One run therefore yields the whole convergence curve at O(per_decade log T) points.
struct checkpoint_options {
  bool enabled = true;  ///< false: no trace at all
  int per_decade = 10;  ///< >= 1
  /// Evaluate the exact objective F at checkpoints. It is computed from the (private) data and
  /// is NOT part of any private release: it is a diagnostic for experiments. Disable it when the
  /// run must not touch the data outside the solver's private releases.
  bool record_objective = true;
  void validate(const char* function) const;
  /// Whether iteration k (>= 1) is a checkpoint (the last iteration is added by the solver).
  bool is_checkpoint(std::int64_t k) const noexcept;
};

/// One trace row.
struct trace_point {
  std::int64_t iteration = 0;  ///< iterations completed (0 = the starting point)
  double objective = std::numeric_limits<double>::quiet_NaN();  ///< F(theta_k); NaN if not recorded
  double step = std::numeric_limits<double>::quiet_NaN();       ///< step used by iteration k
  std::int64_t line_search_trials =
      0;               ///< trials of iteration k's line search (1 = first accepted)
  double seconds = 0;  ///< solve time up to k, excluding trace evaluation
};

/// Result of a solver run (a plain aggregate the harness can serialise field by field).
struct solve_result {
  termination status = termination::max_iterations;
  std::string message = "not run";
  std::vector<double> x;        ///< the returned iterate (averaged when the solver averages)
  std::int64_t iterations = 0;  ///< iterations (outer loop) performed
  /// F(x) on the exact data; NaN when not computed. NOT private (never part of a release).
  double objective = std::numeric_limits<double>::quiet_NaN();
  std::vector<trace_point> trace;           ///< log-spaced checkpoints (checkpoint_options)
  std::int64_t line_search_trials = 0;      ///< total over the run
  std::int64_t max_line_search_trials = 0;  ///< max over iterations
  std::int64_t line_search_failures = 0;    ///< iterations whose search hit the trial cap
  std::int64_t gradient_evaluations = 0;    ///< full (or batch) gradient computations
  std::int64_t objective_evaluations = 0;   ///< objective evaluations by the algorithm itself
  double seconds = 0;                       ///< solve time, excluding trace objective evaluations

  // ---- privacy (empty / zero for nonprivate runs) ----
  /// Every private release the run made, in order (one entry per release; identical
  /// consecutive releases are stored as one run: feed privacy_events.runs() to an accountant
  /// with compose(event, count), or iterate the single releases).
  core::event_log privacy_events;
  /// Neighbouring relation the events' sensitivities were computed under.
  core::neighbouring relation = core::neighbouring::replace_one;
  double sensitivity = 0;     ///< sensitivity of one release (L2, or L1 per coordinate)
  double noise_scale = 0;     ///< sigma (Gaussian) or b (Laplace) actually used; 0 = no noise
  double epsilon_target = 0;  ///< the (epsilon, delta) the calibration aimed at (0 = none)
  double delta_target = 0;
  /// What the output guarantees, in words (e.g. "(eps, delta)-DP under replace-one" or
  /// "NOT private: ...").
  std::string guarantee = "nonprivate";

  /// True when x is finite and the run did not diverge.
  bool usable() const noexcept;
  /// One line: status, iterations, objective, seconds.
  std::string brief_report() const;
};

namespace detail {
/// Throws invalid_argument_error naming noise_kind unless it is research_grade: the solvers of
/// this file and DP Frank-Wolfe draw only research-grade (double) noise, so the float-safe default
/// refuses a noisy run rather than silently releasing it (docs/solvers.md, "Noise kind").
inline void require_research_grade(const char* fn, mechanisms::noise_kind kind) {
  if (kind != mechanisms::noise_kind::research_grade)
    core::throw_invalid(fn,
                        "noise_kind",
                        mechanisms::to_string(kind),
                        "this solver has research-grade noise only; choose research_grade");
}

/// Wall clock for solve time, with trace evaluation time subtracted.
class stopwatch {
 public:
  stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() -
           excluded_;
  }
  /// Exclude the time spent in f().
  template <class F>
  auto exclude(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = f();
    excluded_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

 private:
  std::chrono::steady_clock::time_point start_;
  double excluded_ = 0;
};

inline bool all_finite(std::span<const double> v) noexcept {
  for (double t : v)
    if (!std::isfinite(t)) return false;
  return true;
}
inline double squared_distance(std::span<const double> a, std::span<const double> b) noexcept {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}
inline double dot(std::span<const double> a, std::span<const double> b) noexcept {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}
inline double norm_inf(std::span<const double> a) noexcept {
  double s = 0;
  for (double t : a) s = std::fmax(s, std::fabs(t));
  return s;
}

/// Throws (naming public_size) unless add/remove comes with a public normaliser n_bar > 0.
inline void check_public_size(const char* fn,
                              core::neighbouring relation,
                              std::size_t public_size) {
  if (relation == core::neighbouring::add_remove && public_size == 0)
    core::throw_invalid(fn,
                        "public_size",
                        0.0,
                        "add/remove needs a PUBLIC normaliser n_bar > 0: the dataset size n is "
                        "private under add/remove, so the gradient is released as (sum of "
                        "clipped gradients) / n_bar with sensitivity G / n_bar");
}

/// No silent non-private path (docs/solvers.md, "Privacy targets"): a run that will not spend
/// an (epsilon, delta) target refuses one, naming the option (`option` = `value`) that makes it
/// ignore the target, rather than return a fit the caller would read as private.
inline void refuse_target(const char* fn,
                          const std::optional<core::epsilon_delta>& target,
                          std::string_view option,
                          std::string_view value,
                          std::string_view why) {
  if (target)
    core::throw_invalid(
        fn,
        option,
        value,
        std::string(why) + "; an (epsilon, delta) target is refused, not ignored (omit it)");
}

/// The target of a calibrated run (calibration paper / tight): required, epsilon > 0, and delta
/// in (0, 1) unless the calibration is pure (needs_delta false).
inline const core::epsilon_delta& require_target(const char* fn,
                                                 const std::optional<core::epsilon_delta>& target,
                                                 std::string_view calibration,
                                                 bool needs_delta = true) {
  if (!target)
    core::throw_invalid(
        fn,
        "epsilon",
        "none",
        "an (epsilon, delta) target is required by calibration " + std::string(calibration));
  core::check_positive(fn, "epsilon", target->epsilon);
  if (needs_delta) core::check_open_interval(fn, "delta", target->delta, 0.0, 1.0);
  return *target;
}

/// Turns the clipped MEAN gradient over the n rows at hand, (1/n) sum_i clip_G(g_i), into
/// (sum_i clip_G(g_i)) / n_bar for a PUBLIC normaliser n_bar (add/remove neighbours: n itself is
/// private there, and dividing by it would make the release's sensitivity 2G/(n+1) > G/n and the
/// noise scale data-dependent). n_bar == n is left untouched, so the result is bit-identical to
/// the plain mean; n_bar == 0 means "no public normaliser" (replace-one) and also leaves g alone.
inline void apply_public_normaliser(std::span<double> g,
                                    std::size_t n,
                                    std::size_t public_size) noexcept {
  if (public_size == 0 || public_size == n) return;
  const double f = static_cast<double>(n) / static_cast<double>(public_size);
  for (double& v : g) v *= f;
}

/// Appends a trace point; the objective (a callable) is evaluated only when recorded, and its
/// time is excluded from the solve time.
template <class F>
void record(solve_result& r,
            const checkpoint_options& c,
            stopwatch& clock,
            std::int64_t k,
            double step,
            std::int64_t trials,
            F&& objective) {
  trace_point p;
  p.iteration = k;
  p.step = step;
  p.line_search_trials = trials;
  p.seconds = clock.elapsed();
  if (c.record_objective) p.objective = clock.exclude([&] { return objective(); });
  r.trace.push_back(p);
}

/// The end of one iteration of an iterate-averaging method (noisy PGD, DP-SGD), after the
/// step has produced the iterate x_t: folds x_t into the running average (avg_t = avg_{t-1} +
/// (x_t - avg_{t-1}) / t), counts the iteration, stops on a non-finite iterate and records the
/// trace point at checkpoints and at t = last (the objective of the average when averaging, of
/// x_t otherwise). Returns false when the method must stop (diverged).
template <class F>
bool end_averaged_iteration(solve_result& r,
                            const checkpoint_options& trace,
                            stopwatch& clock,
                            std::int64_t t,
                            std::int64_t last,
                            double step,
                            std::int64_t trials,
                            std::span<const double> x,
                            std::vector<double>& avg,
                            bool averaging,
                            F&& objective) {
  const double inv = 1.0 / static_cast<double>(t);
  for (std::size_t j = 0; j < x.size(); ++j) avg[j] += (x[j] - avg[j]) * inv;
  r.iterations = t;
  if (!all_finite(x)) {
    r.status = termination::diverged;
    r.message = "non-finite iterate";
    return false;
  }
  if (trace.is_checkpoint(t) || t == last)
    record(r, trace, clock, t, step, trials, [&] {
      return objective(averaging ? std::span<const double>(avg) : x);
    });
  return true;
}

/// The result of an iterate-averaging method: the average (or the last iterate x), its
/// objective when recorded (time excluded), the solve time.
template <class F>
void finish_averaged(solve_result& r,
                     const checkpoint_options& trace,
                     stopwatch& clock,
                     std::vector<double>& x,
                     std::vector<double>& avg,
                     bool averaging,
                     F&& objective) {
  r.x = averaging ? std::move(avg) : std::move(x);
  if (trace.record_objective) r.objective = clock.exclude([&] { return objective(r.x); });
  r.seconds = clock.elapsed();
}

}  // namespace detail

namespace detail {
/// The Gaussian noise of a private solver's vector release (one home for the noise_kind switch):
/// research_grade = mechanisms::gaussian (event gaussian_event); float_safe =
/// mechanisms::float_safe_gaussian with the same sigma (exact discrete noise on a 2^k grid; event
/// zcdp_event{rho = Delta_2^2 / (2 sigma^2)}, exact for every dimension; docs/mechanisms.md).
class gaussian_release {
 public:
  gaussian_release(mechanisms::noise_kind kind,
                   double sigma,
                   double l2_sensitivity,
                   core::neighbouring relation) {
    if (kind == mechanisms::noise_kind::float_safe) {
      safe_.emplace(mechanisms::float_safe_gaussian::from_sigma(sigma, l2_sensitivity, relation));
    } else {
      grade_.emplace(mechanisms::gaussian::from_sigma(sigma, l2_sensitivity, relation));
    }
  }
  template <std::uniform_random_bit_generator G>
  void privatize(std::span<double> v, G& g) const {
    if (safe_) {
      safe_->privatize(v, g);
    } else {
      grade_->privatize(v, g);
    }
  }
  core::privacy_event event() const { return safe_ ? safe_->event() : grade_->event(); }
  bool float_safe() const noexcept { return safe_.has_value(); }

 private:
  std::optional<mechanisms::float_safe_gaussian> safe_;
  std::optional<mechanisms::gaussian> grade_;
};
}  // namespace detail

}  // namespace dpx::solvers
