"""Friction that sticks and unilateral contact against MuJoCo, in one run: each case's
error against its closed form and its CPU time, vecnet (events and impacts, exact modes)
and MuJoCo (soft contacts stepped at a fixed timestep) at a few timesteps.

Cases (closed forms in tests/test_coulomb_friction.py and tests/test_contact.py):

* incline, sliding: a block released on a 30 degree slope with mu = 0.3 slides with
  a = g (sin a - mu cos a); error of the distance after 1 s.
* incline, sticking: on a 10 degree slope (tan 10 deg < mu) it stays; drift over 10 s.
* bounce: a ball dropped from 1 m with restitution e = 0.5; the apexes of its first three
  bounces, e^(2k) h0; largest relative error.
* slide-to-roll: a sphere launched at 3 m/s without spin on a floor with mu = 0.2 rolls at
  5/7 of it from t = 2 v0 / (7 mu g); relative errors of the final speed and of the time.
* ladder: a rod on a frictionless wall and floor, released at 60 degrees, leaves the wall
  at sin theta = 2/3 sin theta0; error of that sine.

MuJoCo's settings are its defaults (solver Newton, solref 0.02 1, solimp 0.9 0.95 0.001
0.5 2, pyramidal cone, semi-implicit Euler, margin 0) except: condim 3 (sliding friction,
no torsional or rolling) where there is friction and condim 1 on the ladder (frictionless).
MuJoCo has one friction coefficient: static = kinetic.

Bounce: restitution through a negative solref "-stiffness -damping" with a constant
impedance, solimp "0.99 0.99 0.001" (dmin = dmax), so that in contact the ball follows a
unit-mass damped spring x'' = -stiffness x - damping x' that only pushes. It leaves when
that force is zero, before the spring is back at rest, so the usual e = exp(-zeta pi /
sqrt(1 - zeta^2)) overshoots (0.55 for 0.5); zeta is solved for the push-only spring
(0.2553 for e = 0.5) and the stiffness is 1 / (0.02 zeta)^2, MuJoCo's default time
constant. The apexes are the ball's lowest point above the floor (centre minus radius);
the ball leaves the floor still slightly inside it, part of the soft model's error.

Sticking: the block settles 0.2 s on the slope, then its drift over 10 s is measured. MuJoCo's
soft friction lets it creep at a steady speed set by solref and solimp (the same at both
timesteps), which is what the row reports.

Slide-to-roll time: MuJoCo's slip (v - r omega) decays with a soft tail and never reaches
zero, so its time is the first step with slip below 1e-2 v0, compared with the closed
form's time of that crossing, (1 - 1e-2) t_roll; vecnet's is its stick event against t_roll.

Ladder: a capsule of radius 0.01 starting in touch with the floor and the wall (planes at
z = 0 and x = 0, distance 0, so the contacts appear after the first step). Its wall
contact chatters (drops out for a step while still loaded), so it leaves the wall at the
last step with a positive wall force.

A second table gives, for each case and MuJoCo timestep, vecnet's cheapest run (rtol from
1e-3 to 1e-10) whose error is at most MuJoCo's, and the ratio of the CPU times. A third
gives the CPU of one right-hand side as the integrator evaluates it for 1 and 10 balls
resting on the floor with their contacts, against the same balls without contacts.

Run: python benchmarks/contact.py
"""

from __future__ import annotations

import math
import time

import numpy as np

import vecnet as vn

G = 9.81
TIGHT = {"rtol": 1e-10, "atol": 1e-12}
STEPS = (1e-3, 1e-4)
#: vecnet's tolerances tried for its cheapest run as accurate as MuJoCo's
LADDER = [{"rtol": r, "atol": r * 1e-2} for r in (1e-3, 1e-4, 1e-6, 1e-8, 1e-10)]


def cpu(call):
    """``call()``'s result and CPU seconds, after a warm-up call (compiled kernels)."""
    call()
    start = time.process_time()
    out = call()
    return out, time.process_time() - start


