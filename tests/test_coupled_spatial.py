"""Mixed-domain systems: lumped networks driving spatial mechanisms through ports.

Each test checks the coupled spatial system against a result found without it: a closed
form of the motor and its load, or the same system built as a planar mechanism.
"""

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.spatial.transform import Rotation

import vecnet as vn

R, L, K, J, b = 2.0, 0.05, 0.4, 0.02, 0.003     # ohm, H, N m/A, kg m^2, N m s/rad


def motor(voltage, joint="O", bearing=True):
    """An armature (resistance R, inductance L) and a DC motor of constant K whose shaft is a
    RotaryPort on ``joint``, with a viscous bearing b on the shaft. The armature's edges
    point along the current a positive voltage drives, so ``La.through`` is that current."""
    net = vn.Network("motor")
    net.add(vn.VoltageSource("V", "g", "a", V=voltage), vn.Resistor("Ra", "b", "a", R=R),
            vn.Inductor("La", "c", "b", L=L), vn.DCMotor("M", "ref", "w", "g", "c", K=K),
            vn.RotaryPort("shaft", "ref", "w", joint=joint))
    if bearing:
        net.add(vn.RotaryDamper("bearing", "w", "ref", b=b))
    return net


# -- a motor and a rotor on a tilted axis --------------------------------------------------

AXIS = np.array([1.0, 2.0, 2.0]) / 3          # a unit axis, neither vertical nor horizontal


def tilted_rotor():
    """A rotor whose body z axis (principal, moment J) lies along AXIS, on a revolute joint
    about AXIS through its mass centre: gravity acts through the axis and exerts no torque
    about it; the other two moments differ, so the joint's reactions hold gyroscopic
    torques that do not turn the rotor."""
    mech = vn.spatial.Mechanism("rotor", gravity=(0, 0, -9.81))
    turn = Rotation.align_vectors([AXIS], [[0, 0, 1]])[0]
    rotor = mech.body("rotor", mass=1.5, inertia=(0.05, 0.07, J), position=(0.2, 0.1, 0.3),
                      orientation=turn)
    mech.revolute("O", mech.ground.point(0.2, 0.1, 0.3), rotor.centre, axis=AXIS)
    return mech


def step_response(ts, voltage):
    """Speed and current of a DC motor (R, L, K) driving an inertia J with viscous friction b
    from rest after a voltage step, by hand: L i' = V - R i - K w and J w' = K i - b w give
    w(s) = K V / (s (L J s^2 + (L b + R J) s + R b + K^2)); with the two real poles p1, p2,

        w(t) = w_ss (1 + (p2 exp(p1 t) - p1 exp(p2 t)) / (p1 - p2)),  w_ss = K V / (R b + K^2),

    and i = (J w' + b w) / K."""
    p1, p2 = np.roots([L * J, L * b + R * J, R * b + K**2])
    assert np.isreal(p1) and np.isreal(p2) and p1 != p2   # overdamped with these values
    w_ss = K * voltage / (R * b + K**2)
    w = w_ss * (1 + (p2 * np.exp(p1 * ts) - p1 * np.exp(p2 * ts)) / (p1 - p2))
    dw = w_ss * p1 * p2 * (np.exp(p1 * ts) - np.exp(p2 * ts)) / (p1 - p2)
    return w, (J * dw + b * w) / K


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_motor_spins_a_rotor_on_a_tilted_axis_as_the_closed_form(coordinates):
    ts = np.linspace(0, 0.5, 51)
    res = vn.System(tilted_rotor(), motor(12.0)).simulate(0.5, coordinates=coordinates,
                                                          t_eval=ts, rtol=1e-10, atol=1e-12)
    w, i = step_response(ts, 12.0)
    # the relative angular velocity about the axis: the joint's rate, and the port's across
    omega = res["rotor.omega"] @ AXIS
    assert np.max(np.abs(omega - w)) < 1e-6
    assert np.max(np.abs(res["shaft.across"] - w)) < 1e-6
    assert np.max(np.abs(res["La.through"] - i)) < 1e-6
    assert np.max(np.abs(np.cross(res["rotor.omega"], AXIS))) < 1e-9   # it turns about AXIS
    assert w[-1] > 20                                                   # it spun up
    if coordinates == "joint":
        assert np.max(np.abs(res["O.angle'"] - w)) < 1e-6


