#pragma once
/// \file
/// Proximal operators and Euclidean projections.
///
/// For a penalty f and a step s > 0, the proximal operator is
///     prox_{s f}(v) = argmin_x  f(x) + ||x - v||^2 / (2 s).
/// Every type here is a small validated value type satisfying dpx::prox::proximal_operator:
///   apply(v, step, out)  writes prox_{step f}(v) into out (out may alias v; sizes must match)
///   value(x)             f(x), +infinity outside the domain of an indicator
/// Separable penalties also expose scalar prox(u, step) and penalty(t) for fused loops.
///
/// Nonconvex penalties (MCP, SCAD, capped L1) have a set-valued prox where the 1-D objective has
/// two global minimisers; dpx breaks ties toward the smaller |x| (toward 0), as ncvreg does.

#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace dpx::prox {

/// The contract solvers rely on.
template <class P>
concept proximal_operator =
    requires(const P& p, std::span<const double> v, double step, std::span<double> out) {
  p.apply(v, step, out);
  { p.value(v) } -> std::convertible_to<double>;
};

/// A separable penalty f(x) = sum_j phi(x_j) with a scalar prox.
template <class P>
concept separable_penalty = proximal_operator<P> && requires(const P& p, double u, double s) {
  { p.prox(u, s) } -> std::convertible_to<double>;
  { p.penalty(u) } -> std::convertible_to<double>;
};

namespace detail {
void check_step(const char* function, double step);
void check_sizes(const char* function, std::size_t in, std::size_t out);
inline double soft(double u, double t) {
  const double a = std::fabs(u) - t;
  return a > 0 ? std::copysign(a, u) : 0.0;
}
template <class P>
void apply_separable(
    const P& p, const char* fn, std::span<const double> v, double step, std::span<double> out) {
  check_step(fn, step);
  check_sizes(fn, v.size(), out.size());
  for (std::size_t j = 0; j < v.size(); ++j) out[j] = p.prox(v[j], step);
}
template <class P>
double value_separable(const P& p, std::span<const double> x) {
  double s = 0;
  for (double t : x) s += p.penalty(t);
  return s;
}
}  // namespace detail

/// f = 0: prox is the identity (unpenalised problems).
struct zero_penalty {
  double prox(double u, double /*step*/) const noexcept { return u; }
  double penalty(double /*t*/) const noexcept { return 0.0; }
  void apply(std::span<const double> v, double step, std::span<double> out) const {
    detail::apply_separable(*this, "prox::zero_penalty::apply", v, step, out);
  }
  double value(std::span<const double> x) const { return detail::value_separable(*this, x); }
};

/// f(x) = lambda ||x||_1. prox = soft thresholding at step * lambda.
class l1_norm {
 public:
  /// lambda >= 0 (finite).
  explicit l1_norm(double lambda);
  double lambda() const noexcept { return lambda_; }
  double prox(double u, double step) const noexcept { return detail::soft(u, step * lambda_); }
  double penalty(double t) const noexcept { return lambda_ * std::fabs(t); }
  void apply(std::span<const double> v, double step, std::span<double> out) const {
    detail::apply_separable(*this, "prox::l1_norm::apply", v, step, out);
  }
  double value(std::span<const double> x) const { return detail::value_separable(*this, x); }

 private:
  double lambda_;
};

/// f(x) = (lambda / 2) ||x||_2^2. prox = v / (1 + step * lambda).
class squared_l2 {
 public:
  explicit squared_l2(double lambda);
  double lambda() const noexcept { return lambda_; }
  double prox(double u, double step) const noexcept { return u / (1.0 + step * lambda_); }
  double penalty(double t) const noexcept { return 0.5 * lambda_ * t * t; }
  void apply(std::span<const double> v, double step, std::span<double> out) const {
    detail::apply_separable(*this, "prox::squared_l2::apply", v, step, out);
  }
  double value(std::span<const double> x) const { return detail::value_separable(*this, x); }

 private:
  double lambda_;
};

