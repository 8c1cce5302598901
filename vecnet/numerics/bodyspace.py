"""Loops in linear time: the constrained equations of a mechanism solved in body space.

In joint coordinates the loop constraints ``Phi_u u' = c`` of a mechanism whose loops lie
deep in its tree (a ladder, a truss, a chain of loops) reach every joint between a loop
and the datum: ``Phi_u`` has O(K depth) entries and ``Phi_u M^-1 Phi_u^T`` is dense. In
body space they stay local. The unknowns are one spatial acceleration ``A_g`` per rigid
*group* — the nodes that zero-speed branches (arms, welds) join into one rigid body: all
of them share it — taken about the group's mass centre (world axes), and the equations

    M_g A_g = f_g + sum of the multipliers' wrenches on g,       G A = gamma,

with ``M_g`` the group's spatial inertia, ``f_g`` gravity, the velocity terms and the
force elements' wrenches. Every tree joint ``j`` (motion subspace ``S_j``, bias ``c_j``
from :func:`~vecnet.numerics.tree_kernels.walk`) gives the rows ``T_j^T (A_child - A_parent -
c_j) = 0``, ``T_j`` an orthonormal basis of the wrenches that do no work on ``S_j``; every
loop constraint row ``r`` the row ``Wh_r . A_head + Wt_r . A_tail = gamma_r`` (its two
wrenches per unit multiplier, :meth:`CompiledModel.body_constraints
<vecnet.numerics.mechanism.CompiledModel.body_constraints>`). Wrenches and motions are
moved between reference points as the rows need them. A row touches at most two groups,
so the Schur complement ``G M^-1 G^T`` couples only rows that share a group; ordered by
reverse Cuthill-McKee (once for each set of rows) it is banded, and its band Cholesky
costs O(rows bandwidth^2), refined once (forming the Schur complement costs digits its
conditioning takes; a refinement step with the same factor wins them back). The joints'
accelerations follow as ``u'_j = S_j^+ (A_child - A_parent - c_j)``; the multipliers of
the loop rows are those of ``M u' = Q + Phi_u^T lambda``.

A planar mechanism is computed as a spatial one in its plane: its body space keeps the
components (turn about z, x and y of the velocity) its motions have.

Coordinate partitioning (:class:`~vecnet.numerics.multibody.Partition`) takes its
projections here too (:class:`BodyPartition`): Newton's step on the dependent
coordinates and the dependent speeds solve the square system (:class:`BodyProjection`)

    [T_j^T (d_child - d_parent) = 0;  Wh . d_head + Wt . d_tail = -Phi;
     (S_j^+ (d_child - d_parent))_i = 0 for every independent speed i]

in body displacements ``d`` (velocities, for the speeds), banded as well, by a band LU;
the partition's nearness to singularity is estimated through the same factors.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import SimulationError
from . import tree_kernels as kernels
from .tree_kernels import (
    Tree,
    body_inertia_into,
    body_inertias,
    in_place,
    in_place_inline,
    inverse_spd,
    state,
)

__all__ = ["BodySpace", "Layout", "BodyProjection", "BodyPartition", "band_cholesky",
           "band_solve", "band_lu", "band_lu_solve", "norm_estimate", "compile_kernels"]


@in_place_inline
def _move_motion(x, a, b, out):
    """A motion vector (twist, spatial acceleration) about the point ``a`` taken about
    ``b``: ``(omega, v + omega x (b - a))``."""
    d0, d1, d2 = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    out[0], out[1], out[2] = x[0], x[1], x[2]
    out[3] = x[3] + x[1] * d2 - x[2] * d1
    out[4] = x[4] + x[2] * d0 - x[0] * d2
    out[5] = x[5] + x[0] * d1 - x[1] * d0


@in_place_inline
def _move_wrench(x, a, b, out):
    """A wrench about the point ``a`` taken about ``b``: ``(n + (a - b) x f, f)``."""
    d0, d1, d2 = a[0] - b[0], a[1] - b[1], a[2] - b[2]
    out[3], out[4], out[5] = x[3], x[4], x[5]
    out[0] = x[0] + d1 * x[5] - d2 * x[4]
    out[1] = x[1] + d2 * x[3] - d0 * x[5]
    out[2] = x[2] + d0 * x[4] - d1 * x[3]


@in_place
def _joint_frame(A, k, d, T, Sp, j, Q, v):
    """Of a motion subspace ``A`` (d x k): an orthonormal basis ``T[j]`` (d x (d - k)) of
    the wrenches that do no work on it and its pseudo-inverse ``Sp[j]`` (k x d), by
    Householder's QR (``A`` is overwritten; ``Q``, ``v`` scratch). False when its columns
    are (nearly) dependent."""
    big = 0.0
    for i in range(d):
        for x in range(d):
            Q[i, x] = 0.0
        Q[i, i] = 1.0
        for x in range(k):
            big = max(big, abs(A[i, x]))
    if big == 0.0:
        return False
    for i in range(k):
        norm = 0.0
        for x in range(i, d):
            norm += A[x, i] * A[x, i]
        norm = np.sqrt(norm)
        if norm <= 1e-12 * big:
            return False
        alpha = -norm if A[i, i] >= 0 else norm
        for x in range(i, d):
            v[x] = A[x, i]
        v[i] -= alpha
        beta = 0.0
        for x in range(i, d):
            beta += v[x] * v[x]
        for y in range(i, k):
            t = 0.0
            for x in range(i, d):
                t += v[x] * A[x, y]
            t *= 2.0 / beta
            for x in range(i, d):
                A[x, y] -= t * v[x]
        for y in range(d):
            t = 0.0
            for x in range(i, d):
                t += Q[y, x] * v[x]
            t *= 2.0 / beta
            for x in range(i, d):
                Q[y, x] -= t * v[x]
    for y in range(d):
        for x in range(k, d):
            T[j, y, x - k] = Q[y, x]
    # A = Q1 R: A^+ = R^-1 Q1^T by back substitution
    for col in range(d):
        for i in range(k - 1, -1, -1):
            t = Q[col, i]
            for x in range(i + 1, k):
                t -= A[i, x] * Sp[j, x, col]
            Sp[j, i, col] = t / A[i, i]
    return True


@njit(cache=True)
def _references(body_node, body_mass, r, node_group, n_groups):
    """Each group's reference point: the mass centre of its bodies (their first node's
    position where they have no mass). Spatial vectors of a group are taken about it,
    which keeps its inertia well scaled wherever it is."""
    ref = np.zeros((n_groups, 3))
    mass = np.zeros(n_groups)
    seen = np.zeros(n_groups, dtype=np.bool_)
    for k in range(len(body_node)):
        n = body_node[k]
        g = node_group[n]
        if g < 0:
            continue
        if not seen[g]:
            for x in range(3):
                ref[g, x] = r[n, x]
            seen[g] = True
        m = body_mass[k]
        if m > 0.0:
            if mass[g] == 0.0:
                for x in range(3):
                    ref[g, x] = 0.0
            for x in range(3):
                ref[g, x] += m * r[n, x]
            mass[g] += m
    for g in range(n_groups):
        if mass[g] > 0.0:
            for x in range(3):
                ref[g, x] /= mass[g]
    return ref


@njit(cache=True)
def _joints(S, c, comps, jbranch, jk, jchild, ref, T, Sp, cj):
    """Every joint's motion subspace and bias taken about its child group's reference
    point, ``T`` and ``S^+`` of it (:func:`_joint_frame`) and the bias ``cj``; False if a
    subspace is degenerate."""
    d = len(comps)
    origin = np.zeros(3)
    col = np.empty(6)
    moved = np.empty(6)
    A = np.empty((d, 6))
    Q = np.empty((d, d))
    v = np.empty(d)
    for j in range(len(jbranch)):
        b, k, p = jbranch[j], jk[j], ref[jchild[j]]
        for m in range(k):
            for x in range(6):
                col[x] = S[b, x, m]
            _move_motion(col, origin, p, moved)
            for x in range(d):
                A[x, m] = moved[comps[x]]
        if c.shape[0]:
            for x in range(6):
                col[x] = c[b, x]
            _move_motion(col, origin, p, moved)
            for x in range(d):
                cj[j, x] = moved[comps[x]]
        if not _joint_frame(A, k, d, T, Sp, j, Q, v):
            return False
    return True


@njit(cache=True, inline="always")
def _block_on(comps, w, a, b, G, i, s, full, moved):
    """``G[i, s]``: the ``d`` components of the wrench ``w`` (given by its components,
    about ``a``) taken about ``b``; ``full`` and ``moved`` are scratch 6-vectors (``full``
    zero off the components)."""
    d = len(comps)
    for x in range(d):
        full[comps[x]] = w[x]
    _move_wrench(full, a, b, moved)
    for x in range(d):
        G[i, s, x] = moved[comps[x]]


@njit(cache=True)
def _row_blocks(comps, jparent, jchild, ref, T, Sp, cj, row_ref, row_col, row_kind,
                row_group, W, gamma, G, gam):
    """Each row's blocks on its two groups (wrenches about their reference points) and its
    right-hand side: a tree row (kind 0) ``T`` on the child and ``-T`` on the parent with
    ``T . c``; a loop row (kind 1) its wrenches ``W[r]`` on its head and tail and
    ``gamma[r]`` (none with ``gamma`` empty); an independent speed's row (kind 2) its row
    of ``S^+`` as a tree row's ``T`` and zero."""
    d = len(comps)
    origin = np.zeros(3)
    w = np.empty(d)
    full = np.zeros(6)
    moved = np.empty(6)
    for i in range(len(row_ref)):
        at, kind = row_ref[i], row_kind[i]
        if kind == 1:
            for s in range(2):
                g = row_group[i, s]
                if g >= 0:
                    for x in range(d):
                        w[x] = W[at, s, comps[x]]
                    _block_on(comps, w, origin, ref[g], G, i, s, full, moved)
            gam[i] = gamma[at] if len(gamma) else 0.0
            continue
        t = 0.0
        for x in range(d):
            w[x] = T[at, x, row_col[i]] if kind == 0 else Sp[at, row_col[i], x]
            G[i, 0, x] = w[x]
            t += w[x] * cj[at, x] if kind == 0 else 0.0
        gam[i] = t
        p = jparent[at]
        if p >= 0:
            _block_on(comps, w, ref[jchild[at]], ref[p], G, i, 1, full, moved)
            for x in range(d):
                G[i, 1, x] = -G[i, 1, x]


