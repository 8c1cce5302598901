"""The sparse topology of larger random multigraphs against independent constructions.

Graphs here have up to a few hundred edges, so that the vectorised tree walk of
vecnet (used when many chords are left to walk) runs, and still small enough for
dense references written in the test: networkx's oriented incidence matrix (-1 at
the tail, +1 at the head: McPhee's sign, docs/conventions.md), ``[CU] = A_t^{-1} A``
and ``P = A_t^{-1}`` by dense numpy solves, ranks by numpy, components by
networkx, and the name policy of ``vecnet.core.names``. A 10^5-edge ladder guards
against a return to per-edge Python work (its speed is measured by
``benchmarks/topology.py``).
"""

import time

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from networkx.utils import UnionFind

import vecnet as vn
from vecnet.builders.trees import normal_tree
from vecnet.core.names import check_name, check_node
from vecnet.elements.base import Kind
from vecnet.errors import FormulationError, VecnetError


@st.composite
def big_multigraphs(draw):
    """``(name, tail, head)`` triples of a random multigraph: several components, parallel
    and antiparallel edges, integer or text nodes, edges in random order."""
    n = draw(st.integers(2, 70))
    parts = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    piece = rng.integers(0, parts, n)
    pairs = []
    for p in range(parts):
        members = np.flatnonzero(piece == p)
        for k in range(1, len(members)):  # a random tree keeps each piece connected
            pairs.append((members[k], members[rng.integers(0, k)]))
        for _ in range(int(rng.integers(0, 4 * len(members) + 1))):
            u, w = rng.choice(members, 2) if len(members) > 1 else (members[0], members[0])
            if u != w:
                pairs.append((u, w))
    for _ in range(draw(st.integers(0, 8))):  # parallel copies of earlier edges
        if pairs:
            pairs.append(pairs[int(rng.integers(0, len(pairs)))])
    rng.shuffle(pairs)
    text = draw(st.booleans())
    label = [f"n{i}" if text else int(i) for i in rng.permutation(n)]
    edges = [(f"e{j}", label[u], label[w]) if rng.random() < 0.5 else (f"e{j}", label[w], label[u])
             for j, (u, w) in enumerate(pairs)]
    return edges, [label[i] for i in range(n)]


def graph_of(case):
    edges, nodes = case
    g = vn.LinearGraph(edges)
    for node in nodes:  # isolated nodes too
        g.add_node(node)
    return g


def reference_incidence(g):
    """networkx's oriented incidence matrix, rows in node order, columns in edge order."""
    m = nx.MultiDiGraph()
    m.add_nodes_from(g.nodes)
    m.add_edges_from((*g.ends(e), e) for e in g.edges)
    edgelist = [(*g.ends(e), e) for e in g.edges]
    return nx.incidence_matrix(m, nodelist=list(g.nodes), edgelist=edgelist,
                               oriented=True).toarray()


def components(g):
    m = nx.MultiGraph()
    m.add_nodes_from(g.nodes)
    m.add_edges_from((*g.ends(e), e) for e in g.edges)
    return list(nx.connected_components(m))


def dense_parts(topo):
    """``[A]`` with columns branches then chords, from the reference incidence."""
    g = topo.graph
    rows = [g.node_index(n) for n in topo.reduced_nodes]
    columns = [g.edge_index(e) for e in topo.branches + topo.chords]
    a = reference_incidence(g)[np.ix_(rows, columns)]
    return a[:, :len(topo.branches)], a


@given(big_multigraphs())
def test_incidence_and_rank(case):
    g = graph_of(case)
    topo = g.topology(sparse=True)
    assert topo.incidence.issparse
    assert np.array_equal(topo.incidence.toarray(), reference_incidence(g))
    v, p = g.number_of_nodes(), len(components(g))
    assert len(topo.datum) == p
    a = topo.reduced_incidence.toarray()
    assert (np.linalg.matrix_rank(a) if a.size else 0) == v - p


