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
from typing import NamedTuple

import numpy as np
import sympy

from ..builders.mechanism import pinion_on_its_rack
from ..builders.planar import DATUM, Mechanism
from ..elements import planar as pe
from ..elements.base import t
from ..errors import ModelError
from .multibody import Linearization, MechanismEquations, OperatingPoint, choose_topology, tree_walk

__all__ = ["MultibodyEquations", "OperatingPoint", "Linearization", "TreeKinematics",
           "tree_kinematics"]


class MultibodyEquations(MechanismEquations):
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
    velocity_constraint_names : tuple of str
    velocity_constraints : sympy.Matrix
        ``A(q) u + b = 0``: the velocity (nonholonomic) constraints of rolling contacts.
    M, Q : sympy.Matrix
        Mass matrix and generalized forces (computed when first read).
    joint_loads, inputs, rotors
        What a lumped network coupled by ports adds (:class:`vecnet.System`): load symbols
        by what they work on (a joint, ``"<joint>.angle"``, ``"<joint>.distance"`` or a pair
        of points), those symbols in order, and rotor inertias by joint (in ``M`` and ``Q``).

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
                 joint_loads: dict | None = None, rotors: dict | None = None) -> None:
        self.mechanism = mechanism
        net = mechanism.network
        _check_bodies_joined(mechanism)
        _check_racks(mechanism)
        self.topology = choose_topology(mechanism, coordinates, tree)
        topo = self.topology

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
        self.speed_names = tuple(f"{n}'" for n in names)
        self.u = tuple(sympy.Symbol(n, real=True) for n in self.speed_names)

        self.walk = tree_walk(self)

        # constraints from the circuits of cotree joints and drivers: their names now (read
        # off the laws in an edge's own pose), the expressions in q when first read
        local = sympy.Matrix(sympy.symbols("_dx _dy", real=True)), *sympy.symbols("_dth _tht",
                                                                                   real=True)
        self._constraining = [c for c in topo.chords if type(net.owner(c)).chord_constraints
                              is not pe.PlanarElement.chord_constraints]
        self.constraint_names = tuple(name for c in self._constraining
                                      for name, _ in net.owner(c).chord_constraints(*local, t))
        # the velocity (nonholonomic) constraints of rolling contacts, after them
        rates = sympy.Matrix(sympy.symbols("_dxd _dyd", real=True)), *sympy.symbols(
            "_dthd _thtd", real=True)
        self._velocity_constraining = [
            c for c in topo.chords if type(net.owner(c)).velocity_constraints
            is not pe.PlanarElement.velocity_constraints]
        self.velocity_constraint_names = tuple(
            name for c in self._velocity_constraining
            for name, _ in net.owner(c).velocity_constraints(*local, *rates, t))
        self.gravity = sympy.Matrix(mechanism.gravity)
        self._couple(joint_loads, rotors)

    @property
    def constraint_chords(self) -> tuple[str, ...]:
        """The chords whose circuit equations are constraints (cut joints, drivers, gears)."""
        return tuple(self._constraining)

    @cached_property
    def constraints(self) -> sympy.Matrix:
        """``Phi(q, t)``: the circuit equations of the cut joints and drivers."""
        net = self.mechanism.network
        rows = [expr for chord in self._constraining
                for _, expr in net.owner(chord).chord_constraints(*self.relative_pose(chord), t)]
        return sympy.Matrix(rows) if rows else sympy.zeros(0, 1)

    @cached_property
    def velocity_constraints(self) -> sympy.Matrix:
        """``A(q) u + b = 0``: the velocity (nonholonomic) constraints of the chords (a
        rolling wheel's no-slip condition), in ``q`` and ``u``."""
        net = self.mechanism.network
        rows = []
        for chord in self._velocity_constraining:
            dr, dtheta, tail_angle = self.relative_pose(chord)
            rows += [expr for _, expr in net.owner(chord).velocity_constraints(
                dr, dtheta, tail_angle, self.rate(dr), self.rate(dtheta), self.rate(tail_angle),
                t)]
        return sympy.Matrix(rows) if rows else sympy.zeros(0, 1)

    # -- kinematics -------------------------------------------------------------
    # Node poses, Jacobian rows and convective accelerations along tree paths are sympy
    # expressions that grow with the depth of the tree; they are built when first read (the
    # constraints of cut joints, force laws, the symbolic M and Q), so a deep open chain,
    # which the compiled tree walk simulates, never builds them.
    @cached_property
    def node_kinematics(self) -> TreeKinematics:
        """The node kinematics along the tree (:func:`tree_kinematics`)."""
        return tree_kinematics(self)

    node_angle = property(lambda self: self.node_kinematics.angle,
                          doc="Every node's angle in ``q``.")
    node_position = property(lambda self: self.node_kinematics.position,
                             doc="Every node's position (2 x 1) in ``q``.")
    node_angle_jacobian = property(lambda self: self.node_kinematics.angle_jacobian,
                                   doc="Every node's angle Jacobian row.")
    node_position_jacobian = property(lambda self: self.node_kinematics.position_jacobian,
                                      doc="Every node's position Jacobian rows (x and y).")
    node_angle_convective = property(lambda self: self.node_kinematics.angle_convective,
                                     doc="Every node's convective angular acceleration.")
    node_position_convective = property(
        lambda self: self.node_kinematics.position_convective,
        doc="Every node's convective acceleration.")

    def relative_pose(self, edge: str):
        """``(dr, dtheta, tail angle)`` of any edge from the node poses."""
        tail, head = self.mechanism.network.graph.ends(edge)
        return (self.node_position[head] - self.node_position[tail],
                self.node_angle[head] - self.node_angle[tail], self.node_angle[tail])

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
            kind = type(element)
            if isinstance(element, pe.MassElement) or (
                    kind.through is pe.PlanarElement.through
                    and kind.through_in_frame is pe.PlanarElement.through_in_frame):
                continue   # bodies, arms and joints have no force law (their rates are dear)
            dr, dtheta, tail_angle = self.relative_pose(element.name)
            law = element.through_in_frame(dr, dtheta, self.rate(dr), self.rate(dtheta),
                                           tail_angle, t)
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

    def axial(self, joint: str, coordinate: str) -> tuple[sympy.Expr, sympy.Expr]:
        """``(value, rate)`` of a revolute joint's angle or a prismatic joint's distance
        (:meth:`joint_coordinate`; a joint has one, so ``coordinate`` only names it)."""
        value = self.joint_coordinate(joint)
        return value, self.rate(value)

    def velocity(self, node) -> sympy.Matrix:
        """Velocity of a node's point in ``q`` and ``u``, from its Jacobian rows."""
        return sympy.Matrix([sum((a * b for a, b in zip(row, self.u)), sympy.S.Zero)
                             for row in self.node_position_jacobian[node]])

    def frame_quantity(self, body: str, quantity: str) -> sympy.Expr:
        """A body's ``"angle"`` or ``"omega"``."""
        return self.quantities[sympy.Symbol(f"{body}.{quantity}", real=True)]

    def edge_jacobians(self, edge: str) -> tuple[sympy.Matrix, sympy.Matrix]:
        """``(d dr/dq, d dtheta/dq)`` of any edge, from the node Jacobian rows."""
        tail, head = self.mechanism.network.graph.ends(edge)
        Jr, Jt = self.node_position_jacobian, self.node_angle_jacobian
        return (sympy.Matrix(2, len(self.q), lambda i, j: Jr[head][i][j] - Jr[tail][i][j]),
                sympy.Matrix(1, len(self.q), lambda i, j: Jt[head][j] - Jt[tail][j]))

    @cached_property
    def applied_forces(self) -> sympy.Matrix:
        """Generalized forces of springs, dampers and drivers: ``-(dr_q^T F + dtheta_q^T T)``
        of each edge."""
        n = len(self.q)
        total = sympy.zeros(n, 1)
        if not n:
            return total
        for element, (F, T), _, _ in self.force_elements:
            Jdr, Jdt = self.edge_jacobians(element.name)
            total -= Jdr.T * F + Jdt.T * T
        return total

    @cached_property
    def _body_terms(self) -> list[tuple]:
        """Per body: mass, inertia, the centre's frame-wise position Jacobian columns and
        convective term, and its angle's Jacobian row and convective term."""
        out = []
        for body in self.bodies:
            node = self.mechanism.network.element(body["name"]).edges[0].head
            kin = self.node_kinematics
            out.append((body["m"], body["J"], kin.frame_jacobian[node],
                        kin.frame_convective[node], self.node_angle_jacobian[node],
                        self.node_angle_convective[node]))
        return out

    @cached_property
    def M(self) -> sympy.Matrix:
        """Mass matrix ``sum m J_r^T J_r + J J_theta^T J_theta``, rotors included."""
        self.refuse_beams("the mass matrix M")
        terms = self._body_terms
        rotors = self._rotor_terms

        def entry(i, j):
            return frame_dot((m, Jr[i], Jr[j]) for m, _, Jr, *_ in terms) + sum(
                (J * Jt[i] * Jt[j] for _, J, _, _, Jt, _ in terms), sympy.S.Zero) + sum(
                (J * row[i] * row[j] for J, row, _ in rotors), sympy.S.Zero)

        n = len(self.q)
        M = sympy.zeros(n, n)
        for i in range(n):
            for j in range(i, n):
                M[i, j] = M[j, i] = entry(i, j)
        return M

    @cached_property
    def body_forces(self) -> sympy.Matrix:
        """The bodies' (and rotors') generalized forces: gravity and velocity terms,
        ``sum m J_r^T (g - J_r' q') - J J_theta^T J_theta' q'``."""
        gravity = {sympy.S.Zero: tuple(self.gravity)}
        terms = self._body_terms
        rotors = self._rotor_terms
        return sympy.Matrix([
            frame_dot(pair for m, _, Jr, gr, _, _ in terms
                      for pair in ((m, Jr[i], gravity), (-m, Jr[i], gr)))
            - sum((J * Jt[i] * gt for _, J, _, _, Jt, gt in terms), sympy.S.Zero)
            - sum((J * row[i] * g for J, row, g in rotors), sympy.S.Zero)
            for i in range(len(self.q))])

    # -- numerics -----------------------------------------------------------------
    driver = pe.MotionDriver

    def initial_guess(self) -> np.ndarray:
        """Branch coordinates read off the bodies' initial poses."""
        mech = self.mechanism
        values = []
        for branch in self.topology.branches:
            element = mech.network.element(branch)
            tail, head = mech.network.graph.ends(branch)
            xt, yt, at = mech.initial_pose(tail)
            xh, yh, ah = mech.initial_pose(head)
            values.extend(element.coordinates_from((xh - xt, yh - yt), ah - at, at))
        return np.array(values, dtype=float)


