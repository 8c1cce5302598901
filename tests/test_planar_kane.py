"""Planar open chains against sympy.physics.mechanics (KanesMethod), written independently.

Every system is built twice: in vecnet with joint coordinates (the relative angle of
each pin, the first one relative to the ground; the distance along a slider) and
in sympy.physics.mechanics with ReferenceFrame, Point, RigidBody (inertia about the
mass centre) and KanesMethod with the same generalized coordinates and
``u = q'``. vecnet's ``M q'' = Q`` (gravity and velocity terms in ``Q``) is
compared with Kane's ``mass_matrix u' = forcing`` at random states, and
symbolically for a double pendulum.

Conventions checked on the way: a body's angle is the angle of its frame; a point
``body.point(x, y)`` sits at ``(x, y)`` in the body frame relative to the mass
centre; a revolute joint's coordinate is the angle of its head body minus the angle
of its tail body, so a joint whose edge runs from the outer body to the inner one
has the negated coordinate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
import sympy
from scipy.integrate import solve_ivp
from sympy.physics.mechanics import (
    KanesMethod,
    Point,
    ReferenceFrame,
    RigidBody,
    dynamicsymbols,
    outer,
)

import vecnet as vn

GRAVITY = (0.7, -9.81)  # a sideways component too, so both directions are checked
GROUND_PIN = (0.2, -0.1)
RTOL = 1e-12


@dataclass(frozen=True)
class Link:
    """A rigid link: mass, inertia about the mass centre, the inner and outer pin in body
    coordinates (relative to the mass centre) and the angle of its frame in the initial
    pose."""

    mass: float
    inertia: float
    inner: tuple[float, float]
    outer: tuple[float, float]
    angle: float


# links of different lengths, masses and inertias; mass centres off the pin line
LINKS = (
    Link(1.3, 0.11, (-0.45, 0.02), (0.55, -0.03), -1.2),
    Link(0.8, 0.047, (-0.3, -0.05), (0.42, 0.01), -0.6),
    Link(2.1, 0.23, (-0.6, 0.04), (0.35, 0.0), 0.4),
)


# -- vecnet ------------------------------------------------------------------------
def vecnet_chain(links, reverse=(), gravity=GRAVITY):
    """An open chain of pin-jointed links hanging from GROUND_PIN. Joint k (1-based) is
    "P<k>", from the outer point of link k-1 (the ground for k = 1) to the inner point of
    link k, or the other way round when k is in ``reverse``."""
    mech = vn.planar.Mechanism(f"chain{len(links)}", gravity=gravity)
    pin_body, pin_local = mech.ground, GROUND_PIN
    pin_world = GROUND_PIN
    for k, link in enumerate(links, start=1):
        c, s = math.cos(link.angle), math.sin(link.angle)
        ix, iy = link.inner
        centre = (pin_world[0] - (c * ix - s * iy), pin_world[1] - (s * ix + c * iy))
        body = mech.body(f"b{k}", mass=link.mass, inertia=link.inertia, position=centre,
                         angle=link.angle)
        a, b = pin_body.point(*pin_local), body.point(*link.inner)
        if k in reverse:
            a, b = b, a
        mech.revolute(f"P{k}", a, b)
        ox, oy = link.outer
        pin_body, pin_local = body, link.outer
        pin_world = (centre[0] + c * ox - s * oy, centre[1] + s * ox + c * oy)
    return mech


# -- sympy.physics.mechanics -------------------------------------------------------------
def _vec(frame, xy):
    return xy[0] * frame.x + xy[1] * frame.y


def kane_chain(links, signs=None, gravity=GRAVITY):
    """KanesMethod for the same chain: q_k is the angle of link k's frame relative to the
    previous link's frame (the ground frame for k = 1), times ``signs[k]``; u = q'."""
    n = len(links)
    signs = signs or [1] * n
    q = dynamicsymbols(f"q1:{n + 1}")
    u = dynamicsymbols(f"u1:{n + 1}")
    N = ReferenceFrame("N")
    pin = Point("O")
    pin.set_vel(N, 0)
    parent = N
    bodies, loads = [], []
    for k, link in enumerate(links):
        A = ReferenceFrame(f"A{k + 1}")
        A.orient_axis(parent, parent.z, signs[k] * q[k])
        A.set_ang_vel(parent, signs[k] * u[k] * parent.z)
        G = pin.locatenew(f"G{k + 1}", -_vec(A, link.inner))
        G.v2pt_theory(pin, N, A)
        bodies.append(RigidBody(f"B{k + 1}", G, A, link.mass,
                                (link.inertia * outer(A.z, A.z), G)))
        loads.append((G, link.mass * _vec(N, gravity)))
        pin = G.locatenew(f"P{k + 2}", _vec(A, link.outer))
        pin.v2pt_theory(G, N, A)
        parent = A
    return _kane(N, q, u, bodies, loads)


def _kane(N, q, u, bodies, loads):
    km = KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=[qi.diff() - ui for qi, ui in zip(q, u)])
    km.kanes_equations(bodies, loads)
    return q, u, km.mass_matrix, km.forcing


def numeric(q, u, *matrices):
    """A numpy function of (q, u) giving the matrices."""
    return sympy.lambdify((list(q), list(u)), list(matrices), modules="numpy", cse=True)


def assert_same_equations(eom, kane, states=6, seed=0):
    """vecnet's M and Q equal Kane's mass matrix and forcing at random states (relative
    1e-12), through both the symbolic matrices and the compiled model."""
    kq, ku, kM, kF = kane
    assert not kF.atoms(sympy.Derivative), "Kane's forcing should be in q and u only"
    kane_fn = numeric(kq, ku, kM, kF)
    vn_fn = numeric(eom.q, eom.u, eom.M, eom.Q)
    compiled = eom.compile()
    rng = np.random.default_rng(seed)
    n = len(eom.q)
    for _ in range(states):
        q = rng.uniform(-math.pi, math.pi, n)
        u = rng.uniform(-3.0, 3.0, n)
        M_ref, F_ref = (np.asarray(a, dtype=float) for a in kane_fn(q, u))
        F_ref = F_ref.reshape(n)
        M_sym, Q_sym = (np.asarray(a, dtype=float) for a in vn_fn(q, u))
        snap = compiled.evaluate(0.0, q, u)
        for name, M, Q in (("symbolic", M_sym, Q_sym.reshape(n)), ("compiled", snap.M, snap.Q)):
            assert np.max(np.abs(M - M_ref)) <= RTOL * np.max(np.abs(M_ref)), (name, q, u)
            assert np.max(np.abs(Q - F_ref)) <= RTOL * np.max(np.abs(F_ref)), (name, q, u)


# -- N-link pendulums ---------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3])
def test_n_link_pendulum_matches_kanes_method(n):
    links = LINKS[:n]
    eom = vecnet_chain(links).formulate(coordinates="joint")
    assert eom.coordinates == tuple(f"P{k}.angle" for k in range(1, n + 1))
    assert not len(eom.constraints)
    assert_same_equations(eom, kane_chain(links), seed=n)


def test_reversed_joint_has_the_negated_coordinate():
    # P2 runs from link 2 to link 1: its angle is theta_1 - theta_2
    links = LINKS[:2]
    eom = vecnet_chain(links, reverse={2}).formulate(coordinates="joint")
    assert eom.coordinates == ("P1.angle", "P2.angle")
    assert_same_equations(eom, kane_chain(links, signs=[1, -1]), seed=7)


def test_initial_pose_gives_the_joint_angles_and_body_points():
    links = LINKS[:3]
    eom = vecnet_chain(links).formulate(coordinates="joint")
    q0 = eom.assemble()
    relative = [links[0].angle] + [b.angle - a.angle for a, b in zip(links, links[1:])]
    assert np.allclose(q0, relative, atol=1e-14)
    # at those angles the mass centres and body frames are where the initial pose put them
    at_q0 = dict(zip(eom.q, q0))
    for k, body in enumerate(eom.bodies, start=1):
        assert body["name"] == f"b{k}"
        r = [float(c.xreplace(at_q0)) for c in body["r"]]
        assert np.allclose(r, eom.mechanism.bodies[f"b{k}"].position, atol=1e-14)
        assert float(body["theta"].xreplace(at_q0)) == pytest.approx(links[k - 1].angle, abs=1e-14)


def test_double_pendulum_symbolically_equal_to_kanes_method():
    # exact binary lengths, symbolic masses, inertias and gravity
    m1, m2, J1, J2, g = sympy.symbols("m1 m2 J1 J2 g", positive=True)
    links = (Link(m1, J1, (-0.5, 0.25), (0.75, 0.0), -1.0),
             Link(m2, J2, (-0.375, 0.0), (0.5, 0.125), 0.5))
    gravity = (0, -g)
    eom = vecnet_chain(links, gravity=gravity).formulate(coordinates="joint")
    kq, ku, kM, kF = kane_chain(links, gravity=gravity)
    to_vn = dict(zip(kq, eom.q)) | dict(zip(ku, eom.u))
    kM, kF = kM.subs(to_vn), kF.subs(to_vn)
    exact = lambda e: sympy.nsimplify(e, rational=True)  # noqa: E731  (binary floats: exact)
    for ours, ref in ((eom.M, kM), (eom.Q, kF)):
        diff = (ours.applyfunc(exact) - ref.applyfunc(exact)).applyfunc(
            lambda e: sympy.trigsimp(sympy.expand(sympy.expand_trig(e))))
        assert diff == sympy.zeros(*ref.shape)


# -- a chain with a slider ---------------------------------------------------------------
# ground -P1- rod -S- slider -P3- pendulum; the slider moves along an axis of the rod that
# does not pass through the rod's mass centre, turned by SLIDER_TILT from the rod frame
ROD = Link(1.5, 0.3, (-0.7, 0.05), (0.0, 0.0), -0.4)
SLIDER = Link(0.6, 0.02, (0.1, -0.04), (0.12, 0.08), 0.0)
BOB = Link(0.9, 0.05, (-0.05, 0.3), (0.0, 0.0), -1.3)
RAIL_POINT, RAIL_AXIS, SLIDER_TILT = (-0.2, 0.1), (3.0, 1.0), 0.35


def vecnet_slider_chain():
    mech = vn.planar.Mechanism("slider chain", gravity=GRAVITY)
    c, s = math.cos(ROD.angle), math.sin(ROD.angle)
    ix, iy = ROD.inner
    rod_centre = (GROUND_PIN[0] - (c * ix - s * iy), GROUND_PIN[1] - (s * ix + c * iy))
    rod = mech.body("rod", ROD.mass, ROD.inertia, rod_centre, ROD.angle)
    mech.revolute("P1", mech.ground.point(*GROUND_PIN), rod.point(*ROD.inner))
    # the slider is placed roughly; the branch coordinate is the distance along the rail
    slider = mech.body("slider", SLIDER.mass, SLIDER.inertia, (rod_centre[0] + 0.3, rod_centre[1]),
                       ROD.angle + SLIDER_TILT)
    mech.prismatic("S", rod.point(*RAIL_POINT), slider.point(*SLIDER.inner), axis=RAIL_AXIS)
    bob = mech.body("bob", BOB.mass, BOB.inertia, (rod_centre[0], rod_centre[1] - 0.5), BOB.angle)
    mech.revolute("P3", slider.point(*SLIDER.outer), bob.point(*BOB.inner))
    return mech


def kane_slider_chain():
    q = dynamicsymbols("q1:4")
    u = dynamicsymbols("u1:4")
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    A1 = ReferenceFrame("A1")
    A1.orient_axis(N, N.z, q[0])
    A1.set_ang_vel(N, u[0] * N.z)
    G1 = O.locatenew("G1", -_vec(A1, ROD.inner))
    G1.v2pt_theory(O, N, A1)
    rail = G1.locatenew("R", _vec(A1, RAIL_POINT))
    rail.v2pt_theory(G1, N, A1)
    norm = math.hypot(*RAIL_AXIS)
    e = _vec(A1, (RAIL_AXIS[0] / norm, RAIL_AXIS[1] / norm))
    S = rail.locatenew("S", q[1] * e)
    S.set_vel(A1, u[1] * e)
    S.v1pt_theory(rail, N, A1)
    A2 = ReferenceFrame("A2")
    A2.orient_axis(A1, A1.z, SLIDER_TILT)
    A2.set_ang_vel(A1, 0)
    G2 = S.locatenew("G2", -_vec(A2, SLIDER.inner))
    G2.v2pt_theory(S, N, A2)
    P3 = G2.locatenew("P3", _vec(A2, SLIDER.outer))
    P3.v2pt_theory(G2, N, A2)
    A3 = ReferenceFrame("A3")
    A3.orient_axis(A2, A2.z, q[2])
    A3.set_ang_vel(A2, u[2] * A2.z)
    G3 = P3.locatenew("G3", -_vec(A3, BOB.inner))
    G3.v2pt_theory(P3, N, A3)
    bodies, loads = [], []
    for name, (link, G, A) in {"rod": (ROD, G1, A1), "slider": (SLIDER, G2, A2),
                               "bob": (BOB, G3, A3)}.items():
        bodies.append(RigidBody(name, G, A, link.mass, (link.inertia * outer(A.z, A.z), G)))
        loads.append((G, link.mass * _vec(N, GRAVITY)))
    return _kane(N, q, u, bodies, loads)


def test_chain_with_a_prismatic_joint_matches_kanes_method():
    eom = vecnet_slider_chain().formulate(coordinates="joint")
    assert eom.coordinates == ("P1.angle", "S.distance", "P3.angle")
    assert not len(eom.constraints)
    assert_same_equations(eom, kane_slider_chain(), seed=11)


# -- a simulation against the Kane model -------------------------------------------------
def test_double_pendulum_simulation_matches_kanes_method():
    links = LINKS[:2]
    eom = vecnet_chain(links).formulate(coordinates="joint")
    times = np.linspace(0.0, 2.0, 21)
    res = eom.simulate(2.0, t_eval=times, rtol=1e-10, atol=1e-12)
    kq, ku, kM, kF = kane_chain(links)
    fn = numeric(kq, ku, kM, kF)

    def rhs(_, y):
        M, F = fn(y[:2], y[2:])
        return np.concatenate([y[2:], np.linalg.solve(np.asarray(M, float),
                                                      np.asarray(F, float).ravel())])

    q0 = [links[0].angle, links[1].angle - links[0].angle]
    ref = solve_ivp(rhs, (0.0, 2.0), [*q0, 0.0, 0.0], method="DOP853", t_eval=times,
                    rtol=1e-10, atol=1e-12)
    assert ref.success
    for k in (1, 2):
        assert np.max(np.abs(res[f"P{k}.angle"] - ref.y[k - 1])) < 1e-7
        assert np.max(np.abs(res[f"P{k}.angle'"] - ref.y[k + 1])) < 1e-7
    # body angles are sums of joint angles
    assert np.allclose(res["b2.angle"], res["P1.angle"] + res["P2.angle"], atol=1e-12)
