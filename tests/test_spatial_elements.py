"""Joint friction, joint limits, gears and rack and pinion in spatial mechanisms, each
checked against a hand result: a block on a slope (Coulomb's law), a pendulum with a
viscous pin (the decay c / 2J and the energy balance), a block bouncing off a stop
(Newton's law of impact), gear pairs (the reflected inertia, parallel and crossed axes) and
a rack driven by its pinion (x = r theta). The slopes and axes are tilted out of the
coordinate planes, so nothing planar is tested twice."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import simpson
from scipy.spatial.transform import Rotation

import vecnet as vn
from test_friction import decay_rate
from vecnet.errors import FormulationError, ModelError, UnknownNameError

G = 9.81
# a tilt that takes the slopes, pins and axes out of the coordinate planes
TILT = Rotation.from_euler("zx", [0.7, 0.3])


def _slope(angle: float, mu: float, smoothing: float = 1e-4, mass: float = 2.0,
           restitution: float | None = None, length: float | None = None):
    """A block sliding down a slope at ``angle`` (gravity along -z) on a prismatic joint
    whose axis points down the slope in a turned vertical plane, with the Coulomb force of
    a contact pressed by gravity, ``mu m g cos(angle)``, and optionally a stop ``length``
    down the slope."""
    heading = 0.6   # the slope's direction in the horizontal plane
    down = (math.cos(angle) * math.cos(heading), math.cos(angle) * math.sin(heading),
            -math.sin(angle))
    mech = vn.spatial.Mechanism("slope", gravity=(0, 0, -G))
    block = mech.body("block", mass, (0.1, 0.2, 0.3), position=(0.2, -0.1, 0.4),
                      orientation=TILT)
    mech.prismatic("slide", mech.ground.point(0.2, -0.1, 0.4), block.centre, axis=down)
    if mu:
        mech.joint_friction("rub", "slide", coulomb=mu * mass * G * math.cos(angle),
                            smoothing=smoothing)
    if length is not None:
        mech.joint_limit("stop", "slide", upper=length, restitution=restitution)
    return mech


# -- friction ------------------------------------------------------------------------------

def test_block_slides_down_a_slope_with_g_sin_minus_mu_cos():
    angle, mu = math.radians(30), 0.3            # tan 30 deg = 0.577 > mu: it slides
    res = _slope(angle, mu).formulate().simulate(1.0, t_eval=np.linspace(0, 1, 11))
    acceleration = G * (math.sin(angle) - mu * math.cos(angle))
    assert res["slide.distance"][-1] == pytest.approx(0.5 * acceleration, rel=1e-3)
    assert res["slide.distance'"][-1] == pytest.approx(acceleration, rel=1e-3)
    # what the friction applies to the block: mu m g cos(a), up the slope
    down = np.array(_slope(angle, mu).network.element("slide").axis)   # tail (ground) axes
    assert np.allclose(res["rub.force"][-1], -mu * 2.0 * G * math.cos(angle) * down, rtol=1e-6)
    assert np.allclose(res["rub.torque"], 0.0)


def test_block_sticks_below_the_friction_angle():
    angle, mu, smoothing = math.radians(20), 0.5, 1e-3   # tan 20 deg = 0.364 < mu
    res = _slope(angle, mu, smoothing).formulate().simulate(1.0, t_eval=np.linspace(0, 1, 11))
    assert np.max(np.abs(res["slide.distance'"])) < 10 * smoothing
    assert abs(res["slide.distance"][-1]) < 1e-2 * 0.5 * G * math.sin(angle)


def _pendulum(viscous: float, coulomb: float = 0.0, smoothing: float = 1e-3,
              m: float = 1.5, arm: float = 0.8, J: float = 0.02, start: float = 0.0):
    """A body hanging ``arm`` below a pin whose axis is horizontal but off the coordinate
    axes, turned ``start`` about it; ``J`` is its moment about the pin's axis through its
    mass centre."""
    axis = np.array([math.cos(0.4), math.sin(0.4), 0.0])
    turn = Rotation.from_rotvec(start * axis)
    mech = vn.spatial.Mechanism("pendulum", gravity=(0, 0, -G))
    bob = mech.body("bob", m, (J, J, J), position=turn.apply((0, 0, -arm)), orientation=turn)
    mech.revolute("pin", mech.ground.point(0, 0, 0), bob.point(0, 0, arm), axis=tuple(axis))
    mech.joint_friction("rub", "pin", viscous=viscous, coulomb=coulomb, smoothing=smoothing)
    return mech


def test_viscous_pin_friction_decays_small_swings_at_c_over_2J():
    m, arm, J, c = 1.5, 0.8, 0.02, 0.05
    times = np.linspace(0, 6, 6001)
    res = _pendulum(c, m=m, arm=arm, J=J).formulate().simulate(
        6.0, t_eval=times, velocities={"pin.angle": 0.02})
    rate = decay_rate(times, res["pin.angle"])
    assert rate == pytest.approx(c / (2 * (J + m * arm**2)), rel=1e-2)


def test_energy_lost_equals_the_work_of_pin_friction():
    c, Tc, eps = 0.05, 0.3, 1e-2
    times = np.linspace(0, 2, 4001)
    res = _pendulum(c, Tc, eps, start=1.0).formulate().simulate(2.0, t_eval=times)
    w = res["pin.angle'"]
    power = (c * w + Tc * np.tanh(w / eps)) * w   # the documented law
    lost = res["energy"][0] - res["energy"][-1]
    assert lost > 0.5
    assert lost == pytest.approx(simpson(power, x=times), rel=1e-4)
    # the torque on the bob opposes its turn about the pin's axis
    axis = np.array([math.cos(0.4), math.sin(0.4), 0.0])
    assert np.allclose(res["rub.torque"], -np.outer(c * w + Tc * np.tanh(w / eps), axis),
                       atol=1e-9)


def test_friction_along_a_cylindrical_joint_slows_its_slide_not_its_turn():
    """A sleeve spinning and sliding on a frictionless shaft in zero gravity, with viscous
    friction on the slide only: the slide decays as exp(-c t / m), the spin stays."""
    m, c, w0, v0 = 2.0, 3.0, 5.0, 1.0
    mech = vn.spatial.Mechanism("sleeve", gravity=(0, 0, 0))
    sleeve = mech.body("sleeve", m, (0.05, 0.05, 0.02), orientation=TILT)
    mech.cylindrical("shaft", mech.ground.point(0, 0, 0), sleeve.centre,
                     axis=tuple(TILT.apply((0, 0, 1))))
    mech.joint_friction("drag", "shaft", viscous=c, quantity="distance")
    times = np.linspace(0, 1, 5)
    res = mech.formulate().simulate(1.0, t_eval=times,
                                    velocities={"shaft.angle": w0, "shaft.distance": v0})
    assert np.allclose(res["shaft.distance'"], v0 * np.exp(-c * times / m), rtol=1e-7)
    assert np.allclose(res["shaft.angle'"], w0, rtol=1e-9)


def test_friction_is_refused_in_words_where_a_joint_has_no_axis():
    mech = vn.spatial.Mechanism("m")
    bob = mech.body("bob", 1.0, (0.1, 0.1, 0.1), position=(0, 0, -1))
    mech.spherical("ball", mech.ground.point(0, 0, 0), bob.point(0, 0, 1))
    with pytest.raises(ModelError, match="joint friction 'f'.*'ball' is a SpatialSpherical"):
        mech.joint_friction("f", "ball", viscous=1.0)
    with pytest.raises(UnknownNameError):
        mech.joint_friction("f", "nothing", viscous=1.0)
    mech.revolute("pin", mech.ground.point(1, 0, 0), mech.body(
        "arm", 1.0, (0.1, 0.1, 0.1), position=(1, 0, 0)).centre)
    with pytest.raises(ModelError, match="'g'.*'pin' along its 'distance'"):
        mech.joint_friction("g", "pin", viscous=1.0, quantity="distance")
    with pytest.raises(ModelError, match="smoothing"):
        mech.joint_friction("g", "pin", coulomb=1.0, smoothing=0)


# -- joint limits --------------------------------------------------------------------------

def test_block_bounces_off_a_stop_with_minus_e_times_its_speed():
    e, length, angle = 0.6, 0.5, math.radians(30)
    a = G * math.sin(angle)
    v_in = math.sqrt(2 * a * length)
    hit = v_in / a
    times = np.linspace(0, hit + 1.5 * e * v_in / a, 41)   # before the second strike
    res = _slope(angle, 0.0, restitution=e, length=length).formulate().simulate(
        times[-1], t_eval=times)
    after = times > hit
    tau = times[after] - hit
    assert np.allclose(res["slide.distance'"][after], -e * v_in + a * tau, atol=1e-7)
    assert np.allclose(res["slide.distance"][after],
                       length - e * v_in * tau + 0.5 * a * tau**2, atol=1e-7)
    assert np.max(res["slide.distance"]) <= length + 1e-9
    # the strike keeps e^2 of the kinetic energy: m a L gained, (1 - e^2) m a L lost
    assert res["energy"][-1] - res["energy"][0] == pytest.approx(
        -(1 - e**2) * 2.0 * a * length, rel=1e-7)


def test_a_stop_on_a_cut_joint_is_refused_in_words():
    mech = _slope(math.radians(30), 0.0, restitution=0.5, length=0.5)
    with pytest.raises(FormulationError, match="joint limit 'stop'.*'slide' is cut"):
        mech.formulate(coordinates="absolute")
    with pytest.raises(ModelError, match="restitution"):
        mech.joint_limit("again", "slide", lower=0, restitution=2)


# -- gears and rack and pinion -------------------------------------------------------------

Ja, Jb, RATIO, TORQUE = 0.1, 0.3, 0.5, 2.0


def _gear_pair(axis_b, internal: bool = False):
    """Gear ``a`` on a pin about a tilted axis, gear ``b`` on a pin about ``axis_b``
    (tilted likewise), a torque on ``a`` about its axis; zero gravity. ``Ja``, ``Jb`` are
    the moments about the pins' axes."""
    axis_a = TILT.apply((0, 0, 1))
    axis_b = TILT.apply(axis_b)
    mech = vn.spatial.Mechanism("pair", gravity=(0, 0, 0))
    a = mech.body("a", 1.0, (Ja, Ja, Ja))
    b = mech.body("b", 1.0, (Jb, Jb, Jb), position=(1.5, 0, 0))
    mech.revolute("A", mech.ground.point(0, 0, 0), a.centre, axis=tuple(axis_a))
    mech.revolute("B", mech.ground.point(1.5, 0, 0), b.centre, axis=tuple(axis_b))
    mech.gear("mesh", a, b, ratio=RATIO, internal=internal)
    mech.torque("T", a, tuple(TORQUE * axis_a))
    return mech, axis_a, axis_b


