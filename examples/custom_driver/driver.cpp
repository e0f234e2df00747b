// Driver `range_mean`: a private mean of n values in a public range [lo, hi] (replace-one
// neighbours at item level: one value moves the mean by at most (hi - lo)/n, the L1
// sensitivity), released with the Laplace mechanism of scale (hi - lo)/(n eps). The privacy
// error (release - sample mean)^2 has expectation 2 ((hi - lo)/(n eps))^2: slope -2 in n.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dpx/core/rng.hpp"
#include "dpx/harness/driver.hpp"
#include "dpx/mechanisms/laplace.hpp"

namespace range_mean {
namespace {

dpx::harness::metrics run(const dpx::harness::cell_context& ctx) {
  const std::int64_t n = ctx.params.get_int("n");
  const double epsilon = ctx.params.get_double("epsilon");
  const double lo = ctx.params.get_double("lo");
  const double hi = ctx.params.get_double("hi");
  // Data from the replication's data stream (keyed on the data parameters only), noise from
  // its noise stream: every replication is recomputable alone.
  auto data_rng = ctx.stream(dpx::rng::purpose::data);
  std::vector<double> values(static_cast<std::size_t>(n));
  data_rng.fill_uniform01(std::span<double>(values));
  double sum = 0;
  for (double& v : values) sum += lo + (hi - lo) * v;
  const double mean = sum / static_cast<double>(n);
  const auto mech =
      dpx::mechanisms::laplace::calibrate(epsilon, (hi - lo) / static_cast<double>(n));
  auto noise_rng = ctx.stream(dpx::rng::purpose::noise);
  const double err = mech.release(mean, noise_rng) - mean;
  return {{"sq_err_private", err * err}, {"theory_mse", 2 * mech.scale() * mech.scale()}};
}

dpx::harness::driver make_driver() {
  dpx::harness::driver d;
  d.name = "range_mean";
  d.version = "1";
  d.description = "Laplace mean of n values in a public range [lo, hi] (replace-one, item level)";
  d.params = {{"n", "number of values (>= 1)", std::nullopt},
              {"epsilon", "privacy parameter (> 0)", std::nullopt},
              {"lo", "lower end of the public range", dpx::harness::param_value{0.0}},
              {"hi", "upper end of the public range (> lo)", dpx::harness::param_value{1.0}}};
  d.data_keys = {"n", "lo", "hi"};
  d.metric_names = {"sq_err_private", "theory_mse"};
  d.run = run;
  return d;
}

const dpx::harness::driver_registrar registrar{make_driver()};

}  // namespace
}  // namespace range_mean
