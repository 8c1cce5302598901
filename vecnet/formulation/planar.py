"""Planar vector networks: branch coordinates, loop constraints and equations of motion.

The tree decides the coordinates: every tree branch contributes the
coordinates of its element (a mass element ``x, y, angle``; a revolute joint
its angle; an arm nothing), so masses in the tree give absolute coordinates
and joints in the tree give joint coordinates. Walking the tree from the
datum gives every node's position and orientation in those coordinates (the
path matrix at work); the circuit equation of every cotree joint is a
constraint ``Phi(q) = 0``. The principle of orthogonality — Tellegen's
theorem with virtual velocities consistent with the circuit equations —
turns the cutset equations into

    M(q) q'' = Q(q, q', t) + Phi_q^T lambda,

where only the elements that store, dissipate or supply energy contribute;
joints and arms are workless. ``lambda`` is the force (and torque) that each
cut joint applies to the body at its head.
"""

from __future__ import annotations

from functools import cached_property

import networkx as nx
import numpy as np
import scipy.linalg
import sympy

from ..bounds import Watch, time_grid
from ..elements import planar as pe
from ..elements.base import t
from ..errors import FormulationError, ModelError, UnknownNameError
from ..planar.mechanism import DATUM, Mechanism

__all__ = ["MultibodyEquations", "OperatingPoint", "Linearization"]

_TREE_RANKS = {
    "joint": {pe.Arm: 0, "joint": 1, pe.MassElement: 2, "force": 3},
    "absolute": {pe.Arm: 0, pe.MassElement: 1, "joint": 2, "force": 3},
}


def _rank(element, ranks):
    if isinstance(element, pe.MotionDriver):
        return None
    if element.is_joint:
        return ranks["joint"]
    for cls in (pe.Arm, pe.MassElement):
        if isinstance(element, cls):
            return ranks[cls]
    return ranks["force"]


