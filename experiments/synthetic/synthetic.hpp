#pragma once
/// \file
/// A synthetic power-law driver for testing the harness itself (not a DP experiment):
///   y = n^slope * exp(noise * z - noise^2 / 2),  z ~ N(0, 1) from the data stream,
/// so E[y] = n^slope exactly and a log-log fit of mean y against n recovers `slope`.
/// work_us busy-waits that many microseconds per replication (to give signal tests time);
/// replication fail_rep throws std::runtime_error (to test failure handling).
/// Header-only so that test executables can register the same driver under their own name.

#include <chrono>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "dpx/core/rng.hpp"
#include "dpx/harness/driver.hpp"

namespace dpx::experiments {

/// Exact Box-Muller transform (Box & Muller 1958): z = sqrt(-2 ln u1) cos(2 pi u2) is N(0, 1)
/// for independent u1, u2 uniform on (0, 1).
template <std::uniform_random_bit_generator G>
double box_muller_normal(G& g) {
  const double u1 = rng::uniform_open01(g);
  const double u2 = rng::uniform_open01(g);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

/// The synthetic_power_law driver (registered under `name`).
inline harness::driver make_synthetic_power_law(std::string name = "synthetic_power_law",
                                                std::string version = "1") {
  harness::driver d;
  d.name = std::move(name);
  d.version = std::move(version);
  d.description = "synthetic y = n^slope * lognormal noise with mean 1 (harness tests)";
  d.params = {
      {"n", "sample size (x axis of the power law), > 0", std::nullopt, harness::positive()},
      {"slope", "exponent of n", harness::param_value{-0.5}, harness::finite()},
      {"noise",
       "sd of the log-normal multiplicative noise, >= 0",
       harness::param_value{0.5},
       harness::non_negative()},
      {"work_us",
       "busy-wait per replication in microseconds",
       harness::param_value{std::int64_t{0}}},
      {"fail_rep",
       "replication index that throws (-1: none)",
       harness::param_value{std::int64_t{-1}}},
  };
  d.data_keys = {"n"};
  d.metric_names = {"y", "log_y"};
  d.run = [](const harness::cell_context& c) -> harness::metrics {
    const double n = c.params.get_double("n");
    const double slope = c.params.get_double("slope");
    const double noise = c.params.get_double("noise");
    const std::int64_t work_us = c.params.get_int("work_us");
    if (static_cast<std::int64_t>(c.replication) == c.params.get_int("fail_rep")) {
      throw std::runtime_error("injected failure at replication " + std::to_string(c.replication));
    }
    if (work_us > 0) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(work_us);
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    auto g = c.stream(rng::purpose::data);
    const double z = box_muller_normal(g);
    const double log_y = slope * std::log(n) + noise * z - 0.5 * noise * noise;
    return {{"y", std::exp(log_y)}, {"log_y", log_y}};
  };
  return d;
}

}  // namespace dpx::experiments
