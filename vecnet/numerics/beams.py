"""The numbers of a mechanism's beam elements (:mod:`vecnet.elements.beam`), all elements
at once: their end loads and stored energy from the node frames, and their consistent
inertia and weight in the speeds.

The same arrays serve the plane and space: the compiled kernels give every node's
rotation as a 3 x 3 matrix and its Jacobians as 3 x nu blocks in both.

Inertia. With ``d = (r_1, l0 x_1, r_2, l0 x_2)`` the positions and scaled tangents of an
element's ends, the axis ``r(s) = sum H_i(s / l0) d_i`` (cubic Hermite functions) gives
the kinetic energy ``d'^T (M0 (x) I3) d' / 2``, ``M0 = rho A l0 / 420 [[156, 22, 54, -13],
[22, 4, 13, -3], [54, 13, 156, -22], [-13, -3, -22, 4]]``, and the weight ``rho A l0
(1/2, 1/12, 1/2, -1/12) (x) g``. As ``x' = omega x x``, ``d' = D u`` with ``D`` stacked
from the nodes' Jacobians, and ``d'' = D u' + c`` with the convective part ``c``, the
element adds ``D^T M0 D`` to the mass matrix and ``D^T (w - M0 c)`` to the forces: exact
for every rigid motion of the element, energy-consistent for every other. Turning about
its axis adds ``rho (Iy + Iz) l0 / 6 [[2, 1], [1, 2]]`` on the rates ``x_i . omega_i``
(whose rate has no velocity term, ``x' . omega = 0``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from numba import njit

from ..elements.beam import BeamLaw
from ..errors import ModelError

__all__ = ["BeamSet", "beam_set"]

_M0 = np.array([[156.0, 22.0, 54.0, -13.0], [22.0, 4.0, 13.0, -3.0],
                [54.0, 13.0, 156.0, -22.0], [-13.0, -3.0, -22.0, 4.0]]) / 420.0
_WEIGHT = np.array([0.5, 1.0 / 12.0, 0.5, -1.0 / 12.0])
_MT = np.array([[2.0, 1.0], [1.0, 2.0]]) / 6.0


@njit(cache=True, inline="always")
def _dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, inline="always")
def _cross3(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


@njit(cache=True)
def _elastic(r, R, ends, l0, EA, GJ, EIy, EIz, out):
    """The elements' end loads into ``out`` (E x 9: ``g_d, g_1, g_2`` of
    :meth:`BeamSet.loads`) and their stored energy, returned: the law of
    :mod:`vecnet.elements.beam`, its slopes by the chain rule through the twist's shifts."""
    total = 0.0
    for k in range(len(l0)):
        a, b, l = ends[k, 0], ends[k, 1], l0[k]
        d = r[b] - r[a]
        length = np.sqrt(_dot3(d, d))
        e = d / length
        ya, za, yb, zb = R[a, :, 1], R[a, :, 2], R[b, :, 1], R[b, :, 2]
        bza, bzb, bya, byb = -_dot3(e, ya), -_dot3(e, yb), _dot3(e, za), _dot3(e, zb)
        tau = (_dot3(za, yb) - _dot3(ya, zb)) / 2
        eps = length - l + l / 30 * (2 * bza ** 2 - bza * bzb + 2 * bzb ** 2
                                     + 2 * bya ** 2 - bya * byb + 2 * byb ** 2)
        shift_z, shift_y = -tau * (bya - byb) / 6, tau * (bza - bzb) / 6
        cza, czb, cya, cyb = bza + shift_z, bzb + shift_z, bya + shift_y, byb + shift_y
        kz, ky = 2 * EIz[k] / l, 2 * EIy[k] / l
        total += (EA[k] * eps ** 2 + GJ[k] * tau ** 2) / (2 * l) \
            + kz * (cza ** 2 + cza * czb + czb ** 2) + ky * (cya ** 2 + cya * cyb + cyb ** 2)
        N = EA[k] / l * eps
        share = N * l / 30
        mza, mzb = kz * (2 * cza + czb), kz * (2 * czb + cza)
        mya, myb = ky * (2 * cya + cyb), ky * (2 * cyb + cya)
        mz, my = (mza + mzb) / 6, (mya + myb) / 6
        dza = mza + tau * my + share * (4 * bza - bzb)
        dzb = mzb - tau * my + share * (4 * bzb - bza)
        dya = mya - tau * mz + share * (4 * bya - byb)
        dyb = myb + tau * mz + share * (4 * byb - bya)
        dtau = GJ[k] / l * tau - (bya - byb) * mz + (bza - bzb) * my
        g_d = N * e - (dza * (ya - _dot3(e, ya) * e) + dzb * (yb - _dot3(e, yb) * e)
                       - dya * (za - _dot3(e, za) * e) - dyb * (zb - _dot3(e, zb) * e)) / length
        twist = dtau * (_cross3(za, yb) - _cross3(ya, zb)) / 2
        out[k, 0:3] = g_d
        out[k, 3:6] = dza * _cross3(e, ya) + dya * _cross3(za, e) + twist
        out[k, 6:9] = dzb * _cross3(e, yb) + dyb * _cross3(zb, e) - twist
    return total


