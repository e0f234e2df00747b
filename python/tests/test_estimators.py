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


# ---- user level: bit-identical to `dpx mean --user-column` -------------------------------------

@pytest.fixture(scope="module")
def panel(tmp_path_factory):
    # 300 users x 8 times, AR(1) within user around user effects (a public panel for the test).
    g = dpx.Philox(2, purpose="data")
    effects = 0.5 * dpx.mechanisms.Gaussian.from_sigma(1.0).sample(g, size=300)
    p = np.stack([dpx.data.AR1(phi=0.4, mu=1.0 + e).sample(8, g) for e in effects])
    path = tmp_path_factory.mktemp("panel") / "panel.csv"
    ids = np.repeat(np.arange(300), 8)
    np.savetxt(path, np.column_stack([ids, p.ravel()]), delimiter=",", header="user,x",
               comments="", fmt=["%d", "%.17g"])
    return p, path


def test_user_mean_matches_cli(cli, panel):
    p, path = panel
    out = cli.json("mean", "--input", path, "--column", "x", "--user-column", "user",
                   "--epsilon", 1, "--delta", 1e-6, "--variance-bound", 2.0,
                   "--rows-per-user", 8, "--seed", 17)
    tau = E.tau_user(2.0, 8, 300, 1, 0.1)  # `dpx mean` default gamma 0.1
    assert tau == pytest.approx(math.sqrt(2 * 2.0 * math.log(2 * 300 / 0.1) / 8))
    r = E.user_mean(p, 1.0, 1e-6, tau, dpx.Philox(17))
    assert r.estimate[0] == out["estimate"] and list(r.clip_ranges[0]) == out["clip_range"]
    assert r.unit == "user" == out["level"] and r.n == out["n"] == 300
    # The ragged form with equal blocks and the random-effects estimator are the same release.
    rr = E.user_mean_ragged(p.ravel(), np.arange(0, 2401, 8), 1.0, 1e-6, tau, dpx.Philox(17))
    assert rr.estimate[0] == r.estimate[0]
    re = E.random_effects_mean(p, 1.0, 1e-6, tau, dpx.Philox(17))
    assert re.estimate == r.estimate[0] and re.unit == "user"
    np.testing.assert_allclose(E.user_averages(p)[:, 0], p.mean(axis=1), rtol=1e-14)


def test_local_user_mean_matches_cli(cli, panel):
    p, path = panel
    out = cli.json("mean", "--input", path, "--column", "x", "--user-column", "user",
                   "--epsilon", 2, "--tau", 1.5, "--local", "--bound", 10, "--seed", 6)
    r = E.local_user_mean(p, 2.0, 1.5, 10.0, dpx.Philox(6))
    assert r.estimate[0] == out["estimate"] and r.model == "local" and r.unit == "user"


# ---- closed forms and independent computations ----------------------------------------------

def z(p):
    from statistics import NormalDist
    return NormalDist().inv_cdf(p)


def test_split_budget_closed_form():
    b = E.split_budget(1.0, 1e-6, 4, 1e-6)
    assert (b.kind, b.epsilon, b.delta) == ("basic", 0.25, 0.25e-6)
    # Advanced (S1 Thm 2.4) wins for d > 8 ln(1/rho): eps / sqrt(8 d ln(1/rho)), total delta + rho.
    b = E.split_budget(0.5, 1e-6, 1000, 1e-3)
    assert b.kind == "advanced"
    assert b.epsilon == pytest.approx(0.5 / math.sqrt(8 * 1000 * math.log(1e3)), rel=1e-14)
    assert b.total_delta == pytest.approx(1e-6 + 1e-3)


def test_winsorized_mean_hd_and_sample_split_near_sample_mean():
    X = dpx.mechanisms.Gaussian.from_sigma(1.0).sample(dpx.Philox(1), size=15000).reshape(5000, 3) + [1, -2, 3]
    r = E.winsorized_mean_hd(X, 1e4, 1e-6, 5.0, dpx.Philox(2))
    # Noise b = 4 kappa / (n eps') with kappa = 3 tau, eps' = eps/3 (basic): 3.6e-5 here.
    assert r.noise_scale == pytest.approx(4 * 15 / (5000 * 1e4 / 3), rel=1e-12)
    np.testing.assert_allclose(r.estimate, X.mean(axis=0), atol=50 * r.noise_scale)
    assert r.budget.kind == "basic" and r.epsilon == 1e4 and r.clip_ranges.shape == (3, 2)
    s = E.sample_split_mean(X, 1e4, 1e-6, 5.0, dpx.Philox(2), parallel=True)
    np.testing.assert_allclose(s.estimate, X[2500:].mean(axis=0), atol=1e-3)


