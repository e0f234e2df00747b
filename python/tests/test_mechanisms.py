"""Mechanisms: bit-identical to `dpx sample` on the same seed, closed-form calibrations,
array semantics (copies / in place), and bad input -> ValidationError with the C++ message."""

import math

import numpy as np
import pytest

import dpx
from dpx import mechanisms as M


def cli_draws(cli, *args, ints=False):
    out = cli("sample", *args).split()
    return np.array([int(x) for x in out] if ints else [float(x) for x in out])


# ---- bit-identity with the CLI (`dpx sample --seed S` uses Philox(S) = stream(S, 0, 0, noise))


@pytest.mark.parametrize("count", [1, 7, 5000])
def test_laplace_matches_cli(cli, count):
    want = cli_draws(cli, "--mechanism", "laplace", "--scale", 0.7, "--count", count, "--seed", 42)
    got = M.Laplace.from_scale(0.7).sample(dpx.Philox(42), count)
    np.testing.assert_array_equal(got, want)  # exact: the CLI prints round-trip decimals


@pytest.mark.parametrize("count", [2, 9, 4097])
def test_gaussian_matches_cli(cli, count):
    want = cli_draws(cli, "--mechanism", "gaussian", "--sigma", 2.5, "--count", count, "--seed", 5)
    got = M.Gaussian.from_sigma(2.5).sample(dpx.Philox(5), count)
    np.testing.assert_array_equal(got, want)


def test_gaussian_analytic_calibration_matches_cli(cli):
    d = cli.json("sample", "--mechanism", "gaussian", "--epsilon", 0.5, "--delta", 1e-6, "--describe")
    g = M.Gaussian.calibrate_analytic(0.5, 1e-6)
    assert g.sigma == d["sigma"]
    want = cli_draws(cli, "--mechanism", "gaussian", "--epsilon", 0.5, "--delta", 1e-6, "--count", 100, "--seed", 8)
    np.testing.assert_array_equal(g.sample(dpx.Philox(8), 100), want)


def test_float_safe_match_cli(cli):
    want = cli_draws(cli, "--mechanism", "laplace", "--epsilon", 1, "--float-safe", "--count", 300, "--seed", 3)
    fs = M.Laplace.calibrate(1.0).float_safe()
    np.testing.assert_array_equal(fs.sample(dpx.Philox(3), 300), want)
    assert np.all(np.mod(want, fs.granularity) == 0)  # every output on the grid
    want = cli_draws(cli, "--mechanism", "gaussian", "--sigma", 1.5, "--float-safe", "--count", 300, "--seed", 3)
    np.testing.assert_array_equal(M.FloatSafeGaussian.from_sigma(1.5).sample(dpx.Philox(3), 300), want)


def test_discrete_match_cli(cli):
    want = cli_draws(cli, "--mechanism", "discrete_laplace", "--scale", 3, "--count", 1000, "--seed", 4, ints=True)
    got = M.DiscreteLaplace.from_scale(3.0).sample(dpx.Philox(4), 1000)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)
    want = cli_draws(cli, "--mechanism", "discrete_gaussian", "--sigma", 2, "--count", 1000, "--seed", 4, ints=True)
    np.testing.assert_array_equal(M.DiscreteGaussian.from_sigma(2.0).sample(dpx.Philox(4), 1000), want)


def test_randomized_response_matches_cli(cli):
    want = cli_draws(cli, "--mechanism", "randomized_response", "--epsilon", 1, "--categories", 3, "--count", 200, "--seed", 6, ints=True)
    rr = M.RandomizedResponse.calibrate(1.0, 3)
    np.testing.assert_array_equal(rr.release(np.zeros(200, dtype=np.int64), dpx.Philox(6)), want)
    d = cli.json("sample", "--mechanism", "randomized_response", "--epsilon", 1, "--categories", 3, "--describe")
    assert rr.truth_probability == d["truth_probability"]


# ---- closed forms ------------------------------------------------------------------------


def test_calibrations_closed_form():
    assert M.Laplace.calibrate(0.5, 2.0).scale == 4.0  # b = Delta / eps (Dwork & Roth Thm 3.6)
    g = M.Gaussian.calibrate_classical(0.5, 1e-5, 1.0)
    assert g.sigma == pytest.approx(math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5, rel=1e-15)
    a = M.Gaussian.calibrate_analytic(1.0, 1e-5)
    # Balle & Wang 2018 Thm 8, evaluated here with math.erfc:
    phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
    s = a.sigma
    delta = phi(1 / (2 * s) - s) - math.e * phi(-1 / (2 * s) - s)
    assert delta == pytest.approx(1e-5, rel=1e-6)
    assert M.DiscreteGaussian.from_sigma(2.0).rho == pytest.approx(1 / 8)


