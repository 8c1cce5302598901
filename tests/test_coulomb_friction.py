"""Set-valued Coulomb friction in joints (stick and slip switched by events, the force
mu |N| from the joint's normal reaction), against closed forms."""

import json

import numpy as np
import pytest

import vecnet as vn
from vecnet.errors import FormulationError, ModelError, VecnetError

G = 9.81
MU_K, MU_S = 0.3, 0.4
MASS = 2.0
TIGHT = {"rtol": 1e-10, "atol": 1e-12}


def incline(alpha, dimensions=2, **friction):
    """A block on a prismatic joint down a slope at ``alpha`` (the joint's distance grows
    down the slope), with set-valued friction ``rub``."""
    down = (np.cos(alpha), -np.sin(alpha))
    if dimensions == 2:
        mech = vn.planar.Mechanism("slope", gravity=(0, -G))
        block = mech.body("block", mass=MASS, inertia=0.1)
        mech.prismatic("slide", mech.ground.point(0, 0), block.centre, axis=down)
    else:
        mech = vn.spatial.Mechanism("slope", gravity=(0, -G, 0))
        block = mech.body("block", MASS, (0.1, 0.1, 0.1))
        mech.prismatic("slide", mech.ground.point(0, 0, 0), block.centre, axis=(*down, 0.0))
    mech.joint_friction("rub", "slide", **(friction or {"mu_kinetic": MU_K,
                                                         "mu_static": MU_S}))
    return mech


@pytest.mark.parametrize("dimensions", [2, 3])
def test_a_block_on_a_steep_incline_slides_with_the_kinetic_deceleration(dimensions):
    alpha = np.radians(30)   # tan 30 deg = 0.577 > mu_s: it cannot stick
    res = vn.simulate(incline(alpha, dimensions), (0, 2), t_eval=np.linspace(0, 2, 21),
                      **TIGHT)
    a = G * (np.sin(alpha) - MU_K * np.cos(alpha))
    x = res["slide.distance"]
    assert np.max(np.abs(x[1:] / (0.5 * a * res.t[1:] ** 2) - 1)) < 1e-9
    normal = MASS * G * np.cos(alpha)
    assert np.allclose(res["rub.normal"], normal, rtol=1e-12)
    assert np.allclose(res["rub.coulomb"], -MU_K * normal, rtol=1e-12)
    assert np.all(res["rub.mode"] == 1) and res.events == ()
    # what the friction applies to the block, along the slope, and the joint's own
    # reaction normal to it
    down = np.array([np.cos(alpha), -np.sin(alpha)])
    force = res["rub.force"][:, :2] if dimensions == 3 else res["rub.force"]
    assert np.allclose(force @ down, -MU_K * normal, rtol=1e-12)
    reaction = res["slide.reaction"][:, :2] if dimensions == 3 else res["slide.reaction"]
    assert np.allclose(reaction @ down, 0, atol=1e-9)
    assert np.allclose(np.linalg.norm(reaction, axis=1), normal, rtol=1e-12)


def test_a_block_on_a_shallow_incline_stays_put():
    alpha = np.radians(15)   # tan 15 deg = 0.268 < mu_s
    res = vn.simulate(incline(alpha), (0, 10), t_eval=np.linspace(0, 10, 101))
    assert np.max(np.abs(res["slide.distance"])) < 1e-12
    assert np.all(res["rub.mode"] == 0) and res.events == ()
    # the friction holds the block: the slope's pull, within mu_s N
    assert np.allclose(res["rub.coulomb"], -MASS * G * np.sin(alpha), rtol=1e-12)


