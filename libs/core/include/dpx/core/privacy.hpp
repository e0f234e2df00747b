#pragma once
/// \file
/// The privacy vocabulary shared by mechanisms (which emit events) and accounting (which
/// interprets them). Mechanisms never depend on accounting and accounting never depends on
/// samplers: both depend only on these plain types.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
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
  bool operator==(const pure_dp_event&) const = default;
};
/// An (epsilon, delta)-DP release with no finer description.
struct approx_dp_event {
  double epsilon;
  double delta;
  bool operator==(const approx_dp_event&) const = default;
};
/// Laplace noise of scale b on a query of L1 sensitivity Delta: noise_multiplier = b / Delta,
/// so the release is (1 / noise_multiplier)-DP.
struct laplace_event {
  double noise_multiplier;
  bool operator==(const laplace_event&) const = default;
};
/// Gaussian noise sigma on a query of L2 sensitivity Delta: noise_multiplier = sigma / Delta.
struct gaussian_event {
  double noise_multiplier;
  bool operator==(const gaussian_event&) const = default;
};
/// Poisson subsampling with rate q followed by a Gaussian release (add/remove neighbours).
struct subsampled_gaussian_event {
  double sampling_rate;
  double noise_multiplier;
  bool operator==(const subsampled_gaussian_event&) const = default;
};
/// Poisson subsampling with rate q followed by a Laplace release of scale b = noise_multiplier x
/// Delta1 (add/remove neighbours).
struct subsampled_laplace_event {
  double sampling_rate;
  double noise_multiplier;
  bool operator==(const subsampled_laplace_event&) const = default;
};
/// Noise family of a subsampled release.
enum class noise_family { gaussian, laplace };
/// A batch of exactly batch_size of the dataset_size records, drawn uniformly without
/// replacement (shuffling into fixed-size batches), followed by a Gaussian or Laplace release.
/// noise_multiplier is the noise scale over the REPLACE-ONE sensitivity of the batch query
/// (e.g. 2C for a sum of per-record gradients clipped to norm C): the batch has a fixed size, so
/// the mechanism on batches is analysed under substitution for both relations
/// (docs/accounting.md, "Subsampling"). `relation` is the neighbouring relation of the
/// datasets: replace_one (dataset_size public), or add_remove (then dataset_size is the size of
/// the larger dataset of a neighbouring pair; using the smallest size that can occur is safe).
struct sampled_without_replacement_event {
  noise_family noise;
  double noise_multiplier;
  std::int64_t batch_size;
  std::int64_t dataset_size;
  neighbouring relation;
  bool operator==(const sampled_without_replacement_event&) const = default;
};
/// Discrete Laplace (two-sided geometric) with scale t on an integer query of sensitivity Delta.
struct discrete_laplace_event {
  double scale;
  std::int64_t sensitivity;
  bool operator==(const discrete_laplace_event&) const = default;
};
/// Discrete Gaussian with parameter sigma on an integer query of L2 sensitivity Delta.
struct discrete_gaussian_event {
  double sigma;
  double sensitivity;
  bool operator==(const discrete_gaussian_event&) const = default;
};
/// k-ary randomized response: report the truth with probability e^eps / (e^eps + k - 1),
/// otherwise one of the other k - 1 values uniformly. k = 2 is Warner's binary RR.
struct randomized_response_event {
  double epsilon;
  std::int64_t categories;
  bool operator==(const randomized_response_event&) const = default;
};
/// Zero-concentrated DP with parameter rho (Bun & Steinke 2016).
struct zcdp_event {
  double rho;
  bool operator==(const zcdp_event&) const = default;
};
/// A mechanism given by its dominating pair of output distributions P (on D) and Q (on D'),
/// on a common finite support (probabilities, each summing to 1).
struct discrete_pair_event {
  std::vector<double> p;
  std::vector<double> q;
  bool operator==(const discrete_pair_event&) const = default;
};

