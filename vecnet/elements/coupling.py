"""Ports that join lumped networks to planar mechanisms, and sensors of mechanism motion.

A port is a lumped edge whose across variable is the rate of a mechanism joint
coordinate and whose through variable is the load the network applies across
that joint, with the passive sign convention of the lumped domains: ``a * tau``
is the power the network delivers to the mechanism through the port.

* :class:`RotaryPort` (rotational domain) on a revolute joint: across the
  relative angular velocity of the joint, through the torque across it.
* :class:`LinearPort` (translational domain) on a prismatic joint: across the
  sliding velocity, through the force along the axis.

Inside the lumped formulation a port is an across source driven by the joint
rate; the torque or force it carries becomes a load on the mechanism.
"""

from __future__ import annotations

import sympy

from .base import Element, Kind, equation

__all__ = ["RotaryPort", "LinearPort", "Port"]


class Port(Element):
    """Base of ports: an across-source edge of the lumped network tied to ``joint``."""

    kind = Kind.ACROSS_SOURCE
    driven = "across"
    parameter_names = ("rate",)
    signals = ("rate",)

    def __init__(self, name: str, tail, head, joint: str) -> None:
        if not isinstance(joint, str) or not joint:
            from ..errors import ModelError

            raise ModelError(f"{type(self).__name__} {name!r}: name the mechanism joint it "
                             "drives, e.g. joint='P1'")
        super().__init__(name, tail, head, rate=sympy.Symbol(f"{name}.rate", real=True))
        self.joint = joint

    def terminal_equations(self, variables):
        v = variables[self.edges[0].name]
        return [equation(v.across, self.symbol("rate"))]


class RotaryPort(Port):
    """A rotational edge whose across variable is the angular velocity of revolute ``joint``
    (head body relative to tail body) and whose through variable is the torque the network
    applies across that joint.

    >>> RotaryPort("shaft", "ref", "w", joint="O").kind.value
    'across source'
    """

    domain = "rotational"


class LinearPort(Port):
    """A translational edge whose across variable is the sliding velocity of prismatic
    ``joint`` and whose through variable is the force along its axis."""

    domain = "translational"
