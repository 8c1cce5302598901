"""Ports that join lumped networks to planar and spatial mechanisms.

A port is a lumped edge whose across variable is the rate of a mechanism joint
coordinate and whose through variable is the load the network applies across
that joint, with the passive sign convention of the lumped domains: ``a * tau``
is the power the network delivers to the mechanism through the port.

* :class:`RotaryPort` (rotational domain) on a revolute joint (or a spatial
  cylindrical one): across the relative angular velocity of the joint about its axis,
  through the torque about that axis between the joint's two bodies.
* :class:`LinearPort` (translational domain) on a prismatic joint (or a spatial
  cylindrical one): across the sliding velocity, through the force along the axis; or
  between two points of the mechanism: across the rate at which their distance grows,
  through the force pushing them apart along the line between them (an actuator or
  cylinder without mass).

Inside the lumped formulation a port is an across source driven by the joint
rate; the torque or force it carries becomes a load on the mechanism.
"""

from __future__ import annotations

import sympy

from ..errors import ModelError
from .base import Element, Kind, equation

__all__ = ["RotaryPort", "LinearPort", "Port"]


class Port(Element):
    """Base of ports: an across-source edge of the lumped network tied to a mechanism
    joint or, for a :class:`LinearPort`, to a pair of points."""

    kind = Kind.ACROSS_SOURCE
    driven = "across"
    parameter_names = ("rate",)
    signals = ("rate",)
    #: the joint coordinate the port works on: ``"angle"`` (about the axis) or
    #: ``"distance"`` (along it)
    coordinate: str

    def __init__(self, name: str, tail, head, joint: str | None = None,
                 points: tuple[str, str] | None = None) -> None:
        super().__init__(name, tail, head, rate=sympy.Symbol(f"{name}.rate", real=True))
        if points is None and (not isinstance(joint, str) or not joint):
            raise ModelError(f"{type(self).__name__} {name!r}: name the mechanism joint it "
                             "drives, e.g. joint='P1'")
        self.joint, self.points = joint, points

    @property
    def target(self) -> str | tuple[str, str]:
        """What the port acts on: a joint name, or a pair of point names."""
        return self.points or self.joint

    def terminal_equations(self, variables):
        v = variables[self.edges[0].name]
        return [equation(v.across, self.symbol("rate"))]


class RotaryPort(Port):
    """A rotational edge whose across variable is the angular velocity of revolute ``joint``
    (head body relative to tail body, about the joint's axis) and whose through variable is
    the torque the network applies across that joint. In space the joint may also be
    cylindrical; the torque acts about its axis, on its head body and back on its tail body.

    >>> RotaryPort("shaft", "ref", "w", joint="O").kind.value
    'across source'
    """

    domain = "rotational"
    coordinate = "angle"

    def __init__(self, name: str, tail, head, joint: str) -> None:
        super().__init__(name, tail, head, joint=joint)


class LinearPort(Port):
    """A translational edge whose across variable is the sliding velocity of prismatic
    ``joint`` (or spatial cylindrical) and whose through variable is the force along its
    axis; or, with
    ``points=(a, b)`` instead, the rate at which the distance from point ``a`` to point
    ``b`` grows and the force pushing them apart. Points are named as the mechanism
    names their nodes (``"boom.p2"``, ``"ground.p1"``, a body's name for its mass
    centre) or given as :class:`~vecnet.planar.Point` or :class:`~vecnet.spatial.Point`
    objects.

    >>> LinearPort("cylinder", "ref", "x", points=("ground.p1", "boom.p2")).target
    ('ground.p1', 'boom.p2')
    """

    domain = "translational"
    coordinate = "distance"

    def __init__(self, name: str, tail, head, joint: str | None = None, points=None) -> None:
        if (joint is None) == (points is None):
            raise ModelError(f"LinearPort {name!r}: give either joint='S' (a prismatic joint) "
                             "or points=(a, b)")
        if points is not None:
            points = tuple(getattr(p, "node", p) for p in points)
            if (len(points) != 2 or not all(isinstance(p, str) and p for p in points)
                    or points[0] == points[1]):
                raise ModelError(f"LinearPort {name!r}: points must be two different points, "
                                 f"e.g. points=('ground.p1', 'boom.p2'); got {points!r}")
        super().__init__(name, tail, head, joint=joint, points=points)
