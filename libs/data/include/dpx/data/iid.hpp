#pragma once
/// \file
/// Baseline i.i.d. generators: Gaussian, Student t (heavy tails), uniform and beta (bounded).
///
/// Theory conventions shared by every dpx::data model (docs/theory/dependent-data.md §2, §8):
/// * `log_sobolev(n)`: the log-Sobolev constant ρ of the law of the whole generated vector
///   (X_1..X_n), in the normalisation Ent(f²) ≤ 2ρ E‖∇f‖² [Roth & Avella-Medina 2025 Def 2.5]. For
///   Gaussian vectors it is λ_max(Σ) [Roth & Avella-Medina 2025 Ex. A.2]. +∞ when no log-Sobolev
///   inequality holds (heavy tails), NaN when dpx does not know the constant.
/// * `marginal_log_sobolev()`: the per-observation constant ρ_i that the radius τ uses
///   [Roth & Avella-Medina 2025 Rem 3.5]; for Gaussians Var(X_i).
/// * `mean_variance_constant(n)`: n·Var(X̄) = 1ᵀΣ1/n, the exact statistical constant.

#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

#include <xtensor/xtensor.hpp>

#include "dpx/data/variates.hpp"

namespace dpx::data {

namespace detail {
/// v·I, n×n (the covariance of n i.i.d. values of variance v; v = +∞ for Student t with ν ≤ 2,
/// where only the diagonal is infinite: distinct coordinates are independent).
inline xt::xtensor<double, 2> scaled_identity(std::size_t n, double v) {
  xt::xtensor<double, 2> c = xt::xtensor<double, 2>::from_shape({n, n});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) c(i, j) = i == j ? v : 0.0;
  return c;
}
}  // namespace detail

/// X_i i.i.d. N(mu, sd²).
struct iid_gaussian_options {
  double mu = 0.0;  ///< mean (finite)
  double sd = 1.0;  ///< standard deviation (finite, > 0)
  void validate() const;
};

/// i.i.d. Gaussian baseline. Σ = sd² I, so ρ = ρ_i = n·Var(X̄) = sd².
class iid_gaussian {
 public:
  explicit iid_gaussian(iid_gaussian_options o);
  const iid_gaussian_options& options() const noexcept { return o_; }

  template <std::uniform_random_bit_generator G>
  void sample_into(std::span<double> out, G& g) const {
    fill_standard_normal(g, out);
    for (double& x : out) x = o_.mu + o_.sd * x;
  }
  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 1> sample(std::size_t n, G& g) const {
    xt::xtensor<double, 1> x = xt::xtensor<double, 1>::from_shape({n});
    sample_into(std::span<double>(x.data(), n), g);
    return x;
  }

  double mean() const noexcept { return o_.mu; }
  double variance() const noexcept { return o_.sd * o_.sd; }
  double autocovariance(std::size_t h) const noexcept { return h == 0 ? variance() : 0.0; }
  /// variance()·I (n×n).
  xt::xtensor<double, 2> covariance(std::size_t n) const {
    return detail::scaled_identity(n, variance());
  }
  double long_run_variance() const noexcept { return variance(); }
  double log_sobolev(std::size_t /*n*/) const noexcept { return variance(); }
  double marginal_log_sobolev() const noexcept { return variance(); }
  double mean_variance_constant(std::size_t /*n*/) const noexcept { return variance(); }

 private:
  iid_gaussian_options o_;
};

/// X_i = mu + scale·T_i with T_i i.i.d. Student t with nu degrees of freedom.
struct iid_student_t_options {
  double nu = 5.0;     ///< degrees of freedom (finite, > 0); the variance is finite only for nu > 2
  double mu = 0.0;     ///< location (finite)
  double scale = 1.0;  ///< scale (finite, > 0)
  void validate() const;
};

/// Heavy-tailed baseline. The t law has polynomial tails, so it satisfies no log-Sobolev
/// inequality (LSI implies Gaussian concentration, Roth & Avella-Medina 2025 Thm 2.6): log_sobolev
/// = +∞.
class iid_student_t {
 public:
  explicit iid_student_t(iid_student_t_options o);
  const iid_student_t_options& options() const noexcept { return o_; }

  template <std::uniform_random_bit_generator G>
  void sample_into(std::span<double> out, G& g) const {
    for (double& x : out) x = o_.mu + o_.scale * student_t(g, o_.nu);
  }
  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 1> sample(std::size_t n, G& g) const {
    xt::xtensor<double, 1> x = xt::xtensor<double, 1>::from_shape({n});
    sample_into(std::span<double>(x.data(), n), g);
    return x;
  }

