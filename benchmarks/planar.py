"""Benchmark vecnet's planar formulation against sympy.physics.mechanics (KanesMethod).

The system is a planar N-link pendulum, N = 2, 4, 8, 16, 24: link k (1-based) is
a uniform rod of length l_k = 0.5 + 0.1 (k mod 3) m and mass m_k = 1 + 0.25
(k mod 4) kg, with inertia m_k l_k^2 / 12 about its centre; pins join the ground
to link 1 and link k to link k + 1; gravity 9.81 m/s^2 downwards. It starts at rest
as a straight chain turned 0.3 rad from hanging straight down, and is simulated
for 10 s. The coordinates are the relative angles of the pins (the first one
relative to the ground) in both formulations.

* vecnet: ``mech.formulate(coordinates="joint")`` and ``eom.compile()`` (the
  formulation time includes building the Mechanism; ``operations`` is
  ``eom.compile().operations``), then ``eom.simulate(10.0, t_eval=...,
  rtol=1e-8, atol=1e-10)`` (DOP853 on the independent coordinates).
* KanesMethod: ReferenceFrame, Point and RigidBody (inertia about the mass
  centre) for every link, ``KanesMethod(...).kanes_equations(bodies, loads)``,
  ``mass_matrix`` and ``forcing``, then ``lambdify((q, u), [M, F], cse=True)``;
  the simulation is ``scipy.integrate.solve_ivp`` with the same method (DOP853),
  tolerances, initial state and output times, solving ``M u' = F`` with
  ``numpy.linalg.solve`` at every right-hand-side call. Its operation count is
  ``count_ops`` of the mass matrix and forcing after ``sympy.cse`` (counted the
  way vecnet counts its own). KanesMethod runs in a forked child process; if
  its formulation (up to ``mass_matrix`` and ``forcing``) takes longer than
  300 s it is stopped and larger sizes are skipped.

Both simulations report 501 samples. Checks: both succeed and their final joint
angles agree to 1e-5 rad. Also shown: the cost of one right-hand side (model
evaluation plus the linear solve) of each, averaged over random states, and
vecnet's energy drift over the run.

Wall times use ``time.perf_counter`` with sympy's cache cleared before each
formulation; formulations faster than 1 s are the best of up to 3 runs.

Usage: ``python benchmarks/planar.py [--quick]`` (``--quick``: N = 2 and 4). The
script exits with status 1 if any check fails; the project's speed targets
(formulation at least 10x faster than KanesMethod at N = 24; simulation faster at
equal tolerance) are reported but are not checks.
"""

from __future__ import annotations

import argparse
import gc
import math
import multiprocessing
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy
import sympy
from _table import Checks, format_ratio, format_row, format_time, print_header
from scipy.integrate import solve_ivp
from sympy.core.cache import clear_cache
from sympy.physics.mechanics import (
    KanesMethod,
    Point,
    ReferenceFrame,
    RigidBody,
    dynamicsymbols,
    outer,
)

import vecnet as vn

FULL_SIZES = [2, 4, 8, 16, 24]
QUICK_SIZES = [2, 4]
KANE_BUDGET = 300.0     # seconds for KanesMethod's formulation, in a child process
STEP_BUDGET = 3600.0    # seconds for each later KanesMethod step (lambdify, cse, simulation)
TIME_BUDGET = 1.0       # seconds of repeated runs per timing
MAX_RUNS = 3
T_END, SAMPLES = 10.0, 501
RTOL, ATOL = 1e-8, 1e-10
METHOD = "DOP853"       # vecnet's partitioned integrator; the baseline uses the same
GRAVITY = 9.81
TILT = 0.3              # initial angle of the straight chain from hanging straight down
AGREE = 1e-5            # final joint angles, rad
RHS_STATES = 20         # random states for the cost of one right-hand side
TARGET_N, TARGET_RATIO = 24, 10.0

COLUMNS = [("N", 3, ">"), ("vn form", 9, ">"), ("vn ops", 7, ">"), ("Kane form", 10, ">"),
           ("Kane ops", 9, ">"), ("form K/vn", 9, ">"), ("vn sim", 8, ">"),
           ("Kane sim", 9, ">"), ("sim K/vn", 8, ">"), ("check / note", 0, "<")]
