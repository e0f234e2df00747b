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


# ---- the DP-SGD interface: get_noise_multiplier, the PLD bracket, events validated at construction


def exact_gaussian_epsilon(mu, delta):
    """Exact epsilon at delta of the Gaussian mechanism with mu = Delta / sigma (Balle & Wang
    2018, Thm 8), solved with mpmath at 50 digits (delta(eps) is decreasing)."""
    import mpmath as mp

    mp.mp.dps = 50
    mu = mp.mpf(mu)

    def d(eps):
        return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2) - mp.mpf(delta)

    lo, hi = mp.mpf(0), mp.mpf(1)
    while d(hi) > 0:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) > 0 else (lo, mid)
    return float(hi)


def exact_gaussian_sigma(epsilon, delta, steps):
    """Smallest sigma whose T-fold composition (a Gaussian with sigma / sqrt(T)) is exactly
    (epsilon, delta)-DP: bisection on the mpmath profile."""
    import mpmath as mp

    mp.mp.dps = 50

    def d(sigma):
        mu = mp.sqrt(steps) / sigma
        return mp.ncdf(-epsilon / mu + mu / 2) - mp.exp(epsilon) * mp.ncdf(-epsilon / mu - mu / 2) - delta

    lo, hi = mp.mpf("1e-3"), mp.mpf(1)
    while d(hi) > 0:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) > 0 else (lo, mid)
    return float(hi)


Q_SGD = 256 / 60000
T_SGD = 1172  # ceil(5 * 60000 / 256) = ceil(1171.875)


@pytest.mark.parametrize("accountant", ["pld", "rdp"])
def test_get_noise_multiplier_against_dpx_accountants(cli, accountant):
    s = A.get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5, sample_rate=Q_SGD, epochs=5,
                               accountant=accountant)
    acc = A.PLDAccountant() if accountant == "pld" else A.RDPAccountant()
    eps = acc.compose(A.PoissonSampledDpEvent(Q_SGD, A.GaussianDpEvent(s)), T_SGD).get_epsilon(1e-5)
    assert eps <= 3.0  # the certified upper bound never exceeds the target
    assert eps >= 3.0 * (1 - 1e-3)  # and the noise is not wasted (calibration tolerance)
    # steps instead of epochs; dpx's own argument names; the CLI's DP-SGD flags: one answer
    assert A.get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5, sample_rate=Q_SGD, steps=T_SGD,
                                  accountant=accountant) == s
    assert A.get_noise_multiplier(epsilon=3.0, delta=1e-5, sampling_rate=Q_SGD, steps=T_SGD,
                                  method=accountant) == s
    d = cli.json("calibrate", "--mechanism", "gaussian", "--epsilon", 3, "--delta", 1e-5, "--dataset-size",
                 60000, "--batch-size", 256, "--epochs", 5, "--method", accountant)
    assert d["noise_multiplier"] == s


def test_get_noise_multiplier_defaults_to_pld():
    kw = dict(target_epsilon=2.0, target_delta=1e-6, sample_rate=0.01, steps=500)
    assert A.get_noise_multiplier(**kw) == A.get_noise_multiplier(**kw, accountant="pld")
    assert A.get_noise_multiplier(**kw) < A.get_noise_multiplier(**kw, accountant="rdp")


@pytest.mark.parametrize("steps,epsilon,delta", [(1, 1.0, 1e-5), (100, 2.0, 1e-6), (10000, 8.0, 1e-5)])
def test_get_noise_multiplier_closed_form_without_subsampling(steps, epsilon, delta):
    # q = 1: T Gaussian releases with sigma are one Gaussian with sigma / sqrt(T); the exact
    # calibration is the analytic Gaussian's (mpmath), and dpx's answer is its feasible side.
    want = exact_gaussian_sigma(epsilon, delta, steps)
    got = A.get_noise_multiplier(target_epsilon=epsilon, target_delta=delta, sample_rate=1.0, steps=steps)
    assert want <= got <= want * (1 + 1e-6)
    assert exact_gaussian_epsilon(math.sqrt(steps) / got, delta) <= epsilon


def test_get_noise_multiplier_bad_input_names_the_argument():
    base = dict(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01, steps=100)
    cases = [
        (dict(target_epsilon=-1.0), "target_epsilon"),
        (dict(target_epsilon=float("inf")), "target_epsilon"),
        (dict(target_delta=1.5), "target_delta"),
        (dict(target_delta=0.0), "target_delta"),
        (dict(sample_rate=0.0), "sample_rate"),
        (dict(sample_rate=1.2), "sample_rate"),
        (dict(steps=0), "steps"),
        (dict(steps=2.5), "steps"),
        (dict(steps=None), "steps"),  # neither epochs nor steps
        (dict(epochs=2), "steps"),  # both
        (dict(steps=None, epochs=-1.0), "epochs"),
        (dict(steps=None, epochs=1e13), "epochs"),
        (dict(accountant="prv"), "accountant"),
        (dict(epsilon_tolerance=0.0), "epsilon_tolerance"),
        (dict(alphas=[2, 4]), "alphas"),
        (dict(epsilon=1.0), "epsilon"),  # both target_epsilon and epsilon
    ]
    for change, name in cases:
        kw = {**base, **change}
        with pytest.raises(ValueError, match=rf"get_noise_multiplier: {name} = "):
            A.get_noise_multiplier(**kw)
    dpx_names = dict(epsilon=-1.0, delta=1e-5, sampling_rate=0.01, steps=10)
    with pytest.raises(ValueError, match=r"get_noise_multiplier: epsilon = "):
        A.get_noise_multiplier(**dpx_names)
    with pytest.raises(ValueError, match=r"get_noise_multiplier: target_delta = "):
        A.get_noise_multiplier(target_epsilon=1.0, sample_rate=0.01, steps=10)  # missing
    with pytest.raises(TypeError):
        A.get_noise_multiplier(1.0, 1e-5, 0.01, 10)  # keyword-only, as in Opacus


