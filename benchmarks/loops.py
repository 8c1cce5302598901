"""Benchmark vecnet on closed loops at scale against MuJoCo: a hanging planar ladder of K
four-bar loops.

The ladder hangs from two ground pins in the vertical plane (vecnet's x, y; MuJoCo's x, z,
gravity 9.81 m/s^2 downwards). Level k = 0..K has its left and right nodes at
(-w_k / 2, -0.5 k) and (w_k / 2, -0.5 k) m, with w_k = 0.8 m for even k and 0.6 m for odd
k: level 0 is the ground. Level k >= 1 adds three uniform rods, each a body with its
inertia m l^2 / 12 about its centre:

* the posts L_k and R_k, from the nodes of level k - 1 to those of level k (length
  sqrt(0.5^2 + 0.1^2) m, mass 1 + 0.25 (k mod 3) kg each);
* the rung H_k, from the left to the right node of level k (length w_k, mass 1.5 w_k kg);

and four pins: JL_k (post L_{k-1}, or the ground, to L_k), JR_k (the same on the right),
HL_k (L_k to the rung) and HR_k (the rung to R_k). Every level closes one four-bar loop
(its rung, its two posts and the rung or ground above); neighbouring rungs differ in
length, so no loop is a parallelogram. 3K bodies, 4K pins, K degrees of freedom. The
ladder is symmetric about x = 0, so its symmetric pose is an equilibrium (a stable one);
it is released from rest with JL_1 turned 0.05 rad from it (the rest of the ladder
assembled around that), so it sways.

* vecnet: ``vn.planar.Mechanism`` built as above (every body placed at angle 0, so its
  body axes are world axes in the symmetric pose), ``formulate()`` (joint coordinates:
  the pins JL, JR, HL in the tree, HR_k the K cut joints, 2K constraint rows) and
  ``simulate(T, initial={"JL1.angle": 0.05})``: DOP853 on the coordinates and speeds,
  the dependent ones found anew from the loops after every step (coordinate partitioning);
  the constrained equations in body space, which ``linear_algebra="auto"`` takes for
  the ladder (``--linear-algebra dense``: in joint space; the notes say which ran).
* MuJoCo: MJCF written here with the same tree (hinges about -y: L_k the child of
  L_{k-1}, R_k of R_{k-1}, H_k of L_k, every body frame at its upper pin, unrotated in the
  symmetric pose), a ``connect`` equality at the right end of every rung closing loop k,
  RK4, contacts disabled, energy computed. Equality constraints are soft in MuJoCo; they
  are made as hard as it allows: ``solimp="0.9999 0.9999 0.001 0.5 2"`` (the largest
  impedance) and ``solref`` critically damped with a time constant of twice the step (the
  shortest MuJoCo accepts; 2 ms at a 1 ms step), Newton solver with tolerance 1e-10. Its
  initial ``qpos`` are the relative body angles of vecnet's assembled initial pose.

Measurements.

(a) Cost of one right-hand side, K = 10, 20, 50 (``--large``: also 100, 200): the function
vecnet's integrator hands to ``solve_ivp`` (recorded from a 1 ms simulation), timed at the
consistent initial state and at a stage state (two explicit Euler steps of 2 ms from it:
off the constraint manifold, where a stage of a real step is; the right-hand side does not
project, the projection comes once a step, so the two cost the same), CPU time
(``time.process_time``) per call, averaged over repeated calls for about a second. With
numpy's and scipy's bundled OpenBLAS, the same timing is repeated with one BLAS thread
(set through OpenBLAS's own ``set_num_threads``): on a loaded machine OpenBLAS's threads,
which it starts for matrix products of about 100 x 100 and larger, can cost far more than
the product. Shown beside them: MuJoCo's ``mj_forward`` on the same ladder (what RK4
calls four times a step). The growth exponent p of vecnet's stage-state cost, t ~ K^p,
is fitted by least squares of log t against log K.

(b) End to end, K = 10 (``--e2e-sizes``), ``--time`` seconds of motion (default 1), 101
output times. The error of a run is the largest distance, over the output times and all 3K
bodies, of a body's mass centre from the reference's. The reference is vecnet at rtol
1e-12, atol 1e-14. vecnet runs at rtol 1e-5, 3e-6, 1e-6, ... 1e-10 (half decades;
atol = rtol / 10, which reaches a given error at less cost than rtol / 100 on this
ladder); MuJoCo at steps of 1, 0.5, 0.25, 0.125, 0.0625 ms. Times are CPU seconds: vecnet's whole
``simulate`` (assembly, its checks and the integration; the named outputs are derived
apart, afterwards), MuJoCo's ``mj_step`` calls (making the model, and the ``mj_forward``
at each output time that brings positions and energy up to the state reached, excluded),
for each tool the best of up to 3 runs while they take under a second. MuJoCo's smaller
steps are not run once a step took over 20 s and longer than every vecnet run (at large
K): each halving of the step doubles MuJoCo's time, so vecnet is faster at any accuracy
they would reach. The
tables match accuracies both ways: for each MuJoCo step, the cheapest vecnet run at
least as accurate (vn/MJ = its time over MuJoCo's), and for each vecnet tolerance, the
cheapest MuJoCo step at least as accurate. At the end of each run: the largest loop
closure residual (vecnet: max |Phi|; MuJoCo: distance between the two points of a
``connect``) and the energy drift |E(T) - E(0)| relative to the largest kinetic energy of
the motion.

Same physics. Before the end-to-end runs, at the initial state: MuJoCo's own mass matrix,
bias forces and constraint Jacobian (``mj_fullM``, ``qfrc_bias``, ``efc_J``) solved as a
hard-constrained system must give vecnet's accelerations (per MuJoCo joint: the body's
angular acceleration less its parent's) to 1e-9 of the largest (or, where the reduced
mass matrix of that solve has a condition number c above 1e6, as at K = 200, to 10 c
times the roundoff: the solve is good to no better), and the mass centres must agree
to 1e-12 m (checks); MuJoCo's own soft-constraint ``qacc`` is shown against them too. Then
a short trajectory (``--check-time``, default 0.1 s) of MuJoCo at a 10 us step against the
reference: their largest distance is printed (MuJoCo's soft constraints and its RK4 error
set how close they come).

Usage: ``python benchmarks/loops.py [--large] [--sizes 10,20,50] [--e2e-sizes 10]
[--time T] [--check-time T] [--budget S] [--blas-threads N] [--skip-rhs] [--skip-e2e]
[--linear-algebra auto|dense|sparse]``
(``--e2e-sizes 50`` is the size of the issue: about 8 minutes, most of it vecnet with
threaded OpenBLAS and MuJoCo at its smaller steps). MuJoCo (the
``mujoco`` package) is optional: without it only vecnet is measured. The script exits
with status 1 if a check fails (a simulation fails, the models disagree); how fast either
tool is, is reported, not checked.
"""

