#pragma once
/// \file
/// DP-SGD (Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar & Zhang 2016, Algorithm 1) with
/// Poisson subsampling, per-example clipping and Gaussian noise, and its proximal variant
/// (theta <- prox_{eta_t R}(theta - eta_t g~) for L1 / MCP / SCAD penalties or projections).
///
/// Step t: every example joins the batch B_t independently with probability q (Poisson
/// subsampling; one uniform per example from the rng); g~ = (sum_{i in B_t} clip_G(grad l_i) +
/// N(0, (sigma G)^2 I)) / B (B the expected batch size, as Opacus does, so the noisy sum is the
/// private release with sensitivity G); theta <- prox_{eta_t R}(theta - eta_t g~).
/// Denominator B: options.expected_batch_size when set (> 0): a PUBLIC constant, so the division
/// is post-processing and the add/remove guarantee holds as stated. When 0 (the default), B =
/// q n with n = loss.size(): the dataset size is then TREATED AS PUBLIC (n differs between
/// add/remove neighbours, so the guarantee holds only under the convention that n is known; the
/// result's guarantee text says so). Pass expected_batch_size = q n_bar for a public n_bar.
/// Privacy: each step is the Poisson-subsampled Gaussian mechanism with rate q and noise
/// multiplier sigma under ADD/REMOVE neighbours; events: one subsampled_gaussian_event{q, sigma}
/// per step (none when sigma = 0). dpx::accounting's RDP accountant (Mironov, Talwar & Zhang
/// 2019) or a PLD accountant turns them into (epsilon, delta). The penalty / projection and the
/// averaging are post-processing.

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/rounded_gaussian.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/common.hpp"
#include "dpx/solvers/pgd.hpp"