@given(big_multigraphs())
def test_cutset_is_the_tree_part_solved_and_orthogonal_to_the_circuits(case):
    topo = graph_of(case).topology(sparse=True)
    a_t, a = dense_parts(topo)
    cutset = topo.cutset.toarray()
    circuit = topo.circuit.toarray()
    if len(topo.branches):
        assert np.array_equal(cutset, np.rint(np.linalg.solve(a_t, a)).astype(int))
        assert np.array_equal(topo.path.toarray(), np.rint(np.linalg.inv(a_t)).astype(int))
    assert not (circuit @ cutset.T).any()
    assert np.array_equal(circuit[:, len(topo.branches):], np.eye(len(topo.chords)))


@given(big_multigraphs(), st.data())
def test_sparse_and_dense_topologies_agree_for_any_tree_and_datum(case, data):
    g = graph_of(case)
    weights = {e: data.draw(st.integers(0, 5)) for e in g.edges}
    datum = [data.draw(st.sampled_from(sorted(c, key=g.node_index))) for c in components(g)]
    sparse = g.topology(tree=weights.get, datum=datum, sparse=True)
    dense = g.topology(tree=weights.get, datum=datum, sparse=False)
    assert sparse.branches == dense.branches and sparse.datum == dense.datum
    for name in ("incidence", "reduced_incidence", "cutset", "circuit", "path"):
        s, d = getattr(sparse, name), getattr(dense, name)
        assert s.issparse and not d.issparse
        assert s == d


@given(big_multigraphs())
def test_fundamental_circuits_close_and_match_the_circuit_matrix(case):
    g = graph_of(case)
    topo = g.topology(sparse=True)
    incidence = reference_incidence(g)
    circuit = topo.circuit
    for chord in topo.chords[:20]:
        walk = topo.fundamental_circuit(chord)
        # a closed walk: the signed sum of its incidence columns is zero
        assert not sum(s * incidence[:, g.edge_index(e)] for e, s in walk).any()
        assert dict(walk) == {e: circuit[chord, e] for e in circuit.columns if circuit[chord, e]}


@given(big_multigraphs())
def test_a_list_of_edges_builds_the_graph_that_adding_them_one_by_one_builds(case):
    edges, _ = case
    whole = vn.LinearGraph(edges)
    one_by_one = vn.LinearGraph()
    for edge in edges:
        one_by_one.add_edge(*edge)
    assert whole.nodes == one_by_one.nodes and whole.edges == one_by_one.edges
    for a, b in zip(whole.index_arrays(), one_by_one.index_arrays()):
        assert np.array_equal(a, b)


NAME_TEXT = st.text(alphabet="ab_9.-é\n 𝐑" + "\u0301", max_size=6) | st.just("x" * 65)
NODE = NAME_TEXT | st.integers(-2, 3) | st.just(True) | st.just(1.0)


def policy_accepts(name, tail, head):
    try:
        check_name(name, separators=".-")
        check_node(tail)
        check_node(head)
    except VecnetError:
        return False
    return True


@given(st.lists(st.tuples(NAME_TEXT, NODE, NODE), min_size=1, max_size=4))
def test_graphs_accept_exactly_the_names_of_the_name_policy(edges):
    expected = all(policy_accepts(*edge) for edge in edges)
    ends = [(t, h) for _, t, h in edges]
    unique = len({name for name, _, _ in edges}) == len(edges)
    loops = any(t == h for t, h in ends)
    try:
        g = vn.LinearGraph(edges)
    except vn.TopologyError:
        assert not (expected and unique and not loops)
    else:
        assert expected and unique and not loops
        assert g.number_of_edges() == len(edges)
        # a node equal to another of another type (True and 1) is refused, never merged
        assert all(type(n) in (str, int) for n in g.nodes)


