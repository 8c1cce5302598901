"""The tree walk's Jacobians, convective terms, mass matrix and body forces against
differentiation of the node positions, on random tree-shaped mechanisms with pins and
sliders (a slider's axis turns with its body, so Coriolis terms appear).

The walk builds Jacobian columns and ``J' q'`` along the tree, and the mass matrix and
forces from frame-wise dot products (cosines and sines of angle differences); here
the same quantities come from ``d r / d q`` of the world positions by sympy and from
``sum m J^T J``, evaluated at a random state.
"""

from __future__ import annotations

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import vecnet as vn

GRAVITY = (0.4, -9.81)

offsets = st.tuples(st.floats(-1, 1), st.floats(-1, 1))
joints = st.tuples(st.sampled_from(["revolute", "prismatic"]),
                   st.integers(0, 10),                     # parent (modulo the bodies so far)
                   offsets, offsets,                       # pin in the parent, pin in the body
                   st.floats(0.1, 3.0),                    # axis angle of a slider
                   st.floats(0.5, 3.0), st.floats(0.05, 1.0))  # mass, inertia


def build(spec) -> vn.planar.Mechanism:
    """Bodies joined to the ground or to an earlier body, all initially at the origin."""
    mech = vn.planar.Mechanism("random", gravity=GRAVITY)
    parents = [mech.ground]
    for k, (kind, parent, a, b, axis, m, J) in enumerate(spec):
        body = mech.body(f"b{k}", mass=m, inertia=J)
        tail = parents[parent % len(parents)]
        pin_a, pin_b = tail.point(*a), body.point(*b)
        if kind == "revolute":
            mech.revolute(f"j{k}", pin_a, pin_b)
        else:
            mech.prismatic(f"j{k}", pin_a, pin_b, axis=(np.cos(axis), np.sin(axis)))
        parents.append(body)
    return mech


@settings(max_examples=25, deadline=None)
@given(st.lists(joints, min_size=1, max_size=3), st.integers(0, 2**32 - 1))
def test_walk_agrees_with_differentiated_positions(spec, seed):
    eom = build(spec).formulate(coordinates="joint")
    q, u, n = list(eom.q), list(eom.u), len(eom.q)
    rng = np.random.default_rng(seed)
    state = dict(zip(q + u, rng.uniform(-1.5, 1.5, 2 * n)))

    def value(expr):
        return np.array(sympy.Matrix(expr).xreplace(state).evalf(), dtype=float)

    M_ref, F_ref = np.zeros((n, n)), np.zeros(n)
    for body in eom.bodies:
        node = body["name"]
        r = eom.node_position[node]
        J = r.jacobian(q)
        gamma = (J * sympy.Matrix(u)).jacobian(q) * sympy.Matrix(u)   # J' q'
        Jt = sympy.Matrix([body["theta"]]).jacobian(q)
        walk_J = sympy.Matrix(eom.node_position_jacobian[node])
        np.testing.assert_allclose(value(walk_J), value(J), atol=1e-12)
        np.testing.assert_allclose(value(sympy.Matrix(eom.node_position_convective[node])),
                                   value(gamma), atol=1e-11)
        Jv, Jtv, gv = value(J), value(Jt), value(gamma)[:, 0]
        m, inertia = float(body["m"]), float(body["J"])
        M_ref += m * Jv.T @ Jv + inertia * Jtv.T @ Jtv
        F_ref += m * Jv.T @ (np.array(GRAVITY) - gv)
    np.testing.assert_allclose(value(eom.M), M_ref, atol=1e-11)
    np.testing.assert_allclose(value(eom.body_forces)[:, 0], F_ref, atol=1e-10)
    np.testing.assert_allclose(value(eom.M), value(eom.M).T, atol=0)
