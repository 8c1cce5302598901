"""Benchmark vecnet's multibody simulation against MuJoCo on the same pendulum chains.

The systems, built identically in both tools, are N-link chains, N = 2, 4, 8, 16, 24, 48:
link k (1-based) is a rod of length l_k = 0.5 + 0.1 (k mod 3) m and mass m_k = 1 + 0.25
(k mod 4) kg hanging along -z (-y in the plane), inertia (m l^2/12, m l^2/12, m l^2/200)
about its centre in its own axes; its joint is at its upper end; gravity is 9.81 m/s^2
downwards. Each chain starts hanging straight and moves for ``--time`` seconds (default 10;
5 s for N = 48, see the reference below).

* ``spherical``: ball joints; the first body starts with the angular velocity
  (1.0, 0.5, 0) rad/s in world axes, the rest following rigidly (vecnet:
  ``velocities={"b1.omega": ...}``; MuJoCo: the first ball joint's ``qvel``, the
  angular velocity in the child's axes, which are the world axes in the initial pose).
* ``universal``: universal joints turning about the parent's x axis, then the child's y
  axis (MuJoCo: two hinges in one body, x then y); first joint rates (1.0, 0.5) rad/s.
* ``planar``: ``vn.planar.Mechanism`` with pins about z, gravity (0, -9.81); MuJoCo: hinges
  about -y hanging along -z, so that vecnet's (x, y) is MuJoCo's (x, z); first pin 1.0 rad/s.

* ``bent``: the spherical chain released at rest bent: each ball joint turned 0.5 rad
  about x (odd k) or y (even k) against its parent (vecnet: the bodies built in that pose;
  MuJoCo: the ball joints' ``qpos``); N = 4 and 16 (``--bent-sizes``). Its motion is chaotic
  at N = 16: references at rtol 1e-10, 1e-11 and 1e-12 agree to 1e-11 m over 2 s, to 1e-7 m
  over 5 s and not at all (1 m) over 10 s, so N >= 16 moves for 2 s (``--bent-shorten``).

Before the end-to-end table: a fresh process's CPU time for importing vecnet and for its
first model (formulate, compile, the first right-hand side and ``eom.forward_dynamics``;
numba's cache and Python's bytecode warm, best of 3 processes; numba's own import and
set-up shown apart), and one forward-dynamics call of each chain
(``--percall-sizes``, default N = 2, 8, 24, 96): vecnet's right-hand side as its integrator
calls it, its compiled kernel alone and the public ``eom.forward_dynamics(q, u)`` against
Pinocchio's ``aba`` (the ``pin`` package, optional) and MuJoCo's ``mj_forward``, at a
random state near hanging, interleaved in this process, each the best of 5; the
accelerations are compared with Pinocchio's (a check at 1e-9, relative).

Protocol, per system and N. The tip is the last body's mass centre (vecnet:
``res["bN.position"]``, in the plane ``res["bN.x"]``, ``res["bN.y"]``; MuJoCo:
``data.xipos``), sampled at 501 equally spaced output times.

* vecnet: ``mech.formulate()`` + ``eom.compile()`` (building the Mechanism excluded), then
  ``eom.simulate(T, t_eval=..., rtol=rtol, atol=rtol / 100, velocities=...)`` (DOP853)
  within ``vn.limits(max_seconds=3600, max_evaluations=10**8)``, for each rtol of
  ``--rtols`` (default 1e-8; a sweep: ``--rtols 1e-6,1e-8,1e-11``), a row each; atol is
  ``--atol-ratio`` (default 1e-2) times rtol. A tiny atol can stall the steps: at rtol
  1e-11 and atol 1e-13 the spherical chain of 24 links takes 3.4 million evaluations (55 s;
  at atol 1e-11, 22,000 and 0.4 s), its error estimate led by joint speeds about the
  slender links' axes (inertia m l^2/200) of 1e-11 to 1e-9 rad/s, each held to 1e-13.
  Its error is the largest distance, over the output times, between its tip and the
  reference tip. Its steps land on the output times, so that its error is often far below
  what rtol asks (DOP853 is of order 8 and takes steps of at most T/500).
* reference: vecnet at rtol 1e-12, atol 1e-14. Where a long chain whips (joint rates of
  tens of rad/s at the free end: N = 24 near t = 6.3 s), DOP853's steps collapse at tight
  atol, its error estimate then being roundoff; a reference run is stopped after max(30 s,
  4 x vecnet's simulate) and made again at atol 1e-12 (noted in the row). At N = 48 even
  atol 1e-12 stalls before 10 s (near 9.5 s for the spherical chain), so N = 48 moves for
  5 s (``--shorten 48:5``, shown in the T column). If neither reference finishes, the row
  has no errors and no MuJoCo run (a failed check). The reference is checked against
  MuJoCo's RK4 at a step of 1e-5 s for N = 2 and 4, and for a row whose reference fell back
  to atol 1e-12 when that MuJoCo run is predicted to fit in ``--mj-budget``: the tips must
  agree to within 1 % of vecnet's error or to within 1e-11 m (a check). Tips closer than
  1e-11 m count as equal: that check confirms the reference no better (MuJoCo's own
  roundoff over 10^6 steps is about 1e-12 m), so an error below it is printed but matched
  as 1e-11 m.
* MuJoCo: MJCF written here (``<inertial>`` per body, ``ball`` or ``hinge`` joints, RK4,
  contacts disabled, no damping or armature). Steps halve from the output spacing (T/500,
  0.02 s for 10 s), so that every step size divides it, until the tip error against the
  same reference is no larger than vecnet's (or 1e-11 m); the row reports that step and the time of its
  run (``mujoco.mj_step(model, data, nstep)`` between output times and the recording of the
  tip; making the model excluded). The search stops without a match below 1e-6 s or when the
  next run would exceed ``--mj-budget`` seconds (default 120).

Times are wall times (``time.perf_counter``); a run shorter than 1 s is the best of up to 3.
vecnet's ``simulate`` returns the integrated coordinates and derives the other outputs when
first asked; that derivation (the tip and everything else) is shown apart in the details.
vecnet's tree kernels are compiled by numba on their first call (in the first simulation,
not in ``compile()``) and cached on disk: before the table, the first model of each system
(N = 2, formulated, compiled, simulated for 0.1 s and its tip derived) is timed and reported
separately, so that the table holds warm times; ``--cold`` first deletes numba's cache
files of the vecnet package in use (``*.nbi``, ``*.nbc`` in its ``__pycache__`` folders).
After the table, the growth exponent of vecnet's formulate + compile time in N is fitted
(least squares of log time against log N, N >= 4).

Usage: ``python benchmarks/multibody.py [--quick] [--cold] [--systems spherical,universal,
planar] [--sizes 2,4,8] [--time T] [--shorten SIZE:SECONDS] [--ref-atol A] [--mj-budget S]``
(``--quick``: N = 2, 4 and 1 s; ``--shorten 24:5`` simulates 5 s for N >= 24, shown in the
table's T column; ``--shorten none``: the full time for every N). MuJoCo (the ``mujoco``
package) is optional: without it only vecnet is measured. The script exits with status 1 if
a check fails (a vecnet or reference simulation fails, or the reference disagrees with
MuJoCo); how fast either tool is, is reported, not checked.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import math
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy
from _table import Checks, format_ratio, format_row, format_time, print_header

import vecnet as vn
from vecnet.errors import SimulationError

try:
    import mujoco
except ImportError:  # an optional benchmark dependency
    mujoco = None
try:
    import pinocchio as pin
except ImportError:  # an optional benchmark dependency (pip install pin)
    pin = None

SYSTEMS = ("spherical", "universal", "planar", "bent")
BENT_SIZES = [4, 16]     # the bent spherical chain's sizes (its own: --bent-sizes)
BEND = 0.5               # rad: each ball joint's initial turn, about x then y alternately
PERCALL_SIZES = [2, 8, 24, 96]
FULL_SIZES = [2, 4, 8, 16, 24, 48]
QUICK_SIZES = [2, 4]
SAMPLES = 501
RTOLS = [1e-8]          # vecnet's rtols, a row each (--rtols); its atol is ATOL_RATIO x rtol
ATOL_RATIO = 1e-2       # (--atol-ratio)
ERROR_FLOOR = 1e-11     # m: tips closer than this count as equal (the reference is confirmed
                        # no better)
BENT_SHORTEN = "16:2"   # the default --bent-shorten: the bent chain is chaotic at N = 16
REF_RTOL, REF_ATOL = 1e-12, 1e-14
FALLBACK_ATOL = 1e-12   # the reference's atol when REF_ATOL takes too long
REF_BUDGET, REF_FACTOR = 30.0, 4.0  # seconds per reference attempt: max(these, x vn sim)
SHORTEN = "48:5"        # the default --shorten: 5 s of motion for N >= 48
CHECK_SIZES = (2, 4)    # the reference is checked against MuJoCo at a tiny step for these
CHECK_DT = 1e-5
CHECK_FACTOR = 0.01     # |MuJoCo(CHECK_DT) - reference| must be below this times vecnet's
                        # error, or below ERROR_FLOOR
MIN_DT = 1e-6           # the MuJoCo step search ends here
GRAVITY = 9.81
WARMUP_TIME = 0.1       # seconds simulated by the first model of each system
TIME_BUDGET = 1.0       # seconds of repeated runs per timing
MAX_RUNS = 3
LIMITS = dict(max_seconds=3600.0, max_evaluations=10**8)

COLUMNS = [("system", 9, "<"), ("N", 3, ">"), ("T", 4, ">"), ("rtol", 5, ">"),
           ("vn form+comp", 12, ">"),
           ("vn sim", 8, ">"), ("vn error", 9, ">"), ("MJ dt", 9, ">"), ("MJ error", 9, ">"),
           ("MJ sim", 8, ">"), ("vn/MJ", 6, ">"), ("note", 0, "<")]
DETAIL_COLUMNS = [("system", 9, "<"), ("N", 3, ">"), ("rtol", 5, ">"),
                  ("vn formulate", 12, ">"),
                  ("vn compile", 10, ">"), ("vn outputs", 10, ">"), ("reference", 9, ">"),
                  ("MJ error per step tried (dt: error)", 0, "<")]


# -- the chains ---------------------------------------------------------------------------
def link(k: int) -> tuple[float, float, tuple[float, float, float]]:
    """Length, mass and centroidal principal inertias of link k (1-based)."""
    length, mass = 0.5 + 0.1 * (k % 3), 1.0 + 0.25 * (k % 4)
    return length, mass, (mass * length**2 / 12, mass * length**2 / 12, mass * length**2 / 200)


def bend(k: int) -> np.ndarray:
    """Ball joint k's initial turn (the bent chain): BEND about x (k odd) or y (k even)."""
    axis = np.array([1.0, 0.0, 0.0]) if k % 2 else np.array([0.0, 1.0, 0.0])
    K = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + np.sin(BEND) * K + (1 - np.cos(BEND)) * K @ K


