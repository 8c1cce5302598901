"""Theorems of linear graph theory checked on random multigraphs.

The expected values come from the definitions, built here independently of
vecnet: the incidence matrix from the edge list, cutsets by deleting edges
with networkx, circuits by walking them.
"""

import networkx as nx
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import vecnet as vn


@st.composite
def multigraphs(draw, connected=False):
    """Random multigraphs with parallel edges and, unless ``connected``, several components."""
    n = draw(st.integers(2, 10))
    edges = []
    if connected:  # a random spanning tree first
        for v in range(1, n):
            u = draw(st.integers(0, v - 1))
            edges.append((u, v) if draw(st.booleans()) else (v, u))
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
                          .filter(lambda p: p[0] != p[1]), max_size=3 * n))
    edges += extra
    g = vn.LinearGraph()
    for v in range(n):
        g.add_node(v)
    for k, (u, v) in enumerate(edges):
        g.add_edge(f"e{k}", u, v)
    return g


def edge_list(g):
    return [(name, *g.ends(name)) for name in g.edges]


def reference_incidence(g):
    nodes = list(g.nodes)
    m = np.zeros((len(nodes), len(g.edges)), dtype=int)
    for j, (_, tail, head) in enumerate(edge_list(g)):
        m[nodes.index(head), j] += 1
        m[nodes.index(tail), j] -= 1
    return m


def component_count(g):
    return nx.number_connected_components(nx.MultiGraph(g.nx))


def ordered(topo, matrix):
    """Matrix columns reordered from branches+chords to graph edge order."""
    cols = [list(matrix.columns).index(e) for e in topo.edges]
    return matrix.toarray()[:, cols]


any_graph = multigraphs()
connected_graph = multigraphs(connected=True)


@given(any_graph)
def test_incidence_matches_the_definition(g):
    assert np.array_equal(vn.incidence_matrix(g).toarray(), reference_incidence(g))


@given(any_graph)
def test_forest_size_and_rank_of_reduced_incidence(g):
    topo = g.topology()
    v, e, p = len(g.nodes), len(g.edges), component_count(g)
    assert len(topo.datum) == p
    assert len(topo.branches) == v - p and len(topo.chords) == e - v + p
    A = topo.reduced_incidence.toarray()
    assert (np.linalg.matrix_rank(A) if A.size else 0) == v - p


@given(any_graph)
def test_circuit_and_cutset_matrices_are_orthogonal(g):
    topo = g.topology()
    assert not np.any(topo.circuit.toarray() @ topo.cutset.toarray().T)


@given(any_graph)
def test_cutset_is_the_inverse_tree_part_times_A(g):
    topo = g.topology()
    A = topo.reduced_incidence
    cols = [A.columns.index(b) for b in topo.branches + topo.chords]
    full = A.toarray()[:, cols]
    A_t = full[:, : len(topo.branches)]
    expected = np.linalg.solve(A_t, full) if len(topo.branches) else full
    assert np.allclose(topo.cutset.toarray(), expected)
    # and Branin's path matrix is that inverse
    assert np.allclose(A_t @ topo.path.toarray(), np.eye(len(topo.branches)))


@given(any_graph)
def test_every_fundamental_circuit_is_a_closed_oriented_walk(g):
    topo = g.topology()
    for chord in topo.chords:
        loop = topo.fundamental_circuit(chord)
        start = at = g.ends(chord)[0]
        for edge, direction in loop:
            tail, head = g.ends(edge)
            frm, to = (tail, head) if direction == 1 else (head, tail)
            assert frm == at
            at = to
        assert at == start
        assert [e for e, _ in loop if e in topo.chords] == [chord]
        # the walk visits no node twice: it is a circuit
        row = dict(zip(topo.circuit.columns, topo.circuit.toarray()[topo.chords.index(chord)]))
        assert {e: s for e, s in loop} == {e: s for e, s in row.items() if s}


@given(any_graph)
def test_every_fundamental_cutset_separates_the_branch_ends(g):
    topo = g.topology()
    for branch in topo.branches:
        cut = dict(topo.fundamental_cutset(branch))
        rest = nx.MultiGraph(g.nx)
        rest.remove_edges_from([(*g.ends(e), e) for e in cut])
        tail, head = g.ends(branch)
        side = nx.node_connected_component(rest, head)
        assert tail not in side
        for edge, sign in cut.items():  # +1 when the edge crosses the cut like the branch
            t, h = g.ends(edge)
            assert (h in side) != (t in side)
            assert sign == (1 if h in side else -1)


@given(any_graph, st.randoms(use_true_random=False))
def test_tellegen(g, rnd):
    topo = g.topology()
    rng = np.random.default_rng(rnd.randint(0, 2**32 - 1))
    A_c = topo.chord_part.toarray()
    tau_c = rng.normal(size=len(topo.chords))
    a_t = rng.normal(size=len(topo.branches))
    tau = dict(zip(topo.branches + topo.chords, np.concatenate([-A_c @ tau_c, tau_c])))
    a = dict(zip(topo.branches + topo.chords, np.concatenate([a_t, A_c.T @ a_t])))
    tau_vec = np.array([tau[e] for e in g.edges])
    a_vec = np.array([a[e] for e in g.edges])
    IN = reference_incidence(g)
    assert np.allclose(IN @ tau_vec, 0)                      # the vertex postulate holds
    eta, *_ = np.linalg.lstsq(IN.T.astype(float), a_vec, rcond=None)
    assert np.allclose(IN.T @ eta, a_vec)                    # a is a difference of node values
    assert abs(a_vec @ tau_vec) < 1e-9 * (1 + np.abs(a_vec) @ np.abs(tau_vec))


@given(any_graph)
def test_dense_and_sparse_agree(g):
    dense = g.topology(sparse=False)
    sparse = g.topology(sparse=True)
    for name in ("incidence", "reduced_incidence", "cutset", "circuit", "path"):
        d, s = getattr(dense, name), getattr(sparse, name)
        assert not d.issparse and s.issparse
        assert d == s


@given(any_graph, st.data())
def test_priority_tree_is_a_minimum_spanning_forest(g, data):
    weights = {e: data.draw(st.integers(0, 5)) for e in g.edges}
    branches = vn.spanning_forest(g, priority=weights.get)
    vn.check_tree(g, branches)
    reference = nx.minimum_spanning_tree(nx.MultiGraph(
        [(*g.ends(e), {"weight": w}) for e, w in weights.items()]))
    assert sum(weights[b] for b in branches) == reference.size(weight="weight")


@given(connected_graph)
def test_datum_choice_does_not_change_cutset_or_circuit(g):
    topos = [g.topology(tree=vn.spanning_forest(g), datum=d) for d in g.nodes]
    for topo in topos[1:]:
        assert topo.cutset == topos[0].cutset and topo.circuit == topos[0].circuit
