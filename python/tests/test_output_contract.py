"""The output contract of the private Python solvers (docs/cli.md, "Output contract"; the table
is dpx::core::output_contract, read here through dpx._dpx.output_contract()).

Every private solver (pgd with noise, istdp strict, dp_sgd, frank_wolfe with private selection,
output_perturbation, objective_perturbation) runs on two neighbouring datasets (replace one row;
remove one row for dp_sgd and for the add/remove runs) with the same seed: every attribute of
the SolveResult outside "release" is identical, the diagnostics are None, and repr shows no
diagnostic. Positive controls: the release differs on the same pairs, and with
nonprivate_diagnostics=True the exact objective differs (and is labelled in repr)."""

import math

import numpy as np
import pytest

import dpx
from dpx import _dpx
import dpx.solvers as S

N, D = 200, 3
RG = dict(noise_kind="research_grade")

# name -> (solver call(X, y, rng, **kw), relation)
CASES = {
    "pgd": (lambda X, y, g, **kw: S.pgd(X, y, g, noise="gaussian", iterations=30, epsilon=0.5,
                                         delta=1e-5, clip_norm=1.0, **kw), "replace_one"),
    "pgd_add_remove": (lambda X, y, g, **kw: S.pgd(X, y, g, noise="gaussian", iterations=30,
                                                    epsilon=0.5, delta=1e-5, clip_norm=1.0,
                                                    relation="add_remove", public_size=N, **kw),
                       "add_remove"),
    "istdp": (lambda X, y, g, **kw: S.istdp(X, y, g, penalty="mcp", lam=0.05, iterations=30,
                                             epsilon=0.5, delta=1e-5, **kw), "replace_one"),
    "dp_sgd": (lambda X, y, g, **kw: S.dp_sgd(X, y, g, iterations=50, sampling_rate=0.1,
                                               noise_multiplier=1.0, expected_batch_size=20,
                                               **kw), "add_remove"),
    "frank_wolfe": (lambda X, y, g, **kw: S.frank_wolfe(X, y, g, iterations=50, radius=1.0,
                                                         private_selection=True, clip_norm=1.0,
                                                         epsilon=1.0, delta=1e-6, **RG, **kw),
                    "replace_one"),
    "output_perturbation": (lambda X, y, g, **kw: S.output_perturbation(
        X, y, g, regularization=0.1, epsilon=1.0, delta=1e-6, **RG, **kw), "replace_one"),
    "objective_perturbation": (lambda X, y, g, **kw: S.objective_perturbation(
        X, np.where(y > 0, 1.0, -1.0), g, regularization=0.1, epsilon=1.0, delta=1e-6, **RG,
        **kw), "replace_one"),
}


def contract(surface):
    return {field: kind for s, field, kind in _dpx.output_contract() if s == surface}


@pytest.fixture(scope="module")
def neighbours():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(N, D))
    X /= np.linalg.norm(X, axis=1).max()  # rows in the unit ball (the public row bound)
    y = X @ np.array([0.8, -0.5, 0.2]) + 0.1 * rng.normal(size=N)
    Xr, yr = X.copy(), y.copy()
    Xr[4] = [0.3, -0.3, 0.2]
    yr[4] = -0.9
    return {"d": (X, y), "replace_one": (Xr, yr),
            "add_remove": (np.delete(X, 4, axis=0), np.delete(y, 4))}


def same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, z) for x, z in zip(a, b))
    if hasattr(a, "__dict__") or type(a).__module__.startswith("dpx"):
        return repr(a) == repr(b)
    return a == b


def compare(r1, r2):
    """(non-release attributes that differ, whether a release differs)."""
    table = contract("SolveResult")
    public = [n for n in dir(r1) if not n.startswith("_") and not callable(getattr(r1, n))]
    assert sorted(public) == sorted(table), "every attribute is classified (and only those)"
    differs, release_differs = [], False
    for name, kind in table.items():
        if same(getattr(r1, name), getattr(r2, name)):
            continue
        if kind == "release":
            release_differs = True
        else:
            differs.append(name)
    return differs, release_differs


