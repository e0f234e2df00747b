#pragma once
// Internal to dpx::data: the registered models' factories (one per model, defined in the
// model_*.cpp files and listed in registry.cpp) and the helpers their descriptions share.

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "dpx/data/panel.hpp"
#include "dpx/data/registry.hpp"

namespace dpx::data::model_defs {

model_entry iid_gaussian_model();
model_entry student_t_model();
model_entry uniform_model();
model_entry beta_model();
model_entry ar1_model();
model_entry ar1_t_model();
model_entry arp_model();
model_entry ma_model();
model_entry arma_model();
model_entry var1_model();
model_entry toeplitz_model();
model_entry equicorrelated_model();
model_entry fgn_model();
model_entry block_toeplitz_model();
model_entry random_effects_model();
model_entry longitudinal_model();
model_entry nonparametric_model();
model_entry sparse_linear_model();
model_entry sparse_logistic_model();

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();  // unknown / undefined
/// Variances: > 0 and ≤ 1e300 (so the standard deviation is ≤ 1e150, see positive_scale).
inline constexpr param_range positive_variance{0.0, 1e300, true, false};
/// Sizes (T, p, d, groups, ...): at least `lo`, and small enough to allocate.
inline constexpr param_range size_range(double lo, double hi = 1e7) {
  return {lo, hi, false, false};
}
/// The location parameter every model with a mean takes.
inline const param_spec mu_spec{"mu", param_type::real, "0", any_location, "mean"};

/// The theory every scalar stationary series reports: mean, variance, long-run variance, the
/// autocorrelations at lags 1..5 (null when the variance is infinite), the joint and marginal
/// log-Sobolev constants and n·Var(X̄).
template <class M>
description series_theory(const M& m, double log_sobolev, double mean_variance_constant) {
  description d;
  d.add("mean", m.mean());
  d.add("variance", m.variance());
  d.add("long_run_variance", m.long_run_variance());
  const bool finite = std::isfinite(m.variance());
  std::vector<double> ac;
  for (std::size_t h = 1; h <= 5; ++h) ac.push_back(finite ? m.autocorrelation(h) : kNaN);
  d.add("autocorrelation", ac);
  d.add("log_sobolev", log_sobolev);
  d.add("marginal_log_sobolev", m.marginal_log_sobolev());
  d.add("mean_variance_constant", mean_variance_constant);
  return d;
}

/// series_theory for i.i.d. models (autocorrelations 0, undefined without a variance).
template <class M>
description iid_theory(const M& m, std::size_t n) {
  description d;
  d.add("mean", m.mean());
  d.add("variance", m.variance());
  d.add("long_run_variance", m.long_run_variance());
  const double r0 = std::isfinite(m.variance()) ? 0.0 : kNaN;
  d.add("autocorrelation", std::vector<double>(5, r0));
  d.add("log_sobolev", m.log_sobolev(n));
  d.add("marginal_log_sobolev", m.marginal_log_sobolev());
  d.add("mean_variance_constant", m.mean_variance_constant(n));
  return d;
}

/// Writes a series as one column "x".
void write_series(table_sink& w, const xt::xtensor<double, 1>& x);
/// Writes a panel in long format user,t,<col>.
void write_panel(table_sink& w, const panel& y, const std::string& col);
/// Lags h = 1..5 within T times: value(h) for h < T, null for lags that do not exist.
template <class F>
std::vector<double> within_user_lags(std::size_t times, F value) {
  std::vector<double> ac;
  for (std::size_t h = 1; h <= 5; ++h) ac.push_back(h < times ? value(double(h)) : kNaN);
  return ac;
}

/// A Gaussian vector of length n from a model M with sample_into(out, g), log_sobolev(n) and
/// mean_variance_constant(n) (iid_gaussian, equicorrelated).
template <class M>
struct sized_gaussian_vector final : gaussian_vector {
  sized_gaussian_vector(M model, std::size_t size) : md(std::move(model)), n(size) {}
  M md;
  std::size_t n;
  std::size_t size() const noexcept override { return n; }
  void sample_into(std::span<double> out, rng::philox4x32& g) const override {
    md.sample_into(out, g);
  }
  double log_sobolev() const override { return md.log_sobolev(n); }
  double mean_variance_constant() const override { return md.mean_variance_constant(n); }
};

/// A scalar series model M with sample(n, g): its realization (theory given by the caller).
template <class M>
realization series_realization(
    M model, description parameters, description theory, std::size_t n, rng::philox4x32& g) {
  realization r;
  r.parameters = std::move(parameters);
  r.theory = std::move(theory);
  r.write = [model, n, &g](table_sink& w) { write_series(w, model.sample(n, g)); };
  return r;
}

}  // namespace dpx::data::model_defs
