"""Joint reactions of mechanisms driven by a lumped network through ports.

A port's load (a motor's torque across a revolute, a force along a prismatic joint or
between two points) is an element in parallel with the joint, not part of it: an ideal
revolute carries no torque about its axis and an ideal slider no force along its axis,
whatever drives them. The reactions are checked against Newton-Euler written here for
each body, with the accelerations from the equation of motion derived by hand.
"""

import numpy as np
import pytest

import vecnet as vn

m, Jc, Lg, g, T = 2.0, 0.1, 1.0, 9.81, 2.4     # bob, arm from the pin to its mass centre


def torque_drive(rotor=None):
    """A torque source T on the pin's shaft (driving the head body counter-clockwise, or
    about the joint's axis), optionally with a rotor of inertia ``rotor`` on the shaft."""
    net = vn.Network("drive")
    net.add(vn.TorqueSource("T", "ref", "w", T=T), vn.RotaryPort("shaft", "ref", "w", joint="pin"))
    if rotor:
        net.add(vn.Inertia("Jr", "ref", "w", J=rotor))
    return net


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
@pytest.mark.parametrize("rotor", [0.0, 0.3])
def test_planar_motor_torque_is_not_a_revolute_reaction(coordinates, rotor):
    """A bob on a pin at the origin, its mass centre at r_G = L (cos b, sin b), driven by a
    motor torque T across the pin (on a rotor J_r): (J_c + m L^2 + J_r) b'' = T - m g L cos b.
    The pin pushes the bob with F = m (a_G - g) and no torque about its axis: the bob's
    Euler equation about its mass centre, J_c b'' = (T - J_r b'') - r_G x F (the rotor
    takes J_r b'' of the motor's torque), then holds."""
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -g))
    bob = mech.body("bob", mass=m, inertia=Jc, position=(Lg, 0.0))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-Lg, 0.0))
    ts = np.linspace(0, 1.0, 11)
    res = vn.System(mech, torque_drive(rotor)).simulate(1.0, coordinates=coordinates,
                                                        t_eval=ts, rtol=1e-10, atol=1e-12)
    b, w = res["pin.angle"], res["bob.omega"]
    alpha = (T - m * g * Lg * np.cos(b)) / (Jc + m * Lg**2 + rotor)
    rG = Lg * np.stack([np.cos(b), np.sin(b)], axis=1)
    aG = alpha[:, None] * Lg * np.stack([-np.sin(b), np.cos(b)], axis=1) - w[:, None]**2 * rG
    F = m * aG - m * np.array([0.0, -g])
    np.testing.assert_allclose(res["pin.reaction"], F, atol=1e-7)
    np.testing.assert_allclose(res["pin.reaction_torque"], 0.0, atol=1e-9)
    torque = T - rotor * alpha - (rG[:, 0] * F[:, 1] - rG[:, 1] * F[:, 0])
    np.testing.assert_allclose(Jc * alpha, torque, atol=1e-7)
    assert np.ptp(b) > 0.5     # it swung


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_spatial_motor_torque_is_not_a_revolute_reaction(coordinates):
    """A bob on a pin about the world x axis, its mass centre at rho = (s, L sin b, -L cos b)
    from the pin (off the pin along the axis, so the pin also holds a bending torque),
    gravity -z, driven by T about the axis: (J_x + m L^2) b'' = T - m g L sin b. The pin's
    force is F = m (a_G - g) and its torque follows from Euler's equation about the mass
    centre, J_x b'' e = T e + tau + (-rho) x F: it has no component along the axis e."""
    s, J = 0.4, (0.1, 0.15, 0.12)
    e = np.array([1.0, 0.0, 0.0])
    mech = vn.spatial.Mechanism("pendulum", gravity=(0, 0, -g))
    bob = mech.body("bob", mass=m, inertia=J, position=(s, 0.0, -Lg))
    mech.revolute("pin", mech.ground.point(0, 0, 0), bob.point(-s, 0.0, Lg), axis=tuple(e))
    ts = np.linspace(0, 1.0, 11)
    res = vn.System(mech, torque_drive()).simulate(1.0, coordinates=coordinates, t_eval=ts,
                                                   rtol=1e-10, atol=1e-12)
    b, w = res["pin.angle"], res["bob.omega"] @ e
    alpha = (T - m * g * Lg * np.sin(b)) / (J[0] + m * Lg**2)
    rho = np.stack([np.full_like(b, s), Lg * np.sin(b), -Lg * np.cos(b)], axis=1)
    np.testing.assert_allclose(res["bob.position"], rho, atol=1e-9)
    aG = alpha[:, None] * np.cross(e, rho) - w[:, None]**2 * (rho - np.outer(rho @ e, e))
    F = m * aG - m * np.array([0.0, 0.0, -g])
    np.testing.assert_allclose(res["pin.reaction"], F, atol=1e-7)
    tau = J[0] * alpha[:, None] * e - T * e + np.cross(rho, F)
    np.testing.assert_allclose(res["pin.reaction_torque"], tau, atol=1e-7)
    np.testing.assert_allclose(res["pin.reaction_torque"] @ e, 0.0, atol=1e-9)
    assert np.max(np.abs(tau[:, 1:])) > 1.0      # a bending torque the pin does carry


