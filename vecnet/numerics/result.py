"""Simulation results: labelled time series, and how the integration that made them went."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..core.domains import unit_text
from ..core.names import visible
from ..errors import SimulationError, UnknownNameError

__all__ = ["Result", "Event", "Outcome"]


class Event(NamedTuple):
    """Something that happened at one instant of a simulation.

    Attributes
    ----------
    t : float
        When.
    name : str
        Of what: the stop (``"lim.upper"``) or the input (``"V.across"``).
    kind : str
        ``"impact"``: a joint struck its stop (its speed reversed); ``"switch"``: a source
        stepped or bent (the integration restarted there); ``"mode"``: a set-valued joint
        friction stuck or slipped (:mod:`vecnet.numerics.friction`).
    before, after : str
        The modes a ``"mode"`` event switches between (``"stick"``, ``"slip+"``,
        ``"slip-"``); empty for the other kinds.
    """

    t: float
    name: str
    kind: str
    before: str = ""
    after: str = ""


@dataclass
class Outcome:
    """How an integration went, as an integrator reports it: the method, the evaluations
    of its right-hand side (or residual) and of its Jacobian, the events on the way, the
    solver's last message, the error that stopped it early (``None``: it reached the
    end) and how a mechanism's constrained equations were solved (``Result.linear_algebra``)."""

    solver: str
    nfev: int = 0
    njev: int = 0
    events: list[Event] = field(default_factory=list)
    message: str = ""
    error: SimulationError | None = None
    linear_algebra: str = ""

    def fail(self, error: SimulationError) -> None:
        """Record the error that stops the integration (the first one stays)."""
        if self.error is None:
            self.error = error


