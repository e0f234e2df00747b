// pld_pmf queries, options and the privacy_loss_distribution members. Composition:
// pld_compose.cpp; discretisation of events: pld_discretise.cpp.
#include "dpx/accounting/pld.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dpx/core/detail/log_normal.hpp"
#include "dpx/core/error.hpp"
#include "pld_internal.hpp"

namespace dpx::accounting {

namespace {
using core::detail::inf;
}  // namespace

namespace detail {
void check_pld_pair(const char* fn, const std::vector<double>& p, const std::vector<double>& q) {
  core::check_nonempty_finite_span(fn, "p", p);
  core::check_size(fn, "q", q.size(), p.size());
  core::check_finite_span(fn, "q", q);
  double sp = 0, sq = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    core::check_nonnegative(fn, "p[i]", p[i]);
    core::check_nonnegative(fn, "q[i]", q[i]);
    sp += p[i];
    sq += q[i];
  }
  if (std::abs(sp - 1.0) > 1e-9) core::throw_invalid(fn, "p", sp, "must sum to 1");
  if (std::abs(sq - 1.0) > 1e-9) core::throw_invalid(fn, "q", sq, "must sum to 1");
}

}  // namespace detail

// ---- pld_pmf queries ------------------------------------------------------------------------

double pld_pmf::delta(double epsilon) const {
  core::check_finite("pld_pmf::delta", "epsilon", epsilon);
  double d = infinity_mass;
  for (std::size_t i = probs.size(); i-- > 0;) {
    const double l = static_cast<double>(offset + static_cast<std::int64_t>(i)) * discretization;
    if (l <= epsilon) break;
    d += probs[i] * -std::expm1(epsilon - l);
  }
  return std::clamp(d - error_mass, 0.0, 1.0);
}

double pld_pmf::epsilon(double delta) const {
  core::check_open_interval("pld_pmf::epsilon", "delta", delta, 0.0, 1.0);
  delta += error_mass;  // optimistic: the stored curve may exceed the valid one by error_mass
  if (delta >= 1.0) return 0.0;
  if (infinity_mass >= delta) return inf;
  const double h = discretization;
  const double eh = std::exp(-h);
  // Walk down the grid keeping S = sum_{i>=j} p_i and W = sum_{i>=j} p_i e^{-(l_i - l_j)}.
  double s = 0.0, w = 0.0;
  for (std::size_t j = probs.size(); j-- > 0;) {
    s += probs[j];
    w += probs[j];
    const double lj = static_cast<double>(offset + static_cast<std::int64_t>(j)) * h;
    // delta at l_{j-1} (or below all atoms: the same segment extends to -inf).
    const double d_below = infinity_mass + s - eh * w;
    if (d_below > delta || j == 0) {
      // On [l_{j-1}, l_j]: delta(eps) = inf + S - e^{eps - l_j} W = target.
      if (w <= 0.0) return std::max(0.0, lj);
      if (infinity_mass + s - delta <= 0.0) return 0.0;  // sub-probability (optimistic) PMF
      const double e = lj + std::log((infinity_mass + s - delta) / w);
      return std::max(0.0, std::min(e, lj));
    }
    w *= eh;
  }
  return 0.0;
}

// ---- privacy_loss_distribution ---------------------------------------------------------------

void pld_options::validate() const {
  const char* fn = "pld_options::validate";
  core::check_nonnegative(fn, "discretization", discretization);
  if (discretization > 1.0)
    core::throw_invalid(fn, "discretization", discretization, "must be <= 1");
  core::check_half_open_interval(fn, "tail_mass", tail_mass, 0.0, 1e-3);
  core::check_positive(fn, "epsilon_error", epsilon_error);
  if (epsilon_error >= 1.0) core::throw_invalid(fn, "epsilon_error", epsilon_error, "must be < 1");
  core::check_nonnegative(fn, "epsilon_error_absolute", epsilon_error_absolute);
  core::check_at_least(fn, "max_grid_points", max_grid_points, std::int64_t{1024});
}

pld_grid_error::pld_grid_error(double r, std::int64_t c)
    : std::invalid_argument("pld: the privacy-loss support (" + core::format_double(r) +
                            " nats) does not fit the grid limit (max_grid_points)"),
      range(r),
      count(c) {}

privacy_loss_distribution::privacy_loss_distribution(pld_pmf remove,
                                                     std::shared_ptr<const pld_pmf> add)
    : remove_(std::move(remove)), add_(std::move(add)) {}

privacy_loss_distribution privacy_loss_distribution::compose(const privacy_loss_distribution& other,
                                                             double tail_mass) const {
  pld_pmf r = accounting::compose(remove_, other.remove_, tail_mass);
  if (symmetric() && other.symmetric()) return {std::move(r), nullptr};
  return {std::move(r),
          std::make_shared<pld_pmf>(accounting::compose(add_pmf(), other.add_pmf(), tail_mass))};
}

privacy_loss_distribution privacy_loss_distribution::self_compose(
    std::int64_t count, double tail_mass, bool extended, std::int64_t max_grid_points) const {
  pld_pmf r = accounting::self_compose(remove_, count, tail_mass, extended, max_grid_points);
  if (symmetric()) return {std::move(r), nullptr};
  return {std::move(r),
          std::make_shared<pld_pmf>(
              accounting::self_compose(*add_, count, tail_mass, extended, max_grid_points))};
}

double privacy_loss_distribution::epsilon(double delta) const {
  const double e = remove_.epsilon(delta);
  return add_ ? std::max(e, add_->epsilon(delta)) : e;
}

double privacy_loss_distribution::delta(double epsilon) const {
  const double d = remove_.delta(epsilon);
  return add_ ? std::max(d, add_->delta(epsilon)) : d;
}

}  // namespace dpx::accounting