class MultibodyEquations:
    """The equations of motion of a planar :class:`~vecnet.planar.Mechanism`.

    Attributes
    ----------
    topology : Topology
        The graph with the chosen tree (datum: the ground frame).
    coordinates : tuple of str
        Names of the branch coordinates (``"link1.x"``, ``"P1.angle"``).
    q, u : tuple of sympy.Symbol
        The coordinates and their rates.
    constraint_names : tuple of str
    constraints : sympy.Matrix
        ``Phi(q, t)``, from the circuit equations of cotree joints and drivers.
    M, Q : sympy.Matrix
        Mass matrix and generalized forces (computed when first read).

    Examples
    --------
    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=2.0, inertia=0.0, position=(1, 0))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    >>> eom = mech.formulate(coordinates="joint")
    >>> eom.M
    Matrix([[2.0]])
    """

    def __init__(self, mechanism: Mechanism, coordinates: str = "joint",
                 tree: list[str] | None = None,
                 joint_loads: dict | None = None) -> None:
        if coordinates not in _TREE_RANKS and tree is None:
            raise FormulationError(f"coordinates must be 'joint' or 'absolute' (or give tree=[...]); "
                                   f"got {coordinates!r}")
        self.mechanism = mechanism
        net = mechanism.network
        _check_bodies_joined(mechanism)
        if tree is None:
            ranks = _TREE_RANKS[coordinates]
            tree = lambda edge: _rank(net.owner(edge), ranks)  # noqa: E731
        else:
            drives = [b for b in tree if isinstance(net.owner(b), pe.MotionDriver)]
            if drives:
                raise FormulationError(f"drivers {', '.join(drives)} prescribe motion: they belong "
                                       "in the cotree")
        self.topology = net.topology(tree=tree, datum=DATUM)
        topo = self.topology
        if len(topo.components) > 1:
            loose = [c for c in topo.components if DATUM not in c]
            raise ModelError("parts of the mechanism are joined to nothing: "
                             + "; ".join(", ".join(map(str, c)) for c in loose))

        # branch coordinates, in tree order
        names, symbols = [], {}
        for branch in topo.branches:
            element = net.owner(branch)
            own = []
            for c in element.coordinates:
                name = f"{branch}.{c}"
                names.append(name)
                own.append(sympy.Symbol(name, real=True))
            symbols[branch] = tuple(own)
        self.coordinates = tuple(names)
        self.q = tuple(sympy.Symbol(n, real=True) for n in names)
        self.u = tuple(sympy.Symbol(f"{n}'", real=True) for n in names)

        # node poses, Jacobian rows and convective accelerations along tree paths
        self.walk = tree_walk(self)
        (self.node_angle, self.node_position, self.node_angle_jacobian,
         self.node_position_jacobian, self.node_angle_convective,
         self.node_position_convective, self._frame_jacobian,
         self._frame_convective) = tree_kinematics(self)

        # constraints from the circuits of cotree joints and drivers
        constraint_names, constraints = [], []
        for chord in topo.chords:
            element = net.owner(chord)
            dr, dtheta, tail_angle = self.relative_pose(chord)
            for name, expr in element.chord_constraints(dr, dtheta, tail_angle, t):
                constraint_names.append(name)
                constraints.append(expr)
        self.constraint_names = tuple(constraint_names)
        self.constraints = sympy.Matrix(constraints) if constraints else sympy.zeros(0, 1)
        self.gravity = sympy.Matrix(mechanism.gravity)
        self.joint_loads = dict(joint_loads or {})
        for target in self.joint_loads:
            if isinstance(target, tuple):
                _check_point_pair(mechanism, target)
                continue
            element = net.element(target)
            if not isinstance(element, (pe.Revolute, pe.Prismatic)):
                raise ModelError(f"a load can act across a revolute or prismatic joint only; "
                                 f"{target!r} is a {type(element).__name__}")
        #: symbols whose values are given at run time (loads across joints or point pairs)
        self.inputs = tuple(self.joint_loads.values())

    # -- kinematics -------------------------------------------------------------
    def relative_pose(self, edge: str):
        """``(dr, dtheta, tail angle)`` of any edge from the node poses."""
        tail, head = self.mechanism.network.graph.ends(edge)
        return (self.node_position[head] - self.node_position[tail],
                self.node_angle[head] - self.node_angle[tail], self.node_angle[tail])

    def rate(self, expr):
        """Time derivative of an expression in ``q`` and ``t``: ``d/dq expr * u + d/dt expr``."""
        return expr.diff(t) + sum((expr.diff(qi) * ui for qi, ui in zip(self.q, self.u)),
                                  sympy.S.Zero * expr)

    @cached_property
    def bodies(self) -> list[dict]:
        """For each body: name, mass, inertia, centre position, angle."""
        out = []
        for element in self.mechanism.network.elements:
            if isinstance(element, pe.MassElement):
                centre = element.edges[0].head
                out.append({"name": element.name, "m": element.m, "J": element.J,
                            "r": self.node_position[centre], "theta": self.node_angle[centre]})
        return out

    @cached_property
    def quantities(self) -> dict[sympy.Symbol, sympy.Expr]:
        """Body quantity symbols (:meth:`Mechanism.quantity`) in terms of ``q`` and ``u``."""
        out = {}
        for body in self.bodies:
            n = body["name"]
            r, th = body["r"], body["theta"]
            for what, expr in (("x", r[0]), ("y", r[1]), ("angle", th), ("vx", self.rate(r[0])),
                               ("vy", self.rate(r[1])), ("omega", self.rate(th))):
                out[sympy.Symbol(f"{n}.{what}", real=True)] = expr
        return out

    @cached_property
    def force_elements(self) -> list[tuple]:
        """``(element, (F, T), dr, dtheta)`` of every element with a force law, in q, u, t."""
        out = []
        for element in self.mechanism.network.elements:
            dr, dtheta, _ = self.relative_pose(element.name)
            law = element.through(dr, dtheta, self.rate(dr), self.rate(dtheta), t)
            if law is not None and not isinstance(element, pe.MassElement):
                F, T = law
                out.append((element, (F.xreplace(self.quantities), T.xreplace(self.quantities)),
                            dr, dtheta))
        return out

    def joint_coordinate(self, joint: str) -> sympy.Expr:
        """The relative angle (revolute) or the distance along the axis (prismatic) of a
        joint, in the coordinates ``q``."""
        element = self.mechanism.network.element(joint)
        dr, dtheta, tail_angle = self.relative_pose(joint)
        if isinstance(element, pe.Prismatic):
            return (pe.rotation(tail_angle) * element.axis).dot(dr)
        return dtheta

    def load_coordinate(self, target) -> sympy.Expr:
        """The coordinate a load works on: a joint's (:meth:`joint_coordinate`) or, for a
        pair of point names ``(a, b)``, the distance from ``a`` to ``b``."""
        if isinstance(target, tuple):
            d = self.node_position[target[1]] - self.node_position[target[0]]
            return sympy.sqrt(d.dot(d))
        return self.joint_coordinate(target)

    def edge_jacobians(self, edge: str) -> tuple[sympy.Matrix, sympy.Matrix]:
        """``(d dr/dq, d dtheta/dq)`` of any edge, from the node Jacobian rows."""
        tail, head = self.mechanism.network.graph.ends(edge)
        Jr, Jt = self.node_position_jacobian, self.node_angle_jacobian
        return (sympy.Matrix(2, len(self.q), lambda i, j: Jr[head][i][j] - Jr[tail][i][j]),
                sympy.Matrix(1, len(self.q), lambda i, j: Jt[head][j] - Jt[tail][j]))

    @cached_property
    def applied_forces(self) -> sympy.Matrix:
        """Generalized forces of springs, dampers, drivers and loads:
        ``-(dr_q^T F + dtheta_q^T T)`` and ``load * d(load coordinate)/dq``."""
        n = len(self.q)
        total = sympy.zeros(n, 1)
        if not n:
            return total
        for element, (F, T), _, _ in self.force_elements:
            Jdr, Jdt = self.edge_jacobians(element.name)
            total -= Jdr.T * F + Jdt.T * T
        for target, load in self.joint_loads.items():
            total += sympy.Matrix([self.load_coordinate(target)]).jacobian(self.q).T * load
        return total

    @cached_property
    def _body_terms(self) -> list[tuple]:
        """Per body: mass, inertia, the centre's frame-wise position Jacobian columns and
        convective term, and its angle's Jacobian row and convective term."""
        out = []
        for body in self.bodies:
            node = self.mechanism.network.element(body["name"]).edges[0].head
            out.append((body["m"], body["J"], self._frame_jacobian[node],
                        self._frame_convective[node], self.node_angle_jacobian[node],
                        self.node_angle_convective[node]))
        return out

    @cached_property
    def M(self) -> sympy.Matrix:
        """Mass matrix ``sum m J_r^T J_r + J J_theta^T J_theta``."""
        terms = self._body_terms

        def entry(i, j):
            return frame_dot((m, Jr[i], Jr[j]) for m, _, Jr, *_ in terms) + sum(
                (J * Jt[i] * Jt[j] for _, J, _, _, Jt, _ in terms), sympy.S.Zero)

        n = len(self.q)
        M = sympy.zeros(n, n)
        for i in range(n):
            for j in range(i, n):
                M[i, j] = M[j, i] = entry(i, j)
        return M

    @cached_property
    def body_forces(self) -> sympy.Matrix:
        """The bodies' generalized forces: gravity and velocity terms,
        ``sum m J_r^T (g - J_r' q') - J J_theta^T J_theta' q'``."""
        gravity = {sympy.S.Zero: tuple(self.gravity)}
        terms = self._body_terms
        return sympy.Matrix([
            frame_dot(pair for m, _, Jr, gr, _, _ in terms
                      for pair in ((m, Jr[i], gravity), (-m, Jr[i], gr)))
            - sum((J * Jt[i] * gt for _, J, _, _, Jt, gt in terms), sympy.S.Zero)
            for i in range(len(self.q))])

    @cached_property
    def Q(self) -> sympy.Matrix:
        """Generalized forces: the bodies' (gravity and velocity terms) and the applied ones."""
        return self.body_forces + self.applied_forces

    @property
    def constraint_jacobian(self) -> sympy.Matrix:
        """``Phi_q``."""
        return self.constraints.jacobian(self.q) if len(self.constraints) else sympy.zeros(0, len(self.q))

    # -- numerics -----------------------------------------------------------------
    def compile(self, parameters: dict | None = None):
        """The compiled numeric model (cached when no parameters are given)."""
        from ..numerics.planar import CompiledMechanism

        if parameters:
            return CompiledMechanism(self, parameters)
        if "_compiled" not in self.__dict__:
            self.__dict__["_compiled"] = CompiledMechanism(self)
        return self.__dict__["_compiled"]

    def _index(self, names) -> dict[int, float]:
        out = {}
        for name, value in (names or {}).items():
            if name not in self.coordinates:
                raise ModelError(f"no coordinate {name!r}; coordinates are "
                                 f"{', '.join(self.coordinates)}")
            out[self.coordinates.index(name)] = float(value)
        return out

    def assemble(self, initial: dict | None = None, time: float = 0.0,
                 parameters: dict | None = None):
        """Assembled coordinates ``q`` (closing every loop) from the bodies' initial poses,
        with the coordinates named in ``initial`` held at the given values."""
        from ..numerics.planar import assemble, initial_guess, independent_rows

        model = self.compile(parameters)
        q = initial_guess(self)
        fixed = self._index(initial)
        for i, value in fixed.items():
            q[i] = value
        q = assemble(model, q, time, fixed=list(fixed))
        rank = len(independent_rows(model.constraints(time, q)[1]))
        drives = [e.name for e in self.mechanism.network.elements if isinstance(e, pe.MotionDriver)]
        if model.n - rank == 0 and not drives:
            joints = [c for c in self.topology.chords
                      if self.mechanism.network.element(c).is_joint]
            raise FormulationError("the mechanism is locked: its constraints leave no degree of "
                                   "freedom (the loops closed by " + ", ".join(joints) + ")")
        return q

    def degrees_of_freedom(self, q=None, time: float = 0.0, parameters: dict | None = None) -> int:
        """``n - rank(Phi_q)`` at ``q`` (default: the assembled pose). Redundant constraints
        are found from the rank, not by counting."""
        from ..numerics.planar import independent_rows

        model = self.compile(parameters)
        q = self.assemble(time=time, parameters=parameters) if q is None \
            else np.asarray(q, dtype=float)
        return model.n - len(independent_rows(model.constraints(time, q)[1]))

    def simulate(self, t_end: float, t_eval=None, method: str = "partition", rtol: float = 1e-8,
                 atol: float = 1e-10, initial: dict | None = None,
                 velocities: dict | None = None, parameters: dict | None = None,
                 progress=None):
        """Forward dynamics from the assembled initial pose (at rest unless ``velocities``).

        ``method="partition"`` integrates the independent coordinates with scipy
        (``DOP853``), finding the dependent ones from the constraints at every step
        (coordinate partitioning, constraints held to 1e-13); ``method="dae"``
        integrates the DAE with IDA (scikit-sundae) and Baumgarte stabilization.
        A mechanism whose drivers fix every degree of freedom is solved by kinematics.

        Returns a :class:`~vecnet.numerics.result.Result` with every coordinate and its rate
        (``"P1.angle'"``), every body's ``x, y, angle, vx, vy, omega``, every joint's
        ``angle``, ``reaction`` (force on its head body; also ``.x``, ``.y``) and
        ``torque``, every driver's ``effort``, and ``kinetic``, ``potential``, ``energy``,
        ``constraint residual``. ``progress``, if given, is called with the model time as
        the integration advances.
        """
        from ..numerics import planar as num
        from ..numerics.result import Result

        _, t_end, times = time_grid((0.0, t_end), t_eval)
        watch = Watch(0.0, t_end, progress)
        model = self.compile(parameters)
        q0 = self.assemble(initial, 0.0, parameters)
        u0 = num.consistent_velocities(model, 0.0, q0, self._index(velocities))
        dof = model.n - len(num.independent_rows(model.constraints(0.0, q0)[1]))
        if dof == 0:
            ts, qs, us = num.kinematics(model, times, q0)
        elif method == "partition":
            ts, qs, us, _ = num.integrate_partitioned(model, 0.0, q0, u0, times, rtol, atol,
                                                      progress=watch)
        elif method == "dae":
            ts, qs, us, _ = num.integrate_dae(model, 0.0, q0, u0, times, rtol, atol,
                                              progress=watch)
        else:
            raise FormulationError(f"method must be 'partition' or 'dae'; got {method!r}")
        # the coordinates now; reactions, energies and the rest when first read
        series = {**dict(zip(self.coordinates, qs)),
                  **{f"{c}'": rates for c, rates in zip(self.coordinates, us)}}
        return Result(ts, series, success=True, message=method,
                      derive=lambda: num.outputs(model, ts, qs, us))

    def equilibrium(self, time: float = 0.0, parameters: dict | None = None,
                    iterations: int = 100):
        """Static equilibrium near the initial pose: ``Q(q, 0) + Phi_q^T lambda = 0``,
        ``Phi(q) = 0``, by Newton steps on the assembled mechanism. At every step the
        coordinates are partitioned anew, the generalized force is reduced to the
        independent ones ``z`` (``V^T Q`` with ``q' = V z'``) and a step in ``z``, limited
        to 0.2, is followed by assembly (all constraints, so redundant ones stay
        satisfied); the multipliers then balance the forces
        (:func:`vecnet.numerics.multibody.equilibrium`, shared with spatial mechanisms).
        Returns an :class:`OperatingPoint`."""
        from ..numerics import multibody as mb

        model = self.compile(parameters)
        q = self.assemble(time=time, parameters=parameters)
        q, lam = mb.equilibrium(model, q, time, iterations)
        return OperatingPoint(self, q, lam, time)

    def linearize(self, point: OperatingPoint, parameters: dict | None = None, step: float = 1e-6):
        """Linear model about a static equilibrium in independent coordinates: the null-space
        reduction ``q = q* + N z`` with ``Phi_q N = 0`` gives ``M z'' + C z' + K z = B w`` with
        ``M = N^T M N``, ``C = -N^T Q_u N``, ``K = -N^T (Q + Phi_q^T lambda)_q N`` and ``B``
        the generalized forces of unit inputs ``w``: every torque driver (by name), every
        force driver (``"<name>.x"``, ``"<name>.y"``) and every load across a joint, each
        added to its value at the equilibrium.

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
        """
        from ..numerics import multibody as mb

        model = self.compile(parameters)
        M, C, K, N = mb.linear_model(model, point.q, point.lam, point.time, step)
        inputs, columns = model.input_forces(point.time, point.q)
        return Linearization(M, C, K, N, N.T @ columns, inputs)

    def inverse_dynamics(self, t_eval, parameters: dict | None = None):
        """Kinematics and the efforts of drivers that fix every degree of freedom, with every
        joint reaction from the cutset equations: a :class:`Result` as in :meth:`simulate`."""
        from ..numerics import planar as num
        from ..numerics.result import Result

        model = self.compile(parameters)
        times = np.asarray(t_eval, dtype=float)
        q0 = self.assemble(time=float(times[0]), parameters=parameters)
        ts, qs, us = num.kinematics(model, times, q0)
        if model.n - len(num.independent_rows(model.constraints(ts[0], q0)[1])) != 0:
            raise FormulationError("inverse dynamics needs drivers that fix every degree of "
                                   "freedom; use simulate() for forward dynamics")
        return Result(ts, num.outputs(model, ts, qs, us), success=True, message="kinematics")

    def __repr__(self) -> str:
        return (f"<MultibodyEquations: {len(self.q)} coordinates {list(self.coordinates)}, "
                f"{len(self.constraint_names)} constraints>")

    def _repr_latex_(self) -> str | None:
        """``$$`` + :func:`vecnet.teaching.latex` + ``$$``, for notebooks (``None`` when too
        large to typeset)."""
        from ..teaching import repr_latex  # output depends on this module, not the reverse

        return repr_latex(self)


