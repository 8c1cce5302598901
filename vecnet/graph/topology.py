"""Topology matrices of a linear graph for a choice of tree.

Conventions (McPhee's; see ``docs/conventions.md``):

* ``[IN]`` (nodes x edges): +1 where edge j points toward node i, -1 where it
  leaves node i. Wittenburg's incidence matrix is the negative of this one.
* ``[A]``: ``[IN]`` without the datum row of each connected component.
* Fundamental cutset matrix ``[CU] = [1 | A_c]`` (rows branches, columns
  branches then chords); ``A_c = A_t^{-1} A_chords``.
* Fundamental circuit matrix ``[CI] = [B_t | 1]`` (rows chords) with
  ``B_t = -A_c^T``.
* Path matrix ``P = A_t^{-1}`` (rows branches, columns non-datum nodes):
  ``P[b, n] = +1`` if branch b lies on the tree path from the datum to n and
  points away from the datum, -1 if it points toward the datum.

The algorithms work on integer indices: trees are minimum spanning forests of
:mod:`scipy.sparse.csgraph`, a breadth-first search gives each node its parent
branch and depth, and ``A_c`` and ``P`` come from walking the tree paths between
chord ends (all walks at once, in numpy), never from a dense inverse, so they
scale to sparse graphs with millions of edges.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp
import sympy
from scipy.sparse import csgraph

from ..core.later import later
from ..errors import TopologyError, TreeError, UnknownNameError
from .graph import LinearGraph, component_labels, group_nodes, pick
from .matrix import LabeledMatrix

__all__ = [
    "Topology",
    "incidence_matrix",
    "spanning_forest",
    "check_tree",
    "DENSE_EDGE_LIMIT",
]

#: Graphs with at most this many edges get dense numpy matrices by default.
DENSE_EDGE_LIMIT = 1000

Priority = Callable[[str], Any]

#: below this many unfinished tree walks, the rest go one step at a time in Python: a numpy
#: step over a handful of walks costs more than the Python steps it saves
_FEW_WALKS = 64


def incidence_matrix(graph: LinearGraph, sparse: bool | None = None) -> LabeledMatrix:
    """The incidence matrix ``[IN]`` of ``graph`` (rows nodes, columns edges).

    Entry ``(i, j)`` is +1 if edge j points toward node i, -1 if it leaves
    node i, 0 otherwise; every column sums to zero.

    Parameters
    ----------
    graph : LinearGraph
    sparse : bool, optional
        Return a scipy.sparse CSR matrix inside the labels. By default dense
        up to :data:`DENSE_EDGE_LIMIT` edges, sparse above.

    Examples
    --------
    >>> g = LinearGraph([("e1", "a", "b")])
    >>> incidence_matrix(g).toarray().tolist()
    [[-1], [1]]
    """
    return LabeledMatrix(_densify(_incidence(graph), sparse, graph.number_of_edges()),
                         graph.nodes, graph.edges)


def _incidence(graph: LinearGraph, rows: np.ndarray | None = None) -> sp.csr_matrix:
    """``[IN]``, or with ``rows`` (the row of each node, -1 to leave it out) a matrix of
    some of its rows, such as ``[A]``: built column by column, as each column holds the
    edge's head (+1) and tail (-1) and nothing else."""
    tails, heads = graph.index_arrays()
    e, height = len(tails), graph.number_of_nodes()
    entries = np.empty(2 * e, dtype=np.int64)
    entries[0::2], entries[1::2] = heads, tails
    values = np.empty(2 * e, dtype=np.int64)
    values[0::2], values[1::2] = 1, -1
    ends = np.arange(0, 2 * e + 1, 2)
    if rows is not None:
        entries = rows[entries]
        kept = entries >= 0
        entries, values = entries[kept], values[kept]
        ends = np.concatenate([[0], np.cumsum(kept)[1::2]])
        height = int(rows.max(initial=-1)) + 1
    return sp.csc_matrix((values, entries, ends), shape=(height, e)).tocsr()