from __future__ import annotations

import argparse
import ctypes
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
import scipy.linalg
from _table import Checks, format_ratio, format_row, format_time, print_header

import vecnet as vn
from vecnet.numerics import multibody as vn_multibody

try:
    import mujoco
except ImportError:  # an optional benchmark dependency
    mujoco = None

GRAVITY = 9.81
HEIGHT = 0.5            # vertical distance between levels, m
TILT = 0.05             # JL1's angle at release, rad
INITIAL = {"JL1.angle": TILT}
SIZES = [10, 20, 50]
LARGE_SIZES = [100, 200]
E2E_SIZES = [10]
T_END = 1.0
SAMPLES = 101
REF_RTOL, REF_ATOL = 1e-12, 1e-14
VN_RTOLS = [1e-5, 3e-6, 1e-6, 3e-7, 1e-7, 3e-8, 1e-8, 3e-9, 1e-9, 3e-10, 1e-10]
VN_ATOL = 0.1           # atol = VN_ATOL * rtol
MJ_STEPS = [1e-3, 5e-4, 2.5e-4, 1.25e-4, 6.25e-5]
MJ_SOLREF = "0.002 1"    # the time constant is set to twice the step of each run
MJ_SOLIMP = "0.9999 0.9999 0.001 0.5 2"
CHECK_DT = 1e-5         # MuJoCo's step for the short trajectory against the reference
CHECK_TIME = 0.1
ACCEL_AGREE = 1e-9      # relative: vecnet's accelerations and MuJoCo's hard-constrained solve
POSE_AGREE = 1e-12      # m: mass centres at the initial state
SHORT = 1e-3            # seconds simulated to record vecnet's right-hand side
STAGE_STEP = 2e-3       # the Euler steps that make the stage state
RHS_BUDGET = 1.0        # CPU seconds of repeated calls per per-call timing
RHS_MAX_CALLS = 2000
TIME_BUDGET = 1.0       # seconds of repeated MuJoCo runs per timing
MAX_RUNS = 3
BUDGET = 600.0          # CPU seconds allowed to one vecnet simulation (--budget)
#: MuJoCo's smaller steps are not run once a step took longer than this and longer than
#: every vecnet run: they can only cost more
MJ_ENOUGH = 20.0
#: how vecnet solves the constrained equations (--linear-algebra)
SETTINGS = {"linear_algebra": "auto"}

RHS_COLUMNS = [("K", 4, ">"), ("nu", 4, ">"), ("rows", 4, ">"), ("vn setup", 9, ">"),
               ("vn rhs@y0", 9, ">"), ("vn rhs@stage", 12, ">"), ("1 thread@y0", 11, ">"),
               ("1 thread@stage", 14, ">"), ("MJ forward", 10, ">"), ("vn/MJ", 7, ">"),
               ("note", 0, "<")]
RUN_COLUMNS = [("tool", 6, "<"), ("setting", 16, "<"), ("CPU", 9, ">"), ("evals", 7, ">"),
               ("per eval", 9, ">"), ("error", 9, ">"), ("residual", 9, ">"),
               ("energy drift", 12, ">"), ("note", 0, "<")]
MATCH_COLUMNS = [("MuJoCo step", 11, "<"), ("MJ error", 9, ">"), ("MJ CPU", 9, ">"),
                 ("vecnet rtol", 11, "<"), ("vn error", 9, ">"), ("vn CPU", 9, ">"),
                 ("vn/MJ", 7, ">")]
MATCH_BACK_COLUMNS = [("vecnet rtol", 11, "<"), ("vn error", 9, ">"), ("vn CPU", 9, ">"),
                      ("MuJoCo step", 11, "<"), ("MJ error", 9, ">"), ("MJ CPU", 9, ">"),
                      ("vn/MJ", 7, ">")]


