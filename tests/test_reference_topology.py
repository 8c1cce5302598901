"""REFERENCE cases E1 (McPhee), E2 (Wittenburg) and E3 (four-bar vector network)."""

import numpy as np
import pytest
import sympy

import vecnet as vn

# ---- E1: McPhee's electrical network, Figs. 1-2 --------------------------------------

E1_EDGES = [("L1", "a", "b"), ("L2", "e", "d"), ("R3", "c", "b"), ("R4", "e", "b"),
            ("R5", "f", "e"), ("C6", "c", "d"), ("V7", "f", "a")]
E1_TREE = ["L1", "L2", "R3", "R4", "R5"]

E1_IN = np.array([  # McPhee, as printed: rows a..f, columns L1 L2 R3 R4 R5 C6 V7
    [-1, 0, 0, 0, 0, 0, 1],
    [1, 0, 1, 1, 0, 0, 0],
    [0, 0, -1, 0, 0, -1, 0],
    [0, 1, 0, 0, 0, 1, 0],
    [0, -1, 0, -1, 1, 0, 0],
    [0, 0, 0, 0, -1, 0, -1],
])
E1_CU = np.array([
    [1, 0, 0, 0, 0, 0, -1],
    [0, 1, 0, 0, 0, 1, 0],
    [0, 0, 1, 0, 0, 1, 0],
    [0, 0, 0, 1, 0, -1, 1],
    [0, 0, 0, 0, 1, 0, 1],
])
E1_CI = np.array([
    [0, -1, -1, 1, 0, 1, 0],
    [1, 0, 0, -1, -1, 0, 1],
])


def e1_graph():
    g = vn.LinearGraph()
    for node in "abcdef":
        g.add_node(node)
    for edge in E1_EDGES:
        g.add_edge(*edge)
    return g


def test_e1_incidence():
    topo = e1_graph().topology(tree=E1_TREE, datum="f")
    assert topo.incidence.rows == tuple("abcdef")
    assert topo.incidence.columns == ("L1", "L2", "R3", "R4", "R5", "C6", "V7")
    assert np.array_equal(topo.incidence.toarray(), E1_IN)


@pytest.mark.parametrize("datum", list("abcdef"))
def test_e1_cutset_is_the_same_for_every_datum(datum):
    topo = e1_graph().topology(tree=E1_TREE, datum=datum)
    assert topo.cutset.rows == tuple(E1_TREE)
    assert topo.cutset.columns == tuple(E1_TREE) + ("C6", "V7")
    assert np.array_equal(topo.cutset.toarray(), E1_CU)
    assert topo.reduced_incidence.rows == tuple(n for n in "abcdef" if n != datum)
    assert np.array_equal(topo.reduced_incidence.toarray(), np.delete(E1_IN, "abcdef".index(datum), 0))


def test_e1_circuit():
    topo = e1_graph().topology(tree=E1_TREE, datum="f")
    assert topo.circuit.rows == ("C6", "V7")
    assert np.array_equal(topo.circuit.toarray(), E1_CI)


def test_e1_cutset_and_circuit_equations():
    topo = e1_graph().topology(tree=E1_TREE, datum="f")
    tau = {e: sympy.Symbol(f"tau_{e}") for e, _, _ in E1_EDGES}
    a = {e: sympy.Symbol(f"a_{e}") for e, _, _ in E1_EDGES}
    cut = {eq.lhs: eq.rhs for eq in topo.cutset_equations(tau)}
    # McPhee: tau_L1 = tau_V7, tau_L2 = tau_R3 = -tau_C6, tau_R4 = tau_C6 - tau_V7, tau_R5 = -tau_V7
    assert cut == {tau["L1"]: tau["V7"], tau["L2"]: -tau["C6"], tau["R3"]: -tau["C6"],
                   tau["R4"]: tau["C6"] - tau["V7"], tau["R5"]: -tau["V7"]}
    circ = {eq.lhs: eq.rhs for eq in topo.circuit_equations(a)}
    # a_C6 = a_L2 + a_R3 - a_R4, a_V7 = -a_L1 + a_R4 + a_R5
    assert circ == {a["C6"]: a["L2"] + a["R3"] - a["R4"], a["V7"]: -a["L1"] + a["R4"] + a["R5"]}


def test_e1_as_a_network_of_elements():
    net = vn.Network("E1")
    net.add(vn.Inductor("L1", "a", "b", L=2.0), vn.Inductor("L2", "e", "d", L=1.0),
            vn.Resistor("R3", "c", "b", R=1.0), vn.Resistor("R4", "e", "b", R=2.0),
            vn.Resistor("R5", "f", "e", R=3.0), vn.Capacitor("C6", "c", "d", C=0.5),
            vn.VoltageSource("V7", "f", "a", V=vn.Symbol("V")))
    topo = net.topology(tree=E1_TREE)
    assert np.array_equal(topo.cutset.toarray(), E1_CU)
    # normal tree: the source, the capacitor, then resistors; inductors only as needed
    normal = net.topology(tree="normal")
    assert {"V7", "C6"} <= set(normal.branches)
    assert len(normal.branches) == 5