def spanning_forest(graph: LinearGraph, priority: Priority | None = None) -> list[str]:
    """Branches of a spanning forest, preferring edges early in ``priority`` order.

    The forest is the minimum spanning forest for weights that rank the edges
    by ``priority(edge_name)`` (ties broken by graph order), found with
    :func:`scipy.sparse.csgraph.minimum_spanning_tree`; this is what Kruskal's
    greedy algorithm picks. Edges whose priority is ``None`` are never taken,
    so the result may fail to span when such edges are needed: check it with
    :func:`check_tree`.

    Parameters
    ----------
    graph : LinearGraph
    priority : callable, optional
        Maps an edge name to a sortable key (lower comes first) or ``None``
        (never a branch). Default: graph order.

    Returns
    -------
    list of str
        Branch names in graph order.

    Examples
    --------
    >>> g = LinearGraph([("x", 1, 2), ("y", 1, 2), ("z", 2, 3)])
    >>> spanning_forest(g)
    ['x', 'z']
    >>> spanning_forest(g, priority=lambda e: {"y": 0}.get(e, 1))
    ['y', 'z']
    """
    taken = greedy_forest(graph, _priority_order(graph, priority))
    return list(pick(graph.edges, _in_graph_order(graph, taken)))


def _in_graph_order(graph: LinearGraph, positions: np.ndarray) -> np.ndarray:
    """Distinct edge positions, sorted (in linear time)."""
    chosen = np.zeros(graph.number_of_edges(), dtype=bool)
    chosen[positions] = True
    return np.flatnonzero(chosen)


def _priority_order(graph: LinearGraph, priority: Priority | None) -> np.ndarray:
    """Positions of the edges whose priority is not ``None``, sorted by priority (ties in
    graph order)."""
    if priority is None:
        return np.arange(graph.number_of_edges())
    keys = []
    for j, name in enumerate(graph.edges):
        key = priority(name)
        if key is not None:
            keys.append((key, j))
    try:
        keys.sort()
    except TypeError as exc:
        raise TopologyError(f"tree priorities must be comparable with each other: {exc}") from None
    return np.fromiter((j for _, j in keys), dtype=np.int64, count=len(keys))


def greedy_forest(graph: LinearGraph, order: np.ndarray) -> np.ndarray:
    """Positions of the edges that Kruskal's greedy rule takes when offered the edges at
    positions ``order`` one by one (an edge is taken when it joins two pieces of the forest
    taken so far), in the order they were offered.

    This is the minimum spanning forest for weights that rank the offered edges, found by
    :func:`scipy.sparse.csgraph.minimum_spanning_tree` on integer indices.
    """
    order = np.asarray(order, dtype=np.int64)
    if len(order) == 0:
        return order
    tails, heads = graph.index_arrays()
    n = graph.number_of_nodes()
    lo = np.minimum(tails[order], heads[order])
    hi = np.maximum(tails[order], heads[order])
    rank = np.arange(len(order))
    adjacency = sp.csr_matrix((rank + 1.0, (lo, hi)), shape=(n, n))
    if adjacency.nnz < len(order):
        # parallel edges, whose weights the sparse matrix added: only the first offered of
        # them can be taken
        _, first = np.unique(lo * n + hi, return_index=True)
        rank = np.sort(first)
        adjacency = sp.csr_matrix((rank + 1.0, (lo[rank], hi[rank])), shape=(n, n))
    # distinct positive weights: a unique minimum, the forest Kruskal's rule takes
    tree = csgraph.minimum_spanning_tree(adjacency)
    taken = np.zeros(len(order), dtype=bool)
    taken[tree.tocoo().data.astype(np.int64) - 1] = True
    return order[taken]