@njit(cache=True)
def schur_system(comps, body_node, body_mass, body_J, R, r, w, v, gravity, wrenches,
                 node_group, n_groups, S, c, jbranch, jk, jparent, jchild, row_ref, row_col,
                 row_kind, row_group, pos, gptr, gitem, gside, kd, W, gamma):
    """The band (by columns, :func:`band_cholesky`) and right-hand side of the Schur
    complement ``G M^-1 G^T lambda = gamma - G M^-1 f`` in the rows' band order ``pos``,
    with what :func:`schur_accelerations` needs: the groups' reference points and free accelerations ``M^-1 f``, the rows' blocks ``G`` and
    ``M^-1 G^T``, their right-hand sides, the joints' ``S^+`` and biases. ``ok`` is False
    where a group's inertia is not positive definite or a joint's subspace degenerate."""
    d = len(comps)
    nrow = len(row_ref)
    nj = len(jbranch)
    ab = np.zeros((nrow, kd + 1))
    rhs = np.zeros(nrow)
    free = np.zeros((n_groups, d))
    Y = np.zeros((nrow, 2, d))
    G = np.zeros((nrow, 2, d))
    gam = np.zeros(nrow)
    T = np.zeros((nj, d, d))
    Sp = np.zeros((nj, d, d))
    cj = np.zeros((nj, d))
    ref = _references(body_node, body_mass, r, node_group, n_groups)
    M = np.zeros((n_groups, d, d))
    f = np.zeros((n_groups, d))
    I = np.empty((6, 6))
    x = np.empty(3)
    tmp = np.empty(6)
    moved = np.empty(6)
    for k in range(len(body_node)):
        n = body_node[k]
        g = node_group[n]
        if g < 0:
            continue
        for y in range(3):
            x[y] = r[n, y] - ref[g, y]
        # the inertia and the velocity bias wrench about the group's reference
        body_inertia_into(body_mass[k], body_J[k], R[n], x, w[n], v[n], I, tmp, True)
        for a in range(d):
            # gravity: I (0, g) is the body's weight as a wrench about the reference
            t = -tmp[comps[a]]
            for b in range(3):
                t += I[comps[a], 3 + b] * gravity[b]
            f[g, a] += t
            for b in range(d):
                M[g, a, b] += I[comps[a], comps[b]]
    origin = np.zeros(3)
    for n in range(len(node_group)):
        g = node_group[n]
        if g >= 0:
            _move_wrench(wrenches[n], origin, ref[g], moved)
            for a in range(d):
                f[g, a] += moved[comps[a]]
    Minv = np.empty((n_groups, d, d))
    for g in range(n_groups):
        # NaN throughout where the group's inertia is not positive definite
        inverse_spd(M[g], d, Minv[g])
        if not np.isfinite(Minv[g, 0, 0]):
            return False, ab, rhs, ref, free, Y, Sp, cj, G, gam
        for a in range(d):
            t = 0.0
            for b in range(d):
                t += Minv[g, a, b] * f[g, b]
            free[g, a] = t
    if not _joints(S, c, comps, jbranch, jk, jchild, ref, T, Sp, cj):
        return False, ab, rhs, ref, free, Y, Sp, cj, G, gam
    _row_blocks(comps, jparent, jchild, ref, T, Sp, cj, row_ref, row_col, row_kind,
                row_group, W, gamma, G, gam)
    for i in range(nrow):
        t = gam[i]
        for s in range(2):
            g = row_group[i, s]
            if g < 0:
                continue
            for a in range(d):
                y = 0.0
                for b in range(d):
                    y += Minv[g, a, b] * G[i, s, b]
                Y[i, s, a] = y
                t -= G[i, s, a] * free[g, a]
        rhs[pos[i]] = t
    for g in range(n_groups):
        for a in range(gptr[g], gptr[g + 1]):
            i, si = gitem[a], gside[a]
            pi = pos[i]
            for b in range(gptr[g], gptr[g + 1]):
                k, sk = gitem[b], gside[b]
                pk = pos[k]
                if pi > pk:
                    continue
                t = 0.0
                for y in range(d):
                    t += G[i, si, y] * Y[k, sk, y]
                ab[pk, kd + pi - pk] += t
    return True, ab, rhs, ref, free, Y, Sp, cj, G, gam


