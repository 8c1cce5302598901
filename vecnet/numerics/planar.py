"""Numerics of planar multibody equations: compiling, assembly, simulation, reactions,
equilibrium, linearization and inverse dynamics.

Everything the numerics need is compiled once into a single function of
``(t, q, u)`` with common-subexpression elimination: each body's position,
angle, Jacobians and convective accelerations, the applied generalized
forces, the constraints with their Jacobian, time derivative and
acceleration right-hand side, and the through variables of every chord. The
mass matrix is assembled numerically from the body Jacobians; nothing is
inverted symbolically.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import sympy

from ..elements import planar as pe
from ..elements.base import t
from ..errors import FormulationError, ModelError
from ..multibody import DATUM
from . import recursive as rc
from .multibody import CompiledModel, accelerations, independent_rows

if TYPE_CHECKING:
    from ..formulation.planar import MultibodyEquations

__all__ = ["CompiledMechanism", "Snapshot"]

#: Up to this many coordinates the mass matrix and forces are compiled whole; above it
#: they are assembled from the compiled body Jacobians (whole expressions grow as n^3).
WHOLE_LIMIT = 6


@dataclass
class Snapshot:
    """Everything about the mechanism at one instant ``(t, q, u)``."""

    M: np.ndarray
    Q: np.ndarray
    phi: np.ndarray
    phi_q: np.ndarray
    phi_t: np.ndarray
    c: np.ndarray          # acceleration right-hand side: Phi_q q'' = c
    bodies: list[dict]     # r, theta, Jr, Jt, gamma_r, gamma_t per body
    chords: list[dict]     # F, T (or the constraint gradients of joints) per chord
    potential: float
    values: dict           # every compiled quantity by key


class CompiledMechanism(CompiledModel):
    """Numeric functions of a :class:`MultibodyEquations`, set up once.

    The kinematics are propagated numerically along the tree, as the path matrix
    prescribes: every branch moves its head frame relative to its tail frame by a motion
    affine in its own coordinates, so each node's angle, position, their Jacobians and
    the convective (velocity-product) accelerations follow from its parent's in a few
    vector operations. No large expression is formed or differentiated; only the small
    laws of cut joints, drivers and force elements are compiled (with common
    subexpressions). The mass matrix is assembled from the body Jacobians.

    Parameters
    ----------
    eom : MultibodyEquations
    parameters : mapping, optional
        Values for symbolic parameters (by symbol or name).
    """

    def __init__(self, eom: MultibodyEquations, parameters: dict | None = None) -> None:
        super().__init__(eom, parameters)
        net, topo = eom.mechanism.network, eom.topology
        self.n = n = len(eom.q)
        self.inputs = len(eom.inputs)
        self.gravity = np.array([self._number(g, "gravity") for g in eom.gravity])
        self.node = {node: i for i, node in enumerate(topo.nodes)}

        self.bodies = []
        for element in net.elements:
            if isinstance(element, pe.MassElement):
                self.bodies.append((element.name, self.node[element.edges[0].head],
                                    self._number(element.m, element.name),
                                    self._number(element.J, element.name)))
        self.body_nodes = np.array([b[1] for b in self.bodies], dtype=int)
        self.masses = np.array([b[2] for b in self.bodies])
        self.inertias = np.array([b[3] for b in self.bodies])
        self.weights = np.concatenate([np.repeat(self.masses, 2), self.inertias])
        quantity_symbols = [sympy.Symbol(f"{b[0]}.{w}", real=True) for b in self.bodies
                            for w in ("x", "y", "angle", "vx", "vy", "omega")]

        # the small compiled laws, in relative pose variables x = (dx, dy, dtheta, tail angle)
        x = sympy.symbols("_dx _dy _dth _tht", real=True)
        xd = sympy.symbols("_dxd _dyd _dthd _thtd", real=True)
        dr, dth, tht = sympy.Matrix(x[:2]), x[2], x[3]
        self.constraint_laws, self.force_laws, self.energies, self.loads = [], [], [], []
        self._pins = []   # (first row, tail node, head node) of every cut revolute
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
                    self._pins.append((row, *ends))
                else:
                    fn = self._compile((t, x, xd), [phi, grad, phi.diff(t), second], chord)
                    self.constraint_laws.append((chord, ends, np.arange(row, row + len(rows)), fn))
                row += len(rows)
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
                self.force_laws.append((element.name, ends, fn))
            energy = _stored_energy(element, dr, dth)
            if energy is not None:
                self.energies.append((ends, self._compile((x,), [sympy.Matrix([energy])],
                                                          element.name)))
        for k, target in enumerate(eom.joint_loads):
            # about a pin, along a slider's axis or along the line between two points
            kind, tail, head, axis = eom.load_target(target)
            self.loads.append(((self.node[tail], self.node[head]), kind,
                               None if axis is None else np.array([float(a) for a in axis]), k))
        self.rotors = [(tuple(self.node[v] for v in net.graph.ends(joint)),
                        self._number(inertia, joint)) for joint, inertia in eom.rotors.items()]
        self.axes = {e.name: np.array([float(a) for a in e.axis]) for e in net.elements
                     if hasattr(e, "axis")}
        self._no_inputs = np.zeros(self.inputs)
        self._unconstrained = (np.zeros(0), np.zeros((0, n)), np.zeros(0), np.zeros(0), {})
        self._compile_walk()
        self._mass_and_forces = self._compile_mass_and_forces() if n <= WHOLE_LIMIT else None

    def _compile(self, args, matrices, owner: str):
        """A numeric function of ``args`` returning the ``matrices`` (as numpy arrays)."""
        shapes = [sympy.Matrix(m).shape for m in matrices]
        fn = self._lambdify(args, [e for m in matrices for e in sympy.Matrix(m)], owner,
                            count=True)

        def call(*values):
            flat, out, at = fn(*values), [], 0
            for rows, cols in shapes:
                out.append(flat[at:at + rows * cols].reshape(rows, cols))
                at += rows * cols
            return out

        return call

    # -- kinematics along the tree ------------------------------------------------------
    def _compile_walk(self) -> None:
        """The tree as numbers for the compiled kernels (:mod:`vecnet.numerics.recursive`):
        every branch an affine planar motion, the bodies with their inertia about z."""
        eom, net = self.eom, self.eom.mechanism.network
        # Jacobians are needed only where bodies, laws and loads act
        needed = sorted(set(self.body_nodes.tolist())
                        | {i for _, ends, *_ in self.constraint_laws for i in ends}
                        | {i for _, a, b in self._pins for i in (a, b)}
                        | {i for _, ends, _ in self.force_laws for i in ends}
                        | {i for ends, *_ in self.loads for i in ends}
                        | {i for ends, _ in self.rotors for i in ends}
                        | {i for ends, _ in self.energies for i in ends})
        self.needed = np.array(needed, dtype=np.int64)
        self.row = {node: i for i, node in enumerate(needed)}
        self.body_rows = np.array([self.row[i] for i in self.body_nodes], dtype=int)
        pins = np.array(self._pins, dtype=int).reshape(-1, 3)
        self._pin_rows = pins[:, :1] + np.arange(2)
        self._pin_nodes = pins[:, 1], pins[:, 2]
        self._pin_kin_rows = (np.array([self.row[a] for a in pins[:, 1]], dtype=int),
                              np.array([self.row[b] for b in pins[:, 2]], dtype=int))
        net = eom.mechanism.network
        self._pin_grads = {c: np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0]]) for c in eom.topology.chords
                           if isinstance(net.element(c), pe.Revolute)}
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
            prm[b, 15:17] = [self._number(x, branch) for x in rho0]
            prm[b, 18] = self._number(theta0, branch)
            for m in range(len(idx)):
                prm[b, 3 * m:3 * m + 3] = [self._number(rho_q[0][m], branch),
                                          self._number(rho_q[1][m], branch),
                                          self._number(theta_q[m], branch)]
            qo.append(idx[0] if idx else 0)
        child = np.array([self.node[w[1]] for w in walk], dtype=np.int64)
        branch_of = np.full(len(self.node), -1, dtype=np.int64)
        branch_of[child] = np.arange(len(walk))
        inertias = np.zeros((len(self.bodies), 3, 3))
        inertias[:, 2, 2] = self.inertias
        qo = np.array(qo, dtype=np.int64)
        self._tree = rc.Tree(np.array([self.node[w[0]] for w in walk], dtype=np.int64), child,
                             np.array([1.0 if w[3] else -1.0 for w in walk]),
                             np.full(len(walk), rc.AFFINE, dtype=np.int64),
                             np.array(ground, dtype=np.bool_), qo, qo.copy(),
                             np.array([len(w[4]) for w in walk], dtype=np.int64), prm,
                             len(self.node), self.node[DATUM], branch_of,
                             self.body_nodes.astype(np.int64), self.masses.astype(float),
                             inertias, np.array([*self.gravity, 0.0]))

    def _compile_mass_and_forces(self):
        """For small systems, ``M`` and the bodies' part of ``Q`` compiled whole: one call
        then costs less than assembling them from the Jacobians."""
        eom = self.eom
        M = eom.M.xreplace(self.values)
        Q = eom.body_forces.xreplace(self.values)
        exprs = list(M) + list(Q)
        replacements, reduced = sympy.cse(exprs)
        self.operations += sum(sympy.count_ops(v) for _, v in replacements) + sum(
            sympy.count_ops(e) for e in reduced)
        return sympy.lambdify((list(eom.q), list(eom.u)), exprs, modules="numpy",
                              cse=lambda e: (replacements, reduced))

    def mass_and_forces(self, time: float, q: np.ndarray, u: np.ndarray):
        """``(M, Q)`` at ``(t, q, u)`` with no loads across joints: the whole right-hand side
        of a mechanism without constraints."""
        if self._mass_and_forces is not None and not (self.force_laws or self.loads):
            n = self.n
            flat = np.asarray(self._mass_and_forces(q, u), dtype=float)
            return flat[:n * n].reshape(n, n), flat[n * n:]
        snap = self.evaluate(time, q, u)
        return snap.M, snap.Q

    def kinematics(self, q: np.ndarray, u: np.ndarray):
        """Angle, position, their Jacobians and convective accelerations of the nodes
        (the Jacobians and convective terms of the nodes where something acts, by row):
        the planar components of the compiled tree walk."""
        return self._planar_kinematics(rc.state(self._tree, q, u))

    def input_forces(self, time: float, q: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Generalized forces of unit inputs at ``q``: every torque driver (by name), every
        force driver (``"<name>.x"``, ``"<name>.y"``) and every load across a joint; returns
        the names and the ``n x inputs`` matrix."""
        zero = np.zeros(self.n)
        kin = self.kinematics(q, zero)
        names, columns = [], []
        for name, ends, _ in self.force_laws:
            element = self.eom.mechanism.network.element(name)
            # a driver's through variable is minus its value: Q = -J^T (F, T) = J^T value
            rows = ([(name, 2)] if isinstance(element, pe.TorqueDriver) else
                    [(f"{name}.x", 0), (f"{name}.y", 1)] if isinstance(element, pe.ForceDriver)
                    else [])
            if rows:
                Jx = self._pose(ends, *kin, zero)[1]
                names += [label for label, _ in rows]
                columns += [Jx[k] for _, k in rows]
        base = self.evaluate(time, q, zero).Q
        for k, load in enumerate(self.eom.inputs):
            names.append(str(load))
            columns.append(self.evaluate(time, q, zero, w=np.eye(self.inputs)[k]).Q - base)
        return names, np.array(columns).T.reshape(self.n, len(names))

    def _pose(self, ends, theta, r, Jt, Jr, gt, gr, u):
        """Relative pose variables of an edge, their Jacobian, rates and convective terms."""
        a, b = ends
        ra, rb = self.row[a], self.row[b]
        x = np.array([r[b, 0] - r[a, 0], r[b, 1] - r[a, 1], theta[b] - theta[a], theta[a]])
        Jx = np.vstack([Jr[rb] - Jr[ra], Jt[rb] - Jt[ra], Jt[ra]])
        gx = np.array([gr[rb, 0] - gr[ra, 0], gr[rb, 1] - gr[ra, 1], gt[rb] - gt[ra], gt[ra]])
        return x, Jx, Jx @ u, gx

    def constraints(self, time: float, q: np.ndarray):
        """``(Phi, Phi_q, Phi_t)`` at ``(t, q)``."""
        return self._constraints(time, q, np.zeros(self.n), self.kinematics(q, np.zeros(self.n)))[:3]

    def _constraints(self, time, q, u, kin):
        phi, phi_q = np.zeros(self.m), np.zeros((self.m, self.n))
        phi_t, c = np.zeros(self.m), np.zeros(self.m)
        grads = {}
        if self._pins:
            theta, r, Jt, Jr, gt, gr = kin
            rows = self._pin_rows
            tails, heads = self._pin_nodes
            ra, rb = self._pin_kin_rows
            phi[rows] = r[heads] - r[tails]
            phi_q[rows] = Jr[rb] - Jr[ra]
            c[rows] = -(gr[rb] - gr[ra])
            grads.update(self._pin_grads)
        for chord, ends, rows, fn in self.constraint_laws:
            x, Jx, xd, gx = self._pose(ends, *kin, u)
            value, grad, rate, second = fn(time, x, xd)
            phi[rows] = value[:, 0]
            phi_q[rows] = grad @ Jx
            phi_t[rows] = rate[:, 0]
            c[rows] = -(grad @ gx + second[:, 0])
            grads[chord] = grad
        return phi, phi_q, phi_t, c, grads

    def _applied(self, time, q, u, w, kin) -> tuple[np.ndarray, dict]:
        """The generalized forces of the force laws (springs, dampers, drivers, friction)
        and of the loads ``w`` across joints, and each force law's ``(F, T)`` by name."""
        theta, r, Jt, Jr, gt, gr = kin
        nodes, rows = self.body_nodes, self.body_rows
        Q = np.zeros(self.n)
        quantities = np.column_stack([r[nodes], theta[nodes], Jr[rows] @ u, Jt[rows] @ u]
                                     ).reshape(-1) if self.force_laws else ()
        forces = {}
        for name, ends, fn in self.force_laws:
            x, Jx, xd, _ = self._pose(ends, *kin, u)
            F, T = fn(time, x, xd, quantities)
            F, T = F[:, 0], T[0, 0]
            Q -= Jx[:2].T @ F + Jx[2] * T
            forces[name] = (F, T)
        for (a, b), kind, axis, k in self.loads:
            ra, rb = self.row[a], self.row[b]
            d = r[b] - r[a]
            if kind == "angle":
                Q += w[k] * (Jt[rb] - Jt[ra])
            elif kind == "line":  # pushing the points apart
                Q += w[k] * (d @ (Jr[rb] - Jr[ra])) / np.hypot(*d)
            else:  # "distance": force along the axis turned with the tail frame
                ca, sa = np.cos(theta[a]), np.sin(theta[a])
                e = np.array([ca * axis[0] - sa * axis[1], sa * axis[0] + ca * axis[1]])
                Q += w[k] * (e @ (Jr[rb] - Jr[ra]) + (np.array([-e[1], e[0]]) @ d) * Jt[ra])
        return Q, forces

    def _planar_kinematics(self, st):
        """The planar components of the compiled walk's state ``st`` (see :meth:`kinematics`)."""
        Jw, Jv, gw, gv = rc.jacobians(self._tree, st, self.needed, self.n)
        return st.theta, st.r[:, :2], Jw[:, 2, :], Jv[:, :2, :], gw[:, 2], gv[:, :2]

    def _tree_forces(self, time, q, u, st):
        if self.rotors:
            return None   # their inertia turns with a joint, outside the tree's bodies
        wrenches = np.zeros((self._tree.n_nodes, 6))
        if not self.force_laws:
            return np.zeros(self.n), wrenches
        return self._applied(time, q, u, self._no_inputs, self._planar_kinematics(st))[0], wrenches

    def _tree_constraints(self, time, q, u, st):
        _, phi_q, _, c, _ = self._constraints(time, q, u, self._planar_kinematics(st))
        return phi_q, c

    def evaluate(self, time: float, q: np.ndarray, u: np.ndarray, extras: bool = False,
                 w: np.ndarray | None = None) -> Snapshot:
        """Mass matrix, forces and constraints at ``(t, q, u)`` with inputs ``w`` (the loads
        across joints, default zero); with ``extras``, also the body poses, chord through
        variables, node positions and potential energy."""
        w = self._no_inputs if w is None else w
        n, nodes, rows = self.n, self.body_nodes, self.body_rows
        if self._mass_and_forces is not None and not (extras or self.m or self.force_laws
                                                      or self.loads):
            flat = np.asarray(self._mass_and_forces(q, u), dtype=float)
            return Snapshot(flat[:n * n].reshape(n, n), flat[n * n:], *self._unconstrained[:4],
                            [], [], float("nan"), {})
        kin = self.kinematics(q, u)
        theta, r, Jt, Jr, gt, gr = kin
        if self._mass_and_forces is not None:
            flat = np.asarray(self._mass_and_forces(q, u), dtype=float)
            M, Q = flat[:n * n].reshape(n, n), flat[n * n:].copy()
        else:
            # M = sum m Jr^T Jr + J Jt^T Jt as one product of the stacked, weighted Jacobians
            stacked = np.vstack([Jr[rows].reshape(-1, n), Jt[rows]])
            weighted = stacked * self.weights[:, None]
            M = stacked.T @ weighted
            Q = weighted.T @ np.concatenate([(self.gravity - gr[rows]).reshape(-1), -gt[rows]])
            for (a, b), inertia in self.rotors:  # turning with the joint's relative angle
                ra, rb = self.row[a], self.row[b]
                g = Jt[rb] - Jt[ra]
                M += inertia * np.outer(g, g)
                Q -= inertia * g * (gt[rb] - gt[ra])
        applied, forces = self._applied(time, q, u, w, kin)
        Q += applied
        phi, phi_q, phi_t, c, grads = self._constraints(time, q, u, kin) if self.m \
            else self._unconstrained
        bodies, chords, potential, values = [], [], float("nan"), {}
        if extras:
            bodies = [{"Jr": Jr[i], "Jt": Jt[i], "gr": gr[i], "gt": gt[i], "m": m_, "J": j_,
                       "r": r[k], "theta": theta[k]}
                      for k, i, m_, j_ in zip(nodes, rows, self.masses, self.inertias)]
            net = self.eom.mechanism.network
            for edge in self.eom.topology.edges:
                a, b = (self.node[v] for v in net.graph.ends(edge))
                along = 0.0
                if edge in self.axes:
                    ca, sa = np.cos(theta[a]), np.sin(theta[a])
                    axis = self.axes[edge]
                    along = (np.array([ca * axis[0] - sa * axis[1], sa * axis[0] + ca * axis[1]])
                             @ (r[b] - r[a]))
                values[("head", edge)] = r[b]
                values[("rel", edge)] = np.array([theta[b] - theta[a], along])
            for chord in self.eom.topology.chords:
                element = net.element(chord)
                entry = {"name": chord, "head": r[self.node[net.graph.ends(chord)[1]]]}
                if isinstance(element, pe.MassElement):
                    entry["kind"] = "mass"
                elif isinstance(element, pe.Coupling):
                    continue
                elif chord in forces:
                    entry.update(kind="force", F=forces[chord][0], T=forces[chord][1])
                elif chord in grads:
                    entry.update(kind="joint", G=grads[chord][:, :3])
                else:
                    continue
                chords.append(entry)
            potential = -sum(m * self.gravity @ r[node] for _, node, m, _ in self.bodies)
            for ends, fn in self.energies:
                a, b = ends
                x = np.array([r[b, 0] - r[a, 0], r[b, 1] - r[a, 1], theta[b] - theta[a], theta[a]])
                potential += float(fn(x)[0][0, 0])
        return Snapshot(M, Q, phi, phi_q, phi_t, c, bodies, chords, float(potential), values)


