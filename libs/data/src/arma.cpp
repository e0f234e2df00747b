// AR(1), ARMA(p, q) and AR(1)-t: exact stationary starts and closed-form theory.
#include "dpx/data/arma.hpp"

#include <algorithm>
#include <complex>
#include <numbers>

#include <xtensor-blas/xlinalg.hpp>

#include "dpx/core/error.hpp"
#include "dpx/data/spectral.hpp"
#include "linalg.hpp"

namespace dpx::data {

namespace {
xt::xtensor<double, 2> toeplitz_matrix(const std::vector<double>& g) {
  const std::size_t n = g.size();
  xt::xtensor<double, 2> c = xt::xtensor<double, 2>::from_shape({n, n});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) c(i, j) = g[i > j ? i - j : j - i];
  return c;
}
}  // namespace

// ---- AR(1) ---------------------------------------------------------------------------------
void ar1_options::validate() const {
  core::check_open_interval("ar1", "phi", phi, -1.0, 1.0);
  core::check_finite("ar1", "mu", mu);
  core::check_positive("ar1", "innovation_sd", innovation_sd);
}
ar1::ar1(ar1_options o) : o_(o) { o_.validate(); }

void ar1::filter_inplace(std::span<double> z) const noexcept {
  if (z.empty()) return;
  const double phi = o_.phi, sd = o_.innovation_sd, mu = o_.mu;
  double prev = (o_.stationary_start ? sd / std::sqrt(1.0 - phi * phi) : sd) * z[0];
  z[0] = mu + prev;
  double* p = z.data();
  const std::size_t n = z.size();
  for (std::size_t t = 1; t < n; ++t) {
    prev = phi * prev + sd * p[t];
    p[t] = mu + prev;
  }
}
double ar1::variance() const noexcept {
  return o_.innovation_sd * o_.innovation_sd / (1.0 - o_.phi * o_.phi);
}
double ar1::autocovariance(std::size_t h) const noexcept {
  return variance() * std::pow(o_.phi, static_cast<double>(h));
}
std::vector<double> ar1::autocovariance_vector(std::size_t n) const {
  std::vector<double> g(n);
  double v = variance();
  for (std::size_t h = 0; h < n; ++h, v *= o_.phi) g[h] = v;
  return g;
}
double ar1::long_run_variance() const noexcept {
  return o_.innovation_sd * o_.innovation_sd / ((1.0 - o_.phi) * (1.0 - o_.phi));
}
double ar1::spectral_density(double lambda) const noexcept {
  const double den = 1.0 - 2.0 * o_.phi * std::cos(lambda) + o_.phi * o_.phi;
  return o_.innovation_sd * o_.innovation_sd / (2.0 * std::numbers::pi * den);
}
double ar1::log_sobolev(std::size_t n) const {
  core::check_at_least("ar1::log_sobolev", "n", static_cast<long long>(n), 1);
  return toeplitz_lambda_max(autocovariance_vector(n));
}
double ar1::log_sobolev_bound() const noexcept {
  const double a = 1.0 - std::abs(o_.phi);
  return o_.innovation_sd * o_.innovation_sd / (a * a);
}
double ar1::mean_variance_constant(std::size_t n) const {
  return data::mean_variance_constant(autocovariance_vector(n));
}
xt::xtensor<double, 2> ar1::covariance(std::size_t n) const {
  return toeplitz_matrix(autocovariance_vector(n));
}