/// Elastic net f(x) = l1 ||x||_1 + (l2 / 2) ||x||_2^2 (Zou & Hastie 2005, naive form).
/// prox = soft(v, step l1) / (1 + step l2).
class elastic_net {
 public:
  elastic_net(double l1, double l2);
  double l1() const noexcept { return l1_; }
  double l2() const noexcept { return l2_; }
  double prox(double u, double step) const noexcept {
    return detail::soft(u, step * l1_) / (1.0 + step * l2_);
  }
  double penalty(double t) const noexcept { return l1_ * std::fabs(t) + 0.5 * l2_ * t * t; }
  void apply(std::span<const double> v, double step, std::span<double> out) const {
    detail::apply_separable(*this, "prox::elastic_net::apply", v, step, out);
  }
  double value(std::span<const double> x) const { return detail::value_separable(*this, x); }

 private:
  double l1_, l2_;
};

/// Minimax concave penalty (Zhang 2010) with level lambda > 0 and concavity gamma > 1:
///   phi(t) = lambda |t| - t^2 / (2 gamma)  if |t| <= gamma lambda,   gamma lambda^2 / 2 otherwise.
/// prox_{s phi}(u), a = |u| (docs/theory/istdp.md; Yuan & Peng 2023's closed form is correct only
/// for s = 1):
///   gamma > s:  0 if a <= s lambda; sign(u)(a - s lambda)/(1 - s/gamma) if a <= gamma lambda;
///               u otherwise (firm thresholding);
///   gamma <= s: hard threshold: 0 if a <= lambda sqrt(s gamma) (ties to 0), u otherwise.
class mcp {
 public:
  mcp(double lambda, double gamma);
  double lambda() const noexcept { return lambda_; }
  double gamma() const noexcept { return gamma_; }
  double prox(double u, double step) const noexcept {
    const double a = std::fabs(u);
    if (gamma_ > step) {
      if (a <= step * lambda_) return 0.0;
      if (a <= gamma_ * lambda_)
        return std::copysign((a - step * lambda_) / (1.0 - step / gamma_), u);
      return u;
    }
    return a <= lambda_ * std::sqrt(step * gamma_) ? 0.0 : u;
  }
  double penalty(double t) const noexcept {
    const double a = std::fabs(t);
    return a <= gamma_ * lambda_ ? lambda_ * a - a * a / (2.0 * gamma_)
                                 : 0.5 * gamma_ * lambda_ * lambda_;
  }
  void apply(std::span<const double> v, double step, std::span<double> out) const {
    detail::apply_separable(*this, "prox::mcp::apply", v, step, out);
  }
  double value(std::span<const double> x) const { return detail::value_separable(*this, x); }

 private:
  double lambda_, gamma_;
};

/// Smoothly clipped absolute deviation (Fan & Li 2001) with lambda > 0 and a = gamma > 2:
///   phi(t) = lambda |t|                                   if |t| <= lambda
///          = (2 gamma lambda |t| - t^2 - lambda^2) / (2 (gamma - 1))  if lambda < |t| <= gamma
///          lambda = lambda^2 (gamma + 1) / 2                     otherwise.
/// prox_{s phi}: for s < gamma - 1 the 1-D problem is convex and (generalising Fan & Li's s = 1
/// rule) prox = soft(u, s lambda) if |u| <= (1 + s) lambda;
/// ((gamma - 1) u - sign(u) s gamma lambda) / (gamma - 1 - s) if |u| <= gamma lambda; u otherwise.
/// For s >= gamma - 1 the global minimiser is found exactly among the per-piece candidates.
class scad {
 public:
  scad(double lambda, double gamma);
  double lambda() const noexcept { return lambda_; }
  double gamma() const noexcept { return gamma_; }
  double prox(double u, double step) const noexcept;
  double penalty(double t) const noexcept {
    const double a = std::fabs(t);
    if (a <= lambda_) return lambda_ * a;
    if (a <= gamma_ * lambda_) {
      return (2.0 * gamma_ * lambda_ * a - a * a - lambda_ * lambda_) / (2.0 * (gamma_ - 1.0));
    }
    return 0.5 * lambda_ * lambda_ * (gamma_ + 1.0);
  }
  void apply(std::span<const double> v, double step, std::span<double> out) const {
    detail::apply_separable(*this, "prox::scad::apply", v, step, out);
  }
  double value(std::span<const double> x) const { return detail::value_separable(*this, x); }

