"""Couplings between lumped networks and mechanisms: a network rotor behind a gear."""

import numpy as np
import pytest
import sympy
from scipy.integrate import solve_ivp

import vecnet as vn
from vecnet.errors import FormulationError

m, l, Jc, g = 0.5, 0.3, 0.004, 9.81        # pendulum: kg, m, kg m^2, m/s^2
Jm, N, T = 2e-3, 0.25, 0.01                # rotor inertia, speed ratio w_load / w_motor, torque
J_EFF = Jc + m * l**2 + Jm / N**2          # the rotor reflected through the gear


def _pendulum(theta0=0.0):
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -g))
    bob = mech.body("bob", mass=m, inertia=Jc, position=(l * np.sin(theta0), -l * np.cos(theta0)),
                    angle=theta0)
    mech.revolute("O", mech.ground.point(0, 0), bob.point(0, l))   # O.angle = 0 hanging
    return mech


def _geared_rotor(theta0=0.0):
    """A torque T on a rotor Jm, geared down to the pendulum's pivot."""
    net = vn.Network("drive")
    net.add(vn.TorqueSource("T", "ref", "w1", T=T), vn.Inertia("Jm", "ref", "w1", J=Jm),
            vn.GearPair("gear", "ref", "w1", "ref", "w2", N=N),
            vn.RotaryPort("shaft", "ref", "w2", joint="O"))
    return vn.System(_pendulum(theta0), net)


def _hand_acceleration(theta):
    """J_eff theta'' = T / N - m g l sin(theta)."""
    return (T / N - m * g * l * np.sin(theta)) / J_EFF


def test_rotor_equations_match_the_hand_model_with_the_reflected_inertia():
    model = _geared_rotor().formulate("joint")
    eom = model.eom
    (q,), (u,) = eom.q, eom.u
    assert abs(float(eom.M[0, 0]) - J_EFF) < 1e-12
    Q = eom.Q.xreplace(model.loads)[0]
    for theta, rate in ((0.0, 0.0), (0.4, 0.7), (-1.3, -2.0), (2.9, 5.0)):
        value = float(Q.subs({q: theta, u: rate}))
        assert abs(value - J_EFF * _hand_acceleration(theta)) < 1e-12


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_rotor_motion_and_its_network_variables(coordinates):
    times = np.linspace(0, 0.5, 6)
    res = _geared_rotor(0.4).simulate(0.5, coordinates=coordinates, t_eval=times)
    hand = solve_ivp(lambda _, y: [y[1], _hand_acceleration(y[0])], (0, 0.5), [0.4, 0.0],
                     t_eval=times, rtol=1e-12, atol=1e-12)
    assert np.allclose(res["O.angle"], hand.y[0], atol=1e-7)
    # the rotor stays in the network: it turns 1/N as fast and carries Jm w_m'
    assert np.allclose(res["Jm.across"], hand.y[1] / N, atol=1e-6)
    assert np.allclose(res["Jm.through"], Jm * _hand_acceleration(hand.y[0]) / N, atol=1e-8)


def test_an_inertia_shared_by_two_ports_is_refused():
    mech = _pendulum()
    arm = mech.body("arm", mass=1.0, inertia=0.1, position=(1, 0))
    mech.revolute("A", mech.ground.point(1, 0), arm.centre)
    net = vn.Network("shared")
    # the inertia turns at the sum of the two joints' rates
    net.add(vn.RotaryPort("p1", "ref", "w", joint="O"), vn.RotaryPort("p2", "w", "v", joint="A"),
            vn.Inertia("J", "ref", "v", J=1.0))
    with pytest.raises(FormulationError, match="share an inertia"):
        vn.System(mech, net).formulate()


# -- gear pair and rack and pinion between bodies ------------------------------------------

