"""Spatial vector networks: branch coordinates, loop constraints and equations of motion.

As in the plane, the tree decides the coordinates: every tree branch brings the
coordinates of its element (a body its position and a unit quaternion, a revolute
joint its angle, a ball joint a quaternion, an arm nothing). Walking the tree from the
datum gives every node's rotation, position, angular and linear velocity Jacobians and
convective accelerations (:func:`spatial_kinematics`); the circuit of every cotree
joint gives constraints ``Phi(q) = 0``; the principle of orthogonality turns the
cutset equations into

    M(q) u' = Q(q, u, t) + Phi_u^T lambda,      q' = N(q) u,

with ``Phi_u = Phi_q N``. The speeds ``u`` are the coordinates' rates except for
quaternions, whose speeds are angular velocities: relative, in the tail body's axes (a
free body's in world axes), ``p' = E(p)^T omega / 2``; or, with ``speeds="body"``, in the
head body's axes (a free body's or a top's own axes), ``p' = G(p)^T omega_b / 2``, in
which a rigid body's equations are Euler's, ``J omega_b' + omega_b x J omega_b = n_b``.
Newton–Euler terms per body include the gyroscopic ``omega x J omega``; ``lambda`` is
what each cut joint's constraints carry.
"""

from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

import numpy as np
import sympy

from ..builders.spatial import DATUM, Mechanism
from ..core.rotations import skew
from ..elements import spatial as se
from ..elements.base import t
from ..errors import FormulationError
from .multibody import MechanismEquations, choose_topology, tree_walk

__all__ = ["SpatialEquations", "SpatialKinematics", "spatial_kinematics"]


