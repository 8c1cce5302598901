"""Dimension-free numerics of vector-network mechanisms: assembly, consistent velocities,
accelerations with multipliers and forward dynamics by coordinate partitioning.

These functions work on any compiled mechanism model that offers

* ``n`` (coordinates), ``m`` (constraint rows) and ``evaluate(t, q, u, w=None)`` giving a
  snapshot with ``M``, ``Q``, ``phi``, ``phi_q``, ``phi_t``, ``c`` where ``phi_q`` is the
  Jacobian of the constraints with respect to the speeds ``u`` and ``c`` the acceleration
  right-hand side (``phi_q u' = c``);
* ``constraints(t, q) -> (phi, phi_q, phi_t)``: the position-level constraints with their
  Jacobian in ``q`` (for assembly and projection); a model whose last ``velocity_rows``
  rows are velocity (nonholonomic) constraints leaves those out here and gives every row
  by ``velocity_constraints(t, q)`` (:func:`velocity_constraints`);
* ``mass_and_forces(t, q, u) -> (M, Q)``.

A planar model has ``q' = u``. A spatial one has unit quaternions among its coordinates
and angular velocities among its speeds; it also offers ``nu`` (number of speeds),
``rates(q, u) -> q'`` and ``kinematic_map(q) -> N`` (``q' = N(q) u``), ``normalize(q)``
and ``velocity_constraints(t, q) -> (phi_u, phi_t)`` with ``phi_u = Phi_q N``. A model may
also offer ``accelerations(t, q, u, rows) -> (u', lambda) | None`` and
``forward_dynamics(t, q, u) -> u' | None`` (the recursive scheme of
:class:`vecnet.numerics.mechanism.CompiledModel`); the integrators use them where they
answer. Newton steps for assembly and projection are taken in the speeds,
``q <- q - N(q) dz``, and the quaternions normalized after each, so their unit norm is kept
without extra equations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, NamedTuple

import numpy as np
import scipy.linalg
from scipy.linalg import lapack

from ..elements.joint_laws import StopLaw
from ..errors import FormulationError, ModelError, SimulationError
from .event_sources import (
    Change,
    EventSource,
    JointStops,
    Modes,
    ModeSwitches,
    SingularPartition,
    segment_events,
)
from .generalized_alpha import DEFAULT_SPECTRAL_RADIUS, GeneralizedAlpha
from .integrators import ARITHMETIC, evaluation_failure, solve_ida, solve_ivp
from .result import Outcome

__all__ = ["independent_rows", "ordered_rows", "velocity_rows", "solve", "accelerations", "solve_accelerations",
           "forward_dynamics",
           "assemble", "integrate_fixed", "FIXED_STEP",
           "Partition", "Stop", "impact", "Motion", "integrate_partitioned", "integrate_dae",
           "speeds",
           "rates", "normalize",
           "velocity_constraints", "kinematic_map", "position_constraints", "tangent_basis",
           "independent_basis", "preferred_split",
           "fastest_rate", "displace", "equilibrium", "linear_model", "linear_state_model",
           "kinematics"]


def speeds(model) -> int:
    """Number of speeds ``u`` (the coordinates' count when ``q' = u``)."""
    return model.nu


def rates(model, q: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``q'`` from the speeds: ``N(q) u`` (``u`` itself when the model has no map)."""
    return model.rates(q, u)


def normalize(model, q: np.ndarray) -> np.ndarray:
    """The coordinates with every unit quaternion normalized (unchanged for the plane)."""
    return model.normalize(q)


def velocity_rows(model) -> int:
    """How many of the model's constraint rows, the last ones, are velocity (nonholonomic)
    constraints given at the speed level only (none unless the model says)."""
    return int(model.velocity_rows)


def velocity_constraints(model, time: float, q: np.ndarray, position=None):
    """``(phi_u, phi_t)``: every constraint at the speed level, ``phi_u u + phi_t = 0`` —
    the position constraints' rows, then the velocity (nonholonomic) constraints' rows;
    ``position`` (the result of ``model.constraints``) is reused when it holds them all
    and its Jacobian is in the speeds."""
    if position is not None and model.jacobian_in_speeds and not velocity_rows(model):
        _, phi_q, phi_t = position
        return phi_q, phi_t
    return model.velocity_constraints(time, q)


def ordered_rows(A: np.ndarray, held: int, tol: float = 1e-9) -> np.ndarray:
    """Indices of a maximal set of independent rows of ``A`` that holds as many of its
    first ``held`` rows (the position constraints) as any: those first, then the velocity
    constraints' rows independent of them.

    >>> ordered_rows(np.array([[1.0, 0.0], [2.0, 0.0], [1.0, 1.0]]), 1).tolist()
    [0, 2]
    """
    first = independent_rows(A[:held], tol)
    if held >= len(A):
        return first
    rest = A[held:]
    if len(first):
        basis = scipy.linalg.orth(A[first].T)
        rest = rest - (rest @ basis) @ basis.T
    return np.concatenate([first, held + independent_rows(rest, tol)]).astype(int)


def independent_rows(phi_q: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Indices of a maximal set of independent constraint rows (QR with pivoting).

    >>> independent_rows(np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]])).tolist()
    [1, 2]
    """
    if phi_q.shape[0] == 0:
        return np.zeros(0, dtype=int)
    _, r, piv = scipy.linalg.qr(phi_q.T, pivoting=True, mode="economic")
    diag = np.abs(np.diag(r))
    rank = int(np.sum(diag > tol * max(1.0, diag[0] if len(diag) else 1.0)))
    return np.sort(piv[:rank])


def solve(A: np.ndarray, b: np.ndarray, positive_definite: bool = False) -> np.ndarray:
    """``A x = b`` by LAPACK directly (Cholesky when ``positive_definite``, else LU): at the
    size of a mechanism, ``numpy.linalg.solve``'s checks cost more than the factorization.
    Raises ``numpy.linalg.LinAlgError`` when ``A`` is singular."""
    if not len(b):
        return np.zeros(0)
    if positive_definite:
        _, x, info = lapack.dposv(A, b)
        if info == 0:
            return x
    _, _, x, info = lapack.dgesv(A, b)
    if info != 0:
        raise np.linalg.LinAlgError("singular matrix")
    return x


def accelerations(snap, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Solve ``M u' - Phi_u^T lambda = Q``, ``Phi_u u' = c`` (independent rows)."""
    n = snap.M.shape[0]
    k = len(rows)
    if k == 0:
        return solve(snap.M, snap.Q, positive_definite=True), np.zeros(len(snap.phi))
    A = snap.phi_q[rows]
    kkt = np.zeros((n + k, n + k))
    kkt[:n, :n] = snap.M
    kkt[:n, n:] = -A.T
    kkt[n:, :n] = A
    sol = solve(kkt, np.concatenate([snap.Q, snap.c[rows]]))
    lam = np.zeros(len(snap.phi))
    lam[rows] = sol[n:]
    return sol[:n], lam


def solve_accelerations(model, time: float, q: np.ndarray, u: np.ndarray, rows: np.ndarray,
                        w=None) -> tuple[np.ndarray, np.ndarray]:
    """``(u', lambda)`` at ``(t, q, u)`` with the constraint rows ``rows``: by the model's
    recursive scheme where it has one and nothing is coupled to it (inputs ``w``), else
    from ``M``, ``Q`` and the constraints (:func:`accelerations`)."""
    if w is None:
        out = model.accelerations(time, q, u, rows)
        if out is not None:
            return out
    return accelerations(model.evaluate(time, q, u, w=w), rows)


def _listed(labels: tuple[str, ...]) -> str:
    """Labels for a message: all of a dozen or fewer, else the model's order."""
    return ", ".join(labels) if 0 < len(labels) <= 12 else "in the model's order"


def _vector(value, size: int, name: str, owner: str, what: Callable[[], str],
            labels: tuple[str, ...] = ()) -> np.ndarray:
    """``value`` as a finite float vector of ``size`` entries, or a ModelError saying why
    not (``what()`` tells which entries ``owner`` expects, ``labels`` names each)."""
    given = np.asarray(value)
    kind = given.dtype.kind
    if kind not in "iuf":   # complex would lose its imaginary part, booleans are no numbers
        raise ModelError(f"{owner}: {name} must be real numbers ({what()}); got "
                         + {"c": "complex", "b": "booleans"}.get(kind, type(value).__name__
                                                                  if kind != "O" else "objects"))
    out = given if kind == "f" and given.dtype == np.float64 else given.astype(float)
    if out.shape != (size,):
        raise ModelError(f"{owner}: {name} must be a vector of {size} entries ({what()}); got "
                         f"shape {out.shape}")
    if not math.isfinite(out.sum()):      # one reduction when all is well (a sum of
        # finite entries overflows only beyond 1e308, where the entries are checked anyway)
        bad = np.flatnonzero(~np.isfinite(out))
        if len(bad):
            label = f" ({labels[bad[0]]})" if len(labels) == size else ""
            raise ModelError(f"{owner}: {name}[{bad[0]}]{label} is {out[bad[0]]}: every "
                             "entry must be finite")
    return out


