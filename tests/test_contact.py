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
    # the event is the root of the slip speed's interpolant, whose error is the integrator's
    # (rtol v0 + atol, a hundred times over at most in the accumulated error of the run)
    # divided by the rate at which slip falls, (1 + m r^2 / I) mu g; 1e-9 relative failed
    # on an AMD processor by 2.99e-9
    located = 100 * (TIGHT["rtol"] * v0 + TIGHT["atol"]) / ((1 + ratio) * mu * G)
    assert abs(event.t - roll) < located
    vx = res["ball.vx"]
    assert abs(vx[0] - (v0 - mu * G * 0.5 * roll)) < 1e-9 * v0
    assert np.max(np.abs(vx[1:] / final - 1)) < 1e-9
    assert list(res["floor.mode"]) == [2, 1, 1]
    assert np.allclose(res["floor.normal"], 2.0 * G, rtol=1e-12)
    # sliding: the friction force mu N against the slip; rolling on a level floor: none
    assert abs(res["floor.force"][0, 0] + mu * 2.0 * G) < 1e-9
    assert np.max(np.abs(res["floor.force"][1:, 0])) < 1e-9
    assert np.max(np.abs(res["floor.slip"][1:])) < 1e-9


@pytest.mark.parametrize("rtol", [1e-3, 1e-6])
@pytest.mark.parametrize("dimensions", [2, 3])
def test_a_sliding_ball_stops_slipping_at_the_closed_form_time_at_any_tolerance(dimensions,
                                                                                rtol):
    """While the ball slides, its centre's speed and its spin change at constant rates:
    the integrator's steps and their interpolant are exact for such a motion (a
    polynomial of degree two in the coordinates), whatever ``rtol``, and so is the root
    of the slip speed, at ``v0 / ((1 + m r^2 / I) mu_k g)`` to roundoff. A step that
    crosses the root sees the slip fall on past zero (the friction is not flipped there),
    so that none is rejected for it and the root is not taken from a step cut short."""
    v0, mu = 3.0, 0.2
    ratio = 2.0 if dimensions == 2 else 2.5
    roll = v0 / ((1 + ratio) * mu * G)
    push = (v0, 0.0) if dimensions == 2 else (v0, 0.0, 0.0)
    res = vn.simulate(ball(dimensions, 0.0, 0.1, mu_kinetic=mu, mu_static=mu),
                      (0, 2 * roll), t_eval=[2 * roll], velocities={"ball.velocity": push},
                      rtol=rtol, atol=rtol / 100)
    (event,) = res.events
    assert event.after == "stick"
    assert abs(event.t / roll - 1) < 1e-9
    assert abs(res["ball.vx"][-1] / (v0 / (1 + 1 / ratio)) - 1) < 1e-9
    assert abs(res["floor.slip"][-1]) < 1e-9


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


@pytest.mark.parametrize("key", ["mu_kinetic", "restitution"])
def test_a_contact_coefficient_may_be_a_declared_parameter_of_a_file(tmp_path, key):
    """In a model file a contact's coefficient may name a declared parameter, which takes
    its value (the run is the one with the number); in Python a symbol is refused by name,
    pointing at the study that varies the coefficient, since the contact's event-driven
    numerics take numbers."""
    import json

    mech = vn.planar.Mechanism("bounce", gravity=(0, -G))
    body = mech.body("ball", mass=1.0, inertia=0.004, position=(0, 1))
    with pytest.raises(ModelError, match=rf"{key} = mu must be a number.*'floor.{key}'"):
        mech.contact("floor", body, radius=0.1, **{key: vn.Symbol("mu")})
    path = tmp_path / "ball.json"
    vn.save_model(ball(2, 0.0, mu_kinetic=0.4, restitution=0.4), path)
    doc = json.loads(path.read_text())
    k = next(i for i, e in enumerate(doc["forces"]) if e["name"] == "floor")
    doc["forces"][k][key] = "mu"
    doc["parameters"] = {"mu": 0.4}
    path.write_text(json.dumps(doc))
    push = {"ball.velocity": (3.0, -1.0)}
    res = vn.simulate(vn.load_model(path), (0, 1), t_eval=[0.5, 1.0], velocities=push, **TIGHT)
    expected = vn.simulate(ball(2, 0.0, mu_kinetic=0.4, restitution=0.4), (0, 1),
                           t_eval=[0.5, 1.0], velocities=push, **TIGHT)
    assert [event[:3] for event in res.events] == [event[:3] for event in expected.events]
    assert np.array_equal(res["ball.vx"], expected["ball.vx"])
    doc["parameters"] = {"mu": -1.0}
    path.write_text(json.dumps(doc))
    with pytest.raises(vn.VecnetError, match=key) as info:
        vn.load_model(path)
    assert f"forces/{k}" in str(info.value)


