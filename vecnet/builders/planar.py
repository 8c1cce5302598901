"""Building planar mechanisms: bodies, points, joints, force elements and drivers.

A :class:`Mechanism` is a declarative description; every call adds edges of a
vector network to its graph:

* a body adds a mass element from the datum (the ground frame) to its mass centre;
* a point adds a rigid arm from the body's mass centre (or the datum, for a ground
  point) to the point;
* joints, springs, dampers and drivers add edges between points or frames.

Bodies are placed in their initial pose, which also seeds assembly.
"""

from __future__ import annotations

import math

import sympy

from ..elements import planar as pe
from ..errors import ModelError, UnknownNameError
from . import mechanism as multibody
from .mechanism import DATUM, MechanismBuilder, Point, not_negative, recorded, signal

__all__ = ["Mechanism", "Body", "Point", "DATUM"]


class Body(multibody.Body):
    """A rigid body of a planar :class:`Mechanism` (made by :meth:`Mechanism.body`): its
    mass, its inertia about its mass centre, and the position and angle it starts at.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    >>> mech.body("bob", mass=1.0, inertia=0.01, position=(0.5, 0.0))
    <Body bob at (0.5, 0.0), angle 0.0>
    """

    def __init__(self, mechanism: Mechanism, name: str, mass, inertia, position, angle) -> None:
        super().__init__(mechanism, name, mass, inertia)
        self.position = (float(position[0]), float(position[1]))
        # an exact angle (-pi/2) stays exact in the joints and springs it sets up
        self.angle = angle if isinstance(angle, sympy.Basic) and angle.is_number \
            and angle.is_real else float(angle)

    def place(self, local) -> tuple[float, float]:
        """Ground coordinates of the body point at ``local`` in the initial pose."""
        c, s = math.cos(float(self.angle)), math.sin(float(self.angle))
        return (self.position[0] + c * local[0] - s * local[1],
                self.position[1] + s * local[0] + c * local[1])

    def pose(self, position) -> tuple[float, float, float]:
        """``(x, y, angle)``: the point at ``position`` and the body's angle."""
        return (*position, float(self.angle))

    def point(self, x: float, y: float, name: str | None = None) -> Point:
        """The point at ``(x, y)`` in body coordinates (relative to the mass centre; for the
        ground, absolute). The same coordinates give the same point."""
        return self._point((x, y), name)

    def __repr__(self) -> str:
        return f"<Body {self.name} at {self.position}, angle {self.angle}>"


