"""Random parameter sets for Monte Carlo studies: one pandas DataFrame row per case.

Each helper takes a ``seed`` and records it, with the method, in the DataFrame's
``attrs``; :func:`vecnet.sweep` copies those ``attrs`` into its result, so a study says
how to draw its cases again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ModelError

if TYPE_CHECKING:
    import pandas

__all__ = ["latin_hypercube", "normal", "uniform"]


def normal(nominal: Mapping[str, float], rel_sigma: float | Mapping[str, float], n: int,
           seed: int | None = None) -> pandas.DataFrame:
    """``n`` cases with each parameter drawn from a normal distribution around its nominal
    value, standard deviation ``rel_sigma * |nominal|`` (one number, or one per name).

    Raises :class:`~vecnet.errors.ModelError` for a negative ``rel_sigma`` or ``n < 1``.

    >>> df = normal({"R1": 1e3}, 0.05, 4, seed=1)
    >>> df.shape, df.attrs["seed"]
    ((4, 1), 1)
    """
    _check_count(n)
    sigmas = _per_name(rel_sigma, nominal, "rel_sigma")
    rng = np.random.default_rng(seed)
    columns = {name: rng.normal(value, sigmas[name] * abs(value), n)
               for name, value in nominal.items()}
    return _frame(columns, "normal", seed, nominal=dict(nominal), rel_sigma=sigmas)


def uniform(bounds: Mapping[str, tuple[float, float]], n: int,
            seed: int | None = None) -> pandas.DataFrame:
    """``n`` cases with each parameter drawn uniformly from its ``(low, high)``.

    Raises :class:`~vecnet.errors.ModelError` for bounds with ``low > high`` or ``n < 1``.

    >>> uniform({"C1": (1e-6, 2e-6)}, 3, seed=0).attrs["method"]
    'uniform'
    """
    _check_count(n)
    _check_bounds(bounds)
    rng = np.random.default_rng(seed)
    columns = {name: rng.uniform(low, high, n) for name, (low, high) in bounds.items()}
    return _frame(columns, "uniform", seed, bounds=dict(bounds))


def latin_hypercube(bounds: Mapping[str, tuple[float, float]], n: int,
                    seed: int | None = None) -> pandas.DataFrame:
    """``n`` cases from a Latin hypercube (:class:`scipy.stats.qmc.LatinHypercube`) scaled to
    each parameter's ``(low, high)``: each column has exactly one value in each of the ``n``
    equal slices of its interval.

    Raises :class:`~vecnet.errors.ModelError` for bounds with ``low > high`` or ``n < 1``.

    >>> df = latin_hypercube({"R1": (0.0, 1.0)}, 4, seed=2)
    >>> sorted((df["R1"] * 4).astype(int))
    [0, 1, 2, 3]
    """
    from scipy.stats import qmc

    _check_count(n)
    _check_bounds(bounds)
    unit = qmc.LatinHypercube(d=len(bounds), seed=seed).random(n) if bounds else np.zeros((n, 0))
    lows = np.array([low for low, _ in bounds.values()], dtype=float)
    highs = np.array([high for _, high in bounds.values()], dtype=float)
    scaled = lows + unit * (highs - lows)
    columns = {name: scaled[:, k] for k, name in enumerate(bounds)}
    return _frame(columns, "latin_hypercube", seed, bounds=dict(bounds))


def _frame(columns: Mapping[str, np.ndarray], method: str, seed: int | None,
           **settings) -> pandas.DataFrame:
    import pandas

    frame = pandas.DataFrame(dict(columns))
    frame.attrs.update(method=method, seed=seed, **settings)
    return frame


def _check_count(n: int) -> None:
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ModelError(f"the number of cases n must be a positive integer, got {n!r}")


def _per_name(value: float | Mapping[str, float], names: Mapping[str, float],
              what: str) -> dict[str, float]:
    given = value if isinstance(value, Mapping) else {name: value for name in names}
    missing = [name for name in names if name not in given]
    if missing:
        raise ModelError(f"{what} has no value for {', '.join(missing)}")
    negative = [name for name in names if given[name] < 0]
    if negative:
        raise ModelError(f"{what} of {', '.join(negative)} is negative; give a spread >= 0")
    return {name: float(given[name]) for name in names}


def _check_bounds(bounds: Mapping[str, tuple[float, float]]) -> None:
    for name, (low, high) in bounds.items():
        if not low <= high:
            raise ModelError(f"bounds of {name!r}: low {low!r} is above high {high!r}; give "
                             "(low, high)")
