// PLDs of the Poisson-subsampled Laplace mechanism and of fixed-size batches drawn without
// replacement (dpx/accounting/subsampling.hpp; docs/accounting.md, "Subsampling").
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>

#include "dpx/accounting/subsampling.hpp"
#include "dpx/core/error.hpp"
#include "normal.hpp"
#include "pld_internal.hpp"

namespace dpx::accounting::detail {

namespace {

/// Remove direction of the mixture pair (g P + (1-g) Q, Q) for a symmetric base pair (P, Q) with
/// hockey-stick curve base(.): delta(eps) = g base(eps'), eps' = log((e^eps - 1 + g) / g), for
/// eps > log(1 - g); 1 - e^eps below (no loss lies below log(1 - g)) [Balle, Barthe & Gaboardi
/// 2018, Thm 8 (advanced joint convexity), equality for this pair].
template <class Base>
pld_pmf mixture_remove(
    double g, Base base, double lo, double hi, const pld_options& o, pld_bound bound) {
  const double lg = std::log(g), l1g = std::log1p(-g);
  auto hs = [=](double e) {
    if (e <= l1g) return -std::expm1(e);
    return g * base(log_sub(e, l1g) - lg);
  };
  return pmf_from_curve(hs, lo, hi, o, bound);
}

/// Add direction (Q, g P + (1-g) Q): delta(eps) = (1 - e^eps (1-g)) base(eps''),
/// eps'' = log g + eps - log(1 - e^eps (1-g)), for eps < -log(1-g); 0 above (H_a(Q || gP +
/// (1-g)Q) = (1 - a(1-g)) H_b(Q || P), b = a g / (1 - a(1-g)), and H_b(Q || P) = H_b(P || Q)).
template <class Base>
pld_pmf mixture_add(
    double g, Base base, double lo, double hi, const pld_options& o, pld_bound bound) {
  const double lg = std::log(g), l1g = std::log1p(-g);
  auto hs = [=](double e) {
    if (e >= -l1g) return 0.0;
    const double lf = log1mexp(e + l1g);  // log(1 - e^eps (1 - g))
    return std::exp(lf) * base(lg + e - lf);
  };
  return pmf_from_curve(hs, lo, hi, o, bound);
}

/// The PLD of the symmetric pair whose delta curve for eps >= 0 is that of `r` (a remove-
/// direction PMF): the atoms of r at losses l > 0 (and +inf) are kept, each mirrored to -l with
/// mass e^{-l} p_l (the law of -L under Q of a symmetric pair equals the law of L under P), and
/// the rest of the unit mass sits at 0. Its curve is r's curve for eps >= 0 and
/// 1 - e^eps + e^eps delta_r(-eps) below, so pessimistic (optimistic) r gives a pessimistic
/// (optimistic) symmetric PMF (docs/accounting.md, "Subsampling"). If discretisation made the
/// kept mass exceed 1, the atom at 0 is 0: extra mass only raises a pessimistic curve, and an
/// optimistic one (whose atom at 0 would be negative) is lowered by dropping it.
pld_pmf symmetrize(const pld_pmf& r) {
  pld_pmf s;
  s.discretization = r.discretization;
  s.bound = r.bound;
  s.error_mass = r.error_mass;
  s.infinity_mass = r.infinity_mass;
  const std::int64_t top = r.offset + static_cast<std::int64_t>(r.probs.size()) - 1;
  const std::int64_t k_max = top > 0 ? top : 0;
  s.offset = -k_max;
  s.probs.assign(static_cast<std::size_t>(2 * k_max + 1), 0.0);
  long double kept = r.infinity_mass;
  for (std::int64_t k = 1; k <= k_max; ++k) {
    const std::int64_t i = k - r.offset;
    if (i < 0) continue;
    const double p = r.probs[static_cast<std::size_t>(i)];
    const double m = p * std::exp(-static_cast<double>(k) * r.discretization);
    s.probs[static_cast<std::size_t>(k_max + k)] = p;
    s.probs[static_cast<std::size_t>(k_max - k)] = m;
    kept += static_cast<long double>(p) + m;
  }
  s.probs[static_cast<std::size_t>(k_max)] = static_cast<double>(kept < 1.0L ? 1.0L - kept : 0.0L);
  return s;
}

}  // namespace

privacy_loss_distribution subsampled_laplace_pld(const core::subsampled_laplace_event& e,
                                                 const pld_options& o,
                                                 pld_bound bound) {
  const char* fn = "privacy_loss_distribution::from_event";
  core::check_half_open_interval(fn, "sampling_rate", e.sampling_rate, 0.0, 1.0);
  core::check_positive(fn, "noise_multiplier", e.noise_multiplier);
  core::check_finite(fn, "noise_multiplier", e.noise_multiplier);
  const double g = e.sampling_rate, b = e.noise_multiplier;
  if (g == 1.0) {
    return privacy_loss_distribution::from_event(core::laplace_event{b}, o, bound);
  }
  auto base = [b](double x) { return laplace_hockey_stick(x, b); };
  // Loss range of the remove pair: log((1-g) + g e^{l}) for the base loss l in [-1/b, 1/b].
  const double lo = std::log1p(g * std::expm1(-1.0 / b));
  const double hi = std::log1p(g * std::expm1(1.0 / b));
  return privacy_loss_distribution(
      mixture_remove(g, base, lo, hi, o, bound),
      std::make_shared<pld_pmf>(mixture_add(g, base, -hi, -lo, o, bound)));
}

privacy_loss_distribution without_replacement_pld(const core::sampled_without_replacement_event& e,
                                                  const pld_options& o,
                                                  pld_bound bound) {
  // add/remove: the Poisson pairs with rate gamma; replace-one: the symmetrisation of the
  // remove direction (subsampling.hpp).
  auto pld = privacy_loss_distribution::from_event(poisson_equivalent(e), o, bound);
  if (e.relation == core::neighbouring::add_remove || pld.symmetric()) return pld;
  return {symmetrize(pld.remove_pmf()), nullptr};
}

}  // namespace dpx::accounting::detail