def test_the_report_draws_the_contacts_and_plots_their_modes(tmp_path):
    page = vn.report(ladder(np.radians(60)), tmp_path / "ladder.html")
    assert "Modes of the contacts" in page
    assert "1 mode change(s)" in page            # the wall opens at 0.46 s
    assert "wall" in page and "floor" in page


def thrown_ball_closed_form(dimensions, v0, spin, h0, e, mu, radius=0.1):
    """A ball (``m r^2 / I = k``: 5/2 a sphere, 2 a disc) thrown level at ``v0`` with
    forward spin ``spin`` (the sense in which it would roll forward) from ``h0`` onto a
    floor with restitution ``e`` and friction ``mu``, as vecnet models it: each impact
    carries a Coulomb friction impulse (Routh's, the sphere's impulses being uncoupled).

    Per unit mass, impact j gives the normal impulse ``p_j = (1 + e) e^(j-1) v1`` with
    ``v1 = sqrt(2 g h0)``, the bounce heights ``e^(2j) h0`` as without friction. The slip
    ``s = v - r spin`` (the contact point's speed) is the only tangential speed friction
    sees: a tangential impulse ``p_t`` changes ``v`` by ``-p_t`` and ``r spin`` by ``k
    p_t``, so ``s`` by ``-(1 + k) p_t``. Friction gives ``p_t = mu p_j`` against the slip
    until the slip would reverse, when the impact sticks instead: the slip stops once the
    normal impulse summed from the first strike reaches ``|s0| / ((1 + k) mu)``. The
    impacts sum to ``v1 (1 + e) / (1 - e)`` at the Zeno time ``t1 + 2 e v1 / (g (1 -
    e))``; beyond it the ball lies on the floor and the impulse grows as ``g t``. Either
    way the angular momentum about the contact point is kept (every force acts there or,
    gravity, on the vertical through it), so the ball rolls at ``(k v0 + r spin) / (k +
    1)``: ``(5 v0 + 2 r spin) / 7`` for a sphere.

    Returns the apex times and the ``(v, spin)`` of the first flights, the time the slip
    stops and the impact it stops at (0: after the bounces, on the floor), the rolling
    speed."""
    k = 2.5 if dimensions == 3 else 2.0
    v1, t1 = np.sqrt(2 * G * h0), np.sqrt(2 * h0 / G)
    s0 = v0 - radius * spin
    needed = abs(s0) / ((1 + k) * mu)          # normal impulse (per mass) to stop the slip
    flights, v, w, total, stops, when = [], v0, spin, 0.0, 0, None
    for j in range(1, 6):
        p = (1 + e) * e ** (j - 1) * v1
        strike = t1 + 2 * e * v1 * (1 - e ** (j - 1)) / (G * (1 - e))
        pt = min(mu * p, max(needed - total, 0.0) * mu)   # what is left of the slip's need
        v, w = v - np.sign(s0) * pt, w + np.sign(s0) * k * pt / radius
        if stops == 0 and total + p >= needed:
            stops, when = j, strike
        total += p
        flights.append((strike + e ** j * v1 / G, v, w))
    zeno = t1 + 2 * e * v1 / (G * (1 - e))
    if when is None:
        when = zeno + (needed - v1 * (1 + e) / (1 - e)) / G
    return flights, when, stops, (k * v0 + radius * spin) / (k + 1)