def tree_walk(eom: MultibodyEquations) -> list[tuple]:
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


def tree_kinematics(eom: MultibodyEquations):
    """Every node's angle, position, Jacobian rows and convective accelerations, each built
    from its parent's along the tree by the branch's affine relative motion (no large
    expression is differentiated).

    Vectors are kept frame-wise, as ``{phi: (wx, wy)}`` meaning the sum of ``R(phi) w``
    over the frame angles ``phi`` of the branches passed: dot products of such vectors
    then come out as cosines and sines of angle differences (:func:`frame_dot`), with no
    ``sin^2 + cos^2`` left to simplify. Returns dictionaries by node of the angle, the
    position (2 x 1), the angle's Jacobian row, the position's Jacobian rows (x and y),
    the convective terms ``J' q'`` of the angle and of the position, and the frame-wise
    position Jacobian columns and convective term."""
    q, u, n = list(eom.q), list(eom.u), len(eom.q)
    net = eom.mechanism.network
    zero = sympy.S.Zero
    theta, gt = {DATUM: zero}, {DATUM: zero}
    Jt = {DATUM: [zero] * n}
    r, Jr, gr = {DATUM: {}}, {DATUM: [{}] * n}, {DATUM: {}}   # frame-wise
    for here, there, branch, forward, idx in eom.walk:
        element = net.element(branch)
        rho0, rho_q, theta0, theta_q = element.motion()
        sign = 1 if forward else -1
        qb, ub = [q[i] for i in idx], [u[i] for i in idx]
        theta[there] = theta[here] + sign * (sympy.sympify(theta0)
                                             + sum((a * b for a, b in zip(theta_q, qb)), zero))
        jt = list(Jt[here])
        for i, a in zip(idx, theta_q):
            jt[i] += sign * a
        Jt[there], gt[there] = jt, gt[here]
        r[there], Jr[there], gr[there] = r[here], Jr[here], gr[here]
        if all(x == 0 for x in rho0) and all(x == 0 for row in rho_q for x in row):
            continue  # no translation: a pin, a weld, a pure rotation
        local = [rho0[k] + sum((rho_q[k][j] * qb[j] for j in range(len(qb))), zero) for k in (0, 1)]
        tail = here if forward else there
        phi = theta[tail] if element.frame == "tail" else zero
        r[there] = _frame_add(r[here], phi, local, sign)
        columns = list(Jr[here])
        slide = [zero, zero]
        for j, i in enumerate(idx):  # the branch's own coordinates slide it
            column = (rho_q[0][j], rho_q[1][j])
            columns[i] = _frame_add(columns[i], phi, column, sign)
            slide = [slide[k] + column[k] * ub[j] for k in (0, 1)]
        if element.frame == "tail" and any(a != 0 for a in Jt[tail]):
            # the tail frame turns: d(dr) = (k x dr) dphi, plus centripetal and Coriolis terms
            omega = sum((a * b for a, b in zip(Jt[tail], u) if a != 0), zero)
            turned = (-local[1], local[0])
            for i, a in enumerate(Jt[tail]):
                if a != 0:
                    columns[i] = _frame_add(columns[i], phi, turned, sign * a)
            gr[there] = _frame_add(gr[here], phi, (
                turned[0] * gt[tail] - local[0] * omega**2 - 2 * omega * slide[1],
                turned[1] * gt[tail] - local[1] * omega**2 + 2 * omega * slide[0]), sign)
        Jr[there] = columns
    position = {node: sympy.Matrix(_world(p)) for node, p in r.items()}
    jacobian = {node: tuple(map(list, zip(*(_world(c) for c in cols)))) if n else ([], [])
                for node, cols in Jr.items()}
    convective = {node: _world(g) for node, g in gr.items()}
    return theta, position, Jt, jacobian, gt, convective, Jr, gr