def _stored_energy(element, dr, dtheta):
    """Energy stored by a spring: zero at its free length (or at length 0 for a spring
    given by a force law) and at its free angle; ``None`` for other elements."""
    if isinstance(element, pe.TranslationalSpringDamper) and element.force is not None:
        stretch = sympy.Dummy("s", positive=True)
        length = sympy.sqrt(dr.dot(dr))
        energy = sympy.integrate(element.force(stretch), (stretch, element.length, length))
        return energy if not energy.has(sympy.Integral) else sympy.nan
    if isinstance(element, pe.RotarySpringDamper) and element.k != 0:
        return element.k * (dtheta - element.angle0) ** 2 / 2
    return None


# -- assembly ---------------------------------------------------------------------

def initial_guess(eom: MultibodyEquations) -> np.ndarray:
    """Branch coordinates read off the bodies' initial poses."""
    mech = eom.mechanism
    values = []
    for branch in eom.topology.branches:
        element = mech.network.element(branch)
        tail, head = element.edges[0].tail, element.edges[0].head
        xt, yt, at = mech.initial_pose(tail)
        xh, yh, ah = mech.initial_pose(head)
        values.extend(element.coordinates_from((xh - xt, yh - yt), ah - at, at))
    return np.array(values, dtype=float)


# -- outputs ---------------------------------------------------------------------------

