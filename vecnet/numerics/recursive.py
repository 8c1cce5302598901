"""Compiled kernels of a mechanism's tree: the walk along the path matrix and the recursive
(articulated-body) forward dynamics.

A tree branch is described by numbers only: its kind (a table of joint motions below), its
parameters (axis, initial relative rotation, second axis, arm vector, pitch, in-plane
directions), where its coordinates and speeds sit in ``q`` and ``u``, and whether the walk
from the datum meets it along (``sign = 1``) or against (``-1``) its direction. The kernels
are written once for every mechanism and compiled by numba on first use (cached on disk),
so their cost does not grow with the model: a model is data, not code.

Conventions (those of :mod:`vecnet.elements.spatial`): a branch moves its head frame
relative to its tail frame by ``R_rel(q_b)``, the offset ``rho(q_b)`` (tail axes, or world
axes for a ``ground`` branch), the relative angular velocity ``W u_b`` (tail axes) and the
offset rate ``V u_b``; ``Wd`` and ``Vd`` are the rates of ``W`` and ``V`` times ``u_b`` at
constant ``u_b``.

The recursive scheme works with spatial vectors in world axes about the world origin
(Plücker coordinates): a twist ``(omega, v_O)``, a wrench ``(n_O, f)``. Every branch
contributes the motion subspace ``S`` (the twist of its child relative to its parent per
unit speed) and the bias ``c = S' u_b``; the articulated-body algorithm (Featherstone)
then runs three passes along the tree — forward for velocities, backward for the
articulated inertias and bias forces (the cutset equations of the tree, leaf to root),
forward for the accelerations — in time linear in the number of bodies. Gravity enters as
the acceleration ``-g`` of the datum.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

__all__ = ["Tree", "State", "state", "jacobians", "forward_dynamics", "inverse_mass",
           "mass", "ARM", "FREE", "REVOLUTE", "PRISMATIC", "CYLINDRICAL", "SCREW", "SPHERICAL",
           "UNIVERSAL", "PLANAR", "WELD", "LINE", "PLANE", "PARAMETERS",
           "walk", "node_jacobians", "articulated_accelerations", "mass_matrix",
           "inverse_mass_times"]

#: branch kinds (the joint motions this module knows)
ARM, FREE, REVOLUTE, PRISMATIC, CYLINDRICAL, SCREW, SPHERICAL, UNIVERSAL, PLANAR, WELD, \
    LINE, PLANE = range(12)

#: layout of a branch's parameter row: axis (3), R0 (9, row-major), axis2 (3), rho (3),
#: pitch (1), in-plane directions p (3) and s (3)
PARAMETERS = 25
_AXIS, _R0, _AXIS2, _RHO, _PITCH, _P, _S = 0, 3, 12, 15, 18, 19, 22


@njit(cache=True)
def _cross(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@njit(cache=True)
def _axis_rotation(axis, angle, out):
    """Rodrigues: ``cos I + sin S(a) + (1 - cos) a a^T``."""
    c, s = np.cos(angle), np.sin(angle)
    x, y, z = axis[0], axis[1], axis[2]
    t = 1.0 - c
    out[0, 0] = c + t * x * x
    out[0, 1] = t * x * y - s * z
    out[0, 2] = t * x * z + s * y
    out[1, 0] = t * x * y + s * z
    out[1, 1] = c + t * y * y
    out[1, 2] = t * y * z - s * x
    out[2, 0] = t * x * z - s * y
    out[2, 1] = t * y * z + s * x
    out[2, 2] = c + t * z * z


@njit(cache=True)
def _quaternion_matrix(q, at, out):
    """``A(p)`` of the quaternion at ``q[at:at + 4]`` (the formula of
    :func:`vecnet.rotations.quaternion_matrix`)."""
    w, x, y, z = q[at], q[at + 1], q[at + 2], q[at + 3]
    out[0, 0] = w * w + x * x - y * y - z * z
    out[0, 1] = 2 * (x * y - w * z)
    out[0, 2] = 2 * (x * z + w * y)
    out[1, 0] = 2 * (x * y + w * z)
    out[1, 1] = w * w - x * x + y * y - z * z
    out[1, 2] = 2 * (y * z - w * x)
    out[2, 0] = 2 * (x * z - w * y)
    out[2, 1] = 2 * (y * z + w * x)
    out[2, 2] = w * w - x * x - y * y + z * z


@njit(cache=True)
def _motion(kind, prm, q, qo, u, uo, Rrel, rho, W, V, Wd, Vd):
    """The relative motion of one branch in its coordinates (see the module docstring);
    ``W`` and ``V`` receive ``k`` columns."""
    axis = np.empty(3)
    f = np.empty(3)
    R0 = np.empty((3, 3))
    for i in range(3):
        axis[i] = prm[_AXIS + i]
        f[i] = prm[_AXIS2 + i]
        for j in range(3):
            R0[i, j] = prm[_R0 + 3 * i + j]
    for i in range(3):
        rho[i] = 0.0
        Wd[i] = 0.0
        Vd[i] = 0.0
        for j in range(6):
            W[i, j] = 0.0
            V[i, j] = 0.0
        for j in range(3):
            Rrel[i, j] = 1.0 if i == j else 0.0
    if kind == ARM:
        for i in range(3):
            rho[i] = prm[_RHO + i]
    elif kind == FREE:
        _quaternion_matrix(q, qo + 3, Rrel)
        for i in range(3):
            rho[i] = q[qo + i]
            V[i, i] = 1.0
            W[i, 3 + i] = 1.0
    elif kind == REVOLUTE or kind == SCREW or kind == CYLINDRICAL or kind == PLANAR:
        angle = q[qo + 2] if kind == PLANAR else q[qo]
        turn = np.empty((3, 3))
        _axis_rotation(axis, angle, turn)
        Rrel[:, :] = turn @ R0
        col = 2 if kind == PLANAR else 0
        for i in range(3):
            W[i, col] = axis[i]
        if kind == SCREW:
            pitch = prm[_PITCH]
            for i in range(3):
                rho[i] = axis[i] * pitch * q[qo]
                V[i, 0] = axis[i] * pitch
        elif kind == CYLINDRICAL:
            for i in range(3):
                rho[i] = axis[i] * q[qo + 1]
                V[i, 1] = axis[i]
        elif kind == PLANAR:
            for i in range(3):
                rho[i] = prm[_P + i] * q[qo] + prm[_S + i] * q[qo + 1]
                V[i, 0] = prm[_P + i]
                V[i, 1] = prm[_S + i]
    elif kind == PRISMATIC:
        Rrel[:, :] = R0
        for i in range(3):
            rho[i] = axis[i] * q[qo]
            V[i, 0] = axis[i]
    elif kind == SPHERICAL:
        _quaternion_matrix(q, qo, Rrel)
        for i in range(3):
            W[i, i] = 1.0
    elif kind == UNIVERSAL:
        first = np.empty((3, 3))
        second = np.empty((3, 3))
        _axis_rotation(axis, q[qo], first)
        middle = first @ R0
        _axis_rotation(f, q[qo + 1], second)
        Rrel[:, :] = middle @ second
        g = middle @ f
        for i in range(3):
            W[i, 0] = axis[i]
            W[i, 1] = g[i]
        # the second axis turns with the first: (a x g) angle1' angle2'
        ag = np.empty(3)
        _cross(axis, g, ag)
        for i in range(3):
            Wd[i] = ag[i] * u[uo] * u[uo + 1]
    elif kind == WELD:
        Rrel[:, :] = R0
    elif kind == LINE:
        _quaternion_matrix(q, qo + 1, Rrel)
        for i in range(3):
            rho[i] = axis[i] * q[qo]
            V[i, 0] = axis[i]
            W[i, 1 + i] = 1.0
    elif kind == PLANE:
        _quaternion_matrix(q, qo + 2, Rrel)
        for i in range(3):
            rho[i] = prm[_P + i] * q[qo] + prm[_S + i] * q[qo + 1]
            V[i, 0] = prm[_P + i]
            V[i, 1] = prm[_S + i]
            W[i, 2 + i] = 1.0


@njit(cache=True)
def walk(parent, child, sign, kind, ground, qo, uo, nk, prm, n_nodes, datum, q, u):
    """The forward pass: every node's rotation ``R`` (V x 3 x 3), position ``r``, angular
    velocity ``w`` and point velocity ``v`` (V x 3, world axes); every branch's motion
    subspace ``S`` (B x 6 x 6, its first ``k`` columns used) and bias ``c`` (B x 6) as
    spatial vectors about the world origin; and every node's spatial bias acceleration
    ``A0`` (V x 6: the acceleration with ``u' = 0`` and no gravity)."""
    nb = len(parent)
    R = np.zeros((n_nodes, 3, 3))
    r = np.zeros((n_nodes, 3))
    w = np.zeros((n_nodes, 3))
    v = np.zeros((n_nodes, 3))
    A0 = np.zeros((n_nodes, 6))
    S = np.zeros((nb, 6, 6))
    c = np.zeros((nb, 6))
    for i in range(3):
        R[datum, i, i] = 1.0
    Rrel = np.empty((3, 3))
    rho = np.empty(3)
    W = np.empty((3, 6))
    V = np.empty((3, 6))
    Wd = np.empty(3)
    Vd = np.empty(3)
    d = np.empty(3)
    wr = np.empty(3)
    vr = np.empty(3)
    tmp = np.empty(3)
    tmp2 = np.empty(3)
    dRW = np.empty(3)
    dVw = np.empty(3)
    for b in range(nb):
        p, i, s, k = parent[b], child[b], sign[b], nk[b]
        _motion(kind[b], prm[b], q, qo[b], u, uo[b], Rrel, rho, W, V, Wd, Vd)
        if s > 0:
            R[i] = R[p] @ Rrel
            Rt = R[p]
        else:
            R[i] = R[p] @ Rrel.T
            Rt = R[i]
        if ground[b]:
            d[:] = rho
        else:
            d[:] = Rt @ rho
        RW = Rt @ W
        Vw = V.copy() if ground[b] else Rt @ V
        for j in range(3):
            wr[j] = 0.0
            vr[j] = 0.0
            for m in range(k):
                wr[j] += RW[j, m] * u[uo[b] + m]
                vr[j] += Vw[j, m] * u[uo[b] + m]
        for j in range(3):
            r[i, j] = r[p, j] + s * d[j]
            w[i, j] = w[p, j] + s * wr[j]
        wt = w[p] if s > 0 else w[i]      # the tail frame's angular velocity
        if ground[b]:
            for j in range(3):
                v[i, j] = v[p, j] + s * vr[j]
        else:
            _cross(wt, d, tmp)
            for j in range(3):
                v[i, j] = v[p, j] + s * (tmp[j] + vr[j])
        # the element's head point: the child when walked along, else the parent
        rref = r[i] if s > 0 else r[p]
        vref = v[i] if s > 0 else v[p]
        for m in range(k):
            for j in range(3):
                tmp[j] = RW[j, m]
            _cross(rref, tmp, tmp2)
            for j in range(3):
                S[b, j, m] = s * RW[j, m]
                S[b, 3 + j, m] = s * (Vw[j, m] + tmp2[j])
        # c = S' u_b: the rates of R_t W u_b, of the offset rate and of r_ref x R_t W u_b
        _cross(wt, wr, dRW)
        RWd = Rt @ Wd
        for j in range(3):
            dRW[j] += RWd[j]
        if ground[b]:
            dVw[:] = Vd
        else:
            _cross(wt, vr, dVw)
            RVd = Rt @ Vd
            for j in range(3):
                dVw[j] += RVd[j]
        _cross(vref, wr, tmp)
        _cross(rref, dRW, tmp2)
        for j in range(3):
            c[b, j] = s * dRW[j]
            c[b, 3 + j] = s * (dVw[j] + tmp[j] + tmp2[j])
        for j in range(6):
            A0[i, j] = A0[p, j] + c[b, j]
    return R, r, w, v, S, c, A0


@njit(cache=True)
def node_jacobians(parent, child, sign, ground, uo, nk, n_nodes, datum, nu, nodes,
                   R, r, w, v, S, A0, branch_of):
    """For each node in ``nodes``: the angular and linear velocity Jacobians ``Jw, Jv``
    (k x 3 x nu, world axes; ``v`` of the node's point) and the convective accelerations
    ``gw, gv`` (k x 3: the accelerations with ``u' = 0``), summed along the node's path to
    the datum."""
    kn = len(nodes)
    Jw = np.zeros((kn, 3, nu))
    Jv = np.zeros((kn, 3, nu))
    gw = np.zeros((kn, 3))
    gv = np.zeros((kn, 3))
    tmp = np.empty(3)
    for a in range(kn):
        node = nodes[a]
        x = r[node]
        for j in range(3):
            gw[a, j] = A0[node, j]
        # the point's acceleration from the spatial one: a_O + alpha x r + omega x v
        _cross(A0[node, 0:3], x, tmp)
        for j in range(3):
            gv[a, j] = A0[node, 3 + j] + tmp[j]
        _cross(w[node], v[node], tmp)
        for j in range(3):
            gv[a, j] += tmp[j]
        here = node
        while here != datum:
            b = branch_of[here]
            for m in range(nk[b]):
                col = uo[b] + m
                for j in range(3):
                    Jw[a, j, col] += S[b, j, m]
                # v = v_O + omega x r = v_O - r x omega
                Jv[a, 0, col] += S[b, 3, m] - (x[1] * S[b, 2, m] - x[2] * S[b, 1, m])
                Jv[a, 1, col] += S[b, 4, m] - (x[2] * S[b, 0, m] - x[0] * S[b, 2, m])
                Jv[a, 2, col] += S[b, 5, m] - (x[0] * S[b, 1, m] - x[1] * S[b, 0, m])
            here = parent[b]
    return Jw, Jv, gw, gv


@njit(cache=True)
def _spatial_inertia(m, J, R, x, out):
    """The spatial inertia about the world origin of a body with mass ``m``, inertia ``J``
    (body axes, about its mass centre at ``x``) and rotation ``R``:
    ``[[R J R^T - m S(x)^2, m S(x)], [-m S(x), m I]]``."""
    Jw = R @ J @ R.T
    Sx = np.zeros((3, 3))
    Sx[0, 1], Sx[0, 2], Sx[1, 2] = -x[2], x[1], -x[0]
    Sx[1, 0], Sx[2, 0], Sx[2, 1] = x[2], -x[1], x[0]
    SS = Sx @ Sx
    for i in range(3):
        for j in range(3):
            out[i, j] = Jw[i, j] - m * SS[i, j]
            out[i, 3 + j] = m * Sx[i, j]
            out[3 + i, j] = -m * Sx[i, j]
            out[3 + i, 3 + j] = m if i == j else 0.0


@njit(cache=True)
def _force_cross(t, f, out):
    """``t x* f`` of a twist ``t = (omega, v)`` and a wrench ``f = (n, F)``:
    ``(omega x n + v x F, omega x F)``."""
    out[0] = t[1] * f[2] - t[2] * f[1] + t[4] * f[5] - t[5] * f[4]
    out[1] = t[2] * f[0] - t[0] * f[2] + t[5] * f[3] - t[3] * f[5]
    out[2] = t[0] * f[1] - t[1] * f[0] + t[3] * f[4] - t[4] * f[3]
    out[3] = t[1] * f[5] - t[2] * f[4]
    out[4] = t[2] * f[3] - t[0] * f[5]
    out[5] = t[0] * f[4] - t[1] * f[3]


@njit(cache=True)
def _inertias(body_node, body_mass, body_J, n_nodes, R, r, w, v, with_bias):
    """Each node's spatial inertia and velocity bias wrench ``t x* (I t)``."""
    I = np.zeros((n_nodes, 6, 6))
    bias = np.zeros((n_nodes, 6))
    twist = np.empty(6)
    tmp = np.empty(6)
    for k in range(len(body_node)):
        n = body_node[k]
        _spatial_inertia(body_mass[k], body_J[k], R[n], r[n], I[n])
        if with_bias:
            for j in range(3):
                twist[j] = w[n, j]
            # v_O = v - omega x r
            twist[3] = v[n, 0] - (w[n, 1] * r[n, 2] - w[n, 2] * r[n, 1])
            twist[4] = v[n, 1] - (w[n, 2] * r[n, 0] - w[n, 0] * r[n, 2])
            twist[5] = v[n, 2] - (w[n, 0] * r[n, 1] - w[n, 1] * r[n, 0])
            h = I[n] @ twist
            _force_cross(twist, h, tmp)
            for j in range(6):
                bias[n, j] = tmp[j]
    return I, bias


@njit(cache=True)
def _solve_small(A, b):
    """``A x = b`` for a small symmetric positive definite ``A`` (Cholesky)."""
    k = A.shape[0]
    L = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1):
            s = A[i, j]
            for m in range(j):
                s -= L[i, m] * L[j, m]
            if i == j:
                L[i, i] = np.sqrt(s) if s > 0 else np.nan
            else:
                L[i, j] = s / L[j, j]
    y = np.empty(k)
    for i in range(k):
        s = b[i]
        for m in range(i):
            s -= L[i, m] * y[m]
        y[i] = s / L[i, i]
    x = np.empty(k)
    for i in range(k - 1, -1, -1):
        s = y[i]
        for m in range(i + 1, k):
            s -= L[m, i] * x[m]
        x[i] = s / L[i, i]
    return x


