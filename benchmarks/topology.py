"""Benchmark vecnet's graphs and topology matrices against plain scipy.sparse / csgraph code.

The graph is a ladder with diagonals, the graph of an RC ladder or a discretised
transmission line with one coupling element per cell: nodes ``a_k``, ``b_k``
(k = 0 .. n-1), the rung ``a_0 -> b_0``, then per cell k >= 1 four edges in this
order: the rail ``a_(k-1) -> a_k``, the rung ``a_k -> b_k``, the rail
``b_(k-1) -> b_k`` and the diagonal ``a_(k-1) -> b_k``. E = 4n - 3 edges on
V = 2n nodes (one chord per node); every orientation is flipped at random
(numpy, fixed seed). vecnet's default tree (Kruskal's rule in graph order) is
then the comb of rail a and the rungs, and every chord closes a circuit of 3 or
4 edges: ``[CU]`` and ``[CI]`` hold about 3.5 entries per chord at any size, so
the plain scipy answer is feasible. The tree is n branches deep, so the path
matrix ``P = A_t^{-1}`` (about n^2 / 2 entries) is not benchmarked. On a square
grid or a random graph the circuits are long and the circuit matrices fill in
(a random graph with 10^5 edges gives a ``[CU]`` with 5.7 million entries);
those graphs are not used here.

Steps, each vecnet call against plain code written below:

* ``build``: ``LinearGraph(triples)`` against dictionaries that map node and edge
  names to integers and numpy arrays of the end indices;
* ``[IN]``: ``incidence_matrix(g, sparse=True)`` against a CSR array built from
  the index arrays;
* ``tree``: ``spanning_forest(g)`` against ``csgraph.minimum_spanning_tree`` with
  each edge weighted by its position (Kruskal's rule in graph order);
* ``Topology()``: the constructor (tree, components, datum, names) against the
  same minimum spanning tree plus ``csgraph.connected_components``;
* ``[A]``: ``reduced_incidence`` of a fresh Topology against the CSR array built
  without the datum row;
* ``[CU]``, ``[CI]``: ``cutset`` and ``circuit`` of a fresh Topology (tree
  chosen, nothing else computed) against a breadth-first search of the tree with
  ``csgraph.breadth_first_order`` and a vectorised walk that climbs from both
  ends of every chord to their meeting point (a triangular solve with
  ``spsolve_triangular`` needs a dense right-hand side: V x (E - V) entries).

Every result is checked: the matrices against the baseline's, the trees for
equality, and ``A_t [1 | A_c] = [A_t | A_chords]`` and ``[CI] [CU]^T = 0`` by
sparse products. Times are the best of a few ``time.perf_counter`` runs; the
ratio is vecnet / baseline (the target is at most 2); the growth exponent is
the least-squares slope of log(time) against log(edges) across the sizes.

Usage: ``python benchmarks/topology.py [--sizes 10000 100000 1000000]``. The
script exits with status 1 if any check fails (never because of a time).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy
import scipy.sparse as sp
from _table import Checks, format_ratio, format_row, format_time, print_header
from scipy.sparse import csgraph

import vecnet as vn

SEED = 20240601
TIME_BUDGET = 0.5  # seconds of repeated runs per timing (the machine may be shared: the
MIN_RUNS, MAX_RUNS = 2, 20  # best of many short runs is steadier than one)
DEFAULT_SIZES = [10**4, 10**5, 10**6]
TARGET_RATIO = 2.0

COLUMNS = [("step", 12, "<"), ("edges", 10, ">"), ("vecnet", 10, ">"), ("scipy", 10, ">"),
           ("ratio", 7, ">"), ("check / note", 0, "<")]
GROWTH_COLUMNS = [("step", 12, "<"), ("vecnet exponent", 16, ">"), ("scipy exponent", 15, ">"),
                  ("worst ratio", 12, ">")]


def best_time(fn: Callable[[Any], Any], make_input: Callable[[], Any] = lambda: None
              ) -> tuple[float, Any]:
    """Best wall time of ``fn(make_input())`` over a few runs, and the last result;
    ``make_input`` runs outside the timing (e.g. to get a fresh object)."""
    times: list[float] = []
    result = None
    while len(times) < MIN_RUNS or (len(times) < MAX_RUNS and sum(times) < TIME_BUDGET):
        arg = make_input()
        result = None
        gc.collect()
        start = time.perf_counter()
        result = fn(arg)
        times.append(time.perf_counter() - start)
    return min(times), result


# -- the graph --------------------------------------------------------------------
def ladder_edges(edges: int, rng: np.random.Generator) -> list[tuple[str, str, str]]:
    """``(name, tail, head)`` triples of the ladder with diagonals with about ``edges``
    edges, orientations flipped at random."""
    cells = max((edges + 3) // 4, 2)
    a = [f"a{k}" for k in range(cells)]
    b = [f"b{k}" for k in range(cells)]
    pairs = [(a[0], b[0])]
    for k in range(1, cells):
        pairs += [(a[k - 1], a[k]), (a[k], b[k]), (b[k - 1], b[k]), (a[k - 1], b[k])]
    flip = rng.random(len(pairs)) < 0.5
    return [(f"e{j}", *((h, t) if f else (t, h))) for j, ((t, h), f)
            in enumerate(zip(pairs, flip.tolist()))]


# -- plain scipy baselines ----------------------------------------------------------
class Plain:
    """The ladder as plain integer arrays: what code without vecnet would hold."""

    def __init__(self, triples: list[tuple[str, str, str]]) -> None:
        nodes: dict[str, int] = {}
        self.edge_index = {name: j for j, (name, _, _) in enumerate(triples)}
        ends = np.array([nodes.setdefault(n, len(nodes)) for _, t, h in triples for n in (t, h)])
        self.tails, self.heads = ends[0::2], ends[1::2]
        self.node_index = nodes
        self.v, self.e = len(nodes), len(triples)


def plain_incidence(g: Plain, rows: np.ndarray | None = None) -> sp.csr_array:
    """``[IN]`` (or, with ``rows`` mapping nodes to rows and -1 to drop, ``[A]``)."""
    columns = np.arange(g.e)
    data = np.concatenate([np.ones(g.e, dtype=np.int64), -np.ones(g.e, dtype=np.int64)])
    r = np.concatenate([g.heads, g.tails])
    c = np.concatenate([columns, columns])
    if rows is None:
        return sp.csr_array((data, (r, c)), shape=(g.v, g.e))
    r = rows[r]
    keep = r >= 0
    return sp.csr_array((data[keep], (r[keep], c[keep])), shape=(int(rows.max()) + 1, g.e))


def plain_tree(g: Plain) -> np.ndarray:
    """Positions of the edges Kruskal's rule takes in graph order (the ladder has no
    parallel edges, whose weights a sparse matrix would add)."""
    weights = np.arange(1, g.e + 1, dtype=np.float64)
    tree = csgraph.minimum_spanning_tree(sp.csr_array((weights, (g.tails, g.heads)),
                                                      shape=(g.v, g.v)))
    return np.sort(tree.tocoo().data.astype(np.int64) - 1)


def plain_topology(g: Plain) -> tuple[np.ndarray, np.ndarray]:
    """Tree positions and component labels."""
    tree = plain_tree(g)
    adjacency = sp.csr_array((np.ones(g.e), (g.tails, g.heads)), shape=(g.v, g.v))
    return tree, csgraph.connected_components(adjacency, directed=False)[1]


def plain_chord_part(g: Plain, tree: np.ndarray) -> sp.csr_array:
    """``A_c`` for the branches ``tree`` and datum node 0 (the ladder is connected): a
    breadth-first search of the tree, then all chords walked at once from both ends up to
    where the ends meet, the deeper end first."""
    t, h = g.tails[tree], g.heads[tree]
    adjacency = sp.csr_array((np.ones(len(tree)), (t, h)), shape=(g.v, g.v))
    distance, parent = csgraph.dijkstra(adjacency, directed=False, indices=0, unweighted=True,
                                        return_predecessors=True)  # a breadth-first search
    depth = distance.astype(np.int64)
    child = np.where(parent[h] == t, h, t)
    row = np.empty(g.v, dtype=np.int64)
    row[child] = np.arange(len(tree))
    sign = np.zeros(g.v, dtype=np.int64)
    sign[child] = np.where(h == child, 1, -1)
    in_tree = np.zeros(g.e, dtype=bool)
    in_tree[tree] = True
    chords = np.flatnonzero(~in_tree)
    x, y, k = g.heads[chords], g.tails[chords], np.arange(len(chords))
    rows, cols, values = [], [], []
    while len(k):
        apart = x != y
        x, y, k = x[apart], y[apart], k[apart]
        dx, dy = depth[x], depth[y]
        for ends, climbs, side in ((x, dx >= dy, 1), (y, dy >= dx, -1)):
            nodes = ends[climbs]
            rows.append(row[nodes])
            cols.append(k[climbs])
            values.append(side * sign[nodes])
            ends[climbs] = parent[nodes]
    return sp.csr_array((np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))),
                        shape=(len(tree), len(chords)))


def plain_cutset(g: Plain, tree: np.ndarray) -> sp.csr_array:
    return sp.hstack([sp.eye_array(len(tree), dtype=np.int64, format="csr"),
                      plain_chord_part(g, tree)], format="csr")


def plain_circuit(g: Plain, tree: np.ndarray) -> sp.csr_array:
    part = plain_chord_part(g, tree)
    return sp.hstack([-part.T.tocsr(), sp.eye_array(part.shape[1], dtype=np.int64, format="csr")],
                     format="csr")


# -- checks -------------------------------------------------------------------------
def same(a: Any, b: Any) -> bool:
    return a.shape == b.shape and (sp.csr_array(a) != sp.csr_array(b)).nnz == 0


def theorems_hold(topo: vn.Topology) -> bool:
    """``A_t [1 | A_c] = [A_t | A_chords]`` and ``[CI] [CU]^T = 0``."""
    a = sp.csr_array(topo.reduced_incidence.tosparse())
    index = {name: j for j, name in enumerate(topo.edges)}
    columns = [index[name] for name in topo.branches + topo.chords]
    a = a[:, columns]
    cutset = sp.csr_array(topo.cutset.tosparse())
    circuit = sp.csr_array(topo.circuit.tosparse())
    return same(a[:, :len(topo.branches)] @ cutset, a) and (circuit @ cutset.T).count_nonzero() == 0


# -- one size -----------------------------------------------------------------------
def bench_size(edges: int, rng: np.random.Generator, checks: Checks,
               times: dict[str, list[tuple[int, float, float]]]) -> None:
    triples = ladder_edges(edges, rng)
    e = len(triples)

    def row(step: str, ours: float, plain: float, note: str) -> None:
        times.setdefault(step, []).append((e, ours, plain))
        ratio = ours / plain
        flag = f"; over {TARGET_RATIO:g}x" if ratio > TARGET_RATIO else ""
        print(format_row([step, f"{e:,}", format_time(ours), format_time(plain),
                          format_ratio(ratio), note + flag], COLUMNS), flush=True)

    ours, graph = best_time(lambda _: vn.LinearGraph(triples))
    plain, g = best_time(lambda _: Plain(triples))
    ok = graph.edges == tuple(g.edge_index) and graph.nodes == tuple(g.node_index)
    row("build", ours, plain, checks.note(ok, f"{graph.number_of_nodes():,} nodes", "MISMATCH"))

    ours, incidence = best_time(lambda _: vn.incidence_matrix(graph, sparse=True))
    plain, reference = best_time(lambda _: plain_incidence(g))
    row("[IN]", ours, plain, checks.note(same(incidence.values, reference), "same matrix",
                                         "MISMATCH"))

    ours, branches = best_time(lambda _: vn.spanning_forest(graph))
    plain, tree = best_time(lambda _: plain_tree(g))
    ok = branches == [graph.edges[j] for j in tree.tolist()]
    row("tree", ours, plain, checks.note(ok, "same tree", "MISMATCH"))

    ours, topo = best_time(lambda _: vn.Topology(graph, sparse=True))
    plain, _ = best_time(lambda _: plain_topology(g))
    ok = topo.branches == tuple(branches) and len(topo.datum) == 1
    row("Topology()", ours, plain, checks.note(ok, f"{len(topo.chords):,} chords", "MISMATCH"))

    def fresh() -> vn.Topology:
        return vn.Topology(graph, sparse=True)

    rows = np.arange(g.v) - 1  # the datum is the first node
    ours, reduced = best_time(lambda t: t.reduced_incidence, fresh)
    plain, reference = best_time(lambda _: plain_incidence(g, rows))
    row("[A]", ours, plain, checks.note(same(reduced.values, reference), "same matrix",
                                        "MISMATCH"))

    ours, cutset = best_time(lambda t: t.cutset, fresh)
    plain, reference = best_time(lambda _: plain_cutset(g, tree))
    note = f"same matrix, {cutset.values.nnz:,} entries"
    row("[CU]", ours, plain, checks.note(same(cutset.values, reference), note, "MISMATCH"))

    ours, circuit = best_time(lambda t: t.circuit, fresh)
    plain, reference = best_time(lambda _: plain_circuit(g, tree))
    note = f"same matrix, {circuit.values.nnz:,} entries"
    row("[CI]", ours, plain, checks.note(same(circuit.values, reference), note, "MISMATCH"))
    print(f"{'':12}  A_t [CU] = [A_t | A_chords] and [CI] [CU]^T = 0: "
          + checks.note(theorems_hold(topo), "hold", "FAIL"))


def print_growth(times: dict[str, list[tuple[int, float, float]]]) -> None:
    print_header("Growth: slope of log(time) against log(edges); worst vecnet / scipy ratio",
                 GROWTH_COLUMNS)
    for step, points in times.items():
        e, ours, plain = (np.array(x, dtype=float) for x in zip(*points))
        if len(e) < 2:
            slopes = ["", ""]
        else:
            slopes = [f"{np.polyfit(np.log(e), np.log(t), 1)[0]:.2f}" for t in (ours, plain)]
        print(format_row([step, *slopes, format_ratio(float(np.max(ours / plain)))],
                         GROWTH_COLUMNS))


def print_versions() -> None:
    print(f"Python {sys.version.split()[0]} ({platform.python_implementation()}), "
          f"numpy {np.__version__}, scipy {scipy.__version__}, vecnet {vn.__version__}")
    print(f"{platform.platform()}, {os.cpu_count()} CPUs; seed {SEED}; ladder with diagonals, "
          "V = E/2 nodes")
    print(f"time: best of {MIN_RUNS} to {MAX_RUNS} runs (perf_counter); ratio: vecnet / scipy "
          f"(target <= {TARGET_RATIO:g})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=DEFAULT_SIZES,
                        help="numbers of edges (default: %(default)s)")
    sizes = parser.parse_args().sizes
    start = time.perf_counter()
    rng = np.random.default_rng(SEED)
    checks = Checks()
    times: dict[str, list[tuple[int, float, float]]] = {}
    print_versions()
    print_header("Graph and topology of a ladder with diagonals: vecnet against plain scipy",
                 COLUMNS)
    for edges in sizes:
        bench_size(edges, rng, checks, times)
    print_growth(times)
    print(f"\ntotal run time {time.perf_counter() - start:.1f} s; "
          f"{checks.failures or 'no'} failed check(s)")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
