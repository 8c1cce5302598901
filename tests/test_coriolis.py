"""Tuan et al.'s velocity-free Coriolis matrix ``C*`` of spatial open chains: its
definition ``C* = dM/dq - (d vec M/dq)^T / 2`` evaluated here by differentiating ``M``,
and ``C* (u kron u)`` against the velocity terms of sympy.physics.mechanics' KanesMethod
(an independent formulation, built as in test_spatial_kane)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import sympy

import vecnet as vn

sys.path.insert(0, str(Path(__file__).parent))
from test_spatial_kane import _chain, kane_model, vecnet_model  # noqa: E402


def test_five_dof_chain_coriolis_terms_match_kane():
    """Revolute, universal, revolute, revolute: five speeds. Kane's ``forcing`` is
    ``f - h(q, u)`` with ``h`` the Coriolis and centrifugal terms, so at random states
    ``C*(q) (u kron u) = -(forcing(q, u) - forcing(q, 0))``. The links' offsets are
    random; their axes lie along coordinate axes, which keeps Kane's expressions small
    enough to compile in seconds."""
    links = _chain(("revolute", "universal", "revolute", "revolute"), seed=11, turned=False)
    eom = vecnet_model(links).formulate()
    assert len(eom.q) == 5
    C = eom.coriolis_matrix()
    assert C.shape == (5, 25)
    _, forcing, qs, us = kane_model(links)
    q_sub = [sympy.Symbol(f"_q{i}") for i in range(len(qs))]
    u_sub = [sympy.Symbol(f"_u{i}") for i in range(len(us))]
    kane = sympy.lambdify((q_sub, u_sub), forcing.xreplace(
        dict(zip(qs, q_sub)) | dict(zip(us, u_sub))), cse=True)
    mine = sympy.lambdify([list(eom.q)], C, cse=True)
    rng = np.random.default_rng(5)
    for _ in range(5):
        q, u = rng.uniform(-np.pi, np.pi, 5), rng.normal(size=5)
        velocity = (np.asarray(kane(q, u), float) - np.asarray(kane(q, 0 * u), float)).ravel()
        h = np.asarray(mine(q), float) @ np.kron(u, u)
        assert np.max(np.abs(h + velocity)) < 1e-9 * np.max(np.abs(velocity))


def _mixed_chain():
    """A prismatic joint walked against its direction (defined from the body to the
    ground), a cylindrical joint and a revolute joint walked against its direction, at
    random axes and offsets."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(2)
    mech = vn.spatial.Mechanism("mixed", gravity=(0, 0, -9.81))
    previous, at = mech.ground.point(0.1, -0.2, 0.3), np.array([0.1, -0.2, 0.3])
    for k, (kind, backwards) in enumerate((("prismatic", True), ("cylindrical", False),
                                           ("revolute", True))):
        C = Rotation.random(random_state=rng).as_matrix()
        child, parent = rng.uniform(-0.4, 0.4, 3), rng.uniform(-0.4, 0.4, 3)
        centre = at - C @ child
        axes = Rotation.random(random_state=rng).as_matrix()
        body = mech.body(f"b{k}", rng.uniform(0.5, 2.0),
                         axes @ np.diag(rng.uniform(0.5, 1.0, 3)) @ axes.T,
                         position=centre, orientation=C)
        a, b = (body.point(*child), previous) if backwards else (previous, body.point(*child))
        axis = rng.normal(size=3)
        getattr(mech, kind)(f"J{k}", a, b, axis=axis / np.linalg.norm(axis))
        at, previous = centre + C @ parent, body.point(*parent)
    return mech


def test_coriolis_matrix_is_tuans_definition():
    """Every entry: ``C*[i, k n + j] = dM_ij/dq_k - dM_kj/dq_i / 2``, with ``dM/dq``
    by sympy's differentiation of the mass matrix."""
    eom = _mixed_chain().formulate()
    n = len(eom.q)
    assert n == 4
    dM = [eom.M.diff(qk) for qk in eom.q]
    expected = sympy.Matrix(n, n * n, lambda i, c: dM[c // n][i, c % n] - dM[i][c // n, c % n] / 2)
    f = sympy.lambdify([list(eom.q)], [eom.coriolis_matrix(), expected], cse=True)
    rng = np.random.default_rng(4)
    for _ in range(3):
        mine, definition = (np.asarray(x, float) for x in f(rng.uniform(-1.5, 1.5, n)))
        assert np.max(np.abs(mine - definition)) < 1e-12 * np.max(np.abs(definition))


def test_coriolis_matrix_needs_rates_as_speeds():
    mech = vn.spatial.Mechanism("ball")
    bob = mech.body("bob", 1.0, (0.1, 0.1, 0.1), position=(0, 0, -1))
    mech.spherical("S", mech.ground.point(0, 0, 0), bob.point(0, 0, 1))
    with pytest.raises(vn.FormulationError, match="needs q' = u"):
        mech.formulate().coriolis_matrix()
