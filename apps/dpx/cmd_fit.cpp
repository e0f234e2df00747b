// dpx fit: penalised GLM regression from a CSV file, nonprivate (GIST to --tol) or private
// (ISTDP, noisy proximal gradient, DP-SGD), with JSON output.
//
// Objective convention: least squares (1/(2n)) ||y - X b - b0||^2; logistic
// (1/n) sum log(1 + exp(-y_i (x_i^T b + b0))), y in {-1, +1} (0/1 accepted); plus
// sum_j penalty(b_j; lambda, gamma) (MCP as in docs/theory/istdp.md, SCAD as Fan & Li 2001); the
// intercept (off by default) is not penalised; no standardisation unless asked.
//
// Noise (private solvers): float-safe by default — istdp / noisy_pgd: float_safe_gaussian (exact
// discrete noise on a power-of-two grid, accounted by zCDP and calibrated for it:
// solvers::gaussian_zcdp_multiplier); dp_sgd: the exactly rounded continuous Gaussian on an
// exact integer aggregate (docs/theory/float-safe-dp-sgd.md), whose accounting is the
// Poisson-subsampled Gaussian's, so both noise kinds calibrate sigma by PLD. The continuous
// research-grade Gaussian only with --research-grade. "noise" and "noise_note" in the output
// say which. Output shape: docs/cli-schema.json.
#include <charconv>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "command.hpp"
#include "dpx/accounting/calibration.hpp"
#include "dpx/core/csv.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/losses/losses.hpp"
#include "dpx/prox/prox.hpp"
#include "dpx/solvers/solvers.hpp"
#include "json_output.hpp"
#include "strict.hpp"