@njit(cache=True)
def _articulate(parent, child, uo, nk, n_nodes, S, I):
    """The backward pass of the inertias: ``U = I^A S`` and ``D = S^T U`` of every branch,
    each child's articulated inertia folded into its parent's (``I^A`` is overwritten)."""
    nb = len(parent)
    U = np.zeros((nb, 6, 6))
    D = np.zeros((nb, 6, 6))
    for b in range(nb - 1, -1, -1):
        p, i, k = parent[b], child[b], nk[b]
        Ia = I[i]
        if k:
            Sb = np.ascontiguousarray(S[b, :, :k])
            Ub = Ia @ Sb
            Db = Sb.T @ Ub
            U[b, :, :k] = Ub
            D[b, :k, :k] = Db
            # I^a = I^A - U D^-1 U^T
            Y = np.empty((k, 6))
            for j in range(6):
                col = _solve_small(Db, Ub[j, :].copy())
                for m in range(k):
                    Y[m, j] = col[m]
            Ia = Ia - Ub @ Y
        I[parent[b]] += Ia
    return U, D


@njit(cache=True)
def _accelerate(parent, child, uo, nk, n_nodes, datum, S, c, I, U, D, bias, tau, a_datum, nu):
    """The backward pass of the bias forces and the forward pass of the accelerations, for
    articulated inertias ``I`` (after :func:`_articulate`, which leaves each node's own
    articulated inertia in ``I`` before folding) and generalized forces ``tau``."""
    nb = len(parent)
    pA = bias.copy()
    uu = np.zeros((nb, 6))
    for b in range(nb - 1, -1, -1):
        p, i, k = parent[b], child[b], nk[b]
        pa = pA[i].copy()
        Ic = I[i] @ c[b]
        for j in range(6):
            pa[j] += Ic[j]
        if k:
            for m in range(k):
                s = tau[uo[b] + m]
                for j in range(6):
                    s -= S[b, j, m] * pA[i, j]
                uu[b, m] = s
            x = _solve_small(D[b, :k, :k], uu[b, :k].copy())
            # p^a = p^A + I^a c + U D^-1 u, with I^a c = I^A c - U D^-1 U^T c
            Utc = np.ascontiguousarray(U[b, :, :k].T) @ c[b]
            y = _solve_small(D[b, :k, :k], Utc)
            for j in range(6):
                for m in range(k):
                    pa[j] += U[b, j, m] * (x[m] - y[m])
        for j in range(6):
            pA[p, j] += pa[j]
    a = np.zeros((n_nodes, 6))
    a[datum] = a_datum
    ud = np.zeros(nu)
    for b in range(nb):
        p, i, k = parent[b], child[b], nk[b]
        ap = a[p] + c[b]
        if k:
            rhs = uu[b, :k] - np.ascontiguousarray(U[b, :, :k].T) @ ap
            x = _solve_small(D[b, :k, :k], rhs)
            for m in range(k):
                ud[uo[b] + m] = x[m]
            ap = ap + np.ascontiguousarray(S[b, :, :k]) @ x
        a[i] = ap
    return ud


