"""Mixed-domain systems: lumped networks driving planar mechanisms."""

import numpy as np
import pytest
from scipy.integrate import simpson

import vecnet as vn

R, L, K, J, b = 2.0, 0.05, 0.4, 0.02, 0.003


def motor_network(with_inertia=False, voltage=12.0):
    net = vn.Network("motor")
    net.add(vn.VoltageSource("V", "g", "a", V=voltage), vn.Resistor("Ra", "a", "b", R=R),
            vn.Inductor("La", "b", "c", L=L), vn.DCMotor("M", "ref", "w", "g", "c", K=K),
            vn.RotaryDamper("bearing", "w", "ref", b=b))
    if with_inertia:
        net.add(vn.Inertia("J", "ref", "w", J=J))
    else:
        net.add(vn.RotaryPort("shaft", "ref", "w", joint="O"))
    return net


def test_motor_through_the_mechanism_matches_the_lumped_motor_and_inertia():
    mech = vn.planar.Mechanism("rotor", gravity=(0, 0))
    rotor = mech.body("rotor", mass=1.0, inertia=J)
    mech.revolute("O", mech.ground.centre, rotor.centre)
    ts = np.linspace(0, 0.5, 51)
    coupled = vn.System(mech, motor_network()).simulate(0.5, t_eval=ts, rtol=1e-10, atol=1e-12)
    lumped = motor_network(with_inertia=True).simulate((0, 0.5), t_eval=ts, rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(coupled["O.angle'"] - lumped["J.across"])) < 1e-6
    assert np.max(np.abs(coupled["La.through"] - lumped["La.through"])) < 1e-6
    assert np.max(np.abs(lumped["J.across"])) > 10   # it spun up


def motor_pendulum(m=0.5, l=0.3, Jc=0.004, voltage=0.0):
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    bob = mech.body("bob", mass=m, inertia=Jc, position=(0, -l))
    mech.revolute("O", mech.ground.point(0, 0), bob.point(0, l))
    bob.point(0, -l, name="tip")
    net = vn.Network("motor")
    net.add(vn.VoltageSource("V", "g", "a", V=voltage), vn.Resistor("Ra", "a", "b", R=R),
            vn.Inductor("La", "b", "c", L=L), vn.DCMotor("M", "ref", "w", "g", "c", K=K),
            vn.RotaryPort("shaft", "ref", "w", joint="O"))
    return mech, net


def test_linearized_motor_pendulum_has_the_hand_derived_eigenvalues():
    m, l, Jc, g = 0.5, 0.3, 0.004, 9.81
    mech, net = motor_pendulum(m, l, Jc)
    lin = vn.System(mech, net).formulate().linearize()
    Jp = Jc + m * l**2
    # by hand, states (beta, beta', i): Jp beta'' = K i - m g l beta, L i' = V - R i - K beta'
    A = np.array([[0, 1, 0], [-m * g * l / Jp, 0, K / Jp], [0, -K / L, -R / L]])
    expected = np.linalg.eigvals(A)
    got = lin.eigenvalues()
    assert len(got) == 3
    assert np.allclose(np.sort_complex(got), np.sort_complex(expected), rtol=1e-6, atol=1e-6)


