"""Benchmark vecnet's sparse topology matrices against naive dense baselines.

Graphs are random, connected and sparse: E edges on V = E/2 nodes, made of a
random spanning tree plus random extra edges (parallel edges allowed), with
shuffled node labels, edge order and orientations (numpy, fixed seed).

Part 1, for E = 10^3 .. 10^6 edges:

* ``LinearGraph(...)`` construction and ``Topology(g, sparse=True)``
  construction (vecnet only);
* the incidence matrix ``[IN]``: ``vecnet.incidence_matrix(g, sparse=True)``
  against a dense int8 V x E array filled by fancy indexing;
* the reduced incidence ``[A]``: ``Topology(g, sparse=True).reduced_incidence``
  (timed on a fresh Topology, so it includes computing ``[IN]``) against the
  dense ``[IN]`` with the datum row deleted;
* a spanning forest: ``vecnet.spanning_forest(g)`` against a breadth-first
  search over a dense V x V adjacency array.

Part 2, for E = 10^2 .. 10^4 edges: the fundamental cutset matrix
``[CU] = [1 | A_c]`` (``Topology(g, sparse=True).cutset`` on a fresh Topology)
against ``inv(A_t) @ A`` computed densely with ``numpy.linalg.inv`` for the
same branches and datum; the two matrices must be equal.

Every result is checked against its baseline (or, for spanning forests,
checked to be a spanning tree). Wall time is the best of a few runs of
``time.perf_counter``; peak memory is measured by ``tracemalloc`` in a
separate run, so tracing does not slow the timed runs. A dense baseline is
skipped when its matrix would exceed 2e8 entries.

Usage: ``python benchmarks/topology.py [--quick]``. The script exits with
status 1 if any check fails.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import time
import tracemalloc
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
import scipy

import vecnet as vn
from _table import Checks, format_row, format_time, print_header

SEED = 20240601
MAX_DENSE_ENTRIES = 2e8
TIME_BUDGET = 1.0  # seconds of repeated runs per timing
MAX_RUNS = 5

FULL_SIZES = ([10**3, 10**4, 10**5, 10**6], [10**2, 10**3, 10**4])
QUICK_SIZES = ([10**3, 10**4], [10**2, 10**3])

COLUMNS = [("quantity", 22, "<"), ("edges", 9, ">"), ("vecnet time", 12, ">"),
           ("vecnet MB", 10, ">"), ("dense time", 12, ">"), ("dense MB", 10, ">"),
           ("time ratio", 11, ">"), ("mem ratio", 10, ">"), ("check / note", 0, "<")]


# -- measuring ------------------------------------------------------------------
@dataclass
class Measurement:
    seconds: float
    peak_bytes: int
    result: Any


def measure(fn: Callable[[Any], Any], make_input: Callable[[], Any] = lambda: None) -> Measurement:
    """Best wall time of ``fn(make_input())`` over a few runs, then its tracemalloc peak in a
    separate run. ``make_input`` runs outside the measurement (e.g. to get a fresh object)."""
    times: list[float] = []
    while len(times) < MAX_RUNS and sum(times) < TIME_BUDGET:
        arg = make_input()
        gc.collect()
        start = time.perf_counter()
        fn(arg)
        times.append(time.perf_counter() - start)
        del arg
    arg = make_input()
    gc.collect()
    tracemalloc.start()
    result = fn(arg)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return Measurement(min(times), peak, result)


def dense_skip_reason(entries: float, itemsize: int) -> str | None:
    """Why a dense baseline with a matrix of ``entries`` entries is skipped, or None."""
    if entries <= MAX_DENSE_ENTRIES:
        return None
    return f"skipped (dense matrix would need {entries * itemsize / 1e9:.1f} GB)"


# -- graphs -----------------------------------------------------------------------
def random_graph_edges(edges: int, rng: np.random.Generator) -> list[tuple[str, str, str]]:
    """``(name, tail, head)`` triples of a random connected graph with ``edges`` edges on
    ``edges // 2`` nodes: a random recursive spanning tree plus random extra edges."""
    v = max(edges // 2, 2)
    children = np.arange(1, v)
    parents = (rng.random(v - 1) * children).astype(np.int64)
    extra = edges - (v - 1)
    u = rng.integers(0, v, extra)
    w = (u + rng.integers(1, v, extra)) % v  # never a self-loop
    tails = np.concatenate([children, u])
    heads = np.concatenate([parents, w])
    flip = rng.random(edges) < 0.5
    tails, heads = np.where(flip, heads, tails), np.where(flip, tails, heads)
    label = rng.permutation(v)
    order = rng.permutation(edges)
    tails, heads = label[tails[order]], label[heads[order]]
    return [(f"e{j}", f"n{t}", f"n{h}") for j, (t, h) in enumerate(zip(tails.tolist(), heads.tolist()))]


# -- dense baselines ----------------------------------------------------------------
def dense_incidence(graph: vn.LinearGraph) -> np.ndarray:
    """``[IN]`` as a dense int8 array: +1 where an edge enters a node, -1 where it leaves."""
    tails, heads = graph.index_arrays()
    matrix = np.zeros((graph.number_of_nodes(), len(tails)), dtype=np.int8)
    columns = np.arange(len(tails))
    matrix[heads, columns] = 1
    matrix[tails, columns] = -1
    return matrix


def dense_reduced_incidence(graph: vn.LinearGraph, datum: tuple) -> np.ndarray:
    """``[A]``: the dense ``[IN]`` without the datum rows."""
    return np.delete(dense_incidence(graph), [graph.node_index(d) for d in datum], axis=0)


def dense_spanning_tree(graph: vn.LinearGraph) -> list[str]:
    """Branches of a breadth-first spanning tree from the first node, scanning whole rows of
    a dense adjacency array that holds an edge position per node pair (-1 for none)."""
    tails, heads = graph.index_arrays()
    v = graph.number_of_nodes()
    adjacency = np.full((v, v), -1, dtype=np.int32)
    positions = np.arange(len(tails), dtype=np.int32)
    adjacency[tails, heads] = positions
    adjacency[heads, tails] = positions
    visited = np.zeros(v, dtype=bool)
    visited[0] = True
    queue = deque([0])
    branches: list[int] = []
    while queue:
        node = queue.popleft()
        new = np.flatnonzero((adjacency[node] >= 0) & ~visited)
        visited[new] = True
        branches.extend(adjacency[node, new].tolist())
        queue.extend(new.tolist())
    names = graph.edges
    return [names[j] for j in sorted(branches)]


def dense_cutset(graph: vn.LinearGraph, branches: tuple[str, ...], datum: tuple) -> np.ndarray:
    """``[CU] = A_t^{-1} [A_t | A_chords]`` with a dense ``numpy.linalg.inv``."""
    a = dense_reduced_incidence(graph, datum).astype(np.float64)
    tree = [graph.edge_index(b) for b in branches]
    in_tree = set(tree)
    chords = [j for j in range(graph.number_of_edges()) if j not in in_tree]
    return np.linalg.inv(a[:, tree]) @ a[:, tree + chords]


# -- output -------------------------------------------------------------------------
def print_row(quantity: str, edges: int, ours: Measurement, dense: Measurement | None = None,
              note: str = "") -> None:
    cells = [quantity, f"{edges:,}", format_time(ours.seconds), f"{ours.peak_bytes / 1e6:.2f}"]
    if dense is None:
        cells += ["", "", "", ""]
    else:
        cells += [format_time(dense.seconds), f"{dense.peak_bytes / 1e6:.2f}",
                  f"{dense.seconds / ours.seconds:.2f}x",
                  f"{dense.peak_bytes / max(ours.peak_bytes, 1):.2f}x"]
    print(format_row(cells + [note], COLUMNS), flush=True)


def print_versions() -> None:
    print(f"Python {sys.version.split()[0]} ({platform.python_implementation()}), "
          f"numpy {np.__version__}, scipy {scipy.__version__}, networkx {nx.__version__}, "
          f"vecnet {vn.__version__}")
    print(f"{platform.platform()}, {os.cpu_count()} CPUs; seed {SEED}; graphs have V = E/2 nodes")
    print("time: best of up to 5 runs (perf_counter); MB: tracemalloc peak (1 MB = 1e6 bytes); "
          "ratios: dense / vecnet")


# -- benchmarks -------------------------------------------------------------------
def is_spanning_tree(graph: vn.LinearGraph, branches: list[str]) -> bool:
    try:
        vn.check_tree(graph, branches)
    except vn.TreeError:
        return False
    return len(branches) == graph.number_of_nodes() - 1


def bench_matrices(edges: int, rng: np.random.Generator, checks: Checks) -> None:
    """Part 1 rows for one graph size."""
    triples = random_graph_edges(edges, rng)
    built = measure(lambda _: vn.LinearGraph(triples))
    graph = built.result
    v = graph.number_of_nodes()
    print_row("LinearGraph()", edges, built, note=f"{v:,} nodes")
    topo = measure(lambda _: vn.Topology(graph, sparse=True))
    print_row("Topology()", edges, topo, note=f"{len(topo.result.chords):,} chords")
    datum = topo.result.datum
    del topo
    skip = dense_skip_reason(v * edges, 1)

    ours = measure(lambda _: vn.incidence_matrix(graph, sparse=True))
    if skip:
        print_row("[IN] incidence", edges, ours, note=skip)
    else:
        dense = measure(lambda _: dense_incidence(graph))
        same = np.array_equal(ours.result.toarray(), dense.result)
        print_row("[IN] incidence", edges, ours, dense, checks.note(same, "same matrix", "MISMATCH"))
        del dense
    del ours

    ours = measure(lambda t: t.reduced_incidence, lambda: vn.Topology(graph, sparse=True))
    if skip:
        print_row("[A] reduced incidence", edges, ours, note=skip)
    else:
        dense = measure(lambda _: dense_reduced_incidence(graph, datum))
        same = np.array_equal(ours.result.toarray(), dense.result)
        print_row("[A] reduced incidence", edges, ours, dense,
                  checks.note(same, "same matrix", "MISMATCH"))
        del dense
    del ours

    ours = measure(lambda _: vn.spanning_forest(graph))
    skip = dense_skip_reason(v * v, 4)
    dense = None if skip else measure(lambda _: dense_spanning_tree(graph))
    trees = [ours.result] + ([] if dense is None else [dense.result])
    valid = all(is_spanning_tree(graph, t) for t in trees)
    note = checks.note(valid, "spanning tree(s)", "NOT A SPANNING TREE")
    print_row("spanning forest", edges, ours, dense, f"{note}; {skip}" if skip else note)


def bench_cutset(edges: int, rng: np.random.Generator, checks: Checks) -> None:
    """Part 2 row for one graph size."""
    graph = vn.LinearGraph(random_graph_edges(edges, rng))
    reference = vn.Topology(graph, sparse=True)
    ours = measure(lambda t: t.cutset, lambda: vn.Topology(graph, sparse=True))
    skip = dense_skip_reason(graph.number_of_nodes() * edges, 8)
    if skip:
        print_row("[CU] cutset", edges, ours, note=skip)
        return
    dense = measure(lambda _: dense_cutset(graph, reference.branches, reference.datum))
    same = np.array_equal(ours.result.toarray(), np.rint(dense.result).astype(np.int64))
    print_row("[CU] cutset", edges, ours, dense, checks.note(same, "same matrix", "MISMATCH"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    matrix_sizes, cutset_sizes = QUICK_SIZES if parser.parse_args().quick else FULL_SIZES
    start = time.perf_counter()
    rng = np.random.default_rng(SEED)
    checks = Checks()
    print_versions()
    print_header("Part 1: incidence, reduced incidence, spanning forest", COLUMNS)
    for edges in matrix_sizes:
        bench_matrices(edges, rng, checks)
    print_header("Part 2: fundamental cutset matrix [CU] = [1 | A_c] vs dense inv(A_t) @ A", COLUMNS)
    for edges in cutset_sizes:
        bench_cutset(edges, rng, checks)
    print(f"\ntotal run time {time.perf_counter() - start:.1f} s; "
          f"{checks.failures or 'no'} failed check(s)")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