@pytest.mark.parametrize("v0", [-2.0, 0.5])   # up the slope, down it
def test_a_pushed_block_stops_at_the_closed_form_time_and_distance_and_stays(v0):
    alpha = np.radians(15)
    # sliding, friction opposes the motion: up the slope gravity helps it stop
    deceleration = G * (MU_K * np.cos(alpha) + np.sign(v0) * -np.sin(alpha)) * np.sign(v0)
    stop_time = v0 / deceleration
    distance = v0 ** 2 / (2 * deceleration)
    assert stop_time > 0
    res = vn.simulate(incline(alpha), (0, 3), t_eval=np.linspace(0, 3, 61),
                      velocities={"slide.distance": v0}, **TIGHT)
    (event,) = res.events
    assert event.kind == "mode" and event.name == "rub"
    assert (event.before, event.after) == ("slip-" if v0 < 0 else "slip+", "stick")
    assert abs(event.t - stop_time) < 1e-9 * stop_time
    after = res.t > stop_time
    assert np.max(np.abs(res["slide.distance"][after] - distance)) < 1e-9 * abs(distance)
    assert np.all(res["rub.mode"][after] == 0)
    assert np.max(np.abs(res["slide.distance'"][after])) < 1e-13   # roundoff
    before = res.t < stop_time
    t = res.t[before]
    assert np.allclose(res["slide.distance"][before], v0 * t - 0.5 * np.sign(v0)
                       * abs(deceleration) * t ** 2, rtol=1e-9, atol=1e-12)


def stick_slip(m=1.0, k=100.0, speed=0.1):
    """A block on a belt driven at ``speed``, held back by a spring from the ground: the
    friction acts in the prismatic joint between block and belt."""
    mech = vn.planar.Mechanism("belt", gravity=(0, -G))
    belt = mech.body("belt", mass=1.0, inertia=0.1)
    block = mech.body("block", mass=m, inertia=0.1)
    mech.prismatic("track", mech.ground.point(0, 0), belt.centre, axis=(1, 0))
    mech.drive("run", "track", speed * vn.t)
    mech.prismatic("slide", belt.centre, block.centre, axis=(1, 0))
    mech.spring("k", mech.ground.point(-1, 0), block.centre, k=k, length=1.0)
    mech.joint_friction("rub", "slide", mu_kinetic=MU_K, mu_static=0.5)
    return mech


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_the_stick_slip_oscillator_has_the_closed_form_limit_cycle(coordinates):
    """In joint coordinates the friction's joint is a tree branch; in absolute ones a
    chord, its reaction from the multipliers."""
    m, k, speed, mu_s = 1.0, 100.0, 0.1, 0.5
    # the block rides the belt (x' = V) until the spring pulls mu_s m g: x_s; then it
    # slips, a harmonic oscillation about x_k = mu_k m g / k with the kinetic force,
    # starting at (x_s, V), until its speed is the belt's again, at 2 x_k - x_s (where
    # the spring's pull, below mu_s m g, is held: it sticks)
    w = np.sqrt(k / m)
    x_s, x_k = mu_s * m * G / k, MU_K * m * G / k
    amplitude = np.hypot(x_s - x_k, speed / w)
    phase = -np.arctan(speed / (w * (x_s - x_k)))     # x - x_k = A cos(w tau + phase)
    slip = (np.pi - 2 * phase) / w
    stick = 2 * (x_s - x_k) / speed
    first = x_s / speed
    peak = first + slip + stick - phase / w            # in the second slip, x = x_k + A
    trough = peak + np.pi / w                          # and x = x_k - A
    eom = stick_slip(m, k, speed).formulate(coordinates)
    res = vn.simulate(eom, (0, 2.6), t_eval=[0.0, peak, trough, 2.6],
                      velocities={"block.velocity": (speed, 0.0)}, **TIGHT)   # on the belt
    times = np.array([event.t for event in res.events])
    modes = [(event.before, event.after) for event in res.events]
    assert modes == [("stick", "slip-"), ("slip-", "stick")] * 3
    expected = first + np.cumsum([0, slip, stick, slip, stick, slip])
    assert np.max(np.abs(times - expected)) < 1e-8
    assert abs((times[4] - times[2]) / (slip + stick) - 1) < 1e-8
    x = res["block.x"]
    assert abs(x[1] - (x_k + amplitude)) < 1e-9 * amplitude
    assert abs(x[2] - (x_k - amplitude)) < 1e-9 * amplitude
    assert np.allclose(res["rub.normal"], m * G, rtol=1e-12)