@in_place
def band_cholesky(B, kd):
    """``U^T U = S`` in place, for ``S`` symmetric positive definite in band storage by
    columns, ``B[j, kd + i - j] = S[i, j]`` for ``j - kd <= i <= j`` (LAPACK's upper band
    storage, transposed: each column's entries side by side); the diagonal receives the
    reciprocals ``1 / U[j, j]`` (multiplications, not divisions, in the loops). False
    unless positive definite. ``n kd^2 / 2`` multiply-adds."""
    n = B.shape[0]
    for j in range(n):
        start = max(0, j - kd)
        for i in range(start, j + 1):
            t = B[j, kd + i - j]
            for k in range(max(start, i - kd), i):
                t -= B[i, kd + k - i] * B[j, kd + k - j]
            if i < j:
                B[j, kd + i - j] = t * B[i, kd]
            elif t > 0.0:
                B[j, kd] = 1.0 / np.sqrt(t)
            else:
                return False
    return True


@njit(cache=True)
def band_solve(B, kd, b):
    """``S^-1 b`` from the factor of :func:`band_cholesky` (``b`` overwritten)."""
    n = B.shape[0]
    for j in range(n):
        t = b[j]
        for k in range(max(0, j - kd), j):
            t -= B[j, kd + k - j] * b[k]
        b[j] = t * B[j, kd]
    for j in range(n - 1, -1, -1):
        t = b[j]
        for i in range(j + 1, min(n, j + kd + 1)):
            t -= B[i, kd + j - i] * b[i]
        b[j] = t * B[j, kd]
    return b


@njit(cache=True)
def _group_accelerations(d, row_group, pos, free, Y, x):
    """``A = M^-1 (f + G^T lambda)`` of every group from the multipliers ``x`` (band
    order)."""
    A = free.copy()
    for i in range(len(pos)):
        lam = x[pos[i]]
        for s in range(2):
            g = row_group[i, s]
            if g >= 0:
                for y in range(d):
                    A[g, y] += lam * Y[i, s, y]
    return A


@njit(cache=True)
def _residual(d, row_group, pos, G, gam, A):
    """``gamma - G A`` (band order) of the groups' accelerations ``A``."""
    out = np.empty(len(pos))
    for i in range(len(pos)):
        t = gam[i]
        for s in range(2):
            g = row_group[i, s]
            if g >= 0:
                for y in range(d):
                    t -= G[i, s, y] * A[g, y]
        out[pos[i]] = t
    return out


@njit(cache=True)
def schur_accelerations(comps, body_node, body_mass, body_J, R, r, w, v, gravity, wrenches,
                        node_group, n_groups, S, c, jbranch, jk, jparent, jchild, juo,
                        row_ref, row_col, row_kind, row_group, pos, gptr, gitem, gside, kd,
                        W, gamma, nu):
    """``(ok, u', lambda)``: the multipliers of every row (row order) from the band
    Cholesky of :func:`schur_system`'s Schur complement, refined once (forming
    ``G M^-1 G^T`` loses the digits its conditioning costs; a step of iterative
    refinement with the same factor wins them back), the groups' accelerations
    ``A = M^-1 (f + G^T lambda)`` and the joints' ``u' = S^+ (A_child - A_parent - c)``.
    ``ok`` is False where the system is degenerate (:func:`schur_system`) or the Schur
    complement not positive definite (dependent rows)."""
    d = len(comps)
    ok, ab, rhs, ref, free, Y, Sp, cj, G, gam = schur_system(
        comps, body_node, body_mass, body_J, R, r, w, v, gravity, wrenches, node_group,
        n_groups, S, c, jbranch, jk, jparent, jchild, row_ref, row_col, row_kind, row_group,
        pos, gptr, gitem, gside, kd, W, gamma)
    lam = np.zeros(len(pos))
    if not ok or not band_cholesky(ab, kd):
        return False, np.zeros(nu), lam
    x = band_solve(ab, kd, rhs)
    A = _group_accelerations(d, row_group, pos, free, Y, x)
    x += band_solve(ab, kd, _residual(d, row_group, pos, G, gam, A))
    A = _group_accelerations(d, row_group, pos, free, Y, x)
    for i in range(len(pos)):
        lam[i] = x[pos[i]]
    return True, _relative(comps, jparent, jchild, jk, juo, ref, A, Sp, cj, nu), lam