@njit(cache=True)
def _inertia(R, Jv, Jw, gv, gw, w, ends, rows, l0, mass, polar, gravity, M, Q):
    """Add the elements' consistent inertia to ``M`` and their weight less velocity terms
    to ``Q`` (the module's docstring), ``rows`` the rows of each element's end nodes in
    the Jacobians."""
    nu = M.shape[0]
    D = np.empty((4, 3, nu))
    c = np.empty((4, 3))
    T = np.empty((2, nu))
    tc = np.empty(2)
    for k in range(len(l0)):
        l = l0[k]
        for j in range(2):
            node, at = ends[k, j], rows[k, j]
            t = R[node, :, 0]
            D[2 * j] = Jv[at]
            for n in range(nu):
                D[2 * j + 1, :, n] = l * _cross3(Jw[at, :, n], t)
            c[2 * j] = gv[at]
            c[2 * j + 1] = l * (_cross3(gw[at], t) + _cross3(w[at], _cross3(w[at], t)))
            for n in range(nu):
                T[j, n] = _dot3(t, Jw[at, :, n])
            tc[j] = _dot3(t, gw[at])
        for i in range(4):
            # the slot's momentum rate per unit speed rate and its part without one
            MD = np.zeros((3, nu))
            Mc = np.zeros(3)
            for i2 in range(4):
                MD += _M0[i, i2] * D[i2]
                Mc += _M0[i, i2] * c[i2]
            force = mass[k] * (_WEIGHT[i] * gravity - Mc)
            for p in range(nu):
                Q[p] += _dot3(D[i, :, p], force)
                for q in range(nu):
                    M[p, q] += mass[k] * _dot3(D[i, :, p], MD[:, q])
        for i in range(2):
            for i2 in range(2):
                scale = polar[k] * _MT[i, i2]
                for p in range(nu):
                    Q[p] -= scale * T[i, p] * tc[i2]
                    for q in range(nu):
                        M[p, q] += scale * T[i, p] * T[i2, q]


