"""Solvers: DP-SGD bit-identical to `dpx fit --solver dp_sgd` on the same data and seed, GIST
against the closed-form least-squares solution, privacy events composable."""

import json
import math

import numpy as np
import pytest

import dpx
import dpx.accounting as A


@pytest.fixture(scope="module")
def regression(tmp_path_factory):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=500)
    path = tmp_path_factory.mktemp("fit") / "fit.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,y", comments="", fmt="%.17g")
    return X, y, path


def test_dp_sgd_matches_cli(cli, regression):
    X, y, path = regression
    out = json.loads(cli("fit", "--input", path, "--target", "y", "--solver", "dp_sgd",
                         "--epsilon", 2, "--delta", 1e-5, "--seed", 9, "--research-grade"))
    # `dpx fit` settings: q = min(1, 256 / n), step 0.5 / smoothness (1 for least squares),
    # 1000 iterations, clip 1, sigma from the PLD calibration, stream Philox(seed).
    q = min(1.0, 256 / len(y))
    sigma = A.calibrate_gaussian(2.0, 1e-5, 1000, q, method="pld")
    r = dpx.solvers.dp_sgd(X, y, dpx.Philox(9), iterations=1000, step_size=0.5, sampling_rate=q,
                           clip_norm=1.0, noise_multiplier=sigma, noise_kind="research_grade")
    np.testing.assert_array_equal(r.x, out["coefficients"])
    assert out["noise"] == "research_grade"
    assert "Poisson-subsampled" in r.guarantee and "Poisson-subsampled" in out["guarantee"]
    # The run's events: 1000 Poisson-subsampled Gaussian steps, composable by an accountant.
    assert r.privacy_events == [(A.PoissonSampledGaussianDpEvent(q, sigma), 1000)]
    eps = A.PLDAccountant().compose(dpx.solvers.privacy_event(r)).get_epsilon(1e-5)
    assert eps <= 2.0 and eps == pytest.approx(2.0, rel=1e-3)


def test_dp_sgd_float_safe_default_keeps_amplification(cli, regression):
    # The default (float-safe) run: the same sigma as research-grade (the events are the
    # Poisson-subsampled Gaussian's at the rate as drawn, ceil(q 2^53) 2^-53), bit-identical to
    # `dpx fit` without --research-grade, and PLDAccountant composes its events
    # (docs/theory/float-safe-dp-sgd.md).
    X, y, path = regression
    out = json.loads(cli("fit", "--input", path, "--target", "y", "--solver", "dp_sgd",
                         "--epsilon", 2, "--delta", 1e-5, "--seed", 9))
    q = min(1.0, 256 / len(y))
    q_drawn = math.ceil(q * 2.0**53) * 2.0**-53
    sigma = A.calibrate_gaussian(2.0, 1e-5, 1000, q_drawn, method="pld")
    assert out["noise"] == "float_safe"
    assert out["dp_sgd"]["noise_multiplier"] == sigma
    r = dpx.solvers.dp_sgd(X, y, dpx.Philox(9), iterations=1000, step_size=0.5, sampling_rate=q,
                           clip_norm=1.0, noise_multiplier=sigma)
    np.testing.assert_array_equal(r.x, out["coefficients"])
    assert r.privacy_events == [(A.PoissonSampledGaussianDpEvent(q_drawn, sigma), 1000)]
    eps = A.PLDAccountant().compose(dpx.solvers.privacy_event(r)).get_epsilon(1e-5)
    assert 1.99 <= eps <= 2.0
    rg = A.calibrate_gaussian(2.0, 1e-5, 1000, q, method="pld")
    assert sigma == pytest.approx(rg, rel=1e-9)


def test_gist_least_squares_closed_form(regression):
    X, y, _ = regression
    r = dpx.solvers.gist(X, y)
    ols = np.linalg.solve(X.T @ X, X.T @ y)
    np.testing.assert_allclose(r.x, ols, rtol=1e-8)
    assert r.status == "converged" and r.privacy_events == [] and len(r.trace["iteration"]) > 0
    # Fortran-ordered X is converted (same answer).
    np.testing.assert_allclose(dpx.solvers.gist(np.asfortranarray(X), y).x, r.x, rtol=1e-12)