def _frame_add(vector: dict, phi, w, scale) -> dict:
    """``vector + scale R(phi) w`` for a frame-wise vector (a new dictionary)."""
    out = dict(vector)
    old = out.get(phi, (sympy.S.Zero, sympy.S.Zero))
    out[phi] = (old[0] + scale * w[0], old[1] + scale * w[1])
    return out


def _world(vector: dict) -> tuple:
    """World components of a frame-wise vector."""
    xs, ys = [], []
    for phi, (wx, wy) in vector.items():
        c, s = sympy.cos(phi), sympy.sin(phi)
        xs += [c * wx, -s * wy]
        ys += [s * wx, c * wy]
    return sympy.Add(*xs), sympy.Add(*ys)


def frame_dot(pairs) -> sympy.Expr:
    """``sum weight * (a . b)`` over ``(weight, a, b)`` for frame-wise vectors, collected
    by the trigonometric function of each angle difference: ``R(phi) w . R(psi) v =
    w . R(psi - phi) v = cos(psi - phi) w.v + sin(psi - phi) w.(k x v)``.

    >>> a, b = sympy.symbols("a b")
    >>> frame_dot([(2, {a: (1, 0)}, {a: (1, 0), b: (0, 1)})])
    2*sin(a - b) + 2
    """
    terms: dict = {}
    for weight, a, b in pairs:
        for phi, (wx, wy) in a.items():
            for psi, (vx, vy) in b.items():
                d, cross = psi - phi, wy * vx - wx * vy
                if d.could_extract_minus_sign():
                    d, cross = -d, -cross
                for key, value in ((sympy.cos(d), wx * vx + wy * vy), (sympy.sin(d), cross)):
                    if key != 0 and value != 0:
                        terms[key] = terms.get(key, sympy.S.Zero) + weight * value
    return sympy.Add(*(key * value for key, value in terms.items()))


