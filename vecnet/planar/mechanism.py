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
import numbers
from typing import Any

import sympy
from sympy.utilities.lambdify import implemented_function

from ..elements import planar as pe
from ..elements.base import t
from ..elements.base import number_problem
from ..errors import ModelError, UnknownNameError
from ..names import check_name
from ..network import Network

__all__ = ["Mechanism", "Body", "Point", "DATUM"]

#: the node of the ground frame
DATUM = "ground"


class Point:
    """A point fixed in a body (or in the ground), given in body coordinates relative to
    the mass centre. Points are made by :meth:`Body.point`."""

    def __init__(self, body: Body, local: tuple[float, float], node: str) -> None:
        self.body, self.local, self.node = body, local, node

    @property
    def position(self) -> tuple[float, float]:
        """Initial position in ground coordinates."""
        return self.body.place(self.local)

    def __repr__(self) -> str:
        return f"<Point {self.node} of {self.body.name} at {self.local}>"


class Body:
    """A rigid body of a :class:`Mechanism` (made by :meth:`Mechanism.body`)."""

    def __init__(self, mechanism: Mechanism, name: str, mass, inertia, position, angle) -> None:
        self.mechanism, self.name = mechanism, name
        self.mass, self.inertia = mass, inertia
        self.position = (float(position[0]), float(position[1]))
        self.angle = float(angle)
        self._points: dict[tuple[float, float], Point] = {}

    @property
    def node(self) -> str:
        """The node of the body frame (its mass centre; the datum for the ground)."""
        return DATUM if self.mass is None else self.name

    def place(self, local) -> tuple[float, float]:
        c, s = math.cos(self.angle), math.sin(self.angle)
        return (self.position[0] + c * local[0] - s * local[1],
                self.position[1] + s * local[0] + c * local[1])

    def point(self, x: float, y: float, name: str | None = None) -> Point:
        """The point at ``(x, y)`` in body coordinates (relative to the mass centre; for the
        ground, absolute). The same coordinates give the same point."""
        key = (float(x), float(y))
        if key in self._points:
            return self._points[key]
        if key == (0.0, 0.0):
            point = Point(self, key, self.node)
        else:
            if name is not None:
                check_name(name, "point name")
            label = name or f"p{len(self._points) + 1}"
            node = f"{self.name}.{label}"
            self.mechanism._add(pe.Arm(f"{self.name}-{label}", self.node, node, key))
            point = Point(self, key, node)
        self._points[key] = point
        return point

    @property
    def centre(self) -> Point:
        """The mass centre as a point."""
        return self.point(0.0, 0.0)

    def __repr__(self) -> str:
        return f"<Body {self.name} at {self.position}, angle {self.angle}>"


def _not_negative(name: str, **values: Any) -> None:
    """Stiffness and damping given as numbers must be zero (none) or more."""
    for key, value in values.items():
        try:
            number = float(value) if value is not None else None
        except (TypeError, ValueError):
            continue  # a symbol or an expression: checked when it gets a value
        if number is None:
            continue
        problem = number_problem(number)
        if problem or number < 0:
            raise ModelError(f"{name!r}: {key} = {number:g} "
                             + (problem or "is not physical (it must be zero or more)"))


def _signal(value: Any, what: str) -> sympy.Expr:
    """A number, a sympy expression (in t and mechanism quantities) or a function of t."""
    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return sympy.Float(value) if isinstance(value, float) else sympy.Integer(value)
    if callable(value):
        return implemented_function(sympy.Function(f"{what}_fn"), value)(t)
    raise ModelError(f"{what}: expected a number, a sympy expression or a function of t; "
                     f"got {value!r}")


