"""Private estimators on numpy input (dpx::estimators).

Central model, item level ((epsilon, delta)-DP under replace-one): :func:`projection_interval`
(S1 Algorithm 3), :func:`winsorized_mean` (Algorithm 4), :func:`winsorized_mean_hd`
(Algorithm 5), :func:`sample_split_mean` (eq. (1)), the Karwa-Vadhan baselines :func:`kv_mean`
and :func:`kv_mean_unknown_sigma`. Local model (epsilon-LDP): :func:`local_projection_interval`,
:func:`local_mean` (Algorithm 8), :func:`local_mean_hd`, :func:`local_user_mean`. Dependent data
and user level: :func:`user_mean` / :func:`user_mean_ragged` (S1 Def 5.1),
:func:`random_effects_mean` (Def 5.8), :func:`longitudinal_regression` (Def 5.13),
:func:`priestley_chao` (Def 4.7), and the plug-in variance estimators
:func:`variance_bisection` (Algorithm 10) and :func:`adaptive_coinpress` (Algorithms 13-14) with
:func:`plugin_confidence_interval`.

The interval rule is public: ``tau`` gives the paper's rule (bins of half-width tau, interval
m-hat +- 3 tau); ``tau`` with ``tau_prime`` the sharper rule; ``rule=(h, kappa)`` any rule. The
radius helpers (:func:`tau_subgaussian`, :func:`tau_user`, :func:`tau_regression`, ...) turn a
PUBLIC concentration bound into tau; for dependent data pass the log-Sobolev constant of the
whole series (e.g. ``dpx.data.AR1(...).theory(n)["log_sobolev"]``) as the bound.

Noise: every estimator with a noise choice takes ``noise="float_safe"`` (the default: exact
discrete noise on a power-of-two grid, safe for real data) or ``noise="research_grade"`` (the
papers' double-precision Laplace, for experiments); the ledger says which (``PureDpEvent`` /
``LaplaceDpEvent`` for the Laplace steps). :func:`local_projection_interval` has no noise choice
(randomized response is exact).

Every result holds its release and public inputs only: the raw-data counts
(``Diagnostics.occupied_bins`` and ``clipped_fraction``, ``LocalProjectionResult.outside`` and
``occupied``, ``RegressionResult.singular_users``) are NOT private and read as ``None`` unless
the estimator is called with ``nonprivate_diagnostics=True`` (docs/cli.md, "Output contract").

Inputs are read in place when C-contiguous float64 (converted once otherwise); panels are
(n, T) or (n, T, d) arrays (user, time, coordinate). The GIL is released for inputs of 4096 or
more values. Same seed -> the same result as ``dpx mean --seed``.
"""

from ._dpx.estimators import (
    CoordinateBudget,
    Diagnostics,
    KVResult,
    KVUnknownSigmaResult,
    LocalProjectionResult,
    MeanHDResult,
    MeanResult,
    PriestleyChaoResult,
    ProjectionResult,
    RegressionResult,
    VarianceResult,
    adaptive_coinpress,
    kv_mean,
    kv_mean_unknown_sigma,
    local_mean,
    local_mean_hd,
    local_projection_interval,
    local_user_mean,
    longitudinal_regression,
    plugin_confidence_interval,
    priestley_chao,
    priestley_chao_bandwidth,
    priestley_chao_margin,
    priestley_chao_tau,
    projection_interval,
    random_effects_mean,
    sample_split_mean,
    split_budget,
    tau_prime,
    tau_random_effects,
    tau_regression,
    tau_subgaussian,
    tau_user,
    tau_user_mean_variance,
    user_averages,
    user_mean,
    user_mean_ragged,
    variance_bisection,
    winsorized_mean,
    winsorized_mean_hd,
)

__all__ = [
    "CoordinateBudget",
    "Diagnostics",
    "KVResult",
    "KVUnknownSigmaResult",
    "LocalProjectionResult",
    "MeanHDResult",
    "MeanResult",
    "PriestleyChaoResult",
    "ProjectionResult",
    "RegressionResult",
    "VarianceResult",
    "adaptive_coinpress",
    "kv_mean",
    "kv_mean_unknown_sigma",
    "local_mean",
    "local_mean_hd",
    "local_projection_interval",
    "local_user_mean",
    "longitudinal_regression",
    "plugin_confidence_interval",
    "priestley_chao",
    "priestley_chao_bandwidth",
    "priestley_chao_margin",
    "priestley_chao_tau",
    "projection_interval",
    "random_effects_mean",
    "sample_split_mean",
    "split_budget",
    "tau_prime",
    "tau_random_effects",
    "tau_regression",
    "tau_subgaussian",
    "tau_user",
    "tau_user_mean_variance",
    "user_averages",
    "user_mean",
    "user_mean_ragged",
    "variance_bisection",
    "winsorized_mean",
    "winsorized_mean_hd",
]
