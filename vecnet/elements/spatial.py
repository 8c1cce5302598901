"""Spatial vector-network elements.

Every node of a spatial vector network is a frame: a point and an orientation (a
rotation matrix ``R``, body to world). An edge from ``tail`` to ``head`` carries the
across variables ``(dr, R_rel)`` — the vector from the tail point to the head point and
the rotation of the head frame relative to the tail frame — and the through variables
``(F, T)``: the force the head node applies to the element and the torque (passive
sign convention, as in the plane).

An element says three things:

* as a tree branch, its ``coordinates`` ``q_b`` and ``speeds`` ``u_b`` and its
  :meth:`~SpatialElement.motion`: ``R_rel(q_b)``, the offset ``rho(q_b)`` (in the tail
  frame, or in the world for ``frame = "ground"``), the relative angular velocity
  ``W u_b`` (tail frame), the offset rate ``V u_b`` and the kinematic map
  ``q_b' = N_b u_b``;
* as a chord, its constraint :meth:`~SpatialElement.primitives`: points coinciding
  (``"point"``, three equations), a tail-fixed vector perpendicular to a head-fixed one
  (``"perpendicular"``), the head point in a plane through the tail point normal to a
  tail-fixed vector (``"plane"``);
* its force law :meth:`~SpatialElement.through` (springs, dampers, drivers).

Free rotations use unit quaternions ``p = (w, x, y, z)`` as coordinates and the
relative angular velocity as speeds: by default in the tail frame's axes (a free body's
in world axes, ``wx, wy, wz``), ``p' = E(p)^T omega / 2``; with body axes
(:meth:`SpatialElement.branch_motion`, ``axes="body"``) in the head frame's axes
(``w1, w2, w3``, Euler's body-axis components), ``p' = G(p)^T omega_b / 2``
(:mod:`vecnet.core.rotations`).
"""

from __future__ import annotations

import numpy as np
import sympy

from ..core.rotations import (
    E_matrix,
    G_matrix,
    axis_rotation,
    matrix_quaternion,
    quaternion_matrix,
)
from ..errors import UnknownNameError
from .base import Kind, MechanismElement
from .beam import BeamLaw
from .joint_laws import ContactLaw, FrictionLaw, MeshLaw, SpringDamperLaw, StopLaw

__all__ = ["SPEED_AXES", "SpatialElement", "SpatialMass", "SpatialArm", "SpatialRevolute",
           "SpatialJoint", "SpatialPrismatic", "SpatialCylindrical", "SpatialScrew", "SpatialSpherical", "SpatialUniversal",
           "SpatialPlanarJoint", "SpatialWeld", "SpatialPointOnLine", "SpatialPointOnPlane",
           "SpatialSpringDamper", "SpatialBeamElement", "SpatialRotarySpringDamper", "SpatialForce", "SpatialTorque",
           "SpatialMotionDriver", "SpatialJointFriction", "SpatialJointStop", "SpatialContact",
           "SpatialMesh",
           "SpatialGear", "SpatialRackAndPinion", "SpatialRollingContact",
           "perpendiculars", "tangents", "revolute_angle"]


#: the axes a free rotation's angular speeds are taken in: its tail frame's (a free body's
#: are world axes) or its head frame's (a body's own axes, in which Euler wrote his equations)
SPEED_AXES = ("tail", "body")
#: the names of the angular speeds in each of :data:`SPEED_AXES`
_ANGULAR_SPEEDS = {"tail": ("wx", "wy", "wz"), "body": ("w1", "w2", "w3")}