# -- vecnet ---------------------------------------------------------------------------
def v_incline(alpha, end, mu=0.3, tol=TIGHT):
    mech = vn.planar.Mechanism("slope", gravity=(0, -G))
    block = mech.body("block", mass=2.0, inertia=0.1)
    mech.prismatic("slide", mech.ground.point(0, 0), block.centre,
                   axis=(math.cos(alpha), -math.sin(alpha)))
    mech.joint_friction("rub", "slide", mu_kinetic=mu, mu_static=mu)
    return vn.simulate(mech, (0, end), t_eval=[end], **tol)["slide.distance"][-1]


def v_ball(height, e, end, t_eval, mu=None, v0=0.0, tol=TIGHT):
    mech = vn.spatial.Mechanism("ball", gravity=(0, 0, -G))
    body = mech.body("ball", 2.0, (0.4 * 2.0 * 0.01,) * 3, position=(0, 0, height + 0.1))
    friction = {} if mu is None else {"mu_kinetic": mu, "mu_static": mu}
    mech.contact("floor", body, radius=0.1, restitution=e, **friction)
    return vn.simulate(mech, (0, end), t_eval=t_eval,
                       velocities={"ball.velocity": (v0, 0.0, 0.0)}, **tol)


def v_ladder(theta0, end=None, length=2.0, mass=3.0, tol=TIGHT):
    mech = vn.planar.Mechanism("ladder", gravity=(0, -G))
    half = 0.5 * length
    rod = mech.body("rod", mass=mass, inertia=mass * length ** 2 / 12,
                    position=(half * math.cos(theta0), half * math.sin(theta0)),
                    angle=math.pi - theta0)
    mech.contact("wall", rod.point(half, 0), plane=mech.ground.point(0, 0), normal=(1, 0),
                 restitution=0.0)
    mech.contact("floor", rod.point(-half, 0), restitution=0.0)
    if end is None:
        res = vn.simulate(mech, (0, 3), t_eval=[3.0], **tol)
        return next(ev.t for ev in res.events if ev.name == "wall")
    return vn.simulate(mech, (0, end), t_eval=[end], **tol)["rod.angle"][-1]


# -- MuJoCo ---------------------------------------------------------------------------
def contact_zeta(e):
    """Damping ratio of a unilateral damped spring (force >= 0) whose rebound is e.

    MuJoCo's contact pushes and never pulls, so a ball leaves when the spring-damper force
    returns to zero, before the spring is back at its rest length; it keeps the speed the
    pulling part of the cycle would have taken. The linear formula e = exp(-zeta pi /
    sqrt(1 - zeta^2)) ignores that and gives e = 0.55 for a wanted 0.5. Here: unit
    frequency, x(0) = 0, x'(0) = 1; leave at the first x'' = 0 after the deepest point.
    """
    from scipy.optimize import brentq

    def rebound(zeta):
        wd = math.sqrt(1 - zeta ** 2)

        def x(t):
            return math.exp(-zeta * t) * math.sin(wd * t) / wd

        def v(t):
            return math.exp(-zeta * t) * (math.cos(wd * t) - zeta * math.sin(wd * t) / wd)

        leave = brentq(lambda t: -x(t) - 2 * zeta * v(t), math.atan2(wd, zeta) / wd,
                       math.pi / wd)
        return -v(leave)

    return brentq(lambda zeta: rebound(zeta) - e, 1e-3, 0.999)


TIMECONST = 0.02                    # MuJoCo's default solref time constant
SOLIMP_CONSTANT = "0.99 0.99 0.001"  # constant impedance: the contact is the spring below


def solref(e):
    """MuJoCo's direct ``"-stiffness -damping"`` whose rebound has restitution e.

    With a constant impedance d (solimp dmin = dmax), MuJoCo's reference acceleration in
    contact is -damping v - stiffness r (its K = stiffness / d^2, B = damping / d, scaled
    by d), gravity replaced while the contact pushes: a unit-mass damped spring. Stiffness
    from MuJoCo's default time constant, 1 / (timeconst zeta)^2 (as solref "0.02 zeta"
    would give), damping 2 zeta sqrt(stiffness), zeta from :func:`contact_zeta`.
    """
    if e <= 0:
        return "0.02 1"
    zeta = contact_zeta(e)
    stiffness = 1 / (TIMECONST * zeta) ** 2
    return f"-{stiffness:.6g} -{2 * zeta * math.sqrt(stiffness):.6g}"


