"""Pictures and animations of planar and spatial mechanisms.

One drawing serves both dimensions: a mechanism whose nodes all stay in the plane
z = 0 (every planar mechanism, and a spatial one that moves in that plane) is drawn in
2-D axes, any other in 3-D axes. What is drawn:

* each body as the segments from its mass centre to each of its named points, in the
  body's colour (:data:`vecnet.output.palette.BODY_COLOURS`; in 2-D a body with three or more
  points is also filled in lightly); a body with a single named point, at distance
  ``d`` from its mass centre, is drawn as a link through the mass centre to the
  point's mirror image when its moment of inertia across that line is at least half
  that of a uniform rod of length ``2 d`` (``J >= m d^2 / 6``; the rod has
  ``m d^2 / 3``), and as a bob on a stick, from the point to the mass centre, otherwise
  (a point mass has ``J`` near 0);
* the named points as small dots, the mass centre as a half-filled circle;
* the ground's points as grey squares;
* each joint by its type, with the colour and marker of :data:`vecnet.output.palette.JOINT_STYLES`
  (the same marks as the diagrams of :func:`vecnet.output.draw`), at its head point, joined to
  its tail point when they are apart (a slider), and gear and rack meshes as a dotted
  line between the two bodies' mass centres;
* springs and dampers as dashed grey lines.

:func:`picture` draws one instant, :func:`animate` gives a matplotlib animation (a GIF,
drawn once a frame over one drawing of the axes by :mod:`vecnet.output.movie`; MP4 when
ffmpeg is installed; shown in a notebook as that GIF, inline), and :func:`animation_svg` an SVG
document that moves by itself, with no script.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

from ..builders.mechanism import DATUM, MechanismBuilder
from ..core.rotations import quaternion_matrix
from ..elements import planar as pe
from ..elements import spatial as se
from ..elements.beam import BeamLaw
from ..errors import ModelError, OutputError
from .palette import BEAM_COLOUR, GROUND_COLOUR, SPRING_COLOUR, JointStyle, body_colour, joint_style

__all__ = ["picture", "animate", "animation_svg", "node_positions", "mechanism_of",
           "FRAME_LIMIT", "MAX_FRAMES", "SVG_ELEMENTS"]

#: Frames of an animation when none are asked for and the result has more samples.
FRAME_LIMIT = 200
#: The most frames an animation may have.
MAX_FRAMES = 5000
#: The SVG elements :func:`animation_svg` writes (and nothing else).
SVG_ELEMENTS = ("svg", "title", "rect", "g", "polyline", "polygon", "circle", "line", "text",
                "animate")
#: The view of 3-D pictures (degrees), that of matplotlib's 3-D axes: azimuth, elevation.
VIEW = (-60.0, 30.0)

# marker sizes (points) of the matplotlib pictures
_JOINT_SIZE, _CENTRE_SIZE, _POINT_SIZE = 9, 10, 4


# -- what is drawn, and where it is in each frame -----------------------------------------------
def mechanism_of(obj: Any) -> MechanismBuilder:
    """The planar or spatial mechanism of ``obj``: a mechanism itself, a model read from a
    file (``vn.load_model``) or the equations of a mechanism (``mech.formulate()``).

    Raises
    ------
    ModelError
        ``obj`` holds no mechanism.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("m")
    >>> mechanism_of(mech) is mech
    True
    """
    if isinstance(obj, MechanismBuilder):
        return obj
    for attribute in ("mechanism", "system"):
        inner = getattr(obj, attribute, None)
        if isinstance(inner, MechanismBuilder):
            return inner
    raise ModelError(f"a picture needs a vn.planar or vn.spatial Mechanism (or its model or "
                     f"equations); got {type(obj).__name__}")


def _times(result: Any) -> np.ndarray:
    try:
        t = np.asarray(result.t, dtype=float).ravel()
    except (AttributeError, TypeError, ValueError):
        raise ModelError(f"a picture needs a simulation result (with times .t); got "
                         f"{type(result).__name__}") from None
    if not len(t):
        raise ModelError("the result is empty: it has no samples to draw")
    return t


def _nearest(t: np.ndarray, when: np.ndarray) -> np.ndarray:
    """Index of the sample of ``t`` (ascending) nearest to each time of ``when``."""
    right = np.clip(np.searchsorted(t, when), 1, len(t) - 1) if len(t) > 1 else np.zeros(
        len(when), dtype=int)
    if len(t) == 1:
        return right
    left = right - 1
    return np.where(np.abs(when - t[left]) <= np.abs(t[right] - when), left, right)


def _in_span(t: np.ndarray, when: np.ndarray) -> None:
    tolerance = 1e-12 * max(1.0, abs(t[0]), abs(t[-1]))
    bad = [w for w in when if not (np.isfinite(w) and t[0] - tolerance <= w <= t[-1] + tolerance)]
    if bad:
        raise ModelError(f"time {bad[0]:g} is outside the result's span ({t[0]:g}, {t[-1]:g})")


def _frame_times(t: np.ndarray, frames: int | Sequence[float] | None) -> np.ndarray:
    """The times of the frames: every sample (up to :data:`FRAME_LIMIT`, else that many
    evenly spaced), ``frames`` evenly spaced times over the span, or the times given."""
    if frames is None:
        return t.copy() if len(t) <= FRAME_LIMIT else np.linspace(t[0], t[-1], FRAME_LIMIT)
    if isinstance(frames, (int, np.integer)) and not isinstance(frames, bool):
        if not 1 <= frames <= MAX_FRAMES:
            raise OutputError(f"frames must be between 1 and {MAX_FRAMES}; got {frames}")
        return np.linspace(t[0], t[-1], int(frames)) if frames > 1 else t[-1:].copy()
    try:
        when = np.asarray(frames, dtype=float).ravel()
    except (TypeError, ValueError):
        raise OutputError(f"frames is a number of frames or a list of times; got "
                          f"{frames!r}") from None
    if not 1 <= len(when) <= MAX_FRAMES:
        raise OutputError(f"give between 1 and {MAX_FRAMES} frame times; got {len(when)}")
    _in_span(t, when)
    return when


def _rotation_z(angle: np.ndarray) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    R = np.zeros((len(angle), 3, 3))
    R[:, 0, 0], R[:, 0, 1], R[:, 1, 0], R[:, 1, 1], R[:, 2, 2] = c, -s, s, c, 1.0
    return R


def _poses(mech: MechanismBuilder, result: Any, index: np.ndarray | None
           ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Body name (and the ground) -> (origins n x 3, rotations n x 3 x 3) at the samples
    ``index`` of ``result``, or in the initial pose (n = 1) without a result."""
    n = 1 if index is None else len(index)
    poses = {DATUM: (np.zeros((n, 3)), np.broadcast_to(np.eye(3), (n, 3, 3)))}
    planar = mech.dimensions == 2
    bodies: dict[str, Any] = mech.bodies   # planar or spatial bodies
    for name, body in bodies.items():
        if index is None:
            if planar:
                origin = np.array([[*body.position, 0.0]])
                R = _rotation_z(np.array([float(body.angle)]))
            else:
                origin, R = np.asarray(body.position, dtype=float)[None, :], np.asarray(body.R)[None]
        else:
            try:
                if planar:
                    origin = np.column_stack([np.asarray(result[f"{name}.x"], float)[index],
                                              np.asarray(result[f"{name}.y"], float)[index],
                                              np.zeros(n)])
                    R = _rotation_z(np.asarray(result[f"{name}.angle"], float)[index])
                else:
                    origin = np.asarray(result[f"{name}.position"], float)[index]
                    q = np.asarray(result[f"{name}.orientation"], float)[index]
                    q = q / np.linalg.norm(q, axis=1, keepdims=True)
                    R = np.moveaxis(quaternion_matrix(tuple(q.T)), -1, 0)
            except (LookupError, IndexError, ValueError):
                raise ModelError(f"the result has no pose of body {name!r}: is it a "
                                 f"simulation of mechanism {mech.name!r}?") from None
        poses[name] = (np.asarray(origin, float).reshape(n, 3), np.asarray(R, float))
    return poses


