#include "dpx/prox/prox.hpp"

#include <algorithm>
#include <numeric>

#include "dpx/core/error.hpp"

namespace dpx::prox {

namespace detail {
void check_step(const char* function, double step) { core::check_positive(function, "step", step); }
void check_sizes(const char* function, std::size_t in, std::size_t out) {
  core::check_size(function, "out", out, in);
}
}  // namespace detail

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// Minimiser of h(t) = (t - a)^2 / 2 + step * phi(t) over the candidates, in increasing order of t
// so that strict comparison breaks ties toward the smaller |t|.
template <class Phi>
double best_candidate(double a, double step, const Phi& phi, std::initializer_list<double> cands) {
  double best_t = 0, best_h = kInf;
  std::vector<double> c(cands);
  std::sort(c.begin(), c.end());
  for (double t : c) {
    const double h = 0.5 * (t - a) * (t - a) + step * phi(t);
    if (h < best_h) {
      best_h = h;
      best_t = t;
    }
  }
  return best_t;
}
}  // namespace

l1_norm::l1_norm(double lambda) : lambda_(lambda) {
  core::check_nonnegative("prox::l1_norm", "lambda", lambda);
}

squared_l2::squared_l2(double lambda) : lambda_(lambda) {
  core::check_nonnegative("prox::squared_l2", "lambda", lambda);
}

elastic_net::elastic_net(double l1, double l2) : l1_(l1), l2_(l2) {
  core::check_nonnegative("prox::elastic_net", "l1", l1);
  core::check_nonnegative("prox::elastic_net", "l2", l2);
}

mcp::mcp(double lambda, double gamma) : lambda_(lambda), gamma_(gamma) {
  core::check_positive("prox::mcp", "lambda", lambda);
  if (!(std::isfinite(gamma) && gamma > 1)) {
    core::throw_invalid("prox::mcp", "gamma", gamma, "must be finite and > 1");
  }
}

scad::scad(double lambda, double gamma) : lambda_(lambda), gamma_(gamma) {
  core::check_positive("prox::scad", "lambda", lambda);
  if (!(std::isfinite(gamma) && gamma > 2)) {
    core::throw_invalid("prox::scad", "gamma", gamma, "must be finite and > 2");
  }
}

double scad::prox(double u, double step) const noexcept {
  const double a = std::fabs(u);
  const double l = lambda_, g = gamma_, s = step;
  double t;
  if (s < g - 1) {
    if (a <= (1 + s) * l) {
      t = std::fmax(a - s * l, 0.0);
    } else if (a <= g * l) {
      t = ((g - 1) * a - s * g * l) / (g - 1 - s);
    } else {
      t = a;
    }
  } else {
    // Middle piece concave (or linear): its minimum is at an end point.
    const auto phi = [this](double x) { return penalty(x); };
    t = best_candidate(
        a, s, phi, {0.0, std::clamp(a - s * l, 0.0, l), l, g * l, std::fmax(a, g * l)});
  }
  return t == 0 ? 0.0 : std::copysign(t, u);
}

capped_l1::capped_l1(double lambda, double theta) : lambda_(lambda), theta_(theta) {
  core::check_nonnegative("prox::capped_l1", "lambda", lambda);
  core::check_positive("prox::capped_l1", "theta", theta);
}

double capped_l1::prox(double u, double step) const noexcept {
  const double a = std::fabs(u);
  const auto phi = [this](double x) { return penalty(x); };
  const double t = best_candidate(
      a, step, phi, {std::clamp(a - step * lambda_, 0.0, theta_), std::fmax(a, theta_)});
  return t == 0 ? 0.0 : std::copysign(t, u);
}

// ---- projections ------------------------------------------------------------------------

l2_ball::l2_ball(double radius) : radius_(radius) {
  core::check_positive("prox::l2_ball", "radius", radius);
}

void l2_ball::apply(std::span<const double> v, double step, std::span<double> out) const {
  detail::check_step("prox::l2_ball::apply", step);
  detail::check_sizes("prox::l2_ball::apply", v.size(), out.size());
  double ss = 0;
  for (double x : v) ss += x * x;
  const double norm = std::sqrt(ss);
  const double scale = norm > radius_ ? radius_ / norm : 1.0;
  for (std::size_t j = 0; j < v.size(); ++j) out[j] = v[j] * scale;
}

double l2_ball::value(std::span<const double> x) const {
  double ss = 0;
  for (double t : x) ss += t * t;
  return std::sqrt(ss) <= radius_ * (1 + feasibility_tolerance) ? 0.0 : kInf;
}

