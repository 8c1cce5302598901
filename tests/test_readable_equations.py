"""Mechanism equations in the recursive Newton–Euler form (vecnet.formulation.recursion, vn.latex/vn.text).

The named quantities of the listing are evaluated back, in order, at random states; the
left-hand sides of its equations of motion must equal ``M u' - Q`` from the compiled
numeric model (its own tree walk, vecnet.numerics) and from the symbolic ``M`` and ``Q``.
"""

import re
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy
from scipy.spatial.transform import Rotation

import vecnet as vn
from vecnet.formulation.recursion import newton_euler
from vecnet.output import teaching

sys.path.insert(0, str(Path(__file__).parent))
from planar_models import four_bar, slider_crank  # noqa: E402
from test_summaries import chain  # noqa: E402


def double_pendulum_3d():
    """The spherical double pendulum of examples/double_pendulum_3d.py, tilted."""
    mech = vn.spatial.Mechanism("double pendulum", gravity=(0, 0, -9.81))
    turn1, turn2 = Rotation.from_euler("y", 0.6), Rotation.from_euler("y", 1.0)
    down1, down2 = turn1.apply((0, 0, -1.0)), turn2.apply((0, 0, -1.0))
    rod1 = mech.body("rod1", 1.0, (1 / 12, 1 / 12, 0.004), position=0.5 * down1,
                     orientation=turn1)
    rod2 = mech.body("rod2", 0.7, (0.7 * 0.64 / 12, 0.7 * 0.64 / 12, 0.003),
                     position=down1 + 0.4 * down2, orientation=turn2)
    mech.spherical("shoulder", mech.ground.point(0, 0, 0), rod1.point(0, 0, 0.5))
    mech.spherical("elbow", rod1.point(0, 0, -0.5), rod2.point(0, 0, 0.4))
    return mech


def spatial_mix():
    """Revolute, prismatic, cylindrical and universal joints in a chain, a ball joint walked
    against its direction (its head nearer the ground), a spring, a damper, a torque in
    body axes and a force, off-diagonal inertia."""
    mech = vn.spatial.Mechanism("mix", gravity=(0.5, -1.0, -9.81))
    J = np.array([[0.2, 0.01, 0.0], [0.01, 0.3, 0.02], [0.0, 0.02, 0.25]])
    b1 = mech.body("b1", 1.0, J, position=(0.3, 0, 0))
    b2 = mech.body("b2", 2.0, (0.1, 0.2, 0.3), position=(0.6, 0.1, 0))
    b3 = mech.body("b3", 0.5, (0.05, 0.06, 0.07), position=(0.6, 0.4, 0.2))
    b4 = mech.body("b4", 0.8, (0.02, 0.03, 0.04), position=(0.9, 0.4, 0.2))
    b5 = mech.body("b5", 0.3, (0.01, 0.01, 0.02), position=(0.9, 0.4, -0.3))
    mech.revolute("R", mech.ground.point(0, 0, 0), b1.point(-0.3, 0, 0), axis=(0, 0, 1))
    mech.prismatic("P", b1.point(0.3, 0, 0), b2.point(0, -0.1, 0), axis=(0, 1, 0))
    mech.cylindrical("C", b2.point(0, 0.3, 0), b3.point(0, 0, -0.2), axis=(0, 0, 1))
    mech.universal("U", b3.point(0.15, 0, 0), b4.point(-0.15, 0, 0))
    mech.spherical("S", b5.point(0, 0, 0.25), b4.point(0, 0, -0.25))
    mech.spring("k", b4.point(0.1, 0, 0), mech.ground.point(1, 1, 1), k=20.0, length=0.5, c=0.3)
    mech.torque("T", b3, (0.1, 0.2, 0.3), body_axes=True)
    mech.force("F", b5.centre, (1.0, 0.0, -2.0))
    return mech


def spatial_joints():
    """A screw, a planar joint, a point on a line and on a plane, a weld, a revolute with a
    torsion spring, and a revolute to the ground closing the loop."""
    mech = vn.spatial.Mechanism("joints", gravity=(0, 0, -9.81))
    b = [mech.body(f"b{i}", 1.0 + i, (0.1, 0.2, 0.25), position=(i * 0.5, 0, 0))
         for i in range(6)]
    mech.screw("sc", mech.ground.point(0, 0, 0), b[0].point(0, 0, 0), axis=(0, 0, 1), pitch=0.1)
    mech.planar_joint("pl", b[0].point(0.2, 0, 0), b[1].point(-0.3, 0, 0))
    mech.point_on_line("pol", b[1].point(0.2, 0, 0), b[2].point(-0.3, 0, 0), axis=(1, 0, 0))
    mech.point_on_plane("pop", b[2].point(0.2, 0, 0), b[3].point(-0.3, 0, 0))
    mech.weld("w", b[3].point(0.25, 0, 0), b[4].point(-0.25, 0, 0))
    mech.revolute("r5", b[4].point(0.25, 0, 0), b[5].point(-0.25, 0, 0), axis=(0, 1, 0))
    mech.rotary_spring("rs", "r5", k=3.0, c=0.2)
    mech.revolute("loop", b[5].point(0.25, 0, 0), mech.ground.point(3.0, 0, 0), axis=(0, 1, 0))
    return mech


