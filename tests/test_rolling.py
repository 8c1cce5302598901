"""Wheels rolling without slip: velocity (nonholonomic) constraints as edges of the vector
network, checked against results from outside vecnet.

* a planar wheel rolling down an incline: ``a = g sin(alpha) / (1 + I / (m r^2))`` (Newton's
  laws for a body rolling without slip), the contact force from the same balance, and the
  rolling itself (distance rolled = radius times angle turned);
* a thin uniform disc (``A = m r^2 / 4`` about a diameter, ``C = m r^2 / 2`` about the axle)
  rolling upright and straight at speed ``v``: the linearized lean motion about it, by hand
  (Euler's equations, below) and by sympy.physics.mechanics' KanesMethod with
  velocity_constraints, an independent formulation; the lean oscillation of the nonlinear
  simulation; energy conservation;
* a coin rolling steadily in a circle: the steady motion from the angular momentum balance
  about the mass centre (derived in sympy below), whose accelerations vecnet must give and
  which a simulation started on it must keep.

The upright disc by hand: lean ``phi`` (about the direction of travel), heading rate
``psi'`` (positive turning towards the side the disc leans to), spin ``s = v / r`` about
the axle. For small lean the angular momentum about the contact's line of travel and about
the vertical give

    (A + m r^2) phi'' = m g r phi - (C + m r^2) s psi',      A psi'' = C s phi',

so with ``psi' = (C s / A) phi`` (started together) the lean obeys
``(A + m r^2) phi'' + [C (C + m r^2) s^2 / A - m g r] phi = 0``: it oscillates at
``w^2 = (C (C + m r^2) s^2 - A m g r) / (A (A + m r^2))``, for the thin disc
``w^2 = (12 v^2 - 4 g r) / (5 r^2)``, stable above ``v = sqrt(g r / 3)``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import sympy as sm
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
from vecnet.formulation.multibody import StateLinearization

G = 9.81


# -- the plane --------------------------------------------------------------------------
def incline(alpha: float, m: float, inertia_: float, r: float):
    """A wheel on the line through the origin running down at ``alpha``."""
    mech = vn.planar.Mechanism("incline", gravity=(0, -G))
    down = (math.cos(alpha), -math.sin(alpha))
    normal = (math.sin(alpha), math.cos(alpha))
    wheel = mech.body("wheel", mass=m, inertia=inertia_, position=(r * normal[0], r * normal[1]))
    mech.rolling_wheel("contact", wheel, radius=r, direction=down)
    return mech, np.array(down)


@pytest.mark.parametrize("method", ["partition", "dae"])
@pytest.mark.parametrize("share", [0.5, 1.0], ids=["disc", "hoop"])
def test_wheel_rolls_down_an_incline(method, share):
    alpha, m, r = 0.35, 2.0, 0.4
    J = share * m * r**2
    mech, down = incline(alpha, m, J, r)
    eom = mech.formulate()
    times = np.linspace(0.0, 2.0, 9)
    res = eom.simulate(2.0, t_eval=times, method=method, rtol=1e-11, atol=1e-13)
    a = G * math.sin(alpha) / (1 + J / (m * r**2))
    start = np.array([res["wheel.x"][0], res["wheel.y"][0]])
    rolled = (np.column_stack([res["wheel.x"], res["wheel.y"]]) - start) @ down
    assert np.allclose(rolled, a * times**2 / 2, rtol=1e-9, atol=1e-12)
    # rolling: the distance rolled is the radius times the angle turned (clockwise going down)
    turned = res["wheel.angle"] - res["wheel.angle"][0]
    assert np.allclose(rolled, -r * turned, rtol=1e-9, atol=1e-12)
    # the contact force: the normal balance and the friction that makes the wheel turn
    assert np.allclose(res["contact.normal_force"], m * G * math.cos(alpha), rtol=1e-9)
    friction = m * G * math.sin(alpha) - m * a          # up the slope
    assert np.allclose(res["contact.traction"], -friction * down, rtol=1e-9)
    assert np.allclose(res["contact.reaction"] @ down, -friction, rtol=1e-9)
    # the contact is at the wheel's lowest point on the line; the force does no work
    assert np.allclose(res["contact.contact"] @ np.array([-down[1], down[0]]), 0.0, atol=1e-12)
    energy = res["energy"]
    assert np.max(np.abs(energy - energy[0])) < 1e-10 * abs(energy[0])


def test_planar_rows_and_their_kinds():
    mech, _ = incline(0.2, 1.0, 0.02, 0.2)
    eom = mech.formulate()
    assert eom.constraint_names == ("contact.normal",)
    assert eom.velocity_constraint_names == ("contact.tangent",)
    model = eom.compile()
    assert (model.m, model.velocity_rows) == (2, 1)
    assert eom.degrees_of_freedom() == 1   # three speeds less the normal and the no-slip rows


def test_wheel_given_a_push_keeps_rolling_on_the_level():
    """No slip and no rolling resistance: on level ground the wheel keeps its speed, its
    spin matching it, and the contact carries its weight and no traction."""
    mech = vn.planar.Mechanism("level", gravity=(0, -G))
    wheel = mech.body("wheel", mass=3.0, inertia=0.06, position=(0.0, 0.2))
    mech.rolling_wheel("contact", wheel, radius=0.2)
    res = mech.formulate().simulate(1.0, t_eval=[0.0, 1.0], velocities={"wheel.x": 1.5})
    assert res["wheel.omega"][0] == pytest.approx(-7.5, rel=1e-12)
    assert res["wheel.x"][-1] == pytest.approx(1.5, rel=1e-10)
    assert np.allclose(res["contact.normal_force"], 3.0 * G, rtol=1e-10)
    assert np.allclose(res["contact.traction"], 0.0, atol=1e-10)


def test_wheel_builder_refusals():
    mech = vn.planar.Mechanism("m")
    wheel = mech.body("wheel", 1.0, 0.1, position=(0.0, 0.0))
    other = mech.body("other", 1.0, 0.1, position=(1.0, 1.0))
    with pytest.raises(vn.ModelError, match="starts on the line"):
        mech.rolling_wheel("c", wheel, radius=0.5)
    with pytest.raises(vn.ModelError, match="same body 'wheel'"):
        mech.rolling_wheel("c", wheel, radius=0.5, point=wheel.point(0.5, -0.5))
    with pytest.raises(vn.ModelError, match="radius must be positive, got -1$"):
        mech.rolling_wheel("c", other, radius=-1.0)
    with pytest.raises(vn.ModelError, match="a positive number, not the expression r"):
        mech.rolling_wheel("c", other, radius=vn.Symbol("r"))
    space = vn.spatial.Mechanism("s")
    coin = space.body("coin", 1.0, (1.0, 2.0, 1.0), position=(0, 0, 1))
    with pytest.raises(vn.ModelError, match="lies flat"):
        space.rolling_wheel("c", coin, radius=1.0, axis=(0, 0, 1))


# -- the upright disc in space -----------------------------------------------------------
R_DISC, M_DISC = 0.3, 1.5
A_DISC, C_DISC = M_DISC * R_DISC**2 / 4, M_DISC * R_DISC**2 / 2


def lean_rate_squared(v: float) -> float:
    """``w^2`` of the lean of the thin disc rolling upright at speed ``v`` (by hand, above)."""
    return (12 * v**2 - 4 * G * R_DISC) / (5 * R_DISC**2)


def free_disc():
    """The disc as a free body (position and quaternion) standing upright at the origin,
    axle along y: it rolls along x."""
    mech = vn.spatial.Mechanism("disc", gravity=(0, 0, -G))
    disc = mech.body("disc", M_DISC, (A_DISC, C_DISC, A_DISC), position=(0, 0, R_DISC))
    mech.rolling_wheel("contact", disc, radius=R_DISC, axis=(0, 1, 0))
    return mech


def jointed_disc():
    """The disc on a chain of joints whose rates are its speeds (q' = u): the height
    (prismatic, set by the contact), the place and heading on the ground (planar joint),
    the lean (revolute about the direction of travel, x) and the spin (about the axle)."""
    mech = vn.spatial.Mechanism("disc", gravity=(0, 0, -G))
    centre = (0, 0, R_DISC)
    slider, heading, fork = (mech.body(name, 0.0, (0, 0, 0), position=centre)
                             for name in ("slider", "heading", "fork"))
    disc = mech.body("disc", M_DISC, (A_DISC, C_DISC, A_DISC), position=centre)
    mech.prismatic("height", mech.ground.centre, slider.centre, axis=(0, 0, 1))
    mech.planar_joint("ground", slider.centre, heading.centre, normal=(0, 0, 1))
    mech.revolute("lean", heading.centre, fork.centre, axis=(1, 0, 0))
    mech.revolute("spin", fork.centre, disc.centre, axis=(0, 1, 0))
    mech.rolling_wheel("contact", disc, radius=R_DISC)
    return mech


@pytest.fixture(scope="module")
def jointed():
    return jointed_disc().formulate()


def kane_lean_eigenvalues(v: float) -> np.ndarray:
    """The eigenvalues of upright straight rolling at speed ``v`` from sympy's KanesMethod:
    coordinates ``x, y`` (the contact point), heading, lean, spin, all their rates as
    speeds, the two no-slip conditions as velocity_constraints making the rates of ``x``
    and ``y`` dependent. The linear model is the central-difference Jacobian of the
    first-order equations in ``(q, independent speeds)``."""
    q = dynamicsymbols("x y psi phi theta")
    u = dynamicsymbols("u1:6")
    N = ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q[2], N.z])
    L = Y.orientnew("L", "Axis", [q[3], Y.x])
    R = L.orientnew("R", "Axis", [q[4], L.y])
    origin = Point("O")
    origin.set_vel(N, 0)
    centre = origin.locatenew("G", q[0] * N.x + q[1] * N.y + R_DISC * L.z)
    rates = {qi.diff(): ui for qi, ui in zip(q, u)}
    R.set_ang_vel(N, R.ang_vel_in(N).subs(rates))
    centre.set_vel(N, centre.pos_from(origin).dt(N).subs(rates))
    slip = centre.vel(N) + R.ang_vel_in(N).cross(-R_DISC * L.z)
    kane = KanesMethod(N, q_ind=q, u_ind=u[2:], kd_eqs=[a.diff() - b for a, b in zip(q, u)],
                       u_dependent=u[:2],
                       velocity_constraints=[slip.dot(N.x), slip.dot(N.y)])
    body = RigidBody("disc", centre, R, M_DISC, (inertia(L, A_DISC, C_DISC, A_DISC), centre))
    kane.kanes_equations([body], [(centre, -M_DISC * G * N.z)])
    mass = sm.lambdify([q, u], kane.mass_matrix_full)
    forcing = sm.lambdify([q, u], kane.forcing_full)
    constraint = sm.lambdify([q, u], sm.Matrix([slip.dot(N.x), slip.dot(N.y)]).jacobian(u))

    def rhs(x):
        qq, ui = x[:5], x[5:]
        J = constraint(qq, np.zeros(5))          # J u = 0 for the dependent rates
        ud = -np.linalg.solve(J[:, :2], J[:, 2:] @ ui)
        uu = np.concatenate([ud, ui])
        full = np.linalg.solve(mass(qq, uu), forcing(qq, uu)).ravel()
        return full[:8]       # q', then Kane's speeds: the independent ones first

    x0 = np.array([0, 0, 0, 0, 0, 0, 0, v / R_DISC])   # rolling along x: spin v / r
    step = 1e-6
    A = np.column_stack([(rhs(x0 + step * e) - rhs(x0 - step * e)) / (2 * step)
                         for e in np.eye(8)])
    return np.linalg.eigvals(A)


@pytest.mark.parametrize("v", [0.5, 1.0, 2.0, 3.0])
def test_upright_disc_lean_eigenvalues(jointed, v):
    """The linear model of upright straight rolling: one pair of eigenvalues, the lean
    (imaginary above the critical speed sqrt(g r / 3) = 0.99 m/s, real below), and zeros
    (place, heading, spin and a neighbouring steady turn)."""
    lin = jointed.linearize(jointed.steady_motion({"spin.angle'": v / R_DISC}))
    assert isinstance(lin, StateLinearization)
    # five coordinates are free (the height is not), three speeds (lean, turn, roll)
    assert len(lin.states) == 8 and lin.A.shape == (8, 8)
    ev = lin.eigenvalues()
    lean = ev[np.argmax(np.abs(ev))]
    expected = np.sqrt(complex(-lean_rate_squared(v)))
    assert abs(abs(lean) - abs(expected)) < 1e-9 * abs(expected)
    assert np.sort(np.abs(ev))[-2] == pytest.approx(abs(expected), rel=1e-9)
    assert np.all(np.sort(np.abs(ev))[:-2] < 1e-4)
    if v ** 2 > G * R_DISC / 3:
        assert abs(lean.real) < 1e-6 * abs(lean)
    else:
        assert abs(lean.imag) < 1e-6 * abs(lean)
    kane = kane_lean_eigenvalues(v)
    assert np.max(np.abs(kane)) == pytest.approx(abs(expected), rel=1e-9)


def test_disc_lean_oscillation_in_simulation(jointed):
    """The nonlinear motion after a small push on the lean: the lean rate crosses zero
    every half period of the lean's oscillation."""
    v = 2.0
    w = math.sqrt(lean_rate_squared(v))
    period = 2 * math.pi / w
    times = np.linspace(0.0, 3 * period, 3001)
    res = jointed.simulate(times[-1], t_eval=times, rtol=1e-11, atol=1e-13,
                           velocities={"spin.angle'": v / R_DISC, "lean.angle'": 1e-3})
    rate = res["lean.angle'"]
    i = np.nonzero(np.sign(rate[1:]) != np.sign(rate[:-1]))[0]
    crossings = times[i] - rate[i] * (times[i + 1] - times[i]) / (rate[i + 1] - rate[i])
    assert len(crossings) >= 5
    half = np.diff(crossings)
    assert np.allclose(half, period / 2, rtol=1e-7)
    energy = res["energy"]
    assert np.max(np.abs(energy - energy[0])) < 1e-10 * energy[0]


@pytest.mark.parametrize("method, rtol", [("partition", 1e-12), ("dae", 1e-10)])
def test_free_disc_conserves_energy(method, rtol):
    """Rolling, leaning and turning as a free body (position and quaternion): the contact
    force does no work and nothing dissipates, so the energy stays put; the contact keeps
    touching (height of the lowest rim point zero) and does not slide."""
    eom = free_disc().formulate()
    v = 2.0
    res = eom.simulate(4.0, t_eval=np.linspace(0, 4, 41), method=method, rtol=rtol,
                       atol=rtol * 1e-2,
                       velocities={"disc.vx": v, "disc.omega": (0.4, v / R_DISC, 0.3)})
    energy = res["energy"]
    assert np.max(np.abs(energy - energy[0])) < 1e-9 * energy[0]
    assert np.max(np.abs(res["contact.contact"][:, 2])) < 1e-10
    assert np.max(res["constraint residual"]) < 1e-10
    # the rim's material point at the contact is at rest
    model = eom.compile()
    qs = np.array([res[name] for name in eom.coordinates])
    us = np.array([res[name] for name in eom.speed_names])
    for q, u in zip(qs.T, us.T):
        A, b = model.velocity_constraints(0.0, q)
        assert np.max(np.abs(A @ u + b)) < 1e-10
    assert np.all(res["contact.normal_force"] > 0)


def test_upright_disc_contact_force():
    """Rolling straight and upright the disc needs no traction and the ground carries its
    weight; the contact point is below the centre."""
    eom = free_disc().formulate()
    res = eom.simulate(1.0, t_eval=[0.0, 0.5, 1.0], velocities={"disc.vx": 1.5,
                                                                "disc.omega": (0, 5.0, 0)})
    assert np.allclose(res["contact.normal_force"], M_DISC * G, rtol=1e-10)
    assert np.allclose(res["contact.traction"], 0.0, atol=1e-10)
    assert np.allclose(res["contact.reaction"], [0, 0, M_DISC * G], atol=1e-9)
    assert np.allclose(res["contact.contact"][:, :2], res["disc.position"][:, :2], atol=1e-12)
    assert np.allclose(res["disc.x"], 1.5 * res.t, rtol=1e-10)


# -- a coin rolling in a circle --------------------------------------------------------------
def steady_circle(lean: float, radius: float) -> tuple[float, float]:
    """``(Omega, s)``: the turning rate about the vertical and the spin about the axle of the
    thin disc rolling steadily with its centre on a circle of ``radius``, leaning in by
    ``lean``, from the balance of angular momentum about the mass centre.

    At the instant shown the disc moves along +x about a centre of turning on +y; ``w`` is
    the unit vector from the contact to the disc's centre, ``e`` the axle:
    ``w = (0, sin b, cos b)``, ``e = (0, cos b, -sin b)``, ``omega = Omega z + s e``. No slip
    (the contact at rest) and the centre on its circle give ``v_G = omega x r w =
    Omega radius x``; in steady motion every vector turns with ``Omega z``, so
    ``H' = Omega z x H`` with ``H = A omega + (C - A)(e . omega) e``, and the contact force
    ``F = m (Omega z x v_G) + m g z`` acting at ``-r w`` from the centre must supply it."""
    Om, s = sm.symbols("Omega s", real=True)
    b, r, m, A, C = (sm.nsimplify(x) for x in (lean, R_DISC, M_DISC, A_DISC, C_DISC))
    z, x = sm.Matrix([0, 0, 1]), sm.Matrix([1, 0, 0])
    w = sm.Matrix([0, sm.sin(b), sm.cos(b)])
    e = sm.Matrix([0, sm.cos(b), -sm.sin(b)])
    omega = Om * z + s * e
    vG = omega.cross(r * w)
    rolling = sm.solve(vG.dot(x) - Om * sm.nsimplify(radius), s)[0]
    H = A * omega + (C - A) * e.dot(omega) * e
    F = m * (Om * z).cross(vG) + m * sm.nsimplify(G) * z
    balance = ((Om * z).cross(H) - (-r * w).cross(F)).subs(s, rolling)
    equation = sm.simplify(balance[0])
    assert sm.simplify(balance[1]) == 0 and sm.simplify(balance[2]) == 0
    roots = [complex(x) for x in sm.solve(equation, Om)]
    Omega = max(x.real for x in roots if abs(x.imag) < 1e-12)
    return Omega, float(rolling.subs(Om, Omega))


def test_steady_circle_closed_form_limit():
    """Far from the centre of turning the balance tends to the textbook
    ``tan b = (1 + C / (m r^2)) v^2 / (g R) = 3 v^2 / (2 g R)`` for the thin disc."""
    lean, radius = 0.02, 200.0
    Omega, _ = steady_circle(lean, radius)
    v = Omega * radius
    assert math.tan(lean) == pytest.approx(1.5 * v**2 / (G * radius), rel=1e-2)


def circling_coin(lean: float, radius: float):
    """The free disc placed on the steady circle (its centre at ``(0, r sin b, r cos b)``,
    turning about ``(0, radius + r sin b, 0)``) with the speeds of the steady motion."""
    Omega, s = steady_circle(lean, radius)
    mech = vn.spatial.Mechanism("coin", gravity=(0, 0, -G))
    turn = Rotation.from_rotvec([-lean, 0, 0]).as_matrix()     # axle y -> e
    centre = (0.0, R_DISC * math.sin(lean), R_DISC * math.cos(lean))
    coin = mech.body("coin", M_DISC, (A_DISC, C_DISC, A_DISC), position=centre,
                     orientation=turn)
    axle = turn @ np.array([0.0, 1.0, 0.0])
    mech.rolling_wheel("contact", coin, radius=R_DISC, axis=axle)
    omega = Omega * np.array([0, 0, 1.0]) + s * axle
    velocities = {"coin.omega": tuple(omega), "coin.vx": Omega * radius}
    return mech.formulate(), velocities, Omega, np.array([0.0, R_DISC * math.sin(lean)
                                                         + radius, 0.0])


@pytest.mark.parametrize("lean, radius", [(0.3, 0.5), (0.6, 0.2)])
def test_coin_rolls_steadily_in_a_circle(lean, radius):
    eom, velocities, Omega, middle = circling_coin(lean, radius)
    model = eom.compile()
    point = eom.steady_motion(velocities)
    # the speeds the velocities set are those of the steady motion: centre along x
    assert point["coin.velocity"] == pytest.approx([Omega * radius, 0, 0], abs=1e-12)
    # vecnet's accelerations are the steady motion's: the centre's centripetal one and
    # the angular velocity turning with Omega about the vertical
    kin = model.kinematics(point.q, point.u)
    k = model.row[model.node["coin"]]
    v, omega = kin.v[k], kin.w[k]
    spin = np.array([0, 0, Omega])
    assert kin.Jv[k] @ point.a + kin.gv[k] == pytest.approx(np.cross(spin, v),
                                                                  abs=1e-10)
    assert kin.Jw[k] @ point.a + kin.gw[k] == pytest.approx(np.cross(spin, omega),
                                                                  abs=1e-10)
    # and a simulation started on it stays on it over a turn
    period = 2 * math.pi / Omega
    res = eom.simulate(period, t_eval=np.linspace(0, period, 9), rtol=1e-11, atol=1e-13,
                       velocities=velocities)
    axle = np.array([Rotation.from_quat(np.roll(p, -1)).apply([0, 1, 0])
                     for p in res["coin.orientation"]])
    assert np.allclose(np.arcsin(-axle[:, 2]), lean, atol=1e-7)
    distance = np.linalg.norm(res["coin.position"][:, :2] - middle[:2], axis=1)
    assert np.allclose(distance, radius, atol=1e-7)
    assert np.allclose(res["coin.position"][-1], res["coin.position"][0], atol=1e-6)
    assert np.allclose(res["coin.omega"][:, 2], res["coin.omega"][0, 2], atol=1e-7)


@pytest.mark.parametrize("dimension", ["plane", "space"])
def test_rows_are_the_derivatives_they_claim(dimension):
    """At states off the motion (random coordinates and speeds): the position row's
    Jacobian is its rate along ``q' = N u``, and every row's acceleration term ``c`` is
    ``-d(A u)/dt`` with the speeds held, by central differences along the motion."""
    from vecnet.numerics import multibody as mb

    rng = np.random.default_rng(7)
    if dimension == "plane":
        eom = incline(0.35, 2.0, 0.08, 0.4)[0].formulate()
    else:
        eom = free_disc().formulate()
    model = eom.compile()
    held = model.m - model.velocity_rows
    h = 1e-6
    for _ in range(5):
        q = mb.normalize(model, rng.normal(size=model.n))
        u = rng.normal(size=model.nu)
        snap = model.evaluate(0.0, q, u)
        ahead, behind = mb.displace(model, q, h * u), mb.displace(model, q, -h * u)
        rate = (model.constraints(0.0, ahead)[0] - model.constraints(0.0, behind)[0]) / (2 * h)
        assert rate == pytest.approx(snap.phi_q[:held] @ u, abs=1e-8)
        change = (model.velocity_constraints(0.0, ahead)[0] @ u
                  - model.velocity_constraints(0.0, behind)[0] @ u) / (2 * h)
        assert change == pytest.approx(-snap.c, abs=1e-7)
        assert np.all(snap.phi[held:] == 0)


def test_planar_wheel_linear_model_with_a_torque():
    """A wheel on level ground driven by a torque ``T`` (counter-clockwise): rolling without
    slip, ``(J + m r^2) omega' = T`` and the centre moves by ``-r`` times the turn. The
    first-order model holds the free coordinates (the height is set by the contact) and one
    speed; every eigenvalue is zero (nothing pulls the wheel back)."""
    m, J, r = 3.0, 0.06, 0.2
    mech = vn.planar.Mechanism("level", gravity=(0, -G))
    wheel = mech.body("wheel", mass=m, inertia=J, position=(0.0, r))
    mech.rolling_wheel("contact", wheel, radius=r)
    mech.torque("T", wheel, 0.0)
    eom = mech.formulate()
    lin = eom.linearize(eom.steady_motion({"wheel.x": 1.0}))
    assert isinstance(lin, StateLinearization)
    assert len(lin.states) == 3 and lin.inputs == ("T",)
    assert sorted(lin.states[:2]) == ["wheel.angle", "wheel.x"]
    assert np.allclose(lin.eigenvalues(), 0.0, atol=1e-6)
    x = lin.C[eom.coordinates.index("wheel.x")]
    angle = lin.C[eom.coordinates.index("wheel.angle")]
    # a unit torque accelerates the independent speed: the turn's or the centre's rate
    expected = 1 / (J + m * r**2)
    speed = lin.states[2]
    assert lin.B[2, 0] == pytest.approx(expected if speed == "wheel.angle'" else -r * expected,
                                        rel=1e-10)
    assert np.allclose(lin.C[eom.coordinates.index("wheel.y")], 0.0, atol=1e-9)
    assert x[lin.states.index("wheel.x")] == pytest.approx(1.0)
    assert angle[lin.states.index("wheel.angle")] == pytest.approx(1.0)
    assert lin.to_control().ninputs == 1


@pytest.mark.parametrize("dimension", ["plane", "space"])
def test_rolling_wheels_in_model_files(tmp_path, dimension):
    """A mechanism with a rolling wheel saves to a model file and reads back into the same
    motion; a wheel's entry takes no 'between'."""
    from vecnet.io import load_model, save_model

    if dimension == "plane":
        mech = incline(0.35, 2.0, 0.08, 0.4)[0]
        velocities: dict = {}
        names = ["wheel.x", "wheel.y", "wheel.angle", "contact.normal_force"]
    else:
        mech = free_disc()
        velocities = {"disc.vx": 2.0, "disc.omega": (0.4, 2.0 / R_DISC, 0.3)}
        names = ["disc.position", "disc.orientation", "contact.reaction"]
    save_model(mech, tmp_path / "wheel.json")
    model = load_model(tmp_path / "wheel.json")
    times = np.linspace(0, 1, 5)
    a = mech.formulate().simulate(1.0, t_eval=times, velocities=velocities)
    b = model.formulate().simulate(1.0, t_eval=times, velocities=velocities)
    for name in names:
        assert np.max(np.abs(a[name] - b[name])) < 1e-12, name
    doc = json.loads((tmp_path / "wheel.json").read_text())
    entry = doc["joints"][0]
    assert entry["type"] == "rolling_wheel" and "between" not in entry
    entry["between"] = ["ground", entry["wheel"]]
    with pytest.raises(vn.ModelFileError):
        load_model(doc)


def test_eccentric_wheel_rocks_on_the_level():
    """A wheel whose mass centre sits off its geometric centre (the contact edge's head is a
    point of its body) rocks back and forth when released on level ground: the centre
    rolls (it moves by minus the radius times the turn), nothing slips or dissipates, so
    the energy stays put, and the turn swings between the release angle and its mirror
    image about the balanced pose (the mass centre below the centre)."""
    m, J, r, e, tilt = 2.0, 0.05, 0.3, 0.1, 0.8
    mech = vn.planar.Mechanism("rocker", gravity=(0, -G))
    centre = np.array([0.0, r])
    # the mass centre e below the geometric centre, turned by tilt about it
    offset = e * np.array([math.sin(tilt), -math.cos(tilt)])
    wheel = mech.body("wheel", mass=m, inertia=J, position=tuple(centre + offset), angle=tilt)
    hub = wheel.point(*(np.array([[math.cos(tilt), math.sin(tilt)],
                                  [-math.sin(tilt), math.cos(tilt)]]) @ -offset), name="hub")
    mech.rolling_wheel("contact", hub, radius=r)
    eom = mech.formulate()
    times = np.linspace(0.0, 4.0, 401)
    res = eom.simulate(4.0, t_eval=times, rtol=1e-11, atol=1e-13)
    energy = res["energy"]
    assert np.max(np.abs(energy - energy[0])) < 1e-10 * abs(energy[0])
    turn = res["wheel.angle"]
    c, s = np.cos(turn), np.sin(turn)
    (a, b) = hub.local
    hub_x = res["wheel.x"] + c * a - s * b
    hub_y = res["wheel.y"] + s * a + c * b
    assert np.allclose(hub_x - hub_x[0], -r * (turn - tilt), atol=1e-10)
    assert np.allclose(hub_y, r, atol=1e-12)
    assert res["wheel.angle"].min() == pytest.approx(-tilt, abs=1e-3)
    assert res["wheel.angle"].max() == pytest.approx(tilt, abs=1e-12)