def wheel(torque, **friction):
    """A disc on an axle fixed in the ground, its weight on the bearing, turned by a
    constant torque against set-valued friction in the revolute joint."""
    mech = vn.planar.Mechanism("axle", gravity=(0, -G))
    disc = mech.body("disc", mass=MASS, inertia=0.05)
    mech.revolute("pin", mech.ground.point(0, 0), disc.centre)
    mech.torque("drive", disc, torque)
    mech.joint_friction("bearing", "pin", **friction)
    return mech


def test_a_turning_joint_has_torque_radius_times_mu_n():
    radius = 0.02
    hold = MU_S * radius * MASS * G      # the most the bearing holds
    res = vn.simulate(wheel(0.9 * hold, mu_kinetic=MU_K, mu_static=MU_S, radius=radius),
                      (0, 1), t_eval=[0.0, 1.0])
    assert np.max(np.abs(res["pin.angle"])) < 1e-12 and np.all(res["bearing.mode"] == 0)
    res = vn.simulate(wheel(1.1 * hold, mu_kinetic=MU_K, mu_static=MU_S, radius=radius),
                      (0, 1), t_eval=[0.0, 1.0], **TIGHT)
    alpha = (1.1 * hold - MU_K * radius * MASS * G) / 0.05
    assert abs(res["pin.angle"][-1] / (0.5 * alpha) - 1) < 1e-9
    assert np.allclose(res["bearing.normal"], radius * MASS * G, rtol=1e-12)


def test_a_fixed_force_sticks_and_slips_without_the_normal_reaction():
    res = vn.simulate(wheel(0.5, coulomb=0.4, coulomb_static=0.6), (0, 1), t_eval=[0, 1.0])
    assert np.max(np.abs(res["pin.angle"])) < 1e-12
    res = vn.simulate(wheel(0.7, coulomb=0.4, coulomb_static=0.6), (0, 1), t_eval=[0, 1.0],
                      **TIGHT)
    assert abs(res["pin.angle"][-1] / (0.5 * (0.7 - 0.4) / 0.05) - 1) < 1e-9


def test_the_smooth_law_stays_the_default_without_coefficients():
    mech = incline(np.radians(30), coulomb=1.0, viscous=0.5)
    friction = mech.network.element("rub")
    assert friction.law == "smooth" and not friction.set_valued
    assert incline(0.3).network.element("rub").law == "set-valued"


@pytest.mark.parametrize("friction, words", [
    ({"mu_kinetic": -0.1}, "mu_kinetic"),
    ({"mu_kinetic": 0.5, "mu_static": 0.4}, "below mu_kinetic"),
    ({"mu_static": 0.4}, "needs mu_kinetic"),
    ({"mu_kinetic": 0.3, "coulomb": 2.0}, "not both"),
    ({"mu_kinetic": 0.3, "law": "smooth"}, "law='set-valued'"),
    ({"coulomb": 2.0, "coulomb_static": 1.0}, "static limit"),
    ({"law": "set-valued"}, "needs mu_kinetic"),
    ({"mu_kinetic": 0.3, "law": "sticky"}, "not one of"),
    ({"mu_kinetic": 0.3, "radius": 0.1}, "turning joint"),
])
def test_bad_friction_is_refused_in_words(friction, words):
    with pytest.raises(ModelError, match=words):
        incline(0.3, **friction)


def test_a_turning_joint_needs_its_friction_radius():
    with pytest.raises(ModelError, match="radius"):
        wheel(0.1, mu_kinetic=0.3)