namespace dpx::solvers {

/// Step-size schedule eta_t.
enum class step_schedule {
  constant,      ///< eta_t = eta
  inverse_sqrt,  ///< eta_t = eta / sqrt(t)
};

/// Options of dp_sgd().
struct dp_sgd_options {
  std::int64_t iterations = 1000;  ///< steps, >= 1
  double step_size = 0.1;          ///< eta, > 0
  step_schedule schedule = step_schedule::constant;
  double sampling_rate = 0.01;    ///< q in (0, 1]
  double clip_norm = 1.0;         ///< G > 0
  double noise_multiplier = 1.0;  ///< sigma >= 0 (noise sd sigma G on the batch sum); 0 = none
  iterate_output output = iterate_output::last;
  /// B, a PUBLIC denominator for the noisy batch sum (e.g. q n_bar for a public size n_bar); >= 0
  /// finite; 0 = q * loss.size(), which treats the dataset size n as public (see the file comment).
  double expected_batch_size = 0;
  /// float_safe (default): each example's clipped gradient is truncated to the grid
  /// u = 2^(floor(log2 G) - 30) and summed EXACTLY in integers (an example whose integer vector
  /// has exact norm above K = floor(G/u) contributes nothing, so the sum's add/remove
  /// sensitivity is K u <= G exactly, floating point included); the sum is released by
  /// mechanisms::rounded_gaussian with noise sd >= sigma K u, which is post-processing of the
  /// continuous Gaussian mechanism. Events: subsampled_gaussian_event{q', sigma} with q' =
  /// ceil(q 2^53) 2^-53 >= q the inclusion probability actually drawn (u01 < q). So the
  /// float-safe run has exactly the research-grade run's accounting, amplification included
  /// (docs/theory/float_safe_dp_sgd.md). research_grade: double Box–Muller noise on the
  /// floating-point sum, subsampled_gaussian_event{q, sigma} per step.
  mechanisms::noise_kind noise_kind = mechanisms::noise_kind::float_safe;
  checkpoint_options trace;
  /// Throws core::invalid_argument_error naming the field.
  void validate() const;
};

namespace detail {
/// Exact integer aggregation of clipped per-example vectors (float-safe DP-SGD).
struct grid_aggregate {
  double unit = 1;         ///< u = 2^(floor(log2 G) - 30)
  std::int64_t bound = 1;  ///< K = floor(G / u) in [2^30, 2^31): every added vector has norm <= K
  double clip = 1;         ///< G (1 - 2^-30), the clip norm handed to the loss
  /// The grid for clip norm G (finite, > 0).
  static grid_aggregate for_clip(double clip_norm);
  /// Adds trunc(v / u) to sum when its exact (integer) norm is <= K; returns whether it did.
  bool add(std::span<const double> v, std::span<std::int64_t> sum) const;
};
/// P(u01 < q) for u01 = m 2^-53, m uniform in [0, 2^53): ceil(q 2^53) 2^-53 (1 for q >= 1).
double poisson_rate_as_drawn(double q) noexcept;
/// sigma * x rounded up (the smallest double >= the exact product), sigma, x > 0.
double product_rounded_up(double sigma, double x) noexcept;
}  // namespace detail

/// DP-SGD / proximal DP-SGD from theta0.
template <clippable_loss Loss, prox::proximal_operator Penalty, std::uniform_random_bit_generator G>
solve_result dp_sgd(const Loss& loss,
                    const Penalty& penalty,
                    std::span<const double> theta0,
                    const dp_sgd_options& options,
                    G& rng);

// ================================ implementation ==========================================

template <clippable_loss Loss, prox::proximal_operator Penalty, std::uniform_random_bit_generator G>
solve_result dp_sgd(const Loss& loss,
                    const Penalty& penalty,
                    std::span<const double> theta0,
                    const dp_sgd_options& options,
                    G& rng) {
  const char* fn = "solvers::dp_sgd";
  options.validate();
  const std::size_t d = loss.dimension(), n = loss.size();
  core::check_size(fn, "theta0", theta0.size(), d);
  core::check_finite_span(fn, "theta0", theta0);
  detail::stopwatch clock;
  solve_result r;
  const double q = options.sampling_rate, sigma = options.noise_multiplier;
  const bool noisy = sigma > 0;
  r.relation = core::neighbouring::add_remove;
  r.sensitivity = options.clip_norm;
  r.noise_scale = sigma * options.clip_norm;
  const bool public_denominator = options.expected_batch_size > 0;
  const bool safe = options.noise_kind == mechanisms::noise_kind::float_safe;
  r.guarantee = noisy ? std::string(safe ? "private under add/remove: Poisson-subsampled "
                                           "Gaussian releases, float-safe (exact integer "
                                           "aggregate, exactly rounded Gaussian; see "
                                           "privacy_events; account with RDP or PLD); "
                                         : "private under add/remove: Poisson-subsampled "
                                           "Gaussian releases (see privacy_events; account with "
                                           "RDP or PLD); ") +
                            (public_denominator
                                 ? "denominator = PUBLIC expected batch size " +
                                       core::format_double(options.expected_batch_size)
                                 : "denominator q n with n = " + std::to_string(n) +
                                       " the dataset size, which is thereby treated as PUBLIC (set "
                                       "expected_batch_size for a public denominator)")
                      : "nonprivate (noise_multiplier = 0)";
  const detail::gaussian_release noise(mechanisms::noise_kind::research_grade,
                                       noisy ? r.noise_scale : 1.0,
                                       options.clip_norm,
                                       core::neighbouring::add_remove);
  // Float-safe: the exact integer aggregate and its rounded Gaussian (see dp_sgd_options).
  const auto grid = detail::grid_aggregate::for_clip(options.clip_norm);
  const double grid_sensitivity = static_cast<double>(grid.bound) * grid.unit;  // exact
  std::optional<mechanisms::rounded_gaussian> safe_noise;
  if (safe && noisy) {
    safe_noise.emplace(mechanisms::rounded_gaussian::from_sigma(
        detail::product_rounded_up(sigma, grid_sensitivity),
        grid_sensitivity,
        core::neighbouring::add_remove));
    r.sensitivity = grid_sensitivity;
    r.noise_scale = safe_noise->sigma();
  }
  const double q_drawn = detail::poisson_rate_as_drawn(q);
  std::vector<std::int64_t> grid_sum(safe_noise ? d : 0);
  std::vector<double> example(safe_noise ? d : 0);
  std::size_t one = 0;
  const double denom =
      public_denominator ? options.expected_batch_size : q * static_cast<double>(n);
  std::vector<double> th(theta0.begin(), theta0.end()), g(d), u(d), avg(d, 0.0), unif(n);
  std::vector<std::size_t> batch;
  batch.reserve(static_cast<std::size_t>(q * static_cast<double>(n) * 1.5) + 16);
  const bool averaging = options.output == iterate_output::average;
  const auto objective = [&](std::span<const double> x) {
    return loss.value(x) + penalty.value(x);
  };
  if (options.trace.enabled)
    detail::record(r, options.trace, clock, 0, options.step_size, 0, [&] { return objective(th); });
  r.status = termination::max_iterations;
  r.message = "ran all steps";
  for (std::int64_t t = 1; t <= options.iterations; ++t) {
    batch.clear();
    if (q >= 1.0) {
      for (std::size_t i = 0; i < n; ++i) batch.push_back(i);
    } else {
      rng::fill_uniform01(rng, std::span<double>(unif));
      for (std::size_t i = 0; i < n; ++i)
        if (unif[i] < q) batch.push_back(i);
    }
    if (safe_noise) {
      std::fill(grid_sum.begin(), grid_sum.end(), 0);
      for (const std::size_t i : batch) {
        one = i;
        loss.clipped_gradient_sum(th, std::span<const std::size_t>(&one, 1), grid.clip, example);
        grid.add(example, grid_sum);
      }
      safe_noise->privatize_grid(grid_sum, grid.unit, g, rng);
      r.privacy_events.push_back(core::subsampled_gaussian_event{q_drawn, sigma});
    } else {
      loss.clipped_gradient_sum(th, batch, options.clip_norm, g);
      if (noisy) {
        noise.privatize(g, rng);
        r.privacy_events.push_back(core::subsampled_gaussian_event{q, sigma});
      }
    }
    ++r.gradient_evaluations;
    const double eta = options.schedule == step_schedule::constant
                           ? options.step_size
                           : options.step_size / std::sqrt(static_cast<double>(t));
    for (std::size_t j = 0; j < d; ++j) u[j] = th[j] - eta * g[j] / denom;
    penalty.apply(u, eta, th);
    if (!detail::end_averaged_iteration(
            r, options.trace, clock, t, options.iterations, eta, 0, th, avg, averaging, objective))
      break;
  }
  detail::finish_averaged(r, options.trace, clock, th, avg, averaging, objective);
  return r;
}

}  // namespace dpx::solvers
