"""What the planar and spatial mechanism builders share.

A mechanism is a declarative description; every call adds edges of a vector network:

* a body adds a mass element from the datum (the ground frame) to its mass centre;
* a point adds a rigid arm from the body's mass centre (or the datum, for a ground
  point) to the point;
* joints, springs, dampers and drivers add edges between points or frames.

:class:`Body`, :class:`Point` and :class:`MechanismBuilder` hold the bookkeeping that
does not depend on the dimension (names, points, arms, springs and dampers along the
line between two points); :mod:`vecnet.planar` and :mod:`vecnet.spatial` add the frame
algebra (an angle in the plane, a rotation in space) and their joint catalogues.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import sympy
from sympy.utilities.lambdify import implemented_function

from .elements.base import number_problem, t
from .errors import ModelError
from .names import check_name
from .network import Network

__all__ = ["DATUM", "Body", "Point", "MechanismBuilder", "signal"]

#: the node of the ground frame
DATUM = "ground"


def signal(value: Any, what: str) -> sympy.Expr:
    """A number, a sympy expression (in t and mechanism quantities) or a function of t,
    as a sympy expression.

    Raises
    ------
    ModelError
        For anything else.

    Examples
    --------
    >>> signal(2, "T")
    2
    """
    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return sympy.Float(value) if isinstance(value, float) else sympy.Integer(value)
    if callable(value):
        return implemented_function(sympy.Function(f"{what}_fn"), value)(t)
    raise ModelError(f"{what}: expected a number, a sympy expression or a function of t; "
                     f"got {value!r}")


def not_negative(name: str, **values: Any) -> None:
    """Refuse stiffness and damping given as numbers that are negative or not finite
    (symbols and expressions are checked when they get values)."""
    for key, value in values.items():
        try:
            number = float(value) if value is not None else None
        except (TypeError, ValueError):
            continue
        if number is None:
            continue
        problem = number_problem(number)
        if problem or number < 0:
            raise ModelError(f"{name!r}: {key} = {number:g} "
                             + (problem or "is not physical (it must be zero or more)"))


class Point:
    """A point fixed in a body (or in the ground), given in body coordinates relative to
    the mass centre. Points are made by ``body.point(...)``."""

    def __init__(self, body: Body, local: tuple[float, ...], node: str) -> None:
        self.body, self.local, self.node = body, local, node

    @property
    def position(self):
        """Initial position in ground (world) coordinates."""
        return self.body.place(self.local)

    def __repr__(self) -> str:
        return f"<Point {self.node} of {self.body.name} at {self.local}>"


class Body:
    """A rigid body of a mechanism; the planar and spatial bodies add their frame."""

    def __init__(self, mechanism: MechanismBuilder, name: str, mass, inertia) -> None:
        self.mechanism, self.name = mechanism, name
        self.mass, self.inertia = mass, inertia
        self._points: dict[tuple[float, ...], Point] = {}

    @property
    def node(self) -> str:
        """The node of the body frame (its mass centre; the datum for the ground)."""
        return DATUM if self.mass is None else self.name

    def place(self, local) -> Any:  # pragma: no cover - each dimension places its points
        raise NotImplementedError

    def _point(self, coordinates, name: str | None) -> Point:
        """The point at ``coordinates`` (body axes, relative to the mass centre); the same
        coordinates give the same point, and a new one adds an arm to the graph."""
        key = tuple(float(x) for x in coordinates)
        if key in self._points:
            return self._points[key]
        if not any(key):
            point = Point(self, key, self.node)
        else:
            if name is not None:
                check_name(name, "point name")
            label = name or f"p{len(self._points) + 1}"
            node = f"{self.name}.{label}"
            self.mechanism._add(self.mechanism.arm(f"{self.name}-{label}", self.node, node, key))
            point = Point(self, key, node)
        self._points[key] = point
        return point

    @property
    def centre(self) -> Point:
        """The mass centre as a point."""
        return self._point((0.0,) * self.mechanism.dimensions, None)


class MechanismBuilder:
    """The part of a mechanism builder that does not depend on the dimension.

    Subclasses set ``dimensions``, ``label`` (for ``repr``), ``arm`` (the arm element
    class) and ``spring_damper`` (the point-to-point spring and damper class), and make
    ``self.ground``.
    """

    dimensions: int
    label: str
    arm: type
    spring_damper: type
    #: the joints with a coordinate about or along an axis, which drivers, ports
    #: (:class:`~vecnet.RotaryPort`, :class:`~vecnet.LinearPort`) and sensors work on:
    #: element class -> (kind of joint, its coordinates ``"angle"`` and/or ``"distance"``)
    axial_joints: dict[type, tuple[str, tuple[str, ...]]]
    #: what a sensor reads of a body's frame besides the position and velocity of its mass
    #: centre (``"<body>.<quantity>"``)
    frame_quantities: tuple[str, ...]

    def __init__(self, name: str, gravity) -> None:
        try:
            parts = tuple(sympy.sympify(g) for g in gravity)
        except (TypeError, sympy.SympifyError):
            parts = ()
        if len(parts) != self.dimensions:
            raise ModelError(f"mechanism {name!r}: gravity is a vector of {self.dimensions} "
                             f"components; got {gravity!r}")
        self.name = name
        self.gravity = parts
        self.network = Network(name)
        self.bodies: dict[str, Body] = {}
        self.network.graph.add_node(DATUM)

    # -- building --------------------------------------------------------------
    def _add(self, element):
        self.network.add(element)
        return element

    def _check_name(self, name: str, what: str = "name") -> None:
        check_name(name, what)  # the policy of vecnet.names, before any lookup
        if name in self.bodies or name in {e.name for e in self.network.elements}:
            raise ModelError(f"mechanism {self.name!r} already has something named {name!r}")

    def _check_body_name(self, name: str, mass) -> None:
        self._check_name(name, "body name")
        if name == DATUM:
            raise ModelError(f"body name {name!r} is reserved for the ground frame")
        if isinstance(mass, numbers.Real) and not mass > 0:
            raise ModelError(f"body {name!r}: mass {mass:g} must be positive")

    def _check_point(self, name: str, point: Point) -> None:
        if not isinstance(point, Point) or point.body.mechanism is not self:
            raise ModelError(f"{name!r}: {point!r} is not a point of mechanism {self.name!r}")

    def _points(self, name: str, a: Point, b: Point) -> None:
        """Check a new element's name and the two points it joins."""
        self._check_name(name)
        for p in (a, b):
            self._check_point(name, p)
        if a.body is b.body:
            raise ModelError(f"{name!r} joins two points of the same body {a.body.name!r}; "
                             "a joint or force element must join two different bodies")

    def _vector(self, name: str, value, what: str) -> list[sympy.Expr]:
        """The components of an applied force or torque, each a signal."""
        axes = "xyz"[:self.dimensions]
        try:
            parts = list(value)
        except TypeError:
            parts = []
        if len(parts) != self.dimensions:
            raise ModelError(f"{name!r}: a {what} has components ({', '.join(axes)}); "
                             f"got {value!r}")
        return [signal(f, f"{name}_{axis}") for f, axis in zip(parts, axes)]

    def axial_coordinates(self, joint: str) -> tuple[str, ...]:
        """The coordinates about or along its axis of the joint named ``joint``
        (:attr:`axial_joints`): ``("angle",)``, ``("distance",)``, both, or none.

        Raises
        ------
        UnknownNameError
            When the mechanism has no element ``joint``.

        Examples
        --------
        >>> import vecnet as vn
        >>> mech = vn.spatial.Mechanism("m")
        >>> bob = mech.body("bob", 1.0, (0.1, 0.1, 0.1))
        >>> _ = mech.cylindrical("C", mech.ground.centre, bob.centre)
        >>> mech.axial_coordinates("C")
        ('angle', 'distance')
        """
        return self.axial_joints.get(type(self.network.element(joint)), ("", ()))[1]

    def joints_with(self, coordinate: str) -> str:
        """The kinds of joint that have ``coordinate`` (``"angle"`` or ``"distance"``), in
        words for messages.

        >>> import vecnet as vn
        >>> vn.spatial.Mechanism("m").joints_with("angle")
        'revolute or cylindrical'
        """
        return " or ".join(kind for kind, coordinates in self.axial_joints.values()
                           if coordinate in coordinates)

    # -- springs and dampers along the line between two points ---------------------
    @staticmethod
    def _line_of_action(name: str, a: Point, b: Point) -> float:
        """The initial distance from ``a`` to ``b``; refused when the points are at the same
        place, where the line a spring or damper acts along has no direction."""
        pa, pb = np.asarray(a.position, float), np.asarray(b.position, float)
        distance = float(np.linalg.norm(pb - pa))
        if not distance > 1e-9 * max(1.0, float(np.max(np.abs(np.concatenate([pa, pb]))))):
            where = ", ".join(f"{x:g}" for x in pa)
            raise ModelError(f"{name!r} joins points {a.node!r} and {b.node!r}, which start at "
                             f"the same place ({where}): a spring or damper acts along the "
                             "line between its points, which has no direction there; attach "
                             "it to points apart (or use a rotary_spring)")
        return distance

    def spring(self, name: str, a: Point, b: Point, k=None, length=None, force=None, c=0):
        """A translational spring between two points: linear with stiffness ``k`` and free
        ``length`` (default: the initial distance), or nonlinear with ``force(length)``
        (tension, a function building a sympy expression). ``c`` adds a parallel damper."""
        self._points(name, a, b)
        not_negative(name, k=k, c=c)
        if (k is None) == (force is None):
            raise ModelError(f"spring {name!r}: give either k (and length) or force=f(length)")
        distance = self._line_of_action(name, a, b)
        if force is None:
            if length is None:
                length = distance
            k_, length_ = sympy.sympify(k), sympy.sympify(length)
            force = lambda stretch: k_ * (stretch - length_)  # noqa: E731
        return self._add(self.spring_damper(name, a.node, b.node, force=force, c=c,
                                            length=length if k is not None else 0))

    def damper(self, name: str, a: Point, b: Point, c):
        """A translational viscous damper between two points: tension ``c * length'``."""
        self._points(name, a, b)
        not_negative(name, c=c)
        self._line_of_action(name, a, b)
        return self._add(self.spring_damper(name, a.node, b.node, force=None, c=c))

    def __repr__(self) -> str:
        return (f"<{self.label} {self.name!r}: {len(self.bodies)} bodies, "
                f"{self.network.graph.number_of_edges()} edges>")

    def _repr_svg_(self) -> str | None:
        """The diagram of :func:`vecnet.draw.draw` as SVG, for notebooks (``None`` when the
        Graphviz ``dot`` program is missing or the graph is too large to lay out)."""
        from .draw import repr_svg  # drawing depends on this module, not the reverse

        return repr_svg(self)
