#pragma once
/// \file
/// Differentially private online kernel regression (Nie & Wang 2017;
/// docs/theory/online-kernel.md).
///
/// f_0 = 0; f_{t+1} = f_t - eta_t [ (f_t(x_t) - y_t) K_{x_t} + lambda_t f_t ],
/// eta_t = (t + t0)^{-theta}, lambda_t = (t + t0)^{-(1 - theta)}, 1/2 < theta < 1,
/// t0^theta >= kappa^2 + 1. f_t = s * sum_i a_i K(x_i, .) is stored as centres, raw coefficients
/// a_i and ONE running scale s: the shrink (1 - eta_t lambda_t) multiplies s (O(1)), the new
/// coefficient is -eta_t (f_t(x_t) - y_t) / s, so a step costs t kernel evaluations (for
/// f_t(x_t)) plus O(1).
/// Responses are clamped to [-M, M] (the theorem assumes |y| <= M; clamping makes it hold).
/// PUBLIC INPUT BOUND (linear and polynomial kernels): kappa = sup sqrt(K(x, x)) over
/// ||x|| <= input_bound, and both sensitivities below rest on it, so update() projects every
/// training x onto that ball (x * min(1, input_bound / ||x||), the centre stored is the
/// projected x) and predict_private() refuses a query point outside it (|f(q)| <= sqrt(K(q, q))
/// ||f||_H exceeds kappa ||f||_H there). Query points are public, so refusing them leaks
/// nothing; no count of projected rows is kept or released. release_function() accepts any
/// points: its L2 bound ||L^{-1} g(points)|| <= ||g||_H holds at every point set. The Gaussian
/// kernel has kappa = 1 on all of R^p: nothing is projected or refused.
///
/// Privacy (replace-one, any position; docs/theory/online-kernel.md): sup-norm sensitivity of f_t
///   C_t = 2 kappa^2 (kappa^2 + 1) M / (t - 1 + t0)^{2 theta - 1}   (paper eq. (17)),
/// RKHS-norm sensitivity  D_t = 2 eta_{t-1} kappa (kappa^2 M / lambda_{t-1} + M)  (Lemma 2 step).
///  * per_query (the paper's mechanism): predict_private(x) = f_t(x) + Lap(C_t / epsilon); ONE
///    value at one point is epsilon-DP; every answer is a new release (laplace_event{1/epsilon})
///    and q answers compose.
///  * function_release (Hall, Rinaldo & Wasserman 2013, Cor. 9): release_function(points) returns
///    f_t + (c D_t) Z at the points, Z a Gaussian process with covariance K, c = sqrt(2 log(2 /
///    delta)) / epsilon (HRW's classical constant, epsilon <= 1) — (epsilon, delta)-DP for the
///    function on ANY finite set of points; event gaussian_event{c}.
/// Adding one scalar Lap(C_t/eps) to the whole function does NOT make the function private.
///
/// WHAT IS RELEASED: per_query, each answered value (nothing else leaves the object through a
/// private call); function_release, the m values at the requested points. predict(),
/// coefficients() and centres() are NOT private: they read the training data without noise
/// (centres() holds the projected training inputs themselves). A C++ library type exposes its
/// state; a surface that outputs them must treat them as non-private diagnostics (the output
/// contract, dpx/core/output_contract.hpp, surface OnlineKernelRegression: the Python binding
/// refuses them unless the learner was built with nonprivate_diagnostics=True).
///
/// FLOAT SAFETY: online_kernel_options::noise_kind (mechanisms::noise_kind) is float_safe by
/// default (docs/mechanisms.md, "Float safety"; docs/solvers.md, "Noise kind"):
///  * per_query: float_safe_laplace::calibrate(epsilon, C_t).release(f_t(x)) — exactly
///    epsilon-DP (pure_dp_event{epsilon} per answer), noise scale larger by a relative
///    <= 2·2^-20, output on a power-of-two grid;
///  * function_release: the whitened values u = L^{-1} f_t(points) (L L^T = K(points) + jI, the
///    Cholesky factor with the jitter j) are released by float_safe_gaussian with sigma = c D_t
///    for L2 sensitivity D_t, then mapped back, L u (post-processing). For g = f_t - f_t' in the
///    RKHS, ||L^{-1} g(points)||_2^2 = g^T (K + jI)^{-1} g <= g^T K^+ g <= ||g||_H^2 <= D_t^2, so
///    the release is rho-zCDP with rho = 1/(2 c^2) exactly (zcdp_event), the law of f_t + c D_t
///    Z up to the discrete noise. (epsilon, delta): rho + 2 sqrt(rho ln(1/delta)) <= epsilon for
///    every epsilon <= 2 ln 2 (Bun & Steinke 2016, Prop. 1.3, with c = sqrt(2 ln(2/delta))/epsilon:
///    1 - sqrt(ln(1/delta)/ln(2/delta)) >= ln 2/(2 ln(2/delta)) >= epsilon/(4 ln(2/delta))), so
///    the stated (epsilon, delta) holds on the validated range epsilon <= 1.
/// research_grade: the paper's double-precision Laplace (laplace_event{1/epsilon}) and HRW's
/// continuous Gaussian process (gaussian_event{c}), as above; the experiments pass it
/// explicitly.