def _local(point_local: Sequence[float]) -> np.ndarray:
    v = np.zeros(3)
    v[:len(point_local)] = [float(x) for x in point_local]
    return v


def _link_end(body: Any) -> np.ndarray | None:
    """Body coordinates of the far end of a one-point link (the named point mirrored at
    the mass centre), or None when the body is no link (see the module's notes)."""
    named = [p for p in body.points if any(p.local)]
    if body.mass is None or len(named) != 1:
        return None
    d = _local(named[0].local)
    length = float(np.linalg.norm(d))
    try:
        mass = float(body.mass)
        J = np.asarray(body.inertia, dtype=float)
    except (TypeError, ValueError):
        return -d   # symbolic: take the body to be a link
    if not mass > 0:
        return None
    u = d / length
    across = float(J) if J.ndim == 0 else (float(np.trace(J)) - float(u @ J @ u)) / 2
    return -d if across >= mass * length**2 / 6 else None


@dataclass
class _BodyMarks:
    name: str
    colour: str
    outline: list[Hashable]        # keys of the polyline: point, centre, point, centre, ...
    points: list[Hashable]         # keys of the named points
    hull: list[Hashable] = field(default_factory=list)   # filled outline (2-D)


@dataclass
class _JointMarks:
    name: str
    style: JointStyle
    tail: Hashable
    head: Hashable
    mesh: bool


@dataclass
class _Scene:
    """Everything a picture draws, and the positions of its keys in every frame."""

    name: str
    times: np.ndarray | None       # None: the initial pose
    keys: list[Hashable]
    positions: np.ndarray          # frames x keys x 3
    bodies: list[_BodyMarks]
    ground: list[Hashable]
    joints: list[_JointMarks]
    springs: list[tuple[str, Hashable, Hashable]]
    # beam elements: name and the keys of points along their bent axes, end to end
    beams: list[tuple[str, list[Hashable]]] = field(default_factory=list)
    column: dict[Hashable, int] = field(init=False)   # key -> its column of positions

    def __post_init__(self) -> None:
        self.column = {key: k for k, key in enumerate(self.keys)}

    @property
    def planar(self) -> bool:
        z = self.positions[..., 2]
        scale = max(1.0, float(np.abs(self.positions).max()) if self.positions.size else 1.0)
        return bool(np.all(np.abs(z) <= 1e-9 * scale))

    def at(self, key: Hashable) -> np.ndarray:
        """Positions of ``key`` in every frame (frames x 3)."""
        return self.positions[:, self.column[key]]