def test_modes_switch_only_through_the_partitioned_integrator():
    with pytest.raises(FormulationError, match="method='partition'"):
        vn.simulate(incline(0.3), (0, 1), method="dae")


def test_friction_following_the_reaction_is_refused_with_gears():
    mech = vn.planar.Mechanism("gears", gravity=(0, -G))
    a = mech.body("a", mass=1.0, inertia=0.1, position=(0, 0))
    b = mech.body("b", mass=1.0, inertia=0.1, position=(1, 0))
    mech.revolute("A", mech.ground.point(0, 0), a.centre)
    mech.revolute("B", mech.ground.point(1, 0), b.centre)
    mech.gear("g", a, b, ratio=1.0)
    mech.joint_friction("f", "A", mu_kinetic=0.2, radius=0.01)
    with pytest.raises(FormulationError, match="gears"):
        vn.simulate(mech, (0, 0.1))


def test_set_valued_friction_is_saved_and_read_back(tmp_path):
    mech = incline(np.radians(30))
    path = tmp_path / "slope.json"
    vn.save_model(mech, path)
    entry = next(e for e in json.loads(path.read_text())["forces"] if e["name"] == "rub")
    assert (entry["mu_kinetic"], entry["mu_static"]) == (MU_K, MU_S)
    again = vn.load_model(path)
    res = vn.simulate(again, (0, 1), t_eval=[0.0, 1.0])
    a = G * (np.sin(np.radians(30)) - MU_K * np.cos(np.radians(30)))
    assert abs(res["slide.distance"][-1] / (0.5 * a) - 1) < 1e-7


@pytest.mark.parametrize("change, words", [
    ({"mu_kinetic": -0.3}, "zero or more"),
    ({"mu_static": 0.1}, "below mu_kinetic"),
    ({"law": "sticky"}, "law"),
])
def test_a_model_file_with_bad_friction_is_refused_at_its_entry(tmp_path, change, words):
    path = tmp_path / "slope.json"
    vn.save_model(incline(np.radians(30)), path)
    doc = json.loads(path.read_text())
    k = next(i for i, e in enumerate(doc["forces"]) if e["name"] == "rub")
    doc["forces"][k].update(change)
    path.write_text(json.dumps(doc))
    with pytest.raises(VecnetError, match=words) as info:
        vn.load_model(path)
    assert f"forces/{k}" in str(info.value)


def test_friction_coefficients_may_be_parameters():
    mech = incline(np.radians(30), mu_kinetic=vn.Symbol("mu"), mu_static=vn.Symbol("mu_s"))
    alpha = np.radians(30)
    for mu in (0.2, 0.3):
        res = vn.simulate(mech, (0, 1), t_eval=[0.0, 1.0], parameters={"mu": mu, "mu_s": 0.4},
                          **TIGHT)
        a = G * (np.sin(alpha) - mu * np.cos(alpha))
        assert abs(res["slide.distance"][-1] / (0.5 * a) - 1) < 1e-9
    eom = mech.formulate()
    with eom.runtime_parameters({"mu": 0.25, "mu_s": 0.4}):
        res = vn.simulate(eom, (0, 1), t_eval=[0.0, 1.0], **TIGHT)
    a = G * (np.sin(alpha) - 0.25 * np.cos(alpha))
    assert abs(res["slide.distance"][-1] / (0.5 * a) - 1) < 1e-9
    with pytest.raises(FormulationError, match="mu_kinetic <= mu_static"):
        vn.simulate(mech, (0, 1), parameters={"mu": 0.5, "mu_s": 0.4})


def test_the_report_plots_the_friction_modes(tmp_path):
    page = vn.report(stick_slip(), tmp_path / "belt.html")
    assert "Modes of the joint friction that sticks and slips" in page
    assert "2 switch(es)" in page     # in the report's 1 s: slips at 0.49 s, sticks at 0.90 s