def test_the_torque_acts_between_the_joints_two_bodies():
    """A motor between two bodies: its torque turns the rotor one way and its stator, a
    body on a revolute joint to the ground about the same axis, the other way. With no
    friction the angular momentum about the axis stays zero: J_s w_s + J_r (w_s + w) = 0
    for the rotor's rate w relative to the stator, so the stator turns at
    -J_r w / (J_s + J_r), and the motor sees the effective inertia J_s J_r / (J_s + J_r)."""
    Js, Jr = 0.06, J
    mech = vn.spatial.Mechanism("motor on a free stator", gravity=(0, 0, -9.81))
    stator = mech.body("stator", mass=2.0, inertia=(0.1, 0.1, Js))
    rotor = mech.body("rotor", mass=1.0, inertia=(0.03, 0.03, Jr), position=(0, 0, 0.2))
    mech.revolute("S", mech.ground.centre, stator.centre, axis=(0, 0, 1))
    mech.revolute("O", stator.point(0, 0, 0.2), rotor.centre, axis=(0, 0, 1))
    ts = np.linspace(0, 0.3, 31)
    res = vn.System(mech, motor(12.0, bearing=False)).simulate(0.3, t_eval=ts, rtol=1e-10,
                                                               atol=1e-12)
    relative = res["O.angle'"]
    np.testing.assert_allclose(res["S.angle'"], -Jr * relative / (Js + Jr), atol=1e-9)
    np.testing.assert_allclose(res["stator.omega"][:, 2] * Js + res["rotor.omega"][:, 2] * Jr,
                               0, atol=1e-9)
    # the motor and the reduced inertia by hand: L i' = V - R i - K w, J_e w' = K i
    Je = Js * Jr / (Js + Jr)
    A = np.array([[-R / L, -K / L], [K / Je, 0.0]])
    # from rest under a step: x(t) = A^-1 (exp(A t) - 1) (V / L, 0)
    hand = np.array([np.linalg.solve(A, (expm(A * tt) - np.eye(2)) @ [12.0 / L, 0])
                     for tt in ts])
    assert np.max(np.abs(res["La.through"] - hand[:, 0])) < 1e-6
    assert np.max(np.abs(relative - hand[:, 1])) < 1e-6


# -- the same motor and pendulum, planar and spatial -------------------------------------

m, l, Jc, g = 0.5, 0.3, 0.004, 9.81


def planar_pendulum():
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -g))
    bob = mech.body("bob", mass=m, inertia=Jc, position=(0, -l))
    mech.revolute("O", mech.ground.point(0, 0), bob.point(0, l))
    bob.point(0, -l, name="tip")
    return mech


def spatial_pendulum():
    """The planar pendulum's plane (x, y) is the spatial (y, z) plane: gravity along -z,
    the pin's axis x horizontal, and a positive angle turns y toward z as the planar
    angle turns x toward y."""
    mech = vn.spatial.Mechanism("pendulum", gravity=(0, 0, -g))
    bob = mech.body("bob", mass=m, inertia=(Jc, 0.005, 0.003), position=(0, 0, -l))
    mech.revolute("O", mech.ground.point(0, 0, 0), bob.point(0, 0, l), axis=(1, 0, 0))
    bob.point(0, 0, -l, name="tip")
    return mech


@pytest.mark.parametrize("method", ["partition", "dae"])
def test_motor_pendulum_in_space_moves_as_in_the_plane(method):
    ts = np.linspace(0, 2, 41)
    options = dict(t_eval=ts, method=method, rtol=1e-10, atol=1e-12)
    plane = vn.System(planar_pendulum(), motor(3.0)).simulate(2.0, **options)
    space = vn.System(spatial_pendulum(), motor(3.0)).simulate(2.0, **options)
    assert np.ptp(plane["O.angle"]) > 0.3                               # it swung
    for name in ("O.angle", "O.angle'", "La.through", "shaft.across", "shaft.through"):
        assert np.max(np.abs(space[name] - plane[name])) < 1e-7, name
    np.testing.assert_allclose(space["bob.y"], plane["bob.x"], atol=1e-7)
    np.testing.assert_allclose(space["bob.z"], plane["bob.y"], atol=1e-7)
    assert np.max(np.abs(space["energy"] - plane["energy"])) < 1e-7


def test_absolute_coordinates_with_quaternions_move_as_joint_coordinates():
    ts = np.linspace(0, 1, 21)
    runs = [vn.System(spatial_pendulum(), motor(3.0)).simulate(
        1.0, coordinates=c, t_eval=ts, rtol=1e-10, atol=1e-12) for c in ("joint", "absolute")]
    joint, absolute = runs
    assert "bob.qw" in absolute.names
    assert np.max(np.abs(absolute["O.angle"] - joint["O.angle"])) < 1e-7
    assert np.max(np.abs(absolute["La.through"] - joint["La.through"])) < 1e-7


