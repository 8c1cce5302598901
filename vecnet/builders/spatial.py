"""Building spatial mechanisms: bodies, points, joints, force elements and drivers.

A :class:`Mechanism` is a declarative description, the 3-D twin of
:class:`vecnet.planar.Mechanism`; every call adds edges of a vector network:

* a body adds a mass element from the datum (the ground frame) to its mass centre;
* a point adds a rigid arm from the body's mass centre (or the datum) to the point;
* joints, springs, dampers and drivers add edges between points or frames.

Bodies are placed in their initial pose, which also seeds assembly. Joint axes are
given in world axes at that pose. A joint's angle about its axis is the turn of its head
body relative to its tail body (between -pi and pi at the initial pose), as the planar
joint angle is ``theta_head - theta_tail``: bodies in the same axes start at angle zero.
A distance is measured along the axis from the tail point to the head point.
"""

from __future__ import annotations

import numpy as np
import sympy

from ..core.rotations import inertia_matrix, orientation_matrix, unit_axis
from ..elements import spatial as se
from ..elements.joints import JOINTS
from ..errors import ModelError
from . import mechanism as multibody
from .mechanism import DATUM, MechanismBuilder, Point, pinion_on_its_rack, recorded

__all__ = ["Mechanism", "Body", "Point", "DATUM"]


class Body(multibody.Body):
    """A rigid body of a spatial :class:`Mechanism` (made by :meth:`Mechanism.body`): its
    mass, its principal moments of inertia about its mass centre, and the position and
    orientation it starts at.

    >>> import vecnet as vn
    >>> mech = vn.spatial.Mechanism("top", gravity=(0, 0, -9.81))
    >>> top = mech.body("top", 1.0, (0.01, 0.01, 0.02), position=(0, 0, 0.1))
    >>> top
    <Body top at (0.0, 0.0, 0.1)>
    >>> top.point(0, 0, -0.1).position      # the tip, in the world's frame
    array([0., 0., 0.])
    """

    def __init__(self, mechanism: Mechanism, name: str, mass, inertia, position, R) -> None:
        super().__init__(mechanism, name, mass, inertia)
        self.position = np.asarray(position, dtype=float)
        self.R = np.asarray(R, dtype=float)

    def place(self, local) -> np.ndarray:
        """World coordinates of the body point at ``local`` in the initial pose."""
        return self.position + self.R @ np.asarray(local)

    def pose(self, position) -> tuple[np.ndarray, np.ndarray]:
        """``(position, rotation matrix)``: the point at ``position`` and the body's axes."""
        return np.asarray(position, dtype=float), self.R

    def point(self, x: float, y: float, z: float, name: str | None = None) -> Point:
        """The point at ``(x, y, z)`` in body axes relative to the mass centre (for the
        ground, in world axes). The same coordinates give the same point."""
        return self._point((x, y, z), name)

    def __repr__(self) -> str:
        return f"<Body {self.name} at {tuple(float(x) for x in self.position)}>"


