"""dpx: differential privacy for optimization and statistics, from Python.

The compiled C++ library (dpx._dpx, pybind11) behind a small pythonic layer:

* :class:`dpx.Philox` / :func:`dpx.os_random` -- explicit generators (every draw names one);
* :mod:`dpx.mechanisms` -- Laplace, Gaussian (research-grade and float-safe), discrete
  Laplace / Gaussian, randomized response, selection; vectorised over numpy arrays;
* :mod:`dpx.accounting` -- accountants (PLD, RDP, zCDP, approximate-DP rules) and calibration,
  with dp_accounting-style events;
* :mod:`dpx.data` -- dataset generators with their exact theory;
* :mod:`dpx.estimators` -- private means (winsorized, local model) on numpy input;
* :mod:`dpx.solvers` -- GIST and DP-SGD on numpy X, y (result with trace and privacy events);
* :mod:`dpx.audit` -- empirical lower bounds on epsilon (Clopper-Pearson threshold auditor);
* :mod:`dpx.experiments` -- run presets and load results as pandas DataFrames.

Bad input raises :class:`dpx.ValidationError` (a ValueError) carrying the C++ message. With the
same seed, results are bit-identical to the C++ library and the ``dpx`` command-line tool.
"""

from ._dpx import (
    OsRandom,
    Philox,
    UnsupportedEventError,
    ValidationError,
    os_random,
    stable_hash,
    stream_derivation,
)
from . import accounting, audit, data, estimators, experiments, mechanisms, solvers

__version__ = "0.1.0"

__all__ = [
    "OsRandom",
    "Philox",
    "UnsupportedEventError",
    "ValidationError",
    "accounting",
    "audit",
    "data",
    "estimators",
    "experiments",
    "mechanisms",
    "os_random",
    "solvers",
    "stable_hash",
    "stream_derivation",
]