class SpatialEquations(MechanismEquations):
    """The equations of motion of a spatial :class:`~vecnet.spatial.Mechanism`.

    Attributes
    ----------
    topology : Topology
        The graph with the chosen tree (datum: the ground frame).
    coordinates, speed_names : tuple of str
        Names of the coordinates ``q`` (``"J.angle"``, ``"ball.qw"``, ``"b.x"``) and of
        the speeds ``u`` (``"J.angle'"``, ``"ball.wx"``, ``"b.vx"``).
    q, u : tuple of sympy.Symbol
    N : sympy.Matrix
        The kinematic map ``q' = N(q) u``.
    constraint_names : tuple of str
    constraints : sympy.Matrix
        ``Phi(q)``, from the circuits of the cotree joints.
    velocity_constraint_names : tuple of str
    velocity_constraints : sympy.Matrix
        ``A(q) u + b = 0``: the velocity (nonholonomic) constraints of rolling contacts.
    M, Q : sympy.Matrix
        Mass matrix and generalized forces in the speeds: ``M u' = Q + Phi_u^T lambda``.
    speeds : str
        The axes of the angular speeds of free bodies, ball joints and the other branches
        with a quaternion (:data:`vecnet.elements.spatial.SPEED_AXES`): ``"tail"`` (the
        default; ``wx, wy, wz`` in the tail frame's axes, world axes for a free body or a
        ball joint on the ground) or ``"body"`` (``w1, w2, w3`` in the head body's own
        axes: a top or a free body then follows Euler's equations).
    joint_loads, inputs, rotors
        What a lumped network coupled by ports adds (:class:`vecnet.System`): load symbols
        by what they work on (``"<joint>.angle"``, ``"<joint>.distance"``, a pair of
        points), those symbols in order, and rotor inertias by joint (in ``M`` and ``Q``).

    Examples
    --------
    >>> import vecnet as vn
    >>> mech = vn.spatial.Mechanism("p", gravity=(0, 0, -9.81))
    >>> bob = mech.body("bob", mass=2.0, inertia=(0, 0, 0), position=(1, 0, 0))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0, 0), bob.point(-1, 0, 0), axis=(0, 1, 0))
    >>> eom = mech.formulate()
    >>> sympy.simplify(eom.M[0, 0])
    2.00000000000000

    A free body in body axes: its mass matrix is ``diag(m, m, m, J1, J2, J3)`` on the unit
    quaternions (the Euler parameters' norm 1 taken out).

    >>> free = vn.spatial.Mechanism("free")
    >>> _ = free.body("b", mass=2.0, inertia=(1, 2, 3))
    >>> eom = free.formulate(speeds="body")
    >>> eom.speed_names[3:]
    ('b.w1', 'b.w2', 'b.w3')
    >>> qw, qx, qy, qz = eom.q[3:]
    >>> unit = {qw: sympy.sqrt(1 - qx**2 - qy**2 - qz**2)}
    >>> [float(sympy.simplify(eom.M[i, i].subs(unit))) for i in range(3, 6)]
    [1.0, 2.0, 3.0]
    """

    def __init__(self, mechanism: Mechanism, coordinates: str = "joint",
                 tree: list[str] | None = None, joint_loads: dict | None = None,
                 rotors: dict | None = None, speeds: str = "tail") -> None:
        if speeds not in se.SPEED_AXES:
            raise FormulationError(f"speeds must be one of {', '.join(map(repr, se.SPEED_AXES))} "
                                   f"(the axes of the angular speeds); got {speeds!r}")
        self.speeds = speeds
        self.mechanism = mechanism
        net = mechanism.network
        self.topology = choose_topology(mechanism, coordinates, tree)
        topo = self.topology
        for chord in topo.chords:
            element = net.element(chord)
            if isinstance(element, (se.SpatialScrew, se.SpatialArm)):
                raise FormulationError(f"{type(element).__name__} {chord!r} cannot close a "
                                       "loop; choose a tree that contains it")

        names, speed_names, self.speed_index = [], [], {}
        for branch in topo.branches:
            element = net.owner(branch)
            start = len(speed_names)
            names += [f"{branch}.{c}" for c in element.coordinates]
            speed_names += [f"{branch}.{s}" for s in element.speed_names(speeds)]
            self.speed_index[branch] = list(range(start, len(speed_names)))
        self.coordinates = tuple(names)
        self.speed_names = tuple(speed_names)
        self.q = tuple(sympy.Symbol(n, real=True) for n in names)
        self.u = tuple(sympy.Symbol(n if n.endswith("'") else f"{n}'", real=True)
                       for n in speed_names)
        self.walk = tree_walk(self)

        self.primitives = []   # (chord, kind, name, tail node, head node, e, f)
        for chord in topo.chords:
            element = net.element(chord)
            tail, head = net.graph.ends(chord)
            if isinstance(element, se.SpatialMotionDriver):
                self.primitives.append((chord, "drive", chord, tail, head,
                                        None, self._drive_info(element)))
                continue
            if isinstance(element, se.SpatialMesh):
                self.primitives.append((chord, "mesh", f"{chord}.{element.constraint}", tail,
                                        head, None, self._mesh_info(element)))
                continue
            for prim in element.primitives():
                kind, name = prim[0], prim[1]
                e = np.asarray(prim[2], float) if len(prim) > 2 else None
                f = np.asarray(prim[3], float) if len(prim) > 3 else None
                self.primitives.append((chord, kind, name, tail, head, e, f))
        # the velocity constraints come last, after every position constraint: rows
        # [0, m - velocity rows) hold at the position level, the others at the speed level
        velocity = [(chord, kind, name, *net.graph.ends(chord), np.asarray(f, float), None)
                    for chord in topo.chords
                    for kind, name, f in net.element(chord).velocity_primitives()]
        self.primitives += velocity
        # the names now; the expressions in q (of the node poses along the tree) when read
        names = []
        for chord, kind, name, tail, head, e, f in self.primitives[:len(self.primitives)
                                                                   - len(velocity)]:
            names += ([f"{name}.x", f"{name}.y", f"{name}.z"] if kind == "point" else
                      [f"{name}.{f['quantity']}"] if kind == "drive" else [name])
        self.constraint_names = tuple(names)
        self.velocity_constraint_names = tuple(p[2] for p in velocity)
        self.gravity = sympy.Matrix(mechanism.gravity)
        self._couple(joint_loads, rotors)
        for element in net.elements:
            if isinstance(element, se.SpatialJointStop):
                self.check_stop(element)

    def branch_motion(self, branch: str, qb: list) -> tuple:
        """``(R_rel, rho, W, V, N)`` of a tree branch in its coordinates ``qb``, its angular
        speeds in the axes of :attr:`speeds`
        (:meth:`vecnet.elements.spatial.SpatialElement.branch_motion`)."""
        return self.mechanism.network.element(branch).branch_motion(qb, self.speeds)

    @property
    def constraint_chords(self) -> tuple[str, ...]:
        """The chords whose circuit equations are constraints (cut joints, drivers, gears)."""
        return tuple(dict.fromkeys(p[0] for p in self.primitives))

    @cached_property
    def N(self) -> sympy.Matrix:
        """The kinematic map ``q' = N(q) u`` (built when first read: the compiled model has
        its own)."""
        N = sympy.zeros(len(self.q), len(self.u))
        for _, _, branch, _, qidx in self.walk:
            Nb = self.branch_motion(branch, [self.q[i] for i in qidx])[4]
            for a, i in enumerate(qidx):
                for b, j in enumerate(self.speed_index[branch]):
                    N[i, j] = Nb[a, b]
        return N

    @cached_property
    def constraints(self) -> sympy.Matrix:
        """``Phi(q, t)``: the circuit equations of the cut joints and drivers."""
        rows = []
        for chord, kind, name, tail, head, e, f in self.primitives:
            Ra, Rb = self.node_rotation[tail], self.node_rotation[head]
            d = self.node_position[head] - self.node_position[tail]
            if kind == "point":
                rows += list(d)
            elif kind == "drive":
                rows.append(f["symbolic"])
            elif kind == "mesh":
                rows.append(f["symbolic"])
            elif kind == "perpendicular":
                rows.append((Ra * sympy.Matrix(e)).dot(Rb * sympy.Matrix(f)))
            elif kind == "contact":   # the height of the disc's lowest rim point
                n = Ra * sympy.Matrix(e)
                wheel = self.mechanism.network.element(chord)
                s = n.dot(Rb * sympy.Matrix(wheel.axle))
                rows.append(n.dot(d) - wheel.radius * sympy.sqrt(1 - s**2))
            elif kind == "plane":
                rows.append((Ra * sympy.Matrix(e)).dot(d))
        return sympy.Matrix(rows) if rows else sympy.zeros(0, 1)

    @cached_property
    def velocity_constraints(self) -> sympy.Matrix:
        """The velocity (nonholonomic) constraints ``A(q) u + b = 0`` as expressions in
        ``q`` and ``u`` (named by :attr:`velocity_constraint_names`): a rolling wheel's
        contact point does not slide, ``t . (v_centre + omega x (C - centre)) = 0``."""
        rows = []
        for chord, kind, name, tail, head, e, f in self.primitives:
            if kind != "rolling":
                continue
            wheel = self.mechanism.network.element(chord)
            n = self.node_rotation[tail] * sympy.Matrix(wheel.normal)
            axle = self.node_rotation[head] * sympy.Matrix(wheel.axle)
            p = -n + n.dot(axle) * axle
            lever = wheel.radius * p / sympy.sqrt(p.dot(p))
            slip = self.velocity(head) + self.omega(head).cross(lever)
            rows.append((self.node_rotation[tail] * sympy.Matrix(e)).dot(slip))
        return sympy.Matrix(rows) if rows else sympy.zeros(0, 1)

    # The node kinematics are sympy expressions whose size grows with the depth of the
    # tree; they are built when first read (the constraints of cut joints, the symbolic M
    # and Q, small models compiled whole), so a deep open chain simulated by the numeric
    # tree walk never builds them.
    @cached_property
    def _poses(self) -> SpatialKinematics:
        return spatial_kinematics(self, velocities=False)

    @cached_property
    def _velocities(self) -> SpatialKinematics:
        return spatial_kinematics(self)

    @property
    def node_rotation(self) -> dict:
        """Every node's rotation matrix (world axes from its frame's axes)."""
        return self._poses.rotation

    @property
    def node_position(self) -> dict:
        """Every node's position (world axes)."""
        return self._poses.position

    @property
    def node_angular_jacobian(self) -> dict:
        """Every node's angular velocity Jacobian ``omega = J_w u`` (world axes, 3 x nu);
        built when first read, with the convective terms."""
        return self._velocities.angular_jacobian

    @property
    def node_velocity_jacobian(self) -> dict:
        """Every node's velocity Jacobian ``v = J_v u`` (world axes, 3 x nu)."""
        return self._velocities.velocity_jacobian

    @property
    def node_angular_convective(self) -> dict:
        """Every node's convective angular acceleration ``J_w' u``."""
        return self._velocities.angular_convective

    @property
    def node_velocity_convective(self) -> dict:
        """Every node's convective acceleration ``J_v' u``."""
        return self._velocities.velocity_convective

    def _axial_info(self, joint: str, quantity: str) -> dict:
        """What the constraints on a joint's ``"angle"`` or ``"distance"`` need (motion
        drivers, gears, racks): its nodes, axis and initial relative rotation, the index of
        the coordinate and speed when the joint is in the tree, and the coordinate's
        symbolic ``value``."""
        net = self.mechanism.network
        element = net.element(joint)
        name = f"{joint}.{quantity}"
        info = {"joint": joint, "quantity": quantity, "axis": element.axis,
                "R0": element.R0, "ends": net.graph.ends(joint), "q": None, "u": None}
        if name in self.coordinates:
            info["q"] = self.coordinates.index(name)
            info["u"] = self.speed_names.index(f"{name}'")
            info["value"] = self.q[info["q"]]
        elif quantity == "angle":
            info["value"] = self.joint_angle(joint)[0]
        else:
            info["value"] = self.joint_distance(joint, rate=False)[0]
        return info

    def _drive_info(self, driver) -> dict:
        """What a driver needs: its joint's :meth:`_axial_info`, its motion and the symbolic
        constraint ``coordinate - motion(t)``."""
        info = self._axial_info(driver.joint, driver.quantity)
        info.update(name=driver.name, motion=driver.motion,
                    symbolic=info["value"] - driver.motion)
        return info

    def _mesh_info(self, mesh) -> dict:
        """What a gear or rack needs: for bodies ``a`` and ``b`` the weight of the joint's
        coordinate in the constraint (a sympy number or expression), its initial value and its :meth:`_axial_info`, and
        the symbolic constraint (:class:`~vecnet.elements.spatial.SpatialMesh`).

        Raises
        ------
        FormulationError
            When a geared joint's angle is not a coordinate (the joint is cut): from the
            frames an angle is known only within half a turn.
        """
        terms, turns = [], []
        for which, (joint, quantity, sign, initial) in enumerate(mesh.terms):
            info = self._axial_info(joint, quantity)
            if quantity == "angle" and info["q"] is None:
                raise FormulationError(
                    f"{type(mesh).__name__} {mesh.name!r}: joint {joint!r} is cut (not in the "
                    "tree), where its angle is known only within half a turn; formulate with "
                    f"coordinates='joint' or a tree=[...] that holds {joint!r}")
            # a symbolic ratio gets its value when the model is compiled
            weight = sympy.sympify(sign) * (mesh.coefficient if which == 0 else 1)
            terms.append((weight, float(initial), info))
            turns.append(mesh.turn(which, info["value"]))
        return {"terms": terms, "symbolic": mesh.mesh(*turns)}

    def check_stop(self, element) -> None:
        """A stop's impact acts along the rate of its joint's coordinate, which must be a
        speed: refuse a stop on a joint outside the tree."""
        if f"{element.joint}.{element.quantity}" not in self.coordinates:
            raise FormulationError(
                f"joint limit {element.name!r}: joint {element.joint!r} is cut (not in the "
                f"tree), so its {element.quantity} is not a coordinate whose rate is a speed, "
                "which a stop strikes; formulate with coordinates='joint' or a tree=[...] "
                f"that holds {element.joint!r}")

    # -- kinematics -----------------------------------------------------------------
    def omega(self, node) -> sympy.Matrix:
        """Angular velocity of a node's frame (world axes) in ``q`` and ``u``."""
        return self.node_angular_jacobian[node] * sympy.Matrix(self.u)

    def velocity(self, node) -> sympy.Matrix:
        """Velocity of a node's point (world axes) in ``q`` and ``u``."""
        return self.node_velocity_jacobian[node] * sympy.Matrix(self.u)

    @cached_property
    def bodies(self) -> list[dict]:
        """For each body: name, node, mass, inertia (body axes)."""
        out = []
        for element in self.mechanism.network.elements:
            if isinstance(element, se.SpatialMass):
                out.append({"name": element.name, "node": element.edges[0].head,
                            "m": element.m, "J": element.J})
        return out

    def joint_angle(self, joint: str):
        """``(angle, rate, axis in world axes)`` of a revolute or cylindrical joint in the
        coordinates: its own coordinate when it is a tree branch, otherwise from the frames
        (``atan2`` of the turn from the initial pose, within pi of the initial angle)."""
        net = self.mechanism.network
        element = net.element(joint)
        tail, head = net.graph.ends(joint)
        Ra, Rb = self.node_rotation[tail], self.node_rotation[head]
        axis = Ra * sympy.Matrix(element.axis)
        if joint in self.topology.branches:
            i = self.coordinates.index(f"{joint}.angle")
            j = self.speed_names.index(f"{joint}.angle'")
            return self.q[i], self.u[j], axis
        p, _ = se.perpendiculars(element.axis)
        pa = Ra * sympy.Matrix(p)
        pb = Rb * sympy.Matrix(element.R_initial.T @ p)
        # the turn since the initial pose wraps at +-pi; counted from there, the angle
        # wraps half a turn away from where the joint starts
        angle = sympy.atan2(pa.cross(pb).dot(axis), pa.dot(pb))
        if element.initial_angle:
            angle += sympy.Float(element.initial_angle)
        return angle, axis.dot(self.omega(head) - self.omega(tail)), axis

    def joint_distance(self, joint: str, rate: bool = True):
        """``(distance, rate)`` along the axis of a prismatic or cylindrical joint in the
        coordinates: its own coordinate when it is a tree branch, otherwise the head
        point's offset from the tail point along the axis turned with the tail body
        (the rate ``None`` unless ``rate``).

        >>> import vecnet as vn
        >>> mech = vn.spatial.Mechanism("m")
        >>> bob = mech.body("bob", 1.0, (0.1, 0.1, 0.1))
        >>> _ = mech.prismatic("S", mech.ground.centre, bob.centre, axis=(0, 0, 1))
        >>> mech.formulate().joint_distance("S")
        (S.distance, S.distance')
        """
        net = self.mechanism.network
        name = f"{joint}.distance"
        if joint in self.topology.branches and name in self.coordinates:
            return (self.q[self.coordinates.index(name)],
                    self.u[self.speed_names.index(f"{name}'")])
        tail, head = net.graph.ends(joint)
        axis = self.node_rotation[tail] * sympy.Matrix(net.element(joint).axis)
        d = self.node_position[head] - self.node_position[tail]
        if not rate:
            return axis.dot(d), None
        # d/dt (e . d) with e turning with the tail body: (w_tail x e) . d + e . d'
        return axis.dot(d), (self.omega(tail).cross(axis).dot(d)
                             + axis.dot(self.velocity(head) - self.velocity(tail)))

    def axial(self, joint: str, coordinate: str) -> tuple[sympy.Expr, sympy.Expr]:
        """``(value, rate)`` of a revolute or cylindrical joint's ``"angle"``
        (:meth:`joint_angle`) or a prismatic or cylindrical joint's ``"distance"``
        (:meth:`joint_distance`)."""
        if coordinate == "angle":
            return self.joint_angle(joint)[:2]
        return self.joint_distance(joint)

    def frame_quantity(self, body: str, quantity: str) -> sympy.Expr:
        """A component ``"wx"``, ``"wy"`` or ``"wz"`` of a body's angular velocity (world
        axes)."""
        return self.omega(body)["xyz".index(quantity[-1])]

    def pose(self, edge: str) -> dict:
        """The across variables of an edge and their rates, as force laws read them."""
        net = self.mechanism.network
        tail, head = net.graph.ends(edge)
        out = {"dr": self.node_position[head] - self.node_position[tail],
               "R_tail": self.node_rotation[tail], "R_head": self.node_rotation[head],
               "v": self.velocity(head) - self.velocity(tail),
               "omega_tail": self.omega(tail), "omega_head": self.omega(head)}
        element = net.element(edge)
        if isinstance(element, se.SpatialRotarySpringDamper):
            out["joint"] = self.joint_angle(element.joint)
        return out

    @cached_property
    def force_elements(self) -> list[tuple]:
        """``(element, F, T)`` of every element with a force law, in q, u, t."""
        out = []
        for element in self.mechanism.network.elements:
            if type(element).through is se.SpatialElement.through:
                continue   # bodies, arms and joints have no force law
            law = element.through(self.pose(element.name), t)
            if law is not None:
                out.append((element, *law))
        return out

    @cached_property
    def applied_forces(self) -> sympy.Matrix:
        """Generalized forces of springs, dampers and drivers:
        ``-(J_v^T F + J_w^T T)`` of each edge (head minus tail)."""
        net = self.mechanism.network
        total = sympy.zeros(len(self.u), 1)
        for element, F, T in self.force_elements:
            tail, head = net.graph.ends(element.name)
            Jv = self.node_velocity_jacobian[head] - self.node_velocity_jacobian[tail]
            Jw = self.node_angular_jacobian[head] - self.node_angular_jacobian[tail]
            total -= Jv.T * F + Jw.T * T
        return total

    @cached_property
    def input_columns(self) -> tuple[tuple[str, ...], sympy.Matrix]:
        """Names and generalized forces (columns, in the speeds) of unit inputs: each
        component of every applied force (``"<name>.x"`` ...) and torque, in the axes the
        element was given in; a linear model's ``B`` is made of them."""
        net = self.mechanism.network
        names, columns = [], []
        for element in net.elements:
            if not isinstance(element, (se.SpatialForce, se.SpatialTorque)):
                continue
            tail, head = net.graph.ends(element.name)
            jacobians = self.node_velocity_jacobian if isinstance(element, se.SpatialForce) \
                else self.node_angular_jacobian
            J = jacobians[head] - jacobians[tail]
            axes = self.node_rotation[head] if element.body else sympy.eye(3)
            for k, axis in enumerate("xyz"):
                names.append(f"{element.name}.{axis}")
                columns.append(J.T * axes[:, k])
        n = len(self.u)
        return tuple(names), sympy.Matrix.hstack(*columns) if columns else sympy.zeros(n, 0)

    def _body_terms(self, body):
        node = body["node"]
        R = self.node_rotation[node]
        Jw_b = R.T * self.node_angular_jacobian[node]
        Jv = self.node_velocity_jacobian[node]
        return R, Jv, Jw_b

    @cached_property
    def M(self) -> sympy.Matrix:
        """Mass matrix ``sum m J_v^T J_v + J_wb^T J J_wb`` (``J_wb``: body axes)."""
        self.refuse_beams("the mass matrix M")
        n = len(self.u)
        M = sympy.zeros(n, n)
        for body in self.bodies:
            _, Jv, Jw_b = self._body_terms(body)
            M += body["m"] * Jv.T * Jv + Jw_b.T * body["J"] * Jw_b
        for J, row, _ in self._rotor_terms:
            g = sympy.Matrix([row])
            M += J * g.T * g
        return M

    @cached_property
    def body_forces(self) -> sympy.Matrix:
        """The bodies' generalized forces: gravity, velocity and gyroscopic terms,
        ``sum J_v^T m (g - gamma_v) - J_wb^T (J gamma_wb + w_b x J w_b)``."""
        n = len(self.u)
        Q = sympy.zeros(n, 1)
        u = sympy.Matrix(self.u)
        for body in self.bodies:
            R, Jv, Jw_b = self._body_terms(body)
            node, m, J = body["node"], body["m"], body["J"]
            w_b = Jw_b * u
            g_b = R.T * self.node_angular_convective[node]
            Q += Jv.T * (m * (self.gravity - self.node_velocity_convective[node]))
            Q -= Jw_b.T * (J * g_b + w_b.cross(J * w_b))
        for J, row, gamma in self._rotor_terms:
            Q -= J * gamma * sympy.Matrix(row)
        return Q

    def coriolis_matrix(self) -> sympy.Matrix:
        """The velocity-free Coriolis matrix of Tuan et al.: ``M q'' + C*(q) (q' kron q') = f``
        with ``C* = dM/dq - (d vec M/dq)^T / 2`` (``dM/dq = [dM/dq_1 ... dM/dq_n]``,
        ``vec`` stacking columns), n x n^2: ``C*[i, k n + j] = dM_ij/dq_k - dM_kj/dq_i / 2``,
        so ``C* (u kron u) = M' u - d(u^T M u / 2)/dq`` is the Coriolis and centrifugal
        part of the equations, minus the velocity terms of :attr:`Q`. Needs ``q' = u`` (no
        quaternions): an open chain in joint coordinates of revolute, prismatic,
        universal, cylindrical, screw or planar joints.

        ``dM/dq_k`` comes from the derivatives of the bodies' Jacobians along ``q_k``,
        carried down the tree walk as the Jacobians themselves are
        (:func:`_jacobian_derivatives`), never from differentiating ``M``, whose
        expressions grow much faster with the depth of the tree.

        Returns
        -------
        sympy.Matrix
            ``n x n^2``, ``n`` the number of coordinates.

        Raises
        ------
        FormulationError
            When quaternions are among the coordinates (``q' != u``).

        Examples
        --------
        >>> import vecnet as vn
        >>> mech = vn.spatial.Mechanism("p")
        >>> bob = mech.body("bob", 1.0, (0.1, 0.1, 0.1), position=(1, 0, 0))
        >>> _ = mech.revolute("pin", mech.ground.point(0, 0, 0), bob.point(-1, 0, 0))
        >>> mech.formulate().coriolis_matrix()
        Matrix([[0]])
        """
        if self.N != sympy.eye(len(self.q)):
            raise FormulationError("coriolis_matrix() needs q' = u: coordinates without "
                                   "quaternions (no ball joints or free bodies in the tree)")
        n = len(self.q)
        dM = _mass_matrix_derivatives(self)
        out = sympy.zeros(n, n * n)
        for k in range(n):              # block k of dM/dq: dM/dq_k
            for i in range(n):
                for j in range(n):
                    out[i, k * n + j] += dM[k][i, j]
        for k in range(n):              # (d vec M / dq)^T: row k, column (j n + i) <- dM_ij/dq_k
            for i in range(n):
                for j in range(n):
                    out[k, j * n + i] -= dM[k][i, j] / 2
        return out

    # -- numerics ---------------------------------------------------------------------
    driver = se.SpatialMotionDriver

    def initial_guess(self) -> np.ndarray:
        """Branch coordinates read off the bodies' initial poses."""
        mech, net = self.mechanism, self.mechanism.network
        values = []
        for branch in self.topology.branches:
            element = net.element(branch)
            tail, head = net.graph.ends(branch)
            (rt, Rt), (rh, Rh) = mech.initial_pose(tail), mech.initial_pose(head)
            values.extend(element.coordinates_from(Rt, Rh, rh - rt))
        return np.array(values, dtype=float)