// ---- ARMA(p, q) ----------------------------------------------------------------------------
void arma_options::validate() const {
  core::check_finite_span("arma", "phi", phi);
  core::check_finite_span("arma", "theta", theta);
  core::check_finite("arma", "mu", mu);
  core::check_positive("arma", "innovation_sd", innovation_sd);
  // Step-down recursion: causal iff every reflection coefficient has |kappa| < 1.
  std::vector<double> a = phi;
  for (std::size_t k = a.size(); k >= 1; --k) {
    const double kappa = a[k - 1];
    if (!(std::abs(kappa) < 1.0))
      core::throw_invalid("arma",
                          "phi",
                          phi.empty() ? 0.0 : phi.back(),
                          "AR polynomial must be causal (all roots of 1 - sum phi_i z^i outside "
                          "the unit circle): partial autocorrelation " +
                              core::format_double(kappa) + " at lag " + std::to_string(k));
    std::vector<double> b(k - 1);
    for (std::size_t j = 0; j + 1 < k; ++j)
      b[j] = (a[j] + kappa * a[k - 2 - j]) / (1.0 - kappa * kappa);
    a = std::move(b);
  }
}

arma arma::ar(std::vector<double> phi, double sd, double mu) {
  return arma(arma_options{std::move(phi), {}, mu, sd});
}
arma arma::ma(std::vector<double> theta, double sd, double mu) {
  return arma(arma_options{{}, std::move(theta), mu, sd});
}

std::vector<double> arma::psi_weights(std::size_t k) const {
  std::vector<double> psi(k, 0.0);
  for (std::size_t j = 0; j < k; ++j) {
    double v = j == 0 ? 1.0 : (j <= q() ? o_.theta[j - 1] : 0.0);
    for (std::size_t i = 1; i <= std::min(j, p()); ++i) v += o_.phi[i - 1] * psi[j - i];
    psi[j] = v;
  }
  return psi;
}

arma::arma(arma_options o) : o_(std::move(o)) {
  o_.validate();
  const std::size_t P = p(), Q = q(), K = std::max(P, Q);
  const double s2 = o_.innovation_sd * o_.innovation_sd;
  const auto psi = psi_weights(K + 1);
  // Brockwell & Davis (3.3.8): gamma(k) - sum_i phi_i gamma(|k-i|) = s2 sum_{j=k}^q theta_j
  // psi_{j-k}.
  xt::xtensor<double, 2> m = xt::zeros<double>({K + 1, K + 1});
  xt::xtensor<double, 1> rhs = xt::zeros<double>({K + 1});
  for (std::size_t k = 0; k <= K; ++k) {
    m(k, k) += 1.0;
    for (std::size_t i = 1; i <= P; ++i) m(k, k > i ? k - i : i - k) -= o_.phi[i - 1];
    double r = 0.0;
    for (std::size_t j = k; j <= Q; ++j) r += (j == 0 ? 1.0 : o_.theta[j - 1]) * psi[j - k];
    rhs(k) = s2 * r;
  }
  const xt::xtensor<double, 1> g = xt::linalg::solve(m, rhs);
  gamma_.assign(g.begin(), g.end());
  if (!(gamma_[0] > 0.0) || !std::isfinite(gamma_[0]))
    core::throw_invalid("arma", "theta", gamma_[0], "gives a zero or non-finite variance");
  // Start block S = (X_0..X_{p-1}, e_{p-q}..e_{p-1}).
  const std::size_t s = P + Q;
  if (s > 0) {
    const auto psi_s = psi_weights(s + 1);
    xt::xtensor<double, 2> c = xt::zeros<double>({s, s});
    auto time_of = [&](std::size_t i) -> long long {
      return i < P ? static_cast<long long>(i)
                   : static_cast<long long>(P) - static_cast<long long>(Q) +
                         static_cast<long long>(i - P);
    };
    for (std::size_t i = 0; i < s; ++i)
      for (std::size_t j = 0; j < s; ++j) {
        const bool xi = i < P, xj = j < P;
        const long long ti = time_of(i), tj = time_of(j);
        double v = 0.0;
        if (xi && xj) {
          v = autocovariance(static_cast<std::size_t>(std::abs(ti - tj)));
        } else if (xi != xj) {
          const long long tx = xi ? ti : tj, te = xi ? tj : ti;
          v = tx >= te ? s2 * psi_s[static_cast<std::size_t>(tx - te)] : 0.0;
        } else {
          v = i == j ? s2 : 0.0;
        }
        c(i, j) = v;
      }
    const std::span<const double> cs(c.data(), s * s);
    start_chol_ = detail::cholesky_lower(cs, s);
    // Singular but valid: an AR factor cancelled by an MA factor (φ = 0.5, θ = −0.5 is white
    // noise, X_0 = e_0 exactly). A semidefinite factor reproduces the covariance exactly.
    if (start_chol_.empty()) start_chol_ = detail::cholesky_lower_semidefinite(cs, s);
    if (start_chol_.empty())
      core::throw_invalid("arma",
                          "phi",
                          o_.phi.empty() ? 0.0 : o_.phi[0],
                          "the stationary covariance of the start block (X_0..X_{p-1}, "
                          "e_{p-q}..e_{p-1}) is not positive semidefinite (numerically)");
  }
}