Ja, Jb, RATIO, TORQUE = 0.1, 0.3, 0.5, 2.0


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_gear_pair_accelerates_with_the_reflected_inertia(coordinates):
    mech = vn.planar.Mechanism("pair", gravity=(0, 0))
    a, b = mech.body("a", 1.0, Ja), mech.body("b", 1.0, Jb, position=(1.5, 0))
    mech.revolute("A", mech.ground.point(0, 0), a.centre)
    mech.revolute("B", mech.ground.point(1.5, 0), b.centre)
    mech.gear("mesh", a, b, ratio=RATIO)
    mech.torque("T", a, TORQUE)
    res = mech.formulate(coordinates).simulate(1.0, t_eval=[0.0, 1.0])
    acc = TORQUE / (Ja + Jb * RATIO**2)          # T = (Ja + Jb ratio^2) theta_a''
    assert abs(res["A.angle"][-1] - acc / 2) < 1e-8
    assert abs(res["B.angle"][-1] + RATIO * acc / 2) < 1e-8
    # the teeth turn b at Jb theta_b'' and hold a back; the two torques are in the ratio
    assert np.allclose(res["mesh.torque_b"], -Jb * RATIO * acc, atol=1e-9)
    assert np.allclose(res["mesh.torque_a"], RATIO * res["mesh.torque_b"], atol=1e-9)


def test_rack_and_pinion_moves_the_rack_by_radius_times_the_turn():
    radius, m_rack, Jp = 0.05, 2.0, 1e-3
    mech = vn.planar.Mechanism("rack", gravity=(0, 0))
    pinion = mech.body("pinion", 0.5, Jp)
    rack = mech.body("rack", m_rack, 0.1, position=(0, -radius))
    mech.revolute("P", mech.ground.point(0, 0), pinion.centre)
    mech.prismatic("S", mech.ground.point(0, -radius), rack.centre)
    mech.rack_and_pinion("mesh", pinion, rack, radius=radius)
    mech.torque("T", pinion, TORQUE)
    res = mech.formulate().simulate(0.5, t_eval=[0.0, 0.5])
    acc = TORQUE / (Jp + m_rack * radius**2)     # the rack reflected to the pinion
    assert abs(res["P.angle"][-1] - acc * 0.25 / 2) < 1e-8
    assert abs(res["S.distance"][-1] - radius * res["P.angle"][-1]) < 1e-10
    assert np.allclose(res["mesh.force_b"], m_rack * radius * acc, atol=1e-8)
    assert np.allclose(res["mesh.torque_a"], -radius * res["mesh.force_b"], atol=1e-10)


def test_a_gear_needs_a_positive_ratio():
    mech = vn.planar.Mechanism("pair", gravity=(0, 0))
    a, b = mech.body("a", 1.0, Ja), mech.body("b", 1.0, Jb, position=(1.5, 0))
    with pytest.raises(vn.errors.ModelError, match="ratio must be positive"):
        mech.gear("mesh", a, b, ratio=-1)


def test_a_gear_named_in_the_tree_is_refused_in_words():
    mech = vn.planar.Mechanism("gears")
    a = mech.body("a", 1.0, 0.5, position=(0, 0))
    b = mech.body("b", 1.0, 0.5, position=(1, 0))
    mech.revolute("A", mech.ground.point(0, 0), a.point(0, 0))
    mech.revolute("B", mech.ground.point(1, 0), b.point(0, 0))
    mech.gear("G", a, b, ratio=2.0)
    with pytest.raises(vn.FormulationError, match="G constrain.*belong in the cotree"):
        mech.formulate(tree=["A", "G"])


# -- a rack and pinion on a body that moves: the mesh seen from the pinion's carrier --------

def turntable(radius, Jt, Jp, Jk, mk, drives=None):
    """A table turning on the ground about the origin (joint O), a pinion on it about the
    same point (joint P, its angle relative to the table) and a rack sliding on the table
    (joint S, along the table's x axis, radius below the axle), meshed with the pinion."""
    mech = vn.planar.Mechanism("turntable", gravity=(0, 0))
    table = mech.body("table", 3.0, Jt)
    pinion = mech.body("pinion", 0.5, Jp)
    rack = mech.body("rack", mk, Jk, position=(0, -radius))
    mech.revolute("O", mech.ground.point(0, 0), table.centre)
    mech.revolute("P", table.centre, pinion.centre)
    mech.prismatic("S", table.point(0, -radius), rack.centre, axis=(1, 0))
    mech.rack_and_pinion("mesh", pinion, rack, radius=radius)
    for joint, motion in (drives or {}).items():
        mech.drive(f"{joint}_drive", joint, motion)
    return mech, table


