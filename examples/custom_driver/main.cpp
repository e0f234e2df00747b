// Runs a preset of this project's own driver (driver.cpp) with the dpx harness and prints the
// rate checks: usage `range_mean_experiments PRESET.toml OUT_DIR`. Exit status 0 when every
// gated rate check passed, 1 otherwise, 2 on bad input.
#include <cstdio>
#include <exception>
#include <stdexcept>

#include "dpx/harness/runner.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PRESET.toml OUT_DIR\n", argv[0]);
    return 2;
  }
  try {
    dpx::harness::single_threaded_blas();
    dpx::harness::run_options options;
    options.preset = argv[1];
    options.out_dir = argv[2];
    options.quiet = true;
    const dpx::harness::run_result r = dpx::harness::run_preset(options);
    for (const auto& rate : r.rates) {
      std::printf("%s [%s]: slope %.3f (expected %.3f) %s\n",
                  rate.rate.c_str(),
                  rate.group.c_str(),
                  rate.slope,
                  rate.expected,
                  rate.pass ? "pass" : "FAIL");
    }
    std::printf("%s: %zu/%zu rate checks passed; report %s\n",
                r.experiment.c_str(),
                r.rates_passed,
                r.rates_checked,
                r.report_path.c_str());
    return r.status == dpx::harness::run_status::completed && r.rates_ok() ? 0 : 1;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "range_mean_experiments: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "range_mean_experiments: %s\n", e.what());
    return 1;
  }
}
