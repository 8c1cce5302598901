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

import functools
import inspect
import numbers
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import sympy
from sympy.utilities.lambdify import implemented_function

from ..core.bounds import get_limits
from ..core.forwards import public
from ..core.later import later
from ..core.names import check_name
from ..core.symbols import DATUM
from ..elements.base import number_problem, t
from ..elements.beam import Material, Section, symbolic
from ..errors import ModelError, UnknownNameError
from .network import Network

__all__ = ["DATUM", "Body", "Point", "Beam", "MechanismBuilder", "signal", "recorded", "pinion_on_its_rack",
           "point_nodes", "check_point_pair", "sensor_reading"]

_Method = TypeVar("_Method", bound=Callable[..., Any])
#: builder arguments whose key in a model file differs: pairs of points or bodies, and
#: the value of an applied torque or force
_PAIRS = {"a": "between", "b": "between", "body_a": "bodies", "body_b": "bodies"}
_VALUES = {"torque": "value", "force": "value"}


def recorded(section: str) -> Callable[[_Method], _Method]:
    """Record each successful call of a builder method in the builder's
    :attr:`MechanismBuilder.description`, as an entry of ``section`` (``"bodies"``,
    ``"joints"``, ``"forces"``, ``"drives"``) of a model file: the arguments, points as ``"<body>.<point>"`` references, bodies by name, pairs under
    ``"between"`` or ``"bodies"``; a joint's or force element's ``type`` is the method's
    name. :func:`vecnet.save_model` writes the description."""
    def decorate(method: _Method) -> _Method:
        signature = inspect.signature(method)

        @functools.wraps(method)
        def call(self: MechanismBuilder, *args: Any, **kwargs: Any) -> Any:
            made = method(self, *args, **kwargs)
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()  # a file needs some of them (a body's position)
            given = bound.arguments
            entry: dict[str, Any] = {} if section in ("bodies", "beams", "drives") else \
                {"type": method.__name__}
            if "kind" in given and section == "joints":   # a catalogued kind (joint())
                entry["type"] = given.pop("kind")
            options = given.pop("options", {})
            for key, value in [*list(given.items())[1:], *options.items()]:
                if key in _PAIRS:
                    entry.setdefault(_PAIRS[key], []).append(reference(value))
                elif key in _VALUES and method.__name__ == key:
                    entry["value"] = value
                elif isinstance(value, (Point, Body)):
                    entry[key] = reference(value)
                else:
                    entry[key] = value
            self.description[section].append(entry)
            return made
        return call  # type: ignore[return-value]
    return decorate


def reference(item: Point | Body) -> str:
    """How a model file names a point (``"<body>.<point>"``, or the body for its mass
    centre) or a body."""
    if isinstance(item, Body):
        return item.name
    node = item.node
    return item.body.name if node == item.body.node else node


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


#: the Coulomb laws of joint friction
FRICTION_LAWS = ("smooth", "set-valued")


def _static_not_below(what: str, static: tuple[str, Any], kinetic: tuple[str, Any],
                      word: str) -> None:
    """Refuse a static friction coefficient or force below the kinetic one (numbers only:
    symbols are checked once their values are known)."""
    high, low = _number(static[1]), _number(kinetic[1])
    if high is not None and low is not None and high < low:
        raise ModelError(f"{what}: {static[0]} = {high:g} is below {kinetic[0]} = {low:g}; "
                         f"the static {word} is the larger one")


def _number(value) -> float | None:
    """``value`` as a float, ``None`` for a symbol or expression (checked with values)."""
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _coulomb_law(name: str, quantity: str, coulomb, law, mu_kinetic, mu_static,
                 coulomb_static, radius) -> dict:
    """The Coulomb law of joint friction ``name`` as the friction element takes it
    (:meth:`~vecnet.elements.joint_laws.FrictionLaw._set_valued`), its parameters checked
    (:meth:`MechanismBuilder.joint_friction` says which are refused)."""
    what = f"joint friction {name!r}"
    coefficients = mu_kinetic is not None or mu_static is not None
    if law is None:
        law = "set-valued" if coefficients or coulomb_static is not None else "smooth"
    if law not in FRICTION_LAWS:
        raise ModelError(f"{what}: law = {law!r} is not one of "
                         f"{', '.join(map(repr, FRICTION_LAWS))}")
    if law == "smooth":
        given = [key for key, value in (("mu_kinetic", mu_kinetic), ("mu_static", mu_static),
                                        ("coulomb_static", coulomb_static),
                                        ("radius", radius)) if value is not None]
        if given:
            raise ModelError(f"{what}: the smooth law has a fixed coulomb force only; "
                             f"{', '.join(given)} belong(s) to law='set-valued'")
        return {}
    if coefficients:
        if mu_kinetic is None:
            raise ModelError(f"{what}: mu_static needs mu_kinetic (the coefficient while "
                             "slipping)")
        if _number(coulomb) != 0 or coulomb_static is not None:
            raise ModelError(f"{what}: give the coefficients mu_kinetic and mu_static (a force "
                             "that follows the joint's normal reaction) or a fixed coulomb "
                             "force, not both")
        mu_static = mu_kinetic if mu_static is None else mu_static
        _static_not_below(what, ("mu_static", mu_static), ("mu_kinetic", mu_kinetic),
                          "coefficient")
        if quantity == "angle" and (radius is None or _number(radius) == 0):
            raise ModelError(f"{what}: a turning joint's friction torque is radius * mu |N|; "
                             "give its friction radius, radius= (m, more than zero)")
    else:
        if coulomb_static is None and _number(coulomb) == 0:
            raise ModelError(f"{what}: the set-valued law needs mu_kinetic (and mu_static) "
                             "or a fixed force coulomb= (and coulomb_static=)")
        coulomb_static = coulomb if coulomb_static is None else coulomb_static
        _static_not_below(what, ("coulomb_static", coulomb_static), ("coulomb", coulomb),
                          "limit")
    if radius is not None and quantity == "distance":
        raise ModelError(f"{what}: radius is a turning joint's friction radius; the slider's "
                         "friction is a force, mu |N|")
    return {"law": law, "mu_kinetic": mu_kinetic, "mu_static": mu_static,
            "coulomb_static": coulomb_static, "radius": radius}