def test_linearized_motor_pendulum_transfer_functions():
    """Voltage to angle and to current, by hand: Jp b'' = K i - m g l b, L i' = V - R i - K b',
    so b/V = K / den and i/V = (Jp s^2 + m g l) / den with den = (L s + R)(Jp s^2 + m g l)
    + K^2 s (each up to the sign of the motor's orientation). The DC gain of the angle also
    equals the static angle per volt of the nonlinear system's equilibrium."""
    m, l, Jc, g = 0.5, 0.3, 0.004, 9.81
    mech, net = motor_pendulum(m, l, Jc)
    lin = vn.System(mech, net).formulate().linearize(outputs=["O.angle", "La.through"])
    assert lin.inputs == ("V.across",) and lin.outputs == ("O.angle", "La.through")
    Jp = Jc + m * l**2
    signs = []
    for s in (0.0, 2.0j, 5.0 + 30.0j, -1.0 + 0.5j):
        G = lin.C @ np.linalg.solve(s * np.eye(len(lin.states)) - lin.A, lin.B) + lin.D
        den = (L * s + R) * (Jp * s**2 + m * g * l) + K**2 * s
        signs.append([G[0, 0] * den / K, G[1, 0] * den / (Jp * s**2 + m * g * l)])
    signs = np.array(signs)
    assert np.allclose(np.abs(signs), 1, rtol=1e-5) and np.allclose(signs, signs[0], rtol=1e-5)
    volts = 0.05
    mech, net = motor_pendulum(m, l, Jc, voltage=volts)
    model = vn.System(mech, net).formulate()
    q, _ = model.equilibrium()
    angle = q[model.eom.coordinates.index("O.angle")]
    G0 = (lin.D - lin.C @ np.linalg.solve(lin.A, lin.B))[0, 0]
    assert angle / volts == pytest.approx(G0, rel=1e-4)
    assert np.ravel(lin.to_control().dcgain())[0] == pytest.approx(G0, rel=1e-9)



@pytest.mark.parametrize("method", ["partition", "dae"])
def test_energy_bookkeeping_across_domains(method):
    """Electrical energy in = mechanical energy stored + energy dissipated."""
    mech, net = motor_pendulum(voltage=3.0)
    ts = np.linspace(0, 5, 5001)
    res = vn.System(mech, net).simulate(5.0, t_eval=ts, method=method, rtol=1e-10, atol=1e-12)
    supplied = -simpson(res["V.across"] * res["V.through"], x=ts)
    dissipated = simpson(res["Ra.across"] * res["Ra.through"], x=ts)
    magnetic = 0.5 * L * res["La.through"] ** 2
    mechanical = res["energy"]
    stored = (mechanical[-1] - mechanical[0]) + (magnetic[-1] - magnetic[0])
    assert abs(supplied - stored - dissipated) < 1e-6 * abs(supplied)
    assert supplied > 0.1


def test_pid_position_control_reaches_the_setpoint():
    mech, net = motor_pendulum()
    net_input = vn.Symbol("u")
    net = vn.Network("motor")
    net.add(vn.VoltageSource("V", "g", "a", V=net_input), vn.Resistor("Ra", "a", "b", R=R),
            vn.Inductor("La", "b", "c", L=L), vn.DCMotor("M", "ref", "w", "g", "c", K=K),
            vn.RotaryPort("shaft", "ref", "w", joint="O"))
    system = vn.System(mech, net)
    reference = 0.6
    pid = vn.PID("pid", reference - system.sensor("O.angle"), kp=40.0, ki=60.0, kd=3.0, tf=0.01)
    system = vn.System(mech, net, blocks=[pid], connect={"V.across": pid.output})
    res = system.simulate(6.0, t_eval=np.linspace(0, 6, 61))
    assert abs(res["O.angle"][-1] - reference) < 1e-3
    assert np.max(res["O.angle"]) < 1.5 * reference


def test_bad_couplings():
    mech = vn.planar.Mechanism("m")
    a = mech.body("a", mass=1.0, inertia=0.1, position=(1, 0))
    mech.weld("W", mech.ground.point(0, 0), a.point(-1, 0))
    net = vn.Network("n")
    net.add(vn.TorqueSource("T", "g", "w", T=1.0), vn.RotaryPort("p", "g", "w", joint="W"))
    with pytest.raises(vn.ModelError, match="port 'p'.*revolute joint; 'W' is a Weld"):
        vn.System(mech, net)
    net2 = vn.Network("n2")
    net2.add(vn.TorqueSource("T", "g", "w", T=1.0), vn.RotaryPort("p", "g", "w", joint="P9"))
    with pytest.raises(vn.ModelError, match="joint 'P9'"):
        vn.System(mech, net2)
    with pytest.raises(vn.UnknownNameError, match="no joint or body 'P9'"):
        vn.System(mech).sensor("P9.angle")