@pytest.mark.parametrize("name", sorted(CASES))
def test_nothing_outside_the_release_differs_on_neighbours(neighbours, name):
    solve, relation = CASES[name]
    r1 = solve(*neighbours["d"], dpx.Philox(9))
    r2 = solve(*neighbours[relation], dpx.Philox(9))
    assert r1.privacy_events, "a private run"
    differs, release_differs = compare(r1, r2)
    assert differs == []
    # Power: the same noise on other data gives another release (Frank-Wolfe's release is a
    # selection among 2d vertices, which one replaced row of 200 rarely moves; its power is the
    # diagnostics test below).
    assert release_differs or name == "frank_wolfe"
    table = contract("SolveResult")
    for field, kind in table.items():
        if kind == "non-private diagnostic":
            assert getattr(r1, field) is None, field
    assert r1.nonprivate_diagnostics is False
    text = repr(r1)
    assert "objective" not in text and "withheld" in text, text


@pytest.mark.parametrize("name", sorted(CASES))
def test_diagnostics_only_on_request_and_labelled(neighbours, name):
    solve, relation = CASES[name]
    r1 = solve(*neighbours["d"], dpx.Philox(9), nonprivate_diagnostics=True)
    r2 = solve(*neighbours[relation], dpx.Philox(9), nonprivate_diagnostics=True)
    differs, _ = compare(r1, r2)
    # Positive control: the exact objective, a statistic of the data, differs. The perturbation
    # solvers record no objective (their diagnostics are the inner solve's counts, which can
    # coincide on neighbours): their power is the release test above.
    if "perturbation" not in name:
        assert "objective" in differs
    assert all(contract("SolveResult")[f] == "non-private diagnostic" for f in differs), differs
    assert r1.nonprivate_diagnostics is True and r1.iterations > 0
    assert math.isfinite(r1.objective) or "perturbation" in name
    assert "NOT private diagnostics" in repr(r1)
    # The release is the same with or without the diagnostics (same seed).
    r0 = solve(*neighbours["d"], dpx.Philox(9))
    assert np.array_equal(r0.x, r1.x)


def test_nonprivate_runs_keep_their_statistics(neighbours):
    X, y = neighbours["d"]
    r = S.gist(X, y)
    assert r.nonprivate_diagnostics and r.status == "converged" and math.isfinite(r.objective)
    assert "objective" in repr(r)


def test_every_surface_field_has_a_known_class():
    kinds = {k for _, _, k in _dpx.output_contract()}
    assert kinds <= {"release", "public input", "non-private diagnostic"}


# ---- estimators -------------------------------------------------------------------------------

from dpx import estimators as E  # noqa: E402

SURFACES = {s for s, _, _ in _dpx.output_contract()}


def _value_equal(a, b):
    """Equality of two public values (numbers, arrays, lists, dpx objects by their attributes)."""
    if type(a).__module__.startswith("dpx") and not isinstance(a, (int, float, str)):
        names = [n for n in dir(a) if not n.startswith("_") and not callable(getattr(a, n))]
        if names:
            return type(a) is type(b) and all(_value_equal(getattr(a, n), getattr(b, n))
                                              for n in names)
        return repr(a) == repr(b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_value_equal(x, z) for x, z in zip(a, b))
    return same(a, b)


def walk(a, b, surface, path, out):
    """Compares results a and b of `surface` field by field; appends (path, kind) of every field
    that differs, recursing into nested classified results (Diagnostics, a MeanResult...)."""
    table = contract(surface)
    public = [n for n in dir(a) if not n.startswith("_") and not callable(getattr(a, n))]
    assert sorted(public) == sorted(table), (surface, sorted(set(public) ^ set(table)))
    for name, kind in table.items():
        va, vb = getattr(a, name), getattr(b, name)
        items = list(zip(va, vb)) if isinstance(va, list) and va and \
            type(va[0]).__name__ in SURFACES else [(va, vb)]
        for x, z in items:
            if type(x).__name__ in SURFACES:
                walk(x, z, type(x).__name__, f"{path}.{name}", out)
            elif not _value_equal(x, z):
                out.append((f"{path}.{name}", kind))
    return out