DETAIL_COLUMNS = [("N", 3, ">"), ("vn formulate", 12, ">"), ("vn compile", 10, ">"),
                  ("Kane eqs", 9, ">"), ("Kane lambdify", 13, ">"), ("Kane cse count", 14, ">"),
                  ("vn RHS", 8, ">"), ("Kane RHS", 8, ">"), ("Kane nfev", 9, ">"),
                  ("vn energy drift", 15, ">")]


# -- the chain ------------------------------------------------------------------------
def link(k: int) -> tuple[float, float, float]:
    """Length, mass and centroidal inertia of link k (1-based)."""
    length, mass = 0.5 + 0.1 * (k % 3), 1.0 + 0.25 * (k % 4)
    return length, mass, mass * length**2 / 12


def initial_angles(n: int) -> np.ndarray:
    """Relative pin angles of the initial pose: a straight chain turned TILT from hanging."""
    q = np.zeros(n)
    q[0] = -math.pi / 2 + TILT
    return q


def vecnet_chain(n: int) -> vn.planar.Mechanism:
    """The n-link pendulum in vecnet, placed in its initial pose."""
    mech = vn.planar.Mechanism(f"pendulum{n}", gravity=(0.0, -GRAVITY))
    angle = float(initial_angles(n)[0])
    c, s = math.cos(angle), math.sin(angle)
    pin, x, y = mech.ground.point(0.0, 0.0), 0.0, 0.0
    for k in range(1, n + 1):
        length, mass, inertia = link(k)
        body = mech.body(f"link{k}", mass=mass, inertia=inertia,
                         position=(x + c * length / 2, y + s * length / 2), angle=angle)
        mech.revolute(f"P{k}", pin, body.point(-length / 2, 0.0))
        pin = body.point(length / 2, 0.0)
        x, y = x + c * length, y + s * length
    return mech


def kane_chain(n: int):
    """The same pendulum with KanesMethod: q_k the angle of link k relative to link k-1
    (the ground for k = 1), u = q'. Returns ``(q, u, mass_matrix, forcing)``."""
    q = dynamicsymbols(f"q1:{n + 1}")
    u = dynamicsymbols(f"u1:{n + 1}")
    N = ReferenceFrame("N")
    pin = Point("O")
    pin.set_vel(N, 0)
    parent = N
    bodies, loads = [], []
    for k in range(1, n + 1):
        length, mass, inertia = link(k)
        A = ReferenceFrame(f"A{k}")
        A.orient_axis(parent, parent.z, q[k - 1])
        A.set_ang_vel(parent, u[k - 1] * parent.z)
        G = pin.locatenew(f"G{k}", length / 2 * A.x)
        G.v2pt_theory(pin, N, A)
        bodies.append(RigidBody(f"B{k}", G, A, mass, (inertia * outer(A.z, A.z), G)))
        loads.append((G, -mass * GRAVITY * N.y))
        pin = G.locatenew(f"P{k + 1}", length / 2 * A.x)
        pin.v2pt_theory(G, N, A)
        parent = A
    km = KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=[qi.diff() - ui for qi, ui in zip(q, u)])
    km.kanes_equations(bodies, loads)
    return q, u, km.mass_matrix, km.forcing


# -- measuring --------------------------------------------------------------------------
def timed(fn: Callable[[], Any], repeat: bool = True) -> tuple[float, Any]:
    """Best wall time of ``fn()`` with a cold sympy cache, and the last result. Repeats
    while the runs so far took less than TIME_BUDGET (at most MAX_RUNS)."""
    times: list[float] = []
    result = None
    while not times or (repeat and len(times) < MAX_RUNS and sum(times) < TIME_BUDGET):
        clear_cache()
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def random_states(n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(n)
    return [(rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)) for _ in range(RHS_STATES)]


def rhs_cost(rhs: Callable[[np.ndarray, np.ndarray], np.ndarray], n: int) -> float:
    """Mean seconds of one right-hand side (accelerations from q, u) over random states."""
    states = random_states(n)
    rhs(*states[0])
    start = time.perf_counter()
    for q, u in states:
        rhs(q, u)
    return (time.perf_counter() - start) / len(states)


