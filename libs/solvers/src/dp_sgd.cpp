#include "dpx/solvers/dp_sgd.hpp"

#include "dpx/core/error.hpp"

namespace dpx::solvers {

void dp_sgd_options::validate() const {
  const char* fn = "solvers::dp_sgd_options";
  core::check_at_least(fn, "iterations", iterations, 1);
  core::check_positive(fn, "step_size", step_size);
  core::check_half_open_interval(fn, "sampling_rate", sampling_rate, 0.0, 1.0);
  core::check_positive(fn, "clip_norm", clip_norm);
  core::check_nonnegative(fn, "noise_multiplier", noise_multiplier);
  core::check_nonnegative(fn, "expected_batch_size", expected_batch_size);
  trace.validate(fn);
}

}  // namespace dpx::solvers
