// Driver `private_mean`: the private mean of n values in [0, 1].
//
// Release: the sample mean plus Laplace noise of scale 1/(n eps) (eps-DP), or Gaussian noise with
// the classical calibration sigma = sqrt(2 ln(1.25/delta)) / (n eps) ((eps, delta)-DP, eps < 1;
// Dwork & Roth 2014, Thm A.1). Neighbouring relation: replace-one at item level; replacing one
// value in [0, 1] moves the mean by at most 1/n, so L1 = L2 sensitivity = 1/n.
//
// Metrics (per replication):
//   sq_err_private     (release - sample mean)^2   privacy error; E = 2/(n eps)^2 (Laplace),
//                                                  sigma^2 (Gaussian): slope -2 in n
//   sq_err_population  (release - mu)^2           total error; sigma_X^2/n + noise variance:
//                                                  slope -1 once n is large
//   sq_err_sampling    (sample mean - mu)^2       the nonprivate baseline
//   theory_private_mse the exact noise variance (2 b^2 or sigma^2)
//   theory_total_mse   sigma_X^2 / n + noise variance
//
// Negative control (docs/presets.md, "Controls"): sensitivity_n = k > 0 calibrates the noise to
// sensitivity 1/k instead of 1/n (a wrong sensitivity: the noise stops shrinking with n).
//
// Data are keyed on (n, distribution, beta_a, beta_b) only: every mechanism and epsilon sees the
// same dataset in replication r (common random numbers).
#include <boost/random/beta_distribution.hpp>

#include <cmath>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/harness/driver.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/laplace.hpp"

namespace dpx::experiments::private_mean {
namespace {

using harness::cell_context;
using harness::metrics;

constexpr const char* kFn = "private_mean";

struct population {
  double mean;
  double variance;
};

population population_of(const std::string& distribution, double a, double b) {
  if (distribution == "uniform") return {0.5, 1.0 / 12.0};
  if (distribution == "beta") {
    return {a / (a + b), a * b / ((a + b) * (a + b) * (a + b + 1))};
  }
  core::throw_invalid(kFn, "distribution", distribution, "must be \"uniform\" or \"beta\"");
}

// Sample mean of n i.i.d. draws, generated in chunks so memory stays bounded at n = 10^6.
double sample_mean(
    std::int64_t n, const std::string& distribution, double a, double b, rng::philox4x32& g) {
  constexpr std::int64_t chunk = 1 << 14;
  std::vector<double> buf(static_cast<std::size_t>(std::min(n, chunk)));
  double sum = 0;
  boost::random::beta_distribution<double> beta(a, b);
  for (std::int64_t done = 0; done < n; done += chunk) {
    const auto m = static_cast<std::size_t>(std::min(chunk, n - done));
    std::span<double> s(buf.data(), m);
    if (distribution == "uniform") {
      g.fill_uniform01(s);
    } else {
      for (double& x : s) x = beta(g);
    }
    double part = 0;
    for (double x : s) part += x;
    sum += part;
  }
  return sum / static_cast<double>(n);
}

metrics run(const cell_context& ctx) {
  const auto& p = ctx.params;
  const std::int64_t n = p.get_int("n");
  const double epsilon = p.get_double("epsilon");
  const std::string mechanism = p.get_string("mechanism");
  const std::string distribution = p.get_string("distribution");
  const double a = p.get_double("beta_a");
  const double b = p.get_double("beta_b");
  const double delta = p.get_double("delta");
  core::check_at_least(kFn, "n", n, 1);
  core::check_positive(kFn, "beta_a", a);
  core::check_positive(kFn, "beta_b", b);

  const population pop = population_of(distribution, a, b);
  auto data_rng = ctx.stream(rng::purpose::data);
  const double xbar = sample_mean(n, distribution, a, b, data_rng);

  // sensitivity_n = k > 0: the negative control of the rate checks — the noise calibrated to
  // the sensitivity 1/k of a fixed sample size k instead of 1/n, so it no longer shrinks with n
  // (k <= n over-noises: still eps-DP, but not the mechanism the rates are about).
  const std::int64_t sens_n = p.get_int("sensitivity_n");
  const double sensitivity = 1.0 / static_cast<double>(sens_n > 0 ? sens_n : n);
  auto noise_rng = ctx.stream(rng::purpose::noise);
  double release = 0;
  double noise_var = 0;
  if (mechanism == "laplace") {
    const auto m = mechanisms::laplace::calibrate(epsilon, sensitivity);
    release = m.release(xbar, noise_rng);
    noise_var = 2 * m.scale() * m.scale();
  } else if (mechanism == "gaussian") {
    const auto m = mechanisms::gaussian::calibrate_classical(epsilon, delta, sensitivity);
    release = m.release(xbar, noise_rng);
    noise_var = m.sigma() * m.sigma();
  } else {
    core::throw_invalid(kFn, "mechanism", mechanism, "must be \"laplace\" or \"gaussian\"");
  }
  const auto sq = [](double x) { return x * x; };
  return {{"sq_err_private", sq(release - xbar)},
          {"sq_err_population", sq(release - pop.mean)},
          {"sq_err_sampling", sq(xbar - pop.mean)},
          {"theory_private_mse", noise_var},
          {"theory_total_mse", pop.variance / static_cast<double>(n) + noise_var}};
}

harness::driver make_driver() {
  harness::driver d;
  d.name = "private_mean";
  d.version = "2";
  d.description =
      "Private mean of n values in [0,1]: Laplace (scale 1/(n eps)) or classical Gaussian, "
      "replace-one neighbours, item level";
  d.params = {
      {"n", "number of values (>= 1)", std::nullopt, harness::integer_at_least(1)},
      {"epsilon",
       "privacy parameter (> 0; < 1 for the classical Gaussian)",
       std::nullopt,
       harness::positive()},
      {"mechanism",
       "\"laplace\" or \"gaussian\"",
       std::nullopt,
       harness::one_of({"laplace", "gaussian"})},
      {"distribution",
       "\"uniform\" or \"beta\"",
       harness::param_value{std::string("uniform")},
       harness::one_of({"uniform", "beta"})},
      {"beta_a",
       "Beta shape a (distribution = \"beta\")",
       harness::param_value{2.0},
       harness::positive()},
      {"beta_b",
       "Beta shape b (distribution = \"beta\")",
       harness::param_value{5.0},
       harness::positive()},
      {"delta",
       "delta of the Gaussian mechanism, in (0, 1)",
       harness::param_value{1e-5},
       harness::open_unit_interval()},
      {"sensitivity_n",
       "0 = sensitivity 1/n; k > 0: noise calibrated to 1/k (negative control)",
       harness::param_value{std::int64_t{0}},
       harness::integer_at_least(0)},
  };
  // The classical Gaussian calibration (Dwork & Roth 2014, Thm A.1) holds only for eps < 1.
  d.validate = [](const harness::param_map& p) {
    if (p.get_string("mechanism") == "gaussian" && !(p.get_double("epsilon") < 1)) {
      core::throw_invalid(kFn,
                          "epsilon",
                          p.get_double("epsilon"),
                          "must be < 1 for the classical Gaussian mechanism");
    }
  };
  d.data_keys = {"n", "distribution", "beta_a", "beta_b"};
  d.metric_names = {"sq_err_private",
                    "sq_err_population",
                    "sq_err_sampling",
                    "theory_private_mse",
                    "theory_total_mse"};
  d.run = run;
  return d;
}

const harness::driver_registrar registrar{make_driver()};

}  // namespace
}  // namespace dpx::experiments::private_mean
