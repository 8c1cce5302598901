"""The normal tree of a lumped network, and the ill-posed networks it exposes.

A normal tree takes, in this order of preference: across sources, A-type
stores, transducer edges, D-type elements, T-type stores; through sources
never. A transformer puts exactly one of its two edges in the tree, a
gyrator both or neither. A-type stores left in the cotree and T-type stores
forced into the tree are *dependent* energy stores. Coupled inductors are one
T-type store of several edges, each placed like an inductor (chords preferred).

The edges of a controlled source (:mod:`vecnet.elements.controlled`) take their places one
by one: a sensing short and a controlled across source go with the across sources, a
sensing open and a controlled through source stay out with the through sources. An ideal
operational amplifier needs a feedback path from its output to an input.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np

from ..elements.base import Kind
from ..elements.controlled import OpAmp
from ..errors import FormulationError
from ..graph.graph import component_labels
from ..graph.topology import greedy_forest

if TYPE_CHECKING:
    from networkx.utils import UnionFind

    from .network import Network

__all__ = ["normal_tree"]


def normal_tree(net: Network) -> list[str]:
    """Branches of a normal tree of ``net``.

    Raises
    ------
    FormulationError
        Across sources that form a loop, or through sources that form a cutset
        (the message names them), or a transducer that no tree can accommodate.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network()
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Inductor("L", "a", "b", L=1.0),
    ...             vn.Resistor("R", "b", "g", R=1.0), vn.Capacitor("C", "b", "g", C=1.0))
    >>> normal_tree(net)
    ['V', 'C']
    """
    edges = _edges_by_kind(net)
    _check_feedback(net)
    _check_through_source_cutsets(net, edges[Kind.THROUGH_SOURCE])
    elements = net.elements
    transducers = [el for el in elements if _placed_as_transducer(el)]
    if len(transducers) <= MAX_ENUMERATED:
        # every edge of a store counts: coupled inductors are one store of several windings
        stores = tuple([e.name for el in elements if el.kind is kind for e in el.edges]
                       for kind in (Kind.ACROSS_STORE, Kind.THROUGH_STORE))
        # every way to place the transducers; keep the one with the most independent stores
        options = [[(e.name,) for e in el.edges] if el.coupling == "transformer"
                   else [tuple(e.name for e in el.edges), ()] for el in transducers]
        best = None
        for choice in itertools.product(*options):
            branches = _greedy(net, edges, [edge for chosen in choice for edge in chosen])
            if branches is not None:
                order = _order(stores, branches)
                if best is None or order > best[0]:
                    best = (order, branches)
        if best is not None:
            return best[1]
    return _greedy(net, edges, None)


#: up to this many transducers, every placement is tried; above it, one greedy pass
MAX_ENUMERATED = 10


def _edges_by_kind(net: Network) -> dict[Kind, list[str]]:
    """Edge names of each kind, in element order."""
    edges: dict[Kind, list[str]] = {kind: [] for kind in Kind}
    for element in net.elements:
        for edge, kind in zip(element.edges, element.edge_kinds):
            edges[kind].append(edge.name)
    return edges


def _placed_as_transducer(element) -> bool:
    """A transformer or gyrator, whose edges the tree places together (a controlled source
    is a two-port too, but its edges have places of their own)."""
    return element.kind is Kind.TRANSDUCER and element.coupling != "controlled"


def _edge_kind(net: Network, edge: str) -> Kind:
    owner = net.owner(edge)
    return owner.edge_kinds[[e.name for e in owner.edges].index(edge)]


def _order(stores: tuple[list[str], list[str]], branches: list[str]) -> int:
    """A-type store edges in the tree plus T-type store edges out of it; ``stores`` holds
    the edges of the A-type and of the T-type stores."""
    inside = set(branches)
    across, through = stores
    return (sum(map(inside.__contains__, across))
            + len(through) - sum(map(inside.__contains__, through)))


#: the order in which a greedy pass offers the edges of each kind to the tree; transducer
#: edges come after the A-type stores
_BEFORE_TRANSDUCERS = (Kind.ACROSS_SOURCE, Kind.ACROSS_STORE)
_AFTER_TRANSDUCERS = (Kind.CONSTRAINT, Kind.DISSIPATOR, Kind.THROUGH_STORE)


def _greedy(net: Network, edges: dict[Kind, list[str]],
            transducer_edges: list[str] | None) -> list[str] | None:
    """Branches taken in normal-tree order. With ``transducer_edges`` given, exactly those
    transducer edges are taken (``None`` if one of them closes a circuit); without, each
    transducer is placed by :func:`_place_transducer`. ``edges``: :func:`_edges_by_kind`.

    With the transducer edges fixed, the greedy pass is Kruskal's rule on the edges in the
    order offered, so the minimum spanning forest of :func:`~vecnet.graph.topology.greedy_forest`
    gives the same branches in the same order, in C. Placing transducers one by one is not
    a weighted spanning tree (a gyrator takes both of its edges or neither, and a
    transformer that fits nowhere sends an A-type store already taken back to the cotree),
    so that pass stays an explicit walk."""
    if transducer_edges is None:
        return _greedy_placing_transducers(net, edges)
    graph = net.graph
    sources = edges[Kind.ACROSS_SOURCE]
    offered = (_edges_of(edges, _BEFORE_TRANSDUCERS) + list(transducer_edges)
               + _edges_of(edges, _AFTER_TRANSDUCERS))
    order = np.fromiter((graph.edge_index(e) for e in offered), dtype=np.int64, count=len(offered))
    names = graph.edges
    branches = [names[j] for j in greedy_forest(graph, order).tolist()]
    taken = set(branches)
    refused = [e for e in sources if e not in taken]
    if refused:  # across sources come first: a refused one closes a loop of across sources
        _across_source_loop(net, branches[:sources.index(refused[0])], refused[0])
    if not taken.issuperset(transducer_edges):
        return None
    return branches


def _edges_of(edges: dict[Kind, list[str]], kinds: tuple[Kind, ...]) -> list[str]:
    """The edges of ``kinds``, kind by kind, each in element order."""
    return [edge for kind in kinds for edge in edges[kind]]


def _greedy_placing_transducers(net: Network, edges: dict[Kind, list[str]]) -> list[str]:
    """Branches taken in normal-tree order, each transducer placed by
    :func:`_place_transducer`."""
    from networkx.utils import UnionFind  # networkx for networks with transducers alone

    graph = net.graph
    forest = UnionFind(graph.nodes)
    branches: list[str] = []

    def take_all(kinds: tuple[Kind, ...]) -> None:
        for edge in _edges_of(edges, kinds):
            tail, head = graph.ends(edge)
            if forest[tail] != forest[head]:
                forest.union(tail, head)
                branches.append(edge)
            elif _edge_kind(net, edge) is Kind.ACROSS_SOURCE:
                _across_source_loop(net, branches, edge)

    take_all(_BEFORE_TRANSDUCERS)
    for element in net.elements:
        if _placed_as_transducer(element):
            forest = _place_transducer(net, element, branches, forest)
    take_all(_AFTER_TRANSDUCERS)
    return branches


def _place_transducer(net: Network, element, branches: list[str], forest: UnionFind) -> UnionFind:
    """Add a transformer's one edge or a gyrator's two edges; when a transformer fits
    nowhere, the A-type store on its circuit that was added last leaves the tree."""
    import networkx as nx
    from networkx.utils import UnionFind
    graph = net.graph
    names = [e.name for e in element.edges]
    if element.coupling == "gyrator":
        trial = UnionFind(graph.nodes)
        for b in branches:
            trial.union(*graph.ends(b))
        fits = True
        for name in names:
            tail, head = graph.ends(name)
            fits = fits and trial[tail] != trial[head]
            trial.union(tail, head)
        if fits:
            branches.extend(names)
            return trial
        return forest
    for name in names:
        tail, head = graph.ends(name)
        if forest[tail] != forest[head]:
            forest.union(tail, head)
            branches.append(name)
            return forest
    # both edges close circuits: an A-type store on one of them becomes dependent
    tree = nx.MultiGraph()
    tree.add_edges_from((*graph.ends(b), b) for b in branches)
    circuits = []
    for name in names:
        tail, head = graph.ends(name)
        path = nx.shortest_path(tree, tail, head)
        on_path = [key for u, v in zip(path, path[1:]) for key in tree[u][v]]
        stores = [b for b in on_path if net.owner(b).kind is Kind.ACROSS_STORE]
        circuits.append(on_path)
        if stores:
            branches.remove(max(stores, key=branches.index))
            branches.append(name)
            rebuilt = UnionFind(graph.nodes)
            for b in branches:
                rebuilt.union(*graph.ends(b))
            return rebuilt
    raise FormulationError(f"transformer {element.name!r}: both of its edges close circuits "
                           f"of sources and transducers ({'; '.join(', '.join(c) for c in circuits)}) "
                           "with no energy store to release; the network is over-constrained")


def _across_source_loop(net: Network, branches: list[str], chord: str) -> None:
    import networkx as nx  # here only: the error's loop, found once
    graph = net.graph
    tree = nx.MultiGraph()
    tree.add_edges_from((*graph.ends(b), b) for b in branches)
    tail, head = graph.ends(chord)
    path = nx.shortest_path(tree, head, tail)
    loop = [chord] + [next(iter(tree[u][v])) for u, v in zip(path, path[1:])]
    raise FormulationError(f"across sources {', '.join(loop)} form a loop{_roles(net, loop)}: "
                           "their values are not independent (the circuit law fixes their sum) "
                           "and the through variable around the loop is not determined; remove "
                           "one or add an element in series")


def _roles(net: Network, edges: list[str]) -> str:
    """`` (E.out is the across source of VCVS 'E', ...)`` for the edges of controlled
    sources among ``edges``; empty without any."""
    roles = [f"{e} is {net.owner(e).role(e)}" for e in edges if hasattr(net.owner(e), "role")]
    return f" ({'; '.join(roles)})" if roles else ""


def _check_through_source_cutsets(net: Network, sources: list[str]) -> None:
    graph = net.graph
    if not sources:
        return
    others = np.ones(graph.number_of_edges(), dtype=bool)
    others[[graph.edge_index(s) for s in sources]] = False
    rest = component_labels(graph, np.flatnonzero(others))
    if rest.max() == component_labels(graph).max():
        return
    tails, heads = graph.index_arrays()
    cutting = [s for s in sources
               if rest[tails[graph.edge_index(s)]] != rest[heads[graph.edge_index(s)]]]
    raise FormulationError(f"through sources {', '.join(cutting)} form a cutset"
                           f"{_roles(net, cutting)}: they alone join "
                           "parts of the network, so the vertex law fixes their values; add an "
                           "element in parallel with them")


def _check_feedback(net: Network) -> None:
    """Refuse an ideal operational amplifier whose output reaches neither input except
    through its own ground node: its nullator then constrains a part of the network that
    its norator cannot drive, and the equations are singular. Elements with several edges
    (transducers, controlled sources) join all their nodes, as they couple their ports."""
    amplifiers = [el for el in net.elements if type(el) is OpAmp]
    if not amplifiers:
        return
    import networkx as nx  # for networks with op-amps alone

    for amp in amplifiers:
        (minus, plus), (ground, out) = ((e.tail, e.head) for e in amp.edges)
        links = nx.Graph()
        for element in net.elements:
            if element is amp:
                continue
            nodes = list(dict.fromkeys(n for e in element.edges for n in (e.tail, e.head)))
            links.add_edges_from(itertools.combinations(nodes, 2))
        if ground in links:
            links.remove_node(ground)
        inputs = [n for n in (minus, plus) if n != ground and n in links]
        if out not in links or not any(nx.has_path(links, out, n) for n in inputs):
            raise FormulationError(
                f"operational amplifier {amp.name!r} has no feedback path: no element joins its "
                f"output {out!r} to its input {minus!r} or {plus!r} other than through its ground "
                f"{ground!r}, so its output is not determined (an ideal op-amp needs negative "
                "feedback); add the feedback network, or give it a finite gain (gain=A)")
