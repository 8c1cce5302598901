"""Planar vector-network elements.

Every node of a planar vector network is a frame in the plane: a point and an
orientation. An edge from ``tail`` to ``head`` carries the across variables
``(dr, dtheta)`` — the vector from the tail point to the head point and the
rotation of the head frame relative to the tail frame — and the through
variables ``(F, T)``: the force the head node applies to the element and the
torque about the head point (passive sign convention, as in the lumped
domains: a driver applying ``f`` to its head point has ``F = -f``).

An element says three things:

* ``coordinates``: the names of the coordinates it brings when it is a tree
  branch, and ``branch_motion`` its ``(dr, dtheta)`` in those coordinates;
* ``chord_constraints``: the equations its across variables must satisfy when
  it is a chord (a cut joint closes a loop);
* ``through``: its force and torque law (bodies, springs, dampers, drivers).

The node frames of points fixed in a body share the body's orientation, so an
arm has ``dtheta = 0`` and ``dr = R(theta_tail) rho``.
"""

from __future__ import annotations

import sympy

from ..errors import ModelError
from .base import Kind, MechanismElement, number_problem
from .beam import BeamLaw
from .joint_laws import ContactLaw, FrictionLaw, MeshLaw, SpringDamperLaw, StopLaw

__all__ = ["rotation", "PlanarElement", "MassElement", "Arm", "Revolute", "Prismatic", "Weld",
           "PointOnLine", "TranslationalSpringDamper", "BeamElement", "RotarySpringDamper", "ForceDriver",
           "TorqueDriver", "MotionDriver", "Coupling", "GearMesh", "RackAndPinion",
           "JointFriction", "JointStop", "RollingContact", "Contact"]


def rotation(angle: sympy.Expr) -> sympy.Matrix:
    """The planar rotation matrix of ``angle``."""
    c, s = sympy.cos(angle), sympy.sin(angle)
    return sympy.Matrix([[c, -s], [s, c]])


def _along(axis: sympy.Matrix, dr, tail_angle: float) -> float:
    """Distance along a body-fixed axis turned by ``tail_angle``."""
    import math

    ex, ey = float(axis[0]), float(axis[1])
    c, s = math.cos(tail_angle), math.sin(tail_angle)
    return (c * ex - s * ey) * dr[0] + (s * ex + c * ey) * dr[1]


def _vector(v) -> sympy.Matrix:
    return sympy.Matrix([sympy.sympify(v[0]), sympy.sympify(v[1])])


class PlanarElement(MechanismElement):
    """Base of planar elements: no coordinates, no constraints, no force unless told."""

    domain = "planar"

    def motion(self):
        """The relative motion as a tree branch, affine in the element's coordinates ``q``:
        ``(rho0, rho_q, theta0, theta_q)`` with ``dr = R(frame angle) (rho0 + rho_q q)`` and
        ``dtheta = theta0 + theta_q . q`` (``rho_q`` is 2 x k, ``theta_q`` has k entries)."""
        raise NotImplementedError(f"{type(self).__name__} cannot be a tree branch")

    def branch_motion(self, q: tuple[sympy.Expr, ...], tail_angle: sympy.Expr):
        """``(dr, dtheta)`` of the edge as a tree branch, in its coordinates ``q``."""
        rho0, rho_q, theta0, theta_q = self.motion()
        qv = sympy.Matrix(list(q)) if q else sympy.zeros(0, 1)
        rho = sympy.Matrix(rho0) + (sympy.Matrix(rho_q) * qv if q else sympy.zeros(2, 1))
        turn = rotation(tail_angle) if self.frame == "tail" else sympy.eye(2)
        dtheta = sympy.sympify(theta0) + sum((a * b for a, b in zip(theta_q, q)), sympy.S.Zero)
        return turn * rho, dtheta

    def coordinates_from(self, dr, dtheta: float, tail_angle: float) -> tuple[float, ...]:
        """The branch coordinates that give the relative pose ``(dr, dtheta)`` (numbers)."""
        return ()

    def chord_constraints(self, dr: sympy.Matrix, dtheta: sympy.Expr, tail_angle: sympy.Expr,
                          t: sympy.Symbol) -> list[tuple[str, sympy.Expr]]:
        """Named constraint equations ``(name, expression = 0)`` as a chord."""
        return []

    def velocity_constraints(self, dr: sympy.Matrix, dtheta: sympy.Expr, tail_angle: sympy.Expr,
                             dr_rate: sympy.Matrix, dtheta_rate: sympy.Expr,
                             tail_rate: sympy.Expr, t: sympy.Symbol) -> list[tuple[str, sympy.Expr]]:
        """Named velocity constraints ``(name, expression = 0)`` as a chord, linear in the
        rates ``dr_rate``, ``dtheta_rate`` (the edge's) and ``tail_rate`` (the tail frame's
        turning rate) and not the derivative of a position constraint: a wheel's no-slip
        condition. Given at the speed level only (nonholonomic)."""
        return []

    def through(self, dr, dtheta, dr_rate, dtheta_rate, t):
        """``(F, T)``: the through variables of a force element (``None`` for joints)."""
        return None

    def through_in_frame(self, dr, dtheta, dr_rate, dtheta_rate, tail_angle, t):
        """``(F, T)`` of a force element whose law is written in its tail frame (turned by
        ``tail_angle``), such as friction along a slider's axis; by default :meth:`through`."""
        return self.through(dr, dtheta, dr_rate, dtheta_rate, t)