class Mechanism(MechanismBuilder):
    """A planar mechanism, built as a vector network.

    Parameters
    ----------
    name : str
    gravity : (gx, gy)
        Gravitational acceleration in ground coordinates.

    Examples
    --------
    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.01, position=(0.0, -1.0), angle=-1.5707963267948966)
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1.0, 0.0))
    >>> eom = mech.formulate(coordinates="joint")
    >>> eom.coordinates
    ('pin.angle',)
    """

    dimensions, label = 2, "Mechanism"
    arm, spring_damper, beam_element = pe.Arm, pe.TranslationalSpringDamper, pe.BeamElement
    _no_inertia = 0.0
    axial_joints = {pe.Revolute: ("revolute", ("angle",)),
                    pe.Prismatic: ("prismatic", ("distance",))}
    frame_quantities = ("angle", "omega")
    stop_element = pe.JointStop
    contact_element = pe.Contact

    def __init__(self, name: str = "mechanism", gravity: tuple[float, float] = (0.0, -9.81)) -> None:
        super().__init__(name, gravity)
        self.ground = Body(self, DATUM, None, None, (0.0, 0.0), 0.0)

    @recorded("bodies")
    def body(self, name: str, mass, inertia, position=(0.0, 0.0), angle: float = 0.0) -> Body:
        """Add a rigid body of ``mass`` and ``inertia`` (about its mass centre), with its
        mass centre at ``position`` and its frame turned by ``angle`` (rad)."""
        self._check_body_name(name, mass)
        body = Body(self, name, mass, inertia, position, angle)
        self._add(pe.MassElement(name, DATUM, name, m=mass, J=inertia))
        self.bodies[name] = body
        return body

    def _beam_frame(self, name: str, direction, y_axis) -> dict:
        if y_axis is not None:
            raise ModelError(f"beam {name!r}: a planar beam's section y axis is its axis "
                             "turned a quarter turn in the plane; give no y_axis")
        return {"angle": math.atan2(direction[1], direction[0])}

    def _relative_angle(self, a: Point, b: Point) -> float:
        return b.body.angle - a.body.angle

    @recorded("joints")
    def revolute(self, name: str, a: Point, b: Point):
        """A pin joint between point ``a`` (tail) and point ``b`` (head)."""
        self._points(name, a, b)
        return self._add(pe.Revolute(name, a.node, b.node))

    @recorded("joints")
    def prismatic(self, name: str, a: Point, b: Point, axis=(1.0, 0.0)):
        """A slider: ``b`` moves along ``axis`` (in ``a``'s body coordinates) through ``a``."""
        self._points(name, a, b)
        return self._add(pe.Prismatic(name, a.node, b.node, axis, self._relative_angle(a, b)))

    @recorded("joints")
    def weld(self, name: str, a: Point, b: Point):
        """A rigid joint holding the two bodies in their initial relative pose."""
        self._points(name, a, b)
        return self._add(pe.Weld(name, a.node, b.node, self._relative_angle(a, b)))

    @recorded("joints")
    def slot(self, name: str, a: Point, b: Point, axis=(1.0, 0.0)):
        """A pin ``b`` sliding and turning in a slot along ``axis`` through ``a``."""
        self._points(name, a, b)
        return self._add(pe.PointOnLine(name, a.node, b.node, axis))

    @recorded("forces")
    def rotary_spring(self, name: str, a: Body | Point, b: Body | Point, k=0, c=0, angle=None):
        """A rotational spring (and damper ``c``) between two bodies or the ground: torque
        ``k (theta_b - theta_a - angle) + c (theta_b - theta_a)'``; ``angle`` defaults to the
        initial relative angle."""
        pa, pb = (x.centre if isinstance(x, Body) else x for x in (a, b))
        self._points(name, pa, pb)
        not_negative(name, k=k, c=c)
        angle0 = self._relative_angle(pa, pb) if angle is None else angle
        return self._add(pe.RotarySpringDamper(name, pa.body.node, pb.body.node, k=k, c=c,
                                               angle0=angle0))

    @recorded("forces")
    def torque(self, name: str, body: Body, torque, reaction: Body | None = None):
        """An applied torque (counter-clockwise positive) on ``body``, reacting on the ground
        (or on ``reaction``): a number, a sympy expression in ``vn.t`` and mechanism
        quantities (:meth:`quantity`), or a function of t."""
        self._check_name(name)
        base = self.ground if reaction is None else reaction
        return self._add(pe.TorqueDriver(name, base.node, body.node, signal(torque, name)))

    @recorded("forces")
    def force(self, name: str, point: Point, force):
        """An applied force ``(fx, fy)`` in ground coordinates on ``point``; each component a
        number, a sympy expression or a function of t."""
        self._check_name(name)
        self._check_point(name, point)
        return self._add(pe.ForceDriver(name, DATUM, point.node,
                                        self._vector(name, force, "force")))

    @recorded("drives")
    def drive(self, name: str, joint: str, motion):
        """Prescribe the coordinate of revolute or prismatic ``joint`` as ``motion(t)``."""
        self._check_name(name)
        element = self.network.element(joint)
        if isinstance(element, pe.Revolute):
            quantity, axis = "angle", (1, 0)
        elif isinstance(element, pe.Prismatic):
            quantity, axis = "distance", element.axis
        else:
            raise ModelError(f"drive {name!r}: only revolute and prismatic joints can be driven; "
                             f"{joint!r} is a {type(element).__name__}")
        edge = element.edges[0]
        return self._add(pe.MotionDriver(name, edge.tail, edge.head, signal(motion, name),
                                         quantity=quantity, axis=axis))

    def _friction_element(self, name, joint, quantity, viscous, coulomb, smoothing, **law):
        edge = joint.edges[0]
        axis = joint.axis if isinstance(joint, pe.Prismatic) else None
        return pe.JointFriction(name, edge.tail, edge.head, viscous, coulomb, smoothing,
                                axis=axis, joint=joint.name, **law)

    @recorded("forces")
    def gear(self, name: str, body_a: Body, body_b: Body, ratio, internal: bool = False):
        """Gear ``body_a`` to ``body_b``, both turning on axles fixed in the ground:
        ``theta_b - theta_b0 = -ratio (theta_a - theta_a0)`` (external teeth; ``+ratio``
        with ``internal=True``, a ring gear), ``ratio`` the pitch radius of ``a`` over that
        of ``b`` and the angles in the ground frame. Reports ``"<name>.torque_a"`` and
        ``"<name>.torque_b"``, the tooth loads' torques on the two gears.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("pair", gravity=(0, 0))
        >>> a, b = mech.body("a", 1, 0.1), mech.body("b", 1, 0.2, position=(1, 0))
        >>> _ = mech.revolute("A", mech.ground.point(0, 0), a.centre)
        >>> _ = mech.revolute("B", mech.ground.point(1, 0), b.centre)
        >>> mech.gear("mesh", a, b, ratio=2).ratio
        2
        """
        self._check_name(name)
        self._coupled_bodies(name, body_a, body_b)
        self._positive(f"gear {name!r}: ratio", ratio)
        return self._add(pe.GearMesh(name, body_a.node, body_b.node, ratio, body_a.angle,
                                     body_b.angle, internal=internal))

    @recorded("forces")
    def rack_and_pinion(self, name: str, pinion: Body, rack: Body, radius, axis=(1.0, 0.0)):
        """Mesh a ``pinion`` (turning) with a ``rack`` that translates along ``axis``
        (ground coordinates in the initial pose): seen from the body that carries the
        pinion's axle (the ground, or a carriage that may move and turn), the rack's mass
        centre advances along ``axis`` by ``radius`` times the pinion's turn
        (counter-clockwise positive; flip ``axis`` for a rack on the other side). Keep the
        rack from turning against that body, e.g. with a prismatic joint; axis and offset
        turn with the rack. Reports ``"<name>.torque_a"`` (on the pinion) and
        ``"<name>.force_b"`` (on the rack, along ``axis``).

        Raises
        ------
        ModelError
            When formulating, for a pinion whose revolute joint is mounted on the rack
            itself: meshing with the body that carries its axle, it could not turn.
        """
        self._check_name(name)
        self._coupled_bodies(name, pinion, rack)
        self._positive(f"rack and pinion {name!r}: radius", radius)
        offset = (rack.position[0] - pinion.position[0], rack.position[1] - pinion.position[1])
        return self._add(pe.RackAndPinion(name, pinion.node, rack.node, radius,
                                          axis, offset,
                                          pinion.angle, rack.angle))

    @recorded("joints")
    def rolling_wheel(self, name: str, wheel: Body | Point, radius, direction=(1.0, 0.0),
                      point: Point | None = None):
        """A wheel (a disc of ``radius``) centred at ``wheel`` (a point of the wheel's body,
        or the body: its mass centre) rolling without slip on a straight line through
        ``point`` (default the ground's origin) along ``direction`` (world axes at the
        initial pose; an incline: ``(cos a, -sin a)`` runs down at angle ``a``), on the
        side of the line where the centre starts. A ``point`` of another body puts the
        line on that body (a cart's deck), where it moves and turns with it and the
        contact force acts on both. The contact edge runs from ``point`` to the centre
        (:class:`~vecnet.elements.planar.RollingContact`): the centre stays at height
        ``radius`` above the line (a position constraint, ``"<name>.normal"``) and the
        contact point does not slide (a velocity constraint, ``"<name>.tangent"``).
        Reports the contact force on the wheel as ``"<name>.reaction"``, with
        ``"<name>.normal_force"`` (pressing the wheel against the line, positive while
        in contact), ``"<name>.traction"`` (the force along the line) and the contact point
        ``"<name>.contact"``.

        Raises
        ------
        ModelError
            For a radius that is not positive, a point of the wheel's own body, a wheel
            of another mechanism or a centre that starts on the line.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("roll", gravity=(0, -9.81))
        >>> disc = mech.body("disc", mass=2.0, inertia=0.25, position=(0, 0.5))
        >>> _ = mech.rolling_wheel("contact", disc, radius=0.5)
        >>> eom = mech.formulate()
        >>> eom.constraint_names, eom.velocity_constraint_names
        (('contact.normal',), ('contact.tangent',))
        """
        ground, centre = self._wheel_ends(name, wheel, point, radius)
        try:
            e = tuple(float(x) for x in direction)
        except (TypeError, ValueError):
            e = ()
        if len(e) != 2 or not all(math.isfinite(x) for x in e) or math.hypot(*e) == 0:
            raise ModelError(f"rolling wheel {name!r}: direction is a nonzero (x, y); got "
                             f"{direction!r}")
        (x0, y0), (x1, y1) = ground.position, centre.position
        side = (e[0] * (y1 - y0) - e[1] * (x1 - x0)) / math.hypot(*e)
        if abs(side) < 1e-12 * max(1.0, abs(x1), abs(y1)):
            raise ModelError(f"rolling wheel {name!r}: the centre starts on the line it rolls "
                             "on; place it on the side the wheel stands on")
        return self._add(pe.RollingContact(name, ground.node, centre.node, radius,
                                           tuple(self._body_axes(ground.body, e)),
                                           side=1 if side > 0 else -1))

    def quantity(self, name: str) -> sympy.Symbol:
        """A symbol standing for a body quantity, for state-dependent drivers: ``"<body>.x"``,
        ``".y"``, ``".angle"`` and their rates ``".vx"``, ``".vy"``, ``".omega"``."""
        body, _, what = name.rpartition(".")
        if body not in self.bodies or what not in ("x", "y", "angle", "vx", "vy", "omega"):
            raise UnknownNameError(f"no quantity {name!r}; use '<body>.x|y|angle|vx|vy|omega'")
        return sympy.Symbol(name, real=True)

