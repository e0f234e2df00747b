#pragma once
/// \file
/// Renyi differential privacy [Mironov 2017]: per-order RDP of each mechanism, conversion to
/// (epsilon, delta), and the RDP accountant.
///
/// A mechanism is (alpha, r)-RDP if D_alpha(M(D) || M(D')) <= r for all neighbours.
/// Composition adds RDP order by order [Mironov 2017, Prop 1]; conversion to (eps, delta) is
/// minimised over the order grid and the optimal order is reported.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dpx/accounting/accountant.hpp"

namespace dpx::accounting {

/// The default order grid: 1.01, 1.05, 1.1 ... 10.9 (step 0.1), 11 ... 64, and 72 ... 4096
/// (roughly geometric). It reaches far beyond 63 because at sigma = 4, q <= 0.01 the optimal
/// order is > 100 and a grid stopping at 63 loses a factor >= 2 in epsilon.
std::vector<double> default_rdp_orders();

/// RDP of the Gaussian mechanism: alpha / (2 s^2), s = sigma / Delta2 [Mironov 2017, Prop 7].
double rdp_gaussian(double alpha, double noise_multiplier);
/// RDP of the Laplace mechanism with b = scale / Delta1 [Mironov 2017, Prop 6]:
///   1/(alpha-1) log( alpha/(2alpha-1) e^{(alpha-1)/b} + (alpha-1)/(2alpha-1) e^{-alpha/b} ),
/// evaluated in log space (finite for any alpha > 1, b > 0).
double rdp_laplace(double alpha, double noise_multiplier);
/// RDP of the Poisson-subsampled Gaussian mechanism (add/remove neighbours) with rate q and
/// noise multiplier s [Mironov, Talwar & Zhang 2019, Sec 3.3]: log(A_alpha)/(alpha-1) with
/// A_alpha = E_{z~N(0,s^2)}[((1-q) + q e^{(2z-1)/(2s^2)})^alpha].
/// Integer alpha: the binomial sum (MTZ19 eq. (3)) in log space. Fractional alpha: the
/// two-sided series of MTZ19 Sec 3.3 with its alternating signs kept (exact, as Opacus and TF
/// Privacy compute it), not the |term| upper bound. Requires alpha > 1.
double rdp_subsampled_gaussian(double alpha, double sampling_rate, double noise_multiplier);
/// RDP implied by pure eps-DP: min(eps, alpha eps^2 / 2) [Bun & Steinke 2016, Prop 3.3].
double rdp_pure_dp(double alpha, double epsilon);
/// Exact Renyi divergence of a discrete pair, max of both directions:
/// 1/(alpha-1) log sum p^alpha q^(1-alpha) (+inf if some p_i > 0 = q_i).
double rdp_discrete_pair(double alpha, std::span<const double> p, std::span<const double> q);
/// RDP of k-ary randomized response with parameter eps (exact, via rdp_discrete_pair).
double rdp_randomized_response(double alpha, double epsilon, std::int64_t categories);

/// Which RDP -> (eps, delta) conversion to apply.
enum class rdp_conversion {
  classical,  ///< eps = r + log(1/delta)/(alpha-1)               [Mironov 2017, Prop 3]
  improved,   ///< eps = r + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1)
              ///< [Canonne, Kamath & Steinke 2020, Prop 12; Balle et al. 2020, Thm 21],
              ///< with the KL bound delta <= sqrt(1 - e^{-r}) for r small.
};

/// Result of a conversion: the bound and the order that attains it.
struct rdp_epsilon_result {
  double epsilon = 0;  ///< (may be +inf)
  double order = 0;    ///< optimal order (0 when epsilon = 0 via the KL bound)
};
struct rdp_delta_result {
  double delta = 1;
  double order = 0;
};

/// min over orders of the conversion; orders > 1, rdp >= 0 (may be +inf), delta in (0, 1).
rdp_epsilon_result rdp_to_epsilon(std::span<const double> orders,
                                  std::span<const double> rdp,
                                  double delta,
                                  rdp_conversion rule = rdp_conversion::improved);
/// min over orders of delta(eps): classical exp((alpha-1)(r - eps)); improved
/// exp((alpha-1)(r - eps + log(1 - 1/alpha)) - log alpha), min with sqrt(1 - e^{-r}).
rdp_delta_result rdp_to_delta(std::span<const double> orders,
                              std::span<const double> rdp,
                              double epsilon,
                              rdp_conversion rule = rdp_conversion::improved);

/// Options of the RDP accountant.
struct rdp_options {
  std::vector<double> orders = default_rdp_orders();     ///< each finite and > 1
  rdp_conversion conversion = rdp_conversion::improved;  ///< conversion to (eps, delta)
  void validate() const;
};

/// RDP accountant. Supports gaussian, laplace, subsampled_gaussian (add/remove), pure_dp,
/// randomized_response, discrete_pair, discrete_gaussian (Delta^2/(2 sigma^2)-zCDP,
/// Canonne, Kamath & Steinke 2020, Thm 4), discrete_laplace (as pure DP) and zcdp (alpha rho).
/// approx_dp events are rejected (no RDP description). Repeated identical events merge;
/// per-order RDP is computed once per distinct event.
class rdp_accountant final : public accountant {
 public:
  explicit rdp_accountant(rdp_options options = {});
  std::string name() const override { return "rdp"; }
  bool supports(const core::privacy_event& e) const override;
  using accountant::compose;  // compose(const core::event_log&)
  void compose(const core::privacy_event& e, std::int64_t count = 1) override;
  double epsilon(double delta) const override;
  double delta(double epsilon) const override;
  /// epsilon and the optimal order.
  rdp_epsilon_result epsilon_and_order(double delta) const;
  /// The composed RDP curve, one value per order.
  std::vector<double> rdp() const;
  const std::vector<double>& orders() const noexcept { return options_.orders; }

 private:
  rdp_options options_;
  core::event_log ledger_;                              // merged: one run per distinct event
  mutable std::vector<std::vector<double>> per_event_;  // RDP curve of each ledger entry
};

/// Per-order RDP of one event (throws unsupported_event_error for approx_dp).
double event_rdp(const core::privacy_event& e, double alpha);

}  // namespace dpx::accounting