def _columns(n: int, idx: list[int], block: sympy.Matrix) -> sympy.Matrix:
    """A 3 x n matrix with ``block``'s columns at positions ``idx``."""
    out = sympy.zeros(3, n)
    for j, i in enumerate(idx):
        out[:, i] = block[:, j]
    return out


def _rate(matrix: sympy.Matrix, qb, qdot) -> sympy.Matrix:
    """``d/dt matrix`` for a matrix in the branch coordinates ``qb`` with rates ``qdot``."""
    out = sympy.zeros(*matrix.shape)
    for qi, qd in zip(qb, qdot):
        if matrix.has(qi):
            out += matrix.diff(qi) * qd
    return out


class SpatialKinematics(NamedTuple):
    """Every node's kinematics in a spatial formulation's coordinates, by node: rotation
    matrix, position, angular and linear velocity Jacobians (3 x nu) and their convective
    terms (empty without velocities)."""

    rotation: dict
    position: dict
    angular_jacobian: dict
    velocity_jacobian: dict
    angular_convective: dict
    velocity_convective: dict


def spatial_kinematics(eom: SpatialEquations, velocities: bool = True) -> SpatialKinematics:
    """Every node's rotation matrix, position, angular and linear velocity Jacobians (world
    axes, 3 x nu) and convective accelerations (``J' u``), each built from its parent's
    along the tree by the branch's relative motion. With ``velocities``
    false only the rotations and positions are built (the Jacobians and convective terms
    are returned empty): what the constraints need, without the expressions whose size
    grows with the depth of the tree.

    For a branch from frame ``P`` to frame ``C`` with ``R_C = R_P R_rel``,
    ``r_C = r_P + R_P rho``: ``omega_C = omega_P + R_P W u_b``,
    ``v_C = v_P + omega_P x d + R_P V u_b`` and the convective terms follow by one more
    differentiation (a branch walked against its direction is inverted)."""
    net = eom.mechanism.network
    nu = len(eom.u)
    zero3 = sympy.zeros(3, 1)
    R = {DATUM: sympy.eye(3)}
    r = {DATUM: zero3}
    Jw = {DATUM: sympy.zeros(3, nu)}
    Jv = {DATUM: sympy.zeros(3, nu)}
    gw = {DATUM: zero3}
    gv = {DATUM: zero3}
    u_all = sympy.Matrix(eom.u)
    for here, there, branch, forward, qidx in eom.walk:
        element = net.element(branch)
        uidx = eom.speed_index[branch]
        qb = [eom.q[i] for i in qidx]
        ub = sympy.Matrix([eom.u[i] for i in uidx])
        Rrel, rho, W, V, Nb = eom.branch_motion(branch, qb)
        if forward:
            Rt = R[here]
            R[there] = Rt * Rrel
        else:
            R[there] = R[here] * Rrel.T
            Rt = R[there]
        moves = not all(x == 0 for x in rho) or any(x != 0 for x in V)
        if moves:
            d = Rt * rho if element.frame == "tail" else rho
            r[there] = r[here] + (d if forward else -d)
        else:
            r[there] = r[here]
        if velocities:
            _velocity_step(eom, here, there, forward, element, uidx, qb, ub, Rt, W, V, rho,
                           Nb, moves, Jw, Jv, gw, gv, u_all, nu)
    return SpatialKinematics(R, r, Jw, Jv, gw, gv)