@pytest.mark.parametrize("dimensions, v0, spin, h0, e, mu, stops", [
    (3, 3.0, 0.0, 0.05, 0.5, 0.1, 0),        # no spin: slides on after the bounces
    (3, 3.0, -20.0, 0.2, 0.5, 0.2, 0),       # backspin
    (3, 3.0, 50.0, 0.2, 0.5, 0.15, 2),       # topspin, the slip stopped by the 2nd impact
    (3, 3.0, 0.0, 0.2, 0.5, 0.3, 1),         # no spin, rolling from the first impact
    (2, 3.0, -20.0, 0.05, 0.5, 0.1, 0),      # a disc with backspin
])
def test_a_ball_thrown_spinning_onto_the_floor_bounces_slides_and_rolls(dimensions, v0, spin,
                                                                       h0, e, mu, stops):
    radius, mass = 0.1, 2.0
    flights, when, stop_at, final = thrown_ball_closed_form(dimensions, v0, spin, h0, e, mu)
    assert stop_at == stops
    apex = [t for t, _, _ in flights[:3]]
    end = max(when, apex[-1]) + 0.3
    mech = ball(dimensions, h0, radius, e, mass, mu_kinetic=mu, mu_static=mu)
    if dimensions == 3:
        start = {"ball.velocity": (v0, 0.0, 0.0), "ball.omega": (0.0, spin, 0.0)}
    else:                            # forward (+x) rolling turns the disc clockwise
        start = {"ball.velocity": (v0, 0.0), "ball.omega": -spin}
    res = vn.simulate(mech, (0, end), t_eval=[*apex, end], velocities=start, **TIGHT)
    height = res["ball.z" if dimensions == 3 else "ball.y"] - radius
    assert np.max(np.abs(height[:3] / [e ** (2 * j) * h0 for j in (1, 2, 3)] - 1)) < 1e-9
    spins = res["ball.omega"][:, 1] if dimensions == 3 else -res["ball.omega"]
    for s, (_, v, w) in enumerate(flights[:3]):
        assert abs(res["ball.vx"][s] - v) < 1e-9 * v0
        assert abs(spins[s] - w) * radius < 1e-9 * v0
    assert abs(res["ball.vx"][-1] - final) < 1e-9 * v0
    assert abs(spins[-1] * radius - final) < 1e-9 * v0
    assert abs(res["floor.slip"][-1]) < 1e-9 and res["floor.mode"][-1] == 1
    modes = [(event.t, event.before, event.after) for event in res.events
             if event.kind == "mode"]
    if stops:      # the slip stopped in a sticking impact, and the bounces roll on
        assert res["floor.slip"][stops - 1] < 1e-9      # in the flight after that impact
        assert stops == 1 or res["floor.slip"][stops - 2] > 0.1
        assert modes[0][1:] == ("open", "stick")
    else:          # closed after the bounces, it slides until the slip stops
        assert [m[1:] for m in modes] == [("open", "slip"), ("slip", "stick")]
        assert abs(modes[1][0] - when) < 1e-6


def two_spheres(dimensions, offset, e, ma=1.0, mb=3.0, ra=0.1, rb=0.15, **friction):
    """Sphere ``a`` (a disc in the plane) at the origin and sphere ``b`` at ``(1, offset)``,
    without gravity, on the contact ``hit``."""
    if dimensions == 3:
        mech = vn.spatial.Mechanism("pair", gravity=(0, 0, 0))
        a = mech.body("a", ma, (0.4 * ma * ra ** 2,) * 3, position=(0, 0, 0))
        b = mech.body("b", mb, (0.4 * mb * rb ** 2,) * 3, position=(1, offset, 0))
    else:
        mech = vn.planar.Mechanism("pair", gravity=(0, 0))
        a = mech.body("a", mass=ma, inertia=0.5 * ma * ra ** 2, position=(0, 0))
        b = mech.body("b", mass=mb, inertia=0.5 * mb * rb ** 2, position=(1, offset))
    mech.contact("hit", b, radius=rb, sphere=a, sphere_radius=ra, restitution=e, **friction)
    return mech


