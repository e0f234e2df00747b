#pragma once
/// \file
/// Linear time series with exact stationary starts: Gaussian AR(1), ARMA(p, q) (covering AR(p)
/// and MA(q)), and AR(1) with Student-t innovations.
///
/// Notation [Brockwell & Davis 1991, §3.1]: X_t − μ = Σ_{i=1}^p φ_i (X_{t−i} − μ) + e_t +
/// Σ_{j=1}^q θ_j e_{t−j}, e_t i.i.d. N(0, σ_e²). Stationarity (causality) requires
/// φ(z) = 1 − Σ φ_i z^i ≠ 0 for |z| ≤ 1. Theory methods describe the stationary process; samples
/// start exactly in the stationary law, so there is no burn-in bias.
/// Log-Sobolev constants follow docs/theory/dependent-data.md §8: ρ_joint = λ_max(Γ_n) with Γ_n the
/// n×n Toeplitz autocovariance matrix, ρ_i = γ(0), and the n-free bound 2π sup_λ f(λ).

#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "dpx/data/variates.hpp"

namespace dpx::data {

/// Options of the Gaussian AR(1) X_t − μ = φ(X_{t−1} − μ) + σ_e z_t.
struct ar1_options {
  double phi = 0.5;            ///< autoregressive coefficient, |phi| < 1
  double mu = 0.0;             ///< mean (finite)
  double innovation_sd = 1.0;  ///< σ_e (finite, > 0)
  /// true: X_0 ~ N(μ, σ_e²/(1−φ²)) (exact stationary start). false: X_0 = μ + σ_e z_0 (the
  /// process started from its mean; not stationary — theory methods then do not apply).
  bool stationary_start = true;
  void validate() const;
};

/// Gaussian AR(1). Sampling is the O(n) recursion on a bulk normal fill.
class ar1 {
 public:
  explicit ar1(ar1_options o);
  const ar1_options& options() const noexcept { return o_; }

  template <std::uniform_random_bit_generator G>
  void sample_into(std::span<double> out, G& g) const {
    fill_standard_normal(g, out);
    filter_inplace(out);
  }
  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 1> sample(std::size_t n, G& g) const {
    xt::xtensor<double, 1> x = xt::xtensor<double, 1>::from_shape({n});
    sample_into(std::span<double>(x.data(), n), g);
    return x;
  }
  /// Turns i.i.d. N(0,1) values into the AR(1) path, in place (exposed for benchmarks).
  void filter_inplace(std::span<double> z) const noexcept;

  double mean() const noexcept { return o_.mu; }
  /// γ(0) = σ_e²/(1−φ²).
  double variance() const noexcept;
  /// γ(h) = γ(0) φ^h.
  double autocovariance(std::size_t h) const noexcept;
  double autocorrelation(std::size_t h) const noexcept { return std::pow(o_.phi, double(h)); }
  /// γ(0..n−1).
  std::vector<double> autocovariance_vector(std::size_t n) const;
  /// 2π f(0) = σ_e²/(1−φ)².
  double long_run_variance() const noexcept;
  /// σ_e²/(2π|1 − φ e^{−iλ}|²).
  double spectral_density(double lambda) const noexcept;
  /// λ_max of the n×n covariance (spectral.hpp: dense syevd or Lanczos).
  double log_sobolev(std::size_t n) const;
  /// n-free bound 2π sup f = σ_e²/(1−|φ|)² = γ(0)(1+|φ|)/(1−|φ|) (docs/theory/dependent-data.md
  /// §8).
  double log_sobolev_bound() const noexcept;
  double marginal_log_sobolev() const noexcept { return variance(); }
  /// n·Var(X̄) = 1ᵀΓ_n1/n.
  double mean_variance_constant(std::size_t n) const;
  /// The n×n covariance matrix Γ_n (row-major xtensor).
  xt::xtensor<double, 2> covariance(std::size_t n) const;

 private:
  ar1_options o_;
};

/// Options of the Gaussian ARMA(p, q).
struct arma_options {
  std::vector<double> phi;     ///< AR coefficients φ_1..φ_p (p ≥ 0); must be causal
  std::vector<double> theta;   ///< MA coefficients θ_1..θ_q (q ≥ 0); any finite values
  double mu = 0.0;             ///< mean (finite)
  double innovation_sd = 1.0;  ///< σ_e (finite, > 0)
  void validate() const;
};

/// Gaussian ARMA(p, q), AR(p) (theta empty) and MA(q) (phi empty).
///
/// Exact stationary start: the vector S = (X_0..X_{p−1}, e_{p−q}..e_{p−1}) is Gaussian with
/// Cov(X_s, X_t) = γ(s−t), Cov(X_s, e_t) = σ_e² ψ_{s−t} (ψ_k = 0 for k < 0) and Cov(e) = σ_e² I;
/// it is drawn through its Cholesky factor and the recursion runs from t = p. γ(0..max(p,q)) solve
/// the linear system of Brockwell & Davis (1991) eq. (3.3.8) (Yule–Walker when q = 0); γ(h) for
/// larger h follows the homogeneous recursion (3.3.9). Causality is checked by the step-down
/// (inverse Levinson–Durbin) recursion: causal ⇔ every partial autocorrelation has |κ_k| < 1
/// [Brockwell & Davis 1991, §5.2 / §8.2].
class arma {
 public:
  explicit arma(arma_options o);
  static arma ar(std::vector<double> phi, double innovation_sd = 1.0, double mu = 0.0);
  static arma ma(std::vector<double> theta, double innovation_sd = 1.0, double mu = 0.0);
  const arma_options& options() const noexcept { return o_; }
  std::size_t p() const noexcept { return o_.phi.size(); }
  std::size_t q() const noexcept { return o_.theta.size(); }