@pytest.mark.parametrize("axis_b", [(0, 0, 1), (1, 0, 0)], ids=["parallel", "bevel"])
def test_a_driven_gear_turns_the_other_at_minus_ratio(axis_b):
    mech, axis_a, axis_b = _gear_pair(axis_b)
    res = mech.formulate().simulate(1.0, t_eval=[0.0, 0.5, 1.0])
    acc = TORQUE / (Ja + Jb * RATIO**2)          # T = (Ja + Jb ratio^2) theta_a''
    assert np.allclose(res["A.angle"], acc * res.t**2 / 2, atol=1e-8)
    assert np.allclose(res["B.angle"], -RATIO * res["A.angle"], atol=1e-10)
    # the teeth turn b at Jb theta_b'' and hold a back by ratio times that
    assert np.allclose(res["mesh.torque_b"], np.outer(np.ones(3), -Jb * RATIO * acc * axis_b),
                       atol=1e-9)
    assert np.allclose(res["mesh.torque_a"], np.outer(np.ones(3), -Jb * RATIO**2 * acc * axis_a),
                       atol=1e-9)
    assert "A.reaction" not in res   # the axles' share of the tooth force is not known


def test_an_internal_gear_turns_the_same_way():
    mech, _, _ = _gear_pair((0, 0, 1), internal=True)
    res = mech.formulate().simulate(1.0, t_eval=[0.0, 1.0])
    assert res["B.angle"][-1] == pytest.approx(RATIO * res["A.angle"][-1], rel=1e-9)
    assert res["A.angle"][-1] == pytest.approx(TORQUE / (Ja + Jb * RATIO**2) / 2, rel=1e-8)