@pytest.mark.parametrize("dimensions, offset, e", [
    (3, 0.0, 0.5),        # head-on
    (3, 0.125, 0.5),      # oblique: the line of centres at 30 degrees
    (3, 0.2, 1.0),        # oblique and elastic
    (2, -0.125, 0.8),     # discs in the plane
])
def test_two_spheres_strike_with_momentum_kept_and_the_normal_speed_reversed(dimensions,
                                                                           offset, e):
    """``a`` moves at ``v`` along x towards ``b`` at rest. They touch when the centres are
    ``ra + rb`` apart, at ``x = 1 - sqrt((ra + rb)^2 - offset^2)``, along the unit line of
    centres ``n`` (from ``a`` to ``b``). A frictionless impulse ``P n`` through both
    centres keeps the momentum and turns the approach speed ``v . n`` into ``-e`` times
    itself: ``P = (1 + e) m (v . n)`` with ``m = ma mb / (ma + mb)``; ``a`` leaves with
    ``v - P n / ma``, ``b`` with ``P n / mb``, neither turning. Afterwards the contact
    opens: the gap grows at ``e v . n``."""
    v, ma, mb, ra, rb = 2.0, 1.0, 3.0, 0.1, 0.15
    reach = np.sqrt((ra + rb) ** 2 - offset ** 2)
    when = (1 - reach) / v
    n = np.array([reach, offset, 0.0]) / (ra + rb)
    P = (1 + e) * ma * mb / (ma + mb) * v * n[0]
    va = np.array([v, 0.0, 0.0]) - P * n / ma
    vb = P * n / mb
    mech = two_spheres(dimensions, offset, e)
    end = when + 0.5
    push = (v, 0.0, 0.0)[:dimensions]
    res = vn.simulate(mech, (0, end), t_eval=[0.5 * when, when + 0.25, end],
                      velocities={"a.velocity": push}, **TIGHT)
    (strike,) = res.events
    assert (strike.name, strike.kind) == ("hit", "impact")
    assert abs(strike.t - when) < 1e-10
    assert np.max(np.abs(res["a.velocity"][1:] - va[:dimensions])) < 1e-10 * v
    assert np.max(np.abs(res["b.velocity"][1:] - vb[:dimensions])) < 1e-10 * v
    momentum = ma * res["a.velocity"] + mb * res["b.velocity"]
    assert np.allclose(momentum, ma * np.array(push), rtol=0, atol=1e-12)
    assert np.max(np.abs(res["a.omega"])) < 1e-13 and np.max(np.abs(res["b.omega"])) < 1e-13
    # the gap: closing at v . n before, opening at e v . n after (to first order)
    assert abs(res["hit.gap"][0] - (np.hypot(1 - 0.5 * when * v, offset) - ra - rb)) < 1e-12
    assert np.all(res["hit.mode"][1:] == 0) and res["hit.gap"][2] > res["hit.gap"][1] > 0
    gap_rate = (res["hit.gap"][2] - res["hit.gap"][1]) / 0.25
    if offset == 0:
        assert abs(gap_rate - e * v) < 1e-10
    energy = 0.5 * (ma * v ** 2 - ma * va @ va - mb * vb @ vb)
    loss = 0.5 * (1 - e ** 2) * ma * mb / (ma + mb) * (v * n[0]) ** 2
    assert abs(energy - loss) < 1e-12


@pytest.mark.parametrize("dimensions", [2, 3])
def test_a_sphere_pair_is_saved_and_read_back(tmp_path, dimensions):
    path = tmp_path / "pair.json"
    vn.save_model(two_spheres(dimensions, 0.125, 0.5), path)
    again = vn.load_model(path)
    push = (2.0, 0.0, 0.0)[:dimensions]
    runs = [vn.simulate(m, (0, 0.6), t_eval=[0.6], velocities={"a.velocity": push}, **TIGHT)
            for m in (again, two_spheres(dimensions, 0.125, 0.5))]
    assert [e[:3] for e in runs[0].events] == [e[:3] for e in runs[1].events]
    assert len(runs[0].events) == 1
    assert np.allclose(runs[0]["b.velocity"], runs[1]["b.velocity"], rtol=1e-12, atol=1e-14)


def test_a_study_varies_a_contacts_restitution_by_name():
    # after the first strike at t1 the disc rises at e v1: its centre at T (before the
    # second strike for both values) is r + e v1 (T - t1) - g (T - t1)^2 / 2
    mech = vn.planar.Mechanism("ball", gravity=(0, -G))
    disc = mech.body("ball", mass=1.0, inertia=0.005, position=(0, 1.1))
    mech.contact("floor", disc, radius=0.1, restitution=0.5, shape="disc")
    assert set(mech.element_parameters()) == {"ball.mass", "ball.inertia", "floor.restitution"}
    T, h0 = 0.8, 1.0
    t1, v1 = np.sqrt(2 * h0 / G), np.sqrt(2 * G * h0)
    table = vn.sweep(mech, {"floor.restitution": [0.5, 0.8]}, "simulate", t_end=T,
                     outputs=["ball.y"], **TIGHT)
    for e, y in zip(table["floor.restitution"], table["ball.y.final"]):
        expected = 0.1 + e * v1 * (T - t1) - 0.5 * G * (T - t1) ** 2
        assert abs(y - expected) < 1e-8


def cradle(dimensions, count=5, gap=1e-3, mass=0.06, radius=0.05, e=1.0, gravity=0.0):
    """``count`` equal spheres in a row along x, ``gap`` apart, a contact ``c<k>`` between
    each neighbour and the next; gravity (if any) acts on all alike, across the row."""
    if dimensions == 2:
        mech = vn.planar.Mechanism("cradle", gravity=(0, -gravity))
    else:
        mech = vn.spatial.Mechanism("cradle", gravity=(0, 0, -gravity))
    balls = []
    for k in range(count):
        x = k * (2 * radius + gap)
        if dimensions == 2:
            balls.append(mech.body(f"b{k}", mass=mass, inertia=0.4 * mass * radius ** 2,
                                   position=(x, 1.0)))
        else:
            balls.append(mech.body(f"b{k}", mass, (0.4 * mass * radius ** 2,) * 3,
                                   position=(x, 0.0, 1.0)))
    for k in range(count - 1):
        mech.contact(f"c{k}", balls[k + 1], radius=radius, sphere=balls[k], restitution=e)
    return mech