class MassElement(PlanarElement):
    """A rigid body: the edge from the datum to the mass centre, ``F = m (r'' - g)``,
    ``T = J theta''`` (``J`` about the mass centre)."""

    kind = Kind.ACROSS_STORE
    coordinates = ("x", "y", "angle")
    tree_role = "mass"
    frame = "ground"
    study_attributes = {"mass": "m", "inertia": "J"}

    def __init__(self, name, tail, head, m, J) -> None:
        super().__init__(name, tail, head)
        self.m, self.J = sympy.sympify(m), sympy.sympify(J)
        # zero is the massless link of inverse dynamics; a singular mass matrix is refused
        # where it matters, when the motion is integrated
        for what, value in (("mass", self.m), ("inertia", self.J)):
            if value.is_number and value.is_real:  # symbols are checked when they get values
                number = float(value)
                problem = number_problem(number)
                if problem or number < 0:
                    raise ModelError(f"body {name!r}: {what} {number:g} "
                                     + (problem or "must be zero or more"))

    def motion(self):
        return (0, 0), ((1, 0, 0), (0, 1, 0)), 0, (0, 0, 1)

    def coordinates_from(self, dr, dtheta, tail_angle):
        return (dr[0], dr[1], dtheta)


class Arm(PlanarElement):
    """A rigid arm: the body-fixed vector ``rho`` (body coordinates) from the tail frame
    to the head point; ``dr = R(theta_tail) rho``, ``dtheta = 0``."""

    kind = Kind.CONSTRAINT
    tree_role = "arm"
    # vecnet names the arm of point p1 of body crank 'crank-p1': '-' cannot clash with a user's name
    name_separators = "-"

    def __init__(self, name, tail, head, rho) -> None:
        super().__init__(name, tail, head)
        self.rho = _vector(rho)

    def motion(self):
        return tuple(self.rho), ((), ()), 0, ()

    def chord_constraints(self, dr, dtheta, tail_angle, t):
        gap = dr - rotation(tail_angle) * self.rho
        return [(f"{self.name}.x", gap[0]), (f"{self.name}.y", gap[1]), (f"{self.name}.angle", dtheta)]


class Revolute(PlanarElement):
    """A pin: ``dr = 0``; its coordinate is the relative angle of the two bodies."""

    kind = Kind.CONSTRAINT
    is_joint = True
    coordinates = ("angle",)

    def motion(self):
        return (0, 0), ((0,), (0,)), 0, (1,)

    def coordinates_from(self, dr, dtheta, tail_angle):
        return (dtheta,)

    def chord_constraints(self, dr, dtheta, tail_angle, t):
        return [(f"{self.name}.x", dr[0]), (f"{self.name}.y", dr[1])]


