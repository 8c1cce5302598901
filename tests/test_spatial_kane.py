"""Spatial open chains against sympy.physics.mechanics (KanesMethod), written independently.

Each chain hangs from a ground point; joint k joins body k-1 (or the ground) to body k.
The Kane model uses the same coordinates and speeds as vecnet's joint coordinates:

* revolute: ``R_k = R_{k-1} Rot(a, theta) R0`` with ``a`` the axis in the parent's axes,
  ``R0`` the relative rotation at angle zero (the initial one less its turn about ``a``:
  the angle is the child's turn relative to the parent, docs/conventions.md), speed
  ``theta'``;
* universal: ``R_k = R_{k-1} Rot(a, t1) R0 Rot(b, t2)`` (``a`` fixed in the parent, ``b``
  in the child), speeds ``t1', t2'``;
* spherical: ``R_k = R_{k-1} A(p)`` with a unit quaternion ``p`` and speeds the relative
  angular velocity in the parent's axes, ``p' = E(p)^T w / 2``.

vecnet's ``M u' = Q`` must equal Kane's ``mass_matrix u' = forcing`` at random states, for
the symbolic matrices and for the compiled numeric model.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from scipy.spatial.transform import Rotation
from sympy.physics.mechanics import (
    KanesMethod,
    Point,
    ReferenceFrame,
    RigidBody,
    dynamicsymbols,
    inertia,
)

import vecnet as vn
from vecnet.core.rotations import E_matrix

G = np.array([0.3, -0.4, -9.81])
RTOL = 1e-10


def _inertia(rng):
    """A random inertia matrix (positive, triangle inequality) in body axes."""
    moments = rng.uniform(0.5, 1.0, 3) * np.array([0.3, 0.25, 0.2])
    C = Rotation.random(random_state=rng).as_matrix()
    return C @ np.diag(moments) @ C.T


def _chain(kinds, seed=1, turned=True):
    """Random links: mass, inertia, orientation, the joint point in the parent (parent
    axes, from its centre) and in the child (child axes), the joint axes (world). With
    ``turned=False`` the bodies start in world axes and the joint axes are coordinate
    axes (smaller expressions for Kane)."""
    rng = np.random.default_rng(seed)
    links = []
    for k, kind in enumerate(kinds):
        if turned:
            C = Rotation.random(random_state=rng).as_matrix()
            u = rng.normal(size=3)
            u /= np.linalg.norm(u)
            v = np.cross(u, rng.normal(size=3))
            v /= np.linalg.norm(v)
        else:
            C, u, v = np.eye(3), np.eye(3)[k % 3], np.eye(3)[(k + 1) % 3]
        links.append(dict(kind=kind, m=rng.uniform(0.5, 2.0), J=_inertia(rng), C=C,
                          parent=rng.uniform(-0.4, 0.4, 3), child=rng.uniform(-0.4, 0.4, 3),
                          u=u, v=v))
    return links


def vecnet_model(links):
    mech = vn.spatial.Mechanism("chain", gravity=tuple(G))
    parent_point = mech.ground.point(0.1, 0.2, 0.3)
    at = np.array([0.1, 0.2, 0.3])
    for k, link in enumerate(links, start=1):
        centre = at - link["C"] @ link["child"]
        body = mech.body(f"b{k}", link["m"], link["J"], position=centre, orientation=link["C"])
        joint_point = body.point(*link["child"])
        kind = link["kind"]
        if kind == "revolute":
            mech.revolute(f"J{k}", parent_point, joint_point, axis=link["u"])
        elif kind == "universal":
            mech.universal(f"J{k}", parent_point, joint_point, axes=(link["u"], link["v"]))
        else:
            mech.spherical(f"J{k}", parent_point, joint_point)
        at = centre + link["C"] @ link["parent"]
        parent_point = body.point(*link["parent"])
    return mech


def _at_angle_zero(R0, a):
    """``R0`` less its turn about the unit ``a``: with ``R0 = Rot(a, turn) S`` and ``S``
    about an axis perpendicular to ``a``, the quaternion of ``R0`` has ``w = cos(turn/2)
    cos(s/2)`` and ``v . a = sin(turn/2) cos(s/2)``."""
    x, y, z, w = Rotation.from_matrix(R0).as_quat()
    turn = 2 * np.arctan2(np.dot(a, [x, y, z]), w)
    return Rotation.from_rotvec(-turn * np.asarray(a)).as_matrix() @ R0


def kane_model(links):
    """KanesMethod with the coordinates and speeds of vecnet's joint coordinates; returns
    (mass matrix, forcing, q, u) with q, u ordered as vecnet's."""
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    frame, C_prev = N, np.eye(3)
    point = O.locatenew("P1", 0.1 * N.x + 0.2 * N.y + 0.3 * N.z)
    point.set_vel(N, 0)
    qs, us, kd, bodies, loads = [], [], [], [], []
    for k, link in enumerate(links, start=1):
        kind, C = link["kind"], link["C"]
        R0 = sympy.Matrix(C_prev.T @ C)
        a = C_prev.T @ link["u"]          # first axis in the parent's axes
        if kind == "revolute":
            R0 = sympy.Matrix(_at_angle_zero(C_prev.T @ C, a))
            q = dynamicsymbols(f"q{k}")
            u = dynamicsymbols(f"u{k}")
            mid = ReferenceFrame(f"I{k}")
            mid.orient_axis(frame, sum((float(a[i]) * frame.x, float(a[i]) * frame.y,
                                        float(a[i]) * frame.z)[i] for i in range(3)), q)
            B = ReferenceFrame(f"B{k}")
            B.orient_explicit(mid, R0)
            B.set_ang_vel(frame, u * (float(a[0]) * frame.x + float(a[1]) * frame.y
                                      + float(a[2]) * frame.z))
            qs.append(q)
            us.append(u)
            kd.append(q.diff() - u)
        elif kind == "universal":
            q1, q2 = dynamicsymbols(f"q{k}a q{k}b")
            u1, u2 = dynamicsymbols(f"u{k}a u{k}b")
            b = C.T @ link["v"]           # second axis in the child's axes
            I1 = ReferenceFrame(f"I{k}")
            avec = float(a[0]) * frame.x + float(a[1]) * frame.y + float(a[2]) * frame.z
            I1.orient_axis(frame, avec, q1)
            I2 = ReferenceFrame(f"K{k}")
            I2.orient_explicit(I1, R0)
            B = ReferenceFrame(f"B{k}")
            bvec = float(b[0]) * I2.x + float(b[1]) * I2.y + float(b[2]) * I2.z
            B.orient_axis(I2, bvec, q2)
            B.set_ang_vel(frame, u1 * avec + u2 * bvec)
            qs += [q1, q2]
            us += [u1, u2]
            kd += [q1.diff() - u1, q2.diff() - u2]
        else:
            p = dynamicsymbols(f"p{k}w p{k}x p{k}y p{k}z")
            w = dynamicsymbols(f"w{k}x w{k}y w{k}z")
            A = vn.spatial.quaternion_matrix(p)
            B = ReferenceFrame(f"B{k}")
            B.orient_explicit(frame, A)
            B.set_ang_vel(frame, w[0] * frame.x + w[1] * frame.y + w[2] * frame.z)
            rate = E_matrix(p).T * sympy.Matrix(w) / 2
            qs += list(p)
            us += list(w)
            kd += [pi.diff() - ri for pi, ri in zip(p, rate)]
        centre = point.locatenew(f"G{k}", -sum(float(link["child"][i]) * (B.x, B.y, B.z)[i]
                                               for i in range(3)))
        centre.v2pt_theory(point, N, B)
        J = link["J"]
        I = inertia(B, J[0, 0], J[1, 1], J[2, 2], J[0, 1], J[1, 2], J[0, 2])
        bodies.append(RigidBody(f"b{k}", centre, B, link["m"], (I, centre)))
        loads.append((centre, link["m"] * (G[0] * N.x + G[1] * N.y + G[2] * N.z)))
        nxt = centre.locatenew(f"P{k + 1}", sum(float(link["parent"][i]) * (B.x, B.y, B.z)[i]
                                                for i in range(3)))
        nxt.v2pt_theory(centre, N, B)
        point, frame, C_prev = nxt, B, C
    km = KanesMethod(N, q_ind=qs, u_ind=us, kd_eqs=kd)
    km.kanes_equations(bodies, loads)
    return km.mass_matrix, km.forcing, qs, us