def test_spatial_point_sensors_follow_the_pendulum():
    system = vn.System(spatial_pendulum(), motor(2.0))
    tip = [vn.Gain(f"tip_{w}", system.sensor(f"bob.tip.{w}"), 1.0) for w in ("y", "z", "vy")]
    spin = vn.Gain("spin", system.sensor("bob.wx"), 1.0)
    res = vn.System(spatial_pendulum(), motor(2.0), blocks=[*tip, spin]).simulate(
        1.0, t_eval=np.linspace(0, 1, 11))
    angle, rate = res["O.angle"], res["O.angle'"]
    # the tip hangs 0.6 below the pin, turned by the angle about x: (0, 0.6 sin a, -0.6 cos a)
    assert np.ptp(angle) > 0.1
    assert np.allclose(res["tip_y"], 0.6 * np.sin(angle), atol=1e-9)
    assert np.allclose(res["tip_z"], -0.6 * np.cos(angle), atol=1e-9)
    assert np.allclose(res["tip_vy"], 0.6 * np.cos(angle) * rate, atol=1e-9)
    assert np.allclose(res["spin"], rate, atol=1e-9)


# -- a network rotor behind a gear ----------------------------------------------------------

Jm, N, T = 2e-3, 0.25, 0.01     # rotor inertia, speed ratio w_load / w_motor, motor torque
J_EFF = Jc + m * l**2 + Jm / N**2


def geared_rotor():
    """A torque T on a rotor Jm in the network, geared down to the spatial pendulum's pin."""
    net = vn.Network("drive")
    net.add(vn.TorqueSource("T", "ref", "w1", T=T), vn.Inertia("Jm", "ref", "w1", J=Jm),
            vn.GearPair("gear", "ref", "w1", "ref", "w2", N=N),
            vn.RotaryPort("shaft", "ref", "w2", joint="O"))
    return vn.System(spatial_pendulum(), net)


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_network_rotor_is_reflected_into_the_spatial_mass_matrix(coordinates):
    """J_eff beta'' = T / N - m g l sin(beta), J_eff = Jc + m l^2 + Jm / N^2: the rotor turns
    rigidly with the pin through the gear, so its inertia joins the mechanism's."""
    from scipy.integrate import solve_ivp

    def hand(_, y):
        return [y[1], (T / N - m * g * l * np.sin(y[0])) / J_EFF]

    times = np.linspace(0, 0.5, 6)
    model = geared_rotor().formulate(coordinates)
    if coordinates == "joint":   # the symbolic equations, M beta'' = Q with the load put in
        eom = model.eom
        (q,), (u,) = eom.q, eom.u
        Q = eom.Q.xreplace(model.loads)[0]
        for angle, rate in ((0.0, 0.0), (0.4, 0.7), (-1.3, -2.0), (2.9, 5.0)):
            at = {q: angle, u: rate}
            assert abs(float(eom.M[0, 0].subs(at)) - J_EFF) < 1e-12
            assert abs(float(Q.subs(at)) - J_EFF * hand(0, [angle, rate])[1]) < 1e-12
    res = model.simulate(0.5, t_eval=times, rtol=1e-10, atol=1e-12)
    expected = solve_ivp(hand, (0, 0.5), [0.0, 0.0], t_eval=times, rtol=1e-12, atol=1e-12)
    assert np.max(np.abs(res["O.angle"] - expected.y[0])) < 1e-7
    assert np.max(np.abs(res["Jm.across"] - expected.y[1] / N)) < 1e-6
    accelerations = np.array([hand(0, y)[1] for y in expected.y.T])
    assert np.max(np.abs(res["Jm.through"] - Jm * accelerations / N)) < 1e-8


# -- equilibrium and linear models --------------------------------------------------------

@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_linearized_spatial_motor_pendulum_has_the_hand_derived_eigenvalues(coordinates):
    model = vn.System(spatial_pendulum(), motor(0.0, bearing=False)).formulate(coordinates)
    lin = model.linearize()
    Jp = Jc + m * l**2
    # by hand, states (beta, beta', i): Jp beta'' = K i - m g l beta, L i' = V - R i - K beta'
    A = np.array([[0, 1, 0], [-m * g * l / Jp, 0, K / Jp], [0, -K / L, -R / L]])
    assert len(lin.states) == 3 and lin.inputs == ("V.across",)
    assert np.allclose(np.sort_complex(lin.eigenvalues()), np.sort_complex(np.linalg.eigvals(A)),
                       rtol=1e-6, atol=1e-6)


