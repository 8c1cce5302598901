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

    @property
    def columns(self) -> tuple[str, ...]:
        """The names of the rows of :attr:`y`: every variable, a vector or quaternion one
        name per component (``"b.omega.x"``, ``"b.orientation.w"``)."""
        return tuple(name for name, _ in self._components())

    @property
    def y(self) -> np.ndarray:
        """Every series as one array, a row each (in the order of :attr:`columns`) and a
        column per sample, as ``scipy.integrate.solve_ivp`` gives its ``y``."""
        rows = [values for _, values in self._components()]
        return np.vstack(rows) if rows else np.zeros((0, len(self.t)))

    def _components(self):
        for name in self.names:
            values = np.asarray(self[name])
            if values.ndim == 1:
                yield name, values
                continue
            for column, part in zip(values.T, _parts(values)):
                yield f"{name}.{part}", column

    def to_pandas(self):
        """A ``pandas.DataFrame`` indexed by time (``"t"``), a column per :attr:`columns`
        (needs pandas)."""
        import pandas

        return pandas.DataFrame(dict(zip(self.columns, self.y)),
                                index=pandas.Index(self.t, name="t"))

    def to_xarray(self):
        """An ``xarray.Dataset`` over the time coordinate ``"t"``, a variable per series; a
        vector has a ``"component"`` dimension (needs xarray)."""
        import xarray

        data = {}
        for name in self.names:
            values = np.asarray(self[name])
            if values.ndim == 1:
                data[name] = ("t", values)
            else:
                data[name] = xarray.DataArray(
                    values, dims=("t", f"{name}.component"),
                    coords={f"{name}.component": list(map(str, _parts(values)))})
        return xarray.Dataset(data, coords={"t": self.t})

    def _repr_html_(self) -> str:
        """A table for notebooks: each variable's first and last value, up to 20 of them."""
        import html

        shown = list(self._components())[:20]
        rows = "".join(f"<tr><td>{html.escape(name)}</td><td>{values[0]:.6g}</td>"
                       f"<td>{values[-1]:.6g}</td></tr>" for name, values in shown if len(values))
        more = len(self.columns) - len(shown)
        return (f"<p>{html.escape(repr(self))}</p><table><tr><th>variable</th>"
                f"<th>t = {self.t[0]:.6g}</th><th>t = {self.t[-1]:.6g}</th></tr>{rows}</table>"
                + (f"<p>and {more} more</p>" if more > 0 else "")) if len(self.t) else \
            f"<p>{html.escape(repr(self))}</p>"

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


def _parts(values: np.ndarray):
    """The component names of a vector (x, y, z) or quaternion (w, x, y, z) series."""
    return {3: "xyz", 4: "wxyz"}.get(values.shape[1], range(values.shape[1]))
