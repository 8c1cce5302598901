"""Bad input raises a VecnetError whose message says what to fix."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import vecnet as vn


@pytest.fixture
def square():
    # a square a-b-c-d with one diagonal a-c
    return vn.LinearGraph([("ab", "a", "b"), ("bc", "b", "c"), ("cd", "c", "d"),
                           ("da", "d", "a"), ("ac", "a", "c")])


def test_branches_with_a_circuit_name_the_circuit(square):
    with pytest.raises(vn.TreeError, match="circuit") as info:
        square.topology(tree=["ab", "bc", "ac"])
    message = str(info.value)
    assert all(e in message for e in ("ab", "bc", "ac")) and "cd" not in message


def test_parallel_branches_are_a_circuit():
    for ends in (("p", "q"), ("q", "p")):   # same or opposite directions
        g = vn.LinearGraph([("x", "p", "q"), ("y", *ends)])
        with pytest.raises(vn.TreeError, match=r"branches x, y form a circuit"):
            g.topology(tree=["x", "y"])


def test_branches_that_leave_nodes_out_name_them(square):
    with pytest.raises(vn.TreeError, match="leaves out node") as info:
        square.topology(tree=["ab", "bc"])
    assert "'d'" in str(info.value)


def test_branches_that_fall_apart_say_so():
    g = vn.LinearGraph([("x", 1, 2), ("y", 3, 4), ("z", 2, 3)])
    with pytest.raises(vn.TreeError, match="falls apart into 2 pieces"):
        g.topology(tree=["x", "y"])


def test_unknown_and_repeated_branches(square):
    with pytest.raises(vn.UnknownNameError, match="zz"):
        square.topology(tree=["ab", "zz", "cd"])
    with pytest.raises(vn.TreeError, match="more than once"):
        square.topology(tree=["ab", "ab", "cd"])
    with pytest.raises(vn.TreeError, match="list of edge names"):
        vn.check_tree(square, "ab")


def test_unknown_names(square):
    with pytest.raises(vn.UnknownNameError, match="no edge named 'q'"):
        square.ends("q")
    with pytest.raises(vn.UnknownNameError, match="'z'"):
        square.topology(datum="z")
    topo = square.topology()
    with pytest.raises(vn.UnknownNameError, match="not a chord"):
        topo.fundamental_circuit(topo.branches[0])
    with pytest.raises(vn.UnknownNameError, match="not a tree branch"):
        topo.fundamental_cutset(topo.chords[0])
    with pytest.raises(vn.UnknownNameError, match="no column labelled"):
        topo.incidence["a", "nope"]


def test_datum_per_component():
    g = vn.LinearGraph([("x", 1, 2), ("y", 3, 4)])
    with pytest.raises(vn.TopologyError, match="same connected component"):
        g.topology(datum=[1, 2])
    assert g.topology(datum=[2, 4]).datum == (2, 4)


def test_self_loops_and_duplicate_names():
    g = vn.LinearGraph()
    with pytest.raises(vn.TopologyError, match="self-loop at node 'a'"):
        g.add_edge("s", "a", "a")
    g.add_edge("e", "a", "b")
    with pytest.raises(vn.TopologyError, match="already used"):
        g.add_edge("e", "b", "c")
    assert g.edges == ("e",) and g.nodes == ("a", "b")   # refused edges leave nothing behind


def test_bad_names_and_nodes():
    for bad in ([("", 1, 2)], [(3, 1, 2)], [("x", [1], 2)], [("x", None, 2)], [("x", 1)], ["abc"]):
        with pytest.raises(vn.TopologyError):
            vn.LinearGraph(bad)


def test_network_refuses_without_half_adding():
    net = vn.Network("n")
    net.add(vn.Resistor("R1", "a", "b", R=1.0))
    with pytest.raises(vn.ModelError, match="already has an element named 'R1'"):
        net.add(vn.Capacitor("C1", "b", "g", C=1.0), vn.Resistor("R1", "b", "c", R=2.0))
    with pytest.raises(vn.TopologyError, match="element 'C2'.*self-loop"):
        net.add(vn.Capacitor("C2", "b", "b", C=1.0))
    assert [e.name for e in net.elements] == ["R1"] and net.graph.edges == ("R1",)
    assert net.graph.nodes == ("a", "b")                 # nodes of a refused batch too
    with pytest.raises(vn.ModelError, match="can only add elements"):
        net.add("R2")
    with pytest.raises(vn.TopologyError, match="unknown tree rule"):
        net.topology(tree="fancy")
    with pytest.raises(vn.UnknownNameError, match="no element 'X'"):
        net.element("X")


def test_bad_element_parameters():
    with pytest.raises(vn.ModelError, match="needs parameter 'R'"):
        vn.Resistor("R1", "a", "b")
    with pytest.raises(vn.ModelError, match="has no parameter.*Q.*parameters are R"):
        vn.Resistor("R1", "a", "b", R=1.0, Q=2.0)
    with pytest.raises(vn.ModelError, match="number or a sympy expression"):
        vn.Resistor("R1", "a", "b", R="10k")
    with pytest.raises(vn.ModelError, match="takes the nodes"):
        vn.Resistor("R1", "a", R=1.0)
    with pytest.raises(vn.ModelError, match="'.' is not part of a name"):
        vn.Resistor("R.1", "a", "b", R=1.0)
    with pytest.raises(vn.UnknownNameError, match="unknown domain"):
        vn.domain("acoustic")


anything = st.one_of(st.none(), st.integers(), st.text(max_size=3), st.lists(st.integers(), max_size=2),
                     st.floats(allow_nan=False), st.tuples(st.integers()))


@given(st.lists(st.tuples(anything, anything, anything), max_size=6), anything, anything)
def test_no_other_exception_escapes(edges, tree, datum):
    """Whatever goes in, the public API answers with a result or a VecnetError."""
    try:
        g = vn.LinearGraph(edges)
        topo = g.topology(tree=tree if isinstance(tree, (list, str)) or tree is None else [tree],
                          datum=datum)
        topo.cutset, topo.circuit, topo.path
    except vn.VecnetError:
        pass