def count_operations(exprs) -> int:
    """Operations after common-subexpression elimination, counted as vecnet counts them."""
    replacements, reduced = sympy.cse(exprs)
    return sum(sympy.count_ops(v) for _, v in replacements) + sum(
        sympy.count_ops(e) for e in reduced)


def measure_vecnet(n: int, times: np.ndarray) -> dict[str, Any]:
    def formulate():
        return vecnet_chain(n).formulate(coordinates="joint")

    def both():
        eom = formulate()
        return eom, eom.compile()

    t_formulate, _ = timed(formulate)
    t_total, (eom, model) = timed(both)
    out = {"formulate": t_formulate, "compile": max(t_total - t_formulate, 0.0),
           "total": t_total, "ops": model.operations,
           "coordinates": eom.coordinates}

    def rhs(q, u):  # the same linear solve as the baseline: this compares the models
        M, Q = model.mass_and_forces(0.0, q, u)
        return np.linalg.solve(M, Q)

    out["rhs"] = rhs_cost(rhs, n)
    gc.collect()
    start = time.perf_counter()
    res = eom.simulate(T_END, t_eval=times, rtol=RTOL, atol=ATOL)
    out["sim"] = time.perf_counter() - start
    out["final"] = np.array([res[f"P{k}.angle"][-1] for k in range(1, n + 1)])
    out["samples"] = len(res.t)
    out["success"] = bool(res.success)
    out["drift"] = float(np.max(np.abs(res["energy"] - res["energy"][0])))
    return out


