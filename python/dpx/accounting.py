"""Privacy accounting: accountants, events and calibration (dpx::accounting).

The interface follows dp_accounting (``compose(event, count=1)``, ``get_epsilon(delta)``,
``get_delta(epsilon)``) and its event names, so a dp_accounting user finds things where they
expect them::

    import dpx.accounting as acc
    a = acc.PLDAccountant()
    a.compose(acc.PoissonSampledDpEvent(0.01, acc.GaussianDpEvent(1.0)), 10_000)
    a.get_epsilon(1e-5)

Every accountant composes adaptively and every epsilon / delta it returns is an UPPER BOUND
(never an estimate). An event an accountant cannot interpret raises
:class:`dpx.UnsupportedEventError` (a :class:`dpx.ValidationError`); there is no silent
fallback.

Composite events (:class:`SelfComposedDpEvent`, :class:`ComposedDpEvent`,
:class:`PoissonSampledDpEvent`) are Python objects that ``compose`` flattens into the C++ events.
Poisson subsampling is supported for the Gaussian mechanism (add/remove neighbours), as in the
C++ library. Events validate their parameters when constructed (``GaussianDpEvent(-1.0)`` raises
``ValueError`` naming ``noise_multiplier``).

For DP-SGD, :func:`get_noise_multiplier` takes Opacus' arguments (``target_epsilon``,
``target_delta``, ``sample_rate``, ``epochs`` or ``steps``, ``accountant``)::

    sigma = acc.get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5,
                                     sample_rate=256 / 60_000, epochs=10)
"""

from __future__ import annotations

import math
import numbers
import operator
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence, Tuple, Union

from . import _dpx
from ._dpx import (
    DiscreteGaussianDpEvent,
    DiscreteLaplaceDpEvent,
    DiscretePairDpEvent,
    EpsilonDeltaDpEvent,
    ExponentialMechanismDpEvent,
    GaussianDpEvent,
    LaplaceDpEvent,
    PoissonSampledGaussianDpEvent,
    PoissonSampledLaplaceDpEvent,
    PureDpEvent,
    RandomizedResponseDpEvent,
    SampledWithoutReplacementDpEvent,
    UnsupportedEventError,
    ValidationError,
    ZCdpEvent,
)

_native = _dpx.accounting

__all__ = [
    "Accountant",
    "ApproxDpAccountant",
    "ComposedDpEvent",
    "DiscreteGaussianDpEvent",
    "DiscreteLaplaceDpEvent",
    "DiscretePairDpEvent",
    "EpsilonDeltaDpEvent",
    "ExponentialMechanismDpEvent",
    "GaussianDpEvent",
    "LaplaceDpEvent",
    "NoOpDpEvent",
    "PLDAccountant",
    "PoissonSampledDpEvent",
    "PoissonSampledGaussianDpEvent",
    "PoissonSampledLaplaceDpEvent",
    "PureDpEvent",
    "RandomizedResponseDpEvent",
    "SampledWithoutReplacementDpEvent",
    "RDPAccountant",
    "SelfComposedDpEvent",
    "ZCdpAccountant",
    "ZCdpEvent",
    "account_gaussian",
    "account_laplace",
    "calibrate_dp_sgd",
    "calibrate_gaussian",
    "calibrate_laplace",
    "dp_sgd_epsilon",
    "dp_sgd_steps",
    "get_noise_multiplier",
]

# ---- composite events (flattened by Accountant.compose) -----------------------------------


@dataclass(frozen=True)
class NoOpDpEvent:
    """A release that uses no private data (composes to nothing)."""


@dataclass(frozen=True)
class SelfComposedDpEvent:
    """``count`` adaptive repetitions of ``event`` (``count`` an integer >= 1, checked here)."""

    event: object
    count: int

    def __post_init__(self) -> None:
        c = self.count
        if isinstance(c, bool) or not isinstance(c, numbers.Integral) or c < 1:
            raise ValidationError(f"SelfComposedDpEvent: count = {c!r} is invalid (must be an integer >= 1)")