def check_tree(graph: LinearGraph, branches: Sequence[str]) -> None:
    """Check that ``branches`` form a spanning tree of every component of ``graph``.

    Raises
    ------
    UnknownNameError
        A branch name that is not an edge of the graph.
    TreeError
        A repeated branch, branches that close a circuit (the message lists
        the circuit's edges), or branches that leave nodes out (the message
        names them).

    Examples
    --------
    >>> g = LinearGraph([("x", 1, 2), ("y", 2, 3), ("z", 3, 1)])
    >>> check_tree(g, ["x", "y"])
    >>> check_tree(g, ["x", "y", "z"])
    Traceback (most recent call last):
    ...
    vecnet.errors.TreeError: the branches x, y, z form a circuit (x, y, z); a tree has no circuits: move one of them to the cotree
    """
    if isinstance(branches, str):
        raise TreeError(f"give the tree as a list of edge names, not the string {branches!r}")
    branches = list(branches)
    unknown = [b for b in branches if b not in graph]
    if unknown:
        raise UnknownNameError(f"tree names unknown edge(s) {', '.join(map(str, unknown))}; "
                               f"the edges are {', '.join(graph.edges)}")
    seen: set[str] = set()
    repeated = [b for b in branches if b in seen or seen.add(b)]
    if repeated:
        raise TreeError(f"tree lists edge(s) {', '.join(repeated)} more than once")
    positions = np.fromiter((graph.edge_index(b) for b in branches), dtype=np.int64,
                            count=len(branches))
    _check_forest(graph, positions)


def _check_forest(graph: LinearGraph, positions: np.ndarray,
                  labels: np.ndarray | None = None) -> None:
    """:func:`check_tree` for distinct branches given by edge position; ``labels`` are the
    graph's component labels when already known."""
    branch_labels = component_labels(graph, positions)
    pieces = int(branch_labels.max()) + 1 if len(branch_labels) else 0
    v = graph.number_of_nodes()
    names = graph.edges
    if pieces != v - len(positions):  # a forest on v nodes with k edges has v - k pieces
        branches = [names[j] for j in positions.tolist()]
        loop = ", ".join(_a_circuit(graph, branches))
        raise TreeError(f"the branches {', '.join(sorted(loop.split(', ')))} form a circuit "
                        f"({loop}); a tree has no circuits: move one of them to the cotree")
    if labels is None:
        labels = component_labels(graph)
    wanted = int(labels.max()) + 1 if v else 0
    if pieces != wanted:
        touched = set(graph.subgraph(names[j] for j in positions.tolist()).nodes)
        left_out = [n for n in graph.nodes if n not in touched and _degree_positive(graph, n)]
        if left_out:
            raise TreeError(f"the tree leaves out node(s) {', '.join(map(repr, left_out))}: "
                            f"add a branch that reaches each of them")
        shown = "; ".join("{" + ", ".join(map(repr, g)) + "}"
                          for g in group_nodes(graph, branch_labels))
        raise TreeError(f"the tree falls apart into {pieces} pieces ({shown}) where the graph has "
                        f"{wanted} connected component(s): add branches joining the pieces")


def _a_circuit(graph: LinearGraph, branches: list[str]) -> list[str]:
    """The edges of one circuit among ``branches`` (which contain one), in walking order."""
    import networkx as nx  # here only: a network's commands need none of networkx
    seen: dict[frozenset, str] = {}
    for b in branches:  # two branches joining the same nodes: the shortest circuit
        pair = frozenset(graph.ends(b))
        if pair in seen:
            return [seen[pair], b]
        seen[pair] = b
    return [key for _, _, key in nx.find_cycle(nx.MultiGraph(graph.subgraph(branches).nx))]


def _degree_positive(graph: LinearGraph, node: Hashable) -> bool:
    return graph.nx.degree(node) > 0


def _densify(matrix: sp.spmatrix, sparse: bool | None, edges: int):
    if sparse is None:
        sparse = edges > DENSE_EDGE_LIMIT
    return matrix.tocsr() if sparse else matrix.toarray()


