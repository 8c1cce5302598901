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
from ..errors import FormulationError
from . import multibody as mb
from . import recursive as rc

if TYPE_CHECKING:
    from ..formulation.spatial import SpatialEquations

__all__ = ["CompiledSpatial", "SpatialSnapshot", "outputs"]

#: the kernel kind of each branch element (first match)
_KINDS = ((se.SpatialArm, rc.ARM), (se.SpatialMass, rc.FREE), (se._Free, rc.FREE),
          (se.SpatialRevolute, rc.REVOLUTE), (se.SpatialPrismatic, rc.PRISMATIC),
          (se.SpatialCylindrical, rc.CYLINDRICAL), (se.SpatialScrew, rc.SCREW),
          (se.SpatialSpherical, rc.SPHERICAL), (se.SpatialUniversal, rc.UNIVERSAL),
          (se.SpatialPlanarJoint, rc.PLANAR), (se.SpatialWeld, rc.WELD),
          (se.SpatialPointOnLine, rc.LINE), (se.SpatialPointOnPlane, rc.PLANE))


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
        self._quaternion_index = np.array(self.quaternions, dtype=np.int64).reshape(-1, 4)

        self.bodies = []
        for body in eom.bodies:
            J = np.array([[self._number(x, body["name"]) for x in row]
                          for row in body["J"].tolist()])
            self.bodies.append((body["name"], self.node[body["node"]],
                                self._number(body["m"], body["name"]), J))
        self._compile_laws()
        self.primitives = [(chord, kind, self.node[a], self.node[b], e, f)
                           for chord, kind, _, a, b, e, f in eom.primitives]
        # loads across joints or between points (the inputs ``w``, what a coupled network
        # applies) and rotors turning with a joint's angle: (coordinate, tail, head, axis)
        self.loads = [self._axial_target(eom.load_target(target)) for target in eom.joint_loads]
        self.rotors = [(self._axial_target(eom.load_target(f"{joint}.angle")),
                        self._number(inertia, joint)) for joint, inertia in eom.rotors.items()]
        self._no_inputs = np.zeros(len(self.loads))
        # the joints whose coordinates drivers, gears and racks constrain
        axial = [info for _, kind, _, _, _, _, f in eom.primitives if kind in ("drive", "mesh")
                 for info in ([f] if kind == "drive" else [term[2] for term in f["terms"]])]
        needed = sorted({b[1] for b in self.bodies}
                        | {i for _, _, a, b, _, _ in self.primitives for i in (a, b)}
                        | {self.node[v] for info in axial for v in info["ends"]}
                        | {i for _, a, b, _ in self.loads for i in (a, b)}
                        | {i for (_, a, b, _), _ in self.rotors for i in (a, b)})
        self.needed = needed
        self._needed = np.array(needed, dtype=np.int64)
        self.row = {v: k for k, v in enumerate(needed)}
        q, u = list(eom.q), list(eom.u)
        self._tree = self._tree_arrays()
        self._zero = np.zeros(self.nu)
        self._no_wrenches = np.zeros((len(self.nodes), 6))
        self._motions, self._mesh_terms = {}, {}
        for chord, kind, _, _, _, _, info in eom.primitives:
            if kind == "mesh":   # the weights as numbers, parameters put in
                self._mesh_terms[chord] = [(self._number(weight, chord), initial, joint)
                                           for weight, initial, joint in info["terms"]]
            if kind == "drive":
                f = info["motion"]
                self._motions[chord] = self._lambdify((t,), [f, f.diff(t), f.diff(t, 2)], chord)

    def _axial_target(self, target) -> tuple:
        """A load target (:meth:`~vecnet.formulation.multibody.MechanismEquations.load_target`)
        with node indices and the axis as numbers."""
        coordinate, tail, head, axis = target
        return (coordinate, self.node[tail], self.node[head],
                None if axis is None else np.asarray(axis, dtype=float))

    def _axial_row(self, kin, coordinate, a, b, axis, convective=True):
        """``(g, gamma)`` of the rate of a joint's ``"angle"`` about or ``"distance"`` along
        its axis (fixed in the tail body, nodes ``a`` and ``b``), or of the distance between
        two points (``"line"``): the rate is ``g u`` and its derivative ``g u' + gamma``.
        ``g`` is also the generalized force of a unit load on that coordinate, and the row
        of a driver's constraint. ``gamma`` is ``None`` for a line, or unless
        ``convective``."""
        ka, kb = self.row[a], self.row[b]
        d = kin["r"][b] - kin["r"][a]
        Jv = kin["Jv"][kb] - kin["Jv"][ka]
        if coordinate == "line":
            return d @ Jv / np.linalg.norm(d), None
        e = kin["R"][a] @ axis
        wa = kin["w"][ka]
        if coordinate == "angle":    # e . (w_b - w_a), e turning with the tail
            g = e @ (kin["Jw"][kb] - kin["Jw"][ka])
            gamma = (e @ (kin["gw"][kb] - kin["gw"][ka]) + _cross(wa, e) @ (kin["w"][kb] - wa)
                     if convective else None)
            return g, gamma
        # e . d: (w_a x e) . d + e . (v_b - v_a), and once more for the convective part
        g = _cross(e, d) @ kin["Jw"][ka] + e @ Jv
        if not convective:
            return g, None
        ed = _cross(kin["gw"][ka], e) + _cross(wa, _cross(wa, e))
        return g, (ed @ d + 2 * _cross(wa, e) @ (kin["v"][kb] - kin["v"][ka])
                   + e @ (kin["gv"][kb] - kin["gv"][ka]))

    def _compile_laws(self) -> None:
        """Every force element's law and stored energy as small functions of its own pose
        (:func:`_pose_symbols`), never of the whole mechanism's coordinates."""
        eom, net = self.eom, self.eom.mechanism.network
        self.force_elements, self._laws, self._energies = [], [], []
        for element in net.elements:
            if type(element).through is se.SpatialElement.through:
                continue   # bodies, arms and joints have no force law
            joint = self._joint_of(element)
            pose, symbols = _pose_symbols(joint is not None)
            law = element.through(pose, t)
            if law is None:
                continue
            ends = tuple(self.node[v] for v in net.graph.ends(element.name))
            self.force_elements.append((element.name, ends))
            F, T = law
            self._laws.append((ends, joint, self._lambdify((t, symbols), [*F, *T], element.name)))
            energy = element.energy(pose)
            if energy is not None:
                self._energies.append((ends, joint, self._lambdify((symbols,), [energy],
                                                                   element.name)))

    def _joint_of(self, element):
        """What the law of a spring across a joint needs to find the joint's angle: the
        positions of its coordinate and speed when it is in the tree, else its end nodes,
        axis and initial frames."""
        name = getattr(element, "joint", None)
        if name is None or not isinstance(element, se.SpatialRotarySpringDamper):
            return None
        eom, net = self.eom, self.eom.mechanism.network
        joint = net.element(name)
        tail, head = (self.node[v] for v in net.graph.ends(name))
        p, _ = se.perpendiculars(joint.axis)
        tree = (eom.coordinates.index(f"{name}.angle"), eom.speed_names.index(f"{name}.angle'")) \
            if name in eom.topology.branches else None
        return tree, tail, head, np.asarray(joint.axis, float), p, joint.R_initial.T @ p, \
            joint.initial_angle

    def _pose_values(self, st, ends, joint, q, u) -> np.ndarray:
        """The numbers of an edge's pose (the layout of :func:`_pose_symbols`)."""
        a, b = ends
        values = [st.r[b] - st.r[a], st.R[a].ravel(), st.R[b].ravel(), st.v[b] - st.v[a],
                  st.w[a], st.w[b]]
        if joint is not None:
            tree, tail, head, axis, p, p_head, initial = joint
            e = st.R[tail] @ axis
            if tree is not None:
                angle, rate = q[tree[0]], u[tree[1]]
            else:   # as SpatialEquations.joint_angle: the turn since the initial pose
                pa, pb = st.R[tail] @ p, st.R[head] @ p_head
                angle = np.arctan2(_cross(pa, pb) @ e, pa @ pb) + initial
                rate = e @ (st.w[head] - st.w[tail])
            values.append([angle, rate, *e])
        return np.concatenate(values)

    def _wrenches(self, time, q, u, st) -> tuple[np.ndarray, dict]:
        """The spatial wrenches (about the world origin) the force elements apply to the
        nodes, and each element's ``(ends, F, T)`` by name: ``-F`` at the head point and
        ``-T`` on the head frame, ``F`` at the tail point and ``T`` on the tail frame."""
        wrenches = np.zeros((len(self.nodes), 6))
        forces = {}
        for (name, _), (ends, joint, law) in zip(self.force_elements, self._laws):
            flat = law(time, self._pose_values(st, ends, joint, q, u))
            F, T = flat[:3], flat[3:]
            a, b = ends
            wrenches[b, :3] -= T + _cross(st.r[b], F)
            wrenches[b, 3:] -= F
            wrenches[a, :3] += T + _cross(st.r[a], F)
            wrenches[a, 3:] += F
            forces[name] = (ends, F, T)
        return wrenches, forces

    # -- the multibody interface --------------------------------------------------------
    def kinematic_map(self, q: np.ndarray) -> np.ndarray:
        """``N(q)`` with ``q' = N(q) u``."""
        return rc.kinematic_map(self._tree, q, self.nu)

    def rates(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """``q' = N(q) u``."""
        return rc.rates(self._tree, q, u)

    def normalize(self, q: np.ndarray) -> np.ndarray:
        """``q`` with every quaternion scaled to unit norm."""
        if not self.quaternions:
            return q
        q = np.array(q, dtype=float)
        idx = self._quaternion_index
        q[idx] /= np.sqrt(np.einsum("ij,ij->i", q[idx], q[idx]))[:, None]
        return q

    def _tree_arrays(self) -> rc.Tree:
        """The tree as numbers for the compiled kernels (:mod:`vecnet.numerics.recursive`)."""
        eom, net = self.eom, self.eom.mechanism.network
        walk = eom.walk
        prm = np.zeros((len(walk), rc.PARAMETERS))
        kinds, ground, qo, uo, nk = [], [], [], [], []
        for b, (here, there, branch, forward, qidx) in enumerate(walk):
            element = net.element(branch)
            kind = next(k for cls, k in _KINDS if isinstance(element, cls))
            kinds.append(kind)
            ground.append(element.frame == "ground")
            if ground[-1] and here != DATUM:
                raise FormulationError(
                    f"{branch!r} joins two moving frames in the tree with its offset in world "
                    "axes; leave it out of the tree (it needs no coordinates in the cotree)")
            uidx = eom.speed_index[branch]
            qo.append(qidx[0] if qidx else 0)
            uo.append(uidx[0] if uidx else 0)
            nk.append(len(uidx))
            if kind == rc.ARM:
                prm[b, 15:18] = [self._number(x, branch) for x in element.rho]
                continue
            if getattr(element, "axis", None) is not None:
                prm[b, 0:3] = element.axis
                p, s = se.perpendiculars(element.axis)
                prm[b, 19:22], prm[b, 22:25] = p, s
            if hasattr(element, "R0"):
                prm[b, 3:12] = np.asarray(element.R0, dtype=float).reshape(9)
            if kind == rc.UNIVERSAL:
                prm[b, 12:15] = element.axis2
            if kind == rc.SCREW:
                prm[b, 18] = self._number(element.pitch, branch)
                prm[b, 25] = element.initial_angle
        parent = np.array([self.node[w[0]] for w in walk], dtype=np.int64)
        child = np.array([self.node[w[1]] for w in walk], dtype=np.int64)
        branch_of = np.full(len(self.nodes), -1, dtype=np.int64)
        branch_of[child] = np.arange(len(walk))
        bodies = self.bodies
        return rc.Tree(parent, child, np.array([1.0 if w[3] else -1.0 for w in walk]),
                       np.array(kinds, dtype=np.int64), np.array(ground, dtype=np.bool_),
                       np.array(qo, dtype=np.int64), np.array(uo, dtype=np.int64),
                       np.array(nk, dtype=np.int64), prm, len(self.nodes),
                       self.node[DATUM], branch_of,
                       np.array([b[1] for b in bodies], dtype=np.int64),
                       np.array([b[2] for b in bodies], dtype=float),
                       np.array([b[3] for b in bodies], dtype=float).reshape(-1, 3, 3),
                       self.gravity)

    def kinematics(self, q: np.ndarray, u: np.ndarray) -> dict:
        """Node rotations ``R`` (V x 3 x 3) and positions ``r`` (V x 3); for the nodes where
        bodies and constraints act (by :attr:`row`), ``Jw``, ``Jv`` (k x 3 x nu), ``gw``,
        ``gv`` (k x 3) and the angular and linear velocities ``w``, ``v``."""
        st = rc.state(self._tree, q, u)
        Jw, Jv, gw, gv = rc.jacobians(self._tree, st, self._needed, self.nu)
        rows = self._needed
        return {"R": st.R, "r": st.r, "Jw": Jw, "Jv": Jv, "gw": gw, "gv": gv,
                "w": st.w[rows], "v": st.v[rows], "state": st}

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
                self._drive(row, time, q, kin, f, phi, phi_u, phi_t, c, accelerations)
                e_world = R[a] @ f["axis"]
                maps.append((chord, np.array([row]),
                             "torque" if f["quantity"] == "angle" else "force",
                             e_world.reshape(3, 1)))
                row += 1
                continue
            if kind == "mesh":   # sum of weight * (coordinate - initial) over the two joints
                for weight, initial, info in self._mesh_terms[chord]:
                    value, g, gamma = self._axial_value(kin, q, info, accelerations)
                    phi[row] += weight * (value - initial)
                    phi_u[row] += weight * g
                    if accelerations:
                        c[row] -= weight * gamma
                maps.append((chord, np.array([row]), "mesh", None))
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

    def _axial_value(self, kin, q, info, convective=True):
        """``(value, g, gamma)`` of a joint's angle or distance (an
        :meth:`~vecnet.formulation.spatial.SpatialEquations._axial_info`): its own
        coordinate when the joint is in the tree (``g`` a unit row, ``gamma`` zero), else
        from the frames, the rate row and convective term by :meth:`_axial_row` (``gamma``
        ``None`` unless ``convective``). A cut joint's angle lies within pi of angle zero."""
        if info["q"] is not None:
            g = np.zeros(self.nu)
            g[info["u"]] = 1.0
            return q[info["q"]], g, 0.0
        a, b = (self.node[v] for v in info["ends"])
        R, r = kin["R"], kin["r"]
        if info["quantity"] == "angle":
            value = se.revolute_angle(info["axis"], R[a], R[b], info["R0"])
        else:
            value = (R[a] @ info["axis"]) @ (r[b] - r[a])
        g, gamma = self._axial_row(kin, info["quantity"], a, b, info["axis"], convective)
        return value, g, gamma

    def _drive(self, row, time, q, kin, info, phi, phi_u, phi_t, c, acc):
        """The row of a motion driver: ``coordinate - f(t)``."""
        f, fd, fdd = self._motions_at(info, time)
        phi_t[row] = -fd
        value, phi_u[row], gamma = self._axial_value(kin, q, info, acc)
        phi[row] = value - f
        if info["q"] is None and info["quantity"] == "angle":   # from the frames: wrapped
            phi[row] = (phi[row] + np.pi) % (2 * np.pi) - np.pi
        if acc:
            c[row] = fdd - gamma

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
        """Mass matrix, forces and constraints at ``(t, q, u)`` with the loads ``w``
        (:attr:`~vecnet.formulation.multibody.MechanismEquations.inputs`, default zero)."""
        w = self._no_inputs if w is None else w
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
        for (coordinate, a, b, axis), load in zip(self.loads, w):
            Q += load * self._axial_row(kin, coordinate, a, b, axis, convective=False)[0]
        for (_, a, b, axis), J in self.rotors:   # J (g u' + gamma) about the joint's axis
            g, gamma = self._axial_row(kin, "angle", a, b, axis)
            M += J * np.outer(g, g)
            Q -= J * gamma * g
        forces = {}
        if self._laws:
            wrenches, forces = self._wrenches(time, q, u, kin["state"])
            Q += rc.generalized_forces(self._tree, kin["state"], wrenches, nu)
        phi, phi_u, phi_t, c, maps = self._constraints(time, q, u, kin) if self.m else (
            np.zeros(0), np.zeros((0, nu)), np.zeros(0), np.zeros(0), [])
        return SpatialSnapshot(M, Q, phi, phi_u, phi_t, c, kin, forces, maps)

    def mass_and_forces(self, time: float, q: np.ndarray, u: np.ndarray):
        """``(M, Q)`` at ``(t, q, u)``."""
        snap = self.evaluate(time, q, u)
        return snap.M, snap.Q

    def _tree_forces(self, time, q, u, st):
        if self.rotors:
            return None   # their inertia turns with a joint, outside the tree's bodies
        if not self._laws:
            return self._zero, self._no_wrenches
        return self._zero, self._wrenches(time, q, u, st)[0]

    def _tree_constraints(self, time, q, u, st):
        Jw, Jv, gw, gv = rc.jacobians(self._tree, st, self._needed, self.nu)
        kin = {"R": st.R, "r": st.r, "Jw": Jw, "Jv": Jv, "gw": gw, "gv": gv,
               "w": st.w[self._needed], "v": st.v[self._needed]}
        _, phi_u, _, c, _ = self._constraints(time, q, u, kin)
        return phi_u, c

    def input_forces(self, time: float, q: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
        """Names and the ``nu x inputs`` generalized forces of unit inputs at ``q``: the
        components of applied forces and torques
        (:attr:`~vecnet.formulation.spatial.SpatialEquations.input_columns`), then the
        loads across joints (named by their symbols)."""
        names, columns = self.eom.input_columns
        if "_inputs" not in self.__dict__:
            self._inputs = self._lambdify((list(self.eom.q),), list(columns), "inputs")
        matrix = self._inputs(q).reshape(columns.shape)
        if not self.loads:
            return names, matrix
        kin = self.kinematics(q, self._zero)
        loads = [self._axial_row(kin, *target, convective=False)[0] for target in self.loads]
        return (tuple(names) + tuple(str(s) for s in self.eom.inputs),
                np.column_stack([matrix, *loads]))

    def potential(self, q: np.ndarray, kin: dict) -> float:
        """Gravity and spring potential energy."""
        value = -sum(m * self.gravity @ kin["r"][node] for _, node, m, _ in self.bodies)
        st = kin["state"]
        for ends, joint, energy in self._energies:
            value += float(energy(self._pose_values(st, ends, joint, q, self._zero))[0])
        return float(value)


def outputs(model: CompiledSpatial, times, qs, us, ws=None) -> dict[str, np.ndarray]:
    """Named time series: bodies (position, velocity, angular velocity, orientation),
    joints (angle, distance, reaction force and torque from multipliers and cutset
    equations), what the force elements apply, and energies; ``ws`` holds the loads across
    joints at each time (default zero). The planar outputs are these restricted to the
    plane (docs/conventions.md)."""
    eom = model.eom
    net, topo = eom.mechanism.network, eom.topology
    A_c = topo.chord_part.toarray()
    series: dict[str, list] = {}
    rows = None
    # a joint's own coordinates, whether it is in the tree or cut
    revolutes = [e for e in net.elements if getattr(e, "turns", False)]
    sliders = [e for e in net.elements if e.is_joint and "distance" in e.coordinates]
    meshes = {c: net.element(c) for c in topo.chords if isinstance(net.element(c), se.SpatialMesh)}
    ws = np.zeros((len(model.loads), len(times))) if ws is None else ws
    for time, q, u, w in zip(times, qs.T, us.T, ws.T):
        snap = model.evaluate(time, q, u, w=w)
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
            row[f"{name}.orientation"] = R[node]   # as quaternions below, all times at once
            acc = kin["Jv"][k] @ a + kin["gv"][k]
            alpha = kin["Jw"][k] @ a + kin["gw"][k]
            Jw = R[node] @ J @ R[node].T
            F = m * (acc - model.gravity)
            through[name] = (F, _cross(r[node], F) + Jw @ alpha + _cross(w, Jw @ w))
        for name, (ends, F, T) in snap.forces.items():
            through[name] = (F, _cross(r[ends[1]], F) + T)
            row[f"{name}.force"] = -F
            row[f"{name}.torque"] = -T
        wrench: dict[str, list] = {}
        for chord, idx, kind, vectors in snap.reaction_maps:
            if kind == "mesh":   # the tooth loads' efforts, about or along each joint's axis
                element = meshes[chord]
                efforts = element.efforts(float(lam[idx][0]), model.values)
                for label, effort, (joint, quantity, _, _) in zip(element.efforts_named,
                                                                 efforts, element.terms):
                    if label.startswith("force"):   # along the direction the rack advances
                        row[f"{chord}.{label}"] = effort
                        continue
                    tail = model.node[net.graph.ends(joint)[0]]
                    row[f"{chord}.{label}"] = effort * (R[tail] @ net.element(joint).axis)
                continue
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
            through[chord] = (-F, _cross(head, -F) - T)
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
            # with gears, part of the tooth force goes to the axles in a way the cutsets
            # do not hold (it needs the gears' geometry): no joint reactions then
            if not element.is_joint or meshes:
                continue
            F, Mo = through[element.name]
            head = r[model.node[net.graph.ends(element.name)[1]]]
            row[f"{element.name}.reaction"] = -F
            for axis, value in zip("xyz", -F):
                row[f"{element.name}.reaction.{axis}"] = value
            row[f"{element.name}.reaction_torque"] = -(Mo - _cross(head, F))
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
        p = out[f"{name}.orientation"] = matrix_quaternion(out[f"{name}.orientation"])
        for i in range(1, len(p)):
            if p[i] @ p[i - 1] < 0:
                p[i] = -p[i]
        out[f"{name}.euler"] = np.unwrap(euler_angles(p), axis=0)   # z-y-x (Bryant) angles
    return out


def _pose_symbols(joint: bool) -> tuple[dict, list]:
    """A pose dictionary as force laws read it (:meth:`~vecnet.elements.spatial.
    SpatialElement.through`), in symbols of its own, and those symbols in the order of
    :meth:`CompiledSpatial._pose_values`: ``dr``, ``R_tail`` and ``R_head`` (row by row),
    ``v``, ``omega_tail``, ``omega_head`` and, across a joint, its angle, rate and axis."""
    def block(name, n):
        return list(sympy.symbols(f"_{name}0:{n}", real=True))

    dr, Rt, Rh, v, wt, wh = (block(n, k) for n, k in (("dr", 3), ("Rt", 9), ("Rh", 9),
                                                      ("v", 3), ("wt", 3), ("wh", 3)))
    pose = {"dr": sympy.Matrix(dr), "R_tail": sympy.Matrix(3, 3, Rt),
            "R_head": sympy.Matrix(3, 3, Rh), "v": sympy.Matrix(v),
            "omega_tail": sympy.Matrix(wt), "omega_head": sympy.Matrix(wh)}
    symbols = dr + Rt + Rh + v + wt + wh
    if joint:
        angle, rate = sympy.symbols("_angle _rate", real=True)
        axis = block("axis", 3)
        pose["joint"] = (angle, rate, sympy.Matrix(axis))
        symbols += [angle, rate] + axis
    return pose, symbols
