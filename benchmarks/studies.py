"""Benchmark parameter studies: formulate once vs rebuild per case, and Dask workers.

The network is an RLC ladder of 10 sections (20 states): a unit step source V1
drives sections k = 1..10, each a series resistor R_k and inductor L_k and a shunt
capacitor C_k (R_k = 1 + k mod 3, L_k = 1/(1 + k mod 2), C_k = 1/(2 + k mod 3), as in
benchmarks/lumped.py). A study of 1,000 cases (a Latin hypercube, seed 1) sweeps
R1 in [0.5, 2] and C10 in [0.2, 1] and simulates 20 s (rtol 1e-8, atol 1e-10),
reading the final value and the peak of C10's voltage.

Timed, per case:

* ``vn.sweep`` in this process: the ladder formulated once with R1 and C10 as
  symbols, compiled once, each case numbers only;
* a loop that builds the network with the case's numbers and calls
  ``net.simulate`` for each case (timed on the first ``--loop`` cases, 100 by
  default, as it is the slow one);
* ``vn.sweep`` on a ``dask.distributed.LocalCluster`` with 1 and 2 worker processes
  (one thread each); the speed-up is against the in-process sweep, the cluster's
  start-up not included.

Checks: the loop and the sweep agree on C10's final value to 1e-6 on the looped
cases, and every case of every sweep succeeds.

A mechanism study, ``--mechanism`` cases (40 by default): a crank-rocker four-bar under
gravity (crank 0.3, coupler 0.8, rocker 0.6, ground 0.7 m; uniform links of 0.4, 1.0,
0.8 kg) held by a torsion spring of stiffness k in [5, 50] N m/rad at the crank's
pivot; each case finds the static equilibrium and the eigenvalues of the motion
linearized there. Timed after one warm-up case, per case: ``vn.sweep`` (formulated and
compiled once, each case binding its k; the total includes the formulation) against a loop that builds, formulates and compiles the four-bar
for each case (``eom.linearize(eom.equilibrium(parameters=...))``). Check: the lowest
natural frequencies agree to 1e-9 (relative).

A pendulum study, ``--pendulum`` cases (1,000 by default): a bob (inertia 0.01 kg m^2
about its centre, 1 m from the pin) released level, its mass m swept in [0.5, 5] kg
(the motion depends on it through the bob's own inertia), simulated 2 s, its angle at
2 s read and compared with a run at rtol 1e-13. Timed, CPU per case: a loop of
``eom.simulate(2, parameters={"m": m})`` on one formulation at rtol 1e-6; ``vn.sweep``
(formulated and compiled once, m bound per case) at rtol 1e-6 with the default 501
outputs (the steps land on each: the runs are the loop's), and with the end alone at
rtol 1e-6 and 1e-12; MuJoCo (pip ``mujoco``) stepping each case at 1 ms with RK4 in its
C loop (``mj_step(model, data, 2000)``, the mass set on one model per case). Checks:
every case of every sweep runs, and the sweep with 501 outputs gives the loop's angles.

The Whipple bicycle (``examples/models/bicycle.json``): the eigenvalues of its lean and
steer at 21 speeds from 0 to 10 m/s, each from vecnet's steady motion and linearization,
against numpy's eigenvalues of the published matrices (Meijaard et al. 2007, as
``tests/test_bicycle.py`` holds them), CPU for the 21; check: they agree to 1e-8.

Run: ``PYTHONPATH=. python benchmarks/studies.py [--cases 1000] [--loop 100]
[--mechanism 40] [--pendulum 1000]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import vecnet as vn

try:
    from benchmarks._table import Checks, format_ratio, format_row, format_time, print_header
except ImportError:  # run as a script from benchmarks/
    from _table import Checks, format_ratio, format_row, format_time, print_header

SECTIONS = 10
T_END = 20.0
TOLERANCES = {"rtol": 1e-8, "atol": 1e-10}
OUTPUT = f"C{SECTIONS}.across"


def ladder(overrides: dict[str, float] | None = None) -> vn.Network:
    """The RLC ladder, with ``overrides`` (element name -> value) for R1 and C10."""
    overrides = overrides or {}
    net = vn.Network("ladder")
    net.add(vn.VoltageSource("V1", "g", "n0", V=1.0))
    for k in range(1, SECTIONS + 1):
        net.add(vn.Resistor(f"R{k}", f"m{k}", f"n{k - 1}", R=overrides.get(f"R{k}", 1.0 + k % 3)),
                vn.Inductor(f"L{k}", f"n{k}", f"m{k}", L=1.0 / (1 + k % 2)),
                vn.Capacitor(f"C{k}", "g", f"n{k}", C=overrides.get(f"C{k}", 1.0 / (2 + k % 3))))
    return net


def loop(cases) -> tuple[float, list[float]]:
    """Seconds per case and the final values, rebuilding and simulating each case."""
    finals = []
    start = time.perf_counter()
    for case in cases:
        res = ladder(case).simulate((0.0, T_END), **TOLERANCES)
        finals.append(float(res[OUTPUT][-1]))
    return (time.perf_counter() - start) / len(cases), finals


def timed_sweep(cases, **execution):
    start = time.perf_counter()
    frame = vn.sweep(ladder(), cases, "simulate", t_end=T_END, outputs=[OUTPUT], **TOLERANCES,
                     **execution)
    return time.perf_counter() - start, frame


def fourbar() -> vn.planar.Mechanism:
    """The four-bar of the mechanism study, its spring's stiffness the symbol k."""
    import math

    lengths, masses, crank = (0.3, 0.8, 0.6), (0.4, 1.0, 0.8), math.radians(60)
    B = lengths[0] * np.array([math.cos(crank), math.sin(crank)])
    P4 = np.array([0.7, 0.0])
    gap = P4 - B
    dist = float(np.linalg.norm(gap))
    along = (lengths[1] ** 2 - lengths[2] ** 2 + dist**2) / (2 * dist)
    C = B + (along * gap + math.sqrt(lengths[1] ** 2 - along**2)
             * np.array([-gap[1], gap[0]])) / dist
    mech = vn.planar.Mechanism("fourbar", gravity=(0, -9.81))
    links = [mech.body(f"link{i + 1}", mass=m, inertia=m * size**2 / 12, position=(a + b) / 2,
                       angle=math.atan2(b[1] - a[1], b[0] - a[0]))
             for i, ((a, b), m, size) in enumerate(zip([(np.zeros(2), B), (B, C), (C, P4)],
                                                       masses, lengths))]
    ends = [mech.ground.point(0, 0)] + [x for link, size in zip(links, lengths)
                                        for x in (link.point(-size / 2, 0),
                                                  link.point(size / 2, 0))]
    ends.append(mech.ground.point(0.7, 0))
    for k in range(4):
        mech.revolute(f"P{k + 1}", ends[2 * k], ends[2 * k + 1])
    mech.rotary_spring("S", mech.ground, links[0], k=vn.Symbol("k"), angle=crank)
    return mech


