#pragma once
/// \file
/// Privacy loss distributions (PLD) [Meiser & Mohammadi 2018; Sommer, Meiser & Mohammadi 2019;
/// Koskela, Jalko & Honkela 2020], discretised on the grid {i h} and composed by FFT (FFTW), in
/// two directions of rounding that bracket the exact answer:
///
/// * PESSIMISTIC (connect-the-dots, [Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022,
///   Alg. 1]): the delta(eps) curve of the grid PMF is the chord (linear in e^eps) of the exact
///   convex curve through the grid points, plus the mass above the top point at +inf. It is >=
///   the exact curve everywhere, so every eps / delta computed from it is an UPPER bound.
/// * OPTIMISTIC (docs/accounting.md, "The certified bracket"): the grid measure whose delta
///   curve is the lower convex hull of the exact values lowered by a certified bound on the
///   chord error, (x_{i+1} - x_i)(s_{i+1} - s_{i-1}) / 4 (s_k: neighbouring chord slopes, which
///   bound the derivative of a convex function), floored by the valid lower bound 1 - m e^eps.
///   Its curve is <= the exact curve everywhere (a sub-probability measure), so every eps /
///   delta computed from it is a LOWER bound. Both constructions are second order in h.
///
/// For a mechanism with dominating pair (P, Q) the privacy loss L = log(P(x)/Q(x)), x ~ P,
/// determines delta(eps) = E[(1 - e^{eps - L})_+] (with L = +inf on {Q = 0}), and adaptive
/// composition adds independent losses (convolution). Dominance in either direction is
/// preserved by convolution (delta_{A*B}(eps) = E_{L_B}[delta_A(eps - L_B)] is monotone in both
/// curves), so the bracket survives composition. Truncation: pessimistic PMFs move the
/// lower-tail mass UP to the first kept grid point and the upper tail to +inf; optimistic PMFs
/// drop both tails, and the mass the circular FFT may alias into the window is recorded in
/// error_mass and subtracted at query time. Up to floating-point rounding (relative ~1e-12, FFT
/// noise ~1e-17 per grid point) the bracket is certified.
///
/// Both directions (remove: P = M(D), Q = M(D'); add: the reverse) are tracked; queries take
/// the worse of the two. Symmetric mechanisms share one PMF.

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dpx/accounting/accountant.hpp"

namespace dpx::accounting {

/// Direction of rounding of a discretised PLD (see the file comment).
enum class pld_bound { pessimistic, optimistic };

/// Options of PLD construction and composition.
struct pld_options {
  /// Grid spacing h of the privacy loss (nats). 0 (default) = AUTOMATIC: the accountant picks
  /// h from the events' loss scale and refines it until the certified bracket
  /// [epsilon_lower, epsilon] is narrower than the accuracy target below. A positive value fixes
  /// the grid (no refinement; the bracket is still reported). In [0, 1].
  double discretization = 0.0;
  /// Accuracy target of the automatic grid: upper - lower <= max(epsilon_error * upper,
  /// epsilon_error_absolute). Relative (not PRV's absolute eps_error) because epsilon ranges
  /// over orders of magnitude. Defaults: 1e-3 and 1e-5 (the upper bound is then within 0.1 %,
  /// or 1e-5 absolute, of the exact epsilon).
  double epsilon_error = 1e-3;
  double epsilon_error_absolute = 1e-5;
  /// Largest grid (points of one PMF or of one composition window) the accountant may use;
  /// when the target would need more, the bracket at the finest affordable grid is returned
  /// (converged = false); a composition window that fits no grid is refused (pld_grid_error
  /// with its count; the accountant throws invalid_argument_error naming `count`).
  std::int64_t max_grid_points = std::int64_t{1} << 22;
  /// Mass allowed in each truncated tail when building one mechanism's PLD and after each
  /// convolution (moved pessimistically / dropped optimistically, see above). In (0, 1e-3].
  /// The accountant's epsilon queries use min(tail_mass, delta / 1000).
  double tail_mass = 1e-15;
  /// Compose Gaussian events exactly (T Gaussians = one Gaussian with sigma / sqrt(T)) and
  /// answer all-Gaussian queries with the closed form instead of a discretised PLD.
  bool gaussian_fast_path = true;
  /// Largest grid of the PESSIMISTIC PLD under the automatic grid (nats): the upper bound is
  /// then at least as tight as a connect-the-dots PLD on the grid 1e-4 (dp_accounting's default
  /// value_discretization_interval; the composed error is second order in h, 0.64x at 8e-5),
  /// whatever the loss scale. Finer grids are used where the loss scale asks for them.
  static constexpr double max_automatic_discretization = 8e-5;
  /// Grid used by from_event when discretization == 0.
  static constexpr double default_discretization = 5e-4;
  void validate() const;
};

/// Thrown by from_event when the loss support does not fit max_grid_points at the requested
/// grid (e.g. noise multiplier 1e-200): `range` is the support width in nats (may be +inf).
/// Thrown by self_compose when the count-fold composition's window does not fit: `count` is
/// then the composition count (0 otherwise).
class pld_grid_error : public std::invalid_argument {
 public:
  explicit pld_grid_error(double range, std::int64_t count = 0);
  double range;
  std::int64_t count;
};

/// One direction of a discretised privacy loss distribution: probs[i] is the mass at loss
/// (offset + i) * h; infinity_mass is the mass at +inf. Masses sum to 1.
struct pld_pmf {
  double discretization = 5e-4;  ///< h
  std::int64_t offset = 0;       ///< grid index of probs[0]
  std::vector<double> probs;     ///< masses, >= 0
  double infinity_mass = 0.0;    ///< mass at +inf (includes truncated upper tails)
  /// Rounding direction. Optimistic PMFs are sub-probability measures.
  pld_bound bound = pld_bound::pessimistic;
  /// Optimistic only: bound on the mass the circular FFT may have aliased into the window
  /// (raises the curve); subtracted from delta at query time.
  double error_mass = 0.0;

