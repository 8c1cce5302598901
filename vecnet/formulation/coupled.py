"""Mixed-domain systems: lumped networks and signal blocks driving a mechanism.

One formulation of the whole: the mechanism's equations of motion (branch
coordinates, loop constraints, ``M u' = Q + Phi_u^T lambda`` with ``q' = N(q) u``), the
state equations of the lumped network in which every port is an across source driven
by its joint's rate, and the signal blocks. The through variable of each port
(the torque or force the network applies across its joint) is a load on the
mechanism. Everything outside the mechanism is compiled into one function of
``(t, q, u, x, z)`` returning the rates of the lumped states ``x`` and block
states ``z`` and the loads, and integrated with the mechanism on the same two
paths as a mechanism alone. Planar and spatial mechanisms couple alike: what a port
works on (a joint's angle about or distance along its axis, or the distance between two
points) and what a sensor reads come from the mechanism's equations.
"""

from __future__ import annotations

import contextlib
import numbers
import re
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import sympy
from sympy.utilities.lambdify import implemented_function

from ..builders.system import System, load_target
from ..core.forwards import public
from ..elements.base import t
from ..elements.coupling import Port, RotaryPort
from ..errors import FormulationError, ModelError, UnknownNameError, VecnetError
from .linear_model import LinearModel

__all__ = ["System", "CoupledModel", "LinearModel"]


class _Signals:
    """A coupled system's signals in the mechanism's coordinates and speeds, the blocks'
    states and time: block outputs put in, sensors read through the mechanism."""

    def __init__(self, eom, system: System, block_states: list,
                 parameters: Sequence[sympy.Symbol] = ()) -> None:
        self.eom = eom
        self.outputs = {sympy.Symbol(b.name, real=True): b.output for b in system.blocks}
        self.known = {t} | set(eom.q) | set(eom.u) | set(block_states) | set(parameters)
        #: sensor symbol -> its value in the coordinates and speeds, for those signals read
        self.measured: dict[sympy.Symbol, sympy.Expr] = {}

    def __call__(self, expr, what: str) -> sympy.Expr:
        """``expr`` in the known quantities; refused naming any signal it cannot read."""
        expr = sympy.sympify(expr).xreplace(self.outputs)
        for symbol in expr.free_symbols - self.known - set(self.measured):
            try:
                self.measured[symbol] = self.eom.measure(str(symbol))
            except VecnetError:
                continue   # reported below with the other unknown signals
        expr = expr.xreplace(self.measured)
        unknown = expr.free_symbols - self.known
        if unknown:
            raise ModelError(f"{what}: unknown signal(s) {', '.join(sorted(map(str, unknown)))}; "
                             "use time t, sensors (system.sensor) and block outputs")
        return expr