def withheld_fields(r, surface, path, out):
    for name, kind in contract(surface).items():
        v = getattr(r, name)
        for x in (v if isinstance(v, list) else [v]):
            if type(x).__name__ in SURFACES:
                withheld_fields(x, type(x).__name__, f"{path}.{name}", out)
        if kind == "non-private diagnostic":
            out.append((f"{path}.{name}", v))
    return out


def _estimator_cases():
    """name -> (call(data, seed, **kw), data, neighbour): every private estimator function."""
    g = dpx.Philox(31, purpose="data")
    x = dpx.data.AR1(phi=0.3, mu=1.0).sample(1000, g)
    xr = x.copy()
    xr[7] = -25.0  # replace one row
    X = np.column_stack([x, x[::-1]])
    Xr = X.copy()
    Xr[-3] = [9.0, -9.0]  # in the half sample_split_mean averages
    p = np.stack([dpx.data.AR1(phi=0.3, mu=1.0).sample(6, g) for _ in range(200)])
    pr = p.copy()
    pr[3] = 12.0  # replace one user
    D = np.stack([np.column_stack([np.ones(6), np.linspace(0, 1, 6)])] * 200)
    yr = (D @ np.array([1.0, -0.5])) + 0.1 * p
    yrr = yr.copy()
    yrr[3] = 8.0
    ys = np.sin(np.linspace(0, 3, 400))
    ysr = ys.copy()
    ysr[100] = 5.0
    off = np.arange(0, 1201, 6)
    return {
        "projection_interval": (lambda v, s, **k: E.projection_interval(v, 1.0, 1e-6, 1.0,
                                                                         dpx.Philox(s), **k), x, xr),
        "winsorized_mean": (lambda v, s, **k: E.winsorized_mean(v, 1.0, 1e-6, 1.0, dpx.Philox(s),
                                                                 **k), x, xr),
        "winsorized_mean_hd": (lambda v, s, **k: E.winsorized_mean_hd(v, 1.0, 1e-6, 1.0,
                                                                       dpx.Philox(s), **k), X, Xr),
        "sample_split_mean": (lambda v, s, **k: E.sample_split_mean(v, 1.0, 1e-6, 1.0,
                                                                     dpx.Philox(s), **k), X, Xr),
        "kv_mean": (lambda v, s, **k: E.kv_mean(v, 1.0, 1e-6, dpx.Philox(s), **k), x, xr),
        "kv_mean_unknown_sigma": (lambda v, s, **k: E.kv_mean_unknown_sigma(v, 1.0, 1e-6,
                                                                             dpx.Philox(s), **k),
                                  x, xr),
        "local_projection_interval": (lambda v, s, **k: E.local_projection_interval(
            v, 2.0, 1.0, 20.0, dpx.Philox(s), **k), x, xr),
        "local_mean": (lambda v, s, **k: E.local_mean(v, 2.0, 1.0, 10.0, dpx.Philox(s), **k),
                       x, xr),
        "local_mean_hd": (lambda v, s, **k: E.local_mean_hd(v, 2.0, 1.0, 10.0, dpx.Philox(s),
                                                             **k), X, Xr),
        "local_user_mean": (lambda v, s, **k: E.local_user_mean(v, 2.0, 1.0, 10.0, dpx.Philox(s),
                                                                 **k), p, pr),
        "user_mean": (lambda v, s, **k: E.user_mean(v, 1.0, 1e-6, 1.0, dpx.Philox(s), **k), p, pr),
        "user_mean_ragged": (lambda v, s, **k: E.user_mean_ragged(v.ravel(), off, 1.0, 1e-6, 1.0,
                                                                   dpx.Philox(s), **k), p, pr),
        "random_effects_mean": (lambda v, s, **k: E.random_effects_mean(v, 1.0, 1e-6, 1.0,
                                                                         dpx.Philox(s), **k),
                                p, pr),
        "longitudinal_regression": (lambda v, s, **k: E.longitudinal_regression(
            D, v, 1.0, 1e-6, 2.0, dpx.Philox(s), **k), yr, yrr),
        "priestley_chao": (lambda v, s, **k: E.priestley_chao(v, np.array([0.3, 0.6]),
                                                               dpx.Philox(s), epsilon=1.0,
                                                               delta=1e-6, **k), ys, ysr),
        "variance_bisection": (lambda v, s, **k: E.variance_bisection(
            v, dpx.Philox(s), variance_min=0.1, variance_max=100.0, **k), x, xr),
        "adaptive_coinpress": (lambda v, s, **k: E.adaptive_coinpress(
            v, dpx.Philox(s), variance_min=0.1, variance_max=100.0, **k), x, xr),
    }


