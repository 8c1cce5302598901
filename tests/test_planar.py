"""Planar vector networks against facts from outside the formulation."""

import numpy as np
import pytest
import scipy.integrate
import sympy

import vecnet as vn
from planar_models import four_bar, link, pendulum, slider_crank


def test_pendulum_equation_of_motion():
    """(J + m l^2) beta'' + b beta' + k beta + m g l sin(beta) = 0 (Thompson)."""
    m, J, l, k, b, g = 2.0, 0.3, 0.8, 5.0, 0.4, 9.81
    eom = pendulum(m, J, l, k, b, g=g).formulate("joint")
    assert eom.coordinates == ("pin.angle",)
    model = eom.compile()
    rng = np.random.default_rng(1)
    for beta, rate in rng.uniform(-2, 2, size=(5, 2)):
        snap = model.evaluate(0.0, np.array([beta]), np.array([rate]))
        assert snap.M[0, 0] == pytest.approx(J + m * l**2, rel=1e-13)
        assert snap.Q[0] == pytest.approx(-b * rate - k * beta - m * g * l * np.sin(beta), rel=1e-12)


@pytest.mark.parametrize("build, names, t_end", [
    (lambda: pendulum(k=3.0, c=0.2), ["bob.angle", "bob.x"], 3.0),
    (lambda: four_bar(), ["crank.angle", "rocker.angle", "coupler.x"], 2.0),
    (lambda: slider_crank(torque=2.0), ["crank.angle", "slider.x"], 1.0),
])
def test_absolute_and_joint_coordinates_give_the_same_motion(build, names, t_end):
    mech = build()
    ts = np.linspace(0, t_end, 21)
    joint = mech.formulate("joint").simulate(t_end, t_eval=ts, rtol=1e-10, atol=1e-12)
    absolute = mech.formulate("absolute").simulate(t_end, t_eval=ts, rtol=1e-10, atol=1e-12)
    for name in names:
        assert np.max(np.abs(joint[name] - absolute[name])) < 1e-6, name


def double_pendulum():
    mech = vn.planar.Mechanism("double", gravity=(0, -9.81))
    upper, u0, u1 = link(mech, "upper", (0, 0), (1.0, 0.3), 1.0)
    lower, l0, l1 = link(mech, "lower", (1.0, 0.3), (1.5, 1.0), 0.7)
    mech.revolute("P1", mech.ground.point(0, 0), u0)
    mech.revolute("P2", u1, l0)
    return mech


@pytest.mark.parametrize("build", [four_bar, double_pendulum], ids=["four-bar", "double pendulum"])
@pytest.mark.parametrize("method", ["partition", "dae"])
def test_conservative_motion_keeps_energy_and_constraints(build, method):
    eom = build().formulate("joint")
    res = eom.simulate(10.0, t_eval=np.linspace(0, 10, 101), method=method, rtol=1e-10, atol=1e-12)
    energy = res["energy"]
    scale = np.max(np.abs(res["kinetic"])) + np.max(np.abs(res["potential"]))
    assert np.ptp(energy) / scale < 1e-6
    assert np.max(res["constraint residual"]) < 1e-8
    assert np.ptp(res["kinetic"]) > 0.1 * scale  # it really moved


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_hanging_pendulum_pin_carries_its_weight(coordinates):
    m, g = 2.0, 9.81
    res = pendulum(m=m, beta0=0.0, g=g).formulate(coordinates).simulate(1.0, t_eval=[0.0, 1.0])
    assert np.allclose(res["pin.reaction"], [[0.0, m * g]] * 2, atol=1e-9)
    assert np.allclose(res["pin.reaction_torque"], 0.0, atol=1e-9)


def test_slider_crank_driver_power_is_the_rate_of_energy():
    omega = 3.0
    eom = slider_crank(drive=0.7 + omega * vn.t).formulate("joint")
    ts = np.linspace(0.0, 2.0, 2001)
    res = eom.inverse_dynamics(ts)
    power = res["D.effort"] * omega                 # driver torque times crank speed
    rate = np.gradient(res["energy"], ts)           # finite differences of the total energy
    inner = slice(5, -5)
    assert np.max(np.abs(power[inner] - rate[inner])) < 1e-4 * np.max(np.abs(power))
    # the slider follows the crank: x = r cos a + sqrt(L^2 - r^2 sin^2 a)
    a = 0.7 + omega * ts
    assert np.allclose(res["slider.x"], 0.3 * np.cos(a) + np.sqrt(1 - 0.09 * np.sin(a) ** 2),
                       atol=1e-10)