def vecnet_velocities(system: str) -> dict[str, Any]:
    return {"spherical": {"b1.omega": (1.0, 0.5, 0.0)}, "bent": {},
            "universal": {"J1.angle1": 1.0, "J1.angle2": 0.5},
            "planar": {"J1.angle": 1.0}}[system]


def mujoco_velocities(system: str) -> tuple[float, ...]:
    """The first joint's qvel (a ball joint's is in the child's axes: world axes at start)."""
    return {"spherical": (1.0, 0.5, 0.0), "universal": (1.0, 0.5), "planar": (1.0,),
            "bent": ()}[system]


def vecnet_chain(system: str, n: int):
    """The n-link chain in vecnet, hanging straight; joints J1..Jn, bodies b1..bn."""
    if system == "planar":
        mech = vn.planar.Mechanism(f"planar{n}", gravity=(0.0, -GRAVITY))
        pin, y = mech.ground.point(0.0, 0.0), 0.0
        for k in range(1, n + 1):
            length, mass, inertia = link(k)
            body = mech.body(f"b{k}", mass=mass, inertia=inertia[1],
                             position=(0.0, y - length / 2))
            mech.revolute(f"J{k}", pin, body.point(0.0, length / 2))
            pin, y = body.point(0.0, -length / 2), y - length
        return mech
    mech = vn.spatial.Mechanism(f"{system}{n}", gravity=(0.0, 0.0, -GRAVITY))
    parent, top, R = mech.ground, np.zeros(3), np.eye(3)
    for k in range(1, n + 1):
        length, mass, inertia = link(k)
        a = mech.ground.point(*top) if parent is mech.ground else \
            parent.point(0.0, 0.0, -link(k - 1)[0] / 2)
        if system == "bent":     # each link turned against its parent, at rest
            R = R @ bend(k)
        down = R @ np.array([0.0, 0.0, -1.0])
        body = mech.body(f"b{k}", mass, inertia, position=top + down * length / 2,
                         orientation=R)
        b = body.point(0.0, 0.0, length / 2)
        if system in ("spherical", "bent"):
            mech.spherical(f"J{k}", a, b)
        else:
            mech.universal(f"J{k}", a, b, axes=((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)))
        parent, top = body, top + down * length
    return mech