def test_solver_bad_input(regression):
    X, y, _ = regression
    with pytest.raises(dpx.ValidationError):
        dpx.solvers.gist(X, y[:-1])
    with pytest.raises(dpx.ValidationError):
        dpx.solvers.dp_sgd(X, y, dpx.Philox(1), sampling_rate=0.0)
    with pytest.raises(ValueError):
        dpx.solvers.gist(X, y, penalty="l0")


# ---- ISTDP and noisy PGD: bit-identical to `dpx fit` -------------------------------------------

def fit_cli(cli, path, *args):
    return json.loads(cli("fit", "--input", path, "--target", "y", *args))


@pytest.mark.parametrize("variant", ["strict", "as_published"])
def test_istdp_matches_cli(cli, regression, variant):
    X, y, path = regression
    out = fit_cli(cli, path, "--solver", "istdp", "--variant", variant, "--epsilon", 1,
                  "--delta", 1e-5, "--seed", 3, "--research-grade")
    # `dpx fit --solver istdp` settings (apps/dpx/cmd_fit.cpp): T = 200, public smoothness 1
    # (least squares), alpha_max = 1 / smoothness, alpha_min = 1e-4 alpha_max, clipping at 1,
    # tight calibration; theta1 = 0, and theta0 = 1e-3 for as_published (strict takes none).
    # as_published is NOT private: its target needs the explicit opt-in (the CLI's
    # --variant as_published is that choice, warned on stderr).
    start = ({"theta0": np.full(3, 1e-3), "allow_nonprivate": True}
             if variant == "as_published" else {})
    r = dpx.solvers.istdp(X, y, dpx.Philox(3), variant=variant, iterations=200, alpha_max=1.0,
                          alpha_min=1e-4, epsilon=1.0, delta=1e-5, trace=False,
                          noise_kind="research_grade", **start)
    np.testing.assert_array_equal(r.x, out["coefficients"])
    assert r.guarantee == out["guarantee"]
    assert r.guarantee.startswith("NOT private") == (variant == "as_published")
    # 199 Gaussian releases whose exact composition is (1, 1e-5)-DP (tight calibration): an
    # accountant recovers epsilon <= 1 from the events alone.
    [(event, count)] = r.privacy_events
    assert count == 199 and isinstance(event, A.GaussianDpEvent)
    eps = A.PLDAccountant().compose(dpx.solvers.privacy_event(r)).get_epsilon(1e-5)
    assert eps <= 1.0 + 1e-9 and eps == pytest.approx(1.0, rel=2e-2)
    # Sensitivity of the clipped mean under replace-one: 2G/n.
    assert r.sensitivity == pytest.approx(2 * 1.0 / len(y))


def test_istdp_penalty_and_intercept_match_cli(cli, regression):
    X, y, path = regression
    out = fit_cli(cli, path, "--solver", "istdp", "--penalty", "mcp", "--lambda", 0.05,
                  "--intercept", "--epsilon", 2, "--delta", 1e-6, "--seed", 8, "--max-iter", 60)
    X1 = np.column_stack([X, np.ones(len(y))])  # intercept stored last, unpenalised
    r = dpx.solvers.istdp(X1, y, dpx.Philox(8), penalty="mcp", lam=0.05, unpenalized=1,
                          iterations=60, alpha_max=1.0, alpha_min=1e-4, epsilon=2.0, delta=1e-6,
                          trace=False)
    np.testing.assert_array_equal(r.x[:3], out["coefficients"])
    assert r.x[3] == out["intercept"]
    # Float-safe by default on both sides: exact discrete Gaussian, one zCDP event per release.
    assert out["noise"] == "float_safe"
    [(event, count)] = r.privacy_events
    assert count == 59 and isinstance(event, A.ZCdpEvent)


@pytest.mark.parametrize("loss", ["least_squares", "logistic"])
def test_noisy_pgd_matches_cli(cli, regression, tmp_path, loss):
    X, y, path = regression
    if loss == "logistic":
        y = np.where(y > 0, 1.0, -1.0)
        path = tmp_path / "logistic.csv"
        np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,y", comments="",
                   fmt="%.17g")
    out = fit_cli(cli, path, "--solver", "noisy_pgd", "--loss", loss, "--epsilon", 3,
                  "--delta", 1e-6, "--seed", 21, "--research-grade")
    # `dpx fit --solver noisy_pgd`: T = 200, step 1 / smoothness (1, or 1/4 for logistic: 4),
    # last iterate, Gaussian noise with tight calibration, clipping at 1.
    step = 4.0 if loss == "logistic" else 1.0
    r = dpx.solvers.pgd(X, y, dpx.Philox(21), loss=loss, iterations=200, step_size=step,
                        output="last", noise="gaussian", clip_norm=1.0, epsilon=3.0, delta=1e-6,
                        trace=False, noise_kind="research_grade")
    np.testing.assert_array_equal(r.x, out["coefficients"])
    assert r.guarantee == out["guarantee"]
    eps = A.PLDAccountant().compose(dpx.solvers.privacy_event(r)).get_epsilon(1e-6)
    assert eps <= 3.0 + 1e-9 and eps == pytest.approx(3.0, rel=2e-2)


