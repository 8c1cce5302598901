"""Benchmark the studio's answer to an edit: the time from the page's request to the view
it draws, on a warm server (``vn.studio``), for McPhee's E1 (7 elements) and a ladder of
50 elements (an RC ladder: a source, then 24 resistor-capacitor sections and a load).

An edit is what the page sends: the whole model document and the tree, ``POST
/api/view`` with the run's token; the answer holds every matrix, the diagnosis and the
steps as LaTeX. Timed: the round trip through the local socket, JSON both ways
(``time.perf_counter``), and the server's CPU time for it (this process runs the server:
``time.process_time`` around the request), each the median of ``--runs`` edits (20)
after two warm-up edits; the edits alternate between two trees, so that nothing is
cached between them. The page's own drawing (SVG and tables from the JSON, KaTeX on the
steps) is not in these numbers. The target (under 0.2 s on E1) is reported, not checked.

Checks: every answer is the view of the tree asked for (its branches), and E1's
cutset matrix is McPhee's.

Usage: ``python benchmarks/studio.py [--runs 20]``; exits with status 1 if a check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np

import vecnet as vn

ROOT = Path(__file__).resolve().parent.parent
#: McPhee's [CU] for the tree {L1, L2, R3, R4, R5}, columns L1 L2 R3 R4 R5 C6 V7
E1_CU = np.array([[1, 0, 0, 0, 0, 0, -1], [0, 1, 0, 0, 0, 1, 0], [0, 0, 1, 0, 0, 1, 0],
                  [0, 0, 0, 1, 0, -1, 1], [0, 0, 0, 0, 1, 0, 1]])


def ladder(sections: int = 24) -> dict:
    elements = [{"type": "VoltageSource", "name": "V", "nodes": ["g", "n0"],
                 "parameters": {"V": 1.0}}]
    for k in range(sections):
        elements += [{"type": "Resistor", "name": f"R{k}", "nodes": [f"n{k}", f"n{k + 1}"],
                      "parameters": {"R": 1.0}},
                     {"type": "Capacitor", "name": f"C{k}", "nodes": ["g", f"n{k + 1}"],
                      "parameters": {"C": 1.0}}]
    elements.append({"type": "Resistor", "name": "Rload", "nodes": [f"n{sections}", "g"],
                     "parameters": {"R": 1.0}})
    return {"vecnet": "1", "kind": "network", "name": "ladder", "elements": elements}


def edit(running, document: dict, tree) -> tuple[float, float, dict]:
    body = json.dumps({"document": document, "tree": tree}).encode()
    request = urllib.request.Request(running.origin + "/api/view", data=body, headers={
        "X-Vecnet-Token": running.token, "Content-Type": "application/json"})
    wall, cpu = time.perf_counter(), time.process_time()
    with urllib.request.urlopen(request, timeout=300) as answer:
        view = json.loads(answer.read())
    return time.perf_counter() - wall, time.process_time() - cpu, view


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    e1 = json.loads((ROOT / "examples" / "models" / "e1.json").read_text())
    cases = {"E1 (7 elements)": (e1, [["L1", "L2", "R3", "R4", "R5"], "normal"]),
             "ladder (50 elements)": (ladder(), ["normal", None])}
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    failed = False
    running = vn.studio()
    try:
        for name, (document, trees) in cases.items():
            walls, cpus = [], []
            for k in range(args.runs + 2):
                tree = trees[k % 2]
                wall, cpu, view = edit(running, document, tree)
                if k >= 2:
                    walls.append(wall)
                    cpus.append(cpu)
                if isinstance(tree, list) and sorted(view["branches"]) != sorted(tree):
                    print(f"FAIL {name}: asked for {tree}, got {view['branches']}")
                    failed = True
                if name.startswith("E1") and tree == trees[0]:
                    m = view["matrices"]["cutset"]
                    order = [m["columns"].index(c) for c in ("L1", "L2", "R3", "R4", "R5",
                                                              "C6", "V7")]
                    rows = [m["rows"].index(r) for r in ("L1", "L2", "R3", "R4", "R5")]
                    if not np.array_equal(np.array(m["values"])[np.ix_(rows, order)], E1_CU):
                        print(f"FAIL {name}: the cutset matrix is not McPhee's")
                        failed = True
            wall, cpu = statistics.median(walls), statistics.median(cpus)
            target = " (target: under 0.2 s)" if name.startswith("E1") else ""
            print(f"{name}: edit to view {wall * 1e3:.1f} ms wall, {cpu * 1e3:.1f} ms CPU "
                  f"(median of {args.runs}){target}")
    finally:
        running.stop()
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