@dataclass(frozen=True)
class ComposedDpEvent:
    """The adaptive composition of ``events``, in order."""

    events: Sequence[object]


@dataclass(frozen=True)
class PoissonSampledDpEvent:
    """Poisson subsampling with probability ``sampling_probability`` before ``event``.

    Supported for ``GaussianDpEvent`` and ``LaplaceDpEvent`` (they become
    ``PoissonSampledGaussianDpEvent`` / ``PoissonSampledLaplaceDpEvent``, add/remove
    neighbours). Probability 1 is the event itself.
    """

    sampling_probability: float
    event: object

    def __post_init__(self) -> None:
        q = self.sampling_probability
        if isinstance(q, bool) or not (isinstance(q, numbers.Real) and 0 < q <= 1):
            raise ValidationError(
                f"PoissonSampledDpEvent: sampling_probability = {q!r} is invalid (must lie in (0, 1])"
            )


def _flatten(event: object, count: int, out: list) -> None:
    if isinstance(event, NoOpDpEvent):
        return
    if isinstance(event, SelfComposedDpEvent):
        _flatten(event.event, count * int(event.count), out)
    elif isinstance(event, ComposedDpEvent):
        # The accountants' bounds depend only on the multiset of events (adaptive composition
        # is order-free), so (A, B) repeated c times composes as A^c and B^c.
        for e in event.events:
            _flatten(e, count, out)
    elif isinstance(event, PoissonSampledDpEvent):
        q = float(event.sampling_probability)
        inner = event.event
        if q == 1.0:
            _flatten(inner, count, out)
        elif isinstance(inner, GaussianDpEvent):
            out.append((PoissonSampledGaussianDpEvent(q, inner.noise_multiplier), count))
        elif isinstance(inner, LaplaceDpEvent):
            out.append((PoissonSampledLaplaceDpEvent(q, inner.noise_multiplier), count))
        else:
            raise UnsupportedEventError(
                "PoissonSampledDpEvent: subsampling is supported for GaussianDpEvent and "
                "LaplaceDpEvent only "
                f"(got {type(inner).__name__})"
            )
    else:
        out.append((event, count))


class Accountant:
    """Common interface of the accountants (do not instantiate: use a subclass).

    ``compose(event, count=1)`` adds ``count`` adaptive repetitions of ``event`` and returns the
    accountant (so calls chain); ``get_epsilon(delta)`` / ``get_delta(epsilon)`` are upper
    bounds on the composition's privacy loss. Long computations release the GIL.
    """

    _kind = ""

    def __init__(self, **options) -> None:
        self._impl = _native.Accountant(self._kind, **options)

    @property
    def name(self) -> str:
        """Method name ("pld", "rdp", "zcdp", "basic", "advanced", "kov")."""
        return self._impl.name

    def supports(self, event: object) -> bool:
        """Whether every elementary event in ``event`` can be composed by this accountant."""
        parts: list = []
        try:
            _flatten(event, 1, parts)
        except ValidationError:
            return False
        return all(self._impl.supports(e) for e, _ in parts)

    def compose(self, event: object, count: int = 1) -> "Accountant":
        """Composes ``count`` (>= 1) adaptive repetitions of ``event``."""
        if int(count) != count or count < 1:
            raise ValidationError(f"compose: count = {count} is invalid (must be an integer >= 1)")
        parts: list = []
        _flatten(event, int(count), parts)
        for e, c in parts:
            self._impl._compose(e, c)
        return self

    def get_epsilon(self, delta: float) -> float:
        """Smallest certified epsilon at ``delta`` in (0, 1) (may be ``inf``)."""
        return self._impl.get_epsilon(delta)

    def get_delta(self, epsilon: float) -> float:
        """Certified delta at ``epsilon`` >= 0."""
        return self._impl.get_delta(epsilon)

    def __repr__(self) -> str:
        return f"dpx.accounting.{type(self).__name__}()"


