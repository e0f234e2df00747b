// Numerical precision at the extremes of the dpx::data parameter ranges:
// * fgn_autocovariance equals a 50-digit evaluation of the defining second difference
//   ½(|k+1|^{2H} − 2|k|^{2H} + |k−1|^{2H}) (Boost.Multiprecision, independent of the library's
//   series) to 1e-13 relative for H ∈ {0.01, …, 0.99} and k up to 1e9. The direct
//   double-precision formula (the old implementation) fails this at long lags: relative error
//   ≈ ε·k², e.g. ~1e-2 at k = 1e7 — checked below so the reference has power.
// * Lanczos λ_max / λ_min of Toeplitz matrices just above the dense threshold (spectral peaks
//   inside (0, π): AR(2) and MA(2)) equal dense LAPACK syevd (xtensor-blas eigvalsh on the
//   explicit matrix) to 1e-11 relative; AR(1) φ = 0.95 at n = 3000 equals the reciprocal
//   extreme eigenvalues of its tridiagonal precision matrix (Sturm bisection). The old stop
//   rule ("no change over 20 steps") was up to 1.1e-8 short on such cases.
// * ar1_t rejects |φ| so close to 1 that the exact stationary start needs more than 2^26 draws.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <string>
#include <vector>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xtensor.hpp>

#include "dpx/core/error.hpp"
#include "dpx/data/data.hpp"

using namespace dpx::data;

namespace {

using mp = boost::multiprecision::cpp_bin_float_50;

// ½(|k+1|^{a} − 2|k|^{a} + |k−1|^{a}) in 50 significant digits: the cancellation costs at most
// log10(k²) ≈ 18 digits at k = 1e9, leaving > 30.
mp fgn_reference(std::size_t k, double hurst) {
  const mp a = 2 * mp(hurst), kk = mp(k);
  const mp c = k == 0 ? mp(1) : pow(kk - 1, a);
  return (pow(kk + 1, a) - 2 * pow(kk, a) + c) / 2;
}

double fgn_direct_double(std::size_t k, double hurst) {
  const double h2 = 2.0 * hurst, kk = static_cast<double>(k);
  return 0.5 * (std::pow(kk + 1.0, h2) - 2.0 * std::pow(kk, h2) +
                (k == 0 ? 1.0 : std::pow(kk - 1.0, h2)));
}

// λ_min and λ_max of the explicit Toeplitz matrix by LAPACK syevd (xtensor-blas).
std::pair<double, double> dense_extremes(const std::vector<double>& g) {
  const std::size_t n = g.size();
  xt::xtensor<double, 2> a = xt::xtensor<double, 2>::from_shape({n, n});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) a(i, j) = g[i > j ? i - j : j - i];
  const xt::xtensor<double, 1> w = xt::linalg::eigvalsh(a);
  return {xt::amin(w)(), xt::amax(w)()};
}

// AR(2) autocovariance (unit innovation variance) from the Yule–Walker equations:
// ρ(1) = φ1/(1−φ2), ρ(k) = φ1ρ(k−1) + φ2ρ(k−2), γ(0) = 1/(1 − φ1ρ(1) − φ2ρ(2)).
std::vector<double> ar2_acvf(std::size_t n, double p1, double p2) {
  std::vector<double> r(std::max<std::size_t>(n, 3));
  r[0] = 1.0;
  r[1] = p1 / (1.0 - p2);
  for (std::size_t k = 2; k < r.size(); ++k) r[k] = p1 * r[k - 1] + p2 * r[k - 2];
  const double g0 = 1.0 / (1.0 - p1 * r[1] - p2 * r[2]);
  for (auto& v : r) v *= g0;
  r.resize(n);
  return r;
}

// MA(2) X_t = e_t + θ1 e_{t−1} + θ2 e_{t−2}: γ(0) = 1+θ1²+θ2², γ(1) = θ1(1+θ2), γ(2) = θ2.
std::vector<double> ma2_acvf(std::size_t n, double t1, double t2) {
  std::vector<double> g(n, 0.0);
  g[0] = 1.0 + t1 * t1 + t2 * t2;
  g[1] = t1 * (1.0 + t2);
  g[2] = t2;
  return g;
}

}  // namespace

TEST(Precision, FgnAutocovarianceMatches50Digits) {
  const std::vector<std::size_t> lags = {
      0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 100, 100000, 10000000, 1000000000};
  for (double h : {0.01, 0.1, 0.25, 0.4, 0.5, 0.75, 0.9, 0.99}) {
    for (std::size_t k : lags) {
      const mp ref = fgn_reference(k, h);
      const double got = fgn_autocovariance(k, h, 1.0);
      const double scaled = fgn_autocovariance(k, h, 2.5);
      if (h == 0.5 && k >= 1) {
        // Brownian increments are uncorrelated: γ(k) = 0 exactly.
        EXPECT_LE(std::abs(got), 1e-300) << "k=" << k;
        EXPECT_LE(std::abs(scaled), 1e-300) << "k=" << k;
        continue;
      }
      const double rel = static_cast<double>(abs((mp(got) - ref) / ref));
      EXPECT_LE(rel, 1e-13) << "H=" << h << " k=" << k << " got=" << got;
      const double rel_scaled = static_cast<double>(abs((mp(scaled) - 2.5 * ref) / (2.5 * ref)));
      EXPECT_LE(rel_scaled, 1e-13) << "H=" << h << " k=" << k;
    }
  }
  // Power: the direct double-precision second difference (the previous implementation) is far
  // outside the tolerance at k = 1e7 (relative error ≈ ε·k² ≈ 1e-2 for H = 0.75).
  const double direct = fgn_direct_double(10000000, 0.75);
  const mp ref = fgn_reference(10000000, 0.75);
  EXPECT_GT(static_cast<double>(abs((mp(direct) - ref) / ref)), 1e-6);
}