def vecnet_tip(system: str, res, n: int) -> np.ndarray:
    if system == "planar":
        return np.column_stack([res[f"b{n}.x"], res[f"b{n}.y"]])
    return np.asarray(res[f"b{n}.position"], dtype=float)


def mujoco_xml(system: str, n: int) -> str:
    """MJCF of the chain: body k's frame at its joint, its mass centre l_k/2 below."""
    ball = lambda k: f'<joint name="J{k}" type="ball"/>'   # noqa: E731
    joints = {"spherical": ball, "bent": ball,
              "universal": lambda k: (f'<joint name="J{k}a" type="hinge" axis="1 0 0"/>'
                                      f'<joint name="J{k}b" type="hinge" axis="0 1 0"/>'),
              "planar": lambda k: f'<joint name="J{k}" type="hinge" axis="0 -1 0"/>'}[system]
    parts = ['<mujoco model="chain">',
             f'<option timestep="0.001" integrator="RK4" gravity="0 0 {-GRAVITY}">'
             '<flag contact="disable"/></option>', "<worldbody>"]
    above = 0.0
    for k in range(1, n + 1):
        length, mass, (jx, jy, jz) = link(k)
        parts.append(f'<body name="b{k}" pos="0 0 {-above!r}">'
                     f'<inertial pos="0 0 {-length / 2!r}" mass="{mass!r}" '
                     f'diaginertia="{jx!r} {jy!r} {jz!r}"/>{joints(k)}')
        above = length
    parts += ["</body>" * n, "</worldbody>", "</mujoco>"]
    return "".join(parts)


# -- measuring ------------------------------------------------------------------------------
def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Best wall time of ``fn()`` and its last result; repeats while the runs so far took
    less than TIME_BUDGET (at most MAX_RUNS)."""
    times: list[float] = []
    result = None
    while not times or (len(times) < MAX_RUNS and sum(times) < TIME_BUDGET):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def tip_error(tip: np.ndarray, reference: np.ndarray) -> float:
    """Largest distance between two tip trajectories (inf if either is not finite)."""
    d = np.linalg.norm(tip - reference, axis=1).max()
    return float(d) if np.isfinite(d) else math.inf


def simulate(eom, system: str, t_end: float, rtol: float, atol: float,
             max_seconds: float | None = None):
    limits = LIMITS if max_seconds is None else {**LIMITS, "max_seconds": max_seconds}
    with vn.limits(**limits):
        return eom.simulate(t_end, t_eval=np.linspace(0.0, t_end, SAMPLES), rtol=rtol,
                            atol=atol, velocities=vecnet_velocities(system))


def formulate_and_compile(system: str, n: int):
    mech = vecnet_chain(system, n)
    start = time.perf_counter()
    eom = mech.formulate()
    formulated = time.perf_counter()
    eom.compile()
    return formulated - start, time.perf_counter() - formulated, eom


def reference(eom, system: str, t_end: float, atol: float, budget: float) -> dict[str, Any]:
    """The reference simulation at rtol REF_RTOL and ``atol``, then at FALLBACK_ATOL if that
    is looser; each attempt stopped after ``budget`` seconds (where a chain whips, DOP853's
    steps collapse at tight atol, its error estimate then being roundoff)."""
    out: dict[str, Any] = {}
    start = time.perf_counter()
    attempts = [atol] + ([FALLBACK_ATOL] if atol < FALLBACK_ATOL else [])
    stopped = []
    for a in attempts:
        try:
            out["result"] = simulate(eom, system, t_end, REF_RTOL, a, max_seconds=budget)
        except SimulationError:
            stopped.append(a)
            continue
        out["ref atol"] = a
        break
    out["ref time"] = time.perf_counter() - start
    tried = " and ".join(f"{a:g}" for a in stopped)
    if "result" not in out:
        out["ref success"] = False
        out["ref message"] = (f"stopped after {format_time(budget)} at atol {tried} "
                              "(try --shorten)")
        return out
    if stopped:
        out["ref note"] = (f"reference atol {out['ref atol']:g} (at {tried}: > "
                           f"{format_time(budget)})")
    out["ref success"] = bool(out["result"].success) and len(out["result"].t) == SAMPLES
    out["ref message"] = getattr(out["result"], "message", "")
    return out


def measure_vecnet(system: str, n: int, t_end: float, ref_atol: float,
                   rtols: list[float], atol_ratio: float = ATOL_RATIO) -> dict[str, Any]:
    """Formulate + compile, then a simulation at each of ``rtols`` (``out["runs"][rtol]``:
    its time, tip, success and error) and the reference; ``out["sim"]`` is the longest
    simulation, which sets the reference's budget."""
    out: dict[str, Any] = {"runs": {}}
    runs = []

    def both():
        runs.append(formulate_and_compile(system, n))
        return runs[-1][2]

    out["form+comp"], eom = timed(both)
    best = min(runs, key=lambda r: r[0] + r[1])
    out["formulate"], out["compile"] = best[0], best[1]
    for rtol in rtols:
        run: dict[str, Any] = {}
        out["runs"][rtol] = run
        try:
            run["sim"], res = timed(lambda: simulate(eom, system, t_end, rtol,
                                                     atol_ratio * rtol))
            start = time.perf_counter()
            run["tip"] = vecnet_tip(system, res, n)
            run["outputs"] = time.perf_counter() - start
            run["success"] = bool(res.success) and len(res.t) == SAMPLES
            run["message"] = getattr(res, "message", "")
        except Exception as exc:  # reported as a failed check; the benchmark goes on
            run["success"], run["message"] = False, f"{type(exc).__name__}: {exc}"
    out["sim"] = max((r["sim"] for r in out["runs"].values() if "sim" in r), default=0.0)
    try:
        ref = reference(eom, system, t_end, ref_atol, max(REF_BUDGET, REF_FACTOR * out["sim"]))
    except Exception as exc:
        out["ref success"], out["ref message"] = False, f"{type(exc).__name__}: {exc}"
        return out
    out.update(ref)
    if "result" not in ref:
        return out
    out["reference"] = vecnet_tip(system, ref["result"], n)
    for run in out["runs"].values():
        if "tip" in run:
            run["error"] = tip_error(run["tip"], out["reference"])
    return out


