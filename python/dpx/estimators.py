"""Private estimators on numpy input (dpx::estimators): the winsorized mean (central model,
(epsilon, delta)-DP under replace-one neighbours; S1 Algorithm 4) and the local-model mean
(epsilon-LDP; S1 Algorithm 8), with the public radius tau from a variance / log-Sobolev bound
(:func:`tau_subgaussian`). For dependent data, pass the log-Sobolev constant of the whole series
(e.g. ``dpx.data.AR1(...).theory(n)["log_sobolev"]``) as the bound.

The input is read in place when it is a C-contiguous float64 vector (converted once
otherwise); the GIL is released for inputs of 4096 or more values. Same seed -> the same result
as ``dpx mean --seed``.
"""

from ._dpx.estimators import MeanResult, local_mean, tau_subgaussian, winsorized_mean

__all__ = ["MeanResult", "local_mean", "tau_subgaussian", "winsorized_mean"]
