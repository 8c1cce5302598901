"""Unilateral contacts (a sphere, disc or point against the ground): impacts with
Newton's restitution, the contact closing with its normal force from a multiplier,
friction sticking and slipping while closed, against closed forms."""

import numpy as np
import pytest

import vecnet as vn
from vecnet.errors import FormulationError, ModelError

G = 9.81
TIGHT = {"rtol": 1e-10, "atol": 1e-12}


def ball(dimensions, height, radius=0.1, restitution=0.5, mass=2.0, **friction):
    """A ball (disc in the plane) of ``radius`` with its lowest point ``height`` above the
    floor, on the contact ``floor``."""
    size = radius or 0.1    # a point's body keeps some inertia
    if dimensions == 2:
        mech = vn.planar.Mechanism("bounce", gravity=(0, -G))
        body = mech.body("ball", mass=mass, inertia=0.5 * mass * size ** 2,
                         position=(0, height + radius))
    else:
        mech = vn.spatial.Mechanism("bounce", gravity=(0, 0, -G))
        inertia = 0.4 * mass * size ** 2
        body = mech.body("ball", mass, (inertia,) * 3, position=(0, 0, height + radius))
    mech.contact("floor", body, radius=radius, restitution=restitution, **friction)
    return mech


@pytest.mark.parametrize("dimensions, radius", [(2, 0.1), (3, 0.1), (3, 0.0)])
def test_bounce_heights_and_times_follow_the_restitution(dimensions, radius):
    e, h0 = 0.5, 1.0
    v1 = np.sqrt(2 * G * h0)
    strikes = [np.sqrt(2 * h0 / G)]
    for k in range(1, 5):
        strikes.append(strikes[-1] + 2 * e ** k * v1 / G)
    apex = [strikes[k] + e ** (k + 1) * v1 / G for k in range(4)]
    res = vn.simulate(ball(dimensions, h0, radius, e), (0, 2), t_eval=apex, **TIGHT)
    height = res["ball.y" if dimensions == 2 else "ball.z"] - radius
    expected = np.array([e ** (2 * (k + 1)) * h0 for k in range(4)])
    assert np.max(np.abs(height / expected - 1)) < 1e-9
    impacts = [event.t for event in res.events if event.kind == "impact"]
    assert len(impacts) == 4     # the run ends at the fourth apex
    assert np.max(np.abs(np.array(impacts) / strikes[:4] - 1)) < 1e-9
    assert np.all(res["floor.mode"] == 0) and np.all(res["floor.normal"] == 0)
    assert np.allclose(res["floor.gap"], height, atol=1e-15)


@pytest.mark.parametrize("dimensions", [2, 3])
def test_the_bouncing_ball_comes_to_rest_and_stays_with_its_weight_on_the_floor(dimensions):
    res = vn.simulate(ball(dimensions, 0.2), (0, 2), t_eval=[1.5, 2.0], **TIGHT)
    closing = [event for event in res.events if event.kind == "mode"]
    assert [(event.before, event.after) for event in closing] == [("open", "closed")]
    # the bounces take 2 v1 / g * e / (1 - e) after the first strike, which is at
    # sqrt(2 h0 / g): the Zeno time, which the contact closes just before
    v1 = np.sqrt(2 * G * 0.2)
    assert abs(closing[0].t - (v1 / G + 2 * v1 / G)) < 1e-6
    assert np.allclose(res["floor.normal"], 2.0 * G, rtol=1e-12)
    assert np.all(res["floor.mode"] == 1)
    assert np.max(np.abs(res["floor.gap"])) < 1e-12


@pytest.mark.parametrize("dimensions", [2, 3])
def test_a_ball_resting_on_the_floor_stays(dimensions):
    res = vn.simulate(ball(dimensions, 0.0), (0, 5), t_eval=np.linspace(0, 5, 11))
    assert res.events == ()
    assert np.max(np.abs(res["floor.gap"])) < 1e-15
    assert np.allclose(res["floor.normal"], 2.0 * G, rtol=1e-13)
    force = res["floor.force"]
    up = np.zeros(dimensions)
    up[-1] = 2.0 * G
    assert np.allclose(force, up, rtol=1e-13, atol=1e-12)