# -- KanesMethod, in a child process -------------------------------------------------------
def kane_child(n: int, times: np.ndarray, conn) -> None:
    """Formulate, compile, count and simulate with KanesMethod, sending each result."""
    try:
        t_eqs, (q, u, M, F) = timed(lambda: kane_chain(n))
        conn.send(("eqs", t_eqs))
        t_lam, fn = timed(lambda: sympy.lambdify((q, u), [M, F], modules="numpy", cse=True))
        conn.send(("lambdify", t_lam))
        start = time.perf_counter()
        ops = count_operations(list(M) + list(F))
        conn.send(("ops", ops, time.perf_counter() - start))

        def accelerations(qv, uv):
            Mv, Fv = fn(qv, uv)
            return np.linalg.solve(np.asarray(Mv, dtype=float), np.asarray(Fv, dtype=float).ravel())

        cost = rhs_cost(accelerations, n)

        def rhs(_, y):
            return np.concatenate([y[n:], accelerations(y[:n], y[n:])])

        y0 = np.concatenate([initial_angles(n), np.zeros(n)])
        gc.collect()
        start = time.perf_counter()
        sol = solve_ivp(rhs, (0.0, T_END), y0, method=METHOD, t_eval=times, rtol=RTOL, atol=ATOL)
        t_sim = time.perf_counter() - start
        conn.send(("sim", t_sim, cost, bool(sol.success), sol.nfev, sol.y[:n, -1].copy(),
                   sol.y.shape[1], sol.message))
    except Exception as exc:  # reported by the parent as a failed check
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def measure_kane(n: int, times: np.ndarray) -> dict[str, Any]:
    """KanesMethod in a forked child; ``status`` is "ok", "timeout" (formulation over
    KANE_BUDGET), "stalled" (a later step over STEP_BUDGET) or "error"."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=kane_child, args=(n, times, send), daemon=True)
    child.start()
    send.close()
    out: dict[str, Any] = {"status": "ok"}
    try:
        for step, budget in (("eqs", KANE_BUDGET + MAX_RUNS * TIME_BUDGET),
                             ("lambdify", STEP_BUDGET), ("ops", STEP_BUDGET),
                             ("sim", STEP_BUDGET)):
            if not receive.poll(budget):
                out["status"] = "timeout" if step == "eqs" else "stalled"
                out["step"] = step
                break
            try:
                message = receive.recv()
            except EOFError:
                out.update(status="error", message="the KanesMethod child ended without an answer")
                break
            if message[0] == "error":
                out.update(status="error", message=message[1])
                break
            if message[0] == "eqs":
                out["eqs"] = message[1]
            elif message[0] == "lambdify":
                out["lambdify"] = message[1]
                out["total"] = out["eqs"] + out["lambdify"]
            elif message[0] == "ops":
                out["ops"], out["cse count"] = message[1], message[2]
            else:
                (_, out["sim"], out["rhs"], out["success"], out["nfev"], out["final"],
                 out["samples"], out["message"]) = message
    finally:
        if child.is_alive():
            child.terminate()
        child.join()
        receive.close()
    return out


# -- output -------------------------------------------------------------------------------
def print_versions() -> None:
    print(f"Python {sys.version.split()[0]} ({platform.python_implementation()}), "
          f"sympy {sympy.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"vecnet {vn.__version__}")
    print(f"{platform.platform()}, {os.cpu_count()} CPUs")
    print("time: perf_counter, sympy cache cleared before each formulation, best of up to "
          f"{MAX_RUNS} runs within {TIME_BUDGET:.0f} s; simulations run once; KanesMethod runs "
          f"in a child process, its formulation stopped after {KANE_BUDGET:.0f} s")


# -- the benchmark ---------------------------------------------------------------------------
def bench(sizes: list[int], checks: Checks) -> dict[int, dict[str, Any]]:
    print_header(f"N-link pendulum, joint coordinates; {T_END:g} s simulated with {METHOD}, "
                 f"rtol {RTOL:g}, atol {ATOL:g}", COLUMNS)
    times = np.linspace(0.0, T_END, SAMPLES)
    rows: dict[int, dict[str, Any]] = {}
    skip_from, skip_reason = None, ""
    for n in sizes:
        ours = measure_vecnet(n, times)
        expected = tuple(f"P{k}.angle" for k in range(1, n + 1))
        notes = [checks.note(ours["coordinates"] == expected, "",
                             f"UNEXPECTED COORDINATES {ours['coordinates']}")]
        notes.append(checks.note(ours["success"] and ours["samples"] == SAMPLES, "",
                                 "VECNET SIMULATION FAILED"))
        if skip_from is not None:
            kane = {"status": "skipped", "after": skip_from, "reason": skip_reason}
        else:
            kane = measure_kane(n, times)
        status = kane["status"]
        form_ratio = sim_ratio = None
        if status == "ok":
            ok = kane["success"] and kane["samples"] == SAMPLES
            notes.append(checks.note(ok, "", f"KANE SIMULATION FAILED: {kane['message']}"))
            diff = float(np.max(np.abs(ours["final"] - kane["final"])))
            kane["diff"] = diff
            notes.append(checks.note(diff <= AGREE, f"max |dq(10 s)| = {diff:.1e} rad",
                                     f"FINAL ANGLES DIFFER by {diff:.1e} rad"))
            form_ratio = kane["total"] / ours["total"]
            sim_ratio = kane["sim"] / ours["sim"]
        elif status == "timeout":
            skip_from, skip_reason = n, "formulation"
            form_ratio = KANE_BUDGET / ours["total"]
            notes.append(f"KanesMethod > {KANE_BUDGET:.0f} s, stopped; larger N skipped")
        elif status == "stalled":
            skip_from, skip_reason = n, kane["step"]
            notes.append(f"KanesMethod step {kane['step']!r} > {STEP_BUDGET:.0f} s, stopped; "
                         "larger N skipped")
        elif status == "error":
            notes.append(checks.note(False, "", f"KANESMETHOD FAILED: {kane['message']}"))
        else:
            budget = KANE_BUDGET if skip_reason == "formulation" else STEP_BUDGET
            notes.append(f"KanesMethod skipped ({skip_reason} > {budget:.0f} s at "
                         f"N = {skip_from})")
        rows[n] = {"vn": ours, "kane": kane, "form ratio": form_ratio, "sim ratio": sim_ratio}
        kane_form = (format_time(kane.get("total")) if "total" in kane
                     else f"> {KANE_BUDGET:.0f} s" if status == "timeout" else "")
        form_cell = (f"> {form_ratio:.0f}x" if status == "timeout"
                     else format_ratio(form_ratio))
        cells = [str(n), format_time(ours["total"]), f"{ours['ops']:,}", kane_form,
                 f"{kane['ops']:,}" if "ops" in kane else "", form_cell,
                 format_time(ours["sim"]), format_time(kane.get("sim")), format_ratio(sim_ratio),
                 "; ".join(note for note in notes if note)]
        print(format_row(cells, COLUMNS), flush=True)
    print("vn form = build Mechanism + formulate + compile; Kane form = frames, points, bodies "
          "+ kanes_equations + mass_matrix, forcing + lambdify(cse=True); ops = count_ops after "
          "cse (vn: eom.compile().operations); sim = 10 s simulated, 501 samples (vn: "
          "eom.simulate; Kane: solve_ivp with numpy.linalg.solve); K/vn = KanesMethod time / "
          "vecnet time")

    print_header("Details", DETAIL_COLUMNS)
    for n, row in rows.items():
        ours, kane = row["vn"], row["kane"]
        cells = [str(n), format_time(ours["formulate"]), format_time(ours["compile"]),
                 format_time(kane.get("eqs")), format_time(kane.get("lambdify")),
                 format_time(kane.get("cse count")), format_time(ours["rhs"]),
                 format_time(kane.get("rhs")), f"{kane['nfev']:,}" if "nfev" in kane else "",
                 f"{ours['drift']:.1e} J"]
        print(format_row(cells, DETAIL_COLUMNS))
    print(f"RHS = one right-hand side (evaluate M and Q or M and forcing, then "
          f"numpy.linalg.solve), mean over {RHS_STATES} random states; Kane cse count = the "
          "separate sympy.cse + count_ops for the operation count (not in Kane form)")
    return rows


def report_targets(rows: dict[int, dict[str, Any]]) -> None:
    print()
    row = rows.get(TARGET_N)
    label = (f"target: formulation >= {TARGET_RATIO:.0f}x faster than KanesMethod at "
             f"N = {TARGET_N}")
    if row is None:
        print(f"{label}: not measured in this run")
    elif row["kane"]["status"] == "ok":
        ratio = row["form ratio"]
        print(f"{label}: {'MET' if ratio >= TARGET_RATIO else 'NOT MET'} ({ratio:.1f}x)")
    elif row["kane"]["status"] == "timeout":
        ratio = row["form ratio"]
        verdict = "MET" if ratio >= TARGET_RATIO else "not decided"
        print(f"{label}: {verdict} (> {ratio:.0f}x: KanesMethod stopped after "
              f"{KANE_BUDGET:.0f} s)")
    elif row["kane"]["status"] == "skipped" and row["kane"]["reason"] == "formulation":
        bound = KANE_BUDGET / row["vn"]["total"]
        print(f"{label}: not measured (KanesMethod stopped after {KANE_BUDGET:.0f} s at "
              f"N = {row['kane']['after']}); if it takes at least as long at N = {TARGET_N}, "
              f"the ratio is > {KANE_BUDGET:.0f} s / {format_time(row['vn']['total'])} = "
              f"{bound:.1f}x, which would {'meet' if bound >= TARGET_RATIO else 'not decide'} "
              "the target")
    else:
        print(f"{label}: not measured (KanesMethod {row['kane']['status']})")
    faster = {n: r["sim ratio"] for n, r in rows.items() if r["sim ratio"] is not None}
    label = "target: simulation faster than KanesMethod + solve_ivp at equal tolerance"
    if not faster:
        print(f"{label}: not measured in this run")
        return
    met = [n for n, ratio in faster.items() if ratio > 1]
    missed = [n for n, ratio in faster.items() if ratio <= 1]
    detail = ", ".join(f"N = {n}: {format_ratio(ratio)}" for n, ratio in faster.items())
    verdict = "MET" if not missed else ("NOT MET" if not met else
                                        f"MET for N = {', '.join(map(str, met))}; NOT MET for "
                                        f"N = {', '.join(map(str, missed))}")
    print(f"{label}: {verdict} ({detail})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 2 and 4 only")
    sizes = QUICK_SIZES if parser.parse_args().quick else FULL_SIZES
    start = time.perf_counter()
    checks = Checks()
    print_versions()
    rows = bench(sizes, checks)
    report_targets(rows)
    print(f"\ntotal run time {time.perf_counter() - start:.1f} s; "
          f"{checks.failures or 'no'} failed check(s)")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
