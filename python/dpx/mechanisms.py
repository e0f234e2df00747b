"""Noise-adding mechanisms (dpx::mechanisms), vectorised over numpy arrays.

Every mechanism documents its neighbouring relation, sensitivity and guarantee (see each
class's docstring and ``.protects``). Research-grade samplers (:class:`Laplace`,
:class:`Gaussian`, :class:`L2Laplace`) add double-precision noise, whose low-order bits leak the
input (Mironov 2012): use the float-safe ones (:class:`FloatSafeLaplace`,
:class:`FloatSafeGaussian`, :class:`DiscreteLaplace`, :class:`DiscreteGaussian`) for real
releases, with :func:`dpx.os_random`.

Methods taking a generator:

* ``sample(rng)`` -> one draw; ``sample(rng, size)`` -> a new array (filled in place, no copy);
* ``release(value, rng)`` -> value + noise for a scalar, or a new array for an array input (the
  input is converted to C-contiguous float64/int64 only if it is not already, then copied once
  into the output; it is never modified);
* ``privatize(array, rng)`` -> adds noise in place (no copy; the array must be a writable
  C-contiguous float64 / int64 array, otherwise :class:`dpx.ValidationError`).

Private histograms: :class:`StableHistogram` (central, thresholded over unbounded bins) and
:class:`LocalHistogram` (local randomized response), the building blocks of
:mod:`dpx.estimators`.

Arrays of 4096 or more elements are processed with the GIL released.
"""

from ._dpx.mechanisms import (
    DiscreteGaussian,
    DiscreteLaplace,
    ExponentialMechanism,
    FloatSafeGaussian,
    FloatSafeLaplace,
    Gaussian,
    L2Laplace,
    Laplace,
    LocalHistogram,
    PermuteAndFlip,
    RandomizedResponse,
    SparseHistogram,
    StableHistogram,
)

__all__ = [
    "DiscreteGaussian",
    "DiscreteLaplace",
    "ExponentialMechanism",
    "FloatSafeGaussian",
    "FloatSafeLaplace",
    "Gaussian",
    "L2Laplace",
    "Laplace",
    "LocalHistogram",
    "PermuteAndFlip",
    "RandomizedResponse",
    "SparseHistogram",
    "StableHistogram",
]