def mechanism_study(count: int, checks: Checks) -> None:
    """The four-bar's spring swept through its eigenvalues, once compiled against per case."""
    stiffnesses = np.linspace(5.0, 50.0, count).tolist()
    warm = fourbar().formulate()   # the kernels' first calls load their compiled code
    warm.linearize(warm.equilibrium(parameters={"k": 5.0}), parameters={"k": 5.0})
    start = time.perf_counter()
    frame = vn.sweep(fourbar(), {"k": stiffnesses}, "eigenvalues")
    swept = time.perf_counter() - start
    start = time.perf_counter()
    lowest = []
    for k in stiffnesses:
        eom = fourbar().formulate()
        lin = eom.linearize(eom.equilibrium(parameters={"k": k}), parameters={"k": k})
        lowest.append(lin.natural_frequencies()[0])
    looped = time.perf_counter() - start
    ok = bool(frame["error"].isna().all()) and np.allclose(frame["omega0"], lowest,
                                                           rtol=1e-9, atol=0)
    columns = [("run", 32, "<"), ("per case", 10, ">"), ("total", 10, ">"),
               ("speed-up", 9, ">"), ("check", 6, "<")]
    print_header(f"{count} cases of a four-bar's spring: equilibrium and eigenvalues", columns)
    for name, total in (("formulate and compile once", swept),
                        ("  of which the cases alone", float(frame["time"].sum())),
                        ("build, formulate, compile per case", looped)):
        print(format_row([name, format_time(total / count), format_time(total),
                          format_ratio(looped / total), checks.note(ok, "ok", "FAIL")], columns))


