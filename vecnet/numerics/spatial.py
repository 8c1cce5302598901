"""The compiled model of a spatial mechanism: what is dimension-specific in space.

The tree is handed to the compiled kernels as numbers (:meth:`CompiledSpatial._tree_arrays`);
the force elements' laws and stored energies are compiled each in the element's own pose
variables (:func:`_pose_symbols`), the loop constraints are built from the chords'
primitives (points that coincide, perpendicular axes, a point on a plane, drivers, gears).
Everything else — kinematics, mass matrix, recursive scheme, snapshots and outputs — is
:class:`~vecnet.numerics.mechanism.CompiledModel`'s, shared with the plane.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import sympy

from ..builders.mechanism import DATUM
from ..core.rotations import cross
from ..elements import spatial as se
from ..elements.base import t
from ..elements.joints import RHO, joint_kind_of
from ..errors import FormulationError
from . import tree_kernels as rc
from .mechanism import CompiledModel, NodeKinematics, point_wrenches, push_wrench

if TYPE_CHECKING:
    from ..formulation.spatial import SpatialEquations

__all__ = ["CompiledSpatial"]

#: the kernel kind of each branch element that is no catalogued joint (first match)
_KINDS = ((se.SpatialArm, rc.ARM), (se.SpatialMass, rc.FREE), (se.SpatialFree, rc.FREE))


class CompiledSpatial(CompiledModel):
    """Numeric functions of a :class:`~vecnet.formulation.spatial.SpatialEquations`.

    Parameters
    ----------
    eom : SpatialEquations
    parameters : mapping, optional
        Values for symbolic parameters (by symbol or name).
    runtime : sequence of str
        Parameters left as arguments of the compiled functions, set by :meth:`bind`.
    linear_algebra : {"auto", "dense", "sparse"}
        How the constrained equations are solved (:attr:`CompiledModel.solver`).
    """

    def __init__(self, eom: SpatialEquations, parameters: dict | None = None,
                 runtime=(), linear_algebra: str = "auto") -> None:
        super().__init__(eom, parameters, runtime, linear_algebra)
        net, topo = eom.mechanism.network, eom.topology
        self.n, self.nu = len(eom.q), len(eom.u)
        self.velocity_rows = len(eom.velocity_constraint_names)
        self.m = len(eom.constraint_names) + self.velocity_rows
        self.constraint_names = (*eom.constraint_names, *eom.velocity_constraint_names)
        self.nodes = list(topo.nodes)
        self.node = {v: i for i, v in enumerate(self.nodes)}
        self.quaternions = [np.array([eom.coordinates.index(f"{b}.{c}") for c in
                                      ("qw", "qx", "qy", "qz")])
                            for b in topo.branches if "qw" in net.element(b).coordinates
                            and f"{b}.qw" in eom.coordinates]
        self._quaternion_index = np.array(self.quaternions, dtype=np.int64).reshape(-1, 4)
        self._numbers()
        self._compile_laws()
        self._head = {c: self.node[net.graph.ends(c)[1]] for c in topo.chords}
        # a wheel's direction as floats, as its compiled row takes it
        self.primitives = [(chord, kind, self.node[a], self.node[b],
                            np.asarray(e, dtype=float) if kind in ("contact", "rolling") else e,
                            f) for chord, kind, _, a, b, e, f in eom.primitives]
        self._couple()
        # the joints whose coordinates drivers, gears and racks constrain
        axial = [info for _, kind, _, _, _, _, f in eom.primitives if kind in ("drive", "mesh")
                 for info in ([f] if kind == "drive" else [term[2] for term in f["terms"]])]
        self.kernel_tree = self._tree_arrays()
        self._act_on({i for _, _, a, b, _, _ in self.primitives for i in (a, b)}
                     | {self.node[v] for info in axial for v in info["ends"]})
        # every constraint row's head and tail node; a driver's or gear's rows are not
        # wrenches on two nodes (a joint's own coordinate, two joints' angles)
        self._row_nodes = np.array([(b, a) for _, kind, a, b, _, _ in self.primitives
                                    for _ in range(3 if kind == "point" else 1)],
                                   dtype=np.int64).reshape(-1, 2)
        # a driver's row is a wrench on two bodies too: on a cut joint about or along its
        # axis, on a tree joint a row of its motion subspace's pseudo-inverse (walk nodes)
        self._drive_branch: dict[int, tuple[int, int]] = {}
        at = 0
        for _, kind, a, b, _, info in self.primitives:
            if kind == "drive" and info["u"] is not None:
                tree = self.kernel_tree
                branch = int(np.flatnonzero((tree.uo <= info["u"])
                                            & (info["u"] < tree.uo + tree.nk))[0])
                self._drive_branch[at] = (branch, info["u"] - int(tree.uo[branch]))
                self._row_nodes[at] = (tree.child[branch], tree.parent[branch])
            elif kind == "drive":
                tail, head = (self.node[v] for v in info["ends"])
                self._row_nodes[at] = (head, tail)
            at += 3 if kind == "point" else 1
        self._body_form = all(kind != "mesh" for _, kind, *_ in self.primitives)
        # the primitives in body form as arrays for primitive_rows, and each one's chord
        # and rows; the others (drivers, gears) stay with the loop of _constraints
        first, at = [], 0
        for _, kind, *_ in self.primitives:
            first.append(at)
            at += 3 if kind == "point" else 1
        chosen = [i for i, (_, kind, *_) in enumerate(self.primitives) if kind in rc.BODY_FORM]
        self._others = [(self.primitives[i], first[i])
                        for i in range(len(self.primitives)) if i not in set(chosen)]
        self._bias_needed = bool(self._others)
        pick = [self.primitives[i] for i in chosen]
        self._formed = (np.array([rc.BODY_FORM[p[1]] for p in pick], dtype=np.int64),
                        np.array([p[2] for p in pick], dtype=np.int64),
                        np.array([p[3] for p in pick], dtype=np.int64),
                        np.array([p[4] if p[4] is not None else np.zeros(3) for p in pick],
                                 dtype=float).reshape(-1, 3),
                        np.array([p[5] if p[5] is not None else np.zeros(3) for p in pick],
                                 dtype=float).reshape(-1, 3),
                        np.array([first[i] for i in chosen], dtype=np.int64))
        self._formed_rows = [(p[0], np.arange(first[i], first[i] + (3 if p[1] == "point"
                                                                     else 1)))
                             for i, p in zip(chosen, pick)]
        self._formed_index = np.concatenate([rows for _, rows in self._formed_rows]) \
            if pick else np.zeros(0, dtype=np.int64)
        nodes = self._row_nodes[self._formed_index]
        self._formed_kin = (np.array([self.row[n] for n in nodes[:, 0]], dtype=np.int64),
                            np.array([self.row[n] for n in nodes[:, 1]], dtype=np.int64))
        self._motions = {}
        self._mesh_numbers()
        for chord, kind, _, _, _, _, info in eom.primitives:
            if kind == "drive":
                f = info["motion"]
                self._motions[chord] = self.lambdify((t,), [f, f.diff(t), f.diff(t, 2)], chord)

    def _numbers(self) -> None:
        """Gravity and the bodies' masses and inertias, parameters put in."""
        self.gravity = np.array([self.number(g, "gravity") for g in self.eom.gravity])
        self.bodies = []
        for body in self.eom.bodies:
            J = np.array([[self.number(x, body["name"]) for x in row]
                          for row in body["J"].tolist()])
            self.bodies.append((body["name"], self.node[body["node"]],
                                self.number(body["m"], body["name"]), J))

    def _mesh_numbers(self) -> None:
        """The weights of gears and racks and the wheels' radii, axles and the normals of
        the planes they roll on as numbers, parameters put in."""
        self._mesh_terms, self._wheels = {}, {}
        for chord, kind, _, _, _, _, info in self.eom.primitives:
            if kind == "mesh":
                self._mesh_terms[chord] = [(self.number(weight, chord), initial, joint)
                                           for weight, initial, joint in info["terms"]]
            elif kind in ("contact", "rolling"):
                wheel = self.eom.mechanism.network.element(chord)
                self._wheels[chord] = (self.number(wheel.radius, chord),
                                       np.asarray(wheel.axle, dtype=float),
                                       np.asarray(wheel.normal, dtype=float))

    def _refresh(self) -> None:
        self._numbers()
        self._couple()
        self.kernel_tree = self._tree_arrays()
        self._mesh_numbers()

    def _compile_laws(self) -> None:
        """Every force element's law and stored energy as small functions of its own pose
        (:func:`_pose_symbols`), never of the whole mechanism's coordinates."""
        net = self.eom.mechanism.network
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
            self._laws.append((ends, joint, self.lambdify((t, symbols), [*F, *T], element.name)))
            energy = element.energy(pose)
            if energy is not None:
                self._energies.append((ends, joint, self.lambdify((symbols,), [energy],
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
                angle = np.arctan2(cross(pa, pb) @ e, pa @ pb) + initial
                rate = e @ (st.w[head] - st.w[tail])
            values.append([angle, rate, *e])
        return np.concatenate(values)

    def _wrenches(self, time, q, u, st) -> tuple[np.ndarray, dict]:
        if not self._laws:
            return self._no_wrenches, {}
        wrenches = np.zeros((len(self.nodes), 6))
        forces = {}
        for (name, _), (ends, joint, law) in zip(self.force_elements, self._laws):
            flat = law(time, self._pose_values(st, ends, joint, q, u))
            F, T = flat[:3], flat[3:]
            push_wrench(wrenches, st.r, ends, F, T)
            forces[name] = (ends, F, T)
        return wrenches, forces

    def _stored_energy(self, q, st) -> float:
        return sum(float(energy(self._pose_values(st, ends, joint, q, self.zero_speeds))[0])
                   for ends, joint, energy in self._energies)

    def joint_angle(self, element, kin: NodeKinematics) -> float:
        """Wrapped to (-pi, pi]: a spatial joint's angle is read off the two frames."""
        tail, head = (self.node[v] for v in self.eom.mechanism.network.graph.ends(element.name))
        return se.revolute_angle(element.axis, kin.R[tail], kin.R[head], element.R0)

    wrapped_angles = True

    def contact(self, element, kin: NodeKinematics) -> tuple[np.ndarray, np.ndarray]:
        """``(C, n)`` of a rolling wheel (:class:`~vecnet.elements.spatial.
        SpatialRollingContact`): the contact point and the plane's normal (world axes)."""
        tail, head = (self.node[v] for v in self.eom.mechanism.network.graph.ends(element.name))
        radius, axle, normal = self._wheels[element.name]
        n, ax = kin.R[tail] @ normal, kin.R[head] @ axle
        p = (n @ ax) * ax - n
        return kin.r[head] + radius * p / np.linalg.norm(p), n

    def effort_axes(self, element, kin: NodeKinematics) -> list:
        """The world axes of a gear's or rack's efforts (``None`` for a rack's force, which
        is along the direction the rack advances): each joint's axis, turned with its tail."""
        net = self.eom.mechanism.network
        return [None if label.startswith("force") else
                kin.R[self.node[net.graph.ends(joint)[0]]] @ net.element(joint).axis
                for label, (joint, *_) in zip(element.efforts_named, element.terms)]

    # -- the multibody interface --------------------------------------------------------
    def kinematic_map(self, q: np.ndarray) -> np.ndarray:
        """``N(q)`` with ``q' = N(q) u``."""
        return rc.kinematic_map(self.kernel_tree, q, self.nu)

    def rates(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """``q' = N(q) u``."""
        return rc.rates(self.kernel_tree, q, u)

    def normalize(self, q: np.ndarray) -> np.ndarray:
        """``q`` with every quaternion scaled to unit norm."""
        if not self.quaternions:
            return q
        q = np.array(q, dtype=float)
        idx = self._quaternion_index
        p = q[idx]
        q[idx] = p / np.sqrt((p * p).sum(axis=1))[:, None]
        return q

    def _tree_arrays(self) -> rc.Tree:
        """The tree as numbers for the compiled kernels (:mod:`vecnet.numerics.tree_kernels`)."""
        eom, net = self.eom, self.eom.mechanism.network
        walk = eom.walk
        prm = np.zeros((len(walk), rc.PARAMETERS))
        kinds, ground, qo, uo, nk = [], [], [], [], []
        for b, (here, there, branch, forward, qidx) in enumerate(walk):
            element = net.element(branch)
            joint = joint_kind_of(element)
            kind = joint.kernel if joint is not None else \
                next(k for cls, k in _KINDS if isinstance(element, cls))
            if eom.speeds == "body" and element.free_rotation:
                kind = rc.BODY_AXES[kind]
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
                prm[b, RHO:RHO + 3] = [self.number(x, branch) for x in element.rho]
            elif joint is not None:
                prm[b] = joint.row(element, lambda x, branch=branch: self.number(x, branch))
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

    def _constraints(self, time, q, u, kin, accelerations=True, reactions=False,
                     wrenches=None):
        m, nu = self.m, kin.Jw.shape[2]
        phi, phi_u, c, phi_t = np.zeros(m), np.zeros((m, nu)), np.zeros(m), np.zeros(m)
        maps = []
        R, r = kin.R, kin.r
        if len(self._formed[0]):
            st = kin.state
            W = wrenches if wrenches is not None else np.zeros((m, 2, 6))
            rc.primitive_rows(*self._formed, st.R, st.r, st.w, st.v, st.A0, accelerations, phi, c,
                           W)
            if nu:
                rows = self._formed_index
                phi_u[rows] = rc.wrench_rows(W[rows], *self._formed_kin, self._row_nodes[rows],
                                             r, kin.Jw, kin.Jv)
            if reactions:
                maps += [(chord, rows, W[rows, 0].T) for chord, rows in self._formed_rows]

        def react(chord, rows, force=None, torque=None, at=None):
            """The wrench on the head per unit multiplier: the chord's reaction (none for
            a gear or rack); a force acts at the head point or at the point ``at``."""
            if reactions:
                W = None if force is None and torque is None else np.zeros((6, len(rows)))
                if force is not None:
                    W[:] = point_wrenches(r[self._head[chord]] if at is None else at,
                                          force.T).T
                elif torque is not None:
                    W[:3] = torque
                maps.append((chord, rows, W))

        for (chord, kind, a, b, e, f), row in self._others:
            if kind == "drive":
                self._drive(row, time, q, kin, f, phi, phi_u, phi_t, c, accelerations)
                if wrenches is not None:
                    wrenches[row] = self._drive_wrenches(kin, f, row)
                along = (R[a] @ f["axis"]).reshape(3, 1)
                react(chord, np.array([row]), **{"torque" if f["quantity"] == "angle"
                                                 else "force": along})
                continue
            if kind in ("contact", "rolling"):
                self._rolling(chord, kind, row, a, b, kin, e, phi, phi_u, c, accelerations,
                              react)
                continue
            # a gear or rack: sum of weight * (coordinate - initial) over the two joints
            for weight, initial, info in self._mesh_terms[chord]:
                value, g, gamma = self._axial_value(kin, q, info, accelerations)
                phi[row] += weight * (value - initial)
                if phi_u.shape[1]:   # kinematics without Jacobians leave the rows out
                    phi_u[row] += weight * g
                if accelerations:
                    c[row] -= weight * gamma
            react(chord, np.array([row]))
        return phi, phi_u, phi_t, c, maps

    def _rolling(self, chord, kind, row, a, b, kin, e, phi, phi_u, c, accelerations,
                 react) -> None:
        """A row of a wheel rolling on the ground plane
        (:class:`~vecnet.elements.spatial.SpatialRollingContact`): the material point of the
        rim at the contact ``C = centre + radius d`` has no velocity along ``f`` (the
        plane's normal for ``"contact"``, whose row is also the rate of the contact's height
        ``phi``; a tangent for ``"rolling"``), ``f . (v + omega x radius d) = 0``. The
        plane is the ground's: its normal and tangents do not turn."""
        radius, axle, normal = self._wheels[chord]
        kb, out = self.row[b], np.empty(8)
        rc.rolling_row_into(kin.R[a], kin.R[b], kin.r[a], kin.r[b], normal, e, axle, radius,
                            kin.Jv[kb], kin.Jw[kb], kin.w[kb], kin.gv[kb], kin.gw[kb],
                            accelerations, phi_u[row], out)
        if kind == "contact":
            phi[row] = out[0]
        if accelerations:
            c[row] = out[1]
        react(chord, np.array([row]), force=out[2:5].reshape(3, 1), at=kin.r[b] + out[5:8])

    def _axial_value(self, kin, q, info, convective=True):
        """``(value, g, gamma)`` of a joint's angle or distance (an
        :meth:`~vecnet.formulation.spatial.SpatialEquations._axial_info`): its own
        coordinate when the joint is in the tree (``g`` a unit row, ``gamma`` zero), else
        from the frames, the rate row and convective term by :meth:`axial_row` (``gamma``
        ``None`` unless ``convective``). A cut joint's angle lies within pi of angle zero."""
        if info["q"] is not None:
            g = np.zeros(self.nu)
            g[info["u"]] = 1.0
            return q[info["q"]], g, 0.0
        a, b = (self.node[v] for v in info["ends"])
        R, r = kin.R, kin.r
        if info["quantity"] == "angle":
            value = se.revolute_angle(info["axis"], R[a], R[b], info["R0"])
        else:
            value = (R[a] @ info["axis"]) @ (r[b] - r[a])
        g, gamma = self.axial_row(kin, info["quantity"], a, b, info["axis"], convective)
        return value, g, gamma

    def _drive(self, row, time, q, kin, info, phi, phi_u, phi_t, c, acc):
        """The row of a motion driver: ``coordinate - f(t)``."""
        f, fd, fdd = self._motions_at(info, time)
        phi_t[row] = -fd
        value, g, gamma = self._axial_value(kin, q, info, acc)
        if phi_u.shape[1]:
            phi_u[row] = g
        phi[row] = value - f
        if info["q"] is None and info["quantity"] == "angle":   # from the frames: wrapped
            phi[row] = (phi[row] + np.pi) % (2 * np.pi) - np.pi
        if acc:
            c[row] = fdd - gamma

    def _drive_wrenches(self, kin, info, row) -> np.ndarray:
        """A driver's wrenches (2 x 6) on its row's head and tail node per unit multiplier:
        for a tree joint ``w = S^+^T e`` (``w . S = e``, the unit row of its speed) on the
        walk's child and ``-w`` on its parent; for a cut joint the unit torque about its
        axis, or the unit force along it at the head's point, and minus it on the tail."""
        at = self._drive_branch.get(row)
        if at is not None:
            branch, m = at
            S = kin.state.S[branch][:, :self.kernel_tree.nk[branch]]
            w = np.linalg.pinv(S)[m]
        else:
            tail, head = (self.node[v] for v in info["ends"])
            e = kin.R[tail] @ info["axis"]
            w = np.concatenate([e, np.zeros(3)]) if info["quantity"] == "angle" \
                else point_wrenches(kin.r[head], e)[0]
        return np.stack([w, -w])

    def _motions_at(self, info, time):
        return self._motions[info["name"]](time)

    own_position_constraints = True

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

    def input_forces(self, time: float, q: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
        """Names and the ``nu x inputs`` generalized forces of unit inputs at ``q``: the
        components of applied forces and torques
        (:attr:`~vecnet.formulation.spatial.SpatialEquations.input_columns`), then the
        loads across joints (named by their symbols)."""
        names, columns = self.eom.input_columns
        if "_inputs" not in self.__dict__:
            self._inputs = self.lambdify((list(self.eom.q),), list(columns), "inputs")
        matrix = self._inputs(q).reshape(columns.shape)
        return (tuple(names) + tuple(str(s) for s in self.eom.inputs),
                np.column_stack([matrix, *self._load_columns(q)]))


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