def _scene_at(mech: Any, result: Any, time: float | None) -> Any:
    """The scene at ``time`` of ``result`` (default its last sample), or of the initial
    pose without a result."""
    if result is None:
        return _scene(mech, None, None, None)
    t = _times(result)
    when = np.array([t[-1] if time is None else float(time)])
    _in_span(t, when)
    return _scene(mech, result, _nearest(t, when), when)


def _scene(mech: MechanismBuilder, result: Any, index: np.ndarray | None,
           times: np.ndarray | None) -> _Scene:
    poses = _poses(mech, result, index)
    where: dict[Hashable, tuple[str, np.ndarray]] = {DATUM: (DATUM, np.zeros(3))}
    bodies: list[_BodyMarks] = []
    ground: list[Hashable] = []
    built: Any = mech   # a planar or spatial builder: both have a ground
    for body in [built.ground, *mech.bodies.values()]:
        for p in body.points:
            where[p.node] = (body.name, _local(p.local))
        if body.mass is None:
            ground = [p.node for p in body.points]
            continue
        where[body.node] = (body.name, np.zeros(3))
        named = [p.node for p in body.points if any(p.local)]
        outline: list[Hashable] = []       # p1, centre, p2, centre, p3, ...
        for k, node in enumerate(named):
            outline += [body.node, node] if k else [node]
        if len(named) == 1:
            outline.append(body.node)
            end = _link_end(body)
            if end is not None:
                where[("end", body.name)] = (body.name, end)
                outline.append(("end", body.name))
        bodies.append(_BodyMarks(body.name, body_colour(len(bodies)), outline, named))
    joints, springs = [], []
    for element in mech.network.elements:
        edge = element.edges[0]
        style = joint_style(element)
        if style is not None and edge.tail in where and edge.head in where:
            mesh = style.name in ("gear", "rack and pinion")
            joints.append(_JointMarks(element.name, style, edge.tail, edge.head, mesh))
        elif isinstance(element, (pe.TranslationalSpringDamper, se.SpatialSpringDamper)) \
                and edge.tail in where and edge.head in where:
            springs.append((element.name, edge.tail, edge.head))
    keys = list(where)
    n = 1 if index is None else len(index)
    positions = np.empty((n, len(keys), 3))
    for k, key in enumerate(keys):
        body_name, local = where[key]
        origin, R = poses[body_name]
        positions[:, k] = origin + R @ local
    beams, keys, positions = _beam_axes(mech, poses, where, keys, positions)
    scene = _Scene(mech.name, times, keys, positions, bodies, ground, joints, springs, beams)
    if scene.planar:
        for marks in bodies:
            marks.hull = _hull(scene, marks.points)
    return scene


#: the points drawn along each beam element, ends included
BEAM_POINTS = 9


def _beam_axes(mech: MechanismBuilder, poses: dict, where: dict, keys: list[Hashable],
               positions: np.ndarray) -> tuple[list, list[Hashable], np.ndarray]:
    """Each beam element's axis as its inertia sees it, the cubic through its nodes'
    origins with their x axes for tangents (:mod:`vecnet.numerics.beams`), sampled at
    :data:`BEAM_POINTS`: ``(beams, keys, positions)`` with the samples' keys and
    positions appended."""
    xi = np.linspace(0.0, 1.0, BEAM_POINTS)
    shape = np.array([1 - 3 * xi**2 + 2 * xi**3, xi - 2 * xi**2 + xi**3,
                      3 * xi**2 - 2 * xi**3, -xi**2 + xi**3])      # Hermite: 4 x points
    beams: list[tuple[str, list[Hashable]]] = []
    extra: list[np.ndarray] = []
    for element in mech.network.elements:
        if not isinstance(element, BeamLaw):
            continue
        edge = element.edges[0]
        (r1, R1), (r2, R2) = poses[where[edge.tail][0]], poses[where[edge.head][0]]
        ends = np.stack([r1, element.length * R1[:, :, 0], r2, element.length * R2[:, :, 0]])
        extra.append(np.einsum("ip,ifk->fpk", shape, ends))        # frames x points x 3
        beams.append((element.name, [("beam", element.name, j) for j in range(BEAM_POINTS)]))
    if not beams:
        return [], keys, positions
    new_keys = keys + [key for _, points in beams for key in points]
    return beams, new_keys, np.concatenate([positions, *extra], axis=1)


def _hull(scene: _Scene, keys: list[Hashable]) -> list[Hashable]:
    """The points of ``keys`` that span the body's outline in the plane, in order round it
    (from the first frame: a rigid motion in the plane keeps the order); [] for fewer than
    three points or points on a line."""
    if len(keys) < 3:
        return []
    xy = np.array([scene.at(k)[0, :2] for k in keys])
    order = sorted(range(len(keys)), key=lambda i: (xy[i, 0], xy[i, 1]))

    def cross(o: int, a: int, b: int) -> float:
        return float((xy[a, 0] - xy[o, 0]) * (xy[b, 1] - xy[o, 1])
                     - (xy[a, 1] - xy[o, 1]) * (xy[b, 0] - xy[o, 0]))

    lower: list[int] = []
    upper: list[int] = []
    for i in order:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], i) <= 0:
            lower.pop()
        lower.append(i)
    for i in reversed(order):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], i) <= 0:
            upper.pop()
        upper.append(i)
    ring = lower[:-1] + upper[:-1]
    return [keys[i] for i in ring] if len(ring) >= 3 else []