#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"
#include "dpx/core/privacy_curves.hpp"
#include "dpx/mechanisms/float_safe.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/laplace.hpp"
#include "dpx/mechanisms/noise_kind.hpp"

namespace dpx::solvers {

/// Kernel family.
enum class kernel_kind {
  gaussian,    ///< exp(-||x - x'||^2 / (2 bandwidth^2)); kappa = 1
  polynomial,  ///< (<x, x'> + offset)^degree
  linear,      ///< <x, x'>
};
std::string to_string(kernel_kind k);
kernel_kind parse_kernel_kind(const std::string& s);

/// A Mercer kernel on R^p.
struct kernel {
  kernel_kind kind = kernel_kind::gaussian;
  double bandwidth = 1.0;  ///< gaussian, > 0
  int degree = 2;          ///< polynomial, >= 1
  double offset = 1.0;     ///< polynomial, >= 0
  void validate(const char* function) const;
  double operator()(std::span<const double> a, std::span<const double> b) const noexcept;
  /// kappa = sup sqrt(K(x, x)) over inputs with ||x|| <= input_bound (1 for gaussian).
  double kappa(double input_bound) const noexcept;
};

/// Privacy mode of the online regressor.
enum class kernel_privacy { none, per_query, function_release };
std::string to_string(kernel_privacy p);
kernel_privacy parse_kernel_privacy(const std::string& s);

/// Options of online_kernel_regression.
struct online_kernel_options {
  double theta = 0.75;        ///< in (1/2, 1)
  double t0 = 0;              ///< >= (kappa^2 + 1)^{1/theta}; 0 = that smallest valid value
  double output_bound = 1.0;  ///< M > 0 (responses clamped to [-M, M])
  double input_bound = 1.0;   ///< public bound on ||x|| (polynomial / linear kappa), > 0
  kernel_privacy privacy = kernel_privacy::none;
  /// (epsilon, delta) target, required by per_query (epsilon > 0; delta unused) and
  /// function_release (epsilon in (0, 1]: HRW's constant; delta in (0, 1)); refused with privacy
  /// none, which adds no noise (a target there would be silently ignored).
  std::optional<core::epsilon_delta> target;
  /// float_safe (default: exact discrete noise, see the file comment) or research_grade.
  mechanisms::noise_kind noise_kind = mechanisms::noise_kind::float_safe;
  void validate() const;
};

/// The online regressor (one object per stream; not thread-safe).
class online_kernel_regression {
 public:
  /// input_dim p >= 1.
  online_kernel_regression(kernel k, std::size_t input_dim, online_kernel_options options);

