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
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.linalg
import sympy
from scipy.integrate import solve_ivp
from scipy.optimize import root

from ..elements import planar as pe
from ..elements.base import t
from ..errors import FormulationError, ModelError, SimulationError
from .result import Result

if TYPE_CHECKING:
    from ..formulation.planar import MultibodyEquations

__all__ = ["CompiledMechanism", "Snapshot"]


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


class CompiledMechanism:
    """Numeric functions of a :class:`MultibodyEquations`, compiled once.

    Parameters
    ----------
    eom : MultibodyEquations
    parameters : mapping, optional
        Values for symbolic parameters (by symbol or name).
    """

    def __init__(self, eom: MultibodyEquations, parameters: dict | None = None) -> None:
        self.eom = eom
        q, u, w = list(eom.q), list(eom.u), list(eom.inputs)
        n = len(q)
        self.n = n
        self.inputs = len(w)
        values = {(k if isinstance(k, sympy.Basic) else sympy.Symbol(str(k), real=True)): v
                  for k, v in (parameters or {}).items()}
        um = sympy.Matrix(u)
        constraints, dynamics, extras = [], [], []  # (key, expression, shape) per group

        phi = eom.constraints
        m = len(phi)
        phi_q = eom.constraint_jacobian
        phi_t = phi.diff(t) if m else sympy.zeros(0, 1)
        constraints += [("phi", phi, (m,)), ("phi_q", phi_q, (m, n)), ("phi_t", phi_t, (m,))]
        for k, body in enumerate(eom.bodies):
            r, th = body["r"], sympy.Matrix([body["theta"]])
            Jr, Jt = r.jacobian(q), th.jacobian(q)
            dynamics += [
                (("Jr", k), Jr, (2, n)), (("Jt", k), Jt, (1, n)),
                (("gr", k), (Jr * um).jacobian(q) * um if n else sympy.zeros(2, 1), (2,)),
                (("gt", k), (Jt * um).jacobian(q) * um if n else sympy.zeros(1, 1), (1,)),
                (("m", k), sympy.Matrix([body["m"], body["J"]]), (2,))]
            extras += [(("r", k), r, (2,)), (("theta", k), th, (1,))]
        # Phi_q q'' = c = -( (Phi_q u)_q u + 2 Phi_qt u + Phi_tt )
        c = -((phi_q * um).jacobian(q) * um + 2 * phi_q.diff(t) * um + phi_t.diff(t)) if m \
            else sympy.zeros(0, 1)
        dynamics += [("Qa", eom.applied_forces, (n,)), ("c", c, (m,))]
        extras.append(("potential", sympy.Matrix([_potential(eom)]), (1,)))
        graph = eom.mechanism.network.graph
        for edge in eom.topology.edges:
            extras.append((("head", edge), eom.node_position[graph.ends(edge)[1]], (2,)))
            dr, dtheta, tail_angle = eom.relative_pose(edge)
            element = eom.mechanism.network.element(edge)
            along = (pe.rotation(tail_angle) * element.axis).dot(dr) \
                if hasattr(element, "axis") else sympy.S.Zero
            extras.append((("rel", edge), sympy.Matrix([dtheta, along]), (2,)))
        self.chord_kinds = []
        for chord in eom.topology.chords:
            element = eom.mechanism.network.element(chord)
            dr, dtheta, tail_angle = eom.relative_pose(chord)
            if isinstance(element, pe.MassElement):
                self.chord_kinds.append((chord, "mass"))
                continue
            law = element.through(dr, dtheta, eom.rate(dr), eom.rate(dtheta), t)
            if law is not None:
                F, T = law
                extras += [(("F", chord), F.xreplace(eom.quantities), (2,)),
                           (("T", chord), sympy.Matrix([T.xreplace(eom.quantities)]), (1,))]
                self.chord_kinds.append((chord, "force"))
            else:  # a cut joint: its reaction comes from the multipliers of its constraints
                x, y, a = sympy.symbols("_dx _dy _da", real=True)
                rows = element.chord_constraints(sympy.Matrix([x, y]), a, tail_angle, t)
                grad = sympy.Matrix([[e.diff(x), e.diff(y), e.diff(a)] for _, e in rows])
                grad = grad.xreplace({x: dr[0], y: dr[1], a: dtheta}) if rows else grad
                extras.append((("G", chord), grad, (len(rows), 3)))
                self.chord_kinds.append((chord, "joint"))
        self._constraints = _Compiled(constraints, (t, q), values)
        self._dynamics = _Compiled(dynamics, (t, q, u, w), values)
        self._extras = _Compiled(extras, (t, q, u, w), values)
        #: operations after common-subexpression elimination in what a simulation evaluates
        self.operations = self._constraints.operations + self._dynamics.operations
        self.gravity = np.array([float(g) for g in eom.gravity])
        self.m = m

    def constraints(self, time: float, q: np.ndarray):
        """``(Phi, Phi_q, Phi_t)`` at ``(t, q)``."""
        got = self._constraints(time, q)
        return got["phi"], got["phi_q"], got["phi_t"]

    def evaluate(self, time: float, q: np.ndarray, u: np.ndarray, extras: bool = False,
                 w: np.ndarray | None = None) -> Snapshot:
        """Mass matrix, forces and constraints at ``(t, q, u)`` with inputs ``w`` (the loads
        across joints, default zero); with ``extras``, also the body poses, chord through
        variables, node positions and potential energy."""
        w = np.zeros(self.inputs) if w is None else w
        got = self._dynamics(time, q, u, w)
        got.update(self._constraints(time, q))
        n = self.n
        M = np.zeros((n, n))
        Q = got["Qa"].copy()
        bodies = []
        for k in range(len(self.eom.bodies)):
            mass, inertia = got[("m", k)]
            Jr, Jt = got[("Jr", k)], got[("Jt", k)][0]
            M += mass * Jr.T @ Jr + inertia * np.outer(Jt, Jt)
            Q += mass * Jr.T @ (self.gravity - got[("gr", k)]) - inertia * Jt * got[("gt", k)][0]
            bodies.append({"Jr": Jr, "Jt": Jt, "gr": got[("gr", k)], "gt": got[("gt", k)][0],
                           "m": mass, "J": inertia})
        chords, potential = [], float("nan")
        if extras:
            got.update(self._extras(time, q, u, w))
            for k, body in enumerate(bodies):
                body.update(r=got[("r", k)], theta=got[("theta", k)][0])
            for chord, kind in self.chord_kinds:
                entry = {"name": chord, "kind": kind, "head": got[("head", chord)]}
                if kind == "force":
                    entry.update(F=got[("F", chord)], T=got[("T", chord)][0])
                elif kind == "joint":
                    entry.update(G=got[("G", chord)])
                chords.append(entry)
            potential = float(got["potential"][0])
        return Snapshot(M, Q, got["phi"], got["phi_q"], got["phi_t"], got["c"], bodies, chords,
                        potential, got)


