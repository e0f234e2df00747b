// Properties checked (bad input -> core::invalid_argument_error naming the parameter):
//  * epsilon <= 0, NaN, +inf; delta outside (0, 1) (0, 1, negative, NaN); sensitivity <= 0 or
//    NaN; sigma/scale <= 0; categories < 2; bins < 1; for every factory.
//  * empty or non-finite data for privatize/release/histograms/selection/estimators.
//  * out-of-range categories and bins.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/mechanisms.hpp"

namespace {

using namespace dpx;
using namespace dpx::mechanisms;

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();

template <class F>
void expect_invalid(F f, const std::string& parameter) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one naming " << parameter;
  } catch (const core::invalid_argument_error& e) {
    // The parameter is named exactly, or with an index/member suffix ("v[1]", "counts.size()").
    EXPECT_EQ(e.parameter().rfind(parameter, 0), 0u) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

TEST(Validation, EpsilonRejected) {
  for (double eps : {0.0, -1.0, nan_v, inf_v}) {
    expect_invalid([&] { (void)laplace::calibrate(eps, 1.0); }, "epsilon");
    expect_invalid([&] { (void)gaussian::calibrate_analytic(eps, 1e-5, 1.0); }, "epsilon");
    expect_invalid([&] { (void)gaussian::calibrate_classical(eps, 1e-5, 1.0); }, "epsilon");
    expect_invalid([&] { (void)l2_laplace::calibrate(eps, 1e-5, 1.0); }, "epsilon");
    expect_invalid([&] { (void)float_safe_laplace::calibrate(eps, 1.0); }, "epsilon");
    expect_invalid([&] { (void)discrete_laplace::calibrate(eps, 1); }, "epsilon");
    expect_invalid([&] { (void)randomized_response::calibrate(eps, 3); }, "epsilon");
    expect_invalid([&] { (void)binary_randomized_response::calibrate(eps); }, "epsilon");
    expect_invalid([&] { (void)local_histogram::calibrate(eps, 3); }, "epsilon");
    expect_invalid([&] { (void)stable_histogram::calibrate(eps, 1e-6); }, "epsilon");
    expect_invalid([&] { (void)exponential_mechanism::calibrate(eps, 1.0); }, "epsilon");
    expect_invalid([&] { (void)permute_and_flip::calibrate(eps, 1.0); }, "epsilon");
  }
}

TEST(Validation, DeltaRejected) {
  for (double delta : {0.0, 1.0, -0.1, 1.5, nan_v}) {
    expect_invalid([&] { (void)gaussian::calibrate_analytic(1.0, delta, 1.0); }, "delta");
    expect_invalid([&] { (void)gaussian::calibrate_classical(0.5, delta, 1.0); }, "delta");
    expect_invalid([&] { (void)l2_laplace::calibrate(1.0, delta, 1.0); }, "delta");
    expect_invalid([&] { (void)stable_histogram::calibrate(1.0, delta); }, "delta");
  }
}

TEST(Validation, SensitivityAndScaleRejected) {
  for (double s : {0.0, -2.0, nan_v, inf_v}) {
    expect_invalid([&] { (void)laplace::calibrate(1.0, s); }, "l1_sensitivity");
    expect_invalid([&] { (void)gaussian::calibrate_analytic(1.0, 1e-5, s); }, "l2_sensitivity");
    expect_invalid([&] { (void)gaussian::calibrate_classical(0.5, 1e-5, s); }, "l2_sensitivity");
    expect_invalid([&] { (void)l2_laplace::calibrate(1.0, 1e-5, s); }, "l2_sensitivity");
    expect_invalid([&] { (void)float_safe_laplace::calibrate(1.0, s); }, "l1_sensitivity");
    expect_invalid([&] { (void)laplace::from_scale(s); }, "scale");
    expect_invalid([&] { (void)gaussian::from_sigma(s); }, "sigma");
    expect_invalid([&] { (void)float_safe_gaussian::from_sigma(s); }, "sigma");
    expect_invalid([&] { (void)discrete_gaussian::from_sigma(s); }, "sigma");
    expect_invalid([&] { (void)exponential_mechanism::calibrate(1.0, s); }, "utility_sensitivity");
  }
  expect_invalid([] { (void)discrete_laplace::calibrate(1.0, 0); }, "sensitivity");
  expect_invalid([] { (void)randomized_response::calibrate(1.0, 1); }, "categories");
  expect_invalid([] { (void)local_histogram::calibrate(1.0, 0); }, "bins");
}

TEST(Validation, DataRejected) {
  auto g = rng::stream(1, 0, 0, rng::purpose::noise);
  std::vector<double> empty, bad = {1.0, nan_v}, worse = {inf_v};
  const auto lap = laplace::calibrate(1.0, 1.0);
  const auto gau = gaussian::from_sigma(1.0);
  expect_invalid([&] { lap.privatize(empty, g); }, "v");
  expect_invalid([&] { lap.privatize(bad, g); }, "v");
  expect_invalid([&] { gau.privatize(worse, g); }, "v");
  expect_invalid([&] { (void)lap.release(nan_v, g); }, "value");
  expect_invalid([&] { (void)gau.release(inf_v, g); }, "value");
  const auto fs = float_safe_laplace::calibrate(1.0, 1.0);
  expect_invalid([&] { fs.privatize(bad, g); }, "v");
  expect_invalid([&] { (void)fs.release(nan_v, g); }, "value");
  expect_invalid([&] { (void)fs.release(inf_v, g); }, "value");
  // A huge finite value is clamped to 2^61 grid steps, not an error the private value alone
  // could trigger: the release is 2^61 grid steps plus noise of scale 1.
  EXPECT_NEAR(fs.release(1e300, g), 0x1p61 * fs.granularity(), 100.0);
  const auto sh = stable_histogram::calibrate(1.0, 1e-6);
  expect_invalid([&] { (void)sh.release(empty, bin_grid{}, g); }, "x");
  expect_invalid([&] { (void)sh.release(bad, bin_grid{}, g); }, "x");
  std::vector<double> ok = {1.0, 2.0};
  expect_invalid([&] { (void)sh.release(ok, bin_grid{0.0, 0.0}, g); }, "width");
  expect_invalid([&] { (void)sh.release(ok, bin_grid{nan_v, 0.0}, g); }, "width");
  const auto em = exponential_mechanism::calibrate(1.0, 1.0);
  expect_invalid([&] { (void)em.select(empty, g); }, "utilities");
  expect_invalid([&] { (void)em.select(bad, g); }, "utilities");
  quantile_options qo;
  expect_invalid([&] { (void)exponential_quantile(empty, qo, g); }, "data");
  qo.quantile = 1.5;
  expect_invalid([&] { (void)exponential_quantile(ok, qo, g); }, "quantile");
  qo = quantile_options{};
  qo.upper = qo.lower;
  expect_invalid([&] { (void)exponential_quantile(ok, qo, g); }, "upper");
  const auto rr = randomized_response::calibrate(1.0, 3);
  expect_invalid([&] { (void)rr.randomize(3, g); }, "x");
  expect_invalid([&] { (void)rr.randomize(-1, g); }, "x");
  std::vector<std::uint64_t> counts = {1, 2};
  expect_invalid([&] { (void)rr.estimate_frequencies(counts); }, "counts");
  const auto lh = local_histogram::calibrate(1.0, 3);
  std::vector<std::uint8_t> bits(3);
  expect_invalid([&] { lh.randomize(3, bits, g); }, "bin");
  expect_invalid([&] { lh.randomize(-2, bits, g); }, "bin");
  std::vector<std::int64_t> none;
  expect_invalid([&] { (void)lh.report_counts(none, g); }, "bins_of_users");
  std::vector<std::int64_t> iv;
  const auto dl = discrete_laplace::calibrate(1.0, 1);
  expect_invalid([&] { dl.privatize(iv, g); }, "v");
}

}  // namespace