def test_pld_epsilon_bracket_contains_the_exact_gaussian_epsilon():
    # gaussian_fast_path=False: the Gaussian goes through the discretised PLD, so the bracket
    # is a real interval; the exact composition (sigma / sqrt(T)) lies inside it.
    for sigma, steps, delta in [(2.0, 50, 1e-5), (1.0, 10, 1e-6), (5.0, 1000, 1e-8)]:
        a = A.PLDAccountant(gaussian_fast_path=False).compose(A.GaussianDpEvent(sigma), steps)
        lower, upper = a.get_epsilon_bracket(delta)
        exact = exact_gaussian_epsilon(math.sqrt(steps) / sigma, delta)
        assert lower <= exact <= upper, (sigma, steps, lower, exact, upper)
        assert lower < upper
        assert upper == a.get_epsilon(delta)
        dl, du = a.get_delta_bracket(exact)
        assert dl <= delta * (1 + 1e-9) and du >= delta * (1 - 1e-9), (dl, delta, du)


def test_pld_epsilon_bracket_is_the_cli_bracket(cli):
    a = A.PLDAccountant().compose(A.PoissonSampledDpEvent(0.01, A.GaussianDpEvent(1.0)), 1000)
    lower, upper = a.get_epsilon_bracket(1e-5)
    d = cli.json("account", "--mechanism", "gaussian", "--noise-multiplier", 1, "--sampling-rate", 0.01,
                 "--steps", 1000, "--delta", 1e-5, "--method", "pld")
    assert (lower, upper) == (d["epsilon_lower"], d["epsilon"])
    assert 0 < lower <= upper


def test_events_validate_at_construction():
    cases = [
        (lambda: A.GaussianDpEvent(-1.0), "GaussianDpEvent", "noise_multiplier"),
        (lambda: A.GaussianDpEvent(float("nan")), "GaussianDpEvent", "noise_multiplier"),
        (lambda: A.LaplaceDpEvent(0.0), "LaplaceDpEvent", "noise_multiplier"),
        (lambda: A.PureDpEvent(-1.0), "PureDpEvent", "epsilon"),
        (lambda: A.EpsilonDeltaDpEvent(1.0, 1.5), "EpsilonDeltaDpEvent", "delta"),
        (lambda: A.EpsilonDeltaDpEvent(0.0, 0.1), "EpsilonDeltaDpEvent", "epsilon"),
        (lambda: A.PoissonSampledGaussianDpEvent(1.5, 1.0), "PoissonSampledGaussianDpEvent", "sampling_rate"),
        (lambda: A.PoissonSampledLaplaceDpEvent(0.1, -1.0), "PoissonSampledLaplaceDpEvent", "noise_multiplier"),
        (lambda: A.SampledWithoutReplacementDpEvent("gaussian", 1.0, 20, 10), "SampledWithoutReplacementDpEvent",
         "dataset_size"),
        (lambda: A.SampledWithoutReplacementDpEvent("laplace", -2.0, 2, 10), "SampledWithoutReplacementDpEvent",
         "noise_multiplier"),
        (lambda: A.DiscreteLaplaceDpEvent(1.0, 0), "DiscreteLaplaceDpEvent", "sensitivity"),
        (lambda: A.DiscreteGaussianDpEvent(-1.0), "DiscreteGaussianDpEvent", "sigma"),
        (lambda: A.RandomizedResponseDpEvent(1.0, 1), "RandomizedResponseDpEvent", "categories"),
        (lambda: A.ZCdpEvent(-0.1), "ZCdpEvent", "rho"),
        (lambda: A.DiscretePairDpEvent([0.5, 0.6], [0.5, 0.5]), "DiscretePairDpEvent", "p"),
        (lambda: A.DiscretePairDpEvent([0.5, 0.5], [1.0]), "DiscretePairDpEvent", "q"),
        (lambda: A.ExponentialMechanismDpEvent(float("inf")), "ExponentialMechanismDpEvent", "epsilon"),
    ]
    for make, cls, field in cases:
        with pytest.raises(ValueError, match=rf"^{cls}: {field} = ") as info:
            make()
        assert info.value.function == cls and info.value.parameter == field
    # the composite events (Python classes) check their own fields at construction too
    for q in (0.0, 1.5, float("nan"), "0.1"):
        with pytest.raises(ValueError, match=r"^PoissonSampledDpEvent: sampling_probability = "):
            A.PoissonSampledDpEvent(q, A.GaussianDpEvent(1.0))
    for c in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match=r"^SelfComposedDpEvent: count = "):
            A.SelfComposedDpEvent(A.GaussianDpEvent(1.0), c)
    # the edges of the domains construct
    A.EpsilonDeltaDpEvent(1.0, 0.0)
    A.PoissonSampledGaussianDpEvent(1.0, 1.0)
    A.SampledWithoutReplacementDpEvent("gaussian", 1.0, 10, 10)
    A.RandomizedResponseDpEvent(0.5, 2)
    A.DiscretePairDpEvent([0.25, 0.75], [0.75, 0.25])
