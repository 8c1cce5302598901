"""Numerics of spatial multibody equations: the compiled model and the named outputs.

The node kinematics of the tree walk (rotation, position, velocity Jacobians and
convective accelerations) and the applied generalized forces are compiled once with
common-subexpression elimination. The mass matrix, the bodies' forces (gravity,
velocity and gyroscopic terms) and the constraints with their Jacobian in the speeds
and acceleration right-hand side are assembled numerically from them; nothing is
inverted symbolically. The model presents the interface of
:mod:`vecnet.numerics.multibody`, which assembles, partitions and integrates planar and
spatial mechanisms alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import sympy

from ..elements import spatial as se
from ..elements.base import t
from ..multibody import DATUM
from ..rotations import euler_angles, matrix_quaternion
from . import multibody as mb

if TYPE_CHECKING:
    from ..formulation.spatial import SpatialEquations

__all__ = ["CompiledSpatial", "SpatialSnapshot", "outputs", "WHOLE_LIMIT"]

#: Up to this many speeds the node kinematics are compiled as one function of (q, u).
WHOLE_LIMIT = 8


@dataclass
class SpatialSnapshot:
    """Everything about a spatial mechanism at one instant ``(t, q, u)``; ``phi_q`` is the
    constraint Jacobian in the speeds."""

    M: np.ndarray
    Q: np.ndarray
    phi: np.ndarray
    phi_q: np.ndarray
    phi_t: np.ndarray
    c: np.ndarray
    kin: dict = field(default_factory=dict)
    forces: dict = field(default_factory=dict)
    reaction_maps: list = field(default_factory=list)


def _skew(v) -> np.ndarray:
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _cross(a, b):
    """``a x b`` for 3-vectors (numpy.cross costs more than the arithmetic here)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


