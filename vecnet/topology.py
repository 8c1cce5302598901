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

The algorithms work on tree paths (breadth-first parent pointers), never on a
dense inverse, so they scale to large sparse graphs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import cached_property
from typing import Any

import networkx as nx
import numpy as np
import scipy.sparse as sp
import sympy
from scipy.sparse import csgraph

from .errors import TopologyError, TreeError, UnknownNameError
from .graph import LinearGraph, component_labels
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
    tails, heads = graph.index_arrays()
    e, v = len(tails), graph.number_of_nodes()
    cols = np.arange(e)
    data = np.concatenate([np.ones(e, dtype=np.int64), -np.ones(e, dtype=np.int64)])
    matrix = sp.csr_matrix((data, (np.concatenate([heads, tails]), np.concatenate([cols, cols]))),
                           shape=(v, e))
    return LabeledMatrix(_densify(matrix, sparse, e), graph.nodes, graph.edges)


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
    names = graph.edges
    e = len(names)
    if e == 0:
        return []
    if priority is None:
        order = np.arange(e)
    else:
        keys = []
        for j, name in enumerate(names):
            key = priority(name)
            if key is not None:
                keys.append((key, j))
        try:
            keys.sort()
        except TypeError as exc:
            raise TopologyError(f"tree priorities must be comparable with each other: {exc}") from None
        order = np.fromiter((j for _, j in keys), dtype=np.int64, count=len(keys))
    if len(order) == 0:
        return []
    tails, heads = graph.index_arrays()
    lo = np.minimum(tails[order], heads[order])
    hi = np.maximum(tails[order], heads[order])
    # among parallel edges only the first in priority order can be a branch
    _, first = np.unique(lo * graph.number_of_nodes() + hi, return_index=True)
    rank = np.sort(first)
    weights = (rank + 1).astype(np.float64)  # distinct positive weights: a unique minimum
    n = graph.number_of_nodes()
    tree = csgraph.minimum_spanning_tree(sp.csr_matrix((weights, (lo[rank], hi[rank])), shape=(n, n)))
    chosen = np.sort(order[tree.tocoo().data.astype(np.int64) - 1])
    return [names[j] for j in chosen]


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
    labels = component_labels(graph, positions)
    pieces = int(labels.max()) + 1 if len(labels) else 0
    v = graph.number_of_nodes()
    if pieces != v - len(branches):  # a forest on v nodes with k edges has v - k pieces
        loop = ", ".join(_a_circuit(graph, branches))
        raise TreeError(f"the branches {', '.join(sorted(loop.split(', ')))} form a circuit "
                        f"({loop}); a tree has no circuits: move one of them to the cotree")
    wanted = int(component_labels(graph).max()) + 1 if v else 0
    if pieces != wanted:
        touched = set(graph.subgraph(branches).nodes)
        left_out = [n for n in graph.nodes if n not in touched and _degree_positive(graph, n)]
        if left_out:
            raise TreeError(f"the tree leaves out node(s) {', '.join(map(repr, left_out))}: "
                            f"add a branch that reaches each of them")
        groups: dict[int, list[Hashable]] = {}
        for node, label in zip(graph.nodes, labels.tolist()):
            groups.setdefault(label, []).append(node)
        shown = "; ".join("{" + ", ".join(map(repr, g)) + "}" for g in groups.values())
        raise TreeError(f"the tree falls apart into {pieces} pieces ({shown}) where the graph has "
                        f"{wanted} connected component(s): add branches joining the pieces")


