#pragma once
// The event-log file of `dpx account --events FILE` (docs/cli.md): a JSON array of events with
// counts, or an object {"events": [...]}. Each event is {"kind": K, params..., "count": n}:
//   gaussian / laplace {noise_multiplier}, subsampled_gaussian / subsampled_laplace
//   {sampling_rate, noise_multiplier}, sampled_without_replacement {noise: gaussian | laplace,
//   noise_multiplier, batch_size, dataset_size, neighbouring: replace_one | add_remove},
//   randomized_response {epsilon, categories = 2}, pure_dp {epsilon}, approx_dp {epsilon, delta},
//   discrete_pair {p, q}, discrete_laplace {scale, sensitivity = 1}, discrete_gaussian {sigma,
//   sensitivity}, zcdp {rho}, exponential_mechanism {epsilon}; count is an integer >= 1 (default
//   1).
// Strict: an unknown kind, a missing, mistyped or out-of-range parameter (scales, epsilons,
// rho > 0 and finite; probabilities in [0, 1], delta < 1, sampling_rate > 0; categories >= 2;
// sensitivity >= 1; p and q of one length, each summing to 1), an unknown key, a count below 1
// or a total above max_event_releases is an error (std::invalid_argument naming "--events",
// the file, the event's index and key, never a value from the file).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "dpx/core/privacy.hpp"

namespace dpx::cli {

/// Most releases one events file may describe (sum of the counts): 2^53, so that every count
/// and their total are exact in a double and the log's 64-bit total cannot overflow.
inline constexpr std::int64_t max_event_releases = std::int64_t{1} << 53;
/// Largest events file read (bytes).
inline constexpr std::size_t max_events_file_bytes = std::size_t{64} << 20;

/// Parses the text of an events file; `path` only names the file in messages.
dpx::core::event_log parse_events_json(std::string_view text, const std::string& path);
/// Reads and parses an events file (a directory, an unreadable or oversized file is an error).
dpx::core::event_log read_events_file(const std::string& path);

}  // namespace dpx::cli