def _select(mechanism: Any, result: Any, frames: Any) -> tuple[MechanismBuilder, _Scene]:
    mech = mechanism_of(mechanism)
    if result is None:
        return mech, _scene(mech, None, None, None)
    t = _times(result)
    when = _frame_times(t, frames)
    return mech, _scene(mech, result, _nearest(t, when), when)


# -- node positions ------------------------------------------------------------------------------
def node_positions(mechanism: Any, result: Any = None,
                   time: float | None = None) -> dict[str, np.ndarray]:
    """World positions of every node (mass centres and points) of a planar or spatial
    mechanism: ``(x, y)`` for a planar mechanism, ``(x, y, z)`` for a spatial one.

    Parameters
    ----------
    mechanism : vn.planar.Mechanism, vn.spatial.Mechanism, or its model or equations
    result : Result, optional
        A simulation of the mechanism. Without it: the initial pose.
    time : float, optional
        With ``result``: the sample nearest to this time (default: the last).

    Returns
    -------
    dict
        Node name -> position (numpy array).

    Raises
    ------
    ModelError
        No mechanism, a result without the bodies' poses, or ``time`` outside its span.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("m")
    >>> b = mech.body("b", 1.0, 0.1, position=(1, 0), angle=1.5707963267948966)
    >>> tip = b.point(1, 0, name="tip")
    >>> [round(float(x), 9) for x in node_positions(mech)[tip.node]]
    [1.0, 1.0]
    """
    mech = mechanism_of(mechanism)
    scene = _scene_at(mech, result, time)
    size = mech.dimensions
    return {key: scene.positions[0, k, :size].copy() for k, key in enumerate(scene.keys)
            if isinstance(key, str)}


# -- matplotlib ----------------------------------------------------------------------------------
def _three_d(ax: Any) -> bool:
    return hasattr(ax, "get_zlim")


def _axes(scene: _Scene, ax: Any) -> tuple[Any, bool, bool]:
    """The axes to draw on, whether they are 3-D, and whether this function made them."""
    import matplotlib.pyplot as plt

    if ax is None:
        if scene.planar:
            return plt.figure(figsize=(6, 6)).add_subplot(), False, True
        return plt.figure(figsize=(6, 6)).add_subplot(projection="3d"), True, True
    if not _three_d(ax) and not scene.planar:
        raise OutputError(f"mechanism {scene.name!r} moves out of the plane z = 0: draw it "
                          "on 3-D axes (projection='3d'), or leave ax=None")
    return ax, _three_d(ax), False


def _limits(ax: Any, positions: np.ndarray, three_d: bool) -> None:
    points = positions.reshape(-1, 3)
    centre = (points.max(axis=0) + points.min(axis=0)) / 2
    half = max(float(np.ptp(points, axis=0).max()) / 2, 1e-3) * 1.15
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(centre[1] - half, centre[1] + half)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    if three_d:
        ax.set_zlim(centre[2] - half, centre[2] + half)
        ax.set_zlabel("z")
        ax.set_box_aspect((1, 1, 1))
    else:
        ax.set_aspect("equal")


