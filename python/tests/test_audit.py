"""Auditor: Clopper-Pearson closed forms, a correct Laplace mechanism passes, a broken one
(half the noise, claiming the original epsilon) is caught."""

import math

import numpy as np
import pytest

import dpx
from dpx import audit as AU
from dpx import mechanisms as M


def test_clopper_pearson_closed_forms():
    # k = 0: upper = 1 - alpha^(1/n); k = n: lower = alpha^(1/n) (Clopper & Pearson 1934).
    assert AU.clopper_pearson_upper(0, 100, 0.05) == pytest.approx(1 - 0.05 ** (1 / 100), rel=1e-12)
    assert AU.clopper_pearson_lower(100, 100, 0.05) == pytest.approx(0.05 ** (1 / 100), rel=1e-12)
    # max over both directions: log((1 - fnr) / fpr) = log 8 and log((1 - fpr) / fnr) = log 4.5.
    assert AU.epsilon_from_rates(0.1, 0.2, 0.0) == pytest.approx(max(math.log(0.8 / 0.1), math.log(0.9 / 0.2)))


def audit(mech, claimed_rng_seed, trials=40_000):
    rng = dpx.Philox(claimed_rng_seed, purpose="audit")
    s0 = mech.release(np.zeros(trials), rng)  # neighbouring pair f(D) = 0, f(D') = 1 (Delta = 1)
    s1 = mech.release(np.ones(trials), rng)
    return AU.audit_samples(s0, s1, confidence=0.95)


def test_correct_laplace_passes_and_broken_is_caught():
    # Fixed seeds: the correct mechanism's bound exceeds eps = 1 with probability <= 5% by the
    # auditor's guarantee; the broken one (b = 1/2, true eps 2) is caught with high power.
    ok = audit(M.Laplace.calibrate(1.0), 1)
    assert 0.5 < ok.epsilon_lower_bound <= 1.0
    broken = audit(M.Laplace.from_scale(0.5), 2)
    assert broken.epsilon_lower_bound > 1.0


def test_bad_input():
    with pytest.raises(dpx.ValidationError):
        AU.audit_samples(np.zeros(10), np.zeros(9))
    with pytest.raises(ValueError):
        AU.audit_samples(np.zeros(10), np.ones(10), confidence=1.5)