def test_projection_interval_structure():
    x = dpx.mechanisms.Gaussian.from_sigma(1.0).sample(dpx.Philox(3), size=4000) + 7.0
    r = E.projection_interval(x, 1.0, 1e-6, 1.0, dpx.Philox(4))
    # Paper rule: bins of half-width tau, m-hat = 2 tau k-hat, interval m-hat +- 3 tau.
    assert r.midpoint == 2 * 1.0 * r.selected_bin and r.range == (r.midpoint - 3, r.midpoint + 3)
    assert abs(r.midpoint - 7.0) <= 2.0 and r.selected_bin in list(r.bins)
    sharper = E.projection_interval(x, 1.0, 1e-6, 1.0, dpx.Philox(4), tau_prime=0.5)
    assert sharper.range[1] - sharper.range[0] == pytest.approx(2 * (1.0 + 2 * 0.5))
    lp = E.local_projection_interval(x, 2.0, 1.0, 20.0, dpx.Philox(5))
    assert len(lp.frequencies) == 2 * math.ceil(20.0 / 2.0) + 1


def test_kv_confidence_interval_closed_form():
    x = dpx.mechanisms.Gaussian.from_sigma(2.0).sample(dpx.Philox(6), size=2000) + 1.0
    r = E.kv_mean(x, 1.0, 1e-6, dpx.Philox(7), sigma=2.0, alpha=0.1)
    b = r.mean.noise_scale
    half = 2.0 * z(1 - 0.1 / 4) / math.sqrt(2000) + b * math.log(2 / 0.1)
    assert r.confidence == pytest.approx((r.mean.estimate - half, r.mean.estimate + half), rel=1e-12)
    u = E.kv_mean_unknown_sigma(x, 1.0, 1e-6, dpx.Philox(8))
    assert u.sigma_hat == 2.0 ** (u.sigma_bin + 2) and 2.0 <= u.sigma_hat <= 16.0
    assert [step for step, *_ in u.mean.ledger][0] == "sigma_histogram"


def test_longitudinal_regression_near_per_user_ols():
    g = dpx.Philox(9, purpose="data")
    n, T, p = 400, 6, 2
    X = dpx.mechanisms.Gaussian.from_sigma(1.0).sample(g, size=n * T * p).reshape(n, T, p)
    y = X @ np.array([0.8, -0.5]) + 0.3 * dpx.mechanisms.Gaussian.from_sigma(1.0).sample(g, size=n * T).reshape(n, T)
    beta_u = np.stack([np.linalg.lstsq(X[u], y[u], rcond=None)[0] for u in range(n)])
    r = E.longitudinal_regression(X, y, 1e5, 1e-6, 3.0, dpx.Philox(10))
    np.testing.assert_allclose(r.coefficients, beta_u.mean(axis=0), atol=1e-3)
    assert r.singular_users is None and r.fit.unit == "user"  # withheld (not private)


def test_priestley_chao_closed_forms():
    n, b = 2000, 0.1
    xs = np.arange(n) / n
    y = np.sin(2 * np.pi * xs) + 0.2 * dpx.mechanisms.Gaussian.from_sigma(1.0).sample(dpx.Philox(11), size=n)
    pts = np.array([0.25, 0.5, 0.75])
    r = E.priestley_chao(y, pts, dpx.Philox(12), epsilon=1e5, delta=1e-6, bandwidth=b)
    K = lambda u: np.exp(-u * u / 2) / math.sqrt(2 * math.pi)
    pc = np.array([np.mean(y * K((xs - x) / b) / b) for x in pts])
    np.testing.assert_allclose(r.estimate, pc, atol=1e-3)
    # Lemma 4.9 radius with L_f = ||f|| = sigma_max^2 = 1, gamma = 0.1, Gaussian kernel.
    sup, lip, mu1 = 1 / math.sqrt(2 * math.pi), 1 / math.sqrt(2 * math.pi * math.e), math.sqrt(2 / math.pi)
    tau = b * (mu1 + 1) + (sup + lip + math.sqrt(2 * sup * math.log(2 * n / 0.1))) / b
    assert r.tau == pytest.approx(tau, rel=1e-12) == E.priestley_chao_tau(n, bandwidth=b)
    assert E.priestley_chao_margin(b) == pytest.approx(b * math.sqrt(2 * math.log(2 / b)))
    assert r.budget.epsilon == pytest.approx(1e5 / 3) and r.interior == [True, True, True]


