"""Estimators: bit-identical to `dpx mean` on the same data and seed; closed-form tau; bad
input."""

import json
import math

import numpy as np
import pytest

import dpx
from dpx import estimators as E


@pytest.fixture(scope="module")
def series(tmp_path_factory):
    x = dpx.data.AR1(phi=0.5, mu=2.0).sample(3000, dpx.Philox(5, purpose="data"))
    path = tmp_path_factory.mktemp("mean") / "x.csv"
    np.savetxt(path, x, header="x", comments="", fmt="%.17g")
    return x, path


def test_winsorized_mean_matches_cli(cli, series):
    x, path = series
    out = json.loads(cli("mean", "--input", path, "--column", "x", "--epsilon", 1, "--delta", 1e-6,
                         "--tau", 2.5, "--seed", 13))
    r = E.winsorized_mean(x, 1.0, 1e-6, 2.5, dpx.Philox(13))
    assert r.estimate == out["estimate"]
    assert list(r.clip_range) == out["clip_range"]
    assert (r.epsilon, r.delta) == (out["epsilon"], out["delta"])
    assert abs(r.estimate - 2.0) < 0.5
    # The mean release is Laplace with b = 4 kappa / (n epsilon) with kappa = 3 tau (S1 Alg 4).
    assert r.noise_scale == pytest.approx(4 * 3 * 2.5 / (3000 * 1.0))


def test_local_mean_matches_cli(cli, series):
    x, path = series
    out = json.loads(cli("mean", "--input", path, "--column", "x", "--epsilon", 2, "--tau", 2.5,
                         "--local", "--bound", 10, "--seed", 4))
    r = E.local_mean(x, 2.0, 2.5, 10.0, dpx.Philox(4))
    assert r.estimate == out["estimate"] and r.model == "local"


def test_tau_closed_form():
    assert E.tau_subgaussian(2.0, 1000, 0.05) == pytest.approx(math.sqrt(2 * 2.0 * math.log(2 * 1000 / 0.05)))


def test_bad_input():
    with pytest.raises(dpx.ValidationError):
        E.winsorized_mean(np.ones(10), -1.0, 1e-6, 1.0, dpx.Philox(1))
    with pytest.raises(ValueError):
        E.winsorized_mean(np.array([1.0, np.nan]), 1.0, 1e-6, 1.0, dpx.Philox(1))
