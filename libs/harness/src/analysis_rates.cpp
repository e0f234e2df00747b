// Rate fits: log-log least squares per group with a deterministic joint bootstrap over
// replications (docs/outputs.md, "Rates").
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "analysis_internal.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/hash.hpp"
#include "dpx/core/rng.hpp"

namespace dpx::harness {

using namespace analysis_internal;

namespace {

struct x_point {
  double x = 0;
  std::map<std::uint32_t, double> by_rep;  ///< replication -> y (ok rows, y not NaN)
  std::set<std::string> cells;
};

/// Fits one group; fills slope, intercept, r2, CI, points, replications, pass, note (and for
/// ratio_bound value and value_hi: the statistic and its upper interval end, maximised over x).
void fit_group(const rate_spec& spec,
               const std::map<double, x_point>& points,
               const analysis_options& options,
               rate_result& res) {
  res.slope = res.intercept = res.r2 = res.ci_lo = res.ci_hi = nan_v;
  res.value = res.value_hi = nan_v;
  res.pass = false;
  const bool bound = spec.kind == rate_kind::ratio_bound;
  std::vector<const x_point*> in;
  for (const auto& [x, p] : points) {
    if (spec.fit_range && (x < spec.fit_range->first || x > spec.fit_range->second)) continue;
    in.push_back(&p);
  }
  res.points = in.size();
  for (const x_point* p : in) {
    if (p->cells.size() > 1) {
      res.note = "x = " + format_number(p->x) + " matches " + std::to_string(p->cells.size()) +
                 " cells; add the parameters that differ to group_by or where";
      return;
    }
  }
  if (spec.kind == rate_kind::audit) {
    // audit: every audit (replication) at every x is a lower bound at the driver's confidence;
    // the claim holds when none exceeds bound_constant. All replications count (none is left
    // out for missing at another x: each audit stands alone).
    if (in.empty()) {
      res.note = "no x value inside the fit range";
      return;
    }
    res.value = -std::numeric_limits<double>::infinity();
    std::size_t n = 0;
    for (const x_point* p : in) {
      for (const auto& [rep, y] : p->by_rep) {
        if (!std::isfinite(y)) {
          res.note = spec.y + " at x = " + format_number(p->x) + " is not finite";
          res.value = nan_v;
          return;
        }
        res.value = std::max(res.value, y);
        ++n;
      }
    }
    res.audits = n;
    std::size_t most = 0;
    for (const x_point* p : in) most = std::max(most, p->by_rep.size());
    res.replications = most;
    if (n == 0) {
      res.value = nan_v;
      res.note = "no audit (ok row, y not NaN) inside the fit range";
      return;
    }
    res.pass = res.value <= res.bound;
    return;
  }
  if (bound && in.empty()) {
    res.note = "no x value inside the fit range";
    return;
  }
  if (!bound && in.size() < 3) {
    res.note = "only " + std::to_string(in.size()) +
               " x values inside the fit range (need >= 3; >= 5 log-spaced recommended)";
    return;
  }
  // Replications present at every x (rows are matched by rep).
  std::vector<std::uint32_t> reps;
  for (const auto& [rep, _] : in.front()->by_rep) {
    bool everywhere = true;
    for (const x_point* p : in) everywhere = everywhere && p->by_rep.count(rep) != 0;
    if (everywhere) reps.push_back(rep);
  }
  std::size_t max_reps = 0;
  for (const x_point* p : in) max_reps = std::max(max_reps, p->by_rep.size());
  res.replications = reps.size();
  if (reps.empty()) {
    res.note = "no replication is present (ok, y not NaN) at every x";
    return;
  }
  std::string note;
  // One replication: a deterministic quantity (e.g. an accountant's epsilon). Resampling it is
  // the identity, so the interval has zero width and the check reduces to the tolerance.
  if (reps.size() == 1) note = "one replication: deterministic values, zero-width interval";
  if (reps.size() < max_reps) {
    note = std::to_string(max_reps - reps.size()) + " replications missing at some x were left out";
  }
  const std::size_t m = reps.size();
  const std::size_t np = in.size();
  const bool median = spec.statistic == "median";
  std::vector<std::vector<double>> v(np, std::vector<double>(m));
  std::vector<double> xs(np), agg(np), scratch;
  for (std::size_t p = 0; p < np; ++p) {
    xs[p] = in[p]->x;
    for (std::size_t i = 0; i < m; ++i) v[p][i] = in[p]->by_rep.at(reps[i]);
    agg[p] = aggregate(v[p], median, scratch);
    if (bound) {
      if (!std::isfinite(agg[p])) {
        res.note =
            spec.statistic + " of " + spec.y + " at x = " + format_number(xs[p]) + " is not finite";
        return;
      }
      continue;
    }
    if (!(std::isfinite(xs[p]) && xs[p] > 0)) {
      res.note = "x = " + format_number(xs[p]) + " is not positive (cannot take logs)";
      return;
    }
    if (!(std::isfinite(agg[p]) && agg[p] > 0)) {
      res.note = spec.statistic + " of " + spec.y + " at x = " + format_number(xs[p]) + " is " +
                 format_number(agg[p]) + " (must be finite and > 0 to take logs)";
      return;
    }
  }
  if (!bound) {
    const loglog_fit fit = fit_loglog(xs, agg);
    res.slope = fit.slope;
    res.intercept = fit.intercept;
    res.r2 = fit.r2;
  }

  // Joint bootstrap over replication indices: the same multiset of replications at every x.
  std::vector<double> lxc(np);
  double mlx = 0;
  double sxx = 0;
  if (!bound) {
    for (std::size_t p = 0; p < np; ++p) mlx += std::log(xs[p]);
    mlx /= static_cast<double>(np);
    for (std::size_t p = 0; p < np; ++p) {
      lxc[p] = std::log(xs[p]) - mlx;
      sxx += lxc[p] * lxc[p];
    }
  }
  // Control rows draw from their own stream, so adding a control never changes a main CI.
  const std::string stream_key = res.rate + (res.control ? "|control|" : "|") + res.group;
  auto g =
      rng::stream(options.base_seed, core::stable_hash(stream_key), 0, rng::purpose::bootstrap);
  const auto nb = static_cast<std::size_t>(options.bootstrap);
  std::vector<double> slopes;
  slopes.reserve(nb);
  std::vector<std::vector<double>> stats(bound ? np : 0);  // ratio_bound: resampled statistics
  for (auto& st : stats) st.reserve(nb);
  // A resample is represented by the multiplicity of each replication (same at every x).
  // The mean is then sum_i cnt_i v_i / m; the median is found by walking each x's values in
  // sorted order until half the multiset is passed (exact order statistics, O(m) per x).
  std::vector<std::uint32_t> cnt(m);
  std::vector<std::vector<std::uint32_t>> order(median ? np : 0);
  for (std::size_t p = 0; p < order.size(); ++p) {
    order[p].resize(m);
    std::iota(order[p].begin(), order[p].end(), 0u);
    std::stable_sort(order[p].begin(), order[p].end(), [&](std::uint32_t a, std::uint32_t b) {
      return v[p][a] < v[p][b];
    });
  }
  const std::size_t h = m / 2;  // 0-based index of the upper middle order statistic
  std::size_t dropped = 0;
  for (std::size_t b = 0; b < nb; ++b) {
    std::fill(cnt.begin(), cnt.end(), 0u);
    for (std::size_t i = 0; i < m; ++i) ++cnt[rng::uniform_below(g, m)];
    double sxy = 0;
    bool ok = true;
    for (std::size_t p = 0; p < np && ok; ++p) {
      double s = 0;
      if (median) {
        // lower = order statistic h-1 (only needed for even m), upper = order statistic h.
        double lower = nan_v, upper = nan_v;
        std::size_t seen = 0;
        for (const std::uint32_t i : order[p]) {
          if (cnt[i] == 0) continue;
          const std::size_t before = seen;
          seen += cnt[i];
          if (h >= 1 && before <= h - 1 && h - 1 < seen) lower = v[p][i];
          if (before <= h && h < seen) {
            upper = v[p][i];
            break;
          }
        }
        s = (m % 2 == 1) ? upper : lower + 0.5 * (upper - lower);
      } else {
        const std::vector<double>& vp = v[p];
        for (std::size_t i = 0; i < m; ++i) s += static_cast<double>(cnt[i]) * vp[i];
        s /= static_cast<double>(m);
      }
      if (bound) {
        stats[p].push_back(s);
        continue;
      }
      if (!(std::isfinite(s) && s > 0)) {
        ok = false;
        break;
      }
      sxy += lxc[p] * std::log(s);
    }
    if (bound) continue;
    if (!ok) {
      ++dropped;
      continue;
    }
    slopes.push_back(sxy / sxx);
  }
  if (dropped > 0) {
    note += std::string(note.empty() ? "" : "; ") + std::to_string(dropped) + " of " +
            std::to_string(nb) +
            " bootstrap resamples had a non-positive aggregate and were left out";
  }
  // res.ci_level was set by fit_rates: confidence adjusted for the rate's number of groups.
  const double alpha = 1 - res.ci_level;
  // The comparisons allow 1e-9 of rounding slack: with noiseless or perfectly correlated data
  // every bootstrap statistic equals the fitted one up to the last few bits.
  constexpr double slack = 1e-9;
  if (bound) {
    // ratio_bound: the bound holds at x when the upper end of the statistic's bootstrap
    // percentile interval is <= bound_constant (and, with a lower bound, its lower end is
    // >= bound_lower: the whole interval inside the band); the check needs it at every x.
    const bool lower = spec.bound_lower > 0;
    res.value = res.value_hi = -std::numeric_limits<double>::infinity();
    double lo = std::numeric_limits<double>::infinity();
    for (std::size_t p = 0; p < np; ++p) {
      std::sort(stats[p].begin(), stats[p].end());
      res.value = std::max(res.value, agg[p]);
      res.value_hi = std::max(res.value_hi, quantile_sorted(stats[p], 1 - alpha / 2));
      lo = std::min(lo, quantile_sorted(stats[p], alpha / 2));
    }
    if (lower) res.value_lo = lo;
    res.pass = res.value_hi <= res.bound + slack && (!lower || lo >= spec.bound_lower - slack);
    res.note = note;
    return;
  }
  if (slopes.size() * 2 < nb || slopes.empty()) {
    res.note = note + std::string(note.empty() ? "" : "; ") + "too few valid bootstrap resamples";
    return;
  }
  std::sort(slopes.begin(), slopes.end());
  res.ci_lo = quantile_sorted(slopes, alpha / 2);
  res.ci_hi = quantile_sorted(slopes, 1 - alpha / 2);
  const bool within_tolerance = std::fabs(res.slope - res.expected) <= res.tolerance + slack;
  // A degenerate interval (one replication, or replications whose resampling never moves the
  // slope, e.g. deterministic values): the slope carries no sampling error, so the check is the
  // tolerance alone (containment would otherwise demand the exact slope to 1e-9).
  const bool degenerate = m == 1 || res.ci_hi - res.ci_lo <= slack;
  res.pass = degenerate || spec.check == rate_check::tolerance
                 ? within_tolerance
                 : res.ci_lo - slack <= res.expected && res.expected <= res.ci_hi + slack &&
                       within_tolerance;
  res.note = note;
}

constexpr const char* no_rows_note = "no rows match the rate's where filters";

/// A result row of spec with everything but the fit filled in.
rate_result new_result(const rate_spec& spec, bool control) {
  rate_result r;
  r.rate = rate_name(spec);
  const bool level = spec.kind == rate_kind::ratio_bound || spec.kind == rate_kind::audit;
  r.expected = level ? nan_v : spec.expected_slope;
  r.tolerance = level ? nan_v : spec.tolerance;
  r.informational = spec.informational || control;
  r.check = spec.check;
  r.kind = spec.kind;
  r.bound = level ? spec.bound_constant : nan_v;
  r.value = r.value_hi = nan_v;
  const bool lower = spec.kind == rate_kind::ratio_bound && spec.bound_lower > 0;
  r.bound_lower = lower ? spec.bound_lower : nan_v;
  r.value_lo = nan_v;
  r.claims = spec.claims;
  r.control = control;
  r.control_label = control_label(spec);
  r.control_description = spec.control_description;
  r.expect = spec.expect;
  return r;
}

/// Fits the rates on every row of t (no control logic).
void fit_plain(const tidy_table& t,
               const std::vector<rate_spec>& rates,
               const analysis_options& options,
               bool control,
               std::vector<rate_result>& out) {
  for (const auto& spec : rates) {
    const std::size_t xi = t.param_index(spec.x);
    const std::size_t yi = t.metric_index(spec.y);
    std::vector<std::size_t> gi;
    for (const auto& g : spec.group_by) gi.push_back(t.param_index(g));
    const auto filters = resolve_filters(t, spec.where);

    std::map<std::vector<std::string>, std::map<double, x_point>, values_less> groups;
    std::map<std::vector<std::string>, std::string, values_less> bad_x;
    for (const auto& row : t.rows) {
      if (!row_matches(row, filters)) continue;
      std::vector<std::string> key;
      key.reserve(gi.size());
      for (const std::size_t i : gi) key.push_back(row.params[i]);
      auto& pts = groups[key];  // a group exists even when all its rows failed
      if (row.status != "ok" || std::isnan(row.metrics[yi])) continue;
      double x = 0;
      if (!parse_number(row.params[xi], x)) {
        bad_x[key] = row.params[xi];
        continue;
      }
      auto& pt = pts[x];
      pt.x = x;
      pt.by_rep[row.rep] = row.metrics[yi];
      pt.cells.insert(row.cell_id);
    }
    if (groups.empty()) {
      rate_result r = new_result(spec, control);
      r.ci_level = options.confidence;
      r.slope = r.intercept = r.r2 = r.ci_lo = r.ci_hi = nan_v;
      r.note = no_rows_note;
      r.check_pass = false;
      out.push_back(std::move(r));
      continue;
    }
    // Bonferroni over the rate's groups: a rate passes only if every group does, so each
    // group's interval is at level 1 - alpha/G and a correct rate falsely fails with
    // probability <= alpha (per group alpha would give 1 - (1 - alpha)^G, ~34% for G = 8).
    const double group_level = 1 - (1 - options.confidence) / static_cast<double>(groups.size());
    for (const auto& [key, pts] : groups) {
      rate_result r = new_result(spec, control);
      r.ci_level = group_level;
      std::vector<std::string> parts;
      for (std::size_t k = 0; k < key.size(); ++k) {
        r.group_values.emplace_back(spec.group_by[k], key[k]);
        parts.push_back(spec.group_by[k] + "=" + key[k]);
      }
      r.group = join(parts, ", ");
      if (auto it = bad_x.find(key); it != bad_x.end()) {
        r.slope = r.intercept = r.r2 = r.ci_lo = r.ci_hi = nan_v;
        r.note = spec.x + " = '" + it->second + "' is not a number";
      } else {
        fit_group(spec, pts, options, r);
      }
      r.check_pass = r.pass;
      out.push_back(std::move(r));
    }
  }
}

/// The spec evaluated on the control cells: where filters on overridden parameters take the
/// override's value (the control cells are the covered cells with the overrides applied).
rate_spec control_spec(const rate_spec& spec) {
  rate_spec c = spec;
  for (auto& w : c.where) {
    if (auto it = spec.control.find(w.name); it != spec.control.end()) w.value = render(it->second);
  }
  return c;
}

}  // namespace

std::string to_string(rate_kind k) {
  switch (k) {
    case rate_kind::slope:
      return "slope";
    case rate_kind::ratio_flat:
      return "ratio_flat";
    case rate_kind::ratio_bound:
      return "ratio_bound";
    case rate_kind::audit:
      return "audit";
  }
  return "slope";
}

std::string to_string(rate_expect e) { return e == rate_expect::refuted ? "refuted" : "holds"; }

bool check_evaluated(const rate_result& r) {
  if (r.kind == rate_kind::ratio_bound) return std::isfinite(r.value) && std::isfinite(r.value_hi);
  if (r.kind == rate_kind::audit) return std::isfinite(r.value) && r.audits > 0;
  return std::isfinite(r.slope) && std::isfinite(r.ci_lo) && std::isfinite(r.ci_hi);
}

std::string control_label(const rate_spec& r) {
  std::string s;
  for (const auto& [k, v] : r.control) s += (s.empty() ? "" : ", ") + k + "=" + render(v);
  return s;
}

void analysis_options::validate() const {
  const char* fn = "analysis_options::validate";
  if (bootstrap < 1)
    core::throw_invalid(fn, "bootstrap", static_cast<double>(bootstrap), "must be >= 1");
  core::check_open_interval(fn, "confidence", confidence, 0, 1);
}

std::vector<rate_result> fit_rates(const tidy_table& t,
                                   const std::vector<rate_spec>& rates,
                                   const analysis_options& options) {
  options.validate();
  const bool has_controls = t.has_param(control_column);
  const tidy_table main_rows = has_controls ? rows_with_control(t, "") : tidy_table{};
  const tidy_table& grid = has_controls ? main_rows : t;
  validate_specs({}, rates, grid.param_names, grid.metric_names);
  std::vector<rate_result> out;
  for (const auto& spec : rates) {
    std::vector<rate_result> main;
    fit_plain(grid, {spec}, options, false, main);
    if (spec.control.empty()) {
      for (auto& r : main) {
        r.control_verdict = "none";
        // A refutation without its positive control shows nothing (the parser requires one).
        if (spec.expect == rate_expect::refuted) r.pass = false;
        out.push_back(std::move(r));
      }
      continue;
    }
    std::vector<rate_result> controls;
    const std::string label = control_label(spec);
    const tidy_table ctrl = has_controls ? rows_with_control(t, label) : tidy_table{};
    if (!ctrl.rows.empty()) fit_plain(ctrl, {control_spec(spec)}, options, true, controls);
    // Control rows that match none of the rate's filters are missing, not a failed control
    // (which would credit the check with power it was never shown to have).
    if (controls.size() == 1 && controls[0].note == no_rows_note) controls.clear();
    // A main row pairs with the control row of the same group (when the overrides leave the
    // group_by parameters alone), else with the whole control: it has power when some control
    // row fails.
    bool all_controls_pass = !controls.empty();
    for (const auto& c : controls) all_controls_pass = all_controls_pass && c.check_pass;
    for (auto& r : main) {
      if (controls.empty()) {
        r.control_verdict = "missing";
        r.pass = false;
        continue;
      }
      bool control_pass = all_controls_pass;
      for (const auto& c : controls) {
        if (c.group == r.group) control_pass = c.check_pass;
      }
      r.control_verdict = control_pass ? "passes" : "fails";
      // A refutation: the published form fails an evaluated check and the positive control
      // passes the same check (a check that could not be made refutes nothing).
      r.pass = spec.expect == rate_expect::refuted
                   ? check_evaluated(r) && !r.check_pass && control_pass
                   : r.check_pass && !control_pass;
    }
    for (auto& r : main) out.push_back(std::move(r));
    for (auto& r : controls) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace dpx::harness
