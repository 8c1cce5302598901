"""The equations of motion of a mechanism, planar or spatial: :func:`formulate`."""

from __future__ import annotations

from typing import Any

from ..errors import FormulationError
from .multibody import MechanismEquations
from .planar import MultibodyEquations
from .spatial import SpatialEquations

__all__ = ["formulate"]


def formulate(mechanism: Any, coordinates: str = "joint",
              tree: list[str] | None = None, joint_loads: dict | None = None,
              rotors: dict | None = None, speeds: str = "tail") -> MechanismEquations:
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