class Mechanism(MechanismBuilder):
    """A spatial mechanism, built as a vector network.

    Parameters
    ----------
    name : str
    gravity : (gx, gy, gz)
        Gravitational acceleration in world axes.

    Examples
    --------
    >>> import vecnet as vn
    >>> mech = vn.spatial.Mechanism("pendulum", gravity=(0, 0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0, 0, -1))
    >>> _ = mech.spherical("ball", mech.ground.point(0, 0, 0), bob.point(0, 0, 1))
    >>> mech.formulate().coordinates
    ('ball.qw', 'ball.qx', 'ball.qy', 'ball.qz')
    """

    dimensions, label = 3, "spatial Mechanism"
    arm, spring_damper, beam_element = se.SpatialArm, se.SpatialSpringDamper, \
        se.SpatialBeamElement
    _no_inertia = (0.0, 0.0, 0.0)
    axial_joints = {se.SpatialRevolute: ("revolute", ("angle",)),
                    se.SpatialPrismatic: ("prismatic", ("distance",)),
                    se.SpatialCylindrical: ("cylindrical", ("angle", "distance"))}
    #: the angular velocity of the body frame, world axes
    frame_quantities = ("wx", "wy", "wz")
    stop_element = se.SpatialJointStop
    contact_element = se.SpatialContact

    def __init__(self, name: str = "mechanism", gravity=(0.0, 0.0, -9.81)) -> None:
        super().__init__(name, gravity)
        self.ground = Body(self, DATUM, None, None, (0.0, 0.0, 0.0), np.eye(3))

    @recorded("bodies")
    def body(self, name: str, mass, inertia, position=(0.0, 0.0, 0.0), orientation=None) -> Body:
        """Add a rigid body of ``mass`` and ``inertia`` about its mass centre in body axes
        (three principal moments or a 3 x 3 matrix), its mass centre at ``position`` and
        its axes turned by ``orientation`` (a rotation matrix, a unit quaternion
        ``(w, x, y, z)`` or a ``scipy.spatial.transform.Rotation``; default: world axes)."""
        self._check_body_name(name, mass)
        J = inertia_matrix(inertia, name)
        R = orientation_matrix(orientation, name)
        try:
            position = np.asarray(position, dtype=float).reshape(3)
        except (TypeError, ValueError):
            raise ModelError(f"body {name!r}: position is three numbers (x, y, z); "
                             f"got {position!r}") from None
        body = Body(self, name, mass, J, position, R)
        self._add(se.SpatialMass(name, DATUM, name, m=mass, J=J))
        self.bodies[name] = body
        return body

    def _beam_frame(self, name: str, direction: np.ndarray, y_axis) -> dict:
        if y_axis is None:
            y = np.cross((0.0, 0.0, 1.0), direction)
            y = y if np.linalg.norm(y) > 1e-9 else np.array([0.0, 1.0, 0.0])
        else:
            y = unit_axis(y_axis, name)
        y = y - (y @ direction) * direction
        if not np.linalg.norm(y) > 1e-9:
            raise ModelError(f"beam {name!r}: y_axis {tuple(y_axis)} lies along the beam; give "
                             "a direction across it")
        y /= np.linalg.norm(y)
        return {"orientation": np.column_stack([direction, y, np.cross(direction, y)])}

    def _joint(self, cls, name, a, b, axis=None, **extra):
        self._points(name, a, b)
        R0 = a.body.R.T @ b.body.R
        local = None if axis is None else a.body.R.T @ unit_axis(axis, name)
        return self._add(cls(name, a.node, b.node, R0, axis=local, **extra) if axis is not None
                         else cls(name, a.node, b.node, R0, **extra))

    def joint(self, kind: str, name: str, a: Point, b: Point, **options):
        """A joint of any kind of the catalogue (:data:`vecnet.elements.joints.JOINTS`) by its
        name: ``mech.joint("revolute", "O", a, b, axis=(0, 0, 1))`` is
        ``mech.revolute("O", a, b, axis=(0, 0, 1))``; a kind the builder has no method for
        takes its direction (``axis``, ``normal`` or ``axes``, world axes at the initial
        pose; the kind's default when not given) and its options by keyword.

        Raises
        ------
        ModelError
            An unknown ``kind``, or options the kind does not take.

        >>> import vecnet as vn
        >>> mech = vn.spatial.Mechanism("m")
        >>> arm = mech.body("arm", 1.0, (0.1, 0.1, 0.1), position=(1, 0, 0))
        >>> mech.joint("revolute", "O", mech.ground.point(0, 0, 0), arm.point(-1, 0, 0)).speeds
        ("angle'",)
        """
        record = JOINTS.get(kind)
        if record is None:
            raise ModelError(f"joint {name!r}: no joint kind {kind!r}; the kinds are "
                             f"{', '.join(JOINTS)}")
        if getattr(type(self), kind, None) is not None:
            return getattr(self, kind)(name, a, b, **options)
        if record.direction is not None:   # written to a file as used
            options.setdefault(record.direction, record.default)
        return self._catalogued(kind, name, a, b, **options)

    @recorded("joints")
    def _catalogued(self, kind: str, name: str, a: Point, b: Point, **options):
        """:meth:`joint` of a kind the builder has no method of its own for."""
        record = JOINTS[kind]
        known = {record.direction, *record.options} - {None}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ModelError(f"joint {name!r}: a {kind} joint takes "
                             f"{', '.join(sorted(known)) or 'no options'}, not "
                             f"{', '.join(unknown)}")
        extra = {key: options[key] for key in record.options if key in options}
        if record.direction is None:
            return self._joint(record.element, name, a, b, **extra)
        return self._joint(record.element, name, a, b, options[record.direction], **extra)

    @recorded("joints")
    def revolute(self, name: str, a: Point, b: Point, axis=(0.0, 0.0, 1.0)):
        """A revolute joint about ``axis`` (world axes at the initial pose) through the
        points ``a`` (tail) and ``b`` (head); coordinate ``"<name>.angle"``."""
        return self._joint(se.SpatialRevolute, name, a, b, axis)

    @recorded("joints")
    def prismatic(self, name: str, a: Point, b: Point, axis=(1.0, 0.0, 0.0)):
        """A prismatic joint: ``b`` slides along ``axis`` through ``a``; ``"<name>.distance"``."""
        return self._joint(se.SpatialPrismatic, name, a, b, axis)

    @recorded("joints")
    def cylindrical(self, name: str, a: Point, b: Point, axis=(0.0, 0.0, 1.0)):
        """A cylindrical joint along ``axis``: ``"<name>.angle"`` and ``"<name>.distance"``."""
        return self._joint(se.SpatialCylindrical, name, a, b, axis)

    @recorded("joints")
    def screw(self, name: str, a: Point, b: Point, axis=(0.0, 0.0, 1.0), pitch=0.0):
        """A screw joint along ``axis`` advancing ``pitch`` per radian; ``"<name>.angle"``.
        A screw must stay in the tree (it cannot close a loop)."""
        return self._joint(se.SpatialScrew, name, a, b, axis, pitch=pitch)

    @recorded("joints")
    def spherical(self, name: str, a: Point, b: Point):
        """A ball joint; coordinates the relative rotation as a unit quaternion
        ``"<name>.qw"`` ... ``"<name>.qz"``, speeds the relative angular velocity in the
        axes of ``a``'s body (``"<name>.wx"`` ...)."""
        return self._joint(se.SpatialSpherical, name, a, b)

    @recorded("joints")
    def universal(self, name: str, a: Point, b: Point, axes=((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))):
        """A universal joint: ``axes = (u, v)`` in world axes at the initial pose, ``u``
        fixed in ``a``'s body, ``v`` in ``b``'s, perpendicular; ``"<name>.angle1"``,
        ``"<name>.angle2"``."""
        if len(axes) != 2:
            raise ModelError(f"{name!r}: a universal joint takes axes=(u, v)")
        u, v = unit_axis(axes[0], name), unit_axis(axes[1], name)
        if abs(u @ v) > 1e-9:
            raise ModelError(f"{name!r}: the two axes of a universal joint must be "
                             f"perpendicular; their cosine is {u @ v:.6g}")
        return self._joint(se.SpatialUniversal, name, a, b, u, axis2=b.body.R.T @ v)

    @recorded("joints")
    def planar_joint(self, name: str, a: Point, b: Point, normal=(0.0, 0.0, 1.0)):
        """A planar joint: ``b`` moves in the plane through ``a`` normal to ``normal``;
        ``"<name>.x"``, ``"<name>.y"``, ``"<name>.angle"``."""
        return self._joint(se.SpatialPlanarJoint, name, a, b, normal)

    @recorded("joints")
    def weld(self, name: str, a: Point, b: Point):
        """A rigid joint holding the two bodies in their initial relative pose."""
        return self._joint(se.SpatialWeld, name, a, b)

    @recorded("joints")
    def point_on_line(self, name: str, a: Point, b: Point, axis=(1.0, 0.0, 0.0)):
        """``b`` stays on the line through ``a`` along ``axis``, free to slide and turn."""
        return self._joint(se.SpatialPointOnLine, name, a, b, axis)

    @recorded("joints")
    def point_on_plane(self, name: str, a: Point, b: Point, normal=(0.0, 0.0, 1.0)):
        """``b`` stays in the plane through ``a`` normal to ``normal``, free to turn."""
        return self._joint(se.SpatialPointOnPlane, name, a, b, normal)

    @recorded("joints")
    def rolling_wheel(self, name: str, wheel: Body | Point, radius, axis=(0.0, 1.0, 0.0),
                      normal=None, point: Point | None = None):
        """A thin disc wheel of ``radius`` centred at ``wheel`` (a point of the wheel's body,
        or the body: its mass centre), its axle along ``axis`` (world axes at the initial
        pose, fixed in the wheel's body), rolling without slip on the ground's plane
        through ``point`` (a ground point, default the origin) normal to ``normal``
        (default: against gravity, or z without gravity). The contact edge runs from
        ``point`` to the centre (:class:`~vecnet.elements.spatial.SpatialRollingContact`):
        the lowest point of the rim touches the plane (a position constraint,
        ``"<name>.normal"``) and does not slide on it (two velocity constraints,
        ``"<name>.tangent1"`` and ``"<name>.tangent2"``). Reports the contact force on the
        wheel as ``"<name>.reaction"`` (its torque about the centre as
        ``"<name>.reaction_torque"``), with ``"<name>.normal_force"`` (pressing the wheel
        on the plane, positive while in contact) and ``"<name>.traction"`` (the force
        along the plane) and the contact point ``"<name>.contact"``.

        Raises
        ------
        ModelError
            For a radius that is not positive, a point that is not the ground's (a wheel
            in space rolls on the ground), a wheel of another mechanism, or an axle along
            the normal (a wheel lying flat).

        >>> import vecnet as vn
        >>> mech = vn.spatial.Mechanism("coin", gravity=(0, 0, -9.81))
        >>> coin = mech.body("coin", 0.01, (1e-6, 2e-6, 1e-6), position=(0, 0, 0.01))
        >>> _ = mech.rolling_wheel("contact", coin, radius=0.01, axis=(0, 1, 0))
        >>> eom = mech.formulate()
        >>> eom.constraint_names, eom.velocity_constraint_names
        (('contact.normal',), ('contact.tangent1', 'contact.tangent2'))
        """
        ground, centre = self._wheel_ends(name, wheel, point, radius)
        if ground.body is not self.ground:
            # the spatial rolling rows read the plane as fixed; a sphere's contact with
            # friction (contact(..., plane=<the body's point>)) rolls on a moving body
            raise ModelError(f"rolling wheel {name!r}: in space a wheel rolls on the ground's "
                             f"plane; {ground.node!r} is a point of body {ground.body.name!r} "
                             "(a sphere rolls on a moving body through contact(..., plane=, "
                             "mu_kinetic=))")
        if normal is None:
            try:
                g = np.array([float(x) for x in self.gravity])
            except TypeError:   # gravity with symbols
                g = np.zeros(3)
            normal = -g if np.linalg.norm(g) > 0 else (0.0, 0.0, 1.0)
        n, a = unit_axis(normal, name), unit_axis(axis, name)
        if abs(n @ a) > 1 - 1e-9:
            raise ModelError(f"rolling wheel {name!r}: the axle is along the plane's normal "
                             "(the wheel lies flat, touching along its whole rim); turn it")
        return self._add(se.SpatialRollingContact(name, ground.node, centre.node, radius,
                                                  centre.body.R.T @ a, n))

    # -- force elements ------------------------------------------------------------
    @recorded("forces")
    def rotary_spring(self, name: str, joint: str, k=0, c=0, angle=None):
        """A torsion spring and damper across revolute or cylindrical ``joint``: torque
        ``-(k (angle - angle0) + c angle')`` on the joint's head body about the axis, with
        the free angle ``angle0`` given by ``angle`` (default: the joint's angle at the
        initial pose)."""
        self._check_name(name)
        element = self.network.element(joint)
        if not isinstance(element, (se.SpatialRevolute, se.SpatialCylindrical)):
            raise ModelError(f"rotary spring {name!r}: {joint!r} is a "
                             f"{type(element).__name__}; a revolute or cylindrical joint is needed")
        edge = element.edges[0]
        angle0 = element.initial_angle if angle is None else angle
        return self._add(se.SpatialRotarySpringDamper(name, edge.tail, edge.head, joint, k=k, c=c,
                                                      angle0=angle0))

    @recorded("forces")
    def force(self, name: str, point: Point, force, body_axes: bool = False):
        """An applied force ``(fx, fy, fz)`` on ``point`` (world axes, or the axes of the
        point's body with ``body_axes``); components numbers, sympy expressions in
        ``vn.t`` or functions of t."""
        self._check_name(name)
        self._check_point(name, point)
        return self._add(se.SpatialForce(name, DATUM, point.node,
                                         self._vector(name, force, "force"), body=body_axes))

    @recorded("forces")
    def torque(self, name: str, body: Body, torque, reaction: Body | None = None,
               body_axes: bool = False):
        """An applied torque ``(tx, ty, tz)`` on ``body``, reacting on the ground (or on
        ``reaction``), in world axes or in ``body``'s axes with ``body_axes``."""
        self._check_name(name)
        base = self.ground if reaction is None else reaction
        return self._add(se.SpatialTorque(name, base.node, body.node,
                                          self._vector(name, torque, "torque"), body=body_axes))

    @recorded("drives")
    def drive(self, name: str, joint: str, motion, quantity: str | None = None):
        """Prescribe the coordinate of revolute, prismatic or cylindrical ``joint``
        (``quantity``: ``"angle"`` or ``"distance"``; by default the joint's only one, the
        angle of a cylindrical joint) as ``motion``: a number or a sympy expression in
        ``vn.t``. The driver's effort is reported as ``"<name>.effort"``."""
        self._check_name(name)
        element = self.network.element(joint)
        allowed = self.axial_coordinates(joint)
        if not allowed:
            raise ModelError(f"drive {name!r}: only revolute, prismatic and cylindrical joints "
                             f"can be driven; {joint!r} is a {type(element).__name__}")
        quantity = allowed[0] if quantity is None else quantity
        if quantity not in allowed:
            raise ModelError(f"drive {name!r}: {joint!r} has no {quantity!r}; it has "
                             + ", ".join(allowed))
        if callable(motion) and not isinstance(motion, sympy.Basic):
            raise ModelError(f"drive {name!r}: give the motion as a sympy expression in vn.t "
                             "(its derivatives are needed), not a Python function")
        value = sympy.sympify(motion)
        if value.free_symbols - {sympy.Symbol("t", real=True)}:
            raise ModelError(f"drive {name!r}: the motion may depend on t only; got {value}")
        edge = element.edges[0]
        return self._add(se.SpatialMotionDriver(name, edge.tail, edge.head, joint, quantity, value))

    # -- elements that act in a joint ------------------------------------------------------
    def _friction_element(self, name, joint, quantity, viscous, coulomb, smoothing, **law):
        edge = joint.edges[0]
        return se.SpatialJointFriction(name, edge.tail, edge.head, joint.name, quantity,
                                       joint.axis, viscous, coulomb, smoothing, **law)

    def _joint_on(self, name: str, body: Body, quantity: str) -> str:
        """The one joint with ``quantity`` (``"angle"`` or ``"distance"``) that joins
        ``body`` to another body; refused in words when there is none or more than one."""
        own = self._nodes_of(body)
        found = [e.name for e in self.network.elements
                 if quantity in self.axial_joints.get(type(e), ("", ()))[1]
                 and own & set(self.network.graph.ends(e.name))]
        if len(found) != 1:
            kinds = self.joints_with(quantity)
            raise ModelError(f"{name!r}: body {body.name!r} " + (
                f"turns or slides on no {kinds} joint" if not found else
                f"has several {kinds} joints ({', '.join(found)})") + "; name the joints "
                "with joints=(joint_a, joint_b)")
        return found[0]

    @staticmethod
    def _nodes_of(body: Body) -> set:
        return {body.node} | {p.node for p in body.points}

    def _mesh_term(self, name: str, body: Body, joint: str, quantity: str, direction=None):
        """``(joint, quantity, sign, initial)`` of a body's turn (or a rack's advance) in a
        gear or rack (:class:`~vecnet.elements.spatial.SpatialMesh`): ``sign`` -1 when the
        body is the joint's tail, and for a rack also when ``direction`` (world axes) points
        against the joint's axis, which it must be parallel to."""
        element, quantity = self._axial_joint(joint, f"{name!r}: a gear or rack works on",
                                              quantity)
        tail, head = self.network.graph.ends(joint)
        own = self._nodes_of(body)
        if head in own:
            sign = 1.0
        elif tail in own:
            sign = -1.0
        else:
            raise ModelError(f"{name!r}: joint {joint!r} does not join body {body.name!r}")
        (rt, Rt), (rh, _) = self.initial_pose(tail), self.initial_pose(head)
        if quantity == "angle":
            initial = element.initial_angle
        else:
            initial = float(element.axis @ (Rt.T @ (rh - rt)))
        if direction is not None:
            along = float(unit_axis(direction, name) @ (Rt @ element.axis))
            if abs(abs(along) - 1.0) > 1e-9:
                raise ModelError(f"{name!r}: the rack advances along its joint {joint!r}; "
                                 f"axis {tuple(direction)} is not parallel to the joint's "
                                 "axis")
            sign *= np.sign(along)
        return (joint, quantity, sign, initial)

    @recorded("forces")
    def gear(self, name: str, body_a: Body, body_b: Body, ratio, internal: bool = False,
             joints: tuple[str, str] | None = None):
        """Gear ``body_a`` to ``body_b``, each turning on a revolute or cylindrical joint:
        ``turn_b = -ratio * turn_a`` (external teeth; ``+ratio`` with ``internal=True``, a
        ring gear), ``ratio`` the pitch radius of ``a`` over that of ``b``. A body's turn is
        its angle about its joint's axis relative to the body at the joint's other end,
        counted from the initial pose; with both joints on the ground (or on one carrier)
        these are the turns of the planar gear, and the two axes need not be parallel
        (bevel gears). The joints are the ones the bodies turn on, or ``joints=(joint_a,
        joint_b)``; they must be in the tree (joint coordinates), where their angles count
        whole turns. Reports ``"<name>.torque_a"`` and ``"<name>.torque_b"``, the tooth
        loads' torques on the two gears (world axes). Joints' reactions are not reported in
        a mechanism with gears: the tooth force's share carried by the axles needs the
        gears' geometry, which a ratio does not give.

        Raises
        ------
        ModelError
            For a ratio that is not positive, bodies of another mechanism, or a body on no
            or several turning joints without ``joints``.

        >>> import vecnet as vn
        >>> mech = vn.spatial.Mechanism("pair", gravity=(0, 0, 0))
        >>> a = mech.body("a", 1, (0.1, 0.1, 0.1))
        >>> b = mech.body("b", 1, (0.2, 0.2, 0.2), position=(1, 0, 0))
        >>> _ = mech.revolute("A", mech.ground.point(0, 0, 0), a.centre, axis=(0, 0, 1))
        >>> _ = mech.revolute("B", mech.ground.point(1, 0, 0), b.centre, axis=(0, 0, 1))
        >>> mech.gear("mesh", a, b, ratio=2).coefficient
        2
        """
        self._check_name(name)
        self._coupled_bodies(name, body_a, body_b)
        self._positive(f"gear {name!r}: ratio", ratio)
        joints = joints or tuple(self._joint_on(name, body, "angle") for body in (body_a, body_b))
        terms = [self._mesh_term(name, body, joint, "angle")
                 for body, joint in zip((body_a, body_b), joints)]
        return self._add(se.SpatialGear(name, body_a.node, body_b.node,
                                        se.SpatialGear.gear_coefficient(ratio, internal), terms))

    @recorded("forces")
    def rack_and_pinion(self, name: str, pinion: Body, rack: Body, radius, axis=None,
                        joints: tuple[str, str] | None = None):
        """Mesh a ``pinion`` turning on a revolute or cylindrical joint with a ``rack``
        sliding on a prismatic or cylindrical joint: the rack advances along ``axis`` (world
        axes, parallel to the rack's joint; default the joint's axis as placed) by
        ``radius`` times the pinion's turn about its joint's axis (flip ``axis`` for a rack
        on the other side). ``joints=(pinion_joint, rack_joint)`` names the joints when a
        body has several. Reports ``"<name>.torque_a"`` (on the pinion, world axes) and
        ``"<name>.force_b"`` (on the rack, along ``axis``); as with gears, no joint
        reactions.

        >>> import vecnet as vn
        >>> mech = vn.spatial.Mechanism("rp", gravity=(0, 0, 0))
        >>> p = mech.body("p", 1, (0.1, 0.1, 0.1))
        >>> r = mech.body("r", 1, (0.1, 0.1, 0.1), position=(0, -1, 0))
        >>> _ = mech.revolute("A", mech.ground.point(0, 0, 0), p.centre, axis=(0, 0, 1))
        >>> _ = mech.prismatic("S", mech.ground.point(0, -1, 0), r.centre, axis=(1, 0, 0))
        >>> mech.rack_and_pinion("rp", p, r, radius=0.5).coefficient
        -0.500000000000000
        """
        self._check_name(name)
        self._coupled_bodies(name, pinion, rack)
        self._positive(f"rack and pinion {name!r}: radius", radius)
        joints = joints or (self._joint_on(name, pinion, "angle"),
                            self._joint_on(name, rack, "distance"))
        if set(self.network.graph.ends(joints[0])) & self._nodes_of(rack):
            raise pinion_on_its_rack(name, pinion.name, joints[0], rack.name)
        terms = [self._mesh_term(name, pinion, joints[0], "angle"),
                 self._mesh_term(name, rack, joints[1], "distance", direction=axis)]
        return self._add(se.SpatialRackAndPinion(name, pinion.node, rack.node,
                                                 -sympy.sympify(radius), terms))