def _contact_number(name: str, key: str, value: Any) -> float | None:
    """A contact's ``key`` as a float (``None`` stays ``None``), or a ModelError in words:
    the event-driven contact numerics take numbers; a study varies them by name."""
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ModelError(
            f"contact {name!r}: {key} = {value} must be a number; a contact's {key} cannot "
            f"be a parameter or an expression (vary it in a study by name, as "
            f"'{name}.{key}')") from None


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
    the mass centre. Points are made by ``body.point(...)``; ``vecnet.spatial.Point`` is this
    class too.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.01, position=(0.5, 0.0))
    >>> pin = bob.point(-0.5, 0)
    >>> pin
    <Point bob.p1 of bob at (-0.5, 0.0)>
    >>> pin.position          # in the ground's frame
    (0.0, 0.0)
    """

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

    def pose(self, position) -> tuple:  # pragma: no cover - each dimension has its frame
        """The initial pose of a point of the body at ``position`` (world axes)."""
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
        self.mechanism._point_nodes[point.node] = point
        return point

    @property
    def centre(self) -> Point:
        """The mass centre as a point."""
        return self._point((0.0,) * self.mechanism.dimensions, None)

    @property
    def points(self) -> tuple[Point, ...]:
        """The body's points made so far, the mass centre among them once it is used."""
        return tuple(self._points.values())


