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

import time
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.core import event

from ..core.bounds import add_compile_time
from ..elements.joints import (
    AFFINE,
    ARM,
    AXIAL,
    AXIS,
    AXIS2,
    CYLINDRICAL,
    FREE,
    FREE_BODY,
    LINE,
    LINE_BODY,
    PITCH,
    PLANAR,
    PLANE,
    PLANE_BODY,
    PRISMATIC,
    R0,
    REVOLUTE,
    RHO,
    ROW_WIDTH,
    SCREW,
    SLIDES,
    SPHERICAL,
    SPHERICAL_BODY,
    START,
    TURN_AT,
    UNIVERSAL,
    WELD,
    P,
    S,
)

__all__ = ["Tree", "State", "state", "jacobians", "forward_dynamics", "generalized_forces",
           "inverse_mass", "mass", "rates", "kinematic_map", "ARM", "FREE", "REVOLUTE", "PRISMATIC",
           "CYLINDRICAL", "SCREW", "SPHERICAL", "UNIVERSAL", "PLANAR", "WELD", "LINE", "PLANE",
           "AFFINE", "AXIAL", "FREE_BODY", "SPHERICAL_BODY", "LINE_BODY", "PLANE_BODY", "BODY_AXES",
           "PARAMETERS",
           "walk", "node_jacobians", "articulated_accelerations", "mass_matrix",
           "inverse_mass_times", "node_bias", "wrench_rows", "primitive_rows",
           "row_rates", "inverse_spd", "open_chain_rates", "open_chain_accelerations",
           "open_chain_rk_step", "pack",
           "rolling_row_into",
           "BODY_FORM"]

#: the branch kinds and the parameter row's layout are the joint catalogue's
#: (:mod:`vecnet.elements.joints`); numba reads these module globals as constants
#: the kind in body axes of each kind with a quaternion
BODY_AXES = {FREE: FREE_BODY, SPHERICAL: SPHERICAL_BODY, LINE: LINE_BODY, PLANE: PLANE_BODY}
PARAMETERS = ROW_WIDTH
_AXIS, _R0, _AXIS2, _RHO, _PITCH, _P, _S, _START = AXIS, R0, AXIS2, RHO, PITCH, P, S, START
_TURN_AT, _SLIDES = TURN_AT, SLIDES
#: the 6 x 6 blocks of scratch space the walk and the recursion's passes take (an array
#: SCRATCH x 6 x 6: its blocks are views without the cost of a reshape)
SCRATCH = 6

#: the decorator of the kernels that allocate nothing and return no array: compiled
#: without numba's reference counting, which otherwise spends an atomic increment and
#: decrement on every array view such a kernel makes or passes on (about a third of a
#: small chain's call). Their callers own every array they are given for the whole call;
#: an array they returned would be freed twice (tests/test_in_place_kernels.py).
#: A division by zero gives inf or NaN, as in numpy, for the caller's finiteness check.
in_place = njit(cache=True, _nrt=False, error_model="numpy")
#: :data:`in_place`, and inlined into its callers (a kernel of a few lines on a hot path)
in_place_inline = njit(cache=True, _nrt=False, error_model="numpy", inline="always")