def _random_state(eom, rng):
    q = rng.uniform(-1.5, 1.5, len(eom.q))
    for name in eom.coordinates:
        if name.endswith(".qw"):
            i = eom.coordinates.index(name)
            p = rng.normal(size=4)
            q[i:i + 4] = p / np.linalg.norm(p)
    return q, rng.normal(size=len(eom.u))


@pytest.mark.parametrize("kinds, turned", [(("revolute", "universal", "spherical"), False),
                                           (("spherical", "revolute"), True)])
def test_open_chain_matches_kane(kinds, turned):
    links = _chain(kinds, seed=len(kinds), turned=turned)
    eom = vecnet_model(links).formulate(coordinates="joint")
    M_k, F_k, qs, us = kane_model(links)
    assert len(eom.q) == len(qs) and len(eom.u) == len(us)
    # Kane's symbols in vecnet's order (the tree walk keeps the chain order)
    q_sub = [sympy.Symbol(f"_q{i}") for i in range(len(qs))]
    u_sub = [sympy.Symbol(f"_u{i}") for i in range(len(us))]
    rep = dict(zip(qs, q_sub)) | dict(zip(us, u_sub))
    kane = sympy.lambdify((q_sub, u_sub), [M_k.xreplace(rep), F_k.xreplace(rep)], cse=True)
    # the symbolic matrices are checked on one chain (compiling them whole is slow)
    mine = sympy.lambdify((list(eom.q), list(eom.u)), [eom.M, eom.Q], cse=True) \
        if kinds == ("spherical", "revolute") else None
    model = eom.compile()
    rng = np.random.default_rng(7)
    for _ in range(5):
        q, u = _random_state(eom, rng)
        Mk, Fk = (np.asarray(x, float) for x in kane(q, u))
        snap = model.evaluate(0.0, q, u)
        scale_M, scale_Q = np.max(np.abs(Mk)), np.max(np.abs(Fk))
        if mine is not None:
            Mm, Qm = (np.asarray(x, float) for x in mine(q, u))
            assert np.max(np.abs(Mm - Mk)) < RTOL * scale_M
            assert np.max(np.abs(Qm.ravel() - Fk.ravel())) < RTOL * scale_Q
        assert np.max(np.abs(snap.M - Mk)) < RTOL * scale_M
        assert np.max(np.abs(snap.Q - Fk.ravel())) < RTOL * scale_Q


