"""What planar and spatial vector-network formulations share.

Both dimensions pick the coordinates the same way (the tree: arms first, then joints or
bodies by the ``coordinates`` choice), walk the tree breadth-first from the datum, and
turn the compiled model into assembly, simulation, inverse dynamics, equilibria and
linear models by the dimension-free algorithms of :mod:`vecnet.numerics.multibody`. A
formulation of one dimension adds its frame algebra (the node poses along the tree and
the circuit constraints of the cut joints) and its compiled model.
"""

from __future__ import annotations

import contextlib
import math
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from types import MappingProxyType
from typing import Any, Callable

import networkx as nx
import numpy as np
import scipy.linalg
import sympy

from ..builders.mechanism import DATUM
from ..core.bounds import check_oscillation, get_limits
from ..core.later import later
from ..elements.base import Kind, t
from ..elements.joint_laws import StopLaw
from ..errors import FormulationError, ModelError, UnknownNameError, VecnetError
from ..graph.topology import Topology

__all__ = ["MechanismEquations", "OperatingPoint", "Linearization", "StateLinearization",
           "choose_topology",
           "tree_walk", "check_point_pair", "point_nodes", "sensor_reading"]


#: the order in which a formulation picks the tree's branches, by the elements' roles
#: (:meth:`~vecnet.elements.base.MechanismElement.tree_rank`)
TREE_ORDERS = {
    "joint": {"arm": 0, "joint": 1, "mass": 2, "force": 3},
    "absolute": {"arm": 0, "mass": 1, "joint": 2, "force": 3},
}


def choose_topology(mechanism, coordinates: str, tree: list[str] | None) -> Topology:
    """The mechanism's topology with the tree ``tree`` (edge names) or, when it is
    ``None``, the tree the ``coordinates`` choice ranks first (:data:`TREE_ORDERS`).

    Raises
    ------
    FormulationError
        For an unknown ``coordinates``, or an element that is never a branch (motion
        drivers, stops, gears: constraints without coordinates of their own) named in
        ``tree``.
    ModelError
        When parts of the mechanism are joined to nothing.
    """
    if coordinates not in TREE_ORDERS and tree is None:
        raise FormulationError(f"coordinates must be 'joint' or 'absolute' (or give tree=[...]); "
                               f"got {coordinates!r}")
    net = mechanism.network
    choice: Any = tree
    if tree is None:
        order = TREE_ORDERS[coordinates]
        choice = lambda edge: net.owner(edge).tree_rank(order)  # noqa: E731
    else:
        refused = [b for b in tree if net.owner(b).cotree_only]
        if refused:
            raise FormulationError(f"{', '.join(refused)} constrain(s) motion without "
                                   "coordinates of their own (motion drivers, gears, "
                                   "rolling wheels): they "
                                   "belong in the cotree")
    topo = net.topology(tree=choice, datum=DATUM)
    if len(topo.components) > 1:
        loose = [c for c in topo.components if DATUM not in c]
        raise ModelError("parts of the mechanism are joined to nothing: "
                         + "; ".join(", ".join(map(str, c)) for c in loose))
    return topo


def tree_walk(eom: MechanismEquations) -> list[tuple]:
    """The tree in breadth-first order from the datum: ``(here, there, branch, forward,
    coordinate positions)`` for every branch, ``forward`` when it points away from the datum."""
    net, topo = eom.mechanism.network, eom.topology
    start, where = 0, {}
    for branch in topo.branches:
        k = len(net.element(branch).coordinates)
        where[branch] = list(range(start, start + k))
        start += k
    tree = nx.MultiGraph()
    tree.add_node(DATUM)
    tree.add_edges_from((*net.graph.ends(b), b) for b in topo.branches)
    walk = []
    for here, there in nx.bfs_edges(tree, DATUM):
        branch = next(iter(tree[here][there]))
        walk.append((here, there, branch, net.graph.ends(branch)[0] == here, where[branch]))
    return walk


def point_nodes(mechanism) -> set[str]:
    """Names of the mechanism's points: the ground, the mass centres and body points."""
    return {DATUM} | set(mechanism.bodies) | {
        str(v) for v in mechanism.network.graph.nodes if "." in str(v)}


def check_point_pair(mechanism, points: tuple[str, str]) -> None:
    """Refuse a pair of points that are not two points of different bodies (a load between
    points of one body does nothing).

    Raises
    ------
    ModelError
        Naming the missing points, or the body both points are on.
    """
    missing = [p for p in points if p not in point_nodes(mechanism)]
    if missing:
        raise ModelError(f"no point(s) {', '.join(map(repr, missing))} in mechanism "
                         f"{mechanism.name!r}; points are named '<body>.<point>' (e.g. "
                         "'ground.p1') or by their body for the mass centre")
    bodies = {p.split(".")[0] for p in points}
    if len(bodies) == 1:
        raise ModelError(f"points {points[0]!r} and {points[1]!r} are both on "
                         f"{bodies.pop()!r}: their distance never changes")


def sensor_reading(mechanism, name: str) -> tuple:
    """What the sensor ``name`` reads, checked against the mechanism:

    * ``("position", node, i)`` and ``("velocity", node, i)`` for ``"<body>.x"``,
      ``"<body>.vx"`` ... and ``"<point>.x"`` ... (component ``i``; ``x, y`` in the plane,
      ``x, y, z`` in space; points are named ``"<body>.<name>"``);
    * ``("frame", body, quantity)`` for the body frame's quantities the builder lists in
      ``frame_quantities`` (``angle``, ``omega`` in the plane; ``wx, wy, wz`` in space);
    * ``("joint", joint, coordinate, derivative)`` for ``"<joint>.angle"`` or
      ``"<joint>.distance"`` (the joint's coordinates about or along its axis) and their
      rates ``"<joint>.angle'"`` ...; ``"<joint>.rate"`` is the rate of a joint's only such
      coordinate, and ``"<joint>.angle"`` also names a prismatic joint's distance.

    Raises
    ------
    UnknownNameError
        When nothing of the mechanism has the name's first part.
    ModelError
        When it has no such quantity.

    Examples
    --------
    >>> import vecnet as vn
    >>> mech = vn.spatial.Mechanism("m")
    >>> bob = mech.body("bob", 1.0, (0.1, 0.1, 0.1))
    >>> _ = mech.cylindrical("C", mech.ground.centre, bob.centre)
    >>> sensor_reading(mech, "C.distance'"), sensor_reading(mech, "bob.vz")
    (('joint', 'C', 'distance', True), ('velocity', 'bob', 2))
    """
    head, _, what = name.rpartition(".")
    axes = "xyz"[:mechanism.dimensions]
    vectors = "|".join(list(axes) + [f"v{a}" for a in axes])
    is_body, is_point = head in mechanism.bodies, "." in head and head in point_nodes(mechanism)
    if is_body or is_point:
        if what in axes:
            return ("position", head, axes.index(what))
        if what[:1] == "v" and what[1:] in axes:
            return ("velocity", head, axes.index(what[1:]))
        if is_body and what in mechanism.frame_quantities:
            return ("frame", head, what)
        if is_body:
            raise ModelError(f"sensor {name!r}: bodies measure '<body>."
                             f"{vectors}|{'|'.join(mechanism.frame_quantities)}'")
        raise ModelError(f"sensor {name!r}: points measure '<point>.{vectors}'")
    try:
        coordinates = mechanism.axial_coordinates(head)
    except UnknownNameError:
        raise UnknownNameError(f"sensor {name!r}: the mechanism has no joint or body "
                               f"{head!r}") from None
    base, derivative = (what[:-1], True) if what.endswith("'") else (what, False)
    if len(coordinates) == 1 and what == "rate":
        return ("joint", head, coordinates[0], True)
    if len(coordinates) == 1 and base == "angle":   # the older name of a slider's distance
        return ("joint", head, coordinates[0], derivative)
    if base in coordinates:
        return ("joint", head, base, derivative)
    raise ModelError(f"sensor {name!r}: joints measure <joint>.angle or <joint>.distance, "
                     "their rates <joint>.angle' and <joint>.distance', or <joint>.rate ("
                     + mechanism.joints_with("angle") + " joints turn; "
                     + mechanism.joints_with("distance") + " joints slide)"
                     + (f"; {head!r} has {' and '.join(coordinates)}" if coordinates
                        else f"; {head!r} is a {type(mechanism.network.element(head)).__name__}"))