@in_place
def _cross(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@in_place
def _mat3(A, B, out):
    """``out = A B`` for 3 x 3 matrices (loops beat a BLAS call at this size)."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]


@in_place
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


@in_place
def _quaternion_matrix(q, at, out):
    """``A(p)`` of the quaternion at ``q[at:at + 4]`` (the formula of
    :func:`vecnet.core.rotations.quaternion_matrix`)."""
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


@in_place_inline
def _turned_r0(turn, prm, b, out):
    """``out = turn R0`` with ``R0`` the initial relative rotation of parameter row
    ``prm[b]``."""
    for i in range(3):
        for j in range(3):
            out[i, j] = (turn[i, 0] * prm[b, _R0 + j] + turn[i, 1] * prm[b, _R0 + 3 + j]
                         + turn[i, 2] * prm[b, _R0 + 6 + j])


@in_place_inline
def _quaternion_at(kind):
    """Where the unit quaternion sits among a branch's coordinates (after its
    translations, as many as there are), or -1 for a kind without one."""
    if kind == FREE or kind == FREE_BODY:
        return 3
    if kind == SPHERICAL or kind == SPHERICAL_BODY:
        return 0
    if kind == LINE or kind == LINE_BODY:
        return 1
    if kind == PLANE or kind == PLANE_BODY:
        return 2
    return -1


@in_place
def _motion(kind, prm, b, q, qo, u, uo, nk, Rrel, rho, W, V, Wd, turn, middle):
    """The relative motion of branch ``b`` (parameter row ``prm[b]``) in its coordinates
    (see the module docstring); ``W`` and ``V`` receive ``k`` columns, ``turn`` and
    ``middle`` are scratch. Arms and planar (``AFFINE``) motions are worked out by
    :func:`walk` itself. A kind in body axes (``FREE_BODY`` ...) moves as its kind in tail
    axes with the angular speeds' columns of ``W`` turned by ``R_rel``; their rate ``Wd``
    stays zero (``R_rel' omega_b = R_rel (omega_b x omega_b)``). ``Vd`` is zero for every
    kind. Returns whether the branch translates (``rho``, ``V`` not zero) and whether
    ``Wd`` is not zero."""
    body = kind >= FREE_BODY and kind <= PLANE_BODY
    if kind == FREE_BODY:
        kind = FREE
    elif kind == SPHERICAL_BODY:
        kind = SPHERICAL
    elif kind == LINE_BODY:
        kind = LINE
    elif kind == PLANE_BODY:
        kind = PLANE
    for i in range(3):
        rho[i] = 0.0
        Wd[i] = 0.0
        for j in range(nk):
            W[i, j] = 0.0
            V[i, j] = 0.0
    translates, spins = True, False
    if kind == FREE:
        _quaternion_matrix(q, qo + 3, Rrel)
        for i in range(3):
            rho[i] = q[qo + i]
            V[i, i] = 1.0
            W[i, 3 + i] = 1.0
    elif kind == REVOLUTE or kind == SCREW or kind == CYLINDRICAL or kind == PLANAR:
        angle = q[qo + 2] if kind == PLANAR else q[qo]
        _axis_rotation(prm[b, _AXIS:_AXIS + 3], angle, turn)
        _turned_r0(turn, prm, b, Rrel)
        col = 2 if kind == PLANAR else 0
        for i in range(3):
            W[i, col] = prm[b, _AXIS + i]
        if kind == SCREW:
            pitch = prm[b, _PITCH]
            for i in range(3):
                rho[i] = prm[b, _AXIS + i] * pitch * (q[qo] - prm[b, _START])
                V[i, 0] = prm[b, _AXIS + i] * pitch
        elif kind == CYLINDRICAL:
            for i in range(3):
                rho[i] = prm[b, _AXIS + i] * q[qo + 1]
                V[i, 1] = prm[b, _AXIS + i]
        elif kind == PLANAR:
            for i in range(3):
                rho[i] = prm[b, _P + i] * q[qo] + prm[b, _S + i] * q[qo + 1]
                V[i, 0] = prm[b, _P + i]
                V[i, 1] = prm[b, _S + i]
        else:
            translates = False
    elif kind == PRISMATIC:
        for i in range(3):
            for j in range(3):
                Rrel[i, j] = prm[b, _R0 + 3 * i + j]
            rho[i] = prm[b, _AXIS + i] * q[qo]
            V[i, 0] = prm[b, _AXIS + i]
    elif kind == SPHERICAL:
        _quaternion_matrix(q, qo, Rrel)
        for i in range(3):
            W[i, i] = 1.0
        translates = False
    elif kind == UNIVERSAL:
        _axis_rotation(prm[b, _AXIS:_AXIS + 3], q[qo], turn)
        _turned_r0(turn, prm, b, middle)
        _axis_rotation(prm[b, _AXIS2:_AXIS2 + 3], q[qo + 1], turn)
        _mat3(middle, turn, Rrel)
        f0, f1, f2 = prm[b, _AXIS2], prm[b, _AXIS2 + 1], prm[b, _AXIS2 + 2]
        g0 = middle[0, 0] * f0 + middle[0, 1] * f1 + middle[0, 2] * f2
        g1 = middle[1, 0] * f0 + middle[1, 1] * f1 + middle[1, 2] * f2
        g2 = middle[2, 0] * f0 + middle[2, 1] * f1 + middle[2, 2] * f2
        a0, a1, a2 = prm[b, _AXIS], prm[b, _AXIS + 1], prm[b, _AXIS + 2]
        W[0, 0], W[1, 0], W[2, 0] = a0, a1, a2
        W[0, 1], W[1, 1], W[2, 1] = g0, g1, g2
        # the second axis turns with the first: (a x g) angle1' angle2'
        rate = u[uo] * u[uo + 1]
        Wd[0] = (a1 * g2 - a2 * g1) * rate
        Wd[1] = (a2 * g0 - a0 * g2) * rate
        Wd[2] = (a0 * g1 - a1 * g0) * rate
        translates, spins = False, True
    elif kind == WELD:
        for i in range(3):
            for j in range(3):
                Rrel[i, j] = prm[b, _R0 + 3 * i + j]
        translates = False
    elif kind == LINE:
        _quaternion_matrix(q, qo + 1, Rrel)
        for i in range(3):
            rho[i] = prm[b, _AXIS + i] * q[qo]
            V[i, 0] = prm[b, _AXIS + i]
            W[i, 1 + i] = 1.0
    elif kind == AXIAL:
        at = int(prm[b, _TURN_AT])
        if at >= 0:
            _axis_rotation(prm[b, _AXIS:_AXIS + 3], q[qo + at], turn)
            _turned_r0(turn, prm, b, Rrel)
            for i in range(3):
                W[i, at] = prm[b, _AXIS + i]
        else:
            for i in range(3):
                for j in range(3):
                    Rrel[i, j] = prm[b, _R0 + 3 * i + j]
        translates = False
        for m in range(nk):
            for i in range(3):
                d = prm[b, _SLIDES + 3 * m + i]
                rho[i] += d * q[qo + m]
                V[i, m] = d
                translates = translates or d != 0.0
    elif kind == PLANE:
        _quaternion_matrix(q, qo + 2, Rrel)
        for i in range(3):
            rho[i] = prm[b, _P + i] * q[qo] + prm[b, _S + i] * q[qo + 1]
            V[i, 0] = prm[b, _P + i]
            V[i, 1] = prm[b, _S + i]
            W[i, 2 + i] = 1.0
    if body:
        for i in range(3):
            for j in range(3):
                W[i, nk - 3 + j] = Rrel[i, j]
    return translates, spins


@njit(cache=True)
def walk(parent, child, sign, kind, ground, qo, uo, nk, prm, n_nodes, datum, q, u):
    """The forward pass: every node's rotation ``R`` (V x 3 x 3), position ``r``, angular
    velocity ``w`` and point velocity ``v`` (V x 3, world axes); every branch's motion
    subspace ``S`` (B x 6 x 6, its first ``k`` columns used) and bias ``c`` (B x 6) as
    spatial vectors about the world origin; and every node's spatial bias acceleration
    ``A0`` (V x 6: the acceleration with ``u' = 0`` and no gravity); and, for planar
    trees, every node's angle ``theta`` summed along its path (not wrapped)."""
    nb = len(parent)
    R = np.empty((n_nodes, 3, 3))
    r = np.empty((n_nodes, 3))
    w = np.empty((n_nodes, 3))
    v = np.empty((n_nodes, 3))
    A0 = np.empty((n_nodes, 6))
    S = np.zeros((nb, 6, 6))   # columns beyond a branch's k stay zero for every reader
    c = np.empty((nb, 6))
    theta = np.empty(n_nodes)
    walk_into(parent, child, sign, kind, ground, qo, uo, nk, prm, datum, q, u, R, r, w, v,
              S, c, A0, theta, np.empty((SCRATCH, 6, 6)))
    return R, r, w, v, S, c, A0, theta


@in_place
def walk_into(parent, child, sign, kind, ground, qo, uo, nk, prm, datum, q, u, R, r, w, v, S,
              c, A0, theta, scratch):
    """:func:`walk` into the arrays given (any contents: every entry read is written
    first; ``scratch``: :data:`SCRATCH` x 6 x 6), so that a caller that keeps them
    allocates nothing. Its 3-vectors are
    scalars, and a branch that does not translate (a ball, a hinge, an arm) skips the
    terms of ``V``."""
    nb = len(parent)
    for i in range(3):
        for j in range(3):
            R[datum, i, j] = 1.0 if i == j else 0.0
        r[datum, i] = 0.0
        w[datum, i] = 0.0
        v[datum, i] = 0.0
    for j in range(6):
        A0[datum, j] = 0.0
    theta[datum] = 0.0
    Rrel = scratch[0]       # the 3 x 3 and 3 x 6 matrices at the top left of their blocks
    W = scratch[1]
    V = scratch[2]
    turn = scratch[3]
    middle = scratch[4]
    rho = scratch[5, 0]
    Wd = scratch[5, 1]
    for b in range(nb):
        p, i, s, k, kb = parent[b], child[b], sign[b], nk[b], kind[b]
        # arms and planar motions, most of the branches, inline
        turns = True    # whether the branch turns its head frame against its tail frame
        translates, spins = True, False
        if kb == ARM:
            turns, spins = False, False
            for x in range(3):
                rho[x] = prm[b, _RHO + x]
        elif kb == AFFINE:
            angle = prm[b, _PITCH]
            rho[0], rho[1], rho[2] = prm[b, _RHO], prm[b, _RHO + 1], 0.0
            for m in range(k):
                value = q[qo[b] + m]
                rho[0] += prm[b, 3 * m] * value
                rho[1] += prm[b, 3 * m + 1] * value
                angle += prm[b, 3 * m + 2] * value
                V[0, m], V[1, m], V[2, m] = prm[b, 3 * m], prm[b, 3 * m + 1], 0.0
                W[0, m], W[1, m], W[2, m] = 0.0, 0.0, prm[b, 3 * m + 2]
            cos, sin = np.cos(angle), np.sin(angle)
            Rrel[0, 0], Rrel[0, 1], Rrel[0, 2] = cos, -sin, 0.0
            Rrel[1, 0], Rrel[1, 1], Rrel[1, 2] = sin, cos, 0.0
            Rrel[2, 0], Rrel[2, 1], Rrel[2, 2] = 0.0, 0.0, 1.0
            turns = k > 0 or angle != 0.0
        else:
            translates, spins = _motion(kb, prm, b, q, qo[b], u, uo[b], k, Rrel, rho, W, V, Wd,
                                        turn, middle)
        if not turns:
            for x in range(3):
                for y in range(3):
                    R[i, x, y] = R[p, x, y]
        elif s > 0:
            for x in range(3):
                for y in range(3):
                    R[i, x, y] = (R[p, x, 0] * Rrel[0, y] + R[p, x, 1] * Rrel[1, y]
                                  + R[p, x, 2] * Rrel[2, y])
        else:
            for x in range(3):
                for y in range(3):
                    R[i, x, y] = (R[p, x, 0] * Rrel[y, 0] + R[p, x, 1] * Rrel[y, 1]
                                  + R[p, x, 2] * Rrel[y, 2])
        t = p if s > 0 else i       # the tail frame's node: its rotation R_t
        a00, a01, a02 = R[t, 0, 0], R[t, 0, 1], R[t, 0, 2]
        a10, a11, a12 = R[t, 1, 0], R[t, 1, 1], R[t, 1, 2]
        a20, a21, a22 = R[t, 2, 0], R[t, 2, 1], R[t, 2, 2]
        d0 = d1 = d2 = 0.0          # the offset in world axes
        if translates:
            if ground[b]:
                d0, d1, d2 = rho[0], rho[1], rho[2]
            else:
                d0 = a00 * rho[0] + a01 * rho[1] + a02 * rho[2]
                d1 = a10 * rho[0] + a11 * rho[1] + a12 * rho[2]
                d2 = a20 * rho[0] + a21 * rho[1] + a22 * rho[2]
        r[i, 0] = r[p, 0] + s * d0
        r[i, 1] = r[p, 1] + s * d1
        r[i, 2] = r[p, 2] + s * d2
        # the head point (the child when walked along, else the parent)
        h = i if s > 0 else p
        x0, x1, x2 = r[h, 0], r[h, 1], r[h, 2]
        # R_t W u_b and the offset's rate R_t V u_b, column by column into S
        wr0 = wr1 = wr2 = vr0 = vr1 = vr2 = 0.0
        for m in range(k):
            e0 = a00 * W[0, m] + a01 * W[1, m] + a02 * W[2, m]
            e1 = a10 * W[0, m] + a11 * W[1, m] + a12 * W[2, m]
            e2 = a20 * W[0, m] + a21 * W[1, m] + a22 * W[2, m]
            f0 = f1 = f2 = 0.0
            if translates:
                if ground[b]:
                    f0, f1, f2 = V[0, m], V[1, m], V[2, m]
                else:
                    f0 = a00 * V[0, m] + a01 * V[1, m] + a02 * V[2, m]
                    f1 = a10 * V[0, m] + a11 * V[1, m] + a12 * V[2, m]
                    f2 = a20 * V[0, m] + a21 * V[1, m] + a22 * V[2, m]
            speed = u[uo[b] + m]
            wr0 += e0 * speed
            wr1 += e1 * speed
            wr2 += e2 * speed
            vr0 += f0 * speed
            vr1 += f1 * speed
            vr2 += f2 * speed
            S[b, 0, m] = s * e0
            S[b, 1, m] = s * e1
            S[b, 2, m] = s * e2
            S[b, 3, m] = s * (f0 + x1 * e2 - x2 * e1)
            S[b, 4, m] = s * (f1 + x2 * e0 - x0 * e2)
            S[b, 5, m] = s * (f2 + x0 * e1 - x1 * e0)
        w[i, 0] = w[p, 0] + s * wr0
        w[i, 1] = w[p, 1] + s * wr1
        w[i, 2] = w[p, 2] + s * wr2
        wt0, wt1, wt2 = w[t, 0], w[t, 1], w[t, 2]    # the tail frame's angular velocity
        if ground[b]:
            v[i, 0] = v[p, 0] + s * vr0
            v[i, 1] = v[p, 1] + s * vr1
            v[i, 2] = v[p, 2] + s * vr2
        else:
            v[i, 0] = v[p, 0] + s * (wt1 * d2 - wt2 * d1 + vr0)
            v[i, 1] = v[p, 1] + s * (wt2 * d0 - wt0 * d2 + vr1)
            v[i, 2] = v[p, 2] + s * (wt0 * d1 - wt1 * d0 + vr2)
        if k == 0:   # an arm or a weld: no motion subspace, no bias
            for j in range(6):
                c[b, j] = 0.0
                A0[i, j] = A0[p, j]
            theta[i] = theta[p] + (s * prm[b, _PITCH] if kb == AFFINE else 0.0)
            continue
        # c = S' u_b: the rates of R_t W u_b, of the offset rate and of r_ref x R_t W u_b
        g0 = wt1 * wr2 - wt2 * wr1
        g1 = wt2 * wr0 - wt0 * wr2
        g2 = wt0 * wr1 - wt1 * wr0
        if spins:
            g0 += a00 * Wd[0] + a01 * Wd[1] + a02 * Wd[2]
            g1 += a10 * Wd[0] + a11 * Wd[1] + a12 * Wd[2]
            g2 += a20 * Wd[0] + a21 * Wd[1] + a22 * Wd[2]
        n0 = n1 = n2 = 0.0         # the offset rate's rate (Vd is zero for every kind)
        if translates and not ground[b]:
            n0 = wt1 * vr2 - wt2 * vr1
            n1 = wt2 * vr0 - wt0 * vr2
            n2 = wt0 * vr1 - wt1 * vr0
        y0, y1, y2 = v[h, 0], v[h, 1], v[h, 2]
        c[b, 0] = s * g0
        c[b, 1] = s * g1
        c[b, 2] = s * g2
        c[b, 3] = s * (n0 + y1 * wr2 - y2 * wr1 + x1 * g2 - x2 * g1)
        c[b, 4] = s * (n1 + y2 * wr0 - y0 * wr2 + x2 * g0 - x0 * g2)
        c[b, 5] = s * (n2 + y0 * wr1 - y1 * wr0 + x0 * g1 - x1 * g0)
        for j in range(6):
            A0[i, j] = A0[p, j] + c[b, j]
        # the angle in the plane, counted on (not wrapped), as planar constraints read it
        turned = 0.0
        if kb == AFFINE:
            turned = prm[b, _PITCH]
            for m in range(k):
                turned += prm[b, 3 * m + 2] * q[qo[b] + m]
        theta[i] = theta[p] + s * turned


@njit(cache=True)
def node_jacobians(parent, uo, nk, datum, nu, nodes, r, w, v, S, A0, branch_of):
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
def node_bias(nodes, r, w, v, A0):
    """For each node in ``nodes``: its convective accelerations ``gw, gv`` (k x 3: the
    angular acceleration and the acceleration of its point with ``u' = 0``), from the
    walk's bias accelerations alone (what :func:`node_jacobians` gives without the
    Jacobians, in time linear in the number of nodes)."""
    kn = len(nodes)
    gw = np.empty((kn, 3))
    gv = np.empty((kn, 3))
    for a in range(kn):
        n = nodes[a]
        al, x, om, vel = A0[n], r[n], w[n], v[n]
        gw[a, 0], gw[a, 1], gw[a, 2] = al[0], al[1], al[2]
        # a_O + alpha x r + omega x v
        gv[a, 0] = al[3] + al[1] * x[2] - al[2] * x[1] + om[1] * vel[2] - om[2] * vel[1]
        gv[a, 1] = al[4] + al[2] * x[0] - al[0] * x[2] + om[2] * vel[0] - om[0] * vel[2]
        gv[a, 2] = al[5] + al[0] * x[1] - al[1] * x[0] + om[0] * vel[1] - om[1] * vel[0]
    return gw, gv


@in_place
def rolling_row_into(Ra, Rb, ra, rb, normal, e, axle, radius, Jv, Jw, w, gv, gw,
                     accelerations, row, out):
    """The row of a wheel (head frame ``b``, its ``axle`` in those axes) rolling on the
    plane of frame ``a`` (``normal`` and the direction ``e`` in those axes): the rim's
    material point at the contact, ``C = r_b + radius d`` with ``d`` the unit vector from
    the centre towards the plane in the wheel's plane, has no velocity along ``f = R_a
    e``: ``f . (v_b + omega_b x radius d) = 0``. Writes the row per speed into ``row``
    (from the centre's Jacobians ``Jv``, ``Jw``, 3 x nu) and into ``out``: the contact's
    height ``n . (r_b - r_a) - radius |p|`` (the row of the normal direction is its rate),
    ``c`` (the row's rate with ``u' = 0`` negated, from the centre's ``w``, ``gv``, ``gw``;
    only with ``accelerations``), then ``f`` and the lever ``radius d``."""
    n0 = Ra[0, 0] * normal[0] + Ra[0, 1] * normal[1] + Ra[0, 2] * normal[2]
    n1 = Ra[1, 0] * normal[0] + Ra[1, 1] * normal[1] + Ra[1, 2] * normal[2]
    n2 = Ra[2, 0] * normal[0] + Ra[2, 1] * normal[1] + Ra[2, 2] * normal[2]
    f0 = Ra[0, 0] * e[0] + Ra[0, 1] * e[1] + Ra[0, 2] * e[2]
    f1 = Ra[1, 0] * e[0] + Ra[1, 1] * e[1] + Ra[1, 2] * e[2]
    f2 = Ra[2, 0] * e[0] + Ra[2, 1] * e[1] + Ra[2, 2] * e[2]
    x0 = Rb[0, 0] * axle[0] + Rb[0, 1] * axle[1] + Rb[0, 2] * axle[2]
    x1 = Rb[1, 0] * axle[0] + Rb[1, 1] * axle[1] + Rb[1, 2] * axle[2]
    x2 = Rb[2, 0] * axle[0] + Rb[2, 1] * axle[1] + Rb[2, 2] * axle[2]
    s = n0 * x0 + n1 * x1 + n2 * x2
    p0, p1, p2 = s * x0 - n0, s * x1 - n1, s * x2 - n2
    size = np.sqrt(p0 * p0 + p1 * p1 + p2 * p2)   # sqrt(1 - s^2): zero lying flat
    d0, d1, d2 = p0 / size, p1 / size, p2 / size
    l0, l1, l2 = radius * d0, radius * d1, radius * d2
    a0, a1, a2 = l1 * f2 - l2 * f1, l2 * f0 - l0 * f2, l0 * f1 - l1 * f0   # lever x f
    for j in range(row.shape[0]):
        row[j] = (f0 * Jv[0, j] + f1 * Jv[1, j] + f2 * Jv[2, j]
                  + a0 * Jw[0, j] + a1 * Jw[1, j] + a2 * Jw[2, j])
    out[0] = n0 * (rb[0] - ra[0]) + n1 * (rb[1] - ra[1]) + n2 * (rb[2] - ra[2]) - radius * size
    out[1] = 0.0
    if accelerations:   # f . (a + alpha x lever + omega x lever') less the u' terms
        w0, w1, w2 = w[0], w[1], w[2]
        y0, y1, y2 = w1 * x2 - w2 * x1, w2 * x0 - w0 * x2, w0 * x1 - w1 * x0   # axle'
        ny = n0 * y0 + n1 * y1 + n2 * y2
        q0, q1, q2 = ny * x0 + s * y0, ny * x1 + s * y1, ny * x2 + s * y2      # p'
        dq = d0 * q0 + d1 * q1 + d2 * q2
        e0, e1, e2 = (q0 - d0 * dq) / size, (q1 - d1 * dq) / size, (q2 - d2 * dq) / size
        z0, z1, z2 = w1 * e2 - w2 * e1, w2 * e0 - w0 * e2, w0 * e1 - w1 * e0   # omega x d'
        out[1] = -(f0 * gv[0] + f1 * gv[1] + f2 * gv[2] + a0 * gw[0] + a1 * gw[1]
                   + a2 * gw[2] + radius * (f0 * z0 + f1 * z1 + f2 * z2))
    out[2], out[3], out[4] = f0, f1, f2
    out[5], out[6], out[7] = l0, l1, l2


#: the codes of the spatial loop constraint primitives that act on their two nodes alone
#: (:func:`primitive_rows`)
BODY_FORM = {"point": 0, "perpendicular": 1, "plane": 2, "point in the plane": 3}


@njit(cache=True)
def primitive_rows(codes, tails, heads, E, F, first, R, r, w, v, A0, accelerations, phi, c,
                   W):
    """The rows of every primitive that acts on its two nodes alone (tail ``a``, head
    ``b``, axes ``e`` fixed in the tail and ``f`` in the head): points that coincide,
    ``r_b - r_a`` (three rows; a planar pin's two, along x and y); perpendicular axes,
    ``e_a . f_b``; a point on a plane, ``e_a . (r_b - r_a)``. Into ``phi``, ``c`` (``Phi_u u' = c``, only with
    ``accelerations``) and ``W`` (each row's wrenches on its head and tail per unit
    multiplier, about the world origin), from the walk's node kinematics: ``gw``, ``gv``
    below are a node's accelerations with ``u' = 0``."""
    ea = np.empty(3)
    fb = np.empty(3)
    axis = np.empty(3)
    tmp = np.empty(3)
    ed = np.empty(3)
    fd = np.empty(3)
    gva = np.empty(3)
    gvb = np.empty(3)
    for p in range(len(codes)):
        a, b, row, code = tails[p], heads[p], first[p], codes[p]
        for k in range(3):
            # a node's point acceleration with u' = 0: a_O + alpha x r + omega x v
            i, j = (k + 1) % 3, (k + 2) % 3
            gva[k] = (A0[a, 3 + k] + A0[a, i] * r[a, j] - A0[a, j] * r[a, i]
                      + w[a, i] * v[a, j] - w[a, j] * v[a, i])
            gvb[k] = (A0[b, 3 + k] + A0[b, i] * r[b, j] - A0[b, j] * r[b, i]
                      + w[b, i] * v[b, j] - w[b, j] * v[b, i])
        if code == 0 or code == 3:
            for k in range(3 if code == 0 else 2):
                phi[row + k] = r[b, k] - r[a, k]
                if accelerations:
                    c[row + k] = -(gvb[k] - gva[k])
                for side in range(2):
                    x = r[b] if side == 0 else r[a]
                    sign = 1.0 if side == 0 else -1.0
                    for j in range(6):
                        W[row + k, side, j] = 0.0
                    W[row + k, side, 3 + k] = sign
                    W[row + k, side, (k + 1) % 3] = sign * x[(k + 2) % 3]
                    W[row + k, side, (k + 2) % 3] = -sign * x[(k + 1) % 3]
            continue
        for k in range(3):
            ea[k] = R[a, k, 0] * E[p, 0] + R[a, k, 1] * E[p, 1] + R[a, k, 2] * E[p, 2]
        # e_a'' without u': alpha x e + omega x (omega x e)
        _cross(w[a], ea, tmp)
        _cross(w[a], tmp, ed)
        for k in range(3):
            ed[k] += A0[a, (k + 1) % 3] * ea[(k + 2) % 3] - A0[a, (k + 2) % 3] * ea[(k + 1) % 3]
        if code == 1:
            for k in range(3):
                fb[k] = R[b, k, 0] * F[p, 0] + R[b, k, 1] * F[p, 1] + R[b, k, 2] * F[p, 2]
            _cross(ea, fb, axis)
            phi[row] = ea[0] * fb[0] + ea[1] * fb[1] + ea[2] * fb[2]
            if accelerations:
                _cross(w[b], fb, gvb)        # scratch: omega_b x f_b
                _cross(w[b], gvb, fd)
                for k in range(3):
                    fd[k] += (A0[b, (k + 1) % 3] * fb[(k + 2) % 3]
                              - A0[b, (k + 2) % 3] * fb[(k + 1) % 3])
                t = 0.0
                for k in range(3):
                    t += ed[k] * fb[k] + 2.0 * tmp[k] * gvb[k] + ea[k] * fd[k]
                c[row] = -t
            for j in range(6):
                W[row, 0, j] = 0.0
                W[row, 1, j] = 0.0
            for k in range(3):
                W[row, 0, k] = -axis[k]
                W[row, 1, k] = axis[k]
            continue
        t = 0.0
        for k in range(3):
            t += ea[k] * (r[b, k] - r[a, k])
        phi[row] = t
        if accelerations:
            t = 0.0
            for k in range(3):
                t += (ed[k] * (r[b, k] - r[a, k]) + 2.0 * tmp[k] * (v[b, k] - v[a, k])
                      + ea[k] * (gvb[k] - gva[k]))
            c[row] = -t
        for k in range(3):
            W[row, 0, 3 + k] = ea[k]
            W[row, 1, 3 + k] = -ea[k]
            W[row, 0, k] = r[b, (k + 1) % 3] * ea[(k + 2) % 3] - r[b, (k + 2) % 3] * ea[(k + 1) % 3]
            W[row, 1, k] = -W[row, 0, k]


@njit(cache=True)
def row_rates(c, W, A0, nodes):
    """``gamma = c + Wh . A0[head] + Wt . A0[tail]`` of every row (``nodes[i]`` its head
    and tail): the right-hand side of the rows in the nodes' spatial accelerations from
    the one in the speeds, ``c``, and the walk's bias accelerations ``A0``."""
    out = c.copy()
    for i in range(len(c)):
        for side in range(2):
            n = nodes[i, side]
            for j in range(6):
                out[i] += W[i, side, j] * A0[n, j]
    return out


@njit(cache=True)
def wrench_rows(W, head, tail, nodes, r, Jw, Jv):
    """Constraint rows in the speeds from their wrenches ``W`` (rows x 2 x 6, about the
    world origin) on their head and tail nodes (``nodes``, rows x 2; ``head``, ``tail``:
    their rows in the Jacobians ``Jw``, ``Jv`` of :func:`node_jacobians`): ``Wh^T J_head
    + Wt^T J_tail``, each wrench's moment taken about its node's point."""
    rows, nu = len(W), Jw.shape[2]
    out = np.zeros((rows, nu))
    moment = np.empty(3)
    for i in range(rows):
        for side in range(2):
            k = head[i] if side == 0 else tail[i]
            x = r[nodes[i, side]]
            f0, f1, f2 = W[i, side, 3], W[i, side, 4], W[i, side, 5]
            moment[0] = W[i, side, 0] + f1 * x[2] - f2 * x[1]
            moment[1] = W[i, side, 1] + f2 * x[0] - f0 * x[2]
            moment[2] = W[i, side, 2] + f0 * x[1] - f1 * x[0]
            for n in range(nu):
                out[i, n] += (moment[0] * Jw[k, 0, n] + moment[1] * Jw[k, 1, n]
                              + moment[2] * Jw[k, 2, n] + f0 * Jv[k, 0, n]
                              + f1 * Jv[k, 1, n] + f2 * Jv[k, 2, n])
    return out


@in_place_inline   # on the hot path of every body
def spatial_inertia_into(m, J, R, x, out):
    """The spatial inertia about the world origin of a body with mass ``m``, inertia ``J``
    (body axes, about its mass centre at ``x``) and rotation ``R``, into ``out`` (6 x 6):
    ``[[J_w - m S(x)^2, m S(x)], [-m S(x), m 1]]`` with ``J_w = R J R^T`` (symmetric),
    written out in scalars. Returns ``J_w``'s upper triangle, ``(K00, K01, K02, K11, K12,
    K22)``, for the momentum of :func:`body_inertias_into`."""
    R00, R01, R02 = R[0, 0], R[0, 1], R[0, 2]
    R10, R11, R12 = R[1, 0], R[1, 1], R[1, 2]
    R20, R21, R22 = R[2, 0], R[2, 1], R[2, 2]
    J00, J01, J02 = J[0, 0], J[0, 1], J[0, 2]
    J10, J11, J12 = J[1, 0], J[1, 1], J[1, 2]
    J20, J21, J22 = J[2, 0], J[2, 1], J[2, 2]
    # R J
    A00 = R00 * J00 + R01 * J10 + R02 * J20
    A01 = R00 * J01 + R01 * J11 + R02 * J21
    A02 = R00 * J02 + R01 * J12 + R02 * J22
    A10 = R10 * J00 + R11 * J10 + R12 * J20
    A11 = R10 * J01 + R11 * J11 + R12 * J21
    A12 = R10 * J02 + R11 * J12 + R12 * J22
    A20 = R20 * J00 + R21 * J10 + R22 * J20
    A21 = R20 * J01 + R21 * J11 + R22 * J21
    A22 = R20 * J02 + R21 * J12 + R22 * J22
    # J_w = (R J) R^T
    K00 = A00 * R00 + A01 * R01 + A02 * R02
    K01 = A00 * R10 + A01 * R11 + A02 * R12
    K02 = A00 * R20 + A01 * R21 + A02 * R22
    K11 = A10 * R10 + A11 * R11 + A12 * R12
    K12 = A10 * R20 + A11 * R21 + A12 * R22
    K22 = A20 * R20 + A21 * R21 + A22 * R22
    x0, x1, x2 = x[0], x[1], x[2]
    mx0, mx1, mx2 = m * x0, m * x1, m * x2
    xx = x0 * x0 + x1 * x1 + x2 * x2
    # -S(x)^2 = |x|^2 1 - x x^T
    out[0, 0] = K00 + m * xx - mx0 * x0
    out[1, 1] = K11 + m * xx - mx1 * x1
    out[2, 2] = K22 + m * xx - mx2 * x2
    out[0, 1] = out[1, 0] = K01 - mx0 * x1
    out[0, 2] = out[2, 0] = K02 - mx0 * x2
    out[1, 2] = out[2, 1] = K12 - mx1 * x2
    out[0, 3] = out[3, 0] = 0.0
    out[1, 4] = out[4, 1] = 0.0
    out[2, 5] = out[5, 2] = 0.0
    out[0, 4] = out[4, 0] = -mx2
    out[0, 5] = out[5, 0] = mx1
    out[1, 3] = out[3, 1] = mx2
    out[1, 5] = out[5, 1] = -mx0
    out[2, 3] = out[3, 2] = -mx1
    out[2, 4] = out[4, 2] = mx0
    out[3, 3] = out[4, 4] = out[5, 5] = m
    out[3, 4] = out[4, 3] = out[3, 5] = out[5, 3] = out[4, 5] = out[5, 4] = 0.0
    return K00, K01, K02, K11, K12, K22


@in_place_inline   # on the hot path of every body
def body_inertia_into(m, J, R, x, omega, vel, out, bias, with_bias):
    """The spatial inertia ``out`` (:func:`spatial_inertia_into`) of a body whose mass
    centre sits at ``x`` from the reference point, and, ``with_bias``, its velocity bias
    wrench ``t x* (I t)`` about that point into ``bias`` (6), for the angular velocity
    ``omega`` and the mass centre's velocity ``vel``: the twist about the reference is
    ``t = (omega, vel - omega x x)``, the momentum ``I t = (J_w omega + x x m vel, m vel)``,
    written out in scalars."""
    K00, K01, K02, K11, K12, K22 = spatial_inertia_into(m, J, R, x, out)
    if not with_bias:
        return
    x0, x1, x2 = x[0], x[1], x[2]
    o0, o1, o2 = omega[0], omega[1], omega[2]
    v0, v1, v2 = vel[0], vel[1], vel[2]
    t3 = v0 - (o1 * x2 - o2 * x1)
    t4 = v1 - (o2 * x0 - o0 * x2)
    t5 = v2 - (o0 * x1 - o1 * x0)
    p0, p1, p2 = m * v0, m * v1, m * v2
    h0 = K00 * o0 + K01 * o1 + K02 * o2 + x1 * p2 - x2 * p1
    h1 = K01 * o0 + K11 * o1 + K12 * o2 + x2 * p0 - x0 * p2
    h2 = K02 * o0 + K12 * o1 + K22 * o2 + x0 * p1 - x1 * p0
    # t x* h = (omega x h_n + v_O x h_f, omega x h_f)
    bias[0] = o1 * h2 - o2 * h1 + t4 * p2 - t5 * p1
    bias[1] = o2 * h0 - o0 * h2 + t5 * p0 - t3 * p2
    bias[2] = o0 * h1 - o1 * h0 + t3 * p1 - t4 * p0
    bias[3] = o1 * p2 - o2 * p1
    bias[4] = o2 * p0 - o0 * p2
    bias[5] = o0 * p1 - o1 * p0


@njit(cache=True)
def body_inertias(body_node, body_mass, body_J, n_nodes, R, r, w, v, with_bias):
    """Each node's spatial inertia and velocity bias wrench ``t x* (I t)``."""
    I = np.empty((n_nodes, 6, 6))
    bias = np.empty((n_nodes, 6))
    body_inertias_into(body_node, body_node, body_mass, body_J, R, r, w, v, with_bias, I, bias)
    return I, bias


@in_place
def body_inertias_into(body_node, target, body_mass, body_J, R, r, w, v, with_bias, I, bias):
    """:func:`body_inertias` into ``I`` and ``bias`` (any contents), body ``k`` into row
    ``target[k]`` (its node, or the rigid body its node belongs to: one body a row), each
    about the world origin by :func:`body_inertia_into`."""
    for n in range(len(I)):
        for i in range(6):
            bias[n, i] = 0.0
            for j in range(6):
                I[n, i, j] = 0.0
    for k in range(len(body_node)):
        n, row = body_node[k], target[k]
        body_inertia_into(body_mass[k], body_J[k], R[n], r[n], w[n], v[n], I[row], bias[row],
                          with_bias)


@njit(cache=True)
def inverse_spd(A, k, out):
    """``out[:k, :k] = A[:k, :k]^-1`` for a small symmetric positive definite block
    (Cholesky; NaN where it is not positive definite)."""
    inverse_spd_into(A, k, out, np.empty((6, 6)), np.empty((6, 6)))


@in_place
def inverse_spd_into(A, k, out, L, Li):
    """:func:`inverse_spd` with the scratch ``L`` and ``Li`` (6 x 6, any contents)."""
    for i in range(k):
        for j in range(i + 1):
            s = A[i, j]
            for m in range(j):
                s -= L[i, m] * L[j, m]
            if i == j:
                L[i, i] = np.sqrt(s) if s > 0 else np.nan
            else:
                L[i, j] = s / L[j, j]
    # inverse of L (lower triangular), then out = L^-T L^-1
    for i in range(k):
        Li[i, i] = 1.0 / L[i, i]
        for j in range(i):
            s = 0.0
            for m in range(j, i):
                s -= L[i, m] * Li[m, j]
            Li[i, j] = s / L[i, i]
    for i in range(k):
        for j in range(k):
            s = 0.0
            for m in range(max(i, j), k):
                s += Li[m, i] * Li[m, j]
            out[i, j] = s


@in_place
def _inverse_spd3(D, k, out, b):
    """``out[b, :k, :k] = D[:k, :k]^-1`` for ``k`` = 1, 2, 3 by cofactors, NaN where the
    block is not positive definite (a leading minor not positive), as
    :func:`inverse_spd_into` gives it."""
    a = D[0, 0]
    if k == 1:
        out[b, 0, 0] = 1.0 / a if a > 0 else np.nan
        return
    bb, d = D[0, 1], D[1, 1]
    minor = a * d - bb * bb
    if k == 2:
        if a > 0 and minor > 0:
            out[b, 0, 0] = d / minor
            out[b, 0, 1] = out[b, 1, 0] = -bb / minor
            out[b, 1, 1] = a / minor
        else:
            for i in range(2):
                for j in range(2):
                    out[b, i, j] = np.nan
        return
    c, e, f = D[0, 2], D[1, 2], D[2, 2]
    c00 = d * f - e * e
    c01 = c * e - bb * f
    c02 = bb * e - c * d
    det = a * c00 + bb * c01 + c * c02
    if a > 0 and minor > 0 and det > 0:
        out[b, 0, 0] = c00 / det
        out[b, 0, 1] = out[b, 1, 0] = c01 / det
        out[b, 0, 2] = out[b, 2, 0] = c02 / det
        out[b, 1, 1] = (a * f - c * c) / det
        out[b, 1, 2] = out[b, 2, 1] = (bb * c - a * e) / det
        out[b, 2, 2] = minor / det
    else:
        for i in range(3):
            for j in range(3):
                out[b, i, j] = np.nan


@njit(cache=True)
def _articulate(parent, child, nk, S, I):
    """The backward pass of the inertias: ``U = I^A S`` and ``D^-1 = (S^T U)^-1`` of every
    branch, each child's articulated inertia ``I^A - U D^-1 U^T`` folded into its parent's.
    ``I`` is overwritten: afterwards every node holds its articulated inertia (its children
    fold into it before it folds into its parent, as they come later in the walk)."""
    nb = len(parent)
    U = np.zeros((nb, 6, 6))
    Dinv = np.zeros((nb, 6, 6))
    _articulate_into(parent, child, nk, S, I, U, Dinv, np.empty((SCRATCH, 6, 6)))
    return U, Dinv


@in_place
def _articulate_into(parent, child, nk, S, I, U, Dinv, scratch):
    """:func:`_articulate` into ``U`` and ``Dinv`` (only the first ``k`` columns of a
    branch are written and read; ``scratch``: :data:`SCRATCH` x 6 x 6). The inertias are
    symmetric: a fold works out the upper triangle and mirrors it."""
    nb = len(parent)
    D = scratch[0]
    UD = scratch[1]
    L = scratch[2]
    Li = scratch[3]
    for b in range(nb - 1, -1, -1):
        p, i, k = parent[b], child[b], nk[b]
        if k == 0:
            for x in range(6):
                for y in range(6):
                    I[p, x, y] += I[i, x, y]
            continue
        for m in range(k):
            s0, s1, s2 = S[b, 0, m], S[b, 1, m], S[b, 2, m]
            s3, s4, s5 = S[b, 3, m], S[b, 4, m], S[b, 5, m]
            for x in range(6):
                U[b, x, m] = (I[i, x, 0] * s0 + I[i, x, 1] * s1 + I[i, x, 2] * s2
                              + I[i, x, 3] * s3 + I[i, x, 4] * s4 + I[i, x, 5] * s5)
        for m in range(k):
            for n in range(m, k):
                t = (S[b, 0, m] * U[b, 0, n] + S[b, 1, m] * U[b, 1, n]
                     + S[b, 2, m] * U[b, 2, n] + S[b, 3, m] * U[b, 3, n]
                     + S[b, 4, m] * U[b, 4, n] + S[b, 5, m] * U[b, 5, n])
                D[m, n] = t
                D[n, m] = t
        if k <= 3:
            _inverse_spd3(D, k, Dinv, b)
        else:
            inverse_spd_into(D, k, Dinv[b], L, Li)
        if k == 1:
            for x in range(6):
                UD[x, 0] = U[b, x, 0] * Dinv[b, 0, 0]
        else:
            for x in range(6):
                for n in range(k):
                    t = 0.0
                    for m in range(k):
                        t += U[b, x, m] * Dinv[b, m, n]
                    UD[x, n] = t
        for x in range(6):
            for y in range(x, 6):
                t = I[i, x, y]
                for n in range(k):
                    t -= UD[x, n] * U[b, y, n]
                I[p, x, y] += t
                if y != x:
                    I[p, y, x] += t


@njit(cache=True)
def _accelerate(parent, child, uo, nk, n_nodes, datum, S, c, I, U, Dinv, bias, tau, a_datum,
                nu):
    """The backward pass of the bias forces and the forward pass of the accelerations, for
    the articulated inertias ``I`` and the ``U``, ``D^-1`` of :func:`_articulate`, under
    generalized forces ``tau``: ``p^a = p^A + I^A c + U D^-1 (u - U^T c)`` with
    ``u = tau - S^T p^A``, then ``u' = D^-1 (u - U^T (a_parent + c))``."""
    nb = len(parent)
    pA = bias.copy()
    uu = np.zeros((nb, 6))
    a = np.zeros((n_nodes, 6))
    ud = np.zeros(nu)
    _accelerate_into(parent, child, uo, nk, datum, S, c, I, U, Dinv, pA, tau, a_datum, uu, a,
                     ud, np.empty((SCRATCH, 6, 6)))
    return ud


@in_place
def _accelerate_into(parent, child, uo, nk, datum, S, c, I, U, Dinv, pA, tau, a_datum, uu, a,
                     ud, scratch):
    """:func:`_accelerate` with the bias forces ``pA`` (overwritten: they are folded leaf
    to root) and the scratch ``uu`` (B x 6), ``a`` (V x 6) and ``scratch`` (:data:`SCRATCH` x 6 x 6)
    given; ``u'`` into ``ud``."""
    nb = len(parent)
    pa = scratch[0, 0]
    x = scratch[0, 1]
    z = scratch[0, 2]
    for b in range(nb - 1, -1, -1):
        p, i, k = parent[b], child[b], nk[b]
        if not k:   # an arm or a weld: no bias c, the child's forces go to its parent
            for j in range(6):
                pA[p, j] += pA[i, j]
            continue
        c0, c1, c2, c3, c4, c5 = c[b, 0], c[b, 1], c[b, 2], c[b, 3], c[b, 4], c[b, 5]
        for j in range(6):
            pa[j] = pA[i, j] + (I[i, j, 0] * c0 + I[i, j, 1] * c1 + I[i, j, 2] * c2
                                + I[i, j, 3] * c3 + I[i, j, 4] * c4 + I[i, j, 5] * c5)
        for m in range(k):
            t = tau[uo[b] + m]
            for j in range(6):
                t -= S[b, j, m] * pA[i, j]
            uu[b, m] = t
            x[m] = t - (U[b, 0, m] * c0 + U[b, 1, m] * c1 + U[b, 2, m] * c2
                        + U[b, 3, m] * c3 + U[b, 4, m] * c4 + U[b, 5, m] * c5)
        for m in range(k):
            t = 0.0
            for n in range(k):
                t += Dinv[b, m, n] * x[n]
            z[m] = t
        for j in range(6):
            t = pa[j]
            for m in range(k):
                t += U[b, j, m] * z[m]
            pA[p, j] += t
    for j in range(6):
        a[datum, j] = a_datum[j]
    for b in range(nb):
        p, i, k = parent[b], child[b], nk[b]
        for j in range(6):
            a[i, j] = a[p, j] + c[b, j]
        if k:
            for m in range(k):
                t = uu[b, m]
                for j in range(6):
                    t -= U[b, j, m] * a[i, j]
                x[m] = t
            for m in range(k):
                t = 0.0
                for n in range(k):
                    t += Dinv[b, m, n] * x[n]
                ud[uo[b] + m] = t
                z[m] = t
            for j in range(6):
                t = a[i, j]
                for m in range(k):
                    t += S[b, j, m] * z[m]
                a[i, j] = t


@njit(cache=True)
def articulated_accelerations(parent, child, uo, nk, n_nodes, datum, S, c, body_node,
                              body_mass, body_J, R, r, w, v, gravity, tau, wrenches, nu):
    """``u'`` of the tree under generalized forces ``tau`` and spatial ``wrenches`` on the
    nodes (V x 6; gravity and the velocity terms included): the articulated-body algorithm
    on the outputs of :func:`walk`."""
    I, bias = body_inertias(body_node, body_mass, body_J, n_nodes, R, r, w, v, True)
    bias -= wrenches
    U, Dinv = _articulate(parent, child, nk, S, I)
    a_datum = np.zeros(6)
    for j in range(3):
        a_datum[3 + j] = -gravity[j]
    return _accelerate(parent, child, uo, nk, n_nodes, datum, S, c, I, U, Dinv, bias, tau,
                       a_datum, nu)


@njit(cache=True)
def free_accelerations(parent, child, sign, kind, ground, qo, uo, nk, prm, n_nodes, datum,
                       body_node, body_mass, body_J, gravity, q, u, nu):
    """``u'`` of the tree under gravity and its velocity terms alone: :func:`walk` and
    :func:`articulated_accelerations` in one call (a simulation's right-hand side when
    nothing else acts)."""
    R, r, w, v, S, c, A0, theta = walk(parent, child, sign, kind, ground, qo, uo, nk, prm,
                                       n_nodes, datum, q, u)
    return articulated_accelerations(parent, child, uo, nk, n_nodes, datum, S, c, body_node,
                                     body_mass, body_J, R, r, w, v, gravity, np.zeros(nu),
                                     np.zeros((n_nodes, 6)), nu)


#: the header of a packed tree (:func:`pack`): branches, nodes, datum, bodies, coordinates,
#: speeds, rigid bodies, branches that move, the datum's rigid body
_HEADER = 9


@njit(cache=True)
def open_chain_rates(itab, ftab, work, y):
    """``(y', ok)`` of a tree that gravity and its velocity terms alone move, ``y = (q, u)``:
    the quaternions of ``q`` normalized, :func:`walk`, the articulated-body recursion and
    ``q' = N(q) u`` in one call on a packed tree (:func:`pack`: two arrays of numbers and
    one of work space, so that a call unboxes four arrays and allocates only ``y'``).
    ``ok`` is false where ``y`` or ``y'`` is not finite (a branch without inertia beyond
    it)."""
    out = np.empty(len(y))
    ok = open_chain_rates_into(itab, ftab, work, y, out)
    return out, ok


@njit(cache=True)
def open_chain_accelerations(itab, ftab, work, q, u):
    """``(u', ok)`` of :func:`open_chain_rates` at ``q`` and ``u`` given apart (the public
    forward dynamics' call, sparing the caller a concatenation and a slice); ``ok`` is also
    false where ``q`` or ``u`` is not of the packed tree's size."""
    n, nu = itab[4], itab[5]
    if len(q) != n or len(u) != nu:
        return np.empty(0), False
    y = np.empty(n + nu)
    y[:n] = q
    y[n:] = u
    out = np.empty(n + nu)
    ok = open_chain_rates_into(itab, ftab, work, y, out)
    return out[n:], ok


@in_place
def open_chain_rates_into(itab, ftab, work, y, out):
    """:func:`open_chain_rates` into ``out`` (``n + nu``), returning ``ok``."""
    nb, nn, datum, nbod, n, nu = itab[0], itab[1], itab[2], itab[3], itab[4], itab[5]
    ng, nm, gdatum = itab[6], itab[7], itab[8]
    at = _HEADER
    parent = itab[at:at + nb]
    child = itab[at + nb:at + 2 * nb]
    sign = itab[at + 2 * nb:at + 3 * nb]
    kind = itab[at + 3 * nb:at + 4 * nb]
    ground = itab[at + 4 * nb:at + 5 * nb]
    qo = itab[at + 5 * nb:at + 6 * nb]
    uo = itab[at + 6 * nb:at + 7 * nb]
    nk = itab[at + 7 * nb:at + 8 * nb]
    at += 8 * nb
    body_node = itab[at:at + nbod]
    body_group = itab[at + nbod:at + 2 * nbod]
    at += 2 * nbod
    moving = itab[at:at + nm]
    mparent = itab[at + nm:at + 2 * nm]
    mchild = itab[at + 2 * nm:at + 3 * nm]
    muo = itab[at + 3 * nm:at + 4 * nm]
    mnk = itab[at + 4 * nm:at + 5 * nm]
    gravity = ftab[0:3]
    body_mass = ftab[3:3 + nbod]
    at = 3 + nbod
    body_J = ftab[at:at + 9 * nbod].reshape((nbod, 3, 3))
    at += 9 * nbod
    prm = ftab[at:at + PARAMETERS * nb].reshape((nb, PARAMETERS))
    # the work space in blocks of one shape each, one reshape a block (a reshape costs
    # far more than a view)
    at = 0
    q = work[at:at + n]
    at += n
    theta = work[at:at + nn]
    at += nn
    tau = work[at:at + nu]
    at += nu
    R = work[at:at + 9 * nn].reshape((nn, 3, 3))
    at += 9 * nn
    vectors = work[at:at + 9 * nn].reshape((3 * nn, 3))
    at += 9 * nn
    r, w, v = vectors[:nn], vectors[nn:2 * nn], vectors[2 * nn:]
    rows = nn + 2 * ng + nb + 2 * nm + 1
    spatial = work[at:at + 6 * rows].reshape((rows, 6))
    at += 6 * rows
    A0 = spatial[:nn]
    bias = spatial[nn:nn + ng]
    acc = spatial[nn + ng:nn + 2 * ng]
    c = spatial[nn + 2 * ng:nn + 2 * ng + nb]
    cm = spatial[nn + 2 * ng + nb:nn + 2 * ng + nb + nm]
    uu = spatial[nn + 2 * ng + nb + nm:rows - 1]
    a_datum = spatial[rows - 1]
    blocks = ng + nb + 3 * nm + SCRATCH
    matrices = work[at:at + 36 * blocks].reshape((blocks, 6, 6))
    I = matrices[:ng]
    S = matrices[ng:ng + nb]
    Sm = matrices[ng + nb:ng + nb + nm]
    U = matrices[ng + nb + nm:ng + nb + 2 * nm]
    Dinv = matrices[ng + nb + 2 * nm:ng + nb + 3 * nm]
    scratch = matrices[ng + nb + 3 * nm:]
    for i in range(n):
        q[i] = y[i]
    for b in range(nb):     # unit quaternions, as the coordinates mean them
        first = _quaternion_at(kind[b])
        if first >= 0:
            i = qo[b] + first
            norm = np.sqrt(q[i] * q[i] + q[i + 1] * q[i + 1] + q[i + 2] * q[i + 2]
                           + q[i + 3] * q[i + 3])
            for j in range(4):
                q[i + j] /= norm
    u = y[n:n + nu]
    walk_into(parent, child, sign, kind, ground, qo, uo, nk, prm, datum, q, u, R, r, w, v, S,
              c, A0, theta, scratch)
    # the recursion over the rigid bodies (nodes that arms and welds join share one
    # twist about the world origin) and the branches that move them
    for m in range(nm):
        b = moving[m]
        for j in range(6):
            cm[m, j] = c[b, j]
            for x in range(mnk[m]):
                Sm[m, j, x] = S[b, j, x]
    body_inertias_into(body_node, body_group, body_mass, body_J, R, r, w, v, True, I, bias)
    _articulate_into(mparent, mchild, mnk, Sm, I, U, Dinv, scratch)
    for j in range(3):
        a_datum[j] = 0.0
        a_datum[3 + j] = -gravity[j]
    for i in range(nu):
        tau[i] = 0.0
    _accelerate_into(mparent, mchild, muo, mnk, gdatum, Sm, cm, I, U, Dinv, bias, tau, a_datum,
                     uu, acc, out[n:], scratch)
    coordinate_rates_into(kind, qo, uo, nk, q, u, out[:n])
    total = 0.0
    for i in range(n + nu):
        total += out[i] + y[i]
    if np.isfinite(total):
        return True
    for i in range(n + nu):     # a sum of finite entries may still overflow
        if not (np.isfinite(out[i]) and np.isfinite(y[i])):
            return False
    return True


@njit(cache=True)
def open_chain_rk_step(itab, ftab, work, y, f, h, A, B, C, E3, E5, K, rtol, atol):
    """One attempted step of an explicit Runge-Kutta pair with DOP853's error estimate
    (scipy's ``rk_step`` and ``DOP853._estimate_error_norm``, the same sums) on the tree
    of :func:`open_chain_rates`: from ``y`` with the rate ``f``, of size ``h``, with the
    method's tables ``A``, ``B``, ``C`` (unused: the tree under gravity is autonomous),
    ``E3``, ``E5``; the stages into ``K`` (stages + 1 rows, the last ``f(y_new)``), scaled
    by ``atol + rtol max(|y|, |y_new|)`` (``atol`` one per entry). Returns
    ``(y_new, f_new, error_norm)``, the error norm -1 where a stage's state or rate is not
    finite."""
    ns, n = len(B), len(y)
    z = np.empty(n)
    y_new = np.empty(n)
    for i in range(n):
        K[0, i] = f[i]
    for s in range(1, ns):
        for i in range(n):
            acc = 0.0
            for j in range(s):
                acc += K[j, i] * A[s, j]
            z[i] = y[i] + h * acc
        if not open_chain_rates_into(itab, ftab, work, z, K[s]):
            return y_new, z, -1.0
    for i in range(n):
        acc = 0.0
        for j in range(ns):
            acc += K[j, i] * B[j]
        y_new[i] = y[i] + h * acc
    f_new = np.empty(n)
    if not open_chain_rates_into(itab, ftab, work, y_new, f_new):
        return y_new, f_new, -1.0
    e5 = e3 = 0.0
    for i in range(n):
        K[ns, i] = f_new[i]
        scale = atol[i] + max(abs(y[i]), abs(y_new[i])) * rtol
        a5 = a3 = 0.0
        for j in range(ns + 1):
            a5 += K[j, i] * E5[j]
            a3 += K[j, i] * E3[j]
        e5 += (a5 / scale) ** 2
        e3 += (a3 / scale) ** 2
    if e5 == 0.0 and e3 == 0.0:
        return y_new, f_new, 0.0
    return y_new, f_new, abs(h) * e5 / np.sqrt((e5 + 0.01 * e3) * n)


def pack(tree: Tree, n: int, nu: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(itab, ftab, work)`` of :func:`open_chain_rates` for ``tree`` with ``n`` coordinates
    and ``nu`` speeds: its integers, its numbers and the work space, each one flat array."""
    nb, nn, nbod = len(tree.parent), tree.n_nodes, len(tree.body_node)
    # the rigid bodies: nodes joined by branches without coordinates (arms, welds) move as
    # one, so the recursion runs over them and over the branches that move them alone
    group = np.arange(nn)
    for b in range(nb):       # walk order: a parent's group is known before its child's
        if tree.nk[b] == 0:
            group[tree.child[b]] = group[tree.parent[b]]
    _, group = np.unique(group, return_inverse=True)
    if len(set(group[tree.body_node].tolist())) < nbod:   # bodies welded together: one a node
        group = np.arange(nn)
    moving = np.flatnonzero(tree.nk > 0) if group.max() < nn - 1 else np.arange(nb)
    ng, nm = int(group.max()) + 1, len(moving)
    itab = np.concatenate([[nb, nn, tree.datum, nbod, n, nu, ng, nm, group[tree.datum]],
                           tree.parent, tree.child, np.sign(tree.sign), tree.kind, tree.ground,
                           tree.qo, tree.uo, tree.nk, tree.body_node, group[tree.body_node],
                           moving, group[tree.parent[moving]], group[tree.child[moving]],
                           tree.uo[moving], tree.nk[moving]]).astype(np.int64)
    ftab = np.concatenate([tree.gravity, tree.body_mass, np.ravel(tree.body_J),
                           np.ravel(tree.prm)]).astype(float)
    work = np.zeros(n + nn * (9 + 3 * 3 + 6 + 1) + ng * (36 + 6 + 6) + nb * (36 + 6)
                    + nm * (36 + 6 + 36 + 36 + 6) + nu + 6 + 36 * SCRATCH)
    return itab, ftab, work


@njit(cache=True)
def wrench_forces(parent, child, uo, nk, S, wrenches, nu):
    """The generalized forces of spatial ``wrenches`` on the nodes: each branch's
    ``S^T`` times the wrenches of the subtree beyond it, summed leaf to root."""
    total = wrenches.copy()
    Q = np.zeros(nu)
    for b in range(len(parent) - 1, -1, -1):
        i = child[b]
        for m in range(nk[b]):
            t = 0.0
            for j in range(6):
                t += S[b, j, m] * total[i, j]
            Q[uo[b] + m] = t
        for j in range(6):
            total[parent[b], j] += total[i, j]
    return Q


@njit(cache=True)
def inverse_mass_times(parent, child, uo, nk, n_nodes, datum, S, body_node, body_mass,
                       body_J, R, r, w, v, forces, nu):
    """``M^-1 F`` for the columns of ``F`` (nu x m) by the articulated-body recursion with
    no velocity, bias or gravity: the inertias are articulated once for all columns."""
    I, bias = body_inertias(body_node, body_mass, body_J, n_nodes, R, r, w, v, False)
    U, Dinv = _articulate(parent, child, nk, S, I)
    nb = len(parent)
    zero_c = np.zeros((nb, 6))
    out = np.zeros((nu, forces.shape[1]))
    tau = np.empty(nu)
    for col in range(forces.shape[1]):
        # element by element: slice assignments would compile numba's shape checks
        for i in range(nu):
            tau[i] = forces[i, col]
        acc = _accelerate(parent, child, uo, nk, n_nodes, datum, S, zero_c, I, U, Dinv, bias,
                          tau, np.zeros(6), nu)
        for i in range(nu):
            out[i, col] = acc[i]
    return out


@njit(cache=True)
def mass_matrix(parent, child, uo, nk, n_nodes, branch_of, S, body_node, body_mass, body_J, R,
                r, w, v, nu):
    """``M`` by the composite-rigid-body recursion: each branch's composite inertia ``I^c``
    (its subtree as one rigid body) gives ``M_ij = S_i^T I^c_i S_j`` for every branch ``j``
    on the path from branch ``i`` to the datum."""
    I, _ = body_inertias(body_node, body_mass, body_J, n_nodes, R, r, w, v, False)
    nb = len(parent)
    for b in range(nb - 1, -1, -1):
        I[parent[b]] += I[child[b]]
    M = np.zeros((nu, nu))
    F = np.empty((6, 6))
    for b in range(nb):
        k = nk[b]
        if not k:
            continue
        Ic = I[child[b]]
        for x in range(6):
            for y in range(k):
                t = 0.0
                for z in range(6):
                    t += Ic[x, z] * S[b, z, y]
                F[x, y] = t
        j = b
        while j >= 0:
            for x in range(nk[j]):
                for y in range(k):
                    t = 0.0
                    for z in range(6):
                        t += S[j, z, x] * F[z, y]
                    M[uo[j] + x, uo[b] + y] = t
                    M[uo[b] + y, uo[j] + x] = t
            j = branch_of[parent[j]]
    return M


@njit(cache=True)
def coordinate_rates(kind, qo, uo, nk, q, u):
    """``q' = N(q) u``: a unit quaternion's rate is ``E(p)^T omega / 2`` (tail axes) or
    ``G(p)^T omega_b / 2`` (body axes; :mod:`vecnet.core.rotations`), every other
    coordinate's rate is its speed."""
    qd = np.zeros(len(q))
    coordinate_rates_into(kind, qo, uo, nk, q, u, qd)
    return qd


@in_place
def coordinate_rates_into(kind, qo, uo, nk, q, u, qd):
    """:func:`coordinate_rates` into ``qd`` (every entry of a coordinate is written)."""
    for b in range(len(kind)):
        k, i, j = kind[b], qo[b], uo[b]
        body = k >= FREE_BODY and k <= PLANE_BODY
        at = _quaternion_at(k)
        if at < 0:
            for m in range(nk[b]):
                qd[i + m] = u[j + m]
            continue
        scalars = at    # the translations' coordinates and speeds come first, one for one
        for m in range(scalars):
            qd[i + m] = u[j + m]
        w, x, y, z = q[i + at], q[i + at + 1], q[i + at + 2], q[i + at + 3]
        o0, o1, o2 = u[j + scalars], u[j + scalars + 1], u[j + scalars + 2]
        qd[i + at] = 0.5 * (-x * o0 - y * o1 - z * o2)
        if body:
            qd[i + at + 1] = 0.5 * (w * o0 - z * o1 + y * o2)
            qd[i + at + 2] = 0.5 * (z * o0 + w * o1 - x * o2)
            qd[i + at + 3] = 0.5 * (-y * o0 + x * o1 + w * o2)
        else:
            qd[i + at + 1] = 0.5 * (w * o0 + z * o1 - y * o2)
            qd[i + at + 2] = 0.5 * (-z * o0 + w * o1 + x * o2)
            qd[i + at + 3] = 0.5 * (y * o0 - x * o1 + w * o2)


@njit(cache=True)
def coordinate_map(kind, qo, uo, nk, q, nu):
    """``N(q)`` with ``q' = N(q) u``, column by column."""
    N = np.zeros((len(q), nu))
    e = np.zeros(nu)
    for j in range(nu):
        e[j] = 1.0
        rates = coordinate_rates(kind, qo, uo, nk, q, e)
        for i in range(len(q)):      # not a slice assignment: see inverse_mass_times
            N[i, j] = rates[i]
        e[j] = 0.0
    return N


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
    theta: np.ndarray


def state(tree: Tree, q: np.ndarray, u: np.ndarray) -> State:
    """The forward pass of ``tree`` at coordinates ``q`` and speeds ``u``."""
    return State(*walk(tree.parent, tree.child, tree.sign, tree.kind, tree.ground, tree.qo,
                       tree.uo, tree.nk, tree.prm, tree.n_nodes, tree.datum,
                       np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(u, dtype=float)))


def jacobians(tree: Tree, st: State, nodes: np.ndarray, nu: int):
    """``(Jw, Jv, gw, gv)`` of ``nodes`` (:func:`node_jacobians`)."""
    return node_jacobians(tree.parent, tree.uo, tree.nk, tree.datum, nu, nodes, st.r, st.w,
                          st.v, st.S, st.A0, tree.branch_of)


def forward_dynamics(tree: Tree, st: State, tau: np.ndarray, wrenches: np.ndarray,
                     nu: int) -> np.ndarray:
    """``u'`` of the tree (no loops) under generalized forces ``tau``, spatial ``wrenches``
    on the nodes (V x 6, about the world origin), gravity and the velocity terms, in time
    linear in the tree's size; NaN where a branch carries no inertia (a massless subtree)."""
    return articulated_accelerations(tree.parent, tree.child, tree.uo, tree.nk, tree.n_nodes,
                                     tree.datum, st.S, st.c, tree.body_node, tree.body_mass,
                                     tree.body_J, st.R, st.r, st.w, st.v, tree.gravity,
                                     np.ascontiguousarray(tau, dtype=float),
                                     np.ascontiguousarray(wrenches, dtype=float), nu)


def free_motion(tree: Tree, q: np.ndarray, u: np.ndarray, nu: int) -> np.ndarray:
    """``u'`` of the tree (no loops) under gravity and its velocity terms alone, in one
    compiled call (:func:`free_accelerations`); NaN where a branch carries no inertia."""
    return free_accelerations(tree.parent, tree.child, tree.sign, tree.kind, tree.ground,
                              tree.qo, tree.uo, tree.nk, tree.prm, tree.n_nodes, tree.datum,
                              tree.body_node, tree.body_mass, tree.body_J, tree.gravity,
                              np.ascontiguousarray(q, dtype=float),
                              np.ascontiguousarray(u, dtype=float), nu)


def generalized_forces(tree: Tree, st: State, wrenches: np.ndarray, nu: int) -> np.ndarray:
    """The generalized forces of spatial ``wrenches`` on the nodes (:func:`wrench_forces`)."""
    return wrench_forces(tree.parent, tree.child, tree.uo, tree.nk, st.S,
                         np.ascontiguousarray(wrenches, dtype=float), nu)


def inverse_mass(tree: Tree, st: State, F: np.ndarray, nu: int) -> np.ndarray:
    """``M^-1 F`` (``F``: nu x m) by the recursion, without forming ``M``."""
    return inverse_mass_times(tree.parent, tree.child, tree.uo, tree.nk, tree.n_nodes,
                              tree.datum, st.S, tree.body_node, tree.body_mass, tree.body_J,
                              st.R, st.r, st.w, st.v, np.ascontiguousarray(F, dtype=float), nu)


def mass(tree: Tree, st: State, nu: int) -> np.ndarray:
    """The mass matrix ``M`` in the speeds (composite-rigid-body recursion)."""
    return mass_matrix(tree.parent, tree.child, tree.uo, tree.nk, tree.n_nodes, tree.branch_of,
                       st.S, tree.body_node, tree.body_mass, tree.body_J, st.R, st.r, st.w,
                       st.v, nu)


def rates(tree: Tree, q: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``q' = N(q) u`` (:func:`coordinate_rates`)."""
    return coordinate_rates(tree.kind, tree.qo, tree.uo, tree.nk,
                            np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(u, dtype=float))


def kinematic_map(tree: Tree, q: np.ndarray, nu: int) -> np.ndarray:
    """``N(q)`` (:func:`coordinate_map`)."""
    return coordinate_map(tree.kind, tree.qo, tree.uo, tree.nk,
                          np.ascontiguousarray(q, dtype=float), nu)


def sample_tree() -> tuple[Tree, np.ndarray, np.ndarray]:
    """A pendulum on a free joint and a revolute, with coordinates and speeds: what
    :func:`compile_kernels` runs the kernels on."""
    prm = np.zeros((2, PARAMETERS))
    prm[1, 0:3] = (0.0, 1.0, 0.0)
    prm[1, 3:12] = np.eye(3).reshape(9)
    tree = Tree(np.array([0, 1]), np.array([1, 2]), np.array([1.0, 1.0]),
                np.array([FREE, REVOLUTE]), np.array([True, False]), np.array([0, 7]),
                np.array([0, 6]), np.array([6, 1]), prm, 3, 0, np.array([-1, 0, 1]),
                np.array([2]), np.array([1.0]), np.eye(3).reshape(1, 3, 3),
                np.array([0.0, 0.0, -9.81]))
    return tree, np.array([0.0, 0, 0, 1, 0, 0, 0, 0.3]), np.linspace(0.1, 0.7, 7)


def compile_kernels() -> None:
    """Compile every kernel once (numba caches them on disk): a pendulum on a free joint
    and a revolute (:func:`sample_tree`), walked, accelerated and projected, its nodes'
    constraint rows written. Installing runs this (through
    :func:`vecnet.numerics.bodyspace.compile_kernels`), so that no model pays the first
    compilation.

    >>> compile_kernels()
    """
    tree, q, u = sample_tree()
    st = state(tree, q, u)
    Jw, Jv, _, _ = jacobians(tree, st, np.array([1, 2]), 7)
    wrenches = np.zeros((3, 6))
    forward_dynamics(tree, st, u, wrenches, 7)
    free_motion(tree, q, u, 7)
    y = np.concatenate([q, u])
    open_chain_rates(*pack(tree, 8, 7), y)
    open_chain_accelerations(*pack(tree, 8, 7), q, u)
    stages = 12     # DOP853's tables, contiguous as the integrator passes them
    open_chain_rk_step(*pack(tree, 8, 7), y, y, 1e-3, np.zeros((stages, stages)),
                       np.zeros(stages), np.zeros(stages), np.zeros(stages + 1),
                       np.zeros(stages + 1), np.zeros((stages + 1, 15)), 1e-8, np.ones(15))
    generalized_forces(tree, st, wrenches, 7)
    inverse_mass(tree, st, np.eye(7)[:, :2], 7)
    mass(tree, st, 7)
    rates(tree, q, u)
    kinematic_map(tree, q, 7)
    nodes = np.array([1, 2])
    node_bias(nodes, st.r, st.w, st.v, st.A0)
    W = np.zeros((5, 2, 6))
    primitive_rows(np.array([0, 1, 2]), np.array([0, 0, 1]), np.array([2, 2, 2]),
                   np.eye(3), np.eye(3)[::-1].copy(), np.array([0, 3, 4]), st.R, st.r, st.w,
                   st.v, st.A0, True, np.zeros(5), np.zeros(5), W)
    wrench_rows(W, np.array([1, 1, 1, 1, 1]), np.array([0, 0, 0, 0, 0]),
                np.array([[2, 1]] * 5), st.r, Jw, Jv)
    row_rates(np.zeros(5), W, st.A0, np.array([[2, 1]] * 5))


class _CompileClock(event.Listener):
    """Hands the wall-clock time of every outermost numba compile to the simulations'
    clocks, which leave it out (:func:`vecnet.core.bounds.add_compile_time`)."""

    def __init__(self) -> None:
        self.depth, self.started = 0, 0.0

    def on_start(self, ev: event.Event) -> None:
        if self.depth == 0:
            self.started = time.monotonic()
        self.depth += 1

    def on_end(self, ev: event.Event) -> None:
        self.depth -= 1
        if self.depth == 0:
            add_compile_time(time.monotonic() - self.started)


event.register("numba:compile", _CompileClock())
