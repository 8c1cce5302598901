"""The catalogue of spatial joints: each kind written once, as one record.

A :class:`JointKind` says everything the stages after the elements need about one kind of
joint: the name a model file and the builder give it, its element class (whose
``motion(q)`` is the symbolic motion and whose ``primitives()`` the constraints of the
joint when it is cut), the direction and further arguments it takes, the branch of the
compiled kernel that moves it (:mod:`vecnet.numerics.tree_kernels`) and how its parameter row
is filled, its style in diagrams and its one-line summary. The kernel's table of kinds,
the file reader, the file schema's joint types, the builder's :meth:`joint`, the palette
and the documentation's joint table all read :data:`JOINTS`; adding a joint is
:func:`register_joint` with a new record (and, for a motion no kernel branch has, that
branch).

The parameter row of a tree branch is :data:`ROW_WIDTH` numbers, laid out by the named
offsets below (a kind uses the ones it needs).

>>> JOINTS["revolute"].coordinates, JOINTS["revolute"].direction
(('angle',), 'axis')
>>> sorted(JOINTS)[:3]
['cylindrical', 'planar_joint', 'point_on_line']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import spatial as se

__all__ = ["JointKind", "JointStyle", "JOINTS", "register_joint", "joint_kind_of",
           "ROW_WIDTH", "AXIS", "R0", "AXIS2", "RHO", "PITCH", "P", "S", "START",
           "TURN_AT", "SLIDES", "ARM", "FREE", "REVOLUTE", "PRISMATIC", "CYLINDRICAL",
           "SCREW", "SPHERICAL", "UNIVERSAL", "PLANAR", "WELD", "LINE", "PLANE", "AFFINE",
           "FREE_BODY", "SPHERICAL_BODY", "LINE_BODY", "PLANE_BODY", "AXIAL",
           "standard_row", "axial_row"]

#: the kernel's branch kinds (:func:`vecnet.numerics.tree_kernels.walk`): ARM an offset,
#: FREE a free body, AFFINE a planar branch (a turn about z and an offset in the x-y plane,
#: both affine in its coordinates), AXIAL a turn about the axis by one coordinate (or
#: none) and an offset linear in the coordinates along fixed directions, the others the
#: joints of their names
ARM, FREE, REVOLUTE, PRISMATIC, CYLINDRICAL, SCREW, SPHERICAL, UNIVERSAL, PLANAR, WELD, \
    LINE, PLANE, AFFINE = range(13)
#: the kinds with a quaternion whose angular speeds are in the head frame's axes (body
#: axes), one for each kind with a quaternion
FREE_BODY, SPHERICAL_BODY, LINE_BODY, PLANE_BODY = range(13, 17)
AXIAL = 17

#: the numbers of a branch's parameter row, and where each of its parts starts: the axis
#: (3), the initial relative rotation R0 (9, row-major), the second axis (3), the arm (3),
#: the pitch (1), the in-plane directions p and s (3 each) and the angle where a screw
#: has not advanced (1). An AFFINE branch keeps its offset in RHO, its angle in PITCH and,
#: for each coordinate m, the offset's and the angle's rates at 3m, 3m+1, 3m+2. An AXIAL
#: branch keeps at TURN_AT the coordinate that turns it (-1: none) and at SLIDES + 3m the
#: direction its offset moves per unit of coordinate m (tail axes).
ROW_WIDTH = 26
AXIS, R0, AXIS2, RHO, PITCH, P, S, START = 0, 3, 12, 15, 18, 19, 22, 25
TURN_AT, SLIDES = 12, 13


@dataclass(frozen=True)
class JointStyle:
    """How one joint type is drawn.

    Attributes
    ----------
    name : str
        The joint type, e.g. ``"revolute"``.
    colour : str
        ``#rrggbb`` colour of the joint's edge (diagram) and marker (picture).
    arrowhead : str
        Graphviz arrowhead of the joint's edge.
    marker : str
        matplotlib marker of the joint in a picture.
    filled : bool
        Whether the marker is filled with the colour (otherwise white inside).
    """

    name: str
    colour: str
    arrowhead: str
    marker: str
    filled: bool


def standard_row(element: se.SpatialJoint, number: Callable[[Any], float]) -> np.ndarray:
    """The parameter row most joints take: the axis and its in-plane directions p and s,
    and the initial relative rotation (``number`` turns a parameter into a float)."""
    row = np.zeros(ROW_WIDTH)
    if element.axis is not None:
        row[AXIS:AXIS + 3] = element.axis
        p, s = se.perpendiculars(element.axis)
        row[P:P + 3], row[S:S + 3] = p, s
    row[R0:R0 + 9] = np.asarray(element.R0, dtype=float).reshape(9)
    return row


def axial_row(element: Any, number: Callable[[Any], float]) -> np.ndarray:
    """The parameter row of an :data:`AXIAL` branch from the element's ``turn_at`` (the
    coordinate that turns it about its axis, or ``None``) and ``slides`` (for each
    coordinate, the direction its offset moves, tail axes, or zero)."""
    row = standard_row(element, number)
    row[TURN_AT] = -1 if element.turn_at is None else element.turn_at
    for m, direction in enumerate(element.slides):
        row[SLIDES + 3 * m:SLIDES + 3 * m + 3] = direction
    return row


def _universal_row(element: se.SpatialUniversal, number: Callable[[Any], float]) -> np.ndarray:
    row = standard_row(element, number)
    row[AXIS2:AXIS2 + 3] = element.axis2
    return row


def _screw_row(element: se.SpatialScrew, number: Callable[[Any], float]) -> np.ndarray:
    row = standard_row(element, number)
    row[PITCH] = number(element.pitch)
    row[START] = element.initial_angle
    return row


@dataclass(frozen=True)
class JointKind:
    """One kind of spatial joint.

    Attributes
    ----------
    name : str
        Its ``type`` in a model file and the name of the builder's method
        (``mech.revolute``, or ``mech.joint(name, ...)`` for a kind the builder has no
        method for).
    element : type
        Its element class (a :class:`~vecnet.elements.spatial.SpatialJoint`): the symbolic
        motion, the coordinates and speeds, the constraints when cut.
    kernel : int
        The compiled kernel's branch that moves it (:data:`REVOLUTE` ... :data:`AXIAL`).
    direction : str or None
        The argument of its direction (``"axis"``, ``"normal"``, ``"axes"``: two), the
        same key in a model file, or ``None``.
    default : tuple or None
        The direction when none is given (world axes).
    options : tuple of str
        Further arguments, numbers or expressions (a screw's ``pitch``), required in a file.
    row : callable
        ``row(element, number)``: its parameter row (:data:`ROW_WIDTH` numbers).
    look : JointStyle
        How diagrams draw it.
    summary : str
        One line for the documentation's joint table.
    """

    name: str
    element: Any   # a SpatialJoint subclass (register_joint checks)
    kernel: int
    direction: str | None = None
    default: tuple | None = None
    options: tuple[str, ...] = ()
    row: Callable[[Any, Callable[[Any], float]], np.ndarray] = standard_row
    look: JointStyle = field(default=JointStyle("joint", "#444444", "odot", "o", False))
    summary: str = ""

    @property
    def coordinates(self) -> tuple[str, ...]:
        """The names of its coordinates (after ``"<joint>."``)."""
        return tuple(self.element.coordinates)

    @property
    def speeds(self) -> tuple[str, ...]:
        """The names of its speeds (after ``"<joint>."``)."""
        return tuple(self.element.speeds)


#: every spatial joint kind by its name, in the order of the documentation's table
JOINTS: dict[str, JointKind] = {}


def register_joint(kind: JointKind) -> JointKind:
    """Add ``kind`` to :data:`JOINTS`; returns it.

    Raises
    ------
    ValueError
        A kind of that name is registered already, or its element is not a
        :class:`~vecnet.elements.spatial.SpatialJoint`.
    """
    if kind.name in JOINTS:
        raise ValueError(f"a joint kind {kind.name!r} is registered already")
    if not (isinstance(kind.element, type) and issubclass(kind.element, se.SpatialJoint)):
        raise ValueError(f"joint kind {kind.name!r}: its element must be a SpatialJoint "
                         f"class, not {kind.element!r}")
    JOINTS[kind.name] = kind
    return kind


def joint_kind_of(element: Any) -> JointKind | None:
    """The kind of a spatial joint element (its most specific class decides), or ``None``
    for an element that is no catalogued joint."""
    by_class: Mapping[type, JointKind] = {kind.element: kind for kind in JOINTS.values()}
    return next((by_class[cls] for cls in type(element).__mro__ if cls in by_class), None)


for _kind in (   # in the order of the legends and of the documentation's table
    JointKind("revolute", se.SpatialRevolute, REVOLUTE, "axis", (0.0, 0.0, 1.0),
              look=JointStyle("revolute", "#d62728", "odot", "o", False),
              summary="turns about the axis through the joined points"),
    JointKind("spherical", se.SpatialSpherical, SPHERICAL,
              look=JointStyle("spherical", "#111111", "dot", "o", True),
              summary="a ball: the points coincide, any relative rotation"),
    JointKind("prismatic", se.SpatialPrismatic, PRISMATIC, "axis", (1.0, 0.0, 0.0),
              look=JointStyle("prismatic", "#7570b3", "obox", "s", False),
              summary="slides along the axis, the relative rotation held"),
    JointKind("cylindrical", se.SpatialCylindrical, CYLINDRICAL, "axis", (0.0, 0.0, 1.0),
              look=JointStyle("cylindrical", "#e7298a", "odotobox", "D", False),
              summary="turns about and slides along the axis"),
    JointKind("screw", se.SpatialScrew, SCREW, "axis", (0.0, 0.0, 1.0), ("pitch",),
              row=_screw_row, look=JointStyle("screw", "#a6761d", "teeodot", "h", False),
              summary="turns about the axis, advancing pitch per radian (a tree branch)"),
    JointKind("universal", se.SpatialUniversal, UNIVERSAL, "axes",
              ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)), row=_universal_row,
              look=JointStyle("universal", "#66a61e", "odotodot", "P", True),
              summary="turns about two perpendicular axes, one in each body"),
    JointKind("planar_joint", se.SpatialPlanarJoint, PLANAR, "normal", (0.0, 0.0, 1.0),
              look=JointStyle("planar", "#e6ab02", "oboxobox", "p", False),
              summary="slides in the plane normal to the normal and turns about it"),
    JointKind("weld", se.SpatialWeld, WELD,
              look=JointStyle("weld", "#6d4c41", "box", "X", True),
              summary="holds the initial relative pose"),
    JointKind("point_on_line", se.SpatialPointOnLine, LINE, "axis", (1.0, 0.0, 0.0),
              look=JointStyle("point on line", "#1f78b4", "invodot", ">", False),
              summary="the head point stays on the line along the axis, free to turn"),
    JointKind("point_on_plane", se.SpatialPointOnPlane, PLANE, "normal", (0.0, 0.0, 1.0),
              look=JointStyle("point on plane", "#b15928", "oinv", "v", False),
              summary="the head point stays in the plane, free to turn"),
):
    register_joint(_kind)
