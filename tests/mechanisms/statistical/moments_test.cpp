// Properties checked (a scale check with power against small errors, for every noise path):
//  * Laplace (research-grade sample, fill, privatize; float-safe fill): E|X| = b, E X^2 = 2 b^2.
//  * Gaussian (research-grade sample, fill, privatize; float-safe fill): E X^2 = sigma^2,
//    E|X| = sigma sqrt(2/pi).
// Why: a KS test at 1e5 draws cannot see a scale off by a few per cent (its DKW band is ~0.009
// while a 3% Laplace scale error moves the CDF by at most ~0.006), and such an error has
// happened in a sampler rewrite. Moments of 1e6 draws resolve the scale to ~0.1%.
// Each check is a z-test |mean - expected| / se < 5.5 with se from the exact variance of the
// statistic (Laplace: Var|X| = b^2, Var X^2 = 20 b^4; Gaussian: Var X^2 = 2 sigma^4,
// Var|X| = sigma^2 (1 - 2/pi)). False-positive rate per check 3.8e-8 (normal approximation;
// n = 1e6 makes the CLT error negligible at this level), < 1e-6 for the whole file.
// Power: each test also rescales its own draws by 1.02 and 0.98 and requires the same z-test to
// reject both (z ~ 20 at a 2% scale error for |X|), so the test fails on a wrong scale.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/float_safe.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/laplace.hpp"

namespace dpx::mechanisms {
namespace {

constexpr double kZ = 5.5;
constexpr std::size_t kN = 1'000'000;

struct moment {
  const char* name;
  double (*f)(double);
  double expected;  // for unit scale
  double sd;        // sd of f(X) for unit scale
};

double abs_of(double x) { return std::fabs(x); }
double square_of(double x) { return x * x; }

/// z-statistic of the sample mean of f(x / scale) against its expectation.
double z_of(std::span<const double> x, double scale, const moment& m, double factor = 1.0) {
  double s = 0;
  for (double v : x) s += m.f(factor * v / scale);
  const double mean = s / static_cast<double>(x.size());
  return (mean - m.expected) / (m.sd / std::sqrt(static_cast<double>(x.size())));
}

void check_moments(std::span<const double> x,
                   double scale,
                   const std::vector<moment>& moments,
                   const std::string& what) {
  for (const auto& m : moments) {
    EXPECT_LT(std::fabs(z_of(x, scale, m)), kZ) << what << ": " << m.name;
    // Power: the same test rejects the draws rescaled by +2% and -2%.
    EXPECT_GT(std::fabs(z_of(x, scale, m, 1.02)), kZ) << what << ": " << m.name << " +2%";
    EXPECT_GT(std::fabs(z_of(x, scale, m, 0.98)), kZ) << what << ": " << m.name << " -2%";
  }
}

const std::vector<moment> laplace_moments = {{"E|X|/b", abs_of, 1.0, 1.0},
                                             {"E X^2/b^2", square_of, 2.0, std::sqrt(20.0)}};
const std::vector<moment> gaussian_moments = {{"E X^2/sigma^2", square_of, 1.0, std::sqrt(2.0)},
                                              {"E|X|/sigma",
                                               abs_of,
                                               std::sqrt(2.0 / std::numbers::pi),
                                               std::sqrt(1.0 - 2.0 / std::numbers::pi)}};

TEST(NoiseMoments, LaplaceEveryPathHasItsScale) {
  const auto m = laplace::calibrate(0.7, 1.3);  // b = 1.857...
  std::vector<double> x(kN);
  auto g = rng::stream(31, 1, 0, rng::purpose::noise);
  m.fill(x, g);
  check_moments(x, m.scale(), laplace_moments, "laplace::fill");

  for (auto& v : x) v = m.sample(g);
  check_moments(x, m.scale(), laplace_moments, "laplace::sample");

  std::fill(x.begin(), x.end(), 0.0);
  m.privatize(x, g);
  check_moments(x, m.scale(), laplace_moments, "laplace::privatize");

  const auto fs = m.float_safe();
  fs.fill(x, g);
  check_moments(x, fs.scale(), laplace_moments, "float_safe_laplace::fill");
}

TEST(NoiseMoments, GaussianEveryPathHasItsScale) {
  const auto m = gaussian::from_sigma(2.5);
  std::vector<double> x(kN);
  auto g = rng::stream(31, 2, 0, rng::purpose::noise);
  m.fill(x, g);
  check_moments(x, m.sigma(), gaussian_moments, "gaussian::fill");

  for (auto& v : x) v = m.sample(g);
  check_moments(x, m.sigma(), gaussian_moments, "gaussian::sample");

  std::fill(x.begin(), x.end(), 0.0);
  m.privatize(x, g);
  check_moments(x, m.sigma(), gaussian_moments, "gaussian::privatize");

  const auto fs = m.float_safe();
  fs.fill(x, g);
  check_moments(x, fs.sigma(), gaussian_moments, "float_safe_gaussian::fill");
}

}  // namespace
}  // namespace dpx::mechanisms