class PLDAccountant(Accountant):
    """Pessimistic privacy loss distribution accountant (tight up to discretisation).

    ``discretization``: grid spacing of the privacy loss (nats); 0 (default) chooses the grid
    automatically and refines it until the certified bracket [lower, upper] is narrower than
    ``epsilon_error`` (relative); ``tail_mass``: truncated mass per tail (moved
    pessimistically); ``gaussian_fast_path``: compose Gaussian events exactly.
    Unsupported: zCDP, discrete Gaussian, discrete Laplace events.
    """

    _kind = "pld"

    def __init__(
        self,
        discretization: float = 0.0,
        epsilon_error: float = 1e-3,
        tail_mass: float = 1e-15,
        gaussian_fast_path: bool = True,
    ) -> None:
        super().__init__(
            discretization=discretization,
            epsilon_error=epsilon_error,
            tail_mass=tail_mass,
            gaussian_fast_path=gaussian_fast_path,
        )

    def get_epsilon_bracket(self, delta: float) -> Tuple[float, float]:
        """``(lower, upper)``: certified bounds on the composition's exact epsilon at ``delta``
        (lower from the optimistic PLD, upper from the pessimistic one; ``upper`` is
        :meth:`get_epsilon`). The same bracket as ``dpx account --method pld``
        (``epsilon_lower``, ``epsilon``) and ``pld_accountant::epsilon_bracket`` in C++."""
        return self._impl.get_epsilon_bracket(delta)

    def get_delta_bracket(self, epsilon: float) -> Tuple[float, float]:
        """``(lower, upper)``: certified bounds on the exact delta at ``epsilon``."""
        return self._impl.get_delta_bracket(epsilon)


class RDPAccountant(Accountant):
    """Renyi DP accountant (Mironov 2017) with the improved conversion (Canonne, Kamath &
    Steinke 2020, Prop. 12) by default; ``conversion="classical"`` for Mironov's Prop. 3.
    Approximate-DP events are rejected (no RDP description)."""

    _kind = "rdp"

    def __init__(self, orders: Optional[Sequence[float]] = None, conversion: str = "improved") -> None:
        super().__init__(orders=None if orders is None else list(orders), conversion=conversion)


class ZCdpAccountant(Accountant):
    """Zero-concentrated DP accountant (Bun & Steinke 2016); ``conversion`` "numerical"
    (Canonne-Kamath-Steinke, default) or "bun_steinke". Subsampled Gaussian, approximate-DP and
    discrete-pair events are rejected."""

    _kind = "zcdp"

    def __init__(self, conversion: str = "numerical") -> None:
        super().__init__(conversion=conversion)

    @property
    def rho(self) -> float:
        """The composed rho."""
        return self._impl.rho


class ApproxDpAccountant(Accountant):
    """Composition of pure / (epsilon, delta)-DP events by a rule: "basic", "advanced"
    (Dwork-Rothblum-Vadhan) or "kov" (Kairouz-Oh-Viswanath). Gaussian-type and zCDP events are
    rejected."""

    def __init__(self, rule: str = "basic") -> None:
        self._kind = rule
        super().__init__()


# ---- one-call accounting and calibration (the `dpx account` / `dpx calibrate` computations)


def account_gaussian(
    noise_multiplier: float, steps: int, delta: float, sampling_rate: float = 1.0, method: str = "pld"
) -> float:
    """epsilon (upper bound) of ``steps`` Gaussian releases with this noise multiplier, each on a
    Poisson subsample with rate ``sampling_rate`` (1: none). ``method``: basic, advanced, kov,
    rdp, zcdp (q = 1 only) or pld."""
    return _native.account_gaussian(method, noise_multiplier, sampling_rate, steps, delta)