class Result:
    """Time series of named variables, as :func:`vecnet.simulate` returns them, and how the
    integration went (the fields of scipy's ``OdeResult``).

    Attributes
    ----------
    t : numpy.ndarray
        Sample times (up to where the integration stopped, when it failed).
    names : tuple of str
        Every variable available: ``result[name]`` is its time series.
    status : int
        0: the integration reached the end of the span; -1: it stopped early (a limit of
        :func:`vecnet.limits`, a step the solver could not take, values no longer finite).
    success : bool
        ``status >= 0``.
    message : str
        The solver's report, or why the integration stopped.
    nfev, njev : int
        Evaluations of the right-hand side (the residual for IDA), every one the solver
        asked for, and of the Jacobian (where the solver reports them; else 0).
    events : tuple of Event
        Joint stops struck, joint frictions sticking and slipping, and sources switching,
        in time order.
    solver : str
        The method that integrated (``"LSODA"``, ``"BDF"``, ``"IDA"``, ``"partition"``,
        ``"dae"``, ``"rk4"``, ``"euler"``, ``"kinematics"``...).
    linear_algebra : str
        How a mechanism's constrained equations were solved: ``"sparse"`` (in body space,
        :mod:`vecnet.numerics.bodyspace`), ``"dense"`` (in joint space), ``"sparse+dense"``
        (body space, with the joint-space path answering where it could not; the message
        says how often and why); ``""`` for a model without loop constraints.
    """

    def __init__(self, t: np.ndarray, series: dict[str, np.ndarray],
                 outcome: Outcome | None = None,
                 derive: Callable[[], dict[str, np.ndarray]] | None = None) -> None:
        outcome = outcome or Outcome("")
        self.t = t
        self._series = series
        self._error = outcome.error
        self.status = 0 if outcome.error is None else -1
        self.message = outcome.message if outcome.error is None else str(outcome.error)
        self.nfev, self.njev = outcome.nfev, outcome.njev
        self.events = tuple(sorted(outcome.events))
        self.solver = outcome.solver
        self.linear_algebra = outcome.linear_algebra
        self._derive = derive  # the other series, computed when first asked for
        #: name -> (quantity, unit) of the variables whose quantity the name does not say
        #: (a network's, set by :func:`vecnet.simulate`); used by :meth:`plot`
        self.units: dict[str, tuple[str, str]] = {}

    @property
    def success(self) -> bool:
        return self.status >= 0

    def check(self) -> Result:
        """The result itself when the integration reached the end of the span; else raise
        the :class:`~vecnet.errors.SimulationError` that stopped it.

        >>> import numpy as np
        >>> Result(np.zeros(1), {}).check().status
        0
        """
        if self._error is not None:
            raise self._error
        return self

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

    def plot(self, names: Iterable[str] | None = None, ax=None,
             units: Mapping[str, tuple[str, str]] | Any = None):
        """Plot the named variables (default: the first six) against time, one panel per
        physical quantity on a shared time axis; returns the top panel's axes (every
        panel: ``ax.figure.axes``).

        Each panel is labelled ``"quantity [unit]"`` and holds at most eight curves (more of
        one quantity continue in the next panel); a vector or quaternion draws one curve
        per component. The quantity of a mechanism result follows from its name
        (``"crank.angle"``, ``"crank.omega"``, ``"P1.reaction"``, ``"energy"``); that of a
        network's ``"<edge>.across"`` or ``"<edge>.through"`` from its domain, when
        ``units`` (a mapping name -> (quantity, unit), or the :class:`~vecnet.Network`;
        by default :attr:`units`).
        A variable of unknown quantity gets a panel of its own. Given ``ax``, every curve
        goes into that one axes.

        >>> import numpy as np
        >>> t = np.linspace(0.0, 1.0, 11)
        >>> res = Result(t, {"arm.angle": t, "arm.omega": 0 * t + 1, "energy": t ** 2})
        >>> ax = res.plot()
        >>> [panel.get_ylabel() for panel in ax.figure.axes]
        ['angle [rad]', 'angular velocity [rad/s]', 'energy [J]']
        """
        import matplotlib.pyplot as plt

        names = list(names) if names is not None else list(self._series)[:6]
        known = self.units if units is None else _quantities_of(units)
        panels = _panels(names, lambda name: known.get(name) or _quantity_from_name(name),
                         ordered=not known)
        if ax is not None:
            panels = [(panels[0][0] if len(panels) == 1 else None,
                       [name for _, chunk in panels for name in chunk])]
            axes = [ax]
        else:
            # constrained layout keeps the legends beside the panels inside the figure
            _, grid = plt.subplots(len(panels), 1, sharex=True, squeeze=False,
                                   layout="constrained", figsize=(7.5, 1.2 + 2.1 * len(panels)))
            axes = list(grid[:, 0])
        for panel, (quantity, chunk) in zip(axes, panels):
            for name in chunk:
                self._draw(panel, name)
            if quantity is not None:
                panel.set_ylabel(_axis_label(*quantity))
            panel.grid(True, alpha=0.3)
            # 2.5e-4 m^3/s reads better as 2.5 under a "1e-4" than as 0.00025; no offset
            # ("1e-6+1.81e1"): the ticks show the values themselves
            panel.ticklabel_format(axis="y", style="sci", scilimits=(-3, 4), useOffset=False)
            _span_beyond_roundoff(panel)
            panel.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                         fontsize="small", frameon=False)
        axes[-1].set_xlabel("time [s]")
        axes[0].figure.align_ylabels(axes)
        return axes[0]

    def _draw(self, ax, name: str) -> None:
        values = np.asarray(self[name])
        if values.ndim == 1:
            ax.plot(self.t, values, label=_legend_label(name))
            return
        # vectors and quaternions: one line a component, named as the results name them
        for column, part in zip(values.T, _parts(values)):
            ax.plot(self.t, column, label=_legend_label(f"{name}.{part}"))

    def __repr__(self) -> str:
        span = f", t = {self.t[0]:g}..{self.t[-1]:g}" if len(self.t) else ""
        return (f"<Result: {len(self.t)} samples{span}, {len(self._series)} variables, "
                f"success={self.success}>")


def _legend_label(name: str) -> str:
    """A legend entry shown as typed: ``$`` escaped (matplotlib would read math text
    between two of them, and fail on a bad one), lone surrogates as ``\\udxxx``, and a
    leading ``_`` (which hides an entry) guarded by a zero-width space."""
    text = visible(name).replace("$", r"\$")
    return "\u200b" + text if text.startswith("_") else text


