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

Run: ``PYTHONPATH=. python benchmarks/studies.py [--cases 1000] [--loop 100]
[--mechanism 40]``.
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


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--cases", type=int, default=1000)
    args.add_argument("--loop", type=int, default=100)
    args.add_argument("--mechanism", type=int, default=40)
    options = args.parse_args()
    checks = Checks()
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
