"""Data generators: bit-identical to `dpx generate` (CSV and --describe JSON) and closed-form
theory."""

import csv
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
    for key, value in theory.items():
        assert key in desc, key
        assert same_json(value, desc[key]), key


def same_json(value, want):
    """value (Python) equals the CLI's JSON value exactly: NaN (unknown) is null, infinities are
    the strings "inf"/"-inf", words are strings, lists nest."""
    if isinstance(value, (list, tuple)):
        return isinstance(want, list) and len(value) == len(want) and all(
            same_json(v, w) for v, w in zip(value, want))
    if isinstance(value, str):
        return value == want
    if want is None:
        return math.isnan(value)
    if isinstance(want, str):
        return value == float(want)
    return value == want


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


# ---- the registry: every model of `dpx generate`, bit for bit ---------------------------------

def cli_table(text):
    """CSV from `dpx generate` as {column: list of str}."""
    rows = list(csv.reader(io.StringIO(text)))
    return {name: [r[j] for r in rows[1:]] for j, name in enumerate(rows[0])}


# Non-default parameters for some models (lists, choices, counts), as keyword arguments.
NON_DEFAULT = {
    "ar1": {"phi": 0.3, "innovation_sd": 2.0},
    "arma": {"phi": [0.5, -0.2], "theta": [0.4]},
    "var1": {"dim": 3},
    "random_effects": {"groups": 5},
    "sparse_linear": {"features": 7, "sparsity": 2},
}


@pytest.mark.parametrize("name", D.MODEL_NAMES)
def test_every_registry_model_matches_cli(cli, name):
    info = D.model_info(name)
    params = {k: v for k, v in NON_DEFAULT.get(name, {}).items()
              if any(p["name"] == k for p in info["params"])}
    flags = []
    for k, v in params.items():
        flags += ["--" + k.replace("_", "-"), D._text(k, v)]
    n = 40
    r = D.draw(name, n, seed=5, **params)
    table = cli_table(cli("generate", name, "--n", n, "--seed", 5, *flags))
    assert list(r.columns) == list(table)
    for col, values in r.columns.items():
        want = table[col]
        if values.dtype == np.float64:
            np.testing.assert_array_equal(values, np.array([float(v) for v in want]), err_msg=col)
        elif values.dtype == np.int64:
            assert values.tolist() == [int(v) for v in want], col
        else:
            assert values.tolist() == want, col
    desc = cli.json("generate", name, "--n", n, "--seed", 5, "--describe", *flags)
    assert same_json(list(r.parameters.values()), list(desc["parameters"].values()))
    assert list(r.parameters) == list(desc["parameters"])
    assert set(r.theory) == set(desc) - {"schema_version", "model", "n", "seed", "parameters"}
    for key, value in r.theory.items():
        assert same_json(value, desc[key]), key


def test_registry_metadata_matches_cli_help(cli):
    text = cli("generate", "--help")
    assert len(D.MODEL_NAMES) == 19
    for m in D.registry():
        assert f"  {m['name']}: {m['summary']}" in text
        for p in m["params"]:
            flag = "--" + p["name"].replace("_", "-")
            assert f"    {flag} (default {p['default_text']}; {p['range']})  {p['description']}" in text


def test_registry_validation_messages_match_cli(cli):
    msg = cli("generate", "var1", "--n", 10, "--dim", 0, expect=2)
    with pytest.raises(dpx.ValidationError) as e:
        D.draw("var1", 10, dim=0)
    # Same message (after the function name), with the keyword's name where the CLI names
    # its flag.
    assert str(e.value).split(": ", 1)[1].replace("dim = ", "--dim = ") in msg
    assert e.value.parameter == "dim"
    msg = cli("generate", "ar1", "--n", 10, "--phi", 1.5, expect=2)
    with pytest.raises(dpx.ValidationError) as e:
        D.draw("ar1", 10, phi=1.5)
    assert str(e.value).split(": ", 1)[1].replace("phi = ", "--phi = ") in msg
    with pytest.raises(dpx.ValidationError, match="no_such"):
        D.draw("ar1", 10, no_such=1.0)
    with pytest.raises(dpx.ValidationError):
        D.draw("nope", 10)
    with pytest.raises(dpx.ValidationError, match="n"):
        D.draw("ar1", 0)


def test_registry_var1_theory_closed_form():
    # VAR(1) x_t = A x_{t-1} + e_t, Cov(e) = S: the stationary covariance G solves the discrete
    # Lyapunov equation G = A G A^T + S, i.e. (I - A (x) A) vec(G) = vec(S); the long-run
    # variance is (I - A)^-1 S (I - A)^-T (Lutkepohl 2005, Sec. 2.1).
    A = np.array([[0.5, 0.2], [-0.1, 0.3]])
    S = np.array([[1.0, 0.3], [0.3, 2.0]])
    r = D.draw("var1", 300, seed=3, a=A.ravel(), sigma_e=S.ravel(), mu=[1.0, -1.0])
    G = np.linalg.solve(np.eye(4) - np.kron(A, A), S.ravel()).reshape(2, 2)
    np.testing.assert_allclose(r.theory["stationary_covariance"], G, rtol=1e-12)
    B = np.linalg.inv(np.eye(2) - A)
    np.testing.assert_allclose(r.theory["long_run_variance"], B @ S @ B.T, rtol=1e-12)
    assert r.theory["mean"] == [1.0, -1.0]
    frame = r.frame()
    assert list(frame.columns) == ["x1", "x2"] and frame.shape == (300, 2)
    assert r.parameters["a"] == A.ravel().tolist()