@njit(cache=True)
def articulated_accelerations(parent, child, uo, nk, n_nodes, datum, S, c, body_node,
                              body_mass, body_J, R, r, w, v, gravity, tau, nu):
    """``u'`` of the tree under generalized forces ``tau`` (gravity and the velocity terms
    included): the articulated-body algorithm on the outputs of :func:`walk`."""
    I, bias = _inertias(body_node, body_mass, body_J, n_nodes, R, r, w, v, True)
    # after the fold every node holds its articulated inertia: its children fold into it
    # before it folds into its parent (they come later in the walk)
    U, D = _articulate(parent, child, uo, nk, n_nodes, S, I)
    a_datum = np.zeros(6)
    for j in range(3):
        a_datum[3 + j] = -gravity[j]
    return _accelerate(parent, child, uo, nk, n_nodes, datum, S, c, I, U, D, bias, tau,
                       a_datum, nu)


@njit(cache=True)
def inverse_mass_times(parent, child, uo, nk, n_nodes, datum, S, body_node, body_mass,
                       body_J, R, r, w, v, forces, nu):
    """``M^-1 F`` for the columns of ``F`` (nu x m) by the articulated-body recursion with
    no velocity, bias or gravity: the inertias are articulated once for all columns."""
    I, bias = _inertias(body_node, body_mass, body_J, n_nodes, R, r, w, v, False)
    U, D = _articulate(parent, child, uo, nk, n_nodes, S, I)
    nb = len(parent)
    zero_c = np.zeros((nb, 6))
    out = np.zeros((nu, forces.shape[1]))
    for col in range(forces.shape[1]):
        out[:, col] = _accelerate(parent, child, uo, nk, n_nodes, datum, S, zero_c, I, U, D,
                                  bias, forces[:, col].copy(), np.zeros(6), nu)
    return out