# -- the ladder ---------------------------------------------------------------------------
def width(k: int) -> float:
    """Width of level k (k = 0: the ground pins)."""
    return 0.8 if k % 2 == 0 else 0.6


def post_mass(k: int) -> float:
    return 1.0 + 0.25 * (k % 3)


def rung_mass(k: int) -> float:
    return 1.5 * width(k)


def level_nodes(k: int) -> tuple[np.ndarray, np.ndarray]:
    """The left and right nodes of level k in the symmetric pose (vecnet's x, y)."""
    w = width(k)
    return np.array([-w / 2, -HEIGHT * k]), np.array([w / 2, -HEIGHT * k])


def rods(K: int):
    """Every rod as ``(name, parent in MuJoCo's tree, joint, upper end, lower end, mass)``:
    the posts from the level above to their own, the rung from left to right."""
    out = []
    for k in range(1, K + 1):
        (a0, b0), (a1, b1) = level_nodes(k - 1), level_nodes(k)
        out.append((f"L{k}", f"L{k - 1}" if k > 1 else None, f"JL{k}", a0, a1, post_mass(k)))
        out.append((f"R{k}", f"R{k - 1}" if k > 1 else None, f"JR{k}", b0, b1, post_mass(k)))
        out.append((f"H{k}", f"L{k}", f"HL{k}", a1, b1, rung_mass(k)))
    return out


def body_names(K: int) -> list[str]:
    return [name for name, *_ in rods(K)]


def vecnet_ladder(K: int) -> vn.planar.Mechanism:
    """The ladder in vecnet, placed in its symmetric pose (every body at angle 0)."""
    mech = vn.planar.Mechanism(f"ladder{K}", gravity=(0.0, -GRAVITY))
    left, right = (mech.ground.point(*p) for p in level_nodes(0))
    for k in range(1, K + 1):
        (a0, b0), (a1, b1) = level_nodes(k - 1), level_nodes(k)
        ends = {}
        for side, top, bottom, above in (("L", a0, a1, left), ("R", b0, b1, right)):
            centre, length = (top + bottom) / 2, float(np.linalg.norm(bottom - top))
            m = post_mass(k)
            post = mech.body(f"{side}{k}", mass=m, inertia=m * length**2 / 12,
                             position=tuple(centre))
            mech.revolute(f"J{side}{k}", above, post.point(*(top - centre)))
            ends[side] = post.point(*(bottom - centre))
        centre, w, m = (a1 + b1) / 2, width(k), rung_mass(k)
        rung = mech.body(f"H{k}", mass=m, inertia=m * w**2 / 12, position=tuple(centre))
        mech.revolute(f"HL{k}", ends["L"], rung.point(*(a1 - centre)))
        mech.revolute(f"HR{k}", rung.point(*(b1 - centre)), ends["R"])
        left, right = ends["L"], ends["R"]
    return mech


def _num(x: float) -> str:
    return repr(float(x))


def mujoco_xml(K: int) -> str:
    """MJCF of the ladder: vecnet's (x, y) is MuJoCo's (x, z); hinges about -y turn
    counter-clockwise in that plane, as vecnet's angles do."""
    parts = ['<mujoco model="ladder">',
             f'<option timestep="0.001" integrator="RK4" gravity="0 0 {-GRAVITY}" '
             'solver="Newton" tolerance="1e-10">'
             '<flag contact="disable" energy="enable"/></option>', "<worldbody>"]
    frames: dict[str | None, np.ndarray] = {None: np.zeros(2)}

    def open_body(name, parent, joint, top, bottom, mass):
        length = float(np.linalg.norm(bottom - top))
        inertia = mass * length**2 / 12
        offset, centre = top - frames[parent], (top + bottom) / 2 - top
        frames[name] = top
        return (f'<body name="{name}" pos="{_num(offset[0])} 0 {_num(offset[1])}">'
                f'<inertial pos="{_num(centre[0])} 0 {_num(centre[1])}" mass="{_num(mass)}" '
                f'diaginertia="{_num(inertia)} {_num(inertia)} {_num(inertia)}"/>'
                f'<joint name="{joint}" type="hinge" axis="0 -1 0"/>')

    by_side: dict[str, list] = {"L": [], "R": []}
    for rod in rods(K):
        by_side.setdefault(rod[0][0], []).append(rod)
    for side in ("L", "R"):   # a post chain, each left post carrying its rung
        for name, parent, joint, top, bottom, mass in by_side[side]:
            parts.append(open_body(name, parent, joint, top, bottom, mass))
            if side == "L":
                k = int(name[1:])
                rung = next(r for r in by_side["H"] if r[0] == f"H{k}")
                parts.append(open_body(*rung) + "</body>")
        parts.append("</body>" * K)
    parts.append("</worldbody><equality>")
    for k in range(1, K + 1):
        parts.append(f'<connect name="HR{k}" body1="H{k}" body2="R{k}" '
                     f'anchor="{_num(width(k))} 0 0" solref="{MJ_SOLREF}" '
                     f'solimp="{MJ_SOLIMP}"/>')
    parts.append("</equality></mujoco>")
    return "".join(parts)


