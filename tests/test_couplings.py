"""Couplings between lumped networks and mechanisms: a network rotor behind a gear."""

import numpy as np
import pytest
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