class Prismatic(PlanarElement):
    """A slider along ``axis`` (tail body coordinates): ``dr = s R(theta_tail) axis``,
    ``dtheta = angle0`` (the bodies keep their initial relative angle)."""

    kind = Kind.CONSTRAINT
    is_joint = True
    coordinates = ("distance",)

    def __init__(self, name, tail, head, axis, angle0=0) -> None:
        super().__init__(name, tail, head)
        axis = _vector(axis)
        self.axis = axis / sympy.sqrt(axis.dot(axis))
        self.angle0 = sympy.sympify(angle0)

    def motion(self):
        return (0, 0), ((self.axis[0],), (self.axis[1],)), self.angle0, (0,)

    def coordinates_from(self, dr, dtheta, tail_angle):
        return (_along(self.axis, dr, tail_angle),)

    def chord_constraints(self, dr, dtheta, tail_angle, t):
        e = rotation(tail_angle) * self.axis
        return [(f"{self.name}.angle", dtheta - self.angle0),
                (f"{self.name}.normal", e[0] * dr[1] - e[1] * dr[0])]


class Weld(PlanarElement):
    """A rigid joint: ``dr = 0``, ``dtheta = angle0``."""

    kind = Kind.CONSTRAINT
    is_joint = True

    def __init__(self, name, tail, head, angle0=0) -> None:
        super().__init__(name, tail, head)
        self.angle0 = sympy.sympify(angle0)

    def motion(self):
        return (0, 0), ((), ()), self.angle0, ()

    def chord_constraints(self, dr, dtheta, tail_angle, t):
        return [(f"{self.name}.x", dr[0]), (f"{self.name}.y", dr[1]),
                (f"{self.name}.angle", dtheta - self.angle0)]


class PointOnLine(PlanarElement):
    """A pin in a slot along ``axis`` (tail body coordinates): the head point stays on the
    line, free to slide and turn; coordinates the distance along the slot and the angle."""

    kind = Kind.CONSTRAINT
    is_joint = True
    coordinates = ("distance", "angle")

    def __init__(self, name, tail, head, axis) -> None:
        super().__init__(name, tail, head)
        axis = _vector(axis)
        self.axis = axis / sympy.sqrt(axis.dot(axis))

    def motion(self):
        return (0, 0), ((self.axis[0], 0), (self.axis[1], 0)), 0, (0, 1)

    def coordinates_from(self, dr, dtheta, tail_angle):
        return (_along(self.axis, dr, tail_angle), dtheta)

    def chord_constraints(self, dr, dtheta, tail_angle, t):
        e = rotation(tail_angle) * self.axis
        return [(f"{self.name}.normal", e[0] * dr[1] - e[1] * dr[0])]


class _Free(PlanarElement):
    """Force elements put no constraint; as branches they bring a free relative pose."""

    coordinates = ("dx", "dy", "angle")
    frame = "ground"

    def motion(self):
        return (0, 0), ((1, 0, 0), (0, 1, 0)), 0, (0, 0, 1)

    def coordinates_from(self, dr, dtheta, tail_angle):
        return (dr[0], dr[1], dtheta)


class TranslationalSpringDamper(SpringDamperLaw, _Free):
    """A spring and damper between two points, acting along the line joining them:
    tension ``f = force(length) + c * length'``; ``force`` defaults to ``k (length - L0)``.
    ``F = f * dr / length``, ``T = 0`` (:class:`~vecnet.elements.joint_laws.SpringDamperLaw`,
    the law of both dimensions)."""

    def __init__(self, name, tail, head, force, c=0, length=0, k=None) -> None:
        self.kind = Kind.THROUGH_STORE if force is not None or k is not None \
            else Kind.DISSIPATOR
        super().__init__(name, tail, head)
        self._spring(force, c, length, k)

    def through(self, dr, dtheta, dr_rate, dtheta_rate, t):
        return self.pull(dr, dr_rate), sympy.Integer(0)


class BeamElement(BeamLaw, _Free):
    """A beam element between two node frames in the plane (:class:`~vecnet.elements.
    beam.BeamLaw`, the law of both dimensions: bending about z, elongation)."""

    kind = Kind.THROUGH_STORE


class RotarySpringDamper(_Free):
    """A rotational spring and damper between two frames: ``T = k (dtheta - angle0) +
    c dtheta'``, ``F = 0``."""

    study_attributes = {"k": "k", "c": "c", "angle": "angle0"}

    def __init__(self, name, tail, head, k=0, c=0, angle0=0) -> None:
        self.kind = Kind.THROUGH_STORE if k else Kind.DISSIPATOR
        super().__init__(name, tail, head)
        self.k, self.c, self.angle0 = (sympy.sympify(v) for v in (k, c, angle0))

    def through(self, dr, dtheta, dr_rate, dtheta_rate, t):
        return sympy.zeros(2, 1), self.k * (dtheta - self.angle0) + self.c * dtheta_rate


