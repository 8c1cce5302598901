"""Reports and equations of large models read from files, timed as a user runs them.

* an RC ladder netlist of about 1,000 elements: a 1 V step source and sections of a series
  resistor of 1 kOhm and a shunt capacitor of 1 uF (500 sections: 1,001 elements, 500
  states), simulated over its ``.tran`` card;
* spatial chains of 10, 30 and 100 bodies in model files: rods of 0.5 m and 1 kg hanging
  from the ground on spherical joints, each joint between the bottom of one rod and the top
  of the next, simulated for 1 s under gravity.

Each ``vecnet report`` and ``vecnet equations`` runs in a process of its own (``python -m
vecnet.cli``), timed from start to exit (imports included) with a timeout. Above a size,
both print a summary (sizes, sparsity, names, the first equations; see
:mod:`vecnet.output.teaching`) instead of every entry of the large matrices and expressions.
Targets: the ladder's report in under 10 s, the 30-body chain's in under 30 s.

Usage: ``python benchmarks/large_reports.py [--ladder 1000] [--chains 10,30,100]
[--timeout 120]``; about a minute on one core.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import format_row, format_time, print_header  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {("ladder", 1000, "report"): 10.0, ("chain", 30, "report"): 30.0}


def ladder_netlist(elements: int) -> str:
    """A step source and ``elements // 2`` RC sections."""
    sections = max(1, elements // 2)
    lines = [f"RC ladder of {2 * sections + 1} elements", "V1 n0 0 PULSE(0 1 0 1u 1u 1 2)"]
    for k in range(1, sections + 1):
        lines += [f"R{k} n{k - 1} n{k} 1k", f"C{k} n{k} 0 1u"]
    return "\n".join(lines + [".tran 1m 100m", ".end"]) + "\n"


def chain_model(bodies: int, length: float = 0.5, mass: float = 1.0) -> dict:
    """A model file of ``bodies`` rods hanging on spherical joints."""
    inertia = [mass * length**2 / 12, mass * length**2 / 12, mass * length**2 / 200]
    rods, joints = [], []
    for k in range(1, bodies + 1):
        rods.append({"name": f"b{k}", "mass": mass, "inertia": inertia,
                     "position": [0, 0, -(k - 0.5) * length],
                     "points": {"top": [0, 0, length / 2], "bottom": [0, 0, -length / 2]}})
        joints.append({"type": "spherical", "name": f"J{k}",
                       "between": ["ground.O" if k == 1 else f"b{k - 1}.bottom", f"b{k}.top"]})
    return {"vecnet": "1", "kind": "mechanism", "dimensions": 3, "name": f"chain of {bodies}",
            "gravity": [0, 0, -9.81], "ground": {"points": {"O": [0, 0, 0]}},
            "bodies": rods, "joints": joints, "coordinates": "joint",
            "velocities": {"b1.omega": [1.0, 0.5, 0.0]},
            "simulation": {"t_span": [0, 1], "points": 101}}


def run(command: list[str], timeout: float) -> tuple[float, str]:
    """Seconds and outcome (``ok``, ``exit N: <first error line>``, ``timeout``)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "vecnet.cli", *command], env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, "timeout"
    elapsed = time.perf_counter() - start
    if done.returncode:
        return elapsed, f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1][:80]}"
    return elapsed, "ok"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ladder", type=int, default=1000, help="elements of the ladder")
    parser.add_argument("--chains", default="10,30,100", help="bodies of each chain")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per command")
    args = parser.parse_args()
    columns = [("model", 24, "<"), ("command", 9, "<"), ("time", 9, ">"), ("target", 7, ">"),
               ("outcome", 40, "<")]
    print_header("Reports and equations of large model files (one process each)", columns)
    failures = 0
    with tempfile.TemporaryDirectory() as folder:
        models = [(("ladder", args.ladder), Path(folder, "ladder.cir"),
                   ladder_netlist(args.ladder))]
        models += [(("chain", n), Path(folder, f"chain{n}.json"), json.dumps(chain_model(n)))
                   for n in (int(c) for c in args.chains.split(",") if c.strip())]
        for (kind, size), path, text in models:
            path.write_text(text, encoding="utf-8")
            for command in ("report", "equations"):
                output = Path(folder, f"{path.stem}-{command}.out")
                seconds, outcome = run([command, str(path), "--output", str(output)],
                                       args.timeout)
                target = TARGETS.get((kind, size, command))
                if outcome != "ok" or (target is not None and seconds > target):
                    failures += 1
                label = f"{kind} of {size} " + ("elements" if kind == "ladder" else "bodies")
                print(format_row([label, command, format_time(seconds),
                                  f"{target:g} s" if target else "", outcome], columns))
    print(f"\n{failures} failure(s): a command that did not finish, or a target missed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