def test_gist_working_set_matches_cli_and_lasso_closed_form(cli, tmp_path):
    # Orthogonal design with X^T X / n = I: the lasso solution is soft-thresholding of
    # X^T y / n at lambda (closed form).
    n, lam = 400, 0.3
    Q, _ = np.linalg.qr(np.random.default_rng(3).normal(size=(n, 4)))
    X = Q * np.sqrt(n)
    y = X @ np.array([1.0, -0.2, 0.5, 0.0]) + np.random.default_rng(4).normal(size=n)
    z = X.T @ y / n
    want = np.sign(z) * np.maximum(np.abs(z) - lam, 0)
    r = dpx.solvers.gist_working_set(X, y, penalty="l1", lam=lam)
    np.testing.assert_allclose(r.x, want, atol=1e-9)
    assert r.status == "converged"
    path = tmp_path / "lasso.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,d,y", comments="",
               fmt="%.17g")
    out = fit_cli(cli, path, "--penalty", "l1", "--lambda", lam)
    np.testing.assert_array_equal(r.x, out["coefficients"])
    # A Penalty object gives the same answer as the shorthand, and plain GIST agrees.
    np.testing.assert_array_equal(
        dpx.solvers.gist_working_set(X, y, penalty=dpx.solvers.Penalty.l1(lam)).x, r.x)
    np.testing.assert_allclose(dpx.solvers.gist(X, y, penalty="l1", lam=lam).x, want, atol=1e-8)


def test_pgd_projection_closed_form(regression):
    X, y, _ = regression
    # Nonprivate projected GD onto a ball the OLS solution lies outside of: the iterates stay in
    # the ball and the last one satisfies the projection fixed point w = P(w - eta grad).
    P = dpx.solvers.Penalty.l2_ball(0.5)
    r = dpx.solvers.pgd(X, y, dpx.Philox(1), penalty=P, iterations=3000, step_size=0.5,
                        output="last")
    assert np.linalg.norm(r.x) <= 0.5 + 1e-9 and r.privacy_events == []
    grad = X.T @ (X @ r.x - y) / len(y)
    np.testing.assert_allclose(P.prox(r.x - 0.5 * grad, 0.5), r.x, atol=1e-10)
    assert P.value(r.x) == 0 and P.value(np.ones(3)) == np.inf
    # Laplace per coordinate, basic rule: b = (2G/n) / (epsilon / (T d)) (docs/theory/noisy-pgd.md).
    r = dpx.solvers.pgd(X, y, dpx.Philox(2), iterations=10, noise="laplace_per_coordinate",
                        laplace_rule="basic", clip_norm=1.0, epsilon=1.0)
    assert r.noise_scale == pytest.approx((2.0 / len(y)) / (1.0 / 30), rel=1e-12)
    assert sum(c for _, c in r.privacy_events) == 30