class MujocoChain:
    """A MuJoCo model of one chain, run from its initial state at any RK4 step."""

    def __init__(self, system: str, n: int) -> None:
        self.model = mujoco.MjModel.from_xml_string(mujoco_xml(system, n))
        self.system, self.n = system, n
        self.body = self.model.body(f"b{n}").id
        self.qvel0 = mujoco_velocities(system)
        # the tip in vecnet's axes: (x, z) of MuJoCo in the plane
        self.axes = [0, 2] if system == "planar" else [0, 1, 2]

    def run(self, t_end: float, dt: float) -> tuple[float, np.ndarray, int]:
        """Wall time, tip at the output times, and warnings raised, for steps of ``dt``
        (which divides the output spacing)."""
        model = self.model
        model.opt.timestep = dt
        data = mujoco.MjData(model)
        data.qvel[:len(self.qvel0)] = self.qvel0
        if self.system == "bent":   # each ball joint's turn, as a quaternion (w, x, y, z)
            for k in range(self.n):
                mujoco.mju_mat2Quat(data.qpos[4 * k:4 * k + 4], bend(k + 1).reshape(9))
        mujoco.mj_forward(model, data)
        nstep = int(round(t_end / (SAMPLES - 1) / dt))
        tips = np.empty((SAMPLES, 3))
        xipos, body = data.xipos, self.body
        start = time.perf_counter()
        tips[0] = xipos[body]
        for i in range(1, SAMPLES):
            mujoco.mj_step(model, data, nstep)
            tips[i] = xipos[body]
        seconds = time.perf_counter() - start
        warnings = int(sum(w.number for w in data.warning))
        return seconds, tips[:, self.axes], warnings


def measure_mujoco(chain: MujocoChain, t_end: float, target: float, reference: np.ndarray,
                   budget: float, seen: dict[float, tuple[float, float, int]]
                   ) -> dict[str, Any]:
    """The first step, halving from the output spacing, with a tip error no larger than
    ``target``; its best run time. ``seen`` keeps each step's (time, error, warnings)
    for the next target on the same chain."""
    dt = t_end / (SAMPLES - 1)
    out: dict[str, Any] = {"tried": [], "found": False}
    while True:
        if dt not in seen:
            seconds, tips, warnings = chain.run(t_end, dt)
            seen[dt] = (seconds, tip_error(tips, reference), warnings)
        seconds, error, warnings = seen[dt]
        out["tried"].append((dt, error, seconds, warnings))
        out["warnings"] = warnings
        if error <= target:
            runs = [seconds]  # best of up to MAX_RUNS while they take under TIME_BUDGET
            while len(runs) < MAX_RUNS and sum(runs) < TIME_BUDGET:
                runs.append(chain.run(t_end, dt)[0])
            out["sim"] = min(runs)
            out.update(found=True, dt=dt, error=error)
            return out
        if dt / 2 < MIN_DT or 2 * seconds > budget:
            out.update(dt=dt, error=error, sim=seconds,
                       stop=f"dt < {MIN_DT:g} s" if dt / 2 < MIN_DT
                       else f"next run > {budget:g} s")
            return out
        dt /= 2


def check_step(t_end: float) -> float:
    """About CHECK_DT, dividing the output spacing."""
    spacing = t_end / (SAMPLES - 1)
    return spacing / max(1, round(spacing / CHECK_DT))


def reference_check(system: str, n: int, t_end: float, reference: np.ndarray) -> float:
    """|MuJoCo RK4 at :func:`check_step` - reference|."""
    _, tips, _ = MujocoChain(system, n).run(t_end, check_step(t_end))
    return tip_error(tips, reference)


# -- numba's cache and the first model --------------------------------------------------------
def kernel_dispatchers() -> list:
    """vecnet's numba-compiled functions (empty if there are none or numba changed)."""
    try:
        from numba.core.dispatcher import Dispatcher

        from vecnet.numerics import tree_kernels
    except ImportError:
        return []
    return [f for f in vars(tree_kernels).values() if isinstance(f, Dispatcher)]


def kernel_stats() -> tuple[int, int]:
    """Numba cache hits and misses (compilations) so far, over vecnet's kernels."""
    hits = misses = 0
    for f in kernel_dispatchers():
        stats = getattr(f, "stats", None)
        if stats is not None:
            hits += sum(stats.cache_hits.values())
            misses += sum(stats.cache_misses.values())
    return hits, misses


def clear_numba_cache() -> list[Path]:
    """Delete numba's cache files (``*.nbi``, ``*.nbc``) of the vecnet package in use."""
    spec = importlib.util.find_spec("vecnet")
    root = Path(spec.origin).parent
    folders = list(root.rglob("__pycache__"))
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:  # numba mirrors the source tree there
        folders += [p for p in Path(custom).rglob("*") if p.is_dir() and "vecnet" in p.parts]
    removed = []
    for folder in folders:
        for pattern in ("*.nbi", "*.nbc"):
            for path in folder.glob(pattern):
                path.unlink()
                removed.append(path)
    return removed