 private:
  double lambda_, gamma_;
};

/// Capped L1 (Zhang 2010b): phi(t) = lambda min(|t|, theta), lambda >= 0, theta > 0.
/// prox: the better of the two pieces' minimisers (ties toward 0).
class capped_l1 {
 public:
  capped_l1(double lambda, double theta);
  double lambda() const noexcept { return lambda_; }
  double theta() const noexcept { return theta_; }
  double prox(double u, double step) const noexcept;
  double penalty(double t) const noexcept { return lambda_ * std::fmin(std::fabs(t), theta_); }
  void apply(std::span<const double> v, double step, std::span<double> out) const {
    detail::apply_separable(*this, "prox::capped_l1::apply", v, step, out);
  }
  double value(std::span<const double> x) const { return detail::value_separable(*this, x); }

 private:
  double lambda_, theta_;
};

// ---- projections: prox of the indicator of a closed convex set (any step) ----------------

/// Indicator values use this slack so that a freshly projected point counts as inside.
inline constexpr double feasibility_tolerance = 1e-9;

/// Ball {x : ||x - center||_2 <= radius} centred at 0. Projection x * min(1, r / ||x||).
class l2_ball {
 public:
  explicit l2_ball(double radius);
  double radius() const noexcept { return radius_; }
  void apply(std::span<const double> v, double step, std::span<double> out) const;
  double value(std::span<const double> x) const;

 private:
  double radius_;
};

/// Box [lower, upper]^d (lower < upper; infinite bounds allowed). Projection: clamp.
class box {
 public:
  box(double lower, double upper);
  double lower() const noexcept { return lower_; }
  double upper() const noexcept { return upper_; }
  void apply(std::span<const double> v, double step, std::span<double> out) const;
  double value(std::span<const double> x) const;

 private:
  double lower_, upper_;
};

/// Simplex {x >= 0 : sum x = total}, total > 0. Projection by Condat's algorithm
/// (Condat 2016, "Fast projection onto the simplex and the l1 ball", Math. Program. 158),
/// observed O(d) (worst case O(d^2)).
class simplex {
 public:
  explicit simplex(double total = 1.0);
  double total() const noexcept { return total_; }
  void apply(std::span<const double> v, double step, std::span<double> out) const;
  double value(std::span<const double> x) const;

 private:
  double total_;
};

/// L1 ball {x : ||x||_1 <= radius}. Projection: identity inside; otherwise project |v| onto the
/// simplex of total `radius` (Condat 2016) and restore the signs (Duchi et al. 2008, Lemma 3).
class l1_ball {
 public:
  explicit l1_ball(double radius);
  double radius() const noexcept { return radius_; }
  void apply(std::span<const double> v, double step, std::span<double> out) const;
  double value(std::span<const double> x) const;

 private:
  double radius_;
};

/// Condat's threshold tau for projecting y onto {x >= 0, sum x = total}: x = max(y - tau, 0).
double simplex_threshold(std::span<const double> y, double total);

static_assert(separable_penalty<zero_penalty>);
static_assert(separable_penalty<l1_norm>);
static_assert(separable_penalty<squared_l2>);
static_assert(separable_penalty<elastic_net>);
static_assert(separable_penalty<mcp>);
static_assert(separable_penalty<scad>);
static_assert(separable_penalty<capped_l1>);
static_assert(proximal_operator<l2_ball>);
static_assert(proximal_operator<box>);
static_assert(proximal_operator<simplex>);
static_assert(proximal_operator<l1_ball>);

}  // namespace dpx::prox