class OperatingPoint:
    """A static equilibrium: coordinates ``q`` and multipliers ``lam``; ``point[name]`` reads
    any quantity a simulation reports (coordinates, body poses, joint angles, reactions)."""

    def __init__(self, eom: MultibodyEquations, q, lam, time: float) -> None:
        self.eom, self.q, self.lam, self.time = eom, np.asarray(q), np.asarray(lam), time

    @cached_property
    def values(self) -> dict[str, np.ndarray]:
        from ..numerics.planar import outputs

        n = len(self.q)
        series = outputs(self.eom.compile(), [self.time], self.q.reshape(n, 1), np.zeros((n, 1)))
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


class Linearization:
    """``M z'' + C z' + K z = B w`` in independent coordinates ``z`` (``q - q* = basis z``),
    with the inputs ``w`` named by ``inputs``."""

    def __init__(self, M, C, K, basis, B, inputs) -> None:
        self.M, self.C, self.K, self.basis = M, C, K, basis
        self.B, self.inputs = B, tuple(inputs)

    def eigenvalues(self) -> np.ndarray:
        """Eigenvalues of the first-order system, sorted by imaginary part."""
        d = self.M.shape[0]
        A = np.block([[np.zeros((d, d)), np.eye(d)],
                      [-np.linalg.solve(self.M, self.K), -np.linalg.solve(self.M, self.C)]])
        ev = np.linalg.eigvals(A)
        return ev[np.lexsort((ev.real, ev.imag))]

    def natural_frequencies(self) -> np.ndarray:
        """Undamped natural frequencies (rad/s): square roots of the eigenvalues of
        ``M^-1 K``."""
        return np.sqrt(np.sort(np.real(scipy.linalg.eigvals(self.K, self.M))))

    def damping_ratios(self) -> np.ndarray:
        """``-Re(s)/|s|`` of the oscillatory eigenvalues (upper half plane)."""
        ev = self.eigenvalues()
        up = ev[ev.imag > 0]
        return -up.real / np.abs(up)