def account_laplace(noise_multiplier: float, steps: int, delta: float, method: str = "pld") -> float:
    """epsilon of ``steps`` Laplace releases with b / Delta_1 = noise_multiplier."""
    return _native.account_laplace(method, noise_multiplier, steps, delta)


def calibrate_gaussian(
    epsilon: float, delta: float, steps: int = 1, sampling_rate: float = 1.0, method: str = "pld"
) -> float:
    """Noise multiplier (sigma per unit L2 sensitivity) so that ``steps`` (Poisson-subsampled)
    Gaussian releases are (epsilon, delta)-DP; the returned value re-accounts to <= epsilon.
    ``method``: classical, analytic, rdp or pld."""
    return _native.calibrate_gaussian(method, epsilon, delta, steps, sampling_rate)


def calibrate_laplace(epsilon: float, delta: float = 0.0, steps: int = 1, method: str = "basic") -> float:
    """Laplace scale per unit L1 sensitivity for ``steps`` releases to be (epsilon, delta)-DP
    (``method``: basic (pure DP; delta unused), advanced, kov, pld)."""
    return _native.calibrate_laplace(method, epsilon, delta, steps)


def dp_sgd_steps(dataset_size: int, batch_size: int, epochs: float) -> int:
    """Steps of DP-SGD: ceil(epochs * dataset_size / batch_size) (Opacus truncates; rounding up
    only adds steps). The C++ ``dp_sgd_schedule_of``, as ``dpx account --epochs`` uses it."""
    return _native.dp_sgd_schedule(dataset_size, batch_size, epochs)[1]


def dp_sgd_epsilon(
    noise_multiplier: float,
    dataset_size: int,
    batch_size: int,
    epochs: float,
    delta: float,
    method: str = "pld",
) -> float:
    """epsilon of DP-SGD with Poisson sampling rate batch_size / dataset_size for
    :func:`dp_sgd_steps` steps (add/remove neighbours)."""
    steps = dp_sgd_steps(dataset_size, batch_size, epochs)
    return account_gaussian(noise_multiplier, steps, delta, batch_size / dataset_size, method)


def calibrate_dp_sgd(
    epsilon: float,
    delta: float,
    dataset_size: int,
    batch_size: int,
    epochs: float,
    method: str = "pld",
) -> float:
    """Noise multiplier for DP-SGD to be (epsilon, delta)-DP after ``epochs`` epochs with
    expected batch size ``batch_size`` (Poisson rate batch_size / dataset_size); the analogue of
    Opacus' ``get_noise_multiplier``. ``method``: rdp or pld."""
    steps = dp_sgd_steps(dataset_size, batch_size, epochs)
    return calibrate_gaussian(epsilon, delta, steps, batch_size / dataset_size, method)


def _invalid(name: str, value: object, requirement: str) -> ValidationError:
    return ValidationError(f"get_noise_multiplier: {name} = {value!r} is invalid ({requirement})")


