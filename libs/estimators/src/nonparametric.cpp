#include "dpx/estimators/nonparametric.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "dpx/core/error.hpp"

namespace dpx::estimators {

kernel_constants constants(kernel_kind k) noexcept {
  if (k == kernel_kind::box) return {0.5, 1.0, 0.5};
  const double s2pi = std::sqrt(2.0 * std::numbers::pi);
  return {1.0 / s2pi, 1.0 / (s2pi * std::sqrt(std::numbers::e)), std::sqrt(2.0 / std::numbers::pi)};
}

double kernel_value(kernel_kind k, double u) noexcept {
  if (k == kernel_kind::box) return std::abs(u) <= 1.0 ? 0.5 : 0.0;
  return std::exp(-0.5 * u * u) / std::sqrt(2.0 * std::numbers::pi);
}

void priestley_chao_options::validate() const {
  constexpr const char* fn = "priestley_chao";
  core::check_positive(fn, "epsilon", target.epsilon);
  core::check_open_interval(fn, "delta", target.delta, 0.0, 1.0);
  core::check_positive(fn, "bandwidth", bandwidth);
  core::check_nonnegative(fn, "lipschitz", lipschitz);
  core::check_nonnegative(fn, "sup_norm", sup_norm);
  core::check_positive(fn, "noise_variance_max", noise_variance_max);
  core::check_open_interval(fn, "gamma", gamma, 0.0, 1.0);
  if (composition_slack != 0.0)
    core::check_open_interval(fn, "composition_slack", composition_slack, 0.0, 1.0);
}

double priestley_chao_tau(const priestley_chao_options& o, std::size_t n) {
  o.validate();
  if (n == 0) core::throw_invalid("priestley_chao_tau", "n", "0", "must be >= 1");
  const kernel_constants k = constants(o.kernel);
  const double b = o.bandwidth, lf = o.lipschitz, fs = o.sup_norm, s2 = o.noise_variance_max;
  const double l = std::log(2.0 * static_cast<double>(n) / o.gamma);
  if (o.radius == pc_radius::safe)
    return fs * (1.0 + k.sup / b) + std::sqrt(s2) * k.sup * std::sqrt(2.0 * l) / b;
  // Lemma 4.9 as printed (the ‖K‖_∞ inside the root is not squared; with ‖K‖_∞ < 1 the printed
  // value is the larger, hence safe, one: docs/theory/dependent-data.md §10 item 6).
  return b * (lf * k.mu1 + fs) +
         (lf * k.sup + fs * k.lipschitz + std::sqrt(2.0 * s2 * k.sup * l)) / b;
}

double priestley_chao_bandwidth(double noise_variance_max, std::size_t n, double epsilon) {
  constexpr const char* fn = "priestley_chao_bandwidth";
  core::check_positive(fn, "noise_variance_max", noise_variance_max);
  core::check_positive(fn, "epsilon", epsilon);
  if (n == 0) core::throw_invalid(fn, "n", "0", "must be >= 1");
  const double dn = static_cast<double>(n);
  return std::max(std::cbrt(noise_variance_max / dn),
                  std::sqrt(std::sqrt(noise_variance_max) / (dn * epsilon)));
}

double priestley_chao_margin(double bandwidth) {
  core::check_positive("priestley_chao_margin", "bandwidth", bandwidth);
  const double l = std::log(2.0 / bandwidth);
  return l > 0 ? bandwidth * std::sqrt(2.0 * l) : 0.0;
}

namespace detail {
void priestley_chao_terms(
    std::span<const double> y, double x, double bandwidth, kernel_kind k, std::span<double> z) {
  const double n = static_cast<double>(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double xi = static_cast<double>(i) / n;
    z[i] = y[i] * kernel_value(k, (xi - x) / bandwidth) / bandwidth;
  }
}
}  // namespace detail

}  // namespace dpx::estimators
