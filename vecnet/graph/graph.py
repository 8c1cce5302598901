"""Linear graphs: named directed edges between named nodes.

A :class:`LinearGraph` is bare topology with no physics. Each edge has a
unique name (under the name policy of :mod:`vecnet.core.names`; nodes are names or
non-negative integers) and an orientation from its tail to its head; parallel edges and
several connected components are allowed, self-loops are not (an edge from a
node to itself carries no across variable and joins no cutset).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ..core.forwards import public
from ..core.later import later
from ..core.names import MAX_NAME_LENGTH, MAX_NODE_INTEGER, LookAlikes, check_name, check_node
from ..errors import TopologyError, UnknownNameError

if TYPE_CHECKING:
    import networkx as nx

    from .topology import Topology

__all__ = ["LinearGraph"]


class LinearGraph:
    """A directed multigraph whose edges have unique names.

    Parameters
    ----------
    edges : iterable of (name, tail, head), optional
        Edges to add, in order. Node order is the order of first appearance.

    Examples
    --------
    >>> g = LinearGraph([("R1", "a", "b"), ("C1", "b", "g"), ("V1", "g", "a")])
    >>> g.edges
    ('R1', 'C1', 'V1')
    >>> g.ends("C1")
    ('b', 'g')
    >>> g.topology(tree=["R1", "C1"]).chords
    ('V1',)
    """

    def __init__(self, edges: Iterable[tuple[str, Hashable, Hashable]] = ()) -> None:
        self._nodes: dict[Hashable, int] = {}
        self._edges: dict[str, int] = {}
        self._tails: list[int] = []
        self._shared = False  # the four containers are also a copy's (see copy)
        #: edge names and nodes by what they look like, from the first name that is not ASCII
        self._looks: dict[str, LookAlikes] | None = None
        self._heads: list[int] = []
        self._forget()
        edges = edges if isinstance(edges, (list, tuple)) else list(edges)
        if self._add_plain_edges(edges):
            return
        for edge in edges:
            if not (isinstance(edge, (tuple, list)) and len(edge) == 3):
                raise TopologyError(f"an edge is given as (name, tail, head); got {edge!r}")
            self.add_edge(*edge)

    def _forget(self) -> None:
        """Drop what is derived from the nodes and edges (they have changed)."""
        self._nx: nx.MultiDiGraph | None = None
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None
        self._node_names: tuple[Hashable, ...] | None = None
        self._edge_names: tuple[str, ...] | None = None

    def _add_plain_edges(self, edges: Sequence) -> bool:
        """Add all ``edges`` to this empty graph in a few passes over the whole list, when
        they are triples of plain ASCII names (or integer nodes), unique names and no
        self-loops. Returns False, having added nothing, for anything else: the edges are
        then added one by one, which finds and explains the first problem."""
        if not edges or set(map(type, edges)) != {tuple} or set(map(len, edges)) != {3}:
            return False
        names = list(map(itemgetter(0), edges))
        if not _all_plain(names, ".-"):
            return False
        edge_index = dict(zip(names, range(len(names))))
        if len(edge_index) != len(names):
            return False
        # exact types first: True, 1.0 or numpy's 1 would otherwise find node 1 in the dict
        types = set(map(type, map(itemgetter(1), edges)))
        types |= set(map(type, map(itemgetter(2), edges)))
        if not types <= {str, int}:
            return False
        node_index: dict[Hashable, int] = {}
        ends = [node_index.setdefault(node, len(node_index))
                for node in chain.from_iterable(map(itemgetter(1, 2), edges))]
        if not (_all_plain(list(node_index), ".") if types == {str}
                else all(map(_is_plain_node, node_index))):
            return False
        pairs = np.array(ends, dtype=np.int64).reshape(-1, 2)
        if (pairs[:, 0] == pairs[:, 1]).any():
            return False
        self._nodes, self._edges = node_index, edge_index
        self._tails, self._heads = ends[0::2], ends[1::2]
        self._arrays = _read_only(pairs[:, 0].copy(), pairs[:, 1].copy())
        return True

    # -- building -----------------------------------------------------------
    def add_node(self, node: Hashable) -> None:
        """Add a node (nodes are also added by :meth:`add_edge`). Adding it twice is harmless."""
        if type(node) in (str, int) and node in self._nodes:  # checked when first added
            return
        _check_node(node)
        if node not in self._nodes:
            self._look_alikes([(node, "node")])
            self._own()
            self._nodes[node] = len(self._nodes)
            self._forget()

    def add_edge(self, name: str, tail: Hashable, head: Hashable) -> None:
        """Add the edge ``name`` oriented from ``tail`` to ``head``.

        Raises
        ------
        TopologyError
            If ``name`` breaks the name policy (:mod:`vecnet.core.names`), is already used, if a
            node is not a name or a non-negative integer, or if ``tail == head`` (a self-loop).
        """
        # the name policy of vecnet.core.names: '.' joins an element and its port, '-' a body
        # and its point in the names of the arms vecnet makes
        if not _is_plain(name, ".-"):
            check_name(name, "edge name", separators=".-", error=TopologyError)
        if name in self._edges:
            t, h = self.ends(name)
            raise TopologyError(f"edge name {name!r} is already used (edge {t!r} -> {h!r}); "
                                "give each edge a unique name")
        nodes = self._nodes
        for node in (tail, head):
            if not (type(node) in (str, int) and node in nodes):  # else checked when added
                _check_node(node)
        if tail == head:
            raise TopologyError(f"edge {name!r} is a self-loop at node {tail!r}; "
                                "an edge must join two different nodes")
        self._look_alikes([(name, "edge name")] + [(node, "node") for node in (tail, head)
                                                    if node not in nodes])
        self._own()
        nodes = self._nodes
        for node in (tail, head):
            if node not in nodes:
                nodes[node] = len(nodes)
        self._edges[name] = len(self._tails)
        self._tails.append(nodes[tail])
        self._heads.append(nodes[head])
        self._forget()

    # -- reading ------------------------------------------------------------
    @property
    def nodes(self) -> tuple[Hashable, ...]:
        """Node names in order of first appearance."""
        if self._node_names is None:
            self._node_names = tuple(self._nodes)
        return self._node_names

    @property
    def edges(self) -> tuple[str, ...]:
        """Edge names in the order they were added."""
        if self._edge_names is None:
            self._edge_names = tuple(self._edges)
        return self._edge_names

    def number_of_nodes(self) -> int:
        return len(self._nodes)

    def number_of_edges(self) -> int:
        return len(self._edges)

    def __contains__(self, name: object) -> bool:
        try:
            return name in self._edges
        except TypeError:
            return False

    def has_node(self, node: Hashable) -> bool:
        try:
            return node in self._nodes
        except TypeError:
            return False

    def edge_index(self, name: str) -> int:
        """Position of edge ``name`` in :attr:`edges`."""
        try:
            return self._edges[name]
        except (KeyError, TypeError):
            raise UnknownNameError(f"no edge named {name!r} in the graph") from None

    def node_index(self, node: Hashable) -> int:
        """Position of ``node`` in :attr:`nodes`."""
        try:
            return self._nodes[node]
        except (KeyError, TypeError):
            raise UnknownNameError(f"no node {node!r} in the graph") from None

    def ends(self, name: str) -> tuple[Hashable, Hashable]:
        """``(tail, head)`` of edge ``name``."""
        j = self.edge_index(name)
        nodes = self.nodes
        return nodes[self._tails[j]], nodes[self._heads[j]]

    def index_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Tail and head node positions of every edge, as (read-only) integer arrays."""
        if self._arrays is None:
            self._arrays = _read_only(np.asarray(self._tails, dtype=np.int64),
                                      np.asarray(self._heads, dtype=np.int64))
        return self._arrays

    def components(self) -> list[list[Hashable]]:
        """Connected components (orientation ignored), each a list of nodes in graph order,
        ordered by their first node.

        >>> LinearGraph([("x", 1, 2), ("y", 3, 4)]).components()
        [[1, 2], [3, 4]]
        """
        return group_nodes(self, component_labels(self))

    @property
    def nx(self) -> nx.MultiDiGraph:
        """A read-only :class:`networkx.MultiDiGraph` view; edge keys are the edge names."""
        import networkx as nx  # on request: building and formulating a network need none
        if self._nx is None:
            g = nx.MultiDiGraph()
            g.add_nodes_from(self._nodes)
            nodes = self.nodes
            g.add_edges_from((nodes[t], nodes[h], name)
                             for name, t, h in zip(self._edges, self._tails, self._heads))
            self._nx = nx.freeze(g)
        return self._nx

    @contextmanager
    def all_or_nothing(self) -> Iterator[LinearGraph]:
        """Add nodes and edges inside; when it raises, those added inside are taken back
        (they are the last ones: nodes and edges are kept in order of addition).

        >>> g = LinearGraph([("R", "a", "b")])
        >>> try:
        ...     with g.all_or_nothing():
        ...         g.add_edge("C", "b", "c")
        ...         g.add_edge("C", "c", "d")      # a duplicate name: refused
        ... except Exception:
        ...     pass
        >>> g.edges
        ('R',)
        """
        nodes, edges = len(self._nodes), len(self._tails)
        try:
            yield self
        except BaseException:
            self._own()
            for name in list(self._edges)[edges:]:
                del self._edges[name]
            for node in list(self._nodes)[nodes:]:
                del self._nodes[node]
            del self._tails[edges:], self._heads[edges:]
            self._forget()
            self._looks = None   # made again from the names that stay, when next needed
            raise

    def copy(self) -> LinearGraph:
        """An independent copy with the same nodes and edges in the same order.

        The copy shares this graph's containers until one of the two changes (every
        Topology copies its graph, and most graphs never change after that)."""
        other = LinearGraph()
        other._nodes, other._edges = self._nodes, self._edges
        other._tails, other._heads = self._tails, self._heads
        other._arrays, other._node_names, other._edge_names = self._arrays, self.nodes, self.edges
        self._shared = other._shared = True
        return other

    def _look_alikes(self, names: list[tuple[Hashable, str]]) -> None:
        """Refuse edge names or nodes (``(name, "edge name" | "node")``) that look like
        others of their kind (:class:`vecnet.core.names.LookAlikes`). The index is made when
        the first name that is not ASCII arrives, so that graphs of ASCII names never pay
        for it; a refusal drops it (it would hold names the graph did not take)."""
        if self._looks is None:
            if all(not isinstance(name, str) or name.isascii() for name, _ in names):
                return
            self._looks = {"edge name": LookAlikes(self._edges, "edge name"),
                           "node": LookAlikes(self._nodes, "node")}
        try:
            for name, kind in names:
                self._looks[kind].add(name, error=TopologyError)
        except TopologyError:
            self._looks = None
            raise

    def _own(self) -> None:
        """Copy the containers shared with a copy of this graph, before changing them."""
        if self._shared:
            self._nodes, self._edges = dict(self._nodes), dict(self._edges)
            self._tails, self._heads = list(self._tails), list(self._heads)
            self._shared = False

    def subgraph(self, edges: Iterable[str]) -> LinearGraph:
        """The graph made of the named edges only (and their end nodes)."""
        return LinearGraph((name, *self.ends(name)) for name in edges)

    def topology(self, tree: Sequence[str] | Callable[[str], Any] | str | None = None,
                 datum: Hashable | Sequence[Hashable] | None = None,
                 sparse: bool | None = None) -> Topology:
        """The :class:`~vecnet.graph.topology.Topology` of this graph for a choice of tree.

        See :func:`vecnet.graph.topology.Topology` for the meaning of the arguments.
        """
        return public("Topology")(self, tree=tree, datum=datum, sparse=sparse)

    def __repr__(self) -> str:
        return f"<LinearGraph: {self.number_of_nodes()} nodes, {self.number_of_edges()} edges>"

    def _repr_svg_(self) -> str | None:
        """The diagram of :func:`vecnet.output.draw.draw` as SVG, for notebooks (``None`` when the
        Graphviz ``dot`` program is missing or the graph is too large to lay out)."""
        repr_svg = later("vecnet.output.draw").repr_svg

        return repr_svg(self)