double arma::autocovariance(std::size_t h) const {
  if (h < gamma_.size()) return gamma_[h];
  return autocovariance_vector(h + 1)[h];
}

std::vector<double> arma::autocovariance_vector(std::size_t n) const {
  std::vector<double> g(n);
  for (std::size_t h = 0; h < n; ++h) {
    if (h < gamma_.size()) {
      g[h] = gamma_[h];
    } else {
      double v = 0.0;
      for (std::size_t i = 1; i <= p(); ++i) v += o_.phi[i - 1] * g[h - i];
      g[h] = v;
    }
  }
  return g;
}

void arma::filter(std::span<const double> z, std::span<double> out) const {
  const std::size_t n = out.size(), P = p(), Q = q(), s = P + Q;
  core::check_size("arma::filter", "z", z.size(), normals_needed(n));
  std::vector<double> w(s, 0.0);
  for (std::size_t i = 0; i < s; ++i) {
    double v = 0.0;
    for (std::size_t j = 0; j <= i; ++j) v += start_chol_[i * s + j] * z[j];
    w[i] = v;
  }
  const double sd = o_.innovation_sd;
  // e[l] is the innovation at time P - Q + l.
  std::vector<double> e(Q + (n > P ? n - P : 0));
  for (std::size_t l = 0; l < Q; ++l) e[l] = w[P + l];
  for (std::size_t t = 0; t < std::min(n, P); ++t) out[t] = w[t];
  for (std::size_t t = P; t < n; ++t) {
    const std::size_t et = Q + (t - P);
    e[et] = sd * z[s + (t - P)];
    double v = e[et];
    for (std::size_t i = 1; i <= P; ++i) v += o_.phi[i - 1] * out[t - i];
    for (std::size_t j = 1; j <= Q; ++j) v += o_.theta[j - 1] * e[et - j];
    out[t] = v;
  }
  for (double& x : out) x += o_.mu;
}

double arma::long_run_variance() const noexcept {
  double sp = 0.0, st = 1.0;
  for (double v : o_.phi) sp += v;
  for (double v : o_.theta) st += v;
  const double s2 = o_.innovation_sd * o_.innovation_sd;
  return s2 * st * st / ((1.0 - sp) * (1.0 - sp));
}

double arma::spectral_density(double lambda) const noexcept {
  std::complex<double> num = 1.0, den = 1.0;
  for (std::size_t j = 1; j <= q(); ++j)
    num += o_.theta[j - 1] * std::polar(1.0, -lambda * static_cast<double>(j));
  for (std::size_t i = 1; i <= p(); ++i)
    den -= o_.phi[i - 1] * std::polar(1.0, -lambda * static_cast<double>(i));
  return o_.innovation_sd * o_.innovation_sd / (2.0 * std::numbers::pi) * std::norm(num) /
         std::norm(den);
}

double arma::log_sobolev(std::size_t n) const {
  core::check_at_least("arma::log_sobolev", "n", static_cast<long long>(n), 1);
  return toeplitz_lambda_max(autocovariance_vector(n));
}