class Beam:
    """A flexible body of a mechanism (made by :meth:`MechanismBuilder.beam`): a chain of
    beam elements ``<name>_e1 ... <name>_eN`` between the node frames ``<name>_0 ...
    <name>_N``, each node a body of no mass of its own (the elements carry the beam's
    inertia). Join other parts to a node's :attr:`Body.centre` (or a point of it) as to
    any body's.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("arm")
    >>> rod = mech.beam("rod", (0, 0), (1, 0), vn.Material(E=2e11, density=7800, nu=0.3),
    ...                 vn.Section.circle(0.01), elements=2)
    >>> rod
    <Beam rod: 2 elements, 1 m>
    >>> [node.name for node in rod.nodes], rod.elements
    (['rod_0', 'rod_1', 'rod_2'], ('rod_e1', 'rod_e2'))
    >>> rod.end.position
    (1.0, 0.0)
    """

    def __init__(self, name: str, nodes: list[Body], elements: tuple[str, ...],
                 material: Material, section: Section, length: float) -> None:
        self.name, self.nodes, self.elements = name, tuple(nodes), elements
        self.material, self.section, self.length = material, section, length

    @property
    def start(self) -> Point:
        """The first node's origin, where the beam starts."""
        return self.nodes[0].centre

    @property
    def end(self) -> Point:
        """The last node's origin, where the beam ends."""
        return self.nodes[-1].centre

    def study_parameters(self) -> dict[str, Any]:
        """The values a study may vary by ``"<beam>.<name>"``: the material's (``E``,
        ``density``, ``nu`` or ``G``) and the section's (its dimensions, as ``diameter``,
        or ``A``, ``Iy``, ``Iz``, ``J`` where they were given)."""
        return {**self.material.study_parameters(), **self.section.study_parameters()}

    def set_study_parameter(self, name: str, value: Any, network) -> None:
        """Give the material's or section's parameter ``name`` the value ``value`` (a number
        or a sympy symbol), in place, in every element of the beam in ``network``."""
        if name in self.material.study_parameters():
            self.material = self.material.with_parameter(name, value)
        else:
            self.section = self.section.with_parameter(name, value)
        for part in self.elements:
            element = network.element(part)
            element.material, element.section = self.material, self.section

    def __repr__(self) -> str:
        return f"<Beam {self.name}: {len(self.elements)} elements, {self.length:g} m>"


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
    #: the beam element class (:class:`~vecnet.elements.beam.BeamLaw`)
    beam_element: type
    #: the joints with a coordinate about or along an axis, which drivers, ports
    #: (:class:`~vecnet.RotaryPort`, :class:`~vecnet.LinearPort`) and sensors work on:
    #: element class -> (kind of joint, its coordinates ``"angle"`` and/or ``"distance"``)
    axial_joints: dict[type, tuple[str, tuple[str, ...]]]
    #: what a sensor reads of a body's frame besides the position and velocity of its mass
    #: centre (``"<body>.<quantity>"``)
    frame_quantities: tuple[str, ...]
    #: Whether the mechanism was read from a model file, whose simulations run under the
    #: bound ``file_work`` on state evaluations (:func:`vecnet.core.bounds.untrusted`).
    untrusted: bool = False

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
        #: the flexible bodies (:meth:`beam`), by name
        self.beams: dict[str, Beam] = {}
        self._point_nodes: dict[str, Point] = {}   # the node of every point made
        #: what was built, as the sections of a model file (:func:`recorded`)
        self.description: dict[str, list[dict[str, Any]]] = {
            "bodies": [], "beams": [], "joints": [], "forces": [], "drives": []}
        self.network.graph.add_node(DATUM)

    # -- building --------------------------------------------------------------
    def _add(self, element):
        self.network.add(element)
        return element

    def _check_name(self, name: str, what: str = "name") -> None:
        check_name(name, what)  # the policy of vecnet.core.names, before any lookup
        if name in self.bodies or name in self.beams \
                or name in {e.name for e in self.network.elements}:
            raise ModelError(f"mechanism {self.name!r} already has something named {name!r}")

    def _check_body_name(self, name: str, mass) -> None:
        self._check_name(name, "body name")
        if name == DATUM:
            raise ModelError(f"body name {name!r} is reserved for the ground frame")
        if isinstance(mass, numbers.Real) and not mass >= 0:
            raise ModelError(f"body {name!r}: mass {mass:g} must be zero or more")

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

    # -- elements that act in a joint: friction, limits, gears and racks ------------------
    #: the joint stop element class of the dimension
    stop_element: type
    contact_element: type

    def _axial_joint(self, joint: str, what: str, quantity: str | None):
        """``(element, quantity)`` of a joint with a coordinate about or along its axis
        (:attr:`axial_joints`): ``quantity`` (``"angle"`` or ``"distance"``) or, by default,
        the joint's first one. ``what`` starts the messages (it names the element).

        Raises
        ------
        ModelError
            When the joint has no such coordinate.
        UnknownNameError
            When the mechanism has no element ``joint``.
        """
        element = self.network.element(joint)
        allowed = self.axial_coordinates(joint)
        if not allowed:
            kinds = [kind for kind, _ in self.axial_joints.values()]
            kinds = ", ".join(kinds[:-1]) + " or " + kinds[-1]
            raise ModelError(f"{what} a {kinds} joint; {joint!r} is a {type(element).__name__}")
        quantity = allowed[0] if quantity is None else quantity
        if quantity not in allowed:
            raise ModelError(f"{what} {joint!r} along its {quantity!r}, which it does not "
                             f"have; it has {' and '.join(allowed)}")
        return element, quantity

    @recorded("forces")
    def joint_friction(self, name: str, joint: str, viscous=0, coulomb=0, smoothing=1e-3,
                       quantity: str | None = None, law: str | None = None,
                       mu_kinetic=None, mu_static=None, coulomb_static=None, radius=None):
        """Friction in ``joint`` (revolute or prismatic; in space also cylindrical): a torque
        (N m) or force (N) opposing the joint's relative speed ``v`` (rad/s or m/s) about or
        along its axis, acting equally and oppositely on the joint's two bodies (reported
        as ``"<name>.force"`` and ``"<name>.torque"``, what it applies to the joint's head
        body). ``quantity`` (``"angle"`` or ``"distance"``) picks the motion of a
        cylindrical joint (default: its angle). Two Coulomb laws (``law``):

        ``"smooth"`` (the default without coefficients): ``viscous * v + coulomb *
        tanh(v / smoothing)`` (:func:`vecnet.elements.joint_laws.friction`), ``coulomb`` a
        given constant magnitude (for a block of mass m pressed on a slope at angle a,
        ``mu m g cos a``; it does not follow the joint's reaction). ``smoothing`` (default
        1e-3 rad/s or m/s) is the speed below which the Coulomb part fades linearly to
        zero: a joint held by friction creeps at a speed of that order instead of stopping
        exactly, and a smaller value sticks better but makes the equations stiffer.

        ``"set-valued"`` (the default when ``mu_kinetic`` or ``coulomb_static`` is given):
        the joint sticks or slips, and ``simulate`` switches between the two by events
        (``method="partition"``; :mod:`vecnet.numerics.friction`). Slipping, the Coulomb
        force is ``-mu_kinetic |N| sign(v)``; sticking, the joint is held at rest by
        whatever force that takes, as long as it stays within ``mu_static |N|``.
        ``N`` is the joint's normal reaction, from the cutset equations at every
        evaluation: the component of the reaction force normal to the joint's axis (a
        slider pressed on its guide; for a turning joint, a pin pressed on its bearing,
        whose torques are ``radius`` (m, the friction radius, needed) times these forces).
        Without coefficients the limits are the fixed forces ``coulomb`` (kinetic) and
        ``coulomb_static`` (default ``coulomb``). ``mu_static`` defaults to
        ``mu_kinetic``; ``viscous`` adds ``viscous * v`` in either law. Mode changes are
        the result's events (``kind`` ``"mode"``), the mode over time ``"<name>.mode"``
        (0 sticking, +1 or -1 slipping with that sign of ``v``) and the Coulomb force's
        limit scale ``"<name>.normal"`` (``|N|``).

        Raises
        ------
        ModelError
            When ``joint`` has no angle or distance of that kind, a coefficient is
            negative, ``smoothing`` is not positive, ``law`` is unknown, the static
            coefficient or force is below the kinetic one, coefficients and a fixed force
            are both given, a turning joint's coefficients come without a positive
            ``radius`` (or a slider's with one), or the smooth law gets set-valued
            parameters.
        UnknownNameError
            When the mechanism has no element ``joint``.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("slope", gravity=(0, -9.81))
        >>> block = mech.body("block", mass=1.0, inertia=0.1)
        >>> _ = mech.prismatic("slide", mech.ground.point(0, 0), block.centre, axis=(1, 0))
        >>> mech.joint_friction("rub", "slide", viscous=0.5, coulomb=2.0).coulomb
        2.00000000000000
        >>> mech.joint_friction("grip", "slide", mu_kinetic=0.3, mu_static=0.5).law
        'set-valued'
        """
        self._check_name(name)
        element, quantity = self._axial_joint(
            joint, f"joint friction {name!r}: friction acts in", quantity)
        not_negative(name, viscous=viscous, coulomb=coulomb, smoothing=smoothing,
                     mu_kinetic=mu_kinetic, mu_static=mu_static, coulomb_static=coulomb_static,
                     radius=radius)
        if sympy.sympify(smoothing).is_zero:
            raise ModelError(f"joint friction {name!r}: smoothing = {smoothing!r} must be a "
                             "positive speed (the Coulomb part fades to zero below it)")
        coulomb_law = _coulomb_law(name, quantity, coulomb, law, mu_kinetic, mu_static,
                                   coulomb_static, radius)
        return self._add(self._friction_element(name, element, quantity, viscous, coulomb,
                                                smoothing, **coulomb_law))

    def _friction_element(self, name, joint, quantity, viscous, coulomb, smoothing, **law):
        """The dimension's friction element across ``joint`` (an element)."""
        raise NotImplementedError  # pragma: no cover - each dimension

    @recorded("forces")
    def joint_limit(self, name: str, joint: str, lower=None, upper=None, restitution=0.5,
                    quantity: str | None = None):
        """Unilateral stops keeping the coordinate of ``joint`` (revolute or prismatic; in
        space also cylindrical, ``quantity`` picking its angle or distance, default the
        angle) within ``[lower, upper]`` (rad or m; ``None``: no stop on that side). A
        joint striking a stop leaves it with its speed times ``-restitution`` (0: it stops
        dead, 1: a perfectly elastic bounce), the impulse acting in the joint.
        ``simulate`` stops the integration at each strike (an event,
        ``method="partition"`` only) and starts it again after the jump; a joint settling
        on its stop in ever shorter bounces is refused after many (it is not brought to
        rest). The stop needs the coordinate's rate among the speeds: in space the joint
        must be in the tree (joint coordinates), else formulating refuses it.

        Raises
        ------
        ModelError
            When ``joint`` has no such coordinate, no limit is given, ``lower > upper`` or
            ``restitution`` is outside ``[0, 1]``.
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
        element, quantity = self._axial_joint(joint, f"joint limit {name!r}: a stop limits",
                                              quantity)
        if lower is None and upper is None:
            raise ModelError(f"joint limit {name!r}: give lower=, upper= or both")
        if lower is not None and upper is not None and float(lower) > float(upper):
            raise ModelError(f"joint limit {name!r}: lower = {lower:g} is above "
                             f"upper = {upper:g}")
        if not 0 <= restitution <= 1:
            raise ModelError(f"joint limit {name!r}: restitution = {restitution!r} must lie "
                             "in [0, 1] (0: stops dead, 1: elastic)")
        edge = element.edges[0]
        return self._add(self.stop_element(name, edge.tail, edge.head, joint, lower, upper,
                                           restitution, quantity=quantity))

    @recorded("forces")
    def contact(self, name: str, at, radius=0.0, plane="ground", normal=None,
                restitution=0.5, mu_kinetic=None, mu_static=None, shape: str = "sphere",
                sphere=None, sphere_radius=None):
        """A unilateral contact of a sphere of ``radius`` (``shape="point"``, or radius 0:
        a point; in the plane a sphere is a disc) centred at ``at`` (a point of a body, or a
        body: its mass centre) against a plane: ``plane="ground"`` (through the origin,
        its ``normal`` by default against gravity) or a point the plane passes through,
        with its ``normal`` (world axes at the initial pose, pointing to the free side): a
        point of the ground, or of another body, whose plane then turns and moves with it
        (a turntable, a cart, a tilting table: the contact force acts on both bodies, the
        restitution and friction act on the relative motion). Or,
        with ``sphere``, against another body's sphere (a disc in the plane) of
        ``sphere_radius`` (default ``radius``) centred at ``sphere`` (a point of that body,
        or the body): the gap is the distance between the centres less both radii, the
        normal the line of centres, and the contact force acts on both bodies. The
        contact is an edge from the plane (the other sphere's centre) to the sphere's
        centre, present only while it is closed:

        * open (gap ``> 0``): no force;
        * striking (the gap closing through zero): the normal speed turns to
          ``-restitution`` times itself (an impulse along the normal, with friction
          also a tangential one: ``mu_kinetic`` times it against the slip, or what stops
          the slip if that is less and fits within ``mu_static``), an event
          ``"impact"``; when little speed is left the contact closes (an event
          ``"mode"``, ``open`` -> ``closed``, ``stick`` or ``slip``);
        * closed: the gap held at zero by a constraint whose multiplier is the normal
          force ``N``, which is a reaction of the cutsets as a joint's is; it opens when
          ``N`` would become negative.

        With ``mu_kinetic`` the closed contact has Coulomb friction: sticking (no slip at
        the contact point, a velocity constraint) while its tangential force stays within
        ``mu_static N`` (default ``mu_kinetic``), else slipping with ``mu_kinetic N``
        against the slip velocity; the switches are events. The result has
        ``"<name>.gap"``, ``"<name>.normal"`` (``N``), ``"<name>.mode"`` (0 open,
        1 closed and sticking, 2 slipping), ``"<name>.force"`` (on the body, at the
        contact point) and ``"<name>.slip"`` (the contact point's tangential speed).
        Simulated with ``method="partition"``.

        Raises
        ------
        ModelError
            When ``at`` is not a point of a massive body of this mechanism, ``radius``,
            ``mu_kinetic`` or ``mu_static`` is negative, ``mu_static < mu_kinetic``,
            ``restitution`` lies outside ``[0, 1]``, the plane's point is on the sphere's
            own body or its normal is zero, or ``shape`` is unknown.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("bounce", gravity=(0, -9.81))
        >>> ball = mech.body("ball", mass=1.0, inertia=0.004, position=(0, 1))
        >>> mech.contact("floor", ball, radius=0.1, restitution=0.8).normal
        (0.0, 1.0, 0.0)
        """
        self._check_name(name)
        centre = at.centre if isinstance(at, Body) else at
        self._check_point(name, centre)
        body = centre.body
        if body is self.ground:
            raise ModelError(f"contact {name!r}: the sphere is on a moving body, not on the "
                             "ground")
        if sympy.sympify(body.mass).is_zero:
            raise ModelError(f"contact {name!r}: body {body.name!r} has no mass; a contact "
                             "needs a body that an impulse can move (give it a mass)")
        if shape not in ("sphere", "point", "disc"):
            raise ModelError(f"contact {name!r}: shape = {shape!r} is not one of 'sphere', "
                             "'point', 'disc'")
        if shape == "disc" and self.dimensions == 3:
            raise ModelError(f"contact {name!r}: a disc's rim against a plane is a planar "
                             "contact; in space give shape='sphere'")
        radius, restitution, mu_kinetic, mu_static, sphere_radius = (
            _contact_number(name, key, value) for key, value in (
                ("radius", radius), ("restitution", restitution), ("mu_kinetic", mu_kinetic),
                ("mu_static", mu_static), ("sphere_radius", sphere_radius)))
        if shape == "point" and radius != 0:
            raise ModelError(f"contact {name!r}: a point has no radius; got {radius:g}")
        not_negative(name, radius=radius, mu_kinetic=mu_kinetic, mu_static=mu_static)
        if not 0 <= float(restitution) <= 1:
            raise ModelError(f"contact {name!r}: restitution = {restitution:g} must lie "
                             "in [0, 1] (0: no rebound, 1: elastic)")
        if mu_static is not None and mu_kinetic is None:
            raise ModelError(f"contact {name!r}: mu_static needs mu_kinetic")
        if mu_kinetic is not None:
            mu_static = mu_kinetic if mu_static is None else mu_static
            _static_not_below(f"contact {name!r}", ("mu_static", mu_static),
                              ("mu_kinetic", mu_kinetic), "coefficient")
        if sphere is not None:
            return self._sphere_pair(name, centre, radius, sphere, sphere_radius,
                                     restitution, mu_kinetic, mu_static, plane, normal)
        if isinstance(plane, str) and plane == "ground":
            origin = self.ground.centre
            if normal is None:
                normal = [0.0 - float(g) for g in self.gravity]   # no -0.0 components
                if not any(normal):
                    raise ModelError(f"contact {name!r}: without gravity the ground has no "
                                     "'up'; give the plane's normal=")
        elif isinstance(plane, Point):
            self._check_point(name, plane)
            if plane.body is body:
                raise ModelError(f"contact {name!r}: the plane and the sphere are both on "
                                 f"body {body.name!r}; a contact joins two bodies")
            if normal is None:
                raise ModelError(f"contact {name!r}: give the plane's normal= with its point")
            origin = plane
        else:
            raise ModelError(f"contact {name!r}: plane = {plane!r}; give 'ground' or a point "
                             "of a body (with normal=)")
        try:
            normal = [float(x) for x in normal]
        except (TypeError, ValueError):
            normal = []
        if len(normal) != self.dimensions or not any(normal):
            raise ModelError(f"contact {name!r}: the normal needs {self.dimensions} "
                             f"components, not all zero; got {normal!r}")
        carrier = {}
        if origin.body is not self.ground:
            # the plane moves with its body: its point and normal in that body's axes
            carrier = {"other": origin.body.name, "other_local": tuple(origin.local),
                       "other_normal": tuple(self._body_axes(origin.body, normal))}
        return self._add(self.contact_element(
            name, origin.node, centre.node, body.name, centre.local, radius,
            tuple(float(x) for x in origin.position), normal, restitution, mu_kinetic,
            mu_static, **carrier))

    @staticmethod
    def _body_axes(body: Body, vector) -> np.ndarray:
        """``vector`` (world axes at the initial pose) in ``body``'s axes: the inverse of
        its initial rotation, whose columns are where ``place`` takes the unit vectors."""
        origin = np.asarray(body.place([0.0] * len(vector)), float)
        R = np.column_stack([np.asarray(body.place(e), float) - origin
                             for e in np.eye(len(vector))])
        return R.T @ np.asarray(vector, float)

    def _sphere_pair(self, name, centre, radius, sphere, sphere_radius, restitution,
                     mu_kinetic, mu_static, plane, normal):
        """A contact between the spheres centred at ``centre`` and ``sphere``, points of
        two massive bodies (:meth:`contact`)."""
        other = sphere.centre if isinstance(sphere, Body) else sphere
        self._check_point(name, other)
        if other.body is self.ground:
            raise ModelError(f"contact {name!r}: the sphere= is a moving body's; against the "
                             "ground give plane=")
        if other.body is centre.body:
            raise ModelError(f"contact {name!r}: both spheres are on body "
                             f"{centre.body.name!r}; a contact joins two bodies")
        if sympy.sympify(other.body.mass).is_zero:
            raise ModelError(f"contact {name!r}: body {other.body.name!r} has no mass; a "
                             "contact needs a body that an impulse can move (give it a mass)")
        if not (isinstance(plane, str) and plane == "ground") or normal is not None:
            raise ModelError(f"contact {name!r}: give a plane or a sphere=, not both (the "
                             "normal of two spheres is the line of their centres)")
        sphere_radius = radius if sphere_radius is None else sphere_radius
        not_negative(name, sphere_radius=sphere_radius)
        a = np.asarray(centre.position, float)
        b = np.asarray(other.position, float)
        if not np.linalg.norm(a - b) > 0:
            raise ModelError(f"contact {name!r}: the spheres' centres start at the same "
                             "place, where the line of centres has no direction")
        return self._add(self.contact_element(
            name, other.node, centre.node, centre.body.name, centre.local, radius,
            tuple(float(x) for x in b), tuple(a - b), restitution, mu_kinetic, mu_static,
            other=other.body.name,
            other_local=tuple(other.local),
            other_radius=sphere_radius))

    def _coupled_bodies(self, name: str, a: Body, b: Body) -> None:
        """Refuse a gear or rack between anything but two different bodies of this
        mechanism (the ground is one)."""
        for body in (a, b):
            if not isinstance(body, Body) or (body is not self.ground
                                              and self.bodies.get(body.name) is not body):
                raise ModelError(f"{name!r}: {body!r} is not a body of mechanism {self.name!r}")
        if a is b:
            raise ModelError(f"{name!r}: couple two different bodies")

    def _wheel_ends(self, name: str, wheel, point, radius) -> tuple[Point, Point]:
        """The ends of a rolling wheel's contact edge, ``(point, centre)``: ``point`` on the
        line or plane it rolls on (default the ground's origin) and the wheel's centre
        (``wheel``, a point of its body or the body, meaning its mass centre)."""
        centre = wheel.centre if isinstance(wheel, Body) else wheel
        ground = self.ground.centre if point is None else point
        self._points(name, ground, centre)   # two points of two bodies of this mechanism
        if centre.body is self.ground:
            raise ModelError(f"rolling wheel {name!r}: the wheel's centre is a point of the "
                             "wheel's body, not of the ground")
        if not sympy.sympify(radius).is_number:   # the rolling rows take its value
            raise ModelError(f"rolling wheel {name!r}: radius must be a positive number, not "
                             f"the expression {radius}; give its value")
        self._positive(f"rolling wheel {name!r}: radius", radius)
        return ground, centre

    @staticmethod
    def _positive(what: str, value) -> None:
        """Refuse a gear ratio or pinion radius that is not positive (a symbol declared
        positive passes)."""
        value = sympy.sympify(value)
        if not value.is_positive:
            shown = f"{float(value):g}" if value.is_number and value.is_real else str(value)
            raise ModelError(f"{what} must be positive, got {shown}")

    # -- flexible bodies --------------------------------------------------------------
    @recorded("beams")
    def beam(self, name: str, start, end, material: Material, section: Section,
             elements: int = 4, y_axis=None) -> Beam:
        """A straight, undeformed beam from ``start`` to ``end`` (ground coordinates) of
        ``material`` and cross-``section``, as ``elements`` beam elements of equal length
        (:mod:`vecnet.elements.beam`: bending in two planes, torsion and elongation with
        geometric stiffening) between ``elements + 1`` node frames. Each node frame has
        ``x`` along the beam and ``y``, ``z`` the section's axes: in the plane ``y`` is
        ``x`` turned a quarter turn (bending in the plane takes ``E Iz``); in space
        ``y_axis`` (ground axes, made perpendicular to the beam) gives ``y``, by default
        ``z_ground x x`` (or ground ``y`` for a beam along ground ``z``).

        Raises
        ------
        ModelError
            For a name in use, a beam of no length, an element count that is not a
            whole number from 1 to ``vn.limits``' ``max_parts``, a ``material`` or
            ``section`` of the wrong type, or a section as large as an element is long
            (a beam element is slender).
        """
        count = elements
        if isinstance(count, bool) or not isinstance(count, numbers.Integral) \
                or not 1 <= count <= get_limits().max_parts:
            raise ModelError(f"beam {name!r}: elements is a whole number from 1 to "
                             f"{get_limits().max_parts}; got {elements!r}")
        self._check_name(name, "beam name")
        nodes = [f"{name}_{i}" for i in range(count + 1)]
        parts = [f"{name}_e{i + 1}" for i in range(count)]
        for part in nodes:
            self._check_body_name(part, 0.0)
        for part in parts:
            self._check_name(part)
        try:
            a, b = (np.asarray(p, dtype=float).reshape(self.dimensions) for p in (start, end))
        except (TypeError, ValueError):
            raise ModelError(f"beam {name!r}: start and end are points of "
                             f"{self.dimensions} coordinates; got {start!r}, {end!r}") from None
        length = float(np.linalg.norm(b - a))
        if not np.all(np.isfinite([*a, *b])) or not length > 0:
            raise ModelError(f"beam {name!r}: start and end must be finite and apart")
        # the element's law checks the material and section and its length
        self.beam_element(parts[0], nodes[0], nodes[1], length / count, material, section,
                          name)
        if not symbolic(section.size) and not section.size < length / count:
            raise ModelError(f"beam {name!r}: the section ({section.size:g} across) is as "
                             f"large as an element is long ({length / count:g}); a beam "
                             "element is slender: use fewer elements or a rigid body")
        frame = self._beam_frame(name, (b - a) / length, y_axis)
        make = type(self).body.__wrapped__   # the beam is recorded, not its nodes
        bodies = [make(self, node, 0.0, self._no_inertia, position=tuple(a + (b - a) * i / count),
                       **frame) for i, node in enumerate(nodes)]
        for i, part in enumerate(parts):
            self._add(self.beam_element(part, nodes[i], nodes[i + 1], length / count, material,
                                        section, name))
        made = Beam(name, bodies, tuple(parts), material, section, length)
        self.beams[name] = made
        return made

    def _beam_frame(self, name: str, direction: np.ndarray, y_axis) -> dict[str, Any]:
        """The keyword arguments of :meth:`body` that turn a node frame's ``x`` axis along
        the beam's ``direction`` (each dimension has its own)."""
        raise NotImplementedError  # pragma: no cover - each dimension has its frame

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

    @recorded("forces")
    def spring(self, name: str, a: Point, b: Point, k=None, length=None, force=None, c=0):
        """A translational spring between two points: linear with stiffness ``k`` and free
        ``length`` (default: the initial distance), or nonlinear with ``force(length)``
        (tension, a function building a sympy expression). ``c`` adds a parallel damper."""
        self._points(name, a, b)
        not_negative(name, k=k, c=c)
        if (k is None) == (force is None):
            raise ModelError(f"spring {name!r}: give either k (and length) or force=f(length)")
        distance = self._line_of_action(name, a, b)
        if force is None:   # linear: the element keeps k and the free length
            return self._add(self.spring_damper(name, a.node, b.node, force=None, c=c,
                                                length=distance if length is None else length,
                                                k=k))
        return self._add(self.spring_damper(name, a.node, b.node, force=force, c=c, length=0))

    @recorded("forces")
    def damper(self, name: str, a: Point, b: Point, c):
        """A translational viscous damper between two points: tension ``c * length'``."""
        self._points(name, a, b)
        not_negative(name, c=c)
        self._line_of_action(name, a, b)
        return self._add(self.spring_damper(name, a.node, b.node, force=None, c=c))

    def initial_pose(self, node: str) -> tuple:
        """A node's pose in the initial (unassembled) pose: ``(x, y, angle)`` in the plane,
        ``(position, rotation matrix)`` in space (:meth:`Body.pose`)."""
        body = self.ground if node == DATUM else self.bodies.get(node)
        if body is not None:
            return body.pose(body.position)
        point = self._point_nodes.get(node)
        if point is None:
            raise UnknownNameError(f"no node {node!r} in mechanism {self.name!r}")
        return point.body.pose(point.position)

    def formulate(self, coordinates: str = "joint", tree: list[str] | None = None,
                  joint_loads: dict | None = None, rotors: dict | None = None,
                  speeds: str = "tail"):
        """The equations of motion: :func:`vecnet.formulate`."""
        return public("formulate")(self, coordinates, tree, joint_loads, rotors, speeds)

    def element_parameters(self) -> dict[str, Any]:
        """``"<element>.<parameter>"`` -> value of every element parameter a parameter study
        (:func:`vecnet.sweep`) may vary by name, as a network's ``"R1.R"``: a body's ``mass``
        and ``inertia`` (in space the entries ``inertia.xx`` ... ``inertia.yz``), a
        spring's ``k``, free ``length`` and ``c``, a damper's ``c``, a rotary spring's
        ``k``, ``c`` and free ``angle``, a contact's ``restitution`` (and its ``mu_kinetic``
        and ``mu_static`` when it has friction)
        (:meth:`~vecnet.elements.base.MechanismElement.study_parameters`), and a beam's
        material and section values (``"rod.E"``, ``"rod.diameter"``,
        :meth:`Beam.study_parameters`).

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("m")
        >>> bob = mech.body("bob", 2.0, 0.1, position=(1, 0))
        >>> _ = mech.spring("k", mech.ground.centre, bob.centre, k=50.0, length=0.5)
        >>> list(mech.element_parameters())
        ['bob.mass', 'bob.inertia', 'k.c', 'k.k', 'k.length']
        >>> float(mech.element_parameters()["k.k"])
        50.0
        """
        return {f"{owner.name}.{name}": value
                for owner in (*self.network.elements, *self.beams.values())
                for name, value in getattr(owner, "study_parameters", dict)().items()}

    def with_symbols(self, names) -> MechanismBuilder:
        """A copy of the mechanism whose element parameters ``names`` (of
        :meth:`element_parameters`, ``"bob.mass"``) are real symbols of those very names,
        for a study to vary them; the mechanism itself is left as it is.

        Raises
        ------
        UnknownNameError
            For a name that is no element parameter; the message lists them.

        >>> import vecnet as vn
        >>> mech = vn.planar.Mechanism("m")
        >>> bob = mech.body("bob", 2.0, 0.1, position=(1, 0))
        >>> mech.with_symbols(["bob.mass"]).network.element("bob").m
        bob.mass
        """
        import copy

        names = [str(name) for name in names]
        known = self.element_parameters()
        unknown = [name for name in names if name not in known]
        if unknown:
            raise UnknownNameError(
                f"mechanism {self.name!r} has no element parameter(s) "
                f"{', '.join(map(repr, unknown))}; its element parameters are "
                f"{', '.join(known) or 'none'}")
        twin = copy.deepcopy(self)
        for name in names:
            owner, _, parameter = name.partition(".")
            symbol = sympy.Symbol(name, real=True)
            if owner in twin.beams:
                twin.beams[owner].set_study_parameter(parameter, symbol, twin.network)
            else:
                twin.network.element(owner).set_study_parameter(parameter, symbol)
        return twin

    def __repr__(self) -> str:
        return (f"<{self.label} {self.name!r}: {len(self.bodies)} bodies, "
                f"{self.network.graph.number_of_edges()} edges>")

    def _repr_svg_(self) -> str | None:
        """The diagram of :func:`vecnet.output.draw.draw` as SVG, for notebooks (``None`` when the
        Graphviz ``dot`` program is missing or the graph is too large to lay out)."""
        repr_svg = later("vecnet.output.draw").repr_svg

        return repr_svg(self)


def pinion_on_its_rack(mesh: str, pinion: str, joint: str, rack: str) -> ModelError:
    """The error for a rack and pinion whose pinion turns on a joint mounted on the rack
    itself: seen from the body that carries its axle the rack does not move, so the mesh
    would lock the pinion to it."""
    return ModelError(f"rack and pinion {mesh!r}: pinion {pinion!r} turns on joint {joint!r}, "
                      f"which is mounted on rack {rack!r} itself; a pinion meshing with the rack "
                      "that carries its axle cannot turn (the mesh would lock it to the rack). "
                      "Mount the pinion's joint on the ground or on a carriage the rack slides "
                      "along, or drop the rack and pinion")


def point_nodes(mechanism) -> set[str]:
    """Names of the mechanism's points: the ground, the mass centres and body points."""
    return {DATUM} | set(mechanism.bodies) | {
        str(v) for v in mechanism.network.graph.nodes if "." in str(v)}


def check_point_pair(mechanism, points: tuple[str, str]) -> None:
    """Refuse a pair of points that are not two points of different bodies (a load between
    points of one body does nothing).

    Raises
    ------
    ModelError
        Naming the missing points, or the body both points are on.
    """
    missing = [p for p in points if p not in point_nodes(mechanism)]
    if missing:
        raise ModelError(f"no point(s) {', '.join(map(repr, missing))} in mechanism "
                         f"{mechanism.name!r}; points are named '<body>.<point>' (e.g. "
                         "'ground.p1') or by their body for the mass centre")
    bodies = {p.split(".")[0] for p in points}
    if len(bodies) == 1:
        raise ModelError(f"points {points[0]!r} and {points[1]!r} are both on "
                         f"{bodies.pop()!r}: their distance never changes")


def sensor_reading(mechanism, name: str) -> tuple:
    """What the sensor ``name`` reads, checked against the mechanism:

    * ``("position", node, i)`` and ``("velocity", node, i)`` for ``"<body>.x"``,
      ``"<body>.vx"`` ... and ``"<point>.x"`` ... (component ``i``; ``x, y`` in the plane,
      ``x, y, z`` in space; points are named ``"<body>.<name>"``);
    * ``("frame", body, quantity)`` for the body frame's quantities the builder lists in
      ``frame_quantities`` (``angle``, ``omega`` in the plane; ``wx, wy, wz`` in space);
    * ``("joint", joint, coordinate, derivative)`` for ``"<joint>.angle"`` or
      ``"<joint>.distance"`` (the joint's coordinates about or along its axis) and their
      rates ``"<joint>.angle'"`` ...; ``"<joint>.rate"`` is the rate of a joint's only such
      coordinate, and ``"<joint>.angle"`` also names a prismatic joint's distance.

    Raises
    ------
    UnknownNameError
        When nothing of the mechanism has the name's first part.
    ModelError
        When it has no such quantity.

    Examples
    --------
    >>> import vecnet as vn
    >>> mech = vn.spatial.Mechanism("m")
    >>> bob = mech.body("bob", 1.0, (0.1, 0.1, 0.1))
    >>> _ = mech.cylindrical("C", mech.ground.centre, bob.centre)
    >>> sensor_reading(mech, "C.distance'"), sensor_reading(mech, "bob.vz")
    (('joint', 'C', 'distance', True), ('velocity', 'bob', 2))
    """
    head, _, what = name.rpartition(".")
    axes = "xyz"[:mechanism.dimensions]
    vectors = "|".join(list(axes) + [f"v{a}" for a in axes])
    is_body, is_point = head in mechanism.bodies, "." in head and head in point_nodes(mechanism)
    if is_body or is_point:
        if what in axes:
            return ("position", head, axes.index(what))
        if what[:1] == "v" and what[1:] in axes:
            return ("velocity", head, axes.index(what[1:]))
        if is_body and what in mechanism.frame_quantities:
            return ("frame", head, what)
        if is_body:
            raise ModelError(f"sensor {name!r}: bodies measure '<body>."
                             f"{vectors}|{'|'.join(mechanism.frame_quantities)}'")
        raise ModelError(f"sensor {name!r}: points measure '<point>.{vectors}'")
    try:
        coordinates = mechanism.axial_coordinates(head)
    except UnknownNameError:
        raise UnknownNameError(f"sensor {name!r}: the mechanism has no joint or body "
                               f"{head!r}") from None
    base, derivative = (what[:-1], True) if what.endswith("'") else (what, False)
    if len(coordinates) == 1 and what == "rate":
        return ("joint", head, coordinates[0], True)
    if len(coordinates) == 1 and base == "angle":   # the older name of a slider's distance
        return ("joint", head, coordinates[0], derivative)
    if base in coordinates:
        return ("joint", head, base, derivative)
    raise ModelError(f"sensor {name!r}: joints measure <joint>.angle or <joint>.distance, "
                     "their rates <joint>.angle' and <joint>.distance', or <joint>.rate ("
                     + mechanism.joints_with("angle") + " joints turn; "
                     + mechanism.joints_with("distance") + " joints slide)"
                     + (f"; {head!r} has {' and '.join(coordinates)}" if coordinates
                        else f"; {head!r} is a {type(mechanism.network.element(head)).__name__}"))