def perpendiculars(e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors ``p, s`` with ``(e, p, s)`` a right-handed orthonormal basis."""
    e = np.asarray(e, dtype=float)
    trial = np.eye(3)[int(np.argmin(np.abs(e)))]
    p = np.cross(e, trial)
    p /= np.linalg.norm(p)
    return p, np.cross(e, p)


def tangents(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors ``t1, t2`` spanning the plane normal to the unit ``n``, with
    ``(t1, t2, n)`` right-handed: ``t1`` the projection of the world axis least along ``n``
    (the first of them), so that a plane normal to a world axis gets world axes.

    >>> [v.tolist() for v in tangents(np.array([0.0, 0.0, 1.0]))]
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    n = np.asarray(n, dtype=float)
    axis = np.eye(3)[int(np.argmin(np.abs(n)))]
    t1 = axis - (axis @ n) * n
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


def _number(x) -> sympy.Expr:
    if isinstance(x, sympy.Basic):
        return x
    x = float(x)
    return sympy.Integer(int(x)) if x.is_integer() else sympy.Float(x)


def _m(v) -> sympy.Matrix:
    """A column of exact integers where the numbers are integral (fewer terms to compile)."""
    if isinstance(v, sympy.MatrixBase):
        return sympy.Matrix(list(v))
    return sympy.Matrix([_number(x) for x in np.ravel(np.asarray(v, dtype=object))])


def _quat_block(p) -> sympy.Matrix:
    return E_matrix(p).T / 2


def _angle_about(axis: np.ndarray, M: np.ndarray) -> float:
    """``theta`` of a rotation ``M = Rot(axis, theta)``."""
    vee = np.array([M[2, 1] - M[1, 2], M[0, 2] - M[2, 0], M[1, 0] - M[0, 1]])
    return float(np.arctan2(0.5 * axis @ vee, 0.5 * (np.trace(M) - 1.0)))


def twist_angle(axis: np.ndarray, M: np.ndarray) -> float:
    """The turn ``theta`` (between -pi and pi) of a rotation ``M`` about the unit ``axis``:
    ``M = Rot(axis, theta) S`` with ``S`` a rotation about an axis perpendicular to
    ``axis`` (the swing-twist split; ``theta`` is the same with ``S`` first). For
    ``M = Rot(axis, theta)`` it is ``theta``; when the split is undefined (``M`` a half
    turn about an axis perpendicular to ``axis``) it is 0.

    >>> turn = np.asarray(axis_rotation((0, 0, 1), 0.4), dtype=float)
    >>> round(twist_angle(np.array([0.0, 0.0, 1.0]), turn), 12)
    0.4
    """
    w, *v = matrix_quaternion(M)
    along = float(np.asarray(axis, float) @ v)
    if abs(along) < 1e-12 and abs(w) < 1e-12:
        return 0.0
    return float((2 * np.arctan2(along, w) + np.pi) % (2 * np.pi) - np.pi)


def _turned(axis: np.ndarray, angle: float, M: np.ndarray) -> np.ndarray:
    """``Rot(axis, angle) M`` (numbers), with entries within 1e-13 of 0 or +-1 made exact:
    a rotation that is the identity up to rounding compiles as the identity."""
    from scipy.spatial.transform import Rotation

    out = Rotation.from_rotvec(angle * np.asarray(axis, float)).as_matrix() @ M
    for exact in (-1.0, 0.0, 1.0):
        out[np.abs(out - exact) < 1e-13] = exact
    return out


def revolute_angle(axis_tail, R_tail, R_head, R0):
    """The angle ``theta`` of ``R_head = R_tail Rot(axis_tail, theta) R0`` (numbers)."""
    return _angle_about(np.asarray(axis_tail, float), R_tail.T @ R_head @ R0.T)


class SpatialElement(MechanismElement):
    """Base of spatial elements: no coordinates, no constraints, no force unless told."""

    domain = "spatial"
    speeds: tuple[str, ...] = ()
    #: a joint with a coordinate ``angle``, its head body's turn about ``axis``
    turns = False
    #: whether the last four coordinates are a unit quaternion of the relative rotation and
    #: the last three speeds the relative angular velocity (free bodies, ball joints ...)
    free_rotation = False

    def motion(self, q: list[sympy.Symbol]):
        """``(R_rel, rho, W, V, N)`` as a tree branch in its coordinates ``q``."""
        raise NotImplementedError(f"{type(self).__name__} {self.name!r} cannot be a tree branch")

    def branch_motion(self, q: list[sympy.Symbol], axes: str = "tail"):
        """:meth:`motion` with the angular speeds of a free rotation in ``axes``
        (:data:`SPEED_AXES`): ``"tail"`` as :meth:`motion` gives them, or ``"body"``, the
        relative angular velocity in the head frame's axes ``omega_b``, so that
        ``W u_b = R_rel omega_b`` and ``p' = G(p)^T omega_b / 2``. Elements without a free
        rotation move the same in both.

        In either axes the rate of ``W u_b`` at constant ``u_b`` is zero for the angular
        speeds: ``W`` is constant in tail axes, and in body axes
        ``R_rel' omega_b = R_rel (omega_b x omega_b) = 0``.

        >>> ball = SpatialSpherical("S", "a", "b", np.eye(3))
        >>> q = sympy.symbols("qw qx qy qz")
        >>> R, _, W, _, N = ball.branch_motion(list(q), "body")
        >>> W == R and N == G_matrix(q).T / 2
        True
        """
        Rrel, rho, W, V, N = self.motion(q)
        if axes == "body" and self.free_rotation:
            W, N = W.copy(), N.copy()
            W[:, W.cols - 3:] = Rrel
            N[N.rows - 4:, N.cols - 3:] = G_matrix(list(q[-4:])).T / 2
        return Rrel, rho, W, V, N

    def speed_names(self, axes: str = "tail") -> tuple[str, ...]:
        """The names of the speeds as a tree branch: :attr:`speeds`, the angular speeds of a
        free rotation named for ``axes`` (``wx, wy, wz`` in tail axes, ``w1, w2, w3`` in
        body axes).

        >>> SpatialSpherical("S", "a", "b", np.eye(3)).speed_names("body")
        ('w1', 'w2', 'w3')
        """
        if not self.free_rotation:
            return tuple(self.speeds)
        return tuple(self.speeds[:-3]) + _ANGULAR_SPEEDS[axes]

    def coordinates_from(self, R_tail: np.ndarray, R_head: np.ndarray, dr: np.ndarray) -> list:
        """Branch coordinates for the relative pose (numbers)."""
        return []

    def primitives(self) -> list[tuple]:
        """Constraint primitives as a chord: ``("point", name)``,
        ``("perpendicular", name, e_tail, f_head)``, ``("plane", name, e_tail)``."""
        if self.is_joint:
            raise NotImplementedError(f"{type(self).__name__} {self.name!r} cannot be cut; "
                                      "put it in the tree")
        return []

    def velocity_primitives(self) -> list[tuple]:
        """Velocity (nonholonomic) constraints as a chord, one row each, given at the speed
        level only: ``("rolling", name, f_tail, info)`` for no slip of a wheel's contact
        point along the tail-fixed direction ``f_tail``."""
        return []

    def through(self, pose: dict, t: sympy.Symbol):
        """``(F, T)`` of a force element from the pose of its edge (``None`` for others):
        ``pose`` holds ``dr``, ``R_tail``, ``R_head`` (sympy) and their rates ``v`` (of
        ``dr``), ``omega_tail``, ``omega_head`` (world axes)."""
        return None

    def energy(self, pose: dict):
        """Stored energy of a spring (``None`` when the element stores none)."""
        return None


def _free_motion(q):
    """Six relative coordinates: offset (ground axes) and a quaternion."""
    p = q[3:]
    N = sympy.zeros(7, 6)
    N[:3, :3] = sympy.eye(3)
    N[3:, 3:] = _quat_block(p)
    W = sympy.zeros(3, 6)
    W[:, 3:] = sympy.eye(3)
    V = sympy.zeros(3, 6)
    V[:, :3] = sympy.eye(3)
    return quaternion_matrix(p), sympy.Matrix(q[:3]), W, V, N


class SpatialMass(SpatialElement):
    """A rigid body: the edge from the datum to the mass centre with mass ``m`` and inertia
    matrix ``J`` (body axes, about the mass centre). As a branch its coordinates are the
    position (world) and a unit quaternion; its speeds the velocity and the angular
    velocity, both in world axes."""

    kind = Kind.ACROSS_STORE
    tree_role = "mass"
    coordinates = ("x", "y", "z", "qw", "qx", "qy", "qz")
    speeds = ("vx", "vy", "vz", "wx", "wy", "wz")
    free_rotation = True
    frame = "ground"

    #: the entries of the inertia matrix a study may vary, by axes (symmetric)
    _INERTIA = {"xx": (0, 0), "yy": (1, 1), "zz": (2, 2), "xy": (0, 1), "xz": (0, 2),
                "yz": (1, 2)}

    def __init__(self, name, tail, head, m, J) -> None:
        super().__init__(name, tail, head)
        self.m = sympy.sympify(m)
        self.J = sympy.Matrix(J)

    def study_parameters(self) -> dict:
        """``mass`` and the inertia matrix's entries ``inertia.xx``, ``inertia.yy``,
        ``inertia.zz``, ``inertia.xy``, ``inertia.xz``, ``inertia.yz`` (body axes, about
        the mass centre; a product entry stands for both of its symmetric places)."""
        return {"mass": self.m, **{f"inertia.{axes}": self.J[i, j]
                                   for axes, (i, j) in self._INERTIA.items()}}

    def set_study_parameter(self, name: str, value) -> None:
        """Set ``mass`` or an inertia entry (:meth:`study_parameters`)."""
        if name == "mass":
            self.m = sympy.sympify(value)
            return
        axes = name.removeprefix("inertia.")
        if not name.startswith("inertia.") or axes not in self._INERTIA:
            raise UnknownNameError(f"body {self.name!r} has no parameter {name!r}; its "
                                   "parameters are " + ", ".join(self.study_parameters()))
        i, j = self._INERTIA[axes]
        J = sympy.Matrix(self.J)
        J[i, j] = J[j, i] = sympy.sympify(value)
        self.J = J

    def motion(self, q):
        return _free_motion(q)

    def coordinates_from(self, R_tail, R_head, dr):
        return [*dr, *matrix_quaternion(R_tail.T @ R_head)]


class SpatialArm(SpatialElement):
    """A rigid arm: the body-fixed vector ``rho`` (body axes) from the tail frame to the
    head point; no relative rotation."""

    kind = Kind.CONSTRAINT
    tree_role = "arm"
    # the arm of point p1 of body crank is 'crank-p1': '-' cannot clash with a user's name
    name_separators = "-"

    def __init__(self, name, tail, head, rho) -> None:
        super().__init__(name, tail, head)
        self.rho = _m(rho)

    def motion(self, q):
        z = sympy.zeros(3, 0)
        return sympy.eye(3), self.rho, z, z, sympy.zeros(0, 0)


class SpatialJoint(SpatialElement):
    """What every spatial joint shares: the joined points' nodes, the relative rotation at
    the initial pose, an axis in tail body axes; a kind of joint adds its ``motion(q)``,
    ``coordinates_from`` and ``primitives()`` and is catalogued in
    :data:`vecnet.elements.joints.JOINTS`."""

    kind = Kind.CONSTRAINT
    is_joint = True

    def cut_equations(self) -> int:
        """Three for each pair of points that coincide, one for each other primitive; six
        for a joint that cannot be cut (a screw)."""
        try:
            return sum(3 if p[0] == "point" else 1 for p in self.primitives())
        except NotImplementedError:
            return 6

    def __init__(self, name, tail, head, R0, axis=None) -> None:
        super().__init__(name, tail, head)
        #: the relative rotation at the initial pose (numbers)
        self.R_initial = np.asarray(R0, dtype=float)
        #: the relative rotation at the initial pose, or for a joint that turns, at angle
        #: zero (numbers)
        self.R0 = self.R_initial
        #: the joint axis in tail body axes (numbers), if any
        self.axis = None if axis is None else np.asarray(axis, dtype=float)
        #: the joint's angle at the initial pose: the turn of the head body relative to
        #: the tail body about the axis, as in the plane (theta_head - theta_tail), so
        #: that a planar mechanism built in space reports the planar angles
        self.initial_angle = 0.0
        if self.turns:
            self.initial_angle = twist_angle(self.axis, self.R0)
            if self.initial_angle:
                self.R0 = _turned(self.axis, -self.initial_angle, self.R0)

    def lock_rotation(self, names=("a", "b", "c")):
        """Three perpendicularity conditions that hold the initial relative rotation."""
        a = np.eye(3)
        b = self.R0  # row i: R0^T e_i, the tail's axis i in head axes at the initial pose
        return [("perpendicular", f"{self.name}.{names[0]}", a[0], b[1]),
                ("perpendicular", f"{self.name}.{names[1]}", a[0], b[2]),
                ("perpendicular", f"{self.name}.{names[2]}", a[1], b[2])]

    def parallel_axis(self):
        """Two conditions keeping the axis (tail) parallel to its image in the head."""
        p, s = perpendiculars(self.R0.T @ self.axis)
        return [("perpendicular", f"{self.name}.p", self.axis, p),
                ("perpendicular", f"{self.name}.s", self.axis, s)]

    def on_axis_line(self):
        p, s = perpendiculars(self.axis)
        return [("plane", f"{self.name}.p", p), ("plane", f"{self.name}.s", s)]

    def turned(self, angle):
        """The relative rotation turned by ``angle`` about the axis from R0 (symbolic)."""
        return axis_rotation(_m(self.axis), angle) * _m(self.R0).reshape(3, 3)


class SpatialRevolute(SpatialJoint):
    """A revolute joint about ``axis`` (tail body axes) through the joined points; its
    coordinate ``angle`` is the head body's turn relative to the tail body about the axis
    (``initial_angle`` at the initial pose, between -pi and pi)."""

    turns = True
    coordinates = ("angle",)
    speeds = ("angle'",)

    def motion(self, q):
        return self.turned(q[0]), sympy.zeros(3, 1), _m(self.axis), sympy.zeros(3, 1), sympy.eye(1)

    def coordinates_from(self, R_tail, R_head, dr):
        return [revolute_angle(self.axis, R_tail, R_head, self.R0)]

    def primitives(self):
        return [("point", self.name), *self.parallel_axis()]


class SpatialPrismatic(SpatialJoint):
    """A prismatic joint: the head point slides along ``axis`` (tail axes) through the tail
    point; the relative rotation stays as at the initial pose. Coordinate ``distance``."""

    coordinates = ("distance",)
    speeds = ("distance'",)

    def motion(self, q):
        return (_m(self.R0).reshape(3, 3), _m(self.axis) * q[0], sympy.zeros(3, 1),
                _m(self.axis), sympy.eye(1))

    def coordinates_from(self, R_tail, R_head, dr):
        return [float(self.axis @ (R_tail.T @ dr))]

    def primitives(self):
        return [*self.lock_rotation(), *self.on_axis_line()]


class SpatialCylindrical(SpatialJoint):
    """A cylindrical joint: turning about and sliding along ``axis`` (tail axes).
    Coordinates ``angle`` and ``distance``."""

    turns = True
    coordinates = ("angle", "distance")
    speeds = ("angle'", "distance'")

    def motion(self, q):
        e = _m(self.axis)
        return (self.turned(q[0]), e * q[1], e.row_join(sympy.zeros(3, 1)),
                sympy.zeros(3, 1).row_join(e), sympy.eye(2))

    def coordinates_from(self, R_tail, R_head, dr):
        return [revolute_angle(self.axis, R_tail, R_head, self.R0),
                float(self.axis @ (R_tail.T @ dr))]

    def primitives(self):
        return [*self.parallel_axis(), *self.on_axis_line()]


class SpatialScrew(SpatialJoint):
    """A screw joint: turning about ``axis`` (tail axes) advances the head point by
    ``pitch`` per radian along it. Coordinate ``angle``; a screw must be a tree branch."""

    turns = True
    coordinates = ("angle",)
    speeds = ("angle'",)

    def __init__(self, name, tail, head, R0, axis, pitch) -> None:
        super().__init__(name, tail, head, R0, axis)
        self.pitch = sympy.sympify(pitch)

    def motion(self, q):
        e = _m(self.axis)
        advance = e * self.pitch * (q[0] - _number(self.initial_angle))   # none at the start
        return self.turned(q[0]), advance, e, e * self.pitch, sympy.eye(1)

    def coordinates_from(self, R_tail, R_head, dr):
        return [revolute_angle(self.axis, R_tail, R_head, self.R0)]


class SpatialSpherical(SpatialJoint):
    """A ball joint: the points coincide. Coordinates the relative rotation as a unit
    quaternion (``qw, qx, qy, qz``); speeds the relative angular velocity in tail axes
    (``wx, wy, wz``)."""

    coordinates = ("qw", "qx", "qy", "qz")
    speeds = ("wx", "wy", "wz")
    free_rotation = True

    def motion(self, q):
        return (quaternion_matrix(q), sympy.zeros(3, 1), sympy.eye(3), sympy.zeros(3, 3),
                _quat_block(q))

    def coordinates_from(self, R_tail, R_head, dr):
        return list(matrix_quaternion(R_tail.T @ R_head))

    def primitives(self):
        return [("point", self.name)]


class SpatialUniversal(SpatialJoint):
    """A universal (Hooke) joint: the points coincide; the head turns about ``axis`` (fixed
    in the tail) by ``angle1`` and about ``axis2`` (fixed in the head, perpendicular to
    the first) by ``angle2``; both zero at the initial pose."""

    coordinates = ("angle1", "angle2")
    speeds = ("angle1'", "angle2'")

    def __init__(self, name, tail, head, R0, axis, axis2) -> None:
        super().__init__(name, tail, head, R0, axis)
        self.axis2 = np.asarray(axis2, dtype=float)  # in head axes

    def motion(self, q):
        first = axis_rotation(_m(self.axis), q[0])
        middle = first * _m(self.R0).reshape(3, 3)
        f = _m(self.axis2)
        W = _m(self.axis).row_join(middle * f)
        return (middle * axis_rotation(f, q[1]), sympy.zeros(3, 1), W, sympy.zeros(3, 2),
                sympy.eye(2))

    def coordinates_from(self, R_tail, R_head, dr):
        # R_tail^T R_head = Rot(a, t1) R0 Rot(f, t2): solve for t1 with the head axis f
        M = R_tail.T @ R_head
        a, g = self.axis, self.R0 @ self.axis2   # f seen in the tail at the initial pose
        h = M @ self.axis2                       # f now, in tail axes
        t1 = float(np.arctan2(np.cross(g, h) @ a, g @ h))
        first = np.asarray(axis_rotation(_m(a), t1).tolist(), dtype=float)
        t2 = _angle_about(self.axis2, (first @ self.R0).T @ M)
        return [t1, t2]

    def primitives(self):
        return [("point", self.name),
                ("perpendicular", f"{self.name}.cross", self.axis, self.axis2)]


class SpatialPlanarJoint(SpatialJoint):
    """A planar joint: the head slides in the plane through the tail point normal to
    ``normal`` (tail axes) and turns about the normal. Coordinates ``x, y`` (along two
    in-plane directions) and ``angle``."""

    turns = True
    coordinates = ("x", "y", "angle")
    speeds = ("x'", "y'", "angle'")

    def motion(self, q):
        p, s = (_m(v) for v in perpendiculars(self.axis))
        e = _m(self.axis)
        W = sympy.zeros(3, 2).row_join(e)
        return (self.turned(q[2]), p * q[0] + s * q[1], W,
                p.row_join(s).row_join(sympy.zeros(3, 1)), sympy.eye(3))

    def coordinates_from(self, R_tail, R_head, dr):
        p, s = perpendiculars(self.axis)
        local = R_tail.T @ dr
        return [float(p @ local), float(s @ local),
                revolute_angle(self.axis, R_tail, R_head, self.R0)]

    def primitives(self):
        return [*self.parallel_axis(), ("plane", f"{self.name}.n", self.axis)]


class SpatialWeld(SpatialJoint):
    """A weld: the points coincide and the relative rotation stays as at the initial pose."""

    def motion(self, q):
        z = sympy.zeros(3, 0)
        return _m(self.R0).reshape(3, 3), sympy.zeros(3, 1), z, z, sympy.zeros(0, 0)

    def primitives(self):
        return [("point", self.name), *self.lock_rotation()]


class SpatialPointOnLine(SpatialJoint):
    """The head point stays on the line through the tail point along ``axis`` (tail axes),
    free to slide and turn. Coordinates ``distance`` and a quaternion."""

    coordinates = ("distance", "qw", "qx", "qy", "qz")
    speeds = ("distance'", "wx", "wy", "wz")
    free_rotation = True

    def motion(self, q):
        e = _m(self.axis)
        W = sympy.zeros(3, 1).row_join(sympy.eye(3))
        V = e.row_join(sympy.zeros(3, 3))
        N = sympy.diag(sympy.eye(1), _quat_block(q[1:]))
        return quaternion_matrix(q[1:]), e * q[0], W, V, N

    def coordinates_from(self, R_tail, R_head, dr):
        return [float(self.axis @ (R_tail.T @ dr)), *matrix_quaternion(R_tail.T @ R_head)]

    def primitives(self):
        return self.on_axis_line()


class SpatialPointOnPlane(SpatialJoint):
    """The head point stays in the plane through the tail point normal to ``axis`` (tail
    axes). Coordinates ``x, y`` in the plane and a quaternion."""

    coordinates = ("x", "y", "qw", "qx", "qy", "qz")
    speeds = ("x'", "y'", "wx", "wy", "wz")
    free_rotation = True

    def motion(self, q):
        p, s = (_m(v) for v in perpendiculars(self.axis))
        W = sympy.zeros(3, 2).row_join(sympy.eye(3))
        V = p.row_join(s).row_join(sympy.zeros(3, 3))
        N = sympy.diag(sympy.eye(2), _quat_block(q[2:]))
        return quaternion_matrix(q[2:]), p * q[0] + s * q[1], W, V, N

    def coordinates_from(self, R_tail, R_head, dr):
        p, s = perpendiculars(self.axis)
        local = R_tail.T @ dr
        return [float(p @ local), float(s @ local), *matrix_quaternion(R_tail.T @ R_head)]

    def primitives(self):
        return [("plane", f"{self.name}.n", self.axis)]


class SpatialFree(SpatialElement):
    """Force elements constrain nothing; as branches they bring a free relative pose."""

    coordinates = ("dx", "dy", "dz", "qw", "qx", "qy", "qz")
    speeds = ("vx", "vy", "vz", "wx", "wy", "wz")
    free_rotation = True
    frame = "ground"

    def motion(self, q):
        return _free_motion(q)

    def coordinates_from(self, R_tail, R_head, dr):
        return [*dr, *matrix_quaternion(R_tail.T @ R_head)]


class SpatialSpringDamper(SpringDamperLaw, SpatialFree):
    """A spring and damper between two points along the line joining them: tension
    ``force(length) + c length'`` (``force`` defaults to ``k (length - L0)``;
    :class:`~vecnet.elements.joint_laws.SpringDamperLaw`, the law of both dimensions)."""

    def __init__(self, name, tail, head, force, c=0, length=0, k=None) -> None:
        self.kind = Kind.THROUGH_STORE if force is not None or k is not None \
            else Kind.DISSIPATOR
        super().__init__(name, tail, head)
        self._spring(force, c, length, k)

    def through(self, pose, t):
        return self.pull(pose["dr"], pose["v"]), sympy.zeros(3, 1)

    def energy(self, pose):
        return self.stored_energy(pose["dr"])


class SpatialBeamElement(BeamLaw, SpatialFree):
    """A beam element between two node frames (:class:`~vecnet.elements.beam.BeamLaw`,
    the law of both dimensions): its end loads follow from the stored energy of its
    generalized deformations; the numbers are :mod:`vecnet.numerics.beams`'."""

    kind = Kind.THROUGH_STORE


