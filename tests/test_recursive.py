"""The recursive scheme against the explicit one on random mechanisms with loops.

The explicit path assembles ``M`` from every body's velocity Jacobians and solves the
saddle-point system ``[M, -Phi_u^T; Phi_u, 0]`` for the accelerations and multipliers;
the recursive path runs the articulated-body algorithm along the tree and closes the loops
through ``M^-1 Phi_u^T`` from the same recursion. The two share only the branch motions, so
their agreement at random states checks the recursion (passes, bias terms, projections).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import vecnet as vn
from vecnet.numerics import multibody as mb

PLANAR_KINDS = ("revolute", "prismatic", "slot")
KINDS = ("revolute", "universal", "spherical", "cylindrical", "prismatic", "planar_joint",
         "point_on_line", "point_on_plane", "screw")
CLOSURES = ("spherical", "universal", "revolute", "point_on_plane", "point_on_line")


def random_mechanism(seed: int):
    """A random tree of 2-5 bodies (each hung from ground or from an earlier body by a
    random joint), a spring to ground, and one or two joints closing loops."""
    rng = np.random.default_rng(seed)
    mech = vn.spatial.Mechanism(f"random{seed}", gravity=tuple(rng.normal(size=3)))
    bodies = [mech.ground]
    for k in range(int(rng.integers(2, 6))):
        parent = bodies[int(rng.integers(0, len(bodies)))]
        C = Rotation.random(random_state=rng).as_matrix()
        body = mech.body(f"b{k}", rng.uniform(0.5, 2), rng.uniform(0.04, 0.07, 3),
                         position=rng.normal(size=3), orientation=C)
        at = body.position + C @ rng.uniform(-0.4, 0.4, 3)
        a = parent.point(*(parent.R.T @ (at - parent.position)))
        b = body.point(*(C.T @ (at - body.position)))
        kind = KINDS[int(rng.integers(0, len(KINDS)))]
        axis = rng.normal(size=3)
        if kind == "universal":
            mech.universal(f"J{k}", a, b, axes=(axis, np.cross(axis, rng.normal(size=3))))
        elif kind == "spherical":
            mech.spherical(f"J{k}", a, b)
        elif kind == "planar_joint":
            mech.planar_joint(f"J{k}", a, b, normal=axis)
        elif kind == "screw":
            mech.screw(f"J{k}", a, b, axis, pitch=0.1)
        else:
            getattr(mech, kind)(f"J{k}", a, b, axis)
        bodies.append(body)
    # one spring-damper: its generalized force enters the recursion as an applied force
    mech.spring("k", mech.ground.point(*rng.normal(size=3)), bodies[-1].centre, k=5.0, c=0.3)
    for j in range(int(rng.integers(1, 3))):
        first, second = rng.choice(len(bodies), size=2, replace=False)
        A, B = bodies[int(first)], bodies[int(second)]
        at = rng.normal(size=3)
        a, b = A.point(*(A.R.T @ (at - A.position))), B.point(*(B.R.T @ (at - B.position)))
        kind = CLOSURES[int(rng.integers(0, len(CLOSURES)))]
        axis = rng.normal(size=3)
        if kind == "universal":
            mech.universal(f"L{j}", a, b, axes=(axis, np.cross(axis, rng.normal(size=3))))
        elif kind == "spherical":
            mech.spherical(f"L{j}", a, b)
        else:
            getattr(mech, kind)(f"L{j}", a, b, axis)
    return mech


def well_conditioned_state(model, rng):
    """A random state (not assembled) whose loop equations are well conditioned."""
    for _ in range(20):
        q = mb.normalize(model, rng.normal(size=model.n))
        u = rng.normal(size=mb.speeds(model))
        snap = model.evaluate(0.2, q, u)
        rows = mb.independent_rows(snap.phi_q)
        A = snap.phi_q[rows]
        if np.linalg.cond(A @ np.linalg.solve(snap.M, A.T)) < 1e4:
            break
    return q, u, snap, rows


def assert_paths_agree(model, rng):
    """At a random state where the loop equations are well conditioned, the recursive
    accelerations and multipliers equal the explicit ones to 1e-10, and the
    composite-rigid-body M the one assembled from the bodies' Jacobians to 1e-12."""
    assert model.m   # the loops are closed by cut joints
    q, u, snap, rows = well_conditioned_state(model, rng)
    a, lam = mb.accelerations(snap, rows)
    b, mu = model.accelerations(0.2, q, u, rows)
    assert np.max(np.abs(a - b)) < 1e-10 * max(1.0, np.max(np.abs(a)))
    assert np.max(np.abs(lam - mu)) < 1e-10 * max(1.0, np.max(np.abs(lam)))
    assert np.max(np.abs(model.mass_matrix(q) - snap.M)) < 1e-12 * np.max(np.abs(snap.M))