def test_variance_estimators_budget_and_accuracy():
    x = dpx.mechanisms.Gaussian.from_sigma(2.0).sample(dpx.Philox(13), size=20000)
    for f in (E.variance_bisection, E.adaptive_coinpress):
        r = f(x, dpx.Philox(14), epsilon=50.0, variance_min=0.5, variance_max=64.0, composition="basic")
        # N_iter = ceil(log2(64 / 0.5)) = 7 iterations of two releases: eps' = eps / 14.
        assert r.budget.epsilon == pytest.approx(50.0 / 14) and r.delta == 0.0
        assert len(r.ledger) <= 14 and 0.5 <= r.variance <= 64.0
    r = E.adaptive_coinpress(x, dpx.Philox(14), epsilon=50.0, variance_min=0.5, variance_max=64.0)
    assert r.variance == pytest.approx(4.0, rel=0.2)
    m = E.winsorized_mean(x, 1.0, 1e-6, 10.0, dpx.Philox(15))
    lo, hi = E.plugin_confidence_interval(m, 4.0, 0.05, long_run_factor=2.0)
    half = z(1 - 0.05 / 4) * math.sqrt(2.0 * 4.0 / 20000) + m.noise_scale * math.log(2 / 0.05)
    assert (lo, hi) == pytest.approx((m.estimate - half, m.estimate + half), rel=1e-12)


def test_estimators_bad_input_messages():
    x = np.ones((10, 2))
    with pytest.raises(dpx.ValidationError, match="rule"):
        E.winsorized_mean_hd(x, 1.0, 1e-6, None, dpx.Philox(1))
    with pytest.raises(dpx.ValidationError, match="composition"):
        E.winsorized_mean_hd(x, 1.0, 1e-6, 1.0, dpx.Philox(1), composition="fancy")
    with pytest.raises(dpx.ValidationError, match="panel"):
        E.user_mean(np.ones(5), 1.0, 1e-6, 1.0, dpx.Philox(1))
    with pytest.raises(dpx.ValidationError, match="kernel"):
        E.priestley_chao(np.ones(5), np.array([0.5]), dpx.Philox(1), kernel="epanechnikov")
    with pytest.raises(dpx.ValidationError) as e:
        E.variance_bisection(np.ones(5), dpx.Philox(1), variance_min=2.0, variance_max=1.0)
    assert e.value.function == "variance_bisection"


# ---- the noise keyword (float-safe default, research-grade on request) ----------------------