class CompiledSpatial(mb.CompiledModel):
    """Numeric functions of a :class:`~vecnet.formulation.spatial.SpatialEquations`.

    Parameters
    ----------
    eom : SpatialEquations
    parameters : mapping, optional
        Values for symbolic parameters (by symbol or name).
    """

    def __init__(self, eom: SpatialEquations, parameters: dict | None = None) -> None:
        super().__init__(eom, parameters)
        net, topo = eom.mechanism.network, eom.topology
        self.n, self.nu = len(eom.q), len(eom.u)
        self.m = len(eom.constraint_names)
        self.constraint_names = eom.constraint_names
        self.gravity = np.array([self._number(g, "gravity") for g in eom.gravity])
        self.nodes = list(topo.nodes)
        self.node = {v: i for i, v in enumerate(self.nodes)}
        self.quaternions = [np.array([eom.coordinates.index(f"{b}.{c}") for c in
                                      ("qw", "qx", "qy", "qz")])
                            for b in topo.branches if "qw" in net.element(b).coordinates
                            and f"{b}.qw" in eom.coordinates]

        self.bodies = []
        for body in eom.bodies:
            J = np.array([[self._number(x, body["name"]) for x in row]
                          for row in body["J"].tolist()])
            self.bodies.append((body["name"], self.node[body["node"]],
                                self._number(body["m"], body["name"]), J))
        self.force_elements = [(element.name, tuple(self.node[v] for v in net.graph.ends(element.name)))
                               for element, _, _ in eom.force_elements]
        self.primitives = [(chord, kind, self.node[a], self.node[b], e, f)
                           for chord, kind, _, a, b, e, f in eom.primitives]
        needed = sorted({b[1] for b in self.bodies}
                        | {i for _, _, a, b, _, _ in self.primitives for i in (a, b)})
        self.needed = needed
        self.row = {v: k for k, v in enumerate(needed)}
        q, u = list(eom.q), list(eom.u)
        #: up to this many speeds the tree walk is compiled whole (one call); above it the
        #: walk runs numerically over small compiled branch motions (expressions of a whole
        #: chain grow too fast to compile)
        self.whole = self.nu <= WHOLE_LIMIT
        if self.whole:
            exprs = []
            for v in self.nodes:
                exprs += list(eom.node_rotation[v]) + list(eom.node_position[v])
            for i in needed:
                v = self.nodes[i]
                exprs += (list(eom.node_angular_jacobian[v]) + list(eom.node_velocity_jacobian[v])
                          + list(eom.node_angular_convective[v])
                          + list(eom.node_velocity_convective[v]))
            self._kinematics = self._lambdify((q, u), exprs, "kinematics")
        else:
            self._branches = self._compile_branches()
        applied = list(eom.applied_forces)
        for _, F, T in eom.force_elements:
            applied += list(F) + list(T)
        self._applied = self._lambdify((t, q, u), applied, "force elements") if applied else None
        self._N = self._lambdify((q,), list(eom.N), "kinematic map")
        energies = []
        for element in net.elements:
            if type(element).energy is se.SpatialElement.energy:
                continue
            energy = element.energy(eom.pose(element.name))
            if energy is not None:
                energies.append(energy)
        self._energy = self._lambdify((q,), [sympy.Add(*energies)], "springs") if energies else None
        self._zero = np.zeros(self.nu)
        self._motions = {}
        for chord, kind, _, _, _, _, info in eom.primitives:
            if kind == "drive":
                f = info["motion"]
                self._motions[chord] = self._lambdify((t,), [f, f.diff(t), f.diff(t, 2)], chord)

    # -- the multibody interface --------------------------------------------------------
    def kinematic_map(self, q: np.ndarray) -> np.ndarray:
        """``N(q)`` with ``q' = N(q) u``."""
        return self._N(q).reshape(self.n, self.nu)

    def rates(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """``q' = N(q) u``."""
        return self.kinematic_map(q) @ u

    def normalize(self, q: np.ndarray) -> np.ndarray:
        """``q`` with every quaternion scaled to unit norm."""
        if not self.quaternions:
            return q
        q = np.array(q, dtype=float)
        for idx in self.quaternions:
            q[idx] /= np.linalg.norm(q[idx])
        return q

    def _compile_branches(self) -> list[tuple]:
        """Per tree branch, in walk order: the node indices, direction, frame, the indices
        of its coordinates and speeds, and a compiled function of its own ``(q_b, u_b)``
        giving ``R_rel, rho, W, V, W' u_b, V' u_b``."""
        from ..formulation.spatial import _rate

        eom, net = self.eom, self.eom.mechanism.network
        out = []
        for here, there, branch, forward, qidx in eom.walk:
            element = net.element(branch)
            uidx = eom.speed_index[branch]
            qb = [eom.q[i] for i in qidx]
            ub = [eom.u[i] for i in uidx]
            Rrel, rho, W, V, Nb = element.motion(qb)
            k = len(uidx)
            qdot = list(Nb * sympy.Matrix(ub)) if k else []
            Wd = _rate(W, qb, qdot) * sympy.Matrix(ub) if k else sympy.zeros(3, 1)
            Vd = _rate(V, qb, qdot) * sympy.Matrix(ub) if k else sympy.zeros(3, 1)
            exprs = list(Rrel) + list(rho) + list(W) + list(V) + list(Wd) + list(Vd)
            fn = self._lambdify((qb, ub), exprs, branch)
            if not qidx:   # no coordinates (an arm, a weld): its motion is a constant
                constant = fn([], [])
                fn = lambda qq, uu, constant=constant: constant  # noqa: E731
            out.append((self.node[here], self.node[there], forward, element.frame == "tail",
                        np.array(qidx, dtype=int), np.array(uidx, dtype=int), k, fn))
        return out

    def _walk(self, q: np.ndarray, u: np.ndarray):
        """The tree walk in numbers: every node's rotation, position, Jacobians and
        convective terms from its parent's (as :func:`~vecnet.formulation.spatial.spatial_kinematics`
        does in symbols)."""
        V, nu = len(self.nodes), self.nu
        R = np.zeros((V, 3, 3))
        r, gw, gv = np.zeros((V, 3)), np.zeros((V, 3)), np.zeros((V, 3))
        Jw, Jv = np.zeros((V, 3, nu)), np.zeros((V, 3, nu))
        R[self.node[DATUM]] = np.eye(3)
        for here, there, forward, tail, qidx, uidx, k, fn in self._branches:
            flat = fn(q[qidx], u[uidx])
            Rrel, rho = flat[:9].reshape(3, 3), flat[9:12]
            W, Vm = flat[12:12 + 3 * k].reshape(3, k), flat[12 + 3 * k:12 + 6 * k].reshape(3, k)
            Wd, Vd = flat[12 + 6 * k:15 + 6 * k], flat[15 + 6 * k:18 + 6 * k]
            w_here = Jw[here] @ u
            sign = 1.0 if forward else -1.0
            R[there] = R[here] @ Rrel if forward else R[here] @ Rrel.T
            Rt = R[here] if forward else R[there]
            Jw[there] = Jw[here]
            gw[there] = gw[here]
            if k:
                cols = Rt @ W
                Jw[there][:, uidx] += sign * cols
                gw[there] = gw[here] + sign * (_cross(w_here, cols @ u[uidx]) + Rt @ Wd)
            if not tail:
                r[there] = r[here] + sign * rho
                Jv[there] = Jv[here]
                if k:
                    Jv[there][:, uidx] += sign * Vm
                gv[there] = gv[here] + sign * Vd
                continue
            d = Rt @ rho
            slide = Rt @ (Vm @ u[uidx]) if k else np.zeros(3)
            if forward:
                w_ref, g_ref, J_ref = w_here, gw[here], Jw[here]
            else:
                J_ref, g_ref = Jw[there], gw[there]
                w_ref = J_ref @ u
            r[there] = r[here] + sign * d
            Jv[there] = Jv[here] - sign * (_skew(d) @ J_ref)
            if k:
                Jv[there][:, uidx] += sign * (Rt @ Vm)
            gv[there] = gv[here] + sign * (_cross(g_ref, d) + _cross(w_ref, _cross(w_ref, d))
                                           + 2 * _cross(w_ref, slide) + Rt @ Vd)
        rows = self.needed
        return R, r, Jw[rows], Jv[rows], gw[rows], gv[rows]

    def kinematics(self, q: np.ndarray, u: np.ndarray) -> dict:
        """Node rotations ``R`` (V x 3 x 3) and positions ``r`` (V x 3); for the nodes where
        bodies and constraints act (by :attr:`row`), ``Jw``, ``Jv`` (k x 3 x nu), ``gw``,
        ``gv`` (k x 3) and the angular and linear velocities ``w``, ``v``."""
        if not self.whole:
            R, r, Jw, Jv, gw, gv = self._walk(np.asarray(q, float), np.asarray(u, float))
            out = {"R": R, "r": r, "Jw": Jw, "Jv": Jv, "gw": gw, "gv": gv}
            out["w"] = Jw @ u
            out["v"] = Jv @ u
            return out
        V, nu, k = len(self.nodes), self.nu, len(self.needed)
        flat = self._kinematics(q, u)
        R = flat[:12 * V].reshape(V, 12)
        per = flat[12 * V:].reshape(k, 6 * nu + 6)
        out = {"R": R[:, :9].reshape(V, 3, 3), "r": R[:, 9:],
               "Jw": per[:, :3 * nu].reshape(k, 3, nu), "Jv": per[:, 3 * nu:6 * nu].reshape(k, 3, nu),
               "gw": per[:, 6 * nu:6 * nu + 3], "gv": per[:, 6 * nu + 3:]}
        out["w"] = out["Jw"] @ u
        out["v"] = out["Jv"] @ u
        return out

    def _constraints(self, time, q, u, kin, accelerations=True):
        m, nu = self.m, self.nu
        phi, phi_u, c, phi_t = np.zeros(m), np.zeros((m, nu)), np.zeros(m), np.zeros(m)
        maps = []   # (chord, rows, kind, vector): the wrench on the head per unit multiplier
        row = 0
        R, r = kin["R"], kin["r"]
        for chord, kind, a, b, e, f in self.primitives:
            ka, kb = self.row[a], self.row[b]
            Jwa, Jwb, Jva, Jvb = kin["Jw"][ka], kin["Jw"][kb], kin["Jv"][ka], kin["Jv"][kb]
            wa, wb = kin["w"][ka], kin["w"][kb]
            if kind == "drive":
                self._drive(row, time, q, kin, a, b, ka, kb, f, phi, phi_u, phi_t, c,
                            accelerations)
                e_world = R[a] @ f["axis"]
                maps.append((chord, np.array([row]),
                             "torque" if f["quantity"] == "angle" else "force",
                             e_world.reshape(3, 1)))
                row += 1
                continue
            if kind == "point":
                rows = slice(row, row + 3)
                phi[rows] = r[b] - r[a]
                phi_u[rows] = Jvb - Jva
                c[rows] = -(kin["gv"][kb] - kin["gv"][ka])
                maps.append((chord, np.arange(row, row + 3), "force", np.eye(3)))
                row += 3
                continue
            ea = R[a] @ e
            if accelerations:   # e'' without u'
                ed = _cross(kin["gw"][ka], ea) + _cross(wa, _cross(wa, ea))
            if kind == "perpendicular":
                fb = R[b] @ f
                axis = _cross(ea, fb)
                phi[row] = ea @ fb
                phi_u[row] = axis @ (Jwa - Jwb)
                if accelerations:
                    fd = _cross(kin["gw"][kb], fb) + _cross(wb, _cross(wb, fb))
                    c[row] = -(ed @ fb + 2 * _cross(wa, ea) @ _cross(wb, fb) + ea @ fd)
                maps.append((chord, np.array([row]), "torque", -axis.reshape(3, 1)))
            else:  # plane: ea . (r_b - r_a) = 0
                d = r[b] - r[a]
                phi[row] = ea @ d
                phi_u[row] = _cross(ea, d) @ Jwa + ea @ (Jvb - Jva)
                if accelerations:
                    c[row] = -(ed @ d + 2 * _cross(wa, ea) @ (kin["v"][kb] - kin["v"][ka])
                               + ea @ (kin["gv"][kb] - kin["gv"][ka]))
                maps.append((chord, np.array([row]), "force", ea.reshape(3, 1)))
            row += 1
        return phi, phi_u, phi_t, c, maps

    def _drive(self, row, time, q, kin, a, b, ka, kb, info, phi, phi_u, phi_t, c, acc):
        """The row of a motion driver: ``coordinate - f(t)``."""
        f, fd, fdd = self._motions_at(info, time)
        phi_t[row] = -fd
        if info["q"] is not None:   # the joint is in the tree: its own coordinate
            phi[row] = q[info["q"]] - f
            phi_u[row, info["u"]] = 1.0
            c[row] = fdd
            return
        R, r = kin["R"], kin["r"]
        ea = R[a] @ info["axis"]
        wa, wb = kin["w"][ka], kin["w"][kb]
        if info["quantity"] == "angle":
            angle = se.revolute_angle(info["axis"], R[a], R[b], info["R0"])
            phi[row] = (angle - f + np.pi) % (2 * np.pi) - np.pi
            phi_u[row] = ea @ (kin["Jw"][kb] - kin["Jw"][ka])
            if acc:
                c[row] = fdd - (ea @ (kin["gw"][kb] - kin["gw"][ka]) + _cross(wa, ea) @ (wb - wa))
            return
        d = r[b] - r[a]
        phi[row] = ea @ d - f
        phi_u[row] = _cross(ea, d) @ kin["Jw"][ka] + ea @ (kin["Jv"][kb] - kin["Jv"][ka])
        if acc:
            ed = _cross(kin["gw"][ka], ea) + _cross(wa, _cross(wa, ea))
            c[row] = fdd - (ed @ d + 2 * _cross(wa, ea) @ (kin["v"][kb] - kin["v"][ka])
                            + ea @ (kin["gv"][kb] - kin["gv"][ka]))

    def _motions_at(self, info, time):
        return self._motions[info["name"]](time)

    def constraints(self, time: float, q: np.ndarray):
        """``(Phi, Phi_u, Phi_t)`` at ``(t, q)``; the Jacobian is in the speeds
        (``Phi_u = Phi_q N``), which is all assembly and projection need."""
        kin = self.kinematics(q, self._zero)
        return self._constraints(time, q, self._zero, kin, accelerations=False)[:3]

    #: ``constraints`` gives the Jacobian in the speeds (reused by the multibody numerics)
    jacobian_in_speeds = True

    def position_constraints(self, time: float, q: np.ndarray):
        """The constraints (with every quaternion normalized, so they do not depend on its
        length) and the quaternions' norms ``(|p|^2 - 1)/2``, with their Jacobian in ``q``:
        ``Phi_u N^+`` scaled by ``1/|p|`` in each quaternion's columns, and ``p^T``."""
        unit = self.normalize(q)
        phi, phi_u, _ = self.constraints(time, unit)
        N = self.kinematic_map(unit)
        jac = phi_u @ np.linalg.solve(N.T @ N, N.T) if self.m else np.zeros((0, self.n))
        for idx in self.quaternions:
            jac[:, idx] /= np.linalg.norm(q[idx])
        rows, res = [jac], [phi]
        for idx in self.quaternions if self.m else ():   # alone, normalize() suffices
            row = np.zeros((1, self.n))
            row[0, idx] = q[idx]
            rows.append(row)
            res.append(np.array([(q[idx] @ q[idx] - 1.0) / 2]))
        return np.concatenate(res), np.vstack(rows)

    def velocity_constraints(self, time: float, q: np.ndarray):
        """``(Phi_u, Phi_t)``."""
        return self.constraints(time, q)[1:]

    def evaluate(self, time: float, q: np.ndarray, u: np.ndarray, w=None,
                 extras: bool = False) -> SpatialSnapshot:
        """Mass matrix, forces and constraints at ``(t, q, u)``."""
        kin = self.kinematics(q, u)
        nu = self.nu
        M, Q = np.zeros((nu, nu)), np.zeros(nu)
        for _, node, m, J in self.bodies:
            k = self.row[node]
            R = kin["R"][node]
            Jv, Jwb = kin["Jv"][k], R.T @ kin["Jw"][k]
            wb, gwb = Jwb @ u, R.T @ kin["gw"][k]
            M += m * Jv.T @ Jv + Jwb.T @ J @ Jwb
            Q += Jv.T @ (m * (self.gravity - kin["gv"][k])) - Jwb.T @ (J @ gwb + _cross(wb, J @ wb))
        forces = {}
        if self._applied is not None:
            flat = self._applied(time, q, u)
            Q += flat[:nu]
            at = nu
            for name, ends in self.force_elements:
                forces[name] = (ends, flat[at:at + 3], flat[at + 3:at + 6])
                at += 6
        phi, phi_u, phi_t, c, maps = self._constraints(time, q, u, kin) if self.m else (
            np.zeros(0), np.zeros((0, nu)), np.zeros(0), np.zeros(0), [])
        return SpatialSnapshot(M, Q, phi, phi_u, phi_t, c, kin, forces, maps)

    def mass_and_forces(self, time: float, q: np.ndarray, u: np.ndarray):
        """``(M, Q)`` at ``(t, q, u)``."""
        snap = self.evaluate(time, q, u)
        return snap.M, snap.Q

    def input_forces(self, time: float, q: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
        """Names and the ``nu x inputs`` generalized forces of unit inputs at ``q``
        (:attr:`~vecnet.formulation.spatial.SpatialEquations.input_columns`)."""
        names, columns = self.eom.input_columns
        if "_inputs" not in self.__dict__:
            self._inputs = self._lambdify((list(self.eom.q),), list(columns), "inputs")
        return names, self._inputs(q).reshape(columns.shape)

    def potential(self, q: np.ndarray, kin: dict) -> float:
        """Gravity and spring potential energy."""
        value = -sum(m * self.gravity @ kin["r"][node] for _, node, m, _ in self.bodies)
        if self._energy is not None:
            value += float(self._energy(q)[0])
        return float(value)


def outputs(model: CompiledSpatial, times, qs, us) -> dict[str, np.ndarray]:
    """Named time series: bodies (position, velocity, angular velocity, orientation),
    joints (angle, distance, reaction force and torque from multipliers and cutset
    equations), what the force elements apply, and energies. The planar outputs are these
    restricted to the plane (docs/conventions.md)."""
    eom = model.eom
    net, topo = eom.mechanism.network, eom.topology
    A_c = topo.chord_part.toarray()
    series: dict[str, list] = {}
    rows = None
    # a joint's own coordinates, whether it is in the tree or cut
    revolutes = [e for e in net.elements if getattr(e, "turns", False)]
    sliders = [e for e in net.elements if e.is_joint and "distance" in e.coordinates]
    for time, q, u in zip(times, qs.T, us.T):
        snap = model.evaluate(time, q, u)
        if rows is None:
            rows = mb.independent_rows(snap.phi_q)
        a, lam = mb.accelerations(snap, rows)
        kin = snap.kin
        row = {}
        kinetic = 0.5 * u @ snap.M @ u
        potential = model.potential(q, kin)
        row.update(kinetic=kinetic, potential=potential, energy=kinetic + potential)
        row["constraint residual"] = float(np.max(np.abs(snap.phi))) if len(snap.phi) else 0.0
        R, r = kin["R"], kin["r"]
        through = {}   # edge -> (F, moment about the origin)
        for name, node, m, J in model.bodies:
            k = model.row[node]
            v, w = kin["v"][k], kin["w"][k]
            for axis, value in zip("xyz", r[node]):
                row[f"{name}.{axis}"] = value
            row[f"{name}.position"] = r[node]
            row[f"{name}.velocity"] = v
            for axis, value in zip(("vx", "vy", "vz"), v):
                row[f"{name}.{axis}"] = value
            row[f"{name}.omega"] = w
            row[f"{name}.orientation"] = matrix_quaternion(R[node])
            acc = kin["Jv"][k] @ a + kin["gv"][k]
            alpha = kin["Jw"][k] @ a + kin["gw"][k]
            Jw = R[node] @ J @ R[node].T
            F = m * (acc - model.gravity)
            through[name] = (F, np.cross(r[node], F) + Jw @ alpha + np.cross(w, Jw @ w))
        for name, (ends, F, T) in snap.forces.items():
            through[name] = (F, np.cross(r[ends[1]], F) + T)
            row[f"{name}.force"] = -F
            row[f"{name}.torque"] = -T
        wrench: dict[str, list] = {}
        for chord, idx, kind, vectors in snap.reaction_maps:
            F, T = wrench.setdefault(chord, [np.zeros(3), np.zeros(3)])
            if kind == "force":
                F += vectors @ lam[idx]
            else:
                T += vectors @ lam[idx]
        for chord, idx, kind, _ in snap.reaction_maps:
            if chord in model._motions:
                row[f"{chord}.effort"] = float(lam[idx][0])
        for chord, (F, T) in wrench.items():
            head = r[model.node[net.graph.ends(chord)[1]]]
            through[chord] = (-F, np.cross(head, -F) - T)
        chords = topo.chords
        if chords:
            Fc = np.array([through.get(c, (np.zeros(3), np.zeros(3)))[0] for c in chords])
            Mc = np.array([through.get(c, (np.zeros(3), np.zeros(3)))[1] for c in chords])
            Fb, Mb = -A_c @ Fc, -A_c @ Mc
        else:
            Fb = Mb = np.zeros((len(topo.branches), 3))
        for i, b in enumerate(topo.branches):
            through[b] = (Fb[i], Mb[i])
        for element in net.elements:
            if not element.is_joint:
                continue
            F, Mo = through[element.name]
            head = r[model.node[net.graph.ends(element.name)[1]]]
            row[f"{element.name}.reaction"] = -F
            for axis, value in zip("xyz", -F):
                row[f"{element.name}.reaction.{axis}"] = value
            row[f"{element.name}.reaction_torque"] = -(Mo - np.cross(head, F))
        for element in revolutes:
            tail, head = (model.node[v] for v in net.graph.ends(element.name))
            row[f"{element.name}.angle"] = se.revolute_angle(element.axis, R[tail], R[head],
                                                             element.R0)
        for element in sliders:   # along the axis turned with the tail, tail point to head
            tail, head = (model.node[v] for v in net.graph.ends(element.name))
            along = R[tail] @ element.axis
            row[f"{element.name}.distance"] = float(along @ (r[head] - r[tail]))
        for name, value in row.items():
            series.setdefault(name, []).append(value)
    out = {k: np.array(v) for k, v in series.items()}
    if not len(times):
        return out
    for element in revolutes:
        out[f"{element.name}.angle"] = np.unwrap(out[f"{element.name}.angle"])
    for name, *_ in model.bodies:  # quaternions continuous in time (p and -p are one rotation)
        p = out[f"{name}.orientation"]
        for i in range(1, len(p)):
            if p[i] @ p[i - 1] < 0:
                p[i] = -p[i]
        out[f"{name}.euler"] = np.unwrap(euler_angles(p), axis=0)   # z-y-x (Bryant) angles
    return out
