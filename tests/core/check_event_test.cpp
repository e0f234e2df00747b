// Properties checked (dpx::core::check_event, the one home of the privacy events' domains):
//  * a valid event of every kind passes, including the edges of each domain (delta 0, sampling
//    rate 1, two categories, batch = dataset, a pair summing to 1 within 1e-10);
//  * every field outside its domain (negative, zero, NaN, inf, too large, wrong sum or length)
//    throws invalid_argument_error naming the caller and exactly that field, with the
//    requirement it failed.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "dpx/core/error.hpp"
#include "dpx/core/privacy.hpp"

namespace dpx::core {
namespace {

constexpr double nan_ = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_ = std::numeric_limits<double>::infinity();

/// check_event(e) throws naming `field` (and the caller "Ctor").
void expect_refused(const privacy_event& e, const std::string& field) {
  try {
    check_event("Ctor", e);
    ADD_FAILURE() << event_name(e) << ": accepted, expected a refusal naming " << field;
  } catch (const invalid_argument_error& x) {
    EXPECT_EQ(x.function(), "Ctor");
    EXPECT_EQ(x.parameter(), field) << x.what();
    EXPECT_FALSE(x.requirement().empty());
    EXPECT_NE(std::string(x.what()).find(x.requirement()), std::string::npos) << x.what();
  }
}

TEST(CheckEvent, ValidEventsOfEveryKindPass) {
  const noise_family g = noise_family::gaussian;
  const std::vector<privacy_event> ok = {
      pure_dp_event{1.0},
      approx_dp_event{1.0, 0.0},
      approx_dp_event{0.5, 0.999},
      laplace_event{2.0},
      gaussian_event{1e-300},
      subsampled_gaussian_event{1.0, 1.0},
      subsampled_gaussian_event{1e-9, 3.0},
      subsampled_laplace_event{0.5, 1.0},
      sampled_without_replacement_event{g, 1.0, 10, 10, neighbouring::replace_one},
      sampled_without_replacement_event{
          noise_family::laplace, 1.0, 1, 1000, neighbouring::add_remove},
      discrete_laplace_event{1.0, 1},
      discrete_gaussian_event{2.0, 0.5},
      randomized_response_event{1.0, 2},
      zcdp_event{0.1},
      discrete_pair_event{{0.5, 0.5 + 1e-10}, {1.0, 0.0}},
      exponential_mechanism_event{0.1},
  };
  for (const auto& e : ok) EXPECT_NO_THROW(check_event("Ctor", e)) << event_name(e);
}

TEST(CheckEvent, EveryFieldOutsideItsDomainIsNamed) {
  for (double bad : {-1.0, 0.0, nan_, inf_}) {
    SCOPED_TRACE(bad);
    expect_refused(pure_dp_event{bad}, "epsilon");
    expect_refused(approx_dp_event{bad, 0.1}, "epsilon");
    expect_refused(laplace_event{bad}, "noise_multiplier");
    expect_refused(gaussian_event{bad}, "noise_multiplier");
    expect_refused(subsampled_gaussian_event{0.1, bad}, "noise_multiplier");
    expect_refused(subsampled_laplace_event{0.1, bad}, "noise_multiplier");
    expect_refused(subsampled_gaussian_event{bad, 1.0}, "sampling_rate");
    expect_refused(subsampled_laplace_event{bad, 1.0}, "sampling_rate");
    expect_refused(
        sampled_without_replacement_event{
            noise_family::gaussian, bad, 1, 2, neighbouring::add_remove},
        "noise_multiplier");
    expect_refused(discrete_laplace_event{bad, 1}, "scale");
    expect_refused(discrete_gaussian_event{bad, 1.0}, "sigma");
    expect_refused(discrete_gaussian_event{1.0, bad}, "sensitivity");
    expect_refused(randomized_response_event{bad, 2}, "epsilon");
    expect_refused(zcdp_event{bad}, "rho");
    expect_refused(exponential_mechanism_event{bad}, "epsilon");
  }
  for (double bad : {-0.1, 1.0, 1.5, nan_}) expect_refused(approx_dp_event{1.0, bad}, "delta");
  for (double bad : {1.0000001, 2.0}) {
    expect_refused(subsampled_gaussian_event{bad, 1.0}, "sampling_rate");
    expect_refused(subsampled_laplace_event{bad, 1.0}, "sampling_rate");
  }
  expect_refused(
      sampled_without_replacement_event{
          noise_family::gaussian, 1.0, 0, 10, neighbouring::replace_one},
      "batch_size");
  expect_refused(
      sampled_without_replacement_event{
          noise_family::laplace, 1.0, 11, 10, neighbouring::replace_one},
      "dataset_size");
  expect_refused(discrete_laplace_event{1.0, 0}, "sensitivity");
  expect_refused(randomized_response_event{1.0, 1}, "categories");
  expect_refused(discrete_pair_event{{}, {}}, "p");
  expect_refused(discrete_pair_event{{0.5, 0.5}, {1.0}}, "q");
  expect_refused(discrete_pair_event{{0.5, 0.6}, {0.5, 0.5}}, "p");
  expect_refused(discrete_pair_event{{0.5, 0.5}, {0.5, 0.4}}, "q");
  expect_refused(discrete_pair_event{{1.5, -0.5}, {0.5, 0.5}}, "p");
  expect_refused(discrete_pair_event{{0.5, 0.5}, {nan_, 1.0}}, "q[0]");
}

}  // namespace
}  // namespace dpx::core