@njit(cache=True)
def mass_matrix(parent, child, uo, nk, n_nodes, datum, S, body_node, body_mass, body_J, R, r,
                w, v, nu):
    """``M`` by the composite-rigid-body recursion: each branch's composite inertia ``I^c``
    (its subtree as one rigid body) gives ``M_ij = S_i^T I^c_i S_j`` for every branch ``j``
    on the path from branch ``i`` to the datum."""
    I, _ = _inertias(body_node, body_mass, body_J, n_nodes, R, r, w, v, False)
    nb = len(parent)
    for b in range(nb - 1, -1, -1):
        I[parent[b]] += I[child[b]]
    branch_of = np.full(n_nodes, -1)
    for b in range(nb):
        branch_of[child[b]] = b
    M = np.zeros((nu, nu))
    for b in range(nb):
        k = nk[b]
        if not k:
            continue
        F = I[child[b]] @ np.ascontiguousarray(S[b, :, :k])   # 6 x k
        j = b
        while j >= 0:
            kj = nk[j]
            if kj:
                block = np.ascontiguousarray(S[j, :, :kj].T) @ F   # kj x k
                for x in range(kj):
                    for y in range(k):
                        M[uo[j] + x, uo[b] + y] = block[x, y]
                        M[uo[b] + y, uo[j] + x] = block[x, y]
            j = branch_of[parent[j]]
    return M


