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
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from types import MappingProxyType
from typing import Any, Callable

import networkx as nx
import numpy as np
import scipy.linalg
import sympy

from ..builders.mechanism import DATUM, check_point_pair, point_nodes, sensor_reading
from ..core.bounds import check_oscillation
from ..core.forwards import public
from ..core.later import later
from ..core.symbols import key_name
from ..elements.base import t
from ..errors import FormulationError, ModelError, UnknownNameError
from ..graph.topology import Topology
from .linear_model import LinearModel

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


class OperatingPoint:
    """A static equilibrium or a nominal motion: coordinates ``q``, multipliers ``lam`` and,
    for a motion, speeds ``u`` and accelerations ``a``; ``point[name]`` reads any quantity a
    simulation reports (coordinates, body poses, joint angles, reactions)."""

    def __init__(self, eom: MechanismEquations, q, lam, time: float, u=None, a=None, *,
                 derive: Callable[[OperatingPoint], dict[str, np.ndarray]]) -> None:
        self.eom, self.q, self.lam, self.time = eom, np.asarray(q), np.asarray(lam), time
        self.u = None if u is None else np.asarray(u, dtype=float)
        self.a = None if a is None else np.asarray(a, dtype=float)
        self._derive = derive

    @cached_property
    def values(self) -> dict[str, np.ndarray]:
        """Every quantity a simulation reports, at the point (found when first read, by the
        ``derive`` of the algorithm that found the point)."""
        return self._derive(self)

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
        (the coordinates, or for quaternion speeds the small rotations about their axes).
        The matrices of :meth:`linear_model`, as a tuple (kept for code that unpacks it)."""
        d, k = self.M.shape[0], self.B.shape[1]
        A = np.block([[np.zeros((d, d)), np.eye(d)],
                      [-np.linalg.solve(self.M, self.K), -np.linalg.solve(self.M, self.C)]])
        B = np.vstack([np.zeros((d, k)), np.linalg.solve(self.M, self.B)])
        C = np.hstack([self.basis, np.zeros_like(self.basis)])
        return A, B, C, np.zeros((C.shape[0], k))

    def linear_model(self) -> LinearModel:
        """The first-order :class:`~vecnet.formulation.linear_model.LinearModel` of
        ``x = (z, z')``: the matrices of :meth:`state_space`, the states :attr:`states`, the
        inputs, the displacements as outputs (``"y<i>"`` when they have no names).

        >>> lin = Linearization(np.eye(1), np.zeros((1, 1)), 4 * np.eye(1), np.eye(1),
        ...                     np.eye(1), ["T"], ["pin.angle"])
        >>> model = lin.linear_model()
        >>> model.states, model.inputs, model.outputs, model.A.tolist()
        (('pin.angle', "pin.angle'"), ('T',), ('pin.angle',), [[0.0, 1.0], [-4.0, -0.0]])
        """
        outputs = self.outputs or [f"y{i + 1}" for i in range(self.basis.shape[0])]
        return LinearModel(*self.state_space(), self.states, self.inputs, outputs)

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
        return self.with_generalized_forces().linear_model().to_control()

    def eigenvalues(self) -> np.ndarray:
        """Eigenvalues of the first-order system, sorted by imaginary part
        (:meth:`LinearModel.poles <vecnet.formulation.linear_model.LinearModel.poles>`)."""
        return self.linear_model().poles()

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
        return self.linear_model().damping_ratios()

    def _repr_latex_(self) -> str | None:
        """``$$`` + :func:`vecnet.output.teaching.latex` + ``$$``, for notebooks (``None`` when too
        large to typeset)."""
        repr_latex = later("vecnet.output.teaching").repr_latex

        return repr_latex(self)


class StateLinearization(LinearModel):
    """``x' = A x + B w``, ``q - q* = C x``: the first-order linear model of a mechanism
    with velocity (nonholonomic) constraints
    (:func:`vecnet.numerics.multibody.linear_state_model`), whose state ``x`` holds its
    independent coordinates and, fewer of them, its independent speeds, named by
    :attr:`states`; the inputs ``w`` are named by :attr:`inputs`, the outputs (every
    coordinate) by :attr:`outputs`. A :class:`~vecnet.formulation.linear_model.LinearModel`
    with ``D`` zero, under the name it has always had.

    >>> lin = StateLinearization(np.array([[0.0, 1.0], [-4.0, 0.0]]), np.zeros((2, 0)),
    ...                          np.eye(1, 2), ["a", "a'"], (), ["a"])
    >>> np.round(lin.eigenvalues(), 12).tolist()
    [-2j, 2j]
    """

    def __init__(self, A, B, C, states, inputs, outputs) -> None:
        A, B, C = np.asarray(A), np.asarray(B), np.asarray(C)
        super().__init__(A, B, C, np.zeros((C.shape[0], B.shape[1])), states, inputs, outputs)


#: the compiled models' key without parameters (:meth:`MechanismEquations.compile`)
_NO_VALUES: frozenset = frozenset()


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

    @abstractmethod
    def initial_guess(self) -> np.ndarray:
        """Branch coordinates read off the bodies' initial poses."""

    def initial_speeds(self, q: np.ndarray, velocities: dict | None, time: float = 0.0,
                       parameters: dict | None = None) -> np.ndarray:
        """Speeds from ``velocities`` at ``q``, the constraints met: :func:`vecnet.initial_speeds`."""
        return public("initial_speeds")(self, q, velocities, time, parameters)

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
        self.refuse_beams("the generalized forces Q")
        return self.body_forces + self.applied_forces + self.load_forces

    def refuse_beams(self, what: str) -> None:
        """Refuse ``what`` of the symbolic equations where the mechanism has beams, whose
        terms are numbers only (:mod:`vecnet.numerics.beams`): leaving them out would
        give a mass matrix and forces without the beams' inertia and stiffness.

        Raises
        ------
        FormulationError
            Naming the beams and what serves instead.
        """
        beams = getattr(self.mechanism, "beams", None)
        if beams:
            raise FormulationError(
                f"{what} of a mechanism with beams ({', '.join(map(repr, beams))}) cannot be "
                "written in symbols: the beam elements' inertia and end loads are evaluated in numbers "
                "(eom.compile().evaluate(t, q, u) gives M and Q; simulate, equilibrium and "
                "linearize use them)")

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
    def check_stop(self, element) -> None:
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
            given = {key_name(k): v for k, v in (parameters or {}).items()}
            given.update({key_name(k): v for k, v in self.parameter_values.items()
                          if key_name(k) not in given and key_name(k) not in active.runtime_names})
            runtime = {k: v for k, v in given.items() if k in active.runtime_names}
            compiled_in = {key_name(k): v for k, v in active.values.items()}
            if all(k in compiled_in and sympy.sympify(v) == compiled_in[k]
                   for k, v in given.items() if k not in runtime):
                active.use_linear_algebra(linear_algebra)
                return active.bind(runtime) if runtime else active
        cache = self.__dict__.setdefault("_compiled", {})
        if not parameters and not self.parameter_values:   # the common call, looked up fast
            plain = cache.get((_NO_VALUES, linear_algebra))
            if plain is not None:
                return plain
        parameters = self._with_values(parameters)
        key = (frozenset((key_name(k), v if type(v) is float else sympy.sympify(v))
                         for k, v in (parameters or {}).items()), linear_algebra)
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
        named = {key_name(k) for k in (parameters or {})} | set(runtime)
        merged = {k: v for k, v in self.parameter_values.items() if key_name(k) not in named}
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

    def fixed_coordinates(self, initial: dict | None) -> dict[int, float]:
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

    @property
    def speeds_are_rates(self) -> bool:
        """Whether ``q' = u`` (no quaternion among the coordinates)."""
        N = getattr(self, "N", None)
        return N is None or N == sympy.eye(len(self.q))

    # -- the algorithms over the equations: one-line forwards to vecnet's functions -------
    def compile_model(self, parameters: dict | None, runtime: Sequence[str] = (),
                      linear_algebra: str = "auto"):
        """A new compiled numeric model: :func:`vecnet.compile` (:meth:`compile` keeps one)."""
        return public("compile")(self, parameters, runtime=runtime, linear_algebra=linear_algebra)

    def assemble(self, initial: dict | None = None, time: float = 0.0,
                 parameters: dict | None = None) -> np.ndarray:
        """Assembled coordinates, the loops closed: :func:`vecnet.assemble`."""
        return public("assemble")(self, initial, time, parameters)

    def degrees_of_freedom(self, q=None, time: float = 0.0, parameters: dict | None = None) -> int:
        """The free speeds at ``q``: :func:`vecnet.degrees_of_freedom`."""
        return public("degrees_of_freedom")(self, q, time, parameters)

    def simulate(self, t_end: float, t_eval=None, **options):
        """Forward dynamics from ``t = 0`` to ``t_end``: ``vn.simulate(eom, (0, t_end),
        t_eval=t_eval, **options)`` (:func:`vecnet.simulate`, where the options are told;
        it starts at any time).

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("m", gravity=(0, 0))
        >>> wheel = mech.body("wheel", 1.0, 0.5)
        >>> _ = mech.revolute("O", mech.ground.centre, wheel.centre)
        >>> res = mech.formulate().simulate(2.0, t_eval=[2.0], velocities={"O.angle": 3.0})
        >>> round(float(res["O.angle"][-1]), 9), res.solver    # turning freely: 3 * 2
        (6.0, 'partition')
        """
        return public("simulate")(self, (0.0, t_end), t_eval=t_eval, **options)

    def inverse_dynamics(self, t_eval, parameters: dict | None = None):
        """Kinematics and the drivers' efforts: :func:`vecnet.inverse_dynamics`."""
        return public("inverse_dynamics")(self, t_eval, parameters)

    def forward_dynamics(self, q, u, tau=None, *, time: float = 0.0,
                         parameters: dict | None = None) -> np.ndarray:
        """The accelerations ``u'`` at ``q``, ``u`` under ``tau``: :func:`vecnet.forward_dynamics`."""
        return public("forward_dynamics")(self, q, u, tau, time=time, parameters=parameters)

    def equilibrium(self, time: float = 0.0, parameters: dict | None = None,
                    iterations: int = 100) -> OperatingPoint:
        """A static equilibrium near the initial pose: :func:`vecnet.equilibrium`."""
        return public("equilibrium")(self, time, parameters, iterations)

    def steady_motion(self, velocities: dict, time: float = 0.0,
                      parameters: dict | None = None) -> OperatingPoint:
        """A nominal motion to linearize about: :func:`vecnet.steady_motion`."""
        return public("steady_motion")(self, velocities, time, parameters)

    def linearize(self, point: OperatingPoint, parameters: dict | None = None,
                  step: float = 1e-6) -> Linearization | StateLinearization:
        """The linear model about an operating point: :func:`vecnet.linearize`."""
        return public("linearize")(self, point, parameters, step)

    def __repr__(self) -> str:
        return (f"<{type(self).__name__}: {len(self.q)} coordinates {list(self.coordinates)}, "
                f"{len(self.constraint_names)} constraints>")

    def _repr_latex_(self) -> str | None:
        """``$$`` + :func:`vecnet.output.teaching.latex` + ``$$``, for notebooks (``None`` when too
        large to typeset)."""
        repr_latex = later("vecnet.output.teaching").repr_latex

        return repr_latex(self)