@pytest.mark.parametrize("seed", range(25))
def test_recursive_and_explicit_accelerations_agree_on_random_loops(seed):
    mech = random_mechanism(seed)
    rng = np.random.default_rng(1000 + seed)
    screwed = any(type(e).__name__ == "SpatialScrew" for e in mech.network.elements)
    for coordinates in ("joint",) if screwed else ("joint", "absolute"):   # a screw is never cut
        assert_paths_agree(mech.formulate(coordinates).compile(), rng)


def random_planar_mechanism(seed: int):
    """The planar counterpart: a random tree of 2-6 bodies on revolute, prismatic and slot
    joints, a spring-damper, a driving torque, one or two revolutes closing loops."""
    rng = np.random.default_rng(seed)
    mech = vn.planar.Mechanism(f"planar{seed}", gravity=tuple(rng.normal(size=2)))
    bodies = [mech.ground]
    for k in range(int(rng.integers(2, 7))):
        parent = bodies[int(rng.integers(0, len(bodies)))]
        body = mech.body(f"b{k}", rng.uniform(0.5, 2), rng.uniform(0.01, 0.1),
                         position=tuple(rng.normal(size=2)), angle=rng.uniform(-3, 3))
        at = rng.normal(size=2)
        kind = PLANAR_KINDS[int(rng.integers(0, len(PLANAR_KINDS)))]
        a, b = parent.point(*parent_local(parent, at)), body.point(*parent_local(body, at))
        if kind == "revolute":
            mech.revolute(f"J{k}", a, b)
        else:
            getattr(mech, kind)(f"J{k}", a, b, axis=tuple(rng.normal(size=2)))
        bodies.append(body)
    mech.spring("k", mech.ground.point(*rng.normal(size=2)), bodies[-1].centre, k=5.0, c=0.3)
    mech.torque("T", bodies[1], 0.7)
    for j in range(int(rng.integers(1, 3))):
        first, second = rng.choice(len(bodies), size=2, replace=False)
        A, B = bodies[int(first)], bodies[int(second)]
        at = rng.normal(size=2)
        mech.revolute(f"L{j}", A.point(*parent_local(A, at)), B.point(*parent_local(B, at)))
    return mech


def parent_local(body, at):
    """The body coordinates of the world point ``at`` (the ground's are the world's)."""
    if not hasattr(body, "angle"):
        return tuple(at)
    c, s = np.cos(body.angle), np.sin(body.angle)
    d = np.asarray(at) - np.asarray(body.position)
    return (c * d[0] + s * d[1], -s * d[0] + c * d[1])


@pytest.mark.parametrize("seed", range(25))
def test_planar_recursive_and_explicit_accelerations_agree_on_random_loops(seed):
    mech = random_planar_mechanism(seed)
    rng = np.random.default_rng(2000 + seed)
    for coordinates in ("joint", "absolute"):
        assert_paths_agree(mech.formulate(coordinates).compile(), rng)