def test_spatial_equilibrium_holds_the_pendulum_where_the_motor_balances_gravity():
    """At rest the current is V / R and the motor's torque K V / R holds the pendulum at
    sin(beta) = K V / (R m g l)."""
    volts = 2.0
    model = vn.System(spatial_pendulum(), motor(volts, bearing=False)).formulate("absolute")
    q, s = model.equilibrium()
    # the bob's orientation is a turn by beta about x: (cos(beta/2), sin(beta/2), 0, 0)
    qw, qx, qy, qz = (q[model.eom.coordinates.index(f"bob.{c}")] for c in ("qw", "qx", "qy", "qz"))
    assert abs(qy) < 1e-12 and abs(qz) < 1e-12
    assert np.sin(2 * np.arctan2(qx, qw)) == pytest.approx(K * volts / (R * m * g * l), rel=1e-9)
    assert s[model.states.index("La.through")] == pytest.approx(volts / R, rel=1e-9)


# -- linear ports: forces along an axis and between points -----------------------------------

def test_force_source_slides_a_mass_along_a_prismatic_joint():
    """A constant force F along the axis of a prismatic joint, gravity across it:
    x = F t^2 / (2 m)."""
    F, mass = 3.0, 1.5
    axis = np.array([2.0, -1.0, 0.0]) / np.sqrt(5)            # horizontal: no gravity along it
    mech = vn.spatial.Mechanism("slide", gravity=(0, 0, -9.81))
    block = mech.body("block", mass=mass, inertia=(0.1, 0.2, 0.3), position=(1, 1, 0))
    mech.prismatic("S", mech.ground.point(1, 1, 0), block.centre, axis=axis)
    net = vn.Network("push")
    net.add(vn.ForceSource("F", "ref", "x", F=F), vn.LinearPort("ram", "ref", "x", joint="S"))
    ts = np.linspace(0, 1, 11)
    res = vn.System(mech, net).simulate(1.0, t_eval=ts, rtol=1e-10, atol=1e-12)
    x = F * ts**2 / (2 * mass)
    np.testing.assert_allclose(res["S.distance"], x, atol=1e-9)
    np.testing.assert_allclose(res["ram.across"], F * ts / mass, atol=1e-9)
    np.testing.assert_allclose((res["block.position"] - [1, 1, 0]) @ axis, x, atol=1e-9)
    np.testing.assert_allclose(res["S.reaction"][:, 2], mass * 9.81, atol=1e-9)   # the weight


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_rotary_and_linear_ports_on_one_cylindrical_joint(coordinates):
    """A torque T and a force F on a vertical cylindrical joint: the body turns with
    T / J_z and rises with F / m - g (with bodies' coordinates the joint is cut, and its
    angle and distance are read off the frames)."""
    T, F, mass, Jz = 0.2, 30.0, 2.0, 0.05
    mech = vn.spatial.Mechanism("spindle", gravity=(0, 0, -9.81))
    body = mech.body("body", mass=mass, inertia=(0.1, 0.1, Jz))
    mech.cylindrical("C", mech.ground.centre, body.centre, axis=(0, 0, 1))
    net = vn.Network("drives")
    net.add(vn.TorqueSource("T", "ref", "w", T=T), vn.RotaryPort("turn", "ref", "w", joint="C"),
            vn.ForceSource("F", "ref", "x", F=F), vn.LinearPort("lift", "ref", "x", joint="C"))
    ts = np.linspace(0, 0.5, 6)
    res = vn.System(mech, net).simulate(0.5, coordinates=coordinates, t_eval=ts, rtol=1e-10,
                                        atol=1e-12)
    np.testing.assert_allclose(res["C.angle"], T * ts**2 / (2 * Jz), atol=1e-9)
    np.testing.assert_allclose(res["body.z"], (F / mass - 9.81) * ts**2 / 2, atol=1e-9)
    np.testing.assert_allclose(res["turn.across"], T * ts / Jz, atol=1e-9)
    np.testing.assert_allclose(res["lift.across"], (F / mass - 9.81) * ts, atol=1e-9)


