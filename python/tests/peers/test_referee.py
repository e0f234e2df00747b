"""The referee against the exact curves it must never exceed, and its power to convict.

Soundness: on ledgers with an mpmath curve (exact.py) the referee's ε must be <= the exact ε
(it is a lower bound; 1e-12 relative slack for rounding of the final float). Power: it must be
within 2·rtol of it, so that a peer 0.5 % below the exact value is convicted at rtol = 1e-3. A
referee that dropped the rounding win-back, rounded up instead of down, or mis-tilted fails one
of the two (the win-back alone is worth T·h/2, 5-50x the tolerance at T >= 100).
"""

from __future__ import annotations

import pytest

from . import exact
from . import referee as R

CASES = [
    ("gaussian", 1.0, 1, 1e-3), ("gaussian", 1.0, 1, 1e-12),
    ("gaussian", 0.5, 100, 1e-6), ("gaussian", 3.0, 10_000, 1e-9),
    ("gaussian", 1.0, 10_000, 1e-12),
    ("laplace", 1.0, 1, 1e-6), ("laplace", 0.5, 10, 1e-3), ("laplace", 1.0, 10, 1e-9),
    ("laplace", 20.0, 10, 1e-12), ("laplace", 3.0, 10, 1e-6),
]


def _exact(kind, s, t, d):
    if kind == "gaussian":
        return exact.gaussian_epsilon(d, s, t)
    return exact.laplace_epsilon(d, s) if t == 1 else exact.laplace_composed_epsilon(d, s, t)


@pytest.mark.parametrize("kind,s,t,delta", CASES, ids=[f"{k}-{s:g}-T{t}-d{d:g}" for k, s, t, d in CASES])
def test_referee_is_a_tight_lower_bound(kind, s, t, delta):
    ex = _exact(kind, s, t, delta)
    low = R.epsilon_lower([R.Release(kind, s, 1.0, t)], delta, ex, rtol=1e-3)
    assert low <= ex * (1 + 1e-12), f"referee {low!r} above the exact {ex!r}"
    assert low >= ex * (1 - 2e-3), f"referee {low!r} more than 2e-3 below the exact {ex!r}"


def test_referee_hint_only_moves_the_grid():
    """A bad hint (10x off) may cost tightness but never soundness."""
    ex = exact.gaussian_epsilon(1e-9, 1.0, 100)
    for hint in (ex / 10, ex * 10):
        assert R.epsilon_lower([R.Release("gaussian", 1.0, 1.0, 100)], 1e-9, hint) <= ex


SUBSAMPLED = [("gaussian", 0.8, 0.1, False), ("gaussian", 0.8, 0.1, True),
              ("laplace", 1.0, 0.2, False), ("laplace", 1.0, 0.2, True)]


@pytest.mark.parametrize("kind,s,q,add", SUBSAMPLED, ids=[f"{k}-q{q}-{'add' if a else 'remove'}"
                                                          for k, s, q, a in SUBSAMPLED])
def test_subsampled_direction_against_brute_force(kind, s, q, add):
    """q < 1, each direction, against a brute force with no lattice and no tilt: two releases,
    δ(ε) = E_{x1,x2 ~ P}[(1 − e^{ε − L(x1) − L(x2)})_+] by 2-D adaptive quadrature."""
    import numpy as np
    from scipy import integrate

    rel = R.Release(kind, s, q, 2, add=add)
    pdf, loss = rel.density, rel.loss_of_x
    lo, hi = -14 * s, 1 + 14 * s
    pts = [0.0, 1.0] if kind == "laplace" else None

    def delta(eps):
        inner = lambda x1: integrate.quad(
            lambda x2: pdf(x2) * max(0.0, -np.expm1(eps - loss(x1) - loss(x2))), lo, hi,
            points=pts, epsabs=1e-13, limit=400)[0]
        return integrate.quad(lambda x1: pdf(x1) * inner(x1), lo, hi, points=pts, epsabs=1e-12,
                              limit=400)[0]

    low = R._epsilon_lower([rel], 1e-3, 1.0, 1e-3, None)
    assert delta(low) > 1e-3  # the curve at the referee's ε is still above δ: ε(δ) > low
    assert delta(low * 1.003 + 1e-6) < 1e-3  # and the referee is within 0.3 %


def test_heterogeneous_composition_against_the_exact_gaussian():
    """Several parts on one lattice (one spectrum per part, powers multiplied): T Gaussians of
    different σ compose to one Gaussian with μ² = Σ T_i/σ_i², whose curve is exact."""
    parts = [(1.0, 10), (8.0, 1000), (3.0, 7)]
    mu2 = sum(t / s**2 for s, t in parts)
    for delta in (1e-3, 1e-9):
        ex = exact.gaussian_epsilon(delta, 1.0 / mu2**0.5)
        rels = [R.Release("gaussian", s, 1.0, t) for s, t in parts]
        low = R.epsilon_lower(rels, delta, ex, rtol=1e-3)
        assert ex * (1 - 2e-3) <= low <= ex * (1 + 1e-12), (delta, low, ex)
