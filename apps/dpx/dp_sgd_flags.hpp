#pragma once
// The flags `dpx account` and `dpx calibrate` share: the DP-SGD shorthand
//
//   --dataset-size N --batch-size B --epochs E   ->   Poisson sampling rate q = B / N and
//                                                     steps T = ceil(E N / B)
//
// (dpx::accounting::dp_sgd_schedule_of, Opacus' convention rounded up), and --method's default.
// One home: both commands add the flags, check them and derive (q, T) here.

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include "dpx/accounting/calibration.hpp"
#include "dpx/core/error.hpp"

namespace dpx::cli {

/// --method when the flag is not given, in every command that has it.
inline constexpr const char* default_method = "pld";

/// The help text of a --method flag: its choices and the default.
inline std::string method_help(const std::string& choices, const std::string& note = "") {
  return choices + " (default " + default_method + note + ")";
}

/// --dataset-size, --batch-size, --epochs of one command.
struct dp_sgd_flags {
  std::int64_t dataset_size = 0, batch_size = 0;
  double epochs = 0;
  CLI::Option* dataset_option = nullptr;
  CLI::Option* batch_option = nullptr;
  CLI::Option* epochs_option = nullptr;

  bool have_dataset() const { return dataset_option->count() > 0; }
  bool have_batch() const { return batch_option->count() > 0; }
  bool have_epochs() const { return epochs_option->count() > 0; }
  bool any() const { return have_dataset() || have_batch() || have_epochs(); }
  bool all() const { return have_dataset() && have_batch() && have_epochs(); }
};

/// Adds the three flags to sub (their values land in f, which must outlive the parse).
inline void add_dp_sgd_options(CLI::App& sub, dp_sgd_flags& f) {
  f.dataset_option = sub.add_option("--dataset-size", f.dataset_size, "DP-SGD: dataset size N");
  f.batch_option = sub.add_option(
      "--batch-size", f.batch_size, "DP-SGD: expected batch size B (sampling rate B / N)");
  f.epochs_option =
      sub.add_option("--epochs", f.epochs, "DP-SGD: epochs E (steps = ceil(E N / B))");
}

/// 1 <= --batch-size <= --dataset-size (errors name the flag).
inline void check_dataset_and_batch(const char* fn, const dp_sgd_flags& f) {
  if (f.dataset_size < 1)
    core::throw_invalid(fn, "--dataset-size", std::to_string(f.dataset_size), "must be >= 1");
  if (f.batch_size < 1 || f.batch_size > f.dataset_size) {
    core::throw_invalid(
        fn, "--batch-size", std::to_string(f.batch_size), "must lie in [1, dataset size]");
  }
}

/// --epochs finite and > 0.
inline void check_epochs(const char* fn, const dp_sgd_flags& f) {
  if (!(f.epochs > 0.0) || !std::isfinite(f.epochs)) {
    core::throw_invalid(fn, "--epochs", f.epochs, "must be positive and finite");
  }
}

/// The Poisson schedule (q, T) of --dataset-size/--batch-size/--epochs: all three are needed,
/// and neither --steps nor --sampling-rate may be given beside them (they are what the three
/// define).
inline accounting::dp_sgd_schedule poisson_schedule(const char* fn,
                                                    const dp_sgd_flags& f,
                                                    bool have_steps,
                                                    bool have_rate) {
  if (!f.all()) {
    core::throw_invalid(fn,
                        "--dataset-size",
                        "(partial)",
                        "give --dataset-size, --batch-size and --epochs together");
  }
  if (have_steps) core::throw_invalid(fn, "--steps", "(given)", "not with --dataset-size");
  if (have_rate) core::throw_invalid(fn, "--sampling-rate", "(given)", "not with --dataset-size");
  check_dataset_and_batch(fn, f);
  check_epochs(fn, f);
  try {
    return accounting::dp_sgd_schedule_of(f.dataset_size, f.batch_size, f.epochs);
  } catch (const core::invalid_argument_error& e) {
    // More than 1e12 steps: name the flag.
    core::throw_invalid(fn, "--epochs", f.epochs, e.requirement());
  }
}

}  // namespace dpx::cli