def test_rack_and_pinion_on_a_turning_table_rolls_relative_to_the_table():
    """The table turned at a steady rate and the pinion turned on it by phi(t): the rack
    slides along the table by radius * phi (the pitch circle rolls on the pitch line as
    seen from the table that carries both), however fast the table turns."""
    radius = 0.1
    t = vn.t
    mech, _ = turntable(radius, 0.2, 1e-3, 0.01, 1.0,
                        drives={"O": 3.0 * t, "P": 0.8 * t**2 + 0.3 * sympy.sin(2 * t)})
    ts = np.linspace(0, 1.5, 16)
    res = mech.formulate().inverse_dynamics(ts)
    phi = 0.8 * ts**2 + 0.3 * np.sin(2 * ts)
    np.testing.assert_allclose(res["P.angle"], phi, atol=1e-9)
    np.testing.assert_allclose(res["table.angle"], 3.0 * ts, atol=1e-9)
    np.testing.assert_allclose(res["S.distance"], radius * phi, atol=1e-9)


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_rack_and_pinion_on_a_turning_table_follows_lagrange(coordinates):
    """A torque tau on the table, from rest. With theta the table's angle and phi the
    pinion's turn on it, the rack sits at R(theta) (radius phi, -radius), so
    T = (Jt + Jk + mk r^2 phi^2) theta'^2 / 2 + c (theta' + phi')^2 / 2 with
    c = Jp + mk r^2, and Lagrange's equations
    (Jt + Jk + mk r^2 phi^2 + c) theta'' + c phi'' + 2 mk r^2 phi phi' theta' = tau,
    c (theta'' + phi'') - mk r^2 phi theta'^2 = 0."""
    r, Jt, Jp, Jk, mk, tau = 0.1, 0.2, 1e-3, 0.01, 1.0, 0.5
    mech, table = turntable(r, Jt, Jp, Jk, mk)
    mech.torque("tau", table, tau)
    c = Jp + mk * r**2

    def hand(_, y):
        theta, phi, w, v = y
        M = np.array([[Jt + Jk + mk * r**2 * phi**2 + c, c], [c, c]])
        rhs = np.array([tau - 2 * mk * r**2 * phi * v * w, mk * r**2 * phi * w**2])
        return [w, v, *np.linalg.solve(M, rhs)]

    ts = np.linspace(0, 2.0, 21)
    expected = solve_ivp(hand, (0, 2.0), [0, 0, 0, 0], t_eval=ts, rtol=1e-12, atol=1e-12)
    res = mech.formulate(coordinates).simulate(2.0, t_eval=ts, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["table.angle"], expected.y[0], atol=1e-7)
    np.testing.assert_allclose(res["P.angle"], expected.y[1], atol=1e-7)
    np.testing.assert_allclose(res["S.distance"], r * expected.y[1], atol=1e-8)
    assert np.ptp(expected.y[1]) > 0.5      # the pinion turned on the table


def test_rack_and_pinion_on_a_spinning_table_keeps_angular_momentum():
    """Set spinning with no torque from outside, the table, pinion and rack keep their
    angular momentum about the axle, sum J omega + m (x vy - y vx), and their energy: the
    teeth only pass loads between the bodies."""
    mech, _ = turntable(0.1, 0.2, 1e-3, 0.01, 1.0)
    ts = np.linspace(0, 2.0, 21)
    res = mech.formulate().simulate(2.0, t_eval=ts, velocities={"O.angle": 2.0, "P.angle": 5.0},
                                    rtol=1e-10, atol=1e-12)
    inertia = {"table": (3.0, 0.2), "pinion": (0.5, 1e-3), "rack": (1.0, 0.01)}
    momentum = sum(J * res[f"{b}.omega"] + m * (res[f"{b}.x"] * res[f"{b}.vy"]
                                               - res[f"{b}.y"] * res[f"{b}.vx"])
                   for b, (m, J) in inertia.items())
    np.testing.assert_allclose(momentum, momentum[0], atol=1e-8)
    np.testing.assert_allclose(res["energy"], res["energy"][0], atol=1e-8)
    assert np.ptp(res["S.distance"]) > 0.05


