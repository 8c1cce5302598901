"""Colours and marks shared by the diagrams (:mod:`vecnet.output.draw`) and the pictures and
animations (:mod:`vecnet.output.picture`) of planar and spatial mechanisms.

Each joint type of the two element catalogues (:mod:`vecnet.elements.planar`,
:mod:`vecnet.elements.spatial`) has one :class:`JointStyle`: a colour, a Graphviz
arrowhead for the diagrams and a matplotlib marker for the pictures. A planar revolute
joint and a spatial one look the same; a revolute and a spherical joint do not.

>>> from vecnet.output.palette import JOINT_STYLES
>>> JOINT_STYLES["revolute"].arrowhead, JOINT_STYLES["spherical"].arrowhead
('odot', 'dot')
"""

from __future__ import annotations

from typing import Any

from ..elements import planar as pe
from ..elements import spatial as se
from ..elements.joints import JOINTS, JointStyle, joint_kind_of

__all__ = ["JointStyle", "JOINT_STYLES", "joint_styles", "BODY_COLOURS", "GROUND_COLOUR", "SPRING_COLOUR",
           "BEAM_COLOUR",
           "DOMAIN_COLOURS", "TREE_STYLE", "CHORD_STYLE", "LINK_COLOUR", "LINK_STYLE",
           "DATUM_FILL", "BODY_FILL", "LEGEND_FRAME", "joint_type", "joint_style", "body_colour"]

#: Edge colour of each domain; edges of a bare graph are black.
DOMAIN_COLOURS: dict[str, str] = {
    "electrical": "#1f62b4",     # blue
    "translational": "#2a8a2a",  # green
    "rotational": "#c0392b",     # red
    "fluid": "#138d90",          # teal
    "thermal": "#d4720b",        # orange
    "planar": "#4b3f72",         # indigo
    "spatial": "#4b3f72",        # indigo, as planar: one palette for both dimensions
}

#: DOT attributes of a tree branch (solid, bold), a chord (dashed) and the dotted link
#: between the ports of a transducer: the edges and their legend samples share them, and the
#: TikZ export (:mod:`vecnet.output.tikz`) names its styles after them.
TREE_STYLE: dict[str, str] = {"style": "solid", "penwidth": "2"}
CHORD_STYLE: dict[str, str] = {"style": "dashed", "penwidth": "1"}
LINK_COLOUR = "#555555"
LINK_STYLE: dict[str, str] = {"style": "dotted", "penwidth": "1.5", "color": LINK_COLOUR}
#: Fill of the datum box, fill of a body frame, and the legend's frame.
DATUM_FILL = "#e6e6e6"
BODY_FILL = "#dcdcf0"
LEGEND_FRAME = "#999999"

#: Colours of the bodies of a picture, in the order the bodies were made (then again).
BODY_COLOURS: tuple[str, ...] = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                 "#17becf", "#bcbd22", "#e377c2")
#: Colour of the ground's points.
GROUND_COLOUR = "#7f7f7f"
#: Colour of springs and dampers.
SPRING_COLOUR = "#555555"
#: Colour of beams (flexible bodies), drawn along their bent axes.
BEAM_COLOUR = "#1f4e79"


def joint_styles() -> dict[str, JointStyle]:
    """The style of each joint type, in the order of the legends: the joint catalogue's
    (:data:`vecnet.elements.joints.JOINTS`, a kind registered later included), then the
    planar-only ones, gears, racks and rolling wheels."""
    return {**{kind.look.name: kind.look for kind in JOINTS.values()}, **{s.name: s for s in (
        JointStyle("gear", "#6a3d9a", "crow", "*", True),
        JointStyle("rack and pinion", "#c51b7d", "teecrow", "^", True),
        JointStyle("rolling wheel", "#1b9e77", "dotodot", "8", True),
    )}}


#: :func:`joint_styles` of the joints vecnet ships
JOINT_STYLES: dict[str, JointStyle] = joint_styles()

# element class -> joint type; the most specific class of an element decides (the
# catalogued spatial joints by their records, :func:`joint_type`)
_TYPES: dict[type, str] = {
    pe.Revolute: "revolute", pe.Prismatic: "prismatic", pe.Weld: "weld",
    pe.PointOnLine: "point on line", pe.GearMesh: "gear", pe.RackAndPinion: "rack and pinion",
    se.SpatialGear: "gear", se.SpatialRackAndPinion: "rack and pinion",
    pe.RollingContact: "rolling wheel", se.SpatialRollingContact: "rolling wheel",
}


def joint_type(element: Any) -> str | None:
    """The joint type of a planar or spatial element (a key of :data:`JOINT_STYLES`), or
    ``None`` for an element that is no joint (bodies, arms, springs, loads, drivers).

    >>> import vecnet as vn
    >>> mech = vn.spatial.Mechanism("m")
    >>> b = mech.body("b", 1.0, (1, 1, 1))
    >>> joint_type(mech.spherical("S", mech.ground.point(0, 0, 0), b.centre))
    'spherical'
    """
    kind = joint_kind_of(element)
    if kind is not None:
        return kind.look.name
    for cls in type(element).__mro__:
        if cls in _TYPES:
            return _TYPES[cls]
    return None


def joint_style(element: Any) -> JointStyle | None:
    """The :class:`JointStyle` of ``element``'s joint type, or ``None`` (see
    :func:`joint_type`).

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("m")
    >>> b = mech.body("b", 1.0, 0.1)
    >>> joint_style(mech.revolute("P", mech.ground.point(0, 0), b.centre)).marker
    'o'
    """
    kind = joint_type(element)
    return None if kind is None else joint_styles()[kind]


def body_colour(index: int) -> str:
    """The colour of the ``index``-th body (counting from 0) of a picture.

    >>> body_colour(0) == body_colour(len(BODY_COLOURS))
    True
    """
    return BODY_COLOURS[index % len(BODY_COLOURS)]