class JointFriction(FrictionLaw, _Free):
    """Friction in a revolute or prismatic joint, an edge parallel to the joint (same tail
    and head): a force (prismatic, along ``axis`` in tail body coordinates) or a torque
    (revolute) opposing the joint's relative speed ``v``,

        f = viscous * v + coulomb * tanh(v / smoothing)

    (:class:`~vecnet.elements.joint_laws.FrictionLaw`, the law of both dimensions), so its
    power ``f v`` is never negative: it dissipates, doing equal and opposite work on the
    joint's two bodies. ``smoothing`` is the speed (in the joint's unit, rad/s or m/s)
    below which the Coulomb part fades linearly to zero, so a joint "sticks" creeping at a
    speed of the order of ``smoothing``.

    >>> JointFriction("f", "a", "b", viscous=2, coulomb=0, smoothing=1e-3).through_in_frame(
    ...     None, 0, None, sympy.Symbol("w"), 0, None)
    (Matrix([
    [0],
    [0]]), 2*w)
    """

    kind = Kind.DISSIPATOR

    def __init__(self, name, tail, head, viscous, coulomb, smoothing, axis=None,
                 joint: str | None = None, **law) -> None:
        super().__init__(name, tail, head)
        self._friction(viscous, coulomb, smoothing)
        self._set_valued(**law)
        #: the joint it acts in (the set-valued law reads its reaction)
        self.joint = joint
        self.quantity = "angle" if axis is None else "distance"
        if axis is not None:
            axis = _vector(axis)
            axis = axis / sympy.sqrt(axis.dot(axis))
        #: the slider's unit axis (tail body coordinates); ``None`` for a revolute joint
        self.sliding_axis = axis

    def through_in_frame(self, dr, dtheta, dr_rate, dtheta_rate, tail_angle, t):
        if self.sliding_axis is None:
            return sympy.zeros(2, 1), self.magnitude(dtheta_rate)
        # on the slider, dr runs along e, so e' . dr = 0 and the sliding speed is e . dr'
        e = rotation(tail_angle) * self.sliding_axis
        return self.magnitude(e.dot(dr_rate)) * e, sympy.Integer(0)


class JointStop(StopLaw, PlanarElement):
    """Unilateral stops on the coordinate (``quantity``) of revolute or prismatic
    ``joint``, an edge parallel to it: the relative angle or distance stays within
    ``[lower, upper]`` (either may be ``None``, no stop), and striking a stop reverses the
    joint's speed times ``-restitution`` (:class:`~vecnet.elements.joint_laws.StopLaw`)."""

    kind = Kind.CONSTRAINT

    def __init__(self, name, tail, head, joint: str, lower, upper, restitution,
                 quantity: str = "angle") -> None:
        super().__init__(name, tail, head)
        self._limits(joint, quantity, lower, upper, restitution)


class Contact(ContactLaw, PlanarElement):
    """A unilateral contact of a disc (or a point) on a body against a line of the ground,
    (or another body's disc), an edge from a point of that line (the other disc's centre)
    to the disc's centre (:class:`~vecnet.elements.joint_laws.ContactLaw`)."""

    kind = Kind.CONSTRAINT

    def __init__(self, name, tail, head, body: str, local, radius, origin, normal,
                 restitution, mu_kinetic=None, mu_static=None,
                 **other) -> None:
        super().__init__(name, tail, head)
        if other.get("other_normal") is not None:
            other["other_normal"] = (*other["other_normal"][:2], 0.0)
        if "other_local" in other:
            other["other_local"] = (*other["other_local"][:2], 0.0)
        self._contact(body, (*local, 0.0), radius, (*origin, 0.0), (*normal, 0.0),
                      restitution, mu_kinetic, mu_static, **other)


class ForceDriver(_Free):
    """An applied force ``f`` on the head point (edge from the datum): ``F = -f``."""

    kind = Kind.THROUGH_SOURCE

    def __init__(self, name, tail, head, force) -> None:
        super().__init__(name, tail, head)
        self.force = _vector(force)

    def through(self, dr, dtheta, dr_rate, dtheta_rate, t):
        return -self.force, sympy.Integer(0)