def planar_cases():
    return [("four-bar with spring, joint", four_bar(spring=40.0).formulate("joint")),
            ("four-bar with spring, absolute", four_bar(spring=40.0).formulate("absolute")),
            ("slider-crank with torque", slider_crank(torque=2.0).formulate("joint"))]


def spatial_cases():
    pendulum = double_pendulum_3d()
    return [("double pendulum, joint", pendulum.formulate("joint")),
            ("double pendulum, absolute", pendulum.formulate("absolute")),
            ("mixed joints and loads", spatial_mix().formulate("joint")),
            ("mixed joints, absolute", spatial_mix().formulate("absolute")),
            ("screw, planar, point-on-line and -plane, weld, loop",
             spatial_joints().formulate("joint")),
            # body-axis angular speeds: ball joints, free bodies, a point on a line or plane
            ("double pendulum, body axes", pendulum.formulate("joint", speeds="body")),
            ("mixed joints, absolute, body axes",
             spatial_mix().formulate("absolute", speeds="body")),
            ("point-on-line and -plane, body axes",
             spatial_joints().formulate("joint", speeds="body"))]


def random_state(eom, rng):
    q = rng.normal(size=len(eom.q))
    for i, name in enumerate(eom.coordinates):
        if name.endswith(".qw"):
            q[i:i + 4] /= np.linalg.norm(q[i:i + 4])
    return q, rng.normal(size=len(eom.u)), rng.normal(size=len(eom.u))


CASES = planar_cases() + spatial_cases()


@pytest.mark.parametrize("eom", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_the_equations_shown_are_m_u_dot_minus_q_of_the_numeric_model(eom):
    ne = newton_euler(eom)
    rows = sorted(i for eq in ne.equations for i in eq.rows)
    assert rows == list(range(len(eom.u)))             # every speed has its equation once
    model = eom.compile()
    rng = np.random.default_rng(7)
    for _ in range(3):
        q, u, du = random_state(eom, rng)
        M, Q = model.mass_and_forces(0.3, q, u)
        expected = M @ du - Q
        got = ne.residuals(q, u, du, time=0.3)
        assert np.max(np.abs(got - expected)) < 1e-10 * max(1.0, np.max(np.abs(expected)))


def test_symbolic_parameters_against_the_symbolic_m_and_q():
    m, k = vn.Symbol("m"), vn.Symbol("k")
    mech = vn.spatial.Mechanism("p", gravity=(0, 0, -9.81))
    bob = mech.body("bob", m, (0.1, 0.2, 0.3), position=(0.3, 0, -1))
    mech.spherical("ball", mech.ground.point(0, 0, 0), bob.point(-0.3, 0, 1))
    mech.spring("s", bob.point(0.2, 0, 0), mech.ground.point(1, 0, 0), k=k, length=0.2)
    eom = mech.formulate()
    ne = newton_euler(eom)
    values = {"m": 1.7, "k": 30.0}
    rng = np.random.default_rng(3)
    q, u, du = random_state(eom, rng)
    subs = {**dict(zip(eom.q, q)), **dict(zip(eom.u, u)), m: 1.7, k: 30.0}
    M = np.array(eom.M.xreplace(subs).evalf(), dtype=float)
    Q = np.array(eom.Q.xreplace(subs).evalf(), dtype=float).ravel()
    assert np.allclose(ne.residuals(q, u, du, values), M @ du - Q, rtol=0, atol=1e-10)
    # and the listing names the parameters rather than their values
    assert "m_bob = m,  J_bob = diag(0.1, 0.2, 0.3)" in vn.text(eom)


def test_a_pendulum_at_rest_reads_as_the_textbook_one():
    # a point mass m on a massless rod l, released horizontally: m l^2 theta'' = -m g l cos
    mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    bob = mech.body("bob", mass=2.0, inertia=0.0, position=(1.5, 0))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1.5, 0))
    eom = mech.formulate()
    ne = newton_euler(eom)
    for theta, rate, accel in ((0.0, 0.0, 1.0), (0.4, 1.3, -0.2)):
        expected = 2.0 * 1.5**2 * accel + 2.0 * 9.81 * 1.5 * np.cos(theta)
        assert ne.residuals([theta], [rate], [accel])[0] == pytest.approx(expected, abs=1e-12)