class _RootedTree:
    """A spanning forest rooted at the datum nodes, as arrays over the nodes: ``parent``
    (-1 at a datum), ``row`` (row, in branch order, of the branch joining the node to its
    parent), ``sign`` (+1 when that branch points toward the node, away from the datum,
    else -1) and ``depth`` (branches between the node and its datum)."""

    def __init__(self, parent: np.ndarray, row: np.ndarray, sign: np.ndarray,
                 depth: np.ndarray) -> None:
        self.parent, self.row, self.sign, self.depth = parent, row, sign, depth

    @cached_property
    def _lists(self) -> tuple[list[int], list[int], list[int], list[int]]:
        return self.parent.tolist(), self.row.tolist(), self.sign.tolist(), self.depth.tolist()

    def path(self, start: int, end: int) -> list[tuple[int, int]]:
        """Branches (row, ±1) met walking the tree from node ``start`` to node ``end``; +1
        where the walk follows the branch's orientation."""
        parent, row, sign, depth = self._lists
        up: list[tuple[int, int]] = []  # climbing from start
        down: list[tuple[int, int]] = []  # climbing from end, reversed later
        x, y = start, end
        while depth[x] > depth[y]:
            up.append((row[x], -sign[x]))
            x = parent[x]
        while depth[y] > depth[x]:
            down.append((row[y], sign[y]))
            y = parent[y]
        while x != y:
            up.append((row[x], -sign[x]))
            down.append((row[y], sign[y]))
            x, y = parent[x], parent[y]
        return up + down[::-1]

    def walk(self, plus: np.ndarray, minus: np.ndarray, columns: np.ndarray,
             shape: tuple[int, int]) -> sp.csr_matrix:
        """The matrix whose column ``columns[k]`` is ``P[:, plus[k]] - P[:, minus[k]]``, P
        the path matrix: -1 times the branches of the walk from ``plus[k]`` to ``minus[k]``
        (:meth:`path`). All walks climb together, one branch a step, the deeper end first,
        until their two ends meet; branches above the meeting point would cancel and are
        never visited, so the work is the number of entries found."""
        parent, row, sign, depth = self.parent, self.row, self.sign, self.depth
        x, y, k = (np.array(a, dtype=np.int64) for a in (plus, minus, columns))
        rows, cols, values = [], [], []
        while len(k) > _FEW_WALKS:
            apart = x != y
            x, y, k = x[apart], y[apart], k[apart]
            dx, dy = depth[x], depth[y]
            for ends, climbs, side in ((x, dx >= dy, 1), (y, dy >= dx, -1)):
                nodes = ends[climbs]
                rows.append(row[nodes])
                cols.append(k[climbs])
                values.append(side * sign[nodes])
                ends[climbs] = parent[nodes]
        for start, end, column in zip(x.tolist(), y.tolist(), k.tolist()):
            steps = self.path(start, end)
            rows.append(np.fromiter((r for r, _ in steps), dtype=np.int64, count=len(steps)))
            cols.append(np.full(len(steps), column, dtype=np.int64))
            values.append(np.fromiter((-d for _, d in steps), dtype=np.int64, count=len(steps)))
        empty = [np.zeros(0, dtype=np.int64)]
        return sp.csr_matrix((np.concatenate(values + empty),
                              (np.concatenate(rows + empty), np.concatenate(cols + empty))),
                             shape=shape)


def _row_entries(matrix: sp.csr_matrix, i: int) -> list[tuple[int, int]]:
    """``(column, value)`` of the stored entries of row ``i`` of a CSR matrix, by column."""
    start, end = matrix.indptr[i], matrix.indptr[i + 1]
    return sorted(zip(matrix.indices[start:end].tolist(), matrix.data[start:end].tolist()))