def test_point_sensors_follow_the_mechanism():
    mech, net = motor_pendulum(voltage=2.0)
    system = vn.System(mech, net)
    tip = [vn.Gain(f"tip_{w}", system.sensor(f"bob.tip.{w}"), 1.0) for w in ("x", "y", "vx")]
    res = vn.System(mech, net, blocks=tip).simulate(1.0, t_eval=np.linspace(0, 1, 11))
    angle, omega = res["O.angle"], res["O.angle'"]
    # the pin is 0.3 above the centre and the tip 0.6 below the pin: (0.6 sin a, -0.6 cos a)
    assert np.allclose(res["tip_x"], 0.6 * np.sin(angle), atol=1e-9)
    assert np.allclose(res["tip_y"], -0.6 * np.cos(angle), atol=1e-9)
    assert np.allclose(res["tip_vx"], 0.6 * np.cos(angle) * omega, atol=1e-9)
    with pytest.raises(vn.ModelError, match="points measure"):
        system.sensor("bob.tip.angle")


def strut_pendulum(network_spring: bool, k=40.0, c=0.8):
    """A bob on a pin at the origin, held by a spring and damper from the ground point
    (0.5, 0.2) to a point of the bob: in the mechanism, or in a translational network
    joined to the two points by a LinearPort."""
    mech = vn.planar.Mechanism("strut", gravity=(0, -9.81))
    bob = mech.body("bob", mass=0.7, inertia=0.01, position=(0.3, -0.5))
    mech.revolute("O", mech.ground.point(0, 0), bob.point(-0.3, 0.5))
    anchor, attach = mech.ground.point(0.5, 0.2), bob.point(0.1, 0.1, name="eye")
    net = None
    if network_spring:
        net = vn.Network("strut")
        net.add(vn.LinearPort("strut", "ref", "x", points=(anchor, attach)),
                vn.Spring("k", "ref", "x", k=k), vn.Damper("c", "ref", "x", b=c))
    else:
        mech.spring("k", anchor, attach, k=k, c=c)
    return mech, net


def test_linear_port_between_points_acts_like_a_spring_of_the_mechanism():
    """The network's spring and damper, working through a port between two points, move the
    bob exactly as the mechanism's own spring-damper between the same points (free length:
    the initial distance, where the network spring starts unstretched)."""
    ts = np.linspace(0, 2, 41)
    mech, _ = strut_pendulum(False)
    reference = mech.formulate().simulate(2.0, t_eval=ts, rtol=1e-10, atol=1e-12)
    mech, net = strut_pendulum(True)
    coupled = vn.System(mech, net).simulate(2.0, t_eval=ts, rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(coupled["O.angle"] - reference["O.angle"])) < 1e-7
    assert np.ptp(reference["O.angle"]) > 0.1     # it swung
    # the port's across variable is the rate at which the strut lengthens: the eye is at
    # R(beta) (0.4, -0.4) from the pin, the anchor at (0.5, 0.2)
    beta, rate = coupled["O.angle"], coupled["O.angle'"]
    c, s = np.cos(beta), np.sin(beta)
    d = np.array([0.4 * c + 0.4 * s - 0.5, 0.4 * s - 0.4 * c - 0.2])
    d_rate = np.array([-0.4 * s + 0.4 * c, 0.4 * c + 0.4 * s]) * rate
    np.testing.assert_allclose(coupled["strut.across"], (d * d_rate).sum(0) / np.hypot(*d),
                               atol=1e-9)


def test_bad_point_ports():
    mech, _ = strut_pendulum(False)
    with pytest.raises(vn.ModelError, match="either joint"):
        vn.LinearPort("p", "ref", "x")
    with pytest.raises(vn.ModelError, match="two different points"):
        vn.LinearPort("p", "ref", "x", points=("bob.eye", "bob.eye"))
    for points, message in ((("ground.p1", "bob.nowhere"), "no point.*bob.nowhere"),
                            (("bob", "bob.eye"), "both on 'bob'")):
        net = vn.Network("n")
        net.add(vn.LinearPort("p", "ref", "x", points=points), vn.Spring("k", "ref", "x", k=1.0))
        with pytest.raises(vn.ModelError, match=message):
            vn.System(mech, net)