def _velocity_step(eom, here, there, forward, element, uidx, qb, ub, Rt, W, V, rho, Nb, moves,
                   Jw, Jv, gw, gv, u_all, nu) -> None:
    """One branch of :func:`spatial_kinematics`: the head's Jacobians and convective terms
    from the tail's."""
    zero3 = sympy.zeros(3, 1)
    qdot = list(Nb * ub) if qb else []
    w_here = Jw[here] * u_all
    if W.shape[1] and any(x != 0 for x in W):
        rel = Rt * W * ub
        # a free rotation's W u_b has no rate at constant u_b, in either axes (see
        # SpatialElement.branch_motion); in body axes differentiating R_rel would write
        # that zero as terms that cancel only on the unit quaternions
        Wd = sympy.zeros(3, 1) if element.free_rotation else _rate(W, qb, qdot) * ub
        cols = _columns(nu, uidx, Rt * W)
        if forward:
            Jw[there] = Jw[here] + cols
            gw[there] = gw[here] + w_here.cross(rel) + Rt * Wd
        else:
            Jw[there] = Jw[here] - cols
            gw[there] = gw[here] - w_here.cross(rel) - Rt * Wd
    else:
        Jw[there], gw[there] = Jw[here], gw[here]
    if not moves:
        Jv[there], gv[there] = Jv[here], gv[here]
        return
    Vd = _rate(V, qb, qdot) * ub if V.shape[1] else zero3
    if element.frame == "tail":
        d = Rt * rho
        slide = Rt * V * ub if V.shape[1] else zero3
        cols = _columns(nu, uidx, Rt * V) if V.shape[1] else sympy.zeros(3, nu)
        if forward:
            Jv[there] = Jv[here] - skew(d) * Jw[here] + cols
            gv[there] = (gv[here] + gw[here].cross(d) + w_here.cross(w_here.cross(d))
                         + 2 * w_here.cross(slide) + Rt * Vd)
        else:
            w_t = Jw[there] * u_all
            Jv[there] = Jv[here] + skew(d) * Jw[there] - cols
            gv[there] = gv[here] - (gw[there].cross(d) + w_t.cross(w_t.cross(d))
                                    + 2 * w_t.cross(slide) + Rt * Vd)
    else:
        cols = _columns(nu, uidx, V) if V.shape[1] else sympy.zeros(3, nu)
        sign = 1 if forward else -1
        Jv[there] = Jv[here] + sign * cols
        gv[there] = gv[here] + sign * Vd