class SpatialRotarySpringDamper(SpatialFree):
    """A torsion spring and damper across a revolute or cylindrical joint: torque
    ``k (angle - angle0) + c angle'`` about the joint axis; ``angle`` is the joint's
    coordinate (its expression in the coordinates is given by the formulation)."""

    study_attributes = {"k": "k", "c": "c", "angle": "angle0"}

    def __init__(self, name, tail, head, joint: str, k=0, c=0, angle0=0) -> None:
        self.kind = Kind.THROUGH_STORE if k else Kind.DISSIPATOR
        super().__init__(name, tail, head)
        self.joint = joint
        self.k, self.c, self.angle0 = (sympy.sympify(v) for v in (k, c, angle0))

    def through(self, pose, t):
        angle, rate, axis = pose["joint"]
        return sympy.zeros(3, 1), (self.k * (angle - self.angle0) + self.c * rate) * axis

    def energy(self, pose):
        if self.k == 0:
            return None
        return self.k * (pose["joint"][0] - self.angle0) ** 2 / 2


class SpatialForce(SpatialFree):
    """An applied force on the head point (edge from the datum), in world axes or in the
    axes of the head body (``body=True``): ``F = -f``."""

    kind = Kind.THROUGH_SOURCE

    def __init__(self, name, tail, head, force, body: bool = False) -> None:
        super().__init__(name, tail, head)
        self.force, self.body = sympy.Matrix(force), body

    def through(self, pose, t):
        f = pose["R_head"] * self.force if self.body else self.force
        return -f, sympy.zeros(3, 1)


