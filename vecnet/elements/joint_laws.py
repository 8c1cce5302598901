"""The laws of elements that act in a joint, the same in the plane and in space.

Joint friction, joint limits, gears and racks are written once here; the planar and
spatial elements (:mod:`vecnet.elements.planar`, :mod:`vecnet.elements.spatial`) only
say where the joint's speed, coordinate or axis comes from in their frame algebra.

* :class:`FrictionLaw`: a viscous and a regularised Coulomb part against the joint's
  speed ``v``, ``viscous v + coulomb tanh(v / smoothing)``.
* :class:`StopLaw`: unilateral stops on a joint's coordinate, struck with Newton's
  law of impact (coefficient of restitution).
* :class:`MeshLaw`: two motions in a fixed ratio, ``turn_b + c_a turn_a = 0`` (gears,
  rack and pinion), with the efforts its multiplier carries to the two bodies.
"""

from __future__ import annotations

import sympy

__all__ = ["friction", "FrictionLaw", "StopLaw", "MeshLaw"]


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


class FrictionLaw:
    """What joint friction elements of both dimensions share: the coefficients
    ``viscous``, ``coulomb`` and ``smoothing`` (sympy numbers or symbols) and
    :meth:`magnitude`."""

    viscous: sympy.Expr
    coulomb: sympy.Expr
    smoothing: sympy.Expr

    def _friction(self, viscous, coulomb, smoothing) -> None:
        self.viscous, self.coulomb, self.smoothing = (
            sympy.sympify(v) for v in (viscous, coulomb, smoothing))

    def magnitude(self, speed):
        """The friction force or torque at the joint speed ``speed`` (:func:`friction`)."""
        return friction(speed, self.viscous, self.coulomb, self.smoothing)


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