def first_models(systems: list[str], cold: bool) -> None:
    """Time each system's first model (N = 2): formulate + compile, and a first simulation
    of WARMUP_TIME seconds, which calls (and so compiles or loads) the numba kernels."""
    if cold:
        removed = clear_numba_cache()
        folder = str(Path(importlib.util.find_spec("vecnet").origin).parent)
        print(f"--cold: deleted {len(removed)} numba cache file(s) under {folder}")
    print("\nFirst model of each system in this process (N = 2; numba compiles vecnet's "
          "kernels on their first call, or loads them from its on-disk cache):")
    for system in systems:
        hits, misses = kernel_stats()
        start = time.perf_counter()
        mech = vecnet_chain(system, 2)
        eom = mech.formulate()
        eom.compile()
        form_comp = time.perf_counter() - start
        start = time.perf_counter()
        vecnet_tip(system, simulate(eom, system, WARMUP_TIME, RTOLS[0],
                                    ATOL_RATIO * RTOLS[0]), 2)
        sim = time.perf_counter() - start
        hits2, misses2 = kernel_stats()
        kernels = (f"kernels compiled {misses2 - misses}, loaded from cache {hits2 - hits}"
                   if kernel_dispatchers() else "no numba kernels found")
        print(f"  {system:<9} build + formulate + compile {format_time(form_comp)}, first "
              f"simulate ({WARMUP_TIME:g} s) and tip {format_time(sim)}; {kernels}")


# -- the benchmark ----------------------------------------------------------------------------
def print_versions() -> None:
    import numba

    print(f"Python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"numba {numba.__version__}, vecnet {vn.__version__} "
          f"({Path(vn.__file__).parent}), mujoco "
          f"{mujoco.__version__ if mujoco else 'not installed'}")
    print(f"{platform.platform()}, {os.cpu_count()} CPUs")


def sim_time(n: int, t_end: float, shorten: tuple[int, float] | None) -> float:
    return min(t_end, shorten[1]) if shorten and n >= shorten[0] else t_end


# -- one forward-dynamics call against Pinocchio and MuJoCo ------------------------------------
def pinocchio_chain(system: str, n: int):
    """Pinocchio's model of the chain (ball joints; a universal as two hinges; the plane's
    pins about z, the chain hanging along -y); ``None`` without Pinocchio."""
    if pin is None:
        return None
    model = pin.Model()
    down = np.array([0.0, -1.0, 0.0]) if system == "planar" else np.array([0.0, 0.0, -1.0])
    parent, offset = 0, np.zeros(3)
    for k in range(1, n + 1):
        length, mass, (jx, jy, jz) = link(k)
        place = pin.SE3(np.eye(3), offset)
        if system == "universal":
            first = model.addJoint(parent, pin.JointModelRX(), place, f"J{k}a")
            jid = model.addJoint(first, pin.JointModelRY(), pin.SE3.Identity(), f"J{k}b")
        else:
            jm = pin.JointModelRZ() if system == "planar" else pin.JointModelSpherical()
            jid = model.addJoint(parent, jm, place, f"J{k}")
        # the plane's body axes: along the link is y, about z the inertia jy
        J = np.diag([jx, jz, jy]) if system == "planar" else np.diag([jx, jy, jz])
        model.appendBodyToJoint(jid, pin.Inertia(mass, down * length / 2, J), pin.SE3.Identity())
        parent, offset = jid, down * length
    model.gravity.linear = GRAVITY * down
    return model