def test_joint_and_absolute_coordinates_move_alike():
    links = _chain(("spherical", "universal"), seed=3)
    mech = vecnet_model(links)
    kw = dict(t_eval=np.linspace(0, 0.5, 6), rtol=1e-11, atol=1e-12)
    joint = mech.formulate(coordinates="joint").simulate(
        0.5, velocities={"J1.wx": 0.5, "J1.wy": -1.0, "J1.wz": 2.0, "J2.angle1": 1.5,
                         "J2.angle2": -0.7}, **kw)
    # the same initial motion, given by the bodies' velocities
    given = {f"{b}.{w}": joint[f"{b}.{w}"][0] for b in ("b1", "b2")
             for w in ("omega", "velocity")}
    absolute = mech.formulate(coordinates="absolute").simulate(0.5, velocities=given, **kw)
    for body in ("b1", "b2"):
        assert np.max(np.abs(joint[f"{body}.position"] - absolute[f"{body}.position"])) < 1e-8
        assert np.max(np.abs(joint[f"{body}.omega"] - absolute[f"{body}.omega"])) < 1e-7
    assert np.max(np.abs(joint["energy"] - joint["energy"][0])) < 1e-8
    assert np.max(np.abs(absolute["energy"] - joint["energy"][0])) < 1e-8


def test_coriolis_matrix_gives_the_velocity_terms():
    """Tuan et al.: C*(q) (u kron u) is the negated velocity part of vecnet's Q."""
    links = _chain(("revolute", "universal"), seed=5, turned=False)
    eom = vecnet_model(links).formulate()
    C = eom.coriolis_matrix()
    f = sympy.lambdify((list(eom.q), list(eom.u)), [C, eom.Q], cse=True)
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, u = rng.uniform(-1.5, 1.5, len(eom.q)), rng.normal(size=len(eom.u))
        Cv, Qv = (np.asarray(x, float) for x in f(q, u))
        Q0 = np.asarray(f(q, 0 * u)[1], float)
        velocity = (Qv - Q0).ravel()
        assert np.max(np.abs(Cv @ np.kron(u, u) + velocity)) < 1e-10 * np.max(np.abs(velocity))