  /// One step with example (x, y) (x of size p, finite; linear / polynomial kernels: x
  /// projected onto ||x|| <= input_bound; y clamped to [-M, M]).
  void update(std::span<const double> x, double y);
  /// f_t(x), NOT private (no noise), O(t).
  double predict(std::span<const double> x) const;
  /// per_query: f_t(x) + Lap(C_t / epsilon) (float_safe: float_safe_laplace's grid release,
  /// appends a pure_dp_event; research_grade: appends a laplace_event). Throws unless
  /// privacy == per_query, and (linear / polynomial kernels) when ||x|| > input_bound, naming x.
  template <std::uniform_random_bit_generator G>
  double predict_private(std::span<const double> x, G& g) {
    const char* fn = "solvers::online_kernel_regression::predict_private";
    if (o_.privacy != kernel_privacy::per_query)
      core::throw_invalid(fn, "privacy", to_string(o_.privacy), "must be per_query");
    check_query(fn, x);
    const double c = sup_sensitivity();
    const double v = predict(x);
    if (c == 0) return v;  // f_0 = 0 does not depend on the data
    if (o_.noise_kind == mechanisms::noise_kind::float_safe) {
      const auto fs = mechanisms::float_safe_laplace::calibrate(o_.target->epsilon, c);
      events_.push_back(fs.event());
      return fs.release(v, g);
    }
    const auto lap = mechanisms::laplace::calibrate(o_.target->epsilon, c);
    events_.push_back(lap.event());
    return v + lap.sample(g);
  }
  /// function_release: f_t + c D_t Z at the m points (m x p row-major, any finite values: the
  /// RKHS-norm sensitivity covers every point set), Z ~ GP(0, K) (Cholesky of the m x m Gram,
  /// O(m^3)). research_grade: Z sampled jointly in double precision, appends
  /// a gaussian_event; float_safe: the whitened values released by float_safe_gaussian (file
  /// comment), appends a zcdp_event.
  template <std::uniform_random_bit_generator G>
  std::vector<double> release_function(std::span<const double> points, G& g) {
    const char* fn = "solvers::online_kernel_regression::release_function";
    if (o_.privacy != kernel_privacy::function_release)
      core::throw_invalid(fn, "privacy", to_string(o_.privacy), "must be function_release");
    if (points.size() % p_ != 0 || points.empty())
      core::throw_invalid(fn, "points", double(points.size()), "must be m * input_dim, m >= 1");
    core::check_finite_span(fn, "points", points);
    const std::size_t m = points.size() / p_;
    std::vector<double> out(m);
    const double scale = function_noise_multiplier() * rkhs_sensitivity();
    if (o_.noise_kind == mechanisms::noise_kind::float_safe) {
      for (std::size_t i = 0; i < m; ++i) out[i] = predict(points.subspan(i * p_, p_));
      if (scale == 0) return out;  // f_0 = 0 does not depend on the data
      const std::vector<double> l = cholesky(points);
      whiten(l, out);  // out <- L^{-1} f(points)
      const auto fs = mechanisms::float_safe_gaussian::from_sigma(scale, rkhs_sensitivity());
      fs.privatize(out, g);
      colour(l, out);  // out <- L out (post-processing)
      events_.push_back(fs.event());
      return out;
    }
    std::vector<double> z(m);
    const auto std_normal = mechanisms::gaussian::from_sigma(1.0);
    std_normal.fill(z, g);
    colour(cholesky(points), z);  // z <- L z, L L^T = K(points) + jI
    for (std::size_t i = 0; i < m; ++i) out[i] = predict(points.subspan(i * p_, p_)) + scale * z[i];
    if (scale > 0) events_.emplace_back(core::gaussian_event{function_noise_multiplier()});
    return out;
  }

  std::int64_t steps() const noexcept { return t_; }
  double eta(std::int64_t t) const noexcept { return std::pow(double(t) + t0_, -o_.theta); }
  double lambda(std::int64_t t) const noexcept {
    return std::pow(double(t) + t0_, -(1.0 - o_.theta));
  }
  double t0() const noexcept { return t0_; }
  double kappa() const noexcept { return kappa_; }
  /// C_t of the current f_t (0 at t = 0).
  double sup_sensitivity() const noexcept;
  /// D_t of the current f_t (0 at t = 0).
  double rkhs_sensitivity() const noexcept;
  /// c = sqrt(2 log(2/delta)) / epsilon of function_release.
  double function_noise_multiplier() const noexcept;
  /// Effective coefficients s * a_i of f_t = sum_i coef_i K(x_i, .). NOT private.
  std::vector<double> coefficients() const;
  /// Centres x_i (t x p row-major): the (projected) training inputs. NOT private.
  const std::vector<double>& centres() const noexcept { return x_; }
  /// Releases made so far.
  const std::vector<core::privacy_event>& privacy_events() const noexcept { return events_; }

 private:
  /// Whether kappa rests on input_bound (linear, polynomial), so inputs must lie in its ball.
  bool bounded_inputs() const noexcept { return k_.kind != kernel_kind::gaussian; }
  /// Throws (naming x) when a private query point lies outside the input ball (bounded kernels).
  void check_query(const char* function, std::span<const double> x) const;
  /// Lower Cholesky factor L (m x m row-major) of K(points) + jI, j = 1e-10 (a zero pivot,
  /// possible only through rounding, leaves a zero column).
  std::vector<double> cholesky(std::span<const double> points) const;
  /// z <- L z.
  static void colour(const std::vector<double>& l, std::vector<double>& z);
  /// z <- L^{-1} z by forward substitution (a zero pivot's coordinate set to 0: L ignores it).
  static void whiten(const std::vector<double>& l, std::vector<double>& z);
  kernel k_;
  std::size_t p_;
  online_kernel_options o_;
  double t0_, kappa_;
  std::int64_t t_ = 0;
  double scale_ = 1.0;
  std::vector<double> x_, a_;
  std::vector<core::privacy_event> events_;
};

}  // namespace dpx::solvers