def outputs(model: CompiledMechanism, times, qs, us, ws=None) -> dict[str, np.ndarray]:
    """Named time series: coordinates, bodies, joint coordinates and reactions, what the
    force elements apply, energies; ``ws`` holds the mechanism's inputs at each time
    (default zero). Names and signs are those of the spatial outputs restricted to the
    plane (docs/conventions.md)."""
    eom = model.eom
    net = eom.mechanism.network
    topo = eom.topology
    series: dict[str, list] = {}
    row: dict[str, object] = {}

    def put(name, value):  # a body quantity may also be a coordinate: one entry per name
        row[name] = value

    A_c = topo.chord_part.toarray()
    constraint_rows = _constraint_rows(eom)
    couplings = {c: net.element(c) for c in topo.chords
                 if isinstance(net.element(c), pe.Coupling)}
    stops = [c for c in topo.chords if isinstance(net.element(c), pe.JointStop)]
    rows = None
    ws = np.zeros((model.inputs, len(times))) if ws is None else ws
    for time, q, u, w in zip(times, qs.T, us.T, ws.T):
        snap = model.evaluate(time, q, u, extras=True, w=w)
        if rows is None:
            rows = independent_rows(snap.phi_q)
        a, lam = accelerations(snap, rows)
        got = snap.values
        for name, value in zip(eom.coordinates, q):
            put(name, value)
        for name, value in zip(eom.coordinates, u):
            put(f"{name}'", value)
        kinetic = 0.5 * u @ snap.M @ u
        put("kinetic", kinetic)
        put("potential", snap.potential)
        put("energy", kinetic + snap.potential)
        put("constraint residual", float(np.max(np.abs(snap.phi))) if len(snap.phi) else 0.0)
        forces, moments = {}, {}
        for (name, *_), data in zip(model.bodies, snap.bodies):
            v = data["Jr"] @ u
            omega = float(data["Jt"] @ u)  # Jt is the row of d theta / dq
            for what, value in (("x", data["r"][0]), ("y", data["r"][1]), ("angle", data["theta"]),
                                ("vx", v[0]), ("vy", v[1]), ("omega", omega),
                                ("position", data["r"]), ("velocity", v)):
                put(f"{name}.{what}", value)
            F = data["m"] * (data["Jr"] @ a + data["gr"] - model.gravity)
            T = data["J"] * (float(data["Jt"] @ a) + data["gt"])
            forces[name], moments[name] = F, T + _cross(data["r"], F)
        for chord in snap.chords:
            name = chord["name"]
            if chord["kind"] == "force":
                F, T = chord["F"], chord["T"]
            elif chord["kind"] == "joint":
                lam_c = lam[constraint_rows[name]]
                F, T = -chord["G"][:, :2].T @ lam_c, -float(chord["G"][:, 2] @ lam_c)
            else:
                continue
            forces[name], moments[name] = F, T + _cross(chord["head"], F)
            if chord["kind"] == "force":  # what a spring, damper or driver applies to its head
                put(f"{name}.force", -F)
                put(f"{name}.torque", -T)
        for name, element in couplings.items():
            tail, head = element.efforts(float(lam[constraint_rows[name]][0]), model.values)
            put(f"{name}.torque_a", tail)
            put(f"{name}.torque_b" if isinstance(element, pe.GearMesh) else f"{name}.force_b",
                head)
        # cutset equations for the branches: (F, moment about the origin) = -A_c (F, M)_chords;
        # part of a coupling's reaction goes to the ground through the axles, which the
        # cutsets do not hold: with couplings no joint reactions are given
        for name in couplings:
            forces[name], moments[name] = np.full(2, np.nan), np.nan
        for name in stops:  # a stop carries nothing between its strikes
            forces[name], moments[name] = np.zeros(2), 0.0
        F_c = np.array([forces[c] for c in topo.chords]).reshape(len(topo.chords), 2)
        M_c = np.array([moments[c] for c in topo.chords])
        F_b = -A_c @ F_c if len(topo.chords) else np.zeros((len(topo.branches), 2))
        M_b = -A_c @ M_c if len(topo.chords) else np.zeros(len(topo.branches))
        for i, b in enumerate(topo.branches):
            forces[b] = F_b[i]
            moments[b] = M_b[i]
        for element in net.elements:
            name = element.name
            if element.is_joint or isinstance(element, pe.MotionDriver):
                if element.is_joint:
                    dtheta, along = got[("rel", name)]
                    if not couplings:
                        F = forces[name]
                        T = moments[name] - _cross(got[("head", name)], F)
                        put(f"{name}.reaction", -F)
                        put(f"{name}.reaction.x", -F[0])
                        put(f"{name}.reaction.y", -F[1])
                        put(f"{name}.reaction_torque", -T)
                    # a joint's own coordinates, whether it is in the tree or cut
                    if "angle" in element.coordinates:
                        put(f"{name}.angle", dtheta)
                    if "distance" in element.coordinates:
                        put(f"{name}.distance", along)
                else:  # the driver's multiplier is its effort along its coordinate
                    put(f"{name}.effort", float(lam[constraint_rows[name]][0]))
        for name, value in row.items():
            series.setdefault(name, []).append(value)
        row.clear()
    return {k: np.array(v) for k, v in series.items()}


def _cross(r, F) -> float:
    return float(r[0] * F[1] - r[1] * F[0])


def _constraint_rows(eom) -> dict[str, np.ndarray]:
    """Rows of the constraint vector that belong to each chord."""
    rows: dict[str, list[int]] = {}
    names = eom.constraint_names
    for chord in eom.topology.chords:
        rows[chord] = [i for i, n in enumerate(names) if n.rpartition(".")[0] == chord]
    return {k: np.array(v, dtype=int) for k, v in rows.items()}