ESTIMATORS = _estimator_cases()


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimator_outputs_outside_the_release_agree_on_neighbours(name):
    call, d, d_prime = ESTIMATORS[name]
    r1, r2 = call(d, 21), call(d_prime, 21)
    surface = type(r1).__name__
    diffs = walk(r1, r2, surface, name, [])
    assert [p for p, kind in diffs if kind != "release"] == []
    assert any(kind == "release" for _, kind in diffs), "power: the release sees the change"
    withheld = withheld_fields(r1, surface, name, [])
    assert withheld and all(v is None for _, v in withheld), withheld


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimator_diagnostics_only_on_request(name):
    call, d, d_prime = ESTIMATORS[name]
    r1 = call(d, 21, nonprivate_diagnostics=True)
    surface = type(r1).__name__
    present = withheld_fields(r1, surface, name, [])
    assert all(v is not None for _, v in present), present
    # The release is the same with or without them (same seed).
    r0 = call(d, 21)
    assert [p for p, kind in walk(r0, r1, surface, name, []) if kind == "release"] == []


def test_estimator_diagnostics_differ_on_neighbours_when_asked():
    # Positive control: the exact clipped fraction sees the replaced row.
    call, d, d_prime = ESTIMATORS["winsorized_mean"]
    a = call(d, 21, nonprivate_diagnostics=True).diagnostics.clipped_fraction
    b = call(d_prime, 21, nonprivate_diagnostics=True).diagnostics.clipped_fraction
    assert a != b


def test_stable_histogram_withholds_the_occupied_count():
    import dpx.mechanisms as M
    h = M.StableHistogram.calibrate(1.0, 1e-6)
    x = np.repeat(np.arange(5.0), 300)
    xr = x.copy()
    xr[0] = 40.0  # replace one record: one more occupied bin (exactly)
    a, b = h.release(x, dpx.Philox(2)), h.release(xr, dpx.Philox(2))
    diffs = walk(a, b, "SparseHistogram", "release", [])
    assert [p for p, kind in diffs if kind != "release"] == []
    assert a.occupied is None
    a, b = (h.release(v, dpx.Philox(2), nonprivate_diagnostics=True) for v in (x, xr))
    assert (a.occupied, b.occupied) == (5, 6)  # positive control: the exact count sees the row
    keys = np.arange(5, dtype=np.int64).repeat(300)
    assert h.release_bins(keys, dpx.Philox(2)).occupied is None


# ---- OnlineKernelRegression -------------------------------------------------------------------

OKR = "OnlineKernelRegression"
OKR_INPUTS = {"update", "fit"}  # take the training stream, return nothing
OKR_CASES = {
    "per_query": dict(kernel="linear", privacy="per_query", epsilon=0.5),
    "function_release": dict(kernel="gaussian", privacy="function_release", epsilon=0.5,
                             delta=1e-5),
}