def test_a_gear_on_a_body_joined_the_other_way_round():
    """The pin of ``b`` runs from the gear to the ground: the gear's turn is still its own
    turn about the axis, the joint's angle the ground's turn relative to the gear."""
    mech = vn.spatial.Mechanism("pair", gravity=(0, 0, 0))
    a = mech.body("a", 1.0, (Ja, Ja, Ja))
    b = mech.body("b", 1.0, (Jb, Jb, Jb), position=(1.5, 0, 0))
    mech.revolute("A", mech.ground.point(0, 0, 0), a.centre, axis=(0, 0, 1))
    mech.revolute("B", b.centre, mech.ground.point(1.5, 0, 0), axis=(0, 0, 1))
    mech.gear("mesh", a, b, ratio=RATIO)
    mech.torque("T", a, (0, 0, TORQUE))
    res = mech.formulate().simulate(1.0, t_eval=[0.0, 1.0])
    assert res["b.omega"][-1][2] == pytest.approx(-RATIO * res["a.omega"][-1][2], rel=1e-9)
    assert res["a.omega"][-1][2] == pytest.approx(TORQUE / (Ja + Jb * RATIO**2), rel=1e-8)


def test_rack_advances_radius_times_the_pinion_turn():
    radius, m_rack, Jp = 0.05, 2.0, 1e-3
    axis_p = TILT.apply((0, 0, 1))
    along = TILT.apply((1, 0, 0))                 # perpendicular to the pinion's axis
    mech = vn.spatial.Mechanism("rack", gravity=(0, 0, 0))
    pinion = mech.body("pinion", 0.5, (Jp, Jp, Jp))
    rack = mech.body("rack", m_rack, (0.1, 0.1, 0.1), position=(0, -radius, 0))
    mech.revolute("P", mech.ground.point(0, 0, 0), pinion.centre, axis=tuple(axis_p))
    mech.prismatic("S", mech.ground.point(0, -radius, 0), rack.centre, axis=tuple(along))
    mech.rack_and_pinion("mesh", pinion, rack, radius=radius)
    mech.torque("T", pinion, tuple(TORQUE * axis_p))
    res = mech.formulate().simulate(0.5, t_eval=[0.0, 0.25, 0.5])
    acc = TORQUE / (Jp + m_rack * radius**2)     # the rack reflected to the pinion
    assert np.allclose(res["P.angle"], acc * res.t**2 / 2, atol=1e-8)
    assert np.allclose(res["S.distance"], radius * res["P.angle"], atol=1e-10)
    assert np.allclose(res["rack.position"], np.outer(res["S.distance"], along)
                       + (0, -radius, 0), atol=1e-9)
    assert np.allclose(res["mesh.force_b"], m_rack * radius * acc, atol=1e-8)
    assert np.allclose(res["mesh.torque_a"],
                       np.outer(-radius * res["mesh.force_b"], axis_p), atol=1e-10)


