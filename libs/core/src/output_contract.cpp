// The output contract table (output_contract.hpp). Each row says why the field has its class:
// a release is a noisy output or a post-processing of noisy outputs only (Dwork & Roth 2014,
// Prop 2.1); a public input is fixed on neighbouring datasets under the surface's relation.
#include "dpx/core/output_contract.hpp"

#include <array>
#include <sstream>

#include "dpx/core/error.hpp"

namespace dpx::core {

// The tables live in the functions that return them, so that `using enum` and their names stay
// local (a unity batch merges this file with the others of dpx::core).
std::span<const output_surface> output_surfaces() noexcept {
  static constexpr std::array surfaces{
      output_surface{
          "dpx fit",
          "`dpx fit --solver istdp|noisy_pgd|dp_sgd` (ISTDP `--variant strict`; `--variant "
          "as_published` prints the same fields with `epsilon` and `delta` null: it is not "
          "private)",
          "replace one training row (istdp, noisy_pgd; dp_sgd without `--public-size`, whose "
          "guarantee then treats n as public); add or remove one training row (dp_sgd "
          "`--public-size`). The split column is public",
          "--nonprivate-diagnostics"},
      output_surface{"dpx mean",
                     "`dpx mean` in every mode: item level, user level (`--user-column`), local "
                     "(`--local`)",
                     "replace one row (item level); replace all rows of one user (user level)",
                     ""},
      output_surface{"SolveResult",
                     "private runs of `dpx.solvers.pgd` (noise on), `istdp` (strict), `dp_sgd`, "
                     "`frank_wolfe` (private selection), `output_perturbation`, "
                     "`objective_perturbation`",
                     "replace one row (add or remove one row for dp_sgd)",
                     "nonprivate_diagnostics=True"},
      output_surface{"Diagnostics",
                     "the `diagnostics` of every estimator result below (one per coordinate or "
                     "point where there are several)",
                     "as the estimator's",
                     "nonprivate_diagnostics=True"},
      output_surface{"MeanResult",
                     "`dpx.estimators.winsorized_mean`, `local_mean`, `random_effects_mean` (and "
                     "the `mean` of KVResult, KVUnknownSigmaResult)",
                     "replace one row (item level) or one user (random_effects_mean)",
                     "nonprivate_diagnostics=True"},
      output_surface{"MeanHDResult",
                     "`winsorized_mean_hd`, `sample_split_mean`, `local_mean_hd`, "
                     "`local_user_mean`, `user_mean`, `user_mean_ragged` (and the `fit` of "
                     "RegressionResult)",
                     "replace one row (item level) or one user (user level)",
                     "nonprivate_diagnostics=True"},
      output_surface{"ProjectionResult",
                     "`projection_interval`",
                     "replace one row",
                     "nonprivate_diagnostics=True"},
      output_surface{"KVResult", "`kv_mean`", "replace one row", "nonprivate_diagnostics=True"},
      output_surface{"KVUnknownSigmaResult",
                     "`kv_mean_unknown_sigma`",
                     "replace one row",
                     "nonprivate_diagnostics=True"},
      output_surface{"LocalProjectionResult",
                     "`local_projection_interval`",
                     "replace one user's report",
                     "nonprivate_diagnostics=True"},
      output_surface{"RegressionResult",
                     "`longitudinal_regression`",
                     "replace one user",
                     "nonprivate_diagnostics=True"},
      output_surface{"PriestleyChaoResult",
                     "`priestley_chao`",
                     "replace one observation",
                     "nonprivate_diagnostics=True"},
      output_surface{"SparseHistogram",
                     "`dpx.mechanisms.StableHistogram.release`, `release_bins`",
                     "replace one record",
                     "nonprivate_diagnostics=True"},
      output_surface{"VarianceResult",
                     "`variance_bisection`, `adaptive_coinpress`",
                     "replace one row",
                     "nonprivate_diagnostics=True"},
      output_surface{"OnlineKernelRegression",
                     "`dpx.solvers.OnlineKernelRegression` with `privacy=\"per_query\"` or "
                     "`\"function_release\"`: its attributes and the values its methods return "
                     "(`update` and `fit` take the training stream and return nothing; with "
                     "`privacy=\"none\"` nothing is private and the diagnostics are always "
                     "available)",
                     "replace one example of the training stream, at any position",
                     "nonprivate_diagnostics=True"},
  };
  return surfaces;
}

std::span<const output_field> output_contract() noexcept {
  using enum output_class;
  static constexpr std::array fields{
      // ---- dpx fit (private solvers) ----
      output_field{"dpx fit", "schema_version", public_input, "the output format's version"},
      output_field{"dpx fit", "coefficients", release, "the noisy iterate, on the input's scale"},
      output_field{
          "dpx fit", "intercept", release, "its intercept coordinate (0 without --intercept)"},
      output_field{"dpx fit", "epsilon", public_input, "--epsilon (null for as_published)"},
      output_field{"dpx fit", "delta", public_input, "--delta (null for as_published)"},
      output_field{"dpx fit", "solver", public_input, "--solver"},
      output_field{"dpx fit",
                   "seeded",
                   public_input,
                   "whether --seed was given (reproducible noise: not a private release)"},
      output_field{"dpx fit", "noise", public_input, "float_safe or research_grade (the flags)"},
      output_field{"dpx fit", "noise_note", public_input, "the noise in words"},
      output_field{"dpx fit",
                   "guarantee",
                   public_input,
                   "the guarantee in words, from the flags (and, for dp_sgd without --public-size, "
                   "the n it treats as public)"},
      output_field{"dpx fit",
                   "dp_sgd",
                   public_input,
                   "dp_sgd's calibrated noise multiplier, sampling rate, steps and public size, "
                   "computed from the flags and the public size"},
      output_field{"dpx fit",
                   "n_train",
                   public_input,
                   "the number of training rows; printed only where it is public (replace-one "
                   "solvers, dp_sgd without --public-size); with --public-size, dp_sgd.public_size "
                   "is printed instead"},
      output_field{"dpx fit",
                   "nonprivate_diagnostics",
                   nonprivate_diagnostic,
                   "only with --nonprivate-diagnostics: an object whose \"note\" says it is NOT "
                   "covered by the guarantee, and the keys below"},
      output_field{"dpx fit",
                   "nonprivate_diagnostics.note",
                   nonprivate_diagnostic,
                   "says the object is not private"},
      output_field{"dpx fit",
                   "nonprivate_diagnostics.objective",
                   nonprivate_diagnostic,
                   "the training objective at the coefficients, from the exact data (one private y "
                   "can be solved for from it)"},
      output_field{"dpx fit",
                   "nonprivate_diagnostics.iterations",
                   nonprivate_diagnostic,
                   "iterations run (a run may stop early on a non-finite iterate)"},
      output_field{"dpx fit",
                   "nonprivate_diagnostics.converged",
                   nonprivate_diagnostic,
                   "the termination status"},
      output_field{"dpx fit",
                   "nonprivate_diagnostics.n_train",
                   nonprivate_diagnostic,
                   "the number of training rows (private under add/remove)"},
      output_field{"dpx fit",
                   "nonprivate_diagnostics.n_test",
                   nonprivate_diagnostic,
                   "the number of held-out rows (with a split column)"},
      output_field{"dpx fit",
                   "nonprivate_diagnostics.test_loss",
                   nonprivate_diagnostic,
                   "the unpenalised loss on the held-out rows, from the exact data"},
      output_field{"dpx fit",
                   "nonprivate_diagnostics.seconds",
                   nonprivate_diagnostic,
                   "the solve time (a timing side channel)"},
      // ---- dpx mean ----
      output_field{"dpx mean", "schema_version", public_input, "the output format's version"},
      output_field{"dpx mean", "estimate", release, "the private mean"},
      output_field{"dpx mean",
                   "clip_range",
                   release,
                   "the clipping interval, from the private histogram (central) or the public "
                   "bound and the noisy reports (local)"},
      output_field{"dpx mean", "epsilon", public_input, "--epsilon"},
      output_field{"dpx mean", "delta", public_input, "--delta (0 with --local)"},
      output_field{"dpx mean", "level", public_input, "item or user (--user-column)"},
      output_field{"dpx mean", "model", public_input, "central or local (--local)"},
      output_field{"dpx mean",
                   "failed",
                   release,
                   "whether the private histogram zeroed every bin (a function of it)"},
      output_field{"dpx mean",
                   "n",
                   public_input,
                   "rows (item level) or users (user level): fixed under replace-one"},
      output_field{"dpx mean", "noise", public_input, "float_safe or research_grade (the flags)"},
      output_field{"dpx mean",
                   "seeded",
                   public_input,
                   "whether --seed was given (reproducible noise: not a private release)"},
      output_field{"dpx mean", "noise_note", public_input, "the noise in words"},
      // ---- SolveResult (Python) ----
      output_field{"SolveResult", "x", release, "the noisy iterate"},
      output_field{"SolveResult", "privacy_events", public_input, "the calibrated releases"},
      output_field{"SolveResult", "relation", public_input, "the neighbouring relation"},
      output_field{"SolveResult", "sensitivity", public_input, "the sensitivity of one release"},
      output_field{"SolveResult", "noise_scale", public_input, "the noise scale used"},
      output_field{"SolveResult", "epsilon_target", public_input, "the calibration's epsilon"},
      output_field{"SolveResult", "delta_target", public_input, "the calibration's delta"},
      output_field{"SolveResult", "guarantee", public_input, "the guarantee in words"},
      output_field{"SolveResult",
                   "nonprivate_diagnostics",
                   public_input,
                   "whether the diagnostics below were asked for (the argument)"},
      output_field{"SolveResult",
                   "status",
                   nonprivate_diagnostic,
                   "how the run ended (None unless asked for)"},
      output_field{"SolveResult", "message", nonprivate_diagnostic, "the same, in words"},
      output_field{"SolveResult", "iterations", nonprivate_diagnostic, "iterations run"},
      output_field{"SolveResult",
                   "objective",
                   nonprivate_diagnostic,
                   "F(x) on the exact data (a private y can be solved for from it)"},
      output_field{"SolveResult", "seconds", nonprivate_diagnostic, "solve time"},
      output_field{"SolveResult", "gradient_evaluations", nonprivate_diagnostic, "work counter"},
      output_field{"SolveResult",
                   "objective_evaluations",
                   nonprivate_diagnostic,
                   "work counter (data-dependent line searches)"},
      output_field{"SolveResult", "line_search_trials", nonprivate_diagnostic, "work counter"},
      output_field{"SolveResult", "max_line_search_trials", nonprivate_diagnostic, "work counter"},
      output_field{"SolveResult", "line_search_failures", nonprivate_diagnostic, "work counter"},
      output_field{"SolveResult",
                   "trace",
                   nonprivate_diagnostic,
                   "checkpoints of the exact objective, step and time"},
      // ---- estimator results (Python) ----
      output_field{"Diagnostics",
                   "occupied_bins",
                   nonprivate_diagnostic,
                   "bins holding a point: an exact count (None unless asked for)"},
      output_field{"Diagnostics", "released_bins", release, "bins the stable histogram released"},
      output_field{"Diagnostics",
                   "clipped_fraction",
                   nonprivate_diagnostic,
                   "the exact fraction of points outside the interval (None unless asked for)"},
      output_field{
          "Diagnostics", "failed", release, "every bin zeroed (a function of the release)"},
      output_field{"MeanResult", "estimate", release, "the private mean"},
      output_field{"MeanResult", "clip_range", release, "the clipping interval (private)"},
      output_field{"MeanResult", "midpoint", release, "the private midpoint"},
      output_field{"MeanResult", "n", public_input, "records averaged (fixed under replace-one)"},
      output_field{
          "MeanResult", "noise_scale", public_input, "the Laplace scale, from public inputs"},
      output_field{"MeanResult",
                   "diagnostics",
                   release,
                   "a Diagnostics (or one per coordinate): classified field by field above"},
      output_field{"MeanResult", "failed", release, "every bin zeroed (a function of the release)"},
      output_field{"MeanResult", "epsilon", public_input, "the epsilon spent"},
      output_field{"MeanResult", "delta", public_input, "the delta spent"},
      output_field{"MeanResult", "model", public_input, "central or local"},
      output_field{"MeanResult", "unit", public_input, "item or user"},
      output_field{"MeanResult", "relation", public_input, "the neighbouring relation"},
      output_field{"MeanResult", "ledger", public_input, "the private steps and their budgets"},
      output_field{"MeanHDResult", "estimate", release, "the private coordinates"},
      output_field{"MeanHDResult", "clip_ranges", release, "the clipping intervals (private)"},
      output_field{"MeanHDResult",
                   "diagnostics",
                   release,
                   "a Diagnostics (or one per coordinate): classified field by field above"},
      output_field{"MeanHDResult", "n", public_input, "records (rows or users)"},
      output_field{"MeanHDResult", "d", public_input, "the dimension"},
      output_field{
          "MeanHDResult", "failed_coordinates", release, "coordinates whose histogram failed"},
      output_field{"MeanHDResult", "noise_scale", public_input, "the Laplace scale per coordinate"},
      output_field{"MeanHDResult", "budget", public_input, "the per-release budget split"},
      output_field{"MeanHDResult", "epsilon", public_input, "the epsilon spent"},
      output_field{"MeanHDResult", "delta", public_input, "the delta spent"},
      output_field{"MeanHDResult", "model", public_input, "central or local"},
      output_field{"MeanHDResult", "unit", public_input, "item or user"},
      output_field{"MeanHDResult", "relation", public_input, "the neighbouring relation"},
      output_field{"MeanHDResult", "ledger", public_input, "the private steps and their budgets"},
      output_field{"ProjectionResult", "range", release, "the private interval"},
      output_field{"ProjectionResult", "midpoint", release, "the private midpoint"},
      output_field{"ProjectionResult", "selected_bin", release, "the selected bin"},
      output_field{
          "ProjectionResult", "threshold", public_input, "the threshold, from n, epsilon, delta"},
      output_field{"ProjectionResult", "bins", release, "the released bins"},
      output_field{"ProjectionResult", "frequencies", release, "their noisy frequencies"},
      output_field{"ProjectionResult", "n", public_input, "observations"},
      output_field{"ProjectionResult",
                   "diagnostics",
                   release,
                   "a Diagnostics (or one per coordinate): classified field by field above"},
      output_field{"ProjectionResult", "epsilon", public_input, "the epsilon spent"},
      output_field{"ProjectionResult", "delta", public_input, "the delta spent"},
      output_field{"ProjectionResult", "model", public_input, "central or local"},
      output_field{"ProjectionResult", "unit", public_input, "item or user"},
      output_field{"ProjectionResult", "relation", public_input, "the neighbouring relation"},
      output_field{
          "ProjectionResult", "ledger", public_input, "the private steps and their budgets"},
      output_field{"KVResult", "mean", release, "a MeanResult, classified field by field above"},
      output_field{
          "KVResult", "confidence", release, "the interval, from the release and public inputs"},
      output_field{
          "KVUnknownSigmaResult", "mean", release, "a MeanResult, classified field by field above"},
      output_field{"KVUnknownSigmaResult", "sigma_hat", release, "from the released dyadic bin"},
      output_field{"KVUnknownSigmaResult", "sigma_bin", release, "the released dyadic bin"},
      output_field{"KVUnknownSigmaResult",
                   "sigma_diagnostics",
                   release,
                   "a Diagnostics, classified field by field above"},
      output_field{"KVUnknownSigmaResult",
                   "confidence",
                   release,
                   "the interval, from the release and public inputs"},
      output_field{"LocalProjectionResult", "range", release, "the private interval"},
      output_field{"LocalProjectionResult", "midpoint", release, "the private midpoint"},
      output_field{"LocalProjectionResult", "selected_bin", release, "the selected bin"},
      output_field{
          "LocalProjectionResult", "frequencies", release, "the debiased noisy frequencies"},
      output_field{"LocalProjectionResult",
                   "outside",
                   nonprivate_diagnostic,
                   "users outside every bin: an exact count (None unless asked for)"},
      output_field{"LocalProjectionResult",
                   "occupied",
                   nonprivate_diagnostic,
                   "bins holding a user: an exact count (None unless asked for)"},
      output_field{
          "RegressionResult", "fit", release, "a MeanHDResult, classified field by field above"},
      output_field{"RegressionResult", "coefficients", release, "the private coefficients"},
      output_field{"RegressionResult",
                   "singular_users",
                   nonprivate_diagnostic,
                   "users with a singular normal matrix: an exact count (None unless asked for)"},
      output_field{"PriestleyChaoResult", "points", public_input, "the evaluation points"},
      output_field{"PriestleyChaoResult", "estimate", release, "the private estimates"},
      output_field{
          "PriestleyChaoResult", "clip_ranges", release, "the clipping intervals (private)"},
      output_field{"PriestleyChaoResult",
                   "diagnostics",
                   release,
                   "a Diagnostics (or one per coordinate): classified field by field above"},
      output_field{"PriestleyChaoResult", "interior", public_input, "which points are interior"},
      output_field{"PriestleyChaoResult", "n", public_input, "observations"},
      output_field{"PriestleyChaoResult", "tau", public_input, "the radius"},
      output_field{
          "PriestleyChaoResult", "noise_scale", public_input, "the Laplace scale per point"},
      output_field{"PriestleyChaoResult", "budget", public_input, "the per-release budget split"},
      output_field{"PriestleyChaoResult", "epsilon", public_input, "the epsilon spent"},
      output_field{"PriestleyChaoResult", "delta", public_input, "the delta spent"},
      output_field{"PriestleyChaoResult", "model", public_input, "central or local"},
      output_field{"PriestleyChaoResult", "unit", public_input, "item or user"},
      output_field{"PriestleyChaoResult", "relation", public_input, "the neighbouring relation"},
      output_field{
          "PriestleyChaoResult", "ledger", public_input, "the private steps and their budgets"},
      output_field{"SparseHistogram", "bins", release, "the released bins"},
      output_field{"SparseHistogram", "values", release, "their noisy frequencies"},
      output_field{"SparseHistogram",
                   "occupied",
                   nonprivate_diagnostic,
                   "the data's distinct bins: an exact count (None unless asked for)"},
      output_field{"SparseHistogram", "n", public_input, "records (fixed under replace-one)"},
      output_field{
          "SparseHistogram", "threshold", public_input, "the threshold, from n, epsilon, delta"},
      output_field{"VarianceResult", "variance", release, "the private variance"},
      output_field{"VarianceResult", "midpoint", release, "the last refined midpoint"},
      output_field{
          "VarianceResult", "iterations", release, "iterations run: stopped by the noisy tests"},
      output_field{
          "VarianceResult", "range", release, "the last window (from releases and public inputs)"},
      output_field{"VarianceResult",
                   "diagnostics",
                   release,
                   "a Diagnostics (or one per coordinate): classified field by field above"},
      output_field{"VarianceResult", "budget", public_input, "the per-release budget split"},
      output_field{"VarianceResult", "epsilon", public_input, "the epsilon spent"},
      output_field{"VarianceResult", "delta", public_input, "the delta spent"},
      output_field{"VarianceResult", "model", public_input, "central or local"},
      output_field{"VarianceResult", "unit", public_input, "item or user"},
      output_field{"VarianceResult", "relation", public_input, "the neighbouring relation"},
      output_field{"VarianceResult",
                   "ledger",
                   release,
                   "the private steps; CoinPress computes their epsilons from the released "
                   "windows (equal to the budget up to rounding: a function of the release)"},
      // ---- OnlineKernelRegression (Python) ----
      output_field{"OnlineKernelRegression",
                   "predict_private",
                   release,
                   "per_query: f_t(x) + Laplace noise at one query point (each answer an event)"},
      output_field{"OnlineKernelRegression",
                   "release_function",
                   release,
                   "function_release: f_t plus a Gaussian-process sample path at the points"},
      output_field{"OnlineKernelRegression",
                   "privacy_events",
                   public_input,
                   "the releases made: their count is the caller's, their calibration is C_t or "
                   "D_t and the budget"},
      output_field{"OnlineKernelRegression",
                   "steps",
                   public_input,
                   "examples seen, t (the stream's length: fixed under replace-one)"},
      output_field{"OnlineKernelRegression",
                   "t0",
                   public_input,
                   "the schedule offset: the argument, or its smallest valid value from kappa"},
      output_field{"OnlineKernelRegression",
                   "kappa",
                   public_input,
                   "sup sqrt(K(x, x)), from the kernel and the public input_bound"},
      output_field{"OnlineKernelRegression", "eta", public_input, "eta_t, from theta and t0"},
      output_field{"OnlineKernelRegression", "lam", public_input, "lambda_t, from theta and t0"},
      output_field{"OnlineKernelRegression",
                   "sup_sensitivity",
                   public_input,
                   "C_t, from t, kappa, output_bound, theta, t0"},
      output_field{"OnlineKernelRegression",
                   "rkhs_sensitivity",
                   public_input,
                   "D_t, from t, kappa, output_bound, theta, t0"},
      output_field{"OnlineKernelRegression",
                   "function_noise_multiplier",
                   public_input,
                   "c, from epsilon and delta"},
      output_field{"OnlineKernelRegression",
                   "nonprivate_diagnostics",
                   public_input,
                   "whether the diagnostics below can be read (the argument; True for "
                   "privacy=\"none\")"},
      output_field{"OnlineKernelRegression",
                   "predict",
                   nonprivate_diagnostic,
                   "f_t(x) without noise (ValueError unless asked for)"},
      output_field{"OnlineKernelRegression",
                   "coefficients",
                   nonprivate_diagnostic,
                   "the coefficients of f_t, computed from the responses (ValueError unless asked "
                   "for)"},
      output_field{"OnlineKernelRegression",
                   "centres",
                   nonprivate_diagnostic,
                   "the training inputs themselves, projected onto the input ball (ValueError "
                   "unless asked for)"},
  };
  return fields;
}

std::string_view to_string(output_class c) noexcept {
  switch (c) {
    case output_class::release:
      return "release";
    case output_class::public_input:
      return "public input";
    case output_class::nonprivate_diagnostic:
      return "non-private diagnostic";
  }
  return "unknown";
}

bool is_classified(std::string_view surface, std::string_view field) noexcept {
  for (const auto& f : output_contract())
    if (f.surface == surface && f.field == field) return true;
  return false;
}

output_class classify(std::string_view surface, std::string_view field) {
  for (const auto& f : output_contract())
    if (f.surface == surface && f.field == field) return f.kind;
  throw_invalid("core::classify", "field", std::string(field), "is not in the output contract");
}

std::string output_contract_markdown() {
  std::ostringstream s;
  s << output_contract_begin << "\n";
  for (const auto& sf : output_surfaces()) {
    s << "\n**" << sf.name << "**: " << sf.covers << ". Neighbours: " << sf.relation
      << ". Diagnostics: "
      << (sf.opt_in.empty() ? std::string("none are output")
                            : "only with `" + std::string(sf.opt_in) + "`")
      << ".\n\n| field | class | what it is |\n|---|---|---|\n";
    for (const auto& f : output_contract())
      if (f.surface == sf.name)
        s << "| `" << f.field << "` | " << to_string(f.kind) << " | " << f.meaning << " |\n";
  }
  s << "\n" << output_contract_end << "\n";
  return s.str();
}

}  // namespace dpx::core