def test_online_kernel_linear_closed_form():
    # Linear kernel: f_t(x) = w_t . x with w_{t+1} = w_t - eta_t ((w_t . x_t - y_t) x_t +
    # lambda_t w_t), eta_t = (t + t0)^-theta, lambda_t = (t + t0)^-(1 - theta) (Nie & Wang 2017),
    # t0 = (kappa^2 + 1)^(1/theta) with kappa = input bound = 1.
    # Inputs outside the public input_bound = 1 are projected onto the unit ball (kappa rests on
    # it): the recursion runs on X / max(1, ||x||).
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 2)) / 2
    y = np.clip(X @ np.array([0.6, -0.3]) + 0.1 * rng.normal(size=300), -1, 1)
    assert np.linalg.norm(X, axis=1).max() > 1  # some rows are projected
    Xp = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    # predict and centres are non-private diagnostics (the output contract): opted in.
    k = dpx.solvers.OnlineKernelRegression(2, kernel="linear", privacy="per_query", epsilon=0.5,
                                           nonprivate_diagnostics=True)
    k.fit(X, y)
    theta, t0 = 0.75, 2 ** (1 / 0.75)
    assert k.t0 == pytest.approx(t0, rel=1e-12) and k.steps == 300
    w = np.zeros(2)
    for t in range(300):
        e, l = (t + t0) ** -theta, (t + t0) ** -(1 - theta)
        w = w - e * ((w @ Xp[t] - y[t]) * Xp[t] + l * w)
    np.testing.assert_allclose(k.predict(X[:5]), X[:5] @ w, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(k.centres, Xp, rtol=1e-15, atol=1e-15)
    # A private query outside the bound is refused (query points are public), naming x.
    with pytest.raises(ValueError, match="input_bound"):
        k.predict_private(np.array([0.8, 0.7]), dpx.Philox(1))
    assert k.privacy_events == []
    # C_t = 2 kappa^2 (kappa^2 + 1) M / (t - 1 + t0)^(2 theta - 1) (paper eq. (17)).
    assert k.sup_sensitivity == pytest.approx(4 / (299 + t0) ** 0.5, rel=1e-12)
    v = k.predict_private(Xp[0], dpx.Philox(1))
    assert v != k.predict(Xp[0])
    # float-safe by default: the grid release is exactly epsilon-DP (docs/solvers.md, "Noise kind").
    assert k.privacy_events == [(A.PureDpEvent(0.5), 1)]
    kr = dpx.solvers.OnlineKernelRegression(2, kernel="linear", privacy="per_query", epsilon=0.5,
                                            noise_kind="research_grade")
    kr.fit(X, y)
    assert kr.predict_private(Xp[0], dpx.Philox(1)) != v
    assert kr.privacy_events == [(A.LaplaceDpEvent(1 / 0.5), 1)]
    with pytest.raises(ValueError, match="noise"):
        dpx.solvers.OnlineKernelRegression(2, noise_kind="exact")
    with pytest.raises(dpx.ValidationError, match="function_release"):
        k.release_function(X[:3], dpx.Philox(1))


# ---- no silent non-private path (docs/solvers.md, "Privacy targets") ------------------------

def test_privacy_target_with_a_nonprivate_configuration_raises_naming_the_option(regression):
    X, y, _ = regression
    g = dpx.Philox(1)

    def refused(keyword, f, **kw):
        with pytest.raises(ValueError, match=keyword) as e:
            f(X, y, g, **kw)
        assert e.value.parameter == keyword

    # pgd: the default noise is none, so a target would be silently ignored.
    refused("noise", dpx.solvers.pgd, epsilon=1, delta=1e-5, clip_norm=5)
    refused("noise", dpx.solvers.pgd, epsilon=1)
    refused("delta", dpx.solvers.pgd, delta=1e-5)  # delta alone: it would be ignored
    refused("calibration", dpx.solvers.pgd, noise="gaussian", clip_norm=1, calibration="fixed",
            noise_scale=0.5, epsilon=1, delta=1e-5)
    refused("epsilon", dpx.solvers.pgd, noise="gaussian", clip_norm=1)  # calibrated: needs one
    refused("delta", dpx.solvers.pgd, noise="gaussian", clip_norm=1, epsilon=1)
    # istdp: as_published is NOT private; fixed spends sigma (sigma 0: noiseless).
    t0 = np.full(3, 1e-3)
    refused("variant", dpx.solvers.istdp, variant="as_published", theta0=t0)
    refused("variant", dpx.solvers.istdp, variant="as_published", theta0=t0, epsilon=1,
            delta=1e-5)
    refused("calibration", dpx.solvers.istdp, calibration="fixed", epsilon=1, delta=1e-5)
    refused("calibration", dpx.solvers.istdp, calibration="fixed", sigma=0.1, epsilon=1)
    refused("allow_nonprivate", dpx.solvers.istdp, allow_nonprivate=True)
    # frank_wolfe: without private_selection the vertex choice is exact.
    refused("private_selection", dpx.solvers.frank_wolfe, epsilon=1, delta=1e-6)
    refused("epsilon", dpx.solvers.frank_wolfe, private_selection=True, clip_norm=1,
            noise_kind="research_grade")
    refused("calibration", dpx.solvers.frank_wolfe, private_selection=True, clip_norm=1,
            calibration="fixed", step_epsilon=0.1, epsilon=1, delta=1e-6,
            noise_kind="research_grade")
    # output_perturbation: fixed spends noise_scale (0: the exact minimiser, NOT private).
    for scale in (0.0, 0.3):
        refused("calibration", dpx.solvers.output_perturbation, calibration="fixed",
                noise_scale=scale, epsilon=1, noise_kind="research_grade")
    with pytest.raises(ValueError, match="private_selection"):  # the calibration function too
        dpx.solvers.frank_wolfe_calibrate(len(y), epsilon=1, delta=1e-6)


def test_private_and_nonprivate_configurations_without_a_mismatch_still_run(regression):
    X, y, _ = regression
    # The nonprivate defaults need no flag and say so; the private ones name noise and target.
    r = dpx.solvers.pgd(X, y, dpx.Philox(1), iterations=5, clip_norm=5)
    assert r.privacy_events == [] and r.epsilon_target == 0
    r = dpx.solvers.pgd(X, y, dpx.Philox(1), iterations=5, noise="gaussian", clip_norm=1,
                        epsilon=1, delta=1e-5)
    assert r.epsilon_target == 1 and r.delta_target == 1e-5
    eps = A.ZCdpAccountant().compose(dpx.solvers.privacy_event(r)).get_epsilon(1e-5)
    assert eps <= 1 + 1e-9  # float-safe by default: zCDP events
    # istdp's default is private, with the C++ default target (1, 1e-5); fixed takes no target.
    r = dpx.solvers.istdp(X, y, dpx.Philox(1), iterations=5)
    assert (r.epsilon_target, r.delta_target) == (1.0, 1e-5) and len(r.privacy_events) == 1
    r = dpx.solvers.istdp(X, y, dpx.Philox(1), iterations=5, calibration="fixed", sigma=0.1)
    assert r.epsilon_target == 0 and r.privacy_events[0][1] == 4
    r = dpx.solvers.istdp(X, y, dpx.Philox(1), iterations=5, variant="as_published",
                          theta0=np.full(3, 1e-3), allow_nonprivate=True)
    assert r.guarantee.startswith("NOT private")
    r = dpx.solvers.frank_wolfe(X, y, dpx.Philox(1), iterations=5)
    assert r.privacy_events == []


def test_new_solvers_bad_input(regression):
    X, y, _ = regression
    with pytest.raises(dpx.ValidationError, match="theta0"):
        dpx.solvers.istdp(X, y, dpx.Philox(1), variant="as_published")
    # strict never uses theta0: passing one is refused rather than silently ignored.
    with pytest.raises(dpx.ValidationError, match="theta0"):
        dpx.solvers.istdp(X, y, dpx.Philox(1), theta0=np.zeros(3))
    with pytest.raises(dpx.ValidationError, match="variant"):
        dpx.solvers.istdp(X, y, dpx.Philox(1), variant="paper")
    with pytest.raises(dpx.ValidationError, match="unpenalized"):
        dpx.solvers.pgd(X, y, dpx.Philox(1), penalty=dpx.solvers.Penalty.l2_ball(1), unpenalized=1)
    with pytest.raises(dpx.ValidationError, match="noise"):
        dpx.solvers.pgd(X, y, dpx.Philox(1), noise="cauchy")
    with pytest.raises(dpx.ValidationError, match="public_size"):
        dpx.solvers.pgd(X, y, dpx.Philox(1), noise="gaussian", clip_norm=1, relation="add_remove",
                        epsilon=1, delta=1e-5)
    with pytest.raises(dpx.ValidationError):
        dpx.solvers.Penalty.mcp(0.1, 0.5)
    with pytest.raises(ValueError):
        dpx.solvers.OnlineKernelRegression(2, theta=1.5)
    # A privacy target is refused where it would be ignored (privacy="none" adds no noise) and
    # required by the private modes.
    with pytest.raises(dpx.ValidationError, match="privacy") as e:
        dpx.solvers.OnlineKernelRegression(2, epsilon=0.5)
    assert e.value.parameter == "privacy"
    with pytest.raises(dpx.ValidationError, match="epsilon"):
        dpx.solvers.OnlineKernelRegression(2, privacy="per_query")
    with pytest.raises(dpx.ValidationError, match="delta"):
        dpx.solvers.OnlineKernelRegression(2, privacy="function_release", epsilon=0.5)

