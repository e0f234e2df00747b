"""Data generators: bit-identical to `dpx generate` (CSV and --describe JSON) and closed-form
theory."""

import io
import math

import numpy as np
import pytest

import dpx
from dpx import data as D


def cli_series(cli, model, n, seed, *params):
    text = cli("generate", model, "--n", n, "--seed", seed, *params)
    lines = text.split()
    assert lines[0] == "x"
    return np.array([float(v) for v in lines[1:]])


@pytest.mark.parametrize(
    "model,params,cli_params",
    [
        ("ar1", {"phi": 0.7}, ["--phi", 0.7]),
        ("iid_gaussian", {"mu": 1.0, "sd": 2.0}, ["--mu", 1, "--sd", 2]),
        ("student_t", {"nu": 4.0}, ["--nu", 4]),
        ("uniform", {}, []),
        ("beta", {"a": 2.0, "b": 5.0}, ["--a", 2, "--b", 5]),
        ("ar1_t", {"phi": 0.3}, ["--phi", 0.3]),
        ("arma", {"phi": [0.5, -0.2], "theta": [0.4]}, ["--phi", "0.5,-0.2", "--theta", 0.4]),
        ("equicorrelated", {"correlation": 0.3}, ["--correlation", 0.3]),
        ("toeplitz", {"rho": 0.8}, ["--rho", 0.8]),
        ("fgn", {"hurst": 0.7}, ["--hurst", 0.7]),
    ],
)
def test_generate_matches_cli(cli, model, params, cli_params):
    x, theory = D.generate(model, 257, seed=11, **params)
    np.testing.assert_array_equal(x, cli_series(cli, model, 257, 11, *cli_params))
    desc = cli.json("generate", model, "--n", 257, "--describe", *cli_params)
    def same(value, want):  # the CLI writes NaN (unknown) as null and infinities as strings
        if want is None:
            return math.isnan(value)
        return value == (float(want) if isinstance(want, str) else pytest.approx(want, rel=1e-12))

    for key, value in theory.items():
        assert key in desc, key
        if isinstance(value, list):
            assert all(same(v, w) for v, w in zip(value, desc[key])) and len(value) == len(desc[key]), key
        else:
            assert same(value, desc[key]), key


def test_ar1_theory_closed_form():
    phi, sd, n = 0.6, 1.5, 50
    t = D.AR1(phi=phi, innovation_sd=sd).theory(n)
    g0 = sd**2 / (1 - phi**2)
    assert t["variance"] == pytest.approx(g0)
    assert t["long_run_variance"] == pytest.approx(sd**2 / (1 - phi) ** 2)
    assert t["autocorrelation"] == pytest.approx([phi**h for h in range(1, 6)])
    # n Var(mean) = (1/n) sum_{s,t} gamma(|s-t|), summed directly.
    mvc = sum(g0 * phi ** abs(s - u) for s in range(n) for u in range(n)) / n
    assert t["mean_variance_constant"] == pytest.approx(mvc, rel=1e-12)


def test_fgn_theory_closed_form():
    # fGn autocorrelation (Mandelbrot & Van Ness 1968): ((h+1)^2H - 2 h^2H + (h-1)^2H) / 2.
    H = 0.7
    t = D.FGN(64, hurst=H).theory()
    want = [((h + 1) ** (2 * H) - 2 * h ** (2 * H) + (h - 1) ** (2 * H)) / 2 for h in range(1, 6)]
    assert t["autocorrelation"] == pytest.approx(want, rel=1e-12)


def test_sample_is_fresh_array_and_stream_advances():
    g = dpx.Philox(1)
    a = D.AR1().sample(100, g)
    b = D.AR1().sample(100, g)
    assert a.dtype == np.float64 and a.shape == (100,) and not np.array_equal(a, b)


def test_bad_parameters(cli):
    msg = cli("generate", "ar1", "--phi", 1.5, "--n", 10, expect=2)
    with pytest.raises(dpx.ValidationError) as e:
        D.AR1(phi=1.5)
    # The CLI validates through the data-model registry and names its flag (--phi); the
    # library names the parameter. Both must reject the value with the same valid range.
    assert "phi = 1.5" in str(e.value) and "(-1, 1)" in str(e.value)
    assert "--phi = 1.5" in msg and "(-1, 1)" in msg
    with pytest.raises(ValueError):
        D.model("no_such_model")
    with pytest.raises(ValueError):
        D.AR1().sample(0, dpx.Philox(1))