def _check_bodies_joined(mechanism: Mechanism) -> None:
    net = mechanism.network
    for name, body in mechanism.bodies.items():
        own = {body.node} | {p.node for p in body._points.values()}
        joined = any(
            not isinstance(el, (pe.MassElement, pe.Arm))
            and (set(e.tail for e in el.edges) | set(e.head for e in el.edges)) & own
            for el in net.elements)
        if not joined:
            raise ModelError(f"body {name!r} is joined to nothing: connect it with a joint, a "
                             "spring or a driver")


def _check_point_pair(mechanism: Mechanism, points: tuple[str, str]) -> None:
    """Two points of different bodies (a load between points of one body does nothing)."""
    missing = [p for p in points if p not in _point_nodes(mechanism)]
    if missing:
        raise ModelError(f"no point(s) {', '.join(map(repr, missing))} in mechanism "
                         f"{mechanism.name!r}; points are named '<body>.<point>' (e.g. "
                         "'ground.p1') or by their body for the mass centre")
    bodies = {p.split(".")[0] for p in points}
    if len(bodies) == 1:
        raise ModelError(f"points {points[0]!r} and {points[1]!r} are both on "
                         f"{bodies.pop()!r}: their distance never changes")


def _point_nodes(mechanism: Mechanism) -> set[str]:
    """Names of the mechanism's points: the ground, the mass centres and body points."""
    return {DATUM} | set(mechanism.bodies) | {
        str(v) for v in mechanism.network.graph.nodes if "." in str(v)}
