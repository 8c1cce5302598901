"""The compiled model of a planar mechanism: what is dimension-specific in the plane.

Every branch moves its head frame relative to its tail frame by a motion affine in its
own coordinates (a turn about z and an in-plane offset), handed to the compiled kernels
(:mod:`vecnet.numerics.tree_kernels`) as numbers. The small laws of cut joints, drivers and
force elements are compiled, with common subexpressions, in an edge's relative pose
``x = (dx, dy, dtheta, tail angle)``. Everything else — kinematics, mass matrix,
recursive scheme, snapshots and outputs — is
:class:`~vecnet.numerics.mechanism.CompiledModel`'s, shared with space.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import sympy

from ..builders.mechanism import DATUM
from ..elements import planar as pe
from ..elements.base import t
from ..errors import FormulationError
from . import tree_kernels as rc
from .mechanism import CompiledModel, NodeKinematics, point_wrenches, push_wrench

if TYPE_CHECKING:
    from ..formulation.planar import MultibodyEquations

__all__ = ["CompiledMechanism"]

_Z = np.array([0.0, 0.0, 1.0])


class CompiledMechanism(CompiledModel):
    """Numeric functions of a :class:`MultibodyEquations`, set up once.

    Parameters
    ----------
    eom : MultibodyEquations
    parameters : mapping, optional
        Values for symbolic parameters (by symbol or name).
    runtime : sequence of str
        Parameters left as arguments of the compiled functions, set by :meth:`bind`.
    linear_algebra : {"auto", "dense", "sparse"}
        How the constrained equations are solved (:attr:`CompiledModel.solver`).
    """

    def __init__(self, eom: MultibodyEquations, parameters: dict | None = None,
                 runtime=(), linear_algebra: str = "auto") -> None:
        super().__init__(eom, parameters, runtime, linear_algebra)
        net, topo = eom.mechanism.network, eom.topology
        self.n = self.nu = len(eom.q)
        self.node = {node: i for i, node in enumerate(topo.nodes)}
        self._numbers()
        self._body_nodes = np.array([b[1] for b in self.bodies], dtype=int)
        quantity_symbols = [sympy.Symbol(f"{b[0]}.{w}", real=True) for b in self.bodies
                            for w in ("x", "y", "angle", "vx", "vy", "omega")]

        # the small compiled laws, in relative pose variables x = (dx, dy, dtheta, tail angle)
        x = sympy.symbols("_dx _dy _dth _tht", real=True)
        xd = sympy.symbols("_dxd _dyd _dthd _thtd", real=True)
        dr, dth, tht = sympy.Matrix(x[:2]), x[2], x[3]
        self.constraint_laws, self._laws, self._energies = [], [], []
        pins, self._pin_chords = [], []   # (first row, tail node, head node) of cut revolutes
        row = 0
        for chord in topo.chords:
            element = net.element(chord)
            ends = tuple(self.node[v] for v in net.graph.ends(chord))
            rows = element.chord_constraints(dr, dth, tht, t)
            if rows:
                phi = sympy.Matrix([e for _, e in rows]).xreplace(self.values)
                grad = phi.jacobian(x)
                xdv = sympy.Matrix(xd)
                # Phi'' = grad . x'' + second, with x'' = J q'' + convective terms
                second = sympy.Matrix([(xdv.T * sympy.hessian(phi[i], x) * xdv)[0]
                                       for i in range(len(rows))])
                second += 2 * grad.diff(t) * xdv + phi.diff(t, 2)
                if isinstance(element, pe.Revolute):
                    # the points coincide: rows dr, in one array operation for all pins
                    pins.append((row, *ends))
                    self._pin_chords.append(chord)
                else:
                    fn = self._compile((t, x, xd), [phi, grad, phi.diff(t), second], chord)
                    self.constraint_laws.append((chord, ends, np.arange(row, row + len(rows)), fn))
                row += len(rows)
        # the velocity (nonholonomic) constraints last, linear in the rates x':
        # g = G(x) x' + b(x, t); its rate G x'' + (dg/dx) x' + dg/dt with x'' = J u' + ...
        self.velocity_laws = []
        for chord in topo.chords:
            element = net.element(chord)
            rows = element.velocity_constraints(dr, dth, tht, sympy.Matrix(xd[:2]), xd[2],
                                                xd[3], t)
            if not rows:
                continue
            ends = tuple(self.node[v] for v in net.graph.ends(chord))
            g = sympy.Matrix([e for _, e in rows]).xreplace(self.values)
            G = g.jacobian(xd)
            if G.has(*xd):
                raise FormulationError(f"{chord!r}: a velocity constraint must be linear in "
                                       "the rates")
            b = g.xreplace({v: 0 for v in xd})
            drift = g.jacobian(x) * sympy.Matrix(xd) + g.diff(t)
            fn = self._compile((t, x, xd), [G, b, drift], chord)
            self.velocity_laws.append((chord, ends, np.arange(row, row + len(rows)), fn))
            row += len(rows)
        self.velocity_rows = sum(len(rows) for _, _, rows, _ in self.velocity_laws)
        self.m = row
        for element in net.elements:
            if isinstance(element, pe.MassElement):
                continue
            ends = tuple(self.node[v] for v in net.graph.ends(element.name))
            law = element.through_in_frame(dr, dth, sympy.Matrix(xd[:2]), xd[2], tht, t)
            if law is not None:
                F, T = law
                fn = self._compile((t, x, xd, quantity_symbols), [F, sympy.Matrix([T])],
                                   element.name)
                self._laws.append((element.name, ends, fn))
            energy = _spring_energy(element, dr, dth)
            if energy is not None:
                self._energies.append((ends, self._compile((x,), [sympy.Matrix([energy])],
                                                           element.name)))
        self.force_elements = [(name, ends) for name, ends, _ in self._laws]
        self._couple()
        self.kernel_tree = self._tree_arrays()
        pins = np.array(pins, dtype=int).reshape(-1, 3)
        self._act_on({i for _, ends, *_ in self.constraint_laws + self.velocity_laws
                      for i in ends}
                     | set(pins[:, 1:].ravel().tolist())
                     | {i for _, ends in self.force_elements for i in ends})
        self._pin_rows = pins[:, :1] + np.arange(2)
        self._pins_formed = (np.full(len(pins), rc.BODY_FORM["point in the plane"]),
                             np.ascontiguousarray(pins[:, 1]), np.ascontiguousarray(pins[:, 2]),
                             np.zeros((len(pins), 3)), np.zeros((len(pins), 3)),
                             np.ascontiguousarray(pins[:, 0]))
        #: only the laws compiled from sympy read the nodes' convective accelerations
        self._bias_needed = bool(self.constraint_laws or self.velocity_laws)
        self._pin_kin_rows = (np.array([self.row[a] for a in pins[:, 1]], dtype=int),
                              np.array([self.row[b] for b in pins[:, 2]], dtype=int))
        self._head = {c: self.node[net.graph.ends(c)[1]] for c in topo.chords}
        # every constraint row's head and tail node: every planar law is in its chord's
        # relative pose, so every row acts on its two ends alone
        self._row_nodes = np.zeros((self.m, 2), dtype=np.int64)
        for rows, a, b in zip(self._pin_rows, *self._pins_formed[1:3]):
            self._row_nodes[rows] = (b, a)
        for _, (a, b), rows, _ in self.constraint_laws:
            self._row_nodes[rows] = (b, a)
        self._body_form = True

    #: a planar mechanism moves in the turn about z and the in-plane velocity
    body_components = (2, 3, 4)

    def _numbers(self) -> None:
        """Gravity and the bodies' masses and inertias, parameters put in."""
        eom, net = self.eom, self.eom.mechanism.network
        self.gravity = np.array([*(self.number(g, "gravity") for g in eom.gravity), 0.0])
        self.bodies = [(e.name, self.node[e.edges[0].head], self.number(e.m, e.name),
                        np.diag([0.0, 0.0, self.number(e.J, e.name)]))
                       for e in net.elements if isinstance(e, pe.MassElement)]

    def _refresh(self) -> None:
        self._numbers()
        self._couple()
        self.kernel_tree = self._tree_arrays()

    def _compile(self, args, matrices, owner: str):
        """A numeric function of ``args`` returning the ``matrices`` (as numpy arrays)."""
        shapes = [sympy.Matrix(m).shape for m in matrices]
        fn = self.lambdify(args, [e for m in matrices for e in sympy.Matrix(m)], owner,
                            count=True)

        def call(*values):
            flat, out, at = fn(*values), [], 0
            for rows, cols in shapes:
                out.append(flat[at:at + rows * cols].reshape(rows, cols))
                at += rows * cols
            return out

        return call

    def _tree_arrays(self) -> rc.Tree:
        """The tree as numbers for the compiled kernels (:mod:`vecnet.numerics.tree_kernels`):
        every branch an affine planar motion, the bodies with their inertia about z."""
        eom, net = self.eom, self.eom.mechanism.network
        walk = eom.walk
        prm = np.zeros((len(walk), rc.PARAMETERS))
        ground, qo = [], []
        for b, (here, there, branch, forward, idx) in enumerate(walk):
            element = net.element(branch)
            ground.append(element.frame == "ground")
            if ground[-1] and here != DATUM:
                raise FormulationError(
                    f"{branch!r} joins two moving frames in the tree with its offset in ground "
                    "axes; leave it out of the tree (it needs no coordinates in the cotree)")
            rho0, rho_q, theta0, theta_q = element.motion()
            prm[b, 15:17] = [self.number(x, branch) for x in rho0]
            prm[b, 18] = self.number(theta0, branch)
            for m in range(len(idx)):
                prm[b, 3 * m:3 * m + 3] = [self.number(rho_q[0][m], branch),
                                          self.number(rho_q[1][m], branch),
                                          self.number(theta_q[m], branch)]
            qo.append(idx[0] if idx else 0)
        child = np.array([self.node[w[1]] for w in walk], dtype=np.int64)
        branch_of = np.full(len(self.node), -1, dtype=np.int64)
        branch_of[child] = np.arange(len(walk))
        qo = np.array(qo, dtype=np.int64)
        return rc.Tree(np.array([self.node[w[0]] for w in walk], dtype=np.int64), child,
                       np.array([1.0 if w[3] else -1.0 for w in walk]),
                       np.full(len(walk), rc.AFFINE, dtype=np.int64),
                       np.array(ground, dtype=np.bool_), qo, qo.copy(),
                       np.array([len(w[4]) for w in walk], dtype=np.int64), prm,
                       len(self.node), self.node[DATUM], branch_of,
                       self._body_nodes.astype(np.int64),
                       np.array([b[2] for b in self.bodies], dtype=float),
                       np.array([b[3] for b in self.bodies], dtype=float).reshape(-1, 3, 3),
                       self.gravity)

    # -- the laws, in an edge's relative pose ------------------------------------------
    @staticmethod
    def _pose(ends, st) -> tuple[np.ndarray, np.ndarray]:
        """An edge's relative pose ``x = (dx, dy, dtheta, tail angle)`` and its rate."""
        a, b = ends
        theta, r, v, w = st.theta, st.r, st.v, st.w
        x = np.array([r[b, 0] - r[a, 0], r[b, 1] - r[a, 1], theta[b] - theta[a], theta[a]])
        xd = np.array([v[b, 0] - v[a, 0], v[b, 1] - v[a, 1], w[b, 2] - w[a, 2], w[a, 2]])
        return x, xd

    def _pose_jacobian(self, ends, kin):
        """The Jacobian of an edge's relative pose in the speeds and its convective terms."""
        ka, kb = self.row[ends[0]], self.row[ends[1]]
        Jw, Jv, gw, gv = kin.Jw, kin.Jv, kin.gw, kin.gv
        Jx = np.vstack([Jv[kb, :2] - Jv[ka, :2], Jw[kb, 2] - Jw[ka, 2], Jw[ka, 2]])
        gx = np.array([*(gv[kb, :2] - gv[ka, :2]), gw[kb, 2] - gw[ka, 2], gw[ka, 2]])
        return Jx, gx

    def _wrenches(self, time, q, u, st) -> tuple[np.ndarray, dict]:
        if not self._laws:
            return self._no_wrenches, {}
        nodes = self._body_nodes
        quantities = np.column_stack([st.r[nodes, :2], st.theta[nodes], st.v[nodes, :2],
                                      st.w[nodes, 2]]).reshape(-1)
        wrenches = np.zeros((self.kernel_tree.n_nodes, 6))
        forces = {}
        for name, ends, fn in self._laws:
            F, T = fn(time, *self._pose(ends, st), quantities)
            F, T = np.array([F[0, 0], F[1, 0], 0.0]), T[0, 0] * _Z
            push_wrench(wrenches, st.r, ends, F, T)
            forces[name] = (ends, F, T)
        return wrenches, forces

    def _stored_energy(self, q, st) -> float:
        return sum(float(fn(self._pose(ends, st)[0])[0][0, 0]) for ends, fn in self._energies)

    def joint_angle(self, element, kin: NodeKinematics) -> float:
        """The head frame's angle less the tail frame's, continuous in time."""
        tail, head = (self.node[v] for v in self.eom.mechanism.network.graph.ends(element.name))
        return kin.state.theta[head] - kin.state.theta[tail]

    def contact(self, element, kin: NodeKinematics) -> tuple[np.ndarray, np.ndarray]:
        """``(C, n)`` of a rolling wheel (:class:`~vecnet.elements.planar.RollingContact`):
        the contact point and the line's normal towards the wheel (3-vectors in the x-y
        plane)."""
        tail, head = (self.node[v] for v in self.eom.mechanism.network.graph.ends(element.name))
        angle = kin.state.theta[tail]
        c, s = np.cos(angle), np.sin(angle)
        nx, ny = (float(v) for v in element.normal)
        n = np.array([c * nx - s * ny, s * nx + c * ny, 0.0])
        return kin.r[head] - self.number(element.radius, element.name) * n, n

    def effort_axes(self, element, kin: NodeKinematics) -> list:
        """A gear's torques are about z; a rack's force is along the direction it advances."""
        return [None if label.startswith("force") else _Z for label in element.efforts_named]

    def _constraints(self, time, q, u, kin, accelerations=True, reactions=False,
                     wrenches=None):
        m, n = self.m, kin.Jw.shape[2]
        phi, phi_q, phi_t, c = np.zeros(m), np.zeros((m, n)), np.zeros(m), np.zeros(m)
        maps = []
        r = kin.r

        def react(chord, rows, grad, ends):
            """Each row's wrenches on the head and the tail per unit multiplier; the one on
            the head is the chord's reaction (none for a gear or rack, whose reaction goes
            partly to the ground through the axles)."""
            if not (reactions or wrenches is not None):
                return
            head, tail = _law_wrenches(grad, r[ends[0]], r[ends[1]])
            if wrenches is not None:
                wrenches[rows, 0], wrenches[rows, 1] = head, tail
            if reactions:
                coupling = isinstance(self.eom.mechanism.network.element(chord), pe.Coupling)
                maps.append((chord, rows, None if coupling else head.T))

        if len(self._pin_rows):
            st, rows = kin.state, self._pin_rows
            W = wrenches if wrenches is not None else np.zeros((m, 2, 6))
            rc.primitive_rows(*self._pins_formed, st.R, st.r, st.w, st.v, st.A0, accelerations,
                              phi, c, W)
            if n:
                ra, rb = self._pin_kin_rows
                phi_q[rows] = kin.Jv[rb, :2] - kin.Jv[ra, :2]
            if reactions:    # the points' unit forces along x and y, on the head
                maps += [(chord, idx, W[idx, 0].T) for chord, idx in zip(self._pin_chords, rows)]
        for chord, ends, rows, fn in self.constraint_laws:
            x, xd = self._pose(ends, kin.state)
            Jx, gx = self._pose_jacobian(ends, kin)
            value, grad, rate, second = fn(time, x, xd)
            phi[rows] = value[:, 0]
            phi_q[rows] = grad @ Jx
            phi_t[rows] = rate[:, 0]
            c[rows] = -(grad @ gx + second[:, 0])
            react(chord, rows, grad, ends)
        for chord, ends, rows, fn in self.velocity_laws:   # G x' + b = 0, no position rows
            x, xd = self._pose(ends, kin.state)
            Jx, gx = self._pose_jacobian(ends, kin)
            G, b, drift = fn(time, x, xd)
            phi_q[rows] = G @ Jx
            phi_t[rows] = b[:, 0]
            c[rows] = -(G @ gx + drift[:, 0])
            react(chord, rows, G, ends)
        return phi, phi_q, phi_t, c, maps

    def input_forces(self, time: float, q: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Generalized forces of unit inputs at ``q``: every torque driver (by name), every
        force driver (``"<name>.x"``, ``"<name>.y"``) and every load across a joint; returns
        the names and the ``n x inputs`` matrix."""
        kin = self.kinematics(q, self.zero_speeds)
        names, columns = [], []
        for name, ends in self.force_elements:
            element = self.eom.mechanism.network.element(name)
            # a driver's through variable is minus its value: Q = -J^T (F, T) = J^T value
            rows = ([(name, 2)] if isinstance(element, pe.TorqueDriver) else
                    [(f"{name}.x", 0), (f"{name}.y", 1)] if isinstance(element, pe.ForceDriver)
                    else [])
            if rows:
                Jx = self._pose_jacobian(ends, kin)[0]
                names += [label for label, _ in rows]
                columns += [Jx[k] for _, k in rows]
        names += [str(load) for load in self.eom.inputs]
        columns += self._load_columns(q)
        return names, np.array(columns).T.reshape(self.n, len(names))


def _law_wrenches(grad: np.ndarray, ra: np.ndarray, rb: np.ndarray):
    """The wrenches (rows x 6) on an edge's head and tail per unit multiplier of rows with
    the gradient ``grad`` in its relative pose ``(dx, dy, dtheta, tail angle)`` (at
    least three columns), its tail at ``ra``, its head at ``rb``: the force ``(gx, gy)``
    at each end point (minus it on the tail), the torque ``gtheta`` on the head, and on the
    tail ``g_tail - gtheta``. The rows in the speeds are ``Wh^T J_head + Wt^T J_tail``."""
    force = np.zeros((len(grad), 3))
    force[:, :2] = grad[:, :2]
    head, tail = point_wrenches(rb, force), -point_wrenches(ra, force)
    head[:, 2] += grad[:, 2]
    tail[:, 2] -= grad[:, 2]
    if grad.shape[1] > 3:
        tail[:, 2] += grad[:, 3]
    return head, tail


def _spring_energy(element, dr, dtheta):
    """Energy stored by a spring: zero at its free length (or at length 0 for a spring
    given by a force law) and at its free angle; ``None`` for other elements."""
    if isinstance(element, pe.TranslationalSpringDamper):
        return element.stored_energy(dr)
    if isinstance(element, pe.RotarySpringDamper) and element.k != 0:
        return element.k * (dtheta - element.angle0) ** 2 / 2
    return None