def test_a_rack_said_to_advance_the_other_way_moves_back():
    radius = 0.05
    mech = vn.spatial.Mechanism("rack", gravity=(0, 0, 0))
    pinion = mech.body("pinion", 0.5, (1e-3, 1e-3, 1e-3))
    rack = mech.body("rack", 2.0, (0.1, 0.1, 0.1), position=(0, radius, 0))
    mech.revolute("P", mech.ground.point(0, 0, 0), pinion.centre, axis=(0, 0, 1))
    mech.prismatic("S", mech.ground.point(0, radius, 0), rack.centre, axis=(1, 0, 0))
    mech.rack_and_pinion("mesh", pinion, rack, radius=radius, axis=(-1, 0, 0))
    mech.torque("T", pinion, (0, 0, TORQUE))
    res = mech.formulate().simulate(0.5, t_eval=[0.0, 0.5])
    assert res["S.distance"][-1] == pytest.approx(-radius * res["P.angle"][-1], rel=1e-9)
    with pytest.raises(ModelError, match="not parallel"):
        mech.rack_and_pinion("skew", pinion, rack, radius=radius, axis=(0, 1, 0))


def test_gears_are_checked_in_words():
    mech, _, _ = _gear_pair((0, 0, 1))
    a, b = mech.bodies["a"], mech.bodies["b"]
    with pytest.raises(ModelError, match="ratio must be positive"):
        mech.gear("g2", a, b, ratio=0)
    loose = mech.body("loose", 1.0, (0.1, 0.1, 0.1), position=(3, 0, 0))
    with pytest.raises(ModelError, match="'g3': body 'loose' turns or slides on no"):
        mech.gear("g3", a, loose, ratio=1)
    mech.revolute("C", mech.ground.point(3, 0, 0), loose.centre)
    with pytest.raises(ModelError, match="joint 'C' does not join body 'b'"):
        mech.gear("g4", a, b, ratio=1, joints=("A", "C"))
    # in absolute coordinates the pins are cut, where an angle counts no whole turns
    with pytest.raises(FormulationError, match="'mesh': joint 'A' is cut"):
        mech.formulate(coordinates="absolute")


