#pragma once
/// \file
/// The exact privacy of T composed Gaussian releases, from the closed form and a cell's inputs
/// only (no call into dpx::accounting): the oracle that accounting_tightness holds the
/// accountants and calibrations to. T releases of sensitivity 1 with noise multiplier sigma
/// compose to one Gaussian release with multiplier sigma/sqrt(T) (the Gaussian privacy-loss
/// distribution is closed under composition; Dong, Roth & Su 2022, Cor. 2.5: mu-GDP with
/// mu = sqrt(T)/sigma), whose exact (eps, delta) curve is Balle & Wang (2018), Thm. 8:
///   delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2).

#include <cstdint>

namespace dpx::experiments::pgd_theory {

/// delta(eps) of a mu-GDP mechanism (Balle & Wang 2018, Thm. 8), mu > 0, eps >= 0. The second
/// term is evaluated as exp(eps + log Phi(.)) so that it neither overflows nor cancels early.
double gaussian_delta(double mu, double epsilon);

/// The smallest eps >= 0 with gaussian_delta(mu, eps) <= delta (bisection to relative 1e-13).
double gaussian_epsilon(double mu, double delta);

/// The smallest noise multiplier sigma (sensitivity 1) for which T composed Gaussian releases are
/// (epsilon, delta)-DP: sigma = sqrt(T) / mu* with mu* the largest mu whose
/// gaussian_delta(mu, epsilon) <= delta (bisection to relative 1e-13).
double gaussian_composition_sigma(double epsilon, double delta, std::int64_t steps);

}  // namespace dpx::experiments::pgd_theory