@pytest.mark.parametrize("dimensions, mass, gravity", [
    (2, 0.06, 0.0), (3, 0.06, 0.0), (3, 0.058, G), (2, 0.06, G)])
def test_newtons_cradle_passes_the_first_sphere_s_speed_to_the_last(dimensions, mass,
                                                                     gravity):
    """Equal spheres, elastic (e = 1), a gap between each: the first, struck at v, hands
    its whole speed on at each impact (equal masses exchange their normal speeds), so the
    k-th impact comes at k gap / v and only the last sphere moves afterwards. The resting
    spheres' open contacts have a gap whose rate is zero: no mode switch, whatever the
    mass (on the main line a mass of 0.06 kg chattered at t = 0 and 0.058 kg did not)."""
    v, gap = 1.0, 1e-3
    mech = cradle(dimensions, mass=mass, gravity=gravity)
    push = (v, 0.0, 0.0)[:dimensions]
    res = vn.simulate(mech, (0, 0.05), t_eval=[0.0, 0.05], velocities={"b0.velocity": push},
                      **TIGHT)
    assert [(ev.name, ev.kind) for ev in res.events] == [(f"c{k}", "impact") for k in range(4)]
    assert np.allclose([ev.t for ev in res.events], gap / v * np.arange(1, 5), rtol=0,
                       atol=1e-10)
    for k in range(5):
        along = res[f"b{k}.velocity"][-1][0]
        assert abs(along - (v if k == 4 else 0.0)) < 1e-10
        # across the row every sphere falls alike (or stays)
        assert abs(res[f"b{k}.velocity"][-1][-1] - (-gravity * 0.05 if dimensions == 3
                                                    else res["b0.velocity"][-1][-1])) < 1e-9


def swung_sphere(at: float, angle: float = 1.5, r: float = 0.05, arm_length: float = 0.5):
    """An arm turning about the z axis with a sphere at its tip (radius ``arm_length``),
    and a free sphere at rest at distance ``at`` from the axis, at ``angle``; no gravity,
    elastic and frictionless."""
    mech = vn.spatial.Mechanism("swing", gravity=(0, 0, 0))
    arm = mech.body("arm", 1.0, (0.01, 0.1, 0.1), position=(arm_length / 2, 0, 0))
    mech.revolute("axle", mech.ground.point(0, 0, 0), arm.point(-arm_length / 2, 0, 0))
    ball = mech.body("ball", 0.2, (0.4 * 0.2 * r * r,) * 3,
                     position=(at * np.cos(angle), at * np.sin(angle), 0))
    mech.contact("pass", arm.point(arm_length / 2, 0, 0), radius=r, sphere=ball,
                 restitution=1.0)
    return mech


def test_a_sphere_swung_past_another_misses_it_on_a_curved_path():
    """The tip's sphere passes 0.1 m clear of the free one, on a circle: the line of its
    motion runs through the other sphere as it leaves it (a straight path would have gone
    through), and nothing strikes; the ball stays at rest and the arm turns on."""
    w = 3.0
    span = 2 * 2 * np.pi / w
    res = vn.simulate(swung_sphere(0.8, 0.0), (0, span), t_eval=np.linspace(0, span, 9),
                      velocities={"axle.angle'": w}, **TIGHT)
    assert res.events == ()
    assert np.abs(res["ball.velocity"]).max() == 0
    assert np.allclose(res["axle.angle"], w * res.t, rtol=0, atol=1e-9)
    assert res["pass.gap"].min() == pytest.approx(0.2, abs=1e-12)