def test_laplace_moments():
    # 10^6 draws of Lap(b = 2): variance 2 b^2 = 8 within 6 standard errors (the 4th moment of
    # Laplace is 24 b^4, so SE(var) = sqrt((24 - 4) b^4 / n)); false-positive rate ~2e-9.
    x = M.Laplace.from_scale(2.0).sample(dpx.Philox(2024), 1_000_000)
    se = math.sqrt(20 * 16 / x.size)
    assert abs(x.var() - 8.0) < 6 * se
    assert abs(x.mean()) < 6 * math.sqrt(8.0 / x.size)


# ---- array semantics ---------------------------------------------------------------------


def test_release_scalar_and_array_are_sample_plus_value():
    lap = M.Laplace.from_scale(1.0)
    noise = lap.sample(dpx.Philox(1), 6)
    assert lap.release(10.0, dpx.Philox(1)) == 10.0 + noise[0]
    v = np.arange(6.0).reshape(2, 3)
    out = lap.release(v, dpx.Philox(1))
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(out.ravel(), np.arange(6.0) + noise)
    np.testing.assert_array_equal(v, np.arange(6.0).reshape(2, 3))  # input untouched
    w = np.arange(6.0)
    assert lap.privatize(w, dpx.Philox(1)) is None
    np.testing.assert_array_equal(w, np.arange(6.0) + noise)


def test_release_converts_non_contiguous_and_int_input():
    lap = M.Laplace.from_scale(1.0)
    noise = lap.sample(dpx.Philox(3), 5)
    v = np.arange(10.0)[::2]
    np.testing.assert_array_equal(lap.release(v, dpx.Philox(3)), v + noise)
    np.testing.assert_array_equal(lap.release([0, 2, 4, 6, 8], dpx.Philox(3)), v + noise)


def test_privatize_refuses_to_copy():
    lap = M.Laplace.from_scale(1.0)
    with pytest.raises(dpx.ValidationError, match="writable C-contiguous float64"):
        lap.privatize(np.arange(10.0)[::2], dpx.Philox(1))
    with pytest.raises(dpx.ValidationError):
        lap.privatize(np.arange(5), dpx.Philox(1))
    ro = np.zeros(3)
    ro.setflags(write=False)
    with pytest.raises(dpx.ValidationError):
        lap.privatize(ro, dpx.Philox(1))


def test_events_and_protection():
    assert M.Laplace.calibrate(2.0).event == dpx.accounting.LaplaceDpEvent(0.5)
    assert M.Gaussian.from_sigma(3.0, 1.5).event == dpx.accounting.GaussianDpEvent(2.0)
    assert M.FloatSafeGaussian.from_sigma(2.0).event == dpx.accounting.ZCdpEvent(1 / 8)
    assert M.Laplace.calibrate(1.0, relation="add_remove").protects["relation"] == "add/remove"


def test_os_random_works_everywhere():
    r = dpx.os_random()
    assert math.isfinite(M.FloatSafeLaplace.calibrate(1.0).release(3.0, r))
    assert M.Gaussian.from_sigma(1.0).sample(r, 10).shape == (10,)
    assert M.ExponentialMechanism.calibrate(1.0).select([0.0, 100.0], r) == 1
    # The float-safe and exact samplers (the release defaults): on the grid, not constant (n
    # equal draws of these laws: probability below 1e-100).
    fs = M.FloatSafeLaplace.calibrate(1.0)
    x = fs.sample(r, 5000)
    assert np.all(np.fmod(x, fs.granularity) == 0) and len(set(x.tolist())) > 1
    g = M.FloatSafeGaussian.from_sigma(1.5)
    y = g.sample(r, 5000)
    assert np.all(np.fmod(y, g.granularity) == 0) and len(set(y.tolist())) > 1
    for z in (M.DiscreteLaplace.from_scale(3.0).sample(r, 5000),
              M.DiscreteGaussian.from_sigma(2.0).sample(r, 5000)):
        assert z.dtype == np.int64 and len(set(z.tolist())) > 1


# ---- bad input -----------------------------------------------------------------------------


def test_bad_input_raises_validation_error_with_cli_message(cli):
    msg = cli("sample", "--mechanism", "laplace", "--epsilon", -1, "--count", 3, expect=2)
    with pytest.raises(dpx.ValidationError) as e:
        M.Laplace.calibrate(-1.0)
    assert str(e.value) in msg and e.value.parameter == "epsilon"
    with pytest.raises(ValueError, match="value"):
        M.Gaussian.from_sigma(1.0).release(float("nan"), dpx.Philox(1))
    with pytest.raises(ValueError, match="relation"):
        M.Laplace.calibrate(1.0, relation="swap")
    with pytest.raises(ValueError):
        M.RandomizedResponse.calibrate(1.0, 3).randomize(5, dpx.Philox(1))
    with pytest.raises(ValueError):
        M.Laplace.from_scale(1.0).sample(dpx.Philox(1), -1)


