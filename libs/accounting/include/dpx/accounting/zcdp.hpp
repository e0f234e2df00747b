#pragma once
/// \file
/// Zero-concentrated differential privacy [Bun & Steinke 2016]: rho-zCDP means
/// D_alpha(M(D) || M(D')) <= alpha rho for every alpha > 1. Composition adds rho
/// [Bun & Steinke 2016, Lemma 2.3].

#include <cstdint>
#include <string>

#include "dpx/accounting/accountant.hpp"

namespace dpx::accounting {

/// rho of the Gaussian mechanism: 1 / (2 s^2), s = sigma / Delta2 [Bun & Steinke 2016, Prop 1.6].
double zcdp_gaussian_rho(double noise_multiplier);
/// rho implied by pure eps-DP: eps^2 / 2 [Bun & Steinke 2016, Prop 3.3].
double zcdp_pure_dp_rho(double epsilon);

/// Bun-Steinke conversion: rho-zCDP => (rho + 2 sqrt(rho log(1/delta)), delta)-DP
/// [Bun & Steinke 2016, Prop 1.3].
double zcdp_epsilon_bun_steinke(double rho, double delta);
/// Inverse of zcdp_epsilon_bun_steinke: the rho whose Prop. 1.3 conversion gives exactly
/// epsilon, sqrt(rho) = sqrt(log(1/delta) + epsilon) - sqrt(log(1/delta)), rounded DOWN (by a
/// relative 2^-48, which covers the floating-point evaluation): the safe side of a budget.
double zcdp_rho_bun_steinke(double epsilon, double delta);
/// Tighter numerical conversion [Canonne, Kamath & Steinke 2020, Cor 13 / Prop 12]:
/// delta = min_{alpha > 1} exp((alpha-1)(alpha rho - eps) + alpha log(1 - 1/alpha)) / (alpha-1),
/// the minimising alpha found by bisection on the derivative (any alpha gives a valid bound).
double zcdp_delta(double rho, double epsilon);
/// Smallest eps with zcdp_delta(rho, eps) <= delta (bisection, safe side).
double zcdp_epsilon(double rho, double delta);

/// Which conversion the zCDP accountant applies.
enum class zcdp_conversion {
  bun_steinke,  ///< closed form, looser
  numerical,    ///< Canonne-Kamath-Steinke, tighter
};

/// zCDP accountant: gaussian, zcdp, discrete_gaussian (Delta^2/(2 sigma^2) [CKS20, Thm 4]) and
/// pure-DP events (pure_dp, laplace (1/b-DP), randomized_response, discrete_laplace) as
/// eps^2/2. subsampled_gaussian (no zCDP amplification by subsampling), approx_dp and
/// discrete_pair are rejected.
class zcdp_accountant final : public accountant {
 public:
  explicit zcdp_accountant(zcdp_conversion conversion = zcdp_conversion::numerical)
      : conversion_(conversion) {}
  std::string name() const override { return "zcdp"; }
  bool supports(const core::privacy_event& e) const override;
  using accountant::compose;  // compose(const core::event_log&)
  void compose(const core::privacy_event& e, std::int64_t count = 1) override;
  double epsilon(double delta) const override;
  double delta(double epsilon) const override;
  /// The composed rho.
  double rho() const noexcept { return rho_; }

 private:
  zcdp_conversion conversion_;
  double rho_ = 0.0;
};

/// rho of one event (throws unsupported_event_error when it has none).
double event_rho(const core::privacy_event& e);

}  // namespace dpx::accounting