@pytest.mark.parametrize("at", [0.45, 0.55])
def test_a_sphere_swung_into_another_strikes_it_where_the_circle_meets_it(at):
    """The tip's sphere (on a circle of 0.5 m) strikes the free one where their centres
    are 2 r apart, cos(theta - 1.5) = (L^2 + a^2 - 4 r^2) / (2 L a), within one long step
    of the smooth turning; e = 1 keeps the energy and the angular momentum about the
    axle."""
    w, L, r, m = 3.0, 0.5, 0.05, 0.2
    inertia = 0.1 + 1.0 * (L / 2) ** 2                  # the arm about the axle
    span = 2 * np.pi / w
    res = vn.simulate(swung_sphere(at), (0, span), t_eval=[span],
                      velocities={"axle.angle'": w}, **TIGHT)
    theta = 1.5 - np.arccos((L ** 2 + at ** 2 - 4 * r * r) / (2 * L * at))
    assert [(ev.name, ev.kind) for ev in res.events] == [("pass", "impact")]
    assert res.events[0].t == pytest.approx(theta / w, abs=1e-9)
    rate = res["axle.angle'"][-1]
    (x, y, _), (vx, vy, _) = res["ball.position"][-1], res["ball.velocity"][-1]
    assert inertia * rate + m * (x * vy - y * vx) == pytest.approx(inertia * w, abs=1e-9)
    assert inertia * rate ** 2 + m * (vx * vx + vy * vy) == pytest.approx(inertia * w * w,
                                                                          abs=1e-9)