def _check_node(node: Hashable) -> None:
    """Nodes are names (dots allowed, as in ``crank.p1``) or non-negative integers."""
    check_node(node, error=TopologyError)


def _read_only(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    for array in arrays:
        array.flags.writeable = False
    return arrays


def _all_plain(names: list, separators: str) -> bool:
    """True when every one of ``names`` is a plain name: text made of ASCII letters, digits
    and '_' in parts joined by single ``separators`` ("." or ".-"), at most MAX_NAME_LENGTH
    characters in all. Plain names are a strict subset of the policy of
    :mod:`vecnet.core.names`, checked here for a whole list in a few passes in C so that a graph
    of a million edges builds quickly; False means: let vecnet.core.names decide (it accepts or
    refuses a name with its message)."""
    if not names or set(map(type, names)) != {str} or max(map(len, names)) > MAX_NAME_LENGTH:
        return False
    text = "\n".join(names)
    if not text.isascii():
        return False
    raw = text.encode()
    allowed, marks, empty_parts = _MARKS[separators]
    if raw.translate(None, allowed) or raw.count(b"\n") != len(names) - 1:
        return False  # another character, or a name with a line break of its own
    return bool(raw) and raw[0] not in marks and raw[-1] not in marks and not any(
        pair in raw for pair in empty_parts)


def _is_plain(name: object, separators: str) -> bool:
    """:func:`_all_plain` for one name, by a regular expression: faster for a single name."""
    return type(name) is str and _PLAIN[separators].fullmatch(name) is not None


def _marks(separators: str) -> tuple[bytes, bytes, tuple[bytes, ...]]:
    """What a list of plain names joined by line breaks may hold; the separators and line
    break; the pairs of them that would make an empty part."""
    marks = separators.encode() + b"\n"
    return _NAME_CHARACTERS + marks, marks, tuple(bytes((a, b)) for a in marks for b in marks)


_NAME_CHARACTERS = (string.ascii_letters + string.digits + "_").encode()
_MARKS = {separators: _marks(separators) for separators in (".", ".-")}
_PLAIN = {separators: re.compile(
    rf"(?=.{{1,{MAX_NAME_LENGTH}}}\Z)[A-Za-z0-9_]+(?:[{re.escape(separators)}][A-Za-z0-9_]+)*",
    re.DOTALL) for separators in _MARKS}


def _is_plain_node(node: Hashable) -> bool:
    """A node that :func:`vecnet.core.names.check_node` accepts, found without building a message
    (False may also mean: let check_node decide)."""
    if type(node) is int:
        return 0 <= node < MAX_NODE_INTEGER
    return _is_plain(node, ".")


def pick(items: Sequence, positions: np.ndarray) -> tuple:
    """``tuple(items[j] for j in positions)``, in C (names of many edges or nodes at once)."""
    positions = positions.tolist()
    if len(positions) < 2:
        return tuple(items[j] for j in positions)
    return itemgetter(*positions)(items)


def group_nodes(graph: LinearGraph, labels: np.ndarray) -> list[list[Hashable]]:
    """The nodes of ``graph`` grouped by ``labels`` (one per node, numbered 0, 1, ... in
    order of first node): a list per label, each in graph order."""
    if len(labels) and labels.max() == 0:
        return [list(graph.nodes)]
    ordered = pick(graph.nodes, np.argsort(labels, kind="stable"))
    bounds = np.cumsum(np.bincount(labels)).tolist()
    return [list(ordered[start:end]) for start, end in zip([0] + bounds[:-1], bounds)]


def component_labels(graph: LinearGraph, edges: np.ndarray | None = None) -> np.ndarray:
    """Component label of every node of ``graph`` counting only the edges at positions
    ``edges`` (all edges when omitted); labels are numbered in order of first node."""
    tails, heads = graph.index_arrays()
    if edges is not None:
        tails, heads = tails[edges], heads[edges]
    n = graph.number_of_nodes()
    adjacency = sp.csr_matrix((np.ones(len(tails)), (tails, heads)), shape=(n, n))
    _, labels = csgraph.connected_components(adjacency, directed=False)
    if len(labels) == 0 or (labels[0] == 0 and (np.diff(np.maximum.accumulate(labels)) <= 1).all()):
        return labels  # already numbered in order of first node: each new label is one more
    _, first = np.unique(labels, return_index=True)
    order = np.argsort(first)
    rename = np.empty_like(order)
    rename[order] = np.arange(len(order))
    return rename[labels]
