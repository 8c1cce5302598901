"""Benchmark vecnet's numeric formulation on large linear networks.

Two networks, each at about 10^3, 10^4 and 10^5 elements:

* an RLC ladder: a voltage source V (1 V from t = 0) drives sections of a series
  resistor R_k = 0.1 ohm, a series inductor L_k = 1 mH and a shunt capacitor C_k = 1 mF;
* a 2-D RC grid, the thermal network of a chip: a square of nodes, each with a thermal
  capacitance of 1 mJ/K to ambient and a thermal resistance of 1 K/W to each neighbour;
  the nodes of the left edge are held at the ambient temperature (0) through 1 K/W each,
  and 1 W of heat flows into the middle node from t = 0.

Each is simulated with BDF (rtol 1e-6, atol 1e-9, 101 output times), the ladder over
50 ms (eight periods of one section's LC resonance), the grid over 1 s, by

* vecnet: building the ``Network`` element by element, ``net.sparse_state_space()`` and
  ``ss.simulate(...)``, each timed; the integrator gets the sparse ``A`` as its Jacobian;
* a hand-written model of the same network: its sparse A and B written directly with
  numpy index arrays (nodal equations of the grid, mesh and node equations of the
  ladder), integrated by the same ``solve_ivp`` call with the same Jacobian;
* ngspice in batch mode (``ngspice -b``) on a generated netlist, when it is installed; a
  run is stopped after ``--ngspice-limit`` seconds (30), and larger sizes are not tried.

Every run happens in a forked child process, so that its peak resident memory is its own.
Ratios: vecnet's whole time (building the network element by element included) and its
formulation plus simulation alone, each over the hand-written model's.
Checks: vecnet's probe output (the last capacitor of the ladder, the heated node of the
grid) equals the hand-written model's at every output time (to 1e-6 of its range), and so
does ngspice's final value (to 1e-3). Printed: times, ratios, peak memory and the growth
exponent of each time fitted over the sizes (1 is linear).

Usage: ``python benchmarks/large.py [--sizes 1000,10000,100000]``. The default run takes
about three minutes.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.integrate import solve_ivp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import Checks, format_ratio, format_row, format_time, print_header  # noqa: E402

import vecnet as vn  # noqa: E402

POINTS, RTOL, ATOL = 101, 1e-6, 1e-9
R_SERIES, L_SERIES, C_SHUNT = 0.1, 1e-3, 1e-3
C_NODE, R_LINK = 1e-3, 1.0


# -- the networks ----------------------------------------------------------------------------

def ladder_sections(elements: int) -> int:
    return max(1, (elements - 1) // 3)


def ladder_network(sections: int) -> vn.Network:
    net = vn.Network("ladder")
    net.add(vn.VoltageSource("V", "0", "n0", V=1.0))
    for k in range(1, sections + 1):
        net.add(vn.Resistor(f"R{k}", f"n{k - 1}", f"m{k}", R=R_SERIES),
                vn.Inductor(f"L{k}", f"m{k}", f"n{k}", L=L_SERIES),
                vn.Capacitor(f"C{k}", "0", f"n{k}", C=C_SHUNT))
    return net


def ladder_hand(sections: int):
    """States [i_1..i_N, v_1..v_N]: L i_k' = v_{k-1} - R i_k - v_k, C v_k' = i_k - i_{k+1}."""
    n = sections
    k = np.arange(n)
    rows = np.concatenate([k, k, k[1:], n + k, n + k[:-1]])
    cols = np.concatenate([k, n + k, n + k[:-1], k, k[1:]])
    values = np.concatenate([np.full(n, -R_SERIES / L_SERIES), np.full(n, -1 / L_SERIES),
                             np.full(n - 1, 1 / L_SERIES), np.full(n, 1 / C_SHUNT),
                             np.full(n - 1, -1 / C_SHUNT)])
    A = sp.csr_matrix((values, (rows, cols)), shape=(2 * n, 2 * n))
    b = np.zeros(2 * n)
    b[0] = 1 / L_SERIES
    return A, b, 2 * n - 1   # the probe: v_N


def grid_side(elements: int) -> int:
    return max(2, int(round(np.sqrt(elements / 3))))


def grid_network(side: int) -> vn.Network:
    net = vn.Network("chip")
    net.add(vn.TemperatureSource("ambient", "0", "amb", T=0.0))
    middle = f"x{side // 2}_{side // 2}"
    net.add(vn.HeatFlowSource("heat", "0", middle, q=1.0))
    for i in range(side):
        for j in range(side):
            node = f"x{i}_{j}"
            net.add(vn.ThermalCapacitance(f"C{i}_{j}", "0", node, C=C_NODE))
            if i + 1 < side:
                net.add(vn.ThermalResistance(f"Rv{i}_{j}", node, f"x{i + 1}_{j}", R=R_LINK))
            if j + 1 < side:
                net.add(vn.ThermalResistance(f"Rh{i}_{j}", node, f"x{i}_{j + 1}", R=R_LINK))
        net.add(vn.ThermalResistance(f"Ra{i}", "amb", f"x{i}_0", R=R_LINK))
    return net


def grid_hand(side: int):
    """C T' = -G T + e_middle q, G the conductance matrix of the grid."""
    index = np.arange(side * side).reshape(side, side)
    pairs = np.concatenate([np.stack([index[:-1].ravel(), index[1:].ravel()], 1),
                            np.stack([index[:, :-1].ravel(), index[:, 1:].ravel()], 1)])
    g = 1 / R_LINK
    n = side * side
    rows = np.concatenate([pairs[:, 0], pairs[:, 1], pairs[:, 0], pairs[:, 1]])
    cols = np.concatenate([pairs[:, 0], pairs[:, 1], pairs[:, 1], pairs[:, 0]])
    values = np.concatenate([np.full(2 * len(pairs), g), np.full(2 * len(pairs), -g)])
    G = sp.csr_matrix((values, (rows, cols)), shape=(n, n))
    G = G + sp.csr_matrix((np.full(side, g), (index[:, 0], index[:, 0])), shape=(n, n))
    middle = index[side // 2, side // 2]
    b = np.zeros(n)
    b[middle] = 1 / C_NODE
    return (-G / C_NODE).tocsr(), b, middle


CASES = {
    "RLC ladder": dict(t_end=0.05, size=ladder_sections, network=ladder_network, hand=ladder_hand,
                       elements=lambda s: 3 * s + 1, probe=lambda s: f"C{s}.across"),
    "RC grid": dict(t_end=1.0, size=grid_side, network=grid_network, hand=grid_hand,
                    elements=lambda s: s * s + 2 * s * (s - 1) + s + 2,
                    probe=lambda s: f"C{s // 2}_{s // 2}.across"),
}


# -- the runs (each in a child process) ----------------------------------------------------

def times_out(case: str) -> np.ndarray:
    return np.linspace(0, CASES[case]["t_end"], POINTS)


def run_vecnet(case: str, size: int) -> dict:
    spec = CASES[case]
    start = time.perf_counter()
    net = spec["network"](size)
    built = time.perf_counter()
    ss = net.sparse_state_space(outputs=[spec["probe"](size)])
    formulated = time.perf_counter()
    with vn.limits(max_evaluations=10**7, max_seconds=600):
        res = ss.simulate((0, spec["t_end"]), t_eval=times_out(case), method="BDF", rtol=RTOL,
                          atol=ATOL)
    done = time.perf_counter()
    return dict(build=built - start, formulate=formulated - built, simulate=done - formulated,
                total=done - start, probe=np.asarray(res[spec["probe"](size)]),
                states=len(ss.states))


def run_hand(case: str, size: int) -> dict:
    start = time.perf_counter()
    A, b, probe = CASES[case]["hand"](size)
    jac = A.tocsc()
    sol = solve_ivp(lambda t, x: A @ x + b, (0, CASES[case]["t_end"]), np.zeros(A.shape[0]),
                    method="BDF", t_eval=times_out(case), rtol=RTOL, atol=ATOL, jac=jac)
    done = time.perf_counter()
    return dict(total=done - start, probe=sol.y[probe], states=A.shape[0])


def spice_netlist(case: str, size: int) -> str:
    lines = [f"{case} {size}"]
    if case == "RLC ladder":
        lines.append("V n0 0 DC 1")
        for k in range(1, size + 1):
            lines += [f"R{k} n{k - 1} m{k} {R_SERIES}", f"L{k} m{k} n{k} {L_SERIES}",
                      f"C{k} n{k} 0 {C_SHUNT}"]
        probe = f"n{size}"
    else:
        lines.append("Vamb amb 0 DC 0")
        lines.append(f"I 0 x{size // 2}_{size // 2} DC 1")
        for i in range(size):
            for j in range(size):
                lines.append(f"C{i}_{j} x{i}_{j} 0 {C_NODE}")
                if i + 1 < size:
                    lines.append(f"Rv{i}_{j} x{i}_{j} x{i + 1}_{j} {R_LINK}")
                if j + 1 < size:
                    lines.append(f"Rh{i}_{j} x{i}_{j} x{i}_{j + 1} {R_LINK}")
            lines.append(f"Ra{i} amb x{i}_0 {R_LINK}")
        probe = f"x{size // 2}_{size // 2}"
    t_end = CASES[case]["t_end"]
    lines += [".options reltol=1e-6", f".tran {t_end / (POINTS - 1)} {t_end} uic",
              ".control", "run", f"print {probe}[length({probe})-1]", ".endc", ".end"]
    return "\n".join(lines) + "\n"


def run_ngspice(case: str, size: int, limit: float) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "net.cir"
        path.write_text(spice_netlist(case, size))
        start = time.perf_counter()
        try:
            out = subprocess.run(["ngspice", "-b", str(path)], capture_output=True, text=True,
                                 timeout=limit)
        except subprocess.TimeoutExpired:
            return dict(total=None, final=None, stopped=limit)
        done = time.perf_counter()
    value = None
    for line in out.stdout.splitlines():
        if "=" in line and "[" in line.split("=")[0]:
            value = float(line.split("=")[1].split()[0])
    return dict(total=done - start, final=value)


# -- the frequency response (.ac) -------------------------------------------------------------

#: ``.ac dec 5 1 1meg``: 31 frequencies, the same points in both tools
AC_CARD = ".ac dec 5 1 1e6"


def ac_netlist(case: str, size: int) -> tuple[str, str, str]:
    """The network as a netlist driven by a unit AC source, with the ``.ac`` card and a
    print of the probe: ``(text, probe node, vecnet's name of the probe)``. The ladder is
    probed at its first section's node (the far end's response lies below 1e-25)."""
    text = spice_netlist(case, size).splitlines()
    first_command = next(k for k, line in enumerate(text) if line.startswith("."))
    body = text[1:first_command]
    body = [line.replace("DC 1", "DC 0 AC 1") for line in body]
    probe, name = ("n1", "C1.across") if case == "RLC ladder" else \
        (f"x{size // 2}_{size // 2}", f"C{size // 2}_{size // 2}.across")
    lines = [text[0], *body, AC_CARD, ".control", "run", f"print vm({probe})", ".endc", ".end"]
    return "\n".join(lines) + "\n", probe, name


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_ac_vecnet(path: str, probe: str) -> dict:
    """Read the netlist, formulate and sweep, in this process (CPU time)."""
    from vecnet.numerics.analysis import frequency_response

    start = time.process_time()
    with vn.limits(max_parts=10**7):
        net = vn.load_netlist(path)
        read = time.process_time()
        ss = net.sparse_state_space()
        formulated = time.process_time()
        res = frequency_response(ss, net.analyses.ac.frequencies(), inputs=net.analyses.ac_sources,
                                 outputs=[probe])
    done = time.process_time()
    return dict(read=read - start, formulate=formulated - read, sweep=done - formulated,
                total=done - start, magnitude=np.abs(res.H[:, 0, 0]),
                frequencies=np.asarray(res.frequencies))


def run_ac_command(path: str, probe: str) -> dict:
    """``vecnet ac FILE`` as a user runs it: the CPU time of the whole process."""
    before = children_cpu()
    out = subprocess.run([sys.executable, "-m", "vecnet.cli", "ac", path, "--outputs", probe,
                          "--limit", "max_parts=10000000"], capture_output=True, text=True)
    if out.returncode:
        return dict(error=out.stderr.strip()[-300:])
    return dict(total=children_cpu() - before)


def run_ac_ngspice(path: str, probe: str, limit: float) -> dict:
    """``ngspice -b FILE``: the CPU time of the whole process, and the printed |v(probe)|."""
    before = children_cpu()
    try:
        out = subprocess.run(["ngspice", "-b", path], capture_output=True, text=True,
                             timeout=limit)
    except subprocess.TimeoutExpired:
        return dict(total=None, stopped=limit)
    total = children_cpu() - before
    rows = [line.split() for line in out.stdout.splitlines()]
    values = [float(r[2]) for r in rows if len(r) == 3 and r[0].isdigit()]
    return dict(total=total, magnitude=np.array(values))


AC_COLUMNS = [("elements", 9, ">"), ("read", 8, ">"), ("formulate", 9, ">"),
              ("sweep", 8, ">"), ("in-process", 10, ">"), ("command", 8, ">"),
              ("ngspice", 8, ">"), ("in-proc/ng", 10, ">"), ("cmd/ng", 7, ">"),
              ("check", 14, "<")]


def bench_ac(case: str, elements: list[int], checks: Checks, spice: float | None) -> None:
    """The 31-point frequency response of each network, read from one netlist by vecnet
    (in this process, and as the ``vecnet ac`` command) and by ngspice; CPU seconds."""
    spec = CASES[case]
    print_header(f"{case}: .ac, {AC_CARD.split(' ', 1)[1]} (31 frequencies), CPU time",
                 AC_COLUMNS)
    for wanted in elements:
        size = spec["size"](wanted)
        text, node, probe = ac_netlist(case, size)
        with tempfile.TemporaryDirectory() as folder:
            path = str(Path(folder) / "net.cir")
            Path(path).write_text(text)
            mine = isolated(run_ac_vecnet, path, probe)
            command = run_ac_command(path, probe)
            ng = run_ac_ngspice(path, node, spice) if spice else {}
        if "error" in mine or "error" in command:
            print(f"{spec['elements'](size):>9}  failed: {mine.get('error') or command.get('error')}")
            checks.failures += 1
            continue
        note = "no ngspice"
        if ng.get("magnitude") is not None:
            theirs = ng["magnitude"]
            ok = len(theirs) == len(mine["magnitude"]) and np.allclose(
                mine["magnitude"], theirs, rtol=1e-5, atol=1e-9 * np.max(theirs))
            note = checks.note(ok, "same response", "DIFFERENT")
        ng_t = ng.get("total")
        print(format_row([str(spec["elements"](size)), format_time(mine["read"]),
                          format_time(mine["formulate"]), format_time(mine["sweep"]),
                          format_time(mine["total"]), format_time(command["total"]),
                          spice_cell(ng),
                          format_ratio(mine["total"] / ng_t) if ng_t else "",
                          format_ratio(command["total"] / ng_t) if ng_t else "", note],
                         AC_COLUMNS), flush=True)


def _child(fn, args, conn) -> None:
    try:
        result = fn(*args)
        result["memory"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        conn.send(result)
    except Exception as exc:  # reported in the table, not raised
        conn.send(dict(error=f"{type(exc).__name__}: {exc}"))


def isolated(fn, *args) -> dict:
    parent, child = multiprocessing.get_context("fork").Pipe()
    process = multiprocessing.get_context("fork").Process(target=_child, args=(fn, args, child))
    process.start()
    result = parent.recv()
    process.join()
    return result


# -- the report ----------------------------------------------------------------------------

def growth(sizes: list[int], seconds: list[float]) -> str:
    if len(sizes) < 2 or any(s is None or s <= 0 for s in seconds):
        return ""
    slope = np.polyfit(np.log(sizes), np.log(seconds), 1)[0]
    return f"{slope:.2f}"


def spice_cell(result: dict) -> str:
    if not result:
        return "n/a"
    if result.get("stopped"):
        return f"> {result['stopped']:g} s"
    return format_time(result.get("total")) if "error" not in result else "failed"


def megabytes(value: float | None) -> str:
    return "" if value is None else f"{value / 2**20:.0f} MB"


COLUMNS = [("elements", 9, ">"), ("states", 7, ">"), ("build", 9, ">"),
           ("formulate", 9, ">"), ("simulate", 9, ">"), ("vecnet", 9, ">"),
           ("hand", 9, ">"), ("ratio", 6, ">"), ("f+s ratio", 9, ">"), ("ngspice", 9, ">"),
           ("vn mem", 7, ">"), ("hand mem", 8, ">"), ("check", 12, "<")]


def bench(case: str, elements: list[int], checks: Checks, spice: float | None) -> None:
    spec = CASES[case]
    print_header(f"{case}: build + formulate + simulate over {spec['t_end']:g} s (BDF, rtol "
                 f"{RTOL:g})",
                 COLUMNS)
    counts, ours, theirs = [], [], []
    for wanted in elements:
        size = spec["size"](wanted)
        mine = isolated(run_vecnet, case, size)
        hand = isolated(run_hand, case, size)
        ng = isolated(run_ngspice, case, size, spice) if spice else {}
        if ng.get("stopped"):
            spice = None  # larger networks would take longer still
        count = spec["elements"](size)
        if "error" in mine or "error" in hand:
            print(f"{count:>9}  failed: {mine.get('error') or hand.get('error')}")
            checks.failures += 1
            continue
        scale = np.ptp(hand["probe"]) or 1.0
        ok = np.max(np.abs(mine["probe"] - hand["probe"])) <= 1e-6 * scale
        if ng.get("final") is not None:
            ok = ok and abs(ng["final"] - hand["probe"][-1]) <= 1e-3 * scale
        note = checks.note(ok, "same response", "DIFFERENT")
        counts.append(count)
        ours.append(mine["total"])
        theirs.append(hand["total"])
        print(format_row([str(count), str(mine["states"]), format_time(mine["build"]),
                          format_time(mine["formulate"]), format_time(mine["simulate"]),
                          format_time(mine["total"]), format_time(hand["total"]),
                          format_ratio(mine["total"] / hand["total"]),
                          format_ratio((mine["formulate"] + mine["simulate"]) / hand["total"]),
                          spice_cell(ng),
                          megabytes(mine["memory"]), megabytes(hand["memory"]), note], COLUMNS))
    print(f"growth exponent of the time (fitted over the sizes): vecnet "
          f"{growth(counts, ours)}, hand-written {growth(counts, theirs)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000",
                        help="element counts, comma-separated")
    parser.add_argument("--ngspice-limit", type=float, default=30.0,
                        help="seconds after which an ngspice run is stopped")
    parser.add_argument("--ac-only", action="store_true",
                        help="only the frequency responses (.ac), not the transients")
    args = parser.parse_args()
    elements = [int(x) for x in args.sizes.split(",")]
    spice = args.ngspice_limit if shutil.which("ngspice") else None
    print(f"vecnet {vn.__version__ if hasattr(vn, '__version__') else ''} on "
          f"{os.cpu_count()} cores; ngspice: "
          f"{'found' if spice else 'not installed (its column is skipped)'}")
    checks = Checks()
    for case in CASES:
        if not args.ac_only:
            bench(case, elements, checks, spice)
        bench_ac(case, elements, checks, spice)
    print(f"\n{checks.failures} check(s) failed" if checks.failures else "\nall checks passed")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