class _Artists:
    """The matplotlib artists of a scene, moved to frame ``k`` by :meth:`show`."""

    def __init__(self, scene: _Scene, ax: Any, three_d: bool) -> None:
        from matplotlib.lines import Line2D
        from matplotlib.patches import Polygon

        self.scene, self.ax, self.three_d = scene, ax, three_d
        self.lines: list[tuple[Any, list[Hashable]]] = []
        self.labels: list[tuple[Any, Hashable]] = []
        self.patches: list[tuple[Any, list[Hashable]]] = []
        legend: dict[str, Any] = {}
        ax.set_title(scene.name)

        def line(keys: list[Hashable], gid: str, **style: Any) -> None:
            empty: list[list[float]] = [[] for _ in range(3 if three_d else 2)]
            (artist,) = ax.plot(*empty, gid=gid, **style)
            self.lines.append((artist, keys))

        for name, tail, head in scene.springs:
            line([tail, head], f"spring:{name}", color=SPRING_COLOUR, linestyle="--",
                 linewidth=1, zorder=1)
        for name, points in scene.beams:
            line(points, f"beam:{name}", color=BEAM_COLOUR, linewidth=3,
                 solid_capstyle="round", zorder=2)
        for marks in scene.bodies:
            if marks.hull and not three_d:
                patch = Polygon(np.zeros((len(marks.hull), 2)), closed=True, alpha=0.18,
                                facecolor=marks.colour, edgecolor="none", zorder=1,
                                gid=f"outline:{marks.name}")
                ax.add_patch(patch)
                self.patches.append((patch, marks.hull))
            line(marks.outline, f"body:{marks.name}", color=marks.colour, linewidth=4,
                 solid_capstyle="round", zorder=2)
            line(marks.points, f"points:{marks.name}", color=marks.colour, linestyle="none",
                 marker="o", markersize=_POINT_SIZE, markeredgecolor="black",
                 markeredgewidth=0.5, zorder=3)
            line([marks.name], f"centre:{marks.name}", linestyle="none", marker="o",
                 markersize=_CENTRE_SIZE, fillstyle="top", color=marks.colour,
                 markerfacecoloralt="white", markeredgecolor="black", zorder=4)
            label = (ax.text(0, 0, 0, f"  {marks.name}", fontsize=8) if three_d
                     else ax.text(0, 0, f"  {marks.name}", fontsize=8))
            self.labels.append((label, marks.name))
        if scene.ground:
            line(scene.ground, "ground", linestyle="none", marker="s", markersize=7,
                 color=GROUND_COLOUR, markeredgecolor="black", zorder=3)
            legend["ground point"] = Line2D([], [], linestyle="none", marker="s", markersize=7,
                                            color=GROUND_COLOUR, markeredgecolor="black")
        if scene.bodies:
            legend["mass centre"] = Line2D([], [], linestyle="none", marker="o",
                                           markersize=_CENTRE_SIZE, fillstyle="top",
                                           color="black", markerfacecoloralt="white")
        for joint in scene.joints:
            style = joint.style
            marker: dict[str, Any] = dict(marker=style.marker, markersize=_JOINT_SIZE,
                          markerfacecolor=style.colour if style.filled else "white",
                          markeredgecolor=style.colour, markeredgewidth=2)
            line([joint.tail, joint.head], f"joint:{joint.name}", color=style.colour,
                 linewidth=1.5, linestyle=":" if joint.mesh else "-", zorder=5)
            line([joint.head if not joint.mesh else ("mid", joint.name)],
                 f"joint-mark:{joint.name}", linestyle="none", zorder=6, **marker)
            legend.setdefault(f"{style.name} joint" if not joint.mesh else style.name,
                              Line2D([], [], linestyle="none", **marker))
        if legend:
            ax.legend(legend.values(), legend.keys(), fontsize=7, loc="upper left",
                      framealpha=0.8)

    def position(self, key: Hashable, k: int) -> np.ndarray:
        if isinstance(key, tuple) and key[0] == "mid":
            joint = next(j for j in self.scene.joints if j.name == key[1])
            return (self.position(joint.tail, k) + self.position(joint.head, k)) / 2
        return self.scene.positions[k, self.scene.column[key]]

    def show(self, k: int) -> list[Any]:
        """Move every artist to frame ``k``; returns them."""
        for artist, keys in self.lines:
            xyz = np.array([self.position(key, k) for key in keys]).reshape(-1, 3).T
            if self.three_d:
                artist.set_data_3d(*xyz)
            else:
                artist.set_data(xyz[0], xyz[1])
        for patch, keys in self.patches:
            patch.set_xy(np.array([self.position(key, k)[:2] for key in keys]))
        for label, key in self.labels:
            x, y, z = self.position(key, k)
            if self.three_d:
                label.set_position_3d((x, y, z))
            else:
                label.set_position((x, y))
        scene = self.scene
        # the text only: set_title of 3-D axes also lowers the title, each time it is called
        self.ax.title.set_text(scene.name if scene.times is None
                               else f"{scene.name} at t = {self.clock[k]}")
        return self.moving()

    @cached_property
    def clock(self) -> list[str]:
        """Each frame's time as its title reads it: ``0.251 s``, to the digits the frames'
        spacing tells apart (not ``0.251256``)."""
        return time_labels(self.scene.times)

    def moving(self) -> list[Any]:
        """The artists :meth:`show` changes (the title aside)."""
        return ([a for a, _ in self.lines] + [p for p, _ in self.patches]
                + [label for label, _ in self.labels])


def picture(mechanism: Any, result: Any = None, time: float | None = None, ax: Any = None) -> Any:
    """Draw a planar or spatial mechanism in its initial pose, or as ``result`` has it at
    ``time``; returns the matplotlib axes (2-D when the mechanism stays in the plane
    z = 0, else 3-D; given ``ax``, those).

    Every artist has a ``gid`` that says what it is: ``"body:<name>"`` (the segments from
    the mass centre to the points, as one line), ``"points:<name>"``, ``"centre:<name>"``,
    ``"outline:<name>"`` (the filled outline of a 2-D body), ``"ground"``,
    ``"joint:<name>"`` (tail to head), ``"joint-mark:<name>"`` and ``"spring:<name>"``.

    Parameters
    ----------
    mechanism : vn.planar.Mechanism, vn.spatial.Mechanism, or its model or equations
    result : Result, optional
        A simulation of the mechanism; without it, the initial pose is drawn.
    time : float, optional
        The instant (the nearest sample; default the last).
    ax : matplotlib axes, optional
        Where to draw; 2-D axes only for a mechanism that stays in the plane z = 0.

    Returns
    -------
    matplotlib.axes.Axes
        Titled ``"<name> at t = <time>"`` (just the name without a result).

    Raises
    ------
    ModelError
        No mechanism, a result without the bodies' poses, or ``time`` outside its span.
    OutputError
        2-D axes for a mechanism that leaves the plane.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("pendulum")
    >>> bob = mech.body("bob", 1.0, 0.01, position=(0, -1))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    >>> ax = picture(mech, mech.formulate().simulate(0.5), time=0.5)
    >>> ax.get_title(), ax.name
    ('pendulum at t = 0.5 s', 'rectilinear')
    """
    mech = mechanism_of(mechanism)
    scene = _scene_at(mech, result, time)
    ax, three_d, made = _axes(scene, ax)
    try:
        _Artists(scene, ax, three_d).show(0)
        _limits(ax, scene.positions, three_d)
    except Exception:
        if made:
            import matplotlib.pyplot as plt

            plt.close(ax.figure)
        raise
    return ax


