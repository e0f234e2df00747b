"""Solvers on numpy data (dpx::solvers): nonprivate GIST (plain and working-set), ISTDP
(published and strict variants), (noisy) projected gradient descent, DP-SGD, (DP) Frank-Wolfe on
the L1 ball, output and objective perturbation (with their calibration functions), and the online
kernel regressor.

``X`` is an (n, d) float64 array (C-contiguous rows are read in place; any other layout or dtype
is converted once), ``y`` has length n. ``loss`` is ``least_squares``, ``logistic``, ``huber`` or
``smoothed_hinge`` (dpx::losses, average over the rows). ``penalty`` is a :class:`Penalty`
(``Penalty.mcp(0.1)``, ``Penalty.l2_ball(1.0)``, ...) or the ``dpx fit --penalty`` shorthand
``"none" | "l1" | "mcp" | "scad"`` with ``lam`` (and ``gamma``); separable penalties leave the
last ``unpenalized`` coordinates free (an intercept column of ones stored last, as
``dpx fit --intercept``). Every option's default is the C++ options struct's.

Every solver returns a :class:`SolveResult` with the coefficients (``x``), the log-spaced
``trace``, the run's ``privacy_events`` and, for private runs, its ``guarantee`` in words;
:func:`privacy_event` turns the events into one :mod:`dpx.accounting` event::

    r = dpx.solvers.dp_sgd(X, y, dpx.Philox(1), noise_multiplier=1.1, sampling_rate=0.01)
    dpx.accounting.PLDAccountant().compose(dpx.solvers.privacy_event(r)).get_epsilon(1e-5)

With the same data and seed (``dpx.Philox(seed)``) the private solvers give bit-identical
coefficients to ``dpx fit --solver istdp|noisy_pgd|dp_sgd --seed SEED`` run with the same
settings, and to the C++ solvers called with ``rng::stream(seed, 0, 0, noise)``. Solvers run with
the GIL released.

A private run's result holds only its release (``x``) and public inputs (the events, the
guarantee, the noise scale): the non-private diagnostics (``objective``, ``trace``, ``status``,
``message``, ``iterations``, the work counters, ``seconds``), computed from the data without
noise, are ``None`` unless the solver is called with ``nonprivate_diagnostics=True``, and ``repr``
labels them "NOT private" (docs/cli.md, "Output contract").

``noise_kind`` is ``"float_safe"`` by default (research-grade noise must be asked for by name).
Frank-Wolfe and output / objective perturbation draw research-grade noise only: a private run of
them raises ValueError unless ``noise_kind="research_grade"``.
"""

from __future__ import annotations

from ._dpx.solvers import (
    FrankWolfeCalibration,
    OnlineKernelRegression,
    Penalty,
    PerturbationCalibration,
    SolveResult,
    dp_sgd,
    frank_wolfe,
    frank_wolfe_calibrate,
    gist,
    gist_working_set,
    istdp,
    objective_perturbation,
    objective_perturbation_calibrate,
    output_perturbation,
    output_perturbation_calibrate,
    pgd,
)
from .accounting import ComposedDpEvent, SelfComposedDpEvent

__all__ = [
    "FrankWolfeCalibration",
    "OnlineKernelRegression",
    "Penalty",
    "PerturbationCalibration",
    "SolveResult",
    "dp_sgd",
    "frank_wolfe",
    "frank_wolfe_calibrate",
    "gist",
    "gist_working_set",
    "istdp",
    "objective_perturbation",
    "objective_perturbation_calibrate",
    "output_perturbation",
    "output_perturbation_calibrate",
    "pgd",
    "privacy_event",
]


def privacy_event(result) -> ComposedDpEvent:
    """The releases of a run (a :class:`SolveResult` or an :class:`OnlineKernelRegression`) as
    one event for ``Accountant.compose`` (empty when nonprivate)."""
    return ComposedDpEvent([SelfComposedDpEvent(e, c) for e, c in result.privacy_events])