@pytest.mark.parametrize("change, words", [
    ({"restitution": 1.5}, "restitution"),
    ({"restitution": -0.1}, "restitution"),
    ({"mu_kinetic": -0.2}, "mu_kinetic"),
    ({"mu_kinetic": 0.5, "mu_static": 0.4}, "below mu_kinetic"),
    ({"mu_static": 0.4}, "needs mu_kinetic"),
    ({"radius": -0.1}, "radius"),
    ({"shape": "cube"}, "shape"),
    ({"plane": "wall"}, "plane"),
])
def test_bad_contacts_are_refused_in_words(change, words):
    mech = vn.planar.Mechanism("m", gravity=(0, -G))
    body = mech.body("ball", mass=1.0, inertia=0.01, position=(0, 1))
    with pytest.raises(ModelError, match=words):
        mech.contact("floor", body, **{"radius": 0.1, **change})


def test_a_contact_on_a_massless_body_is_refused():
    mech = vn.spatial.Mechanism("m")
    body = mech.body("ghost", 0, (0, 0, 0), position=(0, 0, 1))
    with pytest.raises(ModelError, match="no mass"):
        mech.contact("floor", body, radius=0.1)


def test_contacts_strike_only_through_the_partitioned_integrator():
    with pytest.raises(FormulationError, match="method='partition'"):
        vn.simulate(ball(2, 0.5), (0, 1), method="dae")


@pytest.mark.parametrize("dimensions", [2, 3])
def test_a_ball_launched_sliding_rolls_at_the_closed_form_time_and_speed(dimensions):
    """A disc (I = m r^2 / 2) in the plane, a sphere (2/5 m r^2) in space, launched
    along the floor at v0 without spin: friction mu_k m g slows the centre and spins the
    ball up until the contact point stops slipping, at t = v0 / ((1 + m r^2 / I) mu_k g),
    with speed v0 / (1 + I / (m r^2)); then it rolls, the contact sticking."""
    v0, mu, radius = 3.0, 0.2, 0.1
    ratio = 2.0 if dimensions == 2 else 2.5             # m r^2 / I
    roll = v0 / ((1 + ratio) * mu * G)
    final = v0 / (1 + 1 / ratio)
    mech = ball(dimensions, 0.0, radius, mu_kinetic=mu, mu_static=mu)
    push = (v0, 0.0) if dimensions == 2 else (v0, 0.0, 0.0)
    res = vn.simulate(mech, (0, 2 * roll), t_eval=[0.5 * roll, 1.5 * roll, 2 * roll],
                      velocities={"ball.velocity": push}, **TIGHT)
    (event,) = res.events
    assert (event.name, event.kind, event.before, event.after) == ("floor", "mode", "slip",
                                                                   "stick")
    assert abs(event.t / roll - 1) < 1e-9
    vx = res["ball.vx"]
    assert abs(vx[0] - (v0 - mu * G * 0.5 * roll)) < 1e-9 * v0
    assert np.max(np.abs(vx[1:] / final - 1)) < 1e-9
    assert list(res["floor.mode"]) == [2, 1, 1]
    assert np.allclose(res["floor.normal"], 2.0 * G, rtol=1e-12)
    # sliding: the friction force mu N against the slip; rolling on a level floor: none
    assert abs(res["floor.force"][0, 0] + mu * 2.0 * G) < 1e-9
    assert np.max(np.abs(res["floor.force"][1:, 0])) < 1e-9
    assert np.max(np.abs(res["floor.slip"][1:])) < 1e-9


def ladder(theta0, length=2.0, mass=3.0):
    """A rod of ``length`` leaning at ``theta0`` from the floor, its upper end on a wall
    (the line x = 0), its lower end on the floor, both frictionless points."""
    mech = vn.planar.Mechanism("ladder", gravity=(0, -G))
    half = 0.5 * length
    rod = mech.body("rod", mass=mass, inertia=mass * length ** 2 / 12,
                    position=(half * np.cos(theta0), half * np.sin(theta0)),
                    angle=np.pi - theta0)        # body x from the lower end to the upper
    mech.contact("wall", rod.point(half, 0), plane=mech.ground.point(0, 0), normal=(1, 0),
                 restitution=0.0)
    mech.contact("floor", rod.point(-half, 0), restitution=0.0)
    return mech