def two_link_arm(dimensions):
    """Two uniform links along x from a pin at the origin, pinned to each other (axes z)."""
    if dimensions == 2:
        mech = vn.planar.Mechanism("arm", gravity=(0, -g))
        P = lambda x: (x, 0.0)                               # noqa: E731
        kw = {}
        inertia = lambda mass, length: mass * length**2 / 12  # noqa: E731
    else:
        mech = vn.spatial.Mechanism("arm", gravity=(0, -g, 0))
        P = lambda x: (x, 0.0, 0.0)                          # noqa: E731
        kw = {"axis": (0, 0, 1)}
        inertia = lambda mass, length: (0.01, mass * length**2 / 12, mass * length**2 / 12)  # noqa: E731
    return mech, P, kw, inertia


@pytest.mark.parametrize("dimensions", [2, 3])
@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_motors_holding_an_arm_at_rest_leave_the_pins_only_forces(dimensions, coordinates):
    """Two links (m1, L1; m2, L2) held horizontal by motors at the shoulder and the elbow:
    statics gives T_elbow = m2 g L2 / 2, T_shoulder = m1 g L1 / 2 + m2 g (L1 + L2 / 2); the
    arm stays at rest, the shoulder pin carries the weight of both links, the elbow pin
    that of the outer link, and neither a torque (the motors carry it all)."""
    m1, L1, m2, L2 = 3.0, 0.8, 1.5, 0.6
    mech, P, kw, inertia = two_link_arm(dimensions)
    upper = mech.body("upper", mass=m1, inertia=inertia(m1, L1), position=P(L1 / 2))
    lower = mech.body("lower", mass=m2, inertia=inertia(m2, L2), position=P(L1 + L2 / 2))
    mech.revolute("pin", mech.ground.point(*P(0)), upper.point(*P(-L1 / 2)), **kw)
    mech.revolute("elbow", upper.point(*P(L1 / 2)), lower.point(*P(-L2 / 2)), **kw)
    T_elbow = m2 * g * L2 / 2
    T_shoulder = m1 * g * L1 / 2 + m2 * g * (L1 + L2 / 2)
    net = vn.Network("motors")
    net.add(vn.TorqueSource("Ts", "ref", "a", T=T_shoulder),
            vn.RotaryPort("shoulder", "ref", "a", joint="pin"),
            vn.TorqueSource("Te", "ref", "b", T=T_elbow),
            vn.RotaryPort("motor", "ref", "b", joint="elbow"))
    ts = np.linspace(0, 0.5, 6)
    res = vn.System(mech, net).simulate(0.5, coordinates=coordinates, t_eval=ts, rtol=1e-10,
                                        atol=1e-12)
    np.testing.assert_allclose(res["upper.omega"], 0.0, atol=1e-9)
    np.testing.assert_allclose(res["lower.omega"], 0.0, atol=1e-9)
    up = np.zeros(dimensions)
    up[1] = 1.0
    np.testing.assert_allclose(res["pin.reaction"], np.outer(np.ones_like(ts), (m1 + m2) * g * up),
                               atol=1e-8)
    np.testing.assert_allclose(res["elbow.reaction"], np.outer(np.ones_like(ts), m2 * g * up),
                               atol=1e-8)
    np.testing.assert_allclose(res["pin.reaction_torque"], 0.0, atol=1e-8)
    np.testing.assert_allclose(res["elbow.reaction_torque"], 0.0, atol=1e-8)


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_force_along_a_slider_is_not_its_reaction(coordinates):
    """A block on a slider inclined at beta, pushed along it by F through a linear port:
    m s'' = F - m g sin(beta). Newton's law for the block, m a = F u + R + m g with a = s'' u,
    gives the slider's reaction R: the weight's part across the axis, nothing along it, and
    no torque about the block's mass centre."""
    F, beta = 30.0, 0.5
    u = np.array([np.cos(beta), np.sin(beta)])
    mech = vn.planar.Mechanism("incline", gravity=(0, -g))
    block = mech.body("block", mass=m, inertia=Jc, position=(0.0, 0.0))
    mech.prismatic("S", mech.ground.point(0, 0), block.centre, axis=tuple(u))
    net = vn.Network("ram")
    net.add(vn.ForceSource("F", "ref", "x", F=F), vn.LinearPort("ram", "ref", "x", joint="S"))
    ts = np.linspace(0, 0.5, 6)
    res = vn.System(mech, net).simulate(0.5, coordinates=coordinates, t_eval=ts, rtol=1e-10,
                                        atol=1e-12)
    acc = F / m - g * np.sin(beta)
    np.testing.assert_allclose(res["S.distance"], acc * ts**2 / 2, atol=1e-9)
    reaction = m * acc * u - F * u - m * np.array([0.0, -g])
    np.testing.assert_allclose(res["S.reaction"], np.outer(np.ones_like(ts), reaction), atol=1e-8)
    np.testing.assert_allclose(res["S.reaction"] @ u, 0.0, atol=1e-8)
    np.testing.assert_allclose(res["S.reaction_torque"], 0.0, atol=1e-9)


