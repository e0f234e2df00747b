// The defaults of the harness options structs are valid (issue 19 item 3; the library's other
// options structs are checked in tests/solvers, tests/estimators and tests/audit). A struct
// whose every field has a usable default passes its own validate(); a required field without
// one (the preset of run/report/collect/status, the absolute paths of emit-slurm) is rejected
// by name, never silently used. Each validate() also rejects one bad value (negative control:
// the default test can fail).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "dpx/core/error.hpp"
#include "dpx/harness/analysis.hpp"
#include "dpx/harness/preset.hpp"
#include "dpx/harness/runner.hpp"
#include "dpx/harness/scale.hpp"

namespace {

namespace h = dpx::harness;

// The message of the exception f throws (std::invalid_argument or a subclass), "" if none.
template <class F>
std::string thrown_message(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(HarnessOptionsDefaults, RunOptionsValidate) {
  EXPECT_NO_THROW(h::run_options{}.validate());
  h::run_options contradictory;
  contradictory.force = true;
  contradictory.resume = true;
  EXPECT_THROW(contradictory.validate(), std::invalid_argument);
  h::run_options bad_shard;
  bad_shard.shard_index = 1;  // with the default shard_count = 1
  EXPECT_THROW(bad_shard.validate(), std::invalid_argument);
}

TEST(HarnessOptionsDefaults, AnalysisOptionsValidate) {
  EXPECT_NO_THROW(h::analysis_options{}.validate());
  h::analysis_options no_resamples;
  no_resamples.bootstrap = 0;
  EXPECT_NE(thrown_message([&] { no_resamples.validate(); }).find("bootstrap"), std::string::npos);
  h::analysis_options certain;
  certain.confidence = 1.0;
  EXPECT_NE(thrown_message([&] { certain.validate(); }).find("confidence"), std::string::npos);
}

TEST(HarnessOptionsDefaults, SlurmOptionsNeedOnlyTheirAbsolutePaths) {
  // The four paths are required (no default can be right for every site); every other field's
  // default is valid once they are given.
  h::slurm_options o;
  o.preset_path = "/abs/experiments/x/preset.toml";
  o.out_dir = "/abs/results/x";
  o.workdir = "/abs";
  o.dpx = "/abs/bin/dpx";
  EXPECT_NO_THROW(o.validate());
  EXPECT_NE(thrown_message([] { h::slurm_options{}.validate(); }).find("preset path"),
            std::string::npos);
  h::slurm_options bad_time = o;
  bad_time.time = "1 hour";
  EXPECT_NE(thrown_message([&] { bad_time.validate(); }).find("--time"), std::string::npos);
}

// run/report/collect/status need the preset: the default (empty) is rejected as an unknown
// preset before anything is read or written.
TEST(HarnessOptionsDefaults, PresetIsARequiredField) {
  EXPECT_THROW(h::run_preset(h::run_options{}), h::preset_error);
  EXPECT_THROW(h::report_preset(h::report_options{}), h::preset_error);
  EXPECT_THROW(h::collect_preset(h::collect_options{}), h::preset_error);
  EXPECT_THROW(h::status_preset(h::status_options{}), h::preset_error);
}

}  // namespace