namespace dpx::cli::cmd_fit {
namespace {

using invalid_argument_error = std::invalid_argument;  // main.cpp: one line, exit 2

struct fit_options {
  std::string input, target, features, loss = "least_squares", penalty = "none";
  std::string solver = "gist", variant = "strict";
  double lambda = 0;
  std::optional<double> gamma, epsilon, delta, smoothness;
  bool intercept = false, standardize = false, research_grade = false;
  double clip = 1.0;
  std::optional<std::int64_t> max_iter;
  std::optional<std::int64_t> public_size;  // dp_sgd: public n_bar (q and the denominator)
  double tol = 1e-12;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::string split_column = "split";
  bool split_given = false, variant_given = false;
  bool nonprivate_diagnostics = false;  // private solvers: add the non-private diagnostics
  dpx::core::csv_limits limits;         // --max-input-bytes, --max-rows
};

[[noreturn]] void flag_error(const std::string& flag, const std::string& what) {
  throw invalid_argument_error(flag + ": " + what);
}

// ---- data --------------------------------------------------------------------------------
std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// --features: comma-separated names, none empty, none repeated, not the target or the split.
std::vector<std::string> feature_list(const fit_options& o) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = o.features.find(',', start);
    const std::string name = trim(o.features.substr(start, comma - start));
    if (name.empty()) flag_error("--features", "has an empty column name");
    for (const auto& prev : out)
      if (prev == name)
        flag_error("--features", "names column '" + dpx::core::csv_column_label(name) + "' twice");
    if (name == o.target) flag_error("--features", "must not contain the --target column");
    if (name == o.split_column)
      flag_error("--features",
                 "must not contain the train/test split column '" +
                     dpx::core::csv_column_label(name) + "' (see --split-column)");
    out.push_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

/// The rows of one split, column-major: y and one vector per feature.
struct split_rows {
  std::vector<double> y;
  std::vector<std::vector<double>> x;
  std::size_t n = 0;
};

struct dataset {
  std::vector<std::string> features;
  split_rows train, test;
  bool has_split = false;
};

/// Reads only the target, the features and the split column (dpx::core CSV reader). With a split
/// column (default "split", as `dpx generate sparse_linear|sparse_logistic` writes), rows marked
/// "train" are fitted and rows marked "test" held out; any other mark is an error.
dataset load(const fit_options& o) {
  const std::vector<std::string> requested =
      o.features.empty() ? std::vector<std::string>{} : feature_list(o);
  if (o.target == o.split_column)
    flag_error("--target", "must not be the train/test split column (see --split-column)");
  dataset d;
  const auto t = dpx::core::read_csv_file(
      o.input,
      [&](const std::vector<std::string>& header) {
        dpx::core::csv_columns c;
        c.numeric.push_back(o.target);
        for (const auto& h : header)
          if (h == o.split_column) d.has_split = true;
        if (o.split_given && !d.has_split)
          flag_error(
              "--split-column",
              "'" + dpx::core::csv_column_label(o.split_column) + "' is not a column of --input");
        if (!requested.empty()) {
          d.features = requested;
        } else {
          for (const auto& h : header)
            if (h != o.target && !(d.has_split && h == o.split_column)) d.features.push_back(h);
        }
        if (d.features.empty()) flag_error("--features", "no feature columns");
        c.numeric.insert(c.numeric.end(), d.features.begin(), d.features.end());
        if (d.has_split) c.text.push_back(o.split_column);
        return c;
      },
      o.limits);
  const std::size_t p = d.features.size();
  d.train.x.resize(p);
  d.test.x.resize(p);
  const auto& y = t.number_column(o.target);
  for (std::size_t i = 0; i < t.rows; ++i) {
    split_rows* dst = &d.train;
    if (d.has_split) {
      const std::string& mark = t.text_column(o.split_column)[i];
      if (mark == "test") {
        dst = &d.test;
      } else if (mark != "train") {
        throw dpx::core::csv_error(
            t.source, i + 1, t.record_line[i], o.split_column, "must be 'train' or 'test'");
      }
    }
    if (o.loss == "logistic" && y[i] != 0.0 && y[i] != 1.0 && y[i] != -1.0)
      throw dpx::core::csv_error(t.source,
                                 i + 1,
                                 t.record_line[i],
                                 o.target,
                                 "not a class label (logistic regression needs 0/1 or -1/+1)");
    dst->y.push_back(y[i]);
    for (std::size_t j = 0; j < p; ++j) dst->x[j].push_back(t.numeric[j + 1][i]);
    ++dst->n;
  }
  if (d.train.n == 0)
    flag_error("--input",
               "has no training rows (split column '" +
                   dpx::core::csv_column_label(o.split_column) + "')");
  return d;
}

/// Row-major design matrix (standardised with the TRAINING means and scales) for one split.
std::vector<double> design(const split_rows& s,
                           const std::vector<double>& mean,
                           const std::vector<double>& scale,
                           bool intercept) {
  const std::size_t p = s.x.size(), d = p + (intercept ? 1 : 0);
  std::vector<double> x(s.n * d);
  for (std::size_t i = 0; i < s.n; ++i) {
    for (std::size_t j = 0; j < p; ++j) x[i * d + j] = (s.x[j][i] - mean[j]) / scale[j];
    if (intercept) x[i * d + p] = 1.0;
  }
  return x;
}

// ---- the fit -----------------------------------------------------------------------------
using penalty_variant =
    std::variant<dpx::prox::zero_penalty, dpx::prox::l1_norm, dpx::prox::mcp, dpx::prox::scad>;

penalty_variant make_penalty(const fit_options& o) {
  if (!(o.lambda >= 0) || !std::isfinite(o.lambda))
    flag_error("--lambda", "must be finite and >= 0 (got " + std::to_string(o.lambda) + ")");
  if (o.gamma && o.penalty != "mcp" && o.penalty != "scad")
    flag_error("--gamma", "is only used with --penalty mcp or scad");
  if (o.penalty == "none") return dpx::prox::zero_penalty{};
  if (o.penalty == "l1") return dpx::prox::l1_norm(o.lambda);
  if (o.penalty == "mcp") {
    const double g = o.gamma.value_or(3.0);
    if (!(g > 1) || !std::isfinite(g)) flag_error("--gamma", "must be > 1 for MCP");
    if (!(o.lambda > 0)) flag_error("--lambda", "must be > 0 for MCP");
    return dpx::prox::mcp(o.lambda, g);
  }
  if (o.penalty == "scad") {
    const double g = o.gamma.value_or(3.7);
    if (!(g > 2) || !std::isfinite(g)) flag_error("--gamma", "must be > 2 for SCAD");
    if (!(o.lambda > 0)) flag_error("--lambda", "must be > 0 for SCAD");
    return dpx::prox::scad(o.lambda, g);
  }
  flag_error("--penalty", "must be none, l1, mcp or scad (got '" + o.penalty + "')");
}

int run_fit(const fit_options& o) {
  // Flag validation before reading data.
  if (o.loss != "least_squares" && o.loss != "logistic")
    flag_error("--loss", "must be least_squares or logistic (got '" + o.loss + "')");
  if (o.solver != "gist" && o.solver != "istdp" && o.solver != "noisy_pgd" && o.solver != "dp_sgd")
    flag_error("--solver", "must be gist, istdp, noisy_pgd or dp_sgd (got '" + o.solver + "')");
  const penalty_variant pen = make_penalty(o);
  const bool priv = o.solver != "gist";
  if (!priv && (o.epsilon || o.delta))
    flag_error("--epsilon", "gist is nonprivate; use --solver istdp|noisy_pgd|dp_sgd");
  if (priv) {
    if (!o.epsilon) flag_error("--epsilon", "is required for --solver " + o.solver);
    if (!(*o.epsilon > 0) || !std::isfinite(*o.epsilon)) flag_error("--epsilon", "must be > 0");
    if (!o.delta) flag_error("--delta", "is required with --epsilon for --solver " + o.solver);
    if (!(*o.delta > 0 && *o.delta < 1)) flag_error("--delta", "must be in (0, 1)");
    if (!(o.clip > 0) || !std::isfinite(o.clip)) flag_error("--clip", "must be > 0");
    // The means and scales would come from the private data without noise, and every row (so
    // every clipped gradient) would depend on all the others: no sensitivity bound holds.
    if (o.standardize)
      flag_error("--standardize",
                 "is not private (it uses the data's own means and scales); with --solver " +
                     o.solver + ", scale the features by public constants beforehand");
  }
  if (o.variant != "strict" && o.variant != "as_published")
    flag_error("--variant", "must be as_published or strict");
  if (o.variant_given && o.solver != "istdp")
    flag_error("--variant", "is only used with --solver istdp");
  if (o.max_iter)
    dpx::cli::check_bound("--max-iter", *o.max_iter, dpx::cli::max_iterations, "iteration cap");
  if (o.max_iter && *o.max_iter < (o.solver == "istdp" ? 2 : 1))
    flag_error("--max-iter", "must be >= 1 (>= 2 for istdp)");
  if (!(o.tol >= 0) || !std::isfinite(o.tol)) flag_error("--tol", "must be >= 0");
  if (!(o.clip > 0) || !std::isfinite(o.clip)) flag_error("--clip", "must be > 0");
  if (o.public_size && o.solver != "dp_sgd")
    flag_error("--public-size",
               "is only used with --solver dp_sgd (istdp and noisy_pgd are replace-one, where n is "
               "public)");
  if (o.public_size && *o.public_size < 1) flag_error("--public-size", "must be >= 1");
  if (o.smoothness && !(*o.smoothness > 0)) flag_error("--smoothness", "must be > 0");
  if (o.research_grade && !priv)
    flag_error("--research-grade", "only applies to the private solvers (gist adds no noise)");
  if (o.nonprivate_diagnostics && !priv)
    flag_error("--nonprivate-diagnostics",
               "only applies to the private solvers (gist is nonprivate and prints them anyway)");
  const auto noise = o.research_grade ? dpx::mechanisms::noise_kind::research_grade
                                      : dpx::mechanisms::noise_kind::float_safe;

  const dataset data = load(o);
  const std::size_t n = data.train.n, p = data.features.size(), d = p + (o.intercept ? 1 : 0);
  std::vector<double> mean(p, 0.0), scale(p, 1.0);
  if (o.standardize) {
    for (std::size_t j = 0; j < p; ++j) {
      const auto& col = data.train.x[j];
      double m = 0;
      if (o.intercept) {
        for (double v : col) m += v;
        m /= double(n);
      }
      double ss = 0;
      for (double v : col) ss += (v - m) * (v - m);
      const double s = std::sqrt(ss / double(n));
      if (!(s > 0) || !std::isfinite(s))
        flag_error("--standardize",
                   "feature '" + dpx::core::csv_column_label(data.features[j]) +
                       "' is constant (or its scale overflows) on the training rows");
      mean[j] = m;
      scale[j] = s;
    }
  }
  const std::vector<double> x = design(data.train, mean, scale, o.intercept);
  const std::vector<double>& y = data.train.y;
  const auto kind =
      o.loss == "logistic" ? dpx::losses::glm_kind::logistic : dpx::losses::glm_kind::least_squares;
  const dpx::losses::glm_loss loss(kind, {x, y, n, d});  // validates labels for logistic
  const double public_smoothness =
      o.smoothness.value_or(kind == dpx::losses::glm_kind::logistic ? 0.25 : 1.0);
  // Noise: the CSPRNG rng::os_random (a real release), or with --seed a reproducible Philox
  // stream (experiments only: warned on stderr, "seeded": true).
  std::variant<dpx::rng::philox4x32, dpx::rng::os_random> generator{std::in_place_index<1>};
  if (o.seed_given) generator = dpx::rng::stream(o.seed, 0, 0, dpx::rng::purpose::noise);

  dpx::solvers::solve_result r;
  nlohmann::ordered_json sgd;  // dp_sgd only: sigma, q, steps
  const std::vector<double> zero(d, 0.0);
  std::visit(
      [&](const auto& raw, auto& rng) {
        using P = std::decay_t<decltype(raw)>;
        const dpx::solvers::partially_penalized<P> penalty{raw, p};
        if (o.solver == "gist") {
          dpx::solvers::gist_options go;
          go.tol = o.tol;
          go.stationarity_tol = 100 * o.tol;
          go.trace.enabled = false;
          if (o.max_iter) go.max_iterations = *o.max_iter;
          r = dpx::solvers::gist_working_set(loss, raw, zero, go, d - p);
        } else if (o.solver == "istdp") {
          dpx::solvers::istdp_options io;
          io.variant = dpx::solvers::parse_istdp_variant(o.variant);
          io.iterations = o.max_iter.value_or(200);
          io.public_smoothness = public_smoothness;
          io.alpha_max = 1.0 / public_smoothness;
          io.alpha_min = 1e-4 * io.alpha_max;
          io.sensitivity = dpx::solvers::sensitivity_mode::clipping;
          io.clip_norm = o.clip;
          io.calibration = dpx::solvers::noise_calibration::tight;
          io.target = dpx::core::epsilon_delta{*o.epsilon, *o.delta};
          // --variant as_published is the explicit, visible choice of the NOT private published
          // algorithm (warned on stderr, labelled in "guarantee"): the library's opt-in.
          io.allow_nonprivate = io.variant == dpx::solvers::istdp_variant::as_published;
          io.trace.enabled = false;
          io.noise_kind = noise;
          const std::vector<double> th0(d, 1e-3);
          // as_published needs theta^0 != theta^1 (its first BB step); strict starts from
          // theta^1 alone, through the overload without theta^0.
          r = io.variant == dpx::solvers::istdp_variant::as_published
                  ? dpx::solvers::istdp(loss, penalty, th0, zero, io, rng)
                  : dpx::solvers::istdp(loss, penalty, zero, io, rng);
        } else if (o.solver == "noisy_pgd") {
          dpx::solvers::pgd_options po;
          po.iterations = o.max_iter.value_or(200);
          po.step_size = 1.0 / public_smoothness;
          po.output = dpx::solvers::iterate_output::last;
          po.noise = dpx::solvers::pgd_noise::gaussian;
          po.clip_norm = o.clip;
          po.calibration = dpx::solvers::noise_calibration::tight;
          po.target = dpx::core::epsilon_delta{*o.epsilon, *o.delta};
          po.trace.enabled = false;
          po.noise_kind = noise;
          r = dpx::solvers::pgd(loss, penalty, zero, po, rng);
        } else {
          dpx::solvers::dp_sgd_options so;
          so.iterations = o.max_iter.value_or(1000);
          // Add/remove: with --public-size the sampling rate and the batch denominator come from
          // the public n_bar; without it from the data's n, which the guarantee text then says
          // is treated as public.
          const double nbar = o.public_size ? double(*o.public_size) : double(n);
          so.sampling_rate = std::min(1.0, 256.0 / nbar);
          if (o.public_size) so.expected_batch_size = so.sampling_rate * nbar;
          so.clip_norm = o.clip;
          so.step_size = 0.5 / public_smoothness;
          // Both noise kinds are accounted as the Poisson-subsampled Gaussian (float-safe: the
          // inclusion probability as drawn, which is within 2^-53 above q; the calibration
          // keeps that margin, see dp_sgd_options::noise_kind): PLD calibration.
          so.noise_kind = noise;
          so.noise_multiplier = dpx::accounting::calibrate_gaussian(
              dpx::accounting::gaussian_calibration::pld,
              *o.epsilon,
              *o.delta,
              so.iterations,
              o.research_grade ? so.sampling_rate
                               : dpx::solvers::detail::poisson_rate_as_drawn(so.sampling_rate));
          so.trace.enabled = false;
          r = dpx::solvers::dp_sgd(loss, penalty, zero, so, rng);
          // The guarantee in the flags the user typed (the library's text names its options).
          r.guarantee =
              std::string("(epsilon, delta)-DP under add/remove: ") +
              (o.research_grade ? "Poisson-subsampled Gaussian releases, PLD calibration"
                                : "Poisson-subsampled Gaussian releases, float-safe (exact "
                                  "integer aggregate, exactly rounded Gaussian), PLD "
                                  "calibration") +
              "; sampling rate q and batch denominator q n_bar from " +
              (o.public_size ? "the PUBLIC --public-size " + std::to_string(*o.public_size)
                             : "the data's n = " + std::to_string(n) +
                                   ", which is thereby treated as PUBLIC (pass --public-size N "
                                   "for a public dataset size)");
          r.epsilon_target = *o.epsilon;
          r.delta_target = *o.delta;
          // The calibrated DP-SGD parameters, so the release can be re-accounted independently.
          sgd["noise_multiplier"] = so.noise_multiplier;
          sgd["sampling_rate"] = so.sampling_rate;
          sgd["steps"] = so.iterations;
          sgd["public_size"] = o.public_size ? nlohmann::json(*o.public_size) : nlohmann::json("n");
        }
        // The exact objective is a non-private diagnostic of a private run: computed only when
        // it is printed (gist, or --nonprivate-diagnostics).
        if (std::isnan(r.objective) && (!priv || o.nonprivate_diagnostics))
          r.objective = loss.value(r.x) + penalty.value(r.x);
      },
      pen,
      generator);

  // Back to the original feature scale.
  std::vector<double> coef(p);
  double b0 = o.intercept ? r.x[p] : 0.0;
  for (std::size_t j = 0; j < p; ++j) {
    coef[j] = r.x[j] / scale[j];
    b0 -= mean[j] * coef[j];
  }
  const std::string noise_note =
      !priv ? "gist is nonprivate: no noise is added"
      : o.research_grade
          ? "research-grade double-precision Gaussian noise (--research-grade): for "
            "experiments; NOT safe for real data (floating-point attacks, Mironov 2012)"
          : "float-safe: exact discrete Gaussian noise on a power-of-two grid, accounted by "
            "zCDP (docs/mechanisms.md); more noise than --research-grade at the same epsilon";
  // Held-out loss (no penalty) of the fitted coefficients: computed from the data without
  // noise, so NOT private (like "objective"); only when it is printed.
  const bool has_test_loss =
      data.has_split && data.test.n > 0 && (!priv || o.nonprivate_diagnostics);
  const double test_loss = [&] {
    if (!has_test_loss) return 0.0;
    const std::vector<double> xt = design(data.test, mean, scale, o.intercept);
    return dpx::losses::glm_loss(kind, {xt, data.test.y, data.test.n, d}).value(r.x);
  }();
  // ISTDP as_published spends (epsilon, delta) on its noisy gradient releases only: its BB step
  // and line search read the exact gradients and objective (docs/theory/istdp.md, the leak), so
  // no epsilon is printed for it (null, as for gist), the guarantee says "NOT private" and a
  // warning goes to stderr.
  const bool not_private = o.solver == "istdp" && o.variant == "as_published";
  if (not_private)
    std::cerr << "dpx fit: warning: --variant as_published is NOT differentially private: epsilon "
                 "and delta calibrate only the noisy gradient releases; the step selection reads "
                 "the data directly\n";
  if (!priv) {
    // gist is nonprivate (epsilon null): every field is a plain statistic of the data.
    nlohmann::ordered_json j;
    j["schema_version"] = 2;
    j["coefficients"] = coef;
    j["intercept"] = b0;
    j["objective"] = r.objective;
    j["iterations"] = r.iterations;
    j["converged"] = r.status == dpx::solvers::termination::converged;
    j["epsilon"] = nullptr;
    j["delta"] = nullptr;
    j["solver"] = o.solver;
    j["seeded"] = o.seed_given;  // gist adds no noise: the seed changes nothing
    j["noise"] = "none";
    j["noise_note"] = noise_note;
    j["guarantee"] = r.guarantee;
    j["n_train"] = n;
    if (data.has_split) {
      j["n_test"] = data.test.n;
      if (has_test_loss) j["test_loss"] = test_loss;
    }
    j["seconds"] = r.seconds;
    dpx::cli::emit_json(j);
    return dpx::cli::exit_ok;
  }
  // A private solver: the fields and their classes are the output contract's (docs/cli.md,
  // "Output contract"); the diagnostics only with --nonprivate-diagnostics.
  dpx::cli::contract_json c("dpx fit", o.nonprivate_diagnostics);
  c.put("schema_version", 2);
  c.put("coefficients", coef);
  c.put("intercept", b0);
  c.put("epsilon", not_private ? nlohmann::json(nullptr) : nlohmann::json(*o.epsilon));
  c.put("delta", not_private ? nlohmann::json(nullptr) : nlohmann::json(*o.delta));
  c.put("solver", o.solver);
  c.put("seeded", o.seed_given);  // true: reproducible noise, not a private release
  c.put("noise", dpx::mechanisms::to_string(noise));
  c.put("noise_note", noise_note);
  c.put("guarantee", r.guarantee);
  if (!sgd.empty()) c.put("dp_sgd", sgd);
  // n is public under replace-one, and dp_sgd without --public-size treats it as public (its
  // sampling rate is computed from it); under add/remove with a public size it is private.
  if (!o.public_size) c.put("n_train", n);
  c.diagnostic("objective", r.objective);
  c.diagnostic("iterations", r.iterations);
  c.diagnostic("converged", r.status == dpx::solvers::termination::converged);
  c.diagnostic("n_train", n);
  if (data.has_split) {
    c.diagnostic("n_test", data.test.n);
    if (has_test_loss) c.diagnostic("test_loss", test_loss);
  }
  c.diagnostic("seconds", r.seconds);
  dpx::cli::emit_json(c.json());
  // After the output (an error stays one line).
  if (o.seed_given) dpx::cli::warn_seeded("fit");
  return dpx::cli::exit_ok;
}

const bool registered = dpx::cli::register_command(
    "fit",
    "Fit a penalised least-squares or logistic regression from a CSV file (nonprivate or DP)",
    [](CLI::App& sub) {
      auto o = std::make_shared<fit_options>();
      sub.footer(
          "Objective: least squares (1/(2n))||y - X b - b0||^2; logistic (1/n) sum log(1 + "
          "exp(-y_i (x_i^T b + b0))) with y in {-1,+1} (0/1 accepted); plus sum_j "
          "penalty(b_j; lambda, gamma): l1 = lambda|t|; MCP (Zhang 2010) lambda|t| - "
          "t^2/(2 gamma) for |t| <= gamma lambda, gamma lambda^2/2 beyond; SCAD (Fan & Li 2001). "
          "The intercept is not penalised. --standardize scales features to unit variance "
          "(centring them when --intercept) and penalises the standardised coefficients; "
          "coefficients are reported on the original scale; it is refused with private solvers "
          "(the scales would be read from the data without noise). Without --epsilon the fit is "
          "nonprivate (working-set GIST) and runs until the relative objective change is below "
          "--tol and the prox-gradient mapping below 100 tol. Private solvers need --epsilon and "
          "--delta, clip per-example gradients to --clip, and run --max-iter iterations "
          "(istdp/noisy_pgd default 200, dp_sgd 1000); they print only what the guarantee covers "
          "and public inputs (docs/cli.md, 'Output contract'): the objective, iterations, "
          "convergence, row counts, test loss and solve time are computed from the data without "
          "noise and are printed only with --nonprivate-diagnostics, inside "
          "'nonprivate_diagnostics' (NOT private). 'guarantee' says what the output protects: "
          "with --solver istdp --variant as_published it reads 'NOT private' and 'epsilon' and "
          "'delta' are null (they then calibrate only the gradient releases; Yuan & Peng 2023's "
          "step selection reads the data) and a warning goes to stderr. 'seconds' is the solve "
          "time only. CSV input: RFC 4180 (docs/cli.md); only the target, feature and split "
          "columns are read. With a split column (--split-column, default 'split' when present, "
          "as dpx generate sparse_linear writes) only rows marked 'train' are fitted; rows marked "
          "'test' give 'test_loss' (the unpenalised loss on them, NOT private); 'n_train' and "
          "'n_test' count the rows. --max-iter is at most 1e7.");
      sub.add_option("--input", o->input, "CSV file with a header row ('-': standard input)")
          ->required();
      dpx::cli::add_input_limit_options(sub, o->limits);
      sub.add_option("--target", o->target, "Response column")->required();
      sub.add_option("--features", o->features, "Comma-separated feature columns (default: all)");
      sub.add_option("--loss", o->loss, "least_squares | logistic");
      sub.add_option("--penalty", o->penalty, "none | l1 | mcp | scad");
      sub.add_option("--lambda", o->lambda, "Penalty level lambda >= 0");
      sub.add_option("--gamma", o->gamma, "Concavity: > 1 for MCP (default 3), > 2 for SCAD (3.7)");
      sub.add_flag("--intercept", o->intercept, "Fit an unpenalised intercept");
      sub.add_flag("--standardize", o->standardize, "Standardise the features");
      sub.add_option("--solver", o->solver, "gist | istdp | noisy_pgd | dp_sgd");
      auto* variant =
          sub.add_option("--variant", o->variant, "ISTDP variant: strict (default) | as_published");
      auto* split = sub.add_option(
          "--split-column",
          o->split_column,
          "Column marking rows 'train' (fitted) or 'test' (held out: test_loss); default 'split' "
          "when the file has it (dpx generate sparse_linear writes it)");
      sub.add_option("--epsilon", o->epsilon, "Privacy epsilon > 0 (private solvers)");
      sub.add_option("--delta", o->delta, "Privacy delta in (0, 1) (private solvers)");
      sub.add_option("--clip", o->clip, "Per-example gradient clipping norm G (default 1)");
      sub.add_option("--smoothness",
                     o->smoothness,
                     "Public smoothness bound for private step sizes (default 1 for least "
                     "squares, 1/4 for logistic: rows with ||x|| <= 1)");
      sub.add_option("--max-iter", o->max_iter, "Iteration budget");
      sub.add_option("--public-size",
                     o->public_size,
                     "dp_sgd: public dataset size n_bar (sampling rate min(1, 256/n_bar) and batch "
                     "denominator q n_bar); default: the data's n, treated as public");
      sub.add_option("--tol", o->tol, "Relative objective change for the nonprivate fit (1e-12)");
      sub.add_flag("--research-grade",
                   o->research_grade,
                   "Private solvers: double-precision Gaussian noise (experiments only). "
                   "Default: float-safe exact discrete noise");
      sub.add_flag("--nonprivate-diagnostics",
                   o->nonprivate_diagnostics,
                   "Private solvers: also print the objective, iterations, convergence, row "
                   "counts, test loss and time, computed from the data WITHOUT noise (NOT "
                   "private), inside 'nonprivate_diagnostics'");
      dpx::cli::add_pretty_flag(sub);
      sub.add_option_function<std::uint64_t>(
          "--seed",
          [o](std::uint64_t s) {
            o->seed = s;
            o->seed_given = true;
          },
          "Noise seed: reproducible noise, NOT a private release (experiments only; default: "
          "the CSPRNG rng::os_random)");
      return [o, variant, split]() -> int {
        o->variant_given = variant->count() > 0;
        o->split_given = split->count() > 0;
        return run_fit(*o);
      };
    });

}  // namespace
}  // namespace dpx::cli::cmd_fit