def _parts(values: np.ndarray):
    """The component names of a planar (x, y) or spatial (x, y, z) vector or a quaternion
    (w, x, y, z) series."""
    return {2: "xy", 3: "xyz", 4: "wxyz"}.get(values.shape[1], range(values.shape[1]))


#: most curves in one panel; more of one quantity continue in the next panel
PANEL_CURVES = 8

# mechanism results are named "<body or joint>.<suffix>"; a trailing "'" is a rate
_SUFFIXES = {
    "x": "position", "y": "position", "z": "position", "position": "position",
    "distance": "position", "angle": "angle", "euler": "angle",
    "vx": "velocity", "vy": "velocity", "vz": "velocity", "velocity": "velocity",
    "omega": "angular velocity", "wx": "angular velocity", "wy": "angular velocity",
    "wz": "angular velocity", "reaction": "force", "reaction.x": "force",
    "reaction.y": "force", "reaction.z": "force", "force": "force", "torque": "torque",
    "reaction_torque": "torque", "orientation": "orientation", "qw": "orientation",
    "qx": "orientation", "qy": "orientation", "qz": "orientation",
}
_WHOLE_NAMES = {"kinetic": "energy", "potential": "energy", "energy": "energy"}
_RATES = {"position": "velocity", "angle": "angular velocity"}
# mechanism panels in the order one reads a motion: where, how fast, pushed how, energy
_UNITS = {"position": "m", "angle": "rad", "orientation": "1", "velocity": "m/s",
          "angular velocity": "rad/s", "force": "N", "torque": "N m", "energy": "J"}


def _quantity_from_name(name: str) -> tuple[str, str] | None:
    """The (quantity, unit) a mechanism result's name tells, or ``None``."""
    rate = name.endswith("'")
    base = name.rstrip("'")
    quantity = _WHOLE_NAMES.get(base)
    if quantity is None and "." in base:
        parts = base.split(".")
        quantity = _SUFFIXES.get(".".join(parts[-2:])) if len(parts) > 2 else None
        quantity = quantity or _SUFFIXES.get(parts[-1])
    if quantity is not None and rate:
        quantity = _RATES.get(quantity)
    return (quantity, _UNITS[quantity]) if quantity is not None else None


def _quantities_of(units: Mapping[str, tuple[str, str]] | Any) -> Mapping[str, tuple[str, str]]:
    """Name -> (quantity, unit) from a mapping, or from a network's ``units()``."""
    return units if isinstance(units, Mapping) else units.units()


def _panels(names: list[str], quantity_of: Callable[[str], tuple[str, str] | None],
            ordered: bool) -> list[tuple[tuple[str, str] | None, list[str]]]:
    """The names grouped one quantity a panel, at most :data:`PANEL_CURVES` a panel; in the
    order the quantities first come, or (``ordered``) mechanism quantities first in the
    order of ``_UNITS``."""
    groups: dict[Any, list[str]] = {}
    for name in names:
        # a variable of unknown quantity stands alone rather than share an unlabelled axis
        groups.setdefault(quantity_of(name) or ("unknown", name), []).append(name)
    order = list(_UNITS) if ordered else []
    keys = sorted(groups, key=lambda key: order.index(key[0]) if key[0] in order else len(order))
    return [(None if key[0] == "unknown" else key, groups[key][k:k + PANEL_CURVES])
            for key in keys for k in range(0, len(groups[key]), PANEL_CURVES)]


def _axis_label(quantity: str, unit: str) -> str:
    return f"{quantity} [{unit_text(unit.replace('*', ' '))}]"


def _span_beyond_roundoff(ax) -> None:
    """Widen the y range of a panel whose curves are constant to within roundoff (a
    reaction that only gravity sets): autoscaling would spread their last digits over
    the whole panel, as if they moved."""
    values = [np.asarray(line.get_ydata(), dtype=float) for line in ax.get_lines()]
    values = [v[np.isfinite(v)] for v in values if v.size]
    if not values or not any(v.size for v in values):
        return
    every = np.concatenate(values)
    low, high = float(every.min()), float(every.max())
    scale = max(abs(low), abs(high))
    if scale > 0 and high - low <= 1e-9 * scale:
        middle = (low + high) / 2
        ax.set_ylim(middle - 0.05 * scale, middle + 0.05 * scale)