def strut_pendulum(network_spring: bool, k=40.0, c=0.8):
    """A spatial pendulum on a horizontal pin, held by a spring and damper from a ground
    point off its plane to a point of the bob: in the mechanism, or in a translational
    network joined to the two points by a LinearPort."""
    mech = vn.spatial.Mechanism("strut", gravity=(0, 0, -9.81))
    bob = mech.body("bob", mass=0.7, inertia=(0.01, 0.02, 0.015), position=(0, 0.3, -0.5))
    mech.revolute("O", mech.ground.point(0, 0, 0), bob.point(0, -0.3, 0.5), axis=(1, 0, 0))
    anchor, eye = mech.ground.point(0.2, 0.5, 0.2), bob.point(0.05, 0.1, 0.1, name="eye")
    net = None
    if network_spring:
        net = vn.Network("strut")
        net.add(vn.LinearPort("strut", "ref", "x", points=(anchor, eye)),
                vn.Spring("k", "ref", "x", k=k), vn.Damper("c", "ref", "x", b=c))
    else:
        mech.spring("k", anchor, eye, k=k, c=c)
    return mech, net


def test_linear_port_between_points_acts_like_a_spring_of_the_mechanism():
    ts = np.linspace(0, 1.5, 31)
    mech, _ = strut_pendulum(False)
    reference = mech.formulate().simulate(1.5, t_eval=ts, rtol=1e-10, atol=1e-12)
    mech, net = strut_pendulum(True)
    coupled = vn.System(mech, net).simulate(1.5, t_eval=ts, rtol=1e-10, atol=1e-12)
    assert np.ptp(reference["O.angle"]) > 0.1
    assert np.max(np.abs(coupled["O.angle"] - reference["O.angle"])) < 1e-7
    # the port's across variable is the rate at which the strut lengthens: the eye is at
    # R_x(angle) (0.05, 0.1, 0.1) from the bob's centre, the anchor at (0.2, 0.5, 0.2)
    arm = _turned(coupled["O.angle"], [0.05, 0.1, 0.1])
    d = coupled["bob.position"] + arm - [0.2, 0.5, 0.2]
    v = coupled["bob.velocity"] + np.cross(coupled["bob.omega"], arm)
    np.testing.assert_allclose(coupled["strut.across"],
                               (d * v).sum(1) / np.linalg.norm(d, axis=1), atol=1e-9)


def _turned(angle, local):
    """Body-fixed ``local`` turned by ``angle`` about x (the bob's frame), per time."""
    c, s = np.cos(angle), np.sin(angle)
    x, y, z = local
    return np.column_stack([np.full_like(angle, x), c * y - s * z, s * y + c * z])


# -- refusals -------------------------------------------------------------------------------

def test_ports_on_joints_that_cannot_carry_them_are_refused_in_words():
    mech = vn.spatial.Mechanism("m")
    a = mech.body("a", 1.0, (0.1, 0.1, 0.1), position=(0, 0, -1))
    c = mech.body("c", 1.0, (0.1, 0.1, 0.1), position=(1, 0, -1))
    mech.spherical("ball", mech.ground.centre, a.point(0, 0, 1))
    mech.revolute("pin", a.centre, c.point(-1, 0, 0), axis=(0, 1, 0))
    for port, message in (
            (vn.RotaryPort("p", "g", "w", joint="ball"),
             "port 'p': a RotaryPort needs a revolute or cylindrical joint; 'ball' is a "
             "SpatialSpherical"),
            (vn.LinearPort("p", "g", "w", joint="pin"),
             "port 'p': a LinearPort needs a prismatic or cylindrical joint; 'pin' is a "
             "SpatialRevolute"),
            (vn.RotaryPort("p", "g", "w", joint="hinge"),
             "port 'p' names joint 'hinge', which mechanism 'm' does not have")):
        net = vn.Network("n")
        net.add(vn.TorqueSource("T", "g", "w", T=1.0), port)
        with pytest.raises(vn.ModelError) as info:
            vn.System(mech, net)
        assert str(info.value) == message


def test_spatial_sensors_are_checked():
    system = vn.System(spatial_pendulum())
    assert str(system.sensor("O.rate")) == "O.rate"
    with pytest.raises(vn.UnknownNameError, match="no joint or body 'hinge'"):
        system.sensor("hinge.angle")
    with pytest.raises(vn.ModelError, match="'O' has angle"):
        system.sensor("O.distance")
    with pytest.raises(vn.ModelError, match=r"points measure '<point>\.x\|y\|z\|vx\|vy\|vz'"):
        system.sensor("bob.tip.angle")
    with pytest.raises(vn.ModelError, match=r"bodies measure .*\|wx\|wy\|wz"):
        system.sensor("bob.omega")