  /// N(0,1) draws needed for a path of length n.
  std::size_t normals_needed(std::size_t n) const noexcept {
    return p() + q() + (n > p() ? n - p() : 0);
  }
  template <std::uniform_random_bit_generator G>
  void sample_into(std::span<double> out, G& g) const {
    std::vector<double> z(normals_needed(out.size()));
    fill_standard_normal(g, z);
    filter(z, out);
  }
  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 1> sample(std::size_t n, G& g) const {
    xt::xtensor<double, 1> x = xt::xtensor<double, 1>::from_shape({n});
    sample_into(std::span<double>(x.data(), n), g);
    return x;
  }
  /// Path from normals_needed(out.size()) i.i.d. N(0,1) values.
  void filter(std::span<const double> z, std::span<double> out) const;

  double mean() const noexcept { return o_.mu; }
  double variance() const noexcept { return gamma_[0]; }
  double autocovariance(std::size_t h) const;
  double autocorrelation(std::size_t h) const { return autocovariance(h) / variance(); }
  std::vector<double> autocovariance_vector(std::size_t n) const;
  /// ψ_0..ψ_{k−1} of the causal representation X_t − μ = Σ ψ_j e_{t−j}.
  std::vector<double> psi_weights(std::size_t k) const;
  /// 2π f(0) = σ_e² (1 + Σθ_j)² / (1 − Σφ_i)².
  double long_run_variance() const noexcept;
  /// f(λ) = σ_e²/(2π) |θ(e^{−iλ})|²/|φ(e^{−iλ})|².
  double spectral_density(double lambda) const noexcept;
  double log_sobolev(std::size_t n) const;
  /// 2π sup_λ f(λ) (grid of 2^14 frequencies refined by golden-section search): the n-free
  /// upper bound on log_sobolev(n) (docs/theory/dependent-data.md §8).
  double log_sobolev_bound() const;
  double marginal_log_sobolev() const noexcept { return variance(); }
  double mean_variance_constant(std::size_t n) const;
  xt::xtensor<double, 2> covariance(std::size_t n) const;

 private:
  arma_options o_;
  std::vector<double> gamma_;       // γ(0..max(p,q))
  std::vector<double> start_chol_;  // lower Cholesky factor of Cov(S), (p+q)², row-major
};

/// Options of AR(1) with Student-t innovations: X_t − μ = φ(X_{t−1} − μ) + s·T_t.
struct ar1_t_options {
  double phi = 0.5;               ///< |phi| < 1
  double mu = 0.0;                ///< location (finite)
  double innovation_scale = 1.0;  ///< s (finite, > 0)
  double nu = 5.0;                ///< degrees of freedom (finite, > 0)
  void validate() const;
};

/// Non-Gaussian AR(1) with heavy-tailed (t) innovations. Stationary start: X_0 = μ +
/// Σ_{k<K} φ^k s T_k with K the smallest integer with |φ|^K ≤ 2^−60, so the omitted remainder has
/// scale below 2^−60 of the stationary one (beneath double resolution) — exact to working
/// precision. The t innovations satisfy no log-Sobolev inequality: log_sobolev = +∞.
/// K = ⌈60 ln 2 / |ln φ|⌉ grows without bound as |φ| → 1, and every path draws K innovations:
/// the constructor throws core::invalid_argument_error naming `phi` when K > max_start_terms
/// = 2^26 (≈ 6.7e7 draws, seconds per path), i.e. for |φ| > exp(−60 ln 2 / 2^26) ≈ 0.99999938.
class ar1_t {
 public:
  /// Cap on K (see above).
  static constexpr std::size_t max_start_terms = std::size_t{1} << 26;
  explicit ar1_t(ar1_t_options o);
  const ar1_t_options& options() const noexcept { return o_; }
  /// K above (number of innovations summed for X_0).
  std::size_t start_terms() const noexcept { return start_terms_; }

  template <std::uniform_random_bit_generator G>
  void sample_into(std::span<double> out, G& g) const {
    if (out.empty()) return;
    double x0 = 0.0, w = 1.0;
    for (std::size_t k = 0; k < start_terms_; ++k, w *= o_.phi) x0 += w * student_t(g, o_.nu);
    double prev = o_.innovation_scale * x0;
    out[0] = o_.mu + prev;
    for (std::size_t t = 1; t < out.size(); ++t) {
      prev = o_.phi * prev + o_.innovation_scale * student_t(g, o_.nu);
      out[t] = o_.mu + prev;
    }
  }
  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 1> sample(std::size_t n, G& g) const {
    xt::xtensor<double, 1> x = xt::xtensor<double, 1>::from_shape({n});
    sample_into(std::span<double>(x.data(), n), g);
    return x;
  }

  double mean() const noexcept;      ///< μ if nu > 1, NaN otherwise
  double variance() const noexcept;  ///< s²ν/(ν−2)/(1−φ²) if ν > 2, +∞ otherwise
  double autocorrelation(std::size_t h) const noexcept { return std::pow(o_.phi, double(h)); }
  double autocovariance(std::size_t h) const noexcept { return variance() * autocorrelation(h); }
  double long_run_variance() const noexcept;  ///< s²ν/(ν−2)/(1−φ)² if ν > 2, +∞ otherwise
  double log_sobolev(std::size_t /*n*/) const noexcept {
    return std::numeric_limits<double>::infinity();
  }
  double marginal_log_sobolev() const noexcept { return std::numeric_limits<double>::infinity(); }
  double mean_variance_constant(std::size_t n) const;

 private:
  ar1_t_options o_;
  std::size_t start_terms_ = 1;
};

}  // namespace dpx::data