def test_a_gear_ratio_may_be_a_parameter():
    ratio = vn.Symbol("ratio", positive=True)
    mech = vn.spatial.Mechanism("pair", gravity=(0, 0, 0))
    a = mech.body("a", 1.0, (Ja, Ja, Ja))
    b = mech.body("b", 1.0, (Jb, Jb, Jb), position=(1.5, 0, 0))
    mech.revolute("A", mech.ground.point(0, 0, 0), a.centre, axis=(0, 0, 1))
    mech.revolute("B", mech.ground.point(1.5, 0, 0), b.centre, axis=(0, 0, 1))
    mech.gear("mesh", a, b, ratio=ratio)
    mech.torque("T", a, (0, 0, TORQUE))
    res = mech.formulate().simulate(1.0, t_eval=[0.0, 1.0], parameters={ratio: RATIO})
    acc = TORQUE / (Ja + Jb * RATIO**2)
    assert res["A.angle"][-1] == pytest.approx(acc / 2, rel=1e-8)
    assert res["mesh.torque_a"][-1][2] == pytest.approx(-Jb * RATIO**2 * acc, rel=1e-8)


def test_a_spring_across_a_ball_joint_has_no_line_and_is_refused_in_words():
    # the ball joint holds the spring's two points together in every pose: the line a
    # spring acts along has no direction (the plane refuses the same, on its pin)
    mech = vn.spatial.Mechanism("top", gravity=(0, 0, -9.81))
    top = mech.body("top", 1.0, (0.1, 0.1, 0.05), position=(0, 0, 0.5))
    mech.spherical("tip", mech.ground.point(0, 0, 0), top.point(0, 0, -0.5))
    mech.spring("sp", mech.ground.point(0, 0, 0), top.point(0, 0, -0.4), k=1.0)
    assert mech.formulate().Q.shape == (3, 1)        # points apart: a line, a force
    held = vn.spatial.Mechanism("held", gravity=(0, 0, -9.81))
    body = held.body("top", 1.0, (0.1, 0.1, 0.05), position=(0.1, 0, 0.5))   # tip at x = 0.1
    pin, tip = held.ground.point(0, 0, 0), body.point(0, 0, -0.5)
    held.spherical("tip", pin, tip)
    held.spring("sp", pin, tip, k=1.0)      # apart as built, together once assembled
    with pytest.raises(vn.FormulationError, match="held at the same place"):
        held.formulate().Q
