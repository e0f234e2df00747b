#pragma once
/// \file
/// One-call accounting and calibration for the Gaussian (optionally Poisson-subsampled) and
/// Laplace mechanisms under every method, as used by `dpx account` / `dpx calibrate` and the
/// accounting_tightness experiment. All results are upper bounds on epsilon (account) or
/// noise levels whose re-evaluated epsilon is <= the target (calibrate: bisection / Illinois
/// steps that keep the feasible end of the bracket and return it).

#include <cstdint>
#include <memory>
#include <string>

#include "dpx/accounting/accountant.hpp"
#include "dpx/core/composition.hpp"

namespace dpx::accounting {

/// Accounting method: dpx's one enum of composition rules (dpx/core/composition.hpp), of which
/// the account_* / make_accountant functions accept basic (basic composition of per-step
/// (eps0, delta0)), advanced (Dwork-Rothblum-Vadhan, never worse than basic), kov
/// (Kairouz-Oh-Viswanath optimal composition of per-step (eps0, delta0)), rdp (Renyi DP with
/// the improved conversion), zcdp (numerical CKS conversion) and pld (pessimistic privacy loss
/// distribution, tight up to discretisation); other rules are rejected.
using method = core::composition_rule;
using core::to_string;
/// Parses basic | advanced | kov | rdp | zcdp | pld (throws core::invalid_argument_error).
method parse_method(const std::string& s);

/// A fresh accountant for a method: basic / advanced / kov are approx_dp_accountant with that
/// composition rule (they take (eps, delta)-describable events only); rdp, zcdp, pld.
/// epsilon_error sets the PLD accuracy target (pld_options::epsilon_error).
std::unique_ptr<accountant> make_accountant(method m, double epsilon_error = 1e-3);

/// epsilon of `steps` adaptive releases of the Gaussian mechanism with noise multiplier s
/// (sigma / Delta2), each on a Poisson subsample with rate q (q = 1: no subsampling;
/// add/remove neighbours when q < 1), at the given delta.
/// basic / advanced / kov: per-step (eps0, delta0) from the exact Gaussian curve
/// [Balle & Wang 2018], amplified by subsampling to (log(1 + q(e^eps0 - 1)), q delta0)
/// [Balle, Barthe & Gaboardi 2018, Thm 8], the delta split optimised numerically (every split
/// is valid). zcdp rejects q < 1 (no zCDP amplification). pld with q = 1 is exact
/// (sigma / sqrt(T) closed form).
double account_gaussian(
    method m, double noise_multiplier, double sampling_rate, std::int64_t steps, double delta);

/// epsilon of `steps` releases of the Laplace mechanism with b = scale / Delta1.
/// basic is pure DP (steps / b); advanced: DRV with slack delta; kov: exact optimal
/// composition of (1/b)-DP releases; rdp: Mironov's closed form; zcdp: (1/b)^2/2 per step; pld.
double account_laplace(method m, double noise_multiplier, std::int64_t steps, double delta);

/// delta (an upper bound) of the same compositions at a given epsilon >= 0. rdp / zcdp / pld
/// use their accountants' delta(epsilon); basic / advanced / kov invert account_* in log delta
/// (epsilon(delta) is non-increasing) and return the feasible end of the bracket, so
/// account_*(returned delta) <= epsilon. Returns 1 when no delta < 1 reaches epsilon.
double account_gaussian_delta(
    method m, double noise_multiplier, double sampling_rate, std::int64_t steps, double epsilon);
double account_laplace_delta(method m, double noise_multiplier, std::int64_t steps, double epsilon);

/// DP-SGD shorthand (as Opacus' get_noise_multiplier): Poisson sampling rate B / N and
/// steps = ceil(epochs * N / B).
struct dp_sgd_schedule {
  double sampling_rate = 1.0;
  std::int64_t steps = 1;
};
dp_sgd_schedule dp_sgd_schedule_of(std::int64_t dataset_size,
                                   std::int64_t batch_size,
                                   double epochs);
/// Steps of `epochs` passes at Poisson sampling rate q: ceil(epochs / q) (epochs / q within
/// 1e-9 above an integer rounds down to it, so float noise in q = B / N adds no step). Opacus
/// counts int(epochs / q); the ceiling is never fewer steps, so a noise multiplier calibrated
/// for it also covers Opacus' count. Throws (naming sampling_rate / epochs) for q outside
/// (0, 1], epochs not finite and > 0, or more than 1e12 steps.
std::int64_t dp_sgd_steps_of(double sampling_rate, double epochs);

/// Gaussian calibration methods: dpx's one calibration-method enum (core::noise_calibration),
/// of which calibrate_gaussian accepts classical (steps == 1: Dwork & Roth Thm A.1, eps < 1;
/// steps > 1: ISTDP Thm 3.3), analytic (exact Gaussian curve at sigma / sqrt(steps), no
/// subsampling), rdp and pld (the smallest sigma whose RDP / PLD epsilon is <= the target).
using gaussian_calibration = core::noise_calibration;
/// core::parse_noise_calibration restricted to classical, analytic, rdp, pld (parameter
/// "method").
gaussian_calibration parse_gaussian_calibration(const std::string& s);

/// Noise multiplier (sigma per unit L2 sensitivity) for (epsilon, delta) after `steps`
/// releases with Poisson sampling rate q (1 = none).
double calibrate_gaussian(gaussian_calibration m,
                          double epsilon,
                          double delta,
                          std::int64_t steps = 1,
                          double sampling_rate = 1.0);

/// Laplace calibration methods: basic, advanced, kov or pld (of core::composition_rule).
using laplace_method = core::composition_rule;
laplace_method parse_laplace_method(const std::string& s);

/// Laplace scale per unit L1 sensitivity so that `steps` releases are (epsilon, delta)-DP
/// (basic: pure epsilon-DP, delta unused).
double calibrate_laplace(double epsilon, double delta, std::int64_t steps, laplace_method m);

}  // namespace dpx::accounting