def _nonzero(matrix: sympy.Matrix) -> bool:
    """Whether any entry of ``matrix`` is not identically zero (structurally)."""
    return any(x != 0 for x in matrix)


def _jacobian_derivatives(eom: SpatialEquations) -> tuple[dict, dict]:
    """``dJ_w/dq_k`` and ``dJ_v/dq_k`` (world axes, 3 x n each, a list over ``k``) of every
    node, for ``q' = u``: carried down the tree walk as :func:`spatial_kinematics` carries
    the Jacobians, differentiating only each branch's own motion ``(rho, W, V)(q_b)``.

    With ``q' = u`` a frame turns with ``dR/dq_k = S(w_k) R``, ``w_k`` column ``k`` of
    its angular Jacobian. For a branch from frame ``P`` (``R_P``, ``J_w``, ``J_v``) to
    ``C`` with ``J_w,C = J_w + [R_P W]`` and, for an offset ``d = R_P rho`` fixed in
    ``P``, ``J_v,C = J_v - S(d) J_w + [R_P V]`` (``[.]`` placing the branch's columns):

        dJ_w,C = dJ_w + [S(w_k) R_P W + R_P dW],
        dJ_v,C = dJ_v - S(w_k x d + R_P drho) J_w - S(d) dJ_w + [S(w_k) R_P V + R_P dV];

    a branch walked against its direction subtracts, with ``P`` its far end. Returns
    ``(dJw, dJv)``: node -> list of n matrices."""
    net = eom.mechanism.network
    n = len(eom.u)
    R, Jw = eom.node_rotation, eom.node_angular_jacobian
    zero = sympy.zeros(3, n)
    dJw = {DATUM: [zero] * n}
    dJv = {DATUM: [zero] * n}
    for here, there, branch, forward, qidx in eom.walk:
        element = net.element(branch)
        uidx = eom.speed_index[branch]
        qb = [eom.q[i] for i in qidx]
        _, rho, W, V, _ = eom.branch_motion(branch, qb)
        sign = 1 if forward else -1
        # the frame the branch's motion is expressed in, and its angular Jacobian
        Rt, Jt = (R[here], Jw[here]) if forward else (R[there], Jw[there])
        turns = W.shape[1] and _nonzero(W)
        moves = _nonzero(rho) or (V.shape[1] and _nonzero(V))
        RW = Rt * W if turns else None
        dJw[there] = list(dJw[here])
        if turns:
            for k in range(n):
                wk = Jt[:, k]
                own = eom.q[k] in qb and W.has(eom.q[k])
                if not (_nonzero(wk) or own):
                    continue
                cols = skew(wk) * RW + (Rt * W.diff(eom.q[k]) if own else sympy.zeros(*W.shape))
                dJw[there][k] = dJw[here][k] + sign * _columns(n, uidx, cols)
        if not moves:
            dJv[there] = list(dJv[here])
            continue
        dJv[there] = []
        if element.frame != "tail":   # offset and its rate in ground axes
            for k in range(n):
                own = V.shape[1] and eom.q[k] in qb and V.has(eom.q[k])
                extra = sign * _columns(n, uidx, V.diff(eom.q[k])) if own else None
                dJv[there].append(dJv[here][k] + extra if own else dJv[here][k])
            continue
        d = Rt * rho
        RV = Rt * V if V.shape[1] else None
        Jref, dJref = (Jw[here], dJw[here]) if forward else (Jw[there], dJw[there])
        for k in range(n):
            wk = Jt[:, k]
            own = eom.q[k] in qb
            dd = wk.cross(d) + (Rt * rho.diff(eom.q[k]) if own else sympy.zeros(3, 1))
            change = -(skew(dd) * Jref + skew(d) * dJref[k])
            if RV is not None:
                cols = skew(wk) * RV + (Rt * V.diff(eom.q[k]) if own else sympy.zeros(*V.shape))
                change += _columns(n, uidx, cols)
            dJv[there].append(dJv[here][k] + sign * change)
    return dJw, dJv