  /// mu for nu > 1, NaN otherwise (the mean does not exist).
  double mean() const noexcept;
  /// scale²·nu/(nu−2) for nu > 2, +∞ otherwise.
  double variance() const noexcept;
  double autocovariance(std::size_t h) const noexcept { return h == 0 ? variance() : 0.0; }
  /// variance()·I (n×n).
  xt::xtensor<double, 2> covariance(std::size_t n) const {
    return detail::scaled_identity(n, variance());
  }
  double long_run_variance() const noexcept { return variance(); }
  double log_sobolev(std::size_t /*n*/) const noexcept {
    return std::numeric_limits<double>::infinity();
  }
  double marginal_log_sobolev() const noexcept { return std::numeric_limits<double>::infinity(); }
  double mean_variance_constant(std::size_t /*n*/) const noexcept { return variance(); }

 private:
  iid_student_t_options o_;
};

/// X_i i.i.d. uniform on [lo, hi].
struct iid_uniform_options {
  double lo = 0.0;  ///< lower end (finite)
  double hi = 1.0;  ///< upper end (finite, > lo)
  void validate() const;
};

/// Bounded baseline. The uniform law on an interval of length L satisfies LSI with the optimal
/// constant ρ = L²/π² (Emery & Yukich 1987 for the circle, via even reflection; it equals the
/// Poincaré constant, so it is sharp), and LSI tensorises, so the whole vector has ρ = L²/π².
class iid_uniform {
 public:
  explicit iid_uniform(iid_uniform_options o);
  const iid_uniform_options& options() const noexcept { return o_; }

  template <std::uniform_random_bit_generator G>
  void sample_into(std::span<double> out, G& g) const {
    rng::fill_uniform01(g, out);
    const double w = o_.hi - o_.lo;
    for (double& x : out) x = o_.lo + w * x;
  }
  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 1> sample(std::size_t n, G& g) const {
    xt::xtensor<double, 1> x = xt::xtensor<double, 1>::from_shape({n});
    sample_into(std::span<double>(x.data(), n), g);
    return x;
  }

  double mean() const noexcept { return 0.5 * (o_.lo + o_.hi); }
  double variance() const noexcept { return (o_.hi - o_.lo) * (o_.hi - o_.lo) / 12.0; }
  double autocovariance(std::size_t h) const noexcept { return h == 0 ? variance() : 0.0; }
  /// variance()·I (n×n).
  xt::xtensor<double, 2> covariance(std::size_t n) const {
    return detail::scaled_identity(n, variance());
  }
  double long_run_variance() const noexcept { return variance(); }
  double log_sobolev(std::size_t /*n*/) const noexcept;
  double marginal_log_sobolev() const noexcept;
  double mean_variance_constant(std::size_t /*n*/) const noexcept { return variance(); }

 private:
  iid_uniform_options o_;
};

/// X_i i.i.d. Beta(a, b) on [0, 1].
struct iid_beta_options {
  double a = 2.0;  ///< first shape (finite, > 0)
  double b = 2.0;  ///< second shape (finite, > 0)
  void validate() const;
};

/// Bounded baseline. dpx does not know the exact log-Sobolev constant of Beta(a, b) unless
/// a = b = 1 (uniform, 1/π²): log_sobolev is NaN otherwise. The per-observation constant is the
/// Hoeffding sub-Gaussian variance proxy 1/4 of a [0,1]-valued variable (Roth & Avella-Medina 2025
/// §3 uses sub-Gaussian constants for τ) — 1/π² when a = b = 1.
class iid_beta {
 public:
  explicit iid_beta(iid_beta_options o);
  const iid_beta_options& options() const noexcept { return o_; }

  template <std::uniform_random_bit_generator G>
  void sample_into(std::span<double> out, G& g) const {
    for (double& x : out) x = beta(g, o_.a, o_.b);
  }
  template <std::uniform_random_bit_generator G>
  xt::xtensor<double, 1> sample(std::size_t n, G& g) const {
    xt::xtensor<double, 1> x = xt::xtensor<double, 1>::from_shape({n});
    sample_into(std::span<double>(x.data(), n), g);
    return x;
  }

  double mean() const noexcept { return o_.a / (o_.a + o_.b); }
  double variance() const noexcept {
    const double s = o_.a + o_.b;
    return o_.a * o_.b / (s * s * (s + 1.0));
  }
  double autocovariance(std::size_t h) const noexcept { return h == 0 ? variance() : 0.0; }
  /// variance()·I (n×n).
  xt::xtensor<double, 2> covariance(std::size_t n) const {
    return detail::scaled_identity(n, variance());
  }
  double long_run_variance() const noexcept { return variance(); }
  double log_sobolev(std::size_t /*n*/) const noexcept;
  double marginal_log_sobolev() const noexcept;
  double mean_variance_constant(std::size_t /*n*/) const noexcept { return variance(); }

 private:
  iid_beta_options o_;
};

}  // namespace dpx::data