class MujocoLadder:
    """A MuJoCo model of the ladder, started from vecnet's initial body angles."""

    def __init__(self, K: int, angles: dict[str, float]) -> None:
        self.model = mujoco.MjModel.from_xml_string(mujoco_xml(K))
        self.bodies = np.array([self.model.body(name).id for name in body_names(K)])
        qpos = np.zeros(self.model.nq)
        for name, parent, joint, *_ in rods(K):
            qpos[self.model.joint(joint).qposadr[0]] = \
                angles[name] - (angles[parent] if parent else 0.0)
        self.qpos0 = qpos
        eq = self.model.eq_data
        self.connects = [(self.model.eq_obj1id[i], self.model.eq_obj2id[i], eq[i, :3].copy(),
                          eq[i, 3:6].copy()) for i in range(self.model.neq)]

    def start(self, dt: float = 0.001):
        """Fresh data at the initial state for steps of ``dt``: the connects' time constant
        twice the step, the stiffest MuJoCo allows (it raises shorter ones to that)."""
        self.model.opt.timestep = dt
        self.model.eq_solref[:, 0] = 2 * dt
        data = mujoco.MjData(self.model)
        data.qpos[:] = self.qpos0
        mujoco.mj_forward(self.model, data)
        return data

    def positions(self, data) -> np.ndarray:
        """Mass centres of the bodies (vecnet's order), in vecnet's x, y."""
        return data.xipos[self.bodies][:, [0, 2]].copy()

    def residual(self, data) -> float:
        """The largest distance between the two points of a ``connect``."""
        out = 0.0
        for b1, b2, p1, p2 in self.connects:
            d = (data.xpos[b1] + data.xmat[b1].reshape(3, 3) @ p1
                 - data.xpos[b2] - data.xmat[b2].reshape(3, 3) @ p2)
            out = max(out, float(np.linalg.norm(d)))
        return out

    def run(self, t_end: float, dt: float) -> dict[str, Any]:
        """CPU time of ``mj_step`` between the output times, the positions and energies at
        the output times (``mj_forward`` there, outside the clock) and the residual."""
        data = self.start(dt)
        spacing = t_end / (SAMPLES - 1)
        nstep = int(round(spacing / dt))
        if abs(nstep * dt - spacing) > 1e-9 * spacing:
            raise SystemExit(f"MuJoCo step {dt:g} s does not divide the output spacing "
                             f"{spacing:g} s; choose --time so that it does")
        positions = np.empty((SAMPLES, len(self.bodies), 2))
        energy = np.empty((SAMPLES, 2))
        positions[0] = self.positions(data)
        energy[0] = data.energy
        gc.collect()
        seconds = 0.0
        for i in range(1, SAMPLES):
            start = time.process_time()
            mujoco.mj_step(self.model, data, nstep)
            seconds += time.process_time() - start
            # after mj_step the derived quantities (xipos, energy) are those of a state
            # before the last step: work them out for the state reached, outside the clock
            mujoco.mj_forward(self.model, data)
            positions[i] = self.positions(data)
            energy[i] = data.energy
        return {"cpu": seconds, "positions": positions, "energy": energy.sum(axis=1),
                "kinetic": energy[:, 1], "residual": self.residual(data),
                "warnings": int(sum(w.number for w in data.warning)),
                "evals": 4 * nstep * (SAMPLES - 1)}


# -- BLAS threads -------------------------------------------------------------------------
def blas_controls() -> list[tuple[Callable[[], int], Callable[[int], None]]]:
    """``(get, set)`` thread-count functions of every OpenBLAS bundled with numpy and scipy
    (their wheels carry one each, in ``numpy.libs`` and ``scipy.libs``); empty for another
    BLAS."""
    controls = []
    for package in ("numpy", "scipy"):
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None:
            continue
        folder = Path(spec.origin).parent.parent / f"{package}.libs"
        for path in sorted(folder.glob("*openblas*")):
            try:
                lib = ctypes.CDLL(str(path))
            except OSError:
                continue
            for prefix in ("scipy_openblas", "openblas"):
                found = False
                for suffix in ("64_", "_64_", ""):
                    get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                    put = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                    if get is not None and put is not None:
                        controls.append((get, put))
                        found = True
                        break
                if found:
                    break
    return controls


def blas_threads(controls) -> list[int]:
    return [int(get()) for get, _ in controls]


def set_blas_threads(controls, counts) -> None:
    for (_, put), n in zip(controls, counts):
        put(int(n))


# -- vecnet ---------------------------------------------------------------------------------
def recorded_rhs(eom) -> tuple[Callable, np.ndarray]:
    """The right-hand side vecnet's integrator hands to ``solve_ivp`` and its initial state,
    recorded from a simulation of SHORT seconds."""
    seen: dict[str, Any] = {}
    original = vn_multibody.solve_ivp

    def recording(fun, t_span, y0, method, outcome, **options):
        seen.setdefault("fun", fun)
        seen.setdefault("y0", np.array(y0, dtype=float))
        return original(fun, t_span, y0, method, outcome, **options)

    vn_multibody.solve_ivp = recording
    try:
        eom.simulate(SHORT, t_eval=[0.0, SHORT], initial=INITIAL, **SETTINGS)
    finally:
        vn_multibody.solve_ivp = original
    if "fun" not in seen:
        raise SystemExit("vecnet's integrator did not call vecnet.numerics.multibody.solve_ivp: "
                         "update recorded_rhs() in this benchmark")
    return seen["fun"], seen["y0"]