def test_pendulum_small_oscillation_frequency():
    m, J, l, k, c, g = 2.0, 0.3, 0.8, 5.0, 0.0, 9.81
    eom = pendulum(m, J, l, k, c, beta0=0.3, g=g).formulate("absolute")
    point = eom.equilibrium()
    assert point["bob.angle"] == pytest.approx(0.0, abs=1e-10)
    lin = eom.linearize(point)
    assert lin.natural_frequencies()[0] == pytest.approx(np.sqrt((k + m * g * l) / (J + m * l**2)),
                                                          rel=1e-8)


def test_pendulum_torque_to_angle_transfer_function():
    """Thompson's pendulum driven by a hinge torque tau: (J + m l^2) s^2 + c s + k + m g l
    is the denominator of beta / tau. Absolute coordinates, so the null space is used."""
    m, J, l, k, c, g = 2.0, 0.3, 0.8, 5.0, 0.7, 9.81
    mech = pendulum(m, J, l, k, c, beta0=0.3, g=g)
    mech.torque("tau", mech.bodies["bob"], 0.0)
    eom = mech.formulate("absolute")
    lin = eom.linearize(eom.equilibrium())
    assert lin.inputs == ("tau",)
    angle = lin.basis[eom.coordinates.index("bob.angle")]
    for s in (0.3j, 1.7 + 2.0j, -0.4):
        H = angle @ np.linalg.solve(lin.M * s**2 + lin.C * s + lin.K, lin.B)
        assert H[0] == pytest.approx(1 / ((J + m * l**2) * s**2 + c * s + k + m * g * l), rel=1e-7)


def test_four_bar_force_input_does_virtual_work():
    """B of a force on the coupler: the power of a unit force equals the velocity of its
    point, here from differentiating the point's position symbolically."""
    mech = four_bar(spring=200.0)
    coupler = mech.bodies["coupler"]
    point = coupler.point(0.2, 0.1)
    mech.force("F", point, (0.0, 0.0))
    eom = mech.formulate("joint")
    op = eom.equilibrium()
    lin = eom.linearize(op)
    assert lin.inputs == ("F.x", "F.y")
    position = eom.node_position[point.node]
    J = np.array(position.jacobian(eom.q).subs(dict(zip(eom.q, op.q))), dtype=float)
    np.testing.assert_allclose(lin.B, (J @ lin.basis).T, atol=1e-12)


def test_four_bar_linearization_matches_finite_differences():
    eom = four_bar(spring=200.0).formulate("joint")
    point = eom.equilibrium()
    lin = eom.linearize(point)
    model = eom.compile()
    # the nonlinear model in one independent coordinate z = crank angle, the others from
    # the loop closure; accelerations from the full equations with the multipliers
    from vecnet.numerics.multibody import Partition as _Partition
    from vecnet.numerics.multibody import accelerations

    part = _Partition(model, 0.0, point.q)

    def rhs(z):
        q = point.q.copy()
        q[part.ind] = z[:1]
        qf, uf = part.project(0.0, q, z[1:])
        a, _ = accelerations(model.evaluate(0.0, qf, uf), part.rows)
        return np.concatenate([z[1:], a[part.ind]])

    z0 = np.array([point.q[part.ind][0], 0.0])
    h = 1e-6
    jac = np.column_stack([(rhs(z0 + h * e) - rhs(z0 - h * e)) / (2 * h) for e in np.eye(2)])
    assert np.allclose(np.sort_complex(np.linalg.eigvals(jac)), np.sort_complex(lin.eigenvalues()),
                       rtol=1e-5)
    assert np.all(np.abs(lin.eigenvalues().imag) > 0)  # a stable oscillation about equilibrium


