"""Solvers on numpy data (dpx::solvers): nonprivate GIST and DP-SGD.

``X`` is an (n, d) float64 array (C-contiguous rows are read in place; any other layout or dtype
is converted once), ``y`` has length n. Every solver returns a :class:`SolveResult` with the
coefficients (``x``), the log-spaced ``trace``, the run's ``privacy_events`` and, for private
runs, its ``guarantee`` in words; :func:`privacy_event` turns the events into one
:mod:`dpx.accounting` event::

    r = dpx.solvers.dp_sgd(X, y, dpx.Philox(1), noise_multiplier=1.1, sampling_rate=0.01)
    dpx.accounting.PLDAccountant().compose(dpx.solvers.privacy_event(r)).get_epsilon(1e-5)

Solvers run with the GIL released.
"""

from __future__ import annotations

from ._dpx.solvers import SolveResult, dp_sgd, gist
from .accounting import ComposedDpEvent, SelfComposedDpEvent

__all__ = ["SolveResult", "dp_sgd", "gist", "privacy_event"]


def privacy_event(result: SolveResult) -> ComposedDpEvent:
    """The releases of a run as one event for ``Accountant.compose`` (empty when nonprivate)."""
    return ComposedDpEvent([SelfComposedDpEvent(e, c) for e, c in result.privacy_events])