def random_state(system: str, model, rng) -> tuple[np.ndarray, np.ndarray]:
    """A state near hanging (turns of about 0.3 rad, rates of about 1 rad/s), well
    conditioned for the comparison, in vecnet's coordinates and speeds."""
    if system in ("spherical", "bent"):
        q = np.tile([1.0, 0.0, 0.0, 0.0], model.nu // 3) + 0.15 * rng.normal(size=model.n)
        return model.normalize(q), rng.normal(size=model.nu)
    return 0.3 * rng.normal(size=model.n), rng.normal(size=model.nu)


def pinocchio_state(system: str, q: np.ndarray, u: np.ndarray):
    """Pinocchio's ``(q, v)`` of a vecnet state, the map of its ``a`` back to vecnet's
    ``u'`` and the map of vecnet's ``u'`` to Pinocchio's ``a`` (a ball joint's velocity is
    in the child's axes there, the parent's here; as the relative angular velocity
    ``R v`` has the rate ``R a + (R v) x (R v) = R a``, the map of rates is the same)."""
    if system not in ("spherical", "bent"):
        return q, u, lambda a: a, lambda a: a
    n = len(u) // 3
    qp, vp, turns = np.empty(4 * n), np.empty(3 * n), []
    for k in range(n):
        w, x, y, z = q[4 * k:4 * k + 4]
        qp[4 * k:4 * k + 4] = (x, y, z, w)
        R = pin.Quaternion(w, x, y, z).toRotationMatrix()
        vp[3 * k:3 * k + 3] = R.T @ u[3 * k:3 * k + 3]
        turns.append(R)
    return (qp, vp, lambda a: np.concatenate([turns[k] @ a[3 * k:3 * k + 3] for k in range(n)]),
            lambda a: np.concatenate([turns[k].T @ a[3 * k:3 * k + 3] for k in range(n)]))


def backward_error(model, q: np.ndarray, v: np.ndarray, a: np.ndarray) -> float:
    """How far ``a`` is from solving Pinocchio's equations ``M(q) a + b(q, v) = 0`` (its
    ``crba`` and ``rnea``), relative: ``|M a + b| / (|M| |a| + |b|)`` in the infinity norm.
    Roundoff gives about 1e-16 to an exact solver at any conditioning; a long chain with
    cond(M) of 1e8 or more may put two such answers far apart."""
    data = model.createData()
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    b = pin.rnea(model, data, q, v, np.zeros(model.nv))
    return float(np.abs(M @ a + b).max()
                 / (np.abs(M).sum(axis=1).max() * np.abs(a).max() + np.abs(b).max()))


def per_call(fn: Callable[[], Any], runs: int = 5) -> float:
    """Best of ``runs`` of the mean time of one call, over about 20 ms of calls each."""
    start = time.perf_counter()
    fn()
    repeat = max(20, int(0.02 / max(time.perf_counter() - start, 1e-7)))
    best = math.inf
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best


PERCALL_COLUMNS = [("system", 9, "<"), ("N", 3, ">"), ("vn integrator", 13, ">"),
                   ("vn kernel", 9, ">"), ("vn public", 9, ">"), ("pin aba", 8, ">"),
                   ("MJ forward", 10, ">"), ("vn/pin", 6, ">"), ("kernel/pin", 10, ">"),
                   ("public/pin", 10, ">"), ("vn/MJ", 6, ">"), ("agree", 7, ">"), ("vn bwd", 7, ">"),
                   ("pin bwd", 7, ">")]


def per_call_table(systems: list[str], sizes: list[int], checks: Checks) -> None:
    """One forward-dynamics call of each chain in each tool, at a random state near
    hanging: vecnet's right-hand side as its integrator calls it
    (``model.open_chain_rates()``: normalized quaternions, u' and q'), its compiled kernel
    alone, the public ``eom.forward_dynamics(q, u)``, Pinocchio's ``aba`` (model and data
    made once) and MuJoCo's ``mj_forward``. The calls are interleaved (each timing the best
    of 5), in this one process; ``agree`` is vecnet's u' against Pinocchio's, relative, and
    ``vn bwd``, ``pin bwd`` each tool's backward error in Pinocchio's own equations
    (:func:`backward_error`), which decides where the two disagree."""
    from vecnet.numerics import tree_kernels

    print_header("One forward-dynamics call (us): vecnet against Pinocchio's aba and "
                 "MuJoCo's mj_forward", PERCALL_COLUMNS)
    rng = np.random.default_rng(1)
    for system in [s for s in systems if s != "bent"]:
        for n in sizes:
            eom = vecnet_chain(system, n).formulate()
            model = eom.compile()
            q, u = random_state(system, model, rng)
            y = np.concatenate([q, u])
            rhs = model.open_chain_rates()
            packed = tree_kernels.pack(model.kernel_tree, model.n, model.nu)
            calls: dict[str, Callable[[], Any]] = {
                "integrator": lambda: rhs(y),
                "kernel": lambda: tree_kernels.open_chain_rates(*packed, y),
                "public": lambda: eom.forward_dynamics(q, u)}
            agree = vn_bwd = pin_bwd = failed = ""
            pm = pinocchio_chain(system, n)
            if pm is not None:
                pdata, qp, vp, back, there = pm.createData(), *pinocchio_state(system, q, u)
                tau = np.zeros(pm.nv)
                calls["pin"] = lambda: pin.aba(pm, pdata, qp, vp, tau)
                a_pin = pin.aba(pm, pdata, qp, vp, tau).copy()
                a_vn = rhs(y)[model.n:]
                error = np.abs(a_vn - back(a_pin)).max() / np.abs(a_pin).max()
                ours = backward_error(pm, qp, vp, there(a_vn))
                agree, vn_bwd = f"{error:.0e}", f"{ours:.0e}"
                pin_bwd = f"{backward_error(pm, qp, vp, a_pin):.0e}"
                failed = checks.note(ours < 1e-14, "", f"  FAILED: vecnet's u' has backward "
                                     f"error {ours:.1e} in Pinocchio's equations")
            if mujoco is not None:
                mm = mujoco.MjModel.from_xml_string(mujoco_xml(system, n))
                md = mujoco.MjData(mm)
                calls["mj"] = lambda: mujoco.mj_forward(mm, md)
            best = {k: math.inf for k in calls}
            for _ in range(3):      # interleaved: each tool sees the same load
                for k, fn in calls.items():
                    best[k] = min(best[k], per_call(fn))
            us = {k: f"{t * 1e6:.1f}" for k, t in best.items()}
            pin_t, mj_t = best.get("pin"), best.get("mj")
            cells = [system, str(n), us["integrator"], us["kernel"], us["public"],
                     us.get("pin", ""), us.get("mj", ""),
                     f"{best['integrator'] / pin_t:.2f}" if pin_t else "",
                     f"{best['kernel'] / pin_t:.2f}" if pin_t else "",
                     f"{best['public'] / pin_t:.2f}" if pin_t else "",
                     f"{best['integrator'] / mj_t:.2f}" if mj_t else "", agree, vn_bwd,
                     pin_bwd]
            print(format_row(cells, PERCALL_COLUMNS), flush=True)
            if failed:
                print(failed)
    print("vn integrator = the right-hand side the integrator calls; vn kernel = the compiled "
          "call alone; vn public = eom.forward_dynamics(q, u) (checks and all); vn/pin, "
          "kernel/pin and public/pin against Pinocchio's aba; vn/MJ against mj_forward (which also does "
          "MuJoCo's collision and sensor stages, disabled here); agree = |u'_vn - u'_pin| / "
          "|u'_pin|; vn bwd, pin bwd = |M a + b| / (|M| |a| + |b|) in Pinocchio's crba and "
          "rnea"
          + ("" if pin is not None else "; pin (Pinocchio) not installed: its columns empty"))


FRESH = """
import time
start = time.process_time()
import numpy as np
import vecnet as vn
imported = time.process_time()
sys_path = {path!r}
import sys
sys.path.insert(0, sys_path)
import multibody as bench
mech = bench.vecnet_chain({system!r}, 2)
built = time.process_time()
import numba
from numba.core.registry import cpu_target
cpu_target.target_context.refresh()    # what numba's first call of any kernel does first
numba_ready = time.process_time()
eom = mech.formulate()
formulated = time.process_time()
model = eom.compile()
compiled = time.process_time()
q, u = bench.random_state({system!r}, model, np.random.default_rng(0))
model.open_chain_rates()(np.concatenate([q, u]))
eom.forward_dynamics(q, u)
done = time.process_time()
print(imported - start, done - built, numba_ready - built, formulated - numba_ready,
      compiled - formulated, done - compiled)
"""


def fresh_process(systems: list[str]) -> None:
    """CPU time of a fresh process (numba's cache and Python's bytecode warm, as after
    installing): importing vecnet, then formulating and compiling its first model (N = 2)
    and the first call of its right-hand side and of ``eom.forward_dynamics`` (best of 3
    processes, after one that writes the bytecode), in parts: numba's own import and set-up
    (what its first call of any kernel costs), formulate, compile, the first calls (numba
    loading the kernel from its cache)."""
    import subprocess

    print("\nA fresh process's first model (N = 2; CPU time, numba's cache and the bytecode "
          "warm; best of 3):")
    here = str(Path(__file__).parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(vn.__file__).parent.parent), os.environ.get("PYTHONPATH", "")])}
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # an installed package has its bytecode
    for system in [s for s in systems if s != "bent"]:
        runs = []
        for _ in range(4):
            out = subprocess.run([sys.executable, "-c", FRESH.format(path=here, system=system)],
                                 capture_output=True, text=True, env=env, check=False)
            if out.returncode:
                print(f"  {system:<9} failed: {out.stderr.strip().splitlines()[-1:]}")
                break
            runs.append(tuple(float(x) for x in out.stdout.split()))
        runs = runs[1:]     # the first wrote the bytecode
        if runs:
            imports, first, numba_setup, formulate, compile_, call = min(runs, key=lambda r: r[1])
            print(f"  {system:<9} imports {imports:.2f} s; formulate + compile + first call "
                  f"{first:.3f} s: numba's import and set-up {numba_setup:.3f} s, formulate "
                  f"{formulate:.3f} s, compile {compile_:.3f} s, first calls {call:.3f} s")


