"""The compiled model of a mechanism, written once for the plane and for space.

A formulation (:mod:`vecnet.formulation.planar`, :mod:`vecnet.formulation.spatial`)
hands its tree to the compiled kernels (:mod:`vecnet.numerics.tree_kernels`) as numbers.
Everything that follows from the tree is dimension-free and lives here: the node
kinematics (rotations, positions, Jacobians and convective terms, in 3-D; a planar
mechanism is one that stays in the x-y plane), the mass matrix and the bodies' forces,
loads and rotors on a joint's axis, the applied wrenches, the recursive scheme with the
loops added through their constraint Jacobian, and the snapshot every integrator and
output reads. A dimension supplies only what differs: how its force laws and its loop
constraints are written (:meth:`CompiledModel._wrenches`, :meth:`CompiledModel._constraints`),
the energy its springs store and a joint's angle.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np
import sympy

from ..core.rotations import cross, cross_rows
from ..elements.base import t
from ..errors import ModelError
from . import tree_kernels as kernels
from .beams import beam_set
from .bodyspace import BodyPartition, BodySpace
from .contact import unilateral_contacts
from .friction import coulomb_joints
from .multibody import solve

__all__ = ["CompiledModel", "Snapshot", "NodeKinematics", "cross", "point_wrenches", "LINEAR_ALGEBRA"]

#: how a compiled model solves its constrained equations: chosen by a cost prediction,
#: in joint space (``"dense"``) or in body space (``"sparse"``, :mod:`.bodyspace`)
LINEAR_ALGEBRA = ("auto", "dense", "sparse")
#: the automatic choice takes body space only from this many loop constraint rows on
SPARSE_ROWS = 6


def point_wrenches(r: np.ndarray, F: np.ndarray) -> np.ndarray:
    """The wrenches ``(r x F, F)`` (k x 6, about the world origin) of forces ``F`` acting
    at the points ``r`` (each k x 3, or one 3-vector for all).

    >>> point_wrenches(np.array([0.0, 1.0, 0.0]), np.array([[1.0, 0.0, 0.0]])).tolist()
    [[0.0, 0.0, -1.0, 1.0, 0.0, 0.0]]
    """
    r, F = np.atleast_2d(r), np.atleast_2d(F)
    out = np.empty((max(len(r), len(F)), 6))
    out[:, 0] = r[:, 1] * F[:, 2] - r[:, 2] * F[:, 1]
    out[:, 1] = r[:, 2] * F[:, 0] - r[:, 0] * F[:, 2]
    out[:, 2] = r[:, 0] * F[:, 1] - r[:, 1] * F[:, 0]
    out[:, 3:] = F
    return out


class NodeKinematics(NamedTuple):
    """The kinematics of a mechanism's nodes at ``q``, ``u`` (world axes): every node's
    rotation ``R`` (V x 3 x 3) and position ``r`` (V x 3); for the nodes where something
    acts (by :attr:`CompiledModel.row`), the Jacobians of the angular and linear velocity
    ``Jw``, ``Jv`` (k x 3 x nu), the velocity-dependent accelerations ``gw``, ``gv`` (k x
    3) and the angular and linear velocities ``w``, ``v`` (k x 3); and the walk's
    ``state`` (:class:`vecnet.numerics.tree_kernels.State`)."""

    R: np.ndarray
    r: np.ndarray
    Jw: np.ndarray
    Jv: np.ndarray
    gw: np.ndarray
    gv: np.ndarray
    w: np.ndarray
    v: np.ndarray
    state: Any


@dataclass
class Snapshot:
    """Everything about a mechanism at one instant ``(t, q, u)``: ``M u' = Q + Phi_u^T
    lambda`` with ``Phi_u u' = c``; ``phi_q`` is the constraint Jacobian in the speeds. The
    last :attr:`CompiledModel.velocity_rows` rows are velocity (nonholonomic) constraints
    ``A u + b = 0`` (``phi_q``, ``phi_t = b``, ``c``), whose ``phi`` is zero.

    ``kin`` holds the node kinematics (:meth:`CompiledModel.kinematics`); ``forces`` what
    each force element carries, ``name -> ((tail, head), F, T)`` (``-F`` at the head point
    and ``-T`` on the head frame); ``reactions`` the constraint rows of each chord, ``(chord,
    rows, W)`` with ``W`` (6 x rows, torque about the world origin above force) the wrench
    on the head frame per unit multiplier, ``None`` for a gear or rack (whose reaction goes
    partly to the ground through the axles)."""

    M: np.ndarray
    Q: np.ndarray
    phi: np.ndarray
    phi_q: np.ndarray
    phi_t: np.ndarray
    c: np.ndarray
    kin: NodeKinematics | None = None
    forces: dict = field(default_factory=dict)
    reactions: list = field(default_factory=list)


class CompiledModel(ABC):
    """What the compiled planar and spatial models share: parameter values, numbers from
    parameters, expressions compiled with common subexpressions, the kinematics and
    dynamics of the compiled tree ``_tree`` (:mod:`vecnet.numerics.tree_kernels`) and the
    recursive scheme.

    A subclass sets up ``n``, ``nu``, ``m``, ``gravity`` (3-vector), ``node`` (node name ->
    index), ``bodies`` (``(name, node, mass, 3 x 3 inertia about the mass centre in body
    axes)``), ``_tree`` and calls :meth:`_couple` and :meth:`_act_on`; it writes
    :meth:`_wrenches`, :meth:`_constraints`, :meth:`_stored_energy`, :meth:`joint_angle` and
    :meth:`_refresh`.

    Parameters named in ``runtime`` are not put in when compiling: the compiled functions
    take them as arguments, and :meth:`bind` sets their values, so that one compilation
    serves a whole parameter study.

    ``operations`` counts the arithmetic operations of everything compiled (after common
    subexpression elimination), a measure of the work per call.
    """

    #: coordinates, speeds and constraint rows
    n: int
    nu: int
    m: int
    #: gravity (3-vector), node name -> index, and the bodies ``(name, node, mass, J)``
    gravity: np.ndarray
    node: dict[str, int]
    bodies: list[tuple[str, int, float, np.ndarray]]
    #: the force elements ``(name, (tail, head))`` and the tree as the kernels read it
    force_elements: list[tuple[str, tuple[int, int]]]
    kernel_tree: kernels.Tree

    #: ``constraints`` gives the Jacobian in the speeds (used by the multibody numerics)
    jacobian_in_speeds = True
    #: whether the position-level equations coordinate partitioning solves
    #: (:meth:`position_constraints`) are others than the constraints (a spatial model's:
    #: quaternions normalized, their norms added)
    own_position_constraints = False
    #: the last ``velocity_rows`` of the ``m`` constraint rows are velocity (nonholonomic)
    #: constraints ``A(q) u + b = 0``, given at the speed level only: they have no position
    #: residual (``phi`` is zero there), and assembly and projection leave them out
    velocity_rows = 0
    #: whether a joint's angle comes wrapped to (-pi, pi] and is unwrapped in time
    wrapped_angles = False
    #: whether a constraint row outside :func:`~.kernels.primitive_rows` reads the
    #: nodes' convective accelerations (:meth:`_light_kinematics`)
    _bias_needed = True
    #: the components of spatial vectors (turn above velocity of the origin) the
    #: mechanism moves in: the body space of :mod:`.bodyspace`
    body_components: tuple[int, ...] = (0, 1, 2, 3, 4, 5)
    #: every loop constraint row's head and tail node (m x 2), and whether each row acts
    #: on its two nodes alone (a wrench on each per unit multiplier): set by a subclass
    _row_nodes: np.ndarray
    _body_form: bool = False

    def __init__(self, eom, parameters: dict | None, runtime=(),
                 linear_algebra: str = "auto") -> None:
        #: ``"auto"``, ``"dense"`` or ``"sparse"``: how the constrained equations are solved
        #: (:attr:`solver`; :meth:`use_linear_algebra` sets it)
        self.linear_algebra = "auto"
        self._space: BodySpace | None = None
        self._chosen: str | None = None
        #: how many constrained evaluations each path answered (``"sparse"``, ``"dense"``)
        self.path_counts = {"sparse": 0, "dense": 0}
        self._fallback = ""
        self.use_linear_algebra(linear_algebra)
        self.eom = eom
        #: the name of each constraint row (a spatial model adds its velocity constraints')
        self.constraint_names: tuple[str, ...] = tuple(eom.constraint_names)
        self.values = {(k if isinstance(k, sympy.Basic) else sympy.Symbol(str(k), real=True)):
                       sympy.sympify(v) for k, v in (parameters or {}).items()}
        self.operations = 0
        #: the parameters the compiled expressions hold (symbols)
        self.used: set[sympy.Symbol] = set()
        #: the names of the parameters that stay arguments of the compiled functions, set
        #: for each evaluation by :meth:`bind` instead of being put in when compiling
        self.runtime_names: tuple[str, ...] = tuple(str(name) for name in runtime)
        self._runtime_index = {name: k for k, name in enumerate(self.runtime_names)}
        self._runtime_symbols = [sympy.Symbol(name, real=True) for name in self.runtime_names]
        self._p = np.full(len(self.runtime_names), np.nan)
        #: whether a number of the set-up (a mass, a length, gravity ...) holds a runtime
        #: parameter, so that :meth:`bind` works the numbers out again
        self.varying_numbers = False

    @property
    def runtime_values(self) -> dict[str, float]:
        """The values the runtime parameters are bound to (NaN before :meth:`bind`)."""
        return dict(zip(self.runtime_names, self._p.tolist()))

    def bind(self, values) -> CompiledModel:
        """Set runtime parameters (name -> number) for the evaluations that follow: the
        compiled functions take them as arguments, the numbers of the set-up (masses,
        lengths, gravity) are worked out again when they hold one. Nothing is compiled.
        Returns the model itself.

        Raises
        ------
        ModelError
            For a name that is not a runtime parameter, or a value that makes a number of
            the set-up undefined (the values bound before are kept then).

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("p", gravity=(0, vn.Symbol("g")))
        >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(0, -1))
        >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
        >>> model = mech.formulate().compile_model(None, runtime=["g"])
        >>> model.bind({"g": -9.81}).gravity.tolist()
        [0.0, -9.81, 0.0]
        """
        unknown = sorted(str(k) for k in values if str(k) not in self._runtime_index)
        if unknown:
            raise ModelError(f"{', '.join(map(repr, unknown))}: not runtime parameter(s) of "
                             "this compiled model; its runtime parameters are "
                             f"{', '.join(self.runtime_names) or 'none'}")
        previous = self._p
        p = previous.copy()
        for name, value in values.items():
            p[self._runtime_index[str(name)]] = float(value)
        if np.array_equal(p, previous):
            return self
        self._p = p
        self.__dict__.pop("_evaluated", None)   # evaluate()'s last instant, of other numbers
        if self.varying_numbers:
            try:
                self._refresh()
            except Exception:
                self._p = previous
                self._refresh()
                raise
        return self

    @abstractmethod
    def _refresh(self) -> None:
        """Work out again the numbers of the set-up that hold runtime parameters (after
        :meth:`bind`): the bodies, gravity, the rotors and the tree's arrays."""

    def number(self, value, owner: str) -> float:
        """``value`` with the parameters put in, as a float."""
        if isinstance(value, (int, float)) or getattr(value, "is_Number", False):
            return float(value)     # a number already (a model's many contacts' numbers)
        value = sympy.sympify(value)
        self.used |= value.free_symbols
        value = value.xreplace(self.values)
        if self.runtime_names and value.free_symbols:
            varying = {s: sympy.Float(self._p[self._runtime_index[str(s)]])
                       for s in value.free_symbols if str(s) in self._runtime_index}
            if varying:
                self.varying_numbers = True
                value = value.xreplace(varying)
        if value.free_symbols:
            raise ModelError(f"{owner!r}: no value for parameter(s) "
                             + ", ".join(sorted(map(str, value.free_symbols)))
                             + "; pass parameters={...}")
        try:
            return float(value)
        except TypeError:   # zoo, a complex number
            raise ModelError(f"{owner!r}: {value} is not a real number with these parameter "
                             "values") from None

    def lambdify(self, args, exprs, owner: str, count: bool = False):
        """A numeric function of ``args`` returning ``exprs`` (parameters put in) as one
        flat float array; ``count`` adds its operations to :attr:`operations`. The runtime
        parameters (:attr:`runtime_names`) stay symbols: the function reads their values,
        set by :meth:`bind`, when it is called."""
        exprs = [sympy.sympify(e) for e in exprs]
        known = {t}.union(*(set(a) if isinstance(a, (list, tuple)) else {a} for a in args))
        self.used |= set().union(*(e.free_symbols for e in exprs)) - known
        exprs = [e.xreplace(self.values) for e in exprs]
        if self.runtime_names:
            exprs = [e.xreplace({s: self._runtime_symbols[self._runtime_index[str(s)]]
                                 for s in e.free_symbols if str(s) in self._runtime_index})
                     for e in exprs]
            known = known | set(self._runtime_symbols)
        free = set().union(*(e.free_symbols for e in exprs)) - known if exprs else set()
        if free:
            raise ModelError(f"{owner!r}: no value for parameter(s) "
                             + ", ".join(sorted(map(str, free))) + "; pass parameters={...}")
        if count:
            replacements, reduced = sympy.cse(exprs)
            self.operations += sum(sympy.count_ops(v) for _, v in replacements) + sum(
                sympy.count_ops(e) for e in reduced)
        if self.runtime_names:
            fn = sympy.lambdify([*args, self._runtime_symbols], exprs, modules="numpy", cse=True)
            return lambda *a: np.asarray(fn(*a, self._p), dtype=float).reshape(-1)
        fn = sympy.lambdify(args, exprs, modules="numpy", cse=True)
        return lambda *a: np.asarray(fn(*a), dtype=float).reshape(-1)

    # -- set-up ---------------------------------------------------------------------------
    def axis_vector(self, axis, coordinate: str) -> np.ndarray | None:
        """An axis as a 3-vector (a planar one in the x-y plane; a planar turn is about z)."""
        if axis is None:
            return np.array([0.0, 0.0, 1.0]) if coordinate == "angle" else None
        out = np.zeros(3)
        out[:len(axis)] = [float(a) for a in axis]
        return out

    def _couple(self) -> None:
        """The loads across joints or between points (the inputs ``w``, what a coupled
        network applies) and the rotors turning with a joint's angle, each as
        ``(coordinate, tail node, head node, axis)``."""
        eom = self.eom
        self.loads = []
        for target in eom.joint_loads:
            coordinate, tail, head, axis = eom.load_target(target)
            self.loads.append((coordinate, self.node[tail], self.node[head],
                               self.axis_vector(axis, coordinate)))
        self.rotors = []
        for joint, inertia in eom.rotors.items():
            _, tail, head, axis = eom.load_target(f"{joint}.angle")
            self.rotors.append((("angle", self.node[tail], self.node[head],
                                 self.axis_vector(axis, "angle")), self.number(inertia, joint)))
        # set-valued joint friction: its Coulomb forces are loads after the network's
        self.friction = coulomb_joints(self)
        # unilateral contacts: their forces are loads too, set by their modes
        self.contacts = unilateral_contacts(self)
        # beam elements: end loads and a consistent inertia that couples their nodes
        self.beams = beam_set(self)
        self._no_inputs = np.zeros(len(self.loads))

    def _act_on(self, nodes) -> None:
        """The nodes whose Jacobians the bodies, constraints, loads and rotors need, beside
        ``nodes``."""
        needed = sorted(set(nodes) | {b[1] for b in self.bodies}
                        | {i for _, a, b, _ in self.loads for i in (a, b)}
                        | {i for (_, a, b, _), _ in self.rotors for i in (a, b)})
        self._needed = np.array(needed, dtype=np.int64)
        self.row = {v: k for k, v in enumerate(needed)}
        self.zero_speeds = np.zeros(self.nu)
        self._no_wrenches = np.zeros((self.kernel_tree.n_nodes, 6))

    # -- the multibody interface: q' = u unless a subclass maps them ----------------------------
    def kinematic_map(self, q: np.ndarray) -> np.ndarray | None:
        """``N(q)`` with ``q' = N(q) u``; ``None`` here, where ``q' = u``."""
        return None

    def rates(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """``q'`` from the speeds: ``u`` itself here."""
        return u

    def normalize(self, q: np.ndarray) -> np.ndarray:
        """``q`` with every unit quaternion normalized: unchanged here, where there is none."""
        return q

    def position_constraints(self, time: float, q: np.ndarray):
        """``(residual, Jacobian in q)`` of the position-level equations: the constraints
        here (:attr:`own_position_constraints`)."""
        phi, phi_q, _ = self.constraints(time, q)
        return phi, phi_q

    # -- kinematics ---------------------------------------------------------------------------
    def kinematics(self, q: np.ndarray, u: np.ndarray) -> NodeKinematics:
        """The nodes' :class:`NodeKinematics` at ``q``, ``u``."""
        return self._kinematics_of(kernels.state(self.kernel_tree, q, u))

    def _kinematics_of(self, st) -> NodeKinematics:
        Jw, Jv, gw, gv = kernels.jacobians(self.kernel_tree, st, self._needed, self.nu)
        rows = self._needed
        return NodeKinematics(st.R, st.r, Jw, Jv, gw, gv, st.w[rows], st.v[rows], st)

    def _light_kinematics(self, st, accelerations: bool = True,
                          every_node: bool = False) -> NodeKinematics:
        """The kinematics of :meth:`kinematics` without the Jacobians (zero columns: the
        constraints' rows in the speeds come out empty), in time linear in the size: the
        convective accelerations of the nodes from the walk's bias accelerations (zero
        unless ``accelerations`` and some constraint outside
        :func:`~vecnet.numerics.tree_kernels.primitive_rows` reads them, ``_bias_needed``, or
        ``every_node`` asks for them)."""
        rows = self._needed
        if accelerations and (self._bias_needed or every_node):
            gw, gv = kernels.node_bias(rows, st.r, st.w, st.v, st.A0)
        else:
            gw = gv = np.zeros((len(rows), 3))
        none = np.zeros((len(rows), 3, 0))
        return NodeKinematics(st.R, st.r, none, none, gw, gv, st.w[rows], st.v[rows], st)

    def body_constraints(self, time: float, q: np.ndarray, u: np.ndarray, st,
                         accelerations: bool = True):
        """The loop constraints in body form at the walk's state ``st``: ``(phi, phi_t,
        gamma, W)`` with ``W`` (m x 2 x 6) each row's wrenches on its head and tail node
        per unit multiplier (``Phi_u = Wh^T J_head + Wt^T J_tail``, ``J`` the nodes'
        spatial Jacobians about the world origin) and ``gamma`` its right-hand side in
        the nodes' spatial accelerations, ``Wh . A_head + Wt . A_tail = gamma`` (``None``
        unless ``accelerations``). Only for rows in body form (``_body_form``)."""
        W = np.zeros((self.m, 2, 6))
        phi, _, phi_t, c, _ = self._constraints(time, q, u,
                                                self._light_kinematics(st, accelerations),
                                                accelerations=accelerations, wrenches=W)
        if not accelerations:
            return phi, phi_t, None, W
        return phi, phi_t, kernels.row_rates(c, W, st.A0, self._row_nodes), W

    # -- the choice of linear algebra -----------------------------------------------------
    def use_linear_algebra(self, linear_algebra: str) -> CompiledModel:
        """Solve the constrained equations as ``linear_algebra`` says (``"auto"``,
        ``"dense"``, ``"sparse"``; :attr:`solver`); returns the model itself.

        Raises
        ------
        ModelError
            For another value.
        """
        if linear_algebra not in LINEAR_ALGEBRA:
            raise ModelError(f"linear_algebra is one of {', '.join(map(repr, LINEAR_ALGEBRA))}; "
                             f"got {linear_algebra!r}")
        if linear_algebra != self.linear_algebra:
            self.linear_algebra, self._chosen = linear_algebra, None
        return self

    def linear_algebra_report(self) -> tuple[str, str]:
        """Which path solved the constrained evaluations counted in :attr:`path_counts`
        (``"sparse"``, ``"dense"`` or ``"sparse+dense"``; ``""`` without loops) and a
        sentence saying so, with the reason the dense path answered."""
        if not self.m:
            return "", ""
        sparse, dense = self.path_counts["sparse"], self.path_counts["dense"]
        if sparse and dense:
            return "sparse+dense", (f"constrained equations solved in body space (sparse) at "
                                    f"{sparse} evaluations, in joint space (dense) at {dense}: "
                                    f"{self.fallback}")
        if sparse:
            return "sparse", "constrained equations solved in body space (sparse)"
        why = self.fallback if self.solver == "dense" or dense else ""
        return "dense", "constrained equations solved in joint space (dense)" \
            + (f": {why}" if why else "")

    @property
    def solver(self) -> str:
        """``"sparse"`` when the constrained equations are solved in body space
        (:mod:`.bodyspace`: time linear in the size for sparse loop topologies), else
        ``"dense"`` (joint space). Chosen when first asked, from :attr:`linear_algebra`:
        ``"auto"`` takes body space for at least ``SPARSE_ROWS`` loop constraint rows
        when it is predicted cheaper (:meth:`predicted_costs`)."""
        if self._chosen is None:
            self._chosen, self._fallback = self._choose()
        return self._chosen

    @property
    def fallback(self) -> str:
        """Why the dense path answers: the reason it was chosen, or why the body-space path
        last gave an evaluation up (``""``: it did not)."""
        self.solver   # the choice sets it
        return self._fallback

    def body_partition(self, rows: np.ndarray, dep: np.ndarray,
                       ind: np.ndarray) -> BodyPartition | None:
        """The projections of a coordinate partition (loop rows ``rows``, dependent and
        independent speeds ``dep``, ``ind``) in body space
        (:class:`~vecnet.numerics.bodyspace.BodyPartition`), on the sparse path where the
        coordinates' rates are the speeds (no quaternions); else ``None``."""
        if self.solver != "sparse" or len(getattr(self, "quaternions", ())):
            return None
        assert self._space is not None
        try:
            projection = self._space.projection(rows, ind)
        except ValueError:
            return None
        return BodyPartition(self, projection, dep)

    def body_space(self) -> BodySpace | None:
        """The body space the sparse path solves in (``None`` on the dense path)."""
        return self._space if self.solver == "sparse" else None

    def _choose(self) -> tuple[str, str]:
        """``(path, why the dense path is taken)``."""
        mode = self.linear_algebra
        if mode == "dense":
            return "dense", "asked for"
        if not self.m:
            return "dense", "no loop constraints"
        if self.velocity_rows:
            return "dense", "velocity constraints (rolling wheels)"
        if not self._body_form:
            return "dense", "a constraint acts on more than two bodies (a gear or rack)"
        if self.rotors:
            return "dense", "rotor inertias geared to joints"
        if self.beams is not None:
            return "dense", "beam elements, whose inertia couples their nodes"
        if mode == "auto" and self.m < SPARSE_ROWS:
            return "dense", f"fewer than {SPARSE_ROWS} loop constraint rows"
        space = BodySpace(self.kernel_tree, self._row_nodes, self.body_components)
        q = np.zeros(self.n)
        q[getattr(self, "_quaternion_index", np.zeros((0, 4), dtype=int))[:, 0]] = 1.0
        space.check_inertias(self.kernel_tree, kernels.state(self.kernel_tree, q, self.zero_speeds))
        if not space.supported:
            return "dense", space.reason
        self._space = space
        if mode == "sparse":
            return "sparse", ""
        sparse, dense = self.predicted_costs()
        return ("sparse", "") if sparse < dense else \
            ("dense", f"predicted cheaper ({dense:.3g} against {sparse:.3g} us per evaluation)")

    def predicted_costs(self) -> tuple[float, float]:
        """The predicted cost of one right-hand side of the partitioned integrator on the
        body-space and on the joint-space path, ``(sparse, dense)``, in microseconds of
        the machine they were fitted on (least squares over planar and spatial ladders,
        fans of links on a platform and random mechanisms; only their ratio matters).
        Body space: the walks (per branch), the band Cholesky of the Schur complement
        (``n kd^2``), the pairs of rows on each body and the bodies' ``d^3`` solves; joint
        space: the nodes' Jacobians (the speeds on their paths to the datum, which the
        constraint rows, the articulated-body sweeps per row and the dense Schur complement
        follow in size) and the spatial constraints' overhead."""
        space = self._space or BodySpace(self.kernel_tree, self._row_nodes, self.body_components)
        d = space.d
        lay = space.layout(np.arange(self.m))
        pairs = float(np.sum(np.diff(lay.gptr) ** 2))
        sparse = 156.0 + 1.23 * len(self.kernel_tree.parent) \
            + 1.9e-4 * lay.n * (lay.kd + 1) * (lay.kd + 2) + 4.55e-3 * pairs * d \
            + 6.93e-3 * space.n_groups * d ** 3
        tree = self.kernel_tree
        depth = np.zeros(tree.n_nodes)
        for b in range(len(tree.parent)):
            depth[tree.child[b]] = depth[tree.parent[b]] + tree.nk[b]
        dense = 93.0 + 0.192 * d * float(depth[self._needed].sum()) + 27.7 * d
        return sparse, dense

    def axial_row(self, kin, coordinate, a, b, axis, convective=True):
        """``(g, gamma)`` of the rate of a joint's ``"angle"`` about or ``"distance"`` along
        its axis (fixed in the tail body, nodes ``a`` and ``b``), or of the distance between
        two points (``"line"``): the rate is ``g u`` and its derivative ``g u' + gamma``.
        ``g`` is also the generalized force of a unit load on that coordinate, and the row
        of a driver's constraint. ``gamma`` is ``None`` for a line, or unless
        ``convective``."""
        ka, kb = self.row[a], self.row[b]
        g = axial_rows(kin, coordinate, np.array([a]), np.array([b]), np.array([ka]),
                       np.array([kb]), None if axis is None else np.asarray(axis)[None])[0]
        if coordinate == "line" or not convective:
            return g, None
        d = kin.r[b] - kin.r[a]
        e = kin.R[a] @ axis
        wa = kin.w[ka]
        if coordinate == "angle":    # e . (w_b - w_a), e turning with the tail
            return g, e @ (kin.gw[kb] - kin.gw[ka]) + cross(wa, e) @ (kin.w[kb] - wa)
        # e . d: (w_a x e) . d + e . (v_b - v_a), once more for the convective part
        ed = cross(kin.gw[ka], e) + cross(wa, cross(wa, e))
        return g, (ed @ d + 2 * cross(wa, e) @ (kin.v[kb] - kin.v[ka])
                   + e @ (kin.gv[kb] - kin.gv[ka]))

    # -- what a dimension writes ---------------------------------------------------------
    @abstractmethod
    def _wrenches(self, time: float, q: np.ndarray, u: np.ndarray, st) -> tuple[np.ndarray, dict]:
        """The spatial wrenches (V x 6, about the world origin) the force elements apply to
        the nodes at the walk's state ``st``, and :attr:`Snapshot.forces`."""

    def _element_wrenches(self, time: float, q: np.ndarray, u: np.ndarray,
                          st) -> tuple[np.ndarray, dict]:
        """:meth:`_wrenches` with the beam elements' end loads added."""
        wrenches, forces = self._wrenches(time, q, u, st)
        if self.beams is None:
            return wrenches, forces
        wrenches = wrenches.copy()
        return wrenches, {**forces, **self.beams.wrenches(st.r, st.R, wrenches)}

    @abstractmethod
    def _constraints(self, time: float, q: np.ndarray, u: np.ndarray, kin: NodeKinematics,
                     accelerations: bool = True, reactions: bool = False,
                     wrenches: np.ndarray | None = None):
        """``(phi, phi_u, phi_t, c, reactions)`` (:class:`Snapshot`); ``c`` only with
        ``accelerations``, the reactions (else an empty list) only with ``reactions``;
        ``phi_u`` has as many columns as the Jacobians of ``kin``. ``wrenches`` (m x 2 x
        6), if given, receives each row's wrenches on its head and tail node
        (:meth:`body_constraints`)."""

    @abstractmethod
    def _stored_energy(self, q: np.ndarray, st) -> float:
        """The energy stored in the springs."""

    @abstractmethod
    def joint_angle(self, element, kin: NodeKinematics) -> float:
        """The angle of a joint that turns about an axis, head frame against tail frame."""

    # -- dynamics -----------------------------------------------------------------------
    def _body_terms(self, kin: NodeKinematics, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``M`` and the bodies' forces (gravity, velocity and gyroscopic terms), from the
        Jacobians of their mass centres: ``M = sum m Jv^T Jv + Jwb^T J Jwb`` and ``Q = sum
        Jv^T m (g - gv) - Jwb^T (J gwb + wb x J wb)`` (body axes ``b``), every body at once."""
        made = self.__dict__.get("_inertial")
        if made is None or made[0] is not self.bodies:
            # the bodies with inertia (not a beam's node) as arrays, for each list of bodies
            # (bind() makes a new one with its numbers)
            inertial = [(node, m, J) for _, node, m, J in self.bodies if m or J.any()]
            m = np.array([m for _, m, _ in inertial], dtype=float)
            stacked = (np.array([node for node, _, _ in inertial], dtype=np.int64),
                       np.array([self.row[node] for node, _, _ in inertial], dtype=np.int64),
                       m, np.repeat(m, 3)[:, None],
                       np.array([J for _, _, J in inertial], dtype=float).reshape(-1, 3, 3))
            made = (self.bodies, stacked)
            self.__dict__["_inertial"] = made
        nodes, rows, m, m_rows, J = made[1]
        nu = self.nu
        if not len(nodes):
            return np.zeros((nu, nu)), np.zeros(nu)
        Rt = kin.R[nodes].transpose(0, 2, 1)
        Jv, Jwb = kin.Jv[rows], Rt @ kin.Jw[rows]           # bodies x 3 x nu
        wb, gwb = Jwb @ u, (Rt @ kin.gw[rows][:, :, None])[:, :, 0]
        Jw_wb = (J @ wb[:, :, None])[:, :, 0]
        flat_v, flat_w = Jv.reshape(-1, nu), Jwb.reshape(-1, nu)
        M = (flat_v * m_rows).T @ flat_v + flat_w.T @ (J @ Jwb).reshape(-1, nu)
        force = m[:, None] * (self.gravity - kin.gv[rows])
        torque = (J @ gwb[:, :, None])[:, :, 0] + cross_rows(wb, Jw_wb)
        Q = flat_v.T @ force.ravel() - flat_w.T @ torque.ravel()
        return M, Q

    def evaluate(self, time: float, q: np.ndarray, u: np.ndarray, w=None,
                 reactions: bool = False) -> Snapshot:
        """Mass matrix, forces and constraints at ``(t, q, u)`` with the loads ``w``
        (:attr:`~vecnet.formulation.multibody.MechanismEquations.inputs`, default zero);
        with ``reactions``, also what each chord's multipliers apply
        (:attr:`Snapshot.reactions`)."""
        w = self._no_inputs if w is None else np.asarray(w, dtype=float)
        # the loads enter Q linearly: an instant evaluated again with other loads (a
        # contact's or a friction's forces found, then applied) adds the rows of those
        # not zero (of many contacts, the few closed)
        key = (time, np.asarray(q).tobytes(), np.asarray(u).tobytes(), reactions)
        last = self.__dict__.get("_evaluated")
        if last is None or last[0] != key:
            last = (key, self._evaluate(time, q, u, reactions))
            self.__dict__["_evaluated"] = last
        snap = last[1]
        acting = np.flatnonzero(w)
        if not len(acting):
            return snap
        assert snap.kin is not None     # _evaluate keeps the kinematics it read
        return replace(snap, Q=snap.Q + self.load_rows(snap.kin, acting).T @ w[acting])

    def _evaluate(self, time: float, q: np.ndarray, u: np.ndarray,
                  reactions: bool) -> Snapshot:
        """:meth:`evaluate` without loads."""
        kin = self.kinematics(q, u)
        M, Q = self._body_terms(kin, u)
        if self.beams is not None:
            Mb, Qb = self.beams.inertia(kin, self.row, self.gravity)
            M += Mb
            Q += Qb
        for (_, a, b, axis), J in self.rotors:   # J (g u' + gamma) about the joint's axis
            g, gamma = self.axial_row(kin, "angle", a, b, axis)
            M += J * np.outer(g, g)
            Q -= J * gamma * g
        wrenches, forces = self._element_wrenches(time, q, u, kin.state)
        if forces:
            Q += kernels.generalized_forces(self.kernel_tree, kin.state, wrenches, self.nu)
        if self.m:
            phi, phi_u, phi_t, c, maps = self._constraints(time, q, u, kin, reactions=reactions)
        else:
            phi, phi_u, phi_t, c, maps = (np.zeros(0), np.zeros((0, self.nu)), np.zeros(0),
                                          np.zeros(0), [])
        return Snapshot(M, Q, phi, phi_u, phi_t, c, kin, forces, maps)

    @property
    def needed_nodes(self) -> np.ndarray:
        """The nodes where something acts, in the order of the rows of :meth:`kinematics`
        (:attr:`row` gives a node's row)."""
        return self._needed

    def outline(self, time: float, q: np.ndarray, u: np.ndarray):
        """What :meth:`evaluate` gives at ``(t, q, u)`` but the mass matrix, the generalized
        forces and the Jacobians, in time linear in the size: ``(kin, phi, forces, reactions)``, the
        kinematics without Jacobians (:meth:`_light_kinematics`, every node's convective
        accelerations in), the constraint residuals, what the force elements carry and
        what each chord's multipliers apply (:class:`Snapshot`)."""
        st = kernels.state(self.kernel_tree, q, u)
        kin = self._light_kinematics(st, every_node=True)   # the outputs read them all
        forces = self._element_wrenches(time, q, u, st)[1]
        if not self.m:
            return kin, np.zeros(0), forces, []
        phi, _, _, _, maps = self._constraints(time, q, u, kin, reactions=True)
        return kin, phi, forces, maps

    def mass_and_forces(self, time: float, q: np.ndarray, u: np.ndarray):
        """``(M, Q)`` at ``(t, q, u)`` with no loads across joints."""
        snap = self.evaluate(time, q, u)
        return snap.M, snap.Q

    def constraints(self, time: float, q: np.ndarray):
        """``(Phi, Phi_u, Phi_t)`` of the position-level constraints at ``(t, q)`` (the
        first ``m - velocity_rows`` rows); the Jacobian is in the speeds
        (``Phi_u = Phi_q N``), which is all assembly and projection need."""
        kin = self.kinematics(q, self.zero_speeds)
        phi, phi_u, phi_t = self._constraints(time, q, self.zero_speeds, kin, accelerations=False)[:3]
        if self.velocity_rows:
            held = self.m - self.velocity_rows
            return phi[:held], phi_u[:held], phi_t[:held]
        return phi, phi_u, phi_t

    def velocity_constraints(self, time: float, q: np.ndarray):
        """``(A, b)`` of every constraint at the speed level, ``A u + b = 0``: the position
        constraints' ``(Phi_u, Phi_t)`` and then the velocity constraints' rows."""
        kin = self.kinematics(q, self.zero_speeds)
        return self._constraints(time, q, self.zero_speeds, kin, accelerations=False)[1:3]

    def _load_columns(self, q: np.ndarray) -> list[np.ndarray]:
        """The generalized forces of unit loads across joints at ``q``."""
        if not self.loads:
            return []
        return list(self.load_rows(self.kinematics(q, self.zero_speeds)))

    def load_rows(self, kin: NodeKinematics, which: np.ndarray | None = None) -> np.ndarray:
        """The generalized force of a unit load on each of :attr:`loads` (loads x nu), or
        on those at the indices ``which`` (in that order): the ``g`` of
        :meth:`axial_row`, the loads of one coordinate at once (a contact's six loads, a
        network's on many joints)."""
        made = self.__dict__.get("_load_groups")
        if made is None or made[0] is not self.loads:
            # the loads by coordinate as index arrays, for each list of loads (bind() makes
            # a new one with its numbers)
            groups = []
            for coordinate in ("angle", "distance", "line"):
                of = [k for k, load in enumerate(self.loads) if load[0] == coordinate]
                if not of:
                    continue
                a = np.array([self.loads[k][1] for k in of])
                b = np.array([self.loads[k][2] for k in of])
                axes = None if coordinate == "line" else \
                    np.array([self.loads[k][3] for k in of], dtype=float)
                groups.append((coordinate, np.array(of), a, b,
                               np.array([self.row[x] for x in a]),
                               np.array([self.row[x] for x in b]), axes))
            made = (self.loads, groups)
            self.__dict__["_load_groups"] = made
        if which is None:
            which = np.arange(len(self.loads))
        rows = np.zeros((len(which), self.nu))
        place = np.full(len(self.loads), -1)
        place[which] = np.arange(len(which))
        for coordinate, at, a, b, ka, kb, axes in made[1]:
            slots = place[at]
            taken = slots >= 0
            if taken.any():
                rows[slots[taken]] = axial_rows(kin, coordinate, a[taken], b[taken], ka[taken],
                                                kb[taken], None if axes is None else axes[taken])
        return rows

    def potential(self, q: np.ndarray, kin: NodeKinematics) -> float:
        """Gravity and spring potential energy."""
        value = -sum(m * self.gravity @ kin.r[node] for _, node, m, _ in self.bodies)
        if self.beams is not None:
            value += self.beams.energy(kin.r, kin.R) \
                + self.beams.weight_potential(kin.r, kin.R, self.gravity)
        return float(value + self._stored_energy(q, kin.state))

    # -- the recursive scheme -------------------------------------------------------------
    def accelerations(self, time: float, q: np.ndarray, u: np.ndarray, rows: np.ndarray,
                      tau: np.ndarray | None = None):
        """``(u', lambda)`` by the recursive scheme: the tree's accelerations ``a`` by the
        articulated-body algorithm and ``Y = M^-1 Phi_u^T`` (constraint rows ``rows``) by the
        same recursion, then ``(Phi_u Y) lambda = c - Phi_u a`` — a system the size of the
        loop constraints — and ``u' = a + Y lambda``; ``tau`` (generalized forces in the
        speeds) adds to the right-hand side. ``None`` where the recursion cannot
        answer (a branch with no inertia beyond it, a rotor's inertia outside the tree's
        bodies), for the caller to solve the saddle-point system of ``M`` instead."""
        if self.rotors or self.beams is not None:
            return None   # inertia outside the tree's bodies
        tree = self.kernel_tree
        if tau is None and not self.force_elements and not (self.m and len(rows)):
            # gravity alone
            fast = self.open_chain_rates() if not self.m else None
            if fast is not None:
                out = fast(np.concatenate([q, u]))
                return None if out is None else (out[self.n:], np.zeros(self.m))
            a = kernels.free_motion(tree, q, u, self.nu)
            return (a, np.zeros(self.m)) if np.isfinite(a.sum()) or np.isfinite(a).all() \
                else None
        st = kernels.state(tree, q, u)
        wrenches = self._wrenches(time, q, u, st)[0] if self.force_elements \
            else self._no_wrenches
        nu = self.nu
        if len(rows) and self.solver == "sparse" and tau is None:
            out = self._body_accelerations(time, q, u, rows, st, wrenches)
            if out is not None:
                self.path_counts["sparse"] += 1
                return out
        if self.m and len(rows):
            self.path_counts["dense"] += 1
        a = kernels.forward_dynamics(tree, st, self.zero_speeds if tau is None else tau,
                                       wrenches, nu)
        lam = np.zeros(self.m)
        if self.m and len(rows):
            _, phi_u, _, c, _ = self._constraints(time, q, u, self._kinematics_of(st))
            A = phi_u[rows]
            Y = kernels.inverse_mass(tree, st, A.T, nu)
            try:
                lam[rows] = solve(A @ Y, c[rows] - A @ a)
            except np.linalg.LinAlgError:
                return None
            a = a + Y @ lam[rows]
        # one sum tells that every entry is finite, but for an overflow of the sum itself
        return (a, lam) if np.isfinite(a.sum() + lam.sum()) or (
            np.isfinite(a).all() and np.isfinite(lam).all()) else None

    def _body_accelerations(self, time, q, u, rows, st, wrenches):
        """``(u', lambda)`` in body space (:meth:`BodySpace.accelerations`), ``None`` where
        it cannot answer (the reason in :attr:`fallback`)."""
        space = self._space
        assert space is not None
        _, _, gamma, W = self.body_constraints(time, q, u, st)
        out = space.accelerations(self.kernel_tree, st, wrenches, W, gamma, rows, self.nu)
        if out is None:
            self._fallback = ("a rigid body's inertia or a joint's motion is degenerate, or "
                             "the loop constraints are dependent")
            return None
        a, multipliers = out
        lam = np.zeros(self.m)
        lam[rows] = multipliers
        if not (np.isfinite(a.sum() + multipliers.sum())
                or (np.isfinite(a).all() and np.isfinite(multipliers).all())):
            return None
        return a, lam

    def forward_dynamics(self, time: float, q: np.ndarray, u: np.ndarray,
                         tau: np.ndarray | None = None) -> np.ndarray | None:
        """``u'`` of a mechanism without loops by the recursive scheme, in time linear in its
        size, under the generalized forces ``tau`` (in the speeds; default none) besides
        its own; ``None`` where the recursion cannot answer (see :meth:`accelerations`)."""
        out = self.accelerations(time, q, u, np.zeros(0, dtype=int), tau)
        return None if out is None else out[0]

    def open_chain_rates(self):
        """``y -> y'`` of ``y = (q, u)`` (``None`` where the recursion has no answer: a
        branch without inertia beyond it) for a mechanism that gravity and its velocity
        terms alone move — no loops, force elements or rotors; its loads (inputs) at zero —
        in one compiled call (:func:`~.kernels.open_chain_rates`) on the tree packed once,
        with work space kept here; ``None`` for any other mechanism. A simulation's
        right-hand side: nothing in Python stands between the integrator and the kernel but
        this closure."""
        packed = self._open_chain()
        if packed is None:
            return None
        made = self.__dict__.get("_rates")   # one closure for each packed tree
        if made is not None and made[0] is packed:
            return made[1]
        itab, ftab, work = packed
        kernel = kernels.open_chain_rates

        def rates(y: np.ndarray) -> np.ndarray | None:
            out, ok = kernel(itab, ftab, work, y)
            return out if ok else None

        self.__dict__["_rates"] = (packed, rates)
        return rates

    def open_chain_accelerations(self):
        """``(q, u) -> u'`` by :meth:`open_chain_rates`'s kernel, for writable contiguous
        float vectors (``None`` for anything else, vectors of other sizes, or where the
        recursion has no answer); ``None`` for the mechanisms off that path. What the public
        :func:`vecnet.forward_dynamics` calls first: one check of the arguments' types and
        one compiled call."""
        made = self.__dict__.get("_accelerations")     # one closure for each tree
        if made is not None and made[0] is self.kernel_tree:
            return made[1]
        packed = self._open_chain()
        if packed is None:
            return None
        itab, ftab, work = packed
        kernel, contiguous = kernels.open_chain_accelerations, (8,)
        ndarray, f64 = np.ndarray, np.dtype(np.float64)

        def accelerations(q, u) -> np.ndarray | None:
            # writable contiguous float vectors, the kernel's one compiled signature (a
            # read-only or strided array would compile another, for seconds); the kernel
            # checks their sizes and that y and y' are finite
            if type(q) is not ndarray or type(u) is not ndarray or q.dtype is not f64 \
                    or u.dtype is not f64 or q.strides != contiguous or u.strides != contiguous \
                    or not (q.flags.writeable and u.flags.writeable):
                return None
            out, ok = kernel(itab, ftab, work, q, u)
            return out if ok else None

        self.__dict__["_accelerations"] = (self.kernel_tree, accelerations)
        return accelerations

    def open_chain_stages(self):
        """For the mechanisms of :meth:`open_chain_rates`, one attempted step of DOP853 in
        one compiled call (:func:`~.kernels.open_chain_rk_step`): a function of
        ``(y, f, h, K, A, B, C, E3, E5, rtol, atol)`` giving ``(y_new, f_new, error_norm)``,
        or ``None`` where a stage is not finite (the ``stages`` of
        :func:`~.integrators.solve_ivp` but for the time, as gravity alone moves the tree);
        ``None`` for any other mechanism."""
        packed = self._open_chain()
        if packed is None:
            return None
        itab, ftab, work = packed
        kernel = kernels.open_chain_rk_step

        def stages(y, f, h, K, A, B, C, E3, E5, rtol, atol):
            y_new, f_new, error = kernel(itab, ftab, work, y, f, h, A, B, C, E3, E5, K, rtol,
                                         atol)
            return None if error < 0 else (y_new, f_new, error)

        return stages

    def _open_chain(self):
        """The tree packed for the open-chain kernels (:func:`~.kernels.pack`), once for
        each tree (:meth:`bind` makes a new one); ``None`` for a mechanism that loops,
        force elements, rotors or beams take off that path."""
        # the loads (a network's, the contacts') are inputs: the kernel's motion is the one
        # at zero loads, what its callers ask for (no inputs given)
        if self.m or self.force_elements or self.rotors or self.beams is not None:
            return None
        packed = self.__dict__.get("_packed")
        if packed is None or packed[0] is not self.kernel_tree:
            tree = self.kernel_tree
            packed = (tree, kernels.pack(tree, self.n, self.nu))
            self.__dict__["_packed"] = packed
        return packed[1]

    def mass_matrix(self, q: np.ndarray) -> np.ndarray:
        """``M(q)`` by the composite-rigid-body recursion (with beams, assembled)."""
        if self.beams is not None:
            return self.evaluate(0.0, q, self.zero_speeds).M
        return kernels.mass(self.kernel_tree, kernels.state(self.kernel_tree, q, self.zero_speeds), self.nu)


def axial_rows(kin: NodeKinematics, coordinate: str, a: np.ndarray, b: np.ndarray,
               ka: np.ndarray, kb: np.ndarray, axes: np.ndarray | None) -> np.ndarray:
    """The rows ``g`` (k x nu) of the rates ``g u`` of k joints' ``coordinate`` (all
    ``"angle"``, ``"distance"`` or ``"line"``) between nodes ``a`` and ``b`` (their
    Jacobians' rows ``ka``, ``kb``), about or along ``axes`` (k x 3, fixed in the tail
    body): ``e . (w_b - w_a)``, ``(w_a x e) . d + e . (v_b - v_a)`` with ``d = r_b - r_a``,
    or ``d . (v_b - v_a) / |d|``."""
    d = kin.r[b] - kin.r[a]
    Jv = kin.Jv[kb] - kin.Jv[ka]
    if coordinate == "line":
        return ((d / np.linalg.norm(d, axis=1)[:, None])[:, None, :] @ Jv)[:, 0]
    assert axes is not None    # every coordinate but a line has its axis
    e = (kin.R[a] @ axes[:, :, None])[:, :, 0]
    if coordinate == "angle":
        return (e[:, None, :] @ (kin.Jw[kb] - kin.Jw[ka]))[:, 0]
    return (cross_rows(e, d)[:, None, :] @ kin.Jw[ka] + e[:, None, :] @ Jv)[:, 0]


def push_wrench(wrenches: np.ndarray, r: np.ndarray, ends, F: np.ndarray, T: np.ndarray) -> None:
    """Add to ``wrenches`` (about the world origin) what a force element carrying ``(F, T)``
    applies: ``-F`` at the head point and ``-T`` on the head frame, ``F`` and ``T`` on the
    tail."""
    a, b = ends
    wrenches[b, :3] -= T + cross(r[b], F)
    wrenches[b, 3:] -= F
    wrenches[a, :3] += T + cross(r[a], F)
    wrenches[a, 3:] += F