PENDULUM_END = 2.0
BOB_INERTIA = 0.01


def pendulum() -> vn.planar.Mechanism:
    """A bob of mass m (the symbol) 1 m from its pin, released level."""
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    bob = mech.body("bob", mass=vn.Symbol("m"), inertia=BOB_INERTIA, position=(1, 0))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    return mech


PENDULUM_XML = f"""<mujoco model="pendulum">
  <option timestep="0.001" integrator="RK4" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="bob" pos="0 0 0">
      <joint name="pin" type="hinge" axis="0 -1 0"/>
      <inertial pos="1 0 0" mass="1" diaginertia="{BOB_INERTIA} {BOB_INERTIA} {BOB_INERTIA}"/>
    </body>
  </worldbody>
</mujoco>"""


def mujoco_pendulum(masses) -> tuple[float, np.ndarray] | None:
    """CPU per case and the angle at the end of each case, stepped at 1 ms; ``None``
    without MuJoCo. The hinge turns about -y so that its angle is vecnet's (x up to z)."""
    try:
        import mujoco
    except ImportError:
        return None
    model = mujoco.MjModel.from_xml_string(PENDULUM_XML)
    data = mujoco.MjData(model)
    body = model.body("bob").id
    steps = int(round(PENDULUM_END / model.opt.timestep))
    angles = []
    start = time.process_time()
    for m in masses:
        model.body_mass[body] = m
        mujoco.mj_setConst(model, data)
        mujoco.mj_resetData(model, data)
        mujoco.mj_step(model, data, steps)
        angles.append(float(data.qpos[0]))
    return (time.process_time() - start) / len(masses), np.array(angles)


def pendulum_study(count: int, checks: Checks) -> None:
    """A pendulum's mass swept: sweeps at two accuracies and two output grids against a
    loop of direct runs and MuJoCo, each case's end angle against a tight reference."""
    masses = np.linspace(0.5, 5.0, count).tolist()
    eom = pendulum().formulate()
    ends = [0.0, PENDULUM_END]
    reference = np.array([float(eom.simulate(PENDULUM_END, t_eval=ends, parameters={"m": m},
                                             rtol=1e-13, atol=1e-15)["pin.angle"][-1])
                          for m in masses])

    def swept(rtol: float, t_eval) -> tuple[float, np.ndarray]:
        grid = {} if t_eval is None else {"t_eval": t_eval}
        start = time.process_time()
        frame = vn.sweep(pendulum(), {"m": masses}, "simulate", outputs=["pin.angle"],
                         t_end=PENDULUM_END, rtol=rtol, atol=rtol * 1e-2, **grid)
        ok = bool(frame["error"].isna().all())
        checks.note(ok, "ok", "FAIL")
        return (time.process_time() - start) / count, frame["pin.angle.final"].to_numpy()

    start = time.process_time()
    looped = np.array([float(eom.simulate(PENDULUM_END, parameters={"m": m}, rtol=1e-6,
                                          atol=1e-8)["pin.angle"][-1]) for m in masses])
    loop_cpu = (time.process_time() - start) / count
    rows = [("loop of eom.simulate, rtol 1e-6", loop_cpu, looped)]
    for rtol, t_eval, what in ((1e-6, None, "501 outputs"), (1e-6, ends, "end only"),
                               (1e-12, ends, "end only")):
        rows.append((f"vn.sweep, rtol {rtol:.0e}, {what}", *swept(rtol, t_eval)))
    theirs = mujoco_pendulum(masses)
    if theirs is not None:
        rows.append(("MuJoCo, RK4 at 1 ms (mj_step)", *theirs))
    agree = np.allclose(rows[1][2], looped, rtol=0, atol=1e-12)   # the same runs
    columns = [("run", 36, "<"), ("CPU per case", 13, ">"), ("vs loop", 8, ">"),
               ("angle error", 12, ">"), ("check", 6, "<")]
    print_header(f"{count} cases of a pendulum's mass, {PENDULUM_END:g} s; the angle at the "
                 "end against rtol 1e-13", columns)
    for name, cpu, angles in rows:
        print(format_row([name, format_time(cpu), format_ratio(cpu / loop_cpu),
                          f"{np.abs(angles - reference).max():.1e}",
                          checks.note(agree, "ok", "FAIL") if name.startswith("vn.sweep, rtol 1e-06, 501")
                          else ""], columns))