  /// delta(eps) = infinity_mass + sum_i probs[i] (1 - e^{eps - l_i})_+ (any finite eps), minus
  /// error_mass for optimistic PMFs (clamped to [0, 1]).
  double delta(double epsilon) const;
  /// Smallest eps >= 0 with delta(eps) <= delta (closed form on the linear-in-e^eps segment,
  /// evaluated relative to the segment: no overflow for eps > 709); +inf if infinity_mass >= delta.
  double epsilon(double delta) const;
};

/// Convolution of two PMFs on the same grid (FFTW r2c/c2r), tails truncated pessimistically.
pld_pmf compose(const pld_pmf& a, const pld_pmf& b, double tail_mass);
/// count-fold self-composition in one pass: one forward FFT, pointwise count-th power, one
/// inverse FFT on a window chosen by Chernoff bounds (tail_mass / 2 each side); the mass that the
/// circular convolution folds down from above the window is covered by adding tail_mass / 2 to
/// the mass at +inf, so the result stays pessimistic.
/// `extended`: the FFT in long double (noise floor ~count * 2^-64 instead of count * 2^-52;
/// several times slower), for large counts at small delta.
/// Throws pld_grid_error when the window needs more than max_grid_points points (the work is
/// bounded: e.g. 10^12 steps of a finely discretised event).
pld_pmf self_compose(const pld_pmf& a,
                     std::int64_t count,
                     double tail_mass,
                     bool extended = false,
                     std::int64_t max_grid_points = std::int64_t{1} << 22);
/// One PMF and how many copies of it a composition takes.
using pld_part = std::pair<const pld_pmf*, std::int64_t>;
/// The composition of count_i copies of every part, in one pass: one forward FFT per part, the
/// pointwise count_i-th powers multiplied, one inverse FFT, on one circular window chosen by
/// Chernoff bounds on the sum (as self_compose; the same validity argument, the same
/// `extended` and max_grid_points). All parts must share the grid h and the rounding
/// direction. Throws pld_grid_error (with count = the largest count) when the window does not
/// fit max_grid_points.
pld_pmf compose_parts(const std::vector<pld_part>& parts,
                      double tail_mass,
                      bool extended = false,
                      std::int64_t max_grid_points = std::int64_t{1} << 22);
/// The same by repeated squaring (O(log count) FFTs, tails truncated after each); a baseline.
pld_pmf self_compose_by_squaring(const pld_pmf& a, std::int64_t count, double tail_mass);

/// A privacy loss distribution: the remove-direction PMF and, for asymmetric mechanisms, the
/// add-direction PMF.
class privacy_loss_distribution {
 public:
  /// Pessimistic PLD of one event. Supported: gaussian, laplace, subsampled_gaussian
  /// (Poisson sampling, add/remove neighbours, both directions), randomized_response,
  /// discrete_pair (both directions), pure_dp and approx_dp (their dominating pairs, which
  /// makes composition the exact optimal composition up to discretisation).
  /// Throws unsupported_event_error otherwise.
  /// Throws pld_grid_error when the support needs more than options.max_grid_points points.
  static privacy_loss_distribution from_event(const core::privacy_event& e,
                                              const pld_options& options = {},
                                              pld_bound bound = pld_bound::pessimistic);
  /// Builds from explicit PMFs (add may be empty: symmetric).
  privacy_loss_distribution(pld_pmf remove, std::shared_ptr<const pld_pmf> add);

  privacy_loss_distribution compose(const privacy_loss_distribution& other, double tail_mass) const;
  privacy_loss_distribution self_compose(std::int64_t count,
                                         double tail_mass,
                                         bool extended = false,
                                         std::int64_t max_grid_points = std::int64_t{1}
                                                                        << 22) const;

  double epsilon(double delta) const;
  double delta(double epsilon) const;
  const pld_pmf& remove_pmf() const noexcept { return remove_; }
  /// add-direction PMF (== remove_pmf() for symmetric mechanisms).
  const pld_pmf& add_pmf() const noexcept { return add_ ? *add_ : remove_; }
  bool symmetric() const noexcept { return !add_; }