box::box(double lower, double upper) : lower_(lower), upper_(upper) {
  if (std::isnan(lower)) core::throw_invalid("prox::box", "lower", lower, "must not be NaN");
  if (std::isnan(upper)) core::throw_invalid("prox::box", "upper", upper, "must not be NaN");
  if (!(lower < upper)) {
    core::throw_invalid(
        "prox::box", "upper", upper, "must exceed lower = " + core::format_double(lower));
  }
}

void box::apply(std::span<const double> v, double step, std::span<double> out) const {
  detail::check_step("prox::box::apply", step);
  detail::check_sizes("prox::box::apply", v.size(), out.size());
  for (std::size_t j = 0; j < v.size(); ++j) out[j] = std::clamp(v[j], lower_, upper_);
}

double box::value(std::span<const double> x) const {
  const double tl = feasibility_tolerance * std::fmax(1.0, std::fabs(lower_));
  const double tu = feasibility_tolerance * std::fmax(1.0, std::fabs(upper_));
  for (double t : x)
    if (!(t >= lower_ - tl && t <= upper_ + tu)) return kInf;
  return 0.0;
}

double simplex_threshold(std::span<const double> y, double total) {
  core::check_nonempty_finite_span("prox::simplex_threshold", "y", y);
  core::check_positive("prox::simplex_threshold", "total", total);
  // Condat (2016), Section 3: a single pass maintaining the candidate set v and its threshold
  // rho = (sum v - total) / |v|, then a clean-up pass over the set put aside (vt), then removal
  // of elements below rho until stable.
  std::vector<double> v, vt;
  v.reserve(y.size());
  v.push_back(y[0]);
  double rho = y[0] - total;
  for (std::size_t n = 1; n < y.size(); ++n) {
    const double yn = y[n];
    if (yn > rho) {
      rho += (yn - rho) / static_cast<double>(v.size() + 1);
      if (rho > yn - total) {
        v.push_back(yn);
      } else {
        vt.insert(vt.end(), v.begin(), v.end());
        v.assign(1, yn);
        rho = yn - total;
      }
    }
  }
  for (double yy : vt) {
    if (yy > rho) {
      v.push_back(yy);
      rho += (yy - rho) / static_cast<double>(v.size());
    }
  }
  bool changed = true;
  while (changed) {
    changed = false;
    std::size_t m = v.size(), w = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double yy = v[i];
      if (yy <= rho && m > 1) {
        rho += (rho - yy) / static_cast<double>(m - 1);
        --m;
        changed = true;
      } else {
        v[w++] = yy;
      }
    }
    v.resize(w);
  }
  return rho;
}

simplex::simplex(double total) : total_(total) {
  core::check_positive("prox::simplex", "total", total);
}

void simplex::apply(std::span<const double> v, double step, std::span<double> out) const {
  detail::check_step("prox::simplex::apply", step);
  detail::check_sizes("prox::simplex::apply", v.size(), out.size());
  const double tau = simplex_threshold(v, total_);
  for (std::size_t j = 0; j < v.size(); ++j) out[j] = std::fmax(v[j] - tau, 0.0);
}

double simplex::value(std::span<const double> x) const {
  double sum = 0;
  for (double t : x) {
    if (!(t >= -feasibility_tolerance)) return kInf;
    sum += t;
  }
  return std::fabs(sum - total_) <= feasibility_tolerance * std::fmax(1.0, total_) ? 0.0 : kInf;
}

l1_ball::l1_ball(double radius) : radius_(radius) {
  core::check_positive("prox::l1_ball", "radius", radius);
}

void l1_ball::apply(std::span<const double> v, double step, std::span<double> out) const {
  detail::check_step("prox::l1_ball::apply", step);
  detail::check_sizes("prox::l1_ball::apply", v.size(), out.size());
  double norm1 = 0;
  for (double x : v) norm1 += std::fabs(x);
  if (norm1 <= radius_) {
    if (out.data() != v.data()) std::copy(v.begin(), v.end(), out.begin());
    return;
  }
  std::vector<double> mag(v.size());
  for (std::size_t j = 0; j < v.size(); ++j) mag[j] = std::fabs(v[j]);
  const double tau = simplex_threshold(mag, radius_);
  for (std::size_t j = 0; j < v.size(); ++j) {
    const double t = std::fmax(mag[j] - tau, 0.0);
    out[j] = t == 0 ? 0.0 : std::copysign(t, v[j]);
  }
}

double l1_ball::value(std::span<const double> x) const {
  double norm1 = 0;
  for (double t : x) norm1 += std::fabs(t);
  return norm1 <= radius_ * (1 + feasibility_tolerance) ? 0.0 : kInf;
}

}  // namespace dpx::prox