class TorqueDriver(_Free):
    """An applied torque ``tau`` (counter-clockwise) on the head frame: ``T = -tau``."""

    kind = Kind.THROUGH_SOURCE

    def __init__(self, name, tail, head, torque) -> None:
        super().__init__(name, tail, head)
        self.torque = sympy.sympify(torque)

    def through(self, dr, dtheta, dr_rate, dtheta_rate, t):
        return sympy.zeros(2, 1), -self.torque


class MotionDriver(PlanarElement):
    """Prescribed relative motion, parallel to a joint: the relative angle (``"angle"``)
    or the distance along ``axis`` (``"distance"``) of the head frame follows ``motion(t)``."""

    kind = Kind.ACROSS_SOURCE
    cotree_only = True

    def __init__(self, name, tail, head, motion, quantity="angle", axis=(1, 0)) -> None:
        super().__init__(name, tail, head)
        self.motion = sympy.sympify(motion)
        self.quantity = quantity
        axis = _vector(axis)
        self.axis = axis / sympy.sqrt(axis.dot(axis))

    def chord_constraints(self, dr, dtheta, tail_angle, t):
        if self.quantity == "angle":
            return [(f"{self.name}.angle", dtheta - self.motion)]
        e = rotation(tail_angle) * self.axis
        return [(f"{self.name}.distance", e.dot(dr) - self.motion)]


class Coupling(MeshLaw, PlanarElement):
    """Base of couplings between the motions of two bodies (gears, rack and pinion): always
    a chord, never a tree branch. The constraint (:class:`~vecnet.elements.joint_laws.
    MeshLaw`) of a gear is written in the gears' ground angles, so its reaction is not a
    pair of equal and opposite loads on the two bodies; the rest goes to the ground (the
    housing that carries the axles). Tail and head are the two bodies' frames, and the
    multiplier gives the effort on each (:meth:`efforts`)."""

    kind = Kind.ACROSS_SOURCE


class GearMesh(Coupling):
    """Two gears meshing on axles fixed in the ground: ``theta_b - theta_b0 = -ratio
    (theta_a - theta_a0)`` for external teeth (``ratio`` = pitch radius of ``a`` over that
    of ``b``), ``+ratio`` for an internal (ring) gear; ``theta`` are the bodies' angles in
    the ground frame, ``theta_0`` their initial values.

    >>> GearMesh("g", "a", "b", ratio=2, angle_a=0, angle_b=0).chord_constraints(
    ...     None, sympy.Symbol("d"), sympy.Symbol("a"), None)
    [('g.mesh', 3*a + d)]
    """

    def __init__(self, name, tail, head, ratio, angle_a, angle_b, internal: bool = False) -> None:
        super().__init__(name, tail, head)
        self.ratio = sympy.sympify(ratio)
        self.sign = -1 if internal else 1
        self._mesh(self.gear_coefficient(ratio, internal))
        self.angle_a, self.angle_b = sympy.sympify(angle_a), sympy.sympify(angle_b)

    def chord_constraints(self, dr, dtheta, tail_angle, t):
        # theta_a is the tail angle, theta_b = tail angle + dtheta
        return [(f"{self.name}.mesh", self.mesh(tail_angle - self.angle_a,
                                                tail_angle + dtheta - self.angle_b))]