def forward_dynamics(model, q, u, tau=None, time: float = 0.0,
                     names: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
                     owner: str = "forward_dynamics") -> np.ndarray:
    """``u'`` of a compiled mechanism at ``(time, q, u)`` under the generalized forces
    ``tau`` (in the speeds, added to gravity, springs, drivers and the velocity terms): by
    the articulated-body recursion for a tree, in time linear in its size (one compiled
    call for a tree that gravity alone moves); with loops (cut joints, drivers, velocity
    constraints) by the same recursion and the loops' multipliers
    (:meth:`~vecnet.numerics.mechanism.CompiledModel.accelerations`), the explicit
    saddle-point system where the recursion has no answer. Unit quaternions in ``q`` are
    normalized. ``names`` (coordinates, speeds) name the entries in messages.

    Raises
    ------
    ModelError
        ``q``, ``u`` or ``tau`` of the wrong size or not finite, a quaternion of zero norm.
    SimulationError
        Where the accelerations are not determined (a motion without inertia, dependent
        loops that the multipliers cannot resolve).
    """
    n, nu = model.n, speeds(model)

    def checked(q, u):
        coordinates, speed_names = names or ((), ())
        return (_vector(q, n, "q", owner, lambda: f"the coordinates {_listed(coordinates)}",
                        coordinates),
                _vector(u, nu, "u", owner, lambda: f"the speeds {_listed(speed_names)}",
                        speed_names))

    q, u = checked(q, u)
    fast = model.open_chain_accelerations() if tau is None else None
    if fast is not None:    # it normalizes; a zero quaternion fails it, and is told below
        out = fast(q, u)
        if out is not None:
            return out
    if tau is not None:
        speed_names = names[1] if names else ()
        tau = _vector(tau, nu, "tau", owner,
                      lambda: f"a generalized force per speed {_listed(speed_names)}",
                      speed_names)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        q = normalize(model, q)
    if not np.isfinite(q).all():
        raise ModelError(f"{owner}: a quaternion in q has zero norm; give unit quaternions")
    rows = np.zeros(0, dtype=int)
    if model.m:
        phi_u, _ = velocity_constraints(model, time, q)
        rows = ordered_rows(phi_u, model.m - velocity_rows(model))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        out = model.accelerations(time, q, u, rows, tau)
        if out is None:
            snap = model.evaluate(time, q, u)
            if tau is not None:
                snap.Q = snap.Q + tau
            try:
                out = accelerations(snap, rows)
            except np.linalg.LinAlgError:
                out = None
    if out is None or not np.isfinite(out[0]).all():
        if np.any(u) and np.all(np.isfinite(forward_dynamics(
                model, q, np.zeros(nu), tau, time, names, owner))):
            raise SimulationError(f"{owner}: the accelerations are not finite at this state: "
                                  "the velocity terms of speeds this large (up to "
                                  f"{np.max(np.abs(u)):.3g}) leave double precision")
        raise SimulationError(f"{owner}: the accelerations are not determined at this state: "
                              "a motion has no inertia (a body without mass or inertia) or "
                              "the loop constraints are dependent here")
    return np.array(out[0], dtype=float)


def kinematic_map(model, q: np.ndarray) -> np.ndarray | None:
    """``N(q)`` with ``q' = N(q) u``; ``None`` when ``q' = u``."""
    return model.kinematic_map(q)


def _move(model, q: np.ndarray, columns: np.ndarray, step: np.ndarray) -> np.ndarray:
    """``q - N[:, columns] step`` (normalized): a Newton step taken in the speeds."""
    N = kinematic_map(model, q)
    if N is None:
        q[columns] -= step
        return q
    return normalize(model, q - N[:, columns] @ step)


def assemble(model, q: np.ndarray, time: float = 0.0, fixed=(), tol: float = 1e-12,
             iterations: int = 50, prefer=None) -> np.ndarray:
    """Close the loops: solve ``Phi(q, t) = 0`` from ``q`` by minimum-norm Newton steps in
    the speeds (``q <- q - N(q) Phi_u^+ Phi``), keeping the speeds at positions ``fixed``
    at zero (their coordinates as they are).

    With ``prefer`` (speed indices, the one most worth keeping first), the independent
    speeds of :func:`preferred_split` among the speeds not ``fixed`` are held too, so that
    only dependent coordinates move: a crank placed at 60 degrees stays there and the
    coupler and rocker close the loop. When the loops cannot close with them held (the
    placed values admit no assembly), every speed not ``fixed`` moves instead.

    Parameters
    ----------
    model
        A compiled mechanism model (see the module's docstring).
    q : numpy.ndarray
        The starting coordinates (the bodies' initial poses).
    time : float
    fixed : sequence of int
        Speeds whose coordinates are held as they are.
    tol : float
        The largest constraint residual accepted.
    iterations : int
        Newton steps at most (for each of the two attempts with ``prefer``).
    prefer : sequence of int, optional
        Speed indices in order of preference for holding.

    Returns
    -------
    numpy.ndarray
        The assembled coordinates.

    Raises
    ------
    FormulationError
        When the loops cannot be closed; the message names the constraints left open.

    Examples
    --------
    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("m")
    >>> a = mech.body("a", 1.0, 0.1, position=(0.5, 0.0))
    >>> b = mech.body("b", 1.0, 0.1, position=(1.5, 0.0))
    >>> _ = mech.revolute("O", mech.ground.point(0, 0), a.point(-0.5, 0))
    >>> _ = mech.revolute("A", a.point(0.5, 0), b.point(-0.5, 0))
    >>> _ = mech.slot("S", mech.ground.point(0, 0.5), b.point(0.5, 0), axis=(1, 0))
    >>> eom = mech.formulate()
    >>> q = assemble(eom.compile(), eom.initial_guess(), prefer=[0, 1])
    >>> float(q[0]), round(float(np.degrees(q[1])), 9)   # the first pin held, the second turns
    (0.0, 30.0)
    """
    q = np.array(normalize(model, np.asarray(q, dtype=float)), dtype=float)
    fixed = np.asarray(fixed, dtype=int)
    if prefer is not None:
        held = _held_independent(model, q, time, fixed, prefer)
        if len(held):
            try:
                return _close(model, q.copy(), time, np.concatenate([fixed, held]), tol,
                              iterations)
            except FormulationError:
                pass   # no assembly keeps the placed values: let them move too
    return _close(model, q, time, fixed, tol, iterations)


def _position_jacobian(model, time: float, q: np.ndarray, position=None) -> np.ndarray:
    """``Phi_u`` of the position constraints (the velocity constraints' rows left out)."""
    position = model.constraints(time, q) if position is None else position
    if model.jacobian_in_speeds:
        return position[1]
    return velocity_constraints(model, time, q, position)[0][:len(position[0])]


def _held_independent(model, q: np.ndarray, time: float, fixed: np.ndarray,
                      prefer) -> np.ndarray:
    """The independent speeds of :func:`preferred_split` of the position constraints'
    Jacobian at ``q`` among the speeds not ``fixed``, ``prefer`` giving the preference."""
    candidates = np.array([i for i in prefer if i not in set(fixed.tolist())], dtype=int)
    if not len(candidates):
        return candidates
    phi_u = _position_jacobian(model, time, q)
    if not phi_u.shape[0]:
        return np.zeros(0, dtype=int)
    _, _, ind = preferred_split(phi_u[:, candidates], np.arange(len(candidates)))
    return candidates[ind]


def _close(model, q: np.ndarray, time: float, fixed: np.ndarray, tol: float,
           iterations: int) -> np.ndarray:
    """Minimum-norm Newton steps on ``Phi = 0`` in the speeds not ``fixed``."""
    free = np.setdiff1d(np.arange(speeds(model)), fixed)
    for _ in range(iterations):
        position = model.constraints(time, q)
        phi = position[0]
        if not len(phi) or np.max(np.abs(phi)) < tol:
            return q
        phi_u = _position_jacobian(model, time, q, position)
        step, *_ = np.linalg.lstsq(phi_u[:, free], phi, rcond=None)
        q = _move(model, q, free, step)
        if not np.all(np.isfinite(q)):
            break
    phi = model.constraints(time, q)[0]
    phi = np.where(np.isfinite(phi), phi, np.inf)
    names = model.constraint_names
    worst = np.argsort(-np.abs(phi))[:4]
    shown = [f"{names[i]} (off by {phi[i]:.3g})" for i in worst]
    raise FormulationError("the mechanism cannot be assembled: the loop closure equations "
                           + ", ".join(shown) + " stay open; check the joint positions and "
                           "the initial poses")