def time_labels(times: Sequence[float] | np.ndarray | None) -> list[str]:
    """Times in seconds written to the decimals their spacing needs, no more: a frame a
    millisecond reads ``0.251 s``, a frame a tenth ``0.3 s``.

    >>> time_labels([0.0, 0.2512562814, 0.5025125628])
    ['0.0 s', '0.3 s', '0.5 s']
    >>> time_labels([0.5])
    ['0.5 s']
    """
    values = np.asarray(() if times is None else times, dtype=float).ravel()
    steps = np.diff(values)
    steps = steps[steps > 0]
    if not steps.size:
        return [f"{t:g} s" for t in values]
    decimals = max(1, int(math.ceil(-math.log10(float(np.min(steps))) - 1e-9)))
    return [f"{t:.{decimals}f} s" for t in values]


def animate(mechanism: Any, result: Any, frames: int | Sequence[float] | None = None,
            interval: float = 50.0, ax: Any = None,
            progress: Callable[[float], Any] | bool | None = None) -> Any:
    """An animation of a simulated planar or spatial mechanism, drawn as :func:`picture`.

    Parameters
    ----------
    mechanism : vn.planar.Mechanism, vn.spatial.Mechanism, or its model or equations
    result : Result
        A simulation of the mechanism.
    frames : int or list of float, optional
        How many frames (1 to :data:`MAX_FRAMES`), evenly spaced over the result's span,
        or their times; each frame shows the sample nearest to its time. Default: every
        sample, or :data:`FRAME_LIMIT` evenly spaced ones when there are more.
    interval : float
        Milliseconds between frames (a GIF or MP4 saved without ``fps`` plays at
        ``1000 / interval`` frames a second).
    ax : matplotlib axes, optional
        Where to draw (as for :func:`picture`).
    progress : callable or bool, optional
        How far each ``save`` (and ``to_jshtml()``) has got: a function called with the
        share of the frames done, rising to 1 once the file is written, or ``True`` for a
        tqdm progress bar over the frames (needs tqdm). Default: nothing is shown.

    Returns
    -------
    matplotlib.animation.FuncAnimation
        A subclass, :class:`vecnet.output.movie.MechanismAnimation`:
        ``.save("m.gif")`` (or ``writer="pillow"``) writes a GIF, each frame drawn once
        over one drawing of the axes (the pixels of a full drawing, one palette for all
        frames: a 200-frame GIF of a simple mechanism takes a few seconds);
        ``.save("m.mp4")`` an MP4 (needs ffmpeg), ``.to_jshtml()`` an HTML player with
        controls, both through matplotlib's writers; a notebook shows it as its GIF,
        inline (``_repr_html_``). Saving leaves the figure on the last frame.

    Raises
    ------
    ModelError
        No mechanism, or a result without the bodies' poses.
    OutputError
        A bad ``frames``, ``interval`` or ``progress``, or 2-D axes for a mechanism that
        leaves the plane; when saving a GIF, a bad ``fps`` or ``dpi``.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import os, tempfile
    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("pendulum")
    >>> bob = mech.body("bob", 1.0, 0.01, position=(1, 0))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    >>> shares = []
    >>> movie = animate(mech, mech.formulate().simulate(1.0), frames=5, progress=shares.append)
    >>> movie.save(os.path.join(tempfile.mkdtemp(), "pendulum.gif"), dpi=30)
    >>> shares
    [0.2, 0.4, 0.6, 0.8, 1.0]
    >>> movie.to_jshtml().count("data:image/png;base64")
    5
    """
    from .movie import MechanismAnimation

    if result is None:
        raise ModelError("an animation needs a simulation result; for the initial pose "
                         "draw a picture")
    if isinstance(interval, bool) or not (isinstance(interval, (int, float))
                                          and math.isfinite(interval) and interval > 0):
        raise OutputError(f"interval is a number of milliseconds above zero; got {interval!r}")
    if not (progress is None or isinstance(progress, bool) or callable(progress)):
        raise OutputError(f"progress is a function of the share of the frames done, or True "
                          f"for a progress bar; got {progress!r}")
    mech, scene = _select(mechanism, result, frames)
    ax, three_d, made = _axes(scene, ax)
    try:
        artists = _Artists(scene, ax, three_d)
        artists.show(0)
        _limits(ax, scene.positions, three_d)
        return MechanismAnimation(artists, float(interval), progress)
    except Exception:
        if made:
            import matplotlib.pyplot as plt

            plt.close(ax.figure)
        raise


# -- SVG with SMIL animation ---------------------------------------------------------------------
def _project(points: np.ndarray, planar: bool) -> np.ndarray:
    """Screen coordinates (x right, y up) of world points (... x 3): the plane itself, or
    the orthographic view :data:`VIEW`."""
    if planar:
        return points[..., :2]
    azimuth, elevation = (math.radians(a) for a in VIEW)
    right = np.array([-math.sin(azimuth), math.cos(azimuth), 0.0])
    up = np.array([-math.sin(elevation) * math.cos(azimuth),
                   -math.sin(elevation) * math.sin(azimuth), math.cos(elevation)])
    return np.stack([points @ right, points @ up], axis=-1)


