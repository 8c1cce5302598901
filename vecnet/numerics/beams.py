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

from ..elements.beam import BeamLaw
from ..errors import ModelError


def _number(value: Any, owner: str) -> float:
    return float(value)

__all__ = ["BeamSet", "beam_set"]

_M0 = np.array([[156.0, 22.0, 54.0, -13.0], [22.0, 4.0, 13.0, -3.0],
                [54.0, 13.0, 156.0, -22.0], [-13.0, -3.0, -22.0, 4.0]]) / 420.0
_WEIGHT = np.array([0.5, 1.0 / 12.0, 0.5, -1.0 / 12.0])
_MT = np.array([[2.0, 1.0], [1.0, 2.0]]) / 6.0


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
        self.EA, self.GJ, self.EIy, self.EIz, self.mass, self.polar = values.T
        self.nodes = np.unique(self.ends)

    def __len__(self) -> int:
        return len(self.names)

    # -- elastic ------------------------------------------------------------------
    def deformations(self, r: np.ndarray, R: np.ndarray) -> dict[str, np.ndarray]:
        """The generalized deformations and what their gradients need, every element,
        from the node positions ``r`` (V x 3) and rotations ``R`` (V x 3 x 3)."""
        a, b = self.ends.T
        d = r[b] - r[a]
        length = np.sqrt(_dot(d, d))
        e = d / length[:, None]
        ya, za, yb, zb = R[a][:, :, 1], R[a][:, :, 2], R[b][:, :, 1], R[b][:, :, 2]
        bza, bzb, bya, byb = -_dot(e, ya), -_dot(e, yb), _dot(e, za), _dot(e, zb)
        tau = (_dot(za, yb) - _dot(ya, zb)) / 2
        bow = self.l0 / 30 * (2 * bza ** 2 - bza * bzb + 2 * bzb ** 2
                              + 2 * bya ** 2 - bya * byb + 2 * byb ** 2)
        eps = length - self.l0 + bow
        # the section turns by the twist along the element, so each plane's curvature
        # gains the other's times the twist; its projection on the element's linear
        # curvatures shifts both ends' bendings alike (Meijaard's second-order terms)
        shift_z, shift_y = -tau * (bya - byb) / 6, tau * (bza - bzb) / 6
        return dict(d=d, length=length, e=e, ya=ya, za=za, yb=yb, zb=zb, bza=bza, bzb=bzb,
                    bya=bya, byb=byb, tau=tau, eps=eps,
                    cza=bza + shift_z, czb=bzb + shift_z, cya=bya + shift_y, cyb=byb + shift_y)

    def energy(self, r: np.ndarray, R: np.ndarray) -> float:
        """The elastic energy stored in all the elements."""
        f = self.deformations(r, R)
        l0 = self.l0
        U = (self.EA * f["eps"] ** 2 + self.GJ * f["tau"] ** 2) / (2 * l0) \
            + 2 * self.EIz / l0 * (f["cza"] ** 2 + f["cza"] * f["czb"] + f["czb"] ** 2) \
            + 2 * self.EIy / l0 * (f["cya"] ** 2 + f["cya"] * f["cyb"] + f["cyb"] ** 2)
        return float(U.sum())

    def loads(self, r: np.ndarray, R: np.ndarray):
        """``(g_d, g_1, g_2)`` (E x 3 each): the gradient of the stored energy along the
        chord ``d = r_2 - r_1`` and along turns of the two end frames (world axes). The
        element pushes ``g_d`` and turns by ``-g_1`` the first node, ``-g_d`` and ``-g_2``
        the second; ``g_1 + g_2 + d x g_d = 0``."""
        f = self.deformations(r, R)
        l0, e, length = self.l0, f["e"], f["length"]
        bza, bzb, bya, byb, tau = f["bza"], f["bzb"], f["bya"], f["byb"], f["tau"]
        N = self.EA / l0 * f["eps"]
        share = N * l0 / 30
        kz, ky = 2 * self.EIz / l0, 2 * self.EIy / l0
        # the energy's slopes along the bendings with the twist's shifts, then by the
        # chain rule along the measured ones
        mza, mzb = kz * (2 * f["cza"] + f["czb"]), kz * (2 * f["czb"] + f["cza"])
        mya, myb = ky * (2 * f["cya"] + f["cyb"]), ky * (2 * f["cyb"] + f["cya"])
        mz, my = (mza + mzb) / 6, (mya + myb) / 6
        dza, dzb = mza + tau * my + share * (4 * bza - bzb), \
            mzb - tau * my + share * (4 * bzb - bza)
        dya, dyb = mya - tau * mz + share * (4 * bya - byb), \
            myb + tau * mz + share * (4 * byb - bya)
        dtau = self.GJ / l0 * tau - (bya - byb) * mz + (bza - bzb) * my

        def across(v):   # the part of v across the chord, over its length
            return (v - _dot(e, v)[:, None] * e) / length[:, None]

        ya, za, yb, zb = f["ya"], f["za"], f["yb"], f["zb"]
        g_d = N[:, None] * e - dza[:, None] * across(ya) - dzb[:, None] * across(yb) \
            + dya[:, None] * across(za) + dyb[:, None] * across(zb)
        twist = dtau[:, None] * (_cross(za, yb) - _cross(ya, zb)) / 2
        g_1 = dza[:, None] * _cross(e, ya) + dya[:, None] * _cross(za, e) + twist
        g_2 = dzb[:, None] * _cross(e, yb) + dyb[:, None] * _cross(zb, e) - twist
        return g_d, g_1, g_2

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
    def _tangent_parts(self, kin, row: dict):
        """The blocks ``D`` (E x 4 x 3 x nu) and convective parts ``c`` (E x 4 x 3) of
        ``d' = D u`` and ``d'' = D u' + c``, with the axial rows and their convective part
        (E x 2 x nu, E x 2)."""
        a, b = self.ends.T
        ka, kb = np.array([row[i] for i in a]), np.array([row[i] for i in b])
        l0 = self.l0[:, None]
        parts, conv, axial, axial_c = [], [], [], []
        for node, k in ((a, ka), (b, kb)):
            t = kin.R[node][:, :, 0]
            Jv, Jw, gv, gw, w = kin.Jv[k], kin.Jw[k], kin.gv[k], kin.gw[k], kin.w[k]
            slope = l0[:, :, None] * _cross(Jw, t[:, :, None])
            parts += [Jv, slope]
            conv += [gv, l0 * (_cross(gw, t) + _cross(w, _cross(w, t)))]
            axial.append(np.einsum("ek,ekn->en", t, Jw))
            axial_c.append(_dot(t, gw))
        return (np.stack(parts, axis=1), np.stack(conv, axis=1),
                np.stack(axial, axis=1), np.stack(axial_c, axis=1))

    def inertia(self, kin, row: dict, gravity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(M, Q)``: what the elements add to the mass matrix and to the generalized
        forces (weight less the velocity terms), in the speeds."""
        D, c, T, tc = self._tangent_parts(kin, row)
        nu = D.shape[-1]
        MD = np.einsum("ij,ejkn->eikn", _M0, D) * self.mass[:, None, None, None]
        Mc = np.einsum("ij,ejk->eik", _M0, c) * self.mass[:, None, None]
        weight = self.mass[:, None, None] * _WEIGHT[None, :, None] * gravity[None, None, :]
        flat = D.reshape(-1, nu)
        M = flat.T @ MD.reshape(-1, nu)
        Q = flat.T @ (weight - Mc).ravel()
        MT = np.einsum("ij,ejn->ein", _MT, T) * self.polar[:, None, None]
        M += T.reshape(-1, nu).T @ MT.reshape(-1, nu)
        Q -= T.reshape(-1, nu).T @ (np.einsum("ij,ej->ei", _MT, tc) * self.polar[:, None]).ravel()
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
