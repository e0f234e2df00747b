"""Dataset generators with their exact theory (dpx::data).

Each model is a class; ``model.sample(n, rng)`` (fixed-length models :class:`Toeplitz` and
:class:`FGN`, built for one length n: ``model.sample(rng)``) returns a float64 array of length n (filled in
place by the C++ generator, no copy) and ``model.theory(n)`` a dict of its exact quantities
(mean, variance, long-run variance, autocorrelations at lags 1..5, log-Sobolev constants,
n Var(mean)), with the keys of ``dpx generate MODEL --describe``.

The registry (:func:`registry`, :func:`draw`, :func:`generate`) covers every model of
``dpx generate`` -- scalar series, VAR(1), panels (block-Toeplitz, random effects, longitudinal),
nonparametric regression and the sparse regression (ERM) designs -- with the CLI's names,
parameters, defaults and validation (the same C++ registry; errors name parameters as keyword
arguments). :func:`draw` returns every column as a numpy array (float64; int64 for indices such
as ``user``/``t``; str for words such as ``split``) with the resolved parameters and the exact
theory (the keys of ``dpx generate MODEL --describe``). With ``seed`` (no ``rng``) the stream is
the CLI's, ``Philox(seed, stable_hash("dpx generate " + model), 0, "data")``, so the data are
bit-identical to ``dpx generate MODEL --n N --seed SEED``.
"""

from __future__ import annotations

from typing import Any, Dict, NamedTuple, Optional, Tuple, Union

import numpy as np

from . import _dpx
from ._dpx import Philox, stable_hash
from ._dpx.data import (
    AR1,
    AR1T,
    ARMA,
    FGN,
    Beta,
    Equicorrelated,
    IidGaussian,
    StudentT,
    Toeplitz,
    Uniform,
)

__all__ = [
    "AR1",
    "AR1T",
    "ARMA",
    "Beta",
    "Equicorrelated",
    "FGN",
    "FIXED_LENGTH_MODELS",
    "IidGaussian",
    "MODELS",
    "StudentT",
    "Toeplitz",
    "Uniform",
    "MODEL_NAMES",
    "Realization",
    "cli_stream",
    "draw",
    "generate",
    "model",
    "model_info",
    "registry",
]

#: CLI model name -> constructor (``dpx generate`` names; arp / ma are ARMA without MA / AR part).
MODELS = {
    "iid_gaussian": IidGaussian,
    "student_t": StudentT,
    "uniform": Uniform,
    "beta": Beta,
    "ar1": AR1,
    "ar1_t": AR1T,
    "arp": lambda phi=(0.5,), mu=0.0, innovation_sd=1.0: ARMA(list(phi), [], mu, innovation_sd),
    "ma": lambda theta=(0.5,), mu=0.0, innovation_sd=1.0: ARMA([], list(theta), mu, innovation_sd),
    "arma": lambda phi=(0.5,), theta=(0.5,), mu=0.0, innovation_sd=1.0: ARMA(
        list(phi), list(theta), mu, innovation_sd
    ),
    "equicorrelated": Equicorrelated,
}

#: Models whose length n is fixed at construction (circulant embedding): ``Model(n, **params)``.
FIXED_LENGTH_MODELS = {"toeplitz": Toeplitz, "fgn": FGN}


def model(name: str, **params):
    """The model called ``name`` in ``dpx generate`` with these parameters."""
    if name not in MODELS:
        raise _dpx.ValidationError(
            f"data.model: name = {name} is invalid (must be one of {', '.join(sorted(MODELS))})"
        )
    return MODELS[name](**params)


def registry() -> list:
    """Every registered model (the order of ``dpx generate --help``) as a dict: ``name``,
    ``summary``, ``size`` (what n counts), ``columns`` and ``params`` (each with ``name``,
    ``type`` = real | count | real_list | choice, ``default``, ``default_text``, ``range``,
    ``description``, ``choices``)."""
    return _dpx.data.registry()


#: Names of the registered models, as ``dpx generate`` spells them.
MODEL_NAMES: Tuple[str, ...] = tuple(m["name"] for m in _dpx.data.registry())


def model_info(name: str) -> Dict[str, Any]:
    """The registry entry of model ``name`` (see :func:`registry`)."""
    for m in _dpx.data.registry():
        if m["name"] == name:
            return m
    raise _dpx.ValidationError(
        f"data.model_info: name = {name} is invalid (must be one of {', '.join(MODEL_NAMES)})"
    )


class Realization(NamedTuple):
    """One draw of a registered model: ``columns`` (name -> numpy array, in the CSV's column
    order), ``parameters`` (resolved values, derived defaults filled in) and ``theory`` (the
    exact quantities of ``dpx generate --describe``)."""

    columns: Dict[str, np.ndarray]
    parameters: Dict[str, Any]
    theory: Dict[str, Any]

    def frame(self):
        """The columns as a pandas DataFrame (the CSV ``dpx generate`` writes)."""
        import pandas as pd

        return pd.DataFrame(self.columns)


def _text(name: str, value: Any) -> str:
    # The text `dpx generate --name value` would receive: shortest round-trip reprs of floats,
    # comma-separated lists.
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)) or value is None:
        raise _dpx.ValidationError(f"data.generate: {name} = {value!r} is invalid (must be a number, a list of numbers or a word)")
    if isinstance(value, (list, tuple, np.ndarray)):
        return ",".join(repr(float(v)) for v in np.asarray(value, dtype=float).ravel())
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return repr(float(value))


def draw(
    name: str,
    n: int,
    rng: Optional[Philox] = None,
    *,
    seed: int = 1,
    describe: bool = True,
    **params: Any,
) -> Realization:
    """Draws ``n`` (series length, users or training rows) from the registered model ``name``.

    ``params`` are the model's parameters (:func:`model_info`), validated by the C++ registry
    with the CLI's ranges and messages. Without ``rng`` the stream is ``dpx generate``'s for
    ``seed`` (bit-identical CSV values); ``describe=False`` skips the costly theory (as the CLI
    without ``--describe``). The GIL is released while drawing."""
    g = rng if rng is not None else cli_stream(name, seed)
    text = {k: _text(k, v) for k, v in params.items()}
    columns, parameters, theory = _dpx.data.realize(name, int(n), text, g, describe)
    return Realization(columns, parameters, theory)


def cli_stream(name: str, seed: int = 1) -> Philox:
    """The generator ``dpx generate NAME --seed SEED`` draws from."""
    return Philox(seed, stable_hash("dpx generate " + name), 0, "data")


def generate(
    name: str, n: int, seed: int = 1, **params: Any
) -> Tuple[Union[np.ndarray, Dict[str, np.ndarray]], Dict[str, Any]]:
    """(data, theory) exactly as ``dpx generate NAME --n N --seed SEED --describe``: data is the
    ``x`` array for the one-column series models and the dict of columns otherwise."""
    r = draw(name, n, seed=seed, **params)
    data = r.columns["x"] if list(r.columns) == ["x"] else r.columns
    return data, r.theory