def _mass_matrix_derivatives(eom: SpatialEquations) -> list[sympy.Matrix]:
    """``dM/dq_k`` for every coordinate ``k`` (``q' = u``), from
    ``M = sum m J_v^T J_v + J_wb^T J J_wb`` and the Jacobians' derivatives
    (:func:`_jacobian_derivatives`): ``dM/dq_k = A + A^T`` with
    ``A = dJ_v^T m J_v + (dJ_w - S(w_k) J_w)^T R J J_wb`` (``J_wb = R^T J_w`` in body
    axes, which turn with the body: ``dJ_wb = R^T (dJ_w - S(w_k) J_w)``).

    Returns a list of n symmetric ``n x n`` matrices."""
    n = len(eom.u)
    dJw, dJv = _jacobian_derivatives(eom)
    out = [sympy.zeros(n, n) for _ in range(n)]
    for body in eom.bodies:
        R, Jv, Jw_b = eom._body_terms(body)
        node = body["node"]
        Jw = eom.node_angular_jacobian[node]
        # the factors that do not depend on k, formed once per body
        mJv = body["m"] * Jv
        spin = R * (body["J"] * Jw_b)
        for k in range(n):
            wk = Jw[:, k]
            if not (_nonzero(dJv[node][k]) or _nonzero(dJw[node][k]) or _nonzero(wk)):
                continue
            A = dJv[node][k].T * mJv + (dJw[node][k] - skew(wk) * Jw).T * spin
            out[k] += A + A.T
    return out