def per_call(fn: Callable[[], Any]) -> float:
    """CPU seconds per call of ``fn``, repeated for about RHS_BUDGET seconds."""
    fn()
    gc.collect()
    calls, start = 0, time.process_time()
    while calls < RHS_MAX_CALLS and (calls < 3 or time.process_time() - start < RHS_BUDGET):
        fn()
        calls += 1
    return (time.process_time() - start) / calls


def measure_rhs(K: int, controls, check: Checks) -> dict[str, Any]:
    out: dict[str, Any] = {"K": K}
    start = time.process_time()
    mech = vecnet_ladder(K)
    eom = mech.formulate()
    model = eom.compile(**SETTINGS)
    fun, y0 = recorded_rhs(eom)
    out["setup"] = time.process_time() - start
    out["nu"], out["rows"] = model.nu, model.m
    y = y0.copy()
    for _ in range(2):
        y = y + STAGE_STEP * fun(0.0, y)
    ok = bool(np.all(np.isfinite(fun(0.0, y))))
    out["note"] = check.note(ok, model.solver, "RHS NOT FINITE AT THE STAGE STATE")
    out["y0"] = per_call(lambda: fun(0.0, y0))
    out["stage"] = per_call(lambda: fun(0.0, y))
    if controls:
        before = blas_threads(controls)
        if any(n > 1 for n in before):
            set_blas_threads(controls, [1] * len(controls))
            try:
                out["y0 1"] = per_call(lambda: fun(0.0, y0))
                out["stage 1"] = per_call(lambda: fun(0.0, y))
            finally:
                set_blas_threads(controls, before)
        else:
            out["y0 1"], out["stage 1"] = out["y0"], out["stage"]
    if mujoco is not None:
        ladder = MujocoLadder(K, vecnet_angles(eom, model))
        data = ladder.start()
        out["mj forward"] = per_call(lambda: mujoco.mj_forward(ladder.model, data))
    return out


def vecnet_angles(eom, model) -> dict[str, float]:
    """Body angles (rad) of vecnet's assembled initial pose."""
    q0 = eom.assemble(INITIAL)
    st = model.kinematics(q0, np.zeros(model.nu)).state
    return {name: float(st.theta[model.node[name]]) for name in eom.mechanism.bodies}