def bench(systems: list[str], sizes: list[int], t_end: float, shorten, budget: float,
          ref_atol: float, checks: Checks, bent_sizes: list[int] = BENT_SIZES,
          rtols: list[float] = RTOLS, bent_shorten=(16, 2.0), atol_ratio: float = ATOL_RATIO
          ) -> dict[tuple[str, int], dict[str, Any]]:
    print_header(f"Tip error and wall time; vecnet DOP853 at each rtol, atol {atol_ratio:g} x "
                 f"rtol; reference vecnet rtol {REF_RTOL:g}, atol {ref_atol:g}; MuJoCo RK4 at "
                 f"the first halved step as accurate as vecnet (or within {ERROR_FLOOR:g} m)",
                 COLUMNS)
    rows: dict[tuple[str, int], dict[str, Any]] = {}
    ref_checks = []
    for system in systems:
        for n in (bent_sizes if system == "bent" else sizes):
            T = sim_time(n, t_end, bent_shorten if system == "bent" else shorten)
            v = measure_vecnet(system, n, T, ref_atol, rtols, atol_ratio)
            common = []
            if any(r.get("success") for r in v["runs"].values()) and \
                    not v.get("ref success", False):
                common.append(checks.note(False, "", "REFERENCE SIMULATION FAILED: "
                                          f"{v.get('ref message', '')}"))
            elif "ref note" in v:
                common.append(v["ref note"])
            mj: dict[float, dict[str, Any]] = {}
            if mujoco is not None and "reference" in v:
                chain, seen = MujocoChain(system, n), {}
                for rtol, run in v["runs"].items():
                    if "error" in run:
                        mj[rtol] = measure_mujoco(chain, T, max(run["error"], ERROR_FLOOR),
                                                  v["reference"], budget, seen)
            errors = [r["error"] for r in v["runs"].values() if "error" in r]
            if mj and errors:
                # checked at N = 2, 4, and wherever the reference fell back to a looser
                # atol if MuJoCo's run at the tiny step fits in the budget
                seconds, dt = max((m["tried"][-1][2], m["tried"][-1][0]) for m in mj.values())
                predicted = seconds * dt / check_step(T)
                if n in CHECK_SIZES or ("ref note" in v and predicted <= budget):
                    agree = reference_check(system, n, T, v["reference"])
                    bound = max(CHECK_FACTOR * min(errors), ERROR_FLOOR)
                    ok = agree <= bound
                    ref_checks.append((system, n, T, v["ref atol"], agree, bound, ok))
                    checks.note(ok, "", "")
                    if not ok:
                        common.append("REFERENCE NOT CONFIRMED BY MUJOCO")
                elif "ref note" in v:
                    common.append(f"not checked against MuJoCo (dt {check_step(T):.3g} s "
                                  f"would take ~{predicted:.0f} s)")
            for rtol, run in v["runs"].items():
                notes = [checks.note(run["success"], "",
                                     f"VECNET SIMULATION FAILED: {run['message']}"), *common]
                m = mj.get(rtol)
                if m is not None:
                    if not m["found"]:
                        notes.append(f"MuJoCo not as accurate by dt = {m['dt']:.3g} s "
                                     f"({m['stop']}); its time there")
                    if m["warnings"]:
                        notes.append(f"MuJoCo warned {m['warnings']} time(s) at dt "
                                     f"{m['dt']:.3g} s (unstable)")
                rows[(system, n, rtol)] = {"vn": v, "run": run, "mj": m, "T": T}
                ratio = run["sim"] / m["sim"] if m and "sim" in run else None
                cells = [system, str(n), f"{T:g}", f"{rtol:.0e}", format_time(v.get("form+comp")),
                         format_time(run.get("sim")),
                         f"{run['error']:.1e}" if "error" in run else "",
                         f"{m['dt']:.3g}" if m else "", f"{m['error']:.1e}" if m else "",
                         format_time(m["sim"]) if m else "", format_ratio(ratio),
                         "; ".join(x for x in notes if x)]
                print(format_row(cells, COLUMNS), flush=True)
    print("T = seconds simulated; rtol = vecnet's; vn form+comp = formulate() + compile(); "
          "vn sim = simulate() (501 output times); errors = largest distance (m) of the tip "
          "from the reference's over the output times; MJ sim = mj_step loop and tip "
          "recording at step MJ dt; vn/MJ = vn sim / MJ sim")
    if mujoco is None:
        print("note: mujoco is not installed (pip install mujoco, or the 'bench' extra): "
              "MuJoCo columns skipped and the reference not checked against it")

    print_header("Details", DETAIL_COLUMNS)
    for (system, n, rtol), row in rows.items():
        v, run, m = row["vn"], row["run"], row["mj"]
        tried = " ".join(f"{dt:.3g}: {e:.1e}{' (unstable)' if w else ''}"
                         for dt, e, _, w in m["tried"]) if m else ""
        cells = [system, str(n), f"{rtol:.0e}", format_time(v.get("formulate")),
                 format_time(v.get("compile")), format_time(run.get("outputs")),
                 format_time(v.get("ref time")), tried]
        print(format_row(cells, DETAIL_COLUMNS))
    print("vn outputs = deriving the named outputs on first access (the tip and everything "
          "else; not in vn sim); reference = the reference simulation (its atol in the "
          "note when it is not the table's, its time then including the stopped run); "
          "unstable = MuJoCo warned of NaN or huge accelerations (and reset its state)")

    if ref_checks:
        print(f"\nReference check: MuJoCo RK4 at dt = {CHECK_DT:g} s against the reference "
              f"(rtol {REF_RTOL:g}; must be within {CHECK_FACTOR:g} x vecnet's smallest "
              f"error, or {ERROR_FLOOR:g} m)")
        for system, n, T, atol, agree, bound, ok in ref_checks:
            print(f"  {system:<9} N = {n:>2}, {T:g} s, reference atol {atol:g}: "
                  f"|MuJoCo - reference| = {agree:.1e} m, bound {bound:.1e} m: "
                  f"{'ok' if ok else 'FAILED'}")
    return rows