class Tree(NamedTuple):
    """A mechanism's tree as numbers: per branch in walk order its parent and child node,
    ``sign`` (1 along the walk), kind, whether its offset is in world axes, the offsets
    of its coordinates and speeds and their count, its parameter row; the number of
    nodes, the datum's index, each node's incoming branch; per body its node, mass and
    inertia (body axes, about the mass centre); gravity."""

    parent: np.ndarray
    child: np.ndarray
    sign: np.ndarray
    kind: np.ndarray
    ground: np.ndarray
    qo: np.ndarray
    uo: np.ndarray
    nk: np.ndarray
    prm: np.ndarray
    n_nodes: int
    datum: int
    branch_of: np.ndarray
    body_node: np.ndarray
    body_mass: np.ndarray
    body_J: np.ndarray
    gravity: np.ndarray


class State(NamedTuple):
    """The outputs of the forward pass (:func:`walk`) at one ``(q, u)``."""

    R: np.ndarray
    r: np.ndarray
    w: np.ndarray
    v: np.ndarray
    S: np.ndarray
    c: np.ndarray
    A0: np.ndarray


def state(tree: Tree, q: np.ndarray, u: np.ndarray) -> State:
    """The forward pass of ``tree`` at coordinates ``q`` and speeds ``u``."""
    return State(*walk(tree.parent, tree.child, tree.sign, tree.kind, tree.ground, tree.qo,
                       tree.uo, tree.nk, tree.prm, tree.n_nodes, tree.datum,
                       np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(u, dtype=float)))


