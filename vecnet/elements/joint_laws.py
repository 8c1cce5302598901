"""The laws of mechanism elements that are the same in the plane and in space.

Springs and dampers between points, joint friction, joint limits, gears and racks are
written once here; the planar and spatial elements (:mod:`vecnet.elements.planar`,
:mod:`vecnet.elements.spatial`) only say where the joint's speed, coordinate or axis, or
the points' offset, comes from in their frame algebra.

* :class:`SpringDamperLaw`: a tension ``force(length) + c length'`` along the line
  between two points, and the energy the spring stores.

* :class:`FrictionLaw`: a viscous and a regularised Coulomb part against the joint's
  speed ``v``, ``viscous v + coulomb tanh(v / smoothing)``; or, set-valued, a viscous part
  and a Coulomb force that sticks and slips (its numbers in
  :mod:`vecnet.numerics.friction`).
* :class:`StopLaw`: unilateral stops on a joint's coordinate, struck with Newton's
  law of impact (coefficient of restitution).
* :class:`MeshLaw`: two motions in a fixed ratio, ``turn_b + c_a turn_a = 0`` (gears,
  rack and pinion), with the efforts its multiplier carries to the two bodies.
"""

from __future__ import annotations

from typing import Any

import sympy

from ..errors import FormulationError, UnknownNameError

__all__ = ["friction", "SpringDamperLaw", "FrictionLaw", "StopLaw", "MeshLaw"]


def friction(speed, viscous, coulomb, smoothing):
    """The friction force or torque at the joint speed ``speed``:
    ``viscous * speed + coulomb * tanh(speed / smoothing)``. Its power ``f v`` is never
    negative; below ``smoothing`` the Coulomb part fades linearly to zero (a joint held by
    friction creeps at a speed of that order instead of sticking exactly).

    >>> friction(sympy.Symbol("v"), 2, 0, 1)
    2*v
    >>> float(friction(1.0, 0, 3, 1e-3))
    3.0
    """
    return viscous * speed + coulomb * sympy.tanh(speed / smoothing)


class SpringDamperLaw:
    """A spring and damper between two points, acting along the line joining them: the
    tension ``force(length) + c length'`` (``force`` a function of the length, ``None`` for
    a damper alone), zero energy at the free ``length``.

    >>> class Demo(SpringDamperLaw):
    ...     name, edges = "s", ()
    >>> spring = Demo()
    >>> spring._spring(lambda x: 2 * (x - 1), c=0, length=1)
    >>> spring.pull(sympy.Matrix([3, 4]), sympy.zeros(2, 1)).T, spring.stored_energy(
    ...     sympy.Matrix([3, 4]))
    (Matrix([[24/5, 32/5]]), 16)
    """

    name: str
    edges: tuple
    #: the stiffness of a linear spring (``None`` for a force law or a damper alone)
    k: sympy.Expr | None = None

    def _spring(self, force, c, length, k=None) -> None:
        self.force, self.c, self.length = force, sympy.sympify(c), sympy.sympify(length)
        if k is not None:
            # the law reads k and the free length from the element when it is applied, so
            # that a parameter study can make either a symbol (set_study_parameter)
            self.k, self.force = sympy.sympify(k), self.linear_tension

    def linear_tension(self, length):
        """The tension of a linear spring at ``length``: ``k (length - free length)``."""
        return self.k * (length - self.length)

    def study_parameters(self) -> dict:
        """``c``, and for a linear spring ``k`` and the free ``length``."""
        values = {"c": self.c}
        if self.k is not None:
            values.update(k=self.k, length=self.length)
        return values

    def set_study_parameter(self, name: str, value) -> None:
        """Set ``c``, ``k`` or ``length`` (:meth:`study_parameters`)."""
        if name not in self.study_parameters():
            raise UnknownNameError(f"spring or damper {self.name!r} has no parameter "
                                   f"{name!r}; its parameters are "
                                   + ", ".join(self.study_parameters()))
        setattr(self, name, sympy.sympify(value))

    def pull(self, dr: sympy.Matrix, dr_rate: sympy.Matrix) -> sympy.Matrix:
        """The force ``tension * dr / length`` for the offset ``dr`` from the tail point to
        the head point and its rate.

        Raises
        ------
        FormulationError
            When the joints hold the two points at the same place: the line has no
            direction there.
        """
        length = sympy.sqrt(dr.dot(dr))
        if length.is_zero:   # (sympy's nan times a vector would be a scalar nan)
            tail, head = (self.edges[0].tail, self.edges[0].head) if self.edges else ("", "")
            raise FormulationError(
                f"{self.name!r}: its points {tail!r} and {head!r} are held at the same place "
                "(by the joints, in these coordinates), so the line a spring or damper acts "
                "along has no direction; attach it to points that can move apart")
        tension = (self.force(length) if self.force is not None else 0) \
            + self.c * dr.dot(dr_rate) / length
        return tension * dr / length

    def stored_energy(self, dr: sympy.Matrix):
        """The energy stored at the offset ``dr``, zero at the free length (``None`` for a
        damper alone, ``nan`` when the force law has no integral in closed form)."""
        if self.force is None:
            return None
        stretch = sympy.Dummy("s", positive=True)
        energy = sympy.integrate(self.force(stretch),
                                 (stretch, self.length, sympy.sqrt(dr.dot(dr))))
        return energy if not energy.has(sympy.Integral) else sympy.nan