def simulate(eom, t_end: float, rtol: float, atol: float, budget: float):
    """vecnet's simulation, its CPU time, and the outputs used here (derived afterwards)."""
    times = np.linspace(0.0, t_end, SAMPLES)
    gc.collect()
    start = time.process_time()
    with vn.limits(max_seconds=budget, max_evaluations=10**8):
        res = eom.simulate(t_end, t_eval=times, rtol=rtol, atol=atol, initial=INITIAL,
                           raise_on_failure=False, **SETTINGS)
    seconds = time.process_time() - start
    out: dict[str, Any] = {"cpu": seconds, "success": bool(res.success) and len(res.t) == SAMPLES,
                           "message": getattr(res, "message", ""), "evals": int(res.nfev),
                           "linear algebra": getattr(res, "linear_algebra", "")}
    if not out["success"]:
        return out
    names = body_names(len(eom.mechanism.bodies) // 3)
    out["positions"] = np.stack([np.column_stack([res[f"{b}.x"], res[f"{b}.y"]])
                                 for b in names], axis=1)
    out["energy"] = np.asarray(res["energy"], dtype=float)
    out["kinetic"] = np.asarray(res["kinetic"], dtype=float)
    out["residual"] = float(np.asarray(res["constraint residual"])[-1])
    return out


def error(positions: np.ndarray, reference: np.ndarray) -> float:
    """Largest distance of a mass centre from the reference's over the output times."""
    d = np.linalg.norm(positions - reference, axis=2).max()
    return float(d) if np.isfinite(d) else math.inf


def drift(run: dict[str, Any]) -> float:
    """|E(T) - E(0)| over the largest kinetic energy of the run."""
    scale = float(np.max(run["kinetic"]))
    return abs(float(run["energy"][-1] - run["energy"][0])) / scale if scale > 0 else math.nan


# -- same physics -----------------------------------------------------------------------------
def relative_accelerations(K: int, alpha: dict[str, float]) -> dict[str, float]:
    """Per MuJoCo joint: its body's angular acceleration less its parent's."""
    return {joint: alpha[name] - (alpha[parent] if parent else 0.0)
            for name, parent, joint, *_ in rods(K)}


def agreement(K: int, eom, model, ladder: MujocoLadder, reference, check: Checks,
              check_time: float) -> None:
    """Print (and check) how closely the two models agree at the start and along a short
    trajectory."""
    q0 = eom.assemble(INITIAL)
    u0 = np.zeros(model.nu)
    rows = vn_multibody.independent_rows(model.constraints(0.0, q0)[1])
    a, _ = vn_multibody.solve_accelerations(model, 0.0, q0, u0, rows)
    kin = model.kinematics(q0, u0)
    alpha = {name: float(kin.Jw[model.row[model.node[name]], 2] @ a)
             for name in eom.mechanism.bodies}
    vn_rel = relative_accelerations(K, alpha)
    mjm = ladder.model
    data = ladder.start()
    order = [mjm.joint(j).name for j in range(mjm.njnt)]
    vn_qacc = np.array([vn_rel[name] for name in order])
    nv = mjm.nv
    M = np.zeros((nv, nv))
    mujoco.mj_fullM(mjm, data, M)
    J = np.zeros((data.nefc, nv))
    if mujoco.mj_isSparse(mjm):
        mujoco.mju_sparse2dense(J, data.efc_J, data.efc_J_rownnz, data.efc_J_rowadr,
                                data.efc_J_colind)
    else:
        J[:] = data.efc_J.reshape(data.nefc, nv)
    # hard constraints on MuJoCo's own model, at rest: M a - J^T f = -bias, J a = 0, solved
    # on the motions the loops allow (a = H z, J H = 0; a connect's third row, across the
    # plane, is zero), which stays well conditioned where the saddle-point system does not
    H = scipy.linalg.null_space(J[np.abs(J).sum(axis=1) > 0])
    reduced = H.T @ M @ H
    hard = H @ np.linalg.solve(reduced, -H.T @ data.qfrc_bias)
    d_hard = float(np.abs(hard - vn_qacc).max())
    # the reduced mass matrix of a long ladder is ill-conditioned: its solve is good to
    # about its condition number times the roundoff, and no better
    cond = float(np.linalg.cond(reduced))
    d_soft = float(np.abs(data.qacc - vn_qacc).max())
    # MuJoCo's soft solution differs from the hard one along the constraint forces' own
    # directions (M-orthogonal to the motions the loops allow): split the difference
    tangent = H @ np.linalg.solve(H.T @ M @ H, H.T @ M @ (data.qacc - vn_qacc))
    pose = float(np.abs(ladder.positions(data) - np.column_stack(
        [kin.r[[model.node[b] for b in body_names(K)], 0],
         kin.r[[model.node[b] for b in body_names(K)], 1]])).max())
    ok_hard = d_hard <= max(ACCEL_AGREE, 10 * np.finfo(float).eps * cond) \
        * max(1.0, float(np.abs(vn_qacc).max()))
    ok_pose = pose <= POSE_AGREE
    print(f"\nSame physics, K = {K}, at the initial state (largest |a| "
          f"{np.abs(vn_qacc).max():.3g} rad/s^2):")
    print(f"  mass centres, vecnet's assembly against MuJoCo's qpos: {pose:.1e} m "
          f"{check.note(ok_pose, 'ok', 'FAILED')}")
    print(f"  joint accelerations, MuJoCo's M, bias and J solved with hard constraints "
          f"(reduced mass matrix of condition number {cond:.1e}) against vecnet: "
          f"{d_hard:.1e} rad/s^2 {check.note(ok_hard, 'ok', 'FAILED')}")
    print(f"  MuJoCo's own qacc (soft constraints) against vecnet: {d_soft:.1e} rad/s^2, of "
          f"which {float(np.abs(tangent).max()):.1e} along the motions the loops allow")
    if reference is None:
        return
    T = min(check_time, reference["t_end"])
    spacing = reference["t_end"] / (SAMPLES - 1)
    count = int(round(T / spacing))
    data = ladder.start(CHECK_DT)
    nstep = int(round(spacing / CHECK_DT))
    worst = 0.0
    for i in range(1, count + 1):
        mujoco.mj_step(mjm, data, nstep)
        worst = max(worst, float(np.linalg.norm(
            ladder.positions(data) - reference["positions"][i], axis=1).max()))
    print(f"  trajectory over {count * spacing:g} s, MuJoCo RK4 at {CHECK_DT:g} s against "
          f"the reference: largest mass-centre distance {worst:.1e} m")


# -- the benchmark --------------------------------------------------------------------------
def print_versions(controls) -> None:
    import numba

    print(f"Python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"numba {numba.__version__}, vecnet {vn.__version__} "
          f"({Path(vn.__file__).parent}), mujoco "
          f"{mujoco.__version__ if mujoco else 'not installed'}")
    threads = blas_threads(controls)
    print(f"{platform.platform()}, {os.cpu_count()} CPUs; OpenBLAS threads "
          f"{', '.join(map(str, threads)) if threads else 'not controllable here'} "
          f"(numpy, scipy; OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')})")


def bench_rhs(sizes: list[int], controls, check: Checks) -> None:
    print_header("(a) One right-hand side of vecnet's integrator (CPU per call); vn/MJ = "
                 "vn rhs@stage / MJ forward", RHS_COLUMNS)
    rows = []
    for K in sizes:
        r = measure_rhs(K, controls, check)
        rows.append(r)
        ratio = r["stage"] / r["mj forward"] if "mj forward" in r else None
        cells = [str(K), str(r["nu"]), str(r["rows"]), format_time(r["setup"]),
                 format_time(r["y0"]), format_time(r["stage"]), format_time(r.get("y0 1")),
                 format_time(r.get("stage 1")), format_time(r.get("mj forward")),
                 format_ratio(ratio), r["note"]]
        print(format_row(cells, RHS_COLUMNS), flush=True)
    print("nu = joint speeds, rows = loop constraint rows; vn setup = build + formulate + "
          "compile + a 1 ms simulate; @y0 = at the consistent initial state, @stage = at a "
          "stage state off the manifold; 1 thread = the same with one OpenBLAS thread; note: "
          "how vecnet solved the constrained equations (sparse: body space, dense: joint "
          "space)")
    if len(rows) >= 2:
        ks = np.log([r["K"] for r in rows])
        threads = blas_threads(controls)
        fits = [(f"OpenBLAS threads as run ({', '.join(map(str, threads))})" if threads
                 else "as run", "stage")]
        if controls:
            fits.append(("one BLAS thread", "stage 1"))
        print("Growth of vecnet's cost per call at the stage state, t ~ K^p (least squares of "
              "log t against log K):")
        for label, key in fits:
            p = np.polyfit(ks, np.log([r[key] for r in rows]), 1)[0]
            local = [np.log(b[key] / a[key]) / np.log(b["K"] / a["K"])
                     for a, b in zip(rows, rows[1:])]
            print(f"  {label}: p = {p:.2f} (between neighbouring sizes: "
                  + ", ".join(f"{a['K']}->{b['K']}: {x:.2f}"
                              for a, b, x in zip(rows, rows[1:], local)) + ")")
        if "mj forward" in rows[0]:
            p = np.polyfit(ks, np.log([r["mj forward"] for r in rows]), 1)[0]
            print(f"  MuJoCo mj_forward: p = {p:.2f}")


def bench_e2e(K: int, t_end: float, budget: float, check_time: float, check: Checks) -> None:
    print(f"\n(b) End to end, K = {K}: {t_end:g} s of motion, {SAMPLES} output times")
    mech = vecnet_ladder(K)
    eom = mech.formulate()
    model = eom.compile(**SETTINGS)
    ref = simulate(eom, t_end, REF_RTOL, REF_ATOL, budget)
    if not ref["success"]:
        check.note(False, "", "")
        print(f"  REFERENCE SIMULATION FAILED (rtol {REF_RTOL:g}): {ref['message']}")
        return
    ref["t_end"] = t_end
    print(f"  reference: vecnet rtol {REF_RTOL:g}, atol {REF_ATOL:g} "
          f"({ref['linear algebra']} linear algebra): CPU "
          f"{format_time(ref['cpu'])}, {ref['evals']} evaluations, residual at the end "
          f"{ref['residual']:.1e}, energy drift {drift(ref):.1e}; largest sway of a mass "
          f"centre {np.linalg.norm(ref['positions'] - ref['positions'][0], axis=2).max():.3g} m")
    ladder = None
    if mujoco is not None:
        ladder = MujocoLadder(K, vecnet_angles(eom, model))
        agreement(K, eom, model, ladder, ref, check, check_time)

    print_header("Runs (CPU = vecnet simulate / MuJoCo mj_step loop; error = largest "
                 "mass-centre distance from the reference; residual and energy drift at the "
                 "end)", RUN_COLUMNS)
    vn_runs, mj_runs = [], []
    for rtol in VN_RTOLS:
        run = best_of(lambda: simulate(eom, t_end, rtol, VN_ATOL * rtol, budget))
        run["rtol"] = rtol
        note = check.note(run["success"], run["linear algebra"], f"FAILED: {run['message']}")
        if run["success"]:
            run["error"] = error(run["positions"], ref["positions"])
            vn_runs.append(run)
        cells = ["vecnet", f"rtol {rtol:g}", format_time(run["cpu"]), str(run["evals"]),
                 format_time(run["cpu"] / max(run["evals"], 1)),
                 f"{run['error']:.1e}" if "error" in run else "",
                 f"{run['residual']:.1e}" if "residual" in run else "",
                 f"{drift(run):.1e}" if "energy" in run else "", note]
        print(format_row(cells, RUN_COLUMNS), flush=True)
    if ladder is not None:
        slowest = max((v["cpu"] for v in vn_runs), default=math.inf)
        for dt in MJ_STEPS:
            if mj_runs and mj_runs[-1]["cpu"] > max(MJ_ENOUGH, slowest):
                # each smaller step costs MuJoCo more than the last; vecnet's runs, every
                # one of them cheaper already, are faster at every accuracy it would reach
                print(f"MuJoCo  dt {dt * 1e3:g} ms and below: not run (the last took "
                      f"{format_time(mj_runs[-1]['cpu'])}, more than {MJ_ENOUGH:g} s and "
                      "more than any vecnet run)")
                break
            run = best_of(lambda: ladder.run(t_end, dt))
            run["dt"] = dt
            run["error"] = error(run["positions"], ref["positions"])
            mj_runs.append(run)
            note = f"warned {run['warnings']} time(s) (unstable)" if run["warnings"] else ""
            cells = ["MuJoCo", f"dt {dt * 1e3:g} ms", format_time(run["cpu"]),
                     str(run["evals"]), format_time(run["cpu"] / run["evals"]),
                     f"{run['error']:.1e}", f"{run['residual']:.1e}", f"{drift(run):.1e}",
                     note]
            print(format_row(cells, RUN_COLUMNS), flush=True)
    print("evals = right-hand sides (MuJoCo: 4 forward evaluations per RK4 step)")
    if not mj_runs or not vn_runs:
        return

    print_header("Matched accuracy: for each MuJoCo step, the cheapest vecnet run at least "
                 "as accurate", MATCH_COLUMNS)
    matched(mj_runs, mj_setting, vn_runs, vn_setting, MATCH_COLUMNS, vecnet_first=False)
    print_header("Matched accuracy: for each vecnet tolerance, the cheapest MuJoCo step at "
                 "least as accurate", MATCH_BACK_COLUMNS)
    matched(vn_runs, vn_setting, mj_runs, mj_setting, MATCH_BACK_COLUMNS, vecnet_first=True)


def mj_setting(run: dict[str, Any]) -> str:
    return f"{run['dt'] * 1e3:g} ms"


def vn_setting(run: dict[str, Any]) -> str:
    return f"{run['rtol']:g}"


def best_of(run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The cheapest of up to MAX_RUNS runs of ``run``, repeated while together they take
    under TIME_BUDGET; a failed run (``success`` false) ends the repeats and is returned."""
    runs = [run()]
    while runs[-1].get("success", True) and len(runs) < MAX_RUNS \
            and sum(r["cpu"] for r in runs) < TIME_BUDGET:
        runs.append(run())
    return min(runs, key=lambda r: r["cpu"]) if runs[-1].get("success", True) else runs[-1]


def matched(rows: list, setting, others: list, other_setting, columns,
            vecnet_first: bool) -> None:
    """For each run of ``rows``, the cheapest run of ``others`` at least as accurate, and
    the ratio of vecnet's time to MuJoCo's."""
    for row in rows:
        fit = [o for o in others if o["error"] <= row["error"]]
        other = min(fit, key=lambda r: r["cpu"]) if fit else None
        vn, mj = (row, other) if vecnet_first else (other, row)
        cells = [setting(row), f"{row['error']:.1e}", format_time(row["cpu"]),
                 other_setting(other) if other else "none as accurate",
                 f"{other['error']:.1e}" if other else "",
                 format_time(other["cpu"]) if other else "",
                 format_ratio(vn["cpu"] / mj["cpu"]) if other else ""]
        print(format_row(cells, columns))


def parse_sizes(text: str, name: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"--{name}: a comma-separated list of integers; got {text!r}") from None
    if not values or any(k < 1 for k in values):
        raise SystemExit(f"--{name}: sizes of at least 1; got {text!r}")
    return values


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=None,
                        help=f"K for the per-call cost (default {','.join(map(str, SIZES))})")
    parser.add_argument("--large", action="store_true",
                        help=f"add K = {', '.join(map(str, LARGE_SIZES))} to the per-call cost")
    parser.add_argument("--e2e-sizes", default=",".join(map(str, E2E_SIZES)),
                        help="K for the end-to-end runs (default 10; vecnet takes minutes "
                        "from K = 50)")
    parser.add_argument("--time", type=float, default=T_END,
                        help=f"seconds of motion end to end (default {T_END:g}; a multiple "
                        "of 0.00625 s so that every MuJoCo step divides the output spacing)")
    parser.add_argument("--check-time", type=float, default=CHECK_TIME,
                        help="seconds of the MuJoCo trajectory at a 10 us step compared with "
                        f"the reference (default {CHECK_TIME:g})")
    parser.add_argument("--budget", type=float, default=BUDGET,
                        help=f"CPU seconds allowed to one vecnet simulation (default {BUDGET:g})")
    parser.add_argument("--blas-threads", type=int, default=None,
                        help="OpenBLAS threads for the whole run (default: as numpy and scipy "
                        "start them, one per CPU unless OPENBLAS_NUM_THREADS says otherwise)")
    parser.add_argument("--skip-rhs", action="store_true", help="skip (a), the per-call cost")
    parser.add_argument("--skip-e2e", action="store_true", help="skip (b), end to end")
    parser.add_argument("--linear-algebra", choices=("auto", "dense", "sparse"), default="auto",
                        help="how vecnet solves the constrained equations (default auto: in "
                        "body space for the ladder; dense: in joint space)")
    args = parser.parse_args()
    SETTINGS["linear_algebra"] = args.linear_algebra
    sizes = parse_sizes(args.sizes, "sizes") if args.sizes else list(SIZES)
    if args.large:
        sizes += [k for k in LARGE_SIZES if k not in sizes]
    if args.time <= 0:
        parser.error("--time: a positive number of seconds")
    if mujoco is not None:  # warnings are counted per run (data.warning), not printed
        mujoco.set_mju_user_warning(lambda message: None)
    start = time.perf_counter()
    check = Checks()
    controls = blas_controls()
    if args.blas_threads is not None:
        if args.blas_threads < 1:
            parser.error("--blas-threads: at least 1")
        if not controls:
            parser.error("--blas-threads: no OpenBLAS of numpy or scipy found to set; use "
                         "the environment variable of your BLAS instead")
        set_blas_threads(controls, [args.blas_threads] * len(controls))
    print_versions(controls)
    if not args.skip_rhs:
        bench_rhs(sorted(sizes), controls, check)
    if not args.skip_e2e:
        for K in parse_sizes(args.e2e_sizes, "e2e-sizes"):
            bench_e2e(K, args.time, args.budget, args.check_time, check)
    if mujoco is None:
        print("note: mujoco is not installed (pip install mujoco, or the 'bench' extra): "
              "MuJoCo columns skipped")
    print(f"\ntotal run time {time.perf_counter() - start:.1f} s; "
          f"{check.failures or 'no'} failed check(s)")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