class SpatialTorque(SpatialFree):
    """An applied torque on the head frame (reacting on the tail), in world axes or in the
    axes of the head body (``body=True``): ``T = -tau``."""

    kind = Kind.THROUGH_SOURCE

    def __init__(self, name, tail, head, torque, body: bool = False) -> None:
        super().__init__(name, tail, head)
        self.torque, self.body = sympy.Matrix(torque), body

    def through(self, pose, t):
        tau = pose["R_head"] * self.torque if self.body else self.torque
        return sympy.zeros(3, 1), -tau


class SpatialMotionDriver(SpatialElement):
    """Prescribed motion of a revolute, prismatic or cylindrical joint's coordinate
    (``quantity`` ``"angle"`` or ``"distance"``): ``coordinate = motion(t)``, an expression
    in ``t``. Parallel to its joint; never a tree branch. Its multiplier is the effort (torque
    or force along the axis) it applies to the joint's head body."""

    kind = Kind.ACROSS_SOURCE
    cotree_only = True

    def __init__(self, name, tail, head, joint: str, quantity: str, motion) -> None:
        super().__init__(name, tail, head)
        self.joint, self.quantity, self.motion = joint, quantity, sympy.sympify(motion)


class SpatialJointFriction(FrictionLaw, SpatialFree):
    """Friction in a revolute, prismatic or cylindrical joint, an edge parallel to it (same
    tail and head): a torque about (``quantity="angle"``) or a force along
    (``"distance"``) the joint's ``axis`` (tail body axes) opposing the joint's speed
    ``v`` about or along it, ``viscous v + coulomb tanh(v / smoothing)``
    (:class:`~vecnet.elements.joint_laws.FrictionLaw`, the law of the plane too). The
    speed is read off the edge's pose: ``e . (omega_head - omega_tail)`` for a turn,
    ``e . (v_head - v_tail)`` for a slide (the joint keeps its points on the axis, so the
    axis turning with the tail adds nothing), ``e`` the axis in world axes.

    >>> f = SpatialJointFriction("f", "a", "b", "J", "angle", (0, 0, 1), 2, 0, 1e-3)
    >>> w = sympy.Symbol("w")
    >>> pose = {"R_tail": sympy.eye(3), "omega_tail": sympy.zeros(3, 1),
    ...         "omega_head": sympy.Matrix([0, 0, w])}
    >>> f.through(pose, None)[1].T
    Matrix([[0, 0, 2*w]])
    """

    kind = Kind.DISSIPATOR

    def __init__(self, name, tail, head, joint: str, quantity: str, axis, viscous, coulomb,
                 smoothing, **law) -> None:
        super().__init__(name, tail, head)
        self._friction(viscous, coulomb, smoothing)
        self._set_valued(**law)
        self.joint, self.quantity = joint, quantity
        #: the joint's unit axis in tail body axes (numbers)
        self.axis = np.asarray(axis, dtype=float)

    def through(self, pose, t):
        e = pose["R_tail"] * _m(self.axis)
        if self.quantity == "angle":
            f = self.magnitude(e.dot(pose["omega_head"] - pose["omega_tail"]))
            return sympy.zeros(3, 1), f * e
        return self.magnitude(e.dot(pose["v"])) * e, sympy.zeros(3, 1)