class _Compiled:
    """Expressions in groups of named shapes, lambdified together with common
    subexpressions; calling it returns the named numeric arrays."""

    def __init__(self, pieces, args, values) -> None:
        exprs, self.layout = [], []
        for key, expr, shape in pieces:
            self.layout.append((key, len(exprs), shape))
            exprs.extend(sympy.sympify(e).xreplace(values) for e in sympy.Matrix(expr))
        known = {args[0]}.union(*args[1:])
        free = set().union(*(e.free_symbols for e in exprs)) - known if exprs else set()
        if free:
            raise ModelError("no value for parameter(s) " + ", ".join(sorted(map(str, free)))
                             + "; pass parameters={...}")
        self.slices = [(key, start, start + int(np.prod(shape)), shape)
                       for key, start, shape in self.layout]
        replacements, reduced = sympy.cse(exprs)
        self.operations = sum(sympy.count_ops(v) for _, v in replacements) + sum(
            sympy.count_ops(e) for e in reduced)
        self.fn = sympy.lambdify(args, exprs, modules="numpy", cse=True)

    def __call__(self, *values) -> dict:
        flat = np.asarray(self.fn(*values), dtype=float)
        return {key: flat[start:stop].reshape(shape) for key, start, stop, shape in self.slices}


def _potential(eom: MultibodyEquations) -> sympy.Expr:
    """Potential energy of gravity (zero at the origin) and springs (zero at their free
    length, or at length 0 for a spring given by a force law)."""
    total = sympy.S.Zero
    for body in eom.bodies:
        total -= body["m"] * eom.gravity.dot(body["r"])
    stretch = sympy.Dummy("s", positive=True)
    for element, _, dr, dtheta in eom.force_elements:
        if isinstance(element, pe.TranslationalSpringDamper) and element.force is not None:
            length = sympy.sqrt(dr.dot(dr))
            # zero at the free length when it is known
            energy = sympy.integrate(element.force(stretch), (stretch, element.length, length))
            total += energy if not energy.has(sympy.Integral) else sympy.nan
        elif isinstance(element, pe.RotarySpringDamper) and element.k != 0:
            total += element.k * (dtheta - element.angle0) ** 2 / 2
    return total


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


