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

from .. import multibody
from ..elements import planar as pe
from ..errors import ModelError, UnknownNameError
from ..multibody import DATUM, MechanismBuilder, Point, not_negative, signal

__all__ = ["Mechanism", "Body", "Point", "DATUM"]


class Body(multibody.Body):
    """A rigid body of a planar :class:`Mechanism` (made by :meth:`Mechanism.body`)."""

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
    arm, spring_damper = pe.Arm, pe.TranslationalSpringDamper
    axial_joints = {pe.Revolute: ("revolute", ("angle",)),
                    pe.Prismatic: ("prismatic", ("distance",))}
    frame_quantities = ("angle", "omega")

    def __init__(self, name: str = "mechanism", gravity: tuple[float, float] = (0.0, -9.81)) -> None:
        super().__init__(name, gravity)
        self.ground = Body(self, DATUM, None, None, (0.0, 0.0), 0.0)

    def body(self, name: str, mass, inertia, position=(0.0, 0.0), angle: float = 0.0) -> Body:
        """Add a rigid body of ``mass`` and ``inertia`` (about its mass centre), with its
        mass centre at ``position`` and its frame turned by ``angle`` (rad)."""
        self._check_body_name(name, mass)
        body = Body(self, name, mass, inertia, position, angle)
        self._add(pe.MassElement(name, DATUM, name, m=mass, J=inertia))
        self.bodies[name] = body
        return body

    def _relative_angle(self, a: Point, b: Point) -> float:
        return b.body.angle - a.body.angle

    def revolute(self, name: str, a: Point, b: Point):
        """A pin joint between point ``a`` (tail) and point ``b`` (head)."""
        self._points(name, a, b)
        return self._add(pe.Revolute(name, a.node, b.node))

    def prismatic(self, name: str, a: Point, b: Point, axis=(1.0, 0.0)):
        """A slider: ``b`` moves along ``axis`` (in ``a``'s body coordinates) through ``a``."""
        self._points(name, a, b)
        return self._add(pe.Prismatic(name, a.node, b.node, axis, self._relative_angle(a, b)))

    def weld(self, name: str, a: Point, b: Point):
        """A rigid joint holding the two bodies in their initial relative pose."""
        self._points(name, a, b)
        return self._add(pe.Weld(name, a.node, b.node, self._relative_angle(a, b)))

    def slot(self, name: str, a: Point, b: Point, axis=(1.0, 0.0)):
        """A pin ``b`` sliding and turning in a slot along ``axis`` through ``a``."""
        self._points(name, a, b)
        return self._add(pe.PointOnLine(name, a.node, b.node, axis))

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

    def torque(self, name: str, body: Body, torque, reaction: Body | None = None):
        """An applied torque (counter-clockwise positive) on ``body``, reacting on the ground
        (or on ``reaction``): a number, a sympy expression in ``vn.t`` and mechanism
        quantities (:meth:`quantity`), or a function of t."""
        self._check_name(name)
        base = self.ground if reaction is None else reaction
        return self._add(pe.TorqueDriver(name, base.node, body.node, signal(torque, name)))

    def force(self, name: str, point: Point, force):
        """An applied force ``(fx, fy)`` in ground coordinates on ``point``; each component a
        number, a sympy expression or a function of t."""
        self._check_name(name)
        self._check_point(name, point)
        return self._add(pe.ForceDriver(name, DATUM, point.node,
                                        self._vector(name, force, "force")))

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

    def _revolute_or_prismatic(self, joint: str, what: str):
        """The element ``joint``; a :class:`ModelError` starting with ``what`` unless it is
        a revolute or prismatic joint."""
        element = self.network.element(joint)
        if not isinstance(element, (pe.Revolute, pe.Prismatic)):
            raise ModelError(f"{what} a revolute or prismatic joint; {joint!r} is a "
                             f"{type(element).__name__}")
        return element

    def joint_friction(self, name: str, joint: str, viscous=0, coulomb=0, smoothing=1e-3):
        """Friction in revolute or prismatic ``joint``: a torque (N m) or force (N) opposing
        the joint's relative speed ``v`` (rad/s or m/s),
        ``viscous * v + coulomb * tanh(v / smoothing)``, acting equally and oppositely on
        the joint's two bodies (reported as ``"<name>.force"`` and ``"<name>.torque"``, on
        the joint's head body).

        ``coulomb`` is a given constant magnitude (for a block of mass m pressed on a slope
        at angle a, ``mu m g cos a``; it does not follow the joint's reaction). The
        regularisation ``smoothing`` (default 1e-3 rad/s or m/s) is the speed below which
        the Coulomb part fades linearly to zero: a joint held by friction creeps at a
        speed of that order instead of stopping exactly, and a smaller value sticks
        better but makes the equations stiffer (smaller time steps near rest).

        Raises
        ------
        ModelError
            When ``joint`` is not a revolute or prismatic joint, a coefficient is negative
            or ``smoothing`` is not positive.
        UnknownNameError
            When the mechanism has no element ``joint``.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("slope", gravity=(0, -9.81))
        >>> block = mech.body("block", mass=1.0, inertia=0.1)
        >>> _ = mech.prismatic("slide", mech.ground.point(0, 0), block.centre, axis=(1, 0))
        >>> mech.joint_friction("rub", "slide", viscous=0.5, coulomb=2.0).coulomb
        2.00000000000000
        """
        self._check_name(name)
        element = self._revolute_or_prismatic(joint, f"joint friction {name!r}: friction acts in")
        not_negative(name, viscous=viscous, coulomb=coulomb, smoothing=smoothing)
        if sympy.sympify(smoothing).is_zero:
            raise ModelError(f"joint friction {name!r}: smoothing = {smoothing!r} must be a "
                             "positive speed (the Coulomb part fades to zero below it)")
        edge = element.edges[0]
        axis = element.axis if isinstance(element, pe.Prismatic) else None
        return self._add(pe.JointFriction(name, edge.tail, edge.head, viscous, coulomb,
                                          smoothing, axis=axis))

    def joint_limit(self, name: str, joint: str, lower=None, upper=None, restitution=0.5):
        """Unilateral stops keeping the coordinate of revolute or prismatic ``joint`` (its
        relative angle, rad, or its distance along the axis) within ``[lower, upper]``
        (``None``: no stop on that side). A joint striking a stop leaves it with its speed
        times ``-restitution`` (0: it stops dead, 1: a perfectly elastic bounce), the
        impulse acting in the joint. :meth:`~vecnet.formulation.planar.MultibodyEquations.simulate`
        stops the integration at each strike (an event, ``method="partition"`` only) and
        starts it again after the jump; a joint settling on its stop in ever shorter
        bounces is refused after many (it is not brought to rest).

        Raises
        ------
        ModelError
            When ``joint`` is not a revolute or prismatic joint, no limit is given,
            ``lower > upper`` or ``restitution`` is outside ``[0, 1]``.
        UnknownNameError
            When the mechanism has no element ``joint``.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("rail", gravity=(0, 0))
        >>> cart = mech.body("cart", mass=1.0, inertia=0.1)
        >>> _ = mech.prismatic("rail", mech.ground.point(0, 0), cart.centre)
        >>> mech.joint_limit("end", "rail", upper=0.5, restitution=0.8).upper
        0.5
        """
        self._check_name(name)
        element = self._revolute_or_prismatic(joint, f"joint limit {name!r}: a stop limits")
        if lower is None and upper is None:
            raise ModelError(f"joint limit {name!r}: give lower=, upper= or both")
        if lower is not None and upper is not None and float(lower) > float(upper):
            raise ModelError(f"joint limit {name!r}: lower = {lower:g} is above "
                             f"upper = {upper:g}")
        if not 0 <= float(restitution) <= 1:
            raise ModelError(f"joint limit {name!r}: restitution = {restitution!r} must lie "
                             "in [0, 1] (0: stops dead, 1: elastic)")
        edge = element.edges[0]
        return self._add(pe.JointStop(name, edge.tail, edge.head, joint, lower, upper,
                                      restitution))

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
        if not sympy.sympify(ratio).is_positive:
            raise ModelError(f"gear {name!r}: ratio must be positive, got {ratio!r}")
        return self._add(pe.GearMesh(name, body_a.node, body_b.node, ratio, body_a.angle,
                                     body_b.angle, internal=internal))

    def rack_and_pinion(self, name: str, pinion: Body, rack: Body, radius, axis=(1.0, 0.0)):
        """Mesh a ``pinion`` (turning) with a ``rack`` that translates along ``axis``
        (ground coordinates; keep the rack from turning, e.g. with a prismatic joint): the
        rack's mass centre advances along ``axis`` by ``radius`` times the pinion's turn
        (counter-clockwise positive; flip ``axis`` for a rack on the other side).
        Reports ``"<name>.torque_a"`` (on the pinion) and ``"<name>.force_b"`` (on the
        rack, along ``axis``)."""
        self._check_name(name)
        self._coupled_bodies(name, pinion, rack)
        if not sympy.sympify(radius).is_positive:
            raise ModelError(f"rack and pinion {name!r}: radius must be positive, got {radius!r}")
        offset = (rack.position[0] - pinion.position[0], rack.position[1] - pinion.position[1])
        return self._add(pe.RackAndPinion(name, pinion.node, rack.node, radius,
                                          axis, offset,
                                          pinion.angle))

    def _coupled_bodies(self, name: str, a: Body, b: Body) -> None:
        for body in (a, b):
            if not isinstance(body, Body) or (body is not self.ground
                                              and self.bodies.get(body.name) is not body):
                raise ModelError(f"{name!r}: {body!r} is not a body of mechanism {self.name!r}")
        if a is b:
            raise ModelError(f"{name!r}: couple two different bodies")

    def quantity(self, name: str) -> sympy.Symbol:
        """A symbol standing for a body quantity, for state-dependent drivers: ``"<body>.x"``,
        ``".y"``, ``".angle"`` and their rates ``".vx"``, ``".vy"``, ``".omega"``."""
        body, _, what = name.rpartition(".")
        if body not in self.bodies or what not in ("x", "y", "angle", "vx", "vy", "omega"):
            raise UnknownNameError(f"no quantity {name!r}; use '<body>.x|y|angle|vx|vy|omega'")
        return sympy.Symbol(name, real=True)

    def initial_pose(self, node: str) -> tuple[float, float, float]:
        """``(x, y, angle)`` of a node in the initial (unassembled) pose."""
        if node == DATUM:
            return (0.0, 0.0, 0.0)
        for body in [self.ground, *self.bodies.values()]:
            for point in body._points.values():
                if point.node == node:
                    return (*point.position, float(body.angle))
            if body.node == node:
                return (*body.position, float(body.angle))
        raise UnknownNameError(f"no node {node!r} in mechanism {self.name!r}")

    # -- formulation -------------------------------------------------------------
    def formulate(self, coordinates: str = "joint", tree: list[str] | None = None,
                  joint_loads: dict | None = None, rotors: dict | None = None):
        """The equations of motion: see :class:`vecnet.formulation.planar.MultibodyEquations`.
        ``joint_loads`` (target -> symbol) and ``rotors`` (joint -> inertia) are what a
        lumped network coupled by ports adds (:class:`vecnet.System` passes them)."""
        from ..formulation.planar import MultibodyEquations

        return MultibodyEquations(self, coordinates=coordinates, tree=tree,
                                  joint_loads=joint_loads, rotors=rotors)