def _noise_cases():
    """(name, call(noise, seed) -> result, ledger, value) for every estimator with a noise choice."""
    g = dpx.Philox(31, purpose="data")
    x = dpx.data.AR1(phi=0.3, mu=1.0).sample(2000, g)
    X = np.column_stack([x, x[::-1]])
    p = np.stack([dpx.data.AR1(phi=0.3, mu=1.0).sample(6, g) for _ in range(200)])
    D = np.stack([np.column_stack([np.ones(6), np.linspace(0, 1, 6)])] * 200)
    yr = (D @ np.array([1.0, -0.5]))[:, :] + 0.1 * p
    ys = np.sin(np.linspace(0, 3, 400))
    kw = lambda noise: {} if noise is None else {"noise": noise}  # noqa: E731
    R = lambda s: dpx.Philox(s)  # noqa: E731
    return [
        # The stable histogram alone: float-safe = exact integer noise on the counts, so every
        # released frequency is a count / n (research-grade: p-hat + Laplace, off that lattice).
        ("projection_interval", lambda n, s: E.projection_interval(x, 1.0, 1e-6, 1.0, R(s), **kw(n)),
         None, lambda r: list(r.frequencies)),
        ("winsorized_mean", lambda n, s: E.winsorized_mean(x, 1.0, 1e-6, 1.0, R(s), **kw(n)),
         lambda r: r.ledger, lambda r: r.estimate),
        ("winsorized_mean_hd", lambda n, s: E.winsorized_mean_hd(X, 1.0, 1e-6, 1.0, R(s), **kw(n)),
         lambda r: r.ledger, lambda r: list(r.estimate)),
        ("sample_split_mean", lambda n, s: E.sample_split_mean(X, 1.0, 1e-6, 1.0, R(s), **kw(n)),
         lambda r: r.ledger, lambda r: list(r.estimate)),
        ("kv_mean", lambda n, s: E.kv_mean(x, 1.0, 1e-6, R(s), **kw(n)),
         lambda r: r.mean.ledger, lambda r: r.mean.estimate),
        ("kv_mean_unknown_sigma", lambda n, s: E.kv_mean_unknown_sigma(x, 1.0, 1e-6, R(s), **kw(n)),
         lambda r: r.mean.ledger, lambda r: r.mean.estimate),
        ("local_mean", lambda n, s: E.local_mean(x, 2.0, 1.0, 10.0, R(s), **kw(n)),
         lambda r: r.ledger, lambda r: r.estimate),
        ("local_mean_hd", lambda n, s: E.local_mean_hd(X, 2.0, 1.0, 10.0, R(s), **kw(n)),
         lambda r: r.ledger, lambda r: list(r.estimate)),
        ("local_user_mean", lambda n, s: E.local_user_mean(p, 2.0, 1.0, 10.0, R(s), **kw(n)),
         lambda r: r.ledger, lambda r: list(r.estimate)),
        ("user_mean", lambda n, s: E.user_mean(p, 1.0, 1e-6, 1.0, R(s), **kw(n)),
         lambda r: r.ledger, lambda r: list(r.estimate)),
        ("user_mean_ragged",
         lambda n, s: E.user_mean_ragged(p.ravel(), np.arange(0, 1201, 6), 1.0, 1e-6, 1.0, R(s), **kw(n)),
         lambda r: r.ledger, lambda r: list(r.estimate)),
        ("random_effects_mean", lambda n, s: E.random_effects_mean(p, 1.0, 1e-6, 1.0, R(s), **kw(n)),
         lambda r: r.ledger, lambda r: r.estimate),
        ("longitudinal_regression",
         lambda n, s: E.longitudinal_regression(D, yr, 1.0, 1e-6, 2.0, R(s), **kw(n)),
         lambda r: r.fit.ledger, lambda r: list(r.coefficients)),
        ("priestley_chao",
         lambda n, s: E.priestley_chao(ys, np.array([0.3, 0.6]), R(s), epsilon=1.0, delta=1e-6, **kw(n)),
         lambda r: r.ledger, lambda r: list(r.estimate)),
        ("variance_bisection",
         lambda n, s: E.variance_bisection(x, R(s), variance_min=0.1, variance_max=100.0, **kw(n)),
         lambda r: r.ledger, lambda r: (r.variance, r.midpoint)),
        ("adaptive_coinpress",
         lambda n, s: E.adaptive_coinpress(x, R(s), variance_min=0.1, variance_max=100.0, **kw(n)),
         lambda r: r.ledger, lambda r: (r.variance, r.midpoint)),
    ]


@pytest.mark.parametrize("case", _noise_cases(), ids=lambda c: c[0])
def test_noise_keyword_default_float_safe(case):
    name, call, ledger, value = case
    default, safe, research = call(None, 40), call("float_safe", 40), call("research_grade", 40)
    # The default is the float-safe release, draw for draw; research-grade draws another law.
    assert value(default) == value(safe), name
    assert value(research) != value(default), name
    if ledger is None:  # projection_interval
        n = len(default.frequencies) and default.n
        assert all(f * n == round(f * n) for f in default.frequencies)
        assert not all(f * n == round(f * n) for f in research.frequencies)
    else:
        _check_events(name, ledger(default), ledger(research))
    with pytest.raises(ValueError, match="noise"):
        call("double", 40)
    with pytest.raises(dpx.ValidationError, match="float_safe or research_grade"):
        call("Float_Safe", 40)


def _check_events(name, default, research):
    # Step by step: every research-grade Laplace release (LaplaceDpEvent, the continuous
    # mechanism) is a float-safe one in the default run (PureDpEvent: exactly epsilon-DP, the
    # same epsilon); the other steps (stable histograms, randomized response) are unchanged.
    assert [s for s, *_ in default] == [s for s, *_ in research], name
    swapped = 0
    for (step, eps, delta, d), (_, eps_r, delta_r, r) in zip(default, research):
        assert (eps, delta) == (eps_r, delta_r), (name, step)
        assert not isinstance(d, dpx.accounting.LaplaceDpEvent), (name, step)
        if isinstance(r, dpx.accounting.LaplaceDpEvent):
            assert isinstance(d, dpx.accounting.PureDpEvent), (name, step)
            assert d.epsilon == pytest.approx(1 / r.noise_multiplier, rel=1e-15), (name, step)
            swapped += 1
    assert swapped > 0, name
