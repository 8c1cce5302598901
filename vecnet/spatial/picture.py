"""The picture of a spatial mechanism at one instant: kept for code written before
:func:`vecnet.output.picture` drew planar and spatial mechanisms alike. Both functions hand over
to :mod:`vecnet.output.picture` (imported when first called, so that this builder package does
not load the drawing code).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from ..builders.spatial import Mechanism
from ..errors import ModelError

__all__ = ["node_positions", "picture"]


def _check(mechanism: Any) -> None:
    if not isinstance(mechanism, Mechanism):
        raise ModelError(f"a picture needs a vn.spatial.Mechanism; got {type(mechanism).__name__}"
                         " (vn.picture draws planar mechanisms too)")


def node_positions(mechanism: Mechanism, result: Any = None,
                   time: float | None = None) -> dict[str, np.ndarray]:
    """World positions ``(x, y, z)`` of every node (mass centres and points) of a spatial
    ``mechanism``, as :func:`vecnet.output.picture.node_positions`.

    Raises
    ------
    ModelError
        Not a spatial mechanism, a result without the bodies' positions and orientations,
        or ``time`` outside its span.

    >>> import vecnet as vn
    >>> mech = vn.spatial.Mechanism("m")
    >>> b = mech.body("b", 1.0, (1, 1, 1), position=(0, 0, -1))
    >>> _ = b.point(0, 0, 1, name="top")
    >>> node_positions(mech)["b.top"].tolist()
    [0.0, 0.0, 0.0]
    """
    _check(mechanism)
    module = importlib.import_module("vecnet.output.picture")
    return module.node_positions(mechanism, result, time)


def picture(mechanism: Mechanism, result: Any = None, time: float | None = None,
            ax: Any = None) -> Any:
    """Draw a spatial ``mechanism`` as :func:`vecnet.output.picture` does (in 3-D unless it stays
    in the plane z = 0); returns the matplotlib axes.

    Raises
    ------
    ModelError
        Not a spatial mechanism, or as :func:`vecnet.output.picture`.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import vecnet as vn
    >>> mech = vn.spatial.Mechanism("pendulum", gravity=(0, 0, -9.81))
    >>> bob = mech.body("bob", 1.0, (0.01, 0.01, 0.01), position=(0.3, 0, -1))
    >>> _ = mech.spherical("tip", mech.ground.point(0, 0, 0), bob.point(-0.3, 0, 1))
    >>> ax = picture(mech, mech.formulate().simulate(0.5), time=0.5)
    >>> ax.get_title()
    'pendulum at t = 0.5 s'
    """
    _check(mechanism)
    module = importlib.import_module("vecnet.output.picture")
    return module.picture(mechanism, result, time, ax)
