"""Solvers: DP-SGD bit-identical to `dpx fit --solver dp_sgd` on the same data and seed, GIST
against the closed-form least-squares solution, privacy events composable."""

import json

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
    # 1000 iterations, clip 1, sigma from the RDP calibration, stream Philox(seed).
    q = min(1.0, 256 / len(y))
    sigma = A.calibrate_gaussian(2.0, 1e-5, 1000, q, method="rdp")
    r = dpx.solvers.dp_sgd(X, y, dpx.Philox(9), iterations=1000, step_size=0.5, sampling_rate=q,
                           clip_norm=1.0, noise_multiplier=sigma, noise="research_grade")
    np.testing.assert_array_equal(r.x, out["coefficients"])
    assert out["noise"] == "research_grade"
    assert "Poisson-subsampled" in r.guarantee and "Poisson-subsampled" in out["guarantee"]
    # The run's events: 1000 Poisson-subsampled Gaussian steps, composable by an accountant.
    assert r.privacy_events == [(A.PoissonSampledGaussianDpEvent(q, sigma), 1000)]
    eps = A.RDPAccountant().compose(dpx.solvers.privacy_event(r)).get_epsilon(1e-5)
    assert eps <= 2.0 and eps == pytest.approx(2.0, rel=1e-3)


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