def test_parallelogram_with_a_redundant_link_moves_with_one_degree_of_freedom():
    mech = vn.planar.Mechanism("parallelogram", gravity=(0, -9.81))
    cranks = []
    for i, x in enumerate((0.0, 1.0, 2.0)):      # three parallel cranks of length 1
        body, p0, p1 = link(mech, f"crank{i}", (x, 0.0), (x + 0.6, 0.8), 1.0)
        mech.revolute(f"G{i}", mech.ground.point(x, 0.0), p0)
        cranks.append(p1)
    coupler = mech.body("coupler", mass=2.0, inertia=0.7, position=(1.6, 0.8), angle=0.0)
    for i, p in enumerate(cranks):
        mech.revolute(f"C{i}", p, coupler.point(-1.0 + i, 0.0))
    bodies, pins = 4, 6
    assert 3 * bodies - 2 * pins == 0                   # Grubler: no mobility
    eom = mech.formulate("joint")
    assert eom.degrees_of_freedom() == 1                # the rank finds the redundant loop
    res = eom.simulate(1.0, t_eval=np.linspace(0, 1, 11), rtol=1e-9, atol=1e-11)
    assert np.ptp(res["crank0.angle"]) > 0.1
    assert np.allclose(res["crank0.angle"], res["crank2.angle"], atol=1e-8)
    assert np.max(res["constraint residual"]) < 1e-8


def test_bad_mechanisms():
    mech = vn.planar.Mechanism("m")
    a = mech.body("a", mass=1.0, inertia=0.1, position=(1, 0))
    mech.revolute("P", mech.ground.point(0, 0), a.point(-1, 0))
    mech.body("loose", mass=1.0, inertia=0.1, position=(3, 0))
    with pytest.raises(vn.ModelError, match="body 'loose' is joined to nothing"):
        mech.formulate()
    with pytest.raises(vn.ModelError, match="two points of the same body 'a'"):
        mech.revolute("Q", a.point(1, 0), a.point(0.5, 0))

    far = vn.planar.Mechanism("far")
    b = far.body("b", mass=1.0, inertia=0.1, position=(1, 0))
    far.revolute("P1", far.ground.point(0, 0), b.point(-1, 0))
    far.revolute("P2", b.point(1, 0), far.ground.point(5, 0))   # a 2 m link, pins 5 m apart
    with pytest.raises(vn.FormulationError, match="cannot be assembled.*P2"):
        far.formulate().assemble()

    locked = vn.planar.Mechanism("locked")
    c = locked.body("c", mass=1.0, inertia=0.1, position=(1, 0))
    locked.revolute("L1", locked.ground.point(0, 0), c.point(-1, 0))
    locked.revolute("L2", c.point(1, 0), locked.ground.point(2, 0))
    with pytest.raises(vn.FormulationError, match="locked.*L2"):
        locked.formulate().simulate(1.0)

    with pytest.raises(vn.ModelError, match="already has something named 'L1'"):
        locked.revolute("L1", locked.ground.point(0, 1), c.point(0, 1))
    with pytest.raises(vn.UnknownNameError):
        locked.drive("D", "nope", 1.0)


