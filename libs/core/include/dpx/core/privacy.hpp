#pragma once
/// \file
/// The privacy vocabulary shared by mechanisms (which emit events) and accounting (which
/// interprets them). Mechanisms never depend on accounting and accounting never depends on
/// samplers: both depend only on these plain types.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace dpx::core {

/// Which datasets count as neighbours.
enum class neighbouring {
  replace_one,  ///< D and D' differ in the value of one record (same size)
  add_remove,   ///< D' is D with one record added or removed
};

/// What one "record" is.
enum class privacy_unit {
  item,  ///< a single observation
  user,  ///< all observations of one user (user-level DP)
};

/// What a release protects: the neighbouring relation and unit under which its guarantee holds.
struct protection {
  neighbouring relation = neighbouring::replace_one;
  privacy_unit unit = privacy_unit::item;
};

std::string to_string(neighbouring n);
std::string to_string(privacy_unit u);

// ---- privacy events: one release of one mechanism, in its most precise description --------

/// A pure epsilon-DP release with no finer description (e.g. exponential mechanism).
struct pure_dp_event {
  double epsilon;
};
/// An (epsilon, delta)-DP release with no finer description.
struct approx_dp_event {
  double epsilon;
  double delta;
};
/// Laplace noise of scale b on a query of L1 sensitivity Delta: noise_multiplier = b / Delta,
/// so the release is (1 / noise_multiplier)-DP.
struct laplace_event {
  double noise_multiplier;
};
/// Gaussian noise sigma on a query of L2 sensitivity Delta: noise_multiplier = sigma / Delta.
struct gaussian_event {
  double noise_multiplier;
};
/// Poisson subsampling with rate q followed by a Gaussian release (add/remove neighbours).
struct subsampled_gaussian_event {
  double sampling_rate;
  double noise_multiplier;
};
/// Discrete Laplace (two-sided geometric) with scale t on an integer query of sensitivity Delta.
struct discrete_laplace_event {
  double scale;
  std::int64_t sensitivity;
};
/// Discrete Gaussian with parameter sigma on an integer query of L2 sensitivity Delta.
struct discrete_gaussian_event {
  double sigma;
  double sensitivity;
};
/// k-ary randomized response: report the truth with probability e^eps / (e^eps + k - 1),
/// otherwise one of the other k - 1 values uniformly. k = 2 is Warner's binary RR.
struct randomized_response_event {
  double epsilon;
  std::int64_t categories;
};
/// Zero-concentrated DP with parameter rho (Bun & Steinke 2016).
struct zcdp_event {
  double rho;
};
/// A mechanism given by its dominating pair of output distributions P (on D) and Q (on D'),
/// on a common finite support (probabilities, each summing to 1).
struct discrete_pair_event {
  std::vector<double> p;
  std::vector<double> q;
};

/// The exponential mechanism (McSherry & Talwar 2007) / report-noisy-max with Gumbel noise,
/// selecting with probability proportional to exp(epsilon u / (2 Delta_u)) (or exp(epsilon u /
/// Delta_u) for monotone utilities): epsilon-DP and epsilon-bounded-range (Durfee & Rogers
/// 2019), hence (epsilon^2 / 8)-zCDP (Cesar & Rogers 2021, Lemma 3.2).
struct exponential_mechanism_event {
  double epsilon;
};

using privacy_event = std::variant<pure_dp_event,
                                   approx_dp_event,
                                   laplace_event,
                                   gaussian_event,
                                   subsampled_gaussian_event,
                                   discrete_laplace_event,
                                   discrete_gaussian_event,
                                   randomized_response_event,
                                   zcdp_event,
                                   discrete_pair_event,
                                   exponential_mechanism_event>;

/// Short name of the event's kind ("laplace", "gaussian", ...).
std::string event_name(const privacy_event& e);

}  // namespace dpx::core
