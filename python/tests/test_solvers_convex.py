"""Frank-Wolfe, output and objective perturbation: bit-identical to the C++ solvers run directly
on the same data and seed (the dpx_solvers_reference program: `dpx fit` does not offer these
solvers), calibrations against their closed forms (docs/solvers.md), events composable, an
independent numpy Frank-Wolfe, and bad input -> ValueError."""

import json
import math
import os
import subprocess

import numpy as np
import pytest

import dpx
import dpx.accounting as A
import dpx.solvers as S

N, D = 400, 4


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(N, D))
    X /= np.linalg.norm(X, axis=1).max()  # rows within the unit ball (objective perturbation)
    y = X @ np.array([2.0, -1.0, 0.0, 0.5]) + 0.1 * rng.normal(size=N)
    labels = np.where(y + 0.05 * rng.normal(size=N) > 0, 1.0, -1.0)
    d = tmp_path_factory.mktemp("convex")
    paths = {}
    for name, target in (("regression", y), ("logistic", labels)):
        paths[name] = d / f"{name}.csv"
        np.savetxt(paths[name], np.column_stack([X, target]), delimiter=",", fmt="%.17g")
    return X, y, labels, paths


def reference(path, solver, seed, **options):
    """The C++ solver on the CSV, rng::stream(seed) (= dpx.Philox(seed))."""
    exe = os.environ.get("DPX_SOLVERS_REFERENCE")
    if exe is None:
        pytest.fail("DPX_SOLVERS_REFERENCE is not set (CTest sets it)")
    args = [exe, str(path), solver, str(seed)] + [f"{k}={v}" for k, v in options.items()]
    proc = subprocess.run(args, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


FW_CASES = [
    dict(iterations=300, radius=2.0),
    dict(iterations=300, radius=2.0, private_selection=1, clip_norm=1.0, epsilon=1.0, delta=1e-6),
    dict(iterations=150, radius=1.5, private_selection=1, coordinate_bound=2.0,
         relation="add_remove", public_size=380, calibration="paper", epsilon=2.0, delta=1e-5),
    dict(iterations=100, radius=1.0, private_selection=1, clip_norm=0.5, calibration="fixed",
         step_epsilon=0.05),
]


@pytest.mark.parametrize("case", FW_CASES)
def test_frank_wolfe_matches_cpp(data, case):
    X, y, _, paths = data
    want = reference(paths["regression"], "frank_wolfe", 5, **case)
    kw = dict(case, private_selection=bool(case.get("private_selection", 0)))
    r = S.frank_wolfe(X, y, dpx.Philox(5), noise_kind="research_grade", trace=False, **kw)
    np.testing.assert_array_equal(r.x, want["coefficients"])
    assert (r.sensitivity, r.noise_scale) == (want["sensitivity"], want["noise_scale"])
    assert np.abs(r.x).sum() <= case["radius"] * (1 + 1e-12)
    if kw["private_selection"]:
        [(event, count)] = r.privacy_events
        assert count == case["iterations"] and isinstance(event, A.ExponentialMechanismDpEvent)
        cal = S.frank_wolfe_calibrate(N, **{k: v for k, v in kw.items()})
        assert event.epsilon == cal.step_epsilon and r.sensitivity == cal.utility_sensitivity
    else:
        assert r.privacy_events == [] and r.guarantee == "nonprivate"


def test_frank_wolfe_nonprivate_against_numpy(data):
    # Independent implementation of Jaggi's Frank-Wolfe on the L1 ball for least squares
    # F = ||X theta - y||^2 / (2n): v = -r sign(g_j) e_j at j = argmax |g_j|, mu = 2 / (t + 2).
    X, y, _, _ = data
    theta, r = np.zeros(D), 2.0
    for t in range(300):
        g = X.T @ (X @ theta - y) / N
        j = int(np.argmax(np.abs(g)))
        v = np.zeros(D)
        v[j] = -r * np.sign(g[j])
        mu = 2 / (t + 2)
        theta = (1 - mu) * theta + mu * v
    res = S.frank_wolfe(X, y, dpx.Philox(0), iterations=300, radius=r)
    np.testing.assert_allclose(res.x, theta, rtol=1e-10, atol=1e-13)
    # The trace records the objective at log-spaced checkpoints, the last one at T.
    assert res.trace["iteration"][-1] == 300
    assert res.trace["objective"][-1] == pytest.approx(np.sum((X @ theta - y) ** 2) / (2 * N))


def test_frank_wolfe_calibration_closed_forms():
    # tight: sqrt(rho) = sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta)), eps0 = sqrt(8 rho / T)
    # (Bun & Steinke 2016 Prop. 1.3; bounded range: eps0^2 / 8-zCDP per selection);
    # Delta_u = 2 r G / n (replace-one), r G / n_bar (add/remove).
    T, eps, delta, r, G = 200, 1.5, 1e-6, 2.0, 0.7
    c = S.frank_wolfe_calibrate(N, iterations=T, radius=r, private_selection=True, clip_norm=G,
                                epsilon=eps, delta=delta)
    L = math.log(1 / delta)
    assert c.step_epsilon == pytest.approx(math.sqrt(8 / T) * (math.sqrt(L + eps) - math.sqrt(L)),
                                           rel=1e-14)
    assert c.utility_sensitivity == pytest.approx(2 * r * G / N, rel=1e-15)
    assert c.noise_scale == pytest.approx(2 * c.utility_sensitivity / c.step_epsilon, rel=1e-15)
    c = S.frank_wolfe_calibrate(N, private_selection=True, clip_norm=G, relation="add_remove",
                                public_size=1000, radius=r, epsilon=eps, delta=delta)
    assert c.utility_sensitivity == pytest.approx(r * G / 1000, rel=1e-15)
    # The T selections' events re-account to <= epsilon (zCDP accountant, bounded range).
    ev = A.SelfComposedDpEvent(A.ExponentialMechanismDpEvent(
        S.frank_wolfe_calibrate(N, iterations=T, private_selection=True, clip_norm=G,
                                epsilon=eps, delta=delta).step_epsilon), T)
    assert A.ZCdpAccountant().compose(ev).get_epsilon(delta) <= eps * (1 + 1e-12)
    assert S.frank_wolfe_calibrate(N).step_epsilon == 0  # nonprivate


@pytest.mark.parametrize("case", [
    dict(loss="logistic", epsilon=1.0, delta=1e-6),
    dict(loss="least_squares", regularization=0.5, clip_norm=2.0, relation="add_remove",
         public_size=350, epsilon=0.5, delta=1e-5, relative_tolerance=1e-5),
    dict(loss="logistic", calibration="fixed", noise_scale=0.25),
])
def test_output_perturbation_matches_cpp(data, case):
    X, y, labels, paths = data
    target, path = (labels, paths["logistic"]) if case["loss"] == "logistic" else (y, paths["regression"])
    want = reference(path, "output_perturbation", 17, **case)
    # The status is a non-private diagnostic of the run: asked for explicitly.
    r = S.output_perturbation(X, target, dpx.Philox(17), noise_kind="research_grade",
                              nonprivate_diagnostics=True, **case)
    np.testing.assert_array_equal(r.x, want["coefficients"])
    assert r.status == want["status"] == "converged"
    options = {k: v for k, v in case.items() if k != "loss"}
    cal = S.output_perturbation_calibrate(N, **options)
    assert (r.sensitivity, r.noise_scale) == (cal.sensitivity, cal.noise_scale)
    # Sensitivity (G' + 2 tau) / lambda, G' = 2G/n (replace-one) or G/n_bar (add/remove),
    # tau = relative_tolerance * G / m (perturbation.hpp).
    G, lam = case.get("clip_norm", 1.0), case.get("regularization", 0.1)
    m = case.get("public_size", N)
    k = 1 if case.get("relation") == "add_remove" else 2
    tau = case.get("relative_tolerance", 1e-4) * G / m
    assert cal.tolerance == pytest.approx(tau, rel=1e-15)
    assert cal.sensitivity == pytest.approx((k * G / m + 2 * tau) / lam, rel=1e-14)
    [(event, count)] = r.privacy_events
    assert count == 1 and event == A.GaussianDpEvent(r.noise_scale / r.sensitivity)
    if "epsilon" in case:
        eps = A.PLDAccountant().compose(S.privacy_event(r)).get_epsilon(case["delta"])
        assert eps <= case["epsilon"] * (1 + 1e-9) and eps == pytest.approx(case["epsilon"], rel=2e-2)
    # Without noise (fixed, 0): the nonprivate certified minimiser, no events, no noise_kind needed.
    m0 = S.output_perturbation(X, target, dpx.Philox(17), loss=case["loss"], calibration="fixed",
                               noise_scale=0.0)
    assert m0.privacy_events == [] and m0.status == "converged"


@pytest.mark.parametrize("case", [
    dict(epsilon=1.0, delta=1e-6),
    dict(epsilon=0.3, delta=1e-5, regularization=0.01, relation="add_remove", public_size=390,
         approx_fraction=0.05),
])
def test_objective_perturbation_matches_cpp(data, case):
    X, _, labels, paths = data
    want = reference(paths["logistic"], "objective_perturbation", 23, **case)
    r = S.objective_perturbation(X, labels, dpx.Philox(23), noise_kind="research_grade",
                                 nonprivate_diagnostics=True, **case)
    np.testing.assert_array_equal(r.x, want["coefficients"])
    assert r.status == "converged" and "(epsilon, delta)-DP" in r.guarantee
    # Closed forms (docs/solvers.md, perturbation.hpp): R = 1, zeta = R, beta = R^2 / 4,
    # (eps_1, delta_1) = (1 - f)(eps, delta), lambda' = max(lambda, beta / (m (e^{eps_1/2} - 1))),
    # eps_J = ln(1 + beta / (m lambda')), t = sqrt(2 ln(k / delta_1)),
    # sigma_b = k zeta / (sqrt(t^2 + 2 (eps_1 - eps_J)) - t).
    cal = S.objective_perturbation_calibrate(N, **case)
    f = case.get("approx_fraction", 0.01)
    m = case.get("public_size", N)
    k = 1 if case.get("relation") == "add_remove" else 2
    eps1, delta1 = (1 - f) * case["epsilon"], (1 - f) * case["delta"]
    lam = max(case.get("regularization", 0.1), 0.25 / (m * math.expm1(eps1 / 2)))
    epsJ = math.log1p(0.25 / (m * lam))
    t = math.sqrt(2 * math.log(k / delta1))
    assert cal.regularization == pytest.approx(lam, rel=1e-14)
    assert cal.epsilon_jacobian == pytest.approx(epsJ, rel=1e-14)
    assert (cal.epsilon_main, cal.delta_main) == pytest.approx((eps1, delta1), rel=1e-14)
    assert cal.objective_sigma == pytest.approx(k / (math.sqrt(t * t + 2 * (eps1 - epsJ)) - t),
                                                rel=1e-12)
    # Events: (eps_1, delta_1)-DP then the output release, (f eps, f delta)-DP by the analytic
    # Gaussian (PLD re-accounts it); basic composition of the two gives (eps, delta).
    (e1, c1), (e2, c2) = r.privacy_events
    assert e1 == A.EpsilonDeltaDpEvent(cal.epsilon_main, cal.delta_main) and c1 == c2 == 1
    assert e2 == A.GaussianDpEvent(cal.noise_scale / cal.sensitivity)
    eps2 = A.PLDAccountant().compose(e2).get_epsilon(f * case["delta"])
    assert eps2 <= f * case["epsilon"] * (1 + 1e-9)
    assert cal.epsilon_main + eps2 <= case["epsilon"] * (1 + 1e-9)


def test_objective_perturbation_projects_rows_above_the_bound(data):
    # Rows beyond the public row_norm_bound are projected onto it (x R / ||x||), never refused:
    # the release on 3 X with R = 1 is, draw for draw, the release on X projected by hand.
    X, _, labels, _ = data
    wide = 3 * X
    norms = np.linalg.norm(wide, axis=1, keepdims=True)
    assert norms.max() > 1
    projected = wide / np.maximum(norms, 1.0)
    rg = dict(noise_kind="research_grade")
    a = S.objective_perturbation(wide, labels, dpx.Philox(5), **rg)
    b = S.objective_perturbation(projected, labels, dpx.Philox(5), **rg)
    np.testing.assert_allclose(a.x, b.x, rtol=0, atol=1e-12)
    assert a.privacy_events == b.privacy_events


def test_convex_solvers_bad_input(data):
    X, y, labels, _ = data
    g = dpx.Philox(1)
    # Research-grade noise must be asked for by name (float_safe is the default everywhere).
    with pytest.raises(ValueError, match="noise_kind"):
        S.objective_perturbation(X, labels, g)
    with pytest.raises(ValueError, match="noise_kind"):
        S.output_perturbation(X, y, g)
    with pytest.raises(ValueError, match="noise_kind"):
        S.frank_wolfe(X, y, g, private_selection=True, clip_norm=1.0)
    rg = dict(noise_kind="research_grade")
    with pytest.raises(dpx.ValidationError, match="loss"):
        S.objective_perturbation(X, labels, g, loss="least_squares", **rg)
    with pytest.raises(dpx.ValidationError, match="calibration"):
        S.output_perturbation(X, y, g, calibration="paper", **rg)
    with pytest.raises(dpx.ValidationError, match="public_size"):
        S.output_perturbation(X, y, g, relation="add_remove", **rg)
    with pytest.raises(dpx.ValidationError, match="radius"):
        S.frank_wolfe(X, y, g, radius=0.0)
    with pytest.raises(dpx.ValidationError, match="x0"):
        S.frank_wolfe(X, y, g, x0=np.ones(D))
    with pytest.raises(dpx.ValidationError, match="clip_norm"):
        S.frank_wolfe(X, y, g, private_selection=True, **rg)
    with pytest.raises(dpx.ValidationError, match="y"):
        S.frank_wolfe(X, y[:-1], g)
    with pytest.raises(ValueError, match="relation"):
        S.frank_wolfe_calibrate(N, relation="neighbours")
    with pytest.raises(ValueError, match="noise_kind|noise"):
        S.frank_wolfe(X, y, g, noise_kind="exact")
