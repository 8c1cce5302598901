"""The equations of a mechanism, planar or spatial, or of a coupled system: :func:`formulate`."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from ..builders.system import System
from ..errors import FormulationError
from .coupled import CoupledModel
from .multibody import MechanismEquations
from .planar import MultibodyEquations
from .spatial import SpatialEquations

__all__ = ["formulate", "system_model"]


@functools.singledispatch
def formulate(mechanism: Any, coordinates: str = "joint",
              tree: list[str] | None = None, joint_loads: dict | None = None,
              rotors: dict | None = None, speeds: str = "tail") -> MechanismEquations | CoupledModel:
    """The equations of motion of ``mechanism``: a :class:`vecnet.formulation.planar.MultibodyEquations`
    or :class:`vecnet.formulation.spatial.SpatialEquations`. ``coordinates`` picks the
    tree (``"joint"``: joints before bodies, ``"absolute"``: bodies first) unless
    ``tree`` lists its branches; ``joint_loads`` (target -> symbol) and ``rotors``
    (joint -> inertia) are what a lumped network coupled by ports adds
    (:class:`vecnet.System` passes them). In space, ``speeds="body"`` takes the angular
    speeds of free bodies and ball joints in the head body's own axes (Euler's
    equations) instead of the tail's (``"tail"``, world axes on the ground); in the
    plane angular speeds are numbers and ``speeds`` stays ``"tail"``.

    Raises
    ------
    FormulationError
        For ``speeds`` other than ``"tail"`` or ``"body"``, or ``"body"`` in the plane.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.0, position=(0, -1))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    >>> vn.formulate(mech).coordinates
    ('pin.angle',)
    """
    if mechanism.dimensions == 2:
        if speeds != "tail":
            raise FormulationError(f"speeds={speeds!r}: a planar mechanism's angular "
                                   "speeds are numbers about z, the same in every axes; "
                                   "speeds='body' is for spatial mechanisms")
        return MultibodyEquations(mechanism, coordinates=coordinates, tree=tree,
                                  joint_loads=joint_loads, rotors=rotors)
    return SpatialEquations(mechanism, coordinates=coordinates, tree=tree,
                            joint_loads=joint_loads, rotors=rotors, speeds=speeds)


@formulate.register
def system_model(system: System, coordinates: str = "joint",
                 runtime: Sequence[str] = ()) -> CoupledModel:
    """The combined model of a coupled ``system``: the mechanism's equations for
    ``coordinates`` with the network's and the blocks' state equations
    (:class:`~vecnet.formulation.coupled.CoupledModel`); ``runtime`` names parameters kept
    as arguments of the compiled functions, for a parameter study.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("wheel", gravity=(0, 0))
    >>> wheel = mech.body("wheel", mass=1.0, inertia=0.5)
    >>> _ = mech.revolute("O", mech.ground.centre, wheel.centre)
    >>> net = vn.Network("drive")
    >>> _ = net.add(vn.TorqueSource("T", "g", "w", T=1.0), vn.RotaryPort("shaft", "g", "w", joint="O"))
    >>> vn.formulate(vn.System(mech, net)).eom.coordinates
    ('O.angle',)
    """
    return CoupledModel(system, coordinates, runtime)
