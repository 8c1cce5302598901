"""Simulation results: labelled time series."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from ..errors import UnknownNameError

__all__ = ["Result"]


class Result:
    """Time series of named variables, as returned by the ``simulate`` functions.

    Attributes
    ----------
    t : numpy.ndarray
        Sample times.
    names : tuple of str
        Every variable available: ``result[name]`` is its time series.
    success : bool
    message : str
        The integrator's report.
    """

    def __init__(self, t: np.ndarray, series: dict[str, np.ndarray], success: bool = True,
                 message: str = "", derive: Callable[[], dict[str, np.ndarray]] | None = None
                 ) -> None:
        self.t = t
        self._series = series
        self.success = success
        self.message = message
        self._derive = derive  # the other series, computed when first asked for

    def _complete(self) -> None:
        if self._derive is not None:
            derive, self._derive = self._derive, None
            for name, values in derive().items():
                self._series.setdefault(name, values)

    @property
    def names(self) -> tuple[str, ...]:
        self._complete()
        return tuple(self._series)

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._series:
            self._complete()
        try:
            return self._series[name]
        except KeyError:
            raise UnknownNameError(f"no variable {name!r} in the result; it has "
                                   f"{', '.join(list(self._series)[:8])}...") from None

    def __contains__(self, name: str) -> bool:
        if name not in self._series:
            self._complete()
        return name in self._series

    def plot(self, names: Iterable[str] | None = None, ax=None):
        """Plot the named variables (default: the first six) against time, a vector or
        quaternion one line per component; returns the axes."""
        import matplotlib.pyplot as plt

        names = list(names) if names is not None else list(self._series)[:6]
        if ax is None:
            _, ax = plt.subplots()
        for name in names:
            values = np.asarray(self[name])
            if values.ndim == 1:
                ax.plot(self.t, values, label=name)
                continue
            # vectors and quaternions: one line a component, named as the results name them
            parts = {3: "xyz", 4: "wxyz"}.get(values.shape[1], range(values.shape[1]))
            for column, part in zip(values.T, parts):
                ax.plot(self.t, column, label=f"{name}.{part}")
        ax.set_xlabel("t [s]")
        ax.legend()
        return ax

    def __repr__(self) -> str:
        return (f"<Result: {len(self.t)} samples, t = {self.t[0]:g}..{self.t[-1]:g}, "
                f"{len(self._series)} variables, success={self.success}>")