def bicycle_study(checks: Checks) -> None:
    """The bicycle's lean-and-steer eigenvalues at 21 speeds against the published model."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_bicycle import LEAN_STEER, MODEL, R_REAR, benchmark_eigenvalues

    model = vn.load_model(MODEL)
    eom, values = model.system.formulate(), model.element_values
    speeds = np.linspace(0.0, 10.0, 21)

    def ours(v: float) -> np.ndarray:
        point = eom.steady_motion({"rear_axle.angle'": v / R_REAR}, parameters=values)
        lin = eom.linearize(point, parameters=values)
        rows = [lin.states.index(name) for name in LEAN_STEER]
        return np.linalg.eigvals(np.asarray(lin.A, dtype=float)[np.ix_(rows, rows)])

    ours(1.0)   # the first call compiles
    start = time.process_time()
    got = [np.sort_complex(ours(v)) for v in speeds]
    vecnet_cpu = time.process_time() - start
    start = time.process_time()
    published = [np.sort_complex(benchmark_eigenvalues(v)) for v in speeds]
    numpy_cpu = time.process_time() - start
    worst = max(float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b))))
                for a, b in zip(got, published))
    columns = [("run", 44, "<"), ("CPU, 21 speeds", 15, ">"), ("agree", 9, ">"),
               ("check", 6, "<")]
    print_header("The Whipple bicycle's lean and steer eigenvalues, 0 to 10 m/s", columns)
    print(format_row(["vecnet: steady motion, linearize, eig", format_time(vecnet_cpu),
                      f"{worst:.0e}", checks.note(worst < 1e-8, "ok", "FAIL")], columns))
    print(format_row(["numpy on the published matrices", format_time(numpy_cpu), "", ""],
                     columns))


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--cases", type=int, default=1000)
    args.add_argument("--loop", type=int, default=100)
    args.add_argument("--mechanism", type=int, default=40)
    args.add_argument("--pendulum", type=int, default=1000)
    options = args.parse_args()
    checks = Checks()
    pendulum_study(options.pendulum, checks)
    bicycle_study(checks)
    mechanism_study(options.mechanism, checks)
    cases = vn.samples.latin_hypercube({"R1": (0.5, 2.0), "C10": (0.2, 1.0)}, options.cases,
                                       seed=1)
    rows = []

    seconds, frame = timed_sweep(cases)
    base = seconds
    ok = frame["error"].isna().all()
    rows.append(("formulate once, 1 process", seconds, frame.attrs["formulation_time"], ok))

    looped = cases.head(options.loop).to_dict(orient="records")
    per_case, finals = loop(looped)
    agree = np.allclose(finals, frame[f"{OUTPUT}.final"][:len(looped)], rtol=0, atol=1e-6)
    rows.append((f"rebuild per case ({len(looped)} cases)", per_case * len(cases), None, agree))

    from distributed import Client, LocalCluster

    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=":0") as cluster, Client(cluster) as client:
            seconds, frame = timed_sweep(cases, client=client)
        rows.append((f"Dask, {workers} worker(s)", seconds, frame.attrs["formulation_time"],
                     frame["error"].isna().all()))

    columns = [("run", 32, "<"), ("per case", 10, ">"), ("total", 10, ">"),
               ("formulation", 12, ">"), ("speed-up", 9, ">"), ("check", 6, "<")]
    print_header(f"{len(cases)} cases of a {2 * SECTIONS}-state RLC ladder, simulated "
                 f"{T_END:g} s", columns)
    for name, total, formulation, ok in rows:
        print(format_row([name, format_time(total / len(cases)), format_time(total),
                          format_time(formulation), format_ratio(base / total),
                          checks.note(ok, "ok", "FAIL")], columns))
    return 1 if checks.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