# -- the listing -------------------------------------------------------------------------
def test_the_double_pendulum_listing_is_short_and_names_each_step():
    eom = double_pendulum_3d().formulate("joint")
    tex, listing = vn.latex(eom), vn.text(eom)
    assert len(tex) < 20_000 and len(listing) < 20_000
    assert "M" not in eom.__dict__ and "Q" not in eom.__dict__      # never built
    lines = [line.strip() for line in listing.splitlines()]
    # the speeds of the ball joints have no prime; their rates have one
    assert "omega_rod1 = (shoulder.wx, shoulder.wy, shoulder.wz)" in lines
    assert "alpha_rod1 = (shoulder.wx', shoulder.wy', shoulder.wz')" in lines
    assert "omega_rod2 = omega_rod1 + R_rod1 (elbow.wx, elbow.wy, elbow.wz)" in lines
    assert "R_rod2 = R_rod1 Rq(elbow.qw, elbow.qx, elbow.qy, elbow.qz)" in lines
    for line in lines:
        if line.startswith(("omega_", "v_", "r_", "p_rod", "h_rod", "Speeds")) and \
                not line.startswith(("p_rod1'", "p_rod2'", "h_rod1'", "h_rod2'")):
            assert "'" not in line, line
    # Newton-Euler per body and the reactions from the cutsets
    assert "p_rod2' = m_rod2 a_rod2" in lines
    assert "f_shoulder = p_rod1' - m_rod1 g + f_elbow" in lines
    # a ball joint carries no moment: three equations each
    assert "n_shoulder = 0" in lines and "R_rod1^T n_elbow = 0" in lines
    assert "Equations of motion, recursive form (6):" in listing
    # M and Q are not built: the bodies' velocities alone would not fit a page
    assert "M (6 x 6) and the generalized forces Q are left out" in listing
    assert "matrix_form=True lists them in full" in listing
    assert r"\dot{\omega}_{\mathrm{shoulder},x}" in tex and r"\omega_{\mathrm{shoulder},x}" in tex
    assert "'" not in re.search(r"Speeds \(6\)\}.*?u = \(([^)]*)\)", tex, re.S).group(1)


def test_the_listing_grows_linearly_with_the_bodies():
    sizes = {}
    for bodies in (5, 10):
        eom = vn.load_model(chain(bodies)).formulate()
        sizes[bodies] = len(vn.latex(eom))
        assert teaching.summary_reason(eom) is None
        assert "M" not in eom.__dict__                    # M and Q are not built
        listing = vn.text(eom)
        assert f"Equations of motion, recursive form ({3 * bodies}):" in listing
        assert len(re.findall(r"^ *(R_b\d+\^T )?n_J\d+ = 0$", listing, flags=re.M)) == bodies
    assert sizes[10] < 100_000
    assert sizes[10] / sizes[5] < 2.5


def test_small_mechanisms_also_show_m_and_q():
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    bob = mech.body("bob", mass=2.0, inertia=0.0, position=(1, 0))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    eom = mech.formulate()
    listing = vn.text(eom)
    assert "M =" in listing and "Q =" in listing and "n_pin = 0" in listing
    assert listing.index("M =") < listing.index("n_pin = 0")     # M and Q first
    assert "left out" not in listing
    assert "M =" not in vn.text(eom, matrix_form=False)
    assert "left out (matrix_form=False)" in vn.text(eom, matrix_form=False)
    # the full matrices on request, without the recursive form
    full = vn.text(eom, matrix_form=True)
    assert "M =" in full and "n_pin" not in full


def test_loops_add_the_loop_reactions_and_list_the_constraints():
    listing = vn.text(four_bar().formulate("joint"))
    assert "n_P1 = (Phi_u^T lambda)[P1]" in listing
    assert "Phi[P4.x] = " in listing and "Phi[P4.y] = " in listing
    tex = vn.latex(four_bar().formulate("joint"))
    assert r"n_{\mathrm{P1}} &= (\boldsymbol{\Phi}_u^{\mathsf{T}} \lambda)_{\mathrm{P1}}" in tex


@pytest.mark.parametrize("eom", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_latex_is_balanced(eom):
    tex = vn.latex(eom).replace(r"\{", "").replace(r"\}", "")
    assert tex.count("{") == tex.count("}")
    assert tex.count(r"\left") == tex.count(r"\right")
    assert tex.count(r"\begin{") == tex.count(r"\end{")


def test_a_rotor_falls_back_to_the_full_matrices():
    from vecnet.formulation.spatial import SpatialEquations

    mech = vn.spatial.Mechanism("m")
    bob = mech.body("bob", 1.0, (0.1, 0.1, 0.1))
    mech.revolute("J", mech.ground.centre, bob.centre, axis=(0, 0, 1))
    eom = SpatialEquations(mech, rotors={"J": sympy.Rational(1, 2)})
    listing = vn.text(eom)
    assert "M =" in listing and "rotors and port loads" in listing