class SpatialJointStop(StopLaw, SpatialElement):
    """Unilateral stops on the angle or distance (``quantity``) of a revolute, prismatic or
    cylindrical ``joint``, an edge parallel to it (:class:`~vecnet.elements.joint_laws.
    StopLaw`): no force while free, no coordinates, no constraint; always a chord."""

    kind = Kind.CONSTRAINT

    def __init__(self, name, tail, head, joint: str, lower, upper, restitution,
                 quantity: str = "angle") -> None:
        super().__init__(name, tail, head)
        self._limits(joint, quantity, lower, upper, restitution)


class SpatialContact(ContactLaw, SpatialElement):
    """A unilateral contact of a sphere (or a point) on a body against a plane of the
    ground (or another body's sphere), an edge from a point of that plane (the other
    sphere's centre) to the sphere's centre (:class:`~vecnet.elements.joint_laws.ContactLaw`)."""

    kind = Kind.CONSTRAINT

    def __init__(self, name, tail, head, body: str, local, radius, origin, normal,
                 restitution, mu_kinetic=None, mu_static=None,
                 **other) -> None:
        super().__init__(name, tail, head)
        self._contact(body, local, radius, origin, normal, restitution, mu_kinetic,
                      mu_static, **other)


class SpatialMesh(MeshLaw, SpatialElement):
    """Base of gears and racks in space: the turns (or the rack's advance) of two bodies,
    each on a joint, held in a fixed ratio, ``turn_b + coefficient * turn_a = 0``
    (:class:`~vecnet.elements.joint_laws.MeshLaw`). The edge runs from body ``a`` to body
    ``b``; it is always a chord, its constraint written in the two joints' coordinates.

    ``terms`` holds for ``a`` and for ``b`` ``(joint, quantity, sign, initial)``: the body's
    turn is ``sign * (coordinate - initial)`` with ``coordinate`` the joint's ``"angle"``
    or ``"distance"`` and ``sign`` -1 when the body is the joint's tail (it turns the other
    way relative to the body at the joint's head) or, for a rack, slides against the
    direction it is said to advance in.
    """

    kind = Kind.ACROSS_SOURCE
    #: the constraint's name after the element's
    constraint = "mesh"

    def __init__(self, name, tail, head, coefficient, terms) -> None:
        super().__init__(name, tail, head)
        self._mesh(coefficient)
        self.terms = tuple(tuple(term) for term in terms)

    def turn(self, which: int, coordinate):
        """The turn (advance) of body ``a`` (``which = 0``) or ``b`` for the joint
        coordinate ``coordinate``."""
        _, _, sign, initial = self.terms[which]
        return sign * (coordinate - initial)


