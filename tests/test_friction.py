"""Viscous and Coulomb friction in planar revolute and prismatic joints, checked against
textbook results (a block on a slope, the decay of a linearly damped pendulum) and the
energy balance (what friction dissipates is what the mechanism loses)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import simpson

import vecnet as vn
from vecnet.errors import ModelError

G = 9.81


def slope(angle: float, mu: float, smoothing: float, mass: float = 2.0):
    """A block on a slope at ``angle``, sliding down along a prismatic joint, with the
    Coulomb force of a contact pressed by gravity: ``mu m g cos(angle)``."""
    mech = vn.planar.Mechanism("slope", gravity=(0, -G))
    block = mech.body("block", mass=mass, inertia=0.1)
    mech.prismatic("slide", mech.ground.point(0, 0), block.centre,
                   axis=(math.cos(angle), -math.sin(angle)))
    mech.joint_friction("rub", "slide", coulomb=mu * mass * G * math.cos(angle),
                        smoothing=smoothing)
    return mech.formulate()


def test_block_slides_with_the_textbook_acceleration_above_the_friction_angle():
    angle, mu = math.radians(30), 0.3   # tan 30 deg = 0.577 > mu
    res = slope(angle, mu, smoothing=1e-4).simulate(1.0, t_eval=np.linspace(0, 1, 11))
    acceleration = G * (math.sin(angle) - mu * math.cos(angle))
    assert res["slide.distance"][-1] == pytest.approx(0.5 * acceleration, rel=1e-3)
    assert res["slide.distance'"][-1] == pytest.approx(acceleration, rel=1e-3)


def test_block_sticks_below_the_friction_angle():
    angle, mu, smoothing = math.radians(20), 0.5, 1e-3   # tan 20 deg = 0.364 < mu
    res = slope(angle, mu, smoothing).simulate(1.0, t_eval=np.linspace(0, 1, 11))
    assert np.max(np.abs(res["slide.distance'"])) < 10 * smoothing
    frictionless = 0.5 * G * math.sin(angle)
    assert abs(res["slide.distance"][-1]) < 1e-2 * frictionless


def pendulum(viscous: float, coulomb: float = 0.0, smoothing: float = 1e-3,
             start: float = 0.0, m: float = 1.5, arm: float = 0.8, J: float = 0.02):
    """A body pinned to the ground ``arm`` from its mass centre, hanging down turned by
    ``start`` (rad), with friction in the pin."""
    angle = -math.pi / 2 + start
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -G))
    bob = mech.body("bob", mass=m, inertia=J, angle=angle,
                    position=(arm * math.cos(angle), arm * math.sin(angle)))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-arm, 0))
    mech.joint_friction("rub", "pin", viscous=viscous, coulomb=coulomb, smoothing=smoothing)
    return mech.formulate()


def decay_rate(times, swing):
    """The rate at which the peaks of a decaying swing (equally spaced samples) shrink: the
    log decrement per period over the period, the decay rate of J th'' + c th' + K th = 0."""
    k = np.where((swing[1:-1] > swing[:-2]) & (swing[1:-1] >= swing[2:]))[0] + 1
    # a parabola through each sampled maximum and its neighbours gives the peak
    before, at, after = swing[k - 1], swing[k], swing[k + 1]
    shift = 0.5 * (before - after) / (before - 2 * at + after)
    peak_times = times[k] + shift * (times[1] - times[0])
    peaks = at - 0.25 * (before - after) * shift
    assert len(peaks) >= 4
    return -np.polyfit(peak_times, np.log(peaks), 1)[0]


def test_viscous_pin_friction_decays_small_swings_at_c_over_2J():
    m, arm, J, c = 1.5, 0.8, 0.02, 0.05
    times = np.linspace(0, 6, 6001)
    res = pendulum(c, m=m, arm=arm, J=J).simulate(6.0, t_eval=times,
                                                  velocities={"pin.angle": 0.02})
    rate = decay_rate(times, res["pin.angle"] - res["pin.angle"][0])
    assert rate == pytest.approx(c / (2 * (J + m * arm**2)), rel=1e-2)


def test_energy_lost_equals_the_work_of_pin_friction():
    c, Tc, eps = 0.05, 0.3, 1e-2
    times = np.linspace(0, 2, 4001)
    res = pendulum(c, Tc, eps, start=1.0).simulate(2.0, t_eval=times)
    w = res["pin.angle'"]
    power = (c * w + Tc * np.tanh(w / eps)) * w   # the documented law
    lost = res["energy"][0] - res["energy"][-1]
    assert lost > 0.5
    assert lost == pytest.approx(simpson(power, x=times), rel=1e-4)


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_slider_on_a_turning_arm_dissipates_what_its_friction_works(coordinates):
    """A bead on a pivoted rod: the slider's axis turns with the rod, and its friction
    works on the sliding speed relative to the rod alone."""
    c, Fc, eps = 0.8, 0.5, 1e-2
    mech = vn.planar.Mechanism("bead", gravity=(0, -G))
    rod = mech.body("rod", mass=1.0, inertia=0.1, position=(0.5, 0.0))
    bead = mech.body("bead", mass=0.5, inertia=0.001, position=(0.7, 0.0))
    mech.revolute("pivot", mech.ground.point(0, 0), rod.point(-0.5, 0))
    mech.prismatic("slide", rod.centre, bead.centre, axis=(1, 0))
    mech.joint_friction("rub", "slide", viscous=c, coulomb=Fc, smoothing=eps)
    times = np.linspace(0, 1, 2001)
    res = mech.formulate(coordinates=coordinates).simulate(1.0, t_eval=times)
    v = np.gradient(res["slide.distance"], times, edge_order=2)
    inner = slice(5, -5)  # away from the ends, where the difference is one-sided
    assert np.max(np.abs(v)) > 0.3
    power = (c * v + Fc * np.tanh(v / eps)) * v
    lost = res["energy"][0] - res["energy"][-1]
    assert lost == pytest.approx(simpson(power, x=times), rel=2e-3)
    # the force it applies to the bead (the slider's head) lies along the rod and opposes
    # the sliding
    along = np.column_stack([np.cos(res["rod.angle"]), np.sin(res["rod.angle"])])
    force = res["rub.force"]
    assert np.allclose(np.einsum("ij,ij->i", force, along)[inner],
                       -(c * v + Fc * np.tanh(v / eps))[inner], rtol=1e-3, atol=1e-3)