def jacobians(tree: Tree, st: State, nodes: np.ndarray, nu: int):
    """``(Jw, Jv, gw, gv)`` of ``nodes`` (:func:`node_jacobians`)."""
    return node_jacobians(tree.parent, tree.child, tree.sign, tree.ground, tree.uo, tree.nk,
                          tree.n_nodes, tree.datum, nu, nodes, st.R, st.r, st.w, st.v, st.S,
                          st.A0, tree.branch_of)


def forward_dynamics(tree: Tree, st: State, tau: np.ndarray, nu: int) -> np.ndarray:
    """``u'`` of the tree (no loops) under generalized forces ``tau``, gravity and the
    velocity terms, in time linear in the tree's size; NaN where a branch carries no
    inertia (a massless subtree)."""
    return articulated_accelerations(tree.parent, tree.child, tree.uo, tree.nk, tree.n_nodes,
                                     tree.datum, st.S, st.c, tree.body_node, tree.body_mass,
                                     tree.body_J, st.R, st.r, st.w, st.v, tree.gravity,
                                     np.ascontiguousarray(tau, dtype=float), nu)


def inverse_mass(tree: Tree, st: State, F: np.ndarray, nu: int) -> np.ndarray:
    """``M^-1 F`` (``F``: nu x m) by the recursion, without forming ``M``."""
    return inverse_mass_times(tree.parent, tree.child, tree.uo, tree.nk, tree.n_nodes,
                              tree.datum, st.S, tree.body_node, tree.body_mass, tree.body_J,
                              st.R, st.r, st.w, st.v, np.ascontiguousarray(F, dtype=float), nu)


def mass(tree: Tree, st: State, nu: int) -> np.ndarray:
    """The mass matrix ``M`` in the speeds (composite-rigid-body recursion)."""
    return mass_matrix(tree.parent, tree.child, tree.uo, tree.nk, tree.n_nodes, tree.datum,
                       st.S, tree.body_node, tree.body_mass, tree.body_J, st.R, st.r, st.w,
                       st.v, nu)