class SpatialGear(SpatialMesh):
    """Two gears, each turning on a revolute or cylindrical joint: ``turn_b = -ratio
    turn_a`` (external teeth), ``+ratio turn_a`` (internal), the turns about the joints'
    axes. Reports the tooth loads' torques on the two gears, ``torque_a`` and ``torque_b``.

    >>> gear = SpatialGear("g", "a", "b", 2, [("A", "angle", 1, 0.0), ("B", "angle", -1, 0.5)])
    >>> gear.mesh(gear.turn(0, sympy.Symbol("x")), gear.turn(1, sympy.Symbol("y")))
    2*x - y + 0.5
    """


class SpatialRackAndPinion(SpatialMesh):
    """A pinion turning on a revolute or cylindrical joint and a rack sliding on a
    prismatic or cylindrical joint: the rack advances ``radius`` per radian of the pinion's
    turn, ``advance = radius * turn``. Reports ``torque_a`` (on the pinion) and
    ``force_b`` (on the rack, along the direction it advances in)."""

    constraint = "rolling"
    efforts_named = ("torque_a", "force_b")


class SpatialRollingContact(SpatialElement):
    """The contact of a thin disc wheel rolling without slip on a plane: the edge runs from
    a point of the plane (the tail) to the wheel's centre (the head, a point of the wheel's
    body); the wheel has ``radius`` and its axle along ``axle`` (head body axes, through
    the centre), the plane the unit ``normal`` (tail axes, pointing to the wheel's side).
    With ``e`` the axle in world axes, the contact point ``C`` is the point of the rim
    lowest along ``-normal``: ``C = centre + radius d``, ``d`` the unit vector of
    ``-normal + (normal . e) e``. Then

    * ``normal`` (holonomic, a position constraint): the height of ``C`` above the plane
      is zero, ``n . dr - radius sqrt(1 - (n . e)^2) = 0``;
    * ``tangent1``, ``tangent2`` (velocity constraints, nonholonomic): the wheel's material
      point at ``C`` does not slide along the plane's tangents ``t1, t2``
      (:func:`tangents`), ``t_i . (v_centre + omega x (C - centre)) = 0``.

    The rate of the first is the normal component of the same velocity, so the three rows
    together say that the material point at the contact is at rest. Always a chord; its
    through variable is the contact force at ``C`` (the three multipliers: normal force
    and traction along ``t1``, ``t2``), reported as the reaction on the wheel. The plane
    is the ground's (the formulation reads the tail as fixed).
    """

    kind = Kind.CONSTRAINT
    is_joint = True
    cotree_only = True

    def __init__(self, name, tail, head, radius, axle, normal) -> None:
        super().__init__(name, tail, head)
        self.radius = sympy.sympify(radius)
        axle, normal = np.asarray(axle, dtype=float), np.asarray(normal, dtype=float)
        #: the axle in the wheel's body axes and the plane's normal in the tail's (unit)
        self.axle = axle / np.linalg.norm(axle)
        self.normal = normal / np.linalg.norm(normal)
        #: the plane's tangents along which the contact does not slide (tail axes)
        self.tangents = tangents(self.normal)

    def cut_equations(self) -> int:
        return 3

    def primitives(self):
        return [("contact", f"{self.name}.normal", self.normal)]

    def velocity_primitives(self):
        return [("rolling", f"{self.name}.tangent{k}", f) for k, f in
                enumerate(self.tangents, start=1)]