def test_friction_needs_a_revolute_or_prismatic_joint():
    mech = vn.planar.Mechanism("m")
    a = mech.body("a", mass=1.0, inertia=0.1)
    mech.weld("w", mech.ground.point(0, 0), a.centre)
    with pytest.raises(ModelError, match="'w' is a Weld"):
        mech.joint_friction("f", "w", viscous=1.0)
    mech2 = vn.planar.Mechanism("m2")
    b = mech2.body("b", mass=1.0, inertia=0.1)
    mech2.revolute("pin", mech2.ground.point(0, 0), b.centre)
    with pytest.raises(ModelError, match="coulomb"):
        mech2.joint_friction("f", "pin", coulomb=-1.0)
    with pytest.raises(ModelError, match="smoothing"):
        mech2.joint_friction("f", "pin", coulomb=1.0, smoothing=0)


# -- joint limits: unilateral stops with restitution -------------------------------------

def slope_into_stop(restitution: float, length: float, angle: float = math.radians(30)):
    """A frictionless block released at rest, sliding down a slope into a stop
    ``length`` further down."""
    mech = vn.planar.Mechanism("slope", gravity=(0, -G))
    block = mech.body("block", mass=2.0, inertia=0.1)
    mech.prismatic("slide", mech.ground.point(0, 0), block.centre,
                   axis=(math.cos(angle), -math.sin(angle)))
    mech.joint_limit("stop", "slide", upper=length, restitution=restitution)
    return mech.formulate()


def test_block_bounces_off_a_stop_with_e_times_its_speed():
    e, length, a = 0.6, 0.5, G * math.sin(math.radians(30))
    v_in = math.sqrt(2 * a * length)
    hit = v_in / a
    times = np.linspace(0, hit + 1.5 * e * v_in / a, 41)   # before the second strike
    res = slope_into_stop(e, length).simulate(times[-1], t_eval=times)
    after = times > hit
    tau = times[after] - hit
    # out at -e v_in, then decelerated by gravity along the slope again
    assert np.allclose(res["slide.distance'"][after], -e * v_in + a * tau, rtol=0, atol=1e-7)
    assert np.allclose(res["slide.distance"][after], length - e * v_in * tau + 0.5 * a * tau**2,
                       rtol=0, atol=1e-7)
    assert np.max(res["slide.distance"]) <= length + 1e-9
    # the impact keeps e^2 of the kinetic energy: m a L gained, (1 - e^2) m a L lost
    assert res["energy"][-1] == pytest.approx(-(1 - e**2) * 2.0 * a * length, rel=1e-7)


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_turning_bar_rebounds_from_an_angle_stop(coordinates):
    """A bar spinning about a pin, in zero gravity, strikes a stop on the pin's angle: the
    impulse acts in the joint, so with the pin a constraint (absolute coordinates) too it
    leaves at -e times its rate and the pin stays closed."""
    e, w0, limit = 0.5, 2.0, 0.4
    mech = vn.planar.Mechanism("bar", gravity=(0, 0))
    bar = mech.body("bar", mass=1.0, inertia=0.05, position=(0.3, 0.0))
    mech.revolute("pin", mech.ground.point(0, 0), bar.point(-0.3, 0))
    mech.joint_limit("stop", "pin", lower=-1.0, upper=limit, restitution=e)
    eom = mech.formulate(coordinates=coordinates)
    given = {"pin.angle": w0} if coordinates == "joint" else {"bar.angle": w0}
    res = eom.simulate(0.5, t_eval=[0.0, 0.5], velocities=given)
    hit = limit / w0
    assert res["bar.omega"][-1] == pytest.approx(-e * w0, rel=1e-8)
    assert res["pin.angle"][-1] == pytest.approx(limit - e * w0 * (0.5 - hit), rel=1e-8)
    assert res["constraint residual"][-1] < 1e-9


def test_joint_limits_are_checked():
    mech = vn.planar.Mechanism("m")
    a = mech.body("a", mass=1.0, inertia=0.1)
    mech.prismatic("rail", mech.ground.point(0, 0), a.centre)
    for bad, words in (({"upper": 1, "restitution": 1.5}, "restitution"),
                       ({"lower": 1, "upper": 0}, "above"), ({}, "lower=")):
        with pytest.raises(ModelError, match=words):
            mech.joint_limit("stop", "rail", **bad)
    mech.joint_limit("stop", "rail", lower=0.1)
    with pytest.raises(vn.errors.FormulationError, match="beyond stop 'stop.lower'"):
        mech.formulate().simulate(0.1)
    with pytest.raises(vn.errors.FormulationError, match="method='partition'"):
        slope_into_stop(0.5, 0.5).simulate(0.1, method="dae")


def test_a_block_settling_on_its_stop_is_refused_in_words():
    with pytest.raises(vn.errors.SimulationError, match="settling on its stop"):
        slope_into_stop(0.5, 0.5).simulate(3.0)