class FrictionLaw:
    """What joint friction elements of both dimensions share: the coefficients
    ``viscous``, ``coulomb`` and ``smoothing`` (sympy numbers or symbols), the Coulomb
    ``law`` and :meth:`magnitude`.

    ``law`` is ``"smooth"`` (``coulomb tanh(v / smoothing)``, a force the element's own law
    gives) or ``"set-valued"``: the joint sticks while the force holding it stays within
    the static limit and slips against the kinetic force otherwise. That force is not a
    function of the state but of the modes and the accelerations, so the element's law
    keeps the viscous part alone and the simulation adds the Coulomb part as a load across
    the joint (:mod:`vecnet.numerics.friction`). Its limits are ``mu_kinetic |N|`` and
    ``mu_static |N|`` (``N`` the joint's reaction force normal to its axis; a turning
    joint's torques are ``radius`` times these), or the fixed forces ``coulomb`` and
    ``coulomb_static`` when no coefficient is given.

    >>> class Demo(FrictionLaw):
    ...     pass
    >>> f = Demo()
    >>> f._friction(0.5, 0, 1e-3)
    >>> f._set_valued("set-valued", mu_kinetic=0.3, mu_static=0.4)
    >>> f.magnitude(sympy.Symbol("v")), f.set_valued, float(f.mu_static)
    (0.5*v, True, 0.4)
    """

    viscous: sympy.Expr
    coulomb: sympy.Expr
    smoothing: sympy.Expr
    #: ``"smooth"`` or ``"set-valued"``
    law: str = "smooth"
    #: the set-valued law's coefficients (``None``: the fixed forces instead) ...
    mu_kinetic: sympy.Expr | None = None
    mu_static: sympy.Expr | None = None
    #: ... its static force limit when fixed, and a turning joint's friction radius
    coulomb_static: sympy.Expr | None = None
    radius: sympy.Expr | None = None

    def _friction(self, viscous, coulomb, smoothing) -> None:
        self.viscous, self.coulomb, self.smoothing = (
            sympy.sympify(v) for v in (viscous, coulomb, smoothing))

    def _set_valued(self, law: str = "smooth", mu_kinetic=None, mu_static=None,
                    coulomb_static=None, radius=None) -> None:
        """Set the Coulomb law (see the class); the builder checks the values."""
        self.law = law

        def number(value):
            return None if value is None else sympy.sympify(value)

        self.mu_kinetic, self.mu_static = number(mu_kinetic), number(mu_static)
        self.coulomb_static, self.radius = number(coulomb_static), number(radius)

    @property
    def set_valued(self) -> bool:
        """Whether the Coulomb part sticks and slips (else it is smoothed)."""
        return self.law == "set-valued"

    def magnitude(self, speed):
        """The friction force or torque at the joint speed ``speed`` (:func:`friction`);
        for the set-valued law its viscous part alone."""
        return friction(speed, self.viscous, 0 if self.set_valued else self.coulomb,
                        self.smoothing)


class StopLaw:
    """What joint stops of both dimensions share: the stopped ``joint`` and its
    ``quantity`` (``"angle"`` or ``"distance"``), the limits ``lower`` and ``upper``
    (``None``: no stop on that side) and the ``restitution``. A stop has no force while
    free, no coordinates and no equality constraint: it acts through the integration's
    events (:class:`vecnet.numerics.multibody.Stop`), so it is always a chord.

    >>> class Demo(StopLaw):
    ...     pass
    >>> stop = Demo()
    >>> stop._limits("pin", "angle", -1.0, None, 0.5)
    >>> [(end, float(stop.gap(0.25, limit, sign))) for limit, sign, end in stop.sides()]
    [('lower', 1.25)]
    """

    cotree_only = True
    name: str
    joint: str
    quantity: str
    lower: float | None
    upper: float | None
    restitution: float

    def _limits(self, joint: str, quantity: str, lower, upper, restitution) -> None:
        self.joint, self.quantity = joint, quantity
        self.lower, self.upper, self.restitution = lower, upper, restitution

    def sides(self) -> list[tuple]:
        """``(limit, sign, "lower" | "upper")`` of every stop given."""
        return [(limit, sign, end) for limit, sign, end in
                ((self.lower, 1, "lower"), (self.upper, -1, "upper")) if limit is not None]

    @staticmethod
    def gap(coordinate, limit, sign):
        """How far the coordinate is from a stop, positive while free: ``coordinate -
        lower`` or ``upper - coordinate``."""
        return sign * (coordinate - limit)


