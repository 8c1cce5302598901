"""Rotations in space: rotation matrices, unit quaternions (Euler parameters) and checks.

Conventions (Thompson's appendix): a rotation matrix ``A`` maps body components to
world components, ``r_world = A r_body``; the unit quaternion ``p = (w, x, y, z)``
gives ``A(p) = (w^2 - v.v) I + 2 v v^T + 2 w S(v)`` with ``v = (x, y, z)`` and ``S``
the cross-product matrix. With ``E(p) = [-v, w I + S(v)]`` and
``G(p) = [-v, w I - S(v)]`` (Thompson's ``L``): ``A = E G^T``, the angular velocity
in world axes is ``2 E p'`` and in body axes ``2 G p'``; conversely
``p' = E^T omega_world / 2``.

>>> import numpy as np
>>> A = quaternion_matrix((np.cos(0.5), 0, 0, np.sin(0.5)))   # 1 rad about z
>>> np.allclose(A @ [1, 0, 0], [np.cos(1), np.sin(1), 0])
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy

from ..errors import ModelError

__all__ = ["cross", "cross_rows", "skew", "quaternion_matrix", "matrix_quaternion", "E_matrix",
           "G_matrix", "axis_rotation", "orientation_matrix", "inertia_matrix", "unit_axis",
           "euler_angles"]


def cross(a, b):
    """``a x b`` for 3-vectors (numpy.cross costs more than the arithmetic here).

    >>> cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]).tolist()
    [0.0, 0.0, 1.0]
    """
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def cross_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a x b`` row by row for two k x 3 arrays of one shape (numpy.cross costs
    microseconds more for the few rows of a mechanism's bodies or loads).

    >>> cross_rows(np.eye(3), np.roll(np.eye(3), 1, axis=1)).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    out = np.empty(a.shape)
    out[:, 0] = a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1]
    out[:, 1] = a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2]
    out[:, 2] = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    return out


def skew(v) -> Any:
    """The cross-product matrix ``S(v)`` with ``S(v) w = v x w`` (numpy or sympy)."""
    if isinstance(v, sympy.MatrixBase) or any(isinstance(x, sympy.Basic) for x in v):
        return sympy.Matrix([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def quaternion_matrix(p) -> Any:
    """The rotation matrix ``A(p)`` of the quaternion ``p = (w, x, y, z)``; a sympy matrix
    for symbolic ``p`` (not normalized: ``p`` is taken to be a unit quaternion).

    A quarter turn about z:

    >>> import math
    >>> quaternion_matrix((math.cos(math.pi / 4), 0, 0, math.sin(math.pi / 4))).round(12)
    array([[ 0., -1.,  0.],
           [ 1.,  0.,  0.],
           [ 0.,  0.,  1.]])
    """
    w, x, y, z = p
    rows = [[w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z]]
    if any(isinstance(c, sympy.Basic) for c in p):
        return sympy.Matrix(rows)
    return np.array(rows, dtype=float)


def E_matrix(p) -> Any:
    """``E(p) = [-v, w I + S(v)]`` (3 x 4): ``omega_world = 2 E p'``."""
    w, x, y, z = p
    rows = [[-x, w, -z, y], [-y, z, w, -x], [-z, -y, x, w]]
    return sympy.Matrix(rows) if any(isinstance(c, sympy.Basic) for c in p) else np.array(rows)


def G_matrix(p) -> Any:
    """``G(p) = [-v, w I - S(v)]`` (3 x 4, Thompson's ``L``): ``omega_body = 2 G p'``."""
    w, x, y, z = p
    rows = [[-x, w, z, -y], [-y, -z, w, x], [-z, y, -x, w]]
    return sympy.Matrix(rows) if any(isinstance(c, sympy.Basic) for c in p) else np.array(rows)


def matrix_quaternion(A) -> np.ndarray:
    """The unit quaternion ``(w, x, y, z)`` with ``w >= 0`` of a rotation matrix (numeric);
    for a stack of matrices (n x 3 x 3), one quaternion per matrix (n x 4).

    >>> matrix_quaternion(np.eye(3)).tolist()
    [1.0, 0.0, 0.0, 0.0]
    """
    from scipy.spatial.transform import Rotation

    A = np.asarray(A, dtype=float)
    p = Rotation.from_matrix(A.reshape(-1, 3, 3)).as_quat()[:, [3, 0, 1, 2]]
    p[p[:, 0] < 0] *= -1
    return p[0] if A.ndim == 2 else p


def axis_rotation(axis, angle) -> sympy.Matrix:
    """Rotation by ``angle`` about the unit vector ``axis`` (Rodrigues), as a sympy matrix."""
    a = sympy.Matrix(list(axis))
    c, s = sympy.cos(angle), sympy.sin(angle)
    return c * sympy.eye(3) + s * skew(a) + (1 - c) * a * a.T


def unit_axis(axis, owner: str) -> np.ndarray:
    """``axis`` as a unit 3-vector; a zero, infinite or malformed axis is a
    :class:`ModelError`.

    >>> unit_axis((0, 0, 1e300), "J").tolist()
    [0.0, 0.0, 1.0]
    >>> unit_axis((0, 0, 0), "J")
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelError: 'J': the axis (0.0, 0.0, 0.0) has zero length; give a direction
    """
    try:
        a = np.asarray(axis, dtype=float).reshape(3)
    except (TypeError, ValueError):
        raise ModelError(f"{owner!r}: an axis is three numbers (x, y, z); got {axis!r}") from None
    shown = tuple(float(x) for x in a)
    if not np.all(np.isfinite(a)):
        raise ModelError(f"{owner!r}: the axis {shown} is not finite; give a direction")
    scale = float(np.max(np.abs(a)))   # scaled first: the norm of a huge axis overflows
    if scale == 0 or np.linalg.norm(a / scale) * scale < 1e-12:
        raise ModelError(f"{owner!r}: the axis {shown} has zero length; give a direction")
    a = a / scale
    return a / np.linalg.norm(a)