def mj_model(body: str, floor: str, dt: float, extra: str = ""):
    import mujoco

    xml = f"""<mujoco><option timestep="{dt}" gravity="0 0 -{G}"/>
    <worldbody>{floor}{extra}{body}</worldbody></mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    return model, mujoco.MjData(model)


def mj_run(model, data, end, watch=None):
    import mujoco

    steps = int(round(end / model.opt.timestep))
    for _ in range(steps):
        mujoco.mj_step(model, data)
        if watch is not None and watch(data):
            break
    return data


def m_incline(alpha, end, dt, mu=0.3):
    """A 0.1 m cube on a plane tilted by ``alpha`` about y; distance down the slope."""
    floor = (f'<geom type="plane" size="5 5 0.1" euler="0 {math.degrees(alpha)} 0" '
             f'friction="{mu} 0 0" condim="3"/>')
    n = np.array([math.sin(alpha), 0, math.cos(alpha)])
    start = 0.05 * n
    body = (f'<body pos="{start[0]} 0 {start[2]}" euler="0 {math.degrees(alpha)} 0">'
            f'<freejoint/><geom type="box" size="0.05 0.05 0.05" mass="2" friction="{mu} 0 0" '
            'condim="3"/></body>')
    model, data = mj_model(body, floor, dt)
    down = np.array([math.cos(alpha), 0, -math.sin(alpha)])
    mj_run(model, data, 0.2)          # settle into the plane at rest, then measure from there
    origin = data.qpos[:3].copy()
    data.time = 0.0
    if alpha > math.atan(mu):         # released afresh from the settled pose
        data.qvel[:] = 0
    mj_run(model, data, end)
    return float(down @ (data.qpos[:3] - origin)), float(down @ data.qvel[:3])


SLIP_FRACTION = 1e-2   # slide-to-roll in MuJoCo: first step with slip below this * v0


def m_ball(height, e, end, dt, mu=None, v0=0.0, apexes=0):
    friction = f'friction="{mu} 0 0" condim="3"' if mu else 'condim="1"'
    soft = f'solref="{solref(e)}"' + (f' solimp="{SOLIMP_CONSTANT}"' if e > 0 else "")
    floor = f'<geom type="plane" size="50 50 0.1" {friction} {soft}/>'
    body = (f'<body pos="0 0 {height + 0.1}"><freejoint/><geom type="sphere" size="0.1" '
            f'mass="2" {friction} {soft}/></body>')
    model, data = mj_model(body, floor, dt)
    data.qvel[0] = v0
    if not apexes:
        roll = None

        def watch(d):
            nonlocal roll
            if roll is None and abs(d.qvel[0] - 0.1 * d.qvel[4]) < SLIP_FRACTION * v0:
                roll = d.time
            return False
        mj_run(model, data, end, watch)
        return data.qvel[0], roll
    found, last_vz = [], None

    def watch(d):
        # apex: vertical speed turns from up to down in flight; height of the ball's
        # lowest point above the floor (centre minus radius), as in the closed form
        nonlocal last_vz
        vz = d.qvel[2]
        if last_vz is not None and last_vz > 0 >= vz and d.time > 0.1:
            found.append(d.qpos[2] - 0.1)
        last_vz = vz
        return len(found) >= apexes
    mj_run(model, data, end, watch)
    return found


def m_ladder(theta0, dt, length=2.0, mass=3.0, radius=0.01):
    import mujoco

    half = 0.5 * length
    centre = (radius + half * math.cos(theta0), radius + half * math.sin(theta0))
    inertia = mass * length ** 2 / 12
    floor = '<geom type="plane" size="5 5 0.1" condim="1"/>'
    wall = '<geom type="plane" size="5 5 0.1" condim="1" zaxis="1 0 0"/>'
    body = (f'<body pos="{centre[0]} 0 {centre[1]}" euler="0 {math.degrees(theta0)} 0">'
            f'<freejoint/><inertial pos="0 0 0" mass="{mass}" diaginertia="1e-6 {inertia} '
            f'{inertia}"/><geom type="capsule" fromto="{-half} 0 0 {half} 0 0" '
            f'size="{radius}" condim="1" contype="1" conaffinity="1" mass="0"/></body>')
    model, data = mj_model(body, floor, dt, wall)
    wall_id = 1
    state = {"sine": None}
    force = np.zeros(6)

    def sine(d):
        w, x, y, z = d.qpos[3:7]
        # the body's x axis (along the rod) in world: its z component is the sine
        return abs(2 * (x * z - w * y))

    def watch(d):
        # soft contacts chatter (the wall contact drops out for single steps long before
        # the rod leaves), so "leaves the wall" is the last step at which the wall pushes;
        # watch until the rod is well past the closed-form sine (2/3 of the start)
        for k in range(d.ncon):
            c = d.contact[k]
            if wall_id in (c.geom1, c.geom2):
                mujoco.mj_contactForce(model, d, k, force)
                if force[0] > 0:
                    state["sine"] = sine(d)
        return sine(d) < 0.4 * math.sin(theta0)
    mj_run(model, data, 5.0, watch)
    return state["sine"]


# -- the table --------------------------------------------------------------------------
def main() -> None:
    rows = []   # name, vecnet's error at given tolerances, MuJoCo's runs, MuJoCo's error
    slide_a = G * (math.sin(math.radians(30)) - 0.3 * math.cos(math.radians(30)))
    exact = 0.5 * slide_a
    rows.append(["incline slide: distance at 1 s",
                 lambda tol: abs(v_incline(math.radians(30), 1.0, tol=tol) / exact - 1),
                 [cpu(lambda dt=dt: m_incline(math.radians(30), 1.0, dt)) for dt in STEPS],
                 lambda m: abs(m[0] / exact - 1)])
    stick = [cpu(lambda dt=dt: m_incline(math.radians(10), 10.0, dt)) for dt in STEPS]
    rows.append(["incline stick: drift over 10 s (m)",
                 lambda tol: abs(v_incline(math.radians(10), 10.0, tol=tol)), stick,
                 lambda m: abs(m[0])])
    e, h0 = 0.5, 1.0
    v1 = math.sqrt(2 * G * h0)
    strikes = [math.sqrt(2 * h0 / G)]
    for k in range(1, 3):
        strikes.append(strikes[-1] + 2 * e ** k * v1 / G)
    apex = [strikes[k] + e ** (k + 1) * v1 / G for k in range(3)]
    heights = np.array([e ** (2 * (k + 1)) * h0 for k in range(3)])
    rows.append(["bounce: apex heights (rel.)",
                 lambda tol: np.max(np.abs((v_ball(h0, e, apex[-1], apex, tol=tol)["ball.z"]
                                            - 0.1) / heights - 1)),
                 [cpu(lambda dt=dt: m_ball(h0, e, 3.0, dt, apexes=3)) for dt in STEPS],
                 lambda m: np.max(np.abs(np.array(m) / heights - 1)) if len(m) == 3
                 else float("nan")])
    v0, mu = 3.0, 0.2
    roll = 2 * v0 / (7 * mu * G)

    def rolling(tol):
        return v_ball(0.0, 0.0, 2 * roll, [2 * roll], mu=mu, v0=v0, tol=tol)

    mj = [cpu(lambda dt=dt: m_ball(0.0, 0.0, 2 * roll, dt, mu=mu, v0=v0)) for dt in STEPS]
    rows.append(["slide-to-roll: final speed (rel.)",
                 lambda tol: abs(rolling(tol)["ball.vx"][-1] / (5 / 7 * v0) - 1), mj,
                 lambda m: abs(m[0] / (5 / 7 * v0) - 1)])
    rows.append(["slide-to-roll: time (rel.)",
                 lambda tol: abs(next(ev.t for ev in rolling(tol).events if ev.after == "stick")
                                 / roll - 1), mj,
                 lambda m: abs(m[1] / ((1 - SLIP_FRACTION) * roll) - 1) if m[1] is not None
                 else float("nan")])
    theta0 = math.radians(60)
    target = 2 / 3 * math.sin(theta0)
    rows.append(["ladder: sine leaving the wall",
                 lambda tol: abs(math.sin(v_ladder(theta0, v_ladder(theta0, tol=tol), tol=tol))
                                 - target),
                 [cpu(lambda dt=dt: m_ladder(theta0, dt)) for dt in STEPS],
                 lambda m: abs(m - target) if m is not None else float("nan")])
    # vecnet at the tight tolerances, and over a ladder of looser ones (the cheapest run at
    # least as accurate as MuJoCo's is the one to compare times with)
    for row in rows:
        error_at = row[1]
        runs = [(tol, *cpu(lambda tol=tol: error_at(tol))) for tol in LADDER]
        row[1:2] = [*cpu(lambda: error_at(TIGHT)), runs]
    head = (f"{'case':36s} {'vecnet err':>10s} {'CPU':>8s}   "
            + "   ".join(f"{'MuJoCo dt=' + format(dt, 'g'):>16s} {'CPU':>8s} {'err ratio':>9s}"
                         " " + f"{'time ratio':>10s}" for dt in STEPS))
    print("Friction and contact: error against the closed form and CPU time "
          "(ratios: MuJoCo / vecnet)")
    print(head)
    print("-" * len(head))
    for name, err, t, _, runs, measure in rows:
        cells = [f"{name:36s} {err:10.2e} {t * 1e3 if t else float('nan'):6.1f}ms"]
        for value, mt in runs:
            m_err = measure(value)
            ratio = m_err / err if err > 0 else float("inf")
            time_ratio = mt / t if t else float("nan")
            cells.append(f"{m_err:16.2e} {mt * 1e3:6.1f}ms {ratio:9.2g} {time_ratio:10.2g}")
        print("   ".join(cells))
    print("\nvecnet: exact modes and impacts (events), rtol 1e-10. MuJoCo: soft contacts, "
          "its defaults (Newton, pyramidal cone, solref 0.02 1, solimp 0.9 0.95 0.001 0.5 2) "
          "except condim 3 with friction, 1 without, one friction coefficient (static = "
          f"kinetic); bounce: solref \"{solref(e)}\" with solimp \"{SOLIMP_CONSTANT}\" "
          f"(zeta {contact_zeta(e):.4f} for a push-only contact with e = {e}, default "
          "time constant 0.02 s); apexes are the ball's lowest point above the floor.")
    print("MuJoCo stick: drift measured from the state after 0.2 s of settling; its end "
          "speed down the slope (m/s): "
          + ", ".join(f"dt={dt:g}: {m[1]:.3e}" for dt, (m, _) in zip(STEPS, stick))
          + " - a steady creep of the soft friction constraint, not a timestep error.")
    print(f"MuJoCo slide-to-roll time: first step with slip below {SLIP_FRACTION:g} v0, "
          f"against the closed form's time of the same crossing, (1 - {SLIP_FRACTION:g}) "
          "t_roll. Ladder: MuJoCo's soft wall contact drops out for single steps while still "
          "loaded, so it leaves the wall at the last step with a positive wall force.")

    cheapest_table(rows)


def cheapest_table(rows) -> None:
    """For each case and MuJoCo timestep: vecnet's cheapest run (over :data:`LADDER`) whose
    error is at most MuJoCo's, and the ratio of the CPU times (vecnet / MuJoCo)."""
    print("\nvecnet's cheapest run at least as accurate as MuJoCo (rtol over "
          + ", ".join(f"{tol['rtol']:g}" for tol in LADDER) + "; atol = rtol / 100); "
          "ratio = vecnet CPU / MuJoCo CPU")
    head = f"{'case':36s} " + "   ".join(
        f"{'MJ dt=' + format(dt, 'g') + ' err':>15s} {'CPU':>8s} {'vn rtol':>8s} {'vn err':>9s} "
        f"{'CPU':>8s} {'ratio':>7s}" for dt in STEPS)
    print(head)
    print("-" * len(head))
    for name, _, _, ladder, runs, measure in rows:
        cells = [f"{name:36s}"]
        for value, mt in runs:
            cells.append(cheapest_cell(ladder, measure(value), mt))
        print("   ".join(cells))