def independent_rows(phi_q: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Indices of a maximal set of independent constraint rows (QR with pivoting)."""
    if phi_q.shape[0] == 0:
        return np.zeros(0, dtype=int)
    _, r, piv = scipy.linalg.qr(phi_q.T, pivoting=True, mode="economic")
    diag = np.abs(np.diag(r))
    rank = int(np.sum(diag > tol * max(1.0, diag[0] if len(diag) else 1.0)))
    return np.sort(piv[:rank])


def assemble(model: CompiledMechanism, q: np.ndarray, time: float = 0.0, fixed=(),
             tol: float = 1e-12, iterations: int = 50) -> np.ndarray:
    """Close the loops: solve ``Phi(q, t) = 0`` from ``q`` by minimum-norm Newton steps,
    keeping the coordinates at positions ``fixed`` as they are.

    Raises
    ------
    FormulationError
        When the loops cannot be closed; the message names the constraints left open.
    """
    q = np.array(q, dtype=float)
    zero = np.zeros(model.n)
    free = np.setdiff1d(np.arange(model.n), np.asarray(fixed, dtype=int))
    for _ in range(iterations):
        phi, phi_q, _ = model.constraints(time, q)
        if model.m == 0 or np.max(np.abs(phi)) < tol:
            return q
        step, *_ = np.linalg.lstsq(phi_q[:, free], phi, rcond=None)
        q[free] -= step
    phi = model.constraints(time, q)[0]
    worst = np.argsort(-np.abs(phi))[:4]
    names = [f"{model.eom.constraint_names[i]} (off by {phi[i]:.3g})" for i in worst]
    raise FormulationError("the mechanism cannot be assembled: the loop closure equations "
                           + ", ".join(names) + " stay open; check the joint positions and "
                           "the initial poses")


def consistent_velocities(model: CompiledMechanism, time: float, q: np.ndarray,
                          given: dict[int, float]) -> np.ndarray:
    """Velocities satisfying ``Phi_q u = -Phi_t`` with the given coordinates' rates fixed."""
    n = model.n
    _, phi_q, phi_t = model.constraints(time, q)
    rows = [phi_q] if model.m else []
    rhs = [-phi_t] if model.m else []
    for i, value in given.items():
        e = np.zeros((1, n))
        e[0, i] = 1.0
        rows.append(e)
        rhs.append(np.array([value]))
    if not rows:
        return np.zeros(n)
    u, *_ = np.linalg.lstsq(np.vstack(rows), np.concatenate(rhs), rcond=None)
    return u


def accelerations(snap: Snapshot, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Solve ``M q'' - Phi_q^T lambda = Q``, ``Phi_q q'' = c`` (independent rows)."""
    n = snap.M.shape[0]
    A = snap.phi_q[rows]
    k = len(rows)
    kkt = np.zeros((n + k, n + k))
    kkt[:n, :n] = snap.M
    kkt[:n, n:] = -A.T
    kkt[n:, :n] = A
    sol = np.linalg.solve(kkt, np.concatenate([snap.Q, snap.c[rows]]))
    lam = np.zeros(len(snap.phi))
    lam[rows] = sol[n:]
    return sol[:n], lam


# -- simulation ---------------------------------------------------------------------

class _Partition:
    """Coordinate partitioning: the independent coordinates ``ind`` carry the motion; the
    dependent ones ``dep`` are found from the constraints (Newton, starting from the value
    carried along with the state) and their velocities from the velocity constraints."""

    def __init__(self, model: CompiledMechanism, time: float, q: np.ndarray) -> None:
        self.model = model
        phi_q = model.constraints(time, q)[1]
        self.rows = independent_rows(phi_q)
        A = phi_q[self.rows]
        if len(self.rows):
            _, _, piv = scipy.linalg.qr(A, pivoting=True, mode="economic")
            self.dep = np.sort(piv[:len(self.rows)])
        else:
            self.dep = np.zeros(0, dtype=int)
        self.ind = np.setdiff1d(np.arange(model.n), self.dep)

    def project(self, time: float, q: np.ndarray, uw: np.ndarray):
        """Consistent ``(q, u)`` from a state near the constraint manifold."""
        model = self.model
        q = np.array(q, dtype=float)
        u = np.zeros(model.n)
        u[self.ind] = uw
        if len(self.dep):
            for _ in range(25):
                phi, phi_q, phi_t = model.constraints(time, q)
                res = phi[self.rows]
                if np.max(np.abs(res)) < 1e-12:
                    break
                step = np.linalg.solve(phi_q[np.ix_(self.rows, self.dep)], res)
                q[self.dep] -= step
                if np.max(np.abs(step)) < 1e-14 * (1.0 + np.max(np.abs(q))):  # at roundoff
                    phi, phi_q, phi_t = model.constraints(time, q)
                    break
            else:
                raise SimulationError(f"at t = {time:.6g} the loops cannot be closed: the "
                                      "mechanism left its assembly (a singular configuration?)")
            A = phi_q[self.rows]
            u[self.dep] = np.linalg.solve(A[:, self.dep], -(A[:, self.ind] @ uw + phi_t[self.rows]))
        return q, u

    def conditioning(self, time: float, q: np.ndarray) -> float:
        """Smallest singular value of ``Phi_v`` relative to the largest of ``Phi_q``."""
        if not len(self.dep):
            return 1.0
        A = self.model.constraints(time, q)[1][self.rows]
        sv = np.linalg.svd(A[:, self.dep], compute_uv=False)
        return sv[-1] / max(np.linalg.svd(A, compute_uv=False)[0], 1e-300)


def _no_extra(time, q, u, s):
    return np.zeros(0), None


def integrate_partitioned(model, t0, q0, u0, times, rtol, atol, method="DOP853",
                          extra=_no_extra, s0=(), progress=None):
    """Forward dynamics on scipy by coordinate partitioning.

    The state is every coordinate, the rates of the independent ones and the states ``s``
    of anything coupled to the mechanism: ``extra(t, q, u, s)`` returns their rates and the
    mechanism's inputs. Each evaluation projects the dependent coordinates onto the
    constraints, so the loops stay closed to roundoff; when the dependent coordinates
    approach a singular choice the partition is chosen anew. Returns ``(t, q, u, s)`` at
    ``times``."""
    out_q, out_u, out_s, out_t = [], [], [], []
    time, q, u, s = t0, q0.copy(), u0.copy(), np.asarray(s0, dtype=float)
    pending = np.asarray(times, dtype=float)
    n = model.n
    while True:
        part = _Partition(model, time, q)
        k = len(part.ind)
        y0 = np.concatenate([q, u[part.ind], s])

        def rhs(tt, y, part=part, k=k):
            if progress is not None:
                progress(tt)
            qf, uf = part.project(tt, y[:n], y[n:n + k])
            sdot, w = extra(tt, qf, uf, y[n + k:])
            a, _ = accelerations(model.evaluate(tt, qf, uf, w=w), part.rows)
            return np.concatenate([uf, a[part.ind], sdot])

        def singular(tt, y, part=part):
            return part.conditioning(tt, y[:n]) - 1e-3

        singular.terminal, singular.direction = True, -1
        sol = solve_ivp(rhs, (time, pending[-1]), y0, method=method, rtol=rtol, atol=atol,
                        t_eval=pending[pending >= time],
                        events=singular if len(part.dep) else None)
        if sol.status == -1:
            raise SimulationError(f"integration failed at t = {sol.t[-1]:.6g}: {sol.message}")
        for tt, y in zip(sol.t, sol.y.T):
            qf, uf = part.project(tt, y[:n], y[n:n + k])
            out_t.append(tt)
            out_q.append(qf)
            out_u.append(uf)
            out_s.append(y[n + k:])
        done = sol.t[-1] if len(sol.t) else time
        pending = pending[pending > done]
        if sol.status != 1 or not len(pending):
            break
        time = float(sol.t_events[0][0])
        y = sol.y_events[0][0]
        q, u = part.project(time, y[:n], y[n:n + k])
        s = y[n + k:]
    return (np.array(out_t), np.array(out_q).T, np.array(out_u).T,
            np.array(out_s).T.reshape(len(s), len(out_t)))


def integrate_dae(model, t0, q0, u0, times, rtol, atol, extra=_no_extra, s0=(), progress=None):
    """Forward dynamics on IDA (scikit-sundae): the DAE in the stabilized index-2 form of
    Gear, Gupta and Leimkuhler, which keeps both the position and the velocity constraints

        q' = u + Phi_q^T mu,   M u' = Q + Phi_q^T lambda,   Phi = 0,   Phi_q u + Phi_t = 0.

    The multipliers are left out of the error test (a very large absolute tolerance), as
    index-2 problems need. States ``s`` coupled to the mechanism follow ``s' = sdot`` from
    ``extra(t, q, u, s) -> (sdot, inputs)``. Returns ``(t, q, u, s)`` at ``times``."""
    from sksundae.ida import IDA

    n = model.n
    rows = independent_rows(model.constraints(t0, q0)[1])
    k = len(rows)
    s0 = np.asarray(s0, dtype=float)
    e = len(s0)
    lo = 2 * n + e  # the multipliers follow the states

    def residual(tt, y, yp, res):
        if progress is not None:
            progress(tt)
        q, u, s, lam, mu = y[:n], y[n:2 * n], y[2 * n:lo], y[lo:lo + k], y[lo + k:]
        sdot, w = extra(tt, q, u, s)
        snap = model.evaluate(tt, q, u, w=w)
        A = snap.phi_q[rows]
        res[:n] = yp[:n] - u - A.T @ mu
        res[n:2 * n] = snap.M @ yp[n:2 * n] - snap.Q - A.T @ lam
        res[2 * n:lo] = yp[2 * n:lo] - sdot
        res[lo:lo + k] = snap.phi[rows]
        res[lo + k:] = A @ u + snap.phi_t[rows]

    sdot0, w0 = extra(t0, q0, u0, s0)
    a0, lam0 = accelerations(model.evaluate(t0, q0, u0, w=w0), rows)
    y0 = np.concatenate([q0, u0, s0, lam0[rows], np.zeros(k)])
    yp0 = np.concatenate([u0, a0, sdot0, np.zeros(2 * k)])
    tolerances = np.concatenate([np.full(lo, atol), np.full(2 * k, 1e12)])
    solver = IDA(residual, algebraic_idx=list(range(lo, lo + 2 * k)) or None, rtol=rtol,
                 atol=tolerances, max_num_steps=100_000)
    tspan = np.unique(np.concatenate([[t0], np.asarray(times, dtype=float)]))
    if len(tspan) == 2:  # IDA reads a two-point span as "report every internal step"
        tspan = np.array([tspan[0], 0.5 * (tspan[0] + tspan[1]), tspan[1]])
    sol = solver.solve(tspan, y0, yp0)
    if not sol.success:
        raise SimulationError(f"IDA stopped at t = {sol.t[-1]:.6g}: {sol.message}")
    keep = np.isin(sol.t, times)
    return sol.t[keep], sol.y[keep, :n].T, sol.y[keep, n:2 * n].T, sol.y[keep, 2 * n:lo].T


# -- outputs ---------------------------------------------------------------------------

def outputs(model: CompiledMechanism, times, qs, us, ws=None) -> dict[str, np.ndarray]:
    """Named time series: coordinates, bodies, joint coordinates and reactions, energies;
    ``ws`` holds the mechanism's inputs at each time (default zero)."""
    eom = model.eom
    net = eom.mechanism.network
    topo = eom.topology
    series: dict[str, list] = {}
    row: dict[str, object] = {}

    def put(name, value):  # a body quantity may also be a coordinate: one entry per name
        row[name] = value

    A_c = topo.chord_part.toarray()
    constraint_rows = _constraint_rows(eom)
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
        for body, data in zip(eom.bodies, snap.bodies):
            name = body["name"]
            v = data["Jr"] @ u
            omega = float(data["Jt"] @ u)  # Jt is the row of d theta / dq
            for what, value in (("x", data["r"][0]), ("y", data["r"][1]), ("angle", data["theta"]),
                                ("vx", v[0]), ("vy", v[1]), ("omega", omega)):
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
            if chord["kind"] == "force":  # what a spring, damper or driver carries
                put(f"{name}.force", F)
                put(f"{name}.torque", T)
        # cutset equations for the branches: (F, moment about the origin) = -A_c (F, M)_chords
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
                    F = forces[name]
                    T = moments[name] - _cross(got[("head", name)], F)
                    dtheta, along = got[("rel", name)]
                    put(f"{name}.reaction", -F)
                    put(f"{name}.reaction.x", -F[0])
                    put(f"{name}.reaction.y", -F[1])
                    put(f"{name}.torque", -T)
                    put(f"{name}.angle", dtheta)
                    if hasattr(element, "axis"):
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


def kinematics(model: CompiledMechanism, times, q0: np.ndarray):
    """Positions, velocities and accelerations of a mechanism whose drivers fix every degree
    of freedom, from the constraints alone: ``Phi = 0``, ``Phi_q u = -Phi_t``, ``Phi_q a = c``."""
    qs, us = [], []
    q = q0.copy()
    for time in times:
        q = assemble(model, q, time)
        _, phi_q, phi_t = model.constraints(time, q)
        u, *_ = np.linalg.lstsq(phi_q, -phi_t, rcond=None)
        qs.append(q.copy())
        us.append(u)
    return np.asarray(times, dtype=float), np.array(qs).T, np.array(us).T