def _number(value: Any, owner: str) -> float:
    return float(value)


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ek,ek->e", a, b)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a x b`` over the first axis after the elements' (E x 3 or E x 3 x nu, broadcast):
    by components, as ``np.cross`` costs ten times more on arrays this small."""
    a0, a1, a2 = a[:, 0], a[:, 1], a[:, 2]
    b0, b1, b2 = b[:, 0], b[:, 1], b[:, 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=1)


class BeamSet:
    """Every beam element of a compiled mechanism as arrays (E elements).

    Parameters
    ----------
    elements : list of BeamLaw
    node : mapping
        Node name -> index in the compiled kinematics.

    Attributes
    ----------
    names : list of str
    ends : ndarray (E x 2)
        Tail and head node of each element.
    """

    def __init__(self, elements: list[BeamLaw], node: dict,
                 number: Callable[[Any, str], float] = _number) -> None:
        self.names = [e.name for e in elements]
        self.ends = np.array([[node[e.edges[0].tail], node[e.edges[0].head]] for e in elements],
                             dtype=np.int64).reshape(-1, 2)
        self.l0 = np.array([e.length for e in elements])
        values = np.array([[number(v, e.name) for v in (*e.stiffnesses, e.mass, e.polar_inertia)]
                           for e in elements]).reshape(-1, 6)
        for e, row in zip(elements, values):
            for what, value in zip(("E A", "G J", "E Iy", "E Iz", "mass", "polar inertia"), row):
                # (not a number: a study's parameter, not yet bound to a case)
                if not (np.isnan(value) or np.isfinite(value) and value > 0):
                    raise ModelError(f"beam {e.beam!r}: element {e.name!r} has {what} = "
                                     f"{value:g}; it must be a positive number (check the "
                                     "values given to its material and section)")
        self.EA, self.GJ, self.EIy, self.EIz, self.mass, self.polar = \
            (np.ascontiguousarray(v) for v in values.T)
        self.nodes = np.unique(self.ends)
        self._rows: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.names)

    # -- elastic ------------------------------------------------------------------
    def _elastic(self, r: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, float]:
        out = np.empty((len(self.l0), 9))
        energy = _elastic(r, R, self.ends, self.l0, self.EA, self.GJ, self.EIy, self.EIz, out)
        return out, energy

    def energy(self, r: np.ndarray, R: np.ndarray) -> float:
        """The elastic energy stored in all the elements, from the node positions ``r``
        (V x 3) and rotations ``R`` (V x 3 x 3)."""
        return float(self._elastic(r, R)[1])

    def loads(self, r: np.ndarray, R: np.ndarray):
        """``(g_d, g_1, g_2)`` (E x 3 each): the gradient of the stored energy along the
        chord ``d = r_2 - r_1`` and along turns of the two end frames (world axes). The
        element pushes ``g_d`` and turns by ``-g_1`` the first node, ``-g_d`` and ``-g_2``
        the second; ``g_1 + g_2 + d x g_d = 0``."""
        out = self._elastic(r, R)[0]
        return out[:, 0:3], out[:, 3:6], out[:, 6:9]

    def wrenches(self, r: np.ndarray, R: np.ndarray, wrenches: np.ndarray) -> dict:
        """Add the elements' end loads to ``wrenches`` (V x 6, torque then force, about
        the world origin) and give, by element, ``(ends, F, T)`` as force elements report
        them (the through variable ``(F, r_2 x F + T)``: ``F = g_d``, ``T = g_2``)."""
        g_d, g_1, g_2 = self.loads(r, R)
        a, b = self.ends.T
        np.add.at(wrenches, (a, slice(0, 3)), -g_1 + _cross(r[a], g_d))
        np.add.at(wrenches, (a, slice(3, 6)), g_d)
        np.add.at(wrenches, (b, slice(0, 3)), -g_2 - _cross(r[b], g_d))
        np.add.at(wrenches, (b, slice(3, 6)), -g_d)
        return {name: (tuple(ends), F, T)
                for name, ends, F, T in zip(self.names, self.ends.tolist(), g_d, g_2)}

    # -- inertia ------------------------------------------------------------------
    def inertia(self, kin, row: dict, gravity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(M, Q)``: what the elements add to the mass matrix and to the generalized
        forces (weight less the velocity terms), in the speeds."""
        if self._rows is None:   # the compiled model's rows do not change
            self._rows = np.array([[row[i] for i in ends] for ends in self.ends.tolist()],
                                  dtype=np.int64).reshape(-1, 2)
        nu = kin.Jv.shape[-1]
        M, Q = np.zeros((nu, nu)), np.zeros(nu)
        _inertia(kin.R, kin.Jv, kin.Jw, kin.gv, kin.gw, kin.w, self.ends, self._rows, self.l0,
                 self.mass, self.polar, np.asarray(gravity, dtype=float), M, Q)
        return M, Q

    def weight_potential(self, r: np.ndarray, R: np.ndarray, gravity: np.ndarray) -> float:
        """The elements' potential energy in gravity, ``-sum w . d``."""
        a, b = self.ends.T
        l0 = self.l0[:, None]
        centre = (r[a] + r[b]) / 2 + l0 * (R[a][:, :, 0] - R[b][:, :, 0]) / 12
        return float(-(self.mass * (centre @ gravity)).sum())

    def node_through(self, kin, row: dict, acc: np.ndarray, alpha: np.ndarray,
                     gravity: np.ndarray) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """By node: the share of the elements' inertia less weight that it carries, as a
        rigid body's through variable (force, moment about the world origin), from the
        nodes' accelerations ``acc`` and angular accelerations ``alpha`` (rows by ``row``):
        what the cutset equations at the node add to its joints' reactions."""
        a, b = self.ends.T
        l0 = self.l0[:, None]
        dd, twists = [], []
        for node in (a, b):
            k = np.array([row[i] for i in node])
            t, w = kin.R[node][:, :, 0], kin.w[k]
            dd += [acc[k], l0 * (_cross(alpha[k], t) + _cross(w, _cross(w, t)))]
            twists.append(_dot(t, alpha[k]))
        dd = np.stack(dd, axis=1)
        weight = self.mass[:, None, None] * _WEIGHT[None, :, None] * gravity[None, None, :]
        p = np.einsum("ij,ejk->eik", _M0, dd) * self.mass[:, None, None] - weight
        torsion = np.einsum("ij,ej->ei", _MT, np.stack(twists, axis=1)) * self.polar[:, None]
        out: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for j, node in enumerate((a, b)):
            t = kin.R[node][:, :, 0]
            F = p[:, 2 * j]
            M = _cross(kin.r[node], F) + l0 * _cross(t, p[:, 2 * j + 1]) \
                + torsion[:, j, None] * t
            for i, f, m in zip(node.tolist(), F, M):
                old = out.get(i)
                out[i] = (f, m) if old is None else (old[0] + f, old[1] + m)
        return out


def beam_set(model) -> BeamSet | None:
    """The beam elements of a compiled mechanism's network (``None`` when it has none)."""
    elements = [e for e in model.eom.mechanism.network.elements if isinstance(e, BeamLaw)]
    return BeamSet(elements, model.node, model.number) if elements else None