class TreeKinematics(NamedTuple):
    """Every node's kinematics in a planar formulation's coordinates, by node: the angle,
    the position (2 x 1), the angle's Jacobian row, the position's Jacobian rows (x and
    y), the convective terms ``J' q'`` of the angle and of the position, and the
    frame-wise position Jacobian columns and convective term (:func:`frame_dot`)."""

    angle: dict
    position: dict
    angle_jacobian: dict
    position_jacobian: dict
    angle_convective: dict
    position_convective: dict
    frame_jacobian: dict
    frame_convective: dict


def tree_kinematics(eom: MultibodyEquations) -> TreeKinematics:
    """Every node's angle, position, Jacobian rows and convective accelerations, each built
    from its parent's along the tree by the branch's affine relative motion (no large
    expression is differentiated).

    Vectors are kept frame-wise, as ``{phi: (wx, wy)}`` meaning the sum of ``R(phi) w``
    over the frame angles ``phi`` of the branches passed: dot products of such vectors
    then come out as cosines and sines of angle differences (:func:`frame_dot`), with no
    ``sin^2 + cos^2`` left to simplify."""
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
    return TreeKinematics(theta, position, Jt, jacobian, gt, convective, Jr, gr)


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


def _check_bodies_joined(mechanism: Mechanism) -> None:
    net = mechanism.network
    for name, body in mechanism.bodies.items():
        own = {body.node} | {p.node for p in body.points}
        joined = any(
            not isinstance(el, (pe.MassElement, pe.Arm))
            and (set(e.tail for e in el.edges) | set(e.head for e in el.edges)) & own
            for el in net.elements)
        if not joined:
            raise ModelError(f"body {name!r} is joined to nothing: connect it with a joint, a "
                             "spring or a driver")


def _check_racks(mechanism: Mechanism) -> None:
    """Refuse a rack and pinion whose pinion turns on a revolute joint mounted on the rack
    itself: seen from the body that carries its axle the rack does not move, so the mesh
    would hold the pinion still against the rack, never turning."""
    net = mechanism.network
    bodies = {body.node: body for body in (mechanism.ground, *mechanism.bodies.values())}

    def own(body) -> set:
        return {body.node} | {point.node for point in body.points}

    for mesh in net.elements:
        if not isinstance(mesh, pe.RackAndPinion):
            continue
        edge = mesh.edges[0]
        pinion, rack = bodies[edge.tail], bodies[edge.head]
        on_pinion, on_rack = own(pinion), own(rack)
        for joint in net.elements:
            if not isinstance(joint, pe.Revolute):
                continue
            ends = set(net.graph.ends(joint.name))
            if ends & on_pinion and ends & on_rack:
                raise pinion_on_its_rack(mesh.name, pinion.name, joint.name, rack.name)