def preferred_split(A: np.ndarray, order, tol: float = 1e-3
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Independent rows of ``A`` and its columns split into dependent and independent, the
    independent ones those earliest in ``order`` that leave a well-conditioned dependent
    block: the columns are taken as dependent from the end of ``order``, each kept when
    it adds to the span of those kept by more than ``tol`` times the largest column (its
    part orthogonal to them). A user reads and places the first coordinates of a
    mechanism (the crank next to the ground), so those are the ones worth keeping
    independent; QR with pivoting (:class:`Partition`) picks by size alone. When the
    greedy choice does not reach the rank (every late column nearly dependent), it is QR
    with pivoting's.

    Parameters
    ----------
    A : numpy.ndarray
        A constraint Jacobian (rows constraints, columns speeds).
    order : sequence of int
        Every column index once, the one most worth keeping independent first.
    tol : float
        The smallest new direction a dependent column may add, relative to the largest
        column of ``A``.

    Returns
    -------
    (rows, dependent, independent) : tuple of numpy.ndarray
        Sorted indices.

    Examples
    --------
    >>> A = np.array([[1.0, 1.0, 0.0], [2.0, 0.0, 1.0]])
    >>> [c.tolist() for c in preferred_split(A, [0, 1, 2])]
    [[0, 1], [1, 2], [0]]
    >>> [c.tolist() for c in preferred_split(A, [2, 1, 0])]
    [[0, 1], [0, 1], [2]]
    """
    rows = independent_rows(A)
    columns = np.arange(A.shape[1])
    if not len(rows):
        return rows, np.zeros(0, dtype=int), columns
    B = A[rows]
    scale = float(np.max(np.linalg.norm(B, axis=0)))
    basis = np.zeros((B.shape[0], len(rows)))   # orthonormal columns of those kept
    dependent: list[int] = []
    for j in reversed(list(order)):
        v = B[:, j].copy()
        kept = basis[:, :len(dependent)]
        for _ in range(2):   # twice: Gram-Schmidt keeps its orthogonality then
            v -= kept @ (kept.T @ v)
        size = float(np.linalg.norm(v))
        if size > tol * scale:
            basis[:, len(dependent)] = v / size
            dependent.append(int(j))
            if len(dependent) == len(rows):
                dep = np.sort(np.asarray(dependent, dtype=int))
                return rows, dep, np.setdiff1d(columns, dep)
    return _split(A)


def _split(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Independent rows of ``A``, and its columns split into dependent and independent."""
    rows = independent_rows(A)
    if len(rows):
        _, _, piv = scipy.linalg.qr(A[rows], pivoting=True, mode="economic")
        dep = np.sort(piv[:len(rows)])
    else:
        dep = np.zeros(0, dtype=int)
    return rows, dep, np.setdiff1d(np.arange(A.shape[1]), dep)


def position_constraints(model, time: float, q: np.ndarray):
    """``(residual, Jacobian in q)`` of the position-level equations that coordinate
    partitioning solves: the constraints, and for a spatial model also the quaternions'
    unit norms."""
    return model.position_constraints(time, q)


#: the largest loop residual a projection leaves (metres and radians), and with redundant
#: rows, where least squares spreads it over rows the partition does not hold, a smaller
#: one: the dependent coordinates' error is this amplified by the partition's conditioning,
#: and the Bricard linkage at rtol 1e-12 needs the smaller
CLOSED, CLOSED_REDUNDANT = 1e-12, 1e-14
#: a partition (or a DAE's rows) is chosen anew when its conditioning falls below this: a
#: projection amplifies its residual by up to the inverse, and at 1e-3 that already cost
#: the Bricard linkage every step near t = 3.8 (the move larger than rtol 1e-8 allows)
NEAR_SINGULAR = 1e-2


class Partition:
    """Coordinate partitioning: the independent coordinates are kept as integrated, the
    dependent ones ``dep_q`` found from the position equations (Newton, starting from the
    values carried along with the state); the independent speeds ``ind`` are integrated
    and the dependent ones ``dep`` found from the velocity constraints. With ``q' = u``
    and no velocity (nonholonomic) constraints both splits are one; velocity constraints
    make more speeds dependent than coordinates (a rolling wheel integrates its position
    on the ground but not its speed along it)."""

    def __init__(self, model, time: float, q: np.ndarray) -> None:
        self.model = model
        A = velocity_constraints(model, time, q)[0]
        self.rows, self.dep, self.ind = _split(A)
        if not model.own_position_constraints and not velocity_rows(model):
            self.rows_q, self.dep_q = self.rows, self.dep
            rows_q = len(A)
        else:
            phi_q = position_constraints(model, time, q)[1]
            self.rows_q, self.dep_q, _ = _split(phi_q)
            rows_q = len(phi_q)
        #: redundant loops (more constraint rows than their rank: a Bennett linkage): the
        #: independent rows chosen here need not hold the others away from this pose,
        #: so the projections solve every row, by least squares (exact on the manifold)
        self.redundant = len(self.rows) < len(A) or len(self.rows_q) < rows_q
        #: the projections in body space (a model's ``body_partition``), where the model
        #: solves its constraints there and both splits are one
        self.body = None
        if len(self.dep) and np.array_equal(self.rows, self.rows_q) \
                and np.array_equal(self.dep, self.dep_q):
            self.body = model.body_partition(self.rows, self.dep, self.ind)

    def project(self, time: float, q: np.ndarray, uw: np.ndarray):
        """Consistent ``(q, u)`` from a state near the constraint manifold."""
        if self.body is not None:
            return self.body.project(time, q, uw)
        model = self.model
        q = np.array(q, dtype=float)
        u = np.zeros(speeds(model))
        u[self.ind] = uw
        own = not model.own_position_constraints   # the constraints alone: one system
        position = None
        if not len(self.dep_q):
            q = normalize(model, q)
        else:
            for _ in range(25):
                if own:
                    position = model.constraints(time, q)
                    res, jac = position[0], position[1]
                else:
                    res, jac = model.position_constraints(time, q)
                if not self.redundant:
                    res, jac = res[self.rows_q], jac[self.rows_q]
                if np.max(np.abs(res)) < (CLOSED_REDUNDANT if self.redundant else CLOSED):
                    break
                # redundant rows: every row, by least squares (see __init__)
                step = scipy.linalg.lstsq(jac[:, self.dep_q], res, lapack_driver="gelsy")[0] \
                    if self.redundant else solve(jac[:, self.dep_q], res)
                q[self.dep_q] -= step
                position = None
                if np.max(np.abs(step)) < 1e-14 * (1.0 + np.max(np.abs(q))):  # at roundoff
                    break
            else:
                raise SimulationError(f"at t = {time:.6g} the loops cannot be closed: the "
                                      "mechanism left its assembly (a singular configuration?)")
        if len(self.dep):
            A, phi_t = velocity_constraints(model, time, q, position)
            if self.redundant:
                u[self.dep] = scipy.linalg.lstsq(A[:, self.dep], -(A[:, self.ind] @ uw + phi_t),
                                                 lapack_driver="gelsy")[0]
            else:
                A = A[self.rows]
                u[self.dep] = solve(A[:, self.dep], -(A[:, self.ind] @ uw + phi_t[self.rows]))
        return q, u

    def conditioning(self, time: float, q: np.ndarray) -> float:
        """Smallest singular value of the dependent block relative to the largest of the
        whole Jacobian (the worse of the position and the velocity split); in body space,
        an estimate of it (:meth:`~vecnet.numerics.bodyspace.BodyPartition.conditioning`)."""
        if self.body is not None:
            return self.body.conditioning(time, q)
        out = 1.0
        pairs = [(velocity_constraints(self.model, time, q)[0][self.rows], self.dep)]
        if self.dep_q is not self.dep:
            pairs.append((position_constraints(self.model, time, q)[1][self.rows_q], self.dep_q))
        for A, dep in pairs:
            if len(dep):
                sv = np.linalg.svd(A[:, dep], compute_uv=False)
                out = min(out, sv[-1] / max(np.linalg.svd(A, compute_uv=False)[0], 1e-300))
        return out


def _no_extra(time, q, u, s):
    return np.zeros(0), None


@dataclass(frozen=True)
class Stop:
    """A unilateral stop on a mechanism whose coordinate rates are its speeds (``q' = u``):
    free while ``gap(q) >= 0``; striking it (``gap`` falling through zero) reverses the
    speed ``gradient(q) . u`` of the gap times ``-restitution`` (Newton's law of impact)."""

    name: str
    gap: Callable[[np.ndarray], float]
    gradient: Callable[[np.ndarray], np.ndarray]
    restitution: float


def stop_sides(eom) -> list[tuple[str, Any, list, Any]]:
    """``(name, gap, the gap's rate per speed, stop element)`` of each side of each joint
    stop, in ``q``: the gap the distance of the joint's coordinate from the limit
    (:meth:`axial`), positive while free."""
    out = []
    for element in eom.mechanism.network.elements:
        if not isinstance(element, StopLaw):
            continue
        eom.check_stop(element)
        value, rate = eom.axial(element.joint, element.quantity)
        per_speed = [rate.diff(ui) for ui in eom.u]
        for limit, sign, end in element.sides():
            out.append((f"{element.name}.{end}", element.gap(value, limit, sign),
                        [sign * g for g in per_speed], element))
    return out


def impact(model, time: float, q: np.ndarray, u: np.ndarray, stop: Stop,
           held: np.ndarray | None = None) -> np.ndarray:
    """The speeds just after striking ``stop`` at ``(time, q)`` with speeds ``u``: an impulse
    ``P`` along the gap's gradient ``g`` and impulsive multipliers ``L`` of the constraints,

        M du = Phi_u^T L + g^T P,   Phi_u du = 0,   g . du = -(1 + e) g . u,

    so the gap's speed turns from ``g . u`` to ``-e g . u`` and the constraints still hold.
    The rows ``held`` (k x speeds; closed contacts) keep their speeds too.

    >>> class Block:  # one free coordinate of mass 2
    ...     def evaluate(self, time, q, u):
    ...         return type("S", (), {"M": np.eye(1) * 2, "phi_q": np.zeros((0, 1))})
    >>> stop = Stop("wall", lambda q: q[0], lambda q: np.array([1.0]), 0.5)
    >>> impact(Block(), 0.0, np.zeros(1), np.array([-3.0]), stop)
    array([1.5])
    """
    snap = model.evaluate(time, q, u)
    n = len(u)
    A = snap.phi_q[independent_rows(snap.phi_q)] if len(snap.phi_q) else np.zeros((0, n))
    if held is not None and len(held):
        A = np.vstack([A, held])
    k = len(A)
    g = np.asarray(stop.gradient(q), dtype=float)
    K = np.zeros((n + k + 1, n + k + 1))
    K[:n, :n] = snap.M
    K[:n, n:n + k], K[n:n + k, :n] = -A.T, A
    K[:n, -1], K[-1, :n] = -g, g
    rhs = np.zeros(n + k + 1)
    rhs[-1] = -(1 + stop.restitution) * (g @ u)
    return u + np.linalg.solve(K, rhs)[:n]


class Motion(NamedTuple):
    """A mechanism's motion as an integrator samples it: the times ``t``, and a column a
    sample of the coordinates ``q``, the speeds ``u`` and the states ``s`` of anything
    coupled to it; ``outcome`` tells how the integration went (a run stopped early holds
    the samples it reached, the error in ``outcome.error``)."""

    t: np.ndarray
    q: np.ndarray
    u: np.ndarray
    s: np.ndarray
    outcome: Outcome


def _counted(outcome: Outcome, progress) -> Callable[..., None]:
    """A function of ``(t, y, finite=False, count=1)`` that counts ``count`` evaluations
    in ``outcome.nfev`` and passes them on to ``progress`` (a
    :class:`~vecnet.core.bounds.Watch`), if any; ``finite``: ``y`` is known to be finite
    (not checked again)."""
    def evaluation(time: float, y: np.ndarray, finite: bool = False, count: int = 1) -> None:
        outcome.nfev += count
        if progress is not None:
            progress(time, y, finite, count)

    return evaluation


def integrate_partitioned(model, t0, q0, u0, times, rtol, atol, method="DOP853",
                          extra=_no_extra, s0=(), progress=None, stops=(), modes=None):
    """Forward dynamics on scipy by coordinate partitioning.

    The state is every coordinate, every speed and the states ``s`` of anything coupled to
    the mechanism: ``extra(t, q, u, s)`` returns their rates and the mechanism's inputs.
    ``method`` is one of scipy's explicit Runge-Kutta methods
    (:data:`~vecnet.numerics.integrators.EXPLICIT`). The accelerations are evaluated at
    the state as it is (the constraints' second derivatives hold there), and after every
    accepted step the dependent coordinates and speeds are found anew from the
    independent ones (Newton's method on the constraints; quaternions normalized), so the
    loops stay closed to roundoff at every step and output time, at one projection a step
    rather than one an evaluation; a step that cannot be brought back is taken again,
    shorter. When the dependent coordinates approach a singular choice the partition is
    chosen anew.
    ``progress(t, y)``, if given, sees every evaluation (a :class:`~vecnet.core.bounds.Watch`
    bounds the work). Each of the ``stops`` (:class:`Stop`) ends a stretch of integration
    when it is struck; the speeds jump (:func:`impact`) and the integration starts again.
    ``modes`` (a :class:`~vecnet.numerics.friction.CoulombModes` or a
    :class:`~vecnet.numerics.contact.ContactModes`), if given, gives the accelerations at
    every evaluation, solved with the set-valued joint frictions' or the contacts' forces,
    and its events end a stretch too: the modes switch and the integration starts again.
    Returns the :class:`Motion` at ``times``, each strike and mode switch an event.

    The run goes from event to event: each stretch gathers the events of its sources
    (:mod:`~vecnet.numerics.event_sources`: the partition, the stops, the modes),
    integrates to the first one reached and lets its source fire there."""
    outcome = Outcome("partition")
    evaluation = _counted(outcome, progress)
    out_q, out_u, out_s, out_t = [], [], [], []
    # after a strike the first step is this short, so that no step leaps a whole bounce
    # (from the stop back through it); bounces shorter still are taken for settling
    settle = 1e-9 * max(float(np.max(times)) - t0, 1e-300)
    time, q, u, s = t0, q0.copy(), u0.copy(), np.asarray(s0, dtype=float)
    pending = np.asarray(times, dtype=float)
    n, nu = model.n, speeds(model)
    sources: list[EventSource] = [JointStops(stops, partial(impact, model), settle)]
    if modes is not None:
        u, _ = modes.start(time, q, u, first=True)
        sources.append(ModeSwitches(modes, settle))
    last: Change | None = None   # the last strike or mode switch
    short = settle               # the first step after it
    while True:
        part = Partition(model, time, q)
        constrained = bool(len(part.dep) or len(part.dep_q))
        if constrained:
            # the state came from the last partition, whose rows may no longer hold the
            # others (redundant loops): start on this partition's constraints
            try:
                q, u = part.project(time, q, u[part.ind])
            except (SimulationError, np.linalg.LinAlgError) as exc:
                outcome.fail(exc)
                break
        # a stretch whose modes apply no load (contacts all open: a flight) is the
        # mechanism's own motion, by the compiled recursion where it has no other inputs
        stretch = _stretch(model, part, constrained, extra, len(s), evaluation, progress,
                           None if modes is None or modes.idle() else modes)
        active = ([SingularPartition(part, NEAR_SINGULAR)] if constrained else []) + sources
        events, owners = segment_events(active, n)
        sol = solve_ivp(stretch.rates, (time, pending[-1]), np.concatenate([q, u, s]), method,
                        outcome, after_step=stretch.after_step,
                        # with loops the steps are projected, and landing on the output
                        # times failed an RSSR's projection near t = 0.94: not yet; nor on
                        # more outputs than LAND_OUTPUTS, where the interpolant serves
                        land=not constrained and len(pending) <= LAND_OUTPUTS,
                        stages=stretch.stages, rtol=rtol, atol=atol,
                        t_eval=pending[pending >= time], events=events or None,
                        max_step=min(source.longest_step(q, u) for source in active),
                        first_step=min(short, 0.5 * (pending[-1] - time)) if last is not None
                        and last.time == time and pending[-1] > time
                        and math.isfinite(short) else None)
        sampled = len(out_t)
        try:
            for tt, y in zip(sol.t, sol.y.T):
                qf, uf = stretch.consistent(tt, y)
                out_t.append(tt)
                out_q.append(qf)
                out_u.append(uf)
                out_s.append(y[n + nu:])
        except SimulationError as exc:
            outcome.fail(exc)
        for source in active:
            source.sampled(len(out_t) - sampled)
        done = sol.t[-1] if len(sol.t) else time
        pending = pending[pending > done]
        if outcome.error is not None or sol.status != 1 or not len(pending):
            break
        fired = next(i for i, hit in enumerate(sol.t_events) if len(hit))
        time = float(sol.t_events[fired][0])
        y = sol.y_events[fired][0]
        q, u = stretch.consistent(time, y)
        s = y[n + nu:]
        source, index = owners[fired]
        firing = source.fire(index, time, q, u, last)
        if firing.error is not None:
            outcome.fail(firing.error)
            break
        outcome.events.extend(firing.events)
        u = firing.u
        short = settle if firing.first_step is None else firing.first_step
        if firing.cause is not None:
            last = Change(firing.cause, time)
        if firing.impact:   # an impact may set a stuck joint moving, or stop one
            for other in active:
                if other is not source:
                    u, happened = other.struck(time, q, u)
                    outcome.events.extend(happened)
    return Motion(np.array(out_t), np.array(out_q).T.reshape(n, len(out_t)),
                  np.array(out_u).T.reshape(nu, len(out_t)),
                  np.array(out_s).T.reshape(len(s), len(out_t)), outcome)


#: the most output times the steps land on: each costs a step (twelve evaluations for
#: DOP853), so that 100,000 outputs, within max_points, would cost more than the 500,000
#: evaluations of max_evaluations; beyond it the method's interpolant gives the outputs
LAND_OUTPUTS = 10_000


class _Stretch(NamedTuple):
    """What the integrator is given over one stretch of :func:`integrate_partitioned`, one
    partition's: the ``rates`` ``y'(t, y)`` of its state ``y = (q, u, s)``, the
    ``consistent(t, y) -> (q, u)`` on the constraints, the projection ``after_step`` of
    each accepted step (``None`` without constraints) and the compiled ``stages`` of each
    DOP853 step (``None`` where there are none; :func:`~.integrators.solve_ivp`)."""

    rates: Callable[[float, np.ndarray], np.ndarray]
    consistent: Callable[[float, np.ndarray], tuple[np.ndarray, np.ndarray]]
    after_step: Callable[[float, np.ndarray], np.ndarray] | None
    stages: Callable | None


def _stretch(model, part: Partition, constrained: bool, extra, coupled: int, evaluation,
             progress, modes: Modes | None = None) -> _Stretch:
    """The :class:`_Stretch` of partition ``part`` (``constrained``: it has dependent
    coordinates or speeds) with ``coupled`` states of ``extra`` and the set-valued
    ``modes`` that load it (``None``: none do); ``evaluation`` counts the evaluations
    (:func:`_counted`), ``progress`` bounds them."""
    n, nu = model.n, speeds(model)
    plain = not constrained and not coupled and extra is _no_extra and modes is None

    def consistent(tt, y):
        """``(q, u)`` on the constraints from the integrator's state ``y``."""
        return part.project(tt, y[:n], y[n:n + nu][part.ind])

    def constrained_rates(tt, y):
        evaluation(tt, y)
        qf, uf = normalize(model, y[:n]), y[n:n + nu]
        sdot, w = extra(tt, qf, uf, y[n + nu:])
        # set-valued forces come with the accelerations they were solved with
        a = solve_accelerations(model, tt, qf, uf, part.rows, w)[0] if modes is None \
            else modes.accelerations(tt, qf, uf, w)
        return np.concatenate([rates(model, qf, uf), a, sdot])

    if not plain:
        return _Stretch(constrained_rates, consistent,
                        _projection(model, part, consistent) if constrained else None, None)

    # the tree under gravity alone: one compiled call per evaluation
    compiled = model.open_chain_rates()

    def open_chain(tt, y):  # M u' = Q alone: nothing to project
        if compiled is not None:
            out = compiled(y)
            if out is not None:   # y and y' finite
                evaluation(tt, y, True)
                return out
        evaluation(tt, y)
        qf, uf = normalize(model, y[:n]), y[n:]
        a = model.forward_dynamics(tt, qf, uf)
        if a is None:
            M, Q = model.mass_and_forces(tt, qf, uf)
            a = solve(M, Q, positive_definite=True)
        return np.concatenate([rates(model, qf, uf), a])

    # and each attempted step of DOP853 one compiled call, its evaluations counted
    stages = model.open_chain_stages() if compiled is not None else None
    room = getattr(progress, "room", None)

    def counted_stages(tt, y, f, h, K, A, B, *tables):
        count = len(B)      # the evaluations of a step: one a stage but the first
        if room is not None and not room(count, len(y)):
            return None     # scipy's step, one evaluation at a time, stops at the bound
        taken = stages(y, f, h, K, A, B, *tables)
        if taken is not None:
            evaluation(tt + h, taken[0], True, count)
        return taken

    return _Stretch(open_chain, consistent, None,
                    counted_stages if stages is not None else None)


def _projection(model, part: Partition, consistent) -> Callable[[float, np.ndarray], np.ndarray]:
    """The ``after_step(t, y)`` of :func:`~.integrators.solve_ivp` that moves the state onto
    the constraints of ``part`` by ``consistent(t, y) -> (q, u)``, the coupled states kept;
    its ``explain(t, y)`` tells the constraints' rank and the pose where it cannot."""
    n, nu = model.n, speeds(model)

    def back(tt, y):
        return np.concatenate([*consistent(tt, y), y[n + nu:]])

    def explain(tt, y):
        A = velocity_constraints(model, tt, normalize(model, y[:n]))[0]
        rank = len(independent_rows(A))
        names = [str(c) for c in model.eom.q]
        pose = ", ".join(f"{name} = {value:.6g}" for name, value in zip(names, y[:n]))
        return (f"the {len(A)} constraint rows have rank {rank} there, the "
                f"partition's dependent block a conditioning of "
                f"{part.conditioning(tt, y[:n]):.3g}; the pose: {pose}")

    back.explain = explain  # type: ignore[attr-defined]
    return back


#: the fixed-step schemes of :func:`integrate_fixed`
FIXED_STEP = ("rk4", "euler", "generalized-alpha")
#: a mechanism's integration methods: coordinate partitioning, the DAE (IDA), fixed steps
METHODS = ("partition", "dae", *FIXED_STEP)


def check_method(method: Any, step: float | None) -> None:
    """Refuse a ``method`` not in :data:`METHODS`, or a ``step`` given without a
    fixed-step method (or missing with an explicit one: ``"generalized-alpha"`` has a
    default).

    >>> check_method("rk4", None)
    Traceback (most recent call last):
    ...
    vecnet.errors.FormulationError: step= goes with the fixed-step methods ('rk4', 'euler', 'generalized-alpha') (and the explicit ones need it); method is 'rk4'
    """
    if method not in METHODS:
        raise FormulationError("method must be one of " + ", ".join(map(repr, METHODS))
                               + f"; got {method!r}")
    if (step is not None and method not in FIXED_STEP) or \
            (step is None and method in FIXED_STEP and method != "generalized-alpha"):
        raise FormulationError(f"step= goes with the fixed-step methods {FIXED_STEP} "
                               f"(and the explicit ones need it); method is {method!r}")


def integrate_fixed(model, t0, q0, u0, times, step: float, scheme: str = "rk4",
                    progress=None, rtol: float = 1e-8, atol: float = 1e-10,
                    spectral_radius: float = DEFAULT_SPECTRAL_RADIUS, extra=_no_extra, s0=()):
    """Forward dynamics with a fixed step, as game and robotics engines integrate: the
    classical Runge-Kutta scheme of order 4 (``"rk4"``), semi-implicit (symplectic)
    Euler (``"euler"``: ``u <- u + h u'(q, u)``, then ``q <- q + h N(q) u`` with the new
    speeds), or the implicit generalized-alpha method (``"generalized-alpha"``,
    :class:`~.generalized_alpha.GeneralizedAlpha` with ``spectral_radius``; Newton's
    method to ``rtol`` and ``atol``), whose steps may be far longer than the fastest
    mode's period: it damps what it cannot follow, as flexible bodies need. The state
    is the coordinates and the independent speeds of a coordinate partition, as in
    :func:`integrate_partitioned`, and the states ``s`` of anything coupled to the
    mechanism (``extra(t, q, u, s)`` gives their rates and the mechanism's inputs): after
    every step the dependent coordinates and speeds are found from the constraints (and
    quaternions normalized), so loops stay closed whatever the step. Each interval
    between output times is split into equal steps no longer than ``step``. Returns the
    :class:`Motion` at ``times``.

    Raises
    ------
    FormulationError
        For an unknown scheme or a step that is not a positive number.
    """
    if scheme not in FIXED_STEP:
        raise FormulationError(f"scheme must be one of {', '.join(FIXED_STEP)}; got {scheme!r}")
    if not (isinstance(step, (int, float)) and np.isfinite(step) and step > 0):
        raise FormulationError(f"a fixed-step method needs step > 0 (seconds); got {step!r}")
    outcome = Outcome(scheme)
    evaluation = _counted(outcome, progress)
    part = Partition(model, t0, q0)
    constrained = bool(len(part.dep) or len(part.dep_q))
    q, u = np.array(q0, dtype=float), np.array(u0, dtype=float)
    n, free = model.n, len(part.ind)   # (every partition leaves as many speeds free)

    def consistent(tt, qq, uw):
        if constrained:
            return part.project(tt, qq, uw)
        full = np.array(u)
        full[part.ind] = uw
        return normalize(model, qq), full

    def joined(tt, y):   # the rates of (q, independent speeds, coupled states)
        evaluation(tt, y)
        qf, uf = consistent(tt, y[:n], y[n:n + free])
        sdot, w = extra(tt, qf, uf, y[n + free:])
        a, _ = solve_accelerations(model, tt, qf, uf, part.rows, w)
        return np.concatenate([rates(model, qf, uf), a[part.ind], sdot])

    # the coordinates' columns of the Jacobian turn with the bodies; the speeds' change
    # slowly (velocity terms)
    implicit = GeneralizedAlpha(joined, spectral_radius, rtol, atol,
                                frequent=np.arange(n)) \
        if scheme == "generalized-alpha" else None

    def advance(tt, y, h):
        """One step from a consistent state."""
        if implicit is not None:
            return implicit.step(tt, y, h)
        if scheme == "rk4":
            k1 = joined(tt, y)
            k2 = joined(tt + h / 2, y + h / 2 * k1)
            k3 = joined(tt + h / 2, y + h / 2 * k2)
            k4 = joined(tt + h, y + h * k3)
            return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        y = y + np.concatenate([np.zeros(n), h * joined(tt, y)[n:]])
        qf, uf = consistent(tt, y[:n], y[n:n + free])
        return np.concatenate([qf + h * rates(model, qf, uf), y[n:]])

    out_t, out_q, out_u, out_s = [], [], [], []

    def state_on(new: Partition, coupled: np.ndarray) -> np.ndarray:
        """The state ``[q, independent speeds, coupled states]`` on partition ``new`` at
        the present ``(time, q, u)``, the implicit scheme (if any) started there."""
        y = np.concatenate([q, u[new.ind], coupled])
        if implicit is not None:
            implicit.start(time, y)
        return y

    time = float(t0)
    try:
        y = state_on(part, np.asarray(s0, dtype=float))
        for target in np.asarray(times, dtype=float):
            steps = int(np.ceil((target - time) / step - 1e-9)) if target > time else 0
            h = (target - time) / steps if steps else 0.0
            for _ in range(steps):
                for attempt in range(2):
                    try:
                        y_new = advance(time, y, h)
                        q_new, u_new = consistent(time + h, y_new[:n], y_new[n:n + free])
                        break
                    except (SimulationError, np.linalg.LinAlgError):
                        if attempt or not constrained:
                            raise
                        # the dependent coordinates came near a singular choice within the
                        # step: partition anew at its start and take it again
                        part = Partition(model, time, q)
                        y = state_on(part, y[n + free:])
                time, q, u = time + h, q_new, u_new
                y = np.concatenate([q, y_new[n:]])
                if constrained:
                    # projections lose accuracy as the dependent block nears singularity:
                    # take a better partition while the present one is still good enough
                    cond = part.conditioning(time, q)
                    if cond < 0.05:
                        fresh = Partition(model, time, q)
                        if fresh.conditioning(time, q) > cond:
                            part = fresh
                            y = state_on(part, y[n + free:])
            out_t.append(time)
            out_q.append(q)
            out_u.append(u)
            out_s.append(y[n + free:])
        outcome.message = f"reached the end of the span by {scheme} steps of at most {step:g} s"
        if implicit is not None:
            outcome.message += (f" (spectral radius {implicit.rho:g}: modes much faster than "
                                f"{1 / step:.3g} rad/s damped; {implicit.jacobians} Jacobians)")
    except (SimulationError, *ARITHMETIC) as exc:
        outcome.fail(evaluation_failure(exc))
    count = len(out_t)
    return Motion(np.array(out_t), np.array(out_q).T.reshape(model.n, count),
                  np.array(out_u).T.reshape(speeds(model), count),
                  np.array(out_s).T.reshape(len(np.asarray(s0)), count), outcome)


def integrate_dae(model, t0, q0, u0, times, rtol, atol, extra=_no_extra, s0=(), progress=None):
    """Forward dynamics on IDA (scikit-sundae): the DAE in the stabilized index-2 form of
    Gear, Gupta and Leimkuhler, which keeps both the position and the velocity constraints

        q' = N(q) (u + Phi_u^T mu),   M u' = Q + A^T lambda,   Phi = 0,   A u + b = 0

    (``N = I`` in the plane; quaternions are normalized wherever the model is evaluated).
    ``A u + b = 0`` holds every constraint at the speed level, the velocity
    (nonholonomic) constraints among them, whose multipliers are in ``lambda``; ``Phi`` and
    the stabilizing ``mu`` are the position constraints' alone. The multipliers are left
    out of the error test (a very large absolute tolerance), as index-2 problems need.
    Redundant loops (a Bennett linkage: more constraint rows than their rank) keep a
    maximal set of independent rows (:func:`ordered_rows`); which rows are independent
    changes with the pose, so an event ends a stretch where the kept rows come near
    dependence (:func:`row_conditioning` below :data:`NEAR_SINGULAR`) and the next
    starts with rows chosen anew.
    States ``s`` coupled to the mechanism follow ``s' = sdot`` from
    ``extra(t, q, u, s) -> (sdot, inputs)``; ``progress(t, y)`` sees every evaluation.
    Returns the :class:`Motion` at ``times``."""
    from sksundae.ida import IDA

    outcome = Outcome("dae")
    evaluation = _counted(outcome, progress)

    n, nu = model.n, speeds(model)
    held = model.m - velocity_rows(model)   # the position constraints' rows
    e = len(np.asarray(s0, dtype=float))
    lo = n + nu + e  # the multipliers follow the states
    times = np.asarray(times, dtype=float)
    time, q, u, s = t0, np.asarray(q0, dtype=float), np.asarray(u0, dtype=float), \
        np.asarray(s0, dtype=float)
    out_t: list[np.ndarray] = []
    out_y: list[np.ndarray] = []
    while True:
        rows = ordered_rows(velocity_constraints(model, time, q)[0], held)
        rows_q = rows[rows < held]
        k, kq = len(rows), len(rows_q)

        # IDA calls these only within this stretch, while rows, rows_q, k and kq are its own
        def residual(tt, y, yp, res):
            evaluation(tt, y)
            q, u, s, lam, mu = y[:n], y[n:n + nu], y[n + nu:lo], y[lo:lo + k], y[lo + k:]
            q = normalize(model, q)
            sdot, w = extra(tt, q, u, s)
            snap = model.evaluate(tt, q, u, w=w)
            A = snap.phi_q[rows]
            res[:n] = yp[:n] - rates(model, q, u + snap.phi_q[rows_q].T @ mu)
            res[n:n + nu] = snap.M @ yp[n:n + nu] - snap.Q - A.T @ lam
            res[n + nu:lo] = yp[n + nu:lo] - sdot
            res[lo:lo + kq] = snap.phi[rows_q]
            res[lo + kq:] = A @ u + snap.phi_t[rows]

        options = {}
        if k < model.m:   # redundant rows: which are independent changes with the pose
            def dependence(tt, y, yp, events):
                A = velocity_constraints(model, tt, normalize(model, y[:n]))[0]
                events[0] = row_conditioning(A, rows) - NEAR_SINGULAR

            dependence.terminal, dependence.direction = [True], [-1]
            options = {"eventsfn": dependence, "num_events": 1}

        sdot0, w0 = extra(time, q, u, s)
        a0, lam0 = accelerations(model.evaluate(time, q, u, w=w0), rows)
        y0 = np.concatenate([q, u, s, lam0[rows], np.zeros(kq)])
        yp0 = np.concatenate([rates(model, q, u), a0, sdot0, np.zeros(k + kq)])
        tolerances = np.concatenate([np.full(lo, atol), np.full(k + kq, 1e12)])
        # BDF of order 5 is erratic on this index-2 form: on a spatial four-bar its energy
        # drift jumped 50-fold between neighbouring tolerances and with roundoff-level
        # changes in the residual; up to order 4 the drift falls steadily with rtol
        solver = IDA(residual, algebraic_idx=list(range(lo, lo + k + kq)) or None, rtol=rtol,
                     atol=tolerances, max_num_steps=100_000, max_order=4, **options)
        ts, ys, stopped = solve_ida(
            solver, np.unique(np.concatenate([[time], times[times > time]])), y0, yp0, outcome)
        reached = max((float(x[-1]) for x in out_t if len(x)), default=-np.inf)
        keep = np.isin(ts, times) & (ts > reached)
        out_t.append(ts[keep])
        out_y.append(ys[keep, :lo])
        if stopped is None or outcome.error is not None:
            break
        time, y = stopped[0], stopped[1]
        part = Partition(model, time, normalize(model, y[:n]))
        q, u = part.project(time, y[:n], y[n:n + nu][part.ind])
        s = y[n + nu:lo]
    ts = np.concatenate(out_t)
    ys = np.concatenate(out_y).reshape(len(ts), lo)
    qs = np.array([normalize(model, q) for q in ys[:, :n]]).reshape(-1, n)
    return Motion(ts, qs.T, ys[:, n:n + nu].T, ys[:, n + nu:lo].T, outcome)


def row_conditioning(A: np.ndarray, rows: np.ndarray) -> float:
    """How far the rows ``rows`` of ``A`` are from dependence: the smallest singular value
    of ``A[rows]`` relative to the largest of ``A`` (1 for a single row of the largest
    size, 0 for dependent rows).

    >>> A = np.array([[1.0, 0.0], [1.0, 1e-6], [0.0, 1.0]])
    >>> round(row_conditioning(A, np.array([0, 2])), 3), row_conditioning(A, np.array([0, 1])) < 1e-6
    (0.707, True)
    """
    if not len(rows):
        return 1.0
    whole = np.linalg.svd(A, compute_uv=False)[0]
    return float(np.linalg.svd(A[rows], compute_uv=False)[-1] / max(whole, 1e-300))


# -- statics and linear models ---------------------------------------------------------

def tangent_basis(model, time: float, q: np.ndarray) -> np.ndarray:
    """An orthonormal basis ``H2`` of the null space of ``Phi_u`` (``Phi_u H2 = 0``): the
    speeds the constraints allow (Thompson's reduced order)."""
    phi_u = velocity_constraints(model, time, q)[0]
    if not len(phi_u):
        return np.eye(speeds(model))
    return scipy.linalg.null_space(phi_u)


def fastest_rate(model, time: float, q: np.ndarray, iterations: int = 40) -> float:
    """An estimate of the largest ``|s|`` among the eigenvalues ``s`` of the motion
    linearized at ``q`` (at rest): ``1 / |s|`` is the fastest time scale an explicit
    integrator must follow.

    Power iteration on the state matrix of the independent coordinates ``z`` (``q =
    q + N H z``, ``u = H w``, ``H`` the :func:`tangent_basis`): ``z' = w``,
    ``w' = H^T u'``, applied without forming it, each product from two evaluations of the
    accelerations (central differences), by the recursive scheme where the model has one.
    The geometric mean of the growth over two iterations converges to the spectral radius
    (a pair ``+-i w`` alternates, and its mean is ``w``); within a small factor, which is
    all a bound on the periods in a span needs. It stops after at most ``iterations``, or
    sooner once the means of two successive pairs agree to 1e-6.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> bob = mech.body("bob", 1.0, 0.0, position=(0, -1))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 1))
    >>> eom = mech.formulate()
    >>> round(fastest_rate(eom.compile(), 0.0, eom.assemble()) ** 2, 6)   # g / l
    9.81
    """
    H = tangent_basis(model, time, q)
    d = H.shape[1]
    if d == 0:
        return 0.0
    rows = independent_rows(velocity_constraints(model, time, q)[0])
    step = 1e-6

    def acceleration(sign, z, w):
        return solve_accelerations(model, time, displace(model, q, sign * step * (H @ z)),
                                   sign * step * (H @ w), rows)[0]

    z, w = np.ones(d) / np.sqrt(2 * d), np.linspace(1.0, -1.0, d) / np.sqrt(2 * d)
    growth: list[float] = []
    for _ in range(iterations):
        dz, dw = w, H.T @ (acceleration(1, z, w) - acceleration(-1, z, w)) / (2 * step)
        size = np.sqrt(dz @ dz + dw @ dw)
        if not np.isfinite(size) or size == 0.0:
            break
        growth.append(size)
        z, w = dz / size, dw / size
        if len(growth) >= 8 and len(growth) % 2 == 0:
            # a pair +-i w alternates its growth: compare the means of the last two pairs
            now, before = growth[-1] * growth[-2], growth[-3] * growth[-4]
            if abs(now - before) <= 1e-6 * now:
                break
    pairs = len(growth) // 2 * 2
    return float(np.sqrt(growth[pairs - 1] * growth[pairs - 2])) if pairs else 0.0


def displace(model, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``q`` moved by the speed-space displacement ``v``: ``q + N(q) v``, normalized."""
    N = kinematic_map(model, q)
    return normalize(model, q + (v if N is None else N @ v))


def independent_basis(model, time: float, q: np.ndarray, split) -> np.ndarray:
    """``V`` with ``u = V w`` for the independent speeds ``w`` of a partition (continuous
    in ``q``, unlike an orthonormal null-space basis)."""
    rows, dep, ind = split
    V = np.zeros((speeds(model), len(ind)))
    V[ind] = np.eye(len(ind))
    if len(dep):
        A = velocity_constraints(model, time, q)[0][rows]
        V[dep] = -np.linalg.lstsq(A[:, dep], A[:, ind], rcond=None)[0]
    return V


def _statics(model, time: float, q: np.ndarray) -> tuple[np.ndarray, float]:
    """``(Q, V)`` at rest: the generalized forces ``Q(q, 0)`` and the potential energy
    ``V(q)`` of gravity and springs."""
    snap = model.evaluate(time, q, np.zeros(speeds(model)))
    return snap.Q, float(model.potential(q, snap.kin))


def _decrease(g: np.ndarray, B: np.ndarray, p: np.ndarray) -> float:
    """The decrease ``-(g.p + p.B.p / 2)`` that the quadratic model predicts for step ``p``."""
    return float(-(g @ p + 0.5 * p @ B @ p))


def _cauchy(g: np.ndarray, B: np.ndarray, radius: float) -> np.ndarray:
    """The Cauchy point: the model's minimiser along ``-g`` within ``radius``; a step
    that achieves a fixed fraction of its decrease keeps a trust-region method globally
    convergent (Nocedal and Wright, Theorem 4.5).

    >>> _cauchy(np.array([2.0, 0.0]), np.eye(2), 10.0).tolist()
    [-2.0, -0.0]
    """
    size = np.linalg.norm(g)
    if size == 0.0:
        return np.zeros_like(g)
    curvature = g @ B @ g
    tau = 1.0 if curvature <= 0 else min(size**3 / (radius * curvature), 1.0)
    return -tau * radius * g / size


def _trust_region_step(g: np.ndarray, B: np.ndarray, radius: float) -> np.ndarray:
    """The step ``p`` that minimises the model ``g.p + p.B.p / 2`` subject to
    ``|p| <= radius``, ``B`` symmetric and possibly indefinite.

    Moré and Sorensen's characterisation: ``(B + s I) p = -g`` with ``s >= 0``,
    ``B + s I`` positive semi-definite and ``s (radius - |p|) = 0``, solved through the
    eigenvalues of ``B`` (there are only as many as independent coordinates).

    Curvatures below ``1e-9`` of the largest count as zero. When the model is convex the
    step is the minimum-norm Newton step, with nothing along such flat directions: a
    motion the energy does not see (a hanging chain turning about the vertical), whose
    share of the gradient is roundoff, is left alone rather than followed to the
    boundary. Only when the gradient has a real share there (over ``1e-3`` of it) or the
    Newton step is too long is the step taken on the boundary.

    Parameters
    ----------
    g : array (d,)
        Gradient of the model.
    B : array (d, d)
        Symmetric Hessian of the model.
    radius : float
        Trust radius, > 0.

    Returns
    -------
    array (d,)
        The step.

    >>> _trust_region_step(np.array([-2.0, 0.0]), np.diag([1.0, 0.0]), 5.0).tolist()
    [2.0, 0.0]
    >>> np.round(_trust_region_step(np.array([-2.0, 0.0]), np.diag([1.0, 0.0]), 0.5), 12).tolist()
    [0.5, 0.0]
    >>> np.abs(np.round(_trust_region_step(np.zeros(2), np.diag([1.0, -1.0]), 0.5), 12)).tolist()
    [0.0, 0.5]
    """
    lam, vec = np.linalg.eigh(B)
    a = vec.T @ g
    tiny = 1e-9 * max(np.max(np.abs(lam), initial=0.0), 1e-300)
    size = np.linalg.norm(a)
    if lam[0] >= -tiny:
        curved = lam > tiny
        c = np.zeros_like(a)
        c[curved] = -a[curved] / lam[curved]
        if np.linalg.norm(c) <= radius and np.linalg.norm(a[~curved]) <= 1e-3 * size:
            return vec @ c
    low = max(0.0, -lam[0])

    def step(s):
        return -a / (lam + s)

    edge = low + 1e-12 * (1.0 + low + size / radius)
    if np.linalg.norm(step(edge)) <= radius:
        # the hard case: the boundary is out of reach of (B + s I) p = -g for s > low;
        # the rest of the way goes along the lowest curvature, whichever way is lower
        c = step(edge)
        i = 0
        room = np.sqrt(max(radius**2 - c @ c + c[i] ** 2, 0.0))
        best: tuple[float, np.ndarray] | None = None
        for tip in (room, -room):
            trial = c.copy()
            trial[i] = tip
            value = a @ trial + 0.5 * trial @ (lam * trial)
            if best is None or value < best[0]:
                best = (value, trial)
        assert best is not None
        return vec @ best[1]
    high = low + size / radius + tiny
    from scipy.optimize import brentq  # slow to import: here

    s = brentq(lambda s: np.linalg.norm(step(s)) - radius, edge, high,
                              xtol=1e-15 * (1.0 + high), maxiter=200)
    return vec @ step(s)


def equilibrium(model, q: np.ndarray, time: float = 0.0, iterations: int = 100):
    """Static equilibrium near the assembled ``q``: ``V^T Q(q, 0) = 0`` with ``u = V w`` the
    speeds a partition leaves independent, by trust-region Newton steps ``q + N V dw``,
    each followed by assembly (so loops stay closed); then the multipliers from
    ``Q + Phi_u^T lambda = 0``.

    A merit function judges each step, which makes the search converge from far off:

    * the potential energy of gravity and springs, while the forces derive from it (its
      slope along every independent coordinate, by central differences, is minus the
      reduced force). Every step then lowers the energy, so the search settles in a
      minimum, a stable equilibrium, unless it starts on a balanced pose (returned as it
      is, stable or not). The quadratic model's Hessian is the symmetric part of minus
      the force's Jacobian. Where the energy's predicted change is below its roundoff,
      a step is taken if it lowers the force's norm (the last Newton steps);
    * otherwise (a constant applied force or torque, a spring that stores no energy) the
      squared norm of the reduced force, with the Gauss-Newton model ``J^T J``
      (Levenberg-Marquardt as a trust region). This leads to an equilibrium, though not
      necessarily a stable one. Up to eight of Newton's own steps are tried first, and
      kept if they balance the forces: this merit would cut each of them short where a
      stiff direction curves (a beam whose nodes move across it stretches).

    The forces count as balanced within ``1e-11`` of their largest, or within their
    roundoff, the stiffness (the largest entry of ``J``) times the coordinates' last
    digits, where that is larger (a stiff beam's forces are not known better).

    The Jacobian ``J`` of the reduced force is a central difference. The trial step is
    Newton's for the force, ``J dw = -r`` in the least-squares sense (so directions the
    force does not see stay put), cut to the trust radius; when it promises less than
    half the model's decrease at the Cauchy point (no descent, e.g. near a maximum of
    the energy), the model's minimiser in the trust region (:func:`_trust_region_step`)
    replaces it. The radius shrinks when the merit falls short of the model's prediction
    or assembly fails, and widens when they agree.

    Parameters
    ----------
    model
        A compiled planar or spatial mechanism (the interface in this module's docstring).
    q : array
        Assembled starting coordinates.
    time : float
        Time at which drivers and forces are taken.
    iterations : int
        Most Newton steps (one Jacobian each); the trial steps rejected within one are
        bounded apart.

    Returns
    -------
    (q, lambda)
        Coordinates of the equilibrium and the constraint multipliers.

    Raises
    ------
    FormulationError
        When no equilibrium is found near the start: every trial step left the assembled
        mechanism, or the forces stay unbalanced after ``iterations`` steps.

    Examples
    --------
    A pendulum started horizontal comes to rest hanging (its pin angle -pi/2):

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> bob = mech.body("bob", mass=1.0, inertia=0.1, position=(1, 0))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    >>> eom = mech.formulate("joint")
    >>> q, lam = equilibrium(eom.compile(), eom.assemble())
    >>> round(float(q[0]), 9)
    -1.570796327
    """
    h = 1e-5   # central differences: truncation ~h^2, assembly's 1e-12 tolerance ~1e-12/h
    q = np.array(q, dtype=float)

    def reduced(q0, split, w):
        V = independent_basis(model, time, q0, split)
        q1 = assemble(model, displace(model, q0, V @ w), time)
        Q1, E1 = _statics(model, time, q1)
        return q1, independent_basis(model, time, q1, split).T @ Q1, E1

    def jacobian(q, split):
        ends = [(reduced(q, split, h * e), reduced(q, split, -h * e))
                for e in np.eye(len(split[2]))]
        return ends, np.column_stack([(p[1] - m[1]) / (2 * h) for p, m in ends])

    def roundoff(J, q):   # the forces' last digits: stiffness times the coordinates'
        return 64 * np.finfo(float).eps * np.max(np.abs(J), initial=0.0) \
            * max(1.0, np.max(np.abs(q), initial=0.0))

    def balance(q, Q):   # (split, reduced force, force scale, whether it is balanced)
        split = _split(velocity_constraints(model, time, q)[0])
        r = independent_basis(model, time, q, split).T @ Q
        scale = max(1.0, np.max(np.abs(Q), initial=0.0))
        return split, r, scale, np.max(np.abs(r), initial=0.0) < max(1e-11 * scale, noise)

    Q, energy = _statics(model, time, q)
    conservative = bool(np.isfinite(energy))
    noise = 0.0
    steps = 0
    # Newton's own steps first where the forces do not derive from the energy. Where a
    # stiff direction curves (a beam's nodes moved across it stretch it), the squared
    # force judges Newton's step by that curvature alone and shrinks it a hundredfold,
    # though the next step undoes it. Unless a few steps balance, the search goes back
    plain, start = 8, None
    radius = 0.5
    while steps < iterations:
        split, r, scale, balanced = balance(q, Q)
        if balanced:
            break
        if start is not None and not plain:   # Newton's own steps did not balance
            (q, Q, energy, steps), start = start, None
            continue
        ends, J = jacobian(q, split)
        noise = roundoff(J, q)
        if conservative:
            slope = np.array([(p[2] - m[2]) / (2 * h) for p, m in ends])
            # a force that does not derive from the energy is missing from its slope; the
            # allowance covers roundoff of the energy and assembly's tolerance
            conservative = bool(np.max(np.abs(slope + r)) <= 1e-6 * scale
                                + 1e-13 * abs(energy) / h)
        if not conservative and plain:
            plain -= 1
            start = start or (q, Q, energy, steps)
            try:
                q = reduced(q, split, -np.linalg.lstsq(J, r, rcond=1e-9)[0])[0]
            except (FormulationError, np.linalg.LinAlgError):
                plain = 0
            else:
                Q, energy = _statics(model, time, q)
                steps += 1
            continue
        if conservative:
            g, B = -r, -(J + J.T) / 2
            floor = 1e-10 * (abs(energy) + scale)   # the energy's change is lost below this
        else:
            g, B = J.T @ r, J.T @ J
            floor = 0.0
        # Newton's step for the force itself, minimum norm (a turn the force does not see,
        # such as a hanging chain's about the vertical, stays put). The model of the
        # energy only vets it: in these coordinates the model couples such a turn to every
        # tilt by terms as large as the force, and its minimiser follows that coupling
        # with turns of a radian per step that leave the rest to converge only linearly
        newton = -np.linalg.lstsq(J, r, rcond=1e-9)[0]
        moved = assembled = False
        for _ in range(60):    # trial steps within a shrinking radius
            p = newton * min(1.0, radius / max(float(np.linalg.norm(newton)), 1e-300))
            if _decrease(g, B, p) < 0.5 * _decrease(g, B, _cauchy(g, B, radius)):
                # not a good enough descent for the merit: the model's own minimiser
                p = _trust_region_step(g, B, radius)
            length = float(np.linalg.norm(p))
            predicted = _decrease(g, B, p)
            try:
                q_new, r_new, energy_new = reduced(q, split, p)
            except (FormulationError, np.linalg.LinAlgError):
                radius = 0.25 * length
                if radius < 1e-14:
                    break
                continue
            assembled = True
            if predicted <= floor:
                ratio = 1.0 if np.linalg.norm(r_new) < np.linalg.norm(r) else -1.0
            elif conservative:
                ratio = (energy - energy_new) / predicted
            else:
                ratio = 0.5 * (r @ r - r_new @ r_new) / predicted
            if ratio < 0.25:
                radius = 0.25 * length
            elif ratio > 0.75 and length > 0.99 * radius:
                radius = min(2.0 * radius, 4.0)
            if ratio > 1e-4:
                moved = True
                break
            if radius < 1e-14:
                break
        if not moved:
            if not assembled:
                raise FormulationError("no static equilibrium found near the initial pose: "
                                       "the search left the assembled mechanism")
            break
        q = q_new
        Q, energy = _statics(model, time, q)
        steps += 1
    snap = model.evaluate(time, q, np.zeros(speeds(model)))
    rows = independent_rows(snap.phi_q)
    lam = np.zeros(len(snap.phi))
    if len(rows):
        lam[rows] = np.linalg.lstsq(snap.phi_q[rows].T, -snap.Q, rcond=None)[0]
    imbalance = np.max(np.abs(snap.Q + snap.phi_q.T @ lam), initial=0.0)
    if imbalance > max(1e-8 * max(1.0, np.max(np.abs(snap.Q), initial=0.0)), noise):
        raise FormulationError("no static equilibrium found near the initial pose: forces "
                               f"unbalanced by {imbalance:.3g} after {steps} steps")
    return q, lam


def linear_model(model, q: np.ndarray, lam: np.ndarray, time: float = 0.0, step: float = 1e-6,
                 u: np.ndarray | None = None, a: np.ndarray | None = None,
                 basis: np.ndarray | None = None):
    """``(M, C, K, H2)`` of the motion near ``(q, u)`` with multipliers ``lambda`` in
    independent coordinates ``z`` (``u = u* + H2 z'``): ``M = H2^T M H2``,
    ``C = -H2^T f_u H2``, ``K = -H2^T f_q N H2`` with ``f = Q + Phi_u^T lambda - M a*``
    (Thompson's reduced order, the operating point's acceleration ``a*`` retained). ``u``
    and ``a`` default to rest (a static equilibrium). ``H2`` is ``basis`` when given (any
    basis of the null space of ``Phi_u``, e.g. :func:`independent_basis`, whose ``z`` are
    independent coordinates themselves), else the orthonormal :func:`tangent_basis`."""
    nu = speeds(model)
    u0 = np.zeros(nu) if u is None else np.asarray(u, dtype=float)
    a0 = np.zeros(nu) if a is None else np.asarray(a, dtype=float)
    H = tangent_basis(model, time, q) if basis is None else np.asarray(basis, dtype=float)

    def force(qq, uu):
        snap = model.evaluate(time, qq, uu)
        return snap.Q + (snap.phi_q.T @ lam if len(lam) else 0.0) - snap.M @ a0

    d = H.shape[1]
    K, C = np.zeros((nu, d)), np.zeros((nu, d))
    for j in range(d):
        v = step * H[:, j]
        K[:, j] = -(force(displace(model, q, v), u0) - force(displace(model, q, -v), u0)) / (2 * step)
        C[:, j] = -(force(q, u0 + v) - force(q, u0 - v)) / (2 * step)
    M = model.evaluate(time, q, u0).M
    return H.T @ M @ H, H.T @ C, H.T @ K, H


def linear_state_model(model, q: np.ndarray, u: np.ndarray | None = None, time: float = 0.0,
                       step: float = 1e-6, columns: np.ndarray | None = None):
    """The first-order linear model of the motion near ``(q, u)`` in the coordinates of a
    :class:`Partition`: the state ``x = (q_i, u_i)``, the independent coordinates and the
    independent speeds, and ``x' = A x + B w``, ``q - q* = C x``. It serves mechanisms with
    velocity (nonholonomic) constraints, which leave fewer independent speeds than
    coordinates, so that the motion is not second order in one set of coordinates (a
    rolling disc: its place and heading on the ground, its lean and its spin are free, but
    only its lean rate, turning rate and rolling rate).

    ``A`` holds central differences (steps ``step (1 + |x_j|)``) of the partitioned
    right-hand side ``(N(q) u)_i, u'_i``, each state found from the constraints as the
    integrator finds it; ``C`` those of the coordinates; ``B`` the independent speeds'
    accelerations under unit generalized forces ``columns`` (speeds x inputs, default
    none). About a motion (``u`` not zero) the model is that of the frozen instant, which
    is the motion's linearization when the coordinates that change along it (the
    distance rolled, the angle spun) do not enter the equations.

    Returns
    -------
    (A, B, C, coordinates, speeds)
        The matrices and the indices of the independent coordinates and speeds.
    """
    n, nu = model.n, speeds(model)
    q = np.asarray(q, dtype=float)
    u = np.zeros(nu) if u is None else np.asarray(u, dtype=float)
    part = Partition(model, time, q)
    iq = np.setdiff1d(np.arange(n), part.dep_q)
    iu = part.ind
    d = len(iq)

    def state(x):
        qq = q.copy()
        qq[iq] = x[:d]
        return part.project(time, qq, x[d:])

    def rate(x):
        qf, uf = state(x)
        a = solve_accelerations(model, time, qf, uf, part.rows)[0]
        return np.concatenate([rates(model, qf, uf)[iq], a[iu]]), qf

    x0 = np.concatenate([q[iq], u[iu]])
    k = len(x0)
    A, C = np.zeros((k, k)), np.zeros((n, k))
    for j in range(k):
        h = step * (1.0 + abs(x0[j]))
        up, down = x0.copy(), x0.copy()
        up[j] += h
        down[j] -= h
        (fu, qu), (fd, qd) = rate(up), rate(down)
        A[:, j] = (fu - fd) / (2 * h)
        C[:, j] = (qu - qd) / (2 * h)
    columns = np.zeros((nu, 0)) if columns is None else np.asarray(columns, dtype=float)
    B = np.zeros((k, columns.shape[1]))
    if columns.shape[1]:
        snap = model.evaluate(time, q, u)
        rows = part.rows
        m = len(rows)
        kkt = np.zeros((nu + m, nu + m))
        kkt[:nu, :nu] = snap.M
        kkt[:nu, nu:] = -snap.phi_q[rows].T
        kkt[nu:, :nu] = snap.phi_q[rows]
        response = np.linalg.solve(kkt, np.vstack([columns, np.zeros((m, columns.shape[1]))]))
        B[d:] = response[:nu][iu]
    return A, B, C, iq, iu


def kinematics(model, times, q0: np.ndarray):
    """``(times, qs, us)`` of a mechanism whose drivers fix every degree of freedom, from
    the constraints alone: ``Phi = 0`` by assembly at each time, then ``Phi_u u = -Phi_t``."""
    qs, us = [], []
    q = q0.copy()
    for time in times:
        q = assemble(model, q, time)
        phi_u, phi_t = velocity_constraints(model, time, q)
        qs.append(q.copy())
        us.append(np.linalg.lstsq(phi_u, -phi_t, rcond=None)[0])
    return np.asarray(times, dtype=float), np.array(qs).T, np.array(us).T