 private:
  pld_pmf remove_;
  std::shared_ptr<const pld_pmf> add_;
};

/// Certified bracket lower <= exact <= upper of an epsilon (or delta) query.
struct pld_bracket {
  double lower = 0.0;           ///< from the optimistic PLD (a certified lower bound)
  double upper = 0.0;           ///< from the pessimistic PLD (the reported upper bound)
  double discretization = 0.0;  ///< grid h used (0: exact closed form)
  bool converged = true;        ///< accuracy target met (false: grid limit reached)
};

/// PLD accountant: events are merged (identical events counted) and all distinct events are
/// composed in one FFT pass (compose_parts), lazily at query time; the single-step PMF of every
/// distinct event is cached per grid, so a later compose or query at the same grid rebuilds
/// only the composition. epsilon / delta build only the pessimistic PLD, on the grid
/// upper_discretization(); epsilon_bracket / delta_bracket also build the optimistic PLD and,
/// with the automatic grid, refine it until the bracket meets the accuracy target.
/// Every upper end is min(PLD upper bound, RDP upper bound) when rdp_accountant supports every
/// event (both are certified upper bounds), and a single Laplace release is answered by its
/// closed form. Unsupported: zcdp, discrete_gaussian, discrete_laplace.
class pld_accountant final : public accountant {
 public:
  explicit pld_accountant(pld_options options = {});
  std::string name() const override { return "pld"; }
  bool supports(const core::privacy_event& e) const override;
  using accountant::compose;  // compose(const core::event_log&)
  void compose(const core::privacy_event& e, std::int64_t count = 1) override;
  /// Upper bound on epsilon from the pessimistic PLD alone (no optimistic PLD is built; +inf
  /// when the loss support cannot be
  /// discretised, e.g. noise multiplier 1e-200). Throws invalid_argument_error naming delta
  /// when delta is below the floating-point resolution of the composition (about
  /// 8 (T 2^-64 + k 2^-52) for the largest count T and k distinct events; e.g. delta < 4e-19 at
  /// T = 10): no certified answer exists there, and the work would be unbounded.
  double epsilon(double delta) const override;
  /// Upper bound on delta from the pessimistic PLD alone (as epsilon).
  double delta(double epsilon) const override;
  /// Certified [lower, upper] bracket of the exact epsilon at delta.
  pld_bracket epsilon_bracket(double delta) const;
  /// Certified [lower, upper] bracket of the exact delta at epsilon (the grid is refined until
  /// upper - lower <= epsilon_error * upper + 1e-14).
  pld_bracket delta_bracket(double epsilon) const;
  const pld_options& options() const noexcept { return options_; }
  /// Grid of the pessimistic PLD of epsilon / delta for the current ledger: the fixed
  /// discretization, or the automatic choice (the loss-scale model of the bracket's first grid
  /// at a 10x tighter target, capped by max_automatic_discretization and, for a single
  /// Laplace / pure-DP kind, shrunk so that its atoms lie on the grid). A search over a
  /// parameter (calibration) may fix this grid for all its evaluations.
  double upper_discretization() const;

 private:
  /// One rounding direction's composition and the key it was built for.
  struct side {
    std::shared_ptr<const privacy_loss_distribution> pld;  // null: all-Gaussian closed form
    double h = 0.0;
    double tail = 0.0;
    bool extended = false;
    bool valid = false;
  };
  /// Builds (or reuses) the composition in direction `bound` at grid h; throws pld_grid_error
  /// when the grid (of one PMF or of a self-composition window) exceeds max_grid_points.
  void build(pld_bound bound, double h, bool extended, double tail) const;
  /// Whether the largest self-composition count needs the long-double FFT at this delta.
  bool needs_extended(double delta) const;
  /// Smallest delta an epsilon query may ask for: below it the FFT round-off of the
  /// composition (count * 2^-64 per self-composition, 2^-52 per convolution) could reach the
  /// answer itself, so no certified epsilon exists.
  double resolution_floor() const;
  double initial_grid() const;
  /// Variance-per-step scale of the composed loss (steers the automatic grids; 0 if unknown).
  double loss_scale() const;
  /// The single-step PLD of `e` at grid h, per-copy tail `tail`, direction `bound` (cached).
  std::shared_ptr<const privacy_loss_distribution> single(const core::privacy_event& e,
                                                          double h,
                                                          double tail,
                                                          pld_bound bound) const;
  template <class Query>
  pld_bracket refine(Query q, bool epsilon_query, double delta, bool want_lower) const;
  /// epsilon / delta with (want_lower) or without the optimistic side.
  pld_bracket epsilon_query(double delta, bool want_lower) const;
  pld_bracket delta_query(double epsilon, bool want_lower) const;
  pld_options options_;
  core::event_log ledger_;  // merged: one run per distinct event
  mutable side upper_, lower_;
  mutable double gaussian_multiplier_ = 0.0;
  struct cached_pld {
    core::privacy_event event;
    double h, tail;
    pld_bound bound;
    std::shared_ptr<const privacy_loss_distribution> pld;
  };
  mutable std::vector<cached_pld> cache_;
};

}  // namespace dpx::accounting