def test_rack_and_pinion_with_the_pinion_on_a_sliding_carriage():
    """A carriage (mass mc) sliding on the ground carries a pinion (mass mp, inertia Jp);
    the rack (mass mk) slides on the ground beside it. Seen from the carriage the rack
    advances r phi, so x_k = x_c + r phi, and a force F on the carriage gives by Lagrange
    (mc + mp) x_c'' + mk (x_c'' + r phi'') = F and Jp phi'' + mk r (x_c'' + r phi'') = 0."""
    r, mc, mp, Jp, mk, F = 0.05, 2.0, 0.5, 1e-3, 1.5, 3.0
    mech = vn.planar.Mechanism("gantry", gravity=(0, -9.81))
    carriage = mech.body("carriage", mc, 0.1, position=(0, 0.2))
    pinion = mech.body("pinion", mp, Jp, position=(0, 0))
    rack = mech.body("rack", mk, 0.1, position=(0, -r))
    mech.prismatic("C", mech.ground.point(0, 0.2), carriage.centre)
    mech.revolute("P", carriage.point(0, -0.2), pinion.centre)
    mech.prismatic("S", mech.ground.point(0, -r), rack.centre)
    mech.rack_and_pinion("mesh", pinion, rack, radius=r)
    mech.force("F", carriage.centre, (F, 0))
    A = np.array([[mc + mp + mk, mk * r], [mk * r, Jp + mk * r**2]])
    xc_acc, phi_acc = np.linalg.solve(A, [F, 0.0])
    ts = np.linspace(0, 1.0, 11)
    res = mech.formulate().simulate(1.0, t_eval=ts, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["C.distance"], xc_acc * ts**2 / 2, atol=1e-9)
    np.testing.assert_allclose(res["P.angle"], phi_acc * ts**2 / 2, atol=1e-9)
    np.testing.assert_allclose(res["S.distance"], (xc_acc + r * phi_acc) * ts**2 / 2, atol=1e-9)
    assert phi_acc < 0 < xc_acc      # the pinion rolls back as the carriage pulls ahead


def pinion_on_its_rack(dimensions):
    """A rack sliding on the ground and a pinion pinned to the rack itself."""
    if dimensions == 2:
        mech = vn.planar.Mechanism("rack", gravity=(0, 0))
        pinion = mech.body("pinion", 0.5, 1e-3)
        rack = mech.body("rack", 2.0, 0.1, position=(0, -0.05))
        mech.prismatic("S", mech.ground.point(0, -0.05), rack.centre)
        mech.revolute("axle", rack.point(0, 0.05), pinion.centre)
    else:
        mech = vn.spatial.Mechanism("rack", gravity=(0, 0, 0))
        pinion = mech.body("pinion", 0.5, (1e-3, 1e-3, 1e-3))
        rack = mech.body("rack", 2.0, (0.1, 0.1, 0.1), position=(0, -0.05, 0))
        mech.prismatic("S", mech.ground.point(0, -0.05, 0), rack.centre, axis=(1, 0, 0))
        mech.revolute("axle", rack.point(0, 0.05, 0), pinion.centre, axis=(0, 0, 1))
    return mech, pinion, rack


@pytest.mark.parametrize("dimensions", [2, 3])
def test_a_pinion_pinned_to_its_own_rack_is_refused_in_words(dimensions):
    """Seen from the rack that carries its axle, the rack does not move: the pinion could
    not turn. Refused, naming the mesh and the joint, rather than locked without a word."""
    mech, pinion, rack = pinion_on_its_rack(dimensions)
    message = "rack and pinion 'mesh'.*joint 'axle'.*mounted on rack 'rack'"
    if dimensions == 2:
        mech.rack_and_pinion("mesh", pinion, rack, radius=0.05)
        with pytest.raises(vn.ModelError, match=message):
            mech.formulate()
    else:
        with pytest.raises(vn.ModelError, match=message):
            mech.rack_and_pinion("mesh", pinion, rack, radius=0.05)