TEST(Precision, FgnAutocovarianceMonotoneTail) {
  // For H ≠ ½, |γ(k)| decreases in k (γ(k) ~ H(2H−1)k^{2H−2}); the cancelling formula produced
  // noise-dominated, non-monotone values at large k.
  for (double h : {0.25, 0.75}) {
    double prev = std::abs(fgn_autocovariance(1000, h, 1.0));
    for (std::size_t k = 1000; k <= 100000000; k = k * 3 + 1) {
      const double cur = std::abs(fgn_autocovariance(k + 1, h, 1.0));
      EXPECT_LT(cur, prev) << "H=" << h << " k=" << k;
      prev = cur;
    }
  }
}

TEST(Precision, LanczosMatchesDenseForInteriorPeaks) {
  eigen_options o;  // default dense_max = 1024: these n use Lanczos
  struct Case {
    const char* name;
    std::vector<double> g;
  };
  const std::vector<Case> cases = {
      {"AR(2) (0.2,-0.6) n=1100", ar2_acvf(1100, 0.2, -0.6)},
      {"MA(2) (0.4,-0.3) n=1025", ma2_acvf(1025, 0.4, -0.3)},
      {"AR(2) (0.5,-0.2) n=1050", ar2_acvf(1050, 0.5, -0.2)},
  };
  for (const auto& c : cases) {
    const auto ref = dense_extremes(c.g);
    const auto lan = toeplitz_eigen_range(c.g, o);
    EXPECT_FALSE(lan.dense) << c.name;
    EXPECT_NEAR(lan.max, ref.second, 1e-11 * ref.second) << c.name;
    EXPECT_NEAR(lan.min, ref.first, 1e-11 * ref.first) << c.name;
  }
}

TEST(Precision, LanczosAr1MatchesTridiagonalInverse) {
  // Σ_ij = φ^{|i−j|} has the tridiagonal inverse (1−φ²)Σ^{−1} = tridiag(−φ; 1, 1+φ², …, 1+φ², 1;
  // −φ) (the AR(1) precision matrix), so λ_max(Σ) and λ_min(Σ) are the reciprocals of the extreme
  // eigenvalues of that tridiagonal, found here by Sturm-sequence bisection (an exact inertia
  // count: LDLᵀ of the shifted matrix, Golub & Van Loan 2013, §8.4.1) to full precision.
  const double phi = 0.95;
  const std::size_t n = 3000;
  auto count_below = [&](double x) {  // # eigenvalues of the tridiagonal < x
    std::size_t c = 0;
    double d = 1.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double diag = (i == 0 || i + 1 == n) ? 1.0 : 1.0 + phi * phi;
      d = diag - x - (i == 0 ? 0.0 : phi * phi / d);
      if (d == 0.0) d = -1e-300;
      if (d < 0.0) ++c;
    }
    return c;
  };
  auto eig = [&](std::size_t idx) {
    double lo = 0.0, hi = (1 + phi) * (1 + phi);  // Gershgorin
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) break;
      (count_below(mid) >= idx + 1 ? hi : lo) = mid;
    }
    return 0.5 * (lo + hi);
  };
  const double scale = 1 - phi * phi;
  const double lmax = scale / eig(0), lmin = scale / eig(n - 1);
  // Interlacing with the symbol: (1−φ)/(1+φ) < λ < (1+φ)/(1−φ) = 39; docs/theory/dependent-data.md
  // §8 table: ≈ 39.0.
  ASSERT_GT(lmax, 38.9);
  ASSERT_LT(lmax, 39.0);
  ASSERT_GT(lmin, (1 - phi) / (1 + phi));
  std::vector<double> g(n);
  for (std::size_t k = 0; k < n; ++k) g[k] = std::pow(phi, static_cast<double>(k));
  const auto lan = toeplitz_eigen_range(g);
  EXPECT_FALSE(lan.dense);
  EXPECT_NEAR(lan.max, lmax, 1e-11 * lmax);
  EXPECT_NEAR(lan.min, lmin, 1e-11 * lmin);
}

TEST(Precision, Ar1tStartCap) {
  // K = ⌈60 ln 2/|ln φ|⌉ ≤ 2^26 ⇔ |φ| ≤ exp(−60 ln 2/2^26) = 0.99999938027...
  const ar1_t ok({0.99999938, 0.0, 1.0, 5.0});
  EXPECT_EQ(ok.start_terms(), 67078739u);  // ⌈41.5888.../6.2e-7⌉, computed with Python
  EXPECT_LE(ok.start_terms(), ar1_t::max_start_terms);
  const ar1_t neg({-0.99999938, 0.0, 1.0, 5.0});
  EXPECT_EQ(neg.start_terms(), 67078739u);
  for (double phi : {0.99999939, -0.99999939, 1.0 - 1e-9, 1.0 - 1e-15}) {
    try {
      ar1_t bad({phi, 0.0, 1.0, 5.0});
      ADD_FAILURE() << "no throw for phi=" << phi;
    } catch (const dpx::core::invalid_argument_error& e) {
      EXPECT_EQ(e.parameter(), "phi");
      const std::string what = e.what();
      EXPECT_NE(what.find("phi"), std::string::npos) << what;
      EXPECT_NE(what.find("stationary start"), std::string::npos) << what;
    }
  }
  // Still std::invalid_argument.
  EXPECT_THROW(ar1_t({1.0 - 1e-9, 0.0, 1.0, 5.0}), std::invalid_argument);
}