class Mechanism:
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

    def __init__(self, name: str = "mechanism", gravity: tuple[float, float] = (0.0, -9.81)) -> None:
        self.name = name
        self.gravity = (sympy.sympify(gravity[0]), sympy.sympify(gravity[1]))
        self.network = Network(name)
        self.bodies: dict[str, Body] = {}
        self.ground = Body(self, DATUM, None, None, (0.0, 0.0), 0.0)
        self.network.graph.add_node(DATUM)

    # -- building --------------------------------------------------------------
    def _add(self, element):
        self.network.add(element)
        return element

    def _check_name(self, name: str, what: str = "name") -> None:
        check_name(name, what)  # the policy of vecnet.names, before any lookup
        if name in self.bodies or name in {e.name for e in self.network.elements}:
            raise ModelError(f"mechanism {self.name!r} already has something named {name!r}")

    def body(self, name: str, mass, inertia, position=(0.0, 0.0), angle: float = 0.0) -> Body:
        """Add a rigid body of ``mass`` and ``inertia`` (about its mass centre), with its
        mass centre at ``position`` and its frame turned by ``angle`` (rad)."""
        self._check_name(name, "body name")
        if name == DATUM:
            raise ModelError(f"body name {name!r} is reserved for the ground frame")
        body = Body(self, name, mass, inertia, position, angle)
        self._add(pe.MassElement(name, DATUM, name, m=mass, J=inertia))
        self.bodies[name] = body
        return body

    def _points(self, name: str, a: Point, b: Point) -> None:
        self._check_name(name)
        for p in (a, b):
            if not isinstance(p, Point) or p.body.mechanism is not self:
                raise ModelError(f"{name!r}: {p!r} is not a point of mechanism {self.name!r}")
        if a.body is b.body:
            raise ModelError(f"{name!r} joins two points of the same body {a.body.name!r}; "
                             "a joint or force element must join two different bodies")

    @staticmethod
    def _line_of_action(name: str, a: Point, b: Point) -> float:
        """The initial distance from ``a`` to ``b``; refused when the points are at the same
        place, where the line a spring or damper acts along has no direction."""
        (xa, ya), (xb, yb) = a.position, b.position
        distance = math.hypot(xb - xa, yb - ya)
        if not distance > 1e-9 * max(1.0, abs(xa), abs(ya), abs(xb), abs(yb)):
            raise ModelError(f"{name!r} joins points {a.node!r} and {b.node!r}, which start at "
                             f"the same place ({xa:g}, {ya:g}): a spring or damper acts along the "
                             "line between its points, which has no direction there; attach "
                             "it to points apart (or use a rotary_spring)")
        return distance

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

    def spring(self, name: str, a: Point, b: Point, k=None, length=None, force=None, c=0):
        """A translational spring between two points: linear with stiffness ``k`` and free
        ``length`` (default: the initial distance), or nonlinear with ``force(length)``
        (tension, a function building a sympy expression). ``c`` adds a parallel damper."""
        self._points(name, a, b)
        _not_negative(name, k=k, c=c)
        if (k is None) == (force is None):
            raise ModelError(f"spring {name!r}: give either k (and length) or force=f(length)")
        distance = self._line_of_action(name, a, b)
        if force is None:
            if length is None:
                length = distance
            k_, length_ = sympy.sympify(k), sympy.sympify(length)
            force = lambda stretch: k_ * (stretch - length_)  # noqa: E731
        return self._add(pe.TranslationalSpringDamper(name, a.node, b.node, force=force, c=c,
                                                      length=length if k is not None else 0))

    def damper(self, name: str, a: Point, b: Point, c):
        """A translational viscous damper between two points: tension ``c * length'``."""
        self._points(name, a, b)
        _not_negative(name, c=c)
        self._line_of_action(name, a, b)
        return self._add(pe.TranslationalSpringDamper(name, a.node, b.node, force=None, c=c))

    def rotary_spring(self, name: str, a: Body | Point, b: Body | Point, k=0, c=0, angle=None):
        """A rotational spring (and damper ``c``) between two bodies or the ground: torque
        ``k (theta_b - theta_a - angle) + c (theta_b - theta_a)'``; ``angle`` defaults to the
        initial relative angle."""
        pa, pb = (x.centre if isinstance(x, Body) else x for x in (a, b))
        self._points(name, pa, pb)
        _not_negative(name, k=k, c=c)
        angle0 = self._relative_angle(pa, pb) if angle is None else angle
        return self._add(pe.RotarySpringDamper(name, pa.body.node, pb.body.node, k=k, c=c,
                                               angle0=angle0))

    def torque(self, name: str, body: Body, torque, reaction: Body | None = None):
        """An applied torque (counter-clockwise positive) on ``body``, reacting on the ground
        (or on ``reaction``): a number, a sympy expression in ``vn.t`` and mechanism
        quantities (:meth:`quantity`), or a function of t."""
        self._check_name(name)
        base = self.ground if reaction is None else reaction
        return self._add(pe.TorqueDriver(name, base.node, body.node, _signal(torque, name)))

    def force(self, name: str, point: Point, force):
        """An applied force ``(fx, fy)`` in ground coordinates on ``point``; each component a
        number, a sympy expression or a function of t."""
        self._check_name(name)
        return self._add(pe.ForceDriver(name, DATUM, point.node,
                                        [_signal(f, f"{name}_{axis}") for f, axis in zip(force, "xy")]))

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
        return self._add(pe.MotionDriver(name, edge.tail, edge.head, _signal(motion, name),
                                         quantity=quantity, axis=axis))

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
                    return (*point.position, body.angle)
            if body.node == node:
                return (*body.position, body.angle)
        raise UnknownNameError(f"no node {node!r} in mechanism {self.name!r}")

    # -- formulation -------------------------------------------------------------
    def formulate(self, coordinates: str = "joint", tree: list[str] | None = None):
        """The equations of motion: see :class:`vecnet.formulation.planar.MultibodyEquations`."""
        from ..formulation.planar import MultibodyEquations

        return MultibodyEquations(self, coordinates=coordinates, tree=tree)

    def __repr__(self) -> str:
        return (f"<Mechanism {self.name!r}: {len(self.bodies)} bodies, "
                f"{self.network.graph.number_of_edges()} edges>")

    def _repr_svg_(self) -> str | None:
        """The diagram of :func:`vecnet.draw.draw` as SVG, for notebooks (``None`` when the
        Graphviz ``dot`` program is missing or the graph is too large to lay out)."""
        from ..draw import repr_svg  # drawing depends on this module, not the reverse

        return repr_svg(self)
