"""The peers' accountants behind one signature, and the grid of the parity suite.

A *setting* is one ledger (family, parameters); a *cell* is a setting at one δ. For every
setting the suite composes the ledger once in dpx (``dpx.accounting.PLDAccountant``, defaults)
and once in every peer that supports it, queries ε at each δ, and records CPU times.

Each peer's answer is its own certified upper bound, as its documentation states it:

* dp_accounting ``PLDAccountant`` (pessimistic estimate, the default: "the resulting
  epsilon-hockey stick divergence computation gives an upper estimate to the real value") and
  ``RdpAccountant`` (an upper bound by construction);
* prv_accountant ``PRVAccountant.compute_epsilon`` -> (lower, estimate, upper); the upper end
  already includes the stated ``eps_error`` and ``delta_error`` (Gopi, Lee & Wutschitz 2021,
  Thm 5.5), and is the value compared;
* autodp: the RDP of the mechanism (composed by ``Composition``, amplified by
  ``AmplificationBySampling``) converted to (ε, δ), an upper bound;
* OpenDP: the privacy map of the measurement (zCDP converted by ``make_zCDP_to_approxDP``, or
  pure DP composed by ``make_composition``), an upper bound.

Large ledgers use the peers' own fast paths (dp_accounting composes T Gaussians as one Gaussian
of σ/√T and self-composes other PLDs by FFT powers; OpenDP's Gaussian is one measurement of
scale σ/√T); a peer is left out of the settings where one call would take more than a few
seconds (noted in ``Setting.notes``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

import dp_accounting
import dp_accounting.pld
import dp_accounting.rdp
import opendp.prelude as odp
from autodp import mechanism_zoo, transformer_zoo
from prv_accountant import PRVAccountant
from prv_accountant import privacy_random_variables as prvs

import dpx.accounting as acc

from . import exact

odp.enable_features("contrib")

DELTAS = (1e-3, 1e-6, 1e-9, 1e-12)
FINDINGS: List[str] = []  # where a peer was found wrong (written to parity.md)
NR = dp_accounting.NeighboringRelation


# ---- one ledger in a neutral form -------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """``count`` repetitions of one elementary release.

    kind: "gaussian" (s = σ), "laplace" (s = b), "rr" (eps, k), "swor" (Gaussian σ = s on a
    batch of m of n, replace-one); q: Poisson rate (1 = none).
    """

    kind: str
    count: int
    s: float = 0.0
    q: float = 1.0
    eps: float = 0.0
    k: int = 2
    m: int = 0
    n: int = 0


@dataclass
class Setting:
    family: str
    parts: Sequence[Part]
    peers: Sequence[str]
    exact: Optional[Callable[[float], float]] = None
    notes: str = ""
    dpa_interval: float = 1e-4  # dp_accounting's value_discretization_interval

    @property
    def label(self) -> str:
        out = []
        for p in self.parts:
            if p.kind == "rr":
                out.append(f"rr(eps={p.eps:g},k={p.k})^{p.count}")
            elif p.kind == "swor":
                out.append(f"swor(sigma={p.s:g},m={p.m},n={p.n})^{p.count}")
            else:
                q = "" if p.q == 1.0 else f"q={p.q:g},"
                out.append(f"{p.kind}({q}{'sigma' if p.kind == 'gaussian' else 'b'}={p.s:g})^{p.count}")
        return " + ".join(out)


# ---- dpx --------------------------------------------------------------------------------------


def dpx_event(p: Part):
    if p.kind == "gaussian":
        e = acc.GaussianDpEvent(p.s)
    elif p.kind == "laplace":
        e = acc.LaplaceDpEvent(p.s)
    elif p.kind == "rr":
        return acc.SelfComposedDpEvent(acc.RandomizedResponseDpEvent(p.eps, p.k), p.count)
    elif p.kind == "swor":
        return acc.SelfComposedDpEvent(
            acc.SampledWithoutReplacementDpEvent("gaussian", p.s, p.m, p.n, "replace_one"), p.count
        )
    else:
        raise ValueError(p.kind)
    if p.q != 1.0:
        e = acc.PoissonSampledDpEvent(p.q, e)
    return acc.SelfComposedDpEvent(e, p.count)


def run_dpx(s: Setting, deltas) -> List[float]:
    a = acc.PLDAccountant()
    a.compose(acc.ComposedDpEvent([dpx_event(p) for p in s.parts]))
    return [a.get_epsilon(d) for d in deltas]


# ---- dp_accounting ----------------------------------------------------------------------------


def _dpa_event(p: Part):
    if p.kind == "gaussian":
        e = dp_accounting.GaussianDpEvent(p.s)
    elif p.kind == "laplace":
        e = dp_accounting.LaplaceDpEvent(p.s)
    elif p.kind == "rr":
        # dp_accounting's parameter: with probability noise_parameter the output is uniform.
        noise = p.k / (math.exp(p.eps) + p.k - 1)
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.RandomizedResponseDpEvent(noise, p.k), p.count
        )
    elif p.kind == "swor":
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.SampledWithoutReplacementDpEvent(
                p.n, p.m, dp_accounting.GaussianDpEvent(p.s)
            ),
            p.count,
        )
    if p.q != 1.0:
        e = dp_accounting.PoissonSampledDpEvent(p.q, e)
    return dp_accounting.SelfComposedDpEvent(e, p.count)


def _relation(s: Setting):
    kinds = {p.kind for p in s.parts}
    return NR.REPLACE_ONE if kinds & {"rr", "swor"} else NR.ADD_OR_REMOVE_ONE


def run_dpa_pld(s: Setting, deltas):
    a = dp_accounting.pld.PLDAccountant(_relation(s), value_discretization_interval=s.dpa_interval)
    a.compose(dp_accounting.ComposedDpEvent([_dpa_event(p) for p in s.parts]))
    return [a.get_epsilon(d) for d in deltas]


def run_dpa_rdp(s: Setting, deltas):
    a = dp_accounting.rdp.RdpAccountant(neighboring_relation=_relation(s))
    a.compose(dp_accounting.ComposedDpEvent([_dpa_event(p) for p in s.parts]))
    return [a.get_epsilon(d) for d in deltas]


# ---- prv_accountant ---------------------------------------------------------------------------

PRV_EPS_ERROR = 0.01  # absolute; the suite's choice (the paper's examples use 0.01-0.1)


def _prv(p: Part):
    if p.kind == "gaussian" and p.q == 1.0:
        return prvs.GaussianMechanism(noise_multiplier=p.s)
    if p.kind == "gaussian":
        return prvs.PoissonSubsampledGaussianMechanism(sampling_probability=p.q, noise_multiplier=p.s)
    if p.kind == "laplace" and p.q == 1.0:
        return prvs.LaplaceMechanism(mu=1.0 / p.s)
    raise ValueError(p.kind)


def _prv_accountant(s: Setting, delta_error: float):
    return PRVAccountant(
        prvs=[_prv(p) for p in s.parts],
        max_self_compositions=[p.count for p in s.parts],
        eps_error=PRV_EPS_ERROR,
        delta_error=delta_error,
    )


def _prv_epsilon(a, s: Setting, d: float) -> float:
    try:
        return float(a.compute_epsilon(delta=d, num_self_compositions=[p.count for p in s.parts])[2])
    except (ValueError, RuntimeError):
        return math.nan  # the peer refuses (e.g. its floating-point guard at small δ)


def run_prv(s: Setting, deltas):
    # One accountant per ledger, built for the smallest δ: delta_error = min δ / 1000 is within
    # every query's own δ/1000 (a smaller delta_error only tightens prv's stated bracket), and the
    # construction (domain, discretisation, FFT) is most of prv's time. Where prv refuses that
    # delta_error ("Discrete mean differs from continuous mean"), one accountant per δ.
    try:
        a = _prv_accountant(s, min(deltas) / 1000)
        return [_prv_epsilon(a, s, d) for d in deltas]
    except (ValueError, RuntimeError):
        pass
    out = []
    for d in deltas:
        try:
            out.append(_prv_epsilon(_prv_accountant(s, d / 1000), s, d))
        except (ValueError, RuntimeError):
            out.append(math.nan)
    return out


# ---- autodp -----------------------------------------------------------------------------------


def _autodp_mech(p: Part):
    if p.kind == "gaussian":
        base = mechanism_zoo.GaussianMechanism(sigma=p.s, approxDP_off=True)
    elif p.kind == "laplace":
        base = mechanism_zoo.LaplaceMechanism(b=p.s)
    elif p.kind == "rr":
        base = mechanism_zoo.RandresponseMechanism(p=math.exp(p.eps) / (math.exp(p.eps) + 1))
    elif p.kind == "swor":
        base = mechanism_zoo.GaussianMechanism(sigma=p.s, approxDP_off=True)
        sub = transformer_zoo.AmplificationBySampling(PoissonSampling=False)
        return sub(base, p.m / p.n, improved_bound_flag=True)
    if p.q != 1.0:
        sub = transformer_zoo.AmplificationBySampling(PoissonSampling=True)
        # The improved bound holds for mechanisms whose RDP has the Gaussian's form.
        return sub(base, p.q, improved_bound_flag=p.kind == "gaussian")
    return base


def run_autodp(s: Setting, deltas):
    compose = transformer_zoo.Composition()
    mech = compose([_autodp_mech(p) for p in s.parts], [p.count for p in s.parts])
    return [float(mech.get_approxDP(d)) for d in deltas]


# ---- OpenDP -----------------------------------------------------------------------------------

_F64 = (odp.atom_domain(T=float, nan=False), odp.absolute_distance(T=float))


def run_opendp(s: Setting, deltas):
    (p,) = s.parts
    if p.kind == "gaussian":
        # T Gaussians of scale σ are ρ-zCDP with ρ = T/(2σ²): one measurement of scale σ/√T.
        m = odp.m.make_gaussian(*_F64, scale=p.s / math.sqrt(p.count))
        profile = odp.c.make_zCDP_to_approxDP(m).map(1.0)
        out = []
        for d in deltas:
            try:
                out.append(float(profile.epsilon(d)))
            except odp.OpenDPException:
                out.append(math.nan)  # it refuses: "inf_exp() is not finite" at ε > ~700
        return out
    if p.kind == "laplace":
        m = odp.c.make_composition([odp.m.make_laplace(*_F64, scale=p.s)] * p.count)
        return [float(m.map(1.0))] * len(deltas)
    if p.kind == "rr":
        one = odp.m.make_randomized_response_bool(prob=math.exp(p.eps) / (math.exp(p.eps) + 1))
        m = odp.c.make_composition([one] * p.count)
        return [float(m.map(1))] * len(deltas)
    raise ValueError(p.kind)


PEERS: Dict[str, Callable] = {
    "dp_accounting.pld": run_dpa_pld,
    "dp_accounting.rdp": run_dpa_rdp,
    "prv_accountant": run_prv,
    "autodp": run_autodp,
    "opendp": run_opendp,
}


# ---- timing -----------------------------------------------------------------------------------


def timed(fn, *args, repeats=3, budget=0.2):
    """(result, median CPU seconds): repeats while one run is cheaper than ``budget``."""
    times = []
    result = None
    for i in range(repeats):
        t0 = time.process_time()
        result = fn(*args)
        times.append(time.process_time() - t0)
        if times[-1] > budget:
            break
    times.sort()
    return result, times[len(times) // 2]


# ---- the grid ---------------------------------------------------------------------------------


def _gaussian_exact(parts):
    mu2 = sum(p.count / p.s**2 for p in parts)
    return lambda d: exact.gaussian_epsilon(d, 1.0 / math.sqrt(mu2))


def grid() -> List[Setting]:
    out: List[Setting] = []
    # Gaussian, q = 1 (exact: Balle-Wang; ε > 700 at σ <= 3 with T = 10⁶ and σ = 0.3, T = 10⁴).
    for sigma in (0.3, 1.0, 3.0, 20.0):
        for t in (1, 100, 10_000, 1_000_000):
            parts = [Part("gaussian", t, s=sigma)]
            mu = math.sqrt(t) / sigma
            peers = ["dp_accounting.pld", "dp_accounting.rdp", "autodp", "opendp"]
            if mu < 5:
                peers.append("prv_accountant")  # its domain grows with μ (36 s at μ = 33)
            # dp_accounting's grid spans the loss support (~20μ wide): about 2·10⁵ points at most,
            # 2·10⁴ at μ > 100 (64 s at μ = 3333 with 2·10⁵).
            h = max(1e-4, mu / 1e4) if mu <= 100 else mu / 1e3
            out.append(Setting("gaussian", parts, peers, _gaussian_exact(parts), dpa_interval=h))
    # Laplace, q = 1 (exact at T <= 10: closed form at T = 1, Irwin-Hall sum at T = 10).
    for b in (0.5, 1.0, 3.0, 20.0):
        for t in (1, 10, 100, 10_000):
            parts = [Part("laplace", t, s=b)]
            peers = ["dp_accounting.pld", "dp_accounting.rdp", "autodp"]
            if t / b <= 20:
                peers.append("prv_accountant")  # its domain grows with ε (18 s at ε = 170)
            if t <= 100:
                peers.append("opendp")
            ex = None
            if t == 1:
                ex = lambda d, b=b: exact.laplace_epsilon(d, b)
            elif t <= 10:
                ex = lambda d, b=b, t=t: exact.laplace_composed_epsilon(d, b, t)
            out.append(Setting("laplace", parts, peers, ex, dpa_interval=max(1e-4, t / b / 1e6)))
    # Poisson-subsampled Gaussian.
    for q in (1e-4, 1e-2, 0.3):
        for sigma in (0.5, 1.0, 4.0):
            for t in (100, 10_000, 1_000_000):
                peers = ["dp_accounting.pld", "dp_accounting.rdp", "autodp"]
                if t <= 100 or (t <= 10_000 and sigma >= 1.0 and q <= 0.01):
                    # Its domain grows with the T-fold loss: 46 s at q = 0.01, σ = 0.5, T = 10⁴;
                    # at q = 0.3, T = 10⁴ it refuses δ/1000 = 10⁻¹⁵ after 68 s (σ = 1) / 6 s (σ = 4)
                    # and one accountant per δ takes 179 s / 31 s.
                    peers.append("prv_accountant")
                # dp_accounting's grid must span the T-fold loss (ε ~ 3·10³ at q = 0.3, σ = 0.5,
                # T = 10⁴: 22 s at 10⁻⁴; minutes at q = 0.3, σ = 1, T = 10⁴): coarser as q²T/σ² grows.
                big = q * q * t / sigma**2
                out.append(Setting("poisson_gaussian", [Part("gaussian", t, s=sigma, q=q)], peers,
                                   dpa_interval=max(1e-4, min(1.0, big * 2e-6))))
    # Poisson-subsampled Laplace.
    for q in (1e-3, 0.05, 0.5):
        for b in (1.0, 5.0):
            for t in (10, 1000):
                # autodp's amplified Laplace RDP takes 25-40 s per query at T = 10 (0.2-2 s at 10³).
                peers = ["dp_accounting.pld"] + (["autodp"] if t >= 1000 else [])
                out.append(Setting("poisson_laplace", [Part("laplace", t, s=b, q=q)], peers))
    # Randomized response (exact: the T-fold discrete pair).
    for eps in (0.1, 1.0, 3.0):
        for k, ts in ((2, (1, 10, 1000)), (4, (1, 10))):
            for t in ts:
                peers = ["dp_accounting.pld"]
                if k == 2:
                    peers += ["autodp", "opendp"] if t <= 100 else ["autodp"]
                ex = lambda d, e=eps, k=k, t=t: exact.randomized_response_epsilon(d, e, k, t)
                out.append(Setting("randomized_response", [Part("rr", t, eps=eps, k=k)], peers, ex))
    # Heterogeneous compositions (exact when all parts are Gaussian: μ² adds up).
    hetero = [
        [Part("gaussian", 10, s=1.0), Part("gaussian", 1000, s=8.0)],
        [Part("gaussian", 1, s=0.5), Part("gaussian", 100_000, s=20.0)],
        [Part("gaussian", 100, s=2.0), Part("laplace", 10, s=5.0)],
        [Part("gaussian", 1000, s=1.0, q=0.01), Part("laplace", 10, s=10.0)],
        [Part("gaussian", 1000, s=1.0, q=0.01), Part("gaussian", 10, s=4.0)],
        [Part("gaussian", 10_000, s=0.8, q=0.001), Part("gaussian", 100, s=1.5, q=0.1), Part("laplace", 5, s=20.0)],
    ]
    for parts in hetero:
        peers = ["dp_accounting.pld", "dp_accounting.rdp", "autodp"]
        if max(p.count for p in parts) <= 10_000:
            # prv's domain for 10⁵ releases: it refuses δ/1000 = 10⁻¹⁵ after 29 s, and one
            # accountant per δ takes 72 s.
            peers.append("prv_accountant")
        ex = _gaussian_exact(parts) if all(p.kind == "gaussian" and p.q == 1.0 for p in parts) else None
        out.append(Setting("composition", parts, peers, ex))
    # Fixed-size batches without replacement (replace-one): the peers with it are RDP-based.
    for sigma, m, n, t in ((1.0, 256, 60_000, 1000), (2.0, 100, 10_000, 100), (0.8, 600, 60_000, 10_000),
                           (4.0, 1000, 10_000, 1), (1.5, 50, 1000, 500), (1.0, 10, 100_000, 100_000)):
        out.append(Setting("sampling_without_replacement", [Part("swor", t, s=sigma, m=m, n=n)],
                           ["dp_accounting.rdp", "autodp"]))
    return out