@pytest.mark.parametrize("theta0", [np.radians(60), np.radians(75)])
def test_a_ladder_leaves_the_wall_at_two_thirds_of_its_starting_sine(theta0):
    """While both ends touch, the centre moves on a circle of radius L/2 about the
    corner; the wall's push, m x'', vanishes when sin theta = 2/3 sin theta0."""
    res = vn.simulate(ladder(theta0), (0, 3), t_eval=[3.0], **TIGHT)
    leaves = [event for event in res.events if event.name == "wall"]
    assert [(event.before, event.after) for event in leaves][:1] == [("closed", "open")]
    assert all(event.name != "floor" for event in res.events[:1])
    when = leaves[0].t
    at = vn.simulate(ladder(theta0), (0, when), t_eval=[0.5 * when, when], **TIGHT)
    sine = np.sin(at["rod.angle"][-1])
    assert abs(sine - 2 / 3 * np.sin(theta0)) < 1e-8
    assert at["wall.normal"][0] > 0 and abs(at["wall.normal"][-1]) < 1e-6
    # the floor carries the weight less the centre's downward acceleration, and energy
    # is kept (no friction, no impact)
    assert np.allclose(at["energy"], at["energy"][0], rtol=1e-9)
    assert at["floor.normal"][0] < 3.0 * G


def rod_on_a_pin_and_the_floor(mass=3.0, length=2.0):
    """A horizontal rod pinned at its left end, its right end resting on the floor."""
    mech = vn.planar.Mechanism("rest", gravity=(0, -G))
    rod = mech.body("rod", mass=mass, inertia=mass * length ** 2 / 12,
                    position=(0.5 * length, 0.0))
    mech.revolute("pin", mech.ground.point(0, 0), rod.point(-0.5 * length, 0))
    mech.contact("floor", rod.point(0.5 * length, 0), restitution=0.0)
    return mech


def test_the_contact_force_is_a_reaction_that_the_cutsets_share_with_the_joints():
    res = vn.simulate(rod_on_a_pin_and_the_floor(), (0, 1), t_eval=[0.0, 1.0])
    assert res.events == ()
    assert np.allclose(res["floor.normal"], 3.0 * G / 2, rtol=1e-12)
    # the pin carries the other half of the weight (its reaction on the rod, upward)
    assert np.allclose(res["pin.reaction"], [[0.0, 3.0 * G / 2]] * 2, rtol=1e-12, atol=1e-12)


def test_contacts_are_saved_and_read_back(tmp_path):
    path = tmp_path / "ladder.json"
    vn.save_model(ladder(np.radians(60)), path)
    again = vn.load_model(path)
    res = vn.simulate(again, (0, 1), t_eval=[1.0], **TIGHT)
    expected = vn.simulate(ladder(np.radians(60)), (0, 1), t_eval=[1.0], **TIGHT)
    assert [event[:3] for event in res.events] == [event[:3] for event in expected.events]
    assert np.allclose(res["rod.angle"], expected["rod.angle"], rtol=1e-12)


def test_a_model_file_with_a_bad_contact_is_refused_at_its_entry(tmp_path):
    import json

    path = tmp_path / "ball.json"
    vn.save_model(ball(3, 0.5), path)
    doc = json.loads(path.read_text())
    k = next(i for i, e in enumerate(doc["forces"]) if e["name"] == "floor")
    doc["forces"][k]["restitution"] = 2.0
    path.write_text(json.dumps(doc))
    with pytest.raises(vn.VecnetError, match="restitution") as info:
        vn.load_model(path)
    assert f"forces/{k}" in str(info.value)


def test_the_report_draws_the_contacts_and_plots_their_modes(tmp_path):
    page = vn.report(ladder(np.radians(60)), tmp_path / "ladder.html")
    assert "Modes of the contacts" in page
    assert "1 mode change(s)" in page            # the wall opens at 0.46 s
    assert "wall" in page and "floor" in page
