"""Dataset generators with their exact theory (dpx::data).

Each model is a class; ``model.sample(n, rng)`` (fixed-length models :class:`Toeplitz` and
:class:`FGN`, built for one length n: ``model.sample(rng)``) returns a float64 array of length n (filled in
place by the C++ generator, no copy) and ``model.theory(n)`` a dict of its exact quantities
(mean, variance, long-run variance, autocorrelations at lags 1..5, log-Sobolev constants,
n Var(mean)), with the keys of ``dpx generate MODEL --describe``.

:func:`generate` reproduces the ``dpx generate`` command bit for bit: the stream is
``Philox(seed, stable_hash("dpx generate " + model), 0, "data")``.
"""

from __future__ import annotations

from typing import Dict, Tuple

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
    "cli_stream",
    "generate",
    "model",
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


def cli_stream(name: str, seed: int = 1) -> Philox:
    """The generator ``dpx generate NAME --seed SEED`` draws from."""
    return Philox(seed, stable_hash("dpx generate " + name), 0, "data")


def generate(name: str, n: int, seed: int = 1, **params) -> Tuple[np.ndarray, Dict]:
    """(sample, theory) exactly as ``dpx generate NAME --n N --seed SEED --describe``."""
    if name in FIXED_LENGTH_MODELS:
        fixed = FIXED_LENGTH_MODELS[name](n, **params)
        return fixed.sample(cli_stream(name, seed)), fixed.theory()
    m = model(name, **params)
    return m.sample(n, cli_stream(name, seed)), m.theory(n)
