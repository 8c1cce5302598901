"""A 3-D picture of a spatial mechanism at one instant (matplotlib).

Each body is drawn as the rigid arms from its mass centre to its points, joints as black
dots where they join two points, springs and dampers as dashed lines, the ground's points
as grey squares. The pose is the mechanism's initial one, or the one a simulation
:class:`~vecnet.numerics.result.Result` reached at a given time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..elements import spatial as se
from ..errors import ModelError
from ..rotations import quaternion_matrix
from .mechanism import DATUM, Mechanism

__all__ = ["node_positions", "picture"]


def node_positions(mechanism: Mechanism, result: Any = None,
                   time: float | None = None) -> dict[str, np.ndarray]:
    """World positions of every node (mass centres and points) of ``mechanism``.

    Without ``result``: the initial pose. With it: the sample of ``result`` nearest to
    ``time`` (default: the last), from the bodies' ``position`` and ``orientation``.

    Raises
    ------
    ModelError
        ``result`` does not hold the bodies' positions and orientations, or ``time`` is
        outside its span.

    >>> import vecnet as vn
    >>> mech = vn.spatial.Mechanism("m")
    >>> b = mech.body("b", 1.0, (1, 1, 1), position=(0, 0, -1))
    >>> _ = b.point(0, 0, 1, name="top")
    >>> node_positions(mech)["b.top"].tolist()
    [0.0, 0.0, 0.0]
    """
    if not isinstance(mechanism, Mechanism):
        raise ModelError(f"a picture needs a vn.spatial.Mechanism; got {type(mechanism).__name__}")
    poses = {}
    if result is None:
        poses = {name: (body.position, body.R) for name, body in mechanism.bodies.items()}
    else:
        t = np.asarray(result.t)
        when = t[-1] if time is None else float(time)
        if not len(t) or not t[0] - 1e-12 <= when <= t[-1] + 1e-12:
            raise ModelError(f"time {when:g} is outside the result's span "
                             f"({t[0]:g}, {t[-1]:g})" if len(t) else "the result is empty")
        k = int(np.argmin(np.abs(t - when)))
        for name in mechanism.bodies:
            try:
                position = np.asarray(result[f"{name}.position"])[k]
                quaternion = np.asarray(result[f"{name}.orientation"])[k]
            except LookupError:
                raise ModelError(f"the result has no position and orientation of body "
                                 f"{name!r}: is it a simulation of this mechanism?") from None
            poses[name] = (position, quaternion_matrix(quaternion))
    positions: dict[str, np.ndarray] = {DATUM: np.zeros(3)}
    for body in [mechanism.ground, *mechanism.bodies.values()]:
        origin, R = poses.get(body.name, (np.zeros(3), np.eye(3)))
        for point in body.points:
            positions[point.node] = origin + R @ np.asarray(point.local, dtype=float)
        if body.name in poses:
            positions[body.name] = np.asarray(origin, dtype=float)
    return positions


def picture(mechanism: Mechanism, result: Any = None, time: float | None = None, ax=None):
    """Draw ``mechanism`` in 3-D, in its initial pose or as ``result`` has it at ``time``;
    returns the matplotlib 3-D axes.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import vecnet as vn
    >>> mech = vn.spatial.Mechanism("pendulum", gravity=(0, 0, -9.81))
    >>> bob = mech.body("bob", 1.0, (0.01, 0.01, 0.01), position=(0.3, 0, -1))
    >>> _ = mech.spherical("tip", mech.ground.point(0, 0, 0), bob.point(-0.3, 0, 1))
    >>> ax = picture(mech, mech.formulate().simulate(0.5), time=0.5)
    >>> ax.get_title()
    'pendulum at t = 0.5'
    """
    import matplotlib.pyplot as plt

    where = node_positions(mechanism, result, time)
    if ax is None:
        ax = plt.figure(figsize=(6, 6)).add_subplot(projection="3d")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    body_colour = {name: colours[k % len(colours)] for k, name in enumerate(mechanism.bodies)}
    for element in mechanism.network.elements:
        edge = element.edges[0]
        a, b = where.get(edge.tail), where.get(edge.head)
        if a is None or b is None or isinstance(element, se.SpatialMass):
            continue
        segment = np.array([a, b]).T
        if isinstance(element, se.SpatialArm):
            ax.plot(*segment, color=body_colour.get(edge.tail, "grey"), linewidth=3)
        elif element.is_joint:
            ax.plot(*segment, color="black", linewidth=1)
            ax.scatter(*np.array([b]).T, color="black", s=25, depthshade=False)
        elif isinstance(element, se.SpatialSpringDamper):
            ax.plot(*segment, color="tab:grey", linestyle="--", linewidth=1)
    for node, position in where.items():
        if node.startswith(f"{DATUM}."):
            ax.scatter(*np.array([position]).T, color="grey", marker="s", s=30,
                       depthshade=False)
    for name in mechanism.bodies:
        ax.scatter(*np.array([where[name]]).T, color=body_colour[name], s=40, depthshade=False)
        ax.text(*where[name], f" {name}", fontsize=9)
    points = np.array(list(where.values()))
    centre = (points.max(axis=0) + points.min(axis=0)) / 2
    half = max(float(np.ptp(points, axis=0).max()) / 2, 1e-3) * 1.1
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(centre[1] - half, centre[1] + half)
    ax.set_zlim(centre[2] - half, centre[2] + half)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_zlabel("z")
    shown = np.asarray(result.t)[-1] if result is not None and time is None else time
    ax.set_title(mechanism.name + (f" at t = {shown:g}" if shown is not None else ""))
    return ax