# ---- private histograms ---------------------------------------------------------------------

def test_stable_histogram_default_is_float_safe_discrete_laplace_on_counts():
    eps, delta, n = 1.0, 1e-6, 5000
    h = M.StableHistogram.calibrate(eps, delta)
    assert h.noise == "discrete_laplace"
    # T = ceil(1 + tau ln(2/delta)) with tau >= 2/eps the exact scale (tau / n = noise_scale(n)):
    # an appearing bin (count 1) passes with P(Z >= T - 1) = r^(T-1) / (1 + r) <= delta / 2,
    # r = exp(-1/tau) (the discrete Laplace tail), and T is the smallest such integer here.
    tau = h.noise_scale(n) * n
    assert 2 / eps <= tau <= 2 / eps * (1 + 2 ** -29)
    T = h.count_threshold
    assert T == math.ceil(1 + tau * math.log(2 / delta))
    r = math.exp(-1 / tau)
    assert r ** (T - 1) / (1 + r) <= delta / 2 < r ** (T - 2)
    assert h.threshold(n) == T / n
    # The released values are integer counts over n (the noise is on the counts).
    k = np.repeat(np.arange(-3, 4), [5, 50, 500, 3000, 1000, 400, 45])
    out = h.release(0.5 * k + 0.01, dpx.Philox(3), width=0.5)
    counts = out.values * n
    np.testing.assert_allclose(counts, np.round(counts), rtol=0, atol=1e-9)
    assert (counts >= T).all() and out.bins.tolist()[:1] != []
    # Research-grade noise is an explicit choice, and says so.
    assert M.StableHistogram.calibrate(eps, delta, noise="laplace").noise == "laplace"
    assert M.StableHistogram.calibrate(eps, delta, noise="laplace").count_threshold is None


def test_stable_histogram_closed_forms_and_estimator_consistency():
    eps, delta, n = 1.0, 1e-6, 5000
    h = M.StableHistogram.calibrate(eps, delta, noise="laplace")
    assert h.noise_scale(n) == pytest.approx(2 / (eps * n), rel=1e-15)
    assert h.threshold(n) == pytest.approx(2 / (eps * n) * math.log(2 / delta) + 1 / n, rel=1e-15)
    assert h.event == dpx.accounting.EpsilonDeltaDpEvent(eps, delta)
    # Values at bin centres 0.5 k (width 0.5): the exact frequencies are known, and with a huge
    # epsilon the released ones are within a few noise scales of them.
    k = np.repeat(np.arange(-3, 4), [5, 50, 500, 3000, 1000, 400, 45])
    x = 0.5 * k + 0.01
    big = M.StableHistogram.calibrate(1e6, delta, noise="laplace").release(
        x, dpx.Philox(3), width=0.5, nonprivate_diagnostics=True)
    assert big.bins.tolist() == list(range(-3, 4)) and big.occupied == 7 and big.n == n
    want = np.array([5, 50, 500, 3000, 1000, 400, 45]) / n
    np.testing.assert_allclose(big.values, want, atol=20 * 2 / (1e6 * n))
    assert big.argmax() == 0
    # The same draws as projection_interval's histogram (S1 Algorithm 3: bins of width 2 tau),
    # and as release_bins on the precomputed indices.
    r = h.release(x, dpx.Philox(9), width=0.5)
    p = dpx.estimators.projection_interval(x, eps, delta, 0.25, dpx.Philox(9), noise="research_grade")
    assert r.bins.tolist() == p.bins.tolist() and r.values.tolist() == p.frequencies.tolist()
    again = h.release_bins(k.astype(np.int64), dpx.Philox(9))
    assert again.values.tolist() == r.values.tolist()
    with pytest.raises(dpx.ValidationError, match="noise"):
        M.StableHistogram.calibrate(1.0, 1e-6, noise="gaussian")


def test_local_histogram_debiasing_is_unbiased():
    eps, bins, n = 2.0, 5, 100_000
    h = M.LocalHistogram.calibrate(eps, bins)
    pi = math.exp(eps / 2) / (1 + math.exp(eps / 2))
    assert h.keep_probability == pytest.approx(pi, rel=1e-15) and h.keep_probability <= pi
    assert h.event == dpx.accounting.PureDpEvent(eps)
    p = np.array([0.1, 0.2, 0.4, 0.25, 0.05])
    users = np.repeat(np.arange(bins), (p * n).astype(int)).astype(np.int64)
    est = h.estimate(h.report_counts(users, dpx.Philox(4)), n)
    # Fixed seed; each coordinate within 4.5 sd (two-sided false-positive rate ~7e-6 each).
    sd = np.sqrt([h.estimator_variance(v, n) for v in p])
    assert np.all(np.abs(est - p) <= 4.5 * sd)