def _floats(value, owner: str, expected: str) -> np.ndarray:
    """``value`` as a float array, or a ModelError saying what was ``expected``."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{owner!r}: {expected}; got {value!r}") from None


def orientation_matrix(orientation, owner: str) -> np.ndarray:
    """A rotation matrix from ``orientation``: ``None`` (the identity), a 3 x 3 rotation
    matrix, a unit quaternion ``(w, x, y, z)`` or a ``scipy.spatial.transform.Rotation``.

    >>> orientation_matrix((1, 0, 0, 0), "b").tolist()[0]
    [1.0, 0.0, 0.0]
    >>> orientation_matrix((1, 1, 0, 0), "b")
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelError: 'b': the orientation quaternion (1.0, 1.0, 0.0, 0.0) has norm 1.41421; give a unit quaternion (w, x, y, z)
    """
    if orientation is None:
        return np.eye(3)
    if hasattr(orientation, "as_matrix") and hasattr(orientation, "as_quat"):
        return np.asarray(orientation.as_matrix(), dtype=float).reshape(3, 3)
    expected = ("orientation must be a 3x3 rotation matrix, a unit quaternion (w, x, y, z) "
                "or a scipy Rotation")
    a = _floats(orientation, owner, expected)
    if a.shape == (4,):
        norm = float(np.linalg.norm(a))
        if not abs(norm - 1.0) < 1e-9:
            raise ModelError(f"{owner!r}: the orientation quaternion {tuple(map(float, a))} has "
                             f"norm {norm:.6g}; give a unit quaternion (w, x, y, z)")
        return quaternion_matrix(a)
    if a.shape == (3, 3):
        if not np.all(np.isfinite(a)) or np.max(np.abs(a.T @ a - np.eye(3))) > 1e-9 \
                or np.linalg.det(a) < 0:
            raise ModelError(f"{owner!r}: the orientation matrix is not a rotation (A^T A = I "
                             "and det A = +1 are needed)")
        return a
    raise ModelError(f"{owner!r}: {expected}; got shape {a.shape}")


def inertia_matrix(inertia, owner: str) -> Any:
    """The inertia matrix about the mass centre from three principal moments or a 3 x 3
    matrix; numbers are checked (symmetric, positive semi-definite, triangle inequality).

    >>> inertia_matrix((7, 5, 3), "b").tolist()
    [[7.0, 0.0, 0.0], [0.0, 5.0, 0.0], [0.0, 0.0, 3.0]]
    >>> inertia_matrix((1, 1, 3), "b")
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelError: 'b': the principal moments of inertia (1, 1, 3) violate the triangle inequality (each at most the sum of the other two)
    """
    if isinstance(inertia, sympy.MatrixBase) or (
            not isinstance(inertia, np.ndarray) and any(
                isinstance(x, sympy.Basic) for x in np.ravel(np.asarray(inertia, dtype=object)))):
        J = sympy.Matrix(inertia)
        return sympy.diag(*J) if J.shape in ((3, 1), (1, 3)) else J
    expected = "inertia is three principal moments or a 3x3 matrix"
    J = _floats(inertia, owner, expected)
    if J.shape == (3,):
        J = np.diag(J)
    if J.shape != (3, 3) or not np.all(np.isfinite(J)):
        raise ModelError(f"{owner!r}: {expected}; got {inertia!r}")
    if np.max(np.abs(J - J.T)) > 1e-12 * max(1.0, np.max(np.abs(J))):
        raise ModelError(f"{owner!r}: the inertia matrix is not symmetric")
    moments = np.linalg.eigvalsh(J)
    tol = 1e-12 * max(1.0, float(np.max(np.abs(moments))))
    if moments[0] < -tol:
        raise ModelError(f"{owner!r}: the inertia matrix has a negative principal moment "
                         f"{moments[0]:.6g}")
    if moments[2] > moments[0] + moments[1] + tol:
        shown = tuple(int(m) if float(m).is_integer() else float(m) for m in np.round(moments, 12))
        if J.shape == (3, 3) and np.count_nonzero(J - np.diag(np.diag(J))) == 0:
            shown = tuple(int(m) if float(m).is_integer() else float(m) for m in np.diag(J))
        raise ModelError(f"{owner!r}: the principal moments of inertia {shown} violate the "
                         "triangle inequality (each at most the sum of the other two)")
    return J


def euler_angles(quaternions: np.ndarray) -> np.ndarray:
    """Bryant (z-y-x, yaw-pitch-roll) angles of unit quaternions (rows ``w, x, y, z``).

    >>> euler_angles(np.array([[np.cos(0.2), 0, 0, np.sin(0.2)]])).round(12).tolist()
    [[0.4, 0.0, 0.0]]
    """
    from scipy.spatial.transform import Rotation

    p = np.atleast_2d(quaternions)
    return Rotation.from_quat(p[:, [1, 2, 3, 0]]).as_euler("ZYX")