@pytest.mark.parametrize("dimensions", [2, 3])
def test_a_strut_between_points_loads_the_pin_as_the_mechanism_spring_does(dimensions):
    """A spring and damper between a ground point and a point of a pendulum bob, once as
    the mechanism's own element and once in a network joined by a linear port between the
    two points: the same physical strut, so the pin reacts alike (the strut's force is
    not the pin's)."""
    k, c = 40.0, 0.8
    results = []
    for network_spring in (False, True):
        if dimensions == 2:
            mech = vn.planar.Mechanism("strut", gravity=(0, -g))
            bob = mech.body("bob", mass=0.7, inertia=0.01, position=(0.3, -0.5))
            mech.revolute("pin", mech.ground.point(0, 0), bob.point(-0.3, 0.5))
            anchor, eye = mech.ground.point(0.5, 0.2), bob.point(0.1, 0.1, name="eye")
        else:
            mech = vn.spatial.Mechanism("strut", gravity=(0, 0, -g))
            bob = mech.body("bob", mass=0.7, inertia=(0.01, 0.02, 0.015), position=(0, 0.3, -0.5))
            mech.revolute("pin", mech.ground.point(0, 0, 0), bob.point(0, -0.3, 0.5),
                          axis=(1, 0, 0))
            anchor, eye = mech.ground.point(0.2, 0.5, 0.2), bob.point(0.05, 0.1, 0.1, name="eye")
        ts = np.linspace(0, 1.0, 11)
        if network_spring:
            net = vn.Network("strut")
            net.add(vn.LinearPort("strut", "ref", "x", points=(anchor, eye)),
                    vn.Spring("k", "ref", "x", k=k), vn.Damper("c", "ref", "x", b=c))
            res = vn.System(mech, net).simulate(1.0, t_eval=ts, rtol=1e-10, atol=1e-12)
        else:
            mech.spring("k", anchor, eye, k=k, c=c)
            res = mech.formulate().simulate(1.0, t_eval=ts, rtol=1e-10, atol=1e-12)
        results.append(res)
    reference, coupled = results
    np.testing.assert_allclose(coupled["pin.reaction"], reference["pin.reaction"], atol=1e-6)
    np.testing.assert_allclose(coupled["pin.reaction_torque"], reference["pin.reaction_torque"],
                               atol=1e-6)
