"""Benchmark vecnet's lumped formulation against lcapy, and a large nonlinear simulation.

Part 1, RLC ladders of N = 5, 10, 20, 40 sections: a voltage source V1 drives
N sections; section k is a series resistor R_k and series inductor L_k
followed by a shunt capacitor C_k to ground, with exact values that vary by
section: R_k = 1 + k mod 3, L_k = 1/(1 + k mod 2), C_k = 1/(2 + k mod 3).
Nodes are n0 (source), m_k (between R_k and L_k) and n_k; in vecnet the series
edges point upstream (R_k: m_k -> n_{k-1}, L_k: n_k -> m_k) and the capacitors
from ground to n_k, so by the passive sign convention (through variables pass
from head to tail) the inductor currents flow downstream. The transfer
function H(s) from the source voltage to the voltage of the last
capacitor is computed

* by vecnet: ``net.state_space(outputs=["C<N>.across"])``, then
  ``ss.subs().transfer_function()`` (parameters given as Python floats, the way
  a user writes them; ``subs()`` makes them exact rationals), timed separately
  and together with building the Network;
* by lcapy, from a netlist string, along two routes: ``cct.transfer(...)``
  (lcapy's voltage-transfer-function API) and ``cct.C<N>.V(s) / cct.V1.V(s)``
  with V1 an s-domain source (plain modified nodal analysis). Each lcapy run
  happens in a forked child process that is stopped after 120 s; a route that
  ran out of time is not tried on larger ladders. The time ratio lcapy/vecnet
  uses lcapy's faster route.

Checks: the three transfer functions are equal exactly (numerator and
denominator coefficients after making the denominator monic), and H(s) has the
textbook form of an unloaded LC ladder: denominator degree 2N, a constant
numerator equal to 1/prod(L_k C_k), and H(0) = 1.

Part 1b, the same ladders with every parameter a sympy symbol (vecnet only):
``net.state_space()`` and the A, B matrices; the state equations are checked
against the hand-written ones, L_k di_k/dt = v_{k-1} - v_k - R_k i_k and
C_k dv_k/dt = i_k - i_{k+1}.

Part 2, a 1,000-element nonlinear network: a ladder of 333 sections (one source
plus R, L, C per section) whose resistors are ``vn.NonlinearDissipator`` with
v = R_k i + i^3/10, driven by V1 = sin(2 pi t), simulated for one second with
LSODA (rtol 1e-8, atol 1e-10). Its values are those of part 1 scaled to a
low-loss line (R_k x 3/100, L_k and C_k x 3/1000), so that the wave travels the
whole ladder (about 1.5 ms per section) within the simulated second. Timed:
building the Network; the sparse numeric formulation (``sparse_state_space()``,
the laws grouped and evaluated with numpy) and its simulation; the exact
symbolic one (``state_space()``, ``ss.simulate((0, 1))``); baseline: the same
equations written by hand as a vectorised numpy right-hand side, integrated by
``scipy.integrate.solve_ivp`` with the same method and tolerances. Checks:
success, finite values, and agreement of both paths with the hand-written
model.

Wall times use ``time.perf_counter`` with sympy's cache cleared before every
run (cold cache); fast steps are the best of up to 3 runs within 1 s.

Usage: ``python benchmarks/lumped.py [--quick]`` (``--quick``: ladders of 5 and
10 sections, a 100-element nonlinear network). The script exits with status 1
if any check fails; the speed target (vecnet at least 10x faster than lcapy at
20 sections) is reported but is not a check.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import scipy
import sympy
from _table import Checks, format_ratio, format_row, format_time, print_header
from scipy.integrate import solve_ivp
from sympy.core.cache import clear_cache

import vecnet as vn

FULL = {"ladders": [5, 10, 20, 40], "symbolic": [5, 10, 20, 40], "nonlinear": 333}
QUICK = {"ladders": [5, 10], "symbolic": [5, 10], "nonlinear": 33}
LCAPY_BUDGET = 120.0  # seconds per lcapy run, in a child process
TIME_BUDGET = 1.0     # seconds of repeated runs per timing
MAX_RUNS = 3
TARGET_SECTIONS, TARGET_RATIO = 20, 10.0
KAPPA = sympy.Rational(1, 10)  # cubic coefficient of the nonlinear resistors
RTOL, ATOL = 1e-8, 1e-10
SIM_SAMPLES = 201

LADDER_COLUMNS = [("sections", 8, ">"), ("states", 6, ">"), ("vn state_space", 14, ">"),
                  ("vn H(s)", 9, ">"), ("vn together", 11, ">"), ("lcapy transfer", 14, ">"),
                  ("lcapy V/V", 10, ">"), ("lcapy/vn", 9, ">"), ("check / note", 0, "<")]
SYMBOLIC_COLUMNS = [("sections", 8, ">"), ("states", 6, ">"), ("parameters", 10, ">"),
                    ("state_space", 11, ">"), ("A, B", 9, ">"), ("nonzeros in A", 13, ">"),
                    ("check / note", 0, "<")]
SIM_COLUMNS = [("quantity", 30, "<"), ("elements", 8, ">"), ("states", 6, ">"),
               ("vecnet", 9, ">"), ("hand numpy", 10, ">"), ("hand/vn", 8, ">"),
               ("check / note", 0, "<")]


# -- values and models ------------------------------------------------------------------
def section_values(k: int) -> tuple[Fraction, Fraction, Fraction]:
    """Exact R_k, L_k, C_k of section k (1-based)."""
    return Fraction(1 + k % 3), Fraction(1, 1 + k % 2), Fraction(1, 2 + k % 3)


def ladder_network(n: int, symbolic: bool = False) -> vn.Network:
    """The n-section RLC ladder as a vecnet Network; parameters are floats, or symbols R_k,
    L_k, C_k when ``symbolic``. The source voltage is the symbol V."""
    net = vn.Network(f"ladder{n}")
    net.add(vn.VoltageSource("V1", "0", "n0", V=vn.Symbol("V")))
    for k in range(1, n + 1):
        if symbolic:
            r, ind, cap = vn.Symbol(f"R{k}"), vn.Symbol(f"L{k}"), vn.Symbol(f"C{k}")
        else:
            r, ind, cap = (float(v) for v in section_values(k))
        net.add(vn.Resistor(f"R{k}", f"m{k}", f"n{k - 1}", R=r),
                vn.Inductor(f"L{k}", f"n{k}", f"m{k}", L=ind),
                vn.Capacitor(f"C{k}", "0", f"n{k}", C=cap))
    return net


def ladder_netlist(n: int, source: str = "") -> str:
    """The same ladder as an lcapy netlist; ``source`` is the value field of V1."""
    lines = [f"V1 n0 0 {source}".rstrip()]
    for k in range(1, n + 1):
        r, ind, cap = section_values(k)
        lines += [f"R{k} n{k - 1} m{k} {r}", f"L{k} m{k} n{k} {ind}", f"C{k} n{k} 0 {cap}"]
    return "\n".join(lines)


def nonlinear_values(k: int) -> tuple[Fraction, Fraction, Fraction]:
    """Exact R_k, L_k, C_k of section k of the nonlinear ladder: a low-loss line whose
    signal reaches the far end within the simulated second."""
    r, ind, cap = section_values(k)
    return r * Fraction(3, 100), ind * Fraction(3, 1000), cap * Fraction(3, 1000)


def nonlinear_network(n: int) -> vn.Network:
    """n sections with cubic resistors v = R_k i + KAPPA i^3, driven by sin(2 pi t)."""
    net = vn.Network(f"nonlinear{n}")
    net.add(vn.VoltageSource("V1", "0", "n0", V=sympy.sin(2 * sympy.pi * vn.t)))
    for k in range(1, n + 1):
        r, ind, cap = nonlinear_values(k)
        r = sympy.Rational(r.numerator, r.denominator)
        net.add(vn.NonlinearDissipator(f"R{k}", f"m{k}", f"n{k - 1}",
                                       across=lambda i, r=r: r * i + KAPPA * i**3),
                vn.Inductor(f"L{k}", f"n{k}", f"m{k}", L=float(ind)),
                vn.Capacitor(f"C{k}", "0", f"n{k}", C=float(cap)))
    return net


# -- measuring --------------------------------------------------------------------------
def timed(fn: Callable[[Any], Any], make_input: Callable[[], Any] = lambda: None,
          repeat: bool = True) -> tuple[float, Any]:
    """Best wall time of ``fn(make_input())`` with a cold sympy cache, and the last result.
    Repeats while the runs so far took less than TIME_BUDGET (at most MAX_RUNS)."""
    times: list[float] = []
    result = None
    while not times or (repeat and len(times) < MAX_RUNS and sum(times) < TIME_BUDGET):
        arg = make_input()
        clear_cache()
        gc.collect()
        start = time.perf_counter()
        result = fn(arg)
        times.append(time.perf_counter() - start)
    return min(times), result


def normalised(num: list, den: list) -> tuple[tuple, tuple]:
    """Coefficients (highest power first) divided by the leading denominator coefficient."""
    lead = sympy.Rational(den[0])
    return (tuple(sympy.Rational(c) / lead for c in num),
            tuple(sympy.Rational(c) / lead for c in den))


def coefficients(expr: sympy.Expr) -> tuple[list[str], list[str]]:
    """Numerator and denominator coefficients of a rational function of one symbol."""
    num, den = sympy.fraction(sympy.cancel(sympy.together(expr)))
    symbols = expr.free_symbols
    if len(symbols) != 1:
        raise ValueError(f"expected a rational function of s, got {expr}")
    (var,) = symbols
    return ([str(c) for c in sympy.Poly(num, var).all_coeffs()],
            [str(c) for c in sympy.Poly(den, var).all_coeffs()])


# -- lcapy, in a child process ------------------------------------------------------------
LCAPY_ROUTES = ("transfer", "V/V")


def lcapy_run(n: int, route: str) -> sympy.Expr:
    import lcapy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Removing voltage source V1 across input nodes"
        if route == "transfer":
            cct = lcapy.Circuit(ladder_netlist(n))
            return cct.transfer("n0", 0, f"n{n}", 0)
        cct = lcapy.Circuit(ladder_netlist(n, "s 1"))
        return cct[f"C{n}"].V(lcapy.s) / cct.V1.V(lcapy.s)


def lcapy_child(n: int, route: str, conn) -> None:
    try:
        seconds, h = timed(lambda _: lcapy_run(n, route))
        conn.send(("ok", seconds, coefficients(h.sympy)))
    except Exception as exc:  # reported by the parent as a failed check
        conn.send(("error", f"{type(exc).__name__}: {exc}", None))
    finally:
        conn.close()


def lcapy_measure(n: int, route: str) -> tuple[str, float | str, Any]:
    """("ok", seconds, coefficients) | ("timeout", LCAPY_BUDGET, None) | ("error", msg, None).
    lcapy is imported before the fork, so the budget covers only building and solving."""
    import lcapy  # noqa: F401

    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=lcapy_child, args=(n, route, send), daemon=True)
    child.start()
    send.close()
    outcome: tuple = ("timeout", LCAPY_BUDGET, None)
    # a first run within the budget is repeated only while the runs add up to TIME_BUDGET
    if receive.poll(LCAPY_BUDGET + 2 * TIME_BUDGET):
        try:
            outcome = receive.recv()
        except EOFError:
            outcome = ("error", "the lcapy child process ended without an answer", None)
    if child.is_alive():
        child.terminate()
    child.join()
    receive.close()
    return outcome


# -- output -------------------------------------------------------------------------------
def print_versions() -> None:
    import lcapy

    print(f"Python {sys.version.split()[0]} ({platform.python_implementation()}), "
          f"sympy {sympy.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"lcapy {lcapy.__version__}, vecnet {vn.__version__}")
    print(f"{platform.platform()}, {os.cpu_count()} CPUs")
    print("time: perf_counter, sympy cache cleared before each run, best of up to "
          f"{MAX_RUNS} runs within {TIME_BUDGET:.0f} s; lcapy runs in a child process, "
          f"stopped after {LCAPY_BUDGET:.0f} s")


# -- part 1: numeric ladders ------------------------------------------------------------
def ladder_form_ok(n: int, num: tuple, den: tuple) -> bool:
    """An unloaded LC ladder: monic denominator of degree 2N, constant numerator
    1/prod(L_k C_k), and unit gain at s = 0."""
    product = Fraction(1)
    for k in range(1, n + 1):
        _, ind, cap = section_values(k)
        product *= ind * cap
    product = sympy.Rational(product.numerator, product.denominator)
    return (len(den) == 2 * n + 1 and len(num) == 1 and num[0] == 1 / product
            and num[0] == den[-1])


def vecnet_ladder(n: int) -> tuple[sympy.Expr, bool, dict[str, float], int]:
    """vecnet's H(s) for the n-section ladder, whether the separate and the together runs
    gave the same H(s), the step times and the number of states."""
    out = [f"C{n}.across"]
    net = ladder_network(n)
    t_ss, ss = timed(lambda _: net.state_space(outputs=out))
    t_tf, h = timed(lambda _: ss.subs().transfer_function())

    def together(_):
        return ladder_network(n).state_space(outputs=out).subs().transfer_function()

    t_all, h_all = timed(together)
    times = {"state_space": t_ss, "H": t_tf, "together": t_all}
    return h[0, 0], h[0, 0] == h_all[0, 0], times, len(ss.x)


def bench_ladders(sizes: list[int], checks: Checks) -> dict[int, float]:
    """Part 1 rows; returns lcapy/vecnet time ratios by ladder size."""
    print_header("Part 1: RLC ladder, H(s) = V(C_N) / V(V1), exact rational coefficients",
                 LADDER_COLUMNS)
    ratios: dict[int, float] = {}
    gave_up: set[str] = set()
    for n in sizes:
        h, repeatable, times, states = vecnet_ladder(n)
        ours = normalised(*coefficients(h))
        notes = [checks.note(ladder_form_ok(n, *ours), "ladder form ok",
                             "H(s) NOT OF LADDER FORM")]
        if not repeatable:
            notes.append(checks.note(False, "", "VECNET RUNS GAVE DIFFERENT H(s)"))
        lcapy_cells, lcapy_times = [], []
        for route in LCAPY_ROUTES:
            if route in gave_up:
                lcapy_cells.append(f"> {LCAPY_BUDGET:.0f} s")
                continue
            status, value, coeffs = lcapy_measure(n, route)
            if status == "ok":
                lcapy_cells.append(format_time(value))
                lcapy_times.append(value)
                same = normalised(*coeffs) == ours
                notes.append(checks.note(same, f"{route}: same H", f"{route}: H DIFFERS"))
            elif status == "timeout":
                gave_up.add(route)
                lcapy_cells.append(f"> {LCAPY_BUDGET:.0f} s")
                notes.append(f"lcapy {route} > {LCAPY_BUDGET:.0f} s, stopped")
            else:
                lcapy_cells.append("error")
                notes.append(checks.note(False, "", f"lcapy {route} FAILED: {value}"))
        if lcapy_times:
            ratios[n] = min(lcapy_times) / times["together"]
            ratio = format_ratio(ratios[n])
        elif all(c.startswith(">") for c in lcapy_cells):
            ratios[n] = LCAPY_BUDGET / times["together"]
            ratio = f"> {ratios[n]:.0f}x"
        else:
            ratio = ""
        cells = [str(n), str(states), format_time(times["state_space"]), format_time(times["H"]),
                 format_time(times["together"]), *lcapy_cells, ratio, "; ".join(notes)]
        print(format_row(cells, LADDER_COLUMNS), flush=True)
    print("vn together = build Network + state_space + subs().transfer_function(); lcapy times "
          "include parsing the netlist; lcapy/vn uses lcapy's faster route")
    return ratios


# -- part 1b: symbolic ladders ----------------------------------------------------------
def hand_state_equations(n: int, ss) -> dict[str, sympy.Expr]:
    """The ladder's state equations written by hand, keyed by vecnet's state names."""
    x = dict(zip(ss.states, ss.x))
    v_in = ss.u[0]
    sym = vn.Symbol

    def volt(k):
        return v_in if k == 0 else x[f"C{k}.across"]

    def cur(k):
        return 0 if k > n else x[f"L{k}.through"]

    rates = {}
    for k in range(1, n + 1):
        rates[f"L{k}.through"] = (volt(k - 1) - volt(k) - sym(f"R{k}") * cur(k)) / sym(f"L{k}")
        rates[f"C{k}.across"] = (cur(k) - cur(k + 1)) / sym(f"C{k}")
    return rates


def bench_symbolic(sizes: list[int], checks: Checks) -> None:
    print_header("Part 1b: symbolic RLC ladder (every R_k, L_k, C_k a symbol), vecnet only",
                 SYMBOLIC_COLUMNS)
    for n in sizes:
        net = ladder_network(n, symbolic=True)
        t_ss, ss = timed(lambda _: net.state_space())
        t_ab, (a, _) = timed(lambda _: (ss.A, ss.B))
        hand = hand_state_equations(n, ss)
        same = set(hand) == set(ss.states) and all(
            sympy.expand(fi - hand[name]) == 0 for name, fi in zip(ss.states, ss.f))
        note = checks.note(same, "= hand-written state equations",
                           "STATE EQUATIONS DIFFER FROM HAND-WRITTEN ONES")
        nonzeros = sum(1 for entry in a if entry != 0)
        parameters = len(a.free_symbols | ss.B.free_symbols)
        cells = [str(n), str(len(ss.x)), str(parameters), format_time(t_ss), format_time(t_ab),
                 str(nonzeros), note]
        print(format_row(cells, SYMBOLIC_COLUMNS), flush=True)


# -- part 2: nonlinear simulation -------------------------------------------------------
def hand_simulation(n: int, times: np.ndarray):
    """The nonlinear ladder as a vectorised numpy right-hand side: states i_1..i_n (inductor
    currents), then v_1..v_n (capacitor voltages)."""
    values = [nonlinear_values(k) for k in range(1, n + 1)]
    r = np.array([float(v[0]) for v in values])
    ind = np.array([float(v[1]) for v in values])
    cap = np.array([float(v[2]) for v in values])
    kappa = float(KAPPA)

    def rhs(time, y):
        i, v = y[:n], y[n:]
        upstream = np.concatenate(([np.sin(2 * np.pi * time)], v[:-1]))
        downstream = np.concatenate((i[1:], [0.0]))
        di = (upstream - v - r * i - kappa * i**3) / ind
        dv = (i - downstream) / cap
        return np.concatenate((di, dv))

    return solve_ivp(rhs, (0.0, 1.0), np.zeros(2 * n), method="LSODA", t_eval=times,
                     rtol=RTOL, atol=ATOL)


def bench_nonlinear(n: int, checks: Checks) -> None:
    elements = 3 * n + 1
    print_header(f"Part 2: nonlinear ladder, {n} sections (cubic resistors), V1 = sin(2 pi t), "
                 f"t in [0, 1] s, LSODA rtol {RTOL:g} atol {ATOL:g}", SIM_COLUMNS)
    times = np.linspace(0.0, 1.0, SIM_SAMPLES)
    options = dict(t_eval=times, rtol=RTOL, atol=ATOL, method="LSODA")
    t_build, net = timed(lambda _: nonlinear_network(n))
    t_hand, ref = timed(lambda _: hand_simulation(n, times), repeat=False)
    states = 2 * n

    def row(quantity, seconds, note="", baseline=None):
        cells = [quantity, f"{elements:,}", str(states),
                 "failed" if seconds is None else format_time(seconds),
                 "" if baseline is None else format_time(baseline),
                 "" if baseline is None or seconds is None else format_ratio(baseline / seconds),
                 note]
        print(format_row(cells, SIM_COLUMNS), flush=True)

    def agreement(res):
        ours = np.vstack([res[f"L{k}.through"] for k in range(1, n + 1)]
                         + [res[f"C{k}.across"] for k in range(1, n + 1)])
        if not (ref.success and ref.y.shape == ours.shape):
            return checks.note(False, "", f"hand-written model failed: {ref.message}")
        error = float(np.max(np.abs(ours - ref.y)))
        scale = float(np.max(np.abs(ref.y)))
        return checks.note(res.success and bool(np.all(np.isfinite(ours)))
                           and error <= 1e-5 * max(scale, 1.0),
                           f"max |vecnet - hand| = {error:.1e} (max |x| = {scale:.2f})",
                           f"DIFFERS FROM HAND MODEL by {error:.1e} (max |x| = {scale:.2f})")

    def simulated(model):
        try:
            return timed(lambda _: model.simulate((0, 1), **options), repeat=False)
        except vn.VecnetError as exc:  # the integrator gave up
            print(f"  failed: {type(exc).__name__}: {exc}")
            return None, None

    row("build Network", t_build)
    t_num, sparse = timed(lambda _: net.sparse_state_space(), repeat=False)
    row("sparse_state_space()", t_num, checks.note(
        len(sparse.states) == states and sparse.nonlinear is not None and sparse.nonlinear.explicit,
        f"{len(sparse.states)} states, {len(sparse.nonlinear.names)} nonlinear laws (explicit)",
        "UNEXPECTED MODEL"))
    t_sim, res = simulated(sparse)
    row("  simulate((0, 1))", t_sim, "" if res is None else agreement(res), t_hand)
    if t_sim is not None:
        row("  numeric total", t_build + t_num + t_sim, "", t_hand)
    t_ss, ss = timed(lambda _: net.state_space(), repeat=False)
    row("state_space() (symbolic)", t_ss, checks.note(
        len(ss.x) == states and not ss.z and not ss.is_linear,
        f"nonlinear, {len(ss.x)} states, 0 algebraic", "UNEXPECTED MODEL"))
    t_sim, res = simulated(ss)
    row("  simulate((0, 1))", t_sim, "" if res is None else agreement(res), t_hand)
    if t_sim is not None:
        row("  symbolic total", t_build + t_ss + t_sim, "", t_hand)
    print("hand numpy = the same ODEs written by hand, solve_ivp with the same settings")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, under half a minute")
    sizes = QUICK if parser.parse_args().quick else FULL
    start = time.perf_counter()
    checks = Checks()
    print_versions()
    ratios = bench_ladders(sizes["ladders"], checks)
    if TARGET_SECTIONS in ratios:
        ratio = ratios[TARGET_SECTIONS]
        verdict = "MET" if ratio >= TARGET_RATIO else "NOT MET"
        print(f"target: vecnet >= {TARGET_RATIO:.0f}x faster than lcapy at {TARGET_SECTIONS} "
              f"sections: {verdict} ({ratio:.1f}x)")
    else:
        print(f"target: vecnet >= {TARGET_RATIO:.0f}x faster than lcapy at {TARGET_SECTIONS} "
              "sections: not measured in this run")
    bench_symbolic(sizes["symbolic"], checks)
    bench_nonlinear(sizes["nonlinear"], checks)
    print(f"\ntotal run time {time.perf_counter() - start:.1f} s; "
          f"{checks.failures or 'no'} failed check(s)")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
