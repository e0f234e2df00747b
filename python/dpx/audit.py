"""Black-box privacy auditing (dpx::audit).

Run a mechanism ``trials`` times on each input of a neighbouring pair (D, D'), record a scalar
statistic of every output (``s0`` from M(D), ``s1`` from M(D')) and call :func:`audit_samples`:
a threshold test chosen on a held-out half, Clopper-Pearson bounds on the other half, give a
lower bound on epsilon that holds with probability >= ``confidence`` for a mechanism that IS
(epsilon, delta)-DP on that pair (Kairouz, Oh & Viswanath 2015; Jagielski, Ullman & Oprea 2020).
A lower bound above the claimed epsilon is evidence of a violation::

    lap = dpx.mechanisms.Laplace.calibrate(1.0)
    rng = dpx.Philox(1, purpose="audit")
    r = dpx.audit.audit_samples(lap.release(np.zeros(N), rng), lap.release(np.ones(N), rng))
"""

from ._dpx.audit import (
    AuditResult,
    audit_samples,
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_from_rates,
)

__all__ = [
    "AuditResult",
    "audit_samples",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_from_rates",
]