def _a_circuit(graph: LinearGraph, branches: list[str]) -> list[str]:
    """The edges of one circuit among ``branches`` (which contain one), in walking order."""
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

        if tree is None or (isinstance(tree, str) and tree == "auto"):
            branches = spanning_forest(graph)
        elif isinstance(tree, str):
            raise TreeError(f"unknown tree rule {tree!r} for a bare graph; give a list of branch "
                            "names, a priority function or 'auto'")
        elif callable(tree):
            branches = spanning_forest(graph, tree)
        else:
            branches = list(tree)
        check_tree(graph, branches)
        branch_set = set(branches)
        self.edges: tuple[str, ...] = graph.edges
        self.nodes: tuple[Hashable, ...] = graph.nodes
        self.branches: tuple[str, ...] = tuple(branches)
        self.chords: tuple[str, ...] = tuple(e for e in graph.edges if e not in branch_set)
        self.components: list[list[Hashable]] = graph.components()
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
        labels = component_labels(graph)
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
    def _tree(self) -> dict[str, list[int]]:
        """Breadth-first parent pointers of the tree, rooted at the datum nodes."""
        graph = self.graph
        v = graph.number_of_nodes()
        tails, heads = graph.index_arrays()
        b = np.fromiter((graph.edge_index(x) for x in self.branches), dtype=np.int64,
                        count=len(self.branches))
        # a virtual root joined to every datum turns the forest into one tree
        root = v
        roots = np.fromiter((graph.node_index(d) for d in self.datum), dtype=np.int64)
        rows = np.concatenate([tails[b], np.full(len(roots), root)])
        cols = np.concatenate([heads[b], roots])
        adjacency = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(v + 1, v + 1))
        order, pred = csgraph.breadth_first_order(adjacency, root, directed=False,
                                                  return_predecessors=True)
        # branch joining each node to its parent, found through a lookup of the node pair
        pair = {}
        for j in b.tolist():
            t, h = int(tails[j]), int(heads[j])
            pair[(t, h)] = j
            pair[(h, t)] = j
        parent_edge = [-1] * v
        sign = [0] * v
        depth = [0] * (v + 1)
        parent = pred.tolist()
        for node in order.tolist()[1:]:
            up = parent[node]
            depth[node] = depth[up] + 1
            if up == root:
                parent[node] = -1
                continue
            j = pair[(node, up)]
            parent_edge[node] = j
            sign[node] = 1 if heads[j] == node else -1
        return {"parent": parent[:v], "edge": parent_edge, "sign": sign, "depth": depth[:v],
                "order": order.tolist()[1:]}

    @cached_property
    def _branch_row(self) -> dict[int, int]:
        return {self.graph.edge_index(x): i for i, x in enumerate(self.branches)}

    def _tree_path(self, start: int, end: int) -> list[tuple[int, int]]:
        """Branches (edge position, ±1) met walking the tree from node ``start`` to node
        ``end``; +1 where the walk follows the branch's orientation."""
        tree = self._tree
        parent, edge, sign, depth = tree["parent"], tree["edge"], tree["sign"], tree["depth"]
        up: list[tuple[int, int]] = []  # climbing from start
        down: list[tuple[int, int]] = []  # climbing from end, reversed later
        x, y = start, end
        while depth[x] > depth[y]:
            up.append((edge[x], -sign[x]))
            x = parent[x]
        while depth[y] > depth[x]:
            down.append((edge[y], sign[y]))
            y = parent[y]
        while x != y:
            up.append((edge[x], -sign[x]))
            down.append((edge[y], sign[y]))
            x, y = parent[x], parent[y]
        return up + down[::-1]

    # -- matrices -------------------------------------------------------------
    def _wrap(self, matrix: sp.spmatrix, rows, cols, split=None) -> LabeledMatrix:
        return LabeledMatrix(matrix.tocsr() if self.sparse else matrix.toarray(), rows, cols, split)

    @cached_property
    def incidence(self) -> LabeledMatrix:
        """``[IN]``: rows :attr:`nodes`, columns :attr:`edges`."""
        return incidence_matrix(self.graph, sparse=self.sparse)

    @cached_property
    def reduced_nodes(self) -> tuple[Hashable, ...]:
        """The nodes other than the datum nodes: the rows of ``[A]``."""
        datum = set(self.datum)
        return tuple(n for n in self.nodes if n not in datum)

    @cached_property
    def reduced_incidence(self) -> LabeledMatrix:
        """``[A]``: ``[IN]`` without the datum rows; rows :attr:`reduced_nodes`."""
        keep = [self.graph.node_index(n) for n in self.reduced_nodes]
        full = self.incidence.tosparse()
        return self._wrap(full[keep, :], self.reduced_nodes, self.edges)

    @cached_property
    def _chord_part(self) -> sp.csr_matrix:
        """``A_c`` (branches x chords), from the tree path that closes each chord's circuit."""
        graph = self.graph
        tails, heads = graph.index_arrays()
        row_of = self._branch_row
        rows: list[int] = []
        cols: list[int] = []
        data: list[int] = []
        for k, chord in enumerate(self.chords):
            j = graph.edge_index(chord)
            # circuit: along the chord tail -> head, back through the tree head -> tail;
            # [CI][c, b] = ±1 as the walk follows b or not, and [CU][b, c] = -[CI][c, b]
            for edge, direction in self._tree_path(int(heads[j]), int(tails[j])):
                rows.append(row_of[edge])
                cols.append(k)
                data.append(-direction)
        return sp.csr_matrix((np.asarray(data, dtype=np.int64), (rows, cols)),
                             shape=(len(self.branches), len(self.chords)))

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
        matrix = sp.hstack([-self._chord_part.T, identity], format="csr")
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
        tree = self._tree
        row_of = self._branch_row
        column = {self.graph.node_index(n): k for k, n in enumerate(self.reduced_nodes)}
        # the path to a node is the path to its parent plus the branch between them
        paths: dict[int, list[tuple[int, int]]] = {}
        rows: list[int] = []
        cols: list[int] = []
        data: list[int] = []
        for node in tree["order"]:
            up = tree["parent"][node]
            if up < 0:
                paths[node] = []
                continue
            own = paths[up] + [(row_of[tree["edge"][node]], tree["sign"][node])]
            paths[node] = own
            for r, s in own:
                rows.append(r)
                cols.append(column[node])
                data.append(s)
        matrix = sp.csr_matrix((np.asarray(data, dtype=np.int64), (rows, cols)),
                               shape=(len(self.branches), len(self.reduced_nodes)))
        return self._wrap(matrix, self.branches, self.reduced_nodes)

    # -- fundamental cutsets and circuits as edge lists ---------------------------
    def fundamental_cutset(self, branch: str) -> list[tuple[str, int]]:
        """The f-cutset of ``branch``: ``(edge, ±1)`` pairs, the branch first (+1), then the
        chords it cuts, +1 where a chord crosses the cut in the branch's direction."""
        if branch not in self.branches:
            raise UnknownNameError(f"{branch!r} is not a tree branch; branches are "
                                   f"{', '.join(self.branches)}")
        row = self._chord_part.getrow(self.branches.index(branch)).tocoo()
        cut = sorted(zip(row.col.tolist(), row.data.tolist()))
        return [(branch, 1)] + [(self.chords[c], int(s)) for c, s in cut]

    def fundamental_circuit(self, chord: str) -> list[tuple[str, int]]:
        """The f-circuit of ``chord`` as a closed walk: ``(edge, ±1)`` pairs in walking
        order, starting along the chord (+1) from its tail to its head and returning
        through the tree; -1 marks an edge walked against its orientation."""
        if chord not in self.chords:
            raise UnknownNameError(f"{chord!r} is not a chord; chords are {', '.join(self.chords)}")
        graph = self.graph
        tails, heads = graph.index_arrays()
        j = graph.edge_index(chord)
        names = graph.edges
        return [(chord, 1)] + [(names[e], s) for e, s in self._tree_path(int(heads[j]), int(tails[j]))]

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
        part = self._chord_part.tocsr()
        equations = []
        for i, b in enumerate(self.branches):
            row = part.getrow(i).tocoo()
            rhs = -sum((int(s) * var[self.chords[c]] for c, s in zip(row.col, row.data)),
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
        part = self._chord_part.tocsc()
        equations = []
        for k, c in enumerate(self.chords):
            col = part.getcol(k).tocoo()
            rhs = sum((int(s) * var[self.branches[b]] for b, s in zip(col.row, col.data)),
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

    def __repr__(self) -> str:
        return (f"<Topology: {len(self.nodes)} nodes, {len(self.edges)} edges, "
                f"{len(self.branches)} branches, {len(self.chords)} chords, datum {list(self.datum)}>")