class CoupledModel:
    """The formulated mixed-domain system.

    Attributes
    ----------
    eom : MultibodyEquations or SpatialEquations
        The mechanism, with a load symbol across every port's joint. A network inertia
        that turns rigidly with a port's joint (through gears) is a rotor of that joint:
        ``eom.M`` holds it, reflected through the ratio (``J / N^2`` behind a
        :class:`~vecnet.GearPair` of speed ratio ``N``), and the network still reports its
        speed and torque.
    loads : dict
        ``"<port>.load"`` symbol -> the torque or force the network applies there.
    lumped : StateSpace
        The network's state equations (ports are inputs driven by joint rates).
    states : tuple of str
        Lumped states then block states, by name.
    runtime_names : tuple of str
        Parameters kept as arguments of the compiled functions (symbols of the network,
        the blocks, the signals and the mechanism), their values set by :meth:`bind`
        for each evaluation: a parameter study formulates and compiles once.
    """

    def __init__(self, system: System, coordinates: str = "joint",
                 runtime: Sequence[str] = ()) -> None:
        self.system = system
        self.coordinates = coordinates
        self.runtime_names = tuple(str(name) for name in runtime)
        self._runtime = [sympy.Symbol(name, real=True) for name in self.runtime_names]
        self._p = np.full(len(self._runtime), np.nan)
        self.lumped = self._network_equations(system)
        # the element values put in, but for the runtime parameters'
        lumped = self.lumped.subs({k: v for k, v in self.lumped.values.items()
                                   if str(k) not in self.runtime_names}) \
            if self.lumped is not None else None
        ports = {sympy.Symbol(f"{p.name}.rate", real=True): p for p in system.ports}
        #: the derivative of each port's rate: the acceleration of its joint
        accelerations = {d: ports[u] for u, d in zip(lumped.u, lumped.du)
                         if u in ports} if lumped is not None else {}
        raw_loads = [lumped.output(f"{p.name}.through") for p in system.ports] if lumped else []
        loads = {load_target(p): sympy.Symbol(f"{p.name}.load", real=True) for p in system.ports}
        self.eom = system.mechanism.formulate(
            coordinates, joint_loads=loads,
            rotors=_rotor_inertias(system.ports, raw_loads, accelerations))
        block_states = [s for b in system.blocks for s in b.states]
        signals = _Signals(self.eom, system, block_states, self._runtime)
        replacement, offsets = self._network_inputs(lumped, ports, signals)
        x = list(lumped.x) if lumped else []
        self.states = tuple(list(lumped.states if lumped else ()) + [str(s) for s in block_states])
        self.initial_states = np.array([0.0] * len(x)
                                       + [v for b in system.blocks for v in b.initial])
        rates = [e.xreplace(replacement) for e in (lumped.f if lumped else [])]
        rates += [signals(r, f"block {b.name!r}") for b in system.blocks for r in b.rates]
        # a rotor's inertia torque is in the mass matrix: the loads keep the rest
        no_acceleration = {d: 0 for d in accelerations}
        load_exprs = [e.xreplace(no_acceleration).xreplace(replacement) for e in raw_loads]
        du = set(lumped.du) if lumped else set()
        if any(e.free_symbols & du for e in rates + load_exprs):
            raise FormulationError("the network differentiates an input (a derivative of a "
                                   "source, or an acceleration of the mechanism in a state "
                                   "equation); make the source a smooth signal or model that "
                                   "store as a body of the mechanism")
        #: each port's load on the mechanism (``"<port>.load"``) in ``t``, ``q``, ``u`` and the
        #: states; a rotor's inertia torque is not in it but in ``eom.M`` and ``eom.Q``
        no_offsets = {o: 0 for o in offsets}
        self.loads = {loads[load_target(p)]: e.xreplace(no_offsets)
                      for p, e in zip(system.ports, load_exprs)}
        #: the symbols of the lumped and block states (named by :attr:`states`) and their
        #: rates in ``t``, ``q``, ``u`` and the states, the inputs at their own signals
        self.state_symbols = tuple(x + block_states)
        self.state_rates = tuple(e.xreplace(no_offsets) for e in rates)
        self._compile(lumped, replacement, accelerations, x + block_states, offsets, rates,
                      load_exprs, signals)

    @staticmethod
    def _network_equations(system: System):
        """The network's state equations (``None`` without a network), refused when
        algebraic loops are left in them."""
        lumped = system.network.state_space() if system.network.elements else None
        if lumped is not None and lumped.z:
            raise FormulationError("the network keeps algebraic loops "
                                   f"({', '.join(lumped.z_names)}); coupled simulation needs "
                                   "explicit state equations")
        return lumped

    def _network_inputs(self, lumped, ports: dict, signals: _Signals) -> tuple[dict, list]:
        """What drives each input of the network: a port's joint rate, a connected signal
        or its source's own value; those not driven by ports also take an offset (a
        symbol: a linear model's input). Sets :attr:`inputs`; returns the replacement of
        every input symbol and the offsets' symbols."""
        system, eom = self.system, self.eom
        names, symbols = (lumped.inputs, lumped.u) if lumped is not None else ((), ())
        unknown = set(system.connect) - set(names)
        if unknown:
            raise UnknownNameError(f"connect names no input(s) {', '.join(sorted(unknown))}"
                                   f"; the network's inputs are {', '.join(names) or 'none'}")
        #: the network inputs not driven by ports: a linear model takes them as its inputs
        self.inputs = tuple(name for name, symbol in zip(names, symbols) if symbol not in ports)
        offsets = {name: sympy.Symbol(f"_offset{k}", real=True)
                   for k, name in enumerate(self.inputs)}
        replacement = {}
        for name, symbol in zip(names, symbols):
            if symbol in ports:
                replacement[symbol] = eom.load_rate(load_target(ports[symbol]))
            elif name in system.connect:
                replacement[symbol] = signals(system.connect[name], f"input {name!r}") \
                    + offsets[name]
            else:
                replacement[symbol] = _time_signal(lumped.signals.get(name), name) + offsets[name]
        return replacement, list(offsets.values())

    def _compile(self, lumped, replacement: dict, accelerations: dict, states: list,
                 offsets: list, rates: list, load_exprs: list, signals: _Signals) -> None:
        """The numeric functions: the states' rates and the loads (:meth:`extra`), and every
        network variable and block output (:meth:`outputs`), the latter reading the joint
        accelerations where a rotor's torque flows."""
        eom = self.eom
        self._accelerations = [sympy.Symbol(f"_a{k}", real=True) for k in range(len(eom.u))]
        for d, port in accelerations.items():
            rate = eom.load_rate(load_target(port))
            replacement[d] = eom.rate(rate) + sum(
                (rate.diff(u) * a for u, a in zip(eom.u, self._accelerations)), sympy.S.Zero)
        args = (t, list(eom.q), list(eom.u), states, offsets)
        self.no_offsets = np.zeros(len(offsets))
        self._nrates = len(rates)
        names = list(lumped.variable_names) if lumped else []
        exprs = [lumped.output(n).xreplace(replacement) for n in names]
        names += [b.name for b in self.system.blocks]
        exprs += [signals(b.output, f"block {b.name!r}") for b in self.system.blocks]
        self.output_names = names
        canonical = {s: self._runtime[self.runtime_names.index(str(s))]
                     for e in rates + load_exprs + exprs for s in e.free_symbols
                     if str(s) in self.runtime_names}
        rates, load_exprs, exprs = ([e.xreplace(canonical) for e in group]
                                    for group in (rates, load_exprs, exprs))
        #: the names of the runtime parameters the network, blocks and signals hold
        self.network_parameters = {str(s) for s in canonical.values()}
        # kept as expressions: pickled models compile them again (:meth:`__setstate__`)
        self._specs = {"_ext": (args, rates + load_exprs),
                       "output_function": (args + (self._accelerations,), exprs)}
        self._lambdify()
        if self.runtime_names:
            self._check_runtime()

    def _lambdify(self) -> None:
        """The numeric functions of :attr:`_specs`; runtime parameters are appended to their
        arguments, with the values :meth:`bind` set."""
        for name, (args, exprs) in self._specs.items():
            if not exprs and name == "output_function":
                self.output_function = None
                continue
            if not self._runtime:
                setattr(self, name, sympy.lambdify(args, exprs, modules="numpy", cse=True))
                continue
            fn = sympy.lambdify(args + (self._runtime,), exprs, modules="numpy", cse=True)
            setattr(self, name, lambda *a, fn=fn: fn(*a, self._p))

    def _check_runtime(self) -> None:
        """Refuse runtime parameters neither the mechanism nor the rest of the system holds
        (compiling the mechanism's :meth:`~vecnet.formulation.multibody.MechanismEquations.
        parametric` model on the way)."""
        mechanism = {str(s) for s in
                     self.eom.parametric(self.runtime_names, strict=False).used}
        unknown = [name for name in self.runtime_names
                   if name not in self.network_parameters | mechanism]
        if unknown:
            others = {str(k) for k in self.lumped.values} if self.lumped is not None else set()
            raise UnknownNameError(
                f"system of mechanism {self.system.mechanism.name!r} has no parameter(s) "
                f"{', '.join(map(repr, unknown))}; its parameters are "
                f"{', '.join(sorted(mechanism | others | self.network_parameters)) or 'none'}")

    @contextlib.contextmanager
    def runtime_parameters(self, values: Mapping[str, float]) -> Iterator[CoupledModel]:
        """Within the block the model evaluates with the runtime parameters at ``values``
        (every one of :attr:`runtime_names`): the network's, the blocks' and the
        mechanism's (its :meth:`~vecnet.formulation.multibody.MechanismEquations.parametric`
        model, compiled once)."""
        missing = [name for name in self.runtime_names if name not in values]
        if missing:
            raise ModelError(f"no value for runtime parameter(s) {', '.join(missing)}")
        self._p = np.array([float(values[name]) for name in self.runtime_names])
        with self.eom.runtime_parameters({name: values[name] for name in self.runtime_names},
                                         strict=False):
            yield self

    def __getstate__(self) -> dict:
        # generated code does not pickle: the expressions do, compiled again when unpickled
        return {k: v for k, v in self.__dict__.items() if k not in ("_ext", "output_function")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lambdify()

    def extra(self, time, q, u, s, offsets=None):
        """Rates of the lumped and block states and the loads on the mechanism; ``offsets``
        are added to the inputs (:attr:`inputs`, default zero)."""
        offsets = self.no_offsets if offsets is None else offsets
        values = np.asarray(self._ext(time, q, u, s, offsets), dtype=float).reshape(-1)
        return values[:self._nrates], values[self._nrates:]

    def state_vector(self, initial: Mapping[str, float] | None = None) -> np.ndarray:
        """The lumped and block states (:attr:`states`) as one array: their initial values,
        with those named in ``initial`` replaced."""
        s0 = self.initial_states.copy()
        for name, value in (initial or {}).items():
            if name not in self.states:
                raise ModelError(f"no state {name!r}; states are {', '.join(self.states)}")
            s0[self.states.index(name)] = float(value)
        return s0

    def simulate(self, t_end: float, t_eval=None, **options):
        """Simulate the whole system from ``t = 0`` to ``t_end``: ``vn.simulate(model,
        (0, t_end), t_eval=t_eval, **options)`` (:func:`vecnet.simulate`, which starts at
        any time). The mechanism starts assembled (the scalar coordinates in
        ``coordinates`` held at the given values, the speeds in ``velocities`` as the
        mechanism's ``initial_speeds`` reads them, at rest unless told), the lumped and
        block states at ``initial`` (by name, default zero); ``method`` is
        ``"partition"`` or ``"dae"``. Returns a Result with every coordinate and speed,
        everything the mechanism reports (with the ports' loads on it), every network
        variable and every block output."""
        return public("simulate")(self, (0.0, t_end), t_eval=t_eval, **options)

    def equilibrium(self, time: float = 0.0):
        """A static equilibrium of the whole system, ``(q, s)``: :func:`vecnet.equilibrium`."""
        return public("equilibrium")(self, time)

    def linearize(self, point=None, time: float = 0.0, step: float = 1e-6,
                  outputs: Sequence[str] = ()) -> LinearModel:
        """The linear model about an equilibrium: :func:`vecnet.linearize`."""
        return public("linearize")(self, point, time, step, outputs)



def _rotor_inertias(ports: Sequence[Port], loads: Sequence[sympy.Expr],
                    accelerations: Mapping[sympy.Symbol, Port]) -> dict[str, sympy.Expr]:
    """The inertia each port's joint drives inside the network: a port's torque that grows
    with its own joint's acceleration, ``tau = tau_0 - J w'``, is the torque of a rotor of
    inertia ``J`` (a network inertia reflected through the gears and transformers between
    it and the port). Returns joint -> ``J``; raises FormulationError when a port's load
    depends on another port's acceleration or a linear port carries a mass."""
    rotors = {}
    for port, load in zip(ports, loads):
        for d, other in accelerations.items():
            coefficient = load.diff(d)
            if coefficient == 0:
                continue
            if other is not port:
                raise FormulationError(f"ports {port.name!r} and {other.name!r} share an inertia "
                                       "of the network; model that inertia as a body of the "
                                       "mechanism")
            if not isinstance(port, RotaryPort):
                raise FormulationError(f"port {port.name!r} drives a mass of the network; model "
                                       "that mass as a body of the mechanism")
            rotors[port.joint] = -coefficient
    return rotors


def _time_signal(value, name: str) -> sympy.Expr:
    if value is None:
        raise ModelError(f"input {name!r} has no value: give its source a value or connect it")
    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, numbers.Real):
        return sympy.Float(value)
    if callable(value):
        # a valid identifier for the generated code; vectorized for whole time series
        label = re.sub(r"\W", "_", name) + "_signal"
        return implemented_function(sympy.Function(label),
                                    np.vectorize(value, otypes=[float]))(t)
    raise ModelError(f"input {name!r}: cannot use {value!r} as a signal")