@st.composite
def lumped_networks(draw):
    """Random one-port networks (sources, stores, resistors), parallel edges included."""
    n = draw(st.integers(2, 12))
    kinds = [(vn.VoltageSource, "V"), (vn.Capacitor, "C"), (vn.Resistor, "R"),
             (vn.Inductor, "L"), (vn.CurrentSource, "I")]
    net = vn.Network()
    for k in range(draw(st.integers(1, 30))):
        cls, p = draw(st.sampled_from(kinds))
        u, w = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
        net.add(cls(f"{p}{k}", u, w, **{p: 1.0}))
    return net


RANK = {Kind.ACROSS_SOURCE: 0, Kind.ACROSS_STORE: 1, Kind.DISSIPATOR: 2, Kind.THROUGH_STORE: 3}


def reference_normal_tree(net):
    """Edges offered by kind (across sources, A-type stores, resistors, T-type stores), each
    kind in element order; an edge joining two pieces of the forest is taken."""
    forest = UnionFind(net.graph.nodes)
    taken = []
    offered = sorted((RANK[el.kind], i, el.edges[0].name) for i, el in enumerate(net.elements)
                     if el.kind in RANK)
    for _, _, edge in offered:
        tail, head = net.graph.ends(edge)
        if forest[tail] != forest[head]:
            forest.union(tail, head)
            taken.append(edge)
        elif net.owner(edge).kind is Kind.ACROSS_SOURCE:
            return None  # a loop of across sources
    return taken


def through_sources_cut(net):
    g = nx.MultiGraph()
    g.add_nodes_from(net.graph.nodes)
    g.add_edges_from((*net.graph.ends(e), e) for e in net.graph.edges
                     if net.owner(e).kind is not Kind.THROUGH_SOURCE)
    everything = nx.MultiGraph(g)
    everything.add_edges_from((*net.graph.ends(e), e) for e in net.graph.edges)
    return nx.number_connected_components(g) != nx.number_connected_components(everything)


@given(lumped_networks())
def test_normal_tree_is_the_greedy_tree_in_normal_order(net):
    expected = None if through_sources_cut(net) else reference_normal_tree(net)
    try:
        branches = normal_tree(net)
    except FormulationError:
        assert expected is None
    else:
        assert branches == expected


def test_a_through_source_beside_an_element_of_opposite_orientation_is_no_cutset():
    net = vn.Network()
    net.add(vn.CurrentSource("I", 1, 0, I=1.0), vn.Resistor("R", 0, 1, R=2.0))
    assert net.topology(tree="normal").branches == ("R",)


def ladder(cells):
    """A ladder with diagonals: rails a and b, rungs, a diagonal per cell."""
    edges = [("r0", "a0", "b0")]
    for k in range(1, cells):
        edges += [(f"x{k}", f"a{k - 1}", f"a{k}"), (f"r{k}", f"a{k}", f"b{k}"),
                  (f"y{k}", f"b{k - 1}", f"b{k}"), (f"d{k}", f"a{k - 1}", f"b{k}")]
    return edges


def test_a_hundred_thousand_edge_ladder_builds_its_topology_quickly():
    start = time.perf_counter()
    g = vn.LinearGraph(ladder(25_001))
    topo = g.topology()
    cutset = sp.csr_array(topo.cutset.tosparse())
    circuit = sp.csr_array(topo.circuit.tosparse())
    elapsed = time.perf_counter() - start
    assert g.number_of_edges() == 100_001
    # one circuit of 3 or 4 edges per chord (rail b and diagonals close on the comb of rail a
    # and the rungs), and [CI][CU]^T = 0
    assert circuit.nnz == 25_000 * 4 + 25_000 * 3
    assert (circuit @ cutset.T).count_nonzero() == 0
    assert elapsed < 20, f"{elapsed:.1f} s"  # a hang guard: the benchmark measures speed


@pytest.mark.parametrize("edges", [[("e", "a", "a")], [("e", 1, 1)],
                                   [("e", "a", "b"), ("e", "b", "c")]])
def test_self_loops_and_repeated_names_are_refused_from_a_list(edges):
    with pytest.raises(vn.TopologyError):
        vn.LinearGraph(edges)