double arma::log_sobolev_bound() const {
  constexpr std::size_t grid = 1u << 14;
  const double pi = std::numbers::pi;
  std::size_t best = 0;
  double fbest = -1.0;
  for (std::size_t k = 0; k <= grid; ++k) {
    const double f = spectral_density(pi * static_cast<double>(k) / grid);
    if (f > fbest) fbest = f, best = k;
  }
  // Golden-section refinement on the bracketing cells.
  double lo = pi * static_cast<double>(best == 0 ? 0 : best - 1) / grid;
  double hi = pi * static_cast<double>(std::min(best + 1, grid)) / grid;
  const double r = (std::sqrt(5.0) - 1.0) / 2.0;
  for (int it = 0; it < 80; ++it) {
    const double a = hi - r * (hi - lo), b = lo + r * (hi - lo);
    if (spectral_density(a) > spectral_density(b))
      hi = b;
    else
      lo = a;
  }
  fbest = std::max({fbest, spectral_density(0.5 * (lo + hi))});
  return 2.0 * pi * fbest;
}

double arma::mean_variance_constant(std::size_t n) const {
  return data::mean_variance_constant(autocovariance_vector(n));
}
xt::xtensor<double, 2> arma::covariance(std::size_t n) const {
  return toeplitz_matrix(autocovariance_vector(n));
}

// ---- AR(1) with t innovations ---------------------------------------------------------------
void ar1_t_options::validate() const {
  core::check_open_interval("ar1_t", "phi", phi, -1.0, 1.0);
  core::check_finite("ar1_t", "mu", mu);
  core::check_positive("ar1_t", "innovation_scale", innovation_scale);
  core::check_positive("ar1_t", "nu", nu);
}
ar1_t::ar1_t(ar1_t_options o) : o_(o) {
  o_.validate();
  const double a = std::abs(o_.phi);
  // K as a double first: near |φ| = 1 it overflows any sensible loop (φ = 1 − 1e-9 gives
  // K ≈ 4e10 draws per path), so cap it instead of hanging.
  const double k = a == 0.0 ? 1.0 : std::ceil(-60.0 * std::log(2.0) / std::log(a));
  if (!(k <= static_cast<double>(ar1_t::max_start_terms)))
    core::throw_invalid("ar1_t",
                        "phi",
                        o_.phi,
                        "needs |phi|^K <= 2^-60 with K = " + core::format_double(k) +
                            " Student-t draws for the exact stationary start, above the cap "
                            "K <= 2^26 (|phi| <= about 0.99999938)");
  start_terms_ = std::max<std::size_t>(static_cast<std::size_t>(k), 1);
}
double ar1_t::mean() const noexcept {
  return o_.nu > 1.0 ? o_.mu : std::numeric_limits<double>::quiet_NaN();
}
double ar1_t::variance() const noexcept {
  if (!(o_.nu > 2.0)) return std::numeric_limits<double>::infinity();
  return o_.innovation_scale * o_.innovation_scale * o_.nu / (o_.nu - 2.0) /
         (1.0 - o_.phi * o_.phi);
}
double ar1_t::long_run_variance() const noexcept {
  if (!(o_.nu > 2.0)) return std::numeric_limits<double>::infinity();
  return o_.innovation_scale * o_.innovation_scale * o_.nu / (o_.nu - 2.0) /
         ((1.0 - o_.phi) * (1.0 - o_.phi));
}
double ar1_t::mean_variance_constant(std::size_t n) const {
  if (!(o_.nu > 2.0)) return std::numeric_limits<double>::infinity();
  std::vector<double> g(n);
  double v = variance();
  for (std::size_t h = 0; h < n; ++h, v *= o_.phi) g[h] = v;
  return data::mean_variance_constant(g);
}

}  // namespace dpx::data
