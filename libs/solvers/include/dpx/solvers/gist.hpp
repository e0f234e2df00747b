#pragma once
/// \file
/// GIST: General Iterative Shrinkage and Thresholding (Gong, Zhang, Lu, Huang & Ye 2013, "A
/// general iterative shrinkage and thresholding algorithm for non-convex regularized
/// optimization problems", ICML, Algorithm 1). Nonprivate; the high-accuracy reference solver for
/// MCP / SCAD / capped-L1 penalised problems (any dpx::prox::proximal_operator works).
///
/// Iteration k, with curvature t (the step is 1/t):
///   t = <s, y> / <s, s> (BB rule, s = x_k - x_{k-1}, y = grad L(x_k) - grad L(x_{k-1})) clipped to
///       [t_min, t_max]; when <s, y> <= 0 (possible for nonconvex problems) the previous accepted
///       t is kept (GIST clamps to t_min, which only costs line-search trials);
///   repeat x+ = prox_{R / t}(x_k - grad L(x_k) / t) and t <- eta t until
///       F(x+) <= max_{max(0, k-m+1) <= i <= k} F(x_i) - (sigma / 2) t ||x+ - x_k||^2
///   (m = 1: monotone line search; m > 1: the nonmonotone search of Gong et al., Sec. 2.2).
/// Stopping: |F(x+) - F(x_k)| <= tol |F(x+)| AND the prox-gradient mapping
/// t ||x+ - x_k||_inf <= stationarity_tol (first-order stationarity; zero exactly at a critical
/// point of F, for any t).
///
/// gist_working_set() solves GLM problems (dpx::losses::glm_loss) with a separable penalty by a
/// working-set strategy (as in celer / skglm): GIST on a growing subset W of coordinates, with a
/// full-gradient optimality check of every coordinate outside W between restricted solves. For
/// least squares the restricted problem is the exact quadratic (1/2) b^T G b - c^T b + ||y||^2/(2n)
/// with G = X_W^T X_W / n, so an inner GIST iteration costs O(|W|^2) instead of a pass over X.
/// The answer is a stationary point of the FULL problem (every coordinate passes the check).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/common.hpp"

namespace dpx::solvers {

/// Options of gist() and gist_working_set().
struct gist_options {
  std::int64_t max_iterations = 100000;  ///< GIST iterations (working set: total inner), >= 1
  double tol = 1e-12;                    ///< relative objective change for stopping, >= 0
  double stationarity_tol = 1e-10;       ///< bound on t ||x+ - x||_inf for stopping, >= 0
  int memory = 5;                        ///< m of the line search: 1 = monotone, > 1 nonmonotone
  double sigma = 1e-5;                   ///< sufficient-decrease constant, in (0, 1)
  double eta = 2.0;                      ///< curvature growth factor of the line search, > 1
  double t_min = 1e-30;                  ///< curvature clip, 0 < t_min <= t_initial <= t_max
  double t_max = 1e30;
  double t_initial = 1.0;     ///< curvature of the first iteration
  int max_line_search = 100;  ///< trials per iteration before giving up, >= 1
  /// gist_working_set only: size of the first working set (>= 1); it then at least doubles.
  std::int64_t working_set_initial = 10;
  checkpoint_options trace;
  /// Throws core::invalid_argument_error naming the field.
  void validate() const;
};

/// Penalty on the first `penalized` coordinates only; the remaining ones are free (e.g. an
/// unpenalised intercept stored last). A proximal_operator; prox acts coordinate-wise.
template <prox::separable_penalty P>
struct partially_penalized {
  P inner;                ///< the penalty on coordinates [0, penalized)
  std::size_t penalized;  ///< number of penalised leading coordinates
  void apply(std::span<const double> v, double step, std::span<double> out) const {
    core::check_size("solvers::partially_penalized::apply", "out", out.size(), v.size());
    for (std::size_t j = 0; j < v.size(); ++j)
      out[j] = j < penalized ? inner.prox(v[j], step) : v[j];
  }
  double value(std::span<const double> x) const {
    double s = 0;
    for (std::size_t j = 0; j < x.size() && j < penalized; ++j) s += inner.penalty(x[j]);
    return s;
  }
};

/// The quadratic L(b) = (1/2) b^T G b - c^T b + c0 (G symmetric, row-major w x w). A smooth_loss.
class quadratic_loss {
 public:
  quadratic_loss(std::vector<double> gram, std::vector<double> linear, double constant);
  std::size_t dimension() const noexcept { return c_.size(); }
  double value(std::span<const double> b) const;
  double value_and_gradient(std::span<const double> b, std::span<double> grad) const;