@njit(cache=True)
def _relative(comps, jparent, jchild, jk, juo, ref, A, Sp, cj, nu):
    """``S_j^+ (A_child - A_parent - c_j)`` of every joint, about its child's reference
    point (``cj`` of zero rows: no bias)."""
    d = len(comps)
    out = np.zeros(nu)
    rel = np.empty(d)
    full = np.zeros(6)
    moved = np.empty(6)
    for j in range(len(jk)):
        C, P = jchild[j], jparent[j]
        for y in range(d):
            rel[y] = A[C, y] - (cj[j, y] if cj.shape[0] else 0.0)
        if P >= 0:
            for y in range(d):
                full[comps[y]] = A[P, y]
            _move_motion(full, ref[P], ref[C], moved)
            for y in range(d):
                rel[y] -= moved[comps[y]]
        for m in range(jk[j]):
            t = 0.0
            for y in range(d):
                t += Sp[j, m, y] * rel[y]
            out[juo[j] + m] = t
    return out


@in_place
def band_lu(B, kl, ku, piv):
    """LU with partial pivoting, in place, of a band matrix stored by columns:
    ``B[j, kl + ku + i - j] = A[i, j]`` for ``j - ku <= i <= j + kl``, with ``kl`` more
    entries above each column's band for the fill of the row interchanges (LAPACK's
    ``dgbtrf`` storage, transposed: each column's entries side by side; its algorithm,
    without the many small BLAS calls that cost more than the arithmetic at this size).
    ``piv[j]``: the row swapped with row ``j``. False where ``A`` is singular."""
    n = B.shape[0]
    kv = kl + ku
    ju = 0
    for j in range(n):
        km = min(kl, n - 1 - j)
        p, big = 0, abs(B[j, kv])
        for i in range(1, km + 1):
            if abs(B[j, kv + i]) > big:
                p, big = i, abs(B[j, kv + i])
        piv[j] = j + p
        if big == 0.0:
            return False
        ju = max(ju, min(j + ku + p, n - 1))
        if p:
            for c in range(j, ju + 1):
                t = B[c, kv + j - c]
                B[c, kv + j - c] = B[c, kv + j + p - c]
                B[c, kv + j + p - c] = t
        inverse = 1.0 / B[j, kv]
        for i in range(1, km + 1):
            B[j, kv + i] *= inverse
        for c in range(j + 1, ju + 1):
            f = B[c, kv + j - c]
            if f != 0.0:
                for i in range(1, km + 1):
                    B[c, kv + j + i - c] -= B[j, kv + i] * f
    return True


@njit(cache=True)
def band_lu_solve(B, kl, ku, piv, b, transposed=False):
    """``A^-1 b`` (``A^-T b`` if ``transposed``) from the factors of :func:`band_lu`
    (``b`` overwritten)."""
    n = B.shape[0]
    kv = kl + ku
    if not transposed:
        for j in range(n):
            p = piv[j]
            if p != j:
                b[j], b[p] = b[p], b[j]
            t = b[j]
            for i in range(1, min(kl, n - 1 - j) + 1):
                b[j + i] -= B[j, kv + i] * t
        for j in range(n - 1, -1, -1):
            b[j] /= B[j, kv]
            t = b[j]
            for r in range(max(0, j - kv), j):
                b[r] -= B[j, kv + r - j] * t
        return b
    for j in range(n):
        t = b[j]
        for r in range(max(0, j - kv), j):
            t -= B[j, kv + r - j] * b[r]
        b[j] = t / B[j, kv]
    for j in range(n - 1, -1, -1):
        t = b[j]
        for i in range(1, min(kl, n - 1 - j) + 1):
            t -= B[j, kv + i] * b[j + i]
        b[j] = t
        p = piv[j]
        if p != j:
            b[j], b[p] = b[p], b[j]
    return b


@njit(cache=True)
def square_factor(comps, body_node, body_mass, r, node_group, n_groups, S, jbranch, jk,
                  jparent, jchild, row_ref, row_col, row_kind, row_group, row_pos, col_of,
                  kl, ku, W):
    """The square system of a partition's projections — tree rows (kind 0), loop rows
    (kind 1) and the rows of the independent speeds (kind 2), each on its two groups
    (columns ``col_of[g] + x``), row ``i`` at ``row_pos[i]`` — factored by
    :func:`band_lu`: ``(ok, factors, pivots, references, S^+)``; ``ok`` False where a
    joint's subspace degenerates or the system is singular."""
    d = len(comps)
    n = len(row_ref)
    nj = len(jbranch)
    B = np.zeros((n, 2 * kl + ku + 1))
    piv = np.zeros(n, dtype=np.int64)
    T = np.zeros((nj, d, d))
    Sp = np.zeros((nj, d, d))
    cj = np.zeros((0, d))
    ref = _references(body_node, body_mass, r, node_group, n_groups)
    if not _joints(S, np.zeros((0, 6)), comps, jbranch, jk, jchild, ref, T, Sp, cj):
        return False, B, piv, ref, Sp
    G = np.zeros((n, 2, d))
    gam = np.zeros(n)
    _row_blocks(comps, jparent, jchild, ref, T, Sp, cj, row_ref, row_col, row_kind,
                row_group, W, np.zeros(0), G, gam)
    for i in range(n):
        p = row_pos[i]
        for s in range(2):
            g = row_group[i, s]
            if g < 0:
                continue
            for x in range(d):
                col = col_of[g] + x
                B[col, kl + ku + p - col] += G[i, s, x]
    return band_lu(B, kl, ku, piv), B, piv, ref, Sp