def report_growth(systems: list[str], rows) -> None:
    print("\nGrowth of vecnet's formulate + compile time, t ~ N^p (least squares of log t "
          "against log N, N >= 4):")
    for system in systems:
        pts = sorted({(n, row["vn"]["form+comp"]) for (s, n, _), row in rows.items()
                      if s == system and n >= 4 and row["vn"].get("form+comp")})
        if len(pts) < 2:
            print(f"  {system:<9} needs two sizes N >= 4")
            continue
        ns, ts = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
        p = np.polyfit(ns, ts, 1)[0]
        print(f"  {system:<9} p = {p:.2f} (N = {', '.join(str(n) for n, _ in pts)})")


def parse_list(text: str, cast, name: str, allowed=None) -> list:
    try:
        values = [cast(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"--{name}: a comma-separated list; got {text!r}") from None
    if allowed is not None and (bad := [x for x in values if x not in allowed]):
        raise SystemExit(f"--{name}: unknown {bad}; choose from {', '.join(allowed)}")
    return values


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 2 and 4, 1 s of motion")
    parser.add_argument("--cold", action="store_true",
                        help="delete numba's cache of vecnet's kernels first")
    parser.add_argument("--systems", default=",".join(SYSTEMS),
                        help="comma-separated: spherical, universal, planar, bent (the "
                        "spherical chain released bent at rest)")
    parser.add_argument("--sizes", default=None, help="comma-separated N (default: "
                        f"{', '.join(map(str, FULL_SIZES))}; --quick: 2, 4)")
    parser.add_argument("--time", type=float, default=None,
                        help="seconds simulated (default 10; --quick: 1)")
    parser.add_argument("--shorten", default=SHORTEN, metavar="SIZE:SECONDS",
                        help=f"simulate only SECONDS for N >= SIZE (default {SHORTEN}; "
                        "'none': the full time for every N)")
    parser.add_argument("--ref-atol", type=float, default=REF_ATOL,
                        help=f"the reference's atol (default {REF_ATOL:g}); when it takes "
                        f"longer than max({REF_BUDGET:g} s, {REF_FACTOR:g} x vecnet's "
                        f"simulate), the reference is run again at atol {FALLBACK_ATOL:g}")
    parser.add_argument("--mj-budget", type=float, default=120.0,
                        help="longest MuJoCo run in the step search, seconds (default 120)")
    parser.add_argument("--bent-sizes", default=",".join(map(str, BENT_SIZES)),
                        help="N of the bent spherical chain (default 4, 16)")
    parser.add_argument("--bent-shorten", default=BENT_SHORTEN, metavar="SIZE:SECONDS",
                        help="the bent chain simulates only SECONDS for N >= SIZE (default "
                        f"{BENT_SHORTEN}: it is chaotic at N = 16)")
    parser.add_argument("--rtols", default=",".join(f"{r:g}" for r in RTOLS),
                        help="vecnet's rtols, a row each (default 1e-8)")
    parser.add_argument("--atol-ratio", type=float, default=ATOL_RATIO,
                        help=f"vecnet's atol over its rtol (default {ATOL_RATIO:g})")
    parser.add_argument("--percall-sizes", default=",".join(map(str, PERCALL_SIZES)),
                        help="N of the per-call table (default 2, 8, 24, 96; 'none': no "
                        "table)")
    parser.add_argument("--no-end-to-end", action="store_true",
                        help="only the per-call table and the fresh process's cost")
    args = parser.parse_args()
    systems = parse_list(args.systems, str, "systems", SYSTEMS)
    sizes = (parse_list(args.sizes, int, "sizes") if args.sizes
             else QUICK_SIZES if args.quick else FULL_SIZES)
    if any(n < 1 for n in sizes):
        parser.error("--sizes: every N is at least 1")
    t_end = args.time if args.time is not None else (1.0 if args.quick else 10.0)

    def size_seconds(text: str, name: str) -> tuple[int, float] | None:
        if not text or text.lower() == "none":
            return None
        try:
            size, seconds = text.split(":")
            return int(size), float(seconds)
        except ValueError:
            parser.error(f"--{name}: SIZE:SECONDS, for example 24:5; got {text!r}")

    shorten = size_seconds(args.shorten, "shorten")
    bent_shorten = size_seconds(args.bent_shorten, "bent-shorten")
    rtols = parse_list(args.rtols, float, "rtols")
    if mujoco is not None:  # warnings are counted per run (data.warning), not printed or logged
        mujoco.set_mju_user_warning(lambda message: None)
    start = time.perf_counter()
    checks = Checks()
    print_versions()
    first_models([s for s in systems if s != "bent"], args.cold)
    fresh_process(systems)
    if args.percall_sizes.lower() != "none":
        per_call_table(systems, parse_list(args.percall_sizes, int, "percall-sizes"), checks)
    if not args.no_end_to_end:
        rows = bench(systems, sizes, t_end, shorten, args.mj_budget, args.ref_atol, checks,
                     parse_list(args.bent_sizes, int, "bent-sizes"), rtols, bent_shorten,
                     args.atol_ratio)
        report_growth([s for s in systems if s != "bent"], rows)
    print(f"\ntotal run time {time.perf_counter() - start:.1f} s; "
          f"{checks.failures or 'no'} failed check(s)")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