 private:
  std::vector<double> g_, c_;
  double c0_;
  mutable std::vector<double> gb_;
};

/// GIST on min L(x) + R(x) from x0 (size loss.dimension()). Deterministic; nonprivate.
template <smooth_loss Loss, prox::proximal_operator Penalty>
solve_result gist(const Loss& loss,
                  const Penalty& penalty,
                  std::span<const double> x0,
                  const gist_options& options);

/// Working-set GIST for a GLM with a separable penalty (see the file comment). The last
/// `unpenalized` coordinates (e.g. an intercept column of ones stored last) are not penalised
/// and always in the working set.
template <prox::separable_penalty Penalty>
solve_result gist_working_set(const losses::glm_loss& loss,
                              const Penalty& penalty,
                              std::span<const double> x0,
                              const gist_options& options,
                              std::size_t unpenalized = 0);

// ================================ implementation ==========================================

namespace detail {

/// Restricted problem on the columns `cols` of a GLM: the gathered design X_W (n x |W|,
/// row-major) and, for least squares, the Gram quadratic.
struct restricted_problem {
  std::vector<double> xw;      ///< n x |W| (not filled for least squares)
  std::vector<double> gram;    ///< |W| x |W| (least squares only)
  std::vector<double> linear;  ///< X_W^T y / n (least squares only)
  double constant = 0;         ///< ||y||^2 / (2n) (least squares only)
};
void build_restricted(const losses::glm_loss& loss,
                      std::span<const std::size_t> cols,
                      restricted_problem& out);

}  // namespace detail

template <smooth_loss Loss, prox::proximal_operator Penalty>
solve_result gist(const Loss& loss,
                  const Penalty& penalty,
                  std::span<const double> x0,
                  const gist_options& options) {
  const char* fn = "solvers::gist";
  options.validate();
  const std::size_t d = loss.dimension();
  core::check_size(fn, "x0", x0.size(), d);
  core::check_finite_span(fn, "x0", x0);
  detail::stopwatch clock;
  solve_result r;
  r.guarantee = "nonprivate";
  std::vector<double> x(x0.begin(), x0.end()), g(d), xp(d), gp(d), xn(d), gn(d), u(d);
  double f = loss.value_and_gradient(x, g) + penalty.value(x);
  r.gradient_evaluations = 1;
  r.objective_evaluations = 1;
  std::deque<double> hist{f};
  double t = options.t_initial;
  if (options.trace.enabled)
    detail::record(r, options.trace, clock, 0, 1.0 / t, 0, [&] { return f; });
  r.status = termination::max_iterations;
  r.message = "iteration budget reached";
  std::int64_t k = 0;
  for (k = 1; k <= options.max_iterations; ++k) {
    if (k > 1) {
      double ss = 0, sy = 0;
      for (std::size_t j = 0; j < d; ++j) {
        const double s = x[j] - xp[j];
        ss += s * s;
        sy += s * (g[j] - gp[j]);
      }
      if (sy > 0 && ss > 0) t = std::clamp(sy / ss, options.t_min, options.t_max);
    }
    const double ref = *std::max_element(hist.begin(), hist.end());
    std::int64_t trials = 0;
    double fn_val = 0, dist2 = 0;
    bool accepted = false;
    while (true) {
      ++trials;
      for (std::size_t j = 0; j < d; ++j) u[j] = x[j] - g[j] / t;
      penalty.apply(u, 1.0 / t, xn);
      fn_val = loss.value_and_gradient(xn, gn) + penalty.value(xn);
      dist2 = detail::squared_distance(xn, x);
      if (fn_val <= ref - 0.5 * options.sigma * t * dist2) {
        accepted = true;
        break;
      }
      if (trials >= options.max_line_search) break;
      t = std::min(t * options.eta, options.t_max);
    }
    r.gradient_evaluations += trials;
    r.objective_evaluations += trials;
    r.line_search_trials += trials;
    r.max_line_search_trials = std::max(r.max_line_search_trials, trials);
    if (!accepted) {
      ++r.line_search_failures;
      r.status = termination::line_search_failed;
      r.message = "line search hit max_line_search trials";
      r.iterations = k - 1;
      break;
    }
    double move = 0;
    for (std::size_t j = 0; j < d; ++j) move = std::fmax(move, std::fabs(xn[j] - x[j]));
    const double f_old = f;
    xp.swap(x);
    gp.swap(g);
    x.swap(xn);
    g.swap(gn);
    f = fn_val;
    hist.push_back(f);
    if (static_cast<int>(hist.size()) > options.memory) hist.pop_front();
    r.iterations = k;
    if (!std::isfinite(f) || !detail::all_finite(x)) {
      r.status = termination::diverged;
      r.message = "non-finite iterate or objective";
      break;
    }
    const bool done =
        std::fabs(f_old - f) <= options.tol * std::fabs(f) && t * move <= options.stationarity_tol;
    if (options.trace.is_checkpoint(k) || done || k == options.max_iterations)
      detail::record(r, options.trace, clock, k, 1.0 / t, trials, [&] { return f; });
    if (done) {
      r.status = termination::converged;
      r.message = "relative objective change and prox-gradient mapping below tolerance";
      break;
    }
  }
  r.x = std::move(x);
  r.objective = f;
  r.seconds = clock.elapsed();
  return r;
}

template <prox::separable_penalty Penalty>
solve_result gist_working_set(const losses::glm_loss& loss,
                              const Penalty& penalty,
                              std::span<const double> x0,
                              const gist_options& options,
                              std::size_t unpenalized) {
  const char* fn = "solvers::gist_working_set";
  options.validate();
  const std::size_t d = loss.dimension();
  core::check_size(fn, "x0", x0.size(), d);
  core::check_finite_span(fn, "x0", x0);
  if (unpenalized > d) core::throw_invalid(fn, "unpenalized", double(unpenalized), "must be <= d");
  const std::size_t pen = d - unpenalized;
  const partially_penalized<Penalty> full_penalty{penalty, pen};
  detail::stopwatch clock;
  solve_result r;
  r.guarantee = "nonprivate";
  std::vector<double> x(x0.begin(), x0.end()), g(d);
  std::vector<char> in_w(d, 0);
  std::vector<std::size_t> w_pen;  // penalised working-set coordinates, in insertion order
  for (std::size_t j = 0; j < pen; ++j)
    if (x[j] != 0) {
      in_w[j] = 1;
      w_pen.push_back(j);
    }
  // Violation score of a coordinate outside W (where x_j = 0 unless x0 said otherwise): the
  // prox-gradient mapping |prox_{s phi}(x_j - s g_j) - x_j| / s at a tiny step s, which tends to
  // the distance from -g_j to the subdifferential of phi at 0 (e.g. (|g_j| - lambda)_+ for L1,
  // MCP, SCAD).
  const double s = 1e-8;
  const auto score = [&](std::size_t j) {
    return std::fabs(penalty.prox(x[j] - s * g[j], s) - x[j]) / s;
  };
  const double kkt_tol = std::fmax(options.stationarity_tol, 1e-300);
  std::int64_t total_inner = 0;
  double f = 0;
  std::vector<std::pair<double, std::size_t>> viol;
  detail::restricted_problem rp;
  r.status = termination::max_iterations;
  r.message = "iteration budget reached";
  bool inner_ok = false;
  for (int outer = 0;; ++outer) {
    f = loss.value_and_gradient(x, g) + full_penalty.value(x);
    ++r.gradient_evaluations;
    ++r.objective_evaluations;
    if (!std::isfinite(f)) {
      r.status = termination::diverged;
      r.message = "non-finite objective";
      break;
    }
    if (options.trace.enabled)
      detail::record(r, options.trace, clock, total_inner, std::nan(""), 0, [&] { return f; });
    viol.clear();
    for (std::size_t j = 0; j < pen; ++j) {
      if (in_w[j]) continue;
      const double v = score(j);
      if (v > kkt_tol) viol.emplace_back(v, j);
    }
    if (viol.empty() && inner_ok) {
      r.status = termination::converged;
      r.message = "working-set GIST converged; every coordinate passes the optimality check";
      break;
    }
    if (total_inner >= options.max_iterations) break;
    const std::size_t add = std::min<std::size_t>(
        viol.size(),
        std::max<std::size_t>(static_cast<std::size_t>(options.working_set_initial), w_pen.size()));
    std::partial_sort(viol.begin(),
                      viol.begin() + static_cast<std::ptrdiff_t>(add),
                      viol.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = 0; i < add; ++i) {
      in_w[viol[i].second] = 1;
      w_pen.push_back(viol[i].second);
    }
    std::vector<std::size_t> cols = w_pen;
    std::sort(cols.begin(), cols.end());
    const std::size_t wp = cols.size();
    for (std::size_t j = pen; j < d; ++j) cols.push_back(j);
    const std::size_t wn = cols.size();
    std::vector<double> xw(wn);
    for (std::size_t i = 0; i < wn; ++i) xw[i] = x[cols[i]];
    gist_options inner = options;
    inner.max_iterations = options.max_iterations - total_inner;
    inner.trace.enabled = false;
    const partially_penalized<Penalty> wpen{penalty, wp};
    solve_result ir;
    detail::build_restricted(loss, cols, rp);
    if (loss.kind() == losses::glm_kind::least_squares) {
      const quadratic_loss q(rp.gram, rp.linear, rp.constant);
      ir = gist(q, wpen, xw, inner);
    } else {
      const losses::dataset_view view{rp.xw, loss.data().y, loss.size(), wn};
      const losses::glm_loss sub(loss.kind(), view, loss.parameter());
      ir = gist(sub, wpen, xw, inner);
      r.gradient_evaluations += ir.gradient_evaluations;
    }
    total_inner += ir.iterations;
    r.line_search_trials += ir.line_search_trials;
    r.max_line_search_trials = std::max(r.max_line_search_trials, ir.max_line_search_trials);
    r.line_search_failures += ir.line_search_failures;
    inner_ok = ir.status == termination::converged;
    for (std::size_t i = 0; i < wn; ++i) x[cols[i]] = ir.x[i];
    if (ir.status == termination::diverged) {
      r.status = termination::diverged;
      r.message = "restricted solve diverged";
      break;
    }
    if (ir.status == termination::line_search_failed) {
      r.status = termination::line_search_failed;
      r.message = "restricted solve: " + ir.message;
      f = loss.value(x) + full_penalty.value(x);
      break;
    }
  }
  r.iterations = total_inner;
  r.x = std::move(x);
  r.objective = f;
  r.seconds = clock.elapsed();
  return r;
}

}  // namespace dpx::solvers