@njit(cache=True)
def square_solve(comps, jparent, jchild, jk, juo, B, kl, ku, piv, ref, Sp, b, gather, nu):
    """The joints' speeds (or displacements) ``S^+ (d_child - d_parent)`` of the solution of
    the square system (factors of :func:`square_factor`) with the right-hand side ``b``
    (row positions)."""
    d = len(comps)
    x = band_lu_solve(B, kl, ku, piv, b)
    A = np.empty((len(gather) // d, d))
    for k in range(len(gather)):
        A[k // d, k % d] = x[gather[k]]
    return _relative(comps, jparent, jchild, jk, juo, ref, A, Sp, np.zeros((0, d)), nu)


@njit(cache=True)
def _speeds_transposed(comps, jparent, jchild, jk, juo, ref, Sp, y, col_of, n):
    """The transpose of the joints' speeds ``S^+ (d_child - d_parent)`` (each about its
    child's reference point) applied to ``y`` (one entry per speed): for every joint the
    wrench ``S^+^T y_j`` on its child's columns and minus it, taken about the parent's
    reference point, on its parent's."""
    d = len(comps)
    out = np.zeros(n)
    w = np.empty(d)
    full = np.zeros(6)
    moved = np.empty(6)
    for j in range(len(jk)):
        C, P = jchild[j], jparent[j]
        for x in range(d):
            t = 0.0
            for m in range(jk[j]):
                t += Sp[j, m, x] * y[juo[j] + m]
            w[x] = t
            out[col_of[C] + x] += t
        if P >= 0:
            for x in range(d):
                full[comps[x]] = w[x]
            _move_wrench(full, ref[C], ref[P], moved)
            for x in range(d):
                out[col_of[P] + x] -= moved[comps[x]]
    return out


@njit(cache=True)
def constraint_rows_times(S, jbranch, jk, juo, jparent, jchild, n_groups, row_group, W, v):
    """``Phi_u v`` for the loop rows (``W``: their wrenches, ``row_group``: their head and
    tail groups): the groups' twists from the joint speeds ``v`` (about the world origin,
    ``S`` of the walk), then each row's wrenches on them."""
    V = np.zeros((n_groups, 6))
    for j in range(len(jbranch)):
        b, C, P = jbranch[j], jchild[j], jparent[j]
        for x in range(6):
            t = V[P, x] if P >= 0 else 0.0
            for m in range(jk[j]):
                t += S[b, x, m] * v[juo[j] + m]
            V[C, x] = t
    out = np.zeros(len(W))
    for r in range(len(W)):
        t = 0.0
        for s in range(2):
            g = row_group[r, s]
            if g >= 0:
                for x in range(6):
                    t += W[r, s, x] * V[g, x]
        out[r] = t
    return out


@njit(cache=True)
def constraint_rows_transposed(S, jbranch, jk, juo, jparent, jchild, n_groups, row_group, W,
                               y, nu):
    """``Phi_u^T y`` for the loop rows: the generalized forces of their wrenches times
    ``y``, summed leaf to root along the joints."""
    F = np.zeros((n_groups, 6))
    for r in range(len(W)):
        for s in range(2):
            g = row_group[r, s]
            if g >= 0:
                for x in range(6):
                    F[g, x] += y[r] * W[r, s, x]
    out = np.zeros(nu)
    for j in range(len(jbranch) - 1, -1, -1):
        b, C, P = jbranch[j], jchild[j], jparent[j]
        for m in range(jk[j]):
            t = 0.0
            for x in range(6):
                t += S[b, x, m] * F[C, x]
            out[juo[j] + m] = t
        if P >= 0:
            for x in range(6):
                F[P, x] += F[C, x]
    return out


def norm_estimate(times, transposed, n: int, iterations: int = 3) -> float:
    """An estimate of the largest singular value of a matrix with ``n`` columns known by its
    products ``times(x)`` and ``transposed(y)``: a few steps of the power method on
    ``X^T X`` from the same start (so that it varies smoothly with the matrix, as an
    event function must). A lower bound; near a singularity the singular value that
    matters stands apart and it converges quickly. The start turns by the golden angle
    from entry to entry: no symmetry of a mechanism makes it orthogonal to the singular
    vector (as a start of ones is, for a parallelogram's).

    >>> A = np.array([[3.0, 0.0], [0.0, 1.0]])
    >>> round(norm_estimate(lambda x: A @ x, lambda y: A.T @ y, 2), 4)   # 3 from below
    3.0
    """
    if n == 0:
        return 0.0
    x = np.cos(2.399963229728653 * np.arange(n) + 0.5)
    x /= np.linalg.norm(x)
    for _ in range(iterations):
        z = transposed(times(x))
        size = float(np.linalg.norm(z))
        if not size > 0.0:
            return 0.0
        x = z / size
    return float(np.linalg.norm(times(x)))


def _rows(space: BodySpace, rows, ind=()):
    """The rows of a body-space system: every tree joint's ``d - k`` rows (kind 0), the
    loop constraint rows ``rows`` (kind 1), the independent speeds ``ind`` (kind 2): each
    row's joint or constraint row, column, kind and two groups (child and parent, or head
    and tail)."""
    speed_joint = {}
    for j in range(len(space.jbranch)):
        for x in range(int(space.jk[j])):
            speed_joint[int(space.juo[j]) + x] = (j, x)
    out = []
    for j in range(len(space.jbranch)):
        out += [(j, x, 0, space.jchild[j], space.jparent[j])
                for x in range(space.d - int(space.jk[j]))]
    out += [(int(row), 0, 1, *space.row_groups[int(row)]) for row in rows]
    for speed in ind:
        j, x = speed_joint[int(speed)]
        out.append((j, x, 2, space.jchild[j], space.jparent[j]))
    table = np.array(out, dtype=np.int64).reshape(-1, 5)
    return table[:, 0].copy(), table[:, 1].copy(), table[:, 2].copy(), table[:, 3:].copy()


class Layout:
    """The Schur complement's rows for one set of loop constraint rows, and their band
    order: for each row its joint or constraint row (``row_ref``), column of ``T``
    (``row_col``), kind (``row_kind``: 0 tree, 1 loop) and groups (``row_group``); its
    position ``pos`` in the reverse Cuthill-McKee order of the graph of rows that share a
    group and the half-bandwidth ``kd`` of that order; each group's rows (``gptr``,
    ``gitem``, ``gside``: CSR)."""

    def __init__(self, space: BodySpace, rows: np.ndarray) -> None:
        self.row_ref, self.row_col, self.row_kind, self.row_group = _rows(space, rows)
        self.chord_at = int(np.sum(self.row_kind == 0))
        n = self.n = len(self.row_ref)
        items = sorted((int(g), i, s) for i in range(n)
                       for s, g in enumerate(self.row_group[i]) if g >= 0)
        counts = np.bincount(np.array([g for g, _, _ in items], dtype=np.int64),
                             minlength=space.n_groups)
        self.gptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.gitem = np.array([i for _, i, _ in items], dtype=np.int64)
        self.gside = np.array([s for _, _, s in items], dtype=np.int64)
        self.pos, self.kd = _band_order(n, self.gptr, self.gitem)


def _band_order(n: int, gptr: np.ndarray, gitem: np.ndarray) -> tuple[np.ndarray, int]:
    """The position of each of ``n`` rows in the reverse Cuthill-McKee order of the graph
    joining rows that share a group, and the half-bandwidth of that order."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    first, second = [np.arange(n)], [np.arange(n)]
    for g in range(len(gptr) - 1):
        members = gitem[gptr[g]:gptr[g + 1]]
        first.append(np.repeat(members, len(members)))
        second.append(np.tile(members, len(members)))
    a = np.concatenate(first).astype(np.int64)
    b = np.concatenate(second).astype(np.int64)
    graph = coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n)).tocsr()
    order = reverse_cuthill_mckee(graph, symmetric_mode=True)
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    kd = int(np.max(np.abs(pos[a] - pos[b]))) if n else 0
    return pos, kd


class BodySpace:
    """A mechanism's tree grouped into rigid bodies, as the body-space solves read it.

    Parameters
    ----------
    tree : Tree
        The compiled tree (:class:`~vecnet.numerics.tree_kernels.Tree`).
    row_nodes : array (m x 2)
        The head and tail node of every loop constraint row.
    comps : sequence of int
        The components of spatial vectors the mechanism moves in (all six in space; the
        turn about z and the in-plane velocity, 2, 3, 4, in the plane).

    ``supported`` tells whether the body-space path can answer (``reason``: why not):
    every group carries a body, and no joint has more speeds than the body space has
    components.
    """

    def __init__(self, tree: Tree, row_nodes: np.ndarray, comps) -> None:
        self.comps = np.asarray(comps, dtype=np.int64)
        self.d = d = len(self.comps)
        group = np.full(tree.n_nodes, -1, dtype=np.int64)
        jbranch: list[int] = []
        for b in range(len(tree.parent)):
            if tree.nk[b] == 0:
                group[tree.child[b]] = group[tree.parent[b]]
            else:
                group[tree.child[b]] = len(jbranch)
                jbranch.append(b)
        self.node_group = group
        self.n_groups = len(jbranch)
        self.jbranch = np.array(jbranch, dtype=np.int64)
        self.jparent = group[tree.parent[self.jbranch]]
        self.jchild = group[tree.child[self.jbranch]]
        self.jk = tree.nk[self.jbranch].astype(np.int64)
        self.juo = tree.uo[self.jbranch].astype(np.int64)
        self.row_groups = group[np.asarray(row_nodes, dtype=np.int64).reshape(-1, 2)]
        carried = np.zeros(self.n_groups, dtype=bool)
        body_groups = group[tree.body_node]
        carried[body_groups[body_groups >= 0]] = True
        self.reason = ("a joint moves out of the mechanism's plane" if np.any(self.jk > d)
                       else "a rigid body without mass or inertia" if not carried.all()
                       else "a constraint row between two points of the ground"
                       if np.any((self.row_groups < 0).all(axis=1)) else "")
        self.supported = not self.reason
        self._layouts: dict[bytes, Layout] = {}
        self._projections: dict[tuple[bytes, bytes], BodyProjection] = {}

    def check_inertias(self, tree: Tree, st) -> None:
        """Clear ``supported`` (with its ``reason``) where a group's inertia in the body
        space is singular at the walk's state ``st`` (a point mass on a body of its own:
        nothing resists its turn); whether it is does not depend on the pose."""
        if not self.supported:
            return
        I, _ = body_inertias(tree.body_node, tree.body_mass, tree.body_J, tree.n_nodes, st.R,
                         st.r, st.w, st.v, False)
        M = np.zeros((self.n_groups, self.d, self.d))
        inside = self.node_group >= 0
        np.add.at(M, self.node_group[inside],
                  I[inside][:, self.comps][:, :, self.comps])
        low = np.linalg.eigvalsh(M)
        if np.any(low[:, 0] <= 1e-12 * np.maximum(low[:, -1], 1e-300)):
            self.supported = False
            self.reason = "a rigid body without mass or inertia"

    def layout(self, rows: np.ndarray) -> Layout:
        """The :class:`Layout` of the loop rows ``rows`` (made once for each set)."""
        rows = np.asarray(rows, dtype=np.int64)
        key = rows.tobytes()
        out = self._layouts.get(key)
        if out is None:
            out = self._layouts[key] = Layout(self, rows)
        return out

    def accelerations(self, tree: Tree, st, wrenches: np.ndarray, W: np.ndarray,
                      gamma: np.ndarray, rows: np.ndarray, nu: int):
        """``(u', multipliers of rows)`` at the walk's state ``st`` under the nodes'
        ``wrenches`` with the loop rows' wrenches ``W`` and right-hand sides ``gamma``
        (:meth:`~vecnet.numerics.mechanism.CompiledModel.body_constraints`); ``None``
        where a group's inertia or a joint's subspace is degenerate, or the Schur
        complement is not positive definite (dependent loop rows)."""
        lay = self.layout(rows)
        ok, ud, lam = schur_accelerations(
            self.comps, tree.body_node, tree.body_mass, tree.body_J, st.R, st.r, st.w, st.v,
            tree.gravity, wrenches, self.node_group, self.n_groups, st.S, st.c, self.jbranch,
            self.jk, self.jparent, self.jchild, self.juo, lay.row_ref, lay.row_col,
            lay.row_kind, lay.row_group, lay.pos, lay.gptr, lay.gitem, lay.gside, lay.kd, W,
            gamma, nu)
        return (ud, lam[lay.chord_at:]) if ok else None

    def projection(self, rows: np.ndarray, ind: np.ndarray) -> BodyProjection:
        """The :class:`BodyProjection` of a partition (loop rows ``rows``, independent
        speeds ``ind``), made once for each."""
        key = (np.asarray(rows, dtype=np.int64).tobytes(),
               np.asarray(ind, dtype=np.int64).tobytes())
        out = self._projections.get(key)
        if out is None:
            out = self._projections[key] = BodyProjection(self, rows, ind)
        return out


class BodyProjection:
    """The square body-space system of a partition (see the module docstring): its rows
    (:func:`_rows`) and their order for a narrow band (:func:`_square_order`)."""

    def __init__(self, space: BodySpace, rows: np.ndarray, ind: np.ndarray) -> None:
        self.space = space
        self.rows = np.asarray(rows, dtype=np.int64)
        self.ind = np.asarray(ind, dtype=np.int64)
        self.row_ref, self.row_col, self.row_kind, self.row_group = \
            _rows(space, self.rows, self.ind)
        self.n = len(self.row_ref)
        if self.n != space.d * space.n_groups:
            raise ValueError("the partition's rows and independent speeds do not make a "
                             "square system")
        self.col_of, self.row_pos, self.kl, self.ku = _square_order(space, self.row_group)
        self.chord_pos = self.row_pos[self.row_kind == 1]
        self.ind_pos = self.row_pos[self.row_kind == 2]
        self.gather = (self.col_of[:, None] + np.arange(space.d)).ravel()

    def factor(self, tree: Tree, st, W: np.ndarray):
        """The band LU of the square system at the walk's state ``st`` with the loop rows'
        wrenches ``W`` (:func:`square_factor`): ``(factors, pivots, references, S^+)``, or
        ``None`` where it is singular."""
        space = self.space
        ok, B, piv, ref, Sp = square_factor(
            space.comps, tree.body_node, tree.body_mass, st.r, space.node_group,
            space.n_groups, st.S, space.jbranch, space.jk, space.jparent, space.jchild,
            self.row_ref, self.row_col, self.row_kind, self.row_group, self.row_pos,
            self.col_of, self.kl, self.ku, W)
        return (B, piv, ref, Sp) if ok else None

    def solve(self, factors, chord_rhs: np.ndarray, ind_rhs: np.ndarray,
              nu: int) -> np.ndarray:
        """The joint speeds (or displacements) ``S^+ (d_child - d_parent)`` of the body-space
        solution with the loop rows' right-hand side ``chord_rhs`` and the independent
        speeds' ``ind_rhs`` (tree rows zero)."""
        B, piv, ref, Sp = factors
        b = np.zeros(self.n)
        b[self.chord_pos] = chord_rhs
        b[self.ind_pos] = ind_rhs
        space = self.space
        return square_solve(space.comps, space.jparent, space.jchild, space.jk, space.juo, B,
                            self.kl, self.ku, piv, ref, Sp, b, self.gather, nu)

    def solve_transposed(self, factors, speeds: np.ndarray) -> np.ndarray:
        """The loop rows' part of the solution of the transposed system whose right-hand
        side is the transpose of the speeds map applied to ``speeds`` (one entry per speed):
        with :meth:`solve`, the products with ``X`` and ``X^T`` of the map ``X`` from the
        loop rows' right-hand side to the speeds."""
        B, piv, ref, Sp = factors
        space = self.space
        c = _speeds_transposed(space.comps, space.jparent, space.jchild, space.jk, space.juo,
                               ref, Sp, speeds, self.col_of, self.n)
        return band_lu_solve(B, self.kl, self.ku, piv, c, True)[self.chord_pos]


class BodyPartition:
    """Coordinate partitioning's projections in body space, for a model whose coordinate
    rates are its speeds (``q' = u``): the dependent coordinates by Newton's method and
    the dependent speeds, each step a band LU of the square system of
    :class:`BodyProjection` (the same steps as in joint space, in other unknowns); and
    :meth:`conditioning`, the partition's nearness to singularity, from estimates.

    Parameters
    ----------
    model
        A :class:`~vecnet.numerics.mechanism.CompiledModel` (its ``_tree``, ``nu``,
        ``_zero`` and ``body_constraints``).
    projection : BodyProjection
        The square system of the partition's rows and independent speeds.
    dep : array
        The dependent speeds (and coordinates).
    """

    def __init__(self, model, projection: BodyProjection, dep: np.ndarray) -> None:
        self.model = model
        self.projection = projection
        self.rows, self.ind = projection.rows, projection.ind
        self.dep = np.asarray(dep, dtype=np.int64)
        self._no_speeds = np.zeros(len(self.ind))
        #: the last projection: (coordinates given, coordinates found, factors there,
        #: the walk there, the rows' wrenches there)
        self._last: tuple | None = None

    def _at(self, time: float, q: np.ndarray):
        """The walk and the loop rows' constraints at ``q`` (no speeds)."""
        st = state(self.model.kernel_tree, q, self.model.zero_speeds)
        return st, self.model.body_constraints(time, q, self.model.zero_speeds, st,
                                               accelerations=False)

    def _factor(self, st, W):
        factors = self.projection.factor(self.model.kernel_tree, st, W)
        if factors is None:
            raise np.linalg.LinAlgError("the dependent coordinates' system is singular")
        return factors

    def project(self, time: float, q: np.ndarray, uw: np.ndarray):
        """Consistent ``(q, u)`` from the coordinates ``q`` near the constraint manifold and
        the independent speeds ``uw``, as
        :meth:`~vecnet.numerics.multibody.Partition.project`.

        Raises
        ------
        SimulationError
            When Newton's method does not close the loops.
        numpy.linalg.LinAlgError
            When the dependent coordinates' system is singular.
        """
        nu, rows, dep = self.model.nu, self.rows, self.dep
        given = np.array(q, dtype=float)
        q = given.copy()
        fresh = None
        for _ in range(25):
            st, (phi, phi_t, _, W) = self._at(time, q)
            res = phi[rows]
            if np.max(np.abs(res)) < 1e-12:
                fresh = st, phi_t, W
                break
            step = self.projection.solve(self._factor(st, W), res, self._no_speeds, nu)[dep]
            q[dep] -= step
            if np.max(np.abs(step)) < 1e-14 * (1.0 + np.max(np.abs(q))):   # at roundoff
                break
        else:
            raise SimulationError(f"at t = {time:.6g} the loops cannot be closed: the "
                                  "mechanism left its assembly (a singular configuration?)")
        if fresh is None:
            st, (_, phi_t, _, W) = self._at(time, q)
        else:
            st, phi_t, W = fresh
        factors = self._factor(st, W)
        u = self.projection.solve(factors, -phi_t[rows], uw, nu)
        u[self.ind] = uw
        self._last = (given, q.copy(), factors, st, W)
        return q, u

    def conditioning(self, time: float, q: np.ndarray) -> float:
        """An estimate of the dense partition's measure, the smallest singular value of the
        dependent block ``A_dep`` of ``Phi_u`` relative to the largest of ``Phi_u``: the
        largest singular values of ``A_dep^-1`` (by the band LU) and of ``Phi_u`` (by
        the walk's motion subspaces) from a few products each (:func:`norm_estimate`). At
        the coordinates of the last projection (given or found) its factors serve."""
        last = self._last
        if last is not None and (np.array_equal(q, last[0]) or np.array_equal(q, last[1])):
            factors, st, W = last[2:]
        else:
            st, (_, _, _, W) = self._at(time, np.asarray(q, dtype=float))
            factors = self.projection.factor(self.model.kernel_tree, st, W)
            if factors is None:
                return 0.0
        proj, space, nu = self.projection, self.projection.space, self.model.nu
        m = len(self.rows)
        rows_W = np.ascontiguousarray(W[self.rows])
        groups = space.row_groups[self.rows]
        speeds = np.zeros(nu)

        def inverse(v):
            return proj.solve(factors, v, self._no_speeds, nu)[self.dep]

        def inverse_transposed(v):
            speeds[self.dep] = v
            return proj.solve_transposed(factors, speeds)

        def rows_times(v):
            return constraint_rows_times(st.S, space.jbranch, space.jk, space.juo,
                                         space.jparent, space.jchild, space.n_groups, groups,
                                         rows_W, v)

        def rows_transposed(y):
            return constraint_rows_transposed(st.S, space.jbranch, space.jk, space.juo,
                                              space.jparent, space.jchild, space.n_groups,
                                              groups, rows_W, y, nu)

        try:
            size = norm_estimate(inverse, inverse_transposed, m)
        except np.linalg.LinAlgError:
            return 0.0
        scale = norm_estimate(rows_times, rows_transposed, nu)
        return float(min(1.0, 1.0 / max(size * scale, 1e-300)))


def _square_order(space: BodySpace, row_group: np.ndarray):
    """Columns ``col_of[g]`` (the first of group g's ``d``) and row positions of the square
    system for a narrow band, with its lower and upper bandwidths: the groups in reverse
    Cuthill-McKee order of the graph their rows make, the rows sorted by the first (or
    the last, or the middle) group they touch, whichever band is cheaper to factor."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    ng, d = space.n_groups, space.d
    pairs = row_group[(row_group >= 0).all(axis=1)]
    a = np.concatenate([pairs[:, 0], pairs[:, 1], np.arange(ng)])
    b = np.concatenate([pairs[:, 1], pairs[:, 0], np.arange(ng)])
    graph = coo_matrix((np.ones(len(a)), (a, b)), shape=(ng, ng)).tocsr()
    order = reverse_cuthill_mckee(graph, symmetric_mode=True)
    gpos = np.empty(ng, dtype=np.int64)
    gpos[order] = np.arange(ng)
    col_of = (d * gpos).astype(np.int64)
    valid = row_group >= 0
    at = gpos[np.where(valid, row_group, 0)]
    lo = np.where(valid, at, ng).min(axis=1)
    hi = np.where(valid, at, -1).max(axis=1)
    first, last = d * lo, d * hi + d - 1    # the first and last column each row touches
    best = None
    for key in (lo, hi, lo + hi):
        row_pos = np.empty(len(key), dtype=np.int64)
        row_pos[np.lexsort((np.arange(len(key)), key))] = np.arange(len(key))
        kl = int(max(0, np.max(row_pos - first)))
        ku = int(max(0, np.max(last - row_pos)))
        cost = kl * (kl + ku + 1)
        if best is None or cost < best[0]:
            best = (cost, row_pos, kl, ku)
    assert best is not None
    _, row_pos, kl, ku = best
    return col_of, row_pos, kl, ku


def compile_kernels() -> None:
    """Compile every kernel once (numba caches them on disk): those of the walk and the
    articulated-body recursion (:func:`vecnet.numerics.tree_kernels.compile_kernels`), then
    the body-space ones on the same pendulum with a point of its tip held to the ground.
    Installing runs this, so that no model pays the first compilation.

    >>> compile_kernels()
    """
    kernels.compile_kernels()
    tree, q, u = kernels.sample_tree()
    st = state(tree, q, u)
    W = np.zeros((3, 2, 6))
    kernels.primitive_rows(np.zeros(1, dtype=np.int64), np.array([0]), np.array([2]),
                             np.zeros((1, 3)), np.zeros((1, 3)), np.zeros(1, dtype=np.int64),
                             st.R, st.r, st.w, st.v, st.A0, False, np.zeros(3), np.zeros(3), W)
    space = BodySpace(tree, np.array([[2, 0]] * 3), range(6))   # the kernels' types do
    rows, free = np.arange(3), np.arange(3, 7)                   # not depend on the plane
    space.accelerations(tree, st, np.zeros((3, 6)), W, np.zeros(3), rows, 7)
    projection = space.projection(rows, free)
    factors = projection.factor(tree, st, W)
    if factors is not None:
        projection.solve(factors, np.zeros(3), np.zeros(4), 7)
        projection.solve_transposed(factors, np.zeros(7))
    band_lu_solve(np.ones((2, 1)), 0, 0, np.arange(2), np.ones(2), True)
    S = np.array([[1.0], [1.0]])
    band_cholesky(S, 0)
    band_solve(S, 0, np.ones(2))
    constraint_rows_times(st.S, np.array([0, 1]), np.array([6, 1]), np.array([0, 6]),
                          np.array([-1, 0]), np.array([0, 1]), 2, np.array([[1, -1]]),
                          W[:1].copy(), np.ones(7))
    constraint_rows_transposed(st.S, np.array([0, 1]), np.array([6, 1]), np.array([0, 6]),
                               np.array([-1, 0]), np.array([0, 1]), 2, np.array([[1, -1]]),
                               W[:1].copy(), np.ones(1), 7)