/// The exponential mechanism (McSherry & Talwar 2007) / report-noisy-max with Gumbel noise,
/// selecting with probability proportional to exp(epsilon u / (2 Delta_u)) (or exp(epsilon u /
/// Delta_u) for monotone utilities): epsilon-DP and epsilon-bounded-range (Durfee & Rogers
/// 2019), hence (epsilon^2 / 8)-zCDP (Cesar & Rogers 2021, Lemma 3.2).
struct exponential_mechanism_event {
  double epsilon;
  bool operator==(const exponential_mechanism_event&) const = default;
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
                                   exponential_mechanism_event,
                                   subsampled_laplace_event,
                                   sampled_without_replacement_event>;

/// Short name of the event's kind ("laplace", "gaussian", ...).
std::string event_name(const privacy_event& e);

/// Checks that every parameter of the event lies in its domain, throwing
/// invalid_argument_error that names `function` and the field (e.g. "GaussianDpEvent:
/// noise_multiplier = -1 is invalid (must be finite and > 0)"). The domains: epsilon, noise
/// multipliers, scales, sigma, sensitivity (discrete Gaussian) and rho finite and > 0; delta of
/// approx_dp in [0, 1); sampling_rate in (0, 1]; categories >= 2; integer sensitivity >= 1;
/// 1 <= batch_size <= dataset_size; discrete_pair: p and q nonempty, of one length, entries
/// finite and >= 0, each summing to 1 (within 1e-9). Every event a constructor of dpx's
/// surfaces (Python classes, `dpx account --events`) builds passes through this check, so an
/// invalid event is refused where it is written rather than where it is composed.
void check_event(std::string_view function, const privacy_event& e);

/// The releases of a run, in order, stored as runs of identical consecutive events: an
/// iterative solver that makes T d identical releases (e.g. noisy PGD with per-coordinate noise
/// and T in the millions) stores one run, not T d events. Reads like a sequence of single
/// releases (size, operator[], iteration); runs() gives (event, count) pairs for accountants'
/// compose(event, count). dpx's one event log: the accountants keep theirs in it too, built with
/// merge() (composition does not depend on the order, so each distinct event is one run).
class event_log {
 public:
  struct run {
    privacy_event event;
    std::int64_t count = 0;
  };

  /// Appends one release (merged into the last run when equal to its event).
  void push_back(const privacy_event& e) { append(e, 1); }
  /// Appends `count` (>= 1) identical releases.
  void append(const privacy_event& e, std::int64_t count) {
    if (count <= 0) return;
    if (!runs_.empty() && runs_.back().event == e) {
      runs_.back().count += count;
    } else {
      runs_.push_back({e, count});
      starts_.push_back(size_);
    }
    size_ += static_cast<std::size_t>(count);
  }
  /// Adds `count` (>= 1, else throws invalid_argument_error) releases of `e` to the run that
  /// holds an identical event ANYWHERE in the log, or appends a new run: for order-free
  /// consumers (accountants), so 10^4 alternating events cost two runs, not 10^4.
  void merge(const privacy_event& e, std::int64_t count);
  /// Number of releases (the sum of the run counts).
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const std::vector<run>& runs() const noexcept { return runs_; }
  /// The i-th release (i < size()).
  const privacy_event& operator[](std::size_t i) const {
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), i);
    return runs_[static_cast<std::size_t>(it - starts_.begin()) - 1].event;
  }

  /// Iterates over single releases (each event repeated count times).
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = privacy_event;
    using difference_type = std::ptrdiff_t;
    using pointer = const privacy_event*;
    using reference = const privacy_event&;
    const_iterator() = default;
    const_iterator(const std::vector<run>* runs, std::size_t r, std::int64_t k)
        : runs_(runs), r_(r), k_(k) {}
    reference operator*() const { return (*runs_)[r_].event; }
    pointer operator->() const { return &(*runs_)[r_].event; }
    const_iterator& operator++() {
      if (++k_ == (*runs_)[r_].count) {
        ++r_;
        k_ = 0;
      }
      return *this;
    }
    const_iterator operator++(int) {
      auto t = *this;
      ++*this;
      return t;
    }
    bool operator==(const const_iterator& o) const { return r_ == o.r_ && k_ == o.k_; }

   private:
    const std::vector<run>* runs_ = nullptr;
    std::size_t r_ = 0;
    std::int64_t k_ = 0;
  };
  const_iterator begin() const { return {&runs_, 0, 0}; }
  const_iterator end() const { return {&runs_, runs_.size(), 0}; }

 private:
  std::vector<run> runs_;
  std::vector<std::size_t> starts_;  // index of each run's first release
  std::size_t size_ = 0;
};

}  // namespace dpx::core