def _lacks_inertia(element) -> bool:
    """Whether ``element`` is a body without mass or without inertia about some axis (its
    numbers zero; a symbol is taken to have a value that is not)."""
    m, J = getattr(element, "m", None), getattr(element, "J", None)
    if element.kind is not Kind.ACROSS_STORE or m is None or J is None:
        return False
    J = J.det() if isinstance(J, sympy.MatrixBase) else sympy.sympify(J)
    return bool(sympy.sympify(m).is_zero or J.is_zero)


def _massless(element) -> bool:
    """Whether ``element`` is a body whose mass and inertia are both the number zero."""
    values = [getattr(element, "m", None), getattr(element, "J", None)]
    if element.kind is not Kind.ACROSS_STORE or any(v is None for v in values):
        return False
    return all(sympy.sympify(x).is_zero for v in values
               for x in (v if isinstance(v, sympy.MatrixBase) else [v]))


def _first(f: Callable) -> Callable[[np.ndarray], float]:
    """``f(q)[0]`` as a float: the value of a compiled one-entry function."""
    return lambda q: float(f(q)[0])


def _finite_real(value) -> bool:
    """Whether ``value`` is a finite real number (a Python, numpy or sympy one; not a
    boolean, a string or a complex number)."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, sympy.Basic):
        return bool(value.is_number and value.is_real and value.is_finite)
    return isinstance(value, numbers.Real) and bool(np.isfinite(float(value)))


class OperatingPoint:
    """A static equilibrium or a nominal motion: coordinates ``q``, multipliers ``lam`` and,
    for a motion, speeds ``u`` and accelerations ``a``; ``point[name]`` reads any quantity a
    simulation reports (coordinates, body poses, joint angles, reactions)."""

    def __init__(self, eom: MechanismEquations, q, lam, time: float, u=None, a=None) -> None:
        self.eom, self.q, self.lam, self.time = eom, np.asarray(q), np.asarray(lam), time
        self.u = None if u is None else np.asarray(u, dtype=float)
        self.a = None if a is None else np.asarray(a, dtype=float)

    @cached_property
    def values(self) -> dict[str, np.ndarray]:
        nu = len(self.eom.u)
        u = (np.zeros(nu) if self.u is None else self.u).reshape(nu, 1)
        series = self.eom.outputs(self.eom.compile(), [self.time], self.q.reshape(-1, 1), u)
        return {name: value[0] for name, value in series.items()}

    def __getitem__(self, name: str):
        if name in self.eom.coordinates:
            return float(self.q[self.eom.coordinates.index(name)])
        try:
            value = self.values[name]
        except KeyError:
            raise UnknownNameError(f"no quantity {name!r} at this operating point") from None
        return float(value) if np.ndim(value) == 0 else value

    def __repr__(self) -> str:
        pairs = ", ".join(f"{n}={v:.6g}" for n, v in zip(self.eom.coordinates, self.q))
        return f"<OperatingPoint {pairs}>"

    def _repr_latex_(self) -> str | None:
        """``$$`` + :func:`vecnet.output.teaching.latex` + ``$$``, for notebooks (``None`` when too
        large to typeset)."""
        repr_latex = later("vecnet.output.teaching").repr_latex

        return repr_latex(self)


class Linearization:
    """``M z'' + C z' + K z = B w`` in independent coordinates ``z`` (``q - q* = basis z``),
    with the inputs ``w`` named by ``inputs`` and the displacements ``basis z`` by
    ``outputs``.

    ``z`` is named by :attr:`coordinates`: a ``z_j`` that some output equals alone (a row of
    ``basis`` that is the unit row ``e_j``: the pendulum's ``pin.angle``, a four-bar's crank
    angle when the linearization keeps it independent) bears that output's name; one that
    no output equals alone (a basis mixing several coordinates, as an orthonormal basis of
    the constraints' null space does) is ``"z<j>"``, counted from 1.

    >>> lin = Linearization(np.eye(1), np.zeros((1, 1)), 4 * np.eye(1), np.eye(1),
    ...                     np.zeros((1, 0)), (), ["pin.angle"])
    >>> lin.coordinates, lin.states
    (('pin.angle',), ('pin.angle', "pin.angle'"))
    """

    def __init__(self, M, C, K, basis, B, inputs, outputs=()) -> None:
        self.M, self.C, self.K, self.basis = M, C, K, basis
        self.B, self.inputs, self.outputs = B, tuple(inputs), tuple(outputs)

    @property
    def coordinates(self) -> tuple[str, ...]:
        """The names of the independent coordinates ``z`` (see the class)."""
        basis = np.asarray(self.basis, dtype=float)
        d = basis.shape[1]
        names = []
        for j in range(d):
            alone = [k for k in range(basis.shape[0]) if k < len(self.outputs)
                     and np.allclose(basis[k], np.eye(d)[j], rtol=0.0, atol=1e-12)]
            names.append(self.outputs[alone[0]] if alone else f"z{j + 1}")
        return tuple(names)

    @property
    def states(self) -> tuple[str, ...]:
        """The names of the state ``x = (z, z')`` of :meth:`state_space`: each of
        :attr:`coordinates`, then its rate (``"pin.angle'"``)."""
        names = self.coordinates
        return names + tuple(f"{n}'" for n in names)

    def with_generalized_forces(self) -> Linearization:
        """The model itself when it has inputs; else the same model driven by the
        generalized forces on its independent coordinates (``B`` the identity), named
        ``"Q_<coordinate>"`` (``"Q_pin.angle"``; ``"Q_z1"`` for a ``z`` that is no coordinate
        alone): python-control and the Bode and step commands need an input.

        >>> free = Linearization(np.eye(1), np.zeros((1, 1)), 4 * np.eye(1), np.eye(1),
        ...                      np.zeros((1, 0)), (), ["pin.angle"])
        >>> free.with_generalized_forces().inputs
        ('Q_pin.angle',)
        """
        if self.B.shape[1]:
            return self
        d = self.M.shape[0]
        return Linearization(self.M, self.C, self.K, self.basis, np.eye(d),
                             [f"Q_{name}" for name in self.coordinates], self.outputs)

    def state_space(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(A, B, C, D)`` of ``x = (z, z')`` (named by :attr:`states`): ``x' = A x + B w``
        and the outputs ``y = C x``, the displacements ``basis z`` named by :attr:`outputs`
        (the coordinates, or for quaternion speeds the small rotations about their axes)."""
        d, k = self.M.shape[0], self.B.shape[1]
        A = np.block([[np.zeros((d, d)), np.eye(d)],
                      [-np.linalg.solve(self.M, self.K), -np.linalg.solve(self.M, self.C)]])
        B = np.vstack([np.zeros((d, k)), np.linalg.solve(self.M, self.B)])
        C = np.hstack([self.basis, np.zeros_like(self.basis)])
        return A, B, C, np.zeros((C.shape[0], k))

    def to_control(self):
        """The linear model as a python-control ``StateSpace`` (signal names with ``:`` for
        ``.``): the states :attr:`states`, the inputs, the displacements. A model without
        inputs (python-control has no system of outputs alone) gets the generalized forces
        on its independent coordinates (:meth:`with_generalized_forces`).

        >>> lin = Linearization(np.eye(1), np.zeros((1, 1)), 4 * np.eye(1), np.eye(1),
        ...                     np.eye(1), ["T"], ["pin.angle"])
        >>> float(lin.to_control().dcgain())
        0.25
        >>> free = Linearization(np.eye(1), np.zeros((1, 1)), 4 * np.eye(1), np.eye(1),
        ...                      np.zeros((1, 0)), (), ["pin.angle"])
        >>> free.to_control().input_labels, free.to_control().state_labels
        (['Q_pin:angle'], ['pin:angle', "pin:angle'"])
        """
        from .lumped import control_state_space

        model = self.with_generalized_forces()
        outputs = self.outputs or [f"y{i + 1}" for i in range(self.basis.shape[0])]
        return control_state_space(*model.state_space(), self.states, model.inputs, outputs)

    def eigenvalues(self) -> np.ndarray:
        """Eigenvalues of the first-order system, sorted by imaginary part."""
        ev = np.linalg.eigvals(self.state_space()[0])
        return ev[np.lexsort((ev.real, ev.imag))]

    def natural_frequencies(self) -> np.ndarray:
        """Undamped natural frequencies (rad/s): square roots of the eigenvalues of
        ``M^-1 K``, ascending. A negative eigenvalue (an unstable equilibrium, e.g. an
        inverted pendulum) gives a negative entry ``-sqrt(-lambda)``: the rate at which
        that mode diverges, ``exp(sqrt(-lambda) t)``.

        >>> lin = Linearization(np.eye(2), np.zeros((2, 2)), np.diag([4.0, -9.0]),
        ...                     np.eye(2), np.zeros((2, 0)), ())
        >>> lin.natural_frequencies().tolist()
        [-3.0, 2.0]
        """
        ev = np.sort(np.real(scipy.linalg.eigvals(self.K, self.M)))
        return np.sign(ev) * np.sqrt(np.abs(ev))

    def damping_ratios(self) -> np.ndarray:
        """``-Re(s)/|s|`` of the oscillatory eigenvalues (upper half plane)."""
        ev = self.eigenvalues()
        up = ev[ev.imag > 0]
        return -up.real / np.abs(up)

    def _repr_latex_(self) -> str | None:
        """``$$`` + :func:`vecnet.output.teaching.latex` + ``$$``, for notebooks (``None`` when too
        large to typeset)."""
        repr_latex = later("vecnet.output.teaching").repr_latex

        return repr_latex(self)


def kept_states(A: np.ndarray, C: np.ndarray, states: Sequence[str], outputs: Sequence[str],
                keep: Sequence[str], tolerance: float) -> tuple[list[int], list[int]]:
    """The indices of the states ``keep`` and of the outputs they alone give, for a
    first-order model ``x' = A x + ...``, ``y = C x + ...`` reduced to them: the states
    dropped must not act on those kept (their columns of ``A`` in the kept rows zero, to
    ``tolerance`` relative to the largest entry of the kept block: what a linearization's
    differences leave of a structural zero), and an output that reads a dropped state goes
    with it.

    Raises
    ------
    UnknownNameError
        A name that is no state.
    FormulationError
        A dropped state that acts on a kept one (naming both and the entry), or no state
        kept.
    """
    unknown = [name for name in keep if name not in states]
    if unknown:
        raise UnknownNameError(f"no state {unknown[0]!r}; the states are {', '.join(states)}")
    if not keep:
        raise FormulationError("reduce needs at least one state to keep")
    kept = [states.index(name) for name in dict.fromkeys(keep)]
    dropped = [k for k in range(len(states)) if k not in kept]
    A, C = np.asarray(A, dtype=float), np.asarray(C, dtype=float)
    scale = max(float(np.max(np.abs(A[np.ix_(kept, kept)]), initial=0.0)), 1e-300)
    coupling = np.abs(A[np.ix_(kept, dropped)])
    if coupling.size and coupling.max() > tolerance * scale:
        i, j = np.unravel_index(np.argmax(coupling), coupling.shape)
        raise FormulationError(
            f"{states[dropped[j]]} acts on {states[kept[i]]} (A = {A[kept[i], dropped[j]]:.3g}, "
            f"more than {tolerance:g} of the kept block's largest entry): keep it too")
    reads = np.abs(C[:, dropped]).max(axis=1, initial=0.0) if C.size else np.zeros(0)
    readable = [k for k in range(len(outputs))
                if reads[k] <= tolerance * max(float(np.abs(C[k]).max(initial=0.0)), 1e-300)]
    return kept, readable


class StateLinearization:
    """``x' = A x + B w``, ``q - q* = C x``: the first-order linear model of a mechanism
    with velocity (nonholonomic) constraints
    (:func:`vecnet.numerics.multibody.linear_state_model`), whose state ``x`` holds its independent coordinates and, fewer
    of them, its independent speeds, named by :attr:`states`; the inputs ``w`` are named
    by :attr:`inputs`, the outputs (every coordinate) by :attr:`outputs`.

    >>> lin = StateLinearization(np.array([[0.0, 1.0], [-4.0, 0.0]]), np.zeros((2, 0)),
    ...                          np.eye(1, 2), ["a", "a'"], (), ["a"])
    >>> np.round(lin.eigenvalues(), 12).tolist()
    [-2j, 2j]
    """

    def __init__(self, A, B, C, states, inputs, outputs) -> None:
        self.A, self.B, self.C = np.asarray(A), np.asarray(B), np.asarray(C)
        self.states, self.inputs, self.outputs = tuple(states), tuple(inputs), tuple(outputs)

    def state_space(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(A, B, C, D)``: ``x' = A x + B w``, ``y = C x`` (``D`` zero)."""
        return self.A, self.B, self.C, np.zeros((self.C.shape[0], self.B.shape[1]))

    def reduce(self, states: Sequence[str], tolerance: float = 1e-9) -> StateLinearization:
        """The model of the ``states`` alone, in their order, when nothing dropped acts on
        them (:func:`kept_states`: a structural zero that the linearization's differences
        left at round-off is taken as the zero it is; a real coupling is refused); the
        outputs that read only them stay. The bicycle's lean and steer:
        ``lin.reduce(["lean.angle", "steer.angle", "lean.angle'", "steer.angle'"])``.

        >>> lin = StateLinearization(np.array([[0.0, 1.0, 0.0], [-4.0, 0.0, 1e-17],
        ...                                    [0.0, 0.0, 0.0]]), np.zeros((3, 0)),
        ...                          np.eye(1, 3), ["a", "a'", "drift"], (), ["a"])
        >>> small = lin.reduce(["a", "a'"])
        >>> small.states, small.A.tolist(), small.outputs
        (('a', "a'"), [[0.0, 1.0], [-4.0, 0.0]], ('a',))
        """
        kept, readable = kept_states(self.A, self.C, self.states, self.outputs, states,
                                     tolerance)
        return StateLinearization(self.A[np.ix_(kept, kept)], self.B[kept],
                                  self.C[np.ix_(readable, kept)],
                                  [self.states[k] for k in kept], self.inputs,
                                  [self.outputs[k] for k in readable])

    def eigenvalues(self) -> np.ndarray:
        """Eigenvalues of ``A``, sorted by imaginary part."""
        ev = np.linalg.eigvals(self.A)
        return ev[np.lexsort((ev.real, ev.imag))]

    def damping_ratios(self) -> np.ndarray:
        """``-Re(s)/|s|`` of the oscillatory eigenvalues (upper half plane)."""
        ev = self.eigenvalues()
        up = ev[ev.imag > 0]
        return -up.real / np.abs(up)

    def to_control(self):
        """The linear model as a python-control ``StateSpace`` (``:`` for ``.`` in names)."""
        from .lumped import control_state_space

        return control_state_space(*self.state_space(), self.states, self.inputs, self.outputs)


class MechanismEquations(ABC):
    """The dimension-free part of a mechanism's equations of motion,
    ``M(q) u' = Q(q, u, t) + Phi_u^T lambda`` with ``q' = N(q) u``.

    A subclass sets the attributes below and the class attribute ``driver`` (its
    motion-driver element class), and implements :meth:`initial_guess`, :meth:`axial`,
    :meth:`velocity`, :meth:`frame_quantity` and the symbolic ``M``, ``body_forces`` and
    ``applied_forces``.
    """

    driver: type
    mechanism: Any
    topology: Topology
    #: the names of the coordinates ``q`` and speeds ``u``, and the symbols themselves
    coordinates: tuple[str, ...]
    speed_names: tuple[str, ...]
    q: tuple[sympy.Symbol, ...]
    u: tuple[sympy.Symbol, ...]
    constraint_names: tuple[str, ...]
    #: the names of the velocity (nonholonomic) constraints, rows after the constraints'
    velocity_constraint_names: tuple[str, ...] = ()
    #: the tree in breadth-first order (:func:`tree_walk`)
    walk: list[tuple]
    gravity: sympy.Matrix
    #: values (by symbol) for parameters a call gives none for: a model file's declared
    #: values (:meth:`vecnet.Model.formulate`), so that ``eom.equilibrium()``,
    #: ``linearize``, ``steady_motion`` and ``simulate`` of a loaded model take its numbers
    parameter_values: Mapping = MappingProxyType({})

    # -- what each dimension provides -----------------------------------------------
    @property
    @abstractmethod
    def node_position(self) -> dict:
        """Every node's position in ``q``."""

    @property
    @abstractmethod
    def constraints(self) -> sympy.Matrix:
        """``Phi(q, t)``: the circuit equations of the cut joints and drivers."""

    @property
    @abstractmethod
    def body_forces(self) -> sympy.Matrix:
        """The bodies' generalized forces: gravity, velocity and gyroscopic terms."""

    @property
    @abstractmethod
    def applied_forces(self) -> sympy.Matrix:
        """The generalized forces of springs, dampers and drivers."""

    def compile_model(self, parameters: dict | None, runtime: Sequence[str] = (),
                      linear_algebra: str = "auto"):
        """A new compiled numeric model (:class:`vecnet.numerics.planar.CompiledMechanism`,
        :class:`vecnet.numerics.spatial.CompiledSpatial`); :meth:`compile` keeps one. The
        parameters named in ``runtime`` stay arguments of its compiled functions, their
        values set by its ``bind`` (:meth:`parametric`); ``linear_algebra`` tells how it
        solves the constrained equations (``"auto"``, ``"dense"``, ``"sparse"``:
        :attr:`~vecnet.numerics.mechanism.CompiledModel.solver`)."""
        compiled = (later("vecnet.numerics.planar").CompiledMechanism
                    if self.mechanism.dimensions == 2
                    else later("vecnet.numerics.spatial").CompiledSpatial)
        return compiled(self, parameters, runtime=tuple(runtime), linear_algebra=linear_algebra)

    def parametric(self, names: Sequence[str], parameters: dict | None = None,
                   strict: bool = True):
        """The compiled model whose parameters ``names`` are arguments of its compiled
        functions (the other ``parameters`` put in), compiled once for these names and
        values and kept: ``model.bind({"k": 2.0})`` sets numbers, nothing is compiled
        again. :meth:`runtime_parameters` makes every method of the equations use it.

        Raises
        ------
        UnknownNameError
            For a name no expression of the mechanism holds (unless not ``strict``: a
            coupled system's parameter may be the network's alone).

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
        >>> bob = mech.body("bob", mass=vn.Symbol("m"), inertia=0.0, position=(0, -1))
        >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
        >>> eom = mech.formulate()
        >>> eom.parametric(["m"]) is eom.parametric(["m"])
        True
        """
        names = tuple(str(name) for name in names)
        parameters = self._with_values(parameters, names)
        key = (names, frozenset((str(k), sympy.sympify(v)) for k, v in (parameters or {}).items()))
        store = self.__dict__.setdefault("_parametric", {})
        if key not in store:
            store[key] = self.compile_model(parameters or None, runtime=names)
        model = store[key]
        known = {str(s) for s in model.used}
        unknown = [name for name in names if name not in known]
        if unknown and strict:
            raise UnknownNameError(
                f"mechanism {self.mechanism.name!r} has no parameter(s) "
                f"{', '.join(map(repr, unknown))}; its parameters are "
                f"{', '.join(sorted(known)) or 'none'}")
        return model

    @contextlib.contextmanager
    def runtime_parameters(self, values: Mapping[str, float], parameters: dict | None = None,
                           strict: bool = True) -> Iterator[Any]:
        """Within the block, every method of the equations (:meth:`assemble`,
        :meth:`equilibrium`, :meth:`linearize`, :func:`vecnet.simulate` ...) evaluates the
        one :meth:`parametric` model of the names in ``values``, bound to ``values``:
        :meth:`compile` returns it for no parameters or for parameters among those names
        (which it binds). The block yields the model. A parameter study binds each case's
        numbers this way, compiling once; results read after the block, or after binding
        other values, see the values bound last.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
        >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(0, -1))
        >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
        >>> _ = mech.rotary_spring("k", mech.ground, bob, k=vn.Symbol("k"))
        >>> eom = mech.formulate()
        >>> with eom.runtime_parameters({"k": 0.19}):
        ...     lin = eom.linearize(eom.equilibrium())
        >>> round(float(lin.natural_frequencies()[0]) ** 2, 9)     # (m g l + k) / (m l^2)
        10.0
        """
        model = self.parametric(list(values), parameters, strict).bind(values)
        previous = self.__dict__.get("_active")
        self.__dict__["_active"] = model
        try:
            yield model
        finally:
            self.__dict__["_active"] = previous

    def __getstate__(self) -> dict:
        # compiled models hold generated code, which pickle cannot carry: compiled again
        # where the equations are unpickled
        return {k: v for k, v in self.__dict__.items()
                if k not in ("_compiled", "_parametric", "_active")}

    def outputs(self, model, times, qs, us, ws=None) -> dict[str, np.ndarray]:
        """Every named result at the given coordinates and speeds, ``ws`` holding the loads
        (:attr:`inputs`) at each time, default zero
        (:func:`vecnet.numerics.mechanism_outputs.outputs`; docs/conventions.md):

        * every coordinate and speed, by name;
        * every body's ``x, y`` (and ``z``), ``vx, vy`` (and ``vz``), ``position`` and
          ``velocity`` (n x 2 or n x 3), ``omega`` (world axes; in the plane a number),
          and its ``angle`` in the plane, its ``orientation`` (unit quaternions ``w, x, y,
          z``) and ``euler`` (z-y-x angles) in space;
        * every joint's ``reaction`` (the force on its head body; also ``.x``, ``.y``,
          ``.z``) and ``reaction_torque`` (on its head body, about the head point), the
          ``angle`` of joints that turn about an axis and the ``distance`` of those that
          slide along one;
        * every force element's ``force`` and ``torque``, what it applies to its head;
          every driver's ``effort``; every gear's or rack's ``torque_a``, ``torque_b`` or
          ``force_b``;
        * ``kinetic``, ``potential``, ``energy`` and ``constraint residual``.

        A planar mechanism's outputs are those of the same mechanism in space restricted to
        the plane."""
        outputs = later("vecnet.numerics.mechanism_outputs").outputs

        return outputs(model, times, qs, us, ws, planar=self.mechanism.dimensions == 2)

    @abstractmethod
    def initial_guess(self) -> np.ndarray:
        """Branch coordinates read off the bodies' initial poses."""

    def initial_speeds(self, q: np.ndarray, velocities: dict | None, time: float = 0.0,
                       parameters: dict | None = None) -> np.ndarray:
        """Speeds from ``velocities``: rates of scalar coordinates (``"J.angle"`` or
        ``"J.angle'"``), speeds by name (``"ball.wx"``), a body's ``"b.omega"`` and
        ``"b.velocity"`` (of its mass centre, world axes; in the plane a number and an
        x-y pair). The constraints are met exactly, the given values in the least-squares
        sense; a :class:`~vecnet.errors.ModelError` is raised when they cannot all be met.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("m")
        >>> bob = mech.body("bob", 1.0, 0.1, position=(1, 0))
        >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
        >>> eom = mech.formulate()
        >>> eom.initial_speeds(eom.assemble(), {"bob.velocity": (0, 2)}).tolist()
        [2.0]
        """
        mb = later("vecnet.numerics.multibody")

        model = self.compile(parameters)
        n, d = model.nu, self.mechanism.dimensions
        rows, values = [], []
        kin = model.kinematics(q, np.zeros(n))
        for name, value in (velocities or {}).items():
            base, _, what = name.rpartition(".")
            if name in self.speed_names or f"{name}'" in self.speed_names:
                e = np.zeros((1, n))
                e[0, self.speed_names.index(name if name in self.speed_names else f"{name}'")] = 1
                rows.append(e)
                values.append(np.atleast_1d(float(value)))
            elif base in self.mechanism.bodies and what in ("omega", "velocity"):
                k = model.row[model.node[base]]
                rows.append(kin["Jv"][k][:d] if what == "velocity"
                            else kin["Jw"][k][2:] if d == 2 else kin["Jw"][k])
                values.append(np.asarray(value, dtype=float).reshape(len(rows[-1])))
            else:
                raise UnknownNameError(f"no speed {name!r}; give coordinate rates "
                                       f"({', '.join(self.speed_names)}) or '<body>.omega', "
                                       "'<body>.velocity'")
        phi_u, phi_t = mb.velocity_constraints(model, time, q)
        if len(phi_t):
            u0 = np.linalg.lstsq(phi_u, -phi_t, rcond=None)[0]
            H = scipy.linalg.null_space(phi_u)
        else:
            u0, H = np.zeros(n), np.eye(n)
        if not rows:
            return u0
        G, g = np.vstack(rows), np.concatenate(values)
        z = np.linalg.lstsq(G @ H, g - G @ u0, rcond=None)[0]
        u = u0 + H @ z
        miss = np.max(np.abs(G @ u - g))
        if miss > 1e-9 * max(1.0, np.max(np.abs(g))):
            raise ModelError("the given velocities are not allowed by the joints (off by "
                             f"{miss:.3g}): " + ", ".join(velocities or ()))
        return u

    @abstractmethod
    def axial(self, joint: str, coordinate: str) -> tuple:
        """``(value, rate)`` of a joint's ``"angle"`` about or ``"distance"`` along its axis,
        in ``q`` and ``u``."""

    @abstractmethod
    def velocity(self, node) -> sympy.Matrix:
        """Velocity of a node's point (world axes) in ``q`` and ``u``."""

    @abstractmethod
    def frame_quantity(self, body: str, quantity: str) -> sympy.Expr:
        """A body frame's quantity (the builder's ``frame_quantities``) in ``q`` and ``u``."""

    # -- loads across joints and rotors: what a lumped network coupled by ports adds ---
    def _couple(self, joint_loads: dict | None, rotors: dict | None) -> None:
        """Keep and check the loads and rotors (see :meth:`load_target`)."""
        #: load target -> symbol of the load: a torque about or force along a joint's
        #: axis, or a force pushing two points apart; given at run time
        self.joint_loads = dict(joint_loads or {})
        for target in self.joint_loads:
            self.load_target(target)
        #: symbols whose values are given at run time (the loads), in order
        self.inputs = tuple(self.joint_loads.values())
        #: joint -> inertia of a rotor turning with the joint's angle (a network inertia
        #: reflected through a gear): ``J g^T g`` in ``M``, ``g`` the angle rate's row in ``u``
        self.rotors = dict(rotors or {})
        for joint in self.rotors:
            self.load_target(f"{joint}.angle", what="a rotor inertia")

    def load_target(self, target, what: str = "a load") -> tuple[str, Any, Any, Any]:
        """What a load works on: ``("line", a, b, None)`` for a pair of point names
        ``(a, b)`` (pushing them apart); ``(coordinate, tail, head, axis)`` for
        ``"<joint>.angle"`` (a torque about the joint's axis) or ``"<joint>.distance"`` (a
        force along it), or for the name of a joint with one such coordinate; ``tail`` and
        ``head`` are the joint's nodes and ``axis`` its axis (tail body axes; ``None`` for
        a planar revolute).

        Raises
        ------
        ModelError
            For points that are not two points of different bodies, or a joint without
            that coordinate (the message names the joint and its kind).

        Examples
        --------
        >>> import vecnet as vn
        >>> mech = vn.spatial.Mechanism("m")
        >>> bob = mech.body("bob", 1.0, (0.1, 0.1, 0.1))
        >>> _ = mech.cylindrical("C", mech.ground.centre, bob.centre, axis=(0, 0, 1))
        >>> coordinate, tail, head, axis = mech.formulate().load_target("C.distance")
        >>> coordinate, tail, head, axis.tolist()
        ('distance', 'ground', 'bob', [0.0, 0.0, 1.0])
        """
        mech = self.mechanism
        if isinstance(target, tuple):
            check_point_pair(mech, target)
            return ("line", target[0], target[1], None)
        joint, coordinate = self._axial_target(target, what)
        tail, head = mech.network.graph.ends(joint)
        return (coordinate, tail, head, getattr(mech.network.element(joint), "axis", None))

    def _axial_target(self, target: str, what: str = "a load") -> tuple[str, str]:
        """``(joint, coordinate)`` of ``"<joint>.<coordinate>"`` or of a joint's name."""
        mech = self.mechanism
        joint, coordinate = str(target), None
        try:
            coordinates = mech.axial_coordinates(joint)
        except UnknownNameError:
            joint, _, coordinate = joint.rpartition(".")
            try:
                coordinates = mech.axial_coordinates(joint)
            except UnknownNameError:
                raise ModelError(f"{what} names joint {str(target)!r}, which mechanism "
                                 f"{mech.name!r} does not have") from None
        if coordinate is None and len(coordinates) == 1:
            coordinate = coordinates[0]
        if coordinate not in coordinates:
            wanted = coordinate or "angle"
            element = mech.network.element(joint)
            raise ModelError(f"{what} {'about' if wanted == 'angle' else 'along'} the axis of "
                             f"{joint!r} needs a {mech.joints_with(wanted)} joint; "
                             f"{joint!r} is a {type(element).__name__}")
        return joint, str(coordinate)

    def load_coordinate(self, target) -> sympy.Expr:
        """The coordinate a load works on (:meth:`load_target`), in ``q``: the joint's
        angle or distance, or the distance between the two points."""
        if isinstance(target, tuple):
            d = self.node_position[target[1]] - self.node_position[target[0]]
            return sympy.sqrt(d.dot(d))
        return self.axial(*self._axial_target(target))[0]

    def load_rate(self, target) -> sympy.Expr:
        """The rate of :meth:`load_coordinate` in ``q`` and ``u``: the across variable of
        a port, the power of the load per unit load.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("m")
        >>> bob = mech.body("bob", 1.0, 0.1, position=(1, 0))
        >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
        >>> mech.formulate().load_rate(("ground", "bob"))     # the bob keeps its distance
        0
        """
        if isinstance(target, tuple):
            self.load_target(target)
            tail, head = target
            d = self.node_position[head] - self.node_position[tail]
            return d.dot(self.velocity(head) - self.velocity(tail)) / sympy.sqrt(d.dot(d))
        return self.axial(*self._axial_target(target))[1]

    def rate(self, expr):
        """Time derivative of an expression in ``q`` and ``t``, ``u`` held:
        ``d expr/dt + d expr/dq N(q) u`` (``N = I`` in the plane)."""
        if "_qdot" not in self.__dict__:
            N = getattr(self, "N", None)
            self.__dict__["_qdot"] = list(self.u) if N is None else list(
                N * sympy.Matrix(self.u))
        return expr.diff(t) + sum((expr.diff(qi) * qd for qi, qd in zip(self.q, self._qdot)
                                   if qd != 0), sympy.S.Zero * expr)

    @cached_property
    def Q(self) -> sympy.Matrix:
        """Generalized forces: the bodies' (and rotors'), the applied ones and the loads'
        (:attr:`joint_loads`, in their symbols)."""
        return self.body_forces + self.applied_forces + self.load_forces

    @property
    def constraint_jacobian(self) -> sympy.Matrix:
        """``Phi_u = Phi_q N``: the constraint Jacobian in the speeds (``Phi_q`` in the
        plane, where ``q' = u``)."""
        if not len(self.constraints):
            return sympy.zeros(0, len(self.u))
        N = getattr(self, "N", None)
        jacobian = self.constraints.jacobian(self.q)
        return jacobian if N is None else jacobian * N

    @cached_property
    def load_forces(self) -> sympy.Matrix:
        """Generalized forces of the loads: ``sum load * d(load rate)/du``."""
        total = sympy.zeros(len(self.u), 1)
        for target, load in self.joint_loads.items():
            rate = self.load_rate(target)
            total += sympy.Matrix([rate.diff(ui) for ui in self.u]) * load
        return total

    @cached_property
    def _rotor_terms(self) -> list[tuple]:
        """Per rotor: inertia, the row ``g`` of its joint's angle rate in ``u`` and the
        convective term ``g' u`` (the rotor's acceleration is ``g u' + g' u``)."""
        out = []
        for joint, inertia in self.rotors.items():
            rate = self.load_rate(f"{joint}.angle")
            out.append((inertia, [rate.diff(ui) for ui in self.u], self.rate(rate)))
        return out

    def measure(self, name: str) -> sympy.Expr:
        """The value of sensor ``name`` (:func:`sensor_reading`) in ``q`` and ``u``.

        Examples
        --------
        >>> import vecnet as vn
        >>> mech = vn.spatial.Mechanism("m")
        >>> bob = mech.body("bob", 1.0, (0.1, 0.1, 0.1))
        >>> _ = mech.revolute("J", mech.ground.centre, bob.centre, axis=(0, 0, 1))
        >>> mech.formulate().measure("J.rate")
        J.angle'
        """
        kind, where, which, *derivative = sensor_reading(self.mechanism, name)
        if kind == "position":
            return self.node_position[where][which]
        if kind == "velocity":
            return self.velocity(where)[which]
        if kind == "frame":
            return self.frame_quantity(where, which)
        return self.axial(where, which)[1 if derivative[0] else 0]

    # -- joint limits ----------------------------------------------------------------
    def stops(self, model) -> list:
        """A :class:`~vecnet.numerics.multibody.Stop` for every lower and upper limit of
        the mechanism's joint stops (``Mechanism.joint_limit``,
        :class:`~vecnet.elements.joint_laws.StopLaw`): its gap the distance of the joint's
        coordinate from the limit (:meth:`axial`, in ``q``), its gradient the gap's rate
        per unit speed, along which the impact's impulse acts."""
        Stop = later("vecnet.numerics.multibody").Stop

        out = []
        for element in self.mechanism.network.elements:
            if not isinstance(element, StopLaw):
                continue
            self._check_stop(element)
            value, rate = self.axial(element.joint, element.quantity)
            per_speed = [rate.diff(ui) for ui in self.u]
            for limit, sign, end in element.sides():
                gap = model.lambdify((list(self.q),), [element.gap(value, limit, sign)],
                                      element.name)
                grad = model.lambdify((list(self.q),), [sign * g for g in per_speed],
                                       element.name)
                out.append(Stop(f"{element.name}.{end}", _first(gap), grad,
                                model.number(element.restitution, element.name)))
        return out

    def _check_stop(self, element) -> None:
        """Refuse a stop the dimension cannot strike (none in the plane, where ``q' = u``)."""

    # -- numerics -----------------------------------------------------------------
    def compile(self, parameters: dict | None = None, linear_algebra: str = "auto"):
        """The compiled numeric model with the ``parameters`` (by symbol or name) put in,
        kept for the last few sets of values; within :meth:`runtime_parameters`, the model
        compiled for them, bound to the ``parameters`` given among its names (the others
        must be the values compiled into it), set to ``linear_algebra``.

        ``linear_algebra`` tells how the constrained equations of a mechanism with loops
        are solved: ``"dense"`` in joint space, ``"sparse"`` in body space (time linear in
        the size for chains of loops, ladders, trusses: :mod:`vecnet.numerics.bodyspace`),
        ``"auto"`` (the default) the one predicted cheaper
        (:attr:`~vecnet.numerics.mechanism.CompiledModel.solver`).

        Raises
        ------
        ModelError
            For another ``linear_algebra``.
        """
        active = self.__dict__.get("_active")
        if active is not None:
            given = {str(k): v for k, v in (parameters or {}).items()}
            given.update({str(k): v for k, v in self.parameter_values.items()
                          if str(k) not in given and str(k) not in active.runtime_names})
            runtime = {k: v for k, v in given.items() if k in active.runtime_names}
            compiled_in = {str(k): v for k, v in active.values.items()}
            if all(k in compiled_in and sympy.sympify(v) == compiled_in[k]
                   for k, v in given.items() if k not in runtime):
                active.use_linear_algebra(linear_algebra)
                return active.bind(runtime) if runtime else active
        parameters = self._with_values(parameters)
        key = (frozenset((str(k), sympy.sympify(v)) for k, v in (parameters or {}).items()),
               linear_algebra)
        cache = self.__dict__.setdefault("_compiled", {})
        if key not in cache:
            if len(cache) >= 4:
                cache.pop(next(iter(cache)))
            cache[key] = self.compile_model(parameters or None, linear_algebra=linear_algebra)
        return cache[key]

    def _with_values(self, parameters: dict | None, runtime: Sequence[str] = ()) -> dict | None:
        """``parameters`` with :attr:`parameter_values` for those it does not name (nor
        ``runtime``, whose values are bound later)."""
        if not self.parameter_values:
            return parameters
        named = {str(k) for k in (parameters or {})} | set(runtime)
        merged = {k: v for k, v in self.parameter_values.items() if str(k) not in named}
        merged.update(parameters or {})
        return merged or None

    def check_parameters(self, parameters: dict | None) -> None:
        """Refuse a name in ``parameters`` that no expression of the mechanism holds.

        Raises
        ------
        UnknownNameError
            Naming the unknown ones and listing the mechanism's parameters.
        """
        if not parameters:
            return
        known = {str(s) for s in self.compile(parameters).used}
        unknown = sorted({str(k) for k in parameters} - known)
        if unknown:
            raise UnknownNameError(
                f"mechanism {self.mechanism.name!r} has no parameter(s) "
                f"{', '.join(map(repr, unknown))}; its parameters are "
                f"{', '.join(sorted(known)) or 'none'}")

    def _fixed(self, initial: dict | None) -> dict[int, float]:
        """Coordinate indices and values of the scalar coordinates named in ``initial``."""
        out = {}
        for name, value in (initial or {}).items():
            if name not in self.coordinates:
                raise ModelError(f"no coordinate {name!r}; coordinates are "
                                 f"{', '.join(self.coordinates)}")
            if f"{name}'" not in self.speed_names:
                raise ModelError(f"coordinate {name!r} is part of a quaternion; set the "
                                 "orientation of the bodies instead")
            out[self.coordinates.index(name)] = float(value)
        return out

    def _mobility(self, model, time: float, q: np.ndarray) -> int:
        mb = later("vecnet.numerics.multibody")

        phi_u = mb.velocity_constraints(model, time, q)[0]
        return mb.speeds(model) - len(mb.independent_rows(phi_u))

    @property
    def speed_preference(self) -> list[int]:
        """The speeds in the order a user places and reads them, the one most worth keeping
        independent first: by element in the order the tree lists them (the elements built
        first, next to the ground: a four-bar's crank pin), within an element its turns
        (``angle``, ``wx`` ...) before its translations (a body placed at an angle keeps
        it). :meth:`assemble` holds the first independent ones of this order and
        :meth:`linearize` takes them as the independent coordinates.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("m")
        >>> bob = mech.body("bob", 1.0, 0.1, position=(1, 0))
        >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
        >>> eom = mech.formulate("absolute")
        >>> [eom.speed_names[i] for i in eom.speed_preference]
        ["bob.angle'", "bob.x'", "bob.y'"]
        """
        first: dict[str, int] = {}
        keys = []
        for i, name in enumerate(self.speed_names):
            element, _, what = name.rpartition(".")
            first.setdefault(element, i)
            turn = what.startswith("angle") or what.rstrip("'") in ("wx", "wy", "wz")
            keys.append((first[element], 0 if turn else 1, i))
        return [key[-1] for key in sorted(keys)]

    def assemble(self, initial: dict | None = None, time: float = 0.0,
                 parameters: dict | None = None) -> np.ndarray:
        """Assembled coordinates ``q`` (closing every loop) from the bodies' initial poses,
        with the scalar coordinates named in ``initial`` held at the given values.

        Only dependent coordinates move: the independent ones, those named in ``initial``
        and then the first of :attr:`speed_preference` the constraints leave free (a
        four-bar's crank angle), keep the values the bodies were placed with, and the others
        close the loops (:func:`vecnet.numerics.multibody.assemble`). When the placed
        values admit no assembly, they move too, as little as they can (least squares).

        Parameters
        ----------
        initial : dict, optional
            Coordinate name -> value, held.
        time : float
            The time of the drivers' motions.
        parameters : dict, optional
            Values of the mechanism's symbols.

        Returns
        -------
        numpy.ndarray
            The coordinates, in the order of :attr:`coordinates`.

        Raises
        ------
        FormulationError
            When the loops cannot close, or close with no degree of freedom left and no
            driver to move the mechanism (it is locked).

        Examples
        --------
        A crank placed at 90 degrees, its coupler and rocker roughly where they go:

        >>> import math, vecnet as vn
        >>> mech = vn.planar.Mechanism("four-bar")
        >>> crank = mech.body("crank", 1.0, 0.1, position=(0, 0.5), angle=math.pi / 2)
        >>> coupler = mech.body("coupler", 1.0, 0.1, position=(1, 1.2), angle=0.2)
        >>> rocker = mech.body("rocker", 1.0, 0.1, position=(2, 0.6), angle=-1.4)
        >>> _ = mech.revolute("A", mech.ground.point(0, 0), crank.point(-0.5, 0))
        >>> _ = mech.revolute("B", crank.point(0.5, 0), coupler.point(-1, 0))
        >>> _ = mech.revolute("C", coupler.point(1, 0), rocker.point(-0.6, 0))
        >>> _ = mech.revolute("D", rocker.point(0.6, 0), mech.ground.point(2, 0))
        >>> eom = mech.formulate()
        >>> round(math.degrees(eom.assemble()[0]), 9)
        90.0
        """
        mb = later("vecnet.numerics.multibody")

        model = self.compile(parameters)
        q = self.initial_guess()
        fixed = self._fixed(initial)
        for i, value in fixed.items():
            q[i] = value
        held = [self.speed_names.index(f"{self.coordinates[i]}'") for i in fixed]
        q = mb.assemble(model, q, time, fixed=held, prefer=self.speed_preference)
        driven = any(isinstance(e, self.driver) for e in self.mechanism.network.elements)
        if self._mobility(model, time, q) == 0 and not driven:
            joints = [c for c in self.topology.chords if self.mechanism.network.element(c).is_joint]
            raise FormulationError("the mechanism is locked: its constraints leave no degree of "
                                   "freedom (the loops closed by " + ", ".join(joints) + ")")
        return q

    def degrees_of_freedom(self, q=None, time: float = 0.0, parameters: dict | None = None) -> int:
        """The number of speeds less ``rank(Phi_u)`` at ``q`` (default: the assembled pose):
        redundant constraints are found from the rank, not by counting. ``Phi_u`` holds the
        velocity (nonholonomic) constraints too, so that with rolling wheels this counts the
        free speeds, fewer than the free coordinates."""
        model = self.compile(parameters)
        q = self.assemble(time=time, parameters=parameters) if q is None \
            else np.asarray(q, dtype=float)
        return self._mobility(model, time, q)

    def result(self, model, ts, qs, us, outcome=None, ws=None, series=None):
        """A :class:`~vecnet.numerics.result.Result` of the motion sampled at ``ts``
        (coordinates ``qs`` and speeds ``us``, a column a sample) by the compiled
        ``model``: the coordinates and speeds now, everything :meth:`outputs` reports when
        first read (with the loads ``ws`` across joints, default zero); ``outcome`` (a
        :class:`~vecnet.numerics.result.Outcome`) tells how they were found; ``series``
        adds named series of the integrator's (a joint friction's modes)."""
        Result = later("vecnet.numerics.result").Result

        given = {**dict(zip(self.coordinates, qs)), **dict(zip(self.speed_names, us)),
                 **(series or {})}
        return Result(ts, given, outcome, derive=lambda: self.outputs(model, ts, qs, us, ws))

    def check_signals(self, t_span, parameters: dict | None = None) -> None:
        """Refuse, before any work, a force, torque or drive that oscillates more than
        ``max_cycles`` times in ``t_span = (t0, t1)`` (a number: ``(0, t_span)``;
        :func:`vecnet.core.bounds.check_oscillation`), with the ``parameters`` (by symbol or
        name) put in."""
        values = {(k if isinstance(k, sympy.Basic) else sympy.Symbol(str(k), real=True)):
                  sympy.sympify(v) for k, v in (parameters or {}).items()}
        span = (0.0, t_span) if isinstance(t_span, (int, float)) else tuple(t_span)
        for element in self.mechanism.network.elements:
            for attribute in ("force", "torque", "motion"):
                signal = getattr(element, attribute, None)
                if isinstance(signal, (sympy.Basic, sympy.MatrixBase)) and signal.has(t):
                    for entry in (signal if isinstance(signal, sympy.MatrixBase) else [signal]):
                        check_oscillation(element.name, entry.xreplace(values), span)

    def simulate(self, t_end: float, t_eval=None, **options):
        """Forward dynamics from ``t = 0`` to ``t_end``: ``vn.simulate(eom, (0, t_end),
        t_eval=t_eval, **options)`` (:func:`vecnet.simulate`, where the options are told;
        it starts at any time).

        ``method="partition"`` (the default) integrates the independent speeds with
        scipy's ``DOP853``, finding the dependent ones from the constraints at every step
        (coordinate partitioning, :func:`vecnet.numerics.multibody.integrate_partitioned`);
        ``method="dae"`` integrates the stabilized index-2 DAE with IDA (scikit-sundae,
        :func:`vecnet.numerics.multibody.integrate_dae`); ``method="rk4"`` and
        ``method="euler"`` (semi-implicit) take fixed steps no longer than ``step``
        seconds, as game and robotics engines do, with the loops closed after every step
        (:func:`vecnet.numerics.multibody.integrate_fixed`). A mechanism whose drivers fix
        every degree of freedom is solved by kinematics. Joint limits (stops) reverse a
        joint's speed times ``-restitution`` when struck, through the partitioned
        integrator's events.

        Returns a :class:`~vecnet.numerics.result.Result` with every coordinate and speed
        and the quantities the dimension reports (see the subclass).

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("m", gravity=(0, 0))
        >>> wheel = mech.body("wheel", 1.0, 0.5)
        >>> _ = mech.revolute("O", mech.ground.centre, wheel.centre)
        >>> res = mech.formulate().simulate(2.0, t_eval=[2.0], velocities={"O.angle": 3.0})
        >>> round(float(res["O.angle"][-1]), 9), res.solver    # turning freely: 3 * 2
        (6.0, 'partition')
        """
        simulate = later("vecnet.numerics.simulation").simulate

        return simulate(self, (0.0, t_end), t_eval=t_eval, **options)

    def check_mass_matrix(self, model, q0: np.ndarray, time: float = 0.0) -> None:
        """Refuse forward dynamics whose mass matrix, on the motions the constraints allow
        at ``time`` (``H^T M H``, ``H`` a basis of the null space of ``Phi_u``), is singular
        at the initial pose: some motion then has no inertia, and forces cannot decide it.
        The message names the bodies without mass and inertia, the usual cause.

        Raises
        ------
        ModelError
            When it is singular.
        """
        mb = later("vecnet.numerics.multibody")

        if not any(_lacks_inertia(e) for e in self.mechanism.network.elements):
            return   # every body has mass and inertia about every axis: M is regular
        H = mb.tangent_basis(model, time, q0)
        if not H.shape[1]:
            return
        M = model.mass_matrix(q0)
        inertia = np.linalg.eigvalsh(H.T @ M @ H)
        if inertia[0] > 1e-12 * max(inertia[-1], np.abs(M).max()):
            return
        massless = [e.name for e in self.mechanism.network.elements if _massless(e)]
        raise ModelError(
            "the mass matrix is singular at the initial pose: a motion the joints allow has no "
            "inertia, so the forces cannot determine it"
            + (f" (bodies without mass and inertia: {', '.join(massless)})" if massless else "")
            + "; give those bodies mass or inertia, or drive the motion (inverse_dynamics)")

    def check_time_scale(self, model, q0: np.ndarray, t_span, method: str) -> None:
        """Refuse a span ``(t0, t1)`` holding more than ``max_cycles`` of the motion's
        fastest time scale, ``1 / |s|`` for the largest eigenvalue ``s`` of the motion
        linearized at the initial pose at ``t0``
        (:func:`vecnet.numerics.multibody.fastest_rate`): an explicit integrator takes
        several steps for each. The implicit ``"dae"`` method, which is not held to the
        fastest scale, and a mechanism whose accelerations cannot be had (no inertia in a
        direction) are left to the :class:`~vecnet.core.bounds.Watch`.

        Raises
        ------
        ModelError
            When the span holds too many.
        """
        mb = later("vecnet.numerics.multibody")

        if method == "dae":
            return
        t0, t1 = t_span
        try:
            with np.errstate(all="ignore"):
                fastest = mb.fastest_rate(model, t0, q0)
        except (np.linalg.LinAlgError, VecnetError):
            return
        cycles = fastest * (t1 - t0) / (2 * np.pi)
        bound = get_limits().max_cycles
        if cycles > bound:
            raise ModelError(
                f"the motion's fastest time scale is a period of {2 * np.pi / fastest:.3g} s "
                f"(an eigenvalue of {fastest:.3g} 1/s of the linearization at the initial "
                f"pose): the span of {t1 - t0:.6g} s holds {cycles:.3g} of them, more than "
                f"max_cycles = {bound:.6g}; "
                "shorten t_span or raise the limit with vn.limits(max_cycles=...)")

    def inverse_dynamics(self, t_eval, parameters: dict | None = None):
        """Kinematics and the efforts of drivers that fix every degree of freedom, with every
        joint reaction from the cutset equations: a :class:`~vecnet.numerics.result.Result`
        as from :meth:`simulate`, with ``"<driver>.effort"``.

        Raises
        ------
        FormulationError
            When the drivers leave a degree of freedom.
        """
        mb = later("vecnet.numerics.multibody")

        model = self.compile(parameters)
        times = np.asarray(t_eval, dtype=float)
        q0 = self.assemble(time=float(times[0]), parameters=parameters)
        if self._mobility(model, float(times[0]), q0) != 0:
            raise FormulationError("inverse dynamics needs drivers that fix every degree of "
                                   "freedom; use simulate() for forward dynamics")
        ts, qs, us = mb.kinematics(model, times, q0)
        return self.result(model, ts, qs, us)

    def forward_dynamics(self, q, u, tau=None, *, time: float = 0.0,
                         parameters: dict | None = None) -> np.ndarray:
        """The accelerations ``u'`` at coordinates ``q`` and speeds ``u`` (in the order of
        :attr:`coordinates` and :attr:`speed_names`) under the generalized forces ``tau``
        (one per speed, added to gravity, springs, dampers, drivers and the velocity
        terms; default none), at ``time`` — what Pinocchio's ``aba(model, data, q, v,
        tau)`` gives.

        A mechanism without loops takes the articulated-body recursion, in time linear in
        its size. A mechanism with loops (cut joints, drivers, velocity constraints) is
        solved with the loops' multipliers, ``Phi_u u' = c`` holding (see
        ``docs/multibody-core.md``): give a ``q`` and ``u`` that satisfy its constraints
        (:meth:`assemble`), as the result is otherwise that of a state the mechanism cannot
        take. Unit quaternions in ``q`` are normalized. The model compiled for the
        ``parameters`` (:meth:`compile`) is kept, so repeated calls compile nothing.

        Compared with ``aba``: a body moving freely (absolute coordinates) has as speeds
        its mass centre's velocity and its angular velocity, both in world axes (with
        ``formulate(speeds="body")`` the angular velocity in body axes), and its entries of
        ``tau`` are the force at the mass centre and the torque about it in the same axes;
        Pinocchio's free flyer takes the velocity of the body frame's origin and the
        angular velocity, both in body axes, so its ``q``, ``v`` and ``tau`` are those
        quantities after the change of frame and of reference point.

        Returns
        -------
        numpy.ndarray
            ``u'``, one entry per speed.

        Raises
        ------
        ModelError
            ``q``, ``u`` or ``tau`` of the wrong length, not real numbers (complex, boolean
            or other objects) or not finite, a quaternion of zero norm, a parameter without
            a value (pass ``parameters={...}``) or with one that is not a finite real
            number, a ``time`` that is not.
        UnknownNameError
            ``parameters`` names a parameter the mechanism's equations do not hold.
        SimulationError
            Where the accelerations are not determined (a motion without inertia) or not
            finite (speeds so large that the velocity terms overflow).

        Examples
        --------
        A pendulum of 1 kg on a massless arm of 1 m, held level: gravity turns it at
        ``-g / l``, a torque ``m g l`` holds it.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
        >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(1, 0))
        >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
        >>> eom = mech.formulate()
        >>> eom.forward_dynamics([0.0], [0.0]).tolist()
        [-9.81]
        >>> eom.forward_dynamics([0.0], [0.0], tau=[9.81]).tolist()
        [0.0]
        """
        mb = later("vecnet.numerics.multibody")
        owner = f"mechanism {self.mechanism.name!r}"
        if parameters:
            for key, value in parameters.items():
                if not _finite_real(value):
                    raise ModelError(f"{owner}: parameter {str(key)!r} = {value!r}: "
                                     "forward_dynamics takes a finite real number")
            self.check_parameters(parameters)
        if not (type(time) is float and math.isfinite(time)) and not _finite_real(time):
            raise ModelError(f"{owner}: time = {time!r} must be a finite real number")
        return mb.forward_dynamics(self.compile(parameters), q, u, tau, float(time),
                                   (self.coordinates, self.speed_names), owner)

    def equilibrium(self, time: float = 0.0, parameters: dict | None = None,
                    iterations: int = 100) -> OperatingPoint:
        """Static equilibrium near the initial pose: ``Q(q, 0) + Phi_u^T lambda = 0``,
        ``Phi(q) = 0``, by Newton steps on the assembled mechanism. At every step the
        coordinates are partitioned anew, the generalized force is reduced to the
        independent ones and a limited step is followed by assembly (all constraints, so
        redundant ones stay satisfied); the multipliers then balance the forces
        (:func:`vecnet.numerics.multibody.equilibrium`). Returns an :class:`OperatingPoint`.

        Raises
        ------
        FormulationError
            When no equilibrium is found near the initial pose.
        UnknownNameError
            ``parameters`` names a parameter the mechanism's equations do not hold.
        """
        mb = later("vecnet.numerics.multibody")

        self.check_parameters(parameters)
        model = self.compile(parameters)
        q = self.assemble(time=time, parameters=parameters)
        q, lam = mb.equilibrium(model, q, time, iterations)
        return OperatingPoint(self, q, lam, time)

    def steady_motion(self, velocities: dict, time: float = 0.0,
                      parameters: dict | None = None) -> OperatingPoint:
        """A nominal motion to linearize about: the assembled initial pose moving with
        ``velocities`` (as in :meth:`simulate`), with its acceleration and multipliers. For
        a steadily spinning rotor on a symmetric support the acceleration is zero and
        :meth:`linearize` gives the whirl (the gyroscopic terms are in ``C``)."""
        mb = later("vecnet.numerics.multibody")

        model = self.compile(parameters)
        q = self.assemble(time=time, parameters=parameters)
        u = self.initial_speeds(q, velocities, time, parameters)
        snap = model.evaluate(time, q, u)
        a, lam = mb.accelerations(snap, mb.independent_rows(snap.phi_q))
        return OperatingPoint(self, q, lam, time, u=u, a=a)

    @property
    def speeds_are_rates(self) -> bool:
        """Whether ``q' = u`` (no quaternion among the coordinates)."""
        N = getattr(self, "N", None)
        return N is None or N == sympy.eye(len(self.q))

    def linearize(self, point: OperatingPoint, parameters: dict | None = None,
                  step: float = 1e-6) -> Linearization | StateLinearization:
        """Linear model about an operating point in independent coordinates (Thompson's
        reduced order): with ``H2`` a basis of the null space of ``Phi_u`` and
        ``u = u* + H2 z'``, ``M z'' + C z' + K z = B w`` with ``M = H2^T M H2``,
        ``C = -H2^T Q_u H2``, ``K = -H2^T (Q + Phi_u^T lambda - M a*)_q N H2``
        (:func:`vecnet.numerics.multibody.linear_model`) and ``B`` the generalized forces
        of unit inputs ``w``: every applied torque and force, by component (``"T"`` in the
        plane, ``"T.x"`` ... in space; forces ``"F.x"`` ...), and every load across a
        joint, each added to its value at the point.

        Examples
        --------
        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
        >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(0, -1))
        >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
        >>> _ = mech.torque("T", bob, 0.0)
        >>> eom = mech.formulate()
        >>> lin = eom.linearize(eom.equilibrium())
        >>> lin.inputs, lin.B.round(12).tolist(), lin.K.round(9).tolist()
        (('T',), [[1.0]], [[9.81]])

        A mechanism with velocity (nonholonomic) constraints, a rolling wheel, has fewer
        independent speeds than coordinates: its linear model is the first-order
        :class:`StateLinearization` ``x' = A x + B w`` in its independent coordinates and
        speeds (:func:`vecnet.numerics.multibody.linear_state_model`).

        Raises
        ------
        FormulationError
            For a moving operating point when quaternions are among the coordinates.
        UnknownNameError
            ``parameters`` names a parameter the mechanism's equations do not hold.
        """
        mb = later("vecnet.numerics.multibody")

        self.check_parameters(parameters)
        model = self.compile(parameters)
        if point.u is not None and np.any(point.u) and not self.speeds_are_rates:
            raise FormulationError("linearizing about a motion needs q' = u: coordinates "
                                   "without quaternions (revolute, prismatic, universal ... "
                                   "joints in the tree)")
        if mb.velocity_rows(model):
            inputs, columns = model.input_forces(point.time, point.q)
            A, B, C, iq, iu = mb.linear_state_model(model, point.q, point.u, point.time, step,
                                                    columns)
            return StateLinearization(A, B, C, [self.coordinates[i] for i in iq]
                                      + [self.speed_names[i] for i in iu], inputs,
                                      self.coordinates)
        # a basis whose z are coordinates themselves (the first independent ones of the
        # speed preference), so that the states read as the coordinates: pin.angle, not z1
        phi_u = mb.velocity_constraints(model, point.time, point.q)[0]
        basis = mb.independent_basis(model, point.time, point.q,
                                     mb.preferred_split(phi_u, self.speed_preference))
        M, C, K, H = mb.linear_model(model, point.q, point.lam, point.time, step,
                                     u=point.u, a=point.a, basis=basis)
        inputs, columns = model.input_forces(point.time, point.q)
        outputs = [name[:-1] if name.endswith("'") else name for name in self.speed_names]
        return Linearization(M, C, K, H, H.T @ columns, inputs, outputs)

    def __repr__(self) -> str:
        return (f"<{type(self).__name__}: {len(self.q)} coordinates {list(self.coordinates)}, "
                f"{len(self.constraint_names)} constraints>")

    def _repr_latex_(self) -> str | None:
        """``$$`` + :func:`vecnet.output.teaching.latex` + ``$$``, for notebooks (``None`` when too
        large to typeset)."""
        repr_latex = later("vecnet.output.teaching").repr_latex

        return repr_latex(self)
