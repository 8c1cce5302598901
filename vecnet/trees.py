"""The normal tree of a lumped network, and the ill-posed networks it exposes.

A normal tree takes, in this order of preference: across sources, A-type
stores, transducer edges, D-type elements, T-type stores; through sources
never. A transformer puts exactly one of its two edges in the tree, a
gyrator both or neither. A-type stores left in the cotree and T-type stores
forced into the tree are *dependent* energy stores.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import networkx as nx
from networkx.utils import UnionFind

from .elements.base import Kind
from .errors import FormulationError

if TYPE_CHECKING:
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
    _check_through_source_cutsets(net)
    transducers = [el for el in net.elements if el.kind is Kind.TRANSDUCER]
    if len(transducers) <= MAX_ENUMERATED:
        # every way to place the transducers; keep the one with the most independent stores
        options = [[(e.name,) for e in el.edges] if el.coupling == "transformer"
                   else [tuple(e.name for e in el.edges), ()] for el in transducers]
        best = None
        for choice in itertools.product(*options):
            branches = _greedy(net, [edge for edges in choice for edge in edges])
            if branches is not None and (best is None or _order(net, branches) > best[0]):
                best = (_order(net, branches), branches)
        if best is not None:
            return best[1]
    return _greedy(net, None)


#: up to this many transducers, every placement is tried; above it, one greedy pass
MAX_ENUMERATED = 10


def _order(net: Network, branches: list[str]) -> int:
    """A-type stores in the tree plus T-type stores out of it."""
    inside = set(branches)
    return sum((el.kind is Kind.ACROSS_STORE and el.edges[0].name in inside)
               or (el.kind is Kind.THROUGH_STORE and el.edges[0].name not in inside)
               for el in net.elements)


def _greedy(net: Network, transducer_edges: list[str] | None) -> list[str] | None:
    """Branches taken in normal-tree order. With ``transducer_edges`` given, exactly those
    transducer edges are taken (``None`` if one of them closes a circuit); without, each
    transducer is placed by :func:`_place_transducer`."""
    graph = net.graph
    forest = UnionFind(graph.nodes)
    branches: list[str] = []

    def joins(edge: str) -> bool:
        tail, head = graph.ends(edge)
        return forest[tail] != forest[head]

    def take(edge: str) -> None:
        forest.union(*graph.ends(edge))
        branches.append(edge)

    def take_all(kind: Kind) -> None:
        for element in net.elements:
            if element.kind is kind:
                for edge in element.edges:
                    if joins(edge.name):
                        take(edge.name)
                    elif kind is Kind.ACROSS_SOURCE:
                        _across_source_loop(net, branches, edge.name)

    take_all(Kind.ACROSS_SOURCE)
    take_all(Kind.ACROSS_STORE)
    if transducer_edges is None:
        for element in net.elements:
            if element.kind is Kind.TRANSDUCER:
                forest = _place_transducer(net, element, branches, forest)
    else:
        for edge in transducer_edges:
            if not joins(edge):
                return None
            take(edge)
    for kind in (Kind.CONSTRAINT, Kind.DISSIPATOR, Kind.THROUGH_STORE):
        take_all(kind)
    return branches


def _place_transducer(net: Network, element, branches: list[str], forest: UnionFind) -> UnionFind:
    """Add a transformer's one edge or a gyrator's two edges; when a transformer fits
    nowhere, the A-type store on its circuit that was added last leaves the tree."""
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
    graph = net.graph
    tree = nx.MultiGraph()
    tree.add_edges_from((*graph.ends(b), b) for b in branches)
    tail, head = graph.ends(chord)
    path = nx.shortest_path(tree, head, tail)
    loop = [chord] + [next(iter(tree[u][v])) for u, v in zip(path, path[1:])]
    raise FormulationError(f"across sources {', '.join(loop)} form a loop: their values are not "
                           "independent (the circuit law fixes their sum); remove one or add an "
                           "element in series")


def _check_through_source_cutsets(net: Network) -> None:
    graph = net.graph
    full = nx.MultiGraph(graph.nx)
    rest = full.copy()
    sources = [e.name for el in net.elements if el.kind is Kind.THROUGH_SOURCE for e in el.edges]
    rest.remove_edges_from((*graph.ends(s), s) for s in sources)
    if nx.number_connected_components(rest) == nx.number_connected_components(full):
        return
    where = {n: k for k, comp in enumerate(nx.connected_components(rest)) for n in comp}
    cutting = [s for s in sources if where[graph.ends(s)[0]] != where[graph.ends(s)[1]]]
    raise FormulationError(f"through sources {', '.join(cutting)} form a cutset: they alone join "
                           "parts of the network, so the vertex law fixes their values; add an "
                           "element in parallel with them")
