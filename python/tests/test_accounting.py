"""Accounting: against `dpx account` (same computation, bit-identical), closed forms, composite
events, unsupported events and the DP-SGD shorthand."""

import math

import pytest

import dpx
import dpx.accounting as A


def phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def gaussian_delta(eps, mu):
    """Exact Gaussian privacy profile with mu = Delta / sigma (Balle & Wang 2018, Thm 8)."""
    return phi(-eps / mu + mu / 2) - math.exp(eps) * phi(-eps / mu - mu / 2)


@pytest.mark.parametrize("method", ["rdp", "pld", "kov", "basic"])
def test_dp_sgd_headline_matches_cli(cli, method):
    d = cli.json("account", "--mechanism", "gaussian", "--noise-multiplier", 1, "--sampling-rate", 0.01,
                 "--steps", 10000, "--delta", 1e-5, "--method", method)
    assert A.account_gaussian(1.0, 10000, 1e-5, 0.01, method) == d["epsilon"]


def test_accountant_objects_match_one_call_functions():
    ev = A.PoissonSampledDpEvent(0.01, A.GaussianDpEvent(1.0))
    for cls, method in [(A.PLDAccountant, "pld"), (A.RDPAccountant, "rdp")]:
        acc = cls().compose(ev, 10000)
        assert acc.get_epsilon(1e-5) == A.account_gaussian(1.0, 10000, 1e-5, 0.01, method)
    # The PLD value is tight: published dp_accounting / Opacus PRV values for this setting are
    # ~6.2; RDP is looser.
    assert 6.0 < A.PLDAccountant().compose(ev, 10000).get_epsilon(1e-5) < 6.4
    assert A.RDPAccountant().compose(ev, 10000).get_epsilon(1e-5) > 6.4


def test_gaussian_pld_closed_form():
    # T Gaussians with multiplier s = one Gaussian with s / sqrt(T): invert the exact profile.
    s, T, delta = 2.0, 16, 1e-6
    mu = math.sqrt(T) / s
    lo, hi = 0.0, 50.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gaussian_delta(mid, mu) > delta else (lo, mid)
    acc = A.PLDAccountant().compose(A.GaussianDpEvent(s), T)
    assert acc.get_epsilon(delta) == pytest.approx(hi, rel=1e-6)
    assert acc.get_delta(hi) == pytest.approx(delta, rel=1e-5)


def test_zcdp_and_basic_closed_forms():
    z = A.ZCdpAccountant(conversion="bun_steinke").compose(A.GaussianDpEvent(2.0), 8)
    rho = 8 / (2 * 4.0)
    assert z.rho == pytest.approx(rho)
    assert z.get_epsilon(1e-5) == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1e5)))
    b = A.ApproxDpAccountant("basic").compose(A.LaplaceDpEvent(4.0), 10).compose(A.PureDpEvent(0.5))
    assert b.get_epsilon(1e-6) == pytest.approx(10 / 4.0 + 0.5)


def test_composite_events_flatten():
    g = A.GaussianDpEvent(3.0)
    direct = A.RDPAccountant().compose(g, 6).compose(A.LaplaceDpEvent(2.0), 3)
    nested = A.RDPAccountant().compose(
        A.SelfComposedDpEvent(A.ComposedDpEvent([A.SelfComposedDpEvent(g, 2), A.LaplaceDpEvent(2.0)]), 3)
    ).compose(A.NoOpDpEvent())
    assert nested.get_epsilon(1e-5) == direct.get_epsilon(1e-5)
    one = A.PLDAccountant().compose(A.PoissonSampledDpEvent(1.0, g))
    assert one.get_epsilon(1e-5) == A.PLDAccountant().compose(g).get_epsilon(1e-5)


def test_mechanism_events_compose():
    lap = dpx.mechanisms.Laplace.calibrate(0.5)
    acc = A.ApproxDpAccountant("basic").compose(lap.event, 4)
    assert acc.get_epsilon(1e-9) == pytest.approx(2.0)