def test_spheres_bouncing_in_a_box_keep_their_energy_at_e_one(monkeypatch):
    """Eight spheres dropped into a box with random sideways speeds, every contact elastic
    (floor, four walls, each pair): between and across some hundred impacts the energy
    (kinetic and of height) stays what it was, and no sphere leaves the box. The 68 open
    contacts are watched through a list of the near ones; watching every one at every
    step strikes the same contacts at the same times over the first second (the roots'
    last digits differ, and each impact amplifies that: about 1e-12 s by then, 1e-9 s
    by the end)."""
    r, side, count = 0.05, 1.0, 8
    rng = np.random.default_rng(3)
    mech = vn.spatial.Mechanism("box", gravity=(0, 0, -G))
    balls = [mech.body(f"b{k}", 1.0, (0.4 * r * r,) * 3,
                       position=(-0.3 + 0.2 * (k % 4) + rng.uniform(-0.02, 0.02),
                                 -0.1 + 0.2 * (k // 4), rng.uniform(0.2, 0.5)))
             for k in range(count)]
    walls = [((side / 2, 0, 0), (-1, 0, 0)), ((-side / 2, 0, 0), (1, 0, 0)),
             ((0, side / 2, 0), (0, -1, 0)), ((0, -side / 2, 0), (0, 1, 0))]
    for k, ball in enumerate(balls):
        mech.contact(f"floor{k}", ball, radius=r, restitution=1.0)
        for j, (origin, normal) in enumerate(walls):
            mech.contact(f"wall{j}_{k}", ball, radius=r, plane=mech.ground.point(*origin),
                         normal=normal, restitution=1.0)
        for other in range(k):
            mech.contact(f"pair{other}_{k}", ball, radius=r, sphere=balls[other],
                         restitution=1.0)
    speeds = {f"b{k}.velocity": (*rng.uniform(-2, 2, 2), 0.0) for k in range(count)}
    res = vn.simulate(mech, (0, 2.0), t_eval=np.linspace(0, 2, 41), velocities=speeds,
                      rtol=1e-8, atol=1e-10)
    energy = sum(0.5 * np.sum(res[f"b{k}.velocity"] ** 2, axis=1)
                 + 0.5 * 0.4 * r * r * np.sum(res[f"b{k}.omega"] ** 2, axis=1)
                 + G * res[f"b{k}.z"] for k in range(count))
    kinds = {ev.name.rstrip("0123456789_") for ev in res.events}
    assert len(res.events) > 50 and {"floor", "pair"} <= kinds
    assert np.max(np.abs(energy / energy[0] - 1)) < 1e-9
    for k in range(count):
        assert np.all(res[f"b{k}.z"] >= r - 1e-9)
        for axis in ("x", "y"):
            assert np.all(np.abs(res[f"b{k}.{axis}"]) <= side / 2 - r + 1e-9)
    from vecnet.numerics import contact
    monkeypatch.setattr(contact, "NEAR_LIST", 10 ** 9)
    every = vn.simulate(mech, (0, 1.0), t_eval=[1.0], velocities=speeds, rtol=1e-8,
                        atol=1e-10)
    early = [ev for ev in res.events if ev.t <= 1.0]
    assert len(early) > 25
    assert [ev.name for ev in every.events] == [ev.name for ev in early]
    assert np.allclose([ev.t for ev in every.events], [ev.t for ev in early], rtol=0,
                       atol=1e-9)


@pytest.mark.parametrize("dimensions", [2, 3])
def test_a_row_of_touching_spheres_struck_at_one_end_passes_the_speed_to_the_last(dimensions):
    """A striker at v on five equal spheres that touch at rest, e = 1: the impacts through
    the touching row are sequential (each an exchange of equal masses' normal speeds, at
    once), so the last sphere leaves at v and the others stay; momentum and energy are
    kept. The touching contacts start closed without load and open, and do not strike on
    their gaps' roundoff."""
    v, gap, r, m = 1.0, 1e-3, 0.05, 0.06
    mech = vn.planar.Mechanism("row", gravity=(0, 0)) if dimensions == 2 else \
        vn.spatial.Mechanism("row", gravity=(0, 0, 0))
    xs = [0.0] + [2 * r + gap + 2 * r * k for k in range(5)]
    balls = [mech.body(f"b{k}", m, 0.4 * m * r * r if dimensions == 2 else (0.4 * m * r * r,) * 3,
                       position=(x, 0.0) if dimensions == 2 else (x, 0.0, 0.0))
             for k, x in enumerate(xs)]
    for k in range(5):
        mech.contact(f"c{k}", balls[k + 1], radius=r, sphere=balls[k], restitution=1.0)
    push = (v, 0.0, 0.0)[:dimensions]
    res = vn.simulate(mech, (0, 0.05), t_eval=[0.0, 0.05], velocities={"b0.velocity": push},
                      **TIGHT)
    impacts = [ev for ev in res.events if ev.kind == "impact"]
    assert [ev.name for ev in impacts] == [f"c{k}" for k in range(5)]
    assert np.allclose([ev.t for ev in impacts], gap / v, rtol=0, atol=1e-10)
    speeds = np.array([res[f"b{k}.velocity"][-1][0] for k in range(6)])
    assert np.allclose(speeds, [0, 0, 0, 0, 0, v], rtol=0, atol=1e-10)
    assert m * speeds.sum() == pytest.approx(m * v, abs=1e-12)             # momentum
    assert m * (speeds ** 2).sum() / 2 == pytest.approx(m * v * v / 2, abs=1e-12)  # energy


def test_a_resting_stack_of_spheres_stays_and_carries_the_weight_above_each_contact():
    """Three spheres of 1, 2, 3 kg stacked on the floor at rest: nothing moves and no mode
    switches; each contact carries the weight of the spheres above it."""
    r = 0.1
    mech = vn.spatial.Mechanism("stack", gravity=(0, 0, -G))
    balls = [mech.body(f"b{k}", 1.0 + k, (0.004,) * 3, position=(0, 0, r + 2 * r * k))
             for k in range(3)]
    mech.contact("floor", balls[0], radius=r, restitution=0.5)
    for k in range(2):
        mech.contact(f"c{k}", balls[k + 1], radius=r, sphere=balls[k], restitution=0.5)
    res = vn.simulate(mech, (0, 1.0), t_eval=np.linspace(0, 1, 11), **TIGHT)
    assert res.events == ()
    for name, carried in (("floor", 6.0), ("c0", 5.0), ("c1", 3.0)):
        assert np.allclose(res[f"{name}.normal"], carried * G, rtol=1e-9)
    for k in range(3):
        assert np.allclose(res[f"b{k}.z"], r + 2 * r * k, rtol=0, atol=1e-12)


def test_an_inelastic_cradle_follows_the_sequential_collisions():
    """With e < 1 each impact of a moving sphere on a resting equal one leaves them
    (1 - e) v / 2 and (1 + e) v / 2: after the first pass the k-th sphere moves at
    ((1 + e) / 2)^k (1 - e) / 2 v (the last at ((1 + e) / 2)^4 v), the k-th impact comes
    after a further gap / (((1 + e) / 2)^(k - 1) v); before the first sphere catches up."""
    v, gap, e = 1.0, 1e-3, 0.5
    half = (1 + e) / 2
    mech = cradle(3, e=e)
    res = vn.simulate(mech, (0, 0.01), t_eval=[0.0, 0.01], velocities={"b0.velocity": (v, 0, 0)},
                      **TIGHT)
    times = np.cumsum([gap / (half ** k * v) for k in range(4)])
    assert np.allclose([ev.t for ev in res.events], times, rtol=0, atol=1e-10)
    expected = [half ** k * (1 - e) / 2 * v for k in range(4)] + [half ** 4 * v]
    speeds = [res[f"b{k}.velocity"][-1][0] for k in range(5)]
    assert np.allclose(speeds, expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("dimensions, gravity, gap", [(2, 0.0, 1e-3), (3, G, 0.1),
                                                      (3, 0.0, 1e-3), (2, G, 0.1)])
def test_two_spheres_drifting_side_by_side_keep_their_gap(dimensions, gravity, gap):
    """Two spheres moving together (the same velocity, across and along their line of
    centres), an open contact between them: nothing happens to the gap, no event."""
    mech = cradle(dimensions, count=2, gap=gap, gravity=gravity)
    drift = (0.3, 0.2, -0.1)[:dimensions]
    res = vn.simulate(mech, (0, 1.0), t_eval=np.linspace(0, 1, 11),
                      velocities={"b0.velocity": drift, "b1.velocity": drift}, **TIGHT)
    assert res.events == () or list(res.events) == []
    assert np.abs(res["c0.gap"] - gap).max() < 1e-12


def test_contact_plots_say_their_quantities_and_units():
    """A resting ball's normal force is its weight, m g, in newtons: the plot's panel says
    so, and its gap (metres) and mode (a number) each get their own panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = vn.simulate(ball(2, 0.0), (0, 1), t_eval=np.linspace(0, 1, 11))
    ax = res.plot(["floor.normal"])
    assert ax.get_ylabel() == "normal force [N]"
    assert np.allclose(ax.lines[0].get_ydata(), 2.0 * G, rtol=1e-13)
    plt.close(ax.figure)
    labels = {a.get_ylabel() for a in res.plot(["floor.normal", "floor.gap", "floor.mode",
                                                 "ball.y"]).figure.axes}
    assert {"normal force [N]", "gap [m]", "position [m]"} <= labels
    plt.close("all")


@pytest.mark.parametrize("sticking", [True, False])
def test_closed_contacts_of_a_chain_solve_the_assembled_equations(sticking):
    """A double pendulum's tip sphere closed on the floor (sticking with friction, or
    frictionless) and pressed against a free ball: at random states, the accelerations
    and multipliers the integrator takes (found by the tree's recursion, no ``M``) satisfy
    the assembled equations ``M u' - F^T lambda = Q`` (``M`` by the composite bodies, an
    independent formulation) and hold each closed row, ``G u' = g``."""
    from vecnet.numerics.contact import STICK, ContactModes
    from vecnet.numerics.multibody import normalize

    mech = vn.spatial.Mechanism("chain", gravity=(0, 0, -G))
    upper = mech.body("upper", 1.0, (0.1, 0.1, 0.02), position=(0.25, 0, 0.6))
    lower = mech.body("lower", 0.7, (0.05, 0.05, 0.01), position=(0.75, 0, 0.6))
    mech.revolute("shoulder", mech.ground.point(0, 0, 0.6), upper.point(-0.25, 0, 0),
                  axis=(0, 1, 0))
    mech.spherical("elbow", upper.point(0.25, 0, 0), lower.point(-0.25, 0, 0))
    ball = mech.body("ball", 0.3, (0.001,) * 3, position=(1.2, 0, 0.6))
    friction = {"mu_kinetic": 0.4, "mu_static": 0.4} if sticking else {}
    mech.contact("floor", lower.point(0.25, 0, 0), radius=0.05, restitution=0.0, **friction)
    mech.contact("pair", lower.point(0.25, 0, 0), radius=0.05, sphere=ball, restitution=0.0,
                 **friction)
    eom = mech.formulate()
    model = eom.compile()
    rng = np.random.default_rng(3)
    q0 = eom.assemble()
    modes = ContactModes(model, 0.0, q0, tol=1e-12, span=1.0)
    assert not len(modes.rows)       # a tree: the recursion's path
    for _ in range(5):
        q = normalize(model, q0 + 0.2 * rng.standard_normal(len(q0)))
        u = rng.standard_normal(len(eom.speed_names))
        modes.mode[:] = STICK
        a = modes.accelerations(0.0, q, u)
        sol = modes._at(0.0, q, u, modes.mode)
        snap = model.evaluate(0.0, q, u)
        force = sum(geo_force(modes, i, q, u, sol) for i in range(2))
        assert np.allclose(snap.M @ a - force, snap.Q, rtol=0,
                           atol=1e-10 * (np.abs(snap.Q).max() + np.abs(force).max()))
        for i in range(2):
            geo = modes._geometry(i, q, u)
            axes = np.column_stack([geo.n, geo.T]).T if sticking else geo.n[None]
            assert np.allclose(axes @ (geo.Jc @ a + geo.b), 0, atol=1e-9)


def geo_force(modes, i, q, u, sol):
    """Contact ``i``'s force ``sol.f[i]`` in the speeds, ``Jc^T f``: on this sphere's
    point, and its opposite on the other body's (through ``Jc = Ja - Jb``)."""
    return modes._geometry(i, q, u).Jc.T @ sol.f[i]