def cheapest_cell(ladder, m_err: float, mt: float, width: int = 6) -> str:
    """A table cell: MuJoCo's error and CPU ``mt``, and vecnet's cheapest run of ``ladder``
    (``(tol, err, cpu)`` each) whose error is at most MuJoCo's, with the ratio of the CPU
    times (``none`` where no run is as accurate)."""
    good = [(t, tol, err) for tol, err, t in ladder if err <= m_err]
    if not good:
        return (f"{m_err:15.2e} {mt * 1e3:{width}.1f}ms {'none':>8s} {'':>9s} "
                f"{'':>{width + 2}s} {'':>7s}")
    t, tol, err = min(good, key=lambda g: g[0])
    return (f"{m_err:15.2e} {mt * 1e3:{width}.1f}ms {tol['rtol']:8.0e} {err:9.2e} "
            f"{t * 1e3:{width}.1f}ms {t / mt:7.2g}")


# -- spheres dropped in a box --------------------------------------------------------
BOX_RADIUS = 0.05
#: MuJoCo's elastic contact: a push-only spring without damping, time constant 5 ms (its
#: default 20 ms lets a ball at 3 m/s sink 6 cm, more than its radius)
BOX_SOLREF = f"-{1 / 0.005 ** 2:g} 0"


def box_start(count: int, seed: int = 0):
    """``count`` spheres of 1 kg and radius 0.05 m over a grid of pitch 0.2 m in a square
    box (side 0.2 m per grid column), at heights 0.3 to 0.6 m with sideways speeds up to
    1 m/s: the box's side, and each sphere's position and velocity."""
    rng = np.random.default_rng(seed)
    n = math.ceil(math.sqrt(count))
    side = 0.2 * n
    spots = [((-side / 2 + 0.2 * (k // n + 0.5) + rng.uniform(-0.04, 0.04)),
              (-side / 2 + 0.2 * (k % n + 0.5) + rng.uniform(-0.04, 0.04)),
              rng.uniform(0.3, 0.6)) for k in range(count)]
    speeds = [(*rng.uniform(-1, 1, 2), 0.0) for _ in range(count)]
    return side, spots, speeds


def box_walls(side: float):
    """The box's four walls: a point and the inward normal of each."""
    h = side / 2
    return [((h, 0, 0), (-1, 0, 0)), ((-h, 0, 0), (1, 0, 0)), ((0, h, 0), (0, -1, 0)),
            ((0, -h, 0), (0, 1, 0))]


def box_energy(velocities, omegas, heights, radius=BOX_RADIUS) -> float:
    """Kinetic energy and that of height of unit-mass spheres of ``radius``."""
    return float(0.5 * np.sum(np.square(velocities)) + 0.2 * radius ** 2
                 * np.sum(np.square(omegas)) + G * np.sum(heights))


def v_box(count: int):
    """The box as a vecnet mechanism (every sphere against the floor, the four walls and
    every other sphere, elastic and frictionless) and its starting velocities."""
    side, spots, speeds = box_start(count)
    r = BOX_RADIUS
    mech = vn.spatial.Mechanism("box", gravity=(0, 0, -G))
    balls = [mech.body(f"b{k}", 1.0, (0.4 * r * r,) * 3, position=spot)
             for k, spot in enumerate(spots)]
    for k, ball in enumerate(balls):
        mech.contact(f"floor{k}", ball, radius=r, restitution=1.0)
        for j, (origin, normal) in enumerate(box_walls(side)):
            mech.contact(f"wall{j}_{k}", ball, radius=r, plane=mech.ground.point(*origin),
                         normal=normal, restitution=1.0)
        for other in range(k):
            mech.contact(f"pair{other}_{k}", ball, radius=r, sphere=balls[other],
                         restitution=1.0)
    return mech, {f"b{k}.velocity": v for k, v in enumerate(speeds)}


def v_box_error(mech, velocities, count: int, end: float, tol) -> tuple[float, int]:
    """Relative change of the box's energy over ``end`` seconds, and the impacts."""
    res = vn.simulate(mech, (0, end), t_eval=[0.0, end], velocities=velocities, **tol)
    energies = [box_energy([res[f"b{k}.velocity"][s] for k in range(count)],
                           [res[f"b{k}.omega"][s] for k in range(count)],
                           [res[f"b{k}.z"][s] for k in range(count)]) for s in (0, -1)]
    return abs(energies[1] / energies[0] - 1), len(res.events)


def m_box(count: int, dt: float):
    """The box in MuJoCo: planes for the floor and walls, free spheres, condim 1, every
    geom with :data:`BOX_SOLREF` and a constant impedance; the model and its data at the
    start."""
    import mujoco

    side, spots, speeds = box_start(count)
    soft = f'condim="1" solref="{BOX_SOLREF}" solimp="{SOLIMP_CONSTANT}"'
    planes = f'<geom type="plane" size="{side} {side} 0.1" {soft}/>' + "".join(
        f'<geom type="plane" size="{side} {side} 0.1" pos="{o[0]} {o[1]} 0" '
        f'zaxis="{n[0]} {n[1]} {n[2]}" {soft}/>' for o, n in box_walls(side))
    bodies = "".join(f'<body pos="{x} {y} {z}"><freejoint/><geom type="sphere" '
                     f'size="{BOX_RADIUS}" mass="1" {soft}/></body>' for x, y, z in spots)
    model = mujoco.MjModel.from_xml_string(
        f'<mujoco><option timestep="{dt}" gravity="0 0 -{G}"/><size njmax="5000" '
        f'nconmax="2000"/><worldbody>{planes}{bodies}</worldbody></mujoco>')
    data = mujoco.MjData(model)
    for k, v in enumerate(speeds):
        data.qvel[6 * k:6 * k + 3] = v
    return model, data


def m_box_energy(data, count: int) -> float:
    qvel, qpos = data.qvel.reshape(count, 6), data.qpos.reshape(count, 7)
    return box_energy(qvel[:, :3], qvel[:, 3:], qpos[:, 2])


def box_table(counts=(20, 100), end: float = 1.0) -> None:
    """For 20 and 100 spheres in the box over ``end`` seconds: the relative change of
    energy (none at e = 1) and the CPU of MuJoCo at each timestep and of vecnet's
    cheapest run at least as accurate; vecnet's mechanism and MuJoCo's model are built
    before the clock starts."""
    import mujoco

    print(f"\nSpheres dropped in a box, every contact elastic (e = 1) and frictionless, "
          f"{end:g} s: relative change of energy (kinetic and of height; none is right) "
          f"and CPU. MuJoCo: solref \"{BOX_SOLREF}\" (push-only spring, no damping), "
          f"solimp \"{SOLIMP_CONSTANT}\", condim 1, mj_step(m, d, nstep) in one call; "
          "vecnet: its cheapest run (rtol " + ", ".join(f"{t['rtol']:g}" for t in LADDER)
          + ") whose error is at most MuJoCo's.")
    head = f"{'spheres':>7s} {'impacts':>7s} " + "   ".join(
        f"{'MJ dt=' + format(dt, 'g') + ' err':>15s} {'CPU':>9s} {'vn rtol':>8s} "
        f"{'vn err':>9s} {'CPU':>9s} {'ratio':>7s}" for dt in STEPS)
    print(head)
    print("-" * len(head))
    for count in counts:
        mech, velocities = v_box(count)
        v_box_error(mech, velocities, count, 0.01, LADDER[0])    # formulated and compiled
        ladder = []
        for tol in LADDER:
            (err, impacts), t = cpu(lambda tol=tol: v_box_error(mech, velocities, count,
                                                                 end, tol))
            ladder.append((tol, err, t))
        cells = [f"{count:7d} {impacts:7d}"]
        for dt in STEPS:
            model, data = m_box(count, dt)
            start = time.process_time()
            mujoco.mj_step(model, data, nstep=int(round(end / dt)))
            mt = time.process_time() - start
            m_err = abs(m_box_energy(data, count) / m_box_energy(m_box(count, dt)[1], count)
                        - 1)
            cells.append(cheapest_cell(ladder, m_err, mt, width=7))
        print("   ".join(cells))


# -- the cost of one right-hand side ---------------------------------------------------
def resting_balls(count: int, contact: bool, mu=None):
    """``count`` balls of 2 kg and radius 0.1 m resting on the floor 0.5 m apart (no two
    touch), each with its floor contact (frictionless, or Coulomb's with ``mu``), or none."""
    mech = vn.spatial.Mechanism("balls", gravity=(0, 0, -G))
    for k in range(count):
        ball = mech.body(f"ball{k}", 2.0, (0.4 * 2.0 * 0.01,) * 3, position=(0.5 * k, 0, 0.1))
        if contact:
            friction = {} if mu is None else {"mu_kinetic": mu, "mu_static": mu}
            mech.contact(f"floor{k}", ball, radius=0.1, restitution=0.5, **friction)
    return mech


def rhs_cost(mech, calls: int = 2000) -> float:
    """CPU seconds of one right-hand side as the integrator evaluates it, at two nearby
    states taken in turn (so that no value is reused from the call before): without
    contacts the compiled open-chain call; with them the contact modes' accelerations
    (``ContactModes.accelerations``: each closed contact's geometry, its multipliers and
    the accelerations they were solved with) and the coordinates' rates."""
    from vecnet.numerics import multibody as mb
    from vecnet.numerics.contact import ContactModes

    eom = mech.formulate()
    model = eom.compile()
    q = eom.assemble()
    u = np.zeros(len(eom.speed_names))
    nudged = q.copy()
    nudged[np.flatnonzero(np.abs(q) < 0.5)[:1]] += 1e-12
    if not model.contacts:
        rates = model.open_chain_rates()
        ys = [np.concatenate([q, u]), np.concatenate([nudged, u])]

        def call(k):
            return rates(ys[k & 1])
    else:
        modes = ContactModes(model, 0.0, q, tol=1e-12, span=1.0)
        u, _ = modes.start(0.0, q, u, first=True)
        states = [(q, u), (nudged, u)]

        def call(k):
            qk, uk = states[k & 1]
            return modes.accelerations(0.0, qk, uk), mb.rates(model, qk, uk)
    for k in range(10):
        call(k)
    start = time.process_time()
    for k in range(calls):
        call(k)
    return (time.process_time() - start) / calls


def per_call_table() -> None:
    print("\nOne right-hand side (us, CPU): balls resting on the floor, with their floor "
          "contacts (frictionless, and with Coulomb friction mu = 0.5, sticking) against the "
          "same balls without contacts (the compiled open-chain call)")
    head = f"{'balls':>5s} {'no contact':>11s} {'contact':>9s} {'ratio':>7s} " \
           f"{'with friction':>14s} {'ratio':>7s}"
    print(head)
    print("-" * len(head))
    for count in (1, 10):
        free = rhs_cost(resting_balls(count, False))
        plain = rhs_cost(resting_balls(count, True), calls=500)
        rubbing = rhs_cost(resting_balls(count, True, mu=0.5), calls=500)
        print(f"{count:5d} {free * 1e6:11.1f} {plain * 1e6:9.1f} {plain / free:7.0f} "
              f"{rubbing * 1e6:14.1f} {rubbing / free:7.0f}")


if __name__ == "__main__":
    main()
    box_table()
    per_call_table()
