"""A model: a network or a mechanism together with the settings a model file gives it
(parameter values, inputs, initial values, outputs, tree, simulation span).

:func:`vecnet.load_model` reads one from a file and :func:`vecnet.save_model` writes one;
the class itself knows nothing of files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from ..core.forwards import public
from ..elements.base import Symbol, t
from ..errors import ModelError, SimulationError, UnknownNameError
from .network import Network

__all__ = ["Model", "time_function"]


@dataclass
class Model:
    """A network, mechanism or system with the settings of its model file.

    Attributes
    ----------
    kind : str
        ``"network"``, ``"mechanism"`` or ``"system"``.
    system : Network, Mechanism or System
        The system the file describes, built: a :class:`~vecnet.Network`, a
        :class:`~vecnet.planar.Mechanism`, (a file with ``"dimensions": 3``) a
        :class:`~vecnet.spatial.Mechanism`, or a :class:`~vecnet.System` of both (its
        parameters' values put in when it was read). :attr:`network` and
        :attr:`mechanism` name it by its kind (and refuse the other kind in words).
    parameters : dict
        Declared parameter name -> numeric value, or ``None`` for a symbol without one.
    inputs : dict
        Network input name (``"Vs.across"``) -> sympy expression in :data:`vecnet.t`.
    initial, velocities : dict
        Initial values: state name -> number for networks, coordinate name -> number
        (and rate) for mechanisms, both (and block states) for systems; spatial mechanisms also take speeds by name and a body's
        ``"<body>.omega"`` and ``"<body>.velocity"`` as ``(x, y, z)`` in world axes.
    outputs : list of str
    tree : str or list of str or None
        Networks: ``"normal"``, ``"auto"`` or branch names; mechanisms: branch names or ``None``.
    coordinates : str
        Mechanisms: ``"joint"`` or ``"absolute"``.
    speeds : str
        Spatial mechanisms: the axes of the angular speeds of free bodies and ball joints,
        ``"tail"`` (world axes on the ground; the default) or ``"body"`` (the body's own
        axes: Euler's equations; :meth:`vecnet.spatial.Mechanism.formulate`).
    t_span, points, step
        Simulation interval, number of output points and, for mechanisms and systems,
        the longest step of a fixed-step method such as generalized-alpha, a beam's
        (``None``: not given).

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("Vs", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1e3),
    ...             vn.Capacitor("C", "g", "b", C=1e-6))
    >>> model = vn.Model("network", net, outputs=["C.across"], t_span=(0.0, 5e-3))
    >>> round(float(model.simulate(points=11)["C.across"][-1]), 3)
    0.993
    """

    kind: str
    system: Any  # a Network, a planar or spatial Mechanism, or a System
    parameters: dict[str, float | None] = field(default_factory=dict)
    inputs: dict[str, sympy.Expr] = field(default_factory=dict)
    initial: dict[str, float] = field(default_factory=dict)
    velocities: dict[str, float | tuple[float, ...]] = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    tree: str | list[str] | None = None
    coordinates: str = "joint"
    speeds: str = "tail"
    t_span: tuple[float, float] | None = None
    points: int | None = None
    step: float | None = None
    description: str = ""
    #: the model file as it was read (``None``: built in Python), to read it again with other
    #: parameter values: a length places points, and is a number once they are placed
    document: dict | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        holds = {"network": "Network", "mechanism": "Mechanism", "system": "System"}
        if self.kind not in holds:
            raise ModelError(f"a model's kind is 'network', 'mechanism' or 'system', not "
                             f"{self.kind!r}")
        expected: tuple[type, ...] = (Network,)
        if self.kind != "network":   # the mechanism side, imported for mechanisms alone
            from .planar import Mechanism
            from .spatial import Mechanism as SpatialMechanism
            from .system import System

            expected = (System,) if self.kind == "system" else (Mechanism, SpatialMechanism)
        if not isinstance(self.system, expected):
            raise ModelError(f"a {self.kind} model holds a {holds[self.kind]}, "
                             f"got {type(self.system).__name__}")

    @property
    def network(self) -> Network:
        """The network of a network model (:attr:`system`, named for what it holds).

        Raises
        ------
        ModelError
            The model is a mechanism or a system.
        """
        self._need("network")
        return self.system

    @property
    def mechanism(self) -> Any:
        """The planar or spatial mechanism of a mechanism model, or of a system's
        (``model.mechanism.formulate()``).

        Raises
        ------
        ModelError
            The model is a network.
        """
        if self.kind == "system":
            return self.system.mechanism
        self._need("mechanism")
        return self.system

    @property
    def name(self) -> str:
        system = self.system
        return system.mechanism.name if self.kind == "system" else system.name

    @property
    def symbols(self) -> dict[str, sympy.Symbol]:
        """Declared parameter name -> its sympy symbol."""
        return {name: Symbol(name) for name in self.parameters}

    @property
    def values(self) -> dict[sympy.Symbol, float]:
        """Numeric values of the declared parameters that have one, by symbol."""
        return {Symbol(name): value for name, value in self.parameters.items() if value is not None}

    @property
    def element_values(self) -> dict[sympy.Symbol, float]:
        """The declared values the system's equations hold, by symbol: :attr:`values` less
        those that only serve the file's own expressions (a network input's amplitude; a
        mechanism's lengths and gravity, fixed when the file was read), which the
        formulations, simulations, equilibria and linearizations would refuse as no
        parameter of theirs.

        >>> import vecnet as vn
        >>> net = vn.Network("rc")
        >>> _ = net.add(vn.VoltageSource("Vs", "g", "a", V=1.0),
        ...             vn.Resistor("R", "a", "g", R=vn.Symbol("R")))
        >>> model = Model("network", net, parameters={"R": 2.0, "V0": 5.0})
        >>> model.element_values
        {R: 2.0}
        """
        values = self.values
        if isinstance(self.system, Network):
            held = {str(s) for s in self.system.parameter_symbols()}
        elif values and self.kind == "mechanism":
            held = self._held(self._equations())
        else:
            held = set()
        return {k: v for k, v in values.items() if str(k) in held}

    def _held(self, eom: Any) -> set[str]:
        """The names of the declared parameters the mechanism's equations hold."""
        exact = {k: sympy.Float(v) for k, v in self.values.items()}
        return {str(s) for s in eom.compile_model(exact).used} if exact else set()

    def state_space(self):
        """The network's :class:`~vecnet.formulation.lumped.StateSpace` for the file's tree
        and outputs, as the teaching path shows it: every parameter stays its symbol (numbers
        given to elements too); ``.subs(model.values)`` fills the declared values in."""
        self._need("network")
        return self.system.state_space(outputs=self.outputs, tree=self.tree or "normal",
                                       symbolic=True)

    def formulate(self):
        """The mechanism's :class:`~vecnet.formulation.planar.MultibodyEquations` (or, in
        space, :class:`~vecnet.formulation.spatial.SpatialEquations`) for the file's
        coordinates (or tree), which take the file's declared values for the parameters a
        call gives none for (``parameter_values``: ``eom.equilibrium()``, ``linearize``,
        ``steady_motion`` and ``simulate`` need no ``parameters=``); a system's
        :class:`~vecnet.formulation.coupled.CoupledModel`."""
        if self.kind == "system":
            return self.system.formulate(self.coordinates)
        self._need("mechanism")
        eom = self._equations()
        held = self._held(eom)
        # sympy numbers: the planar compiler substitutes them with xreplace
        eom.parameter_values = {k: sympy.Float(v) for k, v in self.values.items()
                                if str(k) in held}
        return eom

    def _equations(self) -> Any:
        return self.system.formulate(**self.formulation(self.coordinates, self.tree or None))

    def formulation(self, coordinates: str = "joint",
                    tree: str | list[str] | None = None) -> dict:
        """The arguments of a mechanism's ``formulate`` for ``coordinates`` or ``tree``, with
        the file's :attr:`speeds` where they are not the default (which a planar mechanism
        refuses)."""
        out: dict[str, Any] = {"coordinates": coordinates, "tree": tree}
        if self.speeds != "tail":
            out["speeds"] = self.speeds
        return out

    def simulate(self, t_span: Sequence[float] | None = None, points: int | None = None,
                 progress: Callable[[float], None] | None = None, **options: Any):
        """Simulate with the file's settings (or the ``t_span`` and ``points`` given) by
        :func:`vecnet.simulate`; declared parameter values are applied. ``progress`` is
        called with the time reached as the integration goes on; the other ``options`` of
        :func:`vecnet.simulate` win over the file's settings, but ``parameters`` are put
        over the declared values (those not named keep theirs). Returns a
        :class:`~vecnet.numerics.result.Result`.

        Raises
        ------
        UnknownNameError
            ``parameters`` names a parameter the model has not, or for a mechanism one its
            equations do not hold (a length fixed when the file was read: set it with
            ``load_model(..., parameters=...)``); the message lists the known ones.
        """
        return public("simulate")(self, t_span, points=points, progress=progress, **options)

    def check_given(self, given: dict[str, Any], known: set[str], which: str) -> None:
        """Refuse given parameter names outside ``known``, listing those."""
        unknown = sorted(set(given) - known)
        if unknown:
            fixed = [name for name in unknown if name in self.parameters]
            hint = (f"; {', '.join(map(repr, fixed))} shaped the model when the file was read: "
                    "set it with load_model(..., parameters=...) or vecnet --param"
                    if fixed else "")
            raise UnknownNameError(
                f"{self.kind} {self.name!r} has no parameter(s) "
                f"{', '.join(map(repr, unknown))} to simulate with; the parameters {which} "
                f"are {', '.join(sorted(known)) or 'none'}{hint}")

    def _need(self, kind: str) -> None:
        if self.kind != kind:
            raise ModelError(f"model {self.name!r} is a {self.kind}, not a {kind}: its "
                             f"{self.kind} is model.{'system' if self.kind == 'system' else self.kind}")


def time_function(expr: sympy.Expr, name: str) -> float | Callable[[float], float]:
    """A number, or a numeric function of t: the simulator then takes slopes by finite
    differences instead of differentiating steps and kinks into delta functions."""
    expr = sympy.sympify(expr)
    if expr.free_symbols - {t}:
        raise ModelError(f"input {name!r}: {expr} needs values for "
                         f"{', '.join(sorted(map(str, expr.free_symbols - {t})))}")
    if not expr.free_symbols:
        return float(expr)
    fn = sympy.lambdify(t, expr, modules="numpy")

    def value(time: float) -> float:
        v = fn(time)
        if isinstance(v, complex) or np.iscomplexobj(v):  # sqrt(t) before t = 0, log(-1)
            if v.imag != 0:
                raise SimulationError(f"input {name!r} = {expr} has no real value at "
                                      f"t = {time:g} (the slope of an input is taken from its "
                                      "values on both sides of each time)")
            v = v.real
        return float(v)

    value.expression = expr  # type: ignore[attr-defined]  # where the integrator finds the signal's switching times
    return value