def test_subsampled_laplace_and_without_replacement():
    # Poisson-subsampled Laplace is the native event; its tight PLD is below RDP.
    ev = A.PoissonSampledDpEvent(0.05, A.LaplaceDpEvent(2.0))
    pld = A.PLDAccountant().compose(ev, 200).get_epsilon(1e-6)
    rdp = A.RDPAccountant().compose(ev, 200).get_epsilon(1e-6)
    direct = A.PLDAccountant().compose(A.PoissonSampledLaplaceDpEvent(0.05, 2.0), 200)
    assert direct.get_epsilon(1e-6) == pld
    assert pld < rdp
    # Fixed batches: add/remove equals the Poisson pair with gamma = m/n; replace-one is larger.
    wor = A.SampledWithoutReplacementDpEvent("gaussian", 1.2, 20, 1000, "add_remove")
    poi = A.PoissonSampledGaussianDpEvent(0.02, 1.2)
    assert A.PLDAccountant().compose(wor, 300).get_epsilon(1e-5) == A.PLDAccountant().compose(poi, 300).get_epsilon(1e-5)
    rep = A.SampledWithoutReplacementDpEvent("gaussian", 1.2, 20, 1000, "replace_one")
    assert rep.kind == "sampled_without_replacement"
    assert A.PLDAccountant().compose(rep, 300).get_epsilon(1e-5) >= 0.999 * A.PLDAccountant().compose(
        poi, 300
    ).get_epsilon(1e-5)
    with pytest.raises(ValueError, match="neighbouring"):
        A.SampledWithoutReplacementDpEvent("gaussian", 1.2, 20, 1000, "sometimes")


def test_unsupported_and_bad_input():
    with pytest.raises(dpx.UnsupportedEventError):
        A.ZCdpAccountant().compose(A.PoissonSampledGaussianDpEvent(0.1, 1.0))
    with pytest.raises(dpx.UnsupportedEventError):
        A.PLDAccountant().compose(A.PoissonSampledDpEvent(0.1, A.PureDpEvent(1.0)))
    with pytest.raises(dpx.UnsupportedEventError):
        A.ZCdpAccountant().compose(A.PoissonSampledDpEvent(0.1, A.LaplaceDpEvent(1.0)))
    assert not A.ZCdpAccountant().supports(A.PoissonSampledGaussianDpEvent(0.1, 1.0))
    with pytest.raises(ValueError):
        A.PLDAccountant().compose(A.GaussianDpEvent(1.0), 0)
    with pytest.raises(ValueError, match="delta"):
        A.PLDAccountant().compose(A.GaussianDpEvent(1.0)).get_epsilon(2.0)
    with pytest.raises(ValueError):
        A.PLDAccountant().compose("gaussian")


def test_calibration_matches_cli_and_reaccounts(cli):
    d = cli.json("calibrate", "--mechanism", "gaussian", "--epsilon", 2, "--delta", 1e-5, "--steps", 1000,
                 "--sampling-rate", 0.01, "--method", "pld")
    s = A.calibrate_gaussian(2.0, 1e-5, 1000, 0.01, "pld")
    assert s == d["noise_multiplier"]
    assert A.account_gaussian(s, 1000, 1e-5, 0.01, "pld") <= 2.0


def test_dp_sgd_shorthand():
    assert A.dp_sgd_steps(60000, 256, 10) == math.ceil(10 * 60000 / 256)
    s = A.calibrate_dp_sgd(3.0, 1e-5, 60000, 256, 5, method="rdp")
    assert s == A.calibrate_gaussian(3.0, 1e-5, A.dp_sgd_steps(60000, 256, 5), 256 / 60000, "rdp")
    assert A.dp_sgd_epsilon(s, 60000, 256, 5, 1e-5, method="rdp") <= 3.0
    with pytest.raises(ValueError):
        A.dp_sgd_steps(100, 200, 1)
