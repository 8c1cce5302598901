"""A coupled system as the user builds it: a mechanism, a lumped network joined to it by
ports, and signal blocks (:class:`System`); :func:`vecnet.formulate` makes its equations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sympy

from ..core.forwards import public
from ..elements.coupling import Port
from ..elements.signals import Block
from ..errors import ModelError, UnknownNameError
from .mechanism import MechanismBuilder, check_point_pair, sensor_reading
from .network import Network

__all__ = ["System", "load_target"]


def load_target(port: Port):
    """What a port's load works on, as the mechanism's equations name it: a pair of points,
    or ``"<joint>.angle"`` / ``"<joint>.distance"`` (a cylindrical joint has both)."""
    return port.points or f"{port.joint}.{port.coordinate}"


class System:
    """A planar or spatial mechanism, a lumped network joined to it by ports, and signal
    blocks.

    Parameters
    ----------
    mechanism : vn.planar.Mechanism or vn.spatial.Mechanism
    network : Network, optional
        Lumped elements in any domain, with :class:`~vecnet.RotaryPort` and
        :class:`~vecnet.LinearPort` edges tied to joints of the mechanism: a rotary port
        on a revolute joint (in space also a cylindrical one) applies its torque about
        the joint's axis, a linear port on a prismatic (or spatial cylindrical) joint its
        force along the axis, or between two points along the line joining them.
    blocks : sequence of Block
        Signal blocks (:func:`~vecnet.PID`, :func:`~vecnet.Integrator`, ...).
    connect : mapping
        Network input name (``"V.across"``) -> the signal expression that drives it,
        in ``t``, sensors (:meth:`sensor`) and block outputs.

    Raises
    ------
    ModelError
        For a port on a joint the mechanism does not have or of the wrong kind (a
        rotary port on a ball joint, say: the message names the joint), on points that
        are not two points of different bodies, or two ports driving the same coordinate.

    Examples
    --------
    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("wheel", gravity=(0, 0))
    >>> wheel = mech.body("wheel", mass=1.0, inertia=0.5)
    >>> _ = mech.revolute("O", mech.ground.centre, wheel.centre)
    >>> net = vn.Network("drive")
    >>> _ = net.add(vn.TorqueSource("T", "g", "w", T=1.0), vn.RotaryPort("shaft", "g", "w", joint="O"))
    >>> res = vn.System(mech, net).simulate(2.0, t_eval=[2.0])
    >>> round(float(res["O.angle'"][-1]), 9)     # J w' = T: w = 2 * 1.0 / 0.5
    4.0

    The same wheel in space, on a revolute joint about the z axis:

    >>> mech = vn.spatial.Mechanism("wheel", gravity=(0, 0, -9.81))
    >>> wheel = mech.body("wheel", mass=1.0, inertia=(0.3, 0.3, 0.5))
    >>> _ = mech.revolute("O", mech.ground.centre, wheel.centre, axis=(0, 0, 1))
    >>> res = vn.System(mech, net).simulate(2.0, t_eval=[2.0])
    >>> round(float(res["O.angle'"][-1]), 9)
    4.0
    """

    def __init__(self, mechanism: MechanismBuilder, network: Network | None = None,
                 blocks: Sequence[Block] = (), connect: Mapping[str, Any] | None = None) -> None:
        if not isinstance(mechanism, MechanismBuilder):
            raise ModelError("System needs a vn.planar.Mechanism or a vn.spatial.Mechanism, "
                             f"got {type(mechanism).__name__}")
        if network is not None and not isinstance(network, Network):
            raise ModelError(f"System's network must be a vn.Network, got {type(network).__name__}")
        self.mechanism = mechanism
        self.network = network if network is not None else Network("empty")
        self.blocks = tuple(blocks)
        self.connect = dict(connect or {})
        self.ports = [el for el in self.network.elements if isinstance(el, Port)]
        targets = {}
        for port in self.ports:
            if port.points is not None:
                try:
                    check_point_pair(mechanism, port.points)
                except ModelError as exc:
                    raise ModelError(f"port {port.name!r}: {exc}") from None
            else:
                try:
                    coordinates = mechanism.axial_coordinates(port.joint)
                except UnknownNameError:
                    raise ModelError(f"port {port.name!r} names joint {port.joint!r}, which "
                                     f"mechanism {mechanism.name!r} does not have") from None
                if port.coordinate not in coordinates:
                    joint = mechanism.network.element(port.joint)
                    raise ModelError(f"port {port.name!r}: a {type(port).__name__} needs a "
                                     f"{mechanism.joints_with(port.coordinate)} joint; "
                                     f"{port.joint!r} is a {type(joint).__name__}")
            target = load_target(port)
            if target in targets:
                raise ModelError(f"ports {targets[target]!r} and {port.name!r} both drive "
                                 f"{target!r}; join them in the network instead")
            targets[target] = port.name

    def sensor(self, name: str) -> sympy.Symbol:
        """A symbol measuring the mechanism, for signals and blocks: a joint's
        ``"<joint>.angle"`` or ``"<joint>.distance"`` (its coordinate about or along its
        axis: revolute, prismatic and, in space, cylindrical joints), their rates
        ``"<joint>.angle'"`` ... and ``"<joint>.rate"`` (the rate of a joint's only such
        coordinate); a body's mass centre ``"<body>.x|y|vx|vy"`` (in space also ``z``,
        ``vz``) and frame, ``"<body>.angle|omega"`` in the plane, ``"<body>.wx|wy|wz"``
        in space; a point's ``"<point>.x|y|vx|vy"`` (``z``, ``vz`` in space; points are
        named ``"<body>.<name>"``, e.g. ``"crank.p1"``).

        Raises
        ------
        UnknownNameError
            When the mechanism has no joint, body or point of that name.
        ModelError
            When that joint, body or point has no such quantity.
        """
        sensor_reading(self.mechanism, name)
        return sympy.Symbol(name, real=True)

    def formulate(self, coordinates: str = "joint", runtime: Sequence[str] = ()) -> Any:
        """The combined model, a :class:`~vecnet.formulation.coupled.CoupledModel`:
        :func:`vecnet.formulate` (``runtime``: parameters kept as arguments of the compiled
        functions, for a parameter study)."""
        return public("formulate")(self, coordinates, runtime=runtime)

    def simulate(self, t_end: float, coordinates: str = "joint", **options):
        """Formulate and simulate from ``t = 0`` to ``t_end``: ``vn.simulate(system,
        (0, t_end), coordinates=coordinates, **options)`` (:func:`vecnet.simulate`; the
        options are those of :meth:`CoupledModel.simulate`)."""
        return public("simulate")(self, (0.0, t_end), coordinates=coordinates, **options)