@pytest.fixture(scope="module")
def okr_streams():
    rng = np.random.default_rng(11)
    X = rng.uniform(-0.7, 0.7, size=(100, 2))
    y = np.clip(X @ np.array([0.6, -0.3]) + 0.1 * rng.normal(size=100), -1, 1)
    Xr, yr = X.copy(), y.copy()
    Xr[97], yr[97] = [-0.6, 0.6], 1.0  # replace one example (late: f_t still remembers it)
    return (X, y), (Xr, yr)


def okr_outputs(model):
    """Every classified output of the learner: attributes read, methods called on public
    arguments (the releases first, with one seed, so privacy_events records them). A refusal
    is recorded as its exception type and message."""
    q = np.array([0.2, -0.1])
    points = np.array([[0.2, -0.1], [-0.3, 0.4], [0.5, 0.0]])
    calls = {"predict_private": lambda: model.predict_private(q, dpx.Philox(9)),
             "release_function": lambda: model.release_function(points, dpx.Philox(9)),
             "predict": lambda: model.predict(points),
             "eta": lambda: model.eta(7), "lam": lambda: model.lam(7)}
    out = {}
    for name in ["predict_private", "release_function"] + sorted(contract(OKR)):
        if name in out:
            continue
        try:
            out[name] = calls[name]() if name in calls else getattr(model, name)
        except ValueError as e:
            out[name] = ("raises", type(e).__name__, str(e))
    return out


def okr_fit(case, stream, **kw):
    model = S.OnlineKernelRegression(2, **OKR_CASES[case], **kw)
    model.fit(*stream)
    return model


@pytest.mark.parametrize("case", sorted(OKR_CASES))
def test_online_kernel_outputs_outside_the_release_agree_on_neighbours(okr_streams, case):
    m1, m2 = (okr_fit(case, s) for s in okr_streams)
    public = {n for n in dir(m1) if not n.startswith("_")} - OKR_INPUTS
    assert sorted(public) == sorted(contract(OKR)), "every output is classified (and only those)"
    o1, o2 = okr_outputs(m1), okr_outputs(m2)
    table = contract(OKR)
    differs = [n for n, kind in table.items() if kind != "release" and not same(o1[n], o2[n])]
    assert differs == []
    # Power: the same noise on the neighbouring stream gives another release.
    release = "predict_private" if case == "per_query" else "release_function"
    assert not same(o1[release], o2[release])
    assert o1["privacy_events"] and m1.nonprivate_diagnostics is False
    for name, kind in table.items():
        if kind == "non-private diagnostic":
            assert o1[name][0] == "raises", name
            assert "without noise" in o1[name][2] and "nonprivate_diagnostics=True" in o1[name][2]
    text = repr(m1)
    assert "withheld" in text and "centres" in text, text


@pytest.mark.parametrize("case", sorted(OKR_CASES))
def test_online_kernel_diagnostics_only_on_request_and_labelled(okr_streams, case):
    m1, m2 = (okr_fit(case, s, nonprivate_diagnostics=True) for s in okr_streams)
    o1, o2 = okr_outputs(m1), okr_outputs(m2)
    table = contract(OKR)
    differs = sorted(n for n, kind in table.items() if not same(o1[n], o2[n]))
    # Positive control: every diagnostic sees the replaced example (the centres hold it).
    diagnostics = sorted(n for n, k in table.items() if k == "non-private diagnostic")
    assert [n for n in differs if table[n] != "release"] == diagnostics
    assert not same(o1["centres"][97], o2["centres"][97])
    assert m1.nonprivate_diagnostics is True
    assert "NOT private diagnostics" in repr(m1)
    # The releases are the same with or without the opt-in (same seed).
    o0 = okr_outputs(okr_fit(case, okr_streams[0]))
    for n, kind in table.items():
        if kind == "release":
            assert same(o0[n], o1[n]), n


def test_online_kernel_without_privacy_keeps_its_diagnostics(okr_streams):
    m = S.OnlineKernelRegression(2, kernel="linear")
    m.fit(*okr_streams[0])
    assert m.nonprivate_diagnostics is True and m.centres.shape == (100, 2)
    assert math.isfinite(m.predict(np.array([0.1, 0.1])))
    assert "not private" in repr(m)