def animation_svg(mechanism: Any, result: Any, frames: int = 60, duration: float | None = None,
                  size: int = 480) -> str:
    """An SVG document that shows a simulated mechanism moving, with SVG's own animation
    (SMIL) and no script: for pages under a strict Content-Security-Policy.

    Contract
    --------
    * A complete, self-contained SVG 1.1 document (``<svg xmlns="http://www.w3.org/2000/svg"``
      with ``width``, ``height`` and ``viewBox``): no ``<script>``, no ``<style>`` element
      or ``style`` attribute (colours are presentation attributes), no event handler
      attribute, no ``href`` and no reference to anything outside the document.
    * It uses only the elements of :data:`SVG_ELEMENTS`. The motion is in ``<animate>``
      children of ``<polyline>`` (attribute ``points``), ``<polygon>`` (``points``),
      ``<circle>`` (``cx``, ``cy``), ``<line>`` (``x1``, ``y1``, ``x2``, ``y2``) and of one
      ``<rect>`` (``width``, a time bar), each with the attributes ``attributeName``,
      ``values``, ``keyTimes``, ``dur``, ``calcMode="linear"`` and
      ``repeatCount="indefinite"``.
    * Every ``<animate>`` has exactly ``frames`` values and ``frames`` key times (from 0 to
      1, the frames' times over the span), and the same ``dur``: the picture loops.
    * The attributes outside ``<animate>`` hold the first frame, so a viewer without SMIL
      (or a sanitizer that drops ``<animate>``) shows the initial pose.
    * Names of the mechanism, bodies and joints appear only as escaped text in
      ``<title>`` and ``<text>`` elements.

    The drawing is that of :func:`picture` (same colours and joint marks); a mechanism
    that leaves the plane z = 0 is shown in the orthographic view :data:`VIEW`.

    Parameters
    ----------
    mechanism : vn.planar.Mechanism, vn.spatial.Mechanism, or its model or equations
    result : Result
        A simulation of the mechanism.
    frames : int
        Frames evenly spaced over the result's span (each shows the nearest sample);
        from 2 to 1000.
    duration : float, optional
        Seconds one loop takes; default the simulated time, kept between 1 and 60 s.
    size : int
        Width of the picture in pixels (the height follows the drawing), 100 to 4000.

    Returns
    -------
    str
        The SVG text.

    Raises
    ------
    ModelError
        No mechanism, or a result without the bodies' poses.
    OutputError
        ``frames``, ``duration`` or ``size`` out of range.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("pendulum")
    >>> bob = mech.body("bob", 1.0, 0.01, position=(1, 0))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    >>> text = animation_svg(mech, mech.formulate().simulate(1.0), frames=10)
    >>> "<script" in text, text.count('keyTimes="0;') == text.count("<animate ")
    (False, True)
    """
    if result is None:
        raise ModelError("an animation needs a simulation result")
    if isinstance(frames, bool) or not isinstance(frames, (int, np.integer)) \
            or not 2 <= frames <= 1000:
        raise OutputError(f"frames is a whole number from 2 to 1000; got {frames!r}")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) \
            or not 100 <= size <= 4000:
        raise OutputError(f"size is a whole number of pixels from 100 to 4000; got {size!r}")
    if duration is not None and not (isinstance(duration, (int, float))
                                     and math.isfinite(duration) and duration > 0):
        raise OutputError(f"duration is a number of seconds above zero; got {duration!r}")
    mech, scene = _select(mechanism, result, int(frames))
    return _svg_document(scene, duration, int(size))