def test_massless_offset_slider_crank_driven_at_constant_speed_gives_textbook_statics():
    """Crank r and rod l without mass, a slider of mass m on the line y = e pushed back by a
    load P, the crank turned at constant speed w. The rod is a two-force member: its force
    on the slider is k u along u = (B - A) / l; the slider's x equation gives
    k u_x - P = m x_B''; the same force passes through both pins to the ground, and the
    moment of the rod's pull about O is the driver torque T = k (A x u)."""
    r, l, e, m, P, g, w, a0 = 0.1, 0.35, 0.03, 2.0, 50.0, 9.81, 12.0, 0.4
    mech = vn.planar.Mechanism("massless", gravity=(0, -g))
    A0 = np.array([r * np.cos(a0), r * np.sin(a0)])
    B0 = np.array([A0[0] + np.sqrt(l**2 - (e - A0[1]) ** 2), e])
    crank = mech.body("crank", mass=0.0, inertia=0.0, position=A0 / 2, angle=a0)
    rod = mech.body("rod", mass=0.0, inertia=0.0, position=(A0 + B0) / 2)
    slider = mech.body("slider", mass=m, inertia=0.01, position=B0)
    mech.revolute("O", mech.ground.point(0, 0), crank.point(-r / 2, 0))
    mech.revolute("A", crank.point(r / 2, 0), rod.point(*(A0 - B0) / 2))
    mech.revolute("B", rod.point(*(B0 - A0) / 2), slider.centre)
    mech.prismatic("S", mech.ground.point(0, e), slider.centre, axis=(1, 0))
    mech.force("P", slider.centre, (-P, 0.0))
    mech.drive("D", "O", a0 + w * vn.t)
    ts = np.linspace(0.0, 0.5, 41)
    res = mech.formulate("joint").inverse_dynamics(ts)

    time = sympy.Symbol("time")
    angle = a0 + w * time
    xB = r * sympy.cos(angle) + sympy.sqrt(l**2 - (e - r * sympy.sin(angle)) ** 2)
    x, acceleration = (sympy.lambdify(time, f)(ts) for f in (xB, sympy.diff(xB, time, 2)))
    A = np.stack([r * np.cos(a0 + w * ts), r * np.sin(a0 + w * ts)], axis=1)
    u = (np.stack([x, np.full_like(ts, e)], axis=1) - A) / l
    k = (m * acceleration + P) / u[:, 0]
    rod_force = k[:, None] * u
    assert np.allclose(res["slider.x"], x, atol=1e-9)
    for pin in ("O", "A", "B"):                  # on each head body: crank, rod, slider
        assert np.allclose(res[f"{pin}.reaction"], rod_force, rtol=1e-6, atol=1e-6), pin
    assert np.allclose(res["D.effort"], k * (A[:, 0] * u[:, 1] - A[:, 1] * u[:, 0]),
                       rtol=1e-6, atol=1e-6)
    assert np.allclose(res["S.reaction"][:, 1], m * g - rod_force[:, 1], rtol=1e-6, atol=1e-6)


def test_a_massless_link_is_simulated_where_the_mass_matrix_stays_regular_refused_where_not():
    # a point mass m on a massless rod l is the simple pendulum: l beta'' = -g sin(beta)
    def pendulum_on(rod_mass, bob_mass):
        mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
        rod = mech.body("rod", mass=rod_mass, inertia=0.0, position=(0.5, 0.0))
        mech.revolute("P", mech.ground.point(0, 0), rod.point(-0.5, 0))
        if bob_mass:
            bob = mech.body("bob", mass=bob_mass, inertia=0.0, position=(1.0, 0.0))
            mech.weld("W", rod.point(0.5, 0), bob.centre)
        return mech.formulate()

    res = pendulum_on(0.0, 2.0).simulate(0.5, t_eval=[0.5], rtol=1e-10, atol=1e-12)
    beta = scipy.integrate.solve_ivp(lambda _, y: [y[1], -9.81 * np.cos(y[0])], (0, 0.5),
                                     [0.0, 0.0], rtol=1e-11, atol=1e-12).y[0, -1]
    assert res["P.angle"][-1] == pytest.approx(beta, abs=1e-7)
    with pytest.raises(vn.ModelError, match=r"singular .*bodies without mass and inertia: rod"):
        pendulum_on(0.0, 0.0).simulate(0.5)


def test_a_pendulum_without_inputs_goes_to_python_control_with_forces_on_its_coordinates():
    pytest.importorskip("control")
    # a point mass m at distance l below a pin: m l^2 z'' + m g l z = Q, so the poles are
    # +-i sqrt(g / l) and the static gain from the generalized force Q is 1 / (m g l)
    m, l, g = 2.0, 0.5, 9.81
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -g))
    bob = mech.body("bob", m, 0.0, position=(0, -l))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, l))
    eom = mech.formulate()
    system = eom.linearize(eom.equilibrium()).to_control()
    assert system.input_labels == ["Q_pin:angle"] and system.output_labels == ["pin:angle"]
    assert np.allclose(sorted(np.asarray(system.poles()).imag), [-np.sqrt(g / l), np.sqrt(g / l)])
    assert float(np.asarray(system.dcgain())) == pytest.approx(1 / (m * g * l))