def get_noise_multiplier(
    *,
    target_epsilon: Optional[float] = None,
    target_delta: Optional[float] = None,
    sample_rate: Optional[float] = None,
    epochs: Optional[float] = None,
    steps: Optional[int] = None,
    accountant: Optional[str] = None,
    epsilon_tolerance: float = 0.01,
    epsilon: Optional[float] = None,
    delta: Optional[float] = None,
    sampling_rate: Optional[float] = None,
    method: Optional[str] = None,
    **kwargs,
) -> float:
    """Noise multiplier for DP-SGD: Poisson sampling with rate ``sample_rate`` for ``steps``
    steps (or ``epochs`` epochs: steps = ceil(epochs / sample_rate)), (target_epsilon,
    target_delta)-DP under add/remove neighbours.

    Opacus' signature (``opacus.accountants.utils.get_noise_multiplier``), with dpx's names
    beside it: ``epsilon`` / ``delta`` / ``sampling_rate`` / ``method`` may be given instead of
    ``target_epsilon`` / ``target_delta`` / ``sample_rate`` / ``accountant`` (not both).
    ``accountant``: ``"pld"`` (default; dpx's certified PLD) or ``"rdp"``.

    The guarantee differs from Opacus': the returned sigma is the calibration of
    :func:`calibrate_gaussian` (the C++ ``calibrate_gaussian``, as ``dpx calibrate``), whose
    certified epsilon upper bound at ``target_delta`` (the accountant's :meth:`get_epsilon`) is
    <= ``target_epsilon`` -- never above it; Opacus returns a sigma whose epsilon is within
    ``epsilon_tolerance`` of the target, on either side. ``epsilon_tolerance`` is accepted for
    compatibility (it must be > 0) and unused: dpx's answer is the feasible end of a bracket
    far narrower than it. Opacus counts steps = int(epochs / sample_rate); dpx rounds up, which
    never gives fewer steps, so the sigma also covers Opacus' count. Other keyword arguments are
    refused. Bad input raises ``ValueError`` naming the argument as it was passed.
    """
    if kwargs:
        name = sorted(kwargs)[0]
        raise _invalid(name, kwargs[name], "not an argument of dpx's get_noise_multiplier")

    def pick(opacus_name, opacus_value, dpx_name, dpx_value):
        if opacus_value is not None and dpx_value is not None:
            raise _invalid(dpx_name, dpx_value, f"give {opacus_name} or {dpx_name}, not both")
        if opacus_value is None and dpx_value is None:
            raise _invalid(opacus_name, None, "required")
        return (opacus_name, opacus_value) if opacus_value is not None else (dpx_name, dpx_value)

    def number(name, value):
        try:
            return float(value)
        except (TypeError, ValueError):
            raise _invalid(name, value, "must be a number") from None

    eps_name, eps = pick("target_epsilon", target_epsilon, "epsilon", epsilon)
    delta_name, dlt = pick("target_delta", target_delta, "delta", delta)
    q_name, q = pick("sample_rate", sample_rate, "sampling_rate", sampling_rate)
    eps, dlt, q = number(eps_name, eps), number(delta_name, dlt), number(q_name, q)
    if accountant is not None and method is not None:
        raise _invalid("method", method, "give accountant or method, not both")
    acc_name = "method" if method is not None else "accountant"
    kind = method if method is not None else ("pld" if accountant is None else accountant)
    if kind not in ("pld", "rdp"):
        raise _invalid(acc_name, kind, "must be 'pld' or 'rdp'")
    if not (math.isfinite(eps) and eps > 0):
        raise _invalid(eps_name, eps, "must be finite and > 0")
    if not (0 < dlt < 1):
        raise _invalid(delta_name, dlt, "must lie in (0, 1)")
    if not (0 < q <= 1):
        raise _invalid(q_name, q, "must lie in (0, 1]")
    tol = number("epsilon_tolerance", epsilon_tolerance)
    if not (math.isfinite(tol) and tol > 0):
        raise _invalid("epsilon_tolerance", epsilon_tolerance, "must be finite and > 0")
    if (epochs is None) == (steps is None):
        raise _invalid("steps", steps, "give exactly one of epochs and steps")
    if epochs is not None:
        e = number("epochs", epochs)
        if not (math.isfinite(e) and e > 0):
            raise _invalid("epochs", epochs, "must be finite and > 0")
        try:
            t = _native.dp_sgd_steps(q, e)
        except ValidationError as err:  # more than 1e12 steps: the C++ requirement, renamed
            why = str(err).rpartition(" is invalid (")[2].rstrip(")")
            raise _invalid("epochs", epochs, why) from None
    else:
        t = None
        if not isinstance(steps, bool):
            try:
                t = operator.index(steps)
            except TypeError:
                if isinstance(steps, float) and steps.is_integer():
                    t = int(steps)
        if t is None or t < 1:
            raise _invalid("steps", steps, "must be an integer >= 1")
    return _native.calibrate_gaussian(kind, eps, dlt, t, q)