def _svg_document(scene: _Scene, duration: float | None, size: int) -> str:
    times = scene.times if scene.times is not None else np.zeros(1)
    span = float(times[-1] - times[0])
    seconds = duration if duration is not None else min(max(span, 1.0), 60.0)
    planar = scene.planar
    screen = _project(scene.positions, planar)                   # frames x keys x 2
    margin, top = 16.0, 24.0
    low, high = screen.reshape(-1, 2).min(axis=0), screen.reshape(-1, 2).max(axis=0)
    extent = max(float((high - low).max()), 1e-9)
    scale = (size - 2 * margin) / extent
    width = float(size)
    height = top + margin + max(float(high[1] - low[1]) * scale, 1.0) + 12.0
    offset = np.array([margin + ((size - 2 * margin) - (high[0] - low[0]) * scale) / 2,
                       top + float(high[1] - low[1]) * scale])

    def pixel(key: Hashable) -> np.ndarray:
        """frames x 2 pixel coordinates of a key (or a joint's midpoint)."""
        if isinstance(key, tuple) and key[0] == "mid":
            joint = next(j for j in scene.joints if j.name == key[1])
            return (pixel(joint.tail) + pixel(joint.head)) / 2
        xy = screen[:, scene.column[key]]
        return np.column_stack([offset[0] + (xy[:, 0] - low[0]) * scale,
                                offset[1] - (xy[:, 1] - low[1]) * scale])

    fractions = (times - times[0]) / span if span > 0 else np.linspace(0, 1, len(times))
    key_times = ";".join(f"{f:.6f}".rstrip("0").rstrip(".") if f else "0" for f in fractions)
    timing = f'keyTimes="{key_times}" dur="{seconds:.6g}s" calcMode="linear" repeatCount="indefinite"'

    def number(v: float) -> str:
        return f"{v:.1f}"

    def animate(attribute: str, values: list[str]) -> str:
        if len(set(values)) == 1 and len(times) > 1 and attribute != "width":
            return ""   # it does not move (a ground point): no animation needed
        return f'<animate attributeName="{attribute}" values="{";".join(values)}" {timing}/>'

    def points_attribute(keys: list[Hashable]) -> tuple[str, str]:
        coords = np.stack([pixel(k) for k in keys], axis=1)          # frames x n x 2
        frames_text = [" ".join(f"{number(x)},{number(y)}" for x, y in frame)
                       for frame in coords]
        return frames_text[0], animate("points", frames_text)

    def circle(key: Hashable, r: float, fill: str, stroke: str, stroke_width: float,
               title: str = "") -> str:
        xy = pixel(key)
        cx, cy = [number(v) for v in xy[:, 0]], [number(v) for v in xy[:, 1]]
        inner = (f"<title>{escape(title)}</title>" if title else "") + animate("cx", cx) \
            + animate("cy", cy)
        return (f'<circle cx="{cx[0]}" cy="{cy[0]}" r="{r:g}" fill="{fill}" stroke="{stroke}" '
                f'stroke-width="{stroke_width:g}">{inner}</circle>')

    def segment(a: Hashable, b: Hashable, colour: str, stroke_width: float, dash: str = "",
                title: str = "") -> str:
        pa, pb = pixel(a), pixel(b)
        parts = {"x1": pa[:, 0], "y1": pa[:, 1], "x2": pb[:, 0], "y2": pb[:, 1]}
        texts = {name: [number(v) for v in values] for name, values in parts.items()}
        dash_attribute = f' stroke-dasharray="{dash}"' if dash else ""
        inner = (f"<title>{escape(title)}</title>" if title else "") + "".join(
            animate(name, values) for name, values in texts.items())
        return (f'<line x1="{texts["x1"][0]}" y1="{texts["y1"][0]}" x2="{texts["x2"][0]}" '
                f'y2="{texts["y2"][0]}" stroke="{colour}" stroke-width="{stroke_width:g}"'
                f'{dash_attribute} stroke-linecap="round">{inner}</line>')

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" '
           f'height="{height:.0f}" viewBox="0 0 {width:g} {height:.0f}" role="img">',
           f"<title>{escape(scene.name)}: t = {times[0]:g} to {times[-1]:g} s</title>",
           f'<rect x="0" y="0" width="{width:g}" height="{height:.0f}" fill="white"/>',
           f'<text x="{margin:g}" y="16" font-family="sans-serif" font-size="13" '
           f'fill="#222222">{escape(scene.name)} (t = {times[0]:g} to {times[-1]:g} s)</text>']
    out.append('<g fill="none">')
    for name, tail, head in scene.springs:
        out.append(segment(tail, head, SPRING_COLOUR, 1.2, "4 3", f"{name} (spring/damper)"))
    for name, keys in scene.beams:   # along the bent axis
        base, moving = points_attribute(keys)
        out.append(f'<polyline points="{base}" stroke="{BEAM_COLOUR}" stroke-width="3" '
                   f'stroke-linecap="round" stroke-linejoin="round" fill="none">'
                   f"<title>{escape(name)} (beam element)</title>{moving}</polyline>")
    for marks in scene.bodies:
        if marks.hull and planar:
            base, moving = points_attribute(marks.hull)
            out.append(f'<polygon points="{base}" fill="{marks.colour}" fill-opacity="0.18" '
                       f'stroke="none">{moving}</polygon>')
        if len(marks.outline) >= 2:
            base, moving = points_attribute(marks.outline)
            out.append(f'<polyline points="{base}" stroke="{marks.colour}" stroke-width="5" '
                       f'stroke-linecap="round" stroke-linejoin="round" fill="none">'
                       f"<title>{escape(marks.name)}</title>{moving}</polyline>")
    out.append("</g>")
    for key in scene.ground:
        xy = pixel(key)[0]
        out.append(f'<rect x="{number(xy[0] - 5)}" y="{number(xy[1] - 5)}" width="10" '
                   f'height="10" fill="{GROUND_COLOUR}" stroke="black" stroke-width="1">'
                   f"<title>{escape(str(key))}</title></rect>")
    for marks in scene.bodies:
        for key in marks.points:
            out.append(circle(key, 2.5, marks.colour, "black", 0.5))
        out.append(circle(marks.name, 5.5, "white", "black", 1.2, f"{marks.name} (mass centre)"))
        out.append(circle(marks.name, 2.8, marks.colour, "none", 0))
    for joint in scene.joints:
        style = joint.style
        kind = style.name if joint.mesh else f"{style.name} joint"
        if joint.tail != joint.head:
            out.append(segment(joint.tail, joint.head, style.colour, 1.5,
                               "2 2" if joint.mesh else ""))
        where = ("mid", joint.name) if joint.mesh else joint.head
        out.append(circle(where, 5, style.colour if style.filled else "white", style.colour, 2,
                          f"{joint.name} ({kind})"))
    bar = [number((width - 2 * margin) * f) for f in fractions]
    out.append(f'<rect x="{margin:g}" y="{height - 8:.1f}" width="{bar[0]}" height="3" '
               f'fill="#999999">{animate("width", bar)}</rect>')
    out.append("</svg>")
    return "\n".join(out)