def test_e1_fundamental_sets_as_edge_lists():
    topo = e1_graph().topology(tree=E1_TREE)
    assert dict(topo.fundamental_cutset("R4")) == {"R4": 1, "C6": -1, "V7": 1}
    loop = topo.fundamental_circuit("C6")
    assert dict(loop) == {"C6": 1, "L2": -1, "R3": -1, "R4": 1}


# ---- E2: Wittenburg's seven-body tree, Fig. 5.8c -------------------------------------

I_PLUS = (0, 6, 6, 4, 2, 2, 3)   # arc a leaves body i+(a) ...
I_MINUS = (1, 7, 1, 1, 1, 5, 2)  # ... and enters body i-(a)
S_W = np.array([[-1, 0, -1, -1, -1, 0, 0], [0, 0, 0, 0, 1, 1, -1], [0, 0, 0, 0, 0, 0, 1],
                [0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, -1, 0], [0, 1, 1, 0, 0, 0, 0],
                [0, -1, 0, 0, 0, 0, 0]])
T_W = np.array([[-1, -1, -1, -1, -1, -1, -1], [0, 0, 0, 0, 0, 0, -1], [0, 0, 0, 0, 0, 1, 1],
                [0, 0, 0, 1, 0, 0, 0], [0, 1, 1, 0, 1, 0, 0], [0, 0, 0, 0, -1, 0, 0],
                [0, 0, 1, 0, 0, 0, 0]])
S0_W = np.array([[1, 0, 0, 0, 0, 0, 0]])


def e2_topology():
    g = vn.LinearGraph()
    for body in range(8):
        g.add_node(body)
    for a, (plus, minus) in enumerate(zip(I_PLUS, I_MINUS), start=1):
        g.add_edge(f"arc{a}", plus, minus)
    return g.topology(tree=[f"arc{a}" for a in range(1, 8)], datum=0)


def test_e2_wittenburg_incidence_is_the_negative():
    topo = e2_topology()
    assert topo.reduced_nodes == tuple(range(1, 8))
    assert np.array_equal(-topo.reduced_incidence.toarray(), S_W)
    assert np.array_equal(-topo.incidence.toarray()[:1], S0_W)


def test_e2_path_matrix_is_wittenburgs_T():
    topo = e2_topology()
    T = -topo.path.toarray()
    assert np.array_equal(T, T_W)
    n = 7
    assert np.array_equal(T @ S_W, np.eye(n)) and np.array_equal(S_W @ T, np.eye(n))
    assert np.array_equal(T.T @ S0_W.T, -np.ones((n, 1)))


# ---- E3: the four-bar as a vector network, McPhee Fig. 6 ----------------------------

def four_bar_graph():
    g = vn.LinearGraph()
    for i in (1, 2, 3):
        g.add_edge(f"m{i}", "datum", f"c{i}")                 # mass elements
    g.add_edge("g1", "datum", "G1")                           # ground arms
    g.add_edge("g4", "datum", "G4")
    for i in (1, 2, 3):                                       # rigid arms to the pin points
        g.add_edge(f"r{i}a", f"c{i}", f"p{i}a")
        g.add_edge(f"r{i}b", f"c{i}", f"p{i}b")
    g.add_edge("T", "datum", "c1")                            # driving torque
    g.add_edge("P1", "G1", "p1a")                             # pins
    g.add_edge("P2", "p1b", "p2a")
    g.add_edge("P3", "p2b", "p3a")
    g.add_edge("P4", "p3b", "G4")
    return g


ARMS = ["g1", "g4", "r1a", "r1b", "r2a", "r2b", "r3a", "r3b"]


def test_e3_counts_with_masses_and_arms_in_the_tree():
    g = four_bar_graph()
    topo = g.topology(tree=["m1", "m2", "m3", *ARMS], datum="datum")
    assert (len(topo.nodes), len(topo.edges)) == (12, 16)
    assert len(topo.branches) == 11
    assert set(topo.chords) == {"T", "P1", "P2", "P3", "P4"}
    # each pin circuit, resolved in x and y, gives 2 of the 8 constraints
    assert 2 * sum(c.startswith("P") for c in topo.chords) == 8


def test_e3_joint_tree_leaves_one_loop_closure():
    g = four_bar_graph()
    topo = g.topology(tree=["P1", "P2", "P3", *ARMS], datum="datum")
    assert set(topo.chords) == {"m1", "m2", "m3", "T", "P4"}
    loop = dict(topo.fundamental_circuit("P4"))
    # the loop closure runs through the pins and the arms, never through a mass element
    assert set(loop) == {"P4", "P1", "P2", "P3", *ARMS}