class RackAndPinion(Coupling):
    """A pinion (tail, turning) and a rack (head, translating along ``axis``): the rack's
    mass centre advances along its axis relative to the pinion's centre (the axle, a point
    of the body that carries it) by ``radius`` times the pinion's turn relative to the
    rack, ``e . (R(beta)^T dr - dr0) = radius ((theta_p - theta_k) - (theta_p0 - theta_k0))``
    with ``dr`` from the pinion's centre to the rack's, ``beta = theta_k - theta_k0`` the
    rack's turn since the initial pose and ``axis``, ``dr0`` (``offset``) in ground
    coordinates at the initial pose; flip ``axis`` for the other side of the pinion. The
    rack must not turn against the body carrying the pinion's axle (a prismatic joint
    between them, or both fixed in the ground); then the relation is the rolling of the
    pitch circle on the pitch line seen from that body, whether or not it moves, and with
    a rack that keeps its angle it reads ``e . (dr - dr0) = radius (theta_p - theta_p0)``.
    The efforts are the torque on the pinion and the force on the rack along ``axis``.

    >>> a = sympy.Symbol("a")      # the pinion turned by a, the rack kept its angle
    >>> RackAndPinion("r", "p", "k", radius=2, axis=(1, 0), offset=(0, -1), angle=0
    ...               ).chord_constraints(sympy.Matrix([1, -1]), -a, a, None)
    [('r.rolling', 1 - 2*a)]
    """

    efforts_named = ("torque_a", "force_b")

    def __init__(self, name, tail, head, radius, axis, offset, angle, rack_angle=0) -> None:
        super().__init__(name, tail, head)
        axis = _vector(axis)
        self.axis = axis / sympy.sqrt(axis.dot(axis))
        self.radius = sympy.sympify(radius)
        self._mesh(-self.radius)
        self.offset, self.angle = _vector(offset), sympy.sympify(angle)
        self.rack_angle = sympy.sympify(rack_angle)

    def chord_constraints(self, dr, dtheta, tail_angle, t):
        # the rack's angle is the tail's (the pinion's) plus dtheta; seen from the rack,
        # the pinion turns by -dtheta and the rack's centre sits at R(beta)^T dr
        turn = -(dtheta - (self.rack_angle - self.angle))
        advance = self.axis.dot(rotation(tail_angle + dtheta - self.rack_angle).T * dr
                                - self.offset)
        return [(f"{self.name}.rolling", self.mesh(turn, advance))]


class RollingContact(PlanarElement):
    """The contact of a wheel (a disc of ``radius``) rolling without slip on a straight line:
    the edge runs from a point of the line (the tail, fixed in the tail's body) to the
    wheel's centre (the head, a point of the wheel's body), the line running along
    ``direction`` (tail body coordinates) with the wheel on the side ``side`` of it (+1:
    to the left of ``direction``, -1: to the right). With ``e`` the direction and ``n``
    the unit normal towards the wheel (both turned with the tail frame), the contact
    point is ``centre - radius n`` and

    * ``normal`` (holonomic): ``n . dr - radius = 0``, the centre at height ``radius``
      above the line;
    * ``tangent`` (a velocity constraint): the wheel's material point at the contact has
      no velocity along the line relative to the line's body,
      ``e . (dr' - w_tail k x dr) + side * radius * dtheta' = 0``.

    In the plane the second is integrable, but it is given at the speed level as in space,
    where it is not. Always a chord (it brings no coordinates); its through variable is
    the contact force, reported as the reaction on the wheel (the multipliers of its two
    rows are the normal force and the traction along the line).

    >>> w = sympy.Symbol("w")
    >>> RollingContact("c", "g", "h", radius=2, direction=(1, 0)).velocity_constraints(
    ...     sympy.Matrix([0, 2]), 0, 0, sympy.Matrix([sympy.Symbol("v"), 0]), w, 0, None)
    [('c.tangent', v + 2*w)]
    """

    kind = Kind.CONSTRAINT
    is_joint = True
    cotree_only = True

    def __init__(self, name, tail, head, radius, direction, side: int = 1) -> None:
        super().__init__(name, tail, head)
        e = _vector(direction)
        self.radius = sympy.sympify(radius)
        self.direction = e / sympy.sqrt(e.dot(e))
        self.side = 1 if side > 0 else -1
        #: the unit normal pointing from the line to the wheel's centre (tail coordinates)
        self.normal = self.side * sympy.Matrix([-self.direction[1], self.direction[0]])

    def cut_equations(self) -> int:
        return 2

    def chord_constraints(self, dr, dtheta, tail_angle, t):
        n = rotation(tail_angle) * self.normal
        return [(f"{self.name}.normal", n.dot(dr) - self.radius)]

    def velocity_constraints(self, dr, dtheta, tail_angle, dr_rate, dtheta_rate, tail_rate, t):
        e = rotation(tail_angle) * self.direction
        # the centre's velocity seen from the line's body, and the wheel's turn relative to it
        seen = dr_rate - tail_rate * sympy.Matrix([-dr[1], dr[0]])
        return [(f"{self.name}.tangent", e.dot(seen) + self.side * self.radius * dtheta_rate)]
