// Central d-dimensional mean oracles from a cell's inputs (s1_central.hpp;
// docs/theory/dependent-data.md §11).
#include "s1_central.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dpx/core/error.hpp"
#include "s1_theory.hpp"

namespace dpx::experiments::s1_theory {

namespace {
void require(bool ok, const char* parameter, double value, const char* what) {
  if (!ok) core::throw_invalid("s1_central", parameter, value, what);
}
}  // namespace

double coordinate_epsilon(double epsilon,
                          std::size_t d,
                          double slack,
                          const std::string& composition) {
  require(epsilon > 0, "epsilon", epsilon, "must be > 0");
  require(d >= 1, "d", 0.0, "must be >= 1");
  if (d == 1) return epsilon;
  const double dd = static_cast<double>(d);
  const double basic = epsilon / dd;
  if (composition == "basic") return basic;
  const bool advanced_ok = epsilon < 1.0 && slack > 0.0 && slack < 1.0;
  if (composition == "advanced") {
    require(advanced_ok, "epsilon", epsilon, "advanced composition needs eps < 1, slack in (0, 1)");
    return epsilon / std::sqrt(8.0 * dd * std::log(1.0 / slack));
  }
  if (composition == "automatic") {
    if (!advanced_ok) return basic;
    return std::max(basic, epsilon / std::sqrt(8.0 * dd * std::log(1.0 / slack)));
  }
  core::throw_invalid(
      "s1_central", "composition", composition, "must be advanced, basic or automatic");
}

central_mean_prediction central_mean_oracle(const central_mean_cell& c) {
  require(c.n >= 2, "n", static_cast<double>(c.n), "must be >= 2");
  require(c.d >= 1, "d", 0.0, "must be >= 1");
  require(c.delta > 0 && c.delta < 1, "delta", c.delta, "must be in (0, 1)");
  central_mean_prediction p;
  const double dd = static_cast<double>(c.d);
  double var_row = 1.0;
  if (c.estimator == "alg5") {
    p.hist_rows = p.mean_rows = c.n;
    p.tau = radius(1.0, c.n, c.d, c.gamma);  // Cor 3.6 over the n·d entries
  } else if (c.estimator == "split" || c.estimator == "user_split") {
    p.hist_rows = c.n / 2;
    p.mean_rows = c.n - p.hist_rows;
    if (c.estimator == "user_split") {
      require(c.d == 1, "d", dd, "must be 1 for user_split");
      require(std::fabs(c.phi) < 1.0, "phi", c.phi, "must be in (-1, 1)");
      // ρ⋆ = (1 + |φ|)/(1 − |φ|) ≥ λ_max(Σ_u): the spectral bound (docs §8); σ² = ρ⋆/T.
      p.rho = (1.0 + std::fabs(c.phi)) / (1.0 - std::fabs(c.phi)) / static_cast<double>(c.T);
      var_row = ar1_mean_variance(c.phi, c.T);
    }
    // τ² = 2ρ ln(4 n_h): radius() with d = 1, γ = 1/2.
    p.tau = radius(p.rho, p.mean_rows, 1, 0.5);
  } else if (c.estimator == "kv") {
    require(c.d == 1, "d", dd, "must be 1 for kv");
    p.hist_rows = p.mean_rows = c.n;
    // Karwa & Vadhan 2018 (known σ): clipping radius κ = 4σ√(ln(n/β)) at the data's σ = 1.
    p.tau = 4.0 * std::sqrt(std::log(static_cast<double>(c.n) / c.gamma));
  } else {
    core::throw_invalid(
        "s1_central", "estimator", c.estimator, "must be alg5, split, user_split or kv");
  }
  p.epsilon_coord = coordinate_epsilon(c.epsilon, c.d, c.delta, "advanced");
  // Algorithm 4's interval has radius 3τ; KV clips at ±κ around its bin.
  const double interval_radius = c.estimator == "kv" ? p.tau : 3.0 * p.tau;
  p.laplace_scale = winsorized_laplace_scale(interval_radius, p.mean_rows, p.epsilon_coord);
  const double nm = static_cast<double>(p.mean_rows);
  p.mse = dd * var_row / nm + 2.0 * dd * p.laplace_scale * p.laplace_scale;
  p.cor_bound =
      c.estimator == "alg5" || c.estimator == "kv"
          ? std::numeric_limits<double>::quiet_NaN()
          : p.rho * std::log(4.0 * nm) *
                (dd / nm + dd * dd * std::log(2.0 / c.delta) / (nm * nm * c.epsilon * c.epsilon));
  return p;
}

double histogram_failure_bound(double eps_hist, double delta_hist, double m, double c) {
  require(eps_hist > 0, "eps_hist", eps_hist, "must be > 0");
  require(delta_hist > 0, "delta_hist", delta_hist, "must be > 0");
  return std::exp(0.5 * eps_hist) / delta_hist * std::exp(-m * eps_hist / c) +
         2.0 * std::exp(-m / 128.0);
}

}  // namespace dpx::experiments::s1_theory