class MeshLaw:
    """Two motions held in a fixed ratio: ``turn_b + c_a turn_a = 0`` with ``turn_a``,
    ``turn_b`` the displacements of the two bodies since the initial pose (angles, or the
    rack's advance). A gear has ``c_a = ratio`` (external teeth: the gears turn opposite
    ways) or ``-ratio`` (internal); a rack and pinion ``c_a = -radius``. Its multiplier
    ``lambda`` is the effort on ``b`` and ``c_a lambda`` that on ``a``.

    >>> class Demo(MeshLaw):
    ...     pass
    >>> gear = Demo()
    >>> gear._mesh(coefficient=2)
    >>> gear.mesh(sympy.Symbol("a"), sympy.Symbol("b")), gear.efforts(1.5)
    (2*a + b, (3.0, 1.5))
    """

    cotree_only = True
    coefficient: sympy.Expr
    #: the names of the efforts on ``a`` and on ``b`` (a rack's is a force)
    efforts_named = ("torque_a", "torque_b")

    def _mesh(self, coefficient) -> None:
        self.coefficient = sympy.sympify(coefficient)

    @staticmethod
    def gear_coefficient(ratio, internal: bool) -> sympy.Expr:
        """``c_a`` of a gear pair of ``ratio`` (pitch radius of ``a`` over that of ``b``)."""
        return (-1 if internal else 1) * sympy.sympify(ratio)

    def mesh(self, turn_a, turn_b):
        """The constraint ``turn_b + c_a turn_a`` (zero when the teeth mesh)."""
        return turn_b + self.coefficient * turn_a

    def efforts(self, multiplier: float, values: dict | None = None) -> tuple[float, float]:
        """The efforts ``(on a, on b)`` (torques; a rack's force along its axis) that the
        multiplier ``multiplier`` of the mesh constraint carries, ``values`` giving the
        parameters of a symbolic coefficient."""
        return float(self.coefficient.xreplace(values or {})) * multiplier, multiplier


class ContactLaw:
    """What unilateral contacts of both dimensions share: a sphere of ``radius`` (0: a
    point; in the plane a disc) centred at ``local`` (body axes, from the mass centre) on
    ``body``, against the plane through ``origin`` with unit ``normal`` (world axes, fixed
    in the ground). The gap is the height of the sphere's lowest point above the plane,

        g(q) = normal . (centre - origin) - radius,

    free while positive. Striking the plane reverses the normal speed times
    ``-restitution``; while closed the contact holds ``g = 0`` with a multiplier, the
    normal force ``N >= 0``, and its friction sticks (``mu_static``) or slips
    (``mu_kinetic``); ``mu_kinetic`` ``None`` is frictionless. Against another body's
    sphere (``other`` that body's name, ``other_local`` the centre in its axes,
    ``other_radius``) the gap is the distance between the centres less both radii and the
    normal is the line of centres (``origin`` and ``normal`` then only those at the
    start); against a plane of another body (``other``, the plane through ``other_local``
    with normal ``other_normal`` in its axes) the plane turns and moves with that body.
    No force while open, no
    coordinates and no equality constraint in the compiled model: it acts through the
    integration's modes (:mod:`vecnet.numerics.contact`), so it is always a chord.

    >>> class Demo(ContactLaw):
    ...     pass
    >>> ball = Demo()
    >>> ball._contact("ball", (0.0, 0.0, 0.0), 0.1, (0, 0, 0), (0, 0, 2), 0.5, None, None)
    >>> ball.normal
    (0.0, 0.0, 1.0)
    """

    cotree_only = True
    #: what a study may vary by ``"<contact>.<name>"``: the restitution, and the friction
    #: coefficients of a contact that has friction
    study_attributes = {"restitution": "restitution", "mu_kinetic": "mu_kinetic",
                        "mu_static": "mu_static"}
    name: str
    body: str
    local: tuple
    radius: Any
    origin: tuple
    normal: tuple
    restitution: Any
    mu_kinetic: Any
    mu_static: Any
    other: str | None
    other_local: tuple
    other_radius: Any
    #: against a plane of another body (``other``): its normal in that body's axes, the
    #: plane through ``other_local``; ``None`` against the ground or a sphere
    other_normal: tuple | None

    def study_parameters(self) -> dict[str, Any]:
        """The restitution, and ``mu_kinetic`` and ``mu_static`` when the contact has
        friction (a frictionless contact does not become a rough one in a study)."""
        return {name: getattr(self, attribute)
                for name, attribute in self.study_attributes.items()
                if getattr(self, attribute) is not None}

    def _contact(self, body: str, local, radius, origin, normal, restitution, mu_kinetic,
                 mu_static, other=None, other_local=(0.0, 0.0, 0.0),
                 other_radius=0.0, other_normal=None) -> None:
        self.other, self.other_radius = other, other_radius
        self.other_local = tuple(float(x) for x in other_local)
        self.other_normal = None if other_normal is None else \
            tuple(float(x) for x in other_normal)
        self.body, self.local, self.radius = body, tuple(float(x) for x in local), radius
        n = [float(x) for x in normal]
        size = sum(x * x for x in n) ** 0.5
        self.origin = tuple(float(x) for x in origin)
        self.normal = tuple(x / size for x in n)
        self.restitution, self.mu_kinetic, self.mu_static = restitution, mu_kinetic, mu_static