class Topology:
    """The topology matrices of a graph for one choice of tree (a value object).

    Parameters
    ----------
    graph : LinearGraph
    tree : list of str, callable, "auto" or None
        The branches, given either explicitly as a list of edge names (checked
        with :func:`check_tree`), or as a priority function for
        :func:`spanning_forest`, or ``None``/``"auto"`` for the spanning
        forest that prefers edges in graph order.
    datum : node or list of nodes, optional
        One reference node per connected component. Default: the first node
        (in graph order) of each component.
    sparse : bool, optional
        Store matrices as scipy.sparse. Default: dense up to
        :data:`DENSE_EDGE_LIMIT` edges.

    The graph is copied: later changes to it do not affect this object.

    Examples
    --------
    >>> g = LinearGraph([("R", "a", "b"), ("C", "b", "g"), ("V", "g", "a")])
    >>> topo = g.topology(tree=["R", "C"], datum="g")
    >>> print(topo.cutset)
       R  C |  V
    R  1  0 | -1
    C  0  1 | -1
    >>> topo.fundamental_circuit("V")
    [('V', 1), ('R', 1), ('C', 1)]
    """

    def __init__(self, graph: LinearGraph, tree: Sequence[str] | Priority | str | None = None,
                 datum: Hashable | Sequence[Hashable] | None = None,
                 sparse: bool | None = None) -> None:
        if not isinstance(graph, LinearGraph):
            raise TopologyError(f"Topology needs a LinearGraph, got {type(graph).__name__}")
        self.graph = graph = graph.copy()
        self.sparse = graph.number_of_edges() > DENSE_EDGE_LIMIT if sparse is None else bool(sparse)
        labels = component_labels(graph)

        if tree is None or (isinstance(tree, str) and tree == "auto"):
            # the greedy forest over all edges spans every component: nothing to check
            positions = greedy_forest(graph, np.arange(graph.number_of_edges()))
        elif isinstance(tree, str):
            raise TreeError(f"unknown tree rule {tree!r} for a bare graph; give a list of branch "
                            "names, a priority function or 'auto'")
        elif callable(tree):
            positions = _in_graph_order(graph, greedy_forest(graph, _priority_order(graph, tree)))
            _check_forest(graph, positions, labels)
        else:
            branches = list(tree)
            check_tree(graph, branches)
            positions = np.fromiter((graph.edge_index(b) for b in branches), dtype=np.int64,
                                    count=len(branches))
        names = graph.edges
        in_tree = np.zeros(len(names), dtype=bool)
        in_tree[positions] = True
        self._branch_positions = positions
        self._chord_positions = np.flatnonzero(~in_tree)
        self.edges: tuple[str, ...] = names
        self.nodes: tuple[Hashable, ...] = graph.nodes
        self.branches: tuple[str, ...] = pick(names, positions)
        self.chords: tuple[str, ...] = pick(names, self._chord_positions)
        self._labels = labels
        self.components: list[list[Hashable]] = group_nodes(graph, labels)
        self.datum: tuple[Hashable, ...] = self._choose_datum(datum)

    # -- datum and tree structure ----------------------------------------------
    def _choose_datum(self, datum) -> tuple[Hashable, ...]:
        graph = self.graph
        components = self.components
        if datum is None:
            return tuple(c[0] for c in components)
        chosen = [datum] if (not isinstance(datum, (list, tuple)) or graph.has_node(datum)) else list(datum)
        missing = [d for d in chosen if not graph.has_node(d)]
        if missing:
            raise UnknownNameError(f"datum node(s) {', '.join(map(repr, missing))} not in the graph")
        labels = self._labels
        owner: dict[int, Hashable] = {}
        for d in chosen:
            label = int(labels[graph.node_index(d)])
            if label in owner:
                raise TopologyError(f"datum nodes {owner[label]!r} and {d!r} lie in the same "
                                    "connected component; give one datum per component")
            owner[label] = d
        lacking = [c for i, c in enumerate(components) if i not in owner]
        if lacking:
            if datum is not None and len(components) > 1 and len(chosen) == 1:
                # one datum named for a forest: the other components keep their default
                owner.update({i: c[0] for i, c in enumerate(components) if i not in owner})
            else:
                shown = "; ".join("{" + ", ".join(map(repr, c)) + "}" for c in lacking)
                raise TopologyError(f"no datum given for component(s) {shown}")
        return tuple(owner[i] for i in range(len(components)))

    @cached_property
    def _tree(self) -> _RootedTree:
        """The tree rooted at the datum nodes. Dijkstra's search with unit weights on a tree
        is a breadth-first search that also returns every node's depth."""
        graph = self.graph
        v = graph.number_of_nodes()
        tails, heads = graph.index_arrays()
        b = self._branch_positions
        # a virtual root joined to every datum turns the forest into one tree
        root = v
        roots = np.fromiter((graph.node_index(d) for d in self.datum), dtype=np.int64)
        rows = np.concatenate([tails[b], np.full(len(roots), root)])
        cols = np.concatenate([heads[b], roots])
        adjacency = sp.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)),
                                  shape=(v + 1, v + 1))
        distance, pred = csgraph.dijkstra(adjacency, directed=False, indices=root,
                                          unweighted=True, return_predecessors=True)
        parent = pred[:v].astype(np.int64)
        parent[parent == root] = -1
        # a tree joins a node to its parent by exactly one branch: the branch's other end
        # is the parent, so the end whose parent is the other end is the child
        child = np.where(parent[heads[b]] == tails[b], heads[b], tails[b])
        row = np.full(v, -1, dtype=np.int64)
        row[child] = np.arange(len(b))
        sign = np.zeros(v, dtype=np.int64)
        sign[child] = np.where(heads[b] == child, 1, -1)
        return _RootedTree(parent, row, sign, distance[:v].astype(np.int64) - 1)

    @cached_property
    def _branch_row(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.branches)}

    @cached_property
    def _chord_column(self) -> dict[str, int]:
        return {name: k for k, name in enumerate(self.chords)}

    # -- matrices -------------------------------------------------------------
    def _wrap(self, matrix: sp.spmatrix, rows, cols, split=None) -> LabeledMatrix:
        return LabeledMatrix(matrix.tocsr() if self.sparse else matrix.toarray(), rows, cols, split)

    @cached_property
    def incidence(self) -> LabeledMatrix:
        """``[IN]``: rows :attr:`nodes`, columns :attr:`edges`."""
        return incidence_matrix(self.graph, sparse=self.sparse)

    @cached_property
    def _datum_positions(self) -> np.ndarray:
        return np.fromiter((self.graph.node_index(d) for d in self.datum), dtype=np.int64)

    @cached_property
    def reduced_nodes(self) -> tuple[Hashable, ...]:
        """The nodes other than the datum nodes: the rows of ``[A]``."""
        return pick(self.nodes, self._reduced_positions)

    @cached_property
    def _reduced_positions(self) -> np.ndarray:
        keep = np.ones(len(self.nodes), dtype=bool)
        keep[self._datum_positions] = False
        return np.flatnonzero(keep)

    @cached_property
    def reduced_incidence(self) -> LabeledMatrix:
        """``[A]``: ``[IN]`` without the datum rows; rows :attr:`reduced_nodes`."""
        rows = np.full(len(self.nodes), -1)
        rows[self._reduced_positions] = np.arange(len(self._reduced_positions))
        return self._wrap(_incidence(self.graph, rows), self.reduced_nodes, self.edges)

    @cached_property
    def _chord_part(self) -> sp.csr_matrix:
        """``A_c = A_t^{-1} A_chords`` (branches x chords). Column c is ``P[:, head] -
        P[:, tail]`` for the path matrix P: the branches on the tree path between the
        chord's ends, which the walk lists without forming P (whose rows run to the datum)."""
        tails, heads = self.graph.index_arrays()
        c = self._chord_positions
        return self._tree.walk(heads[c], tails[c], np.arange(len(c)),
                               shape=(len(self.branches), len(c)))

    @cached_property
    def cutset(self) -> LabeledMatrix:
        """``[CU] = [1 | A_c]``: rows :attr:`branches`, columns branches then chords."""
        identity = sp.identity(len(self.branches), dtype=np.int64, format="csr")
        matrix = sp.hstack([identity, self._chord_part], format="csr")
        return self._wrap(matrix, self.branches, self.branches + self.chords, len(self.branches))

    @cached_property
    def circuit(self) -> LabeledMatrix:
        """``[CI] = [B_t | 1]`` with ``B_t = -A_c^T``: rows :attr:`chords`, columns branches
        then chords."""
        identity = sp.identity(len(self.chords), dtype=np.int64, format="csr")
        matrix = sp.hstack([-self._chord_part.T.tocsr(), identity], format="csr")
        return self._wrap(matrix, self.chords, self.branches + self.chords, len(self.branches))

    @property
    def chord_part(self) -> LabeledMatrix:
        """``A_c``, the chord columns of ``[CU]`` (rows branches, columns chords)."""
        return self._wrap(self._chord_part, self.branches, self.chords)

    @cached_property
    def path(self) -> LabeledMatrix:
        """Branin's node-to-datum path matrix ``P = A_t^{-1}``: rows branches, columns
        :attr:`reduced_nodes`. ``P[b, n]`` is +1 if branch b is on the tree path from the
        datum to n and points away from the datum, -1 if it points toward it."""
        nodes = self._reduced_positions
        datum_of = self._datum_positions[self._labels[nodes]]
        matrix = self._tree.walk(nodes, datum_of, np.arange(len(nodes)),
                                 shape=(len(self.branches), len(nodes)))
        return self._wrap(matrix, self.branches, self.reduced_nodes)

    # -- fundamental cutsets and circuits as edge lists ---------------------------
    def fundamental_cutset(self, branch: str) -> list[tuple[str, int]]:
        """The f-cutset of ``branch``: ``(edge, ±1)`` pairs, the branch first (+1), then the
        chords it cuts, +1 where a chord crosses the cut in the branch's direction."""
        if branch not in self._branch_row:
            raise UnknownNameError(f"{branch!r} is not a tree branch; branches are "
                                   f"{', '.join(self.branches)}")
        cut = _row_entries(self._chord_part, self._branch_row[branch])
        return [(branch, 1)] + [(self.chords[c], s) for c, s in cut]

    def fundamental_circuit(self, chord: str) -> list[tuple[str, int]]:
        """The f-circuit of ``chord`` as a closed walk: ``(edge, ±1)`` pairs in walking
        order, starting along the chord (+1) from its tail to its head and returning
        through the tree; -1 marks an edge walked against its orientation."""
        if chord not in self._chord_column:
            raise UnknownNameError(f"{chord!r} is not a chord; chords are {', '.join(self.chords)}")
        tail, head = (self.graph.node_index(n) for n in self.graph.ends(chord))
        return [(chord, 1)] + [(self.branches[r], s) for r, s in self._tree.path(head, tail)]

    # -- equations ---------------------------------------------------------------
    def cutset_equations(self, through: str | dict[str, sympy.Expr] = "tau") -> list[sympy.Eq]:
        """Cutset equations ``tau_b = -sum_c A_c[b, c] tau_c``, one per branch.

        ``through`` is a prefix for symbols ``<prefix>_<edge>`` or a mapping from
        edge name to a sympy expression.

        >>> g = LinearGraph([("R", "a", "b"), ("C", "b", "g"), ("V", "g", "a")])
        >>> g.topology(tree=["R", "C"]).cutset_equations()
        [Eq(tau_R, tau_V), Eq(tau_C, tau_V)]
        """
        var = self._variables(through)
        part = self._chord_part
        equations = []
        for i, b in enumerate(self.branches):
            rhs = -sum((s * var[self.chords[c]] for c, s in _row_entries(part, i)),
                       sympy.Integer(0))
            equations.append(sympy.Eq(var[b], rhs, evaluate=False))
        return equations

    def circuit_equations(self, across: str | dict[str, sympy.Expr] = "a") -> list[sympy.Eq]:
        """Circuit equations ``a_c = sum_b A_c[b, c] a_b``, one per chord.

        >>> g = LinearGraph([("R", "a", "b"), ("C", "b", "g"), ("V", "g", "a")])
        >>> g.topology(tree=["R", "C"]).circuit_equations()
        [Eq(a_V, -a_C - a_R)]
        """
        var = self._variables(across)
        part = self._chord_part.T.tocsr()
        equations = []
        for k, c in enumerate(self.chords):
            rhs = sum((s * var[self.branches[b]] for b, s in _row_entries(part, k)),
                      sympy.Integer(0))
            equations.append(sympy.Eq(var[c], rhs, evaluate=False))
        return equations

    def _variables(self, spec: str | dict[str, sympy.Expr]) -> dict[str, sympy.Expr]:
        if isinstance(spec, str):
            return {e: sympy.Symbol(f"{spec}_{e}") for e in self.edges}
        missing = [e for e in self.edges if e not in spec]
        if missing:
            raise UnknownNameError(f"no variable given for edge(s) {', '.join(missing)}")
        return dict(spec)

    def _repr_svg_(self) -> str | None:
        """The graph drawn with this tree (branches solid, chords dashed), for notebooks;
        ``None`` when Graphviz is missing or the graph is too large to draw quickly."""
        repr_svg = later("vecnet.output.draw").repr_svg

        return repr_svg(self.graph, tree=list(self.branches))

    def __repr__(self) -> str:
        return (f"<Topology: {len(self.nodes)} nodes, {len(self.edges)} edges, "
                f"{len(self.branches)} branches, {len(self.chords)} chords, datum {list(self.datum)}>")
